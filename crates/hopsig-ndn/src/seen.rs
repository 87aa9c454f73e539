//! The subscriber's replay memory (docs/spec/ndn-ibas.md §5 "Replay memory"): for each
//! publisher and state string w it has accepted, the digest of the message m_1 signed
//! under it. A second m_1 under one w is a replayed or reused w (004 §2.3: w must never
//! sign two messages) and is refused; the same m_1 again (the same Data (4) fetched
//! twice) passes.
//!
//! In memory ([`SeenW::memory`], for one run) or in a file ([`SeenW::open`]) kept by
//! the machinery that keeps `hopsig sign`'s IBAS journal
//! ([`hopsig_primitives::persist::Log`]: locked across read, check and append, one
//! fsynced `write` per entry, mode 0600, size capped), so that the memory outlives the
//! process.

use std::collections::HashMap;
use std::path::Path;

use hopsig_primitives::codec::{from_hex, to_hex};
use hopsig_primitives::hash::sha256;
use hopsig_primitives::persist::{Header, Log, NewLog, Owner, PersistError, Record};
use hopsig_schemes::ibas::W_LEN;

use crate::name::Name;

/// Largest file: 16 MiB, about 100,000 state strings (163 bytes each).
pub const MAX_SEEN_BYTES: u64 = 16 << 20;

/// The name of the file in a state folder.
pub const FILE_NAME: &str = "ndn-seen-w.log";

/// The first line of the file.
const HEADER: Header<'static> = Header {
    what: "an NDN replay memory",
    kind: "hopsig-ndn-seen-w: 1",
    owner: Owner::Is(""),
};

/// (SHA-256 of the publisher's identity, w) → SHA-256 of m_1.
#[derive(Debug, Default)]
pub struct Seen(HashMap<([u8; 32], [u8; W_LEN]), [u8; 32]>);

/// One entry: `W SP P SP D`, lowercase hex: w, SHA-256 of the publisher's identity,
/// SHA-256 of m_1.
fn entry(w: &[u8; W_LEN], publisher: &[u8; 32], digest: &[u8; 32]) -> String {
    format!("{} {} {}", to_hex(w), to_hex(publisher), to_hex(digest))
}

impl Record for Seen {
    fn apply(&mut self, line: &str) -> Result<(), String> {
        let malformed = || {
            format!(
                "not \"W P D\" ({} lowercase hex digits, a space, 64, a space, 64)",
                2 * W_LEN
            )
        };
        let mut fields = line.split(' ');
        let (Some(w), Some(p), Some(d), None) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            return Err(malformed());
        };
        let (w, p, d) = (
            from_hex::<W_LEN>(w).ok_or_else(malformed)?,
            from_hex::<32>(p).ok_or_else(malformed)?,
            from_hex::<32>(d).ok_or_else(malformed)?,
        );
        match self.0.insert((p, w), d) {
            Some(old) if old != d => Err(format!(
                "w = {} is recorded with two different messages",
                to_hex(&w)
            )),
            _ => Ok(()),
        }
    }
}

/// Why a message was not noted.
#[derive(Debug, thiserror::Error)]
pub enum SeenError {
    /// Another message was accepted under this publisher's w.
    #[error("another message was accepted under w {}", to_hex(.0))]
    Replayed([u8; W_LEN]),
    /// The file cannot be read or appended to.
    #[error(transparent)]
    File(#[from] PersistError),
}

/// The state strings w a subscriber accepted, per publisher, with the digest of their
/// m_1 (see the [module docs](self)).
#[derive(Debug)]
pub struct SeenW(Log<Seen>);

impl Default for SeenW {
    fn default() -> Self {
        SeenW::memory()
    }
}

impl SeenW {
    /// A memory for this process only.
    pub fn memory() -> Self {
        SeenW(Log::memory(Seen::default()))
    }

    /// The memory in the file `path`, started (created) if there is none yet. The
    /// folder must exist.
    ///
    /// # Errors
    /// [`PersistError`] naming the file: a symlink or special file, not such a file,
    /// a malformed line, too large, or it cannot be created, locked or read.
    pub fn open(path: &Path) -> Result<Self, PersistError> {
        Log::open(
            path,
            HEADER,
            MAX_SEEN_BYTES,
            Seen::default(),
            NewLog::Allowed,
        )
        .map(SeenW)
    }

    /// The file, for a memory kept in one.
    pub fn path(&self) -> Option<&Path> {
        self.0.path()
    }

    /// Notes that `publisher` signed `m1` under `w` (durably, for a file), or refuses
    /// if another m_1 was noted under that publisher's `w`.
    ///
    /// # Errors
    /// [`SeenError::Replayed`], or [`SeenError::File`] if the file cannot be kept.
    pub fn note(&mut self, publisher: &Name, w: &[u8; W_LEN], m1: &[u8]) -> Result<(), SeenError> {
        let p = sha256(&[publisher.to_string().as_bytes()]);
        let d = sha256(&[m1]);
        self.0.append(|seen| match seen.0.get(&(p, *w)) {
            None => Ok(Some(entry(w, &p, &d))),
            Some(old) if *old == d => Ok(None),
            Some(_) => Err(SeenError::Replayed(*w)),
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The file format of docs/spec/ndn-ibas.md §5: the header, `W P D` lines, and a
    /// (P, W) with two digests or a malformed line refused with its line number.
    #[test]
    fn the_file_is_the_documented_log() {
        let dir = std::env::temp_dir().join(format!("hopsig-seen-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(FILE_NAME);
        let alice: Name = "/wonderland/Alice".parse().unwrap();
        let w = [7u8; W_LEN];
        let mut seen = SeenW::open(&path).unwrap();
        seen.note(&alice, &w, b"m1").unwrap();
        seen.note(&alice, &w, b"m1").unwrap();
        assert!(matches!(
            seen.note(&alice, &w, b"other"),
            Err(SeenError::Replayed(x)) if x == w
        ));
        // Another publisher's w is its own.
        let bob: Name = "/wonderland/Bob".parse().unwrap();
        seen.note(&bob, &w, b"other").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let line = format!(
            "{} {} {}",
            "07".repeat(W_LEN),
            to_hex(&sha256(&[b"/wonderland/Alice"])),
            to_hex(&sha256(&[b"m1"]))
        );
        assert!(
            text.starts_with(&format!("hopsig-ndn-seen-w: 1\n{line}\n")),
            "{text}"
        );
        assert_eq!(text.lines().count(), 3);
        let (w_hex, rest) = line.split_once(' ').unwrap();
        let (p_hex, _) = rest.split_once(' ').unwrap();
        let twice = format!(
            "hopsig-ndn-seen-w: 1\n{line}\n{w_hex} {p_hex} {}\n",
            "00".repeat(32)
        );
        std::fs::write(&path, twice).unwrap();
        let e = SeenW::open(&path).unwrap_err();
        assert!(matches!(e, PersistError::Malformed { line: 3, .. }), "{e}");
        std::fs::write(&path, "hopsig-ndn-seen-w: 1\nAB cd ef\n").unwrap();
        let e = SeenW::open(&path).unwrap_err();
        assert!(matches!(e, PersistError::Malformed { line: 2, .. }), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
