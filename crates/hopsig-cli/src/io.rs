//! File input and output. Every error names the file.

use std::io::Write;
use std::path::Path;

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

/// Writes `bytes` to `path` (mode 0600 when `secret`), refusing to overwrite unless
/// `force`.
pub fn write(path: &Path, bytes: &[u8], secret: bool, force: bool) -> Result<(), Failure> {
    let shown = path.display();
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true);
    if force {
        opts.create(true).truncate(true);
    } else {
        opts.create_new(true);
    }
    #[cfg(unix)]
    if secret {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = secret;
    let mut f = opts.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => Failure::Input(format!(
            "{shown}: already exists (use --force to overwrite)"
        )),
        _ => Failure::Input(format!("{shown}: cannot write: {e}")),
    })?;
    f.write_all(bytes)
        .map_err(|e| Failure::Input(format!("{shown}: cannot write: {e}")))
}
