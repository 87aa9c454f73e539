"""hopsig.distributed: being written (TEAM27.md)."""
