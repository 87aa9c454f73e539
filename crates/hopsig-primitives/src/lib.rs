//! Primitives hopsig's signature schemes are built on.
//!
//! This crate knows nothing about schemes. It offers:
//!
//! * [`codec`] — both halves of every wire format: the [`codec::Codec`] trait, a
//!   bounds-checked [`codec::Reader`] with the precise [`codec::DecodeError`], a
//!   [`codec::Writer`] whose length prefixes are checked ([`codec::EncodeError`]), and
//!   [`code_points!`] for one-byte code-point enums;
//! * [`hash`] — SHA-256 with domain separation, MGF1-SHA-256 (the full-domain hash of
//!   PKCS #1, used for BGR's `G`) and HMAC-SHA-256 (BGR's PRF);
//! * [`hors`] — HORS few-time signatures over a Merkle tree (KC-MT), with a signature
//!   counter that enforces the per-key limit Σ durably;
//! * [`pairing`] — the BLS12-381 pairing groups over blst: checked point decoding,
//!   constant-time scalar multiplication, RFC 9380 hashing to G1 and to scalars,
//!   multi-pairing products, and a variable-time fixed-base table for public points;
//! * [`rsa`] — the RSA trapdoor permutation `π(x) = x^e mod N` and its inverse through
//!   OpenSSL's raw (unpadded) RSA with CRT and blinding;
//! * [`valgrind`] — memcheck client requests that mark secrets undefined and public
//!   results defined, for the constant-time test (no-ops unless the `valgrind` feature
//!   is on);
//! * [`armor`] — hopsig's text key files: standard PEM blocks (which OpenSSL reads)
//!   preceded by `name: value` header lines that say which scheme a key belongs to;
//! * [`input`] — input files read within a size limit, into a zeroized buffer;
//! * [`par`] — the one executor of parallel work: an ordered, batched map with
//!   bounded read-ahead ([`par::Ordered`]) and a bounded pool for a producer that must
//!   not block ([`par::Pool`]);
//! * [`persist`] — crash-safe files: output files written atomically and placed all
//!   together or not at all, and append-only journals (memory or file) for signer
//!   state such as the HORS counter.

pub mod armor;
pub mod codec;
pub mod hash;
pub mod hors;
pub mod input;
pub mod pairing;
pub mod par;
pub mod persist;
pub mod progress;
pub mod rsa;
pub mod valgrind;
