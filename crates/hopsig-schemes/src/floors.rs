//! The primitives schemes are built on, exposed one operation at a time so benchmarks
//! can measure them in the same run as the schemes ("the floor").

use hopsig_primitives::hash::sha256;
use hopsig_primitives::rsa::RsaSecretKey;
use openssl::ec::{EcGroup, EcKey};
use openssl::ecdsa::EcdsaSig;
use openssl::nid::Nid;
use openssl::pkey::Private;

use crate::Error;

/// OpenSSL's raw RSA private and public operation (no padding; CRT and blinding on the
/// private side) on a fixed random element of Z_N — exactly what BGR's π⁻¹ and π cost.
pub struct RawRsa {
    key: RsaSecretKey,
    input: Vec<u8>,
    out: Vec<u8>,
}

impl RawRsa {
    /// A fresh `bits`-bit key and a random input below `2^(bits-1)`.
    ///
    /// # Errors
    /// Backend failures.
    pub fn new(bits: u32) -> Result<Self, Error> {
        let key = RsaSecretKey::generate(bits)?;
        let k = key.public().len();
        let mut input = vec![0u8; k];
        openssl::rand::rand_bytes(&mut input)?;
        input[0] &= 0x7f;
        Ok(RawRsa {
            key,
            input,
            out: vec![0u8; k],
        })
    }

    /// One private operation `y^d mod N`.
    ///
    /// # Errors
    /// Backend failures.
    pub fn private_op(&mut self) -> Result<(), Error> {
        Ok(self.key.invert(&self.input, &mut self.out)?)
    }

    /// One public operation `x^e mod N`.
    ///
    /// # Errors
    /// Backend failures.
    pub fn public_op(&mut self) -> Result<(), Error> {
        Ok(self.key.public().apply(&self.input, &mut self.out)?)
    }
}

/// OpenSSL's own ECDSA P-256 sign and verify of a SHA-256 digest.
pub struct RawEcdsaP256 {
    key: EcKey<Private>,
    digest: [u8; 32],
    sig: EcdsaSig,
}

impl RawEcdsaP256 {
    /// A fresh key and one signature to verify.
    ///
    /// # Errors
    /// Backend failures.
    pub fn new() -> Result<Self, Error> {
        let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1)?;
        let key = EcKey::generate(&group)?;
        let digest = sha256(&[b"hopsig floor"]);
        let sig = EcdsaSig::sign(&digest, &key)?;
        Ok(RawEcdsaP256 { key, digest, sig })
    }

    /// One signature.
    ///
    /// # Errors
    /// Backend failures.
    pub fn sign(&self) -> Result<(), Error> {
        EcdsaSig::sign(&self.digest, &self.key)?;
        Ok(())
    }

    /// One verification (must succeed).
    ///
    /// # Errors
    /// Backend failures or a failed verification.
    pub fn verify(&self) -> Result<(), Error> {
        if self.sig.verify(&self.digest, &self.key)? {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }
}
