//! BGR keys: an RSA key pair (the trapdoor permutation π_i), plus the PRF seed for the
//! input-dependent variant (§5.1: "Add a uniformly chosen seed to the secret key").

use hopsig_primitives::armor::{KeyFile, KeyKind};
use hopsig_primitives::rsa::{pem_block, RsaPublicKey, RsaSecretKey};
use zeroize::Zeroizing;

use super::params::{BgrParams, Randomness};
use crate::error::OpensslResult;
use crate::{Error, SigningKey, VerifyingKey};

/// PEM label of the PRF seed block in secret key files.
pub const SEED_LABEL: &str = "HOPSIG BGR PRF SEED";
/// PRF seed length in bytes.
pub const SEED_LEN: usize = 32;

/// A BGR secret key: π⁻¹ and, for the input-dependent variant, the PRF seed.
pub struct BgrSigningKey {
    pub(super) params: BgrParams,
    pub(super) rsa: RsaSecretKey,
    pub(super) seed: Option<Zeroizing<[u8; SEED_LEN]>>,
    pub(super) public: BgrVerifyingKey,
}

impl std::fmt::Debug for BgrSigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BgrSigningKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

/// A BGR public key: the permutation π_i.
#[derive(Debug, Clone)]
pub struct BgrVerifyingKey {
    pub(super) params: BgrParams,
    pub(super) rsa: RsaPublicKey,
}

fn check_modulus(params: &BgrParams, bits: u32) -> Result<(), Error> {
    if bits != params.modulus_bits() {
        return Err(Error::Key(format!(
            "{} needs an RSA-{} key, this one has a {bits}-bit modulus",
            params.id(),
            params.modulus_bits()
        )));
    }
    Ok(())
}

impl BgrSigningKey {
    /// Builds a key from its parts.
    ///
    /// # Errors
    /// [`Error::Key`] if the modulus size does not match `params`, or a seed is given
    /// for the random-r variant / missing for the input-dependent one.
    pub fn from_parts(
        params: BgrParams,
        rsa: RsaSecretKey,
        seed: Option<[u8; SEED_LEN]>,
    ) -> Result<Self, Error> {
        check_modulus(&params, rsa.public().modulus_bits())?;
        match (params.randomness(), seed.is_some()) {
            (Randomness::InputDependent, false) => {
                return Err(Error::Key("input-dependent BGR needs a PRF seed".into()))
            }
            (Randomness::Random { .. }, true) => {
                return Err(Error::Key("random-r BGR keys carry no PRF seed".into()))
            }
            _ => {}
        }
        let public = BgrVerifyingKey {
            params,
            rsa: rsa.public().clone(),
        };
        Ok(BgrSigningKey {
            params,
            rsa,
            seed: seed.map(Zeroizing::new),
            public,
        })
    }

    pub(super) fn generate(params: BgrParams) -> Result<Self, Error> {
        let rsa = RsaSecretKey::generate(params.modulus_bits())?;
        let seed = match params.randomness() {
            Randomness::InputDependent => {
                let mut s = Zeroizing::new([0u8; SEED_LEN]);
                openssl::rand::rand_priv_bytes(s.as_mut()).backend()?;
                Some(*s)
            }
            Randomness::Random { .. } => None,
        };
        Self::from_parts(params, rsa, seed)
    }

    pub(super) fn from_file(params: BgrParams, file: &KeyFile) -> Result<Self, Error> {
        let rsa = RsaSecretKey::from_pkcs8_der(&file.block("PRIVATE KEY")?.der)?;
        let expected_blocks = match params.randomness() {
            Randomness::InputDependent => 2,
            Randomness::Random { .. } => 1,
        };
        if file.blocks.len() != expected_blocks {
            return Err(Error::Key(format!(
                "{} secret key files hold {expected_blocks} PEM block(s), this one {}",
                params.id(),
                file.blocks.len()
            )));
        }
        let seed = match params.randomness() {
            Randomness::InputDependent => {
                let block = file.block(SEED_LABEL)?;
                let seed: [u8; SEED_LEN] = block.der.as_slice().try_into().map_err(|_| {
                    Error::Key(format!(
                        "PRF seed must be {SEED_LEN} bytes, found {}",
                        block.der.len()
                    ))
                })?;
                Some(seed)
            }
            Randomness::Random { .. } => None,
        };
        Self::from_parts(params, rsa, seed)
    }

    /// The RSA secret key (π⁻¹).
    pub fn rsa(&self) -> &RsaSecretKey {
        &self.rsa
    }
}

impl SigningKey for BgrSigningKey {
    type VerifyingKey = BgrVerifyingKey;
    fn scheme_id(&self) -> &'static str {
        self.params.id()
    }
    fn verifying_key(&self) -> BgrVerifyingKey {
        self.public.clone()
    }
    fn to_key_file(&self) -> Result<Zeroizing<String>, Error> {
        let key_pem = self.rsa.to_pkcs8_pem()?;
        let seed_pem = self
            .seed
            .as_ref()
            .map(|s| pem_block(SEED_LABEL, s.as_ref()));
        let mut blocks: Vec<&str> = vec![key_pem.as_str()];
        if let Some(s) = &seed_pem {
            blocks.push(s.as_str());
        }
        Ok(KeyFile::render(self.params.id(), KeyKind::Secret, &blocks))
    }
}

impl BgrVerifyingKey {
    /// Wraps an RSA public key.
    ///
    /// # Errors
    /// [`Error::Key`] if the modulus size does not match `params`.
    pub fn new(params: BgrParams, rsa: RsaPublicKey) -> Result<Self, Error> {
        check_modulus(&params, rsa.modulus_bits())?;
        Ok(BgrVerifyingKey { params, rsa })
    }

    pub(super) fn from_file(params: BgrParams, file: &KeyFile) -> Result<Self, Error> {
        if file.blocks.len() != 1 {
            return Err(Error::Key(format!(
                "public key files hold 1 PEM block, this one {}",
                file.blocks.len()
            )));
        }
        let block = file.block("PUBLIC KEY")?;
        Self::new(params, RsaPublicKey::from_spki_der(&block.der)?)
    }

    /// The RSA public key (π).
    pub fn rsa(&self) -> &RsaPublicKey {
        &self.rsa
    }
}

impl VerifyingKey for BgrVerifyingKey {
    fn scheme_id(&self) -> &'static str {
        self.params.id()
    }
    fn to_key_file(&self) -> String {
        KeyFile::render(self.params.id(), KeyKind::Public, &[&self.rsa.to_pem()]).to_string()
    }
}
