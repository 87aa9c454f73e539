//! The IBAS aggregate `(w, S_n, T_n)` and its wire form (`docs/spec/ibas.md`).

use std::convert::Infallible;

use hopsig_primitives::codec::{Codec, DecodeError, Reader, Writer};
use hopsig_primitives::pairing::{G1Affine, G2Affine, PointError, G1, G1_BYTES, G2, G2_BYTES};
use hopsig_primitives::valgrind::declassify;

use super::W_LEN;
use crate::wire::{decode_aggregate, not_this_scheme, Header, SchemeCode, Signers};
use crate::{Aggregate, Error};

/// The header parameter of IBAS: |w|.
const PARAM: u8 = W_LEN as u8;

/// An identity-based aggregate signature of `n` signers sharing the state string `w`.
///
/// ```text
/// +---------------------------------------------+
/// | header (7): code 0x21, param |w| = 16, n    |  docs/spec/aggregate.md
/// +---------------------------------------------+
/// | w   (16): state string                      |
/// +---------------------------------------------+
/// | S_n (48): compressed G1 point               |
/// +---------------------------------------------+
/// | T_n (96): compressed G2 point               |
/// +---------------------------------------------+
/// ```
///
/// |w| + 144 = 160 bytes after the header for any number of signers.
#[derive(Debug, Clone)]
pub struct IbasAggregate {
    pub(super) w: [u8; W_LEN],
    pub(super) s: G1Affine,
    pub(super) t: G2Affine,
    pub(super) n: Signers,
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
    /// [`Error::Decode`] naming the malformed field; [`Error::AggregateForOtherScheme`]
    /// for another scheme's header.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        decode_aggregate(bytes, SchemeCode::IbasBls12381, PARAM)
    }

    /// The aggregate with these parts, which are public from here on (declassified for
    /// the constant-time test before anything branches on them).
    ///
    /// # Errors
    /// [`Error::Mismatch`] if S or T is the point at infinity, which no aggregate may
    /// hold (the decoder rejects it): a sum reaches it only when an incoming aggregate
    /// carries the negation of this signer's share, which someone who saw an earlier
    /// countersignature of the same message under the same w can build.
    pub(crate) fn new(w: [u8; W_LEN], s: &G1, t: &G2, n: Signers) -> Result<Self, Error> {
        let (mut s, mut t) = (*s, *t);
        declassify(&mut s);
        declassify(&mut t);
        if s.is_identity() || t.is_identity() {
            return Err(Error::Mismatch(
                "the IBAS aggregate would hold the point at infinity (the incoming aggregate \
                 cancels this signer's share); refusing to sign"
                    .into(),
            ));
        }
        Ok(IbasAggregate {
            w,
            s: s.to_affine(),
            t: t.to_affine(),
            n,
        })
    }
}

fn point(field: &'static str, e: PointError) -> DecodeError {
    DecodeError::Invalid {
        field,
        reason: match e {
            PointError::Encoding => "not a valid compressed point on the curve",
            PointError::Subgroup => "point not in the prime-order subgroup",
            PointError::Identity => "point at infinity",
        },
    }
}

impl Codec for IbasAggregate {
    const NAME: &'static str = "aggregate";
    type EncodeError = Infallible;

    fn encode(&self, w: &mut Writer) -> Result<(), Infallible> {
        Header {
            code: SchemeCode::IbasBls12381,
            param: PARAM,
            signers: self.n,
        }
        .encode(w)?;
        w.bytes(&self.w);
        w.bytes(&self.s.to_compressed());
        w.bytes(&self.t.to_compressed());
        Ok(())
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let header = Header::read(r)?;
        if (header.code, header.param) != (SchemeCode::IbasBls12381, PARAM) {
            return Err(not_this_scheme("IBAS state string length must be 16"));
        }
        let w = r.array::<W_LEN>("w")?;
        // Kept affine, the form the pairing takes: verification converts nothing.
        let s = G1Affine::from_compressed(&r.array::<G1_BYTES>("S")?).map_err(|e| point("S", e))?;
        let t = G2Affine::from_compressed(&r.array::<G2_BYTES>("T")?).map_err(|e| point("T", e))?;
        Ok(IbasAggregate {
            w,
            s,
            t,
            n: header.signers,
        })
    }
}

impl Aggregate for IbasAggregate {
    fn signers(&self) -> usize {
        self.n.get()
    }
    fn signature_bits(&self) -> u64 {
        8 * (W_LEN + G1_BYTES + G2_BYTES) as u64
    }
}
