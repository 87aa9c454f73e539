//! Real BGP messages: every BGP4MP message of the RIPE RIS update files in
//! ../shared/data/mrt decodes, and re-encodes to the very same octets.
//!
//! The MRT records are read directly (RFC 6396 §2 common header, §4.4 BGP4MP): the
//! codec sees each BGP message exactly as the collector received it, with the AS width
//! the record's subtype states (`BGP4MP_MESSAGE`: 2 octets, `BGP4MP_MESSAGE_AS4`: 4).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use hopsig_bgp::packet::{AsWidth, Message};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/mrt")
        .join(name)
}

/// The BGP messages of an MRT file with the AS width of their record.
fn bgp4mp_messages(name: &str) -> Vec<(AsWidth, Vec<u8>)> {
    let mut raw = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(data(name)).unwrap())
        .read_to_end(&mut raw)
        .unwrap();
    let mut out = Vec::new();
    let mut rest = &raw[..];
    while rest.len() >= 12 {
        let mrt_type = u16::from_be_bytes([rest[4], rest[5]]);
        let subtype = u16::from_be_bytes([rest[6], rest[7]]);
        let len = u32::from_be_bytes([rest[8], rest[9], rest[10], rest[11]]) as usize;
        let mut body = &rest[12..12 + len];
        rest = &rest[12 + len..];
        // BGP4MP (16) and BGP4MP_ET (17, with a microsecond field first).
        match mrt_type {
            16 => {}
            17 => body = &body[4..],
            _ => continue,
        }
        let width = match subtype {
            1 | 6 => AsWidth::Two,
            4 | 7 => AsWidth::Four,
            _ => continue, // state changes
        };
        let as_len = width.octets();
        let afi = u16::from_be_bytes([body[2 * as_len + 2], body[2 * as_len + 3]]);
        let ip_len = if afi == 1 { 4 } else { 16 };
        let message = &body[2 * as_len + 4 + 2 * ip_len..];
        out.push((width, message.to_vec()));
    }
    assert!(
        rest.is_empty(),
        "{name}: {} octets after the last record",
        rest.len()
    );
    out
}

fn check_file(name: &str) -> BTreeMap<&'static str, usize> {
    let messages = bgp4mp_messages(name);
    let mut counts = BTreeMap::new();
    let mut failures = Vec::new();
    for (width, bytes) in &messages {
        match Message::decode(bytes, *width) {
            Ok(m) => {
                let kind = match &m {
                    Message::Update(u) if u.mp_reach().is_some() || u.mp_unreach().is_some() => {
                        "UPDATE (MP)"
                    }
                    Message::Update(_) => "UPDATE",
                    Message::Open(_) => "OPEN",
                    Message::Notification(_) => "NOTIFICATION",
                    Message::Keepalive => "KEEPALIVE",
                };
                *counts.entry(kind).or_insert(0) += 1;
                assert_eq!(
                    &m.encoding(*width).unwrap(),
                    bytes,
                    "{name}: re-encoding differs"
                );
            }
            Err(e) => failures.push(format!("{e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{name}: {} of {} messages failed: {:?}",
        failures.len(),
        messages.len(),
        &failures[..failures.len().min(10)]
    );
    counts
}

#[test]
fn ris_2016_messages_round_trip() {
    let counts = check_file("ris-updates.20160811.1600.gz");
    eprintln!("2016: {counts:?}");
    assert!(
        counts["UPDATE"] > 10_000 && counts["UPDATE (MP)"] > 1_000,
        "{counts:?}"
    );
}

#[test]
fn ris_2010_messages_round_trip() {
    let counts = check_file("ris-updates.20100722.2015.gz");
    eprintln!("2010: {counts:?}");
    assert!(counts["UPDATE"] > 100, "{counts:?}");
}

#[test]
fn ris_2007_messages_round_trip() {
    let counts = check_file("ris-updates.20070211.0141.gz");
    eprintln!("2007: {counts:?}");
    assert!(counts["UPDATE"] > 1_000, "{counts:?}");
}
