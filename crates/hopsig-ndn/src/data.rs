//! The Data packet (NDN-packet-spec "Data Packet"): Name, MetaInfo, Content and the
//! signature, with its signed portion.

use crate::name::{Component, Name};
use crate::signature::SignatureInfo;
use crate::tlv::{
    non_negative, put_extras, put_nested, put_tlv, read_non_negative, sequence, single, Element,
    Reader, TlvError,
};
use crate::types;

/// ContentType values.
pub mod content_type {
    /// BLOB: the payload.
    pub const BLOB: u64 = 0;
    /// LINK.
    pub const LINK: u64 = 1;
    /// KEY: a public key or certificate.
    pub const KEY: u64 = 2;
    /// NACK: an application-level negative answer.
    pub const NACK: u64 = 3;
}

/// MetaInfo.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetaInfo {
    /// ContentType (absent means BLOB).
    pub content_type: Option<u64>,
    /// FreshnessPeriod, ms.
    pub freshness_period: Option<u64>,
    /// FinalBlockId.
    pub final_block_id: Option<Component>,
    /// Unrecognized non-critical elements, kept where they were.
    pub extras: Vec<(Option<usize>, Element)>,
}

const META_FIELDS: [u32; 3] = [
    types::CONTENT_TYPE,
    types::FRESHNESS_PERIOD,
    types::FINAL_BLOCK_ID,
];

impl MetaInfo {
    fn encode(&self, out: &mut Vec<u8>) {
        put_nested(out, types::META_INFO, |v| {
            put_extras(v, &self.extras, None);
            if let Some(t) = self.content_type {
                put_tlv(v, types::CONTENT_TYPE, &non_negative(t));
            }
            put_extras(v, &self.extras, Some(0));
            if let Some(f) = self.freshness_period {
                put_tlv(v, types::FRESHNESS_PERIOD, &non_negative(f));
            }
            put_extras(v, &self.extras, Some(1));
            if let Some(c) = &self.final_block_id {
                put_nested(v, types::FINAL_BLOCK_ID, |b| c.encode(b));
            }
            put_extras(v, &self.extras, Some(2));
        });
    }

    fn decode(value: &[u8]) -> Result<MetaInfo, TlvError> {
        let mut m = MetaInfo::default();
        m.extras = sequence(value, "MetaInfo", &META_FIELDS, |i, t| {
            match i {
                0 => m.content_type = Some(read_non_negative(t.value, "ContentType")?),
                1 => m.freshness_period = Some(read_non_negative(t.value, "FreshnessPeriod")?),
                _ => {
                    let mut r = Reader::new(t.value);
                    m.final_block_id = Some(Component::decode(&mut r)?);
                    if !r.is_empty() {
                        return Err(TlvError::Trailing {
                            what: "FinalBlockId",
                            extra: r.remaining(),
                        });
                    }
                }
            }
            Ok(())
        })?;
        Ok(m)
    }
}

/// The encoded size of each part of a Data packet, in octets (004 Table 3's columns).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Parts {
    /// The outer TLV-TYPE and TLV-LENGTH.
    pub tlv: usize,
    /// The Name element.
    pub name: usize,
    /// The MetaInfo element (0 if absent).
    pub meta_info: usize,
    /// The Content element (0 if absent).
    pub content: usize,
    /// The SignatureInfo element.
    pub signature_info: usize,
    /// The SignatureValue element.
    pub signature_value: usize,
    /// Unrecognized elements kept.
    pub extras: usize,
    /// The whole packet.
    pub total: usize,
}

/// A Data packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Data {
    /// Name.
    pub name: Name,
    /// MetaInfo (absent if `None`).
    pub meta_info: Option<MetaInfo>,
    /// Content (absent if `None`; `Some(vec![])` is an empty Content element).
    pub content: Option<Vec<u8>>,
    /// SignatureInfo.
    pub signature_info: SignatureInfo,
    /// SignatureValue.
    pub signature_value: Vec<u8>,
    /// Unrecognized non-critical elements, kept where they were (never before Name).
    pub extras: Vec<(Option<usize>, Element)>,
}

const FIELDS: [u32; 5] = [
    types::NAME,
    types::META_INFO,
    types::CONTENT,
    types::SIGNATURE_INFO,
    types::SIGNATURE_VALUE,
];

impl Data {
    /// Whether this Data can answer `interest` by name (NDN packet spec v0.3,
    /// interest.rst "Name", "CanBePrefix"): the Interest's Name is the Data's, or a
    /// prefix of it when CanBePrefix is set. A producer answers nothing else, since
    /// the forwarder returns the Data along the Interest's PIT entry whatever its
    /// name. An Interest naming an implicit digest is not matched (hopsig computes
    /// none); MustBeFresh concerns caches, not the producer.
    pub fn satisfies(&self, interest: &crate::interest::Interest) -> bool {
        interest.name == self.name
            || (interest.can_be_prefix && interest.name.is_prefix_of(&self.name))
    }

    /// Unsigned Data `name` with `content`, SignatureInfo of `info` and an empty
    /// SignatureValue (to be filled by signing the signed portion).
    pub fn new(name: Name, content: Vec<u8>, info: SignatureInfo) -> Data {
        Data {
            name,
            meta_info: None,
            content: Some(content),
            signature_info: info,
            signature_value: vec![],
            extras: vec![],
        }
    }

    /// The signed portion: every element from Name up to, not including,
    /// SignatureValue, as encoded.
    pub fn signed_portion(&self) -> Vec<u8> {
        let mut v = vec![];
        // None belong here; a Data built with some is encoded as built, and refused
        // by the decoder.
        put_extras(&mut v, &self.extras, None);
        self.name.encode(&mut v);
        put_extras(&mut v, &self.extras, Some(0));
        if let Some(m) = &self.meta_info {
            m.encode(&mut v);
        }
        put_extras(&mut v, &self.extras, Some(1));
        if let Some(c) = &self.content {
            put_tlv(&mut v, types::CONTENT, c);
        }
        put_extras(&mut v, &self.extras, Some(2));
        self.signature_info.encode(types::SIGNATURE_INFO, &mut v);
        put_extras(&mut v, &self.extras, Some(3));
        v
    }

    /// The Data TLV.
    pub fn encode(&self) -> Vec<u8> {
        let mut v = self.signed_portion();
        put_tlv(&mut v, types::SIGNATURE_VALUE, &self.signature_value);
        put_extras(&mut v, &self.extras, Some(4));
        let mut out = Vec::with_capacity(v.len() + 4);
        put_tlv(&mut out, types::DATA, &v);
        out
    }

    /// The encoded size of each part.
    pub fn parts(&self) -> Parts {
        let len = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut v = vec![];
            f(&mut v);
            v.len()
        };
        let total = self.encode().len();
        let p = Parts {
            name: len(&|v| self.name.encode(v)),
            meta_info: self.meta_info.as_ref().map_or(0, |m| len(&|v| m.encode(v))),
            content: self
                .content
                .as_ref()
                .map_or(0, |c| len(&|v| put_tlv(v, types::CONTENT, c))),
            signature_info: len(&|v| self.signature_info.encode(types::SIGNATURE_INFO, v)),
            signature_value: len(&|v| put_tlv(v, types::SIGNATURE_VALUE, &self.signature_value)),
            extras: self.extras.iter().map(|(_, e)| len(&|v| e.encode(v))).sum(),
            tlv: 0,
            total,
        };
        let inner =
            p.name + p.meta_info + p.content + p.signature_info + p.signature_value + p.extras;
        Parts {
            tlv: total - inner,
            ..p
        }
    }

    /// Decodes one Data packet, all of `input`.
    ///
    /// # Errors
    /// Not a Data TLV, a missing Name / SignatureInfo / SignatureValue, a bad
    /// field, an element before Name, a critical element out of place.
    pub fn decode(input: &[u8]) -> Result<Data, TlvError> {
        let what = "Data";
        let outer = single(input, types::DATA, what)?;
        let (mut name, mut meta, mut content, mut info, mut value) = (None, None, None, None, None);
        let extras = sequence(outer.value, what, &FIELDS, |i, t| {
            match i {
                0 => name = Some(Name::decode_value(t.value)?),
                1 => meta = Some(MetaInfo::decode(t.value)?),
                2 => content = Some(t.value.to_vec()),
                3 => info = Some(SignatureInfo::decode(t.value)?),
                _ => value = Some(t.value.to_vec()),
            }
            Ok(())
        })?;
        if extras.iter().any(|(after, _)| after.is_none()) {
            return Err(TlvError::Missing {
                what,
                missing: "Name as its first element",
            });
        }
        let missing = |missing| TlvError::Missing { what, missing };
        Ok(Data {
            name: name.ok_or(missing("Name"))?,
            meta_info: meta,
            content,
            signature_info: info.ok_or(missing("SignatureInfo"))?,
            signature_value: value.ok_or(missing("SignatureValue"))?,
            extras,
        })
    }
}
