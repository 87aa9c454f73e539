#![allow(missing_docs)]
use hopsig_koblitz::curve::*;
use hopsig_koblitz::tau::*;
use std::time::Instant;
fn t<R>(n: usize, mut f: impl FnMut() -> R) -> f64 {
    let s = Instant::now();
    for _ in 0..n {
        std::hint::black_box(f());
    }
    s.elapsed().as_nanos() as f64 / n as f64 / 1000.0
}
fn curve<C: Curve>() {
    let g = Affine::<C>::generator();
    let q = mul_ct(&g, &[0x5a; 16]).to_affine();
    let k = vec![0x35u8; (C::ORDER.len() / 2) - 1];
    let _ = (C::generator_table(), C::generator_tau_table());
    let bin = t(2000, || {
        let tq = OddTable::new(&q);
        multi_mul_tables_vartime(&[(&k[..], C::generator_table()), (&k[..], &tq)])
    });
    print!("{} binary {bin:.1} us |", C::NAME);
    for w in 3..=6 {
        let tt = t(2000, || TauTable::new(&q, w));
        let tau = t(2000, || {
            let tq = TauTable::new(&q, w);
            multi_mul_tau_vartime(&[(&k[..], C::generator_tau_table()), (&k[..], &tq)])
        });
        print!(" w{w}: {tau:.1} (table {tt:.1})");
    }
    println!();
}
fn main() {
    curve::<K163>();
    curve::<K233>();
    curve::<K283>();
}
