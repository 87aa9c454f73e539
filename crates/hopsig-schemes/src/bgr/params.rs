//! BGR parameter sets and their ids.

use crate::registry;
use crate::wire::{SchemeCode, HEADER_LEN};
use crate::Error;

/// How a signer draws its per-signature string `r_i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Randomness {
    /// `r = PRF_seed(m, h, x)`, HMAC-SHA-256 truncated to ℓ_r = 128 bits (BGR §5.1, the
    /// paper's implementation, §6).
    InputDependent,
    /// `r` drawn uniformly from `{0,1}^ℓ_r` (BGR §3, Sign line 1).
    Random {
        /// ℓ_r in bits, a multiple of 8 in [`RANDOM_R_BITS`].
        bits: u16,
    },
}

/// Allowed ℓ_r for [`Randomness::Random`].
pub const RANDOM_R_BITS: std::ops::RangeInclusive<u16> = 64..=256;

/// ℓ_r of the input-dependent variant (BGR §6: "ℓ_r = 128").
pub const PRF_R_BITS: u16 = 128;

/// Signing queries one key is assumed to answer in its lifetime, as a power of two,
/// used to size ℓ_r of the basic scheme. 2^40 is a BGP speaker signing 10^4 updates a
/// second for three years; keys roll over far sooner.
pub const ASSUMED_LOG2_SIGN_QUERIES: u16 = 40;

/// A BGR parameter set: RSA modulus size (ℓ_π) and the randomness variant.
///
/// **Default ℓ_r of the basic scheme (Theorem 4.2).** The reduction loses
/// `q_S (q_S + q_H) 2^-ℓ_r` besides the claw-finding probability. With an adversary of
/// `q_H ≤ 2^κ` hash queries (κ = 112 for RSA-2048, 128 for RSA-3072, the security of
/// the modulus per NIST SP 800-57) and `q_S ≤ 2^40` signing queries, this term is at
/// most `2^(κ + 40 - ℓ_r)`·(1 + 2^(40-κ)); requiring it to stay below the adversary's
/// `q_H·2^-κ` work bound gives `ℓ_r ≥ κ + 40`: **152 bits for RSA-2048, 168 for
/// RSA-3072**. The input-dependent variant needs only `(q_G + q_H + q_S + (ℓ_h + 2) q_S²)
/// 2^-ℓ_r` (Claim 5.1), which 128 bits keeps below `2^-16` for `q_H = q_G = 2^112`,
/// matching the paper's choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BgrParams {
    modulus_bits: u32,
    randomness: Randomness,
}

impl BgrParams {
    /// `bgr-rsa2048`: RSA-2048, input-dependent r (the paper's implementation).
    pub const PRF_RSA2048: BgrParams = BgrParams {
        modulus_bits: 2048,
        randomness: Randomness::InputDependent,
    };
    /// `bgr-rsa3072`: RSA-3072, input-dependent r.
    pub const PRF_RSA3072: BgrParams = BgrParams {
        modulus_bits: 3072,
        randomness: Randomness::InputDependent,
    };
    /// `bgr-rand-rsa2048`: RSA-2048, random r, ℓ_r = 152.
    pub const RAND_RSA2048: BgrParams = BgrParams {
        modulus_bits: 2048,
        randomness: Randomness::Random { bits: 152 },
    };
    /// `bgr-rand-rsa3072`: RSA-3072, random r, ℓ_r = 168.
    pub const RAND_RSA3072: BgrParams = BgrParams {
        modulus_bits: 3072,
        randomness: Randomness::Random { bits: 168 },
    };

    /// The basic scheme with a chosen ℓ_r.
    ///
    /// # Errors
    /// [`Error::Key`] unless `modulus_bits` is 2048 or 3072 and `r_bits` is a multiple of
    /// 8 in [`RANDOM_R_BITS`].
    pub fn random(modulus_bits: u32, r_bits: u16) -> Result<Self, Error> {
        if !matches!(modulus_bits, 2048 | 3072) {
            return Err(Error::Key(format!(
                "BGR supports RSA-2048 and RSA-3072, not {modulus_bits}"
            )));
        }
        if !r_bits.is_multiple_of(8) || !RANDOM_R_BITS.contains(&r_bits) {
            return Err(Error::Key(format!(
                "ℓ_r must be a multiple of 8 in {}..={}, not {r_bits}",
                RANDOM_R_BITS.start(),
                RANDOM_R_BITS.end()
            )));
        }
        Ok(BgrParams {
            modulus_bits,
            randomness: Randomness::Random { bits: r_bits },
        })
    }

    /// ℓ_π, the RSA modulus size in bits.
    pub fn modulus_bits(&self) -> u32 {
        self.modulus_bits
    }

    /// `k = ℓ_π / 8`, the byte length of `x`, `y`, `g` and `N`.
    pub fn k(&self) -> usize {
        (self.modulus_bits / 8) as usize
    }

    /// The randomness variant.
    pub fn randomness(&self) -> Randomness {
        self.randomness
    }

    /// ℓ_r in bytes.
    pub fn r_len(&self) -> usize {
        match self.randomness {
            Randomness::InputDependent => usize::from(PRF_R_BITS / 8),
            Randomness::Random { bits } => usize::from(bits / 8),
        }
    }

    /// The stable id: `bgr-rsa2048`, `bgr-rand-rsa3072`, or `bgr-rand-rsa2048-r192` for
    /// a non-default ℓ_r (the scheme table's id for [`BgrParams::code`]).
    pub fn id(&self) -> &'static str {
        let (code, param) = self.code();
        // Every parameter set a BgrParams can hold is in the table (the constructors
        // check ℓ_r against RANDOM_R_BITS), so the fallback is never taken.
        registry::by_code(code, param).map_or("bgr", |s| s.id())
    }

    /// Parses an id produced by [`BgrParams::id`] (an explicit `-rBITS` equal to the
    /// default is accepted too), through the scheme table.
    pub fn from_id(id: &str) -> Option<Self> {
        let s = registry::by_id(id).ok()?;
        Self::from_code(s.entry.code, s.param)
    }

    /// Header code and parameter byte (`docs/spec/aggregate.md`).
    pub fn code(&self) -> (SchemeCode, u8) {
        // ℓ_r ≤ 256 (RANDOM_R_BITS), so ℓ_r / 8 fits the byte.
        match (self.modulus_bits, self.randomness) {
            (2048, Randomness::InputDependent) => (SchemeCode::BgrRsa2048, 0),
            (_, Randomness::InputDependent) => (SchemeCode::BgrRsa3072, 0),
            (2048, Randomness::Random { bits }) => (SchemeCode::BgrRandRsa2048, (bits / 8) as u8),
            (_, Randomness::Random { bits }) => (SchemeCode::BgrRandRsa3072, (bits / 8) as u8),
        }
    }

    /// `P = code ‖ param`, the bytes that follow every hash label (`docs/spec/bgr.md`
    /// §4), so that H, G and the PRF of one parameter set are independent of another's.
    pub fn hash_domain(&self) -> [u8; 2] {
        let (code, param) = self.code();
        [u8::from(code), param]
    }

    /// The parameters a header's code and parameter byte name, if any.
    pub fn from_code(code: SchemeCode, param: u8) -> Option<Self> {
        match (code, param) {
            (SchemeCode::BgrRsa2048, 0) => Some(Self::PRF_RSA2048),
            (SchemeCode::BgrRsa3072, 0) => Some(Self::PRF_RSA3072),
            (SchemeCode::BgrRandRsa2048, p) => Self::random(2048, u16::from(p) * 8).ok(),
            (SchemeCode::BgrRandRsa3072, p) => Self::random(3072, u16::from(p) * 8).ok(),
            _ => None,
        }
    }

    /// Encoded length of an aggregate of `n` signers: header, x, h, the r's, the b bitmap.
    pub fn aggregate_len(&self, n: usize) -> usize {
        HEADER_LEN + self.k() + super::H_LEN + n * self.r_len() + n.div_ceil(8)
    }

    /// Signature content in bits: `ℓ_π + ℓ_h + n (ℓ_r + 1)` — for RSA-2048 with
    /// ℓ_r = 128, the paper's `2304 + 129n` (Table 1).
    pub fn signature_bits(&self, n: usize) -> u64 {
        (self.modulus_bits as u64)
            + 8 * super::H_LEN as u64
            + (n as u64) * (8 * self.r_len() as u64 + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        for p in [
            BgrParams::PRF_RSA2048,
            BgrParams::PRF_RSA3072,
            BgrParams::RAND_RSA2048,
            BgrParams::RAND_RSA3072,
        ] {
            assert_eq!(BgrParams::from_id(p.id()), Some(p));
            let (c, param) = p.code();
            assert_eq!(BgrParams::from_code(c, param), Some(p));
        }
        let custom = BgrParams::from_id("bgr-rand-rsa2048-r192");
        assert_eq!(custom.map(|p| p.r_len()), Some(24));
        assert_eq!(custom.map(|p| p.id()), Some("bgr-rand-rsa2048-r192"));
        assert_eq!(
            BgrParams::from_id("bgr-rand-rsa2048-r152"),
            Some(BgrParams::RAND_RSA2048)
        );
        for bad in [
            "bgr-rsa1024",
            "bgr-rsa2048-r128",
            "bgr-rand-rsa2048-r100",
            "bgr-rand-rsa2048-r0152",
            "bgr-rand-rsa2048-r",
            "bgr",
        ] {
            assert_eq!(BgrParams::from_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn size_is_the_papers_formula() {
        let p = BgrParams::PRF_RSA2048;
        for n in 1..=20 {
            assert_eq!(p.signature_bits(n), 2304 + 129 * n as u64);
            assert_eq!(
                p.aggregate_len(n),
                HEADER_LEN + (2304 + 129 * n).div_ceil(8)
            );
        }
    }
}
