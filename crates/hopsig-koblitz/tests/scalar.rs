//! Arithmetic modulo the group order against OpenSSL's bignums (an independent
//! implementation), on random and edge values of every curve, and exhaustively on the
//! tiny curves' order 11: the public [`Scalar`] and the constant-time [`SecretScalar`].
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hopsig_koblitz::curve::{order_bytes, Curve, Tiny0, K163, K233, K283};
use hopsig_koblitz::scalar::{Scalar, SecretScalar};
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

/// x mod 2^bits (`BN_mask_bits` refuses a value already shorter than that).
fn keep_low_bits(x: &mut BigNum, bits: i32) {
    if x.num_bits() > bits {
        x.mask_bits(bits).unwrap();
    }
}

fn secret_bn<C: Curve>(s: &SecretScalar<C>) -> BigNum {
    bn(&s.to_be_bytes())
}

/// The constant-time arithmetic on secrets against OpenSSL: sum, difference, product,
/// inverse (Fermat), reduction of an m-bit x-coordinate, zero test, range check.
fn check_secret<C: Curve>(a: &[u8], b: &[u8], x: &[u8]) {
    let n = bn(&order_bytes::<C>());
    let mut ctx = BigNumContext::new().unwrap();
    let (_, ba) = to_scalar::<C>(a);
    let (_, bb) = to_scalar::<C>(b);
    let (sa, ok_a) = SecretScalar::<C>::from_be_bytes(&ba.to_vec());
    let (sb, ok_b) = SecretScalar::<C>::from_be_bytes(&bb.to_vec_padded(40).unwrap());
    assert!(bool::from(ok_a & ok_b));
    let mut want = BigNum::new().unwrap();
    want.mod_add(&ba, &bb, &n, &mut ctx).unwrap();
    assert_eq!(secret_bn(&sa.add(&sb)), want, "{}: sum", C::NAME);
    want.mod_sub(&ba, &bb, &n, &mut ctx).unwrap();
    assert_eq!(secret_bn(&sa.sub(&sb)), want, "{}: difference", C::NAME);
    want.mod_mul(&ba, &bb, &n, &mut ctx).unwrap();
    assert_eq!(secret_bn(&sa.mul(&sb)), want, "{}: product", C::NAME);
    if ba.num_bits() > 0 {
        want.mod_inverse(&ba, &n, &mut ctx).unwrap();
        assert_eq!(secret_bn(&sa.invert()), want, "{}: inverse", C::NAME);
    } else {
        assert!(bool::from(sa.invert().is_zero()));
    }
    assert_eq!(bool::from(sa.is_zero()), ba.num_bits() == 0);
    // An x-coordinate below 2^m, reduced mod n.
    let m = <C::F as hopsig_koblitz::Field>::M;
    let mut bx = bn(x);
    keep_low_bits(&mut bx, m as i32);
    let xb = bx.to_vec_padded(m.div_ceil(8) as i32).unwrap();
    want.nnmod(&bx, &n, &mut ctx).unwrap();
    let reduced = SecretScalar::<C>::reduce_be_bytes(&xb).unwrap();
    assert_eq!(secret_bn(&reduced), want, "{}: x mod n", C::NAME);
    // Values at and above n are refused; public values carry over unchanged.
    let mut over = n.to_owned().unwrap();
    over.checked_add(&n, &ba).unwrap();
    let (zero, ok) = SecretScalar::<C>::from_be_bytes(&over.to_vec());
    assert!(!bool::from(ok) && bool::from(zero.is_zero()));
    assert!(!bool::from(SecretScalar::<C>::from_be_bytes(&[1; 41]).1));
    let (pa, _) = to_scalar::<C>(a);
    assert_eq!(secret_bn(&SecretScalar::from(&pa)), ba);
}

fn edge_cases<C: Curve>() {
    let e = edges::<C>();
    for a in &e {
        for b in &e {
            check::<C>(a, b);
            check_secret::<C>(a, b, b);
        }
    }
    // x-coordinates at the top of the field.
    check_secret::<C>(&[1], &[2], &[0xff; 36]);
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
fn tiny_order_exhaustive_secret() {
    let v = |s: &SecretScalar<Tiny0>| s.to_be_bytes()[0];
    for a in 0..11u8 {
        let x = SecretScalar::<Tiny0>::from_be_bytes(&[a]).0;
        for b in 0..11u8 {
            let y = SecretScalar::<Tiny0>::from_be_bytes(&[b]).0;
            assert_eq!(v(&x.add(&y)), (a + b) % 11);
            assert_eq!(v(&x.sub(&y)), (11 + a - b) % 11);
            assert_eq!(v(&x.mul(&y)), a * b % 11);
        }
        if a != 0 {
            assert_eq!(v(&x.mul(&x.invert())), 1, "{a}⁻¹");
        }
        assert_eq!(bool::from(x.is_zero()), a == 0);
    }
    // Every m-bit x (m = 5) reduces; every byte at or above 11 is refused.
    for x in 0..32u8 {
        assert_eq!(
            v(&SecretScalar::<Tiny0>::reduce_be_bytes(&[x]).unwrap()),
            x % 11
        );
    }
    for a in 0..=255u8 {
        let (x, ok) = SecretScalar::<Tiny0>::from_be_bytes(&[a]);
        assert_eq!(bool::from(ok), a < 11);
        assert_eq!(v(&x), if a < 11 { a } else { 0 });
    }
    // Rejection sampling: candidates keep bitlen(11) = 4 bits and accept 1..=10.
    for low in 0..=255u8 {
        let mut random = [0xa5u8; 40];
        random[7] = low;
        let (c, ok) = SecretScalar::<Tiny0>::from_candidate(&random);
        let kept = low & 15;
        assert_eq!(bool::from(ok), (1..11).contains(&kept), "{low}");
        assert_eq!(v(&c), if bool::from(ok) { kept } else { 0 });
    }
}

#[test]
fn candidates_are_the_leading_bits_below_n() {
    fn check<C: Curve>() {
        let n = bn(&order_bytes::<C>());
        let words = (n.num_bits() as usize).div_ceil(64);
        let mut accepted = 0;
        for round in 0..64u8 {
            let mut random = [0u8; 40];
            openssl::rand::rand_bytes(&mut random).unwrap();
            if round == 0 {
                random = [0; 40];
            }
            // The value: the first 8·words bytes, big-endian, masked to bitlen(n) bits.
            let mut want = bn(&random[..8 * words]);
            keep_low_bits(&mut want, n.num_bits());
            let (c, accept) = SecretScalar::<C>::from_candidate(&random);
            let ok = want.num_bits() > 0 && want < n;
            assert_eq!(bool::from(accept), ok, "{}", C::NAME);
            if ok {
                accepted += 1;
                assert_eq!(secret_bn(&c), want);
            }
        }
        assert!(accepted > 16, "{}: {accepted} of 64 accepted", C::NAME);
    }
    check::<K163>();
    check::<K233>();
    check::<K283>();
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
    fn random_secret_values_agree_with_openssl(a in proptest::collection::vec(any::<u8>(), 1..40),
                                               b in proptest::collection::vec(any::<u8>(), 1..40),
                                               x in any::<[u8; 36]>()) {
        check_secret::<K163>(&a, &b, &x);
        check_secret::<K233>(&a, &b, &x);
        check_secret::<K283>(&a, &b, &x);
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
