//! The IBAS signature type for NDN packets (docs/spec/ndn-ibas.md): 004 §5.3's
//! SignatureSha256Ibas, given a SignatureType in NDN's unassigned range (> 200), since
//! the 4 that 004 used is now SignatureHmacWithSha256. The SignatureInfo holds the
//! SignatureType alone (5 octets, as in 004 §5.3); the SignatureValue is w ‖ S ‖ T of
//! hopsig's Gentry–Ramzan aggregate (16 + 48 + 96 = 160 octets) without hopsig's
//! 7-octet aggregate header: the number of signers comes from the packet's name.

use hopsig_primitives::codec::{Codec, Writer};
use hopsig_schemes::ibas::{self, IbasAggregate, Identity, Journal, PublicParams, UserKey, W_LEN};
use hopsig_schemes::wire::{Header, SchemeCode, Signers, HEADER_LEN};

use super::{SignatureAlgorithm, SignatureError, SignerMut, Verifier};
use crate::signature::SignatureInfo;
use crate::tlv::TlvError;

/// The SignatureType's name (docs/spec/ndn-ibas.md).
pub const NAME: &str = "SignatureSha256Ibas";

/// SignatureType of SignatureSha256Ibas here: the first unassigned value (NDN-packet-
/// spec "SignatureType": 2 and 6–200 reserved, above 200 unassigned; python-ndn gives
/// 200 a meaning of its own).
pub const SIGNATURE_TYPE: u64 = 201;

/// Length of the SignatureValue: w, S (compressed G1), T (compressed G2).
pub const VALUE_LEN: usize = W_LEN + 48 + 96;

/// The SignatureInfo: SignatureType 201 and nothing else.
pub fn signature_info() -> SignatureInfo {
    SignatureInfo::new(SIGNATURE_TYPE)
}

/// The SignatureValue of `agg`.
pub fn value(agg: &IbasAggregate) -> Vec<u8> {
    let mut w = Writer::new();
    let Ok(()) = agg.encode(&mut w);
    w.into_bytes().split_off(HEADER_LEN)
}

/// The aggregate of `signers` signers in SignatureValue `value`, its points checked
/// (on the curve, in the subgroup, not the identity).
///
/// # Errors
/// A value of the wrong length, a bad point, or a signer count out of range.
pub fn aggregate(value: &[u8], signers: usize) -> Result<IbasAggregate, TlvError> {
    let bad = |reason: String| TlvError::Invalid {
        what: "IBAS SignatureValue",
        reason,
    };
    if value.len() != VALUE_LEN {
        return Err(bad(format!("{} octets, not {VALUE_LEN}", value.len())));
    }
    let n = Signers::new(signers).map_err(|e| bad(e.to_string()))?;
    let mut w = Writer::new();
    let header = Header {
        code: SchemeCode::IbasBls12381,
        param: W_LEN as u8,
        signers: n,
    };
    let Ok(()) = header.encode(&mut w);
    w.bytes(value);
    IbasAggregate::from_bytes(&w.into_bytes()).map_err(|e| bad(e.to_string()))
}

/// The IBAS signing side: a user key from the PKG and its journal of state strings
/// (signing changes the journal, so this is a [`SignerMut`]). The first signer draws a
/// fresh w; a countersigner ([`IbasSigner::countersign`]) adds its signature to an
/// earlier one under that signature's w (004 §5.3: the moderator).
pub struct IbasSigner<'a> {
    key: &'a UserKey,
    journal: &'a mut Journal,
    so_far: Option<IbasAggregate>,
}

impl<'a> IbasSigner<'a> {
    /// The first signer of an aggregate.
    pub fn new(key: &'a UserKey, journal: &'a mut Journal) -> Self {
        IbasSigner {
            key,
            journal,
            so_far: None,
        }
    }

    /// A signer that adds its signature to `first` (under `first`'s w).
    pub fn countersign(key: &'a UserKey, journal: &'a mut Journal, first: IbasAggregate) -> Self {
        IbasSigner {
            key,
            journal,
            so_far: Some(first),
        }
    }

    /// The signer's key.
    pub fn key(&self) -> &UserKey {
        self.key
    }

    /// The aggregate with this signer's signature on `portion` added, with the
    /// scheme's typed error (a reused w is [`hopsig_schemes::StateError::ReusedW`]).
    ///
    /// # Errors
    /// As [`hopsig_schemes::ibas::sign`].
    pub fn sign_aggregate(
        &mut self,
        portion: &[u8],
    ) -> Result<IbasAggregate, hopsig_schemes::Error> {
        ibas::sign(self.key, portion, self.so_far.as_ref(), self.journal)
    }
}

impl SignerMut for IbasSigner<'_> {
    fn sign_mut(&mut self, portion: &[u8]) -> Result<Vec<u8>, SignatureError> {
        let agg = self.sign_aggregate(portion).map_err(|e| match e {
            hopsig_schemes::Error::State(state) => SignatureError::State(state.to_string()),
            other => SignatureError::Key(other.to_string()),
        })?;
        Ok(value(&agg))
    }
}

/// The IBAS verifying side for a packet of one signer: the PKG's public parameters and
/// the signer's identity (which NDN takes from the packet's name). An aggregate of
/// several signers over several packets (004's moderated Data) is checked by
/// [`crate::moderation`] with [`hopsig_schemes::ibas::verify`] over all of them.
pub struct IbasVerifier<'a> {
    params: &'a PublicParams,
    identity: Identity,
}

impl<'a> IbasVerifier<'a> {
    /// A verifier of `identity`'s signatures.
    pub fn new(params: &'a PublicParams, identity: Identity) -> Self {
        IbasVerifier { params, identity }
    }
}

impl Verifier for IbasVerifier<'_> {
    fn is_valid(&self, portion: &[u8], signature: &[u8]) -> Result<bool, SignatureError> {
        let Ok(agg) = aggregate(signature, 1) else {
            return Ok(false);
        };
        Ok(ibas::verify(self.params, &[(&self.identity, portion)], &agg).is_ok())
    }
}

impl SignatureAlgorithm for IbasSigner<'_> {
    fn signature_type(&self) -> u64 {
        SIGNATURE_TYPE
    }
    fn name(&self) -> &'static str {
        NAME
    }
}

impl SignatureAlgorithm for IbasVerifier<'_> {
    fn signature_type(&self) -> u64 {
        SIGNATURE_TYPE
    }
    fn name(&self) -> &'static str {
        NAME
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use hopsig_schemes::ibas::Pkg;

    #[test]
    fn the_ibas_signer_and_verifier_agree_and_a_countersignature_aggregates() {
        let pkg = Pkg::setup().unwrap();
        let alice = pkg.extract("/wonderland/Alice").unwrap();
        let gov = pkg.extract("/moderators/Government").unwrap();
        let (mut aj, mut gj) = (Journal::memory(), Journal::memory());
        let value = IbasSigner::new(&alice, &mut aj).sign_mut(b"m1").unwrap();
        assert_eq!(value.len(), VALUE_LEN);
        let verifier = IbasVerifier::new(pkg.params(), Identity::new("/wonderland/Alice").unwrap());
        verifier.verify(SIGNATURE_TYPE, b"m1", &value).unwrap();
        assert_eq!(
            verifier.verify(SIGNATURE_TYPE, b"m2", &value),
            Err(SignatureError::Bad(NAME))
        );
        assert!(!verifier.is_valid(b"m1", &value[1..]).unwrap());
        // The moderator's signature adds to Alice's under her w: one aggregate of two.
        let first = aggregate(&value, 1).unwrap();
        let two = IbasSigner::countersign(&gov, &mut gj, first)
            .sign_mut(b"m2")
            .unwrap();
        let ids = [
            Identity::new("/wonderland/Alice").unwrap(),
            Identity::new("/moderators/Government").unwrap(),
        ];
        let agg = aggregate(&two, 2).unwrap();
        ibas::verify(pkg.params(), &[(&ids[0], b"m1"), (&ids[1], b"m2")], &agg).unwrap();
        // Signing another message under the same w is refused by the journal.
        let again =
            IbasSigner::countersign(&gov, &mut gj, aggregate(&value, 1).unwrap()).sign_mut(b"m3");
        assert!(matches!(again, Err(SignatureError::State(_))), "{again:?}");
    }
}
