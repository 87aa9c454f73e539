//! The elements of an MRT stream as bgpkit-parser makes them: one per prefix of every
//! BGP4MP UPDATE and every RIB entry (TABLE_DUMP, TABLE_DUMP_V2), with AS_PATH and
//! AS4_PATH merged (RFC 6793 §4.2.3), record by record.
//!
//! bgpkit-parser keeps attributes it does not decode raw; a BGPsec_PATH (RFC 8205 §3)
//! is one of them, found by [`bgpsec_path_value`]. [`ElemRecords`] is what both
//! hopsig's announcements (`trace::Entries`) and the Python package's
//! pybgpkit-parser-compatible elements are read from, so the two never disagree on
//! which records are read, skipped or fatal.

use std::io::Read;
use std::net::IpAddr;

use bgpkit_parser::models::{self as bgpkit, MrtMessage};
use bgpkit_parser::{BgpkitParser, Elementor, ParserError};

pub use bgpkit_parser::models::{AttrRaw, BgpElem, ElemType};

/// Why an MRT stream could not be read on.
#[derive(Debug, thiserror::Error)]
#[error("MRT record {record}: {message}")]
pub struct ReadError {
    /// Records read before it (the failing one's index, from 0).
    pub record: u64,
    /// bgpkit-parser's message.
    pub message: String,
}

/// One MRT record's elements.
#[derive(Debug, Clone, PartialEq)]
pub struct ElemRecord {
    /// The record's index in the stream, from 0.
    pub index: u64,
    /// Seconds since 1970-01-01 UTC, from the common header (RFC 6396 §2).
    pub timestamp: u32,
    /// The Microsecond Timestamp of an `_ET` record (RFC 6396 §3).
    pub microseconds: Option<u32>,
    /// The collector's AS and address, where the record gives them (BGP4MP messages,
    /// RFC 6396 §4.4.2); RIB dumps do not.
    pub collector: Option<(u32, IpAddr)>,
    /// Its elements, one per prefix (none for a state change or a peer index table);
    /// `None` for a record framed correctly (its Length read whole) whose body
    /// bgpkit-parser could not decode: it is skipped, and the stream read on.
    pub elems: Option<Vec<BgpElem>>,
}

/// The records of an MRT stream (uncompressed: see [`crate::mrt::decompressed`]) and
/// their elements, in file order. After an error that loses the framing (the stream
/// cut short or unreadable, a Length over bgpkit-parser's limit) nothing more is read.
pub struct ElemRecords<R: Read> {
    records: bgpkit_parser::FallibleRecordIterator<R>,
    elementor: Elementor,
    read: u64,
    done: bool,
}

impl<R: Read> ElemRecords<R> {
    /// The records of `input`.
    pub fn new(input: R) -> ElemRecords<R> {
        ElemRecords {
            records: BgpkitParser::from_reader(input).into_fallible_record_iter(),
            elementor: Elementor::new(),
            read: 0,
            done: false,
        }
    }

    /// MRT records read so far.
    pub fn records(&self) -> u64 {
        self.read
    }
}

impl<R: Read> Iterator for ElemRecords<R> {
    type Item = Result<ElemRecord, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let index = self.read;
        match self.records.next() {
            None => {
                self.done = true;
                None
            }
            Some(Ok(record)) => {
                self.read += 1;
                let collector = match &record.message {
                    MrtMessage::Bgp4Mp(bgpkit::Bgp4MpEnum::Message(m)) => {
                        Some((m.local_asn.to_u32(), m.local_ip))
                    }
                    _ => None,
                };
                let header = record.common_header;
                Some(Ok(ElemRecord {
                    index,
                    timestamp: header.timestamp,
                    microseconds: header.microsecond_timestamp,
                    collector,
                    elems: Some(self.elementor.record_to_elems(record)),
                }))
            }
            // The framing is lost: nothing after this can be trusted.
            Some(Err(e))
                if matches!(
                    e.error,
                    ParserError::IoError(_)
                        | ParserError::EofError(_)
                        | ParserError::OversizedRecord { .. }
                ) =>
            {
                self.done = true;
                Some(Err(ReadError {
                    record: index,
                    message: e.error.to_string(),
                }))
            }
            // A record read whole by its length but not decoded: skip it.
            Some(Err(_)) => {
                self.read += 1;
                Some(Ok(ElemRecord {
                    index,
                    timestamp: 0,
                    microseconds: None,
                    collector: None,
                    elems: None,
                }))
            }
        }
    }
}

/// The raw BGPsec_PATH value (RFC 8205 §3) of an element, if its route carries one:
/// bgpkit-parser keeps the attribute among the ones it does not decode.
pub fn bgpsec_path_value(elem: &BgpElem) -> Option<&[u8]> {
    elem.unknown
        .as_deref()?
        .iter()
        .find(|a| a.code == u8::from(crate::packet::AttrType::BgpsecPath))
        .map(|a| &a.bytes[..])
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// A BGP4MP_MESSAGE_AS4 record of a KEEPALIVE: read whole, no element.
    #[rustfmt::skip]
    const KEEPALIVE: [u8; 51] = [
        0x00, 0x00, 0x00, 0x01, 0x00, 0x10, 0x00, 0x04, 0x00, 0x00, 0x00, 0x27, // header
        0x00, 0x00, 0xfb, 0xf0, 0xfa, 0x56, 0xea, 0x00, 0x00, 0x00, 0x00, 0x01, // ASes, ifindex, AFI
        0xc0, 0x00, 0x02, 0x01, 0xc0, 0x00, 0x02, 0x02,                         // peer, local IP
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0x00, 0x13, 0x04,                               // KEEPALIVE
    ];

    #[test]
    fn records_in_order_and_a_cut_stream_is_an_error() {
        let mut two = KEEPALIVE.to_vec();
        two.extend(KEEPALIVE);
        let all: Vec<_> = ElemRecords::new(&two[..]).collect();
        assert_eq!(all.len(), 2);
        let first = all[0].as_ref().unwrap();
        assert_eq!((first.index, first.timestamp), (0, 1));
        assert_eq!(first.elems.as_deref(), Some(&[][..]));
        assert_eq!(
            first.collector,
            Some((4_200_000_000, "192.0.2.2".parse().unwrap()))
        );
        let cut = &two[..two.len() - 3];
        let mut it = ElemRecords::new(cut);
        assert!(it.next().unwrap().is_ok());
        let e = it.next().unwrap().unwrap_err();
        assert_eq!(e.record, 1);
        assert!(it.next().is_none(), "nothing after the framing is lost");
        assert_eq!(it.records(), 1);
    }
}
