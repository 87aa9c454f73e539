//! `hopsig.bgpsec` (native half): BGPsec objects and operations over `hopsig_bgp`
//! (docs/guide/python.md, "BGPsec").
//!
//! | Python | what | file |
//! |---|---|---|
//! | `SecurePathSegment`, `Signature`, `SignatureBlock`, `BgpsecPath` | the BGPsec_PATH attribute (RFC 8205 §3) | `bgpsec/path.rs` |
//! | `Update`, `PathAttribute` | a whole UPDATE message (RFC 4271 §4.3) | `bgpsec/update.rs` |
//! | `SigningKey`, `RouterKeys` | a router's key pair; the (AS, SKI, key) triples a validator trusts (RFC 8205 §5.2 step 2) | `bgpsec/keys.rs` |
//! | `Signer`, `sign` | a router signing its outgoing UPDATE (RFC 8205 §4.2) | `bgpsec/sign.rs` |
//! | `Verdict`, `validate`, `validate_many`, `backend` | RFC 8205 §5.2, one UPDATE or many on every core (cross-UPDATE batches); the signature verifier | `bgpsec/verdict.rs` |
//!
//! Every object is decoded by hopsig's own codec and encoded back by it, so
//! `to_bytes()` of a decoded object gives back exactly the octets it came from
//! (`hopsig_bgp::packet`, "canonical form"). Errors are `hopsig.errors.InputError`
//! with a `reason`: `decode` (bytes that do not decode), `bad-argument` (objects
//! that break a rule of the RFCs), `io` (a file that cannot be read), `key` (a key
//! file or router key that cannot be used), `rtr` (an RTR cache that cannot be read),
//! `sign` (a path that cannot be signed).

mod keys;
mod path;
mod sign;
mod update;
mod verdict;

use pyo3::prelude::*;

/// What `__reduce__` returns for pickling: a callable (the class, or its
/// `from_bytes`) and its arguments, so that objects cross processes (Dask).
type Reduced<'py, Args> = (Bound<'py, PyAny>, Args);

/// Adds this module's classes and functions to `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<path::SecurePathSegment>()?;
    m.add_class::<path::Signature>()?;
    m.add_class::<path::SignatureBlock>()?;
    m.add_class::<path::BgpsecPath>()?;
    m.add_class::<update::PathAttribute>()?;
    m.add_class::<update::Update>()?;
    m.add_class::<keys::SigningKey>()?;
    m.add_class::<keys::RouterKeys>()?;
    m.add_class::<sign::Signer>()?;
    m.add_function(wrap_pyfunction!(sign::sign, m)?)?;
    m.add_class::<verdict::Verdict>()?;
    m.add_function(wrap_pyfunction!(verdict::validate, m)?)?;
    m.add_function(wrap_pyfunction!(verdict::validate_many, m)?)?;
    m.add_function(wrap_pyfunction!(verdict::backend, m)?)?;
    Ok(())
}
