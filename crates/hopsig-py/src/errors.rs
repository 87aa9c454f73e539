//! The exceptions of `hopsig.errors`: the CLI's two exit classes as Python types,
//! each error carrying the short reason the CLI reports (docs/guide/python.md,
//! "Errors").
//!
//! | exception | CLI exit | raised for |
//! |---|---|---|
//! | `HopsigError` | — | base class of the two below |
//! | `InvalidError` | 1 | a signature or path that does not verify, when the call raises rather than returning a verdict |
//! | `InputError` | 2 | bad arguments, unreadable or malformed input (a file that cannot be opened, bytes that do not decode, a key of the wrong suite) |
//!
//! Every instance has `reason` (a short stable name, e.g. `"truncated"`, `"no-router-key"`,
//! or the decoder's error kind) and `exit_code` (1 or 2, as the class says);
//! `str(e)` is the CLI's message, naming the file where there is one.

use std::fmt::Display;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    hopsig,
    HopsigError,
    PyException,
    "Any error hopsig raises; `reason` names it, `exit_code` is the CLI's exit status."
);
create_exception!(
    hopsig,
    InvalidError,
    HopsigError,
    "A signature or path that does not verify (the CLI's exit status 1)."
);
create_exception!(
    hopsig,
    InputError,
    HopsigError,
    "Bad arguments, or input that cannot be read or decoded (the CLI's exit status 2)."
);

/// An [`InputError`] with `reason` and the message `message`.
pub fn input(reason: &str, message: impl Display) -> PyErr {
    with_reason(InputError::new_err(message.to_string()), reason)
}

/// An [`InvalidError`] with `reason` and the message `message`.
pub fn invalid(reason: &str, message: impl Display) -> PyErr {
    with_reason(InvalidError::new_err(message.to_string()), reason)
}

/// `err` with its `reason` attribute set.
fn with_reason(err: PyErr, reason: &str) -> PyErr {
    Python::attach(|py| {
        // Setting an attribute of a fresh exception instance cannot fail but for
        // memory; the error then still has its type and message.
        let _ = err.value(py).setattr("reason", reason);
    });
    err
}

/// Adds the three exception types, with their `exit_code` class attributes and a
/// default `reason` of `None`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    for (name, ty, code) in [
        ("HopsigError", py.get_type::<HopsigError>(), None),
        ("InvalidError", py.get_type::<InvalidError>(), Some(1)),
        ("InputError", py.get_type::<InputError>(), Some(2)),
    ] {
        ty.setattr("exit_code", code)?;
        ty.setattr("reason", py.None())?;
        m.add(name, ty)?;
    }
    Ok(())
}
