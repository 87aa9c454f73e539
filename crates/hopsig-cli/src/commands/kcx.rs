//! `hopsig kcx path`: a simulated AS path signed hop by hop with KC-RSA, KC-MT or the
//! hybrid, verified at every hop and at the receiver, with the sizes it reaches.

use hopsig_schemes::kcx::sim::{self, Variant};
use hopsig_schemes::kcx::{HopSig, KcParams};

use crate::io::{note, say, Failure, Outcome};

/// Keychain signatures for BGP (KC-RSA, KC-MT, hybrid).
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Sign a route hop by hop along a simulated AS path, verify it, report sizes.
    Path {
        /// rsa, mt or hybrid.
        #[arg(long)]
        variant: String,
        /// Number of speakers on the path, origin included (1..=64).
        #[arg(long)]
        hops: usize,
        /// modern (RSA-2048, HORS 4096/16: forgery bound 2^-64) or paper (RSA-1024,
        /// HORS 512/3: bound 2^-11, to reproduce the paper only; warns on stderr).
        #[arg(long, default_value = "modern")]
        suite: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Runs the action.
pub fn run(args: Args) -> Outcome {
    match args.action {
        Action::Path {
            variant,
            hops,
            suite,
            json,
        } => path(&variant, hops, &suite, json),
    }
}

/// Unix time now, for expiry.
fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Runs the simulation.
fn path(variant: &str, hops: usize, suite: &str, json: bool) -> Outcome {
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
            note(format_args!(
                "hopsig: warning: the paper suite (RSA-{}, HORS {}/{}) bounds a KC-MT forgery only by 2^{:.1} per attempt after Σ = {} signatures; use --suite modern to protect routes",
                p.rsa_bits,
                p.hors.leaves(),
                p.hors.m,
                p.hors.forgery_log2(),
                p.hors.sigma
            ));
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
        return say(value);
    }
    say(format_args!("KC-x {variant} path, {suite} suite, {hops} hops: every hop verified what it received; the receiver AS{} verified the result", sim::RECEIVER))?;
    say(format_args!(
        "{:>4}  {:>8}  {:>8}  {:>14}",
        "hop", "AS", "signed", "bytes after"
    ))?;
    for (i, ((asn, kind), size)) in p.route.path().iter().zip(&kinds).zip(&p.sizes).enumerate() {
        say(format_args!("{i:>4}  {asn:>8}  {kind:>8}  {size:>14}"))?;
    }
    Ok(())
}
