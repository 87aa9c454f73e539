//! What the end-to-end tests of the `hopsig` binary share: a scratch folder with its own
//! IBAS state folder, runs of the binary, and their exit code and output.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod speaker;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The MRT file `name` of ../shared/data/mrt (the RIPE RIS files of the project's data).
pub fn mrt(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/mrt")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// A scratch folder; IBAS journals go to `state` inside it, not to the user's.
pub struct Scratch {
    pub dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Self {
        Scratch {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// A path in the folder, as a string.
    pub fn p(&self, name: &str) -> String {
        self.path(name).to_string_lossy().into_owned()
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `bytes` to `name`; returns its path.
    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> String {
        std::fs::write(self.path(name), bytes).unwrap();
        self.p(name)
    }

    /// The binary with `args`, ready to run.
    pub fn cmd<S: AsRef<OsStr>>(&self, args: &[S]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_hopsig"));
        c.args(args).env("HOPSIG_STATE_DIR", self.path("state"));
        c
    }

    pub fn run<S: AsRef<OsStr>>(&self, args: &[S]) -> Output {
        self.cmd(args).output().unwrap()
    }

    /// Runs `args`, which must succeed.
    pub fn ok<S: AsRef<OsStr> + std::fmt::Debug>(&self, args: &[S]) -> Output {
        let o = self.run(args);
        assert_eq!(code(&o), 0, "{args:?}: {}", text(&o));
        o
    }

    /// Runs `args`, which must exit with `want` and say `needle`.
    pub fn exits<S: AsRef<OsStr> + std::fmt::Debug>(
        &self,
        want: i32,
        args: &[S],
        needle: &str,
    ) -> Output {
        let o = self.run(args);
        assert_eq!(code(&o), want, "{args:?}: {}", text(&o));
        assert!(
            text(&o).contains(needle),
            "{args:?}: {needle:?} not in {}",
            text(&o)
        );
        o
    }

    /// Runs the binary with file writes limited to one block, so that any write
    /// beyond fails with EFBIG (SIGXFSZ ignored), as on a full disk.
    pub fn run_tiny_limit(&self, args: &[&str]) -> Output {
        Command::new("sh")
            .arg("-c")
            .arg(r#"trap "" XFSZ; ulimit -f 1; exec "$@""#)
            .arg("sh")
            .arg(env!("CARGO_BIN_EXE_hopsig"))
            .args(args)
            .env("HOPSIG_STATE_DIR", self.path("state"))
            .output()
            .unwrap()
    }

    /// Names in the folder (the state folder excluded), sorted.
    pub fn names(&self) -> Vec<String> {
        names_in(self.dir.path())
            .into_iter()
            .filter(|n| n != "state")
            .collect()
    }

    /// PKG, Alice and the Government's keys, Alice's message and first aggregate.
    pub fn ibas(&self) -> Ibas {
        let (alice, gov) = (self.p("alice.key"), self.p("gov.key"));
        let pkg = self.pkg(&[
            ("/friends/Alice", "alice.key"),
            ("/moderators/Government", "gov.key"),
        ]);
        let m1 = self.write("m1", b"I am safe");
        let a1 = self.p("a1");
        self.ok(&sign(&alice, &m1, None, &a1, &[]));
        Ibas {
            pkg,
            alice,
            gov,
            m1,
            a1,
        }
    }

    /// A key pair of `scheme` at `name` and `name.pub`; returns the secret key's path.
    pub fn keygen(&self, scheme: &str, name: &str) -> String {
        let key = self.p(name);
        self.ok(&["keygen", "--scheme", scheme, "--out", &key]);
        key
    }

    /// A PKG in `pkg` and a key for each identity at `name` (pairs); returns the PKG
    /// folder.
    pub fn pkg(&self, keys: &[(&str, &str)]) -> String {
        let pkg = self.p("pkg");
        self.ok(&["pkg", "setup", "--out", &pkg]);
        for (id, name) in keys {
            self.ok(&[
                "pkg",
                "extract",
                "--pkg",
                &pkg,
                "--id",
                id,
                "--out",
                &self.p(name),
            ]);
        }
        pkg
    }

    /// The `hopsig ic` steps on `curve` up to Alice's key `a.key` (certificate
    /// `a.key.cert`) for `id`, then her signature `sig` on the message `m`.
    pub fn implicit_certificate(&self, curve: &str, id: &str) -> Ic {
        let ttp = self.p("ttp");
        let blind = self.p("a.blind");
        self.ok(&["ic", "--curve", curve, "ttp", "--out", &ttp]);
        self.ok(&["ic", "--curve", curve, "request", "--out", &blind]);
        let issued = self.p("a.issued");
        let request = format!("{blind}.req");
        self.ok(&[
            "ic",
            "issue",
            "--ttp",
            &ttp,
            "--id",
            id,
            "--request",
            &request,
            "--out",
            &issued,
        ]);
        let ttp_pub = format!("{ttp}/ttp.pub");
        let key = self.p("a.key");
        self.ok(&[
            "ic",
            "finalize",
            "--blind",
            &blind,
            "--issued",
            &issued,
            "--ttp-pub",
            &ttp_pub,
            "--out",
            &key,
        ]);
        let msg = self.write("m", "packet");
        let sig = self.p("sig");
        self.ok(&sign(&key, &msg, None, &sig, &[]));
        Ic {
            ttp,
            ttp_pub,
            blind,
            request,
            issued,
            cert: format!("{key}.cert"),
            key,
            msg,
            sig,
        }
    }
}

/// The files of [`Scratch::ibas`].
pub struct Ibas {
    pub pkg: String,
    pub alice: String,
    pub gov: String,
    pub m1: String,
    pub a1: String,
}

impl Ibas {
    /// Verifies `agg` as Alice's m1 countersigned by the Government's `m2`.
    pub fn verify(&self, s: &Scratch, m2: &str, agg: &str) -> Output {
        s.run(&[
            "verify",
            "--scheme",
            "ibas-bls12381",
            "--pkg",
            &self.pkg,
            "--id",
            "/friends/Alice",
            "--msg",
            &self.m1,
            "--id",
            "/moderators/Government",
            "--msg",
            m2,
            "--agg",
            agg,
        ])
    }
}

/// Names in `dir`, sorted.
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The files of [`Scratch::implicit_certificate`].
pub struct Ic {
    pub ttp: String,
    pub ttp_pub: String,
    pub blind: String,
    pub request: String,
    pub issued: String,
    pub key: String,
    pub cert: String,
    pub msg: String,
    pub sig: String,
}

impl Ic {
    /// `ic verify` of `sig` (the aggregate file) with this certificate and message.
    pub fn verify_args<'a>(&'a self, sig: &'a str) -> Vec<&'a str> {
        vec![
            "ic",
            "verify",
            "--ttp-pub",
            &self.ttp_pub,
            "--cert",
            &self.cert,
            "--msg",
            &self.msg,
            "--agg",
            sig,
        ]
    }
}

/// `sign --key KEY --msg MSG [--agg AGG] --out OUT EXTRA…`
pub fn sign<'a>(
    key: &'a str,
    msg: &'a str,
    agg: Option<&'a str>,
    out: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec!["sign", "--key", key, "--msg", msg, "--out", out];
    if let Some(agg) = agg {
        args.extend(["--agg", agg]);
    }
    args.extend(extra);
    args
}

/// `verify --scheme SCHEME`, `--pub KEY --msg MSG` for each pair, `--agg AGG`.
pub fn verify<'a>(scheme: &'a str, pairs: &[(&'a str, &'a str)], agg: &'a str) -> Vec<&'a str> {
    let mut args = vec!["verify", "--scheme", scheme];
    for (key, msg) in pairs {
        args.extend(["--pub", key, "--msg", msg]);
    }
    args.extend(["--agg", agg]);
    args
}

pub fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Standard output, then standard error.
pub fn text(o: &Output) -> String {
    format!("{}{}", stdout(o), stderr(o))
}

/// The one line of `stream`, which must end in a line feed and hold no other control
/// character.
pub fn one_line(stream: &[u8]) -> String {
    let s = String::from_utf8_lossy(stream).into_owned();
    assert!(s.ends_with('\n'), "{s:?}");
    assert!(
        !s[..s.len() - 1].chars().any(char::is_control),
        "more than one line, or a control character: {s:?}"
    );
    s
}

/// Whether an external program runs (`program version`); if not, says the test is
/// skipped (and fails under CI=true, where it must be there).
pub fn have(program: &str, test: &str) -> bool {
    have_with(program, "version", test)
}

/// [`have`] for a program probed with `program probe` (`--version` for daemons).
pub fn have_with(program: &str, probe: &str, test: &str) -> bool {
    have_args(program, &[probe], test)
}

/// [`have`] for a program probed with `program args…` (`python3 -c "import scapy"`).
pub fn have_args(program: &str, args: &[&str], test: &str) -> bool {
    let found = Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            !matches!(std::env::var("CI").as_deref(), Ok("true")),
            "{program} is missing under CI=true"
        );
        eprintln!("{test}: skipped, {program} is not installed");
    }
    found
}

/// Runs `program` with `args` in `dir`, which must succeed.
pub fn external(dir: &Path, program: &str, args: &[&str]) -> Output {
    let o = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{program} {args:?}: {}", text(&o));
    o
}
