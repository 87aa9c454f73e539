//! Portable one-lane P-256 points over [`field52`](crate::field52): affine and Jacobian
//! coordinates with complete case handling (O, P + P, P + (−P)), the generator, the
//! on-curve check, and [`double_scalar_mul_1`] — the kernel's Horner loop
//! ([`crate::kernel`]) on one lane with complete formulas. It recomputes the lanes the
//! vector code marks exceptional and is the reference the vector code is tested against.
//!
//! The curve (FIPS 186-5 / SP 800-186 §3.2.1.3): y² = x³ − 3x + b over GF(p). Its group
//! has prime order n, so every point but O has order n and no point has y = 0.
//! Variable time: only public data passes through here.

use crate::field52::{Fe, P};
use crate::kernel::{AffineM52, GTable, JacobianM52, Lane, TOP, W_G, W_Q};

/// b of y² = x³ − 3x + b, big-endian.
const B: [u8; 32] = [
    0x5a, 0xc6, 0x35, 0xd8, 0xaa, 0x3a, 0x93, 0xe7, 0xb3, 0xeb, 0xbd, 0x55, 0x76, 0x98, 0x86, 0xbc,
    0x65, 0x1d, 0x06, 0xb0, 0xcc, 0x53, 0xb0, 0xf6, 0x3b, 0xce, 0x3c, 0x3e, 0x27, 0xd2, 0x60, 0x4b,
];
/// x of the generator G, big-endian.
const GX: [u8; 32] = [
    0x6b, 0x17, 0xd1, 0xf2, 0xe1, 0x2c, 0x42, 0x47, 0xf8, 0xbc, 0xe6, 0xe5, 0x63, 0xa4, 0x40, 0xf2,
    0x77, 0x03, 0x7d, 0x81, 0x2d, 0xeb, 0x33, 0xa0, 0xf4, 0xa1, 0x39, 0x45, 0xd8, 0x98, 0xc2, 0x96,
];
/// y of the generator G, big-endian.
const GY: [u8; 32] = [
    0x4f, 0xe3, 0x42, 0xe2, 0xfe, 0x1a, 0x7f, 0x9b, 0x8e, 0xe7, 0xeb, 0x4a, 0x7c, 0x0f, 0x9e, 0x16,
    0x2b, 0xce, 0x33, 0x57, 0x6b, 0x31, 0x5e, 0xce, 0xcb, 0xb6, 0x40, 0x68, 0x37, 0xbf, 0x51, 0xf5,
];

/// b in Montgomery form.
fn b() -> Fe<P> {
    Fe::from_bytes_reduced(&B)
}

/// A finite affine point (x, y). Not checked by construction: [`Affine::from_coordinates`]
/// checks; the arithmetic keeps points on the curve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Affine {
    /// x.
    pub x: Fe<P>,
    /// y.
    pub y: Fe<P>,
}

impl Affine {
    /// The generator G (SP 800-186 §3.2.1.3).
    pub fn generator() -> Affine {
        Affine {
            x: Fe::from_bytes_reduced(&GX),
            y: Fe::from_bytes_reduced(&GY),
        }
    }

    /// Whether y² = x³ − 3x + b (SEC 1 v2 §3.2.2.1 step 3).
    pub fn is_on_curve(&self) -> bool {
        let x2 = self.x.square();
        let three_x = self.x.add(&self.x).add(&self.x);
        let rhs = x2.mul(&self.x).sub(&three_x).add(&b());
        self.y.square() == rhs
    }

    /// (x, −y).
    #[must_use]
    pub fn neg(&self) -> Affine {
        Affine {
            x: self.x,
            y: self.y.neg(),
        }
    }

    /// The point in Jacobian coordinates (x : y : 1).
    pub fn to_jacobian(self) -> Jacobian {
        Jacobian {
            x: self.x,
            y: self.y,
            z: Fe::ONE,
        }
    }

    /// The Montgomery limbs the vector code loads.
    pub fn to_m52(self) -> AffineM52 {
        AffineM52 {
            x: self.x.montgomery_limbs(),
            y: self.y.montgomery_limbs(),
        }
    }

    /// A table entry back as a point; `None` if a limb vector is not a reduced
    /// Montgomery representation (tables written by [`crate::table`] always are).
    pub fn from_m52(p: &AffineM52) -> Option<Affine> {
        Some(Affine {
            x: Fe::from_montgomery_limbs(p.x)?,
            y: Fe::from_montgomery_limbs(p.y)?,
        })
    }
}

/// (X : Y : Z) = (X/Z², Y/Z³); Z = 0 is the point at infinity O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Jacobian {
    /// X.
    pub x: Fe<P>,
    /// Y.
    pub y: Fe<P>,
    /// Z.
    pub z: Fe<P>,
}

impl Jacobian {
    /// The point at infinity (1 : 1 : 0).
    pub const INFINITY: Jacobian = Jacobian {
        x: Fe::ONE,
        y: Fe::ONE,
        z: Fe::ZERO,
    };

    /// Whether this is O.
    pub fn is_infinity(&self) -> bool {
        self.z.is_zero()
    }

    /// The kernel's output limbs as a point; `None` if a limb vector is not a reduced
    /// Montgomery representation (the driver then recomputes the lane).
    pub fn from_m52(p: &JacobianM52) -> Option<Jacobian> {
        Some(Jacobian {
            x: Fe::from_montgomery_limbs(p.x)?,
            y: Fe::from_montgomery_limbs(p.y)?,
            z: Fe::from_montgomery_limbs(p.z)?,
        })
    }

    /// 2·self, "dbl-2001-b" for a = −3 (Bernstein–Lange, Explicit-Formulas Database:
    /// 3M + 5S). O stays O (Z3 = 2·Y·Z = 0); P-256 has no point of order 2.
    #[must_use]
    pub fn double(&self) -> Jacobian {
        let delta = self.z.square();
        let gamma = self.y.square();
        let beta = self.x.mul(&gamma);
        let t = self.x.sub(&delta).mul(&self.x.add(&delta));
        let alpha = t.add(&t).add(&t);
        let beta4 = beta.add(&beta).add(&beta.add(&beta));
        let x3 = alpha.square().sub(&beta4.add(&beta4));
        let z3 = self.y.add(&self.z).square().sub(&gamma).sub(&delta);
        let gamma2 = gamma.square();
        let gamma8 = {
            let g2 = gamma2.add(&gamma2);
            let g4 = g2.add(&g2);
            g4.add(&g4)
        };
        let y3 = alpha.mul(&beta4.sub(&x3)).sub(&gamma8);
        Jacobian {
            x: x3,
            y: y3,
            z: z3,
        }
    }

    /// self + q for an affine q, complete: O + q = q, q + q is a doubling, q + (−q) = O
    /// (mixed addition with H = U2 − X1 and r = S2 − Y1, "madd" of the
    /// Explicit-Formulas Database; H = 0 is exactly the equal-x case).
    #[must_use]
    pub fn add_affine(&self, q: &Affine) -> Jacobian {
        if self.is_infinity() {
            return q.to_jacobian();
        }
        let z1z1 = self.z.square();
        let u2 = q.x.mul(&z1z1);
        let s2 = q.y.mul(&self.z).mul(&z1z1);
        let h = u2.sub(&self.x);
        let r = s2.sub(&self.y);
        if h.is_zero() {
            return if r.is_zero() {
                self.double()
            } else {
                Jacobian::INFINITY
            };
        }
        let hh = h.square();
        let hhh = hh.mul(&h);
        let v = self.x.mul(&hh);
        let x3 = r.square().sub(&hhh).sub(&v.add(&v));
        let y3 = r.mul(&v.sub(&x3)).sub(&self.y.mul(&hhh));
        let z3 = self.z.mul(&h);
        Jacobian {
            x: x3,
            y: y3,
            z: z3,
        }
    }

    /// The affine point, `None` for O (one inversion).
    pub fn to_affine(self) -> Option<Affine> {
        let zi = self.z.invert_vartime()?;
        let zi2 = zi.square();
        Some(Affine {
            x: self.x.mul(&zi2),
            y: self.y.mul(&zi2).mul(&zi),
        })
    }
}

/// d·T where `table[k − 1]` = k·T: a table lookup, negated for a negative digit; `None`
/// for d = 0 (nothing to add) or an unreadable entry.
fn lookup(table: &[AffineM52], d: i8) -> Option<Affine> {
    let k = usize::from(d.unsigned_abs());
    let p = Affine::from_m52(table.get(k.checked_sub(1)?)?)?;
    Some(if d < 0 { p.neg() } else { p })
}

/// u1·G + u2·Q for one lane, exactly the kernel's schedule ([`crate::kernel`]): from
/// the top position down, double, add d2·Q at multiples of W_Q and d1·G at multiples of
/// W_G, with complete additions. Jacobian result, Z = 0 for O (SEC 1 v2 §4.1.4 step 5).
pub(crate) fn double_scalar_mul_jacobian_1(g: &GTable, lane: &Lane<'_>) -> Jacobian {
    let mut acc = Jacobian::INFINITY;
    for i in (0..=TOP).rev() {
        if i < TOP {
            acc = acc.double();
        }
        if i % W_Q == 0 {
            if let Some(p) = lane
                .u2
                .get(i / W_Q)
                .and_then(|&d| lookup(&lane.q.points, d))
            {
                acc = acc.add_affine(&p);
            }
        }
        if i % W_G == 0 {
            if let Some(p) = lane.u1.get(i / W_G).and_then(|&d| lookup(&g.points, d)) {
                acc = acc.add_affine(&p);
            }
        }
    }
    acc
}

/// u1·G + u2·Q for one lane as an affine point, `None` for O: the portable counterpart
/// of [`crate::ifma::double_scalar_mul`], complete where the vector code is not (the
/// reference the vector code's tests compare with; the driver itself checks the
/// Jacobian result without inverting Z).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn double_scalar_mul_1(g: &GTable, lane: &Lane<'_>) -> Option<Affine> {
    double_scalar_mul_jacobian_1(g, lane).to_affine()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
pub(crate) mod tests {
    //! A slow affine reference over num-bigint (textbook chord-and-tangent formulas with
    //! Fermat inversion), the thing the Jacobian code is checked against.
    use super::*;
    use crate::field52::{Modulus, N};
    use num_bigint::BigUint;
    use proptest::prelude::*;

    pub(crate) fn p_big() -> BigUint {
        BigUint::from_bytes_be(&crate::field52::limbs_to_bytes(&P::M))
    }

    pub(crate) fn n_big() -> BigUint {
        BigUint::from_bytes_be(&crate::field52::limbs_to_bytes(&N::M))
    }

    /// An affine point over integers; None = O.
    pub(crate) type RefPoint = Option<(BigUint, BigUint)>;

    fn inv(a: &BigUint, m: &BigUint) -> BigUint {
        a.modpow(&(m - 2u8), m)
    }

    pub(crate) fn ref_add(a: &RefPoint, b: &RefPoint) -> RefPoint {
        let p = p_big();
        let (Some((x1, y1)), Some((x2, y2))) = (a, b) else {
            return a.clone().or_else(|| b.clone());
        };
        let lambda = if x1 == x2 {
            if (y1 + y2) % &p == BigUint::from(0u8) {
                return None;
            }
            // Tangent: (3x² − 3) / 2y.
            let num = (BigUint::from(3u8) * x1 * x1 + &p * 3u8 - 3u8) % &p;
            num * inv(&((y1 * 2u8) % &p), &p) % &p
        } else {
            ((y2 + &p - y1) % &p) * inv(&((x2 + &p - x1) % &p), &p) % &p
        };
        let x3 = (&lambda * &lambda + &p * 2u8 - x1 - x2) % &p;
        let y3 = (&lambda * ((x1 + &p - &x3) % &p) + &p - y1) % &p;
        Some((x3, y3))
    }

    pub(crate) fn ref_mul(k: &BigUint, pt: &RefPoint) -> RefPoint {
        let mut acc: RefPoint = None;
        for i in (0..k.bits()).rev() {
            acc = ref_add(&acc, &acc);
            if k.bit(i) {
                acc = ref_add(&acc, pt);
            }
        }
        acc
    }

    pub(crate) fn ref_g() -> RefPoint {
        Some((BigUint::from_bytes_be(&GX), BigUint::from_bytes_be(&GY)))
    }

    fn bytes32(v: &BigUint) -> [u8; 32] {
        let b = v.to_bytes_be();
        let mut out = [0u8; 32];
        out[32 - b.len()..].copy_from_slice(&b);
        out
    }

    pub(crate) fn to_ref(p: Option<Affine>) -> RefPoint {
        p.map(|a| {
            (
                BigUint::from_bytes_be(&a.x.to_bytes()),
                BigUint::from_bytes_be(&a.y.to_bytes()),
            )
        })
    }

    pub(crate) fn from_ref(p: &RefPoint) -> Option<Affine> {
        p.as_ref().map(|(x, y)| Affine {
            x: Fe::from_bytes(&bytes32(x)).unwrap(),
            y: Fe::from_bytes(&bytes32(y)).unwrap(),
        })
    }

    #[test]
    fn generator_is_on_the_curve_and_has_order_n() {
        let g = Affine::generator();
        assert!(g.is_on_curve());
        assert!(!Affine {
            x: g.x,
            y: g.y.add(&Fe::ONE)
        }
        .is_on_curve());
        assert_eq!(ref_mul(&n_big(), &ref_g()), None);
        assert_eq!(ref_mul(&(n_big() - 1u8), &ref_g()), to_ref(Some(g.neg())));
    }

    #[test]
    fn complete_cases() {
        let g = Affine::generator();
        let o = Jacobian::INFINITY;
        assert_eq!(o.add_affine(&g).to_affine(), Some(g));
        assert!(o.double().is_infinity());
        // G + G is the doubling; G + (−G) is O.
        assert_eq!(
            to_ref(g.to_jacobian().add_affine(&g).to_affine()),
            ref_add(&ref_g(), &ref_g())
        );
        assert!(g.to_jacobian().add_affine(&g.neg()).is_infinity());
        // The same with a Z ≠ 1 accumulator: 2G + 2G and 2G + (−2G).
        let two_g = g.to_jacobian().double();
        let two_g_aff = two_g.to_affine().unwrap();
        assert_eq!(
            to_ref(two_g.add_affine(&two_g_aff).to_affine()),
            ref_mul(&BigUint::from(4u8), &ref_g())
        );
        assert!(two_g.add_affine(&two_g_aff.neg()).is_infinity());
    }

    proptest! {
        #[test]
        fn jacobian_against_affine_reference(a in 1u64.., b in 1u64..) {
            let (pa, pb) = (
                ref_mul(&BigUint::from(a), &ref_g()),
                ref_mul(&BigUint::from(b), &ref_g()),
            );
            // A Jacobian accumulator with Z ≠ 1: double then add.
            let ja = from_ref(&pa).unwrap().to_jacobian().double();
            let pb_aff = from_ref(&pb).unwrap();
            prop_assert!(pb_aff.is_on_curve());
            let sum = ja.add_affine(&pb_aff).to_affine();
            prop_assert_eq!(to_ref(sum), ref_add(&ref_add(&pa, &pa), &pb));
            prop_assert!(sum.is_none_or(|s| s.is_on_curve()));
        }
    }

    /// The Horner loop on one lane against u1·G + u2·Q computed by the reference,
    /// with digits from the driver's recoding (zero u1, small and large scalars).
    #[test]
    fn horner_loop_against_reference() {
        use crate::kernel::{D_G, D_Q};
        use crate::scalar::booth_digits;
        let g_tab = crate::table::g_table();
        let d = BigUint::from(0x1234_5678_9abc_def1u64) * 0xfedc_ba98u64;
        let q_ref = ref_mul(&d, &ref_g());
        let q_tab = crate::table::q_table(&from_ref(&q_ref).unwrap()).unwrap();
        let n = n_big();
        let scalars = [
            (BigUint::from(0u8), BigUint::from(1u8)),
            (BigUint::from(1u8), BigUint::from(1u8)),
            (&n - 1u8, &n - 1u8),
            (
                BigUint::from(1u8) << 255u32,
                (BigUint::from(1u8) << 200u32) + 77u8,
            ),
            (&n - &d, BigUint::from(1u8)),
            (BigUint::from(64u8), BigUint::from(32u8)),
        ];
        for (u1, u2) in scalars {
            let lane = Lane {
                q: &q_tab,
                u1: booth_digits::<D_G>(&limbs(&u1), W_G),
                u2: booth_digits::<D_Q>(&limbs(&u2), W_Q),
            };
            let want = ref_add(&ref_mul(&u1, &ref_g()), &ref_mul(&u2, &q_ref));
            assert_eq!(to_ref(double_scalar_mul_1(g_tab, &lane)), want, "{u1} {u2}");
        }
    }

    fn limbs(v: &BigUint) -> [u64; 5] {
        crate::field52::limbs_from_bytes(&bytes32(v))
    }
}
