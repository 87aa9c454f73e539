//! The examples of RFC 8608 Appendix A, signed and validated: with the RFC's keys
//! (A.2) the IPv4 (A.3) and IPv6 (A.4) UPDATEs from AS 65536 are 'Valid' at AS 65537;
//! the signature input of each hop hashes to the printed digest; and with the RFC's
//! fixed k (A.2, through `hazmat`) hopsig's signer re-creates both signatures of each
//! example, the BGPsec_PATH and the whole UPDATE byte for byte.
//!
//! The vectors are `tests/data/rfc8608_appendix_a.json`, copied from the RFC. The
//! printed UPDATEs carry BGPsec_PATH with type code 30, the value before IANA assigned
//! 33 (RFC 8205 §9; the octets `90 1E`): the tests change that one octet to 0x21.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod bgpsec_common;

use std::borrow::Cow;
use std::net::IpAddr;
use std::path::Path;

use bgpsec_common::{hexs, json, message, rfc_key, update};
use hopsig_bgp::hazmat::danger_suite1_with_nonce;
use hopsig_bgp::packet::{
    AsWidth, AttrFlags, AttributeValue, NextHop, Origin, PathAttribute, Prefix,
};
use hopsig_bgp::router_key::ski_of_spki;
use hopsig_bgp::suite::ECDSA_P256_SHA256;
use hopsig_bgp::{
    AlgorithmSuite, BlockFailure, BlockFault, Chain, Coverage, Hop, NotValid, Peer, RouterKeys,
    SignatureInput, SignedNlri, Signer, Validation, Validator,
};
use hopsig_primitives::hash::sha256;
use serde_json::Value;

const ORIGIN_AS: u32 = 64_496;
const TRANSIT_AS: u32 = 65_536;
const VALIDATOR_AS: u32 = 65_537;

fn vectors() -> Value {
    json("rfc8608_appendix_a.json")
}

/// The printed UPDATE with BGPsec_PATH's type code 30 changed to 33.
fn with_type_33(printed: &[u8]) -> Vec<u8> {
    let at: Vec<usize> = printed
        .windows(2)
        .enumerate()
        .filter(|(_, w)| *w == [0x90, 0x1e])
        .map(|(i, _)| i)
        .collect();
    assert_eq!(at.len(), 1);
    let mut v = printed.to_vec();
    v[at[0] + 1] = 33;
    v
}

fn examples() -> Vec<Value> {
    vectors()["examples"].as_array().unwrap().clone()
}

fn keys() -> RouterKeys {
    vectors()["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| rfc_key(k).1)
        .collect()
}

fn nlri_of(example: &Value) -> SignedNlri {
    let (addr, len) = example["prefix"].as_str().unwrap().split_once('/').unwrap();
    SignedNlri::unicast(Prefix::new(addr.parse().unwrap(), len.parse().unwrap()).unwrap())
}

fn next_hop_of(example: &Value) -> NextHop {
    match example["next_hop"]
        .as_str()
        .unwrap()
        .parse::<IpAddr>()
        .unwrap()
    {
        IpAddr::V4(a) => NextHop::V4(a),
        IpAddr::V6(a) => NextHop::V6(a),
    }
}

#[test]
fn the_vector_file_holds_the_rfc_text() {
    let rfc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/rfc/rfc8608.txt");
    let Ok(text) = std::fs::read_to_string(&rfc) else {
        eprintln!("skipped: {} not found", rfc.display());
        return;
    };
    // The RFC with every blank removed: each printed hex value is then one run.
    let compact: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_uppercase();
    let v = vectors();
    let mut strings = vec![v["k"].clone()];
    for k in v["keys"].as_array().unwrap() {
        strings.extend(["ski", "x", "ux", "uy"].map(|f| k[f].clone()));
    }
    for e in examples() {
        strings.push(e["update_as_printed"].clone());
        for s in e["signatures"].as_array().unwrap() {
            strings.extend(["digest", "signature"].map(|f| s[f].clone()));
        }
    }
    for s in strings {
        let s = s.as_str().unwrap().to_uppercase();
        assert!(compact.contains(&s), "{s} is not in RFC 8608");
    }
}

#[test]
fn the_rfc_keys_have_the_printed_skis() {
    for k in vectors()["keys"].as_array().unwrap() {
        let (signing, router) = rfc_key(k);
        let ski = hexs(&k["ski"]);
        // A.2: the SKI printed is the SHA-1 of the public key's BIT STRING (RFC 8209).
        assert_eq!(ski_of_spki(router.spki()).unwrap().to_vec(), ski);
        assert_eq!(signing.ski().to_vec(), ski, "the SKI of d·G");
        assert_eq!(signing.spki(), router.spki(), "x and (Ux, Uy) are one key");
    }
}

#[test]
fn the_examples_are_valid_at_as_65537() {
    let keys = keys();
    let validator = Validator::new(&keys);
    for e in examples() {
        let printed = hexs(&e["update_as_printed"]);
        let bytes = with_type_33(&printed);
        let peer = Peer::external(VALIDATOR_AS, TRANSIT_AS);
        assert_eq!(
            validator.message(&bytes, &peer),
            Validation::Valid {
                suite: 1,
                failed: vec![]
            },
            "{}",
            e["section"]
        );
        // At another AS the newest signature, made for 65537, fails (step 4, N = 2).
        assert_eq!(
            validator.message(&bytes, &Peer::external(65_538, TRANSIT_AS)),
            Validation::NotValid(NotValid::Signatures(vec![BlockFailure {
                suite: 1,
                fault: BlockFault::BadSignature {
                    segment: 2,
                    asn: TRANSIT_AS
                }
            }]))
        );
        // Without the origin's key, step 2 fails at N = 1.
        let only_transit: RouterKeys = vectors()["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| rfc_key(k).1)
            .filter(|k| k.asn() == TRANSIT_AS)
            .collect();
        let v = Validator::new(&only_transit).message(&bytes, &peer);
        assert!(
            matches!(&v, Validation::NotValid(NotValid::Signatures(f))
                if matches!(f[..], [BlockFailure { fault: BlockFault::NoKey { segment: 1, asn: ORIGIN_AS, .. }, .. }])),
            "{v:?}"
        );
        // As printed, type code 30 is no BGPsec_PATH: the UPDATE lacks AS_PATH and
        // BGPsec_PATH alike, treat-as-withdraw.
        let v = validator.message(&printed, &peer);
        assert!(
            matches!(&v, Validation::NotValid(NotValid::Malformed(_))),
            "{v:?}"
        );
    }
}

#[test]
fn each_hops_signature_input_hashes_to_the_printed_digest() {
    for e in examples() {
        let bytes = with_type_33(&hexs(&e["update_as_printed"]));
        let u = update(&bytes);
        let path = u.bgpsec_path().unwrap();
        let nlri = SignedNlri::of_update(&u).unwrap();
        assert_eq!(nlri, nlri_of(&e));
        let input =
            SignatureInput::of_path(path, 1, &nlri, Coverage::WholeSegment, VALIDATOR_AS).unwrap();
        let sigs = e["signatures"].as_array().unwrap();
        // Hop 1: AS 64496 to AS 65536; hop 2: AS 65536 to AS 65537.
        for (n, s) in [(1, &sigs[0]), (2, &sigs[1])] {
            assert_eq!(
                sha256(&[input.hop(n).unwrap()]).to_vec(),
                hexs(&s["digest"]),
                "{} hop {n}",
                e["section"]
            );
        }
        // The digest pins the order and the octets of Figure 8: hop 2's octets are
        // Target ‖ Signature Segment 1 (SKI ‖ Signature Length ‖ Signature, 94 octets)
        // ‖ Secure_Path Segment 2 ‖ Secure_Path Segment 1 ‖ suite, AFI, SAFI, NLRI.
        // Neither the Secure_Path Segment first nor the Signature alone gives it.
        let hop2 = input.hop(2).unwrap();
        let (target, rest) = hop2.split_at(4);
        let (sig1, rest) = rest.split_at(94);
        let (sp2, tail) = rest.split_at(6);
        assert_eq!(
            sha256(&[target, sig1, sp2, tail]).to_vec(),
            hexs(&sigs[1]["digest"])
        );
        for other in [
            sha256(&[target, sp2, sig1, tail]),
            sha256(&[target, &sig1[22..], sp2, tail]),
        ] {
            assert_ne!(other.to_vec(), hexs(&sigs[1]["digest"]));
        }
    }
}

#[test]
fn the_fixed_k_recreates_both_signatures_the_path_and_the_update_byte_for_byte() {
    let v = vectors();
    let k: [u8; 32] = hexs(&v["k"]).try_into().unwrap();
    let fixed = danger_suite1_with_nonce(k);
    let signer = |i: usize| {
        let (key, router) = rfc_key(&v["keys"][i]);
        Signer::new(router.asn()).with_key(&fixed, key).unwrap()
    };
    let (origin, transit) = (signer(0), signer(1));
    assert_eq!((origin.asn(), transit.asn()), (ORIGIN_AS, TRANSIT_AS));
    let keys = keys();
    for e in examples() {
        let expected_bytes = with_type_33(&hexs(&e["update_as_printed"]));
        let expected = update(&expected_bytes);
        let sigs = e["signatures"].as_array().unwrap();
        let nlri = nlri_of(&e);

        // AS 64496 originates toward AS 65536 with ORIGIN INCOMPLETE and MED 0, as the
        // example's UPDATE carries them.
        let med = PathAttribute::with_flags(
            AttrFlags(0x80),
            AttributeValue::Other {
                type_code: 4,
                value: Cow::Owned(vec![0; 4]),
            },
        )
        .unwrap();
        let origin_attr =
            PathAttribute::new(AttributeValue::Origin(Origin::Incomplete), AsWidth::Four).unwrap();
        let first = origin
            .originate(
                nlri,
                next_hop_of(&e),
                vec![med.clone(), origin_attr],
                &Hop::to(TRANSIT_AS),
            )
            .unwrap();
        let first_path = first.bgpsec_path().unwrap();
        assert_eq!(
            first_path.signature_blocks()[0].segments[0]
                .signature
                .to_vec(),
            hexs(&sigs[0]["signature"]),
            "{}: AS 64496's signature",
            e["section"]
        );
        assert_eq!(
            Validator::new(&keys).message(&message(&first), &Peer::external(TRANSIT_AS, ORIGIN_AS)),
            Validation::Valid {
                suite: 1,
                failed: vec![]
            }
        );

        // AS 65536 forwards it to AS 65537.
        let second = transit
            .forward(&first, Some(next_hop_of(&e)), &Hop::to(VALIDATOR_AS))
            .unwrap();
        let path = second.bgpsec_path().unwrap();
        let segments = &path.signature_blocks()[0].segments;
        assert_eq!(segments[0].signature.to_vec(), hexs(&sigs[1]["signature"]));
        assert_eq!(segments[1].signature.to_vec(), hexs(&sigs[0]["signature"]));
        assert_eq!(path, expected.bgpsec_path().unwrap(), "{}", e["section"]);
        // The same path, signed as a chain.
        let mut chain = Chain::originate(&origin, nlri, &Hop::to(TRANSIT_AS)).unwrap();
        chain.forward(&transit, &Hop::to(VALIDATOR_AS)).unwrap();
        assert_eq!(&chain.path().unwrap(), path);

        // forward() does not pass MED on to another AS (RFC 4271 §5.1.4); the example's
        // generator did, and wrote BGPsec_PATH with the Extended Length flag although
        // it is 205 octets (flags 0x90). With those two differences put back, the whole
        // UPDATE is the RFC's.
        assert!(second.attributes.iter().all(|a| a.type_code() != 4));
        let mut attributes = second.attributes.clone();
        attributes.insert(1, med);
        let last = attributes.len() - 1;
        attributes[last] =
            PathAttribute::with_flags(AttrFlags(0x90), attributes[last].value().clone()).unwrap();
        let rebuilt = hopsig_bgp::packet::Update {
            attributes,
            ..second.clone()
        };
        assert_eq!(message(&rebuilt), expected_bytes, "{}", e["section"]);
    }
}

#[test]
fn fixed_k_signing_is_the_hazmat_path_only() {
    // The production suite draws k inside OpenSSL: two signatures of the same input
    // differ, and both verify.
    let v = vectors();
    let (key, router) = rfc_key(&v["keys"][0]);
    let keys: RouterKeys = [router].into_iter().collect();
    let signer = Signer::new(ORIGIN_AS)
        .with_key(&ECDSA_P256_SHA256, key)
        .unwrap();
    let nlri = nlri_of(&examples()[0]);
    let a = signer.sign_path(None, nlri, &Hop::to(TRANSIT_AS)).unwrap();
    let b = signer.sign_path(None, nlri, &Hop::to(TRANSIT_AS)).unwrap();
    assert_ne!(a, b);
    for p in [&a, &b] {
        assert!(Validator::new(&keys)
            .path(p, &nlri, &Peer::external(TRANSIT_AS, ORIGIN_AS))
            .is_valid());
    }
    assert_eq!(ECDSA_P256_SHA256.name(), "ecdsa-p256-sha256");
}
