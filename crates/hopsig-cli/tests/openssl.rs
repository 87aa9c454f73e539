//! Plain OpenSSL keys and signatures (issue 11 §5, docs/spec/keys.md "Plain keys"): a
//! user with an OpenSSL key pair and a plain DER signature verifies it with hopsig
//! without editing any file, signs with a PKCS #8 key (naming the scheme), and OpenSSL
//! verifies what hopsig signs with hopsig's `.pub` file. Run against the `openssl`
//! command itself (skipped, with a note, where it is not installed; CI=true fails).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::process::Output;

use common::{external, have, sign, stdout, verify, Scratch};

/// The scheme whose keys are plain keys on this OpenSSL curve.
const CURVES: [(&str, &str); 4] = [
    ("sect163k1", "ecdsa-k163"),
    ("sect233k1", "ecdsa-k233"),
    ("sect283k1", "ecdsa-k283"),
    ("prime256v1", "ecdsa-p256-concat"),
];

/// An OpenSSL key pair in `dir`: `NAME.pem` (PKCS #8), `NAME.der` (PKCS #8 DER),
/// `NAME.pub.pem`, `NAME.pub.der` (SubjectPublicKeyInfo).
fn openssl_keys(s: &Scratch, name: &str, genpkey: &str) {
    let dir = s.dir.path();
    let pem = format!("{name}.pem");
    openssl(dir, &format!("genpkey {genpkey} -out {pem}"));
    openssl(
        dir,
        &format!("pkcs8 -topk8 -nocrypt -in {pem} -outform DER -out {name}.der"),
    );
    openssl(dir, &format!("pkey -in {pem} -pubout -out {name}.pub.pem"));
    openssl(
        dir,
        &format!("pkey -in {pem} -pubout -outform DER -out {name}.pub.der"),
    );
}

/// Runs `openssl` in `dir` with the words of `command`, which must succeed.
fn openssl(dir: &Path, command: &str) -> Output {
    external(
        dir,
        "openssl",
        &command.split_whitespace().collect::<Vec<_>>(),
    )
}

/// A scratch folder, if the `openssl` command is installed (else the test says it is
/// skipped, and fails under CI=true).
fn with_openssl(test: &str) -> Option<Scratch> {
    have("openssl", test).then(Scratch::new)
}

/// The exit code of `hopsig verify` of `agg` against one public key and message (names
/// in the scratch folder).
fn verify_one(s: &Scratch, scheme: &str, pubkey: &str, msg: &str, agg: &str) -> i32 {
    let (pubkey, msg, agg) = (s.p(pubkey), s.p(msg), s.p(agg));
    common::code(&s.run(&verify(scheme, &[(&pubkey, &msg)], &agg)))
}

#[test]
fn openssl_ecdsa_and_rsa_keys_and_signatures_work_as_they_are() {
    let Some(s) = with_openssl("openssl_ecdsa_and_rsa_keys_and_signatures_work_as_they_are") else {
        return;
    };
    let dir = s.dir.path();
    s.write("m", "route to 192.0.2.0/24");
    s.write("other", "route to 198.51.100.0/24");
    let mut cases: Vec<(String, &str)> =
        CURVES.iter().map(|(c, id)| (c.to_string(), *id)).collect();
    cases.push(("rsa".into(), "rsa2048-concat"));
    for (name, scheme) in &cases {
        let genpkey = match name.as_str() {
            "rsa" => "-algorithm RSA -pkeyopt rsa_keygen_bits:2048".to_string(),
            curve => format!("-algorithm EC -pkeyopt ec_paramgen_curve:{curve}"),
        };
        openssl_keys(&s, name, &genpkey);
        // OpenSSL signs (dgst, and pkeyutl over the digest); hopsig verifies the bare
        // DER signature with the PEM and the DER public key.
        let sig = format!("{name}.sig");
        openssl(dir, &format!("dgst -sha256 -sign {name}.pem -out {sig} m"));
        openssl(dir, "dgst -sha256 -binary -out m.sha256 m");
        let sig2 = format!("{name}.pkeyutl.sig");
        openssl(
            dir,
            &format!(
                "pkeyutl -sign -inkey {name}.pem -pkeyopt digest:sha256 -in m.sha256 -out {sig2}"
            ),
        );
        for pubkey in [format!("{name}.pub.pem"), format!("{name}.pub.der")] {
            for signature in [&sig, &sig2] {
                assert_eq!(
                    verify_one(&s, scheme, &pubkey, "m", signature),
                    0,
                    "{scheme} {pubkey} {signature}"
                );
                assert_eq!(
                    verify_one(&s, scheme, &pubkey, "other", signature),
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
            s.ok(&sign(
                &s.p(&key),
                &s.p("m"),
                None,
                &s.p(&agg),
                &["--scheme", scheme],
            ));
            assert_eq!(
                verify_one(&s, scheme, &format!("{name}.pub.pem"), "m", &agg),
                0
            );
            s.write("hopsig.sig", &std::fs::read(s.path(&agg)).unwrap()[7..]);
            let o = openssl(
                dir,
                &format!("dgst -sha256 -verify {name}.pub.pem -signature hopsig.sig m"),
            );
            assert_eq!(stdout(&o).trim(), "Verified OK", "{scheme} {key}");
            // Without --scheme the plain key says no scheme: exit 2, naming the option.
            s.exits(2, &sign(&s.p(&key), &s.p("m"), None, &s.p("x"), &[]), "give --scheme (rsa2048-concat, ecdsa-p256-concat, ecdsa-k163, ecdsa-k233, ecdsa-k283)");
        }
        // The bare signature extends to a hopsig aggregate of two signers.
        let own = s.keygen(scheme, &format!("{name}.hopsig"));
        let two = s.p(&format!("{name}.two"));
        s.ok(&sign(&own, &s.p("other"), Some(&s.p(&sig)), &two, &[]));
        let own_pub = format!("{own}.pub");
        s.exits(
            0,
            &verify(
                scheme,
                &[
                    (&s.p(&format!("{name}.pub.der")), &s.p("m")),
                    (&own_pub, &s.p("other")),
                ],
                &two,
            ),
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
    let Some(s) = with_openssl("openssl_verifies_hopsig_signatures_with_hopsig_pub_files") else {
        return;
    };
    let dir = s.dir.path();
    s.write("m", "packet");
    for (_, scheme) in CURVES.iter().chain(&[("", "rsa2048-concat")]) {
        let key = s.keygen(scheme, scheme);
        let agg = s.p(&format!("{scheme}.agg"));
        s.ok(&sign(&key, &s.p("m"), None, &agg, &[]));
        s.write("sig", &std::fs::read(&agg).unwrap()[7..]);
        let o = openssl(
            dir,
            &format!("dgst -sha256 -verify {key}.pub -signature sig m"),
        );
        assert_eq!(stdout(&o).trim(), "Verified OK", "{scheme}");
        // And OpenSSL signs with hopsig's secret key file.
        openssl(dir, &format!("dgst -sha256 -sign {key} -out osig m"));
        s.exits(
            0,
            &verify(scheme, &[(&format!("{key}.pub"), &s.p("m"))], &s.p("osig")),
            "valid: 1 signers",
        );
    }
}

/// BGR public keys are plain RSA SubjectPublicKeyInfo: OpenSSL's public key of a BGR
/// key verifies its aggregate. BGR secret keys stay hopsig files (they hold the PRF
/// seed), and a traditional DER private key says how to convert it.
#[test]
fn bgr_public_keys_are_plain_and_other_keys_say_what_they_are() {
    let Some(s) = with_openssl("bgr_public_keys_are_plain_and_other_keys_say_what_they_are") else {
        return;
    };
    let dir = s.dir.path();
    s.write("m", "route");
    let key = s.keygen("bgr-rsa2048", "bgr");
    let agg = s.p("bgr.agg");
    s.ok(&sign(&key, &s.p("m"), None, &agg, &[]));
    for form in ["PEM", "DER"] {
        let out = format!("bgr.{form}");
        openssl(
            dir,
            &format!("pkey -in {key} -pubout -outform {form} -out {out}"),
        );
        s.exits(
            0,
            &verify("bgr-rsa2048", &[(&s.p(&out), &s.p("m"))], &agg),
            "valid: 1 signers, bgr-rsa2048",
        );
    }
    openssl(dir, &format!("pkey -in {key} -out bgr.pkcs8"));
    // BGR secret keys are not plain; a public key where a secret one is needed.
    for (key, needle) in [
        (
            "bgr.pkcs8",
            "bgr.pkcs8: bgr-rsa2048 secret keys are hopsig key files, not a plain standard key",
        ),
        (
            "bgr.PEM",
            "bgr.PEM: this is a public key file; a secret key is needed here",
        ),
    ] {
        let (key, m, o) = (s.p(key), s.p("m"), s.p("o"));
        let args = sign(&key, &m, None, &o, &["--scheme", "bgr-rsa2048"]);
        s.exits(2, &args, needle);
    }
    // And the reverse.
    s.exits(
        2,
        &verify("bgr-rsa2048", &[(&s.p("bgr.pkcs8"), &s.p("m"))], &agg),
        "this is a secret key file; a public key is needed here",
    );
    // BLS keys are not standard keys at all.
    s.exits(
        2,
        &verify("bls12381-bgls", &[(&s.p("bgr.PEM"), &s.p("m"))], &agg),
        "bls12381-bgls public keys are hopsig key files",
    );
    // `openssl pkey -outform DER` writes EC keys as SEC 1, RSA keys as PKCS #1.
    openssl(
        dir,
        "genpkey -algorithm EC -pkeyopt ec_paramgen_curve:sect163k1 -outform DER -out sec1.der",
    );
    s.exits(2, &sign(&s.p("sec1.der"), &s.p("m"), None, &s.p("o"), &["--scheme", "ecdsa-k163"]), "sec1.der: malformed key file: a DER SEC 1 ECPrivateKey: hopsig reads PKCS #8 private keys; `openssl pkcs8 -topk8");
    openssl(dir, "ecparam -name sect163k1 -genkey -out ecparam.pem");
    s.exits(
        2,
        &sign(
            &s.p("ecparam.pem"),
            &s.p("m"),
            None,
            &s.p("o"),
            &["--scheme", "ecdsa-k163"],
        ),
        "PEM block(s) EC PARAMETERS, EC PRIVATE KEY: hopsig reads one PRIVATE KEY",
    );
}
