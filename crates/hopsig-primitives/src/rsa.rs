//! The RSA trapdoor permutation through OpenSSL.
//!
//! `π(X) = X^e mod N` (the public, easy direction) and `π⁻¹(y) = y^d mod N` (the secret,
//! hard direction) on `Z_N`, computed by OpenSSL's raw RSA without padding. The private
//! operation uses OpenSSL's CRT path with base blinding and constant-time modular
//! exponentiation (`BN_mod_exp_mont_consttime`), so it is safe on secret keys.
//!
//! Elements of `Z_N` travel as big-endian byte strings of exactly `k = ⌈|N|/8⌉` bytes.
//! Keys are standard: secret keys are PKCS #8, public keys SubjectPublicKeyInfo, both in
//! PEM, so `openssl pkey` reads them.
//!
//! **This module is the OpenSSL wrapper, and says so in its API**: [`RsaError::Backend`]
//! holds OpenSSL's error stack and `openssl()` on each key hands out the OpenSSL key,
//! for the schemes that sign with OpenSSL's own RSA padding. The scheme layer
//! (`hopsig-schemes`) wraps these in its opaque `BackendError`, so no OpenSSL type
//! reaches its public API; a second backend would sit beside this module, not in it.

use openssl::bn::BigNum;
use openssl::pkey::{Id, PKey, Private, Public};
use openssl::rsa::{Padding, Rsa};
use zeroize::Zeroizing;

use crate::armor::PEM_COLUMNS;
use crate::hash::{sha256, SHA256_LEN};

/// The public exponent hopsig generates and accepts.
pub const PUBLIC_EXPONENT: u32 = 65_537;

/// Smallest and largest modulus sizes hopsig accepts, in bits.
pub const MODULUS_BITS_RANGE: std::ops::RangeInclusive<u32> = 1024..=8192;

/// What went wrong with an RSA key or operation.
#[derive(Debug, thiserror::Error)]
pub enum RsaError {
    /// The key could not be parsed or is not acceptable.
    #[error("RSA key rejected: {0}")]
    Key(String),
    /// An input to the permutation is not in its domain (wrong length or not below N).
    #[error("input is not an element of Z_N")]
    OutOfDomain,
    /// OpenSSL reported an error.
    #[error("OpenSSL: {0}")]
    Backend(#[from] openssl::error::ErrorStack),
}

/// An RSA public key: the permutation `π`.
#[derive(Clone)]
pub struct RsaPublicKey {
    rsa: Rsa<Public>,
    modulus: Vec<u8>,
    spki_der: Vec<u8>,
    fingerprint: [u8; SHA256_LEN],
}

impl std::fmt::Debug for RsaPublicKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RsaPublicKey")
            .field("modulus_bits", &self.modulus_bits())
            .field("fingerprint", &crate::codec::to_hex(&self.fingerprint[..8]))
            .finish()
    }
}

fn check_public_parts(
    n: &openssl::bn::BigNumRef,
    e: &openssl::bn::BigNumRef,
) -> Result<(), RsaError> {
    let bits = n.num_bits().unsigned_abs();
    if !MODULUS_BITS_RANGE.contains(&bits) {
        return Err(RsaError::Key(format!(
            "modulus has {bits} bits; hopsig accepts {}..={}",
            MODULUS_BITS_RANGE.start(),
            MODULUS_BITS_RANGE.end()
        )));
    }
    if !n.is_bit_set(0) {
        return Err(RsaError::Key("modulus is even".into()));
    }
    if *e != *BigNum::from_u32(PUBLIC_EXPONENT)? {
        return Err(RsaError::Key(format!(
            "public exponent must be {PUBLIC_EXPONENT}"
        )));
    }
    Ok(())
}

impl RsaPublicKey {
    fn from_rsa(rsa: Rsa<Public>) -> Result<Self, RsaError> {
        check_public_parts(rsa.n(), rsa.e())?;
        let k = rsa.size() as usize;
        let modulus = rsa.n().to_vec_padded(k as i32)?;
        let spki_der = PKey::from_rsa(rsa.clone())?.public_key_to_der()?;
        let fingerprint = sha256(&[&spki_der]);
        Ok(RsaPublicKey {
            rsa,
            modulus,
            spki_der,
            fingerprint,
        })
    }

    /// Parses a DER SubjectPublicKeyInfo holding an RSA key.
    ///
    /// # Errors
    /// [`RsaError::Key`] if the bytes are not an RSA SPKI, the modulus is outside
    /// [`MODULUS_BITS_RANGE`] or even, or `e ≠ 65537`; trailing bytes are rejected.
    pub fn from_spki_der(der: &[u8]) -> Result<Self, RsaError> {
        let pkey = PKey::public_key_from_der(der)
            .map_err(|_| RsaError::Key("not a DER SubjectPublicKeyInfo".into()))?;
        let key = Self::from_pkey(&pkey)?;
        if key.spki_der != der {
            return Err(RsaError::Key(
                "SubjectPublicKeyInfo is not in canonical DER".into(),
            ));
        }
        Ok(key)
    }

    /// Parses a PEM `PUBLIC KEY` (SubjectPublicKeyInfo) block holding an RSA key.
    ///
    /// # Errors
    /// As [`RsaPublicKey::from_spki_der`].
    pub fn from_pem(pem: &[u8]) -> Result<Self, RsaError> {
        let pkey = PKey::public_key_from_pem(pem)
            .map_err(|_| RsaError::Key("not a PEM PUBLIC KEY block".into()))?;
        Self::from_pkey(&pkey)
    }

    fn from_pkey(pkey: &PKey<Public>) -> Result<Self, RsaError> {
        if pkey.id() != Id::RSA {
            return Err(RsaError::Key("not an RSA key".into()));
        }
        Self::from_rsa(pkey.rsa()?)
    }

    /// The key as a PEM `PUBLIC KEY` block.
    pub fn to_pem(&self) -> String {
        pem_block("PUBLIC KEY", &self.spki_der).to_string()
    }

    /// DER SubjectPublicKeyInfo.
    pub fn spki_der(&self) -> &[u8] {
        &self.spki_der
    }

    /// SHA-256 of the DER SubjectPublicKeyInfo: the key's fingerprint.
    pub fn fingerprint(&self) -> &[u8; SHA256_LEN] {
        &self.fingerprint
    }

    /// Bit length of the modulus `N`.
    pub fn modulus_bits(&self) -> u32 {
        self.rsa.n().num_bits().unsigned_abs()
    }

    /// `k`, the byte length of elements of `Z_N`.
    pub fn len(&self) -> usize {
        self.modulus.len()
    }

    /// Always false: a modulus has at least [`MODULUS_BITS_RANGE`]'s lower bound of bits.
    pub fn is_empty(&self) -> bool {
        self.modulus.is_empty()
    }

    /// `N`, big-endian, `k` bytes.
    pub fn modulus(&self) -> &[u8] {
        &self.modulus
    }

    /// True if the `k`-byte big-endian `x` is below `N`.
    pub fn in_domain(&self, x: &[u8]) -> bool {
        x.len() == self.modulus.len() && x < self.modulus.as_slice()
    }

    /// The OpenSSL key, for standard signature algorithms (PKCS #1 v1.5).
    pub fn openssl(&self) -> &Rsa<Public> {
        &self.rsa
    }

    /// `π(x) = x^e mod N`, written to `out` (`k` bytes).
    ///
    /// # Errors
    /// [`RsaError::OutOfDomain`] unless `x` and `out` are `k` bytes and `x < N`.
    pub fn apply(&self, x: &[u8], out: &mut [u8]) -> Result<(), RsaError> {
        if !self.in_domain(x) || out.len() != self.len() {
            return Err(RsaError::OutOfDomain);
        }
        let written = self.rsa.public_encrypt(x, out, Padding::NONE)?;
        if written != out.len() {
            return Err(RsaError::OutOfDomain);
        }
        Ok(())
    }
}

impl PartialEq for RsaPublicKey {
    /// Keys are equal when their DER SubjectPublicKeyInfo are.
    fn eq(&self, other: &Self) -> bool {
        self.spki_der() == other.spki_der()
    }
}
impl Eq for RsaPublicKey {}

/// An RSA secret key: the inverse permutation `π⁻¹`. OpenSSL clears the private
/// components when the key is freed (`BN_clear_free`); `Debug` prints no secret.
pub struct RsaSecretKey {
    rsa: Rsa<Private>,
    public: RsaPublicKey,
}

impl std::fmt::Debug for RsaSecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RsaSecretKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl RsaSecretKey {
    /// Generates a key with a `bits`-bit modulus and `e = 65537` from OpenSSL's CSPRNG.
    ///
    /// # Errors
    /// [`RsaError::Key`] if `bits` is outside [`MODULUS_BITS_RANGE`]; backend failures.
    pub fn generate(bits: u32) -> Result<Self, RsaError> {
        if !MODULUS_BITS_RANGE.contains(&bits) {
            return Err(RsaError::Key(format!(
                "cannot generate a {bits}-bit modulus"
            )));
        }
        let e = BigNum::from_u32(PUBLIC_EXPONENT)?;
        Self::from_rsa(Rsa::generate_with_e(bits, &e)?)
    }

    fn from_rsa(rsa: Rsa<Private>) -> Result<Self, RsaError> {
        check_public_parts(rsa.n(), rsa.e())?;
        if !rsa.check_key().unwrap_or(false) {
            return Err(RsaError::Key(
                "inconsistent private key (RSA_check_key failed)".into(),
            ));
        }
        if rsa.p().is_none() || rsa.dmp1().is_none() {
            return Err(RsaError::Key("private key lacks the CRT components".into()));
        }
        let public = RsaPublicKey::from_rsa(Rsa::from_public_components(
            rsa.n().to_owned()?,
            rsa.e().to_owned()?,
        )?)?;
        Ok(RsaSecretKey { rsa, public })
    }

    /// Parses a PEM `PRIVATE KEY` (PKCS #8) block holding an RSA key, and checks it
    /// with `RSA_check_key`.
    ///
    /// # Errors
    /// [`RsaError::Key`] if the text is not an RSA PKCS #8 key or the key is
    /// inconsistent or unacceptable (see [`RsaPublicKey::from_spki_der`]).
    pub fn from_pkcs8_pem(pem: &[u8]) -> Result<Self, RsaError> {
        let pkey = PKey::private_key_from_pem(pem)
            .map_err(|_| RsaError::Key("not a PEM PRIVATE KEY block".into()))?;
        Self::from_pkey(&pkey)
    }

    /// Parses an unencrypted PKCS #8 `PrivateKeyInfo` in DER holding an RSA key (the
    /// contents of a key file's `PRIVATE KEY` block, read without re-encoding them as
    /// PEM), and checks it as [`RsaSecretKey::from_pkcs8_pem`] does.
    ///
    /// # Errors
    /// As [`RsaSecretKey::from_pkcs8_pem`].
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, RsaError> {
        let pkey = PKey::private_key_from_pkcs8(der)
            .map_err(|_| RsaError::Key("not a DER PKCS #8 private key".into()))?;
        Self::from_pkey(&pkey)
    }

    fn from_pkey(pkey: &PKey<Private>) -> Result<Self, RsaError> {
        if pkey.id() != Id::RSA {
            return Err(RsaError::Key("not an RSA key".into()));
        }
        Self::from_rsa(pkey.rsa()?)
    }

    /// The key as a PEM `PRIVATE KEY` (unencrypted PKCS #8) block.
    ///
    /// # Errors
    /// Backend failures.
    pub fn to_pkcs8_pem(&self) -> Result<Zeroizing<String>, RsaError> {
        let der = Zeroizing::new(PKey::from_rsa(self.rsa.clone())?.private_key_to_pkcs8()?);
        Ok(pem_block("PRIVATE KEY", &der))
    }

    /// The public key.
    pub fn public(&self) -> &RsaPublicKey {
        &self.public
    }

    /// The OpenSSL key, for standard signature algorithms (PKCS #1 v1.5).
    pub fn openssl(&self) -> &Rsa<Private> {
        &self.rsa
    }

    /// `π⁻¹(y) = y^d mod N` (CRT, blinded, constant-time), written to `out` (`k` bytes).
    ///
    /// # Errors
    /// [`RsaError::OutOfDomain`] unless `y` and `out` are `k` bytes and `y < N`.
    pub fn invert(&self, y: &[u8], out: &mut [u8]) -> Result<(), RsaError> {
        if !self.public.in_domain(y) || out.len() != self.public.len() {
            return Err(RsaError::OutOfDomain);
        }
        let written = self.rsa.private_encrypt(y, out, Padding::NONE)?;
        if written != out.len() {
            return Err(RsaError::OutOfDomain);
        }
        Ok(())
    }
}

/// PEM-encodes `der` under `label` with 64-column base64 lines (RFC 7468), in a
/// buffer that zeroizes on drop: key files carry secret keys through here. The text is
/// written into one allocation of its exact final length, so no reallocation leaves a
/// partial copy behind, and the base64 text OpenSSL returns (one allocation of its own
/// size) is zeroized too.
pub fn pem_block(label: &str, der: &[u8]) -> Zeroizing<String> {
    let b64 = Zeroizing::new(openssl::base64::encode_block(der));
    let boundary = |out: &mut String, which: &str| {
        for part in ["-----", which, label, "-----\n"] {
            out.push_str(part);
        }
    };
    let boundaries = "-----BEGIN -----\n".len() + "-----END -----\n".len() + 2 * label.len();
    let newlines = b64.len().div_ceil(PEM_COLUMNS);
    let mut out = Zeroizing::new(String::with_capacity(boundaries + b64.len() + newlines));
    boundary(&mut out, "BEGIN ");
    for line in b64.as_bytes().chunks(PEM_COLUMNS) {
        // Base64 is ASCII: every chunk is UTF-8.
        out.push_str(std::str::from_utf8(line).unwrap_or_default());
        out.push('\n');
    }
    boundary(&mut out, "END ");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutation_round_trips_and_rejects_out_of_domain_inputs() -> Result<(), RsaError> {
        let sk = RsaSecretKey::generate(1024)?;
        let pk = sk.public().clone();
        let k = pk.len();
        let mut y = vec![0u8; k];
        y[1..].fill(0xa5);
        let mut x = vec![0u8; k];
        sk.invert(&y, &mut x)?;
        let mut back = vec![0u8; k];
        pk.apply(&x, &mut back)?;
        assert_eq!(back, y);

        let n = pk.modulus().to_vec();
        assert!(matches!(
            pk.apply(&n, &mut back),
            Err(RsaError::OutOfDomain)
        ));
        assert!(matches!(
            sk.invert(&n, &mut back),
            Err(RsaError::OutOfDomain)
        ));
        assert!(matches!(
            pk.apply(&n[1..], &mut back),
            Err(RsaError::OutOfDomain)
        ));
        Ok(())
    }

    #[test]
    fn keys_survive_pem_and_spki_round_trips() -> Result<(), RsaError> {
        let sk = RsaSecretKey::generate(1024)?;
        let again = RsaSecretKey::from_pkcs8_pem(sk.to_pkcs8_pem()?.as_bytes())?;
        assert_eq!(again.public().spki_der(), sk.public().spki_der());
        let der = PKey::from_rsa(sk.openssl().clone())?.private_key_to_pkcs8()?;
        let from_der = RsaSecretKey::from_pkcs8_der(&der)?;
        assert_eq!(from_der.public().spki_der(), sk.public().spki_der());
        // PKCS #8 only: the PKCS #1 RSAPrivateKey of the same key is refused.
        let pkcs1 = sk.openssl().private_key_to_der()?;
        assert!(matches!(
            RsaSecretKey::from_pkcs8_der(&pkcs1),
            Err(RsaError::Key(_))
        ));
        let pk = RsaPublicKey::from_pem(sk.public().to_pem().as_bytes())?;
        assert_eq!(pk.fingerprint(), sk.public().fingerprint());
        let mut der = pk.spki_der().to_vec();
        assert!(RsaPublicKey::from_spki_der(&der).is_ok());
        der.push(0);
        assert!(RsaPublicKey::from_spki_der(&der).is_err());
        Ok(())
    }

    #[test]
    fn pem_blocks_are_built_in_one_allocation_of_their_exact_length() -> Result<(), RsaError> {
        // OpenSSL's own PEM writer is the reference for the text.
        let sk = RsaSecretKey::generate(1024)?;
        let pkey = PKey::from_rsa(sk.openssl().clone())?;
        let der = pkey.private_key_to_pkcs8()?;
        let pem = pem_block("PRIVATE KEY", &der);
        assert_eq!(pem.as_bytes(), pkey.private_key_to_pem_pkcs8()?.as_slice());
        // Every length, every last-line width: the capacity computed first is the final
        // length, so the buffer never grew (a reallocation would leave a copy).
        for len in 0..=200 {
            let der: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let pem = pem_block("HOPSIG TEST", &der);
            assert_eq!(pem.capacity(), pem.len(), "{len} bytes");
            let b64 = openssl::base64::encode_block(&der);
            let body: String = b64
                .as_bytes()
                .chunks(64)
                .map(|l| format!("{}\n", String::from_utf8_lossy(l)))
                .collect();
            let want = format!("-----BEGIN HOPSIG TEST-----\n{body}-----END HOPSIG TEST-----\n");
            assert_eq!(*pem, want, "{len} bytes");
        }
        Ok(())
    }

    #[test]
    fn rejects_other_exponents() -> Result<(), RsaError> {
        let e3 = BigNum::from_u32(3)?;
        let rsa = Rsa::generate_with_e(1024, &e3)?;
        let pem = PKey::from_rsa(rsa)?.public_key_to_pem()?;
        assert!(matches!(
            RsaPublicKey::from_pem(&pem),
            Err(RsaError::Key(_))
        ));
        Ok(())
    }
}
