//! The `hopsig` binary's messages (issue 11 §4): usage errors in one line, a closed
//! pipe ends the output quietly, a full standard output is one error line, control
//! characters from any input are escaped (so a file name cannot forge a `valid:` line),
//! and every error names the file and its real cause.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Stdio;

use common::{code, one_line, sign, stderr, stdout, text, verify, Scratch};

/// Usage errors from the argument parser: exactly one line `hopsig: error: …` on
/// standard error, nothing on standard output, exit 2; `--help` and `--version` print
/// on standard output and exit 0.
#[test]
fn usage_errors_are_one_line_and_exit_2() {
    let s = Scratch::new();
    let cases: &[(&[&str], &str)] = &[
        (&[], "'hopsig' needs a command: schemes, keygen"),
        (
            &["ic"],
            "'hopsig ic' needs a command: ttp, request, issue, finalize, certify-key, verify",
        ),
        (&["frobnicate"], "unrecognized subcommand 'frobnicate'"),
        (
            &["keygen", "--sheme", "x"],
            "tip: a similar argument exists: '--scheme'",
        ),
        (
            &["keygen", "--scheme"],
            "a value is required for '--scheme <SCHEME>'",
        ),
        (
            &["ic", "--curve", "k999", "ttp", "--out", "x"],
            "invalid value 'k999' for '--curve <CURVE>' (possible values: k163, k233, k283)",
        ),
        (
            &["verify", "--scheme", "ecdsa-k163", "--agg", "a"],
            "--msg <MSGS>",
        ),
        (&["bench"], "<SUITE>"),
    ];
    for (args, needle) in cases {
        let o = s.run(args);
        assert_eq!(code(&o), 2, "{args:?}: {}", text(&o));
        assert!(o.stdout.is_empty(), "{args:?}: {}", text(&o));
        let line = one_line(&o.stderr);
        assert!(line.starts_with("hopsig: error: "), "{args:?}: {line}");
        assert!(line.contains(needle), "{args:?}: {needle:?} not in {line}");
    }
    for args in [
        &["--help"][..],
        &["--version"],
        &["sign", "--help"],
        &["ic", "verify", "--help"],
    ] {
        let o = s.run(args);
        assert_eq!(code(&o), 0, "{args:?}: {}", text(&o));
        assert!(o.stderr.is_empty() && !o.stdout.is_empty(), "{args:?}");
    }
}

/// The message and aggregate size limits are in `--help` (and README).
#[test]
fn help_states_the_size_limits() {
    let s = Scratch::new();
    for args in [&["--help"][..], &["sign", "--help"], &["verify", "--help"]] {
        let help = stdout(&s.ok(args));
        for limit in [
            "message files 16 MiB",
            "aggregate and signature files 4 MiB",
            "key files 64 KiB",
            "at most 4096 signers",
        ] {
            assert!(help.contains(limit), "{args:?}: {limit:?} not in {help}");
        }
    }
}

/// A reader that closed the pipe (`hopsig schemes | head -1`) ends the output quietly:
/// no error, no "internal error", the command's own exit status (0, or 1 for an invalid
/// signature). The pipe's read end is closed before hopsig starts, so every write meets
/// EPIPE.
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    let s = Scratch::new();
    let key = s.keygen("ecdsa-k163", "k");
    let msg = s.write("m", "route");
    let agg = s.p("agg");
    s.ok(&sign(&key, &msg, None, &agg, &[]));
    let other = s.write("other", "other route");
    let pubkey = format!("{key}.pub");
    let cases: &[(&[&str], i32)] = &[
        (&["schemes"], 0),
        (&["schemes", "--json"], 0),
        (&["inspect", &agg], 0),
        (&verify("ecdsa-k163", &[(&pubkey, &msg)], &agg), 0),
        (&verify("ecdsa-k163", &[(&pubkey, &other)], &agg), 1),
        (&["--help"], 0),
    ];
    for (args, want) in cases {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let o = s
            .cmd(args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(code(&o), *want, "{args:?}: {}", stderr(&o));
        assert!(o.stderr.is_empty(), "{args:?}: {}", stderr(&o));
    }
}

/// A full standard output (`> /dev/full`) is one error line and exit 2, never an
/// "internal error" or a panic trace.
#[test]
fn a_full_standard_output_is_one_error_line() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("a_full_standard_output_is_one_error_line: skipped, no /dev/full");
        return;
    };
    let s = Scratch::new();
    for args in [
        &["schemes"][..],
        &["--help"],
        &["kcx", "path", "--variant", "rsa", "--hops", "2"],
    ] {
        let o = s
            .cmd(args)
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        let line = one_line(&o.stderr);
        assert!(
            line.starts_with(
                "hopsig: error: cannot write to standard output: No space left on device"
            ),
            "{args:?}: {line}"
        );
    }
}

/// Control characters from any input are escaped in messages: a newline in a file name
/// cannot forge a `valid:` line on standard output, nor a second line on standard
/// error; neither can a key file's header, a scheme id or an identity.
#[test]
fn file_names_and_header_values_cannot_forge_lines() {
    let s = Scratch::new();
    let key = s.keygen("ecdsa-k163", "k");
    let pubkey = format!("{key}.pub");
    let msg = s.write("m", "route");
    let forged = "\nvalid: 1 signers, ecdsa-k163\n";

    // An aggregate named "x\nvalid: …" that does not verify: exit 1 and one line
    // "invalid: …", no line starting with "valid:".
    let agg = s.p(&format!("agg{forged}"));
    s.ok(&sign(&key, &s.write("other", "other"), None, &agg, &[]));
    let o = s.run(&verify("ecdsa-k163", &[(&pubkey, &msg)], &agg));
    assert_eq!(code(&o), 1, "{}", text(&o));
    let line = one_line(&o.stdout);
    assert!(
        line.starts_with("invalid: ") && line.contains("agg\\nvalid: 1 signers"),
        "{line}"
    );

    // sign, keygen and inspect print output file names on standard output.
    let out = s.p(&format!("out{forged}"));
    let o = s.ok(&sign(&key, &msg, None, &out, &[]));
    one_line(&o.stdout);
    let o = s.ok(&[
        "keygen",
        "--scheme",
        "ecdsa-k163",
        "--out",
        &s.p(&format!("k2{forged}")),
    ]);
    assert!(
        stdout(&o).lines().all(|l| !l.starts_with("valid")),
        "{}",
        stdout(&o)
    );
    assert_eq!(stdout(&o).lines().count(), 2);

    // Errors: a missing file, a scheme id, all quoted on one line.
    for args in [
        verify(
            "ecdsa-k163",
            &[(&pubkey, &msg)],
            &s.p(&format!("missing{forged}")),
        ),
        verify("x\nvalid: 1 signers", &[(&pubkey, &msg)], &out),
        vec!["keygen", "--scheme", "\u{1b}[2Jx", "--out", &s.p("k3")],
    ] {
        let o = s.run(&args);
        assert_eq!(code(&o), 2, "{args:?}: {}", text(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
        let line = one_line(&o.stderr);
        assert!(
            line.contains("\\n") || line.contains("\\u{1b}"),
            "{args:?}: {line}"
        );
    }

    // An identity on standard output.
    let pkg = s.pkg(&[]);
    let id = "a\nvalid: 2 signers";
    let o = s.ok(&[
        "pkg",
        "extract",
        "--pkg",
        &pkg,
        "--id",
        id,
        "--out",
        &s.p("u"),
    ]);
    assert!(
        one_line(&o.stdout).contains("a\\nvalid: 2 signers"),
        "{}",
        stdout(&o)
    );

    // A key file whose header carries control characters: the message escapes them.
    let text_of = |name: &str| std::fs::read_to_string(s.path(name)).unwrap();
    for (header, value) in [
        ("scheme", "ecdsa-k163\u{1b}]0;owned\u{7}"),
        ("kind", "secret\rvalid: x"),
    ] {
        let original = text_of("k");
        let line = original.lines().find(|l| l.starts_with(header)).unwrap();
        let edited = original.replacen(line, &format!("{header}: {value}"), 1);
        let bad = s.write("bad.key", edited);
        let o = s.run(&sign(&bad, &msg, None, &s.p("o"), &[]));
        assert_eq!(code(&o), 2, "{}", text(&o));
        let line = one_line(&o.stderr);
        assert!(
            line.contains("bad.key") && line.contains("not printable ASCII"),
            "{line}"
        );
    }
}

/// `--journal` given with a malformed key: the error is the key file's, not "journal
/// is for IBAS keys".
#[test]
fn a_malformed_key_is_blamed_whatever_else_is_given() {
    let s = Scratch::new();
    let bad = s.write(
        "bad.key",
        "hopsig-key: 1\nscheme: ibas-bls12381\nkind secret\n",
    );
    let msg = s.write("m", "m");
    let o = s.exits(
        2,
        &sign(&bad, &msg, None, &s.p("o"), &["--journal", &s.p("j")]),
        "bad.key: malformed key file: line 3",
    );
    assert!(!text(&o).contains("--journal"), "{}", text(&o));
    // A sequential key with --journal: the option is what is wrong.
    let key = s.keygen("ecdsa-k163", "k");
    s.exits(
        2,
        &sign(&key, &msg, None, &s.p("o"), &["--journal", &s.p("j")]),
        "--journal and --state-dir are for ibas-bls12381 keys; this is a ecdsa-k163 key",
    );
}

/// A key file `hopsig sign` cannot sign with, because of the scheme it names, is blamed
/// by name with what it is: one of the implicit-certificate files of `hopsig ic` (not
/// the key `ic finalize` makes from them), or a key file of a scheme hopsig does not
/// know. `keygen --scheme icnr-k163` points to `hopsig ic` as `keygen --scheme
/// ibas-bls12381` points to `hopsig pkg`.
#[test]
fn a_key_file_of_no_signature_scheme_is_named_with_what_it_is() {
    let s = Scratch::new();
    let ic = s.implicit_certificate("k163", "2001:db8::17");
    let ttp_key = format!("{}/ttp.key", ic.ttp);
    let out = s.p("out");
    for file in [
        &ic.blind,
        &ic.request,
        &ic.issued,
        &ic.cert,
        &ttp_key,
        &ic.ttp_pub,
    ] {
        let o = s.exits(
            2,
            &sign(file, &ic.msg, None, &out, &[]),
            &format!("{file}: "),
        );
        let line = one_line(&o.stderr);
        assert!(
            line.contains("icnr-k163") && line.contains("hopsig ic finalize"),
            "{line}"
        );
    }
    let key = s.keygen("ecdsa-k163", "k");
    let text = std::fs::read_to_string(&key).unwrap();
    let odd = s.write(
        "odd.key",
        text.replace("scheme: ecdsa-k163", "scheme: ecdsa-k999"),
    );
    s.exits(
        2,
        &sign(&odd, &ic.msg, None, &out, &[]),
        &format!("{odd}: unknown scheme 'ecdsa-k999'"),
    );
    s.exits(
        2,
        &["keygen", "--scheme", "icnr-k163", "--out", &s.p("new")],
        "icnr-k163 is the scheme id of the implicit-certificate files of `hopsig ic`",
    );
    assert!(!s.path("out").exists() && !s.path("new").exists());
}

/// An `-rBITS` alias hopsig does not accept (docs/spec/bgr.md §1) says which BITS there
/// are, rather than only "unknown scheme".
#[test]
fn an_r_bits_alias_out_of_range_says_which_there_are() {
    let s = Scratch::new();
    for id in [
        "bgr-rand-rsa2048-r63",
        "bgr-rand-rsa2048-r264",
        "bgr-rand-rsa3072-r0152",
        "bgr-rand-rsa2048-r",
    ] {
        s.exits(
            2,
            &["keygen", "--scheme", id, "--out", &s.p("new")],
            &format!("unknown scheme '{id}': the -rBITS aliases of bgr-rand-rsa"),
        );
    }
    s.exits(
        2,
        &[
            "keygen",
            "--scheme",
            "bgr-rand-rsa2048-r63",
            "--out",
            &s.p("new"),
        ],
        "64..=256, a multiple of 8",
    );
}

/// IBAS verification: `--pkg` with `--params` says they exclude each other; a repeated
/// `--id` is invalid (exit 1, ibas.md) and the message says which identity repeats.
#[test]
fn ibas_verification_names_the_option_at_fault() {
    let s = Scratch::new();
    let pkg = s.pkg(&[("/friends/Alice", "alice.key")]);
    let m1 = s.write("m1", "I am safe");
    let a1 = s.p("a1");
    s.ok(&sign(&s.p("alice.key"), &m1, None, &a1, &[]));
    let params = format!("{pkg}/params.pub");
    let alice = ["--id", "/friends/Alice", "--msg", m1.as_str()];
    let ibas_verify = |agg: &str, extra: &[&[&str]]| {
        let mut args = vec!["verify", "--scheme", "ibas-bls12381", "--agg", agg];
        args.extend(extra.concat());
        args.iter().map(|a| a.to_string()).collect::<Vec<_>>()
    };
    let both = ["--pkg", pkg.as_str(), "--params", params.as_str()];
    let o = s.exits(
        2,
        &ibas_verify(&a1, &[&both, &alice]),
        "cannot be used with",
    );
    assert!(
        text(&o).contains("--pkg") && text(&o).contains("--params"),
        "{}",
        text(&o)
    );
    // Two pairs with one identity: well-formed, but invalid (ibas.md: an identity signs
    // at most once), and the message names it.
    let a2 = s.p("a2");
    s.ok(&sign(&s.p("alice.key"), &m1, Some(&a1), &a2, &[]));
    s.exits(
        1,
        &ibas_verify(&a2, &[&["--pkg", &pkg], &alice, &alice]),
        "a2 cannot verify: --id \"/friends/Alice\" is given twice (positions 1 and 2)",
    );
    s.ok(&ibas_verify(&a1, &[&["--params", &params], &alice]));
}

/// An aggregate that already holds 4096 signers: the error names the aggregate file
/// and says it is full, and an IBAS signer claims no w for it.
#[test]
fn a_full_aggregate_is_named() {
    let s = Scratch::new();
    s.pkg(&[
        ("/friends/Alice", "alice.key"),
        ("/moderators/Government", "gov.key"),
    ]);
    let m1 = s.write("m1", "I am safe");
    let a1 = s.p("a1");
    s.ok(&sign(&s.p("alice.key"), &m1, None, &a1, &[]));
    // The header's n (bytes 5 and 6) set to 4096: the aggregate still decodes.
    let mut full = std::fs::read(&a1).unwrap();
    full[5..7].copy_from_slice(&4096u16.to_be_bytes());
    let full = s.write("full.agg", full);
    s.ok(&["inspect", &full]);
    s.exits(
        2,
        &sign(&s.p("gov.key"), &m1, Some(&full), &s.p("a2"), &[]),
        "full.agg: already holds 4096 signers, the most an aggregate may hold",
    );
    // The journals record Alice's w only: the Government claimed none.
    let states: u64 = std::fs::read_dir(s.path("state"))
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path().to_string_lossy().into_owned();
            let o = s.ok(&["inspect", "--json", &path]);
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(v["file"], "IBAS journal", "{v}");
            v["states"].as_u64().unwrap()
        })
        .sum();
    assert_eq!(states, 1, "only Alice's w is recorded");

    // The same for a sequential scheme: 4096 copies of one ECDSA signature.
    let key = s.keygen("ecdsa-k163", "k");
    let one = s.p("one");
    s.ok(&sign(&key, &m1, None, &one, &[]));
    let one = std::fs::read(&one).unwrap();
    let mut full = one[..7].to_vec();
    full[5..7].copy_from_slice(&4096u16.to_be_bytes());
    for _ in 0..4096 {
        full.extend_from_slice(&one[7..]);
    }
    let full = s.write("full.k163", full);
    s.exits(
        2,
        &sign(&key, &m1, Some(&full), &s.p("o"), &[]),
        "full.k163: already holds 4096 signers",
    );
}

/// `ic issue` validates identities as `pkg extract` does: 1 to 1024 bytes.
#[test]
fn ic_issue_validates_identities_as_pkg_extract_does() {
    let s = Scratch::new();
    let ic = s.implicit_certificate("k163", "2001:db8::17");
    let long = "x".repeat(1025);
    for id in ["", long.as_str()] {
        let out = s.p("issued2");
        let issue = [
            "ic",
            "issue",
            "--ttp",
            &ic.ttp,
            "--id",
            id,
            "--request",
            &ic.request,
            "--out",
            &out,
        ];
        let o = s.exits(2, &issue, "--id: identity must be 1..=1024 bytes");
        let extract = s.run(&[
            "pkg",
            "extract",
            "--pkg",
            &s.pkg(&[]),
            "--id",
            id,
            "--out",
            &s.p("u"),
        ]);
        assert_eq!(code(&extract), 2);
        assert_eq!(
            stderr(&extract),
            stderr(&o),
            "the same rule, the same words"
        );
        assert!(!std::path::Path::new(&out).exists());
        std::fs::remove_dir_all(s.path("pkg")).unwrap();
    }
}

/// `kcx path --variant` and `--suite` are parsed like `ic --curve`: a wrong value is a
/// usage error listing the possible values, and `--help` lists them.
#[test]
fn kcx_choices_are_listed_like_other_choices() {
    let s = Scratch::new();
    for (args, needle) in [
        (
            ["kcx", "path", "--variant", "dsa", "--hops", "5"],
            "invalid value 'dsa' for '--variant <VARIANT>' (possible values: rsa, mt, hybrid)",
        ),
        (
            ["kcx", "path", "--variant", "mt", "--suite", "old"],
            "invalid value 'old' for '--suite <SUITE>' (possible values: modern, paper)",
        ),
    ] {
        let o = s.exits(2, &args, needle);
        assert!(o.stdout.is_empty());
        one_line(&o.stderr);
    }
    let help = stdout(&s.ok(&["kcx", "path", "--help"]));
    assert!(
        help.contains("Possible values:")
            && help.contains("- hybrid:")
            && help.contains("- paper:")
            && help.contains("[default: modern]"),
        "{help}"
    );
}

/// Benchmark progress goes to standard error through the one printer of notes: a
/// closed (`2>&-`) or full (`2>/dev/full`) standard error does not stop or crash the
/// run (`eprintln!` panics on a full one).
#[test]
fn bench_progress_survives_a_closed_or_full_stderr() {
    let s = Scratch::new();
    let bench = |how: &str| {
        std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("exec \"$0\" bench table2 --quick {how}"))
            .arg(env!("CARGO_BIN_EXE_hopsig"))
            .current_dir(s.dir.path())
            .stderr(Stdio::piped())
            .output()
            .unwrap()
    };
    let mut ways = vec!["2>&-"];
    if std::path::Path::new("/dev/full").exists() {
        ways.push("2>/dev/full");
    }
    for how in ways {
        let o = bench(how);
        assert_eq!(code(&o), 0, "{how}: {}", text(&o));
        assert!(stdout(&o).contains("K-163"), "{how}: {}", text(&o));
        assert!(!text(&o).contains("panicked"), "{how}: {}", text(&o));
    }
}
