//! Time-to-forward and time-to-validate per UPDATE (issue 13 §2): every sample kept
//! (nanoseconds: one ECDSA signature takes tens of µs, so whole µs would be too
//! coarse to compare with one), summarised as quantiles in µs to 0.1 µs and
//! power-of-two buckets in the status file.

use std::time::Duration;

use serde_json::{json, Value};

/// Most samples kept; later ones only count.
const MAX_SAMPLES: usize = 4_000_000;

/// A latency histogram.
#[derive(Debug, Default, Clone)]
pub struct Histogram {
    samples: Vec<u64>,
    count: u64,
}

impl Histogram {
    /// Adds one duration.
    pub fn record(&mut self, d: Duration) {
        self.count += 1;
        if self.samples.len() < MAX_SAMPLES {
            self.samples
                .push(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        }
    }

    /// The `f` quantile (0 = min, 1 = max) of the samples kept, in µs.
    pub fn quantile_us(&self, f: f64) -> Option<f64> {
        let mut s = self.samples.clone();
        s.sort_unstable();
        quantile(&s, f)
    }

    /// The status file's object: count, min, median, p90, p99, max (µs, to 0.1 µs)
    /// and buckets `[upper bound µs, count]` with upper bounds 1, 2, 4, … µs.
    pub fn to_json(&self) -> Value {
        let mut s = self.samples.clone();
        s.sort_unstable();
        let q = |f: f64| -> Value {
            quantile(&s, f).map_or(Value::Null, |us| json!((us * 10.0).round() / 10.0))
        };
        let mut buckets: Vec<(u64, u64)> = vec![];
        for &v in &s {
            let bound = v.div_ceil(1000).max(1).next_power_of_two();
            match buckets.last_mut() {
                Some((b, n)) if *b == bound => *n += 1,
                _ => buckets.push((bound, 1)),
            }
        }
        json!({
            "count": self.count,
            "min_us": q(0.0),
            "median_us": q(0.5),
            "p90_us": q(0.9),
            "p99_us": q(0.99),
            "max_us": q(1.0),
            "buckets_us": buckets,
        })
    }
}

/// The `f` quantile of the sorted nanosecond samples `s`, in µs.
fn quantile(s: &[u64], f: f64) -> Option<f64> {
    let i = ((s.len().checked_sub(1)?) as f64 * f).round() as usize;
    s.get(i.min(s.len() - 1)).map(|&ns| ns as f64 / 1000.0)
}
