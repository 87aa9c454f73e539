//! `hopsig verify`: an aggregate against its signers' (key, message) pairs, or for
//! `ibas-bls12381` (identity, message) pairs under a PKG's parameters. Exit codes
//! follow `docs/spec/aggregate.md`, "Verifier outcomes".

use std::path::{Path, PathBuf};

use hopsig_schemes::ibas::{self, IbasAggregate, Identity, PublicParams};
use hopsig_schemes::registry::DynVerifyingKey;
use hopsig_schemes::{Aggregate, Error};

use super::pkg::PKG_PARAMS;
use crate::io::{
    at, read, read_key_file, say, Failure, Outcome, MAX_AGGREGATE, MAX_KEY, MAX_MESSAGE,
};

/// Verify an aggregate against ordered (public key, message) pairs, first signer
/// first; for ibas-bls12381, (identity, message) pairs in any order under a PKG's
/// parameters. Exit 0 valid, 1 invalid (it decodes but fails verification), 2 input
/// that does not decode or bad usage.
#[derive(clap::Args)]
#[command(after_help = crate::io::LIMITS)]
pub struct Args {
    /// Scheme id.
    #[arg(long)]
    scheme: String,
    /// Public key file of signer i (repeat, in signing order): a hopsig .pub file, or
    /// a plain SubjectPublicKeyInfo key (PEM or DER) for the schemes whose keys are
    /// standard (RSA and ECDSA concatenations, BGR).
    #[arg(long = "pub")]
    pubs: Vec<PathBuf>,
    /// IBAS: identity of a signer (repeat, in any order: the aggregate is a sum;
    /// each --id goes with the --msg at the same position; each identity once).
    #[arg(long = "id")]
    ids: Vec<String>,
    /// IBAS: PKG folder whose params.pub holds the public parameters.
    #[arg(long, conflicts_with = "params")]
    pkg: Option<PathBuf>,
    /// IBAS: the public parameters file itself (instead of --pkg).
    #[arg(long)]
    params: Option<PathBuf>,
    /// Message file of signer i (repeat, in the order of --pub, or of --id for IBAS).
    #[arg(long = "msg", required = true)]
    msgs: Vec<PathBuf>,
    /// Aggregate file. For the concatenation schemes a bare signature (DER ECDSA, or
    /// the 256 bytes of RSA, with no hopsig header) is an aggregate of one signer.
    #[arg(long)]
    agg: PathBuf,
}

/// Verifies; prints `valid: …` (exit 0) or `invalid: …` (exit 1).
pub fn run(args: Args) -> Outcome {
    if args.scheme == ibas::ID {
        return verify_ibas(&args);
    }
    if !args.ids.is_empty() || args.pkg.is_some() || args.params.is_some() {
        return Err(Failure::Input(format!(
            "--id, --pkg and --params are for ibas-bls12381; {} takes --pub",
            args.scheme
        )));
    }
    let (pubs, msgs, agg_path) = (&args.pubs, &args.msgs, args.agg.as_path());
    if pubs.is_empty() {
        return Err(Failure::Input(
            "give the signers' public keys with --pub, in signing order".into(),
        ));
    }
    if pubs.len() != msgs.len() {
        return Err(Failure::Input(format!(
            "{} --pub but {} --msg: give one message per public key, in signing order",
            pubs.len(),
            msgs.len()
        )));
    }
    let s = super::scheme(&args.scheme)?;
    let keys = pubs
        .iter()
        .map(|p| {
            let text = read(p, MAX_KEY, "public key file")?;
            s.verifying_key_from_file(&text).map_err(|e| at(p, e))
        })
        .collect::<Result<Vec<Box<dyn DynVerifyingKey>>, _>>()?;
    let messages = read_messages(msgs)?;
    let agg = read(agg_path, MAX_AGGREGATE, "aggregate")?;
    // Decoded once: its signer count here, the same value verified below.
    let decoded = s.decode(&agg).map_err(|e| at(agg_path, e))?;
    let info = decoded.info();
    if info.signers != keys.len() {
        return Err(count_mismatch(agg_path, info.signers, keys.len(), "key"));
    }
    let key_refs: Vec<&dyn DynVerifyingKey> = keys.iter().map(AsRef::as_ref).collect();
    let msg_refs: Vec<&[u8]> = messages.iter().map(Vec::as_slice).collect();
    match s.verify_decoded(&key_refs, &msg_refs, &decoded) {
        Ok(()) => say(format_args!(
            "valid: {} signers, {}",
            info.signers, info.scheme
        )),
        Err(Error::InvalidSignature) => Err(Failure::Invalid(format!(
            "{} does not verify against the {} given (key, message) pairs",
            agg_path.display(),
            keys.len()
        ))),
        Err(e) => Err(at(agg_path, e)),
    }
}

fn read_messages(paths: &[PathBuf]) -> Result<Vec<Vec<u8>>, Failure> {
    paths
        .iter()
        .map(|p| read(p, MAX_MESSAGE, "message"))
        .collect()
}

/// A well-formed aggregate of another number of signers than pairs given: invalid.
fn count_mismatch(agg: &Path, signers: usize, pairs: usize, what: &str) -> Failure {
    Failure::Invalid(format!(
        "{} holds {signers} signatures but {pairs} ({what}, message) pairs were given",
        agg.display()
    ))
}

/// The IBAS verifier: parameters from `--pkg DIR` (its params.pub) or `--params FILE`,
/// signers by `--id`.
fn verify_ibas(args: &Args) -> Outcome {
    if !args.pubs.is_empty() {
        return Err(Failure::Input(
            "ibas-bls12381 names signers with --id, not --pub".into(),
        ));
    }
    let params_path = match (&args.pkg, &args.params) {
        (Some(dir), _) => dir.join(PKG_PARAMS),
        (None, Some(file)) => file.clone(),
        (None, None) => {
            return Err(Failure::Input(
                "IBAS verification needs the PKG's parameters: give --pkg DIR or --params FILE"
                    .into(),
            ))
        }
    };
    let (ids, agg_path) = (&args.ids, args.agg.as_path());
    if ids.len() != args.msgs.len() {
        return Err(Failure::Input(format!(
            "{} --id but {} --msg: give one message per identity, in the same order",
            ids.len(),
            args.msgs.len()
        )));
    }
    let params = read_key_file(
        &params_path,
        "IBAS parameters file",
        PublicParams::from_key_file,
    )?;
    let identities = ids
        .iter()
        .map(|i| Identity::new(i).map_err(|e| Failure::Input(format!("--id {i:?}: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let messages = read_messages(&args.msgs)?;
    let bytes = read(agg_path, MAX_AGGREGATE, "aggregate")?;
    let agg = IbasAggregate::from_bytes(&bytes).map_err(|e| at(agg_path, e))?;
    if agg.signers() != ids.len() {
        return Err(count_mismatch(
            agg_path,
            agg.signers(),
            ids.len(),
            "identity",
        ));
    }
    // Invalid like any other (identity, message) list the aggregate cannot match
    // (ibas.md, "Verification", step 1), but the message says which identity repeats.
    if let Some((i, id)) = ids
        .iter()
        .enumerate()
        .find(|(i, id)| ids[..*i].contains(id))
    {
        return Err(Failure::Invalid(format!(
            "{} cannot verify: --id {id:?} is given twice (positions {} and {}), and an identity signs an aggregate at most once",
            agg_path.display(),
            ids.iter().position(|x| x == id).map_or(0, |p| p + 1),
            i + 1
        )));
    }
    let pairs: Vec<(&Identity, &[u8])> = identities
        .iter()
        .zip(&messages)
        .map(|(i, m)| (i, m.as_slice()))
        .collect();
    match ibas::verify(&params, &pairs, &agg) {
        Ok(()) => say(format_args!(
            "valid: {} signers, {}",
            agg.signers(),
            ibas::ID
        )),
        Err(_) => Err(Failure::Invalid(format!(
            "{} does not verify against the {} given (identity, message) pairs under {}",
            agg_path.display(),
            ids.len(),
            params_path.display()
        ))),
    }
}
