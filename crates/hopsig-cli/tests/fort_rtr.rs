//! hopsig's RTR client against FORT 1.5.4 (NIC México, Debian `fort-validator`), an RPKI
//! cache independent of the `rpki` crate hopsig uses, serving SLURM (RFC 8416)
//! assertions: prefixes and BGPsec router keys. FORT runs offline: it refuses to serve
//! without a trust anchor that validates, so `tests/peers/fort/make-ta.sh` makes an
//! empty one (TA certificate, CRL, manifest) in its local repository, and the payload
//! is the SLURM file's `locallyAddedAssertions`. Under `CI` a missing `fort` fails.
//!
//! FORT was tried first (a Debian package) and runs offline with that trust anchor, so
//! Routinator (crates.io, `--exceptions` with no TALs) was not tried.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod rtr_peer;

use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hopsig_testkit::KillOnDrop;
use rtr_peer::{dump, free_port, Key};

/// A running FORT, killed by PID when dropped.
struct Fort {
    child: KillOnDrop,
    addr: SocketAddr,
    log: PathBuf,
}

/// The `fort` binary (`$HOPSIG_FORT`, else `fort` on PATH); `None` (the test skips)
/// when it does not run, a failure under `CI`.
fn find_fort() -> Option<PathBuf> {
    let bin = std::env::var_os("HOPSIG_FORT").map_or_else(|| PathBuf::from("fort"), PathBuf::from);
    let runs = Command::new(&bin)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if runs {
        return Some(bin);
    }
    hopsig_testkit::missing(&format!(
        "FORT ({}; Debian fort-validator, .ci/run installs it)",
        bin.display()
    ));
    None
}

impl Fort {
    /// Makes the trust anchor in `dir`, starts FORT serving `slurm` over RTR on a free
    /// loopback port, and waits (at most 30 s) until its first validation has ended and
    /// it accepts connections.
    fn start(bin: &Path, dir: &Path, slurm: &str) -> Fort {
        let ta = dir.join("ta");
        let made = Command::new("bash")
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/peers/fort/make-ta.sh"
            ))
            .arg(&ta)
            .output()
            .unwrap();
        assert!(
            made.status.success(),
            "make-ta.sh: {}",
            String::from_utf8_lossy(&made.stderr)
        );
        let slurm_path = dir.join("local.slurm");
        std::fs::write(&slurm_path, slurm).unwrap();
        let port = free_port();
        let log = dir.join("fort.log");
        let out = std::fs::File::create(&log).unwrap();
        let child = Command::new(bin)
            .arg(format!("--tal={}", ta.join("tal").display()))
            .arg(format!("--local-repository={}", ta.join("repo").display()))
            .arg(format!("--slurm={}", slurm_path.display()))
            .args([
                "--mode=server",
                "--work-offline=true",
                "--server.address=127.0.0.1",
                &format!("--server.port={port}"),
                "--log.output=console",
                "--log.level=info",
                "--validation-log.enabled=true",
                "--validation-log.output=console",
            ])
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap();
        let mut fort = Fort {
            child: KillOnDrop(child),
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            log,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let text = std::fs::read_to_string(&fort.log).unwrap_or_default();
            if text.contains("First validation cycle successfully ended")
                && TcpStream::connect(fort.addr).is_ok()
            {
                return fort;
            }
            if let Some(status) = fort.child.try_wait().unwrap() {
                panic!("fort exited ({status}): {text}");
            }
            assert!(Instant::now() < deadline, "fort not ready in 30 s: {text}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// A SLURM file asserting `vrps` and `keys` (RFC 8416 §3.4).
fn slurm(vrps: &[(&str, u8, u32)], keys: &[Key]) -> String {
    let prefixes: Vec<_> = vrps
        .iter()
        .map(|(p, max, asn)| serde_json::json!({"asn": asn, "prefix": p, "maxPrefixLength": max}))
        .collect();
    let keys: Vec<_> = keys
        .iter()
        .map(|k| {
            serde_json::json!({
                "asn": k.asn,
                "SKI": Key::b64url(&hex::decode(&k.ski).unwrap()),
                "routerPublicKey": Key::b64url(&k.spki),
            })
        })
        .collect();
    serde_json::json!({
        "slurmVersion": 1,
        "validationOutputFilters": {"prefixFilters": [], "bgpsecFilters": []},
        "locallyAddedAssertions": {"prefixAssertions": prefixes, "bgpsecAssertions": keys},
    })
    .to_string()
}

/// `hopsig rtr dump` gets exactly the prefixes and router keys FORT asserts from SLURM:
/// at version 1 (RFC 8210 Router Key PDUs) all of them; at version 0 (RFC 6810) the
/// prefixes only; and without `--version` hopsig starts at 2, which FORT 1.5.4 does not
/// speak, and downgrades as FORT's Error Report says (RFC 8210 §7).
#[test]
fn fort_serves_slurm_assertions_to_hopsig() {
    let Some(bin) = find_fort() else { return };
    let dir = tempfile::tempdir().unwrap();
    let keys = [Key::new(64496), Key::new(64496), Key::new(4_200_000_001)];
    let vrps = [
        ("198.51.100.0/24", 24, 64496),
        ("203.0.113.0/24", 28, 4_200_000_001),
        ("2001:db8::/32", 48, 64497),
    ];
    let fort = Fort::start(&bin, dir.path(), &slurm(&vrps, &keys));
    let want_vrps: std::collections::BTreeSet<_> = vrps
        .iter()
        .map(|(p, m, a)| (p.to_string(), *m, *a))
        .collect();
    let want_keys: std::collections::BTreeSet<_> = keys.iter().cloned().collect();

    let v1 = dump(fort.addr, Some(1)).unwrap_or_else(|e| panic!("{e:?}\nfort: {}", fort.log()));
    assert_eq!(v1.version, 1);
    assert_eq!(v1.vrps, want_vrps);
    assert_eq!(v1.keys, want_keys);
    assert!(v1.aspas.is_empty());

    let v0 = dump(fort.addr, Some(0)).unwrap_or_else(|e| panic!("{e:?}\nfort: {}", fort.log()));
    assert_eq!(v0.version, 0);
    assert_eq!(v0.vrps, want_vrps);
    assert!(
        v0.keys.is_empty(),
        "router keys at version 0: {:?}",
        v0.keys
    );

    // Version 2 only: FORT's Error Report, named.
    let (code, err) = dump(fort.addr, Some(2)).expect_err("FORT 1.5.4 has no v2");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("Unsupported Protocol Version"), "{err}");

    // Without --version hopsig asks for 2; FORT 1.5.4 answers Unsupported Protocol
    // Version in a version 0 Error Report (its lowest, where draft-ietf-sidrops-8210bis
    // §7 has its highest, 1), and hopsig retries at the version the report names: the
    // prefixes arrive, the router keys (version 1 and up) do not.
    let negotiated =
        dump(fort.addr, None).unwrap_or_else(|e| panic!("{e:?}\nfort: {}", fort.log()));
    assert!(negotiated.version <= 1, "{negotiated:?}");
    assert_eq!(negotiated.vrps, want_vrps);
    if negotiated.version == 1 {
        assert_eq!(negotiated.keys, want_keys);
    } else {
        assert!(negotiated.keys.is_empty(), "{negotiated:?}");
    }
}
