//! NOTIFICATION message (RFC 4271 §4.5).
//!
//! ```text
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! | Error code    | Error subcode |   Data (variable)             |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! ```
//!
//! Codes and subcodes are kept as raw octets, so a NOTIFICATION with a code hopsig
//! does not know still decodes (the session closes either way); [`ErrorCode`] names
//! the known ones.

use std::borrow::Cow;

use hopsig_primitives::codec::{DecodeError, Reader, Writer};

use super::iana::ErrorCode;

/// A NOTIFICATION: error code, subcode and data, as sent.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Notification<'a> {
    /// Error code ([`ErrorCode`] for the known ones).
    pub code: u8,
    /// Error subcode, meaningful per code (0 where a code has none).
    pub subcode: u8,
    /// Data, whose meaning depends on code and subcode (RFC 4271 §6).
    pub data: Cow<'a, [u8]>,
}

impl Notification<'_> {
    /// A NOTIFICATION with a known code.
    pub fn new(code: ErrorCode, subcode: u8, data: Vec<u8>) -> Notification<'static> {
        Notification {
            code: u8::from(code),
            subcode,
            data: Cow::Owned(data),
        }
    }

    /// The error code, if hopsig knows it.
    ///
    /// # Errors
    /// [`DecodeError::UnknownCode`] for a code outside RFC 4271 / RFC 7313.
    pub fn error_code(&self) -> Result<ErrorCode, DecodeError> {
        ErrorCode::try_from(self.code)
    }

    /// Decodes the body of a NOTIFICATION (the octets after the message header).
    ///
    /// # Errors
    /// [`DecodeError::ShortInput`] for a body shorter than code and subcode.
    pub fn decode(body: &[u8]) -> Result<Notification<'_>, DecodeError> {
        let mut r = Reader::new(body);
        let code = r.u8("NOTIFICATION error code")?;
        let subcode = r.u8("NOTIFICATION error subcode")?;
        let data = r.take(r.remaining(), "NOTIFICATION data")?;
        Ok(Notification {
            code,
            subcode,
            data: Cow::Borrowed(data),
        })
    }

    /// Appends the body. The message length (at most 4096 in all) is checked where
    /// the header is written.
    pub fn encode(&self, w: &mut Writer) {
        w.u8(self.code);
        w.u8(self.subcode);
        w.bytes(&self.data);
    }

    /// The same NOTIFICATION owning its data.
    pub fn into_owned(self) -> Notification<'static> {
        Notification {
            code: self.code,
            subcode: self.subcode,
            data: Cow::Owned(self.data.into_owned()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::packet::iana::CeaseSubcode;

    #[test]
    fn notification_on_commented_bytes() {
        #[rustfmt::skip]
        let body = [
            0x06,       // Cease
            0x02,       // Administrative Shutdown (RFC 4486)
            0x03, b'b', b'y', b'e', // data: an RFC 8203 shutdown communication
        ];
        let n = Notification::decode(&body).unwrap();
        assert_eq!(n.error_code(), Ok(ErrorCode::Cease));
        assert_eq!(n.subcode, u8::from(CeaseSubcode::AdministrativeShutdown));
        assert_eq!(&n.data[..], b"\x03bye");
        let mut w = Writer::new();
        n.encode(&mut w);
        assert_eq!(w.into_bytes(), body);
    }

    #[test]
    fn unknown_codes_decode_and_short_bodies_do_not() {
        let n = Notification::decode(&[0x63, 0x00]).unwrap();
        assert!(n.error_code().is_err());
        assert!(n.data.is_empty());
        assert!(matches!(
            Notification::decode(&[0x06]),
            Err(DecodeError::ShortInput { .. })
        ));
    }
}
