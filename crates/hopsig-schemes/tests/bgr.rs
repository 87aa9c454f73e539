//! BGR round trips, negative tests and lazy-verification behaviour.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bgr_key, message};
use hopsig_schemes::bgr::{Bgr, BgrAggregate, BgrParams, BgrSigningKey, BgrVerifyingKey};
use hopsig_schemes::{Aggregate, Error, SequentialAggregate, SigningKey};

const ALL: [BgrParams; 4] = [
    BgrParams::PRF_RSA2048,
    BgrParams::PRF_RSA3072,
    BgrParams::RAND_RSA2048,
    BgrParams::RAND_RSA3072,
];

struct Chain {
    scheme: Bgr,
    keys: Vec<BgrSigningKey>,
    pubs: Vec<BgrVerifyingKey>,
    msgs: Vec<Vec<u8>>,
    agg: BgrAggregate,
}

impl Chain {
    fn new(params: BgrParams, n: usize) -> Chain {
        let scheme = Bgr::new(params);
        let keys: Vec<_> = (0..n).map(|i| bgr_key(params, i)).collect();
        let pubs = keys.iter().map(|k| k.verifying_key()).collect();
        let msgs: Vec<_> = (0..n).map(message).collect();
        let mut agg = None;
        for (k, m) in keys.iter().zip(&msgs) {
            agg = Some(scheme.sign(k, m, agg.as_ref()).unwrap());
        }
        Chain {
            scheme,
            keys,
            pubs,
            msgs,
            agg: agg.unwrap(),
        }
    }

    fn verify_with(
        &self,
        pubs: &[&BgrVerifyingKey],
        msgs: &[&[u8]],
        agg: &BgrAggregate,
    ) -> Result<(), Error> {
        let pairs: Vec<_> = pubs.iter().copied().zip(msgs.iter().copied()).collect();
        self.scheme.verify(&pairs, agg)
    }

    fn verify(&self, agg: &BgrAggregate) -> Result<(), Error> {
        let pubs: Vec<_> = self.pubs.iter().collect();
        let msgs: Vec<_> = self.msgs.iter().map(Vec::as_slice).collect();
        self.verify_with(&pubs, &msgs, agg)
    }

    fn decode(&self, bytes: &[u8]) -> BgrAggregate {
        self.scheme.aggregate_from_bytes(bytes).unwrap()
    }
}

fn invalid(r: Result<(), Error>) -> bool {
    matches!(r, Err(Error::InvalidSignature))
}

#[test]
fn round_trip_n_1_to_20_every_parameter_set() {
    for params in ALL {
        let max = if params.modulus_bits() == 2048 { 20 } else { 8 };
        let chain = Chain::new(params, max);
        // Every prefix of the chain is itself a valid aggregate of its signers.
        let mut agg = None;
        for n in 1..=max {
            let a = chain
                .scheme
                .sign(&chain.keys[n - 1], &chain.msgs[n - 1], agg.as_ref())
                .unwrap();
            let pubs: Vec<_> = chain.pubs[..n].iter().collect();
            let msgs: Vec<_> = chain.msgs[..n].iter().map(Vec::as_slice).collect();
            chain.verify_with(&pubs, &msgs, &a).unwrap();
            let bytes = a.to_bytes();
            assert_eq!(
                bytes.len(),
                params.aggregate_len(n),
                "{} n={n}",
                params.id()
            );
            assert_eq!(chain.decode(&bytes), a);
            agg = Some(a);
        }
        if params.modulus_bits() == 3072 {
            // n up to 20 for RSA-3072 too, with the pool's keys reused.
            let long = Chain::new(params, 20);
            long.verify(&long.agg).unwrap();
        }
    }
}

#[test]
fn aggregate_size_is_2304_plus_129n_bits_plus_a_7_byte_header() {
    let chain = Chain::new(BgrParams::PRF_RSA2048, 9);
    assert_eq!(chain.agg.signature_bits(), 2304 + 129 * 9);
    assert_eq!(
        chain.agg.to_bytes().len(),
        7 + (2304 + 129 * 9usize).div_ceil(8)
    );
}

#[test]
fn input_dependent_variant_is_deterministic_and_random_variant_is_not() {
    let a = Chain::new(BgrParams::PRF_RSA2048, 3);
    let b = Chain::new(BgrParams::PRF_RSA2048, 3);
    assert_eq!(a.agg, b.agg);
    let c = Chain::new(BgrParams::RAND_RSA2048, 3);
    let d = Chain::new(BgrParams::RAND_RSA2048, 3);
    assert_ne!(c.agg.r(1), d.agg.r(1));
    c.verify(&d.agg).unwrap();
}

#[test]
fn any_change_is_rejected() {
    for params in [BgrParams::PRF_RSA2048, BgrParams::RAND_RSA2048] {
        let chain = Chain::new(params, 5);
        let n = 5;
        chain.verify(&chain.agg).unwrap();
        let bytes = chain.agg.to_bytes();
        let k = params.k();
        let r_len = params.r_len();
        let (x_at, h_at, r_at, b_at) = (7, 7 + k, 7 + k + 32, 7 + k + 32 + n * r_len);

        // Any message.
        for i in 0..n {
            let mut msgs = chain.msgs.clone();
            msgs[i].push(b'!');
            let m: Vec<_> = msgs.iter().map(Vec::as_slice).collect();
            assert!(
                invalid(chain.verify_with(&chain.pubs.iter().collect::<Vec<_>>(), &m, &chain.agg)),
                "m_{i}"
            );
        }
        // Any r_i, any b_i, x_n, h_n (a bit flip in each).
        let mut flips: Vec<(String, usize, u8)> = (0..n)
            .map(|i| (format!("r_{}", i + 1), r_at + i * r_len, 0x01))
            .collect();
        flips.extend((0..n).map(|i| (format!("b_{}", i + 1), b_at + i / 8, 0x80 >> (i % 8))));
        flips.push(("x_n low bit".into(), x_at + k - 1, 0x01));
        flips.push(("x_n bit 2045".into(), x_at, 0x40));
        flips.push(("h_n".into(), h_at + 5, 0x10));
        for (what, at, mask) in flips {
            let mut t = bytes.clone();
            t[at] ^= mask;
            let tampered = chain.decode(&t);
            assert!(invalid(chain.verify(&tampered)), "{what}");
        }
        // Any key replaced by another signer's key.
        for i in 0..n {
            let mut pubs: Vec<_> = chain.pubs.iter().collect();
            let other = bgr_key(params, i + 1).verifying_key();
            pubs[i] = &other;
            let m: Vec<_> = chain.msgs.iter().map(Vec::as_slice).collect();
            assert!(invalid(chain.verify_with(&pubs, &m, &chain.agg)), "key {i}");
        }
        // Signer order swapped (keys and messages together).
        let mut pubs: Vec<_> = chain.pubs.iter().collect();
        let mut m: Vec<_> = chain.msgs.iter().map(Vec::as_slice).collect();
        pubs.swap(1, 2);
        m.swap(1, 2);
        assert!(invalid(chain.verify_with(&pubs, &m, &chain.agg)), "order");
        // Fewer or more signers than the aggregate holds.
        let pubs: Vec<_> = chain.pubs.iter().collect();
        let m: Vec<_> = chain.msgs.iter().map(Vec::as_slice).collect();
        assert!(
            invalid(chain.verify_with(&pubs[..4], &m[..4], &chain.agg)),
            "truncated list"
        );
    }
}

#[test]
fn x_at_or_above_the_modulus_is_rejected() {
    // X_n = SPLIT⁻¹(b_n, x_n) ≥ N_n must be rejected, not reduced mod N.
    let chain = Chain::new(BgrParams::PRF_RSA2048, 2);
    let n_bytes = chain.pubs[1].rsa().modulus().to_vec();
    let mut x = n_bytes.clone();
    x[0] &= 0x7f;
    let over = BgrAggregate::from_parts(
        BgrParams::PRF_RSA2048,
        x,
        *chain.agg.h(),
        vec![
            chain.agg.r(1).unwrap().to_vec(),
            chain.agg.r(2).unwrap().to_vec(),
        ],
        vec![chain.agg.b(1).unwrap(), true],
    )
    .unwrap();
    assert!(invalid(chain.verify(&over)));
}

#[test]
fn y_outside_d_is_rejected() {
    // Ver's "reject if y_i ∉ D" (App. F) is the only check this aggregate fails.
    for params in [BgrParams::PRF_RSA2048, BgrParams::RAND_RSA3072] {
        let scheme = Bgr::new(params);
        let (k1, k2) = (bgr_key(params, 0), bgr_key(params, 1));
        let (m1, agg) = common::y_outside_d(params, &k1, &k2, b"m2");
        let (pk1, pk2) = (k1.verifying_key(), k2.verifying_key());
        assert!(
            invalid(scheme.verify(&[(&pk1, &m1), (&pk2, b"m2")], &agg)),
            "{}",
            params.id()
        );
        // Its encoding decodes: y_2 is no part of it, only Ver can see it.
        assert_eq!(scheme.aggregate_from_bytes(&agg.to_bytes()).unwrap(), agg);
    }
}

#[test]
fn lazy_signing_of_an_invalid_aggregate_keeps_it_invalid_and_is_allowed() {
    let chain = Chain::new(BgrParams::PRF_RSA2048, 3);
    let mut bytes = chain.agg.to_bytes();
    bytes[200] ^= 1;
    let broken = chain.decode(&bytes);
    // The 4th signer signs without verifying: allowed (lazy verification) ...
    let next = bgr_key(BgrParams::PRF_RSA2048, 3);
    let agg = chain.scheme.sign(&next, b"m4", Some(&broken)).unwrap();
    // ... and the result does not verify, because the first three signatures are broken.
    let mut pubs: Vec<_> = chain.pubs.iter().collect();
    let pk4 = next.verifying_key();
    pubs.push(&pk4);
    let mut m: Vec<_> = chain.msgs.iter().map(Vec::as_slice).collect();
    m.push(b"m4");
    assert!(invalid(chain.verify_with(&pubs, &m, &agg)));
}

#[test]
fn keys_and_aggregates_of_other_parameter_sets_are_refused() {
    let a = Chain::new(BgrParams::PRF_RSA2048, 1);
    let b = Bgr::new(BgrParams::RAND_RSA2048);
    assert!(matches!(
        b.sign(&a.keys[0], b"m", None),
        Err(Error::KeyForOtherScheme { expected, found })
            if expected == "bgr-rand-rsa2048" && found == "bgr-rsa2048"
    ));
    assert!(matches!(
        b.aggregate_from_bytes(&a.agg.to_bytes()),
        Err(Error::AggregateForOtherScheme { expected, found })
            if expected == "bgr-rand-rsa2048" && found == "bgr-rsa2048"
    ));
    // Another ℓ_r is another parameter set: named by its -rBITS id, never reinterpreted.
    let r192 = Bgr::new(BgrParams::random(2048, 192).unwrap());
    let other_r = Chain::new(BgrParams::RAND_RSA2048, 1);
    assert!(matches!(
        r192.aggregate_from_bytes(&other_r.agg.to_bytes()),
        Err(Error::AggregateForOtherScheme { expected, found })
            if expected == "bgr-rand-rsa2048-r192" && found == "bgr-rand-rsa2048"
    ));
    let c = Bgr::new(BgrParams::PRF_RSA3072);
    assert!(matches!(
        c.verify(&[(&a.pubs[0], b"m")], &a.agg),
        Err(Error::KeyForOtherScheme { expected, found })
            if expected == "bgr-rsa3072" && found == "bgr-rsa2048"
    ));
}

#[test]
fn a_relabelled_aggregate_is_no_signature_of_another_parameter_set() {
    // bgr-rsaN (PRF, ℓ_r = 128) and bgr-rand-rsaN-r128 encode r_i with the same length,
    // so a header relabelled from code/param 0x10/0 to 0x12/16 decodes. Every hash is
    // bound to the parameter set (bgr.md §4), so it must not verify there.
    for (prf, code) in [
        (BgrParams::PRF_RSA2048, 0x12),
        (BgrParams::PRF_RSA3072, 0x13),
    ] {
        let chain = Chain::new(prf, 3);
        let r128 = BgrParams::random(prf.modulus_bits(), 128).unwrap();
        let other = Bgr::new(r128);
        let mut bytes = chain.agg.to_bytes();
        (bytes[3], bytes[4]) = (code, 16);
        let relabelled = other.aggregate_from_bytes(&bytes).unwrap();
        let pubs: Vec<BgrVerifyingKey> = chain
            .pubs
            .iter()
            .map(|pk| BgrVerifyingKey::new(r128, pk.rsa().clone()).unwrap())
            .collect();
        let pairs: Vec<_> = pubs
            .iter()
            .zip(&chain.msgs)
            .map(|(pk, m)| (pk, m.as_slice()))
            .collect();
        assert!(invalid(other.verify(&pairs, &relabelled)), "{}", r128.id());
        // The same keys and messages do verify an aggregate made for r128.
        // Chain::new used the pool's RSA keys 0..3; bgr_key gives the same ones.
        let keys: Vec<_> = (0..3).map(|i| bgr_key(r128, i)).collect();
        let mut agg = None;
        for (k, m) in keys.iter().zip(&chain.msgs) {
            agg = Some(other.sign(k, m, agg.as_ref()).unwrap());
        }
        other.verify(&pairs, &agg.unwrap()).unwrap();
    }
}

#[test]
fn a_given_r_needs_the_random_variant_and_its_length() {
    use hopsig_schemes::hazmat::danger_bgr_sign_with_r;
    let prf = BgrParams::PRF_RSA2048;
    let e = danger_bgr_sign_with_r(&Bgr::new(prf), &bgr_key(prf, 0), b"m", &[7; 16], None);
    assert!(matches!(e, Err(Error::Key(_))));
    let rand = BgrParams::RAND_RSA2048;
    let (scheme, key) = (Bgr::new(rand), bgr_key(rand, 0));
    let e = danger_bgr_sign_with_r(&scheme, &key, b"m", &[7; 16], None);
    assert!(matches!(e, Err(Error::Key(_))));
    let agg = danger_bgr_sign_with_r(&scheme, &key, b"m", &[7; 19], None).unwrap();
    assert_eq!(agg.r(1), Some(&[7u8; 19][..]));
    scheme
        .verify(&[(&key.verifying_key(), b"m")], &agg)
        .unwrap();
}

#[test]
fn key_files_round_trip_and_openssl_reads_them() {
    use hopsig_schemes::primitives::armor::KeyKind;
    use hopsig_schemes::registry;
    for params in [BgrParams::PRF_RSA2048, BgrParams::RAND_RSA2048] {
        let key = bgr_key(params, 0);
        let text = SigningKey::to_key_file(&key).unwrap();
        let scheme = registry::lookup(params.id()).unwrap();
        let again = scheme.signing_key_from_file(text.as_bytes()).unwrap();
        assert_eq!(again.to_key_file().unwrap().as_str(), text.as_str());
        // OpenSSL's PEM reader skips the header lines and reads the PKCS #8 block.
        assert!(openssl::pkey::PKey::private_key_from_pem(text.as_bytes()).is_ok());
        let pub_text = hopsig_schemes::VerifyingKey::to_key_file(&key.verifying_key());
        assert!(openssl::pkey::PKey::public_key_from_pem(pub_text.as_bytes()).is_ok());
        // A public file is not accepted where a secret key is needed, and vice versa.
        assert!(matches!(
            scheme.signing_key_from_file(pub_text.as_bytes()),
            Err(Error::WrongKeyKind {
                expected: KeyKind::Secret,
                found: KeyKind::Public
            })
        ));
        assert!(matches!(
            scheme.verifying_key_from_file(text.as_bytes()),
            Err(Error::WrongKeyKind {
                expected: KeyKind::Public,
                found: KeyKind::Secret
            })
        ));
    }
}
