//! MP_UNREACH_NLRI attribute value (RFC 4760 §4) for IPv4 and IPv6 unicast and
//! multicast.
//!
//! ```text
//! +---------------------------------------------------------+
//! | Address Family Identifier (2 octets)                    |
//! +---------------------------------------------------------+
//! | Subsequent Address Family Identifier (1 octet)          |
//! +---------------------------------------------------------+
//! | Withdrawn Routes (variable)                             |
//! +---------------------------------------------------------+
//! ```
//!
//! With no withdrawn route it is the End-of-RIB marker of its family (RFC 4724 §2).

use hopsig_primitives::codec::{self, Codec, DecodeError, Reader, Writer};

use super::mp_reach::same_family;
use crate::packet::iana::{Afi, Safi};
use crate::packet::prefix::{encode_prefixes, read_prefixes, Prefix};

/// An MP_UNREACH_NLRI value: family and withdrawn prefixes of that family.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MpUnreachNlri {
    afi: Afi,
    safi: Safi,
    withdrawn: Vec<Prefix>,
}

impl MpUnreachNlri {
    /// Withdraws `withdrawn` (none: End-of-RIB).
    ///
    /// # Errors
    /// [`codec::EncodeError::Unrepresentable`] if a prefix is not of family `afi`.
    pub fn new(
        afi: Afi,
        safi: Safi,
        withdrawn: Vec<Prefix>,
    ) -> Result<MpUnreachNlri, codec::EncodeError> {
        same_family(afi, &withdrawn)?;
        Ok(MpUnreachNlri {
            afi,
            safi,
            withdrawn,
        })
    }

    /// The address family.
    pub fn afi(&self) -> Afi {
        self.afi
    }

    /// The subsequent address family.
    pub fn safi(&self) -> Safi {
        self.safi
    }

    /// The withdrawn prefixes.
    pub fn withdrawn(&self) -> &[Prefix] {
        &self.withdrawn
    }

    /// Decodes the value.
    ///
    /// # Errors
    /// A family other than IPv4/IPv6 unicast/multicast, a bad prefix (RFC 7606 §5.3),
    /// an attribute shorter than 3 octets.
    pub fn decode(value: &[u8]) -> Result<MpUnreachNlri, DecodeError> {
        let mut r = Reader::new(value);
        let afi = Afi::read(&mut r)?;
        let safi = Safi::read(&mut r)?;
        let withdrawn = read_prefixes(r.take(r.remaining(), "MP_UNREACH_NLRI withdrawn")?, afi)?;
        Ok(MpUnreachNlri {
            afi,
            safi,
            withdrawn,
        })
    }

    /// Appends the value.
    pub fn encode(&self, w: &mut Writer) {
        w.u16_be(u16::from(self.afi));
        w.u8(u8::from(self.safi));
        encode_prefixes(&self.withdrawn, w);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn mp_unreach_on_commented_bytes() {
        #[rustfmt::skip]
        let value = [
            0x00, 0x02,                   // AFI IPv6
            0x01,                         // SAFI unicast
            0x30, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01, // 2001:db8:1::/48
        ];
        let m = MpUnreachNlri::decode(&value).unwrap();
        assert_eq!((m.afi(), m.safi()), (Afi::Ipv6, Safi::Unicast));
        assert_eq!(m.withdrawn()[0].to_string(), "2001:db8:1::/48");
        let mut w = Writer::new();
        m.encode(&mut w);
        assert_eq!(w.into_bytes(), value);
        // End-of-RIB for IPv4 unicast.
        let eor = MpUnreachNlri::decode(&[0x00, 0x01, 0x01]).unwrap();
        assert!(eor.withdrawn().is_empty());
        assert!(MpUnreachNlri::decode(&[0x00, 0x01]).is_err());
        assert!(MpUnreachNlri::decode(&[0x00, 0x01, 0x01, 0x21, 1, 2, 3, 4, 5]).is_err());
    }
}
