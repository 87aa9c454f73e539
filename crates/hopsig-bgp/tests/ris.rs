//! Real BGP messages: every BGP4MP message of the RIPE RIS update files in
//! ../shared/data/mrt decodes, and re-encodes to the very same octets.
//!
//! The MRT records are read directly (RFC 6396 §2 common header, §4.4 BGP4MP): the
//! codec sees each BGP message exactly as the collector received it, with the AS width
//! the record's subtype states (`BGP4MP_MESSAGE`: 2 octets, `BGP4MP_MESSAGE_AS4`: 4).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;

use hopsig_bgp::packet::Message;

fn check_file(name: &str) -> BTreeMap<&'static str, usize> {
    let messages = common::bgp4mp_messages(name);
    let mut counts = BTreeMap::new();
    let mut failures = Vec::new();
    for (width, bytes) in &messages {
        match common::checks::message(bytes, *width) {
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
