//! hopsig's BGP protocol layer (ARCHITECTURE.md, "protocols").
//!
//! * [`packet`] — the BGP wire codec: the message header, OPEN with capabilities
//!   (4-octet AS, multiprotocol, BGPsec), KEEPALIVE, NOTIFICATION and UPDATE with its
//!   path attributes, among them the BGPsec_PATH attribute of RFC 8205 §3; every error
//!   carries the receiver's action from RFC 7606.
//! * [`bgpsec`] — BGPsec signing and validation (RFC 8205 §4, §5): [`signature_input`] — the
//!   octets each hop signs, built once per path; [`suite`] — algorithm suites as table
//!   entries (suite 1 of RFC 8608 first); [`router_key`] — the RPKI's (AS, SKI, key)
//!   triples and their lookup; [`sign`] — a router's outgoing BGPsec UPDATE and a path
//!   signed hop by hop; [`validate`] — RFC 8205 §5.2, with the step that failed;
//!   [`as_path_equivalent`] — the AS_PATH of a Secure_Path (§4.4).
//! * [`as4`] — AS path information to and from 2-octet ("OLD") speakers: AS_TRANS,
//!   AS4_PATH and AS4_AGGREGATOR (RFC 6793 §4.2).
//! * [`mrt`] — BGP workloads read from MRT files (RFC 6396), as RIPE RIS publishes
//!   them, through `bgpkit-parser`.
//! * `rpki` (cargo feature `rpki`) — live RPKI data: RTR client (several caches by
//!   preference) and cache, SLURM, rpki-client and Routinator JSON, merged into one
//!   view with route origin validation (RFC 6811) and ASPA verification beside BGPsec.
//! * `speaker` (cargo feature `speaker`) — a BGP-4 speaker with BGPsec: the RFC 4271
//!   FSM as a pure function, the RIB, and the tokio I/O shell around them.
//! * [`trace`] — BGPsec over real MRT files: each announcement signed by the ASes on
//!   its path and written as MRT (`sign-mrt`), validated on several threads
//!   (`validate-mrt`), shown in bgpkit-parser's pipe format (`inspect`).
//!
//! ```
//! use hopsig_bgp::packet::{AsWidth, Message};
//!
//! let keepalive = [0xff; 16].iter().copied().chain([0x00, 0x13, 0x04]).collect::<Vec<u8>>();
//! let m = Message::decode(&keepalive, AsWidth::Four).unwrap();
//! assert_eq!(m, Message::Keepalive);
//! assert_eq!(m.encoding(AsWidth::Four).unwrap(), keepalive);
//! ```
//!
//! **Cargo feature `hazmat`** (off by default; features are additive): the module
//! `hazmat`, whose `danger_…` function signs suite 1 with a caller-chosen nonce, for the
//! RFC 8608 Appendix A examples. Only this crate's tests enable it.

pub mod as4;
pub mod bgpsec;
#[cfg(feature = "speaker")]
pub mod feed;
#[cfg(feature = "hazmat")]
pub mod hazmat;
pub mod mrt;
pub mod packet;
pub mod router_key;
#[cfg(feature = "rpki")]
pub mod rpki;
#[cfg(feature = "speaker")]
pub mod speaker;
pub mod trace;

pub use bgpsec::{as_path_equivalent, cache, prefetch, sign, signature_input, suite, validate};

pub use cache::SignatureCache;
pub use router_key::{KeyLookup, RouterKey, RouterKeys, Ski};
pub use sign::{Chain, Hop, SignError, Signer};
pub use signature_input::{Coverage, SignatureInput, SignedNlri};
pub use suite::{AlgorithmSuite, BlockFault, SigningKey, VerifyingKey, SUITES};
pub use validate::{BlockFailure, Malformed, NotValid, Peer, Unsigned, Validation, Validator};
