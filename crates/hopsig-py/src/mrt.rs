//! `hopsig.mrt` (native half): MRT files (RFC 6396) read as pybgpkit-parser reads them,
//! over `hopsig_bgp::mrt` — the same opening (plain, gzip, bzip2, xz, zstd by magic
//! bytes) and the same bgpkit-parser elements as hopsig's own `sign-mrt` and `replay`
//! (`hopsig_bgp::mrt::elems`), with the BGPsec_PATH decoded.
//!
//! | Python | what | file |
//! |---|---|---|
//! | `Parser(path)` | elements as dicts (pybgpkit-parser's `Elem.to_dict()` keys, plus `bgpsec_path`, `record`) | `mrt/rows.rs` |
//! | `Records(path)` | raw records as dicts (header, BGP4MP session, message bytes) | `mrt/rows.rs` |
//! | `_elem_columns(path)` | Arrow buffers of the elements, for `to_arrow` | `mrt/columns.rs` |
//!
//! Files are read a batch at a time with the GIL released (`mrt/stream.rs`); only the
//! dicts are made with it held.

mod columns;
mod rows;
mod stream;

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, TryLockError};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use columns::Columns;
use stream::{ElemSource, RecordSource, Source, Stream};

/// Rows read per batch unless the caller says otherwise.
const BATCH: usize = 4096;

/// Elements per Arrow record batch unless the caller says otherwise.
const CHUNK_ROWS: usize = 1 << 20;

/// Locks an iterator's stream, or says it is busy: a second Python thread waiting on
/// the lock while holding the GIL would deadlock the first, which needs the GIL back
/// to make its dicts (as a generator raises "generator already executing").
fn lock<T>(m: &Mutex<T>) -> PyResult<MutexGuard<'_, T>> {
    match m.try_lock() {
        Ok(g) => Ok(g),
        Err(TryLockError::WouldBlock) => Err(PyValueError::new_err(
            "this iterator is already being read by another thread",
        )),
        // A panic while reading (caught by pyo3) left it half-read: it stays readable,
        // and reads on from where the batch stopped.
        Err(TryLockError::Poisoned(p)) => Ok(p.into_inner()),
    }
}

/// The elements of an MRT file, in file order: one dict per prefix of every UPDATE
/// (announcements first, then withdrawals) and of every RIB entry, with the keys
/// and value types of pybgpkit-parser's ``Elem.to_dict()`` (``timestamp``,
/// ``elem_type``, ``peer_ip``, ``peer_asn``, ``peer_bgp_id``, ``prefix``, ``next_hop``,
/// ``as_path``, ``origin_asns``, ``origin``, ``local_pref``, ``med``, ``communities``,
/// ``atomic``, ``aggr_asn``, ``aggr_ip``, ``only_to_customer``), then ``bgpsec_path``
/// (the decoded BGPsec_PATH, RFC 8205 §3, or ``None``) and ``record`` (the index of
/// the MRT record, from 0).
///
/// The file is plain or compressed (gzip, bzip2, xz, zstd; detected by its first
/// bytes) and read ``batch_size`` elements at a time with the GIL released.
///
/// Raises :class:`hopsig.errors.InputError` with reason ``"io"`` if the file cannot be
/// opened, ``"mrt"`` if it is not MRT or (while iterating, after every element before
/// it) a record is cut short or malformed past reading on.
#[pyclass(module = "hopsig.mrt", frozen)]
pub struct Parser {
    path: PathBuf,
    stream: Mutex<Stream<ElemSource>>,
}

#[pymethods]
impl Parser {
    #[new]
    #[pyo3(signature = (path, *, batch_size = BATCH))]
    #[pyo3(text_signature = "(path, *, batch_size=4096)")]
    fn new(py: Python<'_>, path: PathBuf, batch_size: usize) -> PyResult<Parser> {
        let source = py
            .detach(|| ElemSource::open(&path))
            .map_err(|f| f.to_err())?;
        Ok(Parser {
            path,
            stream: Mutex::new(Stream::new(source, batch_size)),
        })
    }

    /// The file read.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    fn __iter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        lock(&self.stream)?.next(py)
    }

    fn __repr__(&self) -> String {
        format!("<hopsig.mrt.Parser {}>", self.path.display())
    }
}

/// The records of an MRT file, raw, in file order: one dict per record with
/// ``record`` (index from 0), ``timestamp``, ``microseconds`` (BGP4MP_ET, else
/// ``None``), ``type``, ``subtype`` (RFC 6396 §2), ``body`` (the bytes after the
/// common header and microseconds) and, for a BGP4MP message record (RFC 6396
/// §4.4.2–§4.4.6), ``peer_asn``, ``local_asn``, ``peer_ip``, ``local_ip``,
/// ``interface_index``, ``as_width`` (2 or 4), ``local`` (the collector sent it) and
/// ``message`` (the whole BGP message, header included) — ``None`` for other records.
/// ``error`` says why a BGP4MP message record's body does not decode (else ``None``).
///
/// Raises :class:`hopsig.errors.InputError` as :class:`Parser` does.
#[pyclass(module = "hopsig.mrt", frozen)]
pub struct Records {
    path: PathBuf,
    stream: Mutex<Stream<RecordSource>>,
}

#[pymethods]
impl Records {
    #[new]
    #[pyo3(signature = (path, *, batch_size = BATCH))]
    #[pyo3(text_signature = "(path, *, batch_size=4096)")]
    fn new(py: Python<'_>, path: PathBuf, batch_size: usize) -> PyResult<Records> {
        let source = py
            .detach(|| RecordSource::open(&path))
            .map_err(|f| f.to_err())?;
        Ok(Records {
            path,
            stream: Mutex::new(Stream::new(source, batch_size)),
        })
    }

    /// The file read.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    fn __iter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        lock(&self.stream)?.next(py)
    }

    fn __repr__(&self) -> String {
        format!("<hopsig.mrt.Records {}>", self.path.display())
    }
}

/// The elements of the MRT file at ``path`` as Arrow buffers, ``chunk_rows`` elements
/// per chunk: a list of dicts column name → ``(kind, length, null_count, validity,
/// *buffers)``. Read whole with the GIL released. ``hopsig.mrt.to_arrow`` is the
/// public function.
#[pyfunction]
#[pyo3(signature = (path, *, chunk_rows = CHUNK_ROWS))]
fn _elem_columns<'py>(
    py: Python<'py>,
    path: PathBuf,
    chunk_rows: usize,
) -> PyResult<Bound<'py, PyList>> {
    let chunk_rows = chunk_rows.max(1);
    let chunks = py
        .detach(|| {
            let mut source = ElemSource::open(&path)?;
            let mut chunks = Vec::new();
            let mut columns = Columns::default();
            let mut rows = std::collections::VecDeque::new();
            loop {
                source.fill(BATCH, &mut rows)?;
                if rows.is_empty() {
                    break;
                }
                for row in rows.drain(..) {
                    columns.push(&row);
                    if columns.rows() >= chunk_rows || columns.full() {
                        chunks.push(std::mem::take(&mut columns));
                    }
                }
            }
            if columns.rows() > 0 || chunks.is_empty() {
                chunks.push(columns);
            }
            Ok::<_, stream::Failure>(chunks)
        })
        .map_err(|f| f.to_err())?;
    let out = PyList::empty(py);
    for c in &chunks {
        out.append(c.to_py(py)?)?;
    }
    Ok(out)
}

/// The names of the element columns, in order (the keys of an element's dict).
#[pyfunction]
fn _elem_column_names() -> Vec<&'static str> {
    columns::NAMES.to_vec()
}

/// Adds this module's classes and functions to `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Parser>()?;
    m.add_class::<Records>()?;
    m.add_function(wrap_pyfunction!(_elem_columns, m)?)?;
    m.add_function(wrap_pyfunction!(_elem_column_names, m)?)?;
    Ok(())
}
