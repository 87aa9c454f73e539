//! Shared test helpers: a small pool of RSA keys reused across tests (key generation
//! dominates test time otherwise).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::OnceLock;

use hopsig_schemes::bgr::{BgrParams, BgrSigningKey, Randomness, SEED_LEN};
use hopsig_schemes::primitives::rsa::RsaSecretKey;

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
