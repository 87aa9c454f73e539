//! The constant-time test, after libsecp256k1's `ctime_tests.c`: every secret input of
//! hopsig's signing paths is marked undefined for valgrind memcheck
//! ([`hopsig_primitives::valgrind::classify`]) before the operation runs, and the
//! library declassifies what the protocol makes public (signatures, public keys,
//! certificates, "this nonce candidate was accepted"). Under
//! `valgrind --error-exitcode=…` any conditional jump, conditional move or memory
//! address that depends on a secret is reported and fails the run
//! (`tests/valgrind.rs`). Natively the binary just runs the operations and checks
//! their results.
//!
//! Covered: key generation d·G and ECDSA signing on K-163, K-233 and K-283 (fixed d
//! and nonce k), nonce sampling, ICNR setup/request/issue/finalize (s_T, k_A, k_T and
//! the resulting s̄_A, s_A), BGR signing with a secret PRF seed and SPLIT of a secret
//! value, BLS signing, and IBAS individual signing (user key and randomness r). The RSA
//! key of BGR is not marked: it lives inside OpenSSL (CRT with blinding and
//! `BN_mod_exp_mont_consttime`), which this test does not audit.
//!
//! Secrets are fixed test values (and a fixed RSA key in `tests/data`), so that no key
//! generation runs under valgrind.

use hopsig_koblitz::curve::{Curve, K163, K233, K283};
use hopsig_koblitz::scalar::{SecretScalar, CANDIDATE_BYTES};
use hopsig_primitives::pairing::{Scalar, SCALAR_BYTES};
use hopsig_primitives::rsa::RsaSecretKey;
use hopsig_primitives::valgrind::{classify, declassify, public_bool, running_on_valgrind};
use hopsig_schemes::bgr::{oracles, Bgr, BgrParams, BgrSigningKey};
use hopsig_schemes::bls::{Bgls, BglsSigningKey};
use hopsig_schemes::concat::koblitz::verify_der;
use hopsig_schemes::hazmat;
use hopsig_schemes::ibas::{self, Identity, PublicParams};
use hopsig_schemes::pla::icnr::{self, Blind, Ttp};
use hopsig_schemes::{Error, SequentialAggregate};

/// The RSA-2048 key BGR signs with (generated once with `openssl genpkey`).
const RSA_KEY: &[u8] = include_bytes!("../tests/data/rsa2048.pem");

/// What the binary reports on failure (a broken operation, not a timing leak: those are
/// valgrind's to report).
type Outcome = Result<(), Box<dyn std::error::Error>>;

fn failed(what: &str) -> Box<dyn std::error::Error> {
    what.into()
}

/// A fixed secret scalar below n: bytes(n) bytes derived from `seed`, top byte cleared.
fn secret<C: Curve>(seed: u8) -> SecretScalar<C> {
    let len = C::ORDER.len() / 2;
    let bytes: Vec<u8> = (0..len)
        .map(|i| {
            if i == 0 {
                0
            } else {
                (i as u8).wrapping_mul(37) ^ seed
            }
        })
        .collect();
    let (mut k, _) = SecretScalar::from_be_bytes(&bytes);
    classify(&mut k);
    k
}

/// Key generation and ECDSA signing on one curve.
fn ecdsa<C: Curve>() -> Outcome {
    section(&format!("{}: key generation d·G", C::NAME));
    let key = hopsig_schemes::concat::koblitz::KoblitzSecret::from_scalar(secret::<C>(0x5a))?;
    section(&format!("{}: ECDSA sign with nonce k", C::NAME));
    let sig = hazmat::ecdsa_sign_with_nonce(&key, b"message", &secret::<C>(0xc3))?
        .ok_or_else(|| failed("r or s is 0"))?;
    if !verify_der(key.public_point(), b"message", &sig) {
        return Err(failed("ECDSA signature does not verify"));
    }
    section(&format!("{}: nonce sampling", C::NAME));
    let mut random = [0x96u8; CANDIDATE_BYTES];
    classify(&mut random);
    let (k, accepted) = SecretScalar::<C>::from_candidate(&random);
    if public_bool(accepted) {
        hazmat::ecdsa_sign_with_nonce(&key, b"message", &k)?;
    }
    Ok(())
}

/// ICNR: TTP setup, Alice's request, issuance, final key, a signature with it.
fn icnr<C: Curve>() -> Outcome {
    section(&format!("{}: ICNR setup s_T·G", C::NAME));
    let ttp = Ttp::from_secret(secret::<C>(0x11))?;
    section(&format!("{}: ICNR_blind k_A·G", C::NAME));
    let blind = Blind::from_secret(secret::<C>(0x22))?;
    section(&format!("{}: ICNR_ttp with k_T", C::NAME));
    let issued = hazmat::icnr_issue_with_nonce(&ttp, b"alice", blind.request(), &secret(0x33))?
        .ok_or_else(|| failed("P = ∞"))?;
    section(&format!("{}: ICNR_finalkey", C::NAME));
    let key = icnr::finalkey(&blind, &issued, b"alice", ttp.public())?;
    let sig = hazmat::ecdsa_sign_with_nonce(&key, b"packet", &secret::<C>(0x44))?
        .ok_or_else(|| failed("r or s is 0"))?;
    if !verify_der(key.public_point(), b"packet", &sig) {
        return Err(failed("ICNR key's signature does not verify"));
    }
    Ok(())
}

/// BGR (input-dependent r): the PRF seed is secret; SPLIT of a secret value.
fn bgr() -> Outcome {
    section("BGR sign (secret PRF seed)");
    let params = BgrParams::from_id("bgr-rsa2048").ok_or_else(|| failed("bgr-rsa2048"))?;
    let rsa = RsaSecretKey::from_pkcs8_pem(RSA_KEY)?;
    let mut seed = [0x7eu8; 32];
    classify(&mut seed);
    let key = BgrSigningKey::from_parts(params, rsa, Some(seed))?;
    let scheme = Bgr::new(params);
    let first = scheme.sign(&key, b"hop 1", None)?;
    scheme.sign(&key, b"hop 2", Some(&first))?;
    section("BGR SPLIT (secret X)");
    let mut x = [0xa5u8; 256];
    classify(&mut x);
    let mut b = oracles::split(&mut x);
    declassify(&mut x);
    declassify(&mut b);
    if x[0] & 0x80 != 0 || !b {
        return Err(failed("SPLIT"));
    }
    Ok(())
}

/// BLS CoreSign with a secret key.
fn bls() -> Outcome {
    section("BLS sign");
    let mut key = BglsSigningKey::from_bytes(&[0x1f; 32])?;
    // The key holds the secret scalar and its public key (plain data): all undefined.
    classify(&mut key);
    key.sign_one(b"message");
    Bgls.sign(&key, b"message", None)?;
    Ok(())
}

/// IBAS Individual Signing with a secret user key (d_0, d_1) and randomness r.
fn ibas() -> Outcome {
    section("IBAS sign");
    let identity = "/hopsig/alice";
    let mut s = [0u8; SCALAR_BYTES];
    s[31] = 0x2b;
    let master = Scalar::from_be_bytes(&s)?;
    let (mut d0, mut d1) = (
        ibas::h1(identity, 0).mul(&master),
        ibas::h1(identity, 1).mul(&master),
    );
    let mut r_bytes = [0x31u8; SCALAR_BYTES];
    r_bytes[0] = 0x01;
    let mut r = Scalar::from_be_bytes(&r_bytes)?;
    classify(&mut d0);
    classify(&mut d1);
    classify(&mut r);
    let w = [9u8; ibas::W_LEN];
    let agg = hazmat::ibas_sign_with_randomness(&d0, &d1, identity, b"message", &w, &r)?;
    let params = PublicParams::from_bytes(
        &hopsig_primitives::pairing::G2::generator()
            .mul(&master)
            .to_compressed(),
    )?;
    ibas::verify(&params, &[(&Identity::new(identity)?, b"message")], &agg)
        .map_err(|e: Error| failed(&format!("IBAS signature does not verify: {e}")))?;
    Ok(())
}

fn section(name: &str) {
    eprintln!("ctime: {name}");
}

fn main() -> Outcome {
    eprintln!("ctime: under valgrind: {}", running_on_valgrind());
    ecdsa::<K163>()?;
    ecdsa::<K233>()?;
    ecdsa::<K283>()?;
    icnr::<K163>()?;
    icnr::<K233>()?;
    icnr::<K283>()?;
    bgr()?;
    bls()?;
    ibas()?;
    eprintln!("ctime: done");
    Ok(())
}
