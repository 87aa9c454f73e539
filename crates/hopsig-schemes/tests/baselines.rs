//! The Table 1 baselines through the shared traits and the registry.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hopsig_schemes::registry::{self, DynSigningKey, DynVerifyingKey};
use hopsig_schemes::Error;

type Chain = (Vec<Box<dyn DynVerifyingKey>>, Vec<Vec<u8>>, Vec<u8>);

fn chain(id: &str, n: usize) -> Chain {
    let scheme = registry::lookup(id).unwrap();
    let keys: Vec<Box<dyn DynSigningKey>> = (0..n).map(|_| scheme.generate().unwrap()).collect();
    let msgs: Vec<Vec<u8>> = (0..n).map(|i| format!("hop {i}").into_bytes()).collect();
    let mut agg: Option<Vec<u8>> = None;
    for (k, m) in keys.iter().zip(&msgs) {
        agg = Some(scheme.sign(k.as_ref(), m, agg.as_deref()).unwrap());
    }
    (
        keys.iter().map(|k| k.verifying_key()).collect(),
        msgs,
        agg.unwrap(),
    )
}

#[test]
fn baselines_round_trip_and_reject_changes() {
    for id in ["rsa2048-concat", "ecdsa-p256-concat"] {
        let scheme = registry::lookup(id).unwrap();
        let (pubs, msgs, agg) = chain(id, 4);
        let p: Vec<&dyn DynVerifyingKey> = pubs.iter().map(AsRef::as_ref).collect();
        let m: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
        scheme.verify(&p, &m, &agg).unwrap();
        let info = scheme.inspect(&agg).unwrap();
        assert_eq!(info.signers, 4);
        assert_eq!(info.encoded_bytes, agg.len());
        assert_eq!(info.signature_bits, 8 * (agg.len() as u64 - 7));
        if id == "rsa2048-concat" {
            assert_eq!(info.signature_bits, 2048 * 4);
        }
        let mut changed = m.clone();
        changed[2] = b"other";
        assert!(matches!(
            scheme.verify(&p, &changed, &agg),
            Err(Error::InvalidSignature)
        ));
        let mut swapped = p.clone();
        swapped.swap(0, 1);
        assert!(matches!(
            scheme.verify(&swapped, &m, &agg),
            Err(Error::InvalidSignature)
        ));
        assert!(matches!(
            scheme.verify(&p[..3], &m[..3], &agg),
            Err(Error::InvalidSignature)
        ));
        let mut t = agg.clone();
        let last = t.len() - 3;
        t[last] ^= 1;
        match scheme.verify(&p, &m, &t) {
            Err(Error::InvalidSignature | Error::Decode(_)) => {}
            other => panic!("{id}: tampered aggregate gave {other:?}"),
        }
    }
}

#[test]
fn baseline_keys_are_standard_pem_that_openssl_reads() {
    for id in ["rsa2048-concat", "ecdsa-p256-concat"] {
        let scheme = registry::lookup(id).unwrap();
        let key = scheme.generate().unwrap();
        let secret = key.to_key_file().unwrap();
        let public = key.verifying_key().to_key_file();
        assert!(openssl::pkey::PKey::private_key_from_pem(secret.as_bytes()).is_ok());
        assert!(openssl::pkey::PKey::public_key_from_pem(public.as_bytes()).is_ok());
        let again = scheme.signing_key_from_file(secret.as_bytes()).unwrap();
        assert_eq!(again.verifying_key().to_key_file(), public);
    }
}

#[test]
fn keys_of_one_scheme_are_refused_by_another() {
    let rsa = registry::lookup("rsa2048-concat").unwrap();
    let ec = registry::lookup("ecdsa-p256-concat").unwrap();
    let key = rsa.generate().unwrap();
    let other_key = |r| {
        matches!(r, Err(Error::KeyForOtherScheme { expected, found })
            if expected == "ecdsa-p256-concat" && found == "rsa2048-concat")
    };
    assert!(other_key(ec.sign(key.as_ref(), b"m", None).map(drop)));
    let file = key.to_key_file().unwrap();
    assert!(other_key(
        ec.signing_key_from_file(file.as_bytes()).map(drop)
    ));
    let (_, _, agg) = chain("ecdsa-p256-concat", 1);
    assert!(matches!(
        rsa.inspect(&agg),
        Err(Error::AggregateForOtherScheme { expected, found })
            if expected == "rsa2048-concat" && found == "ecdsa-p256-concat"
    ));
    assert_eq!(
        registry::for_aggregate(&agg).unwrap().id(),
        "ecdsa-p256-concat"
    );
}

/// An aggregate decoded once serves both what the verifier reports (its count) and the
/// verification itself; `sign_with_info` says what the aggregate it made holds without
/// decoding it again. The answers are the byte-level ones.
#[test]
fn an_aggregate_is_decoded_once_for_its_count_and_its_verification() {
    for id in [
        "rsa2048-concat",
        "ecdsa-p256-concat",
        "bls12381-bgls",
        "bgr-rsa2048",
    ] {
        let scheme = registry::lookup(id).unwrap();
        let (pubs, msgs, agg) = chain(id, 3);
        let p: Vec<&dyn DynVerifyingKey> = pubs.iter().map(AsRef::as_ref).collect();
        let m: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
        let decoded = scheme.decode(&agg).unwrap();
        assert_eq!(decoded.info(), &scheme.inspect(&agg).unwrap(), "{id}");
        assert_eq!(decoded.info().signers, 3);
        scheme.verify_decoded(&p, &m, &decoded).unwrap();
        let mut changed = m.clone();
        changed[1] = b"other";
        assert!(matches!(
            scheme.verify_decoded(&p, &changed, &decoded),
            Err(Error::InvalidSignature)
        ));
        assert!(matches!(
            scheme.verify_decoded(&p[..2], &m, &decoded),
            Err(Error::Mismatch(_))
        ));
        // A decoded aggregate of another scheme is not verified as this one's.
        let other_id = if id == "rsa2048-concat" {
            "ecdsa-p256-concat"
        } else {
            "rsa2048-concat"
        };
        let (_, _, other_agg) = chain(other_id, 1);
        let other = registry::lookup(other_id)
            .unwrap()
            .decode(&other_agg)
            .unwrap();
        assert!(
            matches!(
                scheme.verify_decoded(&p[..1], &m[..1], &other),
                Err(Error::AggregateForOtherScheme { .. })
            ),
            "{id}"
        );
        // What signing reports is what decoding its bytes says.
        let key = scheme.generate().unwrap();
        let (bytes, info) = scheme
            .sign_with_info(key.as_ref(), b"hop 4", Some(&agg))
            .unwrap();
        assert_eq!(info, scheme.inspect(&bytes).unwrap(), "{id}");
        assert_eq!(info.signers, 4);
    }
}

/// A base signature that counts its signatures (one byte each), to see whether a
/// concatenation signs before it refuses.
struct Counting;

static SIGNED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl hopsig_schemes::concat::BaseSignature for Counting {
    const ID: &'static str = "counting-concat";
    const DESCRIPTION: &'static str = "a test base signature";
    const CODE: hopsig_schemes::wire::SchemeCode =
        hopsig_schemes::wire::SchemeCode::EcdsaP256Concat;
    type SecretKey = ();
    type PublicKey = ();
    fn generate() -> Result<(), Error> {
        Ok(())
    }
    fn public(_: &()) -> Result<(), Error> {
        Ok(())
    }
    fn sign(_: &(), _: &[u8]) -> Result<Vec<u8>, Error> {
        SIGNED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(vec![1])
    }
    fn verify(_: &(), _: &[u8], sig: &[u8]) -> bool {
        sig == [1]
    }
    fn read_signature(
        r: &mut hopsig_schemes::primitives::codec::Reader<'_>,
    ) -> Result<Vec<u8>, hopsig_schemes::primitives::codec::DecodeError> {
        Ok(vec![r.u8("signature")?])
    }
    fn secret_to_pem(_: &()) -> Result<zeroize::Zeroizing<String>, Error> {
        Ok(zeroize::Zeroizing::new(String::new()))
    }
    fn secret_from_der(_: &[u8]) -> Result<(), Error> {
        Ok(())
    }
    fn public_to_pem(_: &()) -> String {
        String::new()
    }
    fn public_from_der(_: &[u8]) -> Result<(), Error> {
        Ok(())
    }
}

/// A concatenation refuses a full aggregate before it signs anything, as BGR does.
#[test]
fn a_full_concatenation_is_refused_before_signing() {
    use hopsig_schemes::concat::Concat;
    use hopsig_schemes::wire::{SchemeCode, MAX_SIGNERS};
    use hopsig_schemes::SequentialAggregate;
    let scheme = Concat::<Counting>::new();
    let key = scheme.generate().unwrap();
    let mut full = b"HS\x01".to_vec();
    full.push(SchemeCode::EcdsaP256Concat.into());
    full.push(0);
    full.extend_from_slice(&u16::try_from(MAX_SIGNERS).unwrap().to_be_bytes());
    full.extend(std::iter::repeat_n(1u8, MAX_SIGNERS));
    let full = scheme.aggregate_from_bytes(&full).unwrap();
    let before = SIGNED.load(std::sync::atomic::Ordering::SeqCst);
    assert!(matches!(
        scheme.sign(&key, b"m", Some(&full)),
        Err(Error::TooManySigners { max: MAX_SIGNERS })
    ));
    assert_eq!(
        SIGNED.load(std::sync::atomic::Ordering::SeqCst),
        before,
        "signed, then refused"
    );
    scheme.sign(&key, b"m", None).unwrap();
    assert_eq!(SIGNED.load(std::sync::atomic::Ordering::SeqCst), before + 1);
}

#[test]
fn baseline_key_files_hold_pkcs8_only() {
    use hopsig_schemes::primitives::armor::KeyFile;
    use hopsig_schemes::primitives::rsa::pem_block;
    use openssl::pkey::PKey;
    for id in ["rsa2048-concat", "ecdsa-p256-concat"] {
        let scheme = registry::lookup(id).unwrap();
        let secret = scheme.generate().unwrap().to_key_file().unwrap();
        let file = KeyFile::parse(secret.as_bytes()).unwrap();
        let pkcs8 = &file.blocks[0].der;
        let pkey = PKey::private_key_from_pkcs8(pkcs8).unwrap();
        // The same key in its older format (PKCS #1 RSAPrivateKey, SEC 1
        // ECPrivateKey), under its own label and under PRIVATE KEY.
        let (label, older) = match id {
            "rsa2048-concat" => ("RSA PRIVATE KEY", pkey.rsa().unwrap().private_key_to_der()),
            _ => (
                "EC PRIVATE KEY",
                pkey.ec_key().unwrap().private_key_to_der(),
            ),
        };
        let older = older.unwrap();
        let original = pem_block("PRIVATE KEY", pkcs8);
        for block in [pem_block(label, &older), pem_block("PRIVATE KEY", &older)] {
            let edited = secret.replace(original.as_str(), &block);
            assert_ne!(edited, *secret);
            match scheme.signing_key_from_file(edited.as_bytes()) {
                Err(Error::Key(_)) => {}
                other => panic!("{id}: {label} accepted: {:?}", other.map(drop)),
            }
        }
    }
}
