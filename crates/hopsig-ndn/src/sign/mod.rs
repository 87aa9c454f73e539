//! Signing and verifying NDN packets, one SignatureType per file (as python-ndn's
//! `security/signer/` does), listed in one table ([`SIGNATURE_TYPES`]):
//!
//! | SignatureType | Name | Signing side | Verifying side | File |
//! |---|---|---|---|---|
//! | 0 | DigestSha256 | [`DigestSha256`] | [`DigestSha256`] | `sign/digest_sha256.rs` |
//! | 1 | SignatureSha256WithRsa | [`RsaSigner`] | [`RsaVerifier`] | `sign/sha256_with_rsa.rs` |
//! | 3 | SignatureSha256WithEcdsa | [`EcdsaSigner`] | [`EcdsaVerifier`] | `sign/sha256_with_ecdsa.rs` |
//! | 201 | SignatureSha256Ibas | [`ibas::IbasSigner`] | [`ibas::IbasVerifier`] | `sign/ibas.rs` |
//!
//! The set is open: a SignatureType is a [`SignatureAlgorithm`] (its number and
//! name) with an implementation of [`Signer`] (stateless keys) or [`SignerMut`] (keys
//! with state, as IBAS's journal of state strings) and of [`Verifier`], added to the
//! table. [`SigningKey`] and [`VerifyingKey`] hold any of
//! them; their constructors read the standard keys (PEM, SubjectPublicKeyInfo) and
//! pick the SignatureType by the key's algorithm. Wire bytes are the NDN-packet-spec's
//! ("Signature Types"); RSA is RSASSA-PKCS1-v1_5 (RFC 8017 §8.2), ECDSA a DER
//! `ECDSA-Sig-Value` on P-256 as the spec requires, or P-384, each over the SHA-256 of
//! the signed portion, through OpenSSL.

pub mod digest_sha256;
pub mod ibas;
pub mod sha256_with_ecdsa;
pub mod sha256_with_rsa;

use openssl::hash::MessageDigest;
use openssl::pkey::{Id, PKey, Private, Public};

use crate::data::Data;
use crate::interest::Interest;
use crate::signature::{signature_type, SignatureInfo};

pub use digest_sha256::DigestSha256;
pub use sha256_with_ecdsa::{EcdsaSigner, EcdsaVerifier};
pub use sha256_with_rsa::{RsaSigner, RsaVerifier};

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
    /// The signer's own state refused (IBAS: a state string w already used for another
    /// message, or a journal that cannot be kept).
    #[error("{0}")]
    State(String),
}

pub(crate) fn ossl(e: openssl::error::ErrorStack) -> SignatureError {
    SignatureError::OpenSsl(e.to_string())
}

/// OpenSSL's signature with `key` over the SHA-256 of `portion` (RSA and ECDSA alike:
/// the key's type picks the algorithm).
fn pkey_sign(key: &PKey<Private>, portion: &[u8]) -> Result<Vec<u8>, SignatureError> {
    let mut s = openssl::sign::Signer::new(MessageDigest::sha256(), key).map_err(ossl)?;
    s.update(portion).map_err(ossl)?;
    s.sign_to_vec().map_err(ossl)
}

/// Whether `signature` verifies with `key` over the SHA-256 of `portion`.
fn pkey_verify(
    key: &PKey<Public>,
    portion: &[u8],
    signature: &[u8],
) -> Result<bool, SignatureError> {
    let mut v = openssl::sign::Verifier::new(MessageDigest::sha256(), key).map_err(ossl)?;
    v.update(portion).map_err(ossl)?;
    // A malformed signature is a failed verification, not an error.
    Ok(v.verify(signature).unwrap_or(false))
}

/// The public half of `key`.
fn public_of(key: &PKey<Private>) -> Result<PKey<Public>, SignatureError> {
    PKey::public_key_from_der(&key.public_key_to_der().map_err(ossl)?).map_err(ossl)
}

/// One row of [`SIGNATURE_TYPES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignatureTypeEntry {
    /// The SignatureType number.
    pub code: u64,
    /// Its name in the NDN-packet-spec (or docs/spec/ndn-ibas.md).
    pub name: &'static str,
}

/// Every SignatureType hopsig signs and verifies, in one table (the module's table
/// says which types implement each).
pub const SIGNATURE_TYPES: &[SignatureTypeEntry] = &[
    SignatureTypeEntry {
        code: signature_type::DIGEST_SHA256,
        name: digest_sha256::NAME,
    },
    SignatureTypeEntry {
        code: signature_type::SHA256_WITH_RSA,
        name: sha256_with_rsa::NAME,
    },
    SignatureTypeEntry {
        code: signature_type::SHA256_WITH_ECDSA,
        name: sha256_with_ecdsa::NAME,
    },
    SignatureTypeEntry {
        code: ibas::SIGNATURE_TYPE,
        name: ibas::NAME,
    },
];

/// What both sides of a SignatureType say about it.
pub trait SignatureAlgorithm {
    /// Its SignatureType number.
    fn signature_type(&self) -> u64;

    /// Its name, for messages (the name in [`SIGNATURE_TYPES`]).
    fn name(&self) -> &'static str;
}

/// The signing side of a SignatureType whose key has no state: the SignatureValue of a
/// signed portion (RustCrypto's `Signer`).
pub trait Signer: SignatureAlgorithm {
    /// The SignatureValue over `portion`.
    ///
    /// # Errors
    /// The backend failing.
    fn sign(&self, portion: &[u8]) -> Result<Vec<u8>, SignatureError>;

    /// The matching verifying side.
    ///
    /// # Errors
    /// The backend failing to export the public key.
    fn verifying_key(&self) -> Result<VerifyingKey, SignatureError>;
}

/// The signing side of a SignatureType whose key has state that signing changes
/// (IBAS: its journal of state strings), RustCrypto's `SignerMut`. Every [`Signer`] is
/// one.
pub trait SignerMut: SignatureAlgorithm {
    /// The SignatureValue over `portion`.
    ///
    /// # Errors
    /// The backend failing; the state refusing ([`SignatureError::State`]).
    fn sign_mut(&mut self, portion: &[u8]) -> Result<Vec<u8>, SignatureError>;

    /// Signs `data`: sets its SignatureType to the signer's (keeping its KeyLocator)
    /// and its SignatureValue to the signature of its signed portion.
    ///
    /// # Errors
    /// As [`SignerMut::sign_mut`].
    fn sign_data(&mut self, data: &mut Data) -> Result<(), SignatureError> {
        data.signature_info.signature_type = self.signature_type();
        data.signature_value = self.sign_mut(&data.signed_portion())?;
        Ok(())
    }

    /// Signs `interest` with `info` (its SignatureType set to the signer's); an
    /// Interest without ApplicationParameters gets empty ones, as a signed Interest
    /// needs them.
    ///
    /// # Errors
    /// As [`SignerMut::sign_mut`].
    fn sign_interest(
        &mut self,
        interest: &mut Interest,
        mut info: SignatureInfo,
    ) -> Result<(), SignatureError> {
        info.signature_type = self.signature_type();
        interest.parameters.get_or_insert_with(Vec::new);
        interest.signature = Some((info, vec![]));
        let value = self.sign_mut(&interest.signed_portion())?;
        if let Some((_, v)) = interest.signature.as_mut() {
            *v = value;
        }
        Ok(())
    }
}

impl<S: Signer + ?Sized> SignerMut for S {
    fn sign_mut(&mut self, portion: &[u8]) -> Result<Vec<u8>, SignatureError> {
        self.sign(portion)
    }
}

/// The verifying side of a SignatureType.
pub trait Verifier: SignatureAlgorithm {
    /// Whether `signature` is a valid SignatureValue over `portion` (a malformed
    /// signature is `false`, not an error).
    ///
    /// # Errors
    /// The backend failing.
    fn is_valid(&self, portion: &[u8], signature: &[u8]) -> Result<bool, SignatureError>;

    /// The public key as a DER SubjectPublicKeyInfo, for key types that have one.
    fn spki_der(&self) -> Option<Vec<u8>> {
        None
    }

    /// Checks `signature` of type `found` over `portion`.
    ///
    /// # Errors
    /// Another SignatureType than the verifier's, or a signature that does not verify.
    fn verify(&self, found: u64, portion: &[u8], signature: &[u8]) -> Result<(), SignatureError> {
        if found != self.signature_type() {
            return Err(SignatureError::TypeMismatch {
                key: self.name(),
                expected: self.signature_type(),
                found,
            });
        }
        self.is_valid(portion, signature)?
            .then_some(())
            .ok_or(SignatureError::Bad(self.name()))
    }

    /// Checks `data`'s signature.
    ///
    /// # Errors
    /// As [`Verifier::verify`].
    fn verify_data(&self, data: &Data) -> Result<(), SignatureError> {
        self.verify(
            data.signature_info.signature_type,
            &data.signed_portion(),
            &data.signature_value,
        )
    }

    /// Checks a signed `interest`'s signature.
    ///
    /// # Errors
    /// [`SignatureError::Unsigned`], or as [`Verifier::verify`].
    fn verify_interest(&self, interest: &Interest) -> Result<(), SignatureError> {
        let (info, value) = interest
            .signature
            .as_ref()
            .ok_or(SignatureError::Unsigned)?;
        self.verify(info.signature_type, &interest.signed_portion(), value)
    }
}

/// A key that signs packets: any stateless [`Signer`]. Its constructors read the
/// standard private keys and pick the SignatureType by the key's algorithm.
///
/// Not `hopsig_schemes::SigningKey` (the typed key of an aggregate scheme) nor
/// `hopsig_bgp::SigningKey` (a router key of a BGPsec algorithm suite, with its SKI):
/// an NDN signer makes one SignatureValue over a packet's signed portion and is found
/// by SignatureType and KeyLocator.
pub struct SigningKey(Box<dyn Signer + Send + Sync>);

impl<S: Signer + Send + Sync + 'static> From<S> for SigningKey {
    fn from(signer: S) -> Self {
        SigningKey(Box::new(signer))
    }
}

impl<S: SignatureAlgorithm + ?Sized> SignatureAlgorithm for &S {
    fn signature_type(&self) -> u64 {
        (**self).signature_type()
    }
    fn name(&self) -> &'static str {
        (**self).name()
    }
}

/// A shared reference to a stateless signer signs as the signer does.
impl<S: Signer + ?Sized> Signer for &S {
    fn sign(&self, portion: &[u8]) -> Result<Vec<u8>, SignatureError> {
        (**self).sign(portion)
    }
    fn verifying_key(&self) -> Result<VerifyingKey, SignatureError> {
        (**self).verifying_key()
    }
}

impl SigningKey {
    /// DigestSha256, which needs no key.
    pub fn digest() -> SigningKey {
        SigningKey::from(DigestSha256)
    }

    /// An RSA (SignatureSha256WithRsa) or EC (SignatureSha256WithEcdsa) private key,
    /// by its type.
    ///
    /// # Errors
    /// Another key type, or an EC key on another curve.
    pub fn new(key: PKey<Private>) -> Result<SigningKey, SignatureError> {
        match key.id() {
            Id::RSA => Ok(SigningKey::from(RsaSigner::new(key)?)),
            Id::EC => Ok(SigningKey::from(EcdsaSigner::new(key)?)),
            other => Err(SignatureError::Key(format!("{other:?}"))),
        }
    }

    /// A fresh RSA key of `bits` bits (e = 65537).
    ///
    /// # Errors
    /// OpenSSL failing.
    pub fn generate_rsa(bits: u32) -> Result<SigningKey, SignatureError> {
        RsaSigner::generate(bits).map(SigningKey::from)
    }

    /// A fresh EC key on P-256 (`bits` 256) or P-384 (384).
    ///
    /// # Errors
    /// Another size, or OpenSSL failing.
    pub fn generate_ec(bits: u32) -> Result<SigningKey, SignatureError> {
        EcdsaSigner::generate(bits).map(SigningKey::from)
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
        self.0.signature_type()
    }

    /// The public half.
    ///
    /// # Errors
    /// OpenSSL failing to export it.
    pub fn verifying_key(&self) -> Result<VerifyingKey, SignatureError> {
        self.0.verifying_key()
    }

    /// The signature of `portion`.
    ///
    /// # Errors
    /// OpenSSL failing.
    pub fn sign(&self, portion: &[u8]) -> Result<Vec<u8>, SignatureError> {
        self.0.sign(portion)
    }

    /// [`SignerMut::sign_data`] with this key.
    ///
    /// # Errors
    /// As [`SigningKey::sign`].
    pub fn sign_data(&self, data: &mut Data) -> Result<(), SignatureError> {
        let mut this: &(dyn Signer + Send + Sync) = &*self.0;
        SignerMut::sign_data(&mut this, data)
    }

    /// [`SignerMut::sign_interest`] with this key.
    ///
    /// # Errors
    /// As [`SigningKey::sign`].
    pub fn sign_interest(
        &self,
        interest: &mut Interest,
        info: SignatureInfo,
    ) -> Result<(), SignatureError> {
        let mut this: &(dyn Signer + Send + Sync) = &*self.0;
        SignerMut::sign_interest(&mut this, interest, info)
    }
}

/// A key that verifies packets: any [`Verifier`]. Its constructors read the standard
/// public keys and pick the SignatureType by the key's algorithm.
pub struct VerifyingKey(Box<dyn Verifier + Send + Sync>);

impl<V: Verifier + Send + Sync + 'static> From<V> for VerifyingKey {
    fn from(verifier: V) -> Self {
        VerifyingKey(Box::new(verifier))
    }
}

impl VerifyingKey {
    /// DigestSha256, which needs no key.
    pub fn digest() -> VerifyingKey {
        VerifyingKey::from(DigestSha256)
    }

    /// An RSA or EC public key from a DER SubjectPublicKeyInfo.
    ///
    /// # Errors
    /// Not SPKI DER, another key type, an EC key on another curve or off it.
    pub fn from_spki(der: &[u8]) -> Result<VerifyingKey, SignatureError> {
        let key = PKey::public_key_from_der(der)
            .map_err(|_| SignatureError::Key("not a DER SubjectPublicKeyInfo".into()))?;
        match key.id() {
            Id::RSA => Ok(VerifyingKey::from(RsaVerifier::new(key))),
            Id::EC => Ok(VerifyingKey::from(EcdsaVerifier::new(key)?)),
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

    /// Its SignatureType.
    pub fn signature_type(&self) -> u64 {
        self.0.signature_type()
    }

    /// Its SignatureType's name.
    pub fn name(&self) -> &'static str {
        self.0.name()
    }

    /// The public key as a DER SubjectPublicKeyInfo (`None` for DigestSha256).
    pub fn spki_der(&self) -> Option<Vec<u8>> {
        self.0.spki_der()
    }

    /// [`Verifier::verify`] with this key.
    ///
    /// # Errors
    /// As [`Verifier::verify`].
    pub fn verify(
        &self,
        found: u64,
        portion: &[u8],
        signature: &[u8],
    ) -> Result<(), SignatureError> {
        self.0.verify(found, portion, signature)
    }

    /// [`Verifier::verify_data`] with this key.
    ///
    /// # Errors
    /// As [`Verifier::verify`].
    pub fn verify_data(&self, data: &Data) -> Result<(), SignatureError> {
        self.0.verify_data(data)
    }

    /// [`Verifier::verify_interest`] with this key.
    ///
    /// # Errors
    /// As [`Verifier::verify_interest`].
    pub fn verify_interest(&self, interest: &Interest) -> Result<(), SignatureError> {
        self.0.verify_interest(interest)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_each_signature_type_once_as_its_implementations_report_it() {
        let mut codes: Vec<u64> = SIGNATURE_TYPES.iter().map(|e| e.code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), SIGNATURE_TYPES.len());
        let row = |code: u64| SIGNATURE_TYPES.iter().find(|e| e.code == code).unwrap();
        let rsa = RsaSigner::generate(2048).unwrap();
        let ec = EcdsaSigner::generate(256).unwrap();
        let verifiers = [
            VerifyingKey::digest(),
            Signer::verifying_key(&rsa).unwrap(),
            Signer::verifying_key(&ec).unwrap(),
        ];
        let signers: [&dyn Signer; 3] = [&DigestSha256, &rsa, &ec];
        for (s, v) in signers.iter().zip(&verifiers) {
            assert_eq!(s.signature_type(), v.signature_type());
            assert_eq!(row(v.signature_type()).name, v.name());
            // Each verifies its own signature and refuses a changed portion.
            let sig = s.sign(b"portion").unwrap();
            v.verify(s.signature_type(), b"portion", &sig).unwrap();
            assert_eq!(
                v.verify(s.signature_type(), b"portion!", &sig),
                Err(SignatureError::Bad(v.name()))
            );
        }
        assert_eq!(row(ibas::SIGNATURE_TYPE).name, ibas::NAME);
    }

    #[test]
    fn a_key_is_read_by_its_algorithm() {
        let rsa = PKey::from_rsa(openssl::rsa::Rsa::generate(2048).unwrap()).unwrap();
        let key = SigningKey::new(rsa).unwrap();
        assert_eq!(key.signature_type(), signature_type::SHA256_WITH_RSA);
        let spki = key.verifying_key().unwrap().spki_der().unwrap();
        let back = VerifyingKey::from_spki(&spki).unwrap();
        assert_eq!(back.name(), sha256_with_rsa::NAME);
        assert!(VerifyingKey::digest().spki_der().is_none());
    }
}
