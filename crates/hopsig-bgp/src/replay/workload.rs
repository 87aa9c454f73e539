//! The workloads of a replay (001 §V-A-3): the announcements one BGP peer sent, with
//! their arrival times and AS path lengths, read from an MRT file (RIS update files or
//! a RIB dump) through bgpkit-parser.

use std::collections::HashMap;
use std::io::Read;
use std::net::IpAddr;

use bgpkit_parser::models::ElemType;
use bgpkit_parser::BgpkitParser;

/// One announcement as the router receives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arrival {
    /// Seconds after the workload's first announcement.
    pub time: f64,
    /// Signatures on the path: its distinct ASes (prepending collapsed, as BGPsec's
    /// pCount and KC-x's one attestation per AS do).
    pub hops: usize,
}

/// The announcements of one peer of an MRT file, in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct PeerTrace {
    /// The peer's AS.
    pub peer_as: u32,
    /// The peer's address.
    pub peer_ip: IpAddr,
    /// Its announcements, times from the file (seconds since the Unix epoch).
    pub arrivals: Vec<Arrival>,
}

impl PeerTrace {
    /// Seconds from its first announcement to its last.
    pub fn duration(&self) -> f64 {
        match (self.arrivals.first(), self.arrivals.last()) {
            (Some(a), Some(b)) => b.time - a.time,
            _ => 0.0,
        }
    }

    /// Announcements per second over its duration (at least one second).
    pub fn mean_rate(&self) -> f64 {
        self.arrivals.len() as f64 / self.duration().max(1.0)
    }
}

/// What an MRT file gave, per peer.
#[derive(Debug, Clone, Default)]
pub struct Peers {
    /// Every peer that announced a route with an AS path, ordered by AS, then address.
    pub peers: Vec<PeerTrace>,
    /// Announcements whose path holds an AS_SET or a confederation segment (no path
    /// length to sign: BGPsec sends them unsigned, RFC 8205 §4.1), not replayed.
    pub skipped_sets: u64,
    /// Withdrawals (no signature work).
    pub withdrawals: u64,
}

/// Why an MRT file gave no workload.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    /// The file cannot be read.
    #[error("cannot read: {0}")]
    Read(#[from] std::io::Error),
    /// No peer announced anything with an AS path.
    #[error("no announcement with an AS path")]
    Empty,
    /// The peer asked for is not in the file.
    #[error("no peer AS{0} in this file (peers: {1})")]
    NoSuchPeer(u32, String),
}

/// Reads every announcement of `input` (plain or gzip MRT), up to `limit` of them.
///
/// # Errors
/// [`WorkloadError`].
pub fn read_peers(input: impl Read, limit: Option<u64>) -> Result<Peers, WorkloadError> {
    let reader = crate::mrt::decompressed(input)?;
    let mut by_peer: HashMap<(u32, IpAddr), Vec<Arrival>> = HashMap::new();
    let mut out = Peers::default();
    let mut taken = 0u64;
    for elem in BgpkitParser::from_reader(reader).into_elem_iter() {
        if elem.elem_type != ElemType::ANNOUNCE {
            out.withdrawals += 1;
            continue;
        }
        if limit.is_some_and(|l| taken >= l) {
            break;
        }
        let Some(path) = elem.as_path else { continue };
        let Some(ases) = path.to_u32_vec_opt(true) else {
            out.skipped_sets += 1;
            continue;
        };
        if ases.is_empty() {
            continue;
        }
        taken += 1;
        by_peer
            .entry((elem.peer_asn.to_u32(), elem.peer_ip))
            .or_default()
            .push(Arrival {
                time: elem.timestamp,
                hops: ases.len(),
            });
    }
    out.peers = by_peer
        .into_iter()
        .map(|((peer_as, peer_ip), arrivals)| PeerTrace {
            peer_as,
            peer_ip,
            arrivals,
        })
        .collect();
    out.peers.sort_by_key(|p| (p.peer_as, p.peer_ip));
    if out.peers.is_empty() {
        return Err(WorkloadError::Empty);
    }
    Ok(out)
}

/// Which of a file's peers a workload replays, and how its times are taken.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Workload {
    /// 001's "normal" trace: the peer whose mean rate is the median of the file's
    /// peers that sent at least 10 announcements, at the trace's own pace.
    Normal,
    /// A session reset: the peer with the most announcements (in a RIB dump, its whole
    /// table), every route arriving at once (time 0).
    Reset,
    /// The peer with the most announcements, its times divided by `speedup`.
    Busiest {
        /// How much faster than recorded (≥ 1).
        speedup: f64,
    },
}

impl Workload {
    /// The peer of `peers` this workload replays (`peer_as` if given), its arrival
    /// times made relative to its first and shaped by the workload.
    ///
    /// # Errors
    /// [`WorkloadError::NoSuchPeer`], [`WorkloadError::Empty`].
    pub fn select(self, peers: &Peers, peer_as: Option<u32>) -> Result<PeerTrace, WorkloadError> {
        let chosen = match peer_as {
            Some(asn) => peers
                .peers
                .iter()
                .filter(|p| p.peer_as == asn)
                .max_by_key(|p| p.arrivals.len())
                .ok_or_else(|| {
                    let known: Vec<String> =
                        peers.peers.iter().map(|p| p.peer_as.to_string()).collect();
                    WorkloadError::NoSuchPeer(asn, known.join(", "))
                })?,
            None => match self {
                Workload::Normal => {
                    let mut busy: Vec<&PeerTrace> = peers
                        .peers
                        .iter()
                        .filter(|p| p.arrivals.len() >= 10)
                        .collect();
                    if busy.is_empty() {
                        busy = peers.peers.iter().collect();
                    }
                    busy.sort_by(|a, b| a.mean_rate().total_cmp(&b.mean_rate()));
                    *busy.get(busy.len() / 2).ok_or(WorkloadError::Empty)?
                }
                Workload::Reset | Workload::Busiest { .. } => peers
                    .peers
                    .iter()
                    .max_by_key(|p| p.arrivals.len())
                    .ok_or(WorkloadError::Empty)?,
            },
        };
        let start = chosen
            .arrivals
            .iter()
            .map(|a| a.time)
            .fold(f64::INFINITY, f64::min);
        let shape = |t: f64| match self {
            Workload::Normal => t - start,
            Workload::Reset => 0.0,
            Workload::Busiest { speedup } => (t - start) / speedup.max(1.0),
        };
        let mut arrivals: Vec<Arrival> = chosen
            .arrivals
            .iter()
            .map(|a| Arrival {
                time: shape(a.time),
                hops: a.hops,
            })
            .collect();
        arrivals.sort_by(|a, b| a.time.total_cmp(&b.time));
        Ok(PeerTrace {
            peer_as: chosen.peer_as,
            peer_ip: chosen.peer_ip,
            arrivals,
        })
    }
}

/// 001 Table IV for one workload: duration, announcements, mean and peak rate.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct TraceStats {
    /// Seconds from the first arrival to the last.
    pub duration_s: f64,
    /// Announcements.
    pub announcements: usize,
    /// Announcements per second over the duration (at least one second).
    pub mean_rate: f64,
    /// The most announcements in one second (bins from the first arrival).
    pub peak_rate: u64,
    /// Mean signatures per path.
    pub mean_hops: f64,
}

/// Table IV's row of `trace`.
pub fn stats(trace: &PeerTrace) -> TraceStats {
    let times: Vec<f64> = trace.arrivals.iter().map(|a| a.time).collect();
    let n = trace.arrivals.len();
    TraceStats {
        duration_s: trace.duration(),
        announcements: n,
        mean_rate: trace.mean_rate(),
        peak_rate: per_second(&times).into_iter().max().unwrap_or(0),
        mean_hops: trace.arrivals.iter().map(|a| a.hops as f64).sum::<f64>() / n.max(1) as f64,
    }
}

/// How many of `times` (seconds, ≥ 0) fall in each second [k, k + 1).
pub fn per_second(times: &[f64]) -> Vec<u64> {
    let last = times.iter().copied().fold(0.0, f64::max);
    let mut bins = vec![0u64; last as usize + 1];
    for &t in times {
        if let Some(b) = bins.get_mut(t.max(0.0) as usize) {
            *b += 1;
        }
    }
    bins
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn trace(asn: u32, times: &[f64]) -> PeerTrace {
        PeerTrace {
            peer_as: asn,
            peer_ip: IpAddr::from([192, 0, 2, asn as u8]),
            arrivals: times
                .iter()
                .map(|&time| Arrival { time, hops: 3 })
                .collect(),
        }
    }

    #[test]
    fn workloads_pick_their_peer_and_shape_its_times() {
        let peers = Peers {
            peers: vec![
                trace(1, &[100.0; 12]), // 12 at once: 12/s
                trace(
                    2,
                    &(0..10)
                        .map(|i| 100.0 + 10.0 * f64::from(i))
                        .collect::<Vec<_>>(),
                ), // 10 over 90 s
                trace(
                    3,
                    &(0..40).map(|i| 200.0 + f64::from(i)).collect::<Vec<_>>(),
                ), // 40 over 39 s
                trace(4, &[5.0]),       // too few to be "normal"
            ],
            ..Peers::default()
        };
        let normal = Workload::Normal.select(&peers, None).unwrap();
        assert_eq!(
            normal.peer_as, 3,
            "median rate of 0.11, 1.03 and 12 per second"
        );
        assert_eq!(normal.arrivals[0].time, 0.0);
        assert_eq!(normal.arrivals[39].time, 39.0);
        let reset = Workload::Reset.select(&peers, None).unwrap();
        assert_eq!(reset.peer_as, 3);
        assert!(reset.arrivals.iter().all(|a| a.time == 0.0));
        let fast = Workload::Busiest { speedup: 10.0 }
            .select(&peers, None)
            .unwrap();
        assert!((fast.arrivals[39].time - 3.9).abs() < 1e-9);
        assert_eq!(Workload::Normal.select(&peers, Some(2)).unwrap().peer_as, 2);
        assert!(matches!(
            Workload::Normal.select(&peers, Some(9)),
            Err(WorkloadError::NoSuchPeer(9, _))
        ));
        let s = stats(&normal);
        assert_eq!((s.announcements, s.peak_rate), (40, 1));
        assert!((s.duration_s - 39.0).abs() < 1e-9 && (s.mean_rate - 40.0 / 39.0).abs() < 1e-9);
        assert_eq!(stats(&reset).peak_rate, 40);
        assert_eq!(per_second(&[0.0, 0.5, 1.0, 2.99]), [2, 1, 1]);
    }
}
