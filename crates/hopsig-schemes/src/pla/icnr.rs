//! Implicit certificates, Nyberg–Rueppel style, without proof of knowledge (003 §II-C,
//! eq. 6–7) and their use with ECDSA, including key extraction fused with signature
//! verification into one three-term multi-scalar multiplication (§II-D, eq. 9).
//! Function names follow the paper's OpenSSL extension (ICNR_blind, ICNR_ttp,
//! ICNR_finalkey, ICNR_extract, ICNR_do_verify). `docs/spec/pla.md` fixes the encodings.
//!
//! **Integers from points.** r̄_A is the x-coordinate of k_A·G + k_T·G read as an m-bit
//! big-endian integer (its SEC 1 field bytes); b_A is the SEC 1 compression bit
//! (lowest bit of y/x). r_A = (r̄_A + H(ID_A)) mod 2^m, with H(ID) = the first m bits
//! of MGF1-SHA-256(`"HOPSIG-ICNR-V1" ‖ ID`), so that r̄_A = (r_A − H(ID_A)) mod 2^m is
//! recovered exactly; r_A enters the scalar equations reduced mod n.
//!
//! **Trust level.** Alice's private key s_A = k_A + s̄_A needs k_A, which the TTP never
//! sees: the TTP cannot compute s_A. It can still issue a second certificate for
//! ID_A with a key of its own. Alice can prove that by showing two different TTP
//! certificates on her identity. This is Girault's Trust Level 3, which the paper
//! states the scheme reaches.

use hopsig_koblitz::curve::{Affine, Curve};
use hopsig_koblitz::scalar::Scalar;
use hopsig_koblitz::tau::{multi_mul_tau_vartime, TauTable, POINT_WIDTH};
use hopsig_koblitz::Fe;
use hopsig_primitives::hash::mgf1_sha256;
use openssl::bn::{BigNum, BigNumContext};

use crate::concat::koblitz::{
    digest, order, signature_scalars, times_g, x_is_r_mod_n, KoblitzSecret,
};
use crate::Error;

/// Domain-separation tag of H(ID).
pub const TAG_ID: &[u8] = b"HOPSIG-ICNR-V1";

/// The public part of an implicit certificate: (r_A, b_A), m + 1 bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImplicitCert {
    /// r_A as SEC 1 field bytes (an m-bit integer, big-endian).
    pub r: Vec<u8>,
    /// The compression bit b_A.
    pub b: bool,
}

/// What the TTP returns to Alice: the certificate and her private share s̄_A
/// (sent over the TTP's confidential channel).
#[derive(Debug)]
pub struct Issued {
    /// (r_A, b_A).
    pub cert: ImplicitCert,
    /// s̄_A = k_T − r_A·s_T mod n.
    s_bar: BigNum,
}

impl Issued {
    /// Rebuilds an answer from its parts.
    pub fn from_parts(cert: ImplicitCert, s_bar: BigNum) -> Self {
        Issued { cert, s_bar }
    }

    pub(crate) fn share(&self) -> &BigNum {
        &self.s_bar
    }
}

/// The TTP: domain private key s_T, public W_T = s_T·G.
pub struct Ttp<C: Curve> {
    s: BigNum,
    public: Affine<C>,
}

impl<C: Curve> std::fmt::Debug for Ttp<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Ttp({:?})", self.public)
    }
}

/// Alice's blinded request: k_A stays with her, k_A·G goes to the TTP (ICNR_blind).
pub struct Blind<C: Curve> {
    k: BigNum,
    request: Affine<C>,
}

impl<C: Curve> std::fmt::Debug for Blind<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Blind(request {:?})", self.request)
    }
}

fn random_scalar<C: Curve>() -> Result<BigNum, Error> {
    let n = order::<C>()?;
    let mut k = BigNum::new_secure()?;
    loop {
        n.rand_range(&mut k)?;
        if k.num_bits() > 0 {
            k.set_const_time();
            return Ok(k);
        }
    }
}

/// H(ID): the first m bits of MGF1-SHA-256(tag ‖ ID), as SEC 1 field bytes.
fn h_id<C: Curve>(id: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; Fe::<C::F>::BYTES];
    mgf1_sha256(&[TAG_ID, id], &mut out);
    out[0] &= top_byte_mask::<C>();
    out
}

/// The bits of the first SEC 1 field byte that lie below 2^m.
fn top_byte_mask<C: Curve>() -> u8 {
    let spare = 8 * Fe::<C::F>::BYTES - <C::F as hopsig_koblitz::Field>::M;
    0xff >> spare
}

/// (a ± b) mod 2^m on big-endian SEC 1 field bytes (both of that length).
fn mod_2m<C: Curve>(a: &[u8], b: &[u8], add: bool) -> Vec<u8> {
    let mut out = vec![0u8; a.len()];
    let mut carry = 0i16;
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b).rev() {
        let t = i16::from(x) + carry + if add { i16::from(y) } else { -i16::from(y) };
        *o = t.rem_euclid(256) as u8;
        carry = t.div_euclid(256);
    }
    if let Some(first) = out.first_mut() {
        *first &= top_byte_mask::<C>();
    }
    out
}

impl<C: Curve> Ttp<C> {
    /// A TTP from its key, checking W_T = s_T·G.
    ///
    /// # Errors
    /// [`Error::Key`] if they do not match.
    pub fn from_parts(s: BigNum, public: &Affine<C>) -> Result<Self, Error> {
        if times_g::<C>(&s)? != *public {
            return Err(Error::Key(
                "TTP public key does not match its secret".into(),
            ));
        }
        Ok(Ttp { s, public: *public })
    }

    pub(crate) fn secret(&self) -> &BigNum {
        &self.s
    }

    /// Setup: s_T uniform in [1, n − 1], W_T = s_T·G.
    ///
    /// # Errors
    /// Backend failures.
    pub fn setup() -> Result<Self, Error> {
        let s = random_scalar::<C>()?;
        let public = times_g::<C>(&s)?;
        Ok(Ttp { s, public })
    }

    /// W_T.
    pub fn public(&self) -> &Affine<C> {
        &self.public
    }

    /// ICNR_ttp (eq. 6): certifies `id` for the request k_A·G. The request must be a
    /// point of the subgroup other than ∞.
    ///
    /// # Errors
    /// [`Error::Key`] for an invalid request; backend failures.
    pub fn issue(&self, id: &[u8], request: &Affine<C>) -> Result<Issued, Error> {
        if request.is_infinity() || !request.is_on_curve() || !request.in_subgroup_fast() {
            return Err(Error::Key(
                "certificate request is not a point of the subgroup".into(),
            ));
        }
        let n = order::<C>()?;
        let mut ctx = BigNumContext::new_secure()?;
        loop {
            let k_t = random_scalar::<C>()?;
            let p = hopsig_koblitz::curve::Point::from(*request)
                .add_vartime(&hopsig_koblitz::curve::Point::from(times_g::<C>(&k_t)?))
                .to_affine();
            if p.is_infinity() {
                continue;
            }
            let enc = p.to_sec1(true);
            let r = mod_2m::<C>(&enc[1..], &h_id::<C>(id), true);
            let mut r_mod_n = BigNum::new()?;
            r_mod_n.nnmod(&*BigNum::from_slice(&r)?, &n, &mut ctx)?;
            let mut rs = BigNum::new_secure()?;
            rs.mod_mul(&r_mod_n, &self.s, &n, &mut ctx)?;
            let mut s_bar = BigNum::new_secure()?;
            s_bar.mod_sub(&k_t, &rs, &n, &mut ctx)?;
            return Ok(Issued {
                cert: ImplicitCert {
                    r,
                    b: enc[0] & 1 == 1,
                },
                s_bar,
            });
        }
    }
}

/// ICNR_blind: a fresh k_A and the request k_A·G.
///
/// # Errors
/// Backend failures.
pub fn blind<C: Curve>() -> Result<Blind<C>, Error> {
    let k = random_scalar::<C>()?;
    let request = times_g::<C>(&k)?;
    Ok(Blind { k, request })
}

impl<C: Curve> Blind<C> {
    /// A blind from k_A, checking the request is k_A·G.
    ///
    /// # Errors
    /// [`Error::Key`] if they do not match.
    pub fn from_parts(k: BigNum, request: &Affine<C>) -> Result<Self, Error> {
        if times_g::<C>(&k)? != *request {
            return Err(Error::Key(
                "request does not match the blinding secret".into(),
            ));
        }
        Ok(Blind {
            k,
            request: *request,
        })
    }

    pub(crate) fn secret(&self) -> &BigNum {
        &self.k
    }

    /// k_A·G, sent to the TTP.
    pub fn request(&self) -> &Affine<C> {
        &self.request
    }
}

/// ICNR_finalkey: s_A = k_A + s̄_A mod n, checked against the key anyone extracts
/// from the certificate (so a faulty TTP answer is caught here).
///
/// # Errors
/// [`Error::Key`] if s_A·G differs from the extracted key.
pub fn finalkey<C: Curve>(
    blind: &Blind<C>,
    issued: &Issued,
    id: &[u8],
    ttp: &Affine<C>,
) -> Result<KoblitzSecret<C>, Error> {
    let n = order::<C>()?;
    let mut ctx = BigNumContext::new_secure()?;
    let mut s = BigNum::new_secure()?;
    s.mod_add(&blind.k, &issued.s_bar, &n, &mut ctx)?;
    s.set_const_time();
    let q = times_g::<C>(&s)?;
    if s.num_bits() == 0 || extract(id, &issued.cert, ttp)? != q {
        return Err(Error::Key(
            "the TTP's answer does not give a key for this certificate".into(),
        ));
    }
    Ok(KoblitzSecret::from_parts(s, q))
}

/// D = DECOMPRESS(r_A − H(ID), b_A), checked to be a point of the subgroup, and
/// r_A mod n.
fn decompress_d<C: Curve>(id: &[u8], cert: &ImplicitCert) -> Option<(Affine<C>, Scalar<C>)> {
    // r_A is an m-bit integer in SEC 1 field bytes.
    if cert.r.len() != Fe::<C::F>::BYTES || cert.r[0] & !top_byte_mask::<C>() != 0 {
        return None;
    }
    let r_bar = mod_2m::<C>(&cert.r, &h_id::<C>(id), false);
    let d = Affine::<C>::decompress(Fe::from_be_bytes(&r_bar)?, cert.b).ok()?;
    if !d.in_subgroup_fast() {
        return None;
    }
    Some((d, Scalar::reduce_be_bytes(&cert.r)?))
}

/// ICNR_extract (eq. 7): W_A = D − r_A·W_T.
///
/// # Errors
/// [`Error::Key`] if the certificate does not decode to a subgroup point or W_A is ∞.
pub fn extract<C: Curve>(
    id: &[u8],
    cert: &ImplicitCert,
    ttp: &Affine<C>,
) -> Result<Affine<C>, Error> {
    let (d, r) = decompress_d::<C>(id, cert).ok_or_else(|| {
        Error::Key("implicit certificate does not decode to a subgroup point".into())
    })?;
    let w = multi_mul_tau_vartime(&[
        (&[1], &TauTable::new(&d, POINT_WIDTH)),
        (&r.neg().to_be_bytes(), &TauTable::new(ttp, POINT_WIDTH)),
    ])
    .to_affine();
    if w.is_infinity() {
        return Err(Error::Key(
            "extracted public key is the point at infinity".into(),
        ));
    }
    Ok(w)
}

/// ICNR_do_verify (eq. 9): verifies the ECDSA signature `sig` (DER) on `msg` by the
/// holder of `cert` for `id`, extracting the key inside one three-term multi-scalar
/// multiplication u·G + v·D − v·r_A·W_T. False for a certificate that does not decode
/// to a subgroup point and for a signature that does not verify.
#[must_use]
pub fn verify_fused<C: Curve>(
    id: &[u8],
    cert: &ImplicitCert,
    ttp: &TauTable<C>,
    msg: &[u8],
    sig: &[u8],
) -> bool {
    let Some((d, r_a)) = decompress_d::<C>(id, cert) else {
        return false;
    };
    let Some((c, s)) = signature_scalars::<C>(sig) else {
        return false;
    };
    let t = s.invert_vartime();
    let (u, v) = (digest::<C>(msg).mul(&t), c.mul(&t));
    let x = multi_mul_tau_vartime(&[
        (&u.to_be_bytes(), C::generator_tau_table()),
        (&v.to_be_bytes(), &TauTable::new(&d, POINT_WIDTH)),
        (&v.neg().mul(&r_a).to_be_bytes(), ttp),
    ]);
    x_is_r_mod_n(&x, &c)
}
