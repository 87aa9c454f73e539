//! `hopsig bgpsec keygen` and `hopsig bgpsec keys`, and `validate-mrt --keys` with a
//! keys folder instead of rpki-client's JSON.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::os::unix::fs::PermissionsExt;

use common::{code, stdout, text, Scratch};

/// A PEM `PUBLIC KEY` block of the base64 DER `b64` (RFC 7468: 64 columns).
fn pem(b64: &str) -> String {
    let lines: Vec<&str> = b64
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    format!(
        "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----\n",
        lines.join("\n")
    )
}

fn json(path: &str) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn keygen_writes_a_secret_key_and_its_rpki_client_entry() {
    let s = Scratch::new();
    for (suite, asn) in [("1", "64496"), ("bgr-rsa2048", "64497"), ("0xf8", "64498")] {
        let key = s.p(&format!("AS{asn}.key"));
        let said = stdout(&s.ok(&[
            "bgpsec", "keygen", "--asn", asn, "--out", &key, "--suite", suite,
        ]));
        let mode = std::fs::metadata(&key).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{suite}");
        let doc = json(&format!("{key}.json"));
        let entry = &doc["bgpsec_keys"][0];
        assert_eq!(entry["asn"].to_string(), asn);
        let ski = entry["ski"].as_str().unwrap();
        assert!(
            said.starts_with(&format!("AS{asn} ski {ski} suite ")),
            "{said}"
        );
        // `keys` reads the entry back and names the suites that accept the key.
        let listed = stdout(&s.ok(&["bgpsec", "keys", &format!("{key}.json")]));
        assert!(
            listed.starts_with(&format!("AS{asn} ski {ski} suites ")),
            "{listed}"
        );
    }
    // The suite-1 key is plain PKCS #8 PEM (what `openssl pkey` reads).
    let secret = std::fs::read_to_string(s.path("AS64496.key")).unwrap();
    assert!(
        secret.starts_with("-----BEGIN PRIVATE KEY-----\n"),
        "{secret}"
    );

    // Never over an existing key without --force; never AS 0 or AS_TRANS.
    let key = s.p("AS64496.key");
    s.exits(
        2,
        &["bgpsec", "keygen", "--asn", "64496", "--out", &key],
        "already exists",
    );
    for asn in ["0", "23456"] {
        s.exits(
            2,
            &["bgpsec", "keygen", "--asn", asn, "--out", &s.p("x.key")],
            "AS_TRANS",
        );
        assert!(!s.path("x.key").exists() && !s.path("x.key.json").exists());
    }
    s.exits(
        2,
        &[
            "bgpsec",
            "keygen",
            "--asn",
            "5",
            "--out",
            &s.p("y.key"),
            "--suite",
            "9",
        ],
        "unknown algorithm suite",
    );
}

#[test]
fn a_keys_folder_validates_a_signed_trace_as_its_json_does() {
    let s = Scratch::new();
    let input = common::mrt("ris-updates.20100722.2015.gz");
    let (out, keys) = (s.p("signed.mrt"), s.p("keys"));
    s.ok(&[
        "bgpsec", "sign-mrt", &input, &out, "--suite", "1", "--keys", &keys, "--limit", "400",
    ]);
    let doc = json(&format!("{keys}/bgpsec_keys.json"));
    std::fs::create_dir(s.path("folder")).unwrap();
    let entries = doc["bgpsec_keys"].as_array().unwrap();
    for e in entries {
        s.write(
            &format!("folder/AS{}.pem", e["asn"]),
            pem(e["pubkey"].as_str().unwrap()),
        );
    }
    let from_folder = s.ok(&["bgpsec", "validate-mrt", &out, "--keys", &s.p("folder")]);
    let from_json = s.ok(&[
        "bgpsec",
        "validate-mrt",
        &out,
        "--keys",
        &format!("{keys}/bgpsec_keys.json"),
    ]);
    let valid = |o| {
        stdout(o)
            .lines()
            .find(|l| l.starts_with("valid: "))
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_string()
    };
    assert_eq!(valid(&from_folder), valid(&from_json));
    assert!(text(&from_folder).contains(&format!("{} public keys", entries.len())));
    // The folder as JSON is the same set of keys.
    let listed = stdout(&s.ok(&["bgpsec", "keys", &s.p("folder"), "--json"]));
    let back: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(back["bgpsec_keys"].as_array().unwrap().len(), entries.len());

    // A folder missing one AS's key leaves that AS's UPDATEs not valid: exit 1.
    let first = entries[0]["asn"].to_string();
    std::fs::remove_file(s.path(&format!("folder/AS{first}.pem"))).unwrap();
    let o = s.run(&["bgpsec", "validate-mrt", &out, "--keys", &s.p("folder")]);
    assert_eq!(code(&o), 1, "{}", text(&o));

    // A secret key in the folder is refused, naming it.
    std::fs::copy(
        s.path(&format!("keys/AS{first}.key")),
        s.path(&format!("folder/AS{first}.pem")),
    )
    .unwrap();
    s.exits(
        2,
        &["bgpsec", "keys", &s.p("folder")],
        &format!("AS{first}.pem: holds a PRIVATE KEY block"),
    );
}
