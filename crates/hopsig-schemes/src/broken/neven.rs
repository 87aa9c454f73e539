//! Neven's sequential aggregate (BGR Fig. 3, simplified), **insecure under lazy
//! verification** (BGR App. A).
//!
//! It is BGR without the per-signer string r: `η_i = H(π_i, m_i, x_{i-1})`,
//! `h_i = h_{i-1} ⊕ η_i`, `x_i = π_i⁻¹(G(h_i) ⊕ x_{i-1})`. The map from
//! `(x_{i-1}, h_{i-1})` to what gets inverted is deterministic and public, which is what
//! the attack exploits. Implemented as BGR's hop with an empty r, so the two differ in
//! exactly that one line.

use hopsig_primitives::rsa::{RsaPublicKey, RsaSecretKey};

use crate::bgr::oracles::h;
use crate::bgr::{sign_hop, verify_chain, H_LEN};
use crate::Error;

/// A Neven aggregate: `x_n`, `h_n` and the SPLIT bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NevenAggregate {
    /// `x_n`.
    pub x: Vec<u8>,
    /// `h_n`.
    pub h: [u8; H_LEN],
    /// `b_1..b_n`.
    pub b: Vec<bool>,
}

/// `H(π, m, x)`: public, so an adversary can compute it too.
pub fn eta(pk: &RsaPublicKey, msg: &[u8], x_prev: Option<&[u8]>) -> [u8; H_LEN] {
    h(&[], pk.fingerprint(), pk.len(), msg, &[], x_prev)
}

/// The signer of Neven's scheme *without* verifying `so_far` first (the lazy signer).
///
/// # Errors
/// RSA failures; an `x_{i-1}` of the wrong length.
pub fn sign(
    sk: &RsaSecretKey,
    msg: &[u8],
    so_far: Option<&NevenAggregate>,
) -> Result<NevenAggregate, Error> {
    let (x, h, b) = sign_hop(&[], sk, msg, &[], so_far.map(|a| (&a.h, a.x.as_slice())))?;
    let mut bits = so_far.map_or_else(Vec::new, |a| a.b.clone());
    bits.push(b);
    Ok(NevenAggregate { x, h, b: bits })
}

/// Neven's verification.
pub fn verify(signers: &[(&RsaPublicKey, &[u8])], agg: &NevenAggregate) -> bool {
    if signers.len() != agg.b.len() {
        return false;
    }
    let chain = signers
        .iter()
        .zip(&agg.b)
        .map(|((pk, m), b)| (*pk, *m, &[][..], *b));
    verify_chain(&[], chain, &agg.x, &agg.h)
}
