"""Aggregate signatures: every scheme of hopsig's registry.

Sequential aggregates (BGR, the RSA/ECDSA concatenations, BGLS): :func:`keygen` a key
pair, :func:`sign` one hop (the signer's own key, its message and the aggregate so far,
which is not verified: lazy verification), :func:`verify` the ordered list of (public
key, message). BGLS and IBAS also :func:`aggregate` separately made aggregates.

The identity-based aggregate ``ibas-bls12381`` (Gentry--Ramzan, 004 §2.3) has a PKG:
``pkg = Pkg.setup()``, ``key = pkg.extract("/wonderland/Alice")``, ``sign(key, m)``;
verifiers name signers by identity: ``verify([(identity, m)], agg, params=pkg.params)``.

Keys are hopsig key files (``to_bytes`` / ``from_bytes``, docs/spec/keys.md) and
aggregates the bytes of docs/spec/aggregate.md: what the ``hopsig`` CLI reads and
writes. Every call that does cryptography releases the GIL; :func:`verify_many`
verifies many aggregates on every core.

A scheme that is not in the registry is not here: KC-x (``hopsig kcx``) has its own
route-attestation format, not an aggregate of this table.
"""

from ._native import schemes as _native

SigningKey = _native.SigningKey
VerifyingKey = _native.VerifyingKey
Pkg = _native.Pkg
PublicParams = _native.PublicParams
UserKey = _native.UserKey
schemes = _native.schemes
keygen = _native.keygen
sign = _native.sign
verify = _native.verify
verify_many = _native.verify_many
aggregate = _native.aggregate
inspect = _native.inspect
IBAS_ID: str = _native.IBAS_ID


def ids() -> list:
    """The scheme ids of the registry, in ``hopsig schemes`` order."""
    return [entry["id"] for entry in schemes()]


__all__ = [
    "IBAS_ID",
    "Pkg",
    "PublicParams",
    "SigningKey",
    "UserKey",
    "VerifyingKey",
    "aggregate",
    "ids",
    "inspect",
    "keygen",
    "schemes",
    "sign",
    "verify",
    "verify_many",
]
