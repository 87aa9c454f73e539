//! AS path verification with ASPAs (draft-ietf-sidrops-aspa-verification-28 §5):
//! Valid, Invalid or Unknown for an AS_PATH received from a customer, a lateral peer,
//! a route server or an RS-client (upstream, §5.5), or from a provider (downstream,
//! §5.6).
//!
//! The draft's indexing is used as is: the AS_PATH with consecutive repeats collapsed
//! is the COMPRESSED_AS_PATH `AS(N) … AS(1)` (§5.2), AS(1) the origin (the last AS on
//! the wire) and AS(N) the neighbour (the first). `authorized(x, y)` (§5.3) says whether
//! `y` is in the Union SPAS of customer `x`: "Provider+", "Not Provider+", or "No
//! Attestation" when `x` has no ASPA. The up-ramp grows from AS(1) while each hop
//! AS(i) → AS(i+1) is customer-to-provider, the down-ramp from AS(N) while each hop
//! AS(j) → AS(j−1) is; §5.4 bounds both lengths from the hop results, and a path is
//! valid when the two ramps can meet (their lengths add up to at least N).
//!
//! Where -28 differs from -27 (whose full text hopsig's spec was checked against,
//! docs/spec/rpki.md "ASPA verification"): the sections were renumbered (a new §5.1 on
//! the checks that precede verification; -27's §5.1–§5.6 became §5.2–§5.7); the steps
//! are the same.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use rpki::rtr::payload::Aspa;

use super::rov::Fold;
use crate::packet::iana::AsPathSegmentType;
use crate::packet::AsPath;

/// The draft every reason cites.
pub const DRAFT: &str = "draft-ietf-sidrops-aspa-verification-28";

/// The role of the neighbour a route came from, as configured (RFC 9234 §3.1 roles;
/// draft §3, §6.3): it picks the upstream or the downstream procedure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Relation {
    /// The neighbour is our customer: upstream (§5.5).
    Customer,
    /// The neighbour is a lateral peer: upstream (§5.5).
    Peer,
    /// The neighbour is our provider: downstream (§5.6).
    Provider,
    /// The neighbour is a route server and we are its RS-client: upstream, without the
    /// neighbour-AS check, since a transparent RS does not add its AS (§5.5 step 2).
    RouteServer,
    /// The neighbour is an RS-client and we are the route server: upstream (§5.5).
    RsClient,
}

impl Relation {
    /// Every relation, in declaration order.
    pub const ALL: [Relation; 5] = [
        Relation::Customer,
        Relation::Peer,
        Relation::Provider,
        Relation::RouteServer,
        Relation::RsClient,
    ];

    /// "customer", "peer", "provider", "rs" or "rs-client".
    pub fn name(self) -> &'static str {
        match self {
            Relation::Customer => "customer",
            Relation::Peer => "peer",
            Relation::Provider => "provider",
            Relation::RouteServer => "rs",
            Relation::RsClient => "rs-client",
        }
    }

    /// Whether routes from such a neighbour take the downstream procedure (§5.6).
    pub fn downstream(self) -> bool {
        self == Relation::Provider
    }
}

impl fmt::Display for Relation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A relation name that is none of [`Relation::name`]'s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown neighbour relation {0:?} (customer, peer, provider, rs or rs-client)")]
pub struct UnknownRelation(pub String);

impl FromStr for Relation {
    type Err = UnknownRelation;

    fn from_str(s: &str) -> Result<Relation, UnknownRelation> {
        Relation::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| UnknownRelation(s.to_string()))
    }
}

/// An AS path verification outcome (§5.5, §5.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AspaState {
    /// The ramps are shown to meet with attested hops only.
    Valid,
    /// A hop is shown not to be customer-to-provider where the path needs one, or the
    /// path is empty or has an AS_SET.
    Invalid,
    /// Not enough ASPAs to tell.
    Unknown,
}

impl AspaState {
    /// "valid", "invalid" or "unknown".
    pub fn name(self) -> &'static str {
        match self {
            AspaState::Valid => "valid",
            AspaState::Invalid => "invalid",
            AspaState::Unknown => "unknown",
        }
    }
}

impl fmt::Display for AspaState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An AS path verification verdict: its state and why, citing the draft's section and
/// step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AspaVerdict {
    /// The state.
    pub state: AspaState,
    /// Why; for Invalid, the "Not Provider+" hops (§6.6 asks them to be logged).
    pub reason: String,
}

/// The provider authorization function's result (§5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Authorization {
    /// The provider is in the customer's U-SPAS.
    ProviderPlus,
    /// The customer has an ASPA and the provider is not in it.
    NotProviderPlus,
    /// The customer has no ASPA.
    NoAttestation,
}

/// The bounds on the ramp lengths of a COMPRESSED_AS_PATH (§5.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ramps {
    /// N, the length of the COMPRESSED_AS_PATH.
    pub n: usize,
    /// max_up_ramp.
    pub max_up: usize,
    /// min_up_ramp.
    pub min_up: usize,
    /// max_down_ramp (0 for the upstream procedure).
    pub max_down: usize,
    /// min_down_ramp (0 for the upstream procedure).
    pub min_down: usize,
}

impl Ramps {
    /// Steps 4–6 of §5.5 / §5.6: Invalid if max_up_ramp + max_down_ramp < N, else
    /// Unknown if min_up_ramp + min_down_ramp < N, else Valid.
    pub fn state(&self) -> AspaState {
        if self.max_up + self.max_down < self.n {
            AspaState::Invalid
        } else if self.min_up + self.min_down < self.n {
            AspaState::Unknown
        } else {
            AspaState::Valid
        }
    }
}

/// Where the procedure stopped before its ramp steps, or the bounds for them.
enum Halt {
    /// Step 1.
    Empty,
    /// Step 2, with the neighbour's AS.
    Neighbor(u32),
    /// Step 3.
    Set,
    /// Steps 4–6.
    Ramps(Ramps),
}

/// The ASPAs of a view: each customer's Union SPAS, sorted (§5.3).
#[derive(Debug, Clone, Default)]
pub struct AspaIndex {
    by_customer: HashMap<u32, Box<[u32]>, Fold>,
}

impl AspaIndex {
    /// An index of `aspas`; several ASPAs of one customer are united (the U-SPAS,
    /// §5.3). An ASPA with no provider (an RTR withdrawal) attests nothing.
    pub fn new<'a>(aspas: impl IntoIterator<Item = &'a Aspa>) -> AspaIndex {
        let mut sets: HashMap<u32, Vec<u32>> = HashMap::new();
        for a in aspas {
            if a.providers.is_empty() {
                continue;
            }
            sets.entry(a.customer.into_u32())
                .or_default()
                .extend(a.providers.iter().map(|p| p.into_u32()));
        }
        let by_customer = sets
            .into_iter()
            .map(|(c, mut p)| {
                p.sort_unstable();
                p.dedup();
                (c, p.into_boxed_slice())
            })
            .collect();
        AspaIndex { by_customer }
    }

    /// The number of customer ASes with an ASPA.
    pub fn len(&self) -> usize {
        self.by_customer.len()
    }

    /// Whether no AS has an ASPA.
    pub fn is_empty(&self) -> bool {
        self.by_customer.is_empty()
    }

    /// The U-SPAS of `customer`, sorted, if it has an ASPA.
    pub fn providers(&self, customer: u32) -> Option<&[u32]> {
        self.by_customer.get(&customer).map(|p| &p[..])
    }

    /// authorized(`customer`, `provider`) (§5.3). AS 0 in a SPAS "has no influence"
    /// (§4): an AS0 ASPA is an entry (so its customer's hops are Not Provider+), and AS 0
    /// is never a Provider+, even in a (malformed, RFC 7607) path that holds it.
    pub fn authorized(&self, customer: u32, provider: u32) -> Authorization {
        match self.by_customer.get(&customer) {
            None => Authorization::NoAttestation,
            Some(set) if provider != 0 && set.binary_search(&provider).is_ok() => {
                Authorization::ProviderPlus
            }
            Some(_) => Authorization::NotProviderPlus,
        }
    }

    /// Verifies `path` (wire order: the neighbour first, the origin last) received from
    /// a neighbour of role `from`: the upstream (§5.5) or downstream (§5.6) procedure.
    /// `neighbor_as` is the neighbour's AS for step 2 (the most recently added AS must
    /// be it); `None` leaves step 2 to the caller (hopsig's speaker checks the first AS
    /// when it decodes the UPDATE, RFC 4271 §6.3, as §5.1 asks to happen first).
    /// Confederation segments are skipped: the procedures run on paths as seen outside
    /// a confederation, where RFC 5065 §4.1 removes them (§6.2 does not recommend
    /// ASPA verification inside one).
    pub fn verify(&self, path: &AsPath, from: Relation, neighbor_as: Option<u32>) -> AspaVerdict {
        let section = if from.downstream() { "§5.6" } else { "§5.5" };
        let mut a = Vec::with_capacity(16);
        let (state, reason) = match self.run(path, from, neighbor_as, &mut a) {
            Halt::Empty => (
                AspaState::Invalid,
                format!("the AS_PATH is empty ({DRAFT} {section} step 1)"),
            ),
            Halt::Neighbor(n) => (
                AspaState::Invalid,
                format!(
                    "the most recently added AS is not the neighbour AS{n} ({DRAFT} {section} \
                     step 2)"
                ),
            ),
            Halt::Set => (
                AspaState::Invalid,
                format!("the AS_PATH has an AS_SET ({DRAFT} {section} step 3)"),
            ),
            Halt::Ramps(r) => {
                let Ramps {
                    n,
                    max_up,
                    min_up,
                    max_down,
                    min_down,
                } = r;
                match r.state() {
                    AspaState::Invalid => (
                        AspaState::Invalid,
                        format!(
                            "{}: max_up_ramp {max_up} + max_down_ramp {max_down} < N {n} (§5.4) \
                             ({DRAFT} {section} step 4)",
                            self.not_provider_hops(&a, from.downstream())
                        ),
                    ),
                    AspaState::Unknown => (
                        AspaState::Unknown,
                        format!(
                            "a hop has No Attestation: min_up_ramp {min_up} + min_down_ramp \
                             {min_down} < N {n} (§5.4) ({DRAFT} {section} step 5)"
                        ),
                    ),
                    AspaState::Valid => (
                        AspaState::Valid,
                        format!(
                            "every hop the path needs is Provider+ (N {n}, §5.4) ({DRAFT} \
                             {section} step 6)"
                        ),
                    ),
                }
            }
        };
        AspaVerdict { state, reason }
    }

    /// The state alone of [`AspaIndex::verify`], without a reason.
    pub fn state(&self, path: &AsPath, from: Relation, neighbor_as: Option<u32>) -> AspaState {
        let mut a = Vec::with_capacity(16);
        match self.run(path, from, neighbor_as, &mut a) {
            Halt::Empty | Halt::Neighbor(_) | Halt::Set => AspaState::Invalid,
            Halt::Ramps(r) => r.state(),
        }
    }

    /// Steps 1–3, then the bounds for steps 4–6; `a` gets the COMPRESSED_AS_PATH.
    fn run(
        &self,
        path: &AsPath,
        from: Relation,
        neighbor_as: Option<u32>,
        a: &mut Vec<u32>,
    ) -> Halt {
        // COMPRESSED_AS_PATH in the draft's order: a[0] = AS(1), the origin (§5.2).
        let mut has_set = false;
        for s in path.segments.iter().rev() {
            match s.kind {
                AsPathSegmentType::AsSequence => {
                    for &asn in s.asns.iter().rev() {
                        if a.last() != Some(&asn) {
                            a.push(asn);
                        }
                    }
                }
                AsPathSegmentType::AsSet => has_set = true,
                _ => {}
            }
        }
        // Step 1.
        if a.is_empty() && !has_set {
            return Halt::Empty;
        }
        // Step 2: a transparent RS does not add its AS, so routes from one are exempt.
        if let (Some(neighbor), true) = (neighbor_as, from != Relation::RouteServer) {
            let first = path
                .segments
                .iter()
                .find(|s| {
                    matches!(
                        s.kind,
                        AsPathSegmentType::AsSequence | AsPathSegmentType::AsSet
                    )
                })
                .and_then(|s| match s.kind {
                    AsPathSegmentType::AsSequence => s.asns.first().copied(),
                    _ => None,
                });
            if first != Some(neighbor) {
                return Halt::Neighbor(neighbor);
            }
        }
        // Step 3.
        if has_set {
            return Halt::Set;
        }
        Halt::Ramps(self.ramps(a, from.downstream()))
    }

    /// The bounds of §5.4 on the COMPRESSED_AS_PATH `a` (origin first: `a[0]` is
    /// AS(1)); the down-ramp's only with `down` (the upstream procedure sets them to 0,
    /// §5.5).
    pub fn ramps(&self, a: &[u32], down: bool) -> Ramps {
        let n = a.len();
        // The up-ramp's hops AS(i) → AS(i+1), i from 1; a[i - 1] is AS(i).
        let mut max_up = n;
        let mut min_up = n;
        for i in 1..n {
            match self.authorized(a[i - 1], a[i]) {
                Authorization::ProviderPlus => {}
                Authorization::NoAttestation => min_up = min_up.min(i),
                Authorization::NotProviderPlus => {
                    min_up = min_up.min(i);
                    max_up = i;
                    break;
                }
            }
        }
        let (mut max_down, mut min_down) = (0, 0);
        if down {
            // The down-ramp's hops AS(j) → AS(j−1), j from N down to 2.
            (max_down, min_down) = (n, n);
            for j in (2..=n).rev() {
                match self.authorized(a[j - 1], a[j - 2]) {
                    Authorization::ProviderPlus => {}
                    Authorization::NoAttestation => min_down = min_down.min(n - j + 1),
                    Authorization::NotProviderPlus => {
                        min_down = min_down.min(n - j + 1);
                        max_down = n - j + 1;
                        break;
                    }
                }
            }
        }
        Ramps {
            n,
            max_up,
            min_up,
            max_down,
            min_down,
        }
    }

    /// The "Not Provider+" hops of the compressed path `a` (origin first), as §6.6
    /// suggests logging them: "AS x → AS y" where `y` is not a provider of `x`.
    fn not_provider_hops(&self, a: &[u32], downstream: bool) -> String {
        let mut hops = Vec::new();
        for w in a.windows(2) {
            if self.authorized(w[0], w[1]) == Authorization::NotProviderPlus {
                hops.push(format!("AS{} is not a provider of AS{}", w[1], w[0]));
            }
            if downstream && self.authorized(w[1], w[0]) == Authorization::NotProviderPlus {
                hops.push(format!("AS{} is not a provider of AS{}", w[0], w[1]));
            }
        }
        hops.join(", ")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::packet::AsPathSegment;
    use rpki::resources::Asn;
    use rpki::rtr::pdu::ProviderAsns;

    pub(crate) fn aspa(customer: u32, providers: &[u32]) -> Aspa {
        Aspa::new(
            Asn::from_u32(customer),
            ProviderAsns::try_from_iter(providers.iter().map(|p| Asn::from_u32(*p))).unwrap(),
        )
    }

    /// The path of `asns` given origin first (the way the draft's figures read
    /// bottom-up), as it is on the wire (neighbour first).
    fn path(origin_first: &[u32]) -> AsPath {
        AsPath::sequence(origin_first.iter().rev().copied().collect())
    }

    fn state(index: &AspaIndex, origin_first: &[u32], from: Relation) -> AspaState {
        let v = index.verify(&path(origin_first), from, None);
        assert!(v.reason.contains(DRAFT), "{}", v.reason);
        v.state
    }

    /// The draft's worked examples (§6.1, [aspa-examples]: "ASPA-based AS path
    /// verification examples", K. Sriram, O. Borchert, M. Matejka, August 2025), as
    /// transcribed for the independent reference into interop/python/test_rpki_reference.py:
    /// each row's path (neighbour first, letters for ASes, A = 1), its four bounds and
    /// its outcome.
    #[test]
    fn the_drafts_worked_examples() {
        let asn = |c: char| {
            if c == '0' {
                0
            } else {
                u32::from(c) - u32::from('A') + 1
            }
        };
        let index = |spas: &[(char, &str)]| {
            let list: Vec<Aspa> = spas
                .iter()
                .map(|(c, p)| {
                    aspa(
                        asn(*c),
                        &p.chars().filter(|c| *c != ' ').map(asn).collect::<Vec<_>>(),
                    )
                })
                .collect();
            AspaIndex::new(&list)
        };
        // Topology page 2: A {C, D}; B {E}; C {F}; D {F, G}; G {AS0}.
        let page2 = index(&[
            ('A', "C D"),
            ('B', "E"),
            ('C', "F"),
            ('D', "F G"),
            ('G', "0"),
        ]);
        // Page 9: H, K, P, Q AS0 ASPAs; L {K}; R {Q}; S {R}.
        let page9 = index(&[
            ('H', "0"),
            ('K', "0"),
            ('L', "K"),
            ('P', "0"),
            ('Q', "0"),
            ('R', "Q"),
            ('S', "R"),
        ]);
        use AspaState::*;
        // (index, path, relation, N, max_up, max_down, min_up, min_down, outcome);
        // tables 1 and 3's upstream rows have no down-ramp (0).
        let up = Relation::Customer;
        let peer = Relation::Peer;
        let down = Relation::Provider;
        let rows: &[(&AspaIndex, &str, Relation, [usize; 5], AspaState)] = &[
            // Table 1, upstream.
            (&page2, "F C A", up, [3, 3, 0, 3, 0], Valid),
            (&page2, "D C A", up, [3, 2, 0, 2, 0], Invalid),
            (&page2, "D F C A", up, [4, 4, 0, 3, 0], Unknown),
            (&page2, "D E B", up, [3, 3, 0, 2, 0], Unknown),
            (&page2, "A D E B", up, [4, 3, 0, 2, 0], Invalid),
            (&page2, "A D G E B", up, [5, 3, 0, 2, 0], Invalid),
            (&page2, "A C F", up, [3, 2, 0, 1, 0], Invalid),
            (&page2, "A C F G", up, [4, 1, 0, 1, 0], Invalid),
            (&page2, "E B", up, [2, 2, 0, 2, 0], Valid),
            // Table 2, downstream.
            (&page2, "E G F C A", down, [5, 4, 2, 3, 1], Unknown),
            (&page2, "E G D A", down, [4, 3, 2, 3, 1], Valid),
            (&page2, "E D C A", down, [4, 2, 2, 2, 1], Unknown),
            (&page2, "E G D C A", down, [5, 2, 2, 2, 1], Invalid),
            (&page2, "C F D G", down, [4, 1, 4, 1, 2], Unknown),
            (&page2, "D G E B", down, [4, 3, 2, 2, 2], Valid),
            (&page2, "C D G E B", down, [5, 3, 1, 2, 1], Invalid),
            (&page2, "F C A", down, [3, 3, 2, 3, 1], Valid),
            (&page2, "E A", down, [2, 1, 2, 1, 1], Valid),
            (&page2, "E C A", down, [3, 2, 2, 2, 1], Valid),
            // Table 3, Complex relationships (P2C: from a customer; C2P: a provider).
            (&page9, "J H", up, [2, 1, 0, 1, 0], Invalid),
            (&page9, "J H", peer, [2, 1, 0, 1, 0], Invalid),
            (&page9, "K J H", down, [3, 1, 1, 1, 1], Invalid),
            (&page9, "Q P", peer, [2, 1, 0, 1, 0], Invalid),
            (&page9, "Q P", down, [2, 1, 1, 1, 1], Valid),
            (&page9, "R Q P", down, [3, 1, 2, 1, 2], Valid),
        ];
        for (index, letters, from, [n, max_up, max_down, min_up, min_down], want) in rows {
            let wire: Vec<u32> = letters
                .split(' ')
                .map(|l| asn(l.chars().next().unwrap()))
                .collect();
            let origin_first: Vec<u32> = wire.iter().rev().copied().collect();
            let got = index.ramps(&origin_first, from.downstream());
            let bounds = Ramps {
                n: *n,
                max_up: *max_up,
                min_up: *min_up,
                max_down: *max_down,
                min_down: *min_down,
            };
            assert_eq!(got, bounds, "{letters} from a {from}");
            let v = index.verify(&AsPath::sequence(wire), *from, None);
            assert_eq!(v.state, *want, "{letters} from a {from}: {}", v.reason);
        }
    }

    #[test]
    fn relations_parse_and_print_by_name() {
        for r in Relation::ALL {
            assert_eq!(r.name().parse::<Relation>().unwrap(), r);
            assert_eq!(r.to_string(), r.name());
        }
        assert_eq!(
            "transit".parse::<Relation>().unwrap_err().to_string(),
            "unknown neighbour relation \"transit\" (customer, peer, provider, rs or rs-client)"
        );
    }

    #[test]
    fn the_provider_authorization_function() {
        let index = AspaIndex::new(&[aspa(1, &[2, 3]), aspa(1, &[4]), aspa(9, &[0])]);
        use Authorization::*;
        assert_eq!(index.authorized(1, 2), ProviderPlus);
        assert_eq!(index.authorized(1, 4), ProviderPlus, "U-SPAS: the union");
        assert_eq!(index.authorized(1, 5), NotProviderPlus);
        assert_eq!(index.authorized(2, 1), NoAttestation);
        assert_eq!(index.authorized(9, 1), NotProviderPlus, "AS0 ASPA");
        assert_eq!(
            index.authorized(9, 0),
            NotProviderPlus,
            "AS 0 is no provider (§4)"
        );
        assert_eq!(index.providers(1), Some(&[2, 3, 4][..]));
        assert_eq!(index.len(), 2);
    }

    /// Upstream (§5.5). Chains drawn origin at the bottom, the receiver at the top:
    ///
    /// ```text
    ///      (us)            (us)          (us)
    ///       |c2p            |             |
    ///       3               3  <- peer -> 3
    ///       |c2p            |c2p          |c2p?
    ///       2               2             2
    ///       |c2p            |c2p          |c2p
    ///       1               1             1
    /// ```
    #[test]
    fn upstream_paths() {
        use AspaState::*;
        // 1's provider is 2, 2's is 3, 3's is 4: 1 → 2 → 3 all customer-to-provider.
        let full = AspaIndex::new(&[aspa(1, &[2]), aspa(2, &[3]), aspa(3, &[4])]);
        for from in [
            Relation::Customer,
            Relation::Peer,
            Relation::RouteServer,
            Relation::RsClient,
        ] {
            assert_eq!(state(&full, &[1, 2, 3], from), Valid, "{from}");
            assert_eq!(state(&full, &[1], from), Valid, "{from}: origin alone");
            // 3 → 2 is a provider-to-customer hop: a leak towards us.
            assert_eq!(state(&full, &[1, 2, 3, 2], from), Invalid, "{from}");
            // 2's ASPA does not list 5: 2 → 5 is Not Provider+.
            assert_eq!(state(&full, &[1, 2, 5], from), Invalid, "{from}");
        }
        // 2 has no ASPA: the hop 2 → 3 has No Attestation.
        let partial = AspaIndex::new(&[aspa(1, &[2]), aspa(3, &[4])]);
        assert_eq!(state(&partial, &[1, 2, 3], Relation::Customer), Unknown);
        // ... but a later Not Provider+ hop still makes it Invalid (max_up_ramp).
        assert_eq!(state(&partial, &[1, 2, 3, 5], Relation::Customer), Invalid);
        // Nobody has an ASPA.
        let none = AspaIndex::default();
        assert_eq!(state(&none, &[1, 2, 3], Relation::Peer), Unknown);
        assert_eq!(state(&none, &[1], Relation::Peer), Valid);
    }

    /// Downstream (§5.6): an up-ramp from the origin, a down-ramp from the neighbour,
    /// at most one lateral (peer) hop between their apexes.
    ///
    /// ```text
    ///            3 <-peer-> 4
    ///     c2p  /              \  p2c
    ///         2                5
    ///   c2p  /                  \  p2c
    ///       1                  (us)
    /// ```
    #[test]
    fn downstream_paths() {
        use AspaState::*;
        let from = Relation::Provider;
        // 1 ⊂ 2 ⊂ 3, 4 ⊃ 5 ⊃ us: the path 1 2 3 4 5 (origin first).
        let index = AspaIndex::new(&[
            aspa(1, &[2]),
            aspa(2, &[3]),
            aspa(3, &[30]),
            aspa(4, &[40]),
            aspa(5, &[4]),
        ]);
        assert_eq!(state(&index, &[1, 2, 3, 4, 5], from), Valid);
        // The one hop between the apexes may be anything: up to 3, then 3 - 5 lateral.
        assert_eq!(state(&index, &[1, 2, 3, 5], from), Valid);
        // Down, then up again: 5 → 4 is not a provider-to-customer hop seen from 3.
        assert_eq!(state(&index, &[1, 2, 3, 4, 5, 4], from), Invalid);
        // Two lateral hops between the ramps: 3 - 6 - 4 (6 has an ASPA without 3 or 4).
        let two = AspaIndex::new(&[
            aspa(1, &[2]),
            aspa(2, &[3]),
            aspa(3, &[30]),
            aspa(6, &[60]),
            aspa(4, &[40]),
            aspa(5, &[4]),
        ]);
        assert_eq!(state(&two, &[1, 2, 3, 6, 4, 5], from), Invalid);
        // A downstream-valid path is an upstream leak: received from a customer.
        assert_eq!(state(&index, &[1, 2, 3, 4, 5], Relation::Customer), Invalid);
        // Missing ASPA in the middle of the down-ramp: Unknown.
        let gap = AspaIndex::new(&[aspa(1, &[2]), aspa(2, &[3]), aspa(3, &[30]), aspa(5, &[4])]);
        // 4 has no ASPA: down from 5, 5 → 4 is Provider+ and 4 → 3 No Attestation;
        // up from 1, 3 → 4 is Not Provider+: max 3 + 3 ≥ 5, min 3 + 2 = 5.
        assert_eq!(state(&gap, &[1, 2, 3, 4, 5], from), Valid);
        let gap2 = AspaIndex::new(&[aspa(1, &[2]), aspa(3, &[30]), aspa(5, &[4])]);
        // 2 has no ASPA either: min_up_ramp 2, min_down_ramp 2: 4 < 5.
        assert_eq!(state(&gap2, &[1, 2, 3, 4, 5], from), Unknown);
        // Origin and neighbour only: always valid downstream (one hop apart).
        assert_eq!(state(&index, &[7, 8], from), Valid);
        assert_eq!(state(&AspaIndex::default(), &[7, 8, 9], from), Unknown);
    }

    #[test]
    fn prepends_collapse_and_empty_paths_and_sets_are_invalid() {
        use AspaState::*;
        let index = AspaIndex::new(&[aspa(1, &[2]), aspa(2, &[3])]);
        assert_eq!(
            state(&index, &[1, 1, 1, 2, 2, 3], Relation::Customer),
            Valid
        );
        // Not consecutive: 1 2 1 is a real hop 2 → 1 (Not Provider+ for 2).
        assert_eq!(state(&index, &[1, 2, 1], Relation::Customer), Invalid);
        let empty = index.verify(&AsPath::default(), Relation::Customer, None);
        assert_eq!(empty.state, Invalid);
        assert!(empty.reason.contains("§5.5 step 1"), "{}", empty.reason);
        let with_set = AsPath {
            segments: vec![
                AsPathSegment {
                    kind: AsPathSegmentType::AsSequence,
                    asns: vec![3, 2],
                },
                AsPathSegment {
                    kind: AsPathSegmentType::AsSet,
                    asns: vec![1, 4],
                },
            ],
        };
        for from in Relation::ALL {
            let v = index.verify(&with_set, from, None);
            assert_eq!(v.state, Invalid, "{from}");
            assert!(v.reason.contains("step 3"), "{}", v.reason);
        }
        // A path of one AS_SET alone is not empty: step 3.
        let only_set = AsPath {
            segments: vec![AsPathSegment {
                kind: AsPathSegmentType::AsSet,
                asns: vec![1],
            }],
        };
        assert!(index
            .verify(&only_set, Relation::Provider, None)
            .reason
            .contains("§5.6 step 3"));
    }

    #[test]
    fn the_neighbour_check_exempts_route_servers() {
        let index = AspaIndex::new(&[aspa(1, &[2])]);
        let p = AsPath::sequence(vec![2, 1]);
        let v = index.verify(&p, Relation::Customer, Some(3));
        assert_eq!(v.state, AspaState::Invalid);
        assert!(v.reason.contains("§5.5 step 2"), "{}", v.reason);
        assert_eq!(
            index.verify(&p, Relation::Customer, Some(2)).state,
            AspaState::Valid
        );
        // From a transparent RS (AS 3) the first AS is the RS-client's.
        assert_eq!(
            index.verify(&p, Relation::RouteServer, Some(3)).state,
            AspaState::Valid
        );
        assert_eq!(
            index.verify(&p, Relation::Provider, Some(3)).state,
            AspaState::Invalid
        );
    }

    #[test]
    fn invalid_reasons_list_the_not_provider_hops() {
        let index = AspaIndex::new(&[aspa(1, &[2]), aspa(2, &[3])]);
        let v = index.verify(&path(&[1, 2, 5]), Relation::Customer, None);
        assert_eq!(
            v.reason,
            format!(
                "AS5 is not a provider of AS2: max_up_ramp 2 + max_down_ramp 0 < N 3 (§5.4) \
                 ({DRAFT} §5.5 step 4)"
            )
        );
    }
}
