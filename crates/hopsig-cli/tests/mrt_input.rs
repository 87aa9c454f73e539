//! Every MRT command reads MRT as the collectors publish it (issue 22 §3): the real
//! RouteViews bzip2 update file of crates/hopsig-bgp/tests/data/routeviews (its
//! README names the source) through `bgpsec sign-mrt`, `validate-mrt`, `inspect`,
//! `replay` and the speaker's `[originate_mrt]`; the file cut short, and files that
//! are not MRT, exit 2 naming the file and saying what is wrong with it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{stdout, text, Scratch};

/// route-views.jinx, 2015-04-01 00:00–00:15, as RouteViews publishes it.
fn routeviews() -> String {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../hopsig-bgp/tests/data/routeviews/route-views.jinx.updates.20150401.0000.bz2")
        .to_string_lossy()
        .into_owned()
}

fn sign_mrt<'a>(input: &'a str, out: &'a str, keys: &'a str) -> Vec<&'a str> {
    vec![
        "bgpsec", "sign-mrt", input, out, "--suite", "1", "--keys", keys, "--limit", "200",
    ]
}

/// A speaker configuration that originates up to 50 prefixes of `mrt`.
fn speaker_config(s: &Scratch, name: &str, mrt: &str) -> String {
    s.write(
        name,
        format!(
            "local_as = 65001\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nstate_file = \"{}\"\n\
             [originate_mrt]\nfile = \"{mrt}\"\nlimit = 50\n",
            s.p(&format!("{name}.json"))
        ),
    )
}

#[test]
fn every_mrt_command_reads_the_routeviews_bzip2_file() {
    let s = Scratch::new();
    let rv = routeviews();
    let (out, keys) = (s.p("signed.mrt"), s.p("keys"));
    let said = stdout(&s.ok(&sign_mrt(&rv, &out, &keys)));
    assert!(said.contains("signed: "), "{said}");
    let json = format!("{keys}/bgpsec_keys.json");
    // The signed output, bzip2-compressed in turn, validates: every UPDATE valid.
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    bz.write_all(&std::fs::read(&out).unwrap()).unwrap();
    let signed_bz2 = s.write("signed.mrt.bz2", bz.finish().unwrap());
    let o = s.ok(&["bgpsec", "validate-mrt", &signed_bz2, "--keys", &json]);
    assert!(stdout(&o).contains("\nnot valid: 0\n"), "{}", text(&o));
    // The RouteViews file itself holds no BGPsec UPDATE: read whole, all unsigned.
    let o = s.exits(
        1,
        &["bgpsec", "validate-mrt", &rv, "--keys", &json],
        "unsigned",
    );
    assert!(stdout(&o).contains("invalid: "), "{}", text(&o));
    let shown = stdout(&s.ok(&["bgpsec", "inspect", &rv]));
    assert!(shown.lines().filter(|l| l.starts_with("A|")).count() > 1_000);
    let shown = stdout(&s.ok(&[
        "replay",
        &rv,
        "--schemes",
        "none",
        "--limit",
        "20",
        "--out",
        &s.p("fig"),
    ]));
    assert!(shown.contains("first 20 announcements"), "{shown}");
    // The speaker originates the file's prefixes: its log says so, then it is stopped.
    let config = speaker_config(&s, "rv.toml", &rv);
    let log = s.path("rv.log");
    let mut child = s
        .cmd(&["speaker", "run", &config])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let said = loop {
        let said = std::fs::read_to_string(&log).unwrap();
        let exited = child.try_wait().unwrap();
        if said.contains("originating 50 IPv4 prefixes of") || exited.is_some() {
            break said;
        }
        if started.elapsed() > Duration::from_secs(30) {
            break said;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        said.contains(&format!("originating 50 IPv4 prefixes of {rv}")),
        "{said}"
    );
}

/// A bzip2 file cut short, and files that are not MRT: exit 2 from every command, the
/// file named with what is wrong; nothing written.
#[test]
fn cut_short_and_non_mrt_files_exit_2_from_every_mrt_command() {
    let s = Scratch::new();
    let real = std::fs::read(routeviews()).unwrap();
    let cases = [
        (
            s.write("cut.bz2", &real[..real.len() / 2]),
            "the bzip2 stream is cut short",
        ),
        (
            s.write("notes.txt", "192.0.2.0/24 AS64500\n"),
            "not an MRT file: it looks like a text file (it begins \"192.0.2.0/24 AS64500\")",
        ),
        (
            s.write(
                "updates.20150401.0000.bz2",
                "<!DOCTYPE html>\n<html><head><title>404 Not Found</title>",
            ),
            "not an MRT file: it looks like an HTML page",
        ),
        (
            s.write("capture.pcap", [0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0]),
            "not an MRT file: it looks like a pcap capture",
        ),
        (s.write("empty.mrt", b""), "empty file: no MRT record"),
    ];
    let keys = s.write("keys.json", r#"{"bgpsec_keys": []}"#);
    for (file, what) in &cases {
        let named = format!("{file}: ");
        let (out, dir) = (s.p("x.mrt"), s.p("k"));
        for args in [
            sign_mrt(file, &out, &dir),
            vec!["bgpsec", "validate-mrt", file, "--keys", &keys],
            vec!["bgpsec", "inspect", file],
            vec!["replay", file, "--schemes", "none"],
        ] {
            let o = s.exits(2, &args, what);
            assert!(text(&o).contains(&named), "{args:?}: {}", text(&o));
        }
        assert!(!s.path("x.mrt").exists() && !s.path("k").exists());
        let config = speaker_config(&s, "bad.toml", file);
        let o = s.exits(2, &["speaker", "run", &config], what);
        assert!(text(&o).contains(&named), "{}", text(&o));
    }
}
