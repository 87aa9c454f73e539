//! `hopsig pla sign-pcap` / `verify-pcap` end to end, read back by independent tools:
//! scapy (`interop/python/pla_scapy.py check`: every signed frame well-formed IPv6 with
//! the option in the chain and the payload intact) and a pure-Python verifier written
//! from docs/spec/pla.md (`interop/python/pla_reference.py`), in both directions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::{code, text, Scratch};

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
