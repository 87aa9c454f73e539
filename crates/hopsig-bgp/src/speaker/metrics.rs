//! The speaker's metrics (issue 26 §1; docs/spec/speaker.md, "Metrics"): recorded
//! through the `metrics` facade, rendered in the Prometheus text format by
//! `metrics-exporter-prometheus` on `GET /metrics` ([`super::http`]).
//!
//! Counters are incremented where the event happens (a message read or written, a
//! verdict taken); gauges that mirror the RIB's state (session states, prefix
//! counts, queue depths, RTR caches, the signature cache) are set from the RIB at
//! each status tick ([`observe`]), which costs O(sessions + caches), never a walk
//! of the routes.
//!
//! [`Latency`] replaces the hand-rolled histogram of issue 13 §2: each sample goes
//! to a Prometheus histogram (buckets [`LATENCY_BUCKETS`]) and to a
//! `metrics_util::storage::Summary` (DDSketch, 0.01 % relative error) from which
//! the status file's quantiles come.

use std::sync::Arc;
use std::time::Duration;

use metrics::{counter, gauge, Counter};
use metrics_exporter_prometheus::{BuildError, Matcher, PrometheusBuilder, PrometheusHandle};
use metrics_util::storage::{Histogram as Buckets, Summary};
use serde_json::{json, Value};

use super::rib::{Rib, RouteState};
use crate::bgpsec::validate::NotValid;
use crate::BlockFault;

/// Metric names, `hopsig_speaker_<what>[_<unit>][_total]` (Prometheus naming).
pub mod names {
    /// Gauge, label `neighbor`: the session's RFC 4271 §8 state as the BGP4-MIB
    /// `bgpPeerState` code (RFC 4273): 1 Idle … 6 Established.
    pub const SESSION_STATE: &str = "hopsig_speaker_session_state";
    /// Counter, labels `neighbor`, `type`: BGP messages read from the neighbour.
    pub const MESSAGES_RECEIVED: &str = "hopsig_speaker_messages_received_total";
    /// Counter, labels `neighbor`, `type`: BGP messages written to the neighbour.
    pub const MESSAGES_SENT: &str = "hopsig_speaker_messages_sent_total";
    /// Gauge, label `neighbor`: routes in its Adj-RIB-In.
    pub const PREFIXES_RECEIVED: &str = "hopsig_speaker_prefixes_received";
    /// Gauge, label `neighbor`: of those, past the import filter.
    pub const PREFIXES_ACCEPTED: &str = "hopsig_speaker_prefixes_accepted";
    /// Gauge, label `neighbor`: routes in its Adj-RIB-Out.
    pub const PREFIXES_ADVERTISED: &str = "hopsig_speaker_prefixes_advertised";
    /// Gauge: validation jobs not yet answered.
    pub const VALIDATION_QUEUE: &str = "hopsig_speaker_validation_queue";
    /// Gauge: sign jobs not yet answered.
    pub const SIGNING_QUEUE: &str = "hopsig_speaker_signing_queue";
    /// Counter, labels `state`, `reason`: BGPsec verdicts taken by the RIB.
    pub const VERDICTS: &str = "hopsig_speaker_verdicts_total";
    /// Histogram: an UPDATE's arrival to its route's first UPDATE queued.
    pub const TIME_TO_FORWARD: &str = "hopsig_speaker_time_to_forward_seconds";
    /// Histogram: an UPDATE's arrival to its route's validation answer.
    pub const TIME_TO_VALIDATE: &str = "hopsig_speaker_time_to_validate_seconds";
    /// Counter: signatures the signature cache was asked about.
    pub const SIGCACHE_LOOKUPS: &str = "hopsig_speaker_signature_cache_lookups_total";
    /// Counter: of those, found (not verified again).
    pub const SIGCACHE_HITS: &str = "hopsig_speaker_signature_cache_hits_total";
    /// Counter: of those, not found (verified).
    pub const SIGCACHE_MISSES: &str = "hopsig_speaker_signature_cache_misses_total";
    /// Counter: entries evicted to stay within the budget.
    pub const SIGCACHE_EVICTIONS: &str = "hopsig_speaker_signature_cache_evictions_total";
    /// Gauge: entries held.
    pub const SIGCACHE_ENTRIES: &str = "hopsig_speaker_signature_cache_entries";
    /// Gauge: bytes held, as counted against the budget.
    pub const SIGCACHE_BYTES: &str = "hopsig_speaker_signature_cache_bytes";
    /// Gauge, label `cache`: the serial of the data held from an RTR cache.
    pub const RTR_SERIAL: &str = "hopsig_speaker_rtr_serial";
    /// Gauge, label `cache`: seconds since its data was last updated.
    pub const RTR_DATA_AGE: &str = "hopsig_speaker_rtr_data_age_seconds";
    /// Gauge, label `cache`: 1 while its data is in the RPKI view.
    pub const RTR_IN_USE: &str = "hopsig_speaker_rtr_in_use";
    /// Histogram: building the status file's snapshot, on the RIB task.
    pub const STATUS_SNAPSHOT: &str = "hopsig_speaker_status_snapshot_seconds";
    /// Histogram: serialising and writing the status file, off the RIB task.
    pub const STATUS_WRITE: &str = "hopsig_speaker_status_write_seconds";
    /// Gauge: bytes of the last status file written.
    pub const STATUS_BYTES: &str = "hopsig_speaker_status_bytes";
    /// Counter: status files whose route lists were cut to fit `status_max_bytes`.
    pub const STATUS_TRUNCATED: &str = "hopsig_speaker_status_truncated_total";
    /// Counter: status file writes that failed.
    pub const STATUS_WRITE_FAILURES: &str = "hopsig_speaker_status_write_failures_total";
}

/// Upper bounds (seconds) of the latency histograms: 1 µs (a cached signature
/// check) to 10 s (a full table behind a slow validator), 1-2.5-5 per decade.
pub const LATENCY_BUCKETS: [f64; 22] = [
    1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2,
    5e-2, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// Installs the Prometheus recorder globally, every `_seconds` metric a histogram
/// with [`LATENCY_BUCKETS`]; the handle renders the exposition text.
///
/// # Errors
/// A recorder is installed already.
pub fn install() -> Result<PrometheusHandle, BuildError> {
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &LATENCY_BUCKETS)?
        .install_recorder()?;
    describe();
    Ok(handle)
}

/// The `# HELP` lines.
fn describe() {
    use metrics::{describe_counter, describe_gauge, describe_histogram, Unit};
    describe_gauge!(
        names::SESSION_STATE,
        "BGP session state as the BGP4-MIB bgpPeerState code (RFC 4273): 1 idle, 2 connect, 3 active, 4 opensent, 5 openconfirm, 6 established"
    );
    describe_counter!(names::MESSAGES_RECEIVED, "BGP messages received, by type");
    describe_counter!(names::MESSAGES_SENT, "BGP messages sent, by type");
    describe_gauge!(names::PREFIXES_RECEIVED, "Routes in the Adj-RIB-In");
    describe_gauge!(
        names::PREFIXES_ACCEPTED,
        "Routes in the Adj-RIB-In past the import filter"
    );
    describe_gauge!(names::PREFIXES_ADVERTISED, "Routes in the Adj-RIB-Out");
    describe_gauge!(names::VALIDATION_QUEUE, "Validation jobs not yet answered");
    describe_gauge!(names::SIGNING_QUEUE, "Sign jobs not yet answered");
    describe_counter!(
        names::VERDICTS,
        "BGPsec verdicts (RFC 8205 section 5) taken by the RIB, by state and reason"
    );
    describe_histogram!(
        names::TIME_TO_FORWARD,
        Unit::Seconds,
        "From an UPDATE's arrival to its route's first UPDATE queued to a session"
    );
    describe_histogram!(
        names::TIME_TO_VALIDATE,
        Unit::Seconds,
        "From an UPDATE's arrival to its route's validation answer"
    );
    describe_counter!(
        names::SIGCACHE_LOOKUPS,
        "Signatures the signature cache was asked about"
    );
    describe_counter!(names::SIGCACHE_HITS, "Signature cache hits");
    describe_counter!(
        names::SIGCACHE_MISSES,
        "Signature cache misses (signatures verified)"
    );
    describe_counter!(names::SIGCACHE_EVICTIONS, "Signature cache evictions");
    describe_gauge!(names::SIGCACHE_ENTRIES, "Signature cache entries");
    describe_gauge!(
        names::SIGCACHE_BYTES,
        Unit::Bytes,
        "Signature cache bytes, as counted against its budget"
    );
    describe_gauge!(
        names::RTR_SERIAL,
        "Serial of the data held from the RTR cache (RFC 8210)"
    );
    describe_gauge!(
        names::RTR_DATA_AGE,
        Unit::Seconds,
        "Seconds since the RTR cache's data was last updated"
    );
    describe_gauge!(
        names::RTR_IN_USE,
        "1 while the RTR cache's data is in the RPKI view"
    );
    describe_histogram!(
        names::STATUS_SNAPSHOT,
        Unit::Seconds,
        "Building the status file's snapshot on the RIB task"
    );
    describe_histogram!(
        names::STATUS_WRITE,
        Unit::Seconds,
        "Serialising and writing the status file, off the RIB task"
    );
    describe_gauge!(
        names::STATUS_BYTES,
        Unit::Bytes,
        "Bytes of the last status file written"
    );
    describe_counter!(
        names::STATUS_TRUNCATED,
        "Status files whose route lists were cut to fit status_max_bytes"
    );
    describe_counter!(
        names::STATUS_WRITE_FAILURES,
        "Status file writes that failed"
    );
}

/// The BGP4-MIB `bgpPeerState` code of an RFC 4271 §8 state (RFC 4273).
pub fn state_code(s: super::fsm::State) -> f64 {
    use super::fsm::State;
    match s {
        State::Idle => 1.0,
        State::Connect => 2.0,
        State::Active => 3.0,
        State::OpenSent => 4.0,
        State::OpenConfirm => 5.0,
        State::Established => 6.0,
    }
}

/// The `type` label of a BGP message: its header's Type octet (RFC 4271 §4.1,
/// RFC 2918 §3).
pub fn message_type(t: u8) -> &'static str {
    match t {
        1 => "open",
        2 => "update",
        3 => "notification",
        4 => "keepalive",
        5 => "route_refresh",
        _ => "other",
    }
}

/// One neighbour's message counters, one direction: registered once per session,
/// so that counting a message is an index and an atomic add.
#[derive(Clone)]
pub struct Messages {
    by_type: [Counter; 6],
}

impl Messages {
    /// The counters `name` (`names::MESSAGES_RECEIVED` or `names::MESSAGES_SENT`)
    /// of neighbour `neighbor`.
    pub fn new(name: &'static str, neighbor: &str) -> Messages {
        let c =
            |t: u8| counter!(name, "neighbor" => neighbor.to_string(), "type" => message_type(t));
        Messages {
            by_type: [c(0), c(1), c(2), c(3), c(4), c(5)],
        }
    }

    /// Counts one message whose 19-octet header starts `message`.
    pub fn count(&self, message: &[u8]) {
        let t = message.get(18).copied().unwrap_or(0);
        let i = if (1..=5).contains(&t) {
            usize::from(t)
        } else {
            0
        };
        self.by_type[i].increment(1);
    }
}

/// Both directions of one neighbour's message counters.
#[derive(Clone)]
pub struct SessionMessages {
    /// Read from the neighbour.
    pub received: Messages,
    /// Written to it.
    pub sent: Arc<Messages>,
}

impl SessionMessages {
    /// Neighbour `neighbor`'s counters.
    pub fn new(neighbor: &str) -> SessionMessages {
        SessionMessages {
            received: Messages::new(names::MESSAGES_RECEIVED, neighbor),
            sent: Arc::new(Messages::new(names::MESSAGES_SENT, neighbor)),
        }
    }
}

/// The `state` and `reason` labels of a verdict: low-cardinality codes, the
/// status file keeps the full text.
pub fn verdict_labels(s: &RouteState) -> (&'static str, &'static str) {
    match s {
        RouteState::Pending => ("pending", "queued"),
        RouteState::Valid(_) => ("valid", "verified"),
        RouteState::Unsigned => ("unsigned", "no_bgpsec_path"),
        RouteState::Failed(_) => ("not_valid", "validation_failed"),
        RouteState::NotValid(why) => (
            "not_valid",
            match why {
                NotValid::Malformed(_) => "malformed",
                NotValid::Unsigned(_) => "unsigned",
                NotValid::Signatures(blocks) => match blocks.first().map(|b| &b.fault) {
                    Some(BlockFault::NoKey { .. }) => "no_key",
                    Some(BlockFault::BadSignature { .. }) => "bad_signature",
                    Some(BlockFault::BadAggregate) => "bad_aggregate",
                    None => "signatures",
                },
            },
        ),
    }
}

/// Counts one verdict the RIB took.
pub fn verdict(s: &RouteState) {
    let (state, reason) = verdict_labels(s);
    counter!(names::VERDICTS, "state" => state, "reason" => reason).increment(1);
}

/// Sets the gauges that mirror the RIB: each session's state and prefix counts,
/// the queues, the signature cache, the RTR caches. O(sessions + caches).
pub fn observe(rib: &Rib) {
    for (i, s) in rib.sessions.iter().enumerate() {
        // A neighbour removed by a reload: its series keep their last values (the
        // `metrics` facade cannot remove a series) until the speaker restarts.
        if rib.removed.contains(&i) {
            continue;
        }
        let n = s.address.clone();
        gauge!(names::SESSION_STATE, "neighbor" => n.clone()).set(state_code(s.state));
        gauge!(names::PREFIXES_RECEIVED, "neighbor" => n.clone()).set(s.adj_in.len() as f64);
        gauge!(names::PREFIXES_ACCEPTED, "neighbor" => n.clone()).set(rib.accepted(i) as f64);
        gauge!(names::PREFIXES_ADVERTISED, "neighbor" => n).set(s.adj_out.len() as f64);
    }
    gauge!(names::VALIDATION_QUEUE).set(rib.queue as f64);
    gauge!(names::SIGNING_QUEUE).set(rib.signing as f64);
    let c = rib.signature_cache();
    counter!(names::SIGCACHE_LOOKUPS).absolute(c.lookups);
    counter!(names::SIGCACHE_HITS).absolute(c.hits);
    counter!(names::SIGCACHE_MISSES).absolute(c.verified());
    counter!(names::SIGCACHE_EVICTIONS).absolute(c.evictions);
    gauge!(names::SIGCACHE_ENTRIES).set(c.entries as f64);
    gauge!(names::SIGCACHE_BYTES).set(c.bytes as f64);
    let now = tokio::time::Instant::now();
    for cache in &rib.caches {
        let label = format!("{}:{}", cache.address, cache.port);
        if let Some(serial) = cache.serial {
            gauge!(names::RTR_SERIAL, "cache" => label.clone()).set(f64::from(serial));
        }
        if let Some(at) = cache.updated_at {
            gauge!(names::RTR_DATA_AGE, "cache" => label.clone())
                .set(now.saturating_duration_since(at).as_secs_f64());
        }
        gauge!(names::RTR_IN_USE, "cache" => label).set(if cache.in_use { 1.0 } else { 0.0 });
    }
}

/// Upper bounds (µs) of the status file's `buckets_us`: powers of two, up to
/// 2⁵⁴ µs, past any `u64` of nanoseconds.
fn power_of_two_bounds() -> Vec<f64> {
    (0..=54).map(|i| (1u64 << i) as f64).collect()
}

/// A latency: time-to-forward or time-to-validate (issue 13 §2) — a Prometheus
/// histogram, and for the status file a quantile sketch and power-of-two buckets.
#[derive(Debug, Clone)]
pub struct Latency {
    summary: Summary,
    buckets: Buckets,
    prometheus: metrics::Histogram,
}

impl Latency {
    /// A latency recorded as the histogram `name` (a `names::` constant).
    pub fn new(name: &'static str) -> Latency {
        Latency {
            summary: Summary::with_defaults(),
            // The bounds are not empty.
            buckets: Buckets::new(&power_of_two_bounds()).unwrap_or_else(unreachable_buckets),
            prometheus: metrics::histogram!(name),
        }
    }

    /// Adds one duration.
    pub fn record(&mut self, d: Duration) {
        // Nanoseconds to µs: one ECDSA signature takes tens of µs, so whole µs
        // would be too coarse to compare with one.
        let us = d.as_nanos() as f64 / 1000.0;
        self.summary.add(us);
        self.buckets.record(us);
        self.prometheus.record(d.as_secs_f64());
    }

    /// Durations recorded.
    pub fn count(&self) -> u64 {
        self.buckets.count()
    }

    /// The `f` quantile (0 = min, 1 = max), in µs (within 0.01 %).
    pub fn quantile_us(&self, f: f64) -> Option<f64> {
        self.summary.quantile(f)
    }

    /// The status file's object: count, min, median, p90, p99, max (µs, to 0.1 µs)
    /// and buckets `[upper bound µs, count]` with upper bounds 1, 2, 4, … µs, empty
    /// ones left out.
    pub fn to_json(&self) -> Value {
        let q = |f: f64| -> Value {
            self.quantile_us(f)
                .map_or(Value::Null, |us| json!((us * 10.0).round() / 10.0))
        };
        // metrics-util's buckets are cumulative (≤ bound): the differences.
        let mut buckets: Vec<(u64, u64)> = vec![];
        let mut below = 0;
        for (bound, cumulative) in self.buckets.buckets() {
            if cumulative > below {
                buckets.push((bound as u64, cumulative - below));
                below = cumulative;
            }
        }
        json!({
            "count": self.count(),
            "min_us": q(0.0),
            "median_us": q(0.5),
            "p90_us": q(0.9),
            "p99_us": q(0.99),
            "max_us": q(1.0),
            "buckets_us": buckets,
        })
    }
}

/// Never called: [`power_of_two_bounds`] is not empty.
#[allow(clippy::panic)]
fn unreachable_buckets() -> Buckets {
    panic!("empty bucket bounds")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// The status file's object keeps its fields: quantiles within the sketch's
    /// error, power-of-two buckets that add up to the count.
    #[test]
    fn latency_json_keeps_the_status_fields() {
        let mut l = Latency::new("test_latency_seconds");
        for us in [3u64, 5, 5, 100, 1000] {
            l.record(Duration::from_micros(us));
        }
        let v = l.to_json();
        assert_eq!(v["count"], 5);
        assert_eq!(v["min_us"], 3.0);
        assert_eq!(v["max_us"], 1000.0);
        let median = v["median_us"].as_f64().unwrap();
        assert!((median - 5.0).abs() < 0.01, "{median}");
        assert_eq!(
            v["buckets_us"],
            json!([[4, 1], [8, 2], [128, 1], [1024, 1]])
        );
        let empty = Latency::new("test_latency_seconds").to_json();
        assert_eq!(empty["count"], 0);
        assert!(empty["median_us"].is_null());
        assert_eq!(empty["buckets_us"], json!([]));
    }

    /// Message types by their header's Type octet; a short or odd one is `other`.
    #[test]
    fn message_types() {
        assert_eq!(message_type(2), "update");
        assert_eq!(message_type(5), "route_refresh");
        assert_eq!(message_type(9), "other");
        let m = Messages::new(names::MESSAGES_SENT, "192.0.2.1");
        m.count(&[0; 3]); // no header: no panic
    }
}
