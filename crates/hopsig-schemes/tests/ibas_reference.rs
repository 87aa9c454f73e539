//! hopsig's IBAS against an independent implementation, both ways.
//!
//! `interop/python/ibas_reference.py` was written from `docs/spec/ibas.md`,
//! `aggregate.md` and `keys.md` alone (py_ecc 8.0 for the curve and pairing, its own
//! RFC 9380 `expand_message_xmd` / `hash_to_field`). Here:
//!
//! * hopsig's output goes to the reference: a PKG's secret and parameters, user keys,
//!   the publisher → moderator → third-signer chain with hopsig's derived r (which the
//!   reference recomputes byte for byte), verify cases that must come out valid /
//!   invalid / malformed, and the journal key bindings;
//! * the reference's own vectors (`tests/data/ibas/*.json`, made by
//!   `interop/python/ibas_make_vectors.py`) go to hopsig: it must reach the same verdict
//!   on each aggregate and reproduce each signature the reference made.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use hopsig_schemes::ibas::{
    self, journal, IbasAggregate, Identity, Journal, Pkg, PublicParams, UserKey,
};
use hopsig_schemes::primitives::armor::{KeyFile, KeyKind};
use hopsig_schemes::primitives::rsa::pem_block;
use hopsig_schemes::Aggregate;
use serde_json::{json, Value};

const USER_KEY: &str = "HOPSIG IBAS USER KEY";
const MASTER: &str = "HOPSIG IBAS MASTER SECRET";

fn block(file: &str, label: &str) -> Vec<u8> {
    KeyFile::parse(file.as_bytes())
        .unwrap()
        .block(label)
        .unwrap()
        .der
        .to_vec()
}

/// A user key from the raw parts a vector file holds, through the key-file reader (so
/// the pairing check of keys.md runs on it).
fn user_key(identity: &str, d0_d1: &[u8], params: &[u8]) -> UserKey {
    let text = KeyFile::render(
        ibas::ID,
        KeyKind::Secret,
        &[
            &pem_block("HOPSIG IBAS IDENTITY", identity.as_bytes()),
            &pem_block(USER_KEY, d0_d1),
            &pem_block("HOPSIG IBAS PARAMS", params),
        ],
    );
    UserKey::from_key_file(&KeyFile::parse(text.as_bytes()).unwrap()).unwrap()
}

/// hopsig's verdict on an aggregate and its (identity, message) list, in the words of
/// docs/spec/aggregate.md "Verifier outcomes" and ibas.md: `malformed` if the aggregate
/// does not decode or a name is not an identity, `invalid` if the equation fails,
/// `valid` otherwise.
fn verdict(params: &PublicParams, signers: &[(String, Vec<u8>)], agg: &[u8]) -> &'static str {
    let Ok(agg) = IbasAggregate::from_bytes(agg) else {
        return "malformed";
    };
    let Ok(ids) = signers
        .iter()
        .map(|(i, _)| Identity::new(i))
        .collect::<Result<Vec<_>, _>>()
    else {
        return "malformed";
    };
    let pairs: Vec<(&Identity, &[u8])> = ids
        .iter()
        .zip(signers)
        .map(|(i, (_, m))| (i, m.as_slice()))
        .collect();
    match ibas::verify(params, &pairs, &agg) {
        Ok(()) => "valid",
        Err(_) => "invalid",
    }
}

/// A verify case: (identity, message) pairs, aggregate bytes, expected verdict.
type Case<'a> = (Vec<(&'a str, &'a [u8])>, Vec<u8>, &'static str);

fn hexs(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap()).unwrap()
}

fn signers_json(pairs: &[(&str, &[u8])]) -> Value {
    pairs
        .iter()
        .map(|(i, m)| json!({ "identity": i, "message": hex::encode(m) }))
        .collect()
}

#[test]
fn reference_self_test_passes() {
    let Some(py) = common::python(Some("py_ecc.bls")) else {
        return;
    };
    let out = std::process::Command::new(py)
        .arg(common::root().join("interop/python/ibas_reference.py"))
        .arg("--self-test")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(" passed, 0 failed"), "{text}");
}

#[test]
fn the_reference_accepts_what_hopsig_makes_and_rejects_what_it_rejects() {
    let Some(py) = common::python(Some("py_ecc.bls")) else {
        return;
    };
    let pkg = Pkg::setup().unwrap();
    let params = pkg.params().to_bytes();
    let names = [
        "/publishers/Alice",
        "/moderators/Government",
        "/ünïcode/Bob",
    ];
    let keys: Vec<UserKey> = names.iter().map(|n| pkg.extract(n).unwrap()).collect();
    let msgs: [&[u8]; 3] = [b"safety confirmation", b"Moderator: Gov\nAccepted", b""];

    // The chain, each hop with its own journal (as three hosts would have).
    let mut sign = Vec::new();
    let mut aggs: Vec<IbasAggregate> = Vec::new();
    for (i, (k, m)) in keys.iter().zip(msgs).enumerate() {
        let prev = aggs.last();
        let agg = ibas::sign(k, m, prev, &mut Journal::memory()).unwrap();
        sign.push(json!({
            "key": i, "message": hex::encode(m), "w": hex::encode(agg.w()),
            "previous": prev.map(|p| hex::encode(p.to_bytes())),
            "aggregate": hex::encode(agg.to_bytes()),
        }));
        aggs.push(agg);
    }
    // A repeat of the same (key, w, message) gives the same bytes.
    let again = ibas::sign(&keys[1], msgs[1], Some(&aggs[0]), &mut Journal::memory()).unwrap();
    assert_eq!(again.to_bytes(), aggs[1].to_bytes());

    let full = aggs[2].to_bytes();
    let pairs: Vec<(&str, &[u8])> = names.iter().copied().zip(msgs).collect();
    let mut cases: Vec<Case> = vec![
        (pairs[..1].to_vec(), aggs[0].to_bytes(), "valid"),
        (pairs[..2].to_vec(), aggs[1].to_bytes(), "valid"),
        (pairs.clone(), full.clone(), "valid"),
        (pairs.iter().rev().copied().collect(), full.clone(), "valid"),
        (pairs[..2].to_vec(), full.clone(), "invalid"),
        (
            vec![pairs[0], (names[1], b"changed"), pairs[2]],
            full.clone(),
            "invalid",
        ),
        (
            vec![(names[0], msgs[1]), (names[1], msgs[0]), pairs[2]],
            full.clone(),
            "invalid",
        ),
        (
            vec![pairs[0], ("/moderators/Eve", msgs[1]), pairs[2]],
            full.clone(),
            "invalid",
        ),
        (
            vec![pairs[0], pairs[1], (names[0], msgs[2])],
            full.clone(),
            "invalid",
        ),
    ];
    // Names that are not identities (empty, over 1,024 bytes): malformed input.
    let long = format!("/{}", "x".repeat(1024));
    cases.push((vec![("", msgs[0])], aggs[0].to_bytes(), "malformed"));
    cases.push((
        vec![(long.as_str(), msgs[0])],
        aggs[0].to_bytes(),
        "malformed",
    ));
    let mut trailing = full.clone();
    trailing.push(0);
    let mut param = full.clone();
    param[4] = 20;
    let mut s_inf = full.clone();
    s_inf[23] = 0xc0;
    s_inf[24..71].fill(0);
    let mut t_flag = full.clone();
    t_flag[71] &= 0x7f;
    for bad in [
        full[..full.len() - 1].to_vec(),
        trailing,
        param,
        s_inf,
        t_flag,
    ] {
        cases.push((pairs.clone(), bad, "malformed"));
    }
    let verify: Vec<Value> = cases
        .iter()
        .map(|(signers, agg, want)| {
            let owned: Vec<(String, Vec<u8>)> = signers
                .iter()
                .map(|(i, m)| (i.to_string(), m.to_vec()))
                .collect();
            assert_eq!(verdict(pkg.params(), &owned, agg), *want, "hopsig itself");
            json!({ "signers": signers_json(signers), "aggregate": hex::encode(agg), "expected": want })
        })
        .collect();

    let pkg_file = pkg.to_key_file();
    let file = json!({
        "params": hex::encode(params),
        "pkg_secret": hex::encode(block(&pkg_file, MASTER)),
        "keys": keys.iter().map(|k| json!({
            "identity": k.identity(),
            "user_key": hex::encode(block(&k.to_key_file(), USER_KEY)),
        })).collect::<Vec<_>>(),
        "sign": sign,
        "verify": verify,
        "journal_binding": keys.iter().map(|k| json!({
            "params": hex::encode(params), "identity": k.identity(),
            "binding": hex::encode(journal::key_binding(k)),
        })).collect::<Vec<_>>(),
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hopsig-ibas.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&file).unwrap()).unwrap();
    let out = std::process::Command::new(py)
        .arg(common::root().join("interop/python/ibas_reference.py"))
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // params, pkg_secret, each key, sign item, verify case and binding.
    let expected_items = 2 + keys.len() + sign.len() + cases.len() + keys.len();
    assert!(
        text.contains(&format!("{expected_items} passed, 0 failed")),
        "{text}"
    );
}

/// The reference's own vector files, checked by hopsig.
#[test]
fn hopsig_agrees_with_the_reference_vectors() {
    let dir = common::root().join("crates/hopsig-schemes/tests/data/ibas");
    let a: Value = serde_json::from_slice(&std::fs::read(dir.join("pkg-a.json")).unwrap()).unwrap();
    let params_bytes = hexs(&a["params"]);
    let params = PublicParams::from_bytes(&params_bytes.clone().try_into().unwrap()).unwrap();
    let keys: Vec<UserKey> = a["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            user_key(
                k["identity"].as_str().unwrap(),
                &hexs(&k["user_key"]),
                &params_bytes,
            )
        })
        .collect();
    // The PKG the reference used extracts the same keys.
    let pkg_text = KeyFile::render(
        ibas::ID,
        KeyKind::Secret,
        &[
            &pem_block(MASTER, &hexs(&a["pkg_secret"])),
            &pem_block("HOPSIG IBAS PARAMS", &params_bytes),
        ],
    );
    let pkg = Pkg::from_key_file(&KeyFile::parse(pkg_text.as_bytes()).unwrap()).unwrap();
    for k in &keys {
        assert_eq!(
            pkg.extract(k.identity()).unwrap().to_key_file().as_str(),
            k.to_key_file().as_str()
        );
    }
    for (i, s) in a["sign"].as_array().unwrap().iter().enumerate() {
        let key = &keys[s["key"].as_u64().unwrap() as usize];
        let msg = hexs(&s["message"]);
        let w: [u8; ibas::W_LEN] = hexs(&s["w"]).try_into().unwrap();
        let mut journal = Journal::memory();
        let ours = if s["previous"].is_null() {
            ibas::sign_with_w(key, &msg, &w, &mut journal).unwrap()
        } else {
            let prev = IbasAggregate::from_bytes(&hexs(&s["previous"])).unwrap();
            assert_eq!(prev.w(), &w);
            ibas::sign(key, &msg, Some(&prev), &mut journal).unwrap()
        };
        assert_eq!(
            hex::encode(ours.to_bytes()),
            s["aggregate"].as_str().unwrap(),
            "sign {i}: {}",
            s["comment"]
        );
    }
    let check = |doc: &Value, params: &PublicParams| {
        for (i, v) in doc["verify"].as_array().unwrap().iter().enumerate() {
            let signers: Vec<(String, Vec<u8>)> = v["signers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    (
                        s["identity"].as_str().unwrap().to_string(),
                        hexs(&s["message"]),
                    )
                })
                .collect();
            assert_eq!(
                verdict(params, &signers, &hexs(&v["aggregate"])),
                v["expected"].as_str().unwrap(),
                "verify {i}: {}",
                v["comment"]
            );
        }
    };
    check(&a, &params);
    let other: Value =
        serde_json::from_slice(&std::fs::read(dir.join("other-pkg.json")).unwrap()).unwrap();
    let other_params =
        PublicParams::from_bytes(&hexs(&other["params"]).try_into().unwrap()).unwrap();
    check(&other, &other_params);
    for b in a["journal_binding"].as_array().unwrap() {
        let key = keys
            .iter()
            .find(|k| k.identity() == b["identity"].as_str().unwrap())
            .expect("a binding for one of the file's keys");
        assert_eq!(hexs(&b["params"]), params_bytes);
        assert_eq!(
            hex::encode(journal::key_binding(key)),
            b["binding"].as_str().unwrap()
        );
    }
}
