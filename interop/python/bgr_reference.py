#!/usr/bin/env python3
"""Independent BGR implementation written from docs/spec/bgr.md alone (stdlib only).

    bgr_reference.py check FILE.json

FILE.json holds keys and cases (the format of docs/spec/vectors/bgr.json). For every
case this script
  * decodes the aggregate and verifies it with the spec's Ver (valid cases must pass,
    cases marked "expected": "invalid" or "malformed" must fail that way), and
  * for input-dependent (PRF) cases whose keys include d, re-signs the chain hop by hop
    from the spec and requires the exact same bytes.
Prints 'N passed, 0 failed' and exits 0, or names the failing case and exits 1.
"""
import hashlib
import hmac
import json
import sys

TAG_H = b"HOPSIG-BGR-V1-H"
TAG_G = b"HOPSIG-BGR-V1-G"
TAG_PRF = b"HOPSIG-BGR-V1-PRF"
# scheme code -> (modulus bits, prf variant)
CODES = {0x10: (2048, True), 0x11: (3072, True), 0x12: (2048, False), 0x13: (3072, False)}


class Malformed(Exception):
    pass


def mgf1(seed, length):
    out = b""
    counter = 0
    while len(out) < length:
        out += hashlib.sha256(seed + counter.to_bytes(4, "big")).digest()
        counter += 1
    return out[:length]


def G(h, k):
    g = bytearray(mgf1(TAG_G + k.to_bytes(2, "big") + h, k))
    g[0] &= 0x7F
    return bytes(g)


def H(fp, k, msg, r, x_prev):
    present = b"\x01" + x_prev if x_prev is not None else b"\x00"
    return hashlib.sha256(TAG_H + fp + bytes([len(r)]) + r + k.to_bytes(2, "big") + present + msg).digest()


def PRF(seed, k, msg, prev, r_len):
    body = TAG_PRF + k.to_bytes(2, "big")
    body += (b"\x01" + prev[0] + prev[1]) if prev is not None else b"\x00"
    return hmac.new(seed, body + msg, hashlib.sha256).digest()[:r_len]


def xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


def decode(blob):
    if len(blob) < 7 or blob[:2] != b"HS" or blob[2] != 1:
        raise Malformed("header")
    code, param, n = blob[3], blob[4], int.from_bytes(blob[5:7], "big")
    if code not in CODES or not 1 <= n <= 4096:
        raise Malformed("code or n")
    bits, prf = CODES[code]
    if prf and param != 0 or not prf and not (param % 1 == 0 and 8 <= param <= 32):
        raise Malformed("parameter")
    k = bits // 8
    r_len = 16 if prf else param
    want = 7 + k + 32 + n * r_len + (n + 7) // 8
    if len(blob) != want:
        raise Malformed("length")
    pos = 7
    x = blob[pos:pos + k]; pos += k
    h = blob[pos:pos + 32]; pos += 32
    r = [blob[pos + i * r_len: pos + (i + 1) * r_len] for i in range(n)]; pos += n * r_len
    bitmap = blob[pos:]
    b = [(bitmap[i // 8] >> (7 - i % 8)) & 1 for i in range(n)]
    if x[0] & 0x80:
        raise Malformed("x_n not in D")
    if n % 8 and bitmap[-1] & (0xFF >> (n % 8)):
        raise Malformed("padding")
    return {"code": code, "param": param, "k": k, "r_len": r_len, "x": x, "h": h, "r": r, "b": b, "prf": prf}


def encode(code, param, k, x, h, rs, bs):
    n = len(bs)
    bitmap = bytearray((n + 7) // 8)
    for i, bit in enumerate(bs):
        if bit:
            bitmap[i // 8] |= 0x80 >> (i % 8)
    return b"HS\x01" + bytes([code, param]) + n.to_bytes(2, "big") + x + h + b"".join(rs) + bytes(bitmap)


def verify(keys, msgs, agg):
    n = len(agg["b"])
    if n != len(keys):
        return False
    k = agg["k"]
    x, h = agg["x"], agg["h"]
    for i in range(n - 1, -1, -1):
        N, e, fp = keys[i]
        X = int.from_bytes(x, "big") + (agg["b"][i] << (8 * k - 1))
        if X >= N:
            return False
        y = pow(X, e, N).to_bytes(k, "big")
        if i == 0:
            return H(fp, k, msgs[0], agg["r"][0], None) == h and y == G(h, k)
        if y[0] & 0x80:
            return False
        x = xor(G(h, k), y)
        h = xor(h, H(fp, k, msgs[i], agg["r"][i], x))
    return False


def sign_prf(code, k, N, d, fp, seed, msg, prev):
    """One hop of Sign with r = PRF (spec §5); prev = (h, x, rs, bs) or None."""
    r = PRF(seed, k, msg, (prev[0], prev[1]) if prev else None, 16)
    h_prev = prev[0] if prev else bytes(32)
    h = xor(h_prev, H(fp, k, msg, r, prev[1] if prev else None))
    y = G(h, k) if prev is None else xor(G(h, k), prev[1])
    X = pow(int.from_bytes(y, "big"), d, N).to_bytes(k, "big")
    b = X[0] >> 7
    x = bytes([X[0] & 0x7F]) + X[1:]
    rs = (prev[2] if prev else []) + [r]
    bs = (prev[3] if prev else []) + [b]
    return (h, x, rs, bs)


def check(path):
    data = json.load(open(path))
    keys = data["keys"]
    passed = failed = 0
    for case in data["cases"]:
        name = case["comment"]
        try:
            signer_keys = [keys[s["key"]] for s in case["signers"]]
            pub = [(int(kk["n"], 16), int(kk["e"], 16), hashlib.sha256(bytes.fromhex(kk["spki_der"])).digest()) for kk in signer_keys]
            msgs = [bytes.fromhex(s["message"]) for s in case["signers"]]
            blob = bytes.fromhex(case["aggregate"])
            expected = case.get("expected", "valid")
            try:
                agg = decode(blob)
                outcome = "valid" if verify(pub, msgs, agg) else "invalid"
            except Malformed:
                outcome = "malformed"
            ok = outcome == expected
            if ok and expected == "valid" and agg["prf"] and all("d" in kk for kk in signer_keys):
                state = None
                for kk, (N, e, fp), m in zip(signer_keys, pub, msgs):
                    state = sign_prf(agg["code"], agg["k"], N, int(kk["d"], 16), fp, bytes.fromhex(kk["prf_seed"]), m, state)
                ok = encode(agg["code"], 0, agg["k"], state[1], state[0], state[2], state[3]) == blob
                outcome += " (re-signed: " + ("same bytes" if ok else "DIFFERENT bytes") + ")"
        except Exception as exc:  # a crash is a failure, reported with the case name
            ok, outcome = False, "exception %r" % (exc,)
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL %s: got %s, expected %s" % (name, outcome, case.get("expected", "valid")))
    print("%d passed, %d failed" % (passed, failed))
    return failed == 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "check":
        print(__doc__)
        sys.exit(2)
    sys.exit(0 if check(sys.argv[2]) else 1)
