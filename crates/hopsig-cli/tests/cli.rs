//! End-to-end tests of the `hopsig` binary: exit codes 0 / 1 / 2, errors that name the
//! file, no panic trace for malformed input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn hopsig(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hopsig"))
        .args(args)
        .output()
        .unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn p(dir: &Path, name: &str) -> String {
    dir.join(name).to_string_lossy().into_owned()
}

/// Signs a 3-hop chain with `scheme` in `dir`; returns the paths of pubs, msgs, agg.
fn chain(dir: &Path, scheme: &str) -> (Vec<String>, Vec<String>, String) {
    let mut pubs = Vec::new();
    let mut msgs = Vec::new();
    let mut prev: Option<String> = None;
    for i in 0..3 {
        let key = p(dir, &format!("k{i}"));
        let o = hopsig(&["keygen", "--scheme", scheme, "--out", &key]);
        assert_eq!(code(&o), 0, "{}", text(&o));
        let msg = p(dir, &format!("m{i}"));
        std::fs::write(&msg, format!("route hop {i}")).unwrap();
        let out = p(dir, &format!("agg{i}"));
        let mut args = vec!["sign", "--key", &key, "--msg", &msg, "--out", &out];
        if let Some(a) = prev.as_deref() {
            args.extend(["--agg", a]);
        }
        let o = hopsig(&args);
        assert_eq!(code(&o), 0, "{}", text(&o));
        pubs.push(format!("{key}.pub"));
        msgs.push(msg);
        prev = Some(out);
    }
    (pubs, msgs, prev.unwrap())
}

fn verify(scheme: &str, pubs: &[String], msgs: &[String], agg: &str) -> Output {
    let mut args = vec!["verify".to_string(), "--scheme".into(), scheme.into()];
    for (k, m) in pubs.iter().zip(msgs) {
        args.extend(["--pub".into(), k.clone(), "--msg".into(), m.clone()]);
    }
    args.extend(["--agg".into(), agg.into()]);
    hopsig(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

#[test]
fn sign_verify_inspect_for_every_scheme() {
    for scheme in [
        "bgr-rsa2048",
        "bgr-rand-rsa2048",
        "rsa2048-concat",
        "ecdsa-p256-concat",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (pubs, msgs, agg) = chain(dir.path(), scheme);
        let o = verify(scheme, &pubs, &msgs, &agg);
        assert_eq!(code(&o), 0, "{scheme}: {}", text(&o));
        assert!(text(&o).starts_with("valid"));

        // A changed message: invalid, exit 1.
        std::fs::write(&msgs[1], "route hop X").unwrap();
        let o = verify(scheme, &pubs, &msgs, &agg);
        assert_eq!(code(&o), 1, "{scheme}: {}", text(&o));
        assert!(text(&o).starts_with("invalid"));

        // Too few pairs: invalid with the reason.
        let o = verify(scheme, &pubs[..2], &msgs[..2], &agg);
        assert_eq!(code(&o), 1);
        assert!(text(&o).contains("holds 3 signatures"), "{}", text(&o));

        let o = hopsig(&["inspect", "--json", &agg]);
        assert_eq!(code(&o), 0);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["signers"], 3);
        assert_eq!(v["scheme"], scheme);
        let o = hopsig(&["inspect", &pubs[0]]);
        assert_eq!(code(&o), 0, "{}", text(&o));
        assert!(text(&o).contains("public"));
    }
}

#[test]
fn malformed_inputs_exit_2_naming_the_file_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let (pubs, msgs, agg) = chain(dir.path(), "bgr-rsa2048");
    let garbage = p(dir.path(), "garbage");
    std::fs::write(&garbage, b"\x00\x01not an aggregate").unwrap();
    let truncated = p(dir.path(), "truncated");
    let bytes = std::fs::read(&agg).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() - 5]).unwrap();
    let missing = p(dir.path(), "missing");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["inspect".into(), garbage.clone()], "garbage"),
        (vec!["inspect".into(), missing.clone()], "missing"),
        (
            vec![
                "sign".into(),
                "--key".into(),
                garbage.clone(),
                "--msg".into(),
                msgs[0].clone(),
                "--out".into(),
                p(dir.path(), "o"),
            ],
            "garbage",
        ),
        (
            vec![
                "sign".into(),
                "--key".into(),
                pubs[0].clone(),
                "--msg".into(),
                msgs[0].clone(),
                "--out".into(),
                p(dir.path(), "o"),
            ],
            "public key file",
        ),
        (
            vec![
                "sign".into(),
                "--key".into(),
                pubs[0].trim_end_matches(".pub").into(),
                "--msg".into(),
                msgs[0].clone(),
                "--agg".into(),
                truncated.clone(),
                "--out".into(),
                p(dir.path(), "o"),
            ],
            "truncated",
        ),
        (
            vec![
                "keygen".into(),
                "--scheme".into(),
                "nope".into(),
                "--out".into(),
                p(dir.path(), "x"),
            ],
            "unknown scheme 'nope'",
        ),
        (vec!["bench".into(), "nope".into()], "unknown suite"),
    ];
    for (args, want) in cases {
        let o = hopsig(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code(&o), 2, "{args:?}: {}", text(&o));
        assert!(text(&o).contains(want), "{args:?}: {}", text(&o));
        assert!(!text(&o).contains("panicked"), "{args:?}");
    }
    // Verify: malformed aggregate, key of another scheme, unequal --pub/--msg counts.
    let o = verify("bgr-rsa2048", &pubs, &msgs, &truncated);
    assert_eq!(code(&o), 2);
    assert!(text(&o).contains("truncated"), "{}", text(&o));
    let o = verify("rsa2048-concat", &pubs, &msgs, &agg);
    assert_eq!(code(&o), 2);
    assert!(text(&o).contains("not 'rsa2048-concat'"), "{}", text(&o));
    let o = hopsig(&[
        "verify",
        "--scheme",
        "bgr-rsa2048",
        "--pub",
        &pubs[0],
        "--agg",
        &agg,
        "--msg",
        &msgs[0],
        "--msg",
        &msgs[1],
    ]);
    assert_eq!(code(&o), 2);
    // Keygen refuses to overwrite.
    let key0: PathBuf = pubs[0].trim_end_matches(".pub").into();
    let o = hopsig(&[
        "keygen",
        "--scheme",
        "bgr-rsa2048",
        "--out",
        key0.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 2);
    assert!(text(&o).contains("already exists"));
}

#[test]
fn schemes_lists_ids_as_json() {
    let o = hopsig(&["schemes", "--json"]);
    assert_eq!(code(&o), 0);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ids: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    for id in [
        "bgr-rsa2048",
        "bgr-rsa3072",
        "bgr-rand-rsa2048",
        "bgr-rand-rsa3072",
        "rsa2048-concat",
        "ecdsa-p256-concat",
    ] {
        assert!(ids.contains(&id), "{id}");
    }
}

#[test]
fn secret_key_files_are_private() {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let key = p(dir.path(), "k");
        assert_eq!(
            code(&hopsig(&[
                "keygen",
                "--scheme",
                "ecdsa-p256-concat",
                "--out",
                &key
            ])),
            0
        );
        assert_eq!(
            std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}
