//! Portable carry-less multiplication: a branch-free shift-and-add over the 64 bits of
//! one operand (no secret-dependent table indices), and bit spreading for squaring.

/// 64 × 64 → 128-bit carry-less product `(low, high)`.
pub(crate) fn clmul64(a: u64, b: u64) -> (u64, u64) {
    let (mut lo, mut hi) = (0u64, 0u64);
    for i in 0..64 {
        let mask = 0u64.wrapping_sub((b >> i) & 1);
        lo ^= (a << i) & mask;
        if i > 0 {
            hi ^= (a >> (64 - i)) & mask;
        }
    }
    (lo, hi)
}

/// Schoolbook product of two `n`-word polynomials into `out[..2n]`.
pub(crate) fn mul(a: &[u64], b: &[u64], out: &mut [u64]) {
    out.fill(0);
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            let (lo, hi) = clmul64(x, y);
            out[i + j] ^= lo;
            out[i + j + 1] ^= hi;
        }
    }
}

/// Inserts a zero bit after each of the 32 low bits of `x` (squaring in GF(2)[x]).
#[inline(always)]
fn spread32(x: u64) -> u64 {
    let mut x = x & 0xffff_ffff;
    x = (x | x << 16) & 0x0000_ffff_0000_ffff;
    x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
    x = (x | x << 4) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | x << 2) & 0x3333_3333_3333_3333;
    (x | x << 1) & 0x5555_5555_5555_5555
}

/// The square of an `n`-word polynomial into `out[..2n]`.
#[inline(always)]
pub(crate) fn square(a: &[u64], out: &mut [u64]) {
    for (i, &x) in a.iter().enumerate() {
        out[2 * i] = spread32(x);
        out[2 * i + 1] = spread32(x >> 32);
    }
}
