//! `[[mrt_dump]]` (issue 26 §3) on a real session: a hopsig speaker AS65300 with an
//! updates dump rotated every 2 s and a table dump every second, fed by two peers by
//! hand on loopback — a BGPsec one (AS65301, signing toward AS65300) and a plain one
//! (AS65302). The updates files hold exactly the UPDATEs sent, byte for byte, in
//! BGP4MP_ET records with non-decreasing times, across at least two files; the last
//! table snapshot holds exactly the speaker's Adj-RIB-In, BGPsec_PATH as sent; and
//! bgpkit-parser (through `hopsig_bgp::trace::Entries`), `hopsig bgpsec inspect`,
//! `hopsig bgpsec validate-mrt` and `hopsig replay` read both kinds of file.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, TcpStream};
use std::path::PathBuf;
use std::time::Duration;

use common::speaker::*;
use common::{stdout, Scratch};
use hopsig_bgp::mrt::bgp4mp::{Bgp4mpMessage, MrtRecord, Records};
use hopsig_bgp::mrt::table_dump_v2::{PeerIndexTable, RibRecord};
use hopsig_bgp::packet::{
    Afi, AsPath, AsWidth, AttributeValue, BgpsecCapability, Capability, Direction, Message,
    MultiprotocolCapability, NextHop, Open, Origin, PathAttribute, Prefix, RawAttribute, Update,
};
use hopsig_bgp::trace::{Entries, Entry};
use hopsig_bgp::{Chain, Hop, SignedNlri, Signer};
use hopsig_primitives::codec::Reader;

const SUITE: &str = "ecdsa-p256-sha256";
const LOCAL: u32 = 65_300;
const SIGNED: u32 = 65_301;
const PLAIN: u32 = 65_302;
const SPEAKER: &str = "127.0.31.1";
const SIGNED_AT: &str = "127.0.31.2";
const PLAIN_AT: &str = "127.0.31.3";

fn prefix(s: &str) -> Prefix {
    let (a, l) = s.split_once('/').unwrap();
    Prefix::new(a.parse::<IpAddr>().unwrap(), l.parse().unwrap()).unwrap()
}

/// A BGPsec UPDATE of `p` originated by AS65301 toward AS65300, with its key in `s`.
fn signed_update(s: &Scratch, p: &str) -> Vec<u8> {
    let suite = hopsig_bgp::suite::by_name(SUITE).unwrap();
    let text = std::fs::read(s.path(&format!("as{SIGNED}-{SUITE}.key"))).unwrap();
    let signer = Signer::new(SIGNED)
        .with_key(suite, suite.signing_key_from_file(&text).unwrap())
        .unwrap();
    let p = prefix(p);
    let chain = Chain::originate(&signer, SignedNlri::unicast(p), &Hop::to(LOCAL)).unwrap();
    let next_hop = NextHop::V4(SIGNED_AT.parse().unwrap());
    let update = bgpsec_update(chain.path().unwrap(), p, next_hop);
    Message::Update(update).encoding(AsWidth::Four).unwrap()
}

/// A plain UPDATE from AS65302: `announced` with path [65302], `withdrawn`.
fn plain_update(announced: &[&str], withdrawn: &[&str]) -> Vec<u8> {
    let attr = |v| PathAttribute::new(v, AsWidth::Four).unwrap();
    let attributes = if announced.is_empty() {
        vec![]
    } else {
        vec![
            attr(AttributeValue::Origin(Origin::Igp)),
            attr(AttributeValue::AsPath(AsPath::sequence(vec![PLAIN]))),
            attr(AttributeValue::NextHop(PLAIN_AT.parse().unwrap())),
        ]
    };
    let update = Update {
        withdrawn: withdrawn.iter().map(|p| prefix(p)).collect(),
        attributes,
        nlri: announced.iter().map(|p| prefix(p)).collect(),
    };
    Message::Update(update).encoding(AsWidth::Four).unwrap()
}

/// The BGPsec peer by hand: BGPsec both ways for IPv4, Hold Time 0; Established.
fn bgpsec_peer(to: &str) -> TcpStream {
    let mut caps = vec![Capability::Multiprotocol(MultiprotocolCapability {
        afi: 1,
        reserved: 0,
        safi: 1,
    })];
    for d in [Direction::Send, Direction::Receive] {
        caps.push(Capability::Bgpsec(BgpsecCapability::new(d, Afi::Ipv4)));
    }
    let mut c = raw_client(SIGNED_AT, to);
    assert_eq!(read_message(&mut c)[18], 1, "the speaker's OPEN");
    let open = Open::new(SIGNED, 0, Ipv4Addr::new(192, 0, 2, 201), caps);
    c.write_all(&Message::Open(open).encoding(AsWidth::Four).unwrap())
        .unwrap();
    assert_eq!(read_message(&mut c)[18], 4, "KEEPALIVE after a good OPEN");
    c.write_all(&KEEPALIVE).unwrap();
    c
}

/// The files of `dir` whose names start with `stem`, in name (so time) order.
fn files(dir: &PathBuf, stem: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    let name = p.file_name().unwrap().to_string_lossy().into_owned();
                    name.starts_with(stem) && name.ends_with(".mrt")
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn records(path: &PathBuf) -> Vec<Vec<u8>> {
    Records::new(std::fs::File::open(path).unwrap())
        .map(Result::unwrap)
        .collect()
}

/// The BGPsec_PATH attribute (whole) among `attributes`.
fn bgpsec_attribute(attributes: &[u8]) -> Option<Vec<u8>> {
    let mut r = Reader::new(attributes);
    while r.remaining() > 0 {
        let a = RawAttribute::read(&mut r).unwrap();
        if a.type_code == 33 {
            return Some(a.bytes.to_vec());
        }
    }
    None
}

/// The BGPsec_PATH attribute of a whole UPDATE message.
fn bgpsec_of_message(m: &[u8]) -> Option<Vec<u8>> {
    let mut r = Reader::new(&m[19..]);
    r.u16_prefixed("withdrawn").unwrap();
    bgpsec_attribute(r.u16_prefixed("attributes").unwrap())
}

#[test]
fn dumps_of_a_real_session_read_back_exactly() {
    let s = Scratch::new();
    keys(&s, SUITE, &[LOCAL, SIGNED], &[LOCAL, SIGNED]);
    let port = free_port();
    let mut text = config(
        "a",
        LOCAL,
        SPEAKER,
        Some(port),
        "lazy",
        SUITE,
        "10.31.0.0/16",
        &[
            Nb {
                address: SIGNED_AT,
                port: 179,
                remote_as: SIGNED,
                passive: true,
                bgpsec: true,
            },
            Nb {
                address: PLAIN_AT,
                port: 179,
                remote_as: PLAIN,
                passive: true,
                bgpsec: false,
            },
        ],
    );
    text += "[[mrt_dump]]\ndump_type = \"updates\"\nfile_name = \"dump/updates.%Y%m%d.%H%M%S.mrt\"\nrotation_interval = 2\n\
             [[mrt_dump]]\ndump_type = \"table\"\nfile_name = \"dump/rib.%Y%m%d.%H%M%S.mrt\"\ndump_interval = 1\n";
    let _speaker = start(&s, "a", text);
    let dir = s.path("dump");
    let to = format!("{SPEAKER}:{port}");
    // The status file comes once the speaker listens.
    wait_for(&s, "the speaker to start", || status(&s, "a").is_some());
    let mut signed = bgpsec_peer(&to);
    let mut plain = raw_client(PLAIN_AT, &to);
    establish(&mut plain, PLAIN, 0);

    let sent_signed = [
        signed_update(&s, "10.41.0.0/16"),
        signed_update(&s, "10.42.0.0/16"),
    ];
    let sent_plain = [
        plain_update(&["10.51.0.0/16", "10.52.0.0/16"], &[]),
        plain_update(&[], &["10.52.0.0/16"]),
    ];
    plain.write_all(&sent_plain[0]).unwrap();
    signed.write_all(&sent_signed[0]).unwrap();
    // Past the next 2-second boundary: the second pair goes to another file.
    std::thread::sleep(Duration::from_millis(2200));
    plain.write_all(&sent_plain[1]).unwrap();
    signed.write_all(&sent_signed[1]).unwrap();
    wait_for(&s, "the speaker's Adj-RIB-In", || {
        status(&s, "a").is_some_and(|v| {
            ["10.41.0.0/16", "10.42.0.0/16", "10.51.0.0/16"]
                .iter()
                .all(|p| route(&v, p).is_some())
                && route(&v, "10.52.0.0/16").is_none()
        })
    });

    // The updates files: every UPDATE sent, nothing else, in order per peer.
    let mut got: Vec<Vec<u8>> = vec![];
    wait_for(&s, "four UPDATE records", || {
        got = files(&dir, "updates.").iter().flat_map(records).collect();
        got.len() >= 4
    });
    let updates = files(&dir, "updates.");
    let non_empty = updates.iter().filter(|f| !records(f).is_empty()).count();
    assert!(non_empty >= 2, "rotated: {updates:?}");
    assert_eq!(got.len(), 4);
    let mut by_peer: BTreeMap<IpAddr, Vec<Vec<u8>>> = BTreeMap::new();
    let mut last = (0, 0);
    for bytes in &got {
        let r = MrtRecord::read(&mut Reader::new(bytes)).unwrap();
        assert_eq!(
            (r.mrt_type, r.subtype),
            (17, 4),
            "BGP4MP_ET, BGP4MP_MESSAGE_AS4"
        );
        let when = (r.timestamp, r.microseconds.unwrap());
        assert!(
            when >= last,
            "times do not go back: {when:?} after {last:?}"
        );
        last = when;
        let m = Bgp4mpMessage::decode(&r).unwrap().unwrap();
        assert_eq!(m.local_as, LOCAL);
        assert_eq!(m.local_ip, SPEAKER.parse::<IpAddr>().unwrap());
        let want_as = if m.peer_ip == SIGNED_AT.parse::<IpAddr>().unwrap() {
            SIGNED
        } else {
            PLAIN
        };
        assert_eq!(m.peer_as, want_as);
        by_peer
            .entry(m.peer_ip)
            .or_default()
            .push(m.message.to_vec());
    }
    assert_eq!(by_peer[&SIGNED_AT.parse::<IpAddr>().unwrap()], sent_signed);
    assert_eq!(by_peer[&PLAIN_AT.parse::<IpAddr>().unwrap()], sent_plain);

    // bgpkit-parser reads them: the prefixes announced, the BGPsec paths as AS paths.
    let mut announced = BTreeSet::new();
    for f in &updates {
        for e in Entries::new(std::fs::File::open(f).unwrap()) {
            if let Entry::Announcement(a) = e.unwrap() {
                let path: Vec<u32> = a
                    .as_path
                    .unwrap()
                    .segments
                    .iter()
                    .flat_map(|s| s.asns.clone())
                    .collect();
                announced.insert((a.prefix.to_string(), a.peer_as, path));
            }
        }
    }
    let want: BTreeSet<_> = [
        ("10.41.0.0/16".to_string(), SIGNED, vec![SIGNED]),
        ("10.42.0.0/16".into(), SIGNED, vec![SIGNED]),
        ("10.51.0.0/16".into(), PLAIN, vec![PLAIN]),
        ("10.52.0.0/16".into(), PLAIN, vec![PLAIN]),
    ]
    .into_iter()
    .collect();
    assert_eq!(announced, want);

    // A table snapshot begun after the RIB took the last UPDATE: the second new file.
    let before: BTreeSet<PathBuf> = files(&dir, "rib.").into_iter().collect();
    let mut table_file = None;
    wait_for(&s, "two more table snapshots", || {
        let new: Vec<PathBuf> = files(&dir, "rib.")
            .into_iter()
            .filter(|f| !before.contains(f))
            .collect();
        table_file = new.get(1).cloned();
        table_file.is_some()
    });
    let table_file = table_file.unwrap();
    let rib = records(&table_file);
    let head = MrtRecord::read(&mut Reader::new(&rib[0])).unwrap();
    let table = PeerIndexTable::decode(&head).unwrap().unwrap();
    assert_eq!(table.view_name, format!("AS{LOCAL}"));
    let peers: BTreeSet<(String, u32)> = table
        .peers
        .iter()
        .map(|p| (p.ip.to_string(), p.asn))
        .collect();
    assert_eq!(
        peers,
        [
            (SIGNED_AT.to_string(), SIGNED),
            (PLAIN_AT.to_string(), PLAIN)
        ]
        .into_iter()
        .collect()
    );
    let mut routes = BTreeMap::new();
    for bytes in &rib[1..] {
        let r = MrtRecord::read(&mut Reader::new(bytes)).unwrap();
        let rec = RibRecord::decode(&r).unwrap().unwrap();
        for e in &rec.entries {
            let peer = table.peers[usize::from(e.peer_index)];
            routes.insert(
                rec.prefix.to_string(),
                (peer.asn, bgpsec_attribute(e.attributes)),
            );
        }
    }
    let adj_in: BTreeSet<String> = status(&s, "a").unwrap()["adj_rib_in"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["prefix"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        routes.keys().cloned().collect::<BTreeSet<_>>(),
        adj_in,
        "exactly Adj-RIB-In"
    );
    assert_eq!(
        routes["10.41.0.0/16"],
        (SIGNED, bgpsec_of_message(&sent_signed[0]))
    );
    assert_eq!(
        routes["10.42.0.0/16"],
        (SIGNED, bgpsec_of_message(&sent_signed[1]))
    );
    assert_eq!(routes["10.51.0.0/16"], (PLAIN, None));

    // validate-mrt: the two BGPsec UPDATEs (routes) valid, the plain one unsigned.
    let all = s.path("all-updates.mrt");
    let mut bytes = vec![];
    for f in &updates {
        bytes.extend(std::fs::read(f).unwrap());
    }
    std::fs::write(&all, bytes).unwrap();
    let rpki = s.p("rpki.json");
    for file in [all.clone(), table_file.clone()] {
        let f = file.to_string_lossy().into_owned();
        let o = s.run(&["bgpsec", "validate-mrt", &f, "--keys", &rpki]);
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert!(out.contains(": 3 UPDATEs of"), "{out}");
        assert!(out.contains("valid: 2 (2 signatures)"), "{out}");
        assert!(out.contains("  unsigned: 1"), "{out}");
    }

    // inspect decodes the BGPsec_PATH of both.
    for file in [all.clone(), table_file.clone()] {
        let f = file.to_string_lossy().into_owned();
        let o = s.ok(&["bgpsec", "inspect", &f, "--json"]);
        let mut lines: Vec<serde_json::Value> = stdout(&o)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        // The JSON lines end with the trailer: metadata and counts (docs/spec/json.md).
        let trailer = lines.pop().unwrap();
        assert_eq!(trailer["summary"]["malformed_records"], 0, "{file:?}");
        assert!(trailer["metadata"].is_object(), "{file:?}");
        let secured: Vec<_> = lines
            .iter()
            .filter(|v| !v["bgpsec_path"].is_null())
            .map(|v| v["bgpsec_path"]["secure_path"][0]["asn"].as_u64().unwrap())
            .collect();
        assert_eq!(secured, [u64::from(SIGNED); 2], "{file:?}");
        let prefixes: BTreeSet<String> = lines
            .iter()
            .flat_map(|v| v["elems"].as_array().unwrap().clone())
            .filter(|e| e["type"] == "A")
            .map(|e| e["prefix"].as_str().unwrap().to_string())
            .collect();
        assert!(prefixes.contains("10.41.0.0/16") && prefixes.contains("10.51.0.0/16"));
    }

    // replay takes both: the BGPsec peer's announcements, their paths from BGPsec_PATH.
    for file in [all, table_file] {
        let f = file.to_string_lossy().into_owned();
        let o = s.ok(&[
            "replay",
            &f,
            "--schemes",
            "none",
            "--peer",
            &SIGNED.to_string(),
        ]);
        assert!(stdout(&o).contains("Table IV"), "{}", stdout(&o));
    }
}
