//! KC-x Fig. 4 (../shared/papers/001 §V-A.1): KC-MT's initial signing S1, subsequent
//! signing S2, verification V, signature size and Σ over (n, m), with Σ the largest
//! number of signatures keeping the forgery bound (Σ·m/n)^m at or below 2^-11 (the
//! paper's target) and 16-byte nodes; per-UPDATE cost C = 3.7·V + S1/Σ + (1 − 1/Σ)·S2
//! (eq. 5).

use serde::Serialize;

use hopsig_schemes::floors::sha256_one_compression;
use hopsig_schemes::kcx::sim::HorsOps;
use hopsig_schemes::primitives::hors::HorsParams;

use super::Machine;
use crate::table::{Column, Table};
use crate::timer::{single, Budget};
use crate::Error;

/// One (n, m) point.
#[derive(Debug, Clone, Serialize)]
pub struct Point {
    /// Leaves.
    pub n: usize,
    /// Secrets per signature.
    pub m: u8,
    /// Most signatures for a forgery bound ≤ 2^-11.
    pub sigma: u32,
    /// log2 of the bound at that Σ.
    pub forgery_log2: f64,
    /// Initial signing, µs.
    pub s1_us: f64,
    /// Subsequent signing, µs.
    pub s2_us: f64,
    /// Verification, µs.
    pub v_us: f64,
    /// C at L = 3.7, µs.
    pub cost_us: f64,
    /// Mean signature bytes.
    pub signature_bytes: f64,
}

/// The sweep.
#[derive(Debug, Clone, Serialize)]
pub struct Fig4 {
    /// "fig4".
    pub suite: String,
    /// Where it ran.
    pub machine: Machine,
    /// Whether `--quick` was used.
    pub quick: bool,
    /// One SHA-256 compression, µs.
    pub sha256_compression_us: f64,
    /// Points, n then m ascending (the `rows` of ARCHITECTURE.md's JSON shape).
    pub rows: Vec<Point>,
}

/// Largest Σ with (Σ·m/n)^m ≤ 2^-11.
pub fn sigma_for(n: usize, m: u8) -> u32 {
    let bound = (n as f64 / f64::from(m)) * 2f64.powf(-11.0 / f64::from(m));
    bound.floor() as u32
}

impl Fig4 {
    /// Runs the sweep, with progress on stderr.
    ///
    /// # Errors
    /// Timing failures.
    pub fn measure(quick: bool) -> Result<Fig4, Error> {
        let budget = if quick { Budget::QUICK } else { Budget::FULL };
        let compression = single(budget, &mut sha256_one_compression)?;
        let grid: Vec<(u8, u8)> = [8u8, 9, 10, 11]
            .iter()
            .flat_map(|&h| (2u8..=6).map(move |m| (h, m)))
            .collect();
        let mut points = Vec::new();
        for (k, (height, m)) in grid.iter().copied().enumerate() {
            let n = 1usize << height;
            let sigma = sigma_for(n, m);
            tracing::info!("[{}/{}] n = {n}, m = {m}, Σ = {sigma}", k + 1, grid.len());
            if sigma == 0 {
                continue;
            }
            let params = HorsParams {
                height,
                m,
                node_bytes: 16,
                sigma,
            };
            let ops = HorsOps::new(params);
            let s1 = single(budget, &mut || ops.sign_initial())?;
            let s2 = single(budget, &mut || ops.sign_subsequent())?;
            let v = single(budget, &mut || ops.verify())?;
            let sf = f64::from(sigma);
            points.push(Point {
                n,
                m,
                sigma,
                forgery_log2: params.forgery_log2(),
                s1_us: s1,
                s2_us: s2,
                v_us: v,
                cost_us: 3.7 * v + s1 / sf + (1.0 - 1.0 / sf) * s2,
                signature_bytes: ops.mean_signature_bytes(256),
            });
        }
        Ok(Fig4 {
            suite: "fig4".into(),
            machine: Machine::detect(),
            quick,
            sha256_compression_us: compression,
            rows: points,
        })
    }

    /// A plain-text table.
    pub fn render(&self) -> String {
        let mut out = format!(
            "Fig. 4 (KC-MT over (n, m), 16-byte nodes, Σ for forgery ≤ 2^-11), measured on {}; SHA-256 compression {:.3} µs\n\n",
            self.machine.cpu, self.sha256_compression_us
        );
        let mut t = Table::new(
            &[
                Column::right("n", 5),
                Column::right("m", 2),
                Column::right("Σ", 5),
                Column::right("log2 p", 8),
                Column::right("S1 µs", 9),
                Column::right("S2 µs", 8),
                Column::right("V µs", 8),
                Column::right("C(3.7) µs", 10),
                Column::right("sig bytes", 10),
            ],
            "",
        );
        for p in &self.rows {
            t.row([
                p.n.to_string(),
                p.m.to_string(),
                p.sigma.to_string(),
                format!("{:.2}", p.forgery_log2),
                format!("{:.1}", p.s1_us),
                format!("{:.2}", p.s2_us),
                format!("{:.2}", p.v_us),
                format!("{:.2}", p.cost_us),
                format!("{:.0}", p.signature_bytes),
            ]);
        }
        out += &t.render();
        if let Some(best) = self
            .rows
            .iter()
            .min_by(|a, b| a.cost_us.total_cmp(&b.cost_us))
        {
            out.push_str(&format!(
                "\nlowest C(3.7): (n, m) = ({}, {}) at {:.2} µs (the paper found (512, 3))\n",
                best.n, best.m, best.cost_us
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::sigma_for;

    #[test]
    fn sigma_matches_the_paper_set_and_the_bound() {
        assert_eq!(sigma_for(512, 3), 13);
        for (n, m) in [(256usize, 6u8), (1024, 2), (2048, 4)] {
            let s = f64::from(sigma_for(n, m));
            let bound = |s: f64| f64::from(m) * (s * f64::from(m) / n as f64).log2();
            assert!(bound(s) <= -11.0 && bound(s + 1.0) > -11.0);
        }
    }
}
