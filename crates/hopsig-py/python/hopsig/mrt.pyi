"""MRT files (RFC 6396) as pybgpkit-parser reads them, with the BGPsec_PATH decoded."""

import os
from pathlib import Path
from typing import Any, Iterator, List, Optional, Tuple, TypedDict, Union, final

import pandas  # type: ignore[import-untyped]
import pyarrow  # type: ignore[import-untyped]

from .engine import sign_mrt as sign_mrt
from .engine import validate_mrt as validate_mrt

PathLike = Union[str, os.PathLike[str]]

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
    """One Signature_Block (RFC 8205 §3.2)."""

    suite: int
    segments: List[SignatureSegment]

class BgpsecPathDict(TypedDict):
    """A decoded BGPsec_PATH (RFC 8205 §3), newest segment first; ``error`` for one that
    does not decode."""

    secure_path: Optional[List[SecurePathSegment]]
    signature_blocks: Optional[List[SignatureBlock]]
    error: Optional[str]

class Elem(TypedDict):
    """One element: pybgpkit-parser's ``Elem.to_dict()`` keys, ``bgpsec_path``, ``record``."""

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
    """One raw MRT record (session fields ``None`` unless a BGP4MP message record)."""

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

COLUMNS: Tuple[Tuple[str, str], ...]
"""The columns of :func:`to_arrow`, in order, with their Arrow types."""

@final
class Parser:
    """The elements of an MRT file, in file order, as :class:`Elem` dicts."""

    def __new__(cls, path: PathLike, *, batch_size: int = 4096) -> Parser: ...
    @property
    def path(self) -> Path:
        """The file read."""
    def __iter__(self) -> Parser: ...
    def __next__(self) -> Elem: ...

@final
class Records:
    """The raw records of an MRT file, in file order, as :class:`Record` dicts."""

    def __new__(cls, path: PathLike, *, batch_size: int = 4096) -> Records: ...
    @property
    def path(self) -> Path:
        """The file read."""
    def __iter__(self) -> Records: ...
    def __next__(self) -> Record: ...

def elems(path: PathLike, *, batch_size: int = 4096) -> Iterator[Elem]:
    """The elements of the MRT file at ``path``, in file order."""

def records(path: PathLike, *, batch_size: int = 4096) -> Iterator[Record]:
    """The raw records of the MRT file at ``path``, in file order."""

def arrow_schema() -> pyarrow.Schema:
    """The schema of :func:`to_arrow`'s tables."""

def to_arrow(path: PathLike, *, chunk_rows: int = 1048576) -> pyarrow.Table:
    """The elements of the MRT file at ``path`` as a ``pyarrow.Table``."""

def to_pandas(path: PathLike, *, chunk_rows: int = 1048576) -> pandas.DataFrame:
    """The elements of the MRT file at ``path`` as a ``pandas.DataFrame``."""

def __getattr__(name: str) -> Any:
    """``sign_mrt`` and ``validate_mrt`` from :mod:`hopsig.engine`."""

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
