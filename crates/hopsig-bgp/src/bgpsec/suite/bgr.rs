//! Experimental suite 0xF7, `bgr-rsa2048`: BGR's lazy sequential aggregate
//! (`../shared/papers/002`, hopsig-schemes `bgr-rsa2048`) carried across a
//! Signature_Block (docs/spec/bgpsec-bgr.md).
//!
//! ```text
//! Signature Segment i < K:  SKI_i (20) | Length 17  | r_i (16) | b_i (1)
//! Signature Segment K:      SKI_K (20) | Length 305 | r_K (16) | b_K (1) | x_K (256) | h_K (32)
//! ```
//!
//! Every segment holds its signer's `r_i` and SPLIT bit `b_i`; the newest also holds the
//! aggregate `x_K`, `h_K` (bgpsec-bgr.md §3). A hop signs RFC 8205's Figure 8 with each
//! earlier Signature Segment reduced to its SKI ([`Coverage::SkiOnly`], §4): the
//! aggregate already binds the earlier signatures. Signing reads the received block
//! without verifying it (lazy verification, §8), calls BGR's `Sign` through
//! [`SequentialAggregate`], prepends the new newest segment and cuts the previous one
//! to its per-hop part (§5). Validation looks up every hop's keys, reads the segments,
//! and runs BGR's `Ver` once over the whole block (§6).

use std::borrow::Cow;

use zeroize::Zeroizing;

use hopsig_primitives::armor::KeyKind;
use hopsig_primitives::rsa::RsaPublicKey;
use hopsig_schemes::bgr::{
    Bgr, BgrAggregate, BgrParams, BgrSigningKey, BgrVerifyingKey, Randomness, H_LEN,
};
use hopsig_schemes::registry::read_key_file;
use hopsig_schemes::{Aggregate, SequentialAggregate, SigningKey as _};

use super::{AlgorithmSuite, BlockFault, KeyError, SigningKey, VerifyingKey};
use crate::cache::{CheckKey, Lookup, SignatureCache};
use crate::packet::{SecurePathSegment, SignatureBlock, SignatureSegment};
use crate::router_key::KeyLookup;
use crate::sign::SignError;
use crate::signature_input::{Coverage, SignatureInput};

/// Suite 0xF7 (RFC 8608 §2.1's experimentation range): BGR with RSA-2048 and PRF r.
pub static BGR_RSA2048: BgrSuite = BgrSuite {
    id: 0xf7,
    name: "bgr-rsa2048",
    params: BgrParams::PRF_RSA2048,
};

/// Most key choices one block's validation tries when an (AS, SKI) has several keys
/// (bgpsec-bgr.md §6).
pub const MAX_KEY_CHOICES: usize = 16;

/// A BGPsec suite of the BGR aggregate with one parameter set.
pub struct BgrSuite {
    id: u8,
    name: &'static str,
    params: BgrParams,
}

/// Why a segment of a received block is not well formed (bgpsec-bgr.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct IllFormed {
    /// The segment, numbered as in RFC 8205 §4.2 (1 = origin).
    segment: usize,
    reason: &'static str,
}

impl BgrSuite {
    fn scheme(&self) -> Bgr {
        Bgr::new(self.params)
    }

    /// Octets of a segment's per-hop part, `r_i ‖ b_i`.
    pub fn part_len(&self) -> usize {
        self.params.r_len() + 1
    }

    /// Octets of the newest segment's Signature field, `r_K ‖ b_K ‖ x_K ‖ h_K`.
    pub fn newest_len(&self) -> usize {
        self.part_len() + self.params.k() + H_LEN
    }

    /// Octets of a Signature_Block of `hops` segments: length, suite, and per segment
    /// its SKI, its length and its part, plus the aggregate (bgpsec-bgr.md §3).
    pub fn block_len(&self, hops: usize) -> usize {
        3 + hops * (crate::packet::SKI_LEN + 2 + self.part_len()) + self.params.k() + H_LEN
    }

    /// A router key of this suite from a BGR signing key of its parameter set (a
    /// `bgr-rsa2048` hopsig key file holds one, with the PRF seed a PKCS #8 key lacks).
    ///
    /// # Errors
    /// [`KeyError::Scheme`] for a key of another parameter set.
    pub fn signing_key(&self, key: BgrSigningKey) -> Result<SigningKey, KeyError> {
        if key.scheme_id() != self.params.id() {
            return Err(KeyError::Scheme(hopsig_schemes::Error::KeyForOtherScheme {
                expected: self.params.id().into(),
                found: key.scheme_id().into(),
            }));
        }
        let spki = key.verifying_key().rsa().spki_der().to_vec();
        SigningKey::new(self.id, spki, key)
    }

    /// `(r_i, b_i)` of segment `segment` (1 = origin) of a block whose newest is
    /// `newest`, if its Signature field is well formed (bgpsec-bgr.md §3).
    fn part<'s>(
        &self,
        segment: usize,
        newest: usize,
        signature: &'s [u8],
    ) -> Result<(&'s [u8], bool), IllFormed> {
        let bad = |reason| IllFormed { segment, reason };
        let want = if segment == newest {
            self.newest_len()
        } else {
            self.part_len()
        };
        if signature.len() != want {
            return Err(bad(if segment == newest {
                "the newest Signature is not r ‖ b ‖ x ‖ h"
            } else {
                "the Signature is not r ‖ b"
            }));
        }
        let (r, rest) = signature.split_at(self.params.r_len());
        // x_K ∈ D: its top bit is 0 (bgr.md §3).
        if rest.get(1).is_some_and(|x0| x0 & 0x80 != 0) {
            return Err(bad("x is not in D (its top bit is set)"));
        }
        match rest[0] {
            0 => Ok((r, false)),
            1 => Ok((r, true)),
            _ => Err(bad("b is neither 0x00 nor 0x01")),
        }
    }

    /// The aggregate a block's segments (newest first) carry. Every segment is read; none
    /// is verified.
    fn aggregate(&self, segments: &[SignatureSegment<'_>]) -> Result<BgrAggregate, IllFormed> {
        let k = segments.len();
        let mut r = Vec::with_capacity(k);
        let mut b = Vec::with_capacity(k);
        for (i, s) in segments.iter().enumerate().rev() {
            let (ri, bi) = self.part(k - i, k, &s.signature)?;
            r.push(ri.to_vec());
            b.push(bi);
        }
        let newest = segments.first().ok_or(IllFormed {
            segment: 0,
            reason: "the block has no segment",
        })?;
        let (x, h) = newest.signature[self.part_len()..].split_at(self.params.k());
        let h: [u8; H_LEN] = h.try_into().map_err(|_| IllFormed {
            segment: k,
            reason: "h is not 32 octets",
        })?;
        BgrAggregate::from_parts(self.params, x.to_vec(), h, r, b).map_err(|_| IllFormed {
            segment: k,
            reason: "the block holds more hops than an aggregate's 4096 signers",
        })
    }

    /// The newest segment's Signature field: `r_K ‖ b_K ‖ x_K ‖ h_K`.
    fn newest_signature(&self, agg: &BgrAggregate) -> Vec<u8> {
        let k = agg.signers();
        let mut sig = Vec::with_capacity(self.newest_len());
        sig.extend_from_slice(agg.r(k).unwrap_or_default());
        sig.push(u8::from(agg.b(k).unwrap_or_default()));
        sig.extend_from_slice(agg.x());
        sig.extend_from_slice(agg.h());
        sig
    }
}

impl AlgorithmSuite for BgrSuite {
    fn id(&self) -> u8 {
        self.id
    }

    fn name(&self) -> &'static str {
        self.name
    }

    /// bgpsec-bgr.md §4: the earlier Signature Segments enter as their SKIs only.
    fn coverage(&self) -> Coverage {
        Coverage::SkiOnly
    }

    fn generate(&self) -> Result<SigningKey, KeyError> {
        self.signing_key(self.scheme().generate()?)
    }

    /// A PKCS #8 RSA key lacks the PRF seed of the input-dependent variant: refused,
    /// naming the key file that holds both ([`BgrSuite::signing_key`]).
    fn signing_key_from_pkcs8(&self, _der: &[u8]) -> Result<SigningKey, KeyError> {
        match self.params.randomness() {
            Randomness::InputDependent => {
                Err(KeyError::Scheme(hopsig_schemes::Error::Key(format!(
                    "a {} router key is an RSA key with a PRF seed, which PKCS #8 cannot hold: \
                     use a {} key file (docs/spec/keys.md)",
                    self.name,
                    self.params.id()
                ))))
            }
            Randomness::Random { .. } => Err(KeyError::Scheme(hopsig_schemes::Error::Key(
                "only the PRF variant of BGR is a BGPsec suite".into(),
            ))),
        }
    }

    /// A hopsig key file of scheme `bgr-rsa2048`: the RSA key and the PRF seed
    /// (docs/spec/keys.md), which PKCS #8 cannot hold.
    fn secret_key_file(&self, key: &SigningKey) -> Result<Zeroizing<String>, KeyError> {
        Ok(key.secret_of::<BgrSigningKey>(self)?.to_key_file()?)
    }

    /// A `bgr-rsa2048` hopsig key file: the RSA key and the PRF seed
    /// (docs/spec/keys.md).
    fn signing_key_from_file(&self, text: &[u8]) -> Result<SigningKey, KeyError> {
        let scheme = self.scheme();
        let file = read_key_file(text, scheme.id(), KeyKind::Secret)?;
        self.signing_key(scheme.signing_key_from_file(&file)?)
    }

    fn verifying_key_from_spki(&self, spki: &[u8]) -> Result<VerifyingKey, KeyError> {
        let rsa = RsaPublicKey::from_spki_der(spki).map_err(hopsig_schemes::Error::from)?;
        Ok(VerifyingKey::new(
            self.id,
            BgrVerifyingKey::new(self.params, rsa)?,
        ))
    }

    /// bgpsec-bgr.md §5: reads (x_{N−1}, h_{N−1}) and the r_i, b_i from the block
    /// without verifying anything, signs `input` with BGR's `Sign`, prepends the new
    /// newest segment and cuts the previous newest to `r ‖ b`.
    fn sign(
        &self,
        key: &SigningKey,
        input: &[u8],
        block: &mut SignatureBlock<'_>,
    ) -> Result<(), SignError> {
        if block.suite != self.id {
            return Err(SignError::BlockForOtherSuite {
                block: block.suite,
                suite: self.id,
            });
        }
        let so_far =
            match block.segments.is_empty() {
                true => None,
                false => Some(self.aggregate(&block.segments).map_err(|e| {
                    SignError::IllFormedBlock {
                        suite: self.id,
                        segment: e.segment,
                        reason: e.reason,
                    }
                })?),
            };
        let scheme = self.scheme();
        super::per_segment::sign_segment(self.id, key, block, |secret: &BgrSigningKey| {
            let agg = scheme.sign(secret, input, so_far.as_ref())?;
            Ok(self.newest_signature(&agg))
        })?;
        if let Some(previous) = block.segments.get_mut(1) {
            let part = previous.signature[..self.part_len()].to_vec();
            previous.signature = Cow::Owned(part);
        }
        Ok(())
    }

    /// bgpsec-bgr.md §6: for N = K … 1, the keys of (AS(N), SKI_N) and the segment's
    /// form; then BGR's `Ver` over the whole block, for each choice of keys up to
    /// [`MAX_KEY_CHOICES`].
    fn validate(
        &self,
        block: &SignatureBlock<'_>,
        secure_path: &[SecurePathSegment],
        input: &SignatureInput,
        keys: &dyn KeyLookup,
    ) -> Result<(), BlockFault> {
        self.validate_with(block, secure_path, input, keys, None)
    }

    /// As [`AlgorithmSuite::validate`], each choice of keys asked of `cache` as one
    /// check: the aggregate is one signature over the whole path, so only a path seen
    /// whole before (with the same keys, octets and Signature fields) hits.
    fn validate_cached(
        &self,
        block: &SignatureBlock<'_>,
        secure_path: &[SecurePathSegment],
        input: &SignatureInput,
        keys: &dyn KeyLookup,
        cache: &SignatureCache,
    ) -> Result<(), BlockFault> {
        self.validate_with(block, secure_path, input, keys, Some(cache))
    }
}

impl BgrSuite {
    /// bgpsec-bgr.md §6 for [`AlgorithmSuite::validate`], with or without a cache.
    fn validate_with(
        &self,
        block: &SignatureBlock<'_>,
        secure_path: &[SecurePathSegment],
        input: &SignatureInput,
        keys: &dyn KeyLookup,
        cache: Option<&SignatureCache>,
    ) -> Result<(), BlockFault> {
        let k = secure_path.len();
        // Newest first, as the walk goes; each key with its SubjectPublicKeyInfo, the
        // cache's name for it.
        let mut candidates: Vec<Vec<(&[u8], &BgrVerifyingKey)>> = Vec::with_capacity(k);
        for (n, segment, signature) in super::newest_first(secure_path, block) {
            // Step 2.
            let found = super::router_keys_of(keys, n, segment, signature)?;
            let mut usable: Vec<(&[u8], &BgrVerifyingKey)> = Vec::with_capacity(1);
            for key in found {
                let parsed = key
                    .for_suite(self.id)
                    .and_then(VerifyingKey::downcast::<BgrVerifyingKey>);
                if let Some(pk) = parsed {
                    if !usable
                        .iter()
                        .any(|(_, u)| u.rsa().fingerprint() == pk.rsa().fingerprint())
                    {
                        usable.push((key.spki(), pk));
                    }
                }
            }
            if usable.is_empty() || self.part(n, k, &signature.signature).is_err() {
                return Err(BlockFault::BadSignature {
                    segment: n,
                    asn: segment.asn,
                });
            }
            candidates.push(usable);
        }
        candidates.reverse();
        let agg = self
            .aggregate(&block.segments)
            .map_err(|_| BlockFault::BadAggregate)?;
        let messages: Vec<&[u8]> = (1..=k)
            .map(|n| input.hop(n))
            .collect::<Option<_>>()
            .ok_or(BlockFault::BadAggregate)?;
        let scheme = self.scheme();
        let verified = choices(&candidates).take(MAX_KEY_CHOICES).any(|choice| {
            let pending = match cache.map(|c| {
                c.lookup(|| {
                    CheckKey::aggregate(
                        self.id,
                        choice.iter().map(|(spki, _)| *spki),
                        messages.iter().copied(),
                        block.segments.iter().map(|s| &*s.signature),
                    )
                })
            }) {
                Some(Lookup::Hit) => return true,
                Some(Lookup::Miss(p)) => Some(p),
                None => None,
            };
            let signers: Vec<(&BgrVerifyingKey, &[u8])> = choice
                .into_iter()
                .map(|(_, key)| key)
                .zip(messages.iter().copied())
                .collect();
            let ok = scheme.verify(&signers, &agg).is_ok();
            if let (true, Some(cache), Some(p)) = (ok, cache, pending) {
                cache.verified(p);
            }
            ok
        });
        if verified {
            Ok(())
        } else {
            Err(BlockFault::BadAggregate)
        }
    }
}

/// Every choice of one key per hop from `candidates` (origin first), the origin's keys
/// varying fastest.
fn choices<'c, K: Copy>(candidates: &'c [Vec<K>]) -> impl Iterator<Item = Vec<K>> + 'c {
    let total = candidates
        .iter()
        .try_fold(1usize, |n, c| n.checked_mul(c.len()))
        .unwrap_or(usize::MAX);
    (0..total).map(move |mut t| {
        candidates
            .iter()
            .map(|c| {
                let key = c[t % c.len()];
                t /= c.len();
                key
            })
            .collect()
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn choices_cover_every_combination_origin_fastest() {
        let c = vec![vec![1, 2], vec![10], vec![100, 200, 300]];
        let all: Vec<Vec<i32>> = choices(&c).collect();
        assert_eq!(all.len(), 6);
        assert_eq!(all[0], [1, 10, 100]);
        assert_eq!(all[1], [2, 10, 100]);
        assert_eq!(all[2], [1, 10, 200]);
        assert_eq!(all[5], [2, 10, 300]);
        assert_eq!(choices::<u8>(&[]).count(), 1);
    }

    #[test]
    fn sizes_are_the_specs() {
        let s = &BGR_RSA2048;
        assert_eq!(s.part_len(), 17);
        assert_eq!(s.newest_len(), 305);
        for n in 1..=15 {
            assert_eq!(s.block_len(n), 3 + 39 * n + 288);
        }
    }
}
