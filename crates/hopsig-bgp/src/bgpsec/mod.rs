//! BGPsec signing and validation (RFC 8205 §4, §5), as ARCHITECTURE.md groups them:
//!
//! * [`signature_input`] — the octets each hop signs (§4.2, Figure 8), built once per
//!   path;
//! * [`suite`] — algorithm suites as table entries (RFC 8608 suite 1 first, then
//!   hopsig's experimental suites);
//! * [`sign`] — a router's outgoing BGPsec UPDATE and a path signed hop by hop (§4);
//! * [`validate`] — §5.2, with the step that failed;
//! * [`as_path_equivalent`] — the AS_PATH of a Secure_Path (§4.4);
//! * [`cache`] — verified signature checks remembered (§5.2 steps 3–4 done once per
//!   key, signature and digest);
//! * [`prefetch`] — the signature checks of many UPDATEs verified in one batch, ahead
//!   of the walk (issue 28).
//!
//! The wire form of BGPsec_PATH is [`crate::packet`]'s; the router keys the validator
//! looks up are [`crate::router_key`]'s. Each module is also reachable at the crate
//! root (`hopsig_bgp::suite`, ...), where it was before.

pub mod as_path_equivalent;
pub mod cache;
pub mod prefetch;
pub mod sign;
pub mod signature_input;
pub mod suite;
pub mod validate;
