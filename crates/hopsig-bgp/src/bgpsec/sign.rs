//! A BGPsec speaker's outgoing UPDATE (RFC 8205 §4): the origin's (§4.2 with no
//! received path) or a transit router's, which prepends its Secure_Path Segment and
//! adds its Signature Segment to each Signature_Block before sending the route to an
//! external peer.
//!
//! * [`Signer`] is a router's AS and its keys, one per algorithm suite.
//! * [`Hop`] is what differs per peer: the target AS, pCount, the Confed_Segment flag.
//! * [`Signer::originate`] and [`Signer::forward`] build whole UPDATE messages;
//!   [`Chain`] signs one announcement hop after hop, as every AS on a path would in turn
//!   (origin first), growing each block's [`SignatureInput`] by one hop per step.
//!
//! Signing never looks at the signatures already there: a router signs before it
//! verifies, or without verifying (RFC 8205 §4.2, §8; lazy verification, BGR §1).

use crate::packet::{
    AsWidth, AttrType, AttributeValue, BgpsecNlriFault, BgpsecPath, BgpsecPathError, EncodeError,
    Message, MpReachNlri, NextHop, PathAttribute, SecurePathFlags, SecurePathSegment,
    SignatureBlock, Update, HEADER_LEN, MAX_MESSAGE_LEN,
};
use crate::signature_input::{SignatureInput, SignedNlri};
use crate::suite::{AlgorithmSuite, SigningKey};
use hopsig_primitives::codec::{self, Writer};

/// What a router puts in the Secure_Path Segment it adds for one peer (RFC 8205 §4.2,
/// §4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Hop {
    /// The AS the UPDATE is sent to: the AS number the peer announced in its OPEN.
    pub target_as: u32,
    /// Repetitions of the signer's AS (prepending): 1 normally, 0 for a transparent
    /// route server or a confederation's entry segment (§4.2, §4.3).
    pub pcount: u8,
    /// The Confed_Segment flag: the peer is in the signer's AS confederation (§4.3).
    pub confed_segment: bool,
}

impl Hop {
    /// An UPDATE to `target_as`, pCount 1, no Confed_Segment flag.
    pub fn to(target_as: u32) -> Hop {
        Hop {
            target_as,
            pcount: 1,
            confed_segment: false,
        }
    }
}

/// A BGPsec router: its AS number and one signing key per algorithm suite it signs
/// with (RFC 8205 §4.1: a private key "suitable for generating signatures for this
/// algorithm suite", whose certificate covers the AS).
pub struct Signer<'s> {
    asn: u32,
    keys: Vec<(&'s dyn AlgorithmSuite, SigningKey)>,
}

impl std::fmt::Debug for Signer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signer")
            .field("asn", &self.asn)
            .field(
                "keys",
                &self.keys.iter().map(|(_, k)| k).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl<'s> Signer<'s> {
    /// A router of AS `asn`, with no key yet.
    pub fn new(asn: u32) -> Signer<'s> {
        Signer { asn, keys: vec![] }
    }

    /// Adds the key `key` of suite `suite`.
    ///
    /// # Errors
    /// [`SignError::KeyForOtherSuite`] if `key` is not `suite`'s,
    /// [`SignError::DuplicateSuite`] if the router already has a key of that suite.
    pub fn with_key(
        mut self,
        suite: &'s dyn AlgorithmSuite,
        key: SigningKey,
    ) -> Result<Signer<'s>, SignError> {
        if key.suite() != suite.id() {
            return Err(SignError::KeyForOtherSuite {
                key: key.suite(),
                suite: suite.id(),
            });
        }
        if self.key(suite.id()).is_some() {
            return Err(SignError::DuplicateSuite(suite.id()));
        }
        self.keys.push((suite, key));
        Ok(self)
    }

    /// The router's AS number.
    pub fn asn(&self) -> u32 {
        self.asn
    }

    /// The suite and key the router signs blocks of suite `id` with.
    pub fn key(&self, id: u8) -> Option<(&'s dyn AlgorithmSuite, &SigningKey)> {
        self.keys
            .iter()
            .find(|(s, _)| s.id() == id)
            .map(|(s, k)| (*s, k))
    }

    /// The Secure_Path Segment the router adds for `hop` (§4.2): its AS, the hop's
    /// pCount, the Confed_Segment flag and the unassigned bits 0 (§3.1).
    pub fn segment(&self, hop: &Hop) -> SecurePathSegment {
        SecurePathSegment {
            pcount: hop.pcount,
            flags: SecurePathFlags(if hop.confed_segment {
                SecurePathFlags::CONFED_SEGMENT
            } else {
                0
            }),
            asn: self.asn,
        }
    }

    /// The BGPsec_PATH the router sends for `nlri` to `hop.target_as`: the received
    /// path with the router's segments added, or the origin's when `received` is
    /// `None` (§4.2).
    ///
    /// # Errors
    /// As [`Chain::originate`] and [`Chain::forward`].
    pub fn sign_path(
        &self,
        received: Option<&BgpsecPath<'_>>,
        nlri: SignedNlri,
        hop: &Hop,
    ) -> Result<BgpsecPath<'static>, SignError> {
        let chain = match received {
            None => Chain::originate(self, nlri, hop)?,
            Some(path) => {
                let mut chain = Chain::received(path, nlri, self)?;
                chain.forward(self, hop)?;
                chain
            }
        };
        chain.path()
    }

    /// The BGPsec UPDATE announcing `nlri` from this router, the origin, to
    /// `hop.target_as` (§4.1, §4.2): `attributes` (ORIGIN and any others; not AS_PATH,
    /// AS4_PATH, MP_REACH_NLRI or BGPsec_PATH), then MP_REACH_NLRI with `next_hop` and
    /// the one prefix, and the BGPsec_PATH, in ascending type code as RFC 4271 §5
    /// recommends.
    ///
    /// # Errors
    /// [`SignError::Attribute`] for an attribute the signer builds itself or that a
    /// BGPsec UPDATE must not carry; [`SignError::Encode`] for a next hop of another
    /// family than the prefix; [`SignError::TooLarge`]; as [`Chain::originate`].
    pub fn originate<'a>(
        &self,
        nlri: SignedNlri,
        next_hop: NextHop,
        attributes: Vec<PathAttribute<'a>>,
        hop: &Hop,
    ) -> Result<Update<'a>, SignError> {
        self.originate_max(nlri, next_hop, attributes, hop, MAX_MESSAGE_LEN)
    }

    /// [`Signer::originate`] toward a peer whose messages may be `max` octets long:
    /// BGP's 4096, or 65,535 where both sides announced the Extended Message
    /// capability (RFC 8654 §4; RFC 8205 §4.1: "MUST conform to BGP's maximum
    /// message size").
    ///
    /// # Errors
    /// As [`Signer::originate`], [`SignError::TooLarge`] over `max`.
    pub fn originate_max<'a>(
        &self,
        nlri: SignedNlri,
        next_hop: NextHop,
        mut attributes: Vec<PathAttribute<'a>>,
        hop: &Hop,
        max: usize,
    ) -> Result<Update<'a>, SignError> {
        const BUILT: [AttrType; 4] = [
            AttrType::AsPath,
            AttrType::As4Path,
            AttrType::MpReachNlri,
            AttrType::BgpsecPath,
        ];
        if let Some(a) = attributes
            .iter()
            .find(|a| BUILT.iter().any(|&t| u8::from(t) == a.type_code()))
        {
            return Err(SignError::Attribute(a.type_code()));
        }
        let mp =
            MpReachNlri::new(nlri.safi, next_hop, vec![nlri.prefix]).map_err(EncodeError::from)?;
        attributes.push(PathAttribute::new(
            AttributeValue::MpReachNlri(mp),
            AsWidth::Four,
        )?);
        let path = self.sign_path(None, nlri, hop)?;
        attributes.push(PathAttribute::new(
            AttributeValue::BgpsecPath(path),
            AsWidth::Four,
        )?);
        attributes.sort_by_key(PathAttribute::type_code);
        checked_size(
            Update {
                attributes,
                ..Update::default()
            },
            max,
        )
    }

    /// The UPDATE this router sends to `hop.target_as` for the route of the BGPsec
    /// UPDATE `received` (§4.2): the BGPsec_PATH with its segments added; MP_REACH_NLRI
    /// with `next_hop` (`None` keeps the received one); the other attributes as
    /// RFC 4271 §5 passes them to an external peer (new signatures are only added
    /// toward one, §4.1; [`PathAttribute::to_external_peer`]): not optional
    /// non-transitive ones such as MULTI_EXIT_DISC nor LOCAL_PREF, unrecognized
    /// optional transitive ones with the Partial bit set. The received
    /// Withdrawn Routes and MP_UNREACH_NLRI are not repeated.
    ///
    /// # Errors
    /// [`SignError::NotBgpsec`] for an UPDATE without BGPsec_PATH (§4.1: it "MUST NOT"
    /// gain one); [`SignError::Nlri`] if it does not announce one prefix in
    /// MP_REACH_NLRI; [`SignError::TooLarge`]; as [`Chain::forward`].
    pub fn forward<'a>(
        &self,
        received: &Update<'a>,
        next_hop: Option<NextHop>,
        hop: &Hop,
    ) -> Result<Update<'a>, SignError> {
        self.forward_max(received, next_hop, hop, MAX_MESSAGE_LEN)
    }

    /// [`Signer::forward`] toward a peer whose messages may be `max` octets long
    /// (65,535 with the Extended Message capability, RFC 8654 §4).
    ///
    /// # Errors
    /// As [`Signer::forward`], [`SignError::TooLarge`] over `max`.
    pub fn forward_max<'a>(
        &self,
        received: &Update<'a>,
        next_hop: Option<NextHop>,
        hop: &Hop,
        max: usize,
    ) -> Result<Update<'a>, SignError> {
        checked_size(self.forward_unchecked(received, next_hop, hop)?, max)
    }

    /// [`Signer::forward`]'s UPDATE as the BGP message sent (RFC 4271 §4.1 header
    /// included, four-octet AS numbers as a BGPsec session has, §2.2), encoded once:
    /// what a speaker sends, without a second encoding to check the size.
    ///
    /// # Errors
    /// As [`Signer::forward`].
    pub fn forward_message(
        &self,
        received: &Update<'_>,
        next_hop: Option<NextHop>,
        hop: &Hop,
    ) -> Result<Vec<u8>, SignError> {
        self.forward_message_max(received, next_hop, hop, MAX_MESSAGE_LEN)
    }

    /// [`Signer::forward_message`] toward a peer whose messages may be `max` octets
    /// long (65,535 with the Extended Message capability, RFC 8654 §4).
    ///
    /// # Errors
    /// As [`Signer::forward_message`], [`SignError::TooLarge`] over `max`.
    pub fn forward_message_max(
        &self,
        received: &Update<'_>,
        next_hop: Option<NextHop>,
        hop: &Hop,
        max: usize,
    ) -> Result<Vec<u8>, SignError> {
        let update = self.forward_unchecked(received, next_hop, hop)?;
        match Message::Update(update).encoding_max(AsWidth::Four, max) {
            // The message encoder refuses a length its header cannot carry.
            Err(EncodeError::Field(codec::EncodeError::OutOfRange {
                field: "message length",
                actual,
                ..
            })) => Err(SignError::TooLarge(
                usize::try_from(actual).unwrap_or(usize::MAX),
            )),
            bytes => Ok(bytes?),
        }
    }

    /// [`Signer::forward`] without the message size check.
    fn forward_unchecked<'a>(
        &self,
        received: &Update<'a>,
        next_hop: Option<NextHop>,
        hop: &Hop,
    ) -> Result<Update<'a>, SignError> {
        let path = received.bgpsec_path().ok_or(SignError::NotBgpsec)?;
        let nlri = SignedNlri::of_update(received).map_err(SignError::Nlri)?;
        let path = self.sign_path(Some(path), nlri, hop)?;
        let mut path = Some(path);
        let mut attributes = Vec::with_capacity(received.attributes.len());
        for a in &received.attributes {
            match a.value() {
                AttributeValue::BgpsecPath(_) => {
                    if let Some(p) = path.take() {
                        let value = AttributeValue::BgpsecPath(p);
                        attributes.push(PathAttribute::new(value, AsWidth::Four)?);
                    }
                }
                AttributeValue::MpReachNlri(m) => {
                    let nh = next_hop.unwrap_or(m.next_hop());
                    let mp = MpReachNlri::new(m.safi(), nh, m.nlri().to_vec())
                        .map_err(EncodeError::from)?;
                    let value = AttributeValue::MpReachNlri(mp);
                    attributes.push(PathAttribute::new(value, AsWidth::Four)?);
                }
                _ => attributes.extend(a.to_external_peer()),
            }
        }
        Ok(Update {
            attributes,
            ..Update::default()
        })
    }
}

/// `update` if its message fits BGP's maximum message size, `max` (RFC 8205 §4.1: "All
/// BGPsec UPDATE messages MUST conform to BGP's maximum message size").
fn checked_size(update: Update<'_>, max: usize) -> Result<Update<'_>, SignError> {
    let mut w = Writer::new();
    update.encode(&mut w, AsWidth::Four)?;
    let length = HEADER_LEN + w.len();
    if length > max {
        return Err(SignError::TooLarge(length));
    }
    Ok(update)
}

/// One announcement's BGPsec_PATH being signed hop by hop: its segments so far and,
/// per Signature_Block, the block and its hops' [`SignatureInput`], to which each
/// signer adds one hop.
#[derive(Debug, Clone)]
pub struct Chain {
    nlri: SignedNlri,
    /// Newest first, as on the wire.
    secure_path: Vec<SecurePathSegment>,
    blocks: Vec<(SignatureBlock<'static>, SignatureInput)>,
}

impl Chain {
    /// Hop 1: `origin` signs `nlri` toward `hop.target_as` with each of its keys, one
    /// Signature_Block per suite.
    ///
    /// # Errors
    /// [`SignError::NoKey`] for a router without keys, [`SignError::Path`] for more
    /// than two (RFC 8205 §3: "one or two Signature_Blocks"), as
    /// [`AlgorithmSuite::sign`].
    pub fn originate(origin: &Signer<'_>, nlri: SignedNlri, hop: &Hop) -> Result<Chain, SignError> {
        if origin.keys.is_empty() {
            return Err(SignError::NoKey);
        }
        if origin.keys.len() > crate::packet::attribute::bgpsec::MAX_SIGNATURE_BLOCKS {
            return Err(SignError::Path(BgpsecPathError::TooManySignatureBlocks));
        }
        let segment = origin.segment(hop);
        let mut blocks = Vec::with_capacity(origin.keys.len());
        for (suite, key) in &origin.keys {
            let mut input = SignatureInput::origin(segment, suite.id(), &nlri, suite.coverage(), 0);
            let mut block = SignatureBlock {
                suite: suite.id(),
                segments: vec![],
            };
            suite.sign(key, input.newest_toward(hop.target_as), &mut block)?;
            blocks.push((block, input));
        }
        Ok(Chain {
            nlri,
            secure_path: vec![segment],
            blocks,
        })
    }

    /// A received path for `nlri`, as router `to` (whose AS it was sent to) takes it to
    /// add its own hop: the blocks of suites `to` has a key for, each with every hop's
    /// octets built once ([`SignatureInput::of_path`]). The other blocks are left out,
    /// as §4.2 requires of what the router sends ("MUST remove the Signature_Block
    /// corresponding to the algorithm suite that it does not understand").
    ///
    /// # Errors
    /// [`SignError::NoCommonSuite`] if `to` has a key for no block's suite: it must
    /// send the route unsigned, if at all (§4.2).
    pub fn received(
        path: &BgpsecPath<'_>,
        nlri: SignedNlri,
        to: &Signer<'_>,
    ) -> Result<Chain, SignError> {
        let blocks: Vec<_> = path
            .signature_blocks()
            .iter()
            .filter_map(|b| {
                let (suite, _) = to.key(b.suite)?;
                let input =
                    SignatureInput::of_path(path, b.suite, &nlri, suite.coverage(), to.asn)?;
                Some((b.clone().into_owned(), input))
            })
            .collect();
        if blocks.is_empty() {
            let suites = path.signature_blocks().iter().map(|b| b.suite).collect();
            return Err(SignError::NoCommonSuite(suites));
        }
        Ok(Chain {
            nlri,
            secure_path: path.secure_path().to_vec(),
            blocks,
        })
    }

    /// The next hop: `signer` prepends its Secure_Path Segment and adds its signature
    /// toward `hop.target_as` to each block of a suite it has a key for (§4.2); blocks
    /// of other suites are removed.
    ///
    /// # Errors
    /// [`SignError::NoCommonSuite`] if `signer` has a key for no block left — it must
    /// then send the route unsigned, if at all (§4.2); as [`AlgorithmSuite::sign`].
    pub fn forward(&mut self, signer: &Signer<'_>, hop: &Hop) -> Result<(), SignError> {
        let suites: Vec<u8> = self.blocks.iter().map(|(b, _)| b.suite).collect();
        self.blocks.retain(|(b, _)| signer.key(b.suite).is_some());
        if self.blocks.is_empty() {
            return Err(SignError::NoCommonSuite(suites));
        }
        let segment = signer.segment(hop);
        for (block, input) in &mut self.blocks {
            let Some(((suite, key), newest)) = signer.key(block.suite).zip(block.segments.first())
            else {
                continue;
            };
            input.push(newest, segment);
            suite.sign(key, input.newest_toward(hop.target_as), block)?;
        }
        self.secure_path.insert(0, segment);
        Ok(())
    }

    /// The route signed.
    pub fn nlri(&self) -> &SignedNlri {
        &self.nlri
    }

    /// The number of hops signed so far.
    pub fn hops(&self) -> usize {
        self.secure_path.len()
    }

    /// The BGPsec_PATH as it stands.
    ///
    /// # Errors
    /// [`SignError::Path`] if it breaks a structural rule of RFC 8205 §3 (a suite that
    /// did not add one Signature Segment per hop).
    pub fn path(&self) -> Result<BgpsecPath<'static>, SignError> {
        Ok(BgpsecPath::new(
            self.secure_path.clone(),
            self.blocks.iter().map(|(b, _)| b.clone()).collect(),
        )?)
    }
}

/// The path a confederation member sends outside its confederation, before it adds its
/// own segment (RFC 8205 §4.3): the newest consecutive segments with the
/// Confed_Segment flag removed, and as many Signature Segments from the front of each
/// block. `None` if every segment carries the flag.
pub fn without_confed_segments(path: &BgpsecPath<'_>) -> Option<BgpsecPath<'static>> {
    let k = path
        .secure_path()
        .iter()
        .take_while(|s| s.flags.confed_segment())
        .count();
    let blocks = path
        .signature_blocks()
        .iter()
        .map(|b| SignatureBlock {
            suite: b.suite,
            segments: b.segments[k.min(b.segments.len())..]
                .iter()
                .cloned()
                .map(crate::packet::SignatureSegment::into_owned)
                .collect(),
        })
        .collect();
    BgpsecPath::new(path.secure_path()[k..].to_vec(), blocks).ok()
}

/// Why a router could not sign.
#[derive(Debug, thiserror::Error)]
pub enum SignError {
    /// A key of one suite given to another.
    #[error("a key of suite {key} given to suite {suite}")]
    KeyForOtherSuite {
        /// The key's suite.
        key: u8,
        /// The signing suite.
        suite: u8,
    },
    /// A Signature_Block of one suite given to another.
    #[error("a Signature_Block of suite {block} given to suite {suite}")]
    BlockForOtherSuite {
        /// The block's suite.
        block: u8,
        /// The signing suite.
        suite: u8,
    },
    /// A received Signature_Block the suite cannot extend: a segment the signer must
    /// read is not in the suite's form (an aggregate suite reads every segment;
    /// docs/spec/bgpsec-bgr.md §5). A block that is well formed but does not verify is
    /// signed all the same.
    #[error(
        "suite {suite} cannot extend the received Signature_Block: segment {segment}: {reason}"
    )]
    IllFormedBlock {
        /// The suite.
        suite: u8,
        /// The segment (1 = origin).
        segment: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Two keys of one suite for one router.
    #[error("two keys of suite {0}")]
    DuplicateSuite(u8),
    /// The router has no key.
    #[error("the router has no signing key")]
    NoKey,
    /// The router has no key for the suite of any block it received (these suites).
    #[error("no key for any suite of the received Signature_Blocks {0:?}: send the route unsigned (RFC 8205 §4.2)")]
    NoCommonSuite(Vec<u8>),
    /// The UPDATE to forward has no BGPsec_PATH (RFC 8205 §4.1: it "MUST NOT attach" one).
    #[error("not a BGPsec UPDATE: it must be propagated unsigned (RFC 8205 §4.1)")]
    NotBgpsec,
    /// The UPDATE to forward does not carry one prefix in MP_REACH_NLRI.
    #[error("{0}")]
    Nlri(BgpsecNlriFault),
    /// An attribute the signer builds itself, or that a BGPsec UPDATE must not carry.
    #[error("attribute {0} is not the caller's to give")]
    Attribute(u8),
    /// The BGPsec_PATH breaks a structural rule of RFC 8205 §3.
    #[error("{0}")]
    Path(#[from] BgpsecPathError),
    /// An attribute or the UPDATE does not encode.
    #[error("{0}")]
    Encode(#[from] EncodeError),
    /// The UPDATE would exceed BGP's maximum message size: 4096 octets (RFC 8205 §4.1,
    /// RFC 4271 §4.1), or 65,535 toward a peer with extended messages (RFC 8654 §4).
    #[error("the UPDATE would be {0} octets, over BGP's maximum message size (4096, or 65,535 with extended messages)")]
    TooLarge(usize),
    /// The signature scheme or its backend failed.
    #[error("{0}")]
    Scheme(#[from] hopsig_schemes::Error),
}
