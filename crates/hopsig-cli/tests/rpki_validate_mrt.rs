//! `hopsig bgpsec validate-mrt --rpki FILE` (issue 24 §3): the BGPsec verdict of each
//! announcement beside its route origin validation and ASPA verdicts, and their cross
//! table, on a signed slice of a RIS trace; `--keys` alone prints what it always did.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{stdout, Scratch};

fn json(path: &str) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// A signed slice of the 2010 RIS trace and its keys' JSON.
fn signed(s: &Scratch) -> (String, String) {
    let input = common::mrt("ris-updates.20100722.2015.gz");
    let (out, keys) = (s.p("signed.mrt"), s.p("keys"));
    s.ok(&[
        "bgpsec", "sign-mrt", &input, &out, "--suite", "1", "--keys", &keys, "--limit", "300",
    ]);
    (out, format!("{keys}/bgpsec_keys.json"))
}

/// Runs validate-mrt with `args` after the file and returns its JSON summary (the
/// exit status is 0 or 1: some UPDATEs of the trace may be not valid).
fn validate(s: &Scratch, mrt: &str, args: &[&str], name: &str) -> (String, serde_json::Value) {
    let report = s.p(name);
    let mut all = vec!["bgpsec", "validate-mrt", mrt, "--json", &report];
    all.extend_from_slice(args);
    let o = s.run(&all);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (stdout(&o), json(&report))
}

#[test]
fn three_verdicts_per_announcement_and_their_cross_table() {
    let s = Scratch::new();
    let (mrt, keys) = signed(&s);
    let (plain, plain_json) = validate(&s, &mrt, &["--keys", &keys], "plain.json");
    assert!(!plain.contains("cross"), "{plain}");
    assert!(plain_json.get("cross").is_none());

    // Every prefix covered by a VRP of an AS that originates nothing: Invalid.
    let roas = serde_json::json!({
        "roas": [
            {"prefix": "0.0.0.0/0", "maxLength": 32, "asn": 64_496, "ta": "test"},
            {"prefix": "::/0", "maxLength": 128, "asn": 64_496, "ta": "test"},
        ],
    });
    let roas = s.write("roas.json", roas.to_string());
    let (said, r) = validate(
        &s,
        &mrt,
        &["--keys", &keys, "--rpki", &roas, "--role", "customer"],
        "rpki.json",
    );
    // The BGPsec counts are those of --keys alone.
    for k in ["updates", "valid", "not_valid", "signatures"] {
        assert_eq!(r[k], plain_json[k], "{k}");
    }
    let announcements = r["announcements"].as_u64().unwrap();
    assert!(announcements >= r["updates"].as_u64().unwrap(), "{said}");
    let cross = r["cross"].as_array().unwrap();
    let sum = |f: &dyn Fn(&serde_json::Value) -> bool| -> u64 {
        cross
            .iter()
            .filter(|c| f(c))
            .map(|c| c["count"].as_u64().unwrap())
            .sum()
    };
    assert_eq!(sum(&|_| true), announcements);
    // Not one is Valid or NotFound for ROV: all covered.
    assert_eq!(
        r["rov"]["invalid"].as_u64().unwrap(),
        announcements,
        "{said}"
    );
    assert_eq!(sum(&|c| c["rov"] == "invalid"), announcements);
    // No ASPA: all Unknown.
    assert_eq!(r["aspa"]["unknown"].as_u64().unwrap(), announcements);
    assert_eq!(r["aspa_role"], "customer");
    // The BGPsec column agrees with the BGPsec counts: each valid UPDATE gives at
    // least one valid announcement, each not-valid one at least one not-valid.
    let valid = sum(&|c| c["bgpsec"] == "valid");
    assert!(valid >= r["valid"].as_u64().unwrap());
    assert!(announcements - valid >= r["not_valid"].as_u64().unwrap());
    assert!(said.contains("cross (bgpsec, rov, aspa): count"), "{said}");
    assert!(
        said.lines().any(|l| l.starts_with("rov: invalid ")),
        "{said}"
    );

    // The keys file as an --rpki source alone: the same BGPsec verdicts, no VRP.
    let (_, none) = validate(&s, &mrt, &["--rpki", &keys], "none.json");
    assert_eq!(none["rov"]["not-found"].as_u64().unwrap(), announcements);
    assert_eq!(
        none["valid"], plain_json["valid"],
        "--rpki with the keys file alone"
    );
}

#[test]
fn keys_rpki_or_rtr_is_needed_and_a_bad_role_is_refused() {
    let s = Scratch::new();
    let o = s.run(&["bgpsec", "validate-mrt", "x.mrt"]);
    assert_eq!(o.status.code(), Some(2));
    let roas = s.write("roas.json", r#"{"roas": []}"#);
    let o = s.run(&[
        "bgpsec",
        "validate-mrt",
        "x.mrt",
        "--rpki",
        &roas,
        "--role",
        "sibling",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--role"));
}

/// `--rtr`: the keys of the signed trace served by StayRTR (with a VRP) give the
/// BGPsec verdicts `--keys` gives, and the VRP its ROV verdicts; `hopsig replay
/// --rtr` takes the cache's keys into its table.
#[test]
fn validate_mrt_and_replay_take_keys_and_vrps_from_stayrtr() {
    let Some(bin) = hopsig_testkit::stayrtr::StayRtr::find(&hopsig_testkit::root()) else {
        hopsig_testkit::missing("StayRTR (tools/stayrtr; .ci/run builds it into target/stayrtr)");
        return;
    };
    let s = Scratch::new();
    let (mrt, keys) = signed(&s);
    let (_, plain) = validate(&s, &mrt, &["--keys", &keys], "plain.json");
    let mut doc = json(&keys);
    for k in doc["bgpsec_keys"].as_array_mut().unwrap() {
        k["ta"] = "lab".into();
    }
    // Halves of each address space: StayRTR refuses a /0 ("Maxlength wrong").
    doc["roas"] = serde_json::json!([
        {"prefix": "0.0.0.0/1", "maxLength": 32, "asn": 64_496, "ta": "lab"},
        {"prefix": "128.0.0.0/1", "maxLength": 32, "asn": 64_496, "ta": "lab"},
        {"prefix": "::/1", "maxLength": 128, "asn": 64_496, "ta": "lab"},
        {"prefix": "8000::/1", "maxLength": 128, "asn": 64_496, "ta": "lab"},
    ]);
    doc["metadata"] = serde_json::json!({"buildtime": "2026-01-01T00:00:00Z"});
    let served = s.write("served.json", doc.to_string());
    let cache =
        hopsig_testkit::stayrtr::StayRtr::start(&bin, served.as_ref(), 60, &s.path("stayrtr.log"))
            .unwrap();
    let rtr = format!("127.0.0.1:{}", cache.port);
    let (said, r) = validate(&s, &mrt, &["--rtr", &rtr], "rtr.json");
    for k in ["updates", "valid", "not_valid", "signatures"] {
        assert_eq!(r[k], plain[k], "{k}: {said}\n{}", cache.log());
    }
    assert_eq!(r["rpki"]["router_keys"], plain["router_keys"]);
    assert_eq!(r["rpki"]["vrps"], 4, "{said}\n{}", cache.log());
    let announcements = r["announcements"].as_u64().unwrap();
    assert_eq!(r["rov"]["invalid"].as_u64().unwrap(), announcements);
    // The peer role by default: no ASPA, Unknown.
    assert_eq!(r["aspa_role"], "peer");
    // replay: the cache's keys join the table; the replay's own still validate.
    let o = s.ok(&[
        "replay",
        &common::mrt("ris-updates.20100722.2015.gz"),
        "--schemes",
        "bgpsec-ecdsa",
        "--limit",
        "20",
        "--rtr",
        &rtr,
    ]);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("router keys"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    drop(cache);
}
