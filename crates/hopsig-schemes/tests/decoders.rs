//! Decoders of untrusted bytes never panic and reject malformed input precisely.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use hopsig_schemes::bgr::{Bgr, BgrAggregate, BgrParams};
use hopsig_schemes::bls::BglsAggregate;
use hopsig_schemes::concat::{ConcatAggregate, EcdsaK163, EcdsaP256, Rsa2048Pkcs1};
use hopsig_schemes::ibas::IbasAggregate;
use hopsig_schemes::kcx::SignedRoute;
use hopsig_schemes::pla::header::PlaHeader;
use hopsig_schemes::primitives::codec::Codec;
use hopsig_schemes::registry;
use hopsig_schemes::wire::Header;
use hopsig_schemes::{Aggregate, Error, SequentialAggregate};
use proptest::prelude::*;

fn valid_bgr(n: usize) -> Vec<u8> {
    let scheme = Bgr::new(BgrParams::PRF_RSA2048);
    let mut agg = None;
    for i in 0..n {
        agg = Some(
            scheme
                .sign(
                    &common::bgr_key(BgrParams::PRF_RSA2048, i),
                    b"m",
                    agg.as_ref(),
                )
                .unwrap(),
        );
    }
    agg.unwrap().to_bytes()
}

#[test]
fn precise_errors_for_malformed_bgr_aggregates() {
    let scheme = Bgr::new(BgrParams::PRF_RSA2048);
    let good = valid_bgr(3);
    let err = |bytes: &[u8]| {
        scheme
            .aggregate_from_bytes(bytes)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert!(err(&good[..good.len() - 1]).contains("b_1..b_n"));
    assert!(err(&[good.as_slice(), &[0]].concat()).contains("trailing"));
    let mut top = good.clone();
    top[7] |= 0x80;
    assert!(err(&top).contains("not in D"));
    let mut pad = good.clone();
    *pad.last_mut().unwrap() |= 0x01;
    assert!(err(&pad).contains("padding"));
    let mut count = good.clone();
    count[6] = 4;
    assert!(err(&count).contains("input too short"));
    assert!(err(&good[..10]).contains("x_n"));
}

/// DER INTEGER of the big-endian `v` (minimal, a 0x00 in front of a set top bit).
fn der_integer(v: &[u8]) -> Vec<u8> {
    let start = v.iter().position(|&b| b != 0).unwrap_or(v.len());
    let mut body = v[start..].to_vec();
    if body.first().is_none_or(|&b| b & 0x80 != 0) {
        body.insert(0, 0);
    }
    [vec![0x02, body.len() as u8], body].concat()
}

/// A one-signer aggregate of `code` holding the DER ECDSA-Sig-Value (r, s).
fn ecdsa_aggregate(code: u8, r: &[u8], s: &[u8]) -> Vec<u8> {
    let body = [der_integer(r), der_integer(s)].concat();
    [
        vec![b'H', b'S', 1, code, 0, 0, 1, 0x30, body.len() as u8],
        body,
    ]
    .concat()
}

#[test]
fn ecdsa_r_or_s_outside_1_to_n_minus_1_does_not_decode() {
    use hopsig_koblitz::curve::{order_bytes, K163, K233, K283};
    let p256 =
        hex::decode("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551").unwrap();
    for (id, n) in [
        ("ecdsa-p256-concat", p256),
        ("ecdsa-k163", order_bytes::<K163>()),
        ("ecdsa-k233", order_bytes::<K233>()),
        ("ecdsa-k283", order_bytes::<K283>()),
    ] {
        let scheme = registry::lookup(id).unwrap();
        let code = scheme
            .sign(scheme.generate().unwrap().as_ref(), b"m", None)
            .unwrap()[3];
        let mut n_minus_1 = n.clone();
        *n_minus_1.last_mut().unwrap() -= 1;
        let one = [1u8];
        // In range, though not a signature: it decodes (and Ver says invalid).
        for (r, s) in [(&one[..], &one[..]), (&n_minus_1, &n_minus_1)] {
            let agg = ecdsa_aggregate(code, r, s);
            scheme.inspect(&agg).unwrap();
            let key = scheme.generate().unwrap().verifying_key();
            assert!(matches!(
                scheme.verify(&[key.as_ref()], &[b"m"], &agg),
                Err(Error::InvalidSignature)
            ));
        }
        // Zero or n: a value out of range, so the aggregate is malformed.
        for (r, s) in [
            (&[0u8][..], &one[..]),
            (&one[..], &[0u8][..]),
            (&n[..], &one[..]),
            (&one[..], &n[..]),
        ] {
            let e = scheme.inspect(&ecdsa_aggregate(code, r, s)).unwrap_err();
            assert!(
                matches!(e, Error::Decode(_)) && e.to_string().contains("r or s"),
                "{id}: {e}"
            );
        }
    }
}

fn check_all_decoders(bytes: &[u8]) {
    for s in registry::schemes() {
        let _ = s.inspect(bytes);
        let _ = s.verifying_key_from_file(bytes);
        let _ = s.signing_key_from_file(bytes);
    }
    let _ = registry::for_aggregate(bytes);
    let _ = registry::for_key_file(bytes);
    // Every wire type's own decoder, directly.
    let _ = Header::decode(bytes);
    let _ = BgrAggregate::decode(bytes);
    let _ = ConcatAggregate::<Rsa2048Pkcs1>::decode(bytes);
    let _ = ConcatAggregate::<EcdsaP256>::decode(bytes);
    let _ = ConcatAggregate::<EcdsaK163>::decode(bytes);
    let _ = BglsAggregate::decode(bytes);
    let _ = IbasAggregate::decode(bytes);
    let _ = SignedRoute::decode(bytes);
    let _ = PlaHeader::decode(bytes);
    let _ = IbasAggregate::from_bytes(bytes);
    if let Ok(file) = hopsig_schemes::primitives::armor::KeyFile::parse(bytes) {
        let _ = hopsig_schemes::ibas::Pkg::from_key_file(&file);
        let _ = hopsig_schemes::ibas::UserKey::from_key_file(&file);
        let _ = hopsig_schemes::ibas::PublicParams::from_key_file(&file);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..700)) {
        check_all_decoders(&bytes);
        // With a valid header in front, the body parsers are reached.
        for entry in &registry::ALL_SCHEMES {
            let (code, param) = (u8::from(entry.code), entry.param.default_byte());
            let mut v = vec![b'H', b'S', 1, code, param, 0, 1];
            v.extend_from_slice(&bytes);
            check_all_decoders(&v);
        }
    }

    #[test]
    fn mutated_valid_aggregates_decode_or_fail_cleanly(pos in 0usize..400, val in any::<u8>(), cut in 0usize..400) {
        static GOOD: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        let mut m = GOOD.get_or_init(|| valid_bgr(2)).clone();
        let p = pos % m.len();
        m[p] = val;
        m.truncate(m.len() - cut.min(m.len()));
        let scheme = Bgr::new(BgrParams::PRF_RSA2048);
        match scheme.aggregate_from_bytes(&m) {
            Ok(a) => prop_assert_eq!(a.to_bytes(), m),
            Err(Error::Decode(_) | Error::AggregateForOtherScheme { .. }) => {}
            Err(e) => prop_assert!(false, "unexpected error {e}"),
        }
    }

    #[test]
    fn mutated_ibas_and_bgls_aggregates_decode_or_fail_cleanly(pos in 0usize..170, val in any::<u8>(), cut in 0usize..170) {
        static GOOD: std::sync::OnceLock<(Vec<u8>, Vec<u8>)> = std::sync::OnceLock::new();
        let (ibas_good, bgls_good) = GOOD.get_or_init(|| {
            use hopsig_schemes::ibas::{self, Journal, Pkg};
            let pkg = Pkg::setup().unwrap();
            let key = pkg.extract("/a").unwrap();
            let i = ibas::sign(&key, b"m", None, &mut Journal::memory()).unwrap();
            let bls = hopsig_schemes::bls::Bgls;
            let k = hopsig_schemes::bls::Bgls::key_from_ikm(&[1; 32]).unwrap();
            (i.to_bytes(), bls.sign(&k, b"m", None).unwrap().to_bytes())
        });
        for good in [ibas_good, bgls_good] {
            let mut m = good.clone();
            let p = pos % m.len();
            m[p] = val;
            m.truncate(m.len() - cut.min(m.len()));
            let decoded = if good[3] == 0x21 {
                IbasAggregate::from_bytes(&m).map(|a| a.to_bytes())
            } else {
                hopsig_schemes::bls::Bgls.aggregate_from_bytes(&m).map(|a| a.to_bytes())
            };
            match decoded {
                Ok(bytes) => prop_assert_eq!(bytes, m),
                Err(Error::Decode(_) | Error::AggregateForOtherScheme { .. }) => {}
                Err(e) => prop_assert!(false, "unexpected error {e}"),
            }
        }
    }
}
