//! The speaker's Prometheus metrics and status file (issue 26 §1): three hopsig
//! speakers on loopback exchange BGPsec UPDATEs; `/metrics` of the lazy one is
//! scraped over HTTP, parsed, and checked against what was sent and against its
//! status file; `promtool check metrics` checks the exposition where promtool is
//! installed (.ci/run installs it; under CI=true a missing promtool fails). A speaker
//! with a small `status_max_bytes` writes a status file cut to fit, and says so.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::speaker::*;
use common::Scratch;
use serde_json::Value;

/// One sample of the exposition: name, labels, value.
#[derive(Debug)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// `GET /metrics` on `addr` over a plain TCP connection: the body.
fn scrape(addr: &str) -> String {
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        c,
        "GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    c.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    body.to_string()
}

/// The samples of the Prometheus text format `text` (comments left out). Label
/// values here hold no escaped quotes or commas.
fn parse(text: &str) -> Vec<Sample> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (series, value) = l.rsplit_once(' ').unwrap();
            let (name, labels) = match series.split_once('{') {
                Some((n, rest)) => (n, rest.trim_end_matches('}')),
                None => (series, ""),
            };
            let labels = labels
                .split(',')
                .filter(|kv| !kv.is_empty())
                .map(|kv| {
                    let (k, v) = kv.split_once('=').unwrap();
                    (k.to_string(), v.trim_matches('"').to_string())
                })
                .collect();
            Sample {
                name: name.to_string(),
                labels,
                value: value.parse().unwrap_or_else(|e| panic!("{l}: {e}")),
            }
        })
        .collect()
}

/// The value of `name` whose labels include `labels`, if exactly one sample has them.
fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let found: Vec<&Sample> = samples
        .iter()
        .filter(|s| {
            s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .collect();
    match found.as_slice() {
        [one] => Some(one.value),
        [] => None,
        more => panic!("{name} {labels:?}: {} samples", more.len()),
    }
}

/// `promtool check metrics` on `text`; under CI=true a missing promtool fails.
fn promtool_check(text: &str) {
    let child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        assert!(
            std::env::var("CI").is_err(),
            "promtool is missing (Debian package prometheus); .ci/run installs it"
        );
        eprintln!("skipped: promtool check metrics: promtool is not installed");
        return;
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "promtool check metrics:\n{}{}\n{text}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Entries of `list` in `status` for `neighbor`.
fn listed(status: &Value, list: &str, neighbor: &str) -> usize {
    status[list]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["neighbor"] == neighbor)
        .count()
}

/// a (lazy, passive) takes b's valid route and c's, signed with a key not in the
/// RPKI (Not Valid: no key). a's `/metrics` shows both sessions Established (6),
/// the messages each way by type, prefix gauges equal to the status file's tables,
/// verdicts valid/verified and not_valid/no_key, and latency histograms with as many
/// samples as the status file's quantile summaries; `promtool check metrics` accepts
/// it.
#[test]
fn metrics_scraped_during_real_sessions() {
    let s = Scratch::new();
    let suite = "ecdsa-p256-sha256";
    keys(&s, suite, &[65201, 65202, 65203], &[65201, 65202]);
    let (pa, http) = (free_port(), free_port());
    let http_addr = format!("127.0.2.1:{http}");
    let nb = |address, remote_as| Nb {
        address,
        port: 179,
        remote_as,
        passive: true,
        bgpsec: true,
    };
    let text = config(
        "a",
        65201,
        "127.0.2.1",
        Some(pa),
        "lazy",
        suite,
        "10.201.0.0/16",
        &[nb("127.0.2.2", 65202), nb("127.0.2.3", 65203)],
    ) + &format!("[http]\nlisten = \"{http_addr}\"\n");
    let _a = start(&s, "a", text);
    let to_a = [Nb {
        address: "127.0.2.1",
        port: pa,
        remote_as: 65201,
        passive: false,
        bgpsec: true,
    }];
    let _b = start(
        &s,
        "b",
        config(
            "b",
            65202,
            "127.0.2.2",
            None,
            "strict",
            suite,
            "10.202.0.0/16",
            &to_a,
        ),
    );
    // c only once b's route is in: c's route then goes to b at once (lazy mode)
    // and b's to c when c is up, two forwards.
    wait_for(&s, "a validating b's route", || {
        route_is(&s, "a", "10.202.0.0/16", |r| {
            r["validation"] == "valid (suite 1)"
        })
    });
    let _c = start(
        &s,
        "c",
        config(
            "c",
            65203,
            "127.0.2.3",
            None,
            "strict",
            suite,
            "10.203.0.0/16",
            &to_a,
        ),
    );
    wait_for(&s, "a validating b's route and refusing c's", || {
        status(&s, "a").is_some_and(|v| {
            route(&v, "10.202.0.0/16").is_some_and(|r| r["validation"] == "valid (suite 1)")
                && route(&v, "10.203.0.0/16").is_some_and(|r| {
                    r["validation"]
                        .as_str()
                        .unwrap_or("")
                        .starts_with("not valid")
                })
                && v["validation_queue"] == 0
                && v["signing_queue"] == 0
        })
    });
    // The status file and the gauges are refreshed at each 500 ms tick: wait until a
    // scrape agrees with the status file read just before and after it (no change
    // in between).
    let mut tries = 0;
    let (v, samples, text) = loop {
        tries += 1;
        let before = status(&s, "a").unwrap();
        let text = scrape(&http_addr);
        let after = status(&s, "a").unwrap();
        let samples = parse(&text);
        let agree = ["127.0.2.2", "127.0.2.3"].iter().all(|n| {
            value(
                &samples,
                "hopsig_speaker_prefixes_received",
                &[("neighbor", n)],
            ) == Some(listed(&after, "adj_rib_in", n) as f64)
                && value(
                    &samples,
                    "hopsig_speaker_prefixes_advertised",
                    &[("neighbor", n)],
                ) == Some(listed(&after, "adj_rib_out", n) as f64)
        }) && value(
            &samples,
            "hopsig_speaker_time_to_forward_seconds_count",
            &[],
        ) == after["metrics"]["time_to_forward"]["count"].as_f64()
            && value(
                &samples,
                "hopsig_speaker_time_to_validate_seconds_count",
                &[],
            ) == after["metrics"]["time_to_validate"]["count"].as_f64();
        if before["metrics"] == after["metrics"] && agree {
            break (after, samples, text);
        }
        assert!(tries < 50, "no stable scrape:\n{text}\n{after:#}");
        std::thread::sleep(Duration::from_millis(300));
    };
    for (n, remote_as) in [("127.0.2.2", 65202), ("127.0.2.3", 65203)] {
        let nl = [("neighbor", n)];
        assert_eq!(
            value(&samples, "hopsig_speaker_session_state", &nl),
            Some(6.0),
            "{n} Established (bgpPeerState 6)\n{text}"
        );
        let msgs = |name: &str, t: &str| value(&samples, name, &[("neighbor", n), ("type", t)]);
        // One OPEN each way; KEEPALIVEs; UPDATEs: the neighbour's route at least.
        assert_eq!(
            msgs("hopsig_speaker_messages_received_total", "open"),
            Some(1.0),
            "{text}"
        );
        assert_eq!(
            msgs("hopsig_speaker_messages_sent_total", "open"),
            Some(1.0),
            "{text}"
        );
        assert!(msgs("hopsig_speaker_messages_received_total", "keepalive").unwrap() >= 1.0);
        assert!(msgs("hopsig_speaker_messages_sent_total", "keepalive").unwrap() >= 1.0);
        assert!(msgs("hopsig_speaker_messages_received_total", "update").unwrap() >= 1.0);
        // a sent its own route and the other neighbour's (b's is valid; c's went
        // out before it was found Not Valid, lazy mode, then was withdrawn).
        assert!(msgs("hopsig_speaker_messages_sent_total", "update").unwrap() >= 2.0);
        assert_eq!(
            msgs("hopsig_speaker_messages_received_total", "notification"),
            Some(0.0)
        );
        // The status file's counts of UPDATEs received: the same.
        let session = session_of(&v, n);
        assert_eq!(session["remote_as"], remote_as);
        assert_eq!(
            msgs("hopsig_speaker_messages_received_total", "update"),
            session["updates_in"].as_f64(),
            "{text}\n{session:#}"
        );
        assert!(value(&samples, "hopsig_speaker_prefixes_received", &nl).unwrap() >= 1.0);
        assert_eq!(
            value(&samples, "hopsig_speaker_prefixes_accepted", &nl),
            session["accepted_prefixes"].as_f64()
        );
    }
    let verdicts = |state: &str, reason: &str| {
        value(
            &samples,
            "hopsig_speaker_verdicts_total",
            &[("state", state), ("reason", reason)],
        )
        .unwrap_or(0.0)
    };
    assert!(verdicts("valid", "verified") >= 1.0, "{text}");
    assert!(verdicts("not_valid", "no_key") >= 1.0, "{text}");
    // Every validation answer is a verdict, and a sample of time-to-validate.
    let validated: f64 = samples
        .iter()
        .filter(|s| s.name == "hopsig_speaker_verdicts_total" && s.labels["state"] != "unsigned")
        .map(|s| s.value)
        .sum();
    let ttv = value(
        &samples,
        "hopsig_speaker_time_to_validate_seconds_count",
        &[],
    )
    .unwrap();
    assert!(ttv >= 2.0, "{text}");
    assert_eq!(validated, ttv, "{text}");
    let ttf = value(
        &samples,
        "hopsig_speaker_time_to_forward_seconds_count",
        &[],
    )
    .unwrap();
    assert!(ttf >= 2.0, "b's route to c, c's to b\n{text}");
    // The +Inf bucket holds every sample; the buckets are the configured ones.
    assert_eq!(
        value(
            &samples,
            "hopsig_speaker_time_to_forward_seconds_bucket",
            &[("le", "+Inf")]
        ),
        Some(ttf)
    );
    let buckets = samples
        .iter()
        .filter(|s| s.name == "hopsig_speaker_time_to_forward_seconds_bucket")
        .count();
    assert_eq!(buckets, 23, "22 bounds, 1 µs to 10 s, and +Inf\n{text}");
    assert_eq!(
        value(&samples, "hopsig_speaker_validation_queue", &[]),
        Some(0.0)
    );
    assert!(value(&samples, "hopsig_speaker_signature_cache_misses_total", &[]).unwrap() >= 1.0);
    // The status file's cost: in the file and in the metrics.
    assert!(
        v["status_write"]["snapshot_ms"].as_f64().unwrap() >= 0.0,
        "{v:#}"
    );
    assert!(
        v["status_write"]["last_bytes"].as_u64().unwrap() > 0,
        "{v:#}"
    );
    assert!(v["status_truncated"].is_null());
    assert!(value(&samples, "hopsig_speaker_status_write_seconds_count", &[]).unwrap() >= 1.0);
    assert!(value(&samples, "hopsig_speaker_status_bytes", &[]).unwrap() > 0.0);
    promtool_check(&text);
    // `hopsig speaker status` still reads the file.
    let summary = s.ok(&["speaker", "status", &s.p("a.toml")]);
    assert!(common::stdout(&summary).contains("127.0.2.2 AS65202 Established bgpsec true"));
}

/// A status file over `status_max_bytes` has its route lists cut to fit and says so
/// (`status_truncated`), its counts whole; the cut is counted in `/metrics`, and
/// `hopsig speaker status` reads it. The speaker's RTR cache (`hopsig rtr serve`)
/// shows in `/metrics` with its serial, data age and use.
#[test]
fn status_file_capped_in_bytes_and_rtr_cache_metrics() {
    let s = Scratch::new();
    let http = free_port();
    let http_addr = format!("127.0.2.9:{http}");
    s.write(
        "vrps.json",
        r#"{"roas":[{"asn":"AS65209","prefix":"10.100.0.0/16","maxLength":24,"ta":"test"}]}"#,
    );
    let rtr = free_port();
    let _cache = Running(
        s.cmd(&[
            "rtr",
            "serve",
            "--source",
            &s.p("vrps.json"),
            "--listen",
            &format!("127.0.0.1:{rtr}"),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap(),
    );
    let originate: Vec<String> = (0..500)
        .map(|i| format!("\"10.{}.{}.0/24\"", 100 + i / 256, i % 256))
        .collect();
    let text = format!(
        "local_as = 65209\nrouter_id = \"192.0.2.9\"\nmode = \"lazy\"\nstate_file = \"a.json\"\n\
         status_max_bytes = 6000\noriginate = [{}]\n[http]\nlisten = \"{http_addr}\"\n\
         [[rpki.cache]]\naddress = \"127.0.0.1\"\nport = {rtr}\npreference = 1\n",
        originate.join(", ")
    );
    let _a = start(&s, "a", text);
    wait_for(&s, "the status file with the cache's data", || {
        status(&s, "a").is_some_and(|v| v["rpki"]["caches"][0]["state"] == "current")
    });
    let file = std::fs::read_to_string(s.path("a.json")).unwrap();
    assert!(file.len() <= 6000, "{} bytes", file.len());
    let v: Value = serde_json::from_str(&file).unwrap();
    assert_eq!(v["originated_count"], 500);
    let kept = v["originated"].as_array().unwrap().len();
    assert!(kept < 500, "{v:#}");
    assert_eq!(v["status_truncated"]["max_bytes"], 6000);
    assert_eq!(v["status_truncated"]["listed"]["originated"], kept);
    assert_eq!(v["status_write"]["max_bytes"], 6000);
    let samples = parse(&scrape(&http_addr));
    assert!(value(&samples, "hopsig_speaker_status_truncated_total", &[]).unwrap() >= 1.0);
    let bytes = value(&samples, "hopsig_speaker_status_bytes", &[]).unwrap();
    assert!(bytes > 0.0 && bytes <= 6000.0, "{bytes}");
    let cache = format!("127.0.0.1:{rtr}");
    let cl = [("cache", cache.as_str())];
    assert_eq!(
        value(&samples, "hopsig_speaker_rtr_serial", &cl),
        v["rpki"]["caches"][0]["serial"].as_f64()
    );
    assert_eq!(value(&samples, "hopsig_speaker_rtr_in_use", &cl), Some(1.0));
    let age = value(&samples, "hopsig_speaker_rtr_data_age_seconds", &cl).unwrap();
    assert!((0.0..60.0).contains(&age), "{age}");
    let summary = common::stdout(&s.ok(&["speaker", "status", &s.p("a.toml")]));
    assert!(
        summary.contains(&format!(
            "status file cut to status_max_bytes 6000: lists {kept} of 500 originated"
        )),
        "{summary}"
    );
}
