//! BGR test vectors (`docs/spec/vectors/bgr.json`, described in docs/spec/bgr.md §7) and
//! the independent Python implementation (`interop/python/bgr_reference.py`, written
//! from docs/spec/bgr.md).
//!
//! * `vectors_reproduce_exactly`: the one harness over the file. Every case decodes,
//!   verifies or fails exactly as its `expected` says (`valid`, `invalid`: well-formed
//!   but Ver rejects it, `malformed`: it does not decode), and hopsig re-signs every
//!   valid chain from its fixed keys, seeds and (random-r variant) fixed r_i to the
//!   exact bytes.
//! * `python_reference_agrees`: the Python implementation checks the committed file and
//!   a fresh document of the same shape signed by hopsig with other keys.
//! * `regenerate` (ignored): writes a new vector file with fresh keys.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;

use hopsig_schemes::bgr::{
    Bgr, BgrAggregate, BgrParams, BgrSigningKey, BgrVerifyingKey, Randomness,
};
use hopsig_schemes::hazmat::danger_bgr_sign_with_r;
use hopsig_schemes::primitives::rsa::RsaSecretKey;
use hopsig_schemes::{Aggregate, Error, SequentialAggregate, SigningKey};
use serde_json::{json, Value};

use common::root;

/// Keys per modulus size in a vector document.
const KEYS: usize = 3;

fn vector_file() -> PathBuf {
    root().join("docs/spec/vectors/bgr.json")
}

/// The PRF seed of key `i` (every key has one; only the input-dependent variant uses it).
fn seed(i: usize) -> [u8; 32] {
    [0x11 * (i as u8 + 1); 32]
}

/// The fixed r_i of signer i (1-based) in the random-r variant's vectors: ℓ_r/8 bytes,
/// each equal to i.
fn fixed_r(params: BgrParams, i: usize) -> Vec<u8> {
    vec![i as u8; params.r_len()]
}

fn key_json(key: &RsaSecretKey, seed: [u8; 32]) -> Value {
    let rsa = key.openssl();
    json!({
        "secret_pkcs8_pem": key.to_pkcs8_pem().unwrap().as_str(),
        "spki_der": hex::encode(key.public().spki_der()),
        "n": rsa.n().to_hex_str().unwrap().to_lowercase(),
        "e": rsa.e().to_hex_str().unwrap().to_lowercase(),
        "d": rsa.d().to_hex_str().unwrap().to_lowercase(),
        "prf_seed": hex::encode(seed),
    })
}

/// The document's keys for `params`, as BGR signing keys of that parameter set.
fn signing_keys(doc: &Value, params: BgrParams) -> Vec<BgrSigningKey> {
    doc["keys"][params.modulus_bits().to_string()]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            let rsa =
                RsaSecretKey::from_pkcs8_pem(k["secret_pkcs8_pem"].as_str().unwrap().as_bytes())
                    .unwrap();
            let seed = (params.randomness() == Randomness::InputDependent).then(|| {
                hex::decode(k["prf_seed"].as_str().unwrap())
                    .unwrap()
                    .try_into()
                    .unwrap()
            });
            BgrSigningKey::from_parts(params, rsa, seed).unwrap()
        })
        .collect()
}

/// Signs a chain hop by hop, signer i with key `key_idx[i]` on `msgs[i]`; the random-r
/// variant uses [`fixed_r`].
fn sign_chain(
    params: BgrParams,
    keys: &[BgrSigningKey],
    key_idx: &[usize],
    msgs: &[Vec<u8>],
) -> BgrAggregate {
    let scheme = Bgr::new(params);
    let mut agg: Option<BgrAggregate> = None;
    for (i, (k, m)) in key_idx.iter().zip(msgs).enumerate() {
        agg = Some(match params.randomness() {
            Randomness::InputDependent => scheme.sign(&keys[*k], m, agg.as_ref()).unwrap(),
            Randomness::Random { .. } => {
                danger_bgr_sign_with_r(&scheme, &keys[*k], m, &fixed_r(params, i + 1), agg.as_ref())
                    .unwrap()
            }
        });
    }
    agg.unwrap()
}

fn messages(n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| format!("AS{} -> AS{}: 192.0.2.0/24", 64496 + i, 64497 + i).into_bytes())
        .collect()
}

/// Builds the cases of one document.
struct Cases {
    doc_keys: Value,
    cases: Vec<Value>,
}

impl Cases {
    fn push(
        &mut self,
        comment: &str,
        scheme: &str,
        key_idx: &[usize],
        msgs: &[Vec<u8>],
        agg: &[u8],
        expected: &str,
    ) {
        let signers: Vec<Value> = key_idx
            .iter()
            .zip(msgs)
            .map(|(k, m)| json!({"key": k, "message": hex::encode(m)}))
            .collect();
        self.cases.push(json!({
            "_comment": comment, "scheme": scheme, "signers": signers,
            "aggregate": hex::encode(agg), "expected": expected,
        }));
    }

    fn keys(&self, params: BgrParams) -> Vec<BgrSigningKey> {
        signing_keys(&json!({"keys": self.doc_keys}), params)
    }

    /// Valid chains of 1 and 3 signers (and 9, reusing keys, when `nine`).
    fn valid_chains(&mut self, params: BgrParams, nine: bool) {
        let keys = self.keys(params);
        let mut chains = vec![vec![0], vec![0, 1, 2]];
        if nine {
            chains.push(vec![0, 1, 2, 0, 1, 2, 0, 1, 2]);
        }
        for idx in chains {
            let msgs = messages(idx.len());
            let agg = sign_chain(params, &keys, &idx, &msgs).to_bytes();
            let how = match params.randomness() {
                Randomness::InputDependent => "r_i from the PRF".to_string(),
                Randomness::Random { .. } => {
                    format!("fixed r_i = {} bytes each equal to i", params.r_len())
                }
            };
            self.push(
                &format!(
                    "valid chain of {} signer{}, {how}",
                    idx.len(),
                    if idx.len() == 1 { "" } else { "s" }
                ),
                params.id(),
                &idx,
                &msgs,
                &agg,
                "valid",
            );
        }
    }

    /// Every negative case on a 3-signer chain of `params`.
    fn negatives(&mut self, params: BgrParams) {
        let id = params.id();
        let keys = self.keys(params);
        let idx = [0, 1, 2];
        let msgs = messages(3);
        let agg = sign_chain(params, &keys, &idx, &msgs);
        let bytes = agg.to_bytes();
        let k = params.k();
        let (x_at, h_at) = (7, 7 + k);
        let with = |f: &dyn Fn(&mut Vec<u8>)| {
            let mut b = bytes.clone();
            f(&mut b);
            b
        };
        let mut push = |comment: &str, key_idx: &[usize], m: &[Vec<u8>], b: &[u8], e: &str| {
            self.push(comment, id, key_idx, m, b, e);
        };

        // Well-formed, but Ver rejects them: "invalid".
        push(
            "h_n: one bit flipped",
            &idx,
            &msgs,
            &with(&|b| b[h_at] ^= 1),
            "invalid",
        );
        push(
            "b_2 flipped (bit 6 of the bitmap byte)",
            &idx,
            &msgs,
            &with(&|b| *b.last_mut().unwrap() ^= 0x40),
            "invalid",
        );
        let mut other = msgs.clone();
        other[1].push(b'!');
        push("message 2 changed", &idx, &other, &bytes, "invalid");
        push(
            "signers 2 and 3 swapped, keys and messages together",
            &[0, 2, 1],
            &[msgs[0].clone(), msgs[2].clone(), msgs[1].clone()],
            &bytes,
            "invalid",
        );
        push(
            "signer-count mismatch: a 3-signer aggregate against its first 2 pairs",
            &idx[..2],
            &msgs[..2],
            &bytes,
            "invalid",
        );
        let mut four = msgs.clone();
        four.push(b"a fourth message".to_vec());
        push(
            "signer-count mismatch: a 3-signer aggregate against 4 pairs",
            &[0, 1, 2, 0],
            &four,
            &bytes,
            "invalid",
        );
        let (m3, at_n) = x_plus_modulus(params, &keys, &msgs);
        push(
            "X_3 >= N_3: the aggregate carries X_3 + N_3 (below 2^l_pi) in place of X_3; \
             reduced mod N_3 it would verify",
            &idx,
            &[msgs[0].clone(), msgs[1].clone(), m3],
            &at_n.to_bytes(),
            "invalid",
        );
        let (m1, outside) = common::y_outside_d(params, &keys[0], &keys[1], &msgs[1]);
        push(
            "y_2 not in D: signer 2 inverted G(h_2) xor X_1 (top bit set) instead of G(h_2) xor x_1; \
             every other check of Ver passes",
            &idx[..2],
            &[m1, msgs[1].clone()],
            &outside.to_bytes(),
            "invalid",
        );

        // They do not decode: "malformed".
        push(
            "x_n outside D (top bit set)",
            &idx,
            &msgs,
            &with(&|b| b[x_at] |= 0x80),
            "malformed",
        );
        push(
            "nonzero padding bit after b_3",
            &idx,
            &msgs,
            &with(&|b| *b.last_mut().unwrap() |= 0x01),
            "malformed",
        );
        push(
            "one trailing byte",
            &idx,
            &msgs,
            &with(&|b| b.push(0)),
            "malformed",
        );
        push(
            "truncated by one byte",
            &idx,
            &msgs,
            &bytes[..bytes.len() - 1],
            "malformed",
        );
        push(
            "header: magic \"HT\"",
            &idx,
            &msgs,
            &with(&|b| b[1] = b'T'),
            "malformed",
        );
        push(
            "header: format version 2",
            &idx,
            &msgs,
            &with(&|b| b[2] = 2),
            "malformed",
        );
        push(
            "header: the scheme code of another parameter set",
            &idx,
            &msgs,
            &with(&|b| b[3] ^= 0x01),
            "malformed",
        );
        push(
            "header: another parameter byte",
            &idx,
            &msgs,
            &with(&|b| b[4] ^= 0x08),
            "malformed",
        );
        push(
            "header: n = 0",
            &idx,
            &msgs,
            &with(&|b| b[5..7].fill(0)),
            "malformed",
        );
        push(
            "header: n = 4097",
            &idx,
            &msgs,
            &with(&|b| b[5..7].copy_from_slice(&4097u16.to_be_bytes())),
            "malformed",
        );
        push(
            "header: n = 4 on a 3-signer body",
            &idx,
            &msgs,
            &with(&|b| b[6] = 4),
            "malformed",
        );
    }
}

/// A 3-signer chain whose last value X_3 = SPLIT⁻¹(b_3, x_3) has X_3 + N_3 < 2^ℓ_π (m3
/// is chosen so), with X_3 replaced by X_3 + N_3: only the check `X_3 < N_3` rejects it.
/// Returns m3 and the aggregate.
fn x_plus_modulus(
    params: BgrParams,
    keys: &[BgrSigningKey],
    msgs: &[Vec<u8>],
) -> (Vec<u8>, BgrAggregate) {
    use openssl::bn::BigNum;
    let n3 = BigNum::from_slice(keys[2].rsa().public().modulus()).unwrap();
    for j in 0u32.. {
        let m3 = [msgs[2].as_slice(), format!(" (try {j})").as_bytes()].concat();
        let ms = [msgs[0].clone(), msgs[1].clone(), m3.clone()];
        let agg = sign_chain(params, keys, &[0, 1, 2], &ms);
        let mut big_x = agg.x().to_vec();
        big_x[0] |= u8::from(agg.b(3).unwrap()) << 7;
        let mut sum = BigNum::new().unwrap();
        sum.checked_add(&BigNum::from_slice(&big_x).unwrap(), &n3)
            .unwrap();
        if sum.num_bits() > params.modulus_bits() as i32 {
            continue;
        }
        let mut x = sum.to_vec_padded(params.k() as i32).unwrap();
        let b3 = x[0] & 0x80 != 0;
        x[0] &= 0x7f;
        let rs = (1..=3).map(|i| agg.r(i).unwrap().to_vec()).collect();
        let bs = vec![agg.b(1).unwrap(), agg.b(2).unwrap(), b3];
        let forged = BgrAggregate::from_parts(params, x, *agg.h(), rs, bs).unwrap();
        return (m3, forged);
    }
    unreachable!()
}

/// The whole vector document for RSA-2048 keys `k2048` and RSA-3072 keys `k3072`.
fn document(k2048: &[RsaSecretKey], k3072: &[RsaSecretKey]) -> Value {
    let as_json = |keys: &[RsaSecretKey]| -> Vec<Value> {
        keys.iter()
            .enumerate()
            .map(|(i, k)| key_json(k, seed(i)))
            .collect()
    };
    let mut c = Cases {
        doc_keys: json!({"2048": as_json(k2048), "3072": as_json(k3072)}),
        cases: Vec::new(),
    };
    c.valid_chains(BgrParams::PRF_RSA2048, true);
    c.negatives(BgrParams::PRF_RSA2048);
    c.valid_chains(BgrParams::PRF_RSA3072, false);
    c.valid_chains(BgrParams::RAND_RSA2048, true);
    c.negatives(BgrParams::RAND_RSA2048);
    c.valid_chains(BgrParams::RAND_RSA3072, false);
    let r128 = BgrParams::from_id("bgr-rand-rsa2048-r128").unwrap();
    c.valid_chains(r128, false);
    c.valid_chains(BgrParams::from_id("bgr-rand-rsa3072-r256").unwrap(), false);

    // An explicit -rBITS equal to the default names the same parameter set (same header).
    let msgs = messages(3);
    let rand = BgrParams::RAND_RSA2048;
    let agg = sign_chain(rand, &c.keys(rand), &[0, 1, 2], &msgs).to_bytes();
    c.push(
        "the -r152 alias of bgr-rand-rsa2048 is the same parameter set: its aggregate verifies",
        "bgr-rand-rsa2048-r152",
        &[0, 1, 2],
        &msgs,
        &agg,
        "valid",
    );
    // Relabelling: bgr-rsa2048 and bgr-rand-rsa2048-r128 have equally long r_i.
    let prf = BgrParams::PRF_RSA2048;
    let mut relabelled = sign_chain(prf, &c.keys(prf), &[0, 1, 2], &msgs).to_bytes();
    let (code, param) = r128.code();
    (relabelled[3], relabelled[4]) = (code.into(), param);
    c.push(
        "a bgr-rsa2048 aggregate relabelled as bgr-rand-rsa2048-r128 (header 0x12 0x10): it \
         decodes, but every hash is bound to the parameter set, so Ver rejects it",
        r128.id(),
        &[0, 1, 2],
        &msgs,
        &relabelled,
        "invalid",
    );
    json!({
        "_comment": "BGR test vectors (docs/spec/bgr.md §7). Generated by hopsig \
            (crates/hopsig-schemes/tests/vectors.rs, `regenerate`, fresh RSA keys from OpenSSL) \
            and checked by hopsig (`vectors_reproduce_exactly`) and by the independent \
            interop/python/bgr_reference.py. keys[\"2048\"] and keys[\"3072\"] are indexed by the \
            signers' `key`; prf_seed of key j is 32 bytes equal to 0x11·(j+1). Random-r cases \
            use the fixed r_i = ℓ_r/8 bytes each equal to i (signer 1 first). expected: \
            valid (Ver accepts), invalid (it decodes, Ver rejects: exit 1), malformed (it does \
            not decode for that scheme id: exit 2). Keys are test keys: never use them.",
        "keys": c.doc_keys,
        "cases": c.cases,
    })
}

fn verifying_keys(doc: &Value, params: BgrParams) -> Vec<BgrVerifyingKey> {
    signing_keys(doc, params)
        .iter()
        .map(SigningKey::verifying_key)
        .collect()
}

/// The case's signer indices and messages.
fn signers(c: &Value) -> (Vec<usize>, Vec<Vec<u8>>) {
    c["signers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["key"].as_u64().unwrap() as usize,
                hex::decode(s["message"].as_str().unwrap()).unwrap(),
            )
        })
        .unzip()
}

/// What hopsig makes of a case: `valid`, `invalid` or `malformed`.
fn outcome(scheme: &Bgr, keys: &[BgrVerifyingKey], c: &Value) -> &'static str {
    let bytes = hex::decode(c["aggregate"].as_str().unwrap()).unwrap();
    let agg = match scheme.aggregate_from_bytes(&bytes) {
        Ok(a) => a,
        Err(Error::Decode(_) | Error::Mismatch(_) | Error::AggregateForOtherScheme { .. }) => {
            return "malformed"
        }
        Err(e) => panic!("unexpected {e}"),
    };
    let (idx, msgs) = signers(c);
    let pairs: Vec<_> = idx
        .iter()
        .zip(&msgs)
        .map(|(i, m)| (&keys[*i], m.as_slice()))
        .collect();
    match scheme.verify(&pairs, &agg) {
        Ok(()) => "valid",
        Err(Error::InvalidSignature) => "invalid",
        Err(e) => panic!("unexpected {e}"),
    }
}

/// Checks every case of `doc`; returns how many valid chains were re-signed exactly.
fn check(doc: &Value) -> usize {
    let mut resigned = 0;
    for c in doc["cases"].as_array().unwrap() {
        let name = format!("{}: {}", c["scheme"], c["_comment"]);
        let params = BgrParams::from_id(c["scheme"].as_str().unwrap()).unwrap();
        let scheme = Bgr::new(params);
        let expected = c["expected"].as_str().unwrap();
        assert_eq!(
            outcome(&scheme, &verifying_keys(doc, params), c),
            expected,
            "{name}"
        );
        if expected == "valid" {
            let (idx, msgs) = signers(c);
            let again = sign_chain(params, &signing_keys(doc, params), &idx, &msgs).to_bytes();
            assert_eq!(hex::encode(again), c["aggregate"], "{name}");
            resigned += 1;
        }
    }
    resigned
}

#[test]
fn vectors_reproduce_exactly() {
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(vector_file()).unwrap()).unwrap();
    // Chains of 1, 3 (and 9) for the four default sets, two -rBITS sets, one alias.
    assert_eq!(check(&doc), 3 + 2 + 3 + 2 + 2 + 2 + 1);
    // Every expected outcome and every parameter set is represented.
    let cases = doc["cases"].as_array().unwrap();
    for want in ["valid", "invalid", "malformed"] {
        assert!(cases.iter().any(|c| c["expected"] == want), "{want}");
    }
    for id in [
        "bgr-rsa2048",
        "bgr-rsa3072",
        "bgr-rand-rsa2048",
        "bgr-rand-rsa3072",
        "bgr-rand-rsa2048-r128",
    ] {
        assert!(cases.iter().any(|c| c["scheme"] == id), "{id}");
    }
}

#[test]
fn python_reference_agrees() {
    let Some(py) = common::python(None) else {
        return;
    };
    common::run_reference(&py, "bgr_reference.py", &vector_file());
    // A fresh document from other keys: the committed file is not the only input the
    // two implementations agree on.
    let pool =
        |bits| -> Vec<RsaSecretKey> { (0..KEYS).map(|i| common::rsa_key(bits, i)).collect() };
    let doc = document(&pool(2048), &pool(3072));
    assert_eq!(check(&doc), 15);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("fresh.json");
    std::fs::write(&file, serde_json::to_string(&doc).unwrap()).unwrap();
    common::run_reference(&py, "bgr_reference.py", &file);
}

#[test]
#[ignore = "writes docs/spec/vectors/bgr.json; run with --ignored to regenerate"]
fn regenerate() {
    let fresh = |bits| -> Vec<RsaSecretKey> {
        (0..KEYS)
            .map(|_| RsaSecretKey::generate(bits).unwrap())
            .collect()
    };
    let doc = document(&fresh(2048), &fresh(3072));
    std::fs::write(
        vector_file(),
        serde_json::to_string_pretty(&doc).unwrap() + "\n",
    )
    .unwrap();
}
