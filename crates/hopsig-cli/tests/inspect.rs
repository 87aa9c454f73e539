//! `hopsig inspect` understands every file hopsig writes (issue 11 §4): key files of
//! every scheme, IBAS PKG, parameters and user keys, the `icnr-*` files of `hopsig ic`,
//! aggregates of every scheme, IBAS journals, HORS counter files and benchmark results,
//! in text and JSON.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{code, one_line, sign, stdout, text, Scratch};

fn inspect(s: &Scratch, path: &str) -> serde_json::Value {
    let o = s.ok(&["inspect", "--json", path]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // The text form says the same, one `name: value` line per field; the JSON adds
    // its `metadata` block (docs/spec/json.md), which is about the output, not the file.
    let plain = stdout(&s.ok(&["inspect", path]));
    assert!(v["metadata"].is_object(), "{v}");
    assert_eq!(
        plain.lines().count(),
        v.as_object().unwrap().len() - 1,
        "{plain}"
    );
    v
}

/// Every file the commands write, with what inspect must say of it.
#[test]
fn inspect_understands_every_file_hopsig_writes() {
    let s = Scratch::new();
    let mut expect: Vec<(String, serde_json::Value)> = Vec::new();
    let msg = s.write("m", "route");
    for scheme in hopsig_schemes::registry::schemes().iter().map(|x| x.id()) {
        let key = s.keygen(scheme, scheme);
        let agg = s.p(&format!("{scheme}.agg"));
        s.ok(&sign(&key, &msg, None, &agg, &[]));
        expect.push((
            key.clone(),
            serde_json::json!({"file": "key", "scheme": scheme, "kind": "secret"}),
        ));
        expect.push((
            format!("{key}.pub"),
            serde_json::json!({"file": "key", "scheme": scheme, "kind": "public"}),
        ));
        expect.push((
            agg,
            serde_json::json!({"file": "aggregate", "scheme": scheme, "signers": 1}),
        ));
    }
    let pkg = s.pkg(&[("/friends/Alice", "alice.key")]);
    let a1 = s.p("a1");
    s.ok(&sign(&s.p("alice.key"), &msg, None, &a1, &[]));
    let ibas =
        |role: &str| serde_json::json!({"file": "key", "scheme": "ibas-bls12381", "role": role});
    expect.push((format!("{pkg}/pkg.key"), ibas("pkg")));
    expect.push((format!("{pkg}/params.pub"), ibas("parameters")));
    expect.push((
        s.p("alice.key"),
        serde_json::json!({"file": "key", "role": "user key", "identity": "/friends/Alice"}),
    ));
    expect.push((a1, serde_json::json!({"file": "aggregate", "scheme": "ibas-bls12381", "signers": 1, "signature_bits": 1280})));
    let journal = std::fs::read_dir(s.path("state"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    expect.push((
        journal.to_string_lossy().into_owned(),
        serde_json::json!({"file": "IBAS journal", "states": 1, "unknown_messages": 0, "incomplete_last_line": false}),
    ));
    let ic = s.implicit_certificate("k163", "2001:db8::17");
    let icnr = |kind: &str, role: &str| serde_json::json!({"file": "key", "scheme": "icnr-k163", "curve": "K163", "kind": kind, "role": role});
    expect.push((
        format!("{}/ttp.key", ic.ttp),
        icnr("secret", "TTP secret key"),
    ));
    expect.push((ic.ttp_pub.clone(), icnr("public", "TTP public key")));
    expect.push((ic.blind.clone(), icnr("secret", "blind")));
    expect.push((ic.request.clone(), icnr("public", "request")));
    let mut answer = icnr("secret", "TTP answer");
    answer["identity"] = "2001:db8::17".into();
    expect.push((ic.issued.clone(), answer));
    let mut cert = icnr("public", "certificate");
    cert["identity"] = "2001:db8::17".into();
    expect.push((ic.cert.clone(), cert));
    expect.push((
        ic.key.clone(),
        serde_json::json!({"file": "key", "scheme": "ecdsa-k163", "kind": "secret"}),
    ));
    expect.push((
        ic.sig.clone(),
        serde_json::json!({"file": "aggregate", "scheme": "ecdsa-k163", "signers": 1}),
    ));
    // A KC-MT signer's durable HORS counter (hopsig_primitives::hors::Counter).
    let counter = s.path("kcmt.count");
    let mut c = hopsig_schemes::primitives::hors::Counter::persistent(&counter, 8).unwrap();
    c.reserve().unwrap();
    c.reserve().unwrap();
    expect.push((
        counter.to_string_lossy().into_owned(),
        serde_json::json!({"file": "HORS counter", "signatures": 2}),
    ));

    // Benchmark results (bench --json; reproduce writes the same for each table).
    let results = s.p("fig4.json");
    s.ok(&["bench", "fig4", "--quick", "--json", &results]);
    expect.push((
        results,
        serde_json::json!({"file": "benchmark results", "suite": "fig4", "quick": true}),
    ));

    // Replay results (replay --json; reproduce's replay.json has the same parts).
    let replayed = s.p("replay.json");
    let mrt = common::mrt("ris-updates.20100722.2015.gz");
    s.ok(&[
        "replay",
        &mrt,
        "--schemes",
        "none,kc-mt",
        "--json",
        &replayed,
    ]);
    expect.push((
        replayed,
        serde_json::json!({"file": "replay results", "schemes": ["none", "kc-mt"], "table_vi": false}),
    ));

    let mut wrong = Vec::new();
    for (path, want) in expect {
        let o = s.run(&["inspect", "--json", &path]);
        if code(&o) != 0 {
            wrong.push(format!("{path}: {}", text(&o)));
            continue;
        }
        let got = inspect(&s, &path);
        for (k, v) in want.as_object().unwrap() {
            if &got[k] != v {
                wrong.push(format!("{path}: {k} is {}, not {v}", got[k]));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// What does not read is exit 2 naming the file and the line or field: a journal line,
/// a counter line, an aggregate header, a file of no known format.
#[test]
fn inspect_names_what_is_wrong() {
    let s = Scratch::new();
    let key = format!("hopsig-ibas-wlog: 1 key {}\n", "ab".repeat(32));
    let cases = [
        ("journal", format!("{key}{} -\n{} {}\n", "00".repeat(16), "00".repeat(16), "11".repeat(32)).into_bytes(), "journal: line 3: w = 00000000000000000000000000000000 is recorded with two different messages"),
        ("journal2", format!("{key}zz\n").into_bytes(), "journal2: line 2: not \"W D\""),
        ("journal3", b"hopsig-ibas-wlog: 2\n".to_vec(), "journal3: line 1: not an IBAS journal"),
        ("counter", b"hopsig-hors-counter: 1\n1\n3\n".to_vec(), "counter: line 3: expected signature number 2"),
        ("agg", b"HS\x01\x99".to_vec(), "agg: malformed aggregate: unknown scheme code 0x99"),
        ("text", b"hello\n".to_vec(), "text: not a file hopsig reads"),
    ];
    for (name, bytes, needle) in cases {
        let path = s.write(name, bytes);
        let o = s.run(&["inspect", &path]);
        assert_eq!(code(&o), 2, "{name}: {}", text(&o));
        assert!(
            one_line(&o.stderr).contains(needle),
            "{name}: {needle:?} not in {}",
            text(&o)
        );
    }
}

/// `inspect --json` prints valid JSON whatever a file holds: an identity with DEL, C1
/// controls, line and paragraph separators and direction marks comes back as exactly
/// those characters (written as JSON `\uXXXX` escapes); the text form still escapes
/// them for the terminal.
#[test]
fn inspect_json_is_valid_json_for_any_identity() {
    let s = Scratch::new();
    let identity = "a\u{7f}b\u{85}c\u{9b}d\u{2028}e\u{2029}f\u{202e}g\u{200f}h\u{2066}i\u{1b}j\nk";
    s.pkg(&[(identity, "odd.key")]);
    let key = s.p("odd.key");
    let o = s.ok(&["inspect", "--json", &key]);
    let line = one_line(&o.stdout);
    let v: serde_json::Value =
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
    assert_eq!(v["identity"], identity);
    assert!(
        line.contains("\\u007f") && line.contains("\\u2028") && line.contains("\\u202e"),
        "{line}"
    );
    // What jq reads too, when it is there.
    if let Ok(jq) = std::process::Command::new("jq")
        .args(["-r", ".identity"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    {
        use std::io::Write;
        let mut jq = jq;
        jq.stdin.take().unwrap().write_all(line.as_bytes()).unwrap();
        let out = jq.wait_with_output().unwrap();
        assert!(out.status.success(), "jq rejects: {line}");
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            format!("{identity}\n")
        );
    }
    // The text form: every one of them escaped, one line per field.
    let plain = stdout(&s.ok(&["inspect", &key]));
    let shown = plain
        .lines()
        .find(|l| l.trim_start().starts_with("identity:"))
        .unwrap();
    assert!(
        shown.ends_with(
            "a\\u{7f}b\\u{85}c\\u{9b}d\\u{2028}e\\u{2029}f\\u{202e}g\\u{200f}h\\u{2066}i\\u{1b}j\\nk"
        ),
        "{shown}"
    );
    assert!(!plain
        .chars()
        .any(|c| c != '\n' && (c.is_control() || ('\u{2028}'..='\u{202e}').contains(&c))));
}

/// The beginning of a journal header (a creation cut short) reads as `sign` reads it:
/// a journal with no state recorded yet, not an error.
#[test]
fn inspect_reads_a_journal_cut_short_as_sign_does() {
    let s = Scratch::new();
    let path = s.write("cut.wlog", "hopsig-ibas-wlog: 1 key 0a1b");
    let v = inspect(&s, &path);
    assert_eq!(v["file"], "IBAS journal");
    assert_eq!(v["states"], 0);
    assert_eq!(v["incomplete_last_line"], true);
}

/// `reproduce`'s report.md and SVG plots are for people, not hopsig formats: `--help`
/// says so, and inspect calls them files it does not read.
#[test]
fn inspect_says_reports_are_not_its_formats() {
    let s = Scratch::new();
    let help = stdout(&s.ok(&["inspect", "--help"]));
    assert!(
        help.contains("report.md") && help.contains("unknown"),
        "{help}"
    );
    for (name, bytes) in [
        ("report.md", "# hopsig reproduce\n\n| scheme | n |\n"),
        (
            "plot.svg",
            "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>\n",
        ),
    ] {
        let path = s.write(name, bytes);
        s.exits(2, &["inspect", &path], "not a file hopsig reads");
    }
}
