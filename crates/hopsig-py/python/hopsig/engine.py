"""hopsig.engine: the whole-file jobs one task runs.

Each function does what one ``hopsig`` command does to one MRT file and returns the
summary that command writes with ``--json`` (docs/spec/json.md), as a dict: the same
keys and values, built by the same library code, except the times and rates, which
differ between any two runs. Every job releases the GIL from start to end and runs on
``threads`` threads (``None``: every core).

- :func:`validate_mrt` -- ``hopsig bgpsec validate-mrt FILE --keys K --json``
- :func:`sign_mrt` -- ``hopsig bgpsec sign-mrt IN OUT --keys DIR --json``
- :func:`mrt_ases` -- the ASes signing a file needs keys for
- :func:`generate_keys` -- keys added to a keys folder (safe for concurrent writers)
- :func:`replay` -- ``hopsig replay FILE --json`` (KC-x §V: Tables IV-VI, Fig. 5)

Errors are :class:`hopsig.errors.InputError` (the CLI's exit status 2) with a
``reason``: ``io`` (a file that cannot be read or written, named in the message),
``mrt`` (not MRT, or a record that does not decode), ``keys`` (a router keys file
that is not rpki-client's JSON or a keys folder), ``key`` (a secret key file of
another suite), ``no-router-key`` (``generate=False`` and an AS without a key),
``no-update`` / ``no-announcement`` (nothing to validate or sign), ``bad-argument``.
UPDATEs that are not valid are counted in the summary, not raised.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Union

from ._native import engine as _native_engine

PathLike = Union[str, "os.PathLike[str]"]
Progress = Optional[Callable[[int], Any]]


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
    """Validate every UPDATE of the MRT file ``path`` (RFC 8205 §5.2) as its collector would.

    ``keys`` is rpki-client's JSON (``bgpsec_keys``) or a keys folder, as
    ``validate-mrt --keys`` reads it; the keys valid at ``at`` (Unix seconds, default
    now) are used. The process keeps the last keys it loaded and uses them again for
    the same ``keys`` and ``at`` while the file (or every file of the folder) keeps its
    length and modification time -- for at most 60 s when ``at`` is not given -- so
    the tasks of a distributed run load a full table's keys once per worker, not once
    per file. ``signature_cache`` is the shared signature cache's size (``0``
    turns it off). ``progress(records_done)`` is called a few times a second at most,
    and once at the end.

    Returns ``validate-mrt --json``'s summary: ``records``, ``updates``, ``valid``,
    ``not_valid``, ``not_valid_by_reason``, ``skipped``, ``signatures``,
    ``first_failures``, ``signature_cache``, ... With ``verdicts=True`` it also has
    ``"verdicts"``: a dict of equal-length lists, one entry per UPDATE validated in
    record order -- ``record`` (the MRT record's index from 0), ``bgpsec``
    (``"valid"`` / ``"not-valid"``), ``reason`` (None when valid), ``signatures``
    (verified, None when not valid) and ``detail`` (the validator's words, None when
    valid).
    """
    text, columns = _native_engine.validate_mrt(
        os.fspath(path),
        None if keys is None else os.fspath(keys),
        rpki=[os.fspath(p) for p in rpki],
        rtr=list(rtr),
        role=role,
        at=at,
        threads=threads,
        signature_cache=signature_cache,
        verdicts=verdicts,
        progress=progress,
    )
    summary: Dict[str, Any] = json.loads(text)
    if columns is not None:
        summary["verdicts"] = columns
    return summary


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
    """Sign every announcement of ``path`` as the BGPsec UPDATE its AS path would carry (RFC 8205 §4.2).

    Writes ``out`` (MRT ``BGP4MP_MESSAGE_AS4`` records; replaced if it exists, never
    if it is ``path`` itself) with the keys of the folder ``keys_dir``: the
    ``AS<n>.key`` files already there are used, and with ``generate=True`` keys are
    generated for the ASes without one and added to the folder (mode 0600, with
    ``bgpsec_keys.json`` rewritten; several processes may share one folder, see
    :func:`generate_keys`). With ``generate=False`` an AS without a key is an
    InputError with reason ``no-router-key``. ``suite`` is a number or a name
    (1: ecdsa-p256-sha256, RFC 8608). ``limit`` signs the first announcements only;
    ``target_as`` is the AS the newest signature targets where the file does not name
    the collector's (RIB dumps).

    Returns ``sign-mrt --json``'s summary: ``records``, ``announcements``,
    ``withdrawals``, ``updates``, ``signatures``, ``skipped``, ``skipped_by_reason``,
    ``router_keys``, ``keys_generated``, ...
    """
    text = _native_engine.sign_mrt(
        os.fspath(path),
        os.fspath(out),
        os.fspath(keys_dir),
        suite=suite,
        generate=generate,
        limit=limit,
        threads=threads,
        target_as=target_as,
        progress=progress,
    )
    result: Dict[str, Any] = json.loads(text)
    return result


def mrt_ases(path: PathLike, *, target_as: int = 12654) -> List[int]:
    """The ASes signing every announcement of ``path`` needs keys for, ascending.

    Those on the AS paths of the announcements BGPsec can sign (an AS_SET or a path
    too long is skipped by :func:`sign_mrt` and needs no key). A distributed run
    unites these over its files and calls :func:`generate_keys` once, so every worker
    signs with the same keys (``sign_mrt(..., generate=False)``).
    """
    ases: List[int] = _native_engine.mrt_ases(os.fspath(path), target_as=target_as)
    return ases


def generate_keys(
    keys_dir: PathLike,
    ases: Iterable[int],
    *,
    suite: Union[int, str] = 1,
    threads: Optional[int] = None,
) -> int:
    """Generate a key for every AS of ``ases`` without one in ``keys_dir``; return how many were added.

    The folder is created if missing. Each ``AS<n>.key`` is written to a temporary
    file, fsynced and linked into place, never replacing a file; ``bgpsec_keys.json``
    is rewritten (by a rename) with every key of the folder. Writers of one folder
    take turns under a lock (``flock`` on ``.bgpsec_keys.lock``), so concurrent calls
    never corrupt it: when two generate a key for the same AS, the first to save
    keeps it and the other adds nothing for that AS (its count leaves it out).
    """
    added: int = _native_engine.generate_keys(
        os.fspath(keys_dir), list(ases), suite=suite, threads=threads
    )
    return added


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
    """Replay one peer of the MRT file ``path`` through a router for each scheme (KC-x §V-A-3).

    Each announcement of the peer is validated and signed for real by every scheme
    of ``schemes`` (default: all of ``hopsig replay``'s: ``none``, ``bgpsec``, ...);
    the measured times are queued at the trace's arrival times (divided by
    ``speedup``) on ``threads`` servers. ``peer`` is ``"median"`` (the peer with the
    median announcement rate), ``"busiest"`` or an AS number; ``mode`` is Fig. 5's
    (``"lazy"`` or ``"strict"``); ``limit`` replays the peer's first announcements
    only; ``rib`` (a RIB dump) adds Table VI; ``rtr`` caches' router keys join the
    router's key table; ``batch`` > 1 has BGPsec routers validate that many
    consecutive announcements in one cross-UPDATE batch (each charged its share).
    Progress goes to ``tracing`` (the CLI's lines), not to a
    callback: a replay's time is the schemes', not reading.

    Returns ``hopsig replay --json``'s document (docs/spec/replay.md):
    ``{"replay": {...}, "memory": {...} or None}``. Its times are measurements.
    """
    text = _native_engine.replay(
        os.fspath(path),
        schemes=None if schemes is None else list(schemes),
        peer=str(peer),
        mode=mode,
        threads=threads,
        speedup=speedup,
        limit=limit,
        rib=None if rib is None else os.fspath(rib),
        rtr=list(rtr),
        batch=batch,
    )
    result: Dict[str, Any] = json.loads(text)
    return result


__all__ = ["validate_mrt", "sign_mrt", "mrt_ases", "generate_keys", "replay"]
