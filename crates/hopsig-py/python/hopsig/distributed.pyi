"""Many MRT files on a Dask cluster: ``validate_mrt``, ``sign_mrt`` and ``replay``
(docs/design/distributed.md)."""

import os
from typing import Any, Callable, Dict, FrozenSet, Optional, Sequence, Union

__all__ = [
    "Result",
    "TIMING",
    "FIRST_FAILURES",
    "verdict_schema",
    "validate_mrt",
    "sign_mrt",
    "replay",
    "signed_name",
    "timing_free",
]

from .errors import InputError

PathLike = Union[str, "os.PathLike[str]"]

FIRST_FAILURES: int
"""Failures listed with their details in a reduced summary, in file then record order."""

TIMING: FrozenSet[str]
"""Summary fields that say how a run went (times, rates, workers, the signature cache),
left out by :func:`timing_free`."""

def verdict_schema() -> Any:
    """The schema of ``validate_mrt``'s table: file, record, bgpsec, reason, signatures, detail."""

class Result:
    """What a distributed job found: ``summary`` (reduced, with ``files``: the per-file
    summaries) and ``table`` (a ``pyarrow.Table`` in file then record order; typed
    ``Any`` here because pyarrow ships no type stubs)."""

    __match_args__ = ("summary", "table")
    summary: Dict[str, Any]
    table: Any
    def __init__(self, summary: Dict[str, Any], table: Any) -> None: ...

def timing_free(summary: Any) -> Any:
    """``summary`` without its :data:`TIMING` fields, at every depth."""

def signed_name(files: Sequence[PathLike]) -> Dict[str, str]:
    """Where ``sign_mrt`` writes each file, relative to its ``out_dir``."""

def validate_mrt(
    files: Sequence[PathLike],
    keys: Optional[PathLike] = None,
    *,
    client: Any = None,
    scheduler: str = "local",
    workers: int = 2,
    threads_per_worker: int = 1,
    threads: Optional[int] = None,
    retries: int = 2,
    out: Optional[PathLike] = None,
    force: bool = False,
    progress: bool = True,
    **options: Any,
) -> Result:
    """Validates every BGPsec UPDATE of every file, one Dask task per file
    (``scheduler``: ``"local"``, ``"tcp://host:port"`` or ``"sequential"``)."""

def sign_mrt(
    files: Sequence[PathLike],
    out_dir: PathLike,
    keys_dir: PathLike,
    *,
    suite: Union[int, str] = 1,
    limit: Optional[int] = None,
    target_as: int = 12654,
    client: Any = None,
    scheduler: str = "local",
    workers: int = 2,
    threads_per_worker: int = 1,
    threads: Optional[int] = None,
    retries: int = 2,
    out: Optional[PathLike] = None,
    force: bool = False,
    progress: bool = True,
) -> Result:
    """Signs every file, one Dask task per file, every worker with the keys the client
    generated once for the union of the files' ASes."""

def replay(
    files: Sequence[PathLike],
    *,
    client: Any = None,
    scheduler: str = "local",
    workers: int = 2,
    threads_per_worker: int = 1,
    retries: int = 2,
    out: Optional[PathLike] = None,
    force: bool = False,
    progress: bool = True,
    **options: Any,
) -> Result:
    """KC-x's replay of every file, one Dask task per file."""

# Shared with hopsig.batch (the command line), not public.
def _input_error(reason: str, message: str) -> InputError: ...
def _check_out(out: Optional[PathLike], force: bool) -> None: ...
def _write_atomically(path: PathLike, force: bool, write: Callable[[str], None]) -> None: ...
