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
//! Covered, each with its secrets marked before the first operation on them:
//! - K-163, K-233, K-283: key generation d·G, ECDSA signing with a fixed nonce k, and
//!   nonce sampling (rejection sampling of a candidate that every curve accepts, then
//!   signing with it, and of one that every curve rejects); the point comparisons
//!   that `hopsig_koblitz` promises in constant time (`==`, `is_on_curve`, `has_x`,
//!   affine to projective) on a secret point;
//! - ICNR setup/request/issue/finalize (s_T, k_A, k_T and the resulting s̄_A, s_A);
//! - BGR signing with a secret PRF seed and SPLIT of a secret value;
//! - BLS: the public key derived from the marked secret key, then signing;
//! - IBAS: PKG setup from marked random bytes (the master secret's draw and zero test,
//!   Q = s·P), extraction d_j = s·H1(ID, j), and the production signing path
//!   [`ibas::sign`] with a memory [`Journal`](ibas::Journal) (journal claim, the derived r, the share,
//!   the sum with the incoming aggregate) as first signer and as countersigner.
//!
//! The RSA key of BGR is not marked: it lives inside OpenSSL (CRT with blinding and
//! `BN_mod_exp_mont_consttime`), which this test does not audit. Secrets are fixed test
//! values (and a fixed RSA key in `tests/data`), so that no key generation draws from
//! the system's random number generator under valgrind; the `hazmat` entry points
//! take them.

use hopsig_koblitz::curve::{mul, mul_base, Affine, Curve, Point, K163, K233, K283};
use hopsig_koblitz::scalar::{SecretScalar, CANDIDATE_BYTES};
use hopsig_primitives::rsa::RsaSecretKey;
use hopsig_primitives::valgrind::{classify, declassify, public_bool, running_on_valgrind};
use hopsig_schemes::bgr::{oracles, Bgr, BgrParams, BgrSigningKey};
use hopsig_schemes::bls::{Bgls, BglsSigningKey};
use hopsig_schemes::concat::koblitz::verify_der;
use hopsig_schemes::hazmat;
use hopsig_schemes::ibas::{self, Identity, Journal};
use hopsig_schemes::pla::icnr::{self, Blind, Ttp};
use hopsig_schemes::{Error, SequentialAggregate, SigningKey};

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

/// Nonce candidates (SEC 1 §3.2.1 step 1, [`SecretScalar::from_candidate`]): eight zero
/// bytes first, so that the part each curve reads (the first 24, 32 or 40 bytes, cut
/// to bitlen(n)) is nonzero and below 2^192 < n on all three curves; and all-ones,
/// which every curve rejects (above n after the cut).
const ACCEPTED: [u8; CANDIDATE_BYTES] = {
    let mut c = [0x96u8; CANDIDATE_BYTES];
    let mut i = 0;
    while i < 8 {
        c[i] = 0;
        i += 1;
    }
    c
};
const REJECTED: [u8; CANDIDATE_BYTES] = [0xff; CANDIDATE_BYTES];

/// Key generation, ECDSA signing and nonce sampling on one curve.
fn ecdsa<C: Curve>() -> Outcome {
    section(&format!("{}: key generation d·G", C::NAME));
    let key = hopsig_schemes::concat::koblitz::KoblitzSecret::from_scalar(secret::<C>(0x5a))?;
    section(&format!("{}: ECDSA sign with nonce k", C::NAME));
    let sig = hazmat::danger_ecdsa_sign_with_nonce(&key, b"message", &secret::<C>(0xc3))?
        .ok_or_else(|| failed("r or s is 0"))?;
    if !verify_der(key.public_point(), b"message", &sig) {
        return Err(failed("ECDSA signature does not verify"));
    }
    for (candidate, expected) in [(ACCEPTED, true), (REJECTED, false)] {
        section(&format!(
            "{}: nonce sampling, a candidate the curve {}",
            C::NAME,
            if expected {
                "accepts, then ECDSA sign"
            } else {
                "rejects"
            }
        ));
        let mut random = candidate;
        classify(&mut random);
        let (k, accepted) = SecretScalar::<C>::from_candidate(&random);
        if public_bool(accepted) != expected {
            return Err(failed("nonce candidate accepted or rejected unexpectedly"));
        }
        if expected {
            let sig = hazmat::danger_ecdsa_sign_with_nonce(&key, b"sampled", &k)?
                .ok_or_else(|| failed("r or s is 0"))?;
            if !verify_der(key.public_point(), b"sampled", &sig) {
                return Err(failed(
                    "ECDSA signature with a sampled nonce does not verify",
                ));
            }
        }
    }
    Ok(())
}

/// The point operations that are constant time without `vartime` in their name
/// (`hopsig_koblitz` crate docs), on a secret point k·G computed twice, by the comb
/// and by the Montgomery ladder: `==` on projective and affine points, the conversion
/// back to projective, the curve equation, ECDSA's x-coordinate test. Only their
/// answers are declassified.
fn point_comparisons<C: Curve>() -> Outcome {
    section(&format!(
        "{}: comparisons of a secret point (==, is_on_curve, has_x, from affine)",
        C::NAME
    ));
    let k = secret::<C>(0x66);
    let by_comb = mul_base(C::generator_comb(), &k);
    let by_ladder = mul(&Affine::<C>::generator(), &k.to_be_bytes());
    let affine = by_comb.to_affine();
    let mut answers = [
        by_comb == by_ladder,
        affine == by_ladder.to_affine(),
        Point::from(affine) == by_comb,
        affine.is_on_curve(),
        by_ladder.has_x(affine.x()),
        by_comb != Point::from(Affine::generator()),
    ];
    declassify(&mut answers);
    if answers != [true; 6] {
        return Err(failed("secret point comparisons"));
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
    let issued =
        hazmat::danger_icnr_issue_with_nonce(&ttp, b"alice", blind.request(), &secret(0x33))?
            .ok_or_else(|| failed("P = ∞"))?;
    section(&format!("{}: ICNR_finalkey", C::NAME));
    let key = icnr::finalkey(&blind, &issued, b"alice", ttp.public())?;
    let sig = hazmat::danger_ecdsa_sign_with_nonce(&key, b"packet", &secret::<C>(0x44))?
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

/// BLS: SkToPk and CoreSign with a secret key marked before either runs.
fn bls() -> Outcome {
    section("BLS public key SK·P1");
    let mut sk = [0x1f; 32];
    classify(&mut sk);
    let key = BglsSigningKey::from_bytes(&sk)?;
    section("BLS sign");
    let sig = key.sign_one(b"message");
    let agg = Bgls.sign(&key, b"message", None)?;
    if agg.signature_bytes() != sig {
        return Err(failed("BLS signatures differ"));
    }
    Bgls.verify(&[(&key.verifying_key(), b"message")], &agg)
        .map_err(|e: Error| failed(&format!("BLS signature does not verify: {e}")))?;
    Ok(())
}

/// IBAS: PKG setup and extraction with the master secret marked, then the production
/// signing path with the user keys' secret fields marked, as first signer (fresh w)
/// and as countersigner (under the incoming aggregate's w).
fn ibas() -> Outcome {
    section("IBAS PKG setup: master secret s, Q = s·P");
    let pkg = hazmat::danger_pkg_setup_with_random_bytes(|wide| {
        *wide = [0x5c; 48];
        classify(wide);
    })?;
    section("IBAS extract d_j = s·H1(ID, j)");
    let (alice, moderator) = ("/hopsig/alice", "/hopsig/moderator");
    let mut first_key = pkg.extract(alice)?;
    let mut second_key = pkg.extract(moderator)?;
    // d_0, d_1 and their encoding are already undefined, computed from s; marked again
    // so that no byte the arithmetic happened to leave defined escapes.
    classify(hazmat::danger_user_key_secret_mut(&mut first_key));
    classify(hazmat::danger_user_key_secret_mut(&mut second_key));
    section("IBAS sign, first signer (journal claim, r, S' and T')");
    let first = ibas::sign(&first_key, b"data", None, &mut Journal::memory())?;
    section("IBAS sign, countersigner (added to the incoming aggregate)");
    let both = ibas::sign(
        &second_key,
        b"endorsed",
        Some(&first),
        &mut Journal::memory(),
    )?;
    let (alice, moderator) = (Identity::new(alice)?, Identity::new(moderator)?);
    ibas::verify(
        pkg.params(),
        &[(&alice, b"data"), (&moderator, b"endorsed")],
        &both,
    )
    .map_err(|e: Error| failed(&format!("IBAS aggregate does not verify: {e}")))?;
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
    point_comparisons::<K163>()?;
    point_comparisons::<K233>()?;
    point_comparisons::<K283>()?;
    icnr::<K163>()?;
    icnr::<K233>()?;
    icnr::<K283>()?;
    bgr()?;
    bls()?;
    ibas()?;
    eprintln!("ctime: done");
    Ok(())
}
