//! Batch verification: N independent items in, N verdicts out, one per item
//! (ARCHITECTURE.md, "Batch verification is the seam for speed"; STYLE.md 24).
//!
//! Protocols do not verify signatures one call at a time: they collect the independent
//! checks they have (every segment of a BGPsec path, every signed packet of a batch of
//! captured frames) and hand them to a [`BatchVerify`] backend in one call. A backend
//! that verifies many items at once — a multi-buffer SIMD verifier that fills the lanes
//! of one vector unit with eight P-256 verifications (issue 28), a GPU kernel — then
//! plugs in here without a change to any caller.
//!
//! * A [`Kind`] is one algorithm's item type and its *reference* verification of a
//!   single item: [`Signatures`] for an ordinary signature scheme
//!   ([`Signed`]: key, message, signature; ECDSA P-256 of BGPsec suite 1 and RSA-2048),
//!   [`PlaPackets`] for the PLA per-hop fused check ([`PlaPacket`]).
//! * A backend implements [`BatchVerify`] for the kinds it speeds up and is listed in
//!   that kind's [`Kind::backends`] table, found by name with [`backend`]; the callers
//!   take [`default_backend`], the table's first entry. [`Cpu`] is the portable
//!   backend of every kind: the reference verification of each item in turn, exactly
//!   the single-item call the protocols made before, so it costs nothing.
//! * [`MultiBuffer`] verifies ECDSA P-256 signatures eight at a time with AVX-512 IFMA
//!   (issue 28, [`p256`]): the default backend of [`Signatures<EcdsaP256>`] on a
//!   processor with the instructions, named `avx512ifma`.
//! * Every backend is differential-tested against the reference with
//!   [`differential`]: same verdicts on the same items, valid, invalid, under a wrong
//!   key and malformed mixed (this module's tests run it for [`Cpu`]; a new backend
//!   runs the same harness on the same item mixes).
//!
//! Verdicts are `bool`s, as opaque as any verifier's answer (STYLE.md 3): a backend says
//! whether an item verifies, never which internal check failed, and a malformed item
//! (a signature that does not parse, a key of another curve) is simply one that does not
//! verify. A backend never panics on an item.
//!
//! Adding a backend: implement [`BatchVerify<K>`] (a stable [`BatchVerify::name`],
//! `verify_batch` returning exactly one verdict per item, in order), list it in `K`'s
//! [`Kind::backends`] ahead of [`Cpu`] where it is faster and available (detected at run
//! time, as curve25519-dalek picks its vector backend), and run [`differential`] against
//! it in a test over the mixes below.

mod ecdsa_sig;
pub mod p256;
mod pla;
mod signatures;

pub use p256::MultiBuffer;
pub use pla::{PlaPacket, PlaPackets};
pub use signatures::{Signatures, Signed};

#[cfg(doc)]
use crate::concat::EcdsaP256;

/// One algorithm's batch item and its reference verification of one item.
pub trait Kind: Sized + 'static {
    /// One independent check, borrowing what it verifies.
    type Item<'a>;

    /// A stable name of the kind, for reports and test output (`ecdsa-p256-concat`).
    fn name() -> &'static str;

    /// The reference: whether one item verifies, by the scheme's own single-item
    /// verification.
    fn verify_one(item: &Self::Item<'_>) -> bool;

    /// Every backend of this kind, the default (fastest available) first; [`Cpu`]
    /// always among them.
    fn backends() -> &'static [&'static dyn BatchVerify<Self>] {
        &[&Cpu]
    }
}

/// A batch verifier of items of kind `K`.
pub trait BatchVerify<K: Kind>: Send + Sync {
    /// A stable name of the backend (`cpu`), to select it and in reports.
    fn name(&self) -> &'static str;

    /// One verdict per item of `items`, in order: whether it verifies. Exactly
    /// `items.len()` verdicts, the same as [`Kind::verify_one`] of each item.
    fn verify_batch(&self, items: &[K::Item<'_>]) -> Vec<bool>;
}

/// The portable backend of every kind: each item by the reference, in turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cpu;

impl<K: Kind> BatchVerify<K> for Cpu {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn verify_batch(&self, items: &[K::Item<'_>]) -> Vec<bool> {
        items.iter().map(K::verify_one).collect()
    }
}

/// The backend of kind `K` named `name`, if it is listed in [`Kind::backends`].
pub fn backend<K: Kind>(name: &str) -> Option<&'static dyn BatchVerify<K>> {
    K::backends().iter().copied().find(|b| b.name() == name)
}

/// The backend the protocols use for kind `K`: the first of [`Kind::backends`].
pub fn default_backend<K: Kind>() -> &'static dyn BatchVerify<K> {
    K::backends().first().copied().unwrap_or(&Cpu)
}

/// A backend disagreeing with the reference.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    /// It gave another number of verdicts than there were items.
    #[error("{backend}: {verdicts} verdicts for {items} items")]
    Count {
        /// The backend.
        backend: &'static str,
        /// Items given.
        items: usize,
        /// Verdicts returned.
        verdicts: usize,
    },
    /// It gave another verdict than the reference for the item at `index`.
    #[error("{backend}: item {index} is {verdict}, the reference says {reference}")]
    Verdict {
        /// The backend.
        backend: &'static str,
        /// The item, from 0.
        index: usize,
        /// The backend's verdict.
        verdict: bool,
        /// The reference's.
        reference: bool,
    },
}

/// The differential test of a backend: its verdicts on `items` against
/// [`Kind::verify_one`] of each item.
///
/// # Errors
/// The first disagreement: a wrong number of verdicts, or the first item whose verdict
/// differs.
pub fn differential<K: Kind>(
    backend: &dyn BatchVerify<K>,
    items: &[K::Item<'_>],
) -> Result<(), Mismatch> {
    let verdicts = backend.verify_batch(items);
    if verdicts.len() != items.len() {
        return Err(Mismatch::Count {
            backend: backend.name(),
            items: items.len(),
            verdicts: verdicts.len(),
        });
    }
    for (index, (item, &verdict)) in items.iter().zip(&verdicts).enumerate() {
        let reference = K::verify_one(item);
        if verdict != reference {
            return Err(Mismatch::Verdict {
                backend: backend.name(),
                index,
                verdict,
                reference,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
