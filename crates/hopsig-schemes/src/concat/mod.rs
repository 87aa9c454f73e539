//! The "trivial" sequential aggregate of BGR Table 1: n independent ordinary
//! signatures, concatenated. It permits lazy verification (a signer ignores what came
//! before) at the cost of a signature per hop.

mod ecdsa;
pub mod koblitz;
mod rsa;

pub use ecdsa::{EcdsaP256, P256PublicKey};
pub use koblitz::{EcdsaK163, EcdsaK233, EcdsaK283};
pub use rsa::Rsa2048Pkcs1;

use std::convert::Infallible;
use std::marker::PhantomData;

use hopsig_primitives::armor::{KeyFile, KeyKind};
use hopsig_primitives::codec::{Codec, DecodeError, Reader, Writer};
use openssl::pkey::{PKey, Private};
use zeroize::Zeroizing;

use crate::batch::{BatchVerify, Cpu, Signatures};
use crate::wire::{
    decode_aggregate, not_this_scheme, Header, PerSigner, SchemeCode, Signers, MAGIC,
};
use crate::{Aggregate, Error, SequentialAggregate, SigningKey, VerifyingKey};

/// An ordinary signature scheme with standard (PKCS #8 / SPKI) keys.
pub trait BaseSignature: Send + Sync + 'static {
    /// Scheme id of its concatenation.
    const ID: &'static str;
    /// One-line description.
    const DESCRIPTION: &'static str;
    /// Header scheme code.
    const CODE: SchemeCode;
    /// Secret key.
    type SecretKey: Send + Sync + 'static;
    /// Public key.
    type PublicKey: Clone + Send + Sync + 'static;

    /// Generates a key.
    ///
    /// # Errors
    /// Backend failures.
    fn generate() -> Result<Self::SecretKey, Error>;
    /// Public half of a secret key.
    ///
    /// # Errors
    /// Backend failures.
    fn public(sk: &Self::SecretKey) -> Result<Self::PublicKey, Error>;
    /// Signs `msg`.
    ///
    /// # Errors
    /// Backend failures.
    fn sign(sk: &Self::SecretKey, msg: &[u8]) -> Result<Vec<u8>, Error>;
    /// True if `sig` is a valid signature on `msg` under `pk`.
    fn verify(pk: &Self::PublicKey, msg: &[u8], sig: &[u8]) -> bool;
    /// The batch verifiers of this scheme's signatures, the default (fastest available
    /// on this processor) first, [`Cpu`](crate::batch::Cpu) among them: what
    /// [`Kind::backends`](crate::batch::Kind::backends) of
    /// [`Signatures<Self>`](crate::batch::Signatures) lists. Only the portable one
    /// unless the scheme has a faster one.
    fn batch_backends() -> &'static [&'static dyn BatchVerify<Signatures<Self>>]
    where
        Self: Sized,
    {
        &[&Cpu]
    }
    /// Reads one encoded signature.
    ///
    /// # Errors
    /// Malformed signature encodings.
    fn read_signature(r: &mut Reader<'_>) -> Result<Vec<u8>, DecodeError>;
    /// PKCS #8 PEM of a secret key.
    ///
    /// # Errors
    /// Backend failures.
    fn secret_to_pem(sk: &Self::SecretKey) -> Result<Zeroizing<String>, Error>;
    /// Parses and checks an unencrypted PKCS #8 `PrivateKeyInfo` in DER (a key file's
    /// `PRIVATE KEY` block, read without a round trip through PEM text).
    ///
    /// # Errors
    /// Malformed or unacceptable keys.
    fn secret_from_der(der: &[u8]) -> Result<Self::SecretKey, Error>;
    /// SPKI PEM of a public key.
    fn public_to_pem(pk: &Self::PublicKey) -> String;
    /// Parses and checks a DER SPKI public key.
    ///
    /// # Errors
    /// Malformed or unacceptable keys.
    fn public_from_der(der: &[u8]) -> Result<Self::PublicKey, Error>;
}

/// An unencrypted PKCS #8 `PrivateKeyInfo` in DER, parsed by OpenSSL (the key type and
/// parameters are the caller's to check).
fn private_key_from_pkcs8(der: &[u8]) -> Result<PKey<Private>, Error> {
    PKey::private_key_from_pkcs8(der)
        .map_err(|_| Error::Key("not a DER PKCS #8 private key".into()))
}

/// n independent signatures of `B`.
pub struct Concat<B>(PhantomData<fn() -> B>);

impl<B> Concat<B> {
    /// The scheme.
    pub fn new() -> Self {
        Concat(PhantomData)
    }
}

impl<B> Default for Concat<B> {
    fn default() -> Self {
        Self::new()
    }
}

/// Secret key of [`Concat`].
pub struct ConcatSigningKey<B: BaseSignature> {
    sk: B::SecretKey,
    pk: ConcatVerifyingKey<B>,
}

/// Public key of [`Concat`].
pub struct ConcatVerifyingKey<B: BaseSignature> {
    pk: B::PublicKey,
}

impl<B: BaseSignature> Clone for ConcatVerifyingKey<B> {
    fn clone(&self) -> Self {
        ConcatVerifyingKey {
            pk: self.pk.clone(),
        }
    }
}

/// n concatenated signatures.
///
/// ```text
/// +---------------------------------------------+
/// | header (7): code B::CODE, param 0, n        |  docs/spec/aggregate.md
/// +---------------------------------------------+
/// | signature 1 ‖ … ‖ signature n               |  each self-delimiting:
/// +---------------------------------------------+  256 bytes (RSA) or DER (ECDSA)
/// ```
pub struct ConcatAggregate<B: BaseSignature> {
    sigs: PerSigner<Vec<u8>>,
    _base: PhantomData<fn() -> B>,
}

impl<B: BaseSignature> ConcatAggregate<B> {
    /// The i-th signature (1-based).
    pub fn signature(&self, i: usize) -> Option<&[u8]> {
        self.sigs
            .as_slice()
            .get(i.checked_sub(1)?)
            .map(Vec::as_slice)
    }
}

impl<B: BaseSignature> Codec for ConcatAggregate<B> {
    const NAME: &'static str = "aggregate";
    type EncodeError = Infallible;

    fn encode(&self, w: &mut Writer) -> Result<(), Infallible> {
        Header {
            code: B::CODE,
            param: 0,
            signers: self.sigs.signers(),
        }
        .encode(w)?;
        for s in self.sigs.as_slice() {
            w.bytes(s);
        }
        Ok(())
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let header = Header::read(r)?;
        if (header.code, header.param) != (B::CODE, 0) {
            return Err(not_this_scheme(
                "not a concatenation of this signature scheme",
            ));
        }
        Ok(ConcatAggregate {
            sigs: PerSigner::read_each(r, header.signers, B::read_signature)?,
            _base: PhantomData,
        })
    }
}

impl<B: BaseSignature> SigningKey for ConcatSigningKey<B> {
    type VerifyingKey = ConcatVerifyingKey<B>;
    fn scheme_id(&self) -> &'static str {
        B::ID
    }
    fn verifying_key(&self) -> ConcatVerifyingKey<B> {
        self.pk.clone()
    }
    fn to_key_file(&self) -> Result<Zeroizing<String>, Error> {
        let pem = B::secret_to_pem(&self.sk)?;
        Ok(KeyFile::render(B::ID, KeyKind::Secret, &[pem.as_str()]))
    }
}

impl<B: BaseSignature> VerifyingKey for ConcatVerifyingKey<B> {
    fn scheme_id(&self) -> &'static str {
        B::ID
    }
    fn to_key_file(&self) -> String {
        KeyFile::render(B::ID, KeyKind::Public, &[&B::public_to_pem(&self.pk)]).to_string()
    }
}

impl<B: BaseSignature> Aggregate for ConcatAggregate<B> {
    fn signers(&self) -> usize {
        self.sigs.signers().get()
    }
    fn signature_bits(&self) -> u64 {
        self.sigs
            .as_slice()
            .iter()
            .map(|s| 8 * s.len() as u64)
            .sum()
    }
}

/// The one block of a key file of this scheme, which must carry `label`.
fn single_block<'a>(
    file: &'a KeyFile,
    label: &str,
) -> Result<&'a hopsig_primitives::armor::PemBlock, Error> {
    match file.blocks.as_slice() {
        [only] if only.label == label => Ok(only),
        [other] => Err(Error::Key(format!(
            "expected a {label} block, found {}",
            other.label
        ))),
        blocks => Err(Error::Key(format!(
            "key files of this scheme hold 1 PEM block, this one {}",
            blocks.len()
        ))),
    }
}

impl<B: BaseSignature> SequentialAggregate for Concat<B> {
    type SigningKey = ConcatSigningKey<B>;
    type VerifyingKey = ConcatVerifyingKey<B>;
    type Aggregate = ConcatAggregate<B>;

    fn id(&self) -> &'static str {
        B::ID
    }
    fn generate(&self) -> Result<Self::SigningKey, Error> {
        let sk = B::generate()?;
        let pk = ConcatVerifyingKey {
            pk: B::public(&sk)?,
        };
        Ok(ConcatSigningKey { sk, pk })
    }
    fn sign(
        &self,
        key: &Self::SigningKey,
        msg: &[u8],
        so_far: Option<&Self::Aggregate>,
    ) -> Result<Self::Aggregate, Error> {
        // A full aggregate is refused before anything is signed, as BGR does.
        if let Some(a) = so_far {
            a.sigs.signers().plus(Signers::ONE)?;
        }
        let own = B::sign(&key.sk, msg)?;
        let sigs = match so_far {
            None => PerSigner::first(own),
            Some(a) => {
                let mut sigs = a.sigs.clone();
                sigs.push(own)?;
                sigs
            }
        };
        Ok(ConcatAggregate {
            sigs,
            _base: PhantomData,
        })
    }
    fn verify(
        &self,
        signers: &[(&Self::VerifyingKey, &[u8])],
        agg: &Self::Aggregate,
    ) -> Result<(), Error> {
        if signers.is_empty() || signers.len() != agg.signers() {
            return Err(Error::InvalidSignature);
        }
        // Every signature is checked even after a failure: the running time does not
        // reveal which one failed.
        let all_valid = signers
            .iter()
            .zip(agg.sigs.as_slice())
            .fold(true, |ok, ((pk, msg), sig)| {
                B::verify(&pk.pk, msg, sig) & ok
            });
        if all_valid {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }
    /// A hopsig aggregate, or a bare signature of `B` (`docs/spec/aggregate.md`, "Bare
    /// signatures"): bytes that are exactly one signature (a canonical DER
    /// `ECDSA-Sig-Value`, or 256 bytes for RSA) are a one-signer aggregate. No bytes are
    /// both: an aggregate starts with `HS` and a DER signature with 0x30, and an RSA
    /// aggregate is 7 + 256n bytes long. Bytes that are neither get the error of the
    /// form they start like.
    fn aggregate_from_bytes(&self, bytes: &[u8]) -> Result<Self::Aggregate, Error> {
        let mut r = Reader::new(bytes);
        match B::read_signature(&mut r).and_then(|sig| r.finish("signature").map(|()| sig)) {
            Ok(sig) => Ok(ConcatAggregate {
                sigs: PerSigner::first(sig),
                _base: PhantomData,
            }),
            Err(bare) if !bytes.starts_with(&MAGIC) => Err(bare.into()),
            Err(_) => decode_aggregate(bytes, B::CODE, 0),
        }
    }
    fn signing_key_from_file(&self, file: &KeyFile) -> Result<Self::SigningKey, Error> {
        let sk = B::secret_from_der(&single_block(file, "PRIVATE KEY")?.der)?;
        let pk = ConcatVerifyingKey {
            pk: B::public(&sk)?,
        };
        Ok(ConcatSigningKey { sk, pk })
    }
    fn verifying_key_from_file(&self, file: &KeyFile) -> Result<Self::VerifyingKey, Error> {
        Ok(ConcatVerifyingKey {
            pk: B::public_from_der(&single_block(file, "PUBLIC KEY")?.der)?,
        })
    }
}
