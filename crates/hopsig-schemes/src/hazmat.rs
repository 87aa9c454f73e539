//! Signing steps with a caller-chosen secret nonce, for tests: the constant-time test
//! (`crates/hopsig-ctime`) marks the nonce undefined under valgrind, which it cannot do
//! to a nonce drawn inside the library. RustCrypto's `hazmat` convention: these
//! functions skip the random choice that the schemes' security rests on, and a nonce
//! used twice (or a predictable one) reveals the signer's key. Nothing in hopsig calls
//! them; use the ordinary signing functions.

use hopsig_koblitz::curve::{Affine, Curve};
use hopsig_koblitz::scalar::SecretScalar;
use hopsig_primitives::pairing::{Scalar, G1};

use crate::concat::koblitz::KoblitzSecret;
use crate::ibas::{IbasAggregate, W_LEN};
use crate::pla::icnr::{Issued, Ttp};
use crate::Error;

/// ECDSA signing (SEC 1 §4.1.3) of `msg` with the nonce `k`: the DER signature, or
/// `Ok(None)` when r or s is 0 (the caller must then draw another k).
///
/// # Errors
/// Backend failures (DER encoding).
pub fn ecdsa_sign_with_nonce<C: Curve>(
    key: &KoblitzSecret<C>,
    msg: &[u8],
    k: &SecretScalar<C>,
) -> Result<Option<Vec<u8>>, Error> {
    crate::concat::koblitz::sign_with_nonce(key, msg, k)
}

/// ICNR_ttp (003 eq. 6) with the TTP's per-certificate secret `k_t` given; `Ok(None)`
/// when request + k_T·G is ∞.
///
/// # Errors
/// As [`Ttp::issue`].
pub fn icnr_issue_with_nonce<C: Curve>(
    ttp: &Ttp<C>,
    id: &[u8],
    request: &Affine<C>,
    k_t: &SecretScalar<C>,
) -> Result<Option<Issued<C>>, Error> {
    ttp.issue_with_nonce(id, request, k_t)
}

/// IBAS Individual Signing (004 §2.3) under `w` with the user key (d_0, d_1) of
/// `identity` and the randomness `r` given, as a one-signer aggregate. No journal is
/// consulted: signing twice under one w lets anyone forge.
///
/// # Errors
/// [`Error::Mismatch`] if S' or T' is the point at infinity.
pub fn ibas_sign_with_randomness(
    d0: &G1,
    d1: &G1,
    identity: &str,
    msg: &[u8],
    w: &[u8; W_LEN],
    r: &Scalar,
) -> Result<IbasAggregate, Error> {
    let (s, t) = crate::ibas::individual_signature(d0, d1, identity, msg, w, r);
    IbasAggregate::new(*w, &s, &t, crate::wire::Signers::ONE)
}
