//! The signer's record of the state strings w it has signed under, and of what.
//!
//! Gentry–Ramzan is only secure if no signer ever signs two different messages with
//! the same w: from two signatures `S'_k = r_k P_w + d_0 + c_k d_1` (k = 1, 2) of one
//! signer under one w, the combination `λ S'_1 + (1 − λ) S'_2` with
//! `λ = (c* − c_2)/(c_1 − c_2)` is a valid signature on any message whose `c = c*`
//! (tests/ibas.rs shows this). A first signer draws w fresh (128 random bits); a later
//! signer (the moderator) signs under someone else's w, so it must remember every w it
//! has used.
//!
//! **The rule.** A signer's r is derived from its key, w and the message
//! ([`super::signer_r`]), so signing the *same* message under the same w again yields
//! the identical signature and reveals nothing new. The journal therefore records, for
//! each w, SHA-256 of the message signed under it. Claiming (w, m) before signing:
//! passes and records (w, SHA-256(m)) if w is new; passes and records nothing if w is
//! recorded with the same digest (a retry, e.g. after the output could not be
//! written); is refused with [`StateError::ReusedW`] if w is recorded with another
//! digest, or with an unknown message (an entry imported from a version-1 journal).
//!
//! **Bound to the key, not to a file name.** A journal belongs to one key, named by
//! its [`key_binding`]; a file journal records the binding in its first line and
//! refuses any other key ([`StateError::OtherKey`]). [`file_name`] derives a journal's
//! name in a state folder from the binding, so every copy, hard link or re-extraction
//! of one key finds the same journal. The file format is in `docs/spec/ibas.md`.
//!
//! **One journal type** ([`Journal`]) over a [`Log`] of claims, in memory
//! ([`Journal::memory`]: a process that holds its key for its lifetime) or in a file
//! ([`Journal::open`]), as HORS counters are ([`hopsig_primitives::hors::Counter`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use hopsig_primitives::codec::{from_hex, to_hex};
use hopsig_primitives::hash::sha256;
use hopsig_primitives::persist::{read_log, Header, Log, NewLog, Owner, PersistError, Record};

use super::{UserKey, W_LEN};
use crate::{Error, StateError};

/// Largest journal file: 16 MiB, about 170,000 signatures of one key (98 bytes each).
pub const MAX_JOURNAL_BYTES: u64 = 16 << 20;

/// Domain-separation prefix of the key binding.
const BINDING_TAG: &[u8] = b"HOPSIG-IBAS-V01-JOURNAL-KEY";

/// The first line of a journal file: this kind, then the key binding in hex.
fn header(owner: Owner<'_>) -> Header<'_> {
    Header {
        what: "an IBAS journal",
        kind: "hopsig-ibas-wlog: 1 key ",
        owner,
    }
}

/// Names a user key: `SHA-256("HOPSIG-IBAS-V01-JOURNAL-KEY" ‖ Q ‖ I2OSP(len(ID), 2) ‖ ID)`
/// with Q the PKG's compressed parameter (96 bytes) and ID the identity's UTF-8 bytes.
///
/// (ID, Q) determine the key: a user key is accepted only if `e(d_j, P) = e(H1(ID, j), Q)`
/// (j = 0, 1), which has exactly one solution `d_j`. So the binding names the key
/// itself — every copy and every re-extraction of it — without hashing secret bytes.
pub fn key_binding(key: &UserKey) -> [u8; 32] {
    let id = key.identity().as_bytes();
    // Identities are at most MAX_IDENTITY_LEN (1024) bytes, checked where they are made.
    let len = u16::try_from(id.len()).unwrap_or(u16::MAX).to_be_bytes();
    sha256(&[BINDING_TAG, &key.params().to_bytes(), &len, id])
}

/// The name of `key`'s journal in a state folder: `ibas-` + the [`key_binding`] in
/// lowercase hex + `.wlog`.
pub fn file_name(key: &UserKey) -> String {
    format!("ibas-{}.wlog", to_hex(&key_binding(key)))
}

/// What a key signed under one w.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Signed {
    /// A message with this SHA-256.
    Message([u8; 32]),
    /// A message hopsig no longer knows (imported from a version-1 journal).
    Unknown,
}

/// The claims a journal's entries add up to.
#[derive(Debug, Default)]
struct Claims(HashMap<[u8; W_LEN], Signed>);

/// One entry: `W SP D`, with W the state string in hex and D the message's SHA-256 in
/// hex or `-` for an unknown message.
fn entry(w: &[u8; W_LEN], signed: Signed) -> String {
    match signed {
        Signed::Message(d) => format!("{} {}", to_hex(w), to_hex(&d)),
        Signed::Unknown => format!("{} -", to_hex(w)),
    }
}

impl Record for Claims {
    fn apply(&mut self, line: &str) -> Result<(), String> {
        let malformed = || {
            format!(
                "not \"W D\" ({} lowercase hex digits, a space, {} hex digits or -)",
                2 * W_LEN,
                64
            )
        };
        let (w, d) = line.split_once(' ').ok_or_else(malformed)?;
        let w = from_hex::<W_LEN>(w).ok_or_else(malformed)?;
        let signed = match d {
            "-" => Signed::Unknown,
            d => Signed::Message(from_hex::<32>(d).ok_or_else(malformed)?),
        };
        match self.0.get(&w) {
            None => {
                self.0.insert(w, signed);
                Ok(())
            }
            Some(s) if *s == signed => Ok(()),
            Some(_) => Err(format!(
                "w = {} is recorded with two different messages",
                to_hex(&w)
            )),
        }
    }
}

/// The claim rule on an up-to-date record: the entry to append, if any.
fn decide(claims: &Claims, w: &[u8; W_LEN], digest: [u8; 32]) -> Result<Option<String>, Error> {
    match claims.0.get(w) {
        None => Ok(Some(entry(w, Signed::Message(digest)))),
        Some(Signed::Message(d)) if *d == digest => Ok(None),
        Some(_) => Err(StateError::ReusedW { w: *w }.into()),
    }
}

/// What the bytes of a journal file hold (`hopsig inspect`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The [`key_binding`] of the key it belongs to; `None` if the file holds only the
    /// beginning of its header (a creation cut short, which [`Journal::open`]
    /// completes for the key it names, if any).
    pub key: Option<[u8; 32]>,
    /// State strings w recorded.
    pub states: usize,
    /// Of those, how many with an unknown message (imported from a version-1 journal).
    pub unknown_messages: usize,
    /// Whether the file ends in an incomplete line (a claim cut short by a crash,
    /// ignored).
    pub incomplete_tail: bool,
}

/// Whether `bytes` start like a journal file (its header's first word).
pub fn sniff(bytes: &[u8]) -> bool {
    let kind = header(Owner::Hex(64)).kind;
    bytes.starts_with(kind.split(' ').next().unwrap_or(kind).as_bytes())
}

/// Reads the bytes of a journal file with the reader [`Journal::open`] uses (every rule
/// of `docs/spec/ibas.md`, the beginning of a header included), without opening,
/// locking or creating anything.
///
/// # Errors
/// [`Error::StateFileLine`] naming the line: a first line that is not a journal header,
/// an entry that is not `W D`, a w recorded with two messages.
pub fn summary(bytes: &[u8]) -> Result<Summary, Error> {
    let any_key = header(Owner::Hex(64));
    let replayed = read_log(bytes, any_key, Claims::default())?;
    let claims = &replayed.record.0;
    Ok(Summary {
        key: replayed
            .header
            .as_deref()
            .and_then(|h| h.strip_prefix(any_key.kind))
            .and_then(from_hex::<32>),
        states: claims.len(),
        unknown_messages: claims.values().filter(|s| **s == Signed::Unknown).count(),
        incomplete_tail: replayed.incomplete_tail,
    })
}

/// A journal of the state strings one key has signed under (see the [module
/// docs](self) and `docs/spec/ibas.md`): in memory, or a [`Log`] file locked across
/// read, check and append, one `write` and an fsync per claim, created with mode 0600,
/// at most [`MAX_JOURNAL_BYTES`].
#[derive(Debug)]
pub struct Journal {
    log: Log<Claims>,
    /// The key it belongs to: fixed by the file, or by the first claim in memory.
    key: Option<[u8; 32]>,
}

impl Journal {
    /// An in-memory journal: right for a process that holds its key for its lifetime.
    /// It binds to the first key that claims through it.
    pub fn memory() -> Self {
        Journal {
            log: Log::memory(Claims::default()),
            key: None,
        }
    }

    /// Opens `key`'s journal file at `path`. Where there is no journal yet (no file,
    /// an empty one, or the beginning of the header), it starts one — creates the file
    /// and records the key binding in it — if `new` allows it ([`Journal::started`]
    /// says whether it did). The folder must exist.
    ///
    /// A new journal knows none of the state strings the key signed under before, so
    /// starting one is for a key that never signed, or a journal kept where every
    /// signer of that key looks (`hopsig sign` starts one unasked only in the default
    /// state folder).
    ///
    /// # Errors
    /// [`Error::State`]: [`StateError::OtherKey`] if the file is another key's
    /// journal; [`StateError::Journal`] naming the file if there is no journal and
    /// `new` is [`NewLog::Refused`] ([`PersistError::NoLog`]), or it is not a regular
    /// file, too large, malformed, not a journal, or cannot be created, locked or read.
    pub fn open(path: &Path, key: &UserKey, new: NewLog) -> Result<Self, Error> {
        let binding = key_binding(key);
        let hex = to_hex(&binding);
        let log = Log::open(
            path,
            header(Owner::Is(&hex)),
            MAX_JOURNAL_BYTES,
            Claims::default(),
            new,
        )
        .map_err(|e| match e {
            PersistError::Header {
                path,
                found: Some(found),
                ..
            } => other_key(path, &found, &binding),
            other => StateError::Journal(other).into(),
        })?;
        Ok(Journal {
            log,
            key: Some(binding),
        })
    }

    /// Whether [`Journal::open`] started this journal (created it).
    pub fn started(&self) -> bool {
        self.log.started()
    }

    /// The file, for a file journal.
    pub fn path(&self) -> Option<&Path> {
        self.log.path()
    }

    /// Number of state strings recorded.
    pub fn len(&self) -> usize {
        self.log.record().0.len()
    }

    /// Whether no state string is recorded yet.
    pub fn is_empty(&self) -> bool {
        self.log.record().0.is_empty()
    }

    /// Records that `key` signs `msg` under `w` (durably, for a file journal) before
    /// the caller signs; see the rule in the [module docs](self).
    ///
    /// # Errors
    /// [`Error::State`]: [`StateError::ReusedW`] if `key` signed another message under
    /// `w` (the caller must not sign), [`StateError::OtherKey`] if the journal belongs
    /// to another key, [`StateError::Journal`] if the record cannot be kept.
    pub fn claim(&mut self, key: &UserKey, w: &[u8; W_LEN], msg: &[u8]) -> Result<(), Error> {
        let binding = key_binding(key);
        match self.key {
            None => self.key = Some(binding),
            Some(k) if k != binding => {
                let path = self.path().unwrap_or(Path::new("(journal in memory)"));
                return Err(other_key(path.to_path_buf(), &to_hex(&k), &binding));
            }
            Some(_) => {}
        }
        let digest = sha256(&[msg]);
        self.log.append(|claims| decide(claims, w, digest))
    }

    /// Imports a version-1 journal (hopsig's earlier `KEY.wlog`: one w per line, 32 hex
    /// digits, no message): each w not yet recorded is recorded with an unknown
    /// message, so that nothing may be signed under it again. All of them are appended
    /// together, under one lock, with one `write`. `source` only names the text in
    /// errors. Returns the number of state strings added.
    ///
    /// # Errors
    /// [`StateError::Journal`] with [`PersistError::Malformed`] naming `source` and the
    /// line if a line is not 32 hex digits (nothing is imported); as
    /// [`Journal::claim`] if the journal cannot be written.
    pub fn import_v1(&mut self, source: &Path, text: &[u8]) -> Result<usize, Error> {
        let mut listed = Vec::new();
        for (i, line) in text.split(|&b| b == b'\n').enumerate() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                continue;
            }
            let w = std::str::from_utf8(line)
                .ok()
                .and_then(|l| from_hex::<W_LEN>(&l.to_ascii_lowercase()))
                .ok_or_else(|| {
                    Error::from(StateError::Journal(PersistError::Malformed {
                        path: source.to_path_buf(),
                        line: i + 1,
                        // The file is read only because of its name (KEY.wlog):
                        // say what it was taken for.
                        reason: format!(
                            "not a line of a version-1 IBAS journal ({} hex digits), which a file named KEY.wlog beside the key is read as",
                            2 * W_LEN
                        ),
                    }))
                })?;
            listed.push(w);
        }
        let mut added = 0;
        self.log.append_all(|claims| {
            let mut seen = std::collections::HashSet::new();
            let entries: Vec<String> = listed
                .iter()
                .filter(|w| !claims.0.contains_key(*w) && seen.insert(**w))
                .map(|w| entry(w, Signed::Unknown))
                .collect();
            added = entries.len();
            Ok::<_, Error>(entries)
        })?;
        Ok(added)
    }
}

fn other_key(path: PathBuf, found: &str, expected: &[u8; 32]) -> Error {
    StateError::OtherKey {
        path,
        found: found.to_string(),
        expected: to_hex(expected),
    }
    .into()
}
