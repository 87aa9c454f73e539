//! BGPsec algorithm suites (RFC 8205 §6.1, RFC 8608 §2) as entries of one table,
//! [`SUITES`], each calling a signature scheme through a trait (STYLE.md 20).
//!
//! The interface is the Signature_Block (RFC 8205 §3.2), not the single signature, so
//! that a suite may carry an aggregate across the block instead of one independent
//! signature per segment (issue 12 §3, BGR's lazy sequential aggregate). A suite
//!
//! * says which octets of earlier Signature Segments its signers sign
//!   ([`AlgorithmSuite::coverage`]; RFC 8205 signs them whole);
//! * adds one hop's signature to a block, given that hop's signature input
//!   ([`AlgorithmSuite::sign`], §4.2) — for a per-segment suite, it prepends a
//!   Signature Segment;
//! * validates a whole block, given every hop's input ([`crate::SignatureInput`]) and a
//!   key lookup, and says which step failed ([`AlgorithmSuite::validate`], §5.2
//!   steps 1–4);
//! * parses keys: a router's public key from its DER SubjectPublicKeyInfo (once, when
//!   keys are loaded), and signing keys.
//!
//! Keys cross this interface as [`VerifyingKey`] and [`SigningKey`], which hold the
//! suite's own key type behind `Any`: a suite downcasts to the type it made, so a new
//! suite brings its key types without a change here.
//!
//! | id | name | what | file |
//! |---|---|---|---|
//! | 0x01 | `ecdsa-p256-sha256` | RFC 8608 suite 1: ECDSA P-256, SHA-256, DER signatures, one per segment | `per_segment.rs` |
//! | 0xF7 | `bgr-rsa2048` | experimental: BGR's lazy sequential aggregate, RSA-2048, PRF r; per segment r_i ‖ b_i, the newest also x_K ‖ h_K (docs/spec/bgpsec-bgr.md) | `bgr.rs` |
//! | 0xF8 | `rsa2048-pkcs1-sha256` | experimental: RSA-2048 PKCS #1 v1.5, SHA-256, one per segment (bgpsec-bgr.md §9) | `per_segment.rs` |
//!
//! RFC 8608 §2.1: a router "that encounters an algorithm ID of [the experimentation]
//! type outside of an experimental network SHOULD treat it the same as an unsupported
//! algorithm". [`SUITES`] lists every suite hopsig implements (keys are parsed by all of
//! them); [`default_suites`], what a validator supports unless told otherwise, leaves
//! the experimental ones out.

pub mod bgr;
pub(crate) mod per_segment;

use std::any::Any;
use std::sync::Arc;

use hopsig_primitives::codec::DecodeError;
use zeroize::Zeroizing;

pub use bgr::{BgrSuite, BGR_RSA2048};
pub use per_segment::{PerSegment, ECDSA_P256_SHA256, RSA2048_PKCS1_SHA256};

use crate::cache::SignatureCache;
use crate::packet::iana::SuiteIdKind;
use crate::packet::{SecurePathSegment, SignatureBlock, SignatureSegment};
use crate::prefetch::{Check, Checks, Verdicts};
use crate::router_key::{ski_of_spki, KeyLookup, RouterKey, Ski};
use crate::sign::SignError;
use crate::signature_input::{Coverage, SignatureInput};

/// Every algorithm suite hopsig implements, by identifier. The validator and the
/// signer take their suites from here unless given others; a key is parsed by each
/// entry that accepts it.
pub static SUITES: &[&dyn AlgorithmSuite] =
    &[&ECDSA_P256_SHA256, &BGR_RSA2048, &RSA2048_PKCS1_SHA256];

/// The suites of [`SUITES`] whose identifiers are not in RFC 8608 §2.1's
/// experimentation range: what [`crate::Validator::new`] supports. An experiment
/// names its suites ([`crate::Validator::with_suites`] with [`SUITES`]).
pub fn default_suites() -> &'static [&'static dyn AlgorithmSuite] {
    static DEFAULT: std::sync::LazyLock<Vec<&'static dyn AlgorithmSuite>> =
        std::sync::LazyLock::new(|| {
            SUITES
                .iter()
                .copied()
                .filter(|s| SuiteIdKind::of(s.id()) != SuiteIdKind::Experimental)
                .collect()
        });
    &DEFAULT
}

/// The suite of [`SUITES`] with Algorithm Suite Identifier `id`.
pub fn by_id(id: u8) -> Option<&'static dyn AlgorithmSuite> {
    SUITES.iter().copied().find(|s| s.id() == id)
}

/// The suite of [`SUITES`] named `name`.
pub fn by_name(name: &str) -> Option<&'static dyn AlgorithmSuite> {
    SUITES.iter().copied().find(|s| s.name() == name)
}

/// A suite name or number that is not in [`SUITES`]; the message lists those that are.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown algorithm suite '{0}' (available: {available})", available = available())]
pub struct UnknownSuite(pub String);

/// `1 (ecdsa-p256-sha256), …`: every suite of [`SUITES`], for [`UnknownSuite`].
fn available() -> String {
    SUITES
        .iter()
        .map(|s| format!("{} ({})", s.id(), s.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The suite of [`SUITES`] that `id` names, as the command line and the speaker's
/// configuration give it: its name, or its number (decimal or `0x…`).
///
/// # Errors
/// [`UnknownSuite`] when no suite has that name or number.
pub fn named(id: &str) -> Result<&'static dyn AlgorithmSuite, UnknownSuite> {
    let number = match id.strip_prefix("0x") {
        Some(hex) => u8::from_str_radix(hex, 16).ok(),
        None => id.parse::<u8>().ok(),
    };
    number
        .and_then(by_id)
        .or_else(|| by_name(id))
        .ok_or_else(|| UnknownSuite(id.to_string()))
}

/// A BGPsec algorithm suite: one entry of [`SUITES`].
pub trait AlgorithmSuite: Send + Sync {
    /// The Algorithm Suite Identifier of its Signature_Blocks (RFC 8608 §2.1, §7).
    fn id(&self) -> u8;

    /// A stable name, for the command line and reports.
    fn name(&self) -> &'static str;

    /// Which octets of Signature Segment N−1 hop N signs ([`Coverage::WholeSegment`]
    /// for RFC 8205's Figure 8).
    fn coverage(&self) -> Coverage {
        Coverage::WholeSegment
    }

    /// A fresh router key pair from OpenSSL's CSPRNG.
    ///
    /// # Errors
    /// Backend failures.
    fn generate(&self) -> Result<SigningKey, KeyError>;

    /// A router's private key from an unencrypted PKCS #8 `PrivateKeyInfo` in DER.
    ///
    /// # Errors
    /// A key that is not one of this suite's.
    fn signing_key_from_pkcs8(&self, der: &[u8]) -> Result<SigningKey, KeyError>;

    /// The text of a router's secret key file for `key`, one of this suite's: an
    /// unencrypted PKCS #8 `PRIVATE KEY` PEM block for a suite whose key is a plain
    /// private key (suite 1), what `openssl pkey` reads (RFC 8608 §3.1.2 leaves the
    /// format of private keys to local policy).
    ///
    /// # Errors
    /// [`KeyError::Scheme`] for a key of another suite, backend failures.
    fn secret_key_file(&self, key: &SigningKey) -> Result<Zeroizing<String>, KeyError>;

    /// A router's private key from the text of its secret key file, as
    /// [`AlgorithmSuite::secret_key_file`] writes it (docs/spec/bgpsec.md, "Router
    /// keys"): for suite 1 and `rsa2048-pkcs1-sha256` an unencrypted PKCS #8 key, PEM or
    /// DER, as `openssl genpkey` writes it; for `bgr-rsa2048` a hopsig key file.
    ///
    /// # Errors
    /// [`KeyError::Scheme`] naming what is wrong: not a key file, a public key, a key
    /// of another suite.
    fn signing_key_from_file(&self, text: &[u8]) -> Result<SigningKey, KeyError>;

    /// A router's public key from its DER SubjectPublicKeyInfo, parsed and checked
    /// once, for [`AlgorithmSuite::validate`].
    ///
    /// # Errors
    /// A key this suite cannot use.
    fn verifying_key_from_spki(&self, spki: &[u8]) -> Result<VerifyingKey, KeyError>;

    /// Adds this hop's signature to `block`, which holds the earlier hops' (RFC 8205
    /// §4.2): `input` is this hop's signed octets ([`SignatureInput::newest_toward`]).
    /// For a per-segment suite, prepends one Signature Segment.
    ///
    /// # Errors
    /// [`SignError::KeyForOtherSuite`], [`SignError::BlockForOtherSuite`], backend
    /// failures.
    fn sign(
        &self,
        key: &SigningKey,
        input: &[u8],
        block: &mut SignatureBlock<'_>,
    ) -> Result<(), SignError>;

    /// Validates a whole block (RFC 8205 §5.2 steps 1–4): `secure_path` and `block`
    /// have one segment per hop, newest first; `input.hop(n)` is hop n's signed octets
    /// (1 = origin), the newest toward the validator; `keys` gives the router keys.
    ///
    /// # Errors
    /// The [`BlockFault`] that marks the block 'Not Valid'.
    fn validate(
        &self,
        block: &SignatureBlock<'_>,
        secure_path: &[SecurePathSegment],
        input: &SignatureInput,
        keys: &dyn KeyLookup,
    ) -> Result<(), BlockFault>;

    /// [`AlgorithmSuite::validate`], asking `cache` before each signature check (§5.2
    /// steps 3–4, after step 2 found the keys in `keys`) and telling it of each check
    /// that verified ([`crate::cache`]). A suite that does not override it verifies
    /// every signature, as [`AlgorithmSuite::validate`] does: correct, merely uncached.
    ///
    /// # Errors
    /// As [`AlgorithmSuite::validate`]: a cache changes how often a signature is
    /// verified, never the verdict.
    fn validate_cached(
        &self,
        block: &SignatureBlock<'_>,
        secure_path: &[SecurePathSegment],
        input: &SignatureInput,
        keys: &dyn KeyLookup,
        cache: &SignatureCache,
    ) -> Result<(), BlockFault> {
        let _ = cache;
        self.validate(block, secure_path, input, keys)
    }

    /// Pass 1 of a batch of UPDATEs ([`crate::prefetch`]): adds to `checks` the
    /// signature checks [`AlgorithmSuite::validate`] of this block would verify first
    /// (§5.2 steps 3–4 with each segment's first key, up to the first segment step 2
    /// finds no key for), but those `cache` holds ([`SignatureCache::contains`], which
    /// changes nothing in the cache). A suite that does not override it collects
    /// nothing: its blocks are verified in the walk, as alone.
    fn collect_checks<'c>(
        &self,
        block: &'c SignatureBlock<'_>,
        secure_path: &'c [SecurePathSegment],
        input: &'c SignatureInput,
        keys: &'c dyn KeyLookup,
        cache: Option<&SignatureCache>,
        checks: &mut Checks<'c>,
    ) {
        let _ = (block, secure_path, input, keys, cache, checks);
    }

    /// The verdicts of `checks`, which this suite's
    /// [`AlgorithmSuite::collect_checks`] collected: one per check, in order, in one
    /// call of its batch backend. Empty (no verdict known; the walk verifies them)
    /// unless overridden.
    fn verify_checks(&self, checks: &[Check<'_>]) -> Vec<bool> {
        let _ = checks;
        Vec::new()
    }

    /// Pass 3 of a batch: [`AlgorithmSuite::validate_cached`] (or
    /// [`AlgorithmSuite::validate`] without a `cache`), each signature check whose
    /// verdict is in `verdicts` answered from there rather than verified again. The
    /// cache is asked and told as without `verdicts`.
    ///
    /// # Errors
    /// As [`AlgorithmSuite::validate`]: the same fault as without `verdicts`.
    fn validate_batched(
        &self,
        block: &SignatureBlock<'_>,
        secure_path: &[SecurePathSegment],
        input: &SignatureInput,
        keys: &dyn KeyLookup,
        cache: Option<&SignatureCache>,
        verdicts: &Verdicts<'_>,
    ) -> Result<(), BlockFault> {
        let _ = verdicts;
        match cache {
            Some(cache) => self.validate_cached(block, secure_path, input, keys, cache),
            None => self.validate(block, secure_path, input, keys),
        }
    }

    /// The name of the batch backend that verifies this suite's signatures
    /// (`hopsig_schemes::batch::BatchVerify::name`: `avx512ifma` for suite 1 on a CPU
    /// with AVX-512 IFMA, `cpu` otherwise); `cpu` for a suite that verifies without
    /// the batch seam.
    fn verifier(&self) -> &'static str {
        "cpu"
    }
}

/// A block's Signature Segments with their Secure_Path Segments, in the order of RFC
/// 8205 §5.2's walk: newest first, numbered K down to 1 (§5.2 step 1).
pub(crate) fn newest_first<'b, 'a>(
    secure_path: &'b [SecurePathSegment],
    block: &'b SignatureBlock<'a>,
) -> impl Iterator<Item = (usize, &'b SecurePathSegment, &'b SignatureSegment<'a>)> {
    let k = secure_path.len();
    secure_path
        .iter()
        .zip(&block.segments)
        .enumerate()
        .map(move |(i, (segment, signature))| (k - i, segment, signature))
}

/// RFC 8205 §5.2 step 2 for segment `n` (1 = origin): the valid router keys of its AS
/// and SKI, or [`BlockFault::NoKey`] when there is none, which marks the block 'Not
/// Valid'. Every suite's validation starts each segment with it.
pub(crate) fn router_keys_of<'k>(
    keys: &'k dyn KeyLookup,
    n: usize,
    segment: &SecurePathSegment,
    signature: &SignatureSegment<'_>,
) -> Result<&'k [RouterKey], BlockFault> {
    let found = keys.router_keys(segment.asn, &signature.ski);
    if found.is_empty() {
        return Err(BlockFault::NoKey {
            segment: n,
            asn: segment.asn,
            ski: signature.ski,
        });
    }
    Ok(found)
}

/// A router's public key as one suite parsed it.
#[derive(Clone)]
pub struct VerifyingKey {
    suite: u8,
    key: Arc<dyn Any + Send + Sync>,
}

impl std::fmt::Debug for VerifyingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerifyingKey")
            .field("suite", &self.suite)
            .finish_non_exhaustive()
    }
}

impl VerifyingKey {
    /// Suite `suite`'s parsed key `key`.
    pub fn new<K: Any + Send + Sync>(suite: u8, key: K) -> VerifyingKey {
        VerifyingKey {
            suite,
            key: Arc::new(key),
        }
    }

    /// The suite that parsed it.
    pub fn suite(&self) -> u8 {
        self.suite
    }

    /// The parsed key, if it is a `K`.
    pub fn downcast<K: Any>(&self) -> Option<&K> {
        self.key.downcast_ref()
    }
}

/// A router's private key for one suite, with the SKI of its public key (RFC 8209).
/// `Debug` prints the suite and SKI only; the secret is dropped as its type drops it
/// (OpenSSL clears EC and RSA private keys when it frees them).
///
/// One of three `SigningKey`s in hopsig, kept apart because they mean different
/// things: [`hopsig_schemes::SigningKey`] is a trait, the typed key of one aggregate
/// scheme (its `Sign` takes the aggregate so far); `hopsig_ndn::SigningKey` is any NDN
/// SignatureType's signer, making a SignatureValue over a packet's signed portion.
/// This one is a *router* key: an AS's key as RFC 8209 router certificates name it
/// (suite id, SKI, SubjectPublicKeyInfo), whose secret is whatever the suite's table
/// entry ([`AlgorithmSuite`]) parsed — an OpenSSL EC key for suite 1, a scheme key for
/// the experimental suites — hence `Any`, downcast by that suite only.
pub struct SigningKey {
    suite: u8,
    ski: Ski,
    spki: Vec<u8>,
    secret: Box<dyn Any + Send + Sync>,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("suite", &self.suite)
            .field("ski", &hopsig_primitives::codec::to_hex(&self.ski))
            .finish_non_exhaustive()
    }
}

impl SigningKey {
    /// Suite `suite`'s private key `secret`, whose public key is the DER
    /// SubjectPublicKeyInfo `spki`; the SKI is computed from it.
    ///
    /// # Errors
    /// As [`ski_of_spki`].
    pub fn new<K: Any + Send + Sync>(
        suite: u8,
        spki: Vec<u8>,
        secret: K,
    ) -> Result<SigningKey, KeyError> {
        Ok(SigningKey {
            suite,
            ski: ski_of_spki(&spki)?,
            spki,
            secret: Box::new(secret),
        })
    }

    /// The suite the key belongs to.
    pub fn suite(&self) -> u8 {
        self.suite
    }

    /// The Subject Key Identifier of the public key, which goes in each Signature
    /// Segment the key makes (RFC 8205 §4.2).
    pub fn ski(&self) -> &Ski {
        &self.ski
    }

    /// The public key, a DER SubjectPublicKeyInfo.
    pub fn spki(&self) -> &[u8] {
        &self.spki
    }

    /// The secret, if it is a `K`.
    pub fn downcast<K: Any>(&self) -> Option<&K> {
        self.secret.downcast_ref()
    }

    /// The secret as suite `suite`'s key type `K`, for a suite that writes or reads
    /// it back ([`AlgorithmSuite::secret_key_file`]).
    ///
    /// # Errors
    /// [`KeyError::Scheme`] for a key of another suite.
    pub(crate) fn secret_of<K: Any>(&self, suite: &dyn AlgorithmSuite) -> Result<&K, KeyError> {
        match self.downcast::<K>() {
            Some(secret) if self.suite == suite.id() => Ok(secret),
            _ => Err(KeyError::Scheme(hopsig_schemes::Error::KeyForOtherScheme {
                expected: suite.name().to_string(),
                found: format!("suite {}", self.suite),
            })),
        }
    }
}

/// Why a Signature_Block of a supported suite is 'Not Valid' (RFC 8205 §5.2).
/// Segments are numbered as in §5.2 step 1: 1 is the origin's, K the newest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlockFault {
    /// Step 2: no valid router key has the segment's AS and SKI.
    #[error("no router key for AS {asn} with SKI {} (segment {segment})", hopsig_primitives::codec::to_hex(.ski))]
    NoKey {
        /// The segment, N.
        segment: usize,
        /// AS(N).
        asn: u32,
        /// The SKI of Signature Segment N.
        ski: Ski,
    },
    /// Step 4: the signature of the segment verifies under none of the keys found.
    #[error("the signature of AS {asn} (segment {segment}) does not verify")]
    BadSignature {
        /// The segment, N.
        segment: usize,
        /// AS(N).
        asn: u32,
    },
    /// An aggregate suite's block does not verify as a whole: no one segment is to
    /// blame.
    #[error("the aggregate does not verify")]
    BadAggregate,
}

/// Why a key could not be made or read.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The SubjectPublicKeyInfo is not DER of the RFC 5280 §4.1 shape.
    #[error("SubjectPublicKeyInfo: {0}")]
    Spki(#[from] DecodeError),
    /// The scheme refused the key, or the backend failed.
    #[error("{0}")]
    Scheme(#[from] hopsig_schemes::Error),
    /// The cryptographic backend (OpenSSL) failed; opaque, so that no backend type is
    /// in the public API.
    #[error("{0}")]
    Backend(hopsig_schemes::BackendError),
}

impl KeyError {
    /// An OpenSSL failure, wrapped.
    pub(crate) fn openssl(e: openssl::error::ErrorStack) -> KeyError {
        KeyError::Backend(hopsig_schemes::BackendError::new("OpenSSL", e))
    }
}
