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
//! multiply (PCLMULQDQ) when it has one, detected at run time, and a portable 4-bit
//! window comb otherwise ([`Backend`]); both produce the 2N-word product, which one
//! word-wise reduction folds back. All arithmetic here is constant time in the values
//! (no secret-dependent branches or table indices) except where named `vartime`.
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
