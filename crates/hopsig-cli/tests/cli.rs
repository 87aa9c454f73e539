//! End-to-end tests of the `hopsig` binary: exit codes 0 / 1 / 2, errors that name the
//! file, no panic trace for malformed input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

use common::{code, text, Scratch};

fn hopsig(args: &[&str]) -> Output {
    // IBAS journals go to a state folder of the tests' own, not the user's.
    static STATE: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let state = STATE.get_or_init(|| tempfile::tempdir().unwrap());
    Command::new(env!("CARGO_BIN_EXE_hopsig"))
        .args(args)
        .env("HOPSIG_STATE_DIR", state.path())
        .output()
        .unwrap()
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
        "bls12381-bgls",
        "ecdsa-k163",
        "ecdsa-k283",
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

/// The CLI acts on the library's typed errors: an aggregate of another scheme is blamed
/// on the aggregate file and named by its scheme, and IBAS, listed in the same scheme
/// table, points to the PKG rather than being an "unknown scheme".
#[test]
fn typed_errors_decide_what_a_message_blames() {
    let dir = tempfile::tempdir().unwrap();
    let (_, msgs, agg) = chain(dir.path(), "ecdsa-p256-concat");
    let key = p(dir.path(), "bgr");
    let o = hopsig(&["keygen", "--scheme", "bgr-rsa2048", "--out", &key]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let out = p(dir.path(), "o");
    let o = hopsig(&[
        "sign", "--key", &key, "--msg", &msgs[0], "--agg", &agg, "--out", &out,
    ]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(
        text(&o).contains(&format!(
            "{agg}: aggregate is for ecdsa-p256-concat, not bgr-rsa2048"
        )),
        "{}",
        text(&o)
    );
    let o = hopsig(&["keygen", "--scheme", "ibas-bls12381", "--out", &out]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(text(&o).contains("identity-based"), "{}", text(&o));
    assert!(text(&o).contains("hopsig pkg setup"), "{}", text(&o));
    assert!(!Path::new(&out).exists());
}

/// The repository root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One exit-code rule for every verifier (README, docs/spec/aggregate.md): every BGR
/// test vector gives 0 if `valid`, 1 if `invalid` (it decodes, Ver rejects it: a
/// signer-count mismatch, X ≥ N, y ∉ D, ...) and 2 if `malformed` (it does not decode:
/// header errors, x_n ∉ D, nonzero padding, trailing bytes, truncation). Aggregate
/// files hold the raw bytes.
#[test]
fn bgr_vectors_exit_with_the_code_of_their_expected_outcome() {
    use hopsig_schemes::bgr::{BgrParams, BgrVerifyingKey};
    use hopsig_schemes::primitives::rsa::RsaPublicKey;
    use hopsig_schemes::VerifyingKey;
    let doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("docs/spec/vectors/bgr.json")).unwrap(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (n, c) in doc["cases"].as_array().unwrap().iter().enumerate() {
        let id = c["scheme"].as_str().unwrap();
        let params = BgrParams::from_id(id).unwrap();
        let keys = doc["keys"][params.modulus_bits().to_string()]
            .as_array()
            .unwrap();
        let mut args: Vec<String> = vec!["verify".into(), "--scheme".into(), id.into()];
        for (i, s) in c["signers"].as_array().unwrap().iter().enumerate() {
            let key = &keys[s["key"].as_u64().unwrap() as usize];
            let der = hex::decode(key["spki_der"].as_str().unwrap()).unwrap();
            let pk = BgrVerifyingKey::new(params, RsaPublicKey::from_spki_der(&der).unwrap());
            let (pub_file, msg_file) = (
                p(dir.path(), &format!("{n}.{i}.pub")),
                p(dir.path(), &format!("{n}.{i}.msg")),
            );
            std::fs::write(&pub_file, pk.unwrap().to_key_file()).unwrap();
            std::fs::write(
                &msg_file,
                hex::decode(s["message"].as_str().unwrap()).unwrap(),
            )
            .unwrap();
            args.extend(["--pub".into(), pub_file, "--msg".into(), msg_file]);
        }
        let agg = p(dir.path(), &format!("{n}.agg"));
        std::fs::write(&agg, hex::decode(c["aggregate"].as_str().unwrap()).unwrap()).unwrap();
        args.extend(["--agg".into(), agg]);
        let o = hopsig(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let want = match c["expected"].as_str().unwrap() {
            "valid" => 0,
            "invalid" => 1,
            _ => 2,
        };
        assert_eq!(code(&o), want, "{id}: {}: {}", c["_comment"], text(&o));
    }
}

/// ECDSA r or s outside [1, n − 1] is a value out of range: the aggregate does not
/// decode (exit 2), where it used to reach the equation and exit 1.
#[test]
fn ecdsa_scalars_out_of_range_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (scheme, code_byte) in [("ecdsa-p256-concat", 0x02u8), ("ecdsa-k163", 0x03)] {
        let key = p(d, scheme);
        assert_eq!(
            code(&hopsig(&["keygen", "--scheme", scheme, "--out", &key])),
            0
        );
        let msg = p(d, "m");
        std::fs::write(&msg, "m").unwrap();
        // SEQUENCE { INTEGER 0, INTEGER 1 }, then { INTEGER 1, INTEGER 1 } (in range).
        for (der, want) in [([0x02, 0x01, 0x00], 2), ([0x02, 0x01, 0x01], 1)] {
            let agg = p(d, "agg");
            let mut bytes = vec![b'H', b'S', 1, code_byte, 0, 0, 1, 0x30, 6];
            bytes.extend_from_slice(&der);
            bytes.extend_from_slice(&[0x02, 0x01, 0x01]);
            std::fs::write(&agg, bytes).unwrap();
            let o = verify(
                scheme,
                &[format!("{key}.pub")],
                std::slice::from_ref(&msg),
                &agg,
            );
            assert_eq!(code(&o), want, "{scheme}: {}", text(&o));
        }
    }
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
        "bls12381-bgls",
        "ibas-bls12381",
        "ecdsa-k163",
        "ecdsa-k233",
        "ecdsa-k283",
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

#[test]
fn ibas_pkg_publisher_moderator_subscriber() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pkg = p(d, "pkg");
    let ok = |o: Output| {
        assert_eq!(code(&o), 0, "{}", text(&o));
        o
    };
    ok(hopsig(&["pkg", "setup", "--out", &pkg]));
    // A second setup into the same folder is refused.
    assert_eq!(code(&hopsig(&["pkg", "setup", "--out", &pkg])), 2);
    let (alice, gov) = (p(d, "alice.key"), p(d, "gov.key"));
    ok(hopsig(&[
        "pkg",
        "extract",
        "--pkg",
        &pkg,
        "--id",
        "/friends/Alice",
        "--out",
        &alice,
    ]));
    ok(hopsig(&[
        "pkg",
        "extract",
        "--pkg",
        &pkg,
        "--id",
        "/moderators/Government",
        "--out",
        &gov,
    ]));
    let (m1, m2) = (p(d, "m1"), p(d, "m2"));
    std::fs::write(&m1, "I am safe").unwrap();
    std::fs::write(&m2, "I am safe | accepted by Government").unwrap();
    let (a1, a2) = (p(d, "a1"), p(d, "a2"));
    ok(hopsig(&[
        "sign", "--key", &alice, "--msg", &m1, "--out", &a1,
    ]));
    ok(hopsig(&[
        "sign", "--key", &gov, "--msg", &m2, "--agg", &a1, "--out", &a2,
    ]));
    assert_eq!(std::fs::metadata(&a2).unwrap().len(), 7 + 160);

    let verify_ids = |ids: [&str; 2], msgs: [&str; 2]| {
        hopsig(&[
            "verify",
            "--scheme",
            "ibas-bls12381",
            "--pkg",
            &pkg,
            "--id",
            ids[0],
            "--msg",
            msgs[0],
            "--id",
            ids[1],
            "--msg",
            msgs[1],
            "--agg",
            &a2,
        ])
    };
    let o = ok(verify_ids(
        ["/friends/Alice", "/moderators/Government"],
        [&m1, &m2],
    ));
    assert!(text(&o).starts_with("valid: 2 signers"));
    // IBAS pairs may come in any order (ibas.md: S and T are sums), as --help says.
    ok(verify_ids(
        ["/moderators/Government", "/friends/Alice"],
        [&m2, &m1],
    ));
    let help = text(&hopsig(&["verify", "--help"]));
    assert!(help.contains("in any order"), "{help}");
    let o = verify_ids(["/friends/Eve", "/moderators/Government"], [&m1, &m2]);
    assert_eq!(code(&o), 1, "{}", text(&o));
    let o = verify_ids(["/friends/Alice", "/moderators/Government"], [&m2, &m1]);
    assert_eq!(code(&o), 1, "{}", text(&o));

    // The moderator's journal refuses a second signature under the same w.
    let o = hopsig(&[
        "sign",
        "--key",
        &gov,
        "--msg",
        &m1,
        "--agg",
        &a1,
        "--out",
        &p(d, "a3"),
    ]);
    assert_eq!(code(&o), 2);
    assert!(
        text(&o).contains(".wlog: refusing to sign") && text(&o).contains("already signed"),
        "{}",
        text(&o)
    );

    // Missing parameters, --pub for IBAS, a tampered aggregate: exit 2 naming the problem.
    let o = hopsig(&[
        "verify",
        "--scheme",
        "ibas-bls12381",
        "--id",
        "x",
        "--msg",
        &m1,
        "--agg",
        &a1,
    ]);
    assert_eq!(code(&o), 2);
    assert!(text(&o).contains("--pkg"));
    let mut bad = std::fs::read(&a2).unwrap();
    bad[23..71].fill(0);
    bad[23] = 0xc0;
    let bad_path = p(d, "bad");
    std::fs::write(&bad_path, bad).unwrap();
    let o = hopsig(&[
        "verify",
        "--scheme",
        "ibas-bls12381",
        "--pkg",
        &pkg,
        "--id",
        "a",
        "--msg",
        &m1,
        "--id",
        "b",
        "--msg",
        &m2,
        "--agg",
        &bad_path,
    ]);
    assert_eq!(code(&o), 2);
    assert!(
        text(&o).contains("bad") && text(&o).contains("infinity"),
        "{}",
        text(&o)
    );

    let o = ok(hopsig(&["inspect", "--json", &a2]));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["signers"], 2);
    assert_eq!(v["signature_bits"], 1280);
    let o = ok(hopsig(&["inspect", &alice]));
    assert!(text(&o).contains("/friends/Alice"));

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for secret in [format!("{pkg}/pkg.key"), alice.clone()] {
            let mode = std::fs::metadata(&secret).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "{secret}");
        }
    }
}

#[test]
fn kcx_path_signs_and_verifies_every_variant() {
    for variant in ["rsa", "mt", "hybrid"] {
        let o = hopsig(&["kcx", "path", "--variant", variant, "--hops", "5", "--json"]);
        assert_eq!(code(&o), 0, "{}", text(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["verified"], true);
        assert_eq!(v["bytes_after_hop"].as_array().unwrap().len(), 5);
        assert_eq!(v["kinds"][0], "origin");
    }
    // The modern suite is the default; the paper's only on request, with a warning.
    let o = hopsig(&["kcx", "path", "--variant", "mt", "--hops", "2", "--json"]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["suite"], "modern");
    assert!(o.stderr.is_empty(), "{}", text(&o));
    let o = hopsig(&[
        "kcx",
        "path",
        "--variant",
        "mt",
        "--hops",
        "2",
        "--suite",
        "paper",
    ]);
    assert_eq!(code(&o), 0, "{}", text(&o));
    let warning = String::from_utf8_lossy(&o.stderr);
    assert_eq!(warning.lines().count(), 1, "{warning}");
    assert!(
        warning.starts_with("hopsig: warning:") && warning.contains("2^-11.1"),
        "{warning}"
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("paper suite"));
    let o = hopsig(&["kcx", "path", "--variant", "dsa", "--hops", "5"]);
    assert_eq!(code(&o), 2);
    let o = hopsig(&["kcx", "path", "--variant", "mt", "--hops", "65"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn implicit_certificate_steps_end_to_end() {
    let s = Scratch::new();
    let ic = s.implicit_certificate("k163", "2001:db8::17");
    s.ok(&ic.verify_args(&ic.sig));
    std::fs::write(&ic.msg, "other").unwrap();
    let o = s.run(&ic.verify_args(&ic.sig));
    assert_eq!(code(&o), 1, "{}", text(&o));
    // Another TTP's key (on the default curve, K-163): invalid. A file of another
    // curve: exit 2 naming it.
    let other = s.p("ttp2");
    s.ok(&["ic", "ttp", "--out", &other]);
    std::fs::write(&ic.msg, "packet").unwrap();
    let other_pub = format!("{other}/ttp.pub");
    let o = s.run(&[
        "ic",
        "verify",
        "--ttp-pub",
        &other_pub,
        "--cert",
        &ic.cert,
        "--msg",
        &ic.msg,
        "--agg",
        &ic.sig,
    ]);
    assert_eq!(code(&o), 1, "{}", text(&o));
    let mut on_k283 = vec!["ic", "--curve", "k283"];
    on_k283.extend(&ic.verify_args(&ic.sig)[1..]);
    let o = s.run(&on_k283);
    assert_eq!(code(&o), 2);
    assert!(text(&o).contains("ttp.pub"), "{}", text(&o));
}
