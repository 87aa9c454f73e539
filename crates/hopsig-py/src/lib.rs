//! `hopsig._native`: the extension module behind the Python package `hopsig`
//! (python/hopsig), built by maturin over the library crates — never by calling the
//! CLI. Each submodule here is one Python module's native half:
//!
//! | module | what | file |
//! |---|---|---|
//! | `hopsig.errors` | exceptions with the CLI's reasons and exit classes | `errors.rs` |
//! | `hopsig.bgpsec` | UPDATE / BGPsec_PATH objects, signing, validation, verdicts | `bgpsec.rs` |
//! | `hopsig.mrt` | MRT records and announcements (pybgpkit-parser's fields), Arrow columns | `mrt.rs` |
//! | `hopsig.engine` | whole-file jobs: `validate_mrt`, `sign_mrt`, `replay` | `engine.rs` |
//! | `hopsig.schemes` | every scheme of the registry: keygen, sign, verify, aggregate | `schemes.rs` |
//! | `hopsig.pla` | implicit certificates, PLA header verification | `pla.rs` |
//! | `hopsig.ndn` | NDN packets, IBAS signatures | `ndn.rs` |
//!
//! The GIL is released ([`Python::detach`]) around every batch of cryptography, so
//! Python threads (and a batch call's own worker threads) run on every core.
//! docs/guide/python.md is the user's guide; the `.pyi` stubs beside the Python
//! modules are the typed API.

use pyo3::prelude::*;

mod bgpsec;
mod engine;
mod errors;
mod mrt;
mod ndn;
mod pla;
mod schemes;

/// A submodule's registration: adds its classes and functions to `m`.
type Register = fn(&Bound<'_, PyModule>) -> PyResult<()>;

/// The submodules, each named for the Python module that re-exports it.
const SUBMODULES: [(&str, Register); 7] = [
    ("errors", errors::register),
    ("bgpsec", bgpsec::register),
    ("mrt", mrt::register),
    ("engine", engine::register),
    ("schemes", schemes::register),
    ("pla", pla::register),
    ("ndn", ndn::register),
];

/// The extension module: its version, and one submodule per Python module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    for (name, register) in SUBMODULES {
        let sub = PyModule::new(m.py(), name)?;
        register(&sub)?;
        m.add_submodule(&sub)?;
    }
    Ok(())
}
