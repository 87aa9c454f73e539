//! Constant-time test (pre-fix version): secret scalars marked undefined, then k·G.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hopsig_koblitz::curve::{mul_base_ct, mul_ct, order_bytes, Affine, Curve, K163, K233, K283};
use hopsig_primitives::valgrind::{classify, declassify, running_on_valgrind};
use hopsig_schemes::bgr::{Bgr, BgrParams, BgrSigningKey};
use hopsig_schemes::bls::BglsSigningKey;
use hopsig_schemes::primitives::rsa::RsaSecretKey;
use hopsig_schemes::SequentialAggregate;

fn secret(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| (i as u8).wrapping_mul(37) ^ seed).collect()
}

fn comb<C: Curve>() {
    eprintln!("ctime: {} d·G (comb)", C::NAME);
    let n = order_bytes::<C>();
    let mut d = secret(n.len(), 0x5a);
    d[0] &= n[0] >> 1;
    let _ = C::generator_comb();
    classify(d.as_mut_slice());
    let mut q = mul_base_ct(C::generator_comb(), &d).to_affine();
    declassify(&mut q);
    eprintln!("ctime: {} k·P (ladder)", C::NAME);
    let g = Affine::<C>::generator();
    let mut p = mul_ct(&g, &d).to_affine();
    declassify(&mut p);
    assert_eq!(p, q);
}

fn main() {
    eprintln!("ctime: under valgrind: {}", running_on_valgrind());
    comb::<K163>();
    comb::<K233>();
    comb::<K283>();

    eprintln!("ctime: BGR sign (PRF seed secret)");
    let rsa = RsaSecretKey::from_pkcs8_pem(include_bytes!("../tests/data/rsa2048.pem")).unwrap();
    let mut seed = [7u8; 32];
    classify(&mut seed);
    let params = BgrParams::from_id("bgr-rsa2048").unwrap();
    let key = BgrSigningKey::from_parts(params, rsa, Some(seed)).unwrap();
    let mut agg = Bgr::new(params).sign(&key, b"m", None).unwrap();
    declassify(&mut agg);

    eprintln!("ctime: BLS sign");
    let mut sk = [0x11u8; 32];
    classify(&mut sk);
    let key = BglsSigningKey::from_bytes(&sk).unwrap();
    let mut sig = key.sign_one(b"m");
    declassify(&mut sig);
    eprintln!("ctime: done");
}
