//! Brogle–Goldberg–Reyzin sequential aggregate signatures with lazy verification,
//! instantiated with RSA (`../shared/papers/002_fe9b172b3cf64b03.txt`).
//!
//! * basic scheme, truly random `r_i` (§3, Figure 4) — [`Randomness::Random`];
//! * input-dependent `r_i = PRF_seed(m_i, h_{i-1}, x_{i-1})` (§5.1) with HMAC-SHA-256
//!   and ℓ_r = 128, the paper's implementation (§6) — [`Randomness::InputDependent`];
//! * RSA's per-signer domains handled with SPLIT, one bit `b_i` per signer (App. F).
//!
//! A signer needs nothing but its own key, its message and `(x_{i-1}, h_{i-1})` from the
//! aggregate so far: no other signer's key, and no verification first. Byte formats,
//! hash inputs and test vectors: `docs/spec/bgr.md`.

mod aggregate;
mod keys;
pub mod oracles;
mod params;

pub use aggregate::BgrAggregate;
pub use keys::{BgrSigningKey, BgrVerifyingKey, SEED_LABEL, SEED_LEN};
pub use params::{BgrParams, Randomness, ASSUMED_LOG2_SIGN_QUERIES, PRF_R_BITS, RANDOM_R_BITS};

use hopsig_primitives::armor::KeyFile;

use crate::error::OpensslResult;
use crate::wire::{decode_aggregate, PerSigner, Signers};
use crate::{Aggregate, Error, SequentialAggregate};
use hopsig_primitives::rsa::{RsaPublicKey, RsaSecretKey};
use hopsig_primitives::valgrind::declassify;
use oracles::{g, h, in_d, prf, split, unsplit, xor_into};

/// ℓ_h / 8: H is SHA-256.
pub const H_LEN: usize = 32;

/// The BGR scheme with one parameter set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bgr {
    params: BgrParams,
}

impl Bgr {
    /// The scheme with these parameters.
    pub fn new(params: BgrParams) -> Self {
        Bgr { params }
    }

    /// Its parameters.
    pub fn params(&self) -> BgrParams {
        self.params
    }

    fn check_key_params(&self, key_params: BgrParams) -> Result<(), Error> {
        if key_params != self.params {
            return Err(Error::KeyForOtherScheme {
                expected: self.params.id().into(),
                found: key_params.id().into(),
            });
        }
        Ok(())
    }

    fn check_aggregate_params(&self, agg_params: BgrParams) -> Result<(), Error> {
        if agg_params != self.params {
            return Err(Error::AggregateForOtherScheme {
                expected: self.params.id().into(),
                found: agg_params.id().into(),
            });
        }
        Ok(())
    }

    /// Sign (§3 lines 1–7): `r_i` from the PRF or the CSPRNG as the parameter set says,
    /// or `given_r` (random-r variant only, from `crate::hazmat::danger_bgr_sign_with_r`).
    pub(crate) fn sign_with(
        &self,
        key: &BgrSigningKey,
        msg: &[u8],
        so_far: Option<&BgrAggregate>,
        given_r: Option<&[u8]>,
    ) -> Result<BgrAggregate, Error> {
        self.check_key_params(key.params)?;
        if let Some(prev) = so_far {
            self.check_aggregate_params(prev.params)?;
            // A full aggregate is refused before the RSA operation, not after.
            prev.b.signers().plus(Signers::ONE)?;
        }
        let k = self.params.k();
        let p = self.params.hash_domain();
        let prev = so_far.map(|a| (&a.h, a.x.as_slice()));
        // Line 1: r_i.
        let mut r = vec![0u8; self.params.r_len()];
        match (given_r, &key.seed, self.params.randomness()) {
            (Some(given), None, Randomness::Random { .. }) if given.len() == r.len() => {
                r.copy_from_slice(given);
            }
            (Some(_), _, _) => {
                return Err(Error::Key(
                    "a given r_i needs the random-r variant and exactly ℓ_r/8 bytes".into(),
                ))
            }
            (None, Some(seed), Randomness::InputDependent) => {
                prf(&p, seed.as_ref(), k, msg, prev, &mut r);
                // r is derived from the secret seed but goes into the aggregate.
                declassify(r.as_mut_slice());
            }
            (None, None, Randomness::Random { .. }) => {
                openssl::rand::rand_bytes(&mut r).backend()?
            }
            _ => {
                return Err(Error::Key(
                    "key does not match its randomness variant".into(),
                ))
            }
        }
        // Lines 2-6.
        let (x, h_i, b_i) = sign_hop(&p, &key.rsa, msg, &r, prev)?;
        // Line 7: x_i, h_i go on; r_i and b_i join those of the earlier signers.
        let (r, b) = match so_far {
            None => (r, PerSigner::first(b_i)),
            Some(a) => {
                let mut b = a.b.clone();
                b.push(b_i)?;
                ([a.r.as_slice(), &r].concat(), b)
            }
        };
        Ok(BgrAggregate {
            params: self.params,
            x,
            h: h_i,
            r,
            b,
        })
    }
}

impl SequentialAggregate for Bgr {
    type SigningKey = BgrSigningKey;
    type VerifyingKey = BgrVerifyingKey;
    type Aggregate = BgrAggregate;

    fn id(&self) -> &'static str {
        self.params.id()
    }

    fn generate(&self) -> Result<BgrSigningKey, Error> {
        BgrSigningKey::generate(self.params)
    }

    /// Sign, lines 1–7 of the i-th signer's algorithm (§3), with line 1 replaced by the
    /// PRF for the input-dependent variant (§5.1) and line 6 followed by SPLIT (App. F).
    fn sign(
        &self,
        key: &BgrSigningKey,
        msg: &[u8],
        so_far: Option<&BgrAggregate>,
    ) -> Result<BgrAggregate, Error> {
        self.sign_with(key, msg, so_far, None)
    }

    /// Ver, lines 1–10 (§3), with line 2 replaced by `X_i ← SPLIT⁻¹(b_i, x_i);
    /// y_i ← π_i(X_i)` (App. F). Rejects `X_i ≥ N_i` and `y_i ∉ D`.
    fn verify(
        &self,
        signers: &[(&BgrVerifyingKey, &[u8])],
        agg: &BgrAggregate,
    ) -> Result<(), Error> {
        for (pk, _) in signers {
            self.check_key_params(pk.params)?;
        }
        self.check_aggregate_params(agg.params)?;
        let n = agg.signers();
        if n == 0 || n != signers.len() {
            return Err(Error::InvalidSignature);
        }
        let r_len = self.params.r_len();
        let chain = signers
            .iter()
            .zip(agg.r.chunks_exact(r_len).zip(agg.b.as_slice()))
            .map(|((pk, msg), (r, b))| (&pk.rsa, *msg, r, *b));
        if verify_chain(&self.params.hash_domain(), chain, &agg.x, &agg.h) {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }

    fn aggregate_from_bytes(&self, bytes: &[u8]) -> Result<BgrAggregate, Error> {
        let (code, param) = self.params.code();
        decode_aggregate(bytes, code, param)
    }

    fn signing_key_from_file(&self, file: &KeyFile) -> Result<BgrSigningKey, Error> {
        BgrSigningKey::from_file(self.params, file)
    }

    fn verifying_key_from_file(&self, file: &KeyFile) -> Result<BgrVerifyingKey, Error> {
        BgrVerifyingKey::from_file(self.params, file)
    }
}

/// Lines 2–6 of Sign (§3) with SPLIT (App. F), for a given `r_i`: returns
/// `(x_i, h_i, b_i)`. `p` is the parameter set's `code ‖ param` that every hash is
/// bound to; `prev` is `(h_{i-1}, x_{i-1})`, `None` for the first signer. Shared with
/// the Neven demonstration scheme, which is this hop with an empty `r`.
pub(crate) fn sign_hop(
    p: &[u8],
    sk: &RsaSecretKey,
    msg: &[u8],
    r: &[u8],
    prev: Option<(&[u8; H_LEN], &[u8])>,
) -> Result<(Vec<u8>, [u8; H_LEN], bool), Error> {
    let k = sk.public().len();
    if prev.is_some_and(|(_, x)| x.len() != k) {
        return Err(Error::Mismatch(
            "x_{i-1} has a different length than this key's modulus".into(),
        ));
    }
    // Line 2: η_i = H(π_i, m_i, r_i, x_{i-1}).
    let eta = h(
        p,
        sk.public().fingerprint(),
        k,
        msg,
        r,
        prev.map(|(_, x)| x),
    );
    // Line 3: h_i = h_{i-1} ⊕ η_i (ε ⊕ η = η).
    let mut h_i = prev.map_or([0u8; H_LEN], |(h, _)| *h);
    xor_into(&mut h_i, &eta);
    // Lines 4-5: y_i = G(h_i) ⊕ x_{i-1}; both lie in D, so y_i ∈ D ⊂ Z_N.
    let mut y = vec![0u8; k];
    g(p, &h_i, &mut y);
    if let Some((_, x_prev)) = prev {
        xor_into(&mut y, x_prev);
    }
    // Line 6: X_i = π_i⁻¹(y_i); (b_i, x_i) = SPLIT(X_i).
    let mut x = vec![0u8; k];
    sk.invert(&y, &mut x)?;
    let b_i = split(&mut x);
    Ok((x, h_i, b_i))
}

/// Ver (§3 lines 1–10) with SPLIT⁻¹ (App. F) over `(π_i, m_i, r_i, b_i)` for
/// `i = 1..n` in order, and the final `(x_n, h_n)`, with every hash bound to `p`.
/// Rejects `X_i ≥ N_i` and `y_i ∉ D`.
pub(crate) fn verify_chain<'a, I>(p: &[u8], signers: I, x_n: &[u8], h_n: &[u8; H_LEN]) -> bool
where
    I: DoubleEndedIterator<Item = (&'a RsaPublicKey, &'a [u8], &'a [u8], bool)> + ExactSizeIterator,
{
    let n = signers.len();
    if n == 0 {
        return false;
    }
    let k = x_n.len();
    let mut x = x_n.to_vec();
    let mut h_i = *h_n;
    let mut big_x = vec![0u8; k];
    let mut y = vec![0u8; k];
    for (i, (pk, msg, r, b)) in signers.enumerate().rev() {
        if pk.len() != k {
            return false;
        }
        // Line 2 (App. F): X_i = SPLIT⁻¹(b_i, x_i); y_i = π_i(X_i), X_i < N_i, y_i ∈ D.
        unsplit(b, &x, &mut big_x);
        if pk.apply(&big_x, &mut y).is_err() || !in_d(&y) {
            return false;
        }
        if i == 0 {
            // Line 7: h_1 = H(π_1, m_1, r_1, ε) and π_1(x_1) = G(h_1).
            g(p, &h_i, &mut x);
            return h(p, pk.fingerprint(), k, msg, r, None) == h_i && y == x;
        }
        // Lines 3-6: x_{i-1} = G(h_i) ⊕ y_i; h_{i-1} = h_i ⊕ H(π_i, m_i, r_i, x_{i-1}).
        g(p, &h_i, &mut x);
        xor_into(&mut x, &y);
        let eta = h(p, pk.fingerprint(), k, msg, r, Some(&x));
        xor_into(&mut h_i, &eta);
    }
    false
}
