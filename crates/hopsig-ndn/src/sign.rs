//! The NDN signature types hopsig signs and verifies with standard algorithms
//! (NDN-packet-spec "Signature Types"): DigestSha256 (0), SignatureSha256WithRsa (1,
//! RSASSA-PKCS1-v1_5, RFC 8017 §8.2) and SignatureSha256WithEcdsa (3, ECDSA with a
//! DER `ECDSA-Sig-Value`, on P-256 as the spec requires, or P-384), each over the
//! SHA-256 of the signed portion, through OpenSSL.

use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::{Id, PKey, Private, Public};
use sha2::{Digest, Sha256};

use crate::data::Data;
use crate::interest::Interest;
use crate::signature::{signature_type, SignatureInfo};

/// Why a packet could not be signed or does not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    /// The key is not one this module handles.
    #[error("unsupported key: {0}")]
    Key(String),
    /// The packet's SignatureType is not the key's.
    #[error("SignatureType {found} does not match a {key} key (type {expected})")]
    TypeMismatch {
        /// The key's algorithm.
        key: &'static str,
        /// Its SignatureType.
        expected: u64,
        /// The packet's.
        found: u64,
    },
    /// An Interest with no signature.
    #[error("the Interest is not signed")]
    Unsigned,
    /// The signature does not verify.
    #[error("the {0} signature does not verify")]
    Bad(&'static str),
    /// OpenSSL failed.
    #[error("OpenSSL: {0}")]
    OpenSsl(String),
}

fn ossl(e: openssl::error::ErrorStack) -> SignatureError {
    SignatureError::OpenSsl(e.to_string())
}

/// The curves SignatureSha256WithEcdsa is used with here.
fn ec_curve_ok<T: openssl::pkey::HasPublic>(key: &PKey<T>) -> Result<(), SignatureError> {
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

/// A key that signs packets.
pub enum SigningKey {
    /// DigestSha256: no key.
    Digest,
    /// RSA (SignatureSha256WithRsa).
    Rsa(PKey<Private>),
    /// ECDSA on P-256 or P-384 (SignatureSha256WithEcdsa).
    Ecdsa(PKey<Private>),
}

/// A key that verifies packets.
pub enum VerifyingKey {
    /// DigestSha256: no key.
    Digest,
    /// RSA.
    Rsa(PKey<Public>),
    /// ECDSA.
    Ecdsa(PKey<Public>),
}

impl SigningKey {
    /// An RSA or EC private key, by its type.
    ///
    /// # Errors
    /// Another key type, or an EC key on another curve.
    pub fn new(key: PKey<Private>) -> Result<SigningKey, SignatureError> {
        match key.id() {
            Id::RSA => Ok(SigningKey::Rsa(key)),
            Id::EC => {
                ec_curve_ok(&key)?;
                Ok(SigningKey::Ecdsa(key))
            }
            other => Err(SignatureError::Key(format!("{other:?}"))),
        }
    }

    /// A fresh RSA key of `bits` bits (e = 65537).
    ///
    /// # Errors
    /// OpenSSL failing.
    pub fn generate_rsa(bits: u32) -> Result<SigningKey, SignatureError> {
        let rsa = openssl::rsa::Rsa::generate(bits).map_err(ossl)?;
        SigningKey::new(PKey::from_rsa(rsa).map_err(ossl)?)
    }

    /// A fresh EC key on P-256 (`bits` 256) or P-384 (384).
    ///
    /// # Errors
    /// Another size, or OpenSSL failing.
    pub fn generate_ec(bits: u32) -> Result<SigningKey, SignatureError> {
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
        SigningKey::new(PKey::from_ec_key(ec).map_err(ossl)?)
    }

    /// An RSA or EC private key from PEM (PKCS #8, or the first `PRIVATE KEY` block
    /// of a file such as hopsig's `rsa2048-concat` / `ecdsa-p256-concat` key files:
    /// RFC 7468 lets text precede it).
    ///
    /// # Errors
    /// No PEM private key, or as [`SigningKey::new`].
    pub fn from_pem(text: &[u8]) -> Result<SigningKey, SignatureError> {
        let key = PKey::private_key_from_pem(text)
            .map_err(|_| SignatureError::Key("not a PEM private key".into()))?;
        SigningKey::new(key)
    }

    /// Its SignatureType.
    pub fn signature_type(&self) -> u64 {
        match self {
            SigningKey::Digest => signature_type::DIGEST_SHA256,
            SigningKey::Rsa(_) => signature_type::SHA256_WITH_RSA,
            SigningKey::Ecdsa(_) => signature_type::SHA256_WITH_ECDSA,
        }
    }

    /// The public half.
    ///
    /// # Errors
    /// OpenSSL failing to export it.
    pub fn verifying_key(&self) -> Result<VerifyingKey, SignatureError> {
        let public = |k: &PKey<Private>| {
            PKey::public_key_from_der(&k.public_key_to_der().map_err(ossl)?).map_err(ossl)
        };
        Ok(match self {
            SigningKey::Digest => VerifyingKey::Digest,
            SigningKey::Rsa(k) => VerifyingKey::Rsa(public(k)?),
            SigningKey::Ecdsa(k) => VerifyingKey::Ecdsa(public(k)?),
        })
    }

    /// The signature of `portion`.
    ///
    /// # Errors
    /// OpenSSL failing.
    pub fn sign(&self, portion: &[u8]) -> Result<Vec<u8>, SignatureError> {
        let key = match self {
            SigningKey::Digest => return Ok(Sha256::digest(portion).to_vec()),
            SigningKey::Rsa(k) | SigningKey::Ecdsa(k) => k,
        };
        let mut s = openssl::sign::Signer::new(MessageDigest::sha256(), key).map_err(ossl)?;
        s.update(portion).map_err(ossl)?;
        s.sign_to_vec().map_err(ossl)
    }

    /// Signs `data`: sets its SignatureType to the key's (keeping its KeyLocator) and
    /// its SignatureValue to the signature of its signed portion.
    ///
    /// # Errors
    /// As [`SigningKey::sign`].
    pub fn sign_data(&self, data: &mut Data) -> Result<(), SignatureError> {
        data.signature_info.signature_type = self.signature_type();
        data.signature_value = self.sign(&data.signed_portion())?;
        Ok(())
    }

    /// Signs `interest` with `info` (its SignatureType set to the key's); an
    /// Interest without ApplicationParameters gets empty ones, as a signed Interest
    /// needs them.
    ///
    /// # Errors
    /// As [`SigningKey::sign`].
    pub fn sign_interest(
        &self,
        interest: &mut Interest,
        mut info: SignatureInfo,
    ) -> Result<(), SignatureError> {
        info.signature_type = self.signature_type();
        interest.parameters.get_or_insert_with(Vec::new);
        interest.signature = Some((info, vec![]));
        let value = self.sign(&interest.signed_portion())?;
        if let Some((_, v)) = interest.signature.as_mut() {
            *v = value;
        }
        Ok(())
    }
}

impl VerifyingKey {
    /// An RSA or EC public key from a DER SubjectPublicKeyInfo.
    ///
    /// # Errors
    /// Not SPKI DER, another key type, an EC key on another curve or off it.
    pub fn from_spki(der: &[u8]) -> Result<VerifyingKey, SignatureError> {
        let key = PKey::public_key_from_der(der)
            .map_err(|_| SignatureError::Key("not a DER SubjectPublicKeyInfo".into()))?;
        match key.id() {
            Id::RSA => Ok(VerifyingKey::Rsa(key)),
            Id::EC => {
                ec_curve_ok(&key)?;
                Ok(VerifyingKey::Ecdsa(key))
            }
            other => Err(SignatureError::Key(format!("{other:?}"))),
        }
    }

    /// An RSA or EC public key from PEM (`PUBLIC KEY`, text before it allowed).
    ///
    /// # Errors
    /// No PEM public key, or as [`VerifyingKey::from_spki`].
    pub fn from_pem(text: &[u8]) -> Result<VerifyingKey, SignatureError> {
        let key = PKey::public_key_from_pem(text)
            .map_err(|_| SignatureError::Key("not a PEM public key".into()))?;
        let der = key.public_key_to_der().map_err(ossl)?;
        VerifyingKey::from_spki(&der)
    }

    fn name(&self) -> &'static str {
        match self {
            VerifyingKey::Digest => "DigestSha256",
            VerifyingKey::Rsa(_) => "SignatureSha256WithRsa",
            VerifyingKey::Ecdsa(_) => "SignatureSha256WithEcdsa",
        }
    }

    fn signature_type(&self) -> u64 {
        match self {
            VerifyingKey::Digest => signature_type::DIGEST_SHA256,
            VerifyingKey::Rsa(_) => signature_type::SHA256_WITH_RSA,
            VerifyingKey::Ecdsa(_) => signature_type::SHA256_WITH_ECDSA,
        }
    }

    /// Checks `signature` of type `found` over `portion`.
    ///
    /// # Errors
    /// Another SignatureType than the key's, or a signature that does not verify.
    pub fn verify(
        &self,
        found: u64,
        portion: &[u8],
        signature: &[u8],
    ) -> Result<(), SignatureError> {
        if found != self.signature_type() {
            return Err(SignatureError::TypeMismatch {
                key: self.name(),
                expected: self.signature_type(),
                found,
            });
        }
        let ok = match self {
            VerifyingKey::Digest => Sha256::digest(portion).as_slice() == signature,
            VerifyingKey::Rsa(k) | VerifyingKey::Ecdsa(k) => {
                let mut v =
                    openssl::sign::Verifier::new(MessageDigest::sha256(), k).map_err(ossl)?;
                v.update(portion).map_err(ossl)?;
                // A malformed signature is a failed verification, not an error.
                v.verify(signature).unwrap_or(false)
            }
        };
        ok.then_some(()).ok_or(SignatureError::Bad(self.name()))
    }

    /// Checks `data`'s signature.
    ///
    /// # Errors
    /// As [`VerifyingKey::verify`].
    pub fn verify_data(&self, data: &Data) -> Result<(), SignatureError> {
        self.verify(
            data.signature_info.signature_type,
            &data.signed_portion(),
            &data.signature_value,
        )
    }

    /// Checks a signed `interest`'s signature.
    ///
    /// # Errors
    /// [`SignatureError::Unsigned`], or as [`VerifyingKey::verify`].
    pub fn verify_interest(&self, interest: &Interest) -> Result<(), SignatureError> {
        let (info, value) = interest
            .signature
            .as_ref()
            .ok_or(SignatureError::Unsigned)?;
        self.verify(info.signature_type, &interest.signed_portion(), value)
    }
}
