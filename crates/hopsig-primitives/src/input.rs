//! Input files read within a limit: a regular file of at most so many bytes, read into
//! a buffer zeroized when dropped (it may hold a secret key). The command line's
//! readers and the speaker's (its router keys) share it.

use std::io::{ErrorKind, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use zeroize::Zeroizing;

/// Why an input file was not read: the file and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}", path.display())]
pub struct ReadError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong: cannot be read, not a regular file, too large.
    pub problem: String,
}

/// Reads `path`, refusing anything but a regular file of at most `limit` bytes; `what`
/// names the file in errors.
///
/// The file is opened once (`O_NONBLOCK`, so a FIFO or device does not hold the open
/// up), and what was opened is checked with `fstat`: a regular file within `limit`.
/// The bytes are then read through `take(limit + 1)`, so a file that grows meanwhile,
/// or one that reports a size of 0 (procfs, some FUSE file systems), is never read past
/// the limit. The buffer is sized once from `fstat`; only a file longer than it said
/// makes it grow, each larger buffer replacing a zeroized one, so no copy of a secret
/// is left behind.
///
/// # Errors
/// [`ReadError`]: the file cannot be opened or read, is not a regular file, or is
/// larger than `limit`.
pub fn read_limited(path: &Path, limit: u64, what: &str) -> Result<Zeroizing<Vec<u8>>, ReadError> {
    let at = |problem: String| ReadError {
        path: path.to_path_buf(),
        problem,
    };
    let cannot = |e: std::io::Error| at(format!("cannot read {what}: {e}"));
    let too_large = |len: u64| {
        at(format!(
            "{what} is {len} bytes, more than the {limit} allowed"
        ))
    };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if !meta.is_file() {
        return Err(at(format!("{what} is not a regular file")));
    }
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    let mut source = file.take(limit.saturating_add(1));
    // One byte more than fstat said, to see the end of the file without growing.
    let first = usize::try_from(meta.len() + 1).map_err(|_| too_large(meta.len()))?;
    let mut buf = Zeroizing::new(vec![0u8; first]);
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            let larger = buf
                .len()
                .saturating_mul(2)
                .min(usize::try_from(limit + 1).unwrap_or(usize::MAX));
            if larger <= buf.len() {
                break;
            }
            let mut grown = Zeroizing::new(vec![0u8; larger]);
            grown[..filled].copy_from_slice(&buf[..filled]);
            buf = grown;
        }
        match source.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(cannot(e)),
        }
    }
    if filled as u64 > limit {
        return Err(at(format!(
            "{what} holds more than the {limit} bytes allowed"
        )));
    }
    // Only zeros (never written) lie past `filled`.
    buf.truncate(filled);
    Ok(buf)
}
