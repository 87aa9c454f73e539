//! BGR test vectors (`docs/spec/vectors/bgr.json`) and the independent Python
//! implementation (`interop/python/bgr_reference.py`, written from docs/spec/bgr.md).
//!
//! * `vectors_reproduce_exactly`: hopsig re-signs every input-dependent vector from
//!   its fixed keys and seeds and gets the exact bytes; every case verifies (or fails)
//!   as the file says.
//! * `python_reference_agrees`: the Python implementation checks the committed vectors
//!   and freshly signed chains of all four parameter sets.
//! * `regenerate` (ignored): writes a new vector file.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use hopsig_schemes::bgr::{Bgr, BgrAggregate, BgrParams, BgrSigningKey, Randomness};
use hopsig_schemes::primitives::rsa::RsaSecretKey;
use hopsig_schemes::{Aggregate, Error, SequentialAggregate, SigningKey};
use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn vector_file() -> PathBuf {
    root().join("docs/spec/vectors/bgr.json")
}

fn key_json(key: &RsaSecretKey, seed: Option<[u8; 32]>) -> Value {
    let rsa = key.openssl();
    let mut v = json!({
        "secret_pkcs8_pem": key.to_pkcs8_pem().unwrap().as_str(),
        "spki_der": hex::encode(key.public().spki_der()),
        "n": rsa.n().to_hex_str().unwrap().to_lowercase(),
        "e": rsa.e().to_hex_str().unwrap().to_lowercase(),
        "d": rsa.d().to_hex_str().unwrap().to_lowercase(),
    });
    if let Some(s) = seed {
        v["prf_seed"] = json!(hex::encode(s));
    }
    v
}

fn bgr_signing_key(params: BgrParams, key: &Value) -> BgrSigningKey {
    let rsa =
        RsaSecretKey::from_pkcs8_pem(key["secret_pkcs8_pem"].as_str().unwrap().as_bytes()).unwrap();
    let seed = key["prf_seed"]
        .as_str()
        .map(|s| hex::decode(s).unwrap().try_into().unwrap());
    BgrSigningKey::from_parts(params, rsa, seed).unwrap()
}

/// Signs a chain: signer i uses key `key_idx[i]` and message `msgs[i]`.
fn sign_chain(
    params: BgrParams,
    keys: &[BgrSigningKey],
    key_idx: &[usize],
    msgs: &[Vec<u8>],
) -> BgrAggregate {
    let scheme = Bgr::new(params);
    let mut agg = None;
    for (i, m) in key_idx.iter().zip(msgs) {
        agg = Some(scheme.sign(&keys[*i], m, agg.as_ref()).unwrap());
    }
    agg.unwrap()
}

fn case(comment: &str, key_idx: &[usize], msgs: &[Vec<u8>], agg: &[u8], expected: &str) -> Value {
    let signers: Vec<Value> = key_idx
        .iter()
        .zip(msgs)
        .map(|(k, m)| json!({"key": k, "message": hex::encode(m)}))
        .collect();
    json!({"comment": comment, "signers": signers, "aggregate": hex::encode(agg), "expected": expected})
}

fn messages(n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| format!("AS{} -> AS{}: 192.0.2.0/24", 64496 + i, 64497 + i).into_bytes())
        .collect()
}

/// A vector document for `params`, with `keys` RSA keys of the right size.
fn document(params: BgrParams, rsa_keys: Vec<RsaSecretKey>) -> Value {
    let prf = params.randomness() == Randomness::InputDependent;
    let seeds: Vec<Option<[u8; 32]>> = (0..rsa_keys.len())
        .map(|i| prf.then(|| [0x11 * (i as u8 + 1); 32]))
        .collect();
    let keys_json: Vec<Value> = rsa_keys
        .iter()
        .zip(&seeds)
        .map(|(k, s)| key_json(k, *s))
        .collect();
    let keys: Vec<BgrSigningKey> = keys_json
        .iter()
        .map(|k| bgr_signing_key(params, k))
        .collect();
    let mut cases = Vec::new();
    for (n, idx) in [
        (1, vec![0]),
        (3, vec![0, 1, 2]),
        (9, vec![0, 1, 2, 0, 1, 2, 0, 1, 2]),
    ] {
        let msgs = messages(n);
        let agg = sign_chain(params, &keys, &idx, &msgs).to_bytes();
        cases.push(case(
            &format!("{} valid chain of {n}", params.id()),
            &idx,
            &msgs,
            &agg,
            "valid",
        ));
        if n != 3 {
            continue;
        }
        let k = params.k();
        let mut flip_h = agg.clone();
        flip_h[7 + k] ^= 1;
        cases.push(case("h_n bit flipped", &idx, &msgs, &flip_h, "invalid"));
        let mut flip_b = agg.clone();
        *flip_b.last_mut().unwrap() ^= 0x40;
        cases.push(case("b_2 flipped", &idx, &msgs, &flip_b, "invalid"));
        let mut other = msgs.clone();
        other[1].push(b'!');
        cases.push(case("message 2 changed", &idx, &other, &agg, "invalid"));
        cases.push(case(
            "signers 2 and 3 swapped",
            &[0, 2, 1],
            &[msgs[0].clone(), msgs[2].clone(), msgs[1].clone()],
            &agg,
            "invalid",
        ));
        let mut top = agg.clone();
        top[7] |= 0x80;
        cases.push(case("x_n outside D", &idx, &msgs, &top, "malformed"));
        cases.push(case(
            "truncated",
            &idx,
            &msgs,
            &agg[..agg.len() - 1],
            "malformed",
        ));
    }
    json!({
        "_comment": format!(
            "BGR test vectors for {}, generated by hopsig (crates/hopsig-schemes/tests/vectors.rs, `regenerate`) \
             and checked by the independent interop/python/bgr_reference.py. Keys are test keys: never use them.",
            params.id()
        ),
        "scheme": params.id(),
        "keys": keys_json,
        "cases": cases,
    })
}

fn outcome(scheme: &Bgr, keys: &[hopsig_schemes::bgr::BgrVerifyingKey], c: &Value) -> &'static str {
    let agg = match scheme
        .aggregate_from_bytes(&hex::decode(c["aggregate"].as_str().unwrap()).unwrap())
    {
        Ok(a) => a,
        Err(_) => return "malformed",
    };
    let signers = c["signers"].as_array().unwrap();
    let msgs: Vec<Vec<u8>> = signers
        .iter()
        .map(|s| hex::decode(s["message"].as_str().unwrap()).unwrap())
        .collect();
    let pairs: Vec<_> = signers
        .iter()
        .zip(&msgs)
        .map(|(s, m)| (&keys[s["key"].as_u64().unwrap() as usize], m.as_slice()))
        .collect();
    match scheme.verify(&pairs, &agg) {
        Ok(()) => "valid",
        Err(Error::InvalidSignature) => "invalid",
        Err(e) => panic!("unexpected {e}"),
    }
}

#[test]
fn vectors_reproduce_exactly() {
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(vector_file()).unwrap()).unwrap();
    let params = BgrParams::from_id(doc["scheme"].as_str().unwrap()).unwrap();
    let scheme = Bgr::new(params);
    let keys: Vec<BgrSigningKey> = doc["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| bgr_signing_key(params, k))
        .collect();
    let pubs: Vec<_> = keys.iter().map(SigningKey::verifying_key).collect();
    let mut valid_resigned = 0;
    for c in doc["cases"].as_array().unwrap() {
        assert_eq!(
            outcome(&scheme, &pubs, c),
            c["expected"].as_str().unwrap(),
            "{}",
            c["comment"]
        );
        if c["expected"] == "valid" {
            let signers = c["signers"].as_array().unwrap();
            let idx: Vec<usize> = signers
                .iter()
                .map(|s| s["key"].as_u64().unwrap() as usize)
                .collect();
            let msgs: Vec<Vec<u8>> = signers
                .iter()
                .map(|s| hex::decode(s["message"].as_str().unwrap()).unwrap())
                .collect();
            let again = sign_chain(params, &keys, &idx, &msgs).to_bytes();
            assert_eq!(
                hex::encode(again),
                c["aggregate"].as_str().unwrap(),
                "{}",
                c["comment"]
            );
            valid_resigned += 1;
        }
    }
    assert_eq!(valid_resigned, 3);
}

fn python() -> Option<String> {
    let py = std::env::var("HOPSIG_PYTHON").unwrap_or_else(|_| "python3".into());
    match Command::new(&py).arg("--version").output() {
        Ok(o) if o.status.success() => Some(py),
        _ if std::env::var_os("CI").is_some() => panic!("CI requires {py} for the interop tests"),
        _ => None,
    }
}

fn run_reference(py: &str, file: &Path) {
    let out = Command::new(py)
        .arg(root().join("interop/python/bgr_reference.py"))
        .arg("check")
        .arg(file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}: {text}{}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains(" passed, 0 failed"), "{text}");
}

#[test]
fn python_reference_agrees() {
    let Some(py) = python() else {
        eprintln!("python3 not found: skipping the independent-implementation check (CI runs it)");
        return;
    };
    run_reference(&py, &vector_file());
    let dir = tempfile_dir();
    for params in [
        BgrParams::PRF_RSA2048,
        BgrParams::RAND_RSA2048,
        BgrParams::PRF_RSA3072,
        BgrParams::RAND_RSA3072,
    ] {
        let keys = (0..3)
            .map(|i| common::rsa_key(params.modulus_bits(), i))
            .collect();
        let file = dir.join(format!("{}.json", params.id()));
        std::fs::write(
            &file,
            serde_json::to_string(&document(params, keys)).unwrap(),
        )
        .unwrap();
        run_reference(&py, &file);
    }
}

fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hopsig-vectors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
#[ignore = "writes docs/spec/vectors/bgr.json; run with --ignored to regenerate"]
fn regenerate() {
    let keys = (0..3)
        .map(|_| RsaSecretKey::generate(2048).unwrap())
        .collect();
    let doc = document(BgrParams::PRF_RSA2048, keys);
    std::fs::write(
        vector_file(),
        serde_json::to_string_pretty(&doc).unwrap() + "\n",
    )
    .unwrap();
}
