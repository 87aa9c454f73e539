"""hopsig.schemes: every scheme of the registry from Python, cross-checked against the
independent references of interop/python (bgr_reference.py, bls_reference.py's py_ecc,
ibas_reference.py)."""

import hashlib
import importlib
import os
import pickle
import random
import sys
import threading
import time

import pytest

from hopsig import schemes
from hopsig.errors import InputError, InvalidError

from conftest import require

#: The sequential schemes (key pairs); RSA-3072 ones are slow to generate, so the
#: round trip below takes the 2048-bit ones and one 3072-bit one.
SEQUENTIAL = [s["id"] for s in schemes.schemes() if s["kind"] == "sequential"]


def reference(interop, name):
    """An interop/python reference module, imported from its file."""
    if str(interop) not in sys.path:
        sys.path.insert(0, str(interop))
    return importlib.import_module(name)


@pytest.fixture(scope="module")
def keys():
    """One key pair per sequential scheme (made once: RSA key generation is slow)."""
    return {sid: schemes.keygen(sid) for sid in SEQUENTIAL}


def test_the_registry_is_listed_with_codes_and_kinds():
    table = schemes.schemes()
    ids = schemes.ids()
    assert ids[0] == "bgr-rsa2048" and "ibas-bls12381" in ids
    assert len(set(ids)) == len(ids) == len(table)
    by_id = {s["id"]: s for s in table}
    assert by_id["ibas-bls12381"]["kind"] == "identity-based"
    assert by_id["ibas-bls12381"]["code"] == 0x21
    assert by_id["bls12381-bgls"]["free"] and not by_id["bgr-rsa2048"]["free"]
    assert {s["kind"] for s in table} == {"sequential", "identity-based"}
    assert set(SEQUENTIAL) == set(ids) - {"ibas-bls12381"}


@pytest.mark.parametrize("sid", SEQUENTIAL)
def test_each_sequential_scheme_signs_three_hops_and_verifies(keys, sid):
    """Three signers (two keys of the scheme plus the same key again), each signing only
    with its own key and the aggregate so far; any change makes it invalid."""
    k1, k2 = keys[sid], schemes.keygen(sid) if not sid.endswith("3072") else keys[sid]
    signers = [(k1, b"hop 1"), (k2, b"hop 2"), (k1, b"hop 3")]
    agg = None
    for key, msg in signers:
        agg = schemes.sign(key, msg, agg)
    pairs = [(k.public_key(), m) for k, m in signers]
    assert schemes.verify(pairs, agg)
    info = schemes.inspect(agg)
    assert info["scheme"] == sid and info["signers"] == 3 and info["encoded_bytes"] == len(agg)
    # Another message, another order, one signer short: not valid.
    assert not schemes.verify(pairs[:2] + [(pairs[2][0], b"hop 4")], agg)
    assert not schemes.verify(pairs[:2], agg)
    # Order matters but for BGLS, whose aggregate is a sum (draft-05 §2.8).
    if k1 is not k2:
        swapped = schemes.verify([pairs[1], pairs[0], pairs[2]], agg)
        assert swapped == (sid == "bls12381-bgls")


@pytest.mark.parametrize("sid", SEQUENTIAL)
def test_keys_round_trip_through_their_key_files_and_pickle(keys, sid):
    key = keys[sid]
    again = schemes.SigningKey.from_bytes(key.to_bytes())
    assert again.scheme == sid and again.to_bytes() == key.to_bytes()
    pub = key.public_key()
    assert schemes.VerifyingKey.from_bytes(pub.to_bytes()) == pub
    assert pickle.loads(pickle.dumps(pub)) == pub
    assert pickle.loads(pickle.dumps(key)).to_bytes() == key.to_bytes()
    # A key signed with after a round trip verifies under the original public key.
    agg = schemes.sign(again, b"m")
    assert schemes.verify([(pub, b"m")], agg)


def test_errors_carry_reasons_and_exit_classes(keys):
    with pytest.raises(InputError) as e:
        schemes.keygen("no-such-scheme")
    assert e.value.reason == "unknown-scheme" and e.value.exit_code == 2
    with pytest.raises(InputError) as e:
        schemes.keygen("ibas-bls12381")
    assert e.value.reason == "identity-based"
    with pytest.raises(InputError) as e:
        schemes.SigningKey.from_bytes(b"not a key file")
    assert e.value.reason == "key-file"
    k = keys["ecdsa-p256-concat"]
    with pytest.raises(InputError) as e:
        schemes.SigningKey.from_bytes(k.public_key().to_bytes())
    assert e.value.reason == "wrong-key-kind"
    agg = schemes.sign(k, b"m")
    with pytest.raises(InputError) as e:
        schemes.verify([(keys["rsa2048-concat"].public_key(), b"m")], agg)
    assert e.value.reason == "aggregate-for-other-scheme"
    with pytest.raises(InputError) as e:
        schemes.sign(keys["rsa2048-concat"], b"m", agg)
    assert e.value.reason == "aggregate-for-other-scheme"
    with pytest.raises(InputError) as e:
        schemes.aggregate([agg])
    assert e.value.reason == "not-free"
    with pytest.raises(TypeError):
        schemes.sign("not a key", b"m")  # type: ignore[arg-type]  # the wrong type on purpose
    assert issubclass(InvalidError, Exception)


def test_malformed_aggregates_are_input_errors_never_crashes(keys):
    """Seeded truncations and byte flips of valid aggregates of every scheme: verify
    answers True/False or raises InputError (reason "decode" for a cut), nothing else."""
    rng = random.Random(27)
    for sid in ("bgr-rsa2048", "bgr-rand-rsa2048", "rsa2048-concat", "ecdsa-p256-concat",
                "bls12381-bgls", "ecdsa-k163"):
        key = keys[sid]
        agg = schemes.sign(key, b"m2", schemes.sign(key, b"m1"))
        pairs = [(key.public_key(), b"m1"), (key.public_key(), b"m2")]
        for cut in sorted(rng.sample(range(len(agg)), 8)):
            with pytest.raises(InputError) as e:
                schemes.verify(pairs, agg[:cut])
            assert e.value.reason == "decode", (sid, cut)
        flipped_valid = 0
        for _ in range(24):
            bad = bytearray(agg)
            bad[rng.randrange(len(bad))] ^= 1 << rng.randrange(8)
            try:
                flipped_valid += schemes.verify(pairs, bytes(bad))
            except InputError:
                pass
        assert flipped_valid == 0, sid


def test_bgls_aggregates_freely_and_matches_py_ecc(keys, interop):
    """Three BGLS signatures made apart, merged in one call; py_ecc (an independent IETF
    BLS implementation, the one bls_reference.py uses) verifies what hopsig made."""
    require("py_ecc")
    from py_ecc.bls import G2Basic

    pla = reference(interop, "pla_reference")
    ks = [keys["bls12381-bgls"], schemes.keygen("bls12381-bgls"), schemes.keygen("bls12381-bgls")]
    msgs = [b"a", b"b", b"c"]
    parts = [schemes.sign(k, m) for k, m in zip(ks, msgs)]
    agg = schemes.aggregate(parts)
    pairs = [(k.public_key(), m) for k, m in zip(ks, msgs)]
    assert schemes.verify(pairs, agg)
    assert schemes.inspect(agg)["signers"] == 3
    # The same aggregate sequentially: the sum does not depend on the order of adding.
    seq = schemes.sign(ks[2], msgs[2], schemes.sign(ks[1], msgs[1], parts[0]))
    assert seq == agg

    def block(text, kind):
        _, _, blocks = pla.parse_key_file(text)
        return dict(blocks)[f"HOPSIG BLS {kind} KEY"]

    pks = [block(k.public_key().to_bytes(), "PUBLIC") for k in ks]
    sks = [int.from_bytes(block(k.to_bytes(), "SECRET"), "big") for k in ks]
    signature = agg[7:]  # the 7-byte aggregate header of docs/spec/aggregate.md
    assert len(signature) == 96
    assert G2Basic.AggregateVerify(pks, msgs, signature)
    assert not G2Basic.AggregateVerify(pks, [b"a", b"b", b"x"], signature)
    # py_ecc's own signatures, aggregated by py_ecc, verify in hopsig.
    theirs = G2Basic.Aggregate([G2Basic.Sign(sk, m) for sk, m in zip(sks, msgs)])
    assert theirs == signature
    assert schemes.verify(pairs, agg[:7] + theirs)


def bgr_public(pla, key):
    """(N, e, fp) of a BGR public key file, read with `cryptography`."""
    from cryptography.hazmat.primitives.serialization import load_der_public_key

    _, _, blocks = pla.parse_key_file(key.public_key().to_bytes())
    der = dict(blocks)["PUBLIC KEY"]
    numbers = load_der_public_key(der).public_numbers()
    return numbers.n, numbers.e, hashlib.sha256(der).digest()


@pytest.mark.parametrize("sid", ["bgr-rsa2048", "bgr-rand-rsa2048"])
def test_bgr_aggregates_verify_in_the_independent_reference(keys, interop, sid):
    """bgr_reference.py (written from docs/spec/bgr.md alone) verifies hopsig's
    three-hop aggregate and rejects it for another message; for the random-r variant
    it re-signs the chain with the aggregate's r_i and gets the same bytes."""
    require("cryptography")
    from cryptography.hazmat.primitives.serialization import load_der_private_key

    bgr = reference(interop, "bgr_reference")
    pla = reference(interop, "pla_reference")
    ks = [keys[sid], schemes.keygen(sid), keys[sid]]
    msgs = [b"first", b"second", b"third"]
    agg = None
    for k, m in zip(ks, msgs):
        agg = schemes.sign(k, m, agg)
    ps = bgr.Params(sid)
    pubs = [bgr_public(pla, k) for k in ks]
    decoded = bgr.decode(ps, agg)
    assert bgr.verify(ps, pubs, msgs, decoded)
    assert not bgr.verify(ps, pubs, [b"first", b"second", b"other"], decoded)
    if ps.random:
        state = None
        for i, (k, (n, _e, fp), m) in enumerate(zip(ks, pubs, msgs)):
            _, _, blocks = pla.parse_key_file(k.to_bytes())
            der = next(v for label, v in blocks if label == "PRIVATE KEY")
            d = load_der_private_key(der, None).private_numbers().d
            state = bgr.sign(ps, n, d, fp, decoded["r"][i], m, state)
        assert bgr.encode(ps, state[1], state[0], state[2], state[3]) == agg


def ibas_user_points(ibas_ref, pla, key):
    """(ID, d0, d1) of a user key file, read with the reference's decoders."""
    _, _, blocks = pla.parse_key_file(key.to_bytes())
    b = dict(blocks)
    secret = b["HOPSIG IBAS USER KEY"]
    return (b["HOPSIG IBAS IDENTITY"], ibas_ref.dec_G1(secret[:48]), ibas_ref.dec_G1(secret[48:]))


def test_ibas_pkg_sign_countersign_aggregate_and_journal():
    pkg = schemes.Pkg.setup()
    alice, gov = pkg.extract("/wonderland/Alice"), pkg.extract("/moderators/Government")
    assert alice.identity == "/wonderland/Alice" and alice.params == pkg.params
    first = schemes.sign(alice, b"m1")
    both = schemes.sign(gov, b"m2", first)
    pairs = [("/wonderland/Alice", b"m1"), ("/moderators/Government", b"m2")]
    assert schemes.verify(pairs, both, params=pkg.params)
    assert schemes.verify(pairs[::-1], both, params=pkg.params)  # a sum: any order
    assert not schemes.verify([pairs[0], ("/moderators/Government", b"m3")], both,
                              params=pkg.params)
    assert not schemes.verify(pairs, both, params=schemes.Pkg.setup().params)
    info = schemes.inspect(both)
    assert info["scheme"] == "ibas-bls12381" and info["signers"] == 2
    assert info["w"] == schemes.inspect(first)["w"]
    # Signed apart under the w a coordinator handed out, then aggregated (004 §2.3).
    w = info["w"]
    carol, dave = pkg.extract("/c"), pkg.extract("/d")
    apart = schemes.aggregate([first, schemes.sign(carol, b"m3", w=w),
                               schemes.sign(dave, b"m4", w=w)])
    assert schemes.inspect(apart)["signers"] == 3
    trio = [("/wonderland/Alice", b"m1"), ("/c", b"m3"), ("/d", b"m4")]
    assert schemes.verify(trio, apart, params=pkg.params)
    with pytest.raises(InputError) as e:
        schemes.aggregate([first, schemes.sign(carol, b"m5")])
    assert e.value.reason == "mismatch"
    # The key's journal refuses a second message under one w (forgery otherwise), and
    # allows the same message again (deterministic r: the same signature).
    with pytest.raises(InputError) as e:
        schemes.sign(gov, b"another", first)
    assert e.value.reason == "reused-w"
    assert schemes.sign(gov, b"m2", first) == both
    # Keys, parameters and the PKG round-trip through their files and pickle.
    assert schemes.PublicParams.from_bytes(pkg.params.to_bytes()) == pkg.params
    assert pickle.loads(pickle.dumps(pkg.params)) == pkg.params
    again = schemes.UserKey.from_bytes(alice.to_bytes())
    assert again.identity == alice.identity
    assert pickle.loads(pickle.dumps(pkg)).params == pkg.params
    assert schemes.Pkg.from_bytes(pkg.to_bytes()).extract("/x").to_bytes() == \
        pkg.extract("/x").to_bytes()
    with pytest.raises(InputError) as e:
        pkg.extract("")
    assert e.value.reason == "identity-length"
    with pytest.raises(InputError) as e:
        schemes.verify(pairs, both)  # identities without params=
    assert e.value.reason == "bad-argument"


def test_ibas_file_journal_is_shared_by_copies_of_a_key(tmp_path):
    """A journal file outlives the object: a second copy of the key (another process,
    a pickled key) that uses it is refused a second message under one w."""
    pkg = schemes.Pkg.setup()
    alice = pkg.extract("/a")
    journal = tmp_path / "alice.journal"
    first = schemes.sign(pkg.extract("/b"), b"m0")
    schemes.sign(alice, b"m1", first, journal=journal)
    copy = pickle.loads(pickle.dumps(alice))
    with pytest.raises(InputError) as e:
        schemes.sign(copy, b"m2", first, journal=journal)
    assert e.value.reason == "reused-w"
    with pytest.raises(InputError) as e:
        schemes.sign(schemes.keygen("ecdsa-k163"), b"m", journal=journal)
    assert e.value.reason == "bad-argument"


def test_ibas_matches_the_independent_reference(interop):
    """ibas_reference.py (written from docs/spec/ibas.md alone, on py_ecc): it verifies
    hopsig's aggregates, signs the same (key, w, message) to the same bytes (r is derived
    deterministically), and its countersignature verifies in hopsig."""
    require("py_ecc")
    ref = reference(interop, "ibas_reference")
    pla = reference(interop, "pla_reference")
    pkg = schemes.Pkg.setup()
    alice, gov = pkg.extract("/wonderland/Alice"), pkg.extract("/moderators/Government")
    Q = ref.dec_G2(pkg.params.q)
    first = schemes.sign(alice, b"m1")
    assert ref.verify(Q, first, [(b"/wonderland/Alice", b"m1")])[0] == "valid"
    assert ref.verify(Q, first, [(b"/wonderland/Alice", b"m2")])[0] == "invalid"
    a_id, a_d0, a_d1 = ibas_user_points(ref, pla, alice)
    w = schemes.inspect(first)["w"]
    assert ref.sign_first(a_id, a_d0, a_d1, w, b"m1") == first
    g_id, g_d0, g_d1 = ibas_user_points(ref, pla, gov)
    theirs = ref.sign_next(g_id, g_d0, g_d1, b"m2", first)
    pairs = [("/wonderland/Alice", b"m1"), ("/moderators/Government", b"m2")]
    assert schemes.verify(pairs, theirs, params=pkg.params)
    assert schemes.sign(gov, b"m2", first) == theirs


def test_verify_many_matches_verify_and_releases_the_gil(keys):
    """verify_many gives verify's verdict per item (a malformed item is False), and a
    Python thread keeps running while it verifies."""
    key = keys["ecdsa-p256-concat"]
    pub = key.public_key()
    items = []
    for i in range(200):
        msg = b"m%d" % i
        agg = schemes.sign(key, msg)
        items.append(([(pub, msg)], agg if i % 3 else agg[:-1] if i % 2 else agg + b""))
    items[5] = ([(pub, b"other")], items[5][1])
    expected = []
    for pairs, agg in items:
        try:
            expected.append(schemes.verify(pairs, agg))
        except InputError:
            expected.append(False)
    assert schemes.verify_many(items, threads=2) == expected
    assert schemes.verify_many(items) == expected
    assert True in expected and False in expected
    pkg = schemes.Pkg.setup()
    agg = schemes.sign(pkg.extract("/a"), b"x")
    assert schemes.verify_many([([("/a", b"x")], agg), ([("/a", b"y")], agg)],
                               params=pkg.params) == [True, False]

    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    bls = keys["bls12381-bgls"]
    big = [([(bls.public_key(), b"m")], schemes.sign(bls, b"m"))] * 300
    t = threading.Thread(target=ticker)
    t.start()
    try:
        before = len(ticks)
        assert all(schemes.verify_many(big, threads=1))
        during = len(ticks) - before
    finally:
        stop.set()
        t.join()
    # 300 pairing checks take far longer than one tick: a thread blocked by the GIL
    # would not have ticked at all.
    assert during > 0


@pytest.mark.parametrize("sid", ["bgr-rsa2048", "ecdsa-p256-concat", "bls12381-bgls"])
def test_files_interoperate_with_the_cli(keys, hopsig_cli, tmp_path, sid):
    """Keys and aggregates are the CLI's files: `hopsig verify` accepts what Python
    signed (exit 0) and rejects it for another message (exit 1); `hopsig sign` adds a
    hop with a Python-written key file, and Python verifies the result."""
    import subprocess

    hopsig = hopsig_cli
    key = keys[sid]
    (tmp_path / "k.key").write_bytes(key.to_bytes())
    (tmp_path / "k.pub").write_bytes(key.public_key().to_bytes())
    (tmp_path / "m1").write_bytes(b"one")
    (tmp_path / "m2").write_bytes(b"two")
    (tmp_path / "agg1").write_bytes(schemes.sign(key, b"one"))
    run = [str(hopsig), "verify", "--scheme", sid, "--pub", str(tmp_path / "k.pub"),
           "--msg", str(tmp_path / "m1"), "--agg", str(tmp_path / "agg1")]
    assert subprocess.run(run, capture_output=True).returncode == 0
    run[run.index(str(tmp_path / "m1"))] = str(tmp_path / "m2")
    assert subprocess.run(run, capture_output=True).returncode == 1
    subprocess.run([str(hopsig), "sign", "--key", str(tmp_path / "k.key"), "--msg",
                    str(tmp_path / "m2"), "--agg", str(tmp_path / "agg1"), "--out",
                    str(tmp_path / "agg2")], check=True, capture_output=True)
    pub = schemes.VerifyingKey.from_bytes((tmp_path / "k.pub").read_bytes())
    agg2 = (tmp_path / "agg2").read_bytes()
    assert schemes.verify([(pub, b"one"), (pub, b"two")], agg2)
    assert schemes.inspect(agg2)["signers"] == 2
