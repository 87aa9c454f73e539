"""BGPsec (RFC 8205) objects and operations over hopsig's Rust libraries."""

import os
from typing import Iterable, List, Optional, Sequence, Tuple, Union, final

__all__ = [
    "BGPSEC_PATH_TYPE_CODE",
    "BgpsecPath",
    "PathAttribute",
    "RouterKeys",
    "SecurePathSegment",
    "Signature",
    "SignatureBlock",
    "Signer",
    "SigningKey",
    "Update",
    "Verdict",
    "backend",
    "sign",
    "validate",
    "validate_many",
]

BGPSEC_PATH_TYPE_CODE: int

@final
class SecurePathSegment:
    """One Secure_Path Segment (RFC 8205 section 3.1): pCount, Flags octet, AS."""

    @property
    def pcount(self) -> int:
        """pCount: repetitions of the AS in the equivalent AS_PATH (0: route server)."""
    @property
    def flags(self) -> int:
        """The Flags octet, all 8 bits (0x80: Confed_Segment)."""
    @property
    def asn(self) -> int:
        """The 4-octet AS number of the AS that added the segment."""
    @property
    def confed_segment(self) -> bool:
        """Whether the Confed_Segment flag is set."""
    def __new__(
        cls, pcount: int, flags: int, asn: int) -> "SecurePathSegment":
        """A segment of ``asn`` with ``pcount`` and the ``flags`` octet."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Signature:
    """One Signature Segment (RFC 8205 section 3.2): SKI (20 octets) and signature."""

    @property
    def ski(self) -> bytes:
        """The Subject Key Identifier of the signer's router certificate."""
    @property
    def signature(self) -> bytes:
        """The signature octets (DER ECDSA for suite 1, RFC 8608 section 4)."""
    def __new__(
        cls, ski: bytes, signature: bytes) -> "Signature":
        """A Signature Segment; InputError (bad-argument) unless ``ski`` is 20 octets."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class SignatureBlock:
    """One Signature_Block (RFC 8205 section 3.2): suite and one Signature per segment."""

    @property
    def suite(self) -> int:
        """The Algorithm Suite Identifier (1: ECDSA P-256 with SHA-256, RFC 8608)."""
    @property
    def segments(self) -> List[Signature]:
        """The Signature Segments, newest (the sender's) first."""
    def __new__(
        cls, suite: int, segments: Sequence[Signature]) -> "SignatureBlock":
        """A block of ``suite`` with these segments, newest first."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class BgpsecPath:
    """A BGPsec_PATH attribute value (RFC 8205 section 3), well formed by construction."""

    def __new__(
        cls, secure_path: Sequence[SecurePathSegment], signature_blocks: Sequence[SignatureBlock]
    ) -> "BgpsecPath":
        """A BGPsec_PATH; InputError (bad-argument) if it breaks a rule of section 3."""
    @staticmethod
    def from_bytes(value: bytes) -> "BgpsecPath":
        """Decodes an attribute value; InputError (decode) naming what is wrong."""
    def to_bytes(self) -> bytes:
        """The attribute value's octets: ``from_bytes(b).to_bytes() == b``."""
    @property
    def secure_path(self) -> List[SecurePathSegment]:
        """The Secure_Path Segments, newest first, the origin's last."""
    @property
    def signature_blocks(self) -> List[SignatureBlock]:
        """The Signature_Blocks, in wire order."""
    def as_path(self) -> List[int]:
        """The equivalent AS_PATH (RFC 8205 section 4.4): ASes newest first, pCount times."""
    def __len__(self) -> int:
        """The number of Secure_Path Segments (hops)."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class PathAttribute:
    """One path attribute as framed on the wire: flags, type code, value octets."""

    @property
    def flags(self) -> int:
        """The Attribute Flags octet."""
    @property
    def type_code(self) -> int:
        """The Attribute Type Code (33: BGPsec_PATH)."""
    @property
    def value(self) -> bytes:
        """The value octets."""
    @property
    def optional(self) -> bool:
        """Whether the Optional bit (0x80) is set."""
    @property
    def transitive(self) -> bool:
        """Whether the Transitive bit (0x40) is set."""
    @property
    def extended_length(self) -> bool:
        """Whether the Extended Length bit (0x10) is set: a two-octet length field."""
    def __new__(
        cls, flags: int, type_code: int, value: bytes) -> "PathAttribute":
        """An attribute of ``type_code`` with ``flags`` and ``value``."""
    def to_bytes(self) -> bytes:
        """The whole attribute: flags, type code, length, value."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Update:
    """A BGP UPDATE message (RFC 4271 section 4.3), decoded by hopsig's codec."""

    def __new__(
        cls,
        withdrawn: Sequence[str] = ...,
        attributes: Sequence[PathAttribute] = ...,
        nlri: Sequence[str] = ...,
        *,
        as_width: int = 4,
    ) -> "Update":
        """An UPDATE of these parts, checked by the decoder; InputError (bad-argument)."""
    @staticmethod
    def from_bytes(message: bytes, as_width: int = 4) -> "Update":
        """Decodes a whole message (header included); InputError (decode) otherwise."""
    def to_bytes(self) -> bytes:
        """The whole message: ``Update.from_bytes(b).to_bytes() == b``."""
    @property
    def as_width(self) -> int:
        """Octets per AS number in AS_PATH: 4, or 2 on a session with an OLD speaker."""
    @property
    def withdrawn(self) -> List[str]:
        """The Withdrawn Routes field's IPv4 prefixes."""
    @property
    def nlri(self) -> List[str]:
        """The NLRI field's IPv4 prefixes."""
    @property
    def announced(self) -> List[str]:
        """Every prefix announced: the NLRI field, then MP_REACH_NLRI's."""
    @property
    def withdrawn_all(self) -> List[str]:
        """Every prefix withdrawn: Withdrawn Routes, then MP_UNREACH_NLRI's."""
    @property
    def attributes(self) -> List[PathAttribute]:
        """The path attributes, in the order received."""
    @property
    def bgpsec_path(self) -> Optional[BgpsecPath]:
        """The BGPsec_PATH, or None for an UPDATE that is not a BGPsec one."""
    def with_bgpsec_path(self, path: BgpsecPath) -> "Update":
        """The same UPDATE with its BGPsec_PATH replaced by ``path``."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class SigningKey:
    """A router's signing key of one algorithm suite; its repr shows no secret."""

    @staticmethod
    def generate(suite: Union[int, str] = 1) -> "SigningKey":
        """A fresh key pair of ``suite`` (1: ECDSA P-256) from OpenSSL's CSPRNG."""
    @staticmethod
    def from_file(path: Union[str, "os.PathLike[str]"], suite: Union[int, str] = 1) -> "SigningKey":
        """The key of a secret key file (``AS<n>.key`` of sign-mrt); InputError (io, key)."""
    def secret_key_file(self) -> str:
        """The text of the key's secret key file, what ``from_file`` reads."""
    @property
    def suite(self) -> int:
        """The Algorithm Suite Identifier."""
    @property
    def ski(self) -> bytes:
        """The Subject Key Identifier (20 octets)."""
    def public_key(self) -> bytes:
        """The public key, a DER SubjectPublicKeyInfo."""

@final
class RouterKeys:
    """(AS, SKI, public key) triples a validator trusts (RFC 8205 section 5.2 step 2)."""

    def __new__(
        cls, entries: Iterable[Tuple[int, bytes, bytes]] = ...) -> "RouterKeys":
        """Keys of these ``(asn, ski, public_key)`` triples (none by default)."""
    def add(self, asn: int, ski: Optional[bytes], public_key: bytes) -> None:
        """Adds ``public_key`` (DER SPKI) of ``asn``; ``ski=None`` computes the SKI."""
    @staticmethod
    def load(path: Union[str, "os.PathLike[str]"], at: Optional[int] = None) -> "RouterKeys":
        """rpki-client JSON or a keys folder, valid at ``at`` (Unix seconds; now)."""
    @staticmethod
    def from_rtr(caches: Sequence[str], timeout: float = 120.0) -> "RouterKeys":
        """One RTR Reset Query per cache (``host:port``), merged; InputError (rtr)."""
    def entries(self) -> List[Tuple[int, bytes, bytes]]:
        """The triples ``(asn, ski, public_key)``, sorted by AS and SKI."""
    def to_json(self) -> str:
        """The keys as rpki-client's JSON (``bgpsec_keys``), what ``load`` reads."""
    def __len__(self) -> int:
        """The number of keys."""

@final
class Signer:
    """A BGPsec router: its AS and one signing key per suite (at most two)."""

    def __new__(
        cls, asn: int, key: Union[SigningKey, Sequence[SigningKey]]) -> "Signer":
        """The router of ``asn`` signing with ``key`` (or one key per suite)."""
    @property
    def asn(self) -> int:
        """The router's AS number."""
    def originate(
        self, prefix: str, *, target_as: int, next_hop: Optional[str] = None, pcount: int = 1
    ) -> Update:
        """The BGPsec UPDATE announcing ``prefix`` from this origin to ``target_as``."""
    def forward(
        self, update: Update, *, target_as: int, next_hop: Optional[str] = None, pcount: int = 1
    ) -> Update:
        """The received BGPsec ``update`` with this router's signature, to ``target_as``."""

@final
class Verdict:
    """The verdict on one UPDATE (RFC 8205 section 5.1); true exactly when valid."""

    def __new__(
        cls,
        state: str,
        reason: Optional[str] = None,
        detail: str = "",
        suite: Optional[int] = None,
        signatures: int = 0,
    ) -> "Verdict":
        """A verdict, as pickling rebuilds one."""
    @property
    def state(self) -> str:
        """``"valid"`` or ``"not-valid"``."""
    @property
    def reason(self) -> Optional[str]:
        """Why not valid (validate-mrt's names, e.g. ``bad_signature``); None if valid."""
    @property
    def detail(self) -> str:
        """The validator's words, with the RFC section where one applies."""
    @property
    def suite(self) -> Optional[int]:
        """The suite of the Signature_Block found 'Valid'."""
    @property
    def signatures(self) -> int:
        """Signatures verified: the path's length when valid, else 0."""
    @property
    def valid(self) -> bool:
        """Whether the UPDATE is 'Valid'."""
    def to_dict(self) -> dict:
        """The verdict as a dict of its five fields."""
    def check(self) -> "Verdict":
        """The verdict when valid; else raises InvalidError (exit 1) with its reason."""
    def __bool__(self) -> bool: ...
    def __eq__(self, other: object, /) -> bool: ...

def sign(
    prefix: str, path: Sequence[Signer], *, target_as: int, next_hop: Optional[str] = None
) -> Update:
    """``prefix`` signed along ``path`` (origin first), the last hop toward ``target_as``."""

def validate(
    update: Union[bytes, Update],
    keys: RouterKeys,
    *,
    local_as: int,
    peer_as: Optional[int] = None,
    in_confederation: bool = False,
    pcount_zero: bool = False,
    experimental: bool = False,
) -> Verdict:
    """RFC 8205 section 5.2 on one UPDATE, as the router of ``local_as`` receives it."""

def validate_many(
    updates: Iterable[Union[bytes, Update]],
    keys: RouterKeys,
    *,
    local_as: int,
    peer_as: Optional[int] = None,
    in_confederation: bool = False,
    pcount_zero: bool = False,
    experimental: bool = False,
    threads: Optional[int] = None,
) -> List[Verdict]:
    """``validate`` of each UPDATE in order, on ``threads`` threads, GIL released;
    each thread verifies the signatures of a chunk of UPDATEs in one batch."""

def backend() -> str:
    """The suite-1 signature verifier of this process: ``"avx512ifma"`` (eight
    signatures per pass of AVX-512 IFMA, when the processor has it and
    ``HOPSIG_CPU_DISABLE`` does not name it) or ``"cpu"`` (OpenSSL). Verdicts are
    the same with either."""
