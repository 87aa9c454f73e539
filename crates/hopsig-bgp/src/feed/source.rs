//! The UPDATEs of an MRT file as the messages a feed session sends: BGP4MP message
//! records (RFC 6396 §4.4, what `hopsig bgpsec sign-mrt` writes and what RIS / RouteViews
//! update files hold), read with [`crate::mrt::bgp4mp::Records`] and decoded with the
//! packet codec.
//!
//! * **BGPsec session**: a BGPsec UPDATE is sent as recorded when the record's peer is
//!   this session's AS (RFC 8205 §5.2 check 2: the newest Secure_Path Segment is the
//!   sender's) and its local AS is the router's (the newest signature's Target AS,
//!   §4.2); others are counted as skipped — the feed cannot sign in their place.
//! * **Plain session**: a BGPsec UPDATE goes as its AS_PATH equivalent (RFC 8205 §4.4,
//!   what a BGPsec speaker sends a non-BGPsec peer): ORIGIN, AS_PATH, MP_REACH_NLRI.
//! * **Unsigned UPDATEs** (either session) go with this session's AS prepended to the
//!   AS_PATH unless it is there already (RFC 4271 §5.1.2, as the speaker forwarding
//!   them would), re-encoded with 4-octet AS numbers (RFC 6793).
//!
//! The session negotiates IPv4 unicast only (RFC 4760 capability, as the speaker's
//! FSM announces it): UPDATEs of other families are counted as `not_ipv4_unicast`.
//!
//! RIB dumps (TABLE_DUMP_V2) hold no UPDATEs: `hopsig bgpsec sign-mrt` turns them into
//! BGP4MP records first.

use std::collections::BTreeMap;
use std::io::Read;
use std::net::IpAddr;

use hopsig_primitives::codec::Reader;

use crate::mrt::bgp4mp::{Bgp4mpMessage, MrtRecord, RecordError, Records};
use crate::packet::{
    Afi, AsPath, AsPathSegment, AsPathSegmentType, AsWidth, AttrType, AttributeValue, Message,
    MpReachNlri, NextHop, PathAttribute, Prefix, Safi, Update,
};
use crate::{as4, as_path_equivalent};

/// One UPDATE to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The whole BGP message.
    pub message: Vec<u8>,
    /// Prefixes it announces.
    pub announced: Vec<Prefix>,
    /// Prefixes it withdraws.
    pub withdrawn: Vec<Prefix>,
    /// Seconds from the first record's timestamp (`--timing trace`).
    pub time: f64,
    /// Whether it carries BGPsec_PATH.
    pub signed: bool,
    /// Index of its MRT record (from 0).
    pub record: u64,
}

/// Which records to take and how to send them.
#[derive(Debug, Clone, Copy)]
pub struct Selection {
    /// This side's AS.
    pub local_as: u32,
    /// The router's AS.
    pub remote_as: u32,
    /// The session negotiated BGPsec (send).
    pub bgpsec: bool,
    /// Take only records whose peer is this AS (`None`: every record).
    pub from_as: Option<u32>,
    /// Stop after this many UPDATEs.
    pub limit: Option<u64>,
    /// Next hop to announce instead of the recorded one (RFC 4271 §5.1.3: a speaker
    /// sets its own address toward an external peer; MP_REACH_NLRI's next hop is not
    /// signed, RFC 8205 §4.1).
    pub next_hop: Option<IpAddr>,
}

/// The UPDATEs read, and what was left out, by reason.
#[derive(Debug, Clone, Default)]
pub struct Source {
    /// The UPDATEs, in file order.
    pub items: Vec<Item>,
    /// MRT records read.
    pub records: u64,
    /// Records left out, by reason (`other_peer`, `other_target`, `not_update`,
    /// `malformed`, `sent_by_collector`, `not_ipv4_unicast`, `unencodable`).
    pub skipped: BTreeMap<&'static str, u64>,
}

/// Why an MRT file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The stream or a record.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// No BGP4MP UPDATE at all.
    #[error("no BGP4MP UPDATE records in {records} MRT records: a RIB dump (TABLE_DUMP_V2) goes through `hopsig bgpsec sign-mrt` first")]
    NoUpdates {
        /// Records read.
        records: u64,
    },
}

/// Reads the UPDATEs of the uncompressed MRT stream `input` (see
/// [`crate::mrt::decompressed`]) for a session as `sel` describes.
///
/// # Errors
/// [`SourceError`].
pub fn load(input: impl Read, sel: &Selection) -> Result<Source, SourceError> {
    let mut out = Source::default();
    let mut first: Option<f64> = None;
    let mut updates_seen = 0u64;
    for record in Records::new(input) {
        let record = record?;
        let index = out.records;
        out.records += 1;
        if sel.limit.is_some_and(|l| out.items.len() as u64 >= l) {
            break;
        }
        let Ok(r) = MrtRecord::read(&mut Reader::new(&record)) else {
            *out.skipped.entry("malformed").or_default() += 1;
            continue;
        };
        let Ok(Some(m)) = Bgp4mpMessage::decode(&r) else {
            *out.skipped.entry("not_update").or_default() += 1;
            continue;
        };
        let Ok(Message::Update(update)) = Message::decode(m.message, m.width) else {
            let why = if m.message.get(18) == Some(&2) {
                "malformed"
            } else {
                "not_update"
            };
            *out.skipped.entry(why).or_default() += 1;
            continue;
        };
        updates_seen += 1;
        let why = if m.local {
            Some("sent_by_collector")
        } else if sel.from_as.is_some_and(|a| a != m.peer_as) {
            Some("other_peer")
        } else {
            None
        };
        let why = why.or_else(|| (!ipv4_unicast(&update)).then_some("not_ipv4_unicast"));
        if let Some(why) = why {
            *out.skipped.entry(why).or_default() += 1;
            continue;
        }
        let time = f64::from(m.timestamp) + f64::from(m.microseconds.unwrap_or(0)) * 1e-6;
        let t0 = *first.get_or_insert(time);
        let signed = update.bgpsec_path().is_some();
        let message = if signed && sel.bgpsec {
            if m.local_as != sel.remote_as || m.peer_as != sel.local_as {
                *out.skipped.entry("other_target").or_default() += 1;
                continue;
            }
            match sel.next_hop {
                None => m.message.to_vec(),
                Some(nh) => match Message::Update(with_next_hop(update.clone(), nh))
                    .encoding(AsWidth::Four)
                {
                    Ok(b) => b,
                    Err(_) => {
                        *out.skipped.entry("unencodable").or_default() += 1;
                        continue;
                    }
                },
            }
        } else {
            let u = match sel.next_hop {
                Some(nh) => with_next_hop(update.clone(), nh),
                None => update.clone(),
            };
            match plain(u, m.width, sel.local_as) {
                Some(b) => b,
                None => {
                    *out.skipped.entry("unencodable").or_default() += 1;
                    continue;
                }
            }
        };
        out.items.push(Item {
            announced: update.announced().collect(),
            withdrawn: update.withdrawn_all().collect(),
            message,
            time: time - t0,
            signed: signed && sel.bgpsec,
            record: index,
        });
    }
    if updates_seen == 0 {
        return Err(SourceError::NoUpdates {
            records: out.records,
        });
    }
    Ok(out)
}

/// Whether `update` is of IPv4 unicast only: its prefixes IPv4, and MP_REACH_NLRI /
/// MP_UNREACH_NLRI, if any, of AFI 1 SAFI 1 (RFC 4760) — what the session negotiates.
fn ipv4_unicast(update: &Update<'_>) -> bool {
    let ipv4 = |p: Prefix| p.afi() == Afi::Ipv4;
    update.announced().all(ipv4)
        && update.withdrawn_all().all(ipv4)
        && update.attributes.iter().all(|a| match a.value() {
            AttributeValue::MpReachNlri(m) => m.afi() == Afi::Ipv4 && m.safi() == Safi::Unicast,
            AttributeValue::MpUnreachNlri(m) => m.afi() == Afi::Ipv4 && m.safi() == Safi::Unicast,
            // MP attributes of families the codec does not decode are kept as Other.
            AttributeValue::Other { type_code, .. } => ![14, 15].contains(type_code),
            _ => true,
        })
}

/// `update` (received with AS numbers `width` wide) as an unsigned UPDATE from
/// `local_as`: a BGPsec_PATH replaced by its AS_PATH equivalent (RFC 8205 §4.4), else
/// the path and aggregator as RFC 6793 §4.2.3 reads them ([`as4::received`]: AS4_PATH
/// and AS4_AGGREGATOR merged in from a 2-octet record); `local_as` prepended unless it
/// is the first AS already (RFC 4271 §5.1.2); AS_PATH and AGGREGATOR written with
/// 4-octet AS numbers ([`as4::path_attributes`]); `None` if it does not encode.
pub fn plain(update: Update<'_>, width: AsWidth, local_as: u32) -> Option<Vec<u8>> {
    let announces = update.announced().next().is_some();
    let received = as4::received(&update, width);
    let mut path = match update.bgpsec_path() {
        Some(p) => as_path_equivalent::as_path(p.secure_path()),
        None => received.as_path,
    };
    let rebuilt = [
        AttrType::AsPath,
        AttrType::As4Path,
        AttrType::Aggregator,
        AttrType::As4Aggregator,
        AttrType::BgpsecPath,
    ]
    .map(u8::from);
    let mut attributes: Vec<_> = update
        .attributes
        .into_iter()
        .filter(|a| !rebuilt.contains(&a.type_code()))
        .collect();
    if announces {
        prepend(&mut path, local_as);
        attributes.extend(as4::path_attributes(&path, received.aggregator, AsWidth::Four).ok()?);
        attributes.sort_by_key(PathAttribute::type_code);
    }
    Message::Update(Update {
        withdrawn: update.withdrawn,
        attributes,
        nlri: update.nlri,
    })
    .encoding(AsWidth::Four)
    .ok()
}

/// `update` with next hop `nh` in NEXT_HOP (IPv4) and in MP_REACH_NLRI of the same
/// family.
pub fn with_next_hop(mut update: Update<'_>, nh: IpAddr) -> Update<'_> {
    for a in &mut update.attributes {
        let value = match (a.value(), nh) {
            (AttributeValue::NextHop(_), IpAddr::V4(v4)) => AttributeValue::NextHop(v4),
            (AttributeValue::MpReachNlri(m), _) => {
                let hop = match nh {
                    IpAddr::V4(v4) => NextHop::V4(v4),
                    IpAddr::V6(v6) => NextHop::V6(v6),
                };
                match MpReachNlri::new(m.safi(), hop, m.nlri().to_vec()) {
                    Ok(m) => AttributeValue::MpReachNlri(m),
                    Err(_) => continue,
                }
            }
            _ => continue,
        };
        if let Ok(new) = PathAttribute::new(value, AsWidth::Four) {
            *a = new;
        }
    }
    update
}

/// Prepends `asn` to `path` unless it is its first AS (RFC 4271 §5.1.2).
fn prepend(path: &mut AsPath, asn: u32) {
    match path.segments.first_mut() {
        Some(s) if s.kind == AsPathSegmentType::AsSequence && s.asns.first() == Some(&asn) => {}
        Some(s) if s.kind == AsPathSegmentType::AsSequence && s.asns.len() < 255 => {
            s.asns.insert(0, asn);
        }
        _ => path.segments.insert(
            0,
            AsPathSegment {
                kind: AsPathSegmentType::AsSequence,
                asns: vec![asn],
            },
        ),
    }
}
