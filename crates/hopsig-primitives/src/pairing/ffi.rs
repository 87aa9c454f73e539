//! The blst C functions [`super`] needs beyond blst's safe Rust API (which covers BLS
//! signatures, not the point and scalar arithmetic Gentry–Ramzan needs), each wrapped
//! once in a safe function. This is the only file of the pairing module that may use
//! `unsafe`; every block says why it is sound.
//!
//! Soundness rests on two facts about blst's types and functions: the `blst_*` structs
//! are plain arrays of integer limbs, so every bit pattern is a value blst may read
//! (a "valid point" below is only a question of meaning, never of memory safety); and
//! every function here reads and writes only through the pointers it is given, the
//! lengths it is given, and nothing after it returns.

#![allow(unsafe_code)]

use blst::{
    blst_bendian_from_scalar, blst_expand_message_xmd, blst_final_exp, blst_fp12, blst_fp12_is_one,
    blst_hash_to_g1, blst_miller_loop_n, blst_p1, blst_p1_add_or_double_affine, blst_p1_affine,
    blst_p1s_to_affine, blst_p2_affine, blst_scalar, blst_scalar_from_be_bytes,
    blst_scalar_from_bendian, blst_sk_check,
};

/// `bytes` read big-endian into `out`, reduced modulo r.
pub(super) fn scalar_from_be_bytes(out: &mut blst_scalar, bytes: &[u8]) {
    // SAFETY: `out` is a valid `blst_scalar` to write; `bytes` is a live slice whose
    // length is passed with it. blst reads exactly `bytes.len()` bytes.
    unsafe { blst_scalar_from_be_bytes(out, bytes.as_ptr(), bytes.len()) };
}

/// `bytes` read big-endian into `out` without reduction; whether the result is a
/// canonical secret key (nonzero and below r), checked in constant time.
pub(super) fn scalar_from_bendian_checked(out: &mut blst_scalar, bytes: &[u8; 32]) -> bool {
    // SAFETY: `bytes` is exactly the 32 bytes blst reads; `out` is writable and then
    // read as the 32-byte scalar it now holds.
    unsafe {
        blst_scalar_from_bendian(out, bytes.as_ptr());
        blst_sk_check(out)
    }
}

/// The 32-byte big-endian encoding of `s`.
pub(super) fn bendian_from_scalar(out: &mut [u8; 32], s: &blst_scalar) {
    // SAFETY: blst writes exactly 32 bytes into a 32-byte buffer and reads `s`.
    unsafe { blst_bendian_from_scalar(out.as_mut_ptr(), s) };
}

/// A scalar operation of blst of the shape `f(out, a, b)`.
type ScalarOp =
    unsafe extern "C" fn(*mut blst_scalar, *const blst_scalar, *const blst_scalar) -> bool;

/// `f(a, b)` for one of blst's modular scalar operations.
fn scalar_op(f: ScalarOp, a: &blst_scalar, b: &blst_scalar) -> blst_scalar {
    let mut out = blst_scalar::default();
    // SAFETY: `f` is one of the three functions below (the type is private to this
    // file), each of which reads two scalars and writes `out`; its return value
    // (result nonzero) is not needed.
    unsafe { f(&mut out, a, b) };
    out
}

/// `a + b mod r`.
pub(super) fn scalar_add(a: &blst_scalar, b: &blst_scalar) -> blst_scalar {
    scalar_op(blst::blst_sk_add_n_check, a, b)
}

/// `a − b mod r`.
pub(super) fn scalar_sub(a: &blst_scalar, b: &blst_scalar) -> blst_scalar {
    scalar_op(blst::blst_sk_sub_n_check, a, b)
}

/// `a · b mod r`.
pub(super) fn scalar_mul(a: &blst_scalar, b: &blst_scalar) -> blst_scalar {
    scalar_op(blst::blst_sk_mul_n_check, a, b)
}

/// `a^-1 mod r` (zero maps to zero).
pub(super) fn scalar_inverse(a: &blst_scalar) -> blst_scalar {
    let mut out = blst_scalar::default();
    // SAFETY: reads a scalar, writes `out`.
    unsafe { blst::blst_sk_inverse(&mut out, a) };
    out
}

/// blst's `expand_message_xmd` with SHA-256 into all of `out`; the caller keeps
/// `out.len()` within RFC 9380's limit (blst does not check it).
pub(super) fn expand_message_xmd(out: &mut [u8], msg: &[u8], dst: &[u8]) {
    // SAFETY: blst writes `out.len()` bytes into `out`; `msg` and `dst` are live
    // slices passed with their lengths.
    unsafe {
        blst_expand_message_xmd(
            out.as_mut_ptr(),
            out.len(),
            msg.as_ptr(),
            msg.len(),
            dst.as_ptr(),
            dst.len(),
        );
    }
}

/// RFC 9380 `hash_to_curve` onto G1 (`BLS12381G1_XMD:SHA-256_SSWU_RO_`) under `dst`.
pub(super) fn hash_to_g1(msg: &[u8], dst: &[u8]) -> blst_p1 {
    let mut out = blst_p1::default();
    // SAFETY: `msg` and `dst` are live slices passed with their lengths; no
    // augmentation string (null pointer with length 0, which blst allows).
    unsafe {
        blst_hash_to_g1(
            &mut out,
            msg.as_ptr(),
            msg.len(),
            dst.as_ptr(),
            dst.len(),
            std::ptr::null(),
            0,
        );
    }
    out
}

/// Whether `∏ e(p_i, q_i) = 1`: one multi-Miller loop and one final exponentiation
/// over the pairs (at least one).
pub(super) fn miller_loop_final_exp_is_one(pairs: &[(&blst_p1_affine, &blst_p2_affine)]) -> bool {
    let ps: Vec<*const blst_p1_affine> = pairs.iter().map(|(p, _)| *p as *const _).collect();
    let qs: Vec<*const blst_p2_affine> = pairs.iter().map(|(_, q)| *q as *const _).collect();
    let mut ml = blst_fp12::default();
    let mut gt = blst_fp12::default();
    // SAFETY: `ps` and `qs` hold `pairs.len()` pointers to affine points borrowed for
    // the duration of the call; blst reads exactly that many of each.
    unsafe {
        blst_miller_loop_n(&mut ml, qs.as_ptr(), ps.as_ptr(), pairs.len());
        blst_final_exp(&mut gt, &ml);
        blst_fp12_is_one(&gt)
    }
}

/// Every projective point of `proj` in affine coordinates (one batched inversion).
pub(super) fn p1s_to_affine(proj: &[blst_p1]) -> Vec<blst_p1_affine> {
    let mut affine = vec![blst_p1_affine::default(); proj.len()];
    let ptrs: [*const blst_p1; 2] = [proj.as_ptr(), std::ptr::null()];
    // SAFETY: with a null-terminated pointer list whose first entry points to a
    // contiguous array of `proj.len()` points, blst converts them all into `affine`,
    // which has room for exactly that many.
    unsafe { blst_p1s_to_affine(affine.as_mut_ptr(), ptrs.as_ptr(), proj.len()) };
    affine
}

/// `acc + entry` in place (a projective plus an affine point; handles acc = ±entry
/// and the identity).
pub(super) fn p1_add_or_double_affine(acc: &mut blst_p1, entry: &blst_p1_affine) {
    let mut out = blst_p1::default();
    // SAFETY: reads a projective and an affine point, writes `out` (a separate
    // variable, so no aliasing of Rust references is involved).
    unsafe { blst_p1_add_or_double_affine(&mut out, acc, entry) };
    *acc = out;
}

/// The safe point operations of one group, over the matching blst functions.
macro_rules! point_ffi {
    (
        $(#[$doc:meta])* $m:ident, $p:ty, $aff:ty, $bytes:expr,
        gen = $gen:ident, add = $add:ident, mult = $mult:ident, cneg = $cneg:ident,
        is_inf = $is_inf:ident, is_equal = $is_equal:ident, to_aff = $to_aff:ident,
        from_aff = $from_aff:ident, compress = $compress:ident,
        uncompress = $uncompress:ident, in_group = $in_group:ident,
        aff_is_inf = $aff_is_inf:ident
    ) => {
        $(#[$doc])*
        pub(super) mod $m {
            use blst::{
                $add, $aff_is_inf, $cneg, $compress, $from_aff, $gen, $in_group, $is_equal,
                $is_inf, $mult, $to_aff, $uncompress, BLST_ERROR,
            };

            /// The standard generator.
            pub(in crate::pairing) fn generator() -> $p {
                // SAFETY: blst returns a pointer to its static generator, valid for
                // the life of the program; the point is copied out.
                unsafe { *$gen() }
            }

            /// `a + b` (constant time; handles doubling and the identity).
            pub(in crate::pairing) fn add(a: &$p, b: &$p) -> $p {
                let mut out = <$p>::default();
                // SAFETY: reads two points, writes `out`.
                unsafe { $add(&mut out, a, b) };
                out
            }

            /// `-a`.
            pub(in crate::pairing) fn neg(a: &$p) -> $p {
                let mut out = *a;
                // SAFETY: negates the point `out` in place.
                unsafe { $cneg(&mut out, true) };
                out
            }

            /// `k · a` over all 255 bits of the little-endian `k` (blst's constant-time
            /// ladder).
            pub(in crate::pairing) fn mul(a: &$p, k: &[u8; 32]) -> $p {
                let mut out = <$p>::default();
                // SAFETY: `k` is 32 bytes, of which blst reads 255 bits; reads `a`,
                // writes `out`.
                unsafe { $mult(&mut out, a, k.as_ptr(), 255) };
                out
            }

            /// Whether `a` is the identity.
            pub(in crate::pairing) fn is_identity(a: &$p) -> bool {
                // SAFETY: reads a point.
                unsafe { $is_inf(a) }
            }

            /// Whether `a` and `b` are the same point.
            pub(in crate::pairing) fn eq(a: &$p, b: &$p) -> bool {
                // SAFETY: reads two points.
                unsafe { $is_equal(a, b) }
            }

            /// Affine coordinates of `a` (one field inversion).
            pub(in crate::pairing) fn to_affine(a: &$p) -> $aff {
                let mut out = <$aff>::default();
                // SAFETY: reads a point, writes `out`.
                unsafe { $to_aff(&mut out, a) };
                out
            }

            /// Projective coordinates of `a`.
            pub(in crate::pairing) fn from_affine(a: &$aff) -> $p {
                let mut out = <$p>::default();
                // SAFETY: reads an affine point, writes `out`.
                unsafe { $from_aff(&mut out, a) };
                out
            }

            /// The compressed encoding of `a`.
            pub(in crate::pairing) fn compress(a: &$aff) -> [u8; $bytes] {
                let mut out = [0u8; $bytes];
                // SAFETY: blst writes exactly the compressed size into `out`.
                unsafe { $compress(out.as_mut_ptr(), a) };
                out
            }

            /// Decodes a compressed encoding; blst's verdict on the encoding (valid,
            /// x on the curve), nothing about the subgroup.
            pub(in crate::pairing) fn uncompress(bytes: &[u8; $bytes]) -> Result<$aff, BLST_ERROR> {
                let mut out = <$aff>::default();
                // SAFETY: `bytes` has the compressed size blst reads; `out` is writable.
                match unsafe { $uncompress(&mut out, bytes.as_ptr()) } {
                    BLST_ERROR::BLST_SUCCESS => Ok(out),
                    err => Err(err),
                }
            }

            /// Whether the affine point `a` is the identity.
            pub(in crate::pairing) fn affine_is_identity(a: &$aff) -> bool {
                // SAFETY: reads an affine point.
                unsafe { $aff_is_inf(a) }
            }

            /// Whether the affine point `a` is in the prime-order subgroup.
            pub(in crate::pairing) fn affine_in_group(a: &$aff) -> bool {
                // SAFETY: reads an affine point.
                unsafe { $in_group(a) }
            }
        }
    };
}

point_ffi!(
    /// G1 over blst's `blst_p1` functions.
    p1, blst::blst_p1, blst::blst_p1_affine, 48,
    gen = blst_p1_generator, add = blst_p1_add_or_double, mult = blst_p1_mult,
    cneg = blst_p1_cneg, is_inf = blst_p1_is_inf, is_equal = blst_p1_is_equal,
    to_aff = blst_p1_to_affine, from_aff = blst_p1_from_affine,
    compress = blst_p1_affine_compress, uncompress = blst_p1_uncompress,
    in_group = blst_p1_affine_in_g1, aff_is_inf = blst_p1_affine_is_inf
);

point_ffi!(
    /// G2 over blst's `blst_p2` functions.
    p2, blst::blst_p2, blst::blst_p2_affine, 96,
    gen = blst_p2_generator, add = blst_p2_add_or_double, mult = blst_p2_mult,
    cneg = blst_p2_cneg, is_inf = blst_p2_is_inf, is_equal = blst_p2_is_equal,
    to_aff = blst_p2_to_affine, from_aff = blst_p2_from_affine,
    compress = blst_p2_affine_compress, uncompress = blst_p2_uncompress,
    in_group = blst_p2_affine_in_g2, aff_is_inf = blst_p2_affine_is_inf
);
