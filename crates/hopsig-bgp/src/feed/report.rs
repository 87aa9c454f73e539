//! The report of a feed run (docs/spec/feed.md, "Report"), serialised as JSON.

use std::collections::BTreeMap;

use serde::Serialize;

use super::faults::{FaultKind, Verdict};

/// Format version of the report.
pub const VERSION: u32 = 1;

/// A feed run.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Report {
    /// [`VERSION`].
    pub version: u32,
    /// The MRT input.
    pub mrt: Input,
    /// The feed session.
    pub session: SessionInfo,
    /// What was sent.
    pub sent: Sent,
    /// Each watcher session.
    pub watchers: Vec<Watcher>,
    /// Seconds from the first UPDATE sent until every watcher had seen every
    /// expected prefix; `null` if one did not within `--wait` (or there is none).
    pub all_forwarded_s: Option<f64>,
    /// From the router's status file (`--status`).
    pub status: Option<Status>,
    /// Peak resident memory of the router's process (`--router-pid`), kB (VmHWM
    /// of /proc/PID/status) when every route was forwarded and at the end.
    pub router_memory: Option<Memory>,
    /// Fault injection.
    pub faults: Faults,
    /// Why the feed session ended before the run did (`null`: it did not).
    pub session_ended: Option<String>,
    /// Faults whose observed outcome contradicts the expected one, plus one if a
    /// watcher did not see every expected prefix: the exit status is 1 when not 0.
    pub mismatches: u64,
}

/// The MRT input.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Input {
    /// Its path.
    pub path: String,
    /// MRT records read.
    pub records: u64,
    /// UPDATEs taken.
    pub updates: u64,
    /// Records left out, by reason.
    pub skipped: BTreeMap<String, u64>,
}

/// The feed session.
#[derive(Debug, Clone, Serialize, Default)]
pub struct SessionInfo {
    /// The router, ADDR:PORT.
    pub peer: String,
    /// The feed's AS.
    pub local_as: u32,
    /// The router's AS.
    pub remote_as: u32,
    /// BGPsec asked for (`--bgpsec`).
    pub bgpsec: bool,
    /// BGPsec negotiated (this side may send BGPsec UPDATEs, RFC 8205 §2.2).
    pub bgpsec_negotiated: bool,
    /// How UPDATEs were paced: `fast`, `rate N`, `trace xS`.
    pub pacing: String,
}

/// What was sent.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Sent {
    /// UPDATE messages.
    pub messages: u64,
    /// Prefixes announced (counting repeats).
    pub announcements: u64,
    /// Prefixes withdrawn.
    pub withdrawals: u64,
    /// UPDATEs with BGPsec_PATH.
    pub signed: u64,
    /// Octets of the UPDATEs.
    pub bytes: u64,
    /// Seconds from the first UPDATE queued to the last written to the socket.
    pub seconds: f64,
    /// `messages / seconds`.
    pub messages_per_second: f64,
    /// Distinct prefixes the router should forward in the end.
    pub expected_forwarded: u64,
}

/// One watcher.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Watcher {
    /// The router, ADDR:PORT.
    pub peer: String,
    /// The watcher's AS.
    pub local_as: u32,
    /// BGPsec negotiated (the router may send it BGPsec UPDATEs).
    pub bgpsec_negotiated: bool,
    /// Seconds from the first UPDATE sent until it had seen every expected prefix.
    pub all_forwarded_s: Option<f64>,
    /// Expected prefixes it never saw.
    pub missing: u64,
    /// UPDATEs received.
    pub updates: u64,
    /// UPDATEs received with BGPsec_PATH.
    pub bgpsec_updates: u64,
    /// Prefixes announced to it (counting repeats).
    pub announced: u64,
    /// Prefixes withdrawn from it.
    pub withdrawn: u64,
    /// Prefixes it holds at the end.
    pub holds: u64,
}

/// The router's own status file (a hopsig speaker's `state_file`).
#[derive(Debug, Clone, Serialize, Default)]
pub struct Status {
    /// Its path.
    pub path: String,
    /// Seconds from the first UPDATE sent until the status showed the Adj-RIB-In
    /// filled and the validation queue empty; `null` if not within `--wait`.
    pub all_validated_s: Option<f64>,
    /// `adj_rib_in_count` at the end.
    pub adj_rib_in: Option<u64>,
    /// `not_valid_total` at the end.
    pub not_valid_total: Option<u64>,
}

/// Peak memory of the router.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Memory {
    /// The process.
    pub pid: u32,
    /// VmHWM before the feed started, kB.
    pub before_kb: Option<u64>,
    /// VmHWM when every route had been forwarded (or the wait ended), kB.
    pub forwarded_kb: Option<u64>,
    /// VmHWM at the end, kB.
    pub end_kb: Option<u64>,
}

/// Fault injection.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Faults {
    /// `--fault-rate`.
    pub rate: f64,
    /// `--seed`.
    pub seed: u64,
    /// `--faults`, expanded.
    pub kinds: Vec<FaultKind>,
    /// Injected, by kind.
    pub by_kind: BTreeMap<String, u64>,
    /// Each injected fault.
    pub injected: Vec<Injected>,
}

/// One injected fault.
#[derive(Debug, Clone, Serialize)]
pub struct Injected {
    /// Position of the faulty UPDATE among those sent (from 0).
    pub index: u64,
    /// Its MRT record (from 0).
    pub record: u64,
    /// The fault.
    pub kind: FaultKind,
    /// The prefix it announces.
    pub prefix: String,
    /// The same, for the observation.
    #[serde(skip)]
    pub announced: Option<crate::packet::Prefix>,
    /// The verdict expected of the router.
    pub expected: Verdict,
    /// The rule (RFC and section).
    pub rule: &'static str,
    /// Whether the route should be forwarded in the end (`null`: local policy).
    pub expect_forwarded: Option<bool>,
    /// What the first watcher (or the session, for a reset) saw: `forwarded`,
    /// `withdrawn` (forwarded, then withdrawn), `not_forwarded`, `session_reset`,
    /// `session_kept`, `not_sent`, `superseded` (a later UPDATE of the run announced
    /// or withdrew the prefix: not judged); `null` without a watcher.
    pub observed: Option<&'static str>,
    /// Whether `observed` contradicts `expect_forwarded` (or a reset that did not
    /// happen).
    pub mismatch: bool,
}
