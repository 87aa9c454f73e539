//! SignatureSha256WithEcdsa (SignatureType 3, NDN-packet-spec): ECDSA over the SHA-256
//! of the signed portion, a DER `ECDSA-Sig-Value`, on P-256 as the spec requires, or
//! P-384, through OpenSSL.

use openssl::nid::Nid;
use openssl::pkey::{Id, PKey, Private, Public};

use super::{
    ossl, pkey_sign, pkey_verify, public_of, SignatureAlgorithm, SignatureError, Signer, Verifier,
    VerifyingKey,
};
use crate::signature::signature_type;

/// The SignatureType's name.
pub const NAME: &str = "SignatureSha256WithEcdsa";

/// The curves SignatureSha256WithEcdsa is used with here, and a point on them.
fn ec_curve_ok<T: openssl::pkey::HasPublic>(key: &PKey<T>) -> Result<(), SignatureError> {
    if key.id() != Id::EC {
        return Err(SignatureError::Key(format!("{:?} is not EC", key.id())));
    }
    let ec = key.ec_key().map_err(ossl)?;
    match ec.group().curve_name() {
        Some(Nid::X9_62_PRIME256V1 | Nid::SECP384R1) => {}
        other => {
            return Err(SignatureError::Key(format!(
                "EC curve {other:?}: P-256 or P-384 only"
            )))
        }
    }
    ec.check_key()
        .map_err(|_| SignatureError::Key("EC public point fails EC_KEY_check_key".into()))
}

/// An EC private key on P-256 or P-384.
pub struct EcdsaSigner(PKey<Private>);

impl EcdsaSigner {
    /// An EC private key.
    ///
    /// # Errors
    /// Another key type, or an EC key on another curve.
    pub fn new(key: PKey<Private>) -> Result<Self, SignatureError> {
        ec_curve_ok(&key)?;
        Ok(EcdsaSigner(key))
    }

    /// A fresh key on P-256 (`bits` 256) or P-384 (384).
    ///
    /// # Errors
    /// Another size, or OpenSSL failing.
    pub fn generate(bits: u32) -> Result<Self, SignatureError> {
        let nid = match bits {
            256 => Nid::X9_62_PRIME256V1,
            384 => Nid::SECP384R1,
            _ => {
                return Err(SignatureError::Key(format!(
                    "no {bits}-bit curve: P-256 or P-384"
                )))
            }
        };
        let group = openssl::ec::EcGroup::from_curve_name(nid).map_err(ossl)?;
        let ec = openssl::ec::EcKey::generate(&group).map_err(ossl)?;
        EcdsaSigner::new(PKey::from_ec_key(ec).map_err(ossl)?)
    }
}

impl Signer for EcdsaSigner {
    fn sign(&self, portion: &[u8]) -> Result<Vec<u8>, SignatureError> {
        pkey_sign(&self.0, portion)
    }
    fn verifying_key(&self) -> Result<VerifyingKey, SignatureError> {
        Ok(VerifyingKey::from(EcdsaVerifier(public_of(&self.0)?)))
    }
}

/// An EC public key on P-256 or P-384.
pub struct EcdsaVerifier(PKey<Public>);

impl EcdsaVerifier {
    /// An EC public key.
    ///
    /// # Errors
    /// Another key type, an EC key on another curve or off it.
    pub fn new(key: PKey<Public>) -> Result<Self, SignatureError> {
        ec_curve_ok(&key)?;
        Ok(EcdsaVerifier(key))
    }
}

impl Verifier for EcdsaVerifier {
    fn is_valid(&self, portion: &[u8], signature: &[u8]) -> Result<bool, SignatureError> {
        pkey_verify(&self.0, portion, signature)
    }
    fn spki_der(&self) -> Option<Vec<u8>> {
        self.0.public_key_to_der().ok()
    }
}

impl SignatureAlgorithm for EcdsaSigner {
    fn signature_type(&self) -> u64 {
        signature_type::SHA256_WITH_ECDSA
    }
    fn name(&self) -> &'static str {
        NAME
    }
}

impl SignatureAlgorithm for EcdsaVerifier {
    fn signature_type(&self) -> u64 {
        signature_type::SHA256_WITH_ECDSA
    }
    fn name(&self) -> &'static str {
        NAME
    }
}
