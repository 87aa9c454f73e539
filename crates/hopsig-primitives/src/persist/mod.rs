//! Crash-safe files: every byte hopsig keeps on disk goes through this module.
//!
//! Two kinds of state, one discipline (the one cargo and git follow):
//!
//! * [`Outputs`] — the files one command produces (a key and its `.pub`, a PKG folder,
//!   an aggregate, a benchmark report). Each file is written to a temporary file
//!   created exclusively in the destination's own folder (mode 0600 for secrets, set
//!   on the descriptor before the first byte), fsynced, then moved into place, and the
//!   folder is fsynced. Several files are placed together or not at all. An existing
//!   file is never replaced without [`Replace::Force`], and never — even with it — when
//!   it is one of the command's inputs (same device and inode, so a hard link or a
//!   symlink to an input counts as the input), nor when it is not a regular file (a
//!   symlink, device, FIFO or socket).
//! * [`Log`] — an append-only journal of text lines, in memory or in a file, for signer
//!   state that must never go backwards: HORS signature counters
//!   ([`crate::hors::Counter`]) and the IBAS state-string journal. A file log is locked
//!   (`flock`) across read, check and append; each entry is one `write`, fsynced before
//!   the caller goes on; the folder is fsynced when the log is created; symlinks and
//!   special files are refused and the size is capped.
//!
//! POSIX only: file modes, inode numbers, `flock` and hard links.

use std::ffi::OsString;
use std::fs::{DirBuilder, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why a file could not be written, or a log read or appended to. Every variant names
/// the file.
#[derive(Debug, thiserror::Error)]
pub enum PersistError {
    /// The destination exists and replacing was not allowed.
    #[error("{}: already exists", path.display())]
    Exists {
        /// The destination.
        path: PathBuf,
    },
    /// The destination is (a link to) one of the command's own inputs.
    #[error("{}: is also an input of this command ({}); refusing to write over it", path.display(), input.display())]
    IsInput {
        /// The destination.
        path: PathBuf,
        /// The input it is the same file as.
        input: PathBuf,
    },
    /// The destination exists but is not a regular file: a symlink, device, FIFO or
    /// socket is never replaced, even with [`Replace::Force`] (replacing the name would
    /// not write where it leads, and `/dev/null` or `/dev/stdout` must stay what they
    /// are).
    #[error("{}: is a {what}, not a regular file; an output replaces only a regular file", path.display())]
    NotRegularOutput {
        /// The destination.
        path: PathBuf,
        /// What it is ("FIFO", "symbolic link to a character device", ...).
        what: String,
    },
    /// An operating-system call failed.
    #[error("{}: cannot {action}: {source}", path.display())]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// What was being done, as a verb phrase ("write", "lock", ...).
        action: &'static str,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// A log is a symlink, a folder, a device, a FIFO or a socket.
    #[error("{}: not a regular file (a journal must not be a symlink, folder, device or FIFO)", path.display())]
    NotRegular {
        /// The file.
        path: PathBuf,
    },
    /// A log would grow past its size limit.
    #[error("{}: {len} bytes, more than the {max} this journal may hold", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size (after the append that was refused).
        len: u64,
        /// The limit.
        max: u64,
    },
    /// A log's first line is not the header its owner expects: another kind of file,
    /// or the log of another owner (the journal of another key).
    #[error("{}: {}", path.display(), header_mismatch(what, expected, found.as_deref()))]
    Header {
        /// The file.
        path: PathBuf,
        /// What the log is ("an IBAS journal").
        what: &'static str,
        /// The owner expected after the header's kind.
        expected: String,
        /// The owner the first line names, when it starts with the header's kind (a
        /// log of this kind but of another owner; at most 200 characters of it).
        /// `None` for any other file, of which nothing is quoted: it may hold a secret.
        found: Option<String>,
    },
    /// There is no log at the path yet (no file, or no complete header in it), and
    /// starting one was not allowed ([`NewLog::Refused`]).
    #[error("{}: no {} here yet", path.display(), what.split_once(' ').map_or(*what, |(_, w)| w))]
    NoLog {
        /// The file.
        path: PathBuf,
        /// What the log is ("an IBAS journal").
        what: &'static str,
    },
    /// A log's name no longer leads to the file opened: it was moved, removed or
    /// replaced since (appending would write where no later reader looks).
    #[error("{}: moved, removed or replaced since it was opened; open it again", path.display())]
    Replaced {
        /// The file.
        path: PathBuf,
    },
    /// A line of a log is malformed.
    #[error("{}: line {line}: {reason}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// Line number, 1 for the header.
        line: usize,
        /// What is wrong.
        reason: String,
    },
}

/// The text of [`PersistError::Header`].
fn header_mismatch(what: &str, expected: &str, found: Option<&str>) -> String {
    match found {
        Some(owner) => format!("{what} of {owner:?}, not of {expected:?}"),
        None => format!("not {what}"),
    }
}

fn io_error<'a>(
    path: &'a Path,
    action: &'static str,
) -> impl FnOnce(io::Error) -> PersistError + 'a {
    move |source| PersistError::Io {
        path: path.to_path_buf(),
        action,
        source,
    }
}

/// What a file that is not a regular file is, in messages.
fn kind_of(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_symlink() {
        "symbolic link"
    } else if t.is_dir() {
        "folder"
    } else if t.is_fifo() {
        "FIFO"
    } else if t.is_socket() {
        "socket"
    } else if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else {
        "special file"
    }
}

/// Who may read a file hopsig writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Secrecy {
    /// Mode 0666 less the umask, as any new file.
    Public,
    /// Mode 0600, set on the descriptor before any byte is written, whatever the umask
    /// and whatever the mode of a file it replaces.
    Secret,
}

/// Whether an existing destination may be replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replace {
    /// Never: an existing file (or symlink) at the destination is an error, even one
    /// that appears while the outputs are being placed.
    Never,
    /// Replace it (`--force`) if it is a regular file; inputs are still protected, and
    /// a symlink, device, FIFO or socket is never replaced.
    Force,
}

impl Replace {
    /// [`Replace::Force`] if `force`, else [`Replace::Never`].
    pub fn from_force(force: bool) -> Self {
        if force {
            Replace::Force
        } else {
            Replace::Never
        }
    }
}

/// A file's identity: device and inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId(u64, u64);

impl FileId {
    fn of(meta: &std::fs::Metadata) -> Self {
        FileId(meta.dev(), meta.ino())
    }
}

/// The folder a path lives in (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A fresh hidden name beside `dest`: `.NAME.PID.N.hopsig-TAG`. NAME is cut to 64 bytes
/// so that long destination names stay under the 255-byte name limit.
fn name_beside(dest: &Path, tag: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = dest.file_name().map_or(&b"out"[..], |n| n.as_bytes());
    let mut hidden = b".".to_vec();
    hidden.extend_from_slice(&name[..name.len().min(64)]);
    hidden.extend_from_slice(
        format!(
            ".{}.{}.hopsig-{tag}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        )
        .as_bytes(),
    );
    folder_of(dest).join(OsString::from_vec(hidden))
}

/// Creates a temporary file beside `dest` exclusively (`O_CREAT | O_EXCL`, which never
/// follows a symlink), mode 0600 from the start for secrets.
fn create_temp(dest: &Path, secrecy: Secrecy) -> Result<(PathBuf, File), PersistError> {
    let mode = match secrecy {
        Secrecy::Secret => 0o600,
        Secrecy::Public => 0o666,
    };
    let mut last = io::Error::from(io::ErrorKind::AlreadyExists);
    for _ in 0..16 {
        let tmp = name_beside(dest, "tmp");
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)
        {
            Ok(file) => {
                if secrecy == Secrecy::Secret {
                    // fchmod on the descriptor: exactly 0600 before the first byte.
                    if let Err(e) = file.set_permissions(Permissions::from_mode(0o600)) {
                        let _ = std::fs::remove_file(&tmp);
                        return Err(io_error(dest, "restrict the mode of a temporary file for")(
                            e,
                        ));
                    }
                }
                return Ok((tmp, file));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(io_error(dest, "create a temporary file for")(e)),
        }
    }
    Err(io_error(dest, "create a temporary file for")(last))
}

/// fsync of a folder, so that names created or renamed in it survive a crash.
fn sync_folder(dir: &Path) -> Result<(), PersistError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_error(dir, "sync the folder"))
}

/// Creates `dir` and any missing parents with `mode` (less the umask), fsyncing the
/// folder each new one is made in. Returns the folders it created, outermost first.
fn create_folders(dir: &Path, mode: u32) -> Result<Vec<PathBuf>, PersistError> {
    let mut missing: Vec<&Path> = dir
        .ancestors()
        .filter(|a| !a.as_os_str().is_empty())
        .take_while(|a| std::fs::symlink_metadata(a).is_err())
        .collect();
    missing.reverse();
    let mut created = Vec::new();
    for d in missing {
        match DirBuilder::new().mode(mode).create(d) {
            Ok(()) => {
                sync_folder(folder_of(d))?;
                created.push(d.to_path_buf());
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io_error(d, "create the folder")(e)),
        }
    }
    if !std::fs::metadata(dir).is_ok_and(|m| m.is_dir()) {
        return Err(io_error(dir, "use the folder")(io::Error::from(
            io::ErrorKind::NotADirectory,
        )));
    }
    Ok(created)
}

/// Creates the folder `dir` (and missing parents) with mode 0700, for signer state,
/// fsyncing the folder each new one is made in. An existing folder is left as it is.
///
/// # Errors
/// [`PersistError::Io`] naming the folder that could not be created, or `dir` if it
/// exists but is not a folder.
pub fn create_private_folder(dir: &Path) -> Result<(), PersistError> {
    create_folders(dir, 0o700).map(drop)
}

/// One staged output: its destination and the temporary file holding its bytes.
/// `path` with `suffix` appended to its last component (`key` → `key.pub`, `status` →
/// `status.tmp`).
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

mod log;
mod outputs;

pub use log::*;
pub use outputs::*;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod test_support {
    //! Scaffolding shared by the tests of [`super::outputs`] and [`super::log`].
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// Writes one file: [`Outputs`] with a single output and no inputs.
    pub(super) fn write(
        dest: &Path,
        bytes: &[u8],
        secrecy: Secrecy,
        replace: Replace,
    ) -> Result<(), PersistError> {
        let mut out = Outputs::new(replace);
        out.add(dest, bytes, secrecy)?;
        out.commit()
    }

    pub(super) fn temp_dir() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    /// Names in `dir`, sorted.
    pub(super) fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    pub(super) fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }
}
