//! **Hazardous materials: these functions break security if misused.** Behind the cargo
//! feature `hazmat`, off by default; only the constant-time test (`crates/hopsig-ctime`)
//! and hopsig-schemes' own tests enable it.
//!
//! Each function here skips a random choice that a scheme's security rests on, or opens
//! a key's secret fields, so that a test can supply values it knows (known-answer
//! vectors) or mark them secret for valgrind (the constant-time test cannot mark a
//! nonce drawn inside the library). RustCrypto keeps such entry points in a `hazmat`
//! module; as in rustls, every name starts with `danger_`. A nonce or randomness used
//! twice, or a predictable one, reveals the signer's key or lets others forge. Nothing
//! in hopsig's signing paths calls them: use the ordinary functions.

use hopsig_koblitz::curve::{Affine, Curve};
use hopsig_koblitz::scalar::SecretScalar;
use hopsig_primitives::pairing::WIDE_SCALAR_BYTES;

use crate::bgr::{Bgr, BgrAggregate, BgrSigningKey};
use crate::concat::koblitz::KoblitzSecret;
use crate::ibas::{Pkg, UserKey};
use crate::pla::icnr::{Issued, Ttp};
use crate::Error;

/// ECDSA signing (SEC 1 §4.1.3) of `msg` with the nonce `k`: the DER signature, or
/// `Ok(None)` when r or s is 0 (the caller must then draw another k). A nonce used for
/// two messages, or a predictable one, reveals the key.
///
/// # Errors
/// Backend failures (DER encoding).
pub fn danger_ecdsa_sign_with_nonce<C: Curve>(
    key: &KoblitzSecret<C>,
    msg: &[u8],
    k: &SecretScalar<C>,
) -> Result<Option<Vec<u8>>, Error> {
    crate::concat::koblitz::sign_with_nonce(key, msg, k)
}

/// ICNR_ttp (003 eq. 6) with the TTP's per-certificate secret `k_t` given; `Ok(None)`
/// when request + k_T·G is ∞. A `k_t` used twice reveals the TTP's secret s_T.
///
/// # Errors
/// As [`Ttp::issue`].
pub fn danger_icnr_issue_with_nonce<C: Curve>(
    ttp: &Ttp<C>,
    id: &[u8],
    request: &Affine<C>,
    k_t: &SecretScalar<C>,
) -> Result<Option<Issued<C>>, Error> {
    ttp.issue_with_nonce(id, request, k_t)
}

/// BGR Sign (BGR §3 lines 2–7 with App. F) with `r_i = r` instead of a fresh random
/// string, to reproduce the random-r test vectors of `docs/spec/vectors/bgr.json`.
///
/// The basic scheme is secure under lazy verification because each signer draws `r_i`
/// fresh and uniformly at random (Sign line 1; Theorem 4.2 loses
/// `q_S (q_S + q_H) 2^-ℓ_r` for it). With `r_i` chosen by the caller — fixed, reused or
/// predictable — the map from the aggregate so far to what the signer inverts is public
/// and deterministic again, which is Neven's scheme and falls to the attack of BGR
/// App. A (`tests/appendix_a_attack.rs`).
///
/// # Errors
/// [`Error::Key`] unless the scheme is the random-r variant and `r` has ℓ_r/8 bytes;
/// otherwise as [`crate::SequentialAggregate::sign`].
pub fn danger_bgr_sign_with_r(
    scheme: &Bgr,
    key: &BgrSigningKey,
    msg: &[u8],
    r: &[u8],
    so_far: Option<&BgrAggregate>,
) -> Result<BgrAggregate, Error> {
    scheme.sign_with(key, msg, so_far, Some(r))
}

/// IBAS Setup (004 §2.3) as [`Pkg::setup`] does it, with the master secret's random
/// bytes taken from `fill` instead of OpenSSL's private DRBG (each call fills 48 bytes
/// that are reduced modulo r; a zero result asks again). Predictable bytes give away
/// the master secret, and with it every user's key.
///
/// # Errors
/// As [`Pkg::setup`].
pub fn danger_pkg_setup_with_random_bytes(
    fill: impl FnMut(&mut [u8; WIDE_SCALAR_BYTES]),
) -> Result<Pkg, Error> {
    Pkg::setup_from(fill)
}

/// The secret fields of `key` (d_0, d_1 and their 96-byte encoding), as an opaque value
/// whose only use is to be marked for valgrind
/// ([`hopsig_primitives::valgrind::classify`]) by the constant-time test. Writing to
/// it through any other means corrupts the key.
pub fn danger_user_key_secret_mut(key: &mut UserKey) -> &mut impl Sized {
    key.secret_mut()
}
