//! The benchmark suites `hopsig bench` runs: hopsig-bench's table
//! ([`hopsig_bench::SUITES`]) and, for now, the speaker's.
//!
//! TEMPORARY: the `speaker` suite measures the BGP speaker, which lives in this binary
//! until it moves into `hopsig-bgp` (feature `speaker`); the suite then moves into
//! hopsig-bench as one more entry of its table, and [`SPEAKER`] and the insertion in
//! [`suites`] go away.

pub mod speaker;

use hopsig_bench::{BenchSuite, Measured, SUITES};

/// TEMPORARY entry of the speaker's suite (see the module documentation).
pub static SPEAKER: BenchSuite = BenchSuite {
    name: "speaker",
    help:
        "BGP speaker: the RIB task and validation pool: throughput, time-to-forward, session reset",
    run: |o| {
        Measured::of(
            &speaker::SpeakerBench::measure(o.quick)?,
            speaker::SpeakerBench::render,
        )
    },
};

/// Every suite, in the order `hopsig bench --help` lists them: hopsig-bench's, with the
/// speaker's after `bgpsec` (TEMPORARY, see the module documentation).
pub fn suites() -> Vec<&'static BenchSuite> {
    let mut all: Vec<&'static BenchSuite> = SUITES.iter().collect();
    let at = all
        .iter()
        .position(|s| s.name == "bgpsec")
        .map_or(all.len(), |i| i + 1);
    all.insert(at, &SPEAKER);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `hopsig bench` lists hopsig-bench's suites with the speaker's after `bgpsec`,
    /// each name once.
    #[test]
    fn the_speaker_suite_joins_the_table_after_bgpsec() {
        let names: Vec<&str> = suites().iter().map(|s| s.name).collect();
        assert_eq!(names.len(), SUITES.len() + 1);
        let at = names.iter().position(|n| *n == "bgpsec");
        assert_eq!(
            names.get(at.map_or(usize::MAX, |i| i + 1)),
            Some(&"speaker")
        );
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len());
    }
}
