//! Integers modulo the group order n, sized for these curves (n < 2^320).
//!
//! [`Scalar`] holds public values, for the scalar arithmetic of signature verification
//! and implicit-certificate extraction: u₁ = e·s⁻¹, u₂ = r·s⁻¹, −u₂·r_A (SEC 1 §4.1.4
//! step 4; 003 eq. 9). [`SecretScalar`] holds secrets (the ECDSA key d and nonce k,
//! the ICNR values k_A, k_T, s_T, s̄_A, s_A) and computes on them in constant time:
//! no branch and no memory address depends on the value, it zeroizes on drop and its
//! `Debug` prints nothing of it.
//!
//! Public values may use the variable-time inversion, named so. Multiplication is
//! Montgomery's (CIOS:
//! Koç, Acar, Kaliski, "Analyzing and comparing Montgomery multiplication
//! algorithms", IEEE Micro 1996) and has no data-dependent branch. Inversion is
//! Bernstein–Yang's safegcd ("Fast constant-time gcd computation and modular
//! inversion", TCHES 2019) in its variable-time form with batches of 62 divsteps on
//! signed 62-bit limbs, as laid out in libsecp256k1's `doc/safegcd_implementation.md`:
//! §2 divsteps, §3–5 batching and the transition matrix, §6–7 updating d and e modulo
//! n, §8 variable-time divsteps with `eta = −delta`, §9 shrinking f and g.
//!
//! Secret scalars are added and subtracted with one masked correction by n (Guide to
//! ECC Alg. 2.7, 2.8, the comparison replaced by the borrow of a full-width
//! subtraction), multiplied by Montgomery's method, inverted by Fermat's little theorem,
//! a⁻¹ = a^(n−2) for prime n, with left-to-right 4-bit windows over the public exponent
//! (Handbook of Applied Cryptography Alg. 14.82), and reduced from up to
//! 64·⌈bitlen(n)/64⌉ bits (the x-coordinate of k·G, below 2^m) by two Montgomery
//! multiplications.

use std::marker::PhantomData;

use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::curve::{order_bytes, Curve};

/// Words of the largest supported order (n < 2^320).
pub(crate) const WORDS: usize = 5;
/// Signed 62-bit limbs for safegcd: 5 × 62 = 310 bits hold values in (−2n, n).
const LIMBS62: usize = 5;
const M62: u64 = u64::MAX >> 2;

/// The constants of arithmetic modulo one odd n, computed once per curve.
#[derive(Debug, Clone)]
pub struct Modulus {
    /// n, little-endian words (the top ones zero).
    n: [u64; WORDS],
    /// Words in use: ⌈bitlen(n)/64⌉.
    len: usize,
    /// bitlen(n).
    bits: u32,
    /// −n⁻¹ mod 2^64 (Montgomery).
    n_neg_inv: u64,
    /// R² mod n with R = 2^(64·len).
    r2: [u64; WORDS],
    /// n in signed 62-bit limbs.
    n62: [i64; LIMBS62],
    /// n⁻¹ mod 2^62 (safegcd's update of d and e).
    n_inv62: u64,
}

impl Modulus {
    /// The constants for the odd modulus `n` (big-endian).
    ///
    /// # Panics
    /// If n is even, zero, or wider than 320 bits: the curve constants are fixed and
    /// tested, so this is a programming error, not an input error.
    #[must_use]
    pub fn new(n_be: &[u8]) -> Self {
        let n = words_from_be(n_be).unwrap_or([0; WORDS]);
        assert!(n[0] & 1 == 1, "the order must be odd and below 2^320");
        let len = (0..WORDS).rev().find(|&i| n[i] != 0).map_or(1, |i| i + 1);
        let bits = 64 * len as u32 - n[len - 1].leading_zeros();
        // Newton's iteration doubles the correct low bits: n·n ≡ 1 (mod 8) for odd n.
        let mut inv = n[0];
        for _ in 0..5 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(n[0].wrapping_mul(inv)));
        }
        let mut m = Modulus {
            n,
            len,
            bits,
            n_neg_inv: inv.wrapping_neg(),
            r2: [0; WORDS],
            n62: to_signed62(&n),
            n_inv62: inv & M62,
        };
        // R² mod n by doubling 1 modulo n, 128·len times (once per curve).
        let mut r2 = [0u64; WORDS];
        r2[0] = 1;
        for _ in 0..128 * len {
            let carry = shl1(&mut r2);
            if carry || !less(&r2, &m.n) {
                sub_in_place(&mut r2, &m.n);
            }
        }
        m.r2 = r2;
        m
    }

    /// n, little-endian words.
    pub(crate) fn words(&self) -> &[u64; WORDS] {
        &self.n
    }

    /// bitlen(n).
    pub(crate) fn bits(&self) -> u32 {
        self.bits
    }

    /// w mod n for w < R: w·R²·R⁻¹ = w·R, then w·R·1·R⁻¹ = w (mod n), both by
    /// [`Modulus::mont_mul`], which takes any a < R. Branch-free.
    fn reduce(&self, w: &[u64; WORDS]) -> [u64; WORDS] {
        let mut one = [0u64; WORDS];
        one[0] = 1;
        self.mont_mul(&self.mont_mul(w, &self.r2), &one)
    }

    /// a·b mod n for a, b < n: a·b·R⁻¹, then ·R²·R⁻¹. Branch-free.
    fn mul(&self, a: &[u64; WORDS], b: &[u64; WORDS]) -> [u64; WORDS] {
        self.mont_mul(&self.mont_mul(a, b), &self.r2)
    }

    /// a·b·R⁻¹ mod n for a < R and b < n (CIOS), branch-free. Dispatched on the word
    /// count (public), so that each curve's loops have a fixed length and unroll.
    #[inline]
    fn mont_mul(&self, a: &[u64; WORDS], b: &[u64; WORDS]) -> [u64; WORDS] {
        match self.len {
            1 => self.mont_mul_words::<1>(a, b),
            2 => self.mont_mul_words::<2>(a, b),
            3 => self.mont_mul_words::<3>(a, b),
            4 => self.mont_mul_words::<4>(a, b),
            _ => self.mont_mul_words::<WORDS>(a, b),
        }
    }

    /// [`Modulus::mont_mul`] for a modulus of `L` = `self.len` words.
    fn mont_mul_words<const L: usize>(&self, a: &[u64; WORDS], b: &[u64; WORDS]) -> [u64; WORDS] {
        let l = L;
        let mut t = [0u64; WORDS + 2];
        for &bi in &b[..l] {
            let mut c = 0u64;
            for j in 0..l {
                let s = u128::from(t[j]) + u128::from(a[j]) * u128::from(bi) + u128::from(c);
                t[j] = s as u64;
                c = (s >> 64) as u64;
            }
            let s = u128::from(t[l]) + u128::from(c);
            t[l] = s as u64;
            t[l + 1] = (s >> 64) as u64;
            let m = t[0].wrapping_mul(self.n_neg_inv);
            let s = u128::from(t[0]) + u128::from(m) * u128::from(self.n[0]);
            let mut c = (s >> 64) as u64;
            for j in 1..l {
                let s = u128::from(t[j]) + u128::from(m) * u128::from(self.n[j]) + u128::from(c);
                t[j - 1] = s as u64;
                c = (s >> 64) as u64;
            }
            let s = u128::from(t[l]) + u128::from(c);
            t[l - 1] = s as u64;
            t[l] = t[l + 1] + (s >> 64) as u64;
        }
        // t < 2n: subtract n unless that borrows (t[l] is the carry word).
        let mut d = [0u64; WORDS];
        let mut borrow = 0u64;
        for j in 0..l {
            let (x, b1) = t[j].overflowing_sub(self.n[j]);
            let (x, b2) = x.overflowing_sub(borrow);
            d[j] = x;
            borrow = u64::from(b1 | b2);
        }
        // Keep t iff t < n: the carry word t[l] (0 or 1) is 0 and the subtraction
        // borrowed out. A mask through `Choice`, so the compiler emits no branch or
        // conditional move.
        let keep_t = Choice::from((borrow & !t[l] & 1) as u8);
        let mut out = [0u64; WORDS];
        for j in 0..l {
            out[j] = u64::conditional_select(&d[j], &t[j], keep_t);
        }
        out
    }
}

/// An integer modulo the order n of curve `C`, always in [0, n).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Scalar<C: Curve> {
    w: [u64; WORDS],
    _c: PhantomData<C>,
}

impl<C: Curve> std::fmt::Debug for Scalar<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Scalar(0x")?;
        for b in self.to_be_bytes() {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

impl<C: Curve> Scalar<C> {
    fn modulus() -> &'static Modulus {
        C::scalar_modulus()
    }

    fn from_words(w: [u64; WORDS]) -> Self {
        Scalar { w, _c: PhantomData }
    }

    /// The integer with these big-endian bytes, if it is below n (leading zero bytes
    /// are allowed).
    #[must_use]
    pub fn from_be_bytes(bytes: &[u8]) -> Option<Self> {
        let w = words_from_be(bytes)?;
        less(&w, &Self::modulus().n).then(|| Self::from_words(w))
    }

    /// The integer with these big-endian bytes reduced mod n, if it has at most
    /// 64·⌈bitlen(n)/64⌉ bits (the certificate value r_A, m bits, is one).
    #[must_use]
    pub fn reduce_be_bytes(bytes: &[u8]) -> Option<Self> {
        let md = Self::modulus();
        let w = words_from_be(bytes)?;
        if w[md.len..].iter().any(|&x| x != 0) {
            return None;
        }
        Some(Self::from_words(md.reduce(&w)))
    }

    /// e of ECDSA (SEC 1 §4.1.3 step 5, §4.1.4 step 3): the leftmost bitlen(n) bits of
    /// a hash, as an integer, reduced mod n.
    #[must_use]
    pub fn from_hash(hash: &[u8]) -> Self {
        let md = Self::modulus();
        let keep = hash.len().min(md.bits.div_ceil(8) as usize);
        let mut w = words_from_be(&hash[..keep]).unwrap_or([0; WORDS]);
        let excess = (8 * keep as u32).saturating_sub(md.bits);
        shr(&mut w, excess);
        // Now w < 2^bitlen(n) < 2n.
        if !less(&w, &md.n) {
            sub_in_place(&mut w, &md.n);
        }
        Self::from_words(w)
    }

    /// Big-endian, ⌈bitlen(n)/8⌉ bytes.
    #[must_use]
    pub fn to_be_bytes(&self) -> Vec<u8> {
        be_bytes(&self.w, Self::modulus().bits.div_ceil(8) as usize)
    }

    /// Whether this is 0.
    #[must_use]
    pub fn is_zero(&self) -> bool {
        self.w == [0; WORDS]
    }

    /// self·other mod n.
    #[must_use]
    pub fn mul(&self, other: &Self) -> Self {
        Self::from_words(Self::modulus().mul(&self.w, &other.w))
    }

    /// −self mod n.
    #[must_use]
    pub fn neg(&self) -> Self {
        if self.is_zero() {
            return *self;
        }
        let mut w = Self::modulus().n;
        sub_in_place(&mut w, &self.w);
        Self::from_words(w)
    }

    /// self⁻¹ mod n (0 maps to 0), by variable-time safegcd: for public values only.
    #[must_use]
    pub fn invert_vartime(&self) -> Self {
        Self::from_words(modinv_vartime(&self.w, Self::modulus()))
    }

    /// The candidates x ≡ self (mod n) with 0 ≤ x < 2^bits, smallest first, as
    /// big-endian bytes of `bytes` length: self, self + n, self + 2n, … (ECDSA's
    /// comparison of x(R) mod n with r, where x(R) < 2^m may exceed n).
    pub fn lifts_below(&self, bits: u32, bytes: usize) -> impl Iterator<Item = Vec<u8>> {
        let n = Self::modulus().n;
        let mut next = Some(self.w);
        std::iter::from_fn(move || {
            let cur = next?;
            let width = (0..WORDS)
                .rev()
                .find(|&i| cur[i] != 0)
                .map_or(0, |i| 64 * (i as u32 + 1) - cur[i].leading_zeros());
            if width > bits || 8 * bytes < width as usize {
                next = None;
                return None;
            }
            let mut sum = cur;
            next = (!add_in_place(&mut sum, &n)).then_some(sum);
            Some(be_bytes(&cur, bytes))
        })
    }
}

/// Random bytes [`SecretScalar::from_candidate`] takes: 40, of which it uses the first
/// 8·⌈bitlen(n)/64⌉.
pub const CANDIDATE_BYTES: usize = 8 * WORDS;

/// A secret integer modulo the order n of curve `C`, always in [0, n), with constant-time
/// arithmetic (see the module documentation). Zeroized on drop; `Debug` prints no digit.
pub struct SecretScalar<C: Curve> {
    w: [u64; WORDS],
    _c: PhantomData<C>,
}

impl<C: Curve> Zeroize for SecretScalar<C> {
    fn zeroize(&mut self) {
        self.w.zeroize();
    }
}

impl<C: Curve> Drop for SecretScalar<C> {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl<C: Curve> ZeroizeOnDrop for SecretScalar<C> {}

impl<C: Curve> Clone for SecretScalar<C> {
    fn clone(&self) -> Self {
        Self::from_words(self.w)
    }
}

impl<C: Curve> std::fmt::Debug for SecretScalar<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SecretScalar<{}>(..)", C::NAME)
    }
}

impl<C: Curve> From<&Scalar<C>> for SecretScalar<C> {
    /// A public value as an operand of secret arithmetic.
    fn from(s: &Scalar<C>) -> Self {
        Self::from_words(s.w)
    }
}

impl<C: Curve> SecretScalar<C> {
    fn modulus() -> &'static Modulus {
        C::scalar_modulus()
    }

    fn from_words(w: [u64; WORDS]) -> Self {
        SecretScalar { w, _c: PhantomData }
    }

    /// The little-endian words (for the fixed-base comb's recoding).
    pub(crate) fn words(&self) -> &[u64; WORDS] {
        &self.w
    }

    /// The integer with these big-endian bytes and whether it is below n; out of range
    /// (or longer than 40 bytes) it is 0. The length is public; the value is not: every
    /// byte is read and the range check is the borrow of a subtraction. As
    /// libsecp256k1's `scalar_set_b32`, the verdict comes as a [`Choice`] beside the
    /// value rather than a `subtle::CtOption`, whose extraction branches on it: the
    /// caller decides when the verdict is public (a key file is valid or not).
    #[must_use]
    pub fn from_be_bytes(bytes: &[u8]) -> (Self, Choice) {
        let w = Zeroizing::new(load_be(bytes).unwrap_or([0; WORDS]));
        let fits = Choice::from(u8::from(bytes.len() <= 8 * WORDS));
        let (_, below_n) = sub_borrow(&w, &Self::modulus().n);
        Self::masked(&w, fits & below_n)
    }

    /// (w, ok) if ok, else (0, ok).
    fn masked(w: &[u64; WORDS], ok: Choice) -> (Self, Choice) {
        let mut out = [0u64; WORDS];
        for (o, x) in out.iter_mut().zip(w) {
            *o = u64::conditional_select(&0, x, ok);
        }
        (Self::from_words(out), ok)
    }

    /// A candidate for a uniform scalar in [1, n − 1] from [`CANDIDATE_BYTES`] random
    /// bytes, and whether it is accepted: the first 8·⌈bitlen(n)/64⌉ bytes, big-endian,
    /// with the bits at and above bitlen(n) cleared, accepted iff 1 ≤ c ≤ n − 1
    /// (rejection sampling, as FIPS 186-4 App. B.4.2 "testing candidates" does with
    /// c ≤ n − 2 and d = c + 1: the same uniform distribution). At least half of all
    /// candidates are accepted for these curves. A rejected candidate is 0.
    #[must_use]
    pub fn from_candidate(random: &[u8; CANDIDATE_BYTES]) -> (Self, Choice) {
        let md = Self::modulus();
        let mut w = Zeroizing::new(load_be(&random[..8 * md.len]).unwrap_or([0; WORDS]));
        let (word, bit) = ((md.bits / 64) as usize, md.bits % 64);
        if word < WORDS {
            w[word] &= (1u64 << bit) - 1;
            for x in &mut w[word + 1..] {
                *x = 0;
            }
        }
        let (_, below_n) = sub_borrow(&w, &md.n);
        let nonzero = !w.ct_eq(&[0; WORDS]);
        Self::masked(&w, below_n & nonzero)
    }

    /// The integer x mod n for a big-endian x of at most 8·⌈bitlen(n)/64⌉ bytes (an
    /// x-coordinate of m bits is one): `None` for a longer input (its length is public).
    #[must_use]
    pub fn reduce_be_bytes(bytes: &[u8]) -> Option<Self> {
        let md = Self::modulus();
        if bytes.len() > 8 * md.len {
            return None;
        }
        let w = Zeroizing::new(load_be(bytes)?);
        Some(Self::from_words(md.reduce(&w)))
    }

    /// Big-endian, ⌈bitlen(n)/8⌉ bytes, in a buffer that zeroizes on drop.
    #[must_use]
    pub fn to_be_bytes(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(be_bytes(&self.w, Self::modulus().bits.div_ceil(8) as usize))
    }

    /// Whether this is 0.
    #[must_use]
    pub fn is_zero(&self) -> Choice {
        self.w.ct_eq(&[0; WORDS])
    }

    /// self + other mod n: the sum, minus n unless that borrows (the sum of two values
    /// below n < 2^320 has no carry out of 2^320 for these moduli, n < 2^(64·WORDS − 1)).
    #[must_use]
    pub fn add(&self, other: &Self) -> Self {
        let mut sum = self.w;
        let carry = add_in_place(&mut sum, &other.w);
        let (diff, borrow) = sub_borrow(&sum, &Self::modulus().n);
        // Keep the sum iff it is below n: no carry out and the subtraction borrowed.
        let keep = borrow & !Choice::from(u8::from(carry));
        let mut w = [0u64; WORDS];
        for ((o, d), s) in w.iter_mut().zip(&diff).zip(&sum) {
            *o = u64::conditional_select(d, s, keep);
        }
        sum.zeroize();
        Self::from_words(w)
    }

    /// self − other mod n: the difference, plus n if it borrowed.
    #[must_use]
    pub fn sub(&self, other: &Self) -> Self {
        let (mut diff, borrow) = sub_borrow(&self.w, &other.w);
        let mut n = Self::modulus().n;
        for x in &mut n {
            *x = u64::conditional_select(&0, x, borrow);
        }
        add_in_place(&mut diff, &n);
        Self::from_words(diff)
    }

    /// self·other mod n.
    #[must_use]
    pub fn mul(&self, other: &Self) -> Self {
        Self::from_words(Self::modulus().mul(&self.w, &other.w))
    }

    /// self⁻¹ mod n = self^(n−2) (Fermat; 0 maps to 0): left-to-right 4-bit windows over
    /// the public exponent n − 2 (HAC Alg. 14.82) in Montgomery form. The table of
    /// self^0..self^15 is indexed by the exponent's digits, which are public.
    #[must_use]
    pub fn invert(&self) -> Self {
        let md = Self::modulus();
        let mut exp = md.n;
        let mut two = [0u64; WORDS];
        two[0] = 2;
        sub_in_place(&mut exp, &two);
        let mut one = [0u64; WORDS];
        one[0] = 1;
        // table[i] = self^i·R mod n.
        let mut table = Zeroizing::new([[0u64; WORDS]; 16]);
        table[0] = md.mont_mul(&one, &md.r2);
        table[1] = md.mont_mul(&self.w, &md.r2);
        for i in 2..16 {
            table[i] = md.mont_mul(&table[i - 1], &table[1]);
        }
        let digits = (md.bits as usize).div_ceil(4);
        let digit = |i: usize| ((exp[i / 16] >> (4 * (i % 16))) & 15) as usize;
        let mut acc = Zeroizing::new(table[digit(digits - 1)]);
        for i in (0..digits - 1).rev() {
            for _ in 0..4 {
                *acc = md.mont_mul(&acc, &acc);
            }
            let d = digit(i);
            if d != 0 {
                *acc = md.mont_mul(&acc, &table[d]);
            }
        }
        Self::from_words(md.mont_mul(&acc, &one))
    }
}

/// Little-endian words of a public big-endian integer, if it fits in 320 bits (leading
/// zero bytes are skipped, which depends on the value).
fn words_from_be(bytes: &[u8]) -> Option<[u64; WORDS]> {
    let start = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
    load_be(&bytes[start..])
}

/// Little-endian words of a big-endian byte string of at most 40 bytes, reading every
/// byte whatever its value (only the length decides anything).
fn load_be(bytes: &[u8]) -> Option<[u64; WORDS]> {
    if bytes.len() > 8 * WORDS {
        return None;
    }
    let mut w = [0u64; WORDS];
    for (i, &b) in bytes.iter().rev().enumerate() {
        w[i / 8] |= u64::from(b) << (8 * (i % 8));
    }
    Some(w)
}

/// a − b mod 2^320 and the borrow out, branch-free.
fn sub_borrow(a: &[u64; WORDS], b: &[u64; WORDS]) -> ([u64; WORDS], Choice) {
    let mut out = *a;
    let borrow = sub_in_place(&mut out, b);
    (out, Choice::from(u8::from(borrow)))
}

/// Little-endian words as `len` big-endian bytes (truncated, or zero-padded past 320
/// bits).
fn be_bytes(w: &[u64; WORDS], len: usize) -> Vec<u8> {
    (0..len)
        .rev()
        .map(|i| w.get(i / 8).map_or(0, |x| (x >> (8 * (i % 8))) as u8))
        .collect()
}

/// a < b, for public values.
fn less(a: &[u64; WORDS], b: &[u64; WORDS]) -> bool {
    for i in (0..WORDS).rev() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
    }
    false
}

/// a −= b (mod 2^320); returns the borrow out (branch-free).
fn sub_in_place(a: &mut [u64; WORDS], b: &[u64; WORDS]) -> bool {
    let mut borrow = false;
    for (x, &y) in a.iter_mut().zip(b) {
        let (d, b1) = x.overflowing_sub(y);
        let (d, b2) = d.overflowing_sub(u64::from(borrow));
        *x = d;
        borrow = b1 | b2;
    }
    borrow
}

/// a += b; returns the carry out of 2^320 (branch-free).
fn add_in_place(a: &mut [u64; WORDS], b: &[u64; WORDS]) -> bool {
    let mut carry = false;
    for (x, &y) in a.iter_mut().zip(b) {
        let (s, c1) = x.overflowing_add(y);
        let (s, c2) = s.overflowing_add(u64::from(carry));
        *x = s;
        carry = c1 | c2;
    }
    carry
}

/// a <<= 1; returns the bit shifted out.
fn shl1(a: &mut [u64; WORDS]) -> bool {
    let mut carry = 0;
    for x in a.iter_mut() {
        let top = *x >> 63;
        *x = (*x << 1) | carry;
        carry = top;
    }
    carry == 1
}

/// a >>= k for k < 64·WORDS.
fn shr(a: &mut [u64; WORDS], k: u32) {
    let (words, bits) = ((k / 64) as usize, k % 64);
    for i in 0..WORDS {
        let lo = a.get(i + words).copied().unwrap_or(0);
        let hi = a.get(i + words + 1).copied().unwrap_or(0);
        a[i] = if bits == 0 {
            lo
        } else {
            (lo >> bits) | (hi << (64 - bits))
        };
    }
}

/// Unsigned words to signed 62-bit limbs (the value is below 2^310).
fn to_signed62(w: &[u64; WORDS]) -> [i64; LIMBS62] {
    let mut out = [0i64; LIMBS62];
    for (i, limb) in out.iter_mut().enumerate() {
        let bit = 62 * i;
        let (word, off) = (bit / 64, bit % 64);
        let lo = w.get(word).copied().unwrap_or(0) >> off;
        let hi = if off > 2 {
            w.get(word + 1).copied().unwrap_or(0) << (64 - off)
        } else {
            0
        };
        *limb = ((lo | hi) & M62) as i64;
    }
    out
}

/// Signed 62-bit limbs of a value in [0, 2^320) back to words.
fn from_signed62(l: &[i64; LIMBS62]) -> [u64; WORDS] {
    let mut w = [0u64; WORDS];
    for (i, &limb) in l.iter().enumerate() {
        let bit = 62 * i;
        let (word, off) = (bit / 64, bit % 64);
        let v = limb as u64;
        w[word] |= v << off;
        if off > 2 && word + 1 < WORDS {
            w[word + 1] |= v >> (64 - off);
        }
    }
    w
}

/// The transition matrix of 62 divsteps, scaled by 2^62 (safegcd doc §3).
struct Trans {
    u: i64,
    v: i64,
    q: i64,
    r: i64,
}

/// 62 divsteps on the low bits of f and g, skipping runs of zeros in g at once and
/// cancelling up to 6 (or 4) low bits of g per step (safegcd doc §8).
fn divsteps_62_vartime(mut eta: i64, f0: u64, g0: u64) -> (i64, Trans) {
    let (mut u, mut v, mut q, mut r) = (1u64, 0u64, 0u64, 1u64);
    let (mut f, mut g) = (f0, g0);
    let mut i: u32 = 62;
    loop {
        let zeros = (g | (u64::MAX << i)).trailing_zeros();
        g >>= zeros;
        u <<= zeros;
        v <<= zeros;
        eta -= i64::from(zeros);
        i -= zeros;
        if i == 0 {
            break;
        }
        // f and g are odd here.
        let w;
        if eta < 0 {
            eta = -eta;
            (f, g) = (g, f.wrapping_neg());
            (u, q) = (q, u.wrapping_neg());
            (v, r) = (r, v.wrapping_neg());
            let limit = (eta + 1).min(i64::from(i)) as u32;
            let m = (u64::MAX >> (64 - limit)) & 63;
            // f·(f² − 2) ≡ −f⁻¹ (mod 64), so g + w·f ≡ 0 (mod 2^limit).
            w = (f
                .wrapping_mul(g)
                .wrapping_mul(f.wrapping_mul(f).wrapping_sub(2)))
                & m;
        } else {
            let limit = (eta + 1).min(i64::from(i)) as u32;
            let m = (u64::MAX >> (64 - limit)) & 15;
            // f + ((f + 1) & 4)·2 ≡ f⁻¹ (mod 16).
            let inv = f.wrapping_add(((f.wrapping_add(1)) & 4) << 1);
            w = inv.wrapping_neg().wrapping_mul(g) & m;
        }
        g = g.wrapping_add(f.wrapping_mul(w));
        q = q.wrapping_add(u.wrapping_mul(w));
        r = r.wrapping_add(v.wrapping_mul(w));
    }
    (
        eta,
        Trans {
            u: u as i64,
            v: v as i64,
            q: q as i64,
            r: r as i64,
        },
    )
}

/// (d, e) ← T·(d, e)/2^62 mod n, keeping both in (−2n, n) (safegcd doc §6–7).
fn update_de(d: &mut [i64; LIMBS62], e: &mut [i64; LIMBS62], t: &Trans, md: &Modulus) {
    let (u, v, q, r) = (t.u, t.v, t.q, t.r);
    let (sd, se) = (d[LIMBS62 - 1] >> 63, e[LIMBS62 - 1] >> 63);
    let mut m_d = (u & sd) + (v & se);
    let mut m_e = (q & sd) + (r & se);
    let mut cd = i128::from(u) * i128::from(d[0]) + i128::from(v) * i128::from(e[0]);
    let mut ce = i128::from(q) * i128::from(d[0]) + i128::from(r) * i128::from(e[0]);
    // Choose m_d, m_e so that the low 62 bits of cd + n·m_d (ce + n·m_e) vanish.
    m_d -= (md.n_inv62.wrapping_mul(cd as u64).wrapping_add(m_d as u64) & M62) as i64;
    m_e -= (md.n_inv62.wrapping_mul(ce as u64).wrapping_add(m_e as u64) & M62) as i64;
    cd += i128::from(md.n62[0]) * i128::from(m_d);
    ce += i128::from(md.n62[0]) * i128::from(m_e);
    debug_assert_eq!(cd as u64 & M62, 0);
    debug_assert_eq!(ce as u64 & M62, 0);
    cd >>= 62;
    ce >>= 62;
    for i in 1..LIMBS62 {
        cd += i128::from(u) * i128::from(d[i])
            + i128::from(v) * i128::from(e[i])
            + i128::from(md.n62[i]) * i128::from(m_d);
        ce += i128::from(q) * i128::from(d[i])
            + i128::from(r) * i128::from(e[i])
            + i128::from(md.n62[i]) * i128::from(m_e);
        d[i - 1] = (cd as u64 & M62) as i64;
        e[i - 1] = (ce as u64 & M62) as i64;
        cd >>= 62;
        ce >>= 62;
    }
    d[LIMBS62 - 1] = cd as i64;
    e[LIMBS62 - 1] = ce as i64;
}

/// (f, g) ← T·(f, g)/2^62 on the first `len` limbs (safegcd doc §5).
fn update_fg(f: &mut [i64; LIMBS62], g: &mut [i64; LIMBS62], len: usize, t: &Trans) {
    let (u, v, q, r) = (t.u, t.v, t.q, t.r);
    let mut cf = i128::from(u) * i128::from(f[0]) + i128::from(v) * i128::from(g[0]);
    let mut cg = i128::from(q) * i128::from(f[0]) + i128::from(r) * i128::from(g[0]);
    debug_assert_eq!(cf as u64 & M62, 0);
    debug_assert_eq!(cg as u64 & M62, 0);
    cf >>= 62;
    cg >>= 62;
    for i in 1..len {
        cf += i128::from(u) * i128::from(f[i]) + i128::from(v) * i128::from(g[i]);
        cg += i128::from(q) * i128::from(f[i]) + i128::from(r) * i128::from(g[i]);
        f[i - 1] = (cf as u64 & M62) as i64;
        g[i - 1] = (cg as u64 & M62) as i64;
        cf >>= 62;
        cg >>= 62;
    }
    f[len - 1] = cf as i64;
    g[len - 1] = cg as i64;
}

/// Carries each limb's excess into the next, leaving limbs 0..4 in [0, 2^62) and the
/// sign in the top limb.
fn propagate(l: &mut [i64; LIMBS62]) {
    let mut carry = 0i64;
    for x in l.iter_mut().take(LIMBS62 - 1) {
        let t = *x + carry;
        *x = (t as u64 & M62) as i64;
        carry = t >> 62;
    }
    l[LIMBS62 - 1] += carry;
}

/// x⁻¹ mod n for x < n (0 maps to 0).
fn modinv_vartime(x: &[u64; WORDS], md: &Modulus) -> [u64; WORDS] {
    let mut d = [0i64; LIMBS62];
    let mut e = [0i64; LIMBS62];
    e[0] = 1;
    let mut f = md.n62;
    let mut g = to_signed62(x);
    let mut len = LIMBS62;
    let mut eta = -1i64;
    loop {
        let (next_eta, t) = divsteps_62_vartime(eta, f[0] as u64, g[0] as u64);
        eta = next_eta;
        update_de(&mut d, &mut e, &t, md);
        update_fg(&mut f, &mut g, len, &t);
        if g[..len].iter().all(|&x| x == 0) {
            break;
        }
        // Drop the top limb of f and g when both are only sign (safegcd doc §9).
        let (fn_, gn) = (f[len - 1], g[len - 1]);
        if len > 1 && (fn_ ^ (fn_ >> 63)) == 0 && (gn ^ (gn >> 63)) == 0 {
            f[len - 2] |= ((fn_ as u64) << 62) as i64;
            g[len - 2] |= ((gn as u64) << 62) as i64;
            len -= 1;
        }
    }
    // f = ±gcd = ±1 and d·x ≡ f (mod n); d ∈ (−2n, n).
    if f[len - 1] < 0 {
        for x in &mut d {
            *x = -*x;
        }
    }
    propagate(&mut d);
    while d[LIMBS62 - 1] < 0 {
        for (x, &y) in d.iter_mut().zip(&md.n62) {
            *x += y;
        }
        propagate(&mut d);
    }
    let mut out = from_signed62(&d);
    while !less(&out, &md.n) {
        sub_in_place(&mut out, &md.n);
    }
    out
}

/// The modulus of curve `C`'s order (for the curve macro's cached constant).
pub(crate) fn modulus_for<C: Curve>() -> Modulus {
    Modulus::new(&order_bytes::<C>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed62_round_trip() {
        let w = [
            u64::MAX,
            0x0123_4567_89ab_cdef,
            u64::MAX,
            0xfedc_ba98_7654_3210,
            0x3f,
        ];
        assert_eq!(from_signed62(&to_signed62(&w)), w);
    }

    #[test]
    fn shifts() {
        let mut w = [0, 0, 1, 0, 0];
        shr(&mut w, 65);
        assert_eq!(w, [1 << 63, 0, 0, 0, 0]);
        assert!(!shl1(&mut w));
        assert_eq!(w, [0, 1, 0, 0, 0]);
    }
}
