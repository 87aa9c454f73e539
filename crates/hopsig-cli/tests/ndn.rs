//! `hopsig ndn publisher | moderator | subscriber` through a private ndnd (tools/ndnd,
//! built by .ci/run), for IBAS, RSA-2048 and ECDSA P-256: Bob gets Alice's message via
//! Government and the subscriber exits 0; with a wrong trusted key it exits 1; bad
//! usage exits 2. Without ndnd the test says it skips, and fails under CI=true.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;
use std::process::{Child, Stdio};

use common::Scratch;
use hopsig_ndn::ndnd::Ndnd;

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn ndnd() -> Option<PathBuf> {
    let found = Ndnd::find(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."));
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs ndnd (.ci/run builds it)"
        );
        eprintln!("skipped: no ndnd (CI builds it)");
    }
    found
}

/// Key options of each role for `scheme`, after making the keys in `s`.
fn keys(s: &Scratch, scheme: &str) -> (Vec<String>, Vec<String>, Vec<String>) {
    let (alice, gov) = ("/wonderland/Alice", "/moderators/Government");
    if scheme == "ibas" {
        s.ok(&["pkg", "setup", "--out", &s.p("pkg")]);
        for (id, file) in [(alice, "alice.key"), (gov, "gov.key")] {
            s.ok(&[
                "pkg",
                "extract",
                "--pkg",
                &s.p("pkg"),
                "--id",
                id,
                "--out",
                &s.p(file),
            ]);
        }
        let params = vec!["--params".into(), s.p("pkg/params.pub")];
        let signer = |k: &str, j: &str| {
            vec![
                "--key".into(),
                s.p(k),
                "--journal".into(),
                s.p(j),
                "--new-journal".into(),
            ]
        };
        let mut m = signer("gov.key", "gov.journal");
        m.extend(params.clone());
        return (signer("alice.key", "alice.journal"), m, params);
    }
    let id = if scheme == "rsa" {
        "rsa2048-concat"
    } else {
        "ecdsa-p256-concat"
    };
    for f in ["alice.key", "gov.key"] {
        s.ok(&["keygen", "--scheme", id, "--out", &s.p(f)]);
    }
    let trust = vec![
        "--trust".into(),
        format!("{alice}={}", s.p("alice.key.pub")),
        "--trust".into(),
        format!("{gov}={}", s.p("gov.key.pub")),
    ];
    let mut m = vec!["--key".into(), s.p("gov.key")];
    m.extend(trust.clone());
    (vec!["--key".into(), s.p("alice.key")], m, trust)
}

#[test]
fn bob_gets_alices_message_via_government_with_each_scheme() {
    let Some(bin) = ndnd() else { return };
    for scheme in ["ibas", "rsa", "ecdsa"] {
        let s = Scratch::new();
        let fw = Ndnd::start(&bin, &s.path("ndnd")).unwrap();
        let unix = format!("unix://{}", fw.socket.display());
        let tcp = format!("tcp://{}", fw.tcp);
        let (alice, gov, bob) = keys(&s, scheme);
        s.write("message.txt", "I am safe.");
        let role = |name: &str, mut args: Vec<String>, extra: &[&str]| {
            let mut all: Vec<String> = vec![
                "ndn".into(),
                name.into(),
                "--scheme".into(),
                scheme.into(),
                "--forwarder".into(),
                unix.clone(),
            ];
            all.append(&mut args);
            all.extend(extra.iter().map(|x| x.to_string()));
            let log = std::fs::File::create(s.path(&format!("{name}.log"))).unwrap();
            Running(
                s.cmd(&all)
                    .stdout(Stdio::null())
                    .stderr(log)
                    .spawn()
                    .unwrap(),
            )
        };
        let _p = role(
            "publisher",
            alice,
            &[
                "--id",
                "/wonderland/Alice",
                "--message",
                &s.p("message.txt"),
                "--seq",
                "2",
                "--count",
                "2",
            ],
        );
        let _m = role(
            "moderator",
            gov,
            &["--id", "/moderators/Government", "--count", "2"],
        );
        // Wait until both registered (their logs say so).
        let start = std::time::Instant::now();
        while ["publisher", "moderator"].iter().any(|r| {
            !std::fs::read_to_string(s.path(&format!("{r}.log")))
                .unwrap_or_default()
                .contains("registered")
        }) {
            assert!(start.elapsed().as_secs() < 20, "roles did not register");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let mut args: Vec<String> = vec![
            "ndn".into(),
            "subscriber".into(),
            "--scheme".into(),
            scheme.into(),
            "--forwarder".into(),
            tcp.clone(),
            "--moderator".into(),
            "/moderators/Government".into(),
            "--publisher".into(),
            "/wonderland/Alice".into(),
            "--json".into(),
        ];
        args.extend(bob.clone());
        let o = s.run(&args);
        assert_eq!(
            common::code(&o),
            0,
            "{scheme}: {}\n{}\n{}",
            common::text(&o),
            std::fs::read_to_string(s.path("publisher.log")).unwrap_or_default(),
            std::fs::read_to_string(s.path("moderator.log")).unwrap_or_default()
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["message"], "I am safe.", "{scheme}");
        assert_eq!(
            v["name"],
            "/moderators/Government/safetyConfirmation/wonderland/Alice/2/1"
        );
        // The wrong verification key: another PKG's parameters, or Government's key
        // trusted as Alice's. The signature does not verify: exit 1.
        let wrong: Vec<String> = if scheme == "ibas" {
            s.ok(&["pkg", "setup", "--out", &s.p("pkg2")]);
            vec!["--params".into(), s.p("pkg2/params.pub")]
        } else {
            vec![
                "--trust".into(),
                format!("/wonderland/Alice={}", s.p("gov.key.pub")),
                "--trust".into(),
                format!("/moderators/Government={}", s.p("gov.key.pub")),
            ]
        };
        args.truncate(args.len() - bob.len());
        args.extend(wrong);
        let o = s.run(&args);
        assert_eq!(common::code(&o), 1, "{scheme}: {}", common::text(&o));
        drop(fw);
    }
}

#[test]
fn bad_usage_exits_2() {
    let s = Scratch::new();
    // An unreachable forwarder, a one-component identity, an unknown transport.
    for (moderator, forwarder) in [
        ("/m/G", "unix:///nonexistent/sock"),
        ("/m", "unix:///nonexistent/sock"),
        ("/m/G", "carrier-pigeon://x"),
    ] {
        let args = [
            "ndn",
            "subscriber",
            "--scheme",
            "ibas",
            "--params",
            "x",
            "--moderator",
            moderator,
            "--publisher",
            "/w/A",
            "--forwarder",
            forwarder,
        ];
        let o = s.run(&args);
        assert_eq!(common::code(&o), 2, "{args:?}: {}", common::text(&o));
    }
}

#[test]
fn bench_ndn_counts_table_3_from_real_packets() {
    let s = Scratch::new();
    let json = s.p("ndn.json");
    let o = s.ok(&["bench", "ndn", "--quick", "--json", &json]);
    assert!(
        common::stdout(&o).contains("004 Table 3"),
        "{}",
        common::text(&o)
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 5 * 3 * 2);
    for r in rows {
        let parts = [
            "tlv",
            "name",
            "meta_info",
            "content",
            "signature_info",
            "signature_value",
        ];
        let sum: u64 = parts.iter().map(|k| r[k].as_u64().unwrap()).sum();
        assert_eq!(sum, r["total"].as_u64().unwrap(), "{r}");
        if r["scheme"] == "IBAS" {
            // 004 §5.3: a 5-octet SignatureInfo; the 160-octet value in its TLV.
            assert_eq!(
                (r["signature_info"].as_u64(), r["signature_value"].as_u64()),
                (Some(5), Some(162)),
                "{r}"
            );
        }
    }
    // The content grows with x by exactly x.
    let content = |scheme: &str, x: u64| {
        rows.iter()
            .find(|r| {
                r["scheme"] == scheme
                    && r["x"] == x
                    && r["packet"].as_str().unwrap().starts_with("(4)")
            })
            .unwrap()["content"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(content("IBAS", 100) - content("IBAS", 0), 100);
    let o = s.ok(&["inspect", "--json", &json]);
    let inspected: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(inspected["suite"], "ndn");
    let reduction = v["reduction_vs_rsa2048_percent"].as_f64().unwrap();
    assert!(reduction > 0.0 && reduction < 100.0);
    // The relay model's RTT through ndnd, when there is one (CI builds it).
    if ndnd().is_some() {
        let rtt = v["rtt"].as_array().unwrap();
        assert_eq!(rtt.len(), 3, "{v}");
        for r in rtt {
            assert_eq!(r["runs"], 5);
            let (total, crypto) = (
                r["rtt_mean_ms"].as_f64().unwrap(),
                r["crypto_mean_ms"].as_f64().unwrap(),
            );
            assert!(total > 0.0 && crypto > 0.0 && crypto < total, "{r}");
        }
        let throughput = v["throughput"].as_array().unwrap();
        assert_eq!(throughput.len(), 3, "{v}");
        for t in throughput {
            assert_eq!(t["requests"], 10);
            assert!(
                t["per_second"].as_f64().unwrap() > 0.0
                    && t["processing_us"].as_f64().unwrap() > 0.0,
                "{t}"
            );
        }
    }
}
