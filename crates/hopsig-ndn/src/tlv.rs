//! The TLV layer of the NDN packet format v0.3 (NDN-packet-spec "TLV Encoding"):
//! VAR-NUMBER types and lengths, NonNegativeInteger values, and the evolvability rule
//! that tells a decoder whether an element it does not expect may be skipped.
//!
//! Decoding is strict: a VAR-NUMBER not in its shortest form ("A number MUST be
//! encoded using the shortest possible format"), TLV-TYPE 0 or above 2³² − 1, a
//! NonNegativeInteger of a length other than 1, 2, 4 or 8 or longer than needed, and
//! a length running past its enclosing element are errors. Encoding always gives the
//! shortest form, so an accepted packet re-encodes to the same octets.

use std::fmt;

/// Why octets are not a valid NDN TLV encoding. Every variant names the element
/// (`what`) being read when it went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TlvError {
    /// The input ends inside an element.
    #[error("{what}: truncated: {needed} more octets needed, {left} left")]
    Truncated {
        /// The element.
        what: &'static str,
        /// Octets the encoding says follow.
        needed: u64,
        /// Octets left.
        left: usize,
    },
    /// A VAR-NUMBER, or a NonNegativeInteger, in a longer form than needed.
    #[error("{what}: {value} not in its shortest encoding")]
    NotShortest {
        /// The element.
        what: &'static str,
        /// The number.
        value: u64,
    },
    /// TLV-TYPE 0 or above 4294967295.
    #[error("{what}: TLV-TYPE {typ} outside [1, 4294967295]")]
    BadType {
        /// The element.
        what: &'static str,
        /// The type read.
        typ: u64,
    },
    /// Another element than the one required here.
    #[error("{what}: expected TLV-TYPE {expected}, found {found}")]
    Unexpected {
        /// The element.
        what: &'static str,
        /// The type required.
        expected: u32,
        /// The type found.
        found: u32,
    },
    /// An unrecognized, out-of-order or repeated element whose type is critical
    /// (evolvability rule: abort decoding).
    #[error("{what}: critical TLV-TYPE {typ} not allowed here")]
    Critical {
        /// The enclosing element.
        what: &'static str,
        /// The element's type.
        typ: u32,
    },
    /// A required element is absent.
    #[error("{what}: missing {missing}")]
    Missing {
        /// The enclosing element.
        what: &'static str,
        /// The element that must be there.
        missing: &'static str,
    },
    /// A value of the wrong length or content.
    #[error("{what}: {reason}")]
    Invalid {
        /// The element.
        what: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// Octets after the packet's outermost element.
    #[error("{what}: {extra} octets after the end")]
    Trailing {
        /// The packet.
        what: &'static str,
        /// Octets left.
        extra: usize,
    },
}

/// Whether an element of type `typ` that a decoder does not expect here must abort
/// decoding (NDN-packet-spec "Considerations for Evolvability"): types 0–31 always,
/// others when odd.
pub fn is_critical(typ: u32) -> bool {
    typ < 32 || typ & 1 == 1
}

/// Reads TLV elements from a slice.
///
/// The same idea as [`hopsig_primitives::codec::Reader`] (a cursor over untrusted
/// bytes that never panics), kept separate because the grammar and the errors differ:
/// NDN TLV has VAR-NUMBER types and lengths (shortest form required) and the
/// evolvability rule, and its errors ([`TlvError`]) name the NDN element and the
/// octets needed and left, which NDN's decoders and tests report; the codec reader
/// reads fixed-width big-endian fields and 1-, 2- or 4-octet length prefixes (hopsig's
/// own formats, BGP). Building this one on the other would share only the slice
/// cursor (a few lines) at the cost of translating every error.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    rest: &'a [u8],
}

/// One element: its type, its value, and its whole encoding (type and length
/// included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tlv<'a> {
    /// TLV-TYPE.
    pub typ: u32,
    /// TLV-VALUE.
    pub value: &'a [u8],
    /// TLV-TYPE, TLV-LENGTH and TLV-VALUE as read.
    pub whole: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader of `input`.
    pub fn new(input: &'a [u8]) -> Reader<'a> {
        Reader { rest: input }
    }

    /// Whether everything was read.
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// Octets not yet read.
    pub fn remaining(&self) -> usize {
        self.rest.len()
    }

    /// The next element's type, without reading it.
    ///
    /// # Errors
    /// As [`Reader::var_number`].
    pub fn peek_type(&self, what: &'static str) -> Result<Option<u32>, TlvError> {
        if self.rest.is_empty() {
            return Ok(None);
        }
        let mut probe = self.clone();
        probe.tlv_type(what).map(Some)
    }

    /// One VAR-NUMBER.
    ///
    /// # Errors
    /// [`TlvError::Truncated`], or [`TlvError::NotShortest`].
    pub fn var_number(&mut self, what: &'static str) -> Result<u64, TlvError> {
        let (&first, rest) = self.rest.split_first().ok_or(TlvError::Truncated {
            what,
            needed: 1,
            left: 0,
        })?;
        let (len, min) = match first {
            0..=252 => {
                self.rest = rest;
                return Ok(u64::from(first));
            }
            253 => (2, 253),
            254 => (4, 1 << 16),
            255 => (8, 1 << 32),
        };
        if rest.len() < len {
            return Err(TlvError::Truncated {
                what,
                needed: len as u64,
                left: rest.len(),
            });
        }
        let (digits, rest) = rest.split_at(len);
        let value = digits.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b));
        if value < min {
            return Err(TlvError::NotShortest { what, value });
        }
        self.rest = rest;
        Ok(value)
    }

    fn tlv_type(&mut self, what: &'static str) -> Result<u32, TlvError> {
        let typ = self.var_number(what)?;
        match u32::try_from(typ) {
            Ok(t) if t != 0 => Ok(t),
            _ => Err(TlvError::BadType { what, typ }),
        }
    }

    /// The next element.
    ///
    /// # Errors
    /// A bad type or length, or a value running past the input.
    pub fn tlv(&mut self, what: &'static str) -> Result<Tlv<'a>, TlvError> {
        let start = self.rest;
        let typ = self.tlv_type(what)?;
        let len = self.var_number(what)?;
        let left = self.rest.len();
        let n = usize::try_from(len)
            .ok()
            .filter(|&n| n <= left)
            .ok_or(TlvError::Truncated {
                what,
                needed: len,
                left,
            })?;
        let (value, rest) = self.rest.split_at(n);
        self.rest = rest;
        let whole = &start[..start.len() - rest.len()];
        Ok(Tlv { typ, value, whole })
    }

    /// The next element, which must be of type `typ`.
    ///
    /// # Errors
    /// As [`Reader::tlv`], or [`TlvError::Unexpected`].
    pub fn expect(&mut self, typ: u32, what: &'static str) -> Result<Tlv<'a>, TlvError> {
        let t = self.tlv(what)?;
        if t.typ != typ {
            return Err(TlvError::Unexpected {
                what,
                expected: typ,
                found: t.typ,
            });
        }
        Ok(t)
    }
}

/// Reads the single element of `input` (a whole packet), of type `typ`.
///
/// # Errors
/// As [`Reader::expect`], or [`TlvError::Trailing`].
pub fn single<'a>(input: &'a [u8], typ: u32, what: &'static str) -> Result<Tlv<'a>, TlvError> {
    let mut r = Reader::new(input);
    let t = r.expect(typ, what)?;
    if !r.is_empty() {
        return Err(TlvError::Trailing {
            what,
            extra: r.remaining(),
        });
    }
    Ok(t)
}

/// Appends `n` as a VAR-NUMBER in its shortest form.
pub fn put_var_number(out: &mut Vec<u8>, n: u64) {
    match n {
        0..=252 => out.push(n as u8),
        253..=0xffff => {
            out.push(253);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        0x1_0000..=0xffff_ffff => {
            out.push(254);
            out.extend_from_slice(&(n as u32).to_be_bytes());
        }
        _ => {
            out.push(255);
            out.extend_from_slice(&n.to_be_bytes());
        }
    }
}

/// Appends the element of type `typ` and value `value`.
pub fn put_tlv(out: &mut Vec<u8>, typ: u32, value: &[u8]) {
    put_var_number(out, u64::from(typ));
    put_var_number(out, value.len() as u64);
    out.extend_from_slice(value);
}

/// Appends the element of type `typ` whose value `body` writes.
pub fn put_nested(out: &mut Vec<u8>, typ: u32, body: impl FnOnce(&mut Vec<u8>)) {
    let mut value = Vec::new();
    body(&mut value);
    put_tlv(out, typ, &value);
}

/// The shortest NonNegativeInteger encoding of `n` (1, 2, 4 or 8 octets).
pub fn non_negative(n: u64) -> Vec<u8> {
    if n <= 0xff {
        vec![n as u8]
    } else if n <= 0xffff {
        (n as u16).to_be_bytes().to_vec()
    } else if n <= 0xffff_ffff {
        (n as u32).to_be_bytes().to_vec()
    } else {
        n.to_be_bytes().to_vec()
    }
}

/// Reads a NonNegativeInteger value. A value longer than needed (e.g. 201 in two
/// octets, `00 C9`) is refused too: NDN-packet-spec "Non-Negative Integer Encoding"
/// permits it, but hopsig re-encodes a packet's signed portion from its fields, so
/// only the shortest encoding re-encodes to the octets that were signed
/// (docs/spec/ndn-ibas.md §5.1).
///
/// # Errors
/// [`TlvError::Invalid`] for a length other than 1, 2, 4 or 8,
/// [`TlvError::NotShortest`] for a longer encoding than needed.
pub fn read_non_negative(value: &[u8], what: &'static str) -> Result<u64, TlvError> {
    let n = match value.len() {
        1 | 2 | 4 | 8 => value.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b)),
        len => {
            return Err(TlvError::Invalid {
                what,
                reason: format!("NonNegativeInteger of {len} octets (must be 1, 2, 4 or 8)"),
            })
        }
    };
    if non_negative(n).len() != value.len() {
        return Err(TlvError::NotShortest { what, value: n });
    }
    Ok(n)
}

/// An element kept as read: an unrecognized non-critical element, which the
/// evolvability rule says to skip, kept so that the packet re-encodes unchanged.
#[derive(Clone, PartialEq, Eq)]
pub struct Element {
    /// TLV-TYPE.
    pub typ: u32,
    /// TLV-VALUE.
    pub value: Vec<u8>,
}

impl fmt::Debug for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Element({}, {})", self.typ, hex::encode(&self.value))
    }
}

impl Element {
    /// Appends it.
    pub fn encode(&self, out: &mut Vec<u8>) {
        put_tlv(out, self.typ, &self.value);
    }
}

/// Decodes the elements of a sequence whose grammar is `fields`, in that order, each
/// optional and at most once: calls `field(index, tlv)` for each recognized element
/// in order, and keeps every other element if it is non-critical, with the index of
/// the last recognized field before it (`None` before the first). An unrecognized,
/// out-of-order or repeated critical element is an error.
///
/// # Errors
/// As the reader, [`TlvError::Critical`], or what `field` returns.
pub fn sequence<'a>(
    value: &'a [u8],
    what: &'static str,
    fields: &[u32],
    mut field: impl FnMut(usize, Tlv<'a>) -> Result<(), TlvError>,
) -> Result<Vec<(Option<usize>, Element)>, TlvError> {
    let mut r = Reader::new(value);
    let mut last: Option<usize> = None;
    let mut extras = vec![];
    while !r.is_empty() {
        let t = r.tlv(what)?;
        let index = fields.iter().position(|&f| f == t.typ);
        match index {
            Some(i) if last.is_none_or(|l| i > l) => {
                field(i, t)?;
                last = Some(i);
            }
            _ if is_critical(t.typ) => return Err(TlvError::Critical { what, typ: t.typ }),
            _ => extras.push((
                last,
                Element {
                    typ: t.typ,
                    value: t.value.to_vec(),
                },
            )),
        }
    }
    Ok(extras)
}

/// Appends the extras kept by [`sequence`] that followed field `after`.
pub fn put_extras(out: &mut Vec<u8>, extras: &[(Option<usize>, Element)], after: Option<usize>) {
    for (_, e) in extras.iter().filter(|(a, _)| *a == after) {
        e.encode(out);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn var_numbers_take_their_shortest_form_and_longer_ones_are_refused() {
        for (n, hex) in [
            (0u64, "00"),
            (252, "fc"),
            (253, "fd00fd"),
            (65535, "fdffff"),
            (65536, "fe00010000"),
            (u64::from(u32::MAX), "feffffffff"),
            (1 << 32, "ff0000000100000000"),
        ] {
            let mut out = vec![];
            put_var_number(&mut out, n);
            assert_eq!(hex::encode(&out), hex);
            assert_eq!(Reader::new(&out).var_number("n").unwrap(), n);
        }
        for bad in ["fd00fc", "fe0000ffff", "ff00000000ffffffff"] {
            let b = hex::decode(bad).unwrap();
            assert!(matches!(
                Reader::new(&b).var_number("n"),
                Err(TlvError::NotShortest { .. })
            ));
        }
    }

    #[test]
    fn the_specs_non_negative_integer_examples() {
        for (n, hex) in [
            (0u64, "00"),
            (1, "01"),
            (255, "ff"),
            (256, "0100"),
            (65535, "ffff"),
            (65536, "00010000"),
        ] {
            assert_eq!(hex::encode(non_negative(n)), hex);
            assert_eq!(read_non_negative(&non_negative(n), "n").unwrap(), n);
        }
        assert!(read_non_negative(&[0, 1, 2], "n").is_err());
        assert!(read_non_negative(&[0, 1], "n").is_err());
    }

    #[test]
    fn types_zero_and_above_u32_and_lengths_past_the_end_are_errors() {
        assert!(matches!(
            Reader::new(&[0, 0]).tlv("t"),
            Err(TlvError::BadType { .. })
        ));
        assert!(matches!(
            Reader::new(&hex::decode("ff000000010000000000").unwrap()).tlv("t"),
            Err(TlvError::BadType { .. })
        ));
        assert!(matches!(
            Reader::new(&[8, 3, 1]).tlv("t"),
            Err(TlvError::Truncated { .. })
        ));
        assert!(matches!(
            single(&[8, 0, 0], 8, "t"),
            Err(TlvError::Trailing { .. })
        ));
    }

    #[test]
    fn the_evolvability_rule() {
        assert!(is_critical(5) && is_critical(30) && is_critical(31) && is_critical(33));
        assert!(!is_critical(32) && !is_critical(34) && !is_critical(200));
        // {F1=10, F2=12}: an unknown even element is kept where it was, an unknown odd
        // one aborts, and a repeated or out-of-order critical one aborts.
        let mut seen = vec![];
        let extras = sequence(&[10, 0, 200, 1, 7, 12, 0], "s", &[10, 12], |i, _| {
            seen.push(i);
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [0, 1]);
        assert_eq!(
            extras,
            [(
                Some(0),
                Element {
                    typ: 200,
                    value: vec![7]
                }
            )]
        );
        assert!(matches!(
            sequence(&[10, 0, 201, 0], "s", &[10, 12], |_, _| Ok(())),
            Err(TlvError::Critical { typ: 201, .. })
        ));
        assert!(matches!(
            sequence(&[12, 0, 10, 0], "s", &[10, 12], |_, _| Ok(())),
            Err(TlvError::Critical { typ: 10, .. })
        ));
    }
}
