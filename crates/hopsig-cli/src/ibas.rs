//! The IBAS commands: `pkg setup`, `pkg extract`, and the IBAS branches of `sign`,
//! `verify` and `inspect`. IBAS keys come from a PKG and verifiers name signers by
//! identity, so these do not go through the registry's key-pair interface.

use std::path::{Path, PathBuf};

use hopsig_schemes::ibas::{
    self, journal, FileJournal, IbasAggregate, Identity, Pkg, PublicParams, UserKey,
    MAX_JOURNAL_BYTES,
};
use hopsig_schemes::primitives::armor::KeyFile;
use hopsig_schemes::primitives::persist::create_private_folder;
use hopsig_schemes::{Aggregate, Error, StateError};

use crate::commands::SignOutput;
use crate::io::{outputs, read, with_suffix, Secrecy, MAX_AGGREGATE, MAX_KEY, MAX_MESSAGE};
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
    let secret = dir.join(PKG_SECRET);
    let params = dir.join(PKG_PARAMS);
    let mut files = outputs(force, []);
    files.folder(dir)?;
    files.check(&secret)?;
    files.check(&params)?;
    let pkg = Pkg::setup().map_err(|e| Failure::Input(format!("PKG setup failed: {e}")))?;
    files.add(&secret, pkg.to_key_file().as_bytes(), Secrecy::Secret)?;
    files.add(
        &params,
        pkg.params().to_key_file().as_bytes(),
        Secrecy::Public,
    )?;
    files.commit()?;
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
    let mut files = outputs(force, [path.as_path()]);
    files.add(out, key.to_key_file().as_bytes(), Secrecy::Secret)?;
    files.commit()?;
    println!("{}: IBAS key for identity {identity:?}", out.display());
    Ok(())
}

/// Whether the key file at `text` is an IBAS file.
pub fn is_ibas(text: &[u8]) -> bool {
    KeyFile::parse(text).is_ok_and(|f| f.scheme == ibas::ID)
}

/// The folder IBAS journals live in: `--state-dir`, else `$HOPSIG_STATE_DIR`, else
/// `$XDG_STATE_HOME/hopsig`, else `$HOME/.local/state/hopsig` (XDG Base Directory
/// specification: state that should persist between runs but is not worth a backup
/// of its own).
pub fn state_folder(flag: Option<&Path>) -> Result<PathBuf, Failure> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = flag
        .map(Path::to_path_buf)
        .or_else(|| var("HOPSIG_STATE_DIR"))
    {
        return Ok(dir);
    }
    // The XDG specification ignores a relative XDG_STATE_HOME.
    if let Some(xdg) = var("XDG_STATE_HOME").filter(|p| p.is_absolute()) {
        return Ok(xdg.join("hopsig"));
    }
    var("HOME")
        .map(|home| home.join(".local/state/hopsig"))
        .ok_or_else(|| {
            Failure::Input(
                "no folder for IBAS journals: set HOPSIG_STATE_DIR or HOME, or pass --state-dir or --journal"
                    .into(),
            )
        })
}

/// The IBAS branch of `hopsig sign`. The journal is `--journal FILE`, or the key's own
/// file in the state folder ([`state_folder`], named by `journal::file_name`), so that
/// every copy of a key shares it. A version-1 journal `KEY.wlog` beside the key is
/// imported into it.
pub fn sign(key_path: &Path, msg_path: &Path, agg_path: Option<&Path>, to: &SignOutput) -> Outcome {
    let key =
        UserKey::from_key_file(&key_file(key_path, "key file")?).map_err(|e| input(key_path, e))?;
    let msg = read(msg_path, MAX_MESSAGE, "message")?;
    let so_far = agg_path
        .map(|p| {
            let bytes = read(p, MAX_AGGREGATE, "aggregate")?;
            IbasAggregate::from_bytes(&bytes).map_err(|e| input(p, e))
        })
        .transpose()?;
    let journal_path = match (to.journal, to.state_dir) {
        (Some(_), Some(_)) => {
            return Err(Failure::Input(
                "give --journal FILE or --state-dir DIR, not both".into(),
            ))
        }
        (Some(file), None) => file.to_path_buf(),
        (None, dir) => state_folder(dir)?.join(journal::file_name(&key)),
    };
    let legacy = with_suffix(key_path, ".wlog");
    let inputs = [key_path, msg_path, journal_path.as_path(), legacy.as_path()];
    let mut files = outputs(to.force, inputs.into_iter().chain(agg_path));
    // Before w is claimed: a refusal to write must not cost anything.
    files.check(to.out)?;
    if to.journal.is_none() {
        if let Some(dir) = journal_path.parent() {
            create_private_folder(dir)?;
        }
    }
    let mut journal =
        FileJournal::open(&journal_path, &key).map_err(|e| refused(&journal_path, e))?;
    files.input(&journal_path);
    if to.journal.is_none() && legacy.exists() {
        let text = read(&legacy, MAX_JOURNAL_BYTES, "version-1 IBAS journal")?;
        let added = journal
            .import_v1(&legacy, &text)
            .map_err(|e| refused(&journal_path, e))?;
        if added > 0 {
            eprintln!(
                "hopsig: imported {added} state strings from {} into {}",
                legacy.display(),
                journal_path.display()
            );
        }
    }
    let agg = ibas::sign(&key, &msg, so_far.as_ref(), &mut journal)
        .map_err(|e| refused(&journal_path, e))?;
    let bytes = agg.to_bytes();
    files.add(to.out, &bytes, Secrecy::Public)?;
    files.commit()?;
    println!(
        "{}: {} aggregate, {} signers, {} bytes (w recorded in {})",
        to.out.display(),
        ibas::ID,
        agg.signers(),
        bytes.len(),
        journal_path.display()
    );
    Ok(())
}

/// Why the IBAS signer did not sign: a reused w names the journal that shows it; other
/// state errors name their file themselves.
fn refused(journal: &Path, e: Error) -> Failure {
    match e {
        Error::State(StateError::ReusedW { .. }) => {
            Failure::Input(format!("{}: refusing to sign: {e}", journal.display()))
        }
        Error::State(state) => Failure::Input(state.to_string()),
        other => Failure::Input(format!("signing failed: {other}")),
    }
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
