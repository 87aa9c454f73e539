//! An IP address prefix as the Withdrawn Routes and NLRI fields (RFC 4271 §4.3) and
//! MP_REACH_NLRI / MP_UNREACH_NLRI (RFC 4760 §5) carry it.
//!
//! ```text
//! +---------------------------+
//! |   Length (1 octet)        |   prefix length in bits
//! +---------------------------+
//! |   Prefix (variable)       |   ceil(Length / 8) octets
//! +---------------------------+
//! ```
//!
//! **Trailing bits.** The octets hold the prefix "followed by the minimum number of
//! trailing bits needed to make the end of the field fall on an octet boundary. Note
//! that the value of the trailing bits is irrelevant" (RFC 4271 §4.3; RFC 4760 §5 says
//! the same). RFC 7606 §5.3 lists what makes an NLRI field syntactically incorrect — a
//! length beyond the address size, or one running past the field — and nonzero
//! trailing bits are not on that list. So the decoder accepts them, and it keeps them:
//! [`Prefix::addr`] is the address as received, so re-encoding gives back the received
//! octets (the codec is byte-exact), while [`Prefix::network`] zeroes them — the form
//! the BGPsec signature input requires (RFC 8205 §4.2, §5.2 step 3: "all of the
//! trailing bits MUST be set to 0 when constructing this sequence") and the form route
//! selection should use. [`Prefix::new`] zeroes them, so a prefix hopsig builds never
//! has them.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use hopsig_primitives::codec::{DecodeError, Reader, Writer};

use super::iana::Afi;

/// An IPv4 or IPv6 prefix: an address and a length in bits, at most the address size.
/// The bits of the address past the last octet of the prefix are always zero; bits
/// inside that octet past the length ("trailing bits") are kept as received.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Prefix {
    addr: IpAddr,
    length: u8,
}

impl Prefix {
    /// The prefix `addr/length` with every bit of `addr` past `length` cleared.
    ///
    /// # Errors
    /// [`DecodeError::OutOfRange`] for a length beyond the address size.
    pub fn new(addr: IpAddr, length: u8) -> Result<Prefix, DecodeError> {
        let afi = afi_of(addr);
        check_length(afi, length)?;
        Ok(Prefix { addr, length }.network())
    }

    /// The address as received, trailing bits included.
    pub fn addr(&self) -> IpAddr {
        self.addr
    }

    /// The prefix length in bits.
    pub fn length(&self) -> u8 {
        self.length
    }

    /// IPv4 or IPv6.
    pub fn afi(&self) -> Afi {
        afi_of(self.addr)
    }

    /// The same prefix with its trailing bits zeroed (RFC 8205 §4.2).
    pub fn network(&self) -> Prefix {
        let addr = match self.addr {
            IpAddr::V4(a) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.length))
                    .unwrap_or(0);
                IpAddr::V4(Ipv4Addr::from(u32::from(a) & mask))
            }
            IpAddr::V6(a) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.length))
                    .unwrap_or(0);
                IpAddr::V6(Ipv6Addr::from(u128::from(a) & mask))
            }
        };
        Prefix {
            addr,
            length: self.length,
        }
    }

    /// Whether any trailing bit is set (the prefix differs from [`Prefix::network`]).
    pub fn has_trailing_bits(&self) -> bool {
        self.network() != *self
    }

    /// Number of octets the prefix field takes: `ceil(length / 8)`.
    pub fn octet_count(&self) -> usize {
        usize::from(self.length).div_ceil(8)
    }

    /// Reads one prefix of family `afi`.
    ///
    /// # Errors
    /// [`DecodeError::OutOfRange`] for a length beyond the address size (RFC 7606
    /// §5.3), [`DecodeError::ShortInput`] if the prefix runs past the input.
    pub fn read(r: &mut Reader<'_>, afi: Afi) -> Result<Prefix, DecodeError> {
        let length = r.u8("prefix length")?;
        check_length(afi, length)?;
        let octets = r.take(usize::from(length).div_ceil(8), "prefix")?;
        let addr = match afi {
            Afi::Ipv4 => {
                let mut a = [0u8; 4];
                a[..octets.len()].copy_from_slice(octets);
                IpAddr::V4(Ipv4Addr::from(a))
            }
            Afi::Ipv6 => {
                let mut a = [0u8; 16];
                a[..octets.len()].copy_from_slice(octets);
                IpAddr::V6(Ipv6Addr::from(a))
            }
        };
        Ok(Prefix { addr, length })
    }

    /// Appends the length and the `ceil(length / 8)` octets, trailing bits as held.
    pub fn encode(&self, w: &mut Writer) {
        w.u8(self.length);
        let n = self.octet_count();
        match self.addr {
            IpAddr::V4(a) => w.bytes(&a.octets()[..n]),
            IpAddr::V6(a) => w.bytes(&a.octets()[..n]),
        }
    }
}

impl fmt::Display for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.length)
    }
}

fn afi_of(addr: IpAddr) -> Afi {
    match addr {
        IpAddr::V4(_) => Afi::Ipv4,
        IpAddr::V6(_) => Afi::Ipv6,
    }
}

fn check_length(afi: Afi, length: u8) -> Result<(), DecodeError> {
    let max = afi.address_bits();
    if length > max {
        return Err(DecodeError::OutOfRange {
            field: "prefix length",
            actual: u64::from(length),
            min: 0,
            max: u64::from(max),
        });
    }
    Ok(())
}

/// Reads prefixes of family `afi` until `bytes` ends (a Withdrawn Routes or NLRI field,
/// or the tail of MP_REACH_NLRI / MP_UNREACH_NLRI).
///
/// # Errors
/// As [`Prefix::read`], for the first prefix at fault.
pub fn read_prefixes(bytes: &[u8], afi: Afi) -> Result<Vec<Prefix>, DecodeError> {
    let mut r = Reader::new(bytes);
    // Every prefix takes at least one octet, so this bounds the allocation.
    let mut out = Vec::with_capacity(bytes.len().min(64));
    while r.remaining() > 0 {
        out.push(Prefix::read(&mut r, afi)?);
    }
    Ok(out)
}

/// Appends prefixes one after the other.
pub fn encode_prefixes(prefixes: &[Prefix], w: &mut Writer) {
    for p in prefixes {
        p.encode(w);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn encode(p: &Prefix) -> Vec<u8> {
        let mut w = Writer::new();
        p.encode(&mut w);
        w.into_bytes()
    }

    #[test]
    fn ipv4_prefix_on_commented_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0x18,             // length 24 bits
            0xc0, 0x00, 0x02, // 192.0.2 (three octets, no trailing bits)
        ];
        let p = Prefix::read(&mut Reader::new(&bytes), Afi::Ipv4).unwrap();
        assert_eq!(p.to_string(), "192.0.2.0/24");
        assert_eq!(p.afi(), Afi::Ipv4);
        assert!(!p.has_trailing_bits());
        assert_eq!(encode(&p), bytes);
        assert_eq!(p, Prefix::new("192.0.2.77".parse().unwrap(), 24).unwrap());
    }

    #[test]
    fn ipv6_prefix_and_the_default_route() {
        #[rustfmt::skip]
        let bytes = [
            0x20,                   // length 32 bits
            0x20, 0x01, 0x0d, 0xb8, // 2001:db8
            0x00,                   // length 0: the default route, no octets
        ];
        let ps = read_prefixes(&bytes, Afi::Ipv6).unwrap();
        assert_eq!(ps.len(), 2);
        assert_eq!(ps[0].to_string(), "2001:db8::/32");
        assert_eq!(ps[1].to_string(), "::/0");
        let mut w = Writer::new();
        encode_prefixes(&ps, &mut w);
        assert_eq!(w.into_bytes(), bytes);
    }

    #[test]
    fn trailing_bits_are_kept_as_received_and_zeroed_by_network() {
        #[rustfmt::skip]
        let bytes = [
            0x09,       // length 9 bits: two octets
            0x0a, 0xff, // 10.255: the last seven bits are trailing bits, all set
        ];
        let p = Prefix::read(&mut Reader::new(&bytes), Afi::Ipv4).unwrap();
        assert!(p.has_trailing_bits());
        assert_eq!(p.addr(), "10.255.0.0".parse::<IpAddr>().unwrap());
        assert_eq!(encode(&p), bytes, "re-encoding keeps the received octets");
        assert_eq!(p.network().to_string(), "10.128.0.0/9");
        assert_eq!(encode(&p.network()), [0x09, 0x0a, 0x80]);
    }

    #[test]
    fn lengths_beyond_the_address_and_overruns_are_rejected() {
        assert_eq!(
            Prefix::read(&mut Reader::new(&[33, 1, 2, 3, 4, 5]), Afi::Ipv4),
            Err(DecodeError::OutOfRange {
                field: "prefix length",
                actual: 33,
                min: 0,
                max: 32
            })
        );
        assert!(Prefix::read(&mut Reader::new(&[129; 17]), Afi::Ipv6).is_err());
        assert!(Prefix::read(&mut Reader::new(&[128; 17]), Afi::Ipv6).is_ok());
        assert_eq!(
            read_prefixes(&[0x18, 0xc0, 0x00], Afi::Ipv4),
            Err(DecodeError::ShortInput {
                field: "prefix",
                needed: 3,
                available: 2
            })
        );
        assert!(Prefix::new("10.0.0.0".parse().unwrap(), 33).is_err());
    }
}
