//! The router as a queue (KC-x paper §V-A-3: an UPDATE's delay is its processing time
//! plus its waiting time): announcements arrive at the trace's times, N servers (one
//! per thread) work on them with the service times measured for each, first come
//! first served.
//!
//! - **strict**: one task per announcement, validate then sign; it is forwarded (and
//!   validated) when the task ends.
//! - **lazy** (BGR §1; RFC 8205 §5 lets validation happen later): two tasks, sign and
//!   validate. Signing comes first and has priority: a free server takes the oldest
//!   waiting signature, else the oldest validation whose signature is done. Neither
//!   is interrupted once started (non-preemptive priority).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One announcement: when it arrives and what the router's work on it costs, seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Job {
    /// Arrival time.
    pub arrival: f64,
    /// Validating the received path.
    pub validate: f64,
    /// Signing the router's own hop (and encoding the UPDATE it sends).
    pub sign: f64,
}

/// When an announcement left, seconds (same clock as [`Job::arrival`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Done {
    /// Its UPDATE was sent on.
    pub forwarded: f64,
    /// Its path was validated.
    pub validated: f64,
}

/// Order of the two modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Sign and forward at once, validate afterwards.
    Lazy,
    /// Validate, then sign and forward.
    Strict,
}

impl Mode {
    /// As written on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Lazy => "lazy",
            Mode::Strict => "strict",
        }
    }
}

/// Index of the server that is free first.
fn first_free(free: &[f64]) -> usize {
    let mut best = 0;
    for (i, t) in free.iter().enumerate() {
        if *t < free[best] {
            best = i;
        }
    }
    best
}

/// Runs `jobs` (in arrival order) through `servers` servers (at least 1).
pub fn simulate(jobs: &[Job], servers: usize, mode: Mode) -> Vec<Done> {
    let mut free = vec![f64::NEG_INFINITY; servers.max(1)];
    let mut done = vec![
        Done {
            forwarded: 0.0,
            validated: 0.0
        };
        jobs.len()
    ];
    match mode {
        Mode::Strict => {
            for (job, d) in jobs.iter().zip(&mut done) {
                let s = first_free(&free);
                let end = free[s].max(job.arrival) + job.validate + job.sign;
                free[s] = end;
                *d = Done {
                    forwarded: end,
                    validated: end,
                };
            }
        }
        Mode::Lazy => {
            // Validations waiting, by the time their signature ended (then job order).
            // Times are non-negative seconds here, whose f64 bits sort as the values.
            let mut waiting: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
            let mut next = 0;
            for f in &mut free {
                *f = jobs.first().map_or(0.0, |j| j.arrival);
            }
            while next < jobs.len() || !waiting.is_empty() {
                let s = first_free(&free);
                let t = free[s];
                if let Some(job) = jobs.get(next).filter(|j| j.arrival <= t) {
                    let end = t + job.sign;
                    done[next].forwarded = end;
                    waiting.push(Reverse((end.max(0.0).to_bits(), next)));
                    free[s] = end;
                    next += 1;
                    continue;
                }
                match waiting.peek() {
                    Some(Reverse((ready, i))) if f64::from_bits(*ready) <= t => {
                        let i = *i;
                        waiting.pop();
                        let end = t + jobs[i].validate;
                        done[i].validated = end;
                        free[s] = end;
                    }
                    // Idle until the next arrival or the next validation that can start.
                    ready => {
                        let arrival = jobs.get(next).map_or(f64::INFINITY, |j| j.arrival);
                        let ready =
                            ready.map_or(f64::INFINITY, |Reverse((r, _))| f64::from_bits(*r));
                        free[s] = arrival.min(ready);
                    }
                }
            }
        }
    }
    done
}

/// Counts of `times` per one-second bin from `start`, up to the last (Fig. 5's
/// "UPDATEs per second").
pub fn per_second(times: impl IntoIterator<Item = f64>, start: f64) -> Vec<u32> {
    let mut bins: Vec<u32> = Vec::new();
    for t in times {
        let b = ((t - start).max(0.0)).floor() as usize;
        if bins.len() <= b {
            bins.resize(b + 1, 0);
        }
        bins[b] += 1;
    }
    bins
}

/// Mean, median and maximum of `values` (all 0 when empty).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Mean.
    pub mean: f64,
    /// Median (the lower middle value for an even count).
    pub median: f64,
    /// Maximum.
    pub max: f64,
}

impl Summary {
    /// The summary of `values`.
    pub fn of(mut values: Vec<f64>) -> Summary {
        if values.is_empty() {
            return Summary {
                mean: 0.0,
                median: 0.0,
                max: 0.0,
            };
        }
        values.sort_by(f64::total_cmp);
        Summary {
            mean: values.iter().sum::<f64>() / values.len() as f64,
            median: values[(values.len() - 1) / 2],
            max: values[values.len() - 1],
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn jobs(arrivals: &[f64], validate: f64, sign: f64) -> Vec<Job> {
        arrivals
            .iter()
            .map(|&arrival| Job {
                arrival,
                validate,
                sign,
            })
            .collect()
    }

    fn forwarded(d: &[Done]) -> Vec<f64> {
        d.iter().map(|d| d.forwarded).collect()
    }

    fn validated(d: &[Done]) -> Vec<f64> {
        d.iter().map(|d| d.validated).collect()
    }

    #[test]
    fn strict_one_server_by_hand() {
        // Service 2 s each. Job 0: 0→2. Job 1 waits: 2→4. Job 2 arrives at 3, waits
        // for job 1: 4→6. Job 3 arrives at 10 to an idle server: 10→12.
        let d = simulate(&jobs(&[0.0, 0.5, 3.0, 10.0], 1.5, 0.5), 1, Mode::Strict);
        assert_eq!(forwarded(&d), [2.0, 4.0, 6.0, 12.0]);
        assert_eq!(validated(&d), forwarded(&d));
        let delays: Vec<f64> = d
            .iter()
            .zip([0.0, 0.5, 3.0, 10.0])
            .map(|(d, a)| d.forwarded - a)
            .collect();
        assert_eq!(delays, [2.0, 3.5, 3.0, 2.0]);
    }

    #[test]
    fn strict_two_servers_by_hand() {
        // Three arrivals at 0 with 1 s of work: two start at once, the third at 1.
        let d = simulate(&jobs(&[0.0, 0.0, 0.0], 0.75, 0.25), 2, Mode::Strict);
        assert_eq!(forwarded(&d), [1.0, 1.0, 2.0]);
    }

    #[test]
    fn lazy_one_server_by_hand() {
        // validate 1, sign 1. t=0: sign job 0 (→1). t=1: job 1 (arrived 0.5) is
        // signed first (→2). t=2: nothing new has arrived: validate job 0 (→3).
        // t=3: job 2 arrived at 3: sign it (→4). t=4: validate job 1 (→5), then
        // job 2 (→6).
        let d = simulate(&jobs(&[0.0, 0.5, 3.0], 1.0, 1.0), 1, Mode::Lazy);
        assert_eq!(forwarded(&d), [1.0, 2.0, 4.0]);
        assert_eq!(validated(&d), [3.0, 5.0, 6.0]);
        // Strict on the same jobs forwards later: 2, 4, 6.
        let s = simulate(&jobs(&[0.0, 0.5, 3.0], 1.0, 1.0), 1, Mode::Strict);
        assert_eq!(forwarded(&s), [2.0, 4.0, 6.0]);
    }

    #[test]
    fn lazy_does_not_interrupt_a_validation() {
        // Job 0 signed 0→1, validated 1→5; job 1 arrives at 2 and waits until 5.
        let d = simulate(&jobs(&[0.0, 2.0], 4.0, 1.0), 1, Mode::Lazy);
        assert_eq!(forwarded(&d), [1.0, 6.0]);
        assert_eq!(validated(&d), [5.0, 10.0]);
        // With a second server, job 1 is signed on arrival.
        let d = simulate(&jobs(&[0.0, 2.0], 4.0, 1.0), 2, Mode::Lazy);
        assert_eq!(forwarded(&d), [1.0, 3.0]);
        assert_eq!(validated(&d), [5.0, 7.0]);
    }

    #[test]
    fn a_session_reset_drains_at_the_service_rate() {
        // 128 announcements at once, 1/128 s each (exact in binary) on one server:
        // 127 leave within the first second, the last at exactly 1 s.
        let d = simulate(
            &jobs(&[5.0; 128], 1.0 / 256.0, 1.0 / 256.0),
            1,
            Mode::Strict,
        );
        assert_eq!(d.last().unwrap().forwarded, 6.0);
        assert_eq!(per_second(d.iter().map(|d| d.forwarded), 5.0), [127, 1]);
    }

    #[test]
    fn rates_per_second_and_summaries() {
        assert_eq!(per_second([0.1, 0.9, 1.0, 3.5], 0.0), [2, 1, 0, 1]);
        assert!(per_second([], 0.0).is_empty());
        let s = Summary::of(vec![3.0, 1.0, 2.0, 10.0]);
        assert_eq!((s.mean, s.median, s.max), (4.0, 2.0, 10.0));
        assert_eq!(Summary::of(vec![]).max, 0.0);
        assert!(simulate(&[], 4, Mode::Lazy).is_empty());
    }

    proptest::proptest! {
        /// For any arrivals and service times: nothing is forwarded before its
        /// arrival plus its own work, lazy validation ends after forwarding, every
        /// announcement is counted once, and on one server both modes, never idle
        /// while work waits, finish the whole work at the same time.
        #[test]
        fn queue_invariants(
            raw in proptest::collection::vec((0u32..5_000, 1u32..500, 1u32..500), 0..60),
            servers in 1usize..4,
        ) {
            let mut raw = raw;
            raw.sort_by_key(|r| r.0);
            // Multiples of 1/1024 s keep every sum exact.
            let q = |x: u32| f64::from(x) / 1024.0;
            let jobs: Vec<Job> = raw.iter().map(|&(a, v, s)| Job { arrival: q(a), validate: q(v), sign: q(s) }).collect();
            let strict = simulate(&jobs, servers, Mode::Strict);
            let lazy = simulate(&jobs, servers, Mode::Lazy);
            for ((j, s), l) in jobs.iter().zip(&strict).zip(&lazy) {
                proptest::prop_assert!(s.forwarded >= j.arrival + j.validate + j.sign);
                proptest::prop_assert_eq!(s.forwarded, s.validated);
                proptest::prop_assert!(l.forwarded >= j.arrival + j.sign);
                proptest::prop_assert!(l.validated >= l.forwarded + j.validate);
            }
            let n: u32 = per_second(lazy.iter().map(|d| d.forwarded), 0.0).iter().sum();
            proptest::prop_assert_eq!(n as usize, jobs.len());
            if servers == 1 && !jobs.is_empty() {
                let end = |d: &[Done]| d.iter().map(|d| d.validated).fold(0.0, f64::max);
                proptest::prop_assert_eq!(end(&strict), end(&lazy));
            }
        }
    }
}
