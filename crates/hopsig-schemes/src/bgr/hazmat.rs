//! Signing with a caller-chosen `r_i`, for known-answer tests only.
//!
//! **Danger.** The basic scheme (BGR §3) is secure under lazy verification because each
//! signer draws `r_i` fresh and uniformly at random (Sign line 1; Theorem 4.2 loses
//! `q_S (q_S + q_H) 2^-ℓ_r` for it). With `r_i` chosen by the caller — fixed, reused or
//! predictable — the map from the aggregate so far to what the signer inverts is public
//! and deterministic again, which is Neven's scheme and falls to the attack of BGR
//! App. A (`tests/appendix_a_attack.rs`). hopsig uses this only to reproduce the
//! random-r test vectors of `docs/spec/vectors/bgr.json`.

use super::{Bgr, BgrAggregate, BgrSigningKey};
use crate::Error;

/// Sign (BGR §3 lines 2–7 with App. F) with `r_i = r` instead of a fresh random string.
/// See the module documentation: never use this outside known-answer tests.
///
/// # Errors
/// [`Error::Key`] unless the scheme is the random-r variant and `r` has ℓ_r/8 bytes;
/// otherwise as [`crate::SequentialAggregate::sign`].
pub fn danger_sign_with_r(
    scheme: &Bgr,
    key: &BgrSigningKey,
    msg: &[u8],
    r: &[u8],
    so_far: Option<&BgrAggregate>,
) -> Result<BgrAggregate, Error> {
    scheme.sign_with(key, msg, so_far, Some(r))
}
