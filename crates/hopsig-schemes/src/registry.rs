//! Every scheme by its stable id, behind one object-safe interface.
//!
//! [`Scheme`] is implemented for every [`SequentialAggregate`], so the CLI, the
//! benchmarks and (later) the protocol layer treat an algorithm suite as a table entry:
//! [`lookup`] by id, [`for_aggregate`] by an aggregate's header, [`for_key_file`] by a
//! key file's `scheme` header.

use std::any::Any;

use hopsig_primitives::armor::{KeyFile, KeyKind};
use zeroize::Zeroizing;

use crate::bgr::{Bgr, BgrParams};
use crate::bls::{self, Bgls};
use crate::concat::{Concat, EcdsaK163, EcdsaK233, EcdsaK283, EcdsaP256, Rsa2048Pkcs1};
use crate::wire::{code, Header};
use crate::{Aggregate, Error, SequentialAggregate, SigningKey, VerifyingKey};

/// A signing key of some scheme.
pub trait DynSigningKey: Send + Sync {
    /// Id of its scheme.
    fn scheme_id(&self) -> String;
    /// The key as a key file.
    ///
    /// # Errors
    /// Backend failures.
    fn to_key_file(&self) -> Result<Zeroizing<String>, Error>;
    /// The public half.
    fn verifying_key(&self) -> Box<dyn DynVerifyingKey>;
    /// For downcasting to the scheme's key type.
    fn as_any(&self) -> &dyn Any;
}

/// A verifying key of some scheme.
pub trait DynVerifyingKey: Send + Sync {
    /// Id of its scheme.
    fn scheme_id(&self) -> String;
    /// The key as a key file.
    fn to_key_file(&self) -> String;
    /// For downcasting to the scheme's key type.
    fn as_any(&self) -> &dyn Any;
}

impl<K: SigningKey> DynSigningKey for K {
    fn scheme_id(&self) -> String {
        SigningKey::scheme_id(self)
    }
    fn to_key_file(&self) -> Result<Zeroizing<String>, Error> {
        SigningKey::to_key_file(self)
    }
    fn verifying_key(&self) -> Box<dyn DynVerifyingKey> {
        Box::new(SigningKey::verifying_key(self))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl<K: VerifyingKey> DynVerifyingKey for K {
    fn scheme_id(&self) -> String {
        VerifyingKey::scheme_id(self)
    }
    fn to_key_file(&self) -> String {
        VerifyingKey::to_key_file(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// What an aggregate holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AggregateInfo {
    /// Scheme id.
    pub scheme: String,
    /// Number of signers.
    pub signers: usize,
    /// Length of the encoding, header included.
    pub encoded_bytes: usize,
    /// Signature content in bits, header excluded.
    pub signature_bits: u64,
}

/// Object-safe view of a [`SequentialAggregate`] scheme working on encoded aggregates.
pub trait Scheme: Send + Sync {
    /// Stable id.
    fn id(&self) -> String;
    /// One-line description.
    fn description(&self) -> String;
    /// Generates a key pair.
    ///
    /// # Errors
    /// Backend failures.
    fn generate(&self) -> Result<Box<dyn DynSigningKey>, Error>;
    /// Reads a secret key file of this scheme.
    ///
    /// # Errors
    /// Malformed file or key; a file of another scheme or a public key file.
    fn signing_key_from_file(&self, text: &[u8]) -> Result<Box<dyn DynSigningKey>, Error>;
    /// Reads a public key file of this scheme.
    ///
    /// # Errors
    /// Malformed file or key; a file of another scheme or a secret key file.
    fn verifying_key_from_file(&self, text: &[u8]) -> Result<Box<dyn DynVerifyingKey>, Error>;
    /// One hop of signing on encoded aggregates (see [`SequentialAggregate::sign`]).
    ///
    /// # Errors
    /// A key of another scheme, a malformed `so_far`, a full aggregate.
    fn sign(
        &self,
        key: &dyn DynSigningKey,
        msg: &[u8],
        so_far: Option<&[u8]>,
    ) -> Result<Vec<u8>, Error>;
    /// Verification on an encoded aggregate (see [`SequentialAggregate::verify`]).
    ///
    /// # Errors
    /// [`Error::InvalidSignature`] if it does not verify; decode and mismatch errors.
    fn verify(
        &self,
        keys: &[&dyn DynVerifyingKey],
        msgs: &[&[u8]],
        agg: &[u8],
    ) -> Result<(), Error>;
    /// Decodes an aggregate and says what it holds.
    ///
    /// # Errors
    /// Decode errors.
    fn inspect(&self, agg: &[u8]) -> Result<AggregateInfo, Error>;
}

fn read_key_file(text: &[u8], scheme: &str, kind: KeyKind) -> Result<KeyFile, Error> {
    let file = KeyFile::parse(text)?;
    if file.scheme != scheme {
        return Err(Error::Mismatch(format!(
            "key file is for scheme '{}', not '{scheme}'",
            file.scheme
        )));
    }
    if file.kind != kind {
        return Err(Error::Mismatch(format!(
            "this is a {} key file; a {} key is needed here",
            file.kind.as_str(),
            kind.as_str()
        )));
    }
    Ok(file)
}

fn downcast<'a, T: 'static>(any: &'a dyn Any, found: String, scheme: &str) -> Result<&'a T, Error> {
    match any.downcast_ref::<T>() {
        Some(k) if found == scheme => Ok(k),
        _ => Err(Error::Mismatch(format!(
            "key is for scheme '{found}', not '{scheme}'"
        ))),
    }
}

impl<S: SequentialAggregate> Scheme for S {
    fn id(&self) -> String {
        SequentialAggregate::id(self)
    }
    fn description(&self) -> String {
        SequentialAggregate::description(self)
    }
    fn generate(&self) -> Result<Box<dyn DynSigningKey>, Error> {
        Ok(Box::new(SequentialAggregate::generate(self)?))
    }
    fn signing_key_from_file(&self, text: &[u8]) -> Result<Box<dyn DynSigningKey>, Error> {
        let file = read_key_file(text, &Scheme::id(self), KeyKind::Secret)?;
        Ok(Box::new(SequentialAggregate::signing_key_from_file(
            self, &file,
        )?))
    }
    fn verifying_key_from_file(&self, text: &[u8]) -> Result<Box<dyn DynVerifyingKey>, Error> {
        let file = read_key_file(text, &Scheme::id(self), KeyKind::Public)?;
        Ok(Box::new(SequentialAggregate::verifying_key_from_file(
            self, &file,
        )?))
    }
    fn sign(
        &self,
        key: &dyn DynSigningKey,
        msg: &[u8],
        so_far: Option<&[u8]>,
    ) -> Result<Vec<u8>, Error> {
        let key = downcast::<S::SigningKey>(key.as_any(), key.scheme_id(), &Scheme::id(self))?;
        let so_far = so_far.map(|b| self.aggregate_from_bytes(b)).transpose()?;
        Ok(SequentialAggregate::sign(self, key, msg, so_far.as_ref())?.to_bytes())
    }
    fn verify(
        &self,
        keys: &[&dyn DynVerifyingKey],
        msgs: &[&[u8]],
        agg: &[u8],
    ) -> Result<(), Error> {
        if keys.len() != msgs.len() {
            return Err(Error::Mismatch(format!(
                "{} keys but {} messages",
                keys.len(),
                msgs.len()
            )));
        }
        let id = Scheme::id(self);
        let typed = keys
            .iter()
            .map(|k| downcast::<S::VerifyingKey>(k.as_any(), k.scheme_id(), &id))
            .collect::<Result<Vec<_>, _>>()?;
        let pairs: Vec<(&S::VerifyingKey, &[u8])> =
            typed.into_iter().zip(msgs.iter().copied()).collect();
        let agg = self.aggregate_from_bytes(agg)?;
        SequentialAggregate::verify(self, &pairs, &agg)
    }
    fn inspect(&self, agg: &[u8]) -> Result<AggregateInfo, Error> {
        let decoded = self.aggregate_from_bytes(agg)?;
        Ok(AggregateInfo {
            scheme: Scheme::id(self),
            signers: decoded.signers(),
            encoded_bytes: agg.len(),
            signature_bits: decoded.signature_bits(),
        })
    }
}

/// All schemes with their default parameters, in the order `hopsig schemes` lists them.
pub fn schemes() -> Vec<Box<dyn Scheme>> {
    vec![
        Box::new(Bgr::new(BgrParams::PRF_RSA2048)),
        Box::new(Bgr::new(BgrParams::PRF_RSA3072)),
        Box::new(Bgr::new(BgrParams::RAND_RSA2048)),
        Box::new(Bgr::new(BgrParams::RAND_RSA3072)),
        Box::new(Concat::<Rsa2048Pkcs1>::new()),
        Box::new(Concat::<EcdsaP256>::new()),
        Box::new(Bgls),
        Box::new(Concat::<EcdsaK163>::new()),
        Box::new(Concat::<EcdsaK233>::new()),
        Box::new(Concat::<EcdsaK283>::new()),
    ]
}

/// The scheme with this id. Besides the listed ids, `bgr-rand-rsa2048-rBITS` and
/// `bgr-rand-rsa3072-rBITS` select BGR's basic scheme with ℓ_r = BITS.
///
/// # Errors
/// [`Error::UnknownScheme`].
pub fn lookup(id: &str) -> Result<Box<dyn Scheme>, Error> {
    if let Some(params) = BgrParams::from_id(id) {
        return Ok(Box::new(Bgr::new(params)));
    }
    match id {
        "rsa2048-concat" => Ok(Box::new(Concat::<Rsa2048Pkcs1>::new())),
        "ecdsa-p256-concat" => Ok(Box::new(Concat::<EcdsaP256>::new())),
        bls::ID => Ok(Box::new(Bgls)),
        "ecdsa-k163" => Ok(Box::new(Concat::<EcdsaK163>::new())),
        "ecdsa-k233" => Ok(Box::new(Concat::<EcdsaK233>::new())),
        "ecdsa-k283" => Ok(Box::new(Concat::<EcdsaK283>::new())),
        _ => Err(Error::UnknownScheme(id.to_string())),
    }
}

/// The scheme named by an aggregate's header.
///
/// # Errors
/// A malformed header; an unknown scheme code or parameter.
pub fn for_aggregate(bytes: &[u8]) -> Result<Box<dyn Scheme>, Error> {
    let h = Header::peek(bytes)?;
    if let Some(params) = BgrParams::from_code(h.code, h.param) {
        return Ok(Box::new(Bgr::new(params)));
    }
    match (h.code, h.param) {
        (code::RSA2048_CONCAT, 0) => Ok(Box::new(Concat::<Rsa2048Pkcs1>::new())),
        (code::ECDSA_P256_CONCAT, 0) => Ok(Box::new(Concat::<EcdsaP256>::new())),
        (code::BLS12381_BGLS, 0) => Ok(Box::new(Bgls)),
        (code::ECDSA_K163, 0) => Ok(Box::new(Concat::<EcdsaK163>::new())),
        (code::ECDSA_K233, 0) => Ok(Box::new(Concat::<EcdsaK233>::new())),
        (code::ECDSA_K283, 0) => Ok(Box::new(Concat::<EcdsaK283>::new())),
        (c, p) => Err(Error::UnknownScheme(format!(
            "code 0x{c:02x} with parameter {p}"
        ))),
    }
}

/// The scheme and kind named by a key file's headers.
///
/// # Errors
/// A malformed key file; an unknown scheme.
pub fn for_key_file(text: &[u8]) -> Result<(Box<dyn Scheme>, KeyKind), Error> {
    let file = KeyFile::parse(text)?;
    Ok((lookup(&file.scheme)?, file.kind))
}
