//! Reading an MRT file in batches with the GIL released: the sources of elements and of
//! raw records, and the buffer a Python iterator pops from.

use std::collections::VecDeque;
use std::fs::File;
use std::path::{Path, PathBuf};

use hopsig_bgp::mrt::elems::ElemRecords;
use hopsig_bgp::mrt::{self, Decompressed, OpenError};
use hopsig_bgp::trace::Records;
use hopsig_primitives::progress::Counted;
use pyo3::prelude::*;

use super::rows::{ElemRow, RecordRow};
use crate::errors;

/// An MRT file's decompressed bytes.
type Input = Decompressed<Counted<File>>;

/// Why reading stopped: an [`errors::input`] made once the GIL is held again.
#[derive(Debug, Clone)]
pub struct Failure {
    /// `io` (the file cannot be opened or read) or `mrt` (it is not MRT, or a record
    /// is malformed or cut short).
    pub reason: &'static str,
    /// The message, naming the file.
    pub message: String,
}

impl Failure {
    /// The Python exception.
    pub fn to_err(&self) -> PyErr {
        errors::input(self.reason, &self.message)
    }

    /// Reading `path` failed at `what`: `mrt`.
    fn mrt(path: &Path, what: impl std::fmt::Display) -> Failure {
        Failure {
            reason: "mrt",
            message: format!("{}: {what}", path.display()),
        }
    }
}

/// Opens the MRT file `path` as `hopsig_bgp::mrt::open` does (plain, gzip, bzip2, xz,
/// zstd by magic bytes).
///
/// # Errors
/// `io` if it cannot be opened or is no regular file, `mrt` if it is not MRT; both
/// messages name the file.
pub fn open(path: &Path) -> Result<Input, Failure> {
    match mrt::open(path) {
        Ok(f) => Ok(f.reader),
        Err(e @ OpenError::File(_)) => Err(Failure {
            reason: "io",
            message: e.to_string(),
        }),
        Err(e @ OpenError::Input { .. }) => Err(Failure {
            reason: "mrt",
            message: e.to_string(),
        }),
    }
}

/// Rows read from a file, a batch at a time.
pub trait Source: Send {
    /// One row.
    type Row: Send;
    /// Appends rows to `out` until it holds `n` or the file ends.
    ///
    /// # Errors
    /// Why the file cannot be read on; the rows before it are in `out`.
    fn fill(&mut self, n: usize, out: &mut VecDeque<Self::Row>) -> Result<(), Failure>;
    /// The row as a Python object.
    fn to_py<'py>(py: Python<'py>, row: &Self::Row) -> PyResult<Bound<'py, PyAny>>;
}

/// The elements of a file (pybgpkit-parser's, one per prefix).
pub struct ElemSource {
    path: PathBuf,
    records: ElemRecords<Input>,
}

impl ElemSource {
    /// The elements of the file at `path`.
    ///
    /// # Errors
    /// As [`open`].
    pub fn open(path: &Path) -> Result<ElemSource, Failure> {
        Ok(ElemSource {
            path: path.to_path_buf(),
            records: ElemRecords::new(open(path)?),
        })
    }
}

impl Source for ElemSource {
    type Row = ElemRow;

    fn fill(&mut self, n: usize, out: &mut VecDeque<ElemRow>) -> Result<(), Failure> {
        while out.len() < n {
            let Some(record) = self.records.next() else {
                return Ok(());
            };
            let record = record.map_err(|e| Failure::mrt(&self.path, e))?;
            // A record bgpkit-parser frames but cannot decode is skipped, as
            // pybgpkit-parser skips it.
            let elems = record.elems.unwrap_or_default();
            out.extend(elems.into_iter().map(|e| ElemRow::of(record.index, e)));
        }
        Ok(())
    }

    fn to_py<'py>(py: Python<'py>, row: &ElemRow) -> PyResult<Bound<'py, PyAny>> {
        Ok(row.to_dict(py)?.into_any())
    }
}

/// The raw records of a file.
pub struct RecordSource {
    path: PathBuf,
    records: std::iter::Enumerate<Records<Input>>,
}

impl RecordSource {
    /// The records of the file at `path`.
    ///
    /// # Errors
    /// As [`open`].
    pub fn open(path: &Path) -> Result<RecordSource, Failure> {
        Ok(RecordSource {
            path: path.to_path_buf(),
            records: Records::new(open(path)?).enumerate(),
        })
    }
}

impl Source for RecordSource {
    type Row = RecordRow;

    fn fill(&mut self, n: usize, out: &mut VecDeque<RecordRow>) -> Result<(), Failure> {
        while out.len() < n {
            let Some((index, record)) = self.records.next() else {
                return Ok(());
            };
            let record = record.map_err(|e| Failure::mrt(&self.path, e))?;
            let row = RecordRow::of(index as u64, &record)
                .map_err(|e| Failure::mrt(&self.path, format!("MRT record {index}: {e}")))?;
            out.push_back(row);
        }
        Ok(())
    }

    fn to_py<'py>(py: Python<'py>, row: &RecordRow) -> PyResult<Bound<'py, PyAny>> {
        Ok(row.to_dict(py)?.into_any())
    }
}

/// A source, the rows read ahead of the caller, and the failure to raise once they
/// are given out.
pub struct Stream<S: Source> {
    source: Option<S>,
    buffer: VecDeque<S::Row>,
    failure: Option<Failure>,
    batch: usize,
}

impl<S: Source> Stream<S> {
    /// Reads `source` `batch` rows at a time.
    pub fn new(source: S, batch: usize) -> Stream<S> {
        Stream {
            source: Some(source),
            buffer: VecDeque::new(),
            failure: None,
            batch: batch.max(1),
        }
    }

    /// The next row as a Python object, `None` at the end. An empty buffer is filled
    /// with the GIL released.
    ///
    /// # Errors
    /// The failure that stopped reading, once every row before it was given.
    pub fn next<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        if self.buffer.is_empty() {
            if let Some(mut source) = self.source.take() {
                let (buffer, batch) = (&mut self.buffer, self.batch);
                let (source, failure) = py.detach(move || {
                    let result = source.fill(batch, buffer);
                    let at_end = result.is_err() || buffer.len() < batch;
                    ((!at_end).then_some(source), result.err())
                });
                self.source = source;
                self.failure = failure;
            }
        }
        match self.buffer.pop_front() {
            Some(row) => S::to_py(py, &row).map(Some),
            None => match self.failure.take() {
                Some(f) => Err(f.to_err()),
                None => Ok(None),
            },
        }
    }
}
