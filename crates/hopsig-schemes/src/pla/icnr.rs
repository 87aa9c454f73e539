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
//! **Constant time.** The secrets k_A, k_T, s_T, s̄_A and s_A are
//! `hopsig_koblitz::scalar::SecretScalar`s: drawn from OpenSSL's private DRBG,
//! multiplied onto G by the constant-time comb, combined with constant-time arithmetic
//! modulo n (s̄_A = k_T − r_A·s_T, s_A = k_A + s̄_A), zeroized on drop. Points become
//! public (and are declassified for the constant-time test) when the protocol sends
//! them: the request k_A·G, P = k_A·G + k_T·G (from which the certificate is read), W_T,
//! W_A.
//!
//! **Trust level.** Alice's private key s_A = k_A + s̄_A needs k_A, which the TTP never
//! sees: the TTP cannot compute s_A. It can still issue a second certificate for
//! ID_A with a key of its own. Alice can prove that by showing two different TTP
//! certificates on her identity. This is Girault's Trust Level 3, which the paper
//! states the scheme reaches.

use hopsig_koblitz::curve::{mul_base, Affine, Curve};
use hopsig_koblitz::scalar::{Scalar, SecretScalar};
use hopsig_koblitz::tau::{multi_mul_tau_vartime, TauTable, POINT_WIDTH};
use hopsig_koblitz::Fe;
use hopsig_primitives::hash::mgf1_sha256;

use crate::concat::koblitz::{
    digest, public_point, random_scalar, signature_scalars, with_public_point, x_is_r_mod_n,
    KoblitzSecret,
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
/// (sent over the TTP's confidential channel). `Debug` shows the certificate only.
pub struct Issued<C: Curve> {
    /// (r_A, b_A).
    pub cert: ImplicitCert,
    /// s̄_A = k_T − r_A·s_T mod n.
    s_bar: SecretScalar<C>,
}

impl<C: Curve> std::fmt::Debug for Issued<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Issued({:?}, s̄_A: ..)", self.cert)
    }
}

impl<C: Curve> Issued<C> {
    /// Rebuilds an answer from its parts.
    pub fn from_parts(cert: ImplicitCert, s_bar: SecretScalar<C>) -> Self {
        Issued { cert, s_bar }
    }

    pub(crate) fn share(&self) -> &SecretScalar<C> {
        &self.s_bar
    }
}

/// The TTP: domain private key s_T, public W_T = s_T·G.
pub struct Ttp<C: Curve> {
    s: SecretScalar<C>,
    public: Affine<C>,
}

impl<C: Curve> std::fmt::Debug for Ttp<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Ttp({:?})", self.public)
    }
}

/// Alice's blinded request: k_A stays with her, k_A·G goes to the TTP (ICNR_blind).
pub struct Blind<C: Curve> {
    k: SecretScalar<C>,
    request: Affine<C>,
}

impl<C: Curve> std::fmt::Debug for Blind<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Blind(request {:?})", self.request)
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
    pub fn from_parts(s: SecretScalar<C>, public: &Affine<C>) -> Result<Self, Error> {
        let ttp = Self::from_secret(s)?;
        if ttp.public != *public {
            return Err(Error::Key(
                "TTP public key does not match its secret".into(),
            ));
        }
        Ok(ttp)
    }

    /// The TTP with domain key s_T ∈ [1, n − 1] and W_T = s_T·G.
    ///
    /// # Errors
    /// [`Error::Key`] if s_T = 0.
    pub fn from_secret(s: SecretScalar<C>) -> Result<Self, Error> {
        let (s, public) = with_public_point(s, "TTP secret")?;
        Ok(Ttp { s, public })
    }

    pub(crate) fn secret(&self) -> &SecretScalar<C> {
        &self.s
    }

    /// The TTP's domain key as an ECDSA key: for the certificate-based PLA layout,
    /// where the TTP signs public keys (`header::certify`) instead of issuing implicit
    /// certificates; W_T verifies both.
    ///
    /// # Errors
    /// Backend failures.
    pub fn signing_key(&self) -> Result<KoblitzSecret<C>, Error> {
        KoblitzSecret::from_scalar(self.s.clone())
    }

    /// Setup: s_T uniform in [1, n − 1], W_T = s_T·G.
    ///
    /// # Errors
    /// Backend failures.
    pub fn setup() -> Result<Self, Error> {
        Self::from_secret(random_scalar::<C>()?)
    }

    /// W_T.
    pub fn public(&self) -> &Affine<C> {
        &self.public
    }

    /// ICNR_ttp (eq. 6): certifies `id` for the request k_A·G. The identity follows
    /// the rule of every identity (1 to 1,024 bytes, as IBAS's); the request must be a
    /// point of the subgroup other than ∞.
    ///
    /// # Errors
    /// [`Error::IdentityLength`] for an identity of another length (before anything
    /// else, so a caller can blame the identity); [`Error::Key`] for an invalid
    /// request; backend failures.
    pub fn issue(&self, id: &[u8], request: &Affine<C>) -> Result<Issued<C>, Error> {
        crate::ibas::check_identity(id)?;
        loop {
            if let Some(issued) = self.issue_with_nonce(id, request, &random_scalar::<C>()?)? {
                return Ok(issued);
            }
        }
    }

    /// ICNR_ttp with k_T given: P = request + k_T·G (complete constant-time addition,
    /// then declassified: the certificate publishes it), r_A = (x(P) + H(ID)) mod 2^m,
    /// b_A its compression bit, s̄_A = k_T − (r_A mod n)·s_T mod n in constant time.
    /// `None` if P = ∞ (draw another k_T).
    pub(crate) fn issue_with_nonce(
        &self,
        id: &[u8],
        request: &Affine<C>,
        k_t: &SecretScalar<C>,
    ) -> Result<Option<Issued<C>>, Error> {
        if request.is_infinity() || !request.is_on_curve() || !request.in_subgroup_fast_vartime() {
            return Err(Error::Key(
                "certificate request is not a point of the subgroup".into(),
            ));
        }
        let p = public_point(&mul_base(C::generator_comb(), k_t).add_affine(request));
        if p.is_infinity() {
            return Ok(None);
        }
        let enc = p.to_sec1(true);
        let r = mod_2m::<C>(&enc[1..], &h_id::<C>(id), true);
        let r_mod_n = Scalar::<C>::reduce_be_bytes(&r)
            .ok_or_else(|| Error::Key("r_A does not fit the scalar arithmetic".into()))?;
        let s_bar = k_t.sub(&self.s.mul(&SecretScalar::from(&r_mod_n)));
        Ok(Some(Issued {
            cert: ImplicitCert {
                r,
                b: enc[0] & 1 == 1,
            },
            s_bar,
        }))
    }
}

/// ICNR_blind: a fresh k_A and the request k_A·G.
///
/// # Errors
/// Backend failures.
pub fn blind<C: Curve>() -> Result<Blind<C>, Error> {
    Blind::from_secret(random_scalar::<C>()?)
}

impl<C: Curve> Blind<C> {
    /// A blind from k_A, checking the request is k_A·G.
    ///
    /// # Errors
    /// [`Error::Key`] if they do not match.
    pub fn from_parts(k: SecretScalar<C>, request: &Affine<C>) -> Result<Self, Error> {
        let blind = Self::from_secret(k)?;
        if blind.request != *request {
            return Err(Error::Key(
                "request does not match the blinding secret".into(),
            ));
        }
        Ok(blind)
    }

    /// The blind with k_A ∈ [1, n − 1] and its request k_A·G.
    ///
    /// # Errors
    /// [`Error::Key`] if k_A = 0.
    pub fn from_secret(k: SecretScalar<C>) -> Result<Self, Error> {
        let (k, request) = with_public_point(k, "blinding secret")?;
        Ok(Blind { k, request })
    }

    pub(crate) fn secret(&self) -> &SecretScalar<C> {
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
    issued: &Issued<C>,
    id: &[u8],
    ttp: &Affine<C>,
) -> Result<KoblitzSecret<C>, Error> {
    let wrong = || Error::Key("the TTP's answer does not give a key for this certificate".into());
    let key = KoblitzSecret::from_scalar(blind.k.add(&issued.s_bar)).map_err(|_| wrong())?;
    if extract(id, &issued.cert, ttp)? != *key.public_point() {
        return Err(wrong());
    }
    Ok(key)
}

/// D = DECOMPRESS(r_A − H(ID), b_A), checked to be a point of the subgroup, and
/// r_A mod n.
pub(crate) fn decompress_d<C: Curve>(
    id: &[u8],
    cert: &ImplicitCert,
) -> Option<(Affine<C>, Scalar<C>)> {
    // r_A is an m-bit integer in SEC 1 field bytes.
    if cert.r.len() != Fe::<C::F>::BYTES || cert.r[0] & !top_byte_mask::<C>() != 0 {
        return None;
    }
    let r_bar = mod_2m::<C>(&cert.r, &h_id::<C>(id), false);
    let d = Affine::<C>::decompress_vartime(Fe::from_be_bytes(&r_bar)?, cert.b).ok()?;
    if !d.in_subgroup_fast_vartime() {
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
        (&[1], &TauTable::new_vartime(&d, POINT_WIDTH)),
        (
            &r.neg().to_be_bytes(),
            &TauTable::new_vartime(ttp, POINT_WIDTH),
        ),
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
    let Some((c, s)) = signature_scalars::<C>(sig) else {
        return false;
    };
    verify_fused_scalars(id, cert, ttp, &digest::<C>(msg), &c, &s)
}

/// ICNR_do_verify (eq. 9) on the digest e and the signature (c, d), already in
/// [1, n − 1]: X = u·G + v·D + (−v·r_A)·W_T with t = d⁻¹, u = e·t, v = c·t; valid iff
/// X ≠ ∞ and x(X) mod n = c. False for a certificate that does not decode to a
/// subgroup point.
pub(crate) fn verify_fused_scalars<C: Curve>(
    id: &[u8],
    cert: &ImplicitCert,
    ttp: &TauTable<C>,
    e: &Scalar<C>,
    c: &Scalar<C>,
    s: &Scalar<C>,
) -> bool {
    let Some((d, r_a)) = decompress_d::<C>(id, cert) else {
        return false;
    };
    let t = s.invert_vartime();
    let (u, v) = (e.mul(&t), c.mul(&t));
    let x = multi_mul_tau_vartime(&[
        (&u.to_be_bytes(), C::generator_tau_table()),
        (&v.to_be_bytes(), &TauTable::new_vartime(&d, POINT_WIDTH)),
        (&v.neg().mul(&r_a).to_be_bytes(), ttp),
    ]);
    x_is_r_mod_n(&x, c)
}
