//! The few DER elements router keys need read by hand (X.690 §8, §10): the outer
//! shape of a SubjectPublicKeyInfo (for its SKI) and the RFC 3779 AS identifiers of a
//! router certificate, which no maintained Rust X.509 crate decodes. Definite lengths
//! only, in their minimal form, as DER requires.

use hopsig_primitives::codec::{DecodeError, Reader};

fn invalid(field: &'static str, reason: &'static str) -> DecodeError {
    DecodeError::Invalid { field, reason }
}

/// Reads one TLV of a single-octet tag; returns its tag and contents.
pub(super) fn any<'a>(
    r: &mut Reader<'a>,
    field: &'static str,
) -> Result<(u8, &'a [u8]), DecodeError> {
    let tag = r.u8(field)?;
    if tag & 0x1f == 0x1f {
        return Err(invalid(field, "multi-octet DER tag"));
    }
    let first = r.u8(field)?;
    let len = match first {
        0..=0x7f => usize::from(first),
        0x81..=0x84 => {
            let octets = r.take(usize::from(first & 0x7f), field)?;
            let len = octets
                .iter()
                .fold(0usize, |n, &b| (n << 8) | usize::from(b));
            if octets[0] == 0 || len < 0x80 {
                return Err(invalid(field, "DER length not minimal"));
            }
            len
        }
        0x80 => return Err(invalid(field, "indefinite length is not DER")),
        _ => return Err(invalid(field, "unsupported DER length")),
    };
    Ok((tag, r.take(len, field)?))
}

/// Reads one TLV that must have tag `tag`; returns its contents.
pub(super) fn der<'a>(
    r: &mut Reader<'a>,
    tag: u8,
    field: &'static str,
) -> Result<&'a [u8], DecodeError> {
    match any(r, field)? {
        (found, contents) if found == tag => Ok(contents),
        _ => Err(invalid(field, "unexpected DER tag")),
    }
}

/// The contents of a DER INTEGER as an AS number: non-negative, minimal, at most
/// 2³² − 1 (RFC 3779 §3.2.3.8: ASId ::= INTEGER, a 4-octet AS number).
pub(super) fn as_number(contents: &[u8], field: &'static str) -> Result<u32, DecodeError> {
    match contents {
        [] => Err(invalid(field, "empty INTEGER")),
        [first, ..] if first & 0x80 != 0 => Err(invalid(field, "negative INTEGER")),
        [0, second, ..] if second & 0x80 == 0 => Err(invalid(field, "INTEGER not minimal")),
        _ => {
            let digits = contents.strip_prefix(&[0]).unwrap_or(contents);
            if digits.len() > 4 {
                return Err(invalid(field, "AS number above 4294967295"));
            }
            Ok(digits.iter().fold(0u32, |n, &b| (n << 8) | u32::from(b)))
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn as_numbers_are_minimal_non_negative_32_bit_integers() {
        for (bytes, want) in [
            (&[0x00][..], 0),
            (&[0x7f], 127),
            (&[0x00, 0x80], 128),
            (&[0x01, 0x00], 256),
            (&[0x00, 0xff, 0xff, 0xff, 0xff], u32::MAX),
            (&[0x00, 0xfb, 0xf0], 64_496),
        ] {
            assert_eq!(as_number(bytes, "ASId").unwrap(), want, "{bytes:02x?}");
        }
        for bad in [
            &[][..],
            &[0x80],
            &[0x00, 0x7f],
            &[0x01, 0x00, 0x00, 0x00, 0x00],
            &[0x00, 0x00],
        ] {
            assert!(as_number(bad, "ASId").is_err(), "{bad:02x?}");
        }
    }

    #[test]
    fn lengths_must_be_definite_and_minimal() {
        assert_eq!(
            any(&mut Reader::new(&[0x02, 0x01, 0x05]), "x").unwrap(),
            (0x02, &[0x05][..])
        );
        for bad in [
            &[0x02, 0x80, 0x05, 0x00, 0x00][..],
            &[0x02, 0x81, 0x01, 0x05],
            &[0x02, 0x82, 0x00, 0x81],
            &[0x1f, 0x01, 0x00],
            &[0x02, 0x02, 0x05],
            &[0x02],
        ] {
            assert!(any(&mut Reader::new(bad), "x").is_err(), "{bad:02x?}");
        }
    }
}
