//! Field elements and the three NIST fields.

use std::fmt;
use std::marker::PhantomData;
use std::sync::OnceLock;

use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

/// Most words an element of these fields needs (m = 283: 5 words).
const MAX_WORDS: usize = 5;

/// A binary field GF(2^m) with reduction polynomial `x^m + Σ x^tap + 1`.
pub trait Field: Copy + Send + Sync + 'static {
    /// Extension degree m.
    const M: usize;
    /// Words per element: ceil(m / 64).
    const N: usize;
    /// The middle exponents of f (between 0 and m), all below m − 63 so that one
    /// folding pass per word suffices.
    const TAPS: &'static [usize];
    /// Name, e.g. `GF(2^163)`.
    const NAME: &'static str;
    /// Reduces a `2N`-word product modulo f into `N` words (word-wise folding with
    /// the field's constant shifts, Guide to ECC §2.3.5).
    fn reduce(c: &mut [u64; 2 * MAX_WORDS]) -> [u64; MAX_WORDS];
    /// Bit i set iff Tr(x^i) = 1, so that Tr(a) = parity(a AND mask); and √x. Both
    /// computed once from the definitions.
    fn constants() -> &'static FieldConstants;
}

/// Per-field constants derived once from the definitions.
#[derive(Debug)]
pub struct FieldConstants {
    trace_mask: [u64; MAX_WORDS],
    sqrt_x: [u64; MAX_WORDS],
    /// The half-trace, which is linear: H(a) = Σ a_i·H(x^i), tabulated on windows.
    half_trace: WindowTable,
    /// The Itoh–Tsujii chain of the inversions, with a ↦ a^(2^k) tabulated for its
    /// long steps ([`Fe::invert_vartime`]).
    inversion: Vec<ChainStep>,
}

/// One step of the Itoh–Tsujii chain (see [`itoh_tsujii_steps`]).
#[derive(Debug)]
struct ChainStep {
    /// Squarings from a^(2^k − 1) to a^(2^2k − 1).
    k: usize,
    /// Whether one more squaring and a multiplication by a follow.
    then_one: bool,
    /// a ↦ a^(2^k) as a [`WindowTable`] when k ≥ [`MULTI_SQUARE_MIN`].
    table: Option<WindowTable>,
}

/// The Itoh–Tsujii chain for GF(2^m), one step per bit of m − 1 below the top: from
/// a^(2^k − 1), k squarings and a multiplication give a^(2^2k − 1); where the bit is
/// set, one more squaring and a multiplication by a give a^(2^(2k+1) − 1). Returns
/// (k, bit) per step.
fn itoh_tsujii_steps(m: usize) -> Vec<(usize, bool)> {
    let e = m - 1;
    let bits = usize::BITS - e.leading_zeros();
    let mut k = 1;
    let mut steps = Vec::new();
    for i in (0..bits - 1).rev() {
        let bit = (e >> i) & 1 == 1;
        steps.push((k, bit));
        k = 2 * k + usize::from(bit);
    }
    debug_assert_eq!(k, e);
    steps
}

/// Squaring runs at least this long use a [`WindowTable`] in `invert_vartime`: one
/// evaluation costs about as much as 4 squarings.
const MULTI_SQUARE_MIN: usize = 8;

/// A GF(2)-linear map on field elements tabulated on 4-bit windows of its input: the
/// image of a is the XOR of one entry per window, ⌈m/4⌉ lookups ("multi-squaring"
/// for a ↦ a^(2^k): Bos, Kaihara, Kleinjung, Lenstra, Montgomery, "PlayStation 3
/// computing breaks 2^60 barrier", and Aranha, López, Hankerson, LATINCRYPT 2010,
/// §4). The lookups are indexed by the input, so only `_vartime` code uses it.
#[derive(Debug)]
struct WindowTable(Vec<[u64; MAX_WORDS]>);

impl WindowTable {
    /// From the images of the basis x^0, …, x^(m−1).
    fn from_basis(basis: &[[u64; MAX_WORDS]]) -> Self {
        let mut table = Vec::with_capacity(basis.len().div_ceil(4) * 16);
        for chunk in basis.chunks(4) {
            for v in 0..16usize {
                let mut acc = [0u64; MAX_WORDS];
                for (j, image) in chunk.iter().enumerate() {
                    if (v >> j) & 1 == 1 {
                        for (a, b) in acc.iter_mut().zip(image) {
                            *a ^= b;
                        }
                    }
                }
                table.push(acc);
            }
        }
        WindowTable(table)
    }

    #[inline]
    fn apply<F: Field>(&self, a: &Fe<F>) -> Fe<F> {
        let mut w = [0u64; MAX_WORDS];
        for (i, entries) in self.0.chunks_exact(16).enumerate() {
            let window = (a.w[i / 16] >> (4 * (i % 16))) & 15;
            let image = &entries[window as usize];
            for (acc, b) in w[..F::N].iter_mut().zip(image) {
                *acc ^= b;
            }
        }
        Fe { w, _f: PhantomData }
    }
}

/// The table of a ↦ a^(2^k): the basis images are powers of x^(2^k).
fn multi_square_table<F: Field>(k: usize) -> WindowTable {
    let mut w = [0u64; MAX_WORDS];
    w[0] = 2;
    let c = Fe::<F> { w, _f: PhantomData }.square_times(k);
    let mut image = Fe::<F>::ONE;
    let basis: Vec<_> = (0..F::M)
        .map(|_| {
            let b = image.w;
            image = image.mul(&c);
            b
        })
        .collect();
    WindowTable::from_basis(&basis)
}

fn derive_constants<F: Field>() -> FieldConstants {
    let mut trace_mask = [0u64; MAX_WORDS];
    let mut half_trace_basis = Vec::with_capacity(F::M);
    for i in 0..F::M {
        let mut w = [0u64; MAX_WORDS];
        w[i / 64] = 1 << (i % 64);
        let xi = Fe::<F> { w, _f: PhantomData };
        if xi.trace_slow() {
            trace_mask[i / 64] |= 1 << (i % 64);
        }
        half_trace_basis.push(xi.half_trace_slow().w);
    }
    let x = Fe::<F> {
        w: [2, 0, 0, 0, 0],
        _f: PhantomData,
    };
    // k grows along the chain, so every table is distinct.
    let inversion = itoh_tsujii_steps(F::M)
        .into_iter()
        .map(|(k, then_one)| ChainStep {
            k,
            then_one,
            table: (k >= MULTI_SQUARE_MIN).then(|| multi_square_table::<F>(k)),
        })
        .collect();
    FieldConstants {
        trace_mask,
        sqrt_x: x.square_times(F::M - 1).w,
        half_trace: WindowTable::from_basis(&half_trace_basis),
        inversion,
    }
}

macro_rules! field {
    ($(#[$doc:meta])* $name:ident, $m:expr, $n:expr, $taps:expr, $reduce:path) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $name;
        impl Field for $name {
            const M: usize = $m;
            const N: usize = $n;
            const TAPS: &'static [usize] = &$taps;
            const NAME: &'static str = concat!("GF(2^", stringify!($m), ")");
            #[inline(always)]
            fn reduce(c: &mut [u64; 2 * MAX_WORDS]) -> [u64; MAX_WORDS] {
                $reduce(c)
            }
            fn constants() -> &'static FieldConstants {
                static C: OnceLock<FieldConstants> = OnceLock::new();
                C.get_or_init(derive_constants::<$name>)
            }
        }
    };
}

field!(
    /// GF(2^163), f = x^163 + x^7 + x^6 + x^3 + 1 (K-163).
    F163, 163, 3, [7, 6, 3], reduce163
);
field!(
    /// GF(2^233), f = x^233 + x^74 + 1 (K-233).
    F233, 233, 4, [74], reduce233
);
field!(
    /// GF(2^5), f = x^5 + x^2 + 1: a tiny field for exhaustive curve tests.
    F5, 5, 1, [2], reduce5
);
field!(
    /// GF(2^283), f = x^283 + x^12 + x^7 + x^5 + 1 (K-283).
    F283, 283, 5, [12, 7, 5], reduce283
);

/// The multiplication backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// PCLMULQDQ carry-less multiply.
    Clmul,
    /// Portable branch-free shift-and-add.
    Portable,
}

impl Backend {
    /// The fastest backend this processor supports: [`Backend::Clmul`] when it has
    /// PCLMULQDQ (`clmul::available`: known at compile time where the build targets
    /// it, else asked of [`hopsig_cpu::has`], hopsig's one CPU-feature check).
    pub fn detect() -> Backend {
        if crate::clmul::available() {
            Backend::Clmul
        } else {
            Backend::Portable
        }
    }
}

/// An element of the field `F`.
#[derive(Clone, Copy)]
pub struct Fe<F: Field> {
    w: [u64; MAX_WORDS],
    _f: PhantomData<F>,
}

impl<F: Field> ConstantTimeEq for Fe<F> {
    fn ct_eq(&self, other: &Self) -> Choice {
        self.w.ct_eq(&other.w)
    }
}

impl<F: Field> ConditionallySelectable for Fe<F> {
    /// `b` if `choice`, else `a`, through masks (no branch on `choice`).
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        let mut w = [0u64; MAX_WORDS];
        for ((o, x), y) in w.iter_mut().zip(&a.w).zip(&b.w) {
            *o = u64::conditional_select(x, y, choice);
        }
        Fe { w, _f: PhantomData }
    }
}

impl<F: Field> PartialEq for Fe<F> {
    /// Constant time: the OR of all word differences is computed in full and passed
    /// through one optimisation barrier (`black_box`) before the test, so the compiler
    /// cannot stop at the first differing word. Only the answer is a `bool`; secret
    /// code that must not branch on it uses [`ConstantTimeEq::ct_eq`] and keeps the
    /// [`Choice`].
    fn eq(&self, other: &Self) -> bool {
        let diff = self
            .w
            .iter()
            .zip(&other.w)
            .fold(0u64, |acc, (a, b)| acc | (a ^ b));
        core::hint::black_box(diff) == 0
    }
}
impl<F: Field> Eq for Fe<F> {}

impl<F: Field> fmt::Debug for Fe<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(0x", F::NAME)?;
        for w in self.w[..F::N].iter().rev() {
            write!(f, "{w:016x}")?;
        }
        write!(f, ")")
    }
}

impl<F: Field> Default for Fe<F> {
    fn default() -> Self {
        Self::ZERO
    }
}

/// Mask of the valid bits of the top word.
fn top_mask<F: Field>() -> u64 {
    let r = F::M % 64;
    if r == 0 {
        u64::MAX
    } else {
        (1u64 << r) - 1
    }
}

/// Reduces the `2N`-word product `c` modulo f into `N` words.
// Only the PCLMULQDQ paths (x86-64) reduce whole products this way.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) fn reduce_words<F: Field>(c: &mut [u64; 2 * MAX_WORDS]) -> [u64; MAX_WORDS] {
    F::reduce(c)
}

/// f = x^163 + x^7 + x^6 + x^3 + 1. Word i ≥ 3 holds x^(64i + j) = x^(64(i−3) + 29 + j)·x^163,
/// so it folds into words i − 3 and i − 2 at bit offsets 29 + {0, 3, 6, 7}; then the
/// bits at and above x^163 in word 2 fold into word 0.
#[inline(always)]
fn reduce163(c: &mut [u64; 2 * MAX_WORDS]) -> [u64; MAX_WORDS] {
    for i in (3..6).rev() {
        let t = c[i];
        c[i - 3] ^= (t << 29) ^ (t << 32) ^ (t << 35) ^ (t << 36);
        c[i - 2] ^= (t >> 35) ^ (t >> 32) ^ (t >> 29) ^ (t >> 28);
    }
    let t = c[2] >> 35;
    c[0] ^= t ^ (t << 3) ^ (t << 6) ^ (t << 7);
    [c[0], c[1], c[2] & ((1 << 35) - 1), 0, 0]
}

/// f = x^233 + x^74 + 1. Word i ≥ 4 folds into word i − 4 at bit 23 and, for the x^74
/// term, at bit 97 = 64 + 33; then the bits from x^233 up in word 3 fold into x^0 and
/// x^74 (word 1, bit 10).
#[inline(always)]
fn reduce233(c: &mut [u64; 2 * MAX_WORDS]) -> [u64; MAX_WORDS] {
    for i in (4..8).rev() {
        let t = c[i];
        c[i - 4] ^= t << 23;
        c[i - 3] ^= (t >> 41) ^ (t << 33);
        c[i - 2] ^= t >> 31;
    }
    let t = c[3] >> 41;
    c[0] ^= t;
    c[1] ^= t << 10;
    [c[0], c[1], c[2], c[3] & ((1 << 41) - 1), 0]
}

/// f = x^283 + x^12 + x^7 + x^5 + 1. Word i ≥ 5 folds into words i − 5 and i − 4 at bit
/// offsets 37 + {0, 5, 7, 12}; then the bits from x^283 up in word 4 fold into word 0.
#[inline(always)]
fn reduce283(c: &mut [u64; 2 * MAX_WORDS]) -> [u64; MAX_WORDS] {
    for i in (5..10).rev() {
        let t = c[i];
        c[i - 5] ^= (t << 37) ^ (t << 42) ^ (t << 44) ^ (t << 49);
        c[i - 4] ^= (t >> 27) ^ (t >> 22) ^ (t >> 20) ^ (t >> 15);
    }
    let t = c[4] >> 27;
    c[0] ^= t ^ (t << 5) ^ (t << 7) ^ (t << 12);
    [c[0], c[1], c[2], c[3], c[4] & ((1 << 27) - 1)]
}

/// f = x^5 + x^2 + 1 (the exhaustive-test field): bit at a time.
fn reduce5(c: &mut [u64; 2 * MAX_WORDS]) -> [u64; MAX_WORDS] {
    reduce_tiny::<F5>(c[0])
}

/// Collects the even-position bits of `x` into the low 32 bits (inverse of spreading).
fn squeeze32(x: u64) -> u64 {
    let mut x = x & 0x5555_5555_5555_5555;
    x = (x | x >> 1) & 0x3333_3333_3333_3333;
    x = (x | x >> 2) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | x >> 4) & 0x00ff_00ff_00ff_00ff;
    x = (x | x >> 8) & 0x0000_ffff_0000_ffff;
    (x | x >> 16) & 0x0000_0000_ffff_ffff
}

/// Bit-at-a-time reduction for the tiny test fields (m < 32), whose products fit one
/// word; branch-free like the rest.
fn reduce_tiny<F: Field>(mut c: u64) -> [u64; MAX_WORDS] {
    let mut f = 1u64 << F::M | 1;
    for &d in F::TAPS {
        f |= 1 << d;
    }
    for j in (F::M..2 * F::M - 1).rev() {
        let mask = 0u64.wrapping_sub((c >> j) & 1);
        c ^= (f << (j - F::M)) & mask;
    }
    [c, 0, 0, 0, 0]
}

impl<F: Field> Fe<F> {
    /// 0.
    pub const ZERO: Self = Fe {
        w: [0; MAX_WORDS],
        _f: PhantomData,
    };
    /// 1.
    pub const ONE: Self = Fe {
        w: [1, 0, 0, 0, 0],
        _f: PhantomData,
    };

    /// Bytes of the big-endian encoding: ceil(m / 8) (SEC 1 §2.3.5).
    pub const BYTES: usize = F::M.div_ceil(8);

    /// The element with these little-endian words, if its degree is below m.
    pub fn from_words(words: &[u64]) -> Option<Self> {
        if words.len() != F::N || words[F::N - 1] & !top_mask::<F>() != 0 {
            return None;
        }
        let mut w = [0u64; MAX_WORDS];
        w[..F::N].copy_from_slice(words);
        Some(Fe { w, _f: PhantomData })
    }

    /// The little-endian words.
    pub fn words(&self) -> &[u64] {
        &self.w[..F::N]
    }

    /// SEC 1 field-element-to-octet-string: big-endian, [`Self::BYTES`] bytes.
    pub fn to_be_bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; Self::BYTES];
        for (i, byte) in out.iter_mut().rev().enumerate() {
            *byte = (self.w[i / 8] >> (8 * (i % 8))) as u8;
        }
        out
    }

    /// SEC 1 octet-string-to-field-element: exactly [`Self::BYTES`] bytes, degree < m.
    pub fn from_be_bytes(bytes: &[u8]) -> Option<Self> {
        if bytes.len() != Self::BYTES {
            return None;
        }
        let mut w = [0u64; MAX_WORDS];
        for (i, &byte) in bytes.iter().rev().enumerate() {
            w[i / 8] |= u64::from(byte) << (8 * (i % 8));
        }
        Self::from_words(&w[..F::N])
    }

    /// Coefficient of x^i (0 for i ≥ m).
    pub fn bit(&self, i: usize) -> bool {
        i < F::M && (self.w[i / 64] >> (i % 64)) & 1 == 1
    }

    /// Whether this is 0, computed in constant time as `==` is; the answer is a `bool`
    /// (secret code that must not branch on it uses `ct_eq(&Fe::ZERO)`).
    pub fn is_zero(&self) -> bool {
        *self == Self::ZERO
    }

    /// Whether this is 0, without the optimisation barrier of [`Fe::is_zero`] (the
    /// compiler may then branch on the words): for the `_vartime` point arithmetic on
    /// public values, whose hot loops would pay for the barrier.
    pub(crate) fn is_zero_vartime(&self) -> bool {
        self.eq_vartime(&Self::ZERO)
    }

    /// `self == other` without the optimisation barrier (public values, as
    /// [`Fe::is_zero_vartime`]).
    pub(crate) fn eq_vartime(&self, other: &Self) -> bool {
        self.w
            .iter()
            .zip(&other.w)
            .fold(0u64, |acc, (a, b)| acc | (a ^ b))
            == 0
    }

    /// `self + other` (XOR).
    #[must_use]
    #[inline]
    pub fn add(&self, other: &Self) -> Self {
        let mut w = self.w;
        for (a, b) in w.iter_mut().zip(&other.w) {
            *a ^= b;
        }
        Fe { w, _f: PhantomData }
    }

    /// `self · other` with the fastest backend available.
    #[must_use]
    #[inline]
    pub fn mul(&self, other: &Self) -> Self {
        match crate::clmul::mul_reduce::<F>(&self.w, &other.w) {
            Some(w) => Fe { w, _f: PhantomData },
            None => self.mul_with(other, Backend::Portable),
        }
    }

    /// `self · other` with a chosen backend (both are tested against a reference).
    #[must_use]
    pub fn mul_with(&self, other: &Self, backend: Backend) -> Self {
        let mut c = [0u64; 2 * MAX_WORDS];
        let (a, b) = (&self.w[..F::N], &other.w[..F::N]);
        match backend {
            Backend::Clmul => crate::clmul::mul(a, b, &mut c[..2 * F::N]),
            Backend::Portable => crate::portable::mul(a, b, &mut c[..2 * F::N]),
        }
        Fe {
            w: F::reduce(&mut c),
            _f: PhantomData,
        }
    }

    /// `self²`.
    ///
    /// Always inlined: the Frobenius map and the inversion chains are runs of
    /// squarings, and a call per squaring costs about as much as the squaring.
    #[must_use]
    #[inline(always)]
    pub fn square(&self) -> Self {
        match crate::clmul::square_reduce::<F>(&self.w) {
            Some(w) => Fe { w, _f: PhantomData },
            None => self.square_portable(),
        }
    }

    /// `self²` with a chosen backend (both are tested against a reference); `Clmul`
    /// falls back to the portable code on a processor without PCLMULQDQ.
    #[must_use]
    pub fn square_with(&self, backend: Backend) -> Self {
        match backend {
            Backend::Clmul => match crate::clmul::square_reduce::<F>(&self.w) {
                Some(w) => Fe { w, _f: PhantomData },
                None => self.square_portable(),
            },
            Backend::Portable => self.square_portable(),
        }
    }

    /// Portable squaring: spread the bits (a zero after each), then reduce.
    #[inline(never)]
    fn square_portable(&self) -> Self {
        let mut c = [0u64; 2 * MAX_WORDS];
        crate::portable::square(&self.w[..F::N], &mut c[..2 * F::N]);
        Fe {
            w: F::reduce(&mut c),
            _f: PhantomData,
        }
    }

    /// `self^(2^k)`.
    #[must_use]
    pub fn square_times(&self, k: usize) -> Self {
        (0..k).fold(*self, |a, _| a.square())
    }

    /// `self⁻¹` (0 maps to 0), by Itoh–Tsujii (Guide to ECC Alg. 2.50 setting):
    /// `a⁻¹ = (a^(2^(m−1) − 1))²`, building `a^(2^k − 1)` along the bits of m − 1. The
    /// work depends only on m.
    #[must_use]
    pub fn invert(&self) -> Self {
        self.itoh_tsujii(|b, step| b.square_times(step.k))
    }

    /// `self⁻¹` for public values: the same chain with its long squaring runs done by
    /// multi-squaring tables, whose lookups are indexed by the value (cache timing).
    #[must_use]
    pub fn invert_vartime(&self) -> Self {
        self.itoh_tsujii(|b, step| match &step.table {
            Some(table) => table.apply(b),
            None => b.square_times(step.k),
        })
    }

    /// The chain (computed once per field), with `pow2k` raising to 2^k.
    fn itoh_tsujii(&self, pow2k: impl Fn(&Self, &ChainStep) -> Self) -> Self {
        let mut b = *self;
        for step in &F::constants().inversion {
            b = pow2k(&b, step).mul(&b);
            if step.then_one {
                b = b.square().mul(self);
            }
        }
        b.square()
    }

    /// The square root (every element has exactly one): with a = a_e(x²) + x·a_o(x²),
    /// √a = a_e(x) + √x·a_o(x), where a_e, a_o collect the even and odd coefficients.
    #[must_use]
    pub fn sqrt(&self) -> Self {
        let (mut even, mut odd) = ([0u64; MAX_WORDS], [0u64; MAX_WORDS]);
        for (i, &w) in self.w[..F::N].iter().enumerate() {
            let (e, o) = (squeeze32(w), squeeze32(w >> 1));
            even[i / 2] |= e << (32 * (i % 2));
            odd[i / 2] |= o << (32 * (i % 2));
        }
        let sx = Fe::<F> {
            w: F::constants().sqrt_x,
            _f: PhantomData,
        };
        Fe {
            w: even,
            _f: PhantomData,
        }
        .add(&sx.mul(&Fe {
            w: odd,
            _f: PhantomData,
        }))
    }

    /// The absolute trace `Σ_{i<m} self^(2^i)`, 0 or 1, as the parity of the bits under
    /// the field's trace mask.
    pub fn trace(&self) -> bool {
        let mask = &F::constants().trace_mask;
        let acc = self
            .w
            .iter()
            .zip(mask)
            .fold(0u64, |acc, (a, m)| acc ^ (a & m));
        acc.count_ones() % 2 == 1
    }

    /// The trace from its definition (m − 1 squarings); derives the mask.
    fn trace_slow(&self) -> bool {
        let mut t = *self;
        let mut acc = *self;
        for _ in 1..F::M {
            t = t.square();
            acc = acc.add(&t);
        }
        acc == Self::ONE
    }

    /// The half-trace `Σ_{i ≤ (m−1)/2} self^(2^(2i))` (m odd): when `Tr(self) = 0`,
    /// `z = H(self)` solves `z² + z = self` (point decompression, subgroup checks).
    /// Evaluated from a table of the images of 4-bit windows, indexed by the value:
    /// for public values.
    #[must_use]
    pub fn half_trace_vartime(&self) -> Self {
        F::constants().half_trace.apply(self)
    }

    /// The half-trace from its definition; derives the basis images.
    fn half_trace_slow(&self) -> Self {
        let mut t = *self;
        let mut acc = *self;
        for _ in 0..(F::M - 1) / 2 {
            t = t.square().square();
            acc = acc.add(&t);
        }
        acc
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::reference::Poly;
    use proptest::prelude::*;

    fn fe<F: Field>(words: &[u64]) -> Fe<F> {
        let mut w = words[..F::N].to_vec();
        w[F::N - 1] &= top_mask::<F>();
        Fe::from_words(&w).unwrap()
    }

    fn check_all<F: Field>(a: &[u64], b: &[u64]) {
        let (x, y) = (fe::<F>(a), fe::<F>(b));
        let (rx, ry) = (Poly::from_words(x.words()), Poly::from_words(y.words()));
        let f = Poly::modulus(F::M, F::TAPS);
        let want = rx.mul(&ry).rem(&f);
        for backend in [Backend::Portable, Backend::Clmul] {
            assert_eq!(
                Poly::from_words(x.mul_with(&y, backend).words()),
                want,
                "{backend:?}"
            );
        }
        let square = rx.mul(&rx).rem(&f);
        assert_eq!(Poly::from_words(x.square().words()), square);
        for backend in [Backend::Portable, Backend::Clmul] {
            assert_eq!(
                Poly::from_words(x.square_with(backend).words()),
                square,
                "{backend:?} square"
            );
        }
        assert_eq!(x.add(&y), fe::<F>(&rx.add(&ry).words(F::N)));
        if !x.is_zero() {
            assert_eq!(x.mul(&x.invert()), Fe::ONE);
        }
        assert_eq!(x.invert_vartime(), x.invert());
        for step in &F::constants().inversion {
            if let Some(table) = &step.table {
                assert_eq!(table.apply(&x), x.square_times(step.k), "a^(2^{})", step.k);
            }
        }
        assert_eq!(x.sqrt().square(), x);
        // Trace against its definition in the reference arithmetic.
        let mut t = rx.clone();
        let mut acc = rx.clone();
        for _ in 1..F::M {
            t = t.mul(&t).rem(&f);
            acc = acc.add(&t);
        }
        assert_eq!(x.trace(), acc == Poly::from_words(&[1]));
        assert_eq!(x.trace(), x.trace_slow());
        assert_eq!(x.sqrt(), x.square_times(F::M - 1));
        assert_eq!(x.half_trace_vartime(), x.half_trace_slow());
        if !x.trace() {
            let z = x.half_trace_vartime();
            assert_eq!(z.square().add(&z), x);
        }
        let bytes = x.to_be_bytes();
        assert_eq!(Fe::<F>::from_be_bytes(&bytes).unwrap(), x);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn f163_matches_reference(a in prop::array::uniform5(any::<u64>()), b in prop::array::uniform5(any::<u64>())) {
            check_all::<F163>(&a, &b);
        }
        #[test]
        fn f233_matches_reference(a in prop::array::uniform5(any::<u64>()), b in prop::array::uniform5(any::<u64>())) {
            check_all::<F233>(&a, &b);
        }
        #[test]
        fn f283_matches_reference(a in prop::array::uniform5(any::<u64>()), b in prop::array::uniform5(any::<u64>())) {
            check_all::<F283>(&a, &b);
        }
    }

    #[test]
    fn tiny_field_exhaustive() {
        for a in 0..32u64 {
            for b in 0..32u64 {
                check_all::<F5>(&[a, 0, 0, 0, 0], &[b, 0, 0, 0, 0]);
            }
        }
    }

    #[test]
    fn edge_values() {
        let all_ones = [u64::MAX; 5];
        check_all::<F163>(&all_ones, &all_ones);
        check_all::<F233>(&all_ones, &[1, 0, 0, 0, 0]);
        check_all::<F283>(&all_ones, &[0, 0, 0, 0, 1 << 26]);
        assert_eq!(Fe::<F163>::ZERO.invert(), Fe::ZERO);
        assert_eq!(Fe::<F233>::ONE.invert(), Fe::ONE);
        assert_eq!(Fe::<F283>::ZERO.invert_vartime(), Fe::ZERO);
        // The chains end at m − 1 and the long runs have tables.
        assert_eq!(
            itoh_tsujii_steps(163),
            [
                (1, false),
                (2, true),
                (5, false),
                (10, false),
                (20, false),
                (40, true),
                (81, false)
            ]
        );
        let tabulated = F163::constants()
            .inversion
            .iter()
            .filter(|s| s.table.is_some());
        assert_eq!(tabulated.map(|s| s.k).collect::<Vec<_>>(), [10, 20, 40, 81]);
        // Degree ≥ m is not an element; wrong lengths are refused.
        assert!(Fe::<F163>::from_words(&[0, 0, 1 << 35]).is_none());
        assert!(Fe::<F163>::from_be_bytes(&[0x08; 21]).is_none());
        assert!(Fe::<F163>::from_be_bytes(&[0; 20]).is_none());
        assert_eq!(Fe::<F283>::BYTES, 36);
    }
}
