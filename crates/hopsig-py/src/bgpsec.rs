//! `hopsig.bgpsec` (native half): see TEAM27.md — being written.

use pyo3::prelude::*;

/// Adds this module's classes and functions to `m`.
pub fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
