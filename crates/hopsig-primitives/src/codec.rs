//! Both halves of every byte format hopsig defines.
//!
//! A wire type implements [`Codec`] (the shape of rustls' `Codec`): [`Codec::encode`]
//! appends it to a [`Writer`], [`Codec::read`] takes it from a [`Reader`], and
//! [`Codec::decode`] reads a whole byte string, rejecting trailing bytes. The reader
//! never panics and never allocates from an unchecked length; the writer checks every
//! length prefix and count against its field and returns an [`EncodeError`] rather than
//! truncating. Code points are enums declared with [`code_points!`](crate::code_points),
//! which writes the `TryFrom<u8>` from the same list.

use std::convert::Infallible;
use std::ops::RangeInclusive;

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
    /// A code-point field holds a value the format does not define.
    #[error("unknown {field} 0x{value:02x}")]
    UnknownCode {
        /// The field at fault.
        field: &'static str,
        /// The byte found.
        value: u8,
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

/// Why a value could not be encoded: it does not fit the format. Nothing is truncated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// A length or count is outside what its field (or the format) allows.
    #[error("{field} is {actual}, outside the range {min}..={max} the format can carry")]
    OutOfRange {
        /// The field at fault.
        field: &'static str,
        /// The value that was to be written.
        actual: u64,
        /// Smallest value the field carries.
        min: u64,
        /// Largest value the field carries.
        max: u64,
    },
    /// A value has no encoding in the format.
    #[error("{field}: {reason}")]
    Unrepresentable {
        /// The field at fault.
        field: &'static str,
        /// Why it cannot be written.
        reason: &'static str,
    },
}

/// A wire type: how it is written and how it is read back.
///
/// `decode(encoding(v)) == v` for every value, and a decoder accepts only what an
/// encoder writes (a decoded value is valid by construction).
pub trait Codec: Sized {
    /// What a trailing-bytes error calls a whole value, e.g. `"BGR aggregate"`.
    const NAME: &'static str;
    /// Why encoding can fail: [`Infallible`] for a type whose every value fits the
    /// format (its constructors check), [`EncodeError`] for one with fields that may
    /// exceed the format's limits.
    type EncodeError;

    /// Appends the encoding to `w`.
    ///
    /// # Errors
    /// A length or count the format cannot carry.
    fn encode(&self, w: &mut Writer) -> Result<(), Self::EncodeError>;

    /// Reads one value from `r`, leaving what follows it.
    ///
    /// # Errors
    /// [`DecodeError`] naming the malformed field.
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError>;

    /// Reads a value that must span all of `bytes`.
    ///
    /// # Errors
    /// As [`Codec::read`], and [`DecodeError::TrailingBytes`] if bytes remain.
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let value = Self::read(&mut r)?;
        r.finish(Self::NAME)?;
        Ok(value)
    }

    /// The encoding as a byte string.
    ///
    /// # Errors
    /// As [`Codec::encode`].
    fn encoding(&self) -> Result<Vec<u8>, Self::EncodeError> {
        let mut w = Writer::new();
        self.encode(&mut w)?;
        Ok(w.into_bytes())
    }
}

/// The encoding of a value whose type cannot fail to encode.
pub fn to_vec<T: Codec<EncodeError = Infallible>>(value: &T) -> Vec<u8> {
    match value.encoding() {
        Ok(bytes) => bytes,
        Err(never) => match never {},
    }
}

/// Declares a one-byte code-point enum with `TryFrom<u8>` (an unknown byte is
/// [`DecodeError::UnknownCode`] naming the field), `From<Enum> for u8`, [`Codec`],
/// and `ALL`, from one list of values, as holo-bgp's `iana.rs` does.
///
/// ```
/// hopsig_primitives::code_points! {
///     /// Fruit on the wire.
///     pub enum Fruit: "fruit" {
///         /// An apple.
///         Apple = 0x01,
///         /// A pear.
///         Pear = 0x02,
///     }
/// }
/// assert_eq!(Fruit::try_from(2), Ok(Fruit::Pear));
/// assert!(Fruit::try_from(3).is_err());
/// assert_eq!(u8::from(Fruit::Apple), 1);
/// ```
#[macro_export]
macro_rules! code_points {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident : $field:literal {
            $($(#[$vmeta:meta])* $variant:ident = $value:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u8)]
        $vis enum $name {
            $($(#[$vmeta])* $variant = $value,)+
        }

        impl $name {
            /// Every code point, in the order declared.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
        }

        impl ::core::convert::TryFrom<u8> for $name {
            type Error = $crate::codec::DecodeError;
            fn try_from(byte: u8) -> ::core::result::Result<Self, Self::Error> {
                match byte {
                    $($value => Ok($name::$variant),)+
                    value => Err($crate::codec::DecodeError::UnknownCode { field: $field, value }),
                }
            }
        }

        impl ::core::convert::From<$name> for u8 {
            fn from(code: $name) -> u8 {
                code as u8
            }
        }

        impl $crate::codec::Codec for $name {
            const NAME: &'static str = $field;
            type EncodeError = ::core::convert::Infallible;
            fn encode(
                &self,
                w: &mut $crate::codec::Writer,
            ) -> ::core::result::Result<(), ::core::convert::Infallible> {
                w.u8(u8::from(*self));
                Ok(())
            }
            fn read(
                r: &mut $crate::codec::Reader<'_>,
            ) -> ::core::result::Result<Self, $crate::codec::DecodeError> {
                Self::try_from(r.u8($field)?)
            }
        }
    };
}

/// A cursor over untrusted bytes.
///
/// For fixed-width big-endian fields and length prefixes. NDN's TLV with VAR-NUMBER
/// types and lengths has its own reader (`hopsig_ndn::tlv::Reader`, which says why).
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

    /// Reads a big-endian `u32`.
    ///
    /// # Errors
    /// [`DecodeError::ShortInput`] if fewer than 4 bytes remain.
    pub fn u32_be(&mut self, field: &'static str) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(self.array(field)?))
    }

    /// Reads a big-endian `u64`.
    ///
    /// # Errors
    /// [`DecodeError::ShortInput`] if fewer than 8 bytes remain.
    pub fn u64_be(&mut self, field: &'static str) -> Result<u64, DecodeError> {
        Ok(u64::from_be_bytes(self.array(field)?))
    }

    /// Reads a byte string after its one-byte length.
    ///
    /// # Errors
    /// [`DecodeError::ShortInput`] if the length or the string is cut short.
    pub fn u8_prefixed(&mut self, field: &'static str) -> Result<&'a [u8], DecodeError> {
        let len = self.u8(field)?;
        self.take(usize::from(len), field)
    }

    /// Reads a byte string after its big-endian two-byte length.
    ///
    /// # Errors
    /// [`DecodeError::ShortInput`] if the length or the string is cut short.
    pub fn u16_prefixed(&mut self, field: &'static str) -> Result<&'a [u8], DecodeError> {
        let len = self.u16_be(field)?;
        self.take(usize::from(len), field)
    }

    /// Reads `n` flags packed most significant bit first into `ceil(n / 8)` bytes
    /// (bit j is byte j / 8, mask `0x80 >> (j % 8)`); the padding bits must be zero.
    ///
    /// # Errors
    /// [`DecodeError::ShortInput`]; [`DecodeError::Invalid`] for a padding bit set.
    pub fn bits(&mut self, n: usize, field: &'static str) -> Result<Vec<bool>, DecodeError> {
        let bytes = self.take(n.div_ceil(8), field)?;
        let used_in_last = n % 8;
        if used_in_last != 0
            && bytes
                .last()
                .is_some_and(|&b| b & (0xff >> used_in_last) != 0)
        {
            return Err(DecodeError::Invalid {
                field,
                reason: "padding bits must be zero",
            });
        }
        Ok((0..n)
            .map(|j| bytes[j / 8] & (0x80 >> (j % 8)) != 0)
            .collect())
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

/// Builds an encoding. Fixed-size fields cannot fail; every length prefix and count is
/// checked against the width of its field and the range the format allows, and a value
/// outside it is an [`EncodeError`], never a truncated number.
#[derive(Debug, Clone, Default)]
pub struct Writer {
    out: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Writer::default()
    }

    /// An empty writer with room for `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Self {
        Writer {
            out: Vec::with_capacity(capacity),
        }
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.out.len()
    }

    /// Whether nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    /// The encoding.
    pub fn into_bytes(self) -> Vec<u8> {
        self.out
    }

    /// Appends one byte.
    pub fn u8(&mut self, v: u8) {
        self.out.push(v);
    }

    /// Appends a big-endian `u16`.
    pub fn u16_be(&mut self, v: u16) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    /// Appends a big-endian `u32`.
    pub fn u32_be(&mut self, v: u32) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    /// Appends a big-endian `u64`.
    pub fn u64_be(&mut self, v: u64) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    /// Appends bytes as they are (a fixed-size field, or one whose length is written
    /// elsewhere).
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }

    /// Appends a fixed-size field that must be exactly `len` bytes.
    ///
    /// # Errors
    /// [`EncodeError::OutOfRange`] for any other length.
    pub fn exact(
        &mut self,
        field: &'static str,
        bytes: &[u8],
        len: usize,
    ) -> Result<(), EncodeError> {
        if bytes.len() != len {
            return Err(EncodeError::OutOfRange {
                field,
                actual: bytes.len() as u64,
                min: len as u64,
                max: len as u64,
            });
        }
        self.bytes(bytes);
        Ok(())
    }

    /// Appends flags packed as [`Reader::bits`] reads them.
    pub fn bits(&mut self, flags: &[bool]) {
        let start = self.out.len();
        self.out.resize(start + flags.len().div_ceil(8), 0);
        for (j, _) in flags.iter().enumerate().filter(|(_, &set)| set) {
            self.out[start + j / 8] |= 0x80 >> (j % 8);
        }
    }

    /// Appends a count `n` as one byte.
    ///
    /// # Errors
    /// [`EncodeError::OutOfRange`] unless `n` lies in `allowed` and fits a byte.
    pub fn u8_count(
        &mut self,
        field: &'static str,
        n: usize,
        allowed: RangeInclusive<usize>,
    ) -> Result<(), EncodeError> {
        self.length(field, n, allowed, 1)
    }

    /// Appends a count `n` as a big-endian `u16`.
    ///
    /// # Errors
    /// [`EncodeError::OutOfRange`] unless `n` lies in `allowed` and fits 16 bits.
    pub fn u16_count(
        &mut self,
        field: &'static str,
        n: usize,
        allowed: RangeInclusive<usize>,
    ) -> Result<(), EncodeError> {
        self.length(field, n, allowed, 2)
    }

    /// Appends a count `n` as a big-endian `u32`.
    ///
    /// # Errors
    /// [`EncodeError::OutOfRange`] unless `n` lies in `allowed` and fits 32 bits.
    pub fn u32_count(
        &mut self,
        field: &'static str,
        n: usize,
        allowed: RangeInclusive<usize>,
    ) -> Result<(), EncodeError> {
        self.length(field, n, allowed, 4)
    }

    /// Appends `bytes` after a one-byte length.
    ///
    /// # Errors
    /// [`EncodeError::OutOfRange`] for more than 255 bytes.
    pub fn u8_prefixed(&mut self, field: &'static str, bytes: &[u8]) -> Result<(), EncodeError> {
        self.length(field, bytes.len(), 0..=usize::MAX, 1)?;
        self.bytes(bytes);
        Ok(())
    }

    /// Appends `bytes` after a big-endian two-byte length.
    ///
    /// # Errors
    /// [`EncodeError::OutOfRange`] for more than 65,535 bytes.
    pub fn u16_prefixed(&mut self, field: &'static str, bytes: &[u8]) -> Result<(), EncodeError> {
        self.length(field, bytes.len(), 0..=usize::MAX, 2)?;
        self.bytes(bytes);
        Ok(())
    }

    /// Appends `bytes` after a big-endian four-byte length.
    ///
    /// # Errors
    /// [`EncodeError::OutOfRange`] for 2^32 bytes or more.
    pub fn u32_prefixed(&mut self, field: &'static str, bytes: &[u8]) -> Result<(), EncodeError> {
        self.length(field, bytes.len(), 0..=usize::MAX, 4)?;
        self.bytes(bytes);
        Ok(())
    }

    /// Writes `n` in `width` big-endian bytes after checking that it lies in
    /// `allowed` and below `2^(8·width)`.
    fn length(
        &mut self,
        field: &'static str,
        n: usize,
        allowed: RangeInclusive<usize>,
        width: usize,
    ) -> Result<(), EncodeError> {
        let field_max = u64::MAX >> (64 - 8 * width);
        let max = field_max.min(*allowed.end() as u64);
        let min = *allowed.start() as u64;
        let value = n as u64;
        if !(min..=max).contains(&value) {
            return Err(EncodeError::OutOfRange {
                field,
                actual: value,
                min,
                max,
            });
        }
        self.bytes(&value.to_be_bytes()[8 - width..]);
        Ok(())
    }
}

/// Lowercase hex of `bytes`, for messages and `Debug` output.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The `N` octets written as exactly `2N` lowercase hex digits in `text` (the form
/// [`to_hex`] writes, as state files store it); `None` for anything else: another
/// length, uppercase, or any other character.
pub fn from_hex<const N: usize>(text: &str) -> Option<[u8; N]> {
    let bytes = text.as_bytes();
    if bytes.len() != 2 * N {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; N];
    for (o, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        *o = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(out)
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
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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

    #[test]
    fn writer_lays_out_fields_big_endian_with_prefixes() {
        let mut w = Writer::new();
        w.u8(0x01);
        w.u16_be(0x0203);
        w.u32_be(0x0405_0607);
        w.u64_be(0x08);
        w.u8_prefixed("a", b"xy").unwrap();
        w.u16_prefixed("b", b"z").unwrap();
        w.u32_prefixed("c", b"").unwrap();
        w.u8_count("count", 3, 1..=4).unwrap();
        w.bits(&[true, false, true]);
        assert!(w.exact("fixed", b"abc", 2).is_err());
        #[rustfmt::skip]
        let expected = [
            0x01,                                           // u8
            0x02, 0x03,                                     // u16
            0x04, 0x05, 0x06, 0x07,                         // u32
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, // u64
            0x02, b'x', b'y',                               // u8 length 2, "xy"
            0x00, 0x01, b'z',                               // u16 length 1, "z"
            0x00, 0x00, 0x00, 0x00,                         // u32 length 0
            0x03,                                           // count 3
            0b1010_0000,                                    // bits 1, 0, 1, padding zero
        ];
        assert_eq!(w.len(), expected.len());
        assert_eq!(w.into_bytes(), expected);

        let mut r = Reader::new(&expected);
        assert_eq!(r.u8("u8"), Ok(1));
        assert_eq!(r.u16_be("u16"), Ok(0x0203));
        assert_eq!(r.u32_be("u32"), Ok(0x0405_0607));
        assert_eq!(r.u64_be("u64"), Ok(8));
        assert_eq!(r.u8_prefixed("a"), Ok(&b"xy"[..]));
        assert_eq!(r.u16_prefixed("b"), Ok(&b"z"[..]));
        assert_eq!(r.take(4, "c"), Ok(&[0u8; 4][..]));
        assert_eq!(r.u8("count"), Ok(3));
        assert_eq!(r.bits(3, "bits"), Ok(vec![true, false, true]));
        assert_eq!(r.finish("test"), Ok(()));
    }

    #[test]
    fn over_limit_lengths_and_counts_are_errors_not_truncations() {
        let mut w = Writer::new();
        assert_eq!(w.u8_prefixed("v", &[0; 255]), Ok(()));
        assert_eq!(
            w.u8_prefixed("v", &[0; 256]),
            Err(EncodeError::OutOfRange {
                field: "v",
                actual: 256,
                min: 0,
                max: 255
            })
        );
        assert_eq!(
            w.u16_prefixed("key", &vec![0; 65_536]),
            Err(EncodeError::OutOfRange {
                field: "key",
                actual: 65_536,
                min: 0,
                max: 65_535
            })
        );
        assert_eq!(
            w.u16_count("n", 65_536, 0..=usize::MAX),
            Err(EncodeError::OutOfRange {
                field: "n",
                actual: 65_536,
                min: 0,
                max: 65_535
            })
        );
        // The format's own limit is tighter than the field's.
        assert_eq!(
            w.u8_count("hops", 65, 1..=64),
            Err(EncodeError::OutOfRange {
                field: "hops",
                actual: 65,
                min: 1,
                max: 64
            })
        );
        assert!(w.u8_count("hops", 0, 1..=64).is_err());
        assert!(w.u32_count("n", 1 << 20, 0..=usize::MAX).is_ok());
        // Failed writes leave nothing behind.
        assert_eq!(w.len(), 1 + 255 + 4);
    }

    #[test]
    fn nonzero_padding_bits_are_rejected() {
        assert_eq!(Reader::new(&[0b1110_0000]).bits(3, "b"), Ok(vec![true; 3]));
        assert_eq!(
            Reader::new(&[0b1111_0000]).bits(3, "b"),
            Err(DecodeError::Invalid {
                field: "b",
                reason: "padding bits must be zero"
            })
        );
        assert_eq!(Reader::new(&[0xff]).bits(8, "b"), Ok(vec![true; 8]));
        assert_eq!(Reader::new(&[]).bits(0, "b"), Ok(vec![]));
    }

    crate::code_points! {
        /// A test enum.
        enum Colour: "colour" {
            /// Red.
            Red = 0x01,
            /// Blue.
            Blue = 0x7f,
        }
    }

    #[test]
    fn code_points_convert_both_ways_and_name_unknown_bytes() {
        for c in Colour::ALL {
            assert_eq!(Colour::try_from(u8::from(*c)), Ok(*c));
            assert_eq!(Colour::decode(&[u8::from(*c)]), Ok(*c));
            assert_eq!(to_vec(c), [u8::from(*c)]);
        }
        assert_eq!(
            Colour::try_from(0),
            Err(DecodeError::UnknownCode {
                field: "colour",
                value: 0
            })
        );
        assert_eq!(
            Colour::decode(&[0x7f, 0]),
            Err(DecodeError::TrailingBytes {
                what: "colour",
                count: 1
            })
        );
        assert_eq!(
            DecodeError::UnknownCode {
                field: "colour",
                value: 0x80
            }
            .to_string(),
            "unknown colour 0x80"
        );
    }

    proptest! {
        #[test]
        fn prefixed_strings_and_bits_round_trip(
            a in proptest::collection::vec(any::<u8>(), 0..300),
            b in proptest::collection::vec(any::<u8>(), 0..300),
            flags in proptest::collection::vec(any::<bool>(), 0..40),
        ) {
            let mut w = Writer::new();
            let a_fits = w.u8_prefixed("a", &a).is_ok();
            prop_assert_eq!(a_fits, a.len() <= 255);
            w.u16_prefixed("b", &b).unwrap();
            w.bits(&flags);
            let bytes = w.into_bytes();
            let mut r = Reader::new(&bytes);
            if a_fits {
                prop_assert_eq!(r.u8_prefixed("a")?, a.as_slice());
            }
            prop_assert_eq!(r.u16_prefixed("b")?, b.as_slice());
            prop_assert_eq!(r.bits(flags.len(), "f")?, flags);
            prop_assert_eq!(r.finish("t"), Ok(()));
        }

        #[test]
        fn reader_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64), n in 0usize..600) {
            let mut r = Reader::new(&bytes);
            let _ = r.clone().u8_prefixed("a");
            let _ = r.clone().u16_prefixed("a");
            let _ = r.clone().bits(n, "b");
            let _ = r.u64_be("c");
        }
    }
}
