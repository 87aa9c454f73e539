//! RSA-2048 signatures, RSASSA-PKCS1-v1_5 with SHA-256 (RFC 8017 §8.2), the RPKI's
//! algorithm (RFC 7935) and BGR Table 1's "2048-bit RSA" column.

use hopsig_primitives::codec::{DecodeError, Reader};
use hopsig_primitives::rsa::{RsaPublicKey, RsaSecretKey};
use openssl::hash::MessageDigest;
use openssl::pkey::{PKey, Private, Public};
use openssl::sign::{Signer, Verifier};
use zeroize::Zeroizing;

use super::BaseSignature;
use crate::error::OpensslResult;
use crate::wire::SchemeCode;
use crate::Error;

const BITS: u32 = 2048;

/// RSA-2048 PKCS #1 v1.5 with SHA-256.
pub struct Rsa2048Pkcs1;

/// Secret key: the checked RSA key and its OpenSSL handle for EVP signing.
pub struct RsaSk {
    rsa: RsaSecretKey,
    pkey: PKey<Private>,
}

/// Public key.
#[derive(Clone)]
pub struct RsaPk {
    rsa: RsaPublicKey,
    pkey: PKey<Public>,
}

fn wrap_secret(rsa: RsaSecretKey) -> Result<RsaSk, Error> {
    if rsa.public().modulus_bits() != BITS {
        return Err(Error::Key(format!(
            "rsa2048-concat needs a 2048-bit modulus, not {}",
            rsa.public().modulus_bits()
        )));
    }
    let pkey = PKey::from_rsa(rsa.openssl().clone()).backend()?;
    Ok(RsaSk { rsa, pkey })
}

fn wrap_public(rsa: RsaPublicKey) -> Result<RsaPk, Error> {
    if rsa.modulus_bits() != BITS {
        return Err(Error::Key(format!(
            "rsa2048-concat needs a 2048-bit modulus, not {}",
            rsa.modulus_bits()
        )));
    }
    let pkey = PKey::from_rsa(rsa.openssl().clone()).backend()?;
    Ok(RsaPk { rsa, pkey })
}

impl BaseSignature for Rsa2048Pkcs1 {
    const ID: &'static str = "rsa2048-concat";
    const DESCRIPTION: &'static str =
        "n independent RSA-2048 PKCS#1 v1.5 SHA-256 signatures; 2048n bits";
    const CODE: SchemeCode = SchemeCode::Rsa2048Concat;
    type SecretKey = RsaSk;
    type PublicKey = RsaPk;

    fn generate() -> Result<RsaSk, Error> {
        wrap_secret(RsaSecretKey::generate(BITS)?)
    }
    fn public(sk: &RsaSk) -> Result<RsaPk, Error> {
        wrap_public(sk.rsa.public().clone())
    }
    fn sign(sk: &RsaSk, msg: &[u8]) -> Result<Vec<u8>, Error> {
        let mut s = Signer::new(MessageDigest::sha256(), &sk.pkey).backend()?;
        s.sign_oneshot_to_vec(msg).backend()
    }
    fn verify(pk: &RsaPk, msg: &[u8], sig: &[u8]) -> bool {
        Verifier::new(MessageDigest::sha256(), &pk.pkey)
            .and_then(|mut v| v.verify_oneshot(sig, msg))
            .unwrap_or(false)
    }
    fn read_signature(r: &mut Reader<'_>) -> Result<Vec<u8>, DecodeError> {
        Ok(r.take((BITS / 8) as usize, "RSA signature")?.to_vec())
    }
    fn secret_to_pem(sk: &RsaSk) -> Result<Zeroizing<String>, Error> {
        Ok(sk.rsa.to_pkcs8_pem()?)
    }
    fn secret_from_der(der: &[u8]) -> Result<RsaSk, Error> {
        wrap_secret(RsaSecretKey::from_pkcs8_der(der)?)
    }
    fn public_to_pem(pk: &RsaPk) -> String {
        pk.rsa.to_pem()
    }
    fn public_from_der(der: &[u8]) -> Result<RsaPk, Error> {
        wrap_public(RsaPublicKey::from_spki_der(der)?)
    }
}
