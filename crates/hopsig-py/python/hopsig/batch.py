"""python -m hopsig.batch / hopsig-batch: being written (TEAM27.md)."""


def main() -> int:
    raise SystemExit("hopsig.batch: not yet written")
