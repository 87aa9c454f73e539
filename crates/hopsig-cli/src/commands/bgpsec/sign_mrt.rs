//! `hopsig bgpsec sign-mrt IN OUT --suite ID --keys DIR`: every announcement of an
//! MRT file as the BGPsec UPDATE its AS path would carry (`hopsig_bgp::trace::sign`).

use std::cell::RefCell;
use std::io::{BufWriter, Write};
use std::num::NonZeroUsize;
use std::path::PathBuf;

use hopsig_bgp::trace::keys_folder::{self, KeysFolderError};
use hopsig_bgp::trace::sign::SignMrtError;
use hopsig_bgp::trace::{sign_mrt, Keyring, SignOptions, SignReport, SignRun, Skip, KEYS_JSON};

use super::{open_mrt, rate, suite_named, threads};
use crate::io::{at, metadata, note, outputs, say, Failure, Outcome, Secrecy};

/// Sign every announcement of an MRT file as the BGPsec UPDATE its AS path would carry.
///
/// IN is an MRT file (RIS / RouteViews updates or RIB dump; plain, gzip, bzip2, xz or
/// zstd). Each AS on the path signs in turn, origin first, toward the next AS; the
/// newest toward the collector.
/// Writes OUT as MRT BGP4MP_MESSAGE_AS4 records, and to DIR a key per AS:
/// bgpsec_keys.json (rpki-client's format, for validate-mrt) and AS<N>.key (mode 0600).
/// Withdrawals, and announcements BGPsec cannot sign (AS_SET, ...), are counted and
/// skipped. docs/spec/bgpsec-mrt.md.
#[derive(clap::Args)]
pub struct Args {
    /// The MRT file to read.
    #[arg(value_name = "IN")]
    input: PathBuf,
    /// The MRT file to write.
    #[arg(value_name = "OUT")]
    output: PathBuf,
    /// Algorithm suite: name or number (1 = ecdsa-p256-sha256, RFC 8608).
    #[arg(long)]
    suite: String,
    /// Folder for the keys (created if missing).
    #[arg(long, value_name = "DIR")]
    keys: PathBuf,
    /// Sign the first N announcements only.
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
    /// The AS the newest signature targets where the file does not name the
    /// collector's (RIB dumps); RIPE RIS's by default.
    #[arg(long, value_name = "AS", default_value_t = 12_654)]
    target_as: u32,
    /// Threads that generate keys and sign [default: every core].
    #[arg(long, value_name = "N")]
    threads: Option<NonZeroUsize>,
    /// Also write the summary as JSON to FILE (docs/spec/json.md; checked before the
    /// run, placed with OUT and the keys).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Replace OUT and key files that exist.
    #[arg(long)]
    force: bool,
}

/// Signs, then places OUT and the keys together.
pub fn run(args: Args) -> Outcome {
    let suite = suite_named(&args.suite)?;
    let input = open_mrt(&args.input)?;
    let json = args.keys.join(KEYS_JSON);
    let mut files = outputs(args.force, [args.input.as_path()]);
    files.folder(&args.keys)?;
    files.check(&args.output)?;
    files.check(&json)?;
    if let Some(summary) = &args.json {
        files.check(summary)?;
    }
    let mut progress = input.progress("sign-mrt");
    let mut keyring = Keyring::new(suite);
    let options = SignOptions {
        default_target_as: args.target_as,
        limit: args.limit,
        threads: threads(args.threads),
    };
    let failed: RefCell<Option<SignMrtError>> = RefCell::new(None);
    let mut report = SignReport::default();
    let staged = files.add_with(&args.output, Secrecy::Public, |out| {
        let mut out = BufWriter::with_capacity(1 << 20, out);
        let mut show = |r: &SignReport| {
            progress.tick(|| {
                format!(
                    "{} announcements, {} UPDATEs, {} keys",
                    r.announcements, r.updates, r.keys_generated
                )
            })
        };
        match sign_mrt(input.reader, &mut out, &mut keyring, &options, &mut show) {
            Ok(r) => report = r,
            Err(SignMrtError::Write(e)) => return Err(e),
            Err(e) => {
                *failed.borrow_mut() = Some(e);
                return Err(std::io::Error::other("signing stopped"));
            }
        }
        out.flush()
    });
    if let Some(e) = failed.into_inner() {
        return Err(match e {
            SignMrtError::Read(_) => at(&args.input, e),
            other => Failure::Input(format!("{}: {other}", args.input.display())),
        });
    }
    staged?;
    if report.announcements == 0 {
        return Err(at(
            &args.input,
            format!("no announcement in {} MRT records", report.records),
        ));
    }
    let signing = progress.seconds();
    note(format_args!(
        "sign-mrt: writing {} secret key files to {}",
        keyring.len(),
        args.keys.display()
    ));
    keys_folder::stage(&mut files, &args.keys, &keyring).map_err(|e| match e {
        KeysFolderError::Key { source, .. } => {
            Failure::Input(format!("cannot write a secret key: {source}"))
        }
        KeysFolderError::Persist(e) => Failure::from(e),
        other => Failure::Input(other.to_string()),
    })?;
    if let Some(path) = &args.json {
        let mut doc = report.to_json(&SignRun {
            input: &args.input,
            output: &args.output,
            keys: &args.keys,
            suite: suite.id(),
            suite_name: suite.name(),
            router_keys: keyring.len(),
            threads: options.threads,
            seconds: signing,
        });
        doc["metadata"] = metadata();
        let bytes =
            serde_json::to_vec_pretty(&doc).map_err(|e| Failure::Input(format!("JSON: {e}")))?;
        files.add(path, &bytes, Secrecy::Public)?;
    }
    files.commit()?;
    let times = (signing, progress.seconds() - signing);
    summary(
        &args,
        &report,
        keyring.len(),
        times,
        suite.id(),
        suite.name(),
    )
}

fn summary(
    args: &Args,
    r: &SignReport,
    keys: usize,
    (seconds, writing): (f64, f64),
    suite: u8,
    name: &str,
) -> Outcome {
    say(format_args!(
        "read: {}: {} MRT records, {} announcements, {} withdrawals (not signed){}",
        args.input.display(),
        r.records,
        r.announcements,
        r.withdrawals,
        if r.unreadable_records > 0 {
            format!(
                ", {} records bgpkit-parser could not decode",
                r.unreadable_records
            )
        } else {
            String::new()
        }
    ))?;
    say(format_args!(
        "signed: {} BGPsec UPDATEs ({} IPv4, {} IPv6, {} with prepending), {} signatures, suite {suite} ({name}), in {seconds:.1} s: {:.0} UPDATEs/s",
        r.updates,
        r.ipv4,
        r.ipv6,
        r.prepended,
        r.signatures,
        rate(r.updates, seconds)
    ))?;
    say(format_args!("skipped: {}", r.skipped_total()))?;
    for skip in Skip::ALL {
        if let Some(n) = r.skipped.get(&skip) {
            say(format_args!("  {}: {n} ({})", skip.name(), skip.why()))?;
        }
    }
    say(format_args!(
        "keys: {keys} ASes: {} and {} (0600), written in {writing:.1} s",
        args.keys.join(KEYS_JSON).display(),
        args.keys.join("AS<N>.key").display()
    ))?;
    say(format_args!("wrote: {}", args.output.display()))
}
