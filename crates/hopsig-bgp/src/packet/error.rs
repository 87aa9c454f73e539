//! Why a BGP message did not decode, and what the receiver must do about it.
//!
//! Every decoding error names what is wrong ([`HeaderError`], [`OpenError`],
//! [`UpdateErrorKind`], [`AttributeFault`], [`BgpsecPathError`]) and carries the
//! protocol's verdict as a type (STYLE.md 21, holo-bgp's `AttrError`): an [`Action`]
//! from RFC 7606 §2, and for a session reset the NOTIFICATION to send (RFC 4271 §6).
//! The speaker acts on [`MessageError::action`] and [`MessageError::notification`]
//! alone, never on a message string.

use hopsig_primitives::codec::{self, DecodeError};

use super::iana::{AttrType, ErrorCode, HeaderSubcode, OpenSubcode, UpdateSubcode};
use super::notification::Notification;
use super::update::Update;

/// What the receiver of a malformed message does (RFC 7606 §2), weakest first: the
/// derived order ranks them by strength, so the strongest of several errors is their
/// maximum (RFC 7606 §3 h).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// "Attribute discard": drop the malformed attribute, process the rest of the
    /// UPDATE (allowed only for attributes that do not affect route selection).
    AttributeDiscard,
    /// "Treat-as-withdraw": every route the UPDATE carries is withdrawn, as if listed
    /// in Withdrawn Routes or MP_UNREACH_NLRI.
    TreatAsWithdraw,
    /// "Session reset": send the NOTIFICATION and close the session (RFC 4271 §6).
    /// Where RFC 7606 §7.11 and RFC 4760 §7 allow it, a speaker may instead disable
    /// the AFI/SAFI the malformed MP_REACH_NLRI / MP_UNREACH_NLRI belongs to.
    SessionReset,
}

/// A malformed message header (RFC 4271 §6.1). Always [`Action::SessionReset`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// The 16-octet marker is not all ones ("Connection Not Synchronized").
    #[error("the marker is not all ones")]
    NotSynchronized,
    /// The Length field is below 19, above 4096, or wrong for the message type.
    #[error("message length {0} is outside 19..=4096 or wrong for its type")]
    BadLength(u16),
    /// The Type field is not OPEN, UPDATE, NOTIFICATION or KEEPALIVE.
    #[error("unknown message type {0}")]
    BadType(u8),
    /// The bytes given are not one whole message (fewer or more than Length).
    #[error("message framing: {0}")]
    Framing(DecodeError),
}

impl HeaderError {
    /// The NOTIFICATION RFC 4271 §6.1 prescribes.
    pub fn notification(&self) -> Option<Notification<'static>> {
        let (subcode, data) = match self {
            HeaderError::NotSynchronized => (HeaderSubcode::ConnectionNotSynchronized, vec![]),
            HeaderError::BadLength(len) => {
                (HeaderSubcode::BadMessageLength, len.to_be_bytes().to_vec())
            }
            HeaderError::BadType(t) => (HeaderSubcode::BadMessageType, vec![*t]),
            // A caller's framing error, not something the peer sent: nothing to say.
            HeaderError::Framing(_) => return None,
        };
        Some(Notification::new(
            ErrorCode::MessageHeader,
            u8::from(subcode),
            data,
        ))
    }
}

/// A malformed OPEN message (RFC 4271 §6.2, RFC 5492). Always
/// [`Action::SessionReset`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    /// The version is not 4.
    #[error("unsupported BGP version {0}")]
    UnsupportedVersion(u8),
    /// The Hold Time is 1 or 2 seconds (RFC 4271 §4.2: zero or at least three).
    #[error("unacceptable hold time {0}")]
    UnacceptableHoldTime(u16),
    /// The BGP Identifier is zero.
    #[error("BGP identifier 0.0.0.0")]
    BadBgpIdentifier,
    /// An optional parameter other than Capabilities (RFC 5492 §4).
    #[error("unsupported optional parameter type {0}")]
    UnsupportedOptionalParameter(u8),
    /// A capability hopsig decodes has the wrong length or an invalid value.
    #[error("capability {code}: {error}")]
    MalformedCapability {
        /// The capability code.
        code: u8,
        /// What is wrong with its value.
        error: DecodeError,
    },
    /// A length field of the message or its optional parameters is inconsistent.
    #[error("{0}")]
    Syntax(DecodeError),
}

impl OpenError {
    /// The NOTIFICATION RFC 4271 §6.2 prescribes.
    pub fn notification(&self) -> Notification<'static> {
        let (subcode, data) = match self {
            // The largest locally supported version below the one bid (RFC 4271 §6.2).
            OpenError::UnsupportedVersion(_) => (OpenSubcode::UnsupportedVersionNumber, vec![0, 4]),
            OpenError::UnacceptableHoldTime(_) => (OpenSubcode::UnacceptableHoldTime, vec![]),
            OpenError::BadBgpIdentifier => (OpenSubcode::BadBgpIdentifier, vec![]),
            OpenError::UnsupportedOptionalParameter(_) => {
                (OpenSubcode::UnsupportedOptionalParameter, vec![])
            }
            OpenError::MalformedCapability { .. } | OpenError::Syntax(_) => {
                (OpenSubcode::Unspecific, vec![])
            }
        };
        Notification::new(ErrorCode::Open, u8::from(subcode), data)
    }
}

/// A BGPsec_PATH attribute that is not well formed (RFC 8205 §3, §5.2 check 1 and 3;
/// RFC 8608 §2.1). Inside an UPDATE every one of these is an error in the
/// BGPsec_PATH attribute: [`Action::TreatAsWithdraw`] (RFC 8205 §5.2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BgpsecPathError {
    /// A field runs past the attribute, or octets follow the second Signature_Block.
    #[error("{0}")]
    Syntax(DecodeError),
    /// Secure_Path Length is not 2 + 6·n (RFC 8205 §3.1).
    #[error("Secure_Path Length {0} is not 2 + 6 × the number of segments")]
    SecurePathLength(u16),
    /// The Secure_Path has no segment (Length 2): RFC 8205 §3.1 requires "one or more".
    #[error("the Secure_Path has no segment")]
    EmptySecurePath,
    /// Signature_Block Length below 3, the size of its own header (RFC 8205 §3.2).
    #[error("Signature_Block Length {0} is below 3")]
    SignatureBlockLength(u16),
    /// No Signature_Block follows the Secure_Path (RFC 8205 §3: "one or two").
    #[error("no Signature_Block")]
    NoSignatureBlock,
    /// A third Signature_Block (RFC 8205 §3: "one or two").
    #[error("more than two Signature_Blocks")]
    TooManySignatureBlocks,
    /// Algorithm suite 0x00 or 0xFF (RFC 8608 §2.1: "MUST treat BGPsec UPDATE messages
    /// as malformed").
    #[error("reserved algorithm suite identifier 0x{0:02x}")]
    ReservedSuite(u8),
    /// Both Signature_Blocks name the same suite (RFC 8205 §3: "each of which
    /// corresponds to a different algorithm suite"; docs/spec/bgpsec.md, C5).
    #[error("two Signature_Blocks of algorithm suite 0x{0:02x}")]
    DuplicateSuite(u8),
    /// A Signature_Block does not hold one Signature Segment per Secure_Path Segment
    /// (RFC 8205 §3.2, §5.2 check 3).
    #[error("the Signature_Block of suite 0x{suite:02x} has {signatures} Signature Segments for {secure_path} Secure_Path Segments")]
    SegmentCountMismatch {
        /// The block's algorithm suite.
        suite: u8,
        /// Secure_Path Segments.
        secure_path: usize,
        /// Signature Segments in the block.
        signatures: usize,
    },
}

impl From<DecodeError> for BgpsecPathError {
    fn from(e: DecodeError) -> Self {
        BgpsecPathError::Syntax(e)
    }
}

/// What is wrong with one path attribute hopsig decodes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttributeFault {
    /// The Optional or Transitive bit conflicts with the type (RFC 7606 §3 c). The
    /// octet found is given; the Partial, Extended Length and unused bits are not
    /// checked.
    #[error("attribute flags 0x{0:02x} conflict with the type's Optional/Transitive bits")]
    Flags(u8),
    /// The value does not parse: a wrong length, an undefined code, a prefix longer
    /// than its address family, a segment running past the attribute.
    #[error("{0}")]
    Value(DecodeError),
    /// The BGPsec_PATH value is malformed.
    #[error("{0}")]
    BgpsecPath(BgpsecPathError),
    /// An attribute has a length its type forbids: ORIGIN not 1, NEXT_HOP not 4 (RFC
    /// 7606 §7.1, §7.3), and the attributes kept as received (§7.4, §7.6–7.8, §7.14,
    /// §7.15; RFC 6793 §6; RFC 8092 §5). An Attribute Length Error (RFC 4271 §6.3).
    #[error("length {0} is not one the type allows")]
    Length(usize),
}

/// A malformed path attribute: its type, the fault, and the attribute as received
/// (flags, type, length, value), which is the Data of a NOTIFICATION about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{type_code:?}: {fault}")]
pub struct AttributeError {
    /// The attribute's type.
    pub type_code: AttrType,
    /// What is wrong.
    pub fault: AttributeFault,
    /// The whole attribute as received.
    pub attribute: Vec<u8>,
}

impl AttributeError {
    /// RFC 7606's approach for a malformed attribute of this type: MP_REACH_NLRI and
    /// MP_UNREACH_NLRI are session reset, because the routes they carry cannot be
    /// located to withdraw them (§3 j, §5.3, §7.11); ATOMIC_AGGREGATE and AGGREGATOR
    /// (§3 f, §7.6, §7.7), AS4_PATH and AS4_AGGREGATOR (RFC 6793 §6) are attribute
    /// discard; all others — ORIGIN, AS_PATH, NEXT_HOP, MULTI_EXIT_DISC, LOCAL_PREF,
    /// the communities (§7.1–7.4, §7.8, §7.14, §7.15; RFC 8092 §5) and BGPsec_PATH
    /// (RFC 8205 §5.2) — are treat-as-withdraw. Flag conflicts follow the type's rule
    /// (§3 c).
    pub fn action(&self) -> Action {
        match self.type_code {
            AttrType::MpReachNlri | AttrType::MpUnreachNlri => Action::SessionReset,
            AttrType::As4Path
            | AttrType::As4Aggregator
            | AttrType::Aggregator
            | AttrType::AtomicAggregate => Action::AttributeDiscard,
            _ => Action::TreatAsWithdraw,
        }
    }

    fn subcode(&self) -> UpdateSubcode {
        match (&self.fault, self.type_code) {
            (AttributeFault::Flags(_), _) => UpdateSubcode::AttributeFlagsError,
            (AttributeFault::Length(_), _) => UpdateSubcode::AttributeLengthError,
            (_, AttrType::Origin) => UpdateSubcode::InvalidOriginAttribute,
            (_, AttrType::AsPath) => UpdateSubcode::MalformedAsPath,
            (_, AttrType::NextHop) => UpdateSubcode::InvalidNextHopAttribute,
            _ => UpdateSubcode::OptionalAttributeError,
        }
    }
}

/// Why a BGPsec UPDATE does not carry its one prefix as RFC 8205 §4.1 requires
/// ("MUST advertise a route to only a single prefix … MUST use the MP_REACH_NLRI
/// attribute to encode the prefix"; docs/spec/bgpsec.md, C11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BgpsecNlriFault {
    /// Prefixes in the NLRI field of the UPDATE.
    #[error("prefixes in the NLRI field")]
    NlriField,
    /// No MP_REACH_NLRI attribute (or one of an address family hopsig does not decode).
    #[error("no MP_REACH_NLRI of IPv4 or IPv6")]
    NoMpReach,
    /// MP_REACH_NLRI holds this many prefixes, not one.
    #[error("{0} prefixes in MP_REACH_NLRI")]
    PrefixCount(usize),
}

/// What is wrong with an UPDATE message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UpdateErrorKind {
    /// Withdrawn Routes Length or Total Path Attribute Length runs past the message
    /// (RFC 7606 §3 b: Malformed Attribute List, session reset).
    #[error("Withdrawn Routes Length or Total Path Attribute Length runs past the message: {0}")]
    FieldLengths(DecodeError),
    /// The Withdrawn Routes field is syntactically incorrect (RFC 7606 §3 i, §5.3).
    #[error("Withdrawn Routes: {0}")]
    WithdrawnRoutes(DecodeError),
    /// The NLRI field is syntactically incorrect (RFC 7606 §5.3).
    #[error("NLRI: {0}")]
    Nlri(DecodeError),
    /// An attribute header or length runs past the Total Path Attribute Length
    /// (RFC 7606 §4: treat-as-withdraw).
    #[error("path attribute list: {0}")]
    AttributeList(DecodeError),
    /// MP_REACH_NLRI or MP_UNREACH_NLRI appears twice (RFC 7606 §3 g: session reset).
    #[error("attribute {0} appears twice")]
    DuplicateMpAttribute(u8),
    /// Another attribute appears again; the later copies are discarded (RFC 7606 §3 g).
    #[error("attribute {0} appears more than once; later copies discarded")]
    DuplicateAttribute(u8),
    /// The Optional bit is clear but the type is not a well-known attribute
    /// (RFC 4271 §6.3: session reset).
    #[error("unrecognized well-known attribute {type_code}")]
    UnrecognizedWellKnown {
        /// The type code.
        type_code: u8,
        /// The attribute as received.
        attribute: Vec<u8>,
    },
    /// An attribute hopsig decodes is malformed.
    #[error("{0}")]
    Attribute(AttributeError),
    /// A well-known mandatory attribute is missing from an UPDATE that announces
    /// routes (RFC 7606 §3 d: treat-as-withdraw). For AS_PATH, a BGPsec_PATH stands
    /// in for it (RFC 8205 §3).
    #[error("{0:?} missing")]
    Missing(AttrType),
    /// AS_PATH and BGPsec_PATH together (RFC 8205 §3, §5.2 check 4: an error in the
    /// BGPsec_PATH attribute, treat-as-withdraw).
    #[error("AS_PATH and BGPsec_PATH in one UPDATE")]
    AsPathWithBgpsecPath,
    /// A BGPsec UPDATE that does not carry exactly one prefix in MP_REACH_NLRI
    /// (RFC 8205 §4.1; an error in the BGPsec_PATH attribute, treat-as-withdraw).
    #[error("BGPsec UPDATE: {0}")]
    BgpsecNlri(BgpsecNlriFault),
    /// AS4_PATH or AS4_AGGREGATOR on a session where both speakers use 4-octet AS
    /// numbers (RFC 6793 §6: "MUST discard the path attribute and continue
    /// processing").
    #[error("{0:?} between two 4-octet-AS speakers")]
    As4AttributeBetweenNewSpeakers(AttrType),
}

impl UpdateErrorKind {
    /// The approach RFC 7606 (or the RFC defining the attribute) assigns to this
    /// error by itself; [`UpdateError::action`] is the one to apply to the message.
    pub fn action(&self) -> Action {
        match self {
            UpdateErrorKind::FieldLengths(_)
            | UpdateErrorKind::WithdrawnRoutes(_)
            | UpdateErrorKind::Nlri(_)
            | UpdateErrorKind::DuplicateMpAttribute(_)
            | UpdateErrorKind::UnrecognizedWellKnown { .. } => Action::SessionReset,
            UpdateErrorKind::AttributeList(_)
            | UpdateErrorKind::Missing(_)
            | UpdateErrorKind::AsPathWithBgpsecPath
            | UpdateErrorKind::BgpsecNlri(_) => Action::TreatAsWithdraw,
            UpdateErrorKind::DuplicateAttribute(_)
            | UpdateErrorKind::As4AttributeBetweenNewSpeakers(_) => Action::AttributeDiscard,
            UpdateErrorKind::Attribute(e) => e.action(),
        }
    }

    /// The UPDATE Message Error subcode and Data (RFC 4271 §6.3) of a NOTIFICATION
    /// about this error.
    fn subcode_and_data(&self) -> (UpdateSubcode, Vec<u8>) {
        match self {
            UpdateErrorKind::WithdrawnRoutes(_) | UpdateErrorKind::Nlri(_) => {
                (UpdateSubcode::InvalidNetworkField, vec![])
            }
            UpdateErrorKind::UnrecognizedWellKnown { attribute, .. } => (
                UpdateSubcode::UnrecognizedWellKnownAttribute,
                attribute.clone(),
            ),
            UpdateErrorKind::Missing(t) => {
                (UpdateSubcode::MissingWellKnownAttribute, vec![u8::from(*t)])
            }
            UpdateErrorKind::Attribute(e) => (e.subcode(), e.attribute.clone()),
            UpdateErrorKind::BgpsecNlri(_) | UpdateErrorKind::AsPathWithBgpsecPath => {
                (UpdateSubcode::OptionalAttributeError, vec![])
            }
            _ => (UpdateSubcode::MalformedAttributeList, vec![]),
        }
    }
}

/// A malformed UPDATE: the error that decides what to do, the [`Action`], and what is
/// left of the message for a speaker that does not reset the session.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} ({action:?})")]
pub struct UpdateError {
    pub(crate) action: Action,
    pub(crate) kind: UpdateErrorKind,
    pub(crate) salvage: Option<Box<Update<'static>>>,
}

impl UpdateError {
    /// The approach to apply to the whole message: the strongest over every error
    /// found (RFC 7606 §3 h), raised to a session reset when a treat-as-withdraw error
    /// meets an UPDATE that announces no route (RFC 7606 §5.2: its NLRI may not have
    /// been parsed).
    pub fn action(&self) -> Action {
        self.action
    }

    /// The first error found of the strongest approach.
    pub fn kind(&self) -> &UpdateErrorKind {
        &self.kind
    }

    /// For [`Action::TreatAsWithdraw`] and [`Action::AttributeDiscard`]: the UPDATE
    /// without the malformed attributes and without the later copies of repeated ones
    /// (RFC 7606 §3 g). Under treat-as-withdraw, withdraw every route it announces
    /// ([`Update::announced`]) and every route it withdraws; under attribute discard,
    /// process it as received. `None` for a session reset.
    pub fn salvage(&self) -> Option<&Update<'static>> {
        self.salvage.as_deref()
    }

    /// The NOTIFICATION to send for a session reset (RFC 4271 §6.3 subcodes); `None`
    /// for the other approaches, which send none (RFC 7606 §3 a).
    pub fn notification(&self) -> Option<Notification<'static>> {
        if self.action != Action::SessionReset {
            return None;
        }
        let (subcode, data) = self.kind.subcode_and_data();
        Some(Notification::new(
            ErrorCode::Update,
            u8::from(subcode),
            data,
        ))
    }
}

/// Why a BGP message did not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    /// The message header.
    #[error("message header: {0}")]
    Header(HeaderError),
    /// An OPEN message.
    #[error("OPEN: {0}")]
    Open(OpenError),
    /// An UPDATE message.
    #[error("UPDATE: {0}")]
    Update(UpdateError),
    /// A NOTIFICATION message shorter than its code and subcode.
    #[error("NOTIFICATION: {0}")]
    Notification(DecodeError),
}

impl MessageError {
    /// What RFC 4271 §6 / RFC 7606 tell the receiver to do.
    pub fn action(&self) -> Action {
        match self {
            MessageError::Update(e) => e.action(),
            _ => Action::SessionReset,
        }
    }

    /// The NOTIFICATION to send, if one is to be sent. None for a malformed
    /// NOTIFICATION (RFC 4271 §6.4: it "cannot use a NOTIFICATION message to report
    /// this error"), for an UPDATE handled without a reset, and for a caller's framing
    /// error.
    pub fn notification(&self) -> Option<Notification<'static>> {
        match self {
            MessageError::Header(e) => e.notification(),
            MessageError::Open(e) => Some(e.notification()),
            MessageError::Update(e) => e.notification(),
            MessageError::Notification(_) => None,
        }
    }
}

/// Why a value could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// A length or count does not fit its field, or a value has no encoding.
    #[error("{0}")]
    Field(#[from] codec::EncodeError),
    /// The UPDATE breaks a rule its decoder enforces, so its encoding would not decode
    /// back to it: the rule, as the decoder would report it.
    #[error("UPDATE would not decode: {0}")]
    Update(Box<UpdateErrorKind>),
}

impl From<UpdateErrorKind> for EncodeError {
    fn from(kind: UpdateErrorKind) -> Self {
        EncodeError::Update(Box::new(kind))
    }
}
