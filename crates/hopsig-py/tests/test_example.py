"""docs/examples/python_tour.py, the notebook-style tour, runs as a script (as CI runs
it, with matplotlib's Agg backend) and leaves what it says it writes: the signed file
and keys, two PNG plots, the verdicts as CSV with both Valid and Not Valid rows."""

import csv
import os
import subprocess
import sys
from pathlib import Path

from conftest import REPO, require

TOUR = REPO / "docs" / "examples" / "python_tour.py"
#: The first bytes of every PNG file (PNG specification §5.2).
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_the_tour_runs(ris_updates, tmp_path):
    require("pandas")
    require("matplotlib")
    # .ci/run keeps the tour's output (target/python-tour) for a reader to look at.
    out = Path(os.environ.get("HOPSIG_TOUR_OUT") or tmp_path / "tour")
    env = dict(os.environ, MPLBACKEND="Agg")
    result = subprocess.run(
        [sys.executable, str(TOUR), str(ris_updates), str(out)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for plot in ["verdict_mix.png", "path_lengths.png"]:
        assert (out / plot).read_bytes()[:8] == PNG_SIGNATURE, plot
    assert (out / "signed.mrt").stat().st_size > 0
    assert (out / "keys" / "bgpsec_keys.json").exists()
    with open(out / "verdicts.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    states = {row["bgpsec"] for row in rows}
    assert states == {"valid", "not-valid"}, states
    # Every Not Valid verdict has its reason, no Valid one has.
    assert all((row["bgpsec"] == "valid") == (row["reason"] == "") for row in rows)
    # The error cell shows the CLI's exit class and reason for a missing file.
    assert "InputError (exit 2, reason 'io')" in result.stdout, result.stdout
    # The printed table: a header and the Valid row.
    assert "verdict" in result.stdout and "UPDATEs" in result.stdout
