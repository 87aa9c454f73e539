//! Portable arithmetic modulo a 256-bit prime in radix 2^52 (five 52-bit limbs,
//! little-endian), in Montgomery form with R = 2^260: one lane of what the IFMA backend
//! ([`crate::ifma`]) does eight at a time, and the arithmetic of everything around it
//! (per-key tables, scalars mod n, the final check). Variable time: hopsig-p256
//! verifies, and verification handles public data only (issue 28), so nothing here is
//! secret.
//!
//! Two moduli: [`P`], the P-256 field prime, and [`N`], the group order (FIPS 186-5,
//! SP 800-186 §3.2.1.3). Elements are [`Fe`]s, always fully reduced (< M) in Montgomery
//! form; [`Fe::from_bytes`] / [`Fe::to_bytes`] convert from and to big-endian integers.
//! The constants were computed with Python's integers (`pow(m, -1, 2**52)`,
//! `2**520 % m`) and are checked by this module's tests against num-bigint.

use std::marker::PhantomData;

/// Limb width.
pub const LIMB_BITS: u32 = 52;
/// Mask of one limb.
pub const LIMB_MASK: u64 = (1 << LIMB_BITS) - 1;

/// A modulus M < 2^256 for Montgomery arithmetic with R = 2^260.
pub trait Modulus: Copy + Eq + std::hash::Hash + std::fmt::Debug + Send + Sync + 'static {
    /// M in radix 2^52.
    const M: [u64; 5];
    /// −M⁻¹ mod 2^52.
    const M_INV: u64;
    /// R² mod M (to enter Montgomery form).
    const R2: [u64; 5];
    /// R mod M (one, in Montgomery form).
    const R1: [u64; 5];
}

/// The P-256 field prime p = 2^256 − 2^224 + 2^192 + 2^96 − 1. Its low 96 bits are
/// ones, so p ≡ −1 (mod 2^52) and −p⁻¹ ≡ 1: a Montgomery quotient digit is the low limb
/// itself, with no multiplication (what the IFMA backend relies on).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct P;

impl Modulus for P {
    const M: [u64; 5] = [
        0xfffffffffffff,
        0xfffffffffff,
        0x0,
        0x1000000000,
        0xffffffff0000,
    ];
    const M_INV: u64 = 1;
    const R2: [u64; 5] = [
        0x300,
        0xffffffff00000,
        0xffffefffffffb,
        0xfdfffffffffff,
        0x4ffffff,
    ];
    const R1: [u64; 5] = [
        0x10,
        0xf000000000000,
        0xfffffffffffff,
        0xffeffffffffff,
        0xfffff,
    ];
}

/// The order n of the P-256 base point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct N;

impl Modulus for N {
    const M: [u64; 5] = [
        0x9cac2fc632551,
        0xada7179e84f3b,
        0xfffffffbce6fa,
        0xfffffffff,
        0xffffffff0000,
    ];
    const M_INV: u64 = 0x1c8aaee00bc4f;
    const R2: [u64; 5] = [
        0x5cc0dea6dc3ba,
        0x192a067d8a084,
        0xbec59615571bb,
        0x1fc245b2392b6,
        0xe12d9559d956,
    ];
    const R1: [u64; 5] = [
        0x353d039cdaaf0,
        0x258e8617b0c46,
        0x4319055,
        0xfff0000000000,
        0xfffff,
    ];
}

/// An element of Z/M in Montgomery form (a·R mod M), fully reduced.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fe<M: Modulus> {
    limbs: [u64; 5],
    modulus: PhantomData<M>,
}

impl<M: Modulus> std::fmt::Debug for Fe<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Fe({})", hex_of(&self.to_bytes()))
    }
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// a < b for little-endian limb vectors.
fn less(a: &[u64; 5], b: &[u64; 5]) -> bool {
    for i in (0..5).rev() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
    }
    false
}

/// a − b (a ≥ b), limbs of 52 bits.
fn sub_limbs(a: &[u64; 5], b: &[u64; 5]) -> [u64; 5] {
    let mut out = [0u64; 5];
    let mut borrow = 0u64;
    for i in 0..5 {
        let d = a[i].wrapping_sub(b[i]).wrapping_sub(borrow);
        out[i] = d & LIMB_MASK;
        borrow = d >> 63;
    }
    out
}

/// Big-endian 32 bytes → radix-2^52 limbs (the value, not reduced).
pub fn limbs_from_bytes(bytes: &[u8; 32]) -> [u64; 5] {
    let mut words = [0u64; 4];
    for (i, w) in words.iter_mut().enumerate() {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[32 - 8 * (i + 1)..32 - 8 * i]);
        *w = u64::from_be_bytes(b);
    }
    [
        words[0] & LIMB_MASK,
        (words[0] >> 52 | words[1] << 12) & LIMB_MASK,
        (words[1] >> 40 | words[2] << 24) & LIMB_MASK,
        (words[2] >> 28 | words[3] << 36) & LIMB_MASK,
        words[3] >> 16,
    ]
}

/// Radix-2^52 limbs of a value < 2^256 → big-endian 32 bytes.
pub fn limbs_to_bytes(l: &[u64; 5]) -> [u8; 32] {
    let words = [
        l[0] | l[1] << 52,
        l[1] >> 12 | l[2] << 40,
        l[2] >> 24 | l[3] << 28,
        l[3] >> 36 | l[4] << 16,
    ];
    let mut out = [0u8; 32];
    for (i, w) in words.iter().enumerate() {
        out[32 - 8 * (i + 1)..32 - 8 * i].copy_from_slice(&w.to_be_bytes());
    }
    out
}

/// Montgomery product a·b·R⁻¹ mod M of limb vectors < M (schoolbook product, then five
/// word-by-word reduction steps, HAC Algorithm 14.32 in radix 2^52).
pub fn mont_mul_limbs<M: Modulus>(a: &[u64; 5], b: &[u64; 5]) -> [u64; 5] {
    // Columns of the 520-bit product; each < 5 · 2^104 + carries, within u128.
    let mut t = [0u128; 11];
    for i in 0..5 {
        for j in 0..5 {
            t[i + j] += u128::from(a[i]) * u128::from(b[j]);
        }
    }
    for i in 0..5 {
        let q = ((t[i] as u64).wrapping_mul(M::M_INV)) & LIMB_MASK;
        for j in 0..5 {
            t[i + j] += u128::from(q) * u128::from(M::M[j]);
        }
        // t[i] is now ≡ 0 mod 2^52: carry its high part into the next column.
        t[i + 1] += t[i] >> LIMB_BITS;
    }
    let mut out = [0u64; 5];
    let mut carry = 0u128;
    for i in 0..5 {
        let v = t[i + 5] + carry;
        out[i] = (v as u64) & LIMB_MASK;
        carry = v >> LIMB_BITS;
    }
    // The result is < 2M < 2^260 (a, b < M < R), so carry is 0 here.
    debug_assert_eq!(carry, 0);
    if less(&out, &M::M) {
        out
    } else {
        sub_limbs(&out, &M::M)
    }
}

impl<M: Modulus> Fe<M> {
    /// Zero.
    pub const ZERO: Fe<M> = Fe {
        limbs: [0; 5],
        modulus: PhantomData,
    };

    /// One (R mod M).
    pub const ONE: Fe<M> = Fe {
        limbs: M::R1,
        modulus: PhantomData,
    };

    /// The big-endian integer `bytes`, if it is < M.
    pub fn from_bytes(bytes: &[u8; 32]) -> Option<Fe<M>> {
        let v = limbs_from_bytes(bytes);
        less(&v, &M::M).then(|| Fe::from_canonical_limbs(&v))
    }

    /// The big-endian integer `bytes` reduced mod M (it is < 2^256 < 2M, so one
    /// subtraction).
    pub fn from_bytes_reduced(bytes: &[u8; 32]) -> Fe<M> {
        let v = limbs_from_bytes(bytes);
        let v = if less(&v, &M::M) {
            v
        } else {
            sub_limbs(&v, &M::M)
        };
        Fe::from_canonical_limbs(&v)
    }

    /// The value `v` (radix 2^52, < M) entered into Montgomery form.
    pub fn from_canonical_limbs(v: &[u64; 5]) -> Fe<M> {
        Fe {
            limbs: mont_mul_limbs::<M>(v, &M::R2),
            modulus: PhantomData,
        }
    }

    /// The element whose Montgomery representation is `limbs` (< M), as the IFMA
    /// backend reads and writes them.
    pub fn from_montgomery_limbs(limbs: [u64; 5]) -> Option<Fe<M>> {
        (less(&limbs, &M::M) && limbs.iter().all(|&l| l <= LIMB_MASK)).then_some(Fe {
            limbs,
            modulus: PhantomData,
        })
    }

    /// The Montgomery representation a·R mod M, radix 2^52.
    pub fn montgomery_limbs(&self) -> [u64; 5] {
        self.limbs
    }

    /// The value (out of Montgomery form), radix 2^52.
    pub fn canonical_limbs(&self) -> [u64; 5] {
        mont_mul_limbs::<M>(&self.limbs, &[1, 0, 0, 0, 0])
    }

    /// The value as a big-endian integer.
    pub fn to_bytes(&self) -> [u8; 32] {
        limbs_to_bytes(&self.canonical_limbs())
    }

    /// Whether this is zero.
    pub fn is_zero(&self) -> bool {
        self.limbs == [0; 5]
    }

    /// self · rhs.
    #[must_use]
    pub fn mul(&self, rhs: &Fe<M>) -> Fe<M> {
        Fe {
            limbs: mont_mul_limbs::<M>(&self.limbs, &rhs.limbs),
            modulus: PhantomData,
        }
    }

    /// self².
    #[must_use]
    pub fn square(&self) -> Fe<M> {
        self.mul(self)
    }

    /// self + rhs.
    #[must_use]
    pub fn add(&self, rhs: &Fe<M>) -> Fe<M> {
        let mut s = [0u64; 5];
        let mut carry = 0u64;
        for (i, limb) in s.iter_mut().enumerate() {
            let v = self.limbs[i] + rhs.limbs[i] + carry;
            *limb = v & LIMB_MASK;
            carry = v >> LIMB_BITS;
        }
        // Sums stay below 2M < 2^257, inside five limbs: no carry out.
        let limbs = if less(&s, &M::M) {
            s
        } else {
            sub_limbs(&s, &M::M)
        };
        Fe {
            limbs,
            modulus: PhantomData,
        }
    }

    /// self − rhs.
    #[must_use]
    pub fn sub(&self, rhs: &Fe<M>) -> Fe<M> {
        self.add(&rhs.neg())
    }

    /// −self.
    #[must_use]
    pub fn neg(&self) -> Fe<M> {
        if self.is_zero() {
            *self
        } else {
            Fe {
                limbs: sub_limbs(&M::M, &self.limbs),
                modulus: PhantomData,
            }
        }
    }

    /// self^e for a big-endian exponent (square and multiply, variable time).
    #[must_use]
    pub fn pow_vartime(&self, e: &[u8; 32]) -> Fe<M> {
        let mut acc = Fe::ONE;
        for byte in e {
            for bit in (0..8).rev() {
                acc = acc.square();
                if byte >> bit & 1 == 1 {
                    acc = acc.mul(self);
                }
            }
        }
        acc
    }

    /// self⁻¹ (M is prime: self^(M−2), Fermat); zero has none. The reference of
    /// [`Fe::invert_vartime`].
    pub fn invert_fermat_vartime(&self) -> Option<Fe<M>> {
        if self.is_zero() {
            return None;
        }
        let mut e = limbs_to_bytes(&M::M);
        // M is odd and > 2: subtracting 2 borrows from no byte but the last.
        e[31] -= 2;
        Some(self.pow_vartime(&e))
    }

    /// self⁻¹; zero has none. Binary extended Euclid ([`invert_limbs_vartime`]) on
    /// the Montgomery representation aR, then (aR)⁻¹·R² = a⁻¹·R by two Montgomery
    /// products with R²: several times faster than Fermat's ~420 products, and the one
    /// inversion of every batch (its scalars, a key's table) is paid per call.
    pub fn invert_vartime(&self) -> Option<Fe<M>> {
        let x = invert_limbs_vartime::<M>(&self.limbs)?;
        Some(Fe {
            limbs: mont_mul_limbs::<M>(&mont_mul_limbs::<M>(&x, &M::R2), &M::R2),
            modulus: PhantomData,
        })
    }
}

/// a + b for limb vectors whose sum stays below 2^260.
fn add_limbs(a: &[u64; 5], b: &[u64; 5]) -> [u64; 5] {
    let mut out = [0u64; 5];
    let mut carry = 0u64;
    for i in 0..5 {
        let v = a[i] + b[i] + carry;
        out[i] = v & LIMB_MASK;
        carry = v >> LIMB_BITS;
    }
    out
}

/// a >> k for 1 ≤ k ≤ 52.
fn shr_limbs(a: &[u64; 5], k: u32) -> [u64; 5] {
    let mut out = [0u64; 5];
    for i in 0..5 {
        let next = if i < 4 { a[i + 1] } else { 0 };
        out[i] = ((a[i] >> k) | (next << (LIMB_BITS - k))) & LIMB_MASK;
    }
    out
}

/// x·2^(−k) mod M for x < M and 1 ≤ k ≤ 52: adds the multiple q·M (q < 2^k) that
/// clears x's low k bits (q = x·(−M⁻¹) mod 2^k, a Montgomery step) and shifts.
fn halve_limbs<M: Modulus>(x: &[u64; 5], k: u32) -> [u64; 5] {
    let q = x[0].wrapping_mul(M::M_INV) & (LIMB_MASK >> (LIMB_BITS - k));
    let mut t = [0u64; 6];
    let mut carry = 0u128;
    for j in 0..5 {
        let v = u128::from(x[j]) + u128::from(q) * u128::from(M::M[j]) + carry;
        t[j] = (v as u64) & LIMB_MASK;
        carry = v >> LIMB_BITS;
    }
    // x + q·M < 2^52·M·2 < 2^310: the carry fits the sixth limb.
    t[5] = carry as u64;
    let mut out = [0u64; 5];
    for i in 0..5 {
        out[i] = ((t[i] >> k) | (t[i + 1] << (LIMB_BITS - k))) & LIMB_MASK;
    }
    // (x + q·M)/2^k < M/2^k + M < 2M.
    if less(&out, &M::M) {
        out
    } else {
        sub_limbs(&out, &M::M)
    }
}

/// a⁻¹ mod M for 0 < a < M, M an odd prime, as plain integers (not Montgomery form):
/// binary extended Euclid (HAC Algorithm 14.61, with runs of trailing zeros removed
/// at once). Invariants x1·a ≡ u, x2·a ≡ v (mod M), gcd(u, v) = 1; u and v are odd
/// after the shifts, so the larger minus the smaller is even and non-zero until one of
/// them is 1. Variable time (public data only). `None` for a = 0 or a ≥ M, and —
/// never for a prime M — if the loop outgrows its bound.
pub fn invert_limbs_vartime<M: Modulus>(a: &[u64; 5]) -> Option<[u64; 5]> {
    let one = [1, 0, 0, 0, 0];
    if *a == [0; 5] || !less(a, &M::M) {
        return None;
    }
    let (mut u, mut v) = (*a, M::M);
    let (mut x1, mut x2) = (one, [0u64; 5]);
    // Each round removes at least one bit from u or v (520 in all), a shift run from
    // u and from v, and a subtraction.
    for _ in 0..4 * 520 {
        while u[0] & 1 == 0 {
            let k = u[0].trailing_zeros().min(LIMB_BITS);
            u = shr_limbs(&u, k);
            x1 = halve_limbs::<M>(&x1, k);
        }
        while v[0] & 1 == 0 {
            let k = v[0].trailing_zeros().min(LIMB_BITS);
            v = shr_limbs(&v, k);
            x2 = halve_limbs::<M>(&x2, k);
        }
        if u == one {
            return Some(x1);
        }
        if v == one {
            return Some(x2);
        }
        let sub_mod = |x: &[u64; 5], y: &[u64; 5]| {
            if less(x, y) {
                sub_limbs(&add_limbs(x, &M::M), y)
            } else {
                sub_limbs(x, y)
            }
        };
        if less(&u, &v) {
            v = sub_limbs(&v, &u);
            x2 = sub_mod(&x2, &x1);
        } else {
            u = sub_limbs(&u, &v);
            x1 = sub_mod(&x1, &x2);
        }
    }
    None
}

/// Inverts every element of `xs` at once (Montgomery's trick: one inversion and three
/// multiplications per element). `None` if one of them is zero (nothing is inverted).
pub fn batch_invert_vartime<M: Modulus>(xs: &mut [Fe<M>]) -> Option<()> {
    let mut prefix = Vec::with_capacity(xs.len());
    let mut acc = Fe::<M>::ONE;
    for x in xs.iter() {
        prefix.push(acc);
        acc = acc.mul(x);
    }
    let mut inv = acc.invert_vartime()?;
    for (x, before) in xs.iter_mut().zip(prefix).rev() {
        let xi = inv.mul(&before);
        inv = inv.mul(x);
        *x = xi;
    }
    Some(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use num_bigint::BigUint;
    use proptest::prelude::*;

    fn big(bytes: &[u8; 32]) -> BigUint {
        BigUint::from_bytes_be(bytes)
    }

    fn modulus<M: Modulus>() -> BigUint {
        big(&limbs_to_bytes(&M::M))
    }

    fn bytes32(v: &BigUint) -> [u8; 32] {
        let b = v.to_bytes_be();
        let mut out = [0u8; 32];
        out[32 - b.len()..].copy_from_slice(&b);
        out
    }

    fn fe<M: Modulus>(v: &BigUint) -> Fe<M> {
        Fe::from_bytes(&bytes32(&(v % modulus::<M>()))).unwrap()
    }

    #[test]
    fn constants_match_their_definitions() {
        let p = (BigUint::from(1u8) << 256u32) - (BigUint::from(1u8) << 224u32)
            + (BigUint::from(1u8) << 192u32)
            + (BigUint::from(1u8) << 96u32)
            - 1u8;
        assert_eq!(modulus::<P>(), p);
        let n = BigUint::parse_bytes(
            b"ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
            16,
        )
        .unwrap();
        assert_eq!(modulus::<N>(), n);
        fn check<M: Modulus>() {
            let m = modulus::<M>();
            let r = BigUint::from(1u8) << 260u32;
            let two52 = BigUint::from(1u8) << 52u32;
            assert_eq!((&m * M::M_INV + 1u8) % &two52, BigUint::from(0u8));
            assert_eq!(big(&limbs_to_bytes(&M::R2)), (&r * &r) % &m);
            assert_eq!(big(&limbs_to_bytes(&M::R1)), &r % &m);
        }
        check::<P>();
        check::<N>();
    }

    /// Values where carries and reductions go wrong: 0, 1, 2, M − 1, M − 2, limb
    /// boundaries, all-ones limbs, powers of two.
    fn edges<M: Modulus>() -> Vec<BigUint> {
        let m = modulus::<M>();
        let mut v = vec![
            BigUint::from(0u8),
            BigUint::from(1u8),
            BigUint::from(2u8),
            &m - 1u8,
            &m - 2u8,
            (&m + 1u8) / 2u8,
        ];
        for k in [51u32, 52, 53, 103, 104, 156, 208, 224, 255] {
            let p2 = BigUint::from(1u8) << k;
            v.push(&p2 % &m);
            v.push((&p2 - 1u8) % &m);
        }
        v
    }

    fn exhaustive_edges<M: Modulus>() {
        let m = modulus::<M>();
        for a in edges::<M>() {
            for b in edges::<M>() {
                let (x, y) = (fe::<M>(&a), fe::<M>(&b));
                assert_eq!(big(&x.mul(&y).to_bytes()), (&a * &b) % &m, "{a} * {b}");
                assert_eq!(big(&x.add(&y).to_bytes()), (&a + &b) % &m, "{a} + {b}");
                assert_eq!(big(&x.sub(&y).to_bytes()), (&a + &m - &b) % &m, "{a} - {b}");
            }
        }
    }

    #[test]
    fn edge_values_against_bigint() {
        exhaustive_edges::<P>();
        exhaustive_edges::<N>();
    }

    #[test]
    fn bytes_round_trip_and_range() {
        let m = limbs_to_bytes(&P::M);
        assert!(Fe::<P>::from_bytes(&m).is_none());
        assert!(Fe::<P>::from_bytes(&[0xff; 32]).is_none());
        assert_eq!(
            big(&Fe::<P>::from_bytes_reduced(&[0xff; 32]).to_bytes()),
            big(&[0xff; 32]) % modulus::<P>()
        );
        assert_eq!(
            Fe::<N>::from_bytes_reduced(&limbs_to_bytes(&N::M)),
            Fe::ZERO
        );
    }

    /// The binary inversion against Fermat's and num-bigint on the edge values and
    /// every power of two below 2^256, for both moduli.
    #[test]
    fn binary_inversion_against_fermat() {
        fn check<M: Modulus>() {
            let m = modulus::<M>();
            let mut values = edges::<M>();
            values.extend((0..256u32).map(|k| (BigUint::from(1u8) << k) % &m));
            for v in values {
                let x = fe::<M>(&v);
                assert_eq!(x.invert_vartime(), x.invert_fermat_vartime(), "{v}");
                let plain = invert_limbs_vartime::<M>(&limbs_from_bytes(&bytes32(&v)));
                if v == BigUint::from(0u8) {
                    assert!(plain.is_none());
                } else {
                    let inv = big(&limbs_to_bytes(&plain.unwrap()));
                    assert_eq!(inv * &v % &m, BigUint::from(1u8), "{v}");
                }
            }
            assert!(invert_limbs_vartime::<M>(&M::M).is_none());
        }
        check::<P>();
        check::<N>();
    }

    #[test]
    fn batch_inversion() {
        let mut xs: Vec<Fe<N>> = (1u32..40)
            .map(|i| fe::<N>(&(BigUint::from(i) * 7919u32)))
            .collect();
        let before = xs.clone();
        batch_invert_vartime(&mut xs).unwrap();
        for (x, y) in xs.iter().zip(before) {
            assert_eq!(x.mul(&y), Fe::ONE);
        }
        let mut with_zero = vec![Fe::<N>::ONE, Fe::ZERO];
        assert!(batch_invert_vartime(&mut with_zero).is_none());
    }

    proptest! {
        #[test]
        fn random_against_bigint(a in any::<[u8; 32]>(), b in any::<[u8; 32]>()) {
            fn check<M: Modulus>(a: &[u8; 32], b: &[u8; 32]) {
                let m = modulus::<M>();
                let (x, y) = (Fe::<M>::from_bytes_reduced(a), Fe::<M>::from_bytes_reduced(b));
                let (a, b) = (big(a) % &m, big(b) % &m);
                assert_eq!(big(&x.mul(&y).to_bytes()), (&a * &b) % &m);
                assert_eq!(big(&x.square().to_bytes()), (&a * &a) % &m);
                assert_eq!(big(&x.add(&y).to_bytes()), (&a + &b) % &m);
                assert_eq!(big(&x.sub(&y).to_bytes()), (&a + &m - &b) % &m);
                if let Some(inv) = x.invert_vartime() {
                    assert_eq!(inv.mul(&x), Fe::ONE);
                    assert_eq!(Some(inv), x.invert_fermat_vartime());
                }
            }
            check::<P>(&a, &b);
            check::<N>(&a, &b);
        }
    }
}
