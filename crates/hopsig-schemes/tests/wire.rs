//! Every wire type on commented bytes (the layouts of docs/spec/*.md, field by field),
//! and round trips: decode(encode(v)) = v for generated values, encode(decode(b)) = b
//! for every byte string that decodes. Arbitrary bytes are in `decoders.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hopsig_schemes::bgr::{Bgr, BgrAggregate, BgrParams, H_LEN};
use hopsig_schemes::bls::{self, Bgls};
use hopsig_schemes::concat::{Concat, EcdsaP256, Rsa2048Pkcs1};
use hopsig_schemes::ibas::{self, IbasAggregate, Journal, Pkg};
use hopsig_schemes::kcx::{self, AttestationPublic, Hop, HopSig, KcParams, SignedRoute};
use hopsig_schemes::pla::header::{KeyMaterial, PlaCurve, PlaHeader};
use hopsig_schemes::pla::icnr::ImplicitCert;
use hopsig_schemes::primitives::codec::{Codec, DecodeError, EncodeError};
use hopsig_schemes::wire::{Header, SchemeCode, Signers};
use hopsig_schemes::{registry, Aggregate, Error, SequentialAggregate};
use proptest::prelude::*;

/// The standard generators, compressed (ZCash serialization, as blst and py_ecc write
/// them): points every decoder must accept.
const G1_GENERATOR: &str = "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
const G2_GENERATOR: &str = "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

#[test]
fn bgr_aggregate_on_commented_bytes() {
    #[rustfmt::skip]
    let bytes = [
        &[
            0x48, 0x53, // magic "HS"
            0x01,       // format version 1
            0x10,       // scheme code: bgr-rsa2048
            0x00,       // parameter: none
            0x00, 0x02, // n = 2
        ][..],
        &[0x7f],        // x_n, first of k = 256 bytes: top bit clear (x_n ∈ D)
        &[0xab; 255],   //   the other 255 bytes of x_n
        &[0x11; H_LEN], // h_n (32)
        &[0x21; 16],    // r_1 (ℓ_r = 128 bits)
        &[0x22; 16],    // r_2
        &[0b0100_0000], // b_1 = 0, b_2 = 1, six padding bits 0
    ]
    .concat();
    let agg = Bgr::new(BgrParams::PRF_RSA2048)
        .aggregate_from_bytes(&bytes)
        .unwrap();
    assert_eq!(agg.signers(), 2);
    assert_eq!(agg.x()[..2], [0x7f, 0xab]);
    assert_eq!(agg.h(), &[0x11; H_LEN]);
    assert_eq!(agg.r(2), Some(&[0x22; 16][..]));
    assert_eq!(
        (agg.b(1), agg.b(2), agg.b(3)),
        (Some(false), Some(true), None)
    );
    assert_eq!(agg.signature_bits(), 2304 + 2 * 129);
    assert_eq!(agg.to_bytes(), bytes);
    assert_eq!(BgrAggregate::decode(&bytes).unwrap(), agg);
}

#[test]
fn concat_aggregates_on_commented_bytes() {
    #[rustfmt::skip]
    let ecdsa = [
        0x48, 0x53, 0x01, // magic "HS", version 1
        0x02,             // scheme code: ecdsa-p256-concat
        0x00,             // parameter: none
        0x00, 0x02,       // n = 2
        0x30, 0x06,       // signature 1: SEQUENCE, 6 bytes
        0x02, 0x01, 0x01, //   INTEGER r = 1
        0x02, 0x01, 0x02, //   INTEGER s = 2
        0x30, 0x07,       // signature 2: SEQUENCE, 7 bytes
        0x02, 0x02, 0x00, 0x80, // INTEGER r = 128 (a leading 0x00 keeps it positive)
        0x02, 0x01, 0x03, //   INTEGER s = 3
    ];
    let agg = Concat::<EcdsaP256>::new()
        .aggregate_from_bytes(&ecdsa)
        .unwrap();
    assert_eq!(agg.signature(2), Some(&ecdsa[15..]));
    assert_eq!(agg.to_bytes(), ecdsa);
    // The same value in a long-form DER length is not canonical.
    let long = [&ecdsa[..7], &[0x30, 0x81, 0x06], &ecdsa[9..]].concat();
    assert!(matches!(
        Concat::<EcdsaP256>::new().aggregate_from_bytes(&long),
        Err(Error::Decode(_))
    ));

    #[rustfmt::skip]
    let rsa = [
        &[
            0x48, 0x53, 0x01, // magic "HS", version 1
            0x01,             // scheme code: rsa2048-concat
            0x00,             // parameter: none
            0x00, 0x01,       // n = 1
        ][..],
        &[0x5c; 256],         // one 256-byte RSASSA-PKCS1-v1_5 signature
    ]
    .concat();
    let agg = Concat::<Rsa2048Pkcs1>::new()
        .aggregate_from_bytes(&rsa)
        .unwrap();
    assert_eq!(agg.signature_bits(), 2048);
    assert_eq!(agg.to_bytes(), rsa);
    assert!(Concat::<Rsa2048Pkcs1>::new()
        .aggregate_from_bytes(&rsa[..rsa.len() - 1])
        .is_err());
}

#[test]
fn bgls_aggregate_on_commented_bytes() {
    #[rustfmt::skip]
    let bytes = [
        &[
            0x48, 0x53, 0x01, // magic "HS", version 1
            0x20,             // scheme code: bls12381-bgls
            0x00,             // parameter: none
            0x00, 0x03,       // n = 3
        ][..],
        &unhex(G2_GENERATOR), // σ: compressed G2 point (96)
    ]
    .concat();
    let agg = Bgls.aggregate_from_bytes(&bytes).unwrap();
    assert_eq!(agg.signers(), 3);
    assert_eq!(agg.signature_bytes()[..], unhex(G2_GENERATOR)[..]);
    assert_eq!(agg.to_bytes(), bytes);
    // The point at infinity (0xc0 then zeros) is refused.
    let mut infinity = bytes.clone();
    infinity[7..].fill(0);
    infinity[7] = 0xc0;
    assert!(matches!(
        Bgls.aggregate_from_bytes(&infinity),
        Err(Error::Decode(_))
    ));
}

#[test]
fn ibas_aggregate_on_commented_bytes() {
    #[rustfmt::skip]
    let bytes = [
        &[
            0x48, 0x53, 0x01, // magic "HS", version 1
            0x21,             // scheme code: ibas-bls12381
            0x10,             // parameter: |w| = 16
            0x00, 0x02,       // n = 2
        ][..],
        &[0x77; 16],          // w (16)
        &unhex(G1_GENERATOR), // S_n: compressed G1 point (48)
        &unhex(G2_GENERATOR), // T_n: compressed G2 point (96)
    ]
    .concat();
    let agg = IbasAggregate::from_bytes(&bytes).unwrap();
    assert_eq!((agg.signers(), agg.w()), (2, &[0x77; 16]));
    assert_eq!(agg.to_bytes(), bytes);
    assert_eq!(bytes.len(), 7 + 160);
}

#[test]
fn kcx_path_authenticator_on_commented_bytes() {
    #[rustfmt::skip]
    let bytes = [
        &[
            b'K', b'C',             // magic "KC"
            0x01,                   // version 1
            0x01,                   // suite: paper (RSA-1024, HORS (512, 3))
            0x04, b'1', b'0', b'/', b'8', // prefix: 4 bytes, "10/8"
            0x01,                   // count: one hop
            0x00, 0x00, 0xfb, 0xf0, // N_0 = AS64496
            0x00,                   // kind: origin (K_0)
            0x00, 0x00, 0x00, 0x00, 0x6b, 0x49, 0xd2, 0x00, // expires 1,800,000,000
            0x01, 0b1000_0000,      // V_0: 1 byte, neighbour 0 marked
            0x00,                   // key flags: no attestation key issued
        ][..],
        &[0x5a; 128],               // x: k = 128 bytes, top bit clear
        &[0b1000_0000],             // SPLIT bits: b_0 = 1, seven padding bits 0
    ]
    .concat();
    let route = kcx::decode(&bytes).unwrap();
    assert_eq!(route.params, KcParams::PAPER);
    assert_eq!(route.prefix, b"10/8");
    assert_eq!(route.path(), [64496]);
    assert_eq!(route.hops[0].sig, HopSig::Origin);
    assert_eq!(route.hops[0].expires, 1_800_000_000);
    assert_eq!(route.hops[0].v, [0x80]);
    assert_eq!(route.b, [true]);
    assert_eq!(kcx::encode(&route).unwrap(), bytes);

    let mut kind = bytes.clone();
    kind[14] = 0x03;
    assert_eq!(
        SignedRoute::decode(&kind),
        Err(DecodeError::UnknownCode {
            field: "hop kind",
            value: 3
        })
    );
}

#[test]
fn pla_header_on_commented_bytes() {
    #[rustfmt::skip]
    let bytes = [
        &[
            0x01,                   // version 1
            0x01,                   // curve: K-163 (F = 21, L = 21)
            0x02,                   // layout: implicit certificate
            0x00, 0x07,             // TTP id 7
            0x00, 0x00, 0x00, 0x2a, // sequence number 42
            0x6b, 0x49, 0xd1, 0xff, // timestamp 1,799,999,999
            0x05,                   // r_A, first of F = 21 bytes (an m-bit integer)
        ][..],
        &[0xcc; 20],                //   the other 20 bytes of r_A
        &[0x01],                    // b_A = 1
        &[0x0c; 21],                // packet signature c (L = 21)
        &[0x0d; 21],                //   and d
    ]
    .concat();
    let h = PlaHeader::decode(&bytes).unwrap();
    assert_eq!(h.curve, PlaCurve::K163);
    assert_eq!((h.ttp_id, h.sequence, h.timestamp), (7, 42, 1_799_999_999));
    let KeyMaterial::Implicit(cert) = &h.key else {
        panic!("layout 2 is implicit");
    };
    assert!(cert.b);
    assert_eq!(cert.r[..2], [0x05, 0xcc]);
    assert_eq!(h.encoding().unwrap(), bytes);
    assert_eq!(bytes.len(), 77);
    assert!(PlaHeader::decode_for::<hopsig_koblitz::curve::K163>(&bytes).is_ok());
    assert!(PlaHeader::decode_for::<hopsig_koblitz::curve::K233>(&bytes).is_err());
    let mut layout = bytes.clone();
    layout[2] = 0x03;
    assert_eq!(
        PlaHeader::decode(&layout),
        Err(DecodeError::UnknownCode {
            field: "layout",
            value: 3
        })
    );
}

#[test]
fn pla_key_material_of_the_wrong_size_is_not_encoded() {
    let mut h = PlaHeader {
        curve: PlaCurve::K233,
        ttp_id: 1,
        sequence: 1,
        timestamp: 1,
        key: KeyMaterial::Implicit(ImplicitCert {
            r: vec![0; 30],
            b: false,
        }),
        signature: vec![0; 2 * 29],
    };
    assert!(h.encoding().is_ok());
    h.signature.push(0);
    assert_eq!(
        h.encoding(),
        Err(EncodeError::OutOfRange {
            field: "signature",
            actual: 59,
            min: 58,
            max: 58
        })
    );
    h.signature.pop();
    h.key = KeyMaterial::Certificate {
        key: vec![2; 30],
        ttp_sig: vec![0; 58],
    };
    assert!(matches!(
        h.encoding(),
        Err(EncodeError::OutOfRange {
            field: "public key",
            ..
        })
    ));
}

fn header() -> impl Strategy<Value = Header> {
    (
        proptest::sample::select(SchemeCode::ALL),
        any::<u8>(),
        1usize..=4096,
    )
        .prop_map(|(code, param, n)| Header {
            code,
            param,
            signers: Signers::new(n).unwrap(),
        })
}

fn bgr_params() -> impl Strategy<Value = BgrParams> {
    prop_oneof![
        Just(BgrParams::PRF_RSA2048),
        Just(BgrParams::PRF_RSA3072),
        Just(BgrParams::RAND_RSA2048),
        Just(BgrParams::RAND_RSA3072),
        (prop_oneof![Just(2048u32), Just(3072)], 8u16..=32).prop_map(|(m, r)| BgrParams::random(
            m,
            8 * r
        )
        .unwrap()),
    ]
}

fn bgr_aggregate() -> impl Strategy<Value = BgrAggregate> {
    (bgr_params(), 1usize..20, any::<u64>()).prop_map(|(p, n, seed)| {
        let byte = |i: usize| (seed.rotate_left(i as u32) as u8) ^ (i as u8);
        let mut x: Vec<u8> = (0..p.k()).map(byte).collect();
        x[0] &= 0x7f;
        let h = std::array::from_fn(|i| byte(i + 7));
        let r = (0..n)
            .map(|i| (0..p.r_len()).map(|j| byte(i * 31 + j)).collect())
            .collect();
        let b = (0..n).map(|i| byte(i) & 1 == 1).collect();
        BgrAggregate::from_parts(p, x, h, r, b).unwrap()
    })
}

fn mt_hop(params: KcParams) -> impl Strategy<Value = Hop> {
    let node = params.hors.node_bytes;
    (
        any::<u32>(),
        0u8..3,
        any::<u64>(),
        proptest::collection::vec(any::<u8>(), 0..40),
        proptest::option::of(proptest::collection::vec(any::<u8>(), node..=node)),
        proptest::collection::vec(any::<u8>(), 0..300),
    )
        .prop_map(|(asn, kind, expires, v, mt, sig)| Hop {
            asn,
            v,
            expires,
            key: AttestationPublic { rsa: None, mt },
            sig: match kind {
                0 => HopSig::Origin,
                1 => HopSig::Rsa,
                _ => HopSig::Mt(sig),
            },
        })
}

fn signed_route() -> impl Strategy<Value = SignedRoute> {
    prop_oneof![Just(KcParams::PAPER), Just(KcParams::MODERN)].prop_flat_map(|params| {
        (
            proptest::collection::vec(any::<u8>(), 0..=64),
            proptest::collection::vec(mt_hop(params), 1..8),
            proptest::collection::vec(any::<u8>(), params.k()..=params.k()),
            any::<u64>(),
        )
            .prop_map(move |(prefix, hops, mut x, bits)| {
                x[0] &= 0x7f;
                let n = hops
                    .iter()
                    .filter(|h| !matches!(h.sig, HopSig::Mt(_)))
                    .count();
                SignedRoute {
                    params,
                    prefix,
                    hops,
                    x,
                    b: (0..n).map(|j| bits >> (j % 64) & 1 == 1).collect(),
                }
            })
    })
}

fn pla_header() -> impl Strategy<Value = PlaHeader> {
    (
        proptest::sample::select(PlaCurve::ALL),
        any::<(u16, u32, u32, bool, bool)>(),
        any::<u64>(),
    )
        .prop_map(
            |(curve, (ttp_id, sequence, timestamp, implicit, b), seed)| {
                let (f, l) = curve.sizes();
                let bytes = |n: usize, salt: u64| -> Vec<u8> {
                    (0..n)
                        .map(|i| (seed.wrapping_mul(salt + i as u64) >> 13) as u8)
                        .collect()
                };
                let key = if implicit {
                    KeyMaterial::Implicit(ImplicitCert { r: bytes(f, 3), b })
                } else {
                    KeyMaterial::Certificate {
                        key: bytes(1 + f, 5),
                        ttp_sig: bytes(2 * l, 7),
                    }
                };
                PlaHeader {
                    curve,
                    ttp_id,
                    sequence,
                    timestamp,
                    key,
                    signature: bytes(2 * l, 11),
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn headers_round_trip(h in header()) {
        let bytes = hopsig_schemes::primitives::codec::to_vec(&h);
        prop_assert_eq!(bytes.len(), 7);
        prop_assert_eq!(Header::decode(&bytes), Ok(h));
    }

    #[test]
    fn bgr_aggregates_round_trip(agg in bgr_aggregate()) {
        let bytes = agg.to_bytes();
        prop_assert_eq!(bytes.len(), agg.params().aggregate_len(agg.signers()));
        prop_assert_eq!(&BgrAggregate::decode(&bytes)?, &agg);
        // The registry finds the parameter set from the header alone.
        prop_assert_eq!(registry::for_aggregate(&bytes)?.id(), agg.params().id());
        prop_assert_eq!(Bgr::new(agg.params()).aggregate_from_bytes(&bytes)?, agg);
    }

    #[test]
    fn kcx_routes_round_trip(route in signed_route()) {
        let bytes = kcx::encode(&route)?;
        prop_assert_eq!(SignedRoute::decode(&bytes)?, route);
    }

    #[test]
    fn kcx_fields_over_the_limits_are_not_encoded(route in signed_route(), extra in 1usize..200) {
        let mut long_prefix = route.clone();
        long_prefix.prefix = vec![0; 64 + extra];
        let over = |r: &SignedRoute, field: &str| matches!(
            kcx::encode(r),
            Err(Error::Encode(EncodeError::OutOfRange { field: f, .. })) if f == field
        );
        prop_assert!(over(&long_prefix, "prefix length"));
        let mut long_v = route.clone();
        long_v.hops[0].v = vec![0; 255 + extra];
        prop_assert!(over(&long_v, "bit vector"));
        let mut wrong_x = route.clone();
        wrong_x.x.push(0);
        prop_assert!(over(&wrong_x, "aggregate x"));
        let mut wrong_b = route;
        wrong_b.b.push(true);
        prop_assert!(over(&wrong_b, "SPLIT bit count"));
    }

    #[test]
    fn pla_headers_round_trip(h in pla_header()) {
        let bytes = h.encoding()?;
        prop_assert_eq!(PlaHeader::decode(&bytes)?, h);
    }

    #[test]
    fn concat_aggregates_round_trip(n in 1usize..5, seed in any::<u8>(), cut in 0usize..3) {
        // Any 256-byte string is a well-formed RSA signature; n of them an aggregate.
        let mut bytes = vec![0x48, 0x53, 1, 0x01, 0, 0, n as u8];
        bytes.extend((0..256 * n).map(|i| (i as u8).wrapping_mul(seed)));
        let scheme = Concat::<Rsa2048Pkcs1>::new();
        prop_assert_eq!(scheme.aggregate_from_bytes(&bytes)?.to_bytes(), bytes.clone());
        bytes.truncate(bytes.len() - cut);
        prop_assert_eq!(scheme.aggregate_from_bytes(&bytes).is_ok(), cut == 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn pairing_aggregates_round_trip(ikm in any::<[u8; 32]>(), n in 1usize..4, w in any::<[u8; 16]>()) {
        let key = Bgls::key_from_ikm(&ikm)?;
        let mut agg = None;
        for i in 0..n {
            agg = Some(Bgls.sign(&key, &[i as u8], agg.as_ref())?);
        }
        let agg = agg.unwrap();
        let bytes = agg.to_bytes();
        prop_assert_eq!(bytes.len(), 7 + bls::SIGNATURE_BYTES);
        prop_assert_eq!(Bgls.aggregate_from_bytes(&bytes)?.to_bytes(), bytes);

        let pkg = Pkg::setup()?;
        let alice = pkg.extract("/a")?;
        let i = ibas::sign_with_w(&alice, b"m", &w, &mut Journal::memory())?;
        let bytes = i.to_bytes();
        let back = IbasAggregate::from_bytes(&bytes)?;
        prop_assert_eq!(back.w(), &w);
        prop_assert_eq!(back.to_bytes(), bytes);
    }
}
