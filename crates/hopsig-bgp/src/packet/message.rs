//! A whole BGP message: header and body (RFC 4271 §4).
//!
//! KEEPALIVE (§4.4) is a header alone, Length 19. ROUTE-REFRESH (RFC 2918, type 5) is
//! not implemented and reads as an unknown type.

use hopsig_primitives::codec::{self, Reader, Writer};

use super::attribute::AsWidth;
use super::error::{EncodeError, HeaderError, MessageError};
use super::header::{Header, HEADER_LEN};
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
        let mut r = Reader::new(bytes);
        let header = Header::read(&mut r).map_err(MessageError::Header)?;
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
        let mut body = Writer::new();
        match self {
            Message::Open(o) => o.encode(&mut body)?,
            Message::Update(u) => u.encode(&mut body, width)?,
            Message::Notification(n) => n.encode(&mut body),
            Message::Keepalive => {}
        }
        let body = body.into_bytes();
        let length = HEADER_LEN + body.len();
        let header = Header::new(length, self.message_type()).map_err(|_| {
            codec::EncodeError::OutOfRange {
                field: "message length",
                actual: length as u64,
                min: HEADER_LEN as u64,
                max: super::header::MAX_MESSAGE_LEN as u64,
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
        let mut w = Writer::new();
        self.encode(&mut w, width)?;
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
