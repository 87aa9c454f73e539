"""``python -m hopsig.batch`` / ``hopsig-batch`` / ``hopsig batch``: many MRT files on a
Dask cluster from the command line (:mod:`hopsig.distributed`).

``hopsig-batch validate-mrt FILES... --keys K --scheduler ADDR|local [--workers N]
[--out T.parquet] [--json S.json]`` validates every file, one task per file, and prints
the summary as ``hopsig bgpsec validate-mrt`` does. Exit status as the CLI's: 0 every
UPDATE valid, 1 any not valid (``invalid: ...`` on standard output), 2 bad usage or
input (``hopsig: error: ...`` on standard error).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List, NoReturn, Optional, Sequence

from .errors import HopsigError

__all__ = ["main"]

#: The CLI's exit statuses.
VALID, INVALID, INPUT = 0, 1, 2


class _Usage(Exception):
    """A usage error: printed as the CLI prints one, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with the CLI's usage errors: ``hopsig: error: ...``, exit status 2."""

    def error(self, message: str) -> NoReturn:
        raise _Usage(message)


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = _Parser(prog=prog, description="Many MRT files on a Dask cluster (hopsig.distributed).")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    v = sub.add_parser(
        "validate-mrt",
        help="validate every BGPsec UPDATE of every file, one Dask task per file",
        description="Validate every BGPsec UPDATE of every MRT file, one Dask task per file "
        "(as `hopsig bgpsec validate-mrt` does for one). Exit status: 0 every UPDATE valid, "
        "1 any not valid, 2 bad usage or input.",
    )
    v.add_argument("files", nargs="+", metavar="FILE", help="MRT files (plain, gzip, bzip2, xz, zstd)")
    v.add_argument("--keys", required=True, metavar="JSON|DIR", help="router keys: rpki-client JSON or a keys folder")
    v.add_argument(
        "--scheduler",
        required=True,
        metavar="ADDR|local",
        help="a Dask scheduler's address (tcp://host:8786), `local` (a LocalCluster of --workers processes) "
        "or `sequential` (no Dask: the files in order, in this process)",
    )
    v.add_argument("--workers", type=int, default=2, metavar="N", help="worker processes of a local cluster [2]")
    v.add_argument("--threads-per-worker", type=int, default=1, metavar="N", help="threads of each local worker [1]")
    v.add_argument("--threads", type=int, default=None, metavar="N", help="validating threads per task [threads per worker]")
    v.add_argument("--retries", type=int, default=2, metavar="N", help="runs again of a failed task [2]")
    v.add_argument("--at", type=int, default=None, metavar="UNIX", help="use the keys valid at this time [now]")
    v.add_argument("--signature-cache", default="64MiB", metavar="SIZE", help="signature cache per task [64MiB]")
    v.add_argument("--out", default=None, metavar="T.parquet", help="write the verdict table as Parquet")
    v.add_argument("--json", default=None, metavar="S.json", help="write the summary as JSON")
    v.add_argument("--force", action="store_true", help="replace --out and --json if they exist")
    v.add_argument("--no-progress", action="store_true", help="no progress bar or dashboard line")
    return parser


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")


def _print_summary(s: Dict[str, Any]) -> None:
    """The summary in the words of ``hopsig bgpsec validate-mrt``."""
    seconds = float(s.get("seconds") or 0.0)
    _say(
        f"validated: {s['file_count']} files: {s.get('updates', 0)} UPDATEs of {s.get('records', 0)} MRT records, "
        f"{s.get('router_keys')} router keys, {s['workers']} workers, {seconds:.2f} s: "
        f"{s.get('updates_per_second', 0.0):.0f} UPDATEs/s, {s.get('signatures_per_second', 0.0):.0f} signatures/s"
    )
    _say(f"valid: {s.get('valid', 0)} ({s.get('signatures', 0)} signatures)")
    _say(f"not valid: {s.get('not_valid', 0)}")
    for reason, n in (s.get("not_valid_by_reason") or {}).items():
        _say(f"  {reason}: {n}")
    skipped = s.get("skipped") or {}
    if sum(skipped.values()) > 0:
        kinds = ", ".join(f"{k} {n}" for k, n in skipped.items())
        _say(f"skipped: {sum(skipped.values())} ({kinds})")
    for f in s.get("first_failures") or []:
        _say(f"  {f['file']}: record {f['record']}: {f['reason']}: {f['detail']}")


def _validate(args: argparse.Namespace) -> int:
    from . import distributed

    for name in ("workers", "threads_per_worker", "threads"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise _Usage(f"--{name.replace('_', '-')} must be at least 1, not {value}")
    if args.retries < 0:
        raise _Usage(f"--retries must be at least 0, not {args.retries}")
    if args.json is not None:
        distributed._check_out(args.json, args.force)
    result = distributed.validate_mrt(
        args.files,
        args.keys,
        scheduler=args.scheduler,
        workers=args.workers,
        threads_per_worker=args.threads_per_worker,
        threads=args.threads,
        retries=args.retries,
        out=args.out,
        force=args.force,
        progress=not args.no_progress,
        at=args.at,
        signature_cache=args.signature_cache,
    )
    summary = result.summary
    if summary.get("updates", 0) == 0:
        raise _input(f"no UPDATE announcing a route in {summary.get('records', 0)} MRT records of {len(args.files)} files")
    _print_summary(summary)
    if args.json is not None:
        text = json.dumps(summary, indent=2) + "\n"

        def write(temp: str) -> None:
            with open(temp, "w", encoding="utf-8") as f:
                f.write(text)

        distributed._write_atomically(args.json, args.force, write)
    if args.out is not None:
        _say(f"wrote: {args.out} ({result.table.num_rows} rows)")
    bad = summary.get("not_valid", 0)
    if bad > 0:
        _say(f"invalid: {bad} of {summary['updates']} UPDATEs of {summary['file_count']} files are not valid")
        return INVALID
    return VALID


def _input(message: str) -> HopsigError:
    from .distributed import _input_error

    return _input_error("mrt", message)


def _error(message: str) -> int:
    sys.stderr.write(f"hopsig: error: {' '.join(message.splitlines())}\n")
    return INPUT


def main(argv: Optional[Sequence[str]] = None, prog: str = "hopsig-batch") -> int:
    """Runs the command line ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    args_list: List[str] = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _parser(prog).parse_args(args_list)
    except _Usage as e:
        return _error(str(e))
    except SystemExit as e:  # --help
        return int(e.code or 0)
    try:
        if args.command == "validate-mrt":
            return _validate(args)
        return _error(f"unknown command {args.command}")
    except _Usage as e:
        return _error(str(e))
    except HopsigError as e:
        if getattr(e, "exit_code", INPUT) == INVALID:
            _say(f"invalid: {e}")
            return INVALID
        return _error(str(e))
    except KeyboardInterrupt:
        return _error("interrupted")


if __name__ == "__main__":
    sys.exit(main(prog="python -m hopsig.batch"))
