//! Arithmetic modulo the group order against OpenSSL's bignums (an independent
//! implementation), on random and edge values of every curve, and exhaustively on the
//! tiny curves' order 11.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hopsig_koblitz::curve::{order_bytes, Curve, Tiny0, K163, K233, K283};
use hopsig_koblitz::scalar::Scalar;
use openssl::bn::{BigNum, BigNumContext};
use proptest::prelude::*;

fn bn(bytes: &[u8]) -> BigNum {
    BigNum::from_slice(bytes).unwrap()
}

fn scalar_bn<C: Curve>(s: &Scalar<C>) -> BigNum {
    bn(&s.to_be_bytes())
}

/// Reduces arbitrary bytes mod n with OpenSSL, then loads them as a scalar.
fn to_scalar<C: Curve>(bytes: &[u8]) -> (Scalar<C>, BigNum) {
    let n = bn(&order_bytes::<C>());
    let mut ctx = BigNumContext::new().unwrap();
    let mut x = BigNum::new().unwrap();
    x.nnmod(&bn(bytes), &n, &mut ctx).unwrap();
    (Scalar::from_be_bytes(&x.to_vec()).unwrap(), x)
}

/// Edge values: 0, 1, 2, n − 1, n − 2, 2^k and 2^k − 1 below n.
fn edges<C: Curve>() -> Vec<Vec<u8>> {
    let n = bn(&order_bytes::<C>());
    let mut out = vec![vec![0], vec![1], vec![2]];
    for d in [1u32, 2] {
        let mut x = n.to_owned().unwrap();
        x.sub_word(d).unwrap();
        out.push(x.to_vec());
    }
    for k in [63, 64, 65, 127, 128, 150, n.num_bits() - 1] {
        let mut p = BigNum::new().unwrap();
        p.set_bit(k).unwrap();
        if p < n {
            out.push(p.to_vec());
            p.sub_word(1).unwrap();
            out.push(p.to_vec());
        }
    }
    out
}

fn check<C: Curve>(a: &[u8], b: &[u8]) {
    let n = bn(&order_bytes::<C>());
    let mut ctx = BigNumContext::new().unwrap();
    let (sa, ba) = to_scalar::<C>(a);
    let (sb, bb) = to_scalar::<C>(b);
    let mut want = BigNum::new().unwrap();
    want.mod_mul(&ba, &bb, &n, &mut ctx).unwrap();
    assert_eq!(scalar_bn(&sa.mul(&sb)), want, "{}: product", C::NAME);
    let mut neg = BigNum::new().unwrap();
    neg.mod_sub(&BigNum::new().unwrap(), &ba, &n, &mut ctx)
        .unwrap();
    assert_eq!(scalar_bn(&sa.neg()), neg, "{}: negation", C::NAME);
    if ba.num_bits() > 0 {
        let mut inv = BigNum::new().unwrap();
        inv.mod_inverse(&ba, &n, &mut ctx).unwrap();
        assert_eq!(scalar_bn(&sa.invert_vartime()), inv, "{}: inverse", C::NAME);
    } else {
        assert!(sa.invert_vartime().is_zero());
    }
}

fn edge_cases<C: Curve>() {
    let e = edges::<C>();
    for a in &e {
        for b in &e {
            check::<C>(a, b);
        }
    }
}

#[test]
fn edge_values_agree_with_openssl() {
    edge_cases::<K163>();
    edge_cases::<K233>();
    edge_cases::<K283>();
}

#[test]
fn tiny_order_exhaustive() {
    for a in 0..11u8 {
        for b in 0..11u8 {
            let (x, y) = (
                Scalar::<Tiny0>::from_be_bytes(&[a]).unwrap(),
                Scalar::from_be_bytes(&[b]).unwrap(),
            );
            assert_eq!(
                x.mul(&y).to_be_bytes(),
                vec![(u32::from(a) * u32::from(b) % 11) as u8]
            );
        }
        let x = Scalar::<Tiny0>::from_be_bytes(&[a]).unwrap();
        if a != 0 {
            assert_eq!(x.mul(&x.invert_vartime()).to_be_bytes(), vec![1]);
        }
    }
    assert!(Scalar::<Tiny0>::from_be_bytes(&[11]).is_none());
}

#[test]
fn decoding_rejects_and_reduces() {
    let n = order_bytes::<K163>();
    assert!(Scalar::<K163>::from_be_bytes(&n).is_none());
    assert!(Scalar::<K163>::from_be_bytes(&[0xff; 41]).is_none());
    // n + 5 reduces to 5; leading zeros are fine.
    let mut n5 = bn(&n);
    n5.add_word(5).unwrap();
    let mut padded = vec![0u8; 3];
    padded.extend(n5.to_vec());
    assert_eq!(
        Scalar::<K163>::reduce_be_bytes(&padded)
            .unwrap()
            .to_be_bytes()
            .last(),
        Some(&5)
    );
    // At most ⌈bitlen(n)/64⌉ words: 192 bits for K-163.
    assert!(Scalar::<K163>::reduce_be_bytes(&[0xff; 24]).is_some());
    assert!(Scalar::<K163>::reduce_be_bytes(&[0xff; 25]).is_none());
}

fn hash_check<C: Curve>(h: &[u8; 32]) {
    // SEC 1 §4.1.3 step 5 with OpenSSL: the leftmost bitlen(n) bits, then mod n.
    let n = bn(&order_bytes::<C>());
    let mut e = bn(h);
    if n.num_bits() < 256 {
        let mut t = BigNum::new().unwrap();
        t.rshift(&e, 256 - n.num_bits()).unwrap();
        e = t;
    }
    let mut ctx = BigNumContext::new().unwrap();
    let mut want = BigNum::new().unwrap();
    want.nnmod(&e, &n, &mut ctx).unwrap();
    assert_eq!(scalar_bn(&Scalar::<C>::from_hash(h)), want, "{}", C::NAME);
}

fn lifts_check<C: Curve>(r: &[u8]) {
    let (s, b) = to_scalar::<C>(r);
    let n = bn(&order_bytes::<C>());
    let m = <C::F as hopsig_koblitz::Field>::M;
    let bytes = m.div_ceil(8);
    let mut want = Vec::new();
    let mut x = b.to_owned().unwrap();
    while x.num_bits() <= m as i32 {
        want.push(x.to_vec_padded(bytes as i32).unwrap());
        x = &x + &n;
    }
    let got: Vec<_> = s.lifts_below(m as u32, bytes).collect();
    assert_eq!(got, want, "{}", C::NAME);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_values_agree_with_openssl(a in proptest::collection::vec(any::<u8>(), 1..40),
                                        b in proptest::collection::vec(any::<u8>(), 1..40)) {
        check::<K163>(&a, &b);
        check::<K233>(&a, &b);
        check::<K283>(&a, &b);
    }

    #[test]
    fn hash_to_scalar_agrees_with_openssl(h in any::<[u8; 32]>()) {
        hash_check::<K163>(&h);
        hash_check::<K233>(&h);
        hash_check::<K283>(&h);
    }

    #[test]
    fn lifts_are_every_value_below_2m(r in proptest::collection::vec(any::<u8>(), 1..36)) {
        lifts_check::<K163>(&r);
        lifts_check::<K233>(&r);
        lifts_check::<K283>(&r);
    }
}
