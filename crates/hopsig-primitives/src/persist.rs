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
#[derive(Debug)]
struct Staged {
    dest: PathBuf,
    /// The temporary name, `None` once it no longer exists (renamed or removed).
    tmp: Option<PathBuf>,
}

/// The output files of one command, written crash-safely and placed all together or
/// not at all.
///
/// 1. [`Outputs::input`] names the command's inputs; [`Outputs::check`] tests a
///    destination against the rules before any expensive work (a benchmark run).
/// 2. [`Outputs::add`] (or [`Outputs::add_with`]) stages a file: a temporary file
///    created exclusively in the destination's folder (mode 0600 set on the
///    descriptor first, for secrets), written, fsynced. A write error (a full disk,
///    `EFBIG`) removes it; nothing is placed yet.
/// 3. [`Outputs::commit`] places the staged files in order: without
///    [`Replace::Force`] by hard-linking the temporary file to the destination and
///    unlinking it (`link` fails if the name exists, so a file that appears meanwhile
///    is never replaced); with it by `rename`. Then each folder is fsynced. If a
///    placement fails, those already placed are undone: new names are unlinked and
///    replaced files are renamed back from the hard-link backup taken just before.
///
/// Dropping `Outputs` without committing (an error on the way) removes every temporary
/// file and the folders [`Outputs::folder`] created, if they are still empty.
///
/// **What a crash can leave.** Each placed file is complete (its bytes were fsynced
/// before its name appeared). POSIX has no call that moves several names at once, so
/// a crash *between* two placements of one commit leaves the files placed so far,
/// and a crash at any point may leave hidden `.NAME.PID.N.hopsig-tmp` / `-old`
/// files beside the destinations, which are safe to delete. A crash never leaves a
/// half-written or empty file under a destination name.
///
/// Placement needs hard links (every POSIX local file system and NFS has them; FAT
/// does not, and there placement fails with an error rather than risk replacing a
/// file).
#[derive(Debug)]
pub struct Outputs {
    replace: Replace,
    inputs: Vec<(FileId, PathBuf)>,
    staged: Vec<Staged>,
    created_folders: Vec<PathBuf>,
    committed: bool,
}

impl Outputs {
    /// No outputs yet; existing destinations are treated as `replace` says.
    pub fn new(replace: Replace) -> Self {
        Outputs {
            replace,
            inputs: Vec::new(),
            staged: Vec::new(),
            created_folders: Vec::new(),
            committed: false,
        }
    }

    /// Names a file the command reads: no output may be that file (same device and
    /// inode, following symlinks), even with [`Replace::Force`]. A path that does not
    /// exist names nothing.
    pub fn input(&mut self, path: &Path) -> &mut Self {
        if let Ok(meta) = std::fs::metadata(path) {
            self.inputs.push((FileId::of(&meta), path.to_path_buf()));
        }
        self
    }

    /// The replacement and input rules for `dest`, and that no other output has its
    /// name.
    fn rules(&self, dest: &Path) -> Result<(), PersistError> {
        if self.staged.iter().any(|s| s.dest == dest) {
            return Err(io_error(dest, "write")(io::Error::new(
                io::ErrorKind::InvalidInput,
                "named twice as an output of one command",
            )));
        }
        self.replace_rules(dest)
    }

    /// The replacement and input rules for `dest`: checked when it is staged and
    /// again just before it is placed (an input may have been moved or the
    /// destination created meanwhile). Only a regular file is ever replaced: a
    /// device, FIFO or socket (or a symlink leading to one) is refused whatever
    /// `replace` says, a symlink is refused with [`Replace::Force`] too.
    fn replace_rules(&self, dest: &Path) -> Result<(), PersistError> {
        let not_regular = |what: String| PersistError::NotRegularOutput {
            path: dest.to_path_buf(),
            what,
        };
        // symlink_metadata also sees a dangling symlink, which `link` would refuse.
        let named = std::fs::symlink_metadata(dest);
        if let Ok(meta) = std::fs::metadata(dest) {
            let id = FileId::of(&meta);
            if let Some((_, input)) = self.inputs.iter().find(|(i, _)| *i == id) {
                return Err(PersistError::IsInput {
                    path: dest.to_path_buf(),
                    input: input.clone(),
                });
            }
            if meta.is_dir() {
                return Err(io_error(dest, "write")(io::Error::from(
                    io::ErrorKind::IsADirectory,
                )));
            }
            if !meta.is_file() {
                let what = kind_of(meta.file_type());
                return Err(not_regular(match &named {
                    Ok(link) if link.file_type().is_symlink() => {
                        format!("symbolic link to a {what}")
                    }
                    _ => what.to_string(),
                }));
            }
        }
        match named {
            Ok(_) if self.replace == Replace::Never => Err(PersistError::Exists {
                path: dest.to_path_buf(),
            }),
            Ok(meta) if !meta.is_file() => Err(not_regular(kind_of(meta.file_type()).into())),
            _ => Ok(()),
        }
    }

    /// Checks now that `dest` could be written: the rules above, and that a temporary
    /// file can be created in its folder (created and removed again). Call it before
    /// long work whose result goes to `dest`; [`Outputs::add`] and
    /// [`Outputs::commit`] check again.
    ///
    /// # Errors
    /// [`PersistError::Exists`], [`PersistError::IsInput`],
    /// [`PersistError::NotRegularOutput`], or [`PersistError::Io`] if the folder is
    /// missing or not writable.
    pub fn check(&self, dest: &Path) -> Result<(), PersistError> {
        self.rules(dest)?;
        let (tmp, file) = create_temp(dest, Secrecy::Public)?;
        drop(file);
        std::fs::remove_file(&tmp).map_err(io_error(&tmp, "remove"))
    }

    /// Creates the folder `dir` (mode 0777 less the umask) and missing parents if
    /// needed. Those it created are removed again if the outputs are dropped
    /// uncommitted and the folders are still empty.
    ///
    /// # Errors
    /// [`PersistError::Io`] if a folder cannot be created or `dir` is not a folder.
    pub fn folder(&mut self, dir: &Path) -> Result<(), PersistError> {
        let created = create_folders(dir, 0o777)?;
        self.created_folders.extend(created);
        Ok(())
    }

    /// Stages `bytes` for `dest`.
    ///
    /// # Errors
    /// As [`Outputs::add_with`].
    pub fn add(&mut self, dest: &Path, bytes: &[u8], secrecy: Secrecy) -> Result<(), PersistError> {
        self.add_with(dest, secrecy, |w| w.write_all(bytes))
    }

    /// Stages the bytes `write` produces for `dest`: checks the rules, creates the
    /// temporary file, lets `write` fill it, fsyncs it.
    ///
    /// # Errors
    /// [`PersistError::Exists`], [`PersistError::IsInput`] or
    /// [`PersistError::NotRegularOutput`]; [`PersistError::Io`] if
    /// the temporary file cannot be created, written (then it is removed) or synced.
    pub fn add_with(
        &mut self,
        dest: &Path,
        secrecy: Secrecy,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), PersistError> {
        self.rules(dest)?;
        let (tmp, mut file) = create_temp(dest, secrecy)?;
        // Registered before writing, so that Drop removes it whatever fails below.
        self.staged.push(Staged {
            dest: dest.to_path_buf(),
            tmp: Some(tmp),
        });
        let written = write(&mut file).and_then(|()| file.flush());
        let result = written
            .map_err(io_error(dest, "write"))
            .and_then(|()| file.sync_all().map_err(io_error(dest, "sync")));
        if result.is_err() {
            if let Some(s) = self.staged.pop() {
                remove_temp(s);
            }
        }
        result
    }

    /// Places every staged file (see [`Outputs`]) and fsyncs their folders.
    ///
    /// # Errors
    /// The first placement error (after undoing the placements before it):
    /// [`PersistError::Exists`] if a destination appeared since it was checked and
    /// replacing is not allowed, [`PersistError::IsInput`],
    /// [`PersistError::NotRegularOutput`], [`PersistError::Io`]. An
    /// error syncing a folder comes after every file is placed and is not undone.
    pub fn commit(mut self) -> Result<(), PersistError> {
        let backups = self.staged.len() > 1 && self.replace == Replace::Force;
        // (index, backup of the file it replaced)
        let mut placed: Vec<(usize, Option<PathBuf>)> = Vec::new();
        for i in 0..self.staged.len() {
            let result = self
                .replace_rules(&self.staged[i].dest)
                .and_then(|()| self.place(i, backups));
            match result {
                Ok(backup) => placed.push((i, backup)),
                Err(e) => {
                    self.undo(&placed);
                    return Err(e);
                }
            }
        }
        self.committed = true;
        for (_, backup) in &placed {
            if let Some(b) = backup {
                let _ = std::fs::remove_file(b);
            }
        }
        let mut folders: Vec<&Path> = self
            .staged
            .iter()
            .map(|s| folder_of(&s.dest))
            .chain(self.created_folders.iter().map(|d| folder_of(d)))
            .collect();
        folders.sort_unstable();
        folders.dedup();
        for f in folders {
            sync_folder(f)?;
        }
        Ok(())
    }

    /// Places staged file `i`; returns the backup name of the file it replaced, if
    /// `backup` is asked for and there was one.
    fn place(&mut self, i: usize, backup: bool) -> Result<Option<PathBuf>, PersistError> {
        let s = &mut self.staged[i];
        let Some(tmp) = s.tmp.clone() else {
            return Err(io_error(&s.dest, "place")(io::Error::from(
                io::ErrorKind::NotFound,
            )));
        };
        match self.replace {
            Replace::Never => {
                std::fs::hard_link(&tmp, &s.dest).map_err(|e| {
                    if e.kind() == io::ErrorKind::AlreadyExists {
                        PersistError::Exists {
                            path: s.dest.clone(),
                        }
                    } else {
                        io_error(&s.dest, "place")(e)
                    }
                })?;
                if std::fs::remove_file(&tmp).is_ok() {
                    s.tmp = None;
                }
                Ok(None)
            }
            Replace::Force => {
                let kept = if backup && std::fs::symlink_metadata(&s.dest).is_ok() {
                    let b = name_beside(&s.dest, "old");
                    std::fs::hard_link(&s.dest, &b)
                        .map_err(io_error(&s.dest, "keep a backup of"))?;
                    Some(b)
                } else {
                    None
                };
                if let Err(e) = std::fs::rename(&tmp, &s.dest) {
                    if let Some(b) = &kept {
                        let _ = std::fs::remove_file(b);
                    }
                    return Err(io_error(&s.dest, "place")(e));
                }
                s.tmp = None;
                Ok(kept)
            }
        }
    }

    /// Undoes placements, last first: a replaced file comes back from its backup, a
    /// new name is removed. Best effort: this runs because something already failed.
    fn undo(&self, placed: &[(usize, Option<PathBuf>)]) {
        for (i, backup) in placed.iter().rev() {
            let dest = &self.staged[*i].dest;
            let _ = match backup {
                Some(b) => std::fs::rename(b, dest),
                None => std::fs::remove_file(dest),
            };
        }
    }
}

fn remove_temp(s: Staged) {
    if let Some(tmp) = s.tmp {
        let _ = std::fs::remove_file(tmp);
    }
}

impl Drop for Outputs {
    fn drop(&mut self) {
        for s in self.staged.drain(..) {
            remove_temp(s);
        }
        if !self.committed {
            for d in self.created_folders.iter().rev() {
                let _ = std::fs::remove_dir(d);
            }
        }
    }
}

/// What the entries of a [`Log`] add up to: a count, a set of claims. A log replays
/// every entry into its record, in order, before each decision.
pub trait Record {
    /// Takes in one entry (a line without its newline).
    ///
    /// # Errors
    /// Why the entry is malformed; the log reports it with the file and line.
    fn apply(&mut self, entry: &str) -> Result<(), String>;
}

/// Longest entry of a [`Log`], in bytes.
pub const MAX_ENTRY: usize = 512;

/// Longest part of a first line an error quotes, in characters.
const MAX_QUOTED: usize = 200;

/// What the first line of a log file must be: `kind`, which says what the file is,
/// followed by its `owner`, whose log it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header<'a> {
    /// The file's name in messages, with its article: "an IBAS journal", "a HORS
    /// counter file".
    pub what: &'static str,
    /// The start of the line: the format and its version (`hopsig-ibas-wlog: 1 key `,
    /// `hopsig-hors-counter: 1`).
    pub kind: &'a str,
    /// What follows `kind`.
    pub owner: Owner<'a>,
}

/// The rest of a log's first line, after its [`Header::kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner<'a> {
    /// Exactly this text, for a log opened by its owner (an IBAS key binding in hex;
    /// empty for a log that belongs to no one in particular).
    Is(&'a str),
    /// Any `n` lowercase hex digits, for a log read by someone who does not know whose
    /// it is ([`replay`], `hopsig inspect`).
    Hex(usize),
}

fn lower_hex(bytes: &[u8]) -> bool {
    bytes.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

impl Owner<'_> {
    /// Whether `rest` is this owner.
    fn is(&self, rest: &[u8]) -> bool {
        match self {
            Owner::Is(o) => rest == o.as_bytes(),
            Owner::Hex(n) => rest.len() == *n && lower_hex(rest),
        }
    }

    /// Whether `rest` is the beginning of this owner (the whole of it included).
    fn begun_by(&self, rest: &[u8]) -> bool {
        match self {
            Owner::Is(o) => o.as_bytes().starts_with(rest),
            Owner::Hex(n) => rest.len() <= *n && lower_hex(rest),
        }
    }
}

impl Header<'_> {
    /// Whether the complete first line `line` (without its LF) is this header.
    fn check(&self, line: &[u8]) -> Result<(), Refusal> {
        match line.strip_prefix(self.kind.as_bytes()) {
            Some(rest) if self.owner.is(rest) => Ok(()),
            _ => Err(self.refuse(line)),
        }
    }

    /// Whether `bytes` — all a file holds, no complete line — are the beginning of this
    /// header: a creation cut short by a crash (the empty file included).
    fn begun_by(&self, bytes: &[u8]) -> bool {
        match bytes.strip_prefix(self.kind.as_bytes()) {
            Some(rest) => self.owner.begun_by(rest),
            None => self.kind.as_bytes().starts_with(bytes),
        }
    }

    /// The refusal of a first line `found` that is not this header. It quotes what
    /// follows the kind only when the line starts with it (a log of this kind but of
    /// another owner, whose header is public); any other file may be anything, a
    /// secret included, and nothing of it is quoted.
    fn refuse(&self, found: &[u8]) -> Refusal {
        Refusal::Header {
            owner: found.strip_prefix(self.kind.as_bytes()).map(|rest| {
                String::from_utf8_lossy(rest)
                    .chars()
                    .take(MAX_QUOTED)
                    .collect()
            }),
        }
    }

    /// The reason a reader gives for a first line that is not this header.
    fn reason(&self, owner: Option<&str>) -> String {
        let expected = match self.owner {
            Owner::Is("") | Owner::Hex(0) => String::new(),
            Owner::Is(o) => format!(" {o}"),
            Owner::Hex(n) => format!(" and {n} lowercase hex digits"),
        };
        match owner {
            Some(found) => format!(
                "{} of {found:?}, not of the one expected (its first line is \"{}\"{expected})",
                self.what, self.kind
            ),
            None => format!(
                "not {} (its first line is \"{}\"{expected})",
                self.what, self.kind
            ),
        }
    }
}

/// Why a log's bytes are refused (before the file is named).
#[derive(Debug)]
enum Refusal {
    /// The first line is not the header; `owner` is what follows the header's kind if
    /// the line starts with it.
    Header { owner: Option<String> },
    /// Line `line` (1 for the header) is malformed.
    Line { line: usize, reason: String },
}

fn check_entry(entry: &str) -> Result<(), String> {
    if entry.len() > MAX_ENTRY {
        return Err(format!("longer than {MAX_ENTRY} bytes"));
    }
    if !entry.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return Err("not printable ASCII".into());
    }
    Ok(())
}

/// The complete lines of `buf` (each ended by LF), without their LF. An incomplete last
/// line is left out: a log ignores it (a write cut short by a crash).
fn complete_lines(buf: &[u8]) -> impl Iterator<Item = &[u8]> {
    buf.iter()
        .rposition(|&b| b == b'\n')
        .map(|last| buf[..last].split(|&b| b == b'\n'))
        .into_iter()
        .flatten()
}

/// One line of a log as text: printable ASCII, at most [`MAX_ENTRY`] bytes.
fn entry_text(line: &[u8]) -> Result<&str, String> {
    let text = std::str::from_utf8(line).map_err(|_| "not printable ASCII".to_string())?;
    check_entry(text)?;
    Ok(text)
}

/// How far a log has been read: the one reader of log lines, behind [`Log::open`],
/// [`Log::append`] (which first takes in what other processes appended) and
/// [`replay`].
#[derive(Debug, Default, Clone, Copy)]
struct Cursor {
    /// Bytes of complete lines read so far (the next line starts here).
    read_to: u64,
    /// Complete lines read so far, the header included.
    lines: usize,
}

impl Cursor {
    /// Takes in the complete lines of `buf`, the log's bytes from `read_to` on: the
    /// header first (it must be `header`), then the entries, applied to `record`. For
    /// a log with no complete line yet, `buf` must be the beginning of the header.
    fn take<R: Record>(
        &mut self,
        buf: &[u8],
        header: &Header<'_>,
        record: &mut R,
    ) -> Result<(), Refusal> {
        for raw in complete_lines(buf) {
            let line = self.lines + 1;
            if line == 1 {
                header.check(raw)?;
            } else {
                let text = entry_text(raw).map_err(|reason| Refusal::Line { line, reason })?;
                record
                    .apply(text)
                    .map_err(|reason| Refusal::Line { line, reason })?;
            }
            self.lines = line;
            self.read_to += raw.len() as u64 + 1;
        }
        if self.lines == 0 && !header.begun_by(buf) {
            return Err(header.refuse(buf));
        }
        Ok(())
    }
}

/// An append-only journal of text lines (printable ASCII, at most [`MAX_ENTRY`]
/// bytes each) after one [`Header`] line, replayed into a [`Record`].
///
/// A memory log keeps only the record. A file log (see [`Log::open`]) is the file
/// `HEADER\nENTRY\nENTRY\n…`, mode 0600. [`Log::append`] takes an exclusive `flock`
/// on it, checks that its name still leads to the file it opened, reads the entries
/// other processes appended since, lets the caller decide on the up-to-date record,
/// appends the decided entries with one `write` and fsyncs them, then unlocks: two
/// processes sharing one file never both pass a check that only one of them should.
/// An incomplete last line (a `write` cut short by a crash; its caller never went on,
/// since the fsync had not returned) is ignored and cut off before the next append.
#[derive(Debug)]
pub struct Log<R> {
    record: R,
    file: Option<FileLog>,
    started: bool,
}

#[derive(Debug)]
struct FileLog {
    path: PathBuf,
    file: File,
    /// The file opened, which its name must still lead to.
    id: FileId,
    max: u64,
    what: &'static str,
    kind: String,
    owner: String,
    cursor: Cursor,
}

/// Whether [`Log::open`] may start a new log where there is none yet: create the file,
/// or write the header into an empty one (or one whose creation was cut short).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewLog {
    /// It may; [`Log::started`] says whether it did.
    Allowed,
    /// It may not: [`PersistError::NoLog`], and nothing is created or written.
    Refused,
}

/// Opens `path` for reading and appending if it is a regular file, or creates it (mode
/// 0600) if nothing is there and `create` allows it. A symlink, folder, device, FIFO or
/// socket is refused: `lstat` first, then the open itself neither follows a symlink
/// (`O_NOFOLLOW`) nor waits on a FIFO or device (`O_NONBLOCK`) swapped in meanwhile,
/// and the file opened must be the one looked at.
fn open_regular(path: &Path, what: &'static str, create: NewLog) -> Result<File, PersistError> {
    let not_regular = || PersistError::NotRegular {
        path: path.to_path_buf(),
    };
    let mut options = OpenOptions::new();
    options
        .read(true)
        .append(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    for _ in 0..4 {
        match std::fs::symlink_metadata(path) {
            Ok(meta) if !meta.file_type().is_file() => return Err(not_regular()),
            Ok(meta) => {
                let file = options.open(path).map_err(|e| {
                    // ELOOP: a symlink swapped in after lstat.
                    if e.raw_os_error() == Some(libc::ELOOP) {
                        not_regular()
                    } else {
                        io_error(path, "open")(e)
                    }
                })?;
                let now = file.metadata().map_err(io_error(path, "open"))?;
                if FileId::of(&now) != FileId::of(&meta) || !now.is_file() {
                    return Err(not_regular());
                }
                return Ok(file);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if create == NewLog::Refused {
                    return Err(PersistError::NoLog {
                        path: path.to_path_buf(),
                        what,
                    });
                }
                // O_CREAT | O_EXCL: never follows a symlink planted meanwhile.
                match options.clone().create_new(true).mode(0o600).open(path) {
                    Ok(file) => return Ok(file),
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(io_error(path, "create")(e)),
                }
            }
            Err(e) => return Err(io_error(path, "open")(e)),
        }
    }
    Err(not_regular())
}

impl FileLog {
    fn header(&self) -> Header<'_> {
        Header {
            what: self.what,
            kind: &self.kind,
            owner: Owner::Is(&self.owner),
        }
    }

    /// Runs `body` holding the exclusive lock. Closing the file would release it too.
    fn locked<T, E: From<PersistError>>(
        &mut self,
        body: impl FnOnce(&mut Self) -> Result<T, E>,
    ) -> Result<T, E> {
        self.file.lock().map_err(io_error(&self.path, "lock"))?;
        let out = body(self);
        let _ = self.file.unlock();
        out
    }

    fn refused(&self, refusal: Refusal) -> PersistError {
        match refusal {
            Refusal::Header { owner } => PersistError::Header {
                path: self.path.clone(),
                what: self.what,
                expected: self.owner.clone(),
                found: owner,
            },
            Refusal::Line { line, reason } => self.malformed(line, reason),
        }
    }

    fn malformed(&self, line: usize, reason: impl Into<String>) -> PersistError {
        PersistError::Malformed {
            path: self.path.clone(),
            line,
            reason: reason.into(),
        }
    }

    /// Under the lock: checks that the name still leads to the file opened (a file
    /// moved, removed or replaced since — a restore, `mv`, another command's output —
    /// would take entries no later reader sees), then reads the complete lines
    /// appended since the last call into `record`; returns the file's length.
    fn catch_up<R: Record>(&mut self, record: &mut R) -> Result<u64, PersistError> {
        let named = std::fs::symlink_metadata(&self.path);
        if !named.is_ok_and(|m| FileId::of(&m) == self.id) {
            return Err(PersistError::Replaced {
                path: self.path.clone(),
            });
        }
        let len = self
            .file
            .metadata()
            .map_err(io_error(&self.path, "read"))?
            .len();
        if len > self.max {
            return Err(PersistError::TooLarge {
                path: self.path.clone(),
                len,
                max: self.max,
            });
        }
        let from = self.cursor.read_to;
        if len < from {
            return Err(self.malformed(
                self.cursor.lines,
                format!("the file shrank to {len} bytes since it was read; refusing to go on"),
            ));
        }
        let mut buf = vec![0u8; usize::try_from(len - from).unwrap_or(0)];
        self.file
            .read_exact_at(&mut buf, from)
            .map_err(io_error(&self.path, "read"))?;
        let mut cursor = self.cursor;
        let taken = cursor.take(&buf, &self.header(), record);
        self.cursor = cursor;
        taken.map_err(|r| self.refused(r))?;
        Ok(len)
    }

    /// Appends `entries`, each followed by a newline, in one `write`, then fsyncs. An
    /// append that would make the file larger than its limit is refused first, before
    /// anything is written or cut; otherwise an incomplete last line is cut off first.
    fn append_lines(&mut self, entries: &[String], len: u64) -> Result<(), PersistError> {
        let mut lines = String::with_capacity(entries.iter().map(|e| e.len() + 1).sum());
        for e in entries {
            lines.push_str(e);
            lines.push('\n');
        }
        let read_to = self.cursor.read_to;
        let after = read_to + lines.len() as u64;
        if after > self.max {
            return Err(PersistError::TooLarge {
                path: self.path.clone(),
                len: after,
                max: self.max,
            });
        }
        if len > read_to {
            self.file
                .set_len(read_to)
                .map_err(io_error(&self.path, "cut off the incomplete last line of"))?;
        }
        let written = match (&self.file).write(lines.as_bytes()) {
            Ok(n) if n == lines.len() => Ok(()),
            Ok(_) => Err(io::Error::from(io::ErrorKind::WriteZero)),
            Err(e) => Err(e),
        };
        if let Err(e) = written {
            // Leave no partial entry behind (best effort: the next append cuts it too).
            let _ = self.file.set_len(read_to);
            return Err(io_error(&self.path, "append to")(e));
        }
        self.file.sync_all().map_err(io_error(&self.path, "sync"))?;
        self.cursor.read_to = after;
        self.cursor.lines += entries.len();
        Ok(())
    }
}

impl<R: Record> Log<R> {
    /// A log kept in memory only: `record` is all there is.
    pub fn memory(record: R) -> Self {
        Log {
            record,
            file: None,
            started: false,
        }
    }

    /// Opens the log file at `path` and replays its entries into `record`. Where there
    /// is no log yet — no file, an empty one, or the beginning of `header` left by a
    /// creation cut short — it starts one if `new` allows it: creates the file (mode
    /// 0600) and writes `header`'s line, then fsyncs the file and its folder. The
    /// folder must exist.
    ///
    /// `header.owner` must be an [`Owner::Is`].
    ///
    /// # Errors
    /// [`PersistError::NoLog`] if there is no log and `new` is [`NewLog::Refused`];
    /// [`PersistError::NotRegular`] for a symlink or special file,
    /// [`PersistError::TooLarge`] past `max` bytes, [`PersistError::Header`] if the
    /// first line is not `header`, [`PersistError::Malformed`] for a bad line,
    /// [`PersistError::Io`] if it cannot be created, locked, read or written.
    pub fn open(
        path: &Path,
        header: Header<'_>,
        max: u64,
        mut record: R,
        new: NewLog,
    ) -> Result<Self, PersistError> {
        let Owner::Is(owner) = header.owner else {
            return Err(io_error(path, "open")(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a log is opened for one owner",
            )));
        };
        let file = open_regular(path, header.what, new)?;
        let id = FileId::of(&file.metadata().map_err(io_error(path, "open"))?);
        let mut log = FileLog {
            path: path.to_path_buf(),
            file,
            id,
            max,
            what: header.what,
            kind: header.kind.to_string(),
            owner: owner.to_string(),
            cursor: Cursor::default(),
        };
        let started = log.locked(|log| {
            let len = log.catch_up(&mut record)?;
            if log.cursor.lines > 0 {
                return Ok(false);
            }
            if new == NewLog::Refused {
                return Err(PersistError::NoLog {
                    path: log.path.clone(),
                    what: log.what,
                });
            }
            // The header is the first line, and the new name is made durable.
            let line = format!("{}{}", log.kind, log.owner);
            log.append_lines(&[line], len)?;
            sync_folder(folder_of(&log.path))?;
            Ok(true)
        })?;
        Ok(Log {
            record,
            file: Some(log),
            started,
        })
    }

    /// Whether [`Log::open`] started this log (wrote its header).
    pub fn started(&self) -> bool {
        self.started
    }

    /// The record as of the last [`Log::open`] or [`Log::append`].
    pub fn record(&self) -> &R {
        &self.record
    }

    /// The file, for a file log.
    pub fn path(&self) -> Option<&Path> {
        self.file.as_ref().map(|f| f.path.as_path())
    }

    /// Under the log's lock: brings the record up to date with entries appended
    /// elsewhere, asks `decide` what to append (`None`: nothing), appends it durably
    /// and applies it to the record. When this returns `Ok`, the entry is on disk.
    ///
    /// # Errors
    /// As [`Log::append_all`].
    pub fn append<E: From<PersistError>>(
        &mut self,
        decide: impl FnOnce(&R) -> Result<Option<String>, E>,
    ) -> Result<(), E> {
        self.append_all(|record| Ok(decide(record)?.into_iter().collect()))
    }

    /// [`Log::append`] for any number of entries, decided together and appended under
    /// one lock with one `write` and one fsync.
    ///
    /// # Errors
    /// `decide`'s error (nothing is appended), or a [`PersistError`] converted to `E`:
    /// the file was replaced, is unreadable, malformed or too large, or the entries
    /// cannot be written and synced (then the caller must not act on them).
    pub fn append_all<E: From<PersistError>>(
        &mut self,
        decide: impl FnOnce(&R) -> Result<Vec<String>, E>,
    ) -> Result<(), E> {
        let record = &mut self.record;
        match &mut self.file {
            None => {
                for (i, entry) in decide(record)?.iter().enumerate() {
                    check_entry(entry)
                        .and_then(|()| record.apply(entry))
                        .map_err(|reason| PersistError::Malformed {
                            path: PathBuf::from("(journal in memory)"),
                            line: i + 1,
                            reason,
                        })?;
                }
                Ok(())
            }
            Some(file) => file.locked(|file| {
                let len = file.catch_up(record)?;
                let entries = decide(record)?;
                if entries.is_empty() {
                    return Ok(());
                }
                let first = file.cursor.lines + 1;
                for (i, entry) in entries.iter().enumerate() {
                    check_entry(entry).map_err(|r| file.malformed(first + i, r))?;
                }
                file.append_lines(&entries, len)?;
                // Only entries on disk count: applied after the fsync. (An entry its
                // own record rejects is a bug of the record's owner, and the next open
                // reports it with its line.)
                for (i, entry) in entries.iter().enumerate() {
                    record
                        .apply(entry)
                        .map_err(|r| file.malformed(first + i, r))?;
                }
                Ok(())
            }),
        }
    }
}

/// A line of a log read by [`replay`] that is not what its log holds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct LineError {
    /// Line number, 1 for the header.
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

/// What the bytes of a log file hold, read as [`Log::open`] reads them.
#[derive(Debug)]
pub struct Replayed<R> {
    /// The first line, or `None` if the file holds only the beginning of a header
    /// (a creation cut short, which [`Log::open`] completes).
    pub header: Option<String>,
    /// The entries after it, replayed.
    pub record: R,
    /// How many entries there are.
    pub entries: usize,
    /// Whether the file ends in an incomplete line (a write cut short by a crash,
    /// which [`Log`] ignores and cuts off before its next append).
    pub incomplete_tail: bool,
}

/// Reads the bytes of a log file (for instance to say what it holds, without opening,
/// locking or creating anything) with the reader [`Log::open`] uses: a first line
/// that must be `header` (an [`Owner::Hex`] reads the log of any owner), or the
/// beginning of it, then its entries replayed into `record`.
///
/// # Errors
/// [`LineError`] for a first line that is not `header`, a line that is not printable
/// ASCII or too long, or an entry `record` refuses.
pub fn replay<R: Record>(
    bytes: &[u8],
    header: Header<'_>,
    mut record: R,
) -> Result<Replayed<R>, LineError> {
    let mut cursor = Cursor::default();
    cursor
        .take(bytes, &header, &mut record)
        .map_err(|refusal| match refusal {
            Refusal::Header { owner } => LineError {
                line: 1,
                reason: header.reason(owner.as_deref()),
            },
            Refusal::Line { line, reason } => LineError { line, reason },
        })?;
    let first = complete_lines(bytes).next();
    Ok(Replayed {
        header: first.map(|l| String::from_utf8_lossy(l).into_owned()),
        record,
        entries: cursor.lines.saturating_sub(1),
        incomplete_tail: !bytes.is_empty() && !bytes.ends_with(b"\n"),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// Counts entries, refusing an entry "bad".
    #[derive(Debug, Default)]
    struct Lines(Vec<String>);

    impl Record for Lines {
        fn apply(&mut self, entry: &str) -> Result<(), String> {
            if entry == "bad" {
                return Err("bad entry".into());
            }
            self.0.push(entry.to_string());
            Ok(())
        }
    }

    /// Writes one file: [`Outputs`] with a single output and no inputs.
    fn write(
        dest: &Path,
        bytes: &[u8],
        secrecy: Secrecy,
        replace: Replace,
    ) -> Result<(), PersistError> {
        let mut out = Outputs::new(replace);
        out.add(dest, bytes, secrecy)?;
        out.commit()
    }

    /// A log of lines whose header is `header`, started if there is none.
    fn open_log(path: &Path, header: &str, max: u64) -> Result<Log<Lines>, PersistError> {
        Log::open(path, fixed(header), max, Lines::default(), NewLog::Allowed)
    }

    fn fixed(kind: &str) -> Header<'_> {
        Header {
            what: "a test log",
            kind,
            owner: Owner::Is(""),
        }
    }

    fn temp_dir() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    /// Names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn never_replaces_without_force_and_force_replaces_with_a_private_mode() {
        let d = temp_dir();
        let key = d.path().join("key");
        write(&key, b"one", Secrecy::Secret, Replace::Never).unwrap();
        assert_eq!(mode(&key), 0o600);
        let e = write(&key, b"two", Secrecy::Secret, Replace::Never).unwrap_err();
        assert!(matches!(e, PersistError::Exists { .. }), "{e}");
        assert_eq!(std::fs::read(&key).unwrap(), b"one");
        // A world-writable file replaced with --force: the secret is 0600, a new inode.
        std::fs::set_permissions(&key, Permissions::from_mode(0o666)).unwrap();
        let old = std::fs::metadata(&key).unwrap().ino();
        write(&key, b"three", Secrecy::Secret, Replace::Force).unwrap();
        assert_eq!(std::fs::read(&key).unwrap(), b"three");
        assert_eq!(mode(&key), 0o600);
        assert_ne!(std::fs::metadata(&key).unwrap().ino(), old);
        // A dangling symlink is an existing name too.
        let link = d.path().join("link");
        std::os::unix::fs::symlink(d.path().join("nowhere"), &link).unwrap();
        assert!(matches!(
            write(&link, b"x", Secrecy::Public, Replace::Never),
            Err(PersistError::Exists { .. })
        ));
        assert!(!d.path().join("nowhere").exists());
        assert_eq!(names(d.path()), ["key", "link"]);
    }

    #[test]
    fn force_replaces_only_regular_files() {
        let d = temp_dir();
        let socket = d.path().join("socket");
        let _listening = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let target = d.path().join("target");
        std::fs::write(&target, b"kept").unwrap();
        let (to_file, to_socket, dangling) = (
            d.path().join("to-file"),
            d.path().join("to-socket"),
            d.path().join("dangling"),
        );
        std::os::unix::fs::symlink(&target, &to_file).unwrap();
        std::os::unix::fs::symlink(&socket, &to_socket).unwrap();
        std::os::unix::fs::symlink(d.path().join("nowhere"), &dangling).unwrap();
        let what = |e: PersistError| match e {
            PersistError::NotRegularOutput { what, .. } => what,
            other => panic!("{other}"),
        };
        for (dest, is) in [
            (&socket, "socket"),
            (&to_socket, "symbolic link to a socket"),
            (&to_file, "symbolic link"),
            (&dangling, "symbolic link"),
        ] {
            let out = Outputs::new(Replace::Force);
            assert_eq!(what(out.check(dest).unwrap_err()), is);
            let e = write(dest, b"x", Secrecy::Secret, Replace::Force).unwrap_err();
            assert_eq!(what(e), is);
        }
        // Without --force a device, FIFO or socket is refused as such, not as a file
        // that --force could replace.
        let e = write(&socket, b"x", Secrecy::Public, Replace::Never).unwrap_err();
        assert_eq!(what(e), "socket");
        assert!(std::fs::symlink_metadata(&to_file).unwrap().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"kept");
        assert_eq!(
            names(d.path()),
            ["dangling", "socket", "target", "to-file", "to-socket"]
        );
    }

    #[test]
    fn inputs_are_protected_by_inode_even_with_force() {
        let d = temp_dir();
        let input = d.path().join("input");
        std::fs::write(&input, b"precious").unwrap();
        let hard = d.path().join("hard");
        std::fs::hard_link(&input, &hard).unwrap();
        let soft = d.path().join("soft");
        std::os::unix::fs::symlink(&input, &soft).unwrap();
        for dest in [&input, &hard, &soft] {
            let mut out = Outputs::new(Replace::Force);
            out.input(&input);
            let e = out.check(dest).unwrap_err();
            assert!(matches!(e, PersistError::IsInput { .. }), "{e}");
            let e = out.add(dest, b"clobbered", Secrecy::Public).unwrap_err();
            assert!(matches!(e, PersistError::IsInput { .. }), "{e}");
        }
        assert_eq!(std::fs::read(&input).unwrap(), b"precious");
    }

    #[test]
    fn a_write_error_leaves_no_temporary_file_and_the_old_file_intact() {
        let d = temp_dir();
        let key = d.path().join("key");
        std::fs::write(&key, b"old key").unwrap();
        let mut out = Outputs::new(Replace::Force);
        out.add(&d.path().join("key.pub"), b"public", Secrecy::Public)
            .unwrap();
        let e = out
            .add_with(&key, Secrecy::Secret, |w| {
                w.write_all(b"half of the new ke")?;
                Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"))
            })
            .unwrap_err();
        assert!(e.to_string().contains("disk full"), "{e}");
        drop(out);
        // Neither the half-written key nor the already staged .pub appeared.
        assert_eq!(names(d.path()), ["key"]);
        assert_eq!(std::fs::read(&key).unwrap(), b"old key");
    }

    #[test]
    fn a_failed_placement_undoes_the_earlier_ones() {
        let d = temp_dir();
        let (a, b) = (d.path().join("a"), d.path().join("b"));
        let mut out = Outputs::new(Replace::Never);
        out.add(&a, b"A", Secrecy::Secret).unwrap();
        out.add(&b, b"B", Secrecy::Public).unwrap();
        // Another process creates b between staging and placing.
        std::fs::write(&b, b"theirs").unwrap();
        let e = out.commit().unwrap_err();
        assert!(matches!(e, PersistError::Exists { .. }), "{e}");
        assert_eq!(names(d.path()), ["b"]);
        assert_eq!(std::fs::read(&b).unwrap(), b"theirs");

        // With --force, a replaced file comes back when a later placement fails.
        std::fs::write(&a, b"old A").unwrap();
        let mut out = Outputs::new(Replace::Force);
        out.add(&a, b"new A", Secrecy::Public).unwrap();
        out.add(&b, b"new B", Secrecy::Public).unwrap();
        // b becomes a folder: renaming a file over it fails.
        std::fs::remove_file(&b).unwrap();
        std::fs::create_dir(&b).unwrap();
        std::fs::write(b.join("inside"), b"x").unwrap();
        assert!(out.commit().is_err());
        assert_eq!(std::fs::read(&a).unwrap(), b"old A");
        assert_eq!(names(d.path()), ["a", "b"]);
    }

    #[test]
    fn folders_created_for_outputs_go_away_when_nothing_is_written() {
        let d = temp_dir();
        let dir = d.path().join("pkg/inner");
        let mut out = Outputs::new(Replace::Never);
        out.folder(&dir).unwrap();
        out.add(&dir.join("pkg.key"), b"k", Secrecy::Secret)
            .unwrap();
        drop(out);
        assert!(names(d.path()).is_empty());
        let mut out = Outputs::new(Replace::Never);
        out.folder(&dir).unwrap();
        out.add(&dir.join("pkg.key"), b"k", Secrecy::Secret)
            .unwrap();
        out.add(&dir.join("params.pub"), b"p", Secrecy::Public)
            .unwrap();
        out.commit().unwrap();
        assert_eq!(names(&dir), ["params.pub", "pkg.key"]);
        // check() fails early for a missing folder or a file used as a folder.
        let out = Outputs::new(Replace::Never);
        assert!(out.check(&d.path().join("missing/x")).is_err());
        assert!(out.check(&dir.join("pkg.key/x")).is_err());
        assert!(out.check(&dir.join("fresh")).is_ok());
        assert_eq!(names(&dir), ["params.pub", "pkg.key"]);
    }

    #[test]
    fn log_replays_appends_and_checks_its_header() {
        let d = temp_dir();
        let path = d.path().join("log");
        let mut log = open_log(&path, "test-log: 1", 1024).unwrap();
        assert_eq!(mode(&path), 0o600);
        for e in ["one", "two"] {
            log.append(|_| Ok::<_, PersistError>(Some(e.to_string())))
                .unwrap();
        }
        // A refusal appends nothing.
        let refused: Result<(), PersistError> = log.append(|_| {
            Err(PersistError::Exists {
                path: PathBuf::new(),
            })
        });
        assert!(refused.is_err());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "test-log: 1\none\ntwo\n"
        );
        let again = open_log(&path, "test-log: 1", 1024).unwrap();
        assert_eq!(again.record().0, ["one", "two"]);
        let e = open_log(&path, "other-log: 1", 1024).unwrap_err();
        assert!(matches!(e, PersistError::Header { .. }), "{e}");
        // Entries are single printable lines.
        let e = log
            .append(|_| Ok::<_, PersistError>(Some("two\nlines".into())))
            .unwrap_err();
        assert!(matches!(e, PersistError::Malformed { line: 4, .. }), "{e}");
        std::fs::write(&path, "test-log: 1\none\nbad\n").unwrap();
        let e = open_log(&path, "test-log: 1", 1024).unwrap_err();
        assert!(matches!(e, PersistError::Malformed { line: 3, .. }), "{e}");
    }

    #[test]
    fn log_sees_what_other_handles_appended() {
        let d = temp_dir();
        let path = d.path().join("log");
        let mut a = open_log(&path, "h", 1024).unwrap();
        let mut b = open_log(&path, "h", 1024).unwrap();
        a.append(|_| Ok::<_, PersistError>(Some("from a".into())))
            .unwrap();
        b.append(|r| {
            assert_eq!(r.0, ["from a"]);
            Ok::<_, PersistError>(Some("from b".into()))
        })
        .unwrap();
        a.append(|r| {
            assert_eq!(r.0, ["from a", "from b"]);
            Ok::<_, PersistError>(None)
        })
        .unwrap();
    }

    #[test]
    fn log_cuts_an_incomplete_last_line_and_caps_its_size() {
        let d = temp_dir();
        let path = d.path().join("log");
        // A file that is not a log (no complete line) is not truncated; a beginning of
        // the header (its writer died) is completed.
        std::fs::write(&path, "no newline").unwrap();
        let e = open_log(&path, "h", 20).unwrap_err();
        assert!(matches!(e, PersistError::Header { .. }), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"no newline");
        std::fs::write(&path, "head").unwrap();
        open_log(&path, "header", 20).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"header\n");
        std::fs::write(&path, "h\none\ntw").unwrap();
        let mut log = open_log(&path, "h", 20).unwrap();
        assert_eq!(log.record().0, ["one"]);
        log.append(|_| Ok::<_, PersistError>(Some("three".into())))
            .unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "h\none\nthree\n");
        // 12 bytes used of 20: "1234567\n" fits exactly, one more byte does not.
        let e = log
            .append(|_| Ok::<_, PersistError>(Some("12345678".into())))
            .unwrap_err();
        assert!(
            matches!(
                e,
                PersistError::TooLarge {
                    len: 21,
                    max: 20,
                    ..
                }
            ),
            "{e}"
        );
        // An entry that did not reach the disk does not count.
        assert_eq!(log.record().0, ["one", "three"]);
        log.append(|_| Ok::<_, PersistError>(Some("1234567".into())))
            .unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"x\n")
            .unwrap();
        let e = open_log(&path, "h", 20).unwrap_err();
        assert!(matches!(e, PersistError::TooLarge { len: 22, .. }), "{e}");
    }

    #[test]
    fn log_refuses_symlinks_and_special_files() {
        let d = temp_dir();
        let target = d.path().join("target");
        std::fs::write(&target, "h\n").unwrap();
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let dangling = d.path().join("dangling");
        std::os::unix::fs::symlink(d.path().join("nothing"), &dangling).unwrap();
        for p in [
            link.as_path(),
            dangling.as_path(),
            d.path(),
            Path::new("/dev/null"),
        ] {
            let e = open_log(p, "h", 1024).unwrap_err();
            assert!(
                matches!(e, PersistError::NotRegular { .. }),
                "{}: {e}",
                p.display()
            );
        }
        assert!(!d.path().join("nothing").exists());
        let fifo = d.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let e = open_log(&fifo, "h", 1024).unwrap_err();
        assert!(matches!(e, PersistError::NotRegular { .. }), "{e}");
    }

    /// `replay` reads the bytes of a log as `Log::open` does: the same record, the
    /// incomplete last line left out, each bad line named, the beginning of a header
    /// (a creation cut short) read as the empty log `Log::open` completes.
    #[test]
    fn replay_reads_a_log_as_open_does() {
        let dir = temp_dir();
        let path = dir.path().join("log");
        let mut log = open_log(&path, "H", 1024).unwrap();
        for e in ["a", "b"] {
            log.append(|_| Ok::<_, PersistError>(Some(e.to_string())))
                .unwrap();
        }
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend_from_slice(b"par");
        let r = replay(&bytes, fixed("H"), Lines::default()).unwrap();
        assert_eq!(
            (r.header.as_deref(), r.entries, r.incomplete_tail),
            (Some("H"), 2, true)
        );
        assert_eq!(r.record.0, open_log(&path, "H", 1024).unwrap().record().0);
        let err = |bytes: &[u8]| {
            replay(bytes, fixed("H"), Lines::default())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err(b"G\na\n"),
            "line 1: not a test log (its first line is \"H\")"
        );
        assert_eq!(err(b"H\na\nbad\n"), "line 3: bad entry");
        assert_eq!(err(b"H\n\x01\n"), "line 2: not printable ASCII");
        assert_eq!(
            err(b"G"),
            "line 1: not a test log (its first line is \"H\")"
        );

        // The beginning of the header: no header yet, nothing recorded, as open finds it.
        let r = replay(b"hea", fixed("header"), Lines::default()).unwrap();
        assert_eq!((r.header, r.entries, r.incomplete_tail), (None, 0, true));
        std::fs::write(&path, "hea").unwrap();
        assert!(open_log(&path, "header", 1024)
            .unwrap()
            .record()
            .0
            .is_empty());
        assert_eq!(std::fs::read(&path).unwrap(), b"header\n");

        // A log of any owner: the owner's digits, or a beginning of them.
        let any = Header {
            what: "a test log",
            kind: "K ",
            owner: Owner::Hex(4),
        };
        assert_eq!(
            replay(b"K 0a9f\nx\n", any, Lines::default())
                .unwrap()
                .header
                .as_deref(),
            Some("K 0a9f")
        );
        assert!(replay(b"K 0a", any, Lines::default()).is_ok());
        for bad in [&b"K 0A9F\n"[..], b"K 0a9f0\n", b"K 0z", b"K 0a9f0"] {
            let e = replay(bad, any, Lines::default()).unwrap_err();
            assert_eq!(e.line, 1, "{e}");
        }
    }

    /// Without leave to start a log, nothing is created or written where there is none.
    #[test]
    fn open_starts_a_log_only_when_allowed() {
        let d = temp_dir();
        let path = d.path().join("log");
        let refused = |p: &Path| Log::open(p, fixed("h"), 1024, Lines::default(), NewLog::Refused);
        let e = refused(&path).unwrap_err();
        assert!(matches!(e, PersistError::NoLog { .. }), "{e}");
        assert_eq!(
            e.to_string(),
            format!("{}: no test log here yet", path.display())
        );
        assert!(names(d.path()).is_empty());
        // An empty file, or the beginning of the header, is no log yet either.
        for start in ["", "h"] {
            std::fs::write(&path, start).unwrap();
            let e = refused(&path).unwrap_err();
            assert!(matches!(e, PersistError::NoLog { .. }), "{e}");
            assert_eq!(std::fs::read(&path).unwrap(), start.as_bytes());
        }
        std::fs::remove_file(&path).unwrap();
        let started = open_log(&path, "h", 1024).unwrap();
        assert!(started.started());
        let again = refused(&path).unwrap();
        assert!(!again.started());
        assert!(!open_log(&path, "h", 1024).unwrap().started());
    }

    /// A first line is quoted only when it starts with the header's kind (the log of
    /// another owner); any other file may be a secret, and none of it is quoted.
    #[test]
    fn header_errors_quote_only_a_log_of_the_same_kind() {
        let d = temp_dir();
        let path = d.path().join("log");
        let mine = Header {
            what: "a test log",
            kind: "test-log: 1 owner ",
            owner: Owner::Is("me"),
        };
        let open = |p: &Path| Log::open(p, mine, 1024, Lines::default(), NewLog::Allowed);
        for secret in [
            &b"token=s3cr3t-value\nsecond line\n"[..],
            b"token=s3cr3t-value",
            b"test-log: 1 ownex s3cr3t-value\n",
            b"\xff\xfes3cr3t-value\n",
        ] {
            std::fs::write(&path, secret).unwrap();
            let e = open(&path).unwrap_err();
            assert!(
                matches!(e, PersistError::Header { found: None, .. }),
                "{e:?}"
            );
            assert_eq!(e.to_string(), format!("{}: not a test log", path.display()));
            assert_eq!(std::fs::read(&path).unwrap(), secret, "left untouched");
        }
        for other in ["test-log: 1 owner you\n", "test-log: 1 owner yo"] {
            std::fs::write(&path, other).unwrap();
            let e = open(&path).unwrap_err();
            assert!(
                matches!(&e, PersistError::Header { found: Some(f), .. } if f.starts_with("yo")),
                "{e:?}"
            );
        }
    }

    /// An append past the size limit is refused before anything is written or cut,
    /// an incomplete last line included (docs/spec/ibas.md).
    #[test]
    fn an_append_past_the_limit_changes_nothing() {
        let d = temp_dir();
        let path = d.path().join("log");
        std::fs::write(&path, "h\none\ntw").unwrap();
        let mut log = open_log(&path, "h", 20).unwrap();
        // 6 bytes of complete lines; 6 + 16 > 20.
        let e = log
            .append(|_| Ok::<_, PersistError>(Some("x".repeat(15))))
            .unwrap_err();
        assert!(matches!(e, PersistError::TooLarge { len: 22, .. }), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"h\none\ntw");
    }

    /// A log whose name now leads elsewhere (moved, removed, replaced) refuses to
    /// append to the file it holds open, which no later reader would see.
    #[test]
    fn a_log_whose_file_was_replaced_refuses_to_append() {
        let d = temp_dir();
        let path = d.path().join("log");
        let mut log = open_log(&path, "h", 1024).unwrap();
        log.append(|_| Ok::<_, PersistError>(Some("one".into())))
            .unwrap();
        let restored = d.path().join("restored");
        std::fs::write(&restored, "h\n").unwrap();
        std::fs::rename(&restored, &path).unwrap();
        let e = log
            .append(|_| Ok::<_, PersistError>(Some("two".into())))
            .unwrap_err();
        assert!(matches!(e, PersistError::Replaced { .. }), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"h\n");
        std::fs::remove_file(&path).unwrap();
        let e = log
            .append(|_| Ok::<_, PersistError>(Some("two".into())))
            .unwrap_err();
        assert!(matches!(e, PersistError::Replaced { .. }), "{e}");
        assert!(!path.exists());
    }

    /// Several entries decided together: one write, all applied, under one lock.
    #[test]
    fn append_all_writes_its_entries_together() {
        let d = temp_dir();
        let path = d.path().join("log");
        let mut log = open_log(&path, "h", 1024).unwrap();
        log.append_all(|_| Ok::<_, PersistError>(vec!["a".into(), "b".into(), "c".into()]))
            .unwrap();
        log.append_all(|r| {
            assert_eq!(r.0, ["a", "b", "c"]);
            Ok::<_, PersistError>(Vec::new())
        })
        .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"h\na\nb\nc\n");
        // A bad entry among them: nothing is written.
        let e = log
            .append_all(|_| Ok::<_, PersistError>(vec!["d".into(), "e\nf".into()]))
            .unwrap_err();
        assert!(matches!(e, PersistError::Malformed { line: 6, .. }), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"h\na\nb\nc\n");
        let mut memory = Log::memory(Lines::default());
        memory
            .append_all(|_| Ok::<_, PersistError>(vec!["a".into(), "b".into()]))
            .unwrap();
        assert_eq!(memory.record().0, ["a", "b"]);
    }
}
