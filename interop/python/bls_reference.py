#!/usr/bin/env python3
"""Checks hopsig's BGLS against py_ecc, an independent IETF BLS implementation.

    bls_reference.py check FILE.json

py_ecc (PyPI, pure Python) implements draft-irtf-cfrg-bls-signature; its G2Basic class
is the basic scheme with ciphersuite BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_,
public keys in G1. FILE.json, written by hopsig's tests, holds:

  keys:        [{ikm, sk, pk}]            hex; sk is I2OSP(SK, 32)
  signatures:  [{key, message, signature}] CoreSign outputs
  aggregates:  [{signers: [{key, message}], signature, expected}]
               expected is "valid" or "invalid" (e.g. duplicate messages)
  bad_keys:    [hex]                       encodings KeyValidate must reject

Every value hopsig produced must equal what py_ecc computes from the same inputs, and
py_ecc's AggregateVerify must return what the file expects. Prints 'N passed, 0 failed'
and exits 0, or names the first failure and exits 1.
"""
import json
import sys

from py_ecc.bls import G2Basic


def check(path):
    with open(path) as f:
        data = json.load(f)
    passed = 0

    def expect(cond, what):
        nonlocal passed
        if not cond:
            print(f"FAILED: {what}")
            sys.exit(1)
        passed += 1

    pks = []
    for i, k in enumerate(data["keys"]):
        sk = G2Basic.KeyGen(bytes.fromhex(k["ikm"]))
        expect(sk.to_bytes(32, "big").hex() == k["sk"], f"key {i}: KeyGen(IKM)")
        pk = G2Basic.SkToPk(sk)
        expect(pk.hex() == k["pk"], f"key {i}: SkToPk")
        expect(G2Basic.KeyValidate(pk), f"key {i}: KeyValidate")
        pks.append((sk, pk))

    for j, s in enumerate(data["signatures"]):
        sk, pk = pks[s["key"]]
        msg = bytes.fromhex(s["message"])
        sig = G2Basic.Sign(sk, msg)
        expect(sig.hex() == s["signature"], f"signature {j}: Sign")
        expect(G2Basic.Verify(pk, msg, sig), f"signature {j}: Verify")

    for j, a in enumerate(data["aggregates"]):
        keys = [pks[s["key"]][1] for s in a["signers"]]
        msgs = [bytes.fromhex(s["message"]) for s in a["signers"]]
        agg = bytes.fromhex(a["signature"])
        if a["expected"] == "valid":
            sigs = [G2Basic.Sign(pks[s["key"]][0], m) for s, m in zip(a["signers"], msgs)]
            expect(G2Basic.Aggregate(sigs).hex() == a["signature"], f"aggregate {j}: Aggregate")
        ok = G2Basic.AggregateVerify(keys, msgs, agg)
        expect(ok == (a["expected"] == "valid"), f"aggregate {j}: AggregateVerify is {ok}")

    for j, bad in enumerate(data["bad_keys"]):
        expect(not G2Basic.KeyValidate(bytes.fromhex(bad)), f"bad key {j}: KeyValidate accepts it")

    print(f"{passed} passed, 0 failed")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "check":
        print(__doc__)
        sys.exit(2)
    check(sys.argv[2])
