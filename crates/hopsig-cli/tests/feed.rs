//! `hopsig bgpsec feed` against live routers on loopback (issue 25 §2): a signed slice
//! of the 2002 RIS RIB fed into a hopsig speaker (lazy and strict) with faults of every
//! kind, feed's own watcher session receiving what the speaker forwards; plain RIS
//! updates fed into gobgpd and BIRD 2. Each test uses free ports and its own 127.0.x.y
//! addresses and kills what it started; gobgpd and BIRD tests skip when the daemon is
//! missing and fail under CI=true.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::{Command, Stdio};

use common::speaker::*;
use common::Scratch;
use serde_json::Value;

/// RIS's AS: the Target AS of sign-mrt's newest signatures (a RIB dump names none).
const ROUTER_AS: u32 = 12_654;
/// The RIS peer of almost every route of the 2002 RIB dump.
const FEED_AS: u32 = 1853;

/// The first `n` announcements of the 2002 RIB, signed, and their keys in `keys/`.
fn signed_slice(s: &Scratch, n: u32) -> String {
    s.ok(&[
        "bgpsec",
        "sign-mrt",
        &common::mrt("ris-bview.20020722.2337.gz"),
        &s.p("signed.mrt"),
        "--suite",
        "1",
        "--keys",
        &s.p("keys"),
        "--limit",
        &n.to_string(),
    ]);
    s.p("signed.mrt")
}

/// The report of a feed run that exits `code`.
fn feed(s: &Scratch, args: &[&str], code: i32) -> Value {
    let report = s.p("report.json");
    let mut all: Vec<&str> = vec!["bgpsec", "feed", "--json", &report, "--force"];
    all.extend(args);
    let o = s.run(&all);
    assert_eq!(common::code(&o), code, "{}", common::text(&o));
    serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap()
}

/// A signed slice with faults of every kind into a hopsig speaker in `mode`, watched
/// by feed over a BGPsec session: every good route forwarded, every fault as RFC 8205
/// / RFC 7606 expect (exit 0 says no mismatch; the report is checked here too).
fn speaker_with_faults(mode: &str) {
    let s = Scratch::new();
    let mrt = signed_slice(&s, 600);
    keys(&s, "1", &[ROUTER_AS], &[]);
    std::fs::copy(s.path("keys/bgpsec_keys.json"), s.path("rpki.json")).unwrap();
    let port = free_port();
    let _speaker = start(
        &s,
        "r",
        config(
            "r",
            ROUTER_AS,
            "127.0.8.1",
            Some(port),
            mode,
            "1",
            "10.254.0.0/16",
            &[
                Nb {
                    address: "127.0.8.2",
                    port: 179,
                    remote_as: FEED_AS,
                    passive: true,
                    bgpsec: true,
                },
                Nb {
                    address: "127.0.8.3",
                    port: 179,
                    remote_as: 64_991,
                    passive: true,
                    bgpsec: true,
                },
            ],
        ),
    );
    let peer = format!("127.0.8.1:{port}");
    let r = feed(
        &s,
        &[
            "--mrt",
            &mrt,
            "--peer",
            &peer,
            "--local-address",
            "127.0.8.2",
            "--local-as",
            "1853",
            "--remote-as",
            "12654",
            "--bgpsec",
            "--watch",
            &peer,
            "--watch-as",
            "64991",
            "--watch-address",
            "127.0.8.3",
            "--watch-bgpsec",
            "--faults",
            "all",
            "--fault-rate",
            "0.15",
            "--seed",
            "25",
            "--keys",
            &s.p("keys"),
            "--status",
            &s.p("r.json"),
            "--settle",
            "2",
            "--wait",
            "60",
        ],
        0,
    );
    assert_eq!(r["session"]["bgpsec_negotiated"], true);
    let sent = r["sent"]["messages"].as_u64().unwrap();
    assert!(sent > 500, "{r}");
    assert_eq!(r["sent"]["signed"], sent);
    let w = &r["watchers"][0];
    assert_eq!(w["missing"], 0, "{r}");
    assert!(w["bgpsec_negotiated"].as_bool().unwrap());
    assert!(r["all_forwarded_s"].as_f64().is_some());
    assert!(r["status"]["all_validated_s"].as_f64().is_some(), "{r}");
    // The speaker holds every good route the feed expected forwarded, and more
    // (its own prefix).
    assert!(w["holds"].as_u64().unwrap() > r["sent"]["expected_forwarded"].as_u64().unwrap());
    let injected = r["faults"]["injected"].as_array().unwrap();
    let kinds: std::collections::BTreeSet<&str> = injected
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.len() >= 12, "too few kinds drawn: {kinds:?}");
    for i in injected {
        assert_eq!(i["mismatch"], false, "{i}");
        let observed = i["observed"].as_str().unwrap();
        match i["expected"].as_str().unwrap() {
            "valid" | "attribute_discard" => assert_eq!(observed, "forwarded", "{i}"),
            "treat_as_withdraw" => assert_eq!(observed, "not_forwarded", "{i}"),
            "session_reset" => assert_eq!(observed, "session_reset", "{i}"),
            // hopsig's speaker withdraws Not Valid routes: a lazy one after it
            // forwarded them, a strict one never forwards them.
            "not_valid" if mode == "strict" => assert_eq!(observed, "not_forwarded", "{i}"),
            "not_valid" => assert!(["withdrawn", "not_forwarded"].contains(&observed), "{i}"),
            // Unsigned routes are kept, and forwarded unsigned.
            "unsigned" => assert_eq!(observed, "forwarded", "{i}"),
            other => panic!("verdict {other}"),
        }
    }
    // The speaker counted the Not Valid ones.
    let not_valid = injected
        .iter()
        .filter(|i| i["expected"] == "not_valid")
        .count() as u64;
    assert!(not_valid > 0);
    assert_eq!(r["status"]["not_valid_total"].as_u64().unwrap(), not_valid);
    if kinds.contains("duplicate_mp_reach") {
        assert!(
            r["session_ended"].as_str().unwrap().contains("code 3"),
            "{r}"
        );
    }
}

#[test]
fn signed_slice_with_faults_into_lazy_speaker() {
    speaker_with_faults("lazy");
}

#[test]
fn signed_slice_with_faults_into_strict_speaker() {
    speaker_with_faults("strict");
}

#[test]
fn bgpsec_asked_of_a_plain_router_is_an_error() {
    let s = Scratch::new();
    let mrt = signed_slice(&s, 20);
    let port = free_port();
    let _speaker = start(
        &s,
        "r",
        plain_config(
            ROUTER_AS,
            "127.0.8.17",
            port,
            "r.json",
            &[],
            &[("127.0.8.18", FEED_AS)],
        ),
    );
    let report = s.p("report.json");
    let o = s.run(&[
        "bgpsec",
        "feed",
        "--mrt",
        &mrt,
        "--peer",
        &format!("127.0.8.17:{port}"),
        "--local-address",
        "127.0.8.18",
        "--local-as",
        "1853",
        "--remote-as",
        "12654",
        "--bgpsec",
        "--json",
        &report,
    ]);
    assert_eq!(common::code(&o), 2, "{}", common::text(&o));
    assert!(common::stderr(&o).contains("did not negotiate BGPsec"));
}

/// Plain RIS updates (every peer's, the feed's AS prepended) into a plain router at
/// `peer`; the watcher at 127.0.9.3 (AS 64991) sees every route the feed expected.
fn plain_updates_into(
    s: &Scratch,
    peer: &str,
    local: &str,
    watch_local: &str,
    next_hop: &str,
    faults: &str,
) -> Value {
    let r = feed(
        s,
        &[
            "--next-hop",
            next_hop,
            "--mrt",
            &common::mrt("ris-updates.20070211.0141.gz"),
            "--peer",
            peer,
            "--local-address",
            local,
            "--local-as",
            "1853",
            "--remote-as",
            "12654",
            "--watch",
            peer,
            "--watch-as",
            "64991",
            "--watch-address",
            watch_local,
            "--limit",
            "3000",
            "--faults",
            faults,
            "--fault-rate",
            "0.05",
            "--settle",
            "3",
            "--wait",
            "60",
        ],
        0,
    );
    assert_eq!(r["sent"]["signed"], 0);
    assert!(r["sent"]["withdrawals"].as_u64().unwrap() > 0, "{r}");
    assert!(r["mrt"]["skipped"]["not_ipv4_unicast"].as_u64().is_some());
    assert_eq!(r["watchers"][0]["missing"], 0, "{r}");
    assert!(
        r["watchers"][0]["holds"].as_u64().unwrap()
            >= r["sent"]["expected_forwarded"].as_u64().unwrap()
    );
    assert!(!r["faults"]["injected"].as_array().unwrap().is_empty());
    r
}

#[test]
fn plain_updates_into_gobgpd() {
    if !common::have_with("gobgpd", "--version", "plain_updates_into_gobgpd") {
        return;
    }
    let s = Scratch::new();
    let (port, api) = (free_port(), free_port());
    let conf = include_str!("peers/feed-gobgpd.toml.template")
        .replace("PORT", &port.to_string())
        .replace("ROUTER_AS", &ROUTER_AS.to_string());
    let _gobgpd = gobgpd_from(&s, "feed", conf, api);
    // gobgpd treats a loopback NEXT_HOP as invalid (treat-as-withdraw): a documentation
    // address instead (it does not resolve next hops by default).
    plain_updates_into(
        &s,
        &format!("127.0.0.1:{port}"),
        "127.0.9.2",
        "127.0.9.3",
        "192.0.2.2",
        // gobgpd 3.10 kept forwarding 137.118.156.0/22 after an UPDATE of it whose
        // ORIGIN was flagged Optional (RFC 7606 §3 c: treat-as-withdraw; it logged
        // "treated as withdraw"), while it withdrew the other nine such faults of the
        // run: left out here until that is understood (issue 25 feed report).
        "attribute_length,missing_origin,duplicate_attribute,duplicate_mp_reach,bad_origin,bad_next_hop",
    );
}

#[test]
fn plain_updates_into_bird() {
    if !common::have_with("bird", "--version", "plain_updates_into_bird") {
        return;
    }
    let s = Scratch::new();
    let port = free_port();
    let conf = include_str!("peers/feed-bird.conf.template")
        .replace("LOG_PATH", &s.p("bird.log"))
        .replace("PORT", &port.to_string())
        .replace("ROUTER_AS", &ROUTER_AS.to_string());
    let conf = s.write("bird.conf", conf);
    let _bird = Running(
        Command::new("bird")
            .args([
                "-f",
                "-c",
                &conf,
                "-s",
                &s.p("bird.ctl"),
                "-P",
                &s.p("bird.pid"),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    // BIRD resolves the next hop: the feed's own address, on the imported loopback.
    plain_updates_into(
        &s,
        &format!("127.0.0.1:{port}"),
        "127.0.10.2",
        "127.0.10.3",
        "127.0.10.2",
        "rfc7606",
    );
}
