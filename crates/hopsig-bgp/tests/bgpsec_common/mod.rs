//! What the BGPsec signing and validation tests share: the RFC 8608 Appendix A vector
//! file, keys, encoding helpers, the verdict words of the interop vectors, and the
//! Python interpreter of the interop test.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};

/// The repository root, and the Python interpreter of the interop tests (skips, or
/// fails under CI, when it cannot import the module).
#[allow(unused_imports)]
pub use hopsig_testkit::{python, root};

use hopsig_bgp::packet::{
    AsWidth, AttributeValue, BgpsecPath, Message, MpReachNlri, NextHop, Origin, PathAttribute,
    Update,
};
use hopsig_bgp::suite::ECDSA_P256_SHA256;
use hopsig_bgp::{AlgorithmSuite, NotValid, RouterKey, SignedNlri, SigningKey, Validation};
use openssl::bn::{BigNum, BigNumContext};
use openssl::ec::{EcGroup, EcKey, EcPoint};
use openssl::nid::Nid;
use openssl::pkey::PKey;
use serde_json::Value;

/// This crate's tests/data.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A JSON file of tests/data.
pub fn json(name: &str) -> Value {
    serde_json::from_slice(&std::fs::read(data(name)).unwrap()).unwrap()
}

/// The octets of a hex string field.
pub fn hexs(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap()).unwrap()
}

/// The whole message of an UPDATE, 4-octet AS numbers.
pub fn message(u: &Update<'_>) -> Vec<u8> {
    Message::Update(u.clone()).encoding(AsWidth::Four).unwrap()
}

/// The whole message of an UPDATE announcing `nlri` with the BGPsec_PATH `path` (ORIGIN
/// IGP, MP_REACH_NLRI with next hop 192.0.2.1), 4-octet AS numbers.
pub fn announcement(path: BgpsecPath<'static>, nlri: SignedNlri) -> Vec<u8> {
    let reach = MpReachNlri::new(
        nlri.safi,
        NextHop::V4(Ipv4Addr::new(192, 0, 2, 1)),
        vec![nlri.prefix],
    )
    .unwrap();
    let update = Update {
        attributes: [
            AttributeValue::Origin(Origin::Igp),
            AttributeValue::MpReachNlri(reach),
            AttributeValue::BgpsecPath(path),
        ]
        .into_iter()
        .map(|v| PathAttribute::new(v, AsWidth::Four).unwrap())
        .collect(),
        ..Update::default()
    };
    Message::Update(update).encoding(AsWidth::Four).unwrap()
}

/// The UPDATE of a whole message.
pub fn update(bytes: &[u8]) -> Update<'_> {
    match Message::decode(bytes, AsWidth::Four).unwrap() {
        Message::Update(u) => u,
        other => panic!("not an UPDATE: {other:?}"),
    }
}

/// The P-256 public key (x, y) as a DER SubjectPublicKeyInfo.
pub fn p256_spki(x: &[u8], y: &[u8]) -> Vec<u8> {
    let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap();
    let key = EcKey::from_public_key_affine_coordinates(
        &group,
        &BigNum::from_slice(x).unwrap(),
        &BigNum::from_slice(y).unwrap(),
    )
    .unwrap();
    PKey::from_ec_key(key).unwrap().public_key_to_der().unwrap()
}

/// The P-256 private key d as an unencrypted PKCS #8 DER, public key d·G.
pub fn p256_pkcs8(d: &[u8]) -> Vec<u8> {
    let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap();
    let d = BigNum::from_slice(d).unwrap();
    let mut q = EcPoint::new(&group).unwrap();
    q.mul_generator2(&group, &d, &mut BigNumContext::new().unwrap())
        .unwrap();
    let key = EcKey::from_private_components(&group, &d, &q).unwrap();
    PKey::from_ec_key(key)
        .unwrap()
        .private_key_to_pkcs8()
        .unwrap()
}

/// An RFC 8608 A.2 key from the vector file: its signing key (through suite 1's PKCS #8
/// reader) and its router key (the printed public key, under the printed SKI).
pub fn rfc_key(k: &Value) -> (SigningKey, RouterKey) {
    let signing = ECDSA_P256_SHA256
        .signing_key_from_pkcs8(&p256_pkcs8(&hexs(&k["x"])))
        .unwrap();
    let spki = p256_spki(&hexs(&k["ux"]), &hexs(&k["uy"]));
    let ski: [u8; 20] = hexs(&k["ski"]).try_into().unwrap();
    let asn = u32::try_from(k["asn"].as_u64().unwrap()).unwrap();
    (signing, RouterKey::new(asn, ski, &spki))
}

/// The verdict words of the interop vectors (bgpsec_reference.md, "Verdicts"):
/// `valid`; `malformed` for an UPDATE handled by treat-as-withdraw or a session reset;
/// `not valid` for everything else — signatures that fail, and UPDATEs treated as
/// unsigned (choice C4 of the reference).
pub fn verdict(v: &Validation) -> &'static str {
    match v {
        Validation::Valid { .. } => "valid",
        Validation::NotValid(NotValid::Malformed(_)) => "malformed",
        Validation::NotValid(_) => "not valid",
    }
}
