//! UPDATE message (RFC 4271 §4.3), with the error handling of RFC 7606 and the
//! BGPsec rules of RFC 8205 §3, §4.1 and §5.2.
//!
//! ```text
//! +-----------------------------------------------------+
//! |   Withdrawn Routes Length (2 octets)                |
//! +-----------------------------------------------------+
//! |   Withdrawn Routes (variable)                       |
//! +-----------------------------------------------------+
//! |   Total Path Attribute Length (2 octets)            |
//! +-----------------------------------------------------+
//! |   Path Attributes (variable)                        |
//! +-----------------------------------------------------+
//! |   Network Layer Reachability Information (variable) |
//! +-----------------------------------------------------+
//! ```
//!
//! Decoding reads the whole message and collects every error, so the verdict is the
//! strongest of them (RFC 7606 §3 h). Rules of the message as a whole:
//!
//! - an attribute that appears twice: MP_REACH_NLRI / MP_UNREACH_NLRI is a session
//!   reset, any other keeps its first copy (attribute discard, RFC 7606 §3 g);
//! - an attribute with the Optional bit clear whose type hopsig does not recognise
//!   ([`AttrType`]) is an "Unrecognized Well-known Attribute" (RFC 4271 §6.3, session
//!   reset); a recognized type with conflicting flags is malformed by its own rule
//!   (RFC 7606 §3 c);
//! - an UPDATE that announces routes (NLRI field or MP_REACH_NLRI) needs ORIGIN,
//!   AS_PATH or BGPsec_PATH, and NEXT_HOP when the NLRI field is used (RFC 4271 §5,
//!   RFC 4760 §3, RFC 7606 §3 d: treat-as-withdraw);
//! - a BGPsec_PATH excludes AS_PATH and requires exactly one prefix, in MP_REACH_NLRI
//!   (RFC 8205 §3, §4.1, §5.2 check 4: treat-as-withdraw);
//! - AS4_PATH and AS4_AGGREGATOR with [`AsWidth::Four`] are discarded (RFC 6793 §6).
//!
//! The Withdrawn Routes and NLRI fields carry IPv4 prefixes (RFC 4271); ADD-PATH path
//! identifiers (RFC 7911) are not supported.

use hopsig_primitives::codec::{self, Reader, Writer};

use super::attribute::AsPath;
use super::attribute::{
    AsWidth, AttributeValue, BgpsecPath, MpReachNlri, MpUnreachNlri, PathAttribute, RawAttribute,
};
use super::error::{Action, BgpsecNlriFault, EncodeError, UpdateError, UpdateErrorKind};
use super::iana::{Afi, AttrType, Origin};
use super::prefix::{encode_prefixes, read_prefixes, Prefix};

/// An UPDATE message body.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Update<'a> {
    /// The Withdrawn Routes field: IPv4 prefixes no longer reachable.
    pub withdrawn: Vec<Prefix>,
    /// The path attributes, in the order received.
    pub attributes: Vec<PathAttribute<'a>>,
    /// The NLRI field: IPv4 prefixes announced with these attributes.
    pub nlri: Vec<Prefix>,
}

impl<'a> Update<'a> {
    /// The first attribute of type `t`.
    pub fn attribute(&self, t: AttrType) -> Option<&PathAttribute<'a>> {
        self.attributes
            .iter()
            .find(|a| a.type_code() == u8::from(t))
    }

    /// ORIGIN, if present.
    pub fn origin(&self) -> Option<Origin> {
        self.attributes.iter().find_map(|a| match a.value() {
            AttributeValue::Origin(o) => Some(*o),
            _ => None,
        })
    }

    /// AS_PATH, if present.
    pub fn as_path(&self) -> Option<&AsPath> {
        self.attributes.iter().find_map(|a| match a.value() {
            AttributeValue::AsPath(p) => Some(p),
            _ => None,
        })
    }

    /// MP_REACH_NLRI of IPv4 or IPv6, if present.
    pub fn mp_reach(&self) -> Option<&MpReachNlri> {
        self.attributes.iter().find_map(|a| match a.value() {
            AttributeValue::MpReachNlri(m) => Some(m),
            _ => None,
        })
    }

    /// MP_UNREACH_NLRI of IPv4 or IPv6, if present.
    pub fn mp_unreach(&self) -> Option<&MpUnreachNlri> {
        self.attributes.iter().find_map(|a| match a.value() {
            AttributeValue::MpUnreachNlri(m) => Some(m),
            _ => None,
        })
    }

    /// BGPsec_PATH, if present: this is a BGPsec UPDATE.
    pub fn bgpsec_path(&self) -> Option<&BgpsecPath<'a>> {
        self.attributes.iter().find_map(|a| match a.value() {
            AttributeValue::BgpsecPath(p) => Some(p),
            _ => None,
        })
    }

    /// Every prefix announced: the NLRI field, then MP_REACH_NLRI's.
    pub fn announced(&self) -> impl Iterator<Item = Prefix> + '_ {
        self.nlri
            .iter()
            .chain(self.mp_reach().map_or(&[][..], |m| m.nlri()))
            .copied()
    }

    /// Every prefix withdrawn: the Withdrawn Routes field, then MP_UNREACH_NLRI's.
    pub fn withdrawn_all(&self) -> impl Iterator<Item = Prefix> + '_ {
        self.withdrawn
            .iter()
            .chain(self.mp_unreach().map_or(&[][..], |m| m.withdrawn()))
            .copied()
    }

    /// Decodes an UPDATE body (the octets after the message header) whose AS_PATH
    /// carries AS numbers `width` wide.
    ///
    /// # Errors
    /// [`UpdateError`]: the first error of the strongest [`Action`] among all found,
    /// with the NOTIFICATION to send for a session reset and, otherwise, the salvaged
    /// UPDATE to withdraw or to process.
    pub fn decode(body: &'a [u8], width: AsWidth) -> Result<Update<'a>, UpdateError> {
        let reset = |kind| UpdateError {
            action: Action::SessionReset,
            kind,
            salvage: None,
        };
        let mut r = Reader::new(body);
        let withdrawn = r
            .u16_prefixed("Withdrawn Routes")
            .map_err(|e| reset(UpdateErrorKind::FieldLengths(e)))?;
        let attributes = r
            .u16_prefixed("Path Attributes")
            .map_err(|e| reset(UpdateErrorKind::FieldLengths(e)))?;
        let nlri = r
            .take(r.remaining(), "NLRI")
            .map_err(|e| reset(UpdateErrorKind::FieldLengths(e)))?;
        let withdrawn = read_prefixes(withdrawn, Afi::Ipv4)
            .map_err(|e| reset(UpdateErrorKind::WithdrawnRoutes(e)))?;
        let nlri = read_prefixes(nlri, Afi::Ipv4).map_err(|e| reset(UpdateErrorKind::Nlri(e)))?;

        let mut errors = Vec::new();
        let mut update = Update {
            withdrawn,
            attributes: Vec::new(),
            nlri,
        };
        let mut seen = [false; 256];
        // Attributes other than MP_UNREACH_NLRI, for RFC 7606 §5.2.
        let mut other_than_unreach = false;
        let mut a = Reader::new(attributes);
        while a.remaining() > 0 {
            let raw = match RawAttribute::read(&mut a) {
                Ok(raw) => raw,
                Err(e) => {
                    errors.push(UpdateErrorKind::AttributeList(e));
                    other_than_unreach = true;
                    break;
                }
            };
            let code = raw.type_code;
            other_than_unreach |= code != u8::from(AttrType::MpUnreachNlri);
            if let Some(kind) = repeat_or_unrecognized(&mut seen, raw.flags, code, raw.bytes) {
                errors.push(kind);
                continue;
            }
            match PathAttribute::from_raw(raw, width) {
                Ok(attr) => update.attributes.push(attr),
                Err(e) => errors.push(UpdateErrorKind::Attribute(e)),
            }
        }
        errors.extend(message_rules(&update, width));

        let Some(strongest) = errors.iter().map(UpdateErrorKind::action).max() else {
            return Ok(update);
        };
        let mut action = strongest;
        if action == Action::TreatAsWithdraw
            && update.announced().next().is_none()
            && other_than_unreach
        {
            // RFC 7606 §5.2: no reachable NLRI found, so it cannot be sure the NLRI
            // was parsed.
            action = Action::SessionReset;
        }
        let position = errors
            .iter()
            .position(|e| e.action() == strongest)
            .unwrap_or(0);
        let kind = errors.swap_remove(position);
        let salvage = (action != Action::SessionReset).then(|| {
            for e in errors.iter().chain([&kind]) {
                if let UpdateErrorKind::As4AttributeBetweenNewSpeakers(t) = e {
                    update.attributes.retain(|a| a.type_code() != u8::from(*t));
                }
            }
            Box::new(update.into_owned())
        });
        Err(UpdateError {
            action,
            kind,
            salvage,
        })
    }

    /// Appends the body, AS numbers of AS_PATH `width` wide.
    ///
    /// # Errors
    /// [`EncodeError::Update`] for an UPDATE that breaks a rule the decoder enforces
    /// (a repeated attribute, a missing mandatory one, a BGPsec_PATH beside AS_PATH, an
    /// IPv6 prefix in the IPv4 fields, …) — its encoding would not decode to it;
    /// [`EncodeError::Field`] for a length that does not fit.
    pub fn encode(&self, w: &mut Writer, width: AsWidth) -> Result<(), EncodeError> {
        for (field, prefixes) in [("Withdrawn Routes", &self.withdrawn), ("NLRI", &self.nlri)] {
            if prefixes.iter().any(|p| p.afi() != Afi::Ipv4) {
                return Err(codec::EncodeError::Unrepresentable {
                    field,
                    reason: "carries IPv4 prefixes only (RFC 4271 §4.3); use MP_REACH_NLRI / MP_UNREACH_NLRI",
                }
                .into());
            }
        }
        let mut seen = [false; 256];
        for a in &self.attributes {
            if let Some(kind) = repeat_or_unrecognized(&mut seen, a.flags(), a.type_code(), &[]) {
                return Err(kind.into());
            }
            a.check_kept(width).map_err(UpdateErrorKind::Attribute)?;
        }
        if let Some(kind) = message_rules(self, width).into_iter().next() {
            return Err(kind.into());
        }
        let mut withdrawn = Writer::new();
        encode_prefixes(&self.withdrawn, &mut withdrawn);
        w.u16_prefixed("Withdrawn Routes", &withdrawn.into_bytes())?;
        let mut attributes = Writer::new();
        for a in &self.attributes {
            a.encode(&mut attributes, width)?;
        }
        w.u16_prefixed("Path Attributes", &attributes.into_bytes())?;
        encode_prefixes(&self.nlri, w);
        Ok(())
    }

    /// The same UPDATE owning its octets.
    pub fn into_owned(self) -> Update<'static> {
        Update {
            withdrawn: self.withdrawn,
            attributes: self
                .attributes
                .into_iter()
                .map(PathAttribute::into_owned)
                .collect(),
            nlri: self.nlri,
        }
    }
}

/// RFC 7606 §3 g (a repeated attribute) and RFC 4271 §6.3 (an unrecognized
/// well-known attribute), for an attribute of type `code` seen after those in `seen`.
fn repeat_or_unrecognized(
    seen: &mut [bool; 256],
    flags: super::attribute::AttrFlags,
    code: u8,
    bytes: &[u8],
) -> Option<UpdateErrorKind> {
    let first = !std::mem::replace(&mut seen[usize::from(code)], true);
    if !first {
        let mp = [AttrType::MpReachNlri, AttrType::MpUnreachNlri].map(u8::from);
        return Some(if mp.contains(&code) {
            UpdateErrorKind::DuplicateMpAttribute(code)
        } else {
            UpdateErrorKind::DuplicateAttribute(code)
        });
    }
    // Only a type the receiver does not recognise: a recognized optional attribute
    // with the Optional bit clear is a flags error of that type (RFC 7606 §3 c),
    // handled by its own rule in `PathAttribute::from_raw`.
    if !flags.optional() && AttrType::try_from(code).is_err() {
        return Some(UpdateErrorKind::UnrecognizedWellKnown {
            type_code: code,
            attribute: bytes.to_vec(),
        });
    }
    None
}

/// The rules of the message as a whole, over its well-formed attributes.
fn message_rules(u: &Update<'_>, width: AsWidth) -> Vec<UpdateErrorKind> {
    let mut errors = Vec::new();
    let has = |t: AttrType| u.attribute(t).is_some();
    let announces = !u.nlri.is_empty() || has(AttrType::MpReachNlri);
    if announces {
        if !has(AttrType::Origin) {
            errors.push(UpdateErrorKind::Missing(AttrType::Origin));
        }
        if !has(AttrType::AsPath) && !has(AttrType::BgpsecPath) {
            errors.push(UpdateErrorKind::Missing(AttrType::AsPath));
        }
        if !u.nlri.is_empty() && !has(AttrType::NextHop) {
            errors.push(UpdateErrorKind::Missing(AttrType::NextHop));
        }
    }
    if has(AttrType::BgpsecPath) {
        if has(AttrType::AsPath) {
            errors.push(UpdateErrorKind::AsPathWithBgpsecPath);
        }
        let fault = if !u.nlri.is_empty() {
            Some(BgpsecNlriFault::NlriField)
        } else {
            match u.mp_reach() {
                None => Some(BgpsecNlriFault::NoMpReach),
                Some(m) if m.nlri().len() != 1 => {
                    Some(BgpsecNlriFault::PrefixCount(m.nlri().len()))
                }
                Some(_) => None,
            }
        };
        if let Some(f) = fault {
            errors.push(UpdateErrorKind::BgpsecNlri(f));
        }
    }
    if width == AsWidth::Four {
        for t in [AttrType::As4Path, AttrType::As4Aggregator] {
            if has(t) {
                errors.push(UpdateErrorKind::As4AttributeBetweenNewSpeakers(t));
            }
        }
    }
    errors
}
