//! hopsig's BGPsec signing and validation against an independent implementation, both
//! ways.
//!
//! `interop/python/bgpsec_reference.py` (its README: `interop/python/bgpsec_reference.md`)
//! was written from RFC 8205, RFC 8608, RFC 8209 and the BGP RFCs alone, with the
//! `cryptography` package for ECDSA; it rebuilds the Figure 8 octets itself. Here:
//!
//! * its self-test (RFC 8608 Appendix A) passes;
//! * UPDATEs hopsig signs — several hops, IPv4 and IPv6, prepending, a route server,
//!   4-octet ASNs, a second (unsupported there) suite — and tampered copies of them go
//!   to the reference in its vector format, each with hopsig's verdict, and it must
//!   reach the same verdict on every one;
//! * the reference's own vectors (`tests/data/bgpsec-ref/*.json`, copied from its
//!   `vectors/`) go to hopsig, which must reach the reference's verdict on every one.
//!
//! Verdicts are the reference's three words (see `bgpsec_common::verdict`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod bgpsec_common;

use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::process::Command;

use bgpsec_common::{data, hexs, json, message, python, root, update, verdict};
use hopsig_bgp::packet::{
    AsWidth, AttrType, AttributeValue, NextHop, Origin, PathAttribute, Prefix, Safi,
};
use hopsig_bgp::suite::{PerSegment, ECDSA_P256_SHA256};
use hopsig_bgp::{
    AlgorithmSuite, Chain, Hop, Peer, RouterKey, RouterKeys, SignedNlri, Signer, Validator,
};
use hopsig_schemes::concat::Rsa2048Pkcs1;
use serde_json::{json, Value};

/// A suite the reference does not implement (n × RSA-2048, experimental identifier):
/// it must ignore its block (RFC 8205 §5.2).
static RSA_TEST: PerSegment<Rsa2048Pkcs1> = PerSegment::new(0xf7, "test-rsa2048-per-segment");

const TARGET: u32 = 65_537;

/// A path's hops, origin first: (AS, pCount).
type Hops = Vec<(u32, u8)>;

fn script() -> std::path::PathBuf {
    root().join("interop/python/bgpsec_reference.py")
}

/// Runs the reference on a vector file; returns its exit code and output.
fn run_reference(py: &str, file: &std::path::Path) -> (i32, String) {
    let out = Command::new(py).arg(script()).arg(file).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn reference_self_test_passes() {
    let Some(py) = python("cryptography") else {
        return;
    };
    let out = Command::new(py)
        .arg(script())
        .arg("--self-test")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(" passed, 0 failed"), "{text}");
}

/// Routers of these ASes, each with a suite-1 key (and an RSA key for `with_rsa`), and
/// the keys in the reference's format.
struct Net {
    signers: HashMap<u32, Signer<'static>>,
    keys: RouterKeys,
    json_keys: Vec<Value>,
}

impl Net {
    fn new(asns: &[u32], with_rsa: &[u32]) -> Net {
        let mut net = Net {
            signers: HashMap::new(),
            keys: RouterKeys::new(),
            json_keys: vec![],
        };
        for &asn in asns {
            let mut signer = Signer::new(asn);
            let mut suites: Vec<&'static dyn AlgorithmSuite> = vec![&ECDSA_P256_SHA256];
            if with_rsa.contains(&asn) {
                suites.push(&RSA_TEST);
            }
            for suite in suites {
                let key = suite.generate().unwrap();
                net.keys.insert(RouterKey::for_suites(
                    asn,
                    *key.ski(),
                    key.spki(),
                    &[&ECDSA_P256_SHA256, &RSA_TEST],
                ));
                net.json_keys.push(json!({
                    "asn": asn,
                    "ski": hex::encode_upper(key.ski()),
                    "pubkey": openssl::base64::encode_block(key.spki()),
                }));
                signer = signer.with_key(suite, key).unwrap();
            }
            net.signers.insert(asn, signer);
        }
        net
    }

    /// The UPDATE of `hops` (AS, pCount) for `nlri`, origin first, the last hop
    /// toward `target`, signed as a chain, as a whole message.
    fn update(&self, hops: &[(u32, u8)], nlri: SignedNlri, target: u32) -> Vec<u8> {
        let hop = |i: usize| Hop {
            target_as: hops.get(i + 1).map_or(target, |h| h.0),
            pcount: hops[i].1,
            confed_segment: false,
        };
        let mut chain = Chain::originate(&self.signers[&hops[0].0], nlri, &hop(0)).unwrap();
        for (i, (asn, _)) in hops.iter().enumerate().skip(1) {
            chain.forward(&self.signers[asn], &hop(i)).unwrap();
        }
        let next_hop = match nlri.afi() {
            hopsig_bgp::packet::Afi::Ipv4 => NextHop::V4(Ipv4Addr::new(192, 0, 2, 254)),
            hopsig_bgp::packet::Afi::Ipv6 => {
                NextHop::V6("2001:db8:ffff::1".parse::<Ipv6Addr>().unwrap())
            }
        };
        let mp =
            hopsig_bgp::packet::MpReachNlri::new(nlri.safi, next_hop, vec![nlri.prefix]).unwrap();
        let u = hopsig_bgp::packet::Update {
            attributes: vec![
                PathAttribute::new(AttributeValue::Origin(Origin::Igp), AsWidth::Four).unwrap(),
                PathAttribute::new(AttributeValue::MpReachNlri(mp), AsWidth::Four).unwrap(),
                PathAttribute::new(
                    AttributeValue::BgpsecPath(chain.path().unwrap()),
                    AsWidth::Four,
                )
                .unwrap(),
            ],
            ..Default::default()
        };
        message(&u)
    }
}

fn prefix(a: &str, len: u8) -> Prefix {
    Prefix::new(a.parse().unwrap(), len).unwrap()
}

/// Where the BGPsec_PATH value starts in a message, and its length.
fn bgpsec_value(bytes: &[u8]) -> std::ops::Range<usize> {
    let u = update(bytes);
    let attr = u.attribute(AttrType::BgpsecPath).unwrap();
    let mut w = hopsig_primitives::codec::Writer::new();
    attr.encode(&mut w, AsWidth::Four).unwrap();
    let encoded = w.into_bytes();
    let start = bytes
        .windows(encoded.len())
        .position(|w| w == encoded)
        .unwrap();
    let header = if encoded[0] & 0x10 != 0 { 4 } else { 3 };
    start + header..start + encoded.len()
}

#[test]
fn the_reference_reaches_hopsigs_verdict_on_what_hopsig_signs() {
    let Some(py) = python("cryptography") else {
        return;
    };
    let asns = [
        64_496,
        65_536,
        64_500,
        64_501,
        64_502,
        65_000,
        4_200_000_000,
    ];
    let net = Net::new(&asns, &[64_501, 64_502]);
    let validator_keys = net.keys.clone();
    let suites: [&dyn AlgorithmSuite; 2] = [&ECDSA_P256_SHA256, &RSA_TEST];
    let both = Validator::with_suites(&suites, &validator_keys);
    let mut updates: Vec<Value> = vec![];
    let mut add = |bytes: &[u8], target: u32, want: &str, comment: String| {
        // hopsig's verdict, with every suite it has; the reference knows suite 1 only,
        // and a path valid under suite 1 is valid under both.
        let got = verdict(&both.message(bytes, &Peer::any_external(target)));
        assert_eq!(got, want, "hopsig on: {comment}");
        updates.push(json!({
            "update": hex::encode(bytes),
            "target_as": target,
            "expected": want,
            "comment": format!("hopsig-signed: {comment}"),
        }));
    };

    let v4 = |a, l| SignedNlri::unicast(prefix(a, l));
    let two_hops = net.update(&[(64_496, 1), (65_536, 1)], v4("192.0.2.0", 24), TARGET);
    let cases: Vec<(Hops, SignedNlri, &str)> = vec![
        (
            vec![(64_496, 1), (65_536, 1)],
            v4("192.0.2.0", 24),
            "IPv4, 2 hops",
        ),
        (
            vec![(64_500, 1), (64_501, 1), (64_502, 1)],
            SignedNlri::unicast(prefix("2001:db8::", 32)),
            "IPv6, 3 hops",
        ),
        (
            vec![
                (64_496, 3),
                (65_536, 1),
                (64_500, 2),
                (64_501, 1),
                (64_502, 1),
                (65_000, 1),
            ],
            v4("198.51.100.0", 22),
            "6 hops, the origin prepending (pCount 3), another AS pCount 2, a /22",
        ),
        (
            vec![(64_496, 1), (65_000, 0), (65_536, 1)],
            v4("203.0.113.0", 24),
            "a route server (pCount 0) in the middle",
        ),
        (
            vec![(4_200_000_000, 1), (64_500, 1)],
            SignedNlri::unicast(prefix("2001:db8::1", 128)),
            "4-octet origin AS, IPv6 /128",
        ),
        (
            vec![(64_500, 1)],
            v4("0.0.0.0", 0),
            "origin only, the default route",
        ),
        (
            vec![(64_500, 2), (64_502, 1)],
            SignedNlri {
                safi: Safi::Multicast,
                prefix: prefix("2001:db8:4000::", 36),
            },
            "IPv6 multicast (SAFI 2), a /36",
        ),
        (
            vec![(64_501, 1), (64_502, 1)],
            v4("192.0.2.0", 25),
            "two Signature_Blocks: suite 1 and an experimental suite 0xF7",
        ),
    ];
    for (hops, nlri, what) in &cases {
        let bytes = net.update(hops, *nlri, TARGET);
        add(&bytes, TARGET, "valid", what.to_string());
        add(
            &bytes,
            65_538,
            "not valid",
            format!("{what}, validated by AS 65538"),
        );
    }

    // Tampered copies of the 2-hop UPDATE, with the verdict the RFCs give.
    let value = bgpsec_value(&two_hops);
    let secure_path = value.start;
    let mut t = |f: &dyn Fn(&mut Vec<u8>), target: u32, want: &str, what: &str| {
        let mut b = two_hops.clone();
        f(&mut b);
        add(&b, target, want, format!("IPv4, 2 hops, {what}"));
    };
    t(
        &|b| b[secure_path + 2 + 2 + 3] ^= 0x10,
        TARGET,
        "not valid",
        "newest AS changed",
    );
    t(
        &|b| b[secure_path + 8 + 2 + 3] ^= 1,
        TARGET,
        "not valid",
        "origin AS changed",
    );
    t(
        &|b| b[secure_path + 2] = 2,
        TARGET,
        "not valid",
        "newest pCount 1 -> 2",
    );
    t(
        &|b| b[secure_path + 2] = 0,
        TARGET,
        "malformed",
        "newest pCount 1 -> 0 (check 7)",
    );
    t(
        &|b| b[secure_path + 3] = 0x80,
        TARGET,
        "malformed",
        "newest Confed_Segment flag (check 5)",
    );
    t(
        &|b| b[secure_path + 9] = 0x01,
        TARGET,
        "not valid",
        "origin unassigned flag bit",
    );
    t(
        &|_| {},
        65_536,
        "malformed",
        "validated by AS 65536, on the path (check 8)",
    );
    t(
        &|b| b.truncate(b.len() - 1),
        TARGET,
        "malformed",
        "last octet cut off",
    );
    t(
        &|b| *b.last_mut().unwrap() ^= 0x40,
        TARGET,
        "not valid",
        "last octet of the origin signature",
    );
    // Every octet of the BGPsec_PATH value, one bit flipped.
    for i in value.clone() {
        let mut b = two_hops.clone();
        b[i] ^= 0x01;
        let got = verdict(&both.message(&b, &Peer::any_external(TARGET)));
        assert_ne!(got, "valid", "octet {i}");
        add(
            &b,
            TARGET,
            got,
            format!(
                "IPv4, 2 hops, octet {} of BGPsec_PATH xor 1",
                i - value.start
            ),
        );
    }

    // The UPDATE as Signer::forward sends it, communities and all.
    let first = net.signers[&64_496]
        .originate(
            SignedNlri::unicast(prefix("2001:db8:1::", 48)),
            NextHop::V6("2001:db8::2".parse().unwrap()),
            vec![
                PathAttribute::new(AttributeValue::Origin(Origin::Egp), AsWidth::Four).unwrap(),
                PathAttribute::with_flags(
                    hopsig_bgp::packet::AttrFlags(0xc0),
                    AttributeValue::Other {
                        type_code: 8,
                        value: vec![0xfb, 0xf0, 0, 1].into(),
                    },
                )
                .unwrap(),
            ],
            &Hop::to(65_536),
        )
        .unwrap();
    let second = net.signers[&65_536]
        .forward(&first, None, &Hop::to(TARGET))
        .unwrap();
    add(
        &message(&first),
        65_536,
        "valid",
        "IPv6 as Signer::originate sends it".into(),
    );
    add(
        &message(&second),
        TARGET,
        "valid",
        "IPv6 as Signer::forward sends it".into(),
    );

    let n = updates.len();
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("hopsig_bgpsec_vectors.json");
    let vectors = json!({"keys": net.json_keys, "updates": updates});
    std::fs::write(&file, serde_json::to_vec_pretty(&vectors).unwrap()).unwrap();
    let (code, text) = run_reference(&py, &file);
    let fails: Vec<&str> = text.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert!(
        fails.is_empty(),
        "the reference disagrees:\n{}",
        fails.join("\n")
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains(&format!("{n} passed, 0 failed")), "{text}");
}

#[test]
fn hopsig_reaches_the_references_verdict_on_its_vectors() {
    let mut disagreements = vec![];
    let mut total = 0;
    for file in [
        "bgpsec_vectors.json",
        "bgpsec_choice_vectors.json",
        "peer_as_extension.json",
        "ambiguous_ski_collision.json",
    ] {
        let v = json(&format!("bgpsec-ref/{file}"));
        let keys: RouterKeys = v["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| {
                let spki = openssl::base64::decode_block(k["pubkey"].as_str().unwrap()).unwrap();
                let ski: [u8; 20] = hexs(&k["ski"]).try_into().unwrap();
                RouterKey::new(k["asn"].as_u64().unwrap() as u32, ski, &spki)
            })
            .collect();
        let validator = Validator::new(&keys);
        for (i, u) in v["updates"].as_array().unwrap().iter().enumerate() {
            total += 1;
            let bytes = hexs(&u["update"]);
            let peer = Peer {
                peer_as: u["peer_as"].as_u64().map(|a| a as u32),
                ..Peer::any_external(u["target_as"].as_u64().unwrap() as u32)
            };
            let got = validator.message(&bytes, &peer);
            let want = u["expected"].as_str().unwrap();
            if verdict(&got) != want {
                disagreements.push(format!(
                    "{file} #{i}: reference {want}, hopsig {} ({got:?}) -- {}",
                    verdict(&got),
                    u["comment"]
                ));
            }
        }
    }
    assert!(
        total > 130,
        "{total} vectors read from {}",
        data("bgpsec-ref").display()
    );
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
