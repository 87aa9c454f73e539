//! Binary fields GF(2^m) = GF(2)[x]/(f(x)) for the NIST Koblitz-curve fields
//! (FIPS 186-4 App. D.1.3): m = 163, 233, 283 with
//!
//! | field | f(x) |
//! |---|---|
//! | [`F163`] | x^163 + x^7 + x^6 + x^3 + 1 |
//! | [`F233`] | x^233 + x^74 + 1 |
//! | [`F283`] | x^283 + x^12 + x^7 + x^5 + 1 |
//!
//! Elements are polynomials of degree < m in little-endian 64-bit words (bit i of the
//! element is the coefficient of x^i). Multiplication uses the processor's carry-less
//! multiply (PCLMULQDQ) when it has one (detected at run time by `hopsig-cpu`, hopsig's
//! one feature check, unless the build targets it), and a portable 4-bit
//! window comb otherwise ([`Backend`]); both produce the 2N-word product, which one
//! word-wise reduction folds back.
//!
//! **Constant time unless named `vartime`** (curve25519-dalek's rule). Every public
//! function and trait implementation of this crate runs in constant time in the values
//! it is given — no branch and no memory address depends on a field element, a
//! coordinate or a scalar — unless its name says `vartime`. Public, and so allowed to
//! decide a branch or a length:
//! - the lengths of inputs and outputs, the curve and field (compile-time constants),
//!   and whether a point is ∞ where that decides an encoding's length
//!   ([`curve::Affine::to_sec1`]);
//! - the answer of a predicate or decoder: `==` on field elements and points,
//!   `is_zero`, `is_infinity`, `is_on_curve`, `has_x`, and a decoder's "valid or not"
//!   (its `Option` or `Result`) are computed in full, through masks with an
//!   optimisation barrier, and only the answer is a `bool`; secret code keeps a
//!   `subtle::Choice` instead (`ct_eq`, [`scalar::SecretScalar::from_be_bytes`],
//!   `from_candidate`, `is_zero`) and declassifies it only where the protocol makes it
//!   public.
//!
//! Variable-time code says so in its name: decoding and subgroup checks of received
//! points (`Affine::from_sec1_vartime`, `decompress_vartime`, `in_subgroup_fast_vartime`,
//! `check_subgroup_vartime`), verification's multiplications (`Point::mul_vartime`,
//! `multi_mul_vartime`, `tau::multi_mul_tau_vartime`), tables built from public points
//! (`OddTable::new_vartime`, `Comb::new_vartime`, `tau::TauTable::new_vartime`) and
//! field operations for public values (`Fe::invert_vartime`, `half_trace_vartime`). One
//! type is variable time as a whole and says so in its documentation instead:
//! [`scalar::Scalar`], the public scalars of verification (u₁, u₂, r_A); secrets are
//! [`scalar::SecretScalar`]. (`Debug` output prints points and is not covered;
//! `SecretScalar`'s prints nothing.) The constant-time test (`crates/hopsig-ctime`)
//! checks the signing paths under valgrind.
//!
//! [`curve`] builds the NIST Koblitz curves K-163, K-233 and K-283 on these fields;
//! [`tau`] multiplies their points through τ-adic expansions (Frobenius maps instead
//! of doublings) for public scalars; [`scalar`] computes modulo their order n.
//! The crate knows nothing about signatures and could be published alone.

mod clmul;
pub mod curve;
mod field;
mod portable;
pub mod scalar;
pub mod tau;
mod zint;

pub use field::{Backend, Fe, Field, FieldConstants, F163, F233, F283, F5};

#[cfg(test)]
mod reference;
