//! `hopsig.schemes` (native half): every scheme of the registry
//! (`hopsig_schemes::registry::ALL_SCHEMES`) from Python.
//!
//! * Sequential schemes (BGR, the concatenations, BGLS): [`keygen`] gives a
//!   [`PySigningKey`]; [`sign`] is one hop of `SequentialAggregate::sign` (BGR full
//!   version §2: only the signer's own key, its message and the aggregate so far);
//!   [`verify`] checks the ordered list of (public key, message).
//! * The identity-based aggregate (`ibas-bls12381`, 004 §2.3): keys come from a
//!   [`PyPkg`] ([`PyPkg::setup`], [`PyPkg::extract`]), signers are named by identity,
//!   and every signature claims its state string w in a journal first
//!   (`hopsig_schemes::ibas::journal`).
//! * [`aggregate`] merges separately made aggregates of the schemes that aggregate
//!   freely (BGLS, draft-irtf-cfrg-bls-signature-05 §2.8; IBAS under one w).
//! * [`verify_many`] verifies many independent aggregates on every core with the GIL
//!   released.
//!
//! Keys are read and written as hopsig key files (`docs/spec/keys.md`), aggregates as
//! the wire format of `docs/spec/aggregate.md`: the bytes the CLI reads and writes.
//! Every failure is an `InputError` (or, for a check that raises, `InvalidError`) whose
//! `reason` is [`reason`] of the scheme layer's error.

use std::path::PathBuf;
use std::sync::Mutex;

use hopsig_primitives::armor::{KeyFile, KeyInput, KeyKind};
use hopsig_primitives::par;
use hopsig_primitives::persist::NewLog;
use hopsig_schemes::bls::Bgls;
use hopsig_schemes::ibas::{self, IbasAggregate, Identity, Journal, Pkg, PublicParams, UserKey};
use hopsig_schemes::registry::{self, DynSigningKey, DynVerifyingKey, Kind, ALL_SCHEMES};
use hopsig_schemes::wire::{Header, SchemeCode};
use hopsig_schemes::{Aggregate, Error, FreeAggregate, SequentialAggregate, StateError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

use crate::errors;

/// The short stable name of a scheme-layer error: the `reason` of the Python
/// exception (kebab-case, one per [`Error`] variant; the state errors by cause).
pub(crate) fn reason(e: &Error) -> &'static str {
    match e {
        Error::Decode(_) => "decode",
        Error::Encode(_) => "encode",
        Error::Armor(_) => "key-file",
        Error::Key(_) => "key",
        Error::InvalidSignature => "invalid-signature",
        Error::KeyForOtherScheme { .. } => "key-for-other-scheme",
        Error::WrongKeyKind { .. } => "wrong-key-kind",
        Error::AggregateForOtherScheme { .. } => "aggregate-for-other-scheme",
        Error::TooManySigners { .. } => "too-many-signers",
        Error::NoSigners => "no-signers",
        Error::IdentityLength { .. } => "identity-length",
        Error::UnknownScheme(_) => "unknown-scheme",
        Error::IdentityBased(_) => "identity-based",
        Error::PlainKeyNotAccepted { .. } => "plain-key-not-accepted",
        Error::PlainKeyNamesNoScheme => "plain-key-names-no-scheme",
        Error::StateFileLine(_) => "state-file",
        Error::UnknownFile => "unknown-file",
        Error::Mismatch(_) => "mismatch",
        Error::State(StateError::ReusedW { .. }) => "reused-w",
        Error::State(StateError::OtherKey { .. }) => "journal-of-other-key",
        Error::State(StateError::Exhausted { .. }) => "exhausted",
        Error::State(StateError::Journal(_)) => "journal",
        Error::Backend(_) => "backend",
    }
}

/// A scheme-layer error as the Python exception of its exit class: a signature that
/// does not verify is `InvalidError` (exit 1), everything else `InputError` (exit 2),
/// with the CLI's message.
pub(crate) fn error(e: Error) -> PyErr {
    match e {
        Error::InvalidSignature => errors::invalid(reason(&e), e),
        other => errors::input(reason(&other), other),
    }
}

/// The same with `what` before the message (`"signing failed"`, a field name).
pub(crate) fn error_in(what: &str, e: Error) -> PyErr {
    let r = reason(&e);
    match e {
        Error::InvalidSignature => errors::invalid(r, format!("{what}: {e}")),
        other => errors::input(r, format!("{what}: {other}")),
    }
}

/// Parses a hopsig key file (a plain standard key is read by the scheme that accepts
/// it, [`PySigningKey::from_bytes`] with `scheme`).
fn key_file(text: &[u8]) -> PyResult<KeyFile> {
    KeyFile::parse(text).map_err(|e| error(e.into()))
}

// ------------------------------------------------------------ sequential schemes

/// A secret key of a sequential scheme (BGR, the concatenations, BGLS): sign with
/// :func:`sign`. ``to_bytes()`` is the hopsig key file ``hopsig keygen`` writes
/// (docs/spec/keys.md); it pickles as that file.
#[pyclass(module = "hopsig.schemes", name = "SigningKey", frozen)]
pub struct PySigningKey {
    pub(crate) key: Box<dyn DynSigningKey>,
}

impl PySigningKey {
    /// The key file text.
    pub(crate) fn file_text(&self) -> PyResult<zeroize::Zeroizing<String>> {
        self.key.to_key_file().map_err(error)
    }
}

#[pymethods]
impl PySigningKey {
    /// The scheme id (``"bgr-rsa2048"``, ...).
    #[getter]
    fn scheme(&self) -> &'static str {
        self.key.scheme_id()
    }

    /// The public half, a :class:`VerifyingKey`.
    fn public_key(&self) -> PyVerifyingKey {
        PyVerifyingKey {
            key: self.key.verifying_key(),
        }
    }

    /// The secret key file (hopsig key file, ``hopsig keygen``'s FILE).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, self.file_text()?.as_bytes()))
    }

    /// Reads a secret key file: a hopsig key file (its ``scheme`` header names the
    /// scheme, which must be ``scheme`` if given), or a plain PKCS #8 key (PEM or
    /// DER) of a scheme whose keys are standard, with ``scheme``.
    #[staticmethod]
    #[pyo3(signature = (data, scheme = None))]
    fn from_bytes(py: Python<'_>, data: Vec<u8>, scheme: Option<String>) -> PyResult<Self> {
        let id = scheme_of(&data, scheme, KeyKind::Secret)?;
        let key = py
            .detach(|| registry::lookup(&id)?.signing_key_from_file(&data))
            .map_err(error)?;
        Ok(PySigningKey { key })
    }

    /// Pickles as ``SigningKey.from_bytes(key file)``.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        reduce(slf, slf.get().to_bytes(slf.py())?)
    }

    fn __repr__(&self) -> String {
        format!("SigningKey({:?})", self.key.scheme_id())
    }
}

/// The scheme a key file is for: `scheme` if given, else its header.
fn scheme_of(data: &[u8], scheme: Option<String>, kind: KeyKind) -> PyResult<String> {
    if let Some(id) = scheme {
        return Ok(id);
    }
    match KeyInput::parse(data).map_err(|e| error(e.into()))? {
        KeyInput::File(file) if file.kind == kind => Ok(file.scheme),
        KeyInput::File(file) => Err(error(Error::WrongKeyKind {
            expected: kind,
            found: file.kind,
        })),
        KeyInput::Plain(_) => Err(errors::input(
            "plain-key-names-no-scheme",
            format!(
                "{}: give scheme= ({})",
                Error::PlainKeyNamesNoScheme,
                ALL_SCHEMES
                    .iter()
                    .filter(|e| e.plain_keys.accepts(kind))
                    .map(|e| e.id)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// A public key of a sequential scheme. ``to_bytes()`` is the ``.pub`` key file;
/// equal keys compare equal; it pickles as that file.
#[pyclass(module = "hopsig.schemes", name = "VerifyingKey", frozen)]
pub struct PyVerifyingKey {
    pub(crate) key: Box<dyn DynVerifyingKey>,
}

#[pymethods]
impl PyVerifyingKey {
    /// The scheme id.
    #[getter]
    fn scheme(&self) -> &'static str {
        self.key.scheme_id()
    }

    /// The public key file (hopsig ``.pub`` file).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.key.to_key_file().as_bytes())
    }

    /// Reads a public key file: a hopsig ``.pub`` file, or a plain SubjectPublicKeyInfo
    /// key (PEM or DER) of a scheme whose public keys are standard, with ``scheme``.
    #[staticmethod]
    #[pyo3(signature = (data, scheme = None))]
    fn from_bytes(py: Python<'_>, data: Vec<u8>, scheme: Option<String>) -> PyResult<Self> {
        let id = scheme_of(&data, scheme, KeyKind::Public)?;
        let key = py
            .detach(|| registry::lookup(&id)?.verifying_key_from_file(&data))
            .map_err(error)?;
        Ok(PyVerifyingKey { key })
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyVerifyingKey>()
            .is_ok_and(|o| o.get().key.to_key_file() == self.key.to_key_file())
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.key.to_key_file().hash(&mut h);
        h.finish()
    }

    /// Pickles as ``VerifyingKey.from_bytes(key file)``.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        reduce(slf, slf.get().to_bytes(slf.py()))
    }

    fn __repr__(&self) -> String {
        format!("VerifyingKey({:?})", self.key.scheme_id())
    }
}

// ------------------------------------------------------------ identity-based (IBAS)

/// The Private Key Generator of ``ibas-bls12381`` (004 §2.3 Setup and Extract):
/// the master secret s and the public parameters Q = sP. ``to_bytes()`` is
/// ``hopsig pkg setup``'s ``pkg.key``.
#[pyclass(module = "hopsig.schemes", name = "Pkg", frozen)]
pub struct PyPkg {
    pkg: Pkg,
}

#[pymethods]
impl PyPkg {
    /// Setup: a fresh master secret from the OS CSPRNG.
    #[staticmethod]
    fn setup(py: Python<'_>) -> PyResult<Self> {
        let pkg = py.detach(Pkg::setup).map_err(error)?;
        Ok(PyPkg { pkg })
    }

    /// The public parameters (``params.pub``), a :class:`PublicParams`.
    #[getter]
    fn params(&self) -> PyPublicParams {
        PyPublicParams {
            params: self.pkg.params().clone(),
        }
    }

    /// Extract: the private key of ``identity`` (1 to 1024 bytes of UTF-8, e.g. an
    /// NDN name), a :class:`UserKey`.
    fn extract(&self, py: Python<'_>, identity: &str) -> PyResult<PyUserKey> {
        let key = py.detach(|| self.pkg.extract(identity)).map_err(error)?;
        Ok(PyUserKey::new(key))
    }

    /// The master secret file (``pkg.key``).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.pkg.to_key_file().as_bytes())
    }

    /// Reads a master secret file (``pkg.key``).
    #[staticmethod]
    fn from_bytes(data: Vec<u8>) -> PyResult<Self> {
        let pkg = Pkg::from_key_file(&key_file(&data)?).map_err(error)?;
        Ok(PyPkg { pkg })
    }

    /// Pickles as ``Pkg.from_bytes(pkg.key)``.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        reduce(slf, slf.get().to_bytes(slf.py()))
    }

    fn __repr__(&self) -> String {
        format!(
            "Pkg(fingerprint={:?})",
            hex::encode(self.pkg.params().fingerprint())
        )
    }
}

/// `(type(obj).from_bytes, (bytes,))`: how every object of the package that is its
/// bytes pickles (Dask sends keys and packets between processes).
pub(crate) fn reduce<'py, T: pyo3::PyClass>(
    slf: &Bound<'py, T>,
    bytes: Bound<'py, PyBytes>,
) -> PyResult<Bound<'py, PyTuple>> {
    let py = slf.py();
    let ctor = slf.as_any().getattr("from_bytes")?;
    PyTuple::new(py, [ctor.into_any(), PyTuple::new(py, [bytes])?.into_any()])
}

/// The public parameters of an IBAS PKG (``params.pub``): what verifiers need.
#[pyclass(module = "hopsig.schemes", name = "PublicParams", frozen)]
pub struct PyPublicParams {
    pub(crate) params: PublicParams,
}

#[pymethods]
impl PyPublicParams {
    /// The parameters file (``params.pub``).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.params.to_key_file().as_bytes())
    }

    /// Reads a parameters file (``params.pub``).
    #[staticmethod]
    fn from_bytes(data: Vec<u8>) -> PyResult<Self> {
        let params = PublicParams::from_key_file(&key_file(&data)?).map_err(error)?;
        Ok(PyPublicParams { params })
    }

    /// Q, the 96-byte compressed G2 point.
    #[getter]
    fn q<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.params.to_bytes())
    }

    /// SHA-256 fingerprint of the parameters (names journals and PKGs).
    #[getter]
    fn fingerprint<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.params.fingerprint())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyPublicParams>()
            .is_ok_and(|o| o.get().params == self.params)
    }

    fn __hash__(&self) -> u64 {
        let f = self.params.fingerprint();
        u64::from_be_bytes([f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]])
    }

    /// Pickles as ``PublicParams.from_bytes(params.pub)``.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        reduce(slf, slf.get().to_bytes(slf.py()))
    }

    fn __repr__(&self) -> String {
        format!(
            "PublicParams(fingerprint={:?})",
            hex::encode(self.params.fingerprint())
        )
    }
}

/// An IBAS user key (``hopsig pkg extract``'s file), with an in-memory journal of
/// the state strings w it signed under in this object. Signing two different
/// messages under one w would let anyone forge this identity's signatures, so
/// :func:`sign` refuses it (reason ``"reused-w"``). The in-memory journal lives and
/// dies with the object (a pickled or re-read copy starts empty): a key that signs
/// in several processes, or across runs, passes ``journal=PATH`` (the file
/// ``hopsig sign`` keeps, locked while it is written).
#[pyclass(module = "hopsig.schemes", name = "UserKey", frozen)]
pub struct PyUserKey {
    pub(crate) key: UserKey,
    journal: Mutex<Journal>,
}

impl PyUserKey {
    fn new(key: UserKey) -> Self {
        PyUserKey {
            key,
            journal: Mutex::new(Journal::memory()),
        }
    }

    /// Runs `f` with the journal at `journal` (opened, created if missing) or the
    /// key's own in-memory one.
    fn with_journal<T>(
        &self,
        journal: Option<&PathBuf>,
        f: impl FnOnce(&mut Journal) -> Result<T, Error>,
    ) -> Result<T, Error> {
        match journal {
            Some(path) => f(&mut Journal::open(path, &self.key, NewLog::Allowed)?),
            // A poisoned lock means a signing call panicked; the journal still holds
            // every claim it recorded (a claim is recorded before the signature is
            // made), so it is as safe to use as before.
            None => f(&mut self
                .journal
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)),
        }
    }

    /// Signs `msg` (after `so_far`, under its w; a fresh w for the first signer),
    /// claiming the w in the journal at `journal` or in the key's own memory.
    pub(crate) fn sign_aggregate(
        &self,
        msg: &[u8],
        so_far: Option<&IbasAggregate>,
        journal: Option<&PathBuf>,
    ) -> Result<IbasAggregate, Error> {
        self.with_journal(journal, |j| ibas::sign(&self.key, msg, so_far, j))
    }

    /// The individual signature of `msg` under `w` (`ibas::sign_with_w`).
    fn sign_under(
        &self,
        msg: &[u8],
        w: &[u8; ibas::W_LEN],
        journal: Option<&PathBuf>,
    ) -> Result<IbasAggregate, Error> {
        self.with_journal(journal, |j| ibas::sign_with_w(&self.key, msg, w, j))
    }
}

#[pymethods]
impl PyUserKey {
    /// The identity the key was extracted for.
    #[getter]
    fn identity(&self) -> &str {
        self.key.identity()
    }

    /// The PKG's public parameters the key belongs to.
    #[getter]
    fn params(&self) -> PyPublicParams {
        PyPublicParams {
            params: self.key.params().clone(),
        }
    }

    /// The scheme id, ``"ibas-bls12381"``.
    #[getter]
    fn scheme(&self) -> &'static str {
        ibas::ID
    }

    /// The user key file (``hopsig pkg extract``'s FILE).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.key.to_key_file().as_bytes())
    }

    /// Reads a user key file and checks it against its parameters (two pairing
    /// products). The copy has a fresh in-memory journal.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Vec<u8>) -> PyResult<Self> {
        let file = key_file(&data)?;
        let key = py.detach(|| UserKey::from_key_file(&file)).map_err(error)?;
        Ok(PyUserKey::new(key))
    }

    /// Pickles as ``UserKey.from_bytes(key file)`` (the in-memory journal stays).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        reduce(slf, slf.get().to_bytes(slf.py()))
    }

    fn __repr__(&self) -> String {
        format!("UserKey(identity={:?})", self.key.identity())
    }
}

// ------------------------------------------------------------ functions

/// The scheme table, in ``hopsig schemes`` order: one dict per scheme with ``id``,
/// ``code`` (the aggregate header's scheme code), ``param`` (its default parameter
/// byte), ``kind`` (``"sequential"`` or ``"identity-based"``), ``free`` (whether
/// :func:`aggregate` merges its aggregates) and ``description``.
#[pyfunction]
fn schemes(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    ALL_SCHEMES
        .iter()
        .map(|e| {
            let d = PyDict::new(py);
            d.set_item("id", e.id)?;
            d.set_item("code", u8::from(e.code))?;
            d.set_item("param", e.param.default_byte())?;
            d.set_item(
                "kind",
                match e.kind {
                    Kind::Sequential(_) => "sequential",
                    Kind::IdentityBased => "identity-based",
                },
            )?;
            d.set_item(
                "free",
                matches!(e.code, SchemeCode::Bls12381Bgls | SchemeCode::IbasBls12381),
            )?;
            d.set_item("description", e.description)?;
            Ok(d)
        })
        .collect()
}

/// KeyGen: a fresh key pair of the sequential scheme ``scheme`` (an id of
/// :func:`schemes`, or ``bgr-rand-rsaB-rBITS``), as a :class:`SigningKey`. The GIL
/// is released (an RSA key takes a while). For ``ibas-bls12381`` use
/// ``Pkg.setup().extract(identity)``.
#[pyfunction]
fn keygen(py: Python<'_>, scheme: &str) -> PyResult<PySigningKey> {
    let key = py
        .detach(|| registry::lookup(scheme)?.generate())
        .map_err(error)?;
    Ok(PySigningKey { key })
}

/// One hop of signing (``hopsig sign``): ``key``'s signature on ``message`` added to
/// the aggregate ``so_far`` (``None`` for the first signer), which is not verified
/// (lazy verification). Returns the new aggregate's bytes. ``key`` is a
/// :class:`SigningKey`, or a :class:`UserKey` for ``ibas-bls12381`` (a later IBAS
/// signer signs under ``so_far``'s w; ``w`` instead makes an individual signature
/// under a w a coordinator handed out, for :func:`aggregate`; ``journal`` is the file
/// of w's to claim it in, default the key's in-memory journal).
#[pyfunction]
#[pyo3(signature = (key, message, so_far = None, *, w = None, journal = None))]
fn sign<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
    message: Vec<u8>,
    so_far: Option<Vec<u8>>,
    w: Option<Vec<u8>>,
    journal: Option<PathBuf>,
) -> PyResult<Bound<'py, PyBytes>> {
    if let Ok(user) = key.cast::<PyUserKey>() {
        let user = user.get();
        let w = match (w, &so_far) {
            (None, _) => None,
            (Some(_), Some(_)) => {
                return Err(errors::input(
                    "bad-argument",
                    "give so_far= (sign under its w) or w=, not both",
                ))
            }
            (Some(w), None) => Some(<[u8; ibas::W_LEN]>::try_from(w.as_slice()).map_err(|_| {
                errors::input(
                    "bad-argument",
                    format!("w must be {} bytes, got {}", ibas::W_LEN, w.len()),
                )
            })?),
        };
        let bytes = py
            .detach(|| {
                if let Some(w) = &w {
                    return user.sign_under(&message, w, journal.as_ref());
                }
                let prev = so_far
                    .as_deref()
                    .map(IbasAggregate::from_bytes)
                    .transpose()?;
                user.sign_aggregate(&message, prev.as_ref(), journal.as_ref())
            })
            .map_err(error)?;
        return Ok(PyBytes::new(py, &bytes.to_bytes()));
    }
    let key = key.cast::<PySigningKey>()?.get();
    if journal.is_some() || w.is_some() {
        return Err(errors::input(
            "bad-argument",
            format!(
                "journal= and w= are for ibas-bls12381 keys; this is a {} key",
                key.key.scheme_id()
            ),
        ));
    }
    let bytes = py
        .detach(|| {
            registry::lookup(key.key.scheme_id())?.sign(
                key.key.as_ref(),
                &message,
                so_far.as_deref(),
            )
        })
        .map_err(error)?;
    Ok(PyBytes::new(py, &bytes))
}

/// What a verification was asked: the signers (keys or identities) and messages.
enum Signers {
    /// Sequential: public keys, in signing order.
    Keys(Vec<Py<PyVerifyingKey>>),
    /// IBAS: identities (in any order), under the parameters.
    Identities(Vec<String>, Py<PyPublicParams>),
}

/// One verification: signers, messages, aggregate.
struct Check {
    signers: Signers,
    messages: Vec<Vec<u8>>,
    aggregate: Vec<u8>,
}

impl Check {
    /// From the Python arguments: `pairs` of (key or identity, message).
    fn new(
        pairs: &Bound<'_, PyAny>,
        aggregate: Vec<u8>,
        params: Option<&Bound<'_, PyPublicParams>>,
    ) -> PyResult<Self> {
        let pairs: Vec<(Bound<'_, PyAny>, Vec<u8>)> = pairs.extract()?;
        if pairs.is_empty() {
            return Err(errors::input(
                "bad-argument",
                "give the signers' (key, message) pairs, first signer first",
            ));
        }
        let mut messages = Vec::with_capacity(pairs.len());
        let signers = match params {
            Some(params) => {
                let mut ids = Vec::with_capacity(pairs.len());
                for (id, msg) in pairs {
                    ids.push(id.extract::<String>()?);
                    messages.push(msg);
                }
                Signers::Identities(ids, params.clone().unbind())
            }
            None => {
                let mut keys = Vec::with_capacity(pairs.len());
                for (key, msg) in pairs {
                    if key.cast::<PyPublicParams>().is_ok() || key.extract::<String>().is_ok() {
                        return Err(errors::input(
                            "bad-argument",
                            "ibas-bls12381 pairs are (identity, message): give params=",
                        ));
                    }
                    keys.push(key.cast::<PyVerifyingKey>()?.clone().unbind());
                    messages.push(msg);
                }
                Signers::Keys(keys)
            }
        };
        Ok(Check {
            signers,
            messages,
            aggregate,
        })
    }

    /// `Ok(true)` valid, `Ok(false)` it decodes but does not verify (a different
    /// number of signers included, as `hopsig verify` says "invalid"), `Err` for
    /// input that does not decode or does not belong together.
    fn run(&self) -> Result<bool, Error> {
        let msgs: Vec<&[u8]> = self.messages.iter().map(Vec::as_slice).collect();
        let outcome = match &self.signers {
            Signers::Keys(keys) => {
                let keys: Vec<&dyn DynVerifyingKey> =
                    keys.iter().map(|k| k.get().key.as_ref()).collect();
                let scheme = registry::lookup(keys[0].scheme_id())?;
                let decoded = scheme.decode(&self.aggregate)?;
                if decoded.info().signers != keys.len() {
                    return Ok(false);
                }
                scheme.verify_decoded(&keys, &msgs, &decoded)
            }
            Signers::Identities(ids, params) => {
                let agg = IbasAggregate::from_bytes(&self.aggregate)?;
                let ids = ids
                    .iter()
                    .map(|i| Identity::new(i))
                    .collect::<Result<Vec<_>, _>>()?;
                let pairs: Vec<(&Identity, &[u8])> = ids.iter().zip(msgs).collect();
                ibas::verify(&params.get().params, &pairs, &agg)
            }
        };
        match outcome {
            Ok(()) => Ok(true),
            Err(Error::InvalidSignature) => Ok(false),
            Err(e) => Err(e),
        }
    }
}

/// Ver (``hopsig verify``): whether ``aggregate`` verifies against ``pairs``, the
/// signers' (:class:`VerifyingKey`, message) pairs first signer first — or, with
/// ``params`` (``ibas-bls12381``), their (identity, message) pairs in any order.
/// ``False`` for an aggregate that decodes but does not verify (a different number
/// of signers included); ``InputError`` for one that does not decode (``reason``
/// ``"decode"``) or keys of another scheme. The GIL is released.
#[pyfunction]
#[pyo3(signature = (pairs, aggregate, *, params = None))]
fn verify(
    py: Python<'_>,
    pairs: &Bound<'_, PyAny>,
    aggregate: Vec<u8>,
    params: Option<&Bound<'_, PyPublicParams>>,
) -> PyResult<bool> {
    let check = Check::new(pairs, aggregate, params)?;
    py.detach(|| check.run()).map_err(error)
}

/// :func:`verify` of many independent aggregates on ``threads`` threads (``None``:
/// every core) with the GIL released: ``items`` is a list of ``(pairs, aggregate)``,
/// the result one ``bool`` per item, in order. As in every batch verifier
/// (``hopsig_schemes::batch``), an item that does not decode is one that does not
/// verify (``False``); arguments of the wrong type raise before anything runs.
#[pyfunction]
#[pyo3(signature = (items, *, params = None, threads = None))]
fn verify_many(
    py: Python<'_>,
    items: &Bound<'_, PyAny>,
    params: Option<&Bound<'_, PyPublicParams>>,
    threads: Option<usize>,
) -> PyResult<Vec<bool>> {
    let items: Vec<(Bound<'_, PyAny>, Vec<u8>)> = items.extract()?;
    let checks = items
        .into_iter()
        .map(|(pairs, agg)| Check::new(&pairs, agg, params))
        .collect::<PyResult<Vec<_>>>()?;
    let pool = par::Ordered::new(threads.unwrap_or_else(par::cores));
    Ok(py.detach(|| pool.map(&checks, |c| c.run().unwrap_or(false))))
}

/// Aggregation of the schemes that aggregate freely: one aggregate holding every
/// signature of ``parts`` (aggregate bytes), signer lists concatenated in the order
/// given. BGLS (draft-irtf-cfrg-bls-signature-05 §2.8: the sum of the signatures)
/// and IBAS (004 §2.3: parts under one state string w). ``InputError`` with reason
/// ``"not-free"`` for another scheme, ``"mismatch"`` for IBAS parts under different w.
#[pyfunction]
fn aggregate<'py>(py: Python<'py>, parts: Vec<Vec<u8>>) -> PyResult<Bound<'py, PyBytes>> {
    let Some(first) = parts.first() else {
        return Err(error(Error::NoSigners));
    };
    let header = Header::peek(first).map_err(|e| error(e.into()))?;
    let bytes = py
        .detach(|| -> Result<Option<Vec<u8>>, Error> {
            match header.code {
                SchemeCode::Bls12381Bgls => {
                    let decoded = parts
                        .iter()
                        .map(|p| Bgls.aggregate_from_bytes(p))
                        .collect::<Result<Vec<_>, _>>()?;
                    let refs: Vec<_> = decoded.iter().collect();
                    Ok(Some(Bgls.aggregate(&refs)?.to_bytes()))
                }
                SchemeCode::IbasBls12381 => {
                    let decoded = parts
                        .iter()
                        .map(|p| IbasAggregate::from_bytes(p))
                        .collect::<Result<Vec<_>, _>>()?;
                    let refs: Vec<_> = decoded.iter().collect();
                    Ok(Some(ibas::aggregate(&refs)?.to_bytes()))
                }
                _ => Ok(None),
            }
        })
        .map_err(error)?;
    match bytes {
        Some(b) => Ok(PyBytes::new(py, &b)),
        None => Err(errors::input(
            "not-free",
            format!(
                "{} aggregates only sequentially (sign with so_far=); bls12381-bgls and ibas-bls12381 aggregate freely",
                registry::describe(header.code, header.param)
            ),
        )),
    }
}

/// What an aggregate holds (``hopsig inspect``): a dict with ``scheme``, ``signers``,
/// ``encoded_bytes`` (header included) and ``signature_bits`` (the papers' size,
/// header excluded); for IBAS also ``w`` (the state string). ``InputError`` (reason
/// ``"decode"``) if it does not decode.
#[pyfunction]
fn inspect<'py>(py: Python<'py>, aggregate: Vec<u8>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let header = Header::peek(&aggregate).map_err(|e| error(e.into()))?;
    if header.code == SchemeCode::IbasBls12381 {
        let agg = py
            .detach(|| IbasAggregate::from_bytes(&aggregate))
            .map_err(error)?;
        d.set_item("scheme", ibas::ID)?;
        d.set_item("signers", agg.signers())?;
        d.set_item("encoded_bytes", aggregate.len())?;
        d.set_item("signature_bits", agg.signature_bits())?;
        d.set_item("w", PyBytes::new(py, agg.w()))?;
        return Ok(d);
    }
    let info = py
        .detach(|| registry::for_aggregate(&aggregate)?.inspect(&aggregate))
        .map_err(error)?;
    d.set_item("scheme", info.scheme)?;
    d.set_item("signers", info.signers)?;
    d.set_item("encoded_bytes", info.encoded_bytes)?;
    d.set_item("signature_bits", info.signature_bits)?;
    Ok(d)
}

/// Adds this module's classes and functions to `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySigningKey>()?;
    m.add_class::<PyVerifyingKey>()?;
    m.add_class::<PyPkg>()?;
    m.add_class::<PyPublicParams>()?;
    m.add_class::<PyUserKey>()?;
    m.add_function(wrap_pyfunction!(schemes, m)?)?;
    m.add_function(wrap_pyfunction!(keygen, m)?)?;
    m.add_function(wrap_pyfunction!(sign, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(verify_many, m)?)?;
    m.add_function(wrap_pyfunction!(aggregate, m)?)?;
    m.add_function(wrap_pyfunction!(inspect, m)?)?;
    m.add("IBAS_ID", ibas::ID)?;
    Ok(())
}
