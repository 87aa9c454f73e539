#!/usr/bin/env python3
"""Independent reference for Route Origin Validation and ASPA path verification (stdlib only).

    python3 interop/python/rpki_reference.py CASES.json

Written from the standards alone, as a cross-check for the Rust `rpki` crate (whose code
this file's author has not read):

  * RFC 6811 section 2 (BGP Prefix Origin Validation), with RFC 6483 section 4 and RFC 7607
    for AS 0;
  * draft-ietf-sidrops-aspa-verification-28 ("BGP AS_PATH Verification Based on Autonomous
    System Provider Authorization (ASPA) Objects"), the latest revision that could be found
    (no -29 turned up).  The text read was the draft's XML source as its editors keep it
    (github.com/QratorLabs/ASPA, draft-ietf-sidrops-aspa-verification.xml, docName -28, master
    commit e6f84f01dc64eab1cb6fcd51916c235d914f48f3, 31 July 2026), cross-read with the -27
    text.  The published -28 (24 August 2026) moved the pre-verification AS_PATH checks into a
    new section 5.1 and shifted the later subsections by one; the algorithm steps did not
    change (two independent write-ups of the published -28 give the same numbering).  The
    draft's worked examples (section 6.1, [aspa-examples], August 2025) are all reproduced in
    test_rpki_reference.py.  Section numbers below are the published -28's, -27's in brackets:

        5.1        prerequisite checks: neighbour AS, AS_SET (RFC 9774)   [5, intro]
        5.2        COMPRESSED_AS_PATH, up-ramp and down-ramp              [5.1]
        5.3        provider authorization function, U-SPAS                [5.2]
        5.4        bounds on the ramp lengths                             [5.3]
        5.5        algorithm for upstream paths                           [5.4]
        5.6        algorithm for downstream paths                         [5.5]
        5.7        mitigation policy                                      [5.6]
        4          ASPA registration (AS 0 in a SPAS)                     [4]
        6.3, 6.4   BGP Roles, Complex relationships                       [6.3, 6.4]

Input (one JSON object; other keys are ignored):

    {"vrps":   [{"prefix": "10.0.0.0/8", "maxLength": 24, "asn": 65001}],
     "aspas":  [{"customer": 65001, "providers": [65002]}],
     "routes": [{"prefix": "10.1.0.0/16",
                 "as_path": [{"type": "sequence", "asns": [65003, 65001]}],
                 "relation": "customer"}]}

AS_PATH is in wire order: the first AS is the neighbour (most recently added), the last the
origin.  Segment type "sequence" (AS_SEQUENCE) or "set" (AS_SET); a segment holds at least one
ASN (RFC 4271 4.3 / RFC 7606 7.2: a zero-length segment is malformed).  Prefixes are IPv4 or
IPv6 with no host bits set.  "maxLength" may be left out, meaning the prefix length (RFC 6482 /
RFC 9582); otherwise prefix length <= maxLength <= 32 or 128.  ASNs are integers 0 .. 2**32 - 1.
An ASPA lists at least one provider; an AS0 ASPA is "providers": [0].  Several ASPAs for one
customer are united (U-SPAS, 5.3).

Two optional keys, outside the fixed exchange format and absent from it by default, make cases
the fixed format cannot express:
  * route "neighbor_as": the ASN of the BGP neighbour the route came from.  With it, step 2 of
    the draft's procedures (neighbour AS == most recently added AS) is performed; without it the
    neighbour is by construction the first AS of the path, so step 2 cannot fail.
  * top-level "local_as": the receiving AS.  RFC 6811 gives a route with an empty AS_PATH the
    speaker's own AS as its origin; without "local_as" that origin is NONE.

Output (stdout): {"verdicts": [{"rov": "valid"|"invalid"|"not-found",
                                "aspa": "valid"|"invalid"|"unknown"}]}, one per route, in order.
An error in the input: a message on stderr, exit status 2.

"relation" is the role of the NEIGHBOUR the route was received from, relative to the receiving
AS, and picks the draft's procedure (sections 5.5 and 5.6, 6.3; RFC 9234 roles):

    relation   the neighbour is ...                  the draft's words (5.5, 5.6)     procedure
    customer   our customer                          "received from a Customer"       upstream
    peer       our lateral peer                      "received from a Customer or     upstream
                                                      Peer"
    rs         a route server; we are its RS-client  "received by an RS-client from   upstream,
                                                      an RS"                          no step 2
    rs-client  our RS-client; we are the RS          "received by an RS from an       upstream
                                                      RS-client"
    provider   our provider                          "received from a Provider"       downstream

"No step 2": the upstream procedure skips the neighbour-AS check when the receiving AS is an
RS-client, since a transparent RS does not put its AS in the path.

(A Complex relationship, 6.4, is not in the format; its MAY-fallback is the downstream
procedure, i.e. relation "provider".)
"""
import ipaddress
import json
import sys

MAX_ASN = 2 ** 32 - 1

# The route's origin AS when it has none (RFC 6811 section 2: the distinguished value NONE).
NONE = None

# Outcomes of the provider authorization function (draft section 5.3, Figure 1).
PROVIDER_PLUS = "Provider+"
NOT_PROVIDER_PLUS = "Not Provider+"
NO_ATTESTATION = "No Attestation"

UPSTREAM_RELATIONS = ("customer", "peer", "rs", "rs-client")
DOWNSTREAM_RELATIONS = ("provider",)
RELATIONS = UPSTREAM_RELATIONS + DOWNSTREAM_RELATIONS


class InputError(Exception):
    """The input file does not follow the exchange format."""


# --------------------------------------------------------------------------------------------
# Parsing and checking the input
# --------------------------------------------------------------------------------------------

def _asn(value, where):
    # bool is an int in Python; true/false are not ASNs.
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ASN:
        raise InputError("%s: ASN must be an integer 0..%d, got %r" % (where, MAX_ASN, value))
    return value


def _obj(value, where):
    if not isinstance(value, dict):
        raise InputError("%s: expected a JSON object, got %r" % (where, value))
    return value


def _list(value, where):
    if not isinstance(value, list):
        raise InputError("%s: expected a JSON array, got %r" % (where, value))
    return value


def _field(obj, key, where):
    if key not in obj:
        raise InputError("%s: missing %r" % (where, key))
    return obj[key]


def _prefix(value, where):
    if not isinstance(value, str):
        raise InputError("%s: prefix must be a string, got %r" % (where, value))
    try:
        # strict: "10.1.2.3/16" (host bits set) is refused, not silently masked.
        return ipaddress.ip_network(value, strict=True)
    except ValueError as e:
        raise InputError("%s: bad prefix %r: %s" % (where, value, e))


class Vrp:
    """A Validated ROA Payload: (prefix, maxLength, origin AS) (RFC 6811 section 2)."""

    def __init__(self, prefix, max_length, asn):
        self.prefix = prefix
        self.max_length = max_length
        self.asn = asn


class Route:
    def __init__(self, prefix, as_path, relation, neighbor_as=None):
        self.prefix = prefix
        self.as_path = as_path  # list of (segment type, [asn, ...]) in wire order
        self.relation = relation
        self.neighbor_as = neighbor_as


def parse_vrp(v, where):
    v = _obj(v, where)
    prefix = _prefix(_field(v, "prefix", where), where)
    if "maxLength" in v:
        ml = v["maxLength"]
        if isinstance(ml, bool) or not isinstance(ml, int):
            raise InputError("%s: maxLength must be an integer, got %r" % (where, ml))
    else:
        ml = prefix.prefixlen  # RFC 6482 / RFC 9582: absent maxLength = the prefix length
    if not prefix.prefixlen <= ml <= prefix.max_prefixlen:
        raise InputError("%s: maxLength %d outside %d..%d"
                         % (where, ml, prefix.prefixlen, prefix.max_prefixlen))
    return Vrp(prefix, ml, _asn(_field(v, "asn", where), where + ".asn"))


def parse_aspas(aspas):
    """The U-SPAS table: customer AS -> union of the provider sets of all its ASPAs (5.3)."""
    table = {}
    for i, a in enumerate(_list(aspas, "aspas")):
        where = "aspas[%d]" % i
        a = _obj(a, where)
        cas = _asn(_field(a, "customer", where), where + ".customer")
        providers = _list(_field(a, "providers", where), where + ".providers")
        if not providers:
            # ProviderASSet is SIZE(1..MAX) (draft-ietf-sidrops-aspa-profile); an empty list
            # could mean "no entry" or "no providers", so it is refused rather than guessed.
            raise InputError("%s: empty providers (an ASPA lists at least one provider; an "
                             "AS0 ASPA is [0])" % where)
        spas = table.setdefault(cas, set())
        for j, p in enumerate(providers):
            spas.add(_asn(p, "%s.providers[%d]" % (where, j)))
    return table


def parse_route(r, where):
    r = _obj(r, where)
    prefix = _prefix(_field(r, "prefix", where), where)
    path = []
    for k, seg in enumerate(_list(_field(r, "as_path", where), where + ".as_path")):
        sw = "%s.as_path[%d]" % (where, k)
        seg = _obj(seg, sw)
        kind = _field(seg, "type", sw)
        if kind not in ("sequence", "set"):
            raise InputError("%s: segment type must be \"sequence\" or \"set\", got %r"
                             % (sw, kind))
        asns = _list(_field(seg, "asns", sw), sw + ".asns")
        if not asns:
            raise InputError("%s: empty segment (a segment holds at least one AS)" % sw)
        path.append((kind, [_asn(a, "%s.asns[%d]" % (sw, m)) for m, a in enumerate(asns)]))
    relation = _field(r, "relation", where)
    if relation not in RELATIONS:
        raise InputError("%s: relation must be one of %s, got %r"
                         % (where, ", ".join(RELATIONS), relation))
    neighbor_as = None
    if "neighbor_as" in r:
        neighbor_as = _asn(r["neighbor_as"], where + ".neighbor_as")
    return Route(prefix, path, relation, neighbor_as)


def parse_input(doc):
    doc = _obj(doc, "input")
    vrps = [parse_vrp(v, "vrps[%d]" % i)
            for i, v in enumerate(_list(_field(doc, "vrps", "input"), "vrps"))]
    uspas = parse_aspas(_field(doc, "aspas", "input"))
    routes = [parse_route(r, "routes[%d]" % i)
              for i, r in enumerate(_list(_field(doc, "routes", "input"), "routes"))]
    local_as = None
    if "local_as" in doc:
        local_as = _asn(doc["local_as"], "local_as")
    return vrps, uspas, routes, local_as


# --------------------------------------------------------------------------------------------
# RFC 6811 section 2: Route Origin Validation
# --------------------------------------------------------------------------------------------

def route_origin_asn(as_path, local_as=None):
    """Route Origin ASN (RFC 6811 section 2):
      * the rightmost AS in the final segment of the AS_PATH if that segment is an AS_SEQUENCE;
      * the BGP speaker's own AS if the AS_PATH is empty (AS_CONFED_* segments are not in the
        exchange format) -- `local_as`, or NONE when the input does not give it;
      * NONE if the final segment is of any other type (here: AS_SET).
    """
    if not as_path:
        return local_as if local_as is not None else NONE
    kind, asns = as_path[-1]
    if kind == "sequence":
        return asns[-1]
    return NONE


def covers(vrp, prefix):
    """RFC 6811 section 2, "Covered": the VRP prefix length is less than or equal to the Route
    prefix length, and the VRP prefix address and the Route prefix address are identical for
    all bits specified by the VRP prefix length.  (Different address families never cover.)"""
    if vrp.prefix.version != prefix.version:
        return False
    if vrp.prefix.prefixlen > prefix.prefixlen:
        return False
    shift = prefix.max_prefixlen - vrp.prefix.prefixlen  # keep the first VRP-length bits
    return int(vrp.prefix.network_address) >> shift == int(prefix.network_address) >> shift


def matches(vrp, prefix, origin):
    """RFC 6811 section 2, "Matched": the Route prefix is Covered by the VRP, the Route prefix
    length is less than or equal to the VRP maxLength, and the Route Origin ASN equals the VRP
    ASN.  Origin NONE matches no VRP (RFC 6811 section 2).  A VRP for AS 0 says the prefix must
    not be routed (RFC 6483 section 4) and AS 0 never originates a route (RFC 7607), so such a
    VRP only ever covers, never matches."""
    if not covers(vrp, prefix):
        return False
    if prefix.prefixlen > vrp.max_length:
        return False
    if origin is NONE or vrp.asn == 0:
        return False
    return origin == vrp.asn


def rov(vrps, prefix, origin):
    """RFC 6811 section 2: NotFound if no VRP covers the route prefix; Valid if at least one VRP
    matches the route; Invalid if at least one VRP covers it and none matches."""
    covered = False
    for vrp in vrps:
        if matches(vrp, prefix, origin):
            return "valid"
        if covers(vrp, prefix):
            covered = True
    return "invalid" if covered else "not-found"


# --------------------------------------------------------------------------------------------
# draft-ietf-sidrops-aspa-verification-28: ASPA-based AS_PATH verification
# --------------------------------------------------------------------------------------------

def authorized(uspas, x, y):
    """Provider authorization function, draft section 5.3 (Figure 1): is AS y an attested
    provider of AS x per the U-SPAS of AS x?
      "No Attestation" if there is no U-SPAS entry for CAS = AS x;
      else "Provider+" if the U-SPAS entry for AS x includes AS y;
      else "Not Provider+".
    An AS 0 in a SPAS "has no influence" on verification (section 4): it neither makes the
    entry absent (an AS0 ASPA still attests "no providers") nor makes AS 0 a provider."""
    if x not in uspas:
        return NO_ATTESTATION
    if y != 0 and y in uspas[x]:
        return PROVIDER_PLUS
    return NOT_PROVIDER_PLUS


def compressed_as_path(as_path):
    """COMPRESSED_AS_PATH (draft section 5.2): the AS_PATH after removing consecutive duplicate
    ASNs (prepends), returned origin first: result[0] is AS(1), the origin, and result[N-1] is
    AS(N), the neighbour.  Only called on paths without AS_SET, so the flattening is the order
    of the ASes on the wire."""
    wire = [a for _, asns in as_path for a in asns]  # AS(N) first ... AS(1) last
    out = []
    for a in reversed(wire):  # from the origin towards the neighbour
        if not out or out[-1] != a:
            out.append(a)
    return out


def ramp_bounds(uspas, path):
    """Draft section 5.4.  `path` is origin first; AS(i) is path[i - 1] for i = 1..N.

      max_up_ramp   = min I with authorized(AS(I), AS(I+1)) == Not Provider+, else N
      min_up_ramp   = min I with authorized(AS(I), AS(I+1)) in {No Attestation, Not Provider+},
                      else N
      max_down_ramp = N - J + 1, J = max index with authorized(AS(J), AS(J-1)) == Not Provider+,
                      else N
      min_down_ramp = N - J + 1, J = max index with authorized(AS(J), AS(J-1)) in
                      {No Attestation, Not Provider+}, else N
    """
    n = len(path)

    def AS(i):
        return path[i - 1]

    max_up = min_up = n
    for i in range(1, n):  # pairs (AS(I), AS(I+1)), I = 1 .. N-1, smallest first
        h = authorized(uspas, AS(i), AS(i + 1))
        if h == NOT_PROVIDER_PLUS and max_up == n:
            max_up = i
        if h in (NO_ATTESTATION, NOT_PROVIDER_PLUS) and min_up == n:
            min_up = i

    max_down = min_down = n
    for j in range(n, 1, -1):  # pairs (AS(J), AS(J-1)), J = N .. 2, largest first
        h = authorized(uspas, AS(j), AS(j - 1))
        if h == NOT_PROVIDER_PLUS and max_down == n:
            max_down = n - j + 1
        if h in (NO_ATTESTATION, NOT_PROVIDER_PLUS) and min_down == n:
            min_down = n - j + 1

    return max_up, min_up, max_down, min_down


def _common_steps_1_to_3(route, skip_neighbor_check):
    """Steps 1-3, shared by the upstream (5.5) and downstream (5.6) procedures.  Returns
    "invalid" if one halts the procedure, else None."""
    # Step 1: an empty AS_PATH halts with "Invalid".
    if not route.as_path:
        return "invalid"
    # Step 2: the most recently added AS must be the neighbour AS (5.1, RFC 4271 6.3); the
    # upstream procedure skips this when the receiving AS is an RS-client (a transparent RS
    # does not add its AS).  The exchange format names no neighbour: without the optional
    # "neighbor_as" the neighbour is the first AS of the path and the step cannot fail.
    if not skip_neighbor_check and route.neighbor_as is not None:
        most_recent = route.as_path[0][1][0]
        if most_recent != route.neighbor_as:
            return "invalid"
    # Step 3: an AS_SET anywhere in the AS_PATH halts with "Invalid" (see also RFC 9774).
    if any(kind == "set" for kind, _ in route.as_path):
        return "invalid"
    return None


def aspa_upstream(uspas, route):
    """Algorithm for upstream paths, draft section 5.5: routes from a Customer or Peer, by an RS
    from an RS-client, or by an RS-client from an RS.  Only an up-ramp is expected, so
    max_down_ramp = min_down_ramp = 0."""
    halted = _common_steps_1_to_3(route, skip_neighbor_check=(route.relation == "rs"))
    if halted:
        return halted
    path = compressed_as_path(route.as_path)
    n = len(path)
    max_up, min_up, _, _ = ramp_bounds(uspas, path)
    # Step 4.
    if max_up < n:
        return "invalid"
    # Step 5.
    if min_up < n:
        return "unknown"
    # Step 6.
    return "valid"


def aspa_downstream(uspas, route):
    """Algorithm for downstream paths, draft section 5.6: routes received from a Provider.
    The up-ramp (from the origin) and the down-ramp (from the neighbour) may meet with their
    apexes at most one hop apart (5.2)."""
    halted = _common_steps_1_to_3(route, skip_neighbor_check=False)
    if halted:
        return halted
    path = compressed_as_path(route.as_path)
    n = len(path)
    max_up, min_up, max_down, min_down = ramp_bounds(uspas, path)
    # Step 4.
    if max_up + max_down < n:
        return "invalid"
    # Step 5.
    if min_up + min_down < n:
        return "unknown"
    # Step 6.
    return "valid"


def aspa(uspas, route):
    """Pick the procedure by the neighbour's relation (sections 5.5, 5.6, 6.3)."""
    if route.relation in DOWNSTREAM_RELATIONS:
        return aspa_downstream(uspas, route)
    return aspa_upstream(uspas, route)


# --------------------------------------------------------------------------------------------

def verdicts(doc):
    vrps, uspas, routes, local_as = parse_input(doc)
    out = []
    for route in routes:
        origin = route_origin_asn(route.as_path, local_as)
        out.append({"rov": rov(vrps, route.prefix, origin), "aspa": aspa(uspas, route)})
    return {"verdicts": out}


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: rpki_reference.py CASES.json\n")
        return 2
    try:
        with open(argv[1], "rb") as f:
            doc = json.loads(f.read().decode("utf-8"))
        result = verdicts(doc)
    except (OSError, UnicodeDecodeError, ValueError, InputError) as e:
        # json.JSONDecodeError is a ValueError.
        sys.stderr.write("rpki_reference.py: %s: %s\n" % (argv[1], e))
        return 2
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
