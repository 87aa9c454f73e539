//! `hopsig.ndn` (native half): NDN Data packets (NDN packet format v0.3,
//! named-data NDN-packet-spec "Data Packet") and their signatures from Python.
//!
//! * [`PyData`] decodes and encodes a Data packet (`hopsig_ndn::Data`): name,
//!   MetaInfo, content, SignatureInfo and SignatureValue. The decoder keeps every
//!   unrecognized non-critical element where it was, so a packet that decodes
//!   encodes back to the same octets.
//! * [`sign`] / [`verify`]: DigestSha256, SignatureSha256WithRsa and
//!   SignatureSha256WithEcdsa (`hopsig_ndn::sign`).
//! * [`sign_ibas`] / [`verify_ibas`]: the identity-based aggregate SignatureType
//!   (`docs/spec/ndn-ibas.md`, 004 §5.3, SignatureType 201): a publisher's signature,
//!   and a moderator's countersignature under the publisher's w; [`ibas_aggregate`]
//!   turns a SignatureValue into hopsig's aggregate bytes for
//!   `hopsig.schemes.verify` over several packets.

use std::path::PathBuf;

use hopsig_ndn::data::content_type;
use hopsig_ndn::ibas as ndn_ibas;
use hopsig_ndn::name::{Component, Name};
use hopsig_ndn::signature::{signature_type, KeyLocator, SignatureInfo};
use hopsig_ndn::{Data, MetaInfo, SignatureError, SigningKey, TlvError, VerifyingKey};
use hopsig_schemes::ibas::{self, IbasAggregate, Identity};
use hopsig_schemes::Aggregate;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::errors;
use crate::schemes::{error, reduce, PyPublicParams, PyUserKey};

/// The `reason` of a TLV decoding error: its kind.
fn tlv_reason(e: &TlvError) -> &'static str {
    match e {
        TlvError::Truncated { .. } => "truncated",
        TlvError::NotShortest { .. } => "not-shortest",
        TlvError::BadType { .. } => "bad-type",
        TlvError::Unexpected { .. } => "unexpected",
        TlvError::Critical { .. } => "critical",
        TlvError::Missing { .. } => "missing",
        TlvError::Invalid { .. } => "invalid",
        TlvError::Trailing { .. } => "trailing",
    }
}

/// A TLV error as `InputError`.
fn tlv_error(e: TlvError) -> PyErr {
    errors::input(tlv_reason(&e), e)
}

/// A signature error: a bad signature is `InvalidError`, anything else `InputError`.
fn signature_error(e: SignatureError) -> PyErr {
    match e {
        SignatureError::Bad(_) => errors::invalid("invalid-signature", e),
        SignatureError::TypeMismatch { .. } => errors::input("signature-type", e),
        SignatureError::State(_) => errors::input("reused-w", e),
        other => errors::input("key", other),
    }
}

/// A name from its URI form.
fn name_arg(uri: &str) -> PyResult<Name> {
    uri.parse::<Name>()
        .map_err(|e| errors::input("uri", format!("{uri:?}: {e}")))
}

/// An NDN Data packet. Build one with ``Data(name, content, ...)`` (unsigned:
/// SignatureType DigestSha256 and an empty SignatureValue until signed) or
/// :meth:`decode`; ``Data.decode(wire).to_bytes() == wire`` for every packet that
/// decodes. Immutable: signing returns a new packet.
#[pyclass(module = "hopsig.ndn", name = "Data", frozen, eq)]
#[derive(PartialEq)]
pub struct PyData {
    data: Data,
}

#[pymethods]
impl PyData {
    /// A Data packet named ``name`` (NDN URI, e.g. ``"/wonderland/Alice/1"``) with
    /// ``content`` (``None``: no Content element), MetaInfo fields ``content_type``
    /// and ``freshness_ms`` (``None``: absent), and the KeyLocator name
    /// ``key_locator`` (``None``: absent).
    #[new]
    #[pyo3(signature = (name, content = Some(Vec::new()), *, content_type = None, freshness_ms = None, key_locator = None))]
    fn new(
        name: &str,
        content: Option<Vec<u8>>,
        content_type: Option<u64>,
        freshness_ms: Option<u64>,
        key_locator: Option<&str>,
    ) -> PyResult<Self> {
        let mut info = SignatureInfo::new(signature_type::DIGEST_SHA256);
        if let Some(k) = key_locator {
            info = info.with_key_name(name_arg(k)?);
        }
        let mut data = Data::new(name_arg(name)?, Vec::new(), info);
        data.content = content;
        if content_type.is_some() || freshness_ms.is_some() {
            data.meta_info = Some(MetaInfo {
                content_type,
                freshness_period: freshness_ms,
                ..MetaInfo::default()
            });
        }
        Ok(PyData { data })
    }

    /// Decodes one Data packet (all of ``wire``); ``InputError`` whose ``reason``
    /// names the TLV error (``"truncated"``, ``"missing"``, ``"critical"``, ...).
    #[staticmethod]
    fn decode(wire: Vec<u8>) -> PyResult<Self> {
        Ok(PyData {
            data: Data::decode(&wire).map_err(tlv_error)?,
        })
    }

    /// Same as :meth:`decode` (for pickling).
    #[staticmethod]
    fn from_bytes(wire: Vec<u8>) -> PyResult<Self> {
        Self::decode(wire)
    }

    /// The Data TLV.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.data.encode())
    }

    /// The signed portion: every element from Name through SignatureInfo, as encoded.
    fn signed_portion<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.data.signed_portion())
    }

    /// The name as an NDN URI.
    #[getter]
    fn name(&self) -> String {
        self.data.name.to_string()
    }

    /// The name's components as ``(TLV-TYPE, value)`` pairs.
    #[getter]
    fn components<'py>(&self, py: Python<'py>) -> Vec<(u16, Bound<'py, PyBytes>)> {
        self.data
            .name
            .components()
            .iter()
            .map(|c| (c.typ(), PyBytes::new(py, c.value())))
            .collect()
    }

    /// The Content's value, or ``None`` if the packet has no Content element.
    #[getter]
    fn content<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.data.content.as_deref().map(|c| PyBytes::new(py, c))
    }

    /// MetaInfo's ContentType, or ``None`` if absent (the spec's default is BLOB, 0).
    #[getter]
    fn content_type(&self) -> Option<u64> {
        self.data.meta_info.as_ref().and_then(|m| m.content_type)
    }

    /// MetaInfo's FreshnessPeriod in milliseconds, or ``None``.
    #[getter]
    fn freshness_ms(&self) -> Option<u64> {
        self.data
            .meta_info
            .as_ref()
            .and_then(|m| m.freshness_period)
    }

    /// MetaInfo's FinalBlockId as the encoded name component, or ``None``.
    #[getter]
    fn final_block_id<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        let c: &Component = self.data.meta_info.as_ref()?.final_block_id.as_ref()?;
        let mut out = Vec::new();
        c.encode(&mut out);
        Some(PyBytes::new(py, &out))
    }

    /// The SignatureType (0 DigestSha256, 1 RSA, 3 ECDSA, 201 IBAS, ...).
    #[getter]
    fn signature_type(&self) -> u64 {
        self.data.signature_info.signature_type
    }

    /// The KeyLocator: a name URI (str), a KeyDigest (bytes), or ``None``.
    #[getter]
    fn key_locator<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(match &self.data.signature_info.key_locator {
            None => None,
            Some(KeyLocator::Name(n)) => Some(n.to_string().into_pyobject(py)?.into_any()),
            Some(KeyLocator::KeyDigest(d)) => Some(PyBytes::new(py, d).into_any()),
        })
    }

    /// The SignatureValue.
    #[getter]
    fn signature_value<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.data.signature_value)
    }

    /// Pickles as ``Data.from_bytes(wire)``.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        reduce(slf, slf.get().to_bytes(slf.py()))
    }

    fn __repr__(&self) -> String {
        format!(
            "Data({:?}, signature_type={})",
            self.data.name.to_string(),
            self.data.signature_info.signature_type
        )
    }
}

impl PyData {
    /// A copy with SignatureInfo `info` and an empty value: what a signer fills in.
    fn unsigned(&self, info: Option<SignatureInfo>) -> Data {
        let mut d = self.data.clone();
        if let Some(info) = info {
            d.signature_info = info;
        }
        d.signature_value.clear();
        d
    }
}

/// ``data`` signed (a new packet): with ``key`` ``None`` DigestSha256, else an RSA
/// (SignatureSha256WithRsa) or EC P-256 (SignatureSha256WithEcdsa) private key in
/// PEM (PKCS #8, or an ``rsa2048-concat`` / ``ecdsa-p256-concat`` key file). The
/// SignatureType is set to the key's; the KeyLocator is kept.
#[pyfunction]
#[pyo3(signature = (data, key = None))]
fn sign(py: Python<'_>, data: &Bound<'_, PyData>, key: Option<Vec<u8>>) -> PyResult<PyData> {
    let mut d = data.get().unsigned(None);
    py.detach(|| {
        let key = match &key {
            Some(pem) => SigningKey::from_pem(pem)?,
            None => SigningKey::digest(),
        };
        key.sign_data(&mut d)
    })
    .map_err(signature_error)?;
    Ok(PyData { data: d })
}

/// Whether ``data``'s signature verifies: DigestSha256 with ``key`` ``None``, else
/// with an RSA or EC public key (DER SubjectPublicKeyInfo, or text holding its PEM
/// block, e.g. an ``rsa2048-concat`` / ``ecdsa-p256-concat`` ``.pub`` file). ``InputError``
/// (reason ``"signature-type"``) if the packet's SignatureType is not the key's.
#[pyfunction]
#[pyo3(signature = (data, key = None))]
fn verify(py: Python<'_>, data: &Bound<'_, PyData>, key: Option<Vec<u8>>) -> PyResult<bool> {
    let d = &data.get().data;
    let outcome = py.detach(|| {
        let key = match &key {
            // DER is one SEQUENCE (0x30); anything else is read as text with a PEM
            // block in it (a hopsig .pub file included).
            Some(der) if der.first() == Some(&0x30) => VerifyingKey::from_spki(der)?,
            Some(pem) => VerifyingKey::from_pem(pem)?,
            None => VerifyingKey::digest(),
        };
        key.verify_data(d)
    });
    match outcome {
        Ok(()) => Ok(true),
        Err(SignatureError::Bad(_)) => Ok(false),
        Err(e) => Err(signature_error(e)),
    }
}

/// ``data`` signed with the IBAS SignatureType (201, ``docs/spec/ndn-ibas.md``) by
/// ``key`` (a :class:`hopsig.schemes.UserKey`). A first signer (the publisher)
/// draws a fresh w; with ``so_far`` (hopsig aggregate bytes, e.g.
/// :func:`ibas_aggregate` of the publisher's packet) the key countersigns under its
/// w (004 §5.3: the moderator), and the SignatureValue is the aggregate of all the
/// signers. The w is claimed in ``journal`` (a file) or the key's in-memory journal;
/// signing another packet under a w the key used is refused (reason
/// ``"reused-w"``).
#[pyfunction]
#[pyo3(signature = (data, key, so_far = None, *, journal = None))]
fn sign_ibas(
    py: Python<'_>,
    data: &Bound<'_, PyData>,
    key: &Bound<'_, PyUserKey>,
    so_far: Option<Vec<u8>>,
    journal: Option<PathBuf>,
) -> PyResult<PyData> {
    let mut d = data.get().unsigned(Some(ndn_ibas::signature_info()));
    let user = key.get();
    let value = py
        .detach(|| {
            let prev = so_far
                .as_deref()
                .map(IbasAggregate::from_bytes)
                .transpose()?;
            user.sign_aggregate(&d.signed_portion(), prev.as_ref(), journal.as_ref())
                .map(|agg| ndn_ibas::value(&agg))
        })
        .map_err(error)?;
    d.signature_value = value;
    Ok(PyData { data: d })
}

/// hopsig's aggregate bytes (``docs/spec/aggregate.md``) of an IBAS SignatureValue
/// (``data``, a :class:`Data` or its SignatureValue) holding ``signers`` signatures:
/// the value is w ‖ S ‖ T without the header, the count coming from the packet's
/// context. ``InputError`` for a value that does not decode.
#[pyfunction]
#[pyo3(signature = (data, signers = 1))]
fn ibas_aggregate<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    signers: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let value: Vec<u8> = match data.cast::<PyData>() {
        Ok(d) => d.get().data.signature_value.clone(),
        Err(_) => data.extract()?,
    };
    let agg = py
        .detach(|| ndn_ibas::aggregate(&value, signers))
        .map_err(tlv_error)?;
    Ok(PyBytes::new(py, &agg.to_bytes()))
}

/// Whether ``data`` carries a valid one-signer IBAS signature by ``identity`` (the
/// publisher's name, as 004 takes it from the packet's name) under the PKG
/// parameters ``params``. A packet of another SignatureType is ``InputError``
/// (reason ``"signature-type"``); a value that does not decode does not verify.
/// Aggregates over several packets verify with ``hopsig.schemes.verify(...,
/// params=)`` on the packets' signed portions.
#[pyfunction]
fn verify_ibas(
    py: Python<'_>,
    data: &Bound<'_, PyData>,
    params: &Bound<'_, PyPublicParams>,
    identity: &str,
) -> PyResult<bool> {
    let d = &data.get().data;
    if d.signature_info.signature_type != ndn_ibas::SIGNATURE_TYPE {
        return Err(errors::input(
            "signature-type",
            format!(
                "SignatureType {} is not {} ({})",
                d.signature_info.signature_type,
                ndn_ibas::SIGNATURE_TYPE,
                ndn_ibas::NAME
            ),
        ));
    }
    let id = Identity::new(identity).map_err(error)?;
    let params = &params.get().params;
    Ok(py.detach(|| {
        ndn_ibas::aggregate(&d.signature_value, 1).is_ok_and(|agg| {
            ibas::verify(params, &[(&id, d.signed_portion().as_slice())], &agg).is_ok()
        })
    }))
}

/// Adds this module's classes and functions to `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyData>()?;
    m.add_function(wrap_pyfunction!(sign, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(sign_ibas, m)?)?;
    m.add_function(wrap_pyfunction!(verify_ibas, m)?)?;
    m.add_function(wrap_pyfunction!(ibas_aggregate, m)?)?;
    m.add("SIGNATURE_TYPE_IBAS", ndn_ibas::SIGNATURE_TYPE)?;
    m.add("CONTENT_TYPE_BLOB", content_type::BLOB)?;
    m.add("CONTENT_TYPE_KEY", content_type::KEY)?;
    Ok(())
}
