//! The public API: keys, items, batch verification (engineer 2 of issue 28 fills this
//! in; the signatures below are the interface the rest of hopsig codes against).

use std::fmt;

/// A P-256 public key Q, checked (SEC 1 v2 §3.2.2.1: coordinates in [0, p − 1], on the
/// curve, not the point at infinity; the group has prime order, so Q is in it), with
/// its table of multiples built on first use by the vector backend and kept.
pub struct PublicKey {
    _private: (),
}

/// Why bytes are not a P-256 public key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyError {
    /// Not 65 octets.
    Length(usize),
    /// The first octet is not 0x04 (uncompressed, SEC 1 §2.3.3).
    Form(u8),
    /// A coordinate is ≥ p.
    CoordinateRange,
    /// (x, y) does not satisfy y² = x³ − 3x + b.
    NotOnCurve,
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::Length(n) => write!(f, "a P-256 point is 65 octets, not {n}"),
            KeyError::Form(b) => write!(f, "point form 0x{b:02x} is not uncompressed (0x04)"),
            KeyError::CoordinateRange => f.write_str("a coordinate is not below p"),
            KeyError::NotOnCurve => f.write_str("the point is not on P-256"),
        }
    }
}

impl std::error::Error for KeyError {}

impl PublicKey {
    /// The uncompressed SEC 1 encoding 0x04 ‖ x ‖ y (65 octets), checked.
    ///
    /// # Errors
    /// Why it is not a P-256 public key.
    pub fn from_sec1(_bytes: &[u8]) -> Result<PublicKey, KeyError> {
        todo!("engineer 2")
    }

    /// 0x04 ‖ x ‖ y.
    pub fn to_sec1(&self) -> [u8; 65] {
        todo!("engineer 2")
    }
}

/// One signature to verify: (r, s) on the SHA-256 `digest` under `key`. r and s are
/// big-endian integers as decoded from the signature; values outside [1, n − 1] simply
/// do not verify (SEC 1 §4.1.4 step 1).
#[derive(Clone, Copy)]
pub struct Item<'a> {
    /// The public key.
    pub key: &'a PublicKey,
    /// The message digest e (SHA-256: all 256 bits are used, FIPS 186-5 §6.4.2).
    pub digest: [u8; 32],
    /// r.
    pub r: [u8; 32],
    /// s.
    pub s: [u8; 32],
}

/// Which code verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Eight lanes of AVX-512 IFMA.
    Avx512Ifma,
    /// The portable one-lane code.
    Portable,
}

impl Backend {
    /// A stable name (`avx512ifma`, `portable`).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Avx512Ifma => "avx512ifma",
            Backend::Portable => "portable",
        }
    }
}

/// The backend [`verify_batch_vartime`] uses on this machine: IFMA when
/// [`hopsig_cpu::has`] says so.
pub fn active_backend() -> Backend {
    todo!("engineer 2")
}

/// Whether one item verifies (portable code).
pub fn verify_vartime(_item: &Item<'_>) -> bool {
    todo!("engineer 2")
}

/// One verdict per item, in order, with [`active_backend`].
pub fn verify_batch_vartime(items: &[Item<'_>]) -> Vec<bool> {
    verify_batch_with_vartime(active_backend(), items)
}

/// One verdict per item with `backend` (IFMA falls back to portable code where the
/// processor lacks it).
pub fn verify_batch_with_vartime(_backend: Backend, _items: &[Item<'_>]) -> Vec<bool> {
    todo!("engineer 2")
}
