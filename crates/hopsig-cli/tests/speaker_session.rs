//! `hopsig speaker` session features (issue 25 §4) against real peers on loopback:
//! extended messages (RFC 8654) carrying a signed path too long for 4096 octets
//! across two hopsig speakers, route refresh (RFC 2918, enhanced RFC 7313) with
//! gobgpd and BIRD, graceful restart helper mode (RFC 4724) with gobgpd, connection
//! collisions (RFC 4271 §6.8) between two hopsig speakers, with a raw neighbour and
//! with gobgpd. Each test uses free ports and its own 127.0.x.y
//! addresses, waits at most [`WAIT`] for what it checks, and kills what it started.
//! gobgpd and BIRD tests skip when the daemon is missing and fail under CI=true.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, TcpStream};
use std::process::Command;

use common::speaker::*;
use common::Scratch;
use hopsig_bgp::packet::route_refresh::{empty_capability, EXTENDED_MESSAGE_CAPABILITY};
use hopsig_bgp::packet::{
    Afi, AsWidth, BgpsecCapability, Capability, Direction, Message, MultiprotocolCapability,
    NextHop, Open, Prefix, MAX_EXTENDED_MESSAGE_LEN,
};
use hopsig_bgp::{Chain, Hop, SignedNlri, Signer};
use serde_json::Value;

const RSA: &str = "rsa2048-pkcs1-sha256";
/// The signers of the long path: 16 hops of n × RSA (0xF8) exceed 4096 octets.
const LONG: std::ops::RangeInclusive<u32> = 65_200..=65_215;

/// The UPDATE AS65215 sends AS65300 for 10.200.0.0/16, originated by AS65200 and
/// signed by each AS of [`LONG`] in turn with its key in `s`; encoded as on a session
/// with extended messages.
fn long_signed_update(s: &Scratch) -> Vec<u8> {
    let suite = hopsig_bgp::suite::by_name(RSA).unwrap();
    let signer = |asn: u32| {
        let text = std::fs::read(s.path(&format!("as{asn}-{RSA}.key"))).unwrap();
        let key = suite.signing_key_from_file(&text).unwrap();
        Signer::new(asn).with_key(suite, key).unwrap()
    };
    let prefix = Prefix::new(IpAddr::V4(Ipv4Addr::new(10, 200, 0, 0)), 16).unwrap();
    let nlri = SignedNlri::unicast(prefix);
    let asns: Vec<u32> = LONG.collect();
    let mut chain = Chain::originate(&signer(asns[0]), nlri, &Hop::to(asns[1])).unwrap();
    for (i, &asn) in asns.iter().enumerate().skip(1) {
        let to = asns.get(i + 1).copied().unwrap_or(65_300);
        chain.forward(&signer(asn), &Hop::to(to)).unwrap();
    }
    let next_hop = NextHop::V4(Ipv4Addr::new(127, 0, 8, 2));
    let update = bgpsec_update(chain.path().unwrap(), prefix, next_hop);
    Message::Update(update)
        .encoding_max(AsWidth::Four, MAX_EXTENDED_MESSAGE_LEN)
        .unwrap()
}

/// A BGPsec peer by hand, from `from` to `to` as AS `asn`, announcing extended
/// messages if `extended`; Established (Hold Time 0: no KEEPALIVEs needed).
fn raw_bgpsec_peer(from: &str, to: &str, asn: u32, extended: bool) -> TcpStream {
    let mut caps = vec![Capability::Multiprotocol(MultiprotocolCapability {
        afi: 1,
        reserved: 0,
        safi: 1,
    })];
    for d in [Direction::Send, Direction::Receive] {
        caps.push(Capability::Bgpsec(BgpsecCapability::new(d, Afi::Ipv4)));
    }
    if extended {
        caps.push(empty_capability(EXTENDED_MESSAGE_CAPABILITY));
    }
    let mut c = raw_client(from, to);
    assert_eq!(read_message(&mut c)[18], 1, "the speaker's OPEN");
    let open = Open::new(asn, 0, Ipv4Addr::new(192, 0, 2, 215), caps);
    c.write_all(&Message::Open(open).encoding(AsWidth::Four).unwrap())
        .unwrap();
    assert_eq!(read_message(&mut c)[18], 4, "KEEPALIVE after a good OPEN");
    c.write_all(&KEEPALIVE).unwrap();
    c
}

/// RFC 8654 with RFC 8205 §4.1: a 16-hop n × RSA path (over 4096 octets) from a raw
/// peer that announced extended messages is taken by hopsig AS65300, validated, and
/// forwarded signed (17 hops) to hopsig AS65301, with which it negotiated extended
/// messages, where it validates too; hopsig AS65302, configured without extended
/// messages, is not sent the route at all (RFC 4271 §9.2: a route that does not fit
/// is not advertised; an unsigned copy would be a downgrade that RFC 8205 §4.1 does
/// not allow for a path that arrived signed to a BGPsec neighbour), but gets
/// AS65300's own route. A raw peer without the capability sending the same UPDATE
/// gets Bad Message Length (RFC 8654 §4).
#[test]
fn a_signed_path_over_4096_octets_crosses_speakers_with_extended_messages() {
    let s = Scratch::new();
    let mut asns: Vec<u32> = LONG.collect();
    asns.extend([65_300, 65_301, 65_302]);
    keys(&s, RSA, &asns, &asns);
    let bytes = long_signed_update(&s);
    assert!(bytes.len() > 4096, "{} octets", bytes.len());
    let port = free_port();
    let nb = |address, remote_as| Nb {
        address,
        port: 179,
        remote_as,
        passive: true,
        bgpsec: true,
    };
    let two = config(
        "two",
        65_300,
        "127.0.8.1",
        Some(port),
        "strict",
        RSA,
        "10.30.0.0/16",
        &[
            nb("127.0.8.2", 65_215),
            nb("127.0.8.3", 65_301),
            nb("127.0.8.4", 65_302),
            nb("127.0.8.5", 65_215),
        ],
    );
    let _two = start(&s, "two", two);
    let active = |address| Nb {
        address,
        port,
        remote_as: 65_300,
        passive: false,
        bgpsec: true,
    };
    let three = config(
        "three",
        65_301,
        "127.0.8.3",
        None,
        "strict",
        RSA,
        "10.31.0.0/16",
        &[active("127.0.8.1")],
    );
    let _three = start(&s, "three", three);
    let four = config(
        "four",
        65_302,
        "127.0.8.4",
        None,
        "strict",
        RSA,
        "10.32.0.0/16",
        &[active("127.0.8.1")],
    ) + "extended_messages = false\n";
    let _four = start(&s, "four", four);
    let to = format!("127.0.8.1:{port}");
    let mut peer = None;
    wait_for(&s, "the extended-message peer's session", || {
        peer = std::panic::catch_unwind(|| raw_bgpsec_peer("127.0.8.2", &to, 65_215, true)).ok();
        peer.is_some()
    });
    let mut peer = peer.unwrap();
    peer.write_all(&bytes).unwrap();
    wait_for(&s, "the long path valid at AS65300", || {
        route_is(&s, "two", "10.200.0.0/16", |r| {
            r["bgpsec"] == true
                && r["validation"]
                    .as_str()
                    .is_some_and(|v| v.starts_with("valid"))
        })
    });
    let path: Vec<String> = LONG.rev().map(|a| a.to_string()).collect();
    let at_three = format!("65300 {}", path.join(" "));
    wait_for(&s, "the 17-hop path valid at AS65301", || {
        route_is(&s, "three", "10.200.0.0/16", |r| {
            r["bgpsec"] == true
                && r["as_path"] == at_three.as_str()
                && r["validation"]
                    .as_str()
                    .is_some_and(|v| v.starts_with("valid"))
                && r["installed"] == true
        })
    });
    wait_for(&s, "AS65300's own route at AS65302", || {
        route_is(&s, "four", "10.30.0.0/16", |r| r["bgpsec"] == true)
    });
    let four = status(&s, "four").unwrap();
    assert!(route(&four, "10.200.0.0/16").is_none(), "{four}");
    let log = std::fs::read_to_string(s.path("two.log")).unwrap();
    assert!(
        log.lines()
            .any(|l| l.contains("10.200.0.0/16 not sent to 127.0.8.4")
                && l.contains("over BGP's maximum message size")),
        "{log}"
    );
    // RFC 8654 §4: over 4096 octets without the capability is Bad Message Length.
    let mut plain = raw_bgpsec_peer("127.0.8.5", &to, 65_215, false);
    plain.write_all(&bytes).unwrap();
    let note = loop {
        let m = read_message(&mut plain);
        if m[18] == 3 {
            break m;
        }
    };
    assert_eq!(notification(&note), (1, 2));
    assert_eq!(&note[21..23], &(bytes.len() as u16).to_be_bytes());
}

/// gobgpd with the configuration `conf` (its log gobgpd-NAME.log) and a runner of
/// `gobgp` on its API port, once the API answers.
fn start_gobgpd(
    s: &Scratch,
    name: &str,
    conf: String,
) -> (Running, impl Fn(&[&str]) -> std::process::Output) {
    let api = free_port();
    let gobgpd = gobgpd_from(s, name, conf, api);
    let gobgp = move |args: &[&str]| common::speaker::gobgp(api, args);
    (gobgpd, gobgp)
}

/// Adds `prefixes` to gobgpd's global RIB.
fn gobgp_originate(gobgp: &impl Fn(&[&str]) -> std::process::Output, prefixes: &[&str]) {
    for p in prefixes {
        let added = gobgp(&["global", "rib", "add", p, "origin", "igp"]);
        assert!(added.status.success(), "{}", common::text(&added));
    }
}

/// Starts gobgpd (AS65001, passive toward `hopsig_address`) and hopsig AS65002
/// connecting to it; gobgpd originates 10.9.0.0/16, hopsig 10.2.0.0/16. Returns the
/// processes and a `gobgp` runner.
fn gobgpd_and_hopsig(
    s: &Scratch,
    hopsig_address: &str,
) -> (Running, Running, impl Fn(&[&str]) -> std::process::Output) {
    let port = free_port();
    let conf = include_str!("peers/gobgpd.toml.template")
        .replace("PORT", &port.to_string())
        .replace("HOPSIG_ADDRESS", hopsig_address)
        .replace("HOPSIG_AS", "65002");
    let (gobgpd, gobgp) = start_gobgpd(s, "rr", conf);
    gobgp_originate(&gobgp, &["10.9.0.0/16"]);
    let hopsig = start(s, "h", daemon_peer_config(hopsig_address, port, 65_001));
    (gobgpd, hopsig, gobgp)
}

/// hopsig AS65002 at `address` connecting to a plain daemon of AS `daemon_as` on
/// 127.0.0.1:`port`, originating 10.2.0.0/16.
fn daemon_peer_config(address: &str, port: u16, daemon_as: u32) -> String {
    format!(
        "local_as = 65002\nrouter_id = \"192.0.2.2\"\nmode = \"lazy\"\nstate_file = \"h.json\"\n\
         connect_retry = 1\nhold_time = 9\noriginate = [\"10.2.0.0/16\"]\n\
         [[neighbors]]\naddress = \"127.0.0.1\"\nport = {port}\nlocal_address = \"{address}\"\nremote_as = {daemon_as}\n"
    )
}

/// The count of lines of `name`.log holding `needle`.
fn log_lines(s: &Scratch, name: &str, needle: &str) -> usize {
    std::fs::read_to_string(s.path(&format!("{name}.log")))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(needle))
        .count()
}

/// The `updates_in` of hopsig's session with the daemon at 127.0.0.1.
fn updates_in(s: &Scratch) -> u64 {
    status(s, "h")
        .map(|v| session_of(&v, "127.0.0.1")["updates_in"].as_u64().unwrap())
        .unwrap_or(0)
}

/// RFC 2918 with gobgpd: `hopsig speaker refresh` sends gobgpd a ROUTE-REFRESH, which
/// gobgpd answers with its route again (one more UPDATE in). The other way is
/// `enhanced_route_refresh_both_ways_with_bird`'s: gobgpd 3.x's `neighbor ADDRESS
/// softresetin` sends no ROUTE-REFRESH (it keeps every received route and applies its
/// import policy again; seen in its debug log), so gobgp cannot ask hopsig for one.
#[test]
fn route_refresh_with_gobgpd() {
    if !common::have_with("gobgpd", "--version", "route_refresh_with_gobgpd")
        || !common::have_with("gobgp", "--version", "route_refresh_with_gobgpd")
    {
        return;
    }
    let s = Scratch::new();
    let (_gobgpd, _h, gobgp) = gobgpd_and_hopsig(&s, "127.0.9.2");
    wait_for(&s, "gobgpd's route at hopsig", || {
        route_is(&s, "h", "10.9.0.0/16", |r| r["installed"] == true)
    });
    wait_for(&s, "hopsig's route in gobgpd", || {
        let o = gobgp(&["-j", "neighbor", "127.0.9.2", "adj-in"]);
        serde_json::from_slice::<Value>(&o.stdout).is_ok_and(|v| !v["10.2.0.0/16"].is_null())
    });
    // hopsig asks (RFC 2918 §3); gobgpd sends its route again (§4).
    let before = updates_in(&s);
    assert!(before >= 1);
    let ok = s.run(&["speaker", "refresh", &s.p("h.toml"), "127.0.0.1"]);
    assert!(ok.status.success(), "{}", common::text(&ok));
    wait_for(
        &s,
        "gobgpd's route again after hopsig's ROUTE-REFRESH",
        || updates_in(&s) > before,
    );
    assert_eq!(log_lines(&s, "h", "ROUTE-REFRESH sent to 127.0.0.1"), 1);
    assert!(route_is(&s, "h", "10.9.0.0/16", |r| r["installed"] == true));
    // A neighbour not in the configuration is refused.
    let bad = s.run(&["speaker", "refresh", &s.p("h.toml"), "127.0.0.9"]);
    assert!(!bad.status.success());
}

/// RFC 7313 both ways with BIRD (it announces enhanced route refresh): `birdc reload
/// in` has hopsig answer with BoRR, its routes, EoRR; `hopsig speaker refresh` has
/// BIRD answer likewise, and hopsig, which marked BIRD's routes stale at the BoRR,
/// keeps the one BIRD sent again at the EoRR.
#[test]
fn enhanced_route_refresh_both_ways_with_bird() {
    if !common::have_with(
        "bird",
        "--version",
        "enhanced_route_refresh_both_ways_with_bird",
    ) {
        return;
    }
    let s = Scratch::new();
    let port = free_port();
    let (_bird, ctl) = start_bird(
        &s,
        include_str!("peers/bird.conf.template"),
        port,
        "127.0.10.2",
        65_002,
    );
    let _h = start(&s, "h", daemon_peer_config("127.0.10.2", port, 65_004));
    wait_for(&s, "BIRD's route at hopsig", || {
        route_is(&s, "h", "10.4.0.0/16", |r| r["installed"] == true)
    });
    let birdc = |args: &[&str]| {
        Command::new("birdc")
            .args(["-s", &ctl])
            .args(args)
            .output()
            .unwrap()
    };
    wait_for(&s, "hopsig's route in BIRD", || {
        let o = birdc(&["show", "route", "10.2.0.0/16"]);
        String::from_utf8_lossy(&o.stdout).contains("10.2.0.0/16")
    });
    let reload = birdc(&["reload", "in", "peer1"]);
    assert!(reload.status.success(), "{}", common::text(&reload));
    wait_for(
        &s,
        "hopsig's enhanced answer to BIRD's ROUTE-REFRESH",
        || {
            log_lines(
                &s,
                "h",
                "ROUTE-REFRESH from 127.0.0.1: 1 routes advertised again between BoRR and EoRR",
            ) == 1
        },
    );
    let ok = s.run(&["speaker", "refresh", &s.p("h.toml"), "127.0.0.1"]);
    assert!(ok.status.success(), "{}", common::text(&ok));
    wait_for(&s, "BIRD's EoRR at hopsig", || {
        log_lines(
            &s,
            "h",
            "enhanced route refresh from 127.0.0.1 done: 0 stale routes deleted",
        ) == 1
    });
    assert!(route_is(&s, "h", "10.4.0.0/16", |r| r["installed"] == true));
    let o = birdc(&["show", "route", "10.2.0.0/16"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("10.2.0.0/16"));
}

/// gobgpd as a graceful-restart speaker (RFC 4724) toward hopsig at HOPSIG_ADDRESS on
/// PORT, its session administratively down at start if ADMIN_DOWN.
const GOBGPD_GR: &str = r#"
[global.config]
  as = 65001
  router-id = "192.0.2.1"
  port = PORT
  local-address-list = ["127.0.0.1"]

[[neighbors]]
  [neighbors.config]
    neighbor-address = "HOPSIG_ADDRESS"
    peer-as = 65002
    admin-down = ADMIN_DOWN
  [neighbors.transport.config]
    passive-mode = true
    local-address = "127.0.0.1"
  [neighbors.graceful-restart.config]
    enabled = true
    restart-time = 120
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-unicast"
    [neighbors.afi-safis.mp-graceful-restart.config]
      enabled = true
"#;

/// RFC 4724 helper mode with gobgpd: gobgpd (graceful restart, Restart Time 120 s,
/// IPv4 unicast) is killed; hopsig keeps its two routes, stale, while the session is
/// down; a new gobgpd announces one of them and its End-of-RIB, and hopsig deletes
/// the other one then, not at the Restart Time.
#[test]
fn graceful_restart_helper_with_gobgpd() {
    if !common::have_with("gobgpd", "--version", "graceful_restart_helper_with_gobgpd")
        || !common::have_with("gobgp", "--version", "graceful_restart_helper_with_gobgpd")
    {
        return;
    }
    let s = Scratch::new();
    let port = free_port();
    let conf = |admin_down: bool| {
        GOBGPD_GR
            .replace("PORT", &port.to_string())
            .replace("HOPSIG_ADDRESS", "127.0.11.2")
            .replace("ADMIN_DOWN", &admin_down.to_string())
    };
    let (first, gobgp) = start_gobgpd(&s, "first", conf(false));
    gobgp_originate(&gobgp, &["10.9.0.0/16", "10.8.0.0/16"]);
    let _h = start(
        &s,
        "h",
        daemon_peer_config("127.0.11.2", port, 65_001) + "graceful_restart = 120\n",
    );
    wait_for(&s, "gobgpd's two routes at hopsig", || {
        ["10.9.0.0/16", "10.8.0.0/16"]
            .iter()
            .all(|p| route_is(&s, "h", p, |r| r["installed"] == true))
    });
    drop(first);
    wait_for(&s, "the session down", || {
        status(&s, "h").is_some_and(|v| session_of(&v, "127.0.0.1")["state"] != "Established")
    });
    // §4.2: the routes stay while the neighbour restarts, also while gobgpd's
    // second run refuses sessions (administratively down: it resets hopsig's
    // connections).
    for p in ["10.9.0.0/16", "10.8.0.0/16"] {
        assert!(route_is(&s, "h", p, |r| r["installed"] == true), "{p}");
    }
    assert_eq!(
        log_lines(
            &s,
            "h",
            "restarting (RFC 4724): 2 routes kept as stale for 120 s"
        ),
        1
    );
    let (_second, gobgp) = start_gobgpd(&s, "second", conf(true));
    gobgp_originate(&gobgp, &["10.9.0.0/16"]);
    wait_for(&s, "a connection reset by gobgpd while down", || {
        log_lines(&s, "h", "session closed: read: Connection reset by peer") >= 1
    });
    for p in ["10.9.0.0/16", "10.8.0.0/16"] {
        assert!(route_is(&s, "h", p, |r| r["installed"] == true), "{p}");
    }
    let enabled = gobgp(&["neighbor", "127.0.11.2", "enable"]);
    assert!(enabled.status.success(), "{}", common::text(&enabled));
    wait_for(&s, "gobgpd's End-of-RIB at hopsig", || {
        log_lines(&s, "h", "End-of-RIB from 127.0.0.1: 1 stale routes deleted") == 1
    });
    wait_for(&s, "10.8.0.0/16 gone, 10.9.0.0/16 kept", || {
        status(&s, "h").is_some_and(|v| {
            route(&v, "10.8.0.0/16").is_none()
                && route(&v, "10.9.0.0/16").is_some_and(|r| r["installed"] == true)
        })
    });
    // Not by the Restart Time (120 s): by the End-of-RIB.
    assert_eq!(log_lines(&s, "h", "restart timer expired"), 0);
}

// Connection collision detection (RFC 4271 §6.8).

/// The (local port, remote port) of each ESTABLISHED IPv4 TCP socket from `local` to
/// `remote` (/proc/net/tcp: addresses as little-endian hex, state 01).
fn established_sockets(local: &str, remote: &str) -> Vec<(u16, u16)> {
    let text = std::fs::read_to_string("/proc/net/tcp").unwrap();
    let endpoint = |field: &str| {
        let (ip, port) = field.split_once(':').unwrap();
        let ip = Ipv4Addr::from(u32::from_str_radix(ip, 16).unwrap().to_le_bytes());
        (ip.to_string(), u16::from_str_radix(port, 16).unwrap())
    };
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let (la, lp) = endpoint(f[1]);
            let (ra, rp) = endpoint(f[2]);
            (f[3] == "01" && la == local && ra == remote).then_some((lp, rp))
        })
        .collect()
}

/// A plain hopsig speaker AS`asn` with BGP Identifier `router_id`, listening on
/// `address:port`, active (not passive) toward AS`peer_as` at `peer:peer_port`,
/// originating `originate`.
#[allow(clippy::too_many_arguments)]
fn active_config(
    name: &str,
    asn: u32,
    router_id: &str,
    address: &str,
    port: u16,
    peer: &str,
    peer_port: u16,
    peer_as: u32,
    originate: &str,
) -> String {
    format!(
        "local_as = {asn}\nrouter_id = \"{router_id}\"\nmode = \"lazy\"\nstate_file = \"{name}.json\"\n\
         connect_retry = 1\nhold_time = 9\nlisten = \"{address}:{port}\"\noriginate = [\"{originate}\"]\n\
         [[neighbors]]\naddress = \"{peer}\"\nport = {peer_port}\nlocal_address = \"{address}\"\n\
         remote_as = {peer_as}\npassive = false\n"
    )
}

/// The state of the session with `address` in speaker NAME's status.
fn state_of(s: &Scratch, name: &str, address: &str) -> String {
    status(s, name)
        .map(|v| {
            session_of(&v, address)["state"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .unwrap_or_default()
}

/// RFC 4271 §6.8 between two hopsig speakers, each active toward the other (both
/// connect and both accept): each ends with exactly one Established session over
/// one TCP connection, in both orders of the BGP Identifiers, three times each.
/// Where a collision was resolved by the Identifiers, the connection kept is the
/// one the speaker with the higher Identifier opened. (Before §6.8 each refused the
/// other's connection and neither session came up.)
#[test]
fn two_active_hopsig_speakers_keep_one_connection() {
    let mut by_identifier = 0;
    for round in 0..3u8 {
        for (id_a, id_b) in [("192.0.2.1", "192.0.2.200"), ("192.0.2.200", "192.0.2.1")] {
            let s = Scratch::new();
            let (a, b) = (
                format!("127.0.12.{}", 1 + 2 * round),
                format!("127.0.12.{}", 2 + 2 * round),
            );
            let (pa, pb) = (free_port(), free_port());
            let ca = active_config("a", 65_001, id_a, &a, pa, &b, pb, 65_002, "10.1.0.0/16");
            let cb = active_config("b", 65_002, id_b, &b, pb, &a, pa, 65_001, "10.2.0.0/16");
            let _sa = start(&s, "a", ca);
            let _sb = start(&s, "b", cb);
            wait_for(&s, "both sessions Established, routes exchanged", || {
                route_is(&s, "a", "10.2.0.0/16", |r| r["installed"] == true)
                    && route_is(&s, "b", "10.1.0.0/16", |r| r["installed"] == true)
            });
            // Longer than ConnectRetry (1 s) and the Hold Time of OpenSent-free
            // sessions (9 s / 3): a losing connection would have been retried.
            std::thread::sleep(std::time::Duration::from_secs(4));
            assert_eq!(state_of(&s, "a", &b), "Established");
            assert_eq!(state_of(&s, "b", &a), "Established");
            let from_a = established_sockets(&a, &b);
            let from_b = established_sockets(&b, &a);
            let logs = format!(
                "{}\n{}",
                std::fs::read_to_string(s.path("a.log")).unwrap(),
                std::fs::read_to_string(s.path("b.log")).unwrap()
            );
            assert_eq!(from_a.len(), 1, "{from_a:?}\n{logs}");
            assert_eq!(from_b.len(), 1, "{from_b:?}\n{logs}");
            // A decision by the Identifiers, on a session that came up once (not
            // after a connection both sides closed, §6.8's race with Established).
            if logs.contains("BGP Identifiers")
                && established_lines(&s, "a") == 1
                && established_lines(&s, "b") == 1
            {
                by_identifier += 1;
                // A opened it if its remote port is B's listening port.
                let a_opened = from_a[0].1 == pb;
                assert_eq!(a_opened, id_a == "192.0.2.200", "{from_a:?} {pb}\n{logs}");
            }
        }
    }
    eprintln!("collisions resolved by the BGP Identifiers: {by_identifier} of 6");
}

/// The count of lines of NAME.log saying a session became Established (the
/// session's connection or a second one).
fn established_lines(s: &Scratch, name: &str) -> usize {
    std::fs::read_to_string(s.path(&format!("{name}.log")))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.ends_with(": Established"))
        .count()
}

/// An OPEN from AS`asn` with BGP Identifier `id`, no capabilities.
fn open_with_id(asn: u32, id: Ipv4Addr) -> Vec<u8> {
    let open = Open::new(asn, 9, id, vec![]);
    Message::Open(open).encoding(AsWidth::Four).unwrap()
}

/// RFC 4271 §6.8 steps 1–3 message by message, with a raw neighbour that both
/// accepts hopsig's connection and connects to hopsig: both connections reach
/// OpenSent at hopsig; hopsig's connection gets the OPEN first (OpenConfirm), then
/// the neighbour's, on which hopsig decides: it closes the connection it opened when
/// its Identifier (192.0.2.1) is below the neighbour's (192.0.2.42), else the
/// neighbour's (hopsig 192.0.2.200) before answering its OPEN, with NOTIFICATION
/// Cease / Connection Collision Resolution (6, 7, RFC 4486 §4); the other
/// connection becomes Established. A
/// third connection while Established is refused with the same NOTIFICATION (§6.8,
/// last paragraph: the Established one wins).
#[test]
fn collision_with_a_raw_neighbour_follows_the_identifiers() {
    for (hopsig_id, hopsig_lower, last) in [("192.0.2.1", true, 1u8), ("192.0.2.200", false, 3)] {
        let s = Scratch::new();
        let (h, peer) = (format!("127.0.14.{last}"), format!("127.0.14.{}", last + 1));
        let peer_listener = std::net::TcpListener::bind(format!("{peer}:0")).unwrap();
        let peer_port = peer_listener.local_addr().unwrap().port();
        let hp = free_port();
        let _h = start(
            &s,
            "h",
            active_config(
                "h",
                65_002,
                hopsig_id,
                &h,
                hp,
                &peer,
                peer_port,
                65_001,
                "10.2.0.0/16",
            ),
        );
        // Connection 1: hopsig's.
        let (mut ours, _) = peer_listener.accept().unwrap();
        ours.set_read_timeout(Some(std::time::Duration::from_secs(20)))
            .unwrap();
        assert_eq!(read_message(&mut ours)[18], 1, "hopsig's OPEN");
        // Connection 2: the neighbour's, once hopsig listens.
        let to = format!("{h}:{hp}");
        wait_for(&s, "hopsig listening", || {
            std::fs::read_to_string(s.path("h.log"))
                .unwrap_or_default()
                .contains(" listening on ")
        });
        let mut theirs = raw_client(&peer, &to);
        assert_eq!(
            read_message(&mut theirs)[18],
            1,
            "hopsig's OPEN, second connection"
        );
        let id = Ipv4Addr::new(192, 0, 2, 42);
        ours.write_all(&open_with_id(65_001, id)).unwrap();
        assert_eq!(read_message(&mut ours)[18], 4, "KEEPALIVE: OpenConfirm");
        theirs.write_all(&open_with_id(65_001, id)).unwrap();
        let winner = if hopsig_lower {
            // The neighbour's connection goes on (KEEPALIVE); hopsig's closes.
            assert_eq!(read_message(&mut theirs)[18], 4, "KEEPALIVE: OpenConfirm");
            assert_eq!(
                notification(&read_message(&mut ours)),
                (6, 7),
                "{hopsig_id}"
            );
            &mut theirs
        } else {
            // The OPEN on the neighbour's connection is answered with Cease 7.
            assert_eq!(
                notification(&read_message(&mut theirs)),
                (6, 7),
                "{hopsig_id}"
            );
            &mut ours
        };
        winner.write_all(&KEEPALIVE).unwrap();
        wait_for(&s, "Established on the winner", || {
            state_of(&s, "h", &peer) == "Established"
        });
        // The winner carries the session: hopsig's route comes on it.
        loop {
            let m = read_message(winner);
            if m[18] == 2 {
                break;
            }
            assert_eq!(m[18], 4, "KEEPALIVE or UPDATE on the winner");
        }
        // Established wins: a new connection is refused with Cease 7.
        let mut third = raw_client(&peer, &to);
        assert_eq!(notification(&read_message(&mut third)), (6, 7));
        std::thread::sleep(std::time::Duration::from_millis(500));
        assert_eq!(state_of(&s, "h", &peer), "Established");
        let log = std::fs::read_to_string(s.path("h.log")).unwrap();
        assert!(
            log.contains("connection collision (RFC 4271 §6.8): BGP Identifiers"),
            "{log}"
        );
        assert!(log.contains("connection refused in Established"), "{log}");
    }
}

/// A passive neighbour connecting twice (both connections the neighbour's): the OPEN
/// on the newer, while the older is in OpenConfirm, is answered with Cease 7; the
/// older goes on to Established.
#[test]
fn a_passive_neighbours_second_connection_closes_with_cease_7() {
    let s = Scratch::new();
    let port = free_port();
    let _h = start(
        &s,
        "h",
        plain_config(
            65_002,
            "127.0.15.1",
            port,
            "h.json",
            &["10.2.0.0/16".into()],
            &[("127.0.15.2", 65_001)],
        ),
    );
    let to = format!("127.0.15.1:{port}");
    wait_for(&s, "hopsig listening", || {
        std::fs::read_to_string(s.path("h.log"))
            .unwrap_or_default()
            .contains(" listening on ")
    });
    let mut first = raw_client("127.0.15.2", &to);
    assert_eq!(read_message(&mut first)[18], 1);
    let mut second = raw_client("127.0.15.2", &to);
    assert_eq!(read_message(&mut second)[18], 1);
    first.write_all(&open_message(65_001, 9)).unwrap();
    assert_eq!(read_message(&mut first)[18], 4);
    second.write_all(&open_message(65_001, 9)).unwrap();
    assert_eq!(notification(&read_message(&mut second)), (6, 7));
    first.write_all(&KEEPALIVE).unwrap();
    wait_for(&s, "Established on the first", || {
        state_of(&s, "h", "127.0.15.2") == "Established"
    });
}

/// gobgpd, active toward hopsig (and passive-mode off), and hopsig, active toward
/// gobgpd: whoever's connection wins (gobgpd applies §6.8 too), each ends with one
/// Established session over one TCP connection, routes both ways.
#[test]
fn gobgpd_and_hopsig_both_active_keep_one_session() {
    if !common::have_with(
        "gobgpd",
        "--version",
        "gobgpd_and_hopsig_both_active_keep_one_session",
    ) || !common::have_with(
        "gobgp",
        "--version",
        "gobgpd_and_hopsig_both_active_keep_one_session",
    ) {
        return;
    }
    for (round, hopsig_id) in ["192.0.2.2", "192.0.2.200"].into_iter().enumerate() {
        let s = Scratch::new();
        let (port, hp) = (free_port(), free_port());
        let h = format!("127.0.16.{}", round + 2);
        let conf = GOBGPD_ACTIVE
            .replace("PORT", &port.to_string())
            .replace("HOPSIG_ADDRESS", &h)
            .replace("HOPSIG_LISTEN", &hp.to_string());
        let (_gobgpd, gobgp) = start_gobgpd(&s, "active", conf);
        gobgp_originate(&gobgp, &["10.9.0.0/16"]);
        let _h = start(
            &s,
            "h",
            active_config(
                "h",
                65_002,
                hopsig_id,
                &h,
                hp,
                "127.0.0.1",
                port,
                65_001,
                "10.2.0.0/16",
            ),
        );
        wait_for(&s, "gobgpd's route at hopsig", || {
            route_is(&s, "h", "10.9.0.0/16", |r| r["installed"] == true)
        });
        wait_for(&s, "hopsig's route in gobgpd", || {
            let o = gobgp(&["-j", "neighbor", &h, "adj-in"]);
            serde_json::from_slice::<Value>(&o.stdout).is_ok_and(|v| !v["10.2.0.0/16"].is_null())
        });
        std::thread::sleep(std::time::Duration::from_secs(4));
        assert_eq!(state_of(&s, "h", "127.0.0.1"), "Established");
        let sockets = established_sockets(&h, "127.0.0.1");
        let log = std::fs::read_to_string(s.path("h.log")).unwrap();
        assert_eq!(sockets.len(), 1, "{sockets:?}\n{log}");
        assert!(established_lines(&s, "h") >= 1, "{log}");
    }
}

/// gobgpd AS65001 at 127.0.0.1:PORT, active toward hopsig (HOPSIG_ADDRESS, port
/// HOPSIG_LISTEN), retrying every second.
const GOBGPD_ACTIVE: &str = r#"
[global.config]
  as = 65001
  router-id = "192.0.2.100"
  port = PORT
  local-address-list = ["127.0.0.1"]

[[neighbors]]
  [neighbors.config]
    neighbor-address = "HOPSIG_ADDRESS"
    peer-as = 65002
  [neighbors.timers.config]
    connect-retry = 1
    hold-time = 9
    keepalive-interval = 3
  [neighbors.transport.config]
    passive-mode = false
    local-address = "127.0.0.1"
    remote-port = HOPSIG_LISTEN
"#;
