"""hopsig: signatures that travel across network hops.

BGPsec (RFC 8205) signing and validation, MRT archives read as pybgpkit-parser reads
them, the aggregate signature schemes of hopsig's registry (BGR, BGLS, IBAS, concat),
PLA implicit certificates and NDN packets, all over hopsig's Rust libraries, with the
GIL released around every batch of cryptography.

Modules:

- :mod:`hopsig.bgpsec` -- UPDATE and BGPsec_PATH objects, sign, validate, verdicts
- :mod:`hopsig.mrt` -- MRT files as records and announcements, Arrow and pandas tables,
  ``sign_mrt`` / ``validate_mrt``
- :mod:`hopsig.engine` -- the whole-file jobs (validate, sign, replay) one task runs
- :mod:`hopsig.schemes` -- keygen / sign / verify for every scheme of the registry
- :mod:`hopsig.pla` -- implicit certificates and PLA header verification
- :mod:`hopsig.ndn` -- NDN Data packets with IBAS signatures
- :mod:`hopsig.distributed` -- many MRT files on a Dask cluster (needs ``hopsig[distributed]``)
- :mod:`hopsig.errors` -- ``HopsigError``, ``InputError`` (exit 2), ``InvalidError`` (exit 1)

docs/guide/python.md is the guide.
"""

# (`from ._native import`, not `from . import _native`: mypy then treats the extension
# module, which has no stub of its own, as the missing module it is configured to ignore.)
from ._native import __version__ as _native_version
from .errors import HopsigError, InputError, InvalidError

__version__: str = _native_version

__all__ = ["HopsigError", "InputError", "InvalidError", "__version__"]
