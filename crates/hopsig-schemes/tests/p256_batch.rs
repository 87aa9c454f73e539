//! The multi-buffer P-256 batch verifier behind hopsig-schemes' seam (issue 28): lanes
//! that disagree never contaminate a neighbour's verdict, batches of every length, and
//! the stable version of the `p256_batch` fuzz target (random inputs through the same
//! decoding and check).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod p256_common;

use hopsig_schemes::batch::{BatchVerify, Kind, MultiBuffer, Signatures, Signed};
use hopsig_schemes::concat::{BaseSignature, EcdsaP256};
use openssl::bn::BigNum;
use p256_common::*;
use proptest::prelude::*;

/// Owned items: (key index, message, signature) with the verdict each must get.
struct Mix {
    keys: Vec<hopsig_schemes::concat::P256PublicKey>,
    items: Vec<(usize, Vec<u8>, Vec<u8>, bool)>,
}

impl Mix {
    fn signed(&self) -> Vec<Signed<'_, EcdsaP256>> {
        self.items
            .iter()
            .map(|(k, m, s, _)| Signed {
                key: &self.keys[*k],
                message: m,
                signature: s,
            })
            .collect()
    }

    fn expected(&self) -> Vec<bool> {
        self.items.iter().map(|i| i.3).collect()
    }
}

/// Valid, invalid (other message, flipped signature octet, foreign key), malformed
/// (garbage, empty, truncated, trailing octet), out of range (r = 0, s = n) and the
/// constructed exceptional cases, over three keys, each kind several times.
fn mix() -> Mix {
    let sks: Vec<_> = (0..3).map(|_| EcdsaP256::generate().unwrap()).collect();
    let mut keys: Vec<_> = sks.iter().map(|sk| EcdsaP256::public(sk).unwrap()).collect();
    let mut items = Vec::new();
    for round in 0..4u8 {
        for (k, sk) in sks.iter().enumerate() {
            let message = vec![round, k as u8, 0x55];
            let sig = EcdsaP256::sign(sk, &message).unwrap();
            items.push((k, message.clone(), sig.clone(), true));
            let mut other = message.clone();
            other.push(1);
            items.push((k, other, sig.clone(), false));
            let mut flipped = sig.clone();
            flipped[10] ^= 0x40;
            items.push((k, message.clone(), flipped, false));
            items.push(((k + 1) % 3, message.clone(), sig.clone(), false));
            items.push((k, message.clone(), b"garbage".to_vec(), false));
            items.push((k, message.clone(), Vec::new(), false));
            items.push((k, message.clone(), sig[..sig.len() - 1].to_vec(), false));
            let mut trailing = sig.clone();
            trailing.push(0);
            // OpenSSL's reader ignores what follows the SEQUENCE: still valid.
            items.push((k, message.clone(), trailing, true));
            let zero = BigNum::new().unwrap();
            let one = BigNum::from_u32(1).unwrap();
            items.push((k, message.clone(), der(&zero, &one), false));
            items.push((k, message.clone(), der(&one, &n()), false));
        }
    }
    // R = O (u1·G = −u2·Q) and a doubling (u1·G = u2·Q), valid, under keys of their own.
    for (i, message) in [b"infinity".as_slice(), b"doubling"].iter().enumerate() {
        let e = mod_n(&digest_int(message));
        let k = BigNum::from_u32(0x1234 + i as u32).unwrap();
        let r = mod_n(&x_of(&mul_g(&k)));
        let (d, s, valid) = if i == 0 {
            (neg_n(&mul_n(&e, &inv_n(&r))), BigNum::from_u32(7).unwrap(), false)
        } else {
            let two_e = mod_n(&(&e + &e));
            (mul_n(&e, &inv_n(&r)), mul_n(&inv_n(&k), &two_e), true)
        };
        let (_, pk) = key_pair(&d);
        keys.push(pk);
        items.push((keys.len() - 1, message.to_vec(), der(&r, &s), valid));
    }
    Mix { keys, items }
}

#[test]
fn the_default_backend_is_the_one_the_processor_allows() {
    let name = default_backend_checked();
    let listed: Vec<&str> = Signatures::<EcdsaP256>::backends()
        .iter()
        .map(|b| b.name())
        .collect();
    match hopsig_p256::active_backend() {
        hopsig_p256::Backend::Avx512Ifma => assert_eq!(listed, ["avx512ifma", "cpu"]),
        hopsig_p256::Backend::Portable => assert_eq!(listed, ["cpu"]),
    }
    assert_eq!(name, listed[0]);
    println!("default P-256 batch backend: {name}");
}

#[test]
fn lanes_never_contaminate_each_other() {
    let mix = mix();
    let items = mix.signed();
    let expected = mix.expected();
    // The whole mix, and the reference agrees with what each item was made to be.
    assert_eq!(check_all(&items), expected);
    for (name, backend) in backends() {
        // Each item alone, and replicated to fill all eight lanes.
        for (i, item) in items.iter().enumerate() {
            assert_eq!(backend.verify_batch(&[*item]), [expected[i]], "{name} {i}");
            assert_eq!(backend.verify_batch(&[*item; 8]), [expected[i]; 8], "{name} {i}");
        }
        // Every rotation puts each item in every lane beside other neighbours.
        for shift in 0..8 {
            let mut rotated = items.clone();
            rotated.rotate_left(shift);
            let mut want = expected.clone();
            want.rotate_left(shift);
            assert_eq!(backend.verify_batch(&rotated), want, "{name} rotation {shift}");
        }
        // One valid item among seven invalid ones in every lane position, and the reverse.
        let valid = items[0];
        let invalid = items[1];
        for lane in 0..8 {
            let mut batch = [invalid; 8];
            batch[lane] = valid;
            let mut want = [false; 8];
            want[lane] = true;
            assert_eq!(backend.verify_batch(&batch), want, "{name} lane {lane}");
            let mut batch = [valid; 8];
            batch[lane] = invalid;
            assert_eq!(backend.verify_batch(&batch), want.map(|b| !b), "{name} lane {lane}");
        }
    }
}

#[test]
fn batches_of_every_length() {
    let mix = mix();
    let items = mix.signed();
    let expected = mix.expected();
    for len in (0..=17).chain([63, 64, 65]) {
        let batch: Vec<_> = items.iter().cycle().take(len).copied().collect();
        let want: Vec<_> = expected.iter().cycle().take(len).copied().collect();
        for (name, backend) in backends() {
            assert_eq!(backend.verify_batch(&batch), want, "{name} length {len}");
        }
    }
}

#[test]
fn the_cut_off_sends_small_batches_to_openssl() {
    assert_eq!(MultiBuffer::AVX512IFMA.min_batch(), hopsig_schemes::batch::p256::MIN_BATCH);
    assert_eq!(MultiBuffer::AVX512IFMA.with_min_batch(3).min_batch(), 3);
    assert_eq!(BatchVerify::<Signatures<EcdsaP256>>::name(&MultiBuffer::AVX512IFMA), "avx512ifma");
    assert_eq!(BatchVerify::<Signatures<EcdsaP256>>::name(&MultiBuffer::PORTABLE), "portable");
}

#[test]
fn fuzz_seeds_pass() {
    // A valid signature per key, then one mutated, then raw octets.
    let mut data = Vec::new();
    for key in 0..4u8 {
        data.extend_from_slice(&[key, 5, b'h', b'e', b'l', b'l', b'o', 1, 0, 0]);
        data.extend_from_slice(&[key, 2, b'h', b'i', 1, 1, 9, 0x80]);
        data.extend_from_slice(&[key, 1, b'x', 0, 8, 0x30, 6, 2, 1, 1, 2, 1, 1]);
    }
    fuzz_check(&data);
    fuzz_check(&[]);
    fuzz_check(&[0xff]);
    // The fuzz target's committed seed corpus.
    let seeds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/p256_batch");
    let mut count = 0;
    for entry in std::fs::read_dir(&seeds).unwrap() {
        fuzz_check(&std::fs::read(entry.unwrap().path()).unwrap());
        count += 1;
    }
    assert!(count >= 2, "{count} seeds in {}", seeds.display());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The fuzz target on random input.
    #[test]
    fn fuzz_target_on_random_input(data in proptest::collection::vec(any::<u8>(), 0..600)) {
        fuzz_check(&data);
    }

    /// The fuzz target on inputs made of valid signatures with random masks.
    #[test]
    fn fuzz_target_on_mutated_signatures(
        records in proptest::collection::vec(
            (0..4u8, proptest::collection::vec(any::<u8>(), 0..20), 0..8u8, any::<u8>(), any::<u64>()),
            1..24,
        )
    ) {
        let mut data = Vec::new();
        for (key, message, mask_len, at, mask) in records {
            data.push(key);
            data.push(message.len() as u8);
            data.extend_from_slice(&message);
            data.push(1);
            data.push(mask_len);
            data.push(at);
            data.extend_from_slice(&mask.to_le_bytes()[..usize::from(mask_len)]);
        }
        fuzz_check(&data);
    }
}
