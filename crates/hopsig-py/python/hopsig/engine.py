"""hopsig.engine: being written (TEAM27.md)."""

from ._native import engine as _native_engine  # noqa: F401
