//! MP_REACH_NLRI attribute value (RFC 4760 §3) for IPv4 and IPv6 unicast and
//! multicast.
//!
//! ```text
//! +---------------------------------------------------------+
//! | Address Family Identifier (2 octets)                    |
//! +---------------------------------------------------------+
//! | Subsequent Address Family Identifier (1 octet)          |
//! +---------------------------------------------------------+
//! | Length of Next Hop Network Address (1 octet)            |
//! +---------------------------------------------------------+
//! | Network Address of Next Hop (variable)                  |
//! +---------------------------------------------------------+
//! | Reserved (1 octet)                                      |
//! +---------------------------------------------------------+
//! | Network Layer Reachability Information (variable)       |
//! +---------------------------------------------------------+
//! ```
//!
//! Next-hop lengths (RFC 7606 §7.11 "that which was expected"): 4 for IPv4; 16 (a
//! global address) or 32 (global then link-local, RFC 2545 §3) for IPv6. IPv6 next
//! hops for IPv4 routes (RFC 5549) are not implemented, so an IPv4 next hop of 16 or
//! 32 octets is malformed. The Reserved octet "MUST be set to 0, and SHOULD be ignored
//! upon receipt" (RFC 4760 §3): it is kept, so re-encoding is exact. Other AFI/SAFI
//! pairs are not decoded here: [`super::PathAttribute`] keeps such an attribute byte
//! for byte.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use hopsig_primitives::codec::{self, Codec, DecodeError, Reader, Writer};

use crate::packet::iana::{Afi, Safi};
use crate::packet::prefix::{encode_prefixes, read_prefixes, Prefix};

/// The next hop of MP_REACH_NLRI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NextHop {
    /// An IPv4 next hop (4 octets).
    V4(Ipv4Addr),
    /// An IPv6 global next hop (16 octets).
    V6(Ipv6Addr),
    /// An IPv6 global and a link-local next hop (32 octets, RFC 2545 §3).
    V6LinkLocal(Ipv6Addr, Ipv6Addr),
}

impl NextHop {
    /// The address family of the next hop.
    pub fn afi(&self) -> Afi {
        match self {
            NextHop::V4(_) => Afi::Ipv4,
            NextHop::V6(_) | NextHop::V6LinkLocal(..) => Afi::Ipv6,
        }
    }

    /// The (global) next-hop address.
    pub fn addr(&self) -> IpAddr {
        match *self {
            NextHop::V4(a) => IpAddr::V4(a),
            NextHop::V6(a) | NextHop::V6LinkLocal(a, _) => IpAddr::V6(a),
        }
    }

    fn decode(afi: Afi, bytes: &[u8]) -> Result<NextHop, DecodeError> {
        let bad = || DecodeError::Invalid {
            field: "MP_REACH_NLRI next hop length",
            reason: "must be 4 for IPv4, 16 or 32 for IPv6 (RFC 4760, RFC 2545 §3)",
        };
        match (afi, bytes.len()) {
            (Afi::Ipv4, 4) => Ok(NextHop::V4(Ipv4Addr::from(
                Reader::new(bytes).array::<4>("next hop")?,
            ))),
            (Afi::Ipv6, 16) => Ok(NextHop::V6(Ipv6Addr::from(
                Reader::new(bytes).array::<16>("next hop")?,
            ))),
            (Afi::Ipv6, 32) => {
                let mut r = Reader::new(bytes);
                let global = Ipv6Addr::from(r.array::<16>("next hop")?);
                let link_local = Ipv6Addr::from(r.array::<16>("link-local next hop")?);
                Ok(NextHop::V6LinkLocal(global, link_local))
            }
            _ => Err(bad()),
        }
    }

    fn encode(&self, w: &mut Writer) {
        match self {
            NextHop::V4(a) => {
                w.u8(4);
                w.bytes(&a.octets());
            }
            NextHop::V6(a) => {
                w.u8(16);
                w.bytes(&a.octets());
            }
            NextHop::V6LinkLocal(a, b) => {
                w.u8(32);
                w.bytes(&a.octets());
                w.bytes(&b.octets());
            }
        }
    }
}

/// An MP_REACH_NLRI value: family, next hop and the announced prefixes, all of the
/// family of the next hop.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MpReachNlri {
    safi: Safi,
    next_hop: NextHop,
    reserved: u8,
    nlri: Vec<Prefix>,
}

impl MpReachNlri {
    /// Prefixes `nlri` reachable through `next_hop`; the AFI is the next hop's, the
    /// Reserved octet zero.
    ///
    /// # Errors
    /// [`codec::EncodeError::Unrepresentable`] if a prefix is of another family.
    pub fn new(
        safi: Safi,
        next_hop: NextHop,
        nlri: Vec<Prefix>,
    ) -> Result<MpReachNlri, codec::EncodeError> {
        same_family(next_hop.afi(), &nlri)?;
        Ok(MpReachNlri {
            safi,
            next_hop,
            reserved: 0,
            nlri,
        })
    }

    /// The address family.
    pub fn afi(&self) -> Afi {
        self.next_hop.afi()
    }

    /// The subsequent address family.
    pub fn safi(&self) -> Safi {
        self.safi
    }

    /// The next hop.
    pub fn next_hop(&self) -> NextHop {
        self.next_hop
    }

    /// The Reserved octet as received.
    pub fn reserved(&self) -> u8 {
        self.reserved
    }

    /// The announced prefixes.
    pub fn nlri(&self) -> &[Prefix] {
        &self.nlri
    }

    /// Decodes the value.
    ///
    /// # Errors
    /// A family other than IPv4/IPv6 unicast/multicast, a next hop of the wrong
    /// length, a bad prefix (RFC 7606 §5.3), an attribute shorter than 5 octets.
    pub fn decode(value: &[u8]) -> Result<MpReachNlri, DecodeError> {
        let mut r = Reader::new(value);
        let afi = Afi::read(&mut r)?;
        let safi = Safi::read(&mut r)?;
        let next_hop = NextHop::decode(afi, r.u8_prefixed("MP_REACH_NLRI next hop")?)?;
        let reserved = r.u8("MP_REACH_NLRI reserved")?;
        let nlri = read_prefixes(r.take(r.remaining(), "MP_REACH_NLRI NLRI")?, afi)?;
        Ok(MpReachNlri {
            safi,
            next_hop,
            reserved,
            nlri,
        })
    }

    /// Appends the value.
    pub fn encode(&self, w: &mut Writer) {
        w.u16_be(u16::from(self.afi()));
        w.u8(u8::from(self.safi));
        self.next_hop.encode(w);
        w.u8(self.reserved);
        encode_prefixes(&self.nlri, w);
    }
}

/// Checks that every prefix is of family `afi`.
pub(crate) fn same_family(afi: Afi, prefixes: &[Prefix]) -> Result<(), codec::EncodeError> {
    if prefixes.iter().any(|p| p.afi() != afi) {
        return Err(codec::EncodeError::Unrepresentable {
            field: "MP NLRI",
            reason: "every prefix must be of the attribute's address family",
        });
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn encode(m: &MpReachNlri) -> Vec<u8> {
        let mut w = Writer::new();
        m.encode(&mut w);
        w.into_bytes()
    }

    #[test]
    fn ipv4_mp_reach_of_rfc_8608_a3_on_commented_bytes() {
        #[rustfmt::skip]
        let value = [
            0x00, 0x01,             // AFI IPv4
            0x01,                   // SAFI unicast
            0x04,                   // next hop length 4
            0xc6, 0x33, 0x64, 0x64, //   198.51.100.100
            0x00,                   // reserved
            0x18, 0xc0, 0x00, 0x02, // 192.0.2.0/24
        ];
        let m = MpReachNlri::decode(&value).unwrap();
        assert_eq!(m.afi(), Afi::Ipv4);
        assert_eq!(m.safi(), Safi::Unicast);
        assert_eq!(m.next_hop(), NextHop::V4(Ipv4Addr::new(198, 51, 100, 100)));
        assert_eq!(m.nlri().len(), 1);
        assert_eq!(m.nlri()[0].to_string(), "192.0.2.0/24");
        assert_eq!(encode(&m), value);
    }

    #[test]
    fn ipv6_mp_reach_with_link_local_next_hop_on_commented_bytes() {
        #[rustfmt::skip]
        let value = [
            0x00, 0x02,             // AFI IPv6
            0x01,                   // SAFI unicast
            0x20,                   // next hop length 32: global + link-local
            0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, // 2001:db8::1
            0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,       // fe80::1
            0x07,                   // reserved: nonzero, ignored and kept
            0x20, 0x20, 0x01, 0x0d, 0xb8, // 2001:db8::/32
            0x00,                   // ::/0
        ];
        let m = MpReachNlri::decode(&value).unwrap();
        assert!(matches!(m.next_hop(), NextHop::V6LinkLocal(_, ll) if ll.segments()[0] == 0xfe80));
        assert_eq!(m.reserved(), 7);
        assert_eq!(m.nlri().len(), 2);
        assert_eq!(encode(&m), value);
    }

    #[test]
    fn wrong_next_hop_lengths_families_and_prefixes_are_rejected() {
        // IPv4 with a 16-octet next hop (RFC 5549 is not implemented).
        let mut v = vec![0, 1, 1, 16];
        v.extend_from_slice(&[0; 16]);
        v.push(0);
        assert!(matches!(
            MpReachNlri::decode(&v),
            Err(DecodeError::Invalid { .. })
        ));
        // IPv6 with a 4-octet next hop.
        assert!(MpReachNlri::decode(&[0, 2, 1, 4, 1, 2, 3, 4, 0]).is_err());
        // A /33 in IPv4.
        assert!(MpReachNlri::decode(&[0, 1, 1, 4, 1, 2, 3, 4, 0, 33, 1, 2, 3, 4, 5]).is_err());
        // Shorter than 5 octets.
        assert!(MpReachNlri::decode(&[0, 1, 1, 0]).is_err());
        // SAFI 128 (MPLS VPN) is not decoded here.
        assert!(MpReachNlri::decode(&[0, 1, 128, 4, 1, 2, 3, 4, 0]).is_err());
        // Building: prefixes must match the next hop's family.
        let v6: Prefix = Prefix::new("2001:db8::".parse().unwrap(), 32).unwrap();
        assert!(
            MpReachNlri::new(Safi::Unicast, NextHop::V4(Ipv4Addr::LOCALHOST), vec![v6]).is_err()
        );
    }
}
