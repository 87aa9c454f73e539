//! The elements of a file as Arrow columns, built in Rust: each column's buffers in the
//! Arrow columnar format (validity bitmap, 32-bit offsets, little-endian values), which
//! `hopsig.mrt.to_arrow` wraps with `pyarrow.Array.from_buffers` without copying or
//! making one Python object per value.
//!
//! The columns are the keys of an element's dict, in the same order (`SCHEMA` in
//! python/hopsig/mrt.py documents the types).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use super::rows::ElemRow;

/// Most string or list octets in one chunk: 32-bit Arrow offsets stay far below
/// `i32::MAX`.
pub const MAX_CHUNK_BYTES: usize = 1 << 30;

/// A validity bitmap (least significant bit first, 1 = present).
#[derive(Default)]
struct Validity {
    bits: Vec<u8>,
    len: usize,
    nulls: usize,
}

impl Validity {
    fn push(&mut self, present: bool) {
        if self.len.is_multiple_of(8) {
            self.bits.push(0);
        }
        if present {
            if let Some(last) = self.bits.last_mut() {
                *last |= 1 << (self.len % 8);
            }
        } else {
            self.nulls += 1;
        }
        self.len += 1;
    }
}

/// Variable-length values: offsets into `data`.
struct Var {
    offsets: Vec<i32>,
    data: Vec<u8>,
}

impl Default for Var {
    fn default() -> Var {
        Var {
            offsets: vec![0],
            data: Vec::new(),
        }
    }
}

impl Var {
    fn push(&mut self, value: &[u8]) {
        self.data.extend_from_slice(value);
        // Chunks end before MAX_CHUNK_BYTES, so the offset fits.
        self.offsets
            .push(i32::try_from(self.data.len()).unwrap_or(i32::MAX));
    }
}

/// One column being built.
enum Column {
    U64(Vec<u64>),
    F64(Vec<f64>),
    U32(Vec<u32>, Validity),
    Str(Var, Validity),
    Bin(Var, Validity),
    ListU32(Vec<i32>, Vec<u32>, Validity),
    ListStr(Vec<i32>, Var, Validity),
}

/// The names of the columns, in order.
pub const NAMES: [&str; 19] = [
    "timestamp",
    "elem_type",
    "peer_ip",
    "peer_asn",
    "peer_bgp_id",
    "prefix",
    "next_hop",
    "as_path",
    "origin_asns",
    "origin",
    "local_pref",
    "med",
    "communities",
    "atomic",
    "aggr_asn",
    "aggr_ip",
    "only_to_customer",
    "bgpsec_path",
    "record",
];

/// The columns of a chunk of elements.
pub struct Columns {
    rows: usize,
    bytes: usize,
    columns: Vec<Column>,
}

impl Default for Columns {
    fn default() -> Columns {
        use Column::*;
        let s = || Str(Var::default(), Validity::default());
        let u = || U32(Vec::new(), Validity::default());
        Columns {
            rows: 0,
            bytes: 0,
            columns: vec![
                F64(Vec::new()),
                s(),
                s(),
                u(),
                s(),
                s(),
                s(),
                s(),
                ListU32(vec![0], Vec::new(), Validity::default()),
                s(),
                u(),
                u(),
                ListStr(vec![0], Var::default(), Validity::default()),
                s(),
                u(),
                s(),
                u(),
                Bin(Var::default(), Validity::default()),
                U64(Vec::new()),
            ],
        }
    }
}

/// One value of a row, in the column's kind.
enum Value<'a> {
    U64(u64),
    F64(f64),
    U32(Option<u32>),
    Bytes(Option<&'a [u8]>),
    ListU32(Option<&'a [u32]>),
    ListStr(Option<&'a [String]>),
}

impl Columns {
    /// Rows so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Whether the chunk is as large as it may grow.
    pub fn full(&self) -> bool {
        self.bytes >= MAX_CHUNK_BYTES
    }

    /// Appends `row`.
    pub fn push(&mut self, row: &ElemRow) {
        fn s(v: &Option<String>) -> Option<&[u8]> {
            v.as_deref().map(str::as_bytes)
        }
        let values = [
            Value::F64(row.timestamp),
            Value::Bytes(Some(row.elem_type().as_bytes())),
            Value::Bytes(Some(row.peer_ip.as_bytes())),
            Value::U32(Some(row.peer_asn)),
            Value::Bytes(s(&row.peer_bgp_id)),
            Value::Bytes(Some(row.prefix.as_bytes())),
            Value::Bytes(s(&row.next_hop)),
            Value::Bytes(s(&row.as_path)),
            Value::ListU32(row.origin_asns.as_deref()),
            Value::Bytes(s(&row.origin)),
            Value::U32(row.local_pref),
            Value::U32(row.med),
            Value::ListStr(row.communities.as_deref()),
            Value::Bytes(Some(row.atomic_text().as_bytes())),
            Value::U32(row.aggr_asn),
            Value::Bytes(s(&row.aggr_ip)),
            Value::U32(row.only_to_customer),
            Value::Bytes(row.bgpsec_raw.as_deref()),
            Value::U64(row.record),
        ];
        for (column, value) in self.columns.iter_mut().zip(values) {
            self.bytes += push(column, value);
        }
        self.rows += 1;
    }

    /// The chunk as a dict of column name → `(kind, length, null_count, validity,
    /// *buffers)`, the buffers as `bytes` (python/hopsig/mrt.py `_array` reads it).
    pub fn to_py<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let n = self.rows;
        let bytes = |b: &[u8]| PyBytes::new(py, b);
        let offsets = |v: &[i32]| bytes(&le(v, |x| x.to_le_bytes()));
        let valid = |v: &Validity| (v.nulls > 0).then(|| bytes(&v.bits));
        for (name, column) in NAMES.iter().zip(&self.columns) {
            let spec = match column {
                Column::U64(v) => {
                    let values = bytes(&le(v, u64::to_le_bytes));
                    ("u64", n, 0, None::<Bound<'py, PyBytes>>, values).into_pyobject(py)?
                }
                Column::F64(v) => {
                    let values = bytes(&le(v, f64::to_le_bytes));
                    ("f64", n, 0, None::<Bound<'py, PyBytes>>, values).into_pyobject(py)?
                }
                Column::U32(v, validity) => {
                    let values = bytes(&le(v, u32::to_le_bytes));
                    ("u32", n, validity.nulls, valid(validity), values).into_pyobject(py)?
                }
                Column::Str(var, validity) | Column::Bin(var, validity) => {
                    let kind = if matches!(column, Column::Str(..)) {
                        "str"
                    } else {
                        "bin"
                    };
                    let (o, data) = (offsets(&var.offsets), bytes(&var.data));
                    (kind, n, validity.nulls, valid(validity), o, data).into_pyobject(py)?
                }
                Column::ListU32(o, values, validity) => {
                    let child = bytes(&le(values, u32::to_le_bytes));
                    let (o, len) = (offsets(o), values.len());
                    let nulls = validity.nulls;
                    ("list_u32", n, nulls, valid(validity), o, len, child).into_pyobject(py)?
                }
                Column::ListStr(o, child, validity) => {
                    let (o, len) = (offsets(o), child.offsets.len() - 1);
                    let (co, data) = (offsets(&child.offsets), bytes(&child.data));
                    let nulls = validity.nulls;
                    ("list_str", n, nulls, valid(validity), o, len, co, data).into_pyobject(py)?
                }
            };
            d.set_item(*name, spec)?;
        }
        Ok(d)
    }
}

/// `values` as little-endian octets, as Arrow lays them out.
fn le<T: Copy, const N: usize>(values: &[T], to_le: fn(T) -> [u8; N]) -> Vec<u8> {
    values.iter().flat_map(|&x| to_le(x)).collect()
}

/// Appends `value` to `column` (of its kind; a value of another kind is a bug and
/// appends nothing); returns the octets of variable-length data added.
fn push(column: &mut Column, value: Value<'_>) -> usize {
    let offset = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    match (column, value) {
        (Column::U64(v), Value::U64(x)) => v.push(x),
        (Column::F64(v), Value::F64(x)) => v.push(x),
        (Column::U32(v, valid), Value::U32(x)) => {
            v.push(x.unwrap_or(0));
            valid.push(x.is_some());
        }
        (Column::Str(var, valid) | Column::Bin(var, valid), Value::Bytes(x)) => {
            var.push(x.unwrap_or_default());
            valid.push(x.is_some());
            return x.map_or(0, <[u8]>::len);
        }
        (Column::ListU32(offsets, values, valid), Value::ListU32(x)) => {
            values.extend_from_slice(x.unwrap_or_default());
            offsets.push(offset(values.len()));
            valid.push(x.is_some());
            return 4 * x.map_or(0, <[u32]>::len);
        }
        (Column::ListStr(offsets, child, valid), Value::ListStr(x)) => {
            let mut added = 0;
            for s in x.unwrap_or_default() {
                child.push(s.as_bytes());
                added += s.len();
            }
            offsets.push(offset(child.offsets.len() - 1));
            valid.push(x.is_some());
            return added;
        }
        _ => {}
    }
    0
}
