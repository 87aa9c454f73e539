//! Router keys: `SigningKey`, a router's key pair of one algorithm suite (RFC 8608
//! §3.1 for suite 1), and `RouterKeys`, the (AS, SKI, public key) triples a validator
//! looks signatures up by (RFC 8205 §5.2 step 2), from rpki-client's JSON or a keys
//! folder (`hopsig bgpsec keys`), from RTR caches (RFC 8210 Router Key PDUs, as
//! `validate-mrt --rtr`), or added one by one.

use std::path::PathBuf;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use hopsig_bgp::router_key::{self, LoadError, RouterKey};
use hopsig_bgp::rpki::load::{dump_caches, LoadViewError};
use hopsig_bgp::rpki::{view::View, Limits, PayloadSet};
use hopsig_bgp::suite::{self, AlgorithmSuite};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::path::ski_array;
use super::Reduced;
use crate::errors;

/// Largest secret key file read (a PEM key is under 1 KiB; a BGR key a few).
const MAX_KEY_FILE: u64 = 1 << 20;

/// An algorithm suite as Python names it: its identifier (1) or its name
/// (`ecdsa-p256`, the experimental suites of `hopsig_bgp::SUITES`).
#[derive(FromPyObject)]
pub enum SuiteArg {
    /// The Algorithm Suite Identifier.
    Id(u8),
    /// The suite's name.
    Name(String),
}

impl SuiteArg {
    /// The suite of hopsig's table it names.
    pub fn suite(&self) -> PyResult<&'static dyn AlgorithmSuite> {
        let name = match self {
            SuiteArg::Id(id) => id.to_string(),
            SuiteArg::Name(name) => name.clone(),
        };
        suite::named(&name).map_err(|e| errors::input("bad-argument", e))
    }
}

/// A router's signing key of one algorithm suite: the secret, its public key (a DER
/// SubjectPublicKeyInfo) and its Subject Key Identifier (RFC 8209 §3.3: SHA-1 of the
/// public key bits). Its repr shows no secret.
#[pyclass(module = "hopsig.bgpsec", frozen)]
pub struct SigningKey {
    /// The key.
    pub inner: hopsig_bgp::SigningKey,
}

#[pymethods]
impl SigningKey {
    /// A fresh key pair of `suite` (1, ECDSA P-256, by default) from OpenSSL's CSPRNG.
    #[staticmethod]
    #[pyo3(signature = (suite = SuiteArg::Id(1)), text_signature = "(suite=1)")]
    fn generate(py: Python<'_>, suite: SuiteArg) -> PyResult<SigningKey> {
        let suite = suite.suite()?;
        let inner = py
            .detach(|| suite.generate())
            .map_err(|e| errors::input("key", e))?;
        Ok(SigningKey { inner })
    }

    /// The key of a secret key file of `suite`, as `hopsig bgpsec sign-mrt` writes
    /// `AS<n>.key` (suite 1: unencrypted PKCS #8, PEM or DER, as `openssl genpkey`
    /// writes it). `InputError` with reason `io` (unreadable) or `key`.
    #[staticmethod]
    #[pyo3(signature = (path, suite = SuiteArg::Id(1)), text_signature = "(path, suite=1)")]
    fn from_file(path: PathBuf, suite: SuiteArg) -> PyResult<SigningKey> {
        let suite = suite.suite()?;
        let text = hopsig_primitives::input::read_limited(&path, MAX_KEY_FILE, "secret key")
            .map_err(|e| errors::input("io", e))?;
        let inner = suite
            .signing_key_from_file(&text)
            .map_err(|e| errors::input("key", format!("{}: {e}", path.display())))?;
        Ok(SigningKey { inner })
    }

    /// The text of the key's secret key file, what `from_file` reads back. Handle it
    /// as the secret it is.
    fn secret_key_file(&self) -> PyResult<String> {
        Ok(self.secret_text()?.to_string())
    }

    /// The Algorithm Suite Identifier the key signs blocks of.
    #[getter]
    fn suite(&self) -> u8 {
        self.inner.suite()
    }

    /// The Subject Key Identifier (20 octets) its Signature Segments carry.
    #[getter]
    fn ski<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.ski())
    }

    /// The public key: a DER SubjectPublicKeyInfo, what `RouterKeys.add` takes.
    fn public_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.spki())
    }

    fn __repr__(&self) -> String {
        format!(
            "SigningKey(suite={}, ski={})",
            self.inner.suite(),
            hex::encode_upper(self.inner.ski())
        )
    }
}

impl SigningKey {
    /// The key's suite.
    fn suite_entry(&self) -> PyResult<&'static dyn AlgorithmSuite> {
        suite::by_id(self.inner.suite()).ok_or_else(|| {
            errors::input(
                "key",
                format!("suite {} is not one of hopsig's", self.inner.suite()),
            )
        })
    }

    /// The secret key file's text.
    fn secret_text(&self) -> PyResult<zeroize::Zeroizing<String>> {
        self.suite_entry()?
            .secret_key_file(&self.inner)
            .map_err(|e| errors::input("key", e))
    }

    /// A second copy of the key (through its secret key file: the library's keys are
    /// not `Clone`, as a copy of a secret should be deliberate), with its suite.
    pub fn duplicate(&self) -> PyResult<(&'static dyn AlgorithmSuite, hopsig_bgp::SigningKey)> {
        let suite = self.suite_entry()?;
        let text = self.secret_text()?;
        let key = suite
            .signing_key_from_file(text.as_bytes())
            .map_err(|e| errors::input("key", e))?;
        Ok((suite, key))
    }
}

/// The router keys a validator trusts: (AS, SKI, public key) triples, looked up by
/// AS and SKI (RFC 8205 §5.2 step 2). `RouterKeys(entries)` takes
/// `(asn, ski, public_key)` tuples, as `entries()` gives them.
#[pyclass(module = "hopsig.bgpsec", frozen)]
pub struct RouterKeys {
    /// The keys; replaced (copy on write) by `add`, so a validation running on other
    /// threads keeps the set it started with.
    inner: RwLock<Arc<hopsig_bgp::RouterKeys>>,
}

/// One triple as Python gives it.
type Entry = (u32, Vec<u8>, Vec<u8>);

/// One triple as Python is given it: `(asn, ski, public_key)`.
type PyEntry<'py> = (u32, Bound<'py, PyBytes>, Bound<'py, PyBytes>);

#[pymethods]
impl RouterKeys {
    /// Keys of these `(asn, ski, public_key)` triples (none by default).
    #[new]
    #[pyo3(signature = (entries = Vec::new()), text_signature = "(entries=())")]
    fn new(entries: Vec<Entry>) -> PyResult<RouterKeys> {
        let mut keys = hopsig_bgp::RouterKeys::new();
        for (asn, ski, spki) in entries {
            keys.insert(RouterKey::new(asn, ski_array(&ski)?, &spki));
        }
        Ok(RouterKeys::of(keys))
    }

    /// Adds the key `public_key` (a DER SubjectPublicKeyInfo) of `asn` with `ski`
    /// (its router certificate's SKI; `None` computes it from the key, RFC 8209 §3.3).
    #[pyo3(signature = (asn, ski, public_key))]
    fn add(&self, asn: u32, ski: Option<&[u8]>, public_key: &[u8]) -> PyResult<()> {
        let key = match ski {
            Some(ski) => RouterKey::new(asn, ski_array(ski)?, public_key),
            None => RouterKey::from_spki(asn, public_key)
                .map_err(|e| errors::input("key", format!("AS{asn}: {e}")))?,
        };
        let mut guard = self.inner.write().unwrap_or_else(PoisonError::into_inner);
        Arc::make_mut(&mut guard).insert(key);
        Ok(())
    }

    /// The keys of rpki-client's JSON output (`bgpsec_keys`) or of a keys folder
    /// (router certificates, `AS<n>.pem` public keys), valid at `at` (Unix seconds;
    /// default now), as `hopsig bgpsec keys PATH` lists them. `InputError` with reason
    /// `io` (unreadable) or `keys` (not such a file), naming the file.
    #[staticmethod]
    #[pyo3(signature = (path, at = None))]
    fn load(py: Python<'_>, path: PathBuf, at: Option<i64>) -> PyResult<RouterKeys> {
        let loaded = py.detach(|| router_key::load(&path, at)).map_err(|e| {
            let reason = match e {
                LoadError::Read(_) => "io",
                _ => "keys",
            };
            errors::input(reason, e)
        })?;
        Ok(RouterKeys::of(loaded.keys))
    }

    /// The router keys of RTR caches (`"host:port"` or `"[v6]:port"` each): one
    /// Reset Query per cache, read to End of Data (RFC 8210 §8.1), merged as
    /// `validate-mrt --rtr` merges them (docs/spec/rpki.md, "Merge rules"); at most
    /// `timeout` seconds per cache. `InputError` with reason `rtr` naming the cache.
    #[staticmethod]
    #[pyo3(signature = (caches, timeout = 120.0))]
    fn from_rtr(py: Python<'_>, caches: Vec<String>, timeout: f64) -> PyResult<RouterKeys> {
        let timeout = Duration::try_from_secs_f64(timeout)
            .map_err(|e| errors::input("bad-argument", format!("timeout: {e}")))?;
        let keys = py.detach(|| rtr_keys(&caches, timeout))?;
        Ok(RouterKeys::of(keys))
    }

    /// The triples `(asn, ski, public_key)`, sorted by AS and SKI.
    fn entries<'py>(&self, py: Python<'py>) -> Vec<PyEntry<'py>> {
        let keys = self.snapshot();
        let mut all: Vec<&RouterKey> = keys.iter().collect();
        all.sort_unstable_by(|a, b| (a.asn(), a.ski()).cmp(&(b.asn(), b.ski())));
        all.into_iter()
            .map(|k| {
                (
                    k.asn(),
                    PyBytes::new(py, k.ski()),
                    PyBytes::new(py, k.spki()),
                )
            })
            .collect()
    }

    /// The keys as rpki-client's JSON (`{"bgpsec_keys": [...]}`), what `load` reads.
    fn to_json(&self) -> String {
        let keys = self.snapshot();
        let mut all: Vec<RouterKey> = keys.iter().cloned().collect();
        all.sort_unstable_by(|a, b| (a.asn(), a.ski()).cmp(&(b.asn(), b.ski())));
        router_key::to_rpki_json(&all)
    }

    fn __len__(&self) -> usize {
        self.snapshot().len()
    }

    fn __repr__(&self) -> String {
        format!("RouterKeys(<{} keys>)", self.snapshot().len())
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> Reduced<'py, (Vec<PyEntry<'py>>,)> {
        (slf.get_type().into_any(), (slf.get().entries(slf.py()),))
    }
}

impl RouterKeys {
    /// A Python object of `keys`.
    fn of(keys: hopsig_bgp::RouterKeys) -> RouterKeys {
        RouterKeys {
            inner: RwLock::new(Arc::new(keys)),
        }
    }

    /// The keys as they are now, shared with the caller (a validation on other
    /// threads holds its own `Arc`).
    pub fn snapshot(&self) -> Arc<hopsig_bgp::RouterKeys> {
        Arc::clone(&self.inner.read().unwrap_or_else(PoisonError::into_inner))
    }
}

/// One dump of each cache, merged, as router keys (`validate-mrt --rtr`'s
/// [`hopsig_bgp::rpki::load::dump_caches`]).
fn rtr_keys(caches: &[String], timeout: Duration) -> PyResult<hopsig_bgp::RouterKeys> {
    let merged = dump_caches(caches, timeout).map_err(|e| {
        let reason = match e {
            LoadViewError::Address(_) => "bad-argument",
            _ => "rtr",
        };
        errors::input(reason, e)
    })?;
    let view = View::build(&PayloadSet::new(), &merged, &[], &Limits::default())
        .map_err(|e| errors::input("rtr", format!("RPKI data: {e}")))?;
    Ok(view.router_keys().clone())
}
