//! Fused extraction + verification against plain verification in a tight loop, one
//! curve after another: `cargo run --release -p hopsig-schemes --example fused_loop
//! [fused|plain|both] [163|233|283]`. Unlike `hopsig bench table2` it repeats one
//! signature and runs nothing in between, which suits `perf record` on one of the two.

use std::error::Error;
use std::time::Instant;

use hopsig_koblitz::curve::{Curve, K163, K233, K283};
use hopsig_koblitz::tau::{TauTable, FIXED_WIDTH};
use hopsig_schemes::concat::koblitz::verify_der;
use hopsig_schemes::pla::icnr;

const ITERATIONS: u32 = 10_000;

/// µs per call of `op`, which must return true.
fn time(op: &dyn Fn() -> bool) -> Result<f64, Box<dyn Error>> {
    let start = Instant::now();
    for _ in 0..ITERATIONS {
        if !op() {
            return Err("a signature failed to verify".into());
        }
    }
    Ok(start.elapsed().as_secs_f64() * 1e6 / f64::from(ITERATIONS))
}

fn run<C: Curve>(mode: &str) -> Result<(), Box<dyn Error>> {
    let msg = [0x50u8; 100];
    let ttp = icnr::Ttp::<C>::setup()?;
    let table = TauTable::new_vartime(ttp.public(), FIXED_WIDTH);
    let blind = icnr::blind::<C>()?;
    let issued = ttp.issue(b"alice", blind.request())?;
    let key = icnr::finalkey(&blind, &issued, b"alice", ttp.public())?;
    let sig = key.sign(&msg)?;
    let w = *key.public_point();
    for round in 0..2 {
        let fused = if mode == "plain" {
            0.0
        } else {
            time(&|| icnr::verify_fused(b"alice", &issued.cert, &table, &msg, &sig))?
        };
        let plain = if mode == "fused" {
            0.0
        } else {
            time(&|| verify_der(&w, &msg, &sig))?
        };
        println!(
            "{} round {round}: fused {fused:.2} µs, plain {plain:.2} µs, ratio {:.3}",
            C::NAME,
            fused / plain
        );
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "both".into());
    let curve = std::env::args().nth(2).unwrap_or_default();
    let wanted = |m: &str| curve.is_empty() || curve == m;
    if wanted("163") {
        run::<K163>(&mode)?;
    }
    if wanted("233") {
        run::<K233>(&mode)?;
    }
    if wanted("283") {
        run::<K283>(&mode)?;
    }
    Ok(())
}
