//! ECDSA P-256 with SHA-256, the BGPsec algorithm suite of RFC 8208 §3, DER-encoded
//! signatures (RFC 8208 §3.1 via RFC 3279 `ECDSA-Sig-Value`). BGR Table 1's
//! "256-bit ECDSA" column.
//!
//! A public key is a [`P256PublicKey`]: OpenSSL's key, which the reference
//! verification ([`BaseSignature::verify`]) uses, beside the same point as a
//! [`hopsig_p256::PublicKey`], which the multi-buffer batch verifier uses (issue 28) —
//! both made once, where the key is parsed, so a key verified many times (a router key
//! signs a whole table) is converted once and its table of multiples built once.

use std::fmt;
use std::sync::Arc;

use hopsig_primitives::codec::{DecodeError, Reader};
use hopsig_primitives::hash::sha256;
use openssl::bn::BigNumContext;
use openssl::ec::{EcGroup, EcKey, PointConversionForm};
use openssl::ecdsa::EcdsaSig;
use openssl::nid::Nid;
use openssl::pkey::{Id, PKey, Private, Public};
use zeroize::Zeroizing;

use super::{private_key_from_pkcs8, BaseSignature};
use crate::batch::{BatchVerify, Signatures};
use crate::error::OpensslResult;
use crate::wire::SchemeCode;
use crate::Error;

/// Longest DER ECDSA-Sig-Value for P-256: SEQUENCE(2 + 2 × (2 + 33)).
const MAX_DER_LEN: usize = 72;

/// n, the order of the P-256 base point (FIPS 186-5 / SP 800-186 §3.2.1.3).
const P256_ORDER: [u8; 32] = [
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
];

/// ECDSA P-256 SHA-256.
pub struct EcdsaP256;

/// A checked P-256 public key (on the curve, not the point at infinity, in the prime
/// order group: SEC 1 v2 §3.2.2.1), in the two forms its verifiers read: OpenSSL's,
/// for the reference single verification, and hopsig-p256's, for the batch verifier.
/// Clones share the hopsig-p256 key, and so its table of multiples.
#[derive(Clone)]
pub struct P256PublicKey {
    ec: EcKey<Public>,
    fast: Arc<hopsig_p256::PublicKey>,
}

impl P256PublicKey {
    /// The key of OpenSSL's `ec`, which the caller has checked (`EC_KEY_check_key`).
    fn from_checked(ec: EcKey<Public>) -> Result<P256PublicKey, Error> {
        let mut ctx = BigNumContext::new().backend()?;
        let sec1 = ec
            .public_key()
            .to_bytes(ec.group(), PointConversionForm::UNCOMPRESSED, &mut ctx)
            .backend()?;
        // OpenSSL has checked the point, so hopsig-p256 refusing it would be a bug in
        // one of the two; it is reported, not hidden.
        let fast = hopsig_p256::PublicKey::from_sec1(&sec1)
            .map_err(|e| Error::Key(format!("P-256 point refused by hopsig-p256: {e}")))?;
        Ok(P256PublicKey {
            ec,
            fast: Arc::new(fast),
        })
    }

    /// The uncompressed SEC 1 encoding 0x04 ‖ x ‖ y (SEC 1 v2 §2.3.3).
    pub fn to_sec1(&self) -> [u8; 65] {
        self.fast.to_sec1()
    }

    /// The key as hopsig-p256 reads it (the batch verifier's form).
    pub fn fast(&self) -> &hopsig_p256::PublicKey {
        &self.fast
    }

    /// The key as OpenSSL reads it (the reference verification's form).
    pub(crate) fn openssl(&self) -> &EcKey<Public> {
        &self.ec
    }
}

impl fmt::Debug for P256PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "P256PublicKey({})", hex_octets(&self.to_sec1()))
    }
}

impl PartialEq for P256PublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.to_sec1() == other.to_sec1()
    }
}

impl Eq for P256PublicKey {}

/// Lower-case hex of `octets`.
fn hex_octets(octets: &[u8]) -> String {
    octets.iter().map(|b| format!("{b:02x}")).collect()
}

/// The P-256 key inside `pkey`, checked: on the curve, not the point at infinity,
/// order·Q = O (`EC_KEY_check_key`).
fn p256_key<T: openssl::pkey::HasPublic>(pkey: &PKey<T>) -> Result<EcKey<T>, Error> {
    if pkey.id() != Id::EC {
        return Err(Error::Key("not an EC key".into()));
    }
    let key = pkey.ec_key().backend()?;
    if key.group().curve_name() != Some(Nid::X9_62_PRIME256V1) {
        return Err(Error::Key("not a P-256 key".into()));
    }
    key.check_key()
        .map_err(|_| Error::Key("public point fails EC_KEY_check_key".into()))?;
    Ok(key)
}

impl BaseSignature for EcdsaP256 {
    const ID: &'static str = "ecdsa-p256-concat";
    const DESCRIPTION: &'static str =
        "n independent ECDSA P-256 SHA-256 signatures (BGPsec, RFC 8208), DER; about 570n bits";
    const CODE: SchemeCode = SchemeCode::EcdsaP256Concat;
    type SecretKey = EcKey<Private>;
    type PublicKey = P256PublicKey;

    fn generate() -> Result<EcKey<Private>, Error> {
        let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).backend()?;
        EcKey::generate(&group).backend()
    }
    fn public(sk: &EcKey<Private>) -> Result<P256PublicKey, Error> {
        P256PublicKey::from_checked(EcKey::from_public_key(sk.group(), sk.public_key()).backend()?)
    }
    fn sign(sk: &EcKey<Private>, msg: &[u8]) -> Result<Vec<u8>, Error> {
        EcdsaSig::sign(&sha256(&[msg]), sk)
            .backend()?
            .to_der()
            .backend()
    }
    fn verify(pk: &P256PublicKey, msg: &[u8], sig: &[u8]) -> bool {
        EcdsaSig::from_der(sig)
            .and_then(|s| s.verify(&sha256(&[msg]), pk.openssl()))
            .unwrap_or(false)
    }
    fn batch_backends() -> &'static [&'static dyn BatchVerify<Signatures<Self>>] {
        crate::batch::p256::backends()
    }
    fn read_signature(r: &mut Reader<'_>) -> Result<Vec<u8>, DecodeError> {
        read_der_signature(r, MAX_DER_LEN, &P256_ORDER)
    }
    fn secret_to_pem(sk: &EcKey<Private>) -> Result<Zeroizing<String>, Error> {
        let pem = Zeroizing::new(
            PKey::from_ec_key(sk.clone())
                .backend()?
                .private_key_to_pem_pkcs8()
                .backend()?,
        );
        Ok(Zeroizing::new(String::from_utf8_lossy(&pem).into_owned()))
    }
    fn secret_from_der(der: &[u8]) -> Result<EcKey<Private>, Error> {
        p256_key(&private_key_from_pkcs8(der)?)
    }
    fn public_to_pem(pk: &P256PublicKey) -> String {
        PKey::from_ec_key(pk.openssl().clone())
            .and_then(|k| k.public_key_to_pem())
            .map(|p| String::from_utf8_lossy(&p).into_owned())
            .unwrap_or_default()
    }
    fn public_from_der(der: &[u8]) -> Result<P256PublicKey, Error> {
        let pkey = PKey::public_key_from_der(der)
            .map_err(|_| Error::Key("not a DER SubjectPublicKeyInfo".into()))?;
        let key = p256_key(&pkey)?;
        let mut ctx = BigNumContext::new().backend()?;
        let uncompressed = key
            .public_key()
            .to_bytes(key.group(), PointConversionForm::UNCOMPRESSED, &mut ctx)
            .backend()?;
        let reencoded =
            PKey::from_ec_key(EcKey::from_public_key(key.group(), key.public_key()).backend()?)
                .backend()?
                .public_key_to_der()
                .backend()?;
        if reencoded != der || uncompressed.len() != 65 {
            return Err(Error::Key(
                "SubjectPublicKeyInfo is not canonical DER with an uncompressed point".into(),
            ));
        }
        P256PublicKey::from_checked(key)
    }
}

/// True if the minimal big-endian `v` lies in [1, n − 1] for the big-endian `order` n.
fn in_scalar_range(v: &[u8], order: &[u8]) -> bool {
    let strip = |b: &[u8]| b.iter().position(|&x| x != 0).map_or(0, |i| b.len() - i);
    let (v, n) = (
        &v[v.len() - strip(v)..],
        &order[order.len() - strip(order)..],
    );
    !v.is_empty() && (v.len(), v) < (n.len(), n)
}

/// Reads one canonical DER `ECDSA-Sig-Value` of at most `max_len` bytes (short-form
/// length), checking that OpenSSL's re-encoding gives the same bytes and that r and s
/// lie in [1, n − 1] for the curve order `order` (SEC 1 §4.1.4 step 1: a value out of
/// range is a malformed signature, not one that fails its equation).
pub(super) fn read_der_signature(
    r: &mut Reader<'_>,
    max_len: usize,
    order: &[u8],
) -> Result<Vec<u8>, DecodeError> {
    let mut probe = r.clone();
    if probe.u8("ECDSA signature tag")? != 0x30 {
        return Err(DecodeError::Invalid {
            field: "ECDSA signature",
            reason: "not a DER SEQUENCE",
        });
    }
    let len = usize::from(probe.u8("ECDSA signature length")?);
    if len > 127 || len + 2 > max_len {
        return Err(DecodeError::Invalid {
            field: "ECDSA signature",
            reason: "longer than a signature on this curve",
        });
    }
    let der = r.take(len + 2, "ECDSA signature")?;
    let sig = EcdsaSig::from_der(der).ok();
    let canonical = sig.as_ref().and_then(|s| s.to_der().ok());
    if canonical.as_deref() != Some(der) {
        return Err(DecodeError::Invalid {
            field: "ECDSA signature",
            reason: "not a canonical DER ECDSA-Sig-Value",
        });
    }
    if !sig.is_some_and(|s| {
        in_scalar_range(&s.r().to_vec(), order) && in_scalar_range(&s.s().to_vec(), order)
    }) {
        return Err(DecodeError::Invalid {
            field: "ECDSA signature",
            reason: "r or s is not in [1, n - 1]",
        });
    }
    Ok(der.to_vec())
}
