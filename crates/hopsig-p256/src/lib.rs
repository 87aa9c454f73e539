//! Multi-buffer P-256 ECDSA **verification** (issue 28): eight signatures verified in
//! one pass of AVX-512 IFMA (52-bit multiply-accumulate on eight 64-bit lanes, radix
//! 2^52 field elements), as Intel's multi-buffer crypto library does for ECDSA, and
//! portable one-lane code for everything around it and for machines without IFMA.
//!
//! Verification handles public data only (the key, the digest, the signature), so the
//! code is variable-time throughout and its functions say so (`_vartime`).
//!
//! Layout:
//! * [`field52`]: one lane of arithmetic mod p and mod n in radix 2^52, Montgomery
//!   form (R = 2^260) — the reference of the vector code and the arithmetic of tables,
//!   scalars and the final check.
//! * `kernel`: what the vector code computes, per lane: u1·G + u2·Q by one shared
//!   chain of doublings with signed (Booth) windows, from per-key tables.
//! * `ifma`: that computation on eight lanes with AVX-512 IFMA — the crate's one
//!   module that uses `unsafe` (`std::arch` intrinsics), entered only after
//!   [`hopsig_cpu`] says the processor has the instructions.
//!
//! Algorithm: SEC 1 v2 §4.1.4 (ECDSA verification), FIPS 186-5 §6.4.2.

mod curve;
pub mod field52;
pub(crate) mod ifma;
pub(crate) mod kernel;
mod scalar;
mod table;

mod verify;

pub use verify::{
    active_backend, verify_batch_vartime, verify_batch_with_vartime, verify_vartime, Backend, Item,
    KeyError, PublicKey,
};
