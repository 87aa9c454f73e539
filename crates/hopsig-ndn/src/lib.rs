//! hopsig's NDN protocol layer: the NDN packet format v0.3 (named-data
//! NDN-packet-spec) — TLV with VAR-NUMBER types and lengths ([`tlv`]), Names and
//! their URI form ([`name`]), Interest ([`interest`]) and Data ([`data`]) packets,
//! their signature elements ([`signature`]), signing and verification with one
//! implementation per SignatureType — DigestSha256, RSA, ECDSA and IBAS ([`sign`],
//! [`ibas`]) — and a face to a forwarder with prefix registration ([`face`]); 004's
//! moderator-controlled information sharing ([`moderation`]).
//!
//! Decoding is strict and never panics: every malformed input is a [`TlvError`]
//! naming the element. Unrecognized non-critical elements are kept where they were
//! and critical ones refused (the spec's evolvability rule), so any packet the
//! decoder accepts re-encodes to the same octets.

pub mod data;
pub mod face;
pub mod interest;
pub mod moderation;
pub mod name;
pub mod seen;
pub mod sign;
pub mod signature;
pub mod tlv;
pub mod types;

pub use data::{Data, MetaInfo, Parts};
pub use face::{DropReason, Drops, Face, FaceError, Packet};
pub use interest::Interest;
pub use name::{Component, Name};
pub use sign::ibas;
pub use sign::{
    SignatureAlgorithm, SignatureError, Signer, SignerMut, SigningKey, Verifier, VerifyingKey,
};
pub use signature::{KeyLocator, SignatureInfo};
pub use tlv::TlvError;
