//! hopsig's BGP protocol layer (ARCHITECTURE.md, "protocols").
//!
//! * [`packet`] — the BGP wire codec: the message header, OPEN with capabilities
//!   (4-octet AS, multiprotocol, BGPsec), KEEPALIVE, NOTIFICATION and UPDATE with its
//!   path attributes, among them the BGPsec_PATH attribute of RFC 8205 §3; every error
//!   carries the receiver's action from RFC 7606.
//! * [`mrt`] — BGP workloads read from MRT files (RFC 6396), as RIPE RIS publishes
//!   them, through `bgpkit-parser`.
//!
//! ```
//! use hopsig_bgp::packet::{AsWidth, Message};
//!
//! let keepalive = [0xff; 16].iter().copied().chain([0x00, 0x13, 0x04]).collect::<Vec<u8>>();
//! let m = Message::decode(&keepalive, AsWidth::Four).unwrap();
//! assert_eq!(m, Message::Keepalive);
//! assert_eq!(m.encoding(AsWidth::Four).unwrap(), keepalive);
//! ```

pub mod mrt;
pub mod packet;
