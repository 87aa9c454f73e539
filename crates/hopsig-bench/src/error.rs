//! The one error type of the engines: every message is the line the `hopsig` binary
//! prints after `hopsig: error: ` (exit status 2).

use std::path::{Path, PathBuf};

/// Why a benchmark, a replay or the reproduction stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A step failed; `context` says which (`benchmark setup failed`, `benchmark
    /// operation failed`, `replay setup failed`, `bench pla`).
    #[error("{context}: {message}")]
    Failed {
        /// The step.
        context: &'static str,
        /// What went wrong in it.
        message: String,
    },
    /// A file (a trace, a data file) that cannot be read or holds nothing usable.
    #[error("{}: {message}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A data file the run needs is not in the data folder.
    #[error("{}: data file not found (the data folder is set with --data; default {})", path.display(), crate::DEFAULT_DATA)]
    MissingData {
        /// Where it was looked for.
        path: PathBuf,
    },
    /// A name that is not in one of the tables (a suite, a replay scheme).
    #[error("unknown {what} '{name}'{place} (available: {available})")]
    Unknown {
        /// What was named: `suite`, `scheme`.
        what: &'static str,
        /// The name given.
        name: String,
        /// Where it was given, with a leading space (` for --schemes`), or empty.
        place: &'static str,
        /// The table's names, comma-separated.
        available: String,
    },
    /// Any other failure, said in full.
    #[error("{0}")]
    Input(String),
}

impl Error {
    /// `benchmark setup failed: e` (key generation, fixtures).
    pub fn setup(e: impl std::fmt::Display) -> Error {
        Error::failed("benchmark setup failed", e)
    }

    /// `context: e`.
    pub fn failed(context: &'static str, e: impl std::fmt::Display) -> Error {
        Error::Failed {
            context,
            message: e.to_string(),
        }
    }

    /// `path: e`.
    pub fn at(path: &Path, e: impl std::fmt::Display) -> Error {
        Error::File {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }
}
