//! Packet Level Authentication building blocks (Brumley, ../shared/papers/003):
//! implicit certificates with ECDSA on Koblitz curves ([`icnr`]).

pub mod icnr;
