//! The header every hopsig aggregate starts with (`docs/spec/aggregate.md`).
//!
//! ```text
//! offset  size  field
//! 0       2     magic "HS" (0x48 0x53)
//! 2       1     format version, 1
//! 3       1     scheme code (table below)
//! 4       1     scheme parameter (BGR with random r: ℓ_r / 8; IBAS: |w|; otherwise 0)
//! 5       2     n, the number of signers, big-endian, 1..=MAX_SIGNERS
//! ```

use hopsig_primitives::codec::{check_range, DecodeError, Reader};

/// The two magic bytes.
pub const MAGIC: [u8; 2] = *b"HS";
/// Format version written and accepted.
pub const FORMAT_VERSION: u8 = 1;
/// Header length in bytes.
pub const HEADER_LEN: usize = 7;
/// Most signers one aggregate may hold. BGP AS paths stay far below it; the bound keeps
/// a hostile aggregate from demanding unbounded verification work.
pub const MAX_SIGNERS: usize = 4096;

/// Scheme codes of the header's byte 3.
pub mod code {
    /// `rsa2048-concat`
    pub const RSA2048_CONCAT: u8 = 0x01;
    /// `ecdsa-p256-concat`
    pub const ECDSA_P256_CONCAT: u8 = 0x02;
    /// `ecdsa-k163`
    pub const ECDSA_K163: u8 = 0x03;
    /// `ecdsa-k233`
    pub const ECDSA_K233: u8 = 0x04;
    /// `ecdsa-k283`
    pub const ECDSA_K283: u8 = 0x05;
    /// `bgr-rsa2048`
    pub const BGR_RSA2048: u8 = 0x10;
    /// `bgr-rsa3072`
    pub const BGR_RSA3072: u8 = 0x11;
    /// `bgr-rand-rsa2048`
    pub const BGR_RAND_RSA2048: u8 = 0x12;
    /// `bgr-rand-rsa3072`
    pub const BGR_RAND_RSA3072: u8 = 0x13;
    /// `bls12381-bgls`
    pub const BLS12381_BGLS: u8 = 0x20;
    /// `ibas-bls12381`
    pub const IBAS_BLS12381: u8 = 0x21;
}

/// A decoded header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Scheme code.
    pub code: u8,
    /// Scheme parameter byte.
    pub param: u8,
    /// Number of signers.
    pub signers: usize,
}

impl Header {
    /// Appends the 7 header bytes to `out`. `signers` must not exceed [`MAX_SIGNERS`]
    /// (the signing code enforces it).
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&MAGIC);
        out.push(FORMAT_VERSION);
        out.push(self.code);
        out.push(self.param);
        let n = u16::try_from(self.signers).unwrap_or(u16::MAX);
        out.extend_from_slice(&n.to_be_bytes());
    }

    /// Reads and checks a header.
    ///
    /// # Errors
    /// [`DecodeError`] for a short input, wrong magic, unknown version, or a signer
    /// count outside `1..=MAX_SIGNERS`.
    pub fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        if r.array::<2>("magic")? != MAGIC {
            return Err(DecodeError::Invalid {
                field: "magic",
                reason: "not a hopsig aggregate (expected \"HS\")",
            });
        }
        let version = r.u8("format version")?;
        check_range(
            "format version",
            version.into(),
            FORMAT_VERSION.into(),
            FORMAT_VERSION.into(),
        )?;
        let code = r.u8("scheme code")?;
        let param = r.u8("scheme parameter")?;
        let signers = usize::from(r.u16_be("signer count")?);
        check_range("signer count", signers as u64, 1, MAX_SIGNERS as u64)?;
        Ok(Header {
            code,
            param,
            signers,
        })
    }

    /// Reads the header at the start of `bytes` without consuming anything else.
    ///
    /// # Errors
    /// As [`Header::read`].
    pub fn peek(bytes: &[u8]) -> Result<Self, DecodeError> {
        Self::read(&mut Reader::new(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_and_rejections() {
        let h = Header {
            code: 0x10,
            param: 0,
            signers: 3,
        };
        let mut v = Vec::new();
        h.write(&mut v);
        assert_eq!(v, [0x48, 0x53, 1, 0x10, 0, 0, 3]);
        assert_eq!(Header::peek(&v), Ok(h));
        let mut bad = v.clone();
        bad[2] = 2;
        assert!(matches!(
            Header::peek(&bad),
            Err(DecodeError::OutOfRange {
                field: "format version",
                ..
            })
        ));
        let mut zero = v.clone();
        zero[6] = 0;
        assert!(matches!(
            Header::peek(&zero),
            Err(DecodeError::OutOfRange {
                field: "signer count",
                ..
            })
        ));
        assert!(matches!(
            Header::peek(b"XX"),
            Err(DecodeError::Invalid { field: "magic", .. })
        ));
        assert!(matches!(
            Header::peek(&v[..4]),
            Err(DecodeError::ShortInput { .. })
        ));
    }
}
