//! The speaker's signature cache (issue 25 §3, docs/spec/speaker.md "Signature
//! cache"): two BGPsec neighbours announce one prefix whose upstream signature is the
//! same on both copies (AS 65010 signed it once toward AS 65011, which sent it on to
//! both), as a router with two full-table peers receives it. With the cache on (the
//! default) the second copy verifies two of its three signatures, the shared one comes
//! from the cache; with `signature_cache = 0` every signature is verified. The status
//! file's `signature_cache` counters say so; both routes are valid either way.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Write;
use std::net::Ipv4Addr;

use common::speaker::*;
use common::Scratch;
use hopsig_bgp::packet::{
    Afi, AsWidth, AttributeValue, BgpsecCapability, BgpsecPath, Capability, Direction, Message,
    MultiprotocolCapability, NextHop, Open, Origin, PathAttribute, Prefix, Update,
};
use hopsig_bgp::suite::ECDSA_P256_SHA256;
use hopsig_bgp::trace::Keyring;
use hopsig_bgp::{Chain, Hop, SignedNlri};
use serde_json::Value;

const SPEAKER: u32 = 65_001;
const FEEDERS: [(u32, &str); 2] = [(65_002, "127.0.25.2"), (65_003, "127.0.25.3")];
const ORIGIN: u32 = 65_010;
const UPSTREAM: u32 = 65_011;
const PREFIX: &str = "10.25.0.0/16";

/// The UPDATE each feeder sends: ORIGIN signed once toward UPSTREAM, which signed
/// toward each feeder, which signed toward the speaker.
fn updates(ring: &Keyring) -> Vec<Vec<u8>> {
    let prefix: Prefix = {
        let (a, l) = PREFIX.split_once('/').unwrap();
        Prefix::new(a.parse().unwrap(), l.parse().unwrap()).unwrap()
    };
    let nlri = SignedNlri::unicast(prefix);
    let origin = Chain::originate(ring.signer(ORIGIN).unwrap(), nlri, &Hop::to(UPSTREAM)).unwrap();
    FEEDERS
        .iter()
        .map(|&(feeder, _)| {
            let mut chain = origin.clone();
            chain
                .forward(ring.signer(UPSTREAM).unwrap(), &Hop::to(feeder))
                .unwrap();
            chain
                .forward(ring.signer(feeder).unwrap(), &Hop::to(SPEAKER))
                .unwrap();
            message(chain.path().unwrap(), nlri)
        })
        .collect()
}

fn message(path: BgpsecPath<'static>, nlri: SignedNlri) -> Vec<u8> {
    let reach = hopsig_bgp::packet::MpReachNlri::new(
        nlri.safi,
        NextHop::V4(Ipv4Addr::new(192, 0, 2, 9)),
        vec![nlri.prefix],
    )
    .unwrap();
    let update = Update {
        attributes: [
            AttributeValue::Origin(Origin::Igp),
            AttributeValue::MpReachNlri(reach),
            AttributeValue::BgpsecPath(path),
        ]
        .into_iter()
        .map(|v| PathAttribute::new(v, AsWidth::Four).unwrap())
        .collect(),
        ..Update::default()
    };
    Message::Update(update).encoding(AsWidth::Four).unwrap()
}

/// A feeder's session by hand: OPEN with 4-octet AS and BGPsec send and receive for
/// IPv4, then its one UPDATE. The stream is returned to keep the session up.
fn feed(from: &str, port: u16, asn: u32, update: &[u8]) -> std::net::TcpStream {
    let mut c = raw_client(from, &format!("127.0.25.1:{port}"));
    assert_eq!(read_message(&mut c)[18], 1, "the speaker's OPEN");
    let mut caps = vec![Capability::Multiprotocol(MultiprotocolCapability {
        afi: 1,
        reserved: 0,
        safi: 1,
    })];
    for d in [Direction::Send, Direction::Receive] {
        caps.push(Capability::Bgpsec(BgpsecCapability::new(d, Afi::Ipv4)));
    }
    let open = Open::new(asn, 0, Ipv4Addr::new(192, 0, 2, asn as u8), caps);
    c.write_all(&Message::Open(open).encoding(AsWidth::Four).unwrap())
        .unwrap();
    assert_eq!(read_message(&mut c)[18], 4, "KEEPALIVE after a good OPEN");
    c.write_all(&KEEPALIVE).unwrap();
    c.write_all(update).unwrap();
    c
}

/// The speaker with `extra` configuration lines fed both copies; its status once both
/// routes are valid.
fn run(s: &Scratch, name: &str, extra: &str, updates: &[Vec<u8>]) -> Value {
    let port = free_port();
    let mut text = format!(
        "local_as = {SPEAKER}\nrouter_id = \"192.0.2.1\"\nmode = \"strict\"\nstate_file = \"{name}.json\"\n\
         rpki_keys = \"rpki.json\"\nhold_time = 9\nlisten = \"127.0.25.1:{port}\"\n{extra}"
    );
    for (asn, address) in FEEDERS {
        text += &format!(
            "[[neighbors]]\naddress = \"{address}\"\nremote_as = {asn}\npassive = true\nbgpsec = true\n"
        );
    }
    let _speaker = start(s, name, text);
    wait_for(s, "the speaker listening", || {
        std::net::TcpStream::connect(("127.0.25.1", port)).is_ok()
    });
    let _sessions: Vec<_> =
        FEEDERS
            .iter()
            .zip(updates)
            .map(|(&(asn, address), u)| {
                // Each copy validated before the next is sent, so that the second meets
                // what the first cached (the workers would otherwise verify both at once).
                let c = feed(address, port, asn, u);
                wait_for(s, "the copy validated", || {
                    status(s, name).is_some_and(|v| {
                        v["adj_rib_in"].as_array().unwrap().iter().any(|r| {
                            r["neighbor"] == address && r["validation"] == "valid (suite 1)"
                        })
                    })
                });
                c
            })
            .collect();
    let mut last = Value::Null;
    wait_for(s, "both copies valid and counted", || {
        last = status(s, name).unwrap_or(Value::Null);
        last["signature_cache"]["lookups"] == 6
    });
    last
}

#[test]
fn a_signature_shared_by_two_neighbours_copies_is_verified_once() {
    let s = Scratch::new();
    let mut ring = Keyring::new(&ECDSA_P256_SHA256);
    ring.generate(&[ORIGIN, UPSTREAM, FEEDERS[0].0, FEEDERS[1].0], 1)
        .unwrap();
    s.write("rpki.json", ring.rpki_json());
    let updates = updates(&ring);

    let on = run(&s, "on", "", &updates);
    let c = &on["signature_cache"];
    assert_eq!(c["budget_bytes"], 64 << 20, "{c}");
    assert_eq!((&c["hits"], &c["verified"]), (&1.into(), &5.into()), "{c}");
    assert_eq!(
        (&c["inserts"], &c["entries"]),
        (&5.into(), &5.into()),
        "{c}"
    );
    assert!(c["bytes"].as_u64().unwrap() > 0, "{c}");

    let off = run(&s, "off", "signature_cache = 0\n", &updates);
    let c = &off["signature_cache"];
    assert_eq!(c["budget_bytes"], 0, "{c}");
    assert_eq!((&c["hits"], &c["verified"]), (&0.into(), &6.into()), "{c}");
    assert_eq!((&c["entries"], &c["bytes"]), (&0.into(), &0.into()), "{c}");
}
