//! The dump thread's writer driven with made-up times: UPDATE records in rotated
//! files, and TABLE_DUMP_V2 snapshots of its Adj-RIB-In, each read back with
//! bgpkit-parser and with hopsig's own decoders.

use std::net::{IpAddr, Ipv6Addr};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bgpkit_parser::models::ElemType;
use bgpkit_parser::BgpkitParser;
use hopsig_primitives::codec::Reader;

use super::*;
use crate::mrt::bgp4mp::{MrtRecord, Records};
use crate::mrt::table_dump_v2::update_of;
use crate::packet::{AsPath, AttributeValue, Message, NextHop, Origin, PathAttribute};
use crate::suite::ECDSA_P256_SHA256;
use crate::{
    AlgorithmSuite, Hop, RouterKey, RouterKeys, SignedNlri, Signer, Validation, Validator,
};

const LOCAL: u32 = 65_100;

fn at(secs: u64, micros: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_micros(secs * 1_000_000 + micros)
}

fn prefix(s: &str) -> Prefix {
    let (a, l) = s.split_once('/').unwrap();
    Prefix::new(a.parse::<IpAddr>().unwrap(), l.parse().unwrap()).unwrap()
}

fn dump(kind: DumpType, name: &Path, rotation: u64, interval: u64) -> MrtDump {
    MrtDump {
        dump_type: kind,
        file_name: name.to_path_buf(),
        rotation_interval: rotation,
        dump_interval: interval,
    }
}

fn peer(id: u64, ip: &str, asn: u32) -> Arc<Peer> {
    let p = Peer::new(id, ip.parse().unwrap(), ip.parse().unwrap(), asn, LOCAL);
    p.bgp_id.store(id as u32, Ordering::Relaxed);
    Arc::new(p)
}

/// An IPv4 UPDATE announcing `prefixes` with path `path`, withdrawing `withdrawn`.
fn announce(path: &[u32], prefixes: &[&str], withdrawn: &[&str]) -> Vec<u8> {
    let attr = |v| PathAttribute::new(v, AsWidth::Four).unwrap();
    let attributes = if prefixes.is_empty() {
        vec![]
    } else {
        vec![
            attr(AttributeValue::Origin(Origin::Igp)),
            attr(AttributeValue::AsPath(AsPath::sequence(path.to_vec()))),
            attr(AttributeValue::NextHop("192.0.2.9".parse().unwrap())),
        ]
    };
    let u = Update {
        withdrawn: withdrawn.iter().map(|p| prefix(p)).collect(),
        attributes,
        nlri: prefixes.iter().map(|p| prefix(p)).collect(),
    };
    Message::Update(u).encoding(AsWidth::Four).unwrap()
}

fn records(path: &Path) -> Vec<Vec<u8>> {
    Records::new(std::fs::File::open(path).unwrap())
        .map(Result::unwrap)
        .collect()
}

/// Updates files: one per rotation period, named by the pattern with the period's
/// start, each UPDATE a BGP4MP_ET BGP4MP_MESSAGE_AS4 record holding the octets
/// received and their time to the microsecond; bgpkit-parser reads them.
#[test]
fn updates_rotate_by_period_and_read_back_with_bgpkit() {
    let dir = tempfile::tempdir().unwrap();
    let pattern = dir.path().join("u/%Y%m%d.%H%M%S.mrt");
    let mut d = Dumper::new(
        &[dump(DumpType::Updates, &pattern, 60, 0)],
        "192.0.2.1".parse().unwrap(),
        LOCAL,
        at(1_000_000_010, 0),
    )
    .unwrap();
    let a = peer(1, "192.0.2.2", 65_002);
    let b = peer(2, "2001:db8::3", 4_200_000_000);
    let m1 = announce(&[65_002], &["198.51.100.0/24", "203.0.113.0/24"], &[]);
    let m2 = announce(&[], &[], &["198.51.100.0/24"]);
    let m3 = announce(&[4_200_000_000, 65_009], &["192.0.2.0/24"], &[]);
    d.update(&a, at(1_000_000_015, 250_000), AsWidth::Four, &m1);
    d.update(&b, at(1_000_000_019, 999_999), AsWidth::Four, &m3);
    // The next minute: a new file.
    d.update(&a, at(1_000_000_021, 7), AsWidth::Four, &m2);
    d.flush();
    // 1_000_000_010 is 2001-09-09 01:46:50 UTC; periods start on whole minutes.
    let first = dir.path().join("u/20010909.014600.mrt");
    let second = dir.path().join("u/20010909.014700.mrt");
    let got: Vec<_> = records(&first);
    assert_eq!(got.len(), 2);
    let r = MrtRecord::read(&mut Reader::new(&got[0])).unwrap();
    assert_eq!((r.mrt_type, r.subtype), (17, 4), "BGP4MP_ET / MESSAGE_AS4");
    assert_eq!(
        (r.timestamp, r.microseconds),
        (1_000_000_015, Some(250_000))
    );
    let m = Bgp4mpMessage::decode(&r).unwrap().unwrap();
    assert_eq!(m.message, &m1[..]);
    assert_eq!((m.peer_as, m.local_as), (65_002, LOCAL));
    let r = MrtRecord::read(&mut Reader::new(&got[1])).unwrap();
    let m = Bgp4mpMessage::decode(&r).unwrap().unwrap();
    assert_eq!(m.peer_ip, "2001:db8::3".parse::<IpAddr>().unwrap());
    assert_eq!(m.peer_as, 4_200_000_000);
    assert_eq!(records(&second).len(), 1);

    let elems: Vec<_> = BgpkitParser::from_reader(std::fs::File::open(&first).unwrap())
        .into_iter()
        .collect();
    assert_eq!(elems.len(), 3);
    assert_eq!(elems[0].prefix.to_string(), "198.51.100.0/24");
    assert_eq!(elems[0].timestamp, 1_000_000_015.25);
    assert_eq!(elems[0].peer_asn.to_u32(), 65_002);
    assert_eq!(
        elems[2].as_path.as_ref().unwrap().to_string(),
        "4200000000 65009"
    );
    let elems: Vec<_> = BgpkitParser::from_reader(std::fs::File::open(&second).unwrap())
        .into_iter()
        .collect();
    assert_eq!(elems.len(), 1);
    assert_eq!(elems[0].elem_type, ElemType::WITHDRAW);
}

/// Table snapshots: the routes received and not withdrawn, of the connections not
/// ended, each entry the attributes as received (MP_REACH_NLRI abbreviated, RFC
/// 6396 §4.3.4) — a BGPsec route's BGPsec_PATH byte for byte, and it still
/// validates as the UPDATE rebuilt from the entry.
#[test]
fn table_snapshots_hold_adj_rib_in_and_bgpsec_routes_validate() {
    let dir = tempfile::tempdir().unwrap();
    let pattern = dir.path().join("rib.%H%M%S.mrt");
    let start = 1_000_000_010;
    let mut d = Dumper::new(
        &[dump(DumpType::Table, &pattern, 0, 10)],
        "192.0.2.1".parse().unwrap(),
        LOCAL,
        at(start, 0),
    )
    .unwrap();
    let (a, b, gone) = (
        peer(1, "192.0.2.2", 65_002),
        peer(2, "2001:db8::3", 65_003),
        peer(3, "192.0.2.4", 65_004),
    );
    d.take(Tapped::Open(Arc::clone(&a)));
    d.update(
        &a,
        at(start + 1, 0),
        AsWidth::Four,
        &announce(&[65_002], &["198.51.100.0/24", "203.0.113.0/24"], &[]),
    );
    d.update(
        &a,
        at(start + 2, 0),
        AsWidth::Four,
        &announce(&[], &[], &["203.0.113.0/24"]),
    );
    // A BGPsec IPv6 route from b, signed toward this AS.
    let key = ECDSA_P256_SHA256.generate().unwrap();
    let mut keys = RouterKeys::new();
    keys.insert(RouterKey::new(65_003, *key.ski(), key.spki()));
    let text = ECDSA_P256_SHA256.secret_key_file(&key).unwrap();
    let signer = Signer::new(65_003)
        .with_key(
            &ECDSA_P256_SHA256,
            ECDSA_P256_SHA256
                .signing_key_from_file(text.as_bytes())
                .unwrap(),
        )
        .unwrap();
    let p6 = prefix("2001:db8:1::/48");
    let origin =
        vec![PathAttribute::new(AttributeValue::Origin(Origin::Igp), AsWidth::Four).unwrap()];
    let signed = signer
        .originate(
            SignedNlri::unicast(p6),
            NextHop::V6("2001:db8::3".parse::<Ipv6Addr>().unwrap()),
            origin,
            &Hop::to(LOCAL),
        )
        .unwrap();
    let signed_bytes = Message::Update(signed.clone())
        .encoding(AsWidth::Four)
        .unwrap();
    d.update(&b, at(start + 3, 0), AsWidth::Four, &signed_bytes);
    // The same prefix from a, and a connection that ended.
    d.update(
        &a,
        at(start + 4, 0),
        AsWidth::Four,
        &announce(&[65_002, 65_003], &["198.51.100.0/24"], &[]),
    );
    d.update(
        &gone,
        at(start + 4, 0),
        AsWidth::Four,
        &announce(&[65_004], &["10.0.0.0/8"], &[]),
    );
    gone.close();
    d.tick(at(start + 9, 0));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "not due yet"
    );
    d.tick(at(start + 10, 5));
    let file = dir.path().join("rib.014700.mrt");
    let got = records(&file);
    assert_eq!(
        got.len(),
        3,
        "peer index table, 198.51.100.0/24, 2001:db8:1::/48"
    );
    let r0 = MrtRecord::read(&mut Reader::new(&got[0])).unwrap();
    let table = PeerIndexTable::decode(&r0).unwrap().unwrap();
    assert_eq!(table.collector_id, "192.0.2.1".parse::<Ipv4Addr>().unwrap());
    assert_eq!(table.view_name, "AS65100");
    let peers: Vec<_> = table
        .peers
        .iter()
        .map(|p| (p.ip.to_string(), p.asn, p.bgp_id))
        .collect();
    assert_eq!(
        peers,
        [
            ("192.0.2.2".into(), 65_002, Ipv4Addr::from(1)),
            ("2001:db8::3".into(), 65_003, Ipv4Addr::from(2))
        ]
    );
    let r1 = MrtRecord::read(&mut Reader::new(&got[1])).unwrap();
    let rib = RibRecord::decode(&r1).unwrap().unwrap();
    assert_eq!((rib.sequence, rib.prefix), (0, prefix("198.51.100.0/24")));
    assert_eq!(rib.entries.len(), 1);
    assert_eq!(
        (rib.entries[0].peer_index, rib.entries[0].originated),
        (0, 1_000_000_014)
    );
    let r2 = MrtRecord::read(&mut Reader::new(&got[2])).unwrap();
    let rib = RibRecord::decode(&r2).unwrap().unwrap();
    assert_eq!(
        (rib.sequence, rib.prefix, rib.entries[0].peer_index),
        (1, p6, 1)
    );
    // The BGPsec_PATH as received.
    let received = path_attributes(&signed_bytes[19..]).unwrap();
    let bgpsec_attr = |attrs: &[u8]| {
        let mut r = Reader::new(attrs);
        let mut found = None;
        while r.remaining() > 0 {
            let a = crate::packet::RawAttribute::read(&mut r).unwrap();
            if a.type_code == 33 {
                found = Some(a.bytes.to_vec());
            }
        }
        found.unwrap()
    };
    assert_eq!(
        bgpsec_attr(rib.entries[0].attributes),
        bgpsec_attr(received)
    );
    // Rebuilt as an UPDATE, it validates at this AS.
    let message = update_of(&rib.prefix, rib.entries[0].attributes).unwrap();
    let Message::Update(u) = Message::decode(&message, AsWidth::Four).unwrap() else {
        panic!("not an UPDATE");
    };
    let v = Validator::new(&keys).update(&u, &crate::Peer::external(LOCAL, 65_003));
    assert!(matches!(v, Validation::Valid { .. }), "{v:?}");
    // validate-mrt takes the dump route by route: the BGPsec one Valid, the plain one
    // unsigned.
    let report =
        crate::trace::validate_mrt(std::fs::File::open(&file).unwrap(), &keys, 2, &mut |_| {})
            .unwrap();
    assert_eq!((report.records, report.updates, report.valid), (3, 2, 1));
    assert_eq!(report.not_valid.get("unsigned"), Some(&1));

    // bgpkit-parser reads the snapshot: two routes, peers and paths as received.
    let elems: Vec<_> = BgpkitParser::from_reader(std::fs::File::open(&file).unwrap())
        .into_iter()
        .collect();
    let mut seen: Vec<_> = elems
        .iter()
        .map(|e| {
            (
                e.prefix.to_string(),
                e.peer_ip.to_string(),
                e.peer_asn.to_u32(),
            )
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            (
                "198.51.100.0/24".to_string(),
                "192.0.2.2".to_string(),
                65_002
            ),
            ("2001:db8:1::/48".into(), "2001:db8::3".into(), 65_003)
        ]
    );
    let v4 = elems
        .iter()
        .find(|e| e.prefix.to_string() == "198.51.100.0/24")
        .unwrap();
    assert_eq!(v4.as_path.as_ref().unwrap().to_string(), "65002 65003");
    let v6 = elems
        .iter()
        .find(|e| e.prefix.to_string() == "2001:db8:1::/48")
        .unwrap();
    assert_eq!(v6.next_hop, Some("2001:db8::3".parse().unwrap()));
    // The next snapshot is due 10 s later; no leftover temporary file.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    d.tick(at(start + 20, 0));
    assert!(dir.path().join("rib.014710.mrt").exists());
}

/// A 2-octet session: BGP4MP_MESSAGE (2-octet AS fields, AS_TRANS for the local AS
/// above 65535), and a table entry whose AS_PATH is AS_PATH merged with AS4_PATH in
/// 4-octet AS numbers (RFC 6396 §4.3.4), AS4_PATH left out.
#[test]
fn two_octet_sessions_dump_as_rfc_6396_says() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = Dumper::new(
        &[
            dump(DumpType::Updates, &dir.path().join("u.mrt"), 0, 0),
            dump(DumpType::Table, &dir.path().join("t.mrt"), 0, 5),
        ],
        "192.0.2.1".parse().unwrap(),
        LOCAL,
        at(100, 0),
    )
    .unwrap();
    let p = Arc::new(Peer::new(
        1,
        "::ffff:192.0.2.2".parse().unwrap(),
        "::ffff:192.0.2.1".parse().unwrap(),
        65_002,
        4_200_000_000,
    ));
    assert_eq!(
        p.peer_ip,
        "192.0.2.2".parse::<IpAddr>().unwrap(),
        "IPv4-mapped taken as IPv4"
    );
    let attr = |v| PathAttribute::new(v, AsWidth::Two).unwrap();
    let as4 = {
        let mut w = Writer::new();
        AsPath::sequence(vec![65_002, 4_200_000_001])
            .encode_as4(&mut w)
            .unwrap();
        attribute(0xc0, 17, &w.into_bytes())
    };
    let u = Update {
        attributes: vec![
            attr(AttributeValue::Origin(Origin::Igp)),
            attr(AttributeValue::AsPath(AsPath::sequence(vec![
                65_002,
                u32::from(AS_TRANS),
            ]))),
            attr(AttributeValue::NextHop("192.0.2.2".parse().unwrap())),
        ],
        nlri: vec![prefix("198.51.100.0/24")],
        ..Update::default()
    };
    let mut m = Message::Update(u).encoding(AsWidth::Two).unwrap();
    // AS4_PATH appended to the Path Attributes and the lengths fixed up.
    let attrs_len = u16::from_be_bytes([m[21], m[22]]) as usize;
    let at_nlri = 23 + attrs_len;
    m.splice(at_nlri..at_nlri, as4.iter().copied());
    let total = m.len() as u16;
    m[16..18].copy_from_slice(&total.to_be_bytes());
    m[21..23].copy_from_slice(&((attrs_len + as4.len()) as u16).to_be_bytes());
    d.update(&p, at(101, 0), AsWidth::Two, &m);
    d.flush();
    d.tick(at(105, 0));
    let got = records(&dir.path().join("u.mrt"));
    let r = MrtRecord::read(&mut Reader::new(&got[0])).unwrap();
    assert_eq!(
        (r.mrt_type, r.subtype),
        (17, 1),
        "BGP4MP_ET / BGP4MP_MESSAGE"
    );
    let b = Bgp4mpMessage::decode(&r).unwrap().unwrap();
    assert_eq!((b.peer_as, b.local_as), (65_002, u32::from(AS_TRANS)));
    assert_eq!(b.message, &m[..]);
    let elems: Vec<_> =
        BgpkitParser::from_reader(std::fs::File::open(dir.path().join("t.mrt")).unwrap())
            .into_iter()
            .collect();
    assert_eq!(elems.len(), 1);
    assert_eq!(
        elems[0].as_path.as_ref().unwrap().to_string(),
        "65002 4200000001"
    );
}

#[test]
fn patterns_are_checked_and_expanded_in_utc() {
    assert_eq!(check_pattern("/var/x/updates.%Y%m%d.%H%M"), Ok(true));
    assert_eq!(check_pattern("/var/x/rib.mrt"), Ok(false));
    assert_eq!(check_pattern("/var/x/100%%.mrt"), Ok(false));
    assert!(check_pattern("/var/x/%Q.mrt").is_err());
    assert_eq!(
        file_name(Path::new("/d/updates.%Y%m%d.%H%M.%s"), 1_000_000_000),
        PathBuf::from("/d/updates.20010909.0146.1000000000")
    );
    assert_eq!(period_start(1_000_000_010, 60), 999_999_960);
    assert_eq!(period_start(125, 60), 120);
}
