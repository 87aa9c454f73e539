//! TLV-TYPE numbers (NDN-packet-spec "TLV-TYPE Number Assignments").

#![allow(missing_docs)]

pub const INTEREST: u32 = 5;
pub const DATA: u32 = 6;
pub const NAME: u32 = 7;
pub const GENERIC_COMPONENT: u32 = 8;
pub const IMPLICIT_SHA256_DIGEST_COMPONENT: u32 = 1;
pub const PARAMETERS_SHA256_DIGEST_COMPONENT: u32 = 2;
pub const KEYWORD_COMPONENT: u32 = 32;
pub const SEGMENT_COMPONENT: u32 = 50;
pub const BYTE_OFFSET_COMPONENT: u32 = 52;
pub const VERSION_COMPONENT: u32 = 54;
pub const TIMESTAMP_COMPONENT: u32 = 56;
pub const SEQUENCE_NUM_COMPONENT: u32 = 58;
pub const CAN_BE_PREFIX: u32 = 33;
pub const MUST_BE_FRESH: u32 = 18;
pub const FORWARDING_HINT: u32 = 30;
pub const NONCE: u32 = 10;
pub const INTEREST_LIFETIME: u32 = 12;
pub const HOP_LIMIT: u32 = 34;
pub const APPLICATION_PARAMETERS: u32 = 36;
pub const INTEREST_SIGNATURE_INFO: u32 = 44;
pub const INTEREST_SIGNATURE_VALUE: u32 = 46;
pub const META_INFO: u32 = 20;
pub const CONTENT: u32 = 21;
pub const SIGNATURE_INFO: u32 = 22;
pub const SIGNATURE_VALUE: u32 = 23;
pub const CONTENT_TYPE: u32 = 24;
pub const FRESHNESS_PERIOD: u32 = 25;
pub const FINAL_BLOCK_ID: u32 = 26;
pub const SIGNATURE_TYPE: u32 = 27;
pub const KEY_LOCATOR: u32 = 28;
pub const KEY_DIGEST: u32 = 29;
pub const SIGNATURE_NONCE: u32 = 38;
pub const SIGNATURE_TIME: u32 = 40;
pub const SIGNATURE_SEQ_NUM: u32 = 42;
pub const VALIDITY_PERIOD: u32 = 253;
