//! Validation of many UPDATEs in one batch (issue 28, `hopsig_bgp::prefetch`):
//! `Validator::updates` / `Validator::messages` give every UPDATE the verdict that
//! `Validator::update` / `Validator::message` gives it alone, in order — the same
//! fault, down to the segment — and leave the signature cache exactly as validating
//! them one by one does (its counters, and through them its contents), over the RIS
//! files signed by `sign-mrt` with tampered octets, keys missing from the view, a
//! rolled-over key under the same SKI, and over suite 1, the per-segment RSA suite
//! and BGR's aggregate suite mixed, with two blocks in one UPDATE.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod bgpsec_common;
mod common;

use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::sync::OnceLock;

use hopsig_bgp::cache::SignatureCache;
use hopsig_bgp::mrt::bgp4mp::{Bgp4mpMessage, MrtRecord, Records};
use hopsig_bgp::mrt::decompressed;
use hopsig_bgp::packet::{AsWidth, BgpsecPath, Message, Prefix, Update};
use hopsig_bgp::suite::{BGR_RSA2048, ECDSA_P256_SHA256, RSA2048_PKCS1_SHA256};
use hopsig_bgp::trace::validate::{validate_record, Outcome};
use hopsig_bgp::trace::{sign_mrt, validate_mrt_cached, Keyring, SignOptions};
use hopsig_bgp::{
    AlgorithmSuite, Chain, Hop, Peer, RouterKey, RouterKeys, SignedNlri, Signer, Validation,
    Validator, SUITES,
};
use hopsig_primitives::codec::Reader;
use proptest::prelude::*;

/// Suite 1 UPDATEs of a RIS file signed as `sign-mrt` signs them, each with the
/// validator's peer, and the keys.
struct Ris {
    signed: Vec<u8>,
    messages: Vec<(Vec<u8>, Peer)>,
    ring: Keyring,
}

fn ris() -> &'static Ris {
    static R: OnceLock<Ris> = OnceLock::new();
    R.get_or_init(|| {
        let file = std::fs::File::open(common::mrt_file("ris-updates.20100722.2015.gz")).unwrap();
        let mut signed = Vec::new();
        let mut ring = Keyring::new(&ECDSA_P256_SHA256);
        let options = SignOptions {
            default_target_as: 12_654,
            limit: Some(400),
            threads: 2,
        };
        sign_mrt(
            decompressed(file).unwrap(),
            &mut signed,
            &mut ring,
            &options,
            &mut |_| {},
        )
        .unwrap();
        let messages = Records::new(signed.as_slice())
            .map(|r| {
                let record = r.unwrap();
                let mrt = MrtRecord::read(&mut Reader::new(&record)).unwrap();
                let m = Bgp4mpMessage::decode(&mrt).unwrap().unwrap();
                assert_eq!(m.width, AsWidth::Four);
                (m.message.to_vec(), Peer::external(m.local_as, m.peer_as))
            })
            .collect();
        Ris {
            signed,
            messages,
            ring,
        }
    })
}

/// A deterministic stream of numbers (SplitMix64), for picking what to tamper.
struct Mix(u64);

impl Mix {
    fn next(&mut self, below: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % below as u64) as usize
    }
}

/// The RIS messages, then each again with one octet past the header changed (in the
/// last 80 octets — a signature, mostly — for most, anywhere for the others), then a
/// few repeated: what a collector sees, copies and damage mixed.
fn workload(seed: u64) -> Vec<(Vec<u8>, Peer)> {
    let r = ris();
    let mut mix = Mix(seed);
    let mut out = r.messages.clone();
    for (m, peer) in &r.messages {
        let mut bytes = m.clone();
        let at = if mix.next(4) > 0 {
            bytes.len() - 1 - mix.next(80.min(bytes.len() - 19))
        } else {
            19 + mix.next(bytes.len() - 19)
        };
        bytes[at] ^= 1 + mix.next(255) as u8;
        out.push((bytes, *peer));
    }
    for _ in 0..50 {
        let i = mix.next(out.len());
        out.push(out[i].clone());
    }
    // Interleaved, so that copies and their tampered twins share batches.
    for i in (1..out.len()).rev() {
        out.swap(i, mix.next(i + 1));
    }
    out
}

/// Each message's verdict alone and in one batch, with and without a cache of
/// `budget` bytes: the same verdicts, and the caches' counters the same.
fn same_as_alone(keys: &RouterKeys, messages: &[(Vec<u8>, Peer)], budget: usize) {
    let refs: Vec<(&[u8], &Peer)> = messages.iter().map(|(m, p)| (m.as_slice(), p)).collect();
    let plain = Validator::with_suites(SUITES, keys);
    let alone: Vec<Validation> = refs.iter().map(|(m, p)| plain.message(m, p)).collect();
    assert_eq!(plain.messages(&refs), alone);
    let (one, all) = (SignatureCache::new(budget), SignatureCache::new(budget));
    let cached_alone: Vec<Validation> = refs
        .iter()
        .map(|(m, p)| plain_with(keys, &one).message(m, p))
        .collect();
    assert_eq!(cached_alone, alone);
    // In batches of 64, as validate-mrt hands them over.
    let mut batched = Vec::new();
    for chunk in refs.chunks(64) {
        batched.extend(plain_with(keys, &all).messages(chunk));
    }
    assert_eq!(batched, alone);
    assert_eq!(all.stats(), one.stats());
}

fn plain_with<'v>(keys: &'v RouterKeys, cache: &'v SignatureCache) -> Validator<'v> {
    Validator::with_suites(SUITES, keys).with_cache(cache)
}

#[test]
fn ris_updates_in_a_batch_get_the_verdicts_they_get_alone() {
    let r = ris();
    let work = workload(1);
    let keys = r.ring.router_keys();
    let refs: Vec<(&[u8], &Peer)> = work.iter().map(|(m, p)| (m.as_slice(), p)).collect();
    let verdicts = Validator::with_suites(SUITES, &keys).messages(&refs);
    // Both outcomes are there: every untampered message valid, most tampered ones
    // not.
    let valid = verdicts.iter().filter(|v| v.is_valid()).count();
    assert!(valid >= r.messages.len(), "{valid}");
    assert!(valid < work.len() - r.messages.len() / 2, "{valid}");
    // A cache large enough to keep everything, and one so small it evicts within a
    // batch (what pass 1 saw cached may be gone when the walk asks).
    for budget in [64 << 20, 4 << 10, 0] {
        same_as_alone(&keys, &work, budget);
    }
}

/// validate-mrt, which validates each batch of records together: every record's
/// outcome and the cache's counters are those of `validate_record` of each record in
/// turn, with every seventh record's last octet (its UPDATE's) changed.
#[test]
fn validate_mrt_gives_each_record_the_outcome_it_gets_alone() {
    let r = ris();
    let mut records: Vec<Vec<u8>> = Records::new(r.signed.as_slice())
        .map(Result::unwrap)
        .collect();
    for record in records.iter_mut().skip(3).step_by(7) {
        *record.last_mut().unwrap() ^= 0x21;
    }
    let file: Vec<u8> = records.concat();
    let keys = r.ring.router_keys();
    let (one, all) = (SignatureCache::new(64 << 20), SignatureCache::new(64 << 20));
    let v = Validator::with_suites(SUITES, &keys).with_cache(&one);
    let alone: Vec<Outcome> = records.iter().map(|rec| validate_record(rec, &v)).collect();
    let mut batched = Vec::new();
    let mut each = |i: u64, o: &Outcome| batched.push((i, o.clone()));
    let report = validate_mrt_cached(
        file.as_slice(),
        &keys,
        &all,
        1,
        &mut |_| {},
        Some(&mut each),
    )
    .unwrap();
    let want: Vec<(u64, Outcome)> = (0u64..).zip(alone).collect();
    assert_eq!(batched, want);
    assert_eq!(all.stats(), one.stats());
    assert!(
        report.valid > 0 && report.not_valid_total() > 0,
        "{report:?}"
    );
    assert_eq!(report.backend, ECDSA_P256_SHA256.verifier());
}

#[test]
fn keys_missing_from_the_view_give_the_verdicts_they_give_alone() {
    let r = ris();
    let work = workload(2);
    // Every third AS's key withdrawn: step 2 stops some walks part way.
    let mut some = RouterKeys::new();
    for (i, k) in r.ring.public_keys().into_iter().enumerate() {
        if i % 3 != 0 {
            some.insert(k);
        }
    }
    same_as_alone(&some, &work, 64 << 20);
    same_as_alone(&RouterKeys::new(), &work, 64 << 20);
}

#[test]
fn a_rolled_over_key_under_the_same_ski_gives_the_verdicts_it_gives_alone() {
    let r = ris();
    let work = workload(3);
    // Each AS's (AS, SKI) also names another key, listed first for half of them:
    // their signatures fail under the first key tried and verify under the second,
    // which the batch did not collect.
    let mut keys = RouterKeys::new();
    for (i, k) in r.ring.public_keys().into_iter().enumerate() {
        let other = ECDSA_P256_SHA256.generate().unwrap();
        let decoy = RouterKey::new(k.asn(), *k.ski(), other.spki());
        if i % 2 == 0 {
            keys.insert(decoy);
            keys.insert(k);
        } else {
            keys.insert(k);
            keys.insert(decoy);
        }
    }
    let refs: Vec<(&[u8], &Peer)> = r.messages.iter().map(|(m, p)| (m.as_slice(), p)).collect();
    assert!(Validator::with_suites(SUITES, &keys)
        .messages(&refs)
        .iter()
        .all(Validation::is_valid));
    same_as_alone(&keys, &work, 64 << 20);
}

const TARGET: u32 = 65_000;

/// Routers of ASes 1..=6, each with a key of suite 1, of the per-segment RSA suite
/// and of BGR, and the view's keys.
struct Net {
    signers: HashMap<(u8, u32), Signer<'static>>,
    both: HashMap<u32, Signer<'static>>,
    keys: RouterKeys,
}

fn net() -> &'static Net {
    static N: OnceLock<Net> = OnceLock::new();
    N.get_or_init(|| {
        let suites: [&'static dyn AlgorithmSuite; 3] =
            [&ECDSA_P256_SHA256, &RSA2048_PKCS1_SHA256, &BGR_RSA2048];
        let mut signers = HashMap::new();
        let mut both = HashMap::new();
        let mut keys = RouterKeys::new();
        for asn in 1..=6 {
            for suite in suites {
                let key = suite.generate().unwrap();
                keys.insert(RouterKey::new(asn, *key.ski(), key.spki()));
                signers.insert(
                    (suite.id(), asn),
                    Signer::new(asn).with_key(suite, key).unwrap(),
                );
            }
            // Suite 1 and BGR together, keys of their own: UPDATEs with two blocks.
            let mut two = Signer::new(asn);
            for suite in [suites[0], suites[2]] {
                let key = suite.generate().unwrap();
                keys.insert(RouterKey::new(asn, *key.ski(), key.spki()));
                two = two.with_key(suite, key).unwrap();
            }
            both.insert(asn, two);
        }
        Net {
            signers,
            both,
            keys,
        }
    })
}

fn nlri(third: u8) -> SignedNlri {
    SignedNlri::unicast(Prefix::new(Ipv4Addr::new(198, 51, third, 0).into(), 24).unwrap())
}

/// `hops` sign `nlri` in turn, each toward the next, the last toward [`TARGET`].
fn path(
    signer: impl Fn(u32) -> &'static Signer<'static>,
    hops: &[u32],
    nlri: SignedNlri,
) -> BgpsecPath<'static> {
    let to = |i: usize| hops.get(i + 1).copied().unwrap_or(TARGET);
    let mut chain = Chain::originate(signer(hops[0]), nlri, &Hop::to(to(0))).unwrap();
    for (i, asn) in hops.iter().enumerate().skip(1) {
        chain.forward(signer(*asn), &Hop::to(to(i))).unwrap();
    }
    chain.path().unwrap()
}

/// Paths of every suite, some sharing hops, and paths with a suite 1 and a BGR block.
fn mixed() -> &'static Vec<Vec<u8>> {
    static M: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    M.get_or_init(|| {
        let n = net();
        let mut out = Vec::new();
        let routes: [&[u32]; 4] = [&[1, 2, 3], &[1, 2, 4], &[6, 5, 4, 3], &[2]];
        for (third, hops) in routes.iter().enumerate() {
            let p = nlri(third as u8);
            for suite in [
                ECDSA_P256_SHA256.id(),
                RSA2048_PKCS1_SHA256.id(),
                BGR_RSA2048.id(),
            ] {
                out.push(bgpsec_common::announcement(
                    path(|asn| &n.signers[&(suite, asn)], hops, p),
                    p,
                ));
            }
            out.push(bgpsec_common::announcement(
                path(|asn| &n.both[&asn], hops, p),
                p,
            ));
        }
        out
    })
}

/// Two messages have two blocks, so the second block is met.
#[test]
fn the_mixed_corpus_has_every_suite_and_two_blocks() {
    let n = net();
    let peer = Peer::any_external(TARGET);
    for m in mixed() {
        let u = match Message::decode(m, AsWidth::Four).unwrap() {
            Message::Update(u) => u,
            other => panic!("{other:?}"),
        };
        let blocks = u.bgpsec_path().unwrap().signature_blocks().len();
        assert!(blocks == 1 || blocks == 2);
        assert!(Validator::with_suites(SUITES, &n.keys)
            .message(m, &peer)
            .is_valid());
    }
    let two = mixed()
        .iter()
        .filter(|m| {
            let Ok(Message::Update(u)) = Message::decode(m, AsWidth::Four) else {
                return false;
            };
            u.bgpsec_path().unwrap().signature_blocks().len() == 2
        })
        .count();
    assert_eq!(two, 4);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any selection of the mixed corpus, in any order, some octets changed, with all
    /// the keys or some withdrawn: the batch's verdicts and cache counters are those
    /// of one message at a time.
    #[test]
    fn every_suite_mixed_in_a_batch_gets_the_verdicts_it_gets_alone(
        picks in prop::collection::vec(
            (any::<prop::sample::Index>(), prop::option::of((any::<prop::sample::Index>(), 1u8..=255))),
            1..24,
        ),
        withdrawn in prop::option::of(1u32..=6),
        budget in prop::sample::select(vec![0usize, 2 << 10, 1 << 20]),
    ) {
        let n = net();
        let corpus = mixed();
        let messages: Vec<(Vec<u8>, Peer)> = picks
            .iter()
            .map(|(pick, tamper)| {
                let mut bytes = corpus[pick.index(corpus.len())].clone();
                if let Some((at, xor)) = tamper {
                    let i = 19 + at.index(bytes.len() - 19);
                    bytes[i] ^= xor;
                }
                (bytes, Peer::any_external(TARGET))
            })
            .collect();
        let mut keys = RouterKeys::new();
        for k in n.keys.iter() {
            if Some(k.asn()) != withdrawn {
                keys.insert(k.clone());
            }
        }
        same_as_alone(&keys, &messages, budget);
    }
}

/// The decoded form: `Validator::updates` as `Validator::update` of each, peers
/// differing (check 2 refuses an UPDATE from the wrong peer without a signature
/// looked at).
#[test]
fn updates_take_each_its_peer() {
    let n = net();
    let corpus = mixed();
    let decoded: Vec<Update<'_>> = corpus
        .iter()
        .map(|m| match Message::decode(m, AsWidth::Four).unwrap() {
            Message::Update(u) => u,
            other => panic!("{other:?}"),
        })
        .collect();
    let peers: Vec<Peer> = (0..decoded.len())
        .map(|i| {
            if i % 3 == 0 {
                Peer::external(TARGET, 64_999)
            } else {
                Peer::any_external(TARGET)
            }
        })
        .collect();
    let pairs: Vec<(&Update<'_>, &Peer)> = decoded.iter().zip(&peers).collect();
    let v = Validator::with_suites(SUITES, &n.keys);
    let alone: Vec<Validation> = pairs.iter().map(|(u, p)| v.update(u, p)).collect();
    assert_eq!(v.updates(&pairs), alone);
    assert!(alone.iter().any(Validation::is_valid));
    assert!(alone.iter().any(|a| !a.is_valid()));
    assert!(v.updates(&[]).is_empty());
}

/// Suite 1 whose batch backend says no to everything: what the walk answers from
/// shows through (the verdicts of a batch are used, not recomputed).
struct Refusing;

impl AlgorithmSuite for Refusing {
    fn id(&self) -> u8 {
        ECDSA_P256_SHA256.id()
    }
    fn name(&self) -> &'static str {
        "refusing"
    }
    fn generate(&self) -> Result<hopsig_bgp::SigningKey, hopsig_bgp::suite::KeyError> {
        ECDSA_P256_SHA256.generate()
    }
    fn signing_key_from_pkcs8(
        &self,
        der: &[u8],
    ) -> Result<hopsig_bgp::SigningKey, hopsig_bgp::suite::KeyError> {
        ECDSA_P256_SHA256.signing_key_from_pkcs8(der)
    }
    fn secret_key_file(
        &self,
        key: &hopsig_bgp::SigningKey,
    ) -> Result<zeroize::Zeroizing<String>, hopsig_bgp::suite::KeyError> {
        ECDSA_P256_SHA256.secret_key_file(key)
    }
    fn signing_key_from_file(
        &self,
        text: &[u8],
    ) -> Result<hopsig_bgp::SigningKey, hopsig_bgp::suite::KeyError> {
        ECDSA_P256_SHA256.signing_key_from_file(text)
    }
    fn verifying_key_from_spki(
        &self,
        spki: &[u8],
    ) -> Result<hopsig_bgp::VerifyingKey, hopsig_bgp::suite::KeyError> {
        ECDSA_P256_SHA256.verifying_key_from_spki(spki)
    }
    fn sign(
        &self,
        key: &hopsig_bgp::SigningKey,
        input: &[u8],
        block: &mut hopsig_bgp::packet::SignatureBlock<'_>,
    ) -> Result<(), hopsig_bgp::SignError> {
        ECDSA_P256_SHA256.sign(key, input, block)
    }
    fn validate(
        &self,
        block: &hopsig_bgp::packet::SignatureBlock<'_>,
        secure_path: &[hopsig_bgp::packet::SecurePathSegment],
        input: &hopsig_bgp::SignatureInput,
        keys: &dyn hopsig_bgp::KeyLookup,
    ) -> Result<(), hopsig_bgp::BlockFault> {
        ECDSA_P256_SHA256.validate(block, secure_path, input, keys)
    }
    fn collect_checks<'c>(
        &self,
        block: &'c hopsig_bgp::packet::SignatureBlock<'_>,
        secure_path: &'c [hopsig_bgp::packet::SecurePathSegment],
        input: &'c hopsig_bgp::SignatureInput,
        keys: &'c dyn hopsig_bgp::KeyLookup,
        cache: Option<&SignatureCache>,
        checks: &mut hopsig_bgp::prefetch::Checks<'c>,
    ) {
        ECDSA_P256_SHA256.collect_checks(block, secure_path, input, keys, cache, checks);
    }
    fn verify_checks(&self, checks: &[hopsig_bgp::prefetch::Check<'_>]) -> Vec<bool> {
        vec![false; checks.len()]
    }
    fn validate_batched(
        &self,
        block: &hopsig_bgp::packet::SignatureBlock<'_>,
        secure_path: &[hopsig_bgp::packet::SecurePathSegment],
        input: &hopsig_bgp::SignatureInput,
        keys: &dyn hopsig_bgp::KeyLookup,
        cache: Option<&SignatureCache>,
        verdicts: &hopsig_bgp::prefetch::Verdicts<'_>,
    ) -> Result<(), hopsig_bgp::BlockFault> {
        ECDSA_P256_SHA256.validate_batched(block, secure_path, input, keys, cache, verdicts)
    }
}

#[test]
fn the_walk_takes_the_batch_verdicts() {
    let r = ris();
    let keys = r.ring.router_keys();
    let refs: Vec<(&[u8], &Peer)> = r.messages[..40]
        .iter()
        .map(|(m, p)| (m.as_slice(), p))
        .collect();
    let suites: [&dyn AlgorithmSuite; 1] = [&Refusing];
    let v = Validator::with_suites(&suites, &keys);
    // Alone, nothing is batched: valid.
    assert!(refs.iter().all(|(m, p)| v.message(m, p).is_valid()));
    // Together, every first-round check is answered by the refusing batch.
    for verdict in v.messages(&refs) {
        assert!(
            matches!(&verdict, Validation::NotValid(hopsig_bgp::NotValid::Signatures(f))
                if matches!(f[..], [hopsig_bgp::BlockFailure { fault: hopsig_bgp::BlockFault::BadSignature { .. }, .. }])),
            "{verdict:?}"
        );
    }
}
