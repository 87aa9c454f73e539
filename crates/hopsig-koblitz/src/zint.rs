//! Fixed-width signed integers for the τ-adic scalar arithmetic of [`crate::tau`]:
//! `L` little-endian 64-bit limbs in two's complement, with wrapping operations. The
//! values met there are public (verification scalars and curve constants), so the
//! code is plain variable-time integer arithmetic; callers check that results fit.

use std::cmp::Ordering;

/// A signed integer of `64·L` bits in two's complement (wrapping arithmetic).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Int<const L: usize>(pub(crate) [u64; L]);

impl<const L: usize> Int<L> {
    pub(crate) const ZERO: Self = Int([0; L]);

    pub(crate) fn from_i64(v: i64) -> Self {
        let mut w = [if v < 0 { u64::MAX } else { 0 }; L];
        w[0] = v as u64;
        Int(w)
    }

    /// The non-negative integer with these big-endian bytes, if it fits below 2^(64L − 1).
    pub(crate) fn from_be_bytes(bytes: &[u8]) -> Option<Self> {
        let mut w = [0u64; L];
        for (i, &b) in bytes.iter().rev().enumerate() {
            if b != 0 {
                *w.get_mut(i / 8)? |= u64::from(b) << (8 * (i % 8));
            }
        }
        let v = Int(w);
        (!v.is_negative()).then_some(v)
    }

    pub(crate) fn is_negative(&self) -> bool {
        self.0[L - 1] >> 63 == 1
    }

    #[cfg(test)]
    pub(crate) fn is_zero(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    pub(crate) fn is_odd(&self) -> bool {
        self.0[0] & 1 == 1
    }

    /// The low 64 bits (the value mod 2^64).
    pub(crate) fn low(&self) -> u64 {
        self.0[0]
    }

    pub(crate) fn add(&self, o: &Self) -> Self {
        let mut w = [0u64; L];
        let mut carry = false;
        for ((x, a), b) in w.iter_mut().zip(&self.0).zip(&o.0) {
            let (s1, c1) = a.overflowing_add(*b);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            *x = s2;
            carry = c1 | c2;
        }
        Int(w)
    }

    pub(crate) fn neg(&self) -> Self {
        let mut w = self.0;
        for x in &mut w {
            *x = !*x;
        }
        Int(w).add(&Self::from_i64(1))
    }

    pub(crate) fn sub(&self, o: &Self) -> Self {
        self.add(&o.neg())
    }

    pub(crate) fn add_i64(&self, v: i64) -> Self {
        self.add(&Self::from_i64(v))
    }

    /// The product mod 2^(64L).
    pub(crate) fn mul(&self, o: &Self) -> Self {
        let mut w = [0u64; L];
        for i in 0..L {
            let mut carry = 0u128;
            for j in 0..L - i {
                let t = u128::from(self.0[i]) * u128::from(o.0[j]) + u128::from(w[i + j]) + carry;
                w[i + j] = t as u64;
                carry = t >> 64;
            }
        }
        Int(w)
    }

    pub(crate) fn mul_i64(&self, v: i64) -> Self {
        self.mul(&Self::from_i64(v))
    }

    /// ⌊self / 2^s⌋ (arithmetic shift), s < 64L.
    pub(crate) fn sar(&self, s: usize) -> Self {
        let fill = if self.is_negative() { u64::MAX } else { 0 };
        let (words, bits) = (s / 64, s % 64);
        let limb = |i: usize| if i < L { self.0[i] } else { fill };
        let mut w = [0u64; L];
        for (i, x) in w.iter_mut().enumerate() {
            let lo = limb(i + words);
            *x = if bits == 0 {
                lo
            } else {
                (lo >> bits) | (limb(i + words + 1) << (64 - bits))
            };
        }
        Int(w)
    }

    /// self · 2^s mod 2^(64L), s < 64L.
    pub(crate) fn shl(&self, s: usize) -> Self {
        let (words, bits) = (s / 64, s % 64);
        let mut w = [0u64; L];
        for (i, x) in w.iter_mut().enumerate().skip(words) {
            *x = self.0[i - words] << bits;
            if bits != 0 && i > words {
                *x |= self.0[i - words - 1] >> (64 - bits);
            }
        }
        Int(w)
    }

    /// The value as an `i64`, if it fits.
    pub(crate) fn to_i64(self) -> Option<i64> {
        let v = self.0[0] as i64;
        (Self::from_i64(v) == self).then_some(v)
    }

    /// The value as an `i128`, if it fits.
    pub(crate) fn to_i128(self) -> Option<i128> {
        let fill = if self.is_negative() { u64::MAX } else { 0 };
        let hi = self.0.get(1).copied().unwrap_or(fill);
        let v = (u128::from(self.0[0]) | (u128::from(hi) << 64)) as i128;
        let back = Self::from_i128(v);
        (back == self).then_some(v)
    }

    fn from_i128(v: i128) -> Self {
        let mut w = [if v < 0 { u64::MAX } else { 0 }; L];
        w[0] = v as u64;
        if L > 1 {
            w[1] = (v >> 64) as u64;
        }
        Int(w)
    }

    /// The same value in `M` limbs, if it fits.
    pub(crate) fn resize<const M: usize>(&self) -> Option<Int<M>> {
        let out = self.resize_unchecked::<M>();
        (out.resize_unchecked::<L>() == *self && out.is_negative() == self.is_negative())
            .then_some(out)
    }

    /// Sign-extended or truncated to `M` limbs.
    fn resize_unchecked<const M: usize>(&self) -> Int<M> {
        let fill = if self.is_negative() { u64::MAX } else { 0 };
        let mut w = [fill; M];
        for (x, &y) in w.iter_mut().zip(&self.0) {
            *x = y;
        }
        Int(w)
    }

    /// Number of bits of |self|.
    pub(crate) fn bits(&self) -> usize {
        let a = if self.is_negative() {
            self.neg()
        } else {
            *self
        };
        a.0.iter()
            .rposition(|&w| w != 0)
            .map_or(0, |i| 64 * i + 64 - a.0[i].leading_zeros() as usize)
    }

    /// ⌊self / d⌋ for self ≥ 0 and d > 0, by shift and subtract (slow; for constants
    /// computed once).
    pub(crate) fn div_floor(&self, d: &Self) -> Self {
        let mut q = Self::ZERO;
        let mut r = Self::ZERO;
        for i in (0..self.bits()).rev() {
            r = r.shl(1);
            r.0[0] |= (self.0[i / 64] >> (i % 64)) & 1;
            q = q.shl(1);
            if r.cmp(d) != Ordering::Less {
                r = r.sub(d);
                q.0[0] |= 1;
            }
        }
        q
    }
}

impl<const L: usize> PartialOrd for Int<L> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<const L: usize> Ord for Int<L> {
    /// Signed comparison.
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.is_negative(), other.is_negative()) {
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => self.0.iter().rev().cmp(other.0.iter().rev()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    type I2 = Int<2>;

    fn i(v: i128) -> I2 {
        Int([v as u64, (v >> 64) as u64])
    }
    fn v(x: I2) -> i128 {
        (u128::from(x.0[0]) | (u128::from(x.0[1]) << 64)) as i128
    }

    proptest! {
        /// Against i128 (two limbs): every operation, wrapping like i128's.
        #[test]
        fn matches_i128(a in any::<i128>(), b in any::<i128>(), s in 0usize..128, small in any::<i64>()) {
            prop_assert_eq!(v(i(a).add(&i(b))), a.wrapping_add(b));
            prop_assert_eq!(v(i(a).sub(&i(b))), a.wrapping_sub(b));
            prop_assert_eq!(v(i(a).neg()), a.wrapping_neg());
            prop_assert_eq!(v(i(a).mul(&i(b))), a.wrapping_mul(b));
            prop_assert_eq!(v(i(a).add_i64(small)), a.wrapping_add(i128::from(small)));
            prop_assert_eq!(v(i(a).sar(s)), a >> s);
            prop_assert_eq!(v(i(a).shl(s)), a.wrapping_shl(s as u32));
            prop_assert_eq!(i(a).cmp(&i(b)), a.cmp(&b));
            prop_assert_eq!(i(a).is_odd(), a & 1 == 1);
            prop_assert_eq!(i(a).bits(), 128 - a.unsigned_abs().leading_zeros() as usize);
            prop_assert_eq!(i(a).to_i64(), i64::try_from(a).ok());
            prop_assert_eq!(i(a).resize::<1>().map(|x| x.0[0] as i64), i64::try_from(a).ok());
            let wide = i(a).resize::<4>().unwrap();
            prop_assert_eq!(wide.resize::<2>().unwrap(), i(a));
            prop_assert_eq!(wide.to_i128(), Some(a));
            prop_assert_eq!(i(a).to_i128(), Some(a));
            prop_assert_eq!(Int::<1>::from_i64(small).to_i128(), Some(i128::from(small)));
            // Above i128: a·2^64 in three limbs fits only when a·2^64 does.
            let big = Int::<3>([0, a as u64, (a >> 64) as u64]);
            prop_assert_eq!(big.to_i128(), a.checked_mul(1 << 64).filter(|_| i64::try_from(a).is_ok()));
            if a >= 0 && b > 0 {
                prop_assert_eq!(v(i(a).div_floor(&i(b))), a / b);
            }
        }

        #[test]
        fn from_be_bytes_matches(a in any::<u64>(), b in any::<u32>()) {
            let mut bytes = b.to_be_bytes().to_vec();
            bytes.extend_from_slice(&a.to_be_bytes());
            let want = (i128::from(b) << 64) | i128::from(a);
            prop_assert_eq!(v(I2::from_be_bytes(&bytes).unwrap()), want);
        }
    }

    #[test]
    fn from_be_bytes_limits() {
        // Leading zero bytes beyond the width are fine; a set sign bit or an extra
        // nonzero byte is not.
        assert_eq!(
            Int::<1>::from_be_bytes(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 5]),
            Some(Int([5]))
        );
        assert_eq!(Int::<1>::from_be_bytes(&[0x80, 0, 0, 0, 0, 0, 0, 0]), None);
        assert_eq!(Int::<1>::from_be_bytes(&[1, 0, 0, 0, 0, 0, 0, 0, 0]), None);
    }
}
