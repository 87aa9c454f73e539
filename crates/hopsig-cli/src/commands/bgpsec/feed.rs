//! `hopsig bgpsec feed`: replay an MRT file's UPDATEs into a router under test over a
//! BGP session, with fault injection, and watch what it forwards
//! (`hopsig_bgp::feed`, docs/spec/feed.md).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use hopsig_bgp::feed::faults::{Context, FaultKind, Plan};
use hopsig_bgp::feed::session::SessionConfig;
use hopsig_bgp::feed::source::{self, Selection};
use hopsig_bgp::feed::{self, Options, Pacing};
use hopsig_bgp::{Signer, SigningKey};

use super::{open_mrt, suite_named, Progress};
use crate::io::{at, note, outputs, say, with_metadata, Failure, Outcome, Secrecy};

/// Replay an MRT file's UPDATEs into a router under test, with fault injection.
///
/// Opens a BGP session to PEER (BGPsec with --bgpsec), sends the UPDATEs of the MRT
/// file (typically `sign-mrt` output) as fast as the router takes them, at --rate, or
/// with the trace's timing; --watch sessions receive what the router forwards. Writes
/// the JSON report (docs/spec/feed.md). Exit 0: everything forwarded and every fault
/// as expected; 1: the router did otherwise (the report says where); 2: bad usage,
/// unreadable input, or no session.
#[derive(clap::Args)]
pub struct Args {
    /// The MRT file (BGP4MP UPDATEs; plain, gzip, bzip2, xz or zstd).
    #[arg(long, value_name = "FILE")]
    mrt: PathBuf,
    /// The router under test.
    #[arg(long, value_name = "ADDR:PORT")]
    peer: SocketAddr,
    /// Local address of the feed session (the router tells neighbours apart by it).
    #[arg(long, value_name = "ADDR")]
    local_address: Option<IpAddr>,
    /// The feed's AS.
    #[arg(long, value_name = "N")]
    local_as: u32,
    /// The router's AS.
    #[arg(long, value_name = "N")]
    remote_as: u32,
    /// Negotiate BGPsec and send the signed UPDATEs as they are (else their AS_PATH
    /// equivalent, RFC 8205 §4.4).
    #[arg(long)]
    bgpsec: bool,
    /// Take only the records whose peer is this AS [default: --local-as with --bgpsec
    /// (RFC 8205 §5.2 check 2), every record otherwise].
    #[arg(long, value_name = "N")]
    from_as: Option<u32>,
    /// Next hop to announce [default: --local-address, else the recorded one].
    #[arg(long, value_name = "ADDR")]
    next_hop: Option<IpAddr>,
    /// Send the first N UPDATEs only.
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
    /// A receiving session to the router (repeatable, each with --watch-as and
    /// --watch-address in the same order).
    #[arg(long, value_name = "ADDR:PORT")]
    watch: Vec<SocketAddr>,
    /// The AS of each --watch session.
    #[arg(long, value_name = "N")]
    watch_as: Vec<u32>,
    /// Local address of each --watch session.
    #[arg(long, value_name = "ADDR")]
    watch_address: Vec<IpAddr>,
    /// Ask the watchers for BGPsec too.
    #[arg(long)]
    watch_bgpsec: bool,
    /// UPDATEs per second [default: as fast as the router takes them].
    #[arg(long, value_name = "N", conflicts_with = "timing")]
    rate: Option<f64>,
    /// `trace`: the MRT timestamps' spacing.
    #[arg(long, value_name = "trace", value_parser = ["trace"])]
    timing: Option<String>,
    /// With --timing trace: this many times faster.
    #[arg(long, value_name = "X", default_value_t = 1.0)]
    speedup: f64,
    /// Faults to inject: names, `bgpsec`, `rfc7606` or `all`, comma-separated
    /// (docs/spec/feed.md lists them).
    #[arg(long, value_name = "LIST", default_value = "")]
    faults: String,
    /// Fraction of the UPDATEs that get a fault.
    #[arg(long, value_name = "F", default_value_t = 0.0)]
    fault_rate: f64,
    /// Seed of the fault choice.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// sign-mrt's key folder: the feed AS's key (AS<N>.key) for wrong_target_as.
    #[arg(long, value_name = "DIR")]
    keys: Option<PathBuf>,
    /// Suite of the keys and of expired_key's fresh key.
    #[arg(long, value_name = "ID", default_value = "1")]
    suite: String,
    /// Write expired_key's key here as rpki-client JSON with an `expires` in the past
    /// (for the router's RPKI data).
    #[arg(long, value_name = "FILE")]
    expired_key_json: Option<PathBuf>,
    /// The router's status file (a hopsig speaker's state_file): time until all
    /// validated.
    #[arg(long, value_name = "FILE")]
    status: Option<PathBuf>,
    /// The router's process id: its peak memory (VmHWM) in the report.
    #[arg(long, value_name = "PID")]
    router_pid: Option<u32>,
    /// Hold Time offered (seconds).
    #[arg(long, value_name = "S", default_value_t = 90)]
    hold_time: u16,
    /// Longest wait for the sessions to come up (seconds).
    #[arg(long, value_name = "S", default_value_t = 30)]
    connect_timeout: u64,
    /// Longest wait, after the last UPDATE, for everything forwarded / validated (s).
    #[arg(long, value_name = "S", default_value_t = 120)]
    wait: u64,
    /// Wait after that before the faults are observed (s).
    #[arg(long, value_name = "S", default_value_t = 1.0)]
    settle: f64,
    /// The JSON report.
    #[arg(long, value_name = "REPORT")]
    json: PathBuf,
    /// Replace REPORT if it exists.
    #[arg(long)]
    force: bool,
}

/// Runs the feed.
pub fn run(args: Args) -> Outcome {
    let usage = |m: String| Failure::Input(m);
    if args.watch.len() != args.watch_as.len()
        || (!args.watch_address.is_empty() && args.watch_address.len() != args.watch.len())
    {
        return Err(usage(
            "give one --watch-as (and one --watch-address, if any) per --watch".into(),
        ));
    }
    let kinds = FaultKind::parse_list(&args.faults).map_err(usage)?;
    if !(0.0..=1.0).contains(&args.fault_rate) || args.rate.is_some_and(|r| r <= 0.0) {
        return Err(usage("--fault-rate is 0..1 and --rate above 0".into()));
    }
    let mut files = outputs(args.force, [args.mrt.as_path()]);
    files.check(&args.json)?;
    let suite = suite_named(&args.suite)?;
    let own = match &args.keys {
        Some(dir) => Some(signer_from(dir, args.local_as, suite)?),
        None => None,
    };
    let expired = if kinds.contains(&FaultKind::ExpiredKey) {
        let key = suite
            .generate()
            .map_err(|e| Failure::Input(format!("key: {e}")))?;
        if let Some(path) = &args.expired_key_json {
            std::fs::write(path, expired_json(args.local_as, &key)).map_err(|e| at(path, e))?;
        }
        Some(with_key(args.local_as, suite, key)?)
    } else {
        None
    };
    let ctx = Context {
        remote_as: args.remote_as,
        own: own.as_ref(),
        expired: expired.as_ref(),
    };
    let plan = Plan {
        kinds,
        rate: args.fault_rate,
        seed: args.seed,
    };
    for k in feed::impossible(&plan, &ctx) {
        note(format_args!(
            "feed: fault {} cannot be made here (it needs --keys, or a BGPsec session)",
            k.name()
        ));
    }

    let input = open_mrt(&args.mrt)?;
    let sel = Selection {
        local_as: args.local_as,
        remote_as: args.remote_as,
        bgpsec: args.bgpsec,
        from_as: args.from_as.or(args.bgpsec.then_some(args.local_as)),
        limit: args.limit,
        next_hop: args.next_hop.or(args.local_address),
    };
    let source = source::load(input.reader, &sel).map_err(|e| at(&args.mrt, e))?;
    note(format_args!(
        "feed: {} UPDATEs from {} MRT records{}",
        source.items.len(),
        source.records,
        skipped_text(&source.skipped)
    ));
    if source.items.is_empty() {
        return Err(at(&args.mrt, "no UPDATE to send (see the skipped counts)"));
    }

    let session = |peer, local, local_as, bgpsec| SessionConfig {
        peer,
        local,
        local_as,
        remote_as: args.remote_as,
        router_id: router_id(local_as),
        hold_time: args.hold_time,
        bgpsec,
        connect_timeout: Duration::from_secs(args.connect_timeout),
    };
    let opts = Options {
        feed: session(args.peer, args.local_address, args.local_as, args.bgpsec),
        watchers: args
            .watch
            .iter()
            .enumerate()
            .map(|(i, w)| {
                session(
                    *w,
                    args.watch_address.get(i).copied(),
                    args.watch_as[i],
                    args.watch_bgpsec,
                )
            })
            .collect(),
        pacing: match (args.rate, &args.timing) {
            (Some(r), _) => Pacing::Rate(r),
            (None, Some(_)) => Pacing::Trace(args.speedup.max(1e-6)),
            (None, None) => Pacing::Fast,
        },
        plan,
        status: args.status.clone(),
        router_pid: args.router_pid,
        wait: Duration::from_secs(args.wait),
        settle: Duration::from_secs_f64(args.settle.max(0.0)),
    };
    let rt = crate::commands::rtr::runtime()?;
    let mut progress = Progress::steps("feed");
    let mut show = |p: &feed::Progress| {
        progress.tick(|| {
            let pending = p
                .pending
                .map_or(String::new(), |n| format!(", {n} not forwarded yet"));
            format!("{} of {} UPDATEs sent{pending}", p.sent, p.total)
        })
    };
    let mut report = rt
        .block_on(feed::run(&opts, &source, &ctx, &mut show))
        .map_err(|e| Failure::Input(e.to_string()))?;
    report.mrt.path = args.mrt.display().to_string();
    let json = serde_json::to_value(&report).map_err(|e| Failure::Input(format!("JSON: {e}")))?;
    let bytes = serde_json::to_vec_pretty(&with_metadata(json))
        .map_err(|e| Failure::Input(format!("JSON: {e}")))?;
    files.add(&args.json, &bytes, Secrecy::Public)?;
    files.commit()?;

    let s = &report.sent;
    say(format_args!(
        "sent: {} UPDATEs ({} signed, {} octets) in {:.2} s: {:.0} UPDATEs/s",
        s.messages, s.signed, s.bytes, s.seconds, s.messages_per_second
    ))?;
    for w in &report.watchers {
        say(format_args!(
            "watch {}: {} of {} expected prefixes seen{}",
            w.peer,
            s.expected_forwarded - w.missing,
            s.expected_forwarded,
            w.all_forwarded_s
                .map_or(String::new(), |t| format!(", all forwarded after {t:.2} s"))
        ))?;
    }
    if let Some(v) = report.status.as_ref().and_then(|s| s.all_validated_s) {
        say(format_args!("status: all validated after {v:.2} s"))?;
    }
    if !report.faults.injected.is_empty() {
        say(format_args!(
            "faults: {} injected, {} not as expected",
            report.faults.injected.len(),
            report.faults.injected.iter().filter(|i| i.mismatch).count()
        ))?;
    }
    if let Some(why) = &report.session_ended {
        say(format_args!("session ended: {why}"))?;
    }
    say(format_args!("wrote: {}", args.json.display()))?;
    if report.mismatches > 0 {
        return Err(Failure::Invalid(format!(
            "the router did not do what was expected {} times (see {})",
            report.mismatches,
            args.json.display()
        )));
    }
    Ok(())
}

/// A BGP Identifier from an AS number (192.0.2.0/24 is documentation space; only
/// distinctness from the router's matters).
fn router_id(asn: u32) -> Ipv4Addr {
    Ipv4Addr::new(192, 0, 2, (asn % 250 + 1) as u8)
}

fn skipped_text(skipped: &std::collections::BTreeMap<&'static str, u64>) -> String {
    if skipped.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = skipped.iter().map(|(k, v)| format!("{k} {v}")).collect();
    format!("; skipped: {}", parts.join(", "))
}

/// AS `asn`'s signer from its secret key file in sign-mrt's folder `dir`.
fn signer_from(
    dir: &std::path::Path,
    asn: u32,
    suite: &'static dyn hopsig_bgp::AlgorithmSuite,
) -> Result<Signer<'static>, Failure> {
    let key = hopsig_bgp::trace::keys_folder::read_key(dir, asn, suite)
        .map_err(|e| Failure::Input(e.to_string()))?;
    with_key(asn, suite, key)
}

fn with_key(
    asn: u32,
    suite: &'static dyn hopsig_bgp::AlgorithmSuite,
    key: SigningKey,
) -> Result<Signer<'static>, Failure> {
    Signer::new(asn)
        .with_key(suite, key)
        .map_err(|e| Failure::Input(format!("key of AS{asn}: {e}")))
}

/// rpki-client JSON of `key` for `asn`, expired an hour before the Unix epoch's now.
fn expired_json(asn: u32, key: &SigningKey) -> String {
    let entry = hopsig_bgp::RouterKey::new(asn, *key.ski(), key.spki());
    let text = hopsig_bgp::router_key::rpki_json::to_rpki_json(&[entry]);
    let past = hopsig_bgp::router_key::unix_now() - 3600;
    // to_rpki_json writes a far-future `expires`; this key's is in the past.
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(mut v) => {
            if let Some(keys) = v["bgpsec_keys"].as_array_mut() {
                for k in keys {
                    k["expires"] = past.into();
                }
            }
            v.to_string()
        }
        Err(_) => text,
    }
}
