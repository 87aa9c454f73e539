"""The exceptions hopsig raises.

Each carries ``reason`` (a short stable name of what went wrong) and ``exit_code``, the
exit status the ``hopsig`` CLI gives for the same failure: 1 for a signature or path
that does not verify (:class:`InvalidError`), 2 for bad arguments or input that cannot
be read or decoded (:class:`InputError`). ``str(e)`` is the CLI's message.
"""

from ._native import errors as _errors

HopsigError = _errors.HopsigError
InvalidError = _errors.InvalidError
InputError = _errors.InputError

__all__ = ["HopsigError", "InvalidError", "InputError"]
