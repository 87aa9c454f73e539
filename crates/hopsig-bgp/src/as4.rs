//! AS path information between a NEW speaker (4-octet AS numbers) and an OLD one
//! (2-octet), RFC 6793 §4.2.
//!
//! * Sending to an OLD speaker (§4.2.2): [`path_attributes`] writes AS_PATH with
//!   [`AS_TRANS`] in place of every AS number above 65535, and the real path in
//!   AS4_PATH (without confederation segments) when it holds such a number; an
//!   aggregating AS above 65535 goes in AS4_AGGREGATOR, AGGREGATOR carrying
//!   AS_TRANS.
//! * Receiving from an OLD speaker (§4.2.3): [`received`] takes the aggregator from
//!   AGGREGATOR or AS4_AGGREGATOR and rebuilds the path from AS_PATH and AS4_PATH
//!   ([`merge`]), which is then what loop detection and route selection use.
//!
//! Between NEW speakers AS_PATH carries 4-octet numbers and AS4_PATH /
//! AS4_AGGREGATOR do not appear (§6: the codec discards them, see
//! [`crate::packet::Update::decode`]).

use std::borrow::Cow;
use std::net::Ipv4Addr;

use crate::packet::{
    AsPath, AsPathSegment, AsPathSegmentType, AsWidth, AttrFlags, AttrType, AttributeError,
    AttributeValue, EncodeError, PathAttribute, Update, UpdateErrorKind,
};

/// AS_TRANS (RFC 6793 §9) as a 4-octet number.
pub const AS_TRANS: u32 = crate::packet::AS_TRANS as u32;

/// Most AS numbers one AS_PATH segment holds (RFC 4271 §4.3).
const MAX_SEGMENT_ASNS: usize = 255;

/// The aggregating node of AGGREGATOR (RFC 4271 §5.1.7) or AS4_AGGREGATOR (RFC 6793
/// §3): its AS and its BGP Identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Aggregator {
    /// The AS that formed the aggregate.
    pub asn: u32,
    /// The IP address of the BGP speaker that formed it.
    pub address: Ipv4Addr,
}

impl Aggregator {
    /// Reads an AGGREGATOR value whose AS is `width` wide (AS4_AGGREGATOR:
    /// [`AsWidth::Four`]); `None` for a value of another length (the codec has
    /// already refused those, RFC 7606 §7.7, RFC 6793 §6).
    pub fn decode(value: &[u8], width: AsWidth) -> Option<Aggregator> {
        let (asn, address): (u32, &[u8]) = match (width, value) {
            (AsWidth::Two, [a, b, rest @ ..]) => (u32::from(u16::from_be_bytes([*a, *b])), rest),
            (AsWidth::Four, [a, b, c, d, rest @ ..]) => {
                (u32::from_be_bytes([*a, *b, *c, *d]), rest)
            }
            _ => return None,
        };
        let address: [u8; 4] = address.try_into().ok()?;
        Some(Aggregator {
            asn,
            address: Ipv4Addr::from(address),
        })
    }

    /// The value with the AS `width` wide ([`AS_TRANS`] for one that does not fit two
    /// octets).
    fn encode(&self, width: AsWidth) -> Vec<u8> {
        let mut v = match width {
            AsWidth::Two => u16::try_from(self.asn)
                .unwrap_or(crate::packet::AS_TRANS)
                .to_be_bytes()
                .to_vec(),
            AsWidth::Four => self.asn.to_be_bytes().to_vec(),
        };
        v.extend(self.address.octets());
        v
    }
}

/// The value of the first attribute of type `t` kept as received.
fn kept<'u>(update: &'u Update<'_>, t: AttrType) -> Option<&'u [u8]> {
    update.attributes.iter().find_map(|a| match a.value() {
        AttributeValue::Other { type_code, value } if *type_code == u8::from(t) => Some(&value[..]),
        _ => None,
    })
}

/// The AS path information and the aggregator of an UPDATE received over a session
/// whose AS numbers are `width` wide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    /// The AS path: AS_PATH, or from an OLD speaker AS_PATH merged with AS4_PATH.
    pub as_path: AsPath,
    /// The aggregating node, if the UPDATE names one.
    pub aggregator: Option<Aggregator>,
}

/// The path information of `update`, received with AS numbers `width` wide. From a
/// NEW speaker ([`AsWidth::Four`]): AS_PATH and AGGREGATOR as they are. From an OLD
/// one (RFC 6793 §4.2.3): when AGGREGATOR and AS4_AGGREGATOR both came and
/// AGGREGATOR's AS is not AS_TRANS, AS4_AGGREGATOR and AS4_PATH are ignored;
/// otherwise AS4_AGGREGATOR (if any) names the aggregator and the path is AS_PATH
/// merged with AS4_PATH ([`merge`]).
pub fn received(update: &Update<'_>, width: AsWidth) -> Received {
    let as_path = update.as_path().cloned().unwrap_or_default();
    let aggregator = kept(update, AttrType::Aggregator).and_then(|v| Aggregator::decode(v, width));
    if width == AsWidth::Four {
        return Received {
            as_path,
            aggregator,
        };
    }
    let as4_aggregator =
        kept(update, AttrType::As4Aggregator).and_then(|v| Aggregator::decode(v, AsWidth::Four));
    if let (Some(a), Some(_)) = (aggregator, as4_aggregator) {
        if a.asn != AS_TRANS {
            return Received {
                as_path,
                aggregator,
            };
        }
    }
    let as4_path = update.attributes.iter().find_map(|a| match a.value() {
        AttributeValue::As4Path(p) => Some(p),
        _ => None,
    });
    Received {
        as_path: match as4_path {
            Some(p) => merge(&as_path, p),
            None => as_path,
        },
        aggregator: as4_aggregator.or(aggregator),
    }
}

fn is_confed(kind: AsPathSegmentType) -> bool {
    matches!(
        kind,
        AsPathSegmentType::AsConfedSequence | AsPathSegmentType::AsConfedSet
    )
}

/// The AS path information of an OLD speaker's `as_path` and `as4_path` (RFC 6793
/// §4.2.3). Confederation segments of AS4_PATH are dropped first (§6). Both are
/// counted as route selection counts (RFC 4271 §9.1.2.2: an AS_SET counts one;
/// RFC 5065: confederation segments none). If AS_PATH counts fewer, AS4_PATH is
/// ignored; otherwise the leading AS numbers and segments of AS_PATH, as many as it
/// counts more, are prepended to AS4_PATH — a confederation segment with them if it
/// leads AS_PATH or is adjacent to a segment taken.
pub fn merge(as_path: &AsPath, as4_path: &AsPath) -> AsPath {
    let as4: Vec<AsPathSegment> = as4_path
        .segments
        .iter()
        .filter(|s| !is_confed(s.kind))
        .cloned()
        .collect();
    let as4 = AsPath { segments: as4 };
    let (n, n4) = (as_path.path_length(), as4.path_length());
    if n < n4 {
        return as_path.clone();
    }
    let mut take = n - n4;
    let mut segments: Vec<AsPathSegment> = Vec::new();
    let mut previous_taken = false;
    for (i, s) in as_path.segments.iter().enumerate() {
        match s.kind {
            kind if is_confed(kind) => {
                if !(i == 0 || previous_taken || take > 0) {
                    break;
                }
                segments.push(s.clone());
            }
            _ if take == 0 => break,
            AsPathSegmentType::AsSet => {
                segments.push(s.clone());
                take -= 1;
            }
            _ => {
                let k = take.min(s.asns.len());
                segments.push(AsPathSegment {
                    kind: s.kind,
                    asns: s.asns[..k].to_vec(),
                });
                take -= k;
            }
        }
        previous_taken = true;
    }
    let mut rest = as4.segments.into_iter();
    if let Some(next) = rest.next() {
        // One AS_SEQUENCE where the leading part ends in one and AS4_PATH starts
        // with one, when they fit together.
        match segments.last_mut() {
            Some(last)
                if last.kind == AsPathSegmentType::AsSequence
                    && next.kind == AsPathSegmentType::AsSequence
                    && last.asns.len() + next.asns.len() <= MAX_SEGMENT_ASNS =>
            {
                last.asns.extend(next.asns);
            }
            _ => segments.push(next),
        }
    }
    segments.extend(rest);
    AsPath { segments }
}

/// AS_PATH (and AS4_PATH) for `path`, and AGGREGATOR (and AS4_AGGREGATOR) for
/// `aggregator`, as sent over a session whose AS numbers are `width` wide. To a NEW
/// speaker they are sent as they are. To an OLD one (RFC 6793 §4.2.2) AS_PATH carries
/// [`AS_TRANS`] for every AS number above 65535 and, if there is one, AS4_PATH the
/// path's 4-octet numbers without its confederation segments; AGGREGATOR carries
/// AS_TRANS and AS4_AGGREGATOR the real AS if it is above 65535.
///
/// # Errors
/// A segment of no AS or more than 255 ([`EncodeError::Field`]).
pub fn path_attributes(
    path: &AsPath,
    aggregator: Option<Aggregator>,
    width: AsWidth,
) -> Result<Vec<PathAttribute<'static>>, EncodeError> {
    let mappable = |asn: u32| u16::try_from(asn).is_ok();
    let mut out = Vec::new();
    let two = AsPath {
        segments: path
            .segments
            .iter()
            .map(|s| AsPathSegment {
                kind: s.kind,
                asns: s
                    .asns
                    .iter()
                    .map(|&a| if mappable(a) { a } else { AS_TRANS })
                    .collect(),
            })
            .collect(),
    };
    let as_path = if width == AsWidth::Two {
        two
    } else {
        path.clone()
    };
    out.push(PathAttribute::new(AttributeValue::AsPath(as_path), width)?);
    if width == AsWidth::Two
        && path
            .segments
            .iter()
            .any(|s| s.asns.iter().any(|&a| !mappable(a)))
    {
        let as4 = AsPath {
            segments: path
                .segments
                .iter()
                .filter(|s| !is_confed(s.kind))
                .cloned()
                .collect(),
        };
        if !as4.segments.is_empty() {
            out.push(PathAttribute::new(AttributeValue::As4Path(as4), width)?);
        }
    }
    if let Some(a) = aggregator {
        let optional_transitive = AttrFlags(AttrFlags::OPTIONAL | AttrFlags::TRANSITIVE);
        let attr = |t: AttrType, value: Vec<u8>| {
            PathAttribute::with_flags(
                optional_transitive,
                AttributeValue::Other {
                    type_code: u8::from(t),
                    value: Cow::Owned(value),
                },
            )
            .map_err(|fault| {
                EncodeError::from(UpdateErrorKind::Attribute(AttributeError {
                    type_code: t,
                    fault,
                    attribute: vec![],
                }))
            })
        };
        out.push(attr(AttrType::Aggregator, a.encode(width))?);
        if width == AsWidth::Two && !mappable(a.asn) {
            out.push(attr(AttrType::As4Aggregator, a.encode(AsWidth::Four))?);
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::packet::{Message, Origin};

    fn seg(kind: AsPathSegmentType, asns: &[u32]) -> AsPathSegment {
        AsPathSegment {
            kind,
            asns: asns.to_vec(),
        }
    }

    fn path(segments: &[AsPathSegment]) -> AsPath {
        AsPath {
            segments: segments.to_vec(),
        }
    }

    use AsPathSegmentType::{AsConfedSequence as Confed, AsSequence as Seq, AsSet as Set};

    #[test]
    fn merge_takes_the_leading_part_of_as_path_and_then_as4_path() {
        // AS_PATH 65001 AS_TRANS 65002, AS4_PATH 4200000001 65002: the OLD speaker
        // 65001 prepended itself after the NEW ones.
        let p = merge(
            &AsPath::sequence(vec![65_001, AS_TRANS, 65_002]),
            &AsPath::sequence(vec![4_200_000_001, 65_002]),
        );
        assert_eq!(p, AsPath::sequence(vec![65_001, 4_200_000_001, 65_002]));
        // As many as AS_PATH counts: AS4_PATH alone when they count the same.
        let p = merge(
            &AsPath::sequence(vec![AS_TRANS, 65_002]),
            &AsPath::sequence(vec![4_200_000_001, 65_002]),
        );
        assert_eq!(p, AsPath::sequence(vec![4_200_000_001, 65_002]));
        // AS4_PATH longer than AS_PATH: ignored.
        let short = AsPath::sequence(vec![65_001]);
        assert_eq!(merge(&short, &AsPath::sequence(vec![1, 2])), short);
        // A set counts one and is taken whole.
        let p = merge(
            &path(&[seg(Set, &[1, 2, 3]), seg(Seq, &[AS_TRANS])]),
            &AsPath::sequence(vec![4_200_000_009]),
        );
        assert_eq!(p, path(&[seg(Set, &[1, 2, 3]), seg(Seq, &[4_200_000_009])]));
    }

    #[test]
    fn merge_handles_confederation_segments_as_rfc_6793_says() {
        // Confederation segments in AS4_PATH are dropped (§6).
        let p = merge(
            &AsPath::sequence(vec![AS_TRANS]),
            &path(&[seg(Confed, &[64_512]), seg(Seq, &[4_200_000_001])]),
        );
        assert_eq!(p, AsPath::sequence(vec![4_200_000_001]));
        // A leading confederation segment of AS_PATH is kept, counting none.
        let p = merge(
            &path(&[seg(Confed, &[64_512, 64_513]), seg(Seq, &[AS_TRANS])]),
            &AsPath::sequence(vec![4_200_000_001]),
        );
        assert_eq!(
            p,
            path(&[seg(Confed, &[64_512, 64_513]), seg(Seq, &[4_200_000_001])])
        );
        // One adjacent to a taken segment is kept; one past them is not.
        let p = merge(
            &path(&[
                seg(Seq, &[65_001]),
                seg(Confed, &[64_512]),
                seg(Seq, &[AS_TRANS]),
            ]),
            &AsPath::sequence(vec![4_200_000_001]),
        );
        assert_eq!(
            p,
            path(&[
                seg(Seq, &[65_001]),
                seg(Confed, &[64_512]),
                seg(Seq, &[4_200_000_001])
            ])
        );
    }

    #[test]
    fn an_old_speaker_gets_as_trans_and_the_real_path_in_as4_path() {
        let wide = AsPath::sequence(vec![4_200_000_001, 65_002, 4_200_000_099]);
        let agg = Aggregator {
            asn: 4_200_000_099,
            address: Ipv4Addr::new(10, 0, 0, 9),
        };
        let a = path_attributes(&wide, Some(agg), AsWidth::Two).unwrap();
        let types: Vec<u8> = a.iter().map(PathAttribute::type_code).collect();
        assert_eq!(types, [2, 17, 7, 18]);
        assert_eq!(
            a[0].value(),
            &AttributeValue::AsPath(AsPath::sequence(vec![AS_TRANS, 65_002, AS_TRANS]))
        );
        assert_eq!(a[1].value(), &AttributeValue::As4Path(wide.clone()));
        // The UPDATE encodes on a 2-octet session and reads back the same.
        let mut attributes = vec![
            PathAttribute::new(AttributeValue::Origin(Origin::Igp), AsWidth::Two).unwrap(),
            PathAttribute::new(AttributeValue::NextHop(Ipv4Addr::LOCALHOST), AsWidth::Two).unwrap(),
        ];
        attributes.extend(a);
        let u = Update {
            attributes,
            nlri: vec![crate::packet::Prefix::new("10.0.0.0".parse().unwrap(), 8).unwrap()],
            ..Update::default()
        };
        let bytes = Message::Update(u).encoding(AsWidth::Two).unwrap();
        let Message::Update(back) = Message::decode(&bytes, AsWidth::Two).unwrap() else {
            panic!("not an UPDATE")
        };
        let r = received(&back, AsWidth::Two);
        assert_eq!(r.as_path, wide);
        assert_eq!(r.aggregator, Some(agg));
        // Only mappable numbers: no AS4_PATH, no AS4_AGGREGATOR.
        let small = AsPath::sequence(vec![65_001, 65_002]);
        let agg2 = Aggregator { asn: 65_002, ..agg };
        let a = path_attributes(&small, Some(agg2), AsWidth::Two).unwrap();
        let types: Vec<u8> = a.iter().map(PathAttribute::type_code).collect();
        assert_eq!(types, [2, 7]);
        // A NEW speaker gets the path and AGGREGATOR as they are.
        let a = path_attributes(&wide, Some(agg), AsWidth::Four).unwrap();
        assert_eq!(a[0].value(), &AttributeValue::AsPath(wide.clone()));
        assert!(
            matches!(a[1].value(), AttributeValue::Other { type_code: 7, value } if value.len() == 8)
        );
        // Confederation segments stay out of AS4_PATH.
        let confed = path(&[seg(Confed, &[4_200_000_001]), seg(Seq, &[4_200_000_002])]);
        let a = path_attributes(&confed, None, AsWidth::Two).unwrap();
        assert_eq!(
            a[1].value(),
            &AttributeValue::As4Path(AsPath::sequence(vec![4_200_000_002]))
        );
    }

    #[test]
    fn an_aggregator_other_than_as_trans_beside_as4_aggregator_voids_as4_path() {
        let old_aggregator = |asn: u16| {
            let mut v = asn.to_be_bytes().to_vec();
            v.extend([10, 0, 0, 1]);
            PathAttribute::with_flags(
                AttrFlags(0xc0),
                AttributeValue::Other {
                    type_code: 7,
                    value: Cow::Owned(v),
                },
            )
            .unwrap()
        };
        let as4_aggregator = PathAttribute::with_flags(
            AttrFlags(0xc0),
            AttributeValue::Other {
                type_code: 18,
                value: Cow::Owned(vec![0xfa, 0x56, 0xea, 0x01, 10, 0, 0, 2]),
            },
        )
        .unwrap();
        let as_path = AsPath::sequence(vec![65_001, AS_TRANS]);
        let update = |agg: u16| Update {
            attributes: vec![
                PathAttribute::new(AttributeValue::AsPath(as_path.clone()), AsWidth::Two).unwrap(),
                PathAttribute::new(
                    AttributeValue::As4Path(AsPath::sequence(vec![4_200_000_001])),
                    AsWidth::Two,
                )
                .unwrap(),
                old_aggregator(agg),
                as4_aggregator.clone(),
            ],
            ..Update::default()
        };
        let r = received(&update(65_001), AsWidth::Two);
        assert_eq!(r.as_path, as_path);
        assert_eq!(r.aggregator.unwrap().asn, 65_001);
        let r = received(&update(crate::packet::AS_TRANS), AsWidth::Two);
        assert_eq!(r.as_path, AsPath::sequence(vec![65_001, 4_200_000_001]));
        assert_eq!(r.aggregator.unwrap().asn, 4_200_000_001);
        // From a NEW speaker the path is AS_PATH alone.
        let r = received(&update(65_001), AsWidth::Four);
        assert_eq!(r.as_path, as_path);
    }
}
