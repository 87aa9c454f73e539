//! Koblitz curves E_a: y² + xy = x³ + a·x² + 1 over GF(2^m) (FIPS 186-4 App. D.1.3),
//! in affine and López–Dahab projective coordinates (x = X/Z, y = Y/Z²; 003 §III-B),
//! with the Frobenius map τ(x, y) = (x², y²) and SEC 1 point encodings.
//!
//! As in curve25519-dalek, everything here is constant time in its inputs unless its
//! name says `vartime` (the crate documentation states the rule exactly):
//! [`mul_base`] (the fixed-base comb for secret scalars: ECDSA k·G, key generation
//! d·G, the ICNR secrets), [`mul`] (a Montgomery ladder), [`Point::add_affine`],
//! [`Point::to_affine`], the SEC 1 encoding [`Affine::to_sec1`] and the comparisons
//! (`==`, [`Affine::is_on_curve`], [`Point::has_x`]) select with `subtle::Choice` masks
//! and read whole tables; the `_vartime` functions (decoding and subgroup checks of
//! received points, verification, precomputed tables of public points, the τ-adic code
//! in [`crate::tau`]) branch on their inputs and are for public values only.

use std::fmt;
use std::marker::PhantomData;

use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroizing;

use crate::field::{Fe, Field, F163, F233, F283, F5};
use crate::scalar::{SecretScalar, WORDS};
use crate::tau::{Tau, TauTable};

/// A Koblitz curve over the field `F`.
pub trait Curve: Copy + Send + Sync + 'static {
    /// The field.
    type F: Field;
    /// The coefficient a ∈ {0, 1} (b = 1 for every Koblitz curve).
    const A: bool;
    /// Name, e.g. `K-163`.
    const NAME: &'static str;
    /// The base point's x and y, big-endian SEC 1 field bytes (hex).
    const GX: &'static str;
    /// See [`Curve::GX`].
    const GY: &'static str;
    /// The prime order n of the base point, big-endian hex.
    const ORDER: &'static str;
    /// The cofactor h (#E = h·n).
    const COFACTOR: u32;
    /// The generator's table of odd multiples for [`multi_mul_vartime`], built once.
    fn generator_table() -> &'static OddTable<Self>;
    /// The generator's fixed-base comb for [`mul_base`], built once.
    fn generator_comb() -> &'static Comb<Self>;
    /// The curve's τ-adic constants (δ, rounding constants, digit sets), built once.
    fn tau() -> &'static Tau;
    /// The generator's width-[`FIXED_WIDTH`](crate::tau::FIXED_WIDTH) table for
    /// [`multi_mul_tau_vartime`](crate::tau::multi_mul_tau_vartime), built once.
    fn generator_tau_table() -> &'static TauTable<Self>;
    /// The constants of arithmetic modulo n, built once.
    fn scalar_modulus() -> &'static crate::scalar::Modulus;
}

macro_rules! curve {
    ($(#[$doc:meta])* $name:ident, $field:ty, $a:expr, $gx:expr, $gy:expr, $n:expr, $h:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $name;
        impl Curve for $name {
            type F = $field;
            const A: bool = $a;
            const NAME: &'static str = stringify!($name);
            const GX: &'static str = $gx;
            const GY: &'static str = $gy;
            const ORDER: &'static str = $n;
            const COFACTOR: u32 = $h;
            fn generator_table() -> &'static OddTable<Self> {
                static T: std::sync::OnceLock<OddTable<$name>> = std::sync::OnceLock::new();
                T.get_or_init(|| OddTable::new_vartime(&Affine::generator()))
            }
            fn generator_comb() -> &'static Comb<Self> {
                static T: std::sync::OnceLock<Comb<$name>> = std::sync::OnceLock::new();
                T.get_or_init(|| Comb::new_vartime(&Affine::generator()))
            }
            fn tau() -> &'static Tau {
                static T: std::sync::OnceLock<Tau> = std::sync::OnceLock::new();
                T.get_or_init(crate::tau::tau_for::<$name>)
            }
            fn generator_tau_table() -> &'static TauTable<Self> {
                static T: std::sync::OnceLock<TauTable<$name>> = std::sync::OnceLock::new();
                T.get_or_init(|| TauTable::new_vartime(&Affine::generator(), crate::tau::FIXED_WIDTH))
            }
            fn scalar_modulus() -> &'static crate::scalar::Modulus {
                static T: std::sync::OnceLock<crate::scalar::Modulus> = std::sync::OnceLock::new();
                T.get_or_init(crate::scalar::modulus_for::<$name>)
            }
        }
    };
}

curve!(
    /// K-163 (sect163k1): a = 1, h = 2.
    K163, F163, true,
    "02fe13c0537bbc11acaa07d793de4e6d5e5c94eee8",
    "0289070fb05d38ff58321f2e800536d538ccdaa3d9",
    "04000000000000000000020108a2e0cc0d99f8a5ef", 2
);
curve!(
    /// K-233 (sect233k1): a = 0, h = 4.
    K233, F233, false,
    "017232ba853a7e731af129f22ff4149563a419c26bf50a4c9d6eefad6126",
    "01db537dece819b7f70f555a67c427a8cd9bf18aeb9b56e0c11056fae6a3",
    "8000000000000000000000000000069d5bb915bcd46efb1ad5f173abdf", 4
);
curve!(
    /// K-283 (sect283k1): a = 0, h = 4.
    K283, F283, false,
    "0503213f78ca44883f1a3b8162f188e553cd265f23c1567a16876913b0c2ac2458492836",
    "01ccda380f1c9e318d90f95d07e5426fe87e45c0e8184698e45962364e34116177dd2259",
    "01ffffffffffffffffffffffffffffffffffe9ae2ed07577265dff7f94451e061e163c61", 4
);
curve!(
    /// A tiny Koblitz curve over GF(2^5), a = 0: 44 = 4 · 11 points. For exhaustive
    /// tests only; its "base point" is found by the tests.
    Tiny0, F5, false, "00", "00", "0b", 4
);
curve!(
    /// A tiny Koblitz curve over GF(2^5), a = 1: 22 = 2 · 11 points (exhaustive tests).
    Tiny1, F5, true, "00", "00", "0b", 2
);

/// The order n of the base point, big-endian.
pub fn order_bytes<C: Curve>() -> Vec<u8> {
    unhex(C::ORDER)
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or(0))
        .collect()
}

/// An affine point or the point at infinity.
#[derive(Clone, Copy)]
pub struct Affine<C: Curve> {
    x: Fe<C::F>,
    y: Fe<C::F>,
    infinity: bool,
    _c: PhantomData<C>,
}

impl<C: Curve> ConstantTimeEq for Affine<C> {
    /// Both ∞, or both finite with equal coordinates, by masks.
    fn ct_eq(&self, other: &Self) -> Choice {
        let (a, b) = (
            Choice::from(u8::from(self.infinity)),
            Choice::from(u8::from(other.infinity)),
        );
        (a & b) | (!a & !b & self.x.ct_eq(&other.x) & self.y.ct_eq(&other.y))
    }
}

impl<C: Curve> PartialEq for Affine<C> {
    /// Constant time ([`ConstantTimeEq::ct_eq`]); only the answer is a `bool`.
    fn eq(&self, other: &Self) -> bool {
        self.ct_eq(other).into()
    }
}
impl<C: Curve> Eq for Affine<C> {}

impl<C: Curve> fmt::Debug for Affine<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.infinity {
            write!(f, "{}(∞)", C::NAME)
        } else {
            write!(f, "{}({:?}, {:?})", C::NAME, self.x, self.y)
        }
    }
}

/// Why an encoded point was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointError {
    /// Wrong length, prefix or field element.
    Encoding,
    /// The coordinates do not satisfy the curve equation (or no y exists for x).
    NotOnCurve,
    /// The point is not in the subgroup of order n.
    NotInSubgroup,
    /// The point at infinity.
    Infinity,
}

impl fmt::Display for PointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PointError::Encoding => "invalid point encoding",
            PointError::NotOnCurve => "point not on the curve",
            PointError::NotInSubgroup => "point not in the prime-order subgroup",
            PointError::Infinity => "point at infinity",
        })
    }
}

impl std::error::Error for PointError {}

fn a_coef<C: Curve>() -> Fe<C::F> {
    if C::A {
        Fe::ONE
    } else {
        Fe::ZERO
    }
}

impl<C: Curve> Affine<C> {
    /// The point at infinity.
    pub const INFINITY: Self = Affine {
        x: Fe::ZERO,
        y: Fe::ZERO,
        infinity: true,
        _c: PhantomData,
    };

    /// The point (x, y) if it is on the curve.
    pub fn new(x: Fe<C::F>, y: Fe<C::F>) -> Option<Self> {
        let p = Affine {
            x,
            y,
            infinity: false,
            _c: PhantomData,
        };
        p.is_on_curve().then_some(p)
    }

    /// The standard base point G.
    pub fn generator() -> Self {
        let x = Fe::from_be_bytes(&unhex(C::GX)).unwrap_or(Fe::ZERO);
        let y = Fe::from_be_bytes(&unhex(C::GY)).unwrap_or(Fe::ZERO);
        Affine {
            x,
            y,
            infinity: false,
            _c: PhantomData,
        }
    }

    /// x (meaningless at infinity).
    pub fn x(&self) -> &Fe<C::F> {
        &self.x
    }

    /// y (meaningless at infinity).
    pub fn y(&self) -> &Fe<C::F> {
        &self.y
    }

    /// Whether this is the point at infinity.
    pub fn is_infinity(&self) -> bool {
        self.infinity
    }

    /// Whether y² + xy = x³ + ax² + 1 (infinity counts as on the curve), in constant
    /// time: the equation is evaluated for ∞ too and the flag folded in by mask.
    pub fn is_on_curve(&self) -> bool {
        let (x, y) = (self.x, self.y);
        let x2 = x.square();
        let lhs = y.square().add(&x.mul(&y));
        let rhs = x2.mul(&x).add(&a_coef::<C>().mul(&x2)).add(&Fe::ONE);
        (Choice::from(u8::from(self.infinity)) | lhs.ct_eq(&rhs)).into()
    }

    /// −P = (x, x + y).
    #[must_use]
    pub fn neg(&self) -> Self {
        Affine {
            y: self.x.add(&self.y),
            ..*self
        }
    }

    /// τ(P) = (x², y²), the Frobenius map.
    #[must_use]
    pub fn frobenius(&self) -> Self {
        Affine {
            x: self.x.square(),
            y: self.y.square(),
            ..*self
        }
    }

    /// P + Q with the affine chord-and-tangent formulas (variable time: used for
    /// precomputation from public points and as the tests' reference).
    #[must_use]
    pub fn add_vartime(&self, q: &Self) -> Self {
        if self.infinity {
            return *q;
        }
        if q.infinity {
            return *self;
        }
        if self.x.eq_vartime(&q.x) {
            if self.y.eq_vartime(&q.y) {
                return self.double_vartime();
            }
            return Self::INFINITY;
        }
        let lambda = self.y.add(&q.y).mul(&self.x.add(&q.x).invert_vartime());
        let x3 = lambda
            .square()
            .add(&lambda)
            .add(&self.x)
            .add(&q.x)
            .add(&a_coef::<C>());
        let y3 = lambda.mul(&self.x.add(&x3)).add(&x3).add(&self.y);
        Affine {
            x: x3,
            y: y3,
            infinity: false,
            _c: PhantomData,
        }
    }

    /// 2P (variable time).
    #[must_use]
    pub fn double_vartime(&self) -> Self {
        if self.infinity || self.x.is_zero_vartime() {
            return Self::INFINITY;
        }
        let lambda = self.x.add(&self.y.mul(&self.x.invert_vartime()));
        let x3 = lambda.square().add(&lambda).add(&a_coef::<C>());
        let y3 = self.x.square().add(&lambda.mul(&x3)).add(&x3);
        Affine {
            x: x3,
            y: y3,
            infinity: false,
            _c: PhantomData,
        }
    }

    /// SEC 1 §2.3.3 encoding: `02`/`03` ‖ x (compressed: ỹ = lowest bit of y/x, 0 when
    /// x = 0) or `04` ‖ x ‖ y; infinity is the single byte `00`.
    ///
    /// Constant time in the coordinates (a public key derived from a secret may be
    /// encoded before it is declassified): ỹ comes from the constant-time inversion,
    /// which maps x = 0 to 0 and so gives ỹ = 0 there without a test. Whether the
    /// point is ∞ decides the encoding's length and is branched on.
    pub fn to_sec1(&self, compressed: bool) -> Vec<u8> {
        if self.infinity {
            return vec![0];
        }
        let mut out = Vec::with_capacity(1 + 2 * Fe::<C::F>::BYTES);
        if compressed {
            let ybit = self.y.mul(&self.x.invert()).bit(0);
            out.push(0x02 | u8::from(ybit));
            out.extend_from_slice(&self.x.to_be_bytes());
        } else {
            out.push(0x04);
            out.extend_from_slice(&self.x.to_be_bytes());
            out.extend_from_slice(&self.y.to_be_bytes());
        }
        out
    }

    /// The point with x-coordinate `x` whose compression bit (SEC 1 §2.3.4: the lowest
    /// bit of y/x, 0 for x = 0) is `y_bit`: y = x·z with z² + z = x + a + 1/x²
    /// (SEC 1 §2.3.4 step 2.4.3), solved by the half-trace since m is odd. Encodings are
    /// public: the inversion and the half-trace are the `_vartime` ones, and the
    /// function branches on x and on whether a point exists.
    ///
    /// # Errors
    /// [`PointError::NotOnCurve`] if no point has this x.
    pub fn decompress_vartime(x: Fe<C::F>, y_bit: bool) -> Result<Self, PointError> {
        let y = if x.is_zero_vartime() {
            // y² = b = 1.
            Fe::ONE
        } else {
            let beta = x.add(&a_coef::<C>()).add(&x.square().invert_vartime());
            if beta.trace() {
                return Err(PointError::NotOnCurve);
            }
            let mut z = beta.half_trace_vartime();
            if z.bit(0) != y_bit {
                z = z.add(&Fe::ONE);
            }
            x.mul(&z)
        };
        Affine::new(x, y).ok_or(PointError::NotOnCurve)
    }

    /// SEC 1 §2.3.4 decoding of `02`/`03`/`04` encodings, checking the curve equation
    /// (decompression solves z² + z = x + a + x⁻² with the half-trace, m odd). Infinity
    /// and subgroup membership are the caller's to check
    /// ([`Affine::check_subgroup_vartime`]). Variable time: for received, public
    /// encodings.
    ///
    /// # Errors
    /// [`PointError::Encoding`] or [`PointError::NotOnCurve`].
    pub fn from_sec1_vartime(bytes: &[u8]) -> Result<Self, PointError> {
        let len = Fe::<C::F>::BYTES;
        let (&tag, rest) = bytes.split_first().ok_or(PointError::Encoding)?;
        match tag {
            0x02 | 0x03 if rest.len() == len => {
                let x = Fe::from_be_bytes(rest).ok_or(PointError::Encoding)?;
                Self::decompress_vartime(x, tag == 0x03)
            }
            0x04 if rest.len() == 2 * len => {
                let x = Fe::from_be_bytes(&rest[..len]).ok_or(PointError::Encoding)?;
                let y = Fe::from_be_bytes(&rest[len..]).ok_or(PointError::Encoding)?;
                Affine::new(x, y).ok_or(PointError::NotOnCurve)
            }
            _ => Err(PointError::Encoding),
        }
    }

    /// Whether P lies in the subgroup of order n, by halving instead of a scalar
    /// multiplication: P ∈ 2E iff Tr(x) = Tr(a); for cofactor 2 that is the subgroup.
    /// For cofactor 4 (cyclic 2-part, E[2] = {∞, (0, 1)}) a half Q = (u, ·) of P,
    /// u = √(y + (λ + 1)·x) with λ² + λ = x + a, must lie in 2E as well. Infinity
    /// counts as in the subgroup; callers reject it separately. Variable time, for
    /// public points (it branches on the traces, and the half-trace is table-driven).
    pub fn in_subgroup_fast_vartime(&self) -> bool {
        if self.infinity {
            return true;
        }
        let tr_a = C::A;
        if self.x.trace() != tr_a {
            return false;
        }
        match C::COFACTOR {
            2 => true,
            4 => {
                let lambda = self.x.add(&a_coef::<C>()).half_trace_vartime();
                let u = self.y.add(&lambda.add(&Fe::ONE).mul(&self.x)).sqrt();
                u.trace() == tr_a
            }
            _ => Point::from(*self)
                .mul_vartime(&unhex(C::ORDER))
                .is_infinity(),
        }
    }

    /// Checks that the point is not infinity and that n·P = ∞ (by the variable-time
    /// [`Point::mul_vartime`]: for public points).
    ///
    /// # Errors
    /// [`PointError::Infinity`] or [`PointError::NotInSubgroup`].
    pub fn check_subgroup_vartime(&self) -> Result<(), PointError> {
        if self.infinity {
            return Err(PointError::Infinity);
        }
        if !Point::from(*self)
            .mul_vartime(&unhex(C::ORDER))
            .is_infinity()
        {
            return Err(PointError::NotInSubgroup);
        }
        Ok(())
    }
}

/// A point in López–Dahab projective coordinates (x = X/Z, y = Y/Z²); Z = 0 is
/// infinity.
#[derive(Clone, Copy)]
pub struct Point<C: Curve> {
    x: Fe<C::F>,
    y: Fe<C::F>,
    z: Fe<C::F>,
    _c: PhantomData<C>,
}

impl<C: Curve> fmt::Debug for Point<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_affine(), f)
    }
}

impl<C: Curve> ConstantTimeEq for Point<C> {
    /// Both ∞ (Z = 0), or both finite with X1·Z2 = X2·Z1 and Y1·Z2² = Y2·Z1² (the same
    /// affine x = X/Z and y = Y/Z²), by masks and without inversions.
    fn ct_eq(&self, other: &Self) -> Choice {
        let (a, b) = (self.z.ct_eq(&Fe::ZERO), other.z.ct_eq(&Fe::ZERO));
        let same_x = self.x.mul(&other.z).ct_eq(&other.x.mul(&self.z));
        let same_y = self
            .y
            .mul(&other.z.square())
            .ct_eq(&other.y.mul(&self.z.square()));
        (a & b) | (!a & !b & same_x & same_y)
    }
}

impl<C: Curve> PartialEq for Point<C> {
    /// Constant time ([`ConstantTimeEq::ct_eq`]); only the answer is a `bool`.
    fn eq(&self, other: &Self) -> bool {
        self.ct_eq(other).into()
    }
}

impl<C: Curve> ConditionallySelectable for Point<C> {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        Point {
            x: Fe::conditional_select(&a.x, &b.x, choice),
            y: Fe::conditional_select(&a.y, &b.y, choice),
            z: Fe::conditional_select(&a.z, &b.z, choice),
            _c: PhantomData,
        }
    }
}

impl<C: Curve> From<Affine<C>> for Point<C> {
    /// (x, y, 1), or ∞ selected by mask.
    fn from(p: Affine<C>) -> Self {
        Point::conditional_select(
            &Point::from_xy(p.x, p.y),
            &Point::INFINITY,
            Choice::from(u8::from(p.infinity)),
        )
    }
}

impl<C: Curve> Point<C> {
    /// The point at infinity.
    pub const INFINITY: Self = Point {
        x: Fe::ONE,
        y: Fe::ZERO,
        z: Fe::ZERO,
        _c: PhantomData,
    };

    /// Whether this is infinity (Z = 0, compared in constant time; the answer is a
    /// `bool` to branch on, so for points whose being ∞ is public).
    pub fn is_infinity(&self) -> bool {
        self.z.is_zero()
    }

    /// (X, Y, 1) for an affine point (x, y) other than infinity.
    fn from_xy(x: Fe<C::F>, y: Fe<C::F>) -> Self {
        Point {
            x,
            y,
            z: Fe::ONE,
            _c: PhantomData,
        }
    }

    /// Affine coordinates, in constant time: one inversion (Itoh–Tsujii, which maps 0
    /// to 0, so infinity comes out as (0, 0) with its flag set from a mask).
    pub fn to_affine(&self) -> Affine<C> {
        let zi = self.z.invert();
        Affine {
            x: self.x.mul(&zi),
            y: self.y.mul(&zi.square()),
            infinity: self.z.ct_eq(&Fe::ZERO).into(),
            _c: PhantomData,
        }
    }

    /// Whether P ≠ ∞ has affine x-coordinate `x`, checked as X = x·Z without the
    /// inversion that [`Point::to_affine`] costs (for ECDSA's final comparison); both
    /// conditions are computed in full (constant-time `==`) and combined without a
    /// short circuit.
    pub fn has_x(&self, x: &Fe<C::F>) -> bool {
        let finite = !self.z.is_zero();
        let same_x = self.x == x.mul(&self.z);
        finite & same_x
    }

    /// τ(P) = (X², Y², Z²).
    #[must_use]
    pub fn frobenius(&self) -> Self {
        Point {
            x: self.x.square(),
            y: self.y.square(),
            z: self.z.square(),
            _c: PhantomData,
        }
    }

    /// −P = (X, XZ + Y, Z).
    #[must_use]
    pub fn neg(&self) -> Self {
        Point {
            y: self.x.mul(&self.z).add(&self.y),
            ..*self
        }
    }

    /// 2P in López–Dahab coordinates, b = 1 (Hankerson–Menezes–Vanstone, Guide to
    /// ECC, eq. 3.24): Z3 = X²Z², X3 = X⁴ + Z⁴, Y3 = Z⁴·Z3 + X3·(aZ3 + Y² + Z⁴).
    #[must_use]
    pub fn double(&self) -> Self {
        let x2 = self.x.square();
        let z2 = self.z.square();
        let z4 = z2.square();
        let z3 = x2.mul(&z2);
        let x3 = x2.square().add(&z4);
        let mut t = self.y.square().add(&z4);
        if C::A {
            t = t.add(&z3);
        }
        let y3 = z4.mul(&z3).add(&x3.mul(&t));
        Point {
            x: x3,
            y: y3,
            z: z3,
            _c: PhantomData,
        }
    }

    /// Steps 3–4 of Guide to ECC Alg. 3.25 (mixed López–Dahab + affine addition, b = 1):
    /// (Z², A = y_Q·Z² + Y, B = x_Q·Z + X). A and B tell the exceptional cases apart
    /// (B = 0: P = ±Q; then A = 0: P = Q).
    #[inline(always)]
    fn add_affine_ab(&self, q: &Affine<C>) -> [Fe<C::F>; 3] {
        let z1s = self.z.square();
        let a = q.y.mul(&z1s).add(&self.y);
        let b = q.x.mul(&self.z).add(&self.x);
        [z1s, a, b]
    }

    /// The rest of Alg. 3.25 from (Z², A, B): P + Q when P ≠ ∞, Q ≠ ∞ and P ≠ ±Q.
    #[inline(always)]
    fn add_affine_rest(&self, q: &Affine<C>, [z1s, a, b]: [Fe<C::F>; 3]) -> Self {
        let c = self.z.mul(&b);
        let mut cz = c;
        if C::A {
            cz = cz.add(&z1s);
        }
        let d = b.square().mul(&cz);
        let z3 = c.square();
        let e = a.mul(&c);
        let x3 = a.square().add(&d).add(&e);
        let f = x3.add(&q.x.mul(&z3));
        let g = q.x.add(&q.y).mul(&z3.square());
        let y3 = e.add(&z3).mul(&f).add(&g);
        Point {
            x: x3,
            y: y3,
            z: z3,
            _c: PhantomData,
        }
    }

    /// P + Q for affine Q, complete and in constant time: Guide to ECC Alg. 3.25 with
    /// its exceptional cases (Q = ∞: P; P = ∞: Q; P = Q: 2Q; P = −Q: ∞, which the
    /// formulas already give as Z = C² = 0) taken by masked selects instead of
    /// branches, so 2Q is computed every time.
    #[must_use]
    pub fn add_affine(&self, q: &Affine<C>) -> Self {
        let ab = self.add_affine_ab(q);
        let (a_zero, b_zero) = (ab[1].ct_eq(&Fe::ZERO), ab[2].ct_eq(&Fe::ZERO));
        let sum = self.add_affine_rest(q, ab);
        let p_inf = self.z.ct_eq(&Fe::ZERO);
        let q_inf = Choice::from(u8::from(q.infinity));
        let q_proj = Point::from_xy(q.x, q.y);
        let mut r = Point::conditional_select(&sum, &q_proj.double(), a_zero & b_zero & !p_inf);
        r.conditional_assign(&q_proj, p_inf);
        r.conditional_assign(self, q_inf);
        r
    }

    /// P + Q for affine Q (Guide to ECC Alg. 3.25), branching to doubling or infinity
    /// in the exceptional cases: variable time, for public points.
    #[must_use]
    pub fn add_affine_vartime(&self, q: &Affine<C>) -> Self {
        if q.infinity {
            return *self;
        }
        if self.z.is_zero_vartime() {
            return Point::from_xy(q.x, q.y);
        }
        let ab = self.add_affine_ab(q);
        if ab[2].is_zero_vartime() {
            return if ab[1].is_zero_vartime() {
                Point::from_xy(q.x, q.y).double()
            } else {
                Self::INFINITY
            };
        }
        self.add_affine_rest(q, ab)
    }

    /// −P if `choice`, else P, in constant time: −(X, Y, Z) = (X, XZ + Y, Z).
    fn conditional_negate(&mut self, choice: Choice) {
        let neg_y = self.x.mul(&self.z).add(&self.y);
        self.y.conditional_assign(&neg_y, choice);
    }

    /// P + Q for projective Q (via Q's affine form; variable time).
    #[must_use]
    pub fn add_vartime(&self, q: &Self) -> Self {
        self.add_affine_vartime(&q.to_affine())
    }

    /// k·P for a big-endian scalar by left-to-right double-and-add: variable time,
    /// for public scalars only.
    #[must_use]
    pub fn mul_vartime(&self, k: &[u8]) -> Self {
        let p = self.to_affine();
        let mut acc = Self::INFINITY;
        for byte in k {
            for i in (0..8).rev() {
                acc = acc.double();
                if (byte >> i) & 1 == 1 {
                    acc = acc.add_affine_vartime(&p);
                }
            }
        }
        acc
    }
}

/// k·P in constant time for a secret big-endian scalar of any length: the López–Dahab
/// x-only Montgomery ladder over all `8·k.len()` bits with masked swaps, then recovery
/// of y (Guide to ECC Alg. 3.40). `P` must be a public affine point other than infinity
/// with x ≠ 0. (Signing uses the faster [`mul_base`]; this serves as its independent
/// reference in the tests.)
pub fn mul<C: Curve>(p: &Affine<C>, k: &[u8]) -> Point<C> {
    let x = p.x;
    // R0 = ∞ = (1 : 0), R1 = P = (x : 1); the ladder keeps R1 − R0 = P.
    let (mut x1, mut z1) = (Fe::ONE, Fe::ZERO);
    let (mut x2, mut z2) = (x, Fe::ONE);
    let mut swapped = Choice::from(0);
    for byte in k {
        for i in (0..8).rev() {
            let bit = Choice::from((byte >> i) & 1);
            Fe::conditional_swap(&mut x1, &mut x2, bit ^ swapped);
            Fe::conditional_swap(&mut z1, &mut z2, bit ^ swapped);
            swapped = bit;
            // R1 = R0 + R1 (difference P): Z = (X1Z2 + X2Z1)², X = xZ + X1Z2·X2Z1.
            let t1 = x1.mul(&z2);
            let t2 = x2.mul(&z1);
            z2 = t1.add(&t2).square();
            x2 = x.mul(&z2).add(&t1.mul(&t2));
            // R0 = 2R0 (b = 1): Z = X²Z², X = X⁴ + Z⁴.
            let x1s = x1.square();
            let z1s = z1.square();
            z1 = x1s.mul(&z1s);
            x1 = x1s.square().add(&z1s.square());
        }
    }
    Fe::conditional_swap(&mut x1, &mut x2, swapped);
    Fe::conditional_swap(&mut z1, &mut z2, swapped);
    recover_y(p, x1, z1, x2, z2)
}

/// y-recovery after the ladder (Guide to ECC Alg. 3.40, Mxy): with x1 = X1/Z1 the
/// x of R0 = kP and x2 = X2/Z2 that of R0 + P,
/// `y1 = (x1 + x)·((x1 + x)(x2 + x) + x² + y)/x + y`. The cases k ≡ 0 (Z1 = 0: ∞) and
/// k ≡ −1 (Z2 = 0: −P) mod the point's order are selected by mask.
fn recover_y<C: Curve>(
    p: &Affine<C>,
    x1: Fe<C::F>,
    z1: Fe<C::F>,
    x2: Fe<C::F>,
    z2: Fe<C::F>,
) -> Point<C> {
    let (x, y) = (p.x, p.y);
    let x1n = x1.mul(&z1.invert());
    let x2n = x2.mul(&z2.invert());
    let u = x1n.add(&x);
    let y1 = u
        .mul(&u.mul(&x2n.add(&x)).add(&x.square()).add(&y))
        .mul(&x.invert())
        .add(&y);
    let mut r = Point::from_xy(x1n, y1);
    r.conditional_assign(&Point::from_xy(x, x.add(&y)), z2.ct_eq(&Fe::ZERO));
    r.conditional_assign(&Point::INFINITY, z1.ct_eq(&Fe::ZERO));
    r
}

/// Width-w NAF of a big-endian scalar, least significant digit first: digits are 0 or
/// odd in (−2^(w−1), 2^(w−1)), and any two nonzero digits are at least w apart.
fn wnaf(k: &[u8], w: u32) -> Vec<i8> {
    // Little-endian bits with room for the carry.
    let mut bits: Vec<u8> = k
        .iter()
        .rev()
        .flat_map(|b| (0..8).map(move |i| (b >> i) & 1))
        .collect();
    bits.push(0);
    bits.push(0);
    let mut out = vec![0i8; bits.len()];
    let full = 1i32 << w;
    let mut i = 0;
    while i < bits.len() {
        if bits[i] == 0 {
            i += 1;
            continue;
        }
        let mut v = 0i32;
        for j in 0..w as usize {
            if i + j < bits.len() {
                v |= i32::from(bits[i + j]) << j;
            }
        }
        if v >= full / 2 {
            v -= full;
        }
        out[i] = v as i8;
        // Subtract v at position i: clear the window, then propagate a borrow/carry.
        for j in 0..w as usize {
            if i + j < bits.len() {
                bits[i + j] = 0;
            }
        }
        if v < 0 {
            let mut j = i + w as usize;
            while j < bits.len() {
                if bits[j] == 0 {
                    bits[j] = 1;
                    break;
                }
                bits[j] = 0;
                j += 1;
            }
        }
        i += w as usize;
    }
    while out.last() == Some(&0) {
        out.pop();
    }
    out
}

/// Window width of [`multi_mul_vartime`].
const W: u32 = 5;

/// The odd multiples P, 3P, …, (2^(W−1) − 1)P of a public point, affine. Built with
/// mixed additions of 2P and one batched inversion (Montgomery's trick) instead of one
/// inversion per point.
pub struct OddTable<C: Curve>(Vec<Affine<C>>);

impl<C: Curve> fmt::Debug for OddTable<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OddTable({} points)", self.0.len())
    }
}

impl<C: Curve> OddTable<C> {
    /// The table of the public point `p` (variable-time additions).
    pub fn new_vartime(p: &Affine<C>) -> Self {
        let count = 1usize << (W - 2);
        let two_p = p.double_vartime();
        let mut proj = vec![Point::from(*p)];
        for _ in 1..count {
            let next = proj[proj.len() - 1].add_affine_vartime(&two_p);
            proj.push(next);
        }
        OddTable(batch_to_affine_vartime(&proj))
    }

    fn get(&self, digit: i8) -> Affine<C> {
        let p = self.0[usize::from(digit.unsigned_abs()) / 2];
        if digit < 0 {
            p.neg()
        } else {
            p
        }
    }
}

/// Affine forms of many points with one inversion (points at infinity stay so).
pub fn batch_to_affine_vartime<C: Curve>(points: &[Point<C>]) -> Vec<Affine<C>> {
    // prefix[i] = Z_0 · … · Z_{i−1}, skipping zero Z.
    let mut prefix = Vec::with_capacity(points.len());
    let mut acc = Fe::<C::F>::ONE;
    for p in points {
        prefix.push(acc);
        if !p.z.is_zero_vartime() {
            acc = acc.mul(&p.z);
        }
    }
    let mut inv = acc.invert_vartime();
    let mut out = vec![Affine::INFINITY; points.len()];
    for (i, p) in points.iter().enumerate().rev() {
        if p.z.is_zero_vartime() {
            continue;
        }
        let zi = inv.mul(&prefix[i]);
        inv = inv.mul(&p.z);
        out[i] = Affine {
            x: p.x.mul(&zi),
            y: p.y.mul(&zi.square()),
            infinity: false,
            _c: PhantomData,
        };
    }
    out
}

/// `Σ k_i·P_i` for public scalars and points by interleaved width-W NAF (one shared
/// doubling chain; variable time, for verification).
pub fn multi_mul_vartime<C: Curve>(terms: &[(&[u8], &Affine<C>)]) -> Point<C> {
    let tables: Vec<OddTable<C>> = terms
        .iter()
        .map(|(_, p)| OddTable::new_vartime(p))
        .collect();
    let refs: Vec<(&[u8], &OddTable<C>)> = terms
        .iter()
        .zip(&tables)
        .map(|((k, _), t)| (*k, t))
        .collect();
    multi_mul_tables_vartime(&refs)
}

/// [`multi_mul_vartime`] with the points' tables already built (e.g.
/// [`Curve::generator_table`]).
pub fn multi_mul_tables_vartime<C: Curve>(terms: &[(&[u8], &OddTable<C>)]) -> Point<C> {
    let nafs: Vec<Vec<i8>> = terms.iter().map(|(k, _)| wnaf(k, W)).collect();
    let tables: Vec<&OddTable<C>> = terms.iter().map(|(_, t)| *t).collect();
    let len = nafs.iter().map(Vec::len).max().unwrap_or(0);
    let mut acc = Point::INFINITY;
    for i in (0..len).rev() {
        acc = acc.double();
        for (naf, table) in nafs.iter().zip(&tables) {
            let d = naf.get(i).copied().unwrap_or(0);
            if d != 0 {
                acc = acc.add_affine_vartime(&table.get(d));
            }
        }
    }
    acc
}

/// A fixed-base table for constant-time multiplication of a public base B of prime
/// order n > 2^8: for each 4-bit window i, the odd multiples (2j + 1)·16^i·B, j < 8.
pub struct Comb<C: Curve> {
    windows: Vec<OddTable<C>>,
    /// The first window whose addition may meet an exceptional case (see [`mul_base`]).
    first_exceptional: usize,
}

impl<C: Curve> fmt::Debug for Comb<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Comb({} windows)", self.windows.len())
    }
}

impl<C: Curve> Comb<C> {
    /// The comb of the public point `base`, which must have the curve's prime order n
    /// (n > 2^8): enough windows for any scalar below n. Built with variable-time
    /// arithmetic from the public base; [`mul_base`] reads it in constant time.
    pub fn new_vartime(base: &Affine<C>) -> Self {
        let bits = C::scalar_modulus().bits() as usize;
        let count = bits.div_ceil(4) + 1;
        let mut windows = Vec::with_capacity(count);
        let mut b = *base;
        for _ in 0..count {
            windows.push(OddTable::new_vartime(&b));
            b = (0..4).fold(b, |p, _| p.double_vartime());
        }
        Comb {
            windows,
            // 16^(i+1) ≤ 2^(bits−1) ≤ n for every earlier window.
            first_exceptional: (bits - 1) / 4,
        }
    }
}

/// `table[index]`, reading every entry and keeping the one whose index matches by mask.
fn lookup<C: Curve>(table: &OddTable<C>, index: u64) -> Affine<C> {
    let (mut x, mut y) = (Fe::ZERO, Fe::ZERO);
    for (j, p) in table.0.iter().enumerate() {
        let hit = (j as u64).ct_eq(&index);
        x.conditional_assign(&p.x, hit);
        y.conditional_assign(&p.y, hit);
    }
    Affine {
        x,
        y,
        infinity: false,
        _c: PhantomData,
    }
}

/// `k·B` for a secret scalar k with the comb of B, in constant time. K = k or n − k,
/// whichever is odd (selected by mask; k = 0 gives K = n), is recoded into signed odd
/// 4-bit digits, every one nonzero: d = (K mod 32) − 16, K ← 2⌊K/32⌋ + 1, so that
/// K = Σ d_i·16^i with |d_i| ≤ 15, the last digit taking what remains. Each window's
/// point d_i·16^i·B is read with a full-table scan and negated by mask, the points are
/// summed, and the sum is negated back by mask if n − k was used.
///
/// The running sum S_i = Σ_{j<i} d_j·16^j is odd with |S_i| < 16^i, so S_i and
/// S_i ± d_i·16^i are nonzero integers below 16^(i+1) in absolute value: while
/// 16^(i+1) ≤ n, none is ≡ 0 (mod n) and the plain mixed-addition formulas are exact.
/// The last windows, where an exceptional case can occur for some k, use the complete
/// [`Point::add_affine`].
pub fn mul_base<C: Curve>(comb: &Comb<C>, k: &SecretScalar<C>) -> Point<C> {
    let n = C::scalar_modulus().words();
    let mut kl = Zeroizing::new(*k.words());
    // n − k, and K = n − k if k is even.
    let mut nk = Zeroizing::new([0u64; WORDS]);
    let mut borrow = 0u64;
    for i in 0..WORDS {
        let (d1, b1) = n[i].overflowing_sub(kl[i]);
        let (d2, b2) = d1.overflowing_sub(borrow);
        nk[i] = d2;
        borrow = u64::from(b1 | b2);
    }
    let even = Choice::from(1 ^ (kl[0] & 1) as u8);
    for (k, m) in kl.iter_mut().zip(nk.iter()) {
        k.conditional_assign(m, even);
    }
    let mut acc = Point::INFINITY;
    let last = comb.windows.len() - 1;
    for (i, table) in comb.windows.iter().enumerate() {
        // Digit: (K mod 32) − 16 for all but the last window, which takes the rest.
        let low = kl[0] & 31;
        let d = if i == last { low } else { low.wrapping_sub(16) };
        if i != last {
            // K ← 2⌊K/32⌋ + 1.
            for w in 0..WORDS {
                let next = if w + 1 < WORDS { kl[w + 1] } else { 0 };
                kl[w] = (kl[w] >> 5) | (next << 59);
            }
            for w in (0..WORDS).rev() {
                let carry = if w > 0 { kl[w - 1] >> 63 } else { 0 };
                kl[w] = (kl[w] << 1) | carry;
            }
            kl[0] |= 1;
        }
        let negative = Choice::from((d >> 63) as u8);
        let magnitude = u64::conditional_select(&d, &d.wrapping_neg(), negative); // odd
        let mut p = lookup(table, magnitude >> 1);
        let neg_y = p.x.add(&p.y);
        p.y.conditional_assign(&neg_y, negative);
        acc = if i == 0 {
            Point::from_xy(p.x, p.y)
        } else if i < comb.first_exceptional {
            acc.add_affine_rest(&p, acc.add_affine_ab(&p))
        } else {
            acc.add_affine(&p)
        };
    }
    acc.conditional_negate(even);
    acc
}
