//! DigestSha256 (SignatureType 0, NDN-packet-spec "DigestSha256"): the SHA-256 of the
//! signed portion, no key. Integrity only.

use sha2::{Digest, Sha256};

use super::{SignatureAlgorithm, SignatureError, Signer, Verifier, VerifyingKey};
use crate::signature::signature_type;

/// The SignatureType's name.
pub const NAME: &str = "DigestSha256";

/// DigestSha256, both sides.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DigestSha256;

impl Signer for DigestSha256 {
    fn sign(&self, portion: &[u8]) -> Result<Vec<u8>, SignatureError> {
        Ok(Sha256::digest(portion).to_vec())
    }
    fn verifying_key(&self) -> Result<VerifyingKey, SignatureError> {
        Ok(VerifyingKey::from(DigestSha256))
    }
}

impl Verifier for DigestSha256 {
    fn is_valid(&self, portion: &[u8], signature: &[u8]) -> Result<bool, SignatureError> {
        Ok(Sha256::digest(portion).as_slice() == signature)
    }
}

impl SignatureAlgorithm for DigestSha256 {
    fn signature_type(&self) -> u64 {
        signature_type::DIGEST_SHA256
    }
    fn name(&self) -> &'static str {
        NAME
    }
}
