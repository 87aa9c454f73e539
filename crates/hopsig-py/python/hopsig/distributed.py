"""Many MRT files on a Dask cluster: ``validate_mrt``, ``sign_mrt`` and ``replay``.

One task per file runs the whole-file job of :mod:`hopsig.engine` on a Dask worker;
the per-file summaries are reduced into one summary and the per-record verdicts into
one Arrow table (optionally Parquet). The result is identical to the sequential run
(``scheduler="sequential"``: :mod:`hopsig.engine` in this process, over the files in
order) but for the timing fields (:data:`TIMING`). docs/design/distributed.md says why
Dask rather than Ray, what a cluster needs (files, keys and outputs on a path every
worker sees), and the arithmetic of a year of all collectors.

Needs ``pip install 'hopsig[distributed]'`` (dask[distributed] and pyarrow).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from . import engine
from .errors import InputError

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

PathLike = Union[str, "os.PathLike[str]"]

#: Failures listed with their details in a reduced summary (the validator's own
#: ``hopsig_bgp::trace::validate::FIRST_FAILURES``): the first ones in file order,
#: then record order.
FIRST_FAILURES = 10

#: Summary fields that measure how a run went rather than what it found: they differ
#: between two runs over the same files and are left out by :func:`timing_free`.
#: ``signature_cache`` is here because its hit count depends on how threads interleave.
TIMING = frozenset(
    {
        "seconds",
        "task_seconds",
        "updates_per_second",
        "signatures_per_second",
        "signature_cache",
        "metadata",
        "scheduler",
        "workers",
        "threads",
    }
)


def verdict_schema() -> Any:
    """The columns of :attr:`Result.table` for :func:`validate_mrt`: ``file`` (the
    path as given), ``record`` (the MRT record's index in its file, from 0),
    ``bgpsec`` (``"valid"`` / ``"not-valid"``), ``reason`` (null when valid),
    ``signatures`` (verified), ``detail`` (the validator's words, RFC 8205 section;
    null when valid). A function so that importing this module does not import
    pyarrow."""
    import pyarrow as pa

    return pa.schema(
        [
            pa.field("file", pa.string(), nullable=False),
            pa.field("record", pa.uint64(), nullable=False),
            pa.field("bgpsec", pa.string(), nullable=False),
            pa.field("reason", pa.string()),
            pa.field("signatures", pa.uint64()),
            pa.field("detail", pa.string()),
        ]
    )



@dataclass(frozen=True)
class Result:
    """What a distributed job found.

    ``summary`` is the per-file summaries reduced (sums of the counts, reasons merged,
    the first failures in file order) with ``files``: the per-file summaries in the
    order of the files given. ``table`` is a ``pyarrow.Table``, in file order then
    record order.
    """

    summary: Dict[str, Any]
    table: Any = field(repr=False)

    def __repr__(self) -> str:
        return f"Result(files={len(self.summary.get('files', []))}, rows={self.table.num_rows})"


# ---------------------------------------------------------------------------
# Reduction (shared by the Dask and the sequential runs)


def timing_free(summary: Any) -> Any:
    """``summary`` without its :data:`TIMING` fields, at every depth (to compare runs)."""
    if isinstance(summary, dict):
        return {k: timing_free(v) for k, v in summary.items() if k not in TIMING}
    if isinstance(summary, list):
        return [timing_free(v) for v in summary]
    return summary


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _reduce(summaries: List[Dict[str, Any]], same: Sequence[str]) -> Dict[str, Any]:
    """The per-file summaries as one: integer fields summed, dicts of counts merged by
    key (sorted), ``first_failures`` concatenated in file order (each with its
    ``file``) and cut at :data:`FIRST_FAILURES`; the fields of ``same`` kept where
    every file has the same value (else ``None``); other fields (file names, times,
    rates) are per file only."""
    out: Dict[str, Any] = {}
    keys: List[str] = []
    for s in summaries:
        keys.extend(k for k in s if k not in keys)
    for k in keys:
        values = [s[k] for s in summaries if k in s]
        if k in same:
            out[k] = values[0] if all(v == values[0] for v in values) else None
        elif k == "first_failures":
            failures = [
                {"file": s.get("file"), **f} for s in summaries for f in s.get(k) or []
            ]
            out[k] = failures[:FIRST_FAILURES]
        elif k in TIMING:
            continue
        elif all(_is_count(v) for v in values):
            out[k] = sum(values)
        elif all(isinstance(v, dict) and all(_is_count(n) for n in v.values()) for v in values):
            merged: Dict[str, int] = {}
            for v in values:
                for name, n in v.items():
                    merged[name] = merged.get(name, 0) + n
            out[k] = dict(sorted(merged.items()))
    return out


def _rate(n: Any, seconds: float) -> float:
    return float(n) / seconds if _is_count(n) and seconds > 0 else 0.0


# ---------------------------------------------------------------------------
# The tasks (module-level functions: Dask pickles them by name)


def _validate_one(path: str, keys: Optional[str], threads: int, options: Dict[str, Any]) -> Tuple[Dict[str, Any], Any]:
    """One file's validation: its summary (without the verdict columns) and its rows
    of the verdict table."""
    import pyarrow as pa

    summary = engine.validate_mrt(path, keys, threads=threads, verdicts=True, **options)
    verdicts = summary.pop("verdicts")
    n = len(verdicts["record"])
    columns = {"file": [path] * n, **{k: verdicts[k] for k in ("record", "bgpsec", "reason", "signatures", "detail")}}
    return summary, pa.table(columns, schema=verdict_schema())


def _sign_one(path: str, out: str, keys_dir: str, threads: int, options: Dict[str, Any]) -> Dict[str, Any]:
    """One file signed with the keys already in ``keys_dir`` (``generate=False``)."""
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    return engine.sign_mrt(path, out, keys_dir, generate=False, threads=threads, **options)


def _ases_one(path: str, target_as: int) -> List[int]:
    return list(engine.mrt_ases(path, target_as=target_as))


def _replay_one(path: str, options: Dict[str, Any]) -> Dict[str, Any]:
    return engine.replay(path, **options)


# ---------------------------------------------------------------------------
# Running tasks: on Dask, or here one after the other


@dataclass
class _Run:
    """Where the tasks of one job run: ``client`` (None: in this process, in order)."""

    client: Any
    retries: int
    progress: bool
    workers: int
    scheduler: str
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    def map(self, name: str, fn: Callable[..., Any], args: List[Tuple[Any, ...]]) -> List[Any]:
        """``fn(*a)`` for each ``a`` of ``args``, one task each, results in order."""
        if self.client is None:
            return [fn(*a) for a in args]
        futures = [
            self.client.submit(fn, *a, key=f"{name}-{self.token}-{i}", retries=self.retries, pure=False)
            for i, a in enumerate(args)
        ]
        try:
            if self.progress:
                from distributed import progress

                # The console bar goes where the CLI's progress goes: standard error.
                with contextlib.redirect_stdout(sys.stderr):
                    progress(futures)
                sys.stderr.write("\n")
            return _gather(self.client, futures)
        finally:
            for f in futures:
                f.release()


def _gather(client: Any, futures: List[Any]) -> List[Any]:
    """The futures' results in order. A task that failed raises its own error: a
    :class:`hopsig.errors.HopsigError` raised on a worker comes back pickled as
    itself (its class is importable as ``hopsig.InputError`` / ``hopsig.InvalidError``,
    its ``reason`` in its ``__dict__``), so callers catch what :mod:`hopsig.engine`
    raises. A task whose workers kept dying (Dask's ``KilledWorker``, after
    ``distributed.scheduler.allowed-failures``) raises an :class:`InputError` with
    reason ``worker``."""
    from distributed import KilledWorker

    try:
        return list(client.gather(futures))
    except KilledWorker as e:
        raise _input_error("worker", f"Dask: the workers running a task died too often: {e}") from e


def _input_error(reason: str, message: str) -> InputError:
    err = InputError(message)
    err.reason = reason  # type: ignore[attr-defined]
    return err


@contextlib.contextmanager
def _cluster(client: Any, scheduler: str, workers: int, threads_per_worker: int, retries: int, progress: bool) -> Iterator[_Run]:
    """The run of one job: on ``client``; on a new LocalCluster (``local``) of
    ``workers`` processes, closed afterwards; on the scheduler at an address; or in
    this process (``sequential``)."""
    if retries < 0 or workers < 1 or threads_per_worker < 1:
        raise _input_error("bad-argument", "workers and threads_per_worker must be at least 1, retries at least 0")
    if client is None and scheduler == "sequential":
        yield _Run(None, retries, False, 1, "sequential")
        return
    try:
        import distributed
    except ImportError as e:
        raise _input_error(
            "missing-package",
            f"hopsig.distributed needs Dask ({e}): install it: pip install 'hopsig[distributed]'",
        ) from e
    with contextlib.ExitStack() as stack:
        if client is None:
            if scheduler == "local":
                import logging

                cluster = stack.enter_context(
                    distributed.LocalCluster(
                        n_workers=workers,
                        threads_per_worker=threads_per_worker,
                        processes=True,
                        dashboard_address=":0",
                        silence_logs=logging.ERROR,
                    )
                )
                client = stack.enter_context(distributed.Client(cluster))
            else:
                try:
                    client = stack.enter_context(distributed.Client(scheduler, timeout=30))
                except OSError as e:
                    raise _input_error("scheduler", f"cannot reach the Dask scheduler {scheduler}: {e}") from e
        address = client.scheduler.address if client.scheduler is not None else scheduler
        n = len(client.scheduler_info().get("workers", {}))
        if progress:
            sys.stderr.write(f"hopsig: Dask scheduler {address}, {n} workers, dashboard {client.dashboard_link}\n")
        yield _Run(client, retries, progress, n, str(address))


def _paths(files: Sequence[PathLike]) -> List[str]:
    if isinstance(files, (str, bytes, os.PathLike)):
        raise TypeError("files must be a list of paths, not one path")
    paths = [os.fspath(f) for f in files]
    if not paths:
        raise _input_error("bad-argument", "no MRT file given")
    return paths


def _finish(job: str, run: _Run, summaries: List[Dict[str, Any]], same: Sequence[str], started: float) -> Dict[str, Any]:
    summary = {"job": job, **_reduce(summaries, same)}
    seconds = time.monotonic() - started
    summary["file_count"] = len(summaries)
    summary["scheduler"] = run.scheduler
    summary["workers"] = run.workers
    summary["seconds"] = seconds
    summary["task_seconds"] = sum(float(s.get("seconds") or 0.0) for s in summaries)
    for n in ("updates", "signatures"):
        if n in summary:
            summary[f"{n}_per_second"] = _rate(summary[n], seconds)
    summary["files"] = summaries
    return summary


def _write_atomically(path: PathLike, force: bool, write: Callable[[str], None]) -> None:
    """``write(temp)`` then ``temp`` renamed to ``path`` (STYLE 15): a reader never
    sees half a file; an existing ``path`` is kept unless ``force``."""
    target = Path(path)
    if target.exists() and not force:
        raise _input_error("io", f"{target}: exists (force=True to replace it)")
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    os.close(fd)
    try:
        write(temp)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _check_out(out: Optional[PathLike], force: bool) -> None:
    """Refuses, before the run, an output that exists (without ``force``) or whose
    folder is missing."""
    if out is None:
        return
    target = Path(out)
    if target.exists() and not force:
        raise _input_error("io", f"{target}: exists (force=True to replace it)")
    if not target.parent.resolve().is_dir():
        raise _input_error("io", f"{target}: its folder does not exist")


# ---------------------------------------------------------------------------
# The jobs


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
    """Validates every BGPsec UPDATE of every file, one Dask task per file.

    Each task runs :func:`hopsig.engine.validate_mrt` (``keys``: rpki-client JSON or a
    keys folder; ``options``: its ``rpki``, ``rtr``, ``role``, ``at``,
    ``signature_cache``) with ``threads`` validating threads (default
    ``threads_per_worker``, so a worker's tasks fill its cores without
    oversubscribing them).

    ``client``: an existing ``distributed.Client`` (``scheduler`` and ``workers`` are
    then ignored); else ``scheduler`` is ``"local"`` (a LocalCluster of ``workers``
    processes with ``threads_per_worker`` threads each, closed at the end), a scheduler
    address (``"tcp://host:8786"``) or ``"sequential"`` (no Dask: the files one after
    the other in this process, the reference the Dask runs equal). A failed task is run
    again up to ``retries`` times; a task lost with its worker is run again by Dask
    (``distributed.scheduler.allowed-failures``). ``progress``: Dask's console
    progress bar and the dashboard's address, on standard error.

    Returns a :class:`Result`: ``summary`` (``records``, ``updates``, ``valid``,
    ``not_valid``, ``not_valid_by_reason``, ``skipped``, ``signatures`` summed;
    ``first_failures`` with their ``file``; ``files``: each file's summary as
    :func:`hopsig.engine.validate_mrt` returns it) and ``table``
    (:func:`verdict_schema`, one row per UPDATE validated). ``out`` also writes the
    table as Parquet (atomically; an existing file only with ``force``).

    Raises :class:`hopsig.errors.InputError` for a file that cannot be read or
    decoded (after the retries; the message names the file), a missing package or an
    unreachable scheduler.
    """
    import pyarrow as pa

    paths = _paths(files)
    _check_out(out, force)
    keys_arg = os.fspath(keys) if keys is not None else None
    with _cluster(client, scheduler, workers, threads_per_worker, retries, progress) as run:
        # From a ready cluster: the job's time, not the LocalCluster's start.
        started = time.monotonic()
        engine_threads = threads or threads_per_worker
        results = run.map("validate-mrt", _validate_one, [(p, keys_arg, engine_threads, options) for p in paths])
    summaries = [s for s, _ in results]
    table = pa.concat_tables([t for _, t in results]) if results else verdict_schema().empty_table()
    summary = _finish("validate-mrt", run, summaries, ("keys", "router_keys", "backend"), started)
    if out is not None:
        import pyarrow.parquet as pq

        _write_atomically(out, force, lambda temp: pq.write_table(table, temp))
    return Result(summary, table)


def signed_name(files: Sequence[PathLike]) -> Dict[str, str]:
    """Where :func:`sign_mrt` writes each file, relative to its ``out_dir``: the path
    below the files' common folder (so ``rrc00/updates.X.gz`` and ``rrc01/updates.X.gz``
    stay apart), less a compression suffix, plus ``.mrt`` (sign-mrt writes plain
    MRT)."""
    paths = [os.path.abspath(os.fspath(f)) for f in files]
    if len(set(paths)) != len(paths):
        raise _input_error("bad-argument", "a file is given twice: its signed outputs would collide")
    common = os.path.commonpath([os.path.dirname(p) for p in paths])
    names = {}
    for given, p in zip(files, paths):
        rel = os.path.relpath(p, common)
        for suffix in (".gz", ".bz2", ".xz", ".zst"):
            if rel.endswith(suffix):
                rel = rel[: -len(suffix)]
                break
        names[os.fspath(given)] = rel + ".mrt"
    return names


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
    """Signs every announcement of every file (:func:`hopsig.engine.sign_mrt`), one
    Dask task per file, every worker with the same keys.

    A pre-pass lists the ASes each file needs keys for (:func:`hopsig.engine.mrt_ases`,
    one task per file); their union gets keys once, here on the client
    (:func:`hopsig.engine.generate_keys` into ``keys_dir``, which the workers must see);
    then each file is signed with ``generate=False`` into ``out_dir`` under
    :func:`signed_name`. ``limit`` is per file; ``target_as`` is the AS the newest
    signature targets where a file does not name the collector's (RIB dumps). The other arguments are
    :func:`validate_mrt`'s.

    Returns a :class:`Result`: ``summary`` (the sign summaries' counts summed,
    ``ases`` and ``keys_generated`` of the pre-pass, ``files``) and ``table`` (one row
    per file: ``file``, ``out`` and the summary's counts).
    """
    import pyarrow as pa

    paths = _paths(files)
    _check_out(out, force)
    names = signed_name(paths)
    outs = [os.path.join(os.fspath(out_dir), names[p]) for p in paths]
    keys_arg = os.fspath(keys_dir)
    with _cluster(client, scheduler, workers, threads_per_worker, retries, progress) as run:
        # From a ready cluster: the job's time, not the LocalCluster's start.
        started = time.monotonic()
        engine_threads = threads or threads_per_worker
        per_file = run.map("mrt-ases", _ases_one, [(p, target_as) for p in paths])
        ases = sorted(set().union(*per_file))
        generated = engine.generate_keys(keys_arg, ases, suite=suite)
        options: Dict[str, Any] = {"suite": suite, "limit": limit, "target_as": target_as}
        summaries = run.map(
            "sign-mrt", _sign_one, [(p, o, keys_arg, engine_threads, options) for p, o in zip(paths, outs)]
        )
    # router_keys: ASes with a key after each task, all of them the same folder.
    summary = _finish("sign-mrt", run, summaries, ("suite", "suite_name", "keys", "router_keys"), started)
    summary["ases"] = len(ases)
    summary["keys_generated"] = generated
    summary["outputs"] = outs
    rows: Dict[str, List[Any]] = {"file": paths, "out": outs}
    for k, v in summary.items():
        if _is_count(v) and all(_is_count(s.get(k)) for s in summaries) and k != "file_count":
            rows[k] = [s[k] for s in summaries]
    table = pa.table(rows)
    if out is not None:
        import pyarrow.parquet as pq

        _write_atomically(out, force, lambda temp: pq.write_table(table, temp))
    return Result(summary, table)


#: The per-scheme fields of a replay that :func:`replay`'s table keeps (docs/spec/replay.md, "JSON").
_REPLAY_COLUMNS = ("capacity_per_s", "floor_us", "over_floor")


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
    """KC-x's replay (:func:`hopsig.engine.replay`, docs/spec/replay.md) of every file,
    one Dask task per file; ``options`` are the engine's (``schemes``, ``peer``,
    ``mode``, ``threads``, ``speedup``, ``limit``, ...). A replay times the work, so a
    task should have a core to itself: ``threads_per_worker=1`` and one worker per core.

    Returns a :class:`Result`: ``summary`` (``files``: each replay's JSON document) and
    ``table`` (one row per file and scheme: ``file``, ``workload``, ``scheme``,
    ``announcements``, ``validate_us``/``sign_us`` means, ``capacity_per_s``,
    ``floor_us``, ``over_floor``, ``strict_forward_s``/``lazy_forward_s`` means).
    """
    import pyarrow as pa

    paths = _paths(files)
    _check_out(out, force)
    with _cluster(client, scheduler, workers, threads_per_worker, retries, progress) as run:
        # From a ready cluster: the job's time, not the LocalCluster's start.
        started = time.monotonic()
        documents = run.map("replay", _replay_one, [(p, options) for p in paths])
    summary = _finish("replay", run, [], (), started)
    summary["file_count"] = len(documents)
    summary["files"] = documents
    rows: Dict[str, List[Any]] = {k: [] for k in ("file", "workload", "scheme", "announcements", "validate_us", "sign_us", *_REPLAY_COLUMNS, "strict_forward_s", "lazy_forward_s")}
    for path, doc in zip(paths, documents):
        r = doc.get("replay", doc)
        for s in r.get("schemes", []):
            rows["file"].append(path)
            rows["workload"].append(r.get("workload"))
            rows["scheme"].append(s.get("scheme"))
            rows["announcements"].append((r.get("trace") or {}).get("announcements"))
            rows["validate_us"].append((s.get("validate_us") or {}).get("mean"))
            rows["sign_us"].append((s.get("sign_us") or {}).get("mean"))
            for k in _REPLAY_COLUMNS:
                rows[k].append(s.get(k))
            rows["strict_forward_s"].append(((s.get("strict") or {}).get("forward_s") or {}).get("mean"))
            rows["lazy_forward_s"].append(((s.get("lazy") or {}).get("forward_s") or {}).get("mean"))
    summary["announcements"] = sum(
        ((d.get("replay", d).get("trace") or {}).get("announcements") or 0) for d in documents
    )
    table = pa.table(rows)
    if out is not None:
        import pyarrow.parquet as pq

        _write_atomically(out, force, lambda temp: pq.write_table(table, temp))
    return Result(summary, table)

