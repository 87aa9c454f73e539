//! Secure_Path (RFC 8205 §3.1, Figures 4 and 5).
//!
//! ```text
//! +-----------------------------------------------+
//! | Secure_Path Length                 (2 octets) |   2 + 6 × segments, this field included
//! +-----------------------------------------------+
//! | One or more Secure_Path Segments   (variable) |
//! +-----------------------------------------------+
//!
//! Secure_Path Segment:
//! +------------------------------------------------------+
//! | pCount         (1 octet)                             |
//! +------------------------------------------------------+
//! | Confed_Segment flag (1 bit) |  Unassigned (7 bits)   | (Flags)
//! +------------------------------------------------------+
//! | AS Number      (4 octets)                            |
//! +------------------------------------------------------+
//! ```
//!
//! The segments are in the order they sit on the wire: the most recently added
//! (the sending AS) first, the origin last. The unassigned flag bits are "set to 0 by
//! the sender and ignored by the receiver", but "the signature is computed over all 8
//! bits of the Flags field" (§3.1): the octet is kept whole (docs/spec/bgpsec.md, C19).
//! pCount 0 and the Confed_Segment flag are legal syntax; whether they are acceptable
//! depends on the peer (RFC 8205 §5.2 checks 5–7), which is the validator's to judge.

use hopsig_primitives::codec::{self, Codec, DecodeError, Reader, Writer};

use crate::packet::error::BgpsecPathError;

/// Octets of one Secure_Path Segment.
pub const SECURE_PATH_SEGMENT_LEN: usize = 6;

/// The Flags octet of a Secure_Path Segment, all 8 bits as received.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SecurePathFlags(pub u8);

impl SecurePathFlags {
    /// The Confed_Segment flag, the most significant bit.
    pub const CONFED_SEGMENT: u8 = 0x80;

    /// Whether the Confed_Segment flag is set: the signer sent the UPDATE to a peer in
    /// its own AS confederation (RFC 8205 §3.1).
    pub fn confed_segment(self) -> bool {
        self.0 & Self::CONFED_SEGMENT != 0
    }

    /// The seven unassigned bits.
    pub fn unassigned(self) -> u8 {
        self.0 & !Self::CONFED_SEGMENT
    }
}

/// One Secure_Path Segment: the AS that signed, how many times it appears in the
/// equivalent AS_PATH, and its flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SecurePathSegment {
    /// Repetitions of the AS the signature covers (prepending); 0 for a transparent
    /// route server (RFC 8205 §4.2).
    pub pcount: u8,
    /// The Flags octet.
    pub flags: SecurePathFlags,
    /// The 4-octet AS number of the speaker that added the segment.
    pub asn: u32,
}

impl Codec for SecurePathSegment {
    const NAME: &'static str = "Secure_Path Segment";
    type EncodeError = std::convert::Infallible;
    fn encode(&self, w: &mut Writer) -> Result<(), Self::EncodeError> {
        w.u8(self.pcount);
        w.u8(self.flags.0);
        w.u32_be(self.asn);
        Ok(())
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(SecurePathSegment {
            pcount: r.u8("pCount")?,
            flags: SecurePathFlags(r.u8("Secure_Path Flags")?),
            asn: r.u32_be("Secure_Path AS Number")?,
        })
    }
}

/// Reads a Secure_Path: its length and at least one segment.
pub(super) fn read(r: &mut Reader<'_>) -> Result<Vec<SecurePathSegment>, BgpsecPathError> {
    let length = r.u16_be("Secure_Path Length")?;
    let len = usize::from(length);
    if len < 2 || !(len - 2).is_multiple_of(SECURE_PATH_SEGMENT_LEN) {
        return Err(BgpsecPathError::SecurePathLength(length));
    }
    if len == 2 {
        return Err(BgpsecPathError::EmptySecurePath);
    }
    let mut body = Reader::new(r.take(len - 2, "Secure_Path")?);
    let mut segments = Vec::with_capacity((len - 2) / SECURE_PATH_SEGMENT_LEN);
    while body.remaining() > 0 {
        segments.push(SecurePathSegment::read(&mut body)?);
    }
    Ok(segments)
}

/// Appends a Secure_Path.
pub(super) fn encode(
    segments: &[SecurePathSegment],
    w: &mut Writer,
) -> Result<(), codec::EncodeError> {
    let len = segments
        .len()
        .saturating_mul(SECURE_PATH_SEGMENT_LEN)
        .saturating_add(2);
    w.u16_count(
        "Secure_Path Length",
        len,
        2 + SECURE_PATH_SEGMENT_LEN..=usize::from(u16::MAX),
    )?;
    for s in segments {
        codec::to_vec(s).iter().for_each(|&b| w.u8(b));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn secure_path_of_rfc_8608_a3_on_commented_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0x00, 0x0e,             // Secure_Path Length 14 = 2 + 2 × 6
            0x01,                   // pCount 1
            0x00,                   // Flags 0
            0x00, 0x01, 0x00, 0x00, // AS 65536
            0x01,                   // pCount 1
            0x00,                   // Flags 0
            0x00, 0x00, 0xfb, 0xf0, // AS 64496
        ];
        let segs = read(&mut Reader::new(&bytes)).unwrap();
        assert_eq!(
            segs,
            [
                SecurePathSegment {
                    pcount: 1,
                    flags: SecurePathFlags(0),
                    asn: 65_536
                },
                SecurePathSegment {
                    pcount: 1,
                    flags: SecurePathFlags(0),
                    asn: 64_496
                },
            ]
        );
        let mut w = Writer::new();
        encode(&segs, &mut w).unwrap();
        assert_eq!(w.into_bytes(), bytes);
    }

    #[test]
    fn flags_keep_the_unassigned_bits() {
        let s = SecurePathSegment::decode(&[0x00, 0x81, 0, 0, 0, 7]).unwrap();
        assert_eq!(s.pcount, 0);
        assert!(s.flags.confed_segment());
        assert_eq!(s.flags.unassigned(), 1);
        assert_eq!(codec::to_vec(&s), [0x00, 0x81, 0, 0, 0, 7]);
    }

    #[test]
    fn lengths_that_are_not_two_plus_six_n_are_rejected() {
        for (len, err) in [
            (0u16, BgpsecPathError::SecurePathLength(0)),
            (1, BgpsecPathError::SecurePathLength(1)),
            (2, BgpsecPathError::EmptySecurePath),
            (9, BgpsecPathError::SecurePathLength(9)),
            (13, BgpsecPathError::SecurePathLength(13)),
        ] {
            let mut bytes = len.to_be_bytes().to_vec();
            bytes.extend_from_slice(&[1; 20]);
            assert_eq!(read(&mut Reader::new(&bytes)), Err(err), "{len}");
        }
        // Length 14 with only one segment present.
        assert!(matches!(
            read(&mut Reader::new(&[0, 14, 1, 0, 0, 0, 0, 1])),
            Err(BgpsecPathError::Syntax(DecodeError::ShortInput { .. }))
        ));
        assert!(encode(&[], &mut Writer::new()).is_err());
    }
}
