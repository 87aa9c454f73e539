//! **Hazardous materials: these break security if misused.** Behind the cargo feature
//! `hazmat`, off by default; only this crate's tests enable it (as hopsig-schemes'
//! `hazmat` module, names start with `danger_`).
//!
//! [`danger_suite1_with_nonce`] is algorithm suite 1 signing with a nonce k the caller
//! chooses, to re-create the signatures of RFC 8608 Appendix A, which were made with
//! one fixed k ("the ECDSA algorithm was provided with a static k to make the result
//! deterministic", A.2). ECDSA with a known k, or one k for two messages, gives away the
//! private key. Production signing ([`crate::suite::ECDSA_P256_SHA256`]) draws k inside
//! OpenSSL.

use hopsig_primitives::hash::sha256;
use openssl::bn::{BigNum, BigNumContext};
use openssl::ec::{EcKey, EcPoint};
use openssl::ecdsa::EcdsaSig;
use openssl::pkey::Private;
use zeroize::Zeroizing;

use crate::packet::{SecurePathSegment, SignatureBlock};
use crate::router_key::KeyLookup;
use crate::sign::SignError;
use crate::signature_input::SignatureInput;
use crate::suite::per_segment::sign_segment;
use crate::suite::{
    AlgorithmSuite, BlockFault, KeyError, SigningKey, VerifyingKey, ECDSA_P256_SHA256,
};

/// Suite 1 whose signing uses the nonce `k` (32 octets, big-endian) for every signature;
/// everything else is [`ECDSA_P256_SHA256`]'s. Use it only to reproduce known-answer
/// vectors.
pub fn danger_suite1_with_nonce(k: [u8; 32]) -> impl AlgorithmSuite {
    FixedNonce {
        k: Zeroizing::new(k),
    }
}

struct FixedNonce {
    k: Zeroizing<[u8; 32]>,
}

impl FixedNonce {
    /// ECDSA signing of SEC 1 §4.1.3 with this k: R = k·G, r = x(R) mod n,
    /// s = k⁻¹ (e + r·d) mod n, e the SHA-256 digest (256 bits: no truncation for P-256).
    fn sign_with_nonce(&self, key: &EcKey<Private>, input: &[u8]) -> Result<Vec<u8>, SignError> {
        let backend = |e: openssl::error::ErrorStack| {
            SignError::Scheme(hopsig_schemes::BackendError::new("OpenSSL", e).into())
        };
        let group = key.group();
        let mut ctx = BigNumContext::new_secure().map_err(backend)?;
        let mut n = BigNum::new().map_err(backend)?;
        group.order(&mut n, &mut ctx).map_err(backend)?;
        let k = BigNum::from_slice(&self.k[..]).map_err(backend)?;
        let mut point = EcPoint::new(group).map_err(backend)?;
        point.mul_generator2(group, &k, &mut ctx).map_err(backend)?;
        let (mut x, mut y) = (
            BigNum::new().map_err(backend)?,
            BigNum::new().map_err(backend)?,
        );
        point
            .affine_coordinates(group, &mut x, &mut y, &mut ctx)
            .map_err(backend)?;
        let mut r = BigNum::new().map_err(backend)?;
        r.nnmod(&x, &n, &mut ctx).map_err(backend)?;
        let e = BigNum::from_slice(&sha256(&[input])).map_err(backend)?;
        let mut rd = BigNum::new().map_err(backend)?;
        rd.mod_mul(&r, key.private_key(), &n, &mut ctx)
            .map_err(backend)?;
        let mut sum = BigNum::new().map_err(backend)?;
        sum.mod_add(&e, &rd, &n, &mut ctx).map_err(backend)?;
        let mut k_inv = BigNum::new().map_err(backend)?;
        k_inv.mod_inverse(&k, &n, &mut ctx).map_err(backend)?;
        let mut s = BigNum::new().map_err(backend)?;
        s.mod_mul(&k_inv, &sum, &n, &mut ctx).map_err(backend)?;
        if r.num_bits() == 0 || s.num_bits() == 0 {
            return Err(SignError::Scheme(hopsig_schemes::Error::Key(
                "r or s is 0 for this k: choose another".into(),
            )));
        }
        EcdsaSig::from_private_components(r, s)
            .and_then(|sig| sig.to_der())
            .map_err(backend)
    }
}

impl AlgorithmSuite for FixedNonce {
    fn id(&self) -> u8 {
        ECDSA_P256_SHA256.id()
    }

    fn name(&self) -> &'static str {
        "danger-ecdsa-p256-sha256-fixed-k"
    }

    fn generate(&self) -> Result<SigningKey, KeyError> {
        ECDSA_P256_SHA256.generate()
    }

    fn signing_key_from_pkcs8(&self, der: &[u8]) -> Result<SigningKey, KeyError> {
        ECDSA_P256_SHA256.signing_key_from_pkcs8(der)
    }

    fn secret_key_file(&self, key: &SigningKey) -> Result<zeroize::Zeroizing<String>, KeyError> {
        ECDSA_P256_SHA256.secret_key_file(key)
    }

    fn signing_key_from_file(&self, text: &[u8]) -> Result<SigningKey, KeyError> {
        ECDSA_P256_SHA256.signing_key_from_file(text)
    }

    fn verifying_key_from_spki(&self, spki: &[u8]) -> Result<VerifyingKey, KeyError> {
        ECDSA_P256_SHA256.verifying_key_from_spki(spki)
    }

    fn sign(
        &self,
        key: &SigningKey,
        input: &[u8],
        block: &mut SignatureBlock<'_>,
    ) -> Result<(), SignError> {
        sign_segment(self.id(), key, block, |secret: &EcKey<Private>| {
            self.sign_with_nonce(secret, input)
        })
    }

    fn validate(
        &self,
        block: &SignatureBlock<'_>,
        secure_path: &[SecurePathSegment],
        input: &SignatureInput,
        keys: &dyn KeyLookup,
    ) -> Result<(), BlockFault> {
        ECDSA_P256_SHA256.validate(block, secure_path, input, keys)
    }
}
