//! [`Log`]: append-only journals of text lines for signer state that must never go
//! backwards (the module documentation of [`super`] gives the discipline).

use super::*;

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
    /// it is ([`read_log`], `hopsig inspect`).
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
/// [`read_log`].
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

/// A line of a log read by [`read_log`] that is not what its log holds.
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
pub struct LogContents<R> {
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
pub fn read_log<R: Record>(
    bytes: &[u8],
    header: Header<'_>,
    mut record: R,
) -> Result<LogContents<R>, LineError> {
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
    Ok(LogContents {
        header: first.map(|l| String::from_utf8_lossy(l).into_owned()),
        record,
        entries: cursor.lines.saturating_sub(1),
        incomplete_tail: !bytes.is_empty() && !bytes.ends_with(b"\n"),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::super::test_support::*;
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

    /// `read_log` reads the bytes of a log as `Log::open` does: the same record, the
    /// incomplete last line left out, each bad line named, the beginning of a header
    /// (a creation cut short) read as the empty log `Log::open` completes.
    #[test]
    fn read_log_reads_a_log_as_open_does() {
        let dir = temp_dir();
        let path = dir.path().join("log");
        let mut log = open_log(&path, "H", 1024).unwrap();
        for e in ["a", "b"] {
            log.append(|_| Ok::<_, PersistError>(Some(e.to_string())))
                .unwrap();
        }
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend_from_slice(b"par");
        let r = read_log(&bytes, fixed("H"), Lines::default()).unwrap();
        assert_eq!(
            (r.header.as_deref(), r.entries, r.incomplete_tail),
            (Some("H"), 2, true)
        );
        assert_eq!(r.record.0, open_log(&path, "H", 1024).unwrap().record().0);
        let err = |bytes: &[u8]| {
            read_log(bytes, fixed("H"), Lines::default())
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
        let r = read_log(b"hea", fixed("header"), Lines::default()).unwrap();
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
            read_log(b"K 0a9f\nx\n", any, Lines::default())
                .unwrap()
                .header
                .as_deref(),
            Some("K 0a9f")
        );
        assert!(read_log(b"K 0a", any, Lines::default()).is_ok());
        for bad in [&b"K 0A9F\n"[..], b"K 0a9f0\n", b"K 0z", b"K 0a9f0"] {
            let e = read_log(bad, any, Lines::default()).unwrap_err();
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
