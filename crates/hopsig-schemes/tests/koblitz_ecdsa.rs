//! ECDSA on K-163, K-233, K-283 interoperates with OpenSSL in both directions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hopsig_schemes::concat::{BaseSignature, EcdsaK163, EcdsaK233, EcdsaK283};
use openssl::hash::MessageDigest;
use openssl::pkey::PKey;
use openssl::sign::{Signer, Verifier};

fn both_ways<B: BaseSignature>(nid: openssl::nid::Nid) {
    let msg = b"PLA packet: payload, sequence number 42, timestamp 1800000000";
    // hopsig signs, OpenSSL verifies (key through the PKCS #8 file).
    let sk = B::generate().unwrap();
    let pem = B::secret_to_pem(&sk).unwrap();
    let theirs = PKey::private_key_from_pem(pem.as_bytes()).unwrap();
    assert_eq!(theirs.ec_key().unwrap().group().curve_name(), Some(nid));
    theirs.ec_key().unwrap().check_key().unwrap();
    for _ in 0..5 {
        let sig = B::sign(&sk, msg).unwrap();
        let mut v = Verifier::new(MessageDigest::sha256(), &theirs).unwrap();
        assert!(
            v.verify_oneshot(&sig, msg).unwrap(),
            "{}: OpenSSL rejects hopsig",
            B::ID
        );
        let mut v = Verifier::new(MessageDigest::sha256(), &theirs).unwrap();
        assert!(!v.verify_oneshot(&sig, b"other").unwrap());
        assert!(B::verify(&B::public(&sk).unwrap(), msg, &sig));
    }
    // OpenSSL signs, hopsig verifies (public key through DER SubjectPublicKeyInfo).
    let group = openssl::ec::EcGroup::from_curve_name(nid).unwrap();
    let key = PKey::from_ec_key(openssl::ec::EcKey::generate(&group).unwrap()).unwrap();
    let pk = B::public_from_der(&key.public_key_to_der().unwrap()).unwrap();
    for i in 0..5u8 {
        let m = [msg.as_slice(), &[i]].concat();
        let mut s = Signer::new(MessageDigest::sha256(), &key).unwrap();
        let sig = s.sign_oneshot_to_vec(&m).unwrap();
        assert!(
            B::verify(&pk, &m, &sig),
            "{}: hopsig rejects OpenSSL",
            B::ID
        );
        assert!(!B::verify(&pk, msg, &sig));
        let mut bad = sig.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        assert!(!B::verify(&pk, &m, &bad));
    }
    // The secret key file round-trips, and a key on another curve is refused.
    let back = B::secret_from_der(&theirs.private_key_to_pkcs8().unwrap()).unwrap();
    let sig = B::sign(&back, msg).unwrap();
    assert!(B::verify(&B::public(&sk).unwrap(), msg, &sig));
    let p256 = openssl::ec::EcGroup::from_curve_name(openssl::nid::Nid::X9_62_PRIME256V1).unwrap();
    let other = PKey::from_ec_key(openssl::ec::EcKey::generate(&p256).unwrap()).unwrap();
    assert!(B::public_from_der(&other.public_key_to_der().unwrap()).is_err());
    assert!(B::secret_from_der(&other.private_key_to_pkcs8().unwrap()).is_err());
    // PKCS #8 only: the same key as a SEC 1 ECPrivateKey is refused.
    let sec1 = theirs.ec_key().unwrap().private_key_to_der().unwrap();
    assert!(B::secret_from_der(&sec1).is_err());
}

#[test]
fn k163_interoperates_with_openssl() {
    both_ways::<EcdsaK163>(openssl::nid::Nid::SECT163K1);
}

#[test]
fn k233_interoperates_with_openssl() {
    both_ways::<EcdsaK233>(openssl::nid::Nid::SECT233K1);
}

#[test]
fn k283_interoperates_with_openssl() {
    both_ways::<EcdsaK283>(openssl::nid::Nid::SECT283K1);
}
