//! `hopsig replay`: KC-x Tables IV–VI and Fig. 5 from a real MRT trace, by
//! [`hopsig_bench::replay`].

use std::path::PathBuf;
use std::sync::LazyLock;

use hopsig_bench::replay::hop::check_scheme;
use hopsig_bench::replay::queue::Mode;
use hopsig_bench::replay::run::{self, PeerChoice, Request};
use hopsig_bench::replay::{paper_tables, SLAMMER, SOURCE};

use crate::io::{at, outputs, print_text, say, Failure, Outcome, Secrecy};

/// Replay one peer of an MRT trace through a router for each scheme: each announcement
/// validated and signed for real, the measured times queued at the trace's arrival
/// times (KC-x §V-A-3). Prints Tables IV and V beside the paper's; writes Fig. 5.
#[derive(clap::Args)]
pub struct Args {
    /// MRT file (RIS update file, or a RIB dump: a session reset, all at once).
    mrt: PathBuf,
    /// Comma-separated schemes.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = SCHEME_NAMES.as_str(),
        help = format!("Comma-separated schemes: {}", SCHEME_NAMES.replace(',', ", "))
    )]
    schemes: Vec<String>,
    /// The peer: its AS number, `median` (the peer with the median announcement
    /// rate) or `busiest` (the most announcements; in a RIB dump, the largest table).
    #[arg(long, default_value = "median")]
    peer: String,
    /// Mode drawn in Fig. 5 (both are simulated from the same measurements).
    #[arg(long, value_enum, default_value = "lazy")]
    mode: Mode,
    /// Servers of the queue (router threads).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Divide the trace's arrival times by this (> 0).
    #[arg(long, default_value_t = 1.0)]
    speedup: f64,
    /// Replay only the peer's first N announcements.
    #[arg(long)]
    limit: Option<usize>,
    /// BGPsec routers validate N consecutive announcements in one cross-UPDATE batch,
    /// each charged its share of the batch's time (the cost when N UPDATEs wait; a
    /// session reset). 1: each validated alone, on arrival.
    #[arg(long, default_value_t = 1)]
    batch: usize,
    /// RIB dump for Table VI (signature memory); not printed without it.
    #[arg(long)]
    rib: Option<PathBuf>,
    /// Write the results as JSON (docs/spec/replay.md).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Folder for Fig. 5's SVG panels (one per scheme).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Overwrite earlier output files.
    #[arg(long)]
    force: bool,
    /// An RPKI cache whose router keys join the validating router's key table
    /// (HOST:PORT, one Reset Query; repeatable); the replayed paths are signed with
    /// generated keys, which stay in the table.
    #[arg(long, value_name = "HOST:PORT")]
    rtr: Vec<String>,
}

/// The replay's schemes ([`hopsig_bench::replay::hop::SCHEMES`]), comma-separated.
static SCHEME_NAMES: LazyLock<String> = LazyLock::new(|| {
    hopsig_bench::replay::hop::SCHEMES
        .iter()
        .map(|s| s.name)
        .collect::<Vec<_>>()
        .join(",")
});

/// Reads, replays, prints and writes.
pub fn run(args: Args) -> Outcome {
    if !(args.speedup.is_finite() && args.speedup > 0.0) {
        return Err(Failure::Input(format!(
            "--speedup must be a positive number, not {}",
            args.speedup
        )));
    }
    if args.threads == 0 || args.limit == Some(0) || args.batch == 0 {
        return Err(Failure::Input(
            "--threads, --limit and --batch must be at least 1".into(),
        ));
    }
    let names = args
        .schemes
        .iter()
        .map(|s| check_scheme(s.trim()).map(|e| e.name))
        .collect::<Result<Vec<_>, _>>()?;
    let mut files = outputs(args.force, [args.mrt.as_path()]);
    if let Some(dir) = &args.out {
        files.folder(dir)?;
    }
    if let Some(json) = &args.json {
        files.check(json)?;
    }
    let peer: PeerChoice = args.peer.parse().map_err(|()| {
        Failure::Input(format!(
            "--peer takes an AS number, `median` or `busiest`, not '{}'",
            args.peer
        ))
    })?;
    let cached = if args.rtr.is_empty() {
        None
    } else {
        let view = crate::commands::bgpsec::validate_mrt::rpki_view(None, &[], &args.rtr, None)?;
        Some(view.router_keys().clone())
    };
    let run = run::run(&Request {
        mrt: &args.mrt,
        schemes: &names,
        peer,
        mode: args.mode,
        threads: args.threads,
        speedup: args.speedup,
        limit: args.limit,
        rib: args.rib.as_deref(),
        router_keys: cached.as_ref(),
        batch: args.batch,
    })?;
    let (result, memory) = (&run.replay, &run.memory);
    let mut text = format!(
        "Paper: {SOURCE}.\n{}\n{SLAMMER}\n\n{}",
        paper_tables(),
        result.render()
    );
    if let Some(m) = &memory {
        text += "\n";
        text += &m.render();
    }
    print_text(&text)?;
    if let Some(dir) = &args.out {
        for (name, svg) in result.figures() {
            files.add(&dir.join(name), svg.as_bytes(), Secrecy::Public)?;
        }
    }
    if let Some(json) = &args.json {
        let bytes = serde_json::to_vec_pretty(&run.to_json()).map_err(|e| at(json, e))?;
        files.add(json, &bytes, Secrecy::Public)?;
    }
    files.commit()?;
    if args.out.is_some() || args.json.is_some() {
        say("wrote the Fig. 5 panels and JSON requested")?;
    }
    Ok(())
}
