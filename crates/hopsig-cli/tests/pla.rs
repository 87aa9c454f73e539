//! `hopsig pla sign-pcap` / `verify-pcap` end to end, read back by independent tools:
//! scapy (`interop/python/pla_scapy.py check`: every signed frame well-formed IPv6 with
//! the option in the chain and the payload intact) and a pure-Python verifier written
//! from docs/spec/pla.md (`interop/python/pla_reference.py`), in both directions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::{code, stderr, stdout, text, Scratch};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn script(name: &str) -> String {
    root()
        .join("interop/python")
        .join(name)
        .display()
        .to_string()
}

/// The real capture kept in the repository.
fn babel() -> String {
    root()
        .join("crates/hopsig-pla/tests/data/babel.pcap")
        .display()
        .to_string()
}

/// A Python with scapy: `$HOPSIG_PYTHON` (`.ci/run` sets it to its venv), else
/// `python3`. `None` (skip) when it has none, except under CI=true, where that fails.
fn python() -> Option<String> {
    let py = std::env::var("HOPSIG_PYTHON").unwrap_or_else(|_| "python3".into());
    common::have_args(&py, &["-c", "import scapy"], "pla interop").then_some(py)
}

fn py(python: &str, args: &[&str]) -> String {
    let o = Command::new(python).args(args).output().unwrap();
    assert_eq!(code(&o), 0, "{args:?}: {}", text(&o));
    String::from_utf8(o.stdout).unwrap()
}

fn json(path: &str) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn signed_captures_are_well_formed_and_verify_here_and_in_the_reference() {
    let Some(python) = python() else { return };
    let s = Scratch::new();
    let input = s.p("in.pcap");
    py(&python, &[&script("pla_scapy.py"), "make", &input]);
    // The same frames as pcapng: signed output keeps their capture times.
    let ng = s.p("in.pcapng");
    py(
        &python,
        &[
            "-c",
            &format!("from scapy.all import rdpcap, wrpcapng; wrpcapng({ng:?}, rdpcap({input:?}))"),
        ],
    );
    s.ok(&["ic", "ttp", "--out", &s.p("ttp-ng")]);
    let signed_ng = s.p("signed-ng.pcap");
    s.ok(&[
        "pla",
        "sign-pcap",
        &ng,
        &signed_ng,
        "--enroll",
        &s.p("ttp-ng"),
    ]);
    let out = py(
        &python,
        &[
            &script("pla_scapy.py"),
            "check",
            &input,
            &signed_ng,
            "--expect-signed",
            "44",
        ],
    );
    assert!(out.contains("OK") && !out.contains("capture time"), "{out}");
    for (curve, layout) in [
        ("k163", "implicit"),
        ("k233", "certificate"),
        ("k283", "implicit"),
    ] {
        let ttp = s.p(&format!("ttp-{curve}"));
        s.ok(&["ic", "--curve", curve, "ttp", "--out", &ttp]);
        let signed = s.p(&format!("signed-{curve}.pcap"));
        let ttp_dir = ttp.clone();
        let o = s.ok(&[
            "pla",
            "sign-pcap",
            &input,
            &signed,
            "--enroll",
            &ttp_dir,
            "--layout",
            layout,
        ]);
        assert!(text(&o).contains("44 of 48 frames"), "{}", text(&o));
        assert!(text(&o).contains("routing_header 1"), "{}", text(&o));
        // scapy reads every frame; 44 carry the option, the rest are unchanged.
        let out = py(
            &python,
            &[
                &script("pla_scapy.py"),
                "check",
                &input,
                &signed,
                "--expect-signed",
                "44",
            ],
        );
        assert!(out.contains("OK"), "{out}");
        // hopsig's router accepts all of them, and writes them out in order.
        let accepted = s.p(&format!("accepted-{curve}.pcap"));
        let report = s.p(&format!("report-{curve}.json"));
        let ttp_pub = format!("{ttp}/ttp.pub");
        s.ok(&[
            "pla",
            "verify-pcap",
            &signed,
            "--ttp-pub",
            &ttp_pub,
            "--out",
            &accepted,
            "--json",
            &report,
        ]);
        let r = json(&report);
        assert_eq!(r["accepted"], 44, "{r}");
        assert_eq!(r["rejected"], 0, "{r}");
        assert_eq!(
            std::fs::read(&accepted).unwrap(),
            std::fs::read(&signed).unwrap()
        );
        // The independent verifier accepts every signed packet too.
        let v = py(
            &python,
            &[
                &script("pla_reference.py"),
                "verify",
                &signed,
                "--ttp-pub",
                &ttp_pub,
                "--json",
            ],
        );
        let v: serde_json::Value = serde_json::from_str(&v).unwrap();
        assert_eq!(v["counts"]["accepted"], 44, "{curve}: {v}");
        assert_eq!(v["counts"]["bad_signature"], 0, "{curve}: {v}");
    }
}

#[test]
fn the_reference_verdicts_on_its_hostile_capture_are_hopsigs() {
    let Some(python) = python() else { return };
    let s = Scratch::new();
    for curve in ["K-163", "K-233", "K-283"] {
        let dir = s.p(curve);
        py(
            &python,
            &[
                &script("pla_reference.py"),
                "demo-pcap",
                &dir,
                "--curve",
                curve,
            ],
        );
        let report = format!("{dir}/hopsig.json");
        let o = s.run(&[
            "pla",
            "verify-pcap",
            &format!("{dir}/demo.pcap"),
            "--ttp-pub",
            &format!("{dir}/ttp.pub"),
            "--json",
            &report,
        ]);
        assert_eq!(code(&o), 1, "some packets are rejected: {}", text(&o));
        let expected = json(&format!("{dir}/expected.json"));
        let mut want = std::collections::BTreeMap::<String, u64>::new();
        for v in expected["verdicts"].as_array().unwrap() {
            *want.entry(v.as_str().unwrap().to_string()).or_default() += 1;
        }
        let got: std::collections::BTreeMap<String, u64> =
            serde_json::from_value(json(&report)["reasons"].clone()).unwrap();
        assert_eq!(got, want, "{curve}");
    }
}

/// `sign-pcap` of babel.pcap with `key` into `signed`, then `verify-pcap` with
/// `ttp_pub`: both outputs.
fn sign_and_verify(s: &Scratch, key: &str, signed: &str, ttp_pub: &str) -> (Output, Output) {
    let o = s.ok(&["pla", "sign-pcap", &babel(), signed, "--key", key]);
    let v = s.ok(&["pla", "verify-pcap", signed, "--ttp-pub", ttp_pub]);
    (o, v)
}

#[test]
fn one_host_key_signs_its_own_packets_of_a_real_capture() {
    let s = Scratch::new();
    // The host fe80::68d3:1235:d068:1f9e of babel.pcap enrols with a TTP.
    let ic = s.implicit_certificate("k163", "fe80::68d3:1235:d068:1f9e");
    let (ttp, ttp_pub) = (ic.ttp.clone(), ic.ttp_pub.clone());
    let signed = s.p("signed.pcap");
    let (o, v) = sign_and_verify(&s, &ic.key, &signed, &ttp_pub);
    // 14 frames are this host's; the other host's 11 are copied unsigned.
    assert!(text(&o).contains("14 of 25 frames"), "{}", text(&o));
    assert!(text(&o).contains("other_source 11"), "{}", text(&o));
    assert!(text(&v).contains("accepted: 14"), "{}", text(&v));
    assert!(text(&v).contains("unsigned 11"), "{}", text(&v));
    // A strict router keeps only what it accepted.
    let strict = s.p("strict.pcap");
    s.ok(&[
        "pla",
        "verify-pcap",
        &signed,
        "--ttp-pub",
        &ttp_pub,
        "--out",
        &strict,
        "--accepted-only",
    ]);
    assert!(std::fs::read(&strict).unwrap().len() < std::fs::read(&signed).unwrap().len());

    // Tampered: the last octet of the last frame (this host's MLD report) flipped.
    let mut bytes = std::fs::read(&signed).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    let tampered = s.write("tampered.pcap", &bytes);
    s.exits(
        1,
        &["pla", "verify-pcap", &tampered, "--ttp-pub", &ttp_pub],
        "bad_signature: 1",
    );
    // Checked a day later: everything is stale.
    s.exits(
        1,
        &[
            "pla",
            "verify-pcap",
            &signed,
            "--ttp-pub",
            &ttp_pub,
            "--now",
            "1302297600",
        ],
        "stale: 14",
    );
    // Another TTP with the same id: no key extracts.
    let other = s.p("other");
    s.ok(&["ic", "ttp", "--out", &other]);
    s.exits(
        1,
        &[
            "pla",
            "verify-pcap",
            &signed,
            "--ttp-pub",
            &format!("{other}/ttp.pub"),
        ],
        "bad_signature: 14",
    );
    // Unsigned input, and input that is not a capture: exit 2, naming the file.
    s.exits(
        2,
        &["pla", "verify-pcap", &babel(), "--ttp-pub", &ttp_pub],
        "no PLA-signed packet",
    );
    let junk = s.write("junk.pcap", b"not a capture at all");
    s.exits(
        2,
        &["pla", "verify-pcap", &junk, "--ttp-pub", &ttp_pub],
        "junk.pcap",
    );
    s.exits(
        2,
        &["pla", "sign-pcap", &junk, &s.p("x.pcap"), "--enroll", &ttp],
        "junk.pcap",
    );
    // The certificate-based layout from files: a key the TTP signed signs every
    // packet, whatever its source.
    s.ok(&[
        "keygen",
        "--scheme",
        "ecdsa-k163",
        "--out",
        &s.p("plain.key"),
    ]);
    s.ok(&[
        "ic",
        "certify-key",
        "--ttp",
        &ttp,
        "--public",
        &s.p("plain.key.pub"),
        "--out",
        &s.p("plain.key.cert"),
    ]);
    let (o, v) = sign_and_verify(&s, &s.p("plain.key"), &s.p("both.pcap"), &ttp_pub);
    assert!(text(&o).contains("25 of 25 frames"), "{}", text(&o));
    assert!(text(&v).contains("accepted: 25"), "{}", text(&v));
    // Another key with that certificate is refused before anything is written.
    s.ok(&[
        "keygen",
        "--scheme",
        "ecdsa-k163",
        "--out",
        &s.p("thief.key"),
    ]);
    s.exits(
        2,
        &[
            "pla",
            "sign-pcap",
            &babel(),
            &s.p("z.pcap"),
            "--key",
            &s.p("thief.key"),
            "--cert",
            &s.p("plain.key.cert"),
        ],
        "for another key",
    );
    assert!(!s.path("z.pcap").exists());
    // Neither --key nor --enroll.
    s.exits(2, &["pla", "sign-pcap", &babel(), &s.p("y.pcap")], "--key");
}

/// One record of a classic pcap file: its byte offset, capture time and data.
struct Record {
    offset: usize,
    sec: u32,
    usec: u32,
    data: Vec<u8>,
}

/// The records of a little-endian, microsecond pcap file (babel.pcap's format).
fn pcap_records(bytes: &[u8]) -> Vec<Record> {
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!(u32_at(0), 0xa1b2_c3d4, "little-endian microsecond pcap");
    let (mut records, mut at) = (Vec::new(), 24);
    while at < bytes.len() {
        let len = u32_at(at + 8) as usize;
        records.push(Record {
            offset: at,
            sec: u32_at(at),
            usec: u32_at(at + 4),
            data: bytes[at + 16..at + 16 + len].to_vec(),
        });
        at += 16 + len;
    }
    records
}

/// A little-endian pcap file of link type `link` holding `frames` (time, data).
fn pcap_file(link: u32, frames: &[(u32, u32, &[u8])]) -> Vec<u8> {
    let mut f = Vec::new();
    for v in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 262_144, link] {
        f.extend_from_slice(&v.to_le_bytes());
    }
    for (sec, usec, data) in frames {
        for v in [*sec, *usec, data.len() as u32, data.len() as u32] {
            f.extend_from_slice(&v.to_le_bytes());
        }
        f.extend_from_slice(data);
    }
    f
}

/// A little-endian pcapng block: type, total length, body padded to 4 octets, length.
fn ng_block(kind: u32, body: &[u8]) -> Vec<u8> {
    let padded = body.len().div_ceil(4) * 4;
    let total = (12 + padded) as u32;
    let mut b = Vec::new();
    b.extend_from_slice(&kind.to_le_bytes());
    b.extend_from_slice(&total.to_le_bytes());
    b.extend_from_slice(body);
    b.resize(8 + padded, 0);
    b.extend_from_slice(&total.to_le_bytes());
    b
}

/// A pcapng file (one little-endian section; written here, from the pcapng draft,
/// not by the library under test) with an interface of each link type of `links`
/// (microsecond timestamps, the default) and `frames` (interface, record) as Enhanced
/// Packet Blocks: the file and each packet block's byte offset.
fn pcapng_file(links: &[u16], frames: &[(u32, &Record)]) -> (Vec<u8>, Vec<usize>) {
    let mut shb = vec![0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0];
    shb.extend_from_slice(&(-1i64).to_le_bytes());
    let mut f = ng_block(0x0a0d_0d0a, &shb);
    for link in links {
        let mut idb = link.to_le_bytes().to_vec();
        idb.extend_from_slice(&[0, 0]);
        idb.extend_from_slice(&0u32.to_le_bytes());
        f.extend(ng_block(1, &idb));
    }
    let mut offsets = Vec::new();
    for (interface, r) in frames {
        let micros = u64::from(r.sec) * 1_000_000 + u64::from(r.usec);
        let mut epb = interface.to_le_bytes().to_vec();
        for v in [
            (micros >> 32) as u32,
            micros as u32,
            r.data.len() as u32,
            r.data.len() as u32,
        ] {
            epb.extend_from_slice(&v.to_le_bytes());
        }
        epb.extend_from_slice(&r.data);
        offsets.push(f.len());
        f.extend(ng_block(6, &epb));
    }
    (f, offsets)
}

/// The link types of the interfaces of a little-endian pcapng file, in order, and its
/// number of Enhanced Packet Blocks.
fn pcapng_interfaces(bytes: &[u8]) -> (Vec<u16>, usize) {
    assert_eq!(bytes[..4], [0x0a, 0x0d, 0x0d, 0x0a], "a pcapng file");
    let (mut links, mut packets, mut at) = (Vec::new(), 0, 0);
    while at < bytes.len() {
        let kind = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let len = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        match kind {
            1 => links.push(u16::from_le_bytes([bytes[at + 8], bytes[at + 9]])),
            6 => packets += 1,
            _ => {}
        }
        at += len;
    }
    (links, packets)
}

/// A TTP folder in `s` and its public key.
fn ttp(s: &Scratch) -> (String, String) {
    let dir = s.p("ttp");
    s.ok(&["ic", "ttp", "--out", &dir]);
    let public = format!("{dir}/ttp.pub");
    (dir, public)
}

#[test]
fn a_capture_cut_short_gives_its_complete_frames_then_the_offset() {
    let s = Scratch::new();
    let (ttp, ttp_pub) = ttp(&s);
    let signed = s.p("signed.pcap");
    s.ok(&["pla", "sign-pcap", &babel(), &signed, "--enroll", &ttp]);
    let babel_bytes = std::fs::read(babel()).unwrap();
    let signed_bytes = std::fs::read(&signed).unwrap();
    // Each capture as pcap and as pcapng, cut inside its last record's header and
    // inside its last record's data: 24 of babel's 25 frames are complete.
    let cuts = |name: &str, bytes: &[u8]| {
        let records = pcap_records(bytes);
        let last = records.last().unwrap().offset;
        let frames: Vec<(u32, &Record)> = records.iter().map(|r| (0, r)).collect();
        let (ng, offsets) = pcapng_file(&[113], &frames);
        let ng_last = *offsets.last().unwrap();
        [
            (
                format!("{name}-header.pcap"),
                bytes[..last + 9].to_vec(),
                last,
            ),
            (
                format!("{name}-data.pcap"),
                bytes[..bytes.len() - 3].to_vec(),
                last,
            ),
            (
                format!("{name}-header.pcapng"),
                ng[..ng_last + 6].to_vec(),
                ng_last,
            ),
            (
                format!("{name}-data.pcapng"),
                ng[..ng.len() - 5].to_vec(),
                ng_last,
            ),
        ]
        .map(|(file, bytes, offset)| (s.write(&file, bytes), offset))
    };
    for (cut, offset) in cuts("signed", &signed_bytes) {
        let out = format!("{cut}.accepted");
        let report = format!("{cut}.json");
        let o = s.exits(
            2,
            &[
                "pla",
                "verify-pcap",
                &cut,
                "--ttp-pub",
                &ttp_pub,
                "--out",
                &out,
                "--json",
                &report,
            ],
            &format!("the record at byte offset {offset} is incomplete"),
        );
        // The verdicts of the complete frames, then one line naming the file.
        assert!(stdout(&o).contains("accepted: 24"), "{cut}: {}", text(&o));
        let errors: Vec<&str> = o
            .stderr
            .split(|b| *b == b'\n')
            .filter_map(|l| std::str::from_utf8(l).ok())
            .filter(|l| l.starts_with("hopsig: error:"))
            .collect();
        assert_eq!(errors.len(), 1, "{}", text(&o));
        assert!(errors[0].contains(&cut), "{}", errors[0]);
        let r = json(&report);
        assert_eq!(r["frames"], 24, "{r}");
        assert_eq!(r["cut_short_at"], offset, "{r}");
        // --out holds the 24 complete frames, all accepted.
        let again = s.ok(&["pla", "verify-pcap", &out, "--ttp-pub", &ttp_pub]);
        assert!(text(&again).contains("accepted: 24"), "{}", text(&again));
        // The reference verifier (classic pcap only) gives the same verdicts and offset.
        if let (true, Some(python)) = (cut.ends_with(".pcap"), python()) {
            let o = Command::new(&python)
                .args([
                    &script("pla_reference.py"),
                    "verify",
                    &cut,
                    "--ttp-pub",
                    &ttp_pub,
                    "--json",
                ])
                .output()
                .unwrap();
            assert_eq!(code(&o), 2, "{}", text(&o));
            assert!(
                stderr(&o).contains(&format!("byte offset {offset} ")),
                "{}",
                text(&o)
            );
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(v["counts"]["accepted"], 24, "{v}");
        }
    }
    for (cut, offset) in cuts("babel", &babel_bytes) {
        let out = format!("{cut}.signed");
        let o = s.exits(
            2,
            &["pla", "sign-pcap", &cut, &out, "--enroll", &ttp],
            &format!("the record at byte offset {offset} is incomplete"),
        );
        assert!(
            stdout(&o).contains("24 of 24 frames"),
            "{cut}: {}",
            text(&o)
        );
        // The output holds the complete frames, signed.
        let v = s.ok(&["pla", "verify-pcap", &out, "--ttp-pub", &ttp_pub]);
        assert!(text(&v).contains("accepted: 24"), "{}", text(&v));
    }
}

#[test]
fn rejections_are_numbered_from_one_as_tshark_numbers_frames() {
    let s = Scratch::new();
    let (ttp, ttp_pub) = ttp(&s);
    let signed = s.p("signed.pcap");
    s.ok(&["pla", "sign-pcap", &babel(), &signed, "--enroll", &ttp]);
    // The last octet of the 25th and last frame flipped.
    let mut bytes = std::fs::read(&signed).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    let tampered = s.write("tampered.pcap", &bytes);
    let report = s.p("report.json");
    let o = s.exits(
        1,
        &[
            "pla",
            "verify-pcap",
            &tampered,
            "--ttp-pub",
            &ttp_pub,
            "--json",
            &report,
        ],
        "frame 25: bad_signature",
    );
    assert!(!text(&o).contains("frame 24:"), "{}", text(&o));
    let r = json(&report);
    assert_eq!(r["first_rejections"][0]["frame"], 25, "{r}");
}

/// An IPv6 UDP packet from `src` to 2001:db8::99 with `payload` octets, as a
/// jumbogram (RFC 2675: Payload Length 0, a Hop-by-Hop header with the Jumbo Payload
/// option, UDP Length 0) if `jumbo`.
fn udp6(src: [u8; 16], payload: usize, jumbo: bool) -> Vec<u8> {
    let dst: [u8; 16] = "2001:db8::99"
        .parse::<std::net::Ipv6Addr>()
        .unwrap()
        .octets();
    let udp_len = 8 + payload;
    let mut p = vec![0x60, 0, 0, 0];
    if jumbo {
        p.extend_from_slice(&[0, 0, 0, 64]);
    } else {
        p.extend_from_slice(&(udp_len as u16).to_be_bytes());
        p.extend_from_slice(&[17, 64]);
    }
    p.extend_from_slice(&src);
    p.extend_from_slice(&dst);
    if jumbo {
        // Next Header UDP, 8 octets, the option at offset 2 (4n + 2).
        p.extend_from_slice(&[17, 0, 0xc2, 4]);
        p.extend_from_slice(&((8 + udp_len) as u32).to_be_bytes());
    }
    let len = if jumbo { 0 } else { udp_len as u16 };
    p.extend_from_slice(&[0x0f, 0xa0, 0x00, 0x35]);
    p.extend_from_slice(&len.to_be_bytes());
    p.extend_from_slice(&[0, 0]);
    p.resize(p.len() + payload, 0x5a);
    p
}

#[test]
fn a_jumbogram_is_not_signed_and_not_checked_not_malformed() {
    let s = Scratch::new();
    let (ttp, ttp_pub) = ttp(&s);
    let src: [u8; 16] = "2001:db8::1"
        .parse::<std::net::Ipv6Addr>()
        .unwrap()
        .octets();
    let normal = udp6(src, 100, false);
    let jumbo = udp6(src, 70_000, true);
    assert!(jumbo.len() > 65_535 + 40);
    // LINKTYPE_IPV6: each frame is the packet.
    let input = s.write(
        "jumbo.pcap",
        pcap_file(
            229,
            &[(1_700_000_000, 0, &normal), (1_700_000_000, 1, &jumbo)],
        ),
    );
    let signed = s.p("signed.pcap");
    let o = s.ok(&["pla", "sign-pcap", &input, &signed, "--enroll", &ttp]);
    assert!(text(&o).contains("1 of 2 frames"), "{}", text(&o));
    assert!(text(&o).contains("(jumbogram 1)"), "{}", text(&o));
    let report = s.p("report.json");
    let v = s.ok(&[
        "pla",
        "verify-pcap",
        &signed,
        "--ttp-pub",
        &ttp_pub,
        "--json",
        &report,
    ]);
    assert!(text(&v).contains("jumbogram 1"), "{}", text(&v));
    let r = json(&report);
    assert_eq!(r["accepted"], 1, "{r}");
    assert_eq!(r["rejected"], 0, "{r}");
    assert_eq!(r["reasons"]["jumbogram"], 1, "{r}");
    // The reference verifier, written from the spec, says the same.
    let Some(python) = python() else { return };
    let out = py(
        &python,
        &[
            &script("pla_reference.py"),
            "verify",
            &signed,
            "--ttp-pub",
            &ttp_pub,
            "--json",
        ],
    );
    let out: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        out["verdicts"],
        serde_json::json!(["accepted", "jumbogram"]),
        "{out}"
    );
}

#[test]
fn a_pcapng_with_interfaces_of_different_link_types_is_signed_into_pcapng() {
    let s = Scratch::new();
    let (ttp, ttp_pub) = ttp(&s);
    // babel.pcap's frames (Linux SLL) on three interfaces: as they are, as raw IP
    // (LINKTYPE_RAW), and in Ethernet.
    let records = pcap_records(&std::fs::read(babel()).unwrap());
    let moved: Vec<Record> = records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let ip = &r.data[16..];
            let data = match i % 3 {
                0 => r.data.clone(),
                1 => ip.to_vec(),
                _ => [&[2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x86, 0xdd][..], ip].concat(),
            };
            Record { data, ..*r }
        })
        .collect();
    let frames: Vec<(u32, &Record)> = moved
        .iter()
        .enumerate()
        .map(|(i, r)| ((i % 3) as u32, r))
        .collect();
    let (ng, _) = pcapng_file(&[113, 101, 1], &frames);
    let input = s.write("mixed.pcapng", ng);
    let signed = s.p("signed.pcapng");
    let o = s.ok(&["pla", "sign-pcap", &input, &signed, "--enroll", &ttp]);
    assert!(text(&o).contains("25 of 25 frames"), "{}", text(&o));
    // pcapng out, the interfaces kept with their link types.
    let bytes = std::fs::read(&signed).unwrap();
    assert_eq!(pcapng_interfaces(&bytes), (vec![113, 101, 1], 25));
    let v = s.ok(&["pla", "verify-pcap", &signed, "--ttp-pub", &ttp_pub]);
    assert!(text(&v).contains("accepted: 25"), "{}", text(&v));
    // scapy reads every frame with its interface's link type: each of the 25 signed
    // packets is well formed, its payload intact.
    let Some(python) = python() else { return };
    let out = py(
        &python,
        &[
            &script("pla_scapy.py"),
            "check",
            &input,
            &signed,
            "--expect-signed",
            "25",
        ],
    );
    // ... and with its capture time (written in nanoseconds, read back the same).
    assert!(out.contains("OK") && !out.contains("capture time"), "{out}");
}
