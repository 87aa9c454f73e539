"""hopsig.schemes: being written (TEAM27.md)."""

from ._native import schemes as _native_schemes  # noqa: F401
