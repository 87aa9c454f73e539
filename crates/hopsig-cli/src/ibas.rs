//! The IBAS commands: `pkg setup`, `pkg extract`, and the IBAS branches of `sign`,
//! `verify` and `inspect`. IBAS keys come from a PKG and verifiers name signers by
//! identity, so these do not go through the registry's key-pair interface.

use std::path::{Path, PathBuf};

use hopsig_schemes::ibas::{
    self, FileJournal, IbasAggregate, Identity, Pkg, PublicParams, UserKey,
};
use hopsig_schemes::primitives::armor::KeyFile;
use hopsig_schemes::{Aggregate, Error};

use crate::io::{read, write, MAX_AGGREGATE, MAX_KEY, MAX_MESSAGE};
use crate::{Failure, Outcome};

/// File names inside a PKG folder.
pub const PKG_SECRET: &str = "pkg.key";
/// Public parameters inside a PKG folder.
pub const PKG_PARAMS: &str = "params.pub";

fn input(path: &Path, e: impl std::fmt::Display) -> Failure {
    Failure::Input(format!("{}: {e}", path.display()))
}

fn key_file(path: &Path, what: &str) -> Result<KeyFile, Failure> {
    let text = read(path, MAX_KEY, what)?;
    KeyFile::parse(&text).map_err(|e| input(path, Error::from(e)))
}

/// `hopsig pkg setup --out DIR`.
pub fn setup(dir: &Path, force: bool) -> Outcome {
    std::fs::create_dir_all(dir).map_err(|e| input(dir, format!("cannot create folder: {e}")))?;
    let pkg = Pkg::setup().map_err(|e| Failure::Input(format!("PKG setup failed: {e}")))?;
    let secret = dir.join(PKG_SECRET);
    let params = dir.join(PKG_PARAMS);
    if !force && params.exists() {
        return Err(input(&params, "already exists (use --force to overwrite)"));
    }
    write(&secret, pkg.to_key_file().as_bytes(), true, force)?;
    write(&params, pkg.params().to_key_file().as_bytes(), false, force)?;
    println!("{}: PKG master secret (keep it offline)", secret.display());
    println!(
        "{}: public parameters, fingerprint {}",
        params.display(),
        hex::encode(pkg.params().fingerprint())
    );
    Ok(())
}

/// `hopsig pkg extract --pkg DIR --id ID --out FILE`.
pub fn extract(dir: &Path, identity: &str, out: &Path, force: bool) -> Outcome {
    let path = dir.join(PKG_SECRET);
    let pkg =
        Pkg::from_key_file(&key_file(&path, "PKG secret file")?).map_err(|e| input(&path, e))?;
    let key = pkg
        .extract(identity)
        .map_err(|e| Failure::Input(format!("--id: {e}")))?;
    write(out, key.to_key_file().as_bytes(), true, force)?;
    println!("{}: IBAS key for identity {identity:?}", out.display());
    Ok(())
}

/// Whether the key file at `text` is an IBAS file.
pub fn is_ibas(text: &[u8]) -> bool {
    KeyFile::parse(text).is_ok_and(|f| f.scheme == ibas::ID)
}

/// The journal path used when `--journal` is not given: `KEY.wlog`.
pub fn default_journal(key: &Path) -> PathBuf {
    crate::io::with_suffix(key, ".wlog")
}

/// The IBAS branch of `hopsig sign`.
pub fn sign(
    key_path: &Path,
    msg_path: &Path,
    agg_path: Option<&Path>,
    out: &Path,
    journal: Option<&Path>,
) -> Outcome {
    let key =
        UserKey::from_key_file(&key_file(key_path, "key file")?).map_err(|e| input(key_path, e))?;
    let msg = read(msg_path, MAX_MESSAGE, "message")?;
    let so_far = agg_path
        .map(|p| {
            let bytes = read(p, MAX_AGGREGATE, "aggregate")?;
            IbasAggregate::from_bytes(&bytes).map_err(|e| input(p, e))
        })
        .transpose()?;
    let journal_path = journal.map_or_else(|| default_journal(key_path), Path::to_path_buf);
    let mut journal =
        FileJournal::open(&journal_path).map_err(|e| Failure::Input(e.to_string()))?;
    let agg = ibas::sign(&key, &msg, so_far.as_ref(), &mut journal).map_err(|e| match e {
        Error::State(_) => {
            Failure::Input(format!("{}: refusing to sign: {e}", journal_path.display()))
        }
        other => Failure::Input(format!("signing failed: {other}")),
    })?;
    let bytes = agg.to_bytes();
    write(out, &bytes, false, true)?;
    println!(
        "{}: {} aggregate, {} signers, {} bytes (w recorded in {})",
        out.display(),
        ibas::ID,
        agg.signers(),
        bytes.len(),
        journal_path.display()
    );
    Ok(())
}

/// The IBAS branch of `hopsig verify`: parameters from `--pkg DIR` (its params.pub)
/// or `--params FILE`, signers by `--id`.
pub fn verify(params_path: &Path, ids: &[String], msgs: &[PathBuf], agg_path: &Path) -> Outcome {
    if ids.len() != msgs.len() {
        return Err(Failure::Input(format!(
            "{} --id but {} --msg: give one message per identity, in the same order",
            ids.len(),
            msgs.len()
        )));
    }
    let params = PublicParams::from_key_file(&key_file(params_path, "IBAS parameters file")?)
        .map_err(|e| input(params_path, e))?;
    let identities = ids
        .iter()
        .map(|i| Identity::new(i).map_err(|e| Failure::Input(format!("--id {i:?}: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let messages = msgs
        .iter()
        .map(|p| read(p, MAX_MESSAGE, "message"))
        .collect::<Result<Vec<_>, _>>()?;
    let bytes = read(agg_path, MAX_AGGREGATE, "aggregate")?;
    let agg = IbasAggregate::from_bytes(&bytes).map_err(|e| input(agg_path, e))?;
    if agg.signers() != ids.len() {
        return Err(Failure::Invalid(format!(
            "{} holds {} signatures but {} (identity, message) pairs were given",
            agg_path.display(),
            agg.signers(),
            ids.len()
        )));
    }
    let pairs: Vec<(&Identity, &[u8])> = identities
        .iter()
        .zip(&messages)
        .map(|(i, m)| (i, m.as_slice()))
        .collect();
    match ibas::verify(&params, &pairs, &agg) {
        Ok(()) => {
            println!("valid: {} signers, {}", agg.signers(), ibas::ID);
            Ok(())
        }
        Err(_) => Err(Failure::Invalid(format!(
            "{} does not verify against the {} given (identity, message) pairs under {}",
            agg_path.display(),
            ids.len(),
            params_path.display()
        ))),
    }
}

/// What `hopsig inspect` says about an IBAS key file.
pub fn inspect_key(path: &Path, file: &KeyFile) -> Result<serde_json::Value, Failure> {
    let labels: Vec<&str> = file.blocks.iter().map(|b| b.label.as_str()).collect();
    let (role, detail) = if labels.contains(&"HOPSIG IBAS MASTER SECRET") {
        let pkg = Pkg::from_key_file(file).map_err(|e| input(path, e))?;
        ("pkg", hex::encode(pkg.params().fingerprint()))
    } else if labels.contains(&"HOPSIG IBAS USER KEY") {
        let key = UserKey::from_key_file(file).map_err(|e| input(path, e))?;
        (
            "user key",
            format!(
                "{:?} under {}",
                key.identity(),
                hex::encode(key.params().fingerprint())
            ),
        )
    } else {
        let params = PublicParams::from_key_file(file).map_err(|e| input(path, e))?;
        ("parameters", hex::encode(params.fingerprint()))
    };
    Ok(serde_json::json!({
        "file": "key", "scheme": ibas::ID, "kind": file.kind.as_str(), "role": role,
        "detail": detail, "blocks": labels,
    }))
}

/// What `hopsig inspect` says about an IBAS aggregate.
pub fn inspect_aggregate(path: &Path, bytes: &[u8]) -> Result<serde_json::Value, Failure> {
    let agg = IbasAggregate::from_bytes(bytes).map_err(|e| input(path, e))?;
    Ok(serde_json::json!({
        "file": "aggregate", "scheme": ibas::ID, "signers": agg.signers(),
        "encoded_bytes": bytes.len(), "signature_bits": agg.signature_bits(),
        "w": hex::encode(agg.w()),
    }))
}

/// Resolves `--pkg DIR` / `--params FILE` to the parameters file.
pub fn params_path(pkg: Option<&Path>, params: Option<&Path>) -> Result<PathBuf, Failure> {
    match (pkg, params) {
        (Some(dir), None) => Ok(dir.join(PKG_PARAMS)),
        (None, Some(file)) => Ok(file.to_path_buf()),
        _ => Err(Failure::Input(
            "IBAS verification needs the PKG's parameters: give --pkg DIR or --params FILE".into(),
        )),
    }
}
