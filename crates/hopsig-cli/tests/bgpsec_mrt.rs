//! `hopsig bgpsec sign-mrt`, `validate-mrt` and `inspect` end to end on the RIS files
//! of ../shared/data/mrt: every announcement signed and validated back with no false
//! result, tampered files refused with exit status 1, bad input with 2 and the file
//! named.
//!
//! The three update files are signed whole; the RIB dump (115,521 announcements,
//! 13,463 ASes: about two minutes here, most of it writing one key file per AS) is
//! signed up to `--limit 20000`. The full runs are in the report of issue 12.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::os::unix::fs::PermissionsExt;

use common::{stdout, text, Scratch};

/// The number after `prefix` on the line that starts with it.
fn number(out: &str, prefix: &str) -> u64 {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no line {prefix:?} in {out}"));
    line.split(|c: char| !c.is_ascii_digit())
        .find(|w| !w.is_empty())
        .unwrap()
        .parse()
        .unwrap()
}

/// Signs `name` into the scratch folder; returns the output and keys paths and the
/// summary.
fn sign(s: &Scratch, name: &str, extra: &[&str]) -> (String, String, String) {
    let (input, out, keys) = (
        common::mrt(name),
        s.p(&format!("{name}.mrt")),
        s.p(&format!("{name}.keys")),
    );
    let said = stdout(&s.ok(&sign_mrt(&input, &out, &keys, extra)));
    (out, keys, said)
}

/// Signs `name`, checks the summary's accounting and the key files, validates the
/// output: every UPDATE valid. `skips` are the skip lines expected, with their counts.
fn round_trip(name: &str, extra: &[&str], announcements: u64, skips: &[(&str, u64)]) {
    let s = Scratch::new();
    let (out, keys, said) = sign(&s, name, extra);
    let updates = number(&said, "signed: ");
    let read: Vec<u64> = said
        .lines()
        .next()
        .unwrap()
        .split(", ")
        .map(|w| number(w.rsplit(": ").next().unwrap(), ""))
        .collect();
    assert_eq!(read[1], announcements, "{said}");
    let skipped = number(&said, "skipped: ");
    assert_eq!(updates + skipped, announcements, "{said}");
    assert_eq!(skipped, skips.iter().map(|(_, n)| n).sum::<u64>(), "{said}");
    for (reason, n) in skips {
        assert_eq!(number(&said, &format!("  {reason}: ")), *n, "{said}");
    }
    let json = format!("{keys}/bgpsec_keys.json");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let entries = doc["bgpsec_keys"].as_array().unwrap();
    assert_eq!(entries.len() as u64, number(&said, "keys: "));
    for e in entries.iter().step_by(97) {
        let key = format!("{keys}/AS{}.key", e["asn"]);
        let mode = std::fs::metadata(&key).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{key}");
    }
    let report = s.p("report.json");
    let o = s.ok(&[
        "bgpsec",
        "validate-mrt",
        &out,
        "--keys",
        &json,
        "--threads",
        "2",
        "--json",
        &report,
    ]);
    let said = stdout(&o);
    assert_eq!(number(&said, "valid: "), updates, "{said}");
    assert_eq!(number(&said, "not valid: "), 0, "{said}");
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(r["updates"], updates);
    assert_eq!(r["valid"], updates);
    assert_eq!(r["not_valid"], 0);
    assert!(r["signatures"].as_u64().unwrap() > updates);
    assert!(r["updates_per_second"].as_f64().unwrap() > 0.0);
}

#[test]
fn ris_2016_round_trip() {
    // RIS beacons originate from AS 12654, the collector's own.
    round_trip(
        "ris-updates.20160811.1600.gz",
        &[],
        39_256,
        &[("target_on_path", 1_144)],
    );
}

#[test]
fn ris_2010_round_trip() {
    round_trip("ris-updates.20100722.2015.gz", &[], 5_067, &[]);
}

#[test]
fn ris_2007_round_trip() {
    round_trip(
        "ris-updates.20070211.0141.gz",
        &[],
        51_329,
        &[("as_set", 38)],
    );
}

#[test]
fn ris_bview_2002_round_trip_first_20000() {
    round_trip(
        "ris-bview.20020722.2337.gz",
        &["--limit", "20000"],
        20_000,
        &[("as_set", 4)],
    );
}

/// The records of an MRT file: (offset, length) of each.
fn records(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let len = u32::from_be_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        out.push((at, 12 + len));
        at += 12 + len;
    }
    out
}

/// A signed file with every 7th UPDATE's last octet (in its newest signature)
/// flipped: validate-mrt counts exactly those as not valid and exits 1; the others
/// stay valid. A file cut inside a record is bad input (2), the file named.
#[test]
fn tampered_and_cut_files() {
    let s = Scratch::new();
    let (out, keys, said) = sign(&s, "ris-updates.20100722.2015.gz", &["--limit", "700"]);
    let updates = number(&said, "signed: ");
    let json = format!("{keys}/bgpsec_keys.json");
    let mut bytes = std::fs::read(&out).unwrap();
    let all = records(&bytes);
    assert_eq!(all.len() as u64, updates);
    let mut flipped = 0;
    for (at, len) in all.iter().step_by(7) {
        bytes[at + len - 1] ^= 0x01;
        flipped += 1;
    }
    let bad = s.write("tampered.mrt", &bytes);
    let o = s.exits(
        1,
        &["bgpsec", "validate-mrt", &bad, "--keys", &json],
        "invalid: ",
    );
    let said = stdout(&o);
    assert_eq!(number(&said, "not valid: "), flipped, "{said}");
    assert_eq!(number(&said, "  bad_signature: "), flipped, "{said}");
    assert_eq!(number(&said, "valid: "), updates - flipped, "{said}");
    assert!(
        said.contains(&format!(
            "invalid: {bad}: {flipped} of {updates} UPDATEs are not valid"
        )),
        "{said}"
    );
    // The JSON is written before the exit status says 1.
    let report = s.p("t.json");
    s.exits(
        1,
        &[
            "bgpsec",
            "validate-mrt",
            &bad,
            "--keys",
            &json,
            "--json",
            &report,
        ],
        "invalid: ",
    );
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(r["not_valid_by_reason"]["bad_signature"], flipped);
    assert_eq!(r["first_failures"][0]["record"], 0);
    // Cut inside the last record.
    let original = std::fs::read(&out).unwrap();
    let cut = s.write("cut.mrt", &original[..original.len() - 3]);
    let o = s.exits(2, &["bgpsec", "validate-mrt", &cut, "--keys", &json], &cut);
    assert!(
        text(&o).contains(&format!("MRT record {} at byte", updates - 1)),
        "{}",
        text(&o)
    );
    // Keys of another AS set: nothing validates.
    let (_, other, _) = sign(&s, "ris-updates.20070211.0141.gz", &["--limit", "50"]);
    let o = s.exits(
        1,
        &[
            "bgpsec",
            "validate-mrt",
            &out,
            "--keys",
            &format!("{other}/bgpsec_keys.json"),
        ],
        "invalid: ",
    );
    assert_eq!(number(&stdout(&o), "valid: "), 0);
    // The original RIS file: its UPDATEs are unsigned.
    let o = s.exits(
        1,
        &[
            "bgpsec",
            "validate-mrt",
            &common::mrt("ris-updates.20100722.2015.gz"),
            "--keys",
            &json,
        ],
        "invalid: ",
    );
    assert!(stdout(&o).contains("  unsigned: "), "{}", stdout(&o));
}

/// `hopsig bgpsec sign-mrt IN OUT --suite 1 --keys KEYS` and `extra`.
fn sign_mrt<'a>(input: &'a str, out: &'a str, keys: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "bgpsec", "sign-mrt", input, out, "--suite", "1", "--keys", keys,
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn bad_input_exits_2_naming_the_file() {
    let s = Scratch::new();
    let (out, keys, _) = sign(&s, "ris-updates.20100722.2015.gz", &["--limit", "20"]);
    let json = format!("{keys}/bgpsec_keys.json");
    let (x, k) = (s.p("x.mrt"), s.p("k"));
    let missing = s.p("missing.mrt");
    s.exits(
        2,
        &["bgpsec", "validate-mrt", &missing, "--keys", &json],
        &missing,
    );
    s.exits(
        2,
        &["bgpsec", "validate-mrt", &out, "--keys", &missing],
        &missing,
    );
    let bad_json = s.write(
        "bad.json",
        r#"{"bgpsec_keys": [{"asn": 1, "ski": "00", "pubkey": ""}]}"#,
    );
    let named = format!("{bad_json}: bgpsec_keys[0].ski");
    s.exits(
        2,
        &["bgpsec", "validate-mrt", &out, "--keys", &bad_json],
        &named,
    );
    let text_file = s.write(
        "notes.txt",
        "this is not an MRT file, nor anything like one\n",
    );
    s.exits(2, &sign_mrt(&text_file, &x, &k, &[]), &text_file);
    assert!(
        !s.path("x.mrt").exists() && !s.path("k").exists(),
        "nothing left behind"
    );
    let empty = s.write("empty.mrt", "");
    let named = format!("{empty}: empty file: no MRT record");
    s.exits(2, &sign_mrt(&empty, &x, &k, &[]), &named);
    s.exits(
        2,
        &["bgpsec", "validate-mrt", &empty, "--keys", &json],
        &named,
    );
    s.exits(2, &sign_mrt(&missing, &x, &k, &[]), &missing);
    let input = common::mrt("ris-updates.20100722.2015.gz");
    let mut bad_suite = sign_mrt(&input, &x, &k, &[]);
    bad_suite[5] = "9";
    s.exits(
        2,
        &bad_suite,
        "unknown algorithm suite '9' (available: 1 (ecdsa-p256-sha256)",
    );
    // Outputs that exist are kept without --force, and replaced with it.
    let (k2, y) = (s.p("k2"), s.p("y.mrt"));
    s.exits(
        2,
        &sign_mrt(&input, &out, &k2, &["--limit", "5"]),
        "--force",
    );
    s.exits(
        2,
        &sign_mrt(&input, &y, &keys, &["--limit", "5"]),
        "--force",
    );
    s.ok(&sign_mrt(&input, &out, &keys, &["--limit", "5", "--force"]));
    s.ok(&["bgpsec", "validate-mrt", &out, "--keys", &json]);
    // Never over the input, even with --force.
    let copy = s.write("copy.mrt.gz", std::fs::read(&input).unwrap());
    let k3 = s.p("k3");
    s.exits(2, &sign_mrt(&copy, &copy, &k3, &["--force"]), &copy);
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        std::fs::read(&input).unwrap()
    );
}

/// inspect prints bgpkit's pipe line, the Secure_Path and the signatures, for a file
/// and for one message in hex; --json says the same.
#[test]
fn inspect_files_and_hex_messages() {
    let s = Scratch::new();
    let (out, _, said) = sign(&s, "ris-updates.20100722.2015.gz", &["--limit", "30"]);
    let updates = number(&said, "signed: ");
    let o = s.ok(&["bgpsec", "inspect", &out]);
    let shown = stdout(&o);
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("A|")).count() as u64,
        updates
    );
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("  secure_path: "))
            .count() as u64,
        updates
    );
    let first: Vec<&str> = lines[0].split('|').collect();
    assert_eq!(first.len(), 14);
    assert_eq!(first[0], "A");
    let path: Vec<&str> = first[5].split(' ').collect();
    assert_eq!(first[3], path[0], "the peer is the newest AS");
    assert_eq!(first[6], "IGP");
    let secure = lines[1].strip_prefix("  secure_path: ").unwrap();
    assert_eq!(secure.split(' ').next().unwrap(), format!("{}(1)", path[0]));
    let sig: Vec<&str> = lines[2].split(' ').collect();
    assert_eq!(
        &sig[..8],
        [
            "",
            "",
            "signature:",
            "suite",
            "1",
            "(ecdsa-p256-sha256)",
            "AS",
            path[0]
        ]
    );
    assert_eq!(sig[9].len(), 40);
    assert!(sig[10].starts_with("30"), "DER");
    // The JSON lines agree.
    let o = s.ok(&["bgpsec", "inspect", &out, "--json"]);
    let first: serde_json::Value =
        serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert_eq!(first["record"], 0);
    assert_eq!(first["elems"][0]["as_path"], path.join(" "));
    assert_eq!(first["bgpsec_path"]["signatures"][0]["ski"], sig[9]);
    assert_eq!(
        first["bgpsec_path"]["secure_path"][0]["asn"].to_string(),
        path[0]
    );
    // The first record's BGP message in hex (after the 12-octet MRT header and the
    // 4 + 4 + 2 + 2 + 4 + 4 octets of BGP4MP_MESSAGE_AS4 over IPv4).
    let bytes = std::fs::read(&out).unwrap();
    let (at, len) = records(&bytes)[0];
    let message = &bytes[at + 32..at + len];
    let hex: String = message.iter().map(|b| format!("{b:02X} ")).collect();
    let o = s.ok(&["bgpsec", "inspect", &hex]);
    let bare = stdout(&o);
    let bare_first: Vec<&str> = bare.lines().next().unwrap().split('|').collect();
    assert_eq!(
        bare_first[1..4],
        ["", "", ""],
        "no session for a bare message"
    );
    assert_eq!(
        bare_first[4..],
        lines[0].split('|').collect::<Vec<_>>()[4..]
    );
    assert_eq!(
        bare.lines().skip(1).collect::<Vec<_>>(),
        lines[1..bare.lines().count()]
    );
    s.exits(
        2,
        &["bgpsec", "inspect", "zz"],
        "neither a file nor a BGP message in hex",
    );
    s.exits(2, &["bgpsec", "inspect", "FFFF"], "does not decode");
    let junk = s.write("junk.mrt", [0u8, 0, 0, 0, 0, 16, 0, 4, 0, 0, 0, 2, 0, 0]);
    s.exits(2, &["bgpsec", "inspect", &junk], &junk);
    // The RIS file itself: unsigned UPDATEs, no signature lines.
    let o = s.ok(&[
        "bgpsec",
        "inspect",
        &common::mrt("ris-updates.20100722.2015.gz"),
    ]);
    let ris = stdout(&o);
    assert!(ris.lines().any(|l| l.starts_with("W|")) && !ris.contains("secure_path"));
}

/// The experimental suites (docs/spec/bgpsec-bgr.md) through the same commands: BGR's
/// aggregate and n × RSA, the first 60 announcements (RSA key generation takes about a
/// tenth of a second per AS). Every UPDATE valid; every 5th with its last octet flipped
/// not valid, and counted under the suite's fault.
#[test]
fn experimental_suites_round_trip() {
    for (suite, fault) in [("bgr-rsa2048", "bad_aggregate"), ("0xf8", "bad_signature")] {
        let s = Scratch::new();
        let (input, out, keys) = (
            common::mrt("ris-updates.20100722.2015.gz"),
            s.p("o.mrt"),
            s.p("keys"),
        );
        let mut args = sign_mrt(&input, &out, &keys, &["--limit", "60"]);
        args[5] = suite;
        let said = stdout(&s.ok(&args));
        let updates = number(&said, "signed: ");
        assert_eq!(updates, 60, "{said}");
        let json = format!("{keys}/bgpsec_keys.json");
        let o = s.ok(&["bgpsec", "validate-mrt", &out, "--keys", &json]);
        assert_eq!(number(&stdout(&o), "valid: "), updates);
        let mut bytes = std::fs::read(&out).unwrap();
        let all = records(&bytes);
        for (at, len) in all.iter().step_by(5) {
            bytes[at + len - 1] ^= 0x01;
        }
        let bad = s.write("bad.mrt", &bytes);
        let o = s.exits(
            1,
            &["bgpsec", "validate-mrt", &bad, "--keys", &json],
            "invalid: ",
        );
        assert_eq!(
            number(&stdout(&o), &format!("  {fault}: ")),
            12,
            "{suite}: {}",
            stdout(&o)
        );
        assert_eq!(number(&stdout(&o), "valid: "), 48);
    }
}

/// `sign-mrt --json`: the summary's counts are the text summary's, the keys are the
/// folder's, and the file is placed with OUT and the keys (and not at all when an
/// output exists).
#[test]
fn sign_mrt_json_summary_matches_the_text_and_the_folder() {
    let s = Scratch::new();
    let report = s.p("sign.json");
    let (out, keys, said) = sign(
        &s,
        "ris-updates.20100722.2015.gz",
        &["--limit", "300", "--json", &report],
    );
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(r["updates"].as_u64().unwrap(), number(&said, "signed: "));
    assert_eq!(r["skipped"].as_u64().unwrap(), number(&said, "skipped: "));
    assert_eq!(r["announcements"], 300);
    assert_eq!(
        r["updates"].as_u64().unwrap() + r["skipped"].as_u64().unwrap(),
        300
    );
    assert_eq!(r["suite"], 1);
    assert_eq!(r["suite_name"], "ecdsa-p256-sha256");
    assert_eq!(r["output"], out.as_str());
    assert_eq!(r["keys"], keys.as_str());
    let files = std::fs::read_dir(&keys)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".key")
        })
        .count() as u64;
    assert_eq!(r["router_keys"].as_u64().unwrap(), files);
    assert_eq!(r["keys_generated"].as_u64().unwrap(), files);
    assert_eq!(r["metadata"]["command"], "hopsig bgpsec sign-mrt", "{r}");
    // An existing report: refused before the run, nothing new placed.
    let out2 = s.p("second.mrt");
    let keys2 = s.p("second.keys");
    s.exits(
        2,
        &sign_mrt(
            &common::mrt("ris-updates.20100722.2015.gz"),
            &out2,
            &keys2,
            &["--json", &report],
        ),
        &report,
    );
    assert!(!std::path::Path::new(&out2).exists());
}
