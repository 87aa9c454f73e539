//! Route origin validation (RFC 6811 §2): Valid, Invalid or NotFound for a route's
//! prefix and origin AS against the VRPs of a [`super::view::View`].
//!
//! RFC 6811 §2 in short: a VRP *covers* a route prefix when the VRP's prefix is equal to
//! or shorter than the route's and their first VRP-length bits agree; it *matches* the
//! route when it covers it, the route's length is at most the VRP's maxLength and the
//! route's origin AS is the VRP's AS. A route matched by some VRP is Valid; else one
//! covered by some VRP is Invalid; else it is NotFound. A VRP of AS 0 (RFC 6483 §4,
//! RFC 7607) covers but matches nothing: it says the prefix is not to be routed.
//!
//! The index ([`VrpIndex`]) keeps, per address family, a hash map from (prefix length,
//! network bits) to the VRPs of that prefix, and the sorted list of the lengths that
//! occur; a lookup probes the map once per occurring length up to the route's length —
//! at most 25 probes for IPv4 and 49 for a /48 in IPv6, fewer in practice.

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::net::IpAddr;

use rpki::rtr::payload::RouteOrigin;

use crate::packet::iana::AsPathSegmentType;
use crate::packet::{AsPath, Prefix};

/// A route's origin validation state (RFC 6811 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RovState {
    /// Some VRP matches the route.
    Valid,
    /// Some VRP covers the route and none matches it.
    Invalid,
    /// No VRP covers the route.
    NotFound,
}

impl RovState {
    /// "valid", "invalid" or "not-found" (the names of the reference exchange format
    /// and of hopsig's JSON outputs).
    pub fn name(self) -> &'static str {
        match self {
            RovState::Valid => "valid",
            RovState::Invalid => "invalid",
            RovState::NotFound => "not-found",
        }
    }
}

impl fmt::Display for RovState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A route origin validation verdict: its state and why, citing RFC 6811 §2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RovVerdict {
    /// The state.
    pub state: RovState,
    /// Why: the VRP that matched, or how many covered and what the route's origin is.
    pub reason: String,
}

/// A route's origin AS as RFC 6811 §2 derives it ("Route Origin ASN").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The AS that originated the route.
    As(u32),
    /// The distinguished value "NONE": the final segment of the AS_PATH is an AS_SET
    /// (or the path is empty or ends in a confederation segment and the speaker's own
    /// AS was not given). It matches no VRP.
    None,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::As(asn) => write!(f, "AS{asn}"),
            Origin::None => f.write_str("NONE"),
        }
    }
}

/// The Route Origin ASN of RFC 6811 §2: the rightmost AS of the final segment if it is
/// an AS_SEQUENCE; `local_as` (the speaker's own AS) if the path is empty or its final
/// segment is an AS_CONFED_SEQUENCE or AS_CONFED_SET; NONE otherwise (an AS_SET).
/// Without `local_as` the second case is NONE too: a validator of received routes
/// (validate-mrt) has no own AS to give.
pub fn route_origin(path: &AsPath, local_as: Option<u32>) -> Origin {
    let local = || local_as.map_or(Origin::None, Origin::As);
    match path.segments.last() {
        None => local(),
        Some(s) => match s.kind {
            AsPathSegmentType::AsSequence => s.asns.last().map_or(Origin::None, |&a| Origin::As(a)),
            AsPathSegmentType::AsConfedSequence | AsPathSegmentType::AsConfedSet => local(),
            _ => Origin::None,
        },
    }
}

/// One VRP as the index holds it under its prefix: maxLength and AS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    max_len: u8,
    asn: u32,
}

/// The hash of the indexes' keys (this one's and [`super::aspa::AspaIndex`]'s): one folded multiply (the 128-bit product's halves
/// xored, as foldhash and aHash do) per 64-bit word, under two keys drawn per index from
/// std's `RandomState`. SipHash, std's default, cost a third of a lookup for no gain
/// here: the keys are VRP prefixes, and the random keys keep their placement
/// unpredictable.
#[derive(Debug, Clone, Copy)]
pub(super) struct Fold {
    k0: u64,
    k1: u64,
}

impl Default for Fold {
    fn default() -> Fold {
        let random = RandomState::new();
        let draw = |i: u64| {
            let mut h = random.build_hasher();
            h.write_u64(i);
            h.finish()
        };
        Fold {
            k0: draw(0),
            k1: draw(1) | 1,
        }
    }
}

impl BuildHasher for Fold {
    type Hasher = FoldHasher;

    fn build_hasher(&self) -> FoldHasher {
        FoldHasher {
            h: self.k0,
            k: self.k1,
        }
    }
}

/// [`Fold`]'s hasher.
pub(super) struct FoldHasher {
    h: u64,
    k: u64,
}

impl FoldHasher {
    fn mix(&mut self, x: u64) {
        let p = u128::from(self.h ^ x) * u128::from(self.k);
        self.h = (p as u64) ^ ((p >> 64) as u64);
    }
}

impl Hasher for FoldHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.mix(u64::from(i));
    }

    fn write_u128(&mut self, i: u128) {
        self.mix(i as u64);
        self.mix((i >> 64) as u64);
    }

    fn finish(&self) -> u64 {
        self.h
    }
}

/// The VRPs of one address family.
#[derive(Debug, Clone, Default)]
struct Family {
    /// (prefix length, network bits left-aligned in a u128) → the VRPs of that prefix.
    by_prefix: HashMap<(u8, u128), Vec<Entry>, Fold>,
    /// The prefix lengths that occur, ascending.
    lengths: Vec<u8>,
}

/// An address as a left-aligned 128-bit integer and its family's width in bits.
fn bits(addr: IpAddr) -> (u128, u8, bool) {
    match addr {
        IpAddr::V4(a) => (u128::from(u32::from(a)) << 96, 32, true),
        IpAddr::V6(a) => (u128::from(a), 128, false),
    }
}

/// `bits` with every bit past the first `len` cleared.
fn mask(bits: u128, len: u8) -> u128 {
    if len == 0 {
        0
    } else {
        bits & (u128::MAX << (128 - u32::from(len)))
    }
}

impl Family {
    fn insert(&mut self, len: u8, net: u128, entry: Entry) {
        // Sorted, so that a verdict's reason does not depend on the order VRPs came in.
        let list = self.by_prefix.entry((len, net)).or_default();
        let key = |e: &Entry| (e.asn, e.max_len);
        if let Err(at) = list.binary_search_by_key(&key(&entry), key) {
            list.insert(at, entry);
        }
        if let Err(at) = self.lengths.binary_search(&len) {
            self.lengths.insert(at, len);
        }
    }

    /// Calls `f` with each VRP covering the route `bits`/`len` and its prefix, shortest
    /// prefix first; stops when `f` returns true.
    fn covering(&self, bits: u128, len: u8, mut f: impl FnMut(u8, u128, &Entry) -> bool) {
        for &l in &self.lengths {
            if l > len {
                break;
            }
            let net = mask(bits, l);
            if let Some(list) = self.by_prefix.get(&(l, net)) {
                for e in list {
                    if f(l, net, e) {
                        return;
                    }
                }
            }
        }
    }
}

/// The VRPs of a view indexed for RFC 6811 §2 lookups.
#[derive(Debug, Clone, Default)]
pub struct VrpIndex {
    v4: Family,
    v6: Family,
    len: usize,
}

impl VrpIndex {
    /// An index of `vrps` (duplicates counted once).
    pub fn new<'a>(vrps: impl IntoIterator<Item = &'a RouteOrigin>) -> VrpIndex {
        VrpIndex::from_origins(vrps.into_iter().copied())
    }

    /// An index of `vrps` given by value, as `PayloadSet::origins` gives them
    /// (duplicates counted once).
    pub fn from_origins(vrps: impl IntoIterator<Item = RouteOrigin>) -> VrpIndex {
        let mut index = VrpIndex::default();
        for vrp in vrps {
            index.insert(&vrp);
        }
        index
    }

    fn insert(&mut self, vrp: &RouteOrigin) {
        let prefix = vrp.prefix.prefix();
        let (b, _, v4) = bits(prefix.addr());
        let len = prefix.len();
        let entry = Entry {
            max_len: vrp.prefix.resolved_max_len(),
            asn: vrp.asn.into_u32(),
        };
        let family = if v4 { &mut self.v4 } else { &mut self.v6 };
        let before = family
            .by_prefix
            .get(&(len, mask(b, len)))
            .map_or(0, Vec::len);
        family.insert(len, mask(b, len), entry);
        let after = family
            .by_prefix
            .get(&(len, mask(b, len)))
            .map_or(0, Vec::len);
        self.len += after - before;
    }

    /// The number of distinct VRPs.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the index holds no VRP.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn family(&self, v4: bool) -> &Family {
        if v4 {
            &self.v4
        } else {
            &self.v6
        }
    }

    /// Whether some VRP covers `prefix` (its trailing bits ignored).
    pub fn covers(&self, prefix: &Prefix) -> bool {
        let (b, _, v4) = bits(prefix.addr());
        let mut any = false;
        self.family(v4).covering(b, prefix.length(), |_, _, _| {
            any = true;
            true
        });
        any
    }

    /// The state alone, without a reason (RFC 6811 §2).
    pub fn state(&self, prefix: &Prefix, origin: Origin) -> RovState {
        let (b, _, v4) = bits(prefix.addr());
        let len = prefix.length();
        let mut state = RovState::NotFound;
        self.family(v4).covering(b, len, |_, _, e| {
            if matches(e, len, origin) {
                state = RovState::Valid;
                return true;
            }
            state = RovState::Invalid;
            false
        });
        state
    }

    /// The verdict for the route `prefix` (trailing bits ignored, RFC 4271 §4.3)
    /// originated by `origin`, with its reason (RFC 6811 §2). Reasons name the VRP by
    /// its lengths and AS, not its prefix: the caller has the route's prefix, and
    /// printing addresses would cost more than the lookup.
    pub fn validate(&self, prefix: &Prefix, origin: Origin) -> RovVerdict {
        let (b, _, v4) = bits(prefix.addr());
        let len = prefix.length();
        let mut covering = 0usize;
        let mut matched: Option<(u8, Entry)> = None;
        self.family(v4).covering(b, len, |l, _, e| {
            if matches(e, len, origin) {
                matched = Some((l, *e));
                return true;
            }
            covering += 1;
            false
        });
        if let Some((l, e)) = matched {
            return RovVerdict {
                state: RovState::Valid,
                reason: format!(
                    "matched by a VRP /{l}-{} of AS{} (RFC 6811 §2)",
                    e.max_len, e.asn
                ),
            };
        }
        if covering == 0 {
            return RovVerdict {
                state: RovState::NotFound,
                reason: "no VRP covers the prefix (RFC 6811 §2)".to_string(),
            };
        }
        let vrps = if covering == 1 { "VRP" } else { "VRPs" };
        let reason = match origin {
            Origin::None => format!(
                "covered by {covering} {vrps}; the origin is NONE (the AS_PATH does not end \
                 in an AS_SEQUENCE), which matches no VRP (RFC 6811 §2)"
            ),
            Origin::As(0) => format!(
                "covered by {covering} {vrps}; origin AS0 matches no VRP (RFC 6811 §2, \
                 RFC 7607)"
            ),
            Origin::As(a) => format!(
                "covered by {covering} {vrps}, none of AS{a} with a maxLength of at least \
                 {len} (RFC 6811 §2)"
            ),
        };
        RovVerdict {
            state: RovState::Invalid,
            reason,
        }
    }
}

/// Whether the covering VRP `e` matches a route of length `len` from `origin`: the
/// route is no longer than maxLength and the ASes are equal; AS 0 matches nothing
/// (RFC 6483 §4, RFC 7607 §4).
fn matches(e: &Entry, len: u8, origin: Origin) -> bool {
    match origin {
        Origin::As(asn) => asn != 0 && e.asn == asn && len <= e.max_len,
        Origin::None => false,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::packet::AsPathSegment;
    use rpki::resources::addr::MaxLenPrefix;
    use rpki::resources::Asn;

    pub(crate) fn vrp(prefix: &str, max_len: u8, asn: u32) -> RouteOrigin {
        let p: rpki::resources::addr::Prefix = prefix.parse().unwrap();
        RouteOrigin::new(
            MaxLenPrefix::new(p, Some(max_len)).unwrap(),
            Asn::from_u32(asn),
        )
    }

    fn route(prefix: &str) -> Prefix {
        let (addr, len) = prefix.split_once('/').unwrap();
        Prefix::new(addr.parse().unwrap(), len.parse().unwrap()).unwrap()
    }

    fn segment(kind: AsPathSegmentType, asns: &[u32]) -> AsPathSegment {
        AsPathSegment {
            kind,
            asns: asns.to_vec(),
        }
    }

    #[test]
    fn the_origin_is_the_last_as_of_a_final_as_sequence() {
        use AsPathSegmentType::*;
        let seq = AsPath::sequence(vec![65_003, 65_002, 65_001]);
        assert_eq!(route_origin(&seq, None), Origin::As(65_001));
        let set_last = AsPath {
            segments: vec![
                segment(AsSequence, &[65_003]),
                segment(AsSet, &[65_001, 65_002]),
            ],
        };
        assert_eq!(route_origin(&set_last, Some(1)), Origin::None);
        let set_first = AsPath {
            segments: vec![
                segment(AsSet, &[65_001, 65_002]),
                segment(AsSequence, &[65_003, 65_004]),
            ],
        };
        assert_eq!(route_origin(&set_first, None), Origin::As(65_004));
        // Empty path or a final confederation segment: the speaker's own AS.
        assert_eq!(
            route_origin(&AsPath::default(), Some(64_512)),
            Origin::As(64_512)
        );
        assert_eq!(route_origin(&AsPath::default(), None), Origin::None);
        let confed = AsPath {
            segments: vec![segment(AsConfedSequence, &[64_600])],
        };
        assert_eq!(route_origin(&confed, Some(64_512)), Origin::As(64_512));
        assert_eq!(route_origin(&confed, None), Origin::None);
    }

    /// Every case of RFC 6811 §2: matched, covered with the wrong AS, covered beyond
    /// maxLength, not covered (a shorter route, another prefix), NONE origin, AS 0.
    #[test]
    fn rfc_6811_cases() {
        let index = VrpIndex::new(&[
            vrp("10.0.0.0/8", 16, 65_001),
            vrp("10.0.0.0/8", 8, 65_002),
            vrp("192.0.2.0/24", 24, 0),
            vrp("2001:db8::/32", 48, 65_003),
        ]);
        assert_eq!(index.len(), 4);
        let check = |p: &str, origin: Origin, want: RovState| {
            let v = index.validate(&route(p), origin);
            assert_eq!(v.state, want, "{p} {origin}: {}", v.reason);
            assert!(v.reason.contains("(RFC 6811 §2"), "{}", v.reason);
            assert_eq!(index.state(&route(p), origin), want, "{p} {origin}");
        };
        use RovState::*;
        check("10.0.0.0/8", Origin::As(65_001), Valid);
        check("10.1.0.0/16", Origin::As(65_001), Valid);
        check("10.1.0.0/16", Origin::As(65_002), Invalid); // beyond its maxLength
        check("10.1.1.0/24", Origin::As(65_001), Invalid); // beyond maxLength 16
        check("10.0.0.0/8", Origin::As(65_002), Valid);
        check("10.0.0.0/8", Origin::As(65_009), Invalid); // wrong AS
        check("10.0.0.0/8", Origin::None, Invalid); // NONE matches nothing
        check("8.0.0.0/7", Origin::As(65_001), NotFound); // shorter than the VRP
        check("11.0.0.0/8", Origin::As(65_001), NotFound);
        check("192.0.2.0/24", Origin::As(0), Invalid); // AS 0 matches nothing
        check("192.0.2.0/25", Origin::As(65_001), Invalid);
        check("2001:db8:1::/48", Origin::As(65_003), Valid);
        check("2001:db8:1:1::/64", Origin::As(65_003), Invalid);
        check("2001:db9::/32", Origin::As(65_003), NotFound);
        check("::/0", Origin::As(65_003), NotFound);
        // An IPv4 VRP never covers an IPv6 route of the same bits.
        check("a00::/8", Origin::As(65_001), NotFound);
        assert!(index.covers(&route("10.9.9.0/24")));
        assert!(!index.covers(&route("9.0.0.0/8")));
    }

    #[test]
    fn trailing_bits_of_a_route_are_ignored() {
        let index = VrpIndex::new(&[vrp("10.0.0.0/7", 8, 65_001)]);
        // 10.0.0.0/7 received as "11.0.0.0/7": its trailing bit is set (RFC 4271 §4.3).
        let mut r = hopsig_primitives::codec::Reader::new(&[7, 11]);
        let p = Prefix::read(&mut r, crate::packet::iana::Afi::Ipv4).unwrap();
        assert!(p.has_trailing_bits());
        assert_eq!(index.state(&p, Origin::As(65_001)), RovState::Valid);
        let v = index.validate(&p, Origin::As(65_001));
        assert_eq!(v.reason, "matched by a VRP /7-8 of AS65001 (RFC 6811 §2)");
    }

    #[test]
    fn reasons_name_the_vrp_and_the_origin() {
        let index = VrpIndex::new(&[vrp("10.0.0.0/8", 16, 65_001)]);
        let reason = |p: &str, o: Origin| index.validate(&route(p), o).reason;
        assert_eq!(
            reason("10.1.0.0/16", Origin::As(65_001)),
            "matched by a VRP /8-16 of AS65001 (RFC 6811 §2)"
        );
        assert_eq!(
            reason("10.1.1.0/24", Origin::As(65_001)),
            "covered by 1 VRP, none of AS65001 with a maxLength of at least 24 (RFC 6811 §2)"
        );
        assert_eq!(
            reason("10.1.1.0/24", Origin::None),
            "covered by 1 VRP; the origin is NONE (the AS_PATH does not end in an \
             AS_SEQUENCE), which matches no VRP (RFC 6811 §2)"
        );
        assert_eq!(
            reason("11.0.0.0/8", Origin::None),
            "no VRP covers the prefix (RFC 6811 §2)"
        );
    }
}

/// Random VRP sets and routes in a small address space, so that covering is common:
/// the index agrees with a linear scan of RFC 6811 §2 using the `rpki` crate's
/// `Prefix::covers`.
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
pub(crate) mod strategies {
    use super::*;
    use proptest::prelude::*;
    use rpki::resources::addr::MaxLenPrefix;
    use rpki::resources::Asn;

    /// An address in 10.0.0.0/16 or 2001:db8::/48 (plus a few bits), cut to `len`.
    pub(crate) fn prefix() -> impl Strategy<Value = (IpAddr, u8)> {
        (any::<bool>(), any::<u32>(), 0u8..=40).prop_map(|(v4, x, l)| {
            if v4 {
                let len = (l % 33).max(6);
                let a = 0x0a00_0000 | (x & 0x0003_ff00);
                let a = if len == 0 {
                    0
                } else {
                    a & (u32::MAX << (32 - u32::from(len)))
                };
                (IpAddr::V4(a.into()), len)
            } else {
                let len = 24 + l.min(40);
                let a = (0x2001_0db8u128 << 96) | (u128::from(x & 0x3ff) << 70);
                let a = a & (u128::MAX << (128 - u32::from(len)));
                (IpAddr::V6(a.into()), len)
            }
        })
    }

    pub(crate) fn vrp() -> impl Strategy<Value = RouteOrigin> {
        (prefix(), 0u8..=8, 0u32..4).prop_map(|((addr, len), extra, asn)| {
            let width = if addr.is_ipv4() { 32 } else { 128 };
            let p = rpki::resources::addr::Prefix::new(addr, len).unwrap();
            let max = len.saturating_add(extra).min(width);
            RouteOrigin::new(MaxLenPrefix::new(p, Some(max)).unwrap(), Asn::from_u32(asn))
        })
    }

    pub(crate) fn route() -> impl Strategy<Value = (Prefix, Origin)> {
        (prefix(), 0u32..5).prop_map(|((addr, len), o)| {
            let origin = if o == 4 { Origin::None } else { Origin::As(o) };
            (Prefix::new(addr, len).unwrap(), origin)
        })
    }

    /// RFC 6811 §2 by a scan of every VRP.
    pub(crate) fn naive(vrps: &[RouteOrigin], route: &Prefix, origin: Origin) -> RovState {
        let r = rpki::resources::addr::Prefix::new(route.network().addr(), route.length()).unwrap();
        let mut state = RovState::NotFound;
        for v in vrps {
            if v.prefix.prefix().covers(r) {
                let asn = v.asn.into_u32();
                if origin == Origin::As(asn)
                    && asn != 0
                    && route.length() <= v.prefix.resolved_max_len()
                {
                    return RovState::Valid;
                }
                state = RovState::Invalid;
            }
        }
        state
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn the_index_agrees_with_a_linear_scan(
            vrps in proptest::collection::vec(vrp(), 0..60),
            routes in proptest::collection::vec(route(), 1..40),
        ) {
            let index = VrpIndex::new(&vrps);
            for (prefix, origin) in &routes {
                let want = naive(&vrps, prefix, *origin);
                prop_assert_eq!(index.state(prefix, *origin), want, "{} {}", prefix, origin);
                prop_assert_eq!(index.validate(prefix, *origin).state, want);
                prop_assert_eq!(index.covers(prefix), want != RovState::NotFound);
            }
        }
    }
}
