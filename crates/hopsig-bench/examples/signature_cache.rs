//! Issue 25 §3: the signature cache (`hopsig_bgp::cache`) on real routing data —
//! signatures checked vs verified, validation time with and without the cache, and
//! the cost of a hit beside the floor of one P-256 verification.
//!
//! ```text
//! cargo run --release -p hopsig-bench --example signature_cache -- updates FILE... [--limit N] [--threads N] [--budget SIZE]
//! cargo run --release -p hopsig-bench --example signature_cache -- two-feeders RIB [--limit N] [--threads N] [--budget SIZE]
//! ```
//!
//! * `updates`: the announcements of RIS update files, in order, each the BGPsec
//!   UPDATE its AS path would carry toward the collector.
//! * `two-feeders`: every route of a RIB dump received by a collector (AS 12654) from
//!   two feeders, AS 64601 and AS 64602, that both have it from the route's newest
//!   AS: two copies whose signatures are the same up to the newest AS's (which
//!   targets the feeder), as a router with two full-table peers receives them.
//!
//! Signed as a network signs (unlike `sign-mrt`, which signs every announcement
//! afresh): each router signs a route toward a neighbour once — the signatures of
//! (prefix, path so far, target) are made once and every later copy carries them, as
//! a router's Adj-RIB-Out keeps what it sent. ECDSA signatures are randomized, so
//! without this model no two copies would share a signature. Then every UPDATE is
//! validated (suite 1, RFC 8205 §5.2) on THREADS threads (default 2): without a
//! cache, with a cold cache of SIZE (default 64MiB, the speaker's), and again with the
//! warm cache (every check a hit if the distinct checks fit). Verdicts are compared;
//! nothing else is asserted.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hopsig_bgp::cache::{parse_size, CacheStats, CheckKey, Lookup, SignatureCache, DEFAULT_BUDGET};
use hopsig_bgp::suite::ECDSA_P256_SHA256;
use hopsig_bgp::trace::{update_message, Entries, Entry, Keyring, PathHop, Route};
use hopsig_bgp::{AlgorithmSuite, Chain, Hop, Peer, RouterKeys, SignedNlri, Validator};
use hopsig_schemes::concat::{BaseSignature, EcdsaP256};

/// The collector's AS: RIPE RIS's, the target of RIB dump routes.
const COLLECTOR: u32 = 12_654;
/// The two feeders of `two-feeders` (private-use ASes, RFC 6996).
const FEEDERS: [u32; 2] = [64_601, 64_602];
/// UPDATEs a worker takes at once.
const CHUNK: usize = 64;

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().expect("updates | two-feeders");
    let mut files = vec![];
    let mut limit = usize::MAX;
    let mut threads = 2;
    let mut budget = DEFAULT_BUDGET;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--limit" => limit = args.next().unwrap().parse().unwrap(),
            "--threads" => threads = args.next().unwrap().parse().unwrap(),
            "--budget" => budget = parse_size(&args.next().unwrap()).unwrap(),
            _ => files.push(PathBuf::from(a)),
        }
    }
    let t = Instant::now();
    let mut routes = vec![];
    for file in &files {
        for e in Entries::new(hopsig_bgp::mrt::open(file).unwrap().reader) {
            if let Ok(Entry::Announcement(a)) = e {
                if let Ok(r) = Route::of(&a, COLLECTOR) {
                    routes.push(r);
                }
            }
            if routes.len() >= limit {
                break;
            }
        }
    }
    if mode == "two-feeders" {
        routes = routes
            .into_iter()
            .filter(|r| r.target_as == COLLECTOR)
            .flat_map(|r| {
                FEEDERS.map(|f| {
                    let mut copy = r.clone();
                    copy.hops.push(PathHop { asn: f, pcount: 1 });
                    copy
                })
            })
            .collect();
    } else {
        assert_eq!(mode, "updates", "updates | two-feeders");
    }
    eprintln!(
        "signature_cache: {mode}: {} routes read in {:.1} s",
        routes.len(),
        t.elapsed().as_secs_f64()
    );

    let t = Instant::now();
    let mut ring = Keyring::new(&ECDSA_P256_SHA256);
    let mut asns: Vec<u32> = routes
        .iter()
        .flat_map(|r| r.hops.iter().map(|h| h.asn))
        .collect();
    asns.sort_unstable();
    asns.dedup();
    ring.generate(&asns, threads).unwrap();
    let mut network = Network {
        ring: &ring,
        memo: HashMap::new(),
        signatures: 0,
    };
    let mut messages = vec![];
    let mut too_large = 0;
    for r in &routes {
        let path = network.path(r);
        match update_message(r, path) {
            Ok(m) => messages.push((m, Peer::external(r.target_as, r.newest_as()))),
            Err(_) => too_large += 1,
        }
    }
    let hops: usize = routes.iter().map(|r| r.hops.len()).sum();
    eprintln!(
        "signature_cache: {} keys; {} UPDATEs ({too_large} over 4096 octets left out), {hops} segments, {} signatures made, in {:.1} s",
        asns.len(),
        messages.len(),
        network.signatures,
        t.elapsed().as_secs_f64()
    );
    drop(network);
    let keys = ring.router_keys();

    let (none_valid, none_time) = validate(&messages, &keys, None, threads);
    let cache = SignatureCache::new(budget);
    let (cold_valid, cold_time) = validate(&messages, &keys, Some(&cache), threads);
    let cold = cache.stats();
    let (warm_valid, warm_time) = validate(&messages, &keys, Some(&cache), threads);
    let warm = cache.stats();
    assert_eq!(
        none_valid, cold_valid,
        "verdicts with and without the cache"
    );
    assert_eq!(none_valid, warm_valid, "verdicts with the warm cache");

    let (floor, hit) = floor_and_hit();
    let checked = cold.lookups;
    println!(
        "signature_cache {mode} {}: {} UPDATEs, {} valid, {threads} threads",
        files
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" "),
        messages.len(),
        none_valid
    );
    println!(
        "  no cache:   {checked} signatures verified, {:.2} s, {:.0} UPDATEs/s",
        none_time.as_secs_f64(),
        messages.len() as f64 / none_time.as_secs_f64()
    );
    println!(
        "  cache cold: {checked} checked, {} verified, {} hits ({:.1} %), {:.2} s, {:.0} UPDATEs/s, speed-up {:.2}x; {} entries, {:.1} MiB, {} evictions",
        cold.verified(),
        cold.hits,
        100.0 * cold.hits as f64 / checked as f64,
        cold_time.as_secs_f64(),
        messages.len() as f64 / cold_time.as_secs_f64(),
        none_time.as_secs_f64() / cold_time.as_secs_f64(),
        cold.entries,
        cold.bytes as f64 / f64::from(1 << 20),
        cold.evictions
    );
    let again = |now: u64, then: u64| now - then;
    println!(
        "  cache warm: {} checked, {} hits, {:.2} s, {:.0} UPDATEs/s, speed-up {:.2}x",
        again(warm.lookups, cold.lookups),
        again(warm.hits, cold.hits),
        warm_time.as_secs_f64(),
        messages.len() as f64 / warm_time.as_secs_f64(),
        none_time.as_secs_f64() / warm_time.as_secs_f64(),
    );
    println!(
        "  one P-256 verification (OpenSSL, one thread): {:.1} µs; one cache hit (two SHA-256, key, lookup): {:.2} µs",
        floor * 1e6,
        hit * 1e6
    );
    print_stats("cold", &cold);
}

fn print_stats(name: &str, s: &CacheStats) {
    eprintln!("signature_cache: {name}: {s:?}");
}

/// Routers that sign each (prefix, path so far, target) once.
struct Network<'r> {
    ring: &'r Keyring,
    /// The chain after hop i, by (prefix, hops 0..=i, hop i's target).
    memo: HashMap<(SignedNlri, Vec<PathHop>, u32), Chain>,
    signatures: u64,
}

impl Network<'_> {
    fn path(&mut self, r: &Route) -> hopsig_bgp::packet::BgpsecPath<'static> {
        let target = |i: usize| r.hops.get(i + 1).map_or(r.target_as, |h| h.asn);
        let key = |i: usize| (r.nlri, r.hops[..=i].to_vec(), target(i));
        let n = r.hops.len();
        let (mut chain, start) = (0..n)
            .rev()
            .find_map(|i| self.memo.get(&key(i)).map(|c| (Some(c.clone()), i + 1)))
            .unwrap_or((None, 0));
        for i in start..n {
            let signer = self.ring.signer(r.hops[i].asn).unwrap();
            let hop = Hop {
                pcount: r.hops[i].pcount,
                ..Hop::to(target(i))
            };
            match chain.as_mut() {
                None => chain = Some(Chain::originate(signer, r.nlri, &hop).unwrap()),
                Some(c) => c.forward(signer, &hop).unwrap(),
            }
            self.signatures += 1;
            self.memo.insert(key(i), chain.clone().unwrap());
        }
        chain.unwrap().path().unwrap()
    }
}

/// Validates every message on `threads` threads; the 'Valid' count and the time.
fn validate(
    messages: &[(Vec<u8>, Peer)],
    keys: &RouterKeys,
    cache: Option<&SignatureCache>,
    threads: usize,
) -> (usize, Duration) {
    let next = AtomicUsize::new(0);
    let valid = AtomicUsize::new(0);
    let t = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let v = Validator::new(keys);
                let v = match cache {
                    Some(c) => v.with_cache(c),
                    None => v,
                };
                let mut n = 0;
                loop {
                    let at = next.fetch_add(CHUNK, Ordering::Relaxed);
                    if at >= messages.len() {
                        break;
                    }
                    for (m, peer) in &messages[at..(at + CHUNK).min(messages.len())] {
                        n += usize::from(v.message(m, peer).is_valid());
                    }
                }
                valid.fetch_add(n, Ordering::Relaxed);
            });
        }
    });
    (valid.into_inner(), t.elapsed())
}

/// Seconds per P-256 verification (OpenSSL, as suite 1 calls it) and per cache hit
/// (both SHA-256s, the key, the shard's lock and lookup), one thread, over 2,000
/// signatures of 150-octet messages.
fn floor_and_hit() -> (f64, f64) {
    let key = ECDSA_P256_SHA256.generate().unwrap();
    let secret: &<EcdsaP256 as BaseSignature>::SecretKey = key.downcast().unwrap();
    let public = EcdsaP256::public_from_der(key.spki()).unwrap();
    let signed: Vec<(Vec<u8>, Vec<u8>)> = (0..2_000u32)
        .map(|i| {
            let mut m = vec![0x5a; 150];
            m[..4].copy_from_slice(&i.to_be_bytes());
            let s = EcdsaP256::sign(secret, &m).unwrap();
            (m, s)
        })
        .collect();
    let t = Instant::now();
    for (m, s) in &signed {
        assert!(EcdsaP256::verify(&public, m, s));
    }
    let floor = t.elapsed().as_secs_f64() / signed.len() as f64;
    let cache = SignatureCache::new(DEFAULT_BUDGET);
    for (m, s) in &signed {
        if let Lookup::Miss(p) = cache.lookup(|| CheckKey::one(1, key.spki(), m, s)) {
            cache.verified(p);
        }
    }
    let rounds = 20;
    let t = Instant::now();
    for _ in 0..rounds {
        for (m, s) in &signed {
            assert!(matches!(
                cache.lookup(|| CheckKey::one(1, key.spki(), m, s)),
                Lookup::Hit
            ));
        }
    }
    let hit = t.elapsed().as_secs_f64() / (rounds * signed.len()) as f64;
    (floor, hit)
}
