//! One file's replay as `hopsig replay` runs it (KC-x §V-A-3): the peer chosen, the
//! schemes prepared, the workload named, the replay and Table VI's memory, and the
//! JSON document of `--json` (docs/spec/replay.md). The CLI and Python's
//! `hopsig.engine.replay` both call [`run`], so their results cannot drift apart.

use std::path::Path;

use hopsig_bgp::RouterKeys;

use super::hop::Scheme;
use super::queue::Mode;
use super::{replay, Memory, Options, PeerId, Replay, TraceFile};
use crate::Error;

/// Which peer of the trace to replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerChoice {
    /// The peer with the median announcement rate.
    Median,
    /// The peer with the most announcements (in a RIB dump, the largest table).
    Busiest,
    /// The peer of this AS with the most announcements.
    As(u32),
}

impl std::str::FromStr for PeerChoice {
    type Err = ();

    /// `median`, `busiest`, or an AS number (`AS` before it allowed).
    fn from_str(s: &str) -> Result<PeerChoice, ()> {
        match s {
            "median" => Ok(PeerChoice::Median),
            "busiest" => Ok(PeerChoice::Busiest),
            asn => asn
                .strip_prefix("AS")
                .unwrap_or(asn)
                .parse()
                .map(PeerChoice::As)
                .map_err(|_| ()),
        }
    }
}

/// What to replay and how.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The MRT file (RIS updates, or a RIB dump: a session reset, all at once).
    pub mrt: &'a Path,
    /// The schemes' names ([`super::hop::SCHEMES`]).
    pub schemes: &'a [&'a str],
    /// The peer.
    pub peer: PeerChoice,
    /// Mode of Fig. 5.
    pub mode: Mode,
    /// Servers of the queue (router threads).
    pub threads: usize,
    /// Arrival times divided by this (> 0).
    pub speedup: f64,
    /// The peer's first announcements only.
    pub limit: Option<usize>,
    /// A RIB dump for Table VI (signature memory).
    pub rib: Option<&'a Path>,
    /// Router keys joining the validating router's key table (an RPKI cache's).
    pub router_keys: Option<&'a RouterKeys>,
    /// Announcements a BGPsec router validates in one cross-UPDATE batch (1: each
    /// alone, on arrival; [`Scheme::run`]).
    pub batch: usize,
}

/// What a replay gives: the replay, and Table VI with a RIB dump.
#[derive(Debug, Clone)]
pub struct Run {
    /// Tables IV, V and Fig. 5.
    pub replay: Replay,
    /// Table VI, if a RIB dump was given.
    pub memory: Option<Memory>,
}

impl Run {
    /// The document of `hopsig replay --json` (docs/spec/replay.md):
    /// `{"replay": …, "memory": … or null}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({ "replay": self.replay, "memory": self.memory })
    }
}

/// The name of a workload, which names Fig. 5's files too: one run per file, peer
/// and speed-up does not overwrite another's.
fn workload(mrt: &Path, choice: &str, peer: PeerId, speedup: f64) -> String {
    format!(
        "{} {choice} AS{}{}",
        mrt.file_name()
            .map(|n| n.to_string_lossy().trim_end_matches(".gz").to_string())
            .unwrap_or_default(),
        peer.asn,
        if speedup == 1.0 {
            String::new()
        } else {
            format!(" x{speedup}")
        }
    )
}

/// Reads the trace (and the RIB dump), chooses the peer, prepares the schemes and
/// replays; progress is reported through `tracing`.
///
/// # Errors
/// [`Error`]: a file that cannot be read or holds no announcement, a peer not in
/// the file, a scheme that cannot be prepared or run.
pub fn run(r: &Request<'_>) -> Result<Run, Error> {
    let trace = TraceFile::read(r.mrt)?;
    let rib = r.rib.map(TraceFile::read).transpose()?;
    let (choice, peer) = match r.peer {
        PeerChoice::Median => ("median", trace.median_peer()),
        PeerChoice::Busiest => ("busiest", trace.busiest_peer()),
        PeerChoice::As(asn) => ("peer", trace.peer(asn)?),
    };
    let schemes = r
        .schemes
        .iter()
        .map(|n| {
            tracing::info!("{n}: preparing keys and upstream signatures ...");
            Scheme::prepare_with(n, r.router_keys)?.batched(r.batch)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let options = Options {
        workload: workload(r.mrt, choice, peer, r.speedup),
        mode: r.mode,
        threads: r.threads,
        speedup: r.speedup,
        limit: r.limit,
        quick_floors: false,
    };
    let replay = replay(&trace, peer, &schemes, &options)?;
    let memory = rib.as_ref().map(|rib| Memory::of(rib, &schemes));
    Ok(Run { replay, memory })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peers_are_named_as_on_the_command_line() {
        assert_eq!("median".parse(), Ok(PeerChoice::Median));
        assert_eq!("busiest".parse(), Ok(PeerChoice::Busiest));
        assert_eq!("AS3333".parse(), Ok(PeerChoice::As(3333)));
        assert_eq!("3333".parse(), Ok(PeerChoice::As(3333)));
        assert_eq!("fastest".parse::<PeerChoice>(), Err(()));
    }
}
