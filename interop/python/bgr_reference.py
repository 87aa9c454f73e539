#!/usr/bin/env python3
"""Independent BGR implementation written from docs/spec/bgr.md alone (stdlib only).

    bgr_reference.py check FILE.json

FILE.json holds keys and cases (the format of docs/spec/vectors/bgr.json, bgr.md §7).
For every case this script
  * decodes the aggregate as the case's scheme id and verifies it with the spec's Ver:
    the outcome must be the case's "expected" one: "valid", "invalid" (decodes, Ver
    rejects) or "malformed" (does not decode for that scheme id);
  * for valid cases, re-signs the chain hop by hop from the spec (r_i from the PRF, or
    for the random-r variant the r_i the aggregate carries) and requires the exact bytes.
Prints 'N passed, 0 failed' and exits 0, or names each failing case and exits 1.
"""
import hashlib
import hmac
import json
import re
import sys

LABEL_H = b"HOPSIG-BGR-V1-H"
LABEL_G = b"HOPSIG-BGR-V1-G"
LABEL_PRF = b"HOPSIG-BGR-V1-PRF"
MAX_SIGNERS = 4096
# (random variant, modulus bits) -> scheme code (aggregate.md)
CODES = {(False, 2048): 0x10, (False, 3072): 0x11, (True, 2048): 0x12, (True, 3072): 0x13}
DEFAULT_R_BITS = {2048: 152, 3072: 168}
PRF_R_BITS = 128


class Malformed(Exception):
    pass


class Params:
    """A parameter set from its id (bgr.md §1): bgr-rsaB, bgr-rand-rsaB[-rBITS]."""

    def __init__(self, scheme_id):
        m = re.fullmatch(r"bgr-(rand-)?rsa(2048|3072)(?:-r([1-9][0-9]*))?", scheme_id)
        if not m or (m.group(3) and not m.group(1)):
            raise ValueError("not a BGR scheme id: %r" % scheme_id)
        self.random = bool(m.group(1))
        self.bits = int(m.group(2))
        self.k = self.bits // 8
        if self.random:
            r_bits = int(m.group(3)) if m.group(3) else DEFAULT_R_BITS[self.bits]
            if r_bits % 8 or not 64 <= r_bits <= 256:
                raise ValueError("l_r out of range in %r" % scheme_id)
        else:
            r_bits = PRF_R_BITS
        self.r_len = r_bits // 8
        self.code = CODES[(self.random, self.bits)]
        self.param = self.r_len if self.random else 0
        # P = code || param follows every label (bgr.md §4).
        self.p = bytes([self.code, self.param])


def mgf1(seed, length):
    out = b""
    counter = 0
    while len(out) < length:
        out += hashlib.sha256(seed + counter.to_bytes(4, "big")).digest()
        counter += 1
    return out[:length]


def G(ps, h):
    g = bytearray(mgf1(LABEL_G + ps.p + ps.k.to_bytes(2, "big") + h, ps.k))
    g[0] &= 0x7F
    return bytes(g)


def H(ps, fp, msg, r, x_prev):
    present = b"\x01" + x_prev if x_prev is not None else b"\x00"
    body = LABEL_H + ps.p + fp + bytes([len(r)]) + r + ps.k.to_bytes(2, "big") + present + msg
    return hashlib.sha256(body).digest()


def PRF(ps, seed, msg, prev):
    body = LABEL_PRF + ps.p + ps.k.to_bytes(2, "big")
    body += (b"\x01" + prev[0] + prev[1]) if prev is not None else b"\x00"
    return hmac.new(seed, body + msg, hashlib.sha256).digest()[:ps.r_len]


def xor(a, b):
    return bytes(x ^ y for x, y in zip(a, b))


def decode(ps, blob):
    """The aggregate of bgr.md §3 for parameter set ps, or Malformed."""
    if len(blob) < 7 or blob[:2] != b"HS" or blob[2] != 1:
        raise Malformed("magic or version")
    if (blob[3], blob[4]) != (ps.code, ps.param):
        raise Malformed("header names another parameter set")
    n = int.from_bytes(blob[5:7], "big")
    if not 1 <= n <= MAX_SIGNERS:
        raise Malformed("n out of range")
    k, r_len = ps.k, ps.r_len
    if len(blob) != 7 + k + 32 + n * r_len + (n + 7) // 8:
        raise Malformed("length")
    pos = 7
    x = blob[pos:pos + k]
    pos += k
    h = blob[pos:pos + 32]
    pos += 32
    r = [blob[pos + i * r_len: pos + (i + 1) * r_len] for i in range(n)]
    pos += n * r_len
    bitmap = blob[pos:]
    b = [(bitmap[i // 8] >> (7 - i % 8)) & 1 for i in range(n)]
    if x[0] & 0x80:
        raise Malformed("x_n not in D")
    if n % 8 and bitmap[-1] & (0xFF >> (n % 8)):
        raise Malformed("padding")
    return {"x": x, "h": h, "r": r, "b": b}


def encode(ps, x, h, rs, bs):
    n = len(bs)
    bitmap = bytearray((n + 7) // 8)
    for i, bit in enumerate(bs):
        if bit:
            bitmap[i // 8] |= 0x80 >> (i % 8)
    header = b"HS\x01" + bytes([ps.code, ps.param]) + n.to_bytes(2, "big")
    return header + x + h + b"".join(rs) + bytes(bitmap)


def verify(ps, keys, msgs, agg):
    """Ver of bgr.md §6; keys are (N, e, fp) in signing order."""
    n = len(agg["b"])
    if n != len(keys):
        return False
    k = ps.k
    x, h = agg["x"], agg["h"]
    for i in range(n - 1, -1, -1):
        N, e, fp = keys[i]
        X = int.from_bytes(x, "big") + (agg["b"][i] << (8 * k - 1))
        if X >= N:
            return False
        y = pow(X, e, N).to_bytes(k, "big")
        if i == 0:
            return H(ps, fp, msgs[0], agg["r"][0], None) == h and y == G(ps, h)
        if y[0] & 0x80:
            return False
        x = xor(G(ps, h), y)
        h = xor(h, H(ps, fp, msgs[i], agg["r"][i], x))
    return False


def sign(ps, N, d, fp, r, msg, prev):
    """One hop of Sign (bgr.md §5) with r_i = r; prev = (h, x, rs, bs) or None."""
    h_prev = prev[0] if prev else bytes(32)
    h = xor(h_prev, H(ps, fp, msg, r, prev[1] if prev else None))
    y = G(ps, h) if prev is None else xor(G(ps, h), prev[1])
    X = pow(int.from_bytes(y, "big"), d, N).to_bytes(ps.k, "big")
    b = X[0] >> 7
    x = bytes([X[0] & 0x7F]) + X[1:]
    rs = (prev[2] if prev else []) + [r]
    bs = (prev[3] if prev else []) + [b]
    return (h, x, rs, bs)


def resign(ps, signer_keys, pub, msgs, agg):
    """The chain signed again from the keys: r_i from the PRF, or the aggregate's r_i."""
    state = None
    for i, (kk, (N, _e, fp), m) in enumerate(zip(signer_keys, pub, msgs)):
        if ps.random:
            r = agg["r"][i]
        else:
            r = PRF(ps, bytes.fromhex(kk["prf_seed"]), m, (state[0], state[1]) if state else None)
        state = sign(ps, N, int(kk["d"], 16), fp, r, m, state)
    return encode(ps, state[1], state[0], state[2], state[3])


def check_case(keys, case):
    ps = Params(case["scheme"])
    pool = keys[str(ps.bits)]
    signer_keys = [pool[s["key"]] for s in case["signers"]]
    pub = [(int(kk["n"], 16), int(kk["e"], 16),
            hashlib.sha256(bytes.fromhex(kk["spki_der"])).digest()) for kk in signer_keys]
    msgs = [bytes.fromhex(s["message"]) for s in case["signers"]]
    blob = bytes.fromhex(case["aggregate"])
    try:
        agg = decode(ps, blob)
        outcome = "valid" if verify(ps, pub, msgs, agg) else "invalid"
    except Malformed:
        outcome = "malformed"
    ok = outcome == case["expected"]
    if ok and outcome == "valid":
        ok = resign(ps, signer_keys, pub, msgs, agg) == blob
        outcome += " (re-signed: " + ("same bytes" if ok else "DIFFERENT bytes") + ")"
    return ok, outcome


def check(path, check_case=check_case):
    """Checks every case of the file with check_case(data["keys"], case)."""
    with open(path) as f:
        data = json.load(f)
    passed = failed = 0
    for case in data["cases"]:
        try:
            ok, outcome = check_case(data["keys"], case)
        except Exception as exc:  # a crash is a failure, reported with the case name
            ok, outcome = False, "exception %r" % (exc,)
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL %s: %s: got %s, expected %s"
                  % (case.get("scheme"), case.get("_comment"), outcome, case.get("expected")))
    print("%d passed, %d failed" % (passed, failed))
    return failed == 0 and passed > 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "check":
        print(__doc__)
        sys.exit(2)
    sys.exit(0 if check(sys.argv[2]) else 1)
