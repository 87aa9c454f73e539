#!/usr/bin/env python3
"""Independent check of BGPsec algorithm suite 0xF7 (bgr-rsa2048), written from
docs/spec/bgpsec-bgr.md and docs/spec/bgr.md alone (stdlib only; BGR's H, G, PRF and
Ver come from bgr_reference.py, which was written from bgr.md).

    bgpsec_bgr_reference.py check FILE.json

FILE.json is the format of docs/spec/vectors/bgpsec-bgr.json: RSA-2048 keys and cases,
each a BGPsec_PATH attribute value with the route it announces (AFI, SAFI, NLRI), the
AS it is sent to, the signers (key, AS, pCount, Flags; origin first) and the expected
outcome of its 0xF7 block. For every case this script
  * parses the attribute (RFC 8205 §3) and its 0xF7 block (bgpsec-bgr.md §3), builds
    every hop's input m_i (§4) and requires them equal to the case's "inputs";
  * validates the block (§6): keys looked up by (AS, SKI) among the case's signers, SKI
    the SHA-1 of the key's subjectPublicKey, then BGR Ver; the outcome must be the
    case's "expected": "valid" or "not-valid";
  * for valid cases, signs the path again hop by hop (§5: PRF r, cut the previous
    newest segment, prepend) and requires the exact attribute bytes.
Prints 'N passed, 0 failed' and exits 0, or names each failing case and exits 1.
"""
import hashlib
import json
import sys

import bgr_reference as bgr

SUITE = 0xF7
PS = bgr.Params("bgr-rsa2048")
PART_LEN = PS.r_len + 1  # r_i || b_i
NEWEST_LEN = PART_LEN + PS.k + 32  # r_K || b_K || x_K || h_K
MAX_KEY_CHOICES = 16


class NotValid(Exception):
    pass


def der_tlv(blob, pos):
    """(tag, contents, next position) of the DER element at pos (definite lengths)."""
    tag = blob[pos]
    length = blob[pos + 1]
    pos += 2
    if length & 0x80:
        count = length & 0x7F
        length = int.from_bytes(blob[pos:pos + count], "big")
        pos += count
    return tag, blob[pos:pos + length], pos + length


def ski_of_spki(spki):
    """RFC 6487 §4.8.2 / RFC 8209: SHA-1 of the subjectPublicKey BIT STRING's contents."""
    tag, body, _ = der_tlv(spki, 0)
    assert tag == 0x30
    _, _, pos = der_tlv(body, 0)  # AlgorithmIdentifier
    tag, bits, _ = der_tlv(body, pos)
    assert tag == 0x03 and bits[0] == 0  # BIT STRING, no unused bits
    return hashlib.sha1(bits[1:]).digest()


def parse_path(value):
    """RFC 8205 §3: (secure path segments newest first, {suite: [(ski, sig)]})."""
    sp_len = int.from_bytes(value[0:2], "big")
    assert sp_len >= 8 and (sp_len - 2) % 6 == 0
    segments = [value[p:p + 6] for p in range(2, sp_len, 6)]
    blocks = {}
    pos = sp_len
    while pos < len(value):
        blen = int.from_bytes(value[pos:pos + 2], "big")
        suite = value[pos + 2]
        end = pos + blen
        p = pos + 3
        sigs = []
        while p < end:
            ski = value[p:p + 20]
            slen = int.from_bytes(value[p + 20:p + 22], "big")
            sigs.append((ski, value[p + 22:p + 22 + slen]))
            p += 22 + slen
        assert p == end and len(sigs) == len(segments)
        blocks[suite] = sigs
        pos = end
    assert pos == len(value)
    return segments, blocks


def inputs(segments, skis, target, afi, safi, nlri):
    """m_1 .. m_K of bgpsec-bgr.md §4; segments and skis newest first."""
    k = len(segments)
    oldest_first = list(reversed(segments))
    skis_oldest_first = list(reversed(skis))
    tail = bytes([SUITE]) + afi.to_bytes(2, "big") + bytes([safi]) + nlri
    msgs = []
    for i in range(1, k + 1):  # hop i, 1 = origin
        t = target if i == k else oldest_first[i][2:6]  # AS(i+1)
        body = b""
        for j in range(i, 1, -1):
            body += skis_oldest_first[j - 2] + oldest_first[j - 1]
        msgs.append(t + body + oldest_first[0] + tail)
    return msgs


def aggregate(sigs):
    """bgr_reference's aggregate dict from the block's signature fields (§3)."""
    k = len(sigs)
    rs, bs = [], []
    for n, (_ski, sig) in enumerate(reversed(sigs), start=1):
        if len(sig) != (NEWEST_LEN if n == k else PART_LEN) or sig[PS.r_len] > 1:
            raise NotValid("segment %d is not well formed" % n)
        rs.append(sig[:PS.r_len])
        bs.append(sig[PS.r_len])
    newest = sigs[0][1]
    x = newest[PART_LEN:PART_LEN + PS.k]
    if x[0] & 0x80:
        raise NotValid("x_K not in D")
    return {"x": x, "h": newest[PART_LEN + PS.k:], "r": rs, "b": bs}


def validate(segments, sigs, msgs, table):
    """§6: step 2 newest first, then Ver over the key choices."""
    choices = []
    for seg, (ski, _sig) in zip(segments, sigs):
        found = table.get((seg[2:6], ski), [])
        if not found:
            raise NotValid("no key")
        choices.insert(0, found)  # origin first
    agg = aggregate(sigs)
    combos = [[]]
    for found in choices:
        combos = [c + [key] for key in found for c in combos]  # origin varies fastest
    for keys in combos[:MAX_KEY_CHOICES]:
        if bgr.verify(PS, keys, msgs, agg):
            return
    raise NotValid("the aggregate does not verify")


def public(key):
    spki = bytes.fromhex(key["spki_der"])
    return (int(key["n"], 16), int(key["e"], 16), hashlib.sha256(spki).digest())


def resign(case, keys):
    """The attribute value signed again from the keys (§5), one 0xF7 block."""
    afi, safi, nlri = case["afi"], case["safi"], bytes.fromhex(case["nlri"])
    segments, sigs, state = [], [], None
    signers = case["signers"]
    for i, s in enumerate(signers):
        key = keys[s["key"]]
        segment = bytes([s["pcount"], s["flags"]]) + s["asn"].to_bytes(4, "big")
        segments.insert(0, segment)
        target = (signers[i + 1]["asn"] if i + 1 < len(signers) else case["target_as"])
        m = inputs(segments, [b""] + [ski for ski, _ in sigs], target.to_bytes(4, "big"),
                   afi, safi, nlri)[-1]
        prev = (state[0], state[1]) if state else None
        r = bgr.PRF(PS, bytes.fromhex(key["prf_seed"]), m, prev)
        n, _e, fp = public(key)
        state = bgr.sign(PS, n, int(key["d"], 16), fp, r, m, state)
        if sigs:
            sigs[0] = (sigs[0][0], sigs[0][1][:PART_LEN])
        ski = ski_of_spki(bytes.fromhex(key["spki_der"]))
        sigs.insert(0, (ski, r + bytes([state[3][-1]]) + state[1] + state[0]))
    sp = (2 + 6 * len(segments)).to_bytes(2, "big") + b"".join(segments)
    body = b"".join(ski + len(sig).to_bytes(2, "big") + sig for ski, sig in sigs)
    return sp + (3 + len(body)).to_bytes(2, "big") + bytes([SUITE]) + body


def check_case(keys, case):
    value = bytes.fromhex(case["bgpsec_path"])
    segments, blocks = parse_path(value)
    sigs = blocks[SUITE]
    table = {}
    for s in case["signers"]:
        key = keys[s["key"]]
        ski = ski_of_spki(bytes.fromhex(key["spki_der"]))
        found = table.setdefault((s["asn"].to_bytes(4, "big"), ski), [])
        if public(key) not in found:
            found.append(public(key))
    msgs = inputs(segments, [ski for ski, _ in sigs], case["target_as"].to_bytes(4, "big"),
                  case["afi"], case["safi"], bytes.fromhex(case["nlri"]))
    if [m.hex() for m in msgs] != case["inputs"]:
        return False, "inputs differ from the case's"
    try:
        validate(segments, sigs, msgs, table)
        outcome = "valid"
    except NotValid as why:
        outcome = "not-valid (%s)" % why
    ok = outcome.split(" ")[0] == case["expected"]
    if ok and outcome == "valid" and len(blocks) == 1:
        ok = resign(case, keys) == value
        outcome += " (re-signed: " + ("same bytes" if ok else "DIFFERENT bytes") + ")"
    return ok, outcome


def check(path):
    """bgr_reference's loop over the cases, with this file's check_case."""
    return bgr.check(path, lambda keys, case: check_case(keys["2048"], case))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "check":
        print(__doc__)
        sys.exit(2)
    sys.exit(0 if check(sys.argv[2]) else 1)
