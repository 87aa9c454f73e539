//! ECDSA with SHA-256 on the NIST Koblitz curves K-163, K-233, K-283 (003 Fig. 1),
//! on hopsig's own binary-field and Koblitz-curve arithmetic (`hopsig-koblitz`), with
//! keys and signatures in the standard formats (PKCS #8 / SubjectPublicKeyInfo, DER
//! `ECDSA-Sig-Value`) so that OpenSSL verifies what hopsig signs and the reverse.
//!
//! Signing (SEC 1 §4.1.3) is constant time in d and k: k is drawn from OpenSSL's
//! private DRBG (`RAND_priv_bytes`, the generator behind `BN_priv_rand_range`) by
//! rejection sampling into [1, n − 1]; R = k·G comes from the constant-time fixed-base
//! comb (`hopsig_koblitz::curve::mul_base`); r = x(R) mod n and s = k⁻¹(e + r·d) mod n
//! are computed with `hopsig_koblitz::scalar::SecretScalar` (no OpenSSL bignum touches
//! d or k). r and s are declassified for the constant-time test only once both exist.
//! OpenSSL still reads and writes the PKCS #8 key files.
//!
//! Verification (public inputs only) does its arithmetic modulo n with
//! `hopsig_koblitz::scalar::Scalar` (variable-time safegcd inversion), computes
//! u1·G + u2·Q by interleaved τ-adic expansions (`hopsig_koblitz::tau`, variable time)
//! and compares x without inverting Z (`x_is_r_mod_n`).

use std::marker::PhantomData;

use hopsig_koblitz::curve::{mul_base, Affine, Curve, Point, K163, K233, K283};
use hopsig_koblitz::scalar::{Scalar, SecretScalar, CANDIDATE_BYTES};
use hopsig_koblitz::tau::{multi_mul_tau_vartime, TauTable, POINT_WIDTH};
use hopsig_koblitz::{Fe, Field};
use hopsig_primitives::codec::{DecodeError, Reader};
use hopsig_primitives::hash::sha256;
use hopsig_primitives::valgrind::{declassify, public_bool};
use openssl::bn::{BigNum, BigNumContext};
use openssl::ec::{EcGroup, EcKey, EcPoint, PointConversionForm};
use openssl::ecdsa::EcdsaSig;
use openssl::nid::Nid;
use openssl::pkey::{Id, PKey, Public};
use zeroize::Zeroizing;

use super::ecdsa::read_der_signature;
use super::BaseSignature;
use crate::error::OpensslResult;
use crate::wire::SchemeCode;
use crate::Error;

/// A Koblitz-curve ECDSA secret key: d (zeroized on drop) and Q = d·G. `Debug` shows Q
/// only.
pub struct KoblitzSecret<C: Curve> {
    d: SecretScalar<C>,
    q: Affine<C>,
}

impl<C: Curve> std::fmt::Debug for KoblitzSecret<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KoblitzSecret(Q = {:?})", self.q)
    }
}

/// A Koblitz-curve ECDSA public key Q (checked: on the curve, order n, not ∞).
#[derive(Clone)]
pub struct KoblitzPublic<C: Curve> {
    q: Affine<C>,
}

impl<C: Curve> KoblitzSecret<C> {
    /// The key with secret scalar d and Q = d·G (SEC 1 §3.2.1 step 2).
    ///
    /// # Errors
    /// [`Error::Key`] if d = 0.
    pub fn from_scalar(d: SecretScalar<C>) -> Result<Self, Error> {
        let (d, q) = with_public_point(d, "private scalar")?;
        Ok(KoblitzSecret { d, q })
    }

    /// A fresh key: d uniform in [1, n − 1] from OpenSSL's private DRBG.
    ///
    /// # Errors
    /// Backend failures.
    pub fn generate() -> Result<Self, Error> {
        Self::from_scalar(random_scalar::<C>()?)
    }

    /// ECDSA signature (DER) on `msg`.
    ///
    /// # Errors
    /// Backend failures.
    pub fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, Error> {
        sign_impl(self, msg)
    }

    /// ECDSA signature on the concatenation of `parts`, as raw c ‖ d (each bytes(n)
    /// big-endian): the PLA header's form, with no DER and no copy of the message.
    ///
    /// # Errors
    /// Backend failures.
    pub fn sign_raw(&self, parts: &[&[u8]]) -> Result<Vec<u8>, Error> {
        let (r, s) = sign_digest(self, &digest_parts::<C>(parts))?;
        Ok([r, s].concat())
    }

    /// The public point Q = d·G.
    pub fn public_point(&self) -> &Affine<C> {
        &self.q
    }
}

impl<C: Curve> KoblitzPublic<C> {
    /// Q.
    pub fn point(&self) -> &Affine<C> {
        &self.q
    }
}

pub(crate) fn order_bytes<C: Curve>() -> usize {
    C::ORDER.len() / 2
}

/// e: the leftmost bitlen(n) bits of SHA-256(msg), mod n (SEC 1 §4.1.3 step 5).
pub(crate) fn digest<C: Curve>(msg: &[u8]) -> Scalar<C> {
    digest_parts(&[msg])
}

/// e of a message given as the concatenation of `parts`.
pub(crate) fn digest_parts<C: Curve>(parts: &[&[u8]]) -> Scalar<C> {
    Scalar::from_hash(&sha256(parts))
}

/// A uniform secret scalar in [1, n − 1] (SEC 1 §3.2.1 step 1): candidates from
/// OpenSSL's private DRBG (`RAND_priv_bytes`), rejection-sampled in constant time
/// ([`SecretScalar::from_candidate`]). Whether a candidate was rejected is public: it
/// says nothing about the one accepted.
pub(crate) fn random_scalar<C: Curve>() -> Result<SecretScalar<C>, Error> {
    let mut random = Zeroizing::new([0u8; CANDIDATE_BYTES]);
    loop {
        openssl::rand::rand_priv_bytes(random.as_mut()).backend()?;
        let (k, accepted) = SecretScalar::from_candidate(&random);
        if public_bool(accepted) {
            return Ok(k);
        }
    }
}

/// k·G for a secret scalar through the generator's constant-time comb, as an affine
/// point declassified as public (a public key, a certificate request, ECDSA's R).
pub(crate) fn times_g<C: Curve>(k: &SecretScalar<C>) -> Affine<C> {
    public_point(&mul_base(C::generator_comb(), k))
}

/// A secret k ∈ [1, n − 1] with its public point k·G (SEC 1 §3.2.1 step 2); `what`
/// names k in the error for k = 0.
pub(crate) fn with_public_point<C: Curve>(
    k: SecretScalar<C>,
    what: &str,
) -> Result<(SecretScalar<C>, Affine<C>), Error> {
    if public_bool(k.is_zero()) {
        return Err(Error::Key(format!("{what} outside [1, n − 1]")));
    }
    let p = times_g(&k);
    Ok((k, p))
}

/// The affine form of a secret-derived point that the protocol publishes,
/// declassified for the constant-time test.
pub(crate) fn public_point<C: Curve>(p: &Point<C>) -> Affine<C> {
    let mut a = p.to_affine();
    declassify(&mut a);
    a
}

/// A secret scalar from exactly bytes(n) big-endian bytes, if it lies in [1, n − 1]
/// (in [0, n − 1] with `allow_zero`). Whether it does is public (the file is valid or
/// not).
pub(crate) fn secret_scalar<C: Curve>(bytes: &[u8], allow_zero: bool) -> Option<SecretScalar<C>> {
    if bytes.len() != order_bytes::<C>() {
        return None;
    }
    let (k, below_n) = SecretScalar::from_be_bytes(bytes);
    let ok = below_n & (subtle::Choice::from(u8::from(allow_zero)) | !k.is_zero());
    public_bool(ok).then_some(k)
}

pub(crate) fn sign_impl<C: Curve>(sk: &KoblitzSecret<C>, msg: &[u8]) -> Result<Vec<u8>, Error> {
    let (r, s) = sign_digest(sk, &digest::<C>(msg))?;
    der_signature(&r, &s)
}

/// SEC 1 §4.1.3 on the digest e, drawing nonces until r ≠ 0 and s ≠ 0 (steps 3 and 6).
fn sign_digest<C: Curve>(sk: &KoblitzSecret<C>, e: &Scalar<C>) -> Result<RawSignature, Error> {
    loop {
        let k = random_scalar::<C>()?;
        if let Some(rs) = sign_scalars(sk, e, &k)? {
            return Ok(rs);
        }
    }
}

/// The DER `ECDSA-Sig-Value` of (r, s).
fn der_signature(r: &[u8], s: &[u8]) -> Result<Vec<u8>, Error> {
    let sig = EcdsaSig::from_private_components(
        BigNum::from_slice(r).backend()?,
        BigNum::from_slice(s).backend()?,
    )
    .backend()?;
    sig.to_der().backend()
}

/// SEC 1 §4.1.3 steps 1–6 with the nonce k given, as DER. `Ok(None)` if r = 0 or
/// s = 0 (steps 3 and 6: draw another k). Only `hazmat` signs with a chosen nonce.
#[cfg(feature = "hazmat")]
pub(crate) fn sign_with_nonce<C: Curve>(
    sk: &KoblitzSecret<C>,
    msg: &[u8],
    k: &SecretScalar<C>,
) -> Result<Option<Vec<u8>>, Error> {
    sign_scalars(sk, &digest::<C>(msg), k)?
        .map(|(r, s)| der_signature(&r, &s))
        .transpose()
}

/// (r, s), bytes(n) big-endian each.
type RawSignature = (Vec<u8>, Vec<u8>);

/// SEC 1 §4.1.3 steps 1–6 with the digest e and the nonce k given: R = k·G,
/// r = x(R) mod n, s = k⁻¹(e + r·d) mod n, all in constant time; r and s, bytes(n)
/// big-endian each, are then public (declassified). `Ok(None)` if r = 0 or s = 0.
fn sign_scalars<C: Curve>(
    sk: &KoblitzSecret<C>,
    e: &Scalar<C>,
    k: &SecretScalar<C>,
) -> Result<Option<RawSignature>, Error> {
    let big_r = mul_base(C::generator_comb(), k).to_affine();
    // x(R) < 2^m fits the 8·⌈bitlen(n)/64⌉ bytes the reduction takes on K-163, K-233 and
    // K-283 (`tests::x_coordinates_fit_the_reduction`).
    let r = SecretScalar::<C>::reduce_be_bytes(&Zeroizing::new(big_r.x().to_be_bytes()))
        .ok_or_else(|| Error::Key(format!("{}: x(R) is wider than the scalars", C::NAME)))?;
    let e = SecretScalar::from(e);
    let s = k.invert().mul(&e.add(&r.mul(&sk.d)));
    let (mut r, mut s) = (r.to_be_bytes(), s.to_be_bytes());
    declassify(r.as_mut_slice());
    declassify(s.as_mut_slice());
    if r.iter().all(|&b| b == 0) || s.iter().all(|&b| b == 0) {
        return Ok(None);
    }
    Ok(Some((r.to_vec(), s.to_vec())))
}

/// ECDSA verification (SEC 1 §4.1.4) of a DER signature; false for any signature
/// that does not decode or lies outside [1, n − 1].
#[must_use]
pub fn verify_der<C: Curve>(q: &Affine<C>, msg: &[u8], sig: &[u8]) -> bool {
    let Some((r, s)) = signature_scalars::<C>(sig) else {
        return false;
    };
    verify_scalars(q, &digest::<C>(msg), &r, &s)
}

/// ECDSA verification (SEC 1 §4.1.4 steps 4–7) of (r, s), already in [1, n − 1], on
/// the digest e: u1·G + u2·Q with u1 = e·s⁻¹, u2 = r·s⁻¹.
pub(crate) fn verify_scalars<C: Curve>(
    q: &Affine<C>,
    e: &Scalar<C>,
    r: &Scalar<C>,
    s: &Scalar<C>,
) -> bool {
    let w = s.invert_vartime();
    let (u1, u2) = (e.mul(&w), r.mul(&w));
    let q_table = TauTable::new_vartime(q, POINT_WIDTH);
    let x = multi_mul_tau_vartime(&[
        (&u1.to_be_bytes(), C::generator_tau_table()),
        (&u2.to_be_bytes(), &q_table),
    ]);
    x_is_r_mod_n(&x, r)
}

/// (r, s) of a DER `ECDSA-Sig-Value`, if both lie in [1, n − 1] (SEC 1 §4.1.4 step 1).
pub(crate) fn signature_scalars<C: Curve>(sig: &[u8]) -> Option<(Scalar<C>, Scalar<C>)> {
    let sig = EcdsaSig::from_der(sig).ok()?;
    let r = Scalar::from_be_bytes(&sig.r().to_vec())?;
    let s = Scalar::from_be_bytes(&sig.s().to_vec())?;
    (!r.is_zero() && !s.is_zero()).then_some((r, s))
}

/// (r, s) of a raw signature r ‖ s of exactly 2·bytes(n) octets, if both lie in
/// [1, n − 1].
pub(crate) fn raw_signature_scalars<C: Curve>(raw: &[u8]) -> Option<(Scalar<C>, Scalar<C>)> {
    let l = order_bytes::<C>();
    if raw.len() != 2 * l {
        return None;
    }
    let r = Scalar::from_be_bytes(&raw[..l])?;
    let s = Scalar::from_be_bytes(&raw[l..])?;
    (!r.is_zero() && !s.is_zero()).then_some((r, s))
}

/// ECDSA's final check (SEC 1 §4.1.4 steps 5–7) on a projective R: R ≠ ∞ and
/// x(R) mod n = r. x(R) is a field element below 2^m, so x(R) ≡ r (mod n) means
/// x(R) = r + j·n for one of the few j with r + j·n < 2^m (j ≤ h); each candidate
/// is compared as X = (r + j·n)·Z, sparing the inversion of Z.
pub(crate) fn x_is_r_mod_n<C: Curve>(x: &Point<C>, r: &Scalar<C>) -> bool {
    r.lifts_below(<C::F as Field>::M as u32, Fe::<C::F>::BYTES)
        .any(|c| Fe::<C::F>::from_be_bytes(&c).is_some_and(|fe| x.has_x(&fe)))
}

/// The OpenSSL group of a curve (for key files).
fn group(nid: Nid) -> Result<EcGroup, Error> {
    EcGroup::from_curve_name(nid).backend()
}

fn openssl_public<C: Curve>(nid: Nid, q: &Affine<C>) -> Result<EcKey<Public>, Error> {
    let g = group(nid)?;
    let mut ctx = BigNumContext::new().backend()?;
    let point = EcPoint::from_bytes(&g, &q.to_sec1(false), &mut ctx).backend()?;
    EcKey::from_public_key(&g, &point).backend()
}

fn check_key_type(pkey_id: Id, curve: Option<Nid>, nid: Nid) -> Result<(), Error> {
    if pkey_id != Id::EC || curve != Some(nid) {
        return Err(Error::Key(format!(
            "not a key on {}",
            nid.short_name().unwrap_or("the expected curve")
        )));
    }
    Ok(())
}

fn public_from_point<C: Curve>(bytes: &[u8]) -> Result<KoblitzPublic<C>, Error> {
    let q = Affine::<C>::from_sec1_vartime(bytes)
        .map_err(|e| Error::Key(format!("public key: {e}")))?;
    q.check_subgroup_vartime()
        .map_err(|e| Error::Key(format!("public key: {e}")))?;
    Ok(KoblitzPublic { q })
}

macro_rules! koblitz_ecdsa {
    ($(#[$doc:meta])* $name:ident, $curve:ty, $nid:expr, $id:expr, $code:expr, $desc:expr) => {
        $(#[$doc])*
        pub struct $name(PhantomData<$curve>);

        impl BaseSignature for $name {
            const ID: &'static str = $id;
            const DESCRIPTION: &'static str = $desc;
            const CODE: SchemeCode = $code;
            type SecretKey = KoblitzSecret<$curve>;
            type PublicKey = KoblitzPublic<$curve>;

            fn generate() -> Result<Self::SecretKey, Error> {
                KoblitzSecret::from_scalar(random_scalar::<$curve>()?)
            }
            fn public(sk: &Self::SecretKey) -> Result<Self::PublicKey, Error> {
                Ok(KoblitzPublic { q: sk.q })
            }
            fn sign(sk: &Self::SecretKey, msg: &[u8]) -> Result<Vec<u8>, Error> {
                sign_impl(sk, msg)
            }
            fn verify(pk: &Self::PublicKey, msg: &[u8], sig: &[u8]) -> bool {
                verify_der(&pk.q, msg, sig)
            }
            fn read_signature(r: &mut Reader<'_>) -> Result<Vec<u8>, DecodeError> {
                // SEQUENCE of two INTEGERs of at most bytes(n) + 1 bytes each.
                read_der_signature(
                    r,
                    2 + 2 * (2 + order_bytes::<$curve>() + 1),
                    &hopsig_koblitz::curve::order_bytes::<$curve>(),
                )
            }
            fn secret_to_pem(sk: &Self::SecretKey) -> Result<Zeroizing<String>, Error> {
                let g = group($nid)?;
                let mut ctx = BigNumContext::new().backend()?;
                let point = EcPoint::from_bytes(&g, &sk.q.to_sec1(false), &mut ctx).backend()?;
                // OpenSSL serialises the key: d goes into a secure-heap bignum, cleared
                // when freed.
                let mut d = BigNum::new_secure().backend()?;
                d.copy_from_slice(&sk.d.to_be_bytes()).backend()?;
                let key = EcKey::from_private_components(&g, &d, &point).backend()?;
                let pem = Zeroizing::new(PKey::from_ec_key(key).backend()?.private_key_to_pem_pkcs8().backend()?);
                Ok(Zeroizing::new(String::from_utf8_lossy(&pem).into_owned()))
            }
            fn secret_from_der(der: &[u8]) -> Result<Self::SecretKey, Error> {
                let pkey = super::private_key_from_pkcs8(der)?;
                let key = pkey.ec_key().map_err(|_| Error::Key("not an EC key".into()))?;
                check_key_type(pkey.id(), key.group().curve_name(), $nid)?;
                let bytes = Zeroizing::new(
                    key.private_key()
                        .to_vec_padded(order_bytes::<$curve>() as i32)
                        .map_err(|_| Error::Key("private scalar outside [1, n − 1]".into()))?,
                );
                let d = secret_scalar::<$curve>(&bytes, false)
                    .ok_or_else(|| Error::Key("private scalar outside [1, n − 1]".into()))?;
                KoblitzSecret::from_scalar(d)
            }
            fn public_to_pem(pk: &Self::PublicKey) -> String {
                openssl_public($nid, &pk.q)
                    .and_then(|k| PKey::from_ec_key(k).backend()?.public_key_to_pem().backend())
                    .map(|p| String::from_utf8_lossy(&p).into_owned())
                    .unwrap_or_default()
            }
            fn public_from_der(der: &[u8]) -> Result<Self::PublicKey, Error> {
                let pkey = PKey::public_key_from_der(der)
                    .map_err(|_| Error::Key("not a DER SubjectPublicKeyInfo".into()))?;
                let key = pkey.ec_key().map_err(|_| Error::Key("not an EC key".into()))?;
                check_key_type(pkey.id(), key.group().curve_name(), $nid)?;
                let mut ctx = BigNumContext::new().backend()?;
                let bytes =
                    key.public_key()
                        .to_bytes(key.group(), PointConversionForm::UNCOMPRESSED, &mut ctx).backend()?;
                let pk = public_from_point::<$curve>(&bytes)?;
                let reencoded = PKey::from_ec_key(openssl_public($nid, &pk.q)?).backend()?.public_key_to_der().backend()?;
                if reencoded != der {
                    return Err(Error::Key(
                        "SubjectPublicKeyInfo is not canonical DER with an uncompressed point".into(),
                    ));
                }
                Ok(pk)
            }
        }
    };
}

koblitz_ecdsa!(
    /// ECDSA K-163 SHA-256 (about 80-bit security; 003's curve).
    EcdsaK163, K163, Nid::SECT163K1, "ecdsa-k163", SchemeCode::EcdsaK163,
    "n independent ECDSA K-163 SHA-256 signatures on hopsig's Koblitz arithmetic, DER; OpenSSL-compatible"
);
koblitz_ecdsa!(
    /// ECDSA K-233 SHA-256 (about 112-bit security).
    EcdsaK233, K233, Nid::SECT233K1, "ecdsa-k233", SchemeCode::EcdsaK233,
    "n independent ECDSA K-233 SHA-256 signatures on hopsig's Koblitz arithmetic, DER; OpenSSL-compatible"
);
koblitz_ecdsa!(
    /// ECDSA K-283 SHA-256 (about 128-bit security).
    EcdsaK283, K283, Nid::SECT283K1, "ecdsa-k283", SchemeCode::EcdsaK283,
    "n independent ECDSA K-283 SHA-256 signatures on hopsig's Koblitz arithmetic, DER; OpenSSL-compatible"
);

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn der(r: &[u8], s: &[u8]) -> Vec<u8> {
        let (r, s) = (
            BigNum::from_slice(r).unwrap(),
            BigNum::from_slice(s).unwrap(),
        );
        EcdsaSig::from_private_components(r, s)
            .unwrap()
            .to_der()
            .unwrap()
    }

    /// SEC 1 §4.1.4 step 1 on its own: r and s must lie in [1, n − 1]. The final
    /// comparison does not stand in for the check on r: it accepts r = 0 whenever
    /// x(R) ≡ 0 (mod n), and K-163 (x(R) = n) and K-233 (x(R) = 2n) have such points in
    /// the subgroup. Reaching one takes its discrete logarithm, so no signature with
    /// r = 0 is at hand: the check is tested where it sits.
    fn range_check<C: Curve>(points_with_x_zero_mod_n: usize) {
        let n = hopsig_koblitz::curve::order_bytes::<C>();
        assert!(signature_scalars::<C>(&der(&[0], &[1])).is_none(), "r = 0");
        assert!(signature_scalars::<C>(&der(&[1], &[0])).is_none(), "s = 0");
        assert!(signature_scalars::<C>(&der(&n, &[1])).is_none(), "r = n");
        assert!(signature_scalars::<C>(&der(&[1], &n)).is_none(), "s = n");
        assert!(signature_scalars::<C>(&der(&[1], &[1])).is_some());
        let zero = Scalar::<C>::from_be_bytes(&[0]).unwrap();
        let mut found = 0;
        for x in zero.lifts_below(<C::F as Field>::M as u32, Fe::<C::F>::BYTES) {
            let x = Fe::<C::F>::from_be_bytes(&x).unwrap();
            for bit in [false, true] {
                if let Ok(p) = Affine::<C>::decompress_vartime(x, bit) {
                    if p.in_subgroup_fast_vartime() {
                        assert!(x_is_r_mod_n(&Point::from(p), &zero));
                        found += 1;
                    }
                }
            }
        }
        assert_eq!(found, points_with_x_zero_mod_n, "{}", C::NAME);
    }

    #[test]
    fn x_coordinates_fit_the_reduction() {
        fn fits<C: Curve>() {
            let top = vec![0xff; Fe::<C::F>::BYTES];
            assert!(
                SecretScalar::<C>::reduce_be_bytes(&top).is_some(),
                "{}",
                C::NAME
            );
        }
        fits::<K163>();
        fits::<K233>();
        fits::<K283>();
    }

    #[test]
    fn signature_values_outside_1_to_n_minus_1_are_refused() {
        range_check::<K163>(2);
        range_check::<K233>(2);
        range_check::<K283>(0);
    }
}
