//! Every edge case of P-256 ECDSA verification (SEC 1 v2 §4.1.4) through the batch
//! seam and hopsig-p256 directly, against OpenSSL (issue 28): r or s = 0, = n, > n,
//! = p − 1 and ≥ 2^256; x(R) ≥ n, where r = x(R) − n verifies (step 7 compares x(R)
//! mod n); the point at infinity as the multi-scalar result (u1·G = −u2·Q); a doubling
//! in the final sum (u1·G = u2·Q); keys Q = ±G; digests ≡ 0 mod n; and keys that are not
//! canonical, not uncompressed or not on the curve, refused where keys are parsed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod p256_common;

use hopsig_schemes::batch::Signed;
use hopsig_schemes::concat::{BaseSignature, EcdsaP256};
use openssl::bn::{BigNum, BigNumContext, BigNumRef};
use openssl::ec::EcPoint;
use openssl::ecdsa::EcdsaSig;
use p256_common::*;

/// (message, signature, key, expected verdict, what)
type Case = (Vec<u8>, Vec<u8>, usize, bool, String);

fn big(v: u32) -> BigNum {
    BigNum::from_u32(v).unwrap()
}

/// Checks `cases` (over `keys`) with every backend, as one batch and each alone,
/// against the reference and the expected verdicts.
fn check_cases(keys: &[hopsig_schemes::concat::P256PublicKey], cases: &[Case]) {
    let items: Vec<Signed<'_, EcdsaP256>> = cases
        .iter()
        .map(|(m, s, k, _, _)| Signed {
            key: &keys[*k],
            message: m,
            signature: s,
        })
        .collect();
    let verdicts = check_all(&items);
    for ((_, _, _, want, what), got) in cases.iter().zip(&verdicts) {
        assert_eq!(got, want, "OpenSSL on {what}");
    }
    for item in &items {
        check_all(std::slice::from_ref(item));
        check_all(&[*item; 9]);
    }
}

#[test]
fn scalars_out_of_range_do_not_verify() {
    let (sk, pk) = key_pair(&bn("5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"));
    let message = b"edge".to_vec();
    let sig = EcdsaSig::from_der(&EcdsaP256::sign(&sk, &message).unwrap()).unwrap();
    let (r, s) = (sig.r().to_owned().unwrap(), sig.s().to_owned().unwrap());
    let n = n();
    let p = p();
    let one = big(1);
    let top = bn(&"ff".repeat(32));
    let values: Vec<(&str, BigNum)> = vec![
        ("0", BigNum::new().unwrap()),
        ("n", n.to_owned().unwrap()),
        ("n + 1", &n + &one),
        ("p - 1", &p - &one),
        ("p", p.to_owned().unwrap()),
        ("2^256 - 1", top.to_owned().unwrap()),
        ("2^256", &top + &one),
        ("-1", {
            let mut v = big(1);
            v.set_negative(true);
            v
        }),
        ("n - 1", &n - &one),
        ("1", big(1)),
    ];
    let mut cases: Vec<Case> = vec![(message.clone(), der(&r, &s), 0, true, "valid".into())];
    // (r, n − s) verifies too: ECDSA signatures are malleable and OpenSSL takes high s.
    cases.push((message.clone(), der(&r, &(&n - &s)), 0, true, "s -> n - s".into()));
    for (name, v) in &values {
        cases.push((message.clone(), der(v, &s), 0, false, format!("r = {name}")));
        cases.push((message.clone(), der(&r, v), 0, false, format!("s = {name}")));
    }
    // r + n and s + n: the same residues, out of range.
    cases.push((message.clone(), der(&(&r + &n), &s), 0, false, "r + n".into()));
    cases.push((message.clone(), der(&r, &(&s + &n)), 0, false, "s + n".into()));
    check_cases(&[pk], &cases);
}

#[test]
fn x_of_r_at_or_above_n_verifies_as_x_minus_n() {
    // A point R with n ≤ x(R) < p: the first x ≥ n with a point on the curve.
    let mut ctx = BigNumContext::new().unwrap();
    let mut x = n();
    let point = loop {
        let mut encoded = vec![0x02];
        encoded.extend_from_slice(&x.to_vec_padded(32).unwrap());
        if let Ok(point) = EcPoint::from_bytes(group(), &encoded, &mut ctx) {
            break point;
        }
        x = &x + &big(1);
    };
    assert!(x_of(&point) >= n() && x_of(&point) < p());
    // Verification computes u1·G + u2·Q with u1 = e/s, u2 = r/s; choosing Q =
    // (R − u1·G)/u2 makes that sum R without anyone knowing its discrete logarithm.
    let message = b"x(R) >= n".to_vec();
    let e = mod_n(&digest_int(&message));
    let s = bn("1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c5b6a7988");
    let r = &x_of(&point) - &n();
    let w = inv_n(&s);
    let (u1, u2) = (mul_n(&e, &w), mul_n(&r, &w));
    let mut minus_u1g = mul_g(&u1);
    minus_u1g.invert2(group(), &mut ctx).unwrap();
    let q = mul(&add(&point, &minus_u1g), &inv_n(&u2));
    let pk = public_key(&q);
    let cases: Vec<Case> = vec![
        (message.clone(), der(&r, &s), 0, true, "r = x(R) - n".into()),
        // x(R) itself is ≥ n: out of range.
        (message.clone(), der(&x_of(&point), &s), 0, false, "r = x(R)".into()),
        (message.clone(), der(&(&r + &big(1)), &s), 0, false, "r = x(R) - n + 1".into()),
    ];
    check_cases(&[pk], &cases);
}

/// The signature (r, s) and key making u1·G and u2·Q equal (`same`) or opposite, from
/// nonce k, for `message`.
fn colliding(message: &[u8], k: &BigNumRef, same: bool) -> (Vec<u8>, hopsig_schemes::concat::P256PublicKey) {
    let e = mod_n(&digest_int(message));
    let r = mod_n(&x_of(&mul_g(k)));
    if same {
        // d = e/r makes u2·Q = (r·d/s)·G = (e/s)·G = u1·G; s = 2e/k makes the sum k·G.
        let d = mul_n(&e, &inv_n(&r));
        let s = mul_n(&inv_n(k), &mod_n(&(&e + &e)));
        (der(&r, &s), key_pair(&d).1)
    } else {
        // d = −e/r: u1·G + u2·Q = ((e + r·d)/s)·G = O, whatever s.
        let d = neg_n(&mul_n(&e, &inv_n(&r)));
        (der(&r, &k.to_owned().unwrap()), key_pair(&d).1)
    }
}

#[test]
fn infinity_and_doubling_in_the_final_sum() {
    let mut keys = Vec::new();
    let mut cases: Vec<Case> = Vec::new();
    for i in 0..6u32 {
        let message = format!("collision {i}").into_bytes();
        let k = bn(&format!("{:064x}", 0xabcdef0123u64 + u64::from(i) * 0x1_0000_0001));
        for same in [true, false] {
            let (sig, pk) = colliding(&message, &k, same);
            keys.push(pk);
            let what = if same { "u1·G = u2·Q" } else { "u1·G = −u2·Q (R = O)" };
            cases.push((message.clone(), sig, keys.len() - 1, same, format!("{what} #{i}")));
        }
    }
    check_cases(&keys, &cases);
}

#[test]
fn keys_plus_and_minus_g() {
    // Q = G and Q = −G: the key's table is the generator's (or its negation).
    let keys = fixed_keys();
    let pks: Vec<_> = keys.iter().map(|k| k.1.clone()).collect();
    let mut cases: Vec<Case> = Vec::new();
    for (i, (_, _, d)) in keys.iter().enumerate() {
        for j in 0..4u32 {
            let message = format!("key {i} message {j}").into_bytes();
            let e = digest_int(&message);
            let (r, s) = sign_with_nonce(d, &e, &test_nonce(d, &e)).unwrap();
            cases.push((message.clone(), der(&r, &s), i, true, format!("key {i} #{j}")));
            cases.push((message, der(&r, &s), (i + 1) % 4, false, format!("key {i} #{j} other key")));
        }
    }
    check_cases(&pks, &cases);
}

/// hopsig-p256 directly on a digest, against OpenSSL's verification of the digest.
fn digest_verdicts(d: &BigNumRef, digest: [u8; 32], k: &BigNumRef) {
    let (sk, pk) = key_pair(d);
    let e = BigNum::from_slice(&digest).unwrap();
    let (r, s) = sign_with_nonce(d, &e, k).unwrap();
    let public = openssl::ec::EcKey::from_public_key(group(), sk.public_key()).unwrap();
    let variants = [
        (r.to_owned().unwrap(), s.to_owned().unwrap()),
        (&r + &big(1), s.to_owned().unwrap()),
        (r.to_owned().unwrap(), neg_n(&s)),
    ];
    for (r, s) in variants {
        let sig = EcdsaSig::from_private_components(r.to_owned().unwrap(), s.to_owned().unwrap()).unwrap();
        let want = sig.verify(&digest, &public).unwrap_or(false);
        let item = hopsig_p256::Item {
            key: pk.fast(),
            digest,
            r: r.to_vec_padded(32).unwrap().try_into().unwrap(),
            s: s.to_vec_padded(32).unwrap().try_into().unwrap(),
        };
        assert_eq!(hopsig_p256::verify_vartime(&item), want, "portable, digest {}", hex_of(&digest));
        for backend in [hopsig_p256::Backend::Avx512Ifma, hopsig_p256::Backend::Portable] {
            for len in [1, 8, 9] {
                assert_eq!(
                    hopsig_p256::verify_batch_with_vartime(backend, &vec![item; len]),
                    vec![want; len],
                    "{backend:?}, digest {}",
                    hex_of(&digest)
                );
            }
        }
    }
}

#[test]
fn digests_congruent_to_zero_and_extreme() {
    // e = 0 and e = n make u1 = 0 (R = u2·Q alone); e = 2^256 − 1 is reduced mod n;
    // e = r makes u1·G = u2·Q under Q = G.
    let n_octets: [u8; 32] = n().to_vec_padded(32).unwrap().try_into().unwrap();
    let d = bn("3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c");
    let k = bn("77777777777777777777777777777777777777777777777777777777777777aa");
    for digest in [[0; 32], n_octets, [0xff; 32], {
        let mut one = [0; 32];
        one[31] = 1;
        one
    }] {
        digest_verdicts(&d, digest, &k);
    }
    // Q = G and e = r: u1 = u2.
    let one = big(1);
    let r = mod_n(&x_of(&mul_g(&k)));
    digest_verdicts(&one, r.to_vec_padded(32).unwrap().try_into().unwrap(), &k);
}

/// The SubjectPublicKeyInfo of a P-256 key with `point` as its subjectPublicKey
/// (RFC 5480 §2.2: id-ecPublicKey, secp256r1), DER.
fn spki_with_point(point: &[u8]) -> Vec<u8> {
    let algorithm = hex_decode("301306072a8648ce3d020106082a8648ce3d030107");
    let mut bits = vec![0x03, (point.len() + 1) as u8, 0x00];
    bits.extend_from_slice(point);
    let mut body = algorithm;
    body.extend_from_slice(&bits);
    let mut der = vec![0x30, body.len() as u8];
    der.extend_from_slice(&body);
    der
}

fn hex_decode(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn keys_not_canonical_or_off_the_curve_are_refused() {
    use hopsig_p256::{KeyError, PublicKey};
    let mut ctx = BigNumContext::new().unwrap();
    let q = mul_g(&bn("0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"));
    let good = sec1(&q);
    // The canonical encoding is accepted by both readers, and agrees.
    let pk = EcdsaP256::public_from_der(&spki_with_point(&good)).unwrap();
    assert_eq!(pk.to_sec1().to_vec(), good);
    assert_eq!(PublicKey::from_sec1(&good).unwrap().to_sec1().to_vec(), good);
    let compressed = q
        .to_bytes(group(), openssl::ec::PointConversionForm::COMPRESSED, &mut ctx)
        .unwrap();
    let hybrid = q
        .to_bytes(group(), openssl::ec::PointConversionForm::HYBRID, &mut ctx)
        .unwrap();
    let mut off_curve = good.clone();
    off_curve[64] ^= 1;
    // A point with a small x written with x + p (< 2^256): the same point, non-canonical.
    let mut x = BigNum::new().unwrap();
    let small = loop {
        let mut encoded = vec![0x02];
        encoded.extend_from_slice(&x.to_vec_padded(32).unwrap());
        if let Ok(point) = EcPoint::from_bytes(group(), &encoded, &mut ctx) {
            break point;
        }
        x = &x + &big(1);
    };
    let mut x_plus_p = vec![0x04];
    x_plus_p.extend_from_slice(&(&x + &p()).to_vec_padded(32).unwrap());
    x_plus_p.extend_from_slice(&sec1(&small)[33..]);
    let mut y_is_p = good.clone();
    y_is_p[33..].copy_from_slice(&p().to_vec_padded(32).unwrap());
    let mut all_ones = vec![0x04];
    all_ones.extend_from_slice(&[0xff; 64]);
    let mut wrong_form = good.clone();
    wrong_form[0] = 0x05;
    let refused: [(&str, &[u8], KeyError); 8] = [
        ("compressed", &compressed, KeyError::Length(33)),
        ("hybrid", &hybrid, KeyError::Form(hybrid[0])),
        ("off the curve", &off_curve, KeyError::NotOnCurve),
        ("x + p", &x_plus_p, KeyError::CoordinateRange),
        ("y = p", &y_is_p, KeyError::CoordinateRange),
        ("all ones", &all_ones, KeyError::CoordinateRange),
        ("form 0x05", &wrong_form, KeyError::Form(5)),
        ("infinity", &[0x00], KeyError::Length(1)),
    ];
    for (what, point, error) in refused {
        assert_eq!(PublicKey::from_sec1(point).err(), Some(error), "hopsig-p256: {what}");
        assert!(
            EcdsaP256::public_from_der(&spki_with_point(point)).is_err(),
            "SPKI: {what}"
        );
        // OpenSSL refuses the point too (or, compressed and hybrid, reads it but the
        // scheme refuses the non-canonical SPKI): the refusals agree.
        let openssl_reads = EcPoint::from_bytes(group(), point, &mut ctx).is_ok();
        assert_eq!(
            openssl_reads,
            matches!(what, "compressed" | "hybrid"),
            "OpenSSL on {what}"
        );
    }
}
