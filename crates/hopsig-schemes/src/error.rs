//! The crate's one error type: opaque where a verifier says "invalid" (STYLE.md 3),
//! precise where input does not decode, and naming no backend type (a failure of
//! OpenSSL is an opaque `BackendError`).

use std::path::PathBuf;

use hopsig_primitives::armor::{ArmorError, KeyKind};
use hopsig_primitives::codec::{to_hex, DecodeError, EncodeError};
use hopsig_primitives::hors::CounterError;
use hopsig_primitives::persist::{LineError, PersistError};
use hopsig_primitives::rsa::RsaError;

use crate::ibas::W_LEN;

/// Errors of the scheme layer.
///
/// Parsing errors are precise (which field, what is wrong); a failed verification is
/// deliberately opaque ([`Error::InvalidSignature`]) and never says which internal check
/// failed. Where a caller acts on the kind of failure (which input to blame, whether
/// the aggregate is full) the variant is typed and carries the data.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The bytes of an aggregate (or signature) are malformed.
    #[error("malformed aggregate: {0}")]
    Decode(#[from] DecodeError),
    /// A value does not fit its wire format (a length or count over the limit).
    #[error("cannot encode: {0}")]
    Encode(#[from] EncodeError),
    /// A key file is malformed.
    #[error("malformed key file: {0}")]
    Armor(#[from] ArmorError),
    /// A key is malformed or unacceptable.
    #[error("{0}")]
    Key(String),
    /// The aggregate does not verify against the given keys and messages.
    #[error("invalid signature")]
    InvalidSignature,
    /// A key (or key file) belongs to another scheme or parameter set.
    #[error("key is for scheme '{found}', not '{expected}'")]
    KeyForOtherScheme {
        /// The scheme the operation needs.
        expected: String,
        /// The scheme of the key.
        found: String,
    },
    /// A public key where a secret one is needed, or the reverse.
    #[error("this is a {} key file; a {} key is needed here", found.as_str(), expected.as_str())]
    WrongKeyKind {
        /// The kind the operation needs.
        expected: KeyKind,
        /// The kind of the file.
        found: KeyKind,
    },
    /// An aggregate whose header names another scheme or parameter set.
    #[error("aggregate is for {found}, not {expected}")]
    AggregateForOtherScheme {
        /// The scheme the operation needs.
        expected: String,
        /// What the header names: a scheme id, or its code and parameter byte.
        found: String,
    },
    /// The aggregate already holds (or would hold) more signers than the format allows.
    #[error("an aggregate holds at most {max} signers")]
    TooManySigners {
        /// The limit.
        max: usize,
    },
    /// An aggregate of no signers was asked for.
    #[error("an aggregate holds at least one signer")]
    NoSigners,
    /// An identity (an IBAS signer's, an implicit certificate's subject) outside 1 to
    /// [`crate::ibas::MAX_IDENTITY_LEN`] bytes.
    #[error(
        "identity must be 1..={} bytes, got {len}",
        crate::ibas::MAX_IDENTITY_LEN
    )]
    IdentityLength {
        /// Its length in bytes.
        len: usize,
    },
    /// No scheme has this id.
    #[error("unknown scheme '{0}' (run `hopsig schemes` for the list)")]
    UnknownScheme(String),
    /// The scheme is identity-based (IBAS): its keys come from a PKG and verifiers name
    /// signers by identity, so it has no key pairs of its own (see [`crate::ibas`]).
    #[error(
        "{0} is identity-based: keys come from a PKG (`hopsig pkg setup`, `hopsig pkg extract`) and signers are named by identity"
    )]
    IdentityBased(String),
    /// A plain PKCS #8 / SubjectPublicKeyInfo key given for a scheme whose key files of
    /// that kind hold more than a standard key (`docs/spec/keys.md`, "Plain keys").
    #[error("{scheme} {} keys are hopsig key files, not a plain standard key (docs/spec/keys.md)", kind.as_str())]
    PlainKeyNotAccepted {
        /// The scheme.
        scheme: String,
        /// Secret or public.
        kind: KeyKind,
    },
    /// A plain key was given where the scheme is read from the key file's header.
    #[error("a plain PKCS #8 or SubjectPublicKeyInfo key does not say which scheme it is for")]
    PlainKeyNamesNoScheme,
    /// A line of a state file (IBAS journal, HORS counter) read as bytes is malformed.
    #[error(transparent)]
    StateFileLine(#[from] LineError),
    /// The bytes are no file hopsig reads (`crate::inspect`).
    #[error(
        "not a file hopsig reads: neither a key file, an aggregate (which starts with \"HS\"), an IBAS journal, a HORS counter file, a plain PEM or DER key, nor a bare signature"
    )]
    UnknownFile,
    /// Inputs belong together but do not match (other cases than the typed ones above).
    #[error("{0}")]
    Mismatch(String),
    /// Signer state forbids the operation or cannot be kept.
    #[error("signer state: {0}")]
    State(#[from] StateError),
    /// The cryptographic backend failed.
    #[error("{0}")]
    Backend(#[from] BackendError),
}

/// A failure of the cryptographic backend (today OpenSSL), opaque so that no backend
/// type appears in the scheme API: a second backend or a language binding sits beside
/// this one without depending on OpenSSL's types. It keeps the backend's message
/// (`Display`, the same text as before: `OpenSSL failure: ...`) and the backend's own
/// error as [`std::error::Error::source`].
#[derive(Debug)]
pub struct BackendError {
    /// The backend's name, for the message.
    backend: &'static str,
    source: Box<dyn std::error::Error + Send + Sync>,
}

impl BackendError {
    /// A failure of the backend named `backend` (e.g. `"OpenSSL"`), with its own error
    /// as the source: for protocol crates that call a backend directly and report
    /// through [`Error::Backend`].
    pub fn new(
        backend: &'static str,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        BackendError {
            backend,
            source: Box::new(source),
        }
    }

    /// The name of the backend that failed (`"OpenSSL"`).
    pub fn backend(&self) -> &'static str {
        self.backend
    }
}

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} failure: {}", self.backend, self.source)
    }
}

impl std::error::Error for BackendError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.source.as_ref())
    }
}

/// Conversion of OpenSSL's results into the crate's [`Error`], in the crate only: the
/// conversion is a private trait rather than a public `From` impl so that the public API
/// names no OpenSSL type.
pub(crate) trait OpensslResult<T> {
    /// The result with an OpenSSL error stack wrapped as [`Error::Backend`].
    fn backend(self) -> Result<T, Error>;
}

impl<T> OpensslResult<T> for Result<T, openssl::error::ErrorStack> {
    fn backend(self) -> Result<T, Error> {
        self.map_err(openssl_error)
    }
}

/// An OpenSSL error stack as [`Error::Backend`].
pub(crate) fn openssl_error(stack: openssl::error::ErrorStack) -> Error {
    Error::Backend(BackendError::new("OpenSSL", stack))
}

impl From<RsaError> for Error {
    fn from(e: RsaError) -> Self {
        match e {
            RsaError::Backend(stack) => openssl_error(stack),
            other => Error::Key(other.to_string()),
        }
    }
}

impl From<std::convert::Infallible> for Error {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn an_openssl_failure_is_an_opaque_backend_error_with_its_message() {
        let err = openssl::pkey::PKey::public_key_from_der(b"not DER")
            .backend()
            .unwrap_err();
        let Error::Backend(backend) = &err else {
            panic!("{err:?}");
        };
        assert_eq!(backend.backend(), "OpenSSL");
        // The message the CLI printed before the wrapping, and OpenSSL's own error as
        // the source.
        assert!(err.to_string().starts_with("OpenSSL failure: "), "{err}");
        let source = std::error::Error::source(backend).unwrap();
        assert!(source.is::<openssl::error::ErrorStack>());
        assert_eq!(err.to_string(), format!("OpenSSL failure: {source}"));
    }
}
