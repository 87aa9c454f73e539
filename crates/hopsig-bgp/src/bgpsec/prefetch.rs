//! The signature checks of many UPDATEs verified in one batch, ahead of the walk
//! (issue 28): what [`crate::Validator::updates`] and [`crate::Validator::messages`]
//! do, for validate-mrt, the speaker's workers, `replay` and Python.
//!
//! One path of suite 1 carries 3–5 signatures, too few to fill the eight lanes of a
//! multi-buffer verifier, let alone to amortise its set-up; the signatures of a few
//! dozen UPDATEs fill them. Validation of a batch of UPDATEs is therefore two passes:
//!
//! 1. **Collect.** Each UPDATE is screened (§5.2 checks 1–8) and its first
//!    Signature_Block of a supported suite walked as [`AlgorithmSuite::validate`]
//!    walks it, but only to *collect* the checks the walk would verify first
//!    ([`AlgorithmSuite::collect_checks`]: RFC 8205 §5.2 step 2 finds the keys, up
//!    to the first segment without one; steps 3–4 would verify each signature under
//!    the segment's first key). A check the signature cache holds is left out — the
//!    walk will find it there —, and a check met twice is collected once ([`Checks`]).
//!    The cache is only *peeked at* ([`SignatureCache::contains`]): neither its
//!    counters nor its LRU order change in this pass.
//! 2. **Verify** every collected check in batches of at most [`CHUNK`] per suite, one
//!    call of the suite's batch backend each ([`AlgorithmSuite::verify_checks`]:
//!    `hopsig_schemes::batch::default_backend`, the multi-buffer P-256 verifier
//!    where the CPU has AVX-512 IFMA), giving [`Verdicts`].
//! 3. **Walk.** Each UPDATE is validated exactly as [`crate::Validator::update`]
//!    validates it — same blocks in the same order, same cache lookups and inserts —,
//!    a signature check whose verdict is in [`Verdicts`] being answered from there
//!    instead of being verified again ([`AlgorithmSuite::validate_batched`]). A check
//!    not collected (a later key of a rolled-over (AS, SKI), a second block, a check
//!    the cache held in pass 1 and evicted since) is verified in the walk, as alone.
//!
//! Verdicts, faults and the cache's counters are therefore those of validating each
//! UPDATE alone, in order (the tests of `bgpsec::validate` and `trace::validate`
//! compare them): a verdict is a function of the check's whole input — suite, key,
//! signed octets, signature —, which is what a [`Check`] is and compares by, and the
//! walk makes the cache the same calls in the same order.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

use crate::router_key::RouterKey;
use crate::suite::AlgorithmSuite;

/// Most checks handed to a backend in one call: enough to fill a multi-buffer
/// verifier's lanes many times over (8 per pass) and to amortise its per-batch work
/// (one inversion for all `s⁻¹`), few enough that a batch's scratch stays in cache.
pub const CHUNK: usize = 1024;

/// One signature check of RFC 8205 §5.2 steps 3–4: whether `signature` verifies over
/// `octets` under `key` for suite `suite`. Two checks are equal when their whole
/// inputs are — suite, the key's DER SubjectPublicKeyInfo, the octets, the signature
/// —, so an equal check has the same verdict.
#[derive(Debug, Clone, Copy)]
pub struct Check<'c> {
    /// The Algorithm Suite Identifier.
    pub suite: u8,
    /// The router key, parsed by the suite ([`RouterKey::for_suite`]).
    pub key: &'c RouterKey,
    /// Hop N's signed octets (RFC 8205 §4.2, Figure 8).
    pub octets: &'c [u8],
    /// The Signature field of Signature Segment N.
    pub signature: &'c [u8],
}

impl PartialEq for Check<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.suite == other.suite
            && self.key.spki() == other.key.spki()
            && self.octets == other.octets
            && self.signature == other.signature
    }
}

impl Eq for Check<'_> {}

impl Hash for Check<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.suite.hash(state);
        self.key.spki().hash(state);
        self.octets.hash(state);
        self.signature.hash(state);
    }
}

/// Pass 1's collection: each check once, in the order first met. The map is std's
/// `HashMap` (SipHash, randomly keyed): signatures and octets are chosen by peers.
#[derive(Debug, Default)]
pub struct Checks<'c> {
    seen: HashSet<Check<'c>>,
    list: Vec<Check<'c>>,
}

impl<'c> Checks<'c> {
    /// No checks.
    pub fn new() -> Checks<'c> {
        Checks::default()
    }

    /// Adds `check` unless an equal one is in.
    pub fn push(&mut self, check: Check<'c>) {
        if self.seen.insert(check) {
            self.list.push(check);
        }
    }

    /// The checks, in the order first met.
    pub fn as_slice(&self) -> &[Check<'c>] {
        &self.list
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Pass 2: every check verified by its suite among `suites`, at most [`CHUNK`]
    /// per backend call. A suite that gives no verdict (or not one per check) leaves
    /// its checks out of the [`Verdicts`]: the walk then verifies them itself.
    pub fn verify(self, suites: &[&dyn AlgorithmSuite]) -> Verdicts<'c> {
        let mut by_suite: Vec<(u8, Vec<Check<'c>>)> = Vec::new();
        for check in self.list {
            match by_suite.iter_mut().find(|(id, _)| *id == check.suite) {
                Some((_, checks)) => checks.push(check),
                None => by_suite.push((check.suite, vec![check])),
            }
        }
        let mut verdicts = HashMap::with_capacity(self.seen.len());
        for (id, checks) in by_suite {
            let Some(suite) = suites.iter().find(|s| s.id() == id) else {
                continue;
            };
            for chunk in checks.chunks(CHUNK) {
                let answers = suite.verify_checks(chunk);
                if answers.len() == chunk.len() {
                    verdicts.extend(chunk.iter().copied().zip(answers));
                }
            }
        }
        Verdicts(verdicts)
    }
}

/// Pass 2's verdicts, by check: what the walk answers a check from.
#[derive(Debug, Default)]
pub struct Verdicts<'c>(HashMap<Check<'c>, bool>);

impl<'c> Verdicts<'c> {
    /// None: every check is verified in the walk.
    pub fn none() -> Verdicts<'c> {
        Verdicts::default()
    }

    /// The verdict of `check`, if it was verified in the batch.
    pub fn get(&self, check: &Check<'c>) -> Option<bool> {
        self.0.get(check).copied()
    }

    /// How many checks have a verdict.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether none has.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;
    use crate::cache::{CheckKey, SignatureCache};
    use crate::packet::{BgpsecPath, Prefix};
    use crate::sign::{Chain, Hop, Signer};
    use crate::suite::ECDSA_P256_SHA256;
    use crate::{RouterKeys, SignatureInput, SignedNlri};

    const TARGET: u32 = 65_000;

    /// ASes 1..=4 with suite 1 keys; the path `hops` of the prefix 198.51.`third`.0/24,
    /// the origin's segment signed once and shared by `extend`ed paths.
    struct Net {
        signers: Vec<Signer<'static>>,
        keys: RouterKeys,
    }

    impl Net {
        fn new() -> Net {
            let mut keys = RouterKeys::new();
            let signers = (1..=4)
                .map(|asn| {
                    let key = ECDSA_P256_SHA256.generate().unwrap();
                    keys.insert(RouterKey::new(asn, *key.ski(), key.spki()));
                    Signer::new(asn).with_key(&ECDSA_P256_SHA256, key).unwrap()
                })
                .collect();
            Net { signers, keys }
        }

        fn origin(&self, third: u8, next: u32) -> Chain {
            let nlri = nlri(third);
            Chain::originate(&self.signers[0], nlri, &Hop::to(next)).unwrap()
        }

        /// `chain` forwarded by `hops` (after AS 1), the last toward TARGET.
        fn extend(&self, mut chain: Chain, hops: &[u32]) -> BgpsecPath<'static> {
            for (i, asn) in hops.iter().enumerate() {
                let to = hops.get(i + 1).copied().unwrap_or(TARGET);
                chain
                    .forward(&self.signers[*asn as usize - 1], &Hop::to(to))
                    .unwrap();
            }
            chain.path().unwrap()
        }
    }

    fn nlri(third: u8) -> SignedNlri {
        SignedNlri::unicast(Prefix::new(Ipv4Addr::new(198, 51, third, 0).into(), 24).unwrap())
    }

    fn input(path: &BgpsecPath<'_>, third: u8) -> SignatureInput {
        let suite = &ECDSA_P256_SHA256;
        SignatureInput::of_path(path, 1, &nlri(third), suite.coverage(), TARGET).unwrap()
    }

    fn collect<'c>(
        path: &'c BgpsecPath<'_>,
        input: &'c SignatureInput,
        keys: &'c RouterKeys,
        cache: Option<&SignatureCache>,
        checks: &mut Checks<'c>,
    ) {
        let block = path.block(1).unwrap();
        ECDSA_P256_SHA256.collect_checks(block, path.secure_path(), input, keys, cache, checks);
    }

    /// Each segment's check is collected, a check two paths share once, and their
    /// verdicts are the signatures' own.
    #[test]
    fn checks_are_collected_once_and_verified() {
        let net = Net::new();
        // 1 → 2 → 3 → TARGET and 1 → 2 → 4 → TARGET: the origin's segment (toward 2)
        // is the same octets and signature in both.
        let origin = net.origin(7, 2);
        let a = net.extend(origin.clone(), &[2, 3]);
        let b = net.extend(origin, &[2, 4]);
        let (ia, ib) = (input(&a, 7), input(&b, 7));
        let mut checks = Checks::new();
        collect(&a, &ia, &net.keys, None, &mut checks);
        assert_eq!(checks.len(), 3);
        collect(&b, &ib, &net.keys, None, &mut checks);
        // The origin's segment is shared; AS 2's and the newest differ (other
        // Target ASes, other signers).
        assert_eq!(checks.len(), 5);
        // The same path twice: nothing new.
        collect(&a, &ia, &net.keys, None, &mut checks);
        assert_eq!(checks.len(), 5);
        let list: Vec<Check<'_>> = checks.as_slice().to_vec();
        let verdicts = checks.verify(&[&ECDSA_P256_SHA256]);
        assert_eq!(verdicts.len(), 5);
        assert!(list.iter().all(|c| verdicts.get(c) == Some(true)));
        // A signature with one bit changed: another check, not verified in the batch.
        let mut sig = list[0].signature.to_vec();
        sig[10] ^= 1;
        let other = Check {
            signature: &sig,
            ..list[0]
        };
        assert_eq!(verdicts.get(&other), None);
    }

    /// A check the cache holds is left out, and collecting changes nothing in the
    /// cache (neither its counters nor its order).
    #[test]
    fn checks_the_cache_holds_are_not_collected() {
        let net = Net::new();
        let a = net.extend(net.origin(8, 2), &[2, 3]);
        let ia = input(&a, 8);
        let mut all = Checks::new();
        collect(&a, &ia, &net.keys, None, &mut all);
        let first = all.as_slice()[0];
        let cache = SignatureCache::new(1 << 20);
        let key = || CheckKey::one(1, first.key.spki(), first.octets, first.signature);
        match cache.lookup(key) {
            crate::cache::Lookup::Miss(p) => cache.verified(p),
            crate::cache::Lookup::Hit => panic!("empty cache"),
        }
        let before = cache.stats();
        let mut checks = Checks::new();
        collect(&a, &ia, &net.keys, Some(&cache), &mut checks);
        assert_eq!(checks.len(), 2);
        assert!(!checks.as_slice().contains(&first));
        assert_eq!(cache.stats(), before);
    }

    /// The walk answers a check from the verdicts when they have it: a verdict
    /// planted against the truth shows through (only this test plants one).
    #[test]
    fn the_walk_answers_from_the_verdicts() {
        let net = Net::new();
        let a = net.extend(net.origin(9, 2), &[2, 3]);
        let ia = input(&a, 9);
        let block = a.block(1).unwrap();
        let mut checks = Checks::new();
        collect(&a, &ia, &net.keys, None, &mut checks);
        let mut planted = HashMap::new();
        for (i, c) in checks.as_slice().iter().enumerate() {
            planted.insert(*c, i != 1);
        }
        let suite = &ECDSA_P256_SHA256;
        let truth = suite.validate(block, a.secure_path(), &ia, &net.keys);
        assert_eq!(truth, Ok(()));
        let lied = suite.validate_batched(
            block,
            a.secure_path(),
            &ia,
            &net.keys,
            None,
            &Verdicts(planted),
        );
        // Checks are collected newest first: the second is segment 2's (AS 2).
        assert_eq!(
            lied,
            Err(crate::BlockFault::BadSignature { segment: 2, asn: 2 })
        );
        let none = suite.validate_batched(
            block,
            a.secure_path(),
            &ia,
            &net.keys,
            None,
            &Verdicts::none(),
        );
        assert_eq!(none, Ok(()));
    }

    /// A suite that gives no verdicts (the trait's default, BGR's) leaves its checks
    /// to the walk.
    #[test]
    fn a_suite_without_verdicts_leaves_its_checks_to_the_walk() {
        let net = Net::new();
        let a = net.extend(net.origin(10, 2), &[2]);
        let ia = input(&a, 10);
        let mut checks = Checks::new();
        collect(&a, &ia, &net.keys, None, &mut checks);
        // A suite of id 1 that answers nothing, as the trait's default does.
        struct Silent;
        impl AlgorithmSuite for Silent {
            fn id(&self) -> u8 {
                1
            }
            fn name(&self) -> &'static str {
                "silent"
            }
            fn generate(&self) -> Result<crate::SigningKey, crate::suite::KeyError> {
                unimplemented!()
            }
            fn signing_key_from_pkcs8(
                &self,
                _: &[u8],
            ) -> Result<crate::SigningKey, crate::suite::KeyError> {
                unimplemented!()
            }
            fn secret_key_file(
                &self,
                _: &crate::SigningKey,
            ) -> Result<zeroize::Zeroizing<String>, crate::suite::KeyError> {
                unimplemented!()
            }
            fn signing_key_from_file(
                &self,
                _: &[u8],
            ) -> Result<crate::SigningKey, crate::suite::KeyError> {
                unimplemented!()
            }
            fn verifying_key_from_spki(
                &self,
                _: &[u8],
            ) -> Result<crate::VerifyingKey, crate::suite::KeyError> {
                unimplemented!()
            }
            fn sign(
                &self,
                _: &crate::SigningKey,
                _: &[u8],
                _: &mut crate::packet::SignatureBlock<'_>,
            ) -> Result<(), crate::SignError> {
                unimplemented!()
            }
            fn validate(
                &self,
                _: &crate::packet::SignatureBlock<'_>,
                _: &[crate::packet::SecurePathSegment],
                _: &SignatureInput,
                _: &dyn crate::KeyLookup,
            ) -> Result<(), crate::BlockFault> {
                unimplemented!()
            }
        }
        assert_eq!(checks.len(), 2);
        assert!(checks.verify(&[&Silent]).is_empty());
        // And a suite not among those given: nothing verified either.
        let mut again = Checks::new();
        collect(&a, &ia, &net.keys, None, &mut again);
        assert!(again.verify(&[]).is_empty());
    }
}
