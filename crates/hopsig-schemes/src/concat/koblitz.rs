//! ECDSA with SHA-256 on the NIST Koblitz curves K-163, K-233, K-283 (003 Fig. 1),
//! on hopsig's own binary-field and Koblitz-curve arithmetic (`hopsig-koblitz`), with
//! keys and signatures in the standard formats (PKCS #8 / SubjectPublicKeyInfo, DER
//! `ECDSA-Sig-Value`) so that OpenSSL verifies what hopsig signs and the reverse.
//!
//! Signing computes k·G with the constant-time fixed-base comb (signed odd digits,
//! full-table scans; `hopsig_koblitz::curve::mul_base_ct`); k is drawn from
//! OpenSSL's CSPRNG (`BN_priv_rand_range`), and the modular arithmetic on k and d uses
//! OpenSSL's constant-time bignum paths. Verification (public inputs only) does its
//! arithmetic modulo n with `hopsig_koblitz::scalar` (variable-time safegcd inversion),
//! computes u1·G + u2·Q by interleaved τ-adic expansions (`hopsig_koblitz::tau`,
//! variable time) and compares x without inverting Z (`x_is_r_mod_n`).

use std::marker::PhantomData;

use hopsig_koblitz::curve::{mul_base_ct, Affine, Curve, Point, K163, K233, K283};
use hopsig_koblitz::scalar::Scalar;
use hopsig_koblitz::tau::{multi_mul_tau_vartime, TauTable, POINT_WIDTH};
use hopsig_koblitz::{Fe, Field};
use hopsig_primitives::codec::{DecodeError, Reader};
use hopsig_primitives::hash::sha256;
use openssl::bn::{BigNum, BigNumContext};
use openssl::ec::{EcGroup, EcKey, EcPoint, PointConversionForm};
use openssl::ecdsa::EcdsaSig;
use openssl::nid::Nid;
use openssl::pkey::{Id, PKey, Public};
use zeroize::Zeroizing;

use super::ecdsa::read_der_signature;
use super::BaseSignature;
use crate::wire::SchemeCode;
use crate::Error;

/// A Koblitz-curve ECDSA secret key: d and Q = d·G.
pub struct KoblitzSecret<C: Curve> {
    d: BigNum,
    q: Affine<C>,
}

/// A Koblitz-curve ECDSA public key Q (checked: on the curve, order n, not ∞).
#[derive(Clone)]
pub struct KoblitzPublic<C: Curve> {
    q: Affine<C>,
}

impl<C: Curve> KoblitzSecret<C> {
    /// A key from a secret scalar d ∈ [1, n − 1] and its public point (callers have
    /// checked Q = d·G).
    pub(crate) fn from_parts(d: BigNum, q: Affine<C>) -> Self {
        KoblitzSecret { d, q }
    }

    /// ECDSA signature (DER) on `msg`.
    ///
    /// # Errors
    /// Backend failures.
    pub fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, Error> {
        sign_impl(self, msg)
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

pub(crate) fn order<C: Curve>() -> Result<BigNum, Error> {
    Ok(BigNum::from_slice(
        &hopsig_koblitz::curve::order_bytes::<C>(),
    )?)
}

pub(crate) fn order_bytes<C: Curve>() -> usize {
    C::ORDER.len() / 2
}

/// e: the leftmost bitlen(n) bits of SHA-256(msg), mod n (SEC 1 §4.1.3 step 5).
pub(crate) fn digest<C: Curve>(msg: &[u8]) -> Scalar<C> {
    Scalar::from_hash(&sha256(&[msg]))
}

/// x(P) as an integer mod n.
pub(crate) fn x_mod_n<C: Curve>(
    p: &Affine<C>,
    n: &BigNum,
    ctx: &mut BigNumContext,
) -> Result<BigNum, Error> {
    let x = BigNum::from_slice(&p.x().to_be_bytes())?;
    let mut r = BigNum::new()?;
    r.nnmod(&x, n, ctx)?;
    Ok(r)
}

/// k·G for a secret scalar, through the generator's constant-time comb.
pub(crate) fn times_g<C: Curve>(k: &BigNum) -> Result<Affine<C>, Error> {
    Ok(mul_base_ct(C::generator_comb(), &padded(k, order_bytes::<C>())?).to_affine())
}

pub(crate) fn padded(b: &BigNum, len: usize) -> Result<Zeroizing<Vec<u8>>, Error> {
    Ok(Zeroizing::new(b.to_vec_padded(len as i32)?))
}

pub(crate) fn sign_impl<C: Curve>(sk: &KoblitzSecret<C>, msg: &[u8]) -> Result<Vec<u8>, Error> {
    let n = order::<C>()?;
    let mut ctx = BigNumContext::new_secure()?;
    let e = BigNum::from_slice(&digest::<C>(msg).to_be_bytes())?;
    loop {
        let mut k = BigNum::new_secure()?;
        n.rand_range(&mut k)?;
        if k.num_bits() == 0 {
            continue;
        }
        k.set_const_time();
        let r = x_mod_n(&times_g::<C>(&k)?, &n, &mut ctx)?;
        if r.num_bits() == 0 {
            continue;
        }
        // s = k⁻¹ (e + r·d) mod n.
        let mut rd = BigNum::new_secure()?;
        rd.mod_mul(&r, &sk.d, &n, &mut ctx)?;
        let mut sum = BigNum::new_secure()?;
        sum.mod_add(&e, &rd, &n, &mut ctx)?;
        let mut kinv = BigNum::new_secure()?;
        kinv.mod_inverse(&k, &n, &mut ctx)?;
        let mut s = BigNum::new()?;
        s.mod_mul(&kinv, &sum, &n, &mut ctx)?;
        if s.num_bits() == 0 {
            continue;
        }
        return Ok(EcdsaSig::from_private_components(r, s)?.to_der()?);
    }
}

/// ECDSA verification (SEC 1 §4.1.4) of a DER signature; false for any signature
/// that does not decode or lies outside [1, n − 1].
#[must_use]
pub fn verify_der<C: Curve>(q: &Affine<C>, msg: &[u8], sig: &[u8]) -> bool {
    let Some((r, s)) = signature_scalars::<C>(sig) else {
        return false;
    };
    let w = s.invert_vartime();
    let (u1, u2) = (digest::<C>(msg).mul(&w), r.mul(&w));
    let q_table = TauTable::new(q, POINT_WIDTH);
    let x = multi_mul_tau_vartime(&[
        (&u1.to_be_bytes(), C::generator_tau_table()),
        (&u2.to_be_bytes(), &q_table),
    ]);
    x_is_r_mod_n(&x, &r)
}

/// (r, s) of a DER `ECDSA-Sig-Value`, if both lie in [1, n − 1] (SEC 1 §4.1.4 step 1).
pub(crate) fn signature_scalars<C: Curve>(sig: &[u8]) -> Option<(Scalar<C>, Scalar<C>)> {
    let sig = EcdsaSig::from_der(sig).ok()?;
    let r = Scalar::from_be_bytes(&sig.r().to_vec())?;
    let s = Scalar::from_be_bytes(&sig.s().to_vec())?;
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
    Ok(EcGroup::from_curve_name(nid)?)
}

fn openssl_public<C: Curve>(nid: Nid, q: &Affine<C>) -> Result<EcKey<Public>, Error> {
    let g = group(nid)?;
    let mut ctx = BigNumContext::new()?;
    let point = EcPoint::from_bytes(&g, &q.to_sec1(false), &mut ctx)?;
    Ok(EcKey::from_public_key(&g, &point)?)
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
    let q = Affine::<C>::from_sec1(bytes).map_err(|e| Error::Key(format!("public key: {e}")))?;
    q.check_subgroup()
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
                let n = order::<$curve>()?;
                let mut d = BigNum::new_secure()?;
                loop {
                    n.rand_range(&mut d)?;
                    if d.num_bits() > 0 {
                        break;
                    }
                }
                d.set_const_time();
                let q = times_g::<$curve>(&d)?;
                Ok(KoblitzSecret { d, q })
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
                let mut ctx = BigNumContext::new()?;
                let point = EcPoint::from_bytes(&g, &sk.q.to_sec1(false), &mut ctx)?;
                let key = EcKey::from_private_components(&g, &sk.d, &point)?;
                let pem = Zeroizing::new(PKey::from_ec_key(key)?.private_key_to_pem_pkcs8()?);
                Ok(Zeroizing::new(String::from_utf8_lossy(&pem).into_owned()))
            }
            fn secret_from_pem(pem: &[u8]) -> Result<Self::SecretKey, Error> {
                let pkey = PKey::private_key_from_pem(pem)
                    .map_err(|_| Error::Key("not a PEM PRIVATE KEY block".into()))?;
                let key = pkey.ec_key().map_err(|_| Error::Key("not an EC key".into()))?;
                check_key_type(pkey.id(), key.group().curve_name(), $nid)?;
                let mut d = BigNum::new_secure()?;
                d.copy_from_slice(&key.private_key().to_vec())?;
                d.set_const_time();
                let n = order::<$curve>()?;
                if d.num_bits() == 0 || d >= n {
                    return Err(Error::Key("private scalar outside [1, n − 1]".into()));
                }
                let q = times_g::<$curve>(&d)?;
                Ok(KoblitzSecret { d, q })
            }
            fn public_to_pem(pk: &Self::PublicKey) -> String {
                openssl_public($nid, &pk.q)
                    .and_then(|k| Ok(PKey::from_ec_key(k)?.public_key_to_pem()?))
                    .map(|p| String::from_utf8_lossy(&p).into_owned())
                    .unwrap_or_default()
            }
            fn public_from_der(der: &[u8]) -> Result<Self::PublicKey, Error> {
                let pkey = PKey::public_key_from_der(der)
                    .map_err(|_| Error::Key("not a DER SubjectPublicKeyInfo".into()))?;
                let key = pkey.ec_key().map_err(|_| Error::Key("not an EC key".into()))?;
                check_key_type(pkey.id(), key.group().curve_name(), $nid)?;
                let mut ctx = BigNumContext::new()?;
                let bytes =
                    key.public_key()
                        .to_bytes(key.group(), PointConversionForm::UNCOMPRESSED, &mut ctx)?;
                let pk = public_from_point::<$curve>(&bytes)?;
                let reencoded = PKey::from_ec_key(openssl_public($nid, &pk.q)?)?.public_key_to_der()?;
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
