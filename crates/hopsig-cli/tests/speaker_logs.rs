//! Structured logs of the long-running commands (issue 26 §1; docs/spec/speaker.md
//! "Logs"): `hopsig --log-format json speaker run` against real sessions — two hopsig
//! speakers, a third whose key is not in the RPKI, a raw BGP client, `hopsig rtr serve`
//! as the RTR cache — writes nothing but JSON lines, and the events (`session_state`,
//! `notification_sent`, `notification_received`, `rtr_sync`, `validation_state`,
//! `withdrawn_not_valid`) carry the fields the spec names; the text format keeps the
//! messages; `--log-level` and `RUST_LOG` filter per module.
//!
//! Each test uses free ports and its own 127.26.x.y addresses, waits at most [`WAIT`]
//! for what it checks, and kills what it started.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::speaker::*;
use common::Scratch;
use serde_json::Value;

const SUITE: &str = "ecdsa-p256-sha256";

/// Starts `hopsig LOG_ARGS… speaker run NAME.toml` (written with `text`), with `env`
/// and no inherited RUST_LOG; its standard error in NAME.log.
fn start_logged(
    s: &Scratch,
    name: &str,
    text: String,
    log_args: &[&str],
    env: &[(&str, &str)],
) -> Running {
    let config = s.write(&format!("{name}.toml"), text);
    let log = std::fs::File::create(s.path(&format!("{name}.log"))).unwrap();
    let mut args: Vec<&str> = log_args.to_vec();
    args.extend(["speaker", "run", &config]);
    let mut cmd = s.cmd(&args);
    cmd.env_remove("RUST_LOG");
    for (k, v) in env {
        cmd.env(k, v);
    }
    Running(cmd.stdout(Stdio::null()).stderr(log).spawn().unwrap())
}

/// The log NAME.log, each line parsed as JSON; fails on a line that is not a JSON
/// object with `timestamp`, `level`, `target` and `fields.message`.
fn json_lines(s: &Scratch, name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(s.path(&format!("{name}.log"))).unwrap();
    text.lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{name}.log: not JSON ({e}): {line:?}\n{text}"));
            assert!(
                v["timestamp"].as_str().is_some_and(|t| t.ends_with('Z')),
                "{line}"
            );
            assert!(
                ["ERROR", "WARN", "INFO", "DEBUG", "TRACE"].contains(&v["level"].as_str().unwrap()),
                "{line}"
            );
            assert!(v["target"].as_str().is_some(), "{line}");
            assert!(v["fields"]["message"].as_str().is_some(), "{line}");
            v
        })
        .collect()
}

/// Waits (at most [`WAIT`]) for an event of `kind` in NAME.log for which `f` holds;
/// returns it, or fails with the log.
fn wait_event(s: &Scratch, name: &str, kind: &str, f: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let lines = json_lines(s, name);
        if let Some(e) = lines
            .iter()
            .find(|l| l["fields"]["event"] == kind && f(&l["fields"]))
        {
            return e.clone();
        }
        if start.elapsed() > WAIT {
            let text = std::fs::read_to_string(s.path(&format!("{name}.log"))).unwrap();
            panic!("{name}.log: no {kind} event as wanted:\n{text}");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// `hopsig --log-format json rtr serve` on `rpki.json`; its log serve.log.
fn rtr_serve(s: &Scratch) -> (Running, u16) {
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let log = std::fs::File::create(s.path("serve.log")).unwrap();
    let child = s
        .cmd(&[
            "--log-format",
            "json",
            "rtr",
            "serve",
            "--source",
            &s.p("rpki.json"),
            "--listen",
            &listen,
            "--refresh",
            "1",
            "--poll",
            "0.2",
        ])
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let running = Running(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(&listen).is_err() {
        assert!(Instant::now() < deadline, "hopsig rtr serve did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    (running, port)
}

/// A lazy speaker A (JSON log) takes its router keys from `hopsig rtr serve` over RTR;
/// B (signed by a published key) and C (whose key is not published) connect. A's log
/// holds, each as one JSON line with its fields: the session transitions to
/// Established, the RTR sync, C's route going from pending to not_valid, and its
/// withdrawal; a raw client from the wrong AS gets a NOTIFICATION (sent), and one that
/// sends Cease / Administrative Shutdown gets it logged (received).
#[test]
fn json_log_holds_the_events_of_real_sessions() {
    let s = Scratch::new();
    keys(&s, SUITE, &[65261, 65262, 65263], &[65261, 65262]);
    let (_cache, cache_port) = rtr_serve(&s);
    let (pa, pc) = (free_port(), free_port());
    let nb = |address, remote_as, bgpsec| Nb {
        address,
        port: 179,
        remote_as,
        passive: true,
        bgpsec,
    };
    let a = config(
        "a",
        65261,
        "127.26.10.1",
        Some(pa),
        "lazy",
        SUITE,
        "10.26.1.0/24",
        &[
            nb("127.26.10.2", 65262, true),
            nb("127.26.10.3", 65263, true),
            nb("127.26.10.4", 65264, false),
        ],
    )
    .replace("rpki_keys = \"rpki.json\"\n", "")
        + &format!(
            "[[rpki.cache]]\naddress = \"127.0.0.1\"\nport = {cache_port}\npreference = 1\nrefresh = 2\n"
        );
    let _a = start_logged(&s, "a", a, &["--log-format", "json"], &[]);
    // The router keys came over RTR: version 2, a session id and serial, two keys.
    // Awaited before B starts, so that B's route is Valid at once: a route found Not
    // Valid first and Valid when the keys come is logged at INFO (not what this tests).
    let sync = wait_event(&s, "a", "rtr_sync", |f| f["router_keys"] == 2);
    let f = &sync["fields"];
    assert_eq!(f["cache"], format!("127.0.0.1:{cache_port}"), "{sync}");
    assert_eq!(f["version"], 2, "{sync}");
    assert_eq!(f["kind"], "full", "{sync}");
    assert!(f["serial"].is_u64() && f["session_id"].is_u64(), "{sync}");
    assert_eq!(
        (&f["vrps"], &f["aspas"]),
        (&Value::from(0), &Value::from(0))
    );
    let served = wait_event(&s, "serve", "rtr_router_connected", |_| true);
    assert!(served["fields"]["router"]
        .as_str()
        .unwrap()
        .starts_with("127.0.0.1:"));

    let to_a = [Nb {
        address: "127.26.10.1",
        port: pa,
        remote_as: 65261,
        passive: false,
        bgpsec: true,
    }];
    let b = config(
        "b",
        65262,
        "127.26.10.2",
        None,
        "strict",
        SUITE,
        "10.26.2.0/24",
        &to_a,
    );
    let _b = start_logged(&s, "b", b, &[], &[]);
    let established =
        |from: &'static str| move |f: &Value| f["neighbor"] == from && f["to"] == "Established";
    let up = wait_event(&s, "a", "session_state", established("127.26.10.2"));
    assert_eq!(up["level"], "INFO", "{up}");
    assert_eq!(up["target"], "hopsig_bgp::speaker::session", "{up}");
    assert_eq!(up["fields"]["from"], "OpenConfirm", "{up}");
    assert_eq!(up["fields"]["remote_as"], 65262, "{up}");
    assert!(
        up["fields"]["message"]
            .as_str()
            .unwrap()
            .contains("127.26.10.2 AS65262: OpenConfirm -> Established"),
        "{up}"
    );
    // C's key is not in the RPKI: its route is forwarded (lazy), found Not Valid and
    // withdrawn.
    let c = config(
        "c",
        65263,
        "127.26.10.3",
        Some(pc),
        "strict",
        SUITE,
        "10.26.3.0/24",
        &to_a,
    );
    let _c = start_logged(&s, "c", c, &[], &[]);
    wait_event(&s, "a", "session_state", established("127.26.10.3"));
    let changed = wait_event(&s, "a", "validation_state", |f| {
        f["prefix"] == "10.26.3.0/24" && f["check"] == "bgpsec"
    });
    let f = &changed["fields"];
    assert_eq!(changed["level"], "INFO", "{changed}");
    assert_eq!(changed["target"], "hopsig_bgp::speaker::rib", "{changed}");
    assert_eq!(
        (&f["neighbor"], &f["from"]),
        (&"127.26.10.3".into(), &"pending".into())
    );
    assert_eq!(f["to"], "not_valid", "{changed}");
    assert!(!f["reason"].as_str().unwrap().is_empty(), "{changed}");
    let gone = wait_event(&s, "a", "withdrawn_not_valid", |f| {
        f["prefix"] == "10.26.3.0/24"
    });
    let f = &gone["fields"];
    assert_eq!(
        (&f["neighbor"], &f["mode"]),
        (&"127.26.10.3".into(), &"lazy".into())
    );
    assert!(
        f["reason"].as_str().is_some() && f["withdrawn_from"].is_string(),
        "{gone}"
    );
    assert!(f["rov"].is_string() && f["aspa"].is_string(), "{gone}");
    // B's route, signed with a published key, is Valid: a debug event, not logged at
    // the default level.
    assert!(!json_lines(&s, "a")
        .iter()
        .any(|l| l["fields"]["event"] == "validation_state"
            && l["fields"]["prefix"] == "10.26.2.0/24"));

    // An OPEN from the wrong AS: OPEN Message Error / Bad Peer AS, logged as sent.
    let to = format!("127.26.10.1:{pa}");
    let mut d = raw_client("127.26.10.4", &to);
    assert_eq!(read_message(&mut d)[18], 1, "the speaker's OPEN");
    d.write_all(&open_message(65299, 9)).unwrap();
    assert_eq!(notification(&read_message(&mut d)), (2, 2));
    let sent = wait_event(&s, "a", "notification_sent", |f| {
        f["neighbor"] == "127.26.10.4"
    });
    let f = &sent["fields"];
    assert_eq!(
        (&f["code"], &f["subcode"]),
        (&Value::from(2), &Value::from(2))
    );
    assert_eq!(f["code_name"], "OpenMessageError", "{sent}");
    assert_eq!(f["subcode_name"], "BadPeerAs", "{sent}");
    assert!(f["reason"].as_str().unwrap().contains("65299"), "{sent}");
    drop(d);
    // An Established session that the neighbour ends with Cease / Administrative
    // Shutdown (RFC 4486): received, and the session goes to Idle saying why.
    std::thread::sleep(Duration::from_millis(1500));
    let mut d = raw_client("127.26.10.4", &to);
    establish(&mut d, 65264, 9);
    wait_event(&s, "a", "session_state", established("127.26.10.4"));
    let cease = hopsig_bgp::packet::Message::Notification(hopsig_bgp::packet::Notification {
        code: 6,
        subcode: 2,
        data: Default::default(),
    })
    .encoding(hopsig_bgp::packet::AsWidth::Four)
    .unwrap();
    d.write_all(&cease).unwrap();
    let got = wait_event(&s, "a", "notification_received", |f| {
        f["neighbor"] == "127.26.10.4"
    });
    let f = &got["fields"];
    assert_eq!(
        (&f["code"], &f["subcode"]),
        (&Value::from(6), &Value::from(2))
    );
    assert_eq!(
        (&f["code_name"], &f["subcode_name"]),
        (&"Cease".into(), &"AdministrativeShutdown".into())
    );
    let down = wait_event(&s, "a", "session_state", |f| {
        f["neighbor"] == "127.26.10.4" && f["from"] == "Established"
    });
    assert_eq!(down["fields"]["to"], "Idle", "{down}");
    assert!(
        down["fields"]["reason"]
            .as_str()
            .unwrap()
            .contains("NOTIFICATION received: code 6 subcode 2"),
        "{down}"
    );

    // A reload of the same file through `hopsig speaker reload`: config_reload with its
    // fields (docs/spec/speaker.md, "Logs").
    let conf = s.path("a.toml");
    s.ok(&["speaker", "reload", conf.to_str().unwrap()]);
    let reload = wait_event(&s, "a", "config_reload", |_| true);
    let f = &reload["fields"];
    assert_eq!(reload["level"], "INFO", "{reload}");
    assert_eq!(reload["target"], "hopsig_bgp::speaker::reload", "{reload}");
    assert_eq!(
        (&f["generation"], &f["trigger"], &f["result"], &f["reason"]),
        (&1.into(), &"request".into(), &"applied".into(), &"".into()),
        "{reload}"
    );
    for list in ["added", "removed", "changed", "reset"] {
        assert_eq!(f[list], "", "{reload}");
    }
    assert_eq!(
        (&f["rpki"], &f["originate"]),
        (&false.into(), &false.into())
    );

    // B and C logged in the default text format: tracing-subscriber's human lines,
    // with the messages the other tests read and the events' fields.
    let text = std::fs::read_to_string(s.path("c.log")).unwrap();
    assert!(
        text.lines()
            .any(|l| l.contains(" INFO hopsig_bgp::speaker: ")
                && l.contains("hopsig speaker: AS65263 listening on 127.26.10.3:")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("hopsig_bgp::speaker::session: ")
                && l.contains("127.26.10.1 AS65261: OpenConfirm -> Established")
                && l.contains("event=\"session_state\"")
                && l.contains("to=\"Established\"")),
        "{text}"
    );
    assert!(
        text.lines()
            .all(|l| serde_json::from_str::<Value>(l).is_err()),
        "{text}"
    );
}

/// `--log-level` sets a module to warn (its info events go) while the others log at
/// info; RUST_LOG does the same where `--log-level` is not given, and a debug
/// directive brings the debug events (a route found Valid) in.
#[test]
fn filters_hide_and_show_per_module() {
    let s = Scratch::new();
    keys(&s, SUITE, &[65271, 65272], &[65271, 65272]);
    let pa = free_port();
    let a = config(
        "a",
        65271,
        "127.26.11.1",
        Some(pa),
        "lazy",
        SUITE,
        "10.27.1.0/24",
        &[Nb {
            address: "127.26.11.2",
            port: 179,
            remote_as: 65272,
            passive: true,
            bgpsec: true,
        }],
    );
    // RUST_LOG is overridden by --log-level.
    let _a = start_logged(
        &s,
        "a",
        a,
        &[
            "--log-format",
            "json",
            "--log-level",
            "info,hopsig_bgp::speaker::session=warn",
        ],
        &[("RUST_LOG", "error")],
    );
    let b = config(
        "b",
        65272,
        "127.26.11.2",
        None,
        "strict",
        SUITE,
        "10.27.2.0/24",
        &[Nb {
            address: "127.26.11.1",
            port: pa,
            remote_as: 65271,
            passive: false,
            bgpsec: true,
        }],
    );
    let _b = start_logged(
        &s,
        "b",
        b,
        &["--log-format", "json"],
        &[("RUST_LOG", "info,hopsig_bgp::speaker::rib=debug")],
    );
    // B logs its session (info) and, at debug, A's route found Valid.
    wait_event(&s, "b", "session_state", |f| f["to"] == "Established");
    let valid = wait_event(&s, "b", "validation_state", |f| {
        f["prefix"] == "10.27.1.0/24" && f["to"] == "valid"
    });
    assert_eq!(valid["level"], "DEBUG", "{valid}");
    assert_eq!(valid["fields"]["reason"], "suite 1", "{valid}");
    // A's session is up (its status says so), but its session module logs warnings
    // only; the rest of A logs at info.
    wait_for(&s, "A's session Established", || {
        status(&s, "a").is_some_and(|v| {
            v["sessions"]
                .as_array()
                .is_some_and(|a| a.iter().any(|x| x["state"] == "Established"))
        })
    });
    let lines = json_lines(&s, "a");
    assert!(
        lines.iter().any(|l| l["level"] == "INFO"
            && l["fields"]["message"]
                .as_str()
                .unwrap()
                .contains("listening on")),
        "{lines:#?}"
    );
    assert!(
        !lines
            .iter()
            .any(|l| l["target"] == "hopsig_bgp::speaker::session"
                || l["fields"]["event"] == "session_state"),
        "{lines:#?}"
    );
}

/// A filter that does not parse is a usage error naming where it came from; a
/// one-shot command given none prints its lines as before (no time, no level).
#[test]
fn a_bad_filter_is_refused() {
    let s = Scratch::new();
    let config = s.write("x.toml", "local_as = 1\n");
    let o = s.run(&["--log-level", "hopsig_bgp=loud", "speaker", "run", &config]);
    assert_eq!(common::code(&o), 2, "{}", common::text(&o));
    let err = common::stderr(&o);
    assert!(
        err.starts_with("hopsig: error: --log-level \"hopsig_bgp=loud\""),
        "{err}"
    );
    let o = s
        .cmd(&["speaker", "run", &config])
        .env("RUST_LOG", "hopsig_bgp=loud")
        .output()
        .unwrap();
    assert_eq!(common::code(&o), 2, "{}", common::text(&o));
    assert!(common::stderr(&o).starts_with("hopsig: error: RUST_LOG"));
}
