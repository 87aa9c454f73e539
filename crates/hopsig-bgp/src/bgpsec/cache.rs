//! A bounded cache of *verified* signature checks: the same (suite, key, signature,
//! digest) verified once (issue 25 §3).
//!
//! In BGPsec update streams the same signed path is announced again and again, and a
//! router with several full-table peers receives the origin's and the upstream ASes'
//! signatures on every copy of a prefix: each upstream router signed the route toward
//! its neighbour once (RFC 8205 §4.2), and every copy downstream carries those octets
//! unchanged. RFC 8205 §5.2 steps 3–4 (build the hop's signed octets, verify the
//! Signature field over their digest with the router key found in step 2) then give
//! the same answer each time; this cache remembers that they did.
//!
//! # What is cached, and why it cannot be poisoned
//!
//! * An entry is the **whole input of one check**: the Algorithm Suite Identifier,
//!   SHA-256 of the router key's DER SubjectPublicKeyInfo (the key itself, not its
//!   SKI: two keys may share an SKI, RFC 8209 §3.1.1, across views or by collision),
//!   SHA-256 of the signed octets (the digest the suite's signature is over: RFC 8608
//!   §4 signs SHA-256 of Figure 8's octets, so equal digests mean equal verification
//!   results), and the Signature field's octets themselves. A hit therefore stands for
//!   a check of exactly these inputs; another key, another signature or other signed
//!   octets miss, barring a SHA-256 collision (the same assumption the signature
//!   scheme already makes of its digest).
//! * Only checks that **verified** are inserted ([`SignatureCache::verified`] takes the
//!   [`Pending`] a miss returned); failures are never cached. An entry can only be
//!   added by presenting a signature that verifies under a key of the current RPKI
//!   view, so an attacker can add nothing a validator would not accept anyway, and
//!   cannot turn a later check into a false 'Valid'. A failed check is repeated each
//!   time, as without a cache.
//! * The cache never answers §5.2 step 2. A validator looks the segment's (AS, SKI) up
//!   in the **current** view first and asks the cache only about the keys found there,
//!   by their bytes; a key withdrawn from the RPKI is no longer found, so its entries
//!   are never looked up again (and age out of the LRU): the route is 'Not Valid' as
//!   without a cache (`bgpsec::validate` tests say so).
//!
//! Aggregate suites (BGR, 0xF7) carry one signature for the whole block: their entry is
//! the whole check — every hop's key, every hop's signed octets and every Signature
//! field of the block ([`CheckKey::aggregate`]).
//!
//! # Bounds and concurrency
//!
//! Least recently used entries are evicted to keep the entries' bytes (each entry's
//! [`CheckKey::footprint`]: the key, its signature octets and the list and map
//! overhead) within a budget. The speaker's workers share one cache: it is split into
//! shards of their own mutex and LRU list ([`lru::LruCache`]), picked by the check's
//! digest, so that workers rarely wait for one another; each shard holds an equal part
//! of the budget. A budget of 0 is a cache that is off: it stores nothing and counts
//! the checks, so that a run can still say how many signatures it verified.
//!
//! `lru` rather than `moka` or `quick_cache`: those bound by weight too, but evict by
//! TinyLFU / CLOCK-PRO admission (an entry seen once may not be admitted), start
//! housekeeping threads (moka) and bring more dependencies; a verified check that is
//! not admitted is a signature verified again. A mutex per shard around a plain LRU
//! list is what the issue asks for ("LRU by bytes"), exact, and its cost (tens of
//! nanoseconds) is nothing beside one P-256 verification (tens of microseconds).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use lru::LruCache;
use openssl::sha::{sha256, Sha256};

/// Bytes counted for an entry beyond its [`CheckKey`] and its signature octets: the
/// LRU list's two links, the map's slot (a pointer and a key reference, with its load
/// factor) and two heap allocations' headers (the list node and the signature).
pub const ENTRY_OVERHEAD: usize = 64;

/// Most shards; a cache has one per MiB of budget up to this many.
const MAX_SHARDS: usize = 32;

/// The whole input of one signature check: what a cache entry stands for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CheckKey {
    suite: u8,
    /// SHA-256 of the key's DER SubjectPublicKeyInfo (of each hop's key, in order,
    /// for an aggregate).
    key: [u8; 32],
    /// SHA-256 of the signed octets (of each hop's octets, in order, for an
    /// aggregate).
    digest: [u8; 32],
    /// The Signature field (every Signature field of the block, for an aggregate).
    signature: Box<[u8]>,
}

impl CheckKey {
    /// One signature of suite `suite` by the key whose DER SubjectPublicKeyInfo is
    /// `spki`, over the octets `signed` (RFC 8205 §5.2 steps 3–4 for one Signature
    /// Segment).
    pub fn one(suite: u8, spki: &[u8], signed: &[u8], signature: &[u8]) -> CheckKey {
        CheckKey {
            suite,
            key: sha256(spki),
            digest: sha256(signed),
            signature: signature.into(),
        }
    }

    /// An aggregate of suite `suite` over a whole block: `spkis` the key chosen for
    /// each hop, `signed` each hop's octets, `signatures` each Signature field of the
    /// block, all in one order. Each part is hashed with its length, so that no two
    /// lists of parts give the same entry.
    pub fn aggregate<'a>(
        suite: u8,
        spkis: impl IntoIterator<Item = &'a [u8]>,
        signed: impl IntoIterator<Item = &'a [u8]>,
        signatures: impl IntoIterator<Item = &'a [u8]>,
    ) -> CheckKey {
        let framed = |parts: &mut dyn Iterator<Item = &'a [u8]>| {
            let mut h = Sha256::new();
            for p in parts {
                h.update(&(p.len() as u64).to_be_bytes());
                h.update(p);
            }
            h.finish()
        };
        let mut signature = Vec::new();
        for s in signatures {
            signature.extend_from_slice(&(s.len() as u32).to_be_bytes());
            signature.extend_from_slice(s);
        }
        CheckKey {
            suite,
            key: framed(&mut spkis.into_iter()),
            digest: framed(&mut signed.into_iter()),
            signature: signature.into(),
        }
    }

    /// The bytes the entry is counted for against the budget: the key, its signature
    /// octets and [`ENTRY_OVERHEAD`].
    pub fn footprint(&self) -> usize {
        std::mem::size_of::<CheckKey>() + self.signature.len() + ENTRY_OVERHEAD
    }

    /// The shard of `shards` this key lives in: from its digest, SHA-256 output, so
    /// spread evenly whatever the signed octets.
    fn shard(&self, shards: usize) -> usize {
        let mut eight = [0; 8];
        eight.copy_from_slice(&self.digest[..8]);
        (u64::from_le_bytes(eight) % shards as u64) as usize
    }
}

/// The answer of [`SignatureCache::lookup`].
#[derive(Debug)]
pub enum Lookup {
    /// The check verified before: skip it.
    Hit,
    /// Not known to verify: verify, and if it does, hand this to
    /// [`SignatureCache::verified`].
    Miss(Pending),
}

/// A missed check's entry, to insert once it verified. Empty when the cache is off.
#[derive(Debug)]
pub struct Pending(Option<(CheckKey, usize)>);

/// The counters of a [`SignatureCache`] (the speaker's status file, validate-mrt's
/// summary).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// The byte budget (0: off).
    pub budget: usize,
    /// Signature checks asked about: signatures checked.
    pub lookups: u64,
    /// Of which found: not verified again.
    pub hits: u64,
    /// Verified checks inserted.
    pub inserts: u64,
    /// Entries evicted to stay within the budget.
    pub evictions: u64,
    /// Entries held.
    pub entries: u64,
    /// Their bytes ([`CheckKey::footprint`]).
    pub bytes: u64,
}

impl CacheStats {
    /// Signatures verified: the checks that were not hits.
    pub fn verified(&self) -> u64 {
        self.lookups - self.hits
    }

    /// The counters as the speaker's status file and validate-mrt's JSON summary
    /// write them.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "budget_bytes": self.budget,
            "lookups": self.lookups,
            "hits": self.hits,
            "verified": self.verified(),
            "inserts": self.inserts,
            "evictions": self.evictions,
            "entries": self.entries,
            "bytes": self.bytes,
        })
    }
}

/// One shard: an LRU list of verified checks and its counters.
struct Shard {
    lru: LruCache<CheckKey, ()>,
    bytes: usize,
    lookups: u64,
    hits: u64,
    inserts: u64,
    evictions: u64,
}

/// A thread-safe, byte-bounded LRU cache of verified signature checks (the module
/// documentation says what an entry is and why it cannot be poisoned).
pub struct SignatureCache {
    budget: usize,
    shard_budget: usize,
    shards: Box<[Mutex<Shard>]>,
    /// Checks counted while the cache is off.
    off_lookups: AtomicU64,
}

impl std::fmt::Debug for SignatureCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignatureCache")
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl SignatureCache {
    /// A cache of at most `budget` bytes of entries, in one shard per MiB up to 32; a
    /// budget of 0 is off (stores nothing, counts checks).
    pub fn new(budget: usize) -> SignatureCache {
        SignatureCache::with_shards(budget, (budget >> 20).clamp(1, MAX_SHARDS))
    }

    /// A cache that is off: every check verified, and counted.
    pub fn off() -> SignatureCache {
        SignatureCache::new(0)
    }

    /// As [`SignatureCache::new`], in `shards` shards (at least 1) of an equal part of
    /// `budget` each.
    pub fn with_shards(budget: usize, shards: usize) -> SignatureCache {
        let shards = if budget == 0 { 0 } else { shards.max(1) };
        SignatureCache {
            budget,
            shard_budget: budget.checked_div(shards).unwrap_or(0),
            shards: (0..shards)
                .map(|_| {
                    Mutex::new(Shard {
                        lru: LruCache::unbounded(),
                        bytes: 0,
                        lookups: 0,
                        hits: 0,
                        inserts: 0,
                        evictions: 0,
                    })
                })
                .collect(),
            off_lookups: AtomicU64::new(0),
        }
    }

    /// Whether the cache stores anything.
    pub fn is_on(&self) -> bool {
        !self.shards.is_empty()
    }

    /// Whether the check `key` makes verified before (it is then the most recently
    /// used); `key` is only built when the cache is on. A [`Lookup::Miss`] carries
    /// what to insert if the check verifies.
    pub fn lookup(&self, key: impl FnOnce() -> CheckKey) -> Lookup {
        if !self.is_on() {
            self.off_lookups.fetch_add(1, Ordering::Relaxed);
            return Lookup::Miss(Pending(None));
        }
        let key = key();
        let at = key.shard(self.shards.len());
        let mut shard = self.shard(at);
        shard.lookups += 1;
        if shard.lru.get(&key).is_some() {
            shard.hits += 1;
            return Lookup::Hit;
        }
        drop(shard);
        Lookup::Miss(Pending(Some((key, at))))
    }

    /// Whether the check `key` is held, without counting a lookup or making it the
    /// most recently used: what a batch asks before it verifies a check ahead of the
    /// walk ([`crate::batch`]), so that the counters and the LRU order stay those of
    /// the walk, which asks [`SignatureCache::lookup`] in its turn. `false` when the
    /// cache is off.
    pub fn contains(&self, key: &CheckKey) -> bool {
        if !self.is_on() {
            return false;
        }
        self.shard(key.shard(self.shards.len())).lru.contains(key)
    }

    /// Records that the missed check `pending` verified, evicting the least recently
    /// used entries of its shard beyond the budget. Call it only for a check that
    /// verified: that is what keeps the cache from being poisoned.
    pub fn verified(&self, pending: Pending) {
        let Some((key, at)) = pending.0 else {
            return;
        };
        let size = key.footprint();
        if size > self.shard_budget {
            return;
        }
        let mut shard = self.shard(at);
        // Another worker may have verified the same check meanwhile.
        if shard.lru.contains(&key) {
            shard.lru.promote(&key);
            return;
        }
        shard.lru.push(key, ());
        shard.bytes += size;
        shard.inserts += 1;
        while shard.bytes > self.shard_budget {
            let Some((old, ())) = shard.lru.pop_lru() else {
                break;
            };
            shard.bytes -= old.footprint();
            shard.evictions += 1;
        }
    }

    /// The counters, summed over the shards.
    pub fn stats(&self) -> CacheStats {
        let mut s = CacheStats {
            budget: self.budget,
            lookups: self.off_lookups.load(Ordering::Relaxed),
            ..CacheStats::default()
        };
        for at in 0..self.shards.len() {
            let shard = self.shard(at);
            s.lookups += shard.lookups;
            s.hits += shard.hits;
            s.inserts += shard.inserts;
            s.evictions += shard.evictions;
            s.entries += shard.lru.len() as u64;
            s.bytes += shard.bytes as u64;
        }
        s
    }

    /// Shard `at`, locked. A panic while one was held leaves it consistent (each
    /// update is a few field writes), so a poisoned lock is taken over.
    fn shard(&self, at: usize) -> std::sync::MutexGuard<'_, Shard> {
        self.shards[at]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// A cache size as configuration files and the command line give it: a number of
/// bytes with an optional unit `k`/`KiB`, `M`/`MiB`, `G`/`GiB` (powers of 1024; `B` or
/// none for bytes), e.g. `64MiB`; `0` turns the cache off.
///
/// # Errors
/// A message naming what is wrong.
pub fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: usize = number
        .parse()
        .map_err(|_| format!("'{text}': not a size (a number of bytes, with KiB, MiB or GiB)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return Err(format!("'{text}': unknown unit (B, KiB, MiB or GiB)")),
    };
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("'{text}': too large"))
}

/// The default budget of the speaker's and validate-mrt's caches: 64 MiB, about
/// 300,000 suite-1 checks (224 bytes each), a full table's worth of distinct upstream
/// signatures.
pub const DEFAULT_BUDGET: usize = 64 << 20;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn key(i: u32) -> CheckKey {
        CheckKey::one(1, b"spki", &i.to_be_bytes(), &[0x30; 70])
    }

    /// A check verified: looked up, missed, inserted.
    fn verify(cache: &SignatureCache, k: &CheckKey) -> bool {
        match cache.lookup(|| k.clone()) {
            Lookup::Hit => true,
            Lookup::Miss(p) => {
                cache.verified(p);
                false
            }
        }
    }

    #[test]
    fn a_verified_check_hits_the_second_time() {
        let cache = SignatureCache::new(1 << 20);
        assert!(!verify(&cache, &key(1)));
        assert!(verify(&cache, &key(1)));
        let s = cache.stats();
        assert_eq!((s.lookups, s.hits, s.inserts, s.entries), (2, 1, 1, 1));
        assert_eq!(s.bytes, key(1).footprint() as u64);
        assert_eq!(s.verified(), 1);
    }

    #[test]
    fn failures_are_not_cached() {
        let cache = SignatureCache::new(1 << 20);
        for _ in 0..3 {
            // A miss whose check failed: its Pending dropped, not handed back.
            assert!(matches!(cache.lookup(|| key(7)), Lookup::Miss(_)));
        }
        let s = cache.stats();
        assert_eq!((s.lookups, s.hits, s.inserts, s.entries), (3, 0, 0, 0));
    }

    #[test]
    fn another_suite_key_signature_or_digest_misses() {
        let cache = SignatureCache::new(1 << 20);
        let base = CheckKey::one(1, b"key A", b"signed", b"sig");
        verify(&cache, &base);
        for other in [
            CheckKey::one(0xf8, b"key A", b"signed", b"sig"),
            CheckKey::one(1, b"key B", b"signed", b"sig"),
            CheckKey::one(1, b"key A", b"signeD", b"sig"),
            CheckKey::one(1, b"key A", b"signed", b"siG"),
            CheckKey::one(1, b"key A", b"signed", b"sig\0"),
        ] {
            assert!(matches!(cache.lookup(|| other), Lookup::Miss(_)));
        }
        assert!(matches!(cache.lookup(|| base), Lookup::Hit));
    }

    #[test]
    fn aggregate_parts_are_framed() {
        // Moving an octet from one part to the next is another check.
        let a = CheckKey::aggregate(0xf7, [&b"k1"[..], b"k2"], [&b"ab"[..], b"c"], [&b"s"[..]]);
        let b = CheckKey::aggregate(0xf7, [&b"k1"[..], b"k2"], [&b"a"[..], b"bc"], [&b"s"[..]]);
        let c = CheckKey::aggregate(
            0xf7,
            [&b"k1"[..], b"k2"],
            [&b"ab"[..], b"c"],
            [&b""[..], b"s"],
        );
        assert_ne!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn least_recently_used_entries_are_evicted_by_bytes() {
        let size = key(0).footprint();
        // One shard of room for three entries.
        let cache = SignatureCache::with_shards(3 * size + size / 2, 1);
        for i in 0..3 {
            verify(&cache, &key(i));
        }
        // 0 used again: 1 is now the least recently used.
        assert!(verify(&cache, &key(0)));
        verify(&cache, &key(3));
        let s = cache.stats();
        assert_eq!((s.entries, s.evictions, s.inserts), (3, 1, 4));
        assert!(s.bytes as usize <= 3 * size + size / 2);
        assert!(matches!(cache.lookup(|| key(1)), Lookup::Miss(_)));
        for i in [0, 2, 3] {
            assert!(matches!(cache.lookup(|| key(i)), Lookup::Hit), "{i}");
        }
    }

    #[test]
    fn a_larger_signature_takes_more_of_the_budget() {
        let small = CheckKey::one(1, b"k", b"m", &[1; 70]);
        let large = CheckKey::one(0xf8, b"k", b"m", &[1; 256]);
        assert_eq!(large.footprint() - small.footprint(), 186);
        // Room for two small entries or one large one.
        let cache = SignatureCache::with_shards(2 * small.footprint() + 8, 1);
        verify(&cache, &small);
        verify(&cache, &CheckKey::one(1, b"k", b"n", &[1; 70]));
        assert_eq!(cache.stats().entries, 2);
        verify(&cache, &large);
        let s = cache.stats();
        assert_eq!((s.entries, s.evictions), (1, 2));
    }

    #[test]
    fn contains_neither_counts_nor_promotes() {
        let size = key(0).footprint();
        let cache = SignatureCache::with_shards(2 * size + size / 2, 1);
        verify(&cache, &key(0));
        verify(&cache, &key(1));
        let before = cache.stats();
        assert!(cache.contains(&key(0)));
        assert!(!cache.contains(&key(2)));
        assert_eq!(cache.stats(), before);
        // 0 was not promoted by contains: it is still the least recently used, and
        // goes first.
        verify(&cache, &key(2));
        assert!(!cache.contains(&key(0)));
        assert!(cache.contains(&key(1)));
        assert!(!SignatureCache::off().contains(&key(0)));
    }

    #[test]
    fn off_counts_checks_and_stores_nothing() {
        let cache = SignatureCache::off();
        assert!(!cache.is_on());
        for _ in 0..2 {
            assert!(!verify(&cache, &key(1)));
        }
        let s = cache.stats();
        assert_eq!((s.lookups, s.hits, s.entries, s.verified()), (2, 0, 0, 2));
    }

    #[test]
    fn concurrent_workers_agree_with_the_counts() {
        let cache = SignatureCache::with_shards(1 << 20, 4);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for round in 0..3 {
                        for i in 0..200 {
                            let hit = verify(&cache, &key(i));
                            // After the first round every check is in.
                            if round > 0 {
                                assert!(hit);
                            }
                        }
                    }
                });
            }
        });
        let s = cache.stats();
        assert_eq!(s.lookups, 4 * 3 * 200);
        assert_eq!(s.entries, 200);
        // Each check inserted once, however many workers verified it meanwhile.
        assert_eq!(s.inserts, 200);
        assert!(s.hits >= 4 * 2 * 200);
        assert_eq!(s.bytes, 200 * key(0).footprint() as u64);
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("64 M"), Ok(64 << 20));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("512k"), Ok(512 << 10));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("0"), Ok(0));
        for bad in ["", "MiB", "64TiB", "-1", "1.5MiB", "99999999999999999999G"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
