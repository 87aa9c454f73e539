//! The object-safe interface of the sequential schemes ([`Scheme`], with its
//! type-erased keys and aggregates), so that the CLI, the benchmarks and the
//! inspection code can drive any entry of [`super::ALL_SCHEMES`] without knowing its
//! types. The table itself is `registry/mod.rs`.

use std::any::Any;

use hopsig_primitives::armor::{KeyFile, KeyInput, KeyKind};
use zeroize::Zeroizing;

use super::by_id;
use crate::keyblock::expect_header;
use crate::{Aggregate, Error, SequentialAggregate, SigningKey, VerifyingKey};

/// A signing key of some scheme.
pub trait DynSigningKey: Send + Sync {
    /// Id of its scheme.
    fn scheme_id(&self) -> &'static str;
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
    fn scheme_id(&self) -> &'static str;
    /// The key as a key file.
    fn to_key_file(&self) -> String;
    /// For downcasting to the scheme's key type.
    fn as_any(&self) -> &dyn Any;
}

impl<K: SigningKey> DynSigningKey for K {
    fn scheme_id(&self) -> &'static str {
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
    fn scheme_id(&self) -> &'static str {
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

/// An aggregate decoded once by [`Scheme::decode`]: what it holds, and the decoded
/// value that [`Scheme::verify_decoded`] checks without decoding the bytes again (for
/// BGLS, decoding is a subgroup check on G2).
pub struct DecodedAggregate {
    info: AggregateInfo,
    value: Box<dyn Any + Send + Sync>,
}

impl DecodedAggregate {
    /// What it holds.
    pub fn info(&self) -> &AggregateInfo {
        &self.info
    }
}

impl std::fmt::Debug for DecodedAggregate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("DecodedAggregate").field(&self.info).finish()
    }
}

/// Object-safe view of a [`SequentialAggregate`] scheme working on encoded aggregates.
pub trait Scheme: Send + Sync {
    /// Stable id (an entry of [`ALL_SCHEMES`], or its `ID-rBITS` alias).
    fn id(&self) -> &'static str;
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
    /// One hop of signing on encoded aggregates (see [`SequentialAggregate::sign`]):
    /// the new aggregate's encoding and what it holds, from the value signed (nothing
    /// is decoded again).
    ///
    /// # Errors
    /// A key of another scheme, a malformed `so_far`, a full aggregate.
    fn sign_with_info(
        &self,
        key: &dyn DynSigningKey,
        msg: &[u8],
        so_far: Option<&[u8]>,
    ) -> Result<(Vec<u8>, AggregateInfo), Error>;
    /// One hop of signing on encoded aggregates (see [`SequentialAggregate::sign`]).
    ///
    /// # Errors
    /// As [`Scheme::sign_with_info`].
    fn sign(
        &self,
        key: &dyn DynSigningKey,
        msg: &[u8],
        so_far: Option<&[u8]>,
    ) -> Result<Vec<u8>, Error> {
        self.sign_with_info(key, msg, so_far)
            .map(|(bytes, _)| bytes)
    }
    /// Decodes an aggregate once, for [`DecodedAggregate::info`] and
    /// [`Scheme::verify_decoded`].
    ///
    /// # Errors
    /// Decode errors; [`Error::AggregateForOtherScheme`] if the header names another
    /// scheme or parameter set.
    fn decode(&self, agg: &[u8]) -> Result<DecodedAggregate, Error>;
    /// Verification of an aggregate [`Scheme::decode`] decoded (see
    /// [`SequentialAggregate::verify`]).
    ///
    /// # Errors
    /// [`Error::InvalidSignature`] if it does not verify; [`Error::Mismatch`] if the
    /// numbers of keys and messages differ; a key of another scheme;
    /// [`Error::AggregateForOtherScheme`] for an aggregate another scheme decoded.
    fn verify_decoded(
        &self,
        keys: &[&dyn DynVerifyingKey],
        msgs: &[&[u8]],
        agg: &DecodedAggregate,
    ) -> Result<(), Error>;
    /// Verification on an encoded aggregate: [`Scheme::decode`], then
    /// [`Scheme::verify_decoded`].
    ///
    /// # Errors
    /// As both.
    fn verify(
        &self,
        keys: &[&dyn DynVerifyingKey],
        msgs: &[&[u8]],
        agg: &[u8],
    ) -> Result<(), Error> {
        self.verify_decoded(keys, msgs, &self.decode(agg)?)
    }
    /// Decodes an aggregate and says what it holds.
    ///
    /// # Errors
    /// Decode errors.
    fn inspect(&self, agg: &[u8]) -> Result<AggregateInfo, Error> {
        self.decode(agg).map(|d| d.info)
    }
}

/// A key file of `scheme` and `kind`: a hopsig key file with those headers, or a plain
/// standard key if the scheme's key files of that kind are one ([`PlainKeys`]).
pub fn read_key_file(text: &[u8], scheme: &str, kind: KeyKind) -> Result<KeyFile, Error> {
    match KeyInput::parse(text)? {
        KeyInput::File(file) => {
            expect_header(&file, scheme, kind)?;
            Ok(file)
        }
        KeyInput::Plain(plain) => {
            if plain.kind != kind {
                return Err(Error::WrongKeyKind {
                    expected: kind,
                    found: plain.kind,
                });
            }
            if !by_id(scheme)?.entry.plain_keys.accepts(kind) {
                return Err(Error::PlainKeyNotAccepted {
                    scheme: scheme.to_string(),
                    kind,
                });
            }
            Ok(plain.into_key_file(scheme))
        }
    }
}

fn downcast<'a, T: 'static>(any: &'a dyn Any, found: &str, scheme: &str) -> Result<&'a T, Error> {
    match any.downcast_ref::<T>() {
        Some(k) if found == scheme => Ok(k),
        _ => Err(Error::KeyForOtherScheme {
            expected: scheme.to_string(),
            found: found.to_string(),
        }),
    }
}

impl<S: SequentialAggregate> Scheme for S {
    fn id(&self) -> &'static str {
        SequentialAggregate::id(self)
    }
    fn generate(&self) -> Result<Box<dyn DynSigningKey>, Error> {
        Ok(Box::new(SequentialAggregate::generate(self)?))
    }
    fn signing_key_from_file(&self, text: &[u8]) -> Result<Box<dyn DynSigningKey>, Error> {
        let file = read_key_file(text, Scheme::id(self), KeyKind::Secret)?;
        Ok(Box::new(SequentialAggregate::signing_key_from_file(
            self, &file,
        )?))
    }
    fn verifying_key_from_file(&self, text: &[u8]) -> Result<Box<dyn DynVerifyingKey>, Error> {
        let file = read_key_file(text, Scheme::id(self), KeyKind::Public)?;
        Ok(Box::new(SequentialAggregate::verifying_key_from_file(
            self, &file,
        )?))
    }
    fn sign_with_info(
        &self,
        key: &dyn DynSigningKey,
        msg: &[u8],
        so_far: Option<&[u8]>,
    ) -> Result<(Vec<u8>, AggregateInfo), Error> {
        let key = downcast::<S::SigningKey>(key.as_any(), key.scheme_id(), Scheme::id(self))?;
        let so_far = so_far.map(|b| self.aggregate_from_bytes(b)).transpose()?;
        let agg = SequentialAggregate::sign(self, key, msg, so_far.as_ref())?;
        let bytes = agg.to_bytes();
        let info = info_of(self, &agg, bytes.len());
        Ok((bytes, info))
    }
    fn decode(&self, agg: &[u8]) -> Result<DecodedAggregate, Error> {
        let decoded = self.aggregate_from_bytes(agg)?;
        Ok(DecodedAggregate {
            info: info_of(self, &decoded, agg.len()),
            value: Box::new(decoded),
        })
    }
    fn verify_decoded(
        &self,
        keys: &[&dyn DynVerifyingKey],
        msgs: &[&[u8]],
        agg: &DecodedAggregate,
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
            .map(|k| downcast::<S::VerifyingKey>(k.as_any(), k.scheme_id(), id))
            .collect::<Result<Vec<_>, _>>()?;
        let pairs: Vec<(&S::VerifyingKey, &[u8])> =
            typed.into_iter().zip(msgs.iter().copied()).collect();
        let decoded = match agg.value.downcast_ref::<S::Aggregate>() {
            Some(a) if agg.info.scheme == id => a,
            _ => {
                return Err(Error::AggregateForOtherScheme {
                    expected: id.to_string(),
                    found: agg.info.scheme.clone(),
                })
            }
        };
        SequentialAggregate::verify(self, &pairs, decoded)
    }
}

/// What `agg`, `encoded_bytes` long, of `scheme` holds.
fn info_of<S: SequentialAggregate>(
    scheme: &S,
    agg: &S::Aggregate,
    encoded_bytes: usize,
) -> AggregateInfo {
    AggregateInfo {
        scheme: SequentialAggregate::id(scheme).to_string(),
        signers: agg.signers(),
        encoded_bytes,
        signature_bits: agg.signature_bits(),
    }
}
