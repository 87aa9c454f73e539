//! Router keys from the RPKI's forms (RFC 8209 router certificates, `AS<N>.pem` public
//! keys, rpki-client JSON) and from each suite's secret key files. The certificates are
//! made by OpenSSL (its RFC 3779 encoder, `sbgp-autonomousSysNum`), independently of
//! hopsig's decoder.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use hopsig_bgp::router_key::{from_dir, CertificateError, FolderError, RouterCertificate};
use hopsig_bgp::{KeyLookup, SUITES};
use openssl::asn1::Asn1Time;
use openssl::bn::BigNum;
use openssl::ec::{EcGroup, EcKey};
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::{PKey, Private};
use openssl::x509::extension::{BasicConstraints, ExtendedKeyUsage, SubjectKeyIdentifier};
use openssl::x509::{X509Builder, X509Extension, X509NameBuilder, X509};

/// What a test certificate carries; [`Profile::router`] is a valid router certificate.
struct Profile {
    eku: Option<&'static str>,
    eku_critical: bool,
    asns: Option<&'static str>,
    basic_constraints: bool,
    ski: bool,
    not_before: i64,
    not_after: i64,
}

impl Profile {
    fn router(asns: &'static str) -> Profile {
        Profile {
            eku: Some("1.3.6.1.5.5.7.3.30"),
            eku_critical: false,
            asns: Some(asns),
            basic_constraints: false,
            ski: true,
            not_before: 1_700_000_000,
            not_after: 1_900_000_000,
        }
    }
}

fn p256() -> PKey<Private> {
    let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap();
    PKey::from_ec_key(EcKey::generate(&group).unwrap()).unwrap()
}

/// A certificate for `key` issued by `ca` with the extensions of `p`.
#[allow(deprecated)] // X509Extension::new_nid: OpenSSL's own RFC 3779 config syntax
fn certificate(key: &PKey<Private>, ca: &PKey<Private>, p: &Profile) -> X509 {
    let mut b = X509Builder::new().unwrap();
    b.set_version(2).unwrap();
    b.set_serial_number(&BigNum::from_u32(7).unwrap().to_asn1_integer().unwrap())
        .unwrap();
    let mut name = X509NameBuilder::new().unwrap();
    name.append_entry_by_text("CN", "ROUTER-0000FBF0").unwrap();
    let name = name.build();
    b.set_subject_name(&name).unwrap();
    b.set_issuer_name(&name).unwrap();
    b.set_pubkey(key).unwrap();
    b.set_not_before(&Asn1Time::from_unix(p.not_before).unwrap())
        .unwrap();
    b.set_not_after(&Asn1Time::from_unix(p.not_after).unwrap())
        .unwrap();
    if p.ski {
        let ext = SubjectKeyIdentifier::new()
            .build(&b.x509v3_context(None, None))
            .unwrap();
        b.append_extension(ext).unwrap();
    }
    if let Some(eku) = p.eku {
        let mut usage = ExtendedKeyUsage::new();
        usage.other(eku);
        if p.eku_critical {
            usage.critical();
        }
        b.append_extension(usage.build().unwrap()).unwrap();
    }
    if p.basic_constraints {
        b.append_extension(BasicConstraints::new().build().unwrap())
            .unwrap();
    }
    if let Some(asns) = p.asns {
        let ext = X509Extension::new_nid(
            None,
            Some(&b.x509v3_context(None, None)),
            Nid::SBGP_AUTONOMOUSSYSNUM,
            asns,
        )
        .unwrap();
        b.append_extension(ext).unwrap();
    }
    b.sign(ca, MessageDigest::sha256()).unwrap();
    b.build()
}

fn der(p: &Profile) -> Vec<u8> {
    certificate(&p256(), &p256(), p).to_der().unwrap()
}

#[test]
fn a_router_certificate_gives_one_triple_per_as() {
    let key = p256();
    let cert = certificate(
        &key,
        &p256(),
        &Profile::router("critical,AS:64496,AS:64500-64502"),
    );
    let parsed = RouterCertificate::from_der(&cert.to_der().unwrap()).unwrap();
    assert_eq!(parsed.asns(), [64_496, 64_500, 64_501, 64_502]);
    let spki = key.public_key_to_der().unwrap();
    assert_eq!(parsed.spki(), spki);
    assert_eq!(
        parsed.ski()[..],
        cert.subject_key_id().unwrap().as_slice()[..]
    );
    assert_eq!(parsed.validity(), (1_700_000_000, 1_900_000_000));
    assert!(parsed.valid_at(1_900_000_000) && !parsed.valid_at(1_900_000_001));
    let keys: Vec<_> = parsed.router_keys().collect();
    assert_eq!(keys.len(), 4);
    assert!(keys.iter().all(|k| k.for_suite(1).is_some()));
}

#[test]
fn what_breaks_the_rfc_8209_profile_is_refused_with_its_section() {
    let cases: [(Profile, &str); 8] = [
        (
            Profile {
                eku: None,
                ..Profile::router("critical,AS:64496")
            },
            "§3.1.3.2",
        ),
        (
            Profile {
                eku: Some("serverAuth"),
                ..Profile::router("critical,AS:64496")
            },
            "§3.1.3.2",
        ),
        (
            Profile {
                eku_critical: true,
                ..Profile::router("critical,AS:64496")
            },
            "§3.1.3.2",
        ),
        (
            Profile {
                asns: None,
                ..Profile::router("")
            },
            "§3.1.3.5",
        ),
        (Profile::router("critical,AS:inherit"), "§3.1.3.5"),
        (Profile::router("AS:64496"), "§3.1.3.5"),
        (
            Profile {
                basic_constraints: true,
                ..Profile::router("critical,AS:64496")
            },
            "§3.1.3.1",
        ),
        (
            Profile {
                ski: false,
                ..Profile::router("critical,AS:64496")
            },
            "§4.8.2",
        ),
    ];
    for (profile, section) in cases {
        let e = RouterCertificate::from_der(&der(&profile)).unwrap_err();
        assert!(
            matches!(e, CertificateError::Profile { .. }) && e.to_string().contains(section),
            "{section}: {e}"
        );
    }
    // RDI, and AS numbers out of RFC 3779's order, are refused too.
    let rdi = der(&Profile::router("critical,AS:64496,RDI:5"));
    assert!(RouterCertificate::from_der(&rdi).is_err());
    let too_many = der(&Profile::router("critical,AS:1-70000"));
    assert!(RouterCertificate::from_der(&too_many)
        .unwrap_err()
        .to_string()
        .contains("more than 65536"));
}

#[test]
fn every_truncation_and_byte_flip_of_a_certificate_is_an_error_not_a_panic() {
    let good = der(&Profile::router("critical,AS:64496"));
    for len in 0..good.len() {
        assert!(RouterCertificate::from_der(&good[..len]).is_err(), "{len}");
    }
    let mut trailing = good.clone();
    trailing.push(0);
    assert!(RouterCertificate::from_der(&trailing).is_err());
    for i in 0..good.len() {
        let mut bad = good.clone();
        bad[i] ^= 0x41;
        // Some flips land in the signature or a name and still decode; none panics.
        let _ = RouterCertificate::from_der(&bad);
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap();
}

#[test]
fn a_keys_folder_reads_certificates_and_public_keys_and_refuses_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (p256(), p256(), p256());
    let ca = p256();
    let router = |key, asns, not_after| {
        certificate(
            key,
            &ca,
            &Profile {
                not_after,
                ..Profile::router(asns)
            },
        )
    };
    write(
        dir.path(),
        "a.cer",
        &router(&a, "critical,AS:64496", 1_900_000_000)
            .to_der()
            .unwrap(),
    );
    let mut two = router(&b, "critical,AS:64497", 1_900_000_000)
        .to_pem()
        .unwrap();
    two.extend(
        router(&c, "critical,AS:64498", 1_800_000_000)
            .to_pem()
            .unwrap(),
    );
    write(dir.path(), "two.crt", &two);
    write(dir.path(), "AS64499.pem", &a.public_key_to_pem().unwrap());
    write(dir.path(), "notes.txt", b"not read");
    let loaded = from_dir(dir.path(), 1_850_000_000).unwrap();
    assert_eq!(
        (
            loaded.files,
            loaded.certificates,
            loaded.public_keys,
            loaded.expired
        ),
        (3, 3, 1, 1)
    );
    assert_eq!(loaded.keys.len(), 3, "AS 64498's certificate has expired");
    let ski = |k: &PKey<Private>| {
        let spki = k.public_key_to_der().unwrap();
        hopsig_bgp::router_key::ski_of_spki(&spki).unwrap()
    };
    assert_eq!(loaded.keys.router_keys(64_496, &ski(&a)).len(), 1);
    assert_eq!(loaded.keys.router_keys(64_499, &ski(&a)).len(), 1);
    assert_eq!(loaded.keys.router_keys(64_497, &ski(&b)).len(), 1);
    assert!(loaded.keys.router_keys(64_498, &ski(&c)).is_empty());
    let earlier = from_dir(dir.path(), 1_600_000_000).unwrap();
    assert_eq!((earlier.not_yet_valid, earlier.keys.len()), (3, 1));

    // A secret key, a public key not named AS<N>.pem, a broken certificate: refused,
    // naming the file.
    for (name, bytes) in [
        ("AS1.pem", a.private_key_to_pem_pkcs8().unwrap()),
        ("router.pem", a.public_key_to_pem().unwrap()),
        ("bad.cer", b"\x30\x03\x02\x01\x00".to_vec()),
        ("empty.pem", Vec::new()),
    ] {
        let bad = tempfile::tempdir().unwrap();
        write(bad.path(), name, &bytes);
        let e = from_dir(bad.path(), 0).unwrap_err();
        assert!(e.to_string().contains(name), "{e}");
        assert!(matches!(
            e,
            FolderError::File { .. } | FolderError::Certificate { .. }
        ));
    }
}

#[test]
fn every_suites_secret_key_file_reads_back_as_the_same_key() {
    for suite in SUITES {
        let key = suite.generate().unwrap();
        let file = suite.secret_key_file(&key).unwrap();
        let back = suite.signing_key_from_file(file.as_bytes()).unwrap();
        assert_eq!(back.ski(), key.ski(), "{}", suite.name());
        assert_eq!(back.spki(), key.spki(), "{}", suite.name());
        // A public key, or another suite's file, is refused.
        let public = PKey::public_key_from_der(key.spki())
            .unwrap()
            .public_key_to_pem()
            .unwrap();
        assert!(
            suite.signing_key_from_file(&public).is_err(),
            "{}",
            suite.name()
        );
        for other in SUITES.iter().filter(|o| o.id() != suite.id()) {
            let theirs = other.secret_key_file(&other.generate().unwrap()).unwrap();
            assert!(
                suite.signing_key_from_file(theirs.as_bytes()).is_err(),
                "{} read a {} key file",
                suite.name(),
                other.name()
            );
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

    /// Arbitrary bytes, and a valid certificate with arbitrary bytes spliced in, are
    /// errors or certificates, never a panic; so are arbitrary JSON documents.
    #[test]
    fn hostile_certificates_and_json_never_panic(
        bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600),
        at in 0usize..400,
    ) {
        let _ = RouterCertificate::from_der(&bytes);
        let mut spliced = der(&Profile::router("critical,AS:64496-64499"));
        let at = at.min(spliced.len());
        spliced.splice(at..(at + 8).min(spliced.len()), bytes.iter().copied().take(8));
        let _ = RouterCertificate::from_der(&spliced);
        let _ = hopsig_bgp::router_key::from_rpki_json(&bytes, 0);
    }
}
