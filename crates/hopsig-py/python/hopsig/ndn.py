"""hopsig.ndn: being written (TEAM27.md)."""

from ._native import ndn as _native_ndn  # noqa: F401
