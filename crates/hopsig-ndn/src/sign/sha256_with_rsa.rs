//! SignatureSha256WithRsa (SignatureType 1, NDN-packet-spec): RSASSA-PKCS1-v1_5
//! (RFC 8017 §8.2) over the SHA-256 of the signed portion, through OpenSSL.

use openssl::pkey::{Id, PKey, Private, Public};

use super::{
    ossl, pkey_sign, pkey_verify, public_of, SignatureAlgorithm, SignatureError, Signer, Verifier,
    VerifyingKey,
};
use crate::signature::signature_type;

/// The SignatureType's name.
pub const NAME: &str = "SignatureSha256WithRsa";

/// An RSA private key.
pub struct RsaSigner(PKey<Private>);

impl RsaSigner {
    /// An RSA private key.
    ///
    /// # Errors
    /// A key of another type.
    pub fn new(key: PKey<Private>) -> Result<Self, SignatureError> {
        match key.id() {
            Id::RSA => Ok(RsaSigner(key)),
            other => Err(SignatureError::Key(format!("{other:?} is not RSA"))),
        }
    }

    /// A fresh key of `bits` bits (e = 65537).
    ///
    /// # Errors
    /// OpenSSL failing.
    pub fn generate(bits: u32) -> Result<Self, SignatureError> {
        let rsa = openssl::rsa::Rsa::generate(bits).map_err(ossl)?;
        RsaSigner::new(PKey::from_rsa(rsa).map_err(ossl)?)
    }
}

impl Signer for RsaSigner {
    fn sign(&self, portion: &[u8]) -> Result<Vec<u8>, SignatureError> {
        pkey_sign(&self.0, portion)
    }
    fn verifying_key(&self) -> Result<VerifyingKey, SignatureError> {
        Ok(VerifyingKey::from(RsaVerifier(public_of(&self.0)?)))
    }
}

/// An RSA public key.
pub struct RsaVerifier(PKey<Public>);

impl RsaVerifier {
    /// An RSA public key (the caller has checked its type).
    pub(super) fn new(key: PKey<Public>) -> Self {
        RsaVerifier(key)
    }
}

impl Verifier for RsaVerifier {
    fn is_valid(&self, portion: &[u8], signature: &[u8]) -> Result<bool, SignatureError> {
        pkey_verify(&self.0, portion, signature)
    }
    fn spki_der(&self) -> Option<Vec<u8>> {
        self.0.public_key_to_der().ok()
    }
}

impl SignatureAlgorithm for RsaSigner {
    fn signature_type(&self) -> u64 {
        signature_type::SHA256_WITH_RSA
    }
    fn name(&self) -> &'static str {
        NAME
    }
}

impl SignatureAlgorithm for RsaVerifier {
    fn signature_type(&self) -> u64 {
        signature_type::SHA256_WITH_RSA
    }
    fn name(&self) -> &'static str {
        NAME
    }
}
