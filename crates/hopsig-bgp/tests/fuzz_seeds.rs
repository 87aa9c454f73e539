//! The committed seed corpus of the cargo-fuzz targets (`fuzz/seeds/<target>/`), run
//! through the targets' checks in the ordinary test suite, and how it is made.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::checks;
use hopsig_bgp::packet::{AsWidth, Message, Update, HEADER_LEN};

const TARGETS: [&str; 4] = ["message", "update", "open", "bgpsec_path"];

fn seeds_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target)
}

#[test]
fn every_seed_passes_its_target_checks() {
    for target in TARGETS {
        let mut n = 0;
        for entry in std::fs::read_dir(seeds_dir(target)).unwrap() {
            let data = std::fs::read(entry.unwrap().path()).unwrap();
            match target {
                "message" => checks::WIDTHS
                    .iter()
                    .for_each(|&w| drop(checks::message(&data, w))),
                "update" => checks::WIDTHS
                    .iter()
                    .for_each(|&w| checks::update(&data, w)),
                "open" => checks::open(&data),
                _ => checks::bgpsec_path(&data),
            }
            n += 1;
        }
        assert!(n >= 2, "{target}: {n} seeds");
    }
}

/// Writes the seeds: the RFC 8608 examples, and from each RIS file up to eight
/// messages of each kind (UPDATE with and without MP_REACH/MP_UNREACH, KEEPALIVE,
/// OPEN, NOTIFICATION), the shortest of each kind first.
#[test]
#[ignore = "rewrites fuzz/seeds; run with --ignored regenerate"]
fn regenerate() {
    let mut seeds: BTreeMap<(&str, String), Vec<u8>> = BTreeMap::new();
    let a3 = common::with_type_33(&common::hex(common::A3));
    let a4 = common::with_type_33(&common::hex(common::A4));
    for (name, m) in [("rfc8608-a3", &a3), ("rfc8608-a4", &a4)] {
        seeds.insert(("message", name.into()), m.clone());
        seeds.insert(("update", name.into()), m[HEADER_LEN..].to_vec());
        let Ok(Message::Update(u)) = Message::decode(m, AsWidth::Four) else {
            panic!()
        };
        let mut w = hopsig_primitives::codec::Writer::new();
        u.bgpsec_path().unwrap().encode(&mut w).unwrap();
        seeds.insert(("bgpsec_path", name.into()), w.into_bytes());
    }
    seeds.insert(
        ("message", "rfc8608-a3-type-30".into()),
        common::hex(common::A3),
    );
    let open = hopsig_bgp::packet::Open::new(
        65_536,
        90,
        std::net::Ipv4Addr::new(192, 0, 2, 1),
        [
            hopsig_bgp::packet::Direction::Send,
            hopsig_bgp::packet::Direction::Receive,
        ]
        .into_iter()
        .map(|d| {
            hopsig_bgp::packet::Capability::Bgpsec(hopsig_bgp::packet::BgpsecCapability::new(
                d,
                hopsig_bgp::packet::Afi::Ipv4,
            ))
        })
        .collect(),
    );
    let open_message = Message::Open(open).encoding(AsWidth::Four).unwrap();
    seeds.insert(
        ("open", "bgpsec-open".into()),
        open_message[HEADER_LEN..].to_vec(),
    );
    seeds.insert(("message", "bgpsec-open".into()), open_message);
    // Capabilities in two parameters, one of them kept as sent (Route Refresh).
    let plain = hopsig_bgp::packet::Open {
        my_as: 64_500,
        hold_time: 180,
        bgp_identifier: std::net::Ipv4Addr::new(10, 0, 0, 1),
        parameters: vec![
            vec![hopsig_bgp::packet::Capability::Multiprotocol(
                hopsig_bgp::packet::MultiprotocolCapability {
                    afi: 2,
                    reserved: 0,
                    safi: 1,
                },
            )],
            vec![hopsig_bgp::packet::Capability::Other {
                code: 2,
                value: vec![].into(),
            }],
        ],
    };
    let plain = Message::Open(plain).encoding(AsWidth::Two).unwrap();
    seeds.insert(("open", "plain-open".into()), plain[HEADER_LEN..].to_vec());
    for file in common::RIS_UPDATES {
        let year = &file[12..16];
        let mut by_kind: BTreeMap<&str, Vec<(AsWidth, Vec<u8>)>> = BTreeMap::new();
        for (width, bytes) in common::bgp4mp_messages(file) {
            let kind = match Message::decode(&bytes, width) {
                Ok(Message::Update(u)) if u.mp_reach().is_some() || u.mp_unreach().is_some() => {
                    "update-mp"
                }
                Ok(Message::Update(_)) => "update",
                Ok(Message::Open(_)) => "open",
                Ok(Message::Notification(_)) => "notification",
                Ok(Message::Keepalive) => "keepalive",
                Err(_) => "error",
            };
            by_kind.entry(kind).or_default().push((width, bytes));
        }
        for (kind, mut list) in by_kind {
            list.sort_by_key(|(_, b)| b.len());
            list.dedup();
            let step = (list.len() / 8).max(1);
            for (i, (width, bytes)) in list.into_iter().step_by(step).take(8).enumerate() {
                let w = if width == AsWidth::Two { "as2" } else { "as4" };
                let name = format!("ris{year}-{kind}-{w}-{i}");
                if kind.starts_with("update") && Update::decode(&bytes[HEADER_LEN..], width).is_ok()
                {
                    seeds.insert(("update", name.clone()), bytes[HEADER_LEN..].to_vec());
                }
                if kind == "open" {
                    seeds.insert(("open", name.clone()), bytes[HEADER_LEN..].to_vec());
                }
                seeds.insert(("message", name), bytes);
            }
        }
    }
    for target in TARGETS {
        let dir = seeds_dir(target);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
    }
    for ((target, name), bytes) in seeds {
        std::fs::write(seeds_dir(target).join(name), bytes).unwrap();
    }
}
