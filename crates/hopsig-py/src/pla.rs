//! `hopsig.pla` (native half): Packet Level Authentication (Brumley,
//! ../shared/papers/003) from Python.
//!
//! * Implicit certificates (003 §II-C, ICNR): a [`PyTtp`] issues them, a [`PyBlind`]
//!   is the host's blinded request, [`finalize`] gives the host its `ecdsa-k*` key
//!   (a `hopsig.schemes.SigningKey`) and certificate, [`extract`] reconstructs the
//!   public key from a certificate (eq. 7), [`verify`] checks a signature with the
//!   key extracted inside one multi-scalar multiplication (eq. 9) — the steps of
//!   `hopsig ic`, on the same files.
//! * The PLA header (`docs/spec/pla.md`): [`PyHeader`] decodes and encodes it,
//!   [`sign_header`] signs a payload, [`verify_header`] is the per-hop check of a
//!   header (`hopsig_schemes::pla::header::check_packet`).
//! * IPv6 packets: [`sign_packet`] inserts a signed PLA Hop-by-Hop option
//!   (`hopsig_pla::sender`), [`PyRouter`] makes a router's whole check of a packet
//!   (`hopsig_pla::router`, the replay window included).
//!
//! Curves are named `"k163"`, `"k233"`, `"k283"` (or `"K-163"`, ...); the steps that
//! read files take the curve from them, as `hopsig ic` does.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::Ipv6Addr;
use std::sync::Arc;
use std::time::Duration;

use hopsig_pla::capture::{Frame, Interface};
use hopsig_pla::option::Ipv6Packet;
use hopsig_pla::pipeline::{check_ordered, Clock};
use hopsig_pla::router::{Router, RouterConfig};
use hopsig_pla::sender::Sender;
use hopsig_primitives::armor::{KeyFile, KeyKind};
use hopsig_primitives::codec::Codec;
use hopsig_primitives::par;
use hopsig_schemes::concat::koblitz::KoblitzSecret;
use hopsig_schemes::concat::{BaseSignature, Concat};
use hopsig_schemes::pla::files;
use hopsig_schemes::pla::header::{
    certify, check_packet, KeyMaterial, PlaCurve, PlaHeader, TtpDirectory,
};
use hopsig_schemes::pla::icnr::{self, Ttp};
use hopsig_schemes::pla::koblitz::{Curve, TauTable, K163, K233, K283, POINT_WIDTH};
use hopsig_schemes::registry;
use hopsig_schemes::{Aggregate, Error, SequentialAggregate};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use zeroize::Zeroizing;

use crate::errors;
use crate::schemes::{error, error_in, reduce, PySigningKey, PyVerifyingKey};

/// Runs `$f::<C, B>` (or `$f::<C>`) on the curve `$curve` names, `B` its `ecdsa-k*`
/// scheme ([`hopsig_schemes::on_pla_curve`], as the CLI's `on_curve!`).
macro_rules! on_curve {
    ($($t:tt)*) => { hopsig_schemes::on_pla_curve!($($t)*) };
}

/// The curve a Python argument names: `k163` / `K-163` (any case, dash or not).
fn curve_arg(name: &str) -> PyResult<PlaCurve> {
    let plain = name.replace('-', "").to_lowercase();
    PlaCurve::ALL
        .iter()
        .copied()
        .find(|c| c.name().replace('-', "").to_lowercase() == plain)
        .ok_or_else(|| {
            errors::input(
                "bad-argument",
                format!("unknown curve {name:?}: k163, k233 or k283"),
            )
        })
}

/// The curve's lowercase name as the functions take it (`k163`).
fn curve_name(c: PlaCurve) -> String {
    c.name().replace('-', "").to_lowercase()
}

/// A key file's text parsed.
fn parse(text: &[u8]) -> PyResult<KeyFile> {
    KeyFile::parse(text).map_err(|e| error(e.into()))
}

/// Identity argument: str (UTF-8) or bytes.
fn identity_bytes(id: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    match id.extract::<String>() {
        Ok(s) => Ok(s.into_bytes()),
        Err(_) => id.extract::<Vec<u8>>(),
    }
}

// ------------------------------------------------------------ implicit certificates

/// A TTP of implicit certificates (003 §II-C): the domain key s_T and W_T = s_T·G.
/// ``to_bytes()`` is ``hopsig ic ttp``'s ``ttp.key``, ``public_bytes()`` its
/// ``ttp.pub``.
#[pyclass(module = "hopsig.pla", name = "Ttp", frozen)]
pub struct PyTtp {
    curve: PlaCurve,
    secret: Zeroizing<String>,
    public: String,
}

fn ttp_setup<C: Curve>() -> Result<(Zeroizing<String>, String), Error> {
    files::ttp_files(&Ttp::<C>::setup()?)
}

fn ttp_read<C: Curve>(file: &KeyFile) -> Result<(Zeroizing<String>, String), Error> {
    files::ttp_files(&files::ttp_from_file::<C>(file)?)
}

fn ttp_issue<C: Curve>(secret: &[u8], id: &[u8], request: &[u8]) -> Result<Vec<u8>, Error> {
    let ttp = files::ttp_from_file::<C>(&KeyFile::parse(secret)?)?;
    let request = files::request_from_file::<C>(&KeyFile::parse(request)?)?;
    let issued = ttp.issue(id, &request)?;
    Ok(files::issued_file::<C>(id, &issued)?.as_bytes().to_vec())
}

fn ttp_certify<C: Curve, B: BaseSignature<PublicKey = KoblitzPublicOf<C>>>(
    secret: &[u8],
    public: &[u8],
) -> Result<Vec<u8>, Error> {
    let ttp = files::ttp_from_file::<C>(&KeyFile::parse(secret)?)?;
    let file = KeyFile::parse(public)?;
    if file.scheme != B::ID || file.kind != KeyKind::Public {
        return Err(Error::Mismatch(format!(
            "expected an {} public key, found {} {}",
            B::ID,
            file.scheme,
            file.kind.as_str()
        )));
    }
    let q = *B::public_from_der(&file.block("PUBLIC KEY")?.der)?.point();
    let sig = certify(&ttp.signing_key()?, &q)?;
    Ok(files::key_cert_file::<C>(&q, &sig).into_bytes())
}

/// The public key type of `ecdsa-k*` on `C`.
type KoblitzPublicOf<C> = hopsig_schemes::concat::koblitz::KoblitzPublic<C>;

#[pymethods]
impl PyTtp {
    /// A new TTP on ``curve`` (``"k163"``, ``"k233"`` or ``"k283"``).
    #[staticmethod]
    #[pyo3(signature = (curve = "k163"))]
    fn setup(py: Python<'_>, curve: &str) -> PyResult<Self> {
        let c = curve_arg(curve)?;
        let (secret, public) = py
            .detach(|| on_curve!(c, ttp_setup::<C>()))
            .map_err(error)?;
        Ok(PyTtp {
            curve: c,
            secret,
            public,
        })
    }

    /// Reads a TTP secret file (``ttp.key``; its scheme id names the curve).
    #[staticmethod]
    fn from_bytes(data: Vec<u8>) -> PyResult<Self> {
        let file = parse(&data)?;
        let c = files::curve_of(&file).map_err(error)?;
        let (secret, public) = on_curve!(c, ttp_read::<C>(&file)).map_err(error)?;
        Ok(PyTtp {
            curve: c,
            secret,
            public,
        })
    }

    /// The curve (``"k163"``, ...).
    #[getter]
    fn curve(&self) -> String {
        curve_name(self.curve)
    }

    /// The secret file (``ttp.key``).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.secret.as_bytes())
    }

    /// The public key file (``ttp.pub``): what hosts and routers need.
    fn public_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.public.as_bytes())
    }

    /// ICNR issue (``hopsig ic issue``): certifies ``identity`` (str or bytes, 1 to
    /// 1024 bytes; for PLA the IPv6 source address as text) for a request file
    /// (:attr:`Blind.request`). Returns the answer file for the host (secret: its
    /// private share).
    fn issue<'py>(
        &self,
        py: Python<'py>,
        identity: &Bound<'py, PyAny>,
        request: Vec<u8>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let id = identity_bytes(identity)?;
        let c = self.curve;
        let secret = self.secret.as_bytes();
        let out = py
            .detach(|| on_curve!(c, ttp_issue::<C>(secret, &id, &request)))
            .map_err(error)?;
        Ok(PyBytes::new(py, &out))
    }

    /// The TTP's signature on a host's public key for PLA's certificate-based
    /// layout (``hopsig ic certify-key``): a key certificate file for
    /// :func:`sign_header` / :func:`sign_packet` ``key_cert=``.
    fn certify_key<'py>(
        &self,
        py: Python<'py>,
        public: &Bound<'py, PyVerifyingKey>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let text = public.get().key.to_key_file();
        let c = self.curve;
        let secret = self.secret.as_bytes();
        let out = py
            .detach(|| on_curve!(c, ttp_certify::<C, B>(secret, text.as_bytes())))
            .map_err(error)?;
        Ok(PyBytes::new(py, &out))
    }

    /// Pickles as ``Ttp.from_bytes(ttp.key)``.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        reduce(slf, slf.get().to_bytes(slf.py()))
    }

    fn __repr__(&self) -> String {
        format!("Ttp({:?})", curve_name(self.curve))
    }
}

/// A host's blinded certificate request (ICNR_blind): the secret k_A stays here,
/// :attr:`request` (k_A·G, a request file) goes to the TTP. ``to_bytes()`` is
/// ``hopsig ic request``'s FILE.
#[pyclass(module = "hopsig.pla", name = "Blind", frozen)]
pub struct PyBlind {
    curve: PlaCurve,
    secret: Zeroizing<String>,
    request: String,
}

fn blind_new<C: Curve>() -> Result<(Zeroizing<String>, String), Error> {
    files::blind_files(&icnr::blind::<C>()?)
}

fn blind_read<C: Curve>(file: &KeyFile) -> Result<(Zeroizing<String>, String), Error> {
    files::blind_files(&files::blind_from_file::<C>(file)?)
}

#[pymethods]
impl PyBlind {
    /// A fresh request on ``curve``.
    #[new]
    #[pyo3(signature = (curve = "k163"))]
    fn new(py: Python<'_>, curve: &str) -> PyResult<Self> {
        let c = curve_arg(curve)?;
        let (secret, request) = py
            .detach(|| on_curve!(c, blind_new::<C>()))
            .map_err(error)?;
        Ok(PyBlind {
            curve: c,
            secret,
            request,
        })
    }

    /// Reads a blind file.
    #[staticmethod]
    fn from_bytes(data: Vec<u8>) -> PyResult<Self> {
        let file = parse(&data)?;
        let c = files::curve_of(&file).map_err(error)?;
        let (secret, request) = on_curve!(c, blind_read::<C>(&file)).map_err(error)?;
        Ok(PyBlind {
            curve: c,
            secret,
            request,
        })
    }

    /// The curve.
    #[getter]
    fn curve(&self) -> String {
        curve_name(self.curve)
    }

    /// The request file for the TTP (``FILE.req``).
    #[getter]
    fn request<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.request.as_bytes())
    }

    /// The blind file (secret).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.secret.as_bytes())
    }

    /// Pickles as ``Blind.from_bytes(blind file)``.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        reduce(slf, slf.get().to_bytes(slf.py()))
    }

    fn __repr__(&self) -> String {
        format!("Blind({:?})", curve_name(self.curve))
    }
}

/// ICNR_finalkey: the key file and the certificate file.
fn finalize_files<C: Curve, B: BaseSignature<SecretKey = KoblitzSecret<C>>>(
    blind: &[u8],
    issued: &[u8],
    ttp_public: &[u8],
) -> Result<(Zeroizing<String>, String), Error> {
    let b = files::blind_from_file::<C>(&KeyFile::parse(blind)?)?;
    let (id, iss) = files::issued_from_file::<C>(&KeyFile::parse(issued)?)?;
    let w_t = files::ttp_public_from_file::<C>(&KeyFile::parse(ttp_public)?)?;
    let key = icnr::finalkey(&b, &iss, &id, &w_t)?;
    let pem = B::secret_to_pem(&key)?;
    let text = KeyFile::render(B::ID, KeyKind::Secret, &[pem.as_str()]);
    Ok((text, files::cert_file::<C>(&id, &iss.cert)))
}

/// ICNR_finalkey (``hopsig ic finalize``): the host's key, an ``ecdsa-k*``
/// :class:`hopsig.schemes.SigningKey` (checked against the key anyone extracts from
/// the certificate), and its public certificate file. Returns ``(key, cert)``.
#[pyfunction]
fn finalize<'py>(
    py: Python<'py>,
    blind: &Bound<'py, PyBlind>,
    issued: Vec<u8>,
    ttp_public: Vec<u8>,
) -> PyResult<(PySigningKey, Bound<'py, PyBytes>)> {
    let b = blind.get();
    let secret = b.secret.as_bytes();
    let (text, cert) = py
        .detach(|| {
            on_curve!(
                b.curve,
                finalize_files::<C, B>(secret, &issued, &ttp_public)
            )
        })
        .map_err(error)?;
    let id = KeyFile::parse(text.as_bytes())
        .map_err(|e| error(e.into()))?
        .scheme;
    let key = registry::lookup(&id)
        .and_then(|s| s.signing_key_from_file(text.as_bytes()))
        .map_err(error)?;
    Ok((PySigningKey { key }, PyBytes::new(py, cert.as_bytes())))
}

fn extract_point<C: Curve>(ttp_public: &[u8], cert: &[u8]) -> Result<Vec<u8>, Error> {
    let w_t = files::ttp_public_from_file::<C>(&KeyFile::parse(ttp_public)?)?;
    let (id, c) = files::cert_from_file::<C>(&KeyFile::parse(cert)?)?;
    Ok(icnr::extract::<C>(&id, &c, &w_t)?.to_sec1(true))
}

/// The curve of a TTP public key file.
fn ttp_curve(ttp_public: &[u8]) -> PyResult<PlaCurve> {
    files::curve_of(&parse(ttp_public)?).map_err(error)
}

/// ICNR_extract (003 eq. 7): the public key W_A = D − r_A·W_T a certificate file
/// stands for, as a SEC 1 compressed point (compare :func:`public_point`).
#[pyfunction]
fn extract<'py>(
    py: Python<'py>,
    ttp_public: Vec<u8>,
    cert: Vec<u8>,
) -> PyResult<Bound<'py, PyBytes>> {
    let c = ttp_curve(&ttp_public)?;
    let point = py
        .detach(|| on_curve!(c, extract_point::<C>(&ttp_public, &cert)))
        .map_err(error)?;
    Ok(PyBytes::new(py, &point))
}

fn point_of_secret<C: Curve, B: BaseSignature<SecretKey = KoblitzSecret<C>>>(
    file: &KeyFile,
) -> Result<Vec<u8>, Error> {
    Ok(B::secret_from_der(&file.block("PRIVATE KEY")?.der)?
        .public_point()
        .to_sec1(true))
}

fn point_of_public<C: Curve, B: BaseSignature<PublicKey = KoblitzPublicOf<C>>>(
    file: &KeyFile,
) -> Result<Vec<u8>, Error> {
    Ok(B::public_from_der(&file.block("PUBLIC KEY")?.der)?
        .point()
        .to_sec1(true))
}

/// The public point of an ``ecdsa-k*`` key (a :class:`hopsig.schemes.SigningKey` or
/// :class:`hopsig.schemes.VerifyingKey`), SEC 1 compressed.
#[pyfunction]
fn public_point<'py>(py: Python<'py>, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let (text, secret) = match key.cast::<PySigningKey>() {
        Ok(k) => (k.get().file_text()?, true),
        Err(_) => (
            Zeroizing::new(key.cast::<PyVerifyingKey>()?.get().key.to_key_file()),
            false,
        ),
    };
    let file = parse(text.as_bytes())?;
    let c = files::curve_of_signer(&file).map_err(error)?;
    let point = if secret {
        on_curve!(c, point_of_secret::<C, B>(&file))
    } else {
        on_curve!(c, point_of_public::<C, B>(&file))
    }
    .map_err(error)?;
    Ok(PyBytes::new(py, &point))
}

fn verify_fused<C: Curve, B: BaseSignature<SecretKey = KoblitzSecret<C>>>(
    ttp_public: &[u8],
    cert: &[u8],
    msg: &[u8],
    sig: &[u8],
) -> Result<bool, Error> {
    let w_t = files::ttp_public_from_file::<C>(&KeyFile::parse(ttp_public)?)?;
    let (id, c) = files::cert_from_file::<C>(&KeyFile::parse(cert)?)?;
    let sig = Concat::<B>::new().aggregate_from_bytes(sig)?;
    if sig.signers() != 1 {
        return Ok(false);
    }
    let table = TauTable::new_vartime(&w_t, POINT_WIDTH);
    let der = sig.signature(1).unwrap_or_default();
    Ok(icnr::verify_fused(&id, &c, &table, msg, der))
}

/// ICNR_do_verify (003 eq. 9, ``hopsig ic verify``): whether ``signature`` (an
/// aggregate of one signer from :func:`hopsig.schemes.sign`, or a bare DER ECDSA
/// signature) on ``message`` was made by the holder of the certificate file
/// ``cert``, the key extracted inside the same multi-scalar multiplication.
/// ``InputError`` for files or a signature that do not decode.
#[pyfunction]
fn verify(
    py: Python<'_>,
    ttp_public: Vec<u8>,
    cert: Vec<u8>,
    message: Vec<u8>,
    signature: Vec<u8>,
) -> PyResult<bool> {
    let c = ttp_curve(&ttp_public)?;
    py.detach(|| {
        on_curve!(
            c,
            verify_fused::<C, B>(&ttp_public, &cert, &message, &signature)
        )
    })
    .map_err(error)
}

// ------------------------------------------------------------ the PLA header

/// A PLA header (``docs/spec/pla.md``, "PLA header"): curve, TTP id, sequence
/// number, timestamp, the signer's key material (an implicit certificate r_A, b_A,
/// or a public key with the TTP's signature on it) and the packet signature c ‖ d.
/// ``Header.decode(b).to_bytes() == b`` for every header that decodes.
#[pyclass(module = "hopsig.pla", name = "Header", frozen, eq)]
#[derive(PartialEq)]
pub struct PyHeader {
    header: PlaHeader,
}

#[pymethods]
impl PyHeader {
    /// Decodes a header; ``InputError`` (reason ``"decode"``) naming the field.
    #[staticmethod]
    fn decode(data: Vec<u8>) -> PyResult<Self> {
        let header = PlaHeader::decode(&data).map_err(|e| error(e.into()))?;
        Ok(PyHeader { header })
    }

    /// Same as :meth:`decode` (for pickling).
    #[staticmethod]
    fn from_bytes(data: Vec<u8>) -> PyResult<Self> {
        Self::decode(data)
    }

    /// The encoding.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = self
            .header
            .encoding()
            .map_err(|e| error(Error::Encode(e)))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The curve (``"k163"``, ...).
    #[getter]
    fn curve(&self) -> String {
        curve_name(self.header.curve)
    }

    /// The TTP id.
    #[getter]
    fn ttp_id(&self) -> u16 {
        self.header.ttp_id
    }

    /// The sequence number.
    #[getter]
    fn sequence(&self) -> u32 {
        self.header.sequence
    }

    /// The signing time, Unix seconds.
    #[getter]
    fn timestamp(&self) -> u32 {
        self.header.timestamp
    }

    /// ``"implicit"`` (an implicit certificate) or ``"certificate"`` (a public key
    /// and the TTP's signature on it).
    #[getter]
    fn layout(&self) -> &'static str {
        match self.header.key {
            KeyMaterial::Implicit(_) => "implicit",
            KeyMaterial::Certificate { .. } => "certificate",
        }
    }

    /// The implicit certificate's r_A (SEC 1 field bytes), or ``None``.
    #[getter]
    fn r<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        match &self.header.key {
            KeyMaterial::Implicit(c) => Some(PyBytes::new(py, &c.r)),
            KeyMaterial::Certificate { .. } => None,
        }
    }

    /// The implicit certificate's compression bit b_A, or ``None``.
    #[getter]
    fn b(&self) -> Option<bool> {
        match &self.header.key {
            KeyMaterial::Implicit(c) => Some(c.b),
            KeyMaterial::Certificate { .. } => None,
        }
    }

    /// The signer's public key (SEC 1 compressed), certificate layout only.
    #[getter]
    fn public_key<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        match &self.header.key {
            KeyMaterial::Certificate { key, .. } => Some(PyBytes::new(py, key)),
            KeyMaterial::Implicit(_) => None,
        }
    }

    /// The TTP's signature c ‖ d on the public key, certificate layout only.
    #[getter]
    fn ttp_signature<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        match &self.header.key {
            KeyMaterial::Certificate { ttp_sig, .. } => Some(PyBytes::new(py, ttp_sig)),
            KeyMaterial::Implicit(_) => None,
        }
    }

    /// The packet signature c ‖ d (2·bytes(n)).
    #[getter]
    fn signature<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.header.signature)
    }

    /// Octets of the encoding.
    fn __len__(&self) -> usize {
        self.header.encoded_len()
    }

    /// Pickles as ``Header.from_bytes(encoding)``.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let bytes = slf.get().to_bytes(slf.py())?;
        reduce(slf, bytes)
    }

    fn __repr__(&self) -> String {
        format!(
            "Header(curve={:?}, layout={:?}, ttp_id={}, sequence={}, timestamp={})",
            curve_name(self.header.curve),
            self.layout(),
            self.header.ttp_id,
            self.header.sequence,
            self.header.timestamp
        )
    }
}

/// The key material of a header: an implicit certificate file, or a key
/// certificate file, on `C`.
fn material<C: Curve>(cert: Option<&[u8]>, key_cert: Option<&[u8]>) -> Result<KeyMaterial, Error> {
    match (cert, key_cert) {
        (Some(cert), None) => {
            let (_, c) = files::cert_from_file::<C>(&KeyFile::parse(cert)?)?;
            Ok(KeyMaterial::Implicit(c))
        }
        (None, Some(kc)) => {
            let (key, ttp_sig) = files::key_cert_from_file::<C>(&KeyFile::parse(kc)?)?;
            Ok(KeyMaterial::Certificate {
                key: key.to_sec1(true),
                ttp_sig,
            })
        }
        _ => Err(Error::Mismatch(
            "give the signer's implicit certificate (cert=) or its key certificate (key_cert=), one of them".into(),
        )),
    }
}

/// The `ecdsa-k*` secret of a key file on `C`.
fn koblitz_secret<C: Curve, B: BaseSignature<SecretKey = KoblitzSecret<C>>>(
    text: &[u8],
) -> Result<KoblitzSecret<C>, Error> {
    let file = KeyFile::parse(text)?;
    if file.scheme != B::ID {
        return Err(Error::KeyForOtherScheme {
            expected: B::ID.into(),
            found: file.scheme,
        });
    }
    B::secret_from_der(&file.block("PRIVATE KEY")?.der)
}

/// Arguments of a signed header.
struct HeaderArgs<'a> {
    cert: Option<&'a [u8]>,
    key_cert: Option<&'a [u8]>,
    ttp_id: u16,
    sequence: u32,
    timestamp: u32,
}

fn sign_header_on<C: Curve, B: BaseSignature<SecretKey = KoblitzSecret<C>>>(
    key: &[u8],
    payload: &[u8],
    a: &HeaderArgs<'_>,
) -> Result<PlaHeader, Error> {
    let secret = koblitz_secret::<C, B>(key)?;
    let mut header = PlaHeader {
        curve: PlaCurve::of::<C>()?,
        ttp_id: a.ttp_id,
        sequence: a.sequence,
        timestamp: a.timestamp,
        key: material::<C>(a.cert, a.key_cert)?,
        signature: Vec::new(),
    };
    header.sign(&secret, payload)?;
    Ok(header)
}

/// The curve of an `ecdsa-k*` signing key.
fn signer_curve(key: &PySigningKey) -> PyResult<(Zeroizing<String>, PlaCurve)> {
    let text = key.file_text()?;
    let c = files::curve_of_signer(&parse(text.as_bytes())?).map_err(error)?;
    Ok((text, c))
}

/// A signed PLA header over ``payload`` (``PlaHeader::sign``: the signature covers
/// the tag, every header field before it and the payload). ``key`` is the host's
/// ``ecdsa-k*`` :class:`hopsig.schemes.SigningKey`; exactly one of ``cert`` (its
/// implicit certificate file, :func:`finalize`) and ``key_cert`` (its key
/// certificate file, :meth:`Ttp.certify_key`) gives the key material.
#[pyfunction]
#[pyo3(signature = (key, payload, *, cert = None, key_cert = None, ttp_id = 1, sequence = 1, timestamp = 0))]
#[allow(clippy::too_many_arguments)]
fn sign_header(
    py: Python<'_>,
    key: &Bound<'_, PySigningKey>,
    payload: Vec<u8>,
    cert: Option<Vec<u8>>,
    key_cert: Option<Vec<u8>>,
    ttp_id: u16,
    sequence: u32,
    timestamp: u32,
) -> PyResult<PyHeader> {
    let (text, c) = signer_curve(key.get())?;
    let args = HeaderArgs {
        cert: cert.as_deref(),
        key_cert: key_cert.as_deref(),
        ttp_id,
        sequence,
        timestamp,
    };
    let header = py
        .detach(|| on_curve!(c, sign_header_on::<C, B>(text.as_bytes(), &payload, &args)))
        .map_err(|e| error_in("signing failed", e))?;
    Ok(PyHeader { header })
}

/// TTPs by id, as key-file texts (a Python dict).
type Ttps = BTreeMap<u16, Vec<u8>>;

fn directory<C: Curve>(ttps: &Ttps) -> Result<TtpDirectory<C>, Error> {
    let mut dir = TtpDirectory::default();
    for (id, text) in ttps {
        dir.insert(
            *id,
            files::ttp_public_from_file::<C>(&KeyFile::parse(text)?)?,
        );
    }
    Ok(dir)
}

fn check_on<C: Curve>(
    header: &[u8],
    payload: &[u8],
    src: &[u8],
    ttps: &Ttps,
    now: u32,
    max_age: u32,
) -> Result<(), Error> {
    check_packet::<C>(header, payload, src, &directory::<C>(ttps)?, now, max_age).map(|_| ())
}

/// The per-hop check of a header (``check_packet``, docs/spec/pla.md): the header
/// decodes, its TTP is in ``ttps`` (dict of TTP id to ``ttp.pub`` file), its
/// timestamp is at most ``max_age`` seconds old at ``now`` (and not in the future),
/// and the signature verifies on ``payload`` — for an implicit certificate issued to
/// the identity ``src`` (str or bytes), in one fused extraction + verification.
/// ``True`` / ``False``; ``InputError`` (reason ``"decode"``) for a header that does
/// not decode, or TTP files that do not read.
#[pyfunction]
#[pyo3(signature = (header, payload, src, ttps, *, now, max_age = 60))]
fn verify_header(
    py: Python<'_>,
    header: Vec<u8>,
    payload: Vec<u8>,
    src: &Bound<'_, PyAny>,
    ttps: Ttps,
    now: u32,
    max_age: u32,
) -> PyResult<bool> {
    let src = identity_bytes(src)?;
    let curve = PlaHeader::decode(&header)
        .map_err(|e| error(e.into()))?
        .curve;
    let outcome = py.detach(|| {
        on_curve!(
            curve,
            check_on::<C>(&header, &payload, &src, &ttps, now, max_age)
        )
    });
    match outcome {
        Ok(()) => Ok(true),
        Err(Error::InvalidSignature) => Ok(false),
        Err(e) => Err(error(e)),
    }
}

// ------------------------------------------------------------ IPv6 packets

fn sign_packet_on<C: Curve, B: BaseSignature<SecretKey = KoblitzSecret<C>>>(
    key: &[u8],
    packet: &[u8],
    a: &HeaderArgs<'_>,
) -> Result<Vec<u8>, String> {
    let secret = koblitz_secret::<C, B>(key).map_err(|e| e.to_string())?;
    let parsed = Ipv6Packet::parse(packet).map_err(|e| format!("malformed packet: {e}"))?;
    let sender = match material::<C>(a.cert, a.key_cert).map_err(|e| e.to_string())? {
        KeyMaterial::Implicit(cert) => {
            Sender::implicit(secret, cert, Ipv6Addr::from(parsed.source()), a.ttp_id)
        }
        KeyMaterial::Certificate { ttp_sig, .. } => Sender::certified(secret, ttp_sig, a.ttp_id),
    };
    sender
        .with_first_sequence(a.sequence)
        .sign(&parsed, a.timestamp)
        .map_err(|e| e.to_string())
}

/// The IPv6 ``packet`` with a signed PLA Hop-by-Hop option added (``hopsig pla
/// sign-pcap`` for one packet, ``hopsig_pla::sender``): the header as in
/// :func:`sign_header`, the signature over the addresses, the next header and the
/// rest of the packet. An implicit certificate must have been issued to the
/// packet's source address (its text form). ``InputError`` (reason ``"unsignable"``)
/// for a packet that cannot carry the option.
#[pyfunction]
#[pyo3(signature = (packet, key, *, cert = None, key_cert = None, ttp_id = 1, sequence = 1, timestamp = 0))]
#[allow(clippy::too_many_arguments)]
fn sign_packet<'py>(
    py: Python<'py>,
    packet: Vec<u8>,
    key: &Bound<'py, PySigningKey>,
    cert: Option<Vec<u8>>,
    key_cert: Option<Vec<u8>>,
    ttp_id: u16,
    sequence: u32,
    timestamp: u32,
) -> PyResult<Bound<'py, PyBytes>> {
    let (text, c) = signer_curve(key.get())?;
    let args = HeaderArgs {
        cert: cert.as_deref(),
        key_cert: key_cert.as_deref(),
        ttp_id,
        sequence,
        timestamp,
    };
    let out = py
        .detach(|| on_curve!(c, sign_packet_on::<C, B>(text.as_bytes(), &packet, &args)))
        .map_err(|e| errors::input("unsignable", e))?;
    Ok(PyBytes::new(py, &out))
}

/// A router of one curve.
enum AnyRouter {
    K163(Router<K163>),
    K233(Router<K233>),
    K283(Router<K283>),
}

fn router_on<C: Curve>(ttps: &Ttps, config: RouterConfig) -> Result<Router<C>, Error> {
    Ok(Router::new(directory::<C>(ttps)?, config))
}

/// A PLA router (003 §I, ``hopsig_pla::router``): the whole per-hop check of IPv6
/// packets — parse, curve, trusted TTP, timestamp window, replay window (kept in
/// this object, across calls), signature — as ``hopsig pla verify-pcap`` makes it.
/// ``ttps`` maps TTP ids to ``ttp.pub`` files, all on one curve.
#[pyclass(module = "hopsig.pla", name = "Router", frozen)]
pub struct PyRouter {
    router: AnyRouter,
}

#[pymethods]
impl PyRouter {
    /// A router trusting ``ttps`` with the limits of ``hopsig pla verify-pcap``.
    #[new]
    #[pyo3(signature = (ttps, *, max_age = 60, skew = 2, max_sources = 65536))]
    fn new(ttps: Ttps, max_age: u32, skew: u32, max_sources: usize) -> PyResult<Self> {
        let Some((_, first)) = ttps.first_key_value() else {
            return Err(errors::input("bad-argument", "give at least one TTP"));
        };
        let config = RouterConfig {
            max_age,
            skew,
            max_sources,
        };
        let router = match ttp_curve(first)? {
            PlaCurve::K163 => AnyRouter::K163(router_on(&ttps, config).map_err(error)?),
            PlaCurve::K233 => AnyRouter::K233(router_on(&ttps, config).map_err(error)?),
            PlaCurve::K283 => AnyRouter::K283(router_on(&ttps, config).map_err(error)?),
        };
        Ok(PyRouter { router })
    }

    /// The verdict on one IPv6 packet received at ``now`` (Unix seconds): one of
    /// ``"accepted"``, ``"not_ipv6"``, ``"unsigned"``, ``"jumbogram"``,
    /// ``"malformed"``, ``"other_curve"``, ``"unknown_ttp"``, ``"stale"``,
    /// ``"future"``, ``"replay"``, ``"bad_signature"`` (``verify-pcap``'s names).
    fn check(&self, py: Python<'_>, packet: Vec<u8>, now: u32) -> &'static str {
        py.detach(|| match &self.router {
            AnyRouter::K163(r) => r.check(&packet, now).name(),
            AnyRouter::K233(r) => r.check(&packet, now).name(),
            AnyRouter::K283(r) => r.check(&packet, now).name(),
        })
    }

    /// The verdicts on many IPv6 packets received at ``now``, in order, the same as
    /// :meth:`check` of each in turn: the packets are inspected on ``threads``
    /// threads (``None``: every core) with the GIL released, their signatures
    /// verified in batches (``hopsig_schemes::batch``), and the replay window
    /// settled in packet order (``hopsig_pla::pipeline::check_ordered``, the
    /// engine of ``hopsig pla verify-pcap``).
    #[pyo3(signature = (packets, now, *, threads = None))]
    fn check_many(
        &self,
        py: Python<'_>,
        packets: Vec<Vec<u8>>,
        now: u32,
        threads: Option<usize>,
    ) -> Vec<&'static str> {
        let threads = threads.unwrap_or_else(par::cores);
        py.detach(|| match &self.router {
            AnyRouter::K163(r) => check_packets(r, packets, now, threads),
            AnyRouter::K233(r) => check_packets(r, packets, now, threads),
            AnyRouter::K283(r) => check_packets(r, packets, now, threads),
        })
    }
}

/// LINKTYPE_IPV6: frames that are IPv6 packets, as `Router::check` takes them.
const LINKTYPE_IPV6: u32 = 229;

/// `check_ordered` over raw IPv6 packets at a fixed clock.
fn check_packets<C: Curve>(
    router: &Router<C>,
    packets: Vec<Vec<u8>>,
    now: u32,
    threads: usize,
) -> Vec<&'static str> {
    let interface = Arc::new(Interface::new(0, LINKTYPE_IPV6));
    let frames = packets.into_iter().map(|data| {
        Ok::<_, Infallible>(Frame {
            time: Duration::from_secs(u64::from(now)),
            orig_len: u32::try_from(data.len()).unwrap_or(u32::MAX),
            data,
            interface: Arc::clone(&interface),
        })
    });
    let mut verdicts = Vec::new();
    let done = check_ordered(router, Clock::Fixed(now), frames, threads, |_, v| {
        verdicts.push(v.name());
        Ok(())
    });
    match done {
        Ok(()) => verdicts,
        Err(never) => match never {},
    }
}

/// Adds this module's classes and functions to `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTtp>()?;
    m.add_class::<PyBlind>()?;
    m.add_class::<PyHeader>()?;
    m.add_class::<PyRouter>()?;
    m.add_function(wrap_pyfunction!(finalize, m)?)?;
    m.add_function(wrap_pyfunction!(extract, m)?)?;
    m.add_function(wrap_pyfunction!(public_point, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(sign_header, m)?)?;
    m.add_function(wrap_pyfunction!(verify_header, m)?)?;
    m.add_function(wrap_pyfunction!(sign_packet, m)?)?;
    Ok(())
}
