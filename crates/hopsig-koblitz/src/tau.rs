//! τ-adic scalar multiplication on Koblitz curves, for public scalars (verification).
//!
//! On a Koblitz curve the Frobenius map τ(x, y) = (x², y²) satisfies
//! τ² − μτ + 2 = 0 with μ = (−1)^(1−a) (003 §II-A), so an integer k acts on points as
//! an element of the ring Z[τ], and k·P can be computed from a τ-adic expansion
//! k = Σ d_i τ^i with Frobenius maps (three squarings in López–Dahab coordinates)
//! where the binary method doubles. The algorithms are Solinas's ("Efficient
//! arithmetic on Koblitz curves", Designs, Codes and Cryptography 19, 2000), in the
//! form of Hankerson–Menezes–Vanstone, *Guide to Elliptic Curve Cryptography*:
//!
//! 1. **Partial reduction** (Guide Alg. 3.65/3.66, Solinas §5): δ = (τ^m − 1)/(τ − 1)
//!    annihilates the subgroup of order n (N(δ) = n), so k may be replaced by
//!    ρ = k − qδ with q the nearest lattice point to k/δ (Solinas's rounding, Guide
//!    Alg. 3.62). ρ = r0 + r1·τ has N(ρ) ≈ n, halving the coefficients' length and
//!    keeping the expansion about m digits long instead of 2m.
//! 2. **Width-w τNAF** (Guide Alg. 3.69/3.70, Solinas §6): digits 0 or ±α_u for odd
//!    u < 2^(w−1), where α_u ≡ u (mod τ^w) is u's smallest-norm residue, read off
//!    through the isomorphism Z[τ]/(τ^w) ≅ Z/2^w that maps τ to t_w.
//! 3. **Interleaving**: several expansions share one chain of Frobenius maps, each
//!    adding its precomputed α_u·P_i where its digit is nonzero ([`multi_mul_tau_vartime`]).
//!
//! The quotient k/δ = k·(s0 + s1·τ)/n (s0 + s1·τ is δ's conjugate) is computed in
//! fixed point with constants ⌈s_i·2^K/n⌋ precomputed once, K = m + 32, instead of
//! Solinas's approximate division with V_m; any q gives a correct ρ = k − qδ, and the
//! 2^−32-accurate quotient only affects which of two nearly equidistant lattice points
//! is chosen. Everything here is variable time: it is for public scalars only.

use crate::curve::{batch_to_affine_vartime, Affine, Curve, Point};
use crate::field::Field;
use crate::zint::Int;

/// Limbs for the partial reduction (k·c_i needs about 1.5m + 34 bits: 460 for K-283).
type Wide = Int<8>;
/// Limbs for ρ's coefficients during recoding (about m/2 + 3 bits: 145 for K-283).
type Narrow = Int<3>;

/// Coefficients of at most this many bits go through the τNAF loop as `i128`: one step
/// at most adds a 16-bit α and takes r1 + r0/2, so they stay below 2^127.
const I128_BITS: usize = 120;

/// The integer operations of one τNAF step, for [`Narrow`] and `i128`.
trait Coef: Copy {
    fn is_odd(&self) -> bool;
    /// The value mod 2^64.
    fn low(&self) -> u64;
    fn add_i64(&self, v: i64) -> Self;
    /// self/2 for even self.
    fn half(&self) -> Self;
    fn add(&self, o: &Self) -> Self;
    fn sub(&self, o: &Self) -> Self;
    fn neg(&self) -> Self;
}

impl Coef for Narrow {
    fn is_odd(&self) -> bool {
        Int::is_odd(self)
    }
    fn low(&self) -> u64 {
        Int::low(self)
    }
    fn add_i64(&self, v: i64) -> Self {
        Int::add_i64(self, v)
    }
    fn half(&self) -> Self {
        self.sar(1)
    }
    fn add(&self, o: &Self) -> Self {
        Int::add(self, o)
    }
    fn sub(&self, o: &Self) -> Self {
        Int::sub(self, o)
    }
    fn neg(&self) -> Self {
        Int::neg(self)
    }
}

impl Coef for i128 {
    fn is_odd(&self) -> bool {
        self & 1 == 1
    }
    fn low(&self) -> u64 {
        *self as u64
    }
    fn add_i64(&self, v: i64) -> Self {
        self + i128::from(v)
    }
    fn half(&self) -> Self {
        self >> 1
    }
    fn add(&self, o: &Self) -> Self {
        self + o
    }
    fn sub(&self, o: &Self) -> Self {
        self - o
    }
    fn neg(&self) -> Self {
        -self
    }
}

/// Fraction bits of the fixed-point quotient beyond m.
const EXTRA: usize = 32;
/// Fraction bits kept for the rounding decisions.
const FRAC: u32 = 32;
/// Widest τNAF window with precomputed digit constants.
pub const MAX_WIDTH: u32 = 12;
/// Window width for a point's one-off table (a public key, a certificate point): at
/// w = 4 the 3 extra points cost less than the additions they save; w = 3 and w = 5
/// measured slower on all three NIST curves (docs/BENCHMARKS.md).
pub const POINT_WIDTH: u32 = 4;
/// Window width for a long-lived point whose table is built once and kept (the
/// generator, a TTP's key): 2^(w−2) = 1024 affine points (about 90 KB, 1–2 ms to
/// build), one nonzero digit per w + 1 = 13 positions on average. On K-163 a
/// verification took 17.7 µs at w = 8, 17.2 at w = 12 and 16.7 at w = 14, whose
/// 360 KB tables no longer fit a core's L2 next to each other.
pub const FIXED_WIDTH: u32 = MAX_WIDTH;

/// The τ-adic constants of one curve, derived once from m, a and n.
#[derive(Debug)]
pub struct Tau {
    m: usize,
    mu: i64,
    /// δ = d0 + d1·τ; s0 = d0 + μ·d1 and s1 = −d1 (δ's conjugate is s0 + s1·τ).
    d0: Wide,
    s0: Wide,
    s1: Wide,
    /// ⌈s_i · 2^K / n⌋.
    c0: Wide,
    c1: Wide,
    /// K = m + EXTRA.
    shift: usize,
    /// Per width w = 2..=MAX_WIDTH: t_w and the digit constants α_u = (β_u, γ_u).
    widths: Vec<Digits>,
}

/// The digit set of one window width.
#[derive(Debug, Clone)]
struct Digits {
    /// τ's image in Z/2^w.
    t_w: u64,
    /// α_u = β_u + γ_u·τ for u = 1, 3, …, 2^(w−1) − 1.
    alphas: Vec<(i64, i64)>,
    /// The plain τNAF (digits 0, ±1) of each α_u, from which [`TauTable::new_vartime`]
    /// evaluates α_u·P; filled in by [`Tau::new`].
    units: Vec<Vec<i16>>,
}

/// Solinas's rounding in Z[τ] (Guide Alg. 3.62): given λ = λ0 + λ1·τ as nearest
/// integers f_i and remainders η_i = λ_i − f_i ∈ [−½, ½) (in units of 2^−FRAC),
/// returns the corrections (h0, h1) such that q = (f0 + h0) + (f1 + h1)·τ is the
/// element of Z[τ] nearest λ in the norm.
fn round_corrections(e0: i64, e1: i64, mu: i64) -> (i64, i64) {
    let one = 1i64 << FRAC;
    let eta = 2 * e0 + mu * e1;
    let check1 = e0 - 3 * mu * e1;
    let check2 = e0 + 4 * mu * e1;
    let (mut h0, mut h1) = (0, 0);
    if eta >= one {
        if check1 < -one {
            h1 = mu;
        } else {
            h0 = 1;
        }
    } else if check2 >= 2 * one {
        h1 = mu;
    }
    if eta < -one {
        if check1 >= one {
            h1 = -mu;
        } else {
            h0 = -1;
        }
    } else if check2 < -2 * one {
        h1 = -mu;
    }
    (h0, h1)
}

/// The Lucas sequence U_0 = 0, U_1 = 1, U_(k+1) = μ·U_k − 2·U_(k−1), up to U_`last`:
/// τ^k = U_k·τ − 2·U_(k−1) (Guide eq. 3.33).
fn lucas<const L: usize>(mu: i64, last: usize) -> Vec<Int<L>> {
    let mut u = vec![Int::ZERO, Int::from_i64(1)];
    while u.len() <= last {
        let k = u.len();
        let next = u[k - 1].mul_i64(mu).sub(&u[k - 2].mul_i64(2));
        u.push(next);
    }
    u
}

impl Digits {
    fn new(mu: i64, w: u32) -> Digits {
        let u = lucas::<1>(mu, w as usize);
        let (uw, uw1) = (u[w as usize].0[0] as i64, u[w as usize - 1].0[0] as i64);
        let modulus = 1i64 << w;
        // t_w = 2·U_(w−1)·U_w⁻¹ mod 2^w (U_w is odd): then τ^w = U_w·τ − 2·U_(w−1) maps
        // to 0, so τ ↦ t_w is a ring map Z[τ] → Z/2^w with kernel (τ^w).
        let inv = (1..modulus)
            .step_by(2)
            .find(|x| (uw * x).rem_euclid(modulus) == 1)
            .unwrap_or(1);
        let t_w = (2 * uw1 * inv).rem_euclid(modulus) as u64;
        // α_u = u − q·τ^w with q = u/τ^w rounded: u/τ^w = u·conj(τ^w)/2^w and
        // τ^w = A + B·τ with A = −2U_(w−1), B = U_w, conj(τ^w) = (A + μB) − B·τ.
        let (a, b) = (-2 * uw1, uw);
        let alphas = (1..modulus / 2)
            .step_by(2)
            .map(|u| {
                let (n0, n1) = (u * (a + mu * b), -u * b);
                let f0 = (n0 + modulus / 2) >> w;
                let f1 = (n1 + modulus / 2) >> w;
                let e0 = (n0 - (f0 << w)) << (FRAC - w);
                let e1 = (n1 - (f1 << w)) << (FRAC - w);
                let (h0, h1) = round_corrections(e0, e1, mu);
                let (q0, q1) = (f0 + h0, f1 + h1);
                // u − (q0 + q1τ)(A + Bτ), with τ² = μτ − 2.
                (u - q0 * a + 2 * q1 * b, -(q0 * b + q1 * a + mu * q1 * b))
            })
            .collect();
        Digits {
            t_w,
            alphas,
            units: Vec::new(),
        }
    }
}

impl Tau {
    /// The constants of the Koblitz curve with field degree m, coefficient a and base
    /// point order n (big-endian).
    pub(crate) fn new(m: usize, a: bool, order: &[u8]) -> Tau {
        let mu = if a { 1 } else { -1 };
        let u = lucas::<8>(mu, m);
        // τ^m − 1 = (−2U_(m−1) − 1) + U_m·τ, and 1/(τ − 1) = (conj(τ) − 1)/N(τ − 1)
        // with conj(τ) = μ − τ and N(τ − 1) = 3 − μ = #E(F_2) = h. Multiplying out:
        // (x + yτ)(μ − 1 − τ) = (x(μ − 1) + 2y) + (−x − y)·τ.
        let x = u[m - 1].mul_i64(-2).add_i64(-1);
        let y = u[m];
        let h_log = if mu == 1 { 1 } else { 2 };
        let d0 = x.mul_i64(mu - 1).add(&y.mul_i64(2)).sar(h_log);
        let d1 = x.add(&y).neg().sar(h_log);
        let s0 = d0.add(&d1.mul_i64(mu));
        let s1 = d1.neg();
        let n = Wide::from_be_bytes(order).unwrap_or(Wide::from_i64(1));
        let shift = m + EXTRA;
        let round_div = |s: &Wide| {
            let mag = if s.is_negative() { s.neg() } else { *s };
            let q = mag.shl(shift).add(&n.sar(1)).div_floor(&n);
            if s.is_negative() {
                q.neg()
            } else {
                q
            }
        };
        let (c0, c1) = (round_div(&s0), round_div(&s1));
        let widths = (2..=MAX_WIDTH).map(|w| Digits::new(mu, w)).collect();
        let mut tau = Tau {
            m,
            mu,
            d0,
            s0,
            s1,
            c0,
            c1,
            shift,
            widths,
        };
        // The α_u are short (norm < 2^w), so their width-2 expansions always exist
        // and have a few digits; the tests evaluate each back to α_u.
        let units: Vec<Vec<Vec<i16>>> = tau
            .widths
            .iter()
            .map(|d| {
                d.alphas
                    .iter()
                    .map(|&(b, g)| {
                        tau.tnaf(&Wide::from_i64(b), &Wide::from_i64(g), 2)
                            .unwrap_or_default()
                    })
                    .collect()
            })
            .collect();
        for (d, u) in tau.widths.iter_mut().zip(units) {
            d.units = u;
        }
        tau
    }

    /// N(δ) = d0² + μ·d0·d1 + 2·d1², which must equal n (checked by the tests).
    #[cfg(test)]
    fn norm_delta(&self) -> Wide {
        let d1 = self.s1.neg();
        self.d0
            .mul(&self.d0)
            .add(&self.d0.mul(&d1).mul_i64(self.mu))
            .add(&d1.mul(&d1).mul_i64(2))
    }

    /// k partmod δ (Guide Alg. 3.65): ρ = r0 + r1·τ ≡ k modulo δ. `None` if k has
    /// more than m + 8 bits (the fixed-point quotient is sized for k < n).
    fn partmod(&self, k: &Wide) -> Option<(Wide, Wide)> {
        if k.is_negative() || k.bits() > self.m + 8 {
            return None;
        }
        let half = Wide::from_i64(1).shl(self.shift - 1);
        let split = |c: &Wide| {
            let g = k.mul(c);
            let f = g.add(&half).sar(self.shift);
            let e = g.sub(&f.shl(self.shift)).sar(self.shift - FRAC as usize);
            (f, e.to_i64().unwrap_or(0))
        };
        let ((f0, e0), (f1, e1)) = (split(&self.c0), split(&self.c1));
        let (h0, h1) = round_corrections(e0, e1, self.mu);
        let (q0, q1) = (f0.add_i64(h0), f1.add_i64(h1));
        // ρ = k − q·δ (Guide Alg. 3.65 step 3).
        let r0 = k.sub(&self.d0.mul(&q0)).sub(&self.s1.mul(&q1).mul_i64(2));
        let r1 = self.s1.mul(&q0).sub(&self.s0.mul(&q1));
        Some((r0, r1))
    }

    fn digits(&self, w: u32) -> Option<&Digits> {
        self.widths.get(w.checked_sub(2)? as usize)
    }

    /// The width-w τNAF of ρ = r0 + r1·τ (Guide Alg. 3.69), least significant digit
    /// first: digit d ≠ 0 stands for sign(d)·α_|d|. `None` if w is out of range or the
    /// coefficients do not fit (not reachable from [`Tau::partmod`]'s output).
    ///
    /// Each step halves N(ρ), so the coefficients shrink by about √2 per step: the
    /// loop runs on three-limb integers only while a coefficient has more than
    /// [`I128_BITS`] bits (K-283's first few dozen steps), then on `i128`.
    fn tnaf(&self, r0: &Wide, r1: &Wide, w: u32) -> Option<Vec<i16>> {
        let digits = self.digits(w)?;
        let (mut r0, mut r1): (Narrow, Narrow) = (r0.resize()?, r1.resize()?);
        let mut out = Vec::with_capacity(self.m + 8);
        while r0.bits() > I128_BITS || r1.bits() > I128_BITS {
            self.tnaf_step(&mut r0, &mut r1, digits, w, &mut out)?;
        }
        let (mut a, mut b) = (r0.to_i128()?, r1.to_i128()?);
        while a != 0 || b != 0 {
            self.tnaf_step(&mut a, &mut b, digits, w, &mut out)?;
        }
        Some(out)
    }

    /// One digit of [`Tau::tnaf`]: emits ρ's digit and sets ρ ← (ρ − digit)/τ.
    fn tnaf_step<T: Coef>(
        &self,
        r0: &mut T,
        r1: &mut T,
        digits: &Digits,
        w: u32,
        out: &mut Vec<i16>,
    ) -> Option<()> {
        // Each step divides by τ (norm / 2); the bound only guards against a bug.
        if out.len() > 2 * self.m + 64 {
            return None;
        }
        if r0.is_odd() {
            // u = (r0 + r1·t_w) mods 2^w: ρ's residue modulo τ^w.
            let mask = (1u64 << w) - 1;
            let mut u = (r0.low().wrapping_add(r1.low().wrapping_mul(digits.t_w)) & mask) as i64;
            if u >= 1 << (w - 1) {
                u -= 1 << w;
            }
            let (beta, gamma) = digits.alphas[(u.unsigned_abs() as usize - 1) / 2];
            let sign = if u > 0 { -1 } else { 1 };
            *r0 = r0.add_i64(sign * beta);
            *r1 = r1.add_i64(sign * gamma);
            out.push(u as i16);
        } else {
            out.push(0);
        }
        // ρ ← ρ/τ = (r1 + μ·r0/2) − (r0/2)·τ, r0 being even now.
        let h = r0.half();
        *r0 = if self.mu == 1 { r1.add(&h) } else { r1.sub(&h) };
        *r1 = h.neg();
        Some(())
    }

    /// The width-w τNAF of k partmod δ, for a big-endian scalar.
    fn recode(&self, k: &[u8], w: u32) -> Option<Vec<i16>> {
        let (r0, r1) = self.partmod(&Wide::from_be_bytes(k)?)?;
        self.tnaf(&r0, &r1, w)
    }
}

/// α_u·P for the odd u < 2^(w−1) of a public point P of order n (affine), for the
/// width-w τNAF of [`multi_mul_tau_vartime`]. Each α_u·P is evaluated from α_u's
/// plain τNAF (precomputed in [`Tau`]) in projective coordinates, then all are made
/// affine with one inversion.
pub struct TauTable<C: Curve> {
    w: u32,
    base: Affine<C>,
    points: Vec<Affine<C>>,
}

impl<C: Curve> std::fmt::Debug for TauTable<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TauTable(w = {}, {} points)", self.w, self.points.len())
    }
}

/// Horner evaluation of a τ-adic expansion with digits in {0, ±1}: Σ d_i·τ^i(P).
fn eval_unit_digits<C: Curve>(digits: &[i16], p: &Affine<C>) -> Point<C> {
    let neg = p.neg();
    digits.iter().rev().fold(Point::INFINITY, |acc, &d| {
        let acc = acc.frobenius();
        match d {
            1 => acc.add_affine_vartime(p),
            -1 => acc.add_affine_vartime(&neg),
            _ => acc,
        }
    })
}

impl<C: Curve> TauTable<C> {
    /// The table of width `w` (2 ≤ w ≤ [`MAX_WIDTH`]; others are clamped) for the
    /// public point `p` (variable-time additions).
    pub fn new_vartime(p: &Affine<C>, w: u32) -> Self {
        let w = w.clamp(2, MAX_WIDTH);
        let proj: Vec<Point<C>> = C::tau()
            .digits(w)
            .map(|d| d.units.as_slice())
            .unwrap_or_default()
            .iter()
            .map(|digits| eval_unit_digits(digits, p))
            .collect();
        TauTable {
            w,
            base: *p,
            points: batch_to_affine_vartime(&proj),
        }
    }

    /// The window width.
    pub fn width(&self) -> u32 {
        self.w
    }

    fn get(&self, digit: i16) -> Affine<C> {
        let p = self.points[usize::from(digit.unsigned_abs()) / 2];
        if digit < 0 {
            p.neg()
        } else {
            p
        }
    }
}

/// `Σ k_i·P_i` for public scalars and public points of order n, by interleaved
/// width-w τNAF expansions of k_i partmod δ sharing one chain of Frobenius maps
/// (variable time: verification only). Each point comes with its [`TauTable`]
/// (e.g. [`Curve::generator_tau_table`]); tables of different widths mix freely.
///
/// The points must lie in the subgroup of order n, where δ acts as 0 (callers decode
/// them with a subgroup check). Scalars should be below n; a scalar longer than
/// m + 8 bits falls back to the binary method.
pub fn multi_mul_tau_vartime<C: Curve>(terms: &[(&[u8], &TauTable<C>)]) -> Point<C> {
    let tau = C::tau();
    let mut expansions = Vec::with_capacity(terms.len());
    for (k, table) in terms {
        match tau.recode(k, table.w) {
            Some(d) => expansions.push(d),
            None => {
                return terms.iter().fold(Point::INFINITY, |acc, (k, t)| {
                    acc.add_vartime(&Point::from(t.base).mul_vartime(k))
                })
            }
        }
    }
    let len = expansions.iter().map(Vec::len).max().unwrap_or(0);
    let mut acc = Point::INFINITY;
    for i in (0..len).rev() {
        acc = acc.frobenius();
        for (digits, (_, table)) in expansions.iter().zip(terms) {
            let d = digits.get(i).copied().unwrap_or(0);
            if d != 0 {
                acc = acc.add_affine_vartime(&table.get(d));
            }
        }
    }
    acc
}

/// The constants of curve `C` (built by [`Curve::tau`]).
pub(crate) fn tau_for<C: Curve>() -> Tau {
    Tau::new(<C::F as Field>::M, C::A, &crate::curve::order_bytes::<C>())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::curve::{Tiny0, Tiny1, K163, K233, K283};

    fn check_constants<C: Curve>() {
        let tau = C::tau();
        assert_eq!(
            tau.norm_delta(),
            Wide::from_be_bytes(&crate::curve::order_bytes::<C>()).unwrap(),
            "N(δ) = n on {}",
            C::NAME
        );
        for (w, d) in (2..).zip(&tau.widths) {
            let modulus = 1i64 << w;
            let t = d.t_w as i64;
            // t_w is a root of τ² − μτ + 2 modulo 2^w.
            assert_eq!((t * t - tau.mu * t + 2).rem_euclid(modulus), 0);
            for (i, &(beta, gamma)) in d.alphas.iter().enumerate() {
                let u = 2 * i as i64 + 1;
                // α_u ≡ u (mod τ^w), and α_u is short.
                assert_eq!((beta + gamma * t - u).rem_euclid(modulus), 0, "w = {w}");
                let norm = beta * beta + tau.mu * beta * gamma + 2 * gamma * gamma;
                assert!(norm < modulus, "N(α_{u}) = {norm} for w = {w}");
                // Its precomputed unit expansion (digits 0, ±1) evaluates back to α_u.
                let unit = &d.units[i];
                assert!(unit.iter().all(|x| x.abs() <= 1) && (u == 1 || unit.len() > 1));
                assert_eq!(
                    horner(tau, unit, |x| (i64::from(x), 0)),
                    (Wide::from_i64(beta), Wide::from_i64(gamma)),
                    "unit expansion of α_{u}, w = {w}"
                );
            }
        }
    }

    #[test]
    fn constants_are_consistent() {
        check_constants::<K163>();
        check_constants::<K233>();
        check_constants::<K283>();
        check_constants::<Tiny0>();
        check_constants::<Tiny1>();
    }

    /// Σ d_i·τ^i·α(d_i) in Z[τ] by Horner (acc ← acc·τ + digit, with
    /// (x + yτ)·τ = −2y + (x + μy)τ), where α(d) is the digit's value.
    fn horner(tau: &Tau, digits: &[i16], alpha: impl Fn(i16) -> (i64, i64)) -> (Wide, Wide) {
        let (mut a0, mut a1) = (Wide::ZERO, Wide::ZERO);
        for &d in digits.iter().rev() {
            (a0, a1) = (a1.mul_i64(-2), a0.add(&a1.mul_i64(tau.mu)));
            if d != 0 {
                let (b, g) = alpha(d);
                (a0, a1) = (a0.add_i64(b), a1.add_i64(g));
            }
        }
        (a0, a1)
    }

    /// x mod n in [0, n).
    fn rem(x: &Wide, n: &Wide) -> Wide {
        let mag = if x.is_negative() { x.neg() } else { *x };
        let r = mag.sub(&mag.div_floor(n).mul(n));
        if x.is_negative() && !r.is_zero() {
            n.sub(&r)
        } else {
            r
        }
    }

    /// Checks, in Z[τ] alone (no points), everything the recoding promises for k:
    /// ρ ≡ k (mod δ), N(ρ) < n, every width's τNAF evaluates back to ρ with digits
    /// of the promised shape, and its length stays within m + 4.
    fn check_recoding<C: Curve>(k: &[u8]) {
        let tau = C::tau();
        let n = Wide::from_be_bytes(&crate::curve::order_bytes::<C>()).unwrap();
        let kw = Wide::from_be_bytes(k).unwrap();
        let (r0, r1) = tau.partmod(&kw).unwrap();
        // (ρ − k)/δ = (ρ − k)·(s0 + s1τ)/n must lie in Z[τ].
        let (x, y) = (r0.sub(&kw), r1);
        let e0 = x.mul(&tau.s0).sub(&y.mul(&tau.s1).mul_i64(2));
        let e1 = x
            .mul(&tau.s1)
            .add(&y.mul(&tau.s0))
            .add(&y.mul(&tau.s1).mul_i64(tau.mu));
        assert!(
            rem(&e0, &n).is_zero() && rem(&e1, &n).is_zero(),
            "ρ ≢ k mod δ"
        );
        let norm = r0
            .mul(&r0)
            .add(&r0.mul(&r1).mul_i64(tau.mu))
            .add(&r1.mul(&r1).mul_i64(2));
        assert!(norm < n, "N(ρ) ≥ n");
        for w in 2..=MAX_WIDTH {
            let digits = tau.tnaf(&r0, &r1, w).unwrap();
            assert!(
                digits.len() <= tau.m + 4,
                "{} w = {w}: length {}",
                C::NAME,
                digits.len()
            );
            for (i, &d) in digits.iter().enumerate().filter(|(_, &d)| d != 0) {
                assert!(d % 2 != 0 && i64::from(d).abs() < 1 << (w - 1));
                // Width-w NAF shape: the next w − 1 digits are zero.
                for z in digits.iter().skip(i + 1).take(w as usize - 1) {
                    assert_eq!(*z, 0, "w = {w}");
                }
            }
            let alphas = &tau.digits(w).unwrap().alphas;
            let value = horner(tau, &digits, |d| {
                let (b, g) = alphas[(d.unsigned_abs() as usize - 1) / 2];
                let sign = i64::from(d.signum());
                (sign * b, sign * g)
            });
            assert_eq!(value, (r0, r1), "{} w = {w}", C::NAME);
        }
    }

    fn edge_scalars<C: Curve>() -> Vec<Vec<u8>> {
        let n = crate::curve::order_bytes::<C>();
        let nw = Wide::from_be_bytes(&n).unwrap();
        let be = |x: Wide| {
            let mut out = Vec::new();
            for w in x.0.iter().rev() {
                out.extend_from_slice(&w.to_be_bytes());
            }
            out
        };
        let mut v = vec![vec![0u8], vec![1], vec![2], vec![3]];
        for d in 1..4 {
            v.push(be(nw.add_i64(-d)));
        }
        v.push(be(nw.sar(1)));
        v.push(be(nw.add_i64(5)));
        v.push(be(Wide::from_i64(1).shl(<C::F as Field>::M).add_i64(-1)));
        v
    }

    #[test]
    fn recoding_edge_scalars() {
        for k in edge_scalars::<K163>() {
            check_recoding::<K163>(&k);
        }
        for k in edge_scalars::<K233>() {
            check_recoding::<K233>(&k);
        }
        for k in edge_scalars::<K283>() {
            check_recoding::<K283>(&k);
        }
        for k in 0..2048u16 {
            check_recoding::<Tiny0>(&k.to_be_bytes());
            check_recoding::<Tiny1>(&k.to_be_bytes());
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn recoding_random_scalars(k in proptest::collection::vec(proptest::prelude::any::<u8>(), 36)) {
            check_recoding::<K163>(&k[..21]);
            check_recoding::<K233>(&k[..30]);
            check_recoding::<K283>(&k);
        }
    }

    #[test]
    fn oversized_scalars_are_refused_by_the_recoding() {
        let tau = K163::tau();
        let big = Wide::from_i64(1).shl(163 + 9);
        assert!(tau.partmod(&big).is_none());
        assert!(tau.partmod(&Wide::from_i64(-1)).is_none());
        assert!(tau.recode(&[0xff; 64], 5).is_none());
        assert!(tau.digits(1).is_none() && tau.digits(MAX_WIDTH + 1).is_none());
    }

    #[test]
    fn rounding_matches_the_norm_minimum() {
        // For λ on a grid, q from Alg. 3.62 is the nearest element of Z[τ] in the norm
        // N(x + yτ) = x² + μxy + 2y² (brute force over the neighbours).
        for mu in [-1i64, 1] {
            let norm = |x: f64, y: f64| x * x + mu as f64 * x * y + 2.0 * y * y;
            for i in -40..40 {
                for j in -40..40 {
                    let (l0, l1) = (f64::from(i) / 16.0 + 0.01, f64::from(j) / 16.0 + 0.02);
                    let (f0, f1) = (l0.round(), l1.round());
                    let scale = (1u64 << FRAC) as f64;
                    let (h0, h1) = round_corrections(
                        ((l0 - f0) * scale) as i64,
                        ((l1 - f1) * scale) as i64,
                        mu,
                    );
                    let (q0, q1) = (f0 + h0 as f64, f1 + h1 as f64);
                    let got = norm(l0 - q0, l1 - q1);
                    let mut best = f64::MAX;
                    for a in -3..=3 {
                        for b in -3..=3 {
                            best = best.min(norm(l0 - f0 - f64::from(a), l1 - f1 - f64::from(b)));
                        }
                    }
                    assert!(got <= best + 1e-9, "μ = {mu}, λ = ({l0}, {l1})");
                }
            }
        }
    }
}
