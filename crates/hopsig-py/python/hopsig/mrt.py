"""MRT files (RFC 6396) as pybgpkit-parser reads them, with the BGPsec_PATH decoded.

:func:`elems` iterates over the elements of a RIPE RIS or RouteViews file -- one dict
per prefix of every UPDATE and of every RIB entry -- with the keys and value types of
pybgpkit-parser's ``Elem.to_dict()``, plus ``bgpsec_path`` and ``record``;
:func:`records` gives the raw records; :func:`to_arrow` and :func:`to_pandas` give a
whole file as one table, built from columns made in Rust. Files are plain or
compressed (gzip, bzip2, xz, zstd), recognised by their first bytes as the ``hopsig``
CLI does, and read in batches with the GIL released.

:func:`sign_mrt` and :func:`validate_mrt` are :mod:`hopsig.engine`'s, re-exported.

Errors are :class:`hopsig.errors.InputError` with reason ``"io"`` (the file cannot be
opened) or ``"mrt"`` (not MRT, or a record cut short or malformed), the message naming
the file. docs/guide/python.md, section "MRT", is the guide.
"""

import os
from typing import TYPE_CHECKING, Any, Iterator, List, Optional, Tuple, TypedDict, Union

from ._native import mrt as _native_mrt

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    import pyarrow

Parser = _native_mrt.Parser
Records = _native_mrt.Records

#: A path as the functions take it.
PathLike = Union[str, "os.PathLike[str]"]


class SecurePathSegment(TypedDict):
    """One Secure_Path Segment (RFC 8205 §3.1)."""

    pcount: int
    flags: int
    asn: int


class SignatureSegment(TypedDict):
    """One Signature Segment (RFC 8205 §3.2): the signer's SKI and its signature."""

    ski: bytes
    signature: bytes


class SignatureBlock(TypedDict):
    """One Signature_Block (RFC 8205 §3.2): its Algorithm Suite Identifier and one
    segment per Secure_Path Segment, in the same order."""

    suite: int
    segments: List[SignatureSegment]


class BgpsecPathDict(TypedDict):
    """A decoded BGPsec_PATH (RFC 8205 §3), segments newest first as on the wire; for
    one that does not decode, both lists are ``None`` and ``error`` says why."""

    secure_path: Optional[List[SecurePathSegment]]
    signature_blocks: Optional[List[SignatureBlock]]
    error: Optional[str]


class Elem(TypedDict):
    """One element: pybgpkit-parser's ``Elem.to_dict()`` keys, then ``bgpsec_path`` and
    ``record`` (the MRT record's index, from 0)."""

    timestamp: float
    elem_type: str
    peer_ip: str
    peer_asn: int
    peer_bgp_id: Optional[str]
    prefix: str
    next_hop: Optional[str]
    as_path: Optional[str]
    origin_asns: Optional[List[int]]
    origin: Optional[str]
    local_pref: Optional[int]
    med: Optional[int]
    communities: Optional[List[str]]
    atomic: str
    aggr_asn: Optional[int]
    aggr_ip: Optional[str]
    only_to_customer: Optional[int]
    bgpsec_path: Optional[BgpsecPathDict]
    record: int


class Record(TypedDict):
    """One raw MRT record; the session fields and ``message`` are ``None`` unless it is
    a BGP4MP message record (RFC 6396 §4.4.2-§4.4.6)."""

    record: int
    timestamp: int
    microseconds: Optional[int]
    type: int
    subtype: int
    peer_asn: Optional[int]
    local_asn: Optional[int]
    peer_ip: Optional[str]
    local_ip: Optional[str]
    interface_index: Optional[int]
    as_width: Optional[int]
    local: Optional[bool]
    message: Optional[bytes]
    body: bytes
    error: Optional[str]


#: The element columns of :func:`to_arrow`, in order, with their Arrow types (the
#: keys of an element's dict, same order). ``bgpsec_path`` is the raw attribute value
#: (``binary``): :func:`elems` decodes it.
COLUMNS: Tuple[Tuple[str, str], ...] = (
    ("timestamp", "float64"),
    ("elem_type", "string"),
    ("peer_ip", "string"),
    ("peer_asn", "uint32"),
    ("peer_bgp_id", "string"),
    ("prefix", "string"),
    ("next_hop", "string"),
    ("as_path", "string"),
    ("origin_asns", "list<uint32>"),
    ("origin", "string"),
    ("local_pref", "uint32"),
    ("med", "uint32"),
    ("communities", "list<string>"),
    ("atomic", "string"),
    ("aggr_asn", "uint32"),
    ("aggr_ip", "string"),
    ("only_to_customer", "uint32"),
    ("bgpsec_path", "binary"),
    ("record", "uint64"),
)


def elems(path: PathLike, *, batch_size: int = 4096) -> "Iterator[Elem]":
    """The elements of the MRT file at ``path``, in file order (a :class:`Parser`):
    one dict per prefix, announcements of an UPDATE before its withdrawals, as
    pybgpkit-parser gives them.

    Raises :class:`hopsig.errors.InputError` (reason ``"io"`` or ``"mrt"``).
    """
    return Parser(os.fspath(path), batch_size=batch_size)  # type: ignore[no-any-return]


def records(path: PathLike, *, batch_size: int = 4096) -> "Iterator[Record]":
    """The raw records of the MRT file at ``path``, in file order (a :class:`Records`).

    Raises :class:`hopsig.errors.InputError` (reason ``"io"`` or ``"mrt"``).
    """
    return Records(os.fspath(path), batch_size=batch_size)  # type: ignore[no-any-return]


def arrow_schema() -> "pyarrow.Schema":
    """The schema of :func:`to_arrow`'s tables (:data:`COLUMNS`). Needs pyarrow."""
    import pyarrow as pa

    types = {
        "float64": pa.float64(),
        "string": pa.string(),
        "binary": pa.binary(),
        "uint32": pa.uint32(),
        "uint64": pa.uint64(),
        "list<uint32>": pa.list_(pa.uint32()),
        "list<string>": pa.list_(pa.string()),
    }
    return pa.schema([pa.field(name, types[t]) for name, t in COLUMNS])


def _array(spec: Tuple[Any, ...], type_: "pyarrow.DataType") -> "pyarrow.Array":
    """One column chunk from the buffers Rust built (``mrt/columns.rs``)."""
    import pyarrow as pa

    kind, length, nulls, validity, *buffers = spec
    valid = None if validity is None else pa.py_buffer(validity)
    if kind in ("f64", "u32", "u64"):
        return pa.Array.from_buffers(type_, length, [valid, pa.py_buffer(buffers[0])], null_count=nulls)
    if kind in ("str", "bin"):
        offsets, data = buffers
        return pa.Array.from_buffers(
            type_, length, [valid, pa.py_buffer(offsets), pa.py_buffer(data)], null_count=nulls
        )
    if kind == "list_u32":
        offsets, child_length, values = buffers
        child = pa.Array.from_buffers(pa.uint32(), child_length, [None, pa.py_buffer(values)], null_count=0)
    elif kind == "list_str":
        offsets, child_length, child_offsets, data = buffers
        child = pa.Array.from_buffers(
            pa.string(), child_length, [None, pa.py_buffer(child_offsets), pa.py_buffer(data)], null_count=0
        )
    else:  # pragma: no cover - a kind mrt/columns.rs does not make
        raise AssertionError(f"unknown column kind {kind!r}")
    return pa.Array.from_buffers(type_, length, [valid, pa.py_buffer(offsets)], null_count=nulls, children=[child])


def to_arrow(path: PathLike, *, chunk_rows: int = 1 << 20) -> "pyarrow.Table":
    """The elements of the MRT file at ``path`` as a ``pyarrow.Table`` of
    :func:`arrow_schema` (one row per element, in file order; a record batch per
    ``chunk_rows`` elements). The columns are built in Rust with the GIL released;
    ``table.to_pylist()`` equals ``list(elems(path))`` but for ``bgpsec_path``, kept
    raw here. Needs pyarrow (``pip install 'hopsig[arrow]'``).

    Raises :class:`hopsig.errors.InputError` (reason ``"io"`` or ``"mrt"``).
    """
    import pyarrow as pa

    schema = arrow_schema()
    chunks = _native_mrt._elem_columns(os.fspath(path), chunk_rows=chunk_rows)
    batches = [
        pa.RecordBatch.from_arrays([_array(chunk[f.name], f.type) for f in schema], schema=schema)
        for chunk in chunks
    ]
    return pa.Table.from_batches(batches, schema=schema)


def to_pandas(path: PathLike, *, chunk_rows: int = 1 << 20) -> "pandas.DataFrame":
    """The elements of the MRT file at ``path`` as a ``pandas.DataFrame``
    (:func:`to_arrow`'s table converted): integer columns that may be missing
    (``local_pref``, ``med``, ``aggr_asn``, ...) are pandas' nullable ``UInt32``, list
    columns hold numpy arrays, ``bgpsec_path`` holds bytes or ``None``. Needs pandas
    and pyarrow (``pip install 'hopsig[pandas]'``).

    Raises :class:`hopsig.errors.InputError` (reason ``"io"`` or ``"mrt"``).
    """
    import pandas as pd
    import pyarrow as pa

    nullable = {pa.uint32(): pd.UInt32Dtype()}
    return to_arrow(path, chunk_rows=chunk_rows).to_pandas(types_mapper=nullable.get)


def __getattr__(name: str) -> Any:
    """``sign_mrt`` and ``validate_mrt``, from :mod:`hopsig.engine` (imported when first
    used, so that this module does not depend on the engine's import)."""
    if name in ("sign_mrt", "validate_mrt"):
        from . import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "COLUMNS",
    "BgpsecPathDict",
    "Elem",
    "Parser",
    "Record",
    "Records",
    "SecurePathSegment",
    "SignatureBlock",
    "SignatureSegment",
    "arrow_schema",
    "elems",
    "records",
    "sign_mrt",
    "to_arrow",
    "to_pandas",
    "validate_mrt",
]
