//! Timing: a measured operation and its floor, sampled in turn.
//!
//! A scheme operation and the primitive it is built on (its floor) are sampled in turn,
//! so both see the same machine state and their ratio stays meaningful on a noisy host:
//! [`paired`] for one operation repeated, [`Interleaved`] for a long run of work timed
//! by the caller (a replay's announcements), with floor samples between its windows.
//! A floor measured on its own, before or after the work, sees another machine as soon
//! as a load starts or stops in between (issue 22 §4).

use std::ops::Range;
use std::time::Instant;

use hopsig_schemes::Error as SchemeError;

use crate::Error;

/// How long to measure.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Samples per operation (the median is reported).
    pub samples: usize,
    /// Target duration of one sample, in seconds.
    pub sample_seconds: f64,
}

impl Budget {
    /// `--quick`.
    pub const QUICK: Budget = Budget {
        samples: 7,
        sample_seconds: 0.006,
    };
    /// Default.
    pub const FULL: Budget = Budget {
        samples: 15,
        sample_seconds: 0.02,
    };
}

fn fail(e: SchemeError) -> Error {
    Error::failed("benchmark operation failed", e)
}

/// Calls of `f` per sample: about `budget.sample_seconds` at its fastest. Timed over
/// batches of 1, 1, 2, 4, … calls (at least three, until one batch lasts an eighth of a
/// sample), keeping the fastest per call. One call timed alone may include a
/// preemption on a loaded machine: its samples would then be a single short call that
/// mostly escapes the load, while the operation it is divided by, sampled at full
/// length, absorbs it (`bench pla --quick` under load read router / verify 0.26–0.39
/// for 1.0).
fn iterations(
    f: &mut dyn FnMut() -> Result<(), SchemeError>,
    budget: Budget,
) -> Result<u32, Error> {
    let mut fastest = f64::INFINITY;
    let mut batch = 1u32;
    for round in 0.. {
        let t = Instant::now();
        for _ in 0..batch {
            f().map_err(fail)?;
        }
        let spent = t.elapsed().as_secs_f64();
        fastest = fastest.min(spent / f64::from(batch));
        if round >= 2 && (spent >= budget.sample_seconds / 8.0 || batch >= 1 << 20) {
            break;
        }
        if round > 0 {
            batch *= 2;
        }
    }
    Ok(((budget.sample_seconds / fastest.max(1e-9)) as u32).clamp(1, 1_000_000))
}

fn sample(f: &mut dyn FnMut() -> Result<(), SchemeError>, iters: u32) -> Result<f64, Error> {
    let t = Instant::now();
    for _ in 0..iters {
        f().map_err(fail)?;
    }
    Ok(t.elapsed().as_secs_f64() * 1e6 / f64::from(iters))
}

/// The median of `v` (the mean of the middle two for an even length; NaN if empty).
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    }
}

/// Median microseconds per call of `op` and of `floor`, sampled alternately.
pub fn paired(
    budget: Budget,
    op: &mut dyn FnMut() -> Result<(), SchemeError>,
    floor: &mut dyn FnMut() -> Result<(), SchemeError>,
) -> Result<(f64, f64), Error> {
    let [a, b] = alternating(budget, &mut |k| if k == 0 { op() } else { floor() })?;
    Ok((a, b))
}

/// Median microseconds per call of each of `K` operations sampled in turn, one sample
/// of each per round; `op(k)` runs operation k once. For operations sharing mutable
/// state, or more than two whose figures are divided by one another.
pub fn alternating<const K: usize>(
    budget: Budget,
    op: &mut dyn FnMut(usize) -> Result<(), SchemeError>,
) -> Result<[f64; K], Error> {
    let mut n = [0u32; K];
    for (k, n) in n.iter_mut().enumerate() {
        *n = iterations(&mut || op(k), budget)?;
    }
    let mut samples: [Vec<f64>; K] = std::array::from_fn(|_| Vec::with_capacity(budget.samples));
    for _ in 0..budget.samples {
        for (k, s) in samples.iter_mut().enumerate() {
            s.push(sample(&mut || op(k), n[k])?);
        }
    }
    Ok(samples.map(median))
}

/// One whole run to measure (a pipeline over a set of packets, a burst of UPDATEs),
/// returning its figure.
pub type Run<'a> = &'a mut dyn FnMut() -> Result<f64, Error>;

/// `rounds` rounds of `runs`, each run once per round, in turn: per run, its figures in
/// round order. For runs too long to repeat within one sample of [`paired`]: a figure
/// divided by another of the same round saw the same machine.
///
/// # Errors
/// A run failing.
pub fn rounds<const K: usize>(
    rounds: usize,
    mut runs: [Run<'_>; K],
) -> Result<[Vec<f64>; K], Error> {
    let mut out: [Vec<f64>; K] = std::array::from_fn(|_| Vec::with_capacity(rounds));
    for _ in 0..rounds {
        for (run, figures) in runs.iter_mut().zip(out.iter_mut()) {
            figures.push(run()?);
        }
    }
    Ok(out)
}

/// Floor operation `k` of an [`Interleaved`] run (`k` < its number of operations).
pub type FloorOp<'a> = &'a mut dyn FnMut(usize) -> Result<(), SchemeError>;

/// A long run of work timed by the caller, one item after the other, with its floor
/// sampled between windows of it: floor, window, floor, window, …, floor. Each item
/// says how many calls of each floor operation it rests on (`uses`); a window closes
/// once its items' floor cost, priced at the first floor sample, reaches
/// `budget.sample_seconds`, and a floor sample runs each operation for about half that
/// divided by their number. Each window is priced at the mean of the floor samples
/// either side of it, so that a load arriving or leaving during the run slows a window
/// and its price alike.
///
/// Where windows end depends on the items alone, never on a time measured during the
/// run: a window closed on its measured time would close right after the process was
/// preempted, so the floor sample would start on a fresh time slice and miss the
/// preemptions the work absorbed (on a loaded machine work / floor read 4–5 for 1.05);
/// one closed on the last sample's prices would be short after a slow sample, and the
/// slow sample would weigh less in the total than a fast one.
pub struct Interleaved<'a> {
    budget: Budget,
    floor: FloorOp<'a>,
    /// Calls of each floor operation per sample.
    iters: Vec<u32>,
    /// Per floor sample: µs per call of each operation.
    samples: Vec<Vec<f64>>,
    /// The first sample, which sizes every window.
    sizing: Vec<f64>,
    /// Closed windows.
    windows: Vec<Window>,
    /// Items recorded.
    items: usize,
    /// The open window: measured work, µs, and floor calls per operation.
    open_work_us: f64,
    open_uses: Vec<f64>,
}

/// One window of an [`Interleaved`] run.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// Its items.
    pub items: Range<usize>,
    /// Their measured work, µs.
    pub work_us: f64,
    /// Their floor cost, µs: Σ uses × µs per call, at the mean of the floor samples
    /// before and after the window.
    pub floor_us: f64,
}

impl<'a> Interleaved<'a> {
    /// Calibrates the `ops` floor operations and takes the first floor sample.
    ///
    /// # Errors
    /// A floor operation failing.
    pub fn start(budget: Budget, ops: usize, floor: FloorOp<'a>) -> Result<Self, Error> {
        let share = Budget {
            sample_seconds: budget.sample_seconds / (2.0 * ops.max(1) as f64),
            ..budget
        };
        let iters = (0..ops)
            .map(|k| iterations(&mut || floor(k), share))
            .collect::<Result<Vec<_>, _>>()?;
        let mut run = Interleaved {
            budget,
            floor,
            iters,
            samples: Vec::new(),
            sizing: Vec::new(),
            windows: Vec::new(),
            items: 0,
            open_work_us: 0.0,
            open_uses: vec![0.0; ops],
        };
        run.sample_floor()?;
        run.sizing = run.samples[0].clone();
        Ok(run)
    }

    fn sample_floor(&mut self) -> Result<(), Error> {
        let mut one = Vec::with_capacity(self.iters.len());
        for (k, &n) in self.iters.iter().enumerate() {
            let floor = &mut self.floor;
            one.push(sample(&mut || floor(k), n)?);
        }
        self.samples.push(one);
        Ok(())
    }

    /// Records the next item: its measured work, `seconds` (timed by the caller, floor
    /// samples excluded), and the calls of each floor operation it rests on; samples
    /// the floor if that fills the window.
    ///
    /// # Errors
    /// A floor operation failing.
    pub fn record(&mut self, seconds: f64, uses: &[f64]) -> Result<(), Error> {
        self.items += 1;
        self.open_work_us += seconds * 1e6;
        for (open, u) in self.open_uses.iter_mut().zip(uses) {
            *open += u;
        }
        let estimate_us: f64 = self
            .open_uses
            .iter()
            .zip(&self.sizing)
            .map(|(u, p)| u * p)
            .sum();
        if estimate_us >= self.budget.sample_seconds * 1e6 {
            self.close()?;
        }
        Ok(())
    }

    fn close(&mut self) -> Result<(), Error> {
        self.sample_floor()?;
        let n = self.samples.len();
        let (before, after) = (&self.samples[n - 2], &self.samples[n - 1]);
        let floor_us = self
            .open_uses
            .iter()
            .zip(before.iter().zip(after))
            .map(|(u, (a, b))| u * (a + b) / 2.0)
            .sum();
        let start = self.windows.last().map_or(0, |w| w.items.end);
        self.windows.push(Window {
            items: start..self.items,
            work_us: self.open_work_us,
            floor_us,
        });
        self.open_work_us = 0.0;
        self.open_uses.iter_mut().for_each(|u| *u = 0.0);
        Ok(())
    }

    /// Closes the last window (with its floor sample after it).
    ///
    /// # Errors
    /// A floor operation failing.
    pub fn finish(mut self) -> Result<FloorRun, Error> {
        if self.windows.last().map_or(0, |w| w.items.end) < self.items {
            self.close()?;
        }
        let median_us = (0..self.iters.len())
            .map(|k| median(self.samples.iter().map(|s| s[k]).collect()))
            .collect();
        Ok(FloorRun {
            windows: self.windows,
            median_us,
        })
    }
}

/// What an [`Interleaved`] run measured.
#[derive(Debug, Clone)]
pub struct FloorRun {
    /// The windows, in order.
    pub windows: Vec<Window>,
    /// Median µs per call of each floor operation over all samples.
    pub median_us: Vec<f64>,
}

impl FloorRun {
    /// Σ floor cost, each window at its own price, µs.
    pub fn floor_us(&self) -> f64 {
        self.windows.iter().map(|w| w.floor_us).sum()
    }
}

/// Median microseconds per call of `op`.
pub fn single(
    budget: Budget,
    op: &mut dyn FnMut() -> Result<(), SchemeError>,
) -> Result<f64, Error> {
    let n = iterations(op, budget)?;
    let samples = (0..budget.samples)
        .map(|_| sample(op, n))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(median(samples))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_lengths() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(vec![]).is_nan());
    }

    /// A first call slowed (as by a preemption) does not shrink the samples to one
    /// call: the calibration keeps the fastest of several batches.
    #[test]
    fn a_slow_first_call_does_not_shrink_the_samples() {
        let mut first = true;
        let mut op = || {
            if std::mem::take(&mut first) {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            std::hint::black_box(0u64);
            Ok(())
        };
        let n = iterations(&mut op, Budget::QUICK).unwrap();
        assert!(n >= 1000, "{n} calls per sample");
    }

    #[test]
    fn rounds_take_the_runs_in_turn() {
        let order = std::cell::RefCell::new(Vec::new());
        let mut a = || {
            order.borrow_mut().push('a');
            Ok(1.0)
        };
        let mut b = || {
            order.borrow_mut().push('b');
            Ok(2.0)
        };
        let [x, y] = rounds(3, [&mut a, &mut b]).unwrap();
        assert_eq!((x, y), (vec![1.0; 3], vec![2.0; 3]));
        assert_eq!(order.into_inner(), ['a', 'b', 'a', 'b', 'a', 'b']);
    }

    /// Windows close on the floor's estimate of their items, not on the measured
    /// times, and cover every item once, in order.
    #[test]
    fn interleaved_windows_close_on_the_floor_estimate_and_cover_every_item() {
        let calls = std::cell::Cell::new(0u64);
        let mut op = |_| {
            calls.set(std::hint::black_box(calls.get() + 1));
            Ok(())
        };
        let budget = Budget {
            samples: 1,
            sample_seconds: 0.004,
        };
        // Half a second of measured work per item, resting on next to nothing: one
        // window (a window closed on measured time would close after every item).
        let mut run = Interleaved::start(budget, 2, &mut op).unwrap();
        for _ in 0..20 {
            run.record(0.5, &[5.0, 1.0]).unwrap();
        }
        let r = run.finish().unwrap();
        assert_eq!(r.windows.len(), 1);
        assert_eq!(r.windows[0].items, 0..20);
        assert!((r.windows[0].work_us - 1e7).abs() < 1e-3);
        assert!(r.floor_us() > 0.0);
        // Items resting on a billion calls each: every item fills a window.
        let mut run = Interleaved::start(budget, 2, &mut op).unwrap();
        for _ in 0..20 {
            run.record(1e-6, &[1e9, 0.0]).unwrap();
        }
        let r = run.finish().unwrap();
        let items: Vec<_> = r.windows.iter().map(|w| w.items.clone()).collect();
        assert_eq!(items, (0..20).map(|i| i..i + 1).collect::<Vec<_>>());
        assert!(r
            .windows
            .iter()
            .all(|w| w.floor_us > 0.0 && w.work_us == 1.0));
        assert_eq!(
            r.floor_us(),
            r.windows.iter().map(|w| w.floor_us).sum::<f64>()
        );
        assert_eq!(r.median_us.len(), 2);
    }
}
