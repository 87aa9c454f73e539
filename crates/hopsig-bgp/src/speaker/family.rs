//! Address families per session: IPv4 and IPv6 unicast (RFC 4760), BGPsec per AFI
//! (RFC 8205 §2), the IPv6 next hop (RFC 2545 §3).
//!
//! * A neighbour is configured with [`Families`] (`families`, default the family of
//!   its address, as gobgpd's default); the OPEN carries a Multiprotocol capability
//!   per family (RFC 4760 §8) and, for `bgpsec = true`, BGPsec Send and Receive per
//!   family (RFC 8205 §2.1: "a BGPsec speaker that supports multiple address
//!   families will need to advertise the BGPsec capability for each").
//! * [`Afis::negotiate`]: a family is exchanged when both OPENs announce it (RFC 4760
//!   §8: "each such speaker MUST advertise to the other … the capability to support
//!   that particular <AFI, SAFI> route"); IPv4 also with a neighbour that announces no
//!   Multiprotocol capability at all (RFC 4271's base protocol, from before RFC 4760).
//!   BGPsec per AFI as RFC 8205 §2.2 says: Send toward a neighbour that announced
//!   Receive for that AFI, both with the 4-octet AS capability.
//! * The IPv6 next hop of MP_REACH_NLRI (RFC 2545 §3): the configured `next_hop6`
//!   (global, or global and link-local: 16 or 32 octets), else the session's local
//!   address when its transport is IPv6 and that address is global.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use serde::Deserialize;

use super::config::{Config, Neighbor};
use super::events::Up;
use crate::packet::{
    Afi, BgpsecCapability, Capability, Direction, MultiprotocolCapability, NextHop, Open,
};

/// SAFI 1, unicast (RFC 4760 §6).
const UNICAST: u8 = 1;

/// The unicast families a neighbour is configured for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Families {
    /// IPv4 unicast (AFI 1).
    pub ipv4: bool,
    /// IPv6 unicast (AFI 2).
    pub ipv6: bool,
}

impl Default for Families {
    /// IPv4 unicast only: what the speaker did before it had IPv6.
    fn default() -> Families {
        Families::IPV4
    }
}

impl Families {
    /// IPv4 unicast only.
    pub const IPV4: Families = Families {
        ipv4: true,
        ipv6: false,
    };

    /// The default for a neighbour at `address`: the family of its transport.
    pub fn of_address(address: IpAddr) -> Families {
        Families {
            ipv4: address.is_ipv4(),
            ipv6: address.is_ipv6(),
        }
    }

    /// The families named `ipv4` and `ipv6` in `names`.
    ///
    /// # Errors
    /// An unknown name, one named twice, or none.
    pub fn from_names(names: &[String]) -> Result<Families, String> {
        let mut f = Families {
            ipv4: false,
            ipv6: false,
        };
        for name in names {
            let slot = match name.as_str() {
                "ipv4" => &mut f.ipv4,
                "ipv6" => &mut f.ipv6,
                other => return Err(format!("families: '{other}' is not ipv4 or ipv6")),
            };
            if std::mem::replace(slot, true) {
                return Err(format!("families: '{name}' named twice"));
            }
        }
        if !f.ipv4 && !f.ipv6 {
            return Err("families: at least one of ipv4, ipv6".into());
        }
        Ok(f)
    }

    /// Whether `afi` is one of them.
    pub fn has(self, afi: Afi) -> bool {
        match afi {
            Afi::Ipv4 => self.ipv4,
            Afi::Ipv6 => self.ipv6,
        }
    }

    /// The AFIs, IPv4 first.
    pub fn afis(self) -> impl Iterator<Item = Afi> {
        Afi::ALL.iter().copied().filter(move |&a| self.has(a))
    }
}

/// The capabilities this speaker announces for `families` (the 4-octet AS one is
/// [`Open::new`]'s): Multiprotocol (AFI, SAFI 1) per family (RFC 4760 §8), then for
/// a BGPsec neighbour BGPsec Send and Receive, version 0, per family (RFC 8205 §2.1).
pub fn capabilities(families: Families, bgpsec: bool) -> Vec<Capability<'static>> {
    let mut caps: Vec<Capability<'static>> = families
        .afis()
        .map(|afi| {
            Capability::Multiprotocol(MultiprotocolCapability {
                afi: u16::from(afi),
                reserved: 0,
                safi: UNICAST,
            })
        })
        .collect();
    if bgpsec {
        for afi in families.afis() {
            for d in [Direction::Send, Direction::Receive] {
                caps.push(Capability::Bgpsec(BgpsecCapability::new(d, afi)));
            }
        }
    }
    caps
}

/// Whether `open` announces the Multiprotocol capability for (`afi`, unicast).
fn multiprotocol(open: &Open<'_>, afi: Afi) -> bool {
    open.capabilities().any(|c| {
        matches!(c, Capability::Multiprotocol(m) if m.afi == u16::from(afi) && m.safi == UNICAST)
    })
}

/// Whether `open` announces the BGPsec capability `direction` for `afi`, version 0
/// (RFC 8205 §2.1).
pub fn bgpsec_announced(open: &Open<'_>, direction: Direction, afi: Afi) -> bool {
    open.capabilities().any(|c| {
        matches!(c, Capability::Bgpsec(b)
            if b.version == 0 && b.direction == direction && b.afi == u16::from(afi))
    })
}

/// What a session negotiated per address family, beside [`super::fsm::Negotiated`]'s
/// IPv4 BGPsec flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Afis {
    /// IPv4 unicast routes are exchanged.
    pub ipv4: bool,
    /// IPv6 unicast routes are exchanged (both OPENs announced AFI 2 SAFI 1).
    pub ipv6: bool,
    /// This speaker may send BGPsec UPDATEs for IPv6 (it announced Send, the
    /// neighbour Receive, for AFI 2; RFC 8205 §2.2).
    pub bgpsec_send6: bool,
    /// The neighbour may send BGPsec UPDATEs for IPv6 (it announced Send, this
    /// speaker Receive, for AFI 2; RFC 8205 §2.2).
    pub bgpsec_receive6: bool,
}

impl Default for Afis {
    /// IPv4 unicast only, no BGPsec for IPv6: what the speaker did before it had IPv6.
    fn default() -> Afis {
        Afis {
            ipv4: true,
            ipv6: false,
            bgpsec_send6: false,
            bgpsec_receive6: false,
        }
    }
}

impl Afis {
    /// What this speaker, configured with `local` families and `bgpsec`, negotiates
    /// with the neighbour's `open`; `four`: both announced the 4-octet AS capability
    /// (RFC 8205 §2.2 requires it for BGPsec).
    pub fn negotiate(local: Families, bgpsec: bool, four: bool, open: &Open<'_>) -> Afis {
        let any_mp = open
            .capabilities()
            .any(|c| matches!(c, Capability::Multiprotocol(_)));
        // RFC 4760 §8: both sides announce the family; a neighbour without any
        // Multiprotocol capability speaks RFC 4271's IPv4 unicast.
        let ipv4 = local.ipv4 && (multiprotocol(open, Afi::Ipv4) || !any_mp);
        let ipv6 = local.ipv6 && multiprotocol(open, Afi::Ipv6);
        let bgpsec6 = bgpsec && four && ipv6;
        Afis {
            ipv4,
            ipv6,
            bgpsec_send6: bgpsec6 && bgpsec_announced(open, Direction::Receive, Afi::Ipv6),
            bgpsec_receive6: bgpsec6 && bgpsec_announced(open, Direction::Send, Afi::Ipv6),
        }
    }

    /// Whether routes of `afi` are exchanged (RFC 4760 §8: a family the neighbour
    /// did not announce is never sent to it).
    pub fn carries(&self, afi: Afi) -> bool {
        match afi {
            Afi::Ipv4 => self.ipv4,
            Afi::Ipv6 => self.ipv6,
        }
    }

    /// The families exchanged, by name, for the status file.
    pub fn names(&self) -> Vec<&'static str> {
        let mut v = vec![];
        if self.ipv4 {
            v.push("ipv4");
        }
        if self.ipv6 {
            v.push("ipv6");
        }
        v
    }
}

impl Up {
    /// Whether BGPsec UPDATEs of `afi` may be sent (RFC 8205 §2.2, per AFI).
    pub fn bgpsec_send_for(&self, afi: Afi) -> bool {
        match afi {
            Afi::Ipv4 => self.bgpsec_send,
            Afi::Ipv6 => self.afis.bgpsec_send6,
        }
    }

    /// Whether the neighbour may send BGPsec UPDATEs of `afi` (RFC 8205 §2.2).
    pub fn bgpsec_receive_for(&self, afi: Afi) -> bool {
        match afi {
            Afi::Ipv4 => self.bgpsec_receive,
            Afi::Ipv6 => self.afis.bgpsec_receive6,
        }
    }
}

/// `next_hop6` in the configuration: a global IPv6 address, or a global and a
/// link-local one (RFC 2545 §3: "the global IPv6 address of the next hop,
/// potentially followed by the link-local IPv6 address").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum NextHop6 {
    /// 16 octets.
    Global(Ipv6Addr),
    /// 32 octets: `[global, link-local]`.
    WithLinkLocal([Ipv6Addr; 2]),
}

/// Whether `a` is an IPv6 link-local unicast address (fe80::/10, RFC 4291 §2.5.6).
fn link_local(a: &Ipv6Addr) -> bool {
    a.segments()[0] & 0xffc0 == 0xfe80
}

impl NextHop6 {
    /// The MP_REACH_NLRI next hop.
    ///
    /// # Errors
    /// A global address that is link-local, unspecified or multicast, or a second
    /// address that is not link-local (RFC 2545 §3).
    pub fn next_hop(self) -> Result<NextHop, String> {
        let usable = |a: &Ipv6Addr| !link_local(a) && !a.is_unspecified() && !a.is_multicast();
        match self {
            NextHop6::Global(g) if usable(&g) => Ok(NextHop::V6(g)),
            NextHop6::WithLinkLocal([g, l]) if usable(&g) && link_local(&l) => {
                Ok(NextHop::V6LinkLocal(g, l))
            }
            _ => Err(
                "next_hop6: a global IPv6 address, optionally followed by a link-local one (RFC 2545 §3)"
                    .into(),
            ),
        }
    }
}

/// The IPv6 next hop a session's transport gives when none is configured: its local
/// address, if IPv6 (not IPv4-mapped) and global (RFC 2545 §3 wants a global address
/// first; a link-local transport needs `next_hop6`).
pub fn transport_next_hop(local: Option<SocketAddr>) -> Option<NextHop> {
    match local?.ip() {
        IpAddr::V6(a)
            if a.to_ipv4_mapped().is_none()
                && !link_local(&a)
                && !a.is_unspecified()
                && !a.is_multicast() =>
        {
            Some(NextHop::V6(a))
        }
        _ => None,
    }
}

impl Neighbor {
    /// The families configured, or the default: that of the neighbour's address.
    pub fn families(&self) -> Families {
        self.families.unwrap_or(Families::of_address(self.address))
    }
}

impl Config {
    /// The IPv6 next hop configured for neighbour `n`: its own `next_hop6`, else the
    /// configuration's (`None`: the session's local address, [`transport_next_hop`]).
    ///
    /// # Errors
    /// A `next_hop6` that is not a usable one ([`NextHop6::next_hop`]).
    pub fn next_hop6_for(&self, n: &Neighbor) -> Result<Option<NextHop>, String> {
        n.next_hop6
            .or(self.next_hop6)
            .map(NextHop6::next_hop)
            .transpose()
    }

    /// Each `next_hop6` usable, and one for every neighbour that is to carry IPv6
    /// over an IPv4 transport (its session has no local IPv6 address to take).
    pub(super) fn check_families(&self) -> Result<(), String> {
        if let Some(nh) = self.next_hop6 {
            nh.next_hop()?;
        }
        for n in &self.neighbors {
            let nh = self
                .next_hop6_for(n)
                .map_err(|e| format!("neighbor {}: {e}", n.address))?;
            if n.families().ipv6 && n.address.is_ipv4() && nh.is_none() {
                return Err(format!(
                    "neighbor {}: IPv6 routes over an IPv4 session need next_hop6 (RFC 2545 §3: the next hop is an IPv6 address)",
                    n.address
                ));
            }
        }
        Ok(())
    }
}

/// `families = ["ipv4", "ipv6"]`, by [`Families::from_names`], so that a bad one is
/// a TOML error with its line.
pub(super) fn deserialize_families<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Families>, D::Error> {
    let names = Vec::<String>::deserialize(d)?;
    Families::from_names(&names)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;
    use crate::packet::{AsWidth, Message};

    const BOTH: Families = Families {
        ipv4: true,
        ipv6: true,
    };
    const V6: Families = Families {
        ipv4: false,
        ipv6: true,
    };

    fn open(caps: Vec<Capability<'static>>) -> Open<'static> {
        // Through the wire, as the FSM gets it.
        let o = Open::new(65_002, 90, Ipv4Addr::new(192, 0, 2, 2), caps);
        let bytes = Message::Open(o).encoding(AsWidth::Four).unwrap();
        match Message::decode(&bytes, AsWidth::Four).unwrap() {
            Message::Open(o) => o.into_owned(),
            m => panic!("{m:?}"),
        }
    }

    /// RFC 4760 §8 / RFC 8205 §2.1: one Multiprotocol capability per family, and
    /// BGPsec Send and Receive per family; IPv4 alone is what the speaker always
    /// announced.
    #[test]
    fn the_open_announces_each_family_and_bgpsec_per_afi() {
        let caps = capabilities(BOTH, true);
        let mp: Vec<u16> = caps
            .iter()
            .filter_map(|c| match c {
                Capability::Multiprotocol(m) => Some(m.afi),
                _ => None,
            })
            .collect();
        assert_eq!(mp, [1, 2]);
        let bgpsec: Vec<(Direction, u16)> = caps
            .iter()
            .filter_map(|c| match c {
                Capability::Bgpsec(b) => Some((b.direction, b.afi)),
                _ => None,
            })
            .collect();
        assert_eq!(
            bgpsec,
            [
                (Direction::Send, 1),
                (Direction::Receive, 1),
                (Direction::Send, 2),
                (Direction::Receive, 2)
            ]
        );
        assert_eq!(capabilities(Families::IPV4, true).len(), 3);
        assert_eq!(capabilities(V6, false).len(), 1);
    }

    /// RFC 4760 §8: a family is exchanged only when both OPENs announce it; RFC 8205
    /// §2.2: BGPsec per AFI, Send toward Receive, only with 4-octet AS numbers.
    #[test]
    fn families_and_bgpsec_are_negotiated_per_afi() {
        // Both sides IPv4 and IPv6 with BGPsec.
        let both = Afis::negotiate(BOTH, true, true, &open(capabilities(BOTH, true)));
        assert_eq!(
            both,
            Afis {
                ipv4: true,
                ipv6: true,
                bgpsec_send6: true,
                bgpsec_receive6: true
            }
        );
        // The neighbour announces IPv4 only: no IPv6, no BGPsec for it.
        let v4 = Afis::negotiate(BOTH, true, true, &open(capabilities(Families::IPV4, true)));
        assert_eq!(v4, Afis::default());
        assert!(!v4.carries(Afi::Ipv6) && v4.carries(Afi::Ipv4));
        // The neighbour announces IPv6 only: no IPv4 (it announced Multiprotocol).
        let v6 = Afis::negotiate(BOTH, false, true, &open(capabilities(V6, false)));
        assert!(v6.ipv6 && !v6.ipv4 && !v6.bgpsec_send6);
        // No Multiprotocol capability at all: RFC 4271 IPv4 unicast.
        let old = Afis::negotiate(BOTH, false, true, &open(vec![]));
        assert!(old.ipv4 && !old.ipv6);
        // Locally IPv6 only: IPv4 is not exchanged whatever the neighbour announces.
        let local6 = Afis::negotiate(V6, true, true, &open(capabilities(BOTH, true)));
        assert!(!local6.ipv4 && local6.ipv6 && local6.bgpsec_send6);
        // BGPsec for IPv6 needs 4-octet AS numbers (RFC 8205 §2.2).
        let two = Afis::negotiate(BOTH, true, false, &open(capabilities(BOTH, true)));
        assert!(two.ipv6 && !two.bgpsec_send6 && !two.bgpsec_receive6);
        // Receive only from the neighbour: this speaker sends BGPsec, receives none.
        let mut caps = capabilities(BOTH, false);
        caps.push(Capability::Bgpsec(BgpsecCapability::new(
            Direction::Receive,
            Afi::Ipv6,
        )));
        let send_only = Afis::negotiate(BOTH, true, true, &open(caps));
        assert!(send_only.bgpsec_send6 && !send_only.bgpsec_receive6);
    }

    #[test]
    fn families_by_name_and_default_by_address() {
        let names =
            |v: &[&str]| Families::from_names(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(names(&["ipv6", "ipv4"]).unwrap(), BOTH);
        assert!(names(&["ipv4", "ipv4"]).unwrap_err().contains("twice"));
        assert!(names(&["ipx"]).unwrap_err().contains("'ipx'"));
        assert!(names(&[]).is_err());
        assert_eq!(
            Families::of_address("::1".parse().unwrap()),
            Families {
                ipv4: false,
                ipv6: true
            }
        );
        assert_eq!(
            Families::of_address("127.0.0.1".parse().unwrap()),
            Families::IPV4
        );
    }

    fn config(extra: &str) -> Result<Config, String> {
        let base = "local_as = 65001\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nstate_file = \"s.json\"\n";
        Config::from_toml_str(&format!("{base}{extra}"), std::path::Path::new("/etc"))
            .map_err(|e| e.to_string())
    }

    /// `families` and `next_hop6` in the configuration: defaults by address, a
    /// mixed session (IPv6 over IPv4) refused without an IPv6 next hop.
    #[test]
    fn families_and_next_hop6_in_the_configuration() {
        let c = config(
            "next_hop6 = \"2001:db8::1\"\n\
             [[neighbors]]\naddress = \"::1\"\nremote_as = 65002\n\
             [[neighbors]]\naddress = \"127.0.0.1\"\nremote_as = 65003\nfamilies = [\"ipv4\", \"ipv6\"]\n\
             next_hop6 = [\"2001:db8::2\", \"fe80::2\"]\n\
             [[neighbors]]\naddress = \"127.0.0.2\"\nremote_as = 65004\n",
        )
        .unwrap();
        let (a, b, d) = (&c.neighbors[0], &c.neighbors[1], &c.neighbors[2]);
        assert_eq!(a.families(), V6);
        assert_eq!(b.families(), BOTH);
        assert_eq!(d.families(), Families::IPV4);
        let g = |s: &str| s.parse::<Ipv6Addr>().unwrap();
        assert_eq!(
            c.next_hop6_for(a).unwrap(),
            Some(NextHop::V6(g("2001:db8::1")))
        );
        assert_eq!(
            c.next_hop6_for(b).unwrap(),
            Some(NextHop::V6LinkLocal(g("2001:db8::2"), g("fe80::2")))
        );
        let e = config(
            "[[neighbors]]\naddress = \"127.0.0.1\"\nremote_as = 65003\nfamilies = [\"ipv6\"]\n",
        )
        .unwrap_err();
        assert!(e.contains("need next_hop6"), "{e}");
        let e =
            config("[[neighbors]]\naddress = \"::1\"\nremote_as = 65003\nfamilies = [\"ipx\"]\n")
                .unwrap_err();
        assert!(e.contains("'ipx'") && e.contains("line 8"), "{e}");
        let e = config("next_hop6 = \"fe80::1\"\n").unwrap_err();
        assert!(e.contains("RFC 2545"), "{e}");
        // No IPv6 neighbour, no next hop needed: as before.
        assert!(config("[[neighbors]]\naddress = \"127.0.0.1\"\nremote_as = 65003\n").is_ok());
    }

    /// RFC 2545 §3: the next hop is a global address (16 octets), or a global and a
    /// link-local one (32 octets), as configured; else the session's local address
    /// if it is a global IPv6 one.
    #[test]
    fn the_ipv6_next_hop_follows_rfc_2545() {
        let g: Ipv6Addr = "2001:db8::1".parse().unwrap();
        let l: Ipv6Addr = "fe80::1".parse().unwrap();
        assert_eq!(NextHop6::Global(g).next_hop().unwrap(), NextHop::V6(g));
        assert_eq!(
            NextHop6::WithLinkLocal([g, l]).next_hop().unwrap(),
            NextHop::V6LinkLocal(g, l)
        );
        assert!(NextHop6::Global(l).next_hop().is_err());
        assert!(NextHop6::WithLinkLocal([g, g]).next_hop().is_err());
        assert!(NextHop6::Global(Ipv6Addr::UNSPECIFIED).next_hop().is_err());
        let at = |s: &str| Some(s.parse::<SocketAddr>().unwrap());
        assert_eq!(
            transport_next_hop(at("[::1]:179")),
            Some(NextHop::V6(Ipv6Addr::LOCALHOST))
        );
        assert_eq!(transport_next_hop(at("[fe80::1]:179")), None);
        assert_eq!(transport_next_hop(at("[::ffff:127.0.0.1]:179")), None);
        assert_eq!(transport_next_hop(at("127.0.0.1:179")), None);
        assert_eq!(transport_next_hop(None), None);
    }
}
