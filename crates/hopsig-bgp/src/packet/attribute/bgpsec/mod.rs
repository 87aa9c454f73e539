//! BGPsec_PATH attribute value (RFC 8205 §3, Figure 3): a Secure_Path and one or two
//! Signature_Blocks.
//!
//! ```text
//! +-------------------------------------------------------+
//! | Secure_Path                             (variable)    |
//! +-------------------------------------------------------+
//! | Sequence of one or two Signature_Blocks (variable)    |
//! +-------------------------------------------------------+
//! ```
//!
//! A [`BgpsecPath`] is well formed by construction: at least one Secure_Path Segment;
//! one or two Signature_Blocks, of different, non-reserved suites, each with exactly
//! one Signature Segment per Secure_Path Segment (RFC 8205 §3, §5.2 checks 1 and 3;
//! RFC 8608 §2.1). [`BgpsecPath::new`] and [`BgpsecPath::decode`] enforce the same
//! rules, in one function, so whatever encodes also decodes back to itself. What
//! depends on the peer or the local AS — the peer's AS in the newest segment, the
//! Confed_Segment flag, pCount 0, AS loops (§5.2 checks 2, 5–8) — is the validator's.

mod secure_path;
mod signature_block;

use hopsig_primitives::codec::{self, Reader, Writer};

pub use secure_path::{SecurePathFlags, SecurePathSegment, SECURE_PATH_SEGMENT_LEN};
pub use signature_block::{SignatureBlock, SignatureSegment, SKI_LEN};

use crate::packet::error::BgpsecPathError;

/// Most Signature_Blocks a BGPsec_PATH carries (RFC 8205 §3).
pub const MAX_SIGNATURE_BLOCKS: usize = 2;

/// A well-formed BGPsec_PATH value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BgpsecPath<'a> {
    secure_path: Vec<SecurePathSegment>,
    blocks: Vec<SignatureBlock<'a>>,
}

impl<'a> BgpsecPath<'a> {
    /// A BGPsec_PATH of these segments (most recent first) and blocks.
    ///
    /// # Errors
    /// [`BgpsecPathError::EmptySecurePath`], [`BgpsecPathError::NoSignatureBlock`],
    /// [`BgpsecPathError::TooManySignatureBlocks`], [`BgpsecPathError::ReservedSuite`],
    /// [`BgpsecPathError::DuplicateSuite`], [`BgpsecPathError::SegmentCountMismatch`].
    pub fn new(
        secure_path: Vec<SecurePathSegment>,
        blocks: Vec<SignatureBlock<'a>>,
    ) -> Result<BgpsecPath<'a>, BgpsecPathError> {
        check(&secure_path, &blocks)?;
        Ok(BgpsecPath {
            secure_path,
            blocks,
        })
    }

    /// The Secure_Path Segments, most recently added (the sender's) first.
    pub fn secure_path(&self) -> &[SecurePathSegment] {
        &self.secure_path
    }

    /// The Signature_Blocks, in wire order.
    pub fn signature_blocks(&self) -> &[SignatureBlock<'a>] {
        &self.blocks
    }

    /// The block of algorithm suite `suite`, if present.
    pub fn block(&self, suite: u8) -> Option<&SignatureBlock<'a>> {
        self.blocks.iter().find(|b| b.suite == suite)
    }

    /// The segments and blocks, to build the next hop's path from.
    pub fn into_parts(self) -> (Vec<SecurePathSegment>, Vec<SignatureBlock<'a>>) {
        (self.secure_path, self.blocks)
    }

    /// Decodes a BGPsec_PATH attribute value.
    ///
    /// # Errors
    /// Every [`BgpsecPathError`]: lengths inconsistent with the attribute or with each
    /// other, no segment, no block or more than two, a reserved or repeated suite, a
    /// block whose segment count differs from the Secure_Path's.
    pub fn decode(value: &'a [u8]) -> Result<BgpsecPath<'a>, BgpsecPathError> {
        let mut r = Reader::new(value);
        let secure_path = secure_path::read(&mut r)?;
        let mut blocks = Vec::with_capacity(1);
        while r.remaining() > 0 {
            if blocks.len() == MAX_SIGNATURE_BLOCKS {
                return Err(BgpsecPathError::TooManySignatureBlocks);
            }
            blocks.push(SignatureBlock::read(&mut r)?);
        }
        BgpsecPath::new(secure_path, blocks)
    }

    /// Appends the value.
    ///
    /// # Errors
    /// A Secure_Path, block or signature longer than its 16-bit length field allows.
    pub fn encode(&self, w: &mut Writer) -> Result<(), codec::EncodeError> {
        secure_path::encode(&self.secure_path, w)?;
        for b in &self.blocks {
            b.encode(w)?;
        }
        Ok(())
    }

    /// The same path owning its signatures.
    pub fn into_owned(self) -> BgpsecPath<'static> {
        BgpsecPath {
            secure_path: self.secure_path,
            blocks: self
                .blocks
                .into_iter()
                .map(SignatureBlock::into_owned)
                .collect(),
        }
    }
}

/// The structural rules of RFC 8205 §3 / §5.2 checks 1 and 3 and RFC 8608 §2.1, in
/// the order a reader meets them.
fn check(
    secure_path: &[SecurePathSegment],
    blocks: &[SignatureBlock<'_>],
) -> Result<(), BgpsecPathError> {
    if secure_path.is_empty() {
        return Err(BgpsecPathError::EmptySecurePath);
    }
    match blocks.len() {
        0 => return Err(BgpsecPathError::NoSignatureBlock),
        1 | 2 => {}
        _ => return Err(BgpsecPathError::TooManySignatureBlocks),
    }
    for b in blocks {
        if crate::packet::iana::SuiteIdKind::of(b.suite)
            == crate::packet::iana::SuiteIdKind::Reserved
        {
            return Err(BgpsecPathError::ReservedSuite(b.suite));
        }
    }
    if let [a, b] = blocks {
        if a.suite == b.suite {
            return Err(BgpsecPathError::DuplicateSuite(a.suite));
        }
    }
    for b in blocks {
        if b.segments.len() != secure_path.len() {
            return Err(BgpsecPathError::SegmentCountMismatch {
                suite: b.suite,
                secure_path: secure_path.len(),
                signatures: b.segments.len(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn segment(asn: u32) -> SecurePathSegment {
        SecurePathSegment {
            pcount: 1,
            flags: SecurePathFlags(0),
            asn,
        }
    }

    fn block(suite: u8, n: usize) -> SignatureBlock<'static> {
        SignatureBlock {
            suite,
            segments: (0..n)
                .map(|i| SignatureSegment {
                    ski: [i as u8; SKI_LEN],
                    signature: Cow::Owned(vec![0x30, i as u8]),
                })
                .collect(),
        }
    }

    fn encode(p: &BgpsecPath<'_>) -> Vec<u8> {
        let mut w = Writer::new();
        p.encode(&mut w).unwrap();
        w.into_bytes()
    }

    #[test]
    fn two_blocks_on_commented_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0x00, 0x08,             // Secure_Path Length 8: one segment
            0x02, 0x00,             //   pCount 2 (prepended once), Flags 0
            0x00, 0x00, 0xfb, 0xf0, //   AS 64496
            0x00, 0x1a,             // Signature_Block Length 26
            0x01,                   //   suite 1
            0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, // SKI
            0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
            0x00, 0x01, 0x55,       //   Signature Length 1, signature
            0x00, 0x1b,             // Signature_Block Length 27
            0xf7,                   //   suite 0xF7 (experimentation range)
            0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, // SKI
            0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb, 0xbb,
            0x00, 0x02, 0x66, 0x77, //   Signature Length 2, signature
        ];
        let p = BgpsecPath::decode(&bytes).unwrap();
        assert_eq!(
            p.secure_path(),
            [SecurePathSegment {
                pcount: 2,
                ..segment(64_496)
            }]
        );
        assert_eq!(p.signature_blocks().len(), 2);
        assert_eq!(
            &p.block(0xf7).unwrap().segments[0].signature[..],
            [0x66, 0x77]
        );
        assert!(p.block(2).is_none());
        assert_eq!(encode(&p), bytes);
    }

    #[test]
    fn each_rfc_8205_structure_rule_has_its_error() {
        assert_eq!(
            BgpsecPath::new(vec![], vec![block(1, 0)]),
            Err(BgpsecPathError::EmptySecurePath)
        );
        assert_eq!(
            BgpsecPath::new(vec![segment(1)], vec![]),
            Err(BgpsecPathError::NoSignatureBlock)
        );
        assert_eq!(
            BgpsecPath::new(
                vec![segment(1)],
                vec![block(1, 1), block(2, 1), block(3, 1)]
            ),
            Err(BgpsecPathError::TooManySignatureBlocks)
        );
        assert_eq!(
            BgpsecPath::new(vec![segment(1)], vec![block(1, 1), block(1, 1)]),
            Err(BgpsecPathError::DuplicateSuite(1))
        );
        assert_eq!(
            BgpsecPath::new(vec![segment(1)], vec![block(0, 1)]),
            Err(BgpsecPathError::ReservedSuite(0))
        );
        assert_eq!(
            BgpsecPath::new(vec![segment(1), segment(2)], vec![block(1, 2), block(2, 1)]),
            Err(BgpsecPathError::SegmentCountMismatch {
                suite: 2,
                secure_path: 2,
                signatures: 1
            })
        );

        // The decoder reports the same errors from bytes.
        let good = encode(&BgpsecPath::new(vec![segment(1)], vec![block(1, 1)]).unwrap());
        let mut none = good.clone();
        none.truncate(8);
        assert_eq!(
            BgpsecPath::decode(&none),
            Err(BgpsecPathError::NoSignatureBlock)
        );
        let one_block = &good[8..];
        let mut three = good.clone();
        three.extend_from_slice(one_block);
        three.extend_from_slice(one_block);
        assert_eq!(
            BgpsecPath::decode(&three),
            Err(BgpsecPathError::TooManySignatureBlocks)
        );
        let mut dup = good.clone();
        dup.extend_from_slice(one_block);
        assert_eq!(
            BgpsecPath::decode(&dup),
            Err(BgpsecPathError::DuplicateSuite(1))
        );
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(matches!(
            BgpsecPath::decode(&trailing),
            Err(BgpsecPathError::Syntax(_))
        ));
        let two_hops =
            encode(&BgpsecPath::new(vec![segment(1), segment(2)], vec![block(1, 2)]).unwrap());
        let mut short_block = two_hops[..14].to_vec(); // Secure_Path of two segments
        short_block.extend_from_slice(one_block); // a block with one segment
        assert_eq!(
            BgpsecPath::decode(&short_block),
            Err(BgpsecPathError::SegmentCountMismatch {
                suite: 1,
                secure_path: 2,
                signatures: 1
            })
        );
    }
}
