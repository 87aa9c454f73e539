"""hopsig.bgpsec: UPDATE / BGPsec_PATH objects (byte-exact round trips on the RFC 8608
examples and on hopsig-signed UPDATEs, seeded mutations that only ever raise
InputError), keys, signing, validation verdicts with validate-mrt's reasons, the
batch call with the GIL released, and cross-checks against the independent
reference interop/python/bgpsec_reference.py in both directions."""

import hashlib
import importlib.util
import json
import os
import pickle
import random
import struct
import sys
import threading
from pathlib import Path

import pytest

from hopsig import bgpsec
from hopsig.bgpsec import (
    BgpsecPath,
    PathAttribute,
    RouterKeys,
    SecurePathSegment,
    Signature,
    SignatureBlock,
    Signer,
    SigningKey,
    Update,
    Verdict,
)
from hopsig.errors import InputError, InvalidError

from conftest import REPO, need, require

#: RFC 8608 Appendix A, as the Rust tests read it (keys, UPDATEs as printed).
RFC8608 = REPO / "crates" / "hopsig-bgp" / "tests" / "data" / "rfc8608_appendix_a.json"

#: BGPsec_PATH's type code before IANA assigned 33, as RFC 8608's dumps print it.
LEGACY_TYPE = 30


def cryptography():
    """The ``cryptography`` package (the reference needs it), or a skip / CI failure."""
    try:
        import cryptography.hazmat.primitives.asymmetric.ec  # noqa: F401
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("the cryptography package is missing")
        pytest.skip("the cryptography package is missing")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    return ec, hashes, serialization


@pytest.fixture(scope="module")
def ref(interop):
    """interop/python/bgpsec_reference.py, imported as a module."""
    cryptography()
    path = need(interop / "bgpsec_reference.py")
    spec = importlib.util.spec_from_file_location("bgpsec_reference", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]  # a file that exists has a spec
    sys.modules["bgpsec_reference"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rfc8608():
    """The RFC 8608 data: keys by AS, and each example's UPDATE with type code 33."""
    data = json.loads(need(RFC8608).read_text())
    return data


def with_type_code(message: bytes, old: int, new: int) -> bytes:
    """``message`` with attribute ``old``'s type code set to ``new`` (walking the
    attributes; the type code is covered by no signature, RFC 8205 Figure 8)."""
    wlen = struct.unpack_from(">H", message, 19)[0]
    base = 19 + 2 + wlen + 2
    alen = struct.unpack_from(">H", message, 19 + 2 + wlen)[0]
    off = 0
    out = bytearray(message)
    while off < alen:
        flags, code = message[base + off], message[base + off + 1]
        if flags & 0x10:
            length, header = struct.unpack_from(">H", message, base + off + 2)[0], 4
        else:
            length, header = message[base + off + 2], 3
        if code == old:
            out[base + off + 1] = new
            return bytes(out)
        off += header + length
    raise AssertionError("attribute not found")


def rfc_messages(rfc8608):
    """(section, UPDATE bytes with BGPsec_PATH type 33, example) of each example."""
    return [
        (e["section"], with_type_code(bytes.fromhex(e["update_as_printed"]), LEGACY_TYPE, 33), e)
        for e in rfc8608["examples"]
    ]


def rfc_keys(rfc8608):
    """The RFC 8608 A.2 router keys, their SPKI built by ``cryptography``."""
    ec, _, serialization = cryptography()
    keys = RouterKeys()
    for k in rfc8608["keys"]:
        public = ec.EllipticCurvePublicNumbers(
            int(k["ux"], 16), int(k["uy"], 16), ec.SECP256R1()
        ).public_key()
        spki = public.public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        keys.add(k["asn"], bytes.fromhex(k["ski"]), spki)
    return keys


@pytest.fixture(scope="module")
def routers():
    """Four routers of suite 1, AS 64501..64504, and the keys to validate them."""
    signers = []
    keys = RouterKeys()
    for asn in (64501, 64502, 64503, 64504):
        key = SigningKey.generate()
        signers.append(Signer(asn, key))
        keys.add(asn, key.ski, key.public_key())
    return signers, keys


# --- objects and byte-exact round trips -------------------------------------------


def test_rfc8608_examples_decode_round_trip_and_validate(rfc8608):
    keys = rfc_keys(rfc8608)
    skis = {k["asn"]: bytes.fromhex(k["ski"]) for k in rfc8608["keys"]}
    for section, message, example in rfc_messages(rfc8608):
        update = Update.from_bytes(message)
        assert update.to_bytes() == message, section
        assert update.announced == [example["prefix"]]
        path = update.bgpsec_path
        assert path is not None
        assert path.secure_path == [
            SecurePathSegment(1, 0, 65536),
            SecurePathSegment(1, 0, 64496),
        ]
        assert path.as_path() == [65536, 64496] and len(path) == 2
        (block,) = path.signature_blocks
        assert block.suite == 1
        assert [s.ski for s in block.segments] == [skis[65536], skis[64496]]
        # The signatures as the RFC prints them, newest (65536 -> 65537) first.
        printed = {s["from"]: bytes.fromhex(s["signature"]) for s in example["signatures"]}
        assert [s.signature for s in block.segments] == [printed[65536], printed[64496]]
        (attr,) = [a for a in update.attributes if a.type_code == bgpsec.BGPSEC_PATH_TYPE_CODE]
        assert BgpsecPath.from_bytes(attr.value).to_bytes() == attr.value
        assert attr.to_bytes() in message
        # Rebuilt from its parts, the message is the same octets.
        assert Update(attributes=update.attributes).to_bytes() == message
        rebuilt = BgpsecPath(path.secure_path, [SignatureBlock(1, block.segments)])
        assert rebuilt == path and rebuilt.to_bytes() == attr.value

        verdict = bgpsec.validate(message, keys, local_as=example["target_as"], peer_as=65536)
        assert verdict and verdict.state == "valid", verdict
        assert (verdict.reason, verdict.suite, verdict.signatures) == (None, 1, 2)
        # The same verdict on the decoded object.
        assert bgpsec.validate(update, keys, local_as=example["target_as"]) == verdict


def test_rfc8608_as_printed_has_no_bgpsec_path(rfc8608):
    # Type code 30 is an unknown optional attribute: the UPDATE announces without
    # AS_PATH or BGPsec_PATH, which the codec refuses (RFC 7606 section 3 d).
    printed = bytes.fromhex(rfc8608["examples"][0]["update_as_printed"])
    with pytest.raises(InputError) as e:
        Update.from_bytes(printed)
    assert e.value.reason == "decode" and e.value.exit_code == 2
    verdict = bgpsec.validate(printed, rfc_keys(rfc8608), local_as=65537)
    assert not verdict and verdict.reason == "malformed"


def test_signed_updates_round_trip_and_pickle(routers):
    signers, _ = routers
    for n in range(1, len(signers) + 1):
        update = bgpsec.sign("198.51.100.0/24", signers[:n], target_as=64999)
        message = update.to_bytes()
        again = Update.from_bytes(message)
        assert again == update and again.to_bytes() == message
        path = again.bgpsec_path
        assert [s.asn for s in path.secure_path] == [s.asn for s in reversed(signers[:n])]
        assert BgpsecPath.from_bytes(path.to_bytes()) == path
        for obj in (update, path, path.secure_path[0], path.signature_blocks[0],
                    path.signature_blocks[0].segments[0], update.attributes[0]):
            assert pickle.loads(pickle.dumps(obj)) == obj
    v6 = bgpsec.sign("2001:db8:1::/48", signers[:2], target_as=64999)
    assert v6.announced == ["2001:db8:1::/48"]
    assert Update.from_bytes(v6.to_bytes()).to_bytes() == v6.to_bytes()


def test_update_of_parts_and_two_octet_width():
    origin = PathAttribute(0x40, 1, b"\x00")
    as_path_2 = PathAttribute(0x40, 2, bytes([2, 2, 0xFB, 0xF0, 0xFB, 0xF1]))  # 64496 64497
    next_hop = PathAttribute(0x40, 3, bytes([192, 0, 2, 1]))
    update = Update(["10.0.0.0/8"], [origin, as_path_2, next_hop], ["192.0.2.0/24"], as_width=2)
    assert update.as_width == 2
    assert (update.withdrawn, update.nlri, update.announced) == (
        ["10.0.0.0/8"], ["192.0.2.0/24"], ["192.0.2.0/24"])
    assert update.bgpsec_path is None
    assert update.attributes == [origin, as_path_2, next_hop]
    assert Update.from_bytes(update.to_bytes(), as_width=2) == update
    # The same bytes with 4-octet AS numbers do not decode (AS_PATH length).
    with pytest.raises(InputError) as e:
        Update.from_bytes(update.to_bytes(), as_width=4)
    assert e.value.reason == "decode"
    with pytest.raises(InputError) as e:
        Update.from_bytes(update.to_bytes(), as_width=3)
    assert e.value.reason == "bad-argument"
    # Announcing without ORIGIN: the decoder's rule (RFC 7606 section 3 d).
    with pytest.raises(InputError) as e:
        Update([], [as_path_2, next_hop], ["192.0.2.0/24"], as_width=2)
    assert e.value.reason == "bad-argument" and "Origin missing" in str(e.value)
    with pytest.raises(InputError) as e:
        Update(nlri=["192.0.2.0/33"])
    assert e.value.reason == "bad-argument"
    keepalive = b"\xff" * 16 + b"\x00\x13\x04"
    with pytest.raises(InputError, match="not an UPDATE"):
        Update.from_bytes(keepalive)


def test_objects_enforce_rfc_8205_structure():
    seg = SecurePathSegment(1, 0x80, 64500)
    assert seg.confed_segment and (seg.pcount, seg.flags, seg.asn) == (1, 0x80, 64500)
    sig = Signature(b"\x01" * 20, b"\x30\x00")
    with pytest.raises(InputError) as e:
        Signature(b"\x01" * 19, b"")
    assert e.value.reason == "bad-argument" and "20 octets" in str(e.value)
    for segments, blocks, words in [
        ([], [SignatureBlock(1, [])], "Secure_Path"),
        ([seg], [], "Signature_Block"),
        ([seg], [SignatureBlock(1, [sig]), SignatureBlock(1, [sig])], "suite"),
        ([seg], [SignatureBlock(0, [sig])], "suite"),
        ([seg, seg], [SignatureBlock(1, [sig])], ""),
    ]:
        with pytest.raises(InputError) as e:
            BgpsecPath(segments, blocks)
        assert e.value.reason == "bad-argument" and words in str(e.value)
    two = BgpsecPath([seg], [SignatureBlock(1, [sig]), SignatureBlock(0xF7, [sig])])
    assert [b.suite for b in two.signature_blocks] == [1, 0xF7]
    assert BgpsecPath.from_bytes(two.to_bytes()) == two
    with pytest.raises(InputError) as e:
        BgpsecPath.from_bytes(two.to_bytes() + b"\x00")
    assert e.value.reason == "decode"


def mutations(seed: int, message: bytes, count: int):
    """``count`` seeded mutations of ``message``: byte flips, truncations,
    insertions, deletions, and length fields set to random values."""
    rng = random.Random(seed)
    for _ in range(count):
        m = bytearray(message)
        kind = rng.randrange(4)
        if kind == 0:
            for _ in range(rng.randint(1, 3)):
                m[rng.randrange(len(m))] ^= 1 << rng.randrange(8)
        elif kind == 1:
            del m[rng.randrange(len(m)):]
        elif kind == 2:
            m.insert(rng.randrange(len(m) + 1), rng.randrange(256))
        else:
            i = rng.randrange(len(m))
            del m[i:i + rng.randint(1, 8)]
        yield bytes(m)


def test_seeded_mutations_raise_input_error_only(rfc8608, routers):
    signers, keys = routers
    seeds = [m for _, m, _ in rfc_messages(rfc8608)]
    seeds.append(bgpsec.sign("203.0.113.0/24", signers, target_as=64999).to_bytes())
    decoded = 0
    for n, message in enumerate(seeds):
        for mutated in mutations(27_000 + n, message, 400):
            try:
                update = Update.from_bytes(mutated)
            except InputError as e:
                assert e.reason == "decode" and str(e)
            else:
                decoded += 1
                # Every accepted message re-encodes to itself (the canonical form).
                assert update.to_bytes() == mutated
            # The validator judges anything; it never raises.
            verdict = bgpsec.validate(mutated, keys, local_as=64999)
            assert isinstance(verdict, Verdict)
            assert verdict.state in ("valid", "not-valid")
        # The attribute value alone, through its own decoder.
        value = Update.from_bytes(message).bgpsec_path.to_bytes()
        for mutated in mutations(31_000 + n, value, 400):
            try:
                path = BgpsecPath.from_bytes(mutated)
            except InputError as e:
                assert e.reason == "decode"
            else:
                assert path.to_bytes() == mutated
    assert decoded > 0  # some mutations (a flipped signature bit) still decode


# --- keys ---------------------------------------------------------------------------


def test_signing_key_files_and_ski(tmp_path):
    _, _, serialization = cryptography()
    from cryptography import x509

    key = SigningKey.generate()
    assert key.suite == 1 and len(key.ski) == 20
    assert "PRIVATE" not in repr(key)
    public = serialization.load_der_public_key(key.public_key())
    # RFC 8209 section 3.3 / RFC 5280 method (1): SHA-1 of the subjectPublicKey bits.
    assert key.ski == x509.SubjectKeyIdentifier.from_public_key(public).digest
    path = tmp_path / "AS64500.key"
    path.write_text(key.secret_key_file())
    again = SigningKey.from_file(path)
    assert (again.ski, again.public_key()) == (key.ski, key.public_key())
    assert SigningKey.from_file(str(path), suite="1").ski == key.ski
    with pytest.raises(InputError) as e:
        SigningKey.from_file(tmp_path / "missing.key")
    assert e.value.reason == "io" and "missing.key" in str(e.value)
    (tmp_path / "bad.key").write_text("not a key\n")
    with pytest.raises(InputError) as e:
        SigningKey.from_file(tmp_path / "bad.key")
    assert e.value.reason == "key" and "bad.key" in str(e.value)
    with pytest.raises(InputError) as e:
        SigningKey.generate(suite="no-such-suite")
    assert e.value.reason == "bad-argument"


def test_router_keys_load_json_and_folder(tmp_path, routers):
    _, _, serialization = cryptography()
    signers, keys = routers
    assert len(keys) == 4
    entries = keys.entries()
    assert [e[0] for e in entries] == [64501, 64502, 64503, 64504]
    # rpki-client JSON, as to_json writes it, back through load.
    (tmp_path / "keys.json").write_text(keys.to_json())
    loaded = RouterKeys.load(tmp_path / "keys.json")
    assert loaded.entries() == entries
    assert pickle.loads(pickle.dumps(keys)).entries() == entries
    assert RouterKeys(entries).entries() == entries
    # A keys folder of AS<n>.pem public keys; the SKI computed from each.
    folder = tmp_path / "folder"
    folder.mkdir()
    for asn, _, spki in entries:
        public = serialization.load_der_public_key(spki)
        (folder / f"AS{asn}.pem").write_bytes(public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    assert RouterKeys.load(str(folder)).entries() == entries
    update = bgpsec.sign("192.0.2.0/24", signers, target_as=64999)
    assert bgpsec.validate(update, RouterKeys.load(folder), local_as=64999)
    with pytest.raises(InputError) as e:
        RouterKeys.load(tmp_path / "nothing.json")
    assert e.value.reason == "io" and "nothing.json" in str(e.value)
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(InputError) as e:
        RouterKeys.load(tmp_path / "bad.json")
    assert e.value.reason == "keys" and "bad.json" in str(e.value)
    # add with the SKI computed, and a wrong SKI length.
    more = RouterKeys()
    more.add(64501, None, entries[0][2])
    assert more.entries() == entries[:1]
    with pytest.raises(InputError):
        more.add(64501, b"\x00", entries[0][2])
    with pytest.raises(InputError) as e:
        RouterKeys.from_rtr(["no-port"])
    assert e.value.reason == "bad-argument"


# --- signing and validation --------------------------------------------------------


def test_verdicts_carry_validate_mrt_reasons(routers):
    signers, keys = routers
    update = bgpsec.sign("192.0.2.0/24", signers[:3], target_as=64999)
    good = bgpsec.validate(update, keys, local_as=64999, peer_as=64503)
    assert good and good.state == "valid" and good.valid
    assert (good.reason, good.suite, good.signatures) == (None, 1, 3)
    assert good.to_dict() == {"state": "valid", "reason": None, "detail": "",
                              "suite": 1, "signatures": 3}
    assert pickle.loads(pickle.dumps(good)) == good
    assert good.check() is good

    def reason(u, k=keys, **kw):
        v = bgpsec.validate(u, k, **{"local_as": 64999, **kw})
        assert not v and v.state == "not-valid" and v.signatures == 0 and v.detail
        return v.reason, v.detail

    # RFC 8205 section 5.2 check 2: the newest segment is not the peer's AS.
    r, detail = reason(update, peer_as=64502)
    assert r == "peer_as" and "check 2" in detail
    with pytest.raises(InvalidError) as e:
        bgpsec.validate(update, keys, local_as=64999, peer_as=64502).check()
    assert (e.value.reason, e.value.exit_code, str(e.value)) == ("peer_as", 1, detail)
    # check 8: the local AS on the path.
    assert reason(update, local_as=64502)[0] == "as_loop"
    # Signed toward 64999, validated by another AS: the signature does not verify.
    assert reason(update, local_as=64998)[0] == "bad_signature"
    # step 2: no key for an (AS, SKI).
    partial = RouterKeys([e for e in keys.entries() if e[0] != 64502])
    r, detail = reason(update, k=partial)
    assert r == "no_key" and "64502" in detail
    # A changed signature octet.
    path = update.bgpsec_path
    block = path.signature_blocks[0]
    newest = block.segments[0]
    sig = bytearray(newest.signature)
    sig[-1] ^= 1
    segments = [Signature(newest.ski, bytes(sig))] + block.segments[1:]
    tampered = update.with_bgpsec_path(BgpsecPath(path.secure_path, [SignatureBlock(1, segments)]))
    r, detail = reason(tampered)
    assert r == "bad_signature" and "64503" in detail
    # An older signature changed: the newer one, which covers it (RFC 8205 Figure 8),
    # no longer verifies either.
    older = block.segments[2]
    sig = bytearray(older.signature)
    sig[-1] ^= 1
    segments = block.segments[:2] + [Signature(older.ski, bytes(sig))]
    tampered = update.with_bgpsec_path(BgpsecPath(path.secure_path, [SignatureBlock(1, segments)]))
    assert reason(tampered)[0] == "bad_signature"
    # A changed pCount (covered by the signatures).
    prepended = [SecurePathSegment(2, 0, 64503)] + path.secure_path[1:]
    assert reason(update.with_bgpsec_path(BgpsecPath(prepended, [block])))[0] == "bad_signature"
    # Only a block of an unsupported (experimental) suite.
    other = BgpsecPath(path.secure_path, [SignatureBlock(0xF7, block.segments)])
    assert reason(update.with_bgpsec_path(other))[0] == "no_supported_suite"
    # An UPDATE with AS_PATH and no BGPsec_PATH.
    plain = Update(attributes=[PathAttribute(0x40, 1, b"\x00"),
                               PathAttribute(0x40, 2, bytes([2, 1, 0, 0, 0xFB, 0xF5])),
                               PathAttribute(0x40, 3, bytes([192, 0, 2, 1]))],
                   nlri=["192.0.2.0/24"])
    assert reason(plain)[0] == "unsigned"
    # The same UPDATE from a 2-octet AS session.
    plain2 = Update(attributes=[PathAttribute(0x40, 1, b"\x00"),
                                PathAttribute(0x40, 2, bytes([2, 1, 0xFB, 0xF5])),
                                PathAttribute(0x40, 3, bytes([192, 0, 2, 1]))],
                    nlri=["192.0.2.0/24"], as_width=2)
    assert reason(plain2)[0] == "two_octet_as"
    # Bytes that are no BGP message at all.
    assert reason(b"\x00" * 10)[0] == "malformed"
    with pytest.raises(TypeError):
        bgpsec.validate("not bytes", keys, local_as=1)  # type: ignore[arg-type]  # the wrong type on purpose


def test_originate_forward_equals_sign(routers):
    signers, keys = routers
    a, b, c = signers[:3]
    update = a.originate("192.0.2.0/24", target_as=b.asn, next_hop="198.51.100.1")
    update = b.forward(update, target_as=c.asn)
    update = c.forward(update, target_as=64999, next_hop="198.51.100.7")
    assert bgpsec.validate(update, keys, local_as=64999, peer_as=c.asn).signatures == 3
    signed = bgpsec.sign("192.0.2.0/24", [a, b, c], target_as=64999)
    assert signed.bgpsec_path.secure_path == update.bgpsec_path.secure_path
    with pytest.raises(InputError) as e:
        a.forward(Update(), target_as=1)
    assert e.value.reason == "sign" and "8205" in str(e.value)
    with pytest.raises(InputError):
        bgpsec.sign("192.0.2.0/24", [], target_as=1)
    with pytest.raises(InputError) as e:
        Signer(1, [SigningKey.generate(), SigningKey.generate()])
    assert e.value.reason == "bad-argument"


def test_experimental_suites_and_two_blocks(tmp_path):
    """Signature_Blocks of hopsig's experimental suites (RFC 8608 section 2.1's
    experimentation range): unsupported by default, validated with experimental=True;
    two blocks, suite 1 and 0xF8, where the first valid one decides (RFC 8205 5.2)."""
    signers, both, keys = [], [], RouterKeys()
    for asn in (65101, 65102):
        rsa = SigningKey.generate("rsa2048-pkcs1-sha256")
        ecdsa = SigningKey.generate(1)
        assert rsa.suite == 0xF8
        path = tmp_path / f"AS{asn}.key"
        path.write_text(rsa.secret_key_file())
        assert SigningKey.from_file(path, suite=0xF8).ski == rsa.ski
        signers.append(Signer(asn, rsa))
        both.append(Signer(asn, [ecdsa, rsa]))
        for k in (rsa, ecdsa):
            keys.add(asn, k.ski, k.public_key())
    update = bgpsec.sign("192.0.2.0/24", signers, target_as=65199)
    assert [b.suite for b in update.bgpsec_path.signature_blocks] == [0xF8]
    assert bgpsec.validate(update, keys, local_as=65199).reason == "no_supported_suite"
    verdict = bgpsec.validate(update, keys, local_as=65199, experimental=True)
    assert verdict and verdict.suite == 0xF8 and verdict.signatures == 2
    two = bgpsec.sign("192.0.2.0/24", both, target_as=65199)
    assert sorted(b.suite for b in two.bgpsec_path.signature_blocks) == [1, 0xF8]
    assert Update.from_bytes(two.to_bytes()).to_bytes() == two.to_bytes()
    assert bgpsec.validate(two, keys, local_as=65199).suite == 1
    # With the suite 1 block broken, the experimental block still makes it valid.
    blocks = two.bgpsec_path.signature_blocks
    broken = [SignatureBlock(b.suite, [Signature(b.segments[0].ski, b"\x30\x00")] + b.segments[1:])
              if b.suite == 1 else b for b in blocks]
    changed = two.with_bgpsec_path(BgpsecPath(two.bgpsec_path.secure_path, broken))
    assert bgpsec.validate(changed, keys, local_as=65199).reason == "bad_signature"
    assert bgpsec.validate(changed, keys, local_as=65199, experimental=True).suite == 0xF8


def test_validate_many_matches_validate(routers):
    signers, keys = routers
    updates = []
    for i in range(40):
        u = bgpsec.sign(f"10.{i}.0.0/16", signers[: 1 + i % 4], target_as=64999)
        updates.append(u if i % 2 else u.to_bytes())
    updates.append(b"garbage")
    one_by_one = [bgpsec.validate(u, keys, local_as=64999) for u in updates]
    assert bgpsec.validate_many(updates, keys, local_as=64999) == one_by_one
    assert bgpsec.validate_many(iter(updates), keys, local_as=64999, threads=1) == one_by_one
    assert sum(map(bool, one_by_one)) == 40
    assert [v.signatures for v in one_by_one[:4]] == [1, 2, 3, 4]
    assert bgpsec.validate_many([], keys, local_as=1) == []


def test_validate_many_batches_keep_each_updates_verdict(routers):
    """validate_many verifies the signatures of many UPDATEs in one batch (chunks of
    up to 256 per thread): a bad signature, a missing key or a wrong target in one
    UPDATE must not change its neighbours' verdicts, at every chunking (1 and 2
    threads, more UPDATEs than one chunk)."""
    signers, keys = routers
    partial = RouterKeys([e for e in keys.entries() if e[0] != 64502])
    rng = random.Random(28)
    updates, expected_keys = [], []
    for i in range(300):
        u = bgpsec.sign(f"10.{i % 250}.{i // 250}.0/24", signers[: 1 + i % 4], target_as=64999)
        kind = rng.randrange(5)
        if kind == 0:
            # One signature octet changed: this UPDATE alone is not valid.
            path = u.bgpsec_path
            block = path.signature_blocks[0]
            seg = block.segments[rng.randrange(len(block.segments))]
            sig = bytearray(seg.signature)
            sig[rng.randrange(8, len(sig))] ^= 1 << rng.randrange(8)
            segments = [Signature(seg.ski, bytes(sig)) if s is seg else s for s in block.segments]
            u = u.with_bgpsec_path(BgpsecPath(path.secure_path, [SignatureBlock(1, segments)]))
        elif kind == 1:
            # Signed toward another AS.
            u = bgpsec.sign(f"10.{i % 250}.{i // 250}.0/24", signers[: 1 + i % 4], target_as=64998)
        updates.append(u.to_bytes() if i % 3 else u)
    updates.insert(17, b"garbage")
    for k in (keys, partial):
        one_by_one = [bgpsec.validate(u, k, local_as=64999) for u in updates]
        assert 0 < sum(map(bool, one_by_one)) < len(updates)
        for threads in (1, 2, 7):
            assert bgpsec.validate_many(updates, k, local_as=64999, threads=threads) == one_by_one
    # AS 64502 signs every path of two hops or more: without its key only the
    # one-hop paths can be valid.
    assert all(v.signatures <= 1 for v in bgpsec.validate_many(updates, partial, local_as=64999))


def test_backend_names_the_verifier():
    """``backend()`` names the suite-1 verifier: ``avx512ifma`` where the processor has
    AVX-512 IFMA (read here from /proc/cpuinfo, independently of hopsig's detection)
    unless HOPSIG_CPU_DISABLE names it, ``cpu`` otherwise; a child process with the
    override says ``cpu`` and validates the same."""
    import subprocess

    name = bgpsec.backend()
    assert name in ("avx512ifma", "cpu")
    flags = set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    except OSError:
        pass
    disabled = os.environ.get("HOPSIG_CPU_DISABLE", "").lower()
    has_ifma = {"avx512f", "avx512ifma"} <= flags
    if has_ifma and "avx512ifma" not in disabled and "all" not in disabled:
        assert name == "avx512ifma"
    elif flags:
        assert name == "cpu"
    child = subprocess.run(
        [sys.executable, "-c", "from hopsig import bgpsec; print(bgpsec.backend())"],
        env={**os.environ, "HOPSIG_CPU_DISABLE": "avx512ifma"},
        capture_output=True, text=True, timeout=120, check=True,
    )
    assert child.stdout.strip() == "cpu"


def test_validate_many_releases_the_gil(routers):
    """A Python thread runs while validate_many works. The switch interval is made
    huge, so the thread cannot preempt the caller: it can only run when the caller
    releases the GIL. It counts while it runs; the count moves during the call only
    if the call released the GIL."""
    signers, keys = routers
    messages = [bgpsec.sign(f"10.{i % 250}.{i // 250}.0/24", signers, target_as=64999).to_bytes()
                for i in range(300)]
    count = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1
            # time.sleep(0) releases the GIL, so the caller gets it back at once
            # when the call returns.
            __import__("time").sleep(0)

    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    try:
        thread = threading.Thread(target=spin)
        thread.start()
        before = count[0]
        verdicts = bgpsec.validate_many(messages * 4, keys, local_as=64999, threads=2)
        during = count[0] - before
    finally:
        stop.set()
        sys.setswitchinterval(old)
    thread.join(timeout=30)
    assert all(verdicts) and len(verdicts) == 1200
    assert during > 0, "no Python thread ran while validate_many worked: the GIL was held"


# --- the independent reference, both directions -----------------------------------


def test_reference_validates_what_hopsig_signs(ref, routers):
    signers, keys = routers
    store = ref.RouterKeyStore(
        ref.router_key_from_spki(asn, spki, ski) for asn, ski, spki in keys.entries()
    )
    for n in range(1, 5):
        for prefix in ("192.0.2.0/24", "2001:db8:ab::/48"):
            message = bgpsec.sign(prefix, signers[:n], target_as=64999).to_bytes()
            ctx = ref.ValidationContext(64999, peer_as=signers[n - 1].asn)
            result = ref.validate_bgpsec_update(message, store, ctx)
            assert result.verdict == ref.VALID, str(result)
            # A changed octet inside the newest signature: both say not valid.
            update = Update.from_bytes(message)
            block = update.bgpsec_path.signature_blocks[0]
            newest = block.segments[0]
            changed = bytearray(newest.signature)
            changed[10] ^= 0x40
            segments = [Signature(newest.ski, bytes(changed))] + block.segments[1:]
            bad = update.with_bgpsec_path(
                BgpsecPath(update.bgpsec_path.secure_path, [SignatureBlock(1, segments)])
            ).to_bytes()
            assert ref.validate_bgpsec_update(bad, store, ctx).verdict != ref.VALID
            assert bgpsec.validate(bad, keys, local_as=64999).reason in (
                "bad_signature", "malformed")


def reference_sign(ref, prefix_len, prefix_octets, afi, hops, target_as):
    """A BGPsec UPDATE built and signed with the reference's Figure 8 octets and
    ``cryptography``'s ECDSA: ``hops`` is [(asn, private key, ski)], origin first."""
    ec, hashes, _ = cryptography()
    prefix = ref.Prefix(prefix_len, prefix_octets)
    secure, sigs = [], []
    for i, (asn, private, ski) in enumerate(hops):
        target = hops[i + 1][0] if i + 1 < len(hops) else target_as
        secure.insert(0, ref.SecurePathSegment(1, 0, asn))
        sigs.insert(0, ref.SignatureSegment(ski, b""))
        block = ref.SignatureBlock(1, sigs)
        path = ref.BgpsecPath(secure, [block])
        octets = ref.build_signature_input(target, path, block, i + 1, afi, 1, prefix)
        sigs[0] = ref.SignatureSegment(ski, private.sign(octets, ec.ECDSA(hashes.SHA256())))
    secure_path = b"".join(s.encode() for s in secure)
    segments = b"".join(s.encode() for s in sigs)
    value = (struct.pack(">H", 2 + len(secure_path)) + secure_path
             + struct.pack(">HB", 3 + len(segments), 1) + segments)
    next_hop = bytes([192, 0, 2, 1]) if afi == 1 else bytes.fromhex("20010db8" + "00" * 11 + "01")
    reach = struct.pack(">HBB", afi, 1, len(next_hop)) + next_hop + b"\x00" \
        + bytes([prefix_len]) + prefix_octets
    attrs = (bytes([0x40, 1, 1, 0])
             + bytes([0x80, 14, len(reach)]) + reach
             + bytes([0x90, 33]) + struct.pack(">H", len(value)) + value)
    body = struct.pack(">H", 0) + struct.pack(">H", len(attrs)) + attrs
    return b"\xff" * 16 + struct.pack(">HB", 19 + len(body), 2) + body


def test_hopsig_validates_what_the_reference_signs(ref):
    ec, _, serialization = cryptography()
    hops, keys = [], RouterKeys()
    for asn in (65001, 65002, 65003):
        private = ec.generate_private_key(ec.SECP256R1())
        spki = private.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        ski = ref.compute_ski(spki)
        hops.append((asn, private, ski))
        keys.add(asn, ski, spki)
    for afi, length, octets, text in [(1, 24, bytes([203, 0, 113]), "203.0.113.0/24"),
                                      (2, 32, bytes.fromhex("20010db8"), "2001:db8::/32")]:
        for n in (1, 3):
            message = reference_sign(ref, length, octets, afi, hops[:n], 65010)
            update = Update.from_bytes(message)
            assert update.to_bytes() == message and update.announced == [text]
            verdict = bgpsec.validate(message, keys, local_as=65010, peer_as=hops[n - 1][0])
            assert verdict and verdict.signatures == n, verdict
            # Signed toward 65010; another AS receiving it finds it not valid.
            assert bgpsec.validate(message, keys, local_as=65011).reason == "bad_signature"


# --- router keys from a live RTR cache (StayRTR) ----------------------------------


def stayrtr_binary():
    """StayRTR: $HOPSIG_STAYRTR, else target/stayrtr/stayrtr (built by .ci/run), else
    PATH; a skip (a failure under CI=true) when there is none."""
    import shutil

    for candidate in (os.environ.get("HOPSIG_STAYRTR"),
                      str(REPO / "target" / "stayrtr" / "stayrtr"),
                      shutil.which("stayrtr")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    message = "skipped: no StayRTR (set HOPSIG_STAYRTR)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_router_keys_from_rtr_cache(tmp_path, routers):
    import base64
    import socket
    import subprocess
    import time

    binary = stayrtr_binary()
    signers, keys = routers
    doc = {
        "metadata": {"buildtime": "2026-01-01T00:00:00Z"},
        "roas": [{"prefix": "192.0.2.0/24", "maxLength": 24, "asn": 64501, "ta": "lab"}],
        "bgpsec_keys": [
            {"asn": asn, "ski": ski.hex().upper(),
             "pubkey": base64.b64encode(spki).decode(), "ta": "lab"}
            for asn, ski, spki in keys.entries()
        ],
    }
    (tmp_path / "rpki.json").write_text(json.dumps(doc))
    port, metrics = free_port(), free_port()
    log = open(tmp_path / "stayrtr.log", "wb")
    child = subprocess.Popen(
        [binary, "-cache", str(tmp_path / "rpki.json"), "-bind", f"127.0.0.1:{port}",
         "-metrics.addr", f"127.0.0.1:{metrics}", "-checktime=false", "-refresh", "60"],
        stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or child.poll() is not None:
                    pytest.fail("stayrtr did not start: "
                                + (tmp_path / "stayrtr.log").read_text())
                time.sleep(0.05)
        fetched = RouterKeys.from_rtr([f"127.0.0.1:{port}"], timeout=30)
        assert fetched.entries() == keys.entries()
        update = bgpsec.sign("192.0.2.0/24", signers, target_as=64999)
        assert bgpsec.validate(update, fetched, local_as=64999)
        with pytest.raises(InputError) as e:
            RouterKeys.from_rtr([f"127.0.0.1:{free_port()}"], timeout=5)
        assert e.value.reason == "rtr" and "127.0.0.1" in str(e.value)
    finally:
        os.kill(child.pid, 9)
        child.wait(timeout=10)
        log.close()


# --- property tests (hypothesis, when installed; the seeded mutations above run always)


def test_property_any_bytes_decode_or_input_error():
    hypothesis = require("hypothesis")
    st = hypothesis.strategies

    @hypothesis.settings(max_examples=300, deadline=None)
    @hypothesis.given(st.binary(max_size=200), st.sampled_from([2, 4]))
    def check(data, width):
        header = b"\xff" * 16 + struct.pack(">HB", 19 + len(data), 2)
        for candidate in (data, header + data):
            try:
                update = Update.from_bytes(candidate, as_width=width)
            except InputError as e:
                assert e.reason == "decode"
            else:
                assert update.to_bytes() == candidate
            try:
                path = BgpsecPath.from_bytes(candidate)
            except InputError as e:
                assert e.reason == "decode"
            else:
                assert path.to_bytes() == candidate

    check()


def test_property_built_paths_round_trip():
    hypothesis = require("hypothesis")
    st = hypothesis.strategies

    segment = st.builds(SecurePathSegment, st.integers(0, 255), st.integers(0, 255),
                        st.integers(0, 2**32 - 1))
    signature = st.builds(Signature, st.binary(min_size=20, max_size=20), st.binary(max_size=80))

    @st.composite
    def paths(draw):
        hops = draw(st.lists(segment, min_size=1, max_size=6))
        suites = draw(st.lists(st.integers(1, 254), min_size=1, max_size=2, unique=True))
        blocks = [SignatureBlock(s, draw(st.lists(signature, min_size=len(hops),
                                                  max_size=len(hops)))) for s in suites]
        return BgpsecPath(hops, blocks)

    @hypothesis.settings(max_examples=200, deadline=None)
    @hypothesis.given(paths())
    def check(path):
        again = BgpsecPath.from_bytes(path.to_bytes())
        assert again == path and again.to_bytes() == path.to_bytes()
        assert pickle.loads(pickle.dumps(path)) == path

    check()
