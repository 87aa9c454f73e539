//! Path attributes (RFC 4271 §4.3): the attribute header, and the values hopsig
//! decodes — ORIGIN, AS_PATH, NEXT_HOP, MP_REACH_NLRI, MP_UNREACH_NLRI, AS4_PATH,
//! BGPsec_PATH — one file each. Every other attribute is kept byte for byte with its
//! flags.
//!
//! ```text
//!  0                   1
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |  Attr. Flags  |Attr. Type Code|
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! | Attr. Length (1 octet, or 2 with the Extended Length flag) | value
//!
//! Flags: bit 0 Optional, 1 Transitive, 2 Partial, 3 Extended Length, 4-7 unused
//! ```
//!
//! **Canonical form.** The flags octet is kept whole as received — the Partial bit, the
//! unused low bits ("MUST be zero when sent and MUST be ignored when received") and the
//! Extended Length bit. An attribute shorter than 256 octets may carry the Extended
//! Length bit (RFC 4271 §4.3 allows it and RFC 8608's example BGPsec_PATH of 205
//! octets does), so it is accepted and re-encoded with a two-octet length; one of 256
//! octets or more must carry it. Each value thus has exactly one encoding, and
//! re-encoding a decoded attribute gives back its octets.
//!
//! **Flags checked.** Only the Optional and Transitive bits, which must match the type
//! (RFC 7606 §3 c), for every type [`AttrType`] names but LOCAL_PREF; the Partial bit
//! is not checked (RFC 7606 replaced the RFC 4271 rule; docs/spec/bgpsec.md, C12). A
//! conflict is an error of that type, with its action — also when the Optional bit of
//! an optional type is clear, which is not an "Unrecognized Well-known Attribute".
//!
//! **Kept, but checked.** Attributes whose malformations RFC 7606 §7 (and RFC 6793 §6,
//! RFC 8092 §5) define by length alone are kept as received after that check:
//! MULTI_EXIT_DISC 4 octets, ATOMIC_AGGREGATE 0, AGGREGATOR 6 or 8 (AS width),
//! AS4_AGGREGATOR 8, COMMUNITIES a non-zero multiple of 4, EXTENDED COMMUNITIES of 8,
//! IPv6 Address Specific Extended Community of 20, LARGE_COMMUNITY of 12. LOCAL_PREF,
//! ORIGINATOR_ID and CLUSTER_LIST are not checked at all, flags nor length: their rule
//! depends on whether the peer is internal (RFC 7606 §7.5, §7.9, §7.10; from an
//! external peer they are discarded whatever they hold), which the speaker knows.

mod as_path;
pub mod bgpsec;
mod mp_reach;
mod mp_unreach;
pub mod next_hop;
mod origin;

use std::borrow::Cow;
use std::net::Ipv4Addr;

use hopsig_primitives::codec::{self, Codec, DecodeError, Reader, Writer};

pub use as_path::{AsPath, AsPathSegment, AsWidth};
pub use bgpsec::BgpsecPath;
pub use mp_reach::{MpReachNlri, NextHop};
pub use mp_unreach::MpUnreachNlri;
pub use origin::Origin;

use super::error::{AttributeError, AttributeFault, EncodeError};
use super::iana::{AttrType, Safi};

/// The Attribute Flags octet, kept whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AttrFlags(pub u8);

impl AttrFlags {
    /// Optional (1) or well-known (0).
    pub const OPTIONAL: u8 = 0x80;
    /// Transitive (1) or non-transitive (0).
    pub const TRANSITIVE: u8 = 0x40;
    /// Partial: an optional transitive attribute some speaker did not recognise.
    pub const PARTIAL: u8 = 0x20;
    /// Extended Length: the length field is two octets.
    pub const EXTENDED_LENGTH: u8 = 0x10;

    /// The Optional bit.
    pub fn optional(self) -> bool {
        self.0 & Self::OPTIONAL != 0
    }
    /// The Transitive bit.
    pub fn transitive(self) -> bool {
        self.0 & Self::TRANSITIVE != 0
    }
    /// The Partial bit.
    pub fn partial(self) -> bool {
        self.0 & Self::PARTIAL != 0
    }
    /// The Extended Length bit.
    pub fn extended_length(self) -> bool {
        self.0 & Self::EXTENDED_LENGTH != 0
    }

    /// The Optional and Transitive bits a type must carry (RFC 4271 §5, RFC 4760
    /// §3–4, RFC 6793 §3, RFC 8205 §3, RFC 1997, RFC 4360 §2, RFC 5701 §2, RFC 8092
    /// §3): every [`AttrType`] but LOCAL_PREF, whose rules depend on whether the peer
    /// is internal (RFC 7606 §7.5) and are the speaker's.
    fn expected(t: AttrType) -> Option<u8> {
        Some(match t {
            AttrType::Origin | AttrType::AsPath | AttrType::NextHop => Self::TRANSITIVE,
            AttrType::MpReachNlri | AttrType::MpUnreachNlri | AttrType::BgpsecPath => {
                Self::OPTIONAL
            }
            AttrType::As4Path
            | AttrType::Aggregator
            | AttrType::As4Aggregator
            | AttrType::Communities
            | AttrType::ExtendedCommunities
            | AttrType::Ipv6ExtendedCommunities
            | AttrType::LargeCommunity => Self::OPTIONAL | Self::TRANSITIVE,
            AttrType::AtomicAggregate => Self::TRANSITIVE,
            AttrType::MultiExitDisc => Self::OPTIONAL,
            AttrType::LocalPref => return None,
        })
    }
}

/// One attribute as the attribute list frames it, before its value is interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawAttribute<'a> {
    /// The flags octet.
    pub flags: AttrFlags,
    /// The type code.
    pub type_code: u8,
    /// The value.
    pub value: &'a [u8],
    /// The whole attribute: flags, type, length and value.
    pub bytes: &'a [u8],
}

impl<'a> RawAttribute<'a> {
    /// Reads the header and value of one attribute.
    ///
    /// # Errors
    /// [`DecodeError::ShortInput`] when the header or the value runs past the input
    /// (RFC 7606 §4).
    pub fn read(r: &mut Reader<'a>) -> Result<RawAttribute<'a>, DecodeError> {
        let start = r.clone();
        let flags = AttrFlags(r.u8("attribute flags")?);
        let type_code = r.u8("attribute type")?;
        let value = if flags.extended_length() {
            r.u16_prefixed("attribute value")?
        } else {
            r.u8_prefixed("attribute value")?
        };
        let mut whole = start;
        let bytes = whole.take(whole.remaining() - r.remaining(), "attribute")?;
        Ok(RawAttribute {
            flags,
            type_code,
            value,
            bytes,
        })
    }
}

/// The value of a path attribute.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AttributeValue<'a> {
    /// ORIGIN.
    Origin(Origin),
    /// AS_PATH.
    AsPath(AsPath),
    /// NEXT_HOP.
    NextHop(Ipv4Addr),
    /// MP_REACH_NLRI of IPv4 or IPv6 unicast or multicast.
    MpReachNlri(MpReachNlri),
    /// MP_UNREACH_NLRI of IPv4 or IPv6 unicast or multicast.
    MpUnreachNlri(MpUnreachNlri),
    /// AS4_PATH.
    As4Path(AsPath),
    /// BGPsec_PATH.
    BgpsecPath(BgpsecPath<'a>),
    /// Any other attribute, and MP_REACH_NLRI / MP_UNREACH_NLRI of other families,
    /// kept as received.
    Other {
        /// The type code.
        type_code: u8,
        /// The value octets.
        value: Cow<'a, [u8]>,
    },
}

impl AttributeValue<'_> {
    /// The type code.
    pub fn type_code(&self) -> u8 {
        let t = match self {
            AttributeValue::Origin(_) => AttrType::Origin,
            AttributeValue::AsPath(_) => AttrType::AsPath,
            AttributeValue::NextHop(_) => AttrType::NextHop,
            AttributeValue::MpReachNlri(_) => AttrType::MpReachNlri,
            AttributeValue::MpUnreachNlri(_) => AttrType::MpUnreachNlri,
            AttributeValue::As4Path(_) => AttrType::As4Path,
            AttributeValue::BgpsecPath(_) => AttrType::BgpsecPath,
            AttributeValue::Other { type_code, .. } => return *type_code,
        };
        u8::from(t)
    }

    fn encode(&self, w: &mut Writer, width: AsWidth) -> Result<(), codec::EncodeError> {
        match self {
            AttributeValue::Origin(o) => codec::to_vec(o).iter().for_each(|&b| w.u8(b)),
            AttributeValue::AsPath(p) => p.encode(w, width)?,
            AttributeValue::NextHop(a) => next_hop::encode(*a, w),
            AttributeValue::MpReachNlri(m) => m.encode(w),
            AttributeValue::MpUnreachNlri(m) => m.encode(w),
            AttributeValue::As4Path(p) => p.encode_as4(w)?,
            AttributeValue::BgpsecPath(p) => p.encode(w)?,
            AttributeValue::Other { value, .. } => w.bytes(value),
        }
        Ok(())
    }
}

/// A path attribute: flags and value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PathAttribute<'a> {
    flags: AttrFlags,
    value: AttributeValue<'a>,
}

/// Whether an attribute is kept byte for byte rather than decoded: every type hopsig
/// does not decode, and MP_REACH_NLRI (at least 5 octets) / MP_UNREACH_NLRI (at least
/// 3, RFC 7606 §5.3) of a family other than IPv4/IPv6 unicast/multicast. The decoder
/// and [`PathAttribute::with_flags`] both ask this, so a kept attribute re-decodes as
/// kept.
fn kept_as_received(type_code: u8, value: &[u8]) -> bool {
    match AttrType::try_from(type_code) {
        Ok(AttrType::MpReachNlri | AttrType::MpUnreachNlri) => {
            let min = if type_code == u8::from(AttrType::MpReachNlri) {
                5
            } else {
                3
            };
            let mut r = Reader::new(value);
            let family = (r.u16_be("AFI"), Safi::read(&mut r));
            value.len() >= min && !matches!(family, (Ok(1 | 2), Ok(_)))
        }
        Ok(
            AttrType::Origin
            | AttrType::AsPath
            | AttrType::NextHop
            | AttrType::As4Path
            | AttrType::BgpsecPath,
        ) => false,
        _ => true,
    }
}

impl<'a> PathAttribute<'a> {
    /// A decoded-type attribute with its standard flags (Optional and Transitive per
    /// type, Extended Length exactly when the value is over 255 octets with AS numbers
    /// `width` wide).
    ///
    /// # Errors
    /// [`EncodeError::Field`] for an [`AttributeValue::Other`] (give its flags with
    /// [`PathAttribute::with_flags`]) or a value that does not encode.
    pub fn new(
        value: AttributeValue<'a>,
        width: AsWidth,
    ) -> Result<PathAttribute<'a>, EncodeError> {
        let t = AttrType::try_from(value.type_code()).ok();
        let Some(base) = t
            .and_then(AttrFlags::expected)
            .filter(|_| !matches!(value, AttributeValue::Other { .. }))
        else {
            return Err(codec::EncodeError::Unrepresentable {
                field: "attribute flags",
                reason: "an attribute kept as received needs its flags given",
            }
            .into());
        };
        let mut w = Writer::new();
        value.encode(&mut w, width)?;
        let ext = if w.len() > 255 {
            AttrFlags::EXTENDED_LENGTH
        } else {
            0
        };
        Ok(PathAttribute {
            flags: AttrFlags(base | ext),
            value,
        })
    }

    /// An attribute with the flags octet given.
    ///
    /// # Errors
    /// [`AttributeFault::Flags`] if the Optional / Transitive bits do not match the
    /// type; [`AttributeFault::Value`] for an [`AttributeValue::Other`] whose type code
    /// hopsig decodes (it would not re-decode as kept). The length rules of kept
    /// attributes, which may depend on the AS width, are checked by
    /// [`Update::encode`](crate::packet::Update::encode).
    pub fn with_flags(
        flags: AttrFlags,
        value: AttributeValue<'a>,
    ) -> Result<PathAttribute<'a>, AttributeFault> {
        if let AttributeValue::Other { type_code, value } = &value {
            if !kept_as_received(*type_code, value) {
                return Err(AttributeFault::Value(DecodeError::Invalid {
                    field: "attribute type",
                    reason: "hopsig decodes this type: give the decoded value",
                }));
            }
        }
        check_flags(flags, value.type_code())?;
        Ok(PathAttribute { flags, value })
    }

    /// The flags octet.
    pub fn flags(&self) -> AttrFlags {
        self.flags
    }

    /// The type code.
    pub fn type_code(&self) -> u8 {
        self.value.type_code()
    }

    /// The value.
    pub fn value(&self) -> &AttributeValue<'a> {
        &self.value
    }

    /// The value, consuming the attribute.
    pub fn into_value(self) -> AttributeValue<'a> {
        self.value
    }

    /// Interprets a framed attribute: the decoded types are parsed and their flags
    /// checked, the others kept as received.
    ///
    /// # Errors
    /// [`AttributeError`] naming the type and the fault, with the attribute's octets.
    pub fn from_raw(
        raw: RawAttribute<'a>,
        width: AsWidth,
    ) -> Result<PathAttribute<'a>, AttributeError> {
        let value = raw.value;
        let fail = |type_code: AttrType, fault: AttributeFault| AttributeError {
            type_code,
            fault,
            attribute: raw.bytes.to_vec(),
        };
        if kept_as_received(raw.type_code, value) {
            if let Ok(t) = AttrType::try_from(raw.type_code) {
                check_kept(raw.flags, t, value, width).map_err(|f| fail(t, f))?;
            }
            return Ok(PathAttribute {
                flags: raw.flags,
                value: AttributeValue::Other {
                    type_code: raw.type_code,
                    value: Cow::Borrowed(value),
                },
            });
        }
        // kept_as_received is false only for the decoded types.
        let t = AttrType::try_from(raw.type_code)
            .map_err(|e| fail(AttrType::Origin, AttributeFault::Value(e)))?;
        check_flags(raw.flags, raw.type_code).map_err(|f| fail(t, f))?;
        check_length(t, value.len(), width).map_err(|f| fail(t, f))?;
        let v = |e: DecodeError| fail(t, AttributeFault::Value(e));
        let value = match t {
            AttrType::Origin => AttributeValue::Origin(Origin::decode(value).map_err(v)?),
            AttrType::AsPath => AttributeValue::AsPath(AsPath::decode(value, width).map_err(v)?),
            AttrType::NextHop => AttributeValue::NextHop(next_hop::decode(value).map_err(v)?),
            AttrType::MpReachNlri => {
                AttributeValue::MpReachNlri(MpReachNlri::decode(value).map_err(v)?)
            }
            AttrType::MpUnreachNlri => {
                AttributeValue::MpUnreachNlri(MpUnreachNlri::decode(value).map_err(v)?)
            }
            AttrType::As4Path => AttributeValue::As4Path(AsPath::decode_as4(value).map_err(v)?),
            AttrType::BgpsecPath => AttributeValue::BgpsecPath(
                BgpsecPath::decode(value).map_err(|e| fail(t, AttributeFault::BgpsecPath(e)))?,
            ),
            _ => AttributeValue::Other {
                type_code: raw.type_code,
                value: Cow::Borrowed(value),
            },
        };
        Ok(PathAttribute {
            flags: raw.flags,
            value,
        })
    }

    /// Appends flags, type, length (one or two octets as the flags say) and value,
    /// AS numbers of AS_PATH `width` wide.
    ///
    /// # Errors
    /// A value that does not encode, or that is over 255 octets without the Extended
    /// Length flag (over 65535 with it).
    pub fn encode(&self, w: &mut Writer, width: AsWidth) -> Result<(), codec::EncodeError> {
        let mut v = Writer::new();
        self.value.encode(&mut v, width)?;
        let v = v.into_bytes();
        w.u8(self.flags.0);
        w.u8(self.type_code());
        if self.flags.extended_length() {
            w.u16_prefixed("attribute value", &v)
        } else {
            w.u8_prefixed("attribute value", &v)
        }
    }

    /// The attribute as a speaker passes it on with its route to an external peer
    /// (RFC 4271 §5): `None` for an optional non-transitive attribute ("not passed
    /// along", e.g. MULTI_EXIT_DISC, §5.1.4) and for LOCAL_PREF (§5.1.5: not sent to
    /// an external peer); an optional transitive attribute of a type hopsig does not
    /// recognise ([`AttrType`]) with the Partial bit set ("MUST be passed along …
    /// with the Partial bit in the Attribute Flags octet set to 1"); any other as it
    /// is.
    pub fn to_external_peer(&self) -> Option<PathAttribute<'a>> {
        let f = self.flags;
        if (f.optional() && !f.transitive()) || self.type_code() == u8::from(AttrType::LocalPref) {
            return None;
        }
        let mut a = self.clone();
        if f.optional() && AttrType::try_from(self.type_code()).is_err() {
            a.flags = AttrFlags(f.0 | AttrFlags::PARTIAL);
        }
        Some(a)
    }

    /// The flag and length checks of an attribute kept as received, as the decoder
    /// makes them (for the encoder, which must refuse what would not decode).
    pub(crate) fn check_kept(&self, width: AsWidth) -> Result<(), AttributeError> {
        if let AttributeValue::Other { type_code, value } = &self.value {
            if let Ok(t) = AttrType::try_from(*type_code) {
                check_kept(self.flags, t, value, width).map_err(|fault| AttributeError {
                    type_code: t,
                    fault,
                    attribute: vec![],
                })?;
            }
        }
        Ok(())
    }

    /// The same attribute owning its octets.
    pub fn into_owned(self) -> PathAttribute<'static> {
        let value = match self.value {
            AttributeValue::Origin(o) => AttributeValue::Origin(o),
            AttributeValue::AsPath(p) => AttributeValue::AsPath(p),
            AttributeValue::NextHop(a) => AttributeValue::NextHop(a),
            AttributeValue::MpReachNlri(m) => AttributeValue::MpReachNlri(m),
            AttributeValue::MpUnreachNlri(m) => AttributeValue::MpUnreachNlri(m),
            AttributeValue::As4Path(p) => AttributeValue::As4Path(p),
            AttributeValue::BgpsecPath(p) => AttributeValue::BgpsecPath(p.into_owned()),
            AttributeValue::Other { type_code, value } => AttributeValue::Other {
                type_code,
                value: Cow::Owned(value.into_owned()),
            },
        };
        PathAttribute {
            flags: self.flags,
            value,
        }
    }
}

/// The checks of an attribute kept as received: Optional and Transitive bits (RFC
/// 7606 §3 c) and its length rule.
fn check_kept(
    flags: AttrFlags,
    t: AttrType,
    value: &[u8],
    width: AsWidth,
) -> Result<(), AttributeFault> {
    check_flags(flags, u8::from(t))?;
    check_length(t, value.len(), width)
}

/// The length rules of the types whose length alone can be wrong, checked before the
/// value, so that a wrong length is an Attribute Length Error (RFC 4271 §6.3): RFC
/// 7606 §7.1, §7.3, §7.4, §7.6–7.8, §7.14, §7.15, RFC 6793 §6 and RFC 8092 §5.
fn check_length(t: AttrType, len: usize, width: AsWidth) -> Result<(), AttributeFault> {
    let multiple_of = |unit: usize| len > 0 && len.is_multiple_of(unit);
    let ok = match t {
        AttrType::Origin => len == 1,
        AttrType::NextHop | AttrType::MultiExitDisc => len == 4,
        AttrType::AtomicAggregate => len == 0,
        AttrType::Aggregator => len == width.octets() + 4,
        AttrType::As4Aggregator => len == 8,
        AttrType::Communities => multiple_of(4),
        AttrType::ExtendedCommunities => multiple_of(8),
        AttrType::Ipv6ExtendedCommunities => multiple_of(20),
        AttrType::LargeCommunity => multiple_of(12),
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(AttributeFault::Length(len))
    }
}

/// RFC 7606 §3 c: the Optional and Transitive bits of a type that has them fixed.
fn check_flags(flags: AttrFlags, type_code: u8) -> Result<(), AttributeFault> {
    let expected = AttrType::try_from(type_code)
        .ok()
        .and_then(AttrFlags::expected);
    match expected {
        Some(e) if flags.0 & (AttrFlags::OPTIONAL | AttrFlags::TRANSITIVE) != e => {
            Err(AttributeFault::Flags(flags.0))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::packet::iana::Afi;

    fn raw(bytes: &[u8]) -> RawAttribute<'_> {
        let mut r = Reader::new(bytes);
        let a = RawAttribute::read(&mut r).unwrap();
        r.finish("attribute").unwrap();
        a
    }

    fn round_trip(bytes: &[u8], width: AsWidth) -> PathAttribute<'_> {
        let a = PathAttribute::from_raw(raw(bytes), width).unwrap();
        let mut w = Writer::new();
        a.encode(&mut w, width).unwrap();
        assert_eq!(w.into_bytes(), bytes);
        a
    }

    #[test]
    fn attributes_on_commented_bytes() {
        #[rustfmt::skip]
        let origin = [
            0x40,       // flags: well-known, transitive
            0x01,       // ORIGIN
            0x01,       // length 1
            0x02,       // INCOMPLETE
        ];
        assert_eq!(
            round_trip(&origin, AsWidth::Four).value(),
            &AttributeValue::Origin(Origin::Incomplete)
        );
        #[rustfmt::skip]
        let med = [
            0x80,                   // flags: optional, non-transitive
            0x04,                   // MULTI_EXIT_DISC (kept as received)
            0x04,                   // length 4
            0x00, 0x00, 0x00, 0x00, // 0
        ];
        let a = round_trip(&med, AsWidth::Four);
        assert!(
            matches!(a.value(), AttributeValue::Other { type_code: 4, value } if value[..] == [0; 4])
        );
        #[rustfmt::skip]
        let as_path_extended = [
            0x50,                   // flags: well-known, transitive, Extended Length
            0x02,                   // AS_PATH
            0x00, 0x04,             // length 4, in two octets although it fits one
            0x02, 0x01, 0xfd, 0xe9, // AS_SEQUENCE of AS 65001 (2-octet)
        ];
        let a = round_trip(&as_path_extended, AsWidth::Two);
        assert!(a.flags().extended_length());
        assert_eq!(
            a.value(),
            &AttributeValue::AsPath(AsPath::sequence(vec![65_001]))
        );
        #[rustfmt::skip]
        let unknown_partial = [
            0xe0,                   // flags: optional, transitive, partial
            0xfe,                   // type 254, unassigned
            0x02,                   // length 2
            0xca, 0xfe,             // value, kept
        ];
        let a = round_trip(&unknown_partial, AsWidth::Four);
        assert!(a.flags().partial());
        #[rustfmt::skip]
        let mp_reach_vpn = [
            0x90,                   // flags: optional, Extended Length
            0x0e,                   // MP_REACH_NLRI
            0x00, 0x05,             // length 5
            0x00, 0x01, 0x80,       // AFI IPv4, SAFI 128 (MPLS VPN): not decoded
            0x00, 0x00,             // next hop length 0, reserved
        ];
        let a = round_trip(&mp_reach_vpn, AsWidth::Four);
        assert!(matches!(
            a.value(),
            AttributeValue::Other { type_code: 14, .. }
        ));
    }

    #[test]
    fn flags_of_decoded_types_are_checked_optional_and_transitive_only() {
        // ORIGIN marked optional: RFC 7606 §3 c.
        let e = PathAttribute::from_raw(raw(&[0xc0, 0x01, 0x01, 0x00]), AsWidth::Four).unwrap_err();
        assert_eq!(e.type_code, AttrType::Origin);
        assert_eq!(e.fault, AttributeFault::Flags(0xc0));
        assert_eq!(e.attribute, [0xc0, 0x01, 0x01, 0x00]);
        // Partial and the unused low bits are not checked, and are kept.
        round_trip(&[0x6f, 0x01, 0x01, 0x00], AsWidth::Four);
        // A wrong length is a length fault, checked before the value.
        let e =
            PathAttribute::from_raw(raw(&[0x40, 0x03, 0x03, 1, 2, 3]), AsWidth::Four).unwrap_err();
        assert_eq!(e.fault, AttributeFault::Length(3));
        // A value error names the field.
        let e = PathAttribute::from_raw(raw(&[0x40, 0x01, 0x01, 0x03]), AsWidth::Four).unwrap_err();
        assert_eq!(
            e.fault,
            AttributeFault::Value(DecodeError::UnknownCode {
                field: "ORIGIN",
                value: 3
            })
        );
    }

    #[test]
    fn kept_attributes_are_length_checked_with_the_rfc_7606_action() {
        use crate::packet::error::Action;
        let cases: [(&[u8], AsWidth, AttrType, Action); 6] = [
            // MULTI_EXIT_DISC of 3 octets (RFC 7606 §7.4).
            (
                &[0x80, 0x04, 0x03, 0, 0, 0],
                AsWidth::Four,
                AttrType::MultiExitDisc,
                Action::TreatAsWithdraw,
            ),
            // COMMUNITIES of 3 octets (§7.8).
            (
                &[0xc0, 0x08, 0x03, 0, 0, 0],
                AsWidth::Four,
                AttrType::Communities,
                Action::TreatAsWithdraw,
            ),
            // AGGREGATOR of 8 octets on a 2-octet session (§7.7).
            (
                &[0xc0, 0x07, 0x08, 0, 0, 0, 1, 10, 0, 0, 1],
                AsWidth::Two,
                AttrType::Aggregator,
                Action::AttributeDiscard,
            ),
            // ATOMIC_AGGREGATE with a value (§7.6).
            (
                &[0x40, 0x06, 0x01, 0],
                AsWidth::Four,
                AttrType::AtomicAggregate,
                Action::AttributeDiscard,
            ),
            // LARGE_COMMUNITY of 8 octets (RFC 8092 §5).
            (
                &[0xc0, 0x20, 0x08, 0, 0, 0, 1, 0, 0, 0, 2],
                AsWidth::Four,
                AttrType::LargeCommunity,
                Action::TreatAsWithdraw,
            ),
            // MULTI_EXIT_DISC marked transitive (§3 c).
            (
                &[0xc0, 0x04, 0x04, 0, 0, 0, 0],
                AsWidth::Four,
                AttrType::MultiExitDisc,
                Action::TreatAsWithdraw,
            ),
        ];
        for (bytes, width, t, action) in cases {
            let e = PathAttribute::from_raw(raw(bytes), width).unwrap_err();
            assert_eq!((e.type_code, e.action()), (t, action), "{bytes:02x?}");
            assert_eq!(e.attribute, bytes);
        }
        // The same AGGREGATOR is right on a 4-octet session and kept as received.
        round_trip(&[0xc0, 0x07, 0x08, 0, 0, 0, 1, 10, 0, 0, 1], AsWidth::Four);
        // LOCAL_PREF's length is not checked (it depends on iBGP or eBGP).
        round_trip(&[0x40, 0x05, 0x02, 0, 0], AsWidth::Four);
    }

    #[test]
    fn constructors_keep_the_canonical_form() {
        let a = PathAttribute::new(AttributeValue::Origin(Origin::Igp), AsWidth::Four).unwrap();
        assert_eq!(a.flags(), AttrFlags(0x40));
        let long = AsPath::sequence(vec![1; 100]); // 402 octets
        let a = PathAttribute::new(AttributeValue::AsPath(long.clone()), AsWidth::Four).unwrap();
        assert!(a.flags().extended_length());
        // The same value without Extended Length does not encode.
        let short =
            PathAttribute::with_flags(AttrFlags(0x40), AttributeValue::AsPath(long)).unwrap();
        assert!(short.encode(&mut Writer::new(), AsWidth::Four).is_err());
        // Flags that conflict with a decoded type, and a decoded type kept raw, are refused.
        assert!(
            PathAttribute::with_flags(AttrFlags(0x80), AttributeValue::Origin(Origin::Igp))
                .is_err()
        );
        let fake = AttributeValue::Other {
            type_code: 1,
            value: Cow::Borrowed(&[0][..]),
        };
        assert!(PathAttribute::with_flags(AttrFlags(0x40), fake.clone()).is_err());
        assert!(PathAttribute::new(fake, AsWidth::Four).is_err());
        // An AS4_PATH of no AS does not decode (RFC 6793 §6), so it does not encode.
        let empty = AttributeValue::As4Path(AsPath::default());
        assert!(PathAttribute::new(empty.clone(), AsWidth::Two).is_err());
        let a = PathAttribute::with_flags(AttrFlags(0xc0), empty).unwrap();
        assert!(a.encode(&mut Writer::new(), AsWidth::Two).is_err());
        let unreach = MpUnreachNlri::new(Afi::Ipv6, Safi::Unicast, vec![]).unwrap();
        let a = PathAttribute::new(AttributeValue::MpUnreachNlri(unreach), AsWidth::Four).unwrap();
        assert_eq!(a.flags(), AttrFlags(0x80));
    }
}
