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
//!   symlink to an input counts as the input).
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
    /// A log's first line is not the header its owner expects (another kind of file,
    /// or the journal of another key).
    #[error("{}: first line is {found:?}, not {expected:?}", path.display())]
    Header {
        /// The file.
        path: PathBuf,
        /// The header expected.
        expected: String,
        /// The first line found (at most 200 bytes of it).
        found: String,
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
    /// Replace it (`--force`); inputs are still protected.
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
    /// destination created meanwhile).
    fn replace_rules(&self, dest: &Path) -> Result<(), PersistError> {
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
        }
        // symlink_metadata also sees a dangling symlink, which `link` would refuse.
        if self.replace == Replace::Never && std::fs::symlink_metadata(dest).is_ok() {
            return Err(PersistError::Exists {
                path: dest.to_path_buf(),
            });
        }
        Ok(())
    }

    /// Checks now that `dest` could be written: the rules above, and that a temporary
    /// file can be created in its folder (created and removed again). Call it before
    /// long work whose result goes to `dest`; [`Outputs::add`] and
    /// [`Outputs::commit`] check again.
    ///
    /// # Errors
    /// [`PersistError::Exists`], [`PersistError::IsInput`], or [`PersistError::Io`]
    /// if the folder is missing or not writable.
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
    /// [`PersistError::Exists`] or [`PersistError::IsInput`]; [`PersistError::Io`] if
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
    /// replacing is not allowed, [`PersistError::IsInput`], [`PersistError::Io`]. An
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

/// Writes one file: [`Outputs`] with a single output and no inputs.
///
/// # Errors
/// As [`Outputs::add`] and [`Outputs::commit`].
pub fn write(
    dest: &Path,
    bytes: &[u8],
    secrecy: Secrecy,
    replace: Replace,
) -> Result<(), PersistError> {
    let mut out = Outputs::new(replace);
    out.add(dest, bytes, secrecy)?;
    out.commit()
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

/// An append-only journal of text lines (printable ASCII, at most [`MAX_ENTRY`]
/// bytes each) after one header line, replayed into a [`Record`].
///
/// A memory log keeps only the record. A file log (see [`Log::open`]) is the file
/// `HEADER\nENTRY\nENTRY\n…`, mode 0600. [`Log::append`] takes an exclusive `flock`
/// on it, reads the entries other processes appended since, lets the caller decide
/// on the up-to-date record, appends the decided entry with one `write` and fsyncs
/// it, then unlocks: two processes sharing one file never both pass a check that
/// only one of them should. An incomplete last line (a `write` cut short by a crash;
/// its caller never went on, since the fsync had not returned) is ignored and cut off
/// before the next append.
#[derive(Debug)]
pub struct Log<R> {
    record: R,
    header: String,
    file: Option<FileLog>,
}

#[derive(Debug)]
struct FileLog {
    path: PathBuf,
    file: File,
    max: u64,
    /// Bytes of complete lines read so far (the next line starts here).
    read_to: u64,
    /// Complete lines read so far, the header included.
    lines: usize,
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
    /// The first line.
    pub header: String,
    /// The entries after it, replayed.
    pub record: R,
    /// How many entries there are.
    pub entries: usize,
    /// Whether the file ends in an incomplete line (a write cut short by a crash,
    /// which [`Log`] ignores and cuts off before its next append).
    pub incomplete_tail: bool,
}

/// Reads the bytes of a log file (for instance to say what it holds, without opening,
/// locking or creating anything): its header line, then its entries replayed into
/// `record`; `header_ok` decides whether the first line is the header expected.
///
/// # Errors
/// [`LineError`] for a line that is not printable ASCII or too long, a first line
/// `header_ok` refuses or that is missing, or an entry `record` refuses.
pub fn replay<R: Record>(
    bytes: &[u8],
    header_ok: impl FnOnce(&str) -> Result<(), String>,
    mut record: R,
) -> Result<Replayed<R>, LineError> {
    let at = |line: usize| move |reason: String| LineError { line, reason };
    let mut lines = complete_lines(bytes);
    let header = entry_text(
        lines
            .next()
            .ok_or_else(|| at(1)("no complete first line".into()))?,
    )
    .map_err(at(1))?;
    header_ok(header).map_err(at(1))?;
    let mut entries = 0;
    for (i, raw) in lines.enumerate() {
        record
            .apply(entry_text(raw).map_err(at(i + 2))?)
            .map_err(at(i + 2))?;
        entries += 1;
    }
    Ok(Replayed {
        header: header.to_string(),
        record,
        entries,
        incomplete_tail: !bytes.is_empty() && !bytes.ends_with(b"\n"),
    })
}

/// Opens `path` for reading and appending if it is a regular file, or creates it (mode
/// 0600) if nothing is there. A symlink, folder, device, FIFO or socket is refused
/// without being opened; the file opened is checked to be the one looked at.
fn open_regular(path: &Path) -> Result<File, PersistError> {
    let not_regular = || PersistError::NotRegular {
        path: path.to_path_buf(),
    };
    for _ in 0..4 {
        match std::fs::symlink_metadata(path) {
            Ok(meta) if !meta.file_type().is_file() => return Err(not_regular()),
            Ok(meta) => {
                let file = OpenOptions::new()
                    .read(true)
                    .append(true)
                    .open(path)
                    .map_err(io_error(path, "open"))?;
                let now = file.metadata().map_err(io_error(path, "open"))?;
                if FileId::of(&now) != FileId::of(&meta) || !now.is_file() {
                    return Err(not_regular());
                }
                return Ok(file);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                // O_CREAT | O_EXCL: never follows a symlink planted meanwhile.
                match OpenOptions::new()
                    .read(true)
                    .append(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(path)
                {
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

    fn malformed(&self, line: usize, reason: impl Into<String>) -> PersistError {
        PersistError::Malformed {
            path: self.path.clone(),
            line,
            reason: reason.into(),
        }
    }

    /// Reads the complete lines appended since the last call into `record` (checking
    /// the header first); returns the file's length.
    fn catch_up<R: Record>(&mut self, header: &str, record: &mut R) -> Result<u64, PersistError> {
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
        if len < self.read_to {
            return Err(self.malformed(
                self.lines,
                format!("the file shrank to {len} bytes since it was read; refusing to go on"),
            ));
        }
        let mut buf = vec![0u8; usize::try_from(len - self.read_to).unwrap_or(0)];
        self.file
            .read_exact_at(&mut buf, self.read_to)
            .map_err(io_error(&self.path, "read"))?;
        for raw in complete_lines(&buf) {
            let line = self.lines + 1;
            let text = entry_text(raw).map_err(|r| self.malformed(line, r))?;
            if line == 1 {
                if text != header {
                    return Err(PersistError::Header {
                        path: self.path.clone(),
                        expected: header.to_string(),
                        found: text.chars().take(200).collect(),
                    });
                }
            } else {
                record.apply(text).map_err(|r| self.malformed(line, r))?;
            }
            self.lines = line;
            self.read_to += raw.len() as u64 + 1;
        }
        Ok(len)
    }

    /// Appends `entry` and a newline in one `write` after cutting off an incomplete
    /// last line, then fsyncs.
    fn append_line(&mut self, entry: &str, len: u64) -> Result<(), PersistError> {
        if len > self.read_to {
            self.file
                .set_len(self.read_to)
                .map_err(io_error(&self.path, "cut off the incomplete last line of"))?;
        }
        let line = format!("{entry}\n");
        let after = self.read_to + line.len() as u64;
        if after > self.max {
            return Err(PersistError::TooLarge {
                path: self.path.clone(),
                len: after,
                max: self.max,
            });
        }
        let written = match (&self.file).write(line.as_bytes()) {
            Ok(n) if n == line.len() => Ok(()),
            Ok(_) => Err(io::Error::from(io::ErrorKind::WriteZero)),
            Err(e) => Err(e),
        };
        if let Err(e) = written {
            // Leave no partial entry behind (best effort: the next append cuts it too).
            let _ = self.file.set_len(self.read_to);
            return Err(io_error(&self.path, "append to")(e));
        }
        self.file.sync_all().map_err(io_error(&self.path, "sync"))?;
        self.read_to = after;
        self.lines += 1;
        Ok(())
    }
}

impl<R: Record> Log<R> {
    /// A log kept in memory only: `record` is all there is.
    pub fn memory(header: &str, record: R) -> Self {
        Log {
            record,
            header: header.to_string(),
            file: None,
        }
    }

    /// Opens the log file at `path`, creating it (mode 0600) with `header` as its first
    /// line if it does not exist or is empty, and replays its entries into `record`.
    /// The folder is fsynced when the header is written. The folder must exist.
    ///
    /// # Errors
    /// [`PersistError::NotRegular`] for a symlink or special file,
    /// [`PersistError::TooLarge`] past `max` bytes, [`PersistError::Header`] if the
    /// first line differs from `header`, [`PersistError::Malformed`] for a bad line,
    /// [`PersistError::Io`] if it cannot be created, locked, read or written.
    pub fn open(path: &Path, header: &str, max: u64, mut record: R) -> Result<Self, PersistError> {
        let file = open_regular(path)?;
        let mut log = FileLog {
            path: path.to_path_buf(),
            file,
            max,
            read_to: 0,
            lines: 0,
        };
        log.locked(|log| {
            let len = log.catch_up(header, &mut record)?;
            if log.lines == 0 {
                // New, or created by a process that died while writing the header
                // (then what is there is a beginning of it). Anything else is some
                // other file, which must not be truncated.
                let mut start = vec![0u8; usize::try_from(len).unwrap_or(usize::MAX).min(256)];
                log.file
                    .read_exact_at(&mut start, 0)
                    .map_err(io_error(&log.path, "read"))?;
                if !header.as_bytes().starts_with(&start) || len > header.len() as u64 {
                    return Err(PersistError::Header {
                        path: log.path.clone(),
                        expected: header.to_string(),
                        found: String::from_utf8_lossy(&start).chars().take(200).collect(),
                    });
                }
                // The header is the first line, and the new name is made durable.
                log.append_line(header, len)?;
                sync_folder(folder_of(&log.path))?;
            }
            Ok::<(), PersistError>(())
        })?;
        Ok(Log {
            record,
            header: header.to_string(),
            file: Some(log),
        })
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
    /// `decide`'s error (nothing is appended), or a [`PersistError`] converted to `E`:
    /// the file is unreadable, malformed or too large, or the entry cannot be written
    /// and synced (then the caller must not act on it).
    pub fn append<E: From<PersistError>>(
        &mut self,
        decide: impl FnOnce(&R) -> Result<Option<String>, E>,
    ) -> Result<(), E> {
        let header = &self.header;
        let record = &mut self.record;
        match &mut self.file {
            None => {
                if let Some(entry) = decide(record)? {
                    check_entry(&entry)
                        .and_then(|()| record.apply(&entry))
                        .map_err(|reason| PersistError::Malformed {
                            path: PathBuf::from("(journal in memory)"),
                            line: 0,
                            reason,
                        })?;
                }
                Ok(())
            }
            Some(file) => file.locked(|file| {
                let len = file.catch_up(header, record)?;
                if let Some(entry) = decide(record)? {
                    let line = file.lines + 1;
                    check_entry(&entry).map_err(|r| file.malformed(line, r))?;
                    file.append_line(&entry, len)?;
                    // Only an entry on disk counts: applied after the fsync. (An entry
                    // its own record rejects is a bug of the record's owner, and the
                    // next open reports it with its line.)
                    record.apply(&entry).map_err(|r| file.malformed(line, r))?;
                }
                Ok(())
            }),
        }
    }
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
        let mut log = Log::open(&path, "test-log: 1", 1024, Lines::default()).unwrap();
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
        let again = Log::open(&path, "test-log: 1", 1024, Lines::default()).unwrap();
        assert_eq!(again.record().0, ["one", "two"]);
        let e = Log::open(&path, "other-log: 1", 1024, Lines::default()).unwrap_err();
        assert!(matches!(e, PersistError::Header { .. }), "{e}");
        // Entries are single printable lines.
        let e = log
            .append(|_| Ok::<_, PersistError>(Some("two\nlines".into())))
            .unwrap_err();
        assert!(matches!(e, PersistError::Malformed { line: 4, .. }), "{e}");
        std::fs::write(&path, "test-log: 1\none\nbad\n").unwrap();
        let e = Log::open(&path, "test-log: 1", 1024, Lines::default()).unwrap_err();
        assert!(matches!(e, PersistError::Malformed { line: 3, .. }), "{e}");
    }

    #[test]
    fn log_sees_what_other_handles_appended() {
        let d = temp_dir();
        let path = d.path().join("log");
        let mut a = Log::open(&path, "h", 1024, Lines::default()).unwrap();
        let mut b = Log::open(&path, "h", 1024, Lines::default()).unwrap();
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
        let e = Log::open(&path, "h", 20, Lines::default()).unwrap_err();
        assert!(matches!(e, PersistError::Header { .. }), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"no newline");
        std::fs::write(&path, "head").unwrap();
        Log::open(&path, "header", 20, Lines::default()).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"header\n");
        std::fs::write(&path, "h\none\ntw").unwrap();
        let mut log = Log::open(&path, "h", 20, Lines::default()).unwrap();
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
        let e = Log::open(&path, "h", 20, Lines::default()).unwrap_err();
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
            let e = Log::open(p, "h", 1024, Lines::default()).unwrap_err();
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
        let e = Log::open(&fifo, "h", 1024, Lines::default()).unwrap_err();
        assert!(matches!(e, PersistError::NotRegular { .. }), "{e}");
    }

    /// `replay` reads the bytes of a log as `Log::open` does: the same record, the
    /// incomplete last line left out, each bad line named.
    #[test]
    fn replay_reads_a_log_as_open_does() {
        let dir = temp_dir();
        let path = dir.path().join("log");
        let mut log = Log::open(&path, "H", 1024, Lines::default()).unwrap();
        for e in ["a", "b"] {
            log.append(|_| Ok::<_, PersistError>(Some(e.to_string())))
                .unwrap();
        }
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend_from_slice(b"par");
        let is_h = |h: &str| {
            if h == "H" {
                Ok(())
            } else {
                Err(format!("not H: {h}"))
            }
        };
        let r = replay(&bytes, is_h, Lines::default()).unwrap();
        assert_eq!(
            (r.header.as_str(), r.entries, r.incomplete_tail),
            ("H", 2, true)
        );
        assert_eq!(
            r.record.0,
            Log::open(&path, "H", 1024, Lines::default())
                .unwrap()
                .record()
                .0
        );
        let err = |bytes: &[u8]| {
            replay(bytes, is_h, Lines::default())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(err(b"G\na\n"), "line 1: not H: G");
        assert_eq!(err(b"H\na\nbad\n"), "line 3: bad entry");
        assert_eq!(err(b"H\n\x01\n"), "line 2: not printable ASCII");
        assert_eq!(err(b"H"), "line 1: no complete first line");
    }
}
