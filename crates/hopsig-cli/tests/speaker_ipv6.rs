//! `hopsig speaker` with IPv6 (issue 25 §4): MP-BGP IPv6 unicast sessions (RFC 4760,
//! next hop RFC 2545 §3), BGPsec for AFI 2 (RFC 8205 §2.1–§2.2), the AS_PATH
//! downgrade toward plain IPv6 neighbours (§4.4), sessions over the IPv6 loopback
//! (::1) and IPv6 routes over an IPv4 session. Peers: hopsig speakers, gobgpd and
//! BIRD 2 on ::1 with free ports; each wait is bounded by [`WAIT`], every process is
//! killed when the test ends. gobgpd and BIRD tests skip when the daemon is missing
//! and fail under CI=true.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;

use common::speaker::*;
use common::Scratch;
use serde_json::Value;

const SUITE: &str = "ecdsa-p256-sha256";

/// A neighbour entry: `extra` lines go into its table (`families`, `next_hop6`).
struct Peer<'a> {
    address: &'a str,
    port: u16,
    local_address: &'a str,
    remote_as: u32,
    passive: bool,
    bgpsec: bool,
    extra: &'a str,
}

/// A speaker configuration: AS `asn` (BGP Identifier 192.0.2.ASN%100, an IPv4
/// address whatever the transport), status file NAME.json, listening on `listen`,
/// originating `originate`, `top` lines before the neighbours (`next_hop6`).
fn speaker(
    name: &str,
    asn: u32,
    listen: Option<String>,
    mode: &str,
    originate: &[&str],
    top: &str,
    neighbors: &[Peer<'_>],
) -> String {
    let list: Vec<String> = originate.iter().map(|p| format!("\"{p}\"")).collect();
    let mut t = format!(
        "local_as = {asn}\nrouter_id = \"192.0.2.{last}\"\nmode = \"{mode}\"\nstate_file = \"{name}.json\"\n\
         rpki_keys = \"rpki.json\"\nconnect_retry = 1\nhold_time = 9\noriginate = [{}]\n\
         router_keys = [{{ suite = \"{SUITE}\", file = \"as{asn}-{SUITE}.key\" }}]\n{top}",
        list.join(", "),
        last = asn % 100
    );
    if let Some(l) = listen {
        t += &format!("listen = \"{l}\"\n");
    }
    for n in neighbors {
        t += &format!(
            "[[neighbors]]\naddress = \"{}\"\nport = {}\nlocal_address = \"{}\"\nremote_as = {}\npassive = {}\nbgpsec = {}\n{}",
            n.address, n.port, n.local_address, n.remote_as, n.passive, n.bgpsec, n.extra
        );
    }
    t
}

/// Whether `name`'s Adj-RIB-In has `prefix` as BGPsec `valid (suite 1)` with `path`.
fn valid_route(s: &Scratch, name: &str, prefix: &str, path: &str) -> bool {
    route_is(s, name, prefix, |r| {
        r["bgpsec"] == true && r["validation"] == "valid (suite 1)" && r["as_path"] == path
    })
}

/// The families and IPv6 BGPsec flag of each session of `status`.
fn sessions(status: &Value) -> Vec<(Value, Value)> {
    status["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["families"].clone(), s["bgpsec_ipv6"].clone()))
        .collect()
}

/// Three hopsig speakers over ::1 (RFC 4760 AFI 2 with BGPsec for AFI 2, RFC 8205
/// §2.1): A (lazy) and B (strict) exchange signed IPv6 routes, each valid at the
/// other, and A's IPv4 route crosses the same IPv6 session (`families = ["ipv4",
/// "ipv6"]`); C's key is withheld from the RPKI, so its signed IPv6 route is Not Valid
/// at A (§5.2) and never valid at B. The BGP Identifier stays the IPv4 router_id.
#[test]
fn hopsig_speakers_over_ipv6_exchange_bgpsec_ipv6_routes() {
    let s = Scratch::new();
    keys(&s, SUITE, &[65301, 65302, 65303], &[65301, 65302]);
    let (pa, pc) = (free_port6(), free_port6());
    let both = "families = [\"ipv4\", \"ipv6\"]\n";
    let _a = start(
        &s,
        "a",
        speaker(
            "a",
            65301,
            Some(format!("[::1]:{pa}")),
            "lazy",
            &["2001:db8:301::/48", "10.31.0.0/16"],
            "",
            &[
                Peer {
                    address: "::1",
                    port: 179,
                    local_address: "::1",
                    remote_as: 65302,
                    passive: true,
                    bgpsec: true,
                    extra: both,
                },
                Peer {
                    address: "::1",
                    port: pc,
                    local_address: "::1",
                    remote_as: 65303,
                    passive: false,
                    bgpsec: true,
                    extra: "",
                },
            ],
        ),
    );
    let _b = start(
        &s,
        "b",
        speaker(
            "b",
            65302,
            None,
            "strict",
            &["2001:db8:302::/48"],
            "",
            &[Peer {
                address: "::1",
                port: pa,
                local_address: "::1",
                remote_as: 65301,
                passive: false,
                bgpsec: true,
                extra: both,
            }],
        ),
    );
    let _c = start(
        &s,
        "c",
        speaker(
            "c",
            65303,
            Some(format!("[::1]:{pc}")),
            "lazy",
            &["2001:db8:303::/48"],
            "",
            &[Peer {
                address: "::1",
                port: 179,
                local_address: "::1",
                remote_as: 65301,
                passive: true,
                bgpsec: true,
                extra: "",
            }],
        ),
    );
    wait_for(&s, "A's signed IPv6 route valid at B", || {
        valid_route(&s, "b", "2001:db8:301::/48", "65301")
    });
    wait_for(
        &s,
        "A's IPv4 route over the IPv6 session, valid at B",
        || valid_route(&s, "b", "10.31.0.0/16", "65301"),
    );
    wait_for(&s, "B's signed IPv6 route valid at A", || {
        valid_route(&s, "a", "2001:db8:302::/48", "65302")
    });
    wait_for(
        &s,
        "C's IPv6 route Not Valid at A (its key withheld)",
        || {
            route_is(&s, "a", "2001:db8:303::/48", |r| {
                r["bgpsec"] == true
                    && r["validation"]
                        .as_str()
                        .is_some_and(|v| v.starts_with("not valid"))
                    && r["installed"] == false
            })
        },
    );
    // B validates before use (strict): C's route, if A's lazy forwarding reached B
    // before A found it Not Valid, is never valid there.
    let b = status(&s, "b").unwrap();
    assert!(
        route(&b, "2001:db8:303::/48").is_none_or(|r| r["validation"] != "valid (suite 1)"),
        "{b:#}"
    );
    let a = status(&s, "a").unwrap();
    assert_eq!(a["router_id"], "192.0.2.1");
    let mut negotiated = sessions(&a);
    negotiated.sort_by_key(|(f, _)| f.to_string());
    assert_eq!(
        negotiated,
        [
            (serde_json::json!(["ipv4", "ipv6"]), Value::Bool(true)),
            (serde_json::json!(["ipv6"]), Value::Bool(true)),
        ],
        "{a:#}"
    );
    let summary = common::stdout(&s.ok(&["speaker", "status", &s.p("a.toml")]));
    assert!(summary.contains("of which IPv6: Adj-RIB-In"), "{summary}");
}

/// The hopsig side of the daemon tests: AS65002 at ::1 between the daemon (plain,
/// IPv6 unicast) and hopsig AS65003 (BGPsec for IPv6); returns the speakers.
fn ipv6_downgrade_setup(s: &Scratch, daemon_as: u32, daemon_port: u16) -> [Running; 2] {
    keys(s, SUITE, &[65002, 65003], &[65002, 65003]);
    let p2 = free_port6();
    let two = start(
        s,
        "two",
        speaker(
            "two",
            65002,
            Some(format!("[::1]:{p2}")),
            "lazy",
            &["2001:db8:2::/48"],
            "",
            &[
                Peer {
                    address: "::1",
                    port: daemon_port,
                    local_address: "::1",
                    remote_as: daemon_as,
                    passive: false,
                    bgpsec: false,
                    extra: "",
                },
                Peer {
                    address: "::1",
                    port: 179,
                    local_address: "::1",
                    remote_as: 65003,
                    passive: true,
                    bgpsec: true,
                    extra: "",
                },
            ],
        ),
    );
    let three = start(
        s,
        "three",
        speaker(
            "three",
            65003,
            None,
            "strict",
            &["2001:db8:3::/48"],
            "",
            &[Peer {
                address: "::1",
                port: p2,
                local_address: "::1",
                remote_as: 65002,
                passive: false,
                bgpsec: true,
                extra: "",
            }],
        ),
    );
    [two, three]
}

/// The daemon's IPv6 `prefix` arrived at AS65002 unsigned and went on to AS65003
/// unsigned with AS_PATH "65002 DAEMON_AS"; AS65003's signed IPv6 route is valid at
/// AS65002.
fn daemon_ipv6_route_travels_unsigned(s: &Scratch, prefix: &str, daemon_as: u32) {
    wait_for(s, "the daemon's IPv6 route in hopsig AS65002", || {
        route_is(s, "two", prefix, |r| {
            r["bgpsec"] == false
                && r["validation"] == "unsigned"
                && r["as_path"] == daemon_as.to_string().as_str()
        })
    });
    let path = format!("65002 {daemon_as}");
    wait_for(s, "the daemon's IPv6 route at AS65003, unsigned", || {
        route_is(s, "three", prefix, |r| {
            r["bgpsec"] == false && r["as_path"] == path.as_str() && r["installed"] == true
        })
    });
    wait_for(s, "AS65003's signed IPv6 route at AS65002", || {
        valid_route(s, "two", "2001:db8:3::/48", "65003")
    });
}

/// gobgpd over ::1 with IPv6 unicast only: its route reaches hopsig and goes on to a
/// BGPsec neighbour unsigned; hopsig's own and AS65003's signed IPv6 routes reach
/// gobgpd downgraded to AS_PATH (RFC 8205 §4.4) in MP_REACH_NLRI with next hop ::1,
/// the session's local address (RFC 2545 §3, the default without `next_hop6`).
#[test]
fn gobgpd_ipv6_plain_neighbour_over_ipv6() {
    if !common::have_with(
        "gobgpd",
        "--version",
        "gobgpd_ipv6_plain_neighbour_over_ipv6",
    ) || !common::have_with(
        "gobgp",
        "--version",
        "gobgpd_ipv6_plain_neighbour_over_ipv6",
    ) {
        return;
    }
    let s = Scratch::new();
    let (port, api) = (free_port6(), free_port());
    let conf = include_str!("peers/gobgpd6.toml.template")
        .replace("PORT", &port.to_string())
        .replace("HOPSIG_ADDRESS", "::1")
        .replace("HOPSIG_AS", "65002");
    let _gobgpd = gobgpd_from(&s, "ipv6", conf, api);
    let gobgp = |args: &[&str]| common::speaker::gobgp(api, args);
    let added = gobgp(&[
        "global",
        "rib",
        "-a",
        "ipv6",
        "add",
        "2001:db8:9::/48",
        "origin",
        "igp",
    ]);
    assert!(added.status.success(), "{}", common::text(&added));
    let _speakers = ipv6_downgrade_setup(&s, 65001, port);
    daemon_ipv6_route_travels_unsigned(&s, "2001:db8:9::/48", 65001);
    let expect = [
        ("2001:db8:2::/48", vec![65002]),
        ("2001:db8:3::/48", vec![65002, 65003]),
    ];
    let mut last = Value::Null;
    wait_for(&s, "hopsig's IPv6 routes in gobgpd's adj-in", || {
        let o = gobgp(&["-j", "neighbor", "::1", "adj-in", "-a", "ipv6"]);
        let Ok(v) = serde_json::from_slice::<Value>(&o.stdout) else {
            return false;
        };
        last = v.clone();
        expect.iter().all(|(prefix, path)| {
            v[*prefix][0]["attrs"].as_array().is_some_and(|attrs| {
                attrs
                    .iter()
                    .any(|a| a["type"] == 2 && a["as_paths"][0]["asns"] == serde_json::json!(path))
                    && attrs
                        .iter()
                        .any(|a| a["type"] == 14 && a["nexthop"] == "::1")
                    && !attrs.iter().any(|a| a["type"] == 33)
            })
        })
    });
    assert!(
        last["2001:db8:9::/48"].is_null(),
        "its own route came back: {last}"
    );
}

/// The block of `birdc show route all` output about `prefix`: its line and the
/// indented lines under it.
fn bird_block(out: &str, prefix: &str) -> Option<String> {
    let mut lines = out.lines().skip_while(|l| !l.starts_with(prefix));
    let first = lines.next()?;
    let rest: Vec<&str> = lines
        .take_while(|l| l.starts_with(char::is_whitespace))
        .collect();
    Some(format!("{first}\n{}\n", rest.join("\n")))
}

/// BIRD 2 over ::1 with an IPv6 channel: its route reaches hopsig and goes on to a
/// BGPsec neighbour unsigned; hopsig's own and AS65003's signed IPv6 routes reach
/// BIRD with AS_PATH (RFC 8205 §4.4), no BGPsec_PATH, next hop ::1 (RFC 2545 §3).
#[test]
fn bird_ipv6_plain_neighbour_over_ipv6() {
    if !common::have_with("bird", "--version", "bird_ipv6_plain_neighbour_over_ipv6") {
        return;
    }
    let s = Scratch::new();
    let port = free_port6();
    let (_bird, ctl) = start_bird(
        &s,
        include_str!("peers/bird6.conf.template"),
        port,
        "::1",
        65002,
    );
    let _speakers = ipv6_downgrade_setup(&s, 65004, port);
    daemon_ipv6_route_travels_unsigned(&s, "2001:db8:4::/48", 65004);
    let mut last = String::new();
    wait_for(&s, "hopsig's IPv6 routes in BIRD", || {
        let o = Command::new("birdc")
            .args(["-s", &ctl, "show", "route", "all"])
            .output()
            .unwrap();
        last = String::from_utf8_lossy(&o.stdout).into_owned();
        [
            ("2001:db8:2::/48", "65002"),
            ("2001:db8:3::/48", "65002 65003"),
        ]
        .iter()
        .all(|(prefix, path)| {
            bird_block(&last, prefix).is_some_and(|b| {
                b.contains(&format!("BGP.as_path: {path}\n"))
                    && b.contains("BGP.next_hop: ::1")
                    && !b.contains("BGP.21")
            })
        })
    });
}

/// IPv6 routes over an IPv4 session (RFC 4760: MP_REACH_NLRI AFI 2 whatever the
/// transport), BGPsec for both AFIs, with the configured `next_hop6`; a third
/// speaker with the default families of an IPv4 neighbour (IPv4 only) gets IPv4
/// routes alone (RFC 4760 §8). A neighbour to carry IPv6 over IPv4 without
/// `next_hop6` is a configuration error (exit 2).
#[test]
fn ipv6_routes_over_an_ipv4_session() {
    let s = Scratch::new();
    keys(&s, SUITE, &[65401, 65402, 65403], &[65401, 65402, 65403]);
    let pa = free_port();
    let both = "families = [\"ipv4\", \"ipv6\"]\n";
    let a_text = |top: &str| {
        speaker(
            "a",
            65401,
            Some(format!("127.0.25.1:{pa}")),
            "lazy",
            &["2001:db8:401::/48", "10.41.0.0/16"],
            top,
            &[
                Peer {
                    address: "127.0.25.2",
                    port: 179,
                    local_address: "127.0.25.1",
                    remote_as: 65402,
                    passive: true,
                    bgpsec: true,
                    extra: both,
                },
                Peer {
                    address: "127.0.25.3",
                    port: 179,
                    local_address: "127.0.25.1",
                    remote_as: 65403,
                    passive: true,
                    bgpsec: false,
                    extra: "",
                },
            ],
        )
    };
    let bad = s.write("bad.toml", a_text(""));
    s.exits(2, &["speaker", "run", &bad], "need next_hop6");
    let _a = start(&s, "a", a_text("next_hop6 = \"2001:db8::41\"\n"));
    let _b = start(
        &s,
        "b",
        speaker(
            "b",
            65402,
            None,
            "strict",
            &["2001:db8:402::/48"],
            "next_hop6 = \"2001:db8::42\"\n",
            &[Peer {
                address: "127.0.25.1",
                port: pa,
                local_address: "127.0.25.2",
                remote_as: 65401,
                passive: false,
                bgpsec: true,
                extra: both,
            }],
        ),
    );
    let _c = start(
        &s,
        "c",
        speaker(
            "c",
            65403,
            None,
            "lazy",
            &["10.43.0.0/16"],
            "",
            &[Peer {
                address: "127.0.25.1",
                port: pa,
                local_address: "127.0.25.3",
                remote_as: 65401,
                passive: false,
                bgpsec: false,
                extra: "",
            }],
        ),
    );
    wait_for(&s, "A's signed IPv6 route valid at B", || {
        valid_route(&s, "b", "2001:db8:401::/48", "65401")
    });
    wait_for(&s, "B's signed IPv6 route valid at A", || {
        valid_route(&s, "a", "2001:db8:402::/48", "65402")
    });
    wait_for(&s, "A's IPv4 route at C, and C's at A", || {
        route_is(&s, "c", "10.41.0.0/16", |r| r["as_path"] == "65401")
            && route_is(&s, "a", "10.43.0.0/16", |r| r["as_path"] == "65403")
    });
    let a = status(&s, "a").unwrap();
    let c_session = session_of(&a, "127.0.25.3");
    assert_eq!(c_session["families"], serde_json::json!(["ipv4"]), "{a:#}");
    let b_session = session_of(&a, "127.0.25.2");
    assert_eq!(
        b_session["families"],
        serde_json::json!(["ipv4", "ipv6"]),
        "{a:#}"
    );
    assert_eq!(b_session["bgpsec_ipv6"], true);
    // RFC 4760 §8: nothing IPv6 went to C, though A has two IPv6 routes.
    let to_c: Vec<&Value> = a["adj_rib_out"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["neighbor"] == "127.0.25.3")
        .collect();
    assert!(
        !to_c.is_empty()
            && to_c
                .iter()
                .all(|r| !r["prefix"].as_str().unwrap().contains(':')),
        "{a:#}"
    );
    let c = status(&s, "c").unwrap();
    assert_eq!(c["adj_rib_in_ipv6_count"], 0, "{c:#}");
}

/// A listener on `[::]` (dual stack) sees an IPv4 neighbour's connection from an
/// IPv4-mapped address (::ffff:127.0.25.12); the speaker matches it to the configured
/// IPv4 neighbour and the session comes up. Skipped where the system makes IPv6
/// sockets IPv6-only (net.ipv6.bindv6only = 1).
#[test]
fn a_dual_stack_listener_takes_an_ipv4_neighbour() {
    if std::fs::read_to_string("/proc/sys/net/ipv6/bindv6only").is_ok_and(|v| v.trim() == "1") {
        eprintln!("a_dual_stack_listener_takes_an_ipv4_neighbour: skipped, bindv6only is 1");
        return;
    }
    let s = Scratch::new();
    let port = free_port();
    let config = plain_config(
        65501,
        "[::]",
        port,
        &s.p("a.json"),
        &["10.51.0.0/16".into()],
        &[("127.0.25.12", 65502)],
    );
    let _a = start(&s, "a", config);
    let to = format!("127.0.0.1:{port}");
    wait_for(&s, "the listener", || {
        std::net::TcpStream::connect(&to).is_ok() && status(&s, "a").is_some()
    });
    let mut c = raw_client("127.0.25.12", &to);
    establish(&mut c, 65502, 9);
    wait_for(&s, "the session Established", || {
        status(&s, "a").is_some_and(|v| session_of(&v, "127.0.25.12")["state"] == "Established")
    });
}
