//! Runs the constant-time test binary (`src/main.rs`) under valgrind memcheck and fails
//! on any report: a branch, conditional move or memory address that depends on a
//! secret. Without valgrind the test fails when `CI=true` and says it skipped
//! otherwise. It needs the release build (`cargo test --release`, as CI runs it):
//! debug builds keep `subtle`'s debug assertions, which branch on secret bits.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

/// The exit status valgrind gives when it reported an error.
const VALGRIND_ERROR: i32 = 99;

fn skip(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("constant-time test cannot run with CI=true: {why}");
    }
    eprintln!("SKIPPED: constant-time test: {why}");
}

#[test]
fn signing_paths_have_no_secret_dependent_branches_or_addresses() {
    let bin = env!("CARGO_BIN_EXE_hopsig-ctime");
    // The operations themselves work (natively).
    let native = Command::new(bin).output().unwrap();
    assert!(
        native.status.success(),
        "{}",
        String::from_utf8_lossy(&native.stderr)
    );
    if cfg!(debug_assertions) {
        eprintln!("SKIPPED: constant-time test: needs the release build (cargo test --release)");
        return;
    }
    if !cfg!(target_arch = "x86_64") {
        skip("valgrind client requests are written for x86-64 only");
        return;
    }
    let version = Command::new("valgrind").arg("--version").output();
    if !version.is_ok_and(|o| o.status.success()) {
        skip("valgrind is not installed (apt-get install valgrind)");
        return;
    }
    let supp = concat!(env!("CARGO_MANIFEST_DIR"), "/valgrind.supp");
    let run = Command::new("valgrind")
        .arg(format!("--error-exitcode={VALGRIND_ERROR}"))
        .arg(format!("--suppressions={supp}"))
        .arg(bin)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "valgrind reports secret-dependent control flow or memory access \
         (exit {:?}):\n{report}",
        run.status.code()
    );
    // The client requests reached valgrind (else nothing was marked secret), and every
    // section ran.
    assert!(report.contains("ctime: under valgrind: true"), "{report}");
    assert!(report.contains("ctime: done"), "{report}");
    assert!(report.contains("ERROR SUMMARY: 0 errors"), "{report}");
}
