//! Timing: medians of alternating samples.
//!
//! A scheme operation and the primitive it is built on (its floor) are sampled in turn,
//! so both see the same machine state and their ratio stays meaningful on a noisy host.

use std::time::Instant;

use hopsig_schemes::Error;

use crate::io::Failure;

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

fn fail(e: Error) -> Failure {
    Failure::Input(format!("benchmark operation failed: {e}"))
}

fn iterations(f: &mut dyn FnMut() -> Result<(), Error>, budget: Budget) -> Result<u32, Failure> {
    let t = Instant::now();
    f().map_err(fail)?;
    let once = t.elapsed().as_secs_f64().max(1e-9);
    Ok(((budget.sample_seconds / once) as u32).clamp(1, 1_000_000))
}

fn sample(f: &mut dyn FnMut() -> Result<(), Error>, iters: u32) -> Result<f64, Failure> {
    let t = Instant::now();
    for _ in 0..iters {
        f().map_err(fail)?;
    }
    Ok(t.elapsed().as_secs_f64() * 1e6 / f64::from(iters))
}

fn median(mut v: Vec<f64>) -> f64 {
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
    op: &mut dyn FnMut() -> Result<(), Error>,
    floor: &mut dyn FnMut() -> Result<(), Error>,
) -> Result<(f64, f64), Failure> {
    let (n_op, n_floor) = (iterations(op, budget)?, iterations(floor, budget)?);
    let mut a = Vec::with_capacity(budget.samples);
    let mut b = Vec::with_capacity(budget.samples);
    for _ in 0..budget.samples {
        a.push(sample(op, n_op)?);
        b.push(sample(floor, n_floor)?);
    }
    Ok((median(a), median(b)))
}

/// Median microseconds per call of `op`.
pub fn single(budget: Budget, op: &mut dyn FnMut() -> Result<(), Error>) -> Result<f64, Failure> {
    let n = iterations(op, budget)?;
    let samples = (0..budget.samples)
        .map(|_| sample(op, n))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(median(samples))
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn median_of_odd_and_even_lengths() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
