//! The multi-buffer batch verifier of ECDSA P-256 SHA-256 (BGPsec suite 1, RFC 8608;
//! issue 28): eight verifications per pass of AVX-512 IFMA through [`hopsig_p256`],
//! listed first in [`Signatures<EcdsaP256>`]'s backends wherever the processor has
//! the instructions ([`hopsig_cpu`] decides, `HOPSIG_CPU_DISABLE=avx512ifma` turns it
//! off), as `avx512ifma`; [`Cpu`] (OpenSSL, one signature at a time) everywhere.
//!
//! Each item is what the reference verifies (SEC 1 v2 §4.1.4, FIPS 186-5 §6.4.2): the
//! message is hashed with SHA-256 (step 2; all 256 bits are e, step 3), the DER
//! signature read into r and s exactly as OpenSSL reads it ([`ecdsa_sig`](super::ecdsa_sig)),
//! and the (key, digest, r, s) items go to [`hopsig_p256::verify_batch_with_vartime`]
//! in one call, which fills the eight lanes (step 1's range checks, steps 4–7). A
//! signature OpenSSL does not read, or whose r or s is negative or ≥ 2^256, verifies
//! to false without reaching it, as it does in the reference. Batches too small to
//! fill the lanes go to OpenSSL, which is faster for them ([`MultiBuffer::min_batch`]).
//!
//! Verification handles public data only (keys, messages, signatures), so the code is
//! variable-time.

use hopsig_p256::Backend;
use hopsig_primitives::hash::sha256;

use super::ecdsa_sig;
use super::{BatchVerify, Cpu, Signatures, Signed};
use crate::concat::EcdsaP256;

/// The batch verifier of P-256 signatures with [`hopsig_p256`]'s `backend`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MultiBuffer {
    backend: Backend,
    min_batch: usize,
}

/// Batches below this many items go to OpenSSL: a pass of the vector code costs the
/// same for one lane as for eight, so fewer than eight items are not worth one.
pub const MIN_BATCH: usize = 8;

impl MultiBuffer {
    /// Eight lanes of AVX-512 IFMA (`avx512ifma`), the default backend where the
    /// processor has them. On a processor without, hopsig-p256 answers with its
    /// portable code (same verdicts); it is then not listed among the backends.
    pub const AVX512IFMA: MultiBuffer = MultiBuffer {
        backend: Backend::Avx512Ifma,
        min_batch: MIN_BATCH,
    };

    /// hopsig-p256's portable one-lane code (`portable`), behind the same item
    /// preparation: for tests of that preparation on any processor. Not listed.
    pub const PORTABLE: MultiBuffer = MultiBuffer {
        backend: Backend::Portable,
        min_batch: MIN_BATCH,
    };

    /// The same verifier sending batches of fewer than `min_batch` items to OpenSSL
    /// (0 or 1: none), so tests reach hopsig-p256 with single items too.
    pub const fn with_min_batch(self, min_batch: usize) -> MultiBuffer {
        MultiBuffer { min_batch, ..self }
    }

    /// Batches of fewer items go to OpenSSL ([`MIN_BATCH`] unless changed).
    pub const fn min_batch(&self) -> usize {
        self.min_batch
    }

    /// hopsig-p256's backend this verifier asks for.
    pub const fn backend(&self) -> Backend {
        self.backend
    }
}

impl BatchVerify<Signatures<EcdsaP256>> for MultiBuffer {
    fn name(&self) -> &'static str {
        self.backend.name()
    }

    fn verify_batch(&self, items: &[Signed<'_, EcdsaP256>]) -> Vec<bool> {
        if items.len() < self.min_batch {
            return BatchVerify::<Signatures<EcdsaP256>>::verify_batch(&Cpu, items);
        }
        // Steps 1–3 of SEC 1 §4.1.4 per item; `None` where the reference fails it
        // before any arithmetic.
        let prepared: Vec<Option<hopsig_p256::Item<'_>>> = items
            .iter()
            .map(|item| {
                let (r, s) = ecdsa_sig::read_vartime(item.signature)?;
                Some(hopsig_p256::Item {
                    key: item.key.fast(),
                    digest: sha256(&[item.message]),
                    r,
                    s,
                })
            })
            .collect();
        let lanes: Vec<hopsig_p256::Item<'_>> = prepared.iter().flatten().copied().collect();
        let mut verdicts = hopsig_p256::verify_batch_with_vartime(self.backend, &lanes).into_iter();
        // One verdict per prepared item, in order; `&&` asks for one only where the
        // item was prepared.
        prepared
            .iter()
            .map(|p| p.is_some() && verdicts.next().unwrap_or(false))
            .collect()
    }
}

/// [`Signatures<EcdsaP256>`]'s backends: `avx512ifma` first where hopsig-p256 runs its
/// IFMA code on this processor, then `cpu`.
pub(crate) fn backends() -> &'static [&'static dyn BatchVerify<Signatures<EcdsaP256>>] {
    static ALL: [&dyn BatchVerify<Signatures<EcdsaP256>>; 2] = [&MultiBuffer::AVX512IFMA, &Cpu];
    if hopsig_p256::active_backend() == Backend::Avx512Ifma {
        &ALL
    } else {
        &ALL[1..]
    }
}
