//! `hopsig replay` end to end: exit codes, what it prints, the Fig. 5 panels and the
//! JSON it writes (docs/spec/replay.md).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{stdout, Scratch};

const SMALL: &str = "ris-updates.20100722.2015.gz";

#[test]
fn bad_usage_and_input_exit_2() {
    let s = Scratch::new();
    let f = common::mrt(SMALL);
    s.exits(
        2,
        &["replay", &f, "--schemes", "none,s-bgp"],
        "unknown scheme 's-bgp'",
    );
    s.exits(
        2,
        &["replay", &f, "--schemes", "none", "--peer", "1"],
        "no peer AS1",
    );
    s.exits(
        2,
        &["replay", &f, "--schemes", "none", "--peer", "most"],
        "--peer takes",
    );
    s.exits(
        2,
        &["replay", &f, "--speedup", "0"],
        "--speedup must be a positive",
    );
    s.exits(2, &["replay", &f, "--threads", "0"], "at least 1");
    s.exits(2, &["replay", &f, "--mode", "eager"], "eager");
    let empty = s.write("empty.mrt", b"");
    s.exits(
        2,
        &["replay", &empty, "--schemes", "none"],
        "empty.mrt: empty file: no MRT record",
    );
    s.exits(2, &["replay", &s.p("missing.mrt")], "missing.mrt");
    let rib = s.write("rib.mrt", b"\x00\x01");
    s.exits(
        2,
        &["replay", &f, "--schemes", "none", "--rib", &rib],
        "rib.mrt",
    );
}

#[test]
fn replays_a_peer_prints_the_tables_and_writes_figures_and_json() {
    let s = Scratch::new();
    let f = common::mrt(SMALL);
    let json = s.p("r.json");
    let out = s.p("fig");
    let args = [
        "replay",
        &f,
        "--schemes",
        "none,kc-mt",
        "--peer",
        "busiest",
        "--limit",
        "25",
        "--mode",
        "strict",
        "--threads",
        "2",
        "--speedup",
        "4",
        "--json",
        &json,
        "--out",
        &out,
    ];
    let o = s.ok(&args);
    let text = stdout(&o);
    for needle in [
        "Paper Table IV",
        "Paper Table V",
        "Table IV: duration",
        "first 25 announcements",
        "kc-mt",
        "2 thread(s), speedup 4",
    ] {
        assert!(text.contains(needle), "{needle:?} not in {text}");
    }
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let r = &v["replay"];
    assert_eq!(r["trace"]["announcements"], 25);
    assert_eq!(r["mode"], "strict");
    assert_eq!(r["threads"], 2);
    assert_eq!(r["schemes"].as_array().unwrap().len(), 2);
    assert!(v["memory"].is_null());
    for scheme in r["schemes"].as_array().unwrap() {
        let sent: u64 = scheme["outgoing_per_s"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_u64().unwrap())
            .sum();
        assert_eq!(sent, 25);
        assert!(scheme["sign_us"]["mean"].as_f64().unwrap() > 0.0);
    }
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // Named for the file, the peer and the speed-up, one per scheme.
    let asn = r["peer"]["asn"].as_u64().unwrap();
    let stem = format!("fig5-ris-updates-20100722-2015-busiest-AS{asn}-x4");
    assert_eq!(
        names,
        [format!("{stem}-kc-mt.svg"), format!("{stem}-none.svg")]
    );
    let svg = std::fs::read_to_string(std::path::Path::new(&out).join(&names[0])).unwrap();
    assert!(svg.starts_with("<svg") && svg.matches("<polyline").count() == 2);
    // Outputs are not overwritten without --force.
    s.exits(2, &args, "r.json");
    let mut forced = args.to_vec();
    forced.push("--force");
    s.ok(&forced);
}
