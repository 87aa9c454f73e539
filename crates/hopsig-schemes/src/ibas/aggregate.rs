//! The IBAS aggregate `(w, S_n, T_n)` and its wire form (`docs/spec/ibas.md`):
//!
//! ```text
//! header (7 bytes: code 0x21, parameter |w| = 16, n)
//! w      16 bytes
//! S_n    48 bytes  compressed G1
//! T_n    96 bytes  compressed G2
//! ```
//!
//! |w| + 144 = 160 bytes after the header for any number of signers.

use hopsig_primitives::codec::{DecodeError, Reader};
use hopsig_primitives::pairing::{G1Affine, G2Affine, PointError, G1, G1_BYTES, G2, G2_BYTES};
use hopsig_primitives::valgrind::declassify;

use super::W_LEN;
use crate::wire::{code, Header};
use crate::{Aggregate, Error};

/// An identity-based aggregate signature of `n` signers sharing the state string `w`.
#[derive(Debug, Clone)]
pub struct IbasAggregate {
    pub(super) w: [u8; W_LEN],
    pub(super) s: G1Affine,
    pub(super) t: G2Affine,
    pub(super) n: usize,
}

impl IbasAggregate {
    /// The state string chosen by the first signer.
    pub fn w(&self) -> &[u8; W_LEN] {
        &self.w
    }

    /// Decodes an aggregate: header, w, then S (G1) and T (G2), each checked to be a
    /// valid point in its prime-order subgroup and not the identity.
    ///
    /// # Errors
    /// [`Error::Decode`] naming the malformed field; [`Error::Mismatch`] for another
    /// scheme's header.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = Reader::new(bytes);
        let header = Header::read(&mut r)?;
        if header.code != code::IBAS_BLS12381 {
            return Err(Error::Mismatch(format!(
                "aggregate header names scheme code 0x{:02x}, not {}",
                header.code,
                super::ID
            )));
        }
        if usize::from(header.param) != W_LEN {
            return Err(DecodeError::Invalid {
                field: "header parameter",
                reason: "IBAS state string length must be 16",
            }
            .into());
        }
        let w = r.array::<W_LEN>("w")?;
        // Kept affine, the form the pairing takes: verification converts nothing.
        let s = G1Affine::from_compressed(&r.array::<G1_BYTES>("S")?).map_err(|e| point("S", e))?;
        let t = G2Affine::from_compressed(&r.array::<G2_BYTES>("T")?).map_err(|e| point("T", e))?;
        r.finish("aggregate")?;
        Ok(IbasAggregate {
            w,
            s,
            t,
            n: header.signers,
        })
    }

    /// The aggregate with these parts, which are public from here on (declassified for
    /// the constant-time test once affine: the affine points are what the wire carries).
    pub(crate) fn new(w: [u8; W_LEN], s: &G1, t: &G2, n: usize) -> Self {
        let (mut s, mut t) = (s.to_affine(), t.to_affine());
        declassify(&mut s);
        declassify(&mut t);
        IbasAggregate { w, s, t, n }
    }
}

fn point(field: &'static str, e: PointError) -> Error {
    DecodeError::Invalid {
        field,
        reason: match e {
            PointError::Encoding => "not a valid compressed point on the curve",
            PointError::Subgroup => "point not in the prime-order subgroup",
            PointError::Identity => "point at infinity",
        },
    }
    .into()
}

impl Aggregate for IbasAggregate {
    fn signers(&self) -> usize {
        self.n
    }
    fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(7 + W_LEN + G1_BYTES + G2_BYTES);
        Header {
            code: code::IBAS_BLS12381,
            param: W_LEN as u8,
            signers: self.n,
        }
        .write(&mut out);
        out.extend_from_slice(&self.w);
        out.extend_from_slice(&self.s.to_compressed());
        out.extend_from_slice(&self.t.to_compressed());
        out
    }
    fn signature_bits(&self) -> u64 {
        8 * (W_LEN + G1_BYTES + G2_BYTES) as u64
    }
}
