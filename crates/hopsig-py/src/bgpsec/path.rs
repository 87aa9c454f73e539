//! The BGPsec_PATH attribute (RFC 8205 §3) as Python objects: `SecurePathSegment`
//! (§3.1), `Signature` (a Signature Segment, §3.2), `SignatureBlock` (§3.2) and
//! `BgpsecPath`, which holds hopsig's decoded value, so that `to_bytes()` is the
//! codec's own encoding and `BgpsecPath(...)` checks the same structural rules as the
//! decoder (one or two blocks of different suites, one signature per segment).

use std::borrow::Cow;

use hopsig_bgp::packet::{self as wire, SKI_LEN};
use hopsig_primitives::codec::Writer;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors;

/// One Secure_Path Segment (RFC 8205 §3.1): the AS that signed, its pCount
/// (repetitions in the equivalent AS_PATH, 0 for a transparent route server) and the
/// Flags octet (bit 0x80: Confed_Segment; the other bits are kept as received).
#[pyclass(module = "hopsig.bgpsec", frozen, eq, hash)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SecurePathSegment {
    /// pCount (1 octet).
    #[pyo3(get)]
    pub pcount: u8,
    /// The Flags octet, all 8 bits.
    #[pyo3(get)]
    pub flags: u8,
    /// The 4-octet AS number.
    #[pyo3(get)]
    pub asn: u32,
}

#[pymethods]
impl SecurePathSegment {
    /// A segment of `asn` with `pcount` and the `flags` octet.
    #[new]
    #[pyo3(signature = (pcount, flags, asn))]
    fn new(pcount: u8, flags: u8, asn: u32) -> SecurePathSegment {
        SecurePathSegment { pcount, flags, asn }
    }

    /// Whether the Confed_Segment flag is set (RFC 8205 §3.1).
    #[getter]
    fn confed_segment(&self) -> bool {
        wire::SecurePathFlags(self.flags).confed_segment()
    }

    fn __repr__(&self) -> String {
        format!(
            "SecurePathSegment(pcount={}, flags={}, asn={})",
            self.pcount, self.flags, self.asn
        )
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyAny>, (u8, u8, u32)) {
        let s = slf.get();
        (slf.get_type().into_any(), (s.pcount, s.flags, s.asn))
    }
}

impl From<&wire::SecurePathSegment> for SecurePathSegment {
    fn from(s: &wire::SecurePathSegment) -> Self {
        SecurePathSegment {
            pcount: s.pcount,
            flags: s.flags.0,
            asn: s.asn,
        }
    }
}

impl From<&SecurePathSegment> for wire::SecurePathSegment {
    fn from(s: &SecurePathSegment) -> Self {
        wire::SecurePathSegment {
            pcount: s.pcount,
            flags: wire::SecurePathFlags(s.flags),
            asn: s.asn,
        }
    }
}

/// One Signature Segment (RFC 8205 §3.2): the 20-octet Subject Key Identifier of
/// the signer's router certificate and the signature octets (DER for suite 1, RFC
/// 8608 §4; opaque here).
#[pyclass(module = "hopsig.bgpsec", frozen, eq, hash)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Signature {
    ski: [u8; SKI_LEN],
    signature: Vec<u8>,
}

#[pymethods]
impl Signature {
    /// A Signature Segment; `ski` must be 20 octets, `signature` at most 65535.
    #[new]
    #[pyo3(signature = (ski, signature))]
    fn new(ski: &[u8], signature: &[u8]) -> PyResult<Signature> {
        Ok(Signature {
            ski: ski_array(ski)?,
            signature: signature.to_vec(),
        })
    }

    /// The Subject Key Identifier (20 octets).
    #[getter]
    fn ski<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.ski)
    }

    /// The signature octets.
    #[getter]
    fn signature<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.signature)
    }

    fn __repr__(&self) -> String {
        format!(
            "Signature(ski={}, signature=<{} octets>)",
            hex::encode_upper(self.ski),
            self.signature.len()
        )
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> (
        Bound<'py, PyAny>,
        (Bound<'py, PyBytes>, Bound<'py, PyBytes>),
    ) {
        let py = slf.py();
        let s = slf.get();
        (
            slf.get_type().into_any(),
            (PyBytes::new(py, &s.ski), PyBytes::new(py, &s.signature)),
        )
    }
}

/// `bytes` as an SKI, or an `InputError` (reason `bad-argument`).
pub fn ski_array(bytes: &[u8]) -> PyResult<[u8; SKI_LEN]> {
    bytes.try_into().map_err(|_| {
        errors::input(
            "bad-argument",
            format!(
                "an SKI is {SKI_LEN} octets (RFC 8205 §3.2), not {}",
                bytes.len()
            ),
        )
    })
}

/// One Signature_Block (RFC 8205 §3.2): an Algorithm Suite Identifier and one
/// Signature Segment per Secure_Path Segment, newest first.
#[pyclass(module = "hopsig.bgpsec", frozen, eq, hash)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SignatureBlock {
    /// The Algorithm Suite Identifier (1: ECDSA P-256, RFC 8608).
    #[pyo3(get)]
    suite: u8,
    segments: Vec<Signature>,
}

#[pymethods]
impl SignatureBlock {
    /// A block of `suite` with these Signature Segments, newest first.
    #[new]
    #[pyo3(signature = (suite, segments))]
    fn new(suite: u8, segments: Vec<PyRef<'_, Signature>>) -> SignatureBlock {
        SignatureBlock {
            suite,
            segments: segments.iter().map(|s| (**s).clone()).collect(),
        }
    }

    /// The Signature Segments, newest (the sender's) first.
    #[getter]
    fn segments(&self) -> Vec<Signature> {
        self.segments.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "SignatureBlock(suite={}, segments=[{}])",
            self.suite,
            self.segments
                .iter()
                .map(Signature::__repr__)
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyAny>, (u8, Vec<Signature>)) {
        let s = slf.get();
        (slf.get_type().into_any(), (s.suite, s.segments.clone()))
    }
}

impl From<&wire::SignatureBlock<'_>> for SignatureBlock {
    fn from(b: &wire::SignatureBlock<'_>) -> Self {
        SignatureBlock {
            suite: b.suite,
            segments: b
                .segments
                .iter()
                .map(|s| Signature {
                    ski: s.ski,
                    signature: s.signature.to_vec(),
                })
                .collect(),
        }
    }
}

impl From<&SignatureBlock> for wire::SignatureBlock<'static> {
    fn from(b: &SignatureBlock) -> Self {
        wire::SignatureBlock {
            suite: b.suite,
            segments: b
                .segments
                .iter()
                .map(|s| wire::SignatureSegment {
                    ski: s.ski,
                    signature: Cow::Owned(s.signature.clone()),
                })
                .collect(),
        }
    }
}

/// A BGPsec_PATH attribute value (RFC 8205 §3): the Secure_Path, newest segment
/// first, and one or two Signature_Blocks. Well formed by construction: the
/// constructor and `from_bytes` enforce the same rules (§3, §5.2 checks 1 and 3).
#[pyclass(module = "hopsig.bgpsec", frozen, eq, hash)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BgpsecPath {
    /// The decoded value.
    pub inner: wire::BgpsecPath<'static>,
}

#[pymethods]
impl BgpsecPath {
    /// A BGPsec_PATH of these segments (newest first) and blocks; `InputError`
    /// (reason `bad-argument`) if it breaks a structural rule of RFC 8205 §3.
    #[new]
    #[pyo3(signature = (secure_path, signature_blocks))]
    fn new(
        secure_path: Vec<PyRef<'_, SecurePathSegment>>,
        signature_blocks: Vec<PyRef<'_, SignatureBlock>>,
    ) -> PyResult<BgpsecPath> {
        let segments = secure_path.iter().map(|s| (&**s).into()).collect();
        let blocks = signature_blocks.iter().map(|b| (&**b).into()).collect();
        let inner = wire::BgpsecPath::new(segments, blocks)
            .map_err(|e| errors::input("bad-argument", format!("BGPsec_PATH: {e}")))?;
        Ok(BgpsecPath { inner })
    }

    /// Decodes a BGPsec_PATH attribute value (the octets after the attribute
    /// header); `InputError` (reason `decode`) naming what is wrong.
    #[staticmethod]
    #[pyo3(signature = (value))]
    fn from_bytes(value: &[u8]) -> PyResult<BgpsecPath> {
        let inner = wire::BgpsecPath::decode(value)
            .map_err(|e| errors::input("decode", format!("BGPsec_PATH: {e}")))?;
        Ok(BgpsecPath {
            inner: inner.into_owned(),
        })
    }

    /// The attribute value's octets (RFC 8205 Figure 3); `from_bytes(b).to_bytes() == b`.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.encoding()?))
    }

    /// The Secure_Path Segments, newest (the sender's) first, the origin's last.
    #[getter]
    fn secure_path(&self) -> Vec<SecurePathSegment> {
        self.inner.secure_path().iter().map(Into::into).collect()
    }

    /// The Signature_Blocks, in wire order.
    #[getter]
    fn signature_blocks(&self) -> Vec<SignatureBlock> {
        self.inner
            .signature_blocks()
            .iter()
            .map(Into::into)
            .collect()
    }

    /// The AS numbers of the path, newest first, each repeated pCount times: the
    /// AS_PATH this path is equivalent to (RFC 8205 §4.4).
    fn as_path(&self) -> Vec<u32> {
        self.inner
            .secure_path()
            .iter()
            .flat_map(|s| std::iter::repeat_n(s.asn, usize::from(s.pcount)))
            .collect()
    }

    fn __len__(&self) -> usize {
        self.inner.secure_path().len()
    }

    /// `BgpsecPath(secure_path=[ASes], suites=[ids])`.
    pub fn __repr__(&self) -> String {
        let path: Vec<String> = self
            .inner
            .secure_path()
            .iter()
            .map(|s| s.asn.to_string())
            .collect();
        let suites: Vec<String> = self
            .inner
            .signature_blocks()
            .iter()
            .map(|b| b.suite.to_string())
            .collect();
        format!(
            "BgpsecPath(secure_path=[{}], suites=[{}])",
            path.join(", "),
            suites.join(", ")
        )
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let py = slf.py();
        Ok((
            slf.get_type().getattr("from_bytes")?,
            (PyBytes::new(py, &slf.get().encoding()?),),
        ))
    }
}

impl BgpsecPath {
    /// The value's octets.
    pub fn encoding(&self) -> PyResult<Vec<u8>> {
        let mut w = Writer::new();
        self.inner
            .encode(&mut w)
            .map_err(|e| errors::input("bad-argument", format!("BGPsec_PATH: {e}")))?;
        Ok(w.into_bytes())
    }
}
