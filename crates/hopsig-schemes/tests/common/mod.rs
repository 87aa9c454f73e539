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

/// The repository root.
pub fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A Python interpreter for the interop tests that can import `module` (`None` to need
/// only the standard library): `$HOPSIG_PYTHON`, else the `.venv-ci` that `.ci/run`
/// creates, else `python3`. Returns `None` (the caller skips) when there is none,
/// except under CI, where a missing interpreter or module fails the test.
pub fn python(module: Option<&str>) -> Option<String> {
    use std::process::Command;
    let venv = root().join(".venv-ci/bin/python");
    let py = std::env::var("HOPSIG_PYTHON").unwrap_or_else(|_| {
        if venv.exists() {
            venv.display().to_string()
        } else {
            "python3".into()
        }
    });
    let probe = format!("import {}", module.unwrap_or("sys"));
    match Command::new(&py).args(["-c", &probe]).output() {
        Ok(o) if o.status.success() => Some(py),
        _ if std::env::var_os("CI").is_some() => {
            panic!("CI requires {py} with `{probe}` for the interop tests (.ci/run installs it)")
        }
        _ => {
            eprintln!(
                "{py} cannot `{probe}`: skipping the independent-implementation check (CI runs it)"
            );
            None
        }
    }
}

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
