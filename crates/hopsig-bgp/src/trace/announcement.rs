//! The announcements of an MRT file, read with bgpkit-parser (RIS and RouteViews
//! update files, BGP4MP; RIB dumps, TABLE_DUMP and TABLE_DUMP_V2), and the route each
//! one becomes when the ASes on its path sign it in turn.
//!
//! bgpkit-parser turns every record into elements of one prefix each (an UPDATE that
//! announces several prefixes gives several), with AS_PATH and AS4_PATH merged (RFC
//! 6793 §4.2.3). [`Route::of`] then applies RFC 8205 to the path, or says why the
//! announcement cannot be a BGPsec UPDATE ([`Skip`]).

use std::io::Read;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use bgpkit_parser::models::{self as bgpkit, ElemType};

pub use crate::mrt::elems::ReadError;
use crate::mrt::elems::{bgpsec_path_value, ElemRecords};

use crate::packet::{AsPath, AsPathSegment, AsPathSegmentType, NextHop, Origin, Prefix, AS_TRANS};
use crate::signature_input::SignedNlri;

/// One announcement: a prefix, its path attributes, and the session the collector saw
/// it on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Announcement {
    /// Seconds since 1970-01-01 UTC, from the MRT record.
    pub timestamp: u32,
    /// The record's microseconds (BGP4MP_ET).
    pub microseconds: Option<u32>,
    /// The collector's peer.
    pub peer_ip: IpAddr,
    /// The peer's AS.
    pub peer_as: u32,
    /// The collector's AS and address, where the record gives them (BGP4MP); RIB dumps
    /// do not.
    pub collector: Option<(u32, IpAddr)>,
    /// The announced prefix.
    pub prefix: Prefix,
    /// The AS path (AS4_PATH merged in); `None` if the route had none.
    pub as_path: Option<AsPath>,
    /// ORIGIN, if present.
    pub origin: Option<Origin>,
    /// NEXT_HOP or MP_REACH_NLRI's (global) next hop.
    pub next_hop: Option<IpAddr>,
}

/// What an MRT file yields, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A prefix announced.
    Announcement(Announcement),
    /// A prefix withdrawn: nothing to sign (RFC 8205 signs announcements only).
    Withdrawal,
    /// A record bgpkit-parser could not decode, framed correctly, skipped.
    Unreadable,
}

/// The entries of an MRT stream (uncompressed: see [`crate::mrt::decompressed`]), and
/// how many records they came from: the elements of [`ElemRecords`], each an
/// [`Entry`].
pub struct Entries<R: Read> {
    records: ElemRecords<R>,
    pending: std::vec::IntoIter<Entry>,
}

impl<R: Read> Entries<R> {
    /// The entries of `input`.
    pub fn new(input: R) -> Entries<R> {
        Entries {
            records: ElemRecords::new(input),
            pending: Vec::new().into_iter(),
        }
    }

    /// MRT records read so far.
    pub fn records(&self) -> u64 {
        self.records.records()
    }
}

impl<R: Read> Iterator for Entries<R> {
    type Item = Result<Entry, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(e) = self.pending.next() {
                return Some(Ok(e));
            }
            let record = match self.records.next()? {
                Ok(record) => record,
                Err(e) => return Some(Err(e)),
            };
            let Some(elems) = record.elems else {
                return Some(Ok(Entry::Unreadable));
            };
            let header = (record.timestamp, record.microseconds);
            self.pending = elems
                .into_iter()
                .map(|elem| entry(elem, header, record.collector))
                .collect::<Vec<_>>()
                .into_iter();
        }
    }
}

/// One bgpkit element as an [`Entry`].
fn entry(
    elem: bgpkit::BgpElem,
    (timestamp, microseconds): (u32, Option<u32>),
    collector: Option<(u32, IpAddr)>,
) -> Entry {
    if elem.elem_type != ElemType::ANNOUNCE {
        return Entry::Withdrawal;
    }
    let net = elem.prefix.prefix;
    // bgpkit's IpNet is always a valid prefix; hopsig's Prefix agrees.
    let Ok(prefix) = Prefix::new(net.addr(), net.prefix_len()) else {
        return Entry::Unreadable;
    };
    Entry::Announcement(Announcement {
        timestamp,
        microseconds,
        peer_ip: elem.peer_ip,
        peer_as: elem.peer_asn.to_u32(),
        collector,
        prefix,
        as_path: elem
            .as_path
            .as_ref()
            .map(as_path)
            .or_else(|| bgpsec_as_path(&elem)),
        origin: elem.origin.map(|o| match o {
            bgpkit::Origin::IGP => Origin::Igp,
            bgpkit::Origin::EGP => Origin::Egp,
            bgpkit::Origin::INCOMPLETE => Origin::Incomplete,
        }),
        next_hop: elem.next_hop,
    })
}

/// The AS path a BGPsec_PATH stands for (RFC 8205 §4.4), for a BGPsec route (in
/// the speaker's MRT dumps): bgpkit-parser keeps the attribute raw, among the ones it
/// does not decode; one that does not decode gives none.
fn bgpsec_as_path(elem: &bgpkit::BgpElem) -> Option<AsPath> {
    let path = crate::packet::BgpsecPath::decode(bgpsec_path_value(elem)?).ok()?;
    Some(crate::as_path_equivalent::as_path(path.secure_path()))
}

/// bgpkit's AS path in hopsig's type.
fn as_path(p: &bgpkit::AsPath) -> AsPath {
    let segments = p
        .iter_segments()
        .map(|s| {
            let (kind, asns) = match s {
                bgpkit::AsPathSegment::AsSequence(v) => (AsPathSegmentType::AsSequence, v),
                bgpkit::AsPathSegment::AsSet(v) => (AsPathSegmentType::AsSet, v),
                bgpkit::AsPathSegment::ConfedSequence(v) => {
                    (AsPathSegmentType::AsConfedSequence, v)
                }
                bgpkit::AsPathSegment::ConfedSet(v) => (AsPathSegmentType::AsConfedSet, v),
            };
            AsPathSegment {
                kind,
                asns: asns.iter().map(bgpkit::Asn::to_u32).collect(),
            }
        })
        .collect();
    AsPath { segments }
}

/// Why an announcement does not become a BGPsec UPDATE. Each is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Skip {
    /// No AS path, or an empty one: an iBGP route of the collector's peer, which no
    /// external AS signed.
    NoAsPath,
    /// The path holds an AS_SET or AS_CONFED_SET: "the BGPsec speaker MUST NOT include
    /// the BGPsec_PATH attribute" and sends a non-BGPsec UPDATE (RFC 8205 §4.1).
    AsSet,
    /// The path holds an AS_CONFED_SEQUENCE: a confederation's internal path, which
    /// never leaves it (RFC 5065 §5.3); its signing needs the confederation's own view
    /// (RFC 8205 §4.3), which an MRT file does not give.
    ConfedSequence,
    /// AS 0 on the path: no route may carry it (RFC 7607 §2, treat-as-withdraw).
    AsZero,
    /// AS_TRANS (23456) on the path: a 4-octet AS lost by an old speaker (RFC 6793
    /// §4.2.2), while every BGPsec speaker is a 4-octet one (RFC 8205 §2.2).
    AsTrans,
    /// The collector's own AS is on the path: the collector is the target of the
    /// newest signature, and its AS on the path is a loop (RFC 4271 §9.1.2; RFC 8205
    /// §5.2 check 8 would reject the UPDATE). RIPE RIS's beacons, for one, originate
    /// from the collectors' AS 12654.
    TargetOnPath,
    /// More than 255 consecutive copies of one AS: pCount is one octet (RFC 8205
    /// §3.1).
    PcountOverflow,
    /// No ORIGIN: a mandatory attribute missing (RFC 4271 §5, RFC 7606 §3 d).
    NoOrigin,
    /// No next hop of the prefix's family: MP_REACH_NLRI needs one (RFC 4760 §3;
    /// IPv6 next hops of IPv4 routes, RFC 8950, are not implemented).
    NextHop,
    /// The signed UPDATE would exceed 4096 octets (RFC 8205 §4.1).
    TooLarge,
}

impl Skip {
    /// Every reason, in the order reports list them.
    pub const ALL: [Skip; 10] = [
        Skip::NoAsPath,
        Skip::AsSet,
        Skip::ConfedSequence,
        Skip::AsZero,
        Skip::AsTrans,
        Skip::TargetOnPath,
        Skip::PcountOverflow,
        Skip::NoOrigin,
        Skip::NextHop,
        Skip::TooLarge,
    ];

    /// A stable name, for reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Skip::NoAsPath => "no_as_path",
            Skip::AsSet => "as_set",
            Skip::ConfedSequence => "confed_sequence",
            Skip::AsZero => "as_zero",
            Skip::AsTrans => "as_trans",
            Skip::TargetOnPath => "target_on_path",
            Skip::PcountOverflow => "pcount_overflow",
            Skip::NoOrigin => "no_origin",
            Skip::NextHop => "next_hop",
            Skip::TooLarge => "too_large",
        }
    }

    /// What the RFC says, in a few words.
    pub fn why(self) -> &'static str {
        match self {
            Skip::NoAsPath => "no AS path (an iBGP route)",
            Skip::AsSet => "AS_SET on the path: sent unsigned (RFC 8205 §4.1)",
            Skip::ConfedSequence => "AS_CONFED_SEQUENCE on the path (RFC 8205 §4.3)",
            Skip::AsZero => "AS 0 on the path (RFC 7607)",
            Skip::AsTrans => "AS_TRANS on the path (RFC 6793; RFC 8205 §2.2)",
            Skip::TargetOnPath => "the collector's AS on the path: a loop (RFC 8205 §5.2 check 8)",
            Skip::PcountOverflow => "over 255 prepends of one AS (RFC 8205 §3.1)",
            Skip::NoOrigin => "no ORIGIN (RFC 4271 §5)",
            Skip::NextHop => "no next hop of the prefix's family (RFC 4760 §3)",
            Skip::TooLarge => "over 4096 octets signed (RFC 8205 §4.1)",
        }
    }
}

/// One AS on a Secure_Path with its pCount: consecutive copies of an AS in AS_PATH
/// (prepending) are one Secure_Path Segment of that many (RFC 8205 §4.2: "the
/// pCount field … set to the number of times the AS number … is to be repeated").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PathHop {
    /// The AS number.
    pub asn: u32,
    /// Its copies in AS_PATH.
    pub pcount: u8,
}

/// An announcement as the BGPsec UPDATE its path would carry: each AS of `hops`
/// signs in turn, the origin first, toward the next; the newest toward `target_as`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The Secure_Path, origin first.
    pub hops: Vec<PathHop>,
    /// The AS the newest signature targets: the collector's.
    pub target_as: u32,
    /// The prefix, unicast (bgpkit's elements do not carry the SAFI; RIS and
    /// RouteViews peers send unicast routes).
    pub nlri: SignedNlri,
    /// The next hop MP_REACH_NLRI carries.
    pub next_hop: NextHop,
    /// ORIGIN.
    pub origin: Origin,
}

impl Route {
    /// A synthetic route for benchmarks and simulations: `hops` ASes 65001, 65002, …
    /// (private-use AS numbers, RFC 6996) from the origin, one segment each (pCount 1),
    /// announcing `prefix` with next hop 192.0.2.1 (RFC 5737), origin IGP, toward
    /// `target_as`.
    pub fn synthetic(hops: usize, prefix: Prefix, target_as: u32) -> Route {
        Route {
            hops: (0..hops)
                .map(|i| PathHop {
                    asn: 65_001 + i as u32,
                    pcount: 1,
                })
                .collect(),
            target_as,
            nlri: SignedNlri::unicast(prefix),
            next_hop: NextHop::V4(Ipv4Addr::new(192, 0, 2, 1)),
            origin: Origin::Igp,
        }
    }

    /// The route of `a`, whose newest signature targets the collector's AS from the
    /// record or, where the record gives none (RIB dumps), `default_target`.
    ///
    /// # Errors
    /// The [`Skip`] that keeps it from being a BGPsec UPDATE, the first in the order
    /// of [`Skip::ALL`].
    pub fn of(a: &Announcement, default_target: u32) -> Result<Route, Skip> {
        let target_as = a.collector.map_or(default_target, |(asn, _)| asn);
        let path = a.as_path.as_ref().ok_or(Skip::NoAsPath)?;
        let kind = |k| path.segments.iter().any(|s| s.kind == k);
        if path.segments.iter().all(|s| s.asns.is_empty()) {
            return Err(Skip::NoAsPath);
        }
        if kind(AsPathSegmentType::AsSet) || kind(AsPathSegmentType::AsConfedSet) {
            return Err(Skip::AsSet);
        }
        if kind(AsPathSegmentType::AsConfedSequence) {
            return Err(Skip::ConfedSequence);
        }
        let asns = || path.segments.iter().flat_map(|s| s.asns.iter().copied());
        if asns().any(|asn| asn == 0) {
            return Err(Skip::AsZero);
        }
        if asns().any(|asn| u32::from(AS_TRANS) == asn) {
            return Err(Skip::AsTrans);
        }
        if asns().any(|asn| asn == target_as) {
            return Err(Skip::TargetOnPath);
        }
        // AS_PATH lists the newest AS first; a Secure_Path is signed origin first.
        let mut hops: Vec<PathHop> = Vec::new();
        for asn in asns().collect::<Vec<_>>().into_iter().rev() {
            match hops.last_mut() {
                Some(h) if h.asn == asn => {
                    h.pcount = h.pcount.checked_add(1).ok_or(Skip::PcountOverflow)?;
                }
                _ => hops.push(PathHop { asn, pcount: 1 }),
            }
        }
        let origin = a.origin.ok_or(Skip::NoOrigin)?;
        let next_hop = match (a.prefix.addr(), a.next_hop) {
            (IpAddr::V4(_), Some(IpAddr::V4(nh))) => NextHop::V4(nh),
            (IpAddr::V6(_), Some(IpAddr::V6(nh))) => NextHop::V6(nh),
            _ => return Err(Skip::NextHop),
        };
        Ok(Route {
            hops,
            target_as,
            nlri: SignedNlri::unicast(a.prefix),
            next_hop,
            origin,
        })
    }

    /// The AS that sends the UPDATE to the collector: the newest on the path.
    pub fn newest_as(&self) -> u32 {
        self.hops.last().map_or(0, |h| h.asn)
    }
}

/// The collector's address for a record that does not give it (RIB dumps): the
/// unspecified address of the peer's family.
pub fn unspecified_like(peer: IpAddr) -> IpAddr {
    match peer {
        IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::UNSPECIFIED),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn announcement(segments: Vec<(AsPathSegmentType, Vec<u32>)>) -> Announcement {
        Announcement {
            timestamp: 1,
            microseconds: None,
            peer_ip: "192.0.2.1".parse().unwrap(),
            peer_as: 64_500,
            collector: Some((12_654, "192.0.2.2".parse().unwrap())),
            prefix: Prefix::new("198.51.100.0".parse().unwrap(), 24).unwrap(),
            as_path: Some(AsPath {
                segments: segments
                    .into_iter()
                    .map(|(kind, asns)| AsPathSegment { kind, asns })
                    .collect(),
            }),
            origin: Some(Origin::Igp),
            next_hop: Some("192.0.2.1".parse().unwrap()),
        }
    }

    fn seq(asns: &[u32]) -> Announcement {
        announcement(vec![(AsPathSegmentType::AsSequence, asns.to_vec())])
    }

    fn hop(asn: u32, pcount: u8) -> PathHop {
        PathHop { asn, pcount }
    }

    #[test]
    fn prepends_become_pcount_origin_first() {
        let r = Route::of(&seq(&[64_500, 64_501, 64_501, 64_501, 64_502]), 1).unwrap();
        assert_eq!(r.hops, [hop(64_502, 1), hop(64_501, 3), hop(64_500, 1)]);
        assert_eq!(r.target_as, 12_654, "the record's collector AS wins");
        assert_eq!(r.newest_as(), 64_500);
        // A path through one AS twice, not consecutively, keeps both (a loop the
        // collector saw; each copy signs).
        let r = Route::of(&seq(&[64_500, 64_501, 64_500]), 1).unwrap();
        assert_eq!(r.hops, [hop(64_500, 1), hop(64_501, 1), hop(64_500, 1)]);
        // Two sequences are one path.
        let two = announcement(vec![
            (AsPathSegmentType::AsSequence, vec![64_500, 64_501]),
            (AsPathSegmentType::AsSequence, vec![64_501, 64_502]),
        ]);
        let r = Route::of(&two, 1).unwrap();
        assert_eq!(r.hops, [hop(64_502, 1), hop(64_501, 2), hop(64_500, 1)]);
        // A RIB dump gives no collector: the default target.
        let mut rib = seq(&[64_500]);
        rib.collector = None;
        assert_eq!(Route::of(&rib, 64_999).unwrap().target_as, 64_999);
        let mut long = vec![64_500];
        long.extend([64_501; 255]);
        assert_eq!(Route::of(&seq(&long), 1).unwrap().hops[0], hop(64_501, 255));
        long.push(64_501);
        assert_eq!(Route::of(&seq(&long), 1), Err(Skip::PcountOverflow));
    }

    #[test]
    fn every_skip_reason() {
        let set = announcement(vec![
            (AsPathSegmentType::AsSequence, vec![64_500]),
            (AsPathSegmentType::AsSet, vec![64_501, 64_502]),
        ]);
        assert_eq!(Route::of(&set, 1), Err(Skip::AsSet));
        let confed_set = announcement(vec![(AsPathSegmentType::AsConfedSet, vec![64_501])]);
        assert_eq!(Route::of(&confed_set, 1), Err(Skip::AsSet));
        let confed = announcement(vec![
            (AsPathSegmentType::AsConfedSequence, vec![64_501]),
            (AsPathSegmentType::AsSequence, vec![64_500]),
        ]);
        assert_eq!(Route::of(&confed, 1), Err(Skip::ConfedSequence));
        assert_eq!(Route::of(&seq(&[64_500, 0]), 1), Err(Skip::AsZero));
        assert_eq!(Route::of(&seq(&[64_500, 23_456]), 1), Err(Skip::AsTrans));
        assert_eq!(
            Route::of(&seq(&[64_500, 12_654]), 1),
            Err(Skip::TargetOnPath)
        );
        assert_eq!(Route::of(&seq(&[]), 1), Err(Skip::NoAsPath));
        let mut none = seq(&[64_500]);
        none.as_path = None;
        assert_eq!(Route::of(&none, 1), Err(Skip::NoAsPath));
        let mut no_origin = seq(&[64_500]);
        no_origin.origin = None;
        assert_eq!(Route::of(&no_origin, 1), Err(Skip::NoOrigin));
        let mut v6_next_hop = seq(&[64_500]);
        v6_next_hop.next_hop = Some("2001:db8::1".parse().unwrap());
        assert_eq!(Route::of(&v6_next_hop, 1), Err(Skip::NextHop));
        let mut no_next_hop = seq(&[64_500]);
        no_next_hop.next_hop = None;
        assert_eq!(Route::of(&no_next_hop, 1), Err(Skip::NextHop));
        let names: std::collections::HashSet<_> = Skip::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(names.len(), Skip::ALL.len());
    }

    #[test]
    fn ipv6_routes_keep_their_family() {
        let mut a = seq(&[64_500, 64_501]);
        a.prefix = Prefix::new("2001:db8::".parse().unwrap(), 32).unwrap();
        a.next_hop = Some("2001:db8::1".parse().unwrap());
        let r = Route::of(&a, 1).unwrap();
        assert_eq!(r.nlri.afi(), crate::packet::Afi::Ipv6);
        assert_eq!(r.next_hop, NextHop::V6("2001:db8::1".parse().unwrap()));
    }
}
