//! UPDATEs as people read them: one line per prefix in bgpkit-parser's pipe format
//! (`bgpkit-parser FILE`, `BgpElem`'s `Display`), and a BGPsec_PATH's Secure_Path and
//! signatures.
//!
//! ```text
//! A|timestamp|peer_ip|peer_asn|prefix|as_path|origin|next_hop|local_pref|med|communities|atomic|aggr_asn|aggr_ip
//! ```
//!
//! Announcements come first (the NLRI field, then MP_REACH_NLRI), withdrawals after
//! (the Withdrawn Routes field, then MP_UNREACH_NLRI), as bgpkit-parser orders them;
//! `local_pref` and `med` read 0 when absent, as bgpkit-parser prints them; a
//! withdrawal leaves every attribute column empty and `atomic` false. Where the
//! UPDATE is a BGPsec one, `as_path` is the AS_PATH its Secure_Path stands for (RFC
//! 8205 §4.4) — bgpkit-parser, which keeps BGPsec_PATH as raw octets, leaves it
//! empty. `communities` lists COMMUNITIES (RFC 1997) and LARGE_COMMUNITY (RFC 8092) as
//! bgpkit-parser writes them; extended communities are not shown.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr};

use crate::as_path_equivalent;
use crate::packet::{
    AsPath, AsPathSegmentType, AttrType, AttributeValue, BgpsecPath, Prefix, Update,
};
use crate::suite;

/// The session an UPDATE was seen on, from its MRT record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Session {
    /// Seconds since 1970-01-01 UTC.
    pub timestamp: u32,
    /// Microseconds (BGP4MP_ET).
    pub microseconds: Option<u32>,
    /// The peer's address.
    pub peer_ip: IpAddr,
    /// The peer's AS.
    pub peer_as: u32,
}

impl From<&crate::trace::Bgp4mpMessage<'_>> for Session {
    fn from(m: &crate::trace::Bgp4mpMessage<'_>) -> Session {
        Session {
            timestamp: m.timestamp,
            microseconds: m.microseconds,
            peer_ip: m.peer_ip,
            peer_as: m.peer_as,
        }
    }
}

/// One prefix of an UPDATE with its attributes, as bgpkit-parser's `BgpElem`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Elem {
    /// An announcement (`A`) or a withdrawal (`W`).
    pub announce: bool,
    /// The session, if known (an MRT record; not a bare message).
    pub session: Option<Session>,
    /// The prefix.
    pub prefix: Prefix,
    /// AS_PATH, or the AS_PATH equivalent of BGPsec_PATH.
    pub as_path: Option<AsPath>,
    /// ORIGIN: `IGP`, `EGP`, `INCOMPLETE`.
    pub origin: Option<&'static str>,
    /// NEXT_HOP, or MP_REACH_NLRI's (global) next hop.
    pub next_hop: Option<IpAddr>,
    /// LOCAL_PREF (0 if absent).
    pub local_pref: Option<u32>,
    /// MULTI_EXIT_DISC (0 if absent).
    pub med: Option<u32>,
    /// Standard and large communities.
    pub communities: Vec<String>,
    /// ATOMIC_AGGREGATE present.
    pub atomic: bool,
    /// AGGREGATOR's AS and address.
    pub aggregator: Option<(u32, Ipv4Addr)>,
}

/// The elements of `update`, one per prefix; AGGREGATOR is read with AS numbers
/// `four_octet` wide or not.
pub fn elems(update: &Update<'_>, session: Option<Session>, four_octet: bool) -> Vec<Elem> {
    let u32_of =
        |t: AttrType| other(update, t).and_then(|v| Some(u32::from_be_bytes(v.try_into().ok()?)));
    let announced = |prefix| Elem {
        announce: true,
        session,
        prefix,
        as_path: match update.bgpsec_path() {
            Some(p) => Some(as_path_equivalent::as_path(p.secure_path())),
            None => update.as_path().cloned(),
        },
        origin: update.origin().map(|o| match o {
            crate::packet::Origin::Igp => "IGP",
            crate::packet::Origin::Egp => "EGP",
            crate::packet::Origin::Incomplete => "INCOMPLETE",
        }),
        next_hop: update
            .attributes
            .iter()
            .find_map(|a| match a.value() {
                AttributeValue::NextHop(a) => Some(IpAddr::V4(*a)),
                _ => None,
            })
            .or_else(|| update.mp_reach().map(|m| m.next_hop().addr())),
        local_pref: Some(u32_of(AttrType::LocalPref).unwrap_or(0)),
        med: Some(u32_of(AttrType::MultiExitDisc).unwrap_or(0)),
        communities: communities(update),
        atomic: update.attribute(AttrType::AtomicAggregate).is_some(),
        aggregator: other(update, AttrType::Aggregator).and_then(|v| aggregator(v, four_octet)),
    };
    let withdrawn = |prefix| Elem {
        announce: false,
        session,
        prefix,
        as_path: None,
        origin: None,
        next_hop: None,
        local_pref: None,
        med: None,
        communities: vec![],
        atomic: false,
        aggregator: None,
    };
    update
        .announced()
        .map(announced)
        .chain(update.withdrawn_all().map(withdrawn))
        .collect()
}

/// The value of a kept attribute of type `t`.
fn other<'u>(update: &'u Update<'_>, t: AttrType) -> Option<&'u [u8]> {
    match update.attribute(t)?.value() {
        AttributeValue::Other { value, .. } => Some(value),
        _ => None,
    }
}

/// AGGREGATOR: an AS of 2 or 4 octets, then an IPv4 address (RFC 4271 §5.1.7, RFC
/// 6793 §3).
fn aggregator(v: &[u8], four_octet: bool) -> Option<(u32, Ipv4Addr)> {
    let (asn, ip) = v.split_at_checked(if four_octet { 4 } else { 2 })?;
    let asn = asn.iter().fold(0u32, |n, &b| (n << 8) | u32::from(b));
    Some((asn, Ipv4Addr::from(<[u8; 4]>::try_from(ip).ok()?)))
}

/// COMMUNITIES (RFC 1997: the well-known ones by name) and LARGE_COMMUNITY (RFC
/// 8092), in attribute order.
fn communities(update: &Update<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for a in &update.attributes {
        let AttributeValue::Other { type_code, value } = a.value() else {
            continue;
        };
        match *type_code {
            8 => out.extend(value.chunks_exact(4).map(|c| {
                match u32::from_be_bytes([c[0], c[1], c[2], c[3]]) {
                    0xffff_ff01 => "no-export".to_string(),
                    0xffff_ff02 => "no-advertise".to_string(),
                    0xffff_ff03 => "no-export-sub-confed".to_string(),
                    v => format!("{}:{}", v >> 16, v & 0xffff),
                }
            })),
            32 => out.extend(value.chunks_exact(12).map(|c| {
                let n = |i: usize| u32::from_be_bytes([c[i], c[i + 1], c[i + 2], c[i + 3]]);
                format!("{}:{}:{}", n(0), n(4), n(8))
            })),
            _ => {}
        }
    }
    out
}

/// An AS path as bgpkit-parser writes it: sequences space-separated, sets in braces.
pub struct PathText<'a>(pub &'a AsPath);

impl fmt::Display for PathText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.segments.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            let list = |sep: &str| {
                s.asns
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(sep)
            };
            match s.kind {
                AsPathSegmentType::AsSequence | AsPathSegmentType::AsConfedSequence => {
                    f.write_str(&list(" "))?;
                }
                AsPathSegmentType::AsSet | AsPathSegmentType::AsConfedSet => {
                    write!(f, "{{{}}}", list(","))?;
                }
            }
        }
        Ok(())
    }
}

impl Elem {
    /// The timestamp as bgpkit-parser prints its `f64`: seconds, and the
    /// microseconds as a fraction.
    pub fn timestamp(&self) -> Option<f64> {
        self.session
            .map(|s| f64::from(s.timestamp) + s.microseconds.map_or(0.0, |us| f64::from(us) / 1e6))
    }
}

impl fmt::Display for Elem {
    /// The pipe-format line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn opt<T: fmt::Display>(v: Option<T>) -> String {
            v.map(|v| v.to_string()).unwrap_or_default()
        }
        write!(
            f,
            "{}|{}|{}|{}|{}/{}|{}|{}|{}|{}|{}|{}|{}|{}|{}",
            if self.announce { "A" } else { "W" },
            opt(self.timestamp()),
            opt(self.session.map(|s| s.peer_ip)),
            opt(self.session.map(|s| s.peer_as)),
            self.prefix.addr(),
            self.prefix.length(),
            opt(self.as_path.as_ref().map(PathText)),
            opt(self.origin),
            opt(self.next_hop),
            opt(self.local_pref),
            opt(self.med),
            self.communities.join(" "),
            self.atomic,
            opt(self.aggregator.map(|(asn, _)| asn)),
            opt(self.aggregator.map(|(_, ip)| ip)),
        )
    }
}

/// The Secure_Path, newest segment first as on the wire: `AS(pCount)` each, `C` after
/// a segment with the Confed_Segment flag, `+0xNN` for unassigned flag bits set.
pub fn secure_path_text(path: &BgpsecPath<'_>) -> String {
    path.secure_path()
        .iter()
        .map(|s| {
            let mut t = format!("{}({})", s.asn, s.pcount);
            if s.flags.confed_segment() {
                t.push('C');
            }
            if s.flags.unassigned() != 0 {
                t.push_str(&format!("+0x{:02x}", s.flags.unassigned()));
            }
            t
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// One Signature Segment, for display: the block's suite, the AS of its Secure_Path
/// Segment, the SKI and the signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureView {
    /// Algorithm Suite Identifier.
    pub suite: u8,
    /// The suite's name, if hopsig implements it.
    pub suite_name: Option<&'static str>,
    /// The AS of the matching Secure_Path Segment.
    pub asn: u32,
    /// The SKI, upper-case hex.
    pub ski: String,
    /// The signature, lower-case hex.
    pub signature: String,
}

/// Every Signature Segment of every block, newest first within a block.
pub fn signatures(path: &BgpsecPath<'_>) -> Vec<SignatureView> {
    path.signature_blocks()
        .iter()
        .flat_map(|b| {
            b.segments
                .iter()
                .zip(path.secure_path())
                .map(move |(sig, seg)| SignatureView {
                    suite: b.suite,
                    suite_name: suite::by_id(b.suite).map(|s| s.name()),
                    asn: seg.asn,
                    ski: hopsig_primitives::codec::to_hex(&sig.ski).to_ascii_uppercase(),
                    signature: hopsig_primitives::codec::to_hex(&sig.signature),
                })
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::packet::{AsPathSegment, AsWidth, Message};

    /// An UPDATE of AS_PATH 64500 {64501,64502}, ORIGIN IGP, NEXT_HOP 192.0.2.1,
    /// MED 7, COMMUNITIES 64500:1 NO_EXPORT, LARGE_COMMUNITY 64500:1:2, AGGREGATOR
    /// 64502 198.51.100.1, announcing 203.0.113.0/24 and withdrawing 198.51.100.0/24.
    #[rustfmt::skip]
    const UPDATE: &[u8] = &[
        0x00, 0x04, 0x18, 0xc6, 0x33, 0x64,           // withdrawn: 198.51.100.0/24
        0x00, 0x4a,                                   // attributes, 74 octets
        0x40, 0x01, 0x01, 0x00,                       // ORIGIN IGP
        0x40, 0x02, 0x10,                             // AS_PATH, 16 octets
        0x02, 0x01, 0x00, 0x00, 0xfb, 0xf4,           //   AS_SEQUENCE 64500
        0x01, 0x02, 0x00, 0x00, 0xfb, 0xf5, 0x00, 0x00, 0xfb, 0xf6, // AS_SET {64501,64502}
        0x40, 0x03, 0x04, 0xc0, 0x00, 0x02, 0x01,     // NEXT_HOP 192.0.2.1
        0x80, 0x04, 0x04, 0x00, 0x00, 0x00, 0x07,     // MULTI_EXIT_DISC 7
        0xc0, 0x07, 0x08, 0x00, 0x00, 0xfb, 0xf6, 0xc6, 0x33, 0x64, 0x01, // AGGREGATOR
        0xc0, 0x08, 0x08, 0xfb, 0xf4, 0x00, 0x01, 0xff, 0xff, 0xff, 0x01, // COMMUNITIES
        0xc0, 0x20, 0x0c, 0x00, 0x00, 0xfb, 0xf4, 0x00, 0x00, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x02,                       // LARGE_COMMUNITY 64500:1:2
        0x18, 0xcb, 0x00, 0x71,                       // NLRI 203.0.113.0/24
    ];

    #[test]
    fn pipe_lines_as_bgpkit_writes_them() {
        let update = crate::packet::Update::decode(UPDATE, AsWidth::Four).unwrap();
        let session = Session {
            timestamp: 1_470_931_200,
            microseconds: Some(250_000),
            peer_ip: "192.0.2.1".parse().unwrap(),
            peer_as: 64_500,
        };
        let lines: Vec<String> = elems(&update, Some(session), true)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            lines,
            [
                "A|1470931200.25|192.0.2.1|64500|203.0.113.0/24|64500 {64501,64502}|IGP|192.0.2.1|0|7|64500:1 no-export 64500:1:2|false|64502|198.51.100.1",
                "W|1470931200.25|192.0.2.1|64500|198.51.100.0/24|||||||false||",
            ]
        );
        let bare = elems(&update, None, true);
        assert!(bare[0].to_string().starts_with("A||||203.0.113.0/24|"));
    }

    #[test]
    fn bgpsec_updates_show_the_as_path_equivalent_and_signatures() {
        use crate::trace::{bgpsec_update, Keyring, PathHop, Route};
        let mut ring = Keyring::new(&crate::suite::ECDSA_P256_SHA256);
        ring.generate(&[64_496, 65_536], 1).unwrap();
        let route = Route {
            hops: vec![
                PathHop {
                    asn: 64_496,
                    pcount: 1,
                },
                PathHop {
                    asn: 65_536,
                    pcount: 2,
                },
            ],
            target_as: 64_497,
            nlri: crate::SignedNlri::unicast(
                Prefix::new("192.0.2.0".parse().unwrap(), 24).unwrap(),
            ),
            next_hop: crate::packet::NextHop::V4("198.51.100.1".parse().unwrap()),
            origin: crate::packet::Origin::Igp,
        };
        let bytes = bgpsec_update(&route, &ring).unwrap();
        let Message::Update(u) = Message::decode(&bytes, AsWidth::Four).unwrap() else {
            panic!("not an UPDATE");
        };
        let e = elems(&u, None, true);
        assert_eq!(e.len(), 1);
        assert_eq!(
            e[0].as_path,
            Some(AsPath {
                segments: vec![AsPathSegment {
                    kind: AsPathSegmentType::AsSequence,
                    asns: vec![65_536, 65_536, 64_496]
                }]
            })
        );
        assert_eq!(
            e[0].to_string(),
            "A||||192.0.2.0/24|65536 65536 64496|IGP|198.51.100.1|0|0||false||"
        );
        let path = u.bgpsec_path().unwrap();
        assert_eq!(secure_path_text(path), "65536(2) 64496(1)");
        let sigs = signatures(path);
        assert_eq!(sigs.len(), 2);
        assert_eq!((sigs[0].asn, sigs[1].asn), (65_536, 64_496));
        let (_, origin_key) = ring.signer(64_496).unwrap().key(1).unwrap();
        assert_eq!(sigs[1].ski, hex::encode_upper(origin_key.ski()));
        assert_eq!(sigs[0].suite_name, Some("ecdsa-p256-sha256"));
        assert_eq!(
            sigs[0].signature,
            hex::encode(&*path.signature_blocks()[0].segments[0].signature)
        );
    }
}
