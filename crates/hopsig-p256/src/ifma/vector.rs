//! The eight-lane vector code (x86_64, AVX-512F + AVX-512 IFMA).
//!
//! A field element of eight lanes is five `__m512i`, limb i of every lane in register i
//! (radix 2^52, little-endian), in Montgomery form with R = 2^260 — a lane's limbs are
//! exactly [`crate::field52::Fe::montgomery_limbs`] once fully reduced.
//!
//! Values are kept *lazily reduced*: every [`Fe8`] the functions below take or return
//! has limbs < 2^52 (so `vpmadd52*`, which read the low 52 bits of their inputs, see the
//! whole limb) and a value < 2^257, congruent to the element mod p. The bounds:
//! * [`mul`] / [`sqr`]: for a, b < 2^257, (a·b + q·p)/2^260 < 2^254 + p < 2^257 (q <
//!   2^260 is the Montgomery quotient), so no final subtraction is needed.
//! * [`fold`] (after [`add`], [`sub`], [`neg`], small multiples): a value v with
//!   non-negative limbs below 2^60 is split as h·2^256 + l with h = the top limb's bits
//!   from 48 up (h < 2^12); v − h·p = l + h·(2^256 − p), and 2^256 − p = 2^224 − 2^192 −
//!   2^96 + 1, so the result is ≥ 0 and < 2^256 + 2^219 + 2^12·2^224 < 2^257. The three
//!   signed terms are added as shifted h, then one signed carry pass (arithmetic shifts)
//!   normalizes.
//! * [`reduce_full`]: a fold leaves < 2^256 + 15·2^224 < 2p, one conditional
//!   subtraction of p gives the canonical value.

use std::arch::x86_64::*;

use crate::field52::{Modulus, LIMB_MASK, P};
use crate::kernel::{AffineM52, GTable, JacobianM52, Lane, TOP, W_G, W_Q};

#[cfg(test)]
use super::FieldOp;

/// Eight field elements mod p, lazily reduced (see the module comment): limb i of lane
/// l is lane l of `self.0[i]`.
#[derive(Clone, Copy)]
pub(super) struct Fe8([__m512i; 5]);

/// Eight Jacobian points (X : Y : Z), a = −3.
#[derive(Clone, Copy)]
struct Point8 {
    x: Fe8,
    y: Fe8,
    z: Fe8,
}

/// 4p with limbs 0..=3 borrowed up to at least 2^52 − 1 (so 4p − b has non-negative
/// limbs for every lazily reduced b) and limb 4 ≥ 2^49 (> b's top limb):
/// Σ K_i·2^(52·i) = 4p (checked by a test).
pub(super) const FOUR_P: [u64; 5] = [
    0x1f_ffff_ffff_fffc,
    0x10_3fff_ffff_fffe,
    0x0f_ffff_ffff_ffff,
    0x10_003f_ffff_ffff,
    0x3_ffff_fffb_ffff,
];

#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn splat(v: u64) -> __m512i {
    _mm512_set1_epi64(v as i64)
}

/// Limb vectors of eight lanes' values.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn from_lanes(v: [u64; 8]) -> __m512i {
    // SAFETY: reads 64 bytes from a live [u64; 8] (unaligned load).
    unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
}

/// The eight lanes of a vector.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn to_lanes(v: __m512i) -> [u64; 8] {
    let mut out = [0u64; 8];
    // SAFETY: writes 64 bytes into a live [u64; 8] (unaligned store).
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), v) };
    out
}

/// The same five limbs in every lane.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn constant(limbs: [u64; 5]) -> Fe8 {
    Fe8([
        splat(limbs[0]),
        splat(limbs[1]),
        splat(limbs[2]),
        splat(limbs[3]),
        splat(limbs[4]),
    ])
}

/// Carries of non-negative limbs (each < 2^63) into the next, limbs 0..=3 left < 2^52.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn normalize_unsigned(mut r: [__m512i; 5]) -> Fe8 {
    let mask = splat(LIMB_MASK);
    for j in 0..4 {
        r[j + 1] = _mm512_add_epi64(r[j + 1], _mm512_srli_epi64::<52>(r[j]));
        r[j] = _mm512_and_si512(r[j], mask);
    }
    Fe8(r)
}

/// Carries of signed limbs (|limb| < 2^62) into the next with arithmetic shifts
/// (floor division), limbs 0..=3 left in [0, 2^52); the top limb carries the sign of
/// the value.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn normalize_signed(mut r: [__m512i; 5]) -> [__m512i; 5] {
    let mask = splat(LIMB_MASK);
    for j in 0..4 {
        r[j + 1] = _mm512_add_epi64(r[j + 1], _mm512_srai_epi64::<52>(r[j]));
        r[j] = _mm512_and_si512(r[j], mask);
    }
    r
}

/// Montgomery reduction of a 10-column product (column k holds the terms of weight
/// 2^(52k), each column < 2^58): (t + q·p)/2^260 with the quotient digit q_i = the low
/// 52 bits of column i (−p⁻¹ ≡ 1 mod 2^52, HAC 14.32).
///
/// p = 2^256 − 2^224 + 2^192 + 2^96 − 1, so q·p needs one true product: q·(2^96 − 1)
/// is −q in column i (which clears it: column i + q·(2^52 − 1) = 2^52·((col_i >> 52) +
/// q)) plus q·2^44 in column i + 1 — the +q and −q cancel, leaving (col_i >> 52) and
/// the two halves of q·2^44, (q << 44) mod 2^52 and q >> 8, as shifts; q·2^192 =
/// q·2^36 in column i + 3 likewise ((q << 36) mod 2^52, q >> 16); only q·(2^48 − 2^16)
/// in column i + 4 (the top limb of p) is a multiply: 2 IFMA per digit, 10 in all.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn montgomery_reduce(mut t: [__m512i; 10]) -> Fe8 {
    let mask = splat(LIMB_MASK);
    let p4 = splat(P::M[4]);
    for i in 0..5 {
        let q = _mm512_and_si512(t[i], mask);
        let carry = _mm512_srli_epi64::<52>(t[i]);
        let q44 = _mm512_and_si512(_mm512_slli_epi64::<44>(q), mask);
        t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_add_epi64(carry, q44));
        t[i + 2] = _mm512_add_epi64(t[i + 2], _mm512_srli_epi64::<8>(q));
        let q36 = _mm512_and_si512(_mm512_slli_epi64::<36>(q), mask);
        t[i + 3] = _mm512_add_epi64(t[i + 3], q36);
        t[i + 4] = _mm512_add_epi64(t[i + 4], _mm512_srli_epi64::<16>(q));
        t[i + 4] = _mm512_madd52lo_epu64(t[i + 4], q, p4);
        t[i + 5] = _mm512_madd52hi_epu64(t[i + 5], q, p4);
    }
    normalize_unsigned([t[5], t[6], t[7], t[8], t[9]])
}

/// a·b·2^−260 mod p (lazily reduced): 25 low and 25 high products into ten columns,
/// then [`montgomery_reduce`]: 60 IFMA.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn mul(a: &Fe8, b: &Fe8) -> Fe8 {
    let mut t = [_mm512_setzero_si512(); 10];
    for i in 0..5 {
        for j in 0..5 {
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.0[i], b.0[j]);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.0[i], b.0[j]);
        }
    }
    montgomery_reduce(t)
}

/// a²·2^−260 mod p: the ten cross products once, doubled by a shift, plus the five
/// squares, then [`montgomery_reduce`]: 40 IFMA.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn sqr(a: &Fe8) -> Fe8 {
    let mut t = [_mm512_setzero_si512(); 10];
    for i in 0..5 {
        for j in i + 1..5 {
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.0[i], a.0[j]);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.0[i], a.0[j]);
        }
    }
    for c in t.iter_mut().skip(1) {
        *c = _mm512_slli_epi64::<1>(*c);
    }
    for i in 0..5 {
        t[2 * i] = _mm512_madd52lo_epu64(t[2 * i], a.0[i], a.0[i]);
        t[2 * i + 1] = _mm512_madd52hi_epu64(t[2 * i + 1], a.0[i], a.0[i]);
    }
    montgomery_reduce(t)
}

/// Brings a value with non-negative limbs (each < 2^60) below 2^257 with normalized
/// limbs, congruent mod p: v − h·p = l + h·(2^224 − 2^192 − 2^96 + 1) where h = the top
/// limb >> 48 (bits 256 and up) and l = v − h·2^256 (see the module comment).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn fold(t: [__m512i; 5]) -> Fe8 {
    let h = _mm512_srli_epi64::<48>(t[4]);
    // 2^224 = 2^(4·52 + 16), 2^192 = 2^(3·52 + 36), 2^96 = 2^(52 + 44).
    let t4 = _mm512_add_epi64(
        _mm512_and_si512(t[4], splat((1 << 48) - 1)),
        _mm512_slli_epi64::<16>(h),
    );
    let t3 = _mm512_sub_epi64(t[3], _mm512_slli_epi64::<36>(h));
    let t1 = _mm512_sub_epi64(t[1], _mm512_slli_epi64::<44>(h));
    let t0 = _mm512_add_epi64(t[0], h);
    Fe8(normalize_signed([t0, t1, t[2], t3, t4]))
}

/// a + b.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn add(a: &Fe8, b: &Fe8) -> Fe8 {
    let mut t = a.0;
    for (ti, bi) in t.iter_mut().zip(b.0) {
        *ti = _mm512_add_epi64(*ti, bi);
    }
    fold(t)
}

/// a − b, as a + 4p − b (limbs of [`FOUR_P`] keep every limb non-negative).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn sub(a: &Fe8, b: &Fe8) -> Fe8 {
    let mut t = a.0;
    for i in 0..5 {
        t[i] = _mm512_sub_epi64(_mm512_add_epi64(t[i], splat(FOUR_P[i])), b.0[i]);
    }
    fold(t)
}

/// −a, as 4p − a.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn neg(a: &Fe8) -> Fe8 {
    let mut t = a.0;
    for i in 0..5 {
        t[i] = _mm512_sub_epi64(splat(FOUR_P[i]), a.0[i]);
    }
    fold(t)
}

/// 2^K·a (K ≤ 3: limbs stay < 2^55).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn shl<const K: u32>(a: &Fe8) -> Fe8 {
    let mut t = a.0;
    for ti in t.iter_mut() {
        *ti = _mm512_slli_epi64::<K>(*ti);
    }
    fold(t)
}

/// 3·a.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn triple(a: &Fe8) -> Fe8 {
    let mut t = a.0;
    for ti in t.iter_mut() {
        *ti = _mm512_add_epi64(*ti, _mm512_slli_epi64::<1>(*ti));
    }
    fold(t)
}

/// The canonical representative (< p) of a lazily reduced value.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn reduce_full(a: &Fe8) -> Fe8 {
    // Below 2^256 + 2^225 < 2p after one fold.
    let a = fold(a.0);
    let mut d = a.0;
    for (i, di) in d.iter_mut().enumerate() {
        *di = _mm512_sub_epi64(*di, splat(P::M[i]));
    }
    let d = normalize_signed(d);
    // a − p < 0 iff the top limb is negative after the signed carry pass.
    let below_p = _mm512_cmplt_epi64_mask(d[4], _mm512_setzero_si512());
    let mut out = d;
    for i in 0..5 {
        out[i] = _mm512_mask_blend_epi64(below_p, d[i], a.0[i]);
    }
    Fe8(out)
}

/// Lane by lane, `b` where `mask` has the lane's bit, else `a`.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn select(mask: __mmask8, a: &Fe8, b: &Fe8) -> Fe8 {
    let mut out = a.0;
    for (o, bi) in out.iter_mut().zip(b.0) {
        *o = _mm512_mask_blend_epi64(mask, *o, bi);
    }
    Fe8(out)
}

/// 2·P, "dbl-2001-b" of the Explicit-Formulas Database (Bernstein–Lange, Jacobian
/// coordinates with a = −3), with Z3 = 2·Y1·Z1 in place of (Y1 + Z1)² − γ − δ (one
/// product instead of a square and two subtractions): 4M + 4S = 560 IFMA.
///
/// P-256 has no point of order 2 (its order is prime), so Y1 ≠ 0 for every finite
/// point and doubling is never exceptional; Z1 = 0 gives Z3 = 0, so a lane that met an
/// exception stays marked.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn double(p: &Point8) -> Point8 {
    let delta = sqr(&p.z);
    let gamma = sqr(&p.y);
    let beta = mul(&p.x, &gamma);
    let alpha = triple(&mul(&sub(&p.x, &delta), &add(&p.x, &delta)));
    let beta4 = shl::<2>(&beta);
    let x3 = sub(&sqr(&alpha), &shl::<1>(&beta4));
    let z3 = shl::<1>(&mul(&p.y, &p.z));
    let y3 = sub(&mul(&alpha, &sub(&beta4, &x3)), &shl::<3>(&sqr(&gamma)));
    Point8 {
        x: x3,
        y: y3,
        z: z3,
    }
}

/// P + (x2, y2) with (x2, y2) affine, "madd-2007-bl" of the Explicit-Formulas Database
/// with Z3 = 2·Z1·H in place of (Z1 + H)² − Z1Z1 − HH: 8M + 3S = 820 IFMA.
///
/// Exceptional inputs are not handled but marked: if P = ±(x2, y2) then x2·Z1² = X1,
/// i.e. H = U2 − X1 ≡ 0, and Z3 = 2·Z1·H ≡ 0 (the lane reads as infinity; the driver
/// recomputes it with complete formulas). If Z1 ≡ 0 (an earlier exception), Z3 ≡ 0
/// again, so the mark survives every later addition and doubling.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn add_affine(p: &Point8, x2: &Fe8, y2: &Fe8) -> Point8 {
    let z1z1 = sqr(&p.z);
    let u2 = mul(x2, &z1z1);
    let s2 = mul(y2, &mul(&p.z, &z1z1));
    let h = sub(&u2, &p.x);
    let hh = sqr(&h);
    let i = shl::<2>(&hh);
    let j = mul(&h, &i);
    let r = shl::<1>(&sub(&s2, &p.y));
    let v = mul(&p.x, &i);
    let x3 = sub(&sub(&sqr(&r), &j), &shl::<1>(&v));
    let y3 = sub(&mul(&r, &sub(&v, &x3)), &shl::<1>(&mul(&p.y, &j)));
    let z3 = shl::<1>(&mul(&p.z, &h));
    Point8 {
        x: x3,
        y: y3,
        z: z3,
    }
}

/// Loads limb `j` (0..10: x then y) of each lane's table entry.
///
/// # Safety
/// `base.byte_offset(offsets[l])` must point to a live `AffineM52` for every lane l.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn gather_limb<const J: usize>(base: *const AffineM52, offsets: __m512i) -> __m512i {
    // SAFETY: by the contract, base + offsets[l] + 8·J (J < 10, inside the 80-byte
    // AffineM52) is a readable, 8-byte aligned u64 for every lane.
    unsafe { _mm512_i64gather_epi64::<1>(offsets, base.cast::<u64>().add(J).cast()) }
}

/// acc += d_l · T_l[|d_l|] per lane l (table entry |d| − 1, negated for d < 0); a zero
/// digit keeps the lane; a lane at infinity (`inf`) takes the table point.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn add_digits_vartime(
    acc: &mut Point8,
    inf: &mut __mmask8,
    digits: [i8; 8],
    tables: &[&[AffineM52]; 8],
) {
    let mut nonzero: __mmask8 = 0;
    let mut negative: __mmask8 = 0;
    let mut entries = [&tables[0][0]; 8];
    for l in 0..8 {
        let d = digits[l];
        if d != 0 {
            nonzero |= 1 << l;
            if d < 0 {
                negative |= 1 << l;
            }
            // Digits are within ±2^(W−1) and the table has 2^(W−1) entries; an
            // out-of-range digit (a driver bug) panics here rather than reading out of
            // bounds.
            entries[l] = &tables[l][usize::from(d.unsigned_abs()) - 1];
        } else {
            entries[l] = &tables[l][0];
        }
    }
    if nonzero == 0 {
        return;
    }
    let base: *const AffineM52 = entries[0];
    let mut offsets = [0u64; 8];
    for (o, e) in offsets.iter_mut().zip(entries) {
        *o = (e as *const AffineM52 as usize).wrapping_sub(base as usize) as u64;
    }
    let offsets = from_lanes(offsets);
    // SAFETY: base + offsets[l] is `entries[l]`, a reference to a live AffineM52 (the
    // tables are borrowed for the whole call).
    let (x, y) = unsafe {
        (
            Fe8([
                gather_limb::<0>(base, offsets),
                gather_limb::<1>(base, offsets),
                gather_limb::<2>(base, offsets),
                gather_limb::<3>(base, offsets),
                gather_limb::<4>(base, offsets),
            ]),
            Fe8([
                gather_limb::<5>(base, offsets),
                gather_limb::<6>(base, offsets),
                gather_limb::<7>(base, offsets),
                gather_limb::<8>(base, offsets),
                gather_limb::<9>(base, offsets),
            ]),
        )
    };
    let y = select(negative, &y, &neg(&y));
    let sum = add_affine(acc, &x, &y);
    let one = constant(P::R1);
    let adds = nonzero & !*inf;
    let loads = nonzero & *inf;
    *acc = Point8 {
        x: select(loads, &select(adds, &acc.x, &sum.x), &x),
        y: select(loads, &select(adds, &acc.y, &sum.y), &y),
        z: select(loads, &select(adds, &acc.z, &sum.z), &one),
    };
    *inf &= !nonzero;
}

/// The kernel's Horner schedule (see [`crate::kernel`]) on eight lanes. Vartime: the
/// digits decide which table entries are read and whether a step is skipped (all lanes
/// at infinity or all digits zero).
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn double_scalar_mul_vartime(g: &GTable, lanes: &[Lane<'_>; 8]) -> [JacobianM52; 8] {
    let mut q_tables: [&[AffineM52]; 8] = [&g.points[..]; 8];
    for (t, lane) in q_tables.iter_mut().zip(lanes) {
        *t = &lane.q.points[..];
    }
    let g_tables: [&[AffineM52]; 8] = [&g.points[..]; 8];
    let zero = Fe8([_mm512_setzero_si512(); 5]);
    let mut acc = Point8 {
        x: zero,
        y: zero,
        z: zero,
    };
    // Lanes still at the point at infinity (no non-zero digit yet).
    let mut inf: __mmask8 = 0xff;
    for i in (0..=TOP).rev() {
        if i < TOP && inf != 0xff {
            acc = double(&acc);
        }
        if i.is_multiple_of(W_Q) {
            let mut d = [0i8; 8];
            for (d, lane) in d.iter_mut().zip(lanes) {
                *d = lane.u2[i / W_Q];
            }
            add_digits_vartime(&mut acc, &mut inf, d, &q_tables);
        }
        if i.is_multiple_of(W_G) {
            let mut d = [0i8; 8];
            for (d, lane) in d.iter_mut().zip(lanes) {
                *d = lane.u1[i / W_G];
            }
            add_digits_vartime(&mut acc, &mut inf, d, &g_tables);
        }
    }
    let x = reduce_full(&acc.x);
    let y = reduce_full(&acc.y);
    let mut z = reduce_full(&acc.z);
    // Lanes never loaded are the point at infinity: Z = 0. (Their Z is already 0 — it
    // starts at 0 and doubling keeps it — the mask states the contract outright.)
    for zi in z.0.iter_mut() {
        *zi = _mm512_maskz_mov_epi64(!inf, *zi);
    }
    let mut out = [JacobianM52::default(); 8];
    for j in 0..5 {
        let (xs, ys, zs) = (to_lanes(x.0[j]), to_lanes(y.0[j]), to_lanes(z.0[j]));
        for l in 0..8 {
            out[l].x[j] = xs[l];
            out[l].y[j] = ys[l];
            out[l].z[j] = zs[l];
        }
    }
    out
}

/// Eight lanes' limbs as an [`Fe8`] (no check: the caller passes normalized limbs).
#[cfg(test)]
#[target_feature(enable = "avx512f,avx512ifma")]
fn load(a: &[[u64; 5]; 8]) -> Fe8 {
    let mut limbs = [_mm512_setzero_si512(); 5];
    for (j, limb) in limbs.iter_mut().enumerate() {
        let mut v = [0u64; 8];
        for (vl, al) in v.iter_mut().zip(a) {
            *vl = al[j];
        }
        *limb = from_lanes(v);
    }
    Fe8(limbs)
}

/// An [`Fe8`]'s limbs, lane by lane.
#[cfg(test)]
#[target_feature(enable = "avx512f,avx512ifma")]
fn store(a: &Fe8) -> [[u64; 5]; 8] {
    let mut out = [[0u64; 5]; 8];
    for (j, limb) in a.0.iter().enumerate() {
        for (o, v) in out.iter_mut().zip(to_lanes(*limb)) {
            o[j] = v;
        }
    }
    out
}

/// One field operation on eight lanes (tests).
#[cfg(test)]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn field_op_8(op: FieldOp, a: &[[u64; 5]; 8], b: &[[u64; 5]; 8]) -> [[u64; 5]; 8] {
    let (a, b) = (load(a), load(b));
    let r = match op {
        FieldOp::Mul => mul(&a, &b),
        FieldOp::Sqr => sqr(&a),
        FieldOp::Add => add(&a, &b),
        FieldOp::Sub => sub(&a, &b),
        FieldOp::Neg => neg(&a),
        FieldOp::Reduce => reduce_full(&a),
    };
    store(&r)
}
