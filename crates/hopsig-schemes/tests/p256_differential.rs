//! The differential test of the P-256 batch verifier against OpenSSL (issue 28): 10^6
//! random items through the default backend of `Signatures<EcdsaP256>` — the
//! multi-buffer AVX-512 IFMA verifier where the processor has it —, valid and with r,
//! s, the message or the key perturbed, in batches of random sizes (so every lane
//! position and tail length occurs), each verdict compared with OpenSSL's single
//! verification of the same item.
//!
//! `HOPSIG_P256_DIFFERENTIAL=N` runs N items instead (e.g. 20000 for a quick run).
//! Without the IFMA code the default is 10^5 items through hopsig-p256's portable code
//! (slower per item), since the default backend is then OpenSSL itself.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod p256_common;

use hopsig_schemes::batch::{self, BatchVerify, MultiBuffer, Signatures, Signed};
use hopsig_schemes::concat::{BaseSignature, EcdsaP256, P256PublicKey};
use hopsig_schemes::primitives::par;
use openssl::bn::BigNum;
use openssl::ec::EcKey;
use openssl::ecdsa::EcdsaSig;
use openssl::pkey::Private;
use p256_common::*;

/// How an item is made from a fresh valid signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Perturb {
    Valid,
    /// (r, n − s): also valid.
    HighS,
    RPlus1,
    RMinus1,
    SPlus1,
    SMinus1,
    /// A random bit of the message flipped.
    MessageBit,
    /// A random octet appended to the message.
    MessageLonger,
    /// Verified under another key.
    OtherKey,
    RZero,
    SZero,
    RIsN,
    SIsN,
    /// r + n (below 2^256 except for r ≥ 2^256 − n).
    RPlusN,
    RRandom,
    SRandom,
    /// A random octet of the DER changed.
    DerOctet,
    /// The DER cut short.
    DerTruncated,
}

impl Perturb {
    /// The kinds with their weights: half the items are valid.
    const WEIGHTED: [(Perturb, u32); 18] = [
        (Perturb::Valid, 34),
        (Perturb::HighS, 4),
        (Perturb::RPlus1, 4),
        (Perturb::RMinus1, 4),
        (Perturb::SPlus1, 4),
        (Perturb::SMinus1, 4),
        (Perturb::MessageBit, 6),
        (Perturb::MessageLonger, 2),
        (Perturb::OtherKey, 6),
        (Perturb::RZero, 2),
        (Perturb::SZero, 2),
        (Perturb::RIsN, 2),
        (Perturb::SIsN, 2),
        (Perturb::RPlusN, 2),
        (Perturb::RRandom, 4),
        (Perturb::SRandom, 4),
        (Perturb::DerOctet, 10),
        (Perturb::DerTruncated, 4),
    ];

    fn pick(rng: &mut Rng) -> Perturb {
        let total: u32 = Self::WEIGHTED.iter().map(|w| w.1).sum();
        let mut at = (rng.next() % u64::from(total)) as u32;
        for (kind, weight) in Self::WEIGHTED {
            if at < weight {
                return kind;
            }
            at -= weight;
        }
        Perturb::Valid
    }

    /// Whether the item verifies (all others fail but with negligible probability;
    /// a DER octet change may leave r and s as they were, which the reference decides).
    fn verifies(self) -> Option<bool> {
        match self {
            Perturb::Valid | Perturb::HighS => Some(true),
            Perturb::DerOctet => None,
            _ => Some(false),
        }
    }
}

/// SplitMix64: reproducible per chunk.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// One owned item: key index, message, DER signature, kind.
type Owned = (usize, Vec<u8>, Vec<u8>, Perturb);

/// Items of one chunk: each fresh signature serves two items.
fn chunk_items(keys: &[(EcKey<Private>, P256PublicKey)], seed: u64, count: usize) -> Vec<Owned> {
    let mut rng = Rng(seed);
    let n = n();
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let key = (rng.next() % keys.len() as u64) as usize;
        let len = 8 + (rng.next() % 56) as usize;
        let message = rng.bytes(len);
        let der = EcdsaP256::sign(&keys[key].0, &message).unwrap();
        let sig = EcdsaSig::from_der(&der).unwrap();
        let (r, s) = (sig.r().to_owned().unwrap(), sig.s().to_owned().unwrap());
        for _ in 0..2 {
            let kind = Perturb::pick(&mut rng);
            let (mut k, mut m, mut d) = (key, message.clone(), der.clone());
            let one = BigNum::from_u32(1).unwrap();
            let random = || BigNum::from_slice(&rng_bytes(seed, out.len())).unwrap();
            match kind {
                Perturb::Valid => {}
                Perturb::HighS => d = der_of(&r, &(&n - &s)),
                Perturb::RPlus1 => d = der_of(&(&r + &one), &s),
                Perturb::RMinus1 => d = der_of(&(&r - &one), &s),
                Perturb::SPlus1 => d = der_of(&r, &(&s + &one)),
                Perturb::SMinus1 => d = der_of(&r, &(&s - &one)),
                Perturb::MessageBit => {
                    let bit = (rng.next() % (8 * m.len() as u64)) as usize;
                    m[bit / 8] ^= 1 << (bit % 8);
                }
                Perturb::MessageLonger => m.push(rng.next() as u8),
                Perturb::OtherKey => k = (k + 1 + (rng.next() % (keys.len() as u64 - 1)) as usize) % keys.len(),
                Perturb::RZero => d = der_of(&BigNum::new().unwrap(), &s),
                Perturb::SZero => d = der_of(&r, &BigNum::new().unwrap()),
                Perturb::RIsN => d = der_of(&n, &s),
                Perturb::SIsN => d = der_of(&r, &n),
                Perturb::RPlusN => d = der_of(&(&r + &n), &s),
                Perturb::RRandom => d = der_of(&random(), &s),
                Perturb::SRandom => d = der_of(&r, &random()),
                Perturb::DerOctet => {
                    let at = (rng.next() % d.len() as u64) as usize;
                    d[at] ^= 1 + (rng.next() % 255) as u8;
                }
                Perturb::DerTruncated => {
                    let cut = (rng.next() % d.len() as u64) as usize;
                    d.truncate(cut);
                }
            }
            out.push((k, m, d, kind));
        }
    }
    out.truncate(count);
    out
}

/// 32 pseudo-random octets for item `i` of chunk `seed` (independent of the stream).
fn rng_bytes(seed: u64, i: usize) -> Vec<u8> {
    let mut rng = Rng(seed ^ (i as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
    rng.bytes(32)
}

fn der_of(r: &openssl::bn::BigNumRef, s: &openssl::bn::BigNumRef) -> Vec<u8> {
    der(r, s)
}

/// What one chunk found: items, valid verdicts, mismatches (first few described).
#[derive(Default)]
struct Tally {
    items: usize,
    valid: usize,
    mismatches: usize,
    first: Vec<String>,
}

fn run_chunk(
    backend: &dyn BatchVerify<Signatures<EcdsaP256>>,
    keys: &[(EcKey<Private>, P256PublicKey)],
    seed: u64,
    count: usize,
) -> Tally {
    let owned = chunk_items(keys, seed, count);
    let items: Vec<Signed<'_, EcdsaP256>> = owned
        .iter()
        .map(|(k, m, d, _)| Signed {
            key: &keys[*k].1,
            message: m,
            signature: d,
        })
        .collect();
    let mut tally = Tally::default();
    let mut rng = Rng(seed ^ 0x5bd1_e995);
    let mut at = 0;
    while at < items.len() {
        // Batch sizes 1..=300: every tail length, OpenSSL's cut-off and full batches.
        let size = (1 + (rng.next() % 300) as usize).min(items.len() - at);
        let batch = &items[at..at + size];
        let verdicts = backend.verify_batch(batch);
        assert_eq!(verdicts.len(), size, "verdict count");
        for (i, (item, got)) in batch.iter().zip(verdicts).enumerate() {
            let want = reference(item);
            let kind = owned[at + i].3;
            if let Some(expected) = kind.verifies() {
                assert_eq!(want, expected, "OpenSSL on a {kind:?} item (seed {seed}, item {})", at + i);
            }
            tally.items += 1;
            tally.valid += usize::from(want);
            if got != want {
                tally.mismatches += 1;
                if tally.first.len() < 5 {
                    tally.first.push(format!(
                        "{kind:?} item {} of seed {seed}: {got}, OpenSSL {want}; key {:?} message {} signature {}",
                        at + i,
                        item.key,
                        hex_of(item.message),
                        hex_of(item.signature)
                    ));
                }
            }
        }
        at += size;
    }
    tally
}

#[test]
fn a_million_items_agree_with_openssl() {
    let name = default_backend_checked();
    let ifma = name == "avx512ifma";
    let backend: &dyn BatchVerify<Signatures<EcdsaP256>> = if ifma {
        batch::default_backend::<Signatures<EcdsaP256>>()
    } else {
        &MultiBuffer::PORTABLE
    };
    let total: usize = std::env::var("HOPSIG_P256_DIFFERENTIAL")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if ifma { 1_000_000 } else { 100_000 });
    // Few keys signing many times, as router keys do; each key's table is built once.
    let keys: Vec<(EcKey<Private>, P256PublicKey)> = (0..16)
        .map(|_| {
            let sk = EcdsaP256::generate().unwrap();
            let pk = EcdsaP256::public(&sk).unwrap();
            (sk, pk)
        })
        .collect();
    const CHUNK: usize = 5_000;
    let chunks: Vec<(u64, usize)> = (0..total.div_ceil(CHUNK))
        .map(|c| (c as u64 + 1, CHUNK.min(total - c * CHUNK)))
        .collect();
    let tallies = par::Ordered::new(par::cores()).batch(1).map(&chunks, |&(seed, count)| {
        run_chunk(backend, &keys, seed, count)
    });
    let items: usize = tallies.iter().map(|t| t.items).sum();
    let valid: usize = tallies.iter().map(|t| t.valid).sum();
    let mismatches: usize = tallies.iter().map(|t| t.mismatches).sum();
    let first: Vec<&String> = tallies.iter().flat_map(|t| &t.first).take(10).collect();
    println!(
        "{items} items through {}: {valid} valid, {mismatches} disagreements with OpenSSL",
        BatchVerify::<Signatures<EcdsaP256>>::name(backend)
    );
    assert_eq!(items, total);
    // About 38% of the items are valid by construction (the weights above).
    assert!(valid * 4 > items && valid * 2 < items, "{valid} valid of {items}");
    assert_eq!(mismatches, 0, "first disagreements:\n{first:#?}");
}
