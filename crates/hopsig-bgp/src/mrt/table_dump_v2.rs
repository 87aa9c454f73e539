//! TABLE_DUMP_V2 records (RFC 6396 §4.3): the PEER_INDEX_TABLE that starts a RIB dump
//! and the RIB_IPV4_UNICAST / RIB_IPV6_UNICAST records of one prefix each, both
//! halves; and the attributes of a RIB entry made from those of a received UPDATE
//! ([`rib_attributes`], §4.3.4).
//!
//! ```text
//! PEER_INDEX_TABLE (subtype 1, §4.3.1):
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                      Collector BGP ID                         |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |       View Name Length        |     View Name (variable)      |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |          Peer Count           |    Peer Entries (variable)
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! Peer Entry: Peer Type (1: bit 0 IPv6 address, bit 1 4-octet AS), Peer BGP ID (4),
//! Peer IP Address (4 or 16), Peer AS (2 or 4).
//!
//! RIB_IPV4_UNICAST (2) / RIB_IPV6_UNICAST (4), §4.3.2:
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                         Sequence Number                       |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! | Prefix Length |     Prefix (ceil(Prefix Length / 8) octets)
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |         Entry Count           |  RIB Entries (variable)
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! RIB Entry (§4.3.4): Peer Index (2), Originated Time (4), Attribute Length (2),
//! BGP Attributes (variable).
//! ```

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use hopsig_primitives::codec::{self, DecodeError, Reader, Writer};

use super::bgp4mp::MrtRecord;
use crate::packet::{Afi, AttrType, Prefix, RawAttribute};

/// MRT type TABLE_DUMP_V2 (RFC 6396 §4.3).
pub const TABLE_DUMP_V2: u16 = 13;
/// Subtype PEER_INDEX_TABLE (§4.3.1).
pub const PEER_INDEX_TABLE: u16 = 1;
/// Subtype RIB_IPV4_UNICAST (§4.3.2).
pub const RIB_IPV4_UNICAST: u16 = 2;
/// Subtype RIB_IPV6_UNICAST (§4.3.2).
pub const RIB_IPV6_UNICAST: u16 = 4;

/// Peer Type bit 0: the Peer IP Address is IPv6 (§4.3.1).
const PEER_IPV6: u8 = 0x01;
/// Peer Type bit 1: the Peer AS is 4 octets (§4.3.1).
const PEER_AS4: u8 = 0x02;

/// One peer of a [`PeerIndexTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeerEntry {
    /// The peer's BGP Identifier (from its OPEN).
    pub bgp_id: Ipv4Addr,
    /// The peer's address.
    pub ip: IpAddr,
    /// The peer's AS.
    pub asn: u32,
}

/// The PEER_INDEX_TABLE: the collector and the peers the RIB entries name by index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerIndexTable {
    /// The collector's BGP Identifier.
    pub collector_id: Ipv4Addr,
    /// The View Name (UTF-8, may be empty).
    pub view_name: String,
    /// The peers, index 0 first.
    pub peers: Vec<PeerEntry>,
}

impl PeerIndexTable {
    /// Appends the whole record (common header included) stamped `timestamp`. Every
    /// Peer AS is written 4 octets wide.
    ///
    /// # Errors
    /// [`codec::EncodeError::OutOfRange`] for a view name or a peer list over 65,535.
    pub fn encode(&self, timestamp: u32, w: &mut Writer) -> Result<(), codec::EncodeError> {
        let mut body = Writer::with_capacity(8 + self.view_name.len() + self.peers.len() * 25);
        body.bytes(&self.collector_id.octets());
        body.u16_prefixed("View Name", self.view_name.as_bytes())?;
        body.u16_count("Peer Count", self.peers.len(), 0..=usize::from(u16::MAX))?;
        for p in &self.peers {
            match p.ip {
                IpAddr::V4(a) => {
                    body.u8(PEER_AS4);
                    body.bytes(&p.bgp_id.octets());
                    body.bytes(&a.octets());
                }
                IpAddr::V6(a) => {
                    body.u8(PEER_AS4 | PEER_IPV6);
                    body.bytes(&p.bgp_id.octets());
                    body.bytes(&a.octets());
                }
            }
            body.u32_be(p.asn);
        }
        MrtRecord {
            timestamp,
            microseconds: None,
            mrt_type: TABLE_DUMP_V2,
            subtype: PEER_INDEX_TABLE,
            body: &body.into_bytes(),
        }
        .encode(w)
    }

    /// The table of a TABLE_DUMP_V2 PEER_INDEX_TABLE record; `Ok(None)` for any other
    /// record.
    ///
    /// # Errors
    /// [`DecodeError`] for a body cut short, a View Name that is not UTF-8, or bytes
    /// left after the last peer.
    pub fn decode(record: &MrtRecord<'_>) -> Result<Option<PeerIndexTable>, DecodeError> {
        if record.mrt_type != TABLE_DUMP_V2 || record.subtype != PEER_INDEX_TABLE {
            return Ok(None);
        }
        let mut r = Reader::new(record.body);
        let collector_id = Ipv4Addr::from(r.array::<4>("Collector BGP ID")?);
        let view_name = std::str::from_utf8(r.u16_prefixed("View Name")?)
            .map_err(|_| DecodeError::Invalid {
                field: "View Name",
                reason: "not UTF-8",
            })?
            .to_owned();
        let count = r.u16_be("Peer Count")?;
        let mut peers = Vec::with_capacity(usize::from(count).min(r.remaining() / 7));
        for _ in 0..count {
            let kind = r.u8("Peer Type")?;
            let bgp_id = Ipv4Addr::from(r.array::<4>("Peer BGP ID")?);
            let ip = if kind & PEER_IPV6 != 0 {
                IpAddr::V6(Ipv6Addr::from(r.array::<16>("Peer IP Address")?))
            } else {
                IpAddr::V4(Ipv4Addr::from(r.array::<4>("Peer IP Address")?))
            };
            let asn = if kind & PEER_AS4 != 0 {
                r.u32_be("Peer AS")?
            } else {
                u32::from(r.u16_be("Peer AS")?)
            };
            peers.push(PeerEntry { bgp_id, ip, asn });
        }
        r.finish("PEER_INDEX_TABLE")?;
        Ok(Some(PeerIndexTable {
            collector_id,
            view_name,
            peers,
        }))
    }
}

/// One route of a [`RibRecord`]: the peer it came from and its attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RibEntry<'a> {
    /// Index of the peer in the [`PeerIndexTable`].
    pub peer_index: u16,
    /// When the route was received, seconds since 1970-01-01 UTC.
    pub originated: u32,
    /// The BGP attributes, as [`rib_attributes`] makes them (§4.3.4).
    pub attributes: &'a [u8],
}

/// A RIB_IPV4_UNICAST or RIB_IPV6_UNICAST record: every route of one prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RibRecord<'a> {
    /// Incremented by one for each RIB record of a dump, from 0 (§4.3.2).
    pub sequence: u32,
    /// The prefix; its family picks the subtype.
    pub prefix: Prefix,
    /// Its routes.
    pub entries: Vec<RibEntry<'a>>,
}

impl<'a> RibRecord<'a> {
    /// Appends the whole record (common header included) stamped `timestamp`.
    ///
    /// # Errors
    /// [`codec::EncodeError::OutOfRange`] for more than 65,535 entries, attributes
    /// over 65,535 octets, or a record over the MRT length limit.
    pub fn encode(&self, timestamp: u32, w: &mut Writer) -> Result<(), codec::EncodeError> {
        let size: usize = self.entries.iter().map(|e| 8 + e.attributes.len()).sum();
        let mut body = Writer::with_capacity(23 + size);
        body.u32_be(self.sequence);
        self.prefix.encode(&mut body);
        body.u16_count("Entry Count", self.entries.len(), 0..=usize::from(u16::MAX))?;
        for e in &self.entries {
            body.u16_be(e.peer_index);
            body.u32_be(e.originated);
            body.u16_prefixed("Attribute Length", e.attributes)?;
        }
        MrtRecord {
            timestamp,
            microseconds: None,
            mrt_type: TABLE_DUMP_V2,
            subtype: match self.prefix.afi() {
                Afi::Ipv4 => RIB_IPV4_UNICAST,
                _ => RIB_IPV6_UNICAST,
            },
            body: &body.into_bytes(),
        }
        .encode(w)
    }

    /// The routes of a RIB_IPV4_UNICAST or RIB_IPV6_UNICAST record; `Ok(None)` for
    /// any other record (the multicast and generic subtypes too).
    ///
    /// # Errors
    /// [`DecodeError`] for a body cut short, a bad prefix, or bytes left after the
    /// last entry.
    pub fn decode(record: &MrtRecord<'a>) -> Result<Option<RibRecord<'a>>, DecodeError> {
        let afi = match (record.mrt_type, record.subtype) {
            (TABLE_DUMP_V2, RIB_IPV4_UNICAST) => Afi::Ipv4,
            (TABLE_DUMP_V2, RIB_IPV6_UNICAST) => Afi::Ipv6,
            _ => return Ok(None),
        };
        let mut r = Reader::new(record.body);
        let sequence = r.u32_be("Sequence Number")?;
        let prefix = Prefix::read(&mut r, afi)?;
        let count = r.u16_be("Entry Count")?;
        let mut entries = Vec::with_capacity(usize::from(count).min(r.remaining() / 8));
        for _ in 0..count {
            entries.push(RibEntry {
                peer_index: r.u16_be("Peer Index")?,
                originated: r.u32_be("Originated Time")?,
                attributes: r.u16_prefixed("BGP Attributes")?,
            });
        }
        r.finish("RIB record")?;
        Ok(Some(RibRecord {
            sequence,
            prefix,
            entries,
        }))
    }
}

/// The attributes of a RIB entry (§4.3.4) from the Path Attributes field of a
/// received UPDATE, each as received but: MP_REACH_NLRI cut to its Next Hop Address
/// Length and Next Hop Address (the prefix is the record's, AFI and SAFI its
/// subtype's), MP_UNREACH_NLRI left out (it withdraws, it is no route's).
/// `replace` gives other values for some types (AS_PATH with 4-octet AS numbers from
/// a 2-octet session, §4.3.4: "AS_PATH ... MUST be 4-byte"): `Some(bytes)` is the
/// whole new attribute, `None` drops it.
///
/// # Errors
/// [`DecodeError`] for an attribute list that does not frame.
pub fn rib_attributes(
    path_attributes: &[u8],
    replace: &dyn Fn(u8) -> Option<Option<Vec<u8>>>,
) -> Result<Vec<u8>, DecodeError> {
    let mut out = Writer::with_capacity(path_attributes.len());
    let mut r = Reader::new(path_attributes);
    while r.remaining() > 0 {
        let a = RawAttribute::read(&mut r)?;
        if let Some(new) = replace(a.type_code) {
            if let Some(bytes) = new {
                out.bytes(&bytes);
            }
            continue;
        }
        if a.type_code == u8::from(AttrType::MpUnreachNlri) {
            continue;
        }
        if a.type_code != u8::from(AttrType::MpReachNlri) {
            out.bytes(a.bytes);
            continue;
        }
        // AFI (2), SAFI (1), then Length of Next Hop and the Next Hop.
        let mut v = Reader::new(a.value);
        v.take(3, "MP_REACH_NLRI AFI and SAFI")?;
        let next_hop = v.u8_prefixed("MP_REACH_NLRI next hop")?;
        let mut value = Writer::with_capacity(1 + next_hop.len());
        value.u8(next_hop.len() as u8);
        value.bytes(next_hop);
        out.bytes(&attribute(a.flags.0, a.type_code, &value.into_bytes()));
    }
    Ok(out.into_bytes())
}

/// One attribute: flags (Extended Length set exactly when the value needs it), type
/// and value.
pub fn attribute(flags: u8, type_code: u8, value: &[u8]) -> Vec<u8> {
    const EXTENDED: u8 = 0x10;
    let mut w = Writer::with_capacity(4 + value.len());
    if value.len() > 255 {
        w.u8(flags | EXTENDED);
        w.u8(type_code);
        // Attribute values are at most 65,535 octets: they come from one.
        w.u16_be(value.len().min(usize::from(u16::MAX)) as u16);
    } else {
        w.u8(flags & !EXTENDED);
        w.u8(type_code);
        w.u8(value.len() as u8);
    }
    w.bytes(&value[..value.len().min(usize::from(u16::MAX))]);
    w.into_bytes()
}

/// The BGP UPDATE message (header included) that announces `prefix` with the
/// attributes of a RIB entry: in an MP_REACH_NLRI rebuilt from the abbreviated one
/// (§4.3.4) with the prefix's AFI, SAFI 1 and the prefix, where the entry has one (every
/// IPv6 route, and IPv4 BGPsec routes: RFC 8205 §3 puts the prefix there); else (IPv4
/// with NEXT_HOP) in the NLRI field. So that a route of a RIB dump can be decoded and
/// validated as the UPDATE that brought it.
///
/// # Errors
/// [`DecodeError`] for attributes that do not frame, an IPv6 entry without its
/// MP_REACH_NLRI, or a message over 65,535 octets.
pub fn update_of(prefix: &Prefix, attributes: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let mut attrs = Writer::with_capacity(attributes.len() + 24);
    let mut r = Reader::new(attributes);
    let mut mp = false;
    while r.remaining() > 0 {
        let a = RawAttribute::read(&mut r)?;
        if a.type_code != u8::from(AttrType::MpReachNlri) {
            attrs.bytes(a.bytes);
            continue;
        }
        let mut v = Reader::new(a.value);
        // The abbreviated form; a full one (first octet 0: an AFI) is taken as it is.
        let value = if a.value.first() == Some(&0) {
            a.value.to_vec()
        } else {
            let next_hop = v.u8_prefixed("MP_REACH_NLRI next hop")?;
            let mut w = Writer::new();
            w.u16_be(match prefix.afi() {
                Afi::Ipv4 => 1,
                _ => 2,
            });
            w.u8(1);
            w.u8(next_hop.len() as u8);
            w.bytes(next_hop);
            w.u8(0);
            prefix.encode(&mut w);
            w.into_bytes()
        };
        attrs.bytes(&attribute(a.flags.0, a.type_code, &value));
        mp = true;
    }
    if prefix.afi() != Afi::Ipv4 && !mp {
        return Err(DecodeError::Invalid {
            field: "RIB_IPV6_UNICAST entry",
            reason: "no MP_REACH_NLRI for its next hop (RFC 6396 §4.3.4)",
        });
    }
    let attrs = attrs.into_bytes();
    let mut body = Writer::with_capacity(attrs.len() + 40);
    body.u16_be(0);
    let too_long = |_| DecodeError::Invalid {
        field: "UPDATE",
        reason: "over 65,535 octets",
    };
    body.u16_prefixed("Path Attributes", &attrs)
        .map_err(too_long)?;
    if !mp {
        prefix.encode(&mut body);
    }
    let body = body.into_bytes();
    let length = u16::try_from(19 + body.len()).map_err(|_| DecodeError::Invalid {
        field: "UPDATE",
        reason: "over 65,535 octets",
    })?;
    let mut m = Writer::with_capacity(usize::from(length));
    m.bytes(&[0xff; 16]);
    m.u16_be(length);
    m.u8(2);
    m.bytes(&body);
    Ok(m.into_bytes())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::packet::{AsWidth, Message};

    fn record(bytes: &[u8]) -> MrtRecord<'_> {
        MrtRecord::read(&mut Reader::new(bytes)).unwrap()
    }

    #[test]
    fn peer_index_table_on_commented_bytes_and_back() {
        let table = PeerIndexTable {
            collector_id: Ipv4Addr::new(192, 0, 2, 1),
            view_name: "v".into(),
            peers: vec![
                PeerEntry {
                    bgp_id: Ipv4Addr::new(10, 0, 0, 2),
                    ip: "192.0.2.2".parse().unwrap(),
                    asn: 65_002,
                },
                PeerEntry {
                    bgp_id: Ipv4Addr::new(10, 0, 0, 3),
                    ip: "2001:db8::3".parse().unwrap(),
                    asn: 4_200_000_000,
                },
            ],
        };
        let mut w = Writer::new();
        table.encode(7, &mut w).unwrap();
        let bytes = w.into_bytes();
        #[rustfmt::skip]
        let want_head = [
            0, 0, 0, 7,         // timestamp
            0, 13, 0, 1,        // TABLE_DUMP_V2, PEER_INDEX_TABLE
            0, 0, 0, 47,        // length: 4 + 2 + 1 + 2 + 13 + 25
            192, 0, 2, 1,       // collector BGP ID
            0, 1, b'v',         // view name
            0, 2,               // peer count
            2,                  // peer type: IPv4, 4-octet AS
            10, 0, 0, 2,        // BGP ID
            192, 0, 2, 2,       // address
            0, 0, 0xfd, 0xea,   // AS 65002
            3,                  // peer type: IPv6, 4-octet AS
        ];
        assert_eq!(&bytes[..want_head.len()], &want_head);
        assert_eq!(bytes.len(), 12 + 47);
        assert_eq!(
            PeerIndexTable::decode(&record(&bytes)).unwrap(),
            Some(table)
        );
        for cut in 12..bytes.len() {
            let mut short = bytes[..cut].to_vec();
            short[8..12].copy_from_slice(&((cut - 12) as u32).to_be_bytes());
            assert!(PeerIndexTable::decode(&record(&short)).is_err(), "{cut}");
        }
    }

    /// An IPv6 UPDATE's attributes: ORIGIN, AS_PATH 65001, MP_REACH_NLRI (next hop 2001:db8::1,
    /// 2001:db8:1::/48), an unknown optional attribute, MP_UNREACH_NLRI.
    fn v6_attributes() -> Vec<u8> {
        let mut a = vec![0x40, 1, 1, 0, 0x40, 2, 6, 2, 1, 0, 0, 0xfd, 0xe9];
        let mut mp = vec![0, 2, 1, 16];
        mp.extend("2001:db8::1".parse::<Ipv6Addr>().unwrap().octets());
        mp.extend([0, 48, 0x20, 0x01, 0x0d, 0xb8, 0, 1]);
        a.extend(attribute(0x80, 14, &mp));
        a.extend([0xc0, 99, 2, 0xab, 0xcd]);
        a.extend(attribute(0x80, 15, &[0, 2, 1, 32, 0x20, 0x01, 0x0d, 0xb8]));
        a
    }

    #[test]
    fn rib_attributes_abbreviate_mp_reach_and_update_of_restores_it() {
        let attrs = rib_attributes(&v6_attributes(), &|_| None).unwrap();
        let mut want = vec![
            0x40, 1, 1, 0, 0x40, 2, 6, 2, 1, 0, 0, 0xfd, 0xe9, 0x80, 14, 17, 16,
        ];
        want.extend("2001:db8::1".parse::<Ipv6Addr>().unwrap().octets());
        want.extend([0xc0, 99, 2, 0xab, 0xcd]);
        assert_eq!(attrs, want);
        let prefix = Prefix::new("2001:db8:1::".parse().unwrap(), 48).unwrap();
        let rib = RibRecord {
            sequence: 3,
            prefix,
            entries: vec![RibEntry {
                peer_index: 1,
                originated: 99,
                attributes: &attrs,
            }],
        };
        let mut w = Writer::new();
        rib.encode(100, &mut w).unwrap();
        let bytes = w.into_bytes();
        assert_eq!(&bytes[4..8], &[0, 13, 0, 4]);
        let back = RibRecord::decode(&record(&bytes)).unwrap().unwrap();
        assert_eq!(back, rib);
        let message = update_of(&back.prefix, back.entries[0].attributes).unwrap();
        let Message::Update(u) = Message::decode(&message, AsWidth::Four).unwrap() else {
            panic!("not an UPDATE");
        };
        assert_eq!(u.announced().collect::<Vec<_>>(), vec![prefix]);
        // A replaced attribute, a dropped one.
        let swapped = rib_attributes(&v6_attributes(), &|t| match t {
            1 => Some(Some(vec![0x40, 1, 1, 2])),
            99 => Some(None),
            _ => None,
        })
        .unwrap();
        assert_eq!(&swapped[..4], &[0x40, 1, 1, 2]);
        assert_eq!(swapped.len(), 4 + 9 + 3 + 17);
    }

    #[test]
    fn ipv4_rib_records_round_trip_and_bad_ones_are_errors() {
        let attrs = [0x40, 1, 1, 0, 0x40, 3, 4, 192, 0, 2, 9];
        let prefix = Prefix::new("198.51.100.0".parse().unwrap(), 24).unwrap();
        let rib = RibRecord {
            sequence: 0,
            prefix,
            entries: vec![
                RibEntry {
                    peer_index: 0,
                    originated: 5,
                    attributes: &attrs,
                };
                2
            ],
        };
        let mut w = Writer::new();
        rib.encode(6, &mut w).unwrap();
        let bytes = w.into_bytes();
        assert_eq!(&bytes[4..8], &[0, 13, 0, 2]);
        assert_eq!(RibRecord::decode(&record(&bytes)).unwrap(), Some(rib));
        for cut in 12..bytes.len() {
            let mut short = bytes[..cut].to_vec();
            short[8..12].copy_from_slice(&((cut - 12) as u32).to_be_bytes());
            assert!(RibRecord::decode(&record(&short)).is_err(), "{cut}");
        }
        let message = update_of(&prefix, &attrs).unwrap();
        assert_eq!(&message[message.len() - 4..], &[24, 198, 51, 100]);
        // An IPv4 route with an MP_REACH_NLRI (a BGPsec one, RFC 8205 §3): the prefix
        // goes back into it, none in the NLRI field.
        let mp4 = [0x40, 1, 1, 0, 0x80, 14, 5, 4, 192, 0, 2, 9];
        let message = update_of(&prefix, &mp4).unwrap();
        assert_eq!(
            &message[message.len() - 16..],
            &[0x80, 14, 13, 0, 1, 1, 4, 192, 0, 2, 9, 0, 24, 198, 51, 100]
        );
        assert!(update_of(
            &Prefix::new("2001:db8::".parse().unwrap(), 32).unwrap(),
            &attrs
        )
        .is_err());
        assert!(rib_attributes(&[0x40, 1, 5, 0], &|_| None).is_err());
        let mut other = bytes.clone();
        other[7] = 3; // RIB_IPV4_MULTICAST
        assert_eq!(RibRecord::decode(&record(&other)).unwrap(), None);
        assert_eq!(PeerIndexTable::decode(&record(&other)).unwrap(), None);
    }
}
