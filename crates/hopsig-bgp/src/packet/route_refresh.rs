//! The ROUTE-REFRESH message (RFC 2918 §3, message type 5, with RFC 7313 §3.2's
//! Message Subtype in its reserved octet) and the session capabilities hopsig's
//! speaker negotiates beyond RFC 4271: Route Refresh (RFC 2918 §2, code 2),
//! Enhanced Route Refresh (RFC 7313 §3.1, code 70), Extended Message (RFC 8654 §3,
//! code 6) — all three of length 0 — and Graceful Restart (RFC 4724 §3, code 64).
//!
//! They are carried as [`Capability::Other`]: the codec keeps every capability it
//! does not type as sent (RFC 5492 §3), and these are read and written here.
//!
//! ```text
//! ROUTE-REFRESH (after the 19-octet header, Length 23):
//!  0       7      15      23      31
//! +-------+-------+-------+-------+
//! |      AFI      | Subtyp| SAFI  |
//! +-------+-------+-------+-------+
//! ```

use std::borrow::Cow;

use super::capability::Capability;
use super::header::HEADER_LEN;
use super::notification::Notification;

/// The ROUTE-REFRESH message type (RFC 2918 §3).
pub const ROUTE_REFRESH_TYPE: u8 = 5;
/// Octets of a ROUTE-REFRESH message, header included.
pub const ROUTE_REFRESH_LEN: usize = HEADER_LEN + 4;
/// Route Refresh capability code (RFC 2918 §2).
pub const ROUTE_REFRESH_CAPABILITY: u8 = 2;
/// Extended Message capability code (RFC 8654 §3).
pub const EXTENDED_MESSAGE_CAPABILITY: u8 = 6;
/// Graceful Restart capability code (RFC 4724 §3).
pub const GRACEFUL_RESTART_CAPABILITY: u8 = 64;
/// Enhanced Route Refresh capability code (RFC 7313 §3.1).
pub const ENHANCED_ROUTE_REFRESH_CAPABILITY: u8 = 70;
/// The ROUTE-REFRESH Message Error code of a NOTIFICATION (RFC 7313 §5).
pub const ROUTE_REFRESH_ERROR: u8 = 7;
/// Its subcode Invalid Message Length (RFC 7313 §5).
pub const INVALID_MESSAGE_LENGTH: u8 = 1;

/// A capability of `code` with an empty value: Route Refresh, Enhanced Route
/// Refresh, Extended Message.
pub fn empty_capability(code: u8) -> Capability<'static> {
    Capability::Other {
        code,
        value: Cow::Borrowed(&[]),
    }
}

/// The ROUTE-REFRESH Message Subtype (RFC 7313 §3.2; 0 is RFC 2918's request).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Subtype {
    /// 0: a request to re-advertise the Adj-RIB-Out (RFC 2918).
    Request,
    /// 1: Beginning of Route Refresh (BoRR).
    Begin,
    /// 2: End of Route Refresh (EoRR).
    End,
    /// Any other value: "MUST ignore the received ROUTE-REFRESH message" (RFC 7313
    /// §5).
    Other(u8),
}

impl From<u8> for Subtype {
    fn from(v: u8) -> Subtype {
        match v {
            0 => Subtype::Request,
            1 => Subtype::Begin,
            2 => Subtype::End,
            v => Subtype::Other(v),
        }
    }
}

impl From<Subtype> for u8 {
    fn from(s: Subtype) -> u8 {
        match s {
            Subtype::Request => 0,
            Subtype::Begin => 1,
            Subtype::End => 2,
            Subtype::Other(v) => v,
        }
    }
}

/// A ROUTE-REFRESH message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RouteRefresh {
    /// Address Family Identifier.
    pub afi: u16,
    /// The Message Subtype (RFC 7313; "Reserved", 0, in RFC 2918).
    pub subtype: Subtype,
    /// Subsequent Address Family Identifier.
    pub safi: u8,
}

impl RouteRefresh {
    /// A message of `subtype` for IPv4 (or `afi`) unicast.
    pub fn new(afi: u16, safi: u8, subtype: Subtype) -> RouteRefresh {
        RouteRefresh { afi, subtype, safi }
    }

    /// The whole message, header included (23 octets).
    pub fn encoding(&self) -> Vec<u8> {
        let mut v = vec![0xff; 16];
        v.extend_from_slice(&(ROUTE_REFRESH_LEN as u16).to_be_bytes());
        v.push(ROUTE_REFRESH_TYPE);
        v.extend_from_slice(&self.afi.to_be_bytes());
        v.push(u8::from(self.subtype));
        v.push(self.safi);
        v
    }

    /// Decodes a whole ROUTE-REFRESH message (`bytes` exactly Length octets, the
    /// header already checked by the caller as a type-5 header).
    ///
    /// # Errors
    /// The NOTIFICATION to send for a body that is not 4 octets: ROUTE-REFRESH
    /// Message Error / Invalid Message Length with the message as data (RFC 7313 §5,
    /// which makes this the answer for subtypes 1 and 2, and hopsig for every
    /// subtype: the body has no other length).
    pub fn decode(bytes: &[u8]) -> Result<RouteRefresh, Notification<'static>> {
        let body = bytes.get(HEADER_LEN..).unwrap_or_default();
        match body {
            [a, b, subtype, safi] => Ok(RouteRefresh {
                afi: u16::from_be_bytes([*a, *b]),
                subtype: Subtype::from(*subtype),
                safi: *safi,
            }),
            _ => Err(Notification {
                code: ROUTE_REFRESH_ERROR,
                subcode: INVALID_MESSAGE_LENGTH,
                data: Cow::Owned(bytes.to_vec()),
            }),
        }
    }
}

/// A Graceful Restart capability (RFC 4724 §3).
///
/// ```text
/// +--------------------------------------------------+
/// | Restart Flags (4 bits) | Restart Time (12 bits)  |
/// +--------------------------------------------------+
/// | AFI (16 bits) | SAFI (8 bits) | Flags for AF (8) |  repeated
/// +--------------------------------------------------+
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GracefulRestart {
    /// The Restart State bit (R, the most significant flag): the sender restarted.
    pub restart_state: bool,
    /// Seconds the sender needs to re-establish a session after a restart.
    pub restart_time: u16,
    /// Each address family whose forwarding state the sender preserves: AFI, SAFI
    /// and whether it was preserved across this restart (the F bit). None: the
    /// sender preserves no forwarding state (it only helps peers, §3).
    pub families: Vec<(u16, u8, bool)>,
}

impl GracefulRestart {
    /// The capability, Restart Time cut to its 12 bits.
    pub fn capability(&self) -> Capability<'static> {
        let mut v = Vec::with_capacity(2 + 4 * self.families.len());
        let head = (u16::from(self.restart_state) << 15) | (self.restart_time & 0x0fff);
        v.extend_from_slice(&head.to_be_bytes());
        for (afi, safi, forwarding) in &self.families {
            v.extend_from_slice(&afi.to_be_bytes());
            v.push(*safi);
            v.push(if *forwarding { 0x80 } else { 0 });
        }
        Capability::Other {
            code: GRACEFUL_RESTART_CAPABILITY,
            value: Cow::Owned(v),
        }
    }

    /// The Graceful Restart capability among `caps`, if any decodes: a value of 2 +
    /// 4n octets (a malformed one is taken as not announced).
    pub fn find<'c>(caps: impl IntoIterator<Item = &'c Capability<'c>>) -> Option<GracefulRestart> {
        caps.into_iter().find_map(|c| match c {
            Capability::Other { code, value } if *code == GRACEFUL_RESTART_CAPABILITY => {
                let (head, rest) = value.split_first_chunk::<2>()?;
                if rest.len() % 4 != 0 {
                    return None;
                }
                let head = u16::from_be_bytes(*head);
                Some(GracefulRestart {
                    restart_state: head & 0x8000 != 0,
                    restart_time: head & 0x0fff,
                    families: rest
                        .chunks_exact(4)
                        .map(|f| (u16::from_be_bytes([f[0], f[1]]), f[2], f[3] & 0x80 != 0))
                        .collect(),
                })
            }
            _ => None,
        })
    }
}

/// Whether `caps` hold a capability of `code`.
pub fn announced<'c>(caps: impl IntoIterator<Item = &'c Capability<'c>>, code: u8) -> bool {
    caps.into_iter().any(|c| c.code() == code)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use hopsig_primitives::codec::{Reader, Writer};

    #[test]
    fn route_refresh_on_commented_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // marker
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0x00, 0x17,                                     // length 23
            0x05,                                           // ROUTE-REFRESH (RFC 2918 §3)
            0x00, 0x01,                                     // AFI IPv4
            0x02,                                           // subtype 2: EoRR (RFC 7313 §3.2)
            0x01,                                           // SAFI unicast
        ];
        let rr = RouteRefresh::decode(&bytes).unwrap();
        assert_eq!(rr, RouteRefresh::new(1, 1, Subtype::End));
        assert_eq!(rr.encoding(), bytes);
        assert_eq!(
            RouteRefresh::new(1, 1, Subtype::Request).encoding()[21],
            0,
            "RFC 2918: Reserved 0"
        );
        assert_eq!(Subtype::from(7), Subtype::Other(7));
        // RFC 7313 §5: a body other than 4 octets is ROUTE-REFRESH Message Error /
        // Invalid Message Length, the message as data.
        let mut long = bytes.to_vec();
        long.push(0);
        long[17] = 24;
        let n = RouteRefresh::decode(&long).unwrap_err();
        assert_eq!((n.code, n.subcode, &n.data[..]), (7, 1, &long[..]));
    }

    #[test]
    fn graceful_restart_capability_on_commented_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0x40, 0x06,  // Graceful Restart (RFC 4724 §3), length 6
            0x80, 0x78,  // R = 1, Restart Time 120
            0x00, 0x01,  // AFI IPv4
            0x01,        // SAFI unicast
            0x80,        // F = 1: forwarding state preserved
        ];
        let c = Capability::read(&mut Reader::new(&bytes)).unwrap();
        let gr = GracefulRestart::find([&c]).unwrap();
        assert_eq!(
            gr,
            GracefulRestart {
                restart_state: true,
                restart_time: 120,
                families: vec![(1, 1, true)]
            }
        );
        let mut w = Writer::new();
        gr.capability().encode(&mut w).unwrap();
        assert_eq!(w.into_bytes(), bytes);
        // A helper (§3: no address family, it preserves no forwarding state).
        let helper = GracefulRestart {
            restart_state: false,
            restart_time: 90,
            families: vec![],
        };
        let mut w = Writer::new();
        helper.capability().encode(&mut w).unwrap();
        assert_eq!(w.into_bytes(), [0x40, 0x02, 0x00, 0x5a]);
        // A value that is not 2 + 4n octets is taken as no capability.
        let odd = Capability::Other {
            code: GRACEFUL_RESTART_CAPABILITY,
            value: Cow::Borrowed(&[0, 90, 0]),
        };
        assert_eq!(GracefulRestart::find([&odd]), None);
        assert!(announced([&odd], GRACEFUL_RESTART_CAPABILITY));
        assert!(!announced([&odd], EXTENDED_MESSAGE_CAPABILITY));
    }
}
