use std::path::PathBuf;

use hopsig_primitives::armor::ArmorError;
use hopsig_primitives::codec::{to_hex, DecodeError};
use hopsig_primitives::hors::CounterError;
use hopsig_primitives::persist::PersistError;
use hopsig_primitives::rsa::RsaError;

use crate::ibas::W_LEN;

/// Errors of the scheme layer.
///
/// Parsing errors are precise (which field, what is wrong); a failed verification is
/// deliberately opaque ([`Error::InvalidSignature`]) and never says which internal check
/// failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The bytes of an aggregate (or signature) are malformed.
    #[error("malformed aggregate: {0}")]
    Decode(#[from] DecodeError),
    /// A key file is malformed.
    #[error("malformed key file: {0}")]
    Armor(#[from] ArmorError),
    /// A key is malformed or unacceptable.
    #[error("{0}")]
    Key(String),
    /// The aggregate does not verify against the given keys and messages.
    #[error("invalid signature")]
    InvalidSignature,
    /// Inputs belong to different schemes or parameter sets.
    #[error("{0}")]
    Mismatch(String),
    /// No scheme has this id.
    #[error("unknown scheme '{0}' (run `hopsig schemes` for the list)")]
    UnknownScheme(String),
    /// A limit of the format was reached (e.g. too many signers).
    #[error("{0}")]
    Limit(String),
    /// Signer state forbids the operation or cannot be kept.
    #[error("signer state: {0}")]
    State(#[from] StateError),
    /// The cryptographic backend (OpenSSL) failed.
    #[error("OpenSSL failure: {0}")]
    Backend(#[from] openssl::error::ErrorStack),
}

impl From<RsaError> for Error {
    fn from(e: RsaError) -> Self {
        match e {
            RsaError::Backend(stack) => Error::Backend(stack),
            other => Error::Key(other.to_string()),
        }
    }
}

/// Why a stateful signer refused to sign. A caller branches on the variant: a reused
/// w or an exhausted key is final for that input, a journal error may be fixed by
/// the operator.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The IBAS key already signed a *different* message under this state string w
    /// (`docs/spec/ibas.md`: two such signatures let anyone forge its signatures).
    #[error(
        "this key already signed another message under w = {}; signing this one too would let anyone forge its signatures",
        to_hex(w)
    )]
    ReusedW {
        /// The state string.
        w: [u8; W_LEN],
    },
    /// The journal records the state strings of another IBAS key.
    #[error("{}: journal of another key ({found}); this key's is {expected}", path.display())]
    OtherKey {
        /// The journal file.
        path: PathBuf,
        /// Key binding the journal records (hex).
        found: String,
        /// Key binding of the signing key (hex).
        expected: String,
    },
    /// A KC-MT attestation key has made its Σ signatures.
    #[error("attestation key exhausted: {sigma} of {sigma} signatures made (rekey)")]
    Exhausted {
        /// Σ.
        sigma: u32,
    },
    /// The state file cannot be created, locked, read, written or synced, or is
    /// malformed, too large or not a regular file (the error names it).
    #[error(transparent)]
    Journal(#[from] PersistError),
}

impl From<CounterError> for Error {
    fn from(e: CounterError) -> Self {
        Error::State(match e {
            CounterError::Exhausted(sigma) => StateError::Exhausted { sigma },
            CounterError::State(p) => StateError::Journal(p),
        })
    }
}

impl From<PersistError> for Error {
    fn from(e: PersistError) -> Self {
        Error::State(StateError::Journal(e))
    }
}
