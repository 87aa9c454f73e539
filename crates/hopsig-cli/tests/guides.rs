//! The documentation runs: every `sh` block of each guide in `docs/guide/` is run, in
//! order, as one bash script (`-euo pipefail`) from the repository root with this
//! build's `hopsig` first on `PATH`, as a reader following the page would; and
//! `docs/architecture.md` names every crate and every source module of the workspace,
//! so the layout page cannot fall behind the code.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The `sh` blocks of a markdown page, in order (blocks marked `console` or anything
/// else need a peer beside hopsig and are left to the tests that start one).
fn sh_blocks(page: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in page.lines() {
        match (&mut current, line.trim_end()) {
            (None, "```sh") => current = Some(String::new()),
            (Some(_), "```") => blocks.push(current.take().unwrap()),
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    assert!(current.is_none(), "an sh block is not closed");
    blocks
}

#[test]
fn sh_blocks_are_found_in_order_and_other_blocks_are_not() {
    let page = "text\n```sh\na\nb\n```\n```console\nc\n```\n```sh\nd\n```\n";
    assert_eq!(sh_blocks(page), ["a\nb\n", "d\n"]);
}

/// Runs the guide `name`'s `sh` blocks; fails with the output if a command fails.
fn run_guide(name: &str) {
    let root = repository();
    let page = std::fs::read_to_string(root.join("docs/guide").join(name)).unwrap();
    let script = sh_blocks(&page).concat();
    assert!(!script.is_empty(), "{name} has no sh block");
    let bin = Path::new(env!("CARGO_BIN_EXE_hopsig")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let home = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-x", "-c", &script])
        .current_dir(&root)
        .env("PATH", path)
        // Journals and state stay out of the user's home.
        .env("HOME", home.path())
        .env("XDG_STATE_HOME", home.path().join("state"))
        .env("TMPDIR", home.path())
        .env_remove("HOPSIG_STATE_DIR")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let tail: String = {
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    };
    assert!(
        out.status.success(),
        "docs/guide/{name}: {}\n{tail}",
        out.status
    );
}

#[test]
fn the_signatures_guide_runs() {
    run_guide("signatures.md");
}

#[test]
fn the_bgpsec_guide_runs() {
    run_guide("bgpsec.md");
}

#[test]
fn the_pla_guide_runs() {
    run_guide("pla.md");
}

#[test]
fn the_measurements_guide_runs() {
    run_guide("measurements.md");
}

#[test]
fn the_api_guide_runs() {
    run_guide("api.md");
}

/// Every guide with commands is run by a test above; pages without `sh` blocks say
/// why in their text (a peer must run beside hopsig).
#[test]
fn every_guide_with_sh_blocks_is_run() {
    let run = [
        "signatures.md",
        "bgpsec.md",
        "pla.md",
        "measurements.md",
        "api.md",
    ];
    for entry in std::fs::read_dir(repository().join("docs/guide")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let page = std::fs::read_to_string(&path).unwrap();
        if !sh_blocks(&page).is_empty() {
            assert!(run.contains(&name.as_str()), "docs/guide/{name} is not run");
        }
    }
}

/// The module names of a crate's `src`: each `.rs` file's stem, or its folder's name
/// for a `mod.rs`, without `lib`, `main` and `tests`.
fn modules(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            modules(&path, out);
            continue;
        }
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let name = if stem == "mod" {
            path.parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        } else {
            stem
        };
        if !["lib", "main", "tests"].contains(&name.as_str()) {
            out.push(name);
        }
    }
}

#[test]
fn the_architecture_page_names_every_crate_and_module() {
    let root = repository();
    let page = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let krate = entry.unwrap().path();
        if !krate.join("Cargo.toml").exists() {
            continue;
        }
        let name = krate.file_name().unwrap().to_string_lossy().into_owned();
        if !page.contains(&format!("`crates/{name}`")) {
            missing.push(format!("crate crates/{name}"));
        }
        let mut found = Vec::new();
        modules(&krate.join("src"), &mut found);
        for module in found {
            if !page.contains(&format!("`{module}`"))
                && !page.contains(&format!("{module}/"))
                && !page.contains(&format!("{module}.rs"))
            {
                missing.push(format!("{name}: module {module}"));
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "docs/architecture.md does not name: {}",
        missing.join(", ")
    );
}
