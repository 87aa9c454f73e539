#!/usr/bin/env python3
"""Independent reference verifier for hopsig's Packet Level Authentication (PLA).

Written from docs/spec/pla.md (curves, ECDSA, implicit certificates, "PLA header",
"PLA in IPv6 packets") and docs/spec/keys.md (the key-file armor) alone, plus public
standards: SEC 1 v2 (point encodings, ECDSA), FIPS 186-4 App. D (K-163, K-233, K-283),
RFC 8017 (MGF1), RFC 8200 (IPv6), RFC 5952 (IPv6 text form), the libpcap file format.
No hopsig code was read. Standard library only; nothing here is constant-time, and
the secret-key code (signing, the TTP) exists only for the self-test.

Usage:
    pla_reference.py verify FILE.pcap --ttp-pub TTP.pub [--ttp-id 1] [--json]
                     [--max-age 60] [--skew 2] [--now UNIX_SECONDS]
    pla_reference.py selftest
    pla_reference.py demo-pcap DIR     write DIR/ttp.pub, DIR/demo.pcap and
                                       DIR/expected.json (verdicts this script expects)

verify prints one verdict per frame with the spec's reason names (not_ipv6, unsigned,
jumbogram, malformed, other_curve, unknown_ttp, stale, future, replay, bad_signature, accepted)
and a count per reason; --json prints {"verdicts": [...], "counts": {...}} instead.
Exit 0, or 2 when the capture or the key file cannot be read (or bad usage) or the
capture is cut short (after the verdicts of its complete frames).
selftest exits 0 when every check passes, 1 otherwise.

Choices made where the spec is silent or open (each marked "CHOICE" in the code):
  * PLA header decode (-> malformed) checks only bytes: version 1, curve code 1..3,
    layout 1..2, exact length for (curve, layout), b_A in {0, 1}. Everything about
    points and scalars (key prefix, x >= 2^m, off curve, outside the subgroup,
    r_A >= 2^m, c or d outside [1, n - 1]) fails verification -> bad_signature.
  * A header on a known curve other than the TTP's is other_curve, checked before the
    TTP id; the layout-1 TTP signature is verified with the TTP's ICNR key W_T.
  * The router's clock is whole seconds (pcap ts_sec), advanced by every frame,
    IPv6 or not, before the frame is judged.
  * Only the IPv6 header and the Hop-by-Hop header are parsed; the rest of the chain
    is signed, not parsed. Payload Length is checked before "unsigned" is decided.
    A jumbogram (RFC 2675 §3: Payload Length 0, a Hop-by-Hop header with one Jumbo
    Payload option 0xC2 of 4 octets holding a length above 65,535 that fits the
    captured packet) is "jumbogram", PLA option or not; Payload Length 0 with a
    Hop-by-Hop header that breaks one of those rules, or a Jumbo Payload option with
    Payload Length not 0, is malformed (a Fragment header after a jumbogram's
    Hop-by-Hop header, also an RFC 2675 error, is not looked for). The 4n+2
    alignment of the PLA option and padding contents are not enforced.
  * Frames: a frame too short for its link header is malformed; EtherType 0x86DD
    (after any 802.1Q/802.1ad tags) or raw IP version 6 is IPv6, and an IPv6 frame
    whose version field is not 6 is malformed. An unsupported link type or a pcapng
    file makes the whole capture unreadable (exit 2). A capture cut short inside a
    record (pla.md "Capture files") gives the verdicts of its complete frames, then
    an error naming the incomplete record's byte offset, exit 2.
  * Sequence numbers are compared as plain integers (no wraparound); the bounded-
    memory eviction of the replay table is not implemented.
  * RFC 5952 text of an IPv4-mapped address is ::ffff:a.b.c.d (Python 3.11/3.12's
    .compressed prints ::ffff:c000:201, so this case is written out); every other
    address, IPv4-compatible and IPv4-translated ones included, is all hexadecimal.
"""

import argparse
import base64
import hashlib
import ipaddress
import json
import os
import secrets
import struct
import sys
import time

# ---------------------------------------------------------------------------
# GF(2^m) and the Koblitz curves y^2 + xy = x^3 + a x^2 + 1 (pla.md "Curves")
# ---------------------------------------------------------------------------
# Field elements are Python ints whose bit i is the coefficient of x^i.
# Points are (x, y) tuples of field elements; None is the point at infinity.


class Curve:
    def __init__(self, name, scheme, code, m, low_terms, a, n, h, gx, gy):
        self.name = name            # "K-163"
        self.scheme = scheme        # key-file scheme id, "icnr-k163"
        self.code = code            # PLA header curve byte
        self.m = m
        self.low_terms = low_terms  # f(x) = x^m + sum(x^e for e in low_terms)
        self.a = a
        self.b = 1
        self.n = n
        self.h = h
        self.G = (gx, gy)
        self.mask = (1 << m) - 1
        self.F = (m + 7) // 8                     # bytes of a field element
        self.L = (n.bit_length() + 7) // 8       # bytes of a scalar
        self.nbits = n.bit_length()

    # -- field ------------------------------------------------------------
    def reduce(self, c):
        m, mask = self.m, self.mask
        while c >> m:
            hi = c >> m
            c &= mask
            for e in self.low_terms:
                c ^= hi << e
        return c

    def fmul(self, a, b):
        """Carry-less product, 4 bits of b at a time, then reduction mod f."""
        if a == 0 or b == 0:
            return 0
        table = [0, a]
        for i in range(2, 16):
            table.append((table[i >> 1] << 1) ^ (a if i & 1 else 0))
        c = 0
        for shift in range((b.bit_length() - 1) & ~3, -1, -4):
            c = (c << 4) ^ table[(b >> shift) & 15]
        return self.reduce(c)

    def fsqr(self, a):
        # Squaring in GF(2)[x] spreads the bits: a_i x^i -> a_i x^(2i).
        return self.reduce(int("0".join(bin(a)[2:]), 2))

    def finv(self, a):
        """Inverse by the extended Euclidean algorithm (Guide to ECC, Alg. 2.48)."""
        if a == 0:
            raise ZeroDivisionError("inverse of 0 in GF(2^m)")
        f = self.mask + 1
        for e in self.low_terms:
            f |= 1 << e
        u, v, g1, g2 = a, f, 1, 0
        while u != 1:
            j = u.bit_length() - v.bit_length()
            if j < 0:
                u, v, g1, g2 = v, u, g2, g1
                j = -j
            u ^= v << j
            g1 ^= g2 << j
        return self.reduce(g1)

    def trace(self, c):
        """Tr(c) = c + c^2 + c^4 + ... + c^(2^(m-1)), which is 0 or 1."""
        t, acc = c, c
        for _ in range(self.m - 1):
            t = self.fsqr(t)
            acc ^= t
        assert acc in (0, 1)
        return acc

    def half_trace(self, c):
        """For odd m: z = sum c^(2^(2i)), i = 0..(m-1)/2, solves z^2 + z = c + Tr(c)."""
        t, acc = c, c
        for _ in range((self.m - 1) // 2):
            t = self.fsqr(self.fsqr(t))
            acc ^= t
        return acc

    # -- points -----------------------------------------------------------
    def on_curve(self, P):
        if P is None:
            return True
        x, y = P
        if x >> self.m or y >> self.m:
            return False
        x2 = self.fsqr(x)
        lhs = self.fsqr(y) ^ self.fmul(x, y)
        rhs = self.fmul(x2, x) ^ (x2 if self.a else 0) ^ self.b
        return lhs == rhs

    def neg(self, P):
        return None if P is None else (P[0], P[0] ^ P[1])

    def double(self, P):
        if P is None or P[0] == 0:        # x = 0: P = -P, so 2P = infinity
            return None
        x, y = P
        lam = x ^ self.fmul(y, self.finv(x))
        x3 = self.fsqr(lam) ^ lam ^ self.a
        y3 = self.fsqr(x) ^ self.fmul(lam ^ 1, x3)
        return (x3, y3)

    def add(self, P, Q):
        if P is None:
            return Q
        if Q is None:
            return P
        x1, y1 = P
        x2, y2 = Q
        if x1 == x2:
            return self.double(P) if y1 == y2 else None   # Q = P or Q = -P
        lam = self.fmul(y1 ^ y2, self.finv(x1 ^ x2))
        x3 = self.fsqr(lam) ^ lam ^ x1 ^ x2 ^ self.a
        y3 = self.fmul(lam, x1 ^ x3) ^ x3 ^ y1
        return (x3, y3)

    def multi_mul(self, pairs):
        """sum(k_i * P_i) for scalars k_i >= 0: joint double-and-add (Shamir's trick)."""
        pts = [P for _, P in pairs]
        ks = [k for k, _ in pairs]
        assert all(k >= 0 for k in ks)
        sums = [None] * (1 << len(pts))       # sums[mask] = sum of pts[i], i in mask
        for mask in range(1, len(sums)):
            low = (mask & -mask).bit_length() - 1
            sums[mask] = self.add(sums[mask & (mask - 1)], pts[low])
        R = None
        for bit in range(max(k.bit_length() for k in ks) - 1, -1, -1):
            R = self.double(R)
            mask = 0
            for i, k in enumerate(ks):
                mask |= ((k >> bit) & 1) << i
            if mask:
                R = self.add(R, sums[mask])
        return R

    def mul(self, k, P):
        return self.multi_mul([(k, P)])

    def in_subgroup(self, P):
        """The reference check: n*P = infinity (the spec's halving test is an optimization)."""
        return self.mul(self.n, P) is None

    # -- SEC 1 encodings ----------------------------------------------------
    def fe_bytes(self, x):
        return x.to_bytes(self.F, "big")

    def compression_bit(self, P):
        """SEC 1 y~: the lowest bit of y * x^-1, 0 when x = 0."""
        x, y = P
        return 0 if x == 0 else self.fmul(y, self.finv(x)) & 1

    def compress(self, P):
        assert P is not None
        return bytes([2 + self.compression_bit(P)]) + self.fe_bytes(P[0])

    def decompress(self, x, ybit):
        """SEC 1 §2.3.4 step 2.4 for binary curves; None if no point has this x."""
        if x >> self.m:
            return None
        if x == 0:
            # y = b^(2^(m-1)) = 1; SEC 1 ignores y~ here (the spec only says it is 0).
            return (0, 1)
        beta = x ^ self.a ^ self.fsqr(self.finv(x))       # x + a + b x^-2, b = 1
        if self.trace(beta) != 0:
            return None                                   # off the curve
        z = self.half_trace(beta)
        assert self.fsqr(z) ^ z == beta
        if (z & 1) != ybit:
            z ^= 1
        return (x, self.fmul(x, z))

    def decode_compressed(self, data):
        """A compressed SEC 1 point that must be in the subgroup and not infinity.
        Raises ValueError naming the problem."""
        if len(data) != 1 + self.F:
            raise ValueError("point: wrong length")
        if data[0] not in (2, 3):
            raise ValueError("point: prefix %#04x is not 02/03" % data[0])
        x = int.from_bytes(data[1:], "big")
        if x >> self.m:
            raise ValueError("point: field element of degree >= m")
        P = self.decompress(x, data[0] - 2)
        if P is None:
            raise ValueError("point: not on the curve")
        if not self.in_subgroup(P):
            raise ValueError("point: not in the subgroup")
        return P

    def decode_uncompressed(self, data):
        if len(data) != 1 + 2 * self.F or data[0] != 4:
            raise ValueError("point: not an uncompressed SEC 1 point")
        x = int.from_bytes(data[1:1 + self.F], "big")
        y = int.from_bytes(data[1 + self.F:], "big")
        if not self.on_curve((x, y)):
            raise ValueError("point: not on the curve")
        return (x, y)


# FIPS 186-4 App. D.1.3 (= SEC 2 sect163k1 / sect233k1 / sect283k1).
K163 = Curve(
    "K-163", "icnr-k163", 1, 163, (7, 6, 3, 0), 1,
    0x04000000000000000000020108A2E0CC0D99F8A5EF, 2,
    0x02FE13C0537BBC11ACAA07D793DE4E6D5E5C94EEE8,
    0x0289070FB05D38FF58321F2E800536D538CCDAA3D9)
K233 = Curve(
    "K-233", "icnr-k233", 2, 233, (74, 0), 0,
    0x8000000000000000000000000000069D5BB915BCD46EFB1AD5F173ABDF, 4,
    0x017232BA853A7E731AF129F22FF4149563A419C26BF50A4C9D6EEFAD6126,
    0x01DB537DECE819B7F70F555A67C427A8CD9BF18AEB9B56E0C11056FAE6A3)
K283 = Curve(
    "K-283", "icnr-k283", 3, 283, (12, 7, 5, 0), 0,
    0x01FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFE9AE2ED07577265DFF7F94451E061E163C61, 4,
    0x0503213F78CA44883F1A3B8162F188E553CD265F23C1567A16876913B0C2AC2458492836,
    0x01CCDA380F1C9E318D90F95D07E5426FE87E45C0E8184698E45962364E34116177DD2259)
CURVES = (K163, K233, K283)
CURVE_BY_CODE = {c.code: c for c in CURVES}
CURVE_BY_SCHEME = {c.scheme: c for c in CURVES}

# ---------------------------------------------------------------------------
# ECDSA with SHA-256 (SEC 1 §4.1; pla.md "ECDSA")
# ---------------------------------------------------------------------------


def hash_to_e(curve, msg):
    """e = the leftmost bitlen(n) bits of SHA-256(msg)."""
    h = int.from_bytes(hashlib.sha256(msg).digest(), "big")
    return h >> max(0, 256 - curve.nbits)


def ecdsa_verify(curve, Q, msg, c, d):
    """Ordinary ECDSA verification; Q must already be a checked subgroup point != inf."""
    n = curve.n
    if not (1 <= c < n and 1 <= d < n):
        return False
    t = pow(d, -1, n)
    u, v = hash_to_e(curve, msg) * t % n, c * t % n
    X = curve.multi_mul([(u, curve.G), (v, Q)])
    return X is not None and X[0] % n == c


def random_scalar(curve):
    return secrets.randbelow(curve.n - 1) + 1


def ecdsa_sign(curve, dkey, msg):
    """Signing with a random nonce: for the self-test and demo only (not constant time)."""
    n, e = curve.n, hash_to_e(curve, msg)
    while True:
        k = random_scalar(curve)
        c = curve.mul(k, curve.G)[0] % n
        if c == 0:
            continue
        d = pow(k, -1, n) * (e + c * dkey) % n
        if d:
            return c, d


# ---------------------------------------------------------------------------
# Implicit certificates, ICNR (pla.md "Implicit certificates")
# ---------------------------------------------------------------------------
ICNR_TAG = b"HOPSIG-ICNR-V1"


def mgf1_sha256(seed, length):
    out, counter = b"", 0
    while len(out) < length:
        out += hashlib.sha256(seed + counter.to_bytes(4, "big")).digest()
        counter += 1
    return out[:length]


def hash_id(curve, identity):
    """H(ID): the first F bytes of MGF1-SHA-256(tag || ID), bits >= m cleared."""
    v = int.from_bytes(mgf1_sha256(ICNR_TAG + identity, curve.F), "big")
    return v & curve.mask


class InvalidCert(Exception):
    pass


def cert_point_D(curve, r_A, b_A, identity):
    """D = DECOMPRESS((r_A - H(ID)) mod 2^m, b_A), on the curve and in the subgroup."""
    if not 0 <= r_A <= curve.mask:
        raise InvalidCert("r_A is not below 2^m")
    if b_A not in (0, 1):
        raise InvalidCert("b_A is not 0 or 1")
    rbar = (r_A - hash_id(curve, identity)) % (1 << curve.m)
    D = curve.decompress(rbar, b_A)
    if D is None:
        raise InvalidCert("D is not on the curve")
    if not curve.in_subgroup(D):
        raise InvalidCert("D is not in the subgroup")
    return D


def icnr_extract(curve, W_T, r_A, b_A, identity):
    """W_A = D - (r_A mod n) W_T, which must not be infinity."""
    D = cert_point_D(curve, r_A, b_A, identity)
    W_A = curve.add(D, curve.neg(curve.mul(r_A % curve.n, W_T)))
    if W_A is None:
        raise InvalidCert("W_A is infinity")
    return W_A


def icnr_verify_fused(curve, W_T, r_A, b_A, identity, msg, c, d):
    """ICNR_do_verify (eq. 9): X = u G + v D + (-v r_A mod n) W_T; x(X) mod n == c."""
    n = curve.n
    if not (1 <= c < n and 1 <= d < n):
        return False
    try:
        D = cert_point_D(curve, r_A, b_A, identity)
    except InvalidCert:
        return False
    t = pow(d, -1, n)
    u, v = hash_to_e(curve, msg) * t % n, c * t % n
    w = -v * r_A % n
    X = curve.multi_mul([(u, curve.G), (v, D), (w, W_T)])
    return X is not None and X[0] % n == c


def icnr_verify_two_step(curve, W_T, r_A, b_A, identity, msg, c, d):
    """The same decision by a separate path: extract W_A, then plain ECDSA."""
    try:
        W_A = icnr_extract(curve, W_T, r_A, b_A, identity)
    except InvalidCert:
        return False
    return ecdsa_verify(curve, W_A, msg, c, d)


def icnr_verify(curve, W_T, r_A, b_A, identity, msg, c, d):
    fused = icnr_verify_fused(curve, W_T, r_A, b_A, identity, msg, c, d)
    two_step = icnr_verify_two_step(curve, W_T, r_A, b_A, identity, msg, c, d)
    assert fused == two_step, "fused eq. 9 and extract + ECDSA disagree"
    return fused


# The TTP and Alice's side: used by the self-test and demo only.
def icnr_ttp_setup(curve):
    s_T = random_scalar(curve)
    return s_T, curve.mul(s_T, curve.G)


def icnr_blind(curve):
    k_A = random_scalar(curve)
    return k_A, curve.mul(k_A, curve.G)


def icnr_ttp_issue(curve, s_T, R, identity):
    """ICNR_ttp: returns the certificate (r_A, b_A) and the share s̄_A."""
    if R is None or not curve.on_curve(R) or not curve.in_subgroup(R):
        raise InvalidCert("request R is not a subgroup point")
    n = curve.n
    while True:
        k_T = random_scalar(curve)
        P = curve.add(R, curve.mul(k_T, curve.G))
        if P is not None:
            break
    rbar = P[0]
    b_A = curve.compression_bit(P)
    r_A = (rbar + hash_id(curve, identity)) % (1 << curve.m)
    sbar = (k_T - (r_A % n) * s_T) % n
    return r_A, b_A, sbar


def icnr_finalkey(curve, k_A, sbar, W_T, r_A, b_A, identity):
    s_A = (k_A + sbar) % curve.n
    if curve.mul(s_A, curve.G) != icnr_extract(curve, W_T, r_A, b_A, identity):
        raise InvalidCert("faulty TTP answer: s_A G != extracted W_A")
    return s_A


# ---------------------------------------------------------------------------
# Key files (keys.md): the `hopsig-key: 1` armor
# ---------------------------------------------------------------------------
class KeyFileError(Exception):
    pass


def _is_label(s):
    words = s.split(" ")
    return (len(s) <= 64 and all(w and all("A" <= ch <= "Z" or "0" <= ch <= "9" for ch in w)
                                 for w in words))


def parse_key_file(raw):
    """Returns (scheme, kind, [(label, bytes), ...]) or raises KeyFileError."""
    if len(raw) > 65536:
        raise KeyFileError("file larger than 65,536 bytes")
    if not raw.endswith(b"\n"):
        raise KeyFileError("last line does not end in LF")
    lines = raw[:-1].split(b"\n")
    text = []
    for i, line in enumerate(lines, 1):
        if line.endswith(b"\r"):
            line = line[:-1]
        for byte in line:
            if not 0x20 <= byte <= 0x7E:
                raise KeyFileError("line %d: byte %#04x" % (i, byte))
        if not line:
            raise KeyFileError("line %d: blank line" % i)
        text.append(line.decode("ascii"))
    if len(text) < 3:
        raise KeyFileError("missing headers")
    if not text[0].startswith("hopsig-key: "):
        raise KeyFileError("line 1: expected 'hopsig-key: 1'")
    if text[0] != "hopsig-key: 1":
        raise KeyFileError("unsupported key file version")
    scheme_line, kind_line = text[1], text[2]
    if not scheme_line.startswith("scheme: "):
        raise KeyFileError("line 2: expected 'scheme: '")
    scheme = scheme_line[len("scheme: "):]
    if not (1 <= len(scheme) <= 64
            and all("a" <= ch <= "z" or "0" <= ch <= "9" or ch == "-" for ch in scheme)):
        raise KeyFileError("line 2: bad scheme id")
    if kind_line not in ("kind: secret", "kind: public"):
        raise KeyFileError("line 3: expected 'kind: secret' or 'kind: public'")
    kind = kind_line[len("kind: "):]
    blocks = []
    i = 3
    while i < len(text):
        begin = text[i]
        if not (begin.startswith("-----BEGIN ") and begin.endswith("-----")):
            raise KeyFileError("line %d: expected a BEGIN line" % (i + 1))
        label = begin[len("-----BEGIN "):-len("-----")]
        if not _is_label(label):
            raise KeyFileError("line %d: bad label" % (i + 1))
        i += 1
        b64 = []
        while i < len(text) and not text[i].startswith("-----END "):
            b64.append(text[i])
            i += 1
        if i == len(text) or text[i] != "-----END %s-----" % label:
            raise KeyFileError("block %s: missing or mismatched END line" % label)
        i += 1
        if not b64 or any(len(ln) != 64 for ln in b64[:-1]) or not 1 <= len(b64[-1]) <= 64:
            raise KeyFileError("block %s: base64 lines must be 64 columns" % label)
        joined = "".join(b64)
        try:
            data = base64.b64decode(joined, validate=True)
        except ValueError:
            raise KeyFileError("block %s: bad base64" % label) from None
        if not data or base64.b64encode(data).decode() != joined:
            raise KeyFileError("block %s: not canonical base64 of at least one byte" % label)
        blocks.append((label, data))
    if not blocks:
        raise KeyFileError("no block")
    return scheme, kind, blocks


TTP_PUBLIC_LABEL = "HOPSIG ICNR TTP PUBLIC"


def load_ttp_public(raw):
    """A TTP public file (pla.md "Implicit-certificate files"): (curve, W_T)."""
    scheme, kind, blocks = parse_key_file(raw)
    curve = CURVE_BY_SCHEME.get(scheme)
    if curve is None:
        raise KeyFileError("scheme %r is not icnr-k163/k233/k283" % scheme)
    if kind != "public":
        raise KeyFileError("expected a public file")
    if [label for label, _ in blocks] != [TTP_PUBLIC_LABEL]:
        raise KeyFileError("expected exactly one %r block" % TTP_PUBLIC_LABEL)
    try:
        W_T = curve.decode_compressed(blocks[0][1])
    except ValueError as e:
        raise KeyFileError("W_T: %s" % e) from None
    return curve, W_T


def write_key_file(scheme, kind, blocks):
    out = ["hopsig-key: 1", "scheme: " + scheme, "kind: " + kind]
    for label, data in blocks:
        b64 = base64.b64encode(data).decode()
        out.append("-----BEGIN %s-----" % label)
        out += [b64[i:i + 64] for i in range(0, len(b64), 64)]
        out.append("-----END %s-----" % label)
    return ("\n".join(out) + "\n").encode()


# ---------------------------------------------------------------------------
# The PLA header (pla.md "PLA header")
# ---------------------------------------------------------------------------
PACKET_TAG = b"HOPSIG-PLA-V1-PACKET"
CERT_TAG = b"HOPSIG-PLA-V1-CERT"
LAYOUT_CERT, LAYOUT_IMPLICIT = 1, 2
FIXED = 13   # version, curve, layout, TTP id (2), sequence (4), timestamp (4)


class Malformed(Exception):
    pass


def header_length(curve, layout):
    if layout == LAYOUT_CERT:
        return FIXED + (1 + curve.F) + 2 * curve.L + 2 * curve.L
    return FIXED + curve.F + 1 + 2 * curve.L


class PlaHeader:
    """Decoded header. CHOICE: only the byte structure is checked here (malformed);
    points and scalars are checked by verification (bad_signature)."""

    def __init__(self, data):
        if len(data) < FIXED:
            raise Malformed("PLA header: length")
        self.version, curve_code, self.layout = data[0], data[1], data[2]
        if self.version != 1:
            raise Malformed("PLA header: version")
        self.curve = CURVE_BY_CODE.get(curve_code)
        if self.curve is None:
            raise Malformed("PLA header: curve")
        if self.layout not in (LAYOUT_CERT, LAYOUT_IMPLICIT):
            raise Malformed("PLA header: layout")
        c = self.curve
        if len(data) != header_length(c, self.layout):
            raise Malformed("PLA header: length")
        self.ttp_id, self.seq, self.timestamp = struct.unpack(">HII", data[3:13])
        pos = FIXED
        if self.layout == LAYOUT_CERT:
            self.public_key = data[pos:pos + 1 + c.F]
            pos += 1 + c.F
            self.ttp_sig = (int.from_bytes(data[pos:pos + c.L], "big"),
                            int.from_bytes(data[pos + c.L:pos + 2 * c.L], "big"))
            pos += 2 * c.L
        else:
            self.r_A = int.from_bytes(data[pos:pos + c.F], "big")
            self.b_A = data[pos + c.F]
            pos += c.F + 1
            if self.b_A not in (0, 1):
                raise Malformed("PLA header: b_A")
        self.unsigned_part = data[:pos]           # the header without the signature
        self.sig = (int.from_bytes(data[pos:pos + c.L], "big"),
                    int.from_bytes(data[pos + c.L:pos + 2 * c.L], "big"))
        assert pos + 2 * c.L == len(data)


def encode_header(curve, layout, ttp_id, seq, timestamp, key_material, sig):
    """key_material: the compressed key + (c, d) for layout 1; (r_A, b_A) for layout 2."""
    out = bytes([1, curve.code, layout]) + struct.pack(">HII", ttp_id, seq, timestamp)
    if layout == LAYOUT_CERT:
        pub, (tc, td) = key_material
        out += pub + tc.to_bytes(curve.L, "big") + td.to_bytes(curve.L, "big")
    else:
        r_A, b_A = key_material
        out += r_A.to_bytes(curve.F, "big") + bytes([b_A])
    if sig is not None:
        out += sig[0].to_bytes(curve.L, "big") + sig[1].to_bytes(curve.L, "big")
    return out


# ---------------------------------------------------------------------------
# IPv6 (pla.md "PLA in IPv6 packets")
# ---------------------------------------------------------------------------
PLA_OPTION = 0x1E
JUMBO_OPTION = 0xC2                            # RFC 2675 §2
REASONS = ("not_ipv6", "unsigned", "jumbogram", "malformed", "other_curve",
           "unknown_ttp", "stale", "future", "replay", "bad_signature", "accepted")


class Verdict(Exception):
    """Raised to stop checking a packet with this reason."""

    def __init__(self, reason, detail=""):
        super().__init__(reason, detail)
        self.reason, self.detail = reason, detail


def rfc5952(addr16):
    """The RFC 5952 text of an IPv6 address, as the identity ID (ASCII)."""
    a = ipaddress.IPv6Address(addr16)
    if a.ipv4_mapped is not None:              # ::ffff:a.b.c.d, whatever Python prints
        return "::ffff:" + str(a.ipv4_mapped)
    return a.compressed


class SignedPacket:
    """An IPv6 packet carrying one PLA option, cut into what the router needs."""

    def __init__(self, header, src, payload):
        self.header, self.src, self.payload = header, src, payload


def hop_by_hop(ip):
    """The Hop-by-Hop header at ip[40:] and its options [(type, data), ...]."""
    if len(ip) < 42:
        raise Verdict("malformed", "Hop-by-Hop header runs past the packet")
    hbh_len = (ip[41] + 1) * 8
    if 40 + hbh_len > len(ip):
        raise Verdict("malformed", "Hop-by-Hop header runs past the packet")
    hbh = ip[40:40 + hbh_len]
    options = []
    i = 2
    while i < hbh_len:
        opt_type = hbh[i]
        if opt_type == 0:                      # Pad1
            i += 1
            continue
        if i + 2 > hbh_len or i + 2 + hbh[i + 1] > hbh_len:
            raise Verdict("malformed", "Hop-by-Hop option runs past its header")
        options.append((opt_type, hbh[i + 2:i + 2 + hbh[i + 1]]))
        i += 2 + hbh[i + 1]
    return hbh, options


def parse_ipv6(ip):
    """Returns a SignedPacket; raises Verdict for unsigned or malformed packets."""
    if len(ip) < 40:
        raise Verdict("malformed", "truncated IPv6 header")
    if ip[0] >> 4 != 6:
        raise Verdict("malformed", "IPv6 version field is not 6")
    payload_len = struct.unpack(">H", ip[4:6])[0]
    if payload_len == 0 and ip[6] == 0:        # RFC 2675 §3
        _, options = hop_by_hop(ip)
        jumbo = [data for t, data in options if t == JUMBO_OPTION]
        if len(jumbo) != 1 or len(jumbo[0]) != 4:
            raise Verdict("malformed", "Payload Length 0 without one Jumbo Payload option")
        length = int.from_bytes(jumbo[0], "big")
        if length <= 65535:
            raise Verdict("malformed", "Jumbo Payload Length 65,535 or less")
        if 40 + length > len(ip):
            raise Verdict("malformed", "Jumbo Payload Length beyond the captured packet")
        raise Verdict("jumbogram", "RFC 2675, not signed")
    if 40 + payload_len > len(ip):
        raise Verdict("malformed", "Payload Length beyond the captured packet")
    ip = ip[:40 + payload_len]                 # drop link-layer padding
    if ip[6] != 0:                             # CHOICE: checked after Payload Length
        raise Verdict("unsigned", "no Hop-by-Hop header")
    hbh, options = hop_by_hop(ip)
    hbh_len = len(hbh)
    if any(t == JUMBO_OPTION for t, _ in options):
        raise Verdict("malformed", "Jumbo Payload option with Payload Length not 0")
    pla = [data for t, data in options if t == PLA_OPTION]
    if not pla:
        raise Verdict("unsigned", "no PLA option")
    if len(pla) > 1:
        raise Verdict("malformed", "two PLA options")
    try:
        header = PlaHeader(pla[0])
    except Malformed as e:
        raise Verdict("malformed", str(e)) from None
    src, dst = ip[8:24], ip[24:40]
    payload = src + dst + hbh[0:1] + ip[40 + hbh_len:]
    return SignedPacket(header, src, payload)


# ---------------------------------------------------------------------------
# The router (pla.md "What a router checks, in order")
# ---------------------------------------------------------------------------
WINDOW = 128


class ReplayState:
    def __init__(self):
        self.h = None          # highest accepted sequence number
        self.bits = 0          # bit j set: h - j was accepted, 0 <= j < WINDOW
        self.newest_ts = None  # kept for bounded-memory eviction (not implemented)

    def is_new(self, seq):
        if self.h is None or seq > self.h:
            return True
        if seq < self.h - (WINDOW - 1):
            return False
        return not (self.bits >> (self.h - seq)) & 1

    def accept(self, seq, ts):
        if self.h is None:
            self.h, self.bits = seq, 1
        elif seq > self.h:
            self.bits = ((self.bits << (seq - self.h)) | 1) & ((1 << WINDOW) - 1)
            self.h = seq
        else:
            self.bits |= 1 << (self.h - seq)
        self.newest_ts = ts if self.newest_ts is None else max(self.newest_ts, ts)


class Router:
    def __init__(self, curve, W_T, ttp_id, max_age=60, skew=2, now=None):
        self.curve, self.W_T, self.ttp_id = curve, W_T, ttp_id
        self.max_age, self.skew = max_age, skew
        self.fixed_now = now
        self.clock = now
        self.replay = {}       # (TTP id, 16-byte source) -> ReplayState

    def give_time(self, t):
        if self.fixed_now is None:
            self.clock = t if self.clock is None else max(self.clock, t)

    def check(self, pkt):
        """The checks in the spec's order, for a parsed SignedPacket."""
        hd, curve = pkt.header, self.curve
        if hd.curve is not curve:          # CHOICE: before the TTP id
            raise Verdict("other_curve", hd.curve.name)
        if hd.ttp_id != self.ttp_id:
            raise Verdict("unknown_ttp", "TTP id %d" % hd.ttp_id)
        if hd.timestamp < self.clock - self.max_age:
            raise Verdict("stale", "timestamp %d, clock %d" % (hd.timestamp, self.clock))
        if hd.timestamp > self.clock + self.skew:
            raise Verdict("future", "timestamp %d, clock %d" % (hd.timestamp, self.clock))
        key = (hd.ttp_id, pkt.src)
        state = self.replay.get(key)
        if state is not None and not state.is_new(hd.seq):
            raise Verdict("replay", "sequence %d" % hd.seq)
        if not self.signature_ok(pkt):
            raise Verdict("bad_signature")
        self.replay.setdefault(key, ReplayState()).accept(hd.seq, hd.timestamp)
        return "accepted"

    def signature_ok(self, pkt):
        hd, curve = pkt.header, self.curve
        msg = PACKET_TAG + hd.unsigned_part + pkt.payload
        c, d = hd.sig
        if hd.layout == LAYOUT_IMPLICIT:
            identity = rfc5952(pkt.src).encode("ascii")
            return icnr_verify(curve, self.W_T, hd.r_A, hd.b_A, identity, msg, c, d)
        try:
            Q = curve.decode_compressed(hd.public_key)
        except ValueError:
            return False
        tc, td = hd.ttp_sig
        if not ecdsa_verify(curve, self.W_T, CERT_TAG + hd.public_key, tc, td):
            return False
        return ecdsa_verify(curve, Q, msg, c, d)

    def process(self, t, ip):
        """Verdict for one IPv6 packet (bytes from the IPv6 header on) captured at t."""
        self.give_time(t)
        try:
            pkt = parse_ipv6(ip)
            return self.check(pkt), ""
        except Verdict as v:
            return v.reason, v.detail


# ---------------------------------------------------------------------------
# pcap (classic libpcap format) and link layers
# ---------------------------------------------------------------------------
class PcapError(Exception):
    pass


LINK_ETHERNET, LINK_RAW, LINK_SLL, LINK_IPV6 = 1, 101, 113, 229
ETH_IPV6 = 0x86DD
VLAN_TPIDS = (0x8100, 0x88A8, 0x9100)


def read_pcap(raw, cut=None):
    """Returns (link type, [(ts_sec, ts_frac_ns, frame bytes), ...]). A file that ends
    inside a record raises PcapError, unless cut is a list: then the complete frames
    are returned and the incomplete record's byte offset is appended to cut."""
    if len(raw) < 24:
        raise PcapError("shorter than a pcap file header")
    magic = raw[:4]
    formats = {b"\xd4\xc3\xb2\xa1": ("<", 1000), b"\xa1\xb2\xc3\xd4": (">", 1000),
               b"\x4d\x3c\xb2\xa1": ("<", 1), b"\xa1\xb2\x3c\x4d": (">", 1)}
    if magic not in formats:
        if magic == b"\x0a\x0d\x0d\x0a":
            raise PcapError("pcapng is not supported (convert with editcap -F pcap)")
        raise PcapError("not a pcap file (magic %s)" % magic.hex())
    endian, frac_to_ns = formats[magic]
    _, _, _, _, _, network = struct.unpack(endian + "HHiIII", raw[4:24])
    linktype = network & 0xFFFF      # upper bits may carry FCS information
    if linktype not in (LINK_ETHERNET, LINK_RAW, LINK_SLL, LINK_IPV6):
        raise PcapError("unsupported link type %d" % linktype)
    frames, pos = [], 24
    while pos < len(raw):
        header = struct.unpack(endian + "IIII", raw[pos:pos + 16]) if pos + 16 <= len(raw) else None
        if header is None or pos + 16 + header[2] > len(raw):
            if cut is None:
                raise PcapError("cut short in the record at byte offset %d" % pos)
            cut.append(pos)
            break
        ts_sec, ts_frac, incl, _orig = header
        frames.append((ts_sec, ts_frac * frac_to_ns, raw[pos + 16:pos + 16 + incl]))
        pos += 16 + incl
    return linktype, frames


def link_to_ipv6(linktype, frame):
    """The bytes from the IPv6 header on; raises Verdict (not_ipv6 / malformed)."""
    if linktype == LINK_IPV6:
        return frame
    if linktype == LINK_RAW:
        if not frame:
            raise Verdict("malformed", "empty frame")
        if frame[0] >> 4 != 6:
            raise Verdict("not_ipv6", "IP version %d" % (frame[0] >> 4))
        return frame
    if linktype == LINK_ETHERNET:
        if len(frame) < 14:
            raise Verdict("malformed", "truncated Ethernet header")
        pos = 12
    else:  # LINK_SLL: type(2) ARPHRD(2) address length(2) address(8) protocol(2)
        if len(frame) < 16:
            raise Verdict("malformed", "truncated Linux cooked header")
        pos = 14
    ethertype = struct.unpack(">H", frame[pos:pos + 2])[0]
    pos += 2
    while ethertype in VLAN_TPIDS:             # 802.1Q / 802.1ad tags: TCI(2) type(2)
        if len(frame) < pos + 4:
            raise Verdict("malformed", "truncated VLAN tag")
        ethertype = struct.unpack(">H", frame[pos + 2:pos + 4])[0]
        pos += 4
    if ethertype != ETH_IPV6:
        raise Verdict("not_ipv6", "EtherType %#06x" % ethertype)
    return frame[pos:]


def verify_capture(router, linktype, frames):
    results = []
    for ts_sec, _ns, frame in frames:
        # CHOICE: the router's clock is in whole Unix seconds (the capture's ts_sec)
        # and every frame advances it.
        try:
            ip = link_to_ipv6(linktype, frame)
        except Verdict as v:
            router.give_time(ts_sec)
            results.append((v.reason, v.detail))
            continue
        results.append(router.process(ts_sec, ip))
    return results


def cmd_verify(args):
    try:
        with open(args.ttp_pub, "rb") as fh:
            curve, W_T = load_ttp_public(fh.read())
    except (OSError, KeyFileError) as e:
        print("pla_reference: cannot read TTP public key %s: %s" % (args.ttp_pub, e),
              file=sys.stderr)
        return 2
    try:
        with open(args.pcap, "rb") as fh:
            cut = []
            linktype, frames = read_pcap(fh.read(), cut)
    except (OSError, PcapError) as e:
        print("pla_reference: cannot read capture %s: %s" % (args.pcap, e), file=sys.stderr)
        return 2
    router = Router(curve, W_T, args.ttp_id, args.max_age, args.skew, args.now)
    results = verify_capture(router, linktype, frames)
    counts = {r: 0 for r in REASONS}
    for reason, _ in results:
        counts[reason] += 1
    if args.json:
        print(json.dumps({"verdicts": [r for r, _ in results], "counts": counts}))
    else:
        for i, (reason, detail) in enumerate(results, 1):
            print("frame %d: %s%s" % (i, reason, " (%s)" % detail if detail else ""))
        print("summary: " + ", ".join("%s %d" % (r, counts[r]) for r in REASONS))
    if cut:
        print("pla_reference: %s: cut short in the middle of a packet: the record at byte "
              "offset %d is incomplete" % (args.pcap, cut[0]), file=sys.stderr)
        return 2
    return 0


# ---------------------------------------------------------------------------
# A PLA sender and pcap writer (self-test and demo only)
# ---------------------------------------------------------------------------
class Signer:
    """Signs IPv6 packets as one source, layout 1 or 2, with a given TTP."""

    def __init__(self, curve, s_T, W_T, ttp_id, src_text, layout):
        self.curve, self.ttp_id, self.layout = curve, ttp_id, layout
        self.src = ipaddress.IPv6Address(src_text).packed
        if layout == LAYOUT_IMPLICIT:
            identity = rfc5952(self.src).encode()
            k_A, R = icnr_blind(curve)
            r_A, b_A, sbar = icnr_ttp_issue(curve, s_T, R, identity)
            self.key = icnr_finalkey(curve, k_A, sbar, W_T, r_A, b_A, identity)
            self.material = (r_A, b_A)
        else:
            self.key = random_scalar(curve)
            pub = curve.compress(curve.mul(self.key, curve.G))
            self.material = (pub, ecdsa_sign(curve, s_T, CERT_TAG + pub))

    def sign(self, ip, seq, timestamp):
        """Insert a Hop-by-Hop header holding the PLA option (packet without one)."""
        assert ip[6] != 0 and ip[8:24] == self.src
        hd_unsigned = encode_header(self.curve, self.layout, self.ttp_id, seq, timestamp,
                                    self.material, None)
        payload = ip[8:40] + ip[6:7] + ip[40:]
        sig = ecdsa_sign(self.curve, self.key, PACKET_TAG + hd_unsigned + payload)
        return insert_hbh(ip, hd_unsigned + sig[0].to_bytes(self.curve.L, "big")
                          + sig[1].to_bytes(self.curve.L, "big"))


def padding(k):
    if k == 0:
        return b""
    if k == 1:
        return b"\x00"
    return bytes([1, k - 2]) + bytes(k - 2)


def insert_hbh(ip, pla_header, options_before=b""):
    """IPv6 packet without HBH -> with one: options_before, pad to 4n+2, PLA, pad to 8n."""
    body = options_before + padding((2 - (2 + len(options_before))) % 4)
    body += bytes([PLA_OPTION, len(pla_header)]) + pla_header
    body += padding(-(2 + len(body)) % 8)
    hbh = bytes([ip[6], (2 + len(body)) // 8 - 1]) + body
    payload_len = struct.unpack(">H", ip[4:6])[0] + len(hbh)
    return ip[:4] + struct.pack(">H", payload_len) + b"\x00" + ip[7:40] + hbh + ip[40:]


def udp_packet(src_text, dst_text, data, sport=4000, dport=5000):
    src = ipaddress.IPv6Address(src_text).packed
    dst = ipaddress.IPv6Address(dst_text).packed
    length = 8 + len(data)
    pseudo = src + dst + struct.pack(">IxxxB", length, 17)
    udp = struct.pack(">HHHH", sport, dport, length, 0) + data
    blob = pseudo + udp + (b"\x00" if len(udp) % 2 else b"")
    s = sum(struct.unpack(">%dH" % (len(blob) // 2), blob))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    csum = (~s & 0xFFFF) or 0xFFFF
    udp = udp[:6] + struct.pack(">H", csum) + udp[8:]
    return struct.pack(">IHBB", 6 << 28, len(udp), 17, 64) + src + dst + udp


def write_pcap(linktype, frames, nanosecond=False, big_endian=False):
    e = ">" if big_endian else "<"
    magic = 0xA1B23C4D if nanosecond else 0xA1B2C3D4
    out = struct.pack(e + "IHHiIII", magic, 2, 4, 0, 0, 262144, linktype)
    for ts, frame in frames:
        out += struct.pack(e + "IIII", ts, 0, len(frame), len(frame)) + frame
    return out


def ethernet(ip, vlan=None):
    head = bytes.fromhex("020000000002020000000001")
    if vlan is not None:
        head += struct.pack(">HH", 0x8100, vlan)
    return head + struct.pack(">H", ETH_IPV6) + ip


# Offsets in a packet the Signer made: HBH at 40, PLA option type at 42, header at 44.
PLA_AT = 44


def demo_capture(curve, s_T, W_T, t0=1_700_000_000):
    """A capture exercising every reason, with the verdicts this script expects:
    [(capture time, Ethernet frame, expected reason), ...]. The router under test
    holds W_T as TTP id 1 and uses the default max_age 60, skew 2."""
    dst = "2001:db8:ffff::2"
    alice = Signer(curve, s_T, W_T, 1, "2001:DB8:0:0:0:0:0:1", LAYOUT_IMPLICIT)
    bob = Signer(curve, s_T, W_T, 1, "2001:db8::b0b", LAYOUT_CERT)
    other = CURVE_BY_CODE[curve.code % 3 + 1]
    s_T2, W_T2 = icnr_ttp_setup(other)
    carol = Signer(other, s_T2, W_T2, 1, "2001:db8::c", LAYOUT_IMPLICIT)

    def a(seq, ts, data):
        return alice.sign(udp_packet("2001:db8::1", dst, data), seq, ts)

    def b(seq, ts, data):
        return bob.sign(udp_packet("2001:db8::b0b", dst, data), seq, ts)

    p100, p101, p102 = a(100, t0, b"a100"), a(101, t0, b"a101"), a(102, t0, b"a102")
    forged = bytearray(p102)
    forged[-1] ^= 1                                          # a payload bit
    moved = bytearray(p102)
    moved[8:24] = ipaddress.IPv6Address("2001:db8::2").packed   # another source
    bad_ttp_sig = bytearray(b(9, t0, b"b9"))
    bad_ttp_sig[PLA_AT + FIXED + curve.F + curve.L] ^= 1    # low bit of the TTP's c
    ttp2 = bytearray(a(500, t0, b"ttp2"))
    ttp2[PLA_AT + 3:PLA_AT + 5] = b"\x00\x02"                # TTP id 2
    bad_version = bytearray(p100)
    bad_version[PLA_AT] = 2
    ipv4 = bytes.fromhex("4500001c000000004011") + bytes(18)
    frames = [
        (t0, ethernet(ipv4)[:12] + b"\x08\x00" + ipv4, "not_ipv6"),
        (t0, ethernet(udp_packet("2001:db8::1", dst, b"plain")), "unsigned"),
        (t0, ethernet(p100), "accepted"),
        (t0, ethernet(p101, vlan=42), "accepted"),
        (t0, ethernet(p100), "replay"),
        (t0, ethernet(b(7, t0, b"b7")), "accepted"),
        (t0, ethernet(b(8, t0, b"b8")), "accepted"),
        (t0, ethernet(bytes(bad_ttp_sig)), "bad_signature"),
        (t0, ethernet(bytes(forged)), "bad_signature"),
        (t0, ethernet(p102), "accepted"),                  # the forgery moved no window
        (t0, ethernet(bytes(moved)), "bad_signature"),
        (t0, ethernet(p100[:-1]), "malformed"),            # Payload Length > captured
        (t0, ethernet(bytes(bad_version)), "malformed"),
        (t0, ethernet(carol.sign(udp_packet("2001:db8::c", dst, b"c"), 1, t0)),
         "other_curve"),
        (t0, ethernet(bytes(ttp2)), "unknown_ttp"),
        (t0 + 100, ethernet(a(200, t0 + 39, b"late")), "stale"),
        (t0 + 100, ethernet(a(201, t0 + 40, b"on time")), "accepted"),
        # The clock stays at t0 + 100: it never goes back.
        (t0 + 50, ethernet(a(202, t0 + 103, b"early")), "future"),
        (t0 + 50, ethernet(a(203, t0 + 102, b"skew edge")), "accepted"),
        # h = 203 now; the window is 76 ... 203.
        (t0 + 100, ethernet(a(75, t0 + 100, b"below")), "replay"),
        (t0 + 100, ethernet(a(76, t0 + 100, b"window edge")), "accepted"),
        (t0 + 100, ethernet(a(76, t0 + 100, b"window edge")), "replay"),
    ]
    return frames


# ---------------------------------------------------------------------------
# Self-test
# ---------------------------------------------------------------------------
# ECDSA known answers made with OpenSSL 3.0 (`openssl dgst -sha256 -sign`, keys from
# `openssl ecparam -genkey`; compressed form from `openssl ec -conv_form compressed`):
# (curve, compressed Q, uncompressed Q, message, r, s).
OPENSSL_VECTORS = [
    (K163, "0206a8fe51d7fa26282c6b5b9859a5ed5b3d693b365e",
     "0406a8fe51d7fa26282c6b5b9859a5ed5b3d693b365e008f86ae22ba17edb3cd7ae86c62eb5df514da8b96",
     b"hello PLA sect163k1",
     0x9D3FCE8DAF482E9E11F0614CAC2EA4F8298EFBD5,
     0x037704B2D65F9073824A205032B7B7A4A5C29E2439),
    (K233, "030105d2784e73919ac1f615b5e96a3f22fa2183c30eaaeb8d6d73c9a4c024",
     "040105d2784e73919ac1f615b5e96a3f22fa2183c30eaaeb8d6d73c9a4c024"
     "0156d2ce494b0853343488219ac7d4fb2d8cba52d2e49aee02f25f98ee8a",
     b"hello PLA sect233k1",
     0x6A92632BB1E602E1A048A21A239028094D64E49B8E4F849AE34BE45A4B,
     0x6C14D50F854214201EC22A5AE32B33D1CC7E5FD1AB4D6278F6A4A787D0),
    (K283, "020593ef471eecdf9c9c3fb74727620966220ed66eb2fb90c9c2019f4bb34c83dfe325bf37",
     "040593ef471eecdf9c9c3fb74727620966220ed66eb2fb90c9c2019f4bb34c83dfe325bf37"
     "0352ad7305f36bc21650f79a21f12f446b0d33db484dee46b753ddb579812268e0a155a0",
     b"hello PLA sect283k1",
     0x7A00D7E2C54759FD1C1B205EC40DF5F46726975FCD5AE0852E8B9C4F9A7381C73EF066,
     0x01657D7056FAB80C21A3144D011FA49224CE57C662F249E852BF2574867CD02C9D28B694),
]

RFC5952_CASES = [
    ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"),                 # pla.md's example
    ("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
    ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),        # one zero group stays
    ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),           # first of equal runs
    ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),                 # the longest run
    ("2001:DB8:AAAA:BBBB:CCCC:DDDD:EEEE:FFFF", "2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff"),
    ("0:0:0:0:0:0:0:0", "::"),
    ("0:0:0:0:0:0:0:1", "::1"),
    ("fe80:0:0:0:0200:5eff:fe00:5301", "fe80::200:5eff:fe00:5301"),
    ("0:0:0:0:0:FFFF:C000:0201", "::ffff:192.0.2.1"),        # IPv4-mapped
    ("::ffff:0.0.0.0", "::ffff:0.0.0.0"),
    ("1:0:0:0:0:0:0:0", "1::"),
]


def selftest():
    failures = []

    def check(cond, what):
        print(("ok    " if cond else "FAIL  ") + what)
        if not cond:
            failures.append(what)

    t_start = time.perf_counter()
    for c in CURVES:
        check(c.on_curve(c.G), "%s: G on the curve" % c.name)
        check(c.mul(c.n, c.G) is None and c.mul(c.n - 1, c.G) == c.neg(c.G),
              "%s: n*G = infinity, (n-1)*G = -G" % c.name)
        check(c.n.bit_length() == c.nbits and (c.F, c.L) == {163: (21, 21), 233: (30, 29),
                                                             283: (36, 36)}[c.m],
              "%s: F = %d, L = %d" % (c.name, c.F, c.L))
        x = secrets.randbits(c.m) | 1
        check(c.fmul(x, c.finv(x)) == 1 and c.fsqr(x) == c.fmul(x, x),
              "%s: field inverse and square" % c.name)
        P = c.mul(random_scalar(c), c.G)
        Q = c.decompress(P[0], c.compression_bit(P))
        check(Q == P and c.decode_compressed(c.compress(P)) == P,
              "%s: compress / decompress round trip" % c.name)
        # A point outside the subgroup: a point with Tr(x) != Tr(a) has no half (h even).
        while True:
            x = secrets.randbits(c.m)
            R = c.decompress(x, 0)
            if R is not None and c.trace(x) != c.a:
                break
        check(c.on_curve(R) and not c.in_subgroup(R), "%s: off-subgroup point rejected"
              % c.name)
        check(c.decompress(0, 0) == (0, 1) and not c.in_subgroup((0, 1)),
              "%s: (0, 1) has order 2" % c.name)

    for c, comp, unc, msg, r, s in OPENSSL_VECTORS:
        Q = c.decode_uncompressed(bytes.fromhex(unc))
        check(c.compress(Q).hex() == comp and c.decode_compressed(bytes.fromhex(comp)) == Q,
              "%s: OpenSSL's compressed form (y~ bit)" % c.name)
        check(ecdsa_verify(c, Q, msg, r, s), "%s: verifies an OpenSSL signature" % c.name)
        check(not ecdsa_verify(c, Q, msg + b"!", r, s) and not ecdsa_verify(c, Q, msg, r, c.n),
              "%s: rejects it on another message, and s = n" % c.name)

    for c in CURVES:
        t0 = time.perf_counter()
        dkey = random_scalar(c)
        Q = c.mul(dkey, c.G)
        sig = ecdsa_sign(c, dkey, b"round trip")
        ok = ecdsa_verify(c, Q, b"round trip", *sig)
        bad = ecdsa_verify(c, Q, b"round trip.", *sig)
        check(ok and not bad, "%s: ECDSA sign / verify round trip (%.2f s)"
              % (c.name, time.perf_counter() - t0))

    for c in CURVES:
        t0 = time.perf_counter()
        s_T, W_T = icnr_ttp_setup(c)
        identity = b"2001:db8::1"
        k_A, R = icnr_blind(c)
        r_A, b_A, sbar = icnr_ttp_issue(c, s_T, R, identity)
        check(r_A < 2 ** c.m and b_A in (0, 1), "%s: certificate is m + 1 bits" % c.name)
        s_A = icnr_finalkey(c, k_A, sbar, W_T, r_A, b_A, identity)
        W_A = icnr_extract(c, W_T, r_A, b_A, identity)
        check(W_A == c.mul(s_A, c.G), "%s: ICNR finalkey: s_A G = extracted W_A" % c.name)
        msg = b"implicit"
        sig = ecdsa_sign(c, s_A, msg)
        t1 = time.perf_counter()
        fused = icnr_verify_fused(c, W_T, r_A, b_A, identity, msg, *sig)
        t_fused = time.perf_counter() - t1
        check(fused and icnr_verify_two_step(c, W_T, r_A, b_A, identity, msg, *sig),
              "%s: fused eq. 9 and extract + ECDSA accept (fused %.3f s)" % (c.name, t_fused))
        check(not icnr_verify(c, W_T, r_A, b_A, b"2001:db8::2", msg, *sig)
              and not icnr_verify(c, W_T, r_A, b_A, identity, msg + b"x", *sig)
              and not icnr_verify(c, W_T, r_A, b_A ^ 1, identity, msg, *sig),
              "%s: both reject another identity, message or b_A" % c.name)
        print("      %s: ICNR round trip %.2f s" % (c.name, time.perf_counter() - t0))

    for text, want in RFC5952_CASES:
        got = rfc5952(ipaddress.IPv6Address(text).packed)
        check(got == want, "RFC 5952: %s -> %s" % (text, got))

    # Key file round trip and a few grammar rules.
    c = K163
    _, W_T = icnr_ttp_setup(c)
    blob = write_key_file(c.scheme, "public", [(TTP_PUBLIC_LABEL, c.compress(W_T))])
    check(load_ttp_public(blob) == (c, W_T), "key file: TTP public round trip")
    for bad in (blob.replace(b"kind: public", b"kind: secret"),
                blob.replace(b"hopsig-key: 1", b"hopsig-key: 2"),
                blob.replace(b"\n-----BEGIN", b"\n\n-----BEGIN"),
                blob[:-1], blob.replace(b"scheme: icnr-k163", b"scheme: icnr-k233"),
                blob + b"trailing\n"):
        try:
            load_ttp_public(bad)
            check(False, "key file: a broken file is rejected")
        except KeyFileError:
            pass
    check(load_ttp_public(blob.replace(b"\n", b"\r\n"))[1] == W_T, "key file: CRLF reads the same")

    # End to end on a capture, on each curve and a few link types / pcap flavours.
    for c in CURVES:
        t0 = time.perf_counter()
        s_T, W_T = icnr_ttp_setup(c)
        frames = demo_capture(c, s_T, W_T)
        want = [reason for _, _, reason in frames]
        raw = write_pcap(LINK_ETHERNET, [(ts, fr) for ts, fr, _ in frames])
        lt, parsed = read_pcap(raw)
        got = [r for r, _ in verify_capture(Router(c, W_T, 1), lt, parsed)]
        check(got == want, "%s: demo capture verdicts (%.1f s)" % (c.name,
                                                                   time.perf_counter() - t0))
        if got != want:
            for i, (g, w) in enumerate(zip(got, want), 1):
                if g != w:
                    print("      frame %d: got %s, expected %s" % (i, g, w))
    c = K163
    s_T, W_T = icnr_ttp_setup(c)
    sig = Signer(c, s_T, W_T, 1, "2001:db8::1", LAYOUT_IMPLICIT)
    ip = sig.sign(udp_packet("2001:db8::1", "2001:db8::2", b"link"), 1, 1000)
    for lt, frame in ((LINK_RAW, ip), (LINK_IPV6, ip),
                      (LINK_SLL, bytes(14) + struct.pack(">H", ETH_IPV6) + ip)):
        for ns in (False, True):
            for be in (False, True):
                lt2, parsed = read_pcap(write_pcap(lt, [(1000, frame)], ns, be))
                got = [r for r, _ in verify_capture(Router(c, W_T, 1), lt2, parsed)]
                check(got == ["accepted"], "link type %d, %s, %s-endian pcap" %
                      (lt, "ns" if ns else "us", "big" if be else "little"))
    # A PLA option after an existing option (Router Alert), at offset 6 = 4n + 2.
    inner = udp_packet("2001:db8::1", "2001:db8::2", b"alert")
    hd_unsigned = encode_header(c, LAYOUT_IMPLICIT, 1, 2, 1000, sig.material, None)
    s = ecdsa_sign(c, sig.key, PACKET_TAG + hd_unsigned + inner[8:40] + inner[6:7] + inner[40:])
    full = hd_unsigned + s[0].to_bytes(c.L, "big") + s[1].to_bytes(c.L, "big")
    alert = insert_hbh(inner, full, options_before=b"\x05\x02\x00\x00")
    check(alert[40 + 6] == PLA_OPTION, "Router Alert then PLA at offset 6")
    r = Router(c, W_T, 1)
    check(r.process(1000, alert)[0] == "accepted", "PLA after Router Alert: accepted")
    twice = bytearray(alert)
    twice[42] = PLA_OPTION         # Router Alert turned into a second PLA option
    check(Router(c, W_T, 1).process(1000, bytes(twice))[0] == "malformed",
          "two PLA options: malformed")

    # Header and option parsing: each broken packet gives the expected reason.
    good = alert          # HBH: Router Alert at 42, PLA option at 46, PLA header at 48

    def patched(at, data):
        return good[:at] + data + good[at + len(data):]

    def jumbogram(length):
        """A UDP packet as a jumbogram (RFC 2675) with 65,536 octets after the fixed
        header and a Jumbo Payload Length of length."""
        inner = udp_packet("2001:db8::1", "2001:db8::2", b"j")
        body = bytes([inner[6], 0, JUMBO_OPTION, 4]) + length.to_bytes(4, "big") + inner[40:]
        body += bytes(65536 - len(body))
        return inner[:4] + b"\x00\x00\x00" + inner[7:40] + body

    cases = [
        ("IPv6 header cut short", good[:39], "malformed"),
        ("version 4 in an IPv6 frame", b"\x45" + good[1:], "malformed"),
        ("HBH Hdr Ext Len past the packet", patched(41, bytes([200])), "malformed"),
        ("option length past the HBH header", patched(43, b"\xff"), "malformed"),
        ("PLA Opt Data Len one short", patched(47, bytes([good[47] - 1])), "malformed"),
        ("PLA layout 3", patched(48 + 2, b"\x03"), "malformed"),
        ("PLA curve 4", patched(48 + 1, b"\x04"), "malformed"),
        ("b_A = 2", patched(48 + FIXED + c.F, b"\x02"), "malformed"),
        ("Payload Length 0 without a Jumbo Payload option", patched(4, b"\x00\x00"),
         "malformed"),
        # Router Alert (4 octets at 42) turned into a Jumbo Payload option.
        ("Jumbo Payload option, Payload Length not 0", patched(42, b"\xc2\x04"),
         "malformed"),
        ("jumbogram", jumbogram(65536), "jumbogram"),
        ("jumbogram of 65,535 octets", jumbogram(65535), "malformed"),
        ("jumbogram longer than captured", jumbogram(65537), "malformed"),
        ("no PLA option (Router Alert only)", patched(46, b"\x01"), "unsigned"),
        ("signature c = 0", patched(48 + FIXED + c.F + 1, bytes(c.L)), "bad_signature"),
        ("r_A >= 2^m", patched(48 + FIXED, b"\xff"), "bad_signature"),
        ("link padding after Payload Length", good + bytes(6), "accepted"),
    ]
    for what, pkt, want in cases:
        got = Router(c, W_T, 1).process(1000, pkt)
        check(got[0] == want, "%s: %s (%s)" % (what, got[0], got[1]))

    print("self-test: %d failure(s), %.1f s" % (len(failures), time.perf_counter() - t_start))
    return 1 if failures else 0


def cmd_demo(outdir, curve=K163):
    os.makedirs(outdir, exist_ok=True)
    s_T, W_T = icnr_ttp_setup(curve)
    frames = demo_capture(curve, s_T, W_T)
    with open(os.path.join(outdir, "ttp.pub"), "wb") as fh:
        fh.write(write_key_file(curve.scheme, "public", [(TTP_PUBLIC_LABEL, curve.compress(W_T))]))
    with open(os.path.join(outdir, "demo.pcap"), "wb") as fh:
        fh.write(write_pcap(LINK_ETHERNET, [(ts, fr) for ts, fr, _ in frames]))
    with open(os.path.join(outdir, "expected.json"), "w") as fh:
        json.dump({"verdicts": [r for _, _, r in frames]}, fh)
        fh.write("\n")
    print("wrote %s/ttp.pub, demo.pcap (%d frames), expected.json" % (outdir, len(frames)))
    return 0


def main(argv):
    p = argparse.ArgumentParser(prog="pla_reference.py",
                                description="Independent PLA reference verifier.")
    sub = p.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("verify", help="verify the PLA options of a pcap capture")
    v.add_argument("pcap")
    v.add_argument("--ttp-pub", required=True, help="TTP public key file (icnr-k*)")
    v.add_argument("--ttp-id", type=int, default=1)
    v.add_argument("--json", action="store_true")
    v.add_argument("--max-age", type=int, default=60)
    v.add_argument("--skew", type=int, default=2)
    v.add_argument("--now", type=int, default=None,
                   help="fixed router clock (Unix seconds) instead of capture times")
    sub.add_parser("selftest", help="curve, ECDSA, ICNR, key file and capture checks")
    d = sub.add_parser("demo-pcap", help="write a signed demo capture and its TTP key")
    d.add_argument("dir")
    d.add_argument("--curve", choices=[c.name for c in CURVES], default="K-163")
    args = p.parse_args(argv[1:])
    if args.cmd == "verify":
        return cmd_verify(args)
    if args.cmd == "selftest":
        return selftest()
    return cmd_demo(args.dir, next(c for c in CURVES if c.name == args.curve))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
