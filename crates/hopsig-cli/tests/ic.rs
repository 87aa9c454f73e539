//! `hopsig ic` (issue 11 §4, §6): `ic verify` decodes the signature with the decoder
//! `hopsig verify` uses (malformed input is exit 2, a well-formed signature that fails
//! is 1), certificates that do not decode are exit 2, and the steps that read files take
//! the curve from them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{code, sign, text, verify, Scratch};
use hopsig_schemes::pla::files;
use hopsig_schemes::pla::koblitz::K163;
use hopsig_schemes::primitives::armor::{KeyFile, KeyKind};
use hopsig_schemes::primitives::rsa::pem_block;

/// Every variant of Alice's signature file gives `ic verify` and `hopsig verify` the
/// same exit code: 2 for what does not decode (trailing bytes, another parameter byte,
/// a long-form DER length, truncation, another curve's signature), 1 for a well-formed
/// aggregate of two signers (one pair given), 0 for the bare DER signature.
#[test]
fn ic_verify_decodes_as_verify_does() {
    let s = Scratch::new();
    let ic = s.implicit_certificate("k163", "2001:db8::17");
    let agg = std::fs::read(&ic.sig).unwrap();
    let (header, der) = agg.split_at(7);
    assert_eq!(der[0], 0x30);
    let with = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut b = agg.clone();
        edit(&mut b);
        b
    };
    // The same DER with its length in long form (0x81 L): not canonical.
    let mut long_form = header.to_vec();
    long_form.extend_from_slice(&[0x30, 0x81]);
    long_form.extend_from_slice(&der[1..]);
    let mut two = agg.clone();
    two[6] = 2;
    two.extend_from_slice(der);
    let k233 = s.keygen("ecdsa-k233", "k233");
    let other_curve = s.p("k233.sig");
    s.ok(&sign(&k233, &ic.msg, None, &other_curve, &[]));
    let cases: Vec<(&str, Vec<u8>, i32, &str)> = vec![
        (
            "as signed",
            agg.clone(),
            0,
            "valid: signed by \"2001:db8::17\"",
        ),
        ("trailing byte", with(&|b| b.push(0)), 2, "trailing"),
        ("parameter byte 7", with(&|b| b[4] = 7), 2, "scheme"),
        ("long-form length", long_form, 2, "ECDSA signature"),
        (
            "truncated",
            with(&|b| {
                b.pop();
            }),
            2,
            "short",
        ),
        ("two signers", two, 1, "holds 2 signatures"),
        ("bare DER", der.to_vec(), 0, "valid"),
        (
            "a K-233 signature",
            std::fs::read(&other_curve).unwrap(),
            2,
            "aggregate is for ecdsa-k233, not ecdsa-k163",
        ),
    ];
    // Alice's public key, for `hopsig verify`: ic finalize writes her secret key only.
    let secret = std::fs::read(&ic.key).unwrap();
    let scheme = hopsig_schemes::registry::lookup("ecdsa-k163").unwrap();
    let public = scheme
        .signing_key_from_file(&secret)
        .unwrap()
        .verifying_key()
        .to_key_file();
    let pubkey = s.write("a.pub", public);
    for (what, bytes, want, needle) in cases {
        let file = s.write("variant", &bytes);
        let o = s.run(&ic.verify_args(&file));
        assert_eq!(code(&o), want, "ic verify, {what}: {}", text(&o));
        assert!(
            text(&o).contains(needle),
            "{what}: {needle:?} not in {}",
            text(&o)
        );
        if want == 2 {
            assert!(text(&o).contains("variant:"), "{what}: {}", text(&o));
        }
        let o = s.run(&verify("ecdsa-k163", &[(&pubkey, &ic.msg)], &file));
        assert_eq!(code(&o), want, "verify, {what}: {}", text(&o));
    }
}

/// A certificate file that does not decode (r_A, b_A giving no point of the subgroup,
/// an identity over 1024 bytes) is exit 2 naming the certificate, decided from the file
/// alone.
#[test]
fn a_certificate_that_does_not_decode_is_exit_2() {
    let s = Scratch::new();
    let ic = s.implicit_certificate("k163", "2001:db8::17");
    let file = KeyFile::parse(&std::fs::read(&ic.cert).unwrap()).unwrap();
    let id = file.block("HOPSIG ICNR IDENTITY").unwrap().der.to_vec();
    let cert = file.block("HOPSIG ICNR CERT").unwrap().der.to_vec();
    let render = |id: &[u8], cert: &[u8]| {
        KeyFile::render(
            "icnr-k163",
            KeyKind::Public,
            &[
                &pem_block("HOPSIG ICNR IDENTITY", id),
                &pem_block("HOPSIG ICNR CERT", cert),
            ],
        )
        .to_string()
    };
    // Half of all r_A decompress to no point (or one outside the subgroup): find one.
    let bad = (1..=255u8)
        .map(|d| {
            let mut c = cert.clone();
            c[20] ^= d;
            render(&id, &c)
        })
        .find(|text| {
            files::cert_from_file::<K163>(&KeyFile::parse(text.as_bytes()).unwrap())
                .is_err_and(|e| e.to_string().contains("does not decode"))
        })
        .unwrap();
    for (name, text, needle) in [
        (
            "bad.cert",
            bad,
            "HOPSIG ICNR CERT: (r_A, b_A) does not decode to a point of the subgroup",
        ),
        (
            "long-id.cert",
            render(&[b'x'; 1025], &cert),
            "HOPSIG ICNR IDENTITY: identity must be 1..=1024 bytes",
        ),
    ] {
        let path = s.write(name, text);
        let args = [
            "ic",
            "verify",
            "--ttp-pub",
            &ic.ttp_pub,
            "--cert",
            &path,
            "--msg",
            &ic.msg,
            "--agg",
            &ic.sig,
        ];
        s.exits(2, &args, &format!("{name}: {needle}"));
        s.exits(0, &["inspect", &ic.cert], "certificate");
        s.exits(2, &["inspect", &path], needle);
    }
}

/// The steps that read files take the curve from them: a K-233 TTP and request need no
/// --curve for issue, finalize and verify. --curve given to them must match the files.
#[test]
fn ic_steps_read_the_curve_from_their_files() {
    let s = Scratch::new();
    let ic = s.implicit_certificate("k233", "alice");
    let key = std::fs::read_to_string(&ic.key).unwrap();
    assert!(key.contains("scheme: ecdsa-k233"), "{key}");
    s.exits(0, &ic.verify_args(&ic.sig), "valid: signed by \"alice\"");
    let mut with_curve = vec!["ic", "--curve", "k233"];
    with_curve.extend(&ic.verify_args(&ic.sig)[1..]);
    s.exits(0, &with_curve, "valid");
    with_curve[2] = "k163";
    s.exits(
        2,
        &with_curve,
        "ttp.pub: an icnr file on K233 rather than K163 as --curve says",
    );
    let out = s.p("again");
    s.exits(
        2,
        &[
            "ic",
            "--curve",
            "k283",
            "issue",
            "--ttp",
            &ic.ttp,
            "--id",
            "bob",
            "--request",
            &ic.request,
            "--out",
            &out,
        ],
        "ttp.key: an icnr file on K233 rather than K283",
    );
    // A file of one curve among another's: named, with both scheme ids.
    let other = Scratch::new();
    let k163 = other.implicit_certificate("k163", "bob");
    s.exits(
        2,
        &[
            "ic",
            "finalize",
            "--blind",
            &ic.blind,
            "--issued",
            &k163.issued,
            "--ttp-pub",
            &ic.ttp_pub,
            "--out",
            &s.p("k"),
        ],
        "a.issued: expected a icnr-k233 secret file, found icnr-k163 secret",
    );
    s.exits(
        2,
        &[
            "ic",
            "verify",
            "--ttp-pub",
            &s.p("a.key"),
            "--cert",
            &ic.cert,
            "--msg",
            &ic.msg,
            "--agg",
            &ic.sig,
        ],
        "a.key: key is for scheme 'ecdsa-k233'",
    );
}
