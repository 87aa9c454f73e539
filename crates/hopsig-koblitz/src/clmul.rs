//! Carry-less multiplication with the PCLMULQDQ instruction (x86-64), used when the
//! processor has it (checked at run time by [`available`]).

#![allow(unsafe_code)]

/// Whether this processor has PCLMULQDQ (and SSE2, always present on x86-64). True at
/// compile time when the build targets processors with it (the workspace's
/// .cargo/config.toml on x86-64), so the instruction inlines into the curve formulas;
/// otherwise hopsig's one feature check, [`hopsig_cpu::has`], answers (detected once and
/// cached there, and turned off by `HOPSIG_CPU_DISABLE=pclmulqdq`).
#[inline]
pub(crate) fn available() -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "pclmulqdq"))]
    return true;
    #[cfg(all(target_arch = "x86_64", not(target_feature = "pclmulqdq")))]
    return hopsig_cpu::has(hopsig_cpu::Feature::Pclmulqdq);
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Schoolbook product of two `n`-word polynomials into `out[..2n]` with PCLMULQDQ, or
/// with the portable code on a processor without it.
pub(crate) fn mul(a: &[u64], b: &[u64], out: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    if available() {
        // SAFETY: PCLMULQDQ is present (checked just above), which is the only
        // requirement of `mul_pclmul`; the slices are plain memory.
        unsafe { mul_pclmul(a, b, out) };
        return;
    }
    crate::portable::mul(a, b, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "pclmulqdq,sse2")]
#[inline]
unsafe fn mul_pclmul(a: &[u64], b: &[u64], out: &mut [u64]) {
    use std::arch::x86_64::{
        _mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_set_epi64x, _mm_srli_si128,
    };
    out.fill(0);
    for (i, &x) in a.iter().enumerate() {
        let xa = _mm_set_epi64x(0, x as i64);
        for (j, &y) in b.iter().enumerate() {
            let p = _mm_clmulepi64_si128(xa, _mm_set_epi64x(0, y as i64), 0x00);
            out[i + j] ^= _mm_cvtsi128_si64(p) as u64;
            out[i + j + 1] ^= _mm_cvtsi128_si64(_mm_srli_si128(p, 8)) as u64;
        }
    }
}

/// `a · b mod f` for the field `F` in one call: the N×N carry-less products and the
/// reduction compiled together with PCLMULQDQ enabled, so that the fixed-length loops
/// unroll. Returns `None` when the processor lacks PCLMULQDQ.
#[inline]
pub(crate) fn mul_reduce<F: crate::Field>(a: &[u64; 5], b: &[u64; 5]) -> Option<[u64; 5]> {
    // Built for processors with PCLMULQDQ (the workspace's .cargo/config.toml on
    // x86-64): no check, and the multiply inlines into its caller.
    #[cfg(all(target_arch = "x86_64", target_feature = "pclmulqdq"))]
    // SAFETY: the build targets processors with PCLMULQDQ.
    return Some(unsafe { mul_reduce_body::<F>(a, b) });
    #[cfg(all(target_arch = "x86_64", not(target_feature = "pclmulqdq")))]
    if available() {
        // SAFETY: PCLMULQDQ is present (checked just above).
        return Some(unsafe { mul_reduce_pclmul::<F>(a, b) });
    }
    #[allow(unreachable_code)]
    {
        let _ = (a, b);
        None
    }
}

/// `a² mod f` in one call (N carry-less squarings of single words, then the
/// reduction). Returns `None` when the processor lacks PCLMULQDQ.
#[inline]
pub(crate) fn square_reduce<F: crate::Field>(a: &[u64; 5]) -> Option<[u64; 5]> {
    // Built for processors with PCLMULQDQ (the workspace's .cargo/config.toml on
    // x86-64): no check, and the multiply inlines into its caller.
    #[cfg(all(target_arch = "x86_64", target_feature = "pclmulqdq"))]
    // SAFETY: the build targets processors with PCLMULQDQ.
    return Some(unsafe { square_reduce_body::<F>(a) });
    #[cfg(all(target_arch = "x86_64", not(target_feature = "pclmulqdq")))]
    if available() {
        // SAFETY: PCLMULQDQ is present (checked just above).
        return Some(unsafe { square_reduce_pclmul::<F>(a) });
    }
    #[allow(unreachable_code)]
    {
        let _ = a;
        None
    }
}

/// The two 64-bit halves of a 128-bit register.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn halves(v: std::arch::x86_64::__m128i) -> (u64, u64) {
    use std::arch::x86_64::{_mm_cvtsi128_si64, _mm_unpackhi_epi64};
    (
        _mm_cvtsi128_si64(v) as u64,
        _mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v)) as u64,
    )
}

/// [`mul_reduce_body`] compiled with PCLMULQDQ enabled, for run-time dispatch.
#[cfg(all(target_arch = "x86_64", not(target_feature = "pclmulqdq")))]
#[target_feature(enable = "pclmulqdq,sse2")]
unsafe fn mul_reduce_pclmul<F: crate::Field>(a: &[u64; 5], b: &[u64; 5]) -> [u64; 5] {
    mul_reduce_body::<F>(a, b)
}

/// [`square_reduce_body`] compiled with PCLMULQDQ enabled, for run-time dispatch.
#[cfg(all(target_arch = "x86_64", not(target_feature = "pclmulqdq")))]
#[target_feature(enable = "pclmulqdq,sse2")]
unsafe fn square_reduce_pclmul<F: crate::Field>(a: &[u64; 5]) -> [u64; 5] {
    square_reduce_body::<F>(a)
}

/// Schoolbook product with the partial products of each column i + j = k summed in a
/// 128-bit register, so that only 2N − 1 sums leave the vector unit. Always inlined:
/// into the callers when the build enables PCLMULQDQ, else into the
/// `target_feature` wrapper above. Callers must ensure the processor has PCLMULQDQ.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn mul_reduce_body<F: crate::Field>(a: &[u64; 5], b: &[u64; 5]) -> [u64; 5] {
    use std::arch::x86_64::{
        _mm_clmulepi64_si128, _mm_set_epi64x, _mm_setzero_si128, _mm_xor_si128,
    };
    let mut va = [_mm_setzero_si128(); 5];
    let mut vb = [_mm_setzero_si128(); 5];
    for i in 0..F::N {
        va[i] = _mm_set_epi64x(0, a[i] as i64);
        vb[i] = _mm_set_epi64x(0, b[i] as i64);
    }
    let mut col = [_mm_setzero_si128(); 9];
    for i in 0..F::N {
        for j in 0..F::N {
            col[i + j] = _mm_xor_si128(col[i + j], _mm_clmulepi64_si128(va[i], vb[j], 0x00));
        }
    }
    let mut c = [0u64; 10];
    for k in 0..2 * F::N - 1 {
        let (lo, hi) = halves(col[k]);
        c[k] ^= lo;
        c[k + 1] ^= hi;
    }
    crate::field::reduce_words::<F>(&mut c)
}

/// N single-word carry-less squarings, then the reduction (see [`mul_reduce_body`]).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn square_reduce_body<F: crate::Field>(a: &[u64; 5]) -> [u64; 5] {
    use std::arch::x86_64::{_mm_clmulepi64_si128, _mm_set_epi64x};
    let mut c = [0u64; 10];
    for i in 0..F::N {
        let v = _mm_set_epi64x(0, a[i] as i64);
        let (lo, hi) = halves(_mm_clmulepi64_si128(v, v, 0x00));
        c[2 * i] = lo;
        c[2 * i + 1] = hi;
    }
    crate::field::reduce_words::<F>(&mut c)
}
