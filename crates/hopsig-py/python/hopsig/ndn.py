"""NDN Data packets (NDN packet format v0.3) and their signatures, IBAS included.

:class:`Data` decodes and encodes a Data packet (bytes round-trip exactly);
:func:`sign` / :func:`verify` handle DigestSha256, RSA and ECDSA;
:func:`sign_ibas` / :func:`verify_ibas` the identity-based aggregate SignatureType 201
of docs/spec/ndn-ibas.md (004 §5.3): a publisher signs, a moderator countersigns
under the publisher's state string w::

    pkg = hopsig.schemes.Pkg.setup()
    alice = pkg.extract("/wonderland/Alice")
    d1 = sign_ibas(Data("/wonderland/Alice/1", b"hello"), alice)
    verify_ibas(d1, pkg.params, "/wonderland/Alice")
"""

from ._native import ndn as _native

Data = _native.Data
sign = _native.sign
verify = _native.verify
sign_ibas = _native.sign_ibas
verify_ibas = _native.verify_ibas
ibas_aggregate = _native.ibas_aggregate
SIGNATURE_TYPE_IBAS: int = _native.SIGNATURE_TYPE_IBAS
CONTENT_TYPE_BLOB: int = _native.CONTENT_TYPE_BLOB
CONTENT_TYPE_KEY: int = _native.CONTENT_TYPE_KEY

__all__ = [
    "CONTENT_TYPE_BLOB",
    "CONTENT_TYPE_KEY",
    "Data",
    "SIGNATURE_TYPE_IBAS",
    "ibas_aggregate",
    "sign",
    "sign_ibas",
    "verify",
    "verify_ibas",
]
