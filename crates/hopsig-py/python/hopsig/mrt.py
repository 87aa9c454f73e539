"""hopsig.mrt: being written (TEAM27.md)."""

from ._native import mrt as _native_mrt  # noqa: F401
