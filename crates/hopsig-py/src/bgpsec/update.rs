//! A whole UPDATE message (RFC 4271 §4.3) as a Python object: `Update` holds hopsig's
//! decoded UPDATE, so `to_bytes()` is the codec's encoding (byte-exact for every
//! message it accepts) and the constructor goes through the same decoder, with every
//! RFC 7606 / RFC 8205 rule it enforces. `PathAttribute` is one attribute as framed
//! on the wire (flags, type code, value octets).

use std::net::IpAddr;

use hopsig_bgp::packet::{self as wire, AsWidth, AttrFlags, Message};
use hopsig_primitives::codec::Writer;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::path::BgpsecPath;
use super::Reduced;
use crate::errors;

/// One path attribute as the wire frames it (RFC 4271 §4.3): the Attribute Flags
/// octet, the type code and the value octets. The length field is one octet, or two
/// when the flags have the Extended Length bit (0x10).
#[pyclass(module = "hopsig.bgpsec", frozen, eq, hash)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PathAttribute {
    /// The Attribute Flags octet (0x80 Optional, 0x40 Transitive, 0x20 Partial, 0x10
    /// Extended Length).
    #[pyo3(get)]
    flags: u8,
    /// The Attribute Type Code (33: BGPsec_PATH, RFC 8205 §3).
    #[pyo3(get)]
    type_code: u8,
    value: Vec<u8>,
}

#[pymethods]
impl PathAttribute {
    /// An attribute of `type_code` with `flags` and the octets `value`.
    #[new]
    #[pyo3(signature = (flags, type_code, value))]
    fn new(flags: u8, type_code: u8, value: &[u8]) -> PathAttribute {
        PathAttribute {
            flags,
            type_code,
            value: value.to_vec(),
        }
    }

    /// The value octets.
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.value)
    }

    /// Whether the Optional bit is set.
    #[getter]
    fn optional(&self) -> bool {
        AttrFlags(self.flags).optional()
    }

    /// Whether the Transitive bit is set.
    #[getter]
    fn transitive(&self) -> bool {
        AttrFlags(self.flags).transitive()
    }

    /// Whether the Extended Length bit is set (a two-octet length field).
    #[getter]
    fn extended_length(&self) -> bool {
        AttrFlags(self.flags).extended_length()
    }

    /// The whole attribute: flags, type code, length and value.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let mut w = Writer::new();
        self.encode(&mut w)?;
        Ok(PyBytes::new(py, &w.into_bytes()))
    }

    fn __repr__(&self) -> String {
        format!(
            "PathAttribute(flags=0x{:02x}, type_code={}, value=<{} octets>)",
            self.flags,
            self.type_code,
            self.value.len()
        )
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> (Bound<'py, PyAny>, (u8, u8, Bound<'py, PyBytes>)) {
        let a = slf.get();
        (
            slf.get_type().into_any(),
            (a.flags, a.type_code, PyBytes::new(slf.py(), &a.value)),
        )
    }
}

impl PathAttribute {
    /// Appends the framed attribute.
    fn encode(&self, w: &mut Writer) -> PyResult<()> {
        w.u8(self.flags);
        w.u8(self.type_code);
        let framed = if AttrFlags(self.flags).extended_length() {
            w.u16_prefixed("attribute value", &self.value)
        } else {
            w.u8_prefixed("attribute value", &self.value)
        };
        framed.map_err(|e| {
            errors::input("bad-argument", format!("attribute {}: {e}", self.type_code))
        })
    }

    /// The attribute `a` as framed (AS numbers `width` wide).
    fn of(a: &wire::PathAttribute<'_>, width: AsWidth) -> PyResult<PathAttribute> {
        let mut w = Writer::new();
        a.encode(&mut w, width)
            .map_err(|e| errors::input("bad-argument", e))?;
        let bytes = w.into_bytes();
        let header = if a.flags().extended_length() { 4 } else { 3 };
        Ok(PathAttribute {
            flags: a.flags().0,
            type_code: a.type_code(),
            value: bytes.get(header..).unwrap_or_default().to_vec(),
        })
    }
}

/// `2` or `4` as an [`AsWidth`].
pub fn as_width(octets: u8) -> PyResult<AsWidth> {
    match octets {
        2 => Ok(AsWidth::Two),
        4 => Ok(AsWidth::Four),
        n => Err(errors::input(
            "bad-argument",
            format!("as_width is 2 or 4 (octets per AS number, RFC 6793), not {n}"),
        )),
    }
}

/// An [`AsWidth`] in octets.
fn width_octets(width: AsWidth) -> u8 {
    match width {
        AsWidth::Two => 2,
        AsWidth::Four => 4,
    }
}

/// `text` ("192.0.2.0/24", "2001:db8::/32") as a prefix, its host bits cleared.
pub fn parse_prefix(text: &str) -> PyResult<wire::Prefix> {
    let bad = |why: String| errors::input("bad-argument", format!("prefix {text:?}: {why}"));
    let (addr, len) = text
        .split_once('/')
        .ok_or_else(|| bad("expected ADDRESS/LENGTH".into()))?;
    let addr: IpAddr = addr.parse().map_err(|e| bad(format!("{e}")))?;
    let len: u8 = len.parse().map_err(|e| bad(format!("{e}")))?;
    wire::Prefix::new(addr, len).map_err(|e| bad(e.to_string()))
}

/// A BGP UPDATE message (RFC 4271 §4.3): withdrawn routes, path attributes in the
/// order received, and the NLRI field; a BGPsec UPDATE carries BGPsec_PATH and its
/// one prefix in MP_REACH_NLRI (RFC 8205 §4.1). `as_width` is the octets per AS
/// number in AS_PATH on the session (4, or 2 with an "OLD" speaker, RFC 6793).
#[pyclass(module = "hopsig.bgpsec", frozen, eq, hash)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Update {
    /// The decoded UPDATE.
    pub inner: wire::Update<'static>,
    /// Its AS width.
    pub width: AsWidth,
}

#[pymethods]
impl Update {
    /// An UPDATE of these parts: `withdrawn` and `nlri` are IPv4 prefixes as text,
    /// `attributes` framed attributes. It is encoded and decoded by hopsig's codec,
    /// so the result is what a receiver would decode; `InputError` (reason
    /// `bad-argument`) for a message the decoder refuses, with its words.
    #[new]
    #[pyo3(
        signature = (withdrawn = Vec::new(), attributes = Vec::new(), nlri = Vec::new(), *, as_width = 4),
        text_signature = "(withdrawn=(), attributes=(), nlri=(), *, as_width=4)"
    )]
    fn new(
        withdrawn: Vec<String>,
        attributes: Vec<PyRef<'_, PathAttribute>>,
        nlri: Vec<String>,
        as_width: u8,
    ) -> PyResult<Update> {
        let width = self::as_width(as_width)?;
        let prefixes = |texts: &[String]| -> PyResult<Vec<u8>> {
            let mut w = Writer::new();
            for t in texts {
                parse_prefix(t)?.encode(&mut w);
            }
            Ok(w.into_bytes())
        };
        let mut attrs = Writer::new();
        for a in &attributes {
            a.encode(&mut attrs)?;
        }
        let mut body = Writer::new();
        let too_long = |e: hopsig_primitives::codec::EncodeError| errors::input("bad-argument", e);
        body.u16_prefixed("Withdrawn Routes", &prefixes(&withdrawn)?)
            .map_err(too_long)?;
        body.u16_prefixed("Path Attributes", &attrs.into_bytes())
            .map_err(too_long)?;
        body.bytes(&prefixes(&nlri)?);
        let body = body.into_bytes();
        let inner = wire::Update::decode(&body, width)
            .map_err(|e| errors::input("bad-argument", format!("UPDATE: {e}")))?;
        Ok(Update {
            inner: inner.into_owned(),
            width,
        })
    }

    /// Decodes a whole BGP message (the 19-octet header included, as a speaker reads
    /// it or an MRT BGP4MP record holds it) that must be an UPDATE; `InputError`
    /// (reason `decode`) with the codec's words (RFC 4271 §6, RFC 7606) otherwise.
    #[staticmethod]
    #[pyo3(signature = (message, as_width = 4))]
    fn from_bytes(message: &[u8], as_width: u8) -> PyResult<Update> {
        let width = self::as_width(as_width)?;
        match Message::decode(message, width) {
            Ok(Message::Update(u)) => Ok(Update {
                inner: u.into_owned(),
                width,
            }),
            Ok(other) => Err(errors::input(
                "decode",
                format!("a {:?} message, not an UPDATE", other.message_type()),
            )),
            Err(e) => Err(errors::input("decode", format!("UPDATE: {e}"))),
        }
    }

    /// The whole message, header included: `Update.from_bytes(b).to_bytes() == b`.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.encoding()?))
    }

    /// Octets per AS number in AS_PATH: 4 or 2.
    #[getter]
    fn as_width(&self) -> u8 {
        width_octets(self.width)
    }

    /// The Withdrawn Routes field's IPv4 prefixes.
    #[getter]
    fn withdrawn(&self) -> Vec<String> {
        self.inner
            .withdrawn
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// The NLRI field's IPv4 prefixes.
    #[getter]
    fn nlri(&self) -> Vec<String> {
        self.inner.nlri.iter().map(ToString::to_string).collect()
    }

    /// Every prefix announced: the NLRI field, then MP_REACH_NLRI's.
    #[getter]
    fn announced(&self) -> Vec<String> {
        self.inner.announced().map(|p| p.to_string()).collect()
    }

    /// Every prefix withdrawn: the Withdrawn Routes field, then MP_UNREACH_NLRI's.
    #[getter]
    fn withdrawn_all(&self) -> Vec<String> {
        self.inner.withdrawn_all().map(|p| p.to_string()).collect()
    }

    /// The path attributes, in the order received.
    #[getter]
    fn attributes(&self) -> PyResult<Vec<PathAttribute>> {
        self.inner
            .attributes
            .iter()
            .map(|a| PathAttribute::of(a, self.width))
            .collect()
    }

    /// The BGPsec_PATH, or `None` for an UPDATE that is not a BGPsec one.
    #[getter]
    fn bgpsec_path(&self) -> Option<BgpsecPath> {
        self.inner.bgpsec_path().map(|p| BgpsecPath {
            inner: p.clone().into_owned(),
        })
    }

    /// The same UPDATE with its BGPsec_PATH replaced by `path` (standard flags),
    /// e.g. to see what a validator says of a changed signature.
    fn with_bgpsec_path(&self, path: PyRef<'_, BgpsecPath>) -> PyResult<Update> {
        let value = wire::AttributeValue::BgpsecPath(path.inner.clone());
        let attribute = wire::PathAttribute::new(value, self.width)
            .map_err(|e| errors::input("bad-argument", e))?;
        let mut inner = self.inner.clone();
        let code = attribute.type_code();
        match inner.attributes.iter_mut().find(|a| a.type_code() == code) {
            Some(a) => *a = attribute,
            None => inner.attributes.push(attribute),
        }
        let update = Update {
            inner,
            width: self.width,
        };
        update.encoding()?;
        Ok(update)
    }

    fn __repr__(&self) -> String {
        format!(
            "Update(announced={:?}, withdrawn={:?}, attributes={}, bgpsec_path={})",
            self.announced(),
            self.withdrawn_all(),
            self.inner.attributes.len(),
            self.bgpsec_path()
                .map_or("None".to_string(), |p| p.__repr__())
        )
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<Reduced<'py, (Bound<'py, PyBytes>, u8)>> {
        let u = slf.get();
        Ok((
            slf.get_type().getattr("from_bytes")?,
            (PyBytes::new(slf.py(), &u.encoding()?), u.as_width()),
        ))
    }
}

impl Update {
    /// The whole message's octets.
    pub fn encoding(&self) -> PyResult<Vec<u8>> {
        Message::Update(self.inner.clone())
            .encoding(self.width)
            .map_err(|e| errors::input("bad-argument", format!("UPDATE: {e}")))
    }
}
