"""The package imports, and its exceptions carry the CLI's exit classes; the installed
distribution is what pyproject.toml says (abi3 extension, extras, console script); every
public name is documented and typed (docstrings, ``.pyi`` stubs checked by mypy's
stubtest, mypy over the tests and the example); ``require`` fails under ``CI=true``."""

import ast
import importlib
import inspect
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Iterator, List, Tuple

import pytest

import hopsig
from hopsig import errors

from conftest import REPO, require

#: The package's folder in the repository (pyproject.toml, python/, tests/).
CRATE = REPO / "crates" / "hopsig-py"
#: The modules of the public API (TEAM27.md), each a ``python/hopsig/<name>.py``.
MODULES = ["errors", "bgpsec", "mrt", "engine", "schemes", "pla", "ndn", "distributed"]
#: Public modules that are command-line front ends rather than typed API: no stub.
SCRIPTS = {"batch", "__main__"}


def test_version_is_the_crates():
    assert hopsig.__version__ == "0.1.0"


def test_exit_classes():
    assert errors.InvalidError.exit_code == 1
    assert errors.InputError.exit_code == 2
    assert issubclass(errors.InputError, errors.HopsigError)
    assert issubclass(errors.InvalidError, errors.HopsigError)
    assert not issubclass(errors.InputError, errors.InvalidError)


# --- the installed distribution -------------------------------------------------------


def test_the_extension_is_abi3():
    """One wheel for every CPython >= 3.9: the module is built against the stable ABI
    (pyo3's abi3-py39), which names it ``_native.abi3.so``, not ``_native.cpython-3XX-...``."""
    native = importlib.import_module("hopsig._native")
    assert native.__file__ is not None
    assert Path(native.__file__).name == "_native.abi3.so", native.__file__


def test_the_distribution_metadata_is_pyprojects():
    dist = metadata.distribution("hopsig")
    assert dist.version == hopsig.__version__
    assert dist.metadata["Requires-Python"] == ">=3.9"
    extras = set(dist.metadata.get_all("Provides-Extra") or [])
    assert {"arrow", "pandas", "distributed", "test"} <= extras, extras
    scripts = {e.name: e.value for e in dist.entry_points if e.group == "console_scripts"}
    assert scripts == {"hopsig-batch": "hopsig.batch:main"}


def test_every_api_module_has_a_stub_and_is_typed():
    """PEP 561: ``py.typed`` marks the package as typed, and each API module has its
    ``.pyi`` beside it (TEAM27.md) -- the files the installed package holds."""
    folder = Path(hopsig.__file__).parent
    assert (folder / "py.typed").exists()
    missing = [m for m in MODULES if not (folder / f"{m}.pyi").exists()]
    assert not missing, f"no .pyi stub for: {missing}"
    unlisted = sorted(
        p.stem for p in folder.glob("*.py") if p.stem not in MODULES and p.stem not in SCRIPTS and p.stem != "__init__"
    )
    assert not unlisted, f"modules neither in the API list nor scripts: {unlisted} (add them to MODULES here)"


# --- docstrings -----------------------------------------------------------------------


def _import(name: str) -> ModuleType:
    if name == "distributed":
        # hopsig.distributed imports Dask (the `distributed` extra).
        require("distributed")
    return importlib.import_module(f"hopsig.{name}")


def _public(module: ModuleType) -> List[str]:
    """The module's public names: ``__all__``, else those not starting with ``_``
    that the module defines or re-exports from hopsig (not from typing or the stdlib)."""
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return [
        n
        for n, v in vars(module).items()
        if not n.startswith("_")
        and not inspect.ismodule(v)
        and (getattr(v, "__module__", None) or "").startswith("hopsig")
    ]


def _documentable(module: ModuleType) -> Iterator[Tuple[str, object]]:
    """Every public function and class of ``module``, and every public method and
    property a class defines itself (its own ``__dict__``: inherited ones are the
    base class's to document), as (qualified name, object)."""
    for name in _public(module):
        value = getattr(module, name)
        if not (inspect.isclass(value) or callable(value)):
            continue  # constants: documented in the stub (a value has no __doc__ of its own)
        yield f"{module.__name__}.{name}", value
        if inspect.isclass(value):
            for attr, member in vars(value).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if callable(member) or inspect.isdatadescriptor(member):
                    yield f"{module.__name__}.{name}.{attr}", member


def _own_doc(obj: object) -> str:
    """``obj``'s own docstring: ``inspect.getdoc`` falls back to a base class's,
    which would let an undocumented subclass pass."""
    doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else getattr(obj, "__doc__", None)
    return (doc or "").strip()


@pytest.mark.parametrize("name", ["hopsig"] + [f"hopsig.{m}" for m in MODULES])
def test_every_public_name_has_a_docstring(name):
    module = hopsig if name == "hopsig" else _import(name.split(".", 1)[1])
    assert _own_doc(module), f"{name} has no module docstring"
    undocumented = [q for q, obj in _documentable(module) if not _own_doc(obj)]
    assert not undocumented, f"no docstring: {undocumented}"


def test_the_docstring_check_sees_a_missing_docstring():
    """The check above can fail: an undocumented method of a documented class, and an
    undocumented subclass of a documented class, are both reported."""

    class Base:
        """Documented."""

        def method(self):
            """Documented."""

    class Child(Base):
        def bare(self):
            pass

    fake = ModuleType("hopsig.fake", "A module.")
    setattr(fake, "Base", Base)
    setattr(fake, "Child", Child)
    Base.__module__ = Child.__module__ = "hopsig.fake"
    found = {q for q, obj in _documentable(fake) if not _own_doc(obj)}
    assert found == {"hopsig.fake.Child", "hopsig.fake.Child.bare"}


# --- stubs and types ------------------------------------------------------------------


def _run(args: List[str]) -> subprocess.CompletedProcess:
    require("mypy")
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=600
    )


def test_the_stubs_match_the_runtime():
    """mypy's stubtest imports the installed package and compares every ``.pyi`` with
    the objects at run time: names missing either side, argument names and kinds,
    defaults, classes vs functions. The allowlist lists what may differ, each with
    its reason."""
    result = _run(
        [
            "mypy.stubtest",
            "hopsig",
            "--mypy-config-file",
            str(CRATE / "pyproject.toml"),
            "--allowlist",
            str(CRATE / "stubtest-allowlist.txt"),
        ]
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_tests_and_the_example_type_check():
    """mypy over the test suite and docs/examples against the stubs, with the settings
    of pyproject.toml's ``[tool.mypy]`` (bodies of unannotated tests checked too).
    The tests use what they decoded without narrowing ``Optional`` first (an
    AttributeError fails the test anyway) and fill unannotated lists as they go, so
    strict ``Optional`` and ``var-annotated`` are off for them; every call into
    hopsig is still checked against the stubs. The example is checked in full."""
    config = ["mypy", "--config-file", str(CRATE / "pyproject.toml")]
    tests = _run(config + ["--no-strict-optional", "--disable-error-code", "var-annotated", str(CRATE / "tests")])
    example = _run(config + [str(REPO / "docs" / "examples" / "python_tour.py")])
    assert (tests.returncode, example.returncode) == (0, 0), tests.stdout + example.stdout + tests.stderr + example.stderr


# --- require ---------------------------------------------------------------------------


def test_require_skips_a_missing_module_outside_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        require("hopsig_no_such_module")


def test_require_fails_for_a_missing_module_under_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="hopsig_no_such_module is not installed"):
        require("hopsig_no_such_module")


@pytest.mark.parametrize("ci", ["true", None])
def test_require_returns_a_present_module(monkeypatch, ci):
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    assert require("json") is importlib.import_module("json")
    assert os.environ.get("CI") == ci


# --- CPython 3.9 ------------------------------------------------------------------------


def _future_annotations(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom) and node.module == "__future__" and any(a.name == "annotations" for a in node.names)
        for node in tree.body
    )


def _too_new_for_39(source: str, name: str) -> List[str]:
    """What in ``source`` would not run on CPython 3.9: syntax of later versions
    (``ast.parse`` with ``feature_version``) and ``X | Y`` in annotations evaluated at
    run time (PEP 604 unions are 3.10; a stub or ``from __future__ import annotations``
    never evaluates them)."""
    try:
        tree = ast.parse(source, name, feature_version=(3, 9))
    except SyntaxError as e:
        return [f"{name}:{e.lineno}: {e.msg}"]
    if _future_annotations(tree):
        return []
    annotations: List[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            args = a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]
            annotations += [x.annotation for x in args if x.annotation] + ([node.returns] if node.returns else [])
        elif isinstance(node, ast.AnnAssign):
            annotations.append(node.annotation)
    return [
        f"{name}:{n.lineno}: X | Y in an annotation"
        for ann in annotations
        for n in ast.walk(ann)
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr)
    ]


def test_the_modules_run_on_cpython_39():
    """``requires-python = ">=3.9"`` and the abi3-py39 wheel promise 3.9; mypy 2 no
    longer checks for it, so the package's Python sources are checked here."""
    folder = Path(hopsig.__file__).parent
    found = [f for p in sorted(folder.glob("*.py")) for f in _too_new_for_39(p.read_text(), p.name)]
    assert not found, found


def test_the_39_check_sees_a_union_and_new_syntax():
    assert _too_new_for_39("def f(x: int | None) -> None: ...", "a.py") == ["a.py:1: X | Y in an annotation"]
    assert _too_new_for_39("from __future__ import annotations\ndef f(x: int | None): ...", "b.py") == []
    assert _too_new_for_39("match x:\n    case 1: pass\n", "c.py") != []
    assert _too_new_for_39("def f(x: Optional[int] = 1 | 2): ...", "d.py") == []
