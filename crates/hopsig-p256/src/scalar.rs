//! From (r, s, e) to the kernel's digits: SEC 1 v2 §4.1.4 steps 1 and 4–5 (FIPS 186-5
//! §6.4.2 steps 2–6) for a whole batch, with one inversion mod n for all of it.
//!
//! * step 1: r, s ∈ [1, n − 1], else the signature is invalid;
//! * e: the 256-bit SHA-256 digest as an integer (P-256's n has 256 bits, so all of it
//!   is used, FIPS 186-5 §6.4.2 step 3), reduced mod n;
//! * step 4–5: w = s⁻¹ mod n, u1 = e·w, u2 = r·w — every s of the batch inverted at once
//!   by Montgomery's trick ([`batch_invert_vartime`]);
//! * the kernel's signed windows ([`booth_digits`]).

use crate::field52::{batch_invert_vartime, Fe, N};
use crate::kernel::{D_G, D_Q, W_G, W_Q};

/// One item's scalars, ready for the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Scalars {
    /// u1 = e·s⁻¹ mod n in signed windows of W_G bits.
    pub u1: [i8; D_G],
    /// u2 = r·s⁻¹ mod n in signed windows of W_Q bits.
    pub u2: [i8; D_Q],
}

/// Signed-window ("Booth") digits of the 256-bit value `v` (radix-2^52 limbs, little
/// endian), least significant first: d_j = b_{wj−1} + Σ_{k<w−1} b_{wj+k}·2^k −
/// b_{wj+w−1}·2^(w−1) with b_{−1} = 0, so d_j ∈ [−2^(w−1), 2^(w−1)] and
/// v = Σ d_j·2^(w·j) (each digit's top bit is carried by the next digit's b_{wj−1}).
/// `D` digits cover 256 bits when D·w ≥ 257.
pub(crate) fn booth_digits<const D: usize>(v: &[u64; 5], w: usize) -> [i8; D] {
    let bit = |i: isize| -> i16 {
        if i < 0 {
            return 0;
        }
        let i = i as usize;
        v.get(i / 52).map_or(0, |l| (l >> (i % 52) & 1) as i16)
    };
    let mut out = [0i8; D];
    for (j, d) in out.iter_mut().enumerate() {
        let base = (w * j) as isize;
        let mut value = bit(base - 1);
        for k in 0..w as isize - 1 {
            value += bit(base + k) << k;
        }
        value -= bit(base + w as isize - 1) << (w - 1);
        // |value| ≤ 2^(w−1) ≤ 64 for w ≤ 7: it fits.
        *d = value as i8;
    }
    out
}

/// SEC 1 §4.1.4 step 1: r as an element of [1, n − 1], or `None`.
fn in_range(x: &[u8; 32]) -> Option<Fe<N>> {
    Fe::<N>::from_bytes(x).filter(|v| !v.is_zero())
}

/// The kernel's scalars for each (digest, r, s), `None` where r or s is out of range
/// (the item is invalid). One inversion mod n for the whole batch.
pub(crate) fn prepare_vartime(items: &[([u8; 32], [u8; 32], [u8; 32])]) -> Vec<Option<Scalars>> {
    // (e, r, s) past step 1.
    let checked: Vec<Option<[Fe<N>; 3]>> = items
        .iter()
        .map(|(e, r, s)| Some([Fe::<N>::from_bytes_reduced(e), in_range(r)?, in_range(s)?]))
        .collect();
    let mut ws: Vec<Fe<N>> = checked.iter().flatten().map(|[_, _, s]| *s).collect();
    // Every s is non-zero, so the inversion succeeds; if it did not, nothing verifies.
    if batch_invert_vartime(&mut ws).is_none() {
        return vec![None; items.len()];
    }
    let mut ws = ws.into_iter();
    checked
        .into_iter()
        .map(|c| {
            let [e, r, _] = c?;
            let w = ws.next()?;
            Some(Scalars {
                u1: booth_digits(&e.mul(&w).canonical_limbs(), W_G),
                u2: booth_digits(&r.mul(&w).canonical_limbs(), W_Q),
            })
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::field52::{limbs_from_bytes, limbs_to_bytes, Modulus};
    use num_bigint::{BigInt, BigUint};
    use proptest::prelude::*;

    fn recombine(digits: &[i8], w: usize) -> BigInt {
        digits
            .iter()
            .enumerate()
            .map(|(j, &d)| BigInt::from(d) << (w * j))
            .sum()
    }

    fn check(bytes: &[u8; 32]) {
        let v = BigInt::from(BigUint::from_bytes_be(bytes));
        let limbs = limbs_from_bytes(bytes);
        let g: [i8; D_G] = booth_digits(&limbs, W_G);
        let q: [i8; D_Q] = booth_digits(&limbs, W_Q);
        assert_eq!(recombine(&g, W_G), v);
        assert_eq!(recombine(&q, W_Q), v);
        assert!(g.iter().all(|d| d.unsigned_abs() <= 1 << (W_G - 1)));
        assert!(q.iter().all(|d| d.unsigned_abs() <= 1 << (W_Q - 1)));
    }

    #[test]
    fn booth_edges() {
        let n = limbs_to_bytes(&N::M);
        let mut n1 = n;
        n1[31] -= 1;
        let mut top = [0u8; 32];
        top[0] = 0x80;
        for v in [[0u8; 32], [0xff; 32], n, n1, top, [0x55; 32], [0xaa; 32]] {
            check(&v);
        }
        // The largest digits occur: 2^(w−1) at the lowest window and −2^(w−1).
        let mut v = [0u8; 32];
        v[31] = 0x40;
        let g: [i8; D_G] = booth_digits(&limbs_from_bytes(&v), W_G);
        assert_eq!(g[0], -64);
        assert_eq!(g[1], 1);
        v[31] = 0x3f;
        let g: [i8; D_G] = booth_digits(&limbs_from_bytes(&v), W_G);
        assert_eq!(g[0], 63);
    }

    #[test]
    fn range_checks_and_scalars() {
        let n = limbs_to_bytes(&N::M);
        let mut n1 = n;
        n1[31] -= 1;
        let mut one = [0u8; 32];
        one[31] = 1;
        let zero = [0u8; 32];
        let items = [
            (one, one, one),
            (one, zero, one),
            (one, one, zero),
            (one, n, one),
            (one, one, n),
            (one, [0xff; 32], one),
            (n, n1, n1),
        ];
        let out = prepare_vartime(&items);
        let valid: Vec<bool> = out.iter().map(Option::is_some).collect();
        assert_eq!(valid, [true, false, false, false, false, false, true]);
        // e = r = s = 1: u1 = u2 = 1.
        let first = out[0].unwrap();
        assert_eq!(recombine(&first.u1, W_G), BigInt::from(1));
        assert_eq!(recombine(&first.u2, W_Q), BigInt::from(1));
        // e = n ≡ 0, r = s = n − 1: u1 = 0, u2 = 1.
        let last = out[6].unwrap();
        assert!(last.u1.iter().all(|&d| d == 0));
        assert_eq!(recombine(&last.u2, W_Q), BigInt::from(1));
    }

    proptest! {
        #[test]
        fn booth_recombines(v in any::<[u8; 32]>()) {
            check(&v);
        }

        #[test]
        fn scalars_against_bigint(e in any::<[u8; 32]>(), r in any::<[u8; 32]>(), s in any::<[u8; 32]>()) {
            let nb = BigUint::from_bytes_be(&limbs_to_bytes(&N::M));
            let (eb, rb, sb) = (BigUint::from_bytes_be(&e), BigUint::from_bytes_be(&r), BigUint::from_bytes_be(&s));
            let out = prepare_vartime(&[(e, r, s)])[0];
            let ok = rb > BigUint::from(0u8) && rb < nb && sb > BigUint::from(0u8) && sb < nb;
            prop_assert_eq!(out.is_some(), ok);
            if let Some(sc) = out {
                let w = sb.modpow(&(&nb - 2u8), &nb);
                let u1 = (eb % &nb) * &w % &nb;
                let u2 = rb * &w % &nb;
                prop_assert_eq!(recombine(&sc.u1, W_G), BigInt::from(u1));
                prop_assert_eq!(recombine(&sc.u2, W_Q), BigInt::from(u2));
            }
        }
    }
}
