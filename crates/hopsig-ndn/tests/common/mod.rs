//! What the hopsig-ndn tests share: the repository root, the Python interpreter
//! of the interop tests, and the hostile packets of issue 22 ([`hostile`]).

#![allow(dead_code)]

pub mod hostile;

/// The repository root, and the interpreter of the interop tests (`$HOPSIG_PYTHON`,
/// else `.venv-ci/bin/python`, else `python3`, if `import {modules}` works in it;
/// otherwise the test says it skips, and fails under CI).
#[allow(unused_imports)]
pub use hopsig_testkit::{python, root};
