//! The validated RPKI payload as one set: VRPs (route origins), router keys and ASPAs,
//! as a cache serves them (RFC 8210 §5.6–§5.10, draft-ietf-sidrops-8210bis §5.12) or a
//! file lists them, with caps so that a broken or hostile source cannot take the
//! router's memory (docs/spec/rpki.md, "Limits").

mod packed;

use std::collections::{BTreeMap, HashSet};

use packed::Origin;

pub use rpki::rtr::payload::{Aspa, Payload, RouteOrigin, RouterKey};

/// Caps on what one source (a cache or a file) may hold. A source that goes over any
/// of them is refused as a whole ([`TooMuch`]) rather than truncated: a partial set of
/// VRPs would turn valid routes invalid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Route origins (IPv4 and IPv6 prefix PDUs, `roas` entries).
    pub vrps: usize,
    /// Router keys.
    pub router_keys: usize,
    /// ASPAs (customer ASes).
    pub aspas: usize,
    /// Provider ASes in one ASPA.
    pub providers_per_aspa: usize,
}

impl Default for Limits {
    /// Ten times today's global RPKI (about 800 k VRPs, a few hundred router keys,
    /// under 10 k ASPAs): room to grow, and a bound on memory of some hundred MB.
    fn default() -> Limits {
        Limits {
            vrps: 8_000_000,
            router_keys: 100_000,
            aspas: 1_000_000,
            providers_per_aspa: 10_000,
        }
    }
}

/// A source went over one of its [`Limits`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("more than {limit} {what} (limit; see docs/spec/rpki.md, \"Limits\")")]
pub struct TooMuch {
    /// What: "VRPs", "router keys", "ASPAs" or "providers in one ASPA".
    pub what: &'static str,
    /// The limit.
    pub limit: usize,
}

/// A set of validated RPKI payload: route origins and router keys as sets, ASPAs as a
/// map from customer AS to its provider set (an ASPA PDU for a customer replaces the
/// previous one; draft-ietf-sidrops-8210bis §5.12). Route origins are held packed,
/// a set per address family (10 and 22 bytes each, in shards; see `payload/packed.rs`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PayloadSet {
    origins_v4: packed::OriginSet<4>,
    origins_v6: packed::OriginSet<16>,
    router_keys: HashSet<RouterKey>,
    aspas: BTreeMap<u32, Aspa>,
}

impl PayloadSet {
    /// An empty set.
    pub fn new() -> PayloadSet {
        PayloadSet::default()
    }

    /// Adds `item`, unless that takes the set over `limits`. An ASPA replaces the one
    /// of the same customer; an ASPA with no provider withdraws it.
    ///
    /// # Errors
    /// [`TooMuch`]; the set is unchanged.
    pub fn insert(&mut self, item: Payload, limits: &Limits) -> Result<(), TooMuch> {
        match item {
            Payload::Origin(o) => {
                let o = Origin::pack(&o);
                if !self.contains_origin(&o) && self.origin_count() >= limits.vrps {
                    return Err(TooMuch {
                        what: "VRPs",
                        limit: limits.vrps,
                    });
                }
                match o {
                    Origin::V4(k) => self.origins_v4.insert(k),
                    Origin::V6(k) => self.origins_v6.insert(k),
                };
            }
            Payload::RouterKey(k) => {
                if !self.router_keys.contains(&k) && self.router_keys.len() >= limits.router_keys {
                    return Err(TooMuch {
                        what: "router keys",
                        limit: limits.router_keys,
                    });
                }
                self.router_keys.insert(k);
            }
            Payload::Aspa(a) => {
                let customer = a.customer.into_u32();
                let providers = a.providers.iter().count();
                if providers > limits.providers_per_aspa {
                    return Err(TooMuch {
                        what: "providers in one ASPA",
                        limit: limits.providers_per_aspa,
                    });
                }
                if providers == 0 {
                    self.aspas.remove(&customer);
                } else {
                    if !self.aspas.contains_key(&customer) && self.aspas.len() >= limits.aspas {
                        return Err(TooMuch {
                            what: "ASPAs",
                            limit: limits.aspas,
                        });
                    }
                    self.aspas.insert(customer, a);
                }
            }
        }
        Ok(())
    }

    /// Removes `item` (an RTR withdrawal); whether it was there. An ASPA is removed by
    /// its customer AS, whatever its providers.
    pub fn remove(&mut self, item: &Payload) -> bool {
        match item {
            Payload::Origin(o) => match Origin::pack(o) {
                Origin::V4(k) => self.origins_v4.remove(&k),
                Origin::V6(k) => self.origins_v6.remove(&k),
            },
            Payload::RouterKey(k) => self.router_keys.remove(k),
            Payload::Aspa(a) => self.aspas.remove(&a.customer.into_u32()).is_some(),
        }
    }

    /// Whether `item` is in the set (an ASPA: the same customer with the same
    /// providers).
    pub fn contains(&self, item: &Payload) -> bool {
        match item {
            Payload::Origin(o) => self.contains_origin(&Origin::pack(o)),
            Payload::RouterKey(k) => self.router_keys.contains(k),
            Payload::Aspa(a) => self.aspas.get(&a.customer.into_u32()) == Some(a),
        }
    }

    /// Every item of `other` added (ASPAs of the same customer: `other`'s replaces).
    ///
    /// # Errors
    /// [`TooMuch`] when the union goes over `limits`.
    pub fn extend_from(&mut self, other: &PayloadSet, limits: &Limits) -> Result<(), TooMuch> {
        for item in other.iter() {
            self.insert(item, limits)?;
        }
        Ok(())
    }

    /// Whether the packed origin `o` is in the set.
    fn contains_origin(&self, o: &Origin) -> bool {
        match o {
            Origin::V4(k) => self.origins_v4.contains(k),
            Origin::V6(k) => self.origins_v6.contains(k),
        }
    }

    /// The number of route origins.
    fn origin_count(&self) -> usize {
        self.origins_v4.len() + self.origins_v6.len()
    }

    /// The route origins (IPv4, then IPv6), unpacked: by value.
    pub fn origins(&self) -> impl Iterator<Item = RouteOrigin> + '_ {
        // `unpack` gives `Some` for every packed origin (see `payload/packed.rs`).
        let v4 = self.origins_v4.iter().filter_map(packed::V4::unpack);
        let v6 = self.origins_v6.iter().filter_map(packed::V6::unpack);
        v4.chain(v6)
    }

    /// The router keys.
    pub fn router_keys(&self) -> impl Iterator<Item = &RouterKey> {
        self.router_keys.iter()
    }

    /// The ASPAs, by customer AS.
    pub fn aspas(&self) -> impl Iterator<Item = &Aspa> {
        self.aspas.values()
    }

    /// Every item, origins first, then router keys, then ASPAs.
    pub fn iter(&self) -> impl Iterator<Item = Payload> + '_ {
        self.origins()
            .map(Payload::Origin)
            .chain(self.router_keys.iter().cloned().map(Payload::RouterKey))
            .chain(self.aspas.values().cloned().map(Payload::Aspa))
    }

    /// (VRPs, router keys, ASPAs).
    pub fn counts(&self) -> (usize, usize, usize) {
        (
            self.origin_count(),
            self.router_keys.len(),
            self.aspas.len(),
        )
    }

    /// Whether the set holds nothing.
    pub fn is_empty(&self) -> bool {
        self.counts() == (0, 0, 0)
    }
}

/// Payload items for this crate's tests (payload, view, the RTR cache and client).
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) mod testing {
    use super::*;
    use rpki::resources::addr::{MaxLenPrefix, Prefix};
    use rpki::resources::Asn;
    use rpki::rtr::pdu::ProviderAsns;

    /// The VRP (0.i.0/24 for i < 2^24, maxLength 24, AS 64500).
    pub(crate) fn origin(i: u32) -> Payload {
        let prefix = Prefix::new(std::net::Ipv4Addr::from(i << 8).into(), 24).unwrap();
        Payload::Origin(RouteOrigin::new(
            MaxLenPrefix::new(prefix, Some(24)).unwrap(),
            Asn::from_u32(64_500),
        ))
    }

    /// The ASPA of `customer` with `providers` (in any order).
    pub(crate) fn aspa(customer: u32, providers: &[u32]) -> Payload {
        let providers =
            ProviderAsns::try_from_iter(providers.iter().map(|p| Asn::from_u32(*p))).unwrap();
        Payload::Aspa(Aspa::new(Asn::from_u32(customer), providers))
    }

    /// A set of `items` under the default limits.
    pub(crate) fn set(items: &[Payload]) -> PayloadSet {
        let mut s = PayloadSet::new();
        for i in items {
            s.insert(i.clone(), &Limits::default()).unwrap();
        }
        s
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::testing::{aspa, origin};
    use super::*;
    use rpki::resources::addr::{MaxLenPrefix, Prefix};
    use rpki::resources::Asn;

    #[test]
    fn a_source_over_its_limit_is_refused_and_the_set_kept() {
        let limits = Limits {
            vrps: 2,
            ..Limits::default()
        };
        let mut set = PayloadSet::new();
        set.insert(origin(1), &limits).unwrap();
        set.insert(origin(2), &limits).unwrap();
        set.insert(origin(2), &limits).unwrap();
        let err = set.insert(origin(3), &limits).unwrap_err();
        assert_eq!(err.what, "VRPs");
        assert_eq!(set.counts(), (2, 0, 0));
        assert!(set.remove(&origin(1)));
        assert!(!set.remove(&origin(1)));
        set.insert(origin(3), &limits).unwrap();
    }

    #[test]
    fn an_aspa_replaces_its_customer_and_an_empty_one_withdraws_it() {
        let limits = Limits::default();
        let mut set = PayloadSet::new();
        set.insert(aspa(65_001, &[65_002]), &limits).unwrap();
        set.insert(aspa(65_001, &[65_003, 65_004]), &limits)
            .unwrap();
        assert_eq!(set.counts(), (0, 0, 1));
        assert!(set.contains(&aspa(65_001, &[65_003, 65_004])));
        assert!(!set.contains(&aspa(65_001, &[65_002])));
        set.insert(aspa(65_001, &[]), &limits).unwrap();
        assert!(set.is_empty());
    }

    #[test]
    fn origins_of_both_families_come_back_as_they_went_in() {
        let limits = Limits {
            vrps: 3,
            ..Limits::default()
        };
        let v6 = Prefix::new("2001:db8::".parse::<std::net::IpAddr>().unwrap(), 32).unwrap();
        let v6 = RouteOrigin::new(MaxLenPrefix::new(v6, Some(48)).unwrap(), Asn::from_u32(0));
        let v4 = Prefix::new(std::net::Ipv4Addr::new(10, 0, 0, 0).into(), 8).unwrap();
        let no_max = RouteOrigin::new(MaxLenPrefix::new(v4, None).unwrap(), Asn::from_u32(1));
        let max_8 = RouteOrigin::new(MaxLenPrefix::new(v4, Some(8)).unwrap(), Asn::from_u32(1));
        let mut set = PayloadSet::new();
        for o in [v6, no_max, max_8] {
            set.insert(Payload::Origin(o), &limits).unwrap();
        }
        // No max length is the prefix length (RFC 6811 §2): one VRP, kept as it came.
        assert_eq!(set.counts(), (2, 0, 0));
        assert!(set.contains(&Payload::Origin(max_8)));
        let mut back: Vec<_> = set.origins().map(|o| (o, o.prefix.max_len())).collect();
        back.sort();
        assert_eq!(back, vec![(no_max, None), (v6, Some(48))]);
        // The limit counts both families together.
        set.insert(origin(1), &limits).unwrap();
        assert_eq!(set.insert(origin(2), &limits).unwrap_err().what, "VRPs");
        assert!(set.remove(&Payload::Origin(max_8)));
        assert!(set.remove(&Payload::Origin(v6)));
        assert_eq!(set.counts(), (1, 0, 0));
    }
}
