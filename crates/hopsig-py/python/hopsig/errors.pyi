from typing import ClassVar, Optional

__all__ = ["HopsigError", "InvalidError", "InputError"]

class HopsigError(Exception):
    """Any error hopsig raises."""

    reason: Optional[str]
    exit_code: ClassVar[Optional[int]]

class InvalidError(HopsigError):
    """A signature or path that does not verify (the CLI's exit status 1)."""

    exit_code: ClassVar[Optional[int]]

class InputError(HopsigError):
    """Bad arguments, or input that cannot be read or decoded (exit status 2)."""

    exit_code: ClassVar[Optional[int]]
