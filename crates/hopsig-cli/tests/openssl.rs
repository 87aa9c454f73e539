//! Plain OpenSSL keys and signatures (issue 11 §5, docs/spec/keys.md "Plain keys"): a
//! user with an OpenSSL key pair and a plain DER signature verifies it with hopsig
//! without editing any file, signs with a PKCS #8 key (naming the scheme), and OpenSSL
//! verifies what hopsig signs with hopsig's `.pub` file. Run against the `openssl`
//! command itself (skipped, with a note, where it is not installed; CI=true fails).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{external, have, stdout, Scratch};

/// The scheme whose keys are plain keys on this OpenSSL curve.
const CURVES: [(&str, &str); 4] = [
    ("sect163k1", "ecdsa-k163"),
    ("sect233k1", "ecdsa-k233"),
    ("sect283k1", "ecdsa-k283"),
    ("prime256v1", "ecdsa-p256-concat"),
];

/// An OpenSSL key pair in `dir`: `NAME.pem` (PKCS #8), `NAME.der` (PKCS #8 DER),
/// `NAME.pub.pem`, `NAME.pub.der` (SubjectPublicKeyInfo).
fn openssl_keys(s: &Scratch, name: &str, genpkey: &[&str]) {
    let dir = s.dir.path();
    let pem = format!("{name}.pem");
    let mut args = vec!["genpkey"];
    args.extend(genpkey);
    args.extend(["-out", &pem]);
    external(dir, "openssl", &args);
    external(
        dir,
        "openssl",
        &[
            "pkcs8",
            "-topk8",
            "-nocrypt",
            "-in",
            &pem,
            "-outform",
            "DER",
            "-out",
            &format!("{name}.der"),
        ],
    );
    external(
        dir,
        "openssl",
        &[
            "pkey",
            "-in",
            &pem,
            "-pubout",
            "-out",
            &format!("{name}.pub.pem"),
        ],
    );
    external(
        dir,
        "openssl",
        &[
            "pkey",
            "-in",
            &pem,
            "-pubout",
            "-outform",
            "DER",
            "-out",
            &format!("{name}.pub.der"),
        ],
    );
}

/// `hopsig verify` of `agg` against one plain public key and message.
fn verify(s: &Scratch, scheme: &str, pubkey: &str, msg: &str, agg: &str) -> i32 {
    let o = s.run(&[
        "verify",
        "--scheme",
        scheme,
        "--pub",
        &s.p(pubkey),
        "--msg",
        &s.p(msg),
        "--agg",
        &s.p(agg),
    ]);
    common::code(&o)
}

#[test]
fn openssl_ecdsa_and_rsa_keys_and_signatures_work_as_they_are() {
    if !have(
        "openssl",
        "openssl_ecdsa_and_rsa_keys_and_signatures_work_as_they_are",
    ) {
        return;
    }
    let s = Scratch::new();
    let dir = s.dir.path();
    s.write("m", "route to 192.0.2.0/24");
    s.write("other", "route to 198.51.100.0/24");
    let mut cases: Vec<(String, &str)> =
        CURVES.iter().map(|(c, id)| (c.to_string(), *id)).collect();
    cases.push(("rsa".into(), "rsa2048-concat"));
    for (name, scheme) in &cases {
        let genpkey: Vec<String> = if name == "rsa" {
            vec![
                "-algorithm".into(),
                "RSA".into(),
                "-pkeyopt".into(),
                "rsa_keygen_bits:2048".into(),
            ]
        } else {
            vec![
                "-algorithm".into(),
                "EC".into(),
                "-pkeyopt".into(),
                format!("ec_paramgen_curve:{name}"),
            ]
        };
        openssl_keys(
            &s,
            name,
            &genpkey.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        // OpenSSL signs (dgst, and pkeyutl over the digest); hopsig verifies the bare
        // DER signature with the PEM and the DER public key.
        let sig = format!("{name}.sig");
        external(
            dir,
            "openssl",
            &[
                "dgst",
                "-sha256",
                "-sign",
                &format!("{name}.pem"),
                "-out",
                &sig,
                "m",
            ],
        );
        external(
            dir,
            "openssl",
            &["dgst", "-sha256", "-binary", "-out", "m.sha256", "m"],
        );
        let sig2 = format!("{name}.pkeyutl.sig");
        external(
            dir,
            "openssl",
            &[
                "pkeyutl",
                "-sign",
                "-inkey",
                &format!("{name}.pem"),
                "-pkeyopt",
                "digest:sha256",
                "-in",
                "m.sha256",
                "-out",
                &sig2,
            ],
        );
        for pubkey in [format!("{name}.pub.pem"), format!("{name}.pub.der")] {
            for signature in [&sig, &sig2] {
                assert_eq!(
                    verify(&s, scheme, &pubkey, "m", signature),
                    0,
                    "{scheme} {pubkey} {signature}"
                );
                assert_eq!(
                    verify(&s, scheme, &pubkey, "other", signature),
                    1,
                    "{scheme} {pubkey}"
                );
            }
        }
        // hopsig signs with the PKCS #8 key (PEM and DER), naming the scheme; OpenSSL
        // verifies the signature (the aggregate after its 7-byte header).
        for key in [format!("{name}.pem"), format!("{name}.der")] {
            let agg = format!("{name}.agg");
            let _ = std::fs::remove_file(s.path(&agg));
            s.ok(&[
                "sign",
                "--scheme",
                scheme,
                "--key",
                &s.p(&key),
                "--msg",
                &s.p("m"),
                "--out",
                &s.p(&agg),
            ]);
            assert_eq!(verify(&s, scheme, &format!("{name}.pub.pem"), "m", &agg), 0);
            s.write("hopsig.sig", &std::fs::read(s.path(&agg)).unwrap()[7..]);
            let o = external(
                dir,
                "openssl",
                &[
                    "dgst",
                    "-sha256",
                    "-verify",
                    &format!("{name}.pub.pem"),
                    "-signature",
                    "hopsig.sig",
                    "m",
                ],
            );
            assert_eq!(stdout(&o).trim(), "Verified OK", "{scheme} {key}");
            // Without --scheme the plain key says no scheme: exit 2, naming the option.
            s.exits(2, &["sign", "--key", &s.p(&key), "--msg", &s.p("m"), "--out", &s.p("x")], "give --scheme (rsa2048-concat, ecdsa-p256-concat, ecdsa-k163, ecdsa-k233, ecdsa-k283)");
        }
        // The bare signature extends to a hopsig aggregate of two signers.
        let own = s.keygen(scheme, &format!("{name}.hopsig"));
        let two = s.p(&format!("{name}.two"));
        s.ok(&[
            "sign",
            "--key",
            &own,
            "--msg",
            &s.p("other"),
            "--agg",
            &s.p(&sig),
            "--out",
            &two,
        ]);
        let own_pub = format!("{own}.pub");
        s.exits(
            0,
            &[
                "verify",
                "--scheme",
                scheme,
                "--pub",
                &s.p(&format!("{name}.pub.der")),
                "--msg",
                &s.p("m"),
                "--pub",
                &own_pub,
                "--msg",
                &s.p("other"),
                "--agg",
                &two,
            ],
            "valid: 2 signers",
        );
        // inspect says what the plain files are.
        let plain = stdout(&s.ok(&["inspect", "--json", &s.p(&format!("{name}.der"))]));
        assert!(
            plain.contains("\"plain key\"") && plain.contains(scheme),
            "{plain}"
        );
        let bare = stdout(&s.ok(&["inspect", "--json", &s.p(&sig)]));
        assert!(
            bare.contains("\"bare signature\"") && bare.contains(scheme),
            "{bare}"
        );
    }
}

/// The reverse: OpenSSL reads hopsig's key files as they are (`openssl pkey` skips the
/// header lines, RFC 7468 §5.2) and verifies hopsig's signatures with the `.pub` file.
#[test]
fn openssl_verifies_hopsig_signatures_with_hopsig_pub_files() {
    if !have(
        "openssl",
        "openssl_verifies_hopsig_signatures_with_hopsig_pub_files",
    ) {
        return;
    }
    let s = Scratch::new();
    let dir = s.dir.path();
    s.write("m", "packet");
    for (_, scheme) in CURVES.iter().chain(&[("", "rsa2048-concat")]) {
        let key = s.keygen(scheme, scheme);
        let agg = s.p(&format!("{scheme}.agg"));
        s.ok(&["sign", "--key", &key, "--msg", &s.p("m"), "--out", &agg]);
        s.write("sig", &std::fs::read(&agg).unwrap()[7..]);
        let o = external(
            dir,
            "openssl",
            &[
                "dgst",
                "-sha256",
                "-verify",
                &format!("{key}.pub"),
                "-signature",
                "sig",
                "m",
            ],
        );
        assert_eq!(stdout(&o).trim(), "Verified OK", "{scheme}");
        // And OpenSSL signs with hopsig's secret key file.
        external(
            dir,
            "openssl",
            &["dgst", "-sha256", "-sign", &key, "-out", "osig", "m"],
        );
        s.exits(
            0,
            &[
                "verify",
                "--scheme",
                scheme,
                "--pub",
                &format!("{key}.pub"),
                "--msg",
                &s.p("m"),
                "--agg",
                &s.p("osig"),
            ],
            "valid: 1 signers",
        );
    }
}

/// BGR public keys are plain RSA SubjectPublicKeyInfo: OpenSSL's public key of a BGR
/// key verifies its aggregate. BGR secret keys stay hopsig files (they hold the PRF
/// seed), and a traditional DER private key says how to convert it.
#[test]
fn bgr_public_keys_are_plain_and_other_keys_say_what_they_are() {
    if !have(
        "openssl",
        "bgr_public_keys_are_plain_and_other_keys_say_what_they_are",
    ) {
        return;
    }
    let s = Scratch::new();
    let dir = s.dir.path();
    s.write("m", "route");
    let key = s.keygen("bgr-rsa2048", "bgr");
    let agg = s.p("bgr.agg");
    s.ok(&["sign", "--key", &key, "--msg", &s.p("m"), "--out", &agg]);
    for form in ["PEM", "DER"] {
        let out = format!("bgr.{form}");
        external(
            dir,
            "openssl",
            &[
                "pkey", "-in", &key, "-pubout", "-outform", form, "-out", &out,
            ],
        );
        s.exits(
            0,
            &[
                "verify",
                "--scheme",
                "bgr-rsa2048",
                "--pub",
                &s.p(&out),
                "--msg",
                &s.p("m"),
                "--agg",
                &agg,
            ],
            "valid: 1 signers, bgr-rsa2048",
        );
    }
    external(dir, "openssl", &["pkey", "-in", &key, "-out", "bgr.pkcs8"]);
    s.exits(
        2,
        &[
            "sign",
            "--scheme",
            "bgr-rsa2048",
            "--key",
            &s.p("bgr.pkcs8"),
            "--msg",
            &s.p("m"),
            "--out",
            &s.p("o"),
        ],
        "bgr.pkcs8: bgr-rsa2048 secret keys are hopsig key files, not a plain standard key",
    );
    // A public key where a secret one is needed, and the reverse.
    s.exits(
        2,
        &[
            "sign",
            "--scheme",
            "bgr-rsa2048",
            "--key",
            &s.p("bgr.PEM"),
            "--msg",
            &s.p("m"),
            "--out",
            &s.p("o"),
        ],
        "this is a public key file; a secret key is needed here",
    );
    s.exits(
        2,
        &[
            "verify",
            "--scheme",
            "bgr-rsa2048",
            "--pub",
            &s.p("bgr.pkcs8"),
            "--msg",
            &s.p("m"),
            "--agg",
            &agg,
        ],
        "this is a secret key file; a public key is needed here",
    );
    // BLS keys are not standard keys at all.
    s.exits(
        2,
        &[
            "verify",
            "--scheme",
            "bls12381-bgls",
            "--pub",
            &s.p("bgr.PEM"),
            "--msg",
            &s.p("m"),
            "--agg",
            &agg,
        ],
        "bls12381-bgls public keys are hopsig key files",
    );
    // `openssl pkey -outform DER` writes EC keys as SEC 1, RSA keys as PKCS #1.
    external(
        dir,
        "openssl",
        &[
            "genpkey",
            "-algorithm",
            "EC",
            "-pkeyopt",
            "ec_paramgen_curve:sect163k1",
            "-outform",
            "DER",
            "-out",
            "sec1.der",
        ],
    );
    s.exits(2, &["sign", "--scheme", "ecdsa-k163", "--key", &s.p("sec1.der"), "--msg", &s.p("m"), "--out", &s.p("o")], "sec1.der: malformed key file: a DER SEC 1 ECPrivateKey: hopsig reads PKCS #8 private keys; `openssl pkcs8 -topk8");
    external(
        dir,
        "openssl",
        &[
            "ecparam",
            "-name",
            "sect163k1",
            "-genkey",
            "-out",
            "ecparam.pem",
        ],
    );
    s.exits(
        2,
        &[
            "sign",
            "--scheme",
            "ecdsa-k163",
            "--key",
            &s.p("ecparam.pem"),
            "--msg",
            &s.p("m"),
            "--out",
            &s.p("o"),
        ],
        "PEM block(s) EC PARAMETERS, EC PRIVATE KEY: hopsig reads one PRIVATE KEY",
    );
}
