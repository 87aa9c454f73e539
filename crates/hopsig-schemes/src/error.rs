use hopsig_primitives::armor::ArmorError;
use hopsig_primitives::codec::DecodeError;
use hopsig_primitives::rsa::RsaError;

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
    /// Signer state forbids the operation or cannot be kept (an IBAS state string w
    /// the key already signed under, or its journal file failing).
    #[error("signer state: {0}")]
    State(String),
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
