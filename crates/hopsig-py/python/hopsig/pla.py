"""hopsig.pla: being written (TEAM27.md)."""

from ._native import pla as _native_pla  # noqa: F401
