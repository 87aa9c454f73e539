//! Packet Level Authentication on real IPv6 packets (Brumley, `../shared/papers/003`
//! §I–II): a sender signs every packet, and every router on the path checks it before
//! forwarding: "signatures must be able to be quickly verified to increase throughput"
//! (§I). The cryptography (Koblitz-curve ECDSA, implicit certificates, the fused
//! extraction + verification of eq. 9, the PLA header bytes) lives in
//! `hopsig_schemes::pla`; this crate puts it on the wire.
//!
//! - [`option`]: the PLA header as IPv6 Hop-by-Hop option 0x1E: finding it, adding it
//!   (padding, alignment, Payload Length), and the octets the signature covers.
//! - [`sender`]: signs IPv6 packets with a host's key, numbering them.
//! - [`hosts`]: the sending hosts of a capture (one key, or every source enrolled with
//!   a TTP) and what signing each frame did.
//! - [`window`]: the per-(TTP, source) anti-replay sequence-number window and its
//!   bounded table.
//! - [`router`]: the per-hop check, cheap checks first, with a verdict per packet.
//! - [`pipeline`]: the router's check on every core, verdicts in packet order.
//! - [`link`] and [`capture`]: where the IPv6 packet sits in a captured frame (via
//!   `etherparse`), and pcap / pcapng files in and out (via `pcap-file`).
//!
//! `docs/spec/pla.md`, section "PLA in IPv6 packets", specifies every byte and check.

pub mod capture;
pub mod hosts;
pub mod link;
pub mod option;
pub mod pipeline;
pub mod router;
pub mod sender;
pub mod window;

pub use hopsig_schemes::pla::header::{KeyMaterial, PlaCurve, PlaHeader, TtpDirectory};
pub use router::{Router, RouterConfig, Verdict};
pub use sender::{NotSigned, Sender};
