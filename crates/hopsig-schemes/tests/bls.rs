//! BGLS (IETF BLS draft-05 basic scheme): round trips, rejections, and byte-for-byte
//! agreement with py_ecc, an independent implementation from PyPI.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use hopsig_schemes::bls::{Bgls, BglsAggregate, BglsSigningKey, BglsVerifyingKey, DST};
use hopsig_schemes::primitives::armor::KeyFile;
use hopsig_schemes::{
    Aggregate, Error, FreeAggregate, SequentialAggregate, SigningKey, VerifyingKey,
};
use serde_json::json;

fn key(i: usize) -> BglsSigningKey {
    Bgls::key_from_ikm(&[i as u8 + 1; 32]).unwrap()
}

fn chain(keys: &[BglsSigningKey], msgs: &[Vec<u8>]) -> BglsAggregate {
    let mut agg: Option<BglsAggregate> = None;
    for (k, m) in keys.iter().zip(msgs) {
        agg = Some(Bgls.sign(k, m, agg.as_ref()).unwrap());
    }
    agg.unwrap()
}

fn verify(keys: &[BglsSigningKey], msgs: &[Vec<u8>], agg: &BglsAggregate) -> Result<(), Error> {
    let pks: Vec<BglsVerifyingKey> = keys.iter().map(SigningKey::verifying_key).collect();
    let pairs: Vec<(&BglsVerifyingKey, &[u8])> = pks
        .iter()
        .zip(msgs)
        .map(|(k, m)| (k, m.as_slice()))
        .collect();
    Bgls.verify(&pairs, agg)
}

fn setup(n: usize) -> (Vec<BglsSigningKey>, Vec<Vec<u8>>) {
    (
        (0..n).map(key).collect(),
        (0..n).map(common::message).collect(),
    )
}

#[test]
fn round_trips_for_n_1_to_15_with_constant_size() {
    let (keys, msgs) = setup(15);
    for n in 1..=15 {
        let agg = chain(&keys[..n], &msgs[..n]);
        assert_eq!(agg.signers(), n);
        assert_eq!(agg.signature_bits(), 768);
        let bytes = agg.to_bytes();
        assert_eq!(bytes.len(), 7 + 96);
        let back = Bgls.aggregate_from_bytes(&bytes).unwrap();
        verify(&keys[..n], &msgs[..n], &back).unwrap();
    }
}

#[test]
fn rejects_wrong_message_key_order_and_count() {
    let (keys, msgs) = setup(4);
    let agg = chain(&keys, &msgs);
    let mut wrong = msgs.clone();
    wrong[2].push(b'!');
    assert!(matches!(
        verify(&keys, &wrong, &agg),
        Err(Error::InvalidSignature)
    ));
    let mut swapped_keys: Vec<BglsSigningKey> = (0..4).map(key).collect();
    swapped_keys.swap(0, 1);
    assert!(matches!(
        verify(&swapped_keys, &msgs, &agg),
        Err(Error::InvalidSignature)
    ));
    let other: Vec<BglsSigningKey> = (10..14).map(key).collect();
    assert!(matches!(
        verify(&other, &msgs, &agg),
        Err(Error::InvalidSignature)
    ));
    assert!(matches!(
        verify(&keys[..3], &msgs[..3], &agg),
        Err(Error::InvalidSignature)
    ));
    // The aggregate itself is order-free: swapping (key, message) pairs together verifies.
    let mut pairs_keys: Vec<BglsSigningKey> = (0..4).map(key).collect();
    let mut pairs_msgs = msgs.clone();
    pairs_keys.swap(1, 3);
    pairs_msgs.swap(1, 3);
    verify(&pairs_keys, &pairs_msgs, &agg).unwrap();
}

#[test]
fn aggregate_verify_rejects_duplicate_messages() {
    // Two signers on the same message give a mathematically valid aggregate, which the
    // basic scheme must still reject (draft-05 §3.1.1).
    let keys: Vec<BglsSigningKey> = (0..2).map(key).collect();
    let same = vec![b"same".to_vec(), b"same".to_vec()];
    let agg = chain(&keys, &same);
    assert!(matches!(
        verify(&keys, &same, &agg),
        Err(Error::InvalidSignature)
    ));
}

#[test]
fn decoder_rejects_bad_points_and_framing() {
    let (keys, msgs) = setup(2);
    let bytes = chain(&keys, &msgs).to_bytes();
    // Tampered signature: flip a bit of x. Either the point is gone or it verifies no more.
    for byte in [8, 40, 102] {
        let mut t = bytes.clone();
        t[byte] ^= 0x01;
        match Bgls.aggregate_from_bytes(&t) {
            Err(Error::Decode(_)) => {}
            Ok(a) => assert!(matches!(
                verify(&keys, &msgs, &a),
                Err(Error::InvalidSignature)
            )),
            Err(e) => panic!("{e}"),
        }
    }
    // The identity.
    let mut inf = bytes[..7].to_vec();
    inf.push(0xc0);
    inf.extend_from_slice(&[0; 95]);
    let e = Bgls.aggregate_from_bytes(&inf).unwrap_err().to_string();
    assert!(e.contains("infinity"), "{e}");
    // On the twist curve but outside G2, or not on it: small x values give both.
    let mut seen_subgroup = false;
    for x in 1u8..30 {
        let mut p = bytes[..7].to_vec();
        p.push(0x80);
        p.extend_from_slice(&[0; 94]);
        p.push(x);
        let e = Bgls.aggregate_from_bytes(&p).unwrap_err().to_string();
        assert!(
            e.contains("subgroup") || e.contains("curve") || e.contains("encoding"),
            "{e}"
        );
        seen_subgroup |= e.contains("subgroup");
    }
    assert!(seen_subgroup);
    // Truncated, trailing byte, other scheme's header.
    assert!(matches!(
        Bgls.aggregate_from_bytes(&bytes[..100]),
        Err(Error::Decode(_))
    ));
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(
        Bgls.aggregate_from_bytes(&long),
        Err(Error::Decode(_))
    ));
    let mut other = bytes.clone();
    other[3] = 0x01;
    assert!(matches!(
        Bgls.aggregate_from_bytes(&other),
        Err(Error::AggregateForOtherScheme { found, .. }) if found == "rsa2048-concat"
    ));
}

#[test]
fn public_keys_must_pass_key_validate() {
    let mut inf = [0u8; 48];
    inf[0] = 0xc0;
    let e = BglsVerifyingKey::from_bytes(&inf).unwrap_err().to_string();
    assert!(e.contains("infinity"), "{e}");
    let mut outside = false;
    for x in 1u8..30 {
        let mut p = [0u8; 48];
        p[0] = 0x80;
        p[47] = x;
        let e = BglsVerifyingKey::from_bytes(&p).unwrap_err().to_string();
        outside |= e.contains("subgroup");
    }
    assert!(outside);
    // Secret keys: zero and r (and anything above) are out of range; r − 1 is not.
    let r: [u8; 32] =
        hex::decode("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001")
            .unwrap()
            .try_into()
            .unwrap();
    let mut r_minus_1 = r;
    r_minus_1[31] -= 1;
    assert!(BglsSigningKey::from_bytes(&[0; 32]).is_err());
    assert!(BglsSigningKey::from_bytes(&r).is_err());
    assert!(BglsSigningKey::from_bytes(&[0xff; 32]).is_err());
    assert!(BglsSigningKey::from_bytes(&r_minus_1).is_ok());
    assert!(Bgls::key_from_ikm(&[1; 31]).is_err());
}

#[test]
fn key_files_round_trip() {
    let k = key(3);
    let secret = k.to_key_file().unwrap();
    let public = k.verifying_key().to_key_file();
    let back = Bgls
        .signing_key_from_file(&KeyFile::parse(secret.as_bytes()).unwrap())
        .unwrap();
    assert_eq!(back.to_bytes().as_ref(), k.to_bytes().as_ref());
    let pk = Bgls
        .verifying_key_from_file(&KeyFile::parse(public.as_bytes()).unwrap())
        .unwrap();
    assert_eq!(pk, k.verifying_key());
    // A public file is not a secret key file's block layout.
    assert!(Bgls
        .signing_key_from_file(&KeyFile::parse(public.as_bytes()).unwrap())
        .is_err());
}

#[test]
fn free_aggregation_merges_independent_aggregates() {
    let (keys, msgs) = setup(5);
    let left = chain(&keys[..2], &msgs[..2]);
    let right = chain(&keys[2..], &msgs[2..]);
    let merged = Bgls.aggregate(&[&left, &right]).unwrap();
    assert_eq!(merged.signers(), 5);
    assert_eq!(
        merged.signature_bytes(),
        chain(&keys, &msgs).signature_bytes()
    );
    verify(&keys, &msgs, &merged).unwrap();
    assert!(Bgls.aggregate(&[]).is_err());
}

#[test]
fn py_ecc_agrees_byte_for_byte() {
    let Some(py) = common::python(Some("py_ecc.bls")) else {
        return;
    };
    // Keys from fixed and from fresh IKM, messages of several lengths.
    let mut ikms: Vec<Vec<u8>> = vec![vec![0; 32], (0u8..64).collect()];
    let mut fresh = [0u8; 32];
    openssl::rand::rand_bytes(&mut fresh).unwrap();
    ikms.push(fresh.to_vec());
    let keys: Vec<BglsSigningKey> = ikms
        .iter()
        .map(|i| Bgls::key_from_ikm(i).unwrap())
        .collect();
    let msgs: Vec<Vec<u8>> = vec![vec![], b"abc".to_vec(), vec![0x5a; 100]];
    let sigs: Vec<_> = keys
        .iter()
        .zip(&msgs)
        .enumerate()
        .map(|(i, (k, m))| {
            json!({ "key": i, "message": hex::encode(m), "signature": hex::encode(k.sign_one(m)) })
        })
        .collect();
    let agg = chain(&keys, &msgs);
    verify(&keys, &msgs, &agg).unwrap();
    let dup_msgs = vec![b"same".to_vec(), b"same".to_vec()];
    let dup = chain(&keys[..2], &dup_msgs);
    assert!(verify(&keys[..2], &dup_msgs, &dup).is_err());
    let mut inf = [0u8; 48];
    inf[0] = 0xc0;
    let signer = |i: usize, m: &[u8]| json!({ "key": i, "message": hex::encode(m) });
    let file = json!({
        "dst": String::from_utf8_lossy(DST),
        "keys": keys.iter().zip(&ikms).map(|(k, ikm)| json!({
            "ikm": hex::encode(ikm),
            "sk": hex::encode(k.to_bytes().as_ref()),
            "pk": hex::encode(k.verifying_key().to_bytes()),
        })).collect::<Vec<_>>(),
        "signatures": sigs,
        "aggregates": [
            { "signers": [signer(0, &msgs[0]), signer(1, &msgs[1]), signer(2, &msgs[2])],
              "signature": hex::encode(agg.signature_bytes()), "expected": "valid" },
            { "signers": [signer(1, &msgs[0]), signer(0, &msgs[1]), signer(2, &msgs[2])],
              "signature": hex::encode(agg.signature_bytes()), "expected": "invalid" },
            { "signers": [signer(0, b"same"), signer(1, b"same")],
              "signature": hex::encode(dup.signature_bytes()), "expected": "invalid" },
        ],
        "bad_keys": [hex::encode(inf)],
    });
    let path = std::env::temp_dir().join(format!("hopsig-bls-{}.json", std::process::id()));
    std::fs::write(&path, serde_json::to_string_pretty(&file).unwrap()).unwrap();
    common::run_reference(&py, "bls_reference.py", &path);
    let _ = std::fs::remove_file(&path);
}
