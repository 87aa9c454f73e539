//! `hopsig pla sign-pcap | verify-pcap`: Packet Level Authentication (003 §I–II) on
//! real IPv6 captures (docs/spec/pla.md, "PLA in IPv6 packets"). `sign-pcap` is the
//! sending hosts: it adds a signed PLA Hop-by-Hop option to every IPv6 packet it can;
//! `verify-pcap` is a router on the path: it checks every packet (parse, timestamp,
//! replay window, fused extraction + verification) on every core, in packet order.

use std::fs::File;
use std::io::{BufReader, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use hopsig_pla::capture::{CaptureError, CaptureReader, CaptureWriter, CutShort};
use hopsig_pla::hosts::{host_of, Hosts, Layout, SignCounts};
use hopsig_pla::pipeline::{check_ordered, Clock, Tally};
use hopsig_pla::{Router, RouterConfig, Sender, TtpDirectory, Verdict};
use hopsig_schemes::concat::koblitz::KoblitzSecret;
use hopsig_schemes::concat::BaseSignature;
use hopsig_schemes::pla::files;
use hopsig_schemes::pla::koblitz::Curve;
use hopsig_schemes::primitives::armor::KeyFile;
use hopsig_schemes::Error;

use super::bgpsec::{open_counted, rate, threads, Counted, Progress};
use crate::io::{at, key_file, note, outputs, say, with_metadata, Failure, Outcome, Secrecy};

/// Packet Level Authentication on IPv6 captures.
#[derive(clap::Args)]
#[command(
    after_help = "Exit codes: 0 success (verify-pcap: no signed packet rejected), 1 a signed packet was rejected (verify-pcap), 2 bad usage or input (verify-pcap: also no signed packet at all). A capture cut short in the middle of a packet is read up to the incomplete record (its byte offset is named), and what its complete frames give is reported and written; the exit code is then 2."
)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Sign every IPv6 packet of a capture, as its sending host would.
    SignPcap(SignPcap),
    /// Check every packet of a capture, as a PLA router on the path would.
    VerifyPcap(VerifyPcap),
}

/// How a host's key travels when `--enroll` makes it.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum LayoutName {
    /// An implicit certificate on the source address (003 §II-C; 77 octets on K-163).
    Implicit,
    /// The public key with the TTP's signature on it (119 octets on K-163).
    Certificate,
}

/// Sign every IPv6 packet of IN, write OUT (IN's format: pcap or pcapng).
///
/// Each IPv6 packet gets a PLA Hop-by-Hop option (docs/spec/pla.md) signed at its
/// capture time with the next sequence number of its source; Payload Length is fixed
/// (upper-layer checksums do not cover extension headers and stay valid). IPv4 and
/// other frames, and IPv6 packets that cannot be signed (a Routing header, already
/// signed, truncated in the capture, a jumbogram, another source than the key's
/// certificate), are copied unchanged and counted.
#[derive(clap::Args)]
struct SignPcap {
    /// Capture to sign (pcap or pcapng).
    input: PathBuf,
    /// Signed capture to write (the input's format: pcap with its link type, or pcapng
    /// with its interfaces).
    output: PathBuf,
    /// The sending host's key: an ecdsa-k163/k233/k283 key file (`hopsig ic finalize`).
    #[arg(long, conflicts_with = "enroll", required_unless_present = "enroll")]
    key: Option<PathBuf>,
    /// Its certificate [default: KEY.cert]: an implicit certificate (`hopsig ic
    /// finalize`; only packets from the address it was issued on are signed) or a key
    /// certificate (`hopsig ic certify-key`; every packet is signed).
    #[arg(long, requires = "key")]
    cert: Option<PathBuf>,
    /// Instead of one key: a TTP folder (`hopsig ic ttp`); every IPv6 source address of
    /// the capture is enrolled with this TTP on the fly (a fresh key and its
    /// certificate per host, nothing written), so every host signs its own packets.
    #[arg(long, value_name = "TTP_DIR")]
    enroll: Option<PathBuf>,
    /// With --enroll: how each host's key travels.
    #[arg(long, value_enum, default_value = "implicit", requires = "enroll")]
    layout: LayoutName,
    /// The TTP id written in the headers.
    #[arg(long, default_value_t = 1)]
    ttp_id: u16,
    /// Replace OUT if it exists.
    #[arg(long)]
    force: bool,
}

/// Check every packet of FILE as a PLA router.
///
/// For each frame: not IPv6, unsigned or a jumbogram (not checked), or signed and then
/// accepted or rejected with a reason: malformed, other_curve, unknown_ttp, stale, future, replay,
/// bad_signature (docs/spec/pla.md, "What a router checks"). The router's clock is
/// each frame's capture time unless --now is given.
#[derive(clap::Args)]
struct VerifyPcap {
    /// Capture to check (pcap or pcapng).
    file: PathBuf,
    /// The TTP's public key (`DIR/ttp.pub` of `hopsig ic ttp`); it names the curve.
    #[arg(long, value_name = "FILE")]
    ttp_pub: PathBuf,
    /// The TTP's id in the headers.
    #[arg(long, default_value_t = 1)]
    ttp_id: u16,
    /// Checking threads [default: every core].
    #[arg(long, value_name = "N")]
    threads: Option<NonZeroUsize>,
    /// Write the accepted packets (and the frames not checked, unless
    /// --accepted-only) to this capture (FILE's format), in capture order.
    #[arg(long, value_name = "ACCEPTED.pcap")]
    out: Option<PathBuf>,
    /// With --out: leave out the frames not checked too (a strict PLA router).
    #[arg(long, requires = "out")]
    accepted_only: bool,
    /// Check against this Unix time instead of each frame's capture time.
    #[arg(long, value_name = "UNIX")]
    now: Option<u32>,
    /// Seconds after which a timestamp is stale.
    #[arg(long, default_value_t = RouterConfig::default().max_age)]
    max_age: u32,
    /// Seconds a timestamp may be ahead of the clock.
    #[arg(long, default_value_t = RouterConfig::default().skew)]
    skew: u32,
    /// Most (TTP, source) entries in the replay table.
    #[arg(long, default_value_t = RouterConfig::default().max_sources)]
    max_sources: usize,
    /// Also write the summary as JSON to this file.
    #[arg(long, value_name = "OUT")]
    json: Option<PathBuf>,
    /// Replace --out / --json files if they exist.
    #[arg(long)]
    force: bool,
}

/// Runs the command.
pub fn run(args: Args) -> Outcome {
    match args.command {
        Command::SignPcap(a) => {
            let (path, file) = match (&a.key, &a.enroll) {
                (Some(key), _) => (key.clone(), key_file(key, "key")?),
                (None, Some(dir)) => {
                    let path = dir.join("ttp.key");
                    (path.clone(), key_file(&path, "TTP key")?)
                }
                (None, None) => return Err(Failure::Input("give --key or --enroll".into())),
            };
            let curve = files::curve_of_signer(&file).map_err(|_| {
                at(
                    &path,
                    format!(
                        "a {} file, not an ecdsa-k163/k233/k283 key or a TTP key",
                        file.scheme
                    ),
                )
            })?;
            on_curve!(curve, sign_pcap::<C, B>(&a, &path, &file))
        }
        Command::VerifyPcap(a) => {
            let file = key_file(&a.ttp_pub, "TTP public key")?;
            let curve = files::curve_of(&file).map_err(|e| at(&a.ttp_pub, e))?;
            on_curve!(curve, verify_pcap::<C>(&a, &file))
        }
    }
}

/// A capture file being read, its bytes counted.
type Capture = CaptureReader<BufReader<Counted<File>>>;

/// A capture opened for reading, with a progress bar of its bytes.
fn open_capture(path: &Path) -> Result<(Capture, Progress), Failure> {
    let (counted, size, read) = open_counted(path, "capture")?;
    let reader = CaptureReader::detect(BufReader::new(counted)).map_err(|e| at(path, e))?;
    let progress = Progress::sized("pla", size, read);
    Ok((reader, progress))
}

/// The failure to end with, if the capture at `path` was cut short after `frames`
/// complete frames ([`CutShort`]; docs/spec/pla.md, "Capture files").
fn cut_failure(cut: &CutShort, path: &Path, frames: u64) -> Outcome {
    match cut.error() {
        Some(e) => Err(at(path, format!("{e} (after {frames} complete frames)"))),
        None => Ok(()),
    }
}

/// The host of `--key` and `--cert` ([`hopsig_pla::hosts::host_of`]).
fn host_of_files<C: Curve>(
    key: KoblitzSecret<C>,
    cert_path: &Path,
    ttp_id: u16,
) -> Result<Sender<C>, Failure> {
    let cert_file = key_file(cert_path, "certificate")?;
    host_of(key, &cert_file, ttp_id).map_err(|e| at(cert_path, e))
}

fn sign_pcap<C: Curve, B: BaseSignature<SecretKey = KoblitzSecret<C>>>(
    a: &SignPcap,
    key_path: &Path,
    key_file: &KeyFile,
) -> Outcome {
    let mut hosts = match &a.key {
        Some(_) => {
            if key_file.scheme != B::ID {
                return Err(at(
                    key_path,
                    format!("a {} file, not an {} key", key_file.scheme, B::ID),
                ));
            }
            let der = &key_file
                .block("PRIVATE KEY")
                .map_err(|e| at(key_path, Error::from(e)))?
                .der;
            let key = B::secret_from_der(der).map_err(|e| at(key_path, e))?;
            let cert_path = a
                .cert
                .clone()
                .unwrap_or_else(|| crate::io::with_suffix(key_path, ".cert"));
            Hosts::One(host_of_files::<C>(key, &cert_path, a.ttp_id)?)
        }
        None => Hosts::enrolled(
            files::ttp_from_file::<C>(key_file).map_err(|e| at(key_path, e))?,
            match a.layout {
                LayoutName::Implicit => Layout::Implicit,
                LayoutName::Certificate => Layout::Certificate,
            },
            a.ttp_id,
        ),
    };
    let (reader, mut progress) = open_capture(&a.input)?;
    let format = reader.output_format();
    let mut counts = SignCounts::default();
    let mut failure: Option<Failure> = None;
    let mut cut = CutShort::default();
    let mut written = outputs(a.force, [a.input.as_path(), key_path]);
    written
        .add_with(&a.output, Secrecy::Public, |w| {
            let mut writer = CaptureWriter::new(w, format).map_err(std::io::Error::other)?;
            for frame in reader {
                let frame = match frame.map_err(|e| cut.take(e)) {
                    Ok(f) => f,
                    // Cut short: the complete frames are written.
                    Err(Ok(())) => break,
                    Err(Err(e)) => {
                        failure = Some(at(&a.input, e));
                        return Err(std::io::Error::other("capture unreadable"));
                    }
                };
                let out = match hosts.sign_frame(&frame, &mut counts) {
                    Ok(out) => out,
                    Err(e) => {
                        // Frames are numbered from 1, as tshark and Wireshark number them.
                        failure = Some(at(
                            &a.input,
                            format!("frame {}: signing failed: {e}", counts.frames),
                        ));
                        return Err(std::io::Error::other("signing failed"));
                    }
                };
                writer
                    .write(out.as_ref().unwrap_or(&frame))
                    .map_err(std::io::Error::other)?;
                progress.tick(|| format!("{} frames, {} signed", counts.frames, counts.signed));
            }
            writer.into_inner().flush()
        })
        .map_err(|e| failure.take().unwrap_or_else(|| e.into()))?;
    written.commit()?;
    let seconds = progress.seconds();
    let hosts_n = hosts.len();
    say(format_args!(
        "signed: {} -> {}: {} of {} frames, {} host key(s) on {}, {:.2} s: {:.0} packets signed/s, {} octets added",
        a.input.display(),
        a.output.display(),
        counts.signed,
        counts.frames,
        hosts_n,
        C::NAME,
        seconds,
        rate(counts.signed, seconds),
        counts.bytes_added
    ))?;
    say(format_args!("not IPv6 (copied): {}", counts.not_ipv6))?;
    let skipped: u64 = counts.skipped.values().sum();
    let kinds: Vec<String> = counts
        .skipped
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    say(format_args!(
        "IPv6 not signed (copied): {skipped}{}",
        if kinds.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds.join(", "))
        }
    ))?;
    cut_failure(&cut, &a.input, counts.frames)
}

fn verify_pcap<C: Curve>(a: &VerifyPcap, ttp_file: &KeyFile) -> Outcome {
    let w_t = files::ttp_public_from_file::<C>(ttp_file).map_err(|e| at(&a.ttp_pub, e))?;
    let mut ttps = TtpDirectory::default();
    ttps.insert(a.ttp_id, w_t);
    let router = Router::new(
        ttps,
        RouterConfig {
            max_age: a.max_age,
            skew: a.skew,
            max_sources: a.max_sources,
        },
    );
    let mut files_out = outputs(a.force, [a.file.as_path(), a.ttp_pub.as_path()]);
    if let Some(j) = &a.json {
        files_out.check(j)?;
    }
    let (reader, mut progress) = open_capture(&a.file)?;
    let format = reader.output_format();
    let threads = threads(a.threads);
    let clock = a.now.map_or(Clock::Capture, Clock::Fixed);
    let mut counts = Tally::default();
    let mut cut = CutShort::default();
    let check = |w: Option<&mut CaptureWriter<&mut dyn Write>>| -> Result<(), CaptureError> {
        let mut w = w;
        check_ordered(&router, clock, reader, threads, |frame, v| {
            counts.record(&v);
            let keep = matches!(v, Verdict::Accepted) || (!a.accepted_only && v.is_not_checked());
            if let (Some(w), true) = (w.as_deref_mut(), keep) {
                w.write(&frame)?;
            }
            progress.tick(|| format!("{} frames checked", counts.frames));
            Ok(())
        })
    };
    match &a.out {
        Some(out) => {
            let mut failure = None;
            files_out
                .add_with(out, Secrecy::Public, |w| {
                    let mut writer =
                        CaptureWriter::new(w, format).map_err(std::io::Error::other)?;
                    check(Some(&mut writer))
                        .or_else(|e| cut.take(e))
                        .map_err(|e| {
                            // Writing fails on the output, anything else on the input.
                            let path = match e {
                                CaptureError::Write(_) => out,
                                _ => &a.file,
                            };
                            failure = Some(at(path, &e));
                            std::io::Error::other(e.to_string())
                        })?;
                    writer.into_inner().flush()
                })
                .map_err(|e| failure.take().unwrap_or_else(|| e.into()))?;
        }
        None => check(None)
            .or_else(|e| cut.take(e))
            .map_err(|e| at(&a.file, e))?,
    }
    let seconds = progress.seconds();
    let n = |r: &str| counts.count(r);
    let (accepted, not_checked) = (counts.accepted(), counts.not_checked());
    let (rejected, checked) = (counts.rejected(), counts.checked());
    if checked == 0 {
        // Nothing is written: the --out and --json files are left out.
        let cut_short = match cut.error() {
            Some(e) => format!("; {e}"),
            None => String::new(),
        };
        return Err(at(
            &a.file,
            format!(
                "no PLA-signed packet in {} frames{cut_short}",
                counts.frames
            ),
        ));
    }
    say(format_args!(
        "checked: {}: {} frames, {} checked, {}, TTP {}, {threads} threads, {seconds:.2} s: {:.0} checked packets/s, {:.0} frames/s",
        a.file.display(),
        counts.frames,
        checked,
        C::NAME,
        a.ttp_id,
        rate(checked, seconds),
        rate(counts.frames, seconds),
    ))?;
    say(format_args!("accepted: {accepted}"))?;
    say(format_args!("rejected: {rejected}"))?;
    for reason in Verdict::NAMES {
        if !matches!(reason, "accepted" | "unsigned" | "not_ipv6" | "jumbogram") && n(reason) > 0 {
            say(format_args!("  {reason}: {}", n(reason)))?;
        }
    }
    say(format_args!(
        "not checked: {not_checked} (unsigned {}, not_ipv6 {}, jumbogram {})",
        n("unsigned"),
        n("not_ipv6"),
        n("jumbogram")
    ))?;
    for (frame, why) in &counts.first_rejections {
        say(format_args!("  frame {frame}: {why}"))?;
    }
    if let Some(path) = &a.json {
        let json = serde_json::json!({
            "file": a.file.display().to_string(),
            "curve": C::NAME,
            "frames": counts.frames,
            "checked": checked,
            "accepted": accepted,
            "rejected": rejected,
            "reasons": counts.by_reason,
            "first_rejections": counts.first_rejections.iter().map(|(f, w)| serde_json::json!({"frame": f, "reason": w})).collect::<Vec<_>>(),
            "cut_short_at": match cut.error() {
                Some(CaptureError::Truncated { offset }) => serde_json::json!(offset),
                _ => serde_json::Value::Null,
            },
            "threads": threads,
            "seconds": seconds,
            "checked_packets_per_second": rate(checked, seconds),
        });
        let bytes = serde_json::to_vec_pretty(&with_metadata(json))
            .map_err(|e| Failure::Input(format!("JSON: {e}")))?;
        files_out.add(path, &bytes, Secrecy::Public)?;
    }
    files_out.commit()?;
    cut_failure(&cut, &a.file, counts.frames)?;
    if rejected > 0 {
        return Err(Failure::Invalid(format!(
            "{}: {rejected} of {checked} checked packets rejected",
            a.file.display()
        )));
    }
    note(format_args!(
        "replay table: {} sources",
        router.replay_entries()
    ));
    Ok(())
}
