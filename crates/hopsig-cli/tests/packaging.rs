//! Packaging and shell integration (issue 26 §5, docs/guide/deploy.md): the checked-in
//! completion scripts and manual pages are what this binary generates (regenerate
//! with `contrib/regenerate.sh`), the contrib configurations load (hopsig's speaker
//! configurations with the library, gobgpd's with `gobgpd --dry-run`, the compose file
//! as YAML whose addresses agree with them), the systemd unit passes `systemd-analyze
//! verify`, and the library crates package (`cargo package --no-verify`).
//!
//! Checks that need a tool beside hopsig (systemd-analyze, gobgpd, Python with PyYAML,
//! cargo) fail under CI=true when it is missing and print 'skipped: why' otherwise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{code, stdout, text, Scratch};
use hopsig_bgp::speaker::config::Config;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn contrib(path: &str) -> PathBuf {
    repository().join("contrib").join(path)
}

const STALE: &str = "out of step with the binary: run contrib/regenerate.sh";

#[test]
fn completion_scripts_are_in_step() {
    let s = Scratch::new();
    for (shell, file) in [
        ("bash", "hopsig.bash"),
        ("zsh", "_hopsig"),
        ("fish", "hopsig.fish"),
    ] {
        let o = s.ok(&["completions", shell]);
        let generated = stdout(&o);
        // Every command family is offered.
        for command in ["bgpsec", "speaker", "rtr", "completions", "man"] {
            assert!(generated.contains(command), "{shell}: no {command}");
        }
        let checked_in = std::fs::read_to_string(contrib("completions").join(file)).unwrap();
        assert!(
            generated == checked_in,
            "contrib/completions/{file}: {STALE}"
        );
    }
    // bash reads its script without a syntax error.
    if common::have_with("bash", "--version", "completion_scripts_are_in_step") {
        let o = Command::new("bash")
            .args(["-n"])
            .arg(contrib("completions/hopsig.bash"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
    }
    s.exits(2, &["completions", "powershell-7"], "powershell-7");
}

/// The pages of a folder, by name.
fn pages(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "1"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

#[test]
fn manual_pages_are_in_step() {
    let s = Scratch::new();
    std::fs::create_dir(s.path("man")).unwrap();
    let o = s.ok(&["man", "--out", &s.p("man")]);
    let generated = pages(&s.path("man"));
    assert!(
        stdout(&o).contains(&format!("wrote: {} manual pages", generated.len())),
        "{}",
        text(&o)
    );
    for page in [
        "hopsig.1",
        "hopsig-bgpsec-inspect.1",
        "hopsig-speaker-run.1",
        "hopsig-man.1",
    ] {
        assert!(generated.contains_key(page), "no {page}");
    }
    let checked_in = pages(&contrib("man"));
    let names = |m: &BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&checked_in),
        names(&generated),
        "contrib/man: {STALE}"
    );
    for (name, page) in &generated {
        assert!(checked_in[name] == *page, "contrib/man/{name}: {STALE}");
    }
    // Without --out, the top page on standard output.
    let top = s.ok(&["man"]);
    assert_eq!(top.stdout, generated["hopsig.1"]);
    assert!(stdout(&top).starts_with(".ie \\n(.g .ds Aq") || stdout(&top).contains(".TH hopsig 1"));
    // Pages are never replaced without --force, and --force replaces them all.
    s.exits(2, &["man", "--out", &s.p("man")], "--force");
    s.ok(&["man", "--out", &s.p("man"), "--force"]);
    s.exits(2, &["man", "--out", &s.p("missing")], "not a folder");
}

#[test]
fn contrib_speaker_configurations_load() {
    for file in ["compose/speaker.toml", "systemd/speaker.toml"] {
        let path = contrib(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let config = Config::from_toml_str(&text, path.parent().unwrap())
            .unwrap_or_else(|e| panic!("contrib/{file}: {e}"));
        // Under the unit and in the container only /var/lib/hopsig is writable.
        assert!(
            config.state_file.starts_with("/var/lib/hopsig"),
            "contrib/{file}: state_file {}",
            config.state_file.display()
        );
        assert_eq!(config.neighbors.len(), 1, "contrib/{file}");
        assert_eq!(config.rpki.cache.len(), 1, "contrib/{file}");
    }
}

/// The cache's file loads as rpki-client JSON with the route origins the testbed's
/// comments promise.
#[test]
fn contrib_rpki_file_loads() {
    use hopsig_bgp::rpki::{source, Limits};
    let path = contrib("compose/rpki.json");
    let now = hopsig_bgp::router_key::unix_now();
    let loaded = source::load_all(&[path], now, &Limits::default()).unwrap();
    let (vrps, keys, aspas) = loaded.payload.counts();
    assert_eq!((vrps, keys, aspas), (3, 0, 0));
}

/// The compose file as JSON, read by PyYAML under HOPSIG_PYTHON or python3 (the first
/// that has it); `None` (skipped) where neither has it.
fn compose_as_json() -> Option<serde_json::Value> {
    let script = "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))";
    let mut tried = Vec::new();
    let pythons = std::env::var("HOPSIG_PYTHON")
        .into_iter()
        .chain(["python3".to_string()]);
    for python in pythons {
        let o = Command::new(&python)
            .args(["-c", script])
            .arg(contrib("compose/compose.yaml"))
            .output();
        match o {
            Ok(o) if o.status.success() => return Some(serde_json::from_slice(&o.stdout).unwrap()),
            Ok(o) if !String::from_utf8_lossy(&o.stderr).contains("No module named 'yaml'") => {
                panic!("contrib/compose/compose.yaml: {}", text(&o))
            }
            Ok(_) => tried.push(format!("{python}: no PyYAML")),
            Err(e) => tried.push(format!("{python}: {e}")),
        }
    }
    let why = tried.join("; ");
    assert!(
        !matches!(std::env::var("CI").as_deref(), Ok("true")),
        "{why} (pip install pyyaml)"
    );
    eprintln!("skipped: {why}");
    None
}

/// The compose file is YAML with the three services, each mounting files that exist,
/// and the addresses in it are the ones the speaker's and gobgpd's configurations use.
#[test]
fn compose_file_agrees_with_its_configurations() {
    let Some(compose) = compose_as_json() else {
        return;
    };
    let services = &compose["services"];
    let address = |service: &str| -> String {
        services[service]["networks"]["testbed"]["ipv4_address"]
            .as_str()
            .unwrap_or_else(|| panic!("{service}: no address"))
            .to_string()
    };
    for service in ["speaker", "gobgpd", "rtr"] {
        for volume in services[service]["volumes"].as_array().unwrap() {
            let host = volume.as_str().unwrap().split(':').next().unwrap();
            if let Some(file) = host.strip_prefix("./") {
                assert!(contrib("compose").join(file).is_file(), "{service}: {host}");
            }
        }
    }
    for service in ["speaker", "rtr"] {
        assert_eq!(services[service]["read_only"], true, "{service}");
        assert_eq!(services[service]["image"], "hopsig:latest", "{service}");
    }
    let path = contrib("compose/speaker.toml");
    let config = Config::from_toml_str(
        &std::fs::read_to_string(&path).unwrap(),
        path.parent().unwrap(),
    )
    .unwrap();
    assert_eq!(config.neighbors[0].address.to_string(), address("gobgpd"));
    assert_eq!(config.rpki.cache[0].address, address("rtr"));
    let rtr: Vec<&str> = services["rtr"]["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let listen = rtr[rtr.iter().position(|a| *a == "--listen").unwrap() + 1];
    assert_eq!(
        listen.rsplit(':').next().unwrap(),
        config.rpki.cache[0].port.to_string()
    );
    let gobgpd = std::fs::read_to_string(contrib("compose/gobgpd.toml")).unwrap();
    assert!(
        gobgpd.contains(&format!("neighbor-address = \"{}\"", address("speaker"))),
        "gobgpd.toml does not wait for the speaker's address"
    );
    assert!(gobgpd.contains(&format!("peer-as = {}", config.local_as)));
}

/// gobgpd reads the testbed's configuration (`--dry-run`: parse and check only).
#[test]
fn contrib_gobgpd_configuration_checks() {
    if !common::have_with("gobgpd", "--version", "contrib_gobgpd_configuration_checks") {
        return;
    }
    let o = Command::new("gobgpd")
        .args(["--dry-run", "-t", "toml", "-f"])
        .arg(contrib("compose/gobgpd.toml"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
}

/// `systemd-analyze verify` accepts the unit, with ExecStart pointed at this build's
/// binary (verify wants the executable to exist) and nothing else changed.
#[test]
fn systemd_unit_verifies() {
    if !common::have_with("systemd-analyze", "--version", "systemd_unit_verifies") {
        return;
    }
    let s = Scratch::new();
    let unit = std::fs::read_to_string(contrib("systemd/hopsig-speaker.service")).unwrap();
    assert!(unit.contains("ExecReload=/bin/kill -HUP $MAINPID"));
    for setting in [
        "DynamicUser=yes",
        "ProtectSystem=strict",
        "StateDirectory=hopsig",
        "NoNewPrivileges=yes",
    ] {
        assert!(unit.lines().any(|l| l == setting), "no {setting}");
    }
    let unit = unit.replace(
        "/usr/local/bin/hopsig",
        Path::new(env!("CARGO_BIN_EXE_hopsig")).to_str().unwrap(),
    );
    let path = s.write("hopsig-speaker.service", unit);
    let o = Command::new("systemd-analyze")
        .args(["verify", "--man=no", &path])
        .output()
        .unwrap();
    // verify prints warnings on stderr even when it passes: none may name the unit.
    let said = text(&o);
    assert_eq!(code(&o), 0, "{said}");
    assert!(
        !said.contains("hopsig-speaker.service"),
        "systemd-analyze verify: {said}"
    );
}

/// `cargo package --no-verify` succeeds for the library crates (path dependencies
/// carry versions, metadata complete); cargo is the one running this test.
#[test]
fn library_crates_package() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let s = Scratch::new();
    let mut cmd = Command::new(&cargo);
    cmd.args(["package", "--no-verify", "--offline", "--allow-dirty"]);
    for krate in LIBRARIES {
        cmd.args(["-p", krate]);
    }
    let o = cmd
        .args(["--target-dir", &s.p("target")])
        .current_dir(repository())
        .output();
    let o = match o {
        Ok(o) => o,
        Err(e) => {
            assert!(
                !matches!(std::env::var("CI").as_deref(), Ok("true")),
                "{cargo}: {e}"
            );
            eprintln!("skipped: {cargo}: {e}");
            return;
        }
    };
    assert!(o.status.success(), "{}", text(&o));
    for krate in LIBRARIES {
        let file = s.path(&format!(
            "target/package/{krate}-{}.crate",
            env!("CARGO_PKG_VERSION")
        ));
        assert!(file.is_file(), "no {}", file.display());
    }
}

/// The publishable crates, in dependency order.
const LIBRARIES: [&str; 8] = [
    "hopsig-cpu",
    "hopsig-koblitz",
    "hopsig-p256",
    "hopsig-primitives",
    "hopsig-schemes",
    "hopsig-bgp",
    "hopsig-ndn",
    "hopsig-pla",
];

/// Every publishable crate has the metadata crates.io shows.
#[test]
fn publishable_crates_have_their_metadata() {
    let root = repository();
    for krate in LIBRARIES {
        let manifest =
            std::fs::read_to_string(root.join("crates").join(krate).join("Cargo.toml")).unwrap();
        for field in [
            "description = ",
            "license.workspace = true",
            "repository.workspace = true",
            "readme.workspace = true",
            "keywords = ",
            "categories = ",
        ] {
            assert!(manifest.contains(field), "{krate}: no {field}");
        }
        assert!(!manifest.contains("publish = false"), "{krate}");
    }
}
