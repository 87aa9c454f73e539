//! The Interest packet (NDN-packet-spec "Interest Packet", "Signed Interest"), with
//! the parameters digest component and the signed portion.

use sha2::{Digest, Sha256};

use crate::name::{Component, Name};
use crate::signature::SignatureInfo;
use crate::tlv::{
    non_negative, put_extras, put_nested, put_tlv, read_non_negative, sequence, single, Element,
    Reader, TlvError,
};
use crate::types;

/// An Interest packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interest {
    /// Name (at least one component). With ApplicationParameters it holds one
    /// ParametersSha256DigestComponent, which [`Interest::encode`] fills in.
    pub name: Name,
    /// CanBePrefix.
    pub can_be_prefix: bool,
    /// MustBeFresh.
    pub must_be_fresh: bool,
    /// ForwardingHint: delegation names.
    pub forwarding_hint: Vec<Name>,
    /// Nonce.
    pub nonce: Option<[u8; 4]>,
    /// InterestLifetime, ms (absent means 4000).
    pub lifetime: Option<u64>,
    /// HopLimit.
    pub hop_limit: Option<u8>,
    /// ApplicationParameters.
    pub parameters: Option<Vec<u8>>,
    /// InterestSignatureInfo and InterestSignatureValue.
    pub signature: Option<(SignatureInfo, Vec<u8>)>,
    /// Unrecognized non-critical elements, kept where they were (never before Name).
    pub extras: Vec<(Option<usize>, Element)>,
}

const FIELDS: [u32; 10] = [
    types::NAME,
    types::CAN_BE_PREFIX,
    types::MUST_BE_FRESH,
    types::FORWARDING_HINT,
    types::NONCE,
    types::INTEREST_LIFETIME,
    types::HOP_LIMIT,
    types::APPLICATION_PARAMETERS,
    types::INTEREST_SIGNATURE_INFO,
    types::INTEREST_SIGNATURE_VALUE,
];

/// Index of ApplicationParameters in [`FIELDS`].
const PARAMETERS: usize = 7;

fn flag(t: &crate::tlv::Tlv<'_>, what: &'static str) -> Result<bool, TlvError> {
    if !t.value.is_empty() {
        return Err(TlvError::Invalid {
            what,
            reason: "TLV-LENGTH must be 0".into(),
        });
    }
    Ok(true)
}

impl Interest {
    /// An Interest for `name` with nothing else.
    pub fn new(name: Name) -> Interest {
        Interest {
            name,
            can_be_prefix: false,
            must_be_fresh: false,
            forwarding_hint: vec![],
            nonce: None,
            lifetime: None,
            hop_limit: None,
            parameters: None,
            signature: None,
            extras: vec![],
        }
    }

    /// The elements from ApplicationParameters to the end, as encoded, and whether
    /// to stop before InterestSignatureValue.
    fn tail(&self, signed_only: bool) -> Vec<u8> {
        let mut v = vec![];
        if let Some(p) = &self.parameters {
            put_tlv(&mut v, types::APPLICATION_PARAMETERS, p);
        }
        put_extras(&mut v, &self.extras, Some(PARAMETERS));
        if let Some((info, value)) = &self.signature {
            info.encode(types::INTEREST_SIGNATURE_INFO, &mut v);
            put_extras(&mut v, &self.extras, Some(PARAMETERS + 1));
            if signed_only {
                return v;
            }
            put_tlv(&mut v, types::INTEREST_SIGNATURE_VALUE, value);
            put_extras(&mut v, &self.extras, Some(PARAMETERS + 2));
        }
        v
    }

    /// The name as sent: with ApplicationParameters, its parameters digest component
    /// set to SHA-256 of the elements from ApplicationParameters to the end (appended
    /// if the name has none).
    pub fn wire_name(&self) -> Name {
        let mut name = self.name.clone();
        if self.parameters.is_some() {
            let digest: [u8; 32] = Sha256::digest(self.tail(false)).into();
            match name.0.iter_mut().find(|c| c.is_params_digest()) {
                Some(c) => *c = Component::params_digest(digest),
                None => name.0.push(Component::params_digest(digest)),
            }
        }
        name
    }

    /// The signed portion of a signed Interest: the name's component TLVs except the
    /// parameters digest, then the elements from ApplicationParameters up to, not
    /// including, InterestSignatureValue.
    pub fn signed_portion(&self) -> Vec<u8> {
        let mut v = vec![];
        for c in self.name.0.iter().filter(|c| !c.is_params_digest()) {
            c.encode(&mut v);
        }
        v.extend_from_slice(&self.tail(true));
        v
    }

    /// The Interest TLV.
    pub fn encode(&self) -> Vec<u8> {
        let mut v = vec![];
        // None belong here; an Interest built with some is encoded as built, and
        // refused by the decoder.
        put_extras(&mut v, &self.extras, None);
        self.wire_name().encode(&mut v);
        put_extras(&mut v, &self.extras, Some(0));
        if self.can_be_prefix {
            put_tlv(&mut v, types::CAN_BE_PREFIX, &[]);
        }
        put_extras(&mut v, &self.extras, Some(1));
        if self.must_be_fresh {
            put_tlv(&mut v, types::MUST_BE_FRESH, &[]);
        }
        put_extras(&mut v, &self.extras, Some(2));
        if !self.forwarding_hint.is_empty() {
            put_nested(&mut v, types::FORWARDING_HINT, |h| {
                for n in &self.forwarding_hint {
                    n.encode(h);
                }
            });
        }
        put_extras(&mut v, &self.extras, Some(3));
        if let Some(n) = self.nonce {
            put_tlv(&mut v, types::NONCE, &n);
        }
        put_extras(&mut v, &self.extras, Some(4));
        if let Some(l) = self.lifetime {
            put_tlv(&mut v, types::INTEREST_LIFETIME, &non_negative(l));
        }
        put_extras(&mut v, &self.extras, Some(5));
        if let Some(h) = self.hop_limit {
            put_tlv(&mut v, types::HOP_LIMIT, &[h]);
        }
        put_extras(&mut v, &self.extras, Some(6));
        v.extend_from_slice(&self.tail(false));
        let mut out = Vec::with_capacity(v.len() + 4);
        put_tlv(&mut out, types::INTEREST, &v);
        out
    }

    /// Decodes one Interest, all of `input`, checking the parameters digest.
    ///
    /// # Errors
    /// Not an Interest TLV, an empty or missing Name, a bad field, an element before
    /// Name, a critical element out of place, ApplicationParameters without a
    /// matching parameters digest component (or one without the other), a signature
    /// without ApplicationParameters or half a signature.
    pub fn decode(input: &[u8]) -> Result<Interest, TlvError> {
        let what = "Interest";
        let outer = single(input, types::INTEREST, what)?;
        let mut i = Interest::new(Name::root());
        let (mut named, mut sig_info, mut sig_value, mut tail_at) = (false, None, None, None);
        let extras = sequence(outer.value, what, &FIELDS, |k, t| {
            match k {
                0 => {
                    i.name = Name::decode_value(t.value)?;
                    named = true;
                }
                1 => i.can_be_prefix = flag(&t, "CanBePrefix")?,
                2 => i.must_be_fresh = flag(&t, "MustBeFresh")?,
                3 => {
                    let mut r = Reader::new(t.value);
                    while !r.is_empty() {
                        let n = r.expect(types::NAME, "ForwardingHint")?;
                        i.forwarding_hint.push(Name::decode_value(n.value)?);
                    }
                    if i.forwarding_hint.is_empty() {
                        return Err(TlvError::Invalid {
                            what: "ForwardingHint",
                            reason: "no delegation name".into(),
                        });
                    }
                }
                4 => {
                    i.nonce = Some(t.value.try_into().map_err(|_| TlvError::Invalid {
                        what: "Nonce",
                        reason: format!("{} octets, not 4", t.value.len()),
                    })?)
                }
                5 => i.lifetime = Some(read_non_negative(t.value, "InterestLifetime")?),
                6 => {
                    let [h] = t.value else {
                        return Err(TlvError::Invalid {
                            what: "HopLimit",
                            reason: format!("{} octets, not 1", t.value.len()),
                        });
                    };
                    i.hop_limit = Some(*h);
                }
                7 => {
                    i.parameters = Some(t.value.to_vec());
                    // The digest covers from here to the end of the Interest.
                    let start = t.whole.as_ptr() as usize - outer.value.as_ptr() as usize;
                    tail_at = Some(start);
                }
                8 => sig_info = Some(SignatureInfo::decode(t.value)?),
                _ => sig_value = Some(t.value.to_vec()),
            }
            Ok(())
        })?;
        if !named || extras.iter().any(|(after, _)| after.is_none()) {
            return Err(TlvError::Missing {
                what,
                missing: "Name as its first element",
            });
        }
        if i.name.is_empty() {
            return Err(TlvError::Invalid {
                what,
                reason: "a Name of zero components".into(),
            });
        }
        i.extras = extras;
        i.signature = match (sig_info, sig_value) {
            (None, None) => None,
            (Some(info), Some(value)) if i.parameters.is_some() => Some((info, value)),
            (Some(_), Some(_)) => {
                return Err(TlvError::Missing {
                    what,
                    missing: "ApplicationParameters before InterestSignatureInfo",
                })
            }
            (Some(_), None) => {
                return Err(TlvError::Missing {
                    what,
                    missing: "InterestSignatureValue",
                })
            }
            (None, Some(_)) => {
                return Err(TlvError::Missing {
                    what,
                    missing: "InterestSignatureInfo",
                })
            }
        };
        let digests: Vec<&Component> = i.name.0.iter().filter(|c| c.is_params_digest()).collect();
        match (tail_at, digests.as_slice()) {
            (None, []) => {}
            (Some(at), [c]) => {
                let digest = Sha256::digest(&outer.value[at..]);
                if c.value() != digest.as_slice() {
                    return Err(TlvError::Invalid {
                        what,
                        reason: "parameters digest component does not match ApplicationParameters"
                            .into(),
                    });
                }
            }
            (Some(_), _) => {
                return Err(TlvError::Invalid {
                    what,
                    reason: format!(
                        "ApplicationParameters needs exactly one parameters digest component, the name has {}",
                        digests.len()
                    ),
                })
            }
            (None, _) => {
                return Err(TlvError::Invalid {
                    what,
                    reason: "parameters digest component without ApplicationParameters".into(),
                })
            }
        }
        Ok(i)
    }
}
