//! Carry-less multiplication with the PCLMULQDQ instruction (x86-64), used when the
//! processor has it (checked at run time by [`available`]).

#![allow(unsafe_code)]

/// Whether this processor has PCLMULQDQ (and SSE2, always present on x86-64).
pub(crate) fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("pclmulqdq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Schoolbook product of two `n`-word polynomials into `out[..2n]`. Callers must have
/// checked [`available`]; otherwise this falls back to the portable code.
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
    #[cfg(target_arch = "x86_64")]
    if has_pclmul() {
        // SAFETY: PCLMULQDQ is present (checked just above).
        return Some(unsafe { mul_reduce_pclmul::<F>(a, b) });
    }
    let _ = (a, b);
    None
}

/// Cached [`available`].
#[inline]
fn has_pclmul() -> bool {
    use std::sync::atomic::{AtomicU8, Ordering};
    static STATE: AtomicU8 = AtomicU8::new(0);
    match STATE.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let yes = available();
            STATE.store(if yes { 1 } else { 2 }, Ordering::Relaxed);
            yes
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "pclmulqdq,sse2")]
unsafe fn mul_reduce_pclmul<F: crate::Field>(a: &[u64; 5], b: &[u64; 5]) -> [u64; 5] {
    use std::arch::x86_64::{
        _mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_set_epi64x, _mm_srli_si128,
    };
    let mut c = [0u64; 10];
    for i in 0..F::N {
        let xa = _mm_set_epi64x(0, a[i] as i64);
        for j in 0..F::N {
            let p = _mm_clmulepi64_si128(xa, _mm_set_epi64x(0, b[j] as i64), 0x00);
            c[i + j] ^= _mm_cvtsi128_si64(p) as u64;
            c[i + j + 1] ^= _mm_cvtsi128_si64(_mm_srli_si128(p, 8)) as u64;
        }
    }
    crate::field::reduce_words::<F>(&mut c)
}
