//! The experimental suites of docs/spec/bgpsec-bgr.md end to end: 0xF7 (BGR's lazy
//! sequential aggregate) and 0xF8 (n × RSA-2048) sign and validate paths of 1–15 hops
//! through the same signing and validation code as suite 1; their BGPsec_PATH sizes are
//! the spec's formulas (§11); a router that signs an invalid aggregate without
//! verifying it leaves it invalid (§8); ill-formed blocks are refused by the signer and
//! Not Valid for the validator (§3, §5, §6); tampering is never 'Valid'; two blocks
//! (suite 1 and 0xF7) follow RFC 8205 §5.2; several keys per (AS, SKI) (§6); and the
//! test vectors of docs/spec/vectors/bgpsec-bgr.json, re-signed to the byte here and
//! checked by the independent interop/python/bgpsec_bgr_reference.py.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod bgpsec_common;

use std::borrow::Cow;
use std::sync::OnceLock;

use bgpsec_common::{message, root};
use hopsig_bgp::packet::{
    read_prefixes, Afi, AsWidth, AttrType, AttributeValue, BgpsecPath, NextHop, Origin,
    PathAttribute, Safi, SignatureSegment,
};
use hopsig_bgp::suite::{
    default_suites, BGR_RSA2048, ECDSA_P256_SHA256, RSA2048_PKCS1_SHA256, SUITES,
};
use hopsig_bgp::{
    AlgorithmSuite, BlockFailure, BlockFault, Chain, Coverage, Hop, NotValid, Peer, RouterKey,
    RouterKeys, SignError, SignatureInput, SignedNlri, Signer, Unsigned, Validation, Validator,
};
use hopsig_primitives::codec::Writer;
use hopsig_primitives::rsa::RsaSecretKey;
use hopsig_schemes::bgr::{BgrParams, BgrSigningKey};
use proptest::prelude::*;
use serde_json::{json, Value};

const TARGET: u32 = 65_537;
const BGR: u8 = 0xf7;
const RSA: u8 = 0xf8;

/// Routers of `asns`, each with a fresh key of every suite of `suites`, their router
/// keys (parsed by every suite hopsig has) added to `keys`.
fn routers_into(
    asns: &[u32],
    suites: &[&'static dyn AlgorithmSuite],
    keys: &mut RouterKeys,
) -> Vec<Signer<'static>> {
    asns.iter()
        .map(|&asn| {
            suites.iter().fold(Signer::new(asn), |signer, suite| {
                let key = suite.generate().unwrap();
                keys.insert(RouterKey::new(asn, *key.ski(), key.spki()));
                signer.with_key(*suite, key).unwrap()
            })
        })
        .collect()
}

/// As [`routers_into`], with a store of their keys alone.
fn routers(
    asns: &[u32],
    suites: &[&'static dyn AlgorithmSuite],
) -> (Vec<Signer<'static>>, RouterKeys) {
    let mut keys = RouterKeys::new();
    let signers = routers_into(asns, suites, &mut keys);
    (signers, keys)
}

/// The router key of `signer`'s key of suite `suite`, as the RPKI would list it.
fn router_key(signer: &Signer<'_>, suite: u8) -> RouterKey {
    let (_, key) = signer.key(suite).unwrap();
    RouterKey::new(signer.asn(), *key.ski(), key.spki())
}

/// The path signed by `signers` in turn (origin first) with these pCounts, the last
/// toward `target`.
fn chain(signers: &[Signer<'_>], pcounts: &[u8], nlri: SignedNlri, target: u32) -> Chain {
    let hop = |i: usize| Hop {
        target_as: signers.get(i + 1).map_or(target, Signer::asn),
        pcount: pcounts[i],
        confed_segment: false,
    };
    let mut c = Chain::originate(&signers[0], nlri, &hop(0)).unwrap();
    for (i, s) in signers.iter().enumerate().skip(1) {
        c.forward(s, &hop(i)).unwrap();
    }
    c
}

/// A validator of every suite hopsig has, the experimental ones included.
fn experiment(keys: &RouterKeys) -> Validator<'_> {
    Validator::with_suites(SUITES, keys)
}

fn encoded(path: &BgpsecPath<'_>) -> Vec<u8> {
    let mut w = Writer::new();
    path.encode(&mut w).unwrap();
    w.into_bytes()
}

fn v4(a: &str, len: u8) -> SignedNlri {
    SignedNlri::unicast(hopsig_bgp::packet::Prefix::new(a.parse().unwrap(), len).unwrap())
}

fn valid(suite: u8) -> Validation {
    Validation::Valid {
        suite,
        failed: vec![],
    }
}

fn not_valid(failures: &[(u8, BlockFault)]) -> Validation {
    Validation::NotValid(NotValid::Signatures(
        failures
            .iter()
            .map(|(suite, fault)| BlockFailure {
                suite: *suite,
                fault: fault.clone(),
            })
            .collect(),
    ))
}

/// The path with block `suite`'s segment `segment` (1 = origin) changed by `f`.
fn with_segment(
    path: &BgpsecPath<'_>,
    suite: u8,
    segment: usize,
    f: impl FnOnce(&mut Vec<u8>),
) -> BgpsecPath<'static> {
    let (secure_path, mut blocks) = path.clone().into_owned().into_parts();
    let k = secure_path.len();
    let block = blocks.iter_mut().find(|b| b.suite == suite).unwrap();
    let s = &mut block.segments[k - segment];
    let mut sig = s.signature.to_vec();
    f(&mut sig);
    s.signature = Cow::Owned(sig);
    BgpsecPath::new(secure_path, blocks).unwrap()
}

#[test]
fn paths_of_1_to_15_hops_sign_validate_and_have_the_specs_sizes() {
    let asns: Vec<u32> = (0..15).map(|i| 64_500 + i).collect();
    let nlris = [v4("198.51.100.0", 22), {
        let p = hopsig_bgp::packet::Prefix::new("2001:db8:4000::".parse().unwrap(), 34).unwrap();
        SignedNlri::unicast(p)
    }];
    let mut sizes = vec![];
    for suite in [
        &BGR_RSA2048 as &'static dyn AlgorithmSuite,
        &RSA2048_PKCS1_SHA256,
        &ECDSA_P256_SHA256,
    ] {
        let (signers, keys) = routers(&asns, &[suite]);
        let id = suite.id();
        for nlri in nlris {
            for n in 1..=15 {
                let pcounts: Vec<u8> = (0..n).map(|i| if i % 4 == 0 { 2 } else { 1 }).collect();
                let path = chain(&signers[..n], &pcounts, nlri, TARGET).path().unwrap();
                let peer = Peer::external(TARGET, asns[n - 1]);
                assert_eq!(
                    experiment(&keys).path(&path, &nlri, &peer),
                    valid(id),
                    "suite {id}, {n} hops"
                );
                // The newest signature names TARGET: at another AS the block fails.
                let elsewhere =
                    experiment(&keys).path(&path, &nlri, &Peer::external(1, asns[n - 1]));
                assert!(!elsewhere.is_valid(), "suite {id}, {n} hops: {elsewhere:?}");
                // Measured size against bgpsec-bgr.md §11.
                let len = encoded(&path).len();
                match id {
                    BGR => {
                        assert_eq!(len, 293 + 45 * n);
                        assert_eq!(elsewhere, not_valid(&[(BGR, BlockFault::BadAggregate)]));
                    }
                    RSA => assert_eq!(len, 5 + 284 * n),
                    _ => {
                        let der: usize = path.signature_blocks()[0]
                            .segments
                            .iter()
                            .map(|s| s.signature.len())
                            .sum();
                        assert_eq!(len, 5 + 6 * n + 22 * n + der);
                        assert!(der >= 68 * n && der <= 72 * n, "{der}");
                    }
                }
                if nlri == nlris[0] {
                    sizes.push((id, n, len));
                }
                // Outside an experiment the experimental suites are unsupported
                // (RFC 8608 §2.1): the route is treated as unsigned.
                let default = Validator::new(&keys).path(&path, &nlri, &peer);
                if id == 1 {
                    assert_eq!(default, valid(1));
                } else {
                    assert_eq!(
                        default,
                        Validation::NotValid(NotValid::Unsigned(Unsigned::NoSupportedSuite(vec![
                            id
                        ])))
                    );
                }
            }
        }
    }
    eprintln!("BGPsec_PATH value octets (IPv4, one block): suite, n, octets");
    for (id, n, len) in sizes {
        eprintln!("{id:#04x} {n:2} {len}");
    }
}

#[test]
fn the_default_suites_leave_out_the_experimental_ids() {
    let ids: Vec<u8> = SUITES.iter().map(|s| s.id()).collect();
    assert_eq!(ids, [1, BGR, RSA]);
    let default: Vec<u8> = default_suites().iter().map(|s| s.id()).collect();
    assert_eq!(default, [1]);
    assert_eq!(BGR_RSA2048.coverage(), Coverage::SkiOnly);
    assert_eq!(RSA2048_PKCS1_SHA256.coverage(), Coverage::WholeSegment);
    assert_eq!(
        hopsig_bgp::suite::by_name("bgr-rsa2048").map(|s| s.id()),
        Some(BGR)
    );
}

/// A 4-hop 0xF7 path, its routers and keys, and the route.
struct Lazy {
    signers: Vec<Signer<'static>>,
    keys: RouterKeys,
    nlri: SignedNlri,
}

fn lazy() -> &'static Lazy {
    static L: OnceLock<Lazy> = OnceLock::new();
    L.get_or_init(|| {
        let (signers, keys) = routers(&[64_496, 65_536, 64_500, 64_501], &[&BGR_RSA2048]);
        Lazy {
            signers,
            keys,
            nlri: v4("203.0.113.0", 24),
        }
    })
}

#[test]
fn signing_an_invalid_aggregate_without_verifying_it_leaves_it_invalid() {
    let l = lazy();
    let two = chain(&l.signers[..2], &[1, 1], l.nlri, 64_500)
        .path()
        .unwrap();
    let at = |asn, k| Peer::external(asn, k);
    assert_eq!(
        experiment(&l.keys).path(&two, &l.nlri, &at(64_500, 65_536)),
        valid(BGR)
    );
    // Well-formed but invalid aggregates: h_2, x_2, r_1, b_1 and r_2 changed.
    let spoiled: Vec<BgpsecPath<'static>> = vec![
        with_segment(&two, BGR, 2, |s| s[300] ^= 1),
        with_segment(&two, BGR, 2, |s| s[20] ^= 4),
        with_segment(&two, BGR, 1, |s| s[0] ^= 0x80),
        with_segment(&two, BGR, 1, |s| s[16] ^= 1),
        with_segment(&two, BGR, 2, |s| s[15] ^= 1),
    ];
    for bad in spoiled {
        let verdict = experiment(&l.keys).path(&bad, &l.nlri, &at(64_500, 65_536));
        assert_eq!(verdict, not_valid(&[(BGR, BlockFault::BadAggregate)]));
        // Routers 3 and 4 sign it without a look at any key but their own (lazy
        // verification, bgpsec-bgr.md §8) — and it stays Not Valid at every hop.
        let mut c = Chain::received(&bad, l.nlri, &l.signers[2]).unwrap();
        c.forward(&l.signers[2], &Hop::to(64_501)).unwrap();
        let three = c.path().unwrap();
        assert_eq!(
            experiment(&l.keys).path(&three, &l.nlri, &at(64_501, 64_500)),
            not_valid(&[(BGR, BlockFault::BadAggregate)])
        );
        c.forward(&l.signers[3], &Hop::to(TARGET)).unwrap();
        assert_eq!(
            experiment(&l.keys).path(&c.path().unwrap(), &l.nlri, &at(TARGET, 64_501)),
            not_valid(&[(BGR, BlockFault::BadAggregate)])
        );
        // Signing changed only the two newest segments: the earlier parts travel on.
        let sig = |p: &BgpsecPath<'_>, n: usize| {
            let b = p.block(BGR).unwrap();
            b.segments[b.segments.len() - n].signature.to_vec()
        };
        assert_eq!(sig(&three, 1), sig(&bad, 1));
        assert_eq!(sig(&three, 2), sig(&bad, 2)[..17]);
    }
    // Honest signing keeps a valid aggregate valid, hop after hop (the chain of the
    // sizes test), and is deterministic (RFC 8205 §7.4).
    let a = chain(&l.signers, &[1, 1, 1, 1], l.nlri, TARGET)
        .path()
        .unwrap();
    let b = chain(&l.signers, &[1, 1, 1, 1], l.nlri, TARGET)
        .path()
        .unwrap();
    assert_eq!(a, b);
    assert_eq!(
        experiment(&l.keys).path(&a, &l.nlri, &at(TARGET, 64_501)),
        valid(BGR)
    );
}

#[test]
fn an_ill_formed_block_is_refused_by_the_signer_and_not_valid_for_the_validator() {
    let l = lazy();
    let two = chain(&l.signers[..2], &[1, 1], l.nlri, 64_500)
        .path()
        .unwrap();
    let cases: Vec<(BgpsecPath<'static>, usize)> = vec![
        (with_segment(&two, BGR, 2, |s| s.truncate(304)), 2),
        (with_segment(&two, BGR, 2, |s| s.push(0)), 2),
        (with_segment(&two, BGR, 2, |s| s[16] = 2), 2),
        (with_segment(&two, BGR, 2, |s| s[17] |= 0x80), 2), // x_2 ∉ D
        (with_segment(&two, BGR, 1, |s| s.push(0)), 1),
        (with_segment(&two, BGR, 1, |s| s.truncate(16)), 1),
        (with_segment(&two, BGR, 1, |s| s[16] = 0xff), 1),
        // The origin's segment still carries its aggregate: 305 octets, not 17.
        (with_segment(&two, BGR, 1, |s| s.resize(305, 0)), 1),
    ];
    for (bad, segment) in cases {
        let asn = [64_496, 65_536][segment - 1];
        assert_eq!(
            experiment(&l.keys).path(&bad, &l.nlri, &Peer::external(64_500, 65_536)),
            not_valid(&[(BGR, BlockFault::BadSignature { segment, asn })]),
            "segment {segment}"
        );
        let err = l.signers[2]
            .sign_path(Some(&bad), l.nlri, &Hop::to(TARGET))
            .unwrap_err();
        assert!(
            matches!(err, SignError::IllFormedBlock { suite: BGR, segment: s, .. } if s == segment),
            "{err}"
        );
    }
    // Step 2 comes first, newest segment first: a missing key is blamed before a
    // malformed older segment.
    let mut keys = RouterKeys::new();
    keys.insert(router_key(&l.signers[0], BGR));
    let bad = with_segment(&two, BGR, 1, |s| s.push(0));
    let ski = two.block(BGR).unwrap().segments[0].ski;
    assert_eq!(
        experiment(&keys).path(&bad, &l.nlri, &Peer::external(64_500, 65_536)),
        not_valid(&[(
            BGR,
            BlockFault::NoKey {
                segment: 2,
                asn: 65_536,
                ski
            }
        )])
    );
}

#[test]
fn several_keys_for_one_as_and_ski_are_tried_up_to_sixteen_choices() {
    let l = lazy();
    let path = chain(&l.signers[..2], &[1, 1], l.nlri, 64_500)
        .path()
        .unwrap();
    let peer = Peer::external(64_500, 65_536);
    let wrong: Vec<Vec<u8>> = (0..4)
        .map(|_| BGR_RSA2048.generate().unwrap().spki().to_vec())
        .collect();
    // `extra` wrong keys before the right one under each hop's (AS, SKI).
    let store = |extra: usize| {
        let mut keys = RouterKeys::new();
        for signer in &l.signers[..2] {
            let (asn, right) = (signer.asn(), router_key(signer, BGR));
            for w in &wrong[..extra] {
                keys.insert(RouterKey::new(asn, *right.ski(), w));
            }
            keys.insert(right);
        }
        keys
    };
    assert_eq!(
        experiment(&store(0)).path(&path, &l.nlri, &peer),
        valid(BGR)
    );
    assert_eq!(
        experiment(&store(1)).path(&path, &l.nlri, &peer),
        valid(BGR)
    );
    // 4 × 4 choices, the right one last (the 16th): found.
    assert_eq!(
        experiment(&store(3)).path(&path, &l.nlri, &peer),
        valid(BGR)
    );
    // 5 × 5, the right one 25th: past the bound, Not Valid.
    assert_eq!(
        experiment(&store(4)).path(&path, &l.nlri, &peer),
        not_valid(&[(BGR, BlockFault::BadAggregate)])
    );
    // Only a key of another type under the (AS, SKI): no key found can verify.
    let mut keys = RouterKeys::new();
    keys.insert(router_key(&l.signers[0], BGR));
    let ec = ECDSA_P256_SHA256.generate().unwrap();
    let ski = path.block(BGR).unwrap().segments[0].ski;
    keys.insert(RouterKey::new(65_536, ski, ec.spki()));
    assert_eq!(
        experiment(&keys).path(&path, &l.nlri, &peer),
        not_valid(&[(
            BGR,
            BlockFault::BadSignature {
                segment: 2,
                asn: 65_536
            }
        )])
    );
}

#[test]
fn keys_of_the_bgr_suite() {
    // PKCS #8 cannot carry the PRF seed.
    let rsa = RsaSecretKey::generate(2048).unwrap();
    let der = openssl::pkey::PKey::from_rsa(rsa.openssl().clone())
        .unwrap()
        .private_key_to_pkcs8()
        .unwrap();
    let err = BGR_RSA2048.signing_key_from_pkcs8(&der).unwrap_err();
    assert!(err.to_string().contains("PRF seed"), "{err}");
    assert!(RSA2048_PKCS1_SHA256.signing_key_from_pkcs8(&der).is_ok());
    // A BGR key of another parameter set is refused; the right one is taken.
    let rand = BgrSigningKey::from_parts(BgrParams::RAND_RSA2048, rsa, None).unwrap();
    assert!(BGR_RSA2048.signing_key(rand).is_err());
    let seeded = BgrSigningKey::from_parts(
        BgrParams::PRF_RSA2048,
        RsaSecretKey::from_pkcs8_der(&der).unwrap(),
        Some([7; 32]),
    )
    .unwrap();
    let key = BGR_RSA2048.signing_key(seeded).unwrap();
    assert_eq!(key.suite(), BGR);
    assert!(BGR_RSA2048.verifying_key_from_spki(key.spki()).is_ok());
    // Other key types and sizes are not this suite's.
    let ec = ECDSA_P256_SHA256.generate().unwrap();
    assert!(BGR_RSA2048.verifying_key_from_spki(ec.spki()).is_err());
    let big = RsaSecretKey::generate(3072).unwrap();
    assert!(BGR_RSA2048
        .verifying_key_from_spki(big.public().spki_der())
        .is_err());
    assert_eq!(
        RouterKey::from_spki(1, key.spki())
            .unwrap()
            .suites()
            .collect::<Vec<_>>(),
        [BGR, RSA]
    );
}

#[test]
fn two_blocks_suite_1_and_bgr_follow_section_5_2() {
    let asns = [64_496, 65_536, 64_500];
    let both: [&'static dyn AlgorithmSuite; 2] = [&ECDSA_P256_SHA256, &BGR_RSA2048];
    let (signers, keys) = routers(&asns, &both);
    let nlri = v4("192.0.2.0", 24);
    let path = chain(&signers, &[1, 2, 1], nlri, TARGET).path().unwrap();
    let ids: Vec<u8> = path.signature_blocks().iter().map(|b| b.suite).collect();
    assert_eq!(ids, [1, BGR]);
    let peer = Peer::external(TARGET, 64_500);
    assert_eq!(experiment(&keys).path(&path, &nlri, &peer), valid(1));
    // Spoil each block with the newest segment of a chain signed toward another AS.
    let other = chain(&signers, &[1, 2, 1], nlri, 1).path().unwrap();
    let spoil = |p: &BgpsecPath<'_>, suite: u8| {
        let (sp, mut blocks) = p.clone().into_owned().into_parts();
        let i = blocks.iter().position(|b| b.suite == suite).unwrap();
        blocks[i].segments[0] = other.block(suite).unwrap().segments[0].clone().into_owned();
        BgpsecPath::new(sp, blocks).unwrap()
    };
    let bad1 = (
        1,
        BlockFault::BadSignature {
            segment: 3,
            asn: 64_500,
        },
    );
    let bad_bgr = (BGR, BlockFault::BadAggregate);
    assert_eq!(
        experiment(&keys).path(&spoil(&path, BGR), &nlri, &peer),
        valid(1)
    );
    assert_eq!(
        experiment(&keys).path(&spoil(&path, 1), &nlri, &peer),
        Validation::Valid {
            suite: BGR,
            failed: vec![BlockFailure {
                suite: 1,
                fault: bad1.1.clone()
            }]
        }
    );
    let neither = spoil(&spoil(&path, 1), BGR);
    assert_eq!(
        experiment(&keys).path(&neither, &nlri, &peer),
        not_valid(&[bad1.clone(), bad_bgr.clone()])
    );
    // Outside the experiment the 0xF7 block is not considered.
    assert_eq!(
        Validator::new(&keys).path(&spoil(&path, 1), &nlri, &peer),
        not_valid(std::slice::from_ref(&bad1))
    );

    // A router with both keys signs both blocks, the Not Valid one too (RFC 8205 §8.2);
    // a router with one suite's key strips the other block (§4.2).
    let mut all = keys.clone();
    let next = routers_into(&[TARGET], &both, &mut all);
    let from = Peer::external(1, TARGET);
    let forwarded = next[0]
        .sign_path(Some(&spoil(&path, BGR)), nlri, &Hop::to(1))
        .unwrap();
    assert_eq!(forwarded.signature_blocks().len(), 2);
    assert_eq!(
        Validator::with_suites(&[&BGR_RSA2048], &all).path(&forwarded, &nlri, &from),
        not_valid(std::slice::from_ref(&bad_bgr))
    );
    assert_eq!(experiment(&all).path(&forwarded, &nlri, &from), valid(1));
    let mut all = keys.clone();
    let bgr_only = routers_into(&[TARGET], &[&BGR_RSA2048], &mut all);
    let stripped = bgr_only[0]
        .sign_path(Some(&path), nlri, &Hop::to(1))
        .unwrap();
    let ids: Vec<u8> = stripped
        .signature_blocks()
        .iter()
        .map(|b| b.suite)
        .collect();
    assert_eq!(ids, [BGR]);
    assert_eq!(experiment(&all).path(&stripped, &nlri, &from), valid(BGR));
}

/// A signed 3-hop 0xF7 UPDATE (IPv4 /22, with prepending), its keys, and where its
/// BGPsec_PATH attribute and prefix sit in the message.
struct Signed {
    bytes: Vec<u8>,
    keys: RouterKeys,
    attribute: std::ops::Range<usize>,
    secure_path_at: usize,
    prefix_at: usize,
}

fn signed() -> &'static Signed {
    static S: OnceLock<Signed> = OnceLock::new();
    S.get_or_init(|| {
        let (signers, keys) = routers(&[64_496, 65_536, 64_500], &[&BGR_RSA2048]);
        let nlri = v4("198.51.100.0", 22);
        let next_hop = NextHop::V4(std::net::Ipv4Addr::new(192, 0, 2, 1));
        let origin =
            PathAttribute::new(AttributeValue::Origin(Origin::Igp), AsWidth::Four).unwrap();
        let hop = |target, pcount| Hop {
            pcount,
            ..Hop::to(target)
        };
        let a = signers[0]
            .originate(nlri, next_hop, vec![origin], &hop(65_536, 2))
            .unwrap();
        let b = signers[1].forward(&a, None, &hop(64_500, 1)).unwrap();
        let c = signers[2].forward(&b, None, &hop(TARGET, 3)).unwrap();
        let bytes = message(&c);
        let mut w = Writer::new();
        c.attribute(AttrType::BgpsecPath)
            .unwrap()
            .encode(&mut w, AsWidth::Four)
            .unwrap();
        let attr = w.into_bytes();
        let start = bytes.windows(attr.len()).position(|w| w == attr).unwrap();
        let prefix_at = bytes
            .windows(4)
            .position(|w| w == [22, 198, 51, 100])
            .unwrap();
        Signed {
            bytes,
            keys,
            attribute: start..start + attr.len(),
            // flags, type and the extended length: 0xF7 paths exceed 255 octets.
            secure_path_at: start + 4,
            prefix_at,
        }
    })
}

fn verdict_of(bytes: &[u8]) -> Validation {
    let s = signed();
    experiment(&s.keys).message(bytes, &Peer::external(TARGET, 64_500))
}

#[test]
fn every_bit_of_a_bgr_bgpsec_path_attribute_is_covered() {
    let s = signed();
    assert_eq!(verdict_of(&s.bytes), valid(BGR));
    assert_eq!(s.attribute.len(), 4 + 293 + 45 * 3);
    // Past the flags octet, which no signature covers (RFC 4271 §4.3; sign_validate.rs
    // tests it for suite 1).
    for i in s.attribute.start + 1..s.attribute.end {
        for bit in 0..8 {
            let mut t = s.bytes.clone();
            t[i] ^= 1 << bit;
            let v = verdict_of(&t);
            assert!(!v.is_valid(), "octet {i} bit {bit}: {v:?}");
        }
    }
    // The prefix: every bit but the two trailing ones of the /22 (RFC 8205 §4.2).
    for octet in 0..4 {
        for bit in 0..8 {
            let mut t = s.bytes.clone();
            t[s.prefix_at + octet] ^= 1 << bit;
            assert_eq!(
                verdict_of(&t).is_valid(),
                octet == 3 && bit < 2,
                "{octet} {bit}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn any_octet_replaced_or_as_changed_is_never_valid(
        pick in any::<prop::sample::Index>(),
        value in any::<u8>(),
        segment in 0usize..3,
        asn in any::<u32>(),
    ) {
        let s = signed();
        let i = s.attribute.start + 1 + pick.index(s.attribute.len() - 1);
        if s.bytes[i] != value {
            let mut t = s.bytes.clone();
            t[i] = value;
            prop_assert!(!verdict_of(&t).is_valid());
        }
        let at = s.secure_path_at + 2 + 6 * segment + 2;
        prop_assume!(s.bytes[at..at + 4] != asn.to_be_bytes());
        let mut t = s.bytes.clone();
        t[at..at + 4].copy_from_slice(&asn.to_be_bytes());
        prop_assert!(!verdict_of(&t).is_valid());
    }
}

// Test vectors (docs/spec/vectors/bgpsec-bgr.json).

fn vector_file() -> std::path::PathBuf {
    root().join("docs/spec/vectors/bgpsec-bgr.json")
}

/// BGR signing key j of docs/spec/vectors/bgr.json's RSA-2048 keys, with its PRF seed.
fn vector_key(keys: &Value, j: usize) -> hopsig_bgp::SigningKey {
    let k = &keys[j];
    let rsa =
        RsaSecretKey::from_pkcs8_pem(k["secret_pkcs8_pem"].as_str().unwrap().as_bytes()).unwrap();
    let seed: [u8; 32] = hex::decode(k["prf_seed"].as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap();
    BGR_RSA2048
        .signing_key(BgrSigningKey::from_parts(BgrParams::PRF_RSA2048, rsa, Some(seed)).unwrap())
        .unwrap()
}

/// One signer of a case: (key index, AS, pCount).
type Hops = [(usize, u32, u8)];

fn case_nlri(case: &Value) -> SignedNlri {
    let afi = if case["afi"] == 1 {
        Afi::Ipv4
    } else {
        Afi::Ipv6
    };
    let nlri = hex::decode(case["nlri"].as_str().unwrap()).unwrap();
    let prefix = read_prefixes(&nlri, afi).unwrap()[0];
    SignedNlri {
        safi: Safi::try_from(case["safi"].as_u64().unwrap() as u8).unwrap(),
        prefix,
    }
}

fn case_hops(case: &Value) -> Vec<(usize, u32, u8)> {
    case["signers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["key"].as_u64().unwrap() as usize,
                s["asn"].as_u64().unwrap() as u32,
                s["pcount"].as_u64().unwrap() as u8,
            )
        })
        .collect()
}

fn vector_signers(keys: &Value, hops: &Hops) -> (Vec<Signer<'static>>, RouterKeys) {
    let mut store = RouterKeys::new();
    let signers = hops
        .iter()
        .map(|&(j, asn, _)| {
            let key = vector_key(keys, j);
            store.insert(RouterKey::new(asn, *key.ski(), key.spki()));
            Signer::new(asn).with_key(&BGR_RSA2048, key).unwrap()
        })
        .collect();
    (signers, store)
}

/// A case: the path of `hops` toward `signed_to`, changed by `spoil`, validated at
/// `target`.
fn case(
    comment: &str,
    keys: &Value,
    hops: &Hops,
    nlri: SignedNlri,
    signed_to: u32,
    target: u32,
    spoil: impl FnOnce(BgpsecPath<'static>) -> BgpsecPath<'static>,
) -> Value {
    let (signers, store) = vector_signers(keys, hops);
    let pcounts: Vec<u8> = hops.iter().map(|h| h.2).collect();
    let path = spoil(chain(&signers, &pcounts, nlri, signed_to).path().unwrap());
    let input = SignatureInput::of_path(&path, BGR, &nlri, Coverage::SkiOnly, target).unwrap();
    let inputs: Vec<String> = (1..=hops.len())
        .map(|n| hex::encode(input.hop(n).unwrap()))
        .collect();
    let verdict = experiment(&store).path(&path, &nlri, &Peer::any_external(target));
    let mut w = Writer::new();
    nlri.prefix.network().encode(&mut w);
    let nlri_octets = w.into_bytes();
    json!({
        "_comment": comment,
        "afi": u16::from(nlri.afi()),
        "safi": u8::from(nlri.safi),
        "nlri": hex::encode(nlri_octets),
        "target_as": target,
        "signers": hops.iter().map(|&(key, asn, pcount)| json!({"key": key, "asn": asn, "pcount": pcount, "flags": 0})).collect::<Vec<_>>(),
        "inputs": inputs,
        "bgpsec_path": hex::encode(encoded(&path)),
        "expected": if verdict.is_valid() { "valid" } else { "not-valid" },
    })
}

fn document() -> Value {
    let bgr: Value =
        serde_json::from_slice(&std::fs::read(root().join("docs/spec/vectors/bgr.json")).unwrap())
            .unwrap();
    let keys = bgr["keys"]["2048"].clone();
    let v6 = SignedNlri {
        safi: Safi::Multicast,
        prefix: hopsig_bgp::packet::Prefix::new("2001:db8:8000::".parse().unwrap(), 33).unwrap(),
    };
    let three: &Hops = &[(0, 64_496, 2), (1, 65_536, 1), (2, 64_500, 1)];
    let fifteen: Vec<(usize, u32, u8)> = (0..15).map(|i| (i % 3, 64_496 + i as u32, 1)).collect();
    let nlri = v4("192.0.2.0", 24);
    let t = TARGET;
    let same = |p| p;
    let cases = vec![
        case("one hop, IPv4 /24", &keys, &three[..1], nlri, t, t, same),
        case(
            "three hops, the origin prepending once (pCount 2)",
            &keys,
            three,
            nlri,
            t,
            t,
            same,
        ),
        case(
            "four hops, IPv6 /33 multicast (trailing bit 0)",
            &keys,
            &[
                (2, 64_497, 1),
                (0, 4_200_000_000, 1),
                (1, 64_498, 3),
                (0, 64_499, 1),
            ],
            v6,
            t,
            t,
            same,
        ),
        case(
            "fifteen hops, keys 0, 1, 2 in turn",
            &keys,
            &fifteen,
            nlri,
            t,
            t,
            same,
        ),
        case(
            "three hops validated at another AS than the newest signed toward",
            &keys,
            three,
            nlri,
            t,
            65_538,
            same,
        ),
        case("h_3 changed", &keys, three, nlri, t, t, |p| {
            with_segment(&p, BGR, 3, |s| s[304] ^= 1)
        }),
        case("r_1 changed", &keys, three, nlri, t, t, |p| {
            with_segment(&p, BGR, 1, |s| s[0] ^= 1)
        }),
        case("b_2 flipped", &keys, three, nlri, t, t, |p| {
            with_segment(&p, BGR, 2, |s| s[16] ^= 1)
        }),
        case(
            "segment 2 of 18 octets (ill formed)",
            &keys,
            three,
            nlri,
            t,
            t,
            |p| with_segment(&p, BGR, 2, |s| s.push(0)),
        ),
        case(
            "x_3 with its top bit set (ill formed)",
            &keys,
            three,
            nlri,
            t,
            t,
            |p| with_segment(&p, BGR, 3, |s| s[17] |= 0x80),
        ),
        case(
            "AS of segment 2 changed: no key",
            &keys,
            three,
            nlri,
            t,
            t,
            |p| {
                let (mut sp, blocks) = p.into_parts();
                sp[1].asn += 2;
                BgpsecPath::new(sp, blocks).unwrap()
            },
        ),
        case(
            "the SKIs of segments 1 and 2 swapped",
            &keys,
            three,
            nlri,
            t,
            t,
            |p| {
                let (sp, mut blocks) = p.into_parts();
                let s: &mut Vec<SignatureSegment<'static>> = &mut blocks[0].segments;
                let (a, b) = (s[1].ski, s[2].ski);
                s[1].ski = b;
                s[2].ski = a;
                BgpsecPath::new(sp, blocks).unwrap()
            },
        ),
    ];
    json!({
        "_comment": "BGPsec suite 0xF7 (bgr-rsa2048) test vectors, docs/spec/bgpsec-bgr.md. Generated by hopsig (crates/hopsig-bgp/tests/bgr_suite.rs, `regenerate`) from the RSA-2048 keys and PRF seeds of docs/spec/vectors/bgr.json, copied here; checked byte for byte by hopsig (`vectors_reproduce`) and by the independent interop/python/bgpsec_bgr_reference.py. Each case: the route (afi, safi, nlri: the length octet and prefix octets as signed, trailing bits 0), target_as (the AS the newest signer sends to and the validator's AS), signers origin first (key index, asn, pcount, flags), inputs (m_1 .. m_K, bgpsec-bgr.md §4, toward target_as), bgpsec_path (the attribute value, RFC 8205 §3) and expected ('valid' or 'not-valid': the 0xF7 block's verdict with the keys of the signers under their ASes). Keys are test keys: never use them.",
        "keys": {"2048": keys},
        "cases": cases,
    })
}

/// The outcomes of a vector document as hopsig sees them: each case's path validated,
/// its inputs rebuilt, and the valid ones signed again to the byte.
fn check(doc: &Value) -> usize {
    let keys = &doc["keys"]["2048"];
    let mut valid_cases = 0;
    for c in doc["cases"].as_array().unwrap() {
        let nlri = case_nlri(c);
        let hops = case_hops(c);
        let (signers, store) = vector_signers(keys, &hops);
        let target = c["target_as"].as_u64().unwrap() as u32;
        let bytes = hex::decode(c["bgpsec_path"].as_str().unwrap()).unwrap();
        let path = BgpsecPath::decode(&bytes).unwrap();
        let input = SignatureInput::of_path(&path, BGR, &nlri, Coverage::SkiOnly, target).unwrap();
        for (n, m) in c["inputs"].as_array().unwrap().iter().enumerate() {
            assert_eq!(
                hex::encode(input.hop(n + 1).unwrap()),
                m.as_str().unwrap(),
                "{}",
                c["_comment"]
            );
        }
        let verdict = experiment(&store).path(&path, &nlri, &Peer::any_external(target));
        assert_eq!(
            verdict.is_valid(),
            c["expected"] == "valid",
            "{}: {verdict:?}",
            c["_comment"]
        );
        if verdict.is_valid() {
            let pcounts: Vec<u8> = hops.iter().map(|h| h.2).collect();
            let again = chain(&signers, &pcounts, nlri, target).path().unwrap();
            assert_eq!(encoded(&again), bytes, "{}", c["_comment"]);
            valid_cases += 1;
        }
    }
    valid_cases
}

#[test]
fn vectors_reproduce() {
    let doc: Value = serde_json::from_slice(&std::fs::read(vector_file()).unwrap()).unwrap();
    assert_eq!(check(&doc), 4);
    assert_eq!(
        doc,
        document(),
        "the committed vectors are what hopsig signs today"
    );
}

#[test]
fn python_reference_agrees() {
    let Some(py) = bgpsec_common::python("hashlib") else {
        return;
    };
    // The script imports bgr_reference.py from its own folder.
    let dir = root().join("interop/python");
    let script = dir.join("bgpsec_bgr_reference.py");
    let out = std::process::Command::new(py)
        .args([
            script.as_os_str(),
            "check".as_ref(),
            vector_file().as_os_str(),
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success() && stdout.contains("12 passed, 0 failed"),
        "{stdout}{stderr}"
    );
}

#[test]
#[ignore = "writes docs/spec/vectors/bgpsec-bgr.json; run with --ignored to regenerate"]
fn regenerate() {
    std::fs::write(
        vector_file(),
        serde_json::to_string_pretty(&document()).unwrap() + "\n",
    )
    .unwrap();
}
