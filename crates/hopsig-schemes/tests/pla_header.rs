//! PLA header: both layouts signed and checked per hop, Table I's bit counts, and
//! rejections.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hopsig_koblitz::curve::{Curve, K163, K233, K283};
use hopsig_schemes::concat::{BaseSignature, EcdsaK163};
use hopsig_schemes::pla::header::{
    certify, check_packet, KeyMaterial, PlaCurve, PlaHeader, TtpDirectory,
};
use hopsig_schemes::pla::icnr::{self, Ttp};
use hopsig_schemes::primitives::codec::Codec;
use hopsig_schemes::Error;
use proptest::prelude::*;

const NOW: u32 = 1_800_000_000;
const SRC: &[u8] = b"2001:db8::17";

fn implicit_packet<C: Curve>() -> (Vec<u8>, TtpDirectory<C>) {
    let ttp = Ttp::<C>::setup().unwrap();
    let blind = icnr::blind::<C>().unwrap();
    let issued = ttp.issue(SRC, blind.request()).unwrap();
    let key = icnr::finalkey(&blind, &issued, SRC, ttp.public()).unwrap();
    let mut h = PlaHeader {
        curve: PlaCurve::of::<C>().unwrap(),
        ttp_id: 7,
        sequence: 42,
        timestamp: NOW - 1,
        key: KeyMaterial::Implicit(issued.cert.clone()),
        signature: vec![],
    };
    h.sign(&key, b"payload").unwrap();
    let mut dir = TtpDirectory::default();
    dir.insert(7, *ttp.public());
    (h.encoding().unwrap(), dir)
}

fn both_layouts<C: Curve>() {
    let (bytes, dir) = implicit_packet::<C>();
    let h = check_packet::<C>(&bytes, b"payload", SRC, &dir, NOW, 60).unwrap();
    assert_eq!(h.sequence, 42);
    let invalid =
        |r: Result<PlaHeader, Error>| assert!(matches!(r, Err(Error::InvalidSignature)), "{r:?}");
    invalid(check_packet::<C>(&bytes, b"payload!", SRC, &dir, NOW, 60));
    invalid(check_packet::<C>(
        &bytes,
        b"payload",
        b"2001:db8::18",
        &dir,
        NOW,
        60,
    ));
    invalid(check_packet::<C>(
        &bytes,
        b"payload",
        SRC,
        &TtpDirectory::default(),
        NOW,
        60,
    ));
    invalid(check_packet::<C>(
        &bytes,
        b"payload",
        SRC,
        &dir,
        NOW + 120,
        60,
    ));
    // Any changed header byte (sequence, timestamp, r_A, signature) breaks it.
    for at in [4, 8, 13, bytes.len() - 1] {
        let mut t = bytes.clone();
        t[at] ^= 1;
        assert!(
            check_packet::<C>(&t, b"payload", SRC, &dir, NOW, 600).is_err(),
            "byte {at}"
        );
    }
}

#[test]
fn implicit_layout_on_every_curve() {
    both_layouts::<K163>();
    both_layouts::<K233>();
    both_layouts::<K283>();
}

#[test]
fn certificate_layout_and_table_1_sizes() {
    let ttp = EcdsaK163::generate().unwrap();
    let user = EcdsaK163::generate().unwrap();
    let mut h = PlaHeader {
        curve: PlaCurve::K163,
        ttp_id: 1,
        sequence: 9,
        timestamp: NOW,
        key: KeyMaterial::Certificate {
            key: user.public_point().to_sec1(true),
            ttp_sig: certify(&ttp, user.public_point()).unwrap(),
        },
        signature: vec![],
    };
    h.sign(&user, b"data").unwrap();
    let mut dir = TtpDirectory::default();
    dir.insert(1, *ttp.public_point());
    let bytes = h.encoding().unwrap();
    check_packet::<K163>(&bytes, b"data", SRC, &dir, NOW, 60).unwrap();
    // A key the TTP did not certify.
    let other = EcdsaK163::generate().unwrap();
    let mut forged = h.clone();
    forged.key = KeyMaterial::Certificate {
        key: other.public_point().to_sec1(true),
        ttp_sig: certify(&other, other.public_point()).unwrap(),
    };
    forged.sign(&other, b"data").unwrap();
    assert!(
        check_packet::<K163>(&forged.encoding().unwrap(), b"data", SRC, &dir, NOW, 60).is_err()
    );
    // 003 Table I: 816 bits certificate-based, 490 implicit, for K-163.
    assert_eq!(PlaHeader::table1_bits::<K163>(false), 816);
    assert_eq!(PlaHeader::table1_bits::<K163>(true), 490);
    // Byte-aligned on the wire: 13 fixed (version, curve, layout, TTP id, sequence, timestamp) + 22 key + 2·21 TTP sig + 2·21 sig.
    assert_eq!(bytes.len(), 13 + 22 + 42 + 42);
}

proptest! {
    #[test]
    fn decoder_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = PlaHeader::decode(&bytes);
        let _ = PlaHeader::decode_for::<K163>(&bytes);
        let _ = PlaHeader::decode_for::<K283>(&bytes);
    }
}
