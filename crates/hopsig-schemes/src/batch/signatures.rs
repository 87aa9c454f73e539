//! Ordinary signatures, one per item: a key, the signed message, the signature. BGPsec
//! suite 1 verifies one ECDSA P-256 SHA-256 signature per Secure_Path Segment (RFC 8205
//! §5.2 step 4, RFC 8608 §4); the experimental per-segment RSA suite one RSA-2048
//! signature.

use std::marker::PhantomData;

use super::{BatchVerify, Kind};
use crate::concat::BaseSignature;

/// The kind of `B`'s signatures: items [`Signed`], the reference `B::verify`.
pub struct Signatures<B>(PhantomData<fn() -> B>);

/// One signature to verify: `signature` on `message` under `key`. The message is
/// given whole, not its digest: the scheme hashes it (SHA-256 for the concatenation
/// schemes), so a multi-buffer backend can hash the lanes together too.
pub struct Signed<'a, B: BaseSignature> {
    /// The public key.
    pub key: &'a B::PublicKey,
    /// The signed octets.
    pub message: &'a [u8],
    /// The encoded signature, as received (a malformed one does not verify).
    pub signature: &'a [u8],
}

impl<B: BaseSignature> Clone for Signed<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: BaseSignature> Copy for Signed<'_, B> {}

impl<B: BaseSignature> Kind for Signatures<B> {
    type Item<'a> = Signed<'a, B>;

    fn name() -> &'static str {
        B::ID
    }

    fn verify_one(item: &Signed<'_, B>) -> bool {
        B::verify(item.key, item.message, item.signature)
    }

    /// [`BaseSignature::batch_backends`]: the scheme says which batch verifiers it has.
    fn backends() -> &'static [&'static dyn BatchVerify<Self>] {
        B::batch_backends()
    }
}
