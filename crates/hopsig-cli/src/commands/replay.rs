//! `hopsig replay MRT`: a real trace through a router that validates and signs under
//! each scheme (`hopsig_bgp::replay`), printed beside the KC-x paper's Tables IV–VI
//! (001 §V-A-3, §V-B), with Fig. 5 as SVG panels.

use std::fmt::Write as _;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Instant;

use hopsig_bgp::replay::{
    self, read_peers, KcParams, MemoryRow, Mode, PeerTrace, Peers, Scheme, SchemeRun, TraceStats,
    Work, Workload,
};
use serde::Serialize;

use crate::io::{at, note, outputs, print_text, say, Failure, Outcome, Secrecy};
use crate::reproduce::svg::{line_chart, Series};

/// The paper's Table IV, V and VI figures (001 §V), for the side-by-side tables.
pub(crate) const SOURCE: &str =
    "001 §V-A-3, §V-B, Tables IV–VI, Fig. 5 (routeviews traces of 2005 and 2003, 2008 hardware)";

/// Replay a real BGP trace through a router that validates and signs (KC-x Tables IV–VI, Fig. 5).
///
/// MRT is a RIS / RouteViews update file or RIB dump (plain or gzip). The workload takes one
/// peer's announcements: `normal` the peer with the median rate (or --peer), `reset` the
/// peer with the most routes all at once (a session reset; on a RIB dump also Table VI),
/// `busiest` the peer with the most announcements at --speedup times its pace. Each
/// announcement's validation and signing run for real, timed, once per scheme; a queue of
/// --threads cores turns the times into delays. docs/spec/replay.md.
#[derive(clap::Args)]
pub struct Args {
    /// The MRT file.
    #[arg(value_name = "MRT")]
    file: PathBuf,
    /// normal, reset or busiest.
    #[arg(long, default_value = "normal")]
    workload: String,
    /// Comma-separated: none, bgpsec-ecdsa, bgr, kc-rsa, kc-mt, hybrid.
    #[arg(long, default_value = "none,bgpsec-ecdsa,bgr,kc-rsa,kc-mt,hybrid")]
    schemes: String,
    /// Replay this peer AS instead of the workload's choice.
    #[arg(long, value_name = "ASN")]
    peer: Option<u32>,
    /// strict (validate, then sign and forward) or lazy (sign and forward, validate after).
    #[arg(long, default_value = "strict")]
    mode: String,
    /// KC-x parameters: modern (RSA-2048, HORS (4096, 16)) or paper (RSA-1024, HORS (512, 3)).
    #[arg(long, default_value = "modern")]
    kc: String,
    /// Cores of the modelled router.
    #[arg(long, value_name = "N", default_value_t = 1)]
    threads: usize,
    /// How much faster than recorded the busiest workload runs.
    #[arg(long, value_name = "X", default_value_t = 10.0)]
    speedup: f64,
    /// Read only the first N announcements of the file.
    #[arg(long, value_name = "N")]
    limit: Option<u64>,
    /// Also write the results as JSON to FILE (checked before the run).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write Fig. 5's panels (fig5-WORKLOAD-SCHEME.svg) into DIR.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Replace output files that exist.
    #[arg(long)]
    force: bool,
}

/// One workload replayed: what `--json` writes (docs/spec/replay.md).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Replayed {
    pub file: String,
    pub workload: &'static str,
    pub speedup: Option<f64>,
    pub peer_as: u32,
    pub peer_ip: String,
    pub mode: Mode,
    pub kc: &'static str,
    pub threads: usize,
    pub table4: TraceStats,
    pub runs: Vec<SchemeRun>,
    pub table6: Option<Table6>,
}

/// Table VI: the largest RIBs of a RIB dump and the projection.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Table6 {
    pub rows: Vec<MemoryRow>,
    pub projected: MemoryRow,
}

/// Today's table for the projection: 1.04 M routes of 4.8 signatures (issue 13).
const PROJECTION: (f64, f64) = (1.04e6, 4.8);

/// `--kc`: the KC-x parameter set, by name.
pub(crate) fn kc_named(name: &str) -> Result<KcParams, Failure> {
    match name {
        "modern" => Ok(KcParams::MODERN),
        "paper" => Ok(KcParams::PAPER),
        other => Err(Failure::Input(format!(
            "unknown KC-x parameter set '{other}' (available: modern, paper)"
        ))),
    }
}

fn workload_named(name: &str, speedup: f64) -> Result<Workload, Failure> {
    match name {
        "normal" => Ok(Workload::Normal),
        "reset" => Ok(Workload::Reset),
        "busiest" if speedup.is_finite() && speedup >= 1.0 => Ok(Workload::Busiest { speedup }),
        "busiest" => Err(Failure::Input(format!(
            "--speedup {speedup}: must be a number of at least 1"
        ))),
        other => Err(Failure::Input(format!(
            "unknown workload '{other}' (available: normal, reset, busiest)"
        ))),
    }
}

fn workload_name(w: Workload) -> &'static str {
    match w {
        Workload::Normal => "normal",
        Workload::Reset => "reset",
        Workload::Busiest { .. } => "busiest",
    }
}

pub(crate) fn schemes_named(list: &str) -> Result<Vec<Scheme>, Failure> {
    let mut out = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let s = Scheme::by_name(name).ok_or_else(|| {
            let known: Vec<&str> = Scheme::ALL.iter().map(|s| s.name()).collect();
            Failure::Input(format!(
                "unknown scheme '{name}' (available: {})",
                known.join(", ")
            ))
        })?;
        if !out.contains(&s) {
            out.push(s);
        }
    }
    if out.is_empty() {
        return Err(Failure::Input("--schemes names no scheme".into()));
    }
    Ok(out)
}

/// Reads the peers of `path`, with a progress note.
pub(crate) fn peers_of(path: &Path, limit: Option<u64>) -> Result<Peers, Failure> {
    note(format_args!("replay: reading {} ...", path.display()));
    let file = File::open(path).map_err(|e| at(path, format!("cannot read MRT file: {e}")))?;
    if !file.metadata().map(|m| m.is_file()).unwrap_or(false) {
        return Err(at(path, "MRT file is not a regular file"));
    }
    read_peers(file, limit).map_err(|e| at(path, e))
}

/// How one workload is replayed.
pub(crate) struct Setup<'a> {
    pub workload: Workload,
    pub peer: Option<u32>,
    pub schemes: &'a [Scheme],
    pub mode: Mode,
    pub kc: &'static str,
    pub threads: usize,
    /// Replay at most this many of the chosen peer's announcements.
    pub cap: Option<usize>,
}

/// Replays one workload of `peers`.
pub(crate) fn replay_workload(
    file: &Path,
    peers: &Peers,
    setup: &Setup<'_>,
) -> Result<Replayed, Failure> {
    let Setup {
        workload,
        peer,
        schemes,
        mode,
        kc,
        threads,
        cap,
    } = *setup;
    let kc_params = kc_named(kc)?;
    let mut trace: PeerTrace = workload.select(peers, peer).map_err(|e| at(file, e))?;
    if let Some(n) = cap {
        trace.arrivals.truncate(n);
    }
    let name = workload_name(workload);
    note(format_args!(
        "replay: {name} workload: AS{} ({}), {} announcements",
        trace.peer_as,
        trace.peer_ip,
        trace.arrivals.len()
    ));
    let started = Instant::now();
    let mut last = Instant::now();
    let mut progress = |s: Scheme, done: usize| {
        if done == 0 || last.elapsed().as_secs_f64() >= 2.0 {
            last = Instant::now();
            note(format_args!(
                "replay: {name}: {} {done}/{} announcements ({:.0} s)",
                s.name(),
                trace.arrivals.len(),
                started.elapsed().as_secs_f64()
            ));
        }
    };
    let runs = replay::replay(
        &trace,
        schemes,
        threads.max(1),
        mode,
        kc_params,
        &mut progress,
    )
    .map_err(|e| Failure::Input(format!("replay failed: {e}")))?;
    let table6 = if workload == Workload::Reset {
        Some(table6(peers, schemes, kc_params)?)
    } else {
        None
    };
    Ok(Replayed {
        file: file.display().to_string(),
        workload: name,
        speedup: match workload {
            Workload::Busiest { speedup } => Some(speedup),
            _ => None,
        },
        peer_as: trace.peer_as,
        peer_ip: trace.peer_ip.to_string(),
        mode,
        kc,
        threads: threads.max(1),
        table4: replay::workload::stats(&trace),
        runs,
        table6,
    })
}

/// Table VI over the three largest RIBs of `peers`.
fn table6(peers: &Peers, schemes: &[Scheme], kc: KcParams) -> Result<Table6, Failure> {
    let work: Vec<Work> = schemes
        .iter()
        .filter(|s| **s != Scheme::None)
        .map(|&s| Work::new(s, replay::MAX_HOPS, kc))
        .collect::<Result<_, _>>()
        .map_err(|e| Failure::Input(format!("replay failed: {e}")))?;
    let (rows, projected) = replay::memory(peers, &work, 3, PROJECTION)
        .map_err(|e| Failure::Input(format!("replay failed: {e}")))?;
    Ok(Table6 { rows, projected })
}

/// Runs the command.
pub fn run(args: Args) -> Outcome {
    let workload = workload_named(&args.workload, args.speedup)?;
    let schemes = schemes_named(&args.schemes)?;
    let mode = match args.mode.as_str() {
        "strict" => Mode::Strict,
        "lazy" => Mode::Lazy,
        other => {
            return Err(Failure::Input(format!(
                "unknown mode '{other}' (available: strict, lazy)"
            )))
        }
    };
    let kc: &'static str = match args.kc.as_str() {
        "paper" => "paper",
        _ => "modern",
    };
    kc_named(&args.kc)?;
    if args.threads == 0 {
        return Err(Failure::Input("--threads 0: at least one core".into()));
    }
    let mut files = outputs(args.force, [args.file.as_path()]);
    if let Some(p) = &args.json {
        files.check(p)?;
    }
    if let Some(dir) = &args.out {
        files.folder(dir)?;
        for s in &schemes {
            files.check(&fig5_path(dir, workload_name(workload), *s))?;
        }
    }
    let peers = peers_of(&args.file, args.limit)?;
    let r = replay_workload(
        &args.file,
        &peers,
        &Setup {
            workload,
            peer: args.peer,
            schemes: &schemes,
            mode,
            kc,
            threads: args.threads,
            cap: None,
        },
    )?;
    print_text(&render(&r, &peers))?;
    if let Some(p) = &args.json {
        files.add(p, &crate::bench::to_json(&r)?, Secrecy::Public)?;
    }
    if let Some(dir) = &args.out {
        for (s, svg) in fig5(&r) {
            files.add(
                &fig5_path(dir, r.workload, s),
                svg.as_bytes(),
                Secrecy::Public,
            )?;
        }
    }
    files.commit()?;
    if let Some(dir) = &args.out {
        say(format_args!(
            "wrote Fig. 5 panels to {}/fig5-{}-SCHEME.svg",
            dir.display(),
            r.workload
        ))?;
    }
    Ok(())
}

pub(crate) fn fig5_path(dir: &Path, workload: &str, s: Scheme) -> PathBuf {
    dir.join(format!("fig5-{workload}-{}.svg", s.name()))
}

/// Fig. 5's panels: per scheme, outgoing UPDATEs per second beside the arrivals.
pub(crate) fn fig5(r: &Replayed) -> Vec<(Scheme, String)> {
    let arrivals = r
        .runs
        .iter()
        .find(|x| x.scheme == Scheme::None)
        .map(|x| x.outgoing_per_second.clone());
    r.runs
        .iter()
        .map(|run| {
            let mut series = vec![Series {
                name: format!("{} out", run.scheme.name()),
                points: points(&run.outgoing_per_second),
            }];
            if let Some(a) = arrivals.as_ref().filter(|_| run.scheme != Scheme::None) {
                series.push(Series {
                    name: "arrivals".into(),
                    points: points(a),
                });
            }
            let title = format!(
                "Fig. 5: {} workload, AS{}, {} ({:?}, {} core{})",
                r.workload,
                r.peer_as,
                run.scheme.name(),
                r.mode,
                r.threads,
                if r.threads == 1 { "" } else { "s" }
            );
            (
                run.scheme,
                line_chart(&title, "seconds", "UPDATEs per second", &series),
            )
        })
        .collect()
}

fn points(per_second: &[u64]) -> Vec<(f64, f64)> {
    per_second
        .iter()
        .enumerate()
        .map(|(i, &n)| (i as f64, n as f64))
        .collect()
}

/// The paper's Table IV rows: (trace, duration s, announcements, mean /s, peak /s).
const PAPER_T4: [(&str, f64, u64, f64, u64); 2] = [
    ("paper normal: AS3277, 2005-06-01", 871.0, 1121, 1.29, 117),
    (
        "paper pathological: AS7911, Slammer 2003-01-24",
        876.0,
        88_777,
        101.34,
        6764,
    ),
];

/// One row of the paper's Table V (s): mean and max delay, normal and pathological.
struct PaperDelay {
    name: &'static str,
    scheme: Scheme,
    normal: (f64, f64),
    pathological: (f64, f64),
}

/// The paper's Table V, for the scheme that stands in for each row here.
const PAPER_T5: [PaperDelay; 3] = [
    PaperDelay {
        name: "S-BGP (DSA)",
        scheme: Scheme::BgpsecEcdsa,
        normal: (0.600, 3.201),
        pathological: (515.842, 952.834),
    },
    PaperDelay {
        name: "KC-RSA",
        scheme: Scheme::KcRsa,
        normal: (0.183, 1.038),
        pathological: (251.9, 454.3),
    },
    PaperDelay {
        name: "KC-MT",
        scheme: Scheme::KcMt,
        normal: (0.015, 0.088),
        pathological: (0.809, 3.224),
    },
];

/// The paper's Table VI (MB): AS, RIB entries, AS path, S-BGP, KC-RSA, KC-MT, hybrid 1:1.
const PAPER_T6: [(u32, u64, f64, f64, f64, f64, f64); 3] = [
    (1221, 211_721, 3.555, 28.7, 25.8, 152.5, 102.1),
    (4637, 163_918, 3.356, 21.0, 20.0, 111.5, 75.7),
    (7660, 167_288, 4.46, 28.5, 20.4, 151.2, 96.0),
];

/// The tables, paper beside measured.
pub(crate) fn render(r: &Replayed, peers: &Peers) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Replay of {} — {} workload: AS{} ({}){}, {:?} mode, KC-x {} parameters, {} core{}; paper: {SOURCE}",
        r.file,
        r.workload,
        r.peer_as,
        r.peer_ip,
        r.speedup.map_or(String::new(), |x| format!(" at {x}× its pace")),
        r.mode,
        r.kc,
        r.threads,
        if r.threads == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        s,
        "The file: {} peers, {} AS_SET paths not replayed, {} withdrawals. The paper's Slammer trace (2003) is not available; the reset and busiest workloads stand in for it.\n",
        peers.peers.len(),
        peers.skipped_sets,
        peers.withdrawals
    );
    let _ = writeln!(s, "Table IV — the workload");
    let _ = writeln!(
        s,
        "{:<50} {:>10} {:>13} {:>9} {:>8} {:>9}",
        "trace", "duration s", "announcements", "mean /s", "peak /s", "mean hops"
    );
    for (name, d, n, mean, peak) in PAPER_T4 {
        let _ = writeln!(
            s,
            "{name:<50} {d:>10.0} {n:>13} {mean:>9.2} {peak:>8} {:>9}",
            "—"
        );
    }
    let t = &r.table4;
    let _ = writeln!(
        s,
        "{:<50} {:>10.0} {:>13} {:>9.2} {:>8} {:>9.2}",
        format!("measured {}: AS{}", r.workload, r.peer_as),
        t.duration_s,
        t.announcements,
        t.mean_rate,
        t.peak_rate,
        t.mean_hops
    );
    let _ = writeln!(s, "\nTable V — delay in seconds, mean / max (service times measured per announcement, this machine)");
    let _ = writeln!(
        s,
        "{:<13} {:>11} {:>9} {:>21} {:>21} {:>12}  paper normal / pathological",
        "scheme", "validate µs", "sign µs", "to forward", "to validate", "last out s",
    );
    for run in &r.runs {
        let paper =
            PAPER_T5
                .iter()
                .find(|p| p.scheme == run.scheme)
                .map_or("—".to_string(), |p| {
                    format!(
                        "{}: {:.3} / {:.3} | {:.3} / {:.3}",
                        p.name, p.normal.0, p.normal.1, p.pathological.0, p.pathological.1
                    )
                });
        let _ = writeln!(
            s,
            "{:<13} {:>11.1} {:>9.1} {:>21} {:>21} {:>12.2}  {paper}",
            run.scheme.name(),
            run.validate_us,
            run.sign_us,
            format!(
                "{:.4} / {:.4}",
                run.forward_delay.mean_s, run.forward_delay.max_s
            ),
            format!(
                "{:.4} / {:.4}",
                run.validate_delay.mean_s, run.validate_delay.max_s
            ),
            run.last_forwarded_s
        );
    }
    if let Some(t6) = &r.table6 {
        let _ = writeln!(s, "\nTable VI — security octets a RIB keeps, MB (10⁶ octets): the whole BGPsec_PATH (Secure_Path, SKIs, signatures) for BGPsec and BGR, the whole KC-x path authenticator (signatures, published attestation keys, bit vectors); the paper counted signatures alone");
        let names: Vec<&str> = t6.projected.mb.iter().map(|(sc, _)| sc.name()).collect();
        let _ = writeln!(
            s,
            "{:<30} {:>11} {:>9}  {}",
            "router",
            "RIB entries",
            "AS path",
            names.iter().map(|n| format!("{n:>13}")).collect::<String>()
        );
        for row in t6.rows.iter().chain(std::iter::once(&t6.projected)) {
            let who = if row.peer_as == 0 {
                "projected: today's table".to_string()
            } else {
                format!("measured AS{}", row.peer_as)
            };
            let _ = writeln!(
                s,
                "{who:<30} {:>11} {:>9.3}  {}",
                row.rib_entries,
                row.mean_hops,
                row.mb
                    .iter()
                    .map(|(_, mb)| format!("{mb:>13.1}"))
                    .collect::<String>()
            );
        }
        let _ = writeln!(
            s,
            "{:<30} {:>11} {:>9}  {:>13} {:>13} {:>13} {:>13}",
            "paper", "", "", "S-BGP", "KC-RSA", "KC-MT", "hybrid 1:1"
        );
        for (asn, n, hops, sbgp, kcrsa, kcmt, hybrid) in PAPER_T6 {
            let _ = writeln!(
                s,
                "{:<30} {n:>11} {hops:>9.3}  {sbgp:>13.1} {kcrsa:>13.1} {kcmt:>13.1} {hybrid:>13.1}",
                format!("paper AS{asn}")
            );
        }
    }
    s
}

/// The workloads `hopsig reproduce` replays beside the paper (001 §V-A-3): normal and
/// busiest ×10 from the 2016 RIS update file, and a session reset of the largest RIB of
/// the 2002 RIB dump with Table VI; `quick` replays at most 2,000 announcements of the
/// busiest peer and 3,000 routes of the reset (Table VI still prices every route).
pub(crate) fn paper_workloads(quick: bool) -> Result<Vec<(Replayed, String)>, Failure> {
    let data = Path::new("../shared/data/mrt");
    let updates = data.join("ris-updates.20160811.1600.gz");
    let rib = data.join("ris-bview.20020722.2337.gz");
    let schemes = Scheme::ALL.to_vec();
    let peers = peers_of(&updates, None)?;
    let mut out = Vec::new();
    for (workload, cap) in [
        (Workload::Normal, None),
        (Workload::Busiest { speedup: 10.0 }, quick.then_some(2_000)),
    ] {
        let r = replay_workload(
            &updates,
            &peers,
            &Setup {
                workload,
                peer: None,
                schemes: &schemes,
                mode: Mode::Strict,
                kc: "modern",
                threads: 1,
                cap,
            },
        )?;
        let text = render(&r, &peers);
        out.push((r, text));
    }
    let peers = peers_of(&rib, None)?;
    let r = replay_workload(
        &rib,
        &peers,
        &Setup {
            workload: Workload::Reset,
            peer: None,
            schemes: &schemes,
            mode: Mode::Strict,
            kc: "modern",
            threads: 1,
            cap: quick.then_some(3_000),
        },
    )?;
    let text = render(&r, &peers);
    out.push((r, text));
    Ok(out)
}
