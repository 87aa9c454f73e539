//! `hopsig.engine` (native half): the whole-file jobs one task of a distributed run
//! does — validate an MRT file (RFC 8205 §5.2), sign one (RFC 8205 §4.2), the ASes
//! signing needs keys for, keys generated into a shared folder, and the KC-x trace
//! replay (§V).
//!
//! Each job runs with the GIL released from start to end, on the library's own
//! thread pools (`threads=None`: every core). The summaries are the CLI's `--json`
//! documents, built by the library (`hopsig_bgp::trace::summary`), handed to Python
//! as JSON text (python/hopsig/engine.py parses them), so the two cannot drift
//! apart. A `progress` callable is called with the records done so far, the GIL
//! taken back for it at most [`PROGRESS_EVERY`] apart, and once at the end.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hopsig_bench::replay::hop::{check_scheme, SCHEMES};
use hopsig_bench::replay::queue::Mode;
use hopsig_bench::replay::run::{run as run_replay, PeerChoice, Request};
use hopsig_bgp::cache::{parse_size, SignatureCache};
use hopsig_bgp::mrt::OpenError;
use hopsig_bgp::rpki::aspa::Relation;
use hopsig_bgp::rpki::load::{load_view, LoadViewError};
use hopsig_bgp::rpki::source::SourceError;
use hopsig_bgp::rpki::view::View;
use hopsig_bgp::suite::AlgorithmSuite;
use hopsig_bgp::trace::keys_folder::{KeysFolder, KeysFolderError};
use hopsig_bgp::trace::sign::SignMrtError;
use hopsig_bgp::trace::validate::Outcome;
use hopsig_bgp::trace::{
    route_ases, sign_mrt as sign_stream, validate_mrt_cached, validate_mrt_rpki_cached, EachRecord,
    Keyring, SignOptions, SignReport, SignRun, ValidateRun,
};
use hopsig_primitives::persist::{Outputs, PersistError, Replace, Secrecy};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors;

mod loaded_keys;

/// Least time between two calls of a job's `progress` callable.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);
/// The AS the newest signature targets where a record does not name the collector's
/// (RIB dumps): RIPE RIS's, as `hopsig bgpsec sign-mrt --target-as`'s default.
const DEFAULT_TARGET_AS: u32 = 12_654;

/// A `progress` callable, called with the GIL taken back at most every
/// [`PROGRESS_EVERY`]; the first exception it raises stops the calls and is raised
/// when the job ends.
struct Callback {
    call: Option<Py<PyAny>>,
    last: Option<Instant>,
    failed: Option<PyErr>,
}

impl Callback {
    fn new(call: Option<Py<PyAny>>) -> Callback {
        Callback {
            call,
            last: None,
            failed: None,
        }
    }

    /// Calls it with `done`, unless it was called less than [`PROGRESS_EVERY`] ago
    /// (`force` calls it anyway: the last report).
    fn report(&mut self, done: u64, force: bool) {
        let Some(call) = &self.call else { return };
        if self.failed.is_some()
            || (!force && self.last.is_some_and(|t| t.elapsed() < PROGRESS_EVERY))
        {
            return;
        }
        self.last = Some(Instant::now());
        if let Err(e) = Python::attach(|py| call.call1(py, (done,))) {
            self.failed = Some(e);
        }
    }

    /// The exception it raised, if any.
    fn finish(self) -> PyResult<()> {
        self.failed.map_or(Ok(()), Err)
    }
}

/// A size in bytes: an int, or text such as `"64MiB"` (`--signature-cache`).
#[derive(FromPyObject)]
enum Size {
    Bytes(usize),
    Text(String),
}

/// An algorithm suite: its number or its name (`--suite`).
#[derive(FromPyObject)]
enum SuiteId {
    Number(u8),
    Name(String),
}

/// The suite `id` names, or InputError `bad-argument`.
fn suite_of(id: &SuiteId) -> PyResult<&'static dyn AlgorithmSuite> {
    let text = match id {
        SuiteId::Number(n) => n.to_string(),
        SuiteId::Name(s) => s.clone(),
    };
    hopsig_bgp::suite::named(&text).map_err(|e| errors::input("bad-argument", e))
}

/// `threads`, or every core; 0 is InputError `bad-argument`.
fn threads_of(threads: Option<usize>) -> PyResult<usize> {
    match threads {
        None => Ok(hopsig_primitives::par::cores()),
        Some(0) => Err(errors::input(
            "bad-argument",
            "threads must be at least 1 (None: every core)",
        )),
        Some(n) => Ok(n),
    }
}

/// The MRT file `path`, opened and its compression detected; InputError `io` if it
/// cannot be opened, `mrt` if it is not MRT.
fn open_mrt(path: &Path) -> PyResult<hopsig_bgp::mrt::MrtFile> {
    hopsig_bgp::mrt::open(path).map_err(|e| match e {
        OpenError::File(_) => errors::input("io", e),
        other => errors::input("mrt", other),
    })
}

/// A keys folder error as InputError: `io` for a file that cannot be read or
/// written, `key` for a key file of another suite.
fn keys_folder_error(e: KeysFolderError) -> PyErr {
    match e {
        KeysFolderError::Key { .. } => errors::input("key", e),
        other => errors::input("io", other),
    }
}

/// A file that cannot be written, as InputError `io`.
fn persist_error(e: PersistError) -> PyErr {
    errors::input("io", e)
}

/// Per-UPDATE verdicts as columns (`verdicts=True`): record, bgpsec, reason,
/// signatures, detail.
#[derive(Default)]
struct Verdicts {
    record: Vec<u64>,
    valid: Vec<bool>,
    reason: Vec<Option<&'static str>>,
    signatures: Vec<Option<usize>>,
    detail: Vec<Option<String>>,
}

impl Verdicts {
    /// Adds record `record`'s outcome if it is an UPDATE validated.
    fn push(&mut self, record: u64, outcome: &Outcome) {
        let (valid, reason, signatures, detail) = match outcome {
            Outcome::Skipped(_) => return,
            Outcome::Valid(n) => (true, None, Some(*n), None),
            Outcome::NotValid(reason, detail) => (false, Some(*reason), None, Some(detail.clone())),
        };
        self.record.push(record);
        self.valid.push(valid);
        self.reason.push(reason);
        self.signatures.push(signatures);
        self.detail.push(detail);
    }

    /// The columns as a dict of equal-length lists.
    fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("record", PyList::new(py, self.record)?)?;
        let bgpsec = self
            .valid
            .iter()
            .map(|&v| if v { "valid" } else { "not-valid" });
        d.set_item("bgpsec", PyList::new(py, bgpsec)?)?;
        d.set_item("reason", PyList::new(py, self.reason)?)?;
        d.set_item("signatures", PyList::new(py, self.signatures)?)?;
        d.set_item("detail", PyList::new(py, self.detail)?)?;
        Ok(d)
    }
}

/// The router keys of a validation: from a keys file or folder, or an RPKI view
/// (`rpki=`, `rtr=`: with route origin validation and ASPA verification too).
enum Keys {
    Files(std::sync::Arc<hopsig_bgp::RouterKeys>),
    View(Box<View>),
}

/// A view that cannot be made, as InputError: `rtr` for a cache that fails,
/// `bad-argument` for an address that is not HOST:PORT, `rpki` otherwise.
fn view_error(e: LoadViewError) -> PyErr {
    let reason = match &e {
        LoadViewError::Address(_) => "bad-argument",
        LoadViewError::Rtr { .. } => "rtr",
        LoadViewError::Files(SourceError::Read(_)) => "io",
        _ => "rpki",
    };
    errors::input(reason, e)
}

/// Validates every UPDATE of the MRT file `path` (the native half of
/// `hopsig.engine.validate_mrt`): the summary as JSON text, and the verdict columns
/// when `verdicts`.
#[pyfunction]
#[pyo3(signature = (path, keys=None, *, rpki=Vec::new(), rtr=Vec::new(), role="peer", at=None, threads=None, signature_cache=None, verdicts=false, progress=None))]
#[allow(clippy::too_many_arguments)]
fn validate_mrt<'py>(
    py: Python<'py>,
    path: PathBuf,
    keys: Option<PathBuf>,
    rpki: Vec<PathBuf>,
    rtr: Vec<String>,
    role: &str,
    at: Option<i64>,
    threads: Option<usize>,
    signature_cache: Option<Size>,
    verdicts: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<(String, Option<Bound<'py, PyDict>>)> {
    let threads = threads_of(threads)?;
    let budget = match signature_cache {
        None => 64 << 20,
        Some(Size::Bytes(n)) => n,
        Some(Size::Text(t)) => parse_size(&t)
            .map_err(|e| errors::input("bad-argument", format!("signature_cache: {e}")))?,
    };
    let rpki_mode = !rpki.is_empty() || !rtr.is_empty();
    let role: Relation = role.parse().map_err(|_| {
        errors::input(
            "bad-argument",
            format!("role takes customer, peer, provider, rs or rs-client, not '{role}'"),
        )
    })?;
    let mut callback = Callback::new(progress);
    let job = py.detach(|| {
        let keys_of = if rpki_mode {
            Keys::View(Box::new(
                load_view(keys.as_deref(), &rpki, &rtr, at).map_err(view_error)?,
            ))
        } else {
            match &keys {
                Some(k) => Keys::Files(loaded_keys::load(k, at).map_err(|e| {
                    let reason = if k.exists() { "keys" } else { "io" };
                    errors::input(reason, e)
                })?),
                None => Keys::Files(std::sync::Arc::new(hopsig_bgp::RouterKeys::new())),
            }
        };
        let input = open_mrt(&path)?;
        let clock = input.progress("validate-mrt");
        let cache = SignatureCache::new(budget);
        let mut columns = Verdicts::default();
        let mut each = |record: u64, outcome: &Outcome| columns.push(record, outcome);
        let mut tick = |done| callback.report(done, false);
        let each: Option<EachRecord<'_>> = if verdicts { Some(&mut each) } else { None };
        let report = match &keys_of {
            Keys::Files(router_keys) => validate_mrt_cached(
                input.reader,
                &**router_keys,
                &cache,
                threads,
                &mut tick,
                each,
            ),
            Keys::View(view) => {
                validate_mrt_rpki_cached(input.reader, view, role, &cache, threads, &mut tick, each)
            }
        }
        .map_err(|e| errors::input("mrt", format!("{}: {e}", path.display())))?;
        callback.report(report.records, true);
        let seconds = clock.seconds();
        if report.updates == 0 {
            return Err(errors::input(
                "no-update",
                format!(
                    "{}: no UPDATE announcing a route in {} MRT records",
                    path.display(),
                    report.records
                ),
            ));
        }
        let mut json = report.to_json(&ValidateRun {
            file: &path,
            keys: keys.as_deref(),
            router_keys: match &keys_of {
                Keys::Files(k) => k.len(),
                Keys::View(v) => v.router_keys().len(),
            },
            threads,
            seconds,
            cache: &cache.stats(),
        });
        if let Keys::View(view) = &keys_of {
            report.add_rpki_json(&mut json, view, role);
        }
        Ok((json.to_string(), verdicts.then_some(columns)))
    });
    callback.finish()?;
    let (json, columns) = job?;
    let columns = columns.map(|c| c.into_dict(py)).transpose()?;
    Ok((json, columns))
}

/// Signs `path` into the staged `out` with `keyring`.
fn sign_into(
    path: &Path,
    out: &Path,
    keyring: &mut Keyring,
    options: &SignOptions,
    callback: &mut Callback,
) -> PyResult<(Outputs, SignReport)> {
    let input = open_mrt(path)?;
    let mut files = Outputs::new(Replace::Force);
    files.input(path);
    let mut report = SignReport::default();
    let mut failed: Option<SignMrtError> = None;
    let staged = files.add_with(out, Secrecy::Public, |w| {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, w);
        let mut show = |r: &SignReport| callback.report(r.records, false);
        match sign_stream(input.reader, &mut w, keyring, options, &mut show) {
            Ok(r) => report = r,
            Err(SignMrtError::Write(e)) => return Err(e),
            Err(e) => {
                failed = Some(e);
                return Err(std::io::Error::other("signing stopped"));
            }
        }
        std::io::Write::flush(&mut w)
    });
    if let Some(e) = failed {
        return Err(match e {
            SignMrtError::NoKey { asn } => errors::input(
                "no-router-key",
                format!(
                    "{}: no router key for AS{asn} in the keys folder, and generate=False",
                    path.display()
                ),
            ),
            SignMrtError::Read(e) => errors::input("mrt", format!("{}: {e}", path.display())),
            other => errors::input("sign", format!("{}: {other}", path.display())),
        });
    }
    staged.map_err(persist_error)?;
    callback.report(report.records, true);
    Ok((files, report))
}

/// Signs every announcement of the MRT file `path` into `out` with the keys of the
/// folder `keys_dir` (the native half of `hopsig.engine.sign_mrt`): the summary as
/// JSON text.
#[pyfunction]
#[pyo3(signature = (path, out, keys_dir, *, suite=SuiteId::Number(1), generate=true, limit=None, threads=None, target_as=DEFAULT_TARGET_AS, progress=None))]
#[allow(clippy::too_many_arguments)]
fn sign_mrt(
    py: Python<'_>,
    path: PathBuf,
    out: PathBuf,
    keys_dir: PathBuf,
    suite: SuiteId,
    generate: bool,
    limit: Option<u64>,
    threads: Option<usize>,
    target_as: u32,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let suite = suite_of(&suite)?;
    let threads = threads_of(threads)?;
    let mut callback = Callback::new(progress);
    let job = py.detach(|| {
        let started = Instant::now();
        let mut keyring = Keyring::new(suite);
        if !generate {
            keyring = keyring.fixed();
        }
        let mut folder =
            KeysFolder::open(&keys_dir, &mut keyring, threads).map_err(keys_folder_error)?;
        let options = SignOptions {
            default_target_as: target_as,
            limit,
            threads,
        };
        let (mut files, mut report) =
            sign_into(&path, &out, &mut keyring, &options, &mut callback)?;
        if report.announcements == 0 {
            return Err(errors::input(
                "no-announcement",
                format!(
                    "{}: no announcement in {} MRT records",
                    path.display(),
                    report.records
                ),
            ));
        }
        if generate {
            let saved = folder.save(&mut keyring).map_err(keys_folder_error)?;
            if !saved.replaced.is_empty() {
                // Another writer saved keys for some of these ASes first: sign again
                // with the folder's keys, which the keyring now holds.
                let generated = report.keys_generated;
                drop(files);
                (files, report) = sign_into(&path, &out, &mut keyring, &options, &mut callback)?;
                report.keys_generated = generated;
            }
        }
        let seconds = started.elapsed().as_secs_f64();
        files.commit().map_err(persist_error)?;
        let json = report.to_json(&SignRun {
            input: &path,
            output: &out,
            keys: &keys_dir,
            suite: suite.id(),
            suite_name: suite.name(),
            router_keys: keyring.len(),
            threads,
            seconds,
        });
        Ok(json.to_string())
    });
    callback.finish()?;
    job
}

/// The ASes signing every announcement of the MRT file `path` needs keys for,
/// ascending (the ASes on the AS paths of the announcements BGPsec can sign).
#[pyfunction]
#[pyo3(signature = (path, *, target_as=DEFAULT_TARGET_AS))]
fn mrt_ases(py: Python<'_>, path: PathBuf, target_as: u32) -> PyResult<Vec<u32>> {
    py.detach(|| {
        let input = open_mrt(&path)?;
        let ases = route_ases(input.reader, target_as)
            .map_err(|e| errors::input("mrt", format!("{}: {e}", path.display())))?;
        Ok(ases.into_iter().collect())
    })
}

/// Generates a key for every AS of `ases` that has none in the keys folder
/// `keys_dir`, and adds them to it; returns how many this call added.
#[pyfunction]
#[pyo3(signature = (keys_dir, ases, *, suite=SuiteId::Number(1), threads=None))]
fn generate_keys(
    py: Python<'_>,
    keys_dir: PathBuf,
    ases: Vec<u32>,
    suite: SuiteId,
    threads: Option<usize>,
) -> PyResult<usize> {
    let suite = suite_of(&suite)?;
    let threads = threads_of(threads)?;
    py.detach(|| {
        let mut keyring = Keyring::new(suite);
        let mut folder =
            KeysFolder::open(&keys_dir, &mut keyring, threads).map_err(keys_folder_error)?;
        keyring
            .generate(&ases, threads)
            .map_err(|e| errors::input("key", format!("key generation: {e}")))?;
        let saved = folder.save(&mut keyring).map_err(keys_folder_error)?;
        Ok(saved.written)
    })
}

/// Replays one peer of the MRT file `path` through a router for each scheme (KC-x
/// §V-A-3; the native half of `hopsig.engine.replay`): `hopsig replay --json`'s
/// document as JSON text.
#[pyfunction]
#[pyo3(signature = (path, *, schemes=None, peer="median", mode="lazy", threads=1, speedup=1.0, limit=None, rib=None, rtr=Vec::new(), batch=1))]
#[allow(clippy::too_many_arguments)]
fn replay(
    py: Python<'_>,
    path: PathBuf,
    schemes: Option<Vec<String>>,
    peer: &str,
    mode: &str,
    threads: usize,
    speedup: f64,
    limit: Option<usize>,
    rib: Option<PathBuf>,
    rtr: Vec<String>,
    batch: usize,
) -> PyResult<String> {
    let bad = |m: String| errors::input("bad-argument", m);
    if !(speedup.is_finite() && speedup > 0.0) {
        return Err(bad(format!(
            "speedup must be a positive number, not {speedup}"
        )));
    }
    if threads == 0 || limit == Some(0) || batch == 0 {
        return Err(bad("threads, limit and batch must be at least 1".into()));
    }
    let names: Vec<&'static str> = match &schemes {
        None => SCHEMES.iter().map(|s| s.name).collect(),
        Some(list) => list
            .iter()
            .map(|s| check_scheme(s.trim()).map(|e| e.name))
            .collect::<Result<_, _>>()
            .map_err(|e| bad(e.to_string()))?,
    };
    let peer: PeerChoice = peer.parse().map_err(|()| {
        bad(format!(
            "peer takes an AS number, 'median' or 'busiest', not '{peer}'"
        ))
    })?;
    let mode = match mode {
        "lazy" => Mode::Lazy,
        "strict" => Mode::Strict,
        other => return Err(bad(format!("mode takes 'lazy' or 'strict', not '{other}'"))),
    };
    py.detach(|| {
        // Opened first, so that a missing file or one that is not MRT has its reason.
        for file in std::iter::once(&path).chain(rib.as_ref()) {
            open_mrt(file)?;
        }
        let cached = if rtr.is_empty() {
            None
        } else {
            let view = load_view(None, &[], &rtr, None).map_err(view_error)?;
            Some(view.router_keys().clone())
        };
        let run = run_replay(&Request {
            mrt: &path,
            schemes: &names,
            peer,
            mode,
            threads,
            speedup,
            limit,
            rib: rib.as_deref(),
            router_keys: cached.as_ref(),
            batch,
        })
        .map_err(replay_error)?;
        Ok(run.to_json().to_string())
    })
}

/// A replay that failed, as InputError: `mrt` for a record that does not decode or
/// a file without announcements, `replay` otherwise (a peer not in the file, a
/// scheme that fails). Files that cannot be opened were refused before
/// ([`open_mrt`]).
fn replay_error(e: hopsig_bench::Error) -> PyErr {
    let reason = match &e {
        hopsig_bench::Error::File { message, .. }
            if message.starts_with("MRT record") || message.starts_with("no announcements") =>
        {
            "mrt"
        }
        _ => "replay",
    };
    errors::input(reason, e)
}

/// Adds this module's classes and functions to `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate_mrt, m)?)?;
    m.add_function(wrap_pyfunction!(sign_mrt, m)?)?;
    m.add_function(wrap_pyfunction!(mrt_ases, m)?)?;
    m.add_function(wrap_pyfunction!(generate_keys, m)?)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    Ok(())
}
