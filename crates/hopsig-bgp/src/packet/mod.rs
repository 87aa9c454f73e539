//! The BGP wire codec: messages (RFC 4271 §4), capabilities (RFC 5492), path
//! attributes including BGPsec_PATH (RFC 8205 §3), with RFC 7606 error handling.
//!
//! One file per wire element, each with the RFC's byte diagram, both halves (decode
//! and encode over [`hopsig_primitives::codec`]'s `Reader` and `Writer`), and tests on
//! commented bytes:
//!
//! | element | RFC | file |
//! |---|---|---|
//! | message header | 4271 §4.1 | `header.rs` |
//! | OPEN, optional parameters | 4271 §4.2, 5492 §4 | `open.rs` |
//! | capabilities: multiprotocol, 4-octet AS, BGPsec | 4760 §8, 6793 §3, 8205 §2.1 | `capability.rs` |
//! | UPDATE | 4271 §4.3, 7606, 8205 §4.1 / §5.2 | `update.rs` |
//! | NOTIFICATION | 4271 §4.5 | `notification.rs` |
//! | whole message, KEEPALIVE | 4271 §4, §4.4 | `message.rs` |
//! | ROUTE-REFRESH, session capabilities (route refresh, extended messages, graceful restart) | 2918, 7313, 8654, 4724 | `route_refresh.rs` |
//! | prefix (NLRI) | 4271 §4.3, 4760 §5 | `prefix.rs` |
//! | attribute header, kept attributes | 4271 §4.3 | `attribute/mod.rs` |
//! | ORIGIN | 4271 §5.1.1 | `attribute/origin.rs` |
//! | AS_PATH, AS4_PATH | 4271 §5.1.2, 6793 §3 | `attribute/as_path.rs` |
//! | NEXT_HOP | 4271 §5.1.3 | `attribute/next_hop.rs` |
//! | MP_REACH_NLRI, MP_UNREACH_NLRI | 4760 §3, §4 | `attribute/mp_reach.rs`, `attribute/mp_unreach.rs` |
//! | BGPsec_PATH | 8205 §3 | `attribute/bgpsec/mod.rs` |
//! | Secure_Path | 8205 §3.1 | `attribute/bgpsec/secure_path.rs` |
//! | Signature_Block, Signature Segment | 8205 §3.2 | `attribute/bgpsec/signature_block.rs` |
//! | code points | IANA registries | `iana.rs` |
//! | errors and their RFC 7606 actions | 4271 §6, 7606 §2–7 | `error.rs` |
//!
//! The codec is byte-exact: every field the RFCs tell a receiver to ignore (reserved
//! octets, unassigned flag bits, trailing bits of prefixes, the Extended Length flag
//! on a short attribute) is kept, so for every accepted input `encode(decode(x)) == x`,
//! and for every value that encodes `decode(encode(v)) == v`. docs/spec/bgpsec.md,
//! "Wire format", lists the choices where the RFCs leave one.
//!
//! Byte strings that a message carries through unchanged (unknown attributes and
//! capabilities, signatures, NOTIFICATION data) are borrowed from the decoded octets
//! (`Cow`); `into_owned` detaches a value from them.

pub mod attribute;
mod capability;
mod error;
mod header;
pub mod iana;
mod message;
mod notification;
mod open;
mod prefix;
pub mod route_refresh;
mod update;

pub use attribute::bgpsec::{
    BgpsecPath, SecurePathFlags, SecurePathSegment, SignatureBlock, SignatureSegment, SKI_LEN,
};
pub use attribute::{
    AsPath, AsPathSegment, AsWidth, AttrFlags, AttributeValue, MpReachNlri, MpUnreachNlri, NextHop,
    PathAttribute, RawAttribute,
};
pub use capability::{BgpsecCapability, Capability, Direction, MultiprotocolCapability};
pub use error::{
    Action, AttributeError, AttributeFault, BgpsecNlriFault, BgpsecPathError, EncodeError,
    HeaderError, MessageError, OpenError, UpdateError, UpdateErrorKind,
};
pub use header::{Header, HEADER_LEN, MAX_EXTENDED_MESSAGE_LEN, MAX_MESSAGE_LEN};
pub use iana::{
    Afi, AlgorithmSuite, AsPathSegmentType, AttrType, CapabilityCode, ErrorCode, FsmSubcode,
    MessageType, OpenSubcode, Origin, Safi, SuiteIdKind,
};
pub use message::Message;
pub use notification::Notification;
pub use open::{Open, AS_TRANS};
pub use prefix::{read_prefixes, Prefix};
pub use update::Update;
