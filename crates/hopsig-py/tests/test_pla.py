"""hopsig.pla: implicit certificates, the PLA header and IPv6 packets, cross-checked
against interop/python/pla_reference.py (written from docs/spec/pla.md alone)."""

import importlib
import pickle
import random
import sys

import pytest

from hopsig import pla, schemes
from hopsig.errors import InputError

SRC = "2001:db8::1"
DST = "2001:db8::2"
NOW = 1_700_000_000


def reference(interop):
    """interop/python/pla_reference.py, imported from its file."""
    if str(interop) not in sys.path:
        sys.path.insert(0, str(interop))
    return importlib.import_module("pla_reference")


def enroll(curve, identity=SRC):
    """A TTP and a host enrolled with an implicit certificate for ``identity``."""
    ttp = pla.Ttp.setup(curve)
    blind = pla.Blind(curve)
    issued = ttp.issue(identity, blind.request)
    key, cert = pla.finalize(blind, issued, ttp.public_bytes())
    return ttp, key, cert


@pytest.mark.parametrize("curve", ["k163", "k233", "k283"])
def test_implicit_certificate_steps_as_hopsig_ic(curve):
    ttp, key, cert = enroll(curve)
    assert ttp.curve == curve and key.scheme == f"ecdsa-{curve}"
    # The key anyone extracts from the certificate is the host's public key (eq. 7).
    assert pla.extract(ttp.public_bytes(), cert) == pla.public_point(key)
    assert pla.public_point(key.public_key()) == pla.public_point(key)
    sig = schemes.sign(key, b"message")
    assert pla.verify(ttp.public_bytes(), cert, b"message", sig)
    assert not pla.verify(ttp.public_bytes(), cert, b"other", sig)
    # Another TTP's key, another host's certificate: not valid.
    other_ttp, _, other_cert = enroll(curve, "2001:db8::9")
    assert not pla.verify(other_ttp.public_bytes(), cert, b"message", sig)
    assert not pla.verify(ttp.public_bytes(), other_cert, b"message", sig)
    # The files round-trip, and pickle.
    again = pla.Ttp.from_bytes(ttp.to_bytes())
    assert again.public_bytes() == ttp.public_bytes()
    assert pickle.loads(pickle.dumps(ttp)).public_bytes() == ttp.public_bytes()
    blind = pla.Blind(curve)
    assert pla.Blind.from_bytes(blind.to_bytes()).request == blind.request


def test_ic_errors_are_input_errors():
    ttp = pla.Ttp.setup()
    with pytest.raises(InputError) as e:
        pla.Ttp.setup("p256")
    assert e.value.reason == "bad-argument"
    with pytest.raises(InputError) as e:
        ttp.issue("", pla.Blind().request)
    assert e.value.reason == "identity-length"
    with pytest.raises(InputError) as e:
        pla.Ttp.from_bytes(schemes.keygen("ecdsa-k163").to_bytes())
    assert e.value.reason == "key-for-other-scheme"
    _, _, cert = enroll("k163")
    with pytest.raises(InputError) as e:
        pla.verify(ttp.public_bytes(), cert, b"m", b"\x30\x03")
    assert e.value.reason == "decode"


@pytest.mark.parametrize("layout", ["implicit", "certificate"])
def test_headers_sign_decode_encode_and_verify(layout):
    ttp, key, cert = enroll("k163")
    kwargs = {"cert": cert} if layout == "implicit" else \
        {"key_cert": ttp.certify_key(key.public_key())}
    h = pla.sign_header(key, b"payload", ttp_id=7, sequence=3, timestamp=NOW, **kwargs)
    wire = h.to_bytes()
    assert len(wire) == len(h)
    back = pla.Header.decode(wire)
    assert back == h and back.to_bytes() == wire
    assert (back.layout, back.ttp_id, back.sequence, back.timestamp, back.curve) == \
        (layout, 7, 3, NOW, "k163")
    assert (back.r is None) == (layout == "certificate")
    assert pickle.loads(pickle.dumps(h)) == h
    ttps = {7: ttp.public_bytes()}
    assert pla.verify_header(wire, b"payload", SRC, ttps, now=NOW + 10)
    assert not pla.verify_header(wire, b"payloaX", SRC, ttps, now=NOW + 10)
    assert not pla.verify_header(wire, b"payload", SRC, ttps, now=NOW + 61)
    assert not pla.verify_header(wire, b"payload", SRC, {8: ttp.public_bytes()}, now=NOW)
    # The implicit certificate was issued to SRC: another source does not verify.
    assert pla.verify_header(wire, b"payload", "2001:db8::3", ttps, now=NOW) == \
        (layout == "certificate")


def test_malformed_headers_are_input_errors_never_crashes():
    ttp, key, cert = enroll("k163")
    wire = pla.sign_header(key, b"p", cert=cert, timestamp=NOW).to_bytes()
    rng = random.Random(27)
    for cut in range(len(wire)):
        with pytest.raises(InputError) as e:
            pla.Header.decode(wire[:cut])
        assert e.value.reason == "decode"
    ttps = {1: ttp.public_bytes()}
    for _ in range(100):
        bad = bytearray(wire)
        bad[rng.randrange(len(bad))] ^= 1 << rng.randrange(8)
        try:
            assert not pla.verify_header(bytes(bad), b"p", SRC, ttps, now=NOW)
        except InputError as e:
            assert e.reason == "decode"


def test_hopsig_header_bytes_decode_in_the_reference(interop):
    ref = reference(interop)
    ttp, key, cert = enroll("k233")
    wire = pla.sign_header(key, b"p", cert=cert, ttp_id=2, sequence=9, timestamp=NOW).to_bytes()
    h = ref.PlaHeader(wire)
    assert (h.curve.name, h.ttp_id, h.seq, h.timestamp) == ("K-233", 2, 9, NOW)
    assert ref.encode_header(h.curve, h.layout, h.ttp_id, h.seq, h.timestamp,
                             (h.r_A, h.b_A), h.sig) == wire


def test_packets_signed_by_hopsig_pass_the_reference_router_and_back(interop):
    """hopsig signs an IPv6 packet, the reference router accepts it (and rejects a
    tampered copy); the reference signs with the same TTP, hopsig's router accepts it,
    then calls the repeat a replay."""
    ref = reference(interop)
    for layout in ("implicit", "certificate"):
        ttp, key, cert = enroll("k163")
        kwargs = {"cert": cert} if layout == "implicit" else \
            {"key_cert": ttp.certify_key(key.public_key())}
        packet = ref.udp_packet(SRC, DST, b"hello")
        signed = pla.sign_packet(packet, key, ttp_id=1, sequence=5, timestamp=NOW, **kwargs)
        curve, w_t = ref.load_ttp_public(ttp.public_bytes())
        router = ref.Router(curve, w_t, 1, now=NOW)
        assert router.process(NOW, signed)[0] == "accepted", layout
        tampered = signed[:-1] + bytes([signed[-1] ^ 1])
        assert ref.Router(curve, w_t, 1, now=NOW).process(NOW, tampered)[0] == "bad_signature"
        ours = pla.Router({1: ttp.public_bytes()})
        assert ours.check(signed, NOW) == "accepted"
        assert ours.check(signed, NOW) == "replay"
        assert pla.Router({1: ttp.public_bytes()}).check(tampered, NOW) == "bad_signature"
        assert ours.check(packet, NOW) == "unsigned"

    # The reference's signer, with hopsig's TTP secret.
    ttp = pla.Ttp.setup("k163")
    _, _, blocks = ref.parse_key_file(ttp.to_bytes())
    s_t = int.from_bytes(dict(blocks)["HOPSIG ICNR TTP SECRET"], "big")
    curve, w_t = ref.load_ttp_public(ttp.public_bytes())
    signer = ref.Signer(curve, s_t, w_t, 1, SRC, ref.LAYOUT_IMPLICIT)
    theirs = signer.sign(ref.udp_packet(SRC, DST, b"hi"), 1, NOW)
    router = pla.Router({1: ttp.public_bytes()})
    assert router.check(theirs, NOW) == "accepted"
    assert router.check(theirs, NOW + 120) == "stale"
    with pytest.raises(InputError) as e:
        pla.sign_packet(b"\x60\x00", schemes.keygen("ecdsa-k163"), key_cert=b"x")
    assert e.value.reason == "unsignable"


def test_router_check_many_equals_checking_one_by_one(interop):
    """A batch on two threads gives the verdicts of checking the packets in turn,
    replays within the batch included."""
    ref = reference(interop)
    ttp, key, cert = enroll("k163")
    packets = []
    for seq in (1, 2, 2, 3, 1, 40):
        packets.append(pla.sign_packet(ref.udp_packet(SRC, DST, b"d%d" % seq), key,
                                       cert=cert, sequence=seq, timestamp=NOW))
    fresh = pla.sign_packet(ref.udp_packet(SRC, DST, b"t"), key, cert=cert, sequence=7,
                            timestamp=NOW)
    packets.insert(3, fresh[:-1] + bytes([fresh[-1] ^ 1]))
    packets.append(ref.udp_packet(SRC, DST, b"plain"))
    packets.append(b"\x45" + bytes(30))
    one = pla.Router({1: ttp.public_bytes()})
    expected = [one.check(p, NOW) for p in packets]
    assert expected.count("accepted") == 4 and "replay" in expected
    assert "bad_signature" in expected and "unsigned" in expected
    batch = pla.Router({1: ttp.public_bytes()})
    assert batch.check_many(packets * 3, NOW, threads=2) == \
        expected + [one.check(p, NOW) for p in packets * 2]
