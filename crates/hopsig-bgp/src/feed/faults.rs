//! Fault injection: an UPDATE of the feed turned into one that breaks one rule, and
//! the verdict RFC 8205 / RFC 7606 expect of the router that receives it.
//!
//! Which messages get a fault is a pure function of (`--seed`, message index)
//! ([`Plan::pick`]): a run is reproduced exactly by its seed, and one message's fault
//! can be recomputed alone. Faults are built with the packet codec where it can encode
//! the result; the malformations it refuses to encode (a repeated attribute, a wrong
//! length) are framed here from the codec's encoding of each attribute.

use hopsig_primitives::codec::Writer;

use crate::packet::{
    AsWidth, AttrFlags, AttrType, AttributeValue, BgpsecPath, Header, Message, MessageType,
    PathAttribute, SecurePathFlags, SignatureBlock, Update, HEADER_LEN,
};
use crate::sign::{Chain, Hop, SignError, Signer};
use crate::signature_input::SignedNlri;

/// What a fault breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// The newest signature's last octet flipped.
    BadSignature,
    /// The newest signature's SKI names no key (every octet inverted).
    UnknownSki,
    /// The newest hop signed with a key the RPKI view does not hold as current:
    /// a fresh key of the feed's AS, published (if at all) with an `expires` in the
    /// past, which hopsig's view leaves out (docs/spec/rpki.md).
    ExpiredKey,
    /// The newest hop signed (with the feed's real key) toward another Target AS.
    WrongTargetAs,
    /// pCount 0 in the newest segment (a route server's, from an external peer).
    PcountZero,
    /// pCount 255 in the newest segment, the signature left as it was.
    PcountHuge,
    /// Secure_Path Length one more than its segments.
    SecurePathLength,
    /// One Secure_Path Segment more than the Signature Segments of each block.
    SegmentCount,
    /// Every Signature_Block of an unassigned suite (0x02).
    UnsupportedSuiteOnly,
    /// Confed_Segment flag in the newest segment, from an external peer.
    ConfedFlag,
    /// The newest Secure_Path Segment names another AS than the sender's.
    FirstSegmentNotPeer,
    /// ORIGIN with a Length of 2.
    AttributeLength,
    /// No ORIGIN in an UPDATE that announces a route.
    MissingOrigin,
    /// ORIGIN twice.
    DuplicateAttribute,
    /// MP_REACH_NLRI twice.
    DuplicateMpReach,
    /// ORIGIN value 3 (undefined).
    BadOrigin,
    /// A NEXT_HOP of 3 octets.
    BadNextHop,
    /// ORIGIN flagged optional.
    AttributeFlags,
}

/// What the router should do with a faulty UPDATE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The route is 'Valid' (RFC 8205 §5.1).
    Valid,
    /// The route is 'Not Valid' (RFC 8205 §5.1): kept or dropped by local policy.
    NotValid,
    /// Treated as an unsigned route (RFC 8205 §5.2).
    Unsigned,
    /// RFC 7606 §2 treat-as-withdraw.
    TreatAsWithdraw,
    /// RFC 7606 §2 attribute discard: the route stands without the attribute.
    AttributeDiscard,
    /// RFC 7606 §2 / RFC 4271 §6: NOTIFICATION, session reset.
    SessionReset,
}

impl Verdict {
    /// Whether a router forwards the route in the end (`None`: local policy decides —
    /// RFC 8205 §5.1 leaves Not Valid and unsigned routes to it; hopsig's speaker
    /// withdraws Not Valid and keeps unsigned ones).
    pub fn forwarded(self) -> Option<bool> {
        match self {
            Verdict::Valid | Verdict::AttributeDiscard => Some(true),
            Verdict::TreatAsWithdraw | Verdict::SessionReset => Some(false),
            Verdict::NotValid | Verdict::Unsigned => None,
        }
    }
}

impl FaultKind {
    /// Every fault.
    pub const ALL: [FaultKind; 18] = [
        FaultKind::BadSignature,
        FaultKind::UnknownSki,
        FaultKind::ExpiredKey,
        FaultKind::WrongTargetAs,
        FaultKind::PcountZero,
        FaultKind::PcountHuge,
        FaultKind::SecurePathLength,
        FaultKind::SegmentCount,
        FaultKind::UnsupportedSuiteOnly,
        FaultKind::ConfedFlag,
        FaultKind::FirstSegmentNotPeer,
        FaultKind::AttributeLength,
        FaultKind::MissingOrigin,
        FaultKind::DuplicateAttribute,
        FaultKind::DuplicateMpReach,
        FaultKind::BadOrigin,
        FaultKind::BadNextHop,
        FaultKind::AttributeFlags,
    ];

    /// The name on the command line and in the report (snake case).
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::BadSignature => "bad_signature",
            FaultKind::UnknownSki => "unknown_ski",
            FaultKind::ExpiredKey => "expired_key",
            FaultKind::WrongTargetAs => "wrong_target_as",
            FaultKind::PcountZero => "pcount_zero",
            FaultKind::PcountHuge => "pcount_huge",
            FaultKind::SecurePathLength => "secure_path_length",
            FaultKind::SegmentCount => "segment_count",
            FaultKind::UnsupportedSuiteOnly => "unsupported_suite_only",
            FaultKind::ConfedFlag => "confed_flag",
            FaultKind::FirstSegmentNotPeer => "first_segment_not_peer",
            FaultKind::AttributeLength => "attribute_length",
            FaultKind::MissingOrigin => "missing_origin",
            FaultKind::DuplicateAttribute => "duplicate_attribute",
            FaultKind::DuplicateMpReach => "duplicate_mp_reach",
            FaultKind::BadOrigin => "bad_origin",
            FaultKind::BadNextHop => "bad_next_hop",
            FaultKind::AttributeFlags => "attribute_flags",
        }
    }

    /// The fault named `name`; `bgpsec` and `rfc7606` name the two groups.
    pub fn parse_list(list: &str) -> Result<Vec<FaultKind>, String> {
        let mut out = vec![];
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match name {
                "all" => out.extend(FaultKind::ALL),
                "bgpsec" => out.extend(FaultKind::ALL.into_iter().filter(|k| k.needs_bgpsec())),
                "rfc7606" => out.extend(FaultKind::ALL.into_iter().filter(|k| !k.needs_bgpsec())),
                _ => out.push(
                    FaultKind::ALL
                        .into_iter()
                        .find(|k| k.name() == name)
                        .ok_or_else(|| {
                            let names: Vec<_> = FaultKind::ALL.iter().map(|k| k.name()).collect();
                            format!(
                                "unknown fault {name:?}: one of {}, bgpsec, rfc7606, all",
                                names.join(", ")
                            )
                        })?,
                ),
            }
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// Whether it needs a BGPsec UPDATE (and session).
    pub fn needs_bgpsec(self) -> bool {
        !matches!(
            self,
            FaultKind::AttributeLength
                | FaultKind::MissingOrigin
                | FaultKind::DuplicateAttribute
                | FaultKind::DuplicateMpReach
                | FaultKind::BadOrigin
                | FaultKind::BadNextHop
                | FaultKind::AttributeFlags
        )
    }

    /// The verdict expected of the router, and the rule that says so.
    pub fn expected(self) -> (Verdict, &'static str) {
        use FaultKind as F;
        use Verdict as V;
        match self {
            F::BadSignature => (V::NotValid, "RFC 8205 §5.2 step 4: signature does not verify"),
            F::UnknownSki => (V::NotValid, "RFC 8205 §5.2 step 2: no router key with the SKI"),
            F::ExpiredKey => (
                V::NotValid,
                "RFC 8205 §5.2 step 2: no current router key with the SKI (an expired one is not in the view, docs/spec/rpki.md)",
            ),
            F::WrongTargetAs => (
                V::NotValid,
                "RFC 8205 §5.2 step 3/4: the signature covers another Target AS",
            ),
            F::PcountZero => (
                V::TreatAsWithdraw,
                "RFC 8205 §5.2 check 7: pCount 0 from a peer not expected to send it",
            ),
            F::PcountHuge => (
                V::NotValid,
                "RFC 8205 §4.2, §5.2 step 4: pCount is signed; the signature does not verify",
            ),
            F::SecurePathLength => (
                V::TreatAsWithdraw,
                "RFC 8205 §5.2 check 1: BGPsec_PATH syntax (Secure_Path Length)",
            ),
            F::SegmentCount => (
                V::TreatAsWithdraw,
                "RFC 8205 §5.2 check 3: Signature Segments do not match Secure_Path Segments",
            ),
            F::UnsupportedSuiteOnly => (
                V::Unsigned,
                "RFC 8205 §5.2: no Signature_Block of a supported suite, treated as unsigned",
            ),
            F::ConfedFlag => (
                V::TreatAsWithdraw,
                "RFC 8205 §5.2 check 5: Confed_Segment flag from outside the confederation",
            ),
            F::FirstSegmentNotPeer => (
                V::TreatAsWithdraw,
                "RFC 8205 §5.2 check 2: the newest segment is not the peer's AS",
            ),
            F::AttributeLength => (V::TreatAsWithdraw, "RFC 7606 §7.1: ORIGIN length not 1"),
            F::MissingOrigin => (
                V::TreatAsWithdraw,
                "RFC 7606 §3 d: missing well-known mandatory attribute",
            ),
            F::DuplicateAttribute => (
                V::AttributeDiscard,
                "RFC 7606 §3 g: repeated attribute, all but the first discarded",
            ),
            F::DuplicateMpReach => (
                V::SessionReset,
                "RFC 7606 §3 g: MP_REACH_NLRI more than once, Malformed Attribute List",
            ),
            F::BadOrigin => (V::TreatAsWithdraw, "RFC 7606 §7.1: undefined ORIGIN value"),
            F::BadNextHop => (V::TreatAsWithdraw, "RFC 7606 §7.3: NEXT_HOP length not 4"),
            F::AttributeFlags => (
                V::TreatAsWithdraw,
                "RFC 7606 §3 c: Optional/Transitive flags in conflict with the type",
            ),
        }
    }
}

/// What the faults that re-sign need.
#[derive(Default)]
pub struct Context<'a> {
    /// The router's AS (the right Target AS).
    pub remote_as: u32,
    /// The feed AS's real key (`--keys DIR`), for [`FaultKind::WrongTargetAs`].
    pub own: Option<&'a Signer<'static>>,
    /// A key of the feed's AS that the router's view does not hold as current, for
    /// [`FaultKind::ExpiredKey`].
    pub expired: Option<&'a Signer<'static>>,
}

impl Context<'_> {
    /// Whether `kind` can be made of an UPDATE (`signed`: it has BGPsec_PATH).
    pub fn can(&self, kind: FaultKind, signed: bool) -> bool {
        match kind {
            FaultKind::WrongTargetAs => signed && self.own.is_some(),
            FaultKind::ExpiredKey => signed && self.expired.is_some(),
            k => signed || !k.needs_bgpsec(),
        }
    }
}

/// Why a fault could not be made of an UPDATE.
#[derive(Debug, thiserror::Error)]
pub enum FaultError {
    /// Not an UPDATE that announces a route (with BGPsec_PATH, for a BGPsec fault).
    #[error("{0}: not applicable to this UPDATE")]
    NotApplicable(&'static str),
    /// Re-signing failed.
    #[error("re-signing: {0}")]
    Sign(#[from] SignError),
    /// The result does not encode (over 4096 octets).
    #[error("encoding: {0}")]
    Encode(String),
}

/// Which messages get which fault.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The faults to choose from.
    pub kinds: Vec<FaultKind>,
    /// Fraction of the UPDATEs that get one.
    pub rate: f64,
    /// The seed.
    pub seed: u64,
}

impl Plan {
    /// The fault, if any, of message `index`: chosen with probability `rate` by a hash
    /// of (seed, index), its kind the first of `kinds` from a second hash on that
    /// `possible` allows.
    pub fn pick(&self, index: u64, possible: impl Fn(FaultKind) -> bool) -> Option<FaultKind> {
        if self.kinds.is_empty() {
            return None;
        }
        let h = mix(self.seed ^ mix(index));
        // The top 53 bits as a fraction in [0, 1).
        if (h >> 11) as f64 / (1u64 << 53) as f64 >= self.rate {
            return None;
        }
        let n = self.kinds.len();
        let start = (mix(h) % n as u64) as usize;
        (0..n)
            .map(|i| self.kinds[(start + i) % n])
            .find(|&k| possible(k))
    }
}

/// SplitMix64's finaliser (Steele, Lea, Flood 2014): a fixed, well-mixed hash, so that
/// the choice of a message depends on nothing but the seed and its index.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The message `message` (a whole UPDATE, 4-octet ASes) with fault `kind`.
///
/// # Errors
/// [`FaultError`].
pub fn inject(kind: FaultKind, message: &[u8], ctx: &Context<'_>) -> Result<Vec<u8>, FaultError> {
    let name = kind.name();
    let Ok(Message::Update(u)) = Message::decode(message, AsWidth::Four) else {
        return Err(FaultError::NotApplicable(name));
    };
    if u.announced().next().is_none() {
        return Err(FaultError::NotApplicable(name));
    }
    let path = u.bgpsec_path().cloned();
    if kind.needs_bgpsec() && path.is_none() {
        return Err(FaultError::NotApplicable(name));
    }
    if kind == FaultKind::DuplicateMpReach && u.mp_reach().is_none() {
        return Err(FaultError::NotApplicable(name));
    }
    let path = || path.clone().ok_or(FaultError::NotApplicable(name));
    let origin = u8::from(AttrType::Origin);
    let raw_origin = |flags: u8, value: &[u8]| raw(flags, origin, value);
    match kind {
        FaultKind::BadSignature | FaultKind::UnknownSki => {
            let (segments, blocks) = path()?.into_parts();
            let blocks = blocks
                .into_iter()
                .map(|mut b| {
                    if let Some(s) = b.segments.first_mut() {
                        if kind == FaultKind::UnknownSki {
                            s.ski.iter_mut().for_each(|o| *o = !*o);
                        } else if let Some(last) = s.signature.to_mut().last_mut() {
                            *last ^= 0x01;
                        }
                    }
                    b
                })
                .collect();
            with_path(u, segments, blocks)
        }
        FaultKind::ExpiredKey | FaultKind::WrongTargetAs => {
            let (signer, target) = if kind == FaultKind::ExpiredKey {
                (ctx.expired, ctx.remote_as)
            } else {
                (ctx.own, other_as(ctx.remote_as))
            };
            let signer = signer.ok_or(FaultError::NotApplicable(name))?;
            let p = resign(&u, &path()?, signer, target)?;
            let (segments, blocks) = p.into_parts();
            with_path(u, segments, blocks)
        }
        FaultKind::PcountZero
        | FaultKind::PcountHuge
        | FaultKind::ConfedFlag
        | FaultKind::FirstSegmentNotPeer => {
            let (mut segments, blocks) = path()?.into_parts();
            if let Some(s) = segments.first_mut() {
                match kind {
                    FaultKind::PcountZero => s.pcount = 0,
                    FaultKind::PcountHuge => s.pcount = 255,
                    FaultKind::ConfedFlag => {
                        s.flags = SecurePathFlags(s.flags.0 | SecurePathFlags::CONFED_SEGMENT);
                    }
                    _ => s.asn = other_as(s.asn),
                }
            }
            with_path(u, segments, blocks)
        }
        FaultKind::UnsupportedSuiteOnly => {
            let (segments, blocks) = path()?.into_parts();
            let blocks = blocks
                .into_iter()
                .take(1)
                .map(|b| SignatureBlock { suite: 0x02, ..b })
                .collect();
            with_path(u, segments, blocks)
        }
        FaultKind::SecurePathLength | FaultKind::SegmentCount => {
            let mut value = Writer::new();
            path()?
                .encode(&mut value)
                .map_err(|e| FaultError::Encode(e.to_string()))?;
            let mut v = value.into_bytes();
            let sp_len = usize::from(u16::from_be_bytes([v[0], v[1]]));
            if kind == FaultKind::SecurePathLength {
                v[..2].copy_from_slice(&((sp_len + 1) as u16).to_be_bytes());
            } else {
                // One more segment (the oldest: AS 64512, pCount 1) than signatures.
                let extra = [1u8, 0, 0, 0, 0xfc, 0x00];
                v.splice(sp_len..sp_len, extra);
                v[..2].copy_from_slice(&((sp_len + extra.len()) as u16).to_be_bytes());
            }
            let code = u8::from(AttrType::BgpsecPath);
            let flags = AttrFlags::OPTIONAL | AttrFlags::EXTENDED_LENGTH;
            edit_raw(&u, |attrs| replace(attrs, code, raw(flags, code, &v)))
        }
        FaultKind::AttributeLength => edit_raw(&u, |a| {
            replace(a, origin, raw_origin(AttrFlags::TRANSITIVE, &[0, 0]))
        }),
        FaultKind::BadOrigin => edit_raw(&u, |a| {
            replace(a, origin, raw_origin(AttrFlags::TRANSITIVE, &[3]))
        }),
        FaultKind::AttributeFlags => edit_raw(&u, |a| {
            replace(
                a,
                origin,
                raw_origin(AttrFlags::OPTIONAL | AttrFlags::TRANSITIVE, &[0]),
            )
        }),
        FaultKind::MissingOrigin => edit_raw(&u, |a| a.retain(|(t, _)| *t != origin)),
        FaultKind::DuplicateAttribute | FaultKind::DuplicateMpReach => {
            let t = if kind == FaultKind::DuplicateAttribute {
                origin
            } else {
                u8::from(AttrType::MpReachNlri)
            };
            edit_raw(&u, |a| {
                if let Some(i) = a.iter().position(|(c, _)| *c == t) {
                    let copy = a[i].clone();
                    a.insert(i + 1, copy);
                }
            })
        }
        FaultKind::BadNextHop => edit_raw(&u, |a| {
            let code = u8::from(AttrType::NextHop);
            a.retain(|(t, _)| *t != code);
            let at = a.iter().position(|(t, _)| *t > code).unwrap_or(a.len());
            a.insert(at, (code, raw(AttrFlags::TRANSITIVE, code, &[192, 0, 2])));
        }),
    }
}

/// An AS other than `asn` (for a wrong Target AS or newest segment).
fn other_as(asn: u32) -> u32 {
    if asn == 64_511 {
        64_510
    } else {
        64_511
    }
}

/// The newest hop of `path` re-signed by `signer` toward `target`, pCount kept.
fn resign(
    u: &Update<'_>,
    path: &BgpsecPath<'_>,
    signer: &Signer<'static>,
    target: u32,
) -> Result<BgpsecPath<'static>, FaultError> {
    let mp = u.mp_reach().ok_or(FaultError::NotApplicable("re-sign"))?;
    let prefix = *mp
        .nlri()
        .first()
        .ok_or(FaultError::NotApplicable("re-sign"))?;
    let nlri = SignedNlri {
        safi: mp.safi(),
        prefix,
    };
    let newest = path.secure_path()[0];
    let hop = Hop {
        pcount: newest.pcount,
        ..Hop::to(target)
    };
    let older_segments = path.secure_path()[1..].to_vec();
    let chain = if older_segments.is_empty() {
        Chain::originate(signer, nlri, &hop)?
    } else {
        let blocks = path
            .signature_blocks()
            .iter()
            .map(|b| SignatureBlock {
                suite: b.suite,
                segments: b.segments[1..].to_vec(),
            })
            .collect();
        let older = BgpsecPath::new(older_segments, blocks)
            .map_err(|e| FaultError::Encode(e.to_string()))?;
        let mut c = Chain::received(&older, nlri, signer)?;
        c.forward(signer, &hop)?;
        c
    };
    Ok(chain.path()?)
}

/// `u` with its BGPsec_PATH made of `segments` and `blocks`, through the codec where
/// it encodes them, framed from their octets otherwise (a block of a reserved suite
/// or an uneven count is refused by [`BgpsecPath::new`]).
fn with_path(
    u: Update<'_>,
    segments: Vec<crate::packet::SecurePathSegment>,
    blocks: Vec<SignatureBlock<'_>>,
) -> Result<Vec<u8>, FaultError> {
    let path = BgpsecPath::new(segments, blocks).map_err(|e| FaultError::Encode(e.to_string()))?;
    let code = u8::from(AttrType::BgpsecPath);
    let attributes = u
        .attributes
        .into_iter()
        .map(|a| {
            if a.type_code() == code {
                PathAttribute::new(AttributeValue::BgpsecPath(path.clone()), AsWidth::Four)
            } else {
                Ok(a)
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| FaultError::Encode(e.to_string()))?;
    Message::Update(Update { attributes, ..u })
        .encoding(AsWidth::Four)
        .map_err(|e| FaultError::Encode(e.to_string()))
}

/// One attribute's octets: flags, type, length (two octets with Extended Length),
/// value.
fn raw(flags: u8, type_code: u8, value: &[u8]) -> Vec<u8> {
    let mut w = Writer::new();
    w.u8(flags);
    w.u8(type_code);
    if flags & AttrFlags::EXTENDED_LENGTH != 0 {
        w.u16_be(value.len() as u16);
    } else {
        w.u8(value.len() as u8);
    }
    w.bytes(value);
    w.into_bytes()
}

/// Replaces attribute `code` (its first occurrence) by `bytes`.
fn replace(attrs: &mut [(u8, Vec<u8>)], code: u8, bytes: Vec<u8>) {
    if let Some(a) = attrs.iter_mut().find(|(t, _)| *t == code) {
        a.1 = bytes;
    }
}

/// `u` re-framed after `edit` changed its attributes' octets (each encoded by the
/// codec, with its type code): what the codec will not encode, framed by hand (RFC
/// 4271 §4.3 layout).
fn edit_raw(
    u: &Update<'_>,
    edit: impl FnOnce(&mut Vec<(u8, Vec<u8>)>),
) -> Result<Vec<u8>, FaultError> {
    let enc = |e: hopsig_primitives::codec::EncodeError| FaultError::Encode(e.to_string());
    let mut attrs = u
        .attributes
        .iter()
        .map(|a| {
            let mut w = Writer::new();
            a.encode(&mut w, AsWidth::Four)
                .map(|()| (a.type_code(), w.into_bytes()))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(enc)?;
    edit(&mut attrs);
    let mut withdrawn = Writer::new();
    u.withdrawn.iter().for_each(|p| p.encode(&mut withdrawn));
    let mut body = Writer::new();
    body.u16_prefixed("Withdrawn Routes", &withdrawn.into_bytes())
        .map_err(enc)?;
    let attrs: Vec<u8> = attrs.into_iter().flat_map(|(_, b)| b).collect();
    body.u16_prefixed("Path Attributes", &attrs).map_err(enc)?;
    u.nlri.iter().for_each(|p| p.encode(&mut body));
    let body = body.into_bytes();
    let header = Header::new(HEADER_LEN + body.len(), MessageType::Update)
        .map_err(|e| FaultError::Encode(e.to_string()))?;
    let mut m = Writer::new();
    header.encode(&mut m);
    m.bytes(&body);
    Ok(m.into_bytes())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::packet::{Action, AttributeFault, MessageError, Prefix, UpdateErrorKind};
    use crate::suite::{AlgorithmSuite, ECDSA_P256_SHA256};
    use crate::trace::{bgpsec_update, Keyring, Route};
    use crate::validate::{Malformed, NotValid, Peer, Unsigned, Validation, Validator};
    use proptest::prelude::*;

    const ROUTER: u32 = 64_500;

    /// Keys of AS 65001..=65006 and the router.
    fn setup() -> Keyring {
        let mut ring = Keyring::new(&ECDSA_P256_SHA256);
        let asns: Vec<u32> = (65_001..=65_006).chain([ROUTER]).collect();
        ring.generate(&asns, 1).unwrap();
        ring
    }

    fn signer(asn: u32) -> Signer<'static> {
        Signer::new(asn)
            .with_key(&ECDSA_P256_SHA256, ECDSA_P256_SHA256.generate().unwrap())
            .unwrap()
    }

    /// What the router's validator makes of `bytes` from the peer of AS `peer_as`:
    /// hopsig's codec and validator (RFC 7606 actions, RFC 8205 §5.2).
    fn verdict(bytes: &[u8], ring: &Keyring, peer_as: u32) -> Verdict {
        let keys = ring.router_keys();
        let v = Validator::new(&keys);
        match v.message(bytes, &Peer::external(ROUTER, peer_as)) {
            Validation::Valid { .. } => Verdict::Valid,
            Validation::NotValid(NotValid::Signatures(_)) => Verdict::NotValid,
            Validation::NotValid(NotValid::Unsigned(_)) => Verdict::Unsigned,
            Validation::NotValid(NotValid::Malformed(m)) => match m.action() {
                Action::TreatAsWithdraw => Verdict::TreatAsWithdraw,
                Action::SessionReset => Verdict::SessionReset,
                Action::AttributeDiscard => Verdict::AttributeDiscard,
            },
        }
    }

    /// A signed route of `hops` ASes toward the router, and its fault `kind`.
    fn faulty(kind: FaultKind, hops: usize, ring: &Keyring) -> (Vec<u8>, u32) {
        let prefix = Prefix::new("10.1.0.0".parse().unwrap(), 16).unwrap();
        let route = Route::synthetic(hops, prefix, ROUTER);
        let good = bgpsec_update(&route, ring).unwrap();
        let newest = route.newest_as();
        assert_eq!(verdict(&good, ring, newest), Verdict::Valid);
        let own = ring_signer(ring, newest);
        let expired = signer(newest);
        let ctx = Context {
            remote_as: ROUTER,
            own: Some(&own),
            expired: Some(&expired),
        };
        (inject(kind, &good, &ctx).unwrap(), newest)
    }

    /// AS `asn`'s signer of the ring (a copy: the ring lends its signers).
    fn ring_signer(ring: &Keyring, asn: u32) -> Signer<'static> {
        let files = ring.secret_key_files().unwrap();
        let (_, pem) = files.iter().find(|(a, _)| *a == asn).unwrap();
        let key = ECDSA_P256_SHA256
            .signing_key_from_file(pem.as_bytes())
            .unwrap();
        Signer::new(asn).with_key(&ECDSA_P256_SHA256, key).unwrap()
    }

    /// The codec's error of a malformed message.
    fn decode_error(bytes: &[u8]) -> crate::packet::UpdateError {
        match Message::decode(bytes, AsWidth::Four) {
            Err(MessageError::Update(e)) => e,
            other => panic!("expected an UPDATE error, got {other:?}"),
        }
    }

    #[test]
    fn every_fault_gets_its_expected_verdict_from_hopsigs_validator() {
        let ring = setup();
        for kind in FaultKind::ALL {
            for hops in [1, 3] {
                let (bytes, newest) = faulty(kind, hops, &ring);
                let got = verdict(&bytes, &ring, newest);
                let (want, rule) = kind.expected();
                // Attribute discard: the attribute goes, and the route is Valid.
                let want = if want == Verdict::AttributeDiscard {
                    Verdict::Valid
                } else {
                    want
                };
                assert_eq!(got, want, "{} over {hops} hops ({rule})", kind.name());
            }
        }
    }

    #[test]
    fn each_fault_is_the_malformation_it_names() {
        let ring = setup();
        let keys = ring.router_keys();
        let v = Validator::new(&keys);
        let origin = u8::from(AttrType::Origin);
        for kind in FaultKind::ALL {
            let (bytes, newest) = faulty(kind, 3, &ring);
            let peer = Peer::external(ROUTER, newest);
            let name = kind.name();
            match kind {
                FaultKind::SecurePathLength | FaultKind::SegmentCount => {
                    let e = decode_error(&bytes);
                    assert_eq!(e.action, Action::TreatAsWithdraw, "{name}");
                    assert!(
                        matches!(&e.kind, UpdateErrorKind::Attribute(a)
                            if a.type_code == AttrType::BgpsecPath
                            && matches!(a.fault, AttributeFault::BgpsecPath(_))),
                        "{name}: {e:?}"
                    );
                }
                FaultKind::AttributeLength | FaultKind::BadOrigin | FaultKind::AttributeFlags => {
                    let e = decode_error(&bytes);
                    assert_eq!(e.action, Action::TreatAsWithdraw, "{name}");
                    let UpdateErrorKind::Attribute(a) = &e.kind else {
                        panic!("{name}: {e:?}")
                    };
                    assert_eq!(a.type_code, AttrType::Origin, "{name}");
                    let flags = matches!(a.fault, AttributeFault::Flags(_));
                    assert_eq!(flags, kind == FaultKind::AttributeFlags, "{name}: {a:?}");
                }
                FaultKind::BadNextHop => {
                    let e = decode_error(&bytes);
                    assert!(
                        matches!(&e.kind, UpdateErrorKind::Attribute(a) if a.type_code == AttrType::NextHop),
                        "{e:?}"
                    );
                }
                FaultKind::MissingOrigin => {
                    let e = decode_error(&bytes);
                    assert_eq!(e.kind, UpdateErrorKind::Missing(AttrType::Origin));
                }
                FaultKind::DuplicateAttribute => {
                    let e = decode_error(&bytes);
                    assert_eq!(e.kind, UpdateErrorKind::DuplicateAttribute(origin));
                    assert_eq!(e.action, Action::AttributeDiscard);
                }
                FaultKind::DuplicateMpReach => {
                    let e = decode_error(&bytes);
                    let mp = u8::from(AttrType::MpReachNlri);
                    assert_eq!(e.kind, UpdateErrorKind::DuplicateMpAttribute(mp));
                    assert_eq!(e.action, Action::SessionReset);
                }
                FaultKind::PcountZero => assert_eq!(
                    v.message(&bytes, &peer),
                    Validation::NotValid(NotValid::Malformed(Malformed::PcountZero))
                ),
                FaultKind::ConfedFlag => assert_eq!(
                    v.message(&bytes, &peer),
                    Validation::NotValid(NotValid::Malformed(
                        Malformed::ConfedSegmentFromOutside { segment: 3 }
                    ))
                ),
                FaultKind::FirstSegmentNotPeer => assert!(matches!(
                    v.message(&bytes, &peer),
                    Validation::NotValid(NotValid::Malformed(Malformed::PeerAs { peer, .. }))
                        if peer == newest
                )),
                FaultKind::UnsupportedSuiteOnly => assert_eq!(
                    v.message(&bytes, &peer),
                    Validation::NotValid(NotValid::Unsigned(Unsigned::NoSupportedSuite(vec![2])))
                ),
                FaultKind::BadSignature
                | FaultKind::UnknownSki
                | FaultKind::ExpiredKey
                | FaultKind::WrongTargetAs
                | FaultKind::PcountHuge => {
                    // Well formed: it decodes, and only its newest signature fails.
                    let Ok(Message::Update(u)) = Message::decode(&bytes, AsWidth::Four) else {
                        panic!("{name} does not decode")
                    };
                    assert!(v.screen(&u, &peer).is_ok(), "{name}");
                    let Validation::NotValid(NotValid::Signatures(f)) = v.update(&u, &peer) else {
                        panic!("{name}: not a signature failure")
                    };
                    assert_eq!(f.len(), 1, "{name}");
                }
            }
        }
    }

    #[test]
    fn wrong_target_is_a_good_signature_toward_another_as() {
        // The re-signed newest hop validates for the AS it targets.
        let ring = setup();
        let (bytes, newest) = faulty(FaultKind::WrongTargetAs, 2, &ring);
        let keys = ring.router_keys();
        let v = Validator::new(&keys);
        let other = Peer::external(other_as(ROUTER), newest);
        assert!(v.message(&bytes, &other).is_valid());
    }

    #[test]
    fn names_and_groups_parse() {
        assert_eq!(FaultKind::parse_list("all").unwrap(), FaultKind::ALL);
        assert_eq!(
            FaultKind::parse_list("bad_signature, bgpsec")
                .unwrap()
                .len(),
            11
        );
        assert_eq!(FaultKind::parse_list("rfc7606").unwrap().len(), 7);
        assert!(FaultKind::parse_list("nonsense").is_err());
        for k in FaultKind::ALL {
            assert_eq!(FaultKind::parse_list(k.name()).unwrap(), [k]);
        }
    }

    #[test]
    fn not_applicable_to_unsigned_or_withdrawals() {
        let prefix = Prefix::new("10.1.0.0".parse().unwrap(), 16).unwrap();
        let withdraw = Message::Update(Update {
            withdrawn: vec![prefix],
            ..Update::default()
        })
        .encoding(AsWidth::Four)
        .unwrap();
        let ctx = Context::default();
        for kind in FaultKind::ALL {
            assert!(inject(kind, &withdraw, &ctx).is_err(), "{}", kind.name());
            assert_eq!(ctx.can(kind, false), !kind.needs_bgpsec());
        }
        assert!(!ctx.can(FaultKind::WrongTargetAs, true));
        assert!(!ctx.can(FaultKind::ExpiredKey, true));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn pick_is_a_function_of_seed_and_index(seed: u64, index: u64, rate in 0.0f64..1.0) {
            let plan = Plan { kinds: FaultKind::ALL.to_vec(), rate, seed };
            prop_assert_eq!(plan.pick(index, |_| true), plan.pick(index, |_| true));
            let none = Plan { rate: 0.0, ..plan.clone() };
            prop_assert_eq!(none.pick(index, |_| true), None);
            let all = Plan { rate: 1.0, ..plan.clone() };
            prop_assert!(all.pick(index, |_| true).is_some());
            prop_assert_eq!(all.pick(index, |_| false), None);
            let only = all.pick(index, |k| k == FaultKind::BadOrigin);
            prop_assert_eq!(only, Some(FaultKind::BadOrigin));
        }

        #[test]
        fn rate_is_the_fraction_picked(seed: u64) {
            let plan = Plan { kinds: vec![FaultKind::BadOrigin], rate: 0.25, seed };
            let n = (0..4000u64).filter(|&i| plan.pick(i, |_| true).is_some()).count();
            // 4000 draws at 0.25: 1000 ± 5 standard deviations (27.4).
            prop_assert!((863..=1137).contains(&n), "{}", n);
        }
    }
}
