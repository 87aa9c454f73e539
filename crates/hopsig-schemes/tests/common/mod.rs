//! Shared test helpers: a small pool of RSA keys reused across tests (key generation
//! dominates test time otherwise).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::OnceLock;

use hopsig_schemes::bgr::oracles::{g, h, in_d, split, xor_into};
use hopsig_schemes::bgr::{Bgr, BgrAggregate, BgrParams, BgrSigningKey, Randomness, SEED_LEN};
use hopsig_schemes::primitives::rsa::RsaSecretKey;
use hopsig_schemes::SequentialAggregate;

/// Distinct RSA keys per modulus size in the pool.
pub const POOL: usize = 4;

fn pool(bits: u32) -> &'static Vec<String> {
    static P2048: OnceLock<Vec<String>> = OnceLock::new();
    static P3072: OnceLock<Vec<String>> = OnceLock::new();
    let cell = if bits == 2048 { &P2048 } else { &P3072 };
    cell.get_or_init(|| {
        (0..POOL)
            .map(|_| {
                RsaSecretKey::generate(bits)
                    .unwrap()
                    .to_pkcs8_pem()
                    .unwrap()
                    .to_string()
            })
            .collect()
    })
}

/// The i-th pooled RSA key of this size (cycling through the pool).
pub fn rsa_key(bits: u32, i: usize) -> RsaSecretKey {
    RsaSecretKey::from_pkcs8_pem(pool(bits)[i % POOL].as_bytes()).unwrap()
}

/// A BGR signing key on the i-th pooled RSA key.
pub fn bgr_key(params: BgrParams, i: usize) -> BgrSigningKey {
    let seed = match params.randomness() {
        Randomness::InputDependent => Some([i as u8; SEED_LEN]),
        Randomness::Random { .. } => None,
    };
    BgrSigningKey::from_parts(params, rsa_key(params.modulus_bits(), i), seed).unwrap()
}

/// Message of signer i: a BGPsec-like route announcement.
pub fn message(i: usize) -> Vec<u8> {
    format!("AS{} announces 192.0.2.0/24 to AS{}", 64500 + i, 64501 + i).into_bytes()
}

/// A two-signer aggregate on `(k1, m1), (k2, m2)` that passes every check of Ver except
/// `y_2 ∈ D` (BGR App. F). Signer 1's own X_1 has its top bit set (m1 is chosen so);
/// signer 2, whose secret key we hold, inverts `y_2 = G(h_2) ⊕ X_1` instead of
/// `G(h_2) ⊕ x_1`, and the aggregate carries b_1 = 0. Ver unwinds
/// `x_1 = G(h_2) ⊕ y_2 = X_1`, and `SPLIT⁻¹(0, X_1) = X_1 + 0 = X_1` is signer 1's
/// genuine signature: only the top bit of y_2 tells the aggregate from a valid one.
/// Returns m1 and the aggregate.
pub fn y_outside_d(
    params: BgrParams,
    k1: &BgrSigningKey,
    k2: &BgrSigningKey,
    m2: &[u8],
) -> (Vec<u8>, BgrAggregate) {
    let scheme = Bgr::new(params);
    let (m1, first) = (0u32..)
        .map(|j| {
            let m1 = format!("y outside D, signer 1, try {j}").into_bytes();
            let a = scheme.sign(k1, &m1, None).unwrap();
            (m1, a)
        })
        .find(|(_, a)| a.b(1) == Some(true))
        .unwrap();
    let mut big_x1 = first.x().to_vec();
    big_x1[0] |= 0x80;
    let (p, k, rsa2) = (params.hash_domain(), params.k(), k2.rsa());
    // Any r_2 will do (Ver does not recompute it); try until y_2 < N_2.
    for t in 0u8..=255 {
        let r2 = vec![t; params.r_len()];
        let mut h2 = *first.h();
        xor_into(
            &mut h2,
            &h(&p, rsa2.public().fingerprint(), k, m2, &r2, Some(&big_x1)),
        );
        let mut y2 = vec![0u8; k];
        g(&p, &h2, &mut y2);
        xor_into(&mut y2, &big_x1);
        assert!(!in_d(&y2));
        if !rsa2.public().in_domain(&y2) {
            continue;
        }
        let mut x2 = vec![0u8; k];
        rsa2.invert(&y2, &mut x2).unwrap();
        let b2 = split(&mut x2);
        let agg = BgrAggregate::from_parts(
            params,
            x2,
            h2,
            vec![first.r(1).unwrap().to_vec(), r2],
            vec![false, b2],
        )
        .unwrap();
        return (m1, agg);
    }
    panic!("no r_2 gave y_2 < N_2");
}

/// A Python interpreter for the interop tests that can import `module` (`None` to need
/// only the standard library): [`hopsig_testkit::python`], which skips, or fails under
/// CI, when there is none.
pub fn python(module: Option<&str>) -> Option<String> {
    hopsig_testkit::python(module.unwrap_or("sys"))
}

/// The repository root.
#[allow(unused_imports)]
pub use hopsig_testkit::root;

/// Runs `interop/python/SCRIPT check FILE` and requires "N passed, 0 failed".
pub fn run_reference(py: &str, script: &str, file: &std::path::Path) {
    let out = std::process::Command::new(py)
        .arg(root().join("interop/python").join(script))
        .arg("check")
        .arg(file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}: {text}{}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains(" passed, 0 failed"), "{text}");
}
