//! BGPsec signing (RFC 8205 §4) and validation (§5.2) end to end: paths of many hops
//! with prepending, IPv4 and IPv6, route servers, confederations, two algorithm
//! suites; every check of §5.2 with its typed verdict; and tampering — every byte of
//! the BGPsec_PATH attribute, any AS, the NLRI — never 'Valid' and never a panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod bgpsec_common;

use std::borrow::Cow;
use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::OnceLock;

use bgpsec_common::{message, update};
use hopsig_bgp::packet::{
    Action, AsPath, AsWidth, AttrFlags, AttrType, AttributeValue, BgpsecPath, BgpsecPathError,
    MessageError, NextHop, Origin, PathAttribute, Prefix, SecurePathFlags, SecurePathSegment,
    SignatureBlock, Update, UpdateErrorKind,
};
use hopsig_bgp::sign::without_confed_segments;
use hopsig_bgp::suite::{PerSegment, ECDSA_P256_SHA256};
use hopsig_bgp::{
    as_path_equivalent, AlgorithmSuite, BlockFailure, BlockFault, Chain, Hop, Malformed, NotValid,
    Peer, RouterKey, RouterKeys, SignError, SignedNlri, Signer, Unsigned, Validation, Validator,
};
use hopsig_schemes::concat::Rsa2048Pkcs1;
use proptest::prelude::*;

/// A second suite for the two-block tests: n × RSA-2048 under an experimental
/// identifier (RFC 8608 §2.1: 0xF7..=0xFA), a table entry built from the same generic
/// code as suite 1.
static RSA_TEST: PerSegment<Rsa2048Pkcs1> = PerSegment::new(0xf7, "test-rsa2048-per-segment");
static BOTH: [&dyn AlgorithmSuite; 2] = [&ECDSA_P256_SHA256, &RSA_TEST];

const TARGET: u32 = 65_537;

/// Routers with suite 1 keys, and the router keys a validator trusts.
struct Net {
    signers: HashMap<u32, Signer<'static>>,
    keys: RouterKeys,
}

impl Net {
    fn new(asns: &[u32]) -> Net {
        Net::with_suites(asns, &[&ECDSA_P256_SHA256])
    }

    fn with_suites(asns: &[u32], suites: &[&'static dyn AlgorithmSuite]) -> Net {
        let mut net = Net {
            signers: HashMap::new(),
            keys: RouterKeys::new(),
        };
        for &asn in asns {
            let mut signer = Signer::new(asn);
            for suite in suites {
                let key = suite.generate().unwrap();
                net.keys
                    .insert(RouterKey::for_suites(asn, *key.ski(), key.spki(), &BOTH));
                signer = signer.with_key(*suite, key).unwrap();
            }
            net.signers.insert(asn, signer);
        }
        net
    }

    fn signer(&self, asn: u32) -> &Signer<'static> {
        &self.signers[&asn]
    }

    /// The path of `hops` (AS, pCount), origin first, each signing toward the next AS
    /// and the last toward `target`, as a chain.
    fn chain(&self, hops: &[(u32, u8)], nlri: SignedNlri, target: u32) -> BgpsecPath<'static> {
        let hop = |i: usize| Hop {
            target_as: hops.get(i + 1).map_or(target, |h| h.0),
            pcount: hops[i].1,
            confed_segment: false,
        };
        let mut chain = Chain::originate(self.signer(hops[0].0), nlri, &hop(0)).unwrap();
        for (i, &(asn, _)) in hops.iter().enumerate().skip(1) {
            chain.forward(self.signer(asn), &hop(i)).unwrap();
        }
        assert_eq!(chain.hops(), hops.len());
        chain.path().unwrap()
    }

    fn validator(&self) -> Validator<'_> {
        Validator::new(&self.keys)
    }
}

fn v4(a: &str, len: u8) -> SignedNlri {
    SignedNlri::unicast(Prefix::new(a.parse().unwrap(), len).unwrap())
}

fn v6(a: &str, len: u8) -> SignedNlri {
    SignedNlri::unicast(Prefix::new(a.parse().unwrap(), len).unwrap())
}

fn next_hop(nlri: &SignedNlri) -> NextHop {
    match nlri.afi() {
        hopsig_bgp::packet::Afi::Ipv4 => NextHop::V4(Ipv4Addr::new(192, 0, 2, 1)),
        hopsig_bgp::packet::Afi::Ipv6 => NextHop::V6("2001:db8::1".parse::<Ipv6Addr>().unwrap()),
    }
}

fn origin_attr() -> PathAttribute<'static> {
    PathAttribute::new(AttributeValue::Origin(Origin::Igp), AsWidth::Four).unwrap()
}

/// A whole UPDATE message of these attributes, encoded without the checks of
/// `Update::encode` (to build UPDATEs the codec would refuse to write).
fn raw_message(attributes: &[PathAttribute<'_>]) -> Vec<u8> {
    let mut w = hopsig_primitives::codec::Writer::new();
    for a in attributes {
        a.encode(&mut w, AsWidth::Four).unwrap();
    }
    let attrs = w.into_bytes();
    let mut bytes = vec![0xff; 16];
    bytes.extend_from_slice(&((19 + 4 + attrs.len()) as u16).to_be_bytes());
    bytes.extend_from_slice(&[2, 0, 0]);
    bytes.extend_from_slice(&(attrs.len() as u16).to_be_bytes());
    bytes.extend_from_slice(&attrs);
    bytes
}

fn valid(suite: u8) -> Validation {
    Validation::Valid {
        suite,
        failed: vec![],
    }
}

fn malformed(v: &Validation) -> &Malformed {
    match v {
        Validation::NotValid(NotValid::Malformed(m)) => m,
        other => panic!("not malformed: {other:?}"),
    }
}

/// A path of hops (AS, pCount, Confed_Segment flag) whose signatures are junk: for
/// the checks of §5.2 that come before any signature.
fn unsigned_path(hops: &[(u32, u8, bool)]) -> BgpsecPath<'static> {
    let segments: Vec<_> = hops
        .iter()
        .rev()
        .map(|&(asn, pcount, confed)| SecurePathSegment {
            pcount,
            flags: SecurePathFlags(if confed { 0x80 } else { 0 }),
            asn,
        })
        .collect();
    let block = SignatureBlock {
        suite: 1,
        segments: (0..hops.len())
            .map(|i| hopsig_bgp::packet::SignatureSegment {
                ski: [i as u8; 20],
                signature: Cow::Owned(vec![0x30, 0x00]),
            })
            .collect(),
    };
    BgpsecPath::new(segments, vec![block]).unwrap()
}

#[test]
fn chains_of_1_to_15_hops_with_prepending_validate_in_ipv4_and_ipv6() {
    let asns: Vec<u32> = (0..15).map(|i| 64_500 + i).collect();
    let net = Net::new(&asns);
    for nlri in [v4("198.51.100.0", 22), v6("2001:db8:4000::", 34)] {
        for n in 1..=15 {
            // The origin prepends twice, every third AS once.
            let hops: Vec<(u32, u8)> = asns[..n]
                .iter()
                .enumerate()
                .map(|(i, &a)| {
                    (
                        a,
                        if i == 0 {
                            3
                        } else if i % 3 == 0 {
                            2
                        } else {
                            1
                        },
                    )
                })
                .collect();
            let path = net.chain(&hops, nlri, TARGET);
            let last = hops[n - 1].0;
            let peer = Peer::external(TARGET, last);
            assert_eq!(
                net.validator().path(&path, &nlri, &peer),
                valid(1),
                "{n} hops"
            );
            let want: u32 = hops.iter().map(|h| u32::from(h.1)).sum();
            assert_eq!(as_path_equivalent::path_length(path.secure_path()), want);
            // The same path at another AS: the newest signature was made for TARGET.
            let elsewhere = net.validator().path(&path, &nlri, &Peer::external(1, last));
            assert_eq!(
                elsewhere,
                Validation::NotValid(NotValid::Signatures(vec![BlockFailure {
                    suite: 1,
                    fault: BlockFault::BadSignature {
                        segment: n,
                        asn: last
                    }
                }]))
            );
        }
    }
}

#[test]
fn updates_forwarded_over_the_wire_validate_at_every_hop() {
    let asns = [64_496, 65_536, 4_200_000_000, 64_501, 64_502];
    let net = Net::new(&asns);
    for nlri in [v4("192.0.2.0", 24), v6("2001:db8::", 32), v4("0.0.0.0", 0)] {
        let mut bytes = message(
            &net.signer(asns[0])
                .originate(
                    nlri,
                    next_hop(&nlri),
                    vec![origin_attr()],
                    &Hop::to(asns[1]),
                )
                .unwrap(),
        );
        for i in 1..asns.len() {
            // AS asns[i] receives it from asns[i - 1] and validates it.
            let peer = Peer::external(asns[i], asns[i - 1]);
            assert_eq!(
                net.validator().message(&bytes, &peer),
                valid(1),
                "at AS {}",
                asns[i]
            );
            let received = update(&bytes);
            let target = asns.get(i + 1).copied().unwrap_or(TARGET);
            let hop = Hop {
                pcount: if i == 2 { 4 } else { 1 },
                ..Hop::to(target)
            };
            let sent = net.signer(asns[i]).forward(&received, None, &hop).unwrap();
            assert_eq!(sent.bgpsec_path().unwrap().secure_path().len(), i + 1);
            bytes = message(&sent);
        }
        let peer = Peer::external(TARGET, asns[4]);
        assert_eq!(net.validator().message(&bytes, &peer), valid(1));
        let path = update(&bytes).bgpsec_path().unwrap().clone().into_owned();
        assert_eq!(
            as_path_equivalent::as_path(path.secure_path()),
            AsPath::sequence(vec![
                64_502,
                64_501,
                4_200_000_000,
                4_200_000_000,
                4_200_000_000,
                4_200_000_000,
                65_536,
                64_496
            ])
        );
    }
}

#[test]
fn each_check_of_section_5_2_has_its_verdict() {
    let nlri = v4("192.0.2.0", 24);
    let validator_keys = RouterKeys::new();
    let validator = Validator::new(&validator_keys);
    let run =
        |hops: &[(u32, u8, bool)], peer: &Peer| validator.path(&unsigned_path(hops), &nlri, peer);
    let plain = [(64_496, 1, false), (65_536, 1, false)];
    let peer = Peer::external(TARGET, 65_536);
    // With the checks passed, the junk signatures fail at step 2 (no keys at all).
    assert!(matches!(
        run(&plain, &peer),
        Validation::NotValid(NotValid::Signatures(f)) if matches!(f[0].fault, BlockFault::NoKey { segment: 2, asn: 65_536, .. })
    ));
    // Check 2: the newest segment is not the peer's AS.
    assert_eq!(
        malformed(&run(&plain, &Peer::external(TARGET, 65_539))),
        &Malformed::PeerAs {
            newest: 65_536,
            peer: 65_539
        }
    );
    // …skipped where the peer's AS is not known.
    assert!(!matches!(
        run(&plain, &Peer::any_external(TARGET)),
        Validation::NotValid(NotValid::Malformed(_))
    ));
    // Check 5: a Confed_Segment flag anywhere, from outside the confederation.
    let confed_origin = [(64_496, 1, true), (65_536, 1, false)];
    assert_eq!(
        malformed(&run(&confed_origin, &peer)),
        &Malformed::ConfedSegmentFromOutside { segment: 1 }
    );
    // Check 6: a confederation peer's segment without the flag.
    let member = Peer {
        in_confederation: true,
        ..peer
    };
    assert_eq!(
        malformed(&run(&plain, &member)),
        &Malformed::NoConfedSegmentFromMember
    );
    assert!(!matches!(
        run(&[(64_496, 1, false), (65_536, 1, true)], &member),
        Validation::NotValid(NotValid::Malformed(_))
    ));
    // Check 7: pCount 0 in the newest segment, unless the peer is a route server;
    // pCount 0 further back is no error.
    let route_server = [(64_496, 1, false), (65_536, 0, false)];
    assert_eq!(
        malformed(&run(&route_server, &peer)),
        &Malformed::PcountZero
    );
    let allowed = Peer {
        may_send_pcount_zero: true,
        ..peer
    };
    assert!(!matches!(
        run(&route_server, &allowed),
        Validation::NotValid(NotValid::Malformed(_))
    ));
    assert!(!matches!(
        run(
            &[(64_496, 1, false), (65_000, 0, false), (65_536, 1, false)],
            &peer
        ),
        Validation::NotValid(NotValid::Malformed(_))
    ));
    // Check 8: the local AS on the path, as the §4.4 AS_PATH has it (pCount 0
    // segments are not in it).
    let looped = [(TARGET, 2, false), (64_496, 1, false), (65_536, 1, false)];
    assert_eq!(
        malformed(&run(&looped, &peer)),
        &Malformed::AsLoop { segment: 1 }
    );
    let once = [(64_496, 1, false), (TARGET, 1, false), (65_536, 1, false)];
    assert_eq!(
        malformed(&run(&once, &peer)),
        &Malformed::AsLoop { segment: 2 }
    );
    let through_route_server = [(64_496, 1, false), (TARGET, 0, false), (65_536, 1, false)];
    assert!(!matches!(
        run(&through_route_server, &peer),
        Validation::NotValid(NotValid::Malformed(_))
    ));
    // The order is the RFC's: check 2 before 5, 5 before 7, 7 before 8.
    let all = [(TARGET, 1, true), (65_536, 0, false)];
    assert!(matches!(
        malformed(&run(&all, &Peer::external(TARGET, 1))),
        Malformed::PeerAs { .. }
    ));
    assert!(matches!(
        malformed(&run(&all, &peer)),
        Malformed::ConfedSegmentFromOutside { segment: 1 }
    ));
    assert_eq!(
        malformed(&run(&[(TARGET, 1, false), (65_536, 0, false)], &peer)),
        &Malformed::PcountZero
    );
    // Every one of these is an error in BGPsec_PATH: treat-as-withdraw.
    assert_eq!(
        NotValid::Malformed(Malformed::PcountZero).action(),
        Some(Action::TreatAsWithdraw)
    );
}

/// `Validator::screen` is §5.2 without the signatures: it needs no router key, says
/// `Ok` where only the signatures are left, and otherwise what `update` says.
#[test]
fn screening_is_section_5_2_up_to_the_signatures() {
    let nlri = v4("192.0.2.0", 24);
    let update_of = |path: BgpsecPath<'static>| {
        let mp =
            hopsig_bgp::packet::MpReachNlri::new(nlri.safi, next_hop(&nlri), vec![nlri.prefix])
                .unwrap();
        Update {
            attributes: vec![
                origin_attr(),
                PathAttribute::new(AttributeValue::MpReachNlri(mp), AsWidth::Four).unwrap(),
                PathAttribute::new(AttributeValue::BgpsecPath(path), AsWidth::Four).unwrap(),
            ],
            ..Update::default()
        }
    };
    let no_keys = RouterKeys::new();
    let validator = Validator::new(&no_keys);
    let peer = Peer::external(TARGET, 65_536);
    let plain = update_of(unsigned_path(&[(64_496, 1, false), (65_536, 1, false)]));
    // The junk signatures are left to verify.
    assert_eq!(validator.screen(&plain, &peer), Ok(()));
    assert!(matches!(
        validator.update(&plain, &peer),
        Validation::NotValid(NotValid::Signatures(_))
    ));
    // Check 2 and check 7, with the verdict `update` gives.
    let wrong_peer = Peer::external(TARGET, 65_539);
    assert!(matches!(
        validator.screen(&plain, &wrong_peer),
        Err(NotValid::Malformed(Malformed::PeerAs { .. }))
    ));
    assert_eq!(
        validator.screen(&plain, &wrong_peer).unwrap_err(),
        match validator.update(&plain, &wrong_peer) {
            Validation::NotValid(n) => n,
            v => panic!("{v:?}"),
        }
    );
    let pcount_zero = update_of(unsigned_path(&[(64_496, 1, false), (65_536, 0, false)]));
    assert_eq!(
        validator.screen(&pcount_zero, &peer),
        Err(NotValid::Malformed(Malformed::PcountZero))
    );
    // Blocks of unsupported suites only: unsigned.
    let none = Validator::with_suites(&[], &no_keys);
    assert_eq!(
        none.screen(&plain, &peer),
        Err(NotValid::Unsigned(Unsigned::NoSupportedSuite(vec![1])))
    );
    // No BGPsec_PATH at all.
    assert_eq!(
        validator.screen(&Update::default(), &peer),
        Err(NotValid::Unsigned(Unsigned::NoBgpsecPath))
    );
}

#[test]
fn codec_checks_come_back_with_the_codecs_verdict() {
    let net = Net::new(&[64_496, 65_536]);
    let nlri = v4("192.0.2.0", 24);
    let first = net
        .signer(64_496)
        .originate(nlri, next_hop(&nlri), vec![origin_attr()], &Hop::to(65_536))
        .unwrap();
    let u = net
        .signer(65_536)
        .forward(&first, None, &Hop::to(TARGET))
        .unwrap();
    let peer = Peer::external(TARGET, 65_536);
    let v = net.validator();

    // Check 4, from the wire: AS_PATH beside BGPsec_PATH.
    let mut with_as_path = u.clone();
    with_as_path.attributes.insert(
        1,
        PathAttribute::new(
            AttributeValue::AsPath(AsPath::sequence(vec![64_496])),
            AsWidth::Four,
        )
        .unwrap(),
    );
    let bytes = raw_message(&with_as_path.attributes);
    let got = v.message(&bytes, &peer);
    let Malformed::Message(MessageError::Update(e)) = malformed(&got) else {
        panic!("{got:?}")
    };
    assert_eq!(e.kind(), &UpdateErrorKind::AsPathWithBgpsecPath);
    assert_eq!(e.action(), Action::TreatAsWithdraw);
    // …and from an UPDATE built in memory.
    assert_eq!(
        malformed(&v.update(&with_as_path, &peer)),
        &Malformed::AsPathWithBgpsecPath
    );
    // The §4.1 single-prefix rule, in memory.
    let mut two = u.clone();
    two.nlri
        .push(Prefix::new("203.0.113.0".parse().unwrap(), 24).unwrap());
    assert!(matches!(
        malformed(&v.update(&two, &peer)),
        Malformed::Nlri(_)
    ));

    // Check 3 from the wire: the newest Signature Segment cut out, lengths fixed up.
    let path = u.bgpsec_path().unwrap();
    let mut cut = path.clone().into_owned();
    let (segments, mut blocks) = cut.clone().into_parts();
    blocks[0].segments.remove(0);
    let copy = blocks[0].segments[0].clone();
    blocks[0].segments.push(copy);
    cut = BgpsecPath::new(segments.clone(), blocks.clone()).unwrap();
    let mut extra_segment = segments.clone();
    extra_segment.insert(0, segments[0]);
    assert_eq!(
        BgpsecPath::new(extra_segment, blocks).unwrap_err(),
        BgpsecPathError::SegmentCountMismatch {
            suite: 1,
            secure_path: 3,
            signatures: 2
        }
    );
    // (a duplicated segment is well formed, and fails its signature)
    assert!(matches!(
        v.path(&cut, &nlri, &peer),
        Validation::NotValid(NotValid::Signatures(_))
    ));
    // A UPDATE whose attribute carries two blocks of one suite: malformed by the codec.
    let value = {
        let mut w = hopsig_primitives::codec::Writer::new();
        path.encode(&mut w).unwrap();
        let mut b = w.into_bytes();
        let block_at = 2 + 6 * path.secure_path().len();
        let block = b[block_at..].to_vec();
        b.extend_from_slice(&block);
        b
    };
    let mut dup = u.clone();
    let last = dup.attributes.len() - 1;
    dup.attributes[last] = PathAttribute::with_flags(
        AttrFlags(0x90),
        AttributeValue::Other {
            type_code: 200,
            value: Cow::Owned(value.clone()),
        },
    )
    .unwrap();
    let mut raw = raw_message(&dup.attributes);
    let at = raw
        .windows(3)
        .position(|w| w == [0x90, 200, (value.len() >> 8) as u8])
        .unwrap();
    raw[at + 1] = 33;
    let got = v.message(&raw, &peer);
    assert!(
        matches!(malformed(&got), Malformed::Message(e) if e.to_string().contains("two Signature_Blocks")),
        "{got:?}"
    );

    // An unsigned UPDATE and a KEEPALIVE have nothing to validate.
    let mut unsigned = u.clone();
    unsigned.attributes.retain(|a| a.type_code() != 33);
    unsigned.attributes.push(
        PathAttribute::new(
            AttributeValue::AsPath(AsPath::sequence(vec![64_496])),
            AsWidth::Four,
        )
        .unwrap(),
    );
    assert_eq!(
        v.message(&message(&unsigned), &peer),
        Validation::NotValid(NotValid::Unsigned(Unsigned::NoBgpsecPath))
    );
    let keepalive: Vec<u8> = [0xff; 16].into_iter().chain([0, 19, 4]).collect();
    assert!(matches!(
        v.message(&keepalive, &peer),
        Validation::NotValid(NotValid::Unsigned(Unsigned::NotAnUpdate(_)))
    ));
    // An attribute-discard error (AS4_PATH between 4-octet speakers, RFC 6793 §6) does
    // not stop validation.
    let mut as4 = u.clone();
    as4.attributes.insert(
        1,
        PathAttribute::new(
            AttributeValue::As4Path(AsPath::sequence(vec![1])),
            AsWidth::Four,
        )
        .unwrap(),
    );
    let bytes = raw_message(&as4.attributes);
    assert_eq!(v.message(&bytes, &peer), valid(1));
}

#[test]
fn a_signature_not_in_canonical_der_verifies_under_no_key() {
    // RFC 8608 §4: the Signature field is a DER ECDSA-Sig-Value (RFC 3279 §2.2.3).
    let net = Net::new(&[64_496, 65_536]);
    let nlri = v4("192.0.2.0", 24);
    let path = net.chain(&[(64_496, 1), (65_536, 1)], nlri, TARGET);
    let peer = Peer::external(TARGET, 65_536);
    assert_eq!(net.validator().path(&path, &nlri, &peer), valid(1));
    let with_newest = |f: &dyn Fn(&[u8]) -> Vec<u8>| {
        let (segments, mut blocks) = path.clone().into_parts();
        let sig = f(&blocks[0].segments[0].signature);
        blocks[0].segments[0].signature = Cow::Owned(sig);
        BgpsecPath::new(segments, blocks).unwrap()
    };
    let der = path.signature_blocks()[0].segments[0].signature.to_vec();
    assert_eq!(usize::from(der[1]) + 2, der.len());
    let trailing = |d: &[u8]| [d, &[0]].concat();
    // The same SEQUENCE with a long-form length (BER, not DER).
    let long_form = |d: &[u8]| [&[0x30, 0x81][..], &d[1..]].concat();
    let bad = BlockFailure {
        suite: 1,
        fault: BlockFault::BadSignature {
            segment: 2,
            asn: 65_536,
        },
    };
    for f in [&trailing as &dyn Fn(&[u8]) -> Vec<u8>, &long_form] {
        assert_eq!(
            net.validator().path(&with_newest(f), &nlri, &peer),
            Validation::NotValid(NotValid::Signatures(vec![bad.clone()]))
        );
    }
    // OpenSSL's reader alone accepts both (it ignores the trailing octet and reads the
    // long-form length), so the canonical-encoding check is what rejects them.
    for f in [&trailing as &dyn Fn(&[u8]) -> Vec<u8>, &long_form] {
        assert!(openssl::ecdsa::EcdsaSig::from_der(&f(&der)).is_ok());
    }
}

#[test]
fn keys_are_looked_up_by_as_and_ski_and_each_key_of_an_ski_is_tried() {
    let net = Net::new(&[64_496, 65_536]);
    let nlri = v6("2001:db8::", 48);
    let path = net.chain(&[(64_496, 1), (65_536, 1)], nlri, TARGET);
    let peer = Peer::external(TARGET, 65_536);
    let ski = |n: usize| path.signature_blocks()[0].segments[2 - n].ski;
    let key_of = |asn: u32| {
        net.keys
            .router_keys(asn, &ski(if asn == 64_496 { 1 } else { 2 }))
            .to_vec()
    };
    use hopsig_bgp::KeyLookup;
    // A wrong key under each real SKI, listed first: still 'Valid'.
    let impostor = ECDSA_P256_SHA256.generate().unwrap();
    let mut keys = RouterKeys::new();
    for asn in [64_496, 65_536] {
        let real = &key_of(asn)[0];
        keys.insert(RouterKey::new(asn, *real.ski(), impostor.spki()));
        keys.insert(real.clone());
    }
    assert_eq!(Validator::new(&keys).path(&path, &nlri, &peer), valid(1));
    // Only the wrong key for the origin: step 4 fails at N = 1.
    let mut keys = RouterKeys::new();
    keys.insert(key_of(65_536)[0].clone());
    keys.insert(RouterKey::new(64_496, ski(1), impostor.spki()));
    assert_eq!(
        Validator::new(&keys).path(&path, &nlri, &peer),
        Validation::NotValid(NotValid::Signatures(vec![BlockFailure {
            suite: 1,
            fault: BlockFault::BadSignature {
                segment: 1,
                asn: 64_496
            }
        }]))
    );
    // The right key under another AS: step 2 fails (the AS is part of the lookup).
    let mut keys = RouterKeys::new();
    keys.insert(key_of(65_536)[0].clone());
    let origin_key = &key_of(64_496)[0];
    keys.insert(RouterKey::new(64_497, *origin_key.ski(), origin_key.spki()));
    assert!(matches!(
        Validator::new(&keys).path(&path, &nlri, &peer),
        Validation::NotValid(NotValid::Signatures(f)) if f[0].fault == BlockFault::NoKey { segment: 1, asn: 64_496, ski: ski(1) }
    ));
}

#[test]
fn the_first_fault_of_the_walk_is_reported_though_signatures_are_verified_together() {
    // Suite 1 hands a block's signatures to the batch verifier at once; the verdict is
    // still the first fault of RFC 8205 §5.2's walk, newest segment (3) first. Faults
    // come from the keys (a wrong key under the real SKI, or none), as a changed
    // signature would also break every newer one, which signs it.
    let asns = [64_496, 65_536, 64_500];
    let net = Net::new(&asns);
    let nlri = v4("198.51.100.0", 24);
    let path = net.chain(&[(64_496, 1), (65_536, 1), (64_500, 1)], nlri, TARGET);
    let peer = Peer::external(TARGET, 64_500);
    let ski = |n: usize| path.signature_blocks()[0].segments[3 - n].ski;
    let impostor = ECDSA_P256_SHA256.generate().unwrap();
    use hopsig_bgp::KeyLookup;
    #[derive(Clone, Copy)]
    enum K {
        Real,
        Wrong,
        Missing,
    }
    // The verdict with segment n's key as `keys[n - 1]` says.
    let fault = |keys: [K; 3]| {
        let mut lookup = RouterKeys::new();
        for (i, (asn, k)) in asns.iter().zip(keys).enumerate() {
            match k {
                K::Real => lookup.insert(net.keys.router_keys(*asn, &ski(i + 1))[0].clone()),
                K::Wrong => lookup.insert(RouterKey::new(*asn, ski(i + 1), impostor.spki())),
                K::Missing => {}
            }
        }
        match Validator::new(&lookup).path(&path, &nlri, &peer) {
            Validation::NotValid(NotValid::Signatures(f)) => Some(f[0].fault.clone()),
            Validation::Valid { .. } => None,
            other => panic!("{other:?}"),
        }
    };
    let bad = |segment, asn| Some(BlockFault::BadSignature { segment, asn });
    let no_key = |segment: usize, asn| {
        Some(BlockFault::NoKey {
            segment,
            asn,
            ski: ski(segment),
        })
    };
    use K::*;
    assert_eq!(fault([Real, Real, Real]), None);
    assert_eq!(fault([Wrong, Real, Real]), bad(1, 64_496));
    assert_eq!(fault([Wrong, Real, Missing]), no_key(3, 64_500));
    assert_eq!(fault([Wrong, Missing, Real]), no_key(2, 65_536));
    assert_eq!(fault([Missing, Wrong, Real]), bad(2, 65_536));
    assert_eq!(fault([Wrong, Real, Wrong]), bad(3, 64_500));
    assert_eq!(fault([Missing, Real, Wrong]), bad(3, 64_500));
}

#[test]
fn two_suites_sign_two_blocks_and_either_valid_block_makes_the_route_valid() {
    let asns = [64_496, 65_536, 64_500];
    let net = Net::with_suites(&asns, &BOTH);
    let nlri = v4("203.0.113.0", 24);
    let hops = [(64_496, 1), (65_536, 2), (64_500, 1)];
    let path = net.chain(&hops, nlri, TARGET);
    assert_eq!(
        path.signature_blocks()
            .iter()
            .map(|b| b.suite)
            .collect::<Vec<_>>(),
        [1, 0xf7]
    );
    let peer = Peer::external(TARGET, 64_500);
    let both = Validator::with_suites(&BOTH, &net.keys);
    assert_eq!(both.path(&path, &nlri, &peer), valid(1));

    // Spoil one signature of a block by re-signing it for another target.
    let spoil = |suite: u8| {
        let (segments, mut blocks) = path.clone().into_parts();
        let other = net.chain(&hops, nlri, 1);
        let i = blocks.iter().position(|b| b.suite == suite).unwrap();
        blocks[i].segments[0] = other.block(suite).unwrap().segments[0].clone();
        BgpsecPath::new(segments, blocks).unwrap()
    };
    let bad = |suite| BlockFailure {
        suite,
        fault: BlockFault::BadSignature {
            segment: 3,
            asn: 64_500,
        },
    };
    assert_eq!(
        both.path(&spoil(1), &nlri, &peer),
        Validation::Valid {
            suite: 0xf7,
            failed: vec![bad(1)]
        }
    );
    assert_eq!(both.path(&spoil(0xf7), &nlri, &peer), valid(1));
    let (segments, mut blocks) = spoil(1).into_parts();
    blocks[1] = spoil(0xf7).signature_blocks()[1].clone();
    let neither = BgpsecPath::new(segments, blocks).unwrap();
    assert_eq!(
        both.path(&neither, &nlri, &peer),
        Validation::NotValid(NotValid::Signatures(vec![bad(1), bad(0xf7)]))
    );
    // A validator of suite 1 only ignores the other block; one of neither treats the
    // route as unsigned (§5.2).
    assert_eq!(net.validator().path(&spoil(0xf7), &nlri, &peer), valid(1));
    let none = Validator::with_suites(&[], &net.keys);
    assert_eq!(
        none.path(&path, &nlri, &peer),
        Validation::NotValid(NotValid::Unsigned(Unsigned::NoSupportedSuite(vec![
            1, 0xf7
        ])))
    );

    // A router with a suite-1 key only forwards the suite-1 block (§4.2: "MUST remove"
    // the other); one with neither cannot sign the route.
    let only_one = Net::new(&[TARGET]);
    let forwarded = only_one
        .signer(TARGET)
        .sign_path(Some(&path), nlri, &Hop::to(1))
        .unwrap();
    assert_eq!(forwarded.signature_blocks().len(), 1);
    assert_eq!(forwarded.signature_blocks()[0].suite, 1);
    let mut keys = net.keys.clone();
    let newest_ski = forwarded.signature_blocks()[0].segments[0].ski;
    for k in hopsig_bgp::KeyLookup::router_keys(&only_one.keys, TARGET, &newest_ski) {
        keys.insert(k.clone());
    }
    assert_eq!(
        Validator::with_suites(&BOTH, &keys).path(&forwarded, &nlri, &Peer::external(1, TARGET)),
        valid(1)
    );
    let keyless = Signer::new(1);
    assert!(matches!(
        keyless.sign_path(Some(&path), nlri, &Hop::to(2)),
        Err(SignError::NoCommonSuite(s)) if s == [1, 0xf7]
    ));
    assert!(matches!(
        keyless.sign_path(None, nlri, &Hop::to(2)),
        Err(SignError::NoKey)
    ));
}

#[test]
fn a_confederation_signs_inside_and_strips_its_segments_on_the_way_out() {
    // RFC 8205 §4.3: AS 64496 sends to confederation 64999 (members 65001, 65002),
    // which sends on to AS 65537.
    let net = Net::new(&[64_496, 64_999, 65_001, 65_002]);
    let nlri = v4("192.0.2.0", 24);
    let mut chain = Chain::originate(net.signer(64_496), nlri, &Hop::to(64_999)).unwrap();
    // The entry router, in member AS 65001: a segment of the confederation's public
    // AS, pCount 0, flag 1, signed toward its own member AS.
    let entry = Hop {
        target_as: 65_001,
        pcount: 0,
        confed_segment: true,
    };
    chain.forward(net.signer(64_999), &entry).unwrap();
    // Member AS 65001 to member AS 65002.
    let member = Hop {
        target_as: 65_002,
        pcount: 1,
        confed_segment: true,
    };
    chain.forward(net.signer(65_001), &member).unwrap();
    let inside = chain.path().unwrap();
    let from_member = Peer {
        in_confederation: true,
        may_send_pcount_zero: false,
        ..Peer::external(65_002, 65_001)
    };
    assert_eq!(net.validator().path(&inside, &nlri, &from_member), valid(1));
    // From outside, the same path is an error (check 5).
    assert!(matches!(
        malformed(
            &net.validator()
                .path(&inside, &nlri, &Peer::external(65_002, 65_001))
        ),
        Malformed::ConfedSegmentFromOutside { segment: 3 }
    ));
    // The AS_PATH equivalent: the member in a confederation sequence, the entry segment
    // (pCount 0) nowhere.
    let equivalent = as_path_equivalent::as_path(inside.secure_path());
    assert_eq!(equivalent.segments.len(), 2);
    assert_eq!(equivalent.segments[0].asns, [65_001]);
    assert_eq!(equivalent.segments[1].asns, [64_496]);

    // Leaving: strip the two confederation segments, add the confederation's.
    let stripped = without_confed_segments(&inside).unwrap();
    assert_eq!(stripped.secure_path().len(), 1);
    let out = net
        .signer(64_999)
        .sign_path(Some(&stripped), nlri, &Hop::to(TARGET))
        .unwrap();
    assert_eq!(
        out.secure_path().iter().map(|s| s.asn).collect::<Vec<_>>(),
        [64_999, 64_496]
    );
    assert_eq!(
        net.validator()
            .path(&out, &nlri, &Peer::external(TARGET, 64_999)),
        valid(1)
    );
}

#[test]
fn forward_and_originate_follow_rfc_8205_section_4_1() {
    let net = Net::new(&[64_496, 65_536]);
    let nlri = v4("192.0.2.0", 24);
    let kept = |t: u8, flags: u8, value: &[u8]| {
        PathAttribute::with_flags(
            AttrFlags(flags),
            AttributeValue::Other {
                type_code: t,
                value: Cow::Owned(value.to_vec()),
            },
        )
        .unwrap()
    };
    let communities = kept(8, 0xc0, &[0xfd, 0xe8, 0, 1]);
    let med = kept(4, 0x80, &[0, 0, 0, 9]);
    let local_pref = kept(5, 0x40, &[0, 0, 0, 100]);
    // Optional transitive, of a type hopsig does not recognise; and optional
    // non-transitive, unknown too.
    let unknown = kept(0xf0, 0xc0, &[1, 2, 3]);
    let unknown_non_transitive = kept(0xf1, 0x80, &[4]);
    let u = net
        .signer(64_496)
        .originate(
            nlri,
            next_hop(&nlri),
            vec![
                communities.clone(),
                med,
                local_pref,
                origin_attr(),
                unknown,
                unknown_non_transitive,
            ],
            &Hop::to(65_536),
        )
        .unwrap();
    // Ascending type codes (RFC 4271 §5).
    let types: Vec<u8> = u.attributes.iter().map(PathAttribute::type_code).collect();
    assert_eq!(types, [1, 4, 5, 8, 14, 33, 0xf0, 0xf1]);
    let nh = NextHop::V4(Ipv4Addr::new(203, 0, 113, 9));
    let f = net
        .signer(65_536)
        .forward(&u, Some(nh), &Hop::to(TARGET))
        .unwrap();
    // MED, LOCAL_PREF and the unknown non-transitive attribute stay behind;
    // COMMUNITIES goes on, and the unknown transitive one with the Partial bit set
    // (RFC 4271 §5); the next hop is the new one.
    let types: Vec<u8> = f.attributes.iter().map(PathAttribute::type_code).collect();
    assert_eq!(types, [1, 8, 14, 33, 0xf0]);
    assert_eq!(f.attribute(AttrType::Communities), Some(&communities));
    assert_eq!(f.attributes[4], kept(0xf0, 0xe0, &[1, 2, 3]));
    assert_eq!(f.mp_reach().unwrap().next_hop(), nh);
    assert_eq!(
        net.validator()
            .message(&message(&f), &Peer::external(TARGET, 65_536)),
        valid(1)
    );
    // The same UPDATE encoded once, as a speaker sends it: it validates, and differs
    // from the two-step encoding only in the signature (ECDSA's random k).
    let once = net
        .signer(65_536)
        .forward_message(&u, Some(nh), &Hop::to(TARGET))
        .unwrap();
    assert_eq!(
        net.validator()
            .message(&once, &Peer::external(TARGET, 65_536)),
        valid(1)
    );
    let types: Vec<u8> = update(&once)
        .attributes
        .iter()
        .map(PathAttribute::type_code)
        .collect();
    assert_eq!(types, [1, 8, 14, 33, 0xf0]);

    // The signer builds AS_PATH-free BGPsec UPDATEs only.
    let as_path = PathAttribute::new(
        AttributeValue::AsPath(AsPath::sequence(vec![1])),
        AsWidth::Four,
    )
    .unwrap();
    assert!(matches!(
        net.signer(64_496)
            .originate(nlri, next_hop(&nlri), vec![as_path.clone()], &Hop::to(1)),
        Err(SignError::Attribute(2))
    ));
    // An unsigned UPDATE is never given a BGPsec_PATH by a transit router (§4.1).
    let unsigned = Update {
        attributes: vec![origin_attr(), as_path],
        ..u.clone()
    };
    assert!(matches!(
        net.signer(65_536)
            .forward(&unsigned, None, &Hop::to(TARGET)),
        Err(SignError::NotBgpsec)
    ));
    // A next hop of the other family is refused.
    assert!(matches!(
        net.signer(64_496).originate(
            nlri,
            NextHop::V6(Ipv6Addr::LOCALHOST),
            vec![origin_attr()],
            &Hop::to(1)
        ),
        Err(SignError::Encode(_))
    ));
}

#[test]
fn a_path_too_long_for_one_message_is_refused() {
    // About 40 hops of suite 1 fill BGP's 4096 octets (RFC 8205 §4.1).
    let asns: Vec<u32> = (0..45).map(|i| 64_600 + i).collect();
    let net = Net::new(&asns);
    let nlri = v4("192.0.2.0", 24);
    let hops: Vec<(u32, u8)> = asns[..44].iter().map(|&a| (a, 1)).collect();
    let path = net.chain(&hops, nlri, asns[44]);
    let received = Update {
        attributes: vec![
            origin_attr(),
            PathAttribute::new(
                AttributeValue::MpReachNlri(
                    hopsig_bgp::packet::MpReachNlri::new(
                        nlri.safi,
                        next_hop(&nlri),
                        vec![nlri.prefix],
                    )
                    .unwrap(),
                ),
                AsWidth::Four,
            )
            .unwrap(),
            PathAttribute::new(AttributeValue::BgpsecPath(path), AsWidth::Four).unwrap(),
        ],
        ..Update::default()
    };
    let err = net
        .signer(asns[44])
        .forward(&received, None, &Hop::to(TARGET))
        .unwrap_err();
    assert!(matches!(err, SignError::TooLarge(n) if n > 4096), "{err}");
    let err = net
        .signer(asns[44])
        .forward_message(&received, None, &Hop::to(TARGET))
        .unwrap_err();
    assert!(matches!(err, SignError::TooLarge(n) if n > 4096), "{err}");
}

/// A signed 3-hop UPDATE of IPv4 /22 (two trailing bits) with prepending, the keys,
/// and where its BGPsec_PATH attribute and NLRI sit in the message.
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
        let net = Net::new(&[64_496, 65_536, 64_500]);
        let nlri = v4("198.51.100.0", 22);
        let a = net
            .signer(64_496)
            .originate(
                nlri,
                next_hop(&nlri),
                vec![origin_attr()],
                &Hop {
                    pcount: 2,
                    ..Hop::to(65_536)
                },
            )
            .unwrap();
        let b = net
            .signer(65_536)
            .forward(&a, None, &Hop::to(64_500))
            .unwrap();
        let c = net
            .signer(64_500)
            .forward(
                &b,
                None,
                &Hop {
                    pcount: 3,
                    ..Hop::to(TARGET)
                },
            )
            .unwrap();
        let bytes = message(&c);
        let attr = c.attribute(AttrType::BgpsecPath).unwrap();
        let mut w = hopsig_primitives::codec::Writer::new();
        attr.encode(&mut w, AsWidth::Four).unwrap();
        let attr = w.into_bytes();
        let start = bytes.windows(attr.len()).position(|w| w == attr).unwrap();
        let prefix = [22, 198, 51, 100];
        let prefix_at = bytes.windows(4).position(|w| w == prefix).unwrap();
        Signed {
            bytes,
            keys: net.keys,
            attribute: start..start + attr.len(),
            // flags, type, two-octet length when over 255 octets
            secure_path_at: start + if attr[0] & 0x10 != 0 { 4 } else { 3 },
            prefix_at,
        }
    })
}

fn verdict_of(bytes: &[u8]) -> Validation {
    let s = signed();
    Validator::new(&s.keys).message(bytes, &Peer::external(TARGET, 64_500))
}

#[test]
fn every_bit_of_the_bgpsec_path_attribute_is_covered() {
    let s = signed();
    assert_eq!(verdict_of(&s.bytes), valid(1));
    for i in s.attribute.clone() {
        for bit in 0..8 {
            let mut t = s.bytes.clone();
            t[i] ^= 1 << bit;
            let v = verdict_of(&t);
            if i == s.attribute.start {
                // The Attribute Flags octet: Optional and Transitive must match the
                // type (malformed otherwise); Extended Length changes the framing;
                // Partial and the four unused bits are ignored on receipt (RFC 4271
                // §4.3, RFC 7606 §3 c) — no signature covers them, by the RFCs' design.
                match 0x80u8 >> (7 - bit) {
                    0x20 | 0x08 | 0x04 | 0x02 | 0x01 => assert_eq!(v, valid(1)),
                    _ => assert!(matches!(v, Validation::NotValid(NotValid::Malformed(_)))),
                }
                continue;
            }
            assert!(!v.is_valid(), "octet {i} bit {bit}: {v:?}");
        }
    }
}

#[test]
fn the_trailing_bits_of_the_prefix_are_the_only_nlri_bits_not_signed() {
    let s = signed();
    // The /22's octets: length, then three prefix octets of which the last has two
    // trailing bits (RFC 8205 §4.2: set to 0 before signing).
    for octet in 0..4 {
        for bit in 0..8 {
            let mut t = s.bytes.clone();
            t[s.prefix_at + octet] ^= 1 << bit;
            let v = verdict_of(&t);
            if octet == 3 && bit < 2 {
                assert_eq!(v, valid(1), "trailing bit {bit}");
            } else {
                assert!(!v.is_valid(), "octet {octet} bit {bit}: {v:?}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_octet_of_the_attribute_replaced_is_never_valid(pick in any::<prop::sample::Index>(), value in any::<u8>()) {
        let s = signed();
        // Past the flags octet (covered by the exhaustive test above).
        let i = s.attribute.start + 1 + pick.index(s.attribute.len() - 1);
        prop_assume!(s.bytes[i] != value);
        let mut t = s.bytes.clone();
        t[i] = value;
        prop_assert!(!verdict_of(&t).is_valid());
    }

    #[test]
    fn any_as_of_the_secure_path_changed_is_never_valid(segment in 0usize..3, asn in any::<u32>()) {
        let s = signed();
        let at = s.secure_path_at + 2 + 6 * segment + 2;
        let mut t = s.bytes.clone();
        prop_assume!(t[at..at + 4] != asn.to_be_bytes());
        t[at..at + 4].copy_from_slice(&asn.to_be_bytes());
        let v = verdict_of(&t);
        prop_assert!(!v.is_valid(), "{:?}", v);
    }

    #[test]
    fn any_prefix_length_changed_is_never_valid(len in any::<u8>()) {
        let s = signed();
        prop_assume!(len != 22);
        let mut t = s.bytes.clone();
        t[s.prefix_at] = len;
        prop_assert!(!verdict_of(&t).is_valid());
    }

    #[test]
    fn arbitrary_octets_never_panic_the_validator(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let _ = verdict_of(&bytes);
        // …nor a mutated signed message, with its framing intact.
        let s = signed();
        let mut t = s.bytes.clone();
        for (i, b) in bytes.iter().enumerate().take(8) {
            let at = 19 + (usize::from(*b) * 7 + i * 31) % (t.len() - 19);
            t[at] = bytes[(i + 1) % bytes.len().max(1)..].first().copied().unwrap_or(0);
        }
        let _ = verdict_of(&t);
    }
}
