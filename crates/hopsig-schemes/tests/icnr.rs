//! Implicit certificates (003 §II-C, §II-D) on K-163, K-233, K-283: issuing, key
//! extraction, fused extraction + ECDSA verification, and rejections.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hopsig_koblitz::curve::{Curve, K163, K233, K283};
use hopsig_koblitz::tau::{TauTable, POINT_WIDTH};
use hopsig_schemes::concat::koblitz::verify_der;
use hopsig_schemes::pla::icnr::{self, ImplicitCert, Ttp};

fn round_trip<C: Curve>() {
    let ttp = Ttp::<C>::setup().unwrap();
    let ttp_table = TauTable::new_vartime(ttp.public(), POINT_WIDTH);
    let id = b"alice@pla.example";
    let blind = icnr::blind::<C>().unwrap();
    let issued = ttp.issue(id, blind.request()).unwrap();
    let key = icnr::finalkey(&blind, &issued, id, ttp.public()).unwrap();
    let cert = issued.cert.clone();
    assert_eq!(
        icnr::extract(id, &cert, ttp.public()).unwrap(),
        *key.public_point()
    );

    let msg = b"PLA packet 7";
    let sig = key.sign(msg).unwrap();
    let w = icnr::extract(id, &cert, ttp.public()).unwrap();
    assert!(verify_der(&w, msg, &sig));
    assert!(icnr::verify_fused(id, &cert, &ttp_table, msg, &sig));

    // Rejections: wrong identity, wrong TTP, tampered r_A or b_A, tampered signature
    // or message.
    assert!(!icnr::verify_fused(
        b"mallory@pla.example",
        &cert,
        &ttp_table,
        msg,
        &sig
    ));
    let other = Ttp::<C>::setup().unwrap();
    assert!(!icnr::verify_fused(
        id,
        &cert,
        &TauTable::new_vartime(other.public(), POINT_WIDTH),
        msg,
        &sig
    ));
    for at in [0usize, 5, cert.r.len() - 1] {
        let mut r = cert.clone();
        r.r[at] ^= 0x01;
        assert!(
            !icnr::verify_fused(id, &r, &ttp_table, msg, &sig),
            "r byte {at}"
        );
    }
    let flipped = ImplicitCert {
        b: !cert.b,
        ..cert.clone()
    };
    assert!(!icnr::verify_fused(id, &flipped, &ttp_table, msg, &sig));
    let mut bad = sig.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    assert!(!icnr::verify_fused(id, &cert, &ttp_table, msg, &bad));
    assert!(!icnr::verify_fused(id, &cert, &ttp_table, b"other", &sig));
    assert!(!icnr::verify_fused(id, &cert, &ttp_table, msg, b"\x30\x00"));
    // Alice cannot finish a certificate issued for another identity or TTP.
    assert!(icnr::finalkey(&blind, &issued, b"bob", ttp.public()).is_err());
    assert!(icnr::finalkey(&blind, &issued, id, other.public()).is_err());
    // A request outside the subgroup is refused by the TTP.
    let mut enc = vec![0x04];
    enc.extend(vec![0u8; 2 * cert.r.len() - 1]);
    enc.push(1);
    let order_two = hopsig_koblitz::curve::Affine::<C>::from_sec1_vartime(&enc).unwrap();
    assert!(ttp.issue(id, &order_two).is_err());
}

#[test]
fn k163_implicit_certificates() {
    round_trip::<K163>();
}

#[test]
fn k233_implicit_certificates() {
    round_trip::<K233>();
}

#[test]
fn k283_implicit_certificates() {
    round_trip::<K283>();
}

#[test]
fn extracted_keys_work_with_openssl() {
    use openssl::bn::BigNumContext;
    use openssl::ec::{EcGroup, EcKey, EcPoint};
    let ttp = Ttp::<K163>::setup().unwrap();
    let blind = icnr::blind::<K163>().unwrap();
    let issued = ttp.issue(b"alice", blind.request()).unwrap();
    let key = icnr::finalkey(&blind, &issued, b"alice", ttp.public()).unwrap();
    let w = icnr::extract(b"alice", &issued.cert, ttp.public()).unwrap();
    let group = EcGroup::from_curve_name(openssl::nid::Nid::SECT163K1).unwrap();
    let mut ctx = BigNumContext::new().unwrap();
    let point = EcPoint::from_bytes(&group, &w.to_sec1(false), &mut ctx).unwrap();
    let pk =
        openssl::pkey::PKey::from_ec_key(EcKey::from_public_key(&group, &point).unwrap()).unwrap();
    let sig = key.sign(b"m").unwrap();
    let mut v = openssl::sign::Verifier::new(openssl::hash::MessageDigest::sha256(), &pk).unwrap();
    assert!(v.verify_oneshot(&sig, b"m").unwrap());
}

/// A DER `ECDSA-Sig-Value` with these integers.
fn der(r: &[u8], s: &[u8]) -> Vec<u8> {
    let r = openssl::bn::BigNum::from_slice(r).unwrap();
    let s = openssl::bn::BigNum::from_slice(s).unwrap();
    openssl::ecdsa::EcdsaSig::from_private_components(r, s)
        .unwrap()
        .to_der()
        .unwrap()
}

#[test]
fn out_of_range_signature_values_are_rejected() {
    let ttp = Ttp::<K163>::setup().unwrap();
    let table = TauTable::new_vartime(ttp.public(), POINT_WIDTH);
    let blind = icnr::blind::<K163>().unwrap();
    let issued = ttp.issue(b"alice", blind.request()).unwrap();
    let key = icnr::finalkey(&blind, &issued, b"alice", ttp.public()).unwrap();
    let w = *key.public_point();
    let n = hopsig_koblitz::curve::order_bytes::<K163>();
    let sig = openssl::ecdsa::EcdsaSig::from_der(&key.sign(b"m").unwrap()).unwrap();
    let (r, s) = (sig.r().to_vec(), sig.s().to_vec());
    // r or s equal to 0 or n, or r + n (same value mod n), never verify.
    let mut r_plus_n = openssl::bn::BigNum::from_slice(&r).unwrap();
    r_plus_n
        .checked_add(
            &openssl::bn::BigNum::from_slice(&r).unwrap(),
            &openssl::bn::BigNum::from_slice(&n).unwrap(),
        )
        .unwrap();
    for bad in [
        der(&[0], &s),
        der(&r, &[0]),
        der(&n, &s),
        der(&r, &n),
        der(&r_plus_n.to_vec(), &s),
    ] {
        assert!(!verify_der(&w, b"m", &bad));
        assert!(!icnr::verify_fused(
            b"alice",
            &issued.cert,
            &table,
            b"m",
            &bad
        ));
    }
    assert!(verify_der(&w, b"m", &der(&r, &s)));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Arbitrary certificate and signature bytes give `false`, never a panic.
    #[test]
    fn arbitrary_certificates_and_signatures_are_rejected(
        r in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
        b in proptest::prelude::any::<bool>(),
        sig in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..80),
        sr in proptest::collection::vec(proptest::prelude::any::<u8>(), 1..30),
        ss in proptest::collection::vec(proptest::prelude::any::<u8>(), 1..30),
    ) {
        let ttp = hopsig_koblitz::curve::Affine::<K163>::generator();
        let table = TauTable::new_vartime(&ttp, POINT_WIDTH);
        let cert = ImplicitCert { r, b };
        proptest::prop_assert!(!icnr::verify_fused(b"id", &cert, &table, b"m", &sig));
        proptest::prop_assert!(!icnr::verify_fused(b"id", &cert, &table, b"m", &der(&sr, &ss)));
        proptest::prop_assert!(!verify_der(&ttp, b"m", &sig));
        proptest::prop_assert!(!verify_der(&ttp, b"m", &der(&sr, &ss)));
    }
}

/// docs/spec/pla.md: points in `hopsig ic` files are SEC 1 compressed. The same point
/// uncompressed (`04 ‖ x ‖ y`) is refused in every public point block, and the files
/// hopsig writes read back.
#[test]
fn ic_files_refuse_uncompressed_points() {
    use hopsig_schemes::pla::files;
    use hopsig_schemes::primitives::armor::{KeyFile, KeyKind};
    use hopsig_schemes::primitives::rsa::pem_block;
    let ttp = Ttp::<K163>::setup().unwrap();
    let blind = icnr::blind::<K163>().unwrap();
    let (ttp_secret, ttp_public) = files::ttp_files(&ttp).unwrap();
    let (_, request) = files::blind_files(&blind).unwrap();
    let parse = |text: &str| KeyFile::parse(text.as_bytes()).unwrap();
    assert_eq!(
        files::ttp_public_from_file::<K163>(&parse(&ttp_public)).unwrap(),
        *ttp.public()
    );
    assert!(files::ttp_from_file::<K163>(&parse(&ttp_secret)).is_ok());
    assert_eq!(
        files::request_from_file::<K163>(&parse(&request)).unwrap(),
        *blind.request()
    );
    let uncompressed = |label: &str, point: &hopsig_koblitz::curve::Affine<K163>| {
        let block = pem_block(label, &point.to_sec1(false));
        parse(&KeyFile::render(
            &files::scheme_id::<K163>(),
            KeyKind::Public,
            &[&block],
        ))
    };
    let e =
        files::ttp_public_from_file::<K163>(&uncompressed("HOPSIG ICNR TTP PUBLIC", ttp.public()))
            .unwrap_err();
    assert!(e.to_string().contains("compressed"), "{e}");
    let e = files::request_from_file::<K163>(&uncompressed("HOPSIG ICNR REQUEST", blind.request()))
        .unwrap_err();
    assert!(e.to_string().contains("compressed"), "{e}");
}

/// Secret-bearing ICNR values print no secret: `Issued` shows the certificate only.
#[test]
fn issued_debug_prints_no_share() {
    let ttp = Ttp::<K163>::setup().unwrap();
    let blind = icnr::blind::<K163>().unwrap();
    let issued = ttp.issue(b"alice", blind.request()).unwrap();
    let shown = format!("{issued:?}");
    let share = hopsig_schemes::pla::files::issued_file::<K163>(b"alice", &issued).unwrap();
    let file = hopsig_schemes::primitives::armor::KeyFile::parse(share.as_bytes()).unwrap();
    let s_bar = &file.block("HOPSIG ICNR SHARE").unwrap().der;
    // Neither in hex, nor in decimal (OpenSSL's BIGNUM Debug), nor as bytes.
    let value = openssl::bn::BigNum::from_slice(s_bar).unwrap();
    let hex = value.to_hex_str().unwrap().to_lowercase();
    let dec = value.to_dec_str().unwrap().to_string();
    assert!(!shown.to_lowercase().contains(&hex), "{shown}");
    assert!(!shown.contains(&dec), "{shown}");
    assert!(
        !shown.contains(&format!("{:?}", s_bar.as_slice())),
        "{shown}"
    );
    assert!(shown.contains("Issued"), "{shown}");
}

/// The TTP applies the identity rule every identity follows (`pkg extract`'s) itself,
/// with a typed error a caller can blame on the identity; the request is not blamed.
#[test]
fn the_ttp_checks_identities_with_a_typed_error() {
    let ttp = Ttp::<K163>::setup().unwrap();
    let blind = icnr::blind::<K163>().unwrap();
    for id in [&b""[..], &[b'x'; 1025]] {
        match ttp.issue(id, blind.request()) {
            Err(e @ hopsig_schemes::Error::IdentityLength { .. }) => {
                assert!(
                    e.to_string().starts_with("identity must be 1..=1024 bytes"),
                    "{e}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(ttp.issue(&[b'x'; 1024], blind.request()).is_ok());
}
