//! The router as a queue (001 §V-A-3: "the delay of handling an UPDATE message …
//! includes the processing time and the waiting time"): announcements arrive at the
//! trace's times and wait for one of `servers` cores; each takes the service times
//! measured for it. Two disciplines:
//!
//! * **strict** — validate, then sign and forward: one job per announcement, first
//!   come first served; forwarded when both are done.
//! * **lazy** (BGR §1, RFC 8205 §5) — sign and forward at once, validate afterwards:
//!   two jobs per announcement, both queued at its arrival; a free core takes the
//!   oldest signing job first and validates only when no signing job waits. A job in
//!   service is not interrupted (a verification takes well under a millisecond).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// One announcement's work.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Job {
    /// Arrival, seconds.
    pub arrival: f64,
    /// Seconds to validate the received path.
    pub validate: f64,
    /// Seconds to sign the router's hop (and build the outgoing UPDATE).
    pub sign: f64,
}

/// Strict or lazy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Validate, then sign and forward.
    Strict,
    /// Sign and forward at once, validate afterwards.
    Lazy,
}

/// When each announcement was forwarded and when it was validated, seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// Per job, when its UPDATE left.
    pub forwarded: Vec<f64>,
    /// Per job, when its validation ended.
    pub validated: Vec<f64>,
}

/// Seconds as an orderable heap key (service times are finite and ≥ 0).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Time(f64);
impl Eq for Time {}
impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Time {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Runs `jobs` (in arrival order) through `servers` cores (at least 1).
pub fn simulate(jobs: &[Job], servers: usize, mode: Mode) -> Timeline {
    let n = jobs.len();
    let mut forwarded = vec![0.0; n];
    let mut validated = vec![0.0; n];
    let mut free: BinaryHeap<Reverse<Time>> =
        (0..servers.max(1)).map(|_| Reverse(Time(0.0))).collect();
    // Waiting jobs: (announcement, is a signing job).
    let mut signing: VecDeque<usize> = VecDeque::new();
    let mut validating: VecDeque<usize> = VecDeque::new();
    let mut next = 0;
    let mut left = match mode {
        Mode::Strict => n,
        Mode::Lazy => 2 * n,
    };
    while left > 0 {
        let Some(Reverse(Time(mut now))) = free.pop() else {
            break;
        };
        let admit =
            |now: f64, next: &mut usize, s: &mut VecDeque<usize>, v: &mut VecDeque<usize>| {
                while *next < n && jobs[*next].arrival <= now {
                    s.push_back(*next);
                    if mode == Mode::Lazy {
                        v.push_back(*next);
                    }
                    *next += 1;
                }
            };
        admit(now, &mut next, &mut signing, &mut validating);
        if signing.is_empty() && validating.is_empty() {
            // Idle until the next arrival.
            let Some(j) = jobs.get(next) else { break };
            now = j.arrival;
            admit(now, &mut next, &mut signing, &mut validating);
        }
        // Another core that idled until a later arrival may have queued jobs this
        // earlier-free core now takes: none starts before it arrived.
        let done = if let Some(j) = signing.pop_front() {
            let start = now.max(jobs[j].arrival);
            match mode {
                Mode::Strict => {
                    validated[j] = start + jobs[j].validate;
                    forwarded[j] = validated[j] + jobs[j].sign;
                    forwarded[j]
                }
                Mode::Lazy => {
                    forwarded[j] = start + jobs[j].sign;
                    forwarded[j]
                }
            }
        } else if let Some(j) = validating.pop_front() {
            validated[j] = now.max(jobs[j].arrival) + jobs[j].validate;
            validated[j]
        } else {
            now
        };
        left -= 1;
        free.push(Reverse(Time(done)));
    }
    Timeline {
        forwarded,
        validated,
    }
}

/// Mean and largest of `delays`, seconds.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Delay {
    /// Mean.
    pub mean_s: f64,
    /// Largest.
    pub max_s: f64,
}

/// The delay of each job: `done[i] − jobs[i].arrival`, summarized.
pub fn delay(jobs: &[Job], done: &[f64]) -> Delay {
    let d: Vec<f64> = jobs.iter().zip(done).map(|(j, t)| t - j.arrival).collect();
    Delay {
        mean_s: d.iter().sum::<f64>() / d.len().max(1) as f64,
        max_s: d.iter().copied().fold(0.0, f64::max),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn job(arrival: f64, validate: f64, sign: f64) -> Job {
        Job {
            arrival,
            validate,
            sign,
        }
    }

    #[test]
    fn strict_is_first_come_first_served_per_core() {
        // Three arrive at 0 with 3 s of work each (2 validate + 1 sign); one at 20.
        let jobs = [
            job(0.0, 2.0, 1.0),
            job(0.0, 2.0, 1.0),
            job(0.0, 2.0, 1.0),
            job(20.0, 2.0, 1.0),
        ];
        let one = simulate(&jobs, 1, Mode::Strict);
        assert_eq!(one.forwarded, [3.0, 6.0, 9.0, 23.0]);
        assert_eq!(one.validated, [2.0, 5.0, 8.0, 22.0]);
        let d = delay(&jobs, &one.forwarded);
        assert_eq!((d.mean_s, d.max_s), ((3.0 + 6.0 + 9.0 + 3.0) / 4.0, 9.0));
        let two = simulate(&jobs, 2, Mode::Strict);
        assert_eq!(two.forwarded, [3.0, 3.0, 6.0, 23.0]);
    }

    #[test]
    fn lazy_signs_everything_waiting_before_it_validates() {
        let jobs = [job(0.0, 2.0, 1.0), job(0.0, 2.0, 1.0), job(0.0, 2.0, 1.0)];
        let t = simulate(&jobs, 1, Mode::Lazy);
        // Signing first: 1, 2, 3; then validations: 5, 7, 9.
        assert_eq!(t.forwarded, [1.0, 2.0, 3.0]);
        assert_eq!(t.validated, [5.0, 7.0, 9.0]);
        // A signing job that arrives during a validation waits for it (no preemption),
        // then goes before the validations still queued.
        let jobs = [job(0.0, 2.0, 1.0), job(0.0, 2.0, 1.0), job(2.5, 2.0, 1.0)];
        let t = simulate(&jobs, 1, Mode::Lazy);
        assert_eq!(t.forwarded, [1.0, 2.0, 5.0]);
        assert_eq!(t.validated, [4.0, 7.0, 9.0]);
        // Lazy never forwards later than strict.
        let s = simulate(&jobs, 1, Mode::Strict);
        assert!(t.forwarded.iter().zip(&s.forwarded).all(|(l, s)| l <= s));
    }

    #[test]
    fn an_idle_core_never_starts_a_job_before_it_arrives() {
        // Core A frees at 1, core B at 5; jobs at 0, 0 (long), then two at 10.
        let jobs = [
            job(0.0, 0.5, 0.5),
            job(0.0, 4.0, 1.0),
            job(10.0, 1.0, 1.0),
            job(10.0, 1.0, 1.0),
        ];
        for mode in [Mode::Strict, Mode::Lazy] {
            let t = simulate(&jobs, 2, mode);
            for (j, (f, v)) in jobs.iter().zip(t.forwarded.iter().zip(&t.validated)) {
                assert!(*f >= j.arrival && *v >= j.arrival, "{mode:?} {t:?}");
            }
        }
        let t = simulate(&jobs, 2, Mode::Strict);
        assert_eq!(t.forwarded, [1.0, 5.0, 12.0, 12.0]);
    }

    #[test]
    fn no_work_means_no_delay_and_an_empty_trace_is_fine() {
        let jobs = [job(0.5, 0.0, 0.0), job(7.0, 0.0, 0.0)];
        let t = simulate(&jobs, 2, Mode::Lazy);
        assert_eq!(t.forwarded, [0.5, 7.0]);
        assert_eq!(delay(&jobs, &t.forwarded), Delay::default());
        assert!(simulate(&[], 1, Mode::Strict).forwarded.is_empty());
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// On random traces: nothing leaves before it arrives or before its own work is
        /// done; lazy forwards no later than strict on average; the cores are never
        /// idle while work waits, so the last job ends no earlier than the work divided
        /// among them after the first arrival.
        #[test]
        fn delays_are_causal_and_cores_work_conserving(
            raw in proptest::collection::vec((0u32..2_000, 0u32..500, 0u32..500), 1..80),
            servers in 1usize..4,
        ) {
            let mut jobs: Vec<Job> = raw
                .iter()
                .map(|&(a, v, s)| Job { arrival: f64::from(a) / 100.0, validate: f64::from(v) / 1e3, sign: f64::from(s) / 1e3 })
                .collect();
            jobs.sort_by(|a, b| a.arrival.total_cmp(&b.arrival));
            let strict = simulate(&jobs, servers, Mode::Strict);
            let lazy = simulate(&jobs, servers, Mode::Lazy);
            for (i, j) in jobs.iter().enumerate() {
                prop_assert!(strict.forwarded[i] >= j.arrival + j.validate + j.sign - 1e-9);
                prop_assert!(lazy.forwarded[i] >= j.arrival + j.sign - 1e-9);
                prop_assert!(lazy.validated[i] >= j.arrival + j.validate - 1e-9);
            }
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
            prop_assert!(mean(&lazy.forwarded) <= mean(&strict.forwarded) + 1e-9);
            let work: f64 = jobs.iter().map(|j| j.validate + j.sign).sum();
            let end = strict.forwarded.iter().copied().fold(0.0, f64::max);
            prop_assert!(end + 1e-9 >= jobs[0].arrival + work / servers as f64);
        }
    }
}
