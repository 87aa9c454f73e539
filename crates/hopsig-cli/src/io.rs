//! File input and output. Every error names the file; every output goes through
//! [`outputs`].

use std::path::Path;

pub use hopsig_schemes::primitives::persist::{Outputs, Secrecy};
use hopsig_schemes::primitives::persist::{PersistError, Replace};

use crate::Failure;

/// Largest message file read.
pub const MAX_MESSAGE: u64 = 16 << 20;
/// Largest aggregate file read.
pub const MAX_AGGREGATE: u64 = 4 << 20;
/// Largest key file read.
pub const MAX_KEY: u64 = 64 << 10;

/// `path` with `suffix` appended to its last component (`key` → `key.pub`).
pub fn with_suffix(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    std::path::PathBuf::from(p)
}

/// Reads `path`, refusing files over `limit` bytes.
pub fn read(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, Failure> {
    let shown = path.display();
    let meta = std::fs::metadata(path)
        .map_err(|e| Failure::Input(format!("{shown}: cannot read {what}: {e}")))?;
    if !meta.is_file() {
        return Err(Failure::Input(format!(
            "{shown}: {what} is not a regular file"
        )));
    }
    if meta.len() > limit {
        return Err(Failure::Input(format!(
            "{shown}: {what} is {} bytes, more than the {limit} allowed",
            meta.len()
        )));
    }
    std::fs::read(path).map_err(|e| Failure::Input(format!("{shown}: cannot read {what}: {e}")))
}

impl From<PersistError> for Failure {
    fn from(e: PersistError) -> Self {
        match e {
            PersistError::Exists { .. } => {
                Failure::Input(format!("{e} (use --force to overwrite)"))
            }
            other => Failure::Input(other.to_string()),
        }
    }
}

/// The output files of one command that reads `inputs`. Every file hopsig writes goes
/// through it (`hopsig_primitives::persist::Outputs`): written to a temporary file
/// beside it (mode 0600 for secrets), fsynced, placed together with the command's
/// other outputs or not at all; never over an existing file without `--force`, never
/// over one of `inputs` (same device and inode) even with it.
pub fn outputs<'a>(force: bool, inputs: impl IntoIterator<Item = &'a Path>) -> Outputs {
    let mut out = Outputs::new(Replace::from_force(force));
    for input in inputs {
        out.input(input);
    }
    out
}
