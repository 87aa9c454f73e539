//! `hopsig kcx path`: a simulated AS path signed hop by hop with KC-RSA, KC-MT or the
//! hybrid, verified at every hop and at the receiver, with the sizes it reaches.

use hopsig_schemes::kcx::sim::{self, Variant};
use hopsig_schemes::kcx::{HopSig, KcParams};

use clap::ValueEnum;

use crate::io::{note, say, say_json, Failure, Outcome};

/// Keychain signatures for BGP (KC-RSA, KC-MT, hybrid).
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

/// A KC-x realization as `--variant` names it.
#[derive(Clone, Copy, clap::ValueEnum)]
enum VariantName {
    /// Every hop KC-RSA.
    Rsa,
    /// Every hop KC-MT.
    Mt,
    /// KC-RSA on odd hops, KC-MT on even hops.
    Hybrid,
}

impl From<VariantName> for Variant {
    fn from(v: VariantName) -> Self {
        match v {
            VariantName::Rsa => Variant::Rsa,
            VariantName::Mt => Variant::Mt,
            VariantName::Hybrid => Variant::Hybrid,
        }
    }
}

/// A parameter suite as `--suite` names it.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Suite {
    /// RSA-2048, HORS 4096/16: forgery bound 2^-64.
    Modern,
    /// RSA-1024, HORS 512/3: bound 2^-11, to reproduce the paper only (warns).
    Paper,
}

/// The name a value has on the command line.
fn name(value: impl ValueEnum) -> String {
    value
        .to_possible_value()
        .map_or_else(String::new, |v| v.get_name().to_string())
}

#[derive(clap::Subcommand)]
enum Action {
    /// Sign a route hop by hop along a simulated AS path, verify it, report sizes.
    Path {
        /// The realization.
        #[arg(long, value_enum)]
        variant: VariantName,
        /// Number of speakers on the path, origin included (1..=64).
        #[arg(long)]
        hops: usize,
        /// The parameter suite.
        #[arg(long, value_enum, default_value_t = Suite::Modern)]
        suite: Suite,
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
        } => path(variant, hops, suite, json),
    }
}

/// Unix time now, for expiry.
fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Runs the simulation.
fn path(variant: VariantName, hops: usize, suite: Suite, json: bool) -> Outcome {
    let params = match suite {
        Suite::Modern => KcParams::MODERN,
        Suite::Paper => {
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
    };
    if !(1..=hopsig_schemes::kcx::MAX_HOPS).contains(&hops) {
        return Err(Failure::Input(format!(
            "--hops must be 1..={}",
            hopsig_schemes::kcx::MAX_HOPS
        )));
    }
    let t = now();
    let p = sim::path(params, variant.into(), hops, t, t + 86_400)
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
    let (variant, suite) = (name(variant), name(suite));
    if json {
        let value = serde_json::json!({
            "variant": variant, "suite": suite, "hops": hops,
            "path": p.route.path(), "kinds": kinds, "bytes_after_hop": p.sizes,
            "verified": true,
        });
        return say_json(&value);
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
