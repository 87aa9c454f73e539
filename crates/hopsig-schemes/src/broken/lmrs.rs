//! The LMRS sequential aggregate (BGR App. A, eq. 2), **insecure under lazy
//! verification**:
//! `x_i = π_i⁻¹(x_{i-1} ⊕ H(π_1..π_i, m_1..m_i))`, with `x_0 = 0`.
//!
//! `H` is a full-domain hash onto D (BGR's G applied to the SHA-256 of the key and
//! message lists) and RSA's differing domains are handled with SPLIT as in BGR App. F.
//! The signer must know all earlier keys and messages — one of the drawbacks BGR removes.

use hopsig_primitives::hash::sha256;
use hopsig_primitives::rsa::{RsaPublicKey, RsaSecretKey};

use crate::bgr::oracles::{g, in_d, split, unsplit, xor_into};
use crate::Error;

/// An LMRS aggregate: `x_n` and the SPLIT bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LmrsAggregate {
    /// `x_n`.
    pub x: Vec<u8>,
    /// `b_1..b_n`.
    pub b: Vec<bool>,
}

/// `H(π_1..π_i, m_1..m_i)` onto D, `k` bytes: public, so an adversary can compute it.
pub fn full_domain_hash(signers: &[(&RsaPublicKey, &[u8])], k: usize) -> Vec<u8> {
    let mut parts: Vec<Vec<u8>> = vec![b"HOPSIG-LMRS-DEMO".to_vec()];
    for (pk, m) in signers {
        parts.push(pk.fingerprint().to_vec());
        parts.push((m.len() as u64).to_be_bytes().to_vec());
        parts.push(m.to_vec());
    }
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    let mut out = vec![0u8; k];
    g(&[], &sha256(&refs), &mut out);
    out
}

/// Signer `i` without verifying `so_far`: `history` lists `(π_j, m_j)` for `j < i`, as
/// LMRS requires; the signer appends its own.
///
/// # Errors
/// RSA failures; an `x_{i-1}` of the wrong length.
pub fn sign(
    sk: &RsaSecretKey,
    history: &[(&RsaPublicKey, &[u8])],
    msg: &[u8],
    so_far: Option<&LmrsAggregate>,
) -> Result<LmrsAggregate, Error> {
    let k = sk.public().len();
    let mut all = history.to_vec();
    all.push((sk.public(), msg));
    let mut y = full_domain_hash(&all, k);
    if let Some(prev) = so_far {
        if prev.x.len() != k {
            return Err(Error::Mismatch(
                "x_{i-1} has a different length than this key's modulus".into(),
            ));
        }
        xor_into(&mut y, &prev.x);
    }
    let mut x = vec![0u8; k];
    sk.invert(&y, &mut x)?;
    let b = split(&mut x);
    let mut bits = so_far.map_or_else(Vec::new, |a| a.b.clone());
    bits.push(b);
    Ok(LmrsAggregate { x, b: bits })
}

/// LMRS verification: peel signers from the last, ending at `x_0 = 0`.
pub fn verify(signers: &[(&RsaPublicKey, &[u8])], agg: &LmrsAggregate) -> bool {
    if signers.is_empty() || signers.len() != agg.b.len() {
        return false;
    }
    let k = agg.x.len();
    let mut x = agg.x.clone();
    let mut big_x = vec![0u8; k];
    for i in (0..signers.len()).rev() {
        let pk = signers[i].0;
        unsplit(agg.b[i], &x, &mut big_x);
        if pk.len() != k || pk.apply(&big_x, &mut x).is_err() || !in_d(&x) {
            return false;
        }
        xor_into(&mut x, &full_domain_hash(&signers[..=i], k));
    }
    x.iter().all(|&v| v == 0)
}
