//! Test support shared by more than one hopsig crate (never published: the crates'
//! tests name it under `[dev-dependencies]`; the one other user is hopsig-bench, not
//! published either, whose `ndn` suite measures the relay through the same private
//! ndnd). It may reach outside its own crate — the repository root, `tools/`,
//! `.venv-ci` — because it only ever runs in the repository's checkout; shipped crates
//! may not (docs: STYLE.md 26).
//!
//! * [`bgpsrx`]: NIST BGP-SRx's RTR test cache `rpkirtr_svr` and the RTR client of its
//!   `srx_server` (built by `tools/bgp-srx.sh` outside the checkout); as BGPsec peers,
//!   its traffic generator `bgpsecio`, quagga-srx's `bgpd` and its demo key vault.
//! * [`ndnd`]: a private NDN forwarder (named-data/ndnd) on a Unix socket and a free
//!   loopback port.
//! * [`python`]: the interpreter of the interop tests, probed for the modules a test
//!   needs; a missing one skips the test, and fails it under `CI`.
//! * [`stayrtr`]: a private StayRTR cache on a free loopback port.
//! * [`rtrclient`]: RTRlib's rtrclient as an independent RTR client.
//! * [`rng`]: splitmix64, the reproducible generator of generated cases and bench data.
//! * [`watch`]: waiting, bounded, for a `tokio` watch channel to carry a wanted value.
//! * [`KillOnDrop`]: a peer's process, killed by PID and reaped when dropped.
//! * [`missing`]: a test's peer is not there: skip, or fail under `CI`.
//! * [`root`]: the repository root.
//!
//! What stays with one crate's tests: the gobgpd / BIRD peers and their
//! configuration templates (`crates/hopsig-cli/tests/peers`, `common/`: only the CLI's
//! tests run them), the CLI's `Scratch` folders and the hostile NDN packets of
//! `crates/hopsig-ndn/tests/common/hostile.rs` (one user each).

pub mod bgpsrx;
pub mod ndnd;
pub mod rng;
pub mod rtrclient;
pub mod stayrtr;
pub mod watch;

use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The repository root (this crate sits in `crates/hopsig-testkit`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The interpreter of the interop tests — `$HOPSIG_PYTHON` (`.ci/run` sets it to its
/// venv), else the `.venv-ci` that `.ci/run` creates, else `python3` — if
/// `import {modules}` works in it (`modules` is a comma-separated list, e.g.
/// `"ndn.encoding, cryptography"`). Otherwise the test says it skips and gets `None`,
/// except under `CI`, where a missing interpreter or module fails the test.
///
/// # Panics
/// Under `CI` when the interpreter cannot import `modules`.
pub fn python(modules: &str) -> Option<String> {
    let venv = root().join(".venv-ci/bin/python");
    let py = std::env::var("HOPSIG_PYTHON").unwrap_or_else(|_| {
        if venv.exists() {
            venv.display().to_string()
        } else {
            "python3".into()
        }
    });
    let probe = format!("import {modules}");
    match Command::new(&py).args(["-c", &probe]).output() {
        Ok(o) if o.status.success() => Some(py),
        _ => {
            #[allow(clippy::panic)]
            if std::env::var_os("CI").is_some() {
                panic!(
                    "CI requires {py} with `{probe}` for the interop tests (.ci/run installs it)"
                )
            }
            eprintln!(
                "skipped: {py} cannot `{probe}`: the independent-implementation check needs it (CI runs it)"
            );
            None
        }
    }
}

/// A peer's binary: `$env`, else `built` (where .ci/run builds it), else `name` on
/// PATH — the first that starts when run with `probe` (its exit status aside: the
/// probe only asks whether it runs); `None` if none does.
pub fn find_binary(env: &str, built: PathBuf, name: &str, probe: &str) -> Option<PathBuf> {
    let candidates = [
        std::env::var_os(env).map(PathBuf::from),
        Some(built),
        Some(PathBuf::from(name)),
    ];
    candidates.into_iter().flatten().find(|c| {
        Command::new(c)
            .arg(probe)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
    })
}

/// A test's peer is missing (`what`: which, and how CI gets it): under `CI` the test
/// fails; otherwise it prints `skipped: …` and the caller returns.
///
/// # Panics
/// Under `CI`.
pub fn missing(what: &str) {
    #[allow(clippy::panic)]
    if std::env::var_os("CI").is_some() {
        panic!("CI requires {what}")
    }
    eprintln!("skipped: {what} is not available");
}

/// A test's peer process, killed (by PID) and reaped when dropped, so that a failing
/// test leaves no peer behind; otherwise it is the [`Child`] it derefs to.
#[derive(Debug)]
pub struct KillOnDrop(pub Child);

impl KillOnDrop {
    /// Kills the process now and reaps it (errors ignored: it may have exited).
    pub fn stop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Deref for KillOnDrop {
    type Target = Child;

    fn deref(&self) -> &Child {
        &self.0
    }
}

impl DerefMut for KillOnDrop {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}
