//! How the `hopsig` binary writes files (README "Files"): nothing is overwritten
//! without `--force`, no command writes over its own inputs, secrets are 0600 even when
//! they replace a wider file, a write error leaves the old files and no partial or
//! temporary file, multi-file outputs appear together or not at all; and the IBAS
//! journal is bound to the key, not to the key file's name.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

mod common;

use common::{code, names_in, sign, text, Scratch};

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

fn mode(path: &str) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn sign_never_replaces_an_existing_output_without_force() {
    let e = Scratch::new();
    let key = e.p("k");
    e.ok(&["keygen", "--scheme", "ecdsa-p256-concat", "--out", &key]);
    let m = e.write("m", b"route");
    let agg = e.write("agg", b"someone else's file");
    e.exits(
        2,
        &sign(&key, &m, None, &agg, &[]),
        "already exists (use --force",
    );
    assert_eq!(read(&agg), b"someone else's file");
    e.ok(&sign(&key, &m, None, &agg, &["--force"]));
    assert_ne!(read(&agg), b"someone else's file");
    // keygen refuses both names too.
    e.exits(
        2,
        &["keygen", "--scheme", "ecdsa-p256-concat", "--out", &key],
        "already exists",
    );
}

#[test]
fn no_command_writes_over_its_own_inputs_even_with_force() {
    let e = Scratch::new();
    let key = e.p("k");
    e.ok(&["keygen", "--scheme", "ecdsa-p256-concat", "--out", &key]);
    let m = e.write("m", b"route");
    let agg = e.p("agg");
    e.ok(&sign(&key, &m, None, &agg, &[]));
    let hard = e.p("hard");
    std::fs::hard_link(&key, &hard).unwrap();
    let soft = e.p("soft");
    std::os::unix::fs::symlink(&m, &soft).unwrap();
    let before: Vec<Vec<u8>> = [&key, &m, &agg].iter().map(|p| read(p)).collect();
    for out in [&key, &m, &agg, &hard, &soft] {
        for force in [false, true] {
            let extra: &[&str] = if force { &["--force"] } else { &[] };
            let args = sign(&key, &m, Some(&agg), out, extra);
            let o = e.run(&args);
            assert_eq!(code(&o), 2, "{args:?}: {}", text(&o));
            if force {
                assert!(text(&o).contains("input of this command"), "{}", text(&o));
            }
        }
    }
    let after: Vec<Vec<u8>> = [&key, &m, &agg].iter().map(|p| read(p)).collect();
    assert_eq!(before, after);

    // The PKG's secret, an IBAS journal, a TTP's public key are inputs too.
    let ib = e.ibas();
    let pkg_key = format!("{}/pkg.key", ib.pkg);
    let pkg_before = read(&pkg_key);
    e.exits(
        2,
        &[
            "pkg", "extract", "--pkg", &ib.pkg, "--id", "/x", "--out", &pkg_key, "--force",
        ],
        "input of this command",
    );
    assert_eq!(read(&pkg_key), pkg_before);
    let journal = e.p("gov.journal");
    let m2 = e.write("m2", b"accepted");
    e.ok(&sign(
        &ib.gov,
        &m2,
        Some(&ib.a1),
        &e.p("a2"),
        &["--journal", &journal, "--new-journal"],
    ));
    let journal_before = read(&journal);
    e.exits(
        2,
        &sign(
            &ib.gov,
            &m2,
            Some(&ib.a1),
            &journal,
            &["--journal", &journal, "--force"],
        ),
        "input of this command",
    );
    assert_eq!(read(&journal), journal_before);
}

#[test]
fn force_gives_a_replaced_secret_mode_0600() {
    let e = Scratch::new();
    let key = e.write("k", b"an old key file anyone could read and write");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o666)).unwrap();
    e.ok(&[
        "keygen",
        "--scheme",
        "ecdsa-p256-concat",
        "--out",
        &key,
        "--force",
    ]);
    assert_eq!(mode(&key), 0o600);
    assert!(read(&key).starts_with(b"hopsig-key: 1"));
}

/// `--force` replaces a regular file and nothing else: a FIFO, a socket, or a symlink
/// (to a FIFO, as `/dev/stdout` leads to a pipe; to a regular file; dangling) stays as
/// it is, and the error names it. (Run as root, `--out /dev/null --force` would
/// otherwise put the aggregate, or a secret key, in place of the system's /dev/null.)
#[test]
fn force_replaces_only_regular_files() {
    use std::os::unix::fs::FileTypeExt;
    let e = Scratch::new();
    let key = e.keygen("ecdsa-p256-concat", "k");
    let m = e.write("m", b"route");
    let fifo = e.p("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let socket = e.p("socket");
    let _listening = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let target = e.write("target", b"kept");
    let links = [
        ("to-fifo", fifo.clone()),
        ("to-file", target.clone()),
        ("dangling", e.p("nowhere")),
    ];
    for (name, to) in &links {
        std::os::unix::fs::symlink(to, e.path(name)).unwrap();
    }
    let outs = [
        &fifo,
        &socket,
        &e.p("to-fifo"),
        &e.p("to-file"),
        &e.p("dangling"),
    ];
    for out in outs {
        for args in [
            sign(&key, &m, None, out, &["--force"]),
            vec!["keygen", "--scheme", "ecdsa-k163", "--out", out, "--force"],
        ] {
            let o = e.run(&args);
            assert_eq!(code(&o), 2, "{args:?}: {}", text(&o));
            assert!(
                text(&o).contains(&format!("{out}: is a "))
                    && text(&o).contains("not a regular file"),
                "{args:?}: {}",
                text(&o)
            );
        }
    }
    let kind = |p: &str| std::fs::symlink_metadata(p).unwrap().file_type();
    assert!(kind(&fifo).is_fifo());
    assert!(kind(&socket).is_socket());
    for (name, to) in &links {
        assert!(kind(&e.p(name)).is_symlink());
        assert_eq!(std::fs::read_link(e.path(name)).unwrap(), Path::new(to));
    }
    assert_eq!(read(&target), b"kept");
    assert!(!e.path("nowhere").exists());
    // Without --force a FIFO is not called a file that --force could replace.
    let o = e.run(&sign(&key, &m, None, &fifo, &[]));
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(!text(&o).contains("--force"), "{}", text(&o));
    let mut left = e.names();
    left.retain(|n| n.contains("hopsig-tmp") || n.ends_with(".pub") && n != "k.pub");
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_write_error_leaves_the_old_files_and_nothing_else() {
    let e = Scratch::new();
    let key = e.p("k");
    e.ok(&["keygen", "--scheme", "bgr-rsa2048", "--out", &key]);
    let pub_ = format!("{key}.pub");
    let (old_key, old_pub) = (read(&key), read(&pub_));
    // Replacing: the secret key (about 1.8 kB) cannot be written.
    let o = e.run_tiny_limit(&[
        "keygen",
        "--scheme",
        "bgr-rsa2048",
        "--out",
        &key,
        "--force",
    ]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(text(&o).contains("File too large"), "{}", text(&o));
    assert_eq!(read(&key), old_key);
    assert_eq!(read(&pub_), old_pub);
    assert_eq!(e.names(), ["k", "k.pub"]);
    // A new pair: neither file appears, not even empty.
    let fresh = e.p("fresh");
    let o = e.run_tiny_limit(&["keygen", "--scheme", "bgr-rsa2048", "--out", &fresh]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert_eq!(e.names(), ["k", "k.pub"]);
}

#[test]
fn multi_file_outputs_appear_together_or_not_at_all() {
    let e = Scratch::new();
    // ic ttp: ttp.pub is in the way, so ttp.key must not appear either.
    let ttp = e.p("ttp");
    std::fs::create_dir(&ttp).unwrap();
    std::fs::write(format!("{ttp}/ttp.pub"), b"mine").unwrap();
    e.exits(2, &["ic", "ttp", "--out", &ttp], "ttp.pub: already exists");
    assert_eq!(names_in(Path::new(&ttp)), ["ttp.pub"]);
    std::fs::remove_file(format!("{ttp}/ttp.pub")).unwrap();
    e.ok(&["ic", "ttp", "--out", &ttp]);
    assert_eq!(mode(&format!("{ttp}/ttp.key")), 0o600);
    // ic request: the .req is in the way, so no blind either.
    let blind = e.p("a.blind");
    e.write("a.blind.req", b"mine");
    e.exits(
        2,
        &["ic", "request", "--out", &blind],
        "a.blind.req: already exists",
    );
    assert!(!Path::new(&blind).exists());
    std::fs::remove_file(format!("{blind}.req")).unwrap();
    e.ok(&["ic", "request", "--out", &blind]);
    let issued = e.p("a.issued");
    e.ok(&[
        "ic",
        "issue",
        "--ttp",
        &ttp,
        "--id",
        "2001:db8::17",
        "--request",
        &format!("{blind}.req"),
        "--out",
        &issued,
    ]);
    // ic finalize: the .cert is in the way, so no key either.
    let key = e.p("a.key");
    e.write("a.key.cert", b"mine");
    let finalize = [
        "ic",
        "finalize",
        "--blind",
        &blind,
        "--issued",
        &issued,
        "--ttp-pub",
        &format!("{ttp}/ttp.pub"),
        "--out",
        &key,
    ];
    e.exits(2, &finalize, "a.key.cert: already exists");
    assert!(!Path::new(&key).exists());
    std::fs::remove_file(format!("{key}.cert")).unwrap();
    e.ok(&finalize);
    // keygen and pkg setup likewise.
    e.write("k.pub", b"mine");
    e.exits(
        2,
        &[
            "keygen",
            "--scheme",
            "ecdsa-p256-concat",
            "--out",
            &e.p("k"),
        ],
        "k.pub: already exists",
    );
    assert!(!Path::new(&e.p("k")).exists());
    let pkg = e.p("pkg");
    std::fs::create_dir(&pkg).unwrap();
    std::fs::write(format!("{pkg}/params.pub"), b"mine").unwrap();
    e.exits(
        2,
        &["pkg", "setup", "--out", &pkg],
        "params.pub: already exists",
    );
    assert_eq!(names_in(Path::new(&pkg)), ["params.pub"]);
}

#[test]
fn bench_and_reproduce_check_their_outputs_before_measuring() {
    let e = Scratch::new();
    let json = e.write("t.json", b"earlier results");
    let missing = e.p("no/such/folder/t.json");
    let under_file = format!("{json}/t.json");
    for (out, needle) in [
        (&json, "already exists"),
        (&missing, "No such file"),
        (&under_file, "Not a directory"),
    ] {
        let started = std::time::Instant::now();
        let o = e.exits(2, &["bench", "table1", "--quick", "--json", out], needle);
        // Nothing was measured: no table on stdout, no progress on stderr.
        assert!(o.stdout.is_empty(), "{}", text(&o));
        assert!(!text(&o).contains("[1/"), "{}", text(&o));
        assert!(started.elapsed().as_secs() < 20);
    }
    assert_eq!(read(&json), b"earlier results");
    let report = e.p("report");
    std::fs::create_dir(&report).unwrap();
    std::fs::write(format!("{report}/report.md"), b"last month's report").unwrap();
    let o = e.exits(
        2,
        &["reproduce", "--quick", "--out", &report],
        "report.md: already exists",
    );
    assert!(o.stdout.is_empty(), "{}", text(&o));
    assert_eq!(names_in(Path::new(&report)), ["report.md"]);
}

#[test]
fn a_copied_linked_or_re_extracted_moderator_key_cannot_sign_twice_under_one_w() {
    // Reproduction of the attack: a second file holding the moderator's key signs a
    // different message under the same incoming w. Before journals were bound to the
    // key, each file had its own KEY.wlog and both aggregates verified.
    let e = Scratch::new();
    let ib = e.ibas();
    let (m2, a2) = (e.write("m2", b"accepted, rating 5"), e.p("a2"));
    e.ok(&sign(&ib.gov, &m2, Some(&ib.a1), &a2, &[]));
    assert_eq!(code(&ib.verify(&e, &m2, &a2)), 0);

    let copy = e.p("gov-copy.key");
    std::fs::copy(&ib.gov, &copy).unwrap();
    let link = e.p("gov-link.key");
    std::fs::hard_link(&ib.gov, &link).unwrap();
    let again = e.p("gov-again.key");
    e.ok(&[
        "pkg",
        "extract",
        "--pkg",
        &ib.pkg,
        "--id",
        "/moderators/Government",
        "--out",
        &again,
    ]);
    let m3 = e.write("m3", b"rejected");
    for (key, out) in [(&copy, "a3"), (&link, "a4"), (&again, "a5")] {
        let out = e.p(out);
        e.exits(
            2,
            &sign(key, &m3, Some(&ib.a1), &out, &[]),
            "already signed another message under w",
        );
        assert!(!Path::new(&out).exists());
    }
    // One journal in the state folder, named by the key, private; none beside keys.
    let journals = names_in(&e.path("state"));
    assert_eq!(journals.len(), 2, "{journals:?}"); // Alice's and the Government's
    assert!(journals
        .iter()
        .all(|n| n.starts_with("ibas-") && n.ends_with(".wlog")));
    assert_eq!(mode(e.path("state").to_str().unwrap()), 0o700);
    for j in &journals {
        assert_eq!(mode(e.path("state").join(j).to_str().unwrap()), 0o600);
    }
    assert!(
        !e.names().iter().any(|n| n.ends_with(".wlog")),
        "{:?}",
        e.names()
    );
}

#[test]
fn an_explicit_journal_serves_one_key_only() {
    let e = Scratch::new();
    let ib = e.ibas();
    let journal = e.p("shared.wlog");
    let m = e.write("m", b"hello");
    e.ok(&sign(
        &ib.alice,
        &m,
        None,
        &e.p("x1"),
        &["--journal", &journal, "--new-journal"],
    ));
    e.exits(
        2,
        &sign(&ib.gov, &m, None, &e.p("x2"), &["--journal", &journal]),
        "journal of another key",
    );
    assert!(!Path::new(&e.p("x2")).exists());
    // A symlink or device as journal is refused.
    let link = e.p("link.wlog");
    std::os::unix::fs::symlink(&journal, &link).unwrap();
    for j in [link.as_str(), "/dev/null"] {
        e.exits(
            2,
            &sign(&ib.alice, &m, None, &e.p("x3"), &["--journal", j]),
            "not a regular file",
        );
    }
    // --state-dir overrides HOPSIG_STATE_DIR.
    let other = e.p("other-state");
    e.ok(&sign(
        &ib.alice,
        &m,
        None,
        &e.p("x4"),
        &["--state-dir", &other, "--new-journal"],
    ));
    assert_eq!(names_in(Path::new(&other)).len(), 1);
}

#[test]
fn a_countersignature_that_could_not_be_written_can_be_retried() {
    let e = Scratch::new();
    let ib = e.ibas();
    let m2 = e.write("m2", b"accepted, rating 5");
    // An output that cannot be written is found before w is claimed.
    let nowhere = e.p("missing-folder/a2");
    let o = e.exits(
        2,
        &sign(&ib.gov, &m2, Some(&ib.a1), &nowhere, &[]),
        "missing-folder",
    );
    assert!(!text(&o).contains("already signed"));
    // w claimed for m2, then the output lost (a failure after the claim: a full disk,
    // a crash before the file was placed, a deleted file). Signing the same message
    // under the same w again is allowed and yields the very same signature.
    let a2 = e.p("a2");
    e.ok(&sign(&ib.gov, &m2, Some(&ib.a1), &a2, &[]));
    let first = read(&a2);
    std::fs::remove_file(&a2).unwrap();
    e.ok(&sign(&ib.gov, &m2, Some(&ib.a1), &a2, &[]));
    assert_eq!(read(&a2), first);
    assert_eq!(code(&ib.verify(&e, &m2, &a2)), 0);
    // A different message under that w: refused.
    let m3 = e.write("m3", b"rejected");
    e.exits(
        2,
        &sign(&ib.gov, &m3, Some(&ib.a1), &e.p("a3"), &[]),
        "already signed another message",
    );
}

#[test]
fn a_version_1_journal_beside_the_key_is_honoured() {
    let e = Scratch::new();
    let ib = e.ibas();
    // hopsig before journals were bound to keys kept KEY.wlog: one w per line.
    let w = hex::encode(&read(&ib.a1)[7..23]);
    e.write("gov.key.wlog", format!("{w}\n").as_bytes());
    let m2 = e.write("m2", b"accepted");
    e.exits(
        2,
        &sign(&ib.gov, &m2, Some(&ib.a1), &e.p("a2"), &[]),
        "already signed another message",
    );
    // Anything else at that name is refused as what hopsig took it for, unquoted.
    e.write("gov.key.wlog", b"Not a journal: hunter2\n");
    let o = e.exits(
        2,
        &sign(&ib.gov, &m2, Some(&ib.a1), &e.p("a2"), &[]),
        "gov.key.wlog: line 1: not a line of a version-1 IBAS journal",
    );
    assert!(!text(&o).contains("hunter2"), "{}", text(&o));
    assert!(!e.path("a2").exists());
}

/// The system calls behind one secret output and one journal entry, checked with
/// strace: exclusive creation with mode 0600, fchmod before the first write, fsync
/// before the name appears, no-clobber link, folder fsync; the journal locked, each
/// entry one write, fsynced, and its folder fsynced when it is created.
#[test]
fn writes_follow_the_crash_safe_sequence() {
    let available = Command::new("strace")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !available {
        assert!(
            std::env::var_os("CI").is_none(),
            "strace is required in CI (.ci/run installs it)"
        );
        eprintln!("SKIPPED: strace not installed");
        return;
    }
    let e = Scratch::new();
    let trace = |args: &[&str]| -> Vec<String> {
        let log = e.dir.path().join("strace.log");
        let o = Command::new("strace")
            .args(["-f", "-qq", "-s", "0", "-o"])
            .arg(&log)
            .args([
                "-e",
                "trace=openat,fchmod,write,fsync,fdatasync,link,linkat,rename,renameat,renameat2,unlink,unlinkat,flock,ftruncate",
            ])
            .arg(env!("CARGO_BIN_EXE_hopsig"))
            .args(args)
            .env("HOPSIG_STATE_DIR", e.path("state"))
            .output()
            .unwrap();
        assert_eq!(code(&o), 0, "{}", text(&o));
        let lines = std::fs::read_to_string(&log).unwrap();
        std::fs::remove_file(&log).unwrap();
        // Drop the pid column strace -f may add.
        lines
            .lines()
            .map(|l| {
                let rest = l.trim_start_matches(|c: char| c.is_ascii_digit());
                if rest.len() < l.len() && rest.starts_with(' ') {
                    rest.trim().to_string()
                } else {
                    l.trim().to_string()
                }
            })
            .collect()
    };
    let position = |calls: &[String], what: &dyn Fn(&str) -> bool, from: usize| {
        calls[from..]
            .iter()
            .position(|c| what(c))
            .map(|i| i + from)
            .unwrap_or_else(|| panic!("not found after call {from}:\n{}", calls.join("\n")))
    };
    let fd_of = |call: &str| call.rsplit("= ").next().unwrap().trim().to_string();

    // keygen: the secret key, from the temporary file that becomes it.
    let key = e.p("k");
    let calls = trace(&["keygen", "--scheme", "ecdsa-p256-concat", "--out", &key]);
    let link = position(
        &calls,
        &|c| c.starts_with("linkat(") && c.contains(&format!("\"{key}\"")),
        0,
    );
    let tmp = calls[link].split('"').nth(1).unwrap().to_string();
    assert!(tmp.contains("/.k.") && tmp.ends_with("hopsig-tmp"), "{tmp}");
    let open = position(
        &calls,
        &|c| c.starts_with("openat(") && c.contains(&format!("\"{tmp}\"")),
        0,
    );
    assert!(
        calls[open].contains("O_CREAT|O_EXCL") && calls[open].contains("0600"),
        "{}",
        calls[open]
    );
    let fd = fd_of(&calls[open]);
    let chmod = position(
        &calls,
        &|c| c.starts_with(&format!("fchmod({fd}, 0600")),
        open,
    );
    let write = position(&calls, &|c| c.starts_with(&format!("write({fd},")), open);
    assert!(chmod < write, "mode set after the first byte");
    let sync = position(&calls, &|c| c.starts_with(&format!("fsync({fd})")), write);
    assert!(sync < link, "the name appears before the bytes are on disk");
    let unlink = position(
        &calls,
        &|c| c.starts_with("unlink") && c.contains(&format!("\"{tmp}\"")),
        link,
    );
    // The folder is opened and fsynced after the names are placed.
    let dir = e.dir.path().to_string_lossy().into_owned();
    let dir_open = position(
        &calls,
        &|c| c.starts_with("openat(") && c.contains(&format!("\"{dir}\"")),
        unlink,
    );
    position(
        &calls,
        &|c| c.starts_with(&format!("fsync({})", fd_of(&calls[dir_open]))),
        dir_open,
    );

    // An IBAS signature: the journal is created, locked, its header and entry written
    // in one write each, fsynced, its folder fsynced.
    let pkg = e.p("pkg");
    e.ok(&["pkg", "setup", "--out", &pkg]);
    let alice = e.p("alice.key");
    e.ok(&[
        "pkg", "extract", "--pkg", &pkg, "--id", "/a", "--out", &alice,
    ]);
    let m = e.write("m", b"hello");
    std::fs::create_dir(e.path("state")).unwrap();
    let calls = trace(&sign(&alice, &m, None, &e.p("a1"), &[]));
    let state = e.path("state").to_string_lossy().into_owned();
    let open = position(
        &calls,
        &|c| c.starts_with("openat(") && c.contains(&format!("{state}/ibas-")),
        0,
    );
    assert!(calls[open].contains("O_EXCL") && calls[open].contains("0600"));
    let fd = fd_of(&calls[open]);
    let writes: Vec<usize> = (open..calls.len())
        .filter(|&i| calls[i].starts_with(&format!("write({fd},")))
        .collect();
    assert_eq!(writes.len(), 2, "header and one entry, one write each");
    let lock = position(
        &calls,
        &|c| c.starts_with(&format!("flock({fd}, LOCK_EX)")),
        open,
    );
    assert!(lock < writes[0]);
    let header_sync = position(
        &calls,
        &|c| c.starts_with(&format!("fsync({fd})")),
        writes[0],
    );
    let dir_open = position(
        &calls,
        &|c| c.starts_with("openat(") && c.contains(&format!("\"{state}\"")),
        header_sync,
    );
    let dir_sync = position(
        &calls,
        &|c| c.starts_with(&format!("fsync({})", fd_of(&calls[dir_open]))),
        dir_open,
    );
    assert!(dir_sync < writes[1]);
    let entry_sync = position(
        &calls,
        &|c| c.starts_with(&format!("fsync({fd})")),
        writes[1],
    );
    // The aggregate is written only after the entry is on disk.
    position(
        &calls,
        &|c| c.starts_with("openat(") && c.contains("/.a1.") && c.contains("hopsig-tmp"),
        entry_sync,
    );

    // The existing journal is opened without following a symlink or waiting on a
    // FIFO or device swapped in after it was looked at.
    let journal_open = |calls: &[String]| {
        position(
            calls,
            &|c| c.starts_with("openat(") && c.contains(&format!("{state}/ibas-")),
            0,
        )
    };
    let calls = trace(&sign(&alice, &m, None, &e.p("a2"), &[]));
    let open = journal_open(&calls);
    assert!(
        calls[open].contains("O_NOFOLLOW") && calls[open].contains("O_NONBLOCK"),
        "{}",
        calls[open]
    );

    // A version-1 journal of 20 lines beside the key: imported under one lock with
    // one write, not one lock per line.
    let v1: String = (0..20u8)
        .map(|i| format!("{}\n", hex::encode([i; 16])))
        .collect();
    std::fs::write(format!("{alice}.wlog"), v1).unwrap();
    let calls = trace(&sign(&alice, &m, None, &e.p("a3"), &[]));
    let open = journal_open(&calls);
    let fd = fd_of(&calls[open]);
    let count = |prefix: String| {
        calls[open..]
            .iter()
            .filter(|c| c.starts_with(&prefix))
            .count()
    };
    assert_eq!(
        count(format!("flock({fd}, LOCK_EX")),
        3,
        "open, import and claim: {}",
        calls.join("\n")
    );
    assert_eq!(count(format!("write({fd},")), 2, "the import and the claim");
}

/// The attack on a journal chosen by location: the moderator countersigned m2 under
/// Alice's w (its journal in the state folder records it); a fresh `--journal` or
/// `--state-dir` knows nothing of that w and would let it sign m3 under the same w,
/// after which anyone can forge its signatures. A journal named on the command line
/// must exist: without `--new-journal` the signature is refused (exit 2) and nothing
/// is created. (Before, the fresh journal was created silently and both aggregates
/// verified.)
#[test]
fn a_fresh_journal_named_on_the_command_line_is_refused() {
    let e = Scratch::new();
    let ib = e.ibas();
    let (m2, a2) = (e.write("m2", b"accepted, rating 5"), e.p("a2"));
    e.ok(&sign(&ib.gov, &m2, Some(&ib.a1), &a2, &[]));
    let m3 = e.write("m3", b"rejected");
    let a3 = e.p("a3");
    let fresh = e.p("fresh.wlog");
    let o = e.exits(
        2,
        &sign(&ib.gov, &m3, Some(&ib.a1), &a3, &["--journal", &fresh]),
        "fresh.wlog: no IBAS journal here yet",
    );
    assert!(text(&o).contains("--new-journal"), "{}", text(&o));
    assert!(!Path::new(&fresh).exists());
    // An empty file is no journal yet either, and stays empty.
    let empty = e.write("empty.wlog", b"");
    e.exits(
        2,
        &sign(&ib.gov, &m3, Some(&ib.a1), &a3, &["--journal", &empty]),
        "no IBAS journal here yet",
    );
    assert_eq!(read(&empty), b"");
    // A state folder named on the command line: the same, and no folder appears.
    let elsewhere = e.p("elsewhere");
    e.exits(
        2,
        &sign(
            &ib.gov,
            &m3,
            Some(&ib.a1),
            &a3,
            &["--state-dir", &elsewhere],
        ),
        "no IBAS journal here yet",
    );
    assert!(!Path::new(&elsewhere).exists());
    assert!(!Path::new(&a3).exists());
    // --new-journal: the operator takes it on; the new journal is named on stderr.
    let o = e.ok(&sign(
        &ib.gov,
        &m3,
        Some(&ib.a1),
        &a3,
        &["--journal", &fresh, "--new-journal"],
    ));
    assert!(
        common::stderr(&o).contains(&format!("started the IBAS journal {fresh}")),
        "{}",
        text(&o)
    );
}

/// Whenever `hopsig sign` creates a journal (in the default state folder too), a note
/// on standard error names it; using an existing one says nothing.
#[test]
fn a_new_journal_is_announced() {
    let e = Scratch::new();
    let pkg = e.pkg(&[("/a", "a.key")]);
    assert!(!pkg.is_empty());
    let m = e.write("m", b"hello");
    let o = e.ok(&sign(&e.p("a.key"), &m, None, &e.p("s1"), &[]));
    let note = common::stderr(&o);
    let state = e.p("state");
    assert!(
        note.starts_with(&format!(
            "hopsig: note: started the IBAS journal {state}/ibas-"
        )) && note.contains("\"/a\""),
        "{note}"
    );
    assert_eq!(note.lines().count(), 1, "{note}");
    let o = e.ok(&sign(&e.p("a.key"), &m, None, &e.p("s2"), &[]));
    assert!(o.stderr.is_empty(), "{}", text(&o));
}

/// `--journal` pointing at a file that is not a journal names it and says so, but
/// never quotes it: it may be a secret (a token, a raw key with no newline).
#[test]
fn a_file_given_as_journal_is_never_quoted() {
    let e = Scratch::new();
    let ib = e.ibas();
    let m = e.write("m", b"hello");
    for (i, secret) in [
        &b"API_TOKEN=hunter2-0123456789\n"[..],
        b"API_TOKEN=hunter2-0123456789",
        b"\x8f\x02hunter2\x13\x37\xfe\x00\x01",
    ]
    .into_iter()
    .enumerate()
    {
        let path = e.write(&format!("secret{i}.txt"), secret);
        let o = e.exits(
            2,
            &sign(&ib.alice, &m, None, &e.p("x"), &["--journal", &path]),
            &format!("secret{i}.txt: not an IBAS journal"),
        );
        assert!(!text(&o).contains("hunter2"), "{}", text(&o));
        assert_eq!(read(&path), secret);
    }
}

/// A FIFO where a journal or an input should be is refused at once, not waited on.
#[test]
fn a_fifo_is_refused_without_waiting() {
    let e = Scratch::new();
    let ib = e.ibas();
    let fifo = e.p("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let m = e.write("m", b"hello");
    for args in [
        sign(&ib.alice, &m, None, &e.p("x"), &["--journal", &fifo]),
        sign(&ib.alice, &fifo, None, &e.p("x"), &[]),
        sign(&fifo, &m, None, &e.p("x"), &[]),
        vec!["inspect", &fifo],
    ] {
        let mut child = e
            .cmd(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed().as_secs() > 20 {
                child.kill().unwrap();
                panic!("{args:?}: still waiting on the FIFO");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let o = child.wait_with_output().unwrap();
        assert_eq!(code(&o), 2, "{args:?}: {}", text(&o));
        assert!(text(&o).contains("not a regular file"), "{}", text(&o));
    }
}
