//! The key, sign, verify and inspect commands. No cryptography here: everything goes
//! through `hopsig_schemes::registry`.

use std::path::{Path, PathBuf};

use hopsig_schemes::primitives::armor::KeyFile;
use hopsig_schemes::registry::{self, DynVerifyingKey};
use hopsig_schemes::Error;

use crate::io::{outputs, read, Secrecy, MAX_AGGREGATE, MAX_KEY, MAX_MESSAGE};
use crate::{Failure, Outcome};

fn input(path: &Path, e: Error) -> Failure {
    Failure::Input(format!("{}: {e}", path.display()))
}

fn scheme(id: &str) -> Result<Box<dyn registry::Scheme>, Failure> {
    registry::lookup(id).map_err(|e| Failure::Input(e.to_string()))
}

/// `hopsig schemes`: the scheme table.
pub fn schemes(json: bool) -> Outcome {
    let list = &registry::ALL_SCHEMES;
    if json {
        let rows: Vec<_> = list
            .iter()
            .map(|e| serde_json::json!({ "id": e.id, "description": e.description }))
            .collect();
        println!("{}", serde_json::Value::Array(rows));
    } else {
        let width = list.iter().map(|e| e.id.len()).max().unwrap_or(0);
        for e in list {
            println!("{:width$}  {}", e.id, e.description);
        }
        let mut aliases = Vec::new();
        let mut range = None;
        for e in list {
            if let registry::Param::RandomR { bits, .. } = &e.param {
                aliases.push(format!("{}-rBITS", e.id));
                range = Some(bits);
            }
        }
        if let Some(bits) = range {
            println!(
                "\n{} select the basic scheme with ℓ_r = BITS ({}..={}, multiple of 8).",
                aliases.join(" / "),
                bits.start(),
                bits.end()
            );
        }
    }
    Ok(())
}

/// `hopsig keygen`.
pub fn keygen(id: &str, out: &Path, force: bool) -> Outcome {
    let s = scheme(id)?;
    let pub_out = crate::io::with_suffix(out, ".pub");
    let mut files = outputs(force, []);
    files.check(out)?;
    files.check(&pub_out)?;
    let key = s
        .generate()
        .map_err(|e| Failure::Input(format!("key generation failed: {e}")))?;
    let secret = key
        .to_key_file()
        .map_err(|e| Failure::Input(e.to_string()))?;
    let public = key.verifying_key().to_key_file();
    files.add(out, secret.as_bytes(), Secrecy::Secret)?;
    files.add(&pub_out, public.as_bytes(), Secrecy::Public)?;
    files.commit()?;
    println!("{}: secret key ({})", out.display(), s.id());
    println!("{}: public key", pub_out.display());
    Ok(())
}

/// Where `hopsig sign` writes and what it may not write over.
pub struct SignOutput<'a> {
    /// `--out`.
    pub out: &'a Path,
    /// `--force`.
    pub force: bool,
    /// IBAS: `--journal`.
    pub journal: Option<&'a Path>,
    /// IBAS: `--state-dir`.
    pub state_dir: Option<&'a Path>,
}

/// `hopsig sign`.
pub fn sign(key_path: &Path, msg_path: &Path, agg_path: Option<&Path>, to: &SignOutput) -> Outcome {
    let text = read(key_path, MAX_KEY, "key file")?;
    if crate::ibas::is_ibas(&text) {
        return crate::ibas::sign(key_path, msg_path, agg_path, to);
    }
    if to.journal.is_some() || to.state_dir.is_some() {
        return Err(Failure::Input(
            "--journal and --state-dir are for ibas-bls12381 keys only".into(),
        ));
    }
    let out = to.out;
    let mut files = outputs(
        to.force,
        [Some(key_path), Some(msg_path), agg_path]
            .into_iter()
            .flatten(),
    );
    files.check(out)?;
    let (s, _) = registry::for_key_file(&text).map_err(|e| input(key_path, e))?;
    let key = s
        .signing_key_from_file(&text)
        .map_err(|e| input(key_path, e))?;
    let msg = read(msg_path, MAX_MESSAGE, "message")?;
    let so_far = agg_path
        .map(|p| read(p, MAX_AGGREGATE, "aggregate").map(|b| (p, b)))
        .transpose()?;
    let agg = s
        .sign(
            key.as_ref(),
            &msg,
            so_far.as_ref().map(|(_, b)| b.as_slice()),
        )
        .map_err(|e| match (&so_far, &e) {
            (
                Some((p, _)),
                Error::Decode(_)
                | Error::AggregateForOtherScheme { .. }
                | Error::TooManySigners { .. },
            ) => input(p, e),
            _ => Failure::Input(format!("signing failed: {e}")),
        })?;
    files.add(out, &agg, Secrecy::Public)?;
    files.commit()?;
    let info = s.inspect(&agg).map_err(|e| Failure::Input(e.to_string()))?;
    println!(
        "{}: {} aggregate, {} signers, {} bytes",
        out.display(),
        info.scheme,
        info.signers,
        info.encoded_bytes
    );
    Ok(())
}

/// `hopsig verify`.
pub fn verify(id: &str, pubs: &[PathBuf], msgs: &[PathBuf], agg_path: &Path) -> Outcome {
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
    let s = scheme(id)?;
    let keys = pubs
        .iter()
        .map(|p| {
            let text = read(p, MAX_KEY, "public key file")?;
            s.verifying_key_from_file(&text).map_err(|e| input(p, e))
        })
        .collect::<Result<Vec<Box<dyn DynVerifyingKey>>, _>>()?;
    let messages = msgs
        .iter()
        .map(|p| read(p, MAX_MESSAGE, "message"))
        .collect::<Result<Vec<_>, _>>()?;
    let agg = read(agg_path, MAX_AGGREGATE, "aggregate")?;
    let info = s.inspect(&agg).map_err(|e| input(agg_path, e))?;
    if info.signers != keys.len() {
        return Err(Failure::Invalid(format!(
            "{} holds {} signatures but {} (key, message) pairs were given",
            agg_path.display(),
            info.signers,
            keys.len()
        )));
    }
    let key_refs: Vec<&dyn DynVerifyingKey> = keys.iter().map(AsRef::as_ref).collect();
    let msg_refs: Vec<&[u8]> = messages.iter().map(Vec::as_slice).collect();
    match s.verify(&key_refs, &msg_refs, &agg) {
        Ok(()) => {
            println!("valid: {} signers, {}", info.signers, info.scheme);
            Ok(())
        }
        Err(Error::InvalidSignature) => Err(Failure::Invalid(format!(
            "{} does not verify against the {} given (key, message) pairs",
            agg_path.display(),
            keys.len()
        ))),
        Err(e) => Err(input(agg_path, e)),
    }
}

/// `hopsig inspect`.
pub fn inspect(path: &Path, json: bool) -> Outcome {
    let bytes = read(path, MAX_AGGREGATE, "file")?;
    let value = if KeyFile::sniff(&bytes) && crate::ibas::is_ibas(&bytes) {
        let file = KeyFile::parse(&bytes).map_err(|e| input(path, e.into()))?;
        crate::ibas::inspect_key(path, &file)?
    } else if KeyFile::sniff(&bytes) {
        let (s, kind) = registry::for_key_file(&bytes).map_err(|e| input(path, e))?;
        let file = KeyFile::parse(&bytes).map_err(|e| input(path, e.into()))?;
        match kind {
            hopsig_schemes::primitives::armor::KeyKind::Secret => {
                s.signing_key_from_file(&bytes).map(|_| ())
            }
            hopsig_schemes::primitives::armor::KeyKind::Public => {
                s.verifying_key_from_file(&bytes).map(|_| ())
            }
        }
        .map_err(|e| input(path, e))?;
        let blocks: Vec<&str> = file.blocks.iter().map(|b| b.label.as_str()).collect();
        serde_json::json!({ "file": "key", "scheme": s.id(), "kind": kind.as_str(), "blocks": blocks, "bytes": bytes.len() })
    } else if hopsig_schemes::wire::Header::peek(&bytes)
        .is_ok_and(|h| h.code == hopsig_schemes::wire::SchemeCode::IbasBls12381)
    {
        crate::ibas::inspect_aggregate(path, &bytes)?
    } else {
        let s = registry::for_aggregate(&bytes).map_err(|e| input(path, e))?;
        let info = s.inspect(&bytes).map_err(|e| input(path, e))?;
        serde_json::json!({
            "file": "aggregate", "scheme": info.scheme, "signers": info.signers,
            "encoded_bytes": info.encoded_bytes, "signature_bits": info.signature_bits,
        })
    };
    if json {
        println!("{value}");
    } else if let Some(map) = value.as_object() {
        for (k, v) in map {
            println!(
                "{k:>15}: {}",
                v.as_str().map_or_else(|| v.to_string(), str::to_string)
            );
        }
    }
    Ok(())
}
