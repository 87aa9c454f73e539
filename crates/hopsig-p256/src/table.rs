//! The tables the kernel reads ([`crate::kernel`]): k·G for k = 1..=2^(W_G−1), built
//! once per process, and a public key's k·Q for k = 1..=2^(W_Q−1), built once per key
//! (router keys repeat: a few thousand ASes sign a whole table, issue 28). Entries are
//! affine, so the kernel adds them with mixed additions; one batch inversion (Montgomery's
//! trick) turns the Jacobian multiples affine.

use std::sync::OnceLock;

use crate::curve::{Affine, Jacobian};
use crate::field52::{batch_invert_vartime, Fe, P};
use crate::kernel::{AffineM52, GTable, QTable};

/// 1·T, 2·T, …, count·T in affine form, T ≠ O of prime order n > count (so no multiple
/// is O and the batch inversion cannot fail); `None` otherwise.
fn multiples(t: &Affine, count: usize) -> Option<Vec<AffineM52>> {
    let mut jac = Vec::with_capacity(count);
    let mut acc = t.to_jacobian();
    for _ in 0..count {
        jac.push(acc);
        acc = acc.add_affine(t);
    }
    let mut zs: Vec<Fe<P>> = jac.iter().map(|p| p.z).collect();
    batch_invert_vartime(&mut zs)?;
    Some(
        jac.iter()
            .zip(zs)
            .map(|(p, zi)| {
                let zi2 = zi.square();
                Affine {
                    x: p.x.mul(&zi2),
                    y: p.y.mul(&zi2).mul(&zi),
                }
                .to_m52()
            })
            .collect(),
    )
}

/// k·Q at index k − 1 for a checked public key Q; `None` only if Q is not a point of
/// order n (which a checked key always is).
pub(crate) fn q_table(q: &Affine) -> Option<Box<QTable>> {
    let points = multiples(q, 1 << (crate::kernel::W_Q - 1))?;
    Some(Box::new(QTable {
        points: points.try_into().ok()?,
    }))
}

/// The generator's table, built on first use.
pub(crate) fn g_table() -> &'static GTable {
    static TABLE: OnceLock<GTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut points = [AffineM52::default(); 1 << (crate::kernel::W_G - 1)];
        // G has order n, so every multiple is finite and the inversion succeeds; the
        // fallback loop (one inversion per entry) is never taken but keeps this total.
        match multiples(&Affine::generator(), points.len()) {
            Some(m) => points.copy_from_slice(&m),
            None => {
                let mut acc = Jacobian::INFINITY;
                for p in points.iter_mut() {
                    acc = acc.add_affine(&Affine::generator());
                    *p = acc.to_affine().map(Affine::to_m52).unwrap_or_default();
                }
            }
        }
        GTable { points }
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::curve::tests::{from_ref, ref_g, ref_mul, to_ref};
    use num_bigint::BigUint;

    #[test]
    fn g_table_holds_multiples_of_g() {
        let t = g_table();
        for (i, p) in t.points.iter().enumerate() {
            let expected = ref_mul(&BigUint::from(i + 1), &ref_g());
            assert_eq!(to_ref(Affine::from_m52(p)), expected, "{}·G", i + 1);
        }
    }

    #[test]
    fn q_table_holds_multiples_of_q() {
        for k in [1u64, 2, 0xdead_beef_cafe, u64::MAX] {
            let q_ref = ref_mul(&(BigUint::from(k) * 977u32 + 3u8), &ref_g());
            let q = from_ref(&q_ref).unwrap();
            let t = q_table(&q).unwrap();
            for (i, p) in t.points.iter().enumerate() {
                assert_eq!(
                    to_ref(Affine::from_m52(p)),
                    ref_mul(&BigUint::from(i + 1), &q_ref),
                    "{}·Q",
                    i + 1
                );
            }
        }
    }
}
