//! Capabilities in the OPEN message (RFC 5492 §4): multiprotocol (RFC 4760 §8),
//! 4-octet AS numbers (RFC 6793 §3), BGPsec (RFC 8205 §2.1); any other kept as sent.
//!
//! ```text
//! +------------------------------+
//! | Capability Code (1 octet)    |
//! +------------------------------+
//! | Capability Length (1 octet)  |
//! +------------------------------+
//! | Capability Value (variable)  |
//! +------------------------------+
//! ```

use std::borrow::Cow;

use hopsig_primitives::codec::{self, Codec, DecodeError, Reader, Writer};

use super::iana::CapabilityCode;

/// One capability.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Capability<'a> {
    /// Multiprotocol Extensions for one AFI/SAFI.
    Multiprotocol(MultiprotocolCapability),
    /// The speaker's 4-octet AS number.
    FourOctetAs(u32),
    /// BGPsec for one version, direction and AFI.
    Bgpsec(BgpsecCapability),
    /// A capability hopsig does not interpret (RFC 5492 §3: ignored, kept as sent).
    Other {
        /// The capability code.
        code: u8,
        /// The value as sent.
        value: Cow<'a, [u8]>,
    },
}

impl<'a> Capability<'a> {
    /// The capability code.
    pub fn code(&self) -> u8 {
        match self {
            Capability::Multiprotocol(_) => u8::from(CapabilityCode::Multiprotocol),
            Capability::FourOctetAs(_) => u8::from(CapabilityCode::FourOctetAs),
            Capability::Bgpsec(_) => u8::from(CapabilityCode::Bgpsec),
            Capability::Other { code, .. } => *code,
        }
    }

    /// Reads one capability (code, length, value).
    ///
    /// # Errors
    /// The code of the capability and a [`DecodeError`]: the value runs past the
    /// input, or a capability hopsig decodes has the wrong length (4 for
    /// multiprotocol and 4-octet AS, 3 for BGPsec, RFC 8205 §2.1: "MUST be set to 3").
    pub fn read(r: &mut Reader<'a>) -> Result<Capability<'a>, (u8, DecodeError)> {
        let code = r.u8("capability code").map_err(|e| (0, e))?;
        let value = r.u8_prefixed("capability value").map_err(|e| (code, e))?;
        let decoded = match CapabilityCode::try_from(code) {
            Ok(CapabilityCode::Multiprotocol) => {
                MultiprotocolCapability::decode(value).map(Capability::Multiprotocol)
            }
            Ok(CapabilityCode::FourOctetAs) => {
                let mut v = Reader::new(value);
                v.u32_be("4-octet AS number")
                    .and_then(|asn| v.finish("4-octet AS capability").map(|()| asn))
                    .map(Capability::FourOctetAs)
            }
            Ok(CapabilityCode::Bgpsec) => BgpsecCapability::decode(value).map(Capability::Bgpsec),
            Err(_) => Ok(Capability::Other {
                code,
                value: Cow::Borrowed(value),
            }),
        };
        decoded.map_err(|e| (code, e))
    }

    /// Appends code, length and value.
    ///
    /// # Errors
    /// A BGPsec capability whose fields exceed their bits; a value over 255 octets; an
    /// [`Capability::Other`] of a code hopsig decodes (it would not decode back to
    /// itself: give the typed value).
    pub fn encode(&self, w: &mut Writer) -> Result<(), codec::EncodeError> {
        if let Capability::Other { code, .. } = self {
            if CapabilityCode::try_from(*code).is_ok() {
                return Err(codec::EncodeError::Unrepresentable {
                    field: "capability code",
                    reason: "hopsig decodes this capability: give the decoded value",
                });
            }
        }
        w.u8(self.code());
        let mut v = Writer::new();
        match self {
            Capability::Multiprotocol(mp) => codec::to_vec(mp).iter().for_each(|&b| v.u8(b)),
            Capability::FourOctetAs(asn) => v.u32_be(*asn),
            Capability::Bgpsec(b) => b.encode(&mut v)?,
            Capability::Other { value, .. } => v.bytes(value),
        }
        w.u8_prefixed("capability value", &v.into_bytes())
    }

    /// The same capability owning its value.
    pub fn into_owned(self) -> Capability<'static> {
        match self {
            Capability::Multiprotocol(mp) => Capability::Multiprotocol(mp),
            Capability::FourOctetAs(asn) => Capability::FourOctetAs(asn),
            Capability::Bgpsec(b) => Capability::Bgpsec(b),
            Capability::Other { code, value } => Capability::Other {
                code,
                value: Cow::Owned(value.into_owned()),
            },
        }
    }
}

/// Multiprotocol Extensions capability value (RFC 4760 §8).
///
/// ```text
///  0       7      15      23      31
/// +-------+-------+-------+-------+
/// |      AFI      | Res.  | SAFI  |
/// +-------+-------+-------+-------+
/// ```
///
/// AFI and SAFI are kept as numbers: the capability may name a family whose routes
/// hopsig does not decode. The reserved octet "SHOULD be set to 0 by the sender and
/// ignored by the receiver"; it is kept so re-encoding is exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MultiprotocolCapability {
    /// Address Family Identifier.
    pub afi: u16,
    /// The reserved octet as sent.
    pub reserved: u8,
    /// Subsequent Address Family Identifier.
    pub safi: u8,
}

impl Codec for MultiprotocolCapability {
    const NAME: &'static str = "multiprotocol capability";
    type EncodeError = std::convert::Infallible;
    fn encode(&self, w: &mut Writer) -> Result<(), Self::EncodeError> {
        w.u16_be(self.afi);
        w.u8(self.reserved);
        w.u8(self.safi);
        Ok(())
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(MultiprotocolCapability {
            afi: r.u16_be("multiprotocol AFI")?,
            reserved: r.u8("multiprotocol reserved")?,
            safi: r.u8("multiprotocol SAFI")?,
        })
    }
}

/// Which way a BGPsec capability speaks (RFC 8205 §2.1, the Direction bit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// 0: the speaker can receive BGPsec UPDATEs.
    Receive,
    /// 1: the speaker can send BGPsec UPDATEs.
    Send,
}

/// BGPsec capability value (RFC 8205 §2.1, Figure 1). A speaker sends one per
/// (version, direction, AFI) it supports (§2.2).
///
/// ```text
///    0   1   2   3      4      5   6   7
///  +---------------------------------------+
///  | Version          | Dir |  Unassigned  |
///  +---------------------------------------+
///  |                                       |
///  +------           AFI              -----+
///  |                                       |
///  +---------------------------------------+
/// ```
///
/// The unassigned bits are "set to 0 by the sender and ignored by the receiver"; they
/// are kept so re-encoding is exact. The AFI is kept as a number: RFC 8205 defines
/// BGPsec for AFI 1 and 2 only, but another may come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BgpsecCapability {
    /// BGPsec version, 0..=15 (RFC 8205 defines version 0).
    pub version: u8,
    /// Send or receive.
    pub direction: Direction,
    /// The three unassigned bits, 0..=7, as sent.
    pub unassigned: u8,
    /// Address Family Identifier.
    pub afi: u16,
}

impl BgpsecCapability {
    /// Version 0 for `direction` and `afi`, unassigned bits zero.
    pub fn new(direction: Direction, afi: super::iana::Afi) -> BgpsecCapability {
        BgpsecCapability {
            version: 0,
            direction,
            unassigned: 0,
            afi: u16::from(afi),
        }
    }
}

impl Codec for BgpsecCapability {
    const NAME: &'static str = "BGPsec capability";
    type EncodeError = codec::EncodeError;
    fn encode(&self, w: &mut Writer) -> Result<(), codec::EncodeError> {
        check_bits("BGPsec version", self.version, 15)?;
        check_bits("BGPsec capability unassigned bits", self.unassigned, 7)?;
        let dir = match self.direction {
            Direction::Receive => 0,
            Direction::Send => 0x08,
        };
        w.u8(self.version << 4 | dir | self.unassigned);
        w.u16_be(self.afi);
        Ok(())
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let b = r.u8("BGPsec version and direction")?;
        Ok(BgpsecCapability {
            version: b >> 4,
            direction: if b & 0x08 == 0 {
                Direction::Receive
            } else {
                Direction::Send
            },
            unassigned: b & 0x07,
            afi: r.u16_be("BGPsec AFI")?,
        })
    }
}

fn check_bits(field: &'static str, value: u8, max: u8) -> Result<(), codec::EncodeError> {
    if value > max {
        return Err(codec::EncodeError::OutOfRange {
            field,
            actual: u64::from(value),
            min: 0,
            max: u64::from(max),
        });
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::packet::iana::Afi;

    fn round_trip(bytes: &[u8]) -> Capability<'_> {
        let mut r = Reader::new(bytes);
        let c = Capability::read(&mut r).unwrap();
        r.finish("capability").unwrap();
        let mut w = Writer::new();
        c.encode(&mut w).unwrap();
        assert_eq!(w.into_bytes(), bytes);
        c
    }

    #[test]
    fn capabilities_on_commented_bytes() {
        #[rustfmt::skip]
        let mp = [
            0x01, 0x04, // Multiprotocol, length 4
            0x00, 0x02, // AFI IPv6
            0x00,       // reserved
            0x01,       // SAFI unicast
        ];
        assert_eq!(
            round_trip(&mp),
            Capability::Multiprotocol(MultiprotocolCapability {
                afi: 2,
                reserved: 0,
                safi: 1
            })
        );
        #[rustfmt::skip]
        let as4 = [
            0x41, 0x04,             // 4-octet AS, length 4
            0x00, 0x01, 0x00, 0x00, // AS 65536
        ];
        assert_eq!(round_trip(&as4), Capability::FourOctetAs(65_536));
        #[rustfmt::skip]
        let bgpsec = [
            0x07, 0x03, // BGPsec, length 3
            0b0000_1000, // version 0, Direction 1 (send), unassigned 0
            0x00, 0x01, // AFI IPv4
        ];
        assert_eq!(
            round_trip(&bgpsec),
            Capability::Bgpsec(BgpsecCapability::new(Direction::Send, Afi::Ipv4))
        );
        #[rustfmt::skip]
        let odd_bgpsec = [
            0x07, 0x03,  // BGPsec, length 3
            0b0001_0101, // version 1, Direction 0 (receive), unassigned bits 101 (kept)
            0x00, 0x02,  // AFI IPv6
        ];
        assert_eq!(
            round_trip(&odd_bgpsec),
            Capability::Bgpsec(BgpsecCapability {
                version: 1,
                direction: Direction::Receive,
                unassigned: 5,
                afi: 2
            })
        );
        #[rustfmt::skip]
        let route_refresh = [
            0x02, 0x00, // Route Refresh (RFC 2918), length 0: kept as sent
        ];
        assert_eq!(
            round_trip(&route_refresh),
            Capability::Other {
                code: 2,
                value: Cow::Borrowed(&[][..])
            }
        );
    }

    #[test]
    fn wrong_lengths_of_decoded_capabilities_are_errors() {
        // BGPsec with length 4 (RFC 8205 §2.1: "MUST be set to 3").
        let r = Capability::read(&mut Reader::new(&[0x07, 0x04, 0x08, 0x00, 0x01, 0x00]));
        assert!(matches!(r, Err((7, DecodeError::TrailingBytes { .. }))));
        let r = Capability::read(&mut Reader::new(&[0x41, 0x02, 0x00, 0x01]));
        assert!(matches!(r, Err((65, DecodeError::ShortInput { .. }))));
        let r = Capability::read(&mut Reader::new(&[0x01, 0x05, 0x00]));
        assert!(matches!(r, Err((1, DecodeError::ShortInput { .. }))));
        let mut w = Writer::new();
        // A capability of a code hopsig decodes, given as raw octets, would decode as
        // the typed value (or not at all): it does not encode.
        for code in [1, 7, 65] {
            let raw = Capability::Other {
                code,
                value: Cow::Borrowed(&[0, 0, 0, 1][..]),
            };
            assert!(raw.encode(&mut w).is_err(), "{code}");
        }
        let bad = BgpsecCapability {
            version: 16,
            ..BgpsecCapability::new(Direction::Send, Afi::Ipv4)
        };
        assert!(bad.encode(&mut w).is_err());
    }
}
