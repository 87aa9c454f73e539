//! Code points of the IANA BGP registries that the codec reads and writes, each an enum
//! with `TryFrom<u8>` (or `u16`) from one list (holo-bgp's `iana.rs`). A byte that is not
//! listed is [`DecodeError::UnknownCode`] naming the field; the decoders keep unknown
//! values as raw numbers wherever the RFCs require them to be carried on (unknown path
//! attributes, capabilities, algorithm suites, NOTIFICATION codes).

use hopsig_primitives::code_points;
use hopsig_primitives::codec::{Codec, DecodeError, Reader, Writer};

code_points! {
    /// BGP message type (RFC 4271 §4.1).
    pub enum MessageType: "BGP message type" {
        /// OPEN (RFC 4271 §4.2).
        Open = 1,
        /// UPDATE (RFC 4271 §4.3).
        Update = 2,
        /// NOTIFICATION (RFC 4271 §4.5).
        Notification = 3,
        /// KEEPALIVE (RFC 4271 §4.4).
        Keepalive = 4,
    }
}

code_points! {
    /// Path attribute type codes (IANA "BGP Path Attributes") that hopsig names. Only
    /// ORIGIN, AS_PATH, NEXT_HOP, MP_REACH_NLRI, MP_UNREACH_NLRI, AS4_PATH and
    /// BGPsec_PATH are decoded; every other attribute is kept byte for byte, those
    /// marked "length checked" after the flag and length checks RFC 7606 §7 gives
    /// them.
    pub enum AttrType: "path attribute type" {
        /// ORIGIN, well-known mandatory (RFC 4271 §5.1.1).
        Origin = 1,
        /// AS_PATH, well-known mandatory (RFC 4271 §5.1.2).
        AsPath = 2,
        /// NEXT_HOP, well-known (RFC 4271 §5.1.3; discretionary under RFC 4760).
        NextHop = 3,
        /// MULTI_EXIT_DISC, optional non-transitive (RFC 4271 §5.1.4). Length checked.
        MultiExitDisc = 4,
        /// LOCAL_PREF, well-known (RFC 4271 §5.1.5). Neither flags nor length checked:
        /// its rule depends on iBGP or eBGP (RFC 7606 §7.5), so it is the speaker's.
        LocalPref = 5,
        /// ATOMIC_AGGREGATE, well-known discretionary (RFC 4271 §5.1.6). Length checked.
        AtomicAggregate = 6,
        /// AGGREGATOR, optional transitive (RFC 4271 §5.1.7). Length checked.
        Aggregator = 7,
        /// COMMUNITIES (RFC 1997). Length checked.
        Communities = 8,
        /// MP_REACH_NLRI, optional non-transitive (RFC 4760 §3).
        MpReachNlri = 14,
        /// MP_UNREACH_NLRI, optional non-transitive (RFC 4760 §4).
        MpUnreachNlri = 15,
        /// EXTENDED COMMUNITIES (RFC 4360). Length checked.
        ExtendedCommunities = 16,
        /// AS4_PATH, optional transitive (RFC 6793 §3).
        As4Path = 17,
        /// AS4_AGGREGATOR, optional transitive (RFC 6793 §3). Length checked.
        As4Aggregator = 18,
        /// IPv6 Address Specific Extended Community (RFC 5701). Length checked.
        Ipv6ExtendedCommunities = 25,
        /// LARGE_COMMUNITY (RFC 8092). Length checked.
        LargeCommunity = 32,
        /// BGPsec_PATH, optional non-transitive (RFC 8205 §3). IANA assigned 33; the
        /// examples of RFC 8608 Appendix A print 30, a value IANA deprecated (RFC 8093),
        /// which hopsig does not accept (docs/spec/bgpsec.md, choice C1).
        BgpsecPath = 33,
    }
}

impl AttrType {
    /// The type codes whose attributes are well-known (Optional bit 0): ORIGIN,
    /// AS_PATH, NEXT_HOP, LOCAL_PREF, ATOMIC_AGGREGATE (RFC 4271 §5). An attribute
    /// with the Optional bit clear and a code hopsig does not name is an
    /// "Unrecognized Well-known Attribute" (RFC 4271 §6.3); one with a code it names
    /// but that is optional has conflicting flags (RFC 7606 §3 c).
    pub const WELL_KNOWN: [AttrType; 5] = [
        AttrType::Origin,
        AttrType::AsPath,
        AttrType::NextHop,
        AttrType::LocalPref,
        AttrType::AtomicAggregate,
    ];

    /// Whether `code` is one of [`AttrType::WELL_KNOWN`].
    pub fn is_well_known(code: u8) -> bool {
        AttrType::WELL_KNOWN.iter().any(|&t| u8::from(t) == code)
    }
}

code_points! {
    /// ORIGIN values (RFC 4271 §4.3, §5.1.1).
    pub enum Origin: "ORIGIN" {
        /// IGP: interior to the originating AS.
        Igp = 0,
        /// EGP: learned via the EGP protocol.
        Egp = 1,
        /// INCOMPLETE: learned by some other means.
        Incomplete = 2,
    }
}

code_points! {
    /// AS_PATH segment types (RFC 4271 §4.3; the confederation types RFC 5065 §3).
    pub enum AsPathSegmentType: "AS_PATH segment type" {
        /// AS_SET: an unordered set of ASes (aggregation).
        AsSet = 1,
        /// AS_SEQUENCE: an ordered list of ASes.
        AsSequence = 2,
        /// AS_CONFED_SEQUENCE: an ordered list of member ASes of a confederation.
        AsConfedSequence = 3,
        /// AS_CONFED_SET: an unordered set of member ASes of a confederation.
        AsConfedSet = 4,
    }
}

code_points! {
    /// Subsequent Address Family Identifiers whose NLRI are plain prefixes (RFC 4760
    /// §6). Other SAFIs are not decoded: their MP_REACH_NLRI / MP_UNREACH_NLRI
    /// attributes are kept byte for byte.
    pub enum Safi: "SAFI" {
        /// Unicast forwarding.
        Unicast = 1,
        /// Multicast forwarding (same prefix encoding as unicast).
        Multicast = 2,
    }
}

/// Address Family Identifiers (IANA "Address Family Numbers"; 16 bits on the wire,
/// RFC 4760 §3) whose prefixes hopsig decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum Afi {
    /// IPv4.
    Ipv4 = 1,
    /// IPv6.
    Ipv6 = 2,
}

impl Afi {
    /// Both families.
    pub const ALL: &'static [Afi] = &[Afi::Ipv4, Afi::Ipv6];

    /// The number of bits of an address of this family.
    pub fn address_bits(self) -> u8 {
        match self {
            Afi::Ipv4 => 32,
            Afi::Ipv6 => 128,
        }
    }
}

impl TryFrom<u16> for Afi {
    type Error = DecodeError;
    fn try_from(value: u16) -> Result<Self, DecodeError> {
        match value {
            1 => Ok(Afi::Ipv4),
            2 => Ok(Afi::Ipv6),
            _ => Err(DecodeError::OutOfRange {
                field: "AFI",
                actual: u64::from(value),
                min: 1,
                max: 2,
            }),
        }
    }
}

impl From<Afi> for u16 {
    fn from(afi: Afi) -> u16 {
        afi as u16
    }
}

impl Codec for Afi {
    const NAME: &'static str = "AFI";
    type EncodeError = std::convert::Infallible;
    fn encode(&self, w: &mut Writer) -> Result<(), Self::EncodeError> {
        w.u16_be(u16::from(*self));
        Ok(())
    }
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Afi::try_from(r.u16_be("AFI")?)
    }
}

code_points! {
    /// Capability codes (IANA "Capability Codes", RFC 5492 §4) that hopsig decodes;
    /// every other capability is kept byte for byte.
    pub enum CapabilityCode: "capability code" {
        /// Multiprotocol Extensions (RFC 4760 §8).
        Multiprotocol = 1,
        /// BGPsec (RFC 8205 §2.1).
        Bgpsec = 7,
        /// Support for 4-octet AS numbers (RFC 6793 §3).
        FourOctetAs = 65,
    }
}

code_points! {
    /// OPEN optional parameter types (RFC 4271 §4.2): only Capabilities is defined
    /// in use today (RFC 5492 §4; type 1, Authentication, is deprecated).
    pub enum ParameterType: "optional parameter type" {
        /// Capabilities (RFC 5492 §4).
        Capabilities = 2,
    }
}

code_points! {
    /// NOTIFICATION error codes (RFC 4271 §4.5; ROUTE-REFRESH RFC 7313 §5).
    pub enum ErrorCode: "NOTIFICATION error code" {
        /// Message Header Error (RFC 4271 §6.1).
        MessageHeader = 1,
        /// OPEN Message Error (RFC 4271 §6.2).
        Open = 2,
        /// UPDATE Message Error (RFC 4271 §6.3).
        Update = 3,
        /// Hold Timer Expired (RFC 4271 §6.5).
        HoldTimerExpired = 4,
        /// Finite State Machine Error (RFC 4271 §6.6).
        FiniteStateMachine = 5,
        /// Cease (RFC 4271 §6.7, subcodes RFC 4486).
        Cease = 6,
        /// ROUTE-REFRESH Message Error (RFC 7313 §5).
        RouteRefresh = 7,
    }
}

code_points! {
    /// Message Header Error subcodes (RFC 4271 §4.5).
    pub enum HeaderSubcode: "Message Header Error subcode" {
        /// The marker is not all ones.
        ConnectionNotSynchronized = 1,
        /// The Length field is out of range.
        BadMessageLength = 2,
        /// The Type field is not a known message type.
        BadMessageType = 3,
    }
}

code_points! {
    /// OPEN Message Error subcodes (RFC 4271 §4.5; 7, RFC 5492 §5; 0 "Unspecific" is
    /// in the IANA registry for errors no other subcode names).
    pub enum OpenSubcode: "OPEN Message Error subcode" {
        /// No subcode fits (IANA "Unspecific").
        Unspecific = 0,
        /// The version number is not supported.
        UnsupportedVersionNumber = 1,
        /// The peer's AS is unacceptable.
        BadPeerAs = 2,
        /// The BGP Identifier is not valid.
        BadBgpIdentifier = 3,
        /// An optional parameter is not recognised.
        UnsupportedOptionalParameter = 4,
        /// The Hold Time is 1 or 2 seconds.
        UnacceptableHoldTime = 6,
        /// A required capability is missing (RFC 5492 §5).
        UnsupportedCapability = 7,
    }
}

code_points! {
    /// UPDATE Message Error subcodes (RFC 4271 §4.5; 7 is deprecated).
    pub enum UpdateSubcode: "UPDATE Message Error subcode" {
        /// The attribute list is malformed.
        MalformedAttributeList = 1,
        /// A well-known attribute is not recognised.
        UnrecognizedWellKnownAttribute = 2,
        /// A well-known mandatory attribute is missing.
        MissingWellKnownAttribute = 3,
        /// Attribute flags conflict with the type code.
        AttributeFlagsError = 4,
        /// An attribute has the wrong length.
        AttributeLengthError = 5,
        /// ORIGIN has an undefined value.
        InvalidOriginAttribute = 6,
        /// NEXT_HOP is not valid.
        InvalidNextHopAttribute = 8,
        /// An optional attribute is malformed.
        OptionalAttributeError = 9,
        /// The NLRI field is syntactically incorrect.
        InvalidNetworkField = 10,
        /// AS_PATH is malformed.
        MalformedAsPath = 11,
    }
}

code_points! {
    /// Finite State Machine Error subcodes (RFC 6608 §3; 0 "Unspecified Error").
    pub enum FsmSubcode: "Finite State Machine Error subcode" {
        /// No subcode given (RFC 4271 §6.6 defines none).
        Unspecified = 0,
        /// An unexpected message in OpenSent.
        UnexpectedInOpenSent = 1,
        /// An unexpected message in OpenConfirm.
        UnexpectedInOpenConfirm = 2,
        /// An unexpected message in Established.
        UnexpectedInEstablished = 3,
    }
}

code_points! {
    /// Cease subcodes (RFC 4486 §4).
    pub enum CeaseSubcode: "Cease subcode" {
        /// Maximum number of prefixes reached.
        MaximumPrefixes = 1,
        /// Administrative shutdown.
        AdministrativeShutdown = 2,
        /// Peer de-configured.
        PeerDeconfigured = 3,
        /// Administrative reset.
        AdministrativeReset = 4,
        /// Connection rejected.
        ConnectionRejected = 5,
        /// Other configuration change.
        OtherConfigurationChange = 6,
        /// Connection collision resolution.
        ConnectionCollisionResolution = 7,
        /// Out of resources.
        OutOfResources = 8,
    }
}

code_points! {
    /// BGPsec algorithm suite identifiers assigned by IANA (RFC 8608 §2.2, §7). A
    /// Signature_Block carries its identifier as a raw byte ([`SuiteIdKind`] classifies
    /// it), because blocks of suites a speaker does not know are carried on unchanged.
    pub enum AlgorithmSuite: "BGPsec algorithm suite" {
        /// ECDSA P-256 with SHA-256 (RFC 8608 §2.2.1).
        EcdsaP256Sha256 = 1,
    }
}

/// The five kinds of algorithm suite identifier (RFC 8608 §2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SuiteIdKind {
    /// 0x00 and 0xFF: "MUST NOT be used in a Signature_Block"; an UPDATE carrying one
    /// is malformed.
    Reserved,
    /// An identifier IANA assigned.
    Assigned(AlgorithmSuite),
    /// Free for future assignment; processed as an unsupported suite.
    Unassigned,
    /// 0xF7..=0xFA, for experimentation; unsupported outside an experimental network.
    Experimental,
    /// 0xFB..=0xFE, for documentation; processed as an unsupported suite.
    Documentation,
}

impl SuiteIdKind {
    /// Classifies an algorithm suite identifier (RFC 8608 §2.1).
    pub fn of(id: u8) -> SuiteIdKind {
        match id {
            0x00 | 0xFF => SuiteIdKind::Reserved,
            0xF7..=0xFA => SuiteIdKind::Experimental,
            0xFB..=0xFE => SuiteIdKind::Documentation,
            _ => match AlgorithmSuite::try_from(id) {
                Ok(suite) => SuiteIdKind::Assigned(suite),
                Err(_) => SuiteIdKind::Unassigned,
            },
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn suite_ids_fall_in_the_rfc_8608_ranges() {
        assert_eq!(SuiteIdKind::of(0), SuiteIdKind::Reserved);
        assert_eq!(SuiteIdKind::of(0xff), SuiteIdKind::Reserved);
        assert_eq!(
            SuiteIdKind::of(1),
            SuiteIdKind::Assigned(AlgorithmSuite::EcdsaP256Sha256)
        );
        assert_eq!(SuiteIdKind::of(2), SuiteIdKind::Unassigned);
        assert_eq!(SuiteIdKind::of(0xf6), SuiteIdKind::Unassigned);
        for id in 0xf7..=0xfa {
            assert_eq!(SuiteIdKind::of(id), SuiteIdKind::Experimental);
        }
        for id in 0xfb..=0xfe {
            assert_eq!(SuiteIdKind::of(id), SuiteIdKind::Documentation);
        }
    }

    #[test]
    fn afi_is_sixteen_bits_and_names_unknown_values() {
        assert_eq!(Afi::decode(&[0x00, 0x02]), Ok(Afi::Ipv6));
        assert_eq!(hopsig_primitives::codec::to_vec(&Afi::Ipv4), [0x00, 0x01]);
        assert!(matches!(
            Afi::decode(&[0x00, 0x19]),
            Err(DecodeError::OutOfRange {
                field: "AFI",
                actual: 25,
                ..
            })
        ));
    }

    #[test]
    fn well_known_codes_are_the_rfc_4271_ones() {
        for code in [1, 2, 3, 5, 6] {
            assert!(AttrType::is_well_known(code));
        }
        for code in [4, 7, 8, 14, 15, 17, 33, 200] {
            assert!(!AttrType::is_well_known(code));
        }
    }
}
