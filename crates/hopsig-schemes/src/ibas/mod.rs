//! Gentry–Ramzan identity-based aggregate signatures (IBAS), as the ICN'15 paper
//! (../shared/papers/004, §2.3) describes and uses them for moderator-controlled NDN
//! sharing, on BLS12-381 with an asymmetric pairing `e: G1 × G2 → GT`.
//!
//! 004 §2.3 writes the scheme for a symmetric pairing. hopsig places each element so
//! that every pairing in equation (1) has one argument in each group:
//!
//! | 004 §2.3 | hopsig | group |
//! |---|---|---|
//! | generator P, `Q = sP` | P = the standard G2 generator, `Q = sP` | G2 |
//! | `P_{i,j} = H1(ID_i, j)`, `P_w = H2(w)` | RFC 9380 hash to G1 ([`DST_H1`], [`DST_H2`]) | G1 |
//! | `c_i = H3(m_i, ID_i, w)` | RFC 9380 `hash_to_field` into Z/rZ ([`DST_H3`]) | scalars |
//! | `S'_i = r_i P_w + s P_{i,0} + c_i s P_{i,1}` | same | G1 |
//! | `T'_i = r_i P` | same | G2 |
//! | (1) `e(S_n, P) = e(T_n, P_w) e(Q, Σ P_{i,0} + Σ c_i P_{i,1})` | `e(S_n, −P) · e(P_w, T_n) · e(X, Q) = 1` | GT |
//!
//! Verification is equation (1) as one multi-Miller loop over the three pairs and one
//! final exponentiation ([`verify`]).
//!
//! **The state string w.** A first signer draws w as 16 bytes (128 bits) from the
//! OS CSPRNG, so two first signatures share a w with probability about `q²/2^129`
//! after q signatures (2^-65 after 2^32). Because a signer who signs two different
//! messages under one w lets anyone forge its signatures under that w ([`journal`]
//! explains the algebra), every signing call first claims (w, message) in the signer's
//! [`Journal`], which refuses a w already used for another message: the rule 004
//! states for the first signer, enforced for every signer, since the moderator signs
//! under a w chosen by someone else.
//!
//! **The signer's r** is not drawn at random but derived from the key, w and the
//! message ([`signer_r`]), as RFC 6979 and EdDSA derive their nonces. Signing the same
//! message under the same w twice therefore gives the same signature, so the journal
//! can allow it: a countersignature whose output could not be written can be retried.
//!
//! Keys come from a PKG ([`Pkg::setup`], [`Pkg::extract`]) and verifiers name signers
//! by identity ([`Identity`]), so IBAS has its own functions rather than the
//! [`crate::SequentialAggregate`] trait, whose key generation has no PKG.

mod aggregate;
pub mod journal;
mod keys;

use hopsig_primitives::pairing::{pairing_product_is_one, Scalar, G1, G1_BYTES, G2};
use zeroize::Zeroizing;

pub use aggregate::IbasAggregate;
pub use journal::{Journal, MAX_JOURNAL_BYTES};
pub use keys::check_identity;
pub use keys::{Identity, Pkg, PublicParams, UserKey};

use crate::error::OpensslResult;
use crate::wire::Signers;
use crate::Error;

/// Stable id (key files, `hopsig schemes`).
pub const ID: &str = "ibas-bls12381";
/// Length of the state string w in bytes.
pub const W_LEN: usize = 16;
/// Longest identity accepted, in bytes of UTF-8.
pub const MAX_IDENTITY_LEN: usize = 1024;
/// Domain-separation tag of H1 (identity → G1).
pub const DST_H1: &[u8] = b"HOPSIG-IBAS-V01-CS01-with-BLS12381G1_XMD:SHA-256_SSWU_RO_H1_";
/// Domain-separation tag of H2 (state string → G1).
pub const DST_H2: &[u8] = b"HOPSIG-IBAS-V01-CS01-with-BLS12381G1_XMD:SHA-256_SSWU_RO_H2_";
/// Domain-separation tag of H3 (message, identity, state string → scalar).
pub const DST_H3: &[u8] = b"HOPSIG-IBAS-V01-CS01-with-BLS12381-Fr_XMD:SHA-256_H3_";
/// Domain-separation tag of the signer's r (secret key, state string, message →
/// scalar), [`signer_r`].
pub const DST_R: &[u8] = b"HOPSIG-IBAS-V01-CS01-with-BLS12381-Fr_XMD:SHA-256_R_";

/// `H1(ID, j)`: hash to G1 of `I2OSP(j, 1) || ID`.
pub fn h1(identity: &str, j: u8) -> G1 {
    let mut msg = Vec::with_capacity(1 + identity.len());
    msg.push(j);
    msg.extend_from_slice(identity.as_bytes());
    G1::hash(&msg, DST_H1)
}

/// `H2(w)`: hash to G1 of w.
pub fn h2(w: &[u8; W_LEN]) -> G1 {
    G1::hash(w, DST_H2)
}

/// `H3(m, ID, w)`: hash to Z/rZ of `w || I2OSP(len(ID), 2) || ID || m` (w has fixed
/// length and ID a length prefix, so the encoding is injective).
pub fn h3(msg: &[u8], identity: &str, w: &[u8; W_LEN]) -> Scalar {
    let id = identity.as_bytes();
    let mut input = Vec::with_capacity(W_LEN + 2 + id.len() + msg.len());
    input.extend_from_slice(w);
    // Identities are at most MAX_IDENTITY_LEN bytes (checked where they are made).
    input.extend_from_slice(&u16::try_from(id.len()).unwrap_or(u16::MAX).to_be_bytes());
    input.extend_from_slice(id);
    input.extend_from_slice(msg);
    Scalar::hash(&input, DST_H3)
}

/// The signer's r for `msg` under `w`: RFC 9380 §5.2 `hash_to_field` into Z/rZ (as
/// [`h3`]) of `d0 ‖ d1 ‖ w ‖ m` under [`DST_R`], with `d0`, `d1` the user key's two
/// compressed G1 points (48 bytes each, the bytes of the key file's
/// `HOPSIG IBAS USER KEY` block, kept with the key so that no secret point is encoded
/// per signature). A keyed hash of the message, as RFC 6979 §3.2 and RFC 8032 §5.1.6
/// (EdDSA) derive their nonces: unpredictable without the key, and the same for the
/// same (key, w, message), so a repeated signature is identical. Constant time in the
/// key and r: SHA-256, the reduction and the zero test (whose verdict alone is
/// declassified) do not branch on them.
///
/// # Errors
/// [`Error::Key`] in the case, of probability 2^-254, that r is zero (`T' = rP` would
/// be the identity).
pub fn signer_r(key: &UserKey, w: &[u8; W_LEN], msg: &[u8]) -> Result<Scalar, Error> {
    let mut input = Zeroizing::new(Vec::with_capacity(2 * G1_BYTES + W_LEN + msg.len()));
    input.extend_from_slice(key.secret.enc.as_ref());
    input.extend_from_slice(w);
    input.extend_from_slice(msg);
    let r = Scalar::hash(&input, DST_R);
    if r.is_zero() {
        return Err(Error::Key(
            "the derived IBAS signing value r is zero; this key cannot sign this message under this w"
                .into(),
        ));
    }
    Ok(r)
}

/// Individual Signing (004 §2.3) of `msg` by `key` under `w`, after claiming (w, msg)
/// in `journal`: `S' = r P_w + d_0 + c d_1` with `c = H3(m, ID, w)`, `T' = r P`, with
/// r = [`signer_r`]; blst's constant-time multiplications and additions.
fn share(
    key: &UserKey,
    msg: &[u8],
    w: &[u8; W_LEN],
    journal: &mut Journal,
) -> Result<(G1, G2), Error> {
    journal.claim(key, w, msg)?;
    let r = signer_r(key, w, msg)?;
    let c = h3(msg, key.identity(), w);
    let s = h2(w)
        .mul(&r)
        .add(&key.secret.d0)
        .add(&key.secret.d1.mul(&c));
    Ok((s, G2::generator().mul(&r)))
}

/// A fresh state string: 16 bytes from the OS CSPRNG via OpenSSL.
fn fresh_w() -> Result<[u8; W_LEN], Error> {
    let mut w = [0u8; W_LEN];
    openssl::rand::rand_bytes(&mut w).backend()?;
    Ok(w)
}

/// Signs `msg` with `key` and adds the signature to `so_far` (sequential
/// sign-and-aggregate, as 004's moderator does): the first signer (`so_far = None`)
/// draws a fresh w; a later signer signs under the incoming aggregate's w. `so_far`
/// is not verified here (a moderator verifies first if it wants to, as in Table 5).
///
/// # Errors
/// [`Error::State`] if `journal` shows the key already signed another message under
/// that w ([`crate::StateError::ReusedW`]) or cannot record the claim;
/// [`Error::TooManySigners`] if `so_far` already holds the maximum number of signers
/// (checked before w is claimed).
pub fn sign(
    key: &UserKey,
    msg: &[u8],
    so_far: Option<&IbasAggregate>,
    journal: &mut Journal,
) -> Result<IbasAggregate, Error> {
    match so_far {
        None => {
            let w = fresh_w()?;
            let (s, t) = share(key, msg, &w, journal)?;
            IbasAggregate::new(w, &s, &t, Signers::ONE)
        }
        Some(prev) => {
            let n = prev.n.plus(Signers::ONE)?;
            let (s, t) = share(key, msg, &prev.w, journal)?;
            IbasAggregate::new(
                prev.w,
                &G1::from(prev.s).add(&s),
                &G2::from(prev.t).add(&t),
                n,
            )
        }
    }
}

/// Individual signature of `msg` under a given `w` (for instance one a coordinator
/// handed out), to be combined with [`aggregate`].
///
/// # Errors
/// [`Error::State`] if `journal` shows the key already signed another message under
/// `w`, or cannot record the claim.
pub fn sign_with_w(
    key: &UserKey,
    msg: &[u8],
    w: &[u8; W_LEN],
    journal: &mut Journal,
) -> Result<IbasAggregate, Error> {
    let (s, t) = share(key, msg, w, journal)?;
    IbasAggregate::new(*w, &s, &t, Signers::ONE)
}

/// Aggregation (004 §2.3): `(w, Σ S'_i, Σ T'_i)` over signatures that share w. The
/// signer lists are concatenated in the order given.
///
/// # Errors
/// [`Error::Mismatch`] if the parts use different w; [`Error::NoSigners`] if `parts`
/// is empty or their sum is the point at infinity; [`Error::TooManySigners`] if they
/// hold too many signers.
pub fn aggregate(parts: &[&IbasAggregate]) -> Result<IbasAggregate, Error> {
    let (first, rest) = parts.split_first().ok_or(Error::NoSigners)?;
    let (mut s, mut t, mut n) = (G1::from(first.s), G2::from(first.t), first.n);
    for p in rest {
        if p.w != first.w {
            return Err(Error::Mismatch(
                "IBAS signatures under different state strings w cannot be aggregated".into(),
            ));
        }
        n = n.plus(p.n)?;
        s = s.add(&G1::from(p.s));
        t = t.add(&G2::from(p.t));
    }
    IbasAggregate::new(first.w, &s, &t, n)
}

/// Verification (004 §2.3 equation (1)) of `agg` against the identities and messages
/// of its signers under the PKG parameters `params`:
/// `e(S_n, −P) · e(P_w, T_n) · e(Σ P_{i,0} + Σ c_i P_{i,1}, Q) = 1`, computed as one
/// multi-Miller loop and one final exponentiation.
///
/// An identity may appear only once per aggregate (twice would mean it signed twice
/// under one w, which honest signers never do).
///
/// # Errors
/// [`Error::InvalidSignature`] if it does not verify, the signer count differs, or
/// an identity repeats.
pub fn verify(
    params: &PublicParams,
    signers: &[(&Identity, &[u8])],
    agg: &IbasAggregate,
) -> Result<(), Error> {
    if signers.is_empty() || signers.len() != agg.n.get() {
        return Err(Error::InvalidSignature);
    }
    let mut names: Vec<&str> = signers.iter().map(|(id, _)| id.name()).collect();
    names.sort_unstable();
    if names.windows(2).any(|w| w[0] == w[1]) {
        return Err(Error::InvalidSignature);
    }
    let mut x = G1::identity();
    for (id, msg) in signers {
        let c = h3(msg, id.name(), &agg.w);
        x = x.add(&id.p0).add(&id.mul_p1_vartime(&c));
    }
    if x.is_identity() {
        return Err(Error::InvalidSignature);
    }
    let ok = pairing_product_is_one(&[
        (&agg.s, &params.neg_p),
        (&h2(&agg.w).to_affine(), &agg.t),
        (&x.to_affine(), params.q()),
    ]);
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidSignature)
    }
}
