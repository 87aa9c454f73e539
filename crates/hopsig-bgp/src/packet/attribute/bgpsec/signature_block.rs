//! Signature_Block and Signature Segment (RFC 8205 §3.2, Figures 6 and 7).
//!
//! ```text
//! +---------------------------------------------+
//! | Signature_Block Length         (2 octets)   |   this field included
//! +---------------------------------------------+
//! | Algorithm Suite Identifier     (1 octet)    |
//! +---------------------------------------------+
//! | Sequence of Signature Segments (variable)   |
//! +---------------------------------------------+
//!
//! Signature Segment:
//! +---------------------------------------------+
//! | Subject Key Identifier (SKI)  (20 octets)   |
//! +---------------------------------------------+
//! | Signature Length              (2 octets)    |
//! +---------------------------------------------+
//! | Signature                     (variable)    |
//! +---------------------------------------------+
//! ```
//!
//! The signature is opaque here: its encoding (DER for suite 1, RFC 8608 §4) is the
//! algorithm suite's to check, and a signature that is not is Not Valid rather than
//! malformed (docs/spec/bgpsec.md, C10). A block of a suite hopsig does not support
//! is decoded with the same layout and must be as well formed (RFC 8205 §5.2 check 3;
//! C18). Signatures are borrowed from the decoded bytes.

use std::borrow::Cow;

use hopsig_primitives::codec::{self, DecodeError, Reader, Writer};

use crate::packet::error::BgpsecPathError;
use crate::packet::iana::SuiteIdKind;

/// Octets of a Subject Key Identifier (RFC 8205 §3.2, §6.2).
pub const SKI_LEN: usize = 20;

/// One Signature Segment: the signer's SKI and its signature.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SignatureSegment<'a> {
    /// The Subject Key Identifier of the signer's router certificate (RFC 8209).
    pub ski: [u8; SKI_LEN],
    /// The signature octets, at most 65535.
    pub signature: Cow<'a, [u8]>,
}

impl<'a> SignatureSegment<'a> {
    /// Reads one segment, borrowing its signature.
    ///
    /// # Errors
    /// [`DecodeError::ShortInput`] if the SKI or the signature runs past the input.
    pub fn read(r: &mut Reader<'a>) -> Result<SignatureSegment<'a>, DecodeError> {
        Ok(SignatureSegment {
            ski: r.array("SKI")?,
            signature: Cow::Borrowed(r.u16_prefixed("Signature")?),
        })
    }

    /// Appends the segment.
    ///
    /// # Errors
    /// A signature over 65535 octets.
    pub fn encode(&self, w: &mut Writer) -> Result<(), codec::EncodeError> {
        w.bytes(&self.ski);
        w.u16_prefixed("Signature", &self.signature)
    }

    /// Octets the segment takes on the wire.
    pub fn encoded_len(&self) -> usize {
        SKI_LEN + 2 + self.signature.len()
    }

    /// The same segment owning its signature.
    pub fn into_owned(self) -> SignatureSegment<'static> {
        SignatureSegment {
            ski: self.ski,
            signature: Cow::Owned(self.signature.into_owned()),
        }
    }
}

/// One Signature_Block: an algorithm suite and one Signature Segment per Secure_Path
/// Segment, in the same order (most recent first).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SignatureBlock<'a> {
    /// The Algorithm Suite Identifier ([`SuiteIdKind::of`] classifies it).
    pub suite: u8,
    /// The Signature Segments.
    pub segments: Vec<SignatureSegment<'a>>,
}

impl<'a> SignatureBlock<'a> {
    /// Reads one block.
    ///
    /// # Errors
    /// [`BgpsecPathError::SignatureBlockLength`] below 3,
    /// [`BgpsecPathError::ReservedSuite`] for 0x00 / 0xFF,
    /// [`BgpsecPathError::Syntax`] for a block or segment running past its container.
    pub fn read(r: &mut Reader<'a>) -> Result<SignatureBlock<'a>, BgpsecPathError> {
        let length = r.u16_be("Signature_Block Length")?;
        if length < 3 {
            return Err(BgpsecPathError::SignatureBlockLength(length));
        }
        let mut body = Reader::new(r.take(usize::from(length) - 2, "Signature_Block")?);
        let suite = body.u8("Algorithm Suite Identifier")?;
        if SuiteIdKind::of(suite) == SuiteIdKind::Reserved {
            return Err(BgpsecPathError::ReservedSuite(suite));
        }
        let mut segments = Vec::new();
        while body.remaining() > 0 {
            segments.push(SignatureSegment::read(&mut body)?);
        }
        Ok(SignatureBlock { suite, segments })
    }

    /// Appends the block.
    ///
    /// # Errors
    /// A block over 65535 octets or a signature over 65535.
    pub fn encode(&self, w: &mut Writer) -> Result<(), codec::EncodeError> {
        let len = self
            .segments
            .iter()
            .fold(3usize, |n, s| n.saturating_add(s.encoded_len()));
        w.u16_count("Signature_Block Length", len, 3..=usize::from(u16::MAX))?;
        w.u8(self.suite);
        for s in &self.segments {
            s.encode(w)?;
        }
        Ok(())
    }

    /// The same block owning its signatures.
    pub fn into_owned(self) -> SignatureBlock<'static> {
        SignatureBlock {
            suite: self.suite,
            segments: self
                .segments
                .into_iter()
                .map(SignatureSegment::into_owned)
                .collect(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn block_on_commented_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0x00, 0x23,             // Signature_Block Length 35 = 3 + 32
            0x01,                   // Algorithm Suite 1 (ECDSA P-256, RFC 8608)
            0x47, 0xf2, 0x3b, 0xf1, 0xab, 0x2f, 0x8a, 0x9d, 0x26, 0x86, // SKI (20 octets)
            0x4e, 0xbb, 0xd8, 0xdf, 0x27, 0x11, 0xc7, 0x44, 0x06, 0xec,
            0x00, 0x0a,             // Signature Length 10
            0x30, 0x08, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x00, 0x00, // signature (opaque)
        ];
        let b = SignatureBlock::read(&mut Reader::new(&bytes)).unwrap();
        assert_eq!(b.suite, 1);
        assert_eq!(b.segments.len(), 1);
        assert_eq!(b.segments[0].ski[0], 0x47);
        assert_eq!(b.segments[0].signature.len(), 10);
        assert!(matches!(b.segments[0].signature, Cow::Borrowed(_)));
        let mut w = Writer::new();
        b.encode(&mut w).unwrap();
        assert_eq!(w.into_bytes(), bytes);
    }

    #[test]
    fn short_and_reserved_blocks_are_rejected() {
        assert_eq!(
            SignatureBlock::read(&mut Reader::new(&[0x00, 0x02, 0x01])),
            Err(BgpsecPathError::SignatureBlockLength(2))
        );
        assert_eq!(
            SignatureBlock::read(&mut Reader::new(&[0x00, 0x03, 0xff])),
            Err(BgpsecPathError::ReservedSuite(0xff))
        );
        assert_eq!(
            SignatureBlock::read(&mut Reader::new(&[0x00, 0x03, 0x00])),
            Err(BgpsecPathError::ReservedSuite(0x00))
        );
        // A segment that does not fill the block exactly: 4 octets left for a 22+ one.
        assert!(matches!(
            SignatureBlock::read(&mut Reader::new(&[0x00, 0x07, 0x01, 1, 2, 3, 4])),
            Err(BgpsecPathError::Syntax(DecodeError::ShortInput { .. }))
        ));
        // Length past the input.
        assert!(matches!(
            SignatureBlock::read(&mut Reader::new(&[0x00, 0x09, 0x01])),
            Err(BgpsecPathError::Syntax(DecodeError::ShortInput { .. }))
        ));
        // An empty block (length 3) is syntactically a block of no segments; the count
        // check of the attribute rejects it.
        assert_eq!(
            SignatureBlock::read(&mut Reader::new(&[0x00, 0x03, 0x01]))
                .unwrap()
                .segments
                .len(),
            0
        );
    }
}
