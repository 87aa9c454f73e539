//! The BGR aggregate `(x_n, h_n, r_1..r_n, b_1..b_n)` and its encoding
//! (`docs/spec/bgr.md` §3).

use hopsig_primitives::codec::{DecodeError, Reader};

use super::oracles::in_d;
use super::params::BgrParams;
use super::H_LEN;
use crate::wire::{Header, MAX_SIGNERS};
use crate::{Aggregate, Error};

/// A BGR aggregate signature: only the last signer's `x_n` and `h_n`, but every `r_i`
/// and SPLIT bit `b_i` ("all the r_i values go to the verifier", §3 Sign line 7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BgrAggregate {
    pub(super) params: BgrParams,
    pub(super) x: Vec<u8>,
    pub(super) h: [u8; H_LEN],
    pub(super) r: Vec<u8>,
    pub(super) b: Vec<bool>,
}

impl BgrAggregate {
    /// Assembles an aggregate from its parts — for tests and adversaries that need to
    /// craft one. Honest signing never needs this.
    ///
    /// # Errors
    /// [`Error::Decode`] if a part has the wrong size, `x ∉ D`, or `n` is 0 or above
    /// [`MAX_SIGNERS`].
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
        if b.is_empty() || b.len() > MAX_SIGNERS {
            return Err(bad("signer count", "must be in 1..=4096"));
        }
        Ok(BgrAggregate {
            params,
            x,
            h,
            r: r.concat(),
            b,
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
        self.b.get(i.checked_sub(1)?).copied()
    }

    pub(super) fn decode(params: BgrParams, bytes: &[u8]) -> Result<Self, Error> {
        let mut rd = Reader::new(bytes);
        let header = Header::read(&mut rd)?;
        if (header.code, header.param) != params.code() {
            return Err(Error::Mismatch(format!(
                "aggregate header names scheme code 0x{:02x}/{}, not {}",
                header.code,
                header.param,
                params.id()
            )));
        }
        let n = header.signers;
        let x = rd.take(params.k(), "x_n")?.to_vec();
        if !in_d(&x) {
            return Err(DecodeError::Invalid {
                field: "x_n",
                reason: "not in D (top bit set)",
            }
            .into());
        }
        let h = rd.array::<H_LEN>("h_n")?;
        let r = rd.take(n * params.r_len(), "r_1..r_n")?.to_vec();
        let bitmap = rd.take(n.div_ceil(8), "b_1..b_n")?;
        let b: Vec<bool> = (0..n)
            .map(|i| bitmap[i / 8] & (0x80 >> (i % 8)) != 0)
            .collect();
        let used_bits_in_last = n % 8;
        if used_bits_in_last != 0 && bitmap[n / 8] & (0xff >> used_bits_in_last) != 0 {
            return Err(DecodeError::Invalid {
                field: "b_1..b_n",
                reason: "padding bits must be zero",
            }
            .into());
        }
        rd.finish("BGR aggregate")?;
        Ok(BgrAggregate { params, x, h, r, b })
    }
}

impl Aggregate for BgrAggregate {
    fn signers(&self) -> usize {
        self.b.len()
    }

    fn to_bytes(&self) -> Vec<u8> {
        let n = self.b.len();
        let (code, param) = self.params.code();
        let mut out = Vec::with_capacity(self.params.aggregate_len(n));
        Header {
            code,
            param,
            signers: n,
        }
        .write(&mut out);
        out.extend_from_slice(&self.x);
        out.extend_from_slice(&self.h);
        out.extend_from_slice(&self.r);
        let mut bitmap = vec![0u8; n.div_ceil(8)];
        for (i, _) in self.b.iter().enumerate().filter(|(_, &bit)| bit) {
            bitmap[i / 8] |= 0x80 >> (i % 8);
        }
        out.extend_from_slice(&bitmap);
        out
    }

    fn signature_bits(&self) -> u64 {
        self.params.signature_bits(self.b.len())
    }
}
