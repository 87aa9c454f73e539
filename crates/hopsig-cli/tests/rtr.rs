//! `hopsig rtr` and the RTR client library against real peers: StayRTR v0.6.0 as the
//! cache (tools/stayrtr, built by .ci/run), RTRlib's rtrclient (Debian rtr-tools) as the
//! independent client of `hopsig rtr serve`, and hopsig's client against its own cache
//! at version 2 (ASPA). Each peer runs on a free loopback port and is killed by PID
//! (drop guards); a missing peer fails the test under CI=true and skips it otherwise.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeSet;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{code, text, Scratch};
use hopsig_bgp::rpki::payload::Limits;
use hopsig_bgp::rpki::rtr::{spawn_caches, CacheConfig, CacheView};
use hopsig_testkit::rtrclient::RtrClient;
use hopsig_testkit::stayrtr::{free_port, StayRtr};
use hopsig_testkit::watch::until;
use hopsig_testkit::KillOnDrop;
use serde_json::{json, Value};

/// Two P-256 SubjectPublicKeyInfos (base64 DER).
const SPKI: [&str; 2] = [
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEjPfbrQ3ZwksT4MsqLuboCHjP6P/PnHsbazrrehYu/fvpsBANk+RXORIbivYrc8FbFoaazg0DSaaTWmOtutmu/Q==",
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEdGR0J/3ZYnwuHzngOoIXK7Slu2eUjZiL4sGHN8urWdNXy7wom05gIJh6OhLEPom7SzhbOsFfu8g/EbOqnRkV3w==",
];
/// Their SKIs: SHA-1 of the subjectPublicKey bits (RFC 8209 §3.1.1, which
/// `rpki::source` checks).
const SKI: [&str; 2] = [
    "6964a424833e566db5de55c413d8ac8653b05f98",
    "3b2e75c0cedc336b782c143b0ffd69513dacdfd6",
];

/// An rpki-client JSON document: three ROAs (IPv4 and IPv6), the router keys numbered
/// in `keys` (of [`SPKI`]), and ASPAs if `aspas`.
fn rpki_json(keys: &[usize], aspas: bool) -> Value {
    let mut doc = json!({
        "metadata": {"buildtime": "2026-01-01T00:00:00Z"},
        "roas": [
            {"prefix": "10.0.0.0/8", "maxLength": 24, "asn": 65001, "ta": "lab"},
            {"prefix": "192.0.2.0/24", "maxLength": 24, "asn": "AS65002", "ta": "lab"},
            {"prefix": "2001:db8::/32", "maxLength": 48, "asn": 65002, "ta": "lab"},
        ],
        "bgpsec_keys": keys.iter().map(|&i| json!({
            "asn": 65001 + i as u32, "ski": SKI[i].to_uppercase(), "pubkey": SPKI[i], "ta": "lab"
        })).collect::<Vec<_>>(),
    });
    if aspas {
        doc["aspas"] = json!([
            {"customer_asid": 65001, "expires": 1900000000, "providers": [65002, 65003]},
            {"customer_asid": 65004, "expires": 1900000000, "providers": [65001]},
        ]);
    }
    doc
}

fn vrps_of(doc: &Value) -> BTreeSet<(String, u32)> {
    doc["roas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let asn = match &r["asn"] {
                Value::String(s) => s.trim_start_matches("AS").parse().unwrap(),
                n => n.as_u64().unwrap() as u32,
            };
            (
                format!("{}-{}", r["prefix"].as_str().unwrap(), r["maxLength"]),
                asn,
            )
        })
        .collect()
}

fn keys_of(doc: &Value) -> BTreeSet<(u32, String)> {
    doc["bgpsec_keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["asn"].as_u64().unwrap() as u32,
                k["ski"].as_str().unwrap().to_lowercase(),
            )
        })
        .collect()
}

/// `hopsig rtr dump … --json`, which must succeed.
fn dump(s: &Scratch, port: u16, version: Option<u8>) -> Value {
    let mut args = vec![
        "rtr".to_string(),
        "dump".into(),
        format!("127.0.0.1:{port}"),
        "--json".into(),
        "--timeout".into(),
        "20".into(),
    ];
    if let Some(v) = version {
        args.extend(["--version".into(), v.to_string()]);
    }
    let o = s.run(&args);
    assert_eq!(code(&o), 0, "{args:?}: {}", text(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn dumped_vrps(d: &Value) -> BTreeSet<(String, u32)> {
    d["vrps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["prefix"].as_str().unwrap().to_string(),
                v["asn"].as_u64().unwrap() as u32,
            )
        })
        .collect()
}

fn dumped_keys(d: &Value) -> BTreeSet<(u32, String)> {
    d["router_keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            assert_eq!(k["algorithm"], "ecdsa-p256");
            (
                k["asn"].as_u64().unwrap() as u32,
                k["ski"].as_str().unwrap().to_lowercase(),
            )
        })
        .collect()
}

fn stayrtr(s: &Scratch, doc: &Value) -> Option<(StayRtr, String)> {
    let Some(bin) = StayRtr::find(&hopsig_testkit::root()) else {
        hopsig_testkit::missing("StayRTR (tools/stayrtr; .ci/run builds it into target/stayrtr)");
        return None;
    };
    let json = s.write("rpki.json", doc.to_string());
    let cache = StayRtr::start(&bin, json.as_ref(), 1, &s.path("stayrtr.log")).unwrap();
    Some((cache, json))
}

/// Replaces `path` atomically (StayRTR may read it any time).
fn replace(path: &str, doc: &Value) {
    let tmp = format!("{path}.tmp");
    std::fs::write(&tmp, doc.to_string()).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// How long a test waits for the view it expects.
const WAIT: Duration = Duration::from_secs(30);

fn view_keys(v: &CacheView) -> BTreeSet<(u32, String)> {
    v.payload
        .router_keys()
        .map(|k| (k.asn.into_u32(), hex::encode(k.key_identifier.as_slice())))
        .collect()
}

#[test]
fn stayrtr_serves_every_key_and_vrp_to_hopsig_rtr_dump_at_v1_and_v0() {
    let s = Scratch::new();
    let doc = rpki_json(&[0, 1], false);
    let Some((cache, _)) = stayrtr(&s, &doc) else {
        return;
    };
    // Default: hopsig asks version 2; StayRTR answers at 1 (RFC 8210 §7).
    for version in [None, Some(1)] {
        let d = dump(&s, cache.port, version);
        assert_eq!(d["version"], 1, "{}", cache.log());
        assert_eq!(dumped_vrps(&d), vrps_of(&doc));
        assert_eq!(dumped_keys(&d), keys_of(&doc));
        assert_eq!(d["counts"]["router_keys"], 2);
    }
    // Version 0 has no Router Key PDU (RFC 6810).
    let d = dump(&s, cache.port, Some(0));
    assert_eq!(d["version"], 0);
    assert_eq!(dumped_vrps(&d), vrps_of(&doc));
    assert!(dumped_keys(&d).is_empty());
    assert_eq!(d["timing"], Value::Null);
    // The text form names each key with its SKI and algorithm.
    let o = s.ok(&["rtr", "dump", &format!("127.0.0.1:{}", cache.port)]);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(out.contains("3 VRPs, 2 router keys, 0 ASPAs"), "{out}");
    assert!(
        out.contains(&format!(
            "router-key AS65002 SKI {} ecdsa-p256",
            SKI[1].to_uppercase()
        )),
        "{out}"
    );
}

#[test]
fn a_key_removed_at_stayrtr_leaves_the_cache_view_and_comes_back() {
    let s = Scratch::new();
    let both = rpki_json(&[0, 1], false);
    let Some((cache, json)) = stayrtr(&s, &both) else {
        return;
    };
    runtime().block_on(async {
        let mut config = CacheConfig::new("127.0.0.1", cache.port);
        config.version = Some(1);
        let mut rx = spawn_caches(vec![config], Limits::default());
        let v = until(&mut rx, WAIT, "both keys", |v| {
            view_keys(v) == keys_of(&both)
        })
        .await;
        assert_eq!(v.payload.counts(), (3, 2, 0));
        let serial = v.caches[0].serial.unwrap();
        // StayRTR re-reads the file (-refresh 1), sends a Serial Notify; the Serial
        // Query gets the withdrawal.
        let one = rpki_json(&[0], false);
        replace(&json, &one);
        let v = until(&mut rx, WAIT, "key 2 withdrawn", |v| {
            view_keys(v) == keys_of(&one)
        })
        .await;
        assert_ne!(v.caches[0].serial, Some(serial), "{}", cache.log());
        assert_eq!(v.payload.counts(), (3, 1, 0));
        replace(&json, &both);
        until(&mut rx, WAIT, "key 2 back", |v| {
            view_keys(v) == keys_of(&both)
        })
        .await;
    });
}

/// `hopsig rtr serve`, killed when dropped.
struct Serve {
    child: KillOnDrop,
    port: u16,
}

fn serve(s: &Scratch, json: &str, extra: &[&str]) -> Serve {
    serve_at(s, json, free_port().unwrap(), extra)
}

fn serve_at(s: &Scratch, json: &str, port: u16, extra: &[&str]) -> Serve {
    let listen = format!("127.0.0.1:{port}");
    let mut args = vec![
        "rtr",
        "serve",
        "--source",
        json,
        "--listen",
        &listen,
        "--refresh",
        "1",
        "--poll",
        "0.2",
    ];
    args.extend_from_slice(extra);
    let child = s
        .cmd(&args)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(s.path(&format!("serve-{port}.log"))).unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "hopsig rtr serve did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    Serve {
        child: KillOnDrop(child),
        port,
    }
}

/// What rtrclient prints for `doc`, at `version`.
fn rtrclient_view(doc: &Value, version: u8) -> hopsig_testkit::rtrclient::Seen {
    let mut seen = hopsig_testkit::rtrclient::Seen::default();
    for (p, asn) in vrps_of(doc) {
        let (prefix, max) = p.rsplit_once('-').unwrap();
        let (addr, len) = prefix.split_once('/').unwrap();
        seen.vrps.insert((
            addr.to_string(),
            len.parse().unwrap(),
            max.parse().unwrap(),
            asn,
        ));
    }
    if version >= 1 {
        seen.keys = keys_of(doc);
    }
    seen
}

#[test]
fn rtrclient_reads_hopsig_rtr_serve_at_v1_and_v0() {
    let Some(bin) = RtrClient::find() else {
        hopsig_testkit::missing("rtrclient (Debian rtr-tools; .ci/run installs it)");
        return;
    };
    for version in [1u8, 0] {
        let s = Scratch::new();
        let doc = rpki_json(&[0, 1], true);
        let json = s.write("rpki.json", doc.to_string());
        let max = version.to_string();
        let cache = serve(&s, &json, &["--max-version", &max]);
        let client = RtrClient::start(&bin, cache.port).unwrap();
        let want = rtrclient_view(&doc, version);
        let seen = client.wait_for(Duration::from_secs(20), |seen| *seen == want);
        assert_eq!(seen, want, "version {version}");
        // A key withdrawn from the file: Serial Notify, rtrclient's Serial Query
        // gets the withdrawal.
        let one = rpki_json(&[0], true);
        replace(&json, &one);
        let want = rtrclient_view(&one, version);
        let seen = client.wait_for(Duration::from_secs(20), |seen| *seen == want);
        assert_eq!(seen, want, "version {version} after the change");
        drop(client);
        drop(cache);
    }
}

#[test]
fn hopsig_client_and_serve_at_v2_aspas_serials_session_change_and_expire() {
    let s = Scratch::new();
    let doc = rpki_json(&[0, 1], true);
    let json = s.write("rpki.json", doc.to_string());
    let mut cache = serve(&s, &json, &[]);
    let port = cache.port;
    runtime().block_on(async {
        let mut config = CacheConfig::new("127.0.0.1", port);
        config.expire = Some(Duration::from_secs(3));
        config.retry = Some(Duration::from_secs(1));
        let mut rx = spawn_caches(vec![config], Limits::default());
        let v = until(&mut rx, WAIT, "everything", |v| {
            v.payload.counts() == (3, 2, 2)
        })
        .await;
        assert_eq!(v.caches[0].version, Some(2));
        let (session, serial) = (v.caches[0].session_id, v.caches[0].serial.unwrap());
        // An ASPA changed: the next serial.
        let mut changed = doc.clone();
        changed["aspas"][1]["providers"] = json!([65001, 65005]);
        replace(&json, &changed);
        let v = until(&mut rx, WAIT, "the ASPA changed", |v| {
            v.payload
                .aspas()
                .any(|a| a.customer.into_u32() == 65004 && a.providers.iter().count() == 2)
        })
        .await;
        assert_eq!(v.caches[0].serial, Some(serial.wrapping_add(1)));
        // The cache restarts with a new Session ID: the client's Serial Query gets a
        // Cache Reset, its Reset Query the data again.
        // (Session IDs are the start time's low 16 bits: start the new one a second
        // later.)
        cache.child.stop();
        tokio::time::sleep(Duration::from_millis(1100)).await;
        cache = serve_at(&s, &json, port, &[]);
        let v = until(&mut rx, WAIT, "a new session", |v| {
            v.caches[0].state == "current" && v.caches[0].session_id != session
        })
        .await;
        assert_eq!(v.payload.counts(), (3, 2, 2));
        // The cache is gone for good: the data expires (override: 3 s).
        cache.child.stop();
        let v = until(&mut rx, WAIT, "expired", |v| v.caches[0].state == "expired").await;
        assert!(v.payload.is_empty());
        assert!(v.caches[0].last_error.is_some());
    });
}

#[test]
fn dump_reports_a_refused_connection_and_bad_usage_with_exit_2() {
    let s = Scratch::new();
    let port = free_port().unwrap();
    let o = s.run(&[
        "rtr",
        "dump",
        &format!("127.0.0.1:{port}"),
        "--timeout",
        "5",
    ]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    assert!(text(&o).contains("cannot connect"), "{}", text(&o));
    let o = s.run(&["rtr", "dump", "127.0.0.1:1", "--version", "3"]);
    assert_eq!(code(&o), 2, "{}", text(&o));
    let o = s.run(&["rtr", "dump", "no-port"]);
    assert_eq!(code(&o), 2, "{}", text(&o));
}
