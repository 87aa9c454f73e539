"""Aggregate signatures: every scheme of hopsig's registry (typed API)."""

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union, final


IBAS_ID: str
"""The id of the identity-based aggregate, ``"ibas-bls12381"``."""

@final
class SigningKey:
    """A secret key of a sequential scheme; ``to_bytes()`` is its hopsig key file."""

    @property
    def scheme(self) -> str:
        """The scheme id."""
    def public_key(self) -> VerifyingKey:
        """The public half."""
    def to_bytes(self) -> bytes:
        """The secret key file (``hopsig keygen``'s FILE)."""
    @staticmethod
    def from_bytes(data: bytes, scheme: Optional[str] = None) -> SigningKey:
        """Reads a secret key file (or a plain PKCS #8 key with ``scheme``)."""
    def __reduce__(self) -> Tuple[Any, ...]: ...

@final
class VerifyingKey:
    """A public key of a sequential scheme; ``to_bytes()`` is its ``.pub`` file."""

    @property
    def scheme(self) -> str:
        """The scheme id."""
    def to_bytes(self) -> bytes:
        """The public key file."""
    @staticmethod
    def from_bytes(data: bytes, scheme: Optional[str] = None) -> VerifyingKey:
        """Reads a public key file (or a plain SPKI key with ``scheme``)."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> Tuple[Any, ...]: ...

@final
class PublicParams:
    """The public parameters of an IBAS PKG (``params.pub``)."""

    @property
    def q(self) -> bytes:
        """Q = sP, 96-byte compressed G2 point."""
    @property
    def fingerprint(self) -> bytes:
        """SHA-256 fingerprint of the parameters."""
    def to_bytes(self) -> bytes:
        """The parameters file."""
    @staticmethod
    def from_bytes(data: bytes) -> PublicParams:
        """Reads a parameters file."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> Tuple[Any, ...]: ...

@final
class UserKey:
    """An IBAS user key, with an in-memory journal of the state strings w it used."""

    @property
    def identity(self) -> str:
        """The identity the key was extracted for."""
    @property
    def params(self) -> PublicParams:
        """The PKG's public parameters."""
    @property
    def scheme(self) -> str:
        """``"ibas-bls12381"``."""
    def to_bytes(self) -> bytes:
        """The user key file."""
    @staticmethod
    def from_bytes(data: bytes) -> UserKey:
        """Reads a user key file (checked against its parameters)."""
    def __reduce__(self) -> Tuple[Any, ...]: ...

@final
class Pkg:
    """The Private Key Generator of ``ibas-bls12381``."""

    @staticmethod
    def setup() -> Pkg:
        """A fresh master secret."""
    @property
    def params(self) -> PublicParams:
        """The public parameters."""
    def extract(self, identity: str) -> UserKey:
        """The private key of ``identity``."""
    def to_bytes(self) -> bytes:
        """The master secret file (``pkg.key``)."""
    @staticmethod
    def from_bytes(data: bytes) -> Pkg:
        """Reads a master secret file."""
    def __reduce__(self) -> Tuple[Any, ...]: ...

_Pair = Tuple[Union[VerifyingKey, str], bytes]

def schemes() -> List[Dict[str, Any]]:
    """The scheme table: id, code, param, kind, free, description."""

def ids() -> List[str]:
    """The scheme ids, in ``hopsig schemes`` order."""

def keygen(scheme: str) -> SigningKey:
    """A fresh key pair of a sequential scheme."""

def sign(
    key: Union[SigningKey, UserKey],
    message: bytes,
    so_far: Optional[bytes] = None,
    *,
    w: Optional[bytes] = None,
    journal: Union[str, "os.PathLike[str]", None] = None,
) -> bytes:
    """One hop: ``key``'s signature on ``message`` added to ``so_far``."""

def verify(pairs: Sequence[_Pair], aggregate: bytes, *, params: Optional[PublicParams] = None) -> bool:
    """Whether ``aggregate`` verifies against the (key or identity, message) pairs."""

def verify_many(
    items: Sequence[Tuple[Sequence[_Pair], bytes]],
    *,
    params: Optional[PublicParams] = None,
    threads: Optional[int] = None,
) -> List[bool]:
    """:func:`verify` of many aggregates on every core, GIL released."""

def aggregate(parts: Sequence[bytes]) -> bytes:
    """One aggregate of the parts (BGLS, IBAS under one w)."""

def inspect(aggregate: bytes) -> Dict[str, Any]:
    """What an aggregate holds: scheme, signers, encoded_bytes, signature_bits (, w)."""

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
