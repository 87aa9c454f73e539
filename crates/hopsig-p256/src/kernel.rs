//! The interface between the portable driver and the eight-lane vector code: what one
//! lane of the kernel computes and the tables it reads.
//!
//! Per lane the kernel computes R = u1·G + u2·Q (SEC 1 §4.1.4 step 5) by Horner's rule
//! over signed windows ("Booth" recoding): u1 = Σ_j d1_j · 2^(W_G·j) with
//! d1_j ∈ [−2^(W_G−1), 2^(W_G−1)], u2 = Σ_j d2_j · 2^(W_Q·j) likewise with W_Q.
//! With T = the highest position of a digit (`TOP`):
//!
//! ```text
//! acc = O
//! for i in (0..=TOP).rev():
//!     if i < TOP: acc = 2·acc
//!     if i % W_Q == 0: acc += d2_{i/W_Q} · Q      (table: k·Q for k = 1..2^(W_Q−1))
//!     if i % W_G == 0: acc += d1_{i/W_G} · G      (table: k·G for k = 1..2^(W_G−1))
//! ```
//!
//! A zero digit adds nothing; a negative one adds the negated table point (x, −y).
//! Every lane adds at the same positions, so the eight lanes run in lockstep.
//!
//! Exceptional cases (an addition of a point to itself or to its negative, a sum at
//! infinity) are not computed in the vector code: a lane that meets one ends with
//! Z = 0, and the driver re-computes such a lane with the portable complete code.
//! Z ≠ 0 at the end therefore means no exception occurred and (X : Y : Z) is exact.

/// Window of u2's digits (the per-key table has 2^(W_Q−1) points).
pub(crate) const W_Q: usize = 6;
/// Window of u1's digits (the base-point table has 2^(W_G−1) points).
pub(crate) const W_G: usize = 7;
/// Number of u2 digits (a 256-bit scalar plus the top borrow).
pub(crate) const D_Q: usize = 256 / W_Q + 1;
/// Number of u1 digits.
pub(crate) const D_G: usize = 256 / W_G + 1;
/// The highest digit position, where the chain of doublings starts.
pub(crate) const TOP: usize = {
    let q = (D_Q - 1) * W_Q;
    let g = (D_G - 1) * W_G;
    if q > g {
        q
    } else {
        g
    }
};

/// An affine point (x, y) of P-256, coordinates in Montgomery form (radix 2^52,
/// R = 2^260, fully reduced), as the vector code loads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
pub(crate) struct AffineM52 {
    /// x·R mod p.
    pub x: [u64; 5],
    /// y·R mod p.
    pub y: [u64; 5],
}

/// A point in Jacobian coordinates (X : Y : Z) = (X/Z², Y/Z³), Montgomery form, fully
/// reduced; Z = 0 is the point at infinity or an exceptional lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
pub(crate) struct JacobianM52 {
    /// X·R mod p.
    pub x: [u64; 5],
    /// Y·R mod p.
    pub y: [u64; 5],
    /// Z·R mod p.
    pub z: [u64; 5],
}

/// The odd and even multiples k·Q, k = 1..=2^(W_Q−1), of one public key: `points[k−1]`.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub(crate) struct QTable {
    /// k·Q at index k − 1.
    pub points: [AffineM52; 1 << (W_Q - 1)],
}

/// k·G, k = 1..=2^(W_G−1), at index k − 1.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub(crate) struct GTable {
    /// k·G at index k − 1.
    pub points: [AffineM52; 1 << (W_G - 1)],
}

/// One lane's input: its key's table and both scalars' digits, least significant first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lane<'a> {
    /// The public key's table.
    pub q: &'a QTable,
    /// u1's signed digits (window W_G).
    pub u1: [i8; D_G],
    /// u2's signed digits (window W_Q).
    pub u2: [i8; D_Q],
}
