//! `hopsig bench` and `hopsig reproduce` find their data under `--data DIR` (default
//! `../shared/data` from the working directory), never through the source tree: a
//! missing data file is one error line naming it, exit status 2, before anything is
//! measured or written.
#![allow(clippy::unwrap_used)]

use std::process::Command;

fn hopsig(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hopsig"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn missing_data_files_are_named_and_exit_2() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let out = dir.join("report");
    let out = out.to_string_lossy();
    for (args, file) in [
        (
            vec!["bench", "table3", "--quick"],
            "../shared/data/mrt/ris-updates.20160811.1600.gz",
        ),
        (
            vec!["bench", "bgpsec", "--quick", "--data", "elsewhere"],
            "elsewhere/mrt/ris-updates.20160811.1600.gz",
        ),
        (
            vec!["reproduce", "--quick", "--out", &out],
            "../shared/data/mrt/ris-updates.20160811.1600.gz",
        ),
    ] {
        let o = hopsig(dir, &args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(
            stderr,
            format!("hopsig: error: {file}: data file not found (the data folder is set with --data; default ../shared/data)\n"),
            "{args:?}"
        );
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    assert!(!dir.join("report").exists());
}
