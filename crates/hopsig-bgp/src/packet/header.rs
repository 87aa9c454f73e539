//! BGP message header (RFC 4271 §4.1).
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                                                               |
//! +                                                               +
//! |                           Marker                              |
//! +                                                               +
//! |                                                               |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |          Length               |      Type     |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! ```
//!
//! The marker is all ones; Length counts the whole message, header included, from 19
//! to 4096 (RFC 4271 §4.1), or to 65,535 on a session where both sides announced the
//! Extended Message capability (RFC 8654 §4: every message but OPEN and KEEPALIVE;
//! [`Header::read_max`]). 4096, or 65,535 so negotiated, also bounds a BGPsec UPDATE
//! (RFC 8205 §4.1: "MUST conform to BGP's maximum message size").

use hopsig_primitives::codec::{Reader, Writer};

use super::error::HeaderError;
use super::iana::MessageType;

/// Octets of the header.
pub const HEADER_LEN: usize = 19;
/// The largest BGP message (RFC 4271 §4.1).
pub const MAX_MESSAGE_LEN: usize = 4096;
/// The largest message on a session that negotiated the Extended Message capability
/// (RFC 8654 §4), OPEN and KEEPALIVE excepted (they stay within [`MAX_MESSAGE_LEN`]).
pub const MAX_EXTENDED_MESSAGE_LEN: usize = 65_535;

/// A decoded message header: the length of the whole message and its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header {
    length: u16,
    message_type: MessageType,
}

impl Header {
    /// A header for a message of `length` octets.
    ///
    /// # Errors
    /// [`HeaderError::BadLength`] as [`Header::read`] would report it.
    pub fn new(length: usize, message_type: MessageType) -> Result<Header, HeaderError> {
        Header::new_max(length, message_type, MAX_MESSAGE_LEN)
    }

    /// A header for a message of `length` octets on a session whose messages may be
    /// `max` octets long ([`MAX_MESSAGE_LEN`], or [`MAX_EXTENDED_MESSAGE_LEN`] once
    /// the Extended Message capability was negotiated, RFC 8654 §4).
    ///
    /// # Errors
    /// [`HeaderError::BadLength`] as [`Header::read_max`] would report it.
    pub fn new_max(
        length: usize,
        message_type: MessageType,
        max: usize,
    ) -> Result<Header, HeaderError> {
        let length = u16::try_from(length).map_err(|_| HeaderError::BadLength(u16::MAX))?;
        check_length(length, message_type, max)?;
        Ok(Header {
            length,
            message_type,
        })
    }

    /// Length of the whole message in octets.
    pub fn length(&self) -> usize {
        usize::from(self.length)
    }

    /// The message type.
    pub fn message_type(&self) -> MessageType {
        self.message_type
    }

    /// Reads a header (the first 19 octets of a message), as a speaker does before it
    /// reads the rest of the message from its stream.
    ///
    /// # Errors
    /// [`HeaderError::NotSynchronized`] for a marker not all ones,
    /// [`HeaderError::BadLength`] for a Length outside 19..=4096 or below the minimum of
    /// its type (OPEN 29, UPDATE 23, NOTIFICATION 21, KEEPALIVE exactly 19; RFC 4271
    /// §6.1), [`HeaderError::BadType`] for an unknown type, [`HeaderError::Framing`]
    /// for fewer than 19 octets.
    pub fn read(r: &mut Reader<'_>) -> Result<Header, HeaderError> {
        Header::read_max(r, MAX_MESSAGE_LEN)
    }

    /// [`Header::read`] on a session whose messages may be `max` octets long: up to
    /// [`MAX_EXTENDED_MESSAGE_LEN`] when both sides announced the Extended Message
    /// capability, except OPEN, still at most 4096 (RFC 8654 §4: the capability
    /// "applies to all messages except for the OPEN and KEEPALIVE messages"). A
    /// message over 4096 on a session without it is Bad Message Length (§4: the
    /// listener "will generate a NOTIFICATION with the Error Subcode set to Bad
    /// Message Length").
    ///
    /// # Errors
    /// As [`Header::read`], with `max` for 4096.
    pub fn read_max(r: &mut Reader<'_>, max: usize) -> Result<Header, HeaderError> {
        let marker = r.take(16, "marker").map_err(HeaderError::Framing)?;
        let length = r.u16_be("message length").map_err(HeaderError::Framing)?;
        let raw_type = r.u8("message type").map_err(HeaderError::Framing)?;
        if marker.iter().any(|&b| b != 0xff) {
            return Err(HeaderError::NotSynchronized);
        }
        if !(HEADER_LEN..=max).contains(&usize::from(length)) {
            return Err(HeaderError::BadLength(length));
        }
        let message_type =
            MessageType::try_from(raw_type).map_err(|_| HeaderError::BadType(raw_type))?;
        check_length(length, message_type, max)?;
        Ok(Header {
            length,
            message_type,
        })
    }

    /// Appends the header.
    pub fn encode(&self, w: &mut Writer) {
        w.bytes(&[0xff; 16]);
        w.u16_be(self.length);
        w.u8(u8::from(self.message_type));
    }
}

/// The RFC 4271 §6.1 length rules per message type, messages at most `max` octets
/// but OPEN at most 4096 (RFC 8654 §4).
fn check_length(length: u16, message_type: MessageType, max: usize) -> Result<(), HeaderError> {
    let len = usize::from(length);
    let ok = len <= max
        && match message_type {
            MessageType::Open => (29..=MAX_MESSAGE_LEN).contains(&len),
            MessageType::Update => len >= 23,
            MessageType::Notification => len >= 21,
            MessageType::Keepalive => len == HEADER_LEN,
        };
    if ok {
        Ok(())
    } else {
        Err(HeaderError::BadLength(length))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn header(length: u16, t: u8) -> Vec<u8> {
        let mut v = vec![0xff; 16];
        v.extend_from_slice(&length.to_be_bytes());
        v.push(t);
        v
    }

    #[test]
    fn keepalive_header_on_commented_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // marker: 16 × 0xff
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0x00, 0x13,                                     // length 19
            0x04,                                           // KEEPALIVE
        ];
        let h = Header::read(&mut Reader::new(&bytes)).unwrap();
        assert_eq!(h.length(), 19);
        assert_eq!(h.message_type(), MessageType::Keepalive);
        let mut w = Writer::new();
        h.encode(&mut w);
        assert_eq!(w.into_bytes(), bytes);
    }

    #[test]
    fn rfc_4271_section_6_1_errors() {
        let mut bad_marker = header(19, 4);
        bad_marker[3] = 0xfe;
        assert_eq!(
            Header::read(&mut Reader::new(&bad_marker)),
            Err(HeaderError::NotSynchronized)
        );
        for (len, t) in [(18, 4), (4097, 2), (20, 4), (28, 1), (22, 2), (20, 3)] {
            assert_eq!(
                Header::read(&mut Reader::new(&header(len, t))),
                Err(HeaderError::BadLength(len)),
                "{len} {t}"
            );
        }
        for (len, t) in [(19, 4), (29, 1), (23, 2), (21, 3), (4096, 2)] {
            assert!(Header::read(&mut Reader::new(&header(len, t))).is_ok());
        }
        assert_eq!(
            Header::read(&mut Reader::new(&header(19, 5))),
            Err(HeaderError::BadType(5))
        );
        assert!(matches!(
            Header::read(&mut Reader::new(&[0xff; 18])),
            Err(HeaderError::Framing(_))
        ));
        let n = HeaderError::BadLength(4097).notification().unwrap();
        assert_eq!((n.code, n.subcode, &n.data[..]), (1, 2, &[0x10, 0x01][..]));
    }

    #[test]
    fn rfc_8654_extended_lengths() {
        let read =
            |len: u16, t: u8, max: usize| Header::read_max(&mut Reader::new(&header(len, t)), max);
        // Negotiated: UPDATE and NOTIFICATION up to 65,535 octets (§4).
        for (len, t) in [(4097, 2), (65_535, 2), (5000, 3)] {
            assert_eq!(
                read(len, t, MAX_EXTENDED_MESSAGE_LEN).unwrap().length(),
                usize::from(len)
            );
        }
        // OPEN and KEEPALIVE are not extended (§4).
        for (len, t) in [(4097, 1), (20, 4), (4097, 4)] {
            assert_eq!(
                read(len, t, MAX_EXTENDED_MESSAGE_LEN),
                Err(HeaderError::BadLength(len))
            );
        }
        // Not negotiated: over 4096 is Bad Message Length (§4), as RFC 4271 §6.1 says.
        assert_eq!(
            read(4097, 2, MAX_MESSAGE_LEN),
            Err(HeaderError::BadLength(4097))
        );
        assert_eq!(
            Header::new_max(65_535, MessageType::Update, MAX_EXTENDED_MESSAGE_LEN)
                .unwrap()
                .length(),
            65_535
        );
        assert!(Header::new_max(65_536, MessageType::Update, MAX_EXTENDED_MESSAGE_LEN).is_err());
        assert!(Header::new_max(4097, MessageType::Open, MAX_EXTENDED_MESSAGE_LEN).is_err());
        assert!(Header::new(4097, MessageType::Update).is_err());
    }
}
