//! `hopsig batch validate-mrt`: the CLI front of `hopsig.distributed`. It runs
//! `PYTHON -m hopsig.batch` (PYTHON = --python, $HOPSIG_BATCH_PYTHON, python3) and
//! passes its exit status through; without the package it exits 2 with the install
//! command.
//!
//! The runs on a local Dask cluster need a Python with the hopsig package and Dask:
//! $HOPSIG_BATCH_PYTHON (.ci/run sets it to the venv it installs the wheel in), else
//! the repository's `.venv-py/bin/python`; missing, the tests say they are skipped, and
//! fail under CI=true.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;

use common::{code, have_args, stderr, stdout, text, Scratch};

const SMALL: &str = "ris-updates.20100722.2015.gz";

/// The Python that has hopsig with Dask, or None (skipped; a failure under CI=true).
fn batch_python(test: &str) -> Option<String> {
    let python = std::env::var("HOPSIG_BATCH_PYTHON")
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../.venv-py/bin/python")
                .to_string_lossy()
                .into_owned()
        });
    have_args(
        &python,
        &["-c", "import hopsig.distributed, distributed, pyarrow"],
        test,
    )
    .then_some(python)
}

/// A file of SMALL signed by `hopsig bgpsec sign-mrt` (the first 150 announcements),
/// with its keys folder.
fn signed(s: &Scratch, keys: &str) -> (String, String) {
    let out = s.p(&format!("signed-{keys}.mrt"));
    let dir = s.p(keys);
    s.ok(&[
        "bgpsec",
        "sign-mrt",
        &common::mrt(SMALL),
        &out,
        "--suite",
        "1",
        "--keys",
        &dir,
        "--limit",
        "150",
    ]);
    (out, format!("{dir}/bgpsec_keys.json"))
}

#[test]
fn usage_errors_exit_2_before_python_runs() {
    let s = Scratch::new();
    let f = common::mrt(SMALL);
    // A Python that cannot be run would say so: these fail before.
    let nowhere = s.p("no-python");
    s.exits(
        2,
        &[
            "batch",
            "validate-mrt",
            &f,
            "--keys",
            "k.json",
            "--python",
            &nowhere,
        ],
        "--scheduler",
    );
    s.exits(
        2,
        &[
            "batch",
            "validate-mrt",
            "--keys",
            "k.json",
            "--scheduler",
            "local",
            "--python",
            &nowhere,
        ],
        "FILE",
    );
    s.exits(
        2,
        &[
            "batch",
            "validate-mrt",
            &f,
            "--keys",
            "k.json",
            "--scheduler",
            "local",
            "--workers",
            "0",
            "--python",
            &nowhere,
        ],
        "--workers",
    );
    s.exits(
        2,
        &[
            "batch",
            "validate-mrt",
            &f,
            "--keys",
            "k.json",
            "--scheduler",
            "local",
            "--signature-cache",
            "lots",
            "--python",
            &nowhere,
        ],
        "--signature-cache",
    );
}

#[test]
fn a_missing_python_or_package_exits_2_with_the_install_command() {
    let s = Scratch::new();
    let f = common::mrt(SMALL);
    let nowhere = s.p("no-python");
    let o = s.exits(
        2,
        &[
            "batch",
            "validate-mrt",
            &f,
            "--keys",
            "k.json",
            "--scheduler",
            "local",
            "--python",
            &nowhere,
        ],
        "cannot run",
    );
    assert!(stderr(&o).starts_with("hopsig: error: "), "{}", text(&o));
    assert!(
        stderr(&o).contains("pip install 'crates/hopsig-py[distributed]'"),
        "{}",
        text(&o)
    );
    // A Python without the package: python3 with neither site-packages nor the user's.
    if !have_args("python3", &["-c", "pass"], "a_missing_python_or_package") {
        return;
    }
    let bare = s.write("python", "#!/bin/sh\nexec python3 -I -S \"$@\"\n");
    std::fs::set_permissions(&bare, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut c = s.cmd(&[
        "batch",
        "validate-mrt",
        &f,
        "--keys",
        "k.json",
        "--scheduler",
        "local",
    ]);
    let o = c.env("HOPSIG_BATCH_PYTHON", &bare).output().unwrap();
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(stderr(&o).starts_with("hopsig: error: "), "{}", text(&o));
    assert!(
        stderr(&o).contains("cannot import hopsig.batch"),
        "{}",
        text(&o)
    );
    assert!(
        stderr(&o).contains("pip install 'crates/hopsig-py[distributed]'"),
        "{}",
        text(&o)
    );
    assert!(stdout(&o).is_empty(), "{}", text(&o));
}

#[test]
fn validates_on_a_local_cluster_as_validate_mrt_does() {
    let Some(python) = batch_python("validates_on_a_local_cluster_as_validate_mrt_does") else {
        return;
    };
    let s = Scratch::new();
    let (file, keys) = signed(&s, "keys");
    let json = s.p("s.json");
    let table = s.p("t.parquet");
    // The same file twice: two tasks, one per worker.
    let o = s.ok(&[
        "batch",
        "validate-mrt",
        &file,
        &file,
        "--keys",
        &keys,
        "--scheduler",
        "local",
        "--workers",
        "2",
        "--json",
        &json,
        "--out",
        &table,
        "--no-progress",
        "--python",
        &python,
    ]);
    s.ok(&[
        "bgpsec",
        "validate-mrt",
        &file,
        "--keys",
        &keys,
        "--json",
        &s.p("one.json"),
    ]);
    let one: serde_json::Value =
        serde_json::from_slice(&std::fs::read(s.path("one.json")).unwrap()).unwrap();
    let both: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let n = |v: &serde_json::Value, k: &str| v[k].as_u64().unwrap();
    for k in ["records", "updates", "valid", "signatures"] {
        assert_eq!(n(&both, k), 2 * n(&one, k), "{k}");
        assert_eq!(n(&both["files"][1], k), n(&one, k), "{k}");
    }
    assert_eq!(n(&both, "not_valid"), 0);
    assert!(n(&one, "updates") > 50);
    assert!(
        stdout(&o).contains(&format!(
            "valid: {} ({} signatures)",
            n(&both, "valid"),
            n(&both, "signatures")
        )),
        "{}",
        text(&o)
    );
    assert!(std::fs::metadata(&table).unwrap().len() > 0);
}

#[test]
fn exit_1_when_an_update_is_not_valid() {
    let Some(python) = batch_python("exit_1_when_an_update_is_not_valid") else {
        return;
    };
    let s = Scratch::new();
    let (file, _) = signed(&s, "keys");
    let (_, other_keys) = signed(&s, "other");
    let o = s.run(&[
        "batch",
        "validate-mrt",
        &file,
        "--keys",
        &other_keys,
        "--scheduler",
        "sequential",
        "--python",
        &python,
    ]);
    assert_eq!(code(&o), 1, "{}", text(&o));
    assert!(stdout(&o).contains("invalid: "), "{}", text(&o));
    assert!(
        stdout(&o).contains("valid: 0 (0 signatures)"),
        "{}",
        text(&o)
    );
    let missing = s.p("missing.mrt");
    let o = s.run(&[
        "batch",
        "validate-mrt",
        &missing,
        "--keys",
        &other_keys,
        "--scheduler",
        "sequential",
        "--python",
        &python,
    ]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(stderr(&o).contains("missing.mrt"), "{}", text(&o));
}
