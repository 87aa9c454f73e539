//! Validation of a received BGPsec UPDATE (RFC 8205 §5.2), every step in the RFC's
//! order, with the step that failed as a type.
//!
//! 1. The message is properly formed (§5.2 first paragraph): the codec's RFC 4271 §6.3 /
//!    RFC 7606 checks, with checks 1 (BGPsec_PATH syntax), 3 (one Signature Segment per
//!    Secure_Path Segment in every block, of any suite) and 4 (no AS_PATH) among them,
//!    and the RFC 8205 §4.1 rule of one prefix in MP_REACH_NLRI. An error whose RFC 7606
//!    action is "attribute discard" drops the attribute and validation goes on.
//! 2. Checks 2 (the newest segment's AS is the peer's), 5 and 6 (Confed_Segment flags
//!    and the confederation), 7 (pCount 0 from a peer not expected to send it), 8 (AS
//!    loop on the §4.4 AS_PATH equivalent). A failure of any check 1–8 is "an error in
//!    the BGPsec_PATH attribute": [`Malformed`], treat-as-withdraw.
//! 3. Blocks of suites the validator does not support are not considered; with none
//!    left, the UPDATE is treated as unsigned ([`Unsigned`]).
//! 4. Each supported block, in wire order, is validated by its suite (steps 1–4, newest
//!    segment first); the first block marked 'Valid' ends validation with
//!    [`Validation::Valid`] ("if the first Signature_Block is marked 'Valid' OR the
//!    second …"); if none is, [`NotValid::Signatures`] says why each failed.
//!
//! [`Validator::screen`] is steps 1–3 alone: no cryptography, no router key — what a
//! speaker that verifies later than it forwards checks first.

use crate::cache::SignatureCache;
use crate::packet::{
    Action, AsWidth, AttrType, BgpsecNlriFault, BgpsecPath, Message, MessageError, MessageType,
    SignatureBlock, Update,
};
use crate::prefetch::{Checks, Verdicts};
use crate::router_key::KeyLookup;
use crate::signature_input::{SignatureInput, SignedNlri};
use crate::suite::{default_suites, AlgorithmSuite, BlockFault};

/// What the validating router knows of the BGP session the UPDATE came over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Peer {
    /// The AS number this router announced in its OPEN on the session: AS(K+1), the
    /// Target AS of the newest signature (§5.2 step 3), and the local AS of the loop
    /// check (check 8).
    pub local_as: u32,
    /// The AS number the peer announced in its OPEN, for check 2 — `None` where the
    /// check does not apply (it is "performed only at an ingress BGPsec router").
    pub peer_as: Option<u32>,
    /// Whether the peer is a member of this router's AS confederation (checks 5, 6).
    pub in_confederation: bool,
    /// Whether the peer is expected to set pCount 0 in its segment (check 7; a route
    /// server, RFC 8205 §7.2).
    pub may_send_pcount_zero: bool,
}

impl Peer {
    /// An external peer of AS `peer_as`, outside the confederation, not a route
    /// server, seen by the router of AS `local_as`.
    pub fn external(local_as: u32, peer_as: u32) -> Peer {
        Peer {
            local_as,
            peer_as: Some(peer_as),
            in_confederation: false,
            may_send_pcount_zero: false,
        }
    }

    /// As [`Peer::external`], with check 2 skipped (the peer's AS unknown: an MRT
    /// record, a test vector).
    pub fn any_external(local_as: u32) -> Peer {
        Peer {
            peer_as: None,
            ..Peer::external(local_as, 0)
        }
    }
}

/// The outcome of validating an UPDATE (RFC 8205 §5.1: 'Valid' or 'Not Valid').
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Validation {
    /// A Signature_Block of a supported suite is 'Valid'.
    Valid {
        /// Its suite.
        suite: u8,
        /// The blocks validated before it and marked 'Not Valid'.
        failed: Vec<BlockFailure>,
    },
    /// Not 'Valid', and why.
    NotValid(NotValid),
}

impl Validation {
    /// Whether the UPDATE is 'Valid'.
    pub fn is_valid(&self) -> bool {
        matches!(self, Validation::Valid { .. })
    }
}

/// Why an UPDATE is not 'Valid'.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotValid {
    /// The UPDATE is malformed or breaks a check of §5.2: [`Malformed::action`] says
    /// what to do with its routes; no signature was looked at.
    #[error("malformed: {0}")]
    Malformed(Malformed),
    /// Nothing to validate: treat the route as unsigned (§5.2).
    #[error("unsigned: {0}")]
    Unsigned(Unsigned),
    /// Every Signature_Block of a supported suite is 'Not Valid' (§5.2 steps 2, 4).
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Signatures(Vec<BlockFailure>),
}

impl NotValid {
    /// What to do with the UPDATE's routes besides not deeming them 'Valid': the RFC
    /// 7606 action for [`NotValid::Malformed`], `None` (keep the route, as unsigned or
    /// as 'Not Valid', per local policy, §5.1) otherwise.
    pub fn action(&self) -> Option<Action> {
        match self {
            NotValid::Malformed(m) => Some(m.action()),
            NotValid::Unsigned(_) | NotValid::Signatures(_) => None,
        }
    }
}

/// A Signature_Block marked 'Not Valid' and the step that marked it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("suite {suite}: {fault}")]
pub struct BlockFailure {
    /// The block's Algorithm Suite Identifier.
    pub suite: u8,
    /// What failed.
    pub fault: BlockFault,
}

/// An UPDATE the validator does not get to its signatures (§5.2, first part).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Malformed {
    /// The codec's verdict (RFC 4271 §6, RFC 7606; RFC 8205 §5.2 checks 1, 3, 4 and the
    /// §4.1 single-prefix rule), with its action.
    #[error("{0}")]
    Message(MessageError),
    /// AS_PATH beside BGPsec_PATH (check 4), in an UPDATE built rather than decoded.
    #[error("AS_PATH and BGPsec_PATH in one UPDATE (RFC 8205 §5.2 check 4)")]
    AsPathWithBgpsecPath,
    /// Not one prefix in MP_REACH_NLRI (§4.1), in an UPDATE built rather than decoded.
    #[error("{0} (RFC 8205 §4.1)")]
    Nlri(BgpsecNlriFault),
    /// Check 2: the newest Secure_Path Segment is not the peer's AS.
    #[error("the newest Secure_Path Segment is AS {newest}, the peer is AS {peer} (RFC 8205 §5.2 check 2)")]
    PeerAs {
        /// The AS of the newest segment.
        newest: u32,
        /// The peer's AS from its OPEN.
        peer: u32,
    },
    /// Check 5: a Confed_Segment flag from a peer outside the confederation.
    #[error("Confed_Segment flag in segment {segment} from a peer outside the confederation (RFC 8205 §5.2 check 5)")]
    ConfedSegmentFromOutside {
        /// The segment (1 = origin).
        segment: usize,
    },
    /// Check 6: a confederation peer's segment without the Confed_Segment flag.
    #[error(
        "the confederation peer's segment lacks the Confed_Segment flag (RFC 8205 §5.2 check 6)"
    )]
    NoConfedSegmentFromMember,
    /// Check 7: pCount 0 in the newest segment from a peer not expected to set it.
    #[error(
        "pCount 0 in the newest segment from a peer not expected to set it (RFC 8205 §5.2 check 7)"
    )]
    PcountZero,
    /// Check 8: the local AS is on the path.
    #[error("the local AS is in segment {segment}: an AS loop (RFC 8205 §5.2 check 8)")]
    AsLoop {
        /// The segment (1 = origin) nearest the origin that holds it.
        segment: usize,
    },
}

impl Malformed {
    /// The codec's action for a malformed message; treat-as-withdraw for an error in
    /// the BGPsec_PATH attribute (§5.2: "MUST handle … by using the
    /// 'treat-as-withdraw' approach").
    pub fn action(&self) -> Action {
        match self {
            Malformed::Message(e) => e.action(),
            _ => Action::TreatAsWithdraw,
        }
    }
}

/// An UPDATE with no signature to validate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unsigned {
    /// A message that is not an UPDATE.
    #[error("a {0:?} message, not an UPDATE")]
    NotAnUpdate(MessageType),
    /// An UPDATE without BGPsec_PATH: a non-BGPsec UPDATE, or one announcing nothing.
    #[error("no BGPsec_PATH")]
    NoBgpsecPath,
    /// Only Signature_Blocks of suites the validator does not support (these): §5.2,
    /// "treat the UPDATE message as if it were received as an unsigned BGP UPDATE".
    #[error("no Signature_Block of a supported suite (suites {0:?})")]
    NoSupportedSuite(Vec<u8>),
}

/// A BGPsec validator: the suites it supports and the router keys it trusts, and
/// optionally a cache of verified signature checks ([`Validator::with_cache`]).
pub struct Validator<'v> {
    suites: &'v [&'v dyn AlgorithmSuite],
    keys: &'v dyn KeyLookup,
    cache: Option<&'v SignatureCache>,
}

impl<'v> Validator<'v> {
    /// A validator of the suites of [`crate::SUITES`] outside RFC 8608 §2.1's experimentation
    /// range ([`default_suites`]: suite 1), with the keys of `keys`. Blocks of the
    /// experimental suites are then those of unsupported suites; an experiment
    /// validates them with [`Validator::with_suites`]`(SUITES, keys)`.
    pub fn new(keys: &'v dyn KeyLookup) -> Validator<'v> {
        Validator::with_suites(default_suites(), keys)
    }

    /// A validator supporting exactly `suites`.
    pub fn with_suites(
        suites: &'v [&'v dyn AlgorithmSuite],
        keys: &'v dyn KeyLookup,
    ) -> Validator<'v> {
        Validator {
            suites,
            keys,
            cache: None,
        }
    }

    /// This validator, with `cache` asked before each signature check (RFC 8205 §5.2
    /// steps 3–4) and told of each that verified. Step 2 still looks every key up in
    /// this validator's keys, so a key withdrawn from them no longer validates,
    /// whatever the cache holds; verdicts are those without a cache
    /// ([`crate::cache`]).
    pub fn with_cache(self, cache: &'v SignatureCache) -> Validator<'v> {
        Validator {
            cache: Some(cache),
            ..self
        }
    }

    /// Validates a whole BGP message (header included) received from `peer`. BGPsec
    /// speakers use 4-octet AS numbers (RFC 8205 §2.2).
    pub fn message(&self, bytes: &[u8], peer: &Peer) -> Validation {
        match update_in(&Message::decode(bytes, AsWidth::Four)) {
            Ok(u) => self.update(u, peer),
            Err(v) => v,
        }
    }

    /// Validates a decoded UPDATE received from `peer`.
    pub fn update(&self, update: &Update<'_>, peer: &Peer) -> Validation {
        match self.prepared(update, peer) {
            Ok(p) => self.walk(&p, None),
            Err(n) => Validation::NotValid(n),
        }
    }

    /// Validates many decoded UPDATEs, each received from its peer: one verdict per
    /// UPDATE, in order, each the one [`Validator::update`] gives it — and the
    /// signature cache asked and told as by [`Validator::update`] of each in turn —,
    /// with the signature checks of all of them verified together, in batches of the
    /// suites' batch backends ([`crate::prefetch`]: collect, verify, walk). What a
    /// multi-buffer verifier needs: one path's 3–5 signatures do not fill its lanes.
    pub fn updates(&self, updates: &[(&Update<'_>, &Peer)]) -> Vec<Validation> {
        let prepared: Vec<Result<Prepared<'_, '_>, NotValid>> = updates
            .iter()
            .map(|(u, peer)| self.prepared(u, peer))
            .collect();
        let mut checks = Checks::new();
        for p in prepared.iter().flatten() {
            // The first block only: the walk stops at the first 'Valid' one, and a
            // later block is verified in the walk when it gets there.
            if let Some(b) = p.blocks.first() {
                b.suite.collect_checks(
                    b.block,
                    p.path.secure_path(),
                    &b.input,
                    self.keys,
                    self.cache,
                    &mut checks,
                );
            }
        }
        let verdicts = checks.verify(self.suites);
        prepared
            .iter()
            .map(|p| match p {
                Ok(p) => self.walk(p, Some(&verdicts)),
                Err(n) => Validation::NotValid(n.clone()),
            })
            .collect()
    }

    /// Validates many whole BGP messages (headers included), each received from its
    /// peer: [`Validator::message`] of each, with the UPDATEs' signature checks
    /// verified together as [`Validator::updates`] does.
    pub fn messages(&self, messages: &[(&[u8], &Peer)]) -> Vec<Validation> {
        let decoded: Vec<_> = messages
            .iter()
            .map(|(bytes, _)| Message::decode(bytes, AsWidth::Four))
            .collect();
        let mut updates = Vec::new();
        let mut verdicts: Vec<Option<Validation>> = Vec::with_capacity(messages.len());
        for (d, (_, peer)) in decoded.iter().zip(messages) {
            match update_in(d) {
                Ok(u) => {
                    updates.push((u, *peer));
                    verdicts.push(None);
                }
                Err(v) => verdicts.push(Some(v)),
            }
        }
        // One verdict per UPDATE handed over, so `next` never runs out.
        let mut validated = self.updates(&updates).into_iter();
        verdicts
            .into_iter()
            .map(|v| {
                v.or_else(|| validated.next())
                    .unwrap_or(Validation::NotValid(NotValid::Signatures(Vec::new())))
            })
            .collect()
    }

    /// The name of the batch backend that verifies suite `suite`'s signatures, if
    /// this validator supports it ([`AlgorithmSuite::verifier`]): `avx512ifma` or
    /// `cpu` for suite 1.
    pub fn verifier(&self, suite: u8) -> Option<&'static str> {
        self.suites
            .iter()
            .find(|s| s.id() == suite)
            .map(|s| s.verifier())
    }

    /// The part of §5.2 that needs no cryptography, for a decoded `update` received
    /// from `peer`: no AS_PATH beside BGPsec_PATH (check 4) and one prefix (§4.1) —
    /// the codec's checks, for an UPDATE built rather than decoded —, checks 2 and
    /// 5–8, and whether a Signature_Block is of a supported suite. `Ok` when only the
    /// signatures are left to verify; otherwise the verdict [`Validator::update`]
    /// gives: [`NotValid::Malformed`] (an error in the BGPsec_PATH attribute:
    /// treat-as-withdraw) or [`NotValid::Unsigned`] (no BGPsec_PATH, or no block of a
    /// supported suite: treat the UPDATE as unsigned, its AS_PATH reconstructed,
    /// §4.4). It needs no router key, so a speaker that verifies later (RFC 8205 §5,
    /// lazily) makes it before it uses or forwards the route.
    ///
    /// # Errors
    /// The verdict, as above.
    pub fn screen(&self, update: &Update<'_>, peer: &Peer) -> Result<(), NotValid> {
        self.screened(update, peer).map(|_| ())
    }

    fn screened<'u, 'a>(
        &self,
        update: &'u Update<'a>,
        peer: &Peer,
    ) -> Result<(&'u BgpsecPath<'a>, SignedNlri), NotValid> {
        let path = update
            .bgpsec_path()
            .ok_or(NotValid::Unsigned(Unsigned::NoBgpsecPath))?;
        if update.attribute(AttrType::AsPath).is_some() {
            return Err(NotValid::Malformed(Malformed::AsPathWithBgpsecPath));
        }
        let nlri = SignedNlri::of_update(update)
            .map_err(|fault| NotValid::Malformed(Malformed::Nlri(fault)))?;
        self.screen_path(path, peer)?;
        Ok((path, nlri))
    }

    /// Checks 2 and 5–8, then whether a block is of a supported suite.
    fn screen_path(&self, path: &BgpsecPath<'_>, peer: &Peer) -> Result<(), NotValid> {
        checks(path, peer).map_err(NotValid::Malformed)?;
        let supported = |suite: u8| self.suites.iter().any(|s| s.id() == suite);
        if !path.signature_blocks().iter().any(|b| supported(b.suite)) {
            let suites = path.signature_blocks().iter().map(|b| b.suite).collect();
            return Err(NotValid::Unsigned(Unsigned::NoSupportedSuite(suites)));
        }
        Ok(())
    }

    /// Validates the BGPsec_PATH `path` of a well-formed UPDATE announcing `nlri`,
    /// received from `peer`: checks 2 and 5–8, then the blocks.
    pub fn path(&self, path: &BgpsecPath<'_>, nlri: &SignedNlri, peer: &Peer) -> Validation {
        if let Err(n) = self.screen_path(path, peer) {
            return Validation::NotValid(n);
        }
        self.walk(&self.blocks(path, nlri, peer), None)
    }

    /// A screened UPDATE's path and its blocks to validate, or its verdict.
    fn prepared<'p, 'a>(
        &'p self,
        update: &'p Update<'a>,
        peer: &Peer,
    ) -> Result<Prepared<'p, 'a>, NotValid> {
        let (path, nlri) = self.screened(update, peer)?;
        Ok(self.blocks(path, &nlri, peer))
    }

    /// The blocks of supported suites of a screened path, in wire order, each with
    /// its suite and every hop's signed octets (§4.2); a block whose octets cannot be
    /// built is not validated.
    fn blocks<'p, 'a>(
        &'p self,
        path: &'p BgpsecPath<'a>,
        nlri: &SignedNlri,
        peer: &Peer,
    ) -> Prepared<'p, 'a> {
        let blocks = path
            .signature_blocks()
            .iter()
            .filter_map(|block| {
                let suite = *self.suites.iter().find(|s| s.id() == block.suite)?;
                let input = SignatureInput::of_path(
                    path,
                    block.suite,
                    nlri,
                    suite.coverage(),
                    peer.local_as,
                )?;
                Some(PreparedBlock {
                    block,
                    suite,
                    input,
                })
            })
            .collect();
        Prepared { path, blocks }
    }

    /// §5.2 steps 1–4 for each prepared block, in wire order, up to the first
    /// 'Valid' one; a signature check in `verdicts` answered from there.
    fn walk(&self, prepared: &Prepared<'_, '_>, verdicts: Option<&Verdicts<'_>>) -> Validation {
        let mut failed = Vec::new();
        for PreparedBlock {
            block,
            suite,
            input,
        } in &prepared.blocks
        {
            let secure_path = prepared.path.secure_path();
            let verdict = match (verdicts, self.cache) {
                (Some(v), cache) => {
                    suite.validate_batched(block, secure_path, input, self.keys, cache, v)
                }
                (None, Some(cache)) => {
                    suite.validate_cached(block, secure_path, input, self.keys, cache)
                }
                (None, None) => suite.validate(block, secure_path, input, self.keys),
            };
            match verdict {
                Ok(()) => {
                    return Validation::Valid {
                        suite: block.suite,
                        failed,
                    }
                }
                Err(fault) => failed.push(BlockFailure {
                    suite: block.suite,
                    fault,
                }),
            }
        }
        Validation::NotValid(NotValid::Signatures(failed))
    }
}

/// A screened UPDATE, ready for its signatures: its path and the blocks to validate
/// (borrowed for `'p` from the UPDATE and the validator).
struct Prepared<'p, 'a> {
    path: &'p BgpsecPath<'a>,
    blocks: Vec<PreparedBlock<'p, 'a>>,
}

/// A Signature_Block of a supported suite, with its suite and signed octets.
struct PreparedBlock<'p, 'a> {
    block: &'p SignatureBlock<'a>,
    suite: &'p dyn AlgorithmSuite,
    input: SignatureInput,
}

/// The UPDATE a decoded BGP message is, or what it is to the validator instead: an
/// UPDATE whose error RFC 7606 handles by attribute discard is validated as salvaged;
/// another malformed message is [`Malformed::Message`], and a message that is not an
/// UPDATE [`Unsigned::NotAnUpdate`].
///
/// # Errors
/// The verdict of a message that is no UPDATE to validate, as above.
pub(crate) fn update_in<'m>(
    decoded: &'m Result<Message<'_>, MessageError>,
) -> Result<&'m Update<'m>, Validation> {
    match decoded {
        Ok(Message::Update(u)) => Ok(u),
        Ok(other) => Err(not_valid(Unsigned::NotAnUpdate(other.message_type()))),
        Err(MessageError::Update(e)) if e.action() == Action::AttributeDiscard => {
            match e.salvage() {
                Some(u) => Ok(u),
                None => Err(malformed(Malformed::Message(MessageError::Update(
                    e.clone(),
                )))),
            }
        }
        Err(e) => Err(malformed(Malformed::Message(e.clone()))),
    }
}

/// RFC 8205 §5.2 checks 2, 5, 6, 7 and 8, in that order (1, 3 and 4 are the codec's).
fn checks(path: &BgpsecPath<'_>, peer: &Peer) -> Result<(), Malformed> {
    let segments = path.secure_path();
    let k = segments.len();
    let newest = segments[0];
    if let Some(peer_as) = peer.peer_as {
        if newest.asn != peer_as {
            return Err(Malformed::PeerAs {
                newest: newest.asn,
                peer: peer_as,
            });
        }
    }
    if !peer.in_confederation {
        if let Some(i) = segments.iter().position(|s| s.flags.confed_segment()) {
            return Err(Malformed::ConfedSegmentFromOutside { segment: k - i });
        }
    } else if !newest.flags.confed_segment() {
        return Err(Malformed::NoConfedSegmentFromMember);
    }
    if newest.pcount == 0 && !peer.may_send_pcount_zero {
        return Err(Malformed::PcountZero);
    }
    // The §4.4 AS_PATH holds exactly the ASes of the segments with pCount > 0
    // (as_path_equivalent::as_path; the "MAY" of also checking pCount-0 segments is
    // not taken).
    if let Some(i) = segments
        .iter()
        .rposition(|s| s.pcount > 0 && s.asn == peer.local_as)
    {
        return Err(Malformed::AsLoop { segment: k - i });
    }
    Ok(())
}

fn malformed(m: Malformed) -> Validation {
    Validation::NotValid(NotValid::Malformed(m))
}

fn not_valid(u: Unsigned) -> Validation {
    Validation::NotValid(NotValid::Unsigned(u))
}
