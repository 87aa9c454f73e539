//! The IBAS signature type for NDN packets (docs/spec/ndn-ibas.md): 004 §5.3's
//! SignatureSha256Ibas, given a SignatureType in NDN's unassigned range (> 200), since
//! the 4 that 004 used is now SignatureHmacWithSha256. The SignatureInfo holds the
//! SignatureType alone (5 octets, as in 004 §5.3); the SignatureValue is w ‖ S ‖ T of
//! hopsig's Gentry–Ramzan aggregate (16 + 48 + 96 = 160 octets) without hopsig's
//! 7-octet aggregate header: the number of signers comes from the packet's name.

use hopsig_primitives::codec::{Codec, Writer};
use hopsig_schemes::ibas::{IbasAggregate, W_LEN};
use hopsig_schemes::wire::{Header, SchemeCode, Signers, HEADER_LEN};

use crate::signature::SignatureInfo;
use crate::tlv::TlvError;

/// SignatureType of SignatureSha256Ibas here: the first unassigned value (NDN-packet-
/// spec "SignatureType": 2 and 6–200 reserved, above 200 unassigned; python-ndn gives
/// 200 a meaning of its own).
pub const SIGNATURE_TYPE: u64 = 201;

/// Length of the SignatureValue: w, S (compressed G1), T (compressed G2).
pub const VALUE_LEN: usize = W_LEN + 48 + 96;

/// The SignatureInfo: SignatureType 201 and nothing else.
pub fn signature_info() -> SignatureInfo {
    SignatureInfo::new(SIGNATURE_TYPE)
}

/// The SignatureValue of `agg`.
pub fn value(agg: &IbasAggregate) -> Vec<u8> {
    let mut w = Writer::new();
    let Ok(()) = agg.encode(&mut w);
    w.into_bytes().split_off(HEADER_LEN)
}

/// The aggregate of `signers` signers in SignatureValue `value`, its points checked
/// (on the curve, in the subgroup, not the identity).
///
/// # Errors
/// A value of the wrong length, a bad point, or a signer count out of range.
pub fn aggregate(value: &[u8], signers: usize) -> Result<IbasAggregate, TlvError> {
    let bad = |reason: String| TlvError::Invalid {
        what: "IBAS SignatureValue",
        reason,
    };
    if value.len() != VALUE_LEN {
        return Err(bad(format!("{} octets, not {VALUE_LEN}", value.len())));
    }
    let n = Signers::new(signers).map_err(|e| bad(e.to_string()))?;
    let mut w = Writer::new();
    let header = Header {
        code: SchemeCode::IbasBls12381,
        param: W_LEN as u8,
        signers: n,
    };
    let Ok(()) = header.encode(&mut w);
    w.bytes(value);
    IbasAggregate::from_bytes(&w.into_bytes()).map_err(|e| bad(e.to_string()))
}
