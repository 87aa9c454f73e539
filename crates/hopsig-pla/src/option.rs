//! The PLA header inside an IPv6 packet: Hop-by-Hop option 0x1E (`docs/spec/pla.md`,
//! "PLA in IPv6 packets"). [`Ipv6Packet::parse`] finds it the way a router must
//! (every length checked against what is there), [`add_option`] makes room for it the
//! way a sender does, and [`Ipv6Packet::signed_payload`] gives the octets the packet
//! signature covers.
//!
//! The IPv6 header and each extension header are read by `etherparse`; the walk along
//! the chain (which stops after a non-first fragment's Fragment header) and the
//! options inside the Hop-by-Hop header (RFC 8200 §4.2 TLVs), which `etherparse`
//! leaves as bytes, are here.

use std::ops::Range;

use etherparse::{
    IpAuthHeaderSlice, Ipv6FragmentHeaderSlice, Ipv6HeaderSlice, Ipv6RawExtHeaderSlice,
};

/// The Hop-by-Hop option type of the PLA header: RFC 4727's experimental 0x1E (action
/// `00`: a node that does not know it skips it; change bit 0: it does not change en
/// route).
pub const OPTION_TYPE: u8 = 0x1E;
/// The PLA option's alignment, 4n + 2 (RFC 8200 §4.2): its data starts on a 4-octet
/// boundary.
const ALIGN: (usize, usize) = (4, 2);
/// The fixed IPv6 header.
const IPV6_HEADER: usize = 40;
/// Next Header values of the chain.
const HOP_BY_HOP: u8 = 0;
const ROUTING: u8 = 43;
const FRAGMENT: u8 = 44;
const AUTHENTICATION: u8 = 51;
const DESTINATION_OPTIONS: u8 = 60;
const PAD1: u8 = 0;
const PADN: u8 = 1;
/// The Jumbo Payload option (RFC 2675 §2): 4 octets, the packet's length after the
/// fixed header, above 65,535.
const JUMBO: u8 = 0xC2;

/// Why an IPv6 packet could not be read: what was wrong, for the `malformed` verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Malformed(pub &'static str);

/// An IPv6 packet as a PLA router reads it: its addresses, its Hop-by-Hop header and the
/// PLA option in it, if any.
#[derive(Debug, Clone)]
pub struct Ipv6Packet<'a> {
    /// The packet: the fixed header and exactly Payload Length octets after it.
    bytes: &'a [u8],
    /// The Hop-by-Hop header's octets within `bytes`.
    hop_by_hop: Option<Range<usize>>,
    /// The PLA option's data (the PLA header) within `bytes`.
    pla: Option<Range<usize>>,
    /// Whether a Routing header follows.
    routing: bool,
    /// Whether it is a jumbogram (RFC 2675).
    jumbo: bool,
}

impl<'a> Ipv6Packet<'a> {
    /// Reads the IPv6 packet at the start of `bytes`; octets after its Payload Length
    /// (link-layer padding) are not part of it.
    ///
    /// # Errors
    /// A jumbogram (RFC 2675 §3: Payload Length 0, a Hop-by-Hop header with a Jumbo
    /// Payload option) is read to the end its Jumbo Payload Length gives.
    ///
    /// # Errors
    /// [`Malformed`] for a header that is not IPv6, a Payload Length beyond `bytes`, an
    /// extension-header chain that does not parse (a Hop-by-Hop header not first, a
    /// length past the end), a Hop-by-Hop option whose length runs past its header,
    /// two PLA options, or what RFC 2675 §3 makes an error (Payload Length 0 without a
    /// Jumbo Payload option, a Jumbo Payload option with Payload Length not 0 or a
    /// length of 65,535 or less, a Fragment header in a jumbogram). (Whether the PLA
    /// option's data is a PLA header is the header decoder's business.)
    pub fn parse(bytes: &'a [u8]) -> Result<Self, Malformed> {
        let header = Ipv6HeaderSlice::from_slice(bytes)
            .map_err(|_| Malformed("IPv6 header: truncated or not version 6"))?;
        let next = header.next_header().0;
        let (end, jumbo) = match header.payload_length() {
            0 if next == HOP_BY_HOP => (IPV6_HEADER + jumbo_length(&bytes[IPV6_HEADER..])?, true),
            n => (IPV6_HEADER + usize::from(n), false),
        };
        if end > bytes.len() {
            return Err(Malformed(if jumbo {
                "Jumbo Payload Length: beyond the packet"
            } else {
                "IPv6 Payload Length: beyond the packet"
            }));
        }
        let bytes = &bytes[..end];
        let mut packet = Ipv6Packet {
            bytes,
            hop_by_hop: None,
            pla: None,
            routing: false,
            jumbo,
        };
        packet.walk_chain(next)?;
        Ok(packet)
    }

    /// Walks the extension headers from `next` (the IPv6 Next Header), each read by
    /// `etherparse` and required to fit the packet, up to the first other Next Header.
    /// The walk stops after a Fragment header whose offset is not 0: what follows is
    /// the middle of the fragmented payload, not headers.
    fn walk_chain(&mut self, mut next: u8) -> Result<(), Malformed> {
        let mut at = IPV6_HEADER;
        loop {
            let rest = &self.bytes[at..];
            let (len, after) = match next {
                HOP_BY_HOP if at == IPV6_HEADER => {
                    let h = Ipv6RawExtHeaderSlice::from_slice(rest)
                        .map_err(|_| Malformed("Hop-by-Hop header: runs past the packet"))?;
                    let range = at..at + h.slice().len();
                    let options = read_options(h.slice())?;
                    if options.jumbo.is_some() && !self.jumbo {
                        return Err(Malformed("Jumbo Payload option: Payload Length not 0"));
                    }
                    self.pla = options
                        .pla
                        .map(|r| range.start + r.start..range.start + r.end);
                    self.hop_by_hop = Some(range);
                    (h.slice().len(), h.next_header().0)
                }
                HOP_BY_HOP => return Err(Malformed("Hop-by-Hop header: not first")),
                DESTINATION_OPTIONS | ROUTING => {
                    let h = Ipv6RawExtHeaderSlice::from_slice(rest)
                        .map_err(|_| Malformed("extension header: runs past the packet"))?;
                    self.routing |= next == ROUTING;
                    (h.slice().len(), h.next_header().0)
                }
                FRAGMENT if self.jumbo => return Err(Malformed("Fragment header: in a jumbogram")),
                FRAGMENT => {
                    let f = Ipv6FragmentHeaderSlice::from_slice(rest)
                        .map_err(|_| Malformed("Fragment header: runs past the packet"))?;
                    if f.fragment_offset().value() != 0 {
                        return Ok(());
                    }
                    (f.slice().len(), f.next_header().0)
                }
                AUTHENTICATION => {
                    let a = IpAuthHeaderSlice::from_slice(rest)
                        .map_err(|_| Malformed("Authentication header: malformed"))?;
                    (a.slice().len(), a.next_header().0)
                }
                _ => return Ok(()),
            };
            at += len;
            next = after;
        }
    }

    /// The packet's octets (fixed header and payload).
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Source Address.
    pub fn source(&self) -> [u8; 16] {
        address(self.bytes, 8)
    }

    /// Destination Address.
    pub fn destination(&self) -> [u8; 16] {
        address(self.bytes, 24)
    }

    /// The PLA header (the option's data), if the packet carries one.
    pub fn pla_header(&self) -> Option<&'a [u8]> {
        self.pla.clone().map(|r| &self.bytes[r])
    }

    /// Whether a Routing header follows the Hop-by-Hop header.
    pub fn has_routing_header(&self) -> bool {
        self.routing
    }

    /// Whether it is a jumbogram (RFC 2675): a packet a sender does not sign and a
    /// router does not check (`docs/spec/pla.md`, "Not signed").
    pub fn is_jumbogram(&self) -> bool {
        self.jumbo
    }

    /// The payload the packet signature covers, in parts: Source Address, Destination
    /// Address, the Hop-by-Hop header's Next Header, and every octet after the
    /// Hop-by-Hop header (`docs/spec/pla.md`, "What the packet signature covers"). For
    /// a packet without a Hop-by-Hop header, the IPv6 Next Header and the whole
    /// payload: what the same packet covers once a sender adds the option.
    pub fn signed_payload(&self) -> [&'a [u8]; 4] {
        let (next, rest) = match &self.hop_by_hop {
            // The Hop-by-Hop header's first octet is its Next Header.
            Some(range) => (range.start, range.end),
            // The IPv6 header's Next Header octet.
            None => (6, IPV6_HEADER),
        };
        [
            &self.bytes[8..24],
            &self.bytes[24..40],
            &self.bytes[next..next + 1],
            &self.bytes[rest..],
        ]
    }
}

fn address(bytes: &[u8], at: usize) -> [u8; 16] {
    let mut a = [0u8; 16];
    a.copy_from_slice(&bytes[at..at + 16]);
    a
}

/// The options of a Hop-by-Hop header a PLA router looks at: their data ranges within
/// the header.
#[derive(Debug, Default)]
struct Options {
    /// The PLA option's.
    pla: Option<Range<usize>>,
    /// The Jumbo Payload option's.
    jumbo: Option<Range<usize>>,
}

/// The options of the Hop-by-Hop header `h`, each checked to fit it.
fn read_options(h: &[u8]) -> Result<Options, Malformed> {
    let mut found = Options::default();
    let mut at = 2;
    while at < h.len() {
        let kind = h[at];
        if kind == PAD1 {
            at += 1;
            continue;
        }
        let Some(&len) = h.get(at + 1) else {
            return Err(Malformed("Hop-by-Hop option: truncated"));
        };
        let data = at + 2..at + 2 + usize::from(len);
        if data.end > h.len() {
            return Err(Malformed("Hop-by-Hop option length: beyond its header"));
        }
        let (slot, twice) = match kind {
            OPTION_TYPE => (&mut found.pla, "PLA option: more than one"),
            JUMBO => (&mut found.jumbo, "Jumbo Payload option: more than one"),
            _ => {
                at = data.end;
                continue;
            }
        };
        if slot.replace(data.clone()).is_some() {
            return Err(Malformed(twice));
        }
        at = data.end;
    }
    Ok(found)
}

/// The Jumbo Payload Length of the jumbogram whose Hop-by-Hop header starts `rest`
/// (RFC 2675 §2–3): the octets after the fixed IPv6 header.
fn jumbo_length(rest: &[u8]) -> Result<usize, Malformed> {
    let h = Ipv6RawExtHeaderSlice::from_slice(rest)
        .map_err(|_| Malformed("Hop-by-Hop header: runs past the packet"))?;
    let Some(data) = read_options(h.slice())?.jumbo else {
        return Err(Malformed(
            "IPv6 Payload Length: 0 without a Jumbo Payload option",
        ));
    };
    let value: [u8; 4] = h.slice()[data]
        .try_into()
        .map_err(|_| Malformed("Jumbo Payload option: length not 4"))?;
    let len = u32::from_be_bytes(value);
    if len <= u32::from(u16::MAX) {
        return Err(Malformed("Jumbo Payload Length: 65,535 or less"));
    }
    usize::try_from(len).map_err(|_| Malformed("Jumbo Payload Length: beyond the packet"))
}

/// Why [`add_option`] leaves a packet as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unsignable {
    /// The packet does not parse.
    #[error("malformed IPv6 packet: {0}")]
    Malformed(Malformed),
    /// A jumbogram (RFC 2675): the covered octets are defined by Payload Length,
    /// which a jumbogram does not use.
    #[error("a jumbogram (RFC 2675)")]
    Jumbogram,
    /// It already carries a PLA option.
    #[error("already carries a PLA option")]
    AlreadySigned,
    /// A Routing header follows: its fields change en route.
    #[error("has a Routing header")]
    RoutingHeader,
    /// The packet would exceed 65,535 octets of payload with the option.
    #[error("too large for the option: over 65,535 octets of payload")]
    TooLarge,
}

/// `packet` (a parsed IPv6 packet) with a PLA option of `data_len` zero octets added
/// to its Hop-by-Hop header (created if there is none), Payload Length fixed; and
/// where the option's data sits in the result, for the sender to fill in.
///
/// # Errors
/// [`Unsignable`] for a packet a sender leaves unsigned (`docs/spec/pla.md`, "Not
/// signed").
pub fn add_option(
    packet: &Ipv6Packet<'_>,
    data_len: u8,
) -> Result<(Vec<u8>, Range<usize>), Unsignable> {
    if packet.jumbo {
        return Err(Unsignable::Jumbogram);
    }
    if packet.pla.is_some() {
        return Err(Unsignable::AlreadySigned);
    }
    if packet.routing {
        return Err(Unsignable::RoutingHeader);
    }
    let bytes = packet.bytes;
    // The Hop-by-Hop header as it will be: Next Header, length, old options.
    let (mut hbh, rest_at) = match &packet.hop_by_hop {
        Some(range) => {
            // The options as they are, without trailing padding: appended to, the
            // header gets fresh padding, and no run of padding grows past 7 octets
            // (which Linux drops, RFC 4942 §2.1.9.5).
            let old = &bytes[range.clone()];
            let mut h = old[..options_end(old)].to_vec();
            h[1] = 0;
            (h, range.end)
        }
        None => (vec![bytes[6], 0], IPV6_HEADER),
    };
    let align = (ALIGN.1 + ALIGN.0 - hbh.len() % ALIGN.0) % ALIGN.0;
    pad(&mut hbh, align);
    hbh.extend_from_slice(&[OPTION_TYPE, data_len]);
    let data = hbh.len()..hbh.len() + usize::from(data_len);
    hbh.resize(data.end, 0);
    let to_eight = (8 - hbh.len() % 8) % 8;
    pad(&mut hbh, to_eight);
    let units = hbh.len() / 8 - 1;
    hbh[1] = u8::try_from(units).map_err(|_| Unsignable::TooLarge)?;
    let payload_len = bytes.len() - rest_at + hbh.len();
    let payload_len = u16::try_from(payload_len).map_err(|_| Unsignable::TooLarge)?;

    let mut out = Vec::with_capacity(IPV6_HEADER + usize::from(payload_len));
    out.extend_from_slice(&bytes[..IPV6_HEADER]);
    out[4..6].copy_from_slice(&payload_len.to_be_bytes());
    out[6] = HOP_BY_HOP;
    out.extend_from_slice(&hbh);
    out.extend_from_slice(&bytes[rest_at..]);
    let data = IPV6_HEADER + data.start..IPV6_HEADER + data.end;
    Ok((out, data))
}

/// Where the options of the Hop-by-Hop header `h` (well formed: [`read_options`] read
/// it) end once trailing Pad1 and PadN are left out.
fn options_end(h: &[u8]) -> usize {
    let (mut at, mut end) = (2, 2);
    while at < h.len() {
        if h[at] == PAD1 {
            at += 1;
            continue;
        }
        let next = at + 2 + usize::from(h.get(at + 1).copied().unwrap_or(0));
        if h[at] != PADN {
            end = next.min(h.len());
        }
        at = next;
    }
    end
}

/// Appends `n` octets of padding: Pad1 for one, PadN for more (RFC 8200 §4.2).
fn pad(h: &mut Vec<u8>, n: usize) {
    match n {
        0 => {}
        1 => h.push(PAD1),
        _ => {
            h.extend_from_slice(&[PADN, (n - 2) as u8]);
            h.resize(h.len() + n - 2, 0);
        }
    }
}
