//! The signer's record of state strings w it has signed with.
//!
//! Gentry–Ramzan is only secure if no signer ever signs two messages with the same w:
//! from two signatures `S'_k = r_k P_w + d_0 + c_k d_1` (k = 1, 2) of one signer under
//! one w, the combination `λ S'_1 + (1 − λ) S'_2` with `λ = (c* − c_2)/(c_1 − c_2)`
//! is a valid signature on any message whose `c = c*` (tests/ibas.rs shows this). A
//! first signer draws w fresh (128 random bits); a later signer (the moderator) signs
//! under someone else's w, so it must remember every w it has used and refuse a
//! repeat. Every signing call therefore claims w in a [`WJournal`] first.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use hopsig_primitives::codec::to_hex;

use super::W_LEN;
use crate::Error;

/// A set of used state strings that can only grow.
pub trait WJournal {
    /// Records `w` as used, durably for persistent journals, before the caller signs.
    ///
    /// # Errors
    /// [`Error::State`] if `w` was used before (the caller must not sign) or the
    /// record cannot be written.
    fn claim(&mut self, w: &[u8; W_LEN]) -> Result<(), Error>;
}

/// An in-memory journal: right for a process that holds its key for its lifetime.
#[derive(Debug, Default)]
pub struct MemoryJournal(HashSet<[u8; W_LEN]>);

impl WJournal for MemoryJournal {
    fn claim(&mut self, w: &[u8; W_LEN]) -> Result<(), Error> {
        if self.0.insert(*w) {
            Ok(())
        } else {
            Err(reused(w))
        }
    }
}

fn reused(w: &[u8; W_LEN]) -> Error {
    Error::State(format!(
        "this key already signed under w = {}; signing again would let anyone forge its signatures",
        to_hex(w)
    ))
}

/// A journal kept in a text file, one w per line in lowercase hex, appended and synced
/// to disk before each signature is released. Used by `hopsig sign` (next to the key
/// file, `KEY.wlog`) so that separate runs with one key never share a w.
#[derive(Debug)]
pub struct FileJournal {
    path: PathBuf,
    seen: MemoryJournal,
    file: File,
}

impl FileJournal {
    /// Opens (creating if needed) the journal at `path` and reads its entries.
    ///
    /// # Errors
    /// [`Error::State`] naming the file if it cannot be read or holds a malformed line.
    pub fn open(path: &Path) -> Result<Self, Error> {
        let io = |e: std::io::Error| Error::State(format!("{}: {e}", path.display()));
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        let mut seen = MemoryJournal::default();
        for (i, line) in BufReader::new(&file).lines().enumerate() {
            let line = line.map_err(io)?;
            let w = parse_line(line.trim()).ok_or_else(|| {
                Error::State(format!(
                    "{}: line {} is not {} hex digits",
                    path.display(),
                    i + 1,
                    2 * W_LEN
                ))
            })?;
            seen.0.insert(w);
        }
        Ok(FileJournal {
            path: path.to_path_buf(),
            seen,
            file,
        })
    }

    /// Number of state strings recorded.
    pub fn len(&self) -> usize {
        self.seen.0.len()
    }

    /// Whether no state string is recorded yet.
    pub fn is_empty(&self) -> bool {
        self.seen.0.is_empty()
    }
}

fn parse_line(line: &str) -> Option<[u8; W_LEN]> {
    if line.len() != 2 * W_LEN || !line.is_ascii() {
        return None;
    }
    let mut w = [0u8; W_LEN];
    for (i, byte) in w.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&line[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(w)
}

impl WJournal for FileJournal {
    fn claim(&mut self, w: &[u8; W_LEN]) -> Result<(), Error> {
        if self.seen.0.contains(w) {
            return Err(reused(w));
        }
        let io = |e: std::io::Error| Error::State(format!("{}: {e}", self.path.display()));
        writeln!(self.file, "{}", to_hex(w)).map_err(io)?;
        self.file.sync_data().map_err(io)?;
        self.seen.0.insert(*w);
        Ok(())
    }
}
