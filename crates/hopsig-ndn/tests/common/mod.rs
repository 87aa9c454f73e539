//! What the hopsig-ndn tests share: the repository root, the Python interpreter
//! of the interop tests, and the hostile packets of issue 22 ([`hostile`]).

#![allow(dead_code)]

pub mod hostile;

use std::path::PathBuf;
use std::process::Command;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The interpreter — `$HOPSIG_PYTHON` (.ci/run's venv), else `.venv-ci/bin/python`,
/// else `python3` — if `import {modules}` works in it. Otherwise the test says it
/// skips, and fails under CI=true.
pub fn python(modules: &str) -> Option<String> {
    let fallback = root().join(".venv-ci/bin/python");
    let py = std::env::var("HOPSIG_PYTHON").ok().unwrap_or_else(|| {
        let local = fallback.exists().then(|| fallback.display().to_string());
        local.unwrap_or_else(|| "python3".into())
    });
    let probe = format!("import {modules}");
    let has = Command::new(&py).args(["-c", &probe]).output();
    if has.is_ok_and(|o| o.status.success()) {
        return Some(py);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI needs {py} with `{probe}` (.ci/run installs it)"
    );
    eprintln!("skipped: {py} cannot `{probe}` (CI runs this)");
    None
}
