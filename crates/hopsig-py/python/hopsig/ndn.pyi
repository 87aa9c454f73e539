"""NDN Data packets and their signatures, IBAS included (typed API)."""

import os
from typing import Any, List, Optional, Tuple, Union, final

from typing_extensions import Self

from .schemes import PublicParams, UserKey

SIGNATURE_TYPE_IBAS: int
"""SignatureType of SignatureSha256Ibas (201)."""
CONTENT_TYPE_BLOB: int
"""ContentType BLOB (0)."""
CONTENT_TYPE_KEY: int
"""ContentType KEY (2)."""

@final
class Data:
    """An NDN Data packet (immutable; bytes round-trip exactly)."""

    def __new__(cls,
        name: str,
        content: Optional[bytes] = ...,
        *,
        content_type: Optional[int] = None,
        freshness_ms: Optional[int] = None,
        key_locator: Optional[str] = None,
    ) -> Self: ...
    @staticmethod
    def decode(wire: bytes) -> Data:
        """Decodes one Data packet."""
    @staticmethod
    def from_bytes(wire: bytes) -> Data:
        """Same as :meth:`decode`."""
    def to_bytes(self) -> bytes:
        """The Data TLV."""
    def signed_portion(self) -> bytes:
        """Name through SignatureInfo, as encoded."""
    @property
    def name(self) -> str:
        """The name (NDN URI)."""
    @property
    def components(self) -> List[Tuple[int, bytes]]:
        """(TLV-TYPE, value) of each name component."""
    @property
    def content(self) -> Optional[bytes]:
        """The Content, or None."""
    @property
    def content_type(self) -> Optional[int]:
        """MetaInfo ContentType, or None."""
    @property
    def freshness_ms(self) -> Optional[int]:
        """MetaInfo FreshnessPeriod, or None."""
    @property
    def final_block_id(self) -> Optional[bytes]:
        """MetaInfo FinalBlockId (an encoded component), or None."""
    @property
    def signature_type(self) -> int:
        """The SignatureType."""
    @property
    def key_locator(self) -> Union[str, bytes, None]:
        """KeyLocator name (str) or KeyDigest (bytes), or None."""
    @property
    def signature_value(self) -> bytes:
        """The SignatureValue."""
    def __eq__(self, other: object, /) -> bool: ...
    def __reduce__(self) -> Tuple[Any, ...]: ...

def sign(data: Data, key: Optional[bytes] = None) -> Data:
    """``data`` signed: DigestSha256, or an RSA / EC P-256 PEM private key."""

def verify(data: Data, key: Optional[bytes] = None) -> bool:
    """Whether ``data``'s signature verifies."""

def sign_ibas(
    data: Data,
    key: UserKey,
    so_far: Optional[bytes] = None,
    *,
    journal: Union[str, "os.PathLike[str]", None] = None,
) -> Data:
    """``data`` signed with the IBAS SignatureType (201)."""

def verify_ibas(data: Data, params: PublicParams, identity: str) -> bool:
    """Whether ``data`` has a valid one-signer IBAS signature by ``identity``."""

def ibas_aggregate(data: Union[Data, bytes], signers: int = 1) -> bytes:
    """hopsig aggregate bytes of an IBAS SignatureValue."""

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
