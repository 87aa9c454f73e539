//! hopsig's NDN codec and signatures against python-ndn 0.5.2 (an independent
//! implementation, PyPI) through `interop/python/ndn_reference.py`, both ways:
//!
//! * every vector python-ndn encodes (Interests with selectors, parameters and typed
//!   components; Data with MetaInfo, empty or no Content, DigestSha256, ECDSA P-256,
//!   RSA-2048 and SignatureType 200) decodes in hopsig to the fields python-ndn
//!   reports, re-encodes to the same octets, has the same signed portion, and its
//!   signature verifies in hopsig;
//! * Data hopsig signs (DigestSha256, RSA-2048, ECDSA P-256) parses in python-ndn to
//!   the fields hopsig encoded, and verifies with the `cryptography` package.
//!
//! The interpreter is `$HOPSIG_PYTHON` (.ci/run's venv), else `.venv-ci/bin/python`,
//! else `python3`; without python-ndn the tests say they skip, and fail under CI=true.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;

use common::root;

use hopsig_ndn::{Data, Interest, KeyLocator, Name, SignatureInfo, SigningKey, VerifyingKey};
use openssl::ec::{EcGroup, EcKey};
use openssl::nid::Nid;
use openssl::pkey::PKey;
use openssl::rsa::Rsa;
use serde_json::Value;

fn interpreter() -> Option<String> {
    common::python("ndn.encoding, cryptography")
}

/// Runs `ndn_reference.py ARGS`; its JSON output.
fn reference(py: &str, args: &[&str]) -> Value {
    let out = Command::new(py)
        .arg(root().join("interop/python/ndn_reference.py"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn hex_of(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap()).unwrap()
}

fn opt_u64(v: &Value) -> Option<u64> {
    v.as_u64()
}

/// The fields of `name` as python-ndn reports them: the components, and the URI
/// parsed back by hopsig.
fn check_name(n: &Name, f: &Value, label: &str) {
    let components: Vec<(u64, String)> = f["components"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["type"].as_u64().unwrap(),
                c["value_hex"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let ours: Vec<(u64, String)> = n
        .components()
        .iter()
        .map(|c| (u64::from(c.typ()), hex::encode(c.value())))
        .collect();
    assert_eq!(ours, components, "{label}: components");
    let uri = f["name"].as_str().unwrap();
    assert_eq!(
        &uri.parse::<Name>().unwrap(),
        n,
        "{label}: python-ndn's URI {uri}"
    );
}

fn check_data(d: &Data, f: &Value, label: &str) {
    check_name(&d.name, f, label);
    let meta = d.meta_info.clone().unwrap_or_default();
    assert_eq!(meta.content_type, opt_u64(&f["content_type"]), "{label}");
    assert_eq!(
        meta.freshness_period,
        opt_u64(&f["freshness_ms"]),
        "{label}"
    );
    let fbi = meta.final_block_id.map(|c| {
        let mut v = vec![];
        c.encode(&mut v);
        hex::encode(v)
    });
    assert_eq!(fbi.as_deref(), f["final_block_id_hex"].as_str(), "{label}");
    assert_eq!(
        d.content.as_ref().map(hex::encode).as_deref(),
        f["content_hex"].as_str(),
        "{label}"
    );
    assert_eq!(
        Some(d.signature_info.signature_type),
        opt_u64(&f["signature_type"]),
        "{label}"
    );
    let locator = match &d.signature_info.key_locator {
        Some(KeyLocator::Name(n)) => Some(n.clone()),
        _ => None,
    };
    let theirs = f["key_locator_name"]
        .as_str()
        .map(|s| s.parse::<Name>().unwrap());
    assert_eq!(locator, theirs, "{label}: KeyLocator");
    assert_eq!(
        d.signature_value,
        hex_of(&f["signature_value_hex"]),
        "{label}"
    );
    assert_eq!(
        d.signed_portion(),
        hex_of(&f["signed_portion_hex"]),
        "{label}: signed portion"
    );
}

fn check_interest(i: &Interest, f: &Value, label: &str) {
    check_name(&i.name, f, label);
    assert_eq!(
        i.can_be_prefix,
        f["can_be_prefix"].as_bool().unwrap(),
        "{label}"
    );
    assert_eq!(
        i.must_be_fresh,
        f["must_be_fresh"].as_bool().unwrap(),
        "{label}"
    );
    assert_eq!(
        i.nonce.map(|n| u64::from(u32::from_be_bytes(n))),
        opt_u64(&f["nonce"]),
        "{label}"
    );
    assert_eq!(i.lifetime, opt_u64(&f["lifetime_ms"]), "{label}");
    assert_eq!(
        i.hop_limit.map(u64::from),
        opt_u64(&f["hop_limit"]),
        "{label}"
    );
    assert_eq!(
        i.parameters.as_ref().map(hex::encode).as_deref(),
        f["app_params_hex"].as_str(),
        "{label}"
    );
}

#[test]
fn python_ndn_packets_decode_re_encode_and_verify_in_hopsig() {
    let Some(py) = interpreter() else { return };
    let vectors = reference(&py, &["vectors"]);
    let vectors = vectors["vectors"].as_array().unwrap();
    assert!(vectors.len() >= 12, "{} vectors", vectors.len());
    let mut verified = 0;
    for v in vectors {
        let label = v["name"].as_str().unwrap();
        let wire = hex_of(&v["wire_hex"]);
        let f = &v["fields"];
        match v["kind"].as_str().unwrap() {
            "interest" => {
                let i = Interest::decode(&wire).unwrap_or_else(|e| panic!("{label}: {e}"));
                check_interest(&i, f, label);
                assert_eq!(i.encode(), wire, "{label}: re-encoding");
            }
            _ => {
                let d = Data::decode(&wire).unwrap_or_else(|e| panic!("{label}: {e}"));
                check_data(&d, f, label);
                assert_eq!(d.encode(), wire, "{label}: re-encoding");
                let key = match (d.signature_info.signature_type, v.get("public_key_der_hex")) {
                    (0, _) => Some(VerifyingKey::digest()),
                    (1 | 3, Some(k)) => Some(VerifyingKey::from_spki(&hex_of(k)).unwrap()),
                    _ => None,
                };
                if let Some(key) = key {
                    key.verify_data(&d)
                        .unwrap_or_else(|e| panic!("{label}: {e}"));
                    let mut bad = d.clone();
                    bad.content.get_or_insert_with(Vec::new).push(0);
                    assert!(
                        key.verify_data(&bad).is_err(),
                        "{label}: changed content verifies"
                    );
                    verified += 1;
                }
            }
        }
    }
    assert!(verified >= 4, "{verified} signatures checked");
}

#[test]
fn hopsig_data_parses_and_verifies_in_python_ndn() {
    let Some(py) = interpreter() else { return };
    let rsa = PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap();
    let ec = PKey::from_ec_key(
        EcKey::generate(&EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap()).unwrap(),
    )
    .unwrap();
    for (label, key) in [
        ("digest", SigningKey::digest()),
        ("rsa-2048", SigningKey::new(rsa).unwrap()),
        ("ecdsa-p256", SigningKey::new(ec).unwrap()),
    ] {
        let mut d = Data::new(
            "/moderators/Government/safetyConfirmation/wonderland/Alice/2/9"
                .parse()
                .unwrap(),
            b"Alice: I am safe.\nModerator: Government\nAccepted: yes\n".to_vec(),
            SignatureInfo::new(0).with_key_name("/moderators/Government/KEY/1".parse().unwrap()),
        );
        d.meta_info = Some(hopsig_ndn::MetaInfo {
            freshness_period: Some(10_000),
            ..Default::default()
        });
        key.sign_data(&mut d).unwrap();
        let wire = hex::encode(d.encode());
        let parsed = reference(&py, &["parse", &wire]);
        check_data(&d, &parsed, label);
        let spki = match key.verifying_key().unwrap().spki_der() {
            Some(der) => hex::encode(der),
            None => "-".into(),
        };
        let verdict = reference(&py, &["verify", &wire, &spki]);
        assert_eq!(verdict["valid"], true, "{label}: {verdict}");
        let mut bad = d.clone();
        bad.signature_value[0] ^= 1;
        let verdict = reference(&py, &["verify", &hex::encode(bad.encode()), &spki]);
        assert_eq!(
            verdict["valid"], false,
            "{label}: a changed signature: {verdict}"
        );
    }
}
