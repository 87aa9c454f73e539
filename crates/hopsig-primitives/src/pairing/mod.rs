//! The BLS12-381 pairing groups, over `blst`.
//!
//! `e: G1 × G2 → GT`, both groups of prime order
//! `r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001`.
//! blst's safe Rust API covers BLS signatures but not the point arithmetic that
//! Gentry–Ramzan needs, so the few raw C functions used here are wrapped once, each
//! call with the reason it is sound, in `pairing/ffi.rs` (private): the only file of
//! this module that may use `unsafe`. This file builds the safe types over those
//! wrappers; everything else in hopsig uses the safe types.
//!
//! * Points decoded from bytes are checked: valid encoding, on the curve, in the
//!   prime-order subgroup, and not the identity ([`PointError`] says which failed).
//! * [`G1::mul`] and [`G2::mul`] are blst's constant-time ladder over all 255 scalar
//!   bits; they are the ones to use with secret scalars or secret points.
//!   [`G1Table::mul_vartime`] is faster and for public inputs only.
//! * [`Scalar`] zeroizes on drop; so does every point type when asked
//!   ([`zeroize::Zeroize`]), which key types do in their `Drop`.
//! * Hashing onto G1 is RFC 9380's `BLS12381G1_XMD:SHA-256_SSWU_RO_` suite with the
//!   caller's domain-separation tag; hashing onto the scalar field is RFC 9380 §5.2
//!   `hash_to_field` with `expand_message_xmd`-SHA-256 and `L = 48`.

mod ffi;

use std::fmt;

use blst::{blst_p1, blst_p1_affine, blst_p2, blst_p2_affine, blst_scalar};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

use crate::valgrind::{declassify, public_bool};

/// Bytes of a compressed G1 point (ZCash serialization, as in the IETF BLS draft).
pub const G1_BYTES: usize = 48;
/// Bytes of a compressed G2 point.
pub const G2_BYTES: usize = 96;
/// Bytes of a scalar (big-endian, reduced modulo r).
pub const SCALAR_BYTES: usize = 32;
/// Bytes reduced modulo r to make a uniform scalar ([`Scalar::hash`],
/// [`Scalar::random`]): `L = ceil((ceil(log2(r)) + k) / 8) = ceil((255 + 128) / 8) = 48`
/// (RFC 9380 §5.1), so the bias is below 2^-128.
pub const WIDE_SCALAR_BYTES: usize = 48;

/// Why a point encoding was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PointError {
    /// Not a valid compressed encoding, or x has no point on the curve.
    #[error("not a valid compressed point on the curve")]
    Encoding,
    /// On the curve but outside the prime-order subgroup.
    #[error("point not in the prime-order subgroup")]
    Subgroup,
    /// The point at infinity, which no hopsig format allows.
    #[error("point at infinity")]
    Identity,
}

/// Why scalar bytes were rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ScalarError {
    /// Zero or not below r.
    #[error("scalar is zero or not below the group order r")]
    OutOfRange,
    /// The operating system's random number generator (via OpenSSL) failed.
    #[error("random number generator failed")]
    Rng,
}

/// An integer modulo r. Zeroized on drop, so it may hold a secret.
#[derive(Clone, Default)]
pub struct Scalar(blst_scalar);

impl Drop for Scalar {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl fmt::Debug for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Scalar(..)")
    }
}

impl Scalar {
    /// A uniformly random nonzero scalar: 48 bytes from OpenSSL's private DRBG
    /// (`RAND_priv_bytes`, for secrets) reduced modulo r (bias below 2^-128), drawn
    /// again in the negligible case that it is zero.
    ///
    /// # Errors
    /// [`ScalarError::Rng`] if the random number generator fails.
    pub fn random() -> Result<Self, ScalarError> {
        Self::random_from(|wide| openssl::rand::rand_priv_bytes(wide).map_err(|_| ScalarError::Rng))
    }

    /// [`Scalar::random`] with the random bytes from `fill`, which must be a
    /// cryptographically secure source (the constant-time test passes bytes it has
    /// marked secret). The zero test is constant time, and its verdict, which only
    /// decides whether to draw again, is declassified.
    ///
    /// # Errors
    /// Whatever `fill` returns.
    pub fn random_from(
        mut fill: impl FnMut(&mut [u8; WIDE_SCALAR_BYTES]) -> Result<(), ScalarError>,
    ) -> Result<Self, ScalarError> {
        let mut wide = Zeroizing::new([0u8; WIDE_SCALAR_BYTES]);
        loop {
            fill(&mut wide)?;
            let s = Self::reduce(wide.as_ref());
            if !s.is_zero() {
                return Ok(s);
            }
        }
    }

    /// `bytes` read big-endian and reduced modulo r.
    fn reduce(bytes: &[u8]) -> Self {
        let mut s = Scalar::default();
        ffi::scalar_from_be_bytes(&mut s.0, bytes);
        s
    }

    /// RFC 9380 §5.2 `hash_to_field(msg, 1)` for the scalar field: `expand_message_xmd`
    /// with SHA-256 to 48 bytes under `dst`, read big-endian, reduced modulo r.
    ///
    /// A `dst` longer than 255 bytes is hashed down as RFC 9380 §5.3.3 says.
    pub fn hash(msg: &[u8], dst: &[u8]) -> Self {
        let mut uniform = Zeroizing::new([0u8; WIDE_SCALAR_BYTES]);
        expand_message_xmd(msg, dst, uniform.as_mut());
        Self::reduce(uniform.as_ref())
    }

    /// Decodes a canonical 32-byte big-endian scalar: nonzero and below r.
    ///
    /// # Errors
    /// [`ScalarError::OutOfRange`] otherwise.
    pub fn from_be_bytes(bytes: &[u8; SCALAR_BYTES]) -> Result<Self, ScalarError> {
        let mut s = Scalar::default();
        let mut ok = ffi::scalar_from_bendian_checked(&mut s.0, bytes);
        // blst_sk_check is constant time; whether the bytes are a valid scalar is
        // public (the file is accepted or refused).
        declassify(&mut ok);
        if ok {
            Ok(s)
        } else {
            Err(ScalarError::OutOfRange)
        }
    }

    /// The canonical 32-byte big-endian encoding.
    pub fn to_be_bytes(&self) -> Zeroizing<[u8; SCALAR_BYTES]> {
        let mut out = Zeroizing::new([0u8; SCALAR_BYTES]);
        ffi::bendian_from_scalar(&mut out, &self.0);
        out
    }

    /// `self + other mod r`.
    #[must_use]
    pub fn add(&self, other: &Self) -> Self {
        Scalar(ffi::scalar_add(&self.0, &other.0))
    }

    /// `self − other mod r`.
    #[must_use]
    pub fn sub(&self, other: &Self) -> Self {
        Scalar(ffi::scalar_sub(&self.0, &other.0))
    }

    /// `self · other mod r`.
    #[must_use]
    pub fn mul(&self, other: &Self) -> Self {
        Scalar(ffi::scalar_mul(&self.0, &other.0))
    }

    /// `self^-1 mod r` (zero maps to zero).
    #[must_use]
    pub fn invert(&self) -> Self {
        Scalar(ffi::scalar_inverse(&self.0))
    }

    /// Whether the scalar is zero, computed in constant time (`subtle`'s `ct_eq` over
    /// all 32 bytes). The answer itself is declassified
    /// ([`crate::valgrind::public_bool`]): callers use it only to reject or redraw a
    /// zero scalar, so it is public by the protocol.
    pub fn is_zero(&self) -> bool {
        public_bool(self.0.b.ct_eq(&[0u8; SCALAR_BYTES]))
    }

    /// The little-endian bytes blst's multiplication routines read.
    fn le(&self) -> &[u8; 32] {
        &self.0.b
    }
}

/// RFC 9380 §5.3.1 `expand_message_xmd` with SHA-256: fills `out` (at most 8,160
/// bytes, 255 SHA-256 blocks) with uniform bytes derived from `msg` under `dst`.
pub fn expand_message_xmd(msg: &[u8], dst: &[u8], out: &mut [u8]) {
    // RFC 9380's limit ell <= 255; blst does not check it, so hopsig does. Every
    // caller in hopsig asks for 48 bytes.
    let len = out.len().min(255 * 32);
    ffi::expand_message_xmd(&mut out[..len], msg, dst);
}

/// Implements the operations G1 and G2 share, over the matching safe wrappers of
/// [`ffi`] (`ffi::p1`, `ffi::p2`).
macro_rules! group {
    (
        $(#[$doc:meta])* $name:ident, $aff_name:ident, $p:ty, $aff:ty, $bytes:expr,
        ffi = $ffi:ident
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name($p);

        /// The same point in affine coordinates: the form pairings and encodings take.
        #[derive(Clone, Copy)]
        pub struct $aff_name($aff);

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({})"), crate::codec::to_hex(&self.to_compressed()))
            }
        }

        impl fmt::Debug for $aff_name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&$name::from(*self), f)
            }
        }

        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                ffi::$ffi::eq(&self.0, &other.0)
            }
        }
        impl Eq for $name {}

        impl Zeroize for $name {
            fn zeroize(&mut self) {
                self.0.x.zeroize_coords();
                self.0.y.zeroize_coords();
                self.0.z.zeroize_coords();
            }
        }

        impl Zeroize for $aff_name {
            fn zeroize(&mut self) {
                self.0.x.zeroize_coords();
                self.0.y.zeroize_coords();
            }
        }

        impl From<$aff_name> for $name {
            fn from(a: $aff_name) -> Self {
                $name(ffi::$ffi::from_affine(&a.0))
            }
        }

        impl From<$name> for $aff_name {
            fn from(p: $name) -> Self {
                $name::to_affine(&p)
            }
        }

        impl $name {
            /// The standard generator.
            pub fn generator() -> Self {
                $name(ffi::$ffi::generator())
            }

            /// The identity (point at infinity).
            pub fn identity() -> Self {
                // blst represents infinity with z = 0, which the all-zero point has.
                $name(<$p>::default())
            }

            /// `self + other` (constant time; handles doubling and the identity).
            #[must_use]
            pub fn add(&self, other: &Self) -> Self {
                $name(ffi::$ffi::add(&self.0, &other.0))
            }

            /// `-self`.
            #[must_use]
            pub fn neg(&self) -> Self {
                $name(ffi::$ffi::neg(&self.0))
            }

            /// `k · self` in constant time over all 255 bits of `k` (blst's ladder);
            /// safe with a secret scalar and a secret point.
            #[must_use]
            pub fn mul(&self, k: &Scalar) -> Self {
                $name(ffi::$ffi::mul(&self.0, k.le()))
            }

            /// Whether this is the identity.
            pub fn is_identity(&self) -> bool {
                ffi::$ffi::is_identity(&self.0)
            }

            /// Affine coordinates (one field inversion).
            pub fn to_affine(&self) -> $aff_name {
                $aff_name(ffi::$ffi::to_affine(&self.0))
            }

            /// Compressed encoding.
            pub fn to_compressed(&self) -> [u8; $bytes] {
                self.to_affine().to_compressed()
            }

            /// Decodes a compressed point, checking that the encoding is valid, that
            /// the point is on the curve and in the prime-order subgroup, and that it is
            /// not the identity.
            ///
            /// # Errors
            /// [`PointError`] naming the failed check.
            pub fn from_compressed(bytes: &[u8; $bytes]) -> Result<Self, PointError> {
                $aff_name::from_compressed(bytes).map(Self::from)
            }
        }

        impl $aff_name {
            /// Compressed encoding.
            pub fn to_compressed(&self) -> [u8; $bytes] {
                ffi::$ffi::compress(&self.0)
            }

            #[doc = concat!("See [`", stringify!($name), "::from_compressed`].")]
            ///
            /// # Errors
            /// [`PointError`] naming the failed check.
            pub fn from_compressed(bytes: &[u8; $bytes]) -> Result<Self, PointError> {
                let a = ffi::$ffi::uncompress(bytes).map_err(|_| PointError::Encoding)?;
                if ffi::$ffi::affine_is_identity(&a) {
                    return Err(PointError::Identity);
                }
                if !ffi::$ffi::affine_in_group(&a) {
                    return Err(PointError::Subgroup);
                }
                Ok($aff_name(a))
            }
        }
    };
}

/// Zeroizes the limbs of a base-field or extension-field coordinate.
trait ZeroizeCoords {
    fn zeroize_coords(&mut self);
}
impl ZeroizeCoords for blst::blst_fp {
    fn zeroize_coords(&mut self) {
        self.l.zeroize();
    }
}
impl ZeroizeCoords for blst::blst_fp2 {
    fn zeroize_coords(&mut self) {
        for c in &mut self.fp {
            c.l.zeroize();
        }
    }
}
group!(
    /// A point of G1 (projective coordinates).
    G1, G1Affine, blst_p1, blst_p1_affine, G1_BYTES, ffi = p1
);

group!(
    /// A point of G2 (projective coordinates).
    G2, G2Affine, blst_p2, blst_p2_affine, G2_BYTES, ffi = p2
);

impl G1 {
    /// RFC 9380 `hash_to_curve` with the suite `BLS12381G1_XMD:SHA-256_SSWU_RO_` and
    /// domain-separation tag `dst`.
    pub fn hash(msg: &[u8], dst: &[u8]) -> Self {
        G1(ffi::hash_to_g1(msg, dst))
    }
}

/// Whether `∏ e(a_i, b_i) = 1` in GT: one multi-Miller loop over all pairs (shared
/// squarings) and one final exponentiation. With no pairs, the empty product is 1.
///
/// Inputs are affine because blst's Miller loop takes affine points; callers keep fixed
/// points (generators, public parameters) affine so that they are converted once.
pub fn pairing_product_is_one(pairs: &[(&G1Affine, &G2Affine)]) -> bool {
    if pairs.is_empty() {
        return true;
    }
    let raw: Vec<(&blst_p1_affine, &blst_p2_affine)> =
        pairs.iter().map(|(a, b)| (&a.0, &b.0)).collect();
    ffi::miller_loop_final_exp_is_one(&raw)
}

/// Window width of [`G1Table`]: 6 bits, so a 255-bit scalar takes 43 mixed additions
/// and a table holds 43 × 63 affine points (about 254 KiB).
const TABLE_WINDOW: usize = 6;
const TABLE_WINDOWS: usize = 255_usize.div_ceil(TABLE_WINDOW);
const TABLE_DIGITS: usize = (1 << TABLE_WINDOW) - 1;

/// A fixed-base table for one public G1 point `B`: entry `[w][d - 1] = d · 2^(6w) · B`.
/// [`G1Table::mul_vartime`] then computes `k · B` with one mixed addition per 6-bit
/// digit of `k` and no doublings, about 2.5 times faster than [`G1::mul`].
///
/// Variable time in the scalar: only for public scalars and points (verification).
pub struct G1Table(Vec<blst_p1_affine>);

impl fmt::Debug for G1Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "G1Table({} points)", self.0.len())
    }
}

impl G1Table {
    /// Builds the table (about 2,700 additions and one batched inversion).
    pub fn new(base: &G1) -> Self {
        let mut proj = Vec::with_capacity(TABLE_WINDOWS * TABLE_DIGITS);
        let mut window_base = *base;
        for _ in 0..TABLE_WINDOWS {
            let mut acc = window_base;
            for _ in 0..TABLE_DIGITS {
                proj.push(acc.0);
                acc = acc.add(&window_base);
            }
            // After the loop acc = 2^6 · window_base, the next window's base.
            window_base = acc;
        }
        G1Table(ffi::p1s_to_affine(&proj))
    }

    /// `k · B` (variable time; public inputs only).
    pub fn mul_vartime(&self, k: &Scalar) -> G1 {
        let le = k.le();
        let mut acc = blst_p1::default();
        for w in 0..TABLE_WINDOWS {
            let digit = window_digit(le, w * TABLE_WINDOW);
            if digit != 0 {
                let entry = &self.0[w * TABLE_DIGITS + digit - 1];
                // The add-or-double form handles acc = ±entry and the identity.
                ffi::p1_add_or_double_affine(&mut acc, entry);
            }
        }
        G1(acc)
    }
}

/// The `TABLE_WINDOW`-bit digit of the little-endian integer `le` starting at bit `bit`.
fn window_digit(le: &[u8; 32], bit: usize) -> usize {
    let byte = bit / 8;
    let lo = usize::from(le[byte]);
    let hi = le.get(byte + 1).copied().map_or(0, usize::from);
    ((lo | hi << 8) >> (bit % 8)) & TABLE_DIGITS
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// r − 1, big-endian.
    const R_MINUS_1: &str = "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000";

    #[test]
    fn expand_message_xmd_matches_rfc9380_k1() {
        // RFC 9380 Appendix K.1, DST = QUUX-V01-CS02-with-expander-SHA256-128, len 0x20.
        let dst = b"QUUX-V01-CS02-with-expander-SHA256-128";
        for (msg, want) in [
            (
                &b""[..],
                "68a985b87eb6b46952128911f2a4412bbc302a9d759667f87f7a21d803f07235",
            ),
            (
                b"abc",
                "d8ccab23b5985ccea865c6c97b6e5b8350e794e603b4b97902f53a8a0d605615",
            ),
            (
                b"abcdef0123456789",
                "eff31487c770a893cfb36f912fbfcbff40d5661771ca4b2cb4eafe524333f5c1",
            ),
        ] {
            let mut out = [0u8; 32];
            expand_message_xmd(msg, dst, &mut out);
            assert_eq!(out.to_vec(), unhex(want));
        }
    }

    #[test]
    fn hash_to_g1_matches_rfc9380_j91() {
        // RFC 9380 Appendix J.9.1 (BLS12381G1_XMD:SHA-256_SSWU_RO_), compressed x with
        // the compression flag set and the y-sign flag clear for both points.
        let dst = b"QUUX-V01-CS02-with-BLS12381G1_XMD:SHA-256_SSWU_RO_";
        for (msg, want) in [
            (&b""[..], "852926add2207b76ca4fa57a8734416c8dc95e24501772c814278700eed6d1e4e8cf62d9c09db0fac349612b759e79a1"),
            (b"abc", "83567bc5ef9c690c2ab2ecdf6a96ef1c139cc0b2f284dca0a9a7943388a49a3aee664ba5379a7655d3c68900be2f6903"),
        ] {
            assert_eq!(G1::hash(msg, dst).to_compressed().to_vec(), unhex(want));
        }
    }

    #[test]
    fn scalars_must_be_canonical_and_nonzero() {
        let r_minus_1: [u8; 32] = unhex(R_MINUS_1).try_into().unwrap();
        let s = Scalar::from_be_bytes(&r_minus_1).unwrap();
        assert_eq!(s.to_be_bytes().to_vec(), r_minus_1.to_vec());
        let mut r = r_minus_1;
        r[31] = 1; // r itself
        assert_eq!(
            Scalar::from_be_bytes(&r).unwrap_err(),
            ScalarError::OutOfRange
        );
        assert_eq!(
            Scalar::from_be_bytes(&[0; 32]).unwrap_err(),
            ScalarError::OutOfRange
        );
        assert_eq!(
            Scalar::from_be_bytes(&[0xff; 32]).unwrap_err(),
            ScalarError::OutOfRange
        );
        // Reduction: r + 5 (as 33 bytes) reduces to 5.
        let mut wide = vec![0u8];
        wide.extend_from_slice(&r);
        wide[32] = 6;
        assert_eq!(Scalar::reduce(&wide).to_be_bytes()[31], 5);
    }

    #[test]
    fn zero_test_and_sampling() {
        assert!(Scalar::default().is_zero());
        let mut one = [0u8; 32];
        one[31] = 1;
        assert!(!Scalar::from_be_bytes(&one).unwrap().is_zero());
        // A nonzero high byte alone (the short-circuit test stopped at the first one).
        let mut high = [0u8; 32];
        high[0] = 1;
        assert!(!Scalar::from_be_bytes(&high).unwrap().is_zero());
        // random_from redraws a zero (48 bytes equal to r reduce to 0) and reports the
        // source's failure.
        let r_be = unhex("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
        let mut draws = 0;
        let s = Scalar::random_from(|wide| {
            draws += 1;
            *wide = [0; WIDE_SCALAR_BYTES];
            if draws == 1 {
                wide[16..].copy_from_slice(&r_be);
            } else {
                wide[47] = 7;
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(draws, 2);
        assert_eq!(s.to_be_bytes()[31], 7);
        assert_eq!(
            Scalar::random_from(|_| Err(ScalarError::Rng)).unwrap_err(),
            ScalarError::Rng
        );
    }

    #[test]
    fn scalar_field_arithmetic() {
        let a = Scalar::random().unwrap();
        let b = Scalar::random().unwrap();
        let g = G1::generator();
        // (a + b)G = aG + bG, (a − b)G + bG = aG, (ab)G = a(bG), a · a^-1 = 1.
        assert_eq!(g.mul(&a.add(&b)), g.mul(&a).add(&g.mul(&b)));
        assert_eq!(g.mul(&a.sub(&b)).add(&g.mul(&b)), g.mul(&a));
        assert_eq!(g.mul(&a.mul(&b)), g.mul(&b).mul(&a));
        assert_eq!(g.mul(&a.mul(&a.invert())), g);
    }

    #[test]
    fn pairing_is_bilinear() {
        let a = Scalar::random().unwrap();
        let b = Scalar::random().unwrap();
        let ga = G1::generator().mul(&a);
        let hb = G2::generator().mul(&b);
        let gab = ga.mul(&b).neg();
        // e(aG, bH) · e(−abG, H) = 1, and not with a wrong exponent.
        assert!(pairing_product_is_one(&[
            (&ga.to_affine(), &hb.to_affine()),
            (&gab.to_affine(), &G2::generator().to_affine()),
        ]));
        assert!(!pairing_product_is_one(&[
            (&ga.to_affine(), &hb.to_affine()),
            (&ga.neg().to_affine(), &G2::generator().to_affine()),
        ]));
    }

    #[test]
    fn table_multiplication_matches_the_ladder() {
        let base = G1::hash(b"table", b"HOPSIG-TEST");
        let table = G1Table::new(&base);
        let r_minus_1: [u8; 32] = unhex(R_MINUS_1).try_into().unwrap();
        let mut one = [0u8; 32];
        one[31] = 1;
        let mut edge = vec![
            Scalar::from_be_bytes(&r_minus_1).unwrap(),
            Scalar::from_be_bytes(&one).unwrap(),
            Scalar::default(),
        ];
        edge.extend((0..20).map(|_| Scalar::random().unwrap()));
        for k in &edge {
            assert_eq!(table.mul_vartime(k), base.mul(k));
        }
        assert!(table.mul_vartime(&Scalar::default()).is_identity());
    }

    #[test]
    fn round_trips_and_rejections() {
        let p = G1::hash(b"x", b"HOPSIG-TEST");
        assert_eq!(G1::from_compressed(&p.to_compressed()).unwrap(), p);
        let q = G2::generator().mul(&Scalar::random().unwrap());
        assert_eq!(G2::from_compressed(&q.to_compressed()).unwrap(), q);

        // The identity: compression and infinity flags, all else zero.
        let mut inf1 = [0u8; G1_BYTES];
        inf1[0] = 0xc0;
        assert_eq!(
            G1::from_compressed(&inf1).unwrap_err(),
            PointError::Identity
        );
        let mut inf2 = [0u8; G2_BYTES];
        inf2[0] = 0xc0;
        assert_eq!(
            G2::from_compressed(&inf2).unwrap_err(),
            PointError::Identity
        );
        // No compression flag.
        let mut bad = p.to_compressed();
        bad[0] &= 0x7f;
        assert_eq!(G1::from_compressed(&bad).unwrap_err(), PointError::Encoding);
        // x ≥ p.
        let mut big = [0xffu8; G1_BYTES];
        big[0] = 0x9f;
        assert_eq!(G1::from_compressed(&big).unwrap_err(), PointError::Encoding);

        // Small x: some are off the curve, the others on the curve but (with
        // overwhelming probability, and checked here for the first ones) outside G1.
        let (mut off, mut outside) = (0, 0);
        for x in 1u8..40 {
            let mut enc = [0u8; G1_BYTES];
            enc[0] = 0x80;
            enc[47] = x;
            match G1::from_compressed(&enc) {
                Err(PointError::Encoding) => off += 1,
                Err(PointError::Subgroup) => outside += 1,
                other => panic!("x = {x}: {other:?}"),
            }
        }
        assert!(off > 0 && outside > 0, "off {off}, outside {outside}");
        let (mut off2, mut outside2) = (0, 0);
        for x in 1u8..40 {
            let mut enc = [0u8; G2_BYTES];
            enc[0] = 0x80;
            enc[95] = x;
            match G2::from_compressed(&enc) {
                Err(PointError::Encoding) => off2 += 1,
                Err(PointError::Subgroup) => outside2 += 1,
                other => panic!("x = {x}: {other:?}"),
            }
        }
        assert!(off2 > 0 && outside2 > 0, "off {off2}, outside {outside2}");
    }

    #[test]
    fn zeroize_clears_points_and_scalars() {
        let mut p = G1::hash(b"secret", b"HOPSIG-TEST");
        p.zeroize();
        assert!(p.is_identity());
        let mut q = G2::generator();
        q.zeroize();
        assert!(q.is_identity());
    }
}
