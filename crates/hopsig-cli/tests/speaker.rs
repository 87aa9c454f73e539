//! `hopsig speaker` against real peers on loopback (issue 13 §3): two hopsig speakers
//! exchanging BGPsec UPDATEs (suite 1 and BGR), gobgpd and BIRD 2 as plain-BGP
//! neighbours. Each test uses free ports and its own 127.0.0.x addresses, waits at
//! most [`WAIT`] for what it checks, and kills what it started. gobgpd and BIRD tests
//! skip when the daemon is missing and fail under CI=true (.ci/run installs them).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::net::TcpListener;
use std::process::Command;
use std::time::{Duration, Instant};

use common::speaker::*;
use common::Scratch;
use serde_json::Value;

/// Two hopsig speakers, one lazy and passive, one strict and active, exchange BGPsec
/// UPDATEs of `suite` and each finds the other's valid; a third speaker whose key is
/// not in the RPKI sends through the lazy one, which forwards its route at once and
/// withdraws it when it turns out Not Valid.
fn hopsig_pair(suite: &str, suite_id: u8) {
    let s = Scratch::new();
    keys(&s, suite, &[65101, 65102, 65103], &[65101, 65102]);
    let (pa, pb) = (free_port(), free_port());
    let _a = start(
        &s,
        "a",
        config(
            "a",
            65101,
            "127.0.1.1",
            Some(pa),
            "lazy",
            suite,
            "10.101.0.0/16",
            &[
                Nb {
                    address: "127.0.1.2",
                    port: 179,
                    remote_as: 65102,
                    passive: true,
                    bgpsec: true,
                },
                Nb {
                    address: "127.0.1.3",
                    port: 179,
                    remote_as: 65103,
                    passive: true,
                    bgpsec: true,
                },
            ],
        ),
    );
    // b and c connect to a, with BGPsec.
    let to_a = [Nb {
        address: "127.0.1.1",
        port: pa,
        remote_as: 65101,
        passive: false,
        bgpsec: true,
    }];
    let _b = start(
        &s,
        "b",
        config(
            "b",
            65102,
            "127.0.1.2",
            None,
            "strict",
            suite,
            "10.102.0.0/16",
            &to_a,
        ),
    );
    let valid = format!("valid (suite {suite_id})");
    wait_for(&s, "b validating a's route", || {
        route_is(&s, "b", "10.101.0.0/16", |r| {
            r["validation"] == valid.as_str() && r["bgpsec"] == true && r["as_path"] == "65101"
        })
    });
    wait_for(&s, "a validating b's route", || {
        route_is(&s, "a", "10.102.0.0/16", |r| {
            r["validation"] == valid.as_str() && r["installed"] == true
        })
    });
    let _c = start(
        &s,
        "c",
        config(
            "c",
            65103,
            "127.0.1.3",
            Some(pb),
            "strict",
            suite,
            "10.103.0.0/16",
            &to_a,
        ),
    );
    wait_for(
        &s,
        "a finding c's route Not Valid and withdrawing it",
        || {
            status(&s, "a").is_some_and(|v| {
                route(&v, "10.103.0.0/16").is_some_and(|r| {
                    r["validation"]
                        .as_str()
                        .unwrap_or("")
                        .starts_with("not valid")
                        && r["installed"] == false
                }) && v["not_valid"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|e| e["prefix"] == "10.103.0.0/16")
                    && !v["adj_rib_out"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|e| e["prefix"] == "10.103.0.0/16")
            })
        },
    );
    wait_for(&s, "b without c's route", || {
        status(&s, "b").is_some_and(|v| {
            route(&v, "10.103.0.0/16").is_none_or(|r| r["installed"] == false)
                && v["validation_queue"] == 0
        })
    });
    let a = status(&s, "a").unwrap();
    assert!(
        a["metrics"]["time_to_forward"]["count"].as_u64().unwrap() >= 1,
        "{a:#}"
    );
    assert!(
        a["metrics"]["time_to_validate"]["count"].as_u64().unwrap() >= 2,
        "{a:#}"
    );
    let summary = s.ok(&["speaker", "status", &s.p("a.toml")]);
    assert!(common::stdout(&summary).contains("127.0.1.2 AS65102 Established bgpsec true"));
}

#[test]
fn two_hopsig_speakers_suite_1() {
    hopsig_pair("ecdsa-p256-sha256", 1);
}

#[test]
fn two_hopsig_speakers_bgr() {
    hopsig_pair("bgr-rsa2048", 247);
}

/// A lazy speaker originating the first 3,000 IPv4 prefixes of the RIS RIB dump
/// (`[originate_mrt]`) toward a strict BGPsec neighbour: the table arrives at once, as
/// after a session reset, and every route is signed, sent and found valid.
#[test]
fn a_table_from_an_mrt_file_crosses_a_bgpsec_session() {
    const N: usize = 3_000;
    let dump = common::mrt("ris-bview.20020722.2337.gz");
    let s = Scratch::new();
    let suite = "ecdsa-p256-sha256";
    keys(&s, suite, &[65111, 65112], &[65111, 65112]);
    let pa = free_port();
    let mut a = config(
        "a",
        65111,
        "127.0.1.11",
        Some(pa),
        "lazy",
        suite,
        "10.111.0.0/16",
        &[Nb {
            address: "127.0.1.12",
            port: 179,
            remote_as: 65112,
            passive: true,
            bgpsec: true,
        }],
    );
    a += &format!("[originate_mrt]\nfile = \"{dump}\"\nlimit = {N}\n");
    // a's status file lists 500 routes per table and counts them all.
    let _a = start(&s, "a", format!("status_routes = 500\n{a}"));
    let _b = start(
        &s,
        "b",
        config(
            "b",
            65112,
            "127.0.1.12",
            None,
            "strict",
            suite,
            "10.112.0.0/16",
            &[Nb {
                address: "127.0.1.11",
                port: pa,
                remote_as: 65111,
                passive: false,
                bgpsec: true,
            }],
        ),
    );
    wait_for(&s, "b validating the whole table", || {
        status(&s, "b").is_some_and(|v| {
            let routes = v["adj_rib_in"].as_array().unwrap();
            routes.len() == N + 1
                && routes
                    .iter()
                    .all(|r| r["validation"] == "valid (suite 1)" && r["as_path"] == "65111")
                && v["validation_queue"] == 0
        })
    });
    wait_for(&s, "a's status file counting the whole table", || {
        status(&s, "a").is_some_and(|a| a["adj_rib_out_count"] == N + 1)
    });
    let a = status(&s, "a").unwrap();
    assert_eq!(a["originated_count"], N + 1, "{a:#}");
    assert_eq!(a["originated"].as_array().unwrap().len(), 500);
    assert_eq!(a["adj_rib_out"].as_array().unwrap().len(), 500);
    let summary = common::stdout(&s.ok(&["speaker", "status", &s.p("a.toml")]));
    assert!(
        summary.contains(&format!("Adj-RIB-Out {} routes", N + 1)),
        "{summary}"
    );
    let log = std::fs::read_to_string(s.path("a.log")).unwrap();
    assert!(
        log.contains(&format!("originating {N} IPv4 prefixes of")),
        "{log}"
    );
}

/// hopsig AS65002 between a plain-BGP daemon (`daemon_as`, at 127.0.0.1) and a hopsig
/// BGPsec speaker AS65003: the daemon's route reaches AS65003 unsigned, and the daemon
/// is sent AS_PATHs. Returns the scratch folder and the processes to keep running.
fn downgrade_setup(
    s: &Scratch,
    daemon_as: u32,
    daemon_port: u16,
    hopsig_address: &str,
) -> [Running; 2] {
    keys(s, "ecdsa-p256-sha256", &[65002, 65003], &[65002, 65003]);
    let p2 = free_port();
    let two = start(
        s,
        "two",
        config(
            "two",
            65002,
            hopsig_address,
            Some(p2),
            "lazy",
            "ecdsa-p256-sha256",
            "10.2.0.0/16",
            &[
                Nb {
                    address: "127.0.0.1",
                    port: daemon_port,
                    remote_as: daemon_as,
                    passive: false,
                    bgpsec: false,
                },
                Nb {
                    address: "127.0.2.3",
                    port: 179,
                    remote_as: 65003,
                    passive: true,
                    bgpsec: true,
                },
            ],
        ),
    );
    let three = start(
        s,
        "three",
        config(
            "three",
            65003,
            "127.0.2.3",
            None,
            "strict",
            "ecdsa-p256-sha256",
            "10.3.0.0/16",
            &[Nb {
                address: hopsig_address,
                port: p2,
                remote_as: 65002,
                passive: false,
                bgpsec: true,
            }],
        ),
    );
    [two, three]
}

/// What the hopsig side of the daemon tests checks: `prefix` from the daemon arrived
/// unsigned and went on to AS65003 unsigned with AS_PATH "65002 DAEMON_AS".
fn daemon_route_travels_unsigned(s: &Scratch, prefix: &str, daemon_as: u32) {
    wait_for(s, "the daemon's route in hopsig AS65002", || {
        route_is(s, "two", prefix, |r| {
            r["bgpsec"] == false
                && r["validation"] == "unsigned"
                && r["as_path"] == daemon_as.to_string().as_str()
        })
    });
    let path = format!("65002 {daemon_as}");
    wait_for(s, "the daemon's route at AS65003, unsigned", || {
        route_is(s, "three", prefix, |r| {
            r["bgpsec"] == false && r["as_path"] == path.as_str() && r["installed"] == true
        })
    });
    wait_for(s, "AS65003's signed route at AS65002", || {
        route_is(s, "two", "10.3.0.0/16", |r| {
            r["bgpsec"] == true && r["validation"] == "valid (suite 1)"
        })
    });
}

#[test]
fn gobgpd_plain_neighbour() {
    if !common::have_with("gobgpd", "--version", "gobgpd_plain_neighbour")
        || !common::have_with("gobgp", "--version", "gobgpd_plain_neighbour")
    {
        return;
    }
    let s = Scratch::new();
    let (port, api) = (free_port(), free_port());
    let conf = include_str!("peers/gobgpd.toml.template")
        .replace("PORT", &port.to_string())
        .replace("HOPSIG_ADDRESS", "127.0.2.2")
        .replace("HOPSIG_AS", "65002");
    let _gobgpd = gobgpd_from(&s, "plain", conf, api);
    let gobgp = |args: &[&str]| common::speaker::gobgp(api, args);
    let added = gobgp(&["global", "rib", "add", "10.9.0.0/16", "origin", "igp"]);
    assert!(added.status.success(), "{}", common::text(&added));
    let _speakers = downgrade_setup(&s, 65001, port, "127.0.2.2");
    daemon_route_travels_unsigned(&s, "10.9.0.0/16", 65001);
    // gobgpd's Adj-RIB-In: hopsig's own prefix and AS65003's, downgraded (RFC 8205 §4.4).
    let expect = [
        ("10.2.0.0/16", vec![65002]),
        ("10.3.0.0/16", vec![65002, 65003]),
    ];
    let mut last = Value::Null;
    wait_for(&s, "hopsig's routes in gobgpd's adj-in", || {
        let o = gobgp(&["-j", "neighbor", "127.0.2.2", "adj-in"]);
        let Ok(v) = serde_json::from_slice::<Value>(&o.stdout) else {
            return false;
        };
        last = v.clone();
        expect.iter().all(|(prefix, path)| {
            v[*prefix][0]["attrs"].as_array().is_some_and(|attrs| {
                attrs
                    .iter()
                    .any(|a| a["type"] == 2 && a["as_paths"][0]["asns"] == serde_json::json!(path))
                    && !attrs.iter().any(|a| a["type"] == 33)
            })
        })
    });
    assert!(
        last["10.9.0.0/16"].is_null(),
        "its own route came back: {last}"
    );
}

#[test]
fn bird_plain_neighbour() {
    if !common::have_with("bird", "--version", "bird_plain_neighbour") {
        return;
    }
    let s = Scratch::new();
    let port = free_port();
    let (_bird, ctl) = start_bird(
        &s,
        include_str!("peers/bird.conf.template"),
        port,
        "127.0.3.2",
        65002,
    );
    let _speakers = downgrade_setup(&s, 65004, port, "127.0.3.2");
    daemon_route_travels_unsigned(&s, "10.4.0.0/16", 65004);
    let mut last = String::new();
    wait_for(&s, "hopsig's routes in BIRD", || {
        let o = Command::new("birdc")
            .args(["-s", &ctl, "show", "route", "all"])
            .output()
            .unwrap();
        last = String::from_utf8_lossy(&o.stdout).into_owned();
        routes_in_bird(&last)
    });
}

/// Whether `birdc show route all` lists 10.2.0.0/16 with AS path 65002 and
/// 10.3.0.0/16 with 65002 65003, neither with a BGPsec_PATH (attribute 33).
fn routes_in_bird(out: &str) -> bool {
    let block = |prefix: &str| -> Option<String> {
        let start = out.find(prefix)?;
        let rest = &out[start..];
        let end = rest[1..].find("\n1").map_or(rest.len(), |e| e + 1);
        Some(rest[..end].to_string())
    };
    let ok = |prefix: &str, path: &str| {
        block(prefix)
            .is_some_and(|b| b.contains(&format!("BGP.as_path: {path}\n")) && !b.contains("BGP.21"))
    };
    ok("10.2.0.0/16", "65002") && ok("10.3.0.0/16", "65002 65003")
}

#[test]
fn session_errors_get_notifications_and_the_speaker_carries_on() {
    use std::io::Write;
    let s = Scratch::new();
    keys(&s, "ecdsa-p256-sha256", &[65201], &[65201]);
    let port = free_port();
    let _a = start(
        &s,
        "a",
        config(
            "a",
            65201,
            "127.0.4.1",
            Some(port),
            "lazy",
            "ecdsa-p256-sha256",
            "10.201.0.0/16",
            &[Nb {
                address: "127.0.4.2",
                port: 179,
                remote_as: 65202,
                passive: true,
                bgpsec: true,
            }],
        ),
    );
    let to = format!("127.0.4.1:{port}");
    wait_for(&s, "the listener", || {
        TcpListener::bind(&to).is_err() && status(&s, "a").is_some()
    });
    // An OPEN from the wrong AS: OPEN Message Error / Bad Peer AS (RFC 4271 §6.2).
    let mut c = raw_client("127.0.4.2", &to);
    assert_eq!(read_message(&mut c)[18], 1, "the speaker's OPEN");
    c.write_all(&open_message(65299, 9)).unwrap();
    assert_eq!(notification(&read_message(&mut c)), (2, 2));
    // A header whose marker is not all ones: Connection Not Synchronized (§6.1).
    std::thread::sleep(Duration::from_millis(1500));
    let mut c = raw_client("127.0.4.2", &to);
    read_message(&mut c);
    let mut bad = open_message(65202, 9);
    bad[0] = 0;
    c.write_all(&bad).unwrap();
    assert_eq!(notification(&read_message(&mut c)), (1, 1));
    // A good OPEN, then silence: KEEPALIVE, then Hold Timer Expired after 3 s (§6.5).
    std::thread::sleep(Duration::from_millis(1500));
    let mut c = raw_client("127.0.4.2", &to);
    read_message(&mut c);
    c.write_all(&open_message(65202, 3)).unwrap();
    assert_eq!(read_message(&mut c)[18], 4, "KEEPALIVE after a good OPEN");
    let start = Instant::now();
    loop {
        let m = read_message(&mut c);
        if m[18] == 4 {
            continue; // KEEPALIVEs every second (a third of the Hold Time)
        }
        assert_eq!(notification(&m), (4, 0));
        break;
    }
    let waited = start.elapsed();
    assert!(
        waited >= Duration::from_secs(2) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
    wait_for(&s, "the session's last error in the status file", || {
        status(&s, "a").is_some_and(|v| {
            v["sessions"][0]["last_error"]
                .as_str()
                .is_some_and(|e| e.contains("Hold Timer expired"))
        })
    });
}

/// An UPDATE from AS `asn` for `prefixes` with a 250-AS path (1 kB): what the speaker
/// sends on for each prefix is that long too.
fn long_path_update(asn: u32, prefixes: &[hopsig_bgp::packet::Prefix]) -> Vec<u8> {
    use hopsig_bgp::packet::{
        AsPath, AsWidth, AttributeValue, Message, Origin, PathAttribute, Update,
    };
    let path: Vec<u32> = std::iter::once(asn).chain(64_512..64_761).collect();
    let attributes = [
        AttributeValue::Origin(Origin::Igp),
        AttributeValue::AsPath(AsPath::sequence(path)),
        AttributeValue::NextHop(std::net::Ipv4Addr::new(192, 0, 2, 14)),
    ]
    .into_iter()
    .map(|a| PathAttribute::new(a, AsWidth::Four).unwrap())
    .collect();
    let u = Update {
        attributes,
        nlri: prefixes.to_vec(),
        ..Update::default()
    };
    Message::Update(u).encoding(AsWidth::Four).unwrap()
}

/// Issue 22 §2: a neighbour that stops reading (but still sends KEEPALIVEs, so its
/// Hold Timer never expires) while 12 MB of UPDATEs (12,000 routes with 250-AS
/// paths, learnt from a third neighbour) wait for it — more than the socket buffers
/// take — is reset by the Send Hold Timer (RFC 9687; by default twice the Hold Time
/// of 9 s, the case) with an RST, so that its socket is freed at once;
/// meanwhile its queue stays within the bound (the rest held back per prefix), and
/// the neighbour that reads gets every route and stays Established.
#[test]
fn a_neighbour_that_stops_reading_is_reset_and_the_others_are_served() {
    use std::io::{Read, Write};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    const N: usize = 12_000;
    let s = Scratch::new();
    let port = free_port();
    let a = start(
        &s,
        "a",
        plain_config(
            65211,
            "127.0.5.1",
            port,
            "a.json",
            &["10.211.0.0/16".into()],
            &[
                ("127.0.5.2", 65212),
                ("127.0.5.3", 65213),
                ("127.0.5.4", 65214),
            ],
        ), // No send_hold_time: the default, twice the Hold Time of 9 s (issue 22's case).
    );
    let to = format!("127.0.5.1:{port}");
    wait_for(&s, "the listener", || {
        TcpListener::bind(&to).is_err() && status(&s, "a").is_some()
    });
    // The neighbour that stops reading: an 4 kB receive buffer, KEEPALIVEs every 2 s.
    let mut stuck = raw_client_small("127.0.5.2", &to, 4096);
    establish(&mut stuck, 65212, 9);
    let stop = Arc::new(AtomicBool::new(false));
    let keepalives = {
        let (mut w, stop) = (stuck.try_clone().unwrap(), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if w.write_all(&KEEPALIVE).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_secs(2));
            }
        })
    };
    // The neighbour that reads everything (Hold Time 0: no KEEPALIVEs needed).
    let mut good = raw_client("127.0.5.3", &to);
    establish(&mut good, 65213, 0);
    let reader = std::thread::spawn(move || {
        let mut updates = 0;
        while updates < N + 1 {
            if read_message(&mut good)[18] == 2 {
                updates += 1;
            }
        }
        good
    });
    // The routes, from a third neighbour.
    let mut feeder = raw_client("127.0.5.4", &to);
    establish(&mut feeder, 65214, 0);
    let prefixes: Vec<hopsig_bgp::packet::Prefix> = (0..N)
        .map(|i| {
            let ip = std::net::Ipv4Addr::new(11, (i >> 8) as u8, (i & 0xff) as u8, 0);
            hopsig_bgp::packet::Prefix::new(ip.into(), 24).unwrap()
        })
        .collect();
    for chunk in prefixes.chunks(500) {
        feeder.write_all(&long_path_update(65214, chunk)).unwrap();
    }
    let (mut max_queue, mut held_back) = (0, 0);
    wait_for(
        &s,
        "the Send Hold Timer to reset the neighbour that stopped reading",
        || {
            let Some(v) = status(&s, "a") else {
                return false;
            };
            let n = session_of(&v, "127.0.5.2");
            max_queue = max_queue.max(n["out_queue_bytes"].as_u64().unwrap_or(0));
            held_back = held_back.max(n["out_held_back"].as_u64().unwrap_or(0));
            n["state"] != "Established"
                && n["last_error"]
                    .as_str()
                    .is_some_and(|e| e.contains("Send Hold Timer expired"))
        },
    );
    // The queue stayed within its bound (1 MiB, one message over at most, and the
    // FSM's KEEPALIVEs); the rest waited, one UPDATE per prefix.
    assert!(max_queue <= (1 << 20) + 4096, "{max_queue}");
    assert!(held_back > 0 && held_back <= N as u64, "{held_back}");
    // Reset, not closed behind the data it never took: the speaker's socket is
    // gone, not left in FIN_WAIT1 with its send buffer.
    let ends = (port, stuck.local_addr().unwrap().port());
    wait_for(&s, "the reset connection's socket to be freed", || {
        !tcp_sockets().contains(&ends)
    });
    let _good = reader.join().unwrap();
    let v = status(&s, "a").unwrap();
    assert_eq!(session_of(&v, "127.0.5.3")["state"], "Established", "{v:#}");
    // The reset session's Adj-RIB-Out is gone with its queue: what remains goes to
    // the reading neighbour (N + 1 routes) and the feeder (the one originated).
    assert_eq!(v["adj_rib_out_count"], N + 2, "{v:#}");
    let rss = proc_status_kb(a.0.id(), "VmRSS");
    assert!(rss < 512 * 1024, "{rss} kB");
    // The connection is closed: draining it reaches its end.
    stop.store(true, Ordering::Relaxed);
    keepalives.join().unwrap();
    let start = Instant::now();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match stuck.read(&mut buf) {
            Ok(0) => break,
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!("the connection stays open: {e}"),
            Ok(_) => assert!(start.elapsed() < WAIT, "the connection stays open"),
        }
    }
}

/// Issue 22 §2: the status file's folder removed while the speaker runs: writes
/// fail, are logged once and counted, the session stays up, and the file is written
/// again once the folder is back.
#[test]
fn a_status_file_that_cannot_be_written_does_not_stop_the_speaker() {
    use std::io::Read;
    let s = Scratch::new();
    let port = free_port();
    std::fs::create_dir(s.path("status")).unwrap();
    // An active neighbour nobody answers changes state every second: status news.
    let mut text = plain_config(
        65221,
        "127.0.5.21",
        port,
        "status/a.json",
        &["10.221.0.0/16".into()],
        &[("127.0.5.22", 65222)],
    );
    text += &format!(
        "[[neighbors]]\naddress = \"127.0.5.23\"\nport = {}\nremote_as = 65223\n",
        free_port()
    );
    let mut a = start(&s, "a", text);
    let to = format!("127.0.5.21:{port}");
    wait_for(&s, "the listener", || {
        TcpListener::bind(&to).is_err() && status(&s, "a").is_some()
    });
    let mut peer = raw_client("127.0.5.22", &to);
    establish(&mut peer, 65222, 0);
    wait_for(&s, "the session in the status file", || {
        status(&s, "a").is_some_and(|v| session_of(&v, "127.0.5.22")["state"] == "Established")
    });
    std::fs::remove_dir_all(s.path("status")).unwrap();
    std::thread::sleep(Duration::from_secs(3));
    assert!(
        a.0.try_wait().unwrap().is_none(),
        "the speaker stopped: {}",
        std::fs::read_to_string(s.path("a.log")).unwrap()
    );
    // The session is up: nothing to read, no end of stream.
    peer.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match peer.read(&mut buf) {
            Ok(0) => panic!("the speaker closed the session"),
            Ok(_) => continue, // the UPDATE of 10.221.0.0/16
            Err(e) => {
                assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock, "{e}");
                break;
            }
        }
    }
    std::fs::create_dir(s.path("status")).unwrap();
    wait_for(&s, "the status file written again", || {
        status(&s, "a").is_some_and(|v| {
            session_of(&v, "127.0.5.22")["state"] == "Established"
                && v["status_write_failures"].as_u64().is_some_and(|n| n > 0)
        })
    });
    let log = std::fs::read_to_string(s.path("a.log")).unwrap();
    assert_eq!(log.matches("tries again").count(), 1, "{log}");
    assert!(log.contains("written again after"), "{log}");
}

/// CPU time (user + system) of process `pid`, from /proc/PID/stat.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command name (in parentheses, which may hold spaces):
    // utime and stime, fields 14 and 15 of the line, are 12 and 13 of these.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<u64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    let hz: u64 = common::stdout(&Command::new("getconf").arg("CLK_TCK").output().unwrap())
        .trim()
        .parse()
        .unwrap();
    Duration::from_millis((f[11] + f[12]) * 1000 / hz)
}

/// Sets the soft RLIMIT_NOFILE of process `pid` (util-linux `prlimit`) to `soft`;
/// returns the one it had.
fn set_nofile(pid: u32, soft: u64) -> u64 {
    let pid = pid.to_string();
    let o = Command::new("prlimit")
        .args([
            "--pid",
            &pid,
            "--nofile",
            "--output",
            "SOFT",
            "--noheadings",
        ])
        .output()
        .expect("prlimit (util-linux)");
    let old = common::stdout(&o).trim().parse().unwrap();
    let o = Command::new("prlimit")
        .args(["--pid", &pid, &format!("--nofile={soft}:")])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::text(&o));
    old
}

/// Issue 22 §2: with its file descriptors used up, the speaker's accept loop backs
/// off (a few percent of a core at most over 5 s while connections wait), logs the
/// failure once, and accepts again once descriptors are free.
#[test]
fn accept_backs_off_when_file_descriptors_run_out() {
    let s = Scratch::new();
    let port = free_port();
    let a = start(
        &s,
        "a",
        plain_config(
            65231,
            "127.0.5.31",
            port,
            "a.json",
            &["10.231.0.0/16".into()],
            &[("127.0.5.32", 65232)],
        ),
    );
    let to = format!("127.0.5.31:{port}");
    wait_for(&s, "the listener", || {
        TcpListener::bind(&to).is_err() && status(&s, "a").is_some()
    });
    let pid = a.0.id();
    // The lowest free descriptor as the limit: every new descriptor fails (EMFILE).
    let open: std::collections::BTreeSet<u64> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().parse().unwrap())
        .collect();
    let lowest_free = (0..).find(|n| !open.contains(n)).unwrap();
    let soft = set_nofile(pid, lowest_free);
    // Connections from an address that is no neighbour wait in the backlog.
    let waiting: Vec<_> = (0..20).map(|_| raw_client("127.0.5.33", &to)).collect();
    std::thread::sleep(Duration::from_millis(500));
    let before = cpu_time(pid);
    std::thread::sleep(Duration::from_secs(5));
    let used = cpu_time(pid) - before;
    let log = std::fs::read_to_string(s.path("a.log")).unwrap();
    assert!(
        used < Duration::from_millis(500),
        "{used:?} of CPU in 5 s\n{log}"
    );
    assert_eq!(log.matches("hopsig speaker: accept on").count(), 1, "{log}");
    set_nofile(pid, soft);
    wait_for(&s, "accept working again", || {
        std::fs::read_to_string(s.path("a.log"))
            .unwrap()
            .contains("works again after")
    });
    // The 20 connections then accepted are no neighbour's: closed, and logged in one
    // line, not twenty (anyone able to connect must not flood the log).
    let refused = "refused: not a passive neighbour";
    wait_for(&s, "the refused connections", || {
        std::fs::read_to_string(s.path("a.log"))
            .unwrap()
            .contains(refused)
    });
    std::thread::sleep(Duration::from_secs(1));
    let log = std::fs::read_to_string(s.path("a.log")).unwrap();
    assert_eq!(log.matches(refused).count(), 1, "{log}");
    drop(waiting);
}

#[test]
fn bad_configurations_are_exit_2_naming_the_file() {
    let s = Scratch::new();
    let cases = [
        ("unknown.toml", "local_as = 1\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nstate_file = \"x\"\nfoo = 1\n", "unknown field"),
        ("prefix.toml", "local_as = 1\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nstate_file = \"x\"\noriginate = [\"10.0.0.1/8\"]\n", "bits set past the length"),
        ("mode.toml", "local_as = 1\nrouter_id = \"192.0.2.1\"\nmode = \"eager\"\nstate_file = \"x\"\n", "unknown variant"),
        ("hold.toml", "local_as = 1\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nhold_time = 2\nstate_file = \"x\"\n", "hold_time"),
        ("sendhold.toml", "local_as = 1\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nhold_time = 9\nsend_hold_time = 9\nstate_file = \"x\"\n", "send_hold_time must be 0 (none) or more than hold_time"),
        ("key.toml", "local_as = 1\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nstate_file = \"x\"\nrouter_keys = [{ suite = \"1\", file = \"missing.key\" }]\n[[neighbors]]\naddress = \"127.0.0.9\"\nremote_as = 2\n", "missing.key"),
        ("mrt.toml", "local_as = 1\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nstate_file = \"x\"\n[originate_mrt]\nfile = \"missing.mrt\"\n", "missing.mrt"),
        ("limit.toml", "local_as = 1\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nstate_file = \"x\"\n[originate_mrt]\nfile = \"missing.mrt\"\nlimit = 0\n", "limit must be at least 1"),
    ];
    for (name, text, needle) in cases {
        let path = s.write(name, text);
        let o = s.run(&["speaker", "run", &path]);
        assert_eq!(common::code(&o), 2, "{name}: {}", common::text(&o));
        let err = common::stderr(&o);
        assert!(err.contains(needle), "{name}: {err}");
        assert!(
            err.contains(".toml") || err.contains("missing.key") || err.contains("missing.mrt"),
            "{name}: {err}"
        );
    }
    let path = s.write(
        "ok.toml",
        "local_as = 1\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nstate_file = \"none.json\"\n",
    );
    let o = s.run(&["speaker", "status", &path]);
    assert_eq!(common::code(&o), 2);
    assert!(
        common::stderr(&o).contains("none.json"),
        "{}",
        common::text(&o)
    );
}

#[test]
fn bench_speaker_quick_measures_every_suite() {
    let s = Scratch::new();
    let json = s.p("speaker.json");
    let o = s.ok(&["bench", "speaker", "--quick", "--json", &json]);
    assert!(
        common::stdout(&o).contains("session reset"),
        "{}",
        common::text(&o)
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let suites = v["rows"].as_array().unwrap();
    let names: Vec<&str> = suites
        .iter()
        .map(|r| r["suite"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["ecdsa-p256-sha256", "bgr-rsa2048", "rsa2048-pkcs1-sha256"]
    );
    for r in suites {
        for key in [
            "floor_updates_per_s",
            "pool1_updates_per_s",
            "pool2_updates_per_s",
            "sign_median_us",
            "lazy_forward_median_us",
        ] {
            assert!(r[key].as_f64().is_some_and(|x| x > 0.0), "{key}: {r}");
        }
        for reset in r["reset"].as_array().unwrap() {
            // Validation of the last route cannot end before it arrived.
            assert!(reset["all_validated_ms"].as_f64().unwrap() > 0.0, "{r}");
        }
    }
}

// ---------------------------------------------------------------------------------
// RFC rules checked with hand-written peers (issue 22 §2): each raw peer runs the
// session itself (OPEN with the capabilities the test chooses, Hold Time 0) and reads
// what the speaker sends.

mod raw {
    use std::borrow::Cow;
    use std::collections::BTreeMap;
    use std::io::Write;
    use std::net::{IpAddr, Ipv4Addr, TcpStream};

    use hopsig_bgp::packet::{
        Afi, AsPath, AsWidth, AttrFlags, AttributeValue, BgpsecCapability, BgpsecPath, Capability,
        Direction, Message, MultiprotocolCapability, NextHop, Open, Origin, PathAttribute, Prefix,
        SecurePathFlags, SecurePathSegment, SignatureBlock, SignatureSegment, Update,
    };
    use hopsig_bgp::suite::ECDSA_P256_SHA256;
    use hopsig_bgp::{AlgorithmSuite, Hop, SignedNlri, Signer};

    use super::{raw_client, read_message};

    /// What a raw peer announces in its OPEN.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub enum Caps {
        /// An OLD speaker: no 4-octet AS capability (RFC 6793).
        Old,
        /// 4-octet AS and IPv4 unicast.
        New,
        /// As `New`, with BGPsec Send and Receive for IPv4.
        Bgpsec,
        /// As `New`, with BGPsec Receive only (it may not send BGPsec_PATH).
        BgpsecReceiveOnly,
    }

    pub struct Peer {
        pub stream: TcpStream,
        pub width: AsWidth,
        /// The speaker's OPEN.
        pub open: Open<'static>,
        /// Every UPDATE read from the speaker so far.
        pub updates: Vec<Update<'static>>,
    }

    pub fn prefix(s: &str) -> Prefix {
        let (a, l) = s.split_once('/').unwrap();
        Prefix::new(a.parse::<IpAddr>().unwrap(), l.parse().unwrap()).unwrap()
    }

    impl Peer {
        /// Connects from `from` to the speaker at `to` as AS `asn` and reaches
        /// Established.
        pub fn connect(from: &str, to: &str, asn: u32, caps: Caps) -> Peer {
            let mut capabilities = vec![Capability::Multiprotocol(MultiprotocolCapability {
                afi: 1,
                reserved: 0,
                safi: 1,
            })];
            let directions: &[Direction] = match caps {
                Caps::Bgpsec => &[Direction::Send, Direction::Receive],
                Caps::BgpsecReceiveOnly => &[Direction::Receive],
                _ => &[],
            };
            for d in directions {
                capabilities.push(Capability::Bgpsec(BgpsecCapability::new(*d, Afi::Ipv4)));
            }
            let id = Ipv4Addr::new(192, 0, 2, 200);
            let (open, width) = if caps == Caps::Old {
                let open = Open {
                    my_as: u16::try_from(asn).unwrap(),
                    hold_time: 0,
                    bgp_identifier: id,
                    parameters: vec![capabilities],
                };
                (open, AsWidth::Two)
            } else {
                (Open::new(asn, 0, id, capabilities), AsWidth::Four)
            };
            let mut stream = raw_client(from, to);
            let theirs = read_message(&mut stream);
            let Message::Open(theirs) = Message::decode(&theirs, width).unwrap() else {
                panic!("expected the speaker's OPEN")
            };
            let theirs = theirs.into_owned();
            let mut peer = Peer {
                stream,
                width,
                open: theirs,
                updates: vec![],
            };
            peer.send(Message::Open(open));
            let reply = read_message(&mut peer.stream);
            assert_eq!(
                Message::decode(&reply, width).unwrap(),
                Message::Keepalive,
                "the speaker's answer to the OPEN"
            );
            peer.send(Message::Keepalive);
            peer
        }

        pub fn send(&mut self, m: Message<'_>) {
            let bytes = m.encoding(self.width).unwrap();
            self.stream.write_all(&bytes).unwrap();
        }

        /// Reads UPDATEs until `done` holds for the prefixes announced now (each
        /// with its last UPDATE); fails on the read timeout.
        pub fn until(
            &mut self,
            done: impl Fn(&BTreeMap<Prefix, Update<'static>>) -> bool,
        ) -> BTreeMap<Prefix, Update<'static>> {
            loop {
                let now = self.announced();
                if done(&now) {
                    return now;
                }
                let bytes = read_message(&mut self.stream);
                match Message::decode(&bytes, self.width) {
                    Ok(Message::Update(u)) => self.updates.push(u.into_owned()),
                    Ok(Message::Keepalive) => {}
                    other => panic!("unexpected message from the speaker: {other:?}"),
                }
            }
        }

        /// The prefixes the speaker's UPDATEs leave announced.
        pub fn announced(&self) -> BTreeMap<Prefix, Update<'static>> {
            let mut now = BTreeMap::new();
            for u in &self.updates {
                for p in u.withdrawn_all() {
                    now.remove(&p);
                }
                for p in u.announced() {
                    now.insert(p, u.clone());
                }
            }
            now
        }

        /// Whether the speaker ever announced `p` to this peer.
        pub fn ever(&self, p: Prefix) -> bool {
            self.updates.iter().any(|u| u.announced().any(|q| q == p))
        }
    }

    /// An attribute of a type hopsig does not decode, with these flags.
    pub fn other(flags: u8, type_code: u8, value: &[u8]) -> PathAttribute<'static> {
        PathAttribute::with_flags(
            AttrFlags(flags),
            AttributeValue::Other {
                type_code,
                value: Cow::Owned(value.to_vec()),
            },
        )
        .unwrap()
    }

    /// An unsigned UPDATE announcing `p` with `path`, and `more` attributes.
    pub fn plain(
        p: &str,
        path: AsPath,
        width: AsWidth,
        more: Vec<PathAttribute<'static>>,
    ) -> Message<'static> {
        let mut attributes: Vec<PathAttribute<'static>> = [
            AttributeValue::Origin(Origin::Igp),
            AttributeValue::AsPath(path),
            AttributeValue::NextHop(Ipv4Addr::new(192, 0, 2, 200)),
        ]
        .into_iter()
        .map(|a| PathAttribute::new(a, width).unwrap())
        .collect();
        attributes.extend(more);
        Message::Update(Update {
            attributes,
            nlri: vec![prefix(p)],
            ..Update::default()
        })
    }

    /// A BGPsec UPDATE for `p` signed by a fresh key of AS `signer_as` (not in the
    /// RPKI) toward `hop`.
    pub fn signed(p: &str, signer_as: u32, hop: Hop) -> Message<'static> {
        let key = ECDSA_P256_SHA256.generate().unwrap();
        let signer = Signer::new(signer_as)
            .with_key(&ECDSA_P256_SHA256, key)
            .unwrap();
        let origin = PathAttribute::new(AttributeValue::Origin(Origin::Igp), AsWidth::Four);
        let u = signer
            .originate(
                SignedNlri::unicast(prefix(p)),
                NextHop::V4(Ipv4Addr::new(192, 0, 2, 200)),
                vec![origin.unwrap()],
                &hop,
            )
            .unwrap();
        Message::Update(u.into_owned())
    }

    /// A BGPsec UPDATE for `p` from AS `asn` whose one Signature_Block is of suite
    /// `suite` (one Signature Segment of made-up octets).
    pub fn signed_with_suite(p: &str, asn: u32, suite: u8) -> Message<'static> {
        let segment = SecurePathSegment {
            pcount: 1,
            flags: SecurePathFlags(0),
            asn,
        };
        let block = SignatureBlock {
            suite,
            segments: vec![SignatureSegment {
                ski: [7; 20],
                signature: Cow::Owned(vec![1; 64]),
            }],
        };
        let path = BgpsecPath::new(vec![segment], vec![block]).unwrap();
        let nh = NextHop::V4(Ipv4Addr::new(192, 0, 2, 200));
        let mp = hopsig_bgp::packet::MpReachNlri::new(
            hopsig_bgp::packet::Safi::Unicast,
            nh,
            vec![prefix(p)],
        )
        .unwrap();
        let attributes = [
            AttributeValue::Origin(Origin::Igp),
            AttributeValue::MpReachNlri(mp),
            AttributeValue::BgpsecPath(path),
        ]
        .into_iter()
        .map(|a| PathAttribute::new(a, AsWidth::Four).unwrap())
        .collect();
        Message::Update(Update {
            attributes,
            ..Update::default()
        })
    }

    /// The AS_PATH of `u` (panics without one).
    pub fn as_path(u: &Update<'_>) -> Vec<u32> {
        u.as_path()
            .unwrap()
            .segments
            .iter()
            .flat_map(|s| s.asns.clone())
            .collect()
    }

    /// The AS4_PATH of `u`, if any.
    pub fn as4_path(u: &Update<'_>) -> Option<Vec<u32>> {
        u.attributes.iter().find_map(|a| match a.value() {
            AttributeValue::As4Path(p) => {
                Some(p.segments.iter().flat_map(|s| s.asns.clone()).collect())
            }
            _ => None,
        })
    }

    /// Flags and value of the attribute of type `t` in `u`, if any.
    pub fn kept(u: &Update<'_>, t: u8) -> Option<(u8, Vec<u8>)> {
        u.attributes.iter().find_map(|a| match a.value() {
            AttributeValue::Other { type_code, value } if *type_code == t => {
                Some((a.flags().0, value.to_vec()))
            }
            _ => None,
        })
    }
}

/// A speaker configuration with raw passive neighbours `(address, AS)`.
fn raw_config(
    name: &str,
    asn: u32,
    address: &str,
    port: u16,
    mode: &str,
    n: &[(&str, u32, bool)],
) -> String {
    let neighbors: Vec<Nb<'_>> = n
        .iter()
        .map(|&(address, remote_as, bgpsec)| Nb {
            address,
            port: 179,
            remote_as,
            passive: true,
            bgpsec,
        })
        .collect();
    config(
        name,
        asn,
        address,
        Some(port),
        mode,
        "ecdsa-p256-sha256",
        &format!("10.{}.0.0/16", asn % 100),
        &neighbors,
    )
}

/// Starts speaker NAME of AS `asn` and waits for its listener.
fn raw_speaker(
    s: &Scratch,
    name: &str,
    asn: u32,
    address: &str,
    mode: &str,
    n: &[(&str, u32, bool)],
) -> (Running, String) {
    keys(s, "ecdsa-p256-sha256", &[asn], &[asn]);
    let port = free_port();
    let running = start(s, name, raw_config(name, asn, address, port, mode, n));
    let to = format!("{address}:{port}");
    wait_for(s, "the listener", || {
        TcpListener::bind(&to).is_err() && status(s, name).is_some()
    });
    (running, to)
}

/// RFC 6793 §4.2.2 / §4.2.3: a speaker of a 4-octet AS sends an OLD neighbour
/// AS_PATH with AS_TRANS and the real path in AS4_PATH (and AGGREGATOR with AS_TRANS
/// beside AS4_AGGREGATOR), merges the AS4_PATH the OLD neighbour sends, and finds a
/// loop through it.
#[test]
fn as4_path_with_an_old_neighbour() {
    use hopsig_bgp::packet::{AsPath, AsWidth, AS_TRANS};
    use raw::{as4_path, as_path, kept, other, plain, prefix, Caps, Peer};
    const LOCAL: u32 = 4_200_000_001;
    let trans = u32::from(AS_TRANS);
    let s = Scratch::new();
    let (_speaker, to) = raw_speaker(
        &s,
        "a",
        LOCAL,
        "127.0.5.1",
        "lazy",
        &[
            ("127.0.5.2", 65_302, false),
            ("127.0.5.3", 65_301, false),
            ("127.0.5.4", 4_200_000_004, true),
        ],
    );
    let mut new = Peer::connect("127.0.5.2", &to, 65_302, Caps::New);
    // AGGREGATOR of a 4-octet AS on a 4-octet session: AS, then the address.
    let aggregator = [0xfa, 0x56, 0xea, 0x63, 10, 0, 0, 9];
    new.send(plain(
        "10.60.0.0/16",
        AsPath::sequence(vec![65_302, 4_200_000_099]),
        AsWidth::Four,
        vec![other(0xc0, 7, &aggregator)],
    ));
    wait_for(&s, "10.60.0.0/16 from the NEW neighbour", || {
        route_is(&s, "a", "10.60.0.0/16", |r| r["installed"] == true)
    });
    let mut old = Peer::connect("127.0.5.3", &to, 65_301, Caps::Old);
    assert_eq!(
        old.open.my_as, AS_TRANS,
        "My Autonomous System (RFC 6793 §4.2.1)"
    );
    let (own, learnt) = (prefix("10.1.0.0/16"), prefix("10.60.0.0/16"));
    let got = old.until(|a| a.contains_key(&own) && a.contains_key(&learnt));
    assert_eq!(as_path(&got[&own]), [trans]);
    assert_eq!(as4_path(&got[&own]), Some(vec![LOCAL]));
    assert_eq!(as_path(&got[&learnt]), [trans, 65_302, trans]);
    assert_eq!(
        as4_path(&got[&learnt]),
        Some(vec![LOCAL, 65_302, 4_200_000_099])
    );
    assert_eq!(
        kept(&got[&learnt], 7),
        Some((0xc0, vec![0x5b, 0xa0, 10, 0, 0, 9])),
        "AGGREGATOR with AS_TRANS"
    );
    assert_eq!(
        kept(&got[&learnt], 18),
        Some((0xc0, aggregator.to_vec())),
        "AS4_AGGREGATOR"
    );
    // A BGPsec route goes to the OLD neighbour as its Secure_Path's AS_PATH (RFC 8205
    // §4.4), split as any other (forwarded before validation: lazy mode).
    let mut bgpsec = Peer::connect("127.0.5.4", &to, 4_200_000_004, Caps::Bgpsec);
    bgpsec.send(raw::signed(
        "10.64.0.0/16",
        4_200_000_004,
        hopsig_bgp::Hop::to(LOCAL),
    ));
    let signed = prefix("10.64.0.0/16");
    let got = old.until(|a| a.contains_key(&signed));
    assert_eq!(as_path(&got[&signed]), [trans, trans]);
    assert_eq!(as4_path(&got[&signed]), Some(vec![LOCAL, 4_200_000_004]));
    // From the OLD neighbour: AS_PATH 65301 AS_TRANS 65305, AS4_PATH 4200000077 65305.
    let as4 = as4_attr(vec![4_200_000_077, 65_305]);
    old.send(plain(
        "10.70.0.0/16",
        AsPath::sequence(vec![65_301, trans, 65_305]),
        AsWidth::Two,
        vec![as4],
    ));
    // A loop seen only in AS4_PATH, then a marker.
    old.send(plain(
        "10.71.0.0/16",
        AsPath::sequence(vec![65_301, trans]),
        AsWidth::Two,
        vec![as4_attr(vec![LOCAL])],
    ));
    old.send(plain(
        "10.72.0.0/16",
        AsPath::sequence(vec![65_301]),
        AsWidth::Two,
        vec![],
    ));
    let (merged, looped, marker) = (
        prefix("10.70.0.0/16"),
        prefix("10.71.0.0/16"),
        prefix("10.72.0.0/16"),
    );
    let got = new.until(|a| a.contains_key(&merged) && a.contains_key(&marker));
    assert_eq!(
        as_path(&got[&merged]),
        [LOCAL, 65_301, 4_200_000_077, 65_305]
    );
    assert_eq!(
        as4_path(&got[&merged]),
        None,
        "no AS4_PATH between NEW speakers"
    );
    assert!(
        !new.ever(looped),
        "a route looping through AS4_PATH went on"
    );
    wait_for(&s, "the merged path in the status file", || {
        route_is(&s, "a", "10.70.0.0/16", |r| {
            r["as_path"] == "65301 4200000077 65305"
        })
    });
    let st = status(&s, "a").unwrap();
    assert!(route(&st, "10.71.0.0/16").is_none(), "{st}");
}

/// An AS4_PATH of one AS_SEQUENCE.
fn as4_attr(asns: Vec<u32>) -> hopsig_bgp::packet::PathAttribute<'static> {
    use hopsig_bgp::packet::{AsPath, AsWidth, AttributeValue, PathAttribute};
    PathAttribute::new(
        AttributeValue::As4Path(AsPath::sequence(asns)),
        AsWidth::Two,
    )
    .unwrap()
}

/// RFC 4271 §5: an unrecognized optional transitive attribute goes on with the Partial
/// bit set; optional non-transitive ones (unknown, or MULTI_EXIT_DISC) do not;
/// COMMUNITIES goes on as it is, and NO_EXPORT is honoured (RFC 1997).
#[test]
fn unknown_optional_transitive_attributes_pass_with_the_partial_bit() {
    use hopsig_bgp::packet::{AsPath, AsWidth};
    use raw::{kept, other, plain, prefix, Caps, Peer};
    let s = Scratch::new();
    let (_speaker, to) = raw_speaker(
        &s,
        "a",
        65_311,
        "127.0.5.11",
        "lazy",
        &[("127.0.5.12", 65_312, false), ("127.0.5.13", 65_313, false)],
    );
    let mut from = Peer::connect("127.0.5.12", &to, 65_312, Caps::New);
    let mut to_peer = Peer::connect("127.0.5.13", &to, 65_313, Caps::New);
    from.send(plain(
        "10.61.0.0/16",
        AsPath::sequence(vec![65_312]),
        AsWidth::Four,
        vec![
            other(0x80, 4, &[0, 0, 0, 7]), // MULTI_EXIT_DISC
            other(0xc0, 0xf0, &[1, 2, 3]), // unknown, optional transitive
            other(0x80, 0xf1, &[4, 5]),    // unknown, optional non-transitive
        ],
    ));
    // RFC 1997: passed on, COMMUNITIES is recognised, so NO_EXPORT keeps a route
    // from every (external) neighbour; then a marker.
    from.send(plain(
        "10.62.0.0/16",
        AsPath::sequence(vec![65_312]),
        AsWidth::Four,
        vec![other(0xc0, 8, &[0xff, 0xff, 0xff, 0x01])],
    ));
    from.send(plain(
        "10.63.0.0/16",
        AsPath::sequence(vec![65_312]),
        AsWidth::Four,
        vec![other(0xc0, 8, &[0xfd, 0xe8, 0, 1])],
    ));
    let p = prefix("10.61.0.0/16");
    let marker = prefix("10.63.0.0/16");
    let got = to_peer.until(|a| a.contains_key(&p) && a.contains_key(&marker));
    assert!(
        !to_peer.ever(prefix("10.62.0.0/16")),
        "NO_EXPORT route sent"
    );
    assert_eq!(kept(&got[&marker], 8), Some((0xc0, vec![0xfd, 0xe8, 0, 1])));
    assert_eq!(
        kept(&got[&p], 0xf0),
        Some((0xe0, vec![1, 2, 3])),
        "{:?}",
        got[&p]
    );
    assert_eq!(kept(&got[&p], 0xf1), None);
    assert_eq!(kept(&got[&p], 4), None);
}

/// Starts a speaker of AS `asn` in `mode` with a BGPsec raw neighbour (AS+1) and a
/// plain one (AS+2); returns them Established.
fn bgpsec_and_plain(
    s: &Scratch,
    asn: u32,
    net: &str,
    mode: &str,
) -> (Running, raw::Peer, raw::Peer) {
    let (p, q) = (format!("{net}.2"), format!("{net}.3"));
    let (speaker, to) = raw_speaker(
        s,
        "a",
        asn,
        &format!("{net}.1"),
        mode,
        &[(&p, asn + 1, true), (&q, asn + 2, false)],
    );
    let bgpsec = raw::Peer::connect(&p, &to, asn + 1, raw::Caps::Bgpsec);
    let plain = raw::Peer::connect(&q, &to, asn + 2, raw::Caps::New);
    (speaker, bgpsec, plain)
}

/// RFC 8205 §5.2: the checks that need no cryptography (here 2, the newest segment
/// not the peer's AS, and 7, pCount 0 from a peer not allowed to send it) are
/// treat-as-withdraw, made before the route is forwarded — in lazy mode too.
#[test]
fn bgpsec_structural_errors_are_treat_as_withdraw_before_forwarding() {
    use hopsig_bgp::packet::{AsPath, AsWidth};
    use hopsig_bgp::Hop;
    use raw::{plain, prefix, signed};
    for (mode, net, asn) in [("lazy", "127.0.6", 65_321), ("strict", "127.0.7", 65_331)] {
        let s = Scratch::new();
        let (_speaker, mut p, mut q) = bgpsec_and_plain(&s, asn, net, mode);
        p.send(signed("10.80.0.0/16", 65_399, Hop::to(asn)));
        let pcount_zero = Hop {
            target_as: asn,
            pcount: 0,
            confed_segment: false,
        };
        p.send(signed("10.82.0.0/16", asn + 1, pcount_zero));
        p.send(plain(
            "10.81.0.0/16",
            AsPath::sequence(vec![asn + 1]),
            AsWidth::Four,
            vec![],
        ));
        let marker = prefix("10.81.0.0/16");
        q.until(|a| a.contains_key(&marker));
        for bad in ["10.80.0.0/16", "10.82.0.0/16"] {
            assert!(!q.ever(prefix(bad)), "{mode}: {bad} was forwarded");
        }
        wait_for(&s, "the marker in the status file", || {
            route_is(&s, "a", "10.81.0.0/16", |_| true)
        });
        let st = status(&s, "a").unwrap();
        for bad in ["10.80.0.0/16", "10.82.0.0/16"] {
            assert!(route(&st, bad).is_none(), "{mode}: {bad} kept: {st}");
        }
        let log = std::fs::read_to_string(s.path("a.log")).unwrap();
        assert!(log.contains("check 2") && log.contains("check 7"), "{log}");
    }
}

/// RFC 8205 §5.2: an UPDATE whose Signature_Blocks are all of suites the speaker does
/// not support is treated as unsigned: its Secure_Path becomes an AS_PATH (§4.4) and
/// the route is used and sent on without BGPsec_PATH.
#[test]
fn signature_blocks_of_unsupported_suites_only_make_an_unsigned_route() {
    use raw::{as_path, prefix, signed_with_suite};
    let s = Scratch::new();
    let (_speaker, mut p, mut q) = bgpsec_and_plain(&s, 65_341, "127.0.8", "strict");
    p.send(signed_with_suite("10.90.0.0/16", 65_342, 0x42));
    let want = prefix("10.90.0.0/16");
    let got = q.until(|a| a.contains_key(&want));
    assert_eq!(as_path(&got[&want]), [65_341, 65_342]);
    wait_for(&s, "the route, unsigned and installed", || {
        route_is(&s, "a", "10.90.0.0/16", |r| {
            r["validation"] == "unsigned"
                && r["bgpsec"] == false
                && r["as_path"] == "65342"
                && r["installed"] == true
        })
    });
}

/// RFC 8205 §2.2: a peer may send BGPsec_PATH only if it announced Send and this
/// speaker Receive (with 4-octet AS on both sides). A BGPsec UPDATE outside that is
/// treat-as-withdraw (docs/spec/speaker.md).
#[test]
fn bgpsec_path_from_a_peer_that_may_not_send_it_is_treat_as_withdraw() {
    use hopsig_bgp::packet::{AsPath, AsWidth};
    use hopsig_bgp::Hop;
    use raw::{plain, signed, Caps, Peer};
    let s = Scratch::new();
    let (_speaker, to) = raw_speaker(
        &s,
        "a",
        65_351,
        "127.0.9.1",
        "lazy",
        // No BGPsec capability toward .2; .3 announces Receive only.
        &[("127.0.9.2", 65_352, false), ("127.0.9.3", 65_353, true)],
    );
    let mut unannounced = Peer::connect("127.0.9.2", &to, 65_352, Caps::Bgpsec);
    let mut receive_only = Peer::connect("127.0.9.3", &to, 65_353, Caps::BgpsecReceiveOnly);
    for (peer, asn, bad, marker) in [
        (&mut unannounced, 65_352, "10.95.0.0/16", "10.97.0.0/16"),
        (&mut receive_only, 65_353, "10.96.0.0/16", "10.98.0.0/16"),
    ] {
        peer.send(signed(bad, asn, Hop::to(65_351)));
        peer.send(plain(
            marker,
            AsPath::sequence(vec![asn]),
            AsWidth::Four,
            vec![],
        ));
    }
    wait_for(&s, "both markers", || {
        status(&s, "a").is_some_and(|v| {
            route(&v, "10.97.0.0/16").is_some() && route(&v, "10.98.0.0/16").is_some()
        })
    });
    let st = status(&s, "a").unwrap();
    for bad in ["10.95.0.0/16", "10.96.0.0/16"] {
        assert!(route(&st, bad).is_none(), "{bad} kept: {st}");
    }
}

/// BIRD with the 4-octet AS capability off is an OLD speaker (RFC 6793): a route whose
/// path holds a 4-octet AS reaches it (AS_TRANS in AS_PATH, the real path in AS4_PATH,
/// which BIRD merges back), and its own route, sent with AS4_PATH, is merged by hopsig.
#[test]
fn bird_as_an_old_neighbour() {
    use hopsig_bgp::packet::{AsPath, AsWidth};
    use raw::{plain, Caps, Peer};
    if !common::have_with("bird", "--version", "bird_as_an_old_neighbour") {
        return;
    }
    let s = Scratch::new();
    let port = free_port();
    let (_bird, ctl) = start_bird(
        &s,
        include_str!("peers/bird-old.conf.template"),
        port,
        "127.0.10.2",
        65010,
    );
    keys(&s, "ecdsa-p256-sha256", &[65_010], &[65_010]);
    let listen = free_port();
    let _speaker = start(
        &s,
        "a",
        config(
            "a",
            65_010,
            "127.0.10.2",
            Some(listen),
            "lazy",
            "ecdsa-p256-sha256",
            "10.10.0.0/16",
            &[
                Nb {
                    address: "127.0.0.1",
                    port,
                    remote_as: 65_005,
                    passive: false,
                    bgpsec: false,
                },
                Nb {
                    address: "127.0.10.3",
                    port: 179,
                    remote_as: 65_011,
                    passive: true,
                    bgpsec: false,
                },
            ],
        ),
    );
    let to = format!("127.0.10.2:{listen}");
    wait_for(&s, "the listener", || {
        TcpListener::bind(&to).is_err() && status(&s, "a").is_some()
    });
    let mut new = Peer::connect("127.0.10.3", &to, 65_011, Caps::New);
    new.send(plain(
        "10.11.0.0/16",
        AsPath::sequence(vec![65_011, 4_200_000_099]),
        AsWidth::Four,
        vec![],
    ));
    let mut last = String::new();
    wait_for(&s, "the 4-octet path in BIRD", || {
        let o = Command::new("birdc")
            .args(["-s", &ctl, "show", "route", "all", "10.11.0.0/16"])
            .output()
            .unwrap();
        last = String::from_utf8_lossy(&o.stdout).into_owned();
        last.contains("BGP.as_path: 65010 65011 4200000099\n")
    });
    wait_for(&s, "BIRD's route with its path merged", || {
        route_is(&s, "a", "10.5.0.0/16", |r| {
            r["as_path"] == "65005 4200000077"
        })
    });
}

/// Issue 24 §4: a speaker whose router keys come only from a StayRTR cache
/// (`[[rpki.cache]]`). A signs 10.121.0.0/16 to B (the speaker under test, `mode`),
/// B forwards it signed to C. Once StayRTR serves A's key, C has the route; A's key
/// removed from StayRTR's file (StayRTR re-reads it, sends Serial Notify, B asks for
/// the difference, its view changes, the route is revalidated and found Not Valid),
/// C loses it — the sessions stay up; the key put back, C has it again. Then a ROA of
/// A's prefix for another AS makes the route ROV Invalid, which B's policy toward A
/// (`reject_rov_invalid`) rejects: C loses it until the ROA is gone.
fn speaker_follows_stayrtr(mode: &str, net: u8) {
    let Some(bin) = hopsig_testkit::stayrtr::StayRtr::find(&hopsig_testkit::root()) else {
        hopsig_testkit::missing("StayRTR (tools/stayrtr; .ci/run builds it into target/stayrtr)");
        return;
    };
    let s = Scratch::new();
    let suite = "ecdsa-p256-sha256";
    let (asa, asb, asc) = (65121, 65122, 65123);
    keys(&s, suite, &[asa, asb, asc], &[asa, asb, asc]);
    let every: Value =
        serde_json::from_slice(&std::fs::read(s.path("rpki.json")).unwrap()).unwrap();
    // A's key (or not), and a ROA of A's prefix for another AS (or none).
    let served_roa = |with_a: bool, foreign_roa: bool| {
        let keys: Vec<Value> = every["bgpsec_keys"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|k| with_a || k["asn"] != asa)
            .map(|k| {
                let mut k = k.clone();
                k["ta"] = "lab".into();
                k
            })
            .collect();
        let roas = if foreign_roa {
            serde_json::json!([{"prefix": "10.121.0.0/16", "maxLength": 16, "asn": 64_496, "ta": "lab"}])
        } else {
            serde_json::json!([])
        };
        serde_json::json!({
            "metadata": {"buildtime": "2026-01-01T00:00:00Z"},
            "roas": roas,
            "bgpsec_keys": keys,
        })
    };
    let served = |with_a: bool| served_roa(with_a, false);
    let cache_json = s.path("served.json");
    let write = |doc: Value| {
        let tmp = s.path("served.json.tmp");
        std::fs::write(&tmp, doc.to_string()).unwrap();
        std::fs::rename(&tmp, &cache_json).unwrap();
    };
    write(served(true));
    let cache =
        hopsig_testkit::stayrtr::StayRtr::start(&bin, &cache_json, 1, &s.path("stayrtr.log"))
            .unwrap();
    let addr = |i: u8| format!("127.0.{net}.{i}");
    let (a_addr, b_addr, c_addr) = (addr(1), addr(2), addr(3));
    let pb = free_port();
    // B: keys from the cache only.
    let b = config(
        "b",
        asb,
        &b_addr,
        Some(pb),
        mode,
        suite,
        "10.122.0.0/16",
        &[
            Nb {
                address: &a_addr,
                port: 179,
                remote_as: asa,
                passive: true,
                bgpsec: true,
            },
            Nb {
                address: &c_addr,
                port: 179,
                remote_as: asc,
                passive: true,
                bgpsec: true,
            },
        ],
    )
    .replace("rpki_keys = \"rpki.json\"\n", "")
    // B takes no ROV Invalid route from A.
    .replacen(
        &format!("remote_as = {asa}\npassive = true\nbgpsec = true\n"),
        &format!("remote_as = {asa}\npassive = true\nbgpsec = true\nreject_rov_invalid = true\n"),
        1,
    ) + &format!(
        "[[rpki.cache]]\naddress = \"127.0.0.1\"\nport = {}\npreference = 1\nrefresh = 2\n",
        cache.port
    );
    let _b = start(&s, "b", b);
    let to_b = || Nb {
        address: &b_addr,
        port: pb,
        remote_as: asb,
        passive: false,
        bgpsec: true,
    };
    let _a = start(
        &s,
        "a",
        config(
            "a",
            asa,
            &a_addr,
            None,
            "strict",
            suite,
            "10.121.0.0/16",
            &[to_b()],
        ),
    );
    let _c = start(
        &s,
        "c",
        config(
            "c",
            asc,
            &c_addr,
            None,
            "strict",
            suite,
            "10.123.0.0/16",
            &[to_b()],
        ),
    );
    let at_c = |present: bool| {
        let s = &s;
        move || {
            status(s, "c").is_some_and(|v| {
                route(&v, "10.121.0.0/16").is_some_and(|r| {
                    r["validation"] == "valid (suite 1)" && r["as_path"] == format!("{asb} {asa}")
                }) == present
            })
        }
    };
    wait_for(&s, "C holding A's route through B", at_c(true));
    let sessions_up = |v: &Value| {
        v["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["state"] == "Established")
    };
    // In lazy mode C may have the route before B's cache answered (B forwards at
    // once); B's status file is rewritten every 500 ms at most.
    wait_for(&s, "B holding the cache's keys", || {
        status(&s, "b").is_some_and(|v| {
            v["rpki"]["router_keys"].as_u64() >= Some(3)
                && route(&v, "10.121.0.0/16").is_some_and(|r| r["validation"] == "valid (suite 1)")
        })
    });
    write(served(false));
    wait_for(
        &s,
        "C losing A's route when A's key left the cache",
        at_c(false),
    );
    wait_for(&s, "B finding A's route Not Valid", || {
        route_is(&s, "b", "10.121.0.0/16", |r| {
            r["validation"]
                .as_str()
                .is_some_and(|v| v.starts_with("not valid"))
                && r["installed"] == false
        })
    });
    write(served(true));
    wait_for(
        &s,
        "C holding A's route again when the key came back",
        at_c(true),
    );
    // A ROA of A's prefix for another AS: ROV Invalid, which B's policy toward A
    // rejects; C loses the route, and has it again when the ROA is gone.
    write(served_roa(true, true));
    wait_for(
        &s,
        "C losing A's route when it turned ROV Invalid",
        at_c(false),
    );
    wait_for(&s, "B showing A's route ROV Invalid, BGPsec Valid", || {
        route_is(&s, "b", "10.121.0.0/16", |r| {
            r["rov"] == "invalid" && r["validation"] == "valid (suite 1)" && r["installed"] == false
        })
    });
    write(served(true));
    wait_for(&s, "C holding A's route again without the ROA", at_c(true));
    let b_status = status(&s, "b").unwrap();
    assert!(sessions_up(&b_status), "{b_status:#}");
    // No session was reset on the way: none has a last error.
    assert!(
        b_status["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["last_error"].is_null()),
        "{b_status:#}"
    );
    assert!(
        b_status["rpki"]["caches"][0]["state"].is_string(),
        "{b_status:#}"
    );
    let summary = common::stdout(&s.ok(&["speaker", "status", &s.p("b.toml")]));
    assert!(
        summary.contains("RPKI view ")
            && summary.contains(&format!("cache 127.0.0.1:{} preference 1", cache.port)),
        "{summary}"
    );
    drop(cache);
}

#[test]
fn a_key_withdrawn_by_stayrtr_withdraws_the_route_lazy() {
    speaker_follows_stayrtr("lazy", 21);
}

#[test]
fn a_key_withdrawn_by_stayrtr_withdraws_the_route_strict() {
    speaker_follows_stayrtr("strict", 22);
}

/// Issue 24 §2: a bad `role`, an unknown key of a `[[rpki.cache]]`, a missing RPKI
/// file and an RPKI file with a bad entry each stop the speaker with exit status 2,
/// naming the file (and the line where TOML or JSON gives one).
#[test]
fn bad_rpki_configurations_are_exit_2_naming_the_file() {
    let s = Scratch::new();
    let head = "local_as = 1\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nstate_file = \"x\"\n";
    s.write(
        "bad-roa.json",
        "{\"roas\": [\n{\"prefix\": \"10.0.0.0/33\", \"maxLength\": 24, \"asn\": 1}\n]}\n",
    );
    let cases = [
        (
            "role.toml",
            format!(
                "{head}[[neighbors]]\naddress = \"127.0.0.9\"\nremote_as = 2\nrole = \"sibling\"\n"
            ),
            vec!["role.toml", "role 'sibling'", "line 8"],
        ),
        (
            "cache.toml",
            format!("{head}[[rpki.cache]]\naddress = \"127.0.0.1\"\nport = 1\nprefer = 1\n"),
            vec!["cache.toml", "unknown field", "line 8"],
        ),
        (
            "files.toml",
            format!("{head}[rpki]\nfiles = [\"missing.json\"]\n"),
            vec!["missing.json"],
        ),
        (
            "roa.toml",
            format!("{head}[rpki]\nfiles = [\"bad-roa.json\"]\n"),
            vec!["bad-roa.json:", "10.0.0.0/33"],
        ),
    ];
    for (name, text, needles) in cases {
        let path = s.write(name, text);
        let o = s.run(&["speaker", "run", &path]);
        assert_eq!(common::code(&o), 2, "{name}: {}", common::text(&o));
        let err = common::stderr(&o);
        for n in needles {
            assert!(err.contains(n), "{name}: {n:?} not in {err}");
        }
    }
}
