//! Eight P-256 lanes with AVX-512 IFMA: the kernel of [`crate::kernel`] (R = u1·G + u2·Q
//! per lane, SEC 1 v2 §4.1.4 step 5) computed for eight signatures at once, one per
//! 64-bit lane of a 512-bit register, with the 52-bit multiply-accumulate instructions
//! `vpmadd52luq` / `vpmadd52huq` (Intel SDM vol. 2, "VPMADD52LUQ"; the technique of
//! Gueron–Krasnov, "Accelerating big integer arithmetic using Intel IFMA extensions",
//! ARITH 2016, and of Intel's multi-buffer crypto library).
//!
//! This is the crate's one module that allows `unsafe`: the intrinsics need the
//! processor features, checked once by [`available`] (i.e. [`hopsig_cpu`]) before the
//! single `unsafe` entry into the vector code; inside it, functions carry
//! `#[target_feature(enable = "avx512f,avx512ifma")]` so they inline into each other and
//! their intrinsics are safe to call. The only other `unsafe` operations are the
//! gathers from the lanes' tables and the loads/stores of limb arrays.
//!
//! Everything here is variable time (`_vartime`): the lanes' digits decide which
//! additions happen and which table entries are read; verification handles public
//! data only (issue 28). The arithmetic itself does not branch per lane.
//!
//! Representation, bounds and operation counts are described in
//! `docs/design/p256-ifma.md`.
#![allow(unsafe_code)]

use crate::kernel::{GTable, JacobianM52, Lane};

/// Whether the eight-lane kernel may run on this processor (AVX-512F and AVX-512 IFMA,
/// as [`hopsig_cpu`] decides, `HOPSIG_CPU_DISABLE` included); always false off x86_64.
// Called by verify.rs's driver; allowed so the kernel stands on its own branch.
#[allow(dead_code)]
pub(crate) fn available() -> bool {
    cfg!(target_arch = "x86_64") && hopsig_cpu::has(hopsig_cpu::Feature::Avx512Ifma)
}

/// u1·G + u2·Q for eight lanes (see [`crate::kernel`]); `None` iff the kernel cannot run
/// here (`!available()`). Output limbs are fully reduced Montgomery form; Z = 0 marks a
/// lane whose result is the point at infinity (all its digits zero) or that met an
/// exceptional addition (the driver recomputes such lanes with complete formulas).
#[allow(dead_code)]
pub(crate) fn double_scalar_mul(g: &GTable, lanes: &[Lane<'_>; 8]) -> Option<[JacobianM52; 8]> {
    if !available() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `available()` said the processor has AVX-512F and AVX-512 IFMA (the
        // features the callee is compiled for), through hopsig_cpu's run-time detection.
        Some(unsafe { vector::double_scalar_mul_vartime(g, lanes) })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (g, lanes);
        None
    }
}

/// A field operation on eight lanes, for tests and measurements of the vector
/// arithmetic on its own.
#[cfg(test)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FieldOp {
    /// a·b·R⁻¹ (Montgomery product).
    Mul,
    /// a²·R⁻¹.
    Sqr,
    /// a + b.
    Add,
    /// a − b.
    Sub,
    /// −a.
    Neg,
    /// a, fully reduced (canonical, < p).
    Reduce,
}

/// `op` on eight lanes of radix-2^52 limbs (each limb < 2^52, value < 2^257 — the lazy
/// domain of the vector code). Returns the vector code's output as it is (lazily
/// reduced, except for [`FieldOp::Reduce`]), or `None` without IFMA.
#[cfg(test)]
pub(crate) fn field_op_8(
    op: FieldOp,
    a: &[[u64; 5]; 8],
    b: &[[u64; 5]; 8],
) -> Option<[[u64; 5]; 8]> {
    if !available() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: as in `double_scalar_mul`: the features were detected.
        Some(unsafe { vector::field_op_8(op, a, b) })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (op, a, b);
        None
    }
}

/// Eight Montgomery products a·b·R⁻¹ mod p, fully reduced; `None` without IFMA.
#[cfg(test)]
pub(crate) fn field_mul_8(a: &[[u64; 5]; 8], b: &[[u64; 5]; 8]) -> Option<[[u64; 5]; 8]> {
    let m = field_op_8(FieldOp::Mul, a, b)?;
    field_op_8(FieldOp::Reduce, &m, &m)
}

#[cfg(target_arch = "x86_64")]
mod vector;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
