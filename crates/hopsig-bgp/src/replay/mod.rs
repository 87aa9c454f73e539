//! Replaying real BGP traces through a router that signs and validates (KC-x, 001
//! §V-A-3 and §V-B; `hopsig replay`): each announcement's router work is executed for
//! real and timed ([`router`]), the measured service times drive a queue with the
//! trace's arrival times ([`queue`]), and the results are the paper's Table IV (the
//! workload, [`workload::stats`]), Table V (delays), Fig. 5 (outgoing UPDATEs per
//! second) and Table VI (signature memory in a RIB, [`memory`]).

pub mod queue;
pub mod router;
pub mod workload;

use std::time::Instant;

pub use hopsig_schemes::kcx::KcParams;

pub use queue::{Delay, Job, Mode};
pub use router::{Scheme, Work, WorkError};
pub use workload::{read_peers, Arrival, PeerTrace, Peers, TraceStats, Workload, WorkloadError};

/// The longest path prepared (longer ones are worked as this long; RIS paths of more
/// distinct ASes are rare).
pub const MAX_HOPS: usize = 16;

/// One scheme's replay of one workload.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SchemeRun {
    /// The scheme.
    pub scheme: Scheme,
    /// Mean measured validation time per announcement, µs.
    pub validate_us: f64,
    /// Mean measured signing time per announcement, µs.
    pub sign_us: f64,
    /// Delay until forwarded (arrival to the UPDATE leaving), seconds.
    pub forward_delay: Delay,
    /// Delay until validated, seconds.
    pub validate_delay: Delay,
    /// When the last UPDATE left, seconds after the first arrival.
    pub last_forwarded_s: f64,
    /// When the last validation ended.
    pub last_validated_s: f64,
    /// Outgoing UPDATEs in each second (Fig. 5).
    pub outgoing_per_second: Vec<u64>,
}

/// Replays `trace` under each of `schemes` (KC-x with `kc`) on `servers` cores in
/// `mode`. `progress` is
/// called with (scheme, announcements done) now and then.
///
/// # Errors
/// [`WorkError`] if a scheme's work fails (a bug or a backend failure).
pub fn replay(
    trace: &PeerTrace,
    schemes: &[Scheme],
    servers: usize,
    mode: Mode,
    kc: KcParams,
    progress: &mut dyn FnMut(Scheme, usize),
) -> Result<Vec<SchemeRun>, WorkError> {
    let longest = trace.arrivals.iter().map(|a| a.hops).max().unwrap_or(1);
    let mut runs = Vec::with_capacity(schemes.len());
    for &scheme in schemes {
        progress(scheme, 0);
        let mut work = Work::new(scheme, longest.min(MAX_HOPS), kc)?;
        let mut jobs = Vec::with_capacity(trace.arrivals.len());
        for (i, a) in trace.arrivals.iter().enumerate() {
            let t0 = Instant::now();
            work.validate(a.hops)?;
            let t1 = Instant::now();
            work.sign(a.hops)?;
            let t2 = Instant::now();
            work.untimed_upkeep()?;
            jobs.push(Job {
                arrival: a.time,
                validate: (t1 - t0).as_secs_f64(),
                sign: (t2 - t1).as_secs_f64(),
            });
            if i % 1024 == 1023 {
                progress(scheme, i + 1);
            }
        }
        runs.push(run_of(scheme, &jobs, servers, mode));
    }
    Ok(runs)
}

/// The results of `jobs` through the queue.
fn run_of(scheme: Scheme, jobs: &[Job], servers: usize, mode: Mode) -> SchemeRun {
    let n = jobs.len().max(1) as f64;
    let timeline = queue::simulate(jobs, servers, mode);
    let last = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    SchemeRun {
        scheme,
        validate_us: jobs.iter().map(|j| j.validate).sum::<f64>() / n * 1e6,
        sign_us: jobs.iter().map(|j| j.sign).sum::<f64>() / n * 1e6,
        forward_delay: queue::delay(jobs, &timeline.forwarded),
        validate_delay: queue::delay(jobs, &timeline.validated),
        last_forwarded_s: last(&timeline.forwarded),
        last_validated_s: last(&timeline.validated),
        outgoing_per_second: workload::per_second(&timeline.forwarded),
    }
}

/// 001 Table VI for one router of a RIB dump: the octets its RIB keeps for security
/// under each scheme.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MemoryRow {
    /// The router (the RIB dump's peer).
    pub peer_as: u32,
    /// Its RIB entries.
    pub rib_entries: usize,
    /// Their mean signatures per path.
    pub mean_hops: f64,
    /// Per scheme, MB (10⁶ octets).
    pub mb: Vec<(Scheme, f64)>,
}

/// Table VI: the RIB of each of `peers` (the largest first, at most `rows`), and a
/// projection to `routes` routes of `hops` signatures, priced with `work`'s real
/// encodings. Paths longer than prepared are extrapolated ([`Work::route_bytes`]).
///
/// # Errors
/// [`WorkError`] (a bug).
pub fn memory(
    peers: &Peers,
    work: &[Work],
    rows: usize,
    projection: (f64, f64),
) -> Result<(Vec<MemoryRow>, MemoryRow), WorkError> {
    let mut by_size: Vec<&PeerTrace> = peers.peers.iter().collect();
    by_size.sort_by_key(|p| std::cmp::Reverse(p.arrivals.len()));
    let mut out = Vec::new();
    for p in by_size.into_iter().take(rows) {
        let mut mb = Vec::new();
        for w in work {
            let mut octets = 0usize;
            for a in &p.arrivals {
                octets += w.route_bytes(a.hops)?;
            }
            mb.push((w.scheme(), octets as f64 / 1e6));
        }
        let n = p.arrivals.len();
        out.push(MemoryRow {
            peer_as: p.peer_as,
            rib_entries: n,
            mean_hops: p.arrivals.iter().map(|a| a.hops as f64).sum::<f64>() / n.max(1) as f64,
            mb,
        });
    }
    let (routes, hops) = projection;
    let (lo, frac) = (hops.floor().max(1.0) as usize, hops - hops.floor());
    let mut mb = Vec::new();
    for w in work {
        let a = w.route_bytes(lo)? as f64;
        let b = w.route_bytes(lo + 1)? as f64;
        mb.push((w.scheme(), routes * (a + frac * (b - a)) / 1e6));
    }
    let projected = MemoryRow {
        peer_as: 0,
        rib_entries: routes as usize,
        mean_hops: hops,
        mb,
    };
    Ok((out, projected))
}
