//! `hopsig kcx path`: a simulated AS path signed hop by hop with KC-RSA, KC-MT or the
//! hybrid, verified at every hop and at the receiver, with the sizes it reaches.

use hopsig_schemes::kcx::sim::{self, Variant};
use hopsig_schemes::kcx::{HopSig, KcParams};

use crate::{Failure, Outcome};

/// Unix time now, for expiry.
fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Runs the simulation.
pub fn path(variant: &str, hops: usize, suite: &str, json: bool) -> Outcome {
    let v = Variant::parse(variant).ok_or_else(|| {
        Failure::Input(format!(
            "--variant must be rsa, mt or hybrid, not {variant:?}"
        ))
    })?;
    let params = match suite {
        "modern" => KcParams::MODERN,
        "paper" => {
            // The paper's parameters are offered to reproduce it, not to protect routes.
            let p = KcParams::PAPER;
            eprintln!(
                "hopsig: warning: the paper suite (RSA-{}, HORS {}/{}) bounds a KC-MT forgery only by 2^{:.1} per attempt after Σ = {} signatures; use --suite modern to protect routes",
                p.rsa_bits,
                p.hors.leaves(),
                p.hors.m,
                p.hors.forgery_log2(),
                p.hors.sigma
            );
            p
        }
        other => {
            return Err(Failure::Input(format!(
                "--suite must be modern or paper, not {other:?}"
            )))
        }
    };
    if !(1..=hopsig_schemes::kcx::MAX_HOPS).contains(&hops) {
        return Err(Failure::Input(format!(
            "--hops must be 1..={}",
            hopsig_schemes::kcx::MAX_HOPS
        )));
    }
    let t = now();
    let p = sim::path(params, v, hops, t, t + 86_400)
        .map_err(|e| Failure::Input(format!("simulation failed: {e}")))?;
    let kinds: Vec<&str> = p
        .route
        .hops
        .iter()
        .map(|h| match h.sig {
            HopSig::Origin => "origin",
            HopSig::Rsa => "kc-rsa",
            HopSig::Mt(_) => "kc-mt",
        })
        .collect();
    if json {
        let value = serde_json::json!({
            "variant": variant, "suite": suite, "hops": hops,
            "path": p.route.path(), "kinds": kinds, "bytes_after_hop": p.sizes,
            "verified": true,
        });
        println!("{value}");
    } else {
        println!("KC-x {variant} path, {suite} suite, {hops} hops: every hop verified what it received; the receiver AS{} verified the result", sim::RECEIVER);
        println!(
            "{:>4}  {:>8}  {:>8}  {:>14}",
            "hop", "AS", "signed", "bytes after"
        );
        for (i, ((asn, kind), size)) in p.route.path().iter().zip(&kinds).zip(&p.sizes).enumerate()
        {
            println!("{i:>4}  {asn:>8}  {kind:>8}  {size:>14}");
        }
    }
    Ok(())
}
