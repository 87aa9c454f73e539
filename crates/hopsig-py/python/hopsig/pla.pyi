"""Packet Level Authentication: implicit certificates and the PLA header (typed API)."""

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union, final

from typing_extensions import Self

from .schemes import SigningKey, VerifyingKey

@final
class Ttp:
    """A TTP of implicit certificates (``hopsig ic ttp``)."""

    @staticmethod
    def setup(curve: str = "k163") -> Ttp:
        """A new TTP on ``curve``."""
    @staticmethod
    def from_bytes(data: bytes) -> Ttp:
        """Reads ``ttp.key``."""
    @property
    def curve(self) -> str:
        """The curve (``"k163"``, ...)."""
    def to_bytes(self) -> bytes:
        """The secret file (``ttp.key``)."""
    def public_bytes(self) -> bytes:
        """The public key file (``ttp.pub``)."""
    def issue(self, identity: Union[str, bytes], request: bytes) -> bytes:
        """Certifies ``identity`` for a request file; the answer file."""
    def certify_key(self, public: VerifyingKey) -> bytes:
        """A key certificate file for the certificate-based layout."""
    def __reduce__(self) -> Tuple[Any, ...]: ...

@final
class Blind:
    """A host's blinded certificate request."""

    def __new__(cls, curve: str = "k163") -> Self: ...
    @staticmethod
    def from_bytes(data: bytes) -> Blind:
        """Reads a blind file."""
    @property
    def curve(self) -> str:
        """The curve."""
    @property
    def request(self) -> bytes:
        """The request file for the TTP."""
    def to_bytes(self) -> bytes:
        """The blind file (secret)."""
    def __reduce__(self) -> Tuple[Any, ...]: ...

@final
class Header:
    """A PLA header (docs/spec/pla.md)."""

    @staticmethod
    def decode(data: bytes) -> Header:
        """Decodes a header."""
    @staticmethod
    def from_bytes(data: bytes) -> Header:
        """Same as :meth:`decode`."""
    def to_bytes(self) -> bytes:
        """The encoding."""
    @property
    def curve(self) -> str:
        """The curve."""
    @property
    def ttp_id(self) -> int:
        """The TTP id."""
    @property
    def sequence(self) -> int:
        """The sequence number."""
    @property
    def timestamp(self) -> int:
        """Unix seconds."""
    @property
    def layout(self) -> str:
        """``"implicit"`` or ``"certificate"``."""
    @property
    def r(self) -> Optional[bytes]:
        """r_A of an implicit certificate."""
    @property
    def b(self) -> Optional[bool]:
        """b_A of an implicit certificate."""
    @property
    def public_key(self) -> Optional[bytes]:
        """The signer's public key (certificate layout)."""
    @property
    def ttp_signature(self) -> Optional[bytes]:
        """The TTP's signature on the key (certificate layout)."""
    @property
    def signature(self) -> bytes:
        """The packet signature c ‖ d."""
    def __len__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __reduce__(self) -> Tuple[Any, ...]: ...

@final
class Router:
    """A PLA router: the whole per-hop check of IPv6 packets."""

    def __new__(cls, ttps: Dict[int, bytes], *, max_age: int = 60, skew: int = 2, max_sources: int = 65536
    ) -> Self: ...
    def check(self, packet: bytes, now: int) -> str:
        """The verdict name on one packet."""
    def check_many(
        self, packets: Sequence[bytes], now: int, *, threads: Optional[int] = None
    ) -> List[str]:
        """The verdicts on many packets, in order, on every core."""

def finalize(blind: Blind, issued: bytes, ttp_public: bytes) -> Tuple[SigningKey, bytes]:
    """The host's ``ecdsa-k*`` key and its certificate file."""

def extract(ttp_public: bytes, cert: bytes) -> bytes:
    """The public key a certificate stands for (SEC 1 compressed)."""

def public_point(key: Union[SigningKey, VerifyingKey]) -> bytes:
    """The public point of an ``ecdsa-k*`` key (SEC 1 compressed)."""

def verify(ttp_public: bytes, cert: bytes, message: bytes, signature: bytes) -> bool:
    """Fused extraction and verification (003 eq. 9)."""

def sign_header(
    key: SigningKey,
    payload: bytes,
    *,
    cert: Optional[bytes] = None,
    key_cert: Optional[bytes] = None,
    ttp_id: int = 1,
    sequence: int = 1,
    timestamp: int = 0,
) -> Header:
    """A signed PLA header over ``payload``."""

def verify_header(
    header: bytes,
    payload: bytes,
    src: Union[str, bytes],
    ttps: Dict[int, bytes],
    *,
    now: int,
    max_age: int = 60,
) -> bool:
    """The per-hop check of a header."""

def sign_packet(
    packet: bytes,
    key: SigningKey,
    *,
    cert: Optional[bytes] = None,
    key_cert: Optional[bytes] = None,
    ttp_id: int = 1,
    sequence: int = 1,
    timestamp: int = 0,
) -> bytes:
    """The IPv6 packet with a signed PLA option."""

__all__ = [
    "Blind",
    "Header",
    "Router",
    "Ttp",
    "extract",
    "finalize",
    "public_point",
    "sign_header",
    "sign_packet",
    "verify",
    "verify_header",
]
