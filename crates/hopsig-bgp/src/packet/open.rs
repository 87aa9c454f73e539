//! OPEN message (RFC 4271 §4.2) with Capabilities optional parameters (RFC 5492 §4).
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+
//! |    Version    |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |     My Autonomous System      |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |           Hold Time           |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                         BGP Identifier                        |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! | Opt Parm Len  |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |             Optional Parameters (variable)                    |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//!
//! each Optional Parameter:  Parm. Type (1) | Parm. Length (1) | Parm. Value
//! ```
//!
//! The only parameter type in use is Capabilities (2); any other is "Unsupported
//! Optional Parameter" (RFC 4271 §6.2). The extended parameters length of RFC 9072
//! (Opt Parm Len 255 followed by a type-255 marker) is not implemented: it reads as
//! an unsupported parameter type 255. One parameter may hold several capabilities;
//! hopsig keeps the grouping as sent so re-encoding is exact.

use std::net::Ipv4Addr;

use hopsig_primitives::codec::{self, DecodeError, Reader, Writer};

use super::capability::Capability;
use super::error::OpenError;
use super::iana::ParameterType;

/// AS_TRANS (RFC 6793 §9): the 2-octet stand-in for a 4-octet AS number.
pub const AS_TRANS: u16 = 23_456;

/// An OPEN message body.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Open<'a> {
    /// My Autonomous System: the 2-octet AS number, or [`AS_TRANS`] for a 4-octet one
    /// (RFC 6793 §4.1).
    pub my_as: u16,
    /// Hold Time in seconds: 0 or at least 3.
    pub hold_time: u16,
    /// BGP Identifier, not zero.
    pub bgp_identifier: Ipv4Addr,
    /// The Capabilities optional parameters, each a list of capabilities, in order.
    pub parameters: Vec<Vec<Capability<'a>>>,
}

/// The version this codec speaks.
const BGP_VERSION: u8 = 4;

impl<'a> Open<'a> {
    /// An OPEN for `asn` (2-octet field [`AS_TRANS`] when it does not fit), with the
    /// 4-octet AS capability first and then `capabilities`, all in one parameter.
    pub fn new(
        asn: u32,
        hold_time: u16,
        bgp_identifier: Ipv4Addr,
        capabilities: Vec<Capability<'a>>,
    ) -> Open<'a> {
        let mut all = vec![Capability::FourOctetAs(asn)];
        all.extend(capabilities);
        Open {
            my_as: u16::try_from(asn).unwrap_or(AS_TRANS),
            hold_time,
            bgp_identifier,
            parameters: vec![all],
        }
    }

    /// Every capability, in order.
    pub fn capabilities(&self) -> impl Iterator<Item = &Capability<'a>> {
        self.parameters.iter().flatten()
    }

    /// The speaker's AS number: from the 4-octet AS capability if present (RFC 6793
    /// §4.1), else My Autonomous System.
    pub fn asn(&self) -> u32 {
        self.capabilities()
            .find_map(|c| match c {
                Capability::FourOctetAs(asn) => Some(*asn),
                _ => None,
            })
            .unwrap_or(u32::from(self.my_as))
    }

    /// Decodes an OPEN body (the octets after the message header).
    ///
    /// # Errors
    /// [`OpenError`]: version not 4, Hold Time 1 or 2, BGP Identifier 0, an optional
    /// parameter other than Capabilities, a malformed capability, lengths that do not
    /// add up.
    pub fn decode(body: &'a [u8]) -> Result<Open<'a>, OpenError> {
        let mut r = Reader::new(body);
        let version = r.u8("version").map_err(OpenError::Syntax)?;
        if version != BGP_VERSION {
            return Err(OpenError::UnsupportedVersion(version));
        }
        let my_as = r
            .u16_be("My Autonomous System")
            .map_err(OpenError::Syntax)?;
        let hold_time = r.u16_be("Hold Time").map_err(OpenError::Syntax)?;
        if matches!(hold_time, 1 | 2) {
            return Err(OpenError::UnacceptableHoldTime(hold_time));
        }
        let id = r.u32_be("BGP Identifier").map_err(OpenError::Syntax)?;
        if id == 0 {
            return Err(OpenError::BadBgpIdentifier);
        }
        let params = r
            .u8_prefixed("Optional Parameters")
            .map_err(OpenError::Syntax)?;
        r.finish("OPEN").map_err(OpenError::Syntax)?;
        let mut p = Reader::new(params);
        let mut parameters = Vec::new();
        while p.remaining() > 0 {
            let kind = p.u8("parameter type").map_err(OpenError::Syntax)?;
            let value = p
                .u8_prefixed("parameter value")
                .map_err(OpenError::Syntax)?;
            if ParameterType::try_from(kind).is_err() {
                return Err(OpenError::UnsupportedOptionalParameter(kind));
            }
            let mut c = Reader::new(value);
            let mut capabilities = Vec::new();
            while c.remaining() > 0 {
                let cap = Capability::read(&mut c)
                    .map_err(|(code, error)| OpenError::MalformedCapability { code, error })?;
                capabilities.push(cap);
            }
            parameters.push(capabilities);
        }
        Ok(Open {
            my_as,
            hold_time,
            bgp_identifier: Ipv4Addr::from(id),
            parameters,
        })
    }

    /// Appends the body.
    ///
    /// # Errors
    /// A Hold Time of 1 or 2 or an identifier of 0 (the decoder refuses them), a
    /// capability that does not encode, parameters over 255 octets.
    pub fn encode(&self, w: &mut Writer) -> Result<(), codec::EncodeError> {
        if matches!(self.hold_time, 1 | 2) {
            return Err(codec::EncodeError::Unrepresentable {
                field: "Hold Time",
                reason: "must be 0 or at least 3 seconds (RFC 4271 §4.2)",
            });
        }
        if self.bgp_identifier.is_unspecified() {
            return Err(codec::EncodeError::Unrepresentable {
                field: "BGP Identifier",
                reason: "must not be 0.0.0.0",
            });
        }
        w.u8(BGP_VERSION);
        w.u16_be(self.my_as);
        w.u16_be(self.hold_time);
        w.bytes(&self.bgp_identifier.octets());
        let mut params = Writer::new();
        for capabilities in &self.parameters {
            let mut value = Writer::new();
            for c in capabilities {
                c.encode(&mut value)?;
            }
            params.u8(u8::from(ParameterType::Capabilities));
            params.u8_prefixed("parameter value", &value.into_bytes())?;
        }
        w.u8_prefixed("Optional Parameters", &params.into_bytes())
    }

    /// The same OPEN owning its capability values.
    pub fn into_owned(self) -> Open<'static> {
        Open {
            my_as: self.my_as,
            hold_time: self.hold_time,
            bgp_identifier: self.bgp_identifier,
            parameters: self
                .parameters
                .into_iter()
                .map(|p| p.into_iter().map(Capability::into_owned).collect())
                .collect(),
        }
    }
}

impl From<DecodeError> for OpenError {
    fn from(e: DecodeError) -> Self {
        OpenError::Syntax(e)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::packet::capability::{BgpsecCapability, Direction, MultiprotocolCapability};
    use crate::packet::iana::Afi;

    #[rustfmt::skip]
    const OPEN: [u8; 36] = [
        0x04,                   // version 4
        0x5b, 0xa0,             // My AS 23456 (AS_TRANS)
        0x00, 0xb4,             // Hold Time 180
        0xc0, 0x00, 0x02, 0x01, // BGP Identifier 192.0.2.1
        0x1a,                   // Opt Parm Len 26
        0x02, 0x06,             //   parameter: Capabilities, length 6
        0x41, 0x04,             //     4-octet AS, length 4
        0x00, 0x01, 0x00, 0x00, //       AS 65536
        0x02, 0x10,             //   parameter: Capabilities, length 16
        0x01, 0x04,             //     Multiprotocol, length 4
        0x00, 0x01, 0x00, 0x01, //       IPv4 unicast
        0x07, 0x03,             //     BGPsec, length 3
        0x08, 0x00, 0x01,       //       version 0, send, IPv4
        0x07, 0x03,             //     BGPsec, length 3
        0x00, 0x00, 0x01,       //       version 0, receive, IPv4
    ];

    #[test]
    fn open_on_commented_bytes() {
        let open = Open::decode(&OPEN).unwrap();
        assert_eq!(open.asn(), 65_536);
        assert_eq!(open.my_as, AS_TRANS);
        assert_eq!(open.hold_time, 180);
        assert_eq!(open.bgp_identifier, Ipv4Addr::new(192, 0, 2, 1));
        assert_eq!(open.parameters.len(), 2);
        let caps: Vec<_> = open.capabilities().cloned().collect();
        assert_eq!(
            caps,
            [
                Capability::FourOctetAs(65_536),
                Capability::Multiprotocol(MultiprotocolCapability {
                    afi: 1,
                    reserved: 0,
                    safi: 1
                }),
                Capability::Bgpsec(BgpsecCapability::new(Direction::Send, Afi::Ipv4)),
                Capability::Bgpsec(BgpsecCapability::new(Direction::Receive, Afi::Ipv4)),
            ]
        );
        let mut w = Writer::new();
        open.encode(&mut w).unwrap();
        assert_eq!(w.into_bytes(), OPEN);
    }

    #[test]
    fn new_puts_the_four_octet_as_first_in_one_parameter() {
        let open = Open::new(
            4_200_000_000,
            90,
            Ipv4Addr::new(10, 0, 0, 1),
            vec![Capability::Bgpsec(BgpsecCapability::new(
                Direction::Receive,
                Afi::Ipv6,
            ))],
        );
        assert_eq!(open.my_as, AS_TRANS);
        assert_eq!(open.asn(), 4_200_000_000);
        let mut w = Writer::new();
        open.encode(&mut w).unwrap();
        assert_eq!(Open::decode(&w.into_bytes()).unwrap(), open);
        assert_eq!(
            Open::new(64_500, 90, Ipv4Addr::new(10, 0, 0, 1), vec![]).my_as,
            64_500
        );
    }

    #[test]
    fn rfc_4271_section_6_2_errors() {
        let mut v = OPEN;
        v[0] = 3;
        assert_eq!(Open::decode(&v), Err(OpenError::UnsupportedVersion(3)));
        let mut v = OPEN;
        v[4] = 2;
        assert_eq!(Open::decode(&v), Err(OpenError::UnacceptableHoldTime(2)));
        let mut v = OPEN;
        v[5..9].copy_from_slice(&[0; 4]);
        assert_eq!(Open::decode(&v), Err(OpenError::BadBgpIdentifier));
        let mut v = OPEN;
        v[10] = 0x01; // Authentication (deprecated)
        assert_eq!(
            Open::decode(&v),
            Err(OpenError::UnsupportedOptionalParameter(1))
        );
        let mut v = OPEN;
        v[9] = 27; // one more octet of parameters than the message has
        assert!(matches!(Open::decode(&v), Err(OpenError::Syntax(_))));
        let mut v = OPEN.to_vec();
        v.push(0);
        assert!(matches!(
            Open::decode(&v),
            Err(OpenError::Syntax(DecodeError::TrailingBytes { .. }))
        ));
        let mut v = OPEN;
        v[27] = 0x04; // BGPsec capability length 4
        assert!(matches!(
            Open::decode(&v),
            Err(OpenError::MalformedCapability { code: 7, .. }) | Err(OpenError::Syntax(_))
        ));
        assert_eq!(OpenError::UnacceptableHoldTime(1).notification().subcode, 6);
    }
}
