//! hopsig and NIST BGP-SRx 6.3.3 speaking BGPsec (suite 1), both ways, on loopback:
//!
//! 1. `bgpsecio` (BGP-SRx's traffic generator, signing with its demo key vault) →
//!    `hopsig speaker`, strict and lazy: thousands of routes of 1–6 hops with prepends
//!    (pCount > 1) and 4-octet ASes; a key withheld from hopsig; tampered UPDATEs that
//!    bgpsecio replays from a binary file. The speaker's Valid / Not Valid counts are
//!    the expected ones, exactly.
//! 2. `hopsig speaker` → quagga-srx's `bgpd` validating through `srx_server`, whose
//!    router keys come over RTR from `hopsig rtr serve`: routes hopsig originates and
//!    forwards (from a second hopsig speaker and from bgpsecio) are BGPsec-valid at
//!    bgpd, a route through an AS whose key the cache withholds is invalid, and bgpd's
//!    own signed route is valid in hopsig.
//! 3. srx-crypto-api (bgpsecio's `CAPI` mode) validates `hopsig bgpsec sign-mrt`
//!    output, IPv4 and IPv6; a tampered copy gives exactly the tampered ones invalid.
//! 4. `hopsig bgpsec feed` → quagga-srx's `bgpd`: a signed RIB slice with bad
//!    signatures, a key withheld from srx_server; bgpd's path validation of every fed
//!    route is the one feed's report and the slice predict.
//!
//! srx_server 6.3.3 crashes on an UPDATE with two Signature_Blocks (RFC 8205 §3 allows
//! two), so every hopsig speaker here signs with suite 1 only. The BGP-SRx programs
//! come from `hopsig_testkit::bgpsrx` (built by `tools/bgp-srx.sh`); under `CI` a
//! missing build fails. docs/guide/bgp-srx.md runs the same by hand.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::speaker::*;
use common::Scratch;
use hopsig_testkit::bgpsrx::bgpsecio::{self, BgpsecIo, Record};
use hopsig_testkit::bgpsrx::{self, bgpd, vault, SrxServer};
use hopsig_testkit::KillOnDrop;
use serde_json::Value;

const BGPSECIO_TEMPLATE: &str = include_str!("peers/bgp-srx/bgpsecio.cfg.template");
const BGPD_TEMPLATE: &str = include_str!("peers/bgp-srx/bgpd.conf.template");

/// The AS bgpsecio speaks as toward the speaker (its key is in the vault).
const BIO_AS: u32 = 65000;
/// The AS of the hopsig speaker under test (not in the vault: hopsig keygen).
const HOPSIG_AS: u32 = 65100;
/// The vault AS whose key hopsig (test 1) or srx_server (test 2) is not given.
const WITHHELD: u32 = 65030;
/// The local address of the IPv6 test's bgpsecio, and of the quagga-srx test's. Every
/// bgpsecio of this file has its own: bgpsecio 6.3.3 binds its `local_addr` with an
/// uninitialised port (bgpsec-io/bgp/BGPSession.c, `localaddr` not zeroed), the same
/// stack garbage in every process, so two on one address collide ("Cannot assign IP
/// address") and the second retries only after 30 s.
const BIO_V6_IP: &str = "127.0.3.1";
/// See [`BIO_V6_IP`].
const BIO_Q_IP: &str = "127.0.4.2";
/// Vault ASes the generated paths go through: 2- and 4-octet, one above 2^31.
const POOL: [u32; 11] = [
    64496,
    65536,
    65537,
    65005,
    65010,
    65015,
    65020,
    65025,
    65030,
    65040,
    4_200_000_000,
];

/// Held while a test runs quagga-srx's bgpd: every bgpd binds the same vty Unix socket
/// (its compiled-in path), so a second one at once exits ("Fail: un_socket bind()").
static ONE_BGPD: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// [`ONE_BGPD`], also after a test that held it failed.
fn one_bgpd() -> std::sync::MutexGuard<'static, ()> {
    ONE_BGPD.lock().unwrap_or_else(|e| e.into_inner())
}

/// `asn` as bgpsecio's configuration needs it: asdot (RFC 5396) from 2^31 on, since
/// it reads AS numbers as signed 32-bit integers.
fn bio_asn(asn: u32) -> String {
    if asn >= 1 << 31 {
        format!("{}.{}", asn >> 16, asn & 0xffff)
    } else {
        asn.to_string()
    }
}

/// One generated route: its prefix and the path after the sender's AS, origin last,
/// each AS with its pCount.
struct Route {
    prefix: String,
    path: Vec<(u32, u8)>,
}

impl Route {
    /// bgpsecio's update syntax: `PREFIX, AS AS pN …` (`ASpN`: N copies).
    fn bio(&self) -> String {
        let path: Vec<String> = self
            .path
            .iter()
            .map(|&(a, p)| {
                if p > 1 {
                    format!("{}p{p}", bio_asn(a))
                } else {
                    bio_asn(a)
                }
            })
            .collect();
        if path.is_empty() {
            format!("\"{}\"", self.prefix)
        } else {
            format!("\"{}, {}\"", self.prefix, path.join(" "))
        }
    }

    fn through(&self, asn: u32) -> bool {
        self.path.iter().any(|&(a, _)| a == asn)
    }
}

/// `n` routes: route i has 1 + i % 6 hops (the sender and i % 6 ASes of [`POOL`],
/// consecutive ones distinct, none twice), every fourth AS prepended 2–4 times; its
/// prefix is `prefix(i)`. Every path length, every pool AS and pCounts 1–4 occur.
fn plan(n: usize, prefix: impl Fn(usize) -> String) -> Vec<Route> {
    (0..n)
        .map(|i| {
            let step = 1 + i % 5;
            let path = (0..i % 6)
                .map(|j| {
                    let asn = POOL[(i / 6 + j * step) % POOL.len()];
                    let pcount = if (i + j) % 4 == 0 {
                        2 + (i % 3) as u8
                    } else {
                        1
                    };
                    (asn, pcount)
                })
                .collect();
            Route {
                prefix: prefix(i),
                path,
            }
        })
        .collect()
}

/// bgpsecio's configuration from the template.
#[allow(clippy::too_many_arguments)]
fn bio_config(
    prefix: &Path,
    mode: &str,
    asn: u32,
    local: &str,
    peer_as: u32,
    peer: SocketAddr,
    routes: &[Route],
) -> String {
    let updates: Vec<String> = routes.iter().map(Route::bio).collect();
    BGPSECIO_TEMPLATE
        .replace("VAULT", &vault::dir(prefix).display().to_string())
        .replace("MODE", mode)
        .replace("PEER_AS", &bio_asn(peer_as))
        .replace("ASN", &bio_asn(asn))
        .replace("IDENT", local)
        .replace("LOCAL", local)
        .replace("NEXT_HOP_V6", "2001:db8:ffff::1")
        .replace("PEER_IP", &peer.ip().to_string())
        .replace("PEER_PORT", &peer.port().to_string())
        .replace("UPDATES", &updates.join(",\n      "))
}

/// rpki-client JSON entries (`bgpsec_keys`) of the vault's keys but those of `withhold`.
fn vault_entries(prefix: &Path, withhold: &[u32]) -> Vec<Value> {
    vault::demo_keys(prefix)
        .unwrap()
        .into_iter()
        .filter(|k| !withhold.contains(&k.asn))
        .map(|k| {
            serde_json::json!({
                "asn": k.asn,
                "ski": k.ski,
                "pubkey": openssl::base64::encode_block(&k.spki),
                "ta": "bgp-srx-demo",
            })
        })
        .collect()
}

/// Adds the vault's keys but `withhold`'s to the `rpki.json` that
/// [`keys`] wrote.
fn add_vault_keys(s: &Scratch, prefix: &Path, withhold: &[u32]) {
    let mut rpki: Value =
        serde_json::from_slice(&std::fs::read(s.path("rpki.json")).unwrap()).unwrap();
    let list = rpki["bgpsec_keys"].as_array_mut().unwrap();
    list.extend(vault_entries(prefix, withhold));
    s.write("rpki.json", rpki.to_string());
}

/// Speaker NAME: AS [`HOPSIG_AS`] listening on 127.0.0.1 (a free port) in `mode`, with
/// one passive BGPsec neighbour `(address, AS)` and every route listed in its status;
/// with `ipv6`, the neighbour exchanges IPv6 unicast too (`families`, and the IPv6 next
/// hop of an IPv4 session, `next_hop6`, RFC 2545 §3; i25/ipv6). Returns once it
/// listens. One bgpsecio per speaker: a speaker with two would stream the routes of one
/// to the other, and bgpsecio's receiver loses a BGP header split across two reads
/// (see docs/guide/bgp-srx.md).
fn receiver(
    s: &Scratch,
    name: &str,
    mode: &str,
    neighbour: (&str, u32),
    ipv6: bool,
) -> (Running, SocketAddr) {
    let port = free_port();
    let nb = Nb {
        address: neighbour.0,
        port: 179,
        remote_as: neighbour.1,
        passive: true,
        bgpsec: true,
    };
    // Top-level keys go before the `[[neighbors]]` tables.
    let text = "status_routes = 100000\n".to_string()
        + &config(
            name,
            HOPSIG_AS,
            "127.0.0.1",
            Some(port),
            mode,
            "1",
            "192.0.2.0/24",
            &[nb],
        );
    let text = if ipv6 {
        text.replace(
            "bgpsec = true\n",
            "bgpsec = true\nfamilies = [\"ipv4\", \"ipv6\"]\nnext_hop6 = \"2001:db8:ffff::100\"\n",
        )
    } else {
        text
    };
    let running = start(s, name, text);
    wait_listening(s, name);
    (running, SocketAddr::from(([127, 0, 0, 1], port)))
}

/// Waits (at most 20 s) until speaker NAME logs that it listens: bgpsecio retries a
/// refused connection only after 30 s.
fn wait_listening(s: &Scratch, name: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let log = std::fs::read_to_string(s.path(&format!("{name}.log"))).unwrap_or_default();
        if log.contains(" listening on ") {
            return;
        }
        assert!(Instant::now() < deadline, "{name} not listening: {log}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `[valid, not valid, pending, other]` counts of the routes from `neighbour` in a
/// status (other: `unsigned`, or valid with another suite).
fn verdicts(status: &Value, neighbour: &str) -> [usize; 4] {
    let mut n = [0; 4];
    for r in status["adj_rib_in"].as_array().into_iter().flatten() {
        if r["neighbor"] != neighbour {
            continue;
        }
        match r["validation"].as_str().unwrap_or_default() {
            "valid (suite 1)" => n[0] += 1,
            v if v.starts_with("not valid") => n[1] += 1,
            "pending" => n[2] += 1,
            _ => n[3] += 1,
        }
    }
    n
}

/// The end (2,000 octets) of every log in the scratch folder: the speakers' and
/// bgpsecio's.
fn logs(s: &Scratch) -> String {
    let mut out = String::new();
    for name in s.names() {
        if name.ends_with(".log") {
            let text = std::fs::read_to_string(s.path(&name)).unwrap_or_default();
            let tail: String = text
                .chars()
                .rev()
                .take(2000)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            out += &format!("--- {name}:\n{tail}\n");
        }
    }
    out
}

/// Waits until speaker NAME has `want.0 + want.1` routes from `neighbour`, none
/// pending, at most 45 s; then they must be `want` = (valid, not valid) and no other.
/// Returns the status then.
fn wait_verdicts(s: &Scratch, name: &str, neighbour: &str, want: (usize, usize)) -> Value {
    let deadline = Instant::now() + Duration::from_secs(45);
    let mut last = [0; 4];
    loop {
        if let Some(v) = status(s, name) {
            last = verdicts(&v, neighbour);
            if last[0] + last[1] + last[3] >= want.0 + want.1 && last[2] == 0 {
                assert_eq!(
                    last,
                    [want.0, want.1, 0, 0],
                    "[valid, not valid, pending, other] from {neighbour}"
                );
                return v;
            }
        }
        assert!(
            Instant::now() < deadline,
            "{neighbour}: [valid, not valid, pending, other] {last:?}, want {want:?}, after 45 s\n{}",
            logs(s)
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// The attributes of a BGP UPDATE message (header included): `(type, where the
/// attribute starts, its value's range)`.
fn attributes(update: &[u8]) -> Vec<(u8, usize, std::ops::Range<usize>)> {
    let withdrawn = usize::from(u16::from_be_bytes([update[19], update[20]]));
    let at = 21 + withdrawn;
    let total = usize::from(u16::from_be_bytes([update[at], update[at + 1]]));
    let (mut i, end) = (at + 2, at + 2 + total);
    let mut out = vec![];
    while i < end {
        let (flags, kind) = (update[i], update[i + 1]);
        let (len, head) = if flags & 0x10 != 0 {
            (
                usize::from(u16::from_be_bytes([update[i + 2], update[i + 3]])),
                4,
            )
        } else {
            (usize::from(update[i + 2]), 3)
        };
        out.push((kind, i, i + head..i + head + len));
        i += head + len;
    }
    out
}

/// Flips one octet of a signature in a BGPsec_PATH attribute value (RFC 8205 §3):
/// with `newest`, the 6th octet of the first Signature Segment's signature (the
/// newest signer's), else the last octet of the block (the origin's signature).
fn flip_signature(value: &mut [u8], newest: bool) {
    let secure_path = usize::from(u16::from_be_bytes([value[0], value[1]]));
    // Signature_Block: length (2), suite (1), then segments: SKI (20), length (2), sig.
    let first_sig = secure_path + 3 + 20 + 2;
    let i = if newest {
        first_sig + 5
    } else {
        value.len() - 1
    };
    value[i] ^= 0x5a;
}

/// Flips a signature octet in the BGPsec_PATH of an UPDATE (see [`flip_signature`]).
fn tamper_update(update: &mut [u8], newest: bool) {
    let (_, _, range) = attributes(update)
        .into_iter()
        .find(|(t, _, _)| *t == 33)
        .expect("a BGPsec_PATH");
    flip_signature(&mut update[range], newest);
}

/// Test 1, for `mode`: bgpsecio (AS 65000) signs 2,400 IPv4 routes live; a second
/// bgpsecio (AS 65005) replays 600 routes from a binary file that
/// bgpsecio's GEN-B mode wrote, every fifth UPDATE tampered (a signature octet
/// flipped: alternately the newest and the origin's signature). hopsig's RPKI lacks
/// the key of AS 65030. Expected: Not Valid exactly the routes through AS 65030 and
/// the tampered ones; Valid all others.
fn bgpsecio_to_speaker(mode: &str) {
    let Some(prefix) = bgpsrx::find_bgpsec() else {
        return;
    };
    let started = Instant::now();
    // Each bgpsecio of the file on its own address (see BIO_V6_IP).
    let (live_ip, replay_ip) = if mode == "strict" {
        ("127.0.1.1", "127.0.1.2")
    } else {
        ("127.0.2.1", "127.0.2.2")
    };
    let s = Scratch::new();
    keys(&s, "1", &[HOPSIG_AS], &[HOPSIG_AS]);
    add_vault_keys(&s, &prefix, &[WITHHELD]);
    let (_live_speaker, speaker) = receiver(&s, "hopsig", mode, (live_ip, BIO_AS), false);
    let (_replay_speaker, replay_speaker) =
        receiver(&s, "hopsig-replay", mode, (replay_ip, 65005), false);

    // Live: 2,400 routes.
    let live = plan(2400, |i| format!("10.{}.{}.0/24", i / 256, i % 256));
    let cfg = bio_config(&prefix, "BGP", BIO_AS, live_ip, HOPSIG_AS, speaker, &live);
    let _live = BgpsecIo::start(&prefix, s.dir.path(), "bio-live", &cfg, &[]).unwrap();

    // Recorded, tampered, replayed: 600 routes.
    let recorded = plan(600, |i| format!("172.16.{}.{}/30", i / 64, (i % 64) * 4));
    let gen = bio_config(
        &prefix, "GEN-B", 65005, replay_ip, HOPSIG_AS, speaker, &recorded,
    );
    let bin = s.path("recorded.bin");
    bgpsecio::run(
        &prefix,
        s.dir.path(),
        "bio-gen",
        &gen,
        &[OsStr::new("-o"), bin.as_os_str()],
        Duration::from_secs(30),
    )
    .unwrap();
    let mut records = Record::decode_all(&std::fs::read(&bin).unwrap()).unwrap();
    assert_eq!(
        records.len(),
        recorded.len(),
        "one record per scripted UPDATE"
    );
    let mut tampered = 0;
    let mut want_replay = (0, 0);
    for (i, (record, route)) in records.iter_mut().zip(&recorded).enumerate() {
        assert_eq!((record.kind, record.fake), (1, false));
        let bad = i % 5 == 0;
        if bad {
            tamper_update(&mut record.data, tampered % 2 == 0);
            tampered += 1;
        }
        if bad || route.through(WITHHELD) {
            want_replay.1 += 1;
        } else {
            want_replay.0 += 1;
        }
    }
    let replay_file = s.path("tampered.bin");
    std::fs::write(
        &replay_file,
        records.iter().flat_map(Record::encode).collect::<Vec<u8>>(),
    )
    .unwrap();
    let replay_cfg = bio_config(
        &prefix,
        "BGP",
        65005,
        replay_ip,
        HOPSIG_AS,
        replay_speaker,
        &[],
    );
    let _replay = BgpsecIo::start(
        &prefix,
        s.dir.path(),
        "bio-replay",
        &replay_cfg,
        &[OsStr::new("-b"), replay_file.as_os_str()],
    )
    .unwrap();

    let want_live = (
        live.iter().filter(|r| !r.through(WITHHELD)).count(),
        live.iter().filter(|r| r.through(WITHHELD)).count(),
    );
    let v = wait_verdicts(&s, "hopsig", live_ip, want_live);
    // The reasons: the withheld key is missing, a tampered signature fails.
    let reasons = |needle: &str, neighbour: &str| {
        v["adj_rib_in"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| {
                r["neighbor"] == neighbour && r["validation"].as_str().unwrap().contains(needle)
            })
            .count()
    };
    assert_eq!(
        reasons(&format!("no router key for AS {WITHHELD}"), live_ip),
        want_live.1
    );
    // Every route's AS path is bgpsecio's, prepends expanded from pCount.
    let paths: BTreeMap<&str, &str> = v["adj_rib_in"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["neighbor"] == live_ip)
        .map(|r| {
            (
                r["prefix"].as_str().unwrap(),
                r["as_path"].as_str().unwrap(),
            )
        })
        .collect();
    for r in &live {
        let mut want = BIO_AS.to_string();
        for &(asn, pcount) in &r.path {
            for _ in 0..pcount {
                want += &format!(" {asn}");
            }
        }
        assert_eq!(paths.get(r.prefix.as_str()), Some(&want.as_str()));
    }
    assert!(live
        .iter()
        .any(|r| r.path.len() == 5 && r.path.iter().any(|p| p.1 == 4)));
    assert!(live.iter().any(|r| r.through(4_200_000_000)));
    let v = wait_verdicts(&s, "hopsig-replay", replay_ip, want_replay);
    drop(v);
    assert_eq!(tampered, 120);
    eprintln!(
        "{mode}: live {want_live:?}, replayed {want_replay:?} (valid, not valid) in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// Test 1, strict mode (docs/spec/speaker.md "Validation").
#[test]
fn bgpsecio_to_speaker_strict() {
    bgpsecio_to_speaker("strict");
}

/// Test 1, lazy mode.
#[test]
fn bgpsecio_to_speaker_lazy() {
    bgpsecio_to_speaker("lazy");
}

/// Test 1 with IPv6 prefixes (MP_REACH_NLRI AFI 2, BGPsec capability for AFI 2, RFC
/// 8205 §2.1): 1,200 routes, those through the withheld key Not Valid.
#[test]
fn bgpsecio_to_speaker_ipv6() {
    let Some(prefix) = bgpsrx::find_bgpsec() else {
        return;
    };
    let s = Scratch::new();
    keys(&s, "1", &[HOPSIG_AS], &[HOPSIG_AS]);
    add_vault_keys(&s, &prefix, &[WITHHELD]);
    let (_hopsig, speaker) = receiver(&s, "hopsig", "strict", (BIO_V6_IP, BIO_AS), true);
    let routes = plan(1200, |i| format!("2001:db8:{i:x}::/48"));
    let cfg = bio_config(
        &prefix, "BGP", BIO_AS, BIO_V6_IP, HOPSIG_AS, speaker, &routes,
    );
    let _bio = BgpsecIo::start(&prefix, s.dir.path(), "bio-v6", &cfg, &[]).unwrap();
    let want = (
        routes.iter().filter(|r| !r.through(WITHHELD)).count(),
        routes.iter().filter(|r| r.through(WITHHELD)).count(),
    );
    wait_verdicts(&s, "hopsig", BIO_V6_IP, want);
}

/// `hopsig rtr serve` on a free loopback port, killed by PID when dropped.
fn rtr_serve(s: &Scratch, source: &str) -> (KillOnDrop, SocketAddr) {
    let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));
    let log = std::fs::File::create(s.path("serve.log")).unwrap();
    let mut child = KillOnDrop(
        s.cmd(&[
            "rtr",
            "serve",
            "--source",
            source,
            "--listen",
            &addr.to_string(),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(addr).is_err() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "hopsig rtr serve exited"
        );
        assert!(Instant::now() < deadline, "hopsig rtr serve not listening");
        std::thread::sleep(Duration::from_millis(50));
    }
    (child, addr)
}

/// srx_server validating with the router keys of `served` (rpki-client JSON; its ROAs
/// and ASPAs are replaced by none), which it gets over RTR from `hopsig rtr serve`:
/// the cache and the server, once srx_server holds every key served.
fn srx_served(s: &Scratch, prefix: &Path, mut served: Value) -> (KillOnDrop, SrxServer) {
    served["roas"] = serde_json::json!([]);
    served["aspas"] = serde_json::json!([]);
    served["metadata"] = serde_json::json!({"buildtime": "2026-11-26T00:00:00Z"});
    let served_path = s.write("served.json", served.to_string());
    let (serve, cache) = rtr_serve(s, &served_path);
    let mut srx = SrxServer::start_validating(prefix, &s.path("srx"), cache, 2).unwrap();
    let got = srx.wait_end_of_data(1, Duration::from_secs(20)).unwrap();
    assert_eq!(
        got.key_asns.len(),
        served["bgpsec_keys"].as_array().unwrap().len(),
        "{}",
        srx.log()
    );
    (serve, srx)
}

/// quagga-srx's configuration: AS `asn` (a vault AS, signing with its demo key)
/// originating 10.10.0.0/16, validating through `srx`, with one BGPsec neighbour.
fn bgpd_conf(prefix: &Path, asn: u32, srx: &SrxServer, neighbor_as: u32, neighbor: &str) -> String {
    let ski = vault::demo_keys(prefix)
        .unwrap()
        .into_iter()
        .find(|k| k.asn == asn)
        .unwrap()
        .ski;
    BGPD_TEMPLATE
        .replace("PASSWORD", "hopsig")
        .replace("ROUTER_ID", "10.0.0.10")
        .replace("SRX_PORT", &srx.port.to_string())
        .replace("SKI", &ski)
        .replace("NETWORK", "10.10.0.0/16")
        .replace("NEIGHBOR_AS", &neighbor_as.to_string())
        .replace("NEIGHBOR", neighbor)
        .replace("ASN", &asn.to_string())
}

/// Test 2: hopsig A (AS 65100, 127.0.0.1, strict) between quagga-srx's bgpd (AS 65010,
/// 127.0.0.4, validating through srx_server) and two BGPsec sources: hopsig B (AS
/// 65200, 127.0.0.3) and bgpsecio (AS 65005, 127.0.4.2). srx_server gets its router
/// keys over RTR from `hopsig rtr serve`: every key but AS 65030's. At bgpd: A's own
/// route, B's route forwarded by A, and bgpsecio's routes through vault ASes forwarded
/// by A are path-valid; bgpsecio's route through AS 65030 is path-invalid. In A: bgpd's
/// own signed route is `valid (suite 1)`.
#[test]
fn speaker_to_quagga_srx() {
    let Some(prefix) = bgpsrx::find_bgpsec() else {
        return;
    };
    let _bgpd = one_bgpd();
    let started = Instant::now();
    let s = Scratch::new();
    let (a, b) = (HOPSIG_AS, 65200);
    keys(&s, "1", &[a, b], &[a, b]);
    // What srx_server gets over RTR: A's and B's keys and the vault's but AS 65030's.
    let mut served: Value =
        serde_json::from_slice(&std::fs::read(s.path("rpki.json")).unwrap()).unwrap();
    served["bgpsec_keys"]
        .as_array_mut()
        .unwrap()
        .extend(vault_entries(&prefix, &[WITHHELD]));
    // What the hopsig speakers know: every key.
    add_vault_keys(&s, &prefix, &[]);

    let (_serve, srx) = srx_served(&s, &prefix, served);

    let bgpd_as = 65010;
    let conf = bgpd_conf(&prefix, bgpd_as, &srx, a, "127.0.0.1");
    std::fs::create_dir(s.path("bgpd")).unwrap();
    let quagga = bgpd::Bgpd::start(
        &prefix,
        &s.path("bgpd"),
        &conf,
        "hopsig",
        IpAddr::V4(Ipv4Addr::new(127, 0, 0, 4)),
    )
    .unwrap();

    // hopsig A: active toward bgpd, passive for B and bgpsecio.
    let port_a = free_port();
    let text = config(
        "hopsig",
        a,
        "127.0.0.1",
        Some(port_a),
        "strict",
        "1",
        "10.100.0.0/16",
        &[
            Nb {
                address: "127.0.0.4",
                port: quagga.bgp_port,
                remote_as: bgpd_as,
                passive: false,
                bgpsec: true,
            },
            Nb {
                address: "127.0.0.3",
                port: 179,
                remote_as: b,
                passive: true,
                bgpsec: true,
            },
            Nb {
                address: BIO_Q_IP,
                port: 179,
                remote_as: 65005,
                passive: true,
                bgpsec: true,
            },
        ],
    );
    let _a = start(&s, "hopsig", text);
    wait_listening(&s, "hopsig");
    let text = config(
        "hopsig-b",
        b,
        "127.0.0.3",
        None,
        "strict",
        "1",
        "10.200.0.0/16",
        &[Nb {
            address: "127.0.0.1",
            port: port_a,
            remote_as: a,
            passive: false,
            bgpsec: true,
        }],
    );
    let _b = start(&s, "hopsig-b", text);
    let bio_routes = [
        Route {
            prefix: "10.51.0.0/16".into(),
            path: vec![],
        },
        Route {
            prefix: "10.52.0.0/16".into(),
            path: vec![(65015, 1), (4_200_000_000, 2), (65020, 1)],
        },
        Route {
            prefix: "10.53.0.0/16".into(),
            path: vec![(WITHHELD, 1)],
        },
    ];
    let cfg = bio_config(
        &prefix,
        "BGP",
        65005,
        BIO_Q_IP,
        a,
        SocketAddr::from(([127, 0, 0, 1], port_a)),
        &bio_routes,
    );
    let _bio = BgpsecIo::start(&prefix, s.dir.path(), "bio", &cfg, &[]).unwrap();

    let want: BTreeMap<String, char> = [
        ("10.10.0.0/16", 'v'),
        ("10.100.0.0/16", 'v'),
        ("10.200.0.0/16", 'v'),
        ("10.51.0.0/16", 'v'),
        ("10.52.0.0/16", 'v'),
        ("10.53.0.0/16", 'i'),
    ]
    .into_iter()
    .map(|(p, v)| (p.to_string(), v))
    .collect();
    let deadline = Instant::now() + Duration::from_secs(45);
    let mut got = BTreeMap::new();
    while got != want {
        assert!(
            Instant::now() < deadline,
            "bgpd's routes {got:?}, want {want:?}\nbgpd: {}\nhopsig: {}",
            quagga.log(),
            std::fs::read_to_string(s.path("hopsig.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(500));
        got = bgpd::srx_routes(&quagga.vty("show ip bgp").unwrap_or_default())
            .into_iter()
            .collect();
    }
    // bgpd's own route in hopsig A.
    wait_for(&s, "bgpd's route valid in hopsig", || {
        route_is(&s, "hopsig", "10.10.0.0/16", |r| {
            r["neighbor"] == "127.0.0.4" && r["validation"] == "valid (suite 1)"
        })
    });
    assert!(
        srx.received().errors.is_empty(),
        "srx_server: {:?}",
        srx.received().errors
    );
    eprintln!(
        "quagga-srx: {got:?} in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// A public key in a bgpsecio record: suite, AS, SKI, DER SubjectPublicKeyInfo.
type CapiKey = (u8, u32, [u8; 20], Vec<u8>);

/// The announcements of `hopsig bgpsec sign-mrt` output as bgpsecio `CAPI` records
/// (type 2: the BGPsec_PATH attribute, the prefix, the path's public keys), grouped by
/// (sender, validating AS) = (the record's Peer AS, Local AS), and the family of each.
fn capi_records(mrt: &[u8], keys: &Value) -> BTreeMap<(u32, u32), Vec<(Record, u16)>> {
    // (suite, AS, SKI, SubjectPublicKeyInfo) per AS, as bgpsecio records carry them.
    let mut by_as: BTreeMap<u32, Vec<CapiKey>> = BTreeMap::new();
    for k in keys["bgpsec_keys"].as_array().unwrap() {
        let ski_hex = k["ski"].as_str().unwrap();
        let mut ski = [0u8; 20];
        for (i, b) in ski.iter_mut().enumerate() {
            *b = u8::from_str_radix(&ski_hex[2 * i..2 * i + 2], 16).unwrap();
        }
        let spki = openssl::base64::decode_block(k["pubkey"].as_str().unwrap()).unwrap();
        let asn = k["asn"].as_u64().unwrap() as u32;
        by_as.entry(asn).or_default().push((1, asn, ski, spki));
    }
    let mut out: BTreeMap<(u32, u32), Vec<(Record, u16)>> = BTreeMap::new();
    let mut rest = mrt;
    while rest.len() >= 12 {
        let len = u32::from_be_bytes([rest[8], rest[9], rest[10], rest[11]]) as usize;
        let (kind, sub) = (
            u16::from_be_bytes([rest[4], rest[5]]),
            u16::from_be_bytes([rest[6], rest[7]]),
        );
        let body = &rest[12..12 + len];
        rest = &rest[12 + len..];
        assert_eq!((kind, sub), (16, 4), "sign-mrt writes BGP4MP_MESSAGE_AS4");
        let peer_as = u32::from_be_bytes([body[0], body[1], body[2], body[3]]);
        let local_as = u32::from_be_bytes([body[4], body[5], body[6], body[7]]);
        let afi = u16::from_be_bytes([body[10], body[11]]);
        let ip = if afi == 1 { 4 } else { 16 };
        let update = &body[12 + 2 * ip..];
        let attrs = attributes(update);
        let value = |t: u8| {
            attrs
                .iter()
                .find(|(k, _, _)| *k == t)
                .map(|(_, _, r)| &update[r.clone()])
                .unwrap()
        };
        // MP_REACH_NLRI (RFC 4760 §3): AFI, SAFI, next hop, reserved, the one prefix.
        let mp = value(14);
        let nh = usize::from(mp[3]);
        let nlri = &mp[4 + nh + 1..];
        let bits = nlri[0];
        let mut addr = [0u8; 16];
        let n = usize::from(bits).div_ceil(8);
        addr[..n].copy_from_slice(&nlri[1..1 + n]);
        // The whole BGPsec_PATH attribute (flags, type, length, value).
        let (_, start, range) = attrs.iter().find(|(k, _, _)| *k == 33).unwrap();
        let attr = update[*start..range.end].to_vec();
        let value33 = &update[range.clone()];
        let sp_len = usize::from(u16::from_be_bytes([value33[0], value33[1]]));
        let segments: Vec<u32> = value33[2..sp_len]
            .chunks(6)
            .map(|c| u32::from_be_bytes([c[2], c[3], c[4], c[5]]))
            .collect();
        let mut keys = vec![];
        for asn in &segments {
            keys.extend(by_as.get(asn).into_iter().flatten().cloned());
        }
        let record = Record {
            kind: 2,
            asn: peer_as,
            peer_as: local_as,
            segments: segments.len() as u32,
            afi,
            safi: mp[2],
            len: bits,
            addr,
            fake: false,
            keys,
            data: attr,
        };
        out.entry((peer_as, local_as))
            .or_default()
            .push((record, afi));
    }
    assert!(rest.is_empty(), "MRT framing");
    out
}

/// bgpsecio CAPI mode's (valid, invalid) for the records of one (sender, validator).
fn capi_validate(
    prefix: &Path,
    s: &Scratch,
    name: &str,
    asns: (u32, u32),
    records: &[Record],
) -> (u64, u64) {
    let file = s.path(&format!("{name}.bin"));
    std::fs::write(
        &file,
        records.iter().flat_map(Record::encode).collect::<Vec<u8>>(),
    )
    .unwrap();
    let cfg = bio_config(
        prefix,
        "CAPI",
        asns.0,
        "127.0.0.1",
        asns.1,
        SocketAddr::from(([127, 0, 0, 1], 179)),
        &[],
    );
    let out = bgpsecio::run(
        prefix,
        s.dir.path(),
        name,
        &cfg,
        &[OsStr::new("-b"), file.as_os_str()],
        Duration::from_secs(30),
    )
    .unwrap();
    bgpsecio::capi_counts(&out).unwrap_or_else(|| panic!("no CAPI summary: {out}"))
}

/// Test 3: `hopsig bgpsec sign-mrt` signs the first 3,000 announcements of the RIS
/// update file of 2016-08-11 16:00 (IPv4 and IPv6); srx-crypto-api, through bgpsecio's
/// CAPI mode with hopsig's public keys in each record, finds every one valid; with
/// every seventh attribute's signature octet flipped, exactly those invalid.
#[test]
fn srx_crypto_api_validates_sign_mrt() {
    let Some(prefix) = bgpsrx::find_bgpsec() else {
        return;
    };
    let started = Instant::now();
    let s = Scratch::new();
    s.ok(&[
        "bgpsec",
        "sign-mrt",
        &common::mrt("ris-updates.20160811.1600.gz"),
        &s.p("signed.mrt"),
        "--suite",
        "1",
        "--keys",
        &s.p("keys"),
        "--limit",
        "3000",
    ]);
    let keys: Value =
        serde_json::from_slice(&std::fs::read(s.path("keys/bgpsec_keys.json")).unwrap()).unwrap();
    let groups = capi_records(&std::fs::read(s.path("signed.mrt")).unwrap(), &keys);
    let mut per_family: BTreeMap<u16, [u64; 4]> = BTreeMap::new();
    for (n, (asns, records)) in groups.iter().enumerate() {
        for family in [1u16, 2] {
            let mut clean: Vec<Record> = records
                .iter()
                .filter(|(_, f)| *f == family)
                .map(|(r, _)| r.clone())
                .collect();
            if clean.is_empty() {
                continue;
            }
            let (valid, invalid) =
                capi_validate(&prefix, &s, &format!("capi-{n}-{family}"), *asns, &clean);
            let mut flipped = 0;
            for (i, r) in clean.iter_mut().enumerate() {
                if i % 7 == 0 {
                    let head = if r.data[0] & 0x10 != 0 { 4 } else { 3 };
                    flip_signature(&mut r.data[head..], i % 14 == 0);
                    flipped += 1;
                }
            }
            let (t_valid, t_invalid) =
                capi_validate(&prefix, &s, &format!("capi-{n}-{family}-t"), *asns, &clean);
            let e = per_family.entry(family).or_default();
            assert_eq!(
                (valid, invalid),
                (clean.len() as u64, 0),
                "{asns:?} AFI {family}"
            );
            assert_eq!(
                (t_valid, t_invalid),
                (clean.len() as u64 - flipped, flipped),
                "{asns:?} AFI {family} tampered"
            );
            e[0] += valid;
            e[1] += invalid;
            e[2] += t_valid;
            e[3] += t_invalid;
        }
    }
    let total: u64 = per_family.values().map(|c| c[0]).sum();
    let records: usize = groups.values().map(Vec::len).sum();
    assert_eq!(total, records as u64);
    assert!(
        per_family.get(&1).is_some_and(|c| c[0] > 0),
        "IPv4 announcements"
    );
    assert!(
        per_family.get(&2).is_some_and(|c| c[0] > 0),
        "IPv6 announcements"
    );
    eprintln!(
        "CAPI: per AFI [valid, invalid, tampered valid, tampered invalid] {per_family:?} in {} groups, {:.1} s",
        groups.len(),
        started.elapsed().as_secs_f64()
    );
}

/// The prefix of a `show ip bgp` network column: Quagga leaves out a natural (classful)
/// mask, so `3.0.0.0` is `3.0.0.0/8`; `None` for a word that is no IPv4 network.
fn quagga_network(word: &str) -> Option<String> {
    if let Some((addr, len)) = word.split_once('/') {
        addr.parse::<Ipv4Addr>().ok()?;
        len.parse::<u8>().ok()?;
        return Some(word.to_string());
    }
    let addr: Ipv4Addr = word.parse().ok()?;
    let len = match addr.octets()[0] {
        0..=127 => 8,
        128..=191 => 16,
        _ => 24,
    };
    Some(format!("{addr}/{len}"))
}

/// `(network, path validation)` of each route in bgpd's `show ip bgp` (with `srx
/// display`), as [`bgpd::srx_routes`] but with natural masks (see [`quagga_network`]).
fn quagga_routes(show: &str) -> BTreeMap<String, char> {
    show.lines()
        .filter_map(|l| {
            let open = l.find('(')?;
            let close = open + l[open..].find(')')?;
            let val: Vec<&str> = l[open + 1..close].split(',').collect();
            let path = val.get(1)?.trim().chars().next()?;
            let network = l[close + 1..].split_whitespace().find_map(quagga_network)?;
            Some((network, path))
        })
        .collect()
}

/// Test 4 (issue 25 §2): `hopsig bgpsec feed` tests quagga-srx. `sign-mrt` signs the
/// first 300 routes of the 2002 RIS RIB toward bgpd's AS 65010 (suite 1); srx_server
/// gets every router key over RTR from `hopsig rtr serve` but one AS's (the AS on the
/// most paths, fewer than half of them); feed, as AS 1853 over a BGPsec session,
/// sends the UPDATEs with `bad_signature` on a tenth of them (seed 1). bgpd's `show ip
/// bgp` then holds every fed prefix, exactly the faulted ones (feed's report) and those
/// through the withheld AS path-invalid (`i`), all others valid (`v`); the counts are
/// computed from the report and the signed MRT. Without a watcher the feed ends after
/// `--settle`; bgpd's table is read while its session is up.
#[test]
fn feed_tests_quagga_srx() {
    let Some(prefix) = bgpsrx::find_bgpsec() else {
        return;
    };
    let _bgpd = one_bgpd();
    let started = Instant::now();
    let (feed_as, bgpd_as) = (1853u32, 65010u32);
    let s = Scratch::new();
    s.ok(&[
        "bgpsec",
        "sign-mrt",
        &common::mrt("ris-bview.20020722.2337.gz"),
        &s.p("signed.mrt"),
        "--suite",
        "1",
        "--keys",
        &s.p("keys"),
        "--target-as",
        &bgpd_as.to_string(),
        "--limit",
        "300",
    ]);
    let keys: Value =
        serde_json::from_slice(&std::fs::read(s.path("keys/bgpsec_keys.json")).unwrap()).unwrap();
    // The routes the feed sends (newest AS its own), each prefix's AS path.
    let groups = capi_records(&std::fs::read(s.path("signed.mrt")).unwrap(), &keys);
    let mut paths: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for (r, afi) in groups.get(&(feed_as, bgpd_as)).into_iter().flatten() {
        if *afi != 1 {
            continue;
        }
        let head = if r.data[0] & 0x10 != 0 { 4 } else { 3 };
        let value = &r.data[head..];
        let sp_len = usize::from(u16::from_be_bytes([value[0], value[1]]));
        let path: Vec<u32> = value[2..sp_len]
            .chunks(6)
            .map(|c| u32::from_be_bytes([c[2], c[3], c[4], c[5]]))
            .collect();
        let p = Ipv4Addr::new(r.addr[0], r.addr[1], r.addr[2], r.addr[3]);
        let old = paths.insert(format!("{p}/{}", r.len), path);
        assert!(old.is_none(), "prefix twice in the slice: {p}/{}", r.len);
    }
    assert!(
        paths.len() > 200,
        "{} routes from AS {feed_as}",
        paths.len()
    );
    // Withheld: the AS (not the feed's) on the most paths, but fewer than half.
    let mut on: BTreeMap<u32, usize> = BTreeMap::new();
    for path in paths.values() {
        let mut seen: Vec<u32> = path.clone();
        seen.sort_unstable();
        seen.dedup();
        for a in seen.into_iter().filter(|&a| a != feed_as) {
            *on.entry(a).or_default() += 1;
        }
    }
    let (withheld, through) = on
        .iter()
        .filter(|(_, &n)| 2 * n < paths.len())
        .max_by_key(|(&a, &n)| (n, std::cmp::Reverse(a)))
        .map(|(&a, &n)| (a, n))
        .unwrap();
    assert!(through > 0);

    // srx_server's keys over RTR: all but the withheld AS's.
    let mut served = keys.clone();
    served["bgpsec_keys"]
        .as_array_mut()
        .unwrap()
        .retain(|k| k["asn"].as_u64() != Some(u64::from(withheld)));
    let (_serve, srx) = srx_served(&s, &prefix, served);

    let (bgpd_ip, feed_ip) = ("127.0.5.1", "127.0.5.2");
    let conf = bgpd_conf(&prefix, bgpd_as, &srx, feed_as, feed_ip);
    std::fs::create_dir(s.path("bgpd")).unwrap();
    let quagga = bgpd::Bgpd::start(
        &prefix,
        &s.path("bgpd"),
        &conf,
        "hopsig",
        bgpd_ip.parse().unwrap(),
    )
    .unwrap();

    // bgpd closes a connection from a neighbour still Idle, and feed does not retry
    // once connected: wait until bgpd listens for it (Active).
    let deadline = Instant::now() + Duration::from_secs(20);
    while !quagga
        .vty(&format!("show ip bgp neighbors {feed_ip}"))
        .unwrap_or_default()
        .contains("BGP state = Active")
    {
        assert!(Instant::now() < deadline, "bgpd: {}", quagga.log());
        std::thread::sleep(Duration::from_millis(250));
    }
    // The feed, in the background: its session stays up for --settle after the last
    // UPDATE, while bgpd's table is read.
    let report = s.p("report.json");
    let peer = format!("{bgpd_ip}:{}", quagga.bgp_port);
    let feed_log = std::fs::File::create(s.path("feed.log")).unwrap();
    let mut feed = KillOnDrop(
        s.cmd(&[
            "bgpsec",
            "feed",
            "--mrt",
            &s.p("signed.mrt"),
            "--peer",
            &peer,
            "--local-address",
            feed_ip,
            "--local-as",
            &feed_as.to_string(),
            "--remote-as",
            &bgpd_as.to_string(),
            "--bgpsec",
            "--faults",
            "bad_signature",
            "--fault-rate",
            "0.1",
            "--seed",
            "1",
            "--settle",
            "30",
            "--json",
            &report,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(feed_log)
        .spawn()
        .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    let table = loop {
        let got = quagga_routes(&quagga.vty("show ip bgp").unwrap_or_default());
        let done = paths
            .keys()
            .all(|p| got.get(p).is_some_and(|v| *v == 'v' || *v == 'i'));
        if done {
            break got;
        }
        let feed_log = std::fs::read_to_string(s.path("feed.log")).unwrap_or_default();
        assert!(
            feed.try_wait().unwrap().is_none() && Instant::now() < deadline,
            "bgpd has {} of {} routes validated; {got:?}\nfeed: {feed_log}\nbgpd: {}",
            paths
                .keys()
                .filter(|p| got.get(*p).is_some_and(|v| *v == 'v' || *v == 'i'))
                .count(),
            paths.len(),
            quagga.log()
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    let status = feed.wait().unwrap();
    let feed_log = std::fs::read_to_string(s.path("feed.log")).unwrap_or_default();
    assert!(status.success(), "feed: {status}: {feed_log}");
    let r: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(r["session"]["bgpsec_negotiated"], true, "{r}");
    assert_eq!(r["sent"]["signed"], paths.len() as u64, "{r}");
    let faulted: std::collections::BTreeSet<String> = r["faults"]["injected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            assert_eq!(i["kind"], "bad_signature");
            assert_eq!(i["expected"], "not_valid");
            i["prefix"].as_str().unwrap().to_string()
        })
        .collect();
    assert!(!faulted.is_empty(), "{r}");
    let mut want: BTreeMap<String, char> = paths
        .iter()
        .map(|(p, path)| {
            let bad = faulted.contains(p) || path.contains(&withheld);
            (p.clone(), if bad { 'i' } else { 'v' })
        })
        .collect();
    want.insert("10.10.0.0/16".into(), 'v');
    let count = |m: &BTreeMap<String, char>, c: char| m.values().filter(|v| **v == c).count();
    let (valid, invalid) = (count(&want, 'v'), count(&want, 'i'));
    assert!(valid > 0 && invalid > faulted.len(), "{want:?}");
    assert_eq!(
        (count(&table, 'v'), count(&table, 'i'), table.len()),
        (valid, invalid, want.len()),
        "bgpd's (valid, invalid, routes)"
    );
    assert_eq!(table, want);
    assert!(
        srx.received().errors.is_empty(),
        "srx_server: {:?}",
        srx.received().errors
    );
    eprintln!(
        "feed → quagga-srx: {} routes, {} faulted, {through} through withheld AS {withheld}: \
         {valid} valid, {invalid} invalid (bgpd's own route among the valid) in {:.1} s",
        paths.len(),
        faulted.len(),
        started.elapsed().as_secs_f64()
    );
}
