//! AS_PATH (RFC 4271 §4.3 b, §5.1.2) and AS4_PATH (RFC 6793 §3) attribute values.
//!
//! ```text
//! a sequence of path segments:
//! +-----------------+-----------------+--------------------------------------+
//! | segment type    | segment length  | segment value: `length` AS numbers   |
//! | (1 octet)       | (1 octet)       | of 2 or 4 octets each                |
//! +-----------------+-----------------+--------------------------------------+
//! ```
//!
//! Segment types: 1 AS_SET, 2 AS_SEQUENCE (RFC 4271), 3 AS_CONFED_SEQUENCE,
//! 4 AS_CONFED_SET (RFC 5065). The width of an AS number is not in the attribute: it
//! is 4 octets in AS4_PATH, and in AS_PATH it is 4 octets only between two speakers
//! that both announced the 4-octet AS capability (RFC 6793 §4). So the width is an
//! explicit parameter, [`AsWidth`], of decoding and encoding.
//!
//! Malformed (RFC 7606 §7.2, RFC 6793 §6): an unknown segment type, a segment running
//! past the attribute, a single octet left after the last segment, a segment of length
//! zero; for AS4_PATH also an empty attribute. An empty AS_PATH is valid (iBGP). The
//! RFC 6793 §6 rule that confederation segments in AS4_PATH are discarded belongs to
//! the merge of AS_PATH and AS4_PATH, not to the codec: they are kept.

use hopsig_primitives::codec::{self, Codec, DecodeError, Reader, Writer};

use crate::packet::iana::AsPathSegmentType;

/// How wide an AS number is in AS_PATH (and AGGREGATOR) on a session (RFC 6793 §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AsWidth {
    /// 2 octets: at least one side is an "OLD" speaker, or the MRT record is a
    /// `BGP4MP_MESSAGE` (RFC 6396 §4.4.2).
    Two,
    /// 4 octets: both sides announced the 4-octet AS capability, or the MRT record is
    /// a `BGP4MP_MESSAGE_AS4` (RFC 6396 §4.4.3).
    Four,
}

impl AsWidth {
    /// Octets per AS number.
    pub fn octets(self) -> usize {
        match self {
            AsWidth::Two => 2,
            AsWidth::Four => 4,
        }
    }
}

/// One path segment.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AsPathSegment {
    /// AS_SET, AS_SEQUENCE, AS_CONFED_SEQUENCE or AS_CONFED_SET.
    pub kind: AsPathSegmentType,
    /// The AS numbers, 1 to 255 of them (2-octet ones widened to `u32`).
    pub asns: Vec<u32>,
}

/// An AS_PATH or AS4_PATH value: its segments in order.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct AsPath {
    /// The segments; empty for the empty AS_PATH.
    pub segments: Vec<AsPathSegment>,
}

impl AsPath {
    /// One AS_SEQUENCE of `asns` (empty if `asns` is).
    pub fn sequence(asns: Vec<u32>) -> AsPath {
        let segments = if asns.is_empty() {
            vec![]
        } else {
            vec![AsPathSegment {
                kind: AsPathSegmentType::AsSequence,
                asns,
            }]
        };
        AsPath { segments }
    }

    /// Decodes an AS_PATH value whose AS numbers are `width` wide.
    ///
    /// # Errors
    /// [`DecodeError::UnknownCode`] for a segment type, [`DecodeError::Invalid`] for a
    /// zero segment length, [`DecodeError::ShortInput`] for a segment running past the
    /// value (including a lone octet after the last segment).
    pub fn decode(value: &[u8], width: AsWidth) -> Result<AsPath, DecodeError> {
        let mut r = Reader::new(value);
        let mut segments = Vec::new();
        while r.remaining() > 0 {
            let kind = AsPathSegmentType::read(&mut r)?;
            let count = r.u8("AS_PATH segment length")?;
            if count == 0 {
                return Err(DecodeError::Invalid {
                    field: "AS_PATH segment length",
                    reason: "a segment holds at least one AS (RFC 7606 §7.2)",
                });
            }
            let raw = r.take(usize::from(count) * width.octets(), "AS_PATH segment")?;
            let asns = match width {
                AsWidth::Two => raw
                    .chunks_exact(2)
                    .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
                    .collect(),
                AsWidth::Four => raw
                    .chunks_exact(4)
                    .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            };
            segments.push(AsPathSegment { kind, asns });
        }
        Ok(AsPath { segments })
    }

    /// Decodes an AS4_PATH value: 4-octet AS numbers, at least one (RFC 6793 §6).
    ///
    /// # Errors
    /// As [`AsPath::decode`], and [`DecodeError::Invalid`] for an empty value.
    pub fn decode_as4(value: &[u8]) -> Result<AsPath, DecodeError> {
        if value.is_empty() {
            return Err(DecodeError::Invalid {
                field: "AS4_PATH",
                reason: "carries no AS number (RFC 6793 §6)",
            });
        }
        AsPath::decode(value, AsWidth::Four)
    }

    /// Appends the value with AS numbers `width` wide.
    ///
    /// # Errors
    /// A segment with no AS or more than 255; with [`AsWidth::Two`], an AS number above
    /// 65535 (substitute [`AS_TRANS`](crate::packet::AS_TRANS) and carry the real path
    /// in AS4_PATH, RFC 6793 §4.2.2).
    pub fn encode(&self, w: &mut Writer, width: AsWidth) -> Result<(), codec::EncodeError> {
        for s in &self.segments {
            w.u8(u8::from(s.kind));
            w.u8_count("AS_PATH segment length", s.asns.len(), 1..=255)?;
            for &asn in &s.asns {
                match width {
                    AsWidth::Four => w.u32_be(asn),
                    AsWidth::Two => {
                        let short =
                            u16::try_from(asn).map_err(|_| codec::EncodeError::OutOfRange {
                                field: "2-octet AS number",
                                actual: u64::from(asn),
                                min: 0,
                                max: u64::from(u16::MAX),
                            })?;
                        w.u16_be(short);
                    }
                }
            }
        }
        Ok(())
    }

    /// Appends an AS4_PATH value: 4-octet AS numbers, at least one.
    ///
    /// # Errors
    /// As [`AsPath::encode`], and for a path of no segment, which
    /// [`AsPath::decode_as4`] refuses (RFC 6793 §6).
    pub fn encode_as4(&self, w: &mut Writer) -> Result<(), codec::EncodeError> {
        if self.segments.is_empty() {
            return Err(codec::EncodeError::Unrepresentable {
                field: "AS4_PATH",
                reason: "carries at least one AS number (RFC 6793 §6)",
            });
        }
        self.encode(w, AsWidth::Four)
    }

    /// Number of AS numbers in AS_SEQUENCE segments plus one per AS_SET, as route
    /// selection counts path length (RFC 4271 §9.1.2.2 a; confederation segments do not
    /// count, RFC 5065 §5.3).
    pub fn path_length(&self) -> usize {
        self.segments
            .iter()
            .map(|s| match s.kind {
                AsPathSegmentType::AsSequence => s.asns.len(),
                AsPathSegmentType::AsSet => 1,
                AsPathSegmentType::AsConfedSequence | AsPathSegmentType::AsConfedSet => 0,
            })
            .sum()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn encode(p: &AsPath, width: AsWidth) -> Vec<u8> {
        let mut w = Writer::new();
        p.encode(&mut w, width).unwrap();
        w.into_bytes()
    }

    #[test]
    fn four_octet_path_with_a_set_on_commented_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0x02, 0x02,             // AS_SEQUENCE, 2 ASes
            0x00, 0x00, 0xfb, 0xf0, //   64496
            0x00, 0x01, 0x00, 0x00, //   65536
            0x01, 0x01,             // AS_SET, 1 AS
            0xfa, 0x56, 0xea, 0x00, //   4200000000
        ];
        let p = AsPath::decode(&bytes, AsWidth::Four).unwrap();
        assert_eq!(p.segments.len(), 2);
        assert_eq!(p.segments[0].asns, [64_496, 65_536]);
        assert_eq!(p.segments[1].kind, AsPathSegmentType::AsSet);
        assert_eq!(p.segments[1].asns, [4_200_000_000]);
        assert_eq!(p.path_length(), 3);
        assert_eq!(encode(&p, AsWidth::Four), bytes);
        assert_eq!(AsPath::decode_as4(&bytes).unwrap(), p);
    }

    #[test]
    fn two_octet_path_and_confederation_segments_on_commented_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0x03, 0x01,             // AS_CONFED_SEQUENCE, 1 AS
            0xfd, 0xe8,             //   65000
            0x02, 0x02,             // AS_SEQUENCE, 2 ASes
            0x5b, 0xa0,             //   23456 (AS_TRANS)
            0x0d, 0x1c,             //   3356
        ];
        let p = AsPath::decode(&bytes, AsWidth::Two).unwrap();
        assert_eq!(p.segments[0].kind, AsPathSegmentType::AsConfedSequence);
        assert_eq!(p.segments[1].asns, [23_456, 3_356]);
        assert_eq!(p.path_length(), 2);
        assert_eq!(encode(&p, AsWidth::Two), bytes);
        // The same bytes read as 4-octet numbers: 2 + 2 + 4 octets do not make
        // segments of 4-octet ASes.
        assert!(AsPath::decode(&bytes, AsWidth::Four).is_err());
    }

    #[test]
    fn rfc_7606_section_7_2_malformations() {
        assert_eq!(AsPath::decode(&[], AsWidth::Four), Ok(AsPath::default()));
        assert!(matches!(
            AsPath::decode(&[0x05, 0x01, 0, 0, 0, 1], AsWidth::Four),
            Err(DecodeError::UnknownCode {
                field: "AS_PATH segment type",
                value: 5
            })
        ));
        assert!(matches!(
            AsPath::decode(&[0x02, 0x02, 0, 0, 0, 1], AsWidth::Four),
            Err(DecodeError::ShortInput { .. })
        ));
        assert!(matches!(
            AsPath::decode(&[0x02, 0x01, 0, 0, 0, 1, 0x02], AsWidth::Four),
            Err(DecodeError::ShortInput { .. })
        ));
        assert!(matches!(
            AsPath::decode(&[0x02, 0x00], AsWidth::Four),
            Err(DecodeError::Invalid { .. })
        ));
        assert!(AsPath::decode_as4(&[]).is_err());
    }

    #[test]
    fn encoding_refuses_what_decoding_refuses() {
        let mut w = Writer::new();
        let wide = AsPath::sequence(vec![65_536]);
        assert!(wide.encode(&mut w, AsWidth::Two).is_err());
        let empty_segment = AsPath {
            segments: vec![AsPathSegment {
                kind: AsPathSegmentType::AsSet,
                asns: vec![],
            }],
        };
        assert!(empty_segment.encode(&mut w, AsWidth::Four).is_err());
        let long = AsPath::sequence(vec![1; 256]);
        assert!(long.encode(&mut w, AsWidth::Four).is_err());
        assert_eq!(AsPath::sequence(vec![]), AsPath::default());
    }
}
