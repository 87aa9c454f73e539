//! SignatureInfo, InterestSignatureInfo and KeyLocator (NDN-packet-spec
//! "Signature"): which algorithm signed a packet and where its key is.

use crate::name::Name;
use crate::tlv::{
    non_negative, put_extras, put_nested, put_tlv, read_non_negative, sequence, Element, Reader,
    TlvError,
};
use crate::types;

/// SignatureType values.
pub mod signature_type {
    /// DigestSha256: the SHA-256 of the signed portion.
    pub const DIGEST_SHA256: u64 = 0;
    /// SignatureSha256WithRsa: RSASSA-PKCS1-v1_5 over SHA-256.
    pub const SHA256_WITH_RSA: u64 = 1;
    /// SignatureSha256WithEcdsa: ECDSA over SHA-256, DER signature.
    pub const SHA256_WITH_ECDSA: u64 = 3;
    /// SignatureHmacWithSha256.
    pub const HMAC_WITH_SHA256: u64 = 4;
    /// SignatureEd25519.
    pub const ED25519: u64 = 5;
}

/// Where the verification key is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyLocator {
    /// The name of a key or certificate.
    Name(Name),
    /// A digest of the key.
    KeyDigest(Vec<u8>),
}

impl KeyLocator {
    fn encode(&self, out: &mut Vec<u8>) {
        put_nested(out, types::KEY_LOCATOR, |v| match self {
            KeyLocator::Name(n) => n.encode(v),
            KeyLocator::KeyDigest(d) => put_tlv(v, types::KEY_DIGEST, d),
        });
    }

    fn decode(value: &[u8]) -> Result<KeyLocator, TlvError> {
        let what = "KeyLocator";
        let mut r = Reader::new(value);
        let t = r.tlv(what)?;
        if !r.is_empty() {
            return Err(TlvError::Trailing {
                what,
                extra: r.remaining(),
            });
        }
        match t.typ {
            types::NAME => Ok(KeyLocator::Name(Name::decode_value(t.value)?)),
            types::KEY_DIGEST => Ok(KeyLocator::KeyDigest(t.value.to_vec())),
            other => Err(TlvError::Invalid {
                what,
                reason: format!("TLV-TYPE {other} is neither Name nor KeyDigest"),
            }),
        }
    }
}

/// A SignatureInfo (Data) or InterestSignatureInfo (Interest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureInfo {
    /// SignatureType.
    pub signature_type: u64,
    /// KeyLocator.
    pub key_locator: Option<KeyLocator>,
    /// ValidityPeriod of a certificate, kept as its TLV-VALUE.
    pub validity_period: Option<Vec<u8>>,
    /// SignatureNonce (signed Interests).
    pub nonce: Option<Vec<u8>>,
    /// SignatureTime, ms since 1970 (signed Interests).
    pub time: Option<u64>,
    /// SignatureSeqNum (signed Interests).
    pub seq_num: Option<u64>,
    /// Unrecognized non-critical elements, kept where they were.
    pub extras: Vec<(Option<usize>, Element)>,
}

const FIELDS: [u32; 6] = [
    types::SIGNATURE_TYPE,
    types::KEY_LOCATOR,
    types::VALIDITY_PERIOD,
    types::SIGNATURE_NONCE,
    types::SIGNATURE_TIME,
    types::SIGNATURE_SEQ_NUM,
];

impl SignatureInfo {
    /// A SignatureInfo of `signature_type` and nothing else.
    pub fn new(signature_type: u64) -> SignatureInfo {
        SignatureInfo {
            signature_type,
            key_locator: None,
            validity_period: None,
            nonce: None,
            time: None,
            seq_num: None,
            extras: vec![],
        }
    }

    /// The same with KeyLocator `name`.
    pub fn with_key_name(mut self, name: Name) -> SignatureInfo {
        self.key_locator = Some(KeyLocator::Name(name));
        self
    }

    /// Appends the element of type `typ` (SIGNATURE_INFO or INTEREST_SIGNATURE_INFO).
    pub fn encode(&self, typ: u32, out: &mut Vec<u8>) {
        put_nested(out, typ, |v| {
            put_extras(v, &self.extras, None);
            for (i, &field) in FIELDS.iter().enumerate() {
                match i {
                    0 => put_tlv(v, field, &non_negative(self.signature_type)),
                    1 => {
                        if let Some(k) = &self.key_locator {
                            k.encode(v);
                        }
                    }
                    2 => {
                        if let Some(p) = &self.validity_period {
                            put_tlv(v, field, p);
                        }
                    }
                    3 => {
                        if let Some(n) = &self.nonce {
                            put_tlv(v, field, n);
                        }
                    }
                    4 => {
                        if let Some(t) = self.time {
                            put_tlv(v, field, &non_negative(t));
                        }
                    }
                    _ => {
                        if let Some(s) = self.seq_num {
                            put_tlv(v, field, &non_negative(s));
                        }
                    }
                }
                put_extras(v, &self.extras, Some(i));
            }
        });
    }

    /// Decodes a SignatureInfo's TLV-VALUE.
    ///
    /// # Errors
    /// No SignatureType first, a bad field, or a critical element out of place.
    pub fn decode(value: &[u8]) -> Result<SignatureInfo, TlvError> {
        let what = "SignatureInfo";
        let mut info = SignatureInfo::new(0);
        let mut typed = false;
        info.extras = sequence(value, what, &FIELDS, |i, t| {
            match i {
                0 => {
                    info.signature_type = read_non_negative(t.value, "SignatureType")?;
                    typed = true;
                }
                1 => info.key_locator = Some(KeyLocator::decode(t.value)?),
                2 => info.validity_period = Some(t.value.to_vec()),
                3 => {
                    if t.value.is_empty() {
                        return Err(TlvError::Invalid {
                            what: "SignatureNonce",
                            reason: "empty".into(),
                        });
                    }
                    info.nonce = Some(t.value.to_vec());
                }
                4 => info.time = Some(read_non_negative(t.value, "SignatureTime")?),
                _ => info.seq_num = Some(read_non_negative(t.value, "SignatureSeqNum")?),
            }
            Ok(())
        })?;
        if !typed || info.extras.iter().any(|(after, _)| after.is_none()) {
            return Err(TlvError::Missing {
                what,
                missing: "SignatureType as its first element",
            });
        }
        Ok(info)
    }
}
