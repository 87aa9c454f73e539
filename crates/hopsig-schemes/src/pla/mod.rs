//! Packet Level Authentication building blocks (Brumley, ../shared/papers/003):
//! implicit certificates with ECDSA on Koblitz curves ([`icnr`]) and the per-packet
//! header with its per-hop check ([`header`]).

pub mod icnr;

/// The Koblitz curve types, re-exported for callers of [`icnr`].
pub mod koblitz {
    pub use hopsig_koblitz::curve::{Affine, Curve, K163, K233, K283};
    pub use hopsig_koblitz::tau::{TauTable, FIXED_WIDTH, POINT_WIDTH};
}
pub mod files;
pub mod header;
