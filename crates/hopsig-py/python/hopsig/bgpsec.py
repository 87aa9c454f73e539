"""hopsig.bgpsec: being written (TEAM27.md)."""

from ._native import bgpsec as _native_bgpsec  # noqa: F401
