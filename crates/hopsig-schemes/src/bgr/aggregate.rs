//! The BGR aggregate `(x_n, h_n, r_1..r_n, b_1..b_n)` and its encoding
//! (`docs/spec/bgr.md` §3).

use std::convert::Infallible;

use hopsig_primitives::codec::{Codec, DecodeError, Reader, Writer};

use super::oracles::in_d;
use super::params::BgrParams;
use super::H_LEN;
use crate::wire::{not_this_scheme, Header, PerSigner};
use crate::{Aggregate, Error};

/// A BGR aggregate signature: only the last signer's `x_n` and `h_n`, but every `r_i`
/// and SPLIT bit `b_i` ("all the r_i values go to the verifier", §3 Sign line 7).
///
/// ```text
/// +--------------------------------------------+
/// | header (7): code 0x10..0x13, param, n      |  docs/spec/aggregate.md
/// +--------------------------------------------+
/// | x_n (k = ℓ_π / 8), top bit 0 (x_n ∈ D)     |
/// +--------------------------------------------+
/// | h_n (32)                                   |
/// +--------------------------------------------+
/// | r_1 ‖ … ‖ r_n (n · ℓ_r / 8), signer 1 first |
/// +--------------------------------------------+
/// | b_1 … b_n (⌈n / 8⌉), MSB first, padding 0  |
/// +--------------------------------------------+
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BgrAggregate {
    pub(super) params: BgrParams,
    pub(super) x: Vec<u8>,
    pub(super) h: [u8; H_LEN],
    pub(super) r: Vec<u8>,
    pub(super) b: PerSigner<bool>,
}

impl BgrAggregate {
    /// Assembles an aggregate from its parts — for tests and adversaries that need to
    /// craft one. Honest signing never needs this.
    ///
    /// # Errors
    /// [`Error::Decode`] if a part has the wrong size or `x ∉ D`; [`Error::NoSigners`] /
    /// [`Error::TooManySigners`] for `n` outside `1..=MAX_SIGNERS`.
    pub fn from_parts(
        params: BgrParams,
        x: Vec<u8>,
        h: [u8; H_LEN],
        r: Vec<Vec<u8>>,
        b: Vec<bool>,
    ) -> Result<Self, Error> {
        let bad = |field, reason| Error::Decode(DecodeError::Invalid { field, reason });
        if x.len() != params.k() || !in_d(&x) {
            return Err(bad("x_n", "must be k bytes with the top bit clear (x ∈ D)"));
        }
        if r.len() != b.len() || r.iter().any(|ri| ri.len() != params.r_len()) {
            return Err(bad("r", "one r_i of ℓ_r bits per b_i is needed"));
        }
        Ok(BgrAggregate {
            params,
            x,
            h,
            r: r.concat(),
            b: PerSigner::new(b)?,
        })
    }

    /// The parameter set.
    pub fn params(&self) -> BgrParams {
        self.params
    }
    /// `x_n`, `k` bytes, in D.
    pub fn x(&self) -> &[u8] {
        &self.x
    }
    /// `h_n`.
    pub fn h(&self) -> &[u8; H_LEN] {
        &self.h
    }
    /// `r_i` for `i` in `1..=n` (1-based as in the paper).
    pub fn r(&self, i: usize) -> Option<&[u8]> {
        let len = self.params.r_len();
        let start = i.checked_sub(1)? * len;
        self.r.get(start..start + len)
    }
    /// `b_i` for `i` in `1..=n`.
    pub fn b(&self, i: usize) -> Option<bool> {
        self.b.as_slice().get(i.checked_sub(1)?).copied()
    }
}

impl Codec for BgrAggregate {
    const NAME: &'static str = "BGR aggregate";
    type EncodeError = Infallible;

    fn encode(&self, w: &mut Writer) -> Result<(), Infallible> {
        let (code, param) = self.params.code();
        Header {
            code,
            param,
            signers: self.b.signers(),
        }
        .encode(w)?;
        w.bytes(&self.x);
        w.bytes(&self.h);
        w.bytes(&self.r);
        w.bits(self.b.as_slice());
        Ok(())
    }

    fn read(rd: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let header = Header::read(rd)?;
        let params = BgrParams::from_code(header.code, header.param)
            .ok_or(not_this_scheme("not a BGR parameter set"))?;
        let n = header.signers;
        let x = rd.take(params.k(), "x_n")?.to_vec();
        if !in_d(&x) {
            return Err(DecodeError::Invalid {
                field: "x_n",
                reason: "not in D (top bit set)",
            });
        }
        let h = rd.array::<H_LEN>("h_n")?;
        let r = rd.take(n.get() * params.r_len(), "r_1..r_n")?.to_vec();
        let b = PerSigner::read_bits(rd, n, "b_1..b_n")?;
        Ok(BgrAggregate { params, x, h, r, b })
    }
}

impl Aggregate for BgrAggregate {
    fn signers(&self) -> usize {
        self.b.signers().get()
    }

    fn signature_bits(&self) -> u64 {
        self.params.signature_bits(self.signers())
    }
}
