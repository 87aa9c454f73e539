//! Input files: opened without waiting on a FIFO and checked on the handle to be
//! regular files ([`open_regular`]), and read within a limit into a buffer zeroized
//! when dropped, as it may hold a secret key ([`read_limited`]). The command line's
//! readers, the speaker's (its router keys) and the streamed inputs of
//! [`crate::progress::open_counted`] share it.

use std::fs::{File, Metadata};
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

/// Opens `path` for reading (`what` names it in errors) without waiting on a FIFO
/// (`O_NONBLOCK`, which a regular file ignores) and checks on the handle that it is a
/// regular file: the file and its metadata.
///
/// # Errors
/// [`ReadError`]: it cannot be opened or its metadata read, or it is not a regular
/// file.
pub fn open_regular(path: &Path, what: &str) -> Result<(File, Metadata), ReadError> {
    let at = |problem: String| ReadError {
        path: path.to_path_buf(),
        problem,
    };
    let cannot = |e: std::io::Error| at(format!("cannot read {what}: {e}"));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if !meta.is_file() {
        return Err(at(format!("{what} is not a regular file")));
    }
    Ok((file, meta))
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
    let (file, meta) = open_regular(path, what)?;
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
