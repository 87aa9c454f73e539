//! Bounds-checked reading of untrusted bytes.
//!
//! Every decoder in hopsig reads through [`Reader`], which never panics, never
//! allocates from an unchecked length, and makes the caller reject trailing bytes
//! ([`Reader::finish`]): a decoded value is valid by construction.

/// Why a byte string could not be decoded. Each variant names the field at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The input ended before a field was complete.
    #[error("input too short: {field} needs {needed} bytes but only {available} remain")]
    ShortInput {
        /// The field being read.
        field: &'static str,
        /// Bytes the field needs.
        needed: usize,
        /// Bytes that were left.
        available: usize,
    },
    /// Bytes remained after the last field.
    #[error("{count} trailing bytes after the end of the {what}")]
    TrailingBytes {
        /// What was decoded.
        what: &'static str,
        /// How many bytes were left over.
        count: usize,
    },
    /// A numeric field is outside the range the format allows.
    #[error("{field} is {actual}, outside the allowed range {min}..={max}")]
    OutOfRange {
        /// The field at fault.
        field: &'static str,
        /// The value found.
        actual: u64,
        /// Smallest allowed value.
        min: u64,
        /// Largest allowed value.
        max: u64,
    },
    /// A field has a value the format forbids.
    #[error("{field}: {reason}")]
    Invalid {
        /// The field at fault.
        field: &'static str,
        /// What is wrong with it.
        reason: &'static str,
    },
}

/// A cursor over untrusted bytes.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    /// Starts reading `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { rest: bytes }
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.rest.len()
    }

    /// Reads exactly `n` bytes.
    ///
    /// # Errors
    /// [`DecodeError::ShortInput`] if fewer than `n` bytes remain.
    pub fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], DecodeError> {
        if n > self.rest.len() {
            return Err(DecodeError::ShortInput {
                field,
                needed: n,
                available: self.rest.len(),
            });
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    /// Reads a fixed-size array.
    ///
    /// # Errors
    /// [`DecodeError::ShortInput`] if fewer than `N` bytes remain.
    pub fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], DecodeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, field)?);
        Ok(out)
    }

    /// Reads one byte.
    ///
    /// # Errors
    /// [`DecodeError::ShortInput`] at the end of input.
    pub fn u8(&mut self, field: &'static str) -> Result<u8, DecodeError> {
        Ok(self.array::<1>(field)?[0])
    }

    /// Reads a big-endian `u16`.
    ///
    /// # Errors
    /// [`DecodeError::ShortInput`] if fewer than 2 bytes remain.
    pub fn u16_be(&mut self, field: &'static str) -> Result<u16, DecodeError> {
        Ok(u16::from_be_bytes(self.array(field)?))
    }

    /// Ends decoding; everything must have been read.
    ///
    /// # Errors
    /// [`DecodeError::TrailingBytes`] if bytes remain.
    pub fn finish(self, what: &'static str) -> Result<(), DecodeError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(DecodeError::TrailingBytes {
                what,
                count: self.rest.len(),
            })
        }
    }
}

/// Lowercase hex of `bytes`, for messages and `Debug` output.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Checks that `value` lies in `min..=max`.
///
/// # Errors
/// [`DecodeError::OutOfRange`] otherwise.
pub fn check_range(field: &'static str, value: u64, min: u64, max: u64) -> Result<(), DecodeError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(DecodeError::OutOfRange {
            field,
            actual: value,
            min,
            max,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_fields_and_rejects_short_and_trailing_input() {
        let mut r = Reader::new(&[1, 0, 2, 9, 9]);
        assert_eq!(r.u8("a"), Ok(1));
        assert_eq!(r.u16_be("b"), Ok(2));
        assert_eq!(
            r.clone().take(3, "c"),
            Err(DecodeError::ShortInput {
                field: "c",
                needed: 3,
                available: 2
            })
        );
        assert_eq!(
            r.clone().finish("x"),
            Err(DecodeError::TrailingBytes {
                what: "x",
                count: 2
            })
        );
        assert_eq!(r.take(2, "c"), Ok(&[9u8, 9][..]));
        assert_eq!(r.finish("x"), Ok(()));
    }

    #[test]
    fn range_check_names_the_field() {
        assert!(check_range("n", 5, 1, 5).is_ok());
        assert_eq!(
            check_range("n", 0, 1, 5),
            Err(DecodeError::OutOfRange {
                field: "n",
                actual: 0,
                min: 1,
                max: 5
            })
        );
    }
}
