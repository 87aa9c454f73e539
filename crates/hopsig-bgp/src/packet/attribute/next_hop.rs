//! NEXT_HOP attribute value (RFC 4271 §4.3 c, §5.1.3): an IPv4 address.
//!
//! ```text
//! +-------------------------------+
//! |  IPv4 address (4 octets)      |
//! +-------------------------------+
//! ```
//!
//! Malformed if its length is not 4 (RFC 7606 §7.3: treat-as-withdraw). The semantic
//! checks of RFC 4271 §6.3 (not the receiver's own address, a martian) depend on the
//! session and are the speaker's.

use std::net::Ipv4Addr;

use hopsig_primitives::codec::{DecodeError, Reader, Writer};

/// Decodes a NEXT_HOP value.
///
/// # Errors
/// [`DecodeError::ShortInput`] or [`DecodeError::TrailingBytes`] unless 4 octets.
pub fn decode(value: &[u8]) -> Result<Ipv4Addr, DecodeError> {
    let mut r = Reader::new(value);
    let a = r.array::<4>("NEXT_HOP")?;
    r.finish("NEXT_HOP")?;
    Ok(Ipv4Addr::from(a))
}

/// Appends a NEXT_HOP value.
pub fn encode(next_hop: Ipv4Addr, w: &mut Writer) {
    w.bytes(&next_hop.octets());
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn next_hop_on_commented_bytes() {
        let bytes = [0xc6, 0x33, 0x64, 0x64]; // 198.51.100.100
        let a = decode(&bytes).unwrap();
        assert_eq!(a, Ipv4Addr::new(198, 51, 100, 100));
        let mut w = Writer::new();
        encode(a, &mut w);
        assert_eq!(w.into_bytes(), bytes);
        assert!(decode(&bytes[..3]).is_err());
        assert!(decode(&[1, 2, 3, 4, 5]).is_err());
    }
}
