//! The header every hopsig aggregate starts with (`docs/spec/aggregate.md`), the
//! scheme code points, and the signer count n it carries.

use hopsig_primitives::codec::{check_range, Codec, DecodeError, Reader, Writer};
use std::convert::Infallible;

use crate::{registry, Error};

/// The two magic bytes.
pub const MAGIC: [u8; 2] = *b"HS";
/// Format version written and accepted.
pub const FORMAT_VERSION: u8 = 1;
/// Header length in bytes.
pub const HEADER_LEN: usize = 7;
/// Most signers one aggregate may hold. BGP AS paths stay far below it; the bound keeps
/// a hostile aggregate from demanding unbounded verification work.
pub const MAX_SIGNERS: usize = 4096;

hopsig_primitives::code_points! {
    /// Scheme codes of the header's byte 3 (`docs/spec/aggregate.md`). The scheme table
    /// ([`crate::registry::ALL_SCHEMES`]) says which id and parameter bytes each names.
    pub enum SchemeCode: "scheme code" {
        /// `rsa2048-concat`
        Rsa2048Concat = 0x01,
        /// `ecdsa-p256-concat`
        EcdsaP256Concat = 0x02,
        /// `ecdsa-k163`
        EcdsaK163 = 0x03,
        /// `ecdsa-k233`
        EcdsaK233 = 0x04,
        /// `ecdsa-k283`
        EcdsaK283 = 0x05,
        /// `bgr-rsa2048`
        BgrRsa2048 = 0x10,
        /// `bgr-rsa3072`
        BgrRsa3072 = 0x11,
        /// `bgr-rand-rsa2048` (parameter ℓ_r / 8)
        BgrRandRsa2048 = 0x12,
        /// `bgr-rand-rsa3072` (parameter ℓ_r / 8)
        BgrRandRsa3072 = 0x13,
        /// `bls12381-bgls`
        Bls12381Bgls = 0x20,
        /// `ibas-bls12381` (parameter |w|)
        IbasBls12381 = 0x21,
    }
}

/// n, the number of signers of an aggregate: always in `1..=MAX_SIGNERS`, so every
/// header written carries a valid count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Signers(u16);

impl Signers {
    /// One signer.
    pub const ONE: Signers = Signers(1);

    /// The count `n`.
    ///
    /// # Errors
    /// [`Error::NoSigners`] for 0; [`Error::TooManySigners`] above [`MAX_SIGNERS`].
    pub fn new(n: usize) -> Result<Self, Error> {
        if n == 0 {
            return Err(Error::NoSigners);
        }
        match u16::try_from(n) {
            Ok(v) if n <= MAX_SIGNERS => Ok(Signers(v)),
            _ => Err(Error::TooManySigners { max: MAX_SIGNERS }),
        }
    }

    /// n as a number.
    pub fn get(self) -> usize {
        usize::from(self.0)
    }

    /// The count after `more` signers join.
    ///
    /// # Errors
    /// [`Error::TooManySigners`] above [`MAX_SIGNERS`].
    pub fn plus(self, more: Signers) -> Result<Self, Error> {
        Self::new(self.get() + more.get())
    }
}

impl Codec for Signers {
    const NAME: &'static str = "signer count";
    type EncodeError = Infallible;

    fn encode(&self, w: &mut Writer) -> Result<(), Infallible> {
        w.u16_be(self.0);
        Ok(())
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let n = r.u16_be(Self::NAME)?;
        check_range(Self::NAME, n.into(), 1, MAX_SIGNERS as u64)?;
        Ok(Signers(n))
    }
}

/// One entry per signer, first signer first, `1..=MAX_SIGNERS` of them: the part of an
/// aggregate whose length is the header's n.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PerSigner<T>(Vec<T>);

impl<T> PerSigner<T> {
    /// The first signer's entry.
    pub(crate) fn first(entry: T) -> Self {
        PerSigner(vec![entry])
    }

    /// The given entries.
    ///
    /// # Errors
    /// As [`Signers::new`] for their number.
    pub(crate) fn new(entries: Vec<T>) -> Result<Self, Error> {
        Signers::new(entries.len())?;
        Ok(PerSigner(entries))
    }

    /// Appends the next signer's entry.
    ///
    /// # Errors
    /// [`Error::TooManySigners`] if it already holds [`MAX_SIGNERS`].
    pub(crate) fn push(&mut self, entry: T) -> Result<(), Error> {
        self.signers().plus(Signers::ONE)?;
        self.0.push(entry);
        Ok(())
    }

    /// How many entries (signers) there are.
    pub(crate) fn signers(&self) -> Signers {
        // Every constructor keeps the length in 1..=MAX_SIGNERS, which fits a u16.
        Signers(self.0.len() as u16)
    }

    /// The entries, first signer first.
    pub(crate) fn as_slice(&self) -> &[T] {
        &self.0
    }

    /// Reads `n` entries with `read_one`.
    pub(crate) fn read_each(
        r: &mut Reader<'_>,
        n: Signers,
        mut read_one: impl FnMut(&mut Reader<'_>) -> Result<T, DecodeError>,
    ) -> Result<Self, DecodeError> {
        let entries = (0..n.get())
            .map(|_| read_one(r))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(PerSigner(entries))
    }
}

impl PerSigner<bool> {
    /// Reads `n` flags packed most significant bit first, padding bits zero.
    pub(crate) fn read_bits(
        r: &mut Reader<'_>,
        n: Signers,
        field: &'static str,
    ) -> Result<Self, DecodeError> {
        Ok(PerSigner(r.bits(n.get(), field)?))
    }
}

/// A decoded header.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |    magic "HS" (0x48 0x53)     | version (0x01)|  scheme code  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |   parameter   |  n, signers (1..=4096)        |  body ...
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// The parameter byte is per scheme: ℓ_r / 8 for BGR with random r, |w| for IBAS,
/// otherwise 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Scheme code.
    pub code: SchemeCode,
    /// Scheme parameter byte.
    pub param: u8,
    /// Number of signers.
    pub signers: Signers,
}

impl Header {
    /// Reads the header at the start of `bytes` without consuming anything else.
    ///
    /// # Errors
    /// As [`Header::read`](Codec::read).
    pub fn peek(bytes: &[u8]) -> Result<Self, DecodeError> {
        Self::read(&mut Reader::new(bytes))
    }
}

impl Codec for Header {
    const NAME: &'static str = "aggregate header";
    type EncodeError = Infallible;

    fn encode(&self, w: &mut Writer) -> Result<(), Infallible> {
        w.bytes(&MAGIC);
        w.u8(FORMAT_VERSION);
        self.code.encode(w)?;
        w.u8(self.param);
        self.signers.encode(w)
    }

    /// Reads and checks a header: the magic, the version, a known scheme code and a
    /// signer count in `1..=MAX_SIGNERS`. Whether the parameter byte belongs to the
    /// scheme is for the scheme's decoder to say.
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        if r.array::<2>("magic")? != MAGIC {
            return Err(DecodeError::Invalid {
                field: "magic",
                reason: "not a hopsig aggregate (expected \"HS\")",
            });
        }
        let version = r.u8("format version")?;
        check_range(
            "format version",
            version.into(),
            FORMAT_VERSION.into(),
            FORMAT_VERSION.into(),
        )?;
        Ok(Header {
            code: SchemeCode::read(r)?,
            param: r.u8("scheme parameter")?,
            signers: Signers::read(r)?,
        })
    }
}

/// Decodes all of `bytes` as an aggregate `A` of the scheme whose header is `(code,
/// param)`. A header naming another scheme or parameter set is
/// [`Error::AggregateForOtherScheme`], never a reinterpretation; anything else wrong
/// (including a parameter byte the scheme does not define) is [`Error::Decode`].
pub(crate) fn decode_aggregate<A: Codec>(
    bytes: &[u8],
    code: SchemeCode,
    param: u8,
) -> Result<A, Error> {
    let h = Header::peek(bytes)?;
    let names_a_scheme = registry::by_code(h.code, h.param).is_ok();
    if (h.code, h.param) != (code, param) && (h.code != code || names_a_scheme) {
        return Err(Error::AggregateForOtherScheme {
            expected: registry::describe(code, param),
            found: registry::describe(h.code, h.param),
        });
    }
    Ok(A::decode(bytes)?)
}

/// The error a scheme's decoder returns for a header it cannot read as its own (after
/// [`decode_aggregate`] ruled out another scheme, only a bad parameter byte is left).
pub(crate) fn not_this_scheme(what: &'static str) -> DecodeError {
    DecodeError::Invalid {
        field: "scheme parameter",
        reason: what,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use hopsig_primitives::codec::to_vec;

    #[test]
    fn header_on_commented_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0x48, 0x53, // magic "HS"
            0x01,       // format version 1
            0x12,       // scheme code: bgr-rand-rsa2048
            0x13,       // parameter: ℓ_r / 8 = 19 (152 bits)
            0x01, 0x00, // n = 256 signers
        ];
        let h = Header::decode(&bytes).unwrap();
        assert_eq!(h.code, SchemeCode::BgrRandRsa2048);
        assert_eq!(h.param, 19);
        assert_eq!(h.signers.get(), 256);
        assert_eq!(to_vec(&h), bytes);
        assert_eq!(bytes.len(), HEADER_LEN);
    }

    #[test]
    fn header_rejections_name_the_field() {
        let good = to_vec(&Header {
            code: SchemeCode::BgrRsa2048,
            param: 0,
            signers: Signers::new(3).unwrap(),
        });
        assert_eq!(good, [0x48, 0x53, 1, 0x10, 0, 0, 3]);
        let with = |at: usize, v: u8| {
            let mut b = good.clone();
            b[at] = v;
            Header::peek(&b)
        };
        assert!(matches!(
            with(2, 2),
            Err(DecodeError::OutOfRange {
                field: "format version",
                ..
            })
        ));
        assert!(matches!(
            with(6, 0),
            Err(DecodeError::OutOfRange {
                field: "signer count",
                ..
            })
        ));
        assert_eq!(
            with(3, 0x99),
            Err(DecodeError::UnknownCode {
                field: "scheme code",
                value: 0x99
            })
        );
        assert!(matches!(
            Header::peek(b"XX"),
            Err(DecodeError::Invalid { field: "magic", .. })
        ));
        assert!(matches!(
            Header::peek(&good[..4]),
            Err(DecodeError::ShortInput { .. })
        ));
        let mut over = good.clone();
        over[5..7].copy_from_slice(&4097u16.to_be_bytes());
        assert!(Header::peek(&over).is_err());
        over[5..7].copy_from_slice(&4096u16.to_be_bytes());
        assert!(Header::peek(&over).is_ok());
    }

    #[test]
    fn signer_counts_stop_at_the_limit() {
        assert!(matches!(Signers::new(0), Err(Error::NoSigners)));
        assert_eq!(Signers::new(MAX_SIGNERS).map(Signers::get).ok(), Some(4096));
        assert!(matches!(
            Signers::new(MAX_SIGNERS + 1),
            Err(Error::TooManySigners { max: 4096 })
        ));
        // 65,536 signers was written as n = 65,535 before; now it cannot be made at all.
        assert!(matches!(
            Signers::new(70_000),
            Err(Error::TooManySigners { max: 4096 })
        ));
        let full = Signers::new(MAX_SIGNERS).unwrap();
        assert!(matches!(
            full.plus(Signers::ONE),
            Err(Error::TooManySigners { max: 4096 })
        ));
        let mut list = PerSigner::new(vec![0u8; MAX_SIGNERS - 1]).unwrap();
        list.push(1).unwrap();
        assert_eq!(list.signers(), full);
        assert!(matches!(
            list.push(2),
            Err(Error::TooManySigners { max: 4096 })
        ));
        assert!(matches!(
            PerSigner::<u8>::new(vec![]),
            Err(Error::NoSigners)
        ));
    }
}
