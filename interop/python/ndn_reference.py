#!/usr/bin/env python3
"""NDN packet format v0.3 test vectors and checks from python-ndn, an independent implementation.

    ndn_reference.py vectors                    -> {"vectors": [{name, kind, wire_hex, fields, ...}]}
    ndn_reference.py parse HEX                  -> fields of one Interest (type 5) or Data (type 6)
    ndn_reference.py verify HEX PUBKEY_DER_HEX  -> {"valid": bool, "signature_type": N}
    ndn_reference.py fetch NDN-URI              -> {"wire_hex", "fields"} of the Data fetched through
                                                   the forwarder at $NDN_CLIENT_TRANSPORT (NDNApp)

Only python-ndn 0.5.2 (ndn.encoding, ndn.security) and `cryptography` are used. Output is JSON on
stdout; on failure a one-line error goes to stderr and the exit status is 1.

Spec sections relied on (https://named-data.net/doc/NDN-packet-spec/current/):
  tlv.html        TLV encoding: VAR-NUMBER Type/Length (1, 3 or 5 byte forms), NonNegativeInteger.
  name.html       Name, GenericNameComponent (8), ImplicitSha256DigestComponent (1),
                  ParametersSha256DigestComponent (2), NDN URI scheme (percent-escaping).
  interest.html   Interest: Name CanBePrefix? MustBeFresh? ForwardingHint? Nonce? InterestLifetime?
                  HopLimit? (ApplicationParameters InterestSignature?)?; the params digest component.
  data.html       Data: Name MetaInfo? Content? SignatureInfo SignatureValue; MetaInfo = ContentType?
                  FreshnessPeriod? FinalBlockId? (FinalBlockId holds one NameComponent TLV).
  signature.html  SignatureInfo (SignatureType, KeyLocator Name|KeyDigest), SignatureValue; the
                  signed portion of a Data is every TLV from Name through SignatureInfo inclusive;
                  DigestSha256 (0), SignatureSha256WithRsa (1, PKCS#1 v1.5), SignatureSha256WithEcdsa
                  (3, DER-encoded ECDSA-Sig-Value).
  types.html      TLV-TYPE numbers; typed components from the Naming Conventions (keyword 32,
                  segment 50, byte offset 52, version 54, timestamp 56, sequence number 58).

`fields` for an Interest: name (URI from python-ndn's Name.to_str), components [{type, value_hex}],
can_be_prefix, must_be_fresh, nonce (uint32), lifetime_ms, hop_limit, app_params_hex. For a Data:
name, components, content_type, freshness_ms, final_block_id_hex (the FinalBlockId TLV-VALUE, i.e. a
whole NameComponent TLV), content_hex, signature_type, key_locator_name (URI), signature_value_hex,
signed_portion_hex. A value is null when its TLV is absent (no spec defaults are filled in: an absent
InterestLifetime is null, not 4000; an absent ContentType is null, not BLOB); an empty but present
TLV gives "".

Keys are fixed (RSA-2048 primes drawn from a seeded PRNG, a fixed P-256 scalar) and so are nonces,
so `vectors` prints the same bytes every run except the ECDSA signature (python-ndn's signer uses
randomised FIPS 186-3 ECDSA). `vectors` checks each packet against its inputs before printing it:
python-ndn's parse must give back the fields it was built from, the signed portion must be the
wire between the outer TL and the SignatureValue TLV, and each signature must verify here.
"""
import hashlib
import hmac
import json
import random
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from ndn.encoding import (Component, ContentType, InterestParam, MetaInfo, Name, Signer,
                          make_data, make_interest, parse_data, parse_interest)
from ndn.encoding.ndn_format_0_3 import DataPacket
from ndn.security import DigestSha256Signer, Sha256WithEcdsaSigner, Sha256WithRsaSigner


def hx(buf):
    return None if buf is None else bytes(buf).hex()


def name_fields(name):
    comps = Name.normalize(name)
    return {"name": Name.to_str(comps),
            "components": [{"type": Component.get_type(c), "value_hex": hx(Component.get_value(c))}
                           for c in comps]}


# ---------------------------------------------------------------- parsing (python-ndn)

def interest_fields(wire):
    name, param, app_params, _ = parse_interest(wire, with_tl=True)
    if isinstance(name, str):  # python-ndn fills in its "/" default when the Name TLV is missing
        raise ValueError("Interest has no Name")
    return {**name_fields(name),
            "can_be_prefix": bool(param.can_be_prefix),
            "must_be_fresh": bool(param.must_be_fresh),
            "nonce": param.nonce,
            "lifetime_ms": param.lifetime,
            "hop_limit": param.hop_limit,
            "app_params_hex": hx(app_params)}


def data_fields(wire):
    name, _, content, sig = parse_data(wire, with_tl=True)
    # parse_data substitutes MetaInfo() (ContentType 0) for an absent MetaInfo; the model keeps None.
    meta = DataPacket.parse(wire).data.meta_info or MetaInfo(content_type=None)
    info = sig.signature_info
    locator = info.key_locator if info is not None else None
    signed = sig.signature_value_buf is not None
    return {**name_fields(name),
            "content_type": meta.content_type,
            "freshness_ms": meta.freshness_period,
            "final_block_id_hex": hx(meta.final_block_id),
            "content_hex": hx(content),
            "signature_type": info.signature_type if info is not None else None,
            "key_locator_name": (Name.to_str(locator.name)
                                 if locator is not None and locator.name is not None else None),
            "signature_value_hex": hx(sig.signature_value_buf),
            "signed_portion_hex": b"".join(sig.signature_covered_part).hex() if signed else None}


def parse_packet(wire):
    if not wire:
        raise ValueError("empty packet")
    if wire[0] == 0x05:
        return "interest", interest_fields(wire)
    if wire[0] == 0x06:
        return "data", data_fields(wire)
    raise ValueError(f"outer TLV-TYPE {wire[0]} is neither Interest (5) nor Data (6)")


# ---------------------------------------------------------------- verification (cryptography)

def verify(wire, pubkey_hex):
    kind, f = parse_packet(wire)
    if kind != "data":
        raise ValueError("verify takes a Data packet")
    sig_type = f["signature_type"]
    if f["signature_value_hex"] is None or sig_type is None:
        raise ValueError("Data has no SignatureInfo/SignatureValue")
    portion = bytes.fromhex(f["signed_portion_hex"])
    value = bytes.fromhex(f["signature_value_hex"])
    if sig_type == 0:
        return hmac.compare_digest(hashlib.sha256(portion).digest(), value)
    if sig_type not in (1, 3):
        raise ValueError(f"unsupported SignatureType {sig_type}")
    if pubkey_hex == "-":
        raise ValueError(f"SignatureType {sig_type} needs a public key")
    key = serialization.load_der_public_key(bytes.fromhex(pubkey_hex))
    try:
        if sig_type == 1:
            if not isinstance(key, rsa.RSAPublicKey):
                raise ValueError("SignatureType 1 needs an RSA public key")
            key.verify(value, portion, padding.PKCS1v15(), hashes.SHA256())
        else:
            if not (isinstance(key, ec.EllipticCurvePublicKey)
                    and isinstance(key.curve, ec.SECP256R1)):
                raise ValueError("SignatureType 3 needs a P-256 public key")
            key.verify(value, portion, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return False
    return True


# ---------------------------------------------------------------- fixed keys and a raw signer

def _probable_prime(n, rng):
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for _ in range(32):
        x = pow(rng.randrange(2, n - 1), d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def rsa_key():
    """A fixed RSA-2048 key (e = 65537) whose primes come from a seeded PRNG."""
    rng, e = random.Random(0x4E444E), 65537

    def prime():
        while True:  # top two bits set so that p*q has exactly 2048 bits
            c = rng.getrandbits(1024) | (3 << 1022) | 1
            if c % e != 1 and _probable_prime(c, rng):
                return c
    p, q = prime(), prime()
    d = pow(e, -1, (p - 1) * (q - 1))
    return rsa.RSAPrivateNumbers(p, q, d, rsa.rsa_crt_dmp1(d, p), rsa.rsa_crt_dmq1(d, q),
                                 rsa.rsa_crt_iqmp(p, q),
                                 rsa.RSAPublicNumbers(e, p * q)).private_key()


def ecdsa_key():
    scalar = int.from_bytes(hashlib.sha256(b"ndn_reference.py P-256 test key").digest(), "big")
    return ec.derive_private_key(scalar, ec.SECP256R1())


def pkcs8_der(key):
    return key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def spki_der_hex(key):
    return key.public_key().public_bytes(serialization.Encoding.DER,
                                         serialization.PublicFormat.SubjectPublicKeyInfo).hex()


class RawSigner(Signer):
    """Writes a given SignatureType and SignatureValue bytes as they are (no KeyLocator)."""

    def __init__(self, sig_type, value):
        self.sig_type, self.value = sig_type, value

    def write_signature_info(self, signature_info):
        signature_info.signature_type = self.sig_type
        signature_info.key_locator = None

    def get_signature_value_size(self):
        return len(self.value)

    def write_signature_value(self, wire, contents):
        wire[:] = self.value
        return len(self.value)


# ---------------------------------------------------------------- vectors

def interest_vector(label, name, param, app_params=None):
    wire, final_name = make_interest(name, param, app_params, need_final_name=True)
    wire = bytes(wire)
    expected = {**name_fields([bytes(c) for c in final_name]),
                "can_be_prefix": param.can_be_prefix, "must_be_fresh": param.must_be_fresh,
                "nonce": param.nonce, "lifetime_ms": param.lifetime, "hop_limit": param.hop_limit,
                "app_params_hex": hx(app_params)}
    return check_vector(label, "interest", wire, expected)


def varnum_size(n):
    """Bytes in the VAR-NUMBER encoding of n (tlv.html)."""
    return 1 if n < 253 else 3 if n <= 0xFFFF else 5 if n <= 0xFFFFFFFF else 9


def data_vector(label, name, meta, content, signer, sig_type, locator=None, key=None, raw=None):
    wire = bytes(make_data(name, meta, content, signer=signer))
    expected = {**name_fields(name),
                "content_type": meta.content_type if meta else None,
                "freshness_ms": meta.freshness_period if meta else None,
                "final_block_id_hex": hx(meta.final_block_id) if meta else None,
                "content_hex": hx(content), "signature_type": sig_type,
                "key_locator_name": Name.to_str(locator) if locator is not None else None}
    vec = check_vector(label, "data", wire, expected)
    f = vec["fields"]
    # Independent of python-ndn's covered-part pointers: the signed portion is everything between
    # the outer TL and the SignatureValue TLV, which is the last TLV of the Data.
    value = bytes.fromhex(f["signature_value_hex"])
    outer_tl = 1 + {253: 3, 254: 5, 255: 9}.get(wire[1], 1)  # TLV-TYPE 6, then the Length
    sigval_tl = 1 + varnum_size(len(value))
    if f["signed_portion_hex"] != wire[outer_tl:len(wire) - sigval_tl - len(value)].hex():
        raise AssertionError(f"{label}: signed portion is not Name..SignatureInfo")
    if raw is not None and value != raw:
        raise AssertionError(f"{label}: SignatureValue differs from the bytes given")
    if key is not None:
        vec["public_key_der_hex"] = spki_der_hex(key)
    if sig_type in (0, 1, 3) and not verify(wire, vec.get("public_key_der_hex", "-")):
        raise AssertionError(f"{label}: signature does not verify")
    return vec


def check_vector(label, kind, wire, expected):
    got_kind, fields = parse_packet(wire)
    wrong = [k for k, v in expected.items() if fields[k] != v]
    if got_kind != kind or wrong:
        raise AssertionError(f"{label}: python-ndn parse disagrees with its inputs on {wrong}")
    return {"name": label, "kind": kind, "wire_hex": wire.hex(), "fields": fields}


def vectors():
    rsa_priv, ec_priv = rsa_key(), ecdsa_key()
    out = []
    add = out.append
    add(interest_vector("interest-name-only", "/ndn/test", InterestParam(lifetime=None)))
    add(interest_vector("interest-selectors", "/ndn/test/ping", InterestParam(
        can_be_prefix=True, must_be_fresh=True, nonce=0xA1B2C3D4, lifetime=10000, hop_limit=64)))
    add(interest_vector("interest-app-params", "/ndn/cmd/set", InterestParam(nonce=0x01020304),
                        app_params=b"\x0a\x0bconfig=1"))
    add(interest_vector("interest-empty-app-params", "/ndn/cmd/get",
                        InterestParam(nonce=0, lifetime=0, hop_limit=0), app_params=b""))

    add(data_vector("data-digest-sha256", "/ndn/data/1", None, b"hello",
                    DigestSha256Signer(), 0))
    full_name_digest = hashlib.sha256(bytes.fromhex(out[-1]["wire_hex"])).digest()
    typed = ["ndn", "typed", Component.from_version(1700000000000), Component.from_segment(0),
             Component.from_sequence_num(42), Component.from_timestamp(1700000000000000),
             Component.from_byte_offset(4096), Component.from_bytes(b"kw", 32),
             Component.from_bytes(b"\x01\x02", 300),
             Component.from_bytes(full_name_digest, Component.TYPE_IMPLICIT_SHA256)]
    add(interest_vector("interest-typed-components", typed,
                        InterestParam(can_be_prefix=True, nonce=0xFFFFFFFF, lifetime=None)))

    seg_name = Name.normalize(["ndn", "file", Component.from_version(3), Component.from_segment(9)])
    add(data_vector("data-metainfo", seg_name,
                    MetaInfo(content_type=ContentType.KEY, freshness_period=3600000,
                             final_block_id=Component.from_segment(9)),
                    bytes(range(253)), DigestSha256Signer(), 0))
    ec_locator = Name.from_str("/ndn/alice/KEY/%1A%2B")
    add(data_vector("data-ecdsa-p256", "/ndn/alice/data", MetaInfo(freshness_period=1000),
                    b"signed with ECDSA", Sha256WithEcdsaSigner(ec_locator, pkcs8_der(ec_priv)),
                    3, ec_locator, ec_priv))
    rsa_locator = Name.normalize(["ndn", "bob", "KEY", "k1", "self", Component.from_version(1)])
    add(data_vector("data-rsa-2048", "/ndn/bob/report", MetaInfo(), b"signed with RSA",
                    Sha256WithRsaSigner(rsa_locator, pkcs8_der(rsa_priv)), 1, rsa_locator, rsa_priv))
    add(data_vector("data-empty-content", "/ndn/empty", None, b"", DigestSha256Signer(), 0))
    add(data_vector("data-no-content", "/ndn/nothing", MetaInfo(freshness_period=0), None,
                    DigestSha256Signer(), 0))
    odd_name = (Name.from_str("/ndn/caf\u00e9/hello world/a%2Fb%3d~._-")
                + [Component.from_bytes(b"\x00\xff\x80\x25")])
    add(data_vector("data-nonascii-name", odd_name, None, "\u03a3".encode(),
                    DigestSha256Signer(), 0))
    raw = bytes.fromhex("deadbeef00010203")
    add(data_vector("data-sigtype-200", "/ndn/custom/sig", None, b"x", RawSigner(200, raw),
                    200, raw=raw))
    return {"vectors": out}


# ---------------------------------------------------------------- command line

USAGE = "usage: ndn_reference.py vectors | parse HEX | verify HEX PUBKEY_DER_HEX|- | fetch NDN-URI"


def fetch(uri):
    """Fetches URI through the forwarder NDN_CLIENT_TRANSPORT names (python-ndn's
    NDNApp, CanBePrefix, MustBeFresh, 4 s), and returns the Data's wire and fields."""
    from ndn.appv2 import NDNApp
    from ndn.types import ValidResult

    async def accept_all(_name, _sig, _context):
        return ValidResult.PASS

    app = NDNApp()
    got = {}

    async def after_start():
        try:
            _, _, context = await app.express(uri, validator=accept_all, can_be_prefix=True,
                                              must_be_fresh=True, lifetime=4000)
            got["wire"] = bytes(context["raw_packet"])
        except Exception as exc:  # reported below, after the loop stops
            got["error"] = f"{type(exc).__name__}: {exc}"
        finally:
            app.shutdown()

    app.run_forever(after_start=after_start())
    if "wire" not in got:
        raise ValueError("fetch " + uri + ": " + got.get("error", "no Data"))
    return {"wire_hex": got["wire"].hex(), "fields": data_fields(got["wire"])}


def main(argv):
    if argv[:1] == ["vectors"] and len(argv) == 1:
        result = vectors()
    elif argv[:1] == ["parse"] and len(argv) == 2:
        result = parse_packet(bytes.fromhex(argv[1]))[1]
    elif argv[:1] == ["fetch"] and len(argv) == 2:
        result = fetch(argv[1])
    elif argv[:1] == ["verify"] and len(argv) == 3:
        wire = bytes.fromhex(argv[1])
        result = {"valid": verify(wire, argv[2]), "signature_type": data_fields(wire)["signature_type"]}
    else:
        raise ValueError(USAGE)
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except Exception as exc:  # one line on stderr, non-zero exit
        msg = f"{type(exc).__name__}: {exc}" if not isinstance(exc, ValueError) else str(exc)
        print("error: " + " ".join(msg.split()), file=sys.stderr)
        sys.exit(1)
