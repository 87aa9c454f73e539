#!/usr/bin/env python3
"""Generate test vectors for ibas_reference.py with the reference implementation itself.

Writes, into the folder given (default: ./vectors):

  pkg-a.json            a PKG with a fixed secret, four identities, the publisher →
                        moderator → third-signer flow, and verify items that must come
                        out valid / invalid / malformed (tampered headers, encodings,
                        points, messages, identities, counts, the w-reuse forgery).
                        Every item must pass: `ibas_reference.py pkg-a.json` exits 0.
  other-pkg.json        params of a second PKG; PKG A's aggregates must be invalid there.
  expect-fail.json      items that are wrong on purpose (bad keys, wrong expectations,
                        wrong bindings, wrong s): every item but "params" must FAIL.
  expect-fail-sign.json sign items that must FAIL (a valid signature with a random r, n
                        not incremented, w mismatch, malformed previous, previous n = 4096)
                        next to two sound keys that must pass.

These are self-consistency vectors: they show the checker's logic works, and they can
be handed to the other implementation (which must pass pkg-a.json and other-pkg.json),
but on their own they do not prove the reference matches hopsig.
Items carry a "comment" field; ibas_reference.py ignores it.
"""

import hashlib
import json
import os
import sys

import ibas_reference as I  # noqa: E402  (same folder)
from py_ecc.fields import optimized_bls12_381_FQ as FQ, optimized_bls12_381_FQ2 as FQ2


def det_scalar(label: str) -> int:
    """A fixed scalar in [1, r-1], as hopsig draws s: 48 bytes reduced mod r (here not random)."""
    x = I.OS2IP(hashlib.sha512(label.encode()).digest()[:48]) % I.r
    assert x != 0
    return x


def det_bytes(label: str, n: int) -> bytes:
    return hashlib.sha256(label.encode()).digest()[:n]


def hx(b: bytes) -> str:
    return b.hex()


def patch(data: bytes, offset: int, new: bytes) -> bytes:
    return data[:offset] + new + data[offset + len(new):]


def main(outdir: str):
    os.makedirs(outdir, exist_ok=True)

    # --- PKG A and its users (ibas.md Setup and extraction) ---
    s = det_scalar("ibas-ref PKG A")
    Q = I.setup_Q(s)
    Q_bytes = I.enc_G2(Q)
    ids = {
        "pub": "/publishers/Alice".encode(),
        "mod": "/moderators/Government".encode(),
        "third": "/moderators/Éditeur-ü".encode(),  # non-ASCII: UTF-8 bytes, no normalization
        "long": ("/" + "n" * 1023).encode(),  # exactly 1024 bytes: I2OSP(1024, 2) = 04 00
    }
    keys = {k: I.extract(s, ID) for k, ID in ids.items()}
    key_index = {k: i for i, k in enumerate(ids)}
    keys_json = [
        {"identity": ID.decode(), "user_key": hx(I.enc_G1(keys[k][0]) + I.enc_G1(keys[k][1]))}
        for k, ID in ids.items()
    ]

    w = det_bytes("ibas-ref w1", 16)
    m_pub = b"/news/2024/article-17 content bytes\x00\xff"
    m_mod = b"approved by moderator"
    m_third = b""  # an empty message is allowed ("m is the message, all its bytes")

    def sign_first(k, w_, m):
        return I.sign_first(ids[k], *keys[k], w_, m)

    def sign_next(k, m, prev):
        return I.sign_next(ids[k], *keys[k], m, prev)

    A1 = sign_first("pub", w, m_pub)
    A2 = sign_next("mod", m_mod, A1)
    A3 = sign_next("third", m_third, A2)
    A1_long = sign_first("long", det_bytes("ibas-ref w2", 16), m_pub)
    # A signer given a previous aggregate whose header says n = 4095 outputs n = 4096.
    A1_n4095 = patch(A1, 5, I.I2OSP(4095, 2))
    A_n4096 = sign_next("mod", m_mod, A1_n4095)

    sign = [
        {"key": key_index["pub"], "message": hx(m_pub), "w": hx(w), "previous": None,
         "aggregate": hx(A1), "comment": "publisher, first signer"},
        {"key": key_index["mod"], "message": hx(m_mod), "w": hx(w), "previous": hx(A1),
         "aggregate": hx(A2), "comment": "moderator, next signer"},
        {"key": key_index["third"], "message": hx(m_third), "w": hx(w), "previous": hx(A2),
         "aggregate": hx(A3), "comment": "third signer, empty message"},
        {"key": key_index["pub"], "message": hx(m_pub), "w": hx(w), "previous": None,
         "aggregate": hx(A1), "comment": "same key, w, m again: identical bytes (deterministic r)"},
        {"key": key_index["long"], "message": hx(m_pub), "w": hx(det_bytes("ibas-ref w2", 16)),
         "previous": None, "aggregate": hx(A1_long), "comment": "1024-byte identity"},
        {"key": key_index["mod"], "message": hx(m_mod), "w": hx(w), "previous": hx(A1_n4095),
         "aggregate": hx(A_n4096), "comment": "previous n = 4095 -> n = 4096"},
    ]

    P_pub, P_mod, P_third = ((ids["pub"], m_pub), (ids["mod"], m_mod), (ids["third"], m_third))

    def signers(*pairs):
        return [{"identity": ID.decode(), "message": hx(m)} for ID, m in pairs]

    verify = []

    def V(agg, pairs, expected, comment):
        verdict, reason = I.verify(Q, agg, pairs)
        assert verdict == expected, (comment, verdict, reason)
        verify.append({"signers": signers(*pairs), "aggregate": hx(agg), "expected": expected,
                       "comment": comment})

    # valid
    V(A1, [P_pub], "valid", "publisher alone")
    V(A2, [P_pub, P_mod], "valid", "publisher -> moderator")
    V(A2, [P_mod, P_pub], "valid", "list order does not matter")
    V(A3, [P_third, P_pub, P_mod], "valid", "three signers, empty message")
    V(A1_long, [(ids["long"], m_pub)], "valid", "1024-byte identity")
    # Aggregation of individual signatures that share w (ibas.md Signing, Aggregation).
    S1, T1 = I.individual_signature(ids["pub"], *keys["pub"], w, m_pub)
    S2, T2 = I.individual_signature(ids["mod"], *keys["mod"], w, m_mod)
    A_agg = I.encode_aggregate(2, w, I.add(S1, S2), I.add(T1, T2))
    assert A_agg == A2
    # w-reuse forgery (ibas.md Signing): two signatures of one signer under one w.
    m_a, m_b, m_star = b"message one", b"message two", b"forged message"
    Sa, Ta = I.individual_signature(ids["pub"], *keys["pub"], w, m_a)
    Sb, Tb = I.individual_signature(ids["pub"], *keys["pub"], w, m_b)
    ca, cb, cs = (I.H3(m, ids["pub"], w) for m in (m_a, m_b, m_star))
    lam = (cs - cb) * pow(ca - cb, -1, I.r) % I.r
    S_star = I.add(I.multiply(Sa, lam), I.multiply(Sb, (1 - lam) % I.r))
    T_star = I.add(I.multiply(Ta, lam), I.multiply(Tb, (1 - lam) % I.r))
    V(I.encode_aggregate(1, w, S_star, T_star), [(ids["pub"], m_star)], "valid",
      "w-reuse forgery: why a signer must never sign two messages under one w")

    # invalid: decodes, fails verification
    V(A2, [P_pub], "invalid", "n = 2, one pair")
    V(A1, [P_pub, P_mod], "invalid", "n = 1, two pairs")
    V(A2, [(ids["pub"], m_mod), (ids["mod"], m_pub)], "invalid", "messages swapped")
    V(A2, [P_pub, (ids["mod"], m_mod + b"!")], "invalid", "moderator message changed")
    V(A2, [P_pub, (ids["third"], m_mod)], "invalid", "wrong identity")
    V(A1, [("/publishers/alice".encode(), m_pub)], "invalid", "identity differs in case")
    Sx, Tx = I.individual_signature(ids["pub"], *keys["pub"], w, m_b)
    A_rep = I.encode_aggregate(2, w, I.add(Sa, Sx), I.add(Ta, Tx))
    V(A_rep, [(ids["pub"], m_a), (ids["pub"], m_b)], "invalid",
      "repeated identity (the pairing equation itself holds)")
    V(patch(A2, 5, I.I2OSP(3, 2)), [P_pub, P_mod, P_third], "invalid", "header n = 3 on a 2-signer sum")
    V(patch(A2, 7, det_bytes("other w", 16)), [P_pub, P_mod], "invalid", "w replaced")
    V(patch(A2, 23, bytes([A2[23] ^ 0x20])), [P_pub, P_mod], "invalid", "S negated (sign flag flipped)")
    V(patch(A2, 71, bytes([A2[71] ^ 0x20])), [P_pub, P_mod], "invalid", "T negated (sign flag flipped)")
    V(patch(A2, 23, A1[23:71]), [P_pub, P_mod], "invalid", "S of the 1-signer aggregate")
    V(patch(A2, 71, I.enc_G2(I.P)), [P_pub, P_mod], "invalid", "T replaced by P")
    V(patch(A1, 23, A2[23:71]), [P_pub], "invalid", "S of the 2-signer aggregate")

    # malformed: does not decode (header, length, encodings, subgroup, infinity)
    g1_off = I.enc_G1(I.map_to_curve_G1(FQ(12345)))  # on E(Fp), outside G1
    g2_off = I.enc_G2(I.map_to_curve_G2(FQ2([5, 7])))  # on E'(Fp2), outside G2
    x = 0
    while pow((x**3 + 4) % I.p, (I.p - 1) // 2, I.p) == 1:
        x += 1
    g1_nocurve = I.I2OSP(x | (1 << 383), 48)
    two = [P_pub, P_mod]
    for agg, comment in [
        (patch(A2, 0, b"HT"), "wrong magic"),
        (patch(A2, 2, b"\x02"), "format version 2"),
        (patch(A2, 3, b"\x20\x00"), "BGLS code 0x20 / parameter 0"),
        (patch(A2, 3, b"\x12"), "code 0x12 (bgr-rand) with parameter 16"),
        (patch(A2, 4, b"\x00"), "parameter 0"),
        (patch(A2, 4, b"\x14"), "parameter 20"),
        (patch(A2, 5, b"\x00\x00"), "n = 0"),
        (patch(A2, 5, I.I2OSP(4097, 2)), "n = 4097"),
        (patch(A2, 5, b"\xff\xff"), "n = 65535"),
        (A2[:-1], "one byte short"),
        (A2[:7], "header only"),
        (A2[:5], "short header"),
        (b"", "empty"),
        (A2 + b"\x00", "one trailing byte"),
        (A2 + A2, "two aggregates concatenated"),
        (patch(A2, 23, b"\xc0" + bytes(47)), "S at infinity"),
        (patch(A2, 71, b"\xc0" + bytes(95)), "T at infinity"),
        (patch(A2, 23, bytes([A2[23] & 0x7F])), "S compression flag cleared"),
        (patch(A2, 71, bytes([A2[71] & 0x7F])), "T compression flag cleared"),
        (patch(A2, 23, bytes([A2[23] | 0x40])), "S infinity flag set, x != 0"),
        (patch(A2, 23, b"\xe0" + bytes(47)), "S infinity with sign flag"),
        (patch(A2, 23, I.I2OSP(I.p | (1 << 383), 48)), "S x = p"),
        (patch(A2, 71, I.I2OSP(I.p | (1 << 383), 48)), "T x.c1 = p"),
        (patch(A2, 119, bytes([A2[119] | 0x80])), "T flag bit in the c0 half"),
        (patch(A2, 23, g1_nocurve), "S x has no point on the curve"),
        (patch(A2, 23, g1_off), "S on the curve, outside the subgroup"),
        (patch(A2, 71, g2_off), "T on the twist, outside the subgroup"),
        (patch(A2, 23, A2[71:119]), "S replaced by T's first 48 bytes"),
    ]:
        V(agg, two, "malformed", comment)

    journal = [
        {"params": hx(Q_bytes), "identity": ID.decode(), "binding": hx(I.journal_binding(Q_bytes, ID)),
         "comment": f"K for {k}"}
        for k, ID in ids.items()
    ]

    doc_a = {"params": hx(Q_bytes), "pkg_secret": hx(I.I2OSP(s, 32)), "keys": keys_json,
             "sign": sign, "verify": verify, "journal_binding": journal}

    # --- PKG B: PKG A's aggregates are invalid under B's Q ---
    s_b = det_scalar("ibas-ref PKG B")
    Q_b = I.setup_Q(s_b)
    doc_b = {"params": hx(I.enc_G2(Q_b)), "pkg_secret": hx(I.I2OSP(s_b, 32)),
             "keys": [{"identity": ids["pub"].decode(),
                       "user_key": hx(b"".join(I.enc_G1(d) for d in I.extract(s_b, ids["pub"])))}],
             "verify": [
                 {"signers": signers(P_pub), "aggregate": hx(A1), "expected": "invalid",
                  "comment": "aggregate made under PKG A"},
                 {"signers": signers(P_pub, P_mod), "aggregate": hx(A2), "expected": "invalid",
                  "comment": "aggregate made under PKG A"},
             ]}
    assert I.verify(Q_b, A1, [P_pub])[0] == "invalid"

    # --- Items that must FAIL ---
    d0, d1 = keys["pub"]
    rand_r = det_scalar("not the derived r")
    S_r = I.add(I.add(I.multiply(I.H2(w), rand_r), d0), I.multiply(d1, I.H3(m_pub, ids["pub"], w)))
    A1_random_r = I.encode_aggregate(1, w, S_r, I.multiply(I.P, rand_r))
    assert I.verify(Q, A1_random_r, [P_pub])[0] == "valid"  # a valid signature, yet not hopsig's
    K_pub = I.journal_binding(Q_bytes, ids["pub"])
    doc_fail = {
        "params": hx(Q_bytes),
        "pkg_secret": hx(I.I2OSP(s + 1, 32)),  # FAIL: Q != (s+1)·P
        "keys": [
            {"identity": ids["pub"].decode(),
             "user_key": hx(I.enc_G1(d1) + I.enc_G1(d0)), "comment": "d0, d1 swapped"},
            {"identity": ids["mod"].decode(),
             "user_key": keys_json[0]["user_key"], "comment": "key of another identity"},
            {"identity": ids["pub"].decode(),
             "user_key": doc_b["keys"][0]["user_key"], "comment": "key from PKG B"},
            {"identity": ids["pub"].decode(),
             "user_key": hx(I.enc_G1(d0) + b"\xc0" + bytes(47)), "comment": "d1 at infinity"},
            {"identity": "", "user_key": keys_json[0]["user_key"], "comment": "empty identity"},
        ],
        "sign": [
            {"key": 0, "message": hx(m_pub), "w": hx(w), "previous": None, "aggregate": hx(A1),
             "comment": "keys[0] is swapped: reference still signs with it, bytes differ"},
            {"key": 9, "message": hx(m_pub), "w": hx(w), "previous": None, "aggregate": hx(A1),
             "comment": "no such key"},
        ],
        "verify": [
            {"signers": signers(P_pub), "aggregate": hx(A1), "expected": "invalid",
             "comment": "wrong expectation (it is valid)"},
            {"signers": signers(P_pub), "aggregate": hx(A1[:-1]), "expected": "invalid",
             "comment": "wrong expectation (it is malformed)"},
            {"signers": signers(P_pub, P_mod), "aggregate": hx(A2), "expected": "malformed",
             "comment": "wrong expectation (it is valid)"},
            {"signers": signers(P_pub), "aggregate": hx(A1), "expected": "ok",
             "comment": "not a verdict"},
        ],
        "journal_binding": [
            {"params": hx(Q_bytes), "identity": ids["mod"].decode(), "binding": hx(K_pub),
             "comment": "K of another identity"},
            {"params": hx(Q_bytes), "identity": ids["pub"].decode(),
             "binding": hx(hashlib.sha256(I.JOURNAL_TAG + Q_bytes + ids["pub"]).digest()),
             "comment": "K without the length prefix"},
        ],
    }
    # A second file for the sign-side failures that need a sound key table.
    doc_fail_sign = {
        "params": hx(Q_bytes),
        "keys": keys_json[:2],
        "sign": [
            {"key": 0, "message": hx(m_pub), "w": hx(w), "previous": None,
             "aggregate": hx(A1_random_r), "comment": "valid signature with a random r"},
            {"key": 1, "message": hx(m_mod), "w": hx(w), "previous": hx(A1),
             "aggregate": hx(A2[:5] + b"\x00\x01" + A2[7:]), "comment": "header n not incremented"},
            {"key": 1, "message": hx(m_mod), "w": hx(det_bytes("other w", 16)), "previous": hx(A1),
             "aggregate": hx(A2), "comment": "w differs from previous's w"},
            {"key": 1, "message": hx(m_mod), "w": hx(w), "previous": hx(A1[:-1]),
             "aggregate": hx(A2), "comment": "previous is malformed"},
            {"key": 1, "message": hx(m_mod), "w": hx(w), "previous": hx(patch(A1, 5, I.I2OSP(4096, 2))),
             "aggregate": hx(A2), "comment": "previous n = 4096: no n + 1"},
        ],
    }

    for name, doc in (("pkg-a.json", doc_a), ("other-pkg.json", doc_b),
                      ("expect-fail.json", doc_fail), ("expect-fail-sign.json", doc_fail_sign)):
        with open(os.path.join(outdir, name), "w") as f:
            json.dump(doc, f, indent=1, ensure_ascii=False)
            f.write("\n")
        n = sum(len(v) for v in doc.values() if isinstance(v, list))
        print(f"wrote {os.path.join(outdir, name)} ({n} list items)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors"))
