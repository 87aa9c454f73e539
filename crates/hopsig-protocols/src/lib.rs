//! hopsig's protocol layer. So far: BGP workloads read from MRT files (RFC 6396), as
//! RIPE RIS publishes them, through `bgpkit-parser`.

pub mod mrt;
