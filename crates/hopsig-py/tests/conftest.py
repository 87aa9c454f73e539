"""Fixtures shared by the pytest suite of the hopsig Python package.

The data are the repository's: RIPE RIS MRT files in ``../shared/data/mrt`` (beside the
clone, as CI has them) and the RouteViews file kept in
``crates/hopsig-bgp/tests/data/routeviews``. Under ``CI=true`` a missing file fails the
test instead of skipping it.
"""

import os
from pathlib import Path

import pytest

#: The repository's root (crates/hopsig-py/tests/ is three levels down).
REPO = Path(__file__).resolve().parents[3]
#: The RIS files (../shared/data/mrt beside the clone).
RIS_DIR = REPO.parent / "shared" / "data" / "mrt"
#: The RouteViews updates file kept in the repository.
ROUTEVIEWS = REPO / "crates" / "hopsig-bgp" / "tests" / "data" / "routeviews" / "route-views.jinx.updates.20150401.0000.bz2"
#: The independent Python references (interop/python).
INTEROP = REPO / "interop" / "python"


def need(path: Path) -> Path:
    """``path``, or a skip (a failure under ``CI=true``) saying it is missing."""
    if not path.exists():
        message = f"{path} is missing"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def repo() -> Path:
    """The repository's root."""
    return REPO


@pytest.fixture(scope="session")
def ris_files() -> list:
    """The RIS MRT files, sorted by name (updates and one bview)."""
    return sorted(need(RIS_DIR).glob("ris-*.gz"))


@pytest.fixture(scope="session")
def ris_updates() -> Path:
    """One small RIS updates file (2010, 39 KB compressed)."""
    return need(RIS_DIR / "ris-updates.20100722.2015.gz")


@pytest.fixture(scope="session")
def routeviews() -> Path:
    """The RouteViews updates file (bzip2)."""
    return need(ROUTEVIEWS)


@pytest.fixture(scope="session")
def interop() -> Path:
    """The folder of independent Python references."""
    return need(INTEROP)


# --- packaging (TEAM27 engineer 6): optional packages -------------------------------
# (imports here, not at the top, so each engineer's block merges on its own)

import importlib  # noqa: E402
from types import ModuleType  # noqa: E402


def require(module: str) -> ModuleType:
    """``module`` imported, or a skip naming it (as ``pytest.importorskip``).

    Under ``CI=true`` a missing module fails the test instead: ``.ci/run`` installs the
    package with its ``test`` extra, so a skip there would hide a broken install. Tests
    import it with ``from conftest import require``.
    """
    if os.environ.get("CI") == "true":
        try:
            return importlib.import_module(module)
        except ImportError as e:
            pytest.fail(f"{module} is not installed (pip install './crates/hopsig-py[test]'): {e}")
    return pytest.importorskip(module)


_BUILT: list = []


@pytest.fixture(scope="session")
def hopsig_cli() -> Path:
    """``target/release/hopsig``, the CLI the tests compare the package with, brought up
    to date with cargo first (a no-op when it is; a binary left from an older checkout
    would otherwise answer for code that no longer exists). Without cargo an existing
    binary is used as it is; with neither, a skip — a failure under ``CI=true``."""
    import shutil
    import subprocess

    binary = REPO / "target" / "release" / "hopsig"
    cargo = shutil.which("cargo")
    if cargo is not None and not _BUILT:
        subprocess.run([cargo, "build", "--release", "-p", "hopsig-cli"], cwd=REPO,
                       check=True, timeout=3600)
        _BUILT.append(True)
    if not binary.exists():
        why = f"{binary} is missing and there is no cargo to build it"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    return binary

