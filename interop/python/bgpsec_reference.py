#!/usr/bin/env python3
"""Independent reference implementation of BGPsec path validation.

Written from the RFC texts only (RFC 8205, RFC 8608, RFC 8209, RFC 4271,
RFC 4760, RFC 6793, RFC 7606) and the public documentation of the
`cryptography` package.  It is meant to cross-check another
implementation, so it favours the literal text of the RFCs over speed.

Verdicts:
  "valid"      -- RFC 8205 §5.2: at least one Signature_Block marked 'Valid'.
  "not valid"  -- RFC 8205 §5.2: the message is well formed but no
                  Signature_Block of a supported suite is 'Valid' (or there is
                  none: the UPDATE is then handled as unsigned, see README).
  "malformed"  -- an error of the kind RFC 8205 §5.2 (checks 1-8), RFC 4271
                  §6.3 and RFC 7606 handle by "treat-as-withdraw" or a
                  session reset; no signature is looked at.

Command line:
  bgpsec_reference.py VECTORS.json   check every vector
  bgpsec_reference.py --self-test    reproduce RFC 8608 Appendix A
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import struct
import sys
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

try:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import (
        Prehashed,
        decode_dss_signature,
        encode_dss_signature,
    )
except ImportError:  # pragma: no cover - environment without the package
    import os
    _venv_py = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "venv", "bin", "python")
    if __name__ == "__main__" and os.path.exists(_venv_py) and \
            not os.environ.get("BGPSEC_REF_REEXEC"):
        os.environ["BGPSEC_REF_REEXEC"] = "1"
        os.execv(_venv_py, [_venv_py] + sys.argv)
    sys.stderr.write("bgpsec_reference.py needs the 'cryptography' package "
                     "(pip install cryptography)\n")
    sys.exit(2)

# ---------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------

# RFC 4271 §4.1: marker, length, type; §4.1 "The value of the Length field
# MUST always be at least 19 and no greater than 4096".  RFC 8205 §4.1: "All
# BGPsec UPDATE messages MUST conform to BGP's maximum message size."
BGP_HEADER_LEN = 19
BGP_MAX_MESSAGE_LEN = 4096
BGP_MARKER = b"\xff" * 16
BGP_TYPE_UPDATE = 2
UPDATE_MIN_LEN = 23  # RFC 4271 §4.3 / §6.3 (7606 §3 b: "... + 23")

# Path attribute type codes (RFC 4271 §5, RFC 4760, RFC 6793, RFC 8205 §9 /
# IANA "BGP Path Attributes" registry).
ATTR_ORIGIN = 1
ATTR_AS_PATH = 2
ATTR_NEXT_HOP = 3
ATTR_MULTI_EXIT_DISC = 4
ATTR_LOCAL_PREF = 5
ATTR_ATOMIC_AGGREGATE = 6
ATTR_AGGREGATOR = 7
ATTR_COMMUNITIES = 8
ATTR_ORIGINATOR_ID = 9
ATTR_CLUSTER_LIST = 10
ATTR_MP_REACH_NLRI = 14
ATTR_MP_UNREACH_NLRI = 15
ATTR_EXTENDED_COMMUNITIES = 16
ATTR_AS4_PATH = 17
ATTR_AS4_AGGREGATOR = 18
ATTR_IPV6_EXT_COMMUNITIES = 25
# RFC 8205 §9 asks IANA for a code; the registry value is 33.  RFC 8608
# Appendix A's example messages were produced with the pre-standard code 30
# (0x1E): see LEGACY_BGPSEC_PATH_TYPE and the README.
ATTR_BGPSEC_PATH = 33
LEGACY_BGPSEC_PATH_TYPE = 30

# Attribute flag bits (RFC 4271 §4.3)
FLAG_OPTIONAL = 0x80
FLAG_TRANSITIVE = 0x40
FLAG_PARTIAL = 0x20
FLAG_EXTENDED_LENGTH = 0x10

# Expected (Optional, Transitive) bits of the attributes this checker
# recognises -- RFC 4271 §5 / RFC 4760 §3-4 / RFC 6793 / RFC 8205 §3.
EXPECTED_OT = {
    ATTR_ORIGIN: (0, 1),
    ATTR_AS_PATH: (0, 1),
    ATTR_NEXT_HOP: (0, 1),
    ATTR_MULTI_EXIT_DISC: (1, 0),
    ATTR_LOCAL_PREF: (0, 1),
    ATTR_ATOMIC_AGGREGATE: (0, 1),
    ATTR_AGGREGATOR: (1, 1),
    ATTR_MP_REACH_NLRI: (1, 0),
    ATTR_MP_UNREACH_NLRI: (1, 0),
    ATTR_AS4_PATH: (1, 1),
    ATTR_AS4_AGGREGATOR: (1, 1),
    ATTR_BGPSEC_PATH: (1, 0),  # RFC 8205 §3: "optional non-transitive"
}
WELL_KNOWN_TYPES = {ATTR_ORIGIN, ATTR_AS_PATH, ATTR_NEXT_HOP, ATTR_LOCAL_PREF,
                    ATTR_ATOMIC_AGGREGATE}

AFI_IPV4 = 1
AFI_IPV6 = 2
SAFI_UNICAST = 1
SAFI_MULTICAST = 2
AFI_MAX_PREFIX_BITS = {AFI_IPV4: 32, AFI_IPV6: 128}

# RFC 8205 §3.1 Figure 5
CONFED_SEGMENT_FLAG = 0x80
SECURE_PATH_SEGMENT_LEN = 6
# RFC 8205 §3.2 Figure 7
SKI_LEN = 20

# RFC 8608 §2.1 / §7: algorithm suite identifiers
ALG_SUITE_ECDSA_P256_SHA256 = 0x01
RESERVED_ALG_SUITES = {0x00, 0xFF}
SUPPORTED_ALG_SUITES = {ALG_SUITE_ECDSA_P256_SHA256}

VALID = "valid"
NOT_VALID = "not valid"
MALFORMED = "malformed"
VERDICTS = (VALID, NOT_VALID, MALFORMED)


# ---------------------------------------------------------------------------
# Errors and results
# ---------------------------------------------------------------------------

class Malformed(Exception):
    """A syntactic or protocol error (RFC 8205 §5.2 checks, RFC 4271 §6.3,
    RFC 7606).  `ref` names the rule that was broken."""

    def __init__(self, reason: str, ref: str):
        super().__init__(f"{reason} [{ref}]")
        self.reason = reason
        self.ref = ref


@dataclass
class ValidationResult:
    verdict: str
    reason: str
    # per Signature_Block outcome, for reporting
    blocks: List[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.verdict}: {self.reason}"


# ---------------------------------------------------------------------------
# Small readers
# ---------------------------------------------------------------------------

def _u16(b: bytes, off: int) -> int:
    return struct.unpack_from(">H", b, off)[0]


def _u32(b: bytes, off: int) -> int:
    return struct.unpack_from(">I", b, off)[0]


# ---------------------------------------------------------------------------
# RFC 4271 §4.3 / RFC 4760 §5: prefixes  <length (1 octet), prefix (var)>
# ---------------------------------------------------------------------------

@dataclass
class Prefix:
    length: int         # in bits
    prefix: bytes       # ceil(length/8) octets, as received

    def zeroed_trailing_bits(self) -> bytes:
        """RFC 8205 §4.2 / §5.2 step 3: "in the Prefix field within the NLRI
        field ... all of the trailing bits MUST be set to 0 when
        constructing this sequence"."""
        if not self.prefix:
            return b""
        out = bytearray(self.prefix)
        extra = len(out) * 8 - self.length
        if extra:
            out[-1] &= (0xFF << extra) & 0xFF
        return bytes(out)

    def nlri_for_signature(self) -> bytes:
        """The NLRI element of Figure 8: length octet + prefix (trailing bits
        zeroed), i.e. the MP_REACH_NLRI encoding of RFC 4760 §5."""
        return bytes([self.length]) + self.zeroed_trailing_bits()


def parse_prefixes(blob: bytes, max_bits: int, where: str) -> List[Prefix]:
    """Parse a sequence of <length, prefix> tuples (RFC 4271 §4.3, RFC 4760
    §5).  Syntactic correctness per RFC 7606 §5.3: a length larger than the
    address family allows, or a prefix that overruns the field, is an
    error."""
    out = []
    off = 0
    while off < len(blob):
        plen = blob[off]
        off += 1
        if plen > max_bits:
            raise Malformed(f"{where}: prefix length {plen} > {max_bits}",
                            "RFC 7606 §5.3")
        nbytes = (plen + 7) // 8
        if off + nbytes > len(blob):
            raise Malformed(f"{where}: prefix overruns the field",
                            "RFC 7606 §5.3")
        out.append(Prefix(plen, blob[off:off + nbytes]))
        off += nbytes
    return out


# ---------------------------------------------------------------------------
# RFC 4271 §4.1 / §4.3: UPDATE message and path attributes
# ---------------------------------------------------------------------------

@dataclass
class PathAttribute:
    flags: int
    type_code: int
    value: bytes

    @property
    def optional(self) -> int:
        return 1 if self.flags & FLAG_OPTIONAL else 0

    @property
    def transitive(self) -> int:
        return 1 if self.flags & FLAG_TRANSITIVE else 0


@dataclass
class UpdateMessage:
    length: int
    withdrawn_routes: List[Prefix]
    path_attributes: List[PathAttribute]  # in received order, duplicates kept
    nlri: List[Prefix]
    total_path_attribute_length: int


def parse_bgp_message_header(data: bytes) -> Tuple[int, int]:
    """RFC 4271 §4.1 message header: 16-octet marker, 2-octet length, 1-octet
    type.  Errors here are "Message Header Error" (RFC 4271 §6.1), a
    session reset, which this checker reports as malformed."""
    if len(data) < BGP_HEADER_LEN:
        raise Malformed(f"message shorter than the {BGP_HEADER_LEN}-octet "
                        "header", "RFC 4271 §4.1/§6.1")
    if data[:16] != BGP_MARKER:
        raise Malformed("marker is not all ones", "RFC 4271 §4.1/§6.1")
    length = _u16(data, 16)
    mtype = data[18]
    if length < BGP_HEADER_LEN or length > BGP_MAX_MESSAGE_LEN:
        raise Malformed(f"Length field {length} outside 19..4096",
                        "RFC 4271 §4.1/§6.1; RFC 8205 §4.1")
    if length != len(data):
        raise Malformed(f"Length field {length} != {len(data)} octets "
                        "supplied", "RFC 4271 §4.1/§6.1")
    if mtype != BGP_TYPE_UPDATE:
        raise Malformed(f"message type {mtype} is not UPDATE (2)",
                        "RFC 4271 §4.1/§6.1")
    if length < UPDATE_MIN_LEN:
        raise Malformed(f"UPDATE length {length} < 23", "RFC 4271 §4.3/§6.1")
    return length, mtype


def parse_path_attributes(blob: bytes) -> List[PathAttribute]:
    """RFC 4271 §4.3 path attributes: <flags, type code, length, value>, the
    length being 2 octets when the Extended Length bit is set.  Overruns and
    left-over octets are errors (RFC 7606 §4)."""
    attrs = []
    off = 0
    while off < len(blob):
        if len(blob) - off < 3:
            raise Malformed("fewer than 3 octets left for a path attribute",
                            "RFC 7606 §4")
        flags = blob[off]
        tcode = blob[off + 1]
        if flags & FLAG_EXTENDED_LENGTH:
            if len(blob) - off < 4:
                raise Malformed("fewer than 4 octets left for an "
                                "extended-length path attribute",
                                "RFC 7606 §4")
            alen = _u16(blob, off + 2)
            hdr = 4
        else:
            alen = blob[off + 2]
            hdr = 3
        if off + hdr + alen > len(blob):
            raise Malformed(f"attribute type {tcode} length {alen} overruns "
                            "the Total Path Attribute Length",
                            "RFC 7606 §4; RFC 4271 §6.3")
        attrs.append(PathAttribute(flags, tcode,
                                   blob[off + hdr:off + hdr + alen]))
        off += hdr + alen
    return attrs


def parse_update_message(data: bytes) -> UpdateMessage:
    """RFC 4271 §4.3 UPDATE: Withdrawn Routes Length, Withdrawn Routes, Total
    Path Attribute Length, Path Attributes, NLRI."""
    length, _ = parse_bgp_message_header(data)
    body = data[BGP_HEADER_LEN:]
    wlen = _u16(body, 0)
    if 2 + wlen + 2 > len(body):
        raise Malformed("Withdrawn Routes Length too large",
                        "RFC 4271 §6.3; RFC 7606 §3 b")
    withdrawn_blob = body[2:2 + wlen]
    alen = _u16(body, 2 + wlen)
    if UPDATE_MIN_LEN + wlen + alen > length:
        raise Malformed("Withdrawn Routes Length + Total Path Attribute "
                        "Length + 23 exceeds the message Length",
                        "RFC 4271 §6.3; RFC 7606 §3 b")
    attr_blob = body[4 + wlen:4 + wlen + alen]
    nlri_blob = body[4 + wlen + alen:]
    # RFC 7606 §3 i / §5.3: withdrawn routes and NLRI are IPv4 prefixes here.
    withdrawn = parse_prefixes(withdrawn_blob, 32, "Withdrawn Routes")
    nlri = parse_prefixes(nlri_blob, 32, "NLRI field")
    attrs = parse_path_attributes(attr_blob)
    return UpdateMessage(length, withdrawn, attrs, nlri, alen)


# ---------------------------------------------------------------------------
# RFC 4760 §3-§5: MP_REACH_NLRI / MP_UNREACH_NLRI
# ---------------------------------------------------------------------------

@dataclass
class MpReachNlri:
    afi: int
    safi: int
    next_hop: bytes
    nlri: List[Prefix]


def _check_afi_safi(afi: int, safi: int, where: str) -> int:
    # BGPsec is specified for AFI 1 and 2 only (RFC 8205 §2.1).  Of the SAFIs,
    # this checker knows the plain-prefix encoding of RFC 4760 §5 (SAFI 1
    # unicast, 2 multicast); other SAFIs (labels, RDs, ...) are a limit.
    if afi not in AFI_MAX_PREFIX_BITS:
        raise Malformed(f"{where}: AFI {afi} is not IPv4/IPv6; BGPsec is "
                        "specified only for AFI 1 and 2", "RFC 8205 §2.1")
    if safi not in (SAFI_UNICAST, SAFI_MULTICAST):
        raise Malformed(f"{where}: SAFI {safi} not supported by this "
                        "reference (prefix encoding unknown)",
                        "RFC 4760 §5 (checker limit)")
    return AFI_MAX_PREFIX_BITS[afi]


def parse_mp_reach_nlri(value: bytes) -> MpReachNlri:
    """RFC 4760 §3: AFI (2), SAFI (1), Length of Next Hop (1), Next Hop,
    Reserved (1), NLRI.  RFC 7606 §5.3 (length < 5, NLRI syntax) and §7.11
    (next hop length inconsistent with AFI/SAFI)."""
    if len(value) < 5:
        raise Malformed("MP_REACH_NLRI shorter than 5 octets", "RFC 7606 §5.3")
    afi = _u16(value, 0)
    safi = value[2]
    nhlen = value[3]
    if 4 + nhlen + 1 > len(value):
        raise Malformed("MP_REACH_NLRI next hop overruns the attribute",
                        "RFC 4760 §3; RFC 7606 §7.11")
    max_bits = _check_afi_safi(afi, safi, "MP_REACH_NLRI")
    expected_nh = {AFI_IPV4: (4,), AFI_IPV6: (16, 32)}[afi]
    if nhlen not in expected_nh:
        raise Malformed(f"MP_REACH_NLRI next hop length {nhlen} inconsistent "
                        f"with AFI {afi}", "RFC 7606 §7.11")
    next_hop = value[4:4 + nhlen]
    # Reserved octet: "MUST be set to 0, and SHOULD be ignored upon receipt"
    nlri = parse_prefixes(value[5 + nhlen:], max_bits, "MP_REACH_NLRI")
    return MpReachNlri(afi, safi, next_hop, nlri)


def parse_mp_unreach_nlri(value: bytes) -> None:
    """RFC 4760 §4; RFC 7606 §5.3 (length < 3, NLRI syntax)."""
    if len(value) < 3:
        raise Malformed("MP_UNREACH_NLRI shorter than 3 octets",
                        "RFC 7606 §5.3")
    afi = _u16(value, 0)
    safi = value[2]
    if afi in AFI_MAX_PREFIX_BITS and safi in (SAFI_UNICAST, SAFI_MULTICAST):
        parse_prefixes(value[3:], AFI_MAX_PREFIX_BITS[afi], "MP_UNREACH_NLRI")
    # other AFI/SAFI withdrawals are not interpreted (checker limit)


# ---------------------------------------------------------------------------
# RFC 8205 §3: the BGPsec_PATH attribute
# ---------------------------------------------------------------------------

@dataclass
class SecurePathSegment:
    """RFC 8205 §3.1 Figure 5: pCount (1), Flags (1), AS Number (4)."""
    pcount: int
    flags: int
    asn: int

    @property
    def confed_segment(self) -> bool:
        return bool(self.flags & CONFED_SEGMENT_FLAG)

    def encode(self) -> bytes:
        return struct.pack(">BBI", self.pcount, self.flags, self.asn)


@dataclass
class SignatureSegment:
    """RFC 8205 §3.2 Figure 7: SKI (20), Signature Length (2), Signature."""
    ski: bytes
    signature: bytes

    def encode(self) -> bytes:
        return self.ski + struct.pack(">H", len(self.signature)) + \
            self.signature


@dataclass
class SignatureBlock:
    """RFC 8205 §3.2 Figure 6: Signature_Block Length (2), Algorithm Suite
    Identifier (1), Signature Segments.  Segments are in wire order: the
    most recently added one first."""
    algorithm_suite: int
    segments: List[SignatureSegment]


@dataclass
class BgpsecPath:
    """RFC 8205 §3 Figure 3.  secure_path is in wire order: index 0 is the
    most recently added Secure_Path Segment, the last is the origin's."""
    secure_path: List[SecurePathSegment]
    signature_blocks: List[SignatureBlock]


def parse_secure_path(value: bytes) -> Tuple[List[SecurePathSegment], int]:
    """RFC 8205 §3.1 Figure 4: Secure_Path Length (2 octets, counting
    itself) and one or more 6-octet Secure_Path Segments; "the Secure_Path
    Length is two greater than six times the number of Secure_Path
    Segments"."""
    if len(value) < 2:
        raise Malformed("BGPsec_PATH too short for a Secure_Path Length",
                        "RFC 8205 §3.1; §5.2 check 1")
    sp_len = _u16(value, 0)
    if sp_len > len(value):
        raise Malformed(f"Secure_Path Length {sp_len} exceeds the attribute "
                        f"length {len(value)}", "RFC 8205 §3.1; §5.2 check 1")
    if sp_len < 2 + SECURE_PATH_SEGMENT_LEN:
        raise Malformed(f"Secure_Path Length {sp_len}: no Secure_Path Segment"
                        " (\"One or more\")", "RFC 8205 §3.1; §5.2 check 1")
    if (sp_len - 2) % SECURE_PATH_SEGMENT_LEN:
        raise Malformed(f"Secure_Path Length {sp_len} is not 2 + 6*n",
                        "RFC 8205 §3.1; §5.2 check 1")
    segs = []
    for off in range(2, sp_len, SECURE_PATH_SEGMENT_LEN):
        pcount, flags, asn = struct.unpack_from(">BBI", value, off)
        segs.append(SecurePathSegment(pcount, flags, asn))
    return segs, sp_len


def parse_signature_block(blob: bytes, off: int) -> Tuple[SignatureBlock, int]:
    """RFC 8205 §3.2: one Signature_Block starting at `off`; its Length
    counts its own 2 octets; the Signature Segments must fill it exactly."""
    if len(blob) - off < 3:
        raise Malformed("fewer than 3 octets left for a Signature_Block",
                        "RFC 8205 §3.2; §5.2 check 1")
    blen = _u16(blob, off)
    if blen < 3:
        raise Malformed(f"Signature_Block Length {blen} < 3",
                        "RFC 8205 §3.2; §5.2 check 1")
    if off + blen > len(blob):
        raise Malformed(f"Signature_Block Length {blen} overruns the "
                        "BGPsec_PATH attribute", "RFC 8205 §3.2; §5.2 check 1")
    suite = blob[off + 2]
    segs = []
    p = off + 3
    end = off + blen
    while p < end:
        if end - p < SKI_LEN + 2:
            raise Malformed("Signature Segment truncated (SKI + Signature "
                            "Length need 22 octets)",
                            "RFC 8205 §3.2; §5.2 check 1")
        ski = blob[p:p + SKI_LEN]
        slen = _u16(blob, p + SKI_LEN)
        if p + SKI_LEN + 2 + slen > end:
            raise Malformed(f"Signature Length {slen} overruns the "
                            "Signature_Block", "RFC 8205 §3.2; §5.2 check 1")
        segs.append(SignatureSegment(ski, blob[p + 22:p + 22 + slen]))
        p += SKI_LEN + 2 + slen
    return SignatureBlock(suite, segs), end


def parse_bgpsec_path(value: bytes) -> BgpsecPath:
    """RFC 8205 §3: Secure_Path followed by one or two Signature_Blocks,
    each for a different algorithm suite.  Performs §5.2 check 1 (syntax)
    and check 3 (one Signature Segment per Secure_Path Segment in each
    block: "the entirety of each Signature_Block MUST be checked")."""
    secure_path, off = parse_secure_path(value)
    blocks = []
    while off < len(value):
        block, off = parse_signature_block(value, off)
        blocks.append(block)
    if not blocks:
        raise Malformed("no Signature_Block", "RFC 8205 §3 (\"one or two\"); "
                        "§5.2 check 1")
    if len(blocks) > 2:
        raise Malformed(f"{len(blocks)} Signature_Blocks (at most two)",
                        "RFC 8205 §3; §5.2 check 1")
    if len(blocks) == 2 and \
            blocks[0].algorithm_suite == blocks[1].algorithm_suite:
        raise Malformed("two Signature_Blocks with the same Algorithm Suite "
                        f"Identifier {blocks[0].algorithm_suite}",
                        "RFC 8205 §3 (\"each of which corresponds to a "
                        "different algorithm suite\"); §5.2 check 1")
    for i, b in enumerate(blocks, 1):
        if b.algorithm_suite in RESERVED_ALG_SUITES:
            raise Malformed(f"Signature_Block {i}: reserved Algorithm Suite "
                            f"Identifier 0x{b.algorithm_suite:02X}",
                            "RFC 8608 §2.1")
    for i, b in enumerate(blocks, 1):
        if len(b.segments) != len(secure_path):
            raise Malformed(f"Signature_Block {i} has {len(b.segments)} "
                            "Signature Segments for "
                            f"{len(secure_path)} Secure_Path Segments",
                            "RFC 8205 §3.2; §5.2 check 3")
    return BgpsecPath(secure_path, blocks)


# ---------------------------------------------------------------------------
# RFC 8205 §4.4: reconstructing the AS_PATH (used for loop detection)
# ---------------------------------------------------------------------------

def reconstruct_as_path(secure_path: Sequence[SecurePathSegment]
                        ) -> List[Tuple[str, List[int]]]:
    """RFC 8205 §4.4: walk from the origin to the most recently added
    segment; pCount=0 segments contribute nothing; pCount copies of the AS go
    into an AS_SEQUENCE or (Confed_Segment=1) AS_CONFED_SEQUENCE; segments
    hold at most 255 ASes.  Returned in AS_PATH order (leftmost = most
    recent)."""
    segments: List[Tuple[str, List[int]]] = []  # built newest first
    for seg in reversed(secure_path):         # origin first
        if seg.pcount == 0:
            continue
        kind = "AS_CONFED_SEQUENCE" if seg.confed_segment else "AS_SEQUENCE"
        for _ in range(seg.pcount):
            if segments and segments[0][0] == kind and \
                    len(segments[0][1]) < 255:
                segments[0][1].insert(0, seg.asn)
            else:
                segments.insert(0, (kind, [seg.asn]))
    return segments


# ---------------------------------------------------------------------------
# RFC 8205 §4.2 Figure 8 / §5.2 Figure 9: the octets that were signed
# ---------------------------------------------------------------------------

def build_signature_input(target_as: int,
                          bgpsec_path: BgpsecPath,
                          block: SignatureBlock,
                          n: int,
                          afi: int, safi: int, prefix: Prefix) -> bytes:
    """Sequence of octets hashed for Signature Segment N (N = 1 is the
    origin's, N = K the most recently added), exactly as in Figure 8/9:

        Target AS Number                      4 octets
        Signature Segment   : N-1             SKI | Sig Length | Signature
        Secure_Path Segment : N               pCount | Flags | AS
          ...
        Signature Segment   : 1
        Secure_Path Segment : 2
        Secure_Path Segment : 1
        Algorithm Suite Identifier            1 octet
        AFI                                   2 octets
        SAFI                                  1 octet
        NLRI                                  length | prefix (trailing 0s)

    `target_as` is AS(N+1): the validating AS for N = K, otherwise the AS of
    Secure_Path Segment N+1 (§5.2 step 3)."""
    k = len(bgpsec_path.secure_path)
    assert 1 <= n <= k

    def sp(i: int) -> SecurePathSegment:     # 1-based, origin = 1
        return bgpsec_path.secure_path[k - i]

    def sig(i: int) -> SignatureSegment:
        return block.segments[k - i]

    out = bytearray(struct.pack(">I", target_as))
    for i in range(n, 1, -1):
        out += sig(i - 1).encode()
        out += sp(i).encode()
    out += sp(1).encode()
    out += struct.pack(">BHB", block.algorithm_suite, afi, safi)
    out += prefix.nlri_for_signature()
    return bytes(out)


# ---------------------------------------------------------------------------
# RFC 8209 / RFC 8608 §3.1: router keys and their SKI
# ---------------------------------------------------------------------------

def _der_read(buf: bytes, off: int) -> Tuple[int, int, int]:
    """Return (tag, content offset, content length) of the DER TLV at off."""
    if off + 2 > len(buf):
        raise ValueError("DER truncated")
    tag = buf[off]
    ln = buf[off + 1]
    off += 2
    if ln & 0x80:
        nb = ln & 0x7F
        if nb == 0 or nb > 4:
            raise ValueError("unsupported DER length")
        ln = int.from_bytes(buf[off:off + nb], "big")
        off += nb
    if off + ln > len(buf):
        raise ValueError("DER overrun")
    return tag, off, ln


def subject_public_key_bits(spki_der: bytes) -> bytes:
    """The contents of the subjectPublicKey BIT STRING of a DER
    SubjectPublicKeyInfo (RFC 5280 §4.1), without tag, length and the
    unused-bits octet."""
    tag, off, ln = _der_read(spki_der, 0)
    if tag != 0x30:
        raise ValueError("SubjectPublicKeyInfo is not a SEQUENCE")
    tag, aoff, aln = _der_read(spki_der, off)          # AlgorithmIdentifier
    if tag != 0x30:
        raise ValueError("algorithm is not a SEQUENCE")
    tag, boff, bln = _der_read(spki_der, aoff + aln)   # subjectPublicKey
    if tag != 0x03 or bln < 1:
        raise ValueError("subjectPublicKey is not a BIT STRING")
    if spki_der[boff] != 0:
        raise ValueError("subjectPublicKey has unused bits")
    return spki_der[boff + 1:boff + bln]


def compute_ski(spki_der: bytes) -> bytes:
    """Subject Key Identifier as used by RPKI router certificates: the
    160-bit SHA-1 hash of the value of the subjectPublicKey BIT STRING
    (excluding tag, length and unused-bits octet) -- RFC 6487 §4.8.2, which
    RFC 8209 §3 profiles; RFC 5280 §4.2.1.2 method (1).  Checked in
    --self-test against RFC 8608 Appendix A.2's keys and SKIs.  RFC 8205
    §6.2: an SKI longer than 20 octets is cut to the leftmost 20, a
    shorter one is right-padded with zeros (SHA-1 gives exactly 20)."""
    return hashlib.sha1(subject_public_key_bits(spki_der)).digest()


@dataclass
class RouterKey:
    """One valid (AS Number, Public Key, Subject Key Identifier) triple
    (RFC 8205 §5.1)."""
    asn: int
    ski: bytes
    spki_der: bytes
    public_key: Optional[object]  # cryptography public key, None if unusable


class RouterKeyStore:
    def __init__(self, keys: Iterable[RouterKey] = ()):
        self._by_asn_ski: Dict[Tuple[int, bytes], List[RouterKey]] = {}
        for k in keys:
            self.add(k)

    def add(self, key: RouterKey) -> None:
        self._by_asn_ski.setdefault((key.asn, key.ski), []).append(key)

    def lookup(self, asn: int, ski: bytes) -> List[RouterKey]:
        """RFC 8205 §5.2 step 2: triples whose AS matches the Secure_Path
        Segment's AS and whose SKI matches the Signature Segment's SKI."""
        return self._by_asn_ski.get((asn, ski), [])


def router_key_from_spki(asn: int, spki_der: bytes,
                         ski: Optional[bytes] = None) -> RouterKey:
    try:
        pub = serialization.load_der_public_key(spki_der)
    except (ValueError, TypeError):
        pub = None
    if ski is None:
        ski = compute_ski(spki_der)
    return RouterKey(asn, ski, spki_der, pub)


# ---------------------------------------------------------------------------
# RFC 8608 §2.2.1 / §4: algorithm suite 1 = ECDSA P-256 with SHA-256,
# signature = DER Ecdsa-Sig-Value (RFC 3279 §2.2.3)
# ---------------------------------------------------------------------------

def suite1_digest(signature_input: bytes) -> bytes:
    return hashlib.sha256(signature_input).digest()


def suite1_verify(public_key, digest: bytes, signature: bytes) -> bool:
    """ECDSA P-256 verification of a SHA-256 digest with `cryptography`.
    A key that is not a P-256 EC key cannot verify a suite 1 signature."""
    if not isinstance(public_key, ec.EllipticCurvePublicKey) or \
            not isinstance(public_key.curve, ec.SECP256R1):
        return False
    try:
        public_key.verify(signature, digest,
                          ec.ECDSA(Prehashed(hashes.SHA256())))
        return True
    except (InvalidSignature, ValueError):
        return False


SUITE_DIGEST = {ALG_SUITE_ECDSA_P256_SHA256: suite1_digest}
SUITE_VERIFY = {ALG_SUITE_ECDSA_P256_SHA256: suite1_verify}


# ---------------------------------------------------------------------------
# RFC 8205 §5.2: the validation algorithm
# ---------------------------------------------------------------------------

@dataclass
class ValidationContext:
    """What the receiving router knows about the session (RFC 8205 §5.2)."""
    target_as: int                   # local AS as announced in OPEN: AS(K+1)
    peer_as: Optional[int] = None    # check 2; None = not checked
    peer_in_confederation: bool = False      # checks 5 and 6
    peer_may_set_pcount_zero: bool = False   # check 7 (see §7.2)
    loop_check_includes_pcount_zero: bool = False  # the §5.2 "MAY" note
    bgpsec_path_type_codes: Tuple[int, ...] = (ATTR_BGPSEC_PATH,)


@dataclass
class BgpsecUpdate:
    update: UpdateMessage
    bgpsec_path: Optional[BgpsecPath]
    mp_reach: Optional[MpReachNlri]
    has_as_path: bool


def check_update_attributes(update: UpdateMessage, ctx: ValidationContext
                            ) -> BgpsecUpdate:
    """RFC 4271 §6.3 as amended by RFC 7606 §3-§7 (checks on AS_PATH replaced
    by checks on BGPsec_PATH, RFC 8205 §5.2), then RFC 8205 §5.2 checks 1-8.
    Raises Malformed on any error whose handling is treat-as-withdraw or
    session reset; "attribute discard" cases are dropped silently."""
    seen = set()
    kept: Dict[int, PathAttribute] = {}
    for a in update.path_attributes:
        t = a.type_code
        if t in (ATTR_MP_REACH_NLRI, ATTR_MP_UNREACH_NLRI) and t in seen:
            raise Malformed(f"attribute {t} appears more than once",
                            "RFC 7606 §3 g (session reset)")
        if t in seen:
            # RFC 7606 §3 g: "all the occurrences of the attribute other than
            # the first one SHALL be discarded"
            continue
        seen.add(t)
        is_bgpsec = t in ctx.bgpsec_path_type_codes
        key = ATTR_BGPSEC_PATH if is_bgpsec else t
        exp = EXPECTED_OT.get(key)
        if exp is None:
            if not a.optional:
                raise Malformed(f"unrecognized well-known attribute {t}",
                                "RFC 4271 §6.3 (session reset)")
            continue    # unrecognised optional: ignored (RFC 4271 §5)
        # RFC 7606 §3 c: only Optional and Transitive bits are checked.
        if (a.optional, a.transitive) != exp:
            if key in (ATTR_AGGREGATOR, ATTR_ATOMIC_AGGREGATE,
                       ATTR_AS4_AGGREGATOR, ATTR_AS4_PATH):
                continue                    # RFC 7606 §3 f / RFC 6793 §7
            ref = "RFC 7606 §3 c"
            if key in (ATTR_MP_REACH_NLRI, ATTR_MP_UNREACH_NLRI):
                ref = "RFC 7606 §5.3"
            raise Malformed(f"attribute {t}: Optional/Transitive flags "
                            f"0x{a.flags:02X} conflict with its type", ref)
        kept[key] = a

    # Per-attribute checks (RFC 7606 §7) -----------------------------------
    v = kept.get(ATTR_ORIGIN)
    if v is not None and (len(v.value) != 1 or v.value[0] > 2):
        raise Malformed("malformed ORIGIN", "RFC 7606 §7.1")
    v = kept.get(ATTR_NEXT_HOP)
    if v is not None and len(v.value) != 4:
        raise Malformed("malformed NEXT_HOP", "RFC 7606 §7.3")
    v = kept.get(ATTR_MULTI_EXIT_DISC)
    if v is not None and len(v.value) != 4:
        raise Malformed("malformed MULTI_EXIT_DISC", "RFC 7606 §7.4")
    # LOCAL_PREF / ORIGINATOR_ID / CLUSTER_LIST from an external neighbour:
    # attribute discard (RFC 7606 §7.5, §7.9, §7.10); ATOMIC_AGGREGATE and
    # AGGREGATOR: attribute discard (§7.6, §7.7); AS4_PATH / AS4_AGGREGATOR
    # between NEW speakers: discarded (RFC 6793 §3).
    for t, unit, ref in ((ATTR_COMMUNITIES, 4, "RFC 7606 §7.8"),
                         (ATTR_EXTENDED_COMMUNITIES, 8, "RFC 7606 §7.14"),
                         (ATTR_IPV6_EXT_COMMUNITIES, 20, "RFC 7606 §7.15")):
        for a in update.path_attributes:
            if a.type_code == t:
                if len(a.value) == 0 or len(a.value) % unit:
                    raise Malformed(f"attribute {t} length {len(a.value)} is "
                                    f"not a non-zero multiple of {unit}", ref)
                break
    has_as_path = ATTR_AS_PATH in kept
    if has_as_path:
        parse_as_path(kept[ATTR_AS_PATH].value)

    mp_reach = None
    if ATTR_MP_REACH_NLRI in kept:
        mp_reach = parse_mp_reach_nlri(kept[ATTR_MP_REACH_NLRI].value)
    if ATTR_MP_UNREACH_NLRI in kept:
        parse_mp_unreach_nlri(kept[ATTR_MP_UNREACH_NLRI].value)

    bgpsec_attr = kept.get(ATTR_BGPSEC_PATH)
    bgpsec_path = None
    if bgpsec_attr is not None:
        if len(bgpsec_attr.value) == 0:
            raise Malformed("zero-length BGPsec_PATH", "RFC 7606 §4; "
                            "RFC 8205 §5.2 check 1")
        # §5.2 checks 1 and 3
        bgpsec_path = parse_bgpsec_path(bgpsec_attr.value)

    reachable = bool(update.nlri) or (mp_reach is not None and mp_reach.nlri)
    if reachable and ATTR_ORIGIN not in kept:
        raise Malformed("missing well-known mandatory ORIGIN",
                        "RFC 4271 §6.3; RFC 7606 §3 d")
    if reachable and bgpsec_path is None and not has_as_path:
        raise Malformed("neither AS_PATH nor BGPsec_PATH present",
                        "RFC 4271 §6.3; RFC 7606 §3 d; RFC 8205 §5.2")
    if update.nlri and ATTR_NEXT_HOP not in kept:
        raise Malformed("NLRI field used without NEXT_HOP",
                        "RFC 4271 §6.3; RFC 7606 §3 d")

    if bgpsec_path is not None:
        # RFC 8205 §4.1: "A BGPsec UPDATE message MUST advertise a route to
        # only a single prefix ... MUST use the MP_REACH_NLRI attribute".
        if update.nlri:
            raise Malformed("BGPsec UPDATE carries prefixes in the NLRI "
                            "field instead of MP_REACH_NLRI",
                            "RFC 8205 §4.1; §5.2 check 1")
        if mp_reach is None:
            raise Malformed("BGPsec UPDATE without MP_REACH_NLRI",
                            "RFC 8205 §4.1; §5.2 check 1")
        if len(mp_reach.nlri) != 1:
            raise Malformed(f"BGPsec UPDATE advertises {len(mp_reach.nlri)} "
                            "prefixes (must be exactly one)",
                            "RFC 8205 §4.1; §5.2 check 1")
        check_bgpsec_path_rules(bgpsec_path, has_as_path, ctx)
    return BgpsecUpdate(update, bgpsec_path, mp_reach, has_as_path)


def parse_as_path(value: bytes) -> None:
    """RFC 4271 §4.3 AS_PATH with 4-octet AS numbers (RFC 6793; BGPsec
    peers support 4-byte ASNs, RFC 8205 §2.2); malformation per RFC 7606
    §7.2."""
    off = 0
    while off < len(value):
        if len(value) - off < 2:
            raise Malformed("AS_PATH segment header truncated",
                            "RFC 7606 §7.2")
        stype, slen = value[off], value[off + 1]
        if stype not in (1, 2, 3, 4) or slen == 0:
            raise Malformed("bad AS_PATH segment", "RFC 7606 §7.2")
        off += 2 + 4 * slen
        if off > len(value):
            raise Malformed("AS_PATH segment overrun", "RFC 7606 §7.2")


def check_bgpsec_path_rules(path: BgpsecPath, has_as_path: bool,
                            ctx: ValidationContext) -> None:
    """RFC 8205 §5.2 checks 2 and 4-8 (1 and 3 are done while parsing)."""
    newest = path.secure_path[0]
    # check 2: most recent segment's AS = peer AS from OPEN
    if ctx.peer_as is not None and newest.asn != ctx.peer_as:
        raise Malformed(f"most recent Secure_Path Segment AS {newest.asn} != "
                        f"peer AS {ctx.peer_as}", "RFC 8205 §5.2 check 2")
    # check 4: no AS_PATH
    if has_as_path:
        raise Malformed("UPDATE contains both AS_PATH and BGPsec_PATH",
                        "RFC 8205 §3, §5.2 check 4")
    # check 5: peer outside our confederation: no Confed_Segment flag at all
    if not ctx.peer_in_confederation:
        for i, seg in enumerate(path.secure_path):
            if seg.confed_segment:
                raise Malformed(f"Secure_Path Segment {i} (AS {seg.asn}) has "
                                "the Confed_Segment flag set, from a peer "
                                "outside the confederation",
                                "RFC 8205 §5.2 check 5")
    # check 6: peer inside: its segment must carry the flag
    elif not newest.confed_segment:
        raise Malformed("confederation peer's Secure_Path Segment lacks the "
                        "Confed_Segment flag", "RFC 8205 §5.2 check 6")
    # check 7: pCount of the most recent segment
    if newest.pcount == 0 and not ctx.peer_may_set_pcount_zero:
        raise Malformed("pCount=0 in the most recently added Secure_Path "
                        "Segment from a peer not expected to set it",
                        "RFC 8205 §5.2 check 7, §7.2")
    # check 8: AS loop, on the AS_PATH equivalent (§4.4)
    in_path = {asn for _, seq in reconstruct_as_path(path.secure_path)
               for asn in seq}
    if ctx.loop_check_includes_pcount_zero:
        in_path |= {s.asn for s in path.secure_path}
    if ctx.target_as in in_path:
        raise Malformed(f"local AS {ctx.target_as} is present in the AS path "
                        "(loop)", "RFC 8205 §5.2 check 8")


def validate_signature_block(bu: BgpsecUpdate, block: SignatureBlock,
                             keys: RouterKeyStore, ctx: ValidationContext
                             ) -> Tuple[bool, str]:
    """RFC 8205 §5.2 steps 1-4 for one Signature_Block of a supported suite,
    from the most recently added Signature Segment (N = K) down to the
    origin's (N = 1).  Returns (valid, explanation)."""
    path = bu.bgpsec_path
    k = len(path.secure_path)
    mp = bu.mp_reach
    prefix = mp.nlri[0]
    digest_fn = SUITE_DIGEST[block.algorithm_suite]
    verify_fn = SUITE_VERIFY[block.algorithm_suite]
    for n in range(k, 0, -1):
        sp_seg = path.secure_path[k - n]
        sig_seg = block.segments[k - n]
        # Step 2: locate the public key
        candidates = keys.lookup(sp_seg.asn, sig_seg.ski)
        if not candidates:
            return False, (f"step 2: no router key for AS {sp_seg.asn} with "
                           f"SKI {sig_seg.ski.hex().upper()} "
                           f"(Signature Segment N={n} of {k})")
        # Step 3: the digest over Figure 9
        target = ctx.target_as if n == k else path.secure_path[k - n - 1].asn
        data = build_signature_input(target, path, block, n, mp.afi,
                                     mp.safi, prefix)
        digest = digest_fn(data)
        # Step 4: verify
        if not any(c.public_key is not None and
                   verify_fn(c.public_key, digest, sig_seg.signature)
                   for c in candidates):
            return False, (f"step 4: signature of AS {sp_seg.asn} "
                           f"(Signature Segment N={n} of {k}, target AS "
                           f"{target}) does not verify")
    return True, f"all {k} signatures verify"


def validate_bgpsec_update(message: bytes, keys: RouterKeyStore,
                           ctx: ValidationContext) -> ValidationResult:
    """Validate one BGP UPDATE (bytes, marker included) as the router of AS
    ctx.target_as would (RFC 8205 §5.2)."""
    try:
        update = parse_update_message(message)
        bu = check_update_attributes(update, ctx)
    except Malformed as e:
        return ValidationResult(MALFORMED, str(e))

    if bu.bgpsec_path is None:
        # Not a BGPsec UPDATE: nothing is signed.
        if bu.has_as_path:
            return ValidationResult(NOT_VALID, "no BGPsec_PATH: unsigned "
                                    "UPDATE (AS_PATH), never 'Valid'")
        return ValidationResult(NOT_VALID, "no BGPsec_PATH and no route "
                                "advertised: nothing to validate")

    results = []
    any_supported = False
    for i, block in enumerate(bu.bgpsec_path.signature_blocks, 1):
        suite = block.algorithm_suite
        if suite not in SUPPORTED_ALG_SUITES:
            # §5.2: "not considered in the validation process"
            results.append(f"block {i} (suite 0x{suite:02X}): unsupported, "
                           "ignored")
            continue
        any_supported = True
        ok, why = validate_signature_block(bu, block, keys, ctx)
        results.append(f"block {i} (suite 0x{suite:02X}): "
                       f"{'Valid' if ok else 'Not Valid'} ({why})")
        if ok:
            # "If at least one Signature_Block is marked as 'Valid', then the
            # validation algorithm terminates"
            return ValidationResult(VALID, "; ".join(results), results)
    if not any_supported:
        return ValidationResult(
            NOT_VALID, "no Signature_Block with a supported algorithm suite "
            "(RFC 8205 §5.2: strip the blocks and treat as an unsigned "
            "UPDATE): " + "; ".join(results), results)
    return ValidationResult(NOT_VALID, "; ".join(results), results)


# ---------------------------------------------------------------------------
# Textbook ECDSA P-256 signing with a given k (SEC 1 v2 §4.1.3) -- used only
# to reproduce RFC 8608 Appendix A's signatures and to build test vectors.
# ---------------------------------------------------------------------------

P256_P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
P256_A = P256_P - 3
P256_B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
P256_G = (0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
          0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5)


def _ec_add(p1, p2):
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    x1, y1 = p1
    x2, y2 = p2
    if x1 == x2 and (y1 + y2) % P256_P == 0:
        return None
    if p1 == p2:
        lam = (3 * x1 * x1 + P256_A) * pow(2 * y1, -1, P256_P) % P256_P
    else:
        lam = (y2 - y1) * pow(x2 - x1, -1, P256_P) % P256_P
    x3 = (lam * lam - x1 - x2) % P256_P
    return x3, (lam * (x1 - x3) - y1) % P256_P


def ec_mul(k: int, point=P256_G):
    result = None
    addend = point
    while k:
        if k & 1:
            result = _ec_add(result, addend)
        addend = _ec_add(addend, addend)
        k >>= 1
    return result


def ecdsa_p256_sign_with_k(private_key: int, digest: bytes, k: int
                           ) -> Tuple[int, int]:
    """SEC 1 v2 §4.1.3: e = leftmost 256 bits of the hash; R = kG;
    r = x_R mod n; s = k^-1 (e + r d) mod n."""
    e = int.from_bytes(digest[:32], "big")
    rx, _ = ec_mul(k)
    r = rx % P256_N
    s = pow(k, -1, P256_N) * (e + r * private_key) % P256_N
    if r == 0 or s == 0:
        raise ValueError("bad k")
    return r, s


def ecdsa_p256_sign_der(private_key: int, digest: bytes, k: int) -> bytes:
    r, s = ecdsa_p256_sign_with_k(private_key, digest, k)
    return encode_dss_signature(r, s)


def p256_spki_from_private(d: int) -> bytes:
    x, y = ec_mul(d)
    pub = ec.EllipticCurvePublicNumbers(x, y, ec.SECP256R1()).public_key()
    return pub.public_bytes(serialization.Encoding.DER,
                            serialization.PublicFormat.SubjectPublicKeyInfo)


# ---------------------------------------------------------------------------
# RFC 8608 Appendix A data (transcribed from rfc8608.txt)
# ---------------------------------------------------------------------------

def _h(s: str) -> bytes:
    return bytes.fromhex("".join(s.split()))


RFC8608_K = int("A6E3C57DD01ABE90086538398355DD4C"
                "3B17AA873382B0F24D6129493D8AAD60", 16)

RFC8608_KEYS = {
    64496: dict(
        ski=_h("AB4D910F55CAE71A215EF3CAFE3ACC45B5EEC154"),
        x=int("D8AA4DFBE2478F86E88A7451BF075565"
              "709C575AC1C136D081C540254CA440B9", 16),
        ux=int("7391BABB92A0CB3BE10E59B19EBFFB21"
               "4E04A91E0CBA1B139A7D38D90F77E55A", 16),
        uy=int("A05B8E695678E0FA16904B55D9D4F5C0"
               "DFC58895EE50BC4F75D205A25BD36FF5", 16),
        cert="""
MIIBiDCCAS+gAwIBAgIEAk3WfDAKBggqhkjOPQQDAjAaMRgwFgYDVQQDDA9ST1VU
RVItMDAwMEZCRjAwHhcNMTcwMTAxMDUwMDAwWhcNMTgwNzAxMDUwMDAwWjAaMRgw
FgYDVQQDDA9ST1VURVItMDAwMEZCRjAwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC
AARzkbq7kqDLO+EOWbGev/shTgSpHgy6GxOafTjZD3flWqBbjmlWeOD6FpBLVdnU
9cDfxYiV7lC8T3XSBaJb02/1o2MwYTALBgNVHQ8EBAMCB4AwHQYDVR0OBBYEFKtN
kQ9VyucaIV7zyv46zEW17sFUMBMGA1UdJQQMMAoGCCsGAQUFBwMeMB4GCCsGAQUF
BwEIAQH/BA8wDaAHMAUCAwD78KECBQAwCgYIKoZIzj0EAwIDRwAwRAIgB7e0al+k
8cxoNjkDpIPsfIAC0vYInUay7Cp75pKzb7ECIACRBUqh9bAYnSck6LQi/dEc8D2x
OCRdZCk1KI3uDDgp"""),
    65536: dict(
        ski=_h("47F23BF1AB2F8A9D26864EBBD8DF2711C74406EC"),
        x=int("6CB2E931B112F24554BCDCAAFD9553A9"
              "519A9AF33C023B60846A21FC95583172", 16),
        ux=int("28FC5FE9AFCF5F4CAB3F5F85CB212FC1"
               "E9D0E0DBEAEE425BD2F0D3175AA0E989", 16),
        uy=int("EA9B603E38F35FB329DF495641F2BA04"
               "0F1C3AC6138307F257CBA6B8B588F41F", 16),
        cert="""
MIIBijCCATCgAwIBAgIFAN+lLEQwCgYIKoZIzj0EAwIwGjEYMBYGA1UEAwwPUk9V
VEVSLTAwMDEwMDAwMB4XDTE3MDEwMTA1MDAwMFoXDTE4MDcwMTA1MDAwMFowGjEY
MBYGA1UEAwwPUk9VVEVSLTAwMDEwMDAwMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcD
QgAEKPxf6a/PX0yrP1+FyyEvwenQ4Nvq7kJb0vDTF1qg6Ynqm2A+OPNfsynfSVZB
8roEDxw6xhODB/JXy6a4tYj0H6NjMGEwCwYDVR0PBAQDAgeAMB0GA1UdDgQWBBRH
8jvxqy+KnSaGTrvY3ycRx0QG7DATBgNVHSUEDDAKBggrBgEFBQcDHjAeBggrBgEF
BQcBCAEB/wQPMA2gBzAFAgMBAAChAgUAMAoGCCqGSM49BAMCA0gAMEUCIQCM2fgS
loiCdAOhgoIYxTEA7jU46Pqucgn+mGcBeGl3jAIgX+46vxBmvijTsxaha9tmIZnt
puStZDy6v0T7y7dQkXQ="""),
}

# A.3: "BGPsec IPv4 UPDATE from AS(65536) to AS(65537)" (TCP-DUMP form)
RFC8608_A3_UPDATE = _h("""
FF FF FF FF FF FF FF FF  FF FF FF FF FF FF FF FF
01 03 02 00 00 00 EC 40  01 01 02 80 04 04 00 00
00 00 80 0E 0D 00 01 01  04 C6 33 64 64 00 18 C0
00 02 90 1E 00 CD 00 0E  01 00 00 01 00 00 01 00
00 00 FB F0 00 BF 01 47  F2 3B F1 AB 2F 8A 9D 26
86 4E BB D8 DF 27 11 C7  44 06 EC 00 48 30 46 02
21 00 EF D4 8B 2A AC B6  A8 FD 11 40 DD 9C D4 5E
81 D6 9D 2C 87 7B 56 AA  F9 91 C3 4D 0E A8 4E AF
37 16 02 21 00 90 F2 C1  29 AB B2 F3 9B 6A 07 96
3B D5 55 A8 7A B2 B7 33  3B 7B 91 F1 66 8F D8 61
8C 83 FA C3 F1 AB 4D 91  0F 55 CA E7 1A 21 5E F3
CA FE 3A CC 45 B5 EE C1  54 00 48 30 46 02 21 00
EF D4 8B 2A AC B6 A8 FD  11 40 DD 9C D4 5E 81 D6
9D 2C 87 7B 56 AA F9 91  C3 4D 0E A8 4E AF 37 16
02 21 00 8E 21 F6 0E 44  C6 06 6C 8B 8A 95 A3 C0
9D 3A D4 37 95 85 A2 D7  28 EE AD 07 A1 7E D7 AA
05 5E CA""")

RFC8608_A3_SIGNATURES = [
    # (signer, target, digest, signature)
    (64496, 65536,
     _h("21 33 E5 CA A0 26 BE 07   3D 9C 1B 4E FE B9 B9 77"
        "9F 20 F8 F5 DE 29 FA 98   40 00 9F 60 47 D0 81 54"),
     _h("30 46 02 21 00 EF D4 8B   2A AC B6 A8 FD 11 40 DD"
        "9C D4 5E 81 D6 9D 2C 87   7B 56 AA F9 91 C3 4D 0E"
        "A8 4E AF 37 16 02 21 00   8E 21 F6 0E 44 C6 06 6C"
        "8B 8A 95 A3 C0 9D 3A D4   37 95 85 A2 D7 28 EE AD"
        "07 A1 7E D7 AA 05 5E CA")),
    (65536, 65537,
     _h("01 4F 24 DA E2 A5 21 90   B0 80 5C 60 5D B0 63 54"
        "22 3E 93 BA 41 1D 3D 82   A3 EC 26 36 52 0C 5F 84"),
     _h("30 46 02 21 00 EF D4 8B   2A AC B6 A8 FD 11 40 DD"
        "9C D4 5E 81 D6 9D 2C 87   7B 56 AA F9 91 C3 4D 0E"
        "A8 4E AF 37 16 02 21 00   90 F2 C1 29 AB B2 F3 9B"
        "6A 07 96 3B D5 55 A8 7A   B2 B7 33 3B 7B 91 F1 66"
        "8F D8 61 8C 83 FA C3 F1")),
]

# A.4: "BGPsec IPv6 UPDATE from AS(65536) to AS(65537)"
RFC8608_A4_UPDATE = _h("""
FF FF FF FF FF FF FF FF  FF FF FF FF FF FF FF FF
01 10 02 00 00 00 F9 40  01 01 02 80 04 04 00 00
00 00 80 0E 1A 00 02 01  10 FD 00 00 00 00 00 00
00 00 00 00 00 C6 33 64  64 00 20 20 01 0D B8 90
1E 00 CD 00 0E 01 00 00  01 00 00 01 00 00 00 FB
F0 00 BF 01 47 F2 3B F1  AB 2F 8A 9D 26 86 4E BB
D8 DF 27 11 C7 44 06 EC  00 48 30 46 02 21 00 EF
D4 8B 2A AC B6 A8 FD 11  40 DD 9C D4 5E 81 D6 9D
2C 87 7B 56 AA F9 91 C3  4D 0E A8 4E AF 37 16 02
21 00 D1 B9 4F 62 51 04  6D 21 36 A1 05 B0 F4 72
7C C5 BC D6 74 D9 7D 28  E6 1B 8F 43 BD DE 91 C3
06 26 AB 4D 91 0F 55 CA  E7 1A 21 5E F3 CA FE 3A
CC 45 B5 EE C1 54 00 48  30 46 02 21 00 EF D4 8B
2A AC B6 A8 FD 11 40 DD  9C D4 5E 81 D6 9D 2C 87
7B 56 AA F9 91 C3 4D 0E  A8 4E AF 37 16 02 21 00
E2 A0 2C 68 FE 53 CB 96  93 4C 78 1F 5A 14 A2 97
19 79 20 0C 91 56 ED F8  55 05 8E 80 53 F4 AC D3""")

RFC8608_A4_SIGNATURES = [
    (64496, 65536,
     _h("8A 0C D3 E9 8E 55 10 45   82 1D 80 46 01 D6 55 FC"
        "52 11 89 DF 4D B0 28 7D   84 AC FC 77 55 6D 06 C7"),
     _h("30 46 02 21 00 EF D4 8B   2A AC B6 A8 FD 11 40 DD"
        "9C D4 5E 81 D6 9D 2C 87   7B 56 AA F9 91 C3 4D 0E"
        "A8 4E AF 37 16 02 21 00   E2 A0 2C 68 FE 53 CB 96"
        "93 4C 78 1F 5A 14 A2 97   19 79 20 0C 91 56 ED F8"
        "55 05 8E 80 53 F4 AC D3")),
    (65536, 65537,
     _h("44 49 EC 70 8D EC 5C 85   00 C2 17 8C 72 FE 4C 79"
        "FF A9 3C 95 31 61 01 2D   EE 7E EE 05 46 AF 5F D0"),
     _h("30 46 02 21 00 EF D4 8B   2A AC B6 A8 FD 11 40 DD"
        "9C D4 5E 81 D6 9D 2C 87   7B 56 AA F9 91 C3 4D 0E"
        "A8 4E AF 37 16 02 21 00   D1 B9 4F 62 51 04 6D 21"
        "36 A1 05 B0 F4 72 7C C5   BC D6 74 D9 7D 28 E6 1B"
        "8F 43 BD DE 91 C3 06 26")),
]

RFC8608_TARGET_AS = 65537


def with_bgpsec_type_code(message: bytes, old: int, new: int) -> bytes:
    """Return `message` with the type code of attribute `old` changed to
    `new` (found by walking the attributes, not by byte search).  The type
    code is not covered by any signature (Figure 8)."""
    body = message[BGP_HEADER_LEN:]
    wlen = _u16(body, 0)
    alen = _u16(body, 2 + wlen)
    base = BGP_HEADER_LEN + 4 + wlen
    off = 0
    out = bytearray(message)
    while off < alen:
        flags = message[base + off]
        tcode = message[base + off + 1]
        if flags & FLAG_EXTENDED_LENGTH:
            ln, hdr = _u16(message, base + off + 2), 4
        else:
            ln, hdr = message[base + off + 2], 3
        if tcode == old:
            out[base + off + 1] = new
            return bytes(out)
        off += hdr + ln
    raise ValueError("attribute not found")


def rfc8608_key_store() -> RouterKeyStore:
    store = RouterKeyStore()
    for asn, kd in RFC8608_KEYS.items():
        pub = ec.EllipticCurvePublicNumbers(kd["ux"], kd["uy"],
                                            ec.SECP256R1()).public_key()
        spki = pub.public_bytes(serialization.Encoding.DER,
                                serialization.PublicFormat.SubjectPublicKeyInfo)
        store.add(router_key_from_spki(asn, spki, kd["ski"]))
    return store


# ---------------------------------------------------------------------------
# --self-test: RFC 8608 Appendix A
# ---------------------------------------------------------------------------

def self_test() -> int:
    checks: List[Tuple[str, bool, str]] = []

    def check(name: str, cond: bool, detail: str = "") -> None:
        checks.append((name, bool(cond), detail))

    from cryptography import x509

    # A.2 keys: public = d*G, SKI = SHA-1(subjectPublicKey), certificates
    for asn, kd in RFC8608_KEYS.items():
        check(f"A.2 AS{asn}: public key (Ux,Uy) = x*G",
              ec_mul(kd["x"]) == (kd["ux"], kd["uy"]))
        spki = p256_spki_from_private(kd["x"])
        ski = compute_ski(spki)
        check(f"A.2 AS{asn}: SHA-1 of subjectPublicKey BIT STRING = RFC SKI "
              f"{kd['ski'].hex().upper()}", ski == kd["ski"],
              f"computed {ski.hex().upper()}")
        cert = x509.load_der_x509_certificate(
            base64.b64decode("".join(kd["cert"].split())))
        cert_spki = cert.public_key().public_bytes(
            serialization.Encoding.DER,
            serialization.PublicFormat.SubjectPublicKeyInfo)
        ext = cert.extensions.get_extension_for_class(
            x509.SubjectKeyIdentifier).value.digest
        check(f"A.2 AS{asn}: certificate's public key = (Ux,Uy)",
              cert_spki == spki)
        check(f"A.2 AS{asn}: certificate's SKI extension = computed SKI",
              ext == ski, f"extension {ext.hex().upper()}")
        # cryptography's own SKI derivation (RFC 5280 method 1) agrees
        lib_ski = x509.SubjectKeyIdentifier.from_public_key(
            cert.public_key()).digest
        check(f"A.2 AS{asn}: cryptography's SubjectKeyIdentifier."
              "from_public_key agrees", lib_ski == ski)

    keys = rfc8608_key_store()
    for label, msg, sigs in (("A.3 IPv4", RFC8608_A3_UPDATE,
                              RFC8608_A3_SIGNATURES),
                             ("A.4 IPv6", RFC8608_A4_UPDATE,
                              RFC8608_A4_SIGNATURES)):
        # 1. the bytes exactly as printed: BGPsec_PATH carries type code 30
        legacy_ctx = ValidationContext(
            RFC8608_TARGET_AS,
            bgpsec_path_type_codes=(ATTR_BGPSEC_PATH,
                                    LEGACY_BGPSEC_PATH_TYPE))
        res = validate_bgpsec_update(msg, keys, legacy_ctx)
        check(f"{label}: UPDATE as printed (type code 30 accepted as "
              "BGPsec_PATH) is Valid at AS 65537", res.verdict == VALID,
              str(res))
        # 2. with the IANA type code 33 and default settings
        msg33 = with_bgpsec_type_code(msg, LEGACY_BGPSEC_PATH_TYPE,
                                      ATTR_BGPSEC_PATH)
        res = validate_bgpsec_update(msg33, keys,
                                     ValidationContext(RFC8608_TARGET_AS))
        check(f"{label}: UPDATE with type code 33 is Valid at AS 65537",
              res.verdict == VALID, str(res))
        # 3. as printed, under the strict (type 33 only) reading
        res = validate_bgpsec_update(msg, keys,
                                     ValidationContext(RFC8608_TARGET_AS))
        check(f"{label}: UPDATE as printed is malformed when only type 33 "
              "is BGPsec_PATH (no AS_PATH, no BGPsec_PATH)",
              res.verdict == MALFORMED, str(res))
        # Structure against the human-readable dump
        upd = parse_update_message(msg33)
        bu = check_update_attributes(upd, ValidationContext(65537))
        path = bu.bgpsec_path
        check(f"{label}: decoded Secure_Path = [(1,0,65536),(1,0,64496)], "
              "one block, suite 1, SKIs as printed",
              [(s.pcount, s.flags, s.asn) for s in path.secure_path] ==
              [(1, 0, 65536), (1, 0, 64496)] and
              len(path.signature_blocks) == 1 and
              path.signature_blocks[0].algorithm_suite == 1 and
              [s.ski for s in path.signature_blocks[0].segments] ==
              [RFC8608_KEYS[65536]["ski"], RFC8608_KEYS[64496]["ski"]])
        # lengths printed in the RFC's human-readable dump
        want = {"A.3 IPv4": (259, 236, 13, 205), "A.4 IPv6": (272, 249, 26,
                                                             205)}[label]
        mp_attr = [a for a in upd.path_attributes
                   if a.type_code == ATTR_MP_REACH_NLRI][0]
        bp_attr = [a for a in upd.path_attributes
                   if a.type_code == ATTR_BGPSEC_PATH][0]
        check(f"{label}: lengths match the dump (message {want[0]}, "
              f"attributes {want[1]}, MP_REACH_NLRI {want[2]}, BGPsec_PATH "
              f"{want[3]}, Secure_Path 14, Signature_Block 191, signatures "
              "72)", (upd.length, upd.total_path_attribute_length,
                      len(mp_attr.value), len(bp_attr.value)) == want and
              _u16(bp_attr.value, 0) == 14 and _u16(bp_attr.value, 14) == 191
              and all(len(s.signature) == 72
                      for s in path.signature_blocks[0].segments))
        block = path.signature_blocks[0]
        k = len(path.secure_path)
        for signer, target, digest, signature in sigs:
            n = k - [s.asn for s in path.secure_path].index(signer)
            data = build_signature_input(target, path, block, n,
                                         bu.mp_reach.afi, bu.mp_reach.safi,
                                         bu.mp_reach.nlri[0])
            got = suite1_digest(data)
            check(f"{label}: digest AS{signer}->AS{target} = RFC's "
                  f"{digest.hex().upper()[:16]}...", got == digest,
                  f"got {got.hex().upper()}")
            check(f"{label}: signature AS{signer}->AS{target} in the UPDATE "
                  "= signature printed", block.segments[k - n].signature ==
                  signature)
            der = ecdsa_p256_sign_der(RFC8608_KEYS[signer]["x"], digest,
                                      RFC8608_K)
            check(f"{label}: re-signing with the RFC's private key and k "
                  f"gives the RFC's signature AS{signer}->AS{target}",
                  der == signature, f"got {der.hex().upper()}")
            pub = keys.lookup(signer, RFC8608_KEYS[signer]["ski"])[0]
            check(f"{label}: cryptography verifies the re-created signature "
                  f"AS{signer}->AS{target}",
                  suite1_verify(pub.public_key, digest, der))
        # a wrong target AS must not verify
        res = validate_bgpsec_update(msg33, keys, ValidationContext(65538))
        check(f"{label}: same UPDATE checked by AS 65538 is Not Valid",
              res.verdict == NOT_VALID, str(res))

    # A.2: all signatures share k, hence r = x(kG) mod n
    r_expected = int("EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0E"
                     "A84EAF3716", 16)
    check("A.2: r of every example signature = x(k*G) mod n",
          ec_mul(RFC8608_K)[0] % P256_N == r_expected and
          all(decode_dss_signature(s[3])[0] == r_expected
              for s in RFC8608_A3_SIGNATURES + RFC8608_A4_SIGNATURES))

    failed = 0
    for i, (name, ok, detail) in enumerate(checks):
        if ok:
            print(f"ok {i}: {name}")
        else:
            failed += 1
            print(f"FAIL {i}: {name}" + (f" -- {detail}" if detail else ""))
    print(f"{len(checks) - failed} passed, {failed} failed")
    return 0 if failed == 0 else 1


# ---------------------------------------------------------------------------
# VECTORS.json
# ---------------------------------------------------------------------------

class VectorFileError(Exception):
    pass


def _hexbytes(s, what: str) -> bytes:
    if not isinstance(s, str):
        raise VectorFileError(f"{what} is not a string")
    try:
        return bytes.fromhex("".join(s.split()))
    except ValueError as e:
        raise VectorFileError(f"{what} is not hex: {e}") from None


def _asn(v, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or \
            not 0 <= v <= 0xFFFFFFFF:
        raise VectorFileError(f"{what} is not a 32-bit AS number")
    return v


def load_vectors(path: str):
    try:
        with open(path, "rb") as f:
            doc = json.loads(f.read().decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise VectorFileError(f"cannot read {path}: {e}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("keys"), list) \
            or not isinstance(doc.get("updates"), list):
        raise VectorFileError("top level must be an object with lists "
                              "'keys' and 'updates'")
    store = RouterKeyStore()
    for i, k in enumerate(doc["keys"]):
        if not isinstance(k, dict):
            raise VectorFileError(f"keys[{i}] is not an object")
        asn = _asn(k.get("asn"), f"keys[{i}].asn")
        ski = _hexbytes(k.get("ski"), f"keys[{i}].ski")
        if len(ski) != SKI_LEN:
            raise VectorFileError(f"keys[{i}].ski is not 20 octets")
        if not isinstance(k.get("pubkey"), str):
            raise VectorFileError(f"keys[{i}].pubkey is not a string")
        try:
            spki = base64.b64decode(k["pubkey"], validate=True)
        except (binascii.Error, ValueError) as e:
            raise VectorFileError(f"keys[{i}].pubkey is not base64: {e}") \
                from None
        key = router_key_from_spki(asn, spki, ski)
        if key.public_key is None:
            print(f"warning: keys[{i}] (AS {asn}): pubkey is not a DER "
                  "SubjectPublicKeyInfo; it can verify nothing",
                  file=sys.stderr)
        else:
            try:
                if compute_ski(spki) != ski:
                    print(f"warning: keys[{i}] (AS {asn}): ski "
                          f"{ski.hex().upper()} != SHA-1 of the public key "
                          f"{compute_ski(spki).hex().upper()}; the given ski "
                          "is used for look-up", file=sys.stderr)
            except ValueError:
                pass
        store.add(key)
    items = []
    for i, u in enumerate(doc["updates"]):
        if not isinstance(u, dict):
            raise VectorFileError(f"updates[{i}] is not an object")
        msg = _hexbytes(u.get("update"), f"updates[{i}].update")
        target = _asn(u.get("target_as"), f"updates[{i}].target_as")
        exp = u.get("expected")
        if exp not in VERDICTS:
            raise VectorFileError(f"updates[{i}].expected must be one of "
                                  f"{VERDICTS}")
        comment = u.get("comment", "")
        if not isinstance(comment, str):
            comment = json.dumps(comment)
        # optional extension (not in the shared shape): the peer's AS from
        # its OPEN, enabling RFC 8205 §5.2 check 2
        peer = u.get("peer_as")
        if peer is not None:
            peer = _asn(peer, f"updates[{i}].peer_as")
        items.append((msg, target, exp, comment, peer))
    return store, items


def run_vectors(path: str) -> int:
    try:
        store, items = load_vectors(path)
    except VectorFileError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    failed = 0
    for i, (msg, target, exp, comment, peer) in enumerate(items):
        res = validate_bgpsec_update(msg, store,
                                     ValidationContext(target, peer_as=peer))
        note = f" [{comment}]" if comment else ""
        if res.verdict == exp:
            print(f"ok {i}: {res.verdict} -- {res.reason}{note}")
        else:
            failed += 1
            print(f"FAIL {i}: expected {exp}, got {res.verdict} -- "
                  f"{res.reason}{note}")
    print(f"{len(items) - failed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def main(argv: Sequence[str]) -> int:
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) == 2 and not argv[1].startswith("--"):
        return run_vectors(argv[1])
    print("usage: bgpsec_reference.py VECTORS.json | --self-test",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
