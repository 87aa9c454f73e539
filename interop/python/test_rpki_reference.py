#!/usr/bin/env python3
"""Hand-worked cases for rpki_reference.py (python3 -m unittest, stdlib only).

Every expected verdict below was worked out by hand from RFC 6811 section 2 and from
draft-ietf-sidrops-aspa-verification-28 sections 5.2-5.6; the comment on each case says why it
holds.  Notation: a path is written in wire order [neighbour, ..., origin]; AS(1) is the origin
and AS(N) the neighbour of the COMPRESSED_AS_PATH; "X lists Y" means X's ASPA has Y among its
providers; "AS0 ASPA" is an ASPA whose only provider is AS 0 (no providers).

Run:  cd interop/python && python3 -m unittest test_rpki_reference
  or  python3 -m unittest interop/python/test_rpki_reference.py
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rpki_reference as ref  # noqa: E402

SCRIPT = os.path.join(HERE, "rpki_reference.py")


def seq(*asns):
    return {"type": "sequence", "asns": list(asns)}


def aset(*asns):
    return {"type": "set", "asns": list(asns)}


def run(vrps=(), aspas=(), routes=(), **extra):
    doc = {"vrps": list(vrps), "aspas": list(aspas), "routes": list(routes)}
    doc.update(extra)
    return ref.verdicts(doc)["verdicts"]


def route(prefix="192.0.2.0/24", path=(), relation="customer", **extra):
    r = {"prefix": prefix, "as_path": list(path), "relation": relation}
    r.update(extra)
    return r


def vrp(prefix, max_length, asn):
    return {"prefix": prefix, "maxLength": max_length, "asn": asn}


def aspa(customer, *providers):
    return {"customer": customer, "providers": list(providers)}


class Rov(unittest.TestCase):
    """RFC 6811 section 2."""

    def rov(self, vrps, prefix, path, **extra):
        return run(vrps, [], [route(prefix, path)], **extra)[0]["rov"]

    def test_no_vrps_is_not_found(self):
        # No VRP at all, so none Covers the prefix: NotFound.
        self.assertEqual(self.rov([], "10.1.0.0/16", [seq(65001)]), "not-found")

    def test_unrelated_vrp_is_not_found(self):
        # 10.0.0.0/8 and 11.0.0.0/8 differ in the first 8 bits: not Covered: NotFound.
        self.assertEqual(self.rov([vrp("10.0.0.0/8", 24, 65001)], "11.0.0.0/16", [seq(65001)]),
                         "not-found")

    def test_more_specific_vrp_does_not_cover(self):
        # VRP length 16 > route length 8: "Covered" needs the VRP length <= the route length.
        self.assertEqual(self.rov([vrp("10.1.0.0/16", 24, 65001)], "10.0.0.0/8", [seq(65001)]),
                         "not-found")

    def test_bit_boundary_not_covered(self):
        # 10.0.0.0/9 covers 10.0.0.0-10.127.255.255; 10.128.0.0/16 has bit 9 set: NotFound.
        self.assertEqual(self.rov([vrp("10.0.0.0/9", 24, 65001)], "10.128.0.0/16", [seq(65001)]),
                         "not-found")

    def test_exact_match_is_valid(self):
        # Same prefix, length 16 <= maxLength 16, origin equals VRP AS: Matched: Valid.
        self.assertEqual(self.rov([vrp("10.1.0.0/16", 16, 65001)], "10.1.0.0/16", [seq(65001)]),
                         "valid")

    def test_more_specific_within_max_length_is_valid(self):
        # Covered by 10.0.0.0/8, /24 <= maxLength 24, origin matches: Valid.
        self.assertEqual(self.rov([vrp("10.0.0.0/8", 24, 65001)], "10.1.2.0/24", [seq(65001)]),
                         "valid")

    def test_beyond_max_length_is_invalid(self):
        # Covered, but /25 > maxLength 24: not Matched; covered and unmatched: Invalid.
        self.assertEqual(self.rov([vrp("10.0.0.0/8", 24, 65001)], "10.1.2.0/25", [seq(65001)]),
                         "invalid")

    def test_wrong_origin_is_invalid(self):
        # Covered, length fine, origin 65002 != 65001: Invalid.
        self.assertEqual(self.rov([vrp("10.0.0.0/8", 24, 65001)], "10.1.0.0/16", [seq(65002)]),
                         "invalid")

    def test_one_matching_vrp_suffices(self):
        # One covering VRP has the wrong AS, another Matches: "at least one VRP Matches": Valid.
        vrps = [vrp("10.0.0.0/8", 8, 65002), vrp("10.0.0.0/8", 24, 65001)]
        self.assertEqual(self.rov(vrps, "10.1.0.0/16", [seq(65001)]), "valid")

    def test_origin_is_rightmost_of_final_sequence(self):
        # Origin is the rightmost AS of the final AS_SEQUENCE (65001), not the neighbour 65003;
        # prepends of the origin do not change it.
        vrps = [vrp("10.0.0.0/8", 24, 65001)]
        self.assertEqual(self.rov(vrps, "10.1.0.0/16", [seq(65003, 65002, 65001, 65001)]), "valid")
        vrps = [vrp("10.0.0.0/8", 24, 65003)]
        self.assertEqual(self.rov(vrps, "10.1.0.0/16", [seq(65003, 65002, 65001)]), "invalid")

    def test_final_as_set_origin_none_covered_is_invalid(self):
        # Final segment is an AS_SET: origin is NONE, which matches no VRP, even if the set
        # holds the VRP's AS.  Covered and unmatched: Invalid.
        vrps = [vrp("10.0.0.0/8", 24, 65001)]
        self.assertEqual(self.rov(vrps, "10.1.0.0/16", [seq(65003), aset(65001)]), "invalid")

    def test_final_as_set_not_covered_is_not_found(self):
        # Origin NONE but no VRP covers: NotFound (coverage does not depend on the origin).
        vrps = [vrp("10.0.0.0/8", 24, 65001)]
        self.assertEqual(self.rov(vrps, "11.1.0.0/16", [seq(65003), aset(65001)]), "not-found")

    def test_as_set_not_final_does_not_matter(self):
        # An AS_SET before the final AS_SEQUENCE: origin is still the rightmost AS of the final
        # segment (65001): Valid.
        vrps = [vrp("10.0.0.0/8", 24, 65001)]
        self.assertEqual(self.rov(vrps, "10.1.0.0/16", [seq(65003), aset(65004, 65005),
                                                       seq(65001)]), "valid")

    def test_as0_vrp_never_matches(self):
        # An AS 0 VRP covers but never matches (RFC 6483 section 4, RFC 7607): Invalid.
        self.assertEqual(self.rov([vrp("10.0.0.0/8", 32, 0)], "10.1.0.0/16", [seq(65001)]),
                         "invalid")
        # Not even a route whose "origin" is AS 0.
        self.assertEqual(self.rov([vrp("10.0.0.0/8", 32, 0)], "10.1.0.0/16", [seq(65001, 0)]),
                         "invalid")

    def test_as0_vrp_beside_matching_vrp(self):
        # AS 0 VRP covers, another VRP matches: at least one Matches: Valid.
        vrps = [vrp("10.0.0.0/8", 32, 0), vrp("10.1.0.0/16", 16, 65001)]
        self.assertEqual(self.rov(vrps, "10.1.0.0/16", [seq(65001)]), "valid")

    def test_ipv6(self):
        vrps = [vrp("2001:db8::/32", 48, 65001)]
        # Covered, /48 <= 48, origin matches: Valid.
        self.assertEqual(self.rov(vrps, "2001:db8:1::/48", [seq(65001)]), "valid")
        # /56 > maxLength 48: Invalid.
        self.assertEqual(self.rov(vrps, "2001:db8:1:100::/56", [seq(65001)]), "invalid")
        # 2001:db9::/32 differs within the first 32 bits: NotFound.
        self.assertEqual(self.rov(vrps, "2001:db9::/32", [seq(65001)]), "not-found")

    def test_families_do_not_cover_each_other(self):
        # 0.0.0.0/0 covers every IPv4 prefix but no IPv6 prefix, and ::/0 no IPv4 prefix.
        self.assertEqual(self.rov([vrp("0.0.0.0/0", 32, 65002)], "2001:db8::/32", [seq(65001)]),
                         "not-found")
        self.assertEqual(self.rov([vrp("::/0", 128, 65002)], "10.0.0.0/8", [seq(65001)]),
                         "not-found")
        self.assertEqual(self.rov([vrp("0.0.0.0/0", 32, 65002)], "10.0.0.0/8", [seq(65001)]),
                         "invalid")

    def test_max_length_boundary(self):
        # Route length exactly maxLength: "less than or equal": Valid; one more: Invalid.
        vrps = [vrp("10.0.0.0/8", 20, 65001)]
        self.assertEqual(self.rov(vrps, "10.16.0.0/20", [seq(65001)]), "valid")
        self.assertEqual(self.rov(vrps, "10.16.0.0/21", [seq(65001)]), "invalid")

    def test_max_length_defaults_to_prefix_length(self):
        # No maxLength: it is the prefix length (RFC 6482), so /16 is fine and /17 is not.
        vrps = [{"prefix": "10.1.0.0/16", "asn": 65001}]
        self.assertEqual(self.rov(vrps, "10.1.0.0/16", [seq(65001)]), "valid")
        self.assertEqual(self.rov(vrps, "10.1.0.0/17", [seq(65001)]), "invalid")

    def test_empty_path(self):
        # Empty AS_PATH: origin is the speaker's own AS (RFC 6811).  The fixed format has no
        # local AS, so the origin is NONE: covered and unmatched: Invalid.
        vrps = [vrp("10.0.0.0/8", 24, 65001)]
        self.assertEqual(self.rov(vrps, "10.1.0.0/16", []), "invalid")
        self.assertEqual(self.rov(vrps, "11.1.0.0/16", []), "not-found")
        # With the optional "local_as" the own AS is the origin: Valid.
        self.assertEqual(self.rov(vrps, "10.1.0.0/16", [], local_as=65001), "valid")


class HopFunction(unittest.TestCase):
    """Draft section 5.3, Figure 1."""

    def test_three_outcomes(self):
        uspas = ref.parse_aspas([aspa(1, 2, 3), aspa(4, 0)])
        self.assertEqual(ref.authorized(uspas, 1, 2), ref.PROVIDER_PLUS)
        self.assertEqual(ref.authorized(uspas, 1, 5), ref.NOT_PROVIDER_PLUS)
        # No ASPA for AS 9: No Attestation, whatever y is.
        self.assertEqual(ref.authorized(uspas, 9, 1), ref.NO_ATTESTATION)
        # AS0 ASPA: an entry exists, listing no provider: Not Provider+ for every y.
        self.assertEqual(ref.authorized(uspas, 4, 1), ref.NOT_PROVIDER_PLUS)

    def test_union_of_several_aspas(self):
        # U-SPAS is the union of the SPAS of all of a CAS's ASPAs.
        uspas = ref.parse_aspas([aspa(1, 2), aspa(1, 3)])
        self.assertEqual(ref.authorized(uspas, 1, 2), ref.PROVIDER_PLUS)
        self.assertEqual(ref.authorized(uspas, 1, 3), ref.PROVIDER_PLUS)

    def test_compression(self):
        # Consecutive duplicates go, across segment boundaries too; a non-consecutive repeat
        # stays.  Returned origin first.
        path = [(k["type"], k["asns"]) for k in [seq(3, 3), seq(3, 2, 2, 1, 1)]]
        self.assertEqual(ref.compressed_as_path(path), [1, 2, 3])
        path = [("sequence", [1, 2, 1])]
        self.assertEqual(ref.compressed_as_path(path), [1, 2, 1])

    def test_ramp_bounds_worked(self):
        # Path origin first [O=1, Q=2, T=3, P=4]; 1 lists 2, 2 lists 3, 4 lists 3, 3 AS0 ASPA.
        # Up pairs: (1,2) P+, (2,3) P+, (3,4) Not P+ at I=3: max_up = min_up = 3.
        # Down pairs: J=4 (4,3) P+, J=3 (3,2) Not P+: max_down = min_down = 4 - 3 + 1 = 2.
        uspas = ref.parse_aspas([aspa(1, 2), aspa(2, 3), aspa(4, 3), aspa(3, 0)])
        self.assertEqual(ref.ramp_bounds(uspas, [1, 2, 3, 4]), (3, 3, 2, 2))
        # No ASPAs at all: no Not Provider+, so max = N; the first pair is No Attestation,
        # so min_up = 1, and the last pair too, so min_down = N - N + 1 = 1.
        self.assertEqual(ref.ramp_bounds({}, [1, 2, 3, 4]), (4, 1, 4, 1))


class AspaUpstream(unittest.TestCase):
    """Draft section 5.5 (relations customer, peer, rs, rs-client)."""

    def v(self, aspas, path, relation="customer", **extra):
        return run([], aspas, [route(path=path, relation=relation, **extra)])[0]["aspa"]

    def test_single_as_is_valid(self):
        # N = 1: there are no pairs, max_up = min_up = N: Valid, even with no ASPA at all.
        self.assertEqual(self.v([], [seq(10)]), "valid")

    def test_attested_customer_chain_is_valid(self):
        # [12, 11, 10]: 10 lists 11, 11 lists 12: every pair Provider+: min_up = N: Valid.
        self.assertEqual(self.v([aspa(10, 11), aspa(11, 12)], [seq(12, 11, 10)]), "valid")

    def test_unattested_hop_is_unknown(self):
        # [11, 10], 10 has no ASPA: (10,11) No Attestation: max_up = 2 = N, min_up = 1 < N:
        # Unknown.
        self.assertEqual(self.v([], [seq(11, 10)]), "unknown")
        # [12, 11, 10], 10 lists 11, 11 has no ASPA: min_up = 2 < 3: Unknown.
        self.assertEqual(self.v([aspa(10, 11)], [seq(12, 11, 10)]), "unknown")
        # The unattested hop first, an attested one after it: still Unknown (min_up = 1).
        self.assertEqual(self.v([aspa(11, 12)], [seq(12, 11, 10)]), "unknown")

    def test_not_provider_is_invalid(self):
        # [11, 10], 10 lists only 99: (10,11) Not Provider+: max_up = 1 < 2: Invalid.
        self.assertEqual(self.v([aspa(10, 99)], [seq(11, 10)]), "invalid")

    def test_invalid_beats_unknown(self):
        # [12, 11, 10]: 10 has no ASPA (No Attestation at I=1), 11 lists only 99 (Not
        # Provider+ at I=2): max_up = 2 < 3, step 4 halts first: Invalid.
        self.assertEqual(self.v([aspa(11, 99)], [seq(12, 11, 10)]), "invalid")

    def test_valley_from_customer_is_invalid(self):
        # Customer 11 passes on a route from its provider 12: [11, 12, 10], 10 lists 12,
        # 12 lists 99 (not its customer 11): (12,11) Not Provider+ at I=2: Invalid (leak).
        self.assertEqual(self.v([aspa(10, 12), aspa(12, 99), aspa(11, 12, 13)],
                                [seq(11, 12, 10)]), "invalid")

    def test_prepends_collapse(self):
        # [11, 11, 11, 10, 10] compresses to [11, 10]; 10 lists 11: N = 2, Provider+: Valid.
        self.assertEqual(self.v([aspa(10, 11)], [seq(11, 11, 11, 10, 10)]), "valid")
        # Prepends split over two segments collapse the same way.
        self.assertEqual(self.v([aspa(10, 11)], [seq(11, 11), seq(11, 10)]), "valid")
        # Prepending does not hide a bad hop: [11, 10, 10], 10 lists only 99: Invalid.
        self.assertEqual(self.v([aspa(10, 99)], [seq(11, 10, 10)]), "invalid")

    def test_non_consecutive_repeat_is_kept(self):
        # [10, 11, 10] stays N = 3: pairs (10,11) and (11,10).  10 lists 11, 11 lists 99:
        # (11,10) Not Provider+ at I=2: Invalid.
        self.assertEqual(self.v([aspa(10, 11), aspa(11, 99)], [seq(10, 11, 10)]), "invalid")
        # If 11 also lists 10 both pairs are Provider+: Valid.
        self.assertEqual(self.v([aspa(10, 11), aspa(11, 10)], [seq(10, 11, 10)]), "valid")

    def test_lateral_peer_customer_route_is_valid(self):
        # Peer 20 sends its customer's route [20, 10], 10 lists 20: Valid.
        self.assertEqual(self.v([aspa(10, 20)], [seq(20, 10)], "peer"), "valid")

    def test_lateral_peer_leaking_provider_route_is_invalid(self):
        # Peer 20 sends a route from its provider 30: [20, 30, 10], 10 lists 30, 30 lists 99:
        # (30,20) Not Provider+ at I=2 < 3: Invalid.
        self.assertEqual(self.v([aspa(10, 30), aspa(30, 99), aspa(20, 30)],
                                [seq(20, 30, 10)], "peer"), "invalid")

    def test_lateral_peer_leaking_peer_route_is_invalid(self):
        # Peer 20 sends a route from its own peer 21: [20, 21, 10], 10 lists 21, 21 has an AS0
        # ASPA: (21,20) Not Provider+: Invalid.
        self.assertEqual(self.v([aspa(10, 21), aspa(21, 0)], [seq(20, 21, 10)], "peer"),
                         "invalid")

    def test_peer_path_unattested_at_top_is_unknown(self):
        # Same path but 21 has no ASPA: (10,21) Provider+, (21,20) No Attestation: min_up =
        # 2 < 3 and no Not Provider+: Unknown (upstream allows no down-ramp, so the apex hop is
        # not excused the way it is downstream).
        self.assertEqual(self.v([aspa(10, 21)], [seq(20, 21, 10)], "peer"), "unknown")

    def test_as_set_is_invalid(self):
        # Step 3: an AS_SET anywhere halts with Invalid, however well attested the rest is.
        aspas = [aspa(10, 11), aspa(11, 12), aspa(13, 12)]
        self.assertEqual(self.v(aspas, [seq(12), aset(11, 13)]), "invalid")
        self.assertEqual(self.v(aspas, [aset(10)]), "invalid")
        self.assertEqual(self.v(aspas, [seq(12, 11), aset(10)], "rs"), "invalid")

    def test_empty_path_is_invalid(self):
        # Step 1.
        for rel in ("customer", "peer", "rs", "rs-client"):
            self.assertEqual(self.v([], [], rel), "invalid", rel)

    def test_as0_aspa(self):
        # Origin 10 declares no providers (AS0 ASPA): 11 sending it upward is a leak:
        # (10,11) Not Provider+: Invalid.
        self.assertEqual(self.v([aspa(10, 0)], [seq(11, 10)]), "invalid")
        # AS 0 beside real providers "has no influence": 11 is still Provider+: Valid.
        self.assertEqual(self.v([aspa(10, 0, 11)], [seq(11, 10)]), "valid")

    def test_union_of_aspas(self):
        # 10 has two ASPAs, [11] and [12]; U-SPAS = {11, 12}: (10,12) Provider+: Valid.
        self.assertEqual(self.v([aspa(10, 11), aspa(10, 12)], [seq(12, 10)]), "valid")

    def test_transparent_route_server(self):
        # We are an RS-client of transparent RS 100; RS-client 20 announced its customer 10's
        # route through it: [20, 10] (100 not in the path), 10 lists 20: Valid.
        self.assertEqual(self.v([aspa(10, 20)], [seq(20, 10)], "rs"), "valid")
        # The neighbour is 100 but the first AS is 20: step 2 is skipped for an RS-client.
        self.assertEqual(self.v([aspa(10, 20)], [seq(20, 10)], "rs", neighbor_as=100), "valid")
        # The same path from a "peer" whose AS is 100: step 2 fails: Invalid.
        self.assertEqual(self.v([aspa(10, 20)], [seq(20, 10)], "peer", neighbor_as=100),
                         "invalid")

    def test_neighbour_check(self):
        # Step 2 for a customer: first AS 11 == neighbour 11: Valid; neighbour 12: Invalid.
        self.assertEqual(self.v([aspa(10, 11)], [seq(11, 10)], neighbor_as=11), "valid")
        self.assertEqual(self.v([aspa(10, 11)], [seq(11, 10)], neighbor_as=12), "invalid")
        # Step 2 applies to a route server receiving from its RS-client too.
        self.assertEqual(self.v([aspa(10, 11)], [seq(11, 10)], "rs-client", neighbor_as=12),
                         "invalid")

    def test_non_transparent_route_server(self):
        # Non-transparent RS 100 puts its AS in the path: [100, 20]; RS-client 20 lists 100
        # (section 4 says it must): (20,100) Provider+: Valid.
        self.assertEqual(self.v([aspa(20, 100)], [seq(100, 20)], "rs"), "valid")
        # 20 forgot to list the RS: (20,100) Not Provider+: Invalid.
        self.assertEqual(self.v([aspa(20, 30)], [seq(100, 20)], "rs"), "invalid")

    def test_route_server_receiving_from_client(self):
        # We are the RS, the neighbour our RS-client 20: [20, 10], 10 lists 20: Valid;
        # 10 lists only 30: Invalid.
        self.assertEqual(self.v([aspa(10, 20)], [seq(20, 10)], "rs-client"), "valid")
        self.assertEqual(self.v([aspa(10, 30)], [seq(20, 10)], "rs-client"), "invalid")

    def test_customer_leaking_route_server_route_is_invalid(self):
        # Our customer 20 passes on a route it learned at non-transparent RS 100 from RS-client
        # 10: [20, 100, 10].  (10,100) Provider+ (10 lists its RS), (100,20): 100 has an AS0
        # ASPA: Not Provider+ at I=2 < 3: Invalid.
        self.assertEqual(self.v([aspa(10, 100), aspa(100, 0), aspa(20, 100, 30)],
                                [seq(20, 100, 10)]), "invalid")


class AspaDownstream(unittest.TestCase):
    """Draft section 5.6 (relation provider)."""

    def v(self, aspas, path, **extra):
        return run([], aspas, [route(path=path, relation="provider", **extra)])[0]["aspa"]

    def test_up_then_down_is_valid(self):
        # [4, 3, 2, 1] from provider 4: 1 lists 2, 2 lists 3 (up-ramp 1-2-3), 4 lists 3 (3 is
        # 4's provider: down-ramp 3-4), 3 AS0 ASPA.  max_up = min_up = 3, max_down = min_down
        # = 2 (worked in HopFunction.test_ramp_bounds_worked); 3 + 2 >= 4 both ways: Valid.
        self.assertEqual(self.v([aspa(1, 2), aspa(2, 3), aspa(4, 3), aspa(3, 0)],
                                [seq(4, 3, 2, 1)]), "valid")

    def test_lateral_peering_at_apex_is_valid(self):
        # [4, 3, 2, 1]: 1 lists 2; 2 and 3 are peers (both AS0 ASPAs); 4 lists 3.
        # Up: (1,2) P+, (2,3) Not P+ at I=2: max_up = min_up = 2.
        # Down: J=4 (4,3) P+, J=3 (3,2) Not P+: max_down = min_down = 4 - 3 + 1 = 2.
        # 2 + 2 = 4 >= 4: apexes 2 and 3 are one hop apart: Valid.
        self.assertEqual(self.v([aspa(1, 2), aspa(2, 0), aspa(3, 0), aspa(4, 3)],
                                [seq(4, 3, 2, 1)]), "valid")

    def test_two_lateral_hops_are_invalid(self):
        # [4, 3, 2, 1], every AS has an ASPA listing only 99, except 4 lists 3.
        # Up: (1,2) Not P+ at I=1: max_up = 1.  Down: J=4 (4,3) P+, J=3 (3,2) Not P+:
        # max_down = 2.  1 + 2 = 3 < 4: apexes 1 and 3 two hops apart: Invalid.
        self.assertEqual(self.v([aspa(1, 99), aspa(2, 99), aspa(3, 99), aspa(4, 3)],
                                [seq(4, 3, 2, 1)]), "invalid")

    def test_valley_is_invalid(self):
        # Multihomed 3 leaks a route from provider 2 to provider 4, which sends it to us:
        # [4, 3, 2, 1].  1 lists 2, 3 lists 2 and 4, 2 lists 99, 4 lists 99.
        # Up: (1,2) P+, (2,3) Not P+ at I=2: max_up = 2.
        # Down: J=4 (4,3): 4 lists 99: Not P+: max_down = 4 - 4 + 1 = 1.
        # 2 + 1 = 3 < 4: Invalid.
        self.assertEqual(self.v([aspa(1, 2), aspa(3, 2, 4), aspa(2, 99), aspa(4, 99)],
                                [seq(4, 3, 2, 1)]), "invalid")

    def test_no_aspas_is_unknown(self):
        # [4, 3, 2, 1] with no ASPA: max_up = max_down = 4 (no Not P+), min_up = 1,
        # min_down = 1 (worked in HopFunction): 1 + 1 = 2 < 4: Unknown.
        self.assertEqual(self.v([], [seq(4, 3, 2, 1)]), "unknown")

    def test_unattested_apex_hop_is_valid(self):
        # [4, 3, 2, 1]: 1 lists 2, 2 lists 3, 4 lists 3, 3 has NO ASPA.
        # Up: (1,2) P+, (2,3) P+, (3,4) No Att at I=3: min_up = 3, max_up = 4.
        # Down: J=4 (4,3) P+, J=3 (3,2) No Att: min_down = 2; J=2 (2,1): 2 lists 3 only:
        # Not P+: max_down = 3.  min: 3 + 2 = 5 >= 4: Valid (the unverified hop is the apex).
        self.assertEqual(self.v([aspa(1, 2), aspa(2, 3), aspa(4, 3)], [seq(4, 3, 2, 1)]),
                         "valid")

    def test_unattested_below_apex_is_unknown(self):
        # [5, 4, 3, 2, 1] (N = 5): 1 lists 2, 2 has no ASPA, 3 and 4 AS0 ASPAs, 5 lists 4.
        # Up: (1,2) P+, (2,3) No Att at I=2: min_up = 2; (3,4) Not P+ at I=3: max_up = 3.
        # Down: J=5 (5,4) P+, J=4 (4,3) Not P+: max_down = min_down = 5 - 4 + 1 = 2.
        # max: 3 + 2 = 5 >= 5, min: 2 + 2 = 4 < 5: Unknown (valid only if 3 is 2's provider).
        self.assertEqual(self.v([aspa(1, 2), aspa(3, 0), aspa(4, 0), aspa(5, 4)],
                                [seq(5, 4, 3, 2, 1)]), "unknown")
        # 2 declares 3 its provider: min_up = 3, 3 + 2 = 5: Valid.
        self.assertEqual(self.v([aspa(1, 2), aspa(2, 3), aspa(3, 0), aspa(4, 0), aspa(5, 4)],
                                [seq(5, 4, 3, 2, 1)]), "valid")
        # 2 declares only 99: (2,3) Not P+ at I=2: max_up = 2, 2 + 2 = 4 < 5: Invalid.
        self.assertEqual(self.v([aspa(1, 2), aspa(2, 99), aspa(3, 0), aspa(4, 0), aspa(5, 4)],
                                [seq(5, 4, 3, 2, 1)]), "invalid")

    def test_two_as_path_is_always_valid(self):
        # N = 2: max_up >= 1 and max_down >= 1 (likewise min), so the sums are >= 2: Valid,
        # even when neither AS attests the other (a provider's peer route is fine for us).
        self.assertEqual(self.v([aspa(1, 99), aspa(2, 99)], [seq(2, 1)]), "valid")
        self.assertEqual(self.v([], [seq(2, 1)]), "valid")
        # The same path from a customer is a leak: upstream, (1,2) Not P+: Invalid.
        self.assertEqual(run([], [aspa(1, 99), aspa(2, 99)],
                             [route(path=[seq(2, 1)], relation="customer")])[0]["aspa"],
                         "invalid")

    def test_single_as_is_valid(self):
        # N = 1: no pairs, all bounds N = 1: Valid.
        self.assertEqual(self.v([], [seq(1)]), "valid")

    def test_prepends_collapse(self):
        # [4, 4, 3, 2, 2, 1, 1, 1] compresses to [4, 3, 2, 1]; as test_up_then_down_is_valid.
        self.assertEqual(self.v([aspa(1, 2), aspa(2, 3), aspa(4, 3), aspa(3, 0)],
                                [seq(4, 4, 3), seq(2, 2, 1, 1, 1)]), "valid")

    def test_as_set_and_empty_are_invalid(self):
        # Steps 1 and 3 are the same as upstream.
        self.assertEqual(self.v([], []), "invalid")
        self.assertEqual(self.v([aspa(1, 2)], [seq(2), aset(1)]), "invalid")

    def test_neighbour_check_has_no_rs_exemption(self):
        # Step 2 of the downstream procedure has no RS-client exception.
        self.assertEqual(self.v([], [seq(2, 1)], neighbor_as=2), "valid")
        self.assertEqual(self.v([], [seq(2, 1)], neighbor_as=3), "invalid")


def _letters(word):
    """'G F C A' -> [65007, 65006, 65003, 65001]: the examples name ASes by letter."""
    return [65000 + ord(c) - ord("A") + 1 for c in word.split()]


def _letter_aspas(spec):
    """{'A': 'C D', 'G': '0'} -> ASPA list; '0' is AS 0 (an AS0 ASPA)."""
    return [aspa(_letters(cas)[0], *[0 if p == "0" else _letters(p)[0] for p in provs.split()])
            for cas, provs in spec.items()]


class DraftExamples(unittest.TestCase):
    """The draft's own worked examples (section 6.1, reference [aspa-examples]: "ASPA-based AS
    path verification examples", K. Sriram, O. Borchert, M. Matejka, August 2025,
    github.com/ksriram25/IETF ASPA_path_verification_examples.pdf).  Each row gives the path
    (unique ASes, neighbour first), the four ramp bounds and the outcome; every one is checked.
    The tables were transcribed by hand; the bounds and outcomes are the PDF's, not computed
    here."""

    # Topology page 2: A, {C, D}; B, {E}; C, {F}; D, {F, G}; G, {AS0}; E and F have no ASPAs.
    ASPAS = _letter_aspas({"A": "C D", "B": "E", "C": "F", "D": "F G", "G": "0"})

    # Table 1, upstream (received from a customer or lateral peer):
    # (receiving AS, path, N, max_up_ramp, min_up_ramp, outcome)
    TABLE1 = [
        ("G", "F C A", 3, 3, 3, "valid"),
        ("G", "D C A", 3, 2, 2, "invalid"),
        ("G", "D F C A", 4, 4, 3, "unknown"),
        ("C", "D E B", 3, 3, 2, "unknown"),
        ("C", "A D E B", 4, 3, 2, "invalid"),
        ("C", "A D G E B", 5, 3, 2, "invalid"),
        ("D", "A C F", 3, 2, 1, "invalid"),
        ("D", "A C F G", 4, 1, 1, "invalid"),
        ("D", "E B", 2, 2, 2, "valid"),
    ]

    # Table 2, downstream (received from a provider):
    # (receiving AS, path, N, max_up, max_down, min_up, min_down, outcome)
    TABLE2 = [
        ("B", "E G F C A", 5, 4, 2, 3, 1, "unknown"),
        ("B", "E G D A", 4, 3, 2, 3, 1, "valid"),
        ("B", "E D C A", 4, 2, 2, 2, 1, "unknown"),
        ("B", "E G D C A", 5, 2, 2, 2, 1, "invalid"),
        ("A", "C F D G", 4, 1, 4, 1, 2, "unknown"),
        ("A", "D G E B", 4, 3, 2, 2, 2, "valid"),
        ("A", "C D G E B", 5, 3, 1, 2, 1, "invalid"),
        ("D", "F C A", 3, 3, 2, 3, 1, "valid"),
        ("B", "E A", 2, 1, 2, 1, 1, "valid"),      # forged origin by provider E: undetectable
        ("B", "E C A", 3, 2, 2, 2, 1, "valid"),    # forged path segment by E: undetectable
    ]

    # Complex-relationship topology, page 9: H, K, P, Q AS0 ASPAs; L, {K}; R, {Q}; S, {R};
    # J has no ASPA.  Table 3 (page 10): session type is receiver-to-sender, so P2C means
    # the sender is our customer, C2P that it is our provider, p2p a lateral peer.
    ASPAS3 = _letter_aspas({"H": "0", "K": "0", "L": "K", "P": "0", "Q": "0", "R": "Q",
                            "S": "R"})
    SESSION = {"P2C": "customer", "p2p": "peer", "C2P": "provider"}
    # (receiving AS, path, session, N, max_up, max_down, min_up, min_down, outcome)
    TABLE3 = [
        ("K", "J H", "P2C", 2, 1, None, 1, None, "invalid"),
        ("K", "J H", "p2p", 2, 1, None, 1, None, "invalid"),
        ("L", "K J H", "C2P", 3, 1, 1, 1, 1, "invalid"),
        ("R", "Q P", "p2p", 2, 1, None, 1, None, "invalid"),
        ("R", "Q P", "C2P", 2, 1, 1, 1, 1, "valid"),
        ("S", "R Q P", "C2P", 3, 1, 2, 1, 2, "valid"),
    ]

    def check(self, aspas, path, relation, n, max_up, max_down, min_up, min_down, outcome):
        uspas = ref.parse_aspas(aspas)
        origin_first = list(reversed(_letters(path)))
        self.assertEqual(len(origin_first), n)
        b = ref.ramp_bounds(uspas, origin_first)
        self.assertEqual(b[0], max_up, "max_up_ramp")
        self.assertEqual(b[1], min_up, "min_up_ramp")
        if max_down is not None:
            self.assertEqual(b[2], max_down, "max_down_ramp")
            self.assertEqual(b[3], min_down, "min_down_ramp")
        got = run([], aspas, [route(path=[seq(*_letters(path))], relation=relation)])
        self.assertEqual(got[0]["aspa"], outcome)

    def test_table1_upstream(self):
        for rcv, path, n, max_up, min_up, outcome in self.TABLE1:
            for relation in ("customer", "peer"):
                with self.subTest(receiver=rcv, path=path, relation=relation):
                    self.check(self.ASPAS, path, relation, n, max_up, None, min_up, None,
                               outcome)

    def test_table2_downstream(self):
        for rcv, path, n, max_up, max_down, min_up, min_down, outcome in self.TABLE2:
            with self.subTest(receiver=rcv, path=path):
                self.check(self.ASPAS, path, "provider", n, max_up, max_down, min_up,
                           min_down, outcome)

    def test_table3_complex(self):
        for rcv, path, session, n, max_up, max_down, min_up, min_down, outcome in self.TABLE3:
            with self.subTest(receiver=rcv, path=path, session=session):
                self.check(self.ASPAS3, path, self.SESSION[session], n, max_up, max_down,
                           min_up, min_down, outcome)


class CommandLine(unittest.TestCase):

    def call(self, content):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
            name = f.name
        try:
            return subprocess.run([sys.executable, SCRIPT, name], capture_output=True,
                                  text=True)
        finally:
            os.unlink(name)

    def test_example_from_the_format(self):
        # 10.1.0.0/16 from 65001 is Matched by 10.0.0.0/8-24 AS65001: Valid.  65001 lists only
        # 65002, so the customer path [65003, 65001] has (65001,65003) Not Provider+: Invalid.
        p = self.call({"vrps": [vrp("10.0.0.0/8", 24, 65001)],
                       "aspas": [aspa(65001, 65002)],
                       "routes": [route("10.1.0.0/16", [seq(65003, 65001)], "customer")]})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout),
                         {"verdicts": [{"rov": "valid", "aspa": "invalid"}]})

    def test_order_is_kept(self):
        routes = [route("10.1.0.0/16", [seq(65002, 65001)], "provider"),
                  route("11.0.0.0/8", [], "peer"),
                  route("10.1.0.0/16", [seq(65002, 65001)], "customer")]
        p = self.call({"vrps": [vrp("10.0.0.0/8", 24, 65001)], "aspas": [], "routes": routes})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["verdicts"],
                         [{"rov": "valid", "aspa": "valid"},
                          {"rov": "not-found", "aspa": "invalid"},
                          {"rov": "valid", "aspa": "unknown"}])

    def test_errors_exit_2(self):
        good_route = route("10.0.0.0/8", [seq(1)], "customer")
        bad = [
            "not json",
            [],
            {"vrps": [], "aspas": []},
            {"vrps": [vrp("10.0.0.1/8", 24, 1)], "aspas": [], "routes": []},
            {"vrps": [vrp("10.0.0.0/8", 7, 1)], "aspas": [], "routes": []},
            {"vrps": [vrp("10.0.0.0/8", 33, 1)], "aspas": [], "routes": []},
            {"vrps": [vrp("10.0.0.0/8", 24, 2 ** 32)], "aspas": [], "routes": []},
            {"vrps": [vrp("10.0.0.0/8", 24, -1)], "aspas": [], "routes": []},
            {"vrps": [vrp("10.0.0.0/8", 24, "1")], "aspas": [], "routes": []},
            {"vrps": [vrp("10.0.0.0/8", 24, True)], "aspas": [], "routes": []},
            {"vrps": [], "aspas": [{"customer": 1}], "routes": []},
            {"vrps": [], "aspas": [aspa(1, 1.5)], "routes": []},
            {"vrps": [], "aspas": [aspa(1)], "routes": []},
            {"vrps": [], "aspas": [], "routes": [dict(good_route, relation="sibling")]},
            {"vrps": [], "aspas": [], "routes": [dict(good_route, prefix="10.0.0.0/33")]},
            {"vrps": [], "aspas": [], "routes": [dict(good_route, as_path=[
                {"type": "confed_sequence", "asns": [1]}])]},
            {"vrps": [], "aspas": [], "routes": [dict(good_route, as_path=[seq()])]},
            {"vrps": [], "aspas": [], "routes": [dict(good_route, as_path=seq(1))]},
        ]
        for doc in bad:
            p = self.call(doc)
            self.assertEqual(p.returncode, 2, doc)
            self.assertEqual(p.stdout, "", doc)
            self.assertTrue(p.stderr.strip(), doc)

    def test_missing_file_exits_2(self):
        p = subprocess.run([sys.executable, SCRIPT, os.path.join(HERE, "no-such-file.json")],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        p = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    unittest.main()
