//! The one view a validator consults: file sources and RTR caches merged, SLURM
//! applied, router keys parsed for the BGPsec suites (docs/spec/rpki.md, "Merge
//! rules"), and what changed between two views, so that only the routes a change can
//! affect are revalidated.
//!
//! Merge (RFC 8416 §4): the union of the files' and the caches' payload; then every
//! SLURM file's filters drop what they match (they apply to the relying party's data
//! only); then every SLURM file's assertions are added. Several ASPAs of one customer
//! are united (the Union SPAS of draft-ietf-sidrops-aspa-verification-28 §5.3), so a
//! SLURM file replaces a customer's providers by filtering that customer and asserting
//! the new set.

use std::collections::{BTreeMap, HashMap, HashSet};

use rpki::resources::Asn;
use rpki::rtr::pdu::{ProviderAsns, RouterKeyInfo};
use rpki::slurm::SlurmFile;

use super::aspa::{AspaIndex, AspaVerdict, Relation};
use super::payload::{Aspa, Limits, Payload, PayloadSet, TooMuch};
use super::rov::{route_origin, Origin, RovVerdict, VrpIndex};
use crate::packet::iana::AsPathSegmentType;
use crate::packet::{AsPath, Prefix};
use crate::router_key::{RouterKey, RouterKeys, Ski};

/// The merged RPKI view: payload, router keys, and the ROV and ASPA indexes.
#[derive(Debug, Clone, Default)]
pub struct View {
    payload: PayloadSet,
    keys: RouterKeys,
    rov: VrpIndex,
    aspa: AspaIndex,
}

/// Whether one SLURM file's filters drop `item` (RFC 8416 §3.3: a prefix filter
/// matches a VRP whose prefix it covers and/or whose AS it names; a BGPsec filter a
/// key of its SKI and/or AS; an ASPA filter, SLURM v2, the ASPA of its customer).
/// The `rpki` crate's `SlurmFile::drop_payload` applies only the prefix filters, so
/// the three kinds are applied here.
pub fn slurm_drops(slurm: &SlurmFile, item: &Payload) -> bool {
    let f = &slurm.filters;
    f.prefix.iter().any(|p| p.drop_payload(item))
        || f.bgpsec.iter().any(|b| b.drop_payload(item))
        || f.aspa.iter().flatten().any(|a| a.drop_payload(item))
}

/// The merged set under construction: origins and router keys in `set`, ASPAs as
/// each customer's provider union (§5.3's U-SPAS) until [`Merge::finish`].
pub(super) struct Merge<'a> {
    set: PayloadSet,
    aspas: BTreeMap<u32, Vec<u32>>,
    limits: &'a Limits,
}

impl<'a> Merge<'a> {
    /// An empty merge under `limits`.
    pub(super) fn new(limits: &'a Limits) -> Merge<'a> {
        Merge {
            set: PayloadSet::new(),
            aspas: BTreeMap::new(),
            limits,
        }
    }

    /// Adds `item`; an ASPA is united with its customer's.
    pub(super) fn add(&mut self, item: Payload) -> Result<(), TooMuch> {
        match item {
            Payload::Aspa(a) => {
                if !a.providers.is_empty() {
                    let set = self.aspas.entry(a.customer.into_u32()).or_default();
                    set.extend(a.providers.iter().map(Asn::into_u32));
                    set.sort_unstable();
                    set.dedup();
                    let len = set.len();
                    self.check(len)?;
                }
                Ok(())
            }
            other => self.set.insert(other, self.limits),
        }
    }

    fn check(&self, providers: usize) -> Result<(), TooMuch> {
        let limit = self.limits.providers_per_aspa.min(ProviderAsns::MAX_COUNT);
        if providers > limit {
            return Err(TooMuch {
                what: "providers in one ASPA",
                limit,
            });
        }
        Ok(())
    }

    /// The merged set.
    pub(super) fn finish(mut self) -> Result<PayloadSet, TooMuch> {
        for (customer, providers) in std::mem::take(&mut self.aspas) {
            self.check(providers.len())?;
            let providers = ProviderAsns::try_from_iter(providers.into_iter().map(Asn::from_u32))
                .map_err(|_| TooMuch {
                what: "providers in one ASPA",
                limit: ProviderAsns::MAX_COUNT,
            })?;
            self.set.insert(
                Payload::Aspa(Aspa::new(Asn::from_u32(customer), providers)),
                self.limits,
            )?;
        }
        Ok(self.set)
    }
}

/// The hopsig triple of an RPKI router key (RFC 8210 §5.10: SKI, AS, DER
/// SubjectPublicKeyInfo), parsed by every suite that accepts it.
pub fn router_key(k: &super::payload::RouterKey) -> RouterKey {
    let mut ski: Ski = [0; 20];
    ski.copy_from_slice(k.key_identifier.as_slice());
    RouterKey::new(k.asn.into_u32(), ski, k.key_info.as_slice())
}

/// The RPKI router key of a hopsig triple; `None` for a key longer than an RTR Router
/// Key PDU can carry.
pub fn rtr_router_key(k: &RouterKey) -> Option<super::payload::RouterKey> {
    let info = RouterKeyInfo::try_from(k.spki().to_vec()).ok()?;
    Some(super::payload::RouterKey::new(
        (*k.ski()).into(),
        Asn::from_u32(k.asn()),
        info,
    ))
}

/// The merged payload (docs/spec/rpki.md, "Merge rules"): `files` ∪ `rtr`, then every
/// SLURM filter of `slurm` drops what it matches, then every SLURM assertion is added
/// (RFC 8416 §4). What a cache serves (`hopsig rtr serve`); [`View::build`] indexes it.
///
/// # Errors
/// [`TooMuch`] when the merged set goes over `limits`.
pub fn merge(
    files: &PayloadSet,
    rtr: &PayloadSet,
    slurm: &[SlurmFile],
    limits: &Limits,
) -> Result<PayloadSet, TooMuch> {
    let mut merge = Merge::new(limits);
    for item in files.iter().chain(rtr.iter()) {
        if !slurm.iter().any(|s| slurm_drops(s, &item)) {
            merge.add(item)?;
        }
    }
    for s in slurm {
        for item in s.assertions.iter_payload() {
            merge.add(item)?;
        }
    }
    merge.finish()
}

impl View {
    /// A view with nothing: every route NotFound and Unknown, no router key.
    pub fn empty() -> View {
        View::default()
    }

    /// The view of router keys alone (what hopsig's file-only key loading gives).
    pub fn from_router_keys(keys: RouterKeys) -> View {
        let mut payload = PayloadSet::new();
        let unlimited = Limits {
            router_keys: usize::MAX,
            ..Limits::default()
        };
        for k in keys.iter() {
            if let Some(k) = rtr_router_key(k) {
                // Cannot fail: no limit on router keys.
                let _ = payload.insert(Payload::RouterKey(k), &unlimited);
            }
        }
        View {
            payload,
            keys,
            ..View::default()
        }
    }

    /// The merged view ([`merge`]), its router keys parsed once here.
    ///
    /// # Errors
    /// [`TooMuch`] when the merged set goes over `limits`.
    pub fn build(
        files: &PayloadSet,
        rtr: &PayloadSet,
        slurm: &[SlurmFile],
        limits: &Limits,
    ) -> Result<View, TooMuch> {
        Ok(View::of(merge(files, rtr, slurm, limits)?))
    }

    /// The view of `payload` as it is.
    pub fn of(payload: PayloadSet) -> View {
        let keys = payload.router_keys().map(router_key).collect();
        let rov = VrpIndex::from_origins(payload.origins());
        let aspa = AspaIndex::new(payload.aspas());
        View {
            payload,
            keys,
            rov,
            aspa,
        }
    }

    /// The router keys, for BGPsec validation (RFC 8205 §5.2 step 2).
    pub fn router_keys(&self) -> &RouterKeys {
        &self.keys
    }

    /// The route origin validation verdict of a route for `prefix` with `path` (RFC
    /// 6811 §2; the origin as [`route_origin`] derives it without an own AS).
    pub fn rov(&self, prefix: &Prefix, path: &AsPath) -> RovVerdict {
        self.rov.validate(prefix, route_origin(path, None))
    }

    /// The route origin validation verdict for an origin already derived (a speaker
    /// gives its own AS for locally originated routes, RFC 6811 §2).
    pub fn rov_origin(&self, prefix: &Prefix, origin: Origin) -> RovVerdict {
        self.rov.validate(prefix, origin)
    }

    /// The ASPA verdict of `path` received from a neighbour of role `from`
    /// (draft-ietf-sidrops-aspa-verification-28 §5.5, §5.6), the neighbour-AS check
    /// (step 2) left to the caller.
    pub fn aspa(&self, path: &AsPath, from: Relation) -> AspaVerdict {
        self.aspa.verify(path, from, None)
    }

    /// The ROV index.
    pub fn vrps(&self) -> &VrpIndex {
        &self.rov
    }

    /// The ASPA index.
    pub fn aspas(&self) -> &AspaIndex {
        &self.aspa
    }

    /// The merged payload, SLURM applied.
    pub fn payload(&self) -> &PayloadSet {
        &self.payload
    }

    /// (VRPs, router keys, ASPAs) of the merged payload.
    pub fn counts(&self) -> (usize, usize, usize) {
        self.payload.counts()
    }

    /// What differs between `self` and `newer`: the router keys by (AS, SKI), the VRPs
    /// added or removed, the customers whose ASPA changed (set differences).
    pub fn changes(&self, newer: &View) -> Changes {
        let (old, new) = (&self.payload, &newer.payload);
        let keys: HashSet<(u32, Ski)> = old
            .router_keys()
            .filter(|k| !new.contains(&Payload::RouterKey((*k).clone())))
            .chain(
                new.router_keys()
                    .filter(|k| !old.contains(&Payload::RouterKey((*k).clone()))),
            )
            .map(|k| {
                let mut ski: Ski = [0; 20];
                ski.copy_from_slice(k.key_identifier.as_slice());
                (k.asn.into_u32(), ski)
            })
            .collect();
        let vrps = old
            .origins()
            .filter(|o| !new.contains(&Payload::Origin(*o)))
            .chain(
                new.origins()
                    .filter(|o| !old.contains(&Payload::Origin(*o))),
            );
        let vrps = VrpIndex::from_origins(vrps);
        let by_customer = |s: &PayloadSet| -> HashMap<u32, Aspa> {
            s.aspas()
                .map(|a| (a.customer.into_u32(), a.clone()))
                .collect()
        };
        let (old_aspas, new_aspas) = (by_customer(old), by_customer(new));
        let aspas = old_aspas
            .keys()
            .chain(new_aspas.keys())
            .filter(|c| old_aspas.get(c) != new_aspas.get(c))
            .copied()
            .collect();
        Changes { keys, vrps, aspas }
    }
}

/// What changed between two views ([`View::changes`]).
#[derive(Debug, Clone, Default)]
pub struct Changes {
    keys: HashSet<(u32, Ski)>,
    vrps: VrpIndex,
    aspas: HashSet<u32>,
}

impl Changes {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.vrps.is_empty() && self.aspas.is_empty()
    }

    /// Whether the router keys of (`asn`, `ski`) changed: a BGPsec signature made
    /// with that SKI must be checked again.
    pub fn affects_key(&self, asn: u32, ski: &Ski) -> bool {
        self.keys.contains(&(asn, *ski))
    }

    /// Whether the ROV or ASPA verdict of a route for `prefix` with `path` may differ
    /// between the two views: a VRP added or removed covers `prefix` (the RFC 6811 §2
    /// verdict depends only on the covering VRPs), or an AS of `path` had its ASPA
    /// changed (the hop checks of §5.3 consult only the ASPAs of the path's ASes).
    pub fn affects_route(&self, prefix: &Prefix, path: &AsPath) -> bool {
        (!self.vrps.is_empty() && self.vrps.covers(prefix))
            || (!self.aspas.is_empty()
                && path
                    .segments
                    .iter()
                    .filter(|s| {
                        matches!(
                            s.kind,
                            AsPathSegmentType::AsSequence | AsPathSegmentType::AsSet
                        )
                    })
                    .flat_map(|s| &s.asns)
                    .any(|a| self.aspas.contains(a)))
    }

    /// (router keys by (AS, SKI), VRPs, ASPA customers) that changed.
    pub fn counts(&self) -> (usize, usize, usize) {
        (self.keys.len(), self.vrps.len(), self.aspas.len())
    }

    /// The (AS, SKI) pairs whose keys changed.
    pub fn keys(&self) -> impl Iterator<Item = &(u32, Ski)> {
        self.keys.iter()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::packet::AsPathSegment;
    use crate::router_key::KeyLookup;
    use crate::rpki::payload::testing::{aspa, set};
    use crate::rpki::rov::strategies;
    use crate::rpki::rov::RovState;
    use proptest::prelude::*;
    use rpki::resources::addr::MaxLenPrefix;

    fn vrp(prefix: &str, max_len: u8, asn: u32) -> Payload {
        let p: rpki::resources::addr::Prefix = prefix.parse().unwrap();
        Payload::Origin(RouteOrigin::new(
            MaxLenPrefix::new(p, Some(max_len)).unwrap(),
            Asn::from_u32(asn),
        ))
    }

    fn key(asn: u32, ski: u8, spki: &[u8]) -> Payload {
        Payload::RouterKey(super::super::payload::RouterKey::new(
            [ski; 20].into(),
            Asn::from_u32(asn),
            RouterKeyInfo::try_from(spki.to_vec()).unwrap(),
        ))
    }

    fn route(prefix: &str) -> Prefix {
        let (addr, len) = prefix.split_once('/').unwrap();
        Prefix::new(addr.parse().unwrap(), len.parse().unwrap()).unwrap()
    }

    use super::super::payload::RouteOrigin;

    #[test]
    fn a_view_is_shared_between_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<View>();
        send_sync::<Changes>();
    }

    #[test]
    fn the_file_only_view_and_the_empty_view() {
        let keys: RouterKeys = [RouterKey::new(64_496, [9; 20], b"spki")]
            .into_iter()
            .collect();
        let view = View::from_router_keys(keys);
        assert_eq!(view.counts(), (0, 1, 0));
        let k = view.payload().router_keys().next().unwrap();
        assert_eq!(
            (k.asn.into_u32(), k.key_info.as_slice()),
            (64_496, &b"spki"[..])
        );
        assert_eq!(router_key(k).ski(), &[9; 20]);
        assert_eq!(view.router_keys().router_keys(64_496, &[9; 20]).len(), 1);
        let empty = View::empty();
        assert!(view.changes(&empty).affects_key(64_496, &[9; 20]));
        let p = AsPath::sequence(vec![1, 2]);
        assert_eq!(
            empty.rov(&route("10.0.0.0/8"), &p).state,
            RovState::NotFound
        );
        assert_eq!(
            empty.aspa(&p, Relation::Customer).state,
            crate::rpki::aspa::AspaState::Unknown
        );
    }

    #[test]
    fn files_and_caches_are_united_and_aspas_of_a_customer_merged() {
        let files = set(&[vrp("10.0.0.0/8", 8, 1), aspa(1, &[2]), key(1, 7, b"k1")]);
        let rtr = set(&[
            vrp("10.0.0.0/8", 8, 1),
            vrp("11.0.0.0/8", 8, 2),
            aspa(1, &[3]),
        ]);
        let view = View::build(&files, &rtr, &[], &Limits::default()).unwrap();
        assert_eq!(view.counts(), (2, 1, 1));
        assert_eq!(view.aspas().providers(1), Some(&[2, 3][..]));
        assert_eq!(view.router_keys().len(), 1);
        assert_eq!(view.router_keys().router_keys(1, &[7; 20]).len(), 1);
        let limits = Limits {
            vrps: 1,
            ..Limits::default()
        };
        let e = View::build(&files, &rtr, &[], &limits).unwrap_err();
        assert_eq!(e.what, "VRPs");
    }

    /// RFC 8416 §4: filters drop what the RP's data holds, then assertions are added —
    /// so an assertion inside a filtered prefix stays, and a filtered customer's ASPA is
    /// replaced by its assertion.
    #[test]
    fn slurm_filters_apply_before_assertions() {
        let slurm: SlurmFile = r#"{
          "slurmVersion": 2,
          "validationOutputFilters": {
            "prefixFilters": [ { "prefix": "10.0.0.0/8" }, { "asn": 9 } ],
            "bgpsecFilters": [ { "asn": 1 } ],
            "aspaFilters": [ { "customerAsn": 1 } ]
          },
          "locallyAddedAssertions": {
            "prefixAssertions": [ { "asn": 5, "prefix": "10.1.0.0/16", "maxPrefixLength": 24 } ],
            "bgpsecAssertions": [],
            "aspaAssertions": [ { "customerAsn": 1, "providerAsns": [4] } ]
          }
        }"#
        .parse()
        .unwrap();
        let files = set(&[
            vrp("10.0.0.0/8", 24, 1),
            vrp("10.2.0.0/16", 16, 2),
            vrp("12.0.0.0/8", 8, 9),
            vrp("11.0.0.0/8", 8, 3),
            aspa(1, &[2, 3]),
            aspa(2, &[3]),
            key(1, 1, b"k1"),
            key(2, 2, b"k2"),
        ]);
        let view = View::build(&files, &PayloadSet::new(), &[slurm], &Limits::default()).unwrap();
        let origin = |p: &str, asn: u32| view.rov_origin(&route(p), Origin::As(asn)).state;
        assert_eq!(origin("10.1.0.0/16", 1), RovState::Invalid, "filtered");
        assert_eq!(origin("10.1.0.0/16", 5), RovState::Valid, "asserted after");
        assert_eq!(origin("10.2.0.0/16", 2), RovState::NotFound, "filtered");
        assert_eq!(
            origin("12.0.0.0/8", 9),
            RovState::NotFound,
            "filtered by AS"
        );
        assert_eq!(origin("11.0.0.0/8", 3), RovState::Valid, "kept");
        assert_eq!(view.aspas().providers(1), Some(&[4][..]), "replaced");
        assert_eq!(view.aspas().providers(2), Some(&[3][..]));
        assert!(view.router_keys().router_keys(1, &[1; 20]).is_empty());
        assert_eq!(view.router_keys().router_keys(2, &[2; 20]).len(), 1);
        assert_eq!(view.counts(), (2, 1, 2));
    }

    #[test]
    fn changes_name_the_keys_vrps_and_aspas_that_differ() {
        let a = View::of(set(&[
            vrp("10.0.0.0/8", 8, 1),
            aspa(1, &[2]),
            key(1, 1, b"k1"),
        ]));
        let b = View::of(set(&[
            vrp("10.0.0.0/8", 8, 1),
            aspa(1, &[3]),
            key(1, 1, b"k2"),
        ]));
        assert!(a.changes(&a).is_empty());
        let c = a.changes(&b);
        assert_eq!(c.counts(), (1, 0, 1));
        assert!(c.affects_key(1, &[1; 20]));
        assert!(!c.affects_key(1, &[2; 20]));
        assert!(c.affects_route(&route("192.0.2.0/24"), &AsPath::sequence(vec![5, 1])));
        assert!(!c.affects_route(&route("10.0.0.0/8"), &AsPath::sequence(vec![5, 6])));
        let d = View::of(set(&[vrp("10.0.0.0/16", 16, 1)]));
        let c = a.changes(&d);
        assert!(c.affects_route(&route("10.0.0.0/24"), &AsPath::sequence(vec![7])));
        assert!(c.affects_route(&route("10.0.0.0/8"), &AsPath::sequence(vec![7])));
        assert!(!c.affects_route(&route("11.0.0.0/8"), &AsPath::sequence(vec![7])));
    }

    /// A path of up to 6 ASes from 1..=6, with prepends and now and then an AS_SET.
    fn path() -> impl Strategy<Value = AsPath> {
        (
            proptest::collection::vec(1u32..=6, 0..6),
            proptest::option::weighted(0.1, proptest::collection::vec(1u32..=6, 1..3)),
        )
            .prop_map(|(asns, set)| {
                let mut p = AsPath::sequence(asns);
                if let Some(set) = set {
                    p.segments.push(AsPathSegment {
                        kind: AsPathSegmentType::AsSet,
                        asns: set,
                    });
                }
                p
            })
    }

    fn aspa_item() -> impl Strategy<Value = Payload> {
        (1u32..=6, proptest::collection::vec(0u32..=6, 1..3)).prop_map(|(c, p)| aspa(c, &p))
    }

    fn payload() -> impl Strategy<Value = Vec<Payload>> {
        (
            proptest::collection::vec(strategies::vrp(), 0..30),
            proptest::collection::vec(aspa_item(), 0..6),
        )
            .prop_map(|(v, a)| v.into_iter().map(Payload::Origin).chain(a).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// `changes()` is exact: a route it does not call affected has the same ROV and
        /// ASPA verdicts (every relation) in both views.
        #[test]
        fn a_route_not_affected_keeps_its_verdicts(
            common in payload(),
            only_old in payload(),
            only_new in payload(),
            routes in proptest::collection::vec((strategies::route(), path()), 1..30),
        ) {
            let build = |extra: &[Payload]| {
                let files = set(&common);
                let rtr = set(extra);
                View::build(&files, &rtr, &[], &Limits::default()).unwrap()
            };
            let (old, new) = (build(&only_old), build(&only_new));
            let changes = old.changes(&new);
            prop_assert_eq!(changes.is_empty(), old.payload() == new.payload());
            let mut affected = 0;
            for ((prefix, _), path) in &routes {
                if changes.affects_route(prefix, path) {
                    affected += 1;
                    continue;
                }
                prop_assert_eq!(old.rov(prefix, path), new.rov(prefix, path));
                for r in Relation::ALL {
                    prop_assert_eq!(old.aspa(path, r), new.aspa(path, r));
                }
            }
            prop_assert!(affected <= routes.len());
        }

    }
}
