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
use hopsig_koblitz::tau::{multi_mul_tau_vartime, TauTable, POINT_WIDTH};
use hopsig_koblitz::Fe;
use hopsig_primitives::hash::mgf1_sha256;
use openssl::bn::{BigNum, BigNumContext};
use openssl::ecdsa::EcdsaSig;

use crate::concat::koblitz::{digest_int, order, times_g, x_is_r_mod_n, KoblitzSecret};
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

/// H(ID) as an m-bit integer.
fn h_id<C: Curve>(id: &[u8]) -> Result<BigNum, Error> {
    let mut out = vec![0u8; Fe::<C::F>::BYTES];
    mgf1_sha256(&[TAG_ID, id], &mut out);
    let mut h = BigNum::from_slice(&out)?;
    h.mask_bits(<C::F as hopsig_koblitz::Field>::M as i32)?;
    Ok(h)
}

/// (a ± b) mod 2^m.
fn mod_2m<C: Curve>(a: &BigNum, b: &BigNum, add: bool) -> Result<BigNum, Error> {
    let m = <C::F as hopsig_koblitz::Field>::M as i32;
    let mut two_m = BigNum::new()?;
    two_m.set_bit(m)?;
    let mut t = BigNum::new()?;
    if add {
        t.checked_add(a, b)?;
    } else {
        let mut sum = BigNum::new()?;
        sum.checked_add(a, &two_m)?;
        t.checked_sub(&sum, b)?;
    }
    t.mask_bits(m)?;
    Ok(t)
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
            let r_bar = BigNum::from_slice(&enc[1..])?;
            let r = mod_2m::<C>(&r_bar, &h_id::<C>(id)?, true)?;
            let mut r_mod_n = BigNum::new()?;
            r_mod_n.nnmod(&r, &n, &mut ctx)?;
            let mut rs = BigNum::new_secure()?;
            rs.mod_mul(&r_mod_n, &self.s, &n, &mut ctx)?;
            let mut s_bar = BigNum::new_secure()?;
            s_bar.mod_sub(&k_t, &rs, &n, &mut ctx)?;
            return Ok(Issued {
                cert: ImplicitCert {
                    r: r.to_vec_padded(Fe::<C::F>::BYTES as i32)?,
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

/// D = DECOMPRESS(r_A − H(ID), b_A), checked to be a point of the subgroup.
fn decompress_d<C: Curve>(id: &[u8], cert: &ImplicitCert) -> Result<(Affine<C>, BigNum), Error> {
    let bad = || Error::Key("implicit certificate does not decode to a subgroup point".into());
    if cert.r.len() != Fe::<C::F>::BYTES {
        return Err(bad());
    }
    let r = BigNum::from_slice(&cert.r)?;
    if r.num_bits() > <C::F as hopsig_koblitz::Field>::M as i32 {
        return Err(bad());
    }
    let r_bar = mod_2m::<C>(&r, &h_id::<C>(id)?, false)?;
    let mut enc = vec![0x02 | u8::from(cert.b)];
    enc.extend_from_slice(&r_bar.to_vec_padded(Fe::<C::F>::BYTES as i32)?);
    let d = Affine::<C>::from_sec1(&enc).map_err(|_| bad())?;
    if !d.in_subgroup_fast() {
        return Err(bad());
    }
    let n = order::<C>()?;
    let mut ctx = BigNumContext::new()?;
    let mut r_mod_n = BigNum::new()?;
    r_mod_n.nnmod(&r, &n, &mut ctx)?;
    Ok((d, r_mod_n))
}

/// ICNR_extract (eq. 7): W_A = D − r_A·W_T.
///
/// # Errors
/// [`Error::Key`] if the certificate does not decode or W_A is ∞.
pub fn extract<C: Curve>(
    id: &[u8],
    cert: &ImplicitCert,
    ttp: &Affine<C>,
) -> Result<Affine<C>, Error> {
    let (d, r) = decompress_d::<C>(id, cert)?;
    let n = order::<C>()?;
    let mut neg_r = BigNum::new()?;
    neg_r.checked_sub(&n, &r)?;
    let one = [1u8];
    let w = multi_mul_tau_vartime(&[
        (&one, &TauTable::new(&d, POINT_WIDTH)),
        (&neg_r.to_vec(), &TauTable::new(ttp, POINT_WIDTH)),
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
/// multiplication u·G + v·D − v·r_A·W_T.
///
/// # Errors
/// Backend failures; a certificate that does not decode is reported as `Ok(false)`.
pub fn verify_fused<C: Curve>(
    id: &[u8],
    cert: &ImplicitCert,
    ttp: &TauTable<C>,
    msg: &[u8],
    sig: &[u8],
) -> Result<bool, Error> {
    let Ok((d, r_a)) = decompress_d::<C>(id, cert) else {
        return Ok(false);
    };
    let n = order::<C>()?;
    let mut ctx = BigNumContext::new()?;
    let Ok(sig) = EcdsaSig::from_der(sig) else {
        return Ok(false);
    };
    let (c, s) = (sig.r(), sig.s());
    let in_range = |x: &openssl::bn::BigNumRef| x.num_bits() > 0 && x < &*n;
    if !in_range(c) || !in_range(s) {
        return Ok(false);
    }
    let e = digest_int(msg, &n)?;
    let mut t = BigNum::new()?;
    t.mod_inverse(s, &n, &mut ctx)?;
    let (mut u, mut v, mut vr) = (BigNum::new()?, BigNum::new()?, BigNum::new()?);
    u.mod_mul(&e, &t, &n, &mut ctx)?;
    v.mod_mul(c, &t, &n, &mut ctx)?;
    vr.mod_mul(&v, &r_a, &n, &mut ctx)?;
    let mut w3 = BigNum::new()?;
    w3.mod_sub(&n, &vr, &n, &mut ctx)?;
    let x = multi_mul_tau_vartime(&[
        (&u.to_vec(), C::generator_tau_table()),
        (&v.to_vec(), &TauTable::new(&d, POINT_WIDTH)),
        (&w3.to_vec(), ttp),
    ]);
    x_is_r_mod_n(&x, c, &n)
}
