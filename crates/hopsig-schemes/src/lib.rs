//! hopsig's signature schemes, all behind one set of traits.
//!
//! A *sequential aggregate signature* scheme (Brogle–Goldberg–Reyzin, full version §2)
//! has three algorithms: key generation; `Sign`, which takes **only** the signer's own
//! secret key, its own message and the aggregate so far (possibly empty, possibly
//! invalid: lazy verification); and `Ver`, which takes the ordered list of
//! (public key, message) pairs and the final aggregate. [`SequentialAggregate`] is that
//! shape in Rust; [`registry::ALL_SCHEMES`] lists every scheme once (id, header code,
//! parameter, description, constructor), and [`registry`] finds it by id, aggregate
//! header or key file.
//!
//! | id | what | module |
//! |----|------|--------|
//! | `bgr-rsa2048`, `bgr-rsa3072` | BGR with input-dependent randomness (§5), ℓ_r = 128 | [`bgr`] |
//! | `bgr-rand-rsa2048`, `bgr-rand-rsa3072` | BGR basic scheme, truly random r (§3) | [`bgr`] |
//! | `rsa2048-concat` | n independent RSA-2048 PKCS #1 v1.5 SHA-256 signatures | [`concat`](mod@concat) |
//! | `ecdsa-p256-concat` | n independent ECDSA P-256 SHA-256 signatures (RFC 8208) | [`concat`](mod@concat) |
//! | `bls12381-bgls` | BGLS aggregate, IETF BLS draft-05 basic scheme, BLS12-381 | [`bls`] |
//! | `ibas-bls12381` | Gentry–Ramzan identity-based aggregate, keys from a PKG | [`ibas`] |
//!
//! [`broken`] holds the two prior schemes that lazy verification breaks (LMRS and
//! Neven, BGR App. A), kept only to demonstrate the attack.
//!
//! **Cargo feature `hazmat`** (off by default; features are additive): the module
//! `hazmat`, whose `danger_…` functions break security if misused — signing with a
//! caller-chosen nonce or randomness, PKG setup from given random bytes, access to a
//! user key's secret fields. Only the constant-time test (`crates/hopsig-ctime`) and
//! this crate's own tests enable it.

pub mod batch;
pub mod bgr;
pub mod bls;
pub mod broken;
pub mod concat;
mod error;
pub mod floors;
#[cfg(feature = "hazmat")]
pub mod hazmat;
pub mod ibas;
pub mod inspect;
pub mod kcx;
mod keyblock;
pub mod pla;
pub mod registry;
mod traits;
pub mod wire;

pub use error::{BackendError, Error, StateError};
pub use registry::{lookup, schemes, Scheme};
pub use traits::{Aggregate, FreeAggregate, SequentialAggregate, SigningKey, VerifyingKey};

pub use hopsig_primitives as primitives;

/// Version string of the cryptographic backend (OpenSSL) hopsig is linked with.
pub fn backend_version() -> &'static str {
    openssl::version::version()
}
