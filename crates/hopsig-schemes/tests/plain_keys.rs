//! Plain standard keys and bare signatures through the registry (docs/spec/keys.md,
//! "Plain keys"; docs/spec/aggregate.md, "Bare signatures"): the schemes the table
//! marks read a key's PKCS #8 / SubjectPublicKeyInfo alone, in PEM or DER, and the
//! concatenation schemes read one bare signature as an aggregate of one signer.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hopsig_schemes::primitives::armor::{KeyFile, KeyKind};
use hopsig_schemes::registry::{self, PlainKeys, ALL_SCHEMES};
use hopsig_schemes::Error;

/// The one block of a key file, as plain PEM and as DER.
fn plain_forms(key_file: &str) -> [Vec<u8>; 2] {
    let file = KeyFile::parse(key_file.as_bytes()).unwrap();
    let block = &file.blocks[0];
    [
        hopsig_schemes::primitives::rsa::pem_block(&block.label, &block.der)
            .as_bytes()
            .to_vec(),
        block.der.to_vec(),
    ]
}

#[test]
fn the_table_says_which_keys_are_plain() {
    for e in &ALL_SCHEMES {
        let expected = match e.id {
            "rsa2048-concat" | "ecdsa-p256-concat" | "ecdsa-k163" | "ecdsa-k233" | "ecdsa-k283" => {
                PlainKeys::Both
            }
            id if id.starts_with("bgr-") => PlainKeys::Public,
            _ => PlainKeys::Neither,
        };
        assert_eq!(e.plain_keys, expected, "{}", e.id);
    }
}

#[test]
fn concatenation_schemes_sign_and_verify_with_plain_keys_and_bare_signatures() {
    for id in [
        "rsa2048-concat",
        "ecdsa-p256-concat",
        "ecdsa-k163",
        "ecdsa-k233",
        "ecdsa-k283",
    ] {
        let scheme = registry::lookup(id).unwrap();
        let key = scheme.generate().unwrap();
        let (secret, public) = (
            key.to_key_file().unwrap(),
            key.verifying_key().to_key_file(),
        );
        for (plain_secret, plain_public) in
            plain_forms(&secret).into_iter().zip(plain_forms(&public))
        {
            let sk = scheme.signing_key_from_file(&plain_secret).unwrap();
            let pk = scheme.verifying_key_from_file(&plain_public).unwrap();
            let agg = scheme.sign(sk.as_ref(), b"m", None).unwrap();
            scheme.verify(&[pk.as_ref()], &[b"m"], &agg).unwrap();
            // The signature alone (after the 7-byte header) is the same aggregate.
            let bare = &agg[7..];
            assert_eq!(scheme.inspect(bare).unwrap().signers, 1, "{id}");
            scheme.verify(&[pk.as_ref()], &[b"m"], bare).unwrap();
            assert!(matches!(
                scheme.verify(&[pk.as_ref()], &[b"other"], bare),
                Err(Error::InvalidSignature)
            ));
            // A bare signature extends to an aggregate of two.
            let two = scheme.sign(sk.as_ref(), b"n", Some(bare)).unwrap();
            assert_eq!(scheme.inspect(&two).unwrap().signers, 2);
            // Neither a bare signature nor an aggregate: the error of what it starts like.
            let mut longer = bare.to_vec();
            longer.push(0);
            assert!(
                matches!(scheme.inspect(&longer), Err(Error::Decode(_))),
                "{id}"
            );
            // A secret key where a public one is needed, and the reverse.
            assert!(matches!(
                scheme.verifying_key_from_file(&plain_secret),
                Err(Error::WrongKeyKind {
                    expected: KeyKind::Public,
                    ..
                })
            ));
            assert!(matches!(
                scheme.signing_key_from_file(&plain_public),
                Err(Error::WrongKeyKind {
                    expected: KeyKind::Secret,
                    ..
                })
            ));
        }
        assert!(matches!(
            registry::for_key_file(&plain_forms(&secret)[0]),
            Err(Error::PlainKeyNamesNoScheme)
        ));
    }
}

#[test]
fn other_schemes_refuse_plain_keys_they_do_not_have() {
    let bgr = registry::lookup("bgr-rsa2048").unwrap();
    let key = bgr.generate().unwrap();
    let secret = key.to_key_file().unwrap();
    let public = key.verifying_key().to_key_file();
    for plain in plain_forms(&public) {
        bgr.verifying_key_from_file(&plain).unwrap();
    }
    for plain in plain_forms(&secret) {
        assert!(matches!(
            bgr.signing_key_from_file(&plain),
            Err(Error::PlainKeyNotAccepted {
                kind: KeyKind::Secret,
                ..
            })
        ));
    }
    let bls = registry::lookup("bls12381-bgls").unwrap();
    assert!(matches!(
        bls.verifying_key_from_file(&plain_forms(&public)[1]),
        Err(Error::PlainKeyNotAccepted {
            kind: KeyKind::Public,
            ..
        })
    ));
    // BGR aggregates have no bare form.
    let agg = bgr.sign(key.as_ref(), b"m", None).unwrap();
    assert!(matches!(bgr.inspect(&agg[7..]), Err(Error::Decode(_))));
}
