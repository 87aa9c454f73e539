//! Where the IP packet sits in a captured frame, by link type (tcpdump.org's
//! LINKTYPE_ values), read with `etherparse`: Ethernet II with 802.1Q / 802.1ad VLAN
//! tags, Linux cooked capture (SLL), and raw IP.

use std::ops::Range;

use etherparse::{
    EtherType, Ethernet2HeaderSlice, LinuxSllHeaderSlice, LinuxSllProtocolType,
    SingleVlanHeaderSlice,
};

/// The link types hopsig reads IPv6 from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkType {
    /// LINKTYPE_ETHERNET (1).
    Ethernet,
    /// LINKTYPE_NULL (0, BSD loopback: a 4-octet address family in the capturing
    /// host's byte order) and LINKTYPE_LOOP (108, the same in network byte order).
    Loopback,
    /// LINKTYPE_LINUX_SLL (113).
    LinuxSll,
    /// LINKTYPE_RAW (101, also DLT_RAW 12 and 14): IPv4 or IPv6 by the version nibble.
    Raw,
    /// LINKTYPE_IPV4 (228).
    Ipv4,
    /// LINKTYPE_IPV6 (229).
    Ipv6,
    /// Any other: every frame is passed through as not IPv6.
    Other(u32),
}

impl LinkType {
    /// The link type of a LINKTYPE_ value.
    pub fn from_code(code: u32) -> LinkType {
        match code {
            1 => LinkType::Ethernet,
            0 | 108 => LinkType::Loopback,
            113 => LinkType::LinuxSll,
            101 | 12 | 14 => LinkType::Raw,
            228 => LinkType::Ipv4,
            229 => LinkType::Ipv6,
            other => LinkType::Other(other),
        }
    }
}

/// What a frame holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Located {
    /// An IPv6 packet starts at this offset (its end is its Payload Length's business).
    Ipv6(usize),
    /// Not IPv6 (IPv4, ARP, another protocol or link type).
    NotIpv6,
    /// The link-layer header itself is truncated.
    Truncated,
}

/// Finds the IPv6 packet in `frame` of link type `link`.
pub fn locate(link: LinkType, frame: &[u8]) -> Located {
    let ether = |ty: EtherType, at: usize| {
        if ty == EtherType::IPV6 {
            Located::Ipv6(at)
        } else {
            Located::NotIpv6
        }
    };
    match link {
        LinkType::Ethernet => {
            let Ok(eth) = Ethernet2HeaderSlice::from_slice(frame) else {
                return Located::Truncated;
            };
            let (mut ty, mut at) = (eth.ether_type(), eth.slice().len());
            // Any number of VLAN tags (802.1Q, 802.1ad, the old QinQ 0x9100).
            while matches!(
                ty,
                EtherType::VLAN_TAGGED_FRAME
                    | EtherType::PROVIDER_BRIDGING
                    | EtherType::VLAN_DOUBLE_TAGGED_FRAME
            ) {
                let Ok(vlan) = SingleVlanHeaderSlice::from_slice(&frame[at..]) else {
                    return Located::Truncated;
                };
                ty = vlan.ether_type();
                at += vlan.slice().len();
            }
            ether(ty, at)
        }
        LinkType::LinuxSll => match LinuxSllHeaderSlice::from_slice(frame) {
            Ok(sll) => match sll.protocol_type() {
                // GRE's protocol types are EtherTypes too (RFC 2784 §2.4).
                LinuxSllProtocolType::EtherType(ty) => ether(ty, sll.slice().len()),
                LinuxSllProtocolType::GenericRoutingEncapsulationProtocolType(ty) => {
                    ether(EtherType(ty), sll.slice().len())
                }
                _ => Located::NotIpv6,
            },
            // A hardware type etherparse does not know (loopback, none, tunnels): the
            // protocol field (octets 14–15) is an EtherType for those, as in
            // tcpdump's reading of LINKTYPE_LINUX_SLL.
            Err(_) if frame.len() >= SLL_HEADER => ether(
                EtherType(u16::from_be_bytes([frame[14], frame[15]])),
                SLL_HEADER,
            ),
            Err(_) => Located::Truncated,
        },
        LinkType::Raw => version_six(frame, 0),
        // The address family's values for IPv6 differ by system (24, 28, 30, 10): the
        // IP version nibble after the 4-octet header decides.
        LinkType::Loopback => version_six(frame, 4),
        LinkType::Ipv6 => Located::Ipv6(0),
        LinkType::Ipv4 | LinkType::Other(_) => Located::NotIpv6,
    }
}

/// Octets of a Linux cooked-capture (SLL) header.
const SLL_HEADER: usize = 16;

/// An IPv6 packet at `at` if the IP version nibble there is 6.
fn version_six(frame: &[u8], at: usize) -> Located {
    match frame.get(at) {
        Some(b) if b >> 4 == 6 => Located::Ipv6(at),
        Some(_) => Located::NotIpv6,
        None => Located::Truncated,
    }
}

/// `frame` with the octets `range` replaced by `with` (the IPv6 packet, now signed),
/// the link-layer header before and any trailer after kept.
pub fn replace(frame: &[u8], range: Range<usize>, with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(frame.len() - range.len() + with.len());
    out.extend_from_slice(&frame[..range.start]);
    out.extend_from_slice(with);
    out.extend_from_slice(&frame[range.end..]);
    out
}
