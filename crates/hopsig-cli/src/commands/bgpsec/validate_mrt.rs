//! `hopsig bgpsec validate-mrt FILE --keys JSON`: every UPDATE of an MRT file
//! validated (RFC 8205 §5.2) on every core (`hopsig_bgp::trace::validate`).

use std::num::NonZeroUsize;
use std::path::PathBuf;

use hopsig_bgp::trace::{validate_mrt, ValidateReport};

use super::{open_mrt, rate, threads};
use crate::io::{at, note, outputs, say, Failure, Outcome, Secrecy};

/// Validate every BGPsec UPDATE of an MRT file, on every core.
///
/// FILE is plain MRT or compressed (gzip, bzip2, xz, zstd). Each UPDATE is validated
/// as the collector of its record would (RFC 8205 §5.2; the record's peer AS for
/// check 2, its local AS as the target
/// of the newest signature), with the router keys of an rpki-client JSON file or a
/// keys folder (as `hopsig bgpsec keys` reads them). An
/// UPDATE that announces a route is 'Valid' or not, and why; other records are
/// counted as skipped. Exit status: 0 if every UPDATE is valid, 1 if any is not, 2 for
/// bad usage or input (no UPDATE at all included).
#[derive(clap::Args)]
pub struct Args {
    /// The MRT file (from `hopsig bgpsec sign-mrt`, or any BGP4MP file).
    file: PathBuf,
    /// The router keys: rpki-client's JSON (`bgpsec_keys`: asn, ski, pubkey), or a
    /// folder of router certificates and AS<N>.pem public keys.
    #[arg(long, value_name = "JSON|DIR")]
    keys: PathBuf,
    /// Use the keys valid at this time, in Unix seconds [default: now].
    #[arg(long, value_name = "UNIX")]
    at: Option<i64>,
    /// Validating threads [default: every core].
    #[arg(long, value_name = "N")]
    threads: Option<NonZeroUsize>,
    /// Also write the summary as JSON to OUT (checked before the run).
    #[arg(long, value_name = "OUT")]
    json: Option<PathBuf>,
    /// Replace the JSON file if it exists.
    #[arg(long)]
    force: bool,
}

/// Validates, prints the summary, and fails with exit status 1 if any UPDATE is not
/// valid.
pub fn run(args: Args) -> Outcome {
    let mut files = outputs(args.force, [args.file.as_path(), args.keys.as_path()]);
    if let Some(path) = &args.json {
        files.check(path)?;
    }
    let loaded = super::keys::load(&args.keys, args.at)?;
    note(super::keys::summary(&args.keys, &loaded));
    let keys = loaded.keys;
    let input = open_mrt(&args.file)?;
    let threads = threads(args.threads);
    let mut progress = input.progress("validate-mrt");
    let report = validate_mrt(input.reader, &keys, threads, &mut |done| {
        if done > 0 {
            progress.tick(|| format!("{done} records validated"));
        }
    })
    .map_err(|e| at(&args.file, e))?;
    let seconds = progress.seconds();
    if report.updates == 0 {
        return Err(at(
            &args.file,
            format!(
                "no UPDATE announcing a route in {} MRT records",
                report.records
            ),
        ));
    }
    summary(&args, &report, keys.len(), threads, seconds)?;
    if let Some(path) = &args.json {
        let json = to_json(&args, &report, keys.len(), threads, seconds);
        let bytes =
            serde_json::to_vec_pretty(&json).map_err(|e| Failure::Input(format!("JSON: {e}")))?;
        files.add(path, &bytes, Secrecy::Public)?;
        files.commit()?;
    }
    let bad = report.not_valid_total();
    if bad > 0 {
        return Err(Failure::Invalid(format!(
            "{}: {bad} of {} UPDATEs are not valid",
            args.file.display(),
            report.updates
        )));
    }
    Ok(())
}

fn summary(args: &Args, r: &ValidateReport, keys: usize, threads: usize, seconds: f64) -> Outcome {
    say(format_args!(
        "validated: {}: {} UPDATEs of {} MRT records, {keys} router keys, {threads} threads, {seconds:.2} s: {:.0} UPDATEs/s, {:.0} signatures/s",
        args.file.display(),
        r.updates,
        r.records,
        rate(r.updates, seconds),
        rate(r.signatures, seconds),
    ))?;
    say(format_args!(
        "valid: {} ({} signatures)",
        r.valid, r.signatures
    ))?;
    say(format_args!("not valid: {}", r.not_valid_total()))?;
    for (reason, n) in &r.not_valid {
        say(format_args!("  {reason}: {n}"))?;
    }
    let skipped: u64 = r.skipped.values().sum();
    if skipped > 0 {
        let kinds: Vec<String> = r.skipped.iter().map(|(k, n)| format!("{k} {n}")).collect();
        say(format_args!("skipped: {skipped} ({})", kinds.join(", ")))?;
    }
    for f in &r.first_failures {
        say(format_args!(
            "  record {}: {}: {}",
            f.record, f.reason, f.detail
        ))?;
    }
    Ok(())
}

fn to_json(
    args: &Args,
    r: &ValidateReport,
    keys: usize,
    threads: usize,
    seconds: f64,
) -> serde_json::Value {
    serde_json::json!({
        "file": args.file.display().to_string(),
        "keys": args.keys.display().to_string(),
        "router_keys": keys,
        "threads": threads,
        "seconds": seconds,
        "records": r.records,
        "updates": r.updates,
        "valid": r.valid,
        "not_valid": r.not_valid_total(),
        "not_valid_by_reason": r.not_valid,
        "skipped": r.skipped,
        "signatures": r.signatures,
        "updates_per_second": rate(r.updates, seconds),
        "signatures_per_second": rate(r.signatures, seconds),
        "first_failures": r.first_failures.iter().map(|f| serde_json::json!({
            "record": f.record, "reason": f.reason, "detail": f.detail,
        })).collect::<Vec<_>>(),
    })
}
