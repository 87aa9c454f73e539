//! Eight P-256 lanes with AVX-512 IFMA: the kernel of [`crate::kernel`] (u1·G + u2·Q
//! per lane) on eight lanes at once. This first version is the interface only: it
//! always answers `None`, so the driver takes the portable path.
#![allow(unsafe_code)]

use crate::kernel::{GTable, JacobianM52, Lane};

/// Whether the eight-lane kernel may run on this processor (AVX-512F and AVX-512 IFMA,
/// as [`hopsig_cpu`] decides, `HOPSIG_CPU_DISABLE` included); always false off x86_64.
pub(crate) fn available() -> bool {
    cfg!(target_arch = "x86_64") && hopsig_cpu::has(hopsig_cpu::Feature::Avx512Ifma)
}

/// u1·G + u2·Q for eight lanes (see [`crate::kernel`]); `None` when the kernel cannot
/// run here (and, in this interface-only version, always). Output limbs are fully
/// reduced Montgomery form; Z = 0 marks the point at infinity or an exceptional lane.
pub(crate) fn double_scalar_mul(_g: &GTable, _lanes: &[Lane<'_>; 8]) -> Option<[JacobianM52; 8]> {
    None
}
