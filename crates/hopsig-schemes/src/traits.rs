//! The traits every scheme implements (STYLE.md 2): keys, one-hop signing that takes
//! only the signer's own key, message and the aggregate so far, verification of an
//! ordered list of (public key, message), and `aggregate` for the schemes that
//! aggregate freely.

use std::convert::Infallible;

use hopsig_primitives::armor::KeyFile;
use hopsig_primitives::codec::{self, Codec};
use zeroize::Zeroizing;

use crate::Error;

/// A signing (secret) key. Implementations zeroize secret material on drop and print
/// no secret in `Debug`.
///
/// The scheme layer's key, typed per scheme. The protocol crates have keys of their
/// own that hold one of these or a standard key: `hopsig_bgp::SigningKey` (a router
/// key of an algorithm suite, with its RFC 8209 SKI) and `hopsig_ndn::SigningKey` (the
/// signer of an NDN SignatureType); they are not this trait because neither signs an
/// aggregate, and they are not one type because their lookups differ (suite id and SKI,
/// SignatureType and KeyLocator).
pub trait SigningKey: Send + Sync + 'static {
    /// The matching verifying key type.
    type VerifyingKey: VerifyingKey;
    /// Id of the scheme (and parameter set) this key belongs to.
    fn scheme_id(&self) -> &'static str;
    /// The public half.
    fn verifying_key(&self) -> Self::VerifyingKey;
    /// The key as a hopsig key file (`docs/spec/keys.md`).
    ///
    /// # Errors
    /// Backend failures while serializing.
    fn to_key_file(&self) -> Result<Zeroizing<String>, Error>;
}

/// A verifying (public) key.
pub trait VerifyingKey: Clone + Send + Sync + 'static {
    /// Id of the scheme (and parameter set) this key belongs to.
    fn scheme_id(&self) -> &'static str;
    /// The key as a hopsig key file (`docs/spec/keys.md`).
    fn to_key_file(&self) -> String;
}

/// An aggregate signature on the messages of `signers()` signers. Its wire form
/// ([`Codec`]) is the 7-byte header of [`crate::wire`] and the scheme's body; every
/// aggregate holds `1..=MAX_SIGNERS` signers by construction, so encoding cannot fail.
pub trait Aggregate: Codec<EncodeError = Infallible> + Send + Sync + 'static {
    /// Number of signers whose signatures it holds (n).
    fn signers(&self) -> usize;
    /// The wire encoding.
    fn to_bytes(&self) -> Vec<u8> {
        codec::to_vec(self)
    }
    /// Size of the signature content in bits, without hopsig's fixed header: the
    /// quantity the papers' tables report.
    fn signature_bits(&self) -> u64;
}

/// A sequential aggregate signature scheme (BGR full version §2): `KeyGen`, one-hop
/// `Sign` that never needs another signer's key, and `Ver` over the ordered list of
/// (public key, message).
pub trait SequentialAggregate: Send + Sync + 'static {
    /// Secret key type.
    type SigningKey: SigningKey<VerifyingKey = Self::VerifyingKey>;
    /// Public key type.
    type VerifyingKey: VerifyingKey;
    /// Aggregate type.
    type Aggregate: Aggregate;

    /// Stable id, e.g. `bgr-rsa2048` (its entry in [`crate::registry::ALL_SCHEMES`]
    /// says what the scheme is).
    fn id(&self) -> &'static str;

    /// `KeyGen`: a fresh key pair from the operating system's CSPRNG (via OpenSSL).
    ///
    /// # Errors
    /// Backend failures.
    fn generate(&self) -> Result<Self::SigningKey, Error>;

    /// `Sign`: adds the signature of `key` on `msg` to `so_far` (`None` for the first
    /// signer). `so_far` is *not* verified (lazy verification): it may be invalid, and
    /// signing it is safe for schemes that permit lazy verification.
    ///
    /// # Errors
    /// [`Error::KeyForOtherScheme`] if `key` belongs to another parameter set,
    /// [`Error::AggregateForOtherScheme`] if `so_far` does; [`Error::TooManySigners`] if
    /// the aggregate already holds the maximum number of signers.
    fn sign(
        &self,
        key: &Self::SigningKey,
        msg: &[u8],
        so_far: Option<&Self::Aggregate>,
    ) -> Result<Self::Aggregate, Error>;

    /// `Ver`: checks `agg` against the ordered `(public key, message)` list, first
    /// signer first.
    ///
    /// # Errors
    /// [`Error::InvalidSignature`] if it does not verify (including a count mismatch);
    /// [`Error::KeyForOtherScheme`] if a key belongs to another parameter set.
    fn verify(
        &self,
        signers: &[(&Self::VerifyingKey, &[u8])],
        agg: &Self::Aggregate,
    ) -> Result<(), Error>;

    /// Decodes an aggregate of this scheme.
    ///
    /// # Errors
    /// [`Error::Decode`] naming the malformed field; [`Error::AggregateForOtherScheme`]
    /// if the header names another scheme or parameter set.
    fn aggregate_from_bytes(&self, bytes: &[u8]) -> Result<Self::Aggregate, Error>;

    /// Reads a secret key from a parsed key file of this scheme.
    ///
    /// # Errors
    /// [`Error::Key`], [`Error::Armor`] for malformed or unacceptable keys.
    fn signing_key_from_file(&self, file: &KeyFile) -> Result<Self::SigningKey, Error>;

    /// Reads a public key from a parsed key file of this scheme.
    ///
    /// # Errors
    /// [`Error::Key`], [`Error::Armor`] for malformed or unacceptable keys.
    fn verifying_key_from_file(&self, file: &KeyFile) -> Result<Self::VerifyingKey, Error>;
}

/// A scheme whose signatures combine in any order and grouping (BGLS): besides the
/// sequential one-hop `sign`, separately made aggregates can be merged.
pub trait FreeAggregate: SequentialAggregate {
    /// One aggregate holding all signatures of `parts`, with their signer lists
    /// concatenated in the order given (verify with the pairs in that order).
    ///
    /// # Errors
    /// [`Error::NoSigners`] if `parts` is empty; [`Error::TooManySigners`] if the total
    /// exceeds the format's limit.
    fn aggregate(&self, parts: &[&Self::Aggregate]) -> Result<Self::Aggregate, Error>;
}
