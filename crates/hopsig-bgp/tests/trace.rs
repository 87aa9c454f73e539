//! BGPsec over the real RIS files (../shared/data/mrt): announcements signed hop by
//! hop and written as MRT (`trace::sign_mrt`), validated back with no false result
//! (`trace::validate_mrt`), every tampered UPDATE rejected, bgpkit-parser reading
//! hopsig's records with the BGPsec_PATH octets intact, and `trace::view` printing
//! the RIS messages exactly as bgpkit-parser does.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Read;

use bgpkit_parser::models::{ElemType, MetaCommunity};
use bgpkit_parser::BgpkitParser;
use hopsig_bgp::mrt::bgp4mp::{Bgp4mpMessage, MrtRecord, Records};
use hopsig_bgp::mrt::decompressed;
use hopsig_bgp::packet::{
    AsWidth, AttrType, AttributeValue, Message, MpReachNlri, PathAttribute, Prefix,
};
use hopsig_bgp::suite::ECDSA_P256_SHA256;
use hopsig_bgp::trace::validate::{validate_record, Outcome};
use hopsig_bgp::trace::view::{elems, Session};
use hopsig_bgp::trace::{sign_mrt, validate_mrt, Keyring, SignOptions, SignReport, Skip};
use hopsig_bgp::{Peer, RouterKeys, Validator};
use hopsig_primitives::codec::Reader;

/// Signs `name` (at most `limit` announcements) with fresh suite 1 keys.
fn sign(name: &str, limit: Option<u64>) -> (Vec<u8>, SignReport, Keyring) {
    let file = std::fs::File::open(common::mrt_file(name)).unwrap();
    let mut out = Vec::new();
    let mut ring = Keyring::new(&ECDSA_P256_SHA256);
    let options = SignOptions {
        default_target_as: 12_654,
        limit,
        threads: 2,
    };
    let report = sign_mrt(
        decompressed(file).unwrap(),
        &mut out,
        &mut ring,
        &options,
        &mut |_| {},
    )
    .unwrap();
    (out, report, ring)
}

/// Every record's octets.
fn records(signed: &[u8]) -> Vec<Vec<u8>> {
    Records::new(signed).map(Result::unwrap).collect()
}

/// The BGP message and the validator's peer of one signed record.
fn message_of(record: &[u8]) -> (Vec<u8>, Peer) {
    let mrt = MrtRecord::read(&mut Reader::new(record)).unwrap();
    let m = Bgp4mpMessage::decode(&mrt).unwrap().unwrap();
    assert_eq!(m.width, AsWidth::Four);
    (m.message.to_vec(), Peer::external(m.local_as, m.peer_as))
}

#[test]
fn ris_2010_signed_then_validated_with_no_false_result() {
    let (signed, report, ring) = sign("ris-updates.20100722.2015.gz", None);
    eprintln!("{report:?}");
    // The file's announcements (bgpkit-parser: 5,067 of 2,193 records).
    assert_eq!(report.records, 2_193);
    assert_eq!(report.announcements, 5_067);
    assert_eq!(report.withdrawals, 547);
    assert_eq!(
        report.updates + report.skipped_total(),
        report.announcements
    );
    assert!(
        report.updates > 4_900 && report.ipv6 > 0 && report.prepended > 500,
        "{report:?}"
    );
    assert_eq!(report.keys_generated as usize, ring.len());
    let keys: RouterKeys = ring.router_keys();
    let done = validate_mrt(signed.as_slice(), &keys, 2, &mut |_| {}).unwrap();
    assert_eq!(done.records, report.updates);
    assert_eq!(done.updates, report.updates);
    assert_eq!(done.valid, report.updates, "{:?}", done.first_failures);
    assert_eq!(done.signatures, report.signatures);
    assert!(done.not_valid.is_empty() && done.skipped.is_empty());
    // Without the keys, nothing is valid: every UPDATE fails at step 2.
    let none = validate_mrt(signed.as_slice(), &RouterKeys::new(), 1, &mut |_| {}).unwrap();
    assert_eq!(none.valid, 0);
    assert_eq!(none.not_valid.get("no_key"), Some(&report.updates));
    // Keys of another run: the SKIs differ, so no key is found either.
    let (_, _, other) = sign("ris-updates.20100722.2015.gz", Some(50));
    let wrong = validate_mrt(signed.as_slice(), &other.router_keys(), 2, &mut |_| {}).unwrap();
    assert_eq!(wrong.valid, 0);
}

#[test]
fn ris_2016_beacons_from_the_collectors_as_are_skipped_as_loops() {
    let (signed, report, ring) = sign("ris-updates.20160811.1600.gz", Some(8_000));
    assert_eq!(report.announcements, 8_000);
    // RIS beacons originate from AS 12654, the collector's own AS.
    assert!(
        report
            .skipped
            .get(&Skip::TargetOnPath)
            .copied()
            .unwrap_or(0)
            > 0,
        "{report:?}"
    );
    let done = validate_mrt(signed.as_slice(), &ring.router_keys(), 2, &mut |_| {}).unwrap();
    assert_eq!(done.valid, report.updates, "{:?}", done.first_failures);
    assert_eq!(done.not_valid_total(), 0);
}

/// A sample of signed UPDATEs: every byte of the BGPsec_PATH attribute (header and
/// value) flipped, each Secure_Path AS changed, the prefix changed — never 'Valid'.
#[test]
fn every_tampered_update_is_rejected() {
    let (signed, report, ring) = sign("ris-updates.20070211.0141.gz", Some(3_000));
    let keys = ring.router_keys();
    let validator = Validator::new(&keys);
    let all = records(&signed);
    assert_eq!(all.len() as u64, report.updates);
    // Every 101st UPDATE, and the first five IPv6 ones.
    let ipv6 = all.iter().filter(|r| {
        let (m, _) = message_of(r);
        matches!(Message::decode(&m, AsWidth::Four), Ok(Message::Update(u)) if u.mp_reach().unwrap().afi() == hopsig_bgp::packet::Afi::Ipv6)
    });
    let sample: Vec<_> = all.iter().step_by(101).chain(ipv6.take(5)).collect();
    let (mut tampered, mut resigned, mut v4, mut v6) = (0usize, 0, 0, 0);
    for record in sample {
        let (message, peer) = message_of(record);
        assert!(validator.message(&message, &peer).is_valid());
        let Message::Update(u) = Message::decode(&message, AsWidth::Four).unwrap() else {
            panic!("not an UPDATE");
        };
        // The BGPsec_PATH attribute is the last one: find its octets in the message.
        let attr = u.attribute(AttrType::BgpsecPath).unwrap();
        let mut w = hopsig_primitives::codec::Writer::new();
        attr.encode(&mut w, AsWidth::Four).unwrap();
        let octets = w.into_bytes();
        let at = message.len() - octets.len();
        assert_eq!(&message[at..], &octets[..]);
        // The flags octet: the Optional and Transitive bits, which must match the
        // type (RFC 7606 §3 c), and the Extended Length bit, which frames the rest.
        // The Partial and unused bits are ignored on receipt (RFC 7606 §3 c, RFC 4271
        // §4.3) and outside the signatures: flipping them leaves the UPDATE 'Valid'.
        for flip in [0x80u8, 0x40, 0x10] {
            let mut m = message.clone();
            m[at] ^= flip;
            assert!(
                !validator.message(&m, &peer).is_valid(),
                "flags ^ {flip:#x}"
            );
            tampered += 1;
        }
        for flip in [0x20u8, 0x01] {
            let mut m = message.clone();
            m[at] ^= flip;
            assert!(validator.message(&m, &peer).is_valid(), "flags ^ {flip:#x}");
        }
        // Type code, length and every octet of the value.
        for i in at + 1..message.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut m = message.clone();
                m[i] ^= flip;
                assert!(
                    !validator.message(&m, &peer).is_valid(),
                    "byte {i} ^ {flip:#x}"
                );
                tampered += 1;
            }
        }
        // Any AS of the Secure_Path, as bytes: every segment's AS number + 1, and the
        // AS of another key holder.
        let path = u.bgpsec_path().unwrap();
        for (k, seg) in path.secure_path().iter().enumerate() {
            let other_holder = ring.public_keys()[0].asn();
            for asn in [seg.asn.wrapping_add(1), other_holder] {
                if asn == seg.asn {
                    continue;
                }
                // Segment k's AS number: 4 header octets, 2 Secure_Path Length
                // octets, then 6 octets per segment, its AS last.
                let mut m = message.clone();
                let off = at + 4 + 2 + 6 * k + 2;
                m[off..off + 4].copy_from_slice(&asn.to_be_bytes());
                let mut peer = peer;
                if k == 0 {
                    // Check 2 would catch the newest AS; a validator that skips it
                    // (no peer AS known) must reject the signature.
                    peer.peer_as = None;
                }
                assert!(
                    !validator.message(&m, &peer).is_valid(),
                    "AS of segment {k}"
                );
                tampered += 1;
            }
        }
        // An AS that signs without verifying (RFC 8205 §8, lazy verification) adds a
        // valid newest signature over a path tampered before it: each older
        // signature with a flipped octet, each older AS changed. The newest
        // signature verifies; the older one must not.
        if path.secure_path().len() > 1 {
            let newest = path.secure_path()[0];
            let signer = ring.signer(newest.asn).unwrap();
            let nlri = hopsig_bgp::SignedNlri::of_update(&u).unwrap();
            let block = &path.signature_blocks()[0];
            for k in 1..path.secure_path().len() {
                for change_as in [false, true] {
                    let mut segments = path.secure_path()[1..].to_vec();
                    let mut sigs: Vec<_> = block.segments[1..]
                        .iter()
                        .cloned()
                        .map(hopsig_bgp::packet::SignatureSegment::into_owned)
                        .collect();
                    if change_as {
                        segments[k - 1].asn = segments[k - 1].asn.wrapping_add(1);
                    } else {
                        let mut sig = sigs[k - 1].signature.to_vec();
                        let last = sig.len() - 1;
                        sig[last] ^= 1;
                        sigs[k - 1].signature = sig.into();
                    }
                    let received = hopsig_bgp::packet::BgpsecPath::new(
                        segments,
                        vec![hopsig_bgp::packet::SignatureBlock {
                            suite: 1,
                            segments: sigs,
                        }],
                    )
                    .unwrap();
                    let mut chain = hopsig_bgp::Chain::received(&received, nlri, signer).unwrap();
                    chain
                        .forward(
                            signer,
                            &hopsig_bgp::Hop {
                                pcount: newest.pcount,
                                ..hopsig_bgp::Hop::to(peer.local_as)
                            },
                        )
                        .unwrap();
                    let mut forged = u.clone();
                    for a in &mut forged.attributes {
                        if let AttributeValue::BgpsecPath(_) = a.value() {
                            let p = chain.path().unwrap();
                            *a = PathAttribute::new(AttributeValue::BgpsecPath(p), AsWidth::Four)
                                .unwrap();
                        }
                    }
                    let m = Message::Update(forged).encoding(AsWidth::Four).unwrap();
                    match validator.message(&m, &peer) {
                        hopsig_bgp::Validation::NotValid(hopsig_bgp::NotValid::Signatures(f)) => {
                            // Segment K is the newest, re-signed. Every older
                            // hop's octets hold every segment older than it and its
                            // target AS (Figure 8), so validation stops at K − 1.
                            let at = path.secure_path().len() - 1;
                            assert!(
                                matches!(f[0].fault, hopsig_bgp::BlockFault::BadSignature { segment, .. } | hopsig_bgp::BlockFault::NoKey { segment, .. } if segment == at),
                                "{f:?}"
                            );
                        }
                        other => panic!("re-signed over a tampered segment {k}: {other:?}"),
                    }
                    tampered += 1;
                    resigned += 1;
                }
            }
        }
        // The prefix: every bit within its length flipped, the length one shorter
        // and one longer.
        let reach = u.mp_reach().unwrap();
        let prefix = reach.nlri()[0];
        match prefix.addr() {
            std::net::IpAddr::V4(_) => v4 += 1,
            std::net::IpAddr::V6(_) => v6 += 1,
        }
        let mut others = Vec::new();
        let bits = prefix.length();
        for bit in 0..bits {
            let addr = match prefix.addr() {
                std::net::IpAddr::V4(a) => {
                    std::net::IpAddr::V4((u32::from(a) ^ (1 << (31 - bit))).into())
                }
                std::net::IpAddr::V6(a) => {
                    std::net::IpAddr::V6((u128::from(a) ^ (1 << (127 - bit))).into())
                }
            };
            others.push(Prefix::new(addr, bits).unwrap());
        }
        let max = if prefix.addr().is_ipv4() { 32 } else { 128 };
        for len in [bits.wrapping_sub(1), bits + 1] {
            if len <= max {
                others.push(Prefix::new(prefix.addr(), len).unwrap());
            }
        }
        for p in others {
            if p == prefix {
                continue; // /0 shortened is itself
            }
            let mut changed = u.clone();
            for a in &mut changed.attributes {
                if let AttributeValue::MpReachNlri(m) = a.value() {
                    let mp = MpReachNlri::new(m.safi(), m.next_hop(), vec![p]).unwrap();
                    *a =
                        PathAttribute::new(AttributeValue::MpReachNlri(mp), AsWidth::Four).unwrap();
                }
            }
            let m = Message::Update(changed).encoding(AsWidth::Four).unwrap();
            assert!(!validator.message(&m, &peer).is_valid(), "prefix {p:?}");
            tampered += 1;
        }
        // The next hop is not signed (RFC 8205 §4.2 signs AFI, SAFI and NLRI only).
        let mut hop = u.clone();
        for a in &mut hop.attributes {
            if let AttributeValue::MpReachNlri(m) = a.value() {
                let nh = match m.next_hop() {
                    hopsig_bgp::packet::NextHop::V4(_) => {
                        hopsig_bgp::packet::NextHop::V4("203.0.113.9".parse().unwrap())
                    }
                    _ => hopsig_bgp::packet::NextHop::V6("2001:db8::9".parse().unwrap()),
                };
                let mp = MpReachNlri::new(m.safi(), nh, m.nlri().to_vec()).unwrap();
                *a = PathAttribute::new(AttributeValue::MpReachNlri(mp), AsWidth::Four).unwrap();
            }
        }
        let m = Message::Update(hop).encoding(AsWidth::Four).unwrap();
        assert!(validator.message(&m, &peer).is_valid());
    }
    eprintln!("{tampered} tampered UPDATEs ({resigned} re-signed by the newest AS), {v4} IPv4 and {v6} IPv6 originals");
    assert!(
        tampered > 10_000 && resigned > 50 && v4 > 20 && v6 >= 5,
        "{tampered} {resigned} {v4} {v6}"
    );
}

/// validate_record says why: the reason names of a few kinds of damage.
#[test]
fn reasons_name_the_failed_step() {
    let (signed, _, ring) = sign("ris-updates.20100722.2015.gz", Some(40));
    let keys = ring.router_keys();
    let validator = Validator::new(&keys);
    let record = records(&signed).swap_remove(0);
    assert!(matches!(validate_record(&record, &validator), Outcome::Valid(n) if n > 0));
    // The last octet is in the newest signature.
    let mut bad = record.clone();
    *bad.last_mut().unwrap() ^= 1;
    assert!(matches!(
        validate_record(&bad, &validator),
        Outcome::NotValid("bad_signature", _)
    ));
    // The record's peer AS (octets 12..16) is no longer the newest signer's.
    let mut peer = record.clone();
    peer[15] ^= 1;
    assert!(matches!(
        validate_record(&peer, &validator),
        Outcome::NotValid("peer_as", _)
    ));
    // The record's local AS (16..20) is the newest signature's target.
    let mut local = record.clone();
    local[19] ^= 1;
    assert!(matches!(
        validate_record(&local, &validator),
        Outcome::NotValid("bad_signature", _)
    ));
    // A 2-octet record: no BGPsec.
    let mut two = record.clone();
    two[7] = 1;
    assert!(!matches!(
        validate_record(&two, &validator),
        Outcome::Valid(_)
    ));
    // State change records are skipped.
    let mut state = record.clone();
    state[7] = 5;
    assert_eq!(
        validate_record(&state, &validator),
        Outcome::Skipped("other_record")
    );
    // An unsigned RIS UPDATE announcing routes is not valid.
    let raw = common::bgp4mp_messages("ris-updates.20160811.1600.gz");
    let (_, unsigned) = raw
        .iter()
        .find(|(w, m)| {
            *w == AsWidth::Four
                && matches!(Message::decode(m, AsWidth::Four), Ok(Message::Update(u)) if u.announced().next().is_some())
        })
        .unwrap();
    let mut w = hopsig_primitives::codec::Writer::new();
    Bgp4mpMessage {
        message: unsigned,
        ..Bgp4mpMessage::decode(&MrtRecord::read(&mut Reader::new(&record)).unwrap())
            .unwrap()
            .unwrap()
    }
    .encode(&mut w)
    .unwrap();
    assert!(matches!(
        validate_record(&w.into_bytes(), &validator),
        Outcome::NotValid("unsigned", _)
    ));
}

/// bgpkit-parser reads hopsig's records: one announcement each, with the prefix,
/// peer, next hop, and the BGPsec_PATH octets hopsig wrote as attribute 33.
#[test]
fn bgpkit_reads_hopsig_output_with_attribute_33_intact() {
    let (signed, report, _) = sign("ris-updates.20070211.0141.gz", Some(3_000));
    let ours = records(&signed);
    let theirs: Vec<_> = BgpkitParser::from_reader(signed.as_slice())
        .into_elem_iter()
        .collect();
    assert_eq!(theirs.len() as u64, report.updates);
    assert_eq!(ours.len(), theirs.len());
    for (record, elem) in ours.iter().zip(&theirs) {
        let mrt = MrtRecord::read(&mut Reader::new(record)).unwrap();
        let m = Bgp4mpMessage::decode(&mrt).unwrap().unwrap();
        let Message::Update(u) = Message::decode(m.message, AsWidth::Four).unwrap() else {
            panic!("not an UPDATE");
        };
        let AttributeValue::BgpsecPath(path) = u.attribute(AttrType::BgpsecPath).unwrap().value()
        else {
            panic!("no BGPsec_PATH");
        };
        let mut value = hopsig_primitives::codec::Writer::new();
        path.encode(&mut value).unwrap();
        assert_eq!(elem.elem_type, ElemType::ANNOUNCE);
        let raw: Vec<_> = elem
            .unknown
            .iter()
            .flatten()
            .filter(|a| a.code == 33)
            .collect();
        assert_eq!(raw.len(), 1, "{elem:?}");
        assert_eq!(raw[0].bytes.as_ref(), value.into_bytes().as_slice());
        let prefix = u.mp_reach().unwrap().nlri()[0];
        assert_eq!(elem.prefix.prefix.addr(), prefix.addr());
        assert_eq!(elem.prefix.prefix.prefix_len(), prefix.length());
        assert_eq!(elem.peer_asn.to_u32(), m.peer_as);
        assert_eq!(elem.peer_asn.to_u32(), path.secure_path()[0].asn);
        assert_eq!(elem.peer_ip, m.peer_ip);
        assert_eq!(elem.next_hop, Some(u.mp_reach().unwrap().next_hop().addr()));
        assert_eq!(elem.timestamp, f64::from(m.timestamp));
        assert!(elem.as_path.is_none(), "a BGPsec UPDATE has no AS_PATH");
    }
}

/// `trace::view` prints every BGP4MP message of RIS 2016 exactly as bgpkit-parser
/// prints its elements (extended communities, which view leaves out, aside).
#[test]
fn view_prints_ris_messages_as_bgpkit_does() {
    let name = "ris-updates.20160811.1600.gz";
    let mut raw = Vec::new();
    decompressed(std::fs::File::open(common::mrt_file(name)).unwrap())
        .unwrap()
        .read_to_end(&mut raw)
        .unwrap();
    let mut ours = Vec::new();
    for record in Records::new(raw.as_slice()) {
        let record = record.unwrap();
        let mrt = MrtRecord::read(&mut Reader::new(&record)).unwrap();
        let Some(m) = Bgp4mpMessage::decode(&mrt).unwrap() else {
            continue;
        };
        let Ok(Message::Update(u)) = Message::decode(m.message, m.width) else {
            continue;
        };
        ours.extend(elems(&u, Some(Session::from(&m)), m.width == AsWidth::Four));
    }
    let theirs: Vec<_> = BgpkitParser::from_reader(raw.as_slice())
        .into_elem_iter()
        .collect();
    assert_eq!(ours.len(), theirs.len());
    let without_communities = |line: String| {
        let mut cols: Vec<String> = line.split('|').map(str::to_string).collect();
        cols[10].clear();
        cols.join("|")
    };
    let mut extended = 0;
    for (o, t) in ours.iter().zip(&theirs) {
        let has_extended = t.communities.iter().flatten().any(|c| {
            matches!(
                c,
                MetaCommunity::Extended(_) | MetaCommunity::Ipv6Extended(_)
            )
        });
        if has_extended {
            extended += 1;
            assert_eq!(
                without_communities(o.to_string()),
                without_communities(t.to_string())
            );
        } else {
            assert_eq!(o.to_string(), t.to_string());
        }
    }
    eprintln!(
        "{} elements, {extended} with extended communities",
        ours.len()
    );
    assert!(ours.len() > 40_000);
}

/// Two signing runs of one file give the same counts (signatures differ: ECDSA draws
/// a fresh k), whatever the number of threads.
#[test]
fn threads_do_not_change_what_is_written() {
    let file = || {
        decompressed(std::fs::File::open(common::mrt_file("ris-updates.20100722.2015.gz")).unwrap())
            .unwrap()
    };
    let mut reports = Vec::new();
    for threads in [1, 3] {
        let mut out = Vec::new();
        let mut ring = Keyring::new(&ECDSA_P256_SHA256);
        let options = SignOptions {
            default_target_as: 12_654,
            limit: Some(1_500),
            threads,
        };
        let mut calls = 0;
        let r = sign_mrt(file(), &mut out, &mut ring, &options, &mut |_| calls += 1).unwrap();
        assert!(calls >= 2, "progress after each batch");
        let prefixes: Vec<Vec<Prefix>> = records(&out)
            .iter()
            .map(|rec| {
                let (m, _) = message_of(rec);
                match Message::decode(&m, AsWidth::Four).unwrap() {
                    Message::Update(u) => u.announced().collect(),
                    _ => panic!(),
                }
            })
            .collect();
        reports.push((r, prefixes));
    }
    assert_eq!(reports[0], reports[1]);
}
