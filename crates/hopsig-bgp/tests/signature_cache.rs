//! The signature cache in validation (issue 25 §3, `hopsig_bgp::cache`): a path that
//! shares upstream segments with one validated before verifies only its new
//! signatures (suite 1, n × RSA 0xF8); a BGR aggregate (0xF7) is one check, cached
//! whole; failures are not cached; a key withdrawn from the view, or replaced under the
//! same SKI, no longer validates whatever the cache holds; and verdicts with a cache
//! are those without, on valid and tampered UPDATEs alike.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod bgpsec_common;

use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::sync::OnceLock;

use hopsig_bgp::cache::{CacheStats, SignatureCache};
use hopsig_bgp::packet::{BgpsecPath, Prefix};
use hopsig_bgp::suite::{BGR_RSA2048, ECDSA_P256_SHA256, RSA2048_PKCS1_SHA256};
use hopsig_bgp::{
    AlgorithmSuite, BlockFault, Chain, Hop, NotValid, Peer, RouterKey, RouterKeys, SignedNlri,
    Signer, Validation, Validator, SUITES,
};
use proptest::prelude::*;

const TARGET: u32 = 65_000;

/// Routers of ASes 1..=n with one key of one suite each, and the view's keys.
struct Net {
    signers: HashMap<u32, Signer<'static>>,
    keys: RouterKeys,
}

impl Net {
    fn new(suite: &'static dyn AlgorithmSuite, n: u32) -> Net {
        let mut signers = HashMap::new();
        let mut keys = RouterKeys::new();
        for asn in 1..=n {
            let key = suite.generate().unwrap();
            keys.insert(RouterKey::new(asn, *key.ski(), key.spki()));
            signers.insert(asn, Signer::new(asn).with_key(suite, key).unwrap());
        }
        Net { signers, keys }
    }

    /// The origin `hops[0]` signs `nlri` toward `hops[1]`: the chain other paths
    /// extend, as the copies of a route downstream of one router share its signature.
    fn originate(&self, hops: &[u32], nlri: SignedNlri) -> Chain {
        let to = hops.get(1).copied().unwrap_or(TARGET);
        Chain::originate(&self.signers[&hops[0]], nlri, &Hop::to(to)).unwrap()
    }

    /// `chain` forwarded by each of `hops` after its first, each toward the next and
    /// the last toward [`TARGET`].
    fn extend(&self, mut chain: Chain, hops: &[u32]) -> BgpsecPath<'static> {
        for (i, asn) in hops.iter().enumerate().skip(1) {
            let to = hops.get(i + 1).copied().unwrap_or(TARGET);
            chain.forward(&self.signers[asn], &Hop::to(to)).unwrap();
        }
        chain.path().unwrap()
    }

    fn path(&self, hops: &[u32], nlri: SignedNlri) -> BgpsecPath<'static> {
        self.extend(self.originate(hops, nlri), hops)
    }
}

fn nlri(third: u8) -> SignedNlri {
    SignedNlri::unicast(Prefix::new(Ipv4Addr::new(198, 51, third, 0).into(), 24).unwrap())
}

fn validate(
    keys: &RouterKeys,
    cache: Option<&SignatureCache>,
    path: &BgpsecPath<'_>,
    nlri: &SignedNlri,
) -> Validation {
    let v = Validator::with_suites(SUITES, keys);
    let v = match cache {
        Some(c) => v.with_cache(c),
        None => v,
    };
    v.path(path, nlri, &Peer::any_external(TARGET))
}

/// (lookups, hits, inserts) since `before`.
fn since(cache: &SignatureCache, before: CacheStats) -> (u64, u64, u64) {
    let now = cache.stats();
    (
        now.lookups - before.lookups,
        now.hits - before.hits,
        now.inserts - before.inserts,
    )
}

/// Per-segment suites: the origin's signature toward AS 2 is shared by two paths; the
/// second verifies its two new signatures only, and a path seen before none.
fn shared_upstream_segments(suite: &'static dyn AlgorithmSuite) {
    let net = Net::new(suite, 4);
    let p = nlri(100);
    let origin = net.originate(&[1, 2, 3], p);
    let a = net.extend(origin.clone(), &[1, 2, 3]);
    let b = net.extend(origin, &[1, 2, 4]);
    let cache = SignatureCache::new(1 << 20);
    let s = cache.stats();
    assert!(validate(&net.keys, Some(&cache), &a, &p).is_valid());
    assert_eq!(since(&cache, s), (3, 0, 3));
    let s = cache.stats();
    assert!(validate(&net.keys, Some(&cache), &b, &p).is_valid());
    assert_eq!(
        since(&cache, s),
        (3, 1, 2),
        "only the origin's segment is shared"
    );
    let s = cache.stats();
    assert!(validate(&net.keys, Some(&cache), &a, &p).is_valid());
    assert_eq!(since(&cache, s), (3, 3, 0));
    assert_eq!(cache.stats().verified(), 5);
}

#[test]
fn suite_1_paths_sharing_upstream_segments_verify_only_their_new_signatures() {
    shared_upstream_segments(&ECDSA_P256_SHA256);
}

#[test]
fn rsa_per_segment_paths_sharing_upstream_segments_verify_only_their_new_signatures() {
    shared_upstream_segments(&RSA2048_PKCS1_SHA256);
}

#[test]
fn a_bgr_aggregate_is_one_check_cached_whole() {
    let net = Net::new(&BGR_RSA2048, 4);
    let p = nlri(101);
    let origin = net.originate(&[1, 2, 3], p);
    let a = net.extend(origin.clone(), &[1, 2, 3]);
    let b = net.extend(origin, &[1, 2, 4]);
    let cache = SignatureCache::new(1 << 20);
    let s = cache.stats();
    assert!(validate(&net.keys, Some(&cache), &a, &p).is_valid());
    assert_eq!(since(&cache, s), (1, 0, 1));
    let s = cache.stats();
    // A shared origin is no shared check: the aggregate covers the whole path.
    assert!(validate(&net.keys, Some(&cache), &b, &p).is_valid());
    assert_eq!(since(&cache, s), (1, 0, 1));
    let s = cache.stats();
    assert!(validate(&net.keys, Some(&cache), &a, &p).is_valid());
    assert_eq!(since(&cache, s), (1, 1, 0));
    // Another prefix under the same aggregate octets: not valid, not cached.
    let s = cache.stats();
    assert!(!validate(&net.keys, Some(&cache), &a, &nlri(102)).is_valid());
    assert_eq!(since(&cache, s), (1, 0, 0));
}

#[test]
fn a_signature_that_fails_is_checked_again_each_time() {
    let net = Net::new(&ECDSA_P256_SHA256, 3);
    let p = nlri(103);
    let (segments, mut blocks) = net.path(&[1, 2, 3], p).into_parts();
    // The newest segment's signature, its last octet changed (r and s stay in range:
    // a canonical DER signature that does not verify).
    let sig = blocks[0].segments[0].signature.to_mut();
    let last = sig.len() - 1;
    sig[last] ^= 1;
    let path = BgpsecPath::new(segments, blocks).unwrap();
    let cache = SignatureCache::new(1 << 20);
    for round in 0..3 {
        let s = cache.stats();
        let v = validate(&net.keys, Some(&cache), &path, &p);
        assert_eq!(v, validate(&net.keys, None, &path, &p));
        let Validation::NotValid(NotValid::Signatures(f)) = v else {
            panic!("{v:?}")
        };
        assert_eq!(f[0].fault, BlockFault::BadSignature { segment: 3, asn: 3 });
        // Every segment is checked (one batch); the two good ones are cached the
        // first time, the bad one never.
        let (lookups, hits, inserts) = since(&cache, s);
        assert_eq!(lookups, 3);
        assert_eq!((hits, inserts), if round == 0 { (0, 2) } else { (2, 0) });
    }
    assert_eq!(cache.stats().entries, 2);
}

#[test]
fn a_key_withdrawn_from_the_view_no_longer_validates_through_the_cache() {
    let net = Net::new(&ECDSA_P256_SHA256, 3);
    let p = nlri(104);
    let path = net.path(&[1, 2, 3], p);
    let cache = SignatureCache::new(1 << 20);
    assert!(validate(&net.keys, Some(&cache), &path, &p).is_valid());
    assert!(validate(&net.keys, Some(&cache), &path, &p).is_valid());
    assert_eq!(cache.stats().hits, 3);
    let key_2 = net.keys.iter().find(|k| k.asn() == 2).unwrap().clone();

    // AS 2's key withdrawn from the RPKI: step 2 finds no key, whatever is cached.
    let withdrawn: RouterKeys = net.keys.iter().filter(|k| k.asn() != 2).cloned().collect();
    let v = validate(&withdrawn, Some(&cache), &path, &p);
    assert_eq!(v, validate(&withdrawn, None, &path, &p));
    let Validation::NotValid(NotValid::Signatures(f)) = &v else {
        panic!("{v:?}")
    };
    assert!(
        matches!(
            f[0].fault,
            BlockFault::NoKey {
                segment: 2,
                asn: 2,
                ..
            }
        ),
        "{v:?}"
    );

    // AS 2's SKI now names another key (a rollover, or a collision across views):
    // the cache is asked about that key's bytes, misses, and the signature fails.
    let other = ECDSA_P256_SHA256.generate().unwrap();
    let replaced: RouterKeys = withdrawn
        .iter()
        .cloned()
        .chain([RouterKey::new(2, *key_2.ski(), other.spki())])
        .collect();
    let s = cache.stats();
    let v = validate(&replaced, Some(&cache), &path, &p);
    assert_eq!(v, validate(&replaced, None, &path, &p));
    let Validation::NotValid(NotValid::Signatures(f)) = &v else {
        panic!("{v:?}")
    };
    assert_eq!(f[0].fault, BlockFault::BadSignature { segment: 2, asn: 2 });
    // ASes 1 and 3 hit; AS 2's check under the other key missed and was not cached.
    assert_eq!(since(&cache, s), (3, 2, 0));

    // The key back in the view: valid again, from the cache.
    let s = cache.stats();
    assert!(validate(&net.keys, Some(&cache), &path, &p).is_valid());
    assert_eq!(since(&cache, s), (3, 3, 0));
}

/// A few signed UPDATEs (some sharing their upstream segments) over one network, as
/// whole messages, with their keys.
struct Corpus {
    keys: RouterKeys,
    messages: Vec<Vec<u8>>,
}

fn corpus() -> &'static Corpus {
    static C: OnceLock<Corpus> = OnceLock::new();
    C.get_or_init(|| {
        let net = Net::new(&ECDSA_P256_SHA256, 6);
        let mut messages = vec![];
        for (third, paths) in [
            (1, &[&[1, 2, 3][..], &[1, 2, 4], &[1, 5]][..]),
            (2, &[&[6, 5, 4, 3][..], &[6, 5, 4, 2]]),
            (3, &[&[2][..], &[2, 1]]),
        ] {
            let p = nlri(third);
            let origin = net.originate(paths[0], p);
            for hops in paths {
                // Same origin AS and next AS: the origin's segment is shared.
                let path = if hops.get(1) == paths[0].get(1) {
                    net.extend(origin.clone(), hops)
                } else {
                    net.path(hops, p)
                };
                messages.push(bgpsec_common::announcement(path, p));
            }
        }
        Corpus {
            keys: net.keys,
            messages,
        }
    })
}

/// One cache for every case, so that later cases meet what earlier ones cached.
fn shared_cache() -> &'static SignatureCache {
    static C: OnceLock<SignatureCache> = OnceLock::new();
    C.get_or_init(|| SignatureCache::new(1 << 20))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Valid messages and messages with one octet changed (a signature, an SKI, an
    /// AS, the prefix, anything): the verdict with the shared cache is the verdict
    /// without one, and a tampered message never turns a later valid one's check
    /// into a false 'Valid' (each case checks both orders through the shared cache).
    #[test]
    fn verdicts_with_the_cache_are_those_without(
        pick in any::<prop::sample::Index>(),
        tamper in prop::option::of((any::<prop::sample::Index>(), 1u8..=255)),
    ) {
        let c = corpus();
        let mut bytes = c.messages[pick.index(c.messages.len())].clone();
        if let Some((at, xor)) = tamper {
            // Past the 19-octet header, whose damage the codec alone judges.
            let i = 19 + at.index(bytes.len() - 19);
            bytes[i] ^= xor;
        }
        let peer = Peer::any_external(TARGET);
        let plain = Validator::with_suites(SUITES, &c.keys);
        let cached = Validator::with_suites(SUITES, &c.keys).with_cache(shared_cache());
        let want = plain.message(&bytes, &peer);
        prop_assert_eq!(cached.message(&bytes, &peer), want.clone());
        prop_assert_eq!(cached.message(&bytes, &peer), want);
        for m in &c.messages {
            prop_assert!(cached.message(m, &peer).is_valid());
        }
    }
}

#[test]
fn the_corpus_validates_and_hits() {
    let c = corpus();
    let cache = SignatureCache::new(1 << 20);
    let peer = Peer::any_external(TARGET);
    let v = Validator::with_suites(SUITES, &c.keys).with_cache(&cache);
    for m in &c.messages {
        assert!(v.message(m, &peer).is_valid());
    }
    let first = cache.stats();
    // The shared origin segments hit already in the first pass.
    assert!(first.hits > 0, "{first:?}");
    for m in &c.messages {
        assert!(v.message(m, &peer).is_valid());
    }
    let second = cache.stats();
    assert_eq!(second.hits - first.hits, second.lookups - first.lookups);
}
