import os
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Union

PathLike = Union[str, "os.PathLike[str]"]
Progress = Optional[Callable[[int], Any]]

__all__ = ["validate_mrt", "sign_mrt", "mrt_ases", "generate_keys", "replay"]

def validate_mrt(
    path: PathLike,
    keys: Optional[PathLike] = None,
    *,
    rpki: Sequence[PathLike] = (),
    rtr: Sequence[str] = (),
    role: str = "peer",
    at: Optional[int] = None,
    threads: Optional[int] = None,
    signature_cache: Union[str, int] = "64MiB",
    verdicts: bool = False,
    progress: Progress = None,
) -> Dict[str, Any]:
    """Validate every UPDATE of an MRT file (RFC 8205 §5.2): ``validate-mrt --json``'s summary."""

def sign_mrt(
    path: PathLike,
    out: PathLike,
    keys_dir: PathLike,
    *,
    suite: Union[int, str] = 1,
    generate: bool = True,
    limit: Optional[int] = None,
    threads: Optional[int] = None,
    target_as: int = 12654,
    progress: Progress = None,
) -> Dict[str, Any]:
    """Sign every announcement of an MRT file (RFC 8205 §4.2): ``sign-mrt --json``'s summary."""

def mrt_ases(path: PathLike, *, target_as: int = 12654) -> List[int]:
    """The ASes signing every announcement of an MRT file needs keys for, ascending."""

def generate_keys(
    keys_dir: PathLike,
    ases: Iterable[int],
    *,
    suite: Union[int, str] = 1,
    threads: Optional[int] = None,
) -> int:
    """Generate the keys a keys folder lacks for ``ases``; the number added."""

def replay(
    path: PathLike,
    *,
    schemes: Optional[Sequence[str]] = None,
    peer: Union[str, int] = "median",
    mode: str = "lazy",
    threads: int = 1,
    speedup: float = 1.0,
    limit: Optional[int] = None,
    rib: Optional[PathLike] = None,
    rtr: Sequence[str] = (),
    batch: int = 1,
) -> Dict[str, Any]:
    """Replay one peer of an MRT file through a router per scheme (KC-x §V): ``hopsig replay --json``'s document."""
