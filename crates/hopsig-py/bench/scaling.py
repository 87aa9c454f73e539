"""Scaling of hopsig.distributed: sequential vs Dask with 1 and 2 workers.

Usage (from the repository root, in the venv with hopsig[distributed]):

    python crates/hopsig-py/bench/scaling.py [--data ../shared/data/mrt] [--limit 3000]
        [--copies 4] [--repeat 3] [--json scaling.json]

1. Signs the RIS files of ``--data`` (hopsig.engine.sign_mrt, the first ``--limit``
   announcements of each, one keys folder) and keeps those with ``--limit`` UPDATEs, so
   every task does the same work; ``--copies`` copies of each make the task list (a
   task count divisible by 2, balanced between two workers).
2. ``--repeat`` rounds, each timing in turn (so a load that comes or goes hits all
   three alike): **sequential** (hopsig.engine in this process over the files in
   order, 1 thread), **Dask 1 worker** and **Dask 2 workers** (LocalCluster of worker
   processes, 1 thread each, engine threads 1). The clusters start before the timed
   run and a warm-up task imports hopsig on every worker, so the times are the job's.
3. Prints, per round and as medians: wall seconds, speedup 1 -> 2 workers
   (T1 / T2; target >= 1.8), and the overhead per task of Dask with one worker against
   the sequential run ((T1 - Tseq) / Tseq; target <= 5 %), and checks that every run
   found the same (hopsig.distributed.timing_free of the summaries).

Progress: a line per step on standard error, Dask's progress bar with ``--progress``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List

from hopsig import distributed, engine

REPO = Path(__file__).resolve().parents[3]


def say(line: str) -> None:
    sys.stderr.write(f"scaling: {line}\n")
    sys.stderr.flush()


def prepare(data: Path, work: Path, limit: int, copies: int) -> Dict[str, Any]:
    """Signed files of ``limit`` UPDATEs each, ``copies`` times; the keys."""
    keys = work / "keys"
    keys.mkdir()
    sources = sorted(data.glob("ris-*.gz"))
    if not sources:
        raise SystemExit(f"scaling: no ris-*.gz in {data}")
    say(f"listing the ASes of {len(sources)} files")
    ases = sorted(set().union(*(engine.mrt_ases(str(p)) for p in sources)))
    engine.generate_keys(str(keys), ases)
    files: List[str] = []
    signing = {"updates": 0, "signatures": 0, "seconds": 0.0, "bytes": 0}
    for p in sources:
        out = work / (p.name[: -len(".gz")] + ".mrt")
        t = time.monotonic()
        s = engine.sign_mrt(str(p), str(out), str(keys), generate=False, limit=limit, threads=1)
        say(f"signed {p.name}: {s['updates']} UPDATEs, {s['signatures']} signatures, {time.monotonic() - t:.1f} s")
        signing["updates"] += s["updates"]
        signing["signatures"] += s["signatures"]
        signing["seconds"] += s["seconds"]
        signing["bytes"] += out.stat().st_size
        if s["updates"] < limit:
            say(f"  left out: fewer than --limit {limit} UPDATEs (tasks would be unequal)")
            continue
        files.append(str(out))
        for c in range(1, copies):
            copy = work / f"{out.stem}.copy{c}.mrt"
            shutil.copyfile(out, copy)
            files.append(str(copy))
    if not files:
        raise SystemExit(f"scaling: no file has {limit} UPDATEs: lower --limit")
    return {"files": files, "keys": str(keys / "bgpsec_keys.json"), "signing": signing}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "mrt")
    ap.add_argument("--limit", type=int, default=3000, help="UPDATEs per file [3000]")
    ap.add_argument("--copies", type=int, default=4, help="copies of each signed file [4]")
    ap.add_argument("--repeat", type=int, default=3, help="rounds [3]")
    ap.add_argument("--json", type=Path, default=None, help="write the figures as JSON")
    ap.add_argument("--progress", action="store_true", help="Dask's progress bar and dashboard address")
    args = ap.parse_args()

    import distributed as dd

    with tempfile.TemporaryDirectory(prefix="hopsig-scaling-") as tmp:
        job = prepare(args.data, Path(tmp), args.limit, args.copies)
        files, keys = job["files"], job["keys"]
        say(f"{len(files)} tasks (files), {args.repeat} rounds, {os.cpu_count()} cores")
        clusters = {}
        for n in (1, 2):
            cluster = dd.LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0")
            client = dd.Client(cluster)
            client.run(lambda: __import__("hopsig.engine") and None)
            clusters[n] = (cluster, client)
        rounds: List[Dict[str, float]] = []
        found = None
        try:
            for r in range(args.repeat):
                times: Dict[str, float] = {}
                for name, run in (
                    ("sequential", lambda: distributed.validate_mrt(files, keys, scheduler="sequential", threads=1)),
                    ("dask1", lambda: distributed.validate_mrt(files, keys, client=clusters[1][1], progress=args.progress)),
                    ("dask2", lambda: distributed.validate_mrt(files, keys, client=clusters[2][1], progress=args.progress)),
                ):
                    t = time.perf_counter()
                    result = run()
                    times[name] = time.perf_counter() - t
                    same = distributed.timing_free(result.summary)
                    if found is None:
                        found = same
                        say(f"found: {result.summary['updates']} UPDATEs, {result.summary['signatures']} signatures, {result.summary['not_valid']} not valid")
                    elif same != found:
                        raise SystemExit(f"scaling: {name} found something else than the first run")
                    say(f"round {r + 1}: {name}: {times[name]:.2f} s")
                times["speedup"] = times["dask1"] / times["dask2"]
                times["overhead"] = (times["dask1"] - times["sequential"]) / times["sequential"]
                say(f"round {r + 1}: speedup 1->2 workers {times['speedup']:.2f}x, overhead 1 worker vs sequential {100 * times['overhead']:+.1f} %")
                rounds.append(times)
        finally:
            for cluster, client in clusters.values():
                client.close()
                cluster.close()
    med = {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
    spread = {k: [min(r[k] for r in rounds), max(r[k] for r in rounds)] for k in rounds[0]}
    assert found is not None
    per_task = {k: med[k] / len(files) for k in ("sequential", "dask1", "dask2")}
    report = {
        "tasks": len(files),
        "updates": found["updates"],
        "signatures": found["signatures"],
        "cores": os.cpu_count(),
        "rounds": rounds,
        "median": med,
        "min_max": spread,
        "seconds_per_task": per_task,
        "signatures_per_core_second": found["signatures"] / med["sequential"],
        "updates_per_core_second": found["updates"] / med["sequential"],
        # sign-mrt on one thread over the distinct files (the copies are not signed).
        "signing": job["signing"],
        "signatures_per_core_second_signing": job["signing"]["signatures"] / max(job["signing"]["seconds"], 1e-9),
        "signed_bytes_per_update": job["signing"]["bytes"] / max(job["signing"]["updates"], 1),
    }
    print(
        f"tasks {len(files)} ({found['updates']} UPDATEs, {found['signatures']} signatures); medians of {len(rounds)} rounds:\n"
        f"  sequential {med['sequential']:.2f} s ({report['signatures_per_core_second']:.0f} signatures/s on one core)\n"
        f"  dask 1 worker {med['dask1']:.2f} s, 2 workers {med['dask2']:.2f} s\n"
        f"  speedup 1->2 workers {med['speedup']:.2f}x (min {spread['speedup'][0]:.2f}, max {spread['speedup'][1]:.2f}); target >= 1.8\n"
        f"  overhead 1 worker vs sequential {100 * med['overhead']:+.1f} % (min {100 * spread['overhead'][0]:+.1f}, max {100 * spread['overhead'][1]:+.1f}); "
        f"{1000 * (med['dask1'] - med['sequential']) / len(files):+.1f} ms per task; target <= 5 %\n"
        f"  signing (1 thread): {report['signatures_per_core_second_signing']:.0f} signatures/s; "
        f"signed MRT {report['signed_bytes_per_update']:.0f} octets per UPDATE"
    )
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
