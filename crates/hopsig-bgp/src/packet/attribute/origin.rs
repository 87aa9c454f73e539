//! ORIGIN attribute value (RFC 4271 §4.3 a, §5.1.1): one octet, [`Origin`].
//!
//! ```text
//! +---------------+
//! |    ORIGIN     |   0 IGP, 1 EGP, 2 INCOMPLETE
//! +---------------+
//! ```
//!
//! Malformed if its length is not 1 or its value undefined (RFC 7606 §7.1:
//! treat-as-withdraw).

pub use crate::packet::iana::Origin;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use hopsig_primitives::codec::{to_vec, Codec, DecodeError};

    #[test]
    fn origin_on_commented_bytes() {
        assert_eq!(Origin::decode(&[0x02]), Ok(Origin::Incomplete)); // INCOMPLETE
        assert_eq!(to_vec(&Origin::Igp), [0x00]); // IGP
        assert_eq!(
            Origin::decode(&[0x03]),
            Err(DecodeError::UnknownCode {
                field: "ORIGIN",
                value: 3
            })
        );
        assert!(matches!(
            Origin::decode(&[0x00, 0x00]),
            Err(DecodeError::TrailingBytes { .. })
        ));
        assert!(matches!(
            Origin::decode(&[]),
            Err(DecodeError::ShortInput { .. })
        ));
    }
}
