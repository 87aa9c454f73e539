//! `hopsig bgpsec validate-mrt FILE --keys JSON`: every UPDATE of an MRT file
//! validated (RFC 8205 §5.2) on every core (`hopsig_bgp::trace::validate`); with
//! `--rpki` files or `--rtr` caches also route origin validation and ASPA
//! verification per announcement (docs/spec/rpki.md, "Speaker").

use std::num::NonZeroUsize;
use std::path::PathBuf;

use hopsig_bgp::cache::{parse_size, CacheStats, SignatureCache};
use hopsig_bgp::rpki::aspa::Relation;
use hopsig_bgp::rpki::load::{load_view, LoadViewError};
use hopsig_bgp::rpki::view::View;
use hopsig_bgp::trace::validate::Outcome as Verdict;
use hopsig_bgp::trace::{
    validate_mrt_cached, validate_mrt_rpki_cached, EachRecord, ValidateReport, ValidateRun,
};

use super::{open_mrt, rate, threads};
use crate::io::{at, metadata, note, outputs, say, say_json_line, Failure, Outcome, Secrecy};

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
///
/// With --json-lines, standard output is JSON lines instead of the summary
/// (docs/spec/json.md): one object per UPDATE validated, in record order, then a
/// trailer with the `metadata` block and the summary of --json.
#[derive(clap::Args)]
pub struct Args {
    /// The MRT file (from `hopsig bgpsec sign-mrt`, or any BGP4MP file).
    file: PathBuf,
    /// The router keys: rpki-client's JSON (`bgpsec_keys`: asn, ski, pubkey), or a
    /// folder of router certificates and AS<N>.pem public keys.
    #[arg(long, value_name = "JSON|DIR", required_unless_present_any = ["rpki", "rtr"])]
    keys: Option<PathBuf>,
    /// RPKI files beside --keys: rpki-client JSON (roas, bgpsec_keys, aspas),
    /// Routinator jsonext, SLURM, key folders; repeatable. Adds the ROV and ASPA
    /// verdicts.
    #[arg(long, value_name = "FILE")]
    rpki: Vec<PathBuf>,
    /// An RPKI cache to take VRPs, router keys and ASPAs from over RTR (one Reset
    /// Query); repeatable, merged with the files. Adds the ROV and ASPA verdicts.
    #[arg(long, value_name = "HOST:PORT")]
    rtr: Vec<String>,
    /// The role of the collector's peers for ASPA verification: customer, peer,
    /// provider, rs, rs-client.
    #[arg(long, default_value = "peer")]
    role: String,
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
    /// Print one JSON line per UPDATE (record, verdict, reason) and a trailer line
    /// with the metadata and the summary, instead of the text summary.
    #[arg(long)]
    json_lines: bool,
    /// Bytes of the signature cache the threads share: a signature already verified
    /// (same key, signature and signed octets) is not verified again; 0 turns it off
    /// (docs/spec/bgpsec-mrt.md, "Signature cache").
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = cache_size)]
    signature_cache: usize,
}

/// `--signature-cache`: a size such as `64MiB`, or 0.
fn cache_size(text: &str) -> Result<usize, String> {
    parse_size(text)
}

/// Validates, prints the summary, and fails with exit status 1 if any UPDATE is not
/// valid.
pub fn run(args: Args) -> Outcome {
    let inputs: Vec<&std::path::Path> = std::iter::once(args.file.as_path())
        .chain(args.keys.as_deref())
        .chain(args.rpki.iter().map(PathBuf::as_path))
        .collect();
    let mut files = outputs(args.force, inputs);
    if let Some(path) = &args.json {
        files.check(path)?;
    }
    let rpki_mode = !args.rpki.is_empty() || !args.rtr.is_empty();
    let (keys, view) = if rpki_mode {
        let role: Relation = args.role.parse().map_err(|_| {
            Failure::Input(format!(
                "--role takes customer, peer, provider, rs or rs-client, not '{}'",
                args.role
            ))
        })?;
        let view = rpki_view(args.keys.as_deref(), &args.rpki, &args.rtr, args.at)?;
        (None, Some((view, role)))
    } else {
        let path = args.keys.as_deref().unwrap_or(std::path::Path::new("."));
        let loaded = super::keys::load(path, args.at)?;
        note(super::keys::summary(path, &loaded));
        (Some(loaded.keys), None)
    };
    let input = open_mrt(&args.file)?;
    let threads = threads(args.threads);
    let cache = SignatureCache::new(args.signature_cache);
    let mut progress = input.progress("validate-mrt");
    let mut tick = |done| {
        if done > 0 {
            progress.tick(|| format!("{done} records validated"));
        }
    };
    // --json-lines: each UPDATE's line as its batch comes back; the first failure to
    // write stops the printing and is reported after the run.
    if args.json_lines {
        crate::io::stdout_is_json_lines();
    }
    let mut printed: Outcome = Ok(());
    let mut each = |record: u64, verdict: &Verdict| {
        if printed.is_ok() {
            if let Some(line) = verdict.to_json(record) {
                printed = say_json_line(&line);
            }
        }
    };
    // Outcomes are kept and handed out only for --json-lines.
    let each: Option<EachRecord<'_>> = if args.json_lines {
        Some(&mut each)
    } else {
        None
    };
    let report = match (&keys, &view) {
        (_, Some((view, role))) => {
            validate_mrt_rpki_cached(input.reader, view, *role, &cache, threads, &mut tick, each)
        }
        (Some(keys), None) => {
            validate_mrt_cached(input.reader, keys, &cache, threads, &mut tick, each)
        }
        (None, None) => validate_mrt_cached(
            input.reader,
            &hopsig_bgp::RouterKeys::new(),
            &cache,
            threads,
            &mut tick,
            each,
        ),
    }
    .map_err(|e| at(&args.file, e))?;
    printed?;
    let keys = match (&keys, &view) {
        (Some(k), _) => k.len(),
        (None, Some((v, _))) => v.router_keys().len(),
        (None, None) => 0,
    };
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
    let cached = cache.stats();
    let mut json = report.to_json(&ValidateRun {
        file: &args.file,
        keys: args.keys.as_deref(),
        router_keys: keys,
        threads,
        seconds,
        cache: &cached,
    });
    if let Some((view, role)) = &view {
        report.add_rpki_json(&mut json, view, *role);
    }
    if args.json_lines {
        say_json_line(&serde_json::json!({"metadata": metadata(), "summary": &json}))?;
    } else {
        summary(&args, &report, keys, threads, seconds)?;
        cache_summary(&cached)?;
        if view.is_some() {
            cross_summary(&report)?;
        }
    }
    if let Some(path) = &args.json {
        json["metadata"] = metadata();
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
        "validated: {}: {} UPDATEs of {} MRT records, {keys} router keys, {threads} threads, {seconds:.2} s: {:.0} UPDATEs/s, {:.0} signatures/s, backend {}",
        args.file.display(),
        r.updates,
        r.records,
        rate(r.updates, seconds),
        rate(r.signatures, seconds),
        r.backend,
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

/// The signature cache's line: signatures checked, how many verified (the others
/// found in the cache), and the cache's state.
fn cache_summary(c: &CacheStats) -> Outcome {
    let share = |n: u64| {
        if c.lookups == 0 {
            0.0
        } else {
            100.0 * n as f64 / c.lookups as f64
        }
    };
    if c.budget == 0 {
        return say(format_args!(
            "signature cache: off: {} signatures checked, {} verified",
            c.lookups,
            c.verified()
        ));
    }
    let budget = if c.budget.is_multiple_of(1 << 20) {
        format!("{} MiB", c.budget >> 20)
    } else {
        format!("{} bytes", c.budget)
    };
    say(format_args!(
        "signature cache: {budget}: {} signatures checked, {} verified, {} hits ({:.1} %); {} entries, {} bytes, {} evictions",
        c.lookups,
        c.verified(),
        c.hits,
        share(c.hits),
        c.entries,
        c.bytes,
        c.evictions
    ))
}

/// The view of `keys` and `rpki` files (read as of `at`, default now) and one RTR
/// dump of each `rtr` cache (HOST:PORT), merged as docs/spec/rpki.md, "Merge rules",
/// says (`validate-mrt`, `replay`): [`load_view`], its errors naming the option.
pub(crate) fn rpki_view(
    keys: Option<&std::path::Path>,
    rpki: &[PathBuf],
    rtr: &[String],
    at: Option<i64>,
) -> Result<View, Failure> {
    load_view(keys, rpki, rtr, at).map_err(|e| {
        Failure::Input(match e {
            LoadViewError::Address(_) | LoadViewError::Caches(_) => format!("--rtr: {e}"),
            LoadViewError::Rtr { .. } => format!("--rtr {e}"),
            other => other.to_string(),
        })
    })
}

/// The announcements' ROV and ASPA verdict counts and the BGPsec × ROV × ASPA cross
/// table, after the BGPsec lines.
fn cross_summary(r: &ValidateReport) -> Outcome {
    let total: u64 = r.cross.values().sum();
    let by = |pick: fn(&(&'static str, &'static str, &'static str)) -> &'static str| {
        let mut m = std::collections::BTreeMap::<&str, u64>::new();
        for (k, n) in &r.cross {
            *m.entry(pick(k)).or_default() += n;
        }
        m.iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    say(format_args!("announcements: {total} (prefixes announced)"))?;
    say(format_args!("rov: {}", by(|k| k.1)))?;
    say(format_args!("aspa: {}", by(|k| k.2)))?;
    say("cross (bgpsec, rov, aspa): count")?;
    for ((b, o, a), n) in &r.cross {
        say(format_args!("  {b}, {o}, {a}: {n}"))?;
    }
    Ok(())
}
