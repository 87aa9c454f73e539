//! MRT records (RFC 6396): the common header of every record (§2), and the BGP4MP
//! message records (§4.4.2, §4.4.3) that carry one whole BGP message each.
//!
//! ```text
//! Common header (§2), then for BGP4MP_ET (§3) a Microsecond Timestamp:
//!  0                   1                   2                   3
//!  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                           Timestamp                           |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |             Type              |            Subtype            |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |             Length (of what follows, microseconds included)   |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                Microsecond Timestamp (BGP4MP_ET only)         |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//!
//! BGP4MP_MESSAGE_AS4 (§4.4.3; BGP4MP_MESSAGE, §4.4.2, has 2-octet AS numbers):
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                         Peer AS Number                        |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                         Local AS Number                       |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |        Interface Index        |        Address Family         |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                Peer IP Address (4 or 16 octets)               |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                Local IP Address (4 or 16 octets)              |
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! |                    BGP Message... (variable)
//! +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//! ```
//!
//! The BGP message is the whole message, its 16-octet marker and header included
//! (§4.4.2: "the entire BGP message"). The `_LOCAL` subtypes (§4.4.4, §4.4.6) have the
//! same layout for messages the collector sent; [`Bgp4mpMessage::local`] keeps which.
//! Other record types and BGP4MP subtypes (state changes, ADD-PATH, RFC 8050) are
//! framed by [`MrtRecord`] and left to the caller.

use std::io::{ErrorKind, Read};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use hopsig_primitives::codec::{self, DecodeError, Reader, Writer};

use crate::packet::AsWidth;

/// MRT type BGP4MP (RFC 6396 §4.4).
pub const BGP4MP: u16 = 16;
/// MRT type BGP4MP_ET: BGP4MP with a microsecond timestamp (RFC 6396 §3, §4.4).
pub const BGP4MP_ET: u16 = 17;

/// BGP4MP subtypes that carry one BGP message (RFC 6396 §4.4; ADD-PATH ones, RFC
/// 8050, are not read here).
const MESSAGE: u16 = 1;
const MESSAGE_AS4: u16 = 4;
const MESSAGE_LOCAL: u16 = 6;
const MESSAGE_AS4_LOCAL: u16 = 7;

/// Octets of the common header.
pub const HEADER_LEN: usize = 12;

/// Largest record body read: 16 MiB. Every BGP4MP record is far smaller (a BGP
/// message is at most 65,535 octets, RFC 8654); a TABLE_DUMP_V2 RIB record of one
/// prefix stays well under it, and a Length above it is taken for a corrupt file
/// rather than allocated.
pub const MAX_RECORD_LEN: u32 = 16 << 20;

/// One MRT record: the common header's fields and the body that follows them (for
/// BGP4MP_ET, the body after the Microsecond Timestamp).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MrtRecord<'a> {
    /// Seconds since 1970-01-01 UTC.
    pub timestamp: u32,
    /// The Microsecond Timestamp of an `_ET` record.
    pub microseconds: Option<u32>,
    /// The Type field.
    pub mrt_type: u16,
    /// The Subtype field.
    pub subtype: u16,
    /// The message, after the header (and microseconds).
    pub body: &'a [u8],
}

impl<'a> MrtRecord<'a> {
    /// Reads one record.
    ///
    /// # Errors
    /// [`DecodeError::ShortInput`] for a record cut short, [`DecodeError::OutOfRange`]
    /// for a Length over [`MAX_RECORD_LEN`] or an `_ET` record too short for its
    /// microseconds.
    pub fn read(r: &mut Reader<'a>) -> Result<MrtRecord<'a>, DecodeError> {
        let timestamp = r.u32_be("MRT timestamp")?;
        let mrt_type = r.u16_be("MRT type")?;
        let subtype = r.u16_be("MRT subtype")?;
        let length = r.u32_be("MRT length")?;
        let min = if mrt_type == BGP4MP_ET { 4 } else { 0 };
        codec::check_range("MRT length", length.into(), min, MAX_RECORD_LEN.into())?;
        let mut body = Reader::new(r.take(length as usize, "MRT record")?);
        let microseconds = if mrt_type == BGP4MP_ET {
            Some(body.u32_be("MRT microsecond timestamp")?)
        } else {
            None
        };
        Ok(MrtRecord {
            timestamp,
            microseconds,
            mrt_type,
            subtype,
            body: body.take(body.remaining(), "MRT record")?,
        })
    }

    /// Appends the record: header, microseconds for `_ET`, body.
    ///
    /// # Errors
    /// [`codec::EncodeError::OutOfRange`] for a body over [`MAX_RECORD_LEN`];
    /// [`codec::EncodeError::Unrepresentable`] if `microseconds` is set for another
    /// type than BGP4MP_ET or missing for it.
    pub fn encode(&self, w: &mut Writer) -> Result<(), codec::EncodeError> {
        if (self.mrt_type == BGP4MP_ET) != self.microseconds.is_some() {
            return Err(codec::EncodeError::Unrepresentable {
                field: "MRT microsecond timestamp",
                reason: "present exactly in BGP4MP_ET records (RFC 6396 §3)",
            });
        }
        let extra = if self.microseconds.is_some() { 4 } else { 0 };
        let length = u32::try_from(self.body.len() + extra)
            .ok()
            .filter(|&l| l <= MAX_RECORD_LEN)
            .ok_or(codec::EncodeError::OutOfRange {
                field: "MRT length",
                actual: (self.body.len() + extra) as u64,
                min: 0,
                max: MAX_RECORD_LEN.into(),
            })?;
        w.u32_be(self.timestamp);
        w.u16_be(self.mrt_type);
        w.u16_be(self.subtype);
        w.u32_be(length);
        if let Some(us) = self.microseconds {
            w.u32_be(us);
        }
        w.bytes(self.body);
        Ok(())
    }
}

/// A BGP4MP message record: one BGP message and the session it was seen on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bgp4mpMessage<'a> {
    /// Seconds since 1970-01-01 UTC.
    pub timestamp: u32,
    /// Microseconds, for a BGP4MP_ET record.
    pub microseconds: Option<u32>,
    /// How wide the record's AS numbers are, and the AS_PATH's in the message:
    /// `BGP4MP_MESSAGE` 2 octets, `BGP4MP_MESSAGE_AS4` 4 (RFC 6396 §4.4.2, §4.4.3).
    pub width: AsWidth,
    /// Whether the collector sent the message (the `_LOCAL` subtypes) rather than
    /// received it.
    pub local: bool,
    /// The peer's AS number.
    pub peer_as: u32,
    /// The collector's AS number.
    pub local_as: u32,
    /// The Interface Index.
    pub interface_index: u16,
    /// The peer's address.
    pub peer_ip: IpAddr,
    /// The collector's address, of the same family.
    pub local_ip: IpAddr,
    /// The whole BGP message, header included.
    pub message: &'a [u8],
}

impl<'a> Bgp4mpMessage<'a> {
    /// The message of a BGP4MP or BGP4MP_ET record of subtype `BGP4MP_MESSAGE`,
    /// `_AS4`, `_LOCAL` or `_AS4_LOCAL`; `Ok(None)` for any other record.
    ///
    /// # Errors
    /// [`DecodeError`] for a body cut short or an Address Family other than 1 (IPv4)
    /// and 2 (IPv6).
    pub fn decode(record: &MrtRecord<'a>) -> Result<Option<Bgp4mpMessage<'a>>, DecodeError> {
        if record.mrt_type != BGP4MP && record.mrt_type != BGP4MP_ET {
            return Ok(None);
        }
        let (width, local) = match record.subtype {
            MESSAGE => (AsWidth::Two, false),
            MESSAGE_AS4 => (AsWidth::Four, false),
            MESSAGE_LOCAL => (AsWidth::Two, true),
            MESSAGE_AS4_LOCAL => (AsWidth::Four, true),
            _ => return Ok(None),
        };
        let mut r = Reader::new(record.body);
        let asn = |r: &mut Reader<'a>, field| match width {
            AsWidth::Two => r.u16_be(field).map(u32::from),
            AsWidth::Four => r.u32_be(field),
        };
        let peer_as = asn(&mut r, "BGP4MP peer AS")?;
        let local_as = asn(&mut r, "BGP4MP local AS")?;
        let interface_index = r.u16_be("BGP4MP interface index")?;
        let family = r.u16_be("BGP4MP address family")?;
        let ip = |r: &mut Reader<'a>, field| -> Result<IpAddr, DecodeError> {
            Ok(match family {
                1 => IpAddr::V4(Ipv4Addr::from(r.array::<4>(field)?)),
                _ => IpAddr::V6(Ipv6Addr::from(r.array::<16>(field)?)),
            })
        };
        codec::check_range("BGP4MP address family", family.into(), 1, 2)?;
        let peer_ip = ip(&mut r, "BGP4MP peer IP")?;
        let local_ip = ip(&mut r, "BGP4MP local IP")?;
        Ok(Some(Bgp4mpMessage {
            timestamp: record.timestamp,
            microseconds: record.microseconds,
            width,
            local,
            peer_as,
            local_as,
            interface_index,
            peer_ip,
            local_ip,
            message: r.take(r.remaining(), "BGP message")?,
        }))
    }

    /// Appends the whole record (common header included): type BGP4MP, or BGP4MP_ET
    /// with microseconds; the subtype from `width` and `local`.
    ///
    /// # Errors
    /// [`codec::EncodeError::Unrepresentable`] for peer and local addresses of
    /// different families, or an AS number over 65535 in a 2-octet record;
    /// [`codec::EncodeError::OutOfRange`] for a message over [`MAX_RECORD_LEN`].
    pub fn encode(&self, w: &mut Writer) -> Result<(), codec::EncodeError> {
        let family: u16 = match (self.peer_ip, self.local_ip) {
            (IpAddr::V4(_), IpAddr::V4(_)) => 1,
            (IpAddr::V6(_), IpAddr::V6(_)) => 2,
            _ => {
                return Err(codec::EncodeError::Unrepresentable {
                    field: "BGP4MP local IP",
                    reason: "peer and local addresses are of one family (RFC 6396 §4.4.2)",
                })
            }
        };
        let mut body = Writer::with_capacity(self.message.len() + 44);
        for asn in [self.peer_as, self.local_as] {
            match self.width {
                AsWidth::Four => body.u32_be(asn),
                AsWidth::Two => body.u16_be(u16::try_from(asn).map_err(|_| {
                    codec::EncodeError::Unrepresentable {
                        field: "BGP4MP AS number",
                        reason: "over 65535 in a 2-octet record: use BGP4MP_MESSAGE_AS4",
                    }
                })?),
            }
        }
        body.u16_be(self.interface_index);
        body.u16_be(family);
        for ip in [self.peer_ip, self.local_ip] {
            match ip {
                IpAddr::V4(a) => body.bytes(&a.octets()),
                IpAddr::V6(a) => body.bytes(&a.octets()),
            }
        }
        body.bytes(self.message);
        let subtype = match (self.width, self.local) {
            (AsWidth::Two, false) => MESSAGE,
            (AsWidth::Four, false) => MESSAGE_AS4,
            (AsWidth::Two, true) => MESSAGE_LOCAL,
            (AsWidth::Four, true) => MESSAGE_AS4_LOCAL,
        };
        MrtRecord {
            timestamp: self.timestamp,
            microseconds: self.microseconds,
            mrt_type: if self.microseconds.is_some() {
                BGP4MP_ET
            } else {
                BGP4MP
            },
            subtype,
            body: &body.into_bytes(),
        }
        .encode(w)
    }
}

/// Why the records of a stream could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The stream could not be read.
    #[error("cannot read: {0}")]
    Read(#[from] std::io::Error),
    /// Record `index` (from 0), at byte `offset` of the (decompressed) stream, is
    /// malformed or cut short.
    #[error("MRT record {index} at byte {offset}: {error}")]
    Record {
        /// The record's index.
        index: u64,
        /// Its offset in the stream.
        offset: u64,
        /// What is wrong.
        error: DecodeError,
    },
}

/// The records of an MRT stream, each as its whole octets (header included), so that
/// they can be handed to other threads; [`MrtRecord::read`] reads one back.
pub struct Records<R> {
    input: R,
    index: u64,
    offset: u64,
    failed: bool,
}

impl<R: Read> Records<R> {
    /// The records of `input`, an uncompressed MRT stream.
    pub fn new(input: R) -> Records<R> {
        Records {
            input,
            index: 0,
            offset: 0,
            failed: false,
        }
    }

    /// Reads the next record: `Ok(None)` at the end of the stream.
    fn next_record(&mut self) -> Result<Option<Vec<u8>>, RecordError> {
        let mut header = [0u8; HEADER_LEN];
        let got = read_full(&mut self.input, &mut header)?;
        if got == 0 {
            return Ok(None);
        }
        let fail = |index, offset, error| RecordError::Record {
            index,
            offset,
            error,
        };
        if got < HEADER_LEN {
            let short = DecodeError::ShortInput {
                field: "MRT common header",
                needed: HEADER_LEN,
                available: got,
            };
            return Err(fail(self.index, self.offset, short));
        }
        let length = u32::from_be_bytes([header[8], header[9], header[10], header[11]]);
        if let Err(e) = codec::check_range("MRT length", length.into(), 0, MAX_RECORD_LEN.into()) {
            return Err(fail(self.index, self.offset, e));
        }
        let mut record = header.to_vec();
        record.resize(HEADER_LEN + length as usize, 0);
        let body = read_full(&mut self.input, &mut record[HEADER_LEN..])?;
        if body < length as usize {
            let short = DecodeError::ShortInput {
                field: "MRT record",
                needed: length as usize,
                available: body,
            };
            return Err(fail(self.index, self.offset, short));
        }
        self.index += 1;
        self.offset += record.len() as u64;
        Ok(Some(record))
    }
}

impl<R: Read> Iterator for Records<R> {
    type Item = Result<Vec<u8>, RecordError>;

    /// The next record's octets; after an error, nothing more.
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let next = self.next_record().transpose();
        self.failed = matches!(next, Some(Err(_)));
        next
    }
}

/// Fills `buf` from `input` as far as the stream goes; returns how much was read.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// A KEEPALIVE seen from 192.0.2.1 (AS 64496) by 192.0.2.2 (AS 4200000000).
    #[rustfmt::skip]
    const RECORD: [u8; 51] = [
        0x5f, 0x5e, 0x10, 0x00,             // timestamp 1600000000
        0x00, 0x10,                         // type BGP4MP (16)
        0x00, 0x04,                         // subtype BGP4MP_MESSAGE_AS4 (4)
        0x00, 0x00, 0x00, 0x27,             // length 39
        0x00, 0x00, 0xfb, 0xf0,             // peer AS 64496
        0xfa, 0x56, 0xea, 0x00,             // local AS 4200000000
        0x00, 0x00,                         // interface index 0
        0x00, 0x01,                         // address family IPv4
        0xc0, 0x00, 0x02, 0x01,             // peer IP 192.0.2.1
        0xc0, 0x00, 0x02, 0x02,             // local IP 192.0.2.2
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // marker
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0x00, 0x13,                         // BGP length 19
        0x04,                               // KEEPALIVE
    ];

    #[test]
    fn bgp4mp_message_as4_on_commented_bytes() {
        let mut r = Reader::new(&RECORD);
        let record = MrtRecord::read(&mut r).unwrap();
        assert_eq!(r.remaining(), 0);
        let m = Bgp4mpMessage::decode(&record).unwrap().unwrap();
        assert_eq!(m.timestamp, 1_600_000_000);
        assert_eq!((m.peer_as, m.local_as), (64_496, 4_200_000_000));
        assert_eq!(m.width, AsWidth::Four);
        assert!(!m.local);
        assert_eq!(m.peer_ip, "192.0.2.1".parse::<IpAddr>().unwrap());
        assert_eq!(m.local_ip, "192.0.2.2".parse::<IpAddr>().unwrap());
        assert_eq!(m.message, &RECORD[32..]);
        let mut w = Writer::new();
        m.encode(&mut w).unwrap();
        assert_eq!(w.into_bytes(), RECORD);
    }

    #[test]
    fn et_records_ipv6_and_two_octet_records_round_trip() {
        let m = Bgp4mpMessage {
            timestamp: 7,
            microseconds: Some(999_999),
            width: AsWidth::Two,
            local: true,
            peer_as: 65_000,
            local_as: 12_654,
            interface_index: 3,
            peer_ip: "2001:db8::1".parse().unwrap(),
            local_ip: "2001:db8::2".parse().unwrap(),
            message: &RECORD[32..],
        };
        let mut w = Writer::new();
        m.encode(&mut w).unwrap();
        let bytes = w.into_bytes();
        // type 17, subtype 6, length = 4 µs + 2 + 2 + 2 + 2 + 32 + 19
        assert_eq!(&bytes[4..12], &[0, 17, 0, 6, 0, 0, 0, 63]);
        let record = MrtRecord::read(&mut Reader::new(&bytes)).unwrap();
        assert_eq!(Bgp4mpMessage::decode(&record).unwrap(), Some(m));
        let wide = Bgp4mpMessage {
            peer_as: 70_000,
            ..m
        };
        assert!(wide.encode(&mut Writer::new()).is_err());
        let mixed = Bgp4mpMessage {
            local_ip: "192.0.2.2".parse().unwrap(),
            ..m
        };
        assert!(mixed.encode(&mut Writer::new()).is_err());
    }

    #[test]
    fn other_records_are_not_messages_and_bad_ones_are_errors() {
        let mut state = RECORD;
        state[7] = 5; // BGP4MP_STATE_CHANGE_AS4
        let record = MrtRecord::read(&mut Reader::new(&state)).unwrap();
        assert_eq!(Bgp4mpMessage::decode(&record).unwrap(), None);
        let mut dump = RECORD;
        dump[5] = 13; // TABLE_DUMP_V2
        let record = MrtRecord::read(&mut Reader::new(&dump)).unwrap();
        assert_eq!(Bgp4mpMessage::decode(&record).unwrap(), None);
        let mut family = RECORD;
        family[23] = 3;
        let record = MrtRecord::read(&mut Reader::new(&family)).unwrap();
        assert!(Bgp4mpMessage::decode(&record).is_err());
        for cut in 0..RECORD.len() {
            assert!(MrtRecord::read(&mut Reader::new(&RECORD[..cut])).is_err());
        }
        // A body too short for its addresses.
        let mut short = RECORD[..28].to_vec();
        short[11] = 16;
        let record = MrtRecord::read(&mut Reader::new(&short)).unwrap();
        assert!(Bgp4mpMessage::decode(&record).is_err());
        // A length over the limit is refused before anything is read.
        let mut huge = RECORD;
        huge[8] = 0x7f;
        assert!(matches!(
            MrtRecord::read(&mut Reader::new(&huge)),
            Err(DecodeError::OutOfRange { .. })
        ));
    }

    #[test]
    fn records_frames_a_stream_and_names_a_cut_record() {
        let mut stream = RECORD.repeat(3);
        let all: Vec<_> = Records::new(stream.as_slice()).collect();
        assert_eq!(all.len(), 3);
        assert!(all.iter().all(|r| r.as_ref().unwrap() == &RECORD));
        stream.truncate(stream.len() - 1);
        let all: Vec<_> = Records::new(stream.as_slice()).collect();
        assert_eq!(all.len(), 3);
        let e = all[2].as_ref().unwrap_err().to_string();
        assert!(e.contains("MRT record 2 at byte 102"), "{e}");
        let e = Records::new(&RECORD[..5]).next().unwrap().unwrap_err();
        assert!(e.to_string().contains("MRT common header"), "{e}");
        assert!(Records::new(&[][..]).next().is_none());
    }
}
