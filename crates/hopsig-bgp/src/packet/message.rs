//! A whole BGP message: header and body (RFC 4271 §4).
//!
//! KEEPALIVE (§4.4) is a header alone, Length 19. ROUTE-REFRESH (RFC 2918, type 5) is
//! not implemented and reads as an unknown type.

use hopsig_primitives::codec::{self, Reader, Writer};

use super::attribute::AsWidth;
use super::error::{EncodeError, HeaderError, MessageError};
use super::header::{Header, HEADER_LEN, MAX_MESSAGE_LEN};
use super::iana::MessageType;
use super::notification::Notification;
use super::open::Open;
use super::update::Update;

/// A BGP message.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Message<'a> {
    /// OPEN.
    Open(Open<'a>),
    /// UPDATE.
    Update(Update<'a>),
    /// NOTIFICATION.
    Notification(Notification<'a>),
    /// KEEPALIVE.
    Keepalive,
}

impl<'a> Message<'a> {
    /// The message type.
    pub fn message_type(&self) -> MessageType {
        match self {
            Message::Open(_) => MessageType::Open,
            Message::Update(_) => MessageType::Update,
            Message::Notification(_) => MessageType::Notification,
            Message::Keepalive => MessageType::Keepalive,
        }
    }

    /// Decodes one whole message — `bytes` must be exactly Length octets, as a speaker
    /// has it after reading the header and then Length − 19 octets, or as an MRT
    /// BGP4MP record holds it. AS_PATH AS numbers are `width` wide.
    ///
    /// # Errors
    /// [`MessageError`], whose [`MessageError::action`] and
    /// [`MessageError::notification`] say what to do. `bytes` shorter or longer than
    /// the header's Length is [`HeaderError::Framing`].
    pub fn decode(bytes: &'a [u8], width: AsWidth) -> Result<Message<'a>, MessageError> {
        Message::decode_max(bytes, width, MAX_MESSAGE_LEN)
    }

    /// [`Message::decode`] on a session whose messages may be `max` octets long
    /// ([`Header::read_max`]: up to 65,535 once the Extended Message capability was
    /// negotiated, RFC 8654 §4).
    ///
    /// # Errors
    /// As [`Message::decode`].
    pub fn decode_max(
        bytes: &'a [u8],
        width: AsWidth,
        max: usize,
    ) -> Result<Message<'a>, MessageError> {
        let mut r = Reader::new(bytes);
        let header = Header::read_max(&mut r, max).map_err(MessageError::Header)?;
        let body = r
            .take(header.length() - HEADER_LEN, "message body")
            .map_err(|e| MessageError::Header(HeaderError::Framing(e)))?;
        r.finish("BGP message")
            .map_err(|e| MessageError::Header(HeaderError::Framing(e)))?;
        Ok(match header.message_type() {
            MessageType::Open => Message::Open(Open::decode(body).map_err(MessageError::Open)?),
            MessageType::Update => {
                Message::Update(Update::decode(body, width).map_err(MessageError::Update)?)
            }
            MessageType::Notification => Message::Notification(
                Notification::decode(body).map_err(MessageError::Notification)?,
            ),
            MessageType::Keepalive => Message::Keepalive,
        })
    }

    /// Appends the message, header included, AS_PATH AS numbers `width` wide.
    ///
    /// # Errors
    /// As the body's encoder, and a message over 4096 octets (RFC 4271 §4.1).
    pub fn encode(&self, w: &mut Writer, width: AsWidth) -> Result<(), EncodeError> {
        self.encode_max(w, width, MAX_MESSAGE_LEN)
    }

    /// [`Message::encode`] toward a session whose messages may be `max` octets long
    /// (65,535 once both sides announced the Extended Message capability, RFC 8654
    /// §4; OPEN and KEEPALIVE stay within 4096).
    ///
    /// # Errors
    /// As [`Message::encode`], with `max` for 4096.
    pub fn encode_max(
        &self,
        w: &mut Writer,
        width: AsWidth,
        max: usize,
    ) -> Result<(), EncodeError> {
        let mut body = Writer::new();
        match self {
            Message::Open(o) => o.encode(&mut body)?,
            Message::Update(u) => u.encode(&mut body, width)?,
            Message::Notification(n) => n.encode(&mut body),
            Message::Keepalive => {}
        }
        let body = body.into_bytes();
        let length = HEADER_LEN + body.len();
        let header = Header::new_max(length, self.message_type(), max).map_err(|_| {
            codec::EncodeError::OutOfRange {
                field: "message length",
                actual: length as u64,
                min: HEADER_LEN as u64,
                max: max as u64,
            }
        })?;
        header.encode(w);
        w.bytes(&body);
        Ok(())
    }

    /// The encoding as a byte string.
    ///
    /// # Errors
    /// As [`Message::encode`].
    pub fn encoding(&self, width: AsWidth) -> Result<Vec<u8>, EncodeError> {
        self.encoding_max(width, MAX_MESSAGE_LEN)
    }

    /// [`Message::encode_max`]'s byte string.
    ///
    /// # Errors
    /// As [`Message::encode_max`].
    pub fn encoding_max(&self, width: AsWidth, max: usize) -> Result<Vec<u8>, EncodeError> {
        let mut w = Writer::new();
        self.encode_max(&mut w, width, max)?;
        Ok(w.into_bytes())
    }

    /// The same message owning its octets.
    pub fn into_owned(self) -> Message<'static> {
        match self {
            Message::Open(o) => Message::Open(o.into_owned()),
            Message::Update(u) => Message::Update(u.into_owned()),
            Message::Notification(n) => Message::Notification(n.into_owned()),
            Message::Keepalive => Message::Keepalive,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::packet::error::Action;
    use hopsig_primitives::codec::DecodeError;

    fn framed(t: u8, body: &[u8]) -> Vec<u8> {
        let mut v = vec![0xff; 16];
        v.extend_from_slice(&((body.len() + HEADER_LEN) as u16).to_be_bytes());
        v.push(t);
        v.extend_from_slice(body);
        v
    }

    #[test]
    fn notification_message_on_commented_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // marker
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0x00, 0x15,                                     // length 21
            0x03,                                           // NOTIFICATION
            0x04, 0x00,                                     // Hold Timer Expired, subcode 0
        ];
        let m = Message::decode(&bytes, AsWidth::Four).unwrap();
        assert!(matches!(&m, Message::Notification(n) if n.code == 4 && n.data.is_empty()));
        assert_eq!(m.encoding(AsWidth::Four).unwrap(), bytes);
    }

    #[test]
    fn errors_say_what_to_send() {
        // Bytes beyond Length: the caller's framing, nothing to send.
        let mut v = framed(4, &[]);
        v.push(0);
        let e = Message::decode(&v, AsWidth::Four).unwrap_err();
        assert!(matches!(
            e,
            MessageError::Header(HeaderError::Framing(DecodeError::TrailingBytes { .. }))
        ));
        assert!(e.notification().is_none());
        // A bad OPEN: OPEN Message Error, Unsupported Version Number.
        let mut open = vec![3, 0, 1, 0, 90, 10, 0, 0, 1, 0];
        let e = Message::decode(&framed(1, &open), AsWidth::Four).unwrap_err();
        assert_eq!(e.action(), Action::SessionReset);
        let n = e.notification().unwrap();
        assert_eq!((n.code, n.subcode, &n.data[..]), (2, 1, &[0, 4][..]));
        open[0] = 4;
        assert!(Message::decode(&framed(1, &open), AsWidth::Four).is_ok());
        // A NOTIFICATION cannot be answered with one (RFC 4271 §6.4); a one-octet body
        // is caught by the header's minimum length already.
        let e = Message::decode(&framed(3, &[6]), AsWidth::Four).unwrap_err();
        assert_eq!(e, MessageError::Header(HeaderError::BadLength(20)));
        // An UPDATE over 4096 octets does not encode.
        let big = Update {
            withdrawn: (0..1100)
                .map(|i: u32| {
                    crate::packet::Prefix::new(std::net::Ipv4Addr::from(i << 8).into(), 24).unwrap()
                })
                .collect(),
            ..Update::default()
        };
        assert!(Message::Update(big.clone())
            .encoding(AsWidth::Four)
            .is_err());
        // RFC 8654 §4: with the Extended Message capability it encodes and decodes.
        let max = super::super::header::MAX_EXTENDED_MESSAGE_LEN;
        let bytes = Message::Update(big)
            .encoding_max(AsWidth::Four, max)
            .unwrap();
        assert!(bytes.len() > 4096, "{}", bytes.len());
        assert!(Message::decode_max(&bytes, AsWidth::Four, max).is_ok());
        // Received on a session without it: Bad Message Length (§4).
        let e = Message::decode(&bytes, AsWidth::Four).unwrap_err();
        let n = e.notification().unwrap();
        assert_eq!((n.code, n.subcode), (1, 2));
    }
}
