//! hopsig and NIST BGP-SRx 6.3.3 over RPKI-to-Router, both ways: hopsig's client
//! against BGP-SRx's scriptable cache `rpkirtr_svr`, and the RTR client inside BGP-SRx's
//! validation server `srx_server` against `hopsig rtr serve`. The BGP-SRx binaries come
//! from `hopsig_testkit::bgpsrx` (built by `tools/bgp-srx.sh`); under `CI` a missing
//! build fails.
//!
//! What BGP-SRx 6.3.3 does differently from the RFCs, found here (docs/spec/rpki.md,
//! "RTR client"): `rpkirtr_svr` ends a version 1 response with a version 0 End of Data
//! (12 octets, no timers; RFC 8210 §5.8 has 24) and a version 0 response with none, so
//! only version 2 works against it; and its ASPA PDU (and `srx_server`'s) has the
//! layout of an earlier draft-ietf-sidrops-8210bis revision (Flags, zero and a Provider
//! AS Count after the header), not the current one.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod rtr_peer;

use std::collections::BTreeSet;
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hopsig_testkit::bgpsrx::{self, RpkirtrSvr, SrxServer};
use hopsig_testkit::KillOnDrop;
use rtr_peer::{dump, dump_with, free_port, Key, Vrp};

/// The VRPs both tests serve: IPv4 and IPv6, a 4-octet ASN, maxLength above and at the
/// prefix length.
const VRPS: [(&str, u8, u32); 4] = [
    ("10.5.0.0/20", 24, 65005),
    ("192.0.2.0/24", 24, 4_200_000_000),
    ("2001:db8::/32", 48, 65006),
    ("2001:db8:1000::/36", 36, 65007),
];

fn want_vrps() -> BTreeSet<Vrp> {
    VRPS.iter()
        .map(|(p, m, a)| (p.to_string(), *m, *a))
        .collect()
}

/// (a) hopsig as a client of `rpkirtr_svr`: `hopsig rtr dump --version 2` lists exactly
/// the VRPs and router keys (from `openssl req` router certificates) the script loaded;
/// at version 1 it reports the cache's short End of Data as a protocol error instead of
/// taking the data.
#[test]
fn hopsig_dumps_rpkirtr_svr() {
    let Some(prefix) = bgpsrx::find() else { return };
    let dir = tempfile::tempdir().unwrap();
    let certs = dir.path().join("certs");
    std::fs::create_dir(&certs).unwrap();
    let mut script = String::new();
    for (p, max, asn) in VRPS {
        script += &format!("add {p} {max} {asn}\n");
    }
    script += &format!("keyLoc {}\n", certs.display());
    let mut want_keys = BTreeSet::new();
    for asn in [64512, 65006, 4_200_000_000] {
        let (ski, spki) = bgpsrx::router_cert(&certs, asn).unwrap();
        let key = Key::from_spki(asn, spki);
        assert_eq!(key.ski, ski.to_ascii_lowercase());
        want_keys.insert(key);
        script += &format!("addKey {asn} {asn}.cert\n");
    }
    let svr = RpkirtrSvr::start(&prefix, &dir.path().join("svr"), &script).unwrap();

    let got = dump(svr.addr, Some(2)).unwrap_or_else(|e| panic!("{e:?}\n{}", svr.log()));
    assert_eq!(got.version, 2);
    assert_eq!(got.vrps, want_vrps(), "{}", svr.log());
    assert_eq!(got.keys, want_keys, "{}", svr.log());
    assert!(got.aspas.is_empty());

    // Version 1: rpkirtr_svr's End of Data is 12 octets (RFC 8210 §5.8: 24); hopsig
    // names the PDU and answers Corrupt Data (RFC 8210 §12, code 0).
    let (code, err) = dump(svr.addr, Some(1)).expect_err("a 12-octet v1 End of Data");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("End of Data") && err.contains("Corrupt Data"),
        "{err}"
    );
    // Version 0: rpkirtr_svr sends the prefixes but no End of Data (and fails on its
    // side); hopsig gives up after --timeout.
    let (code, err) =
        dump_with(svr.addr, Some(0), &["--timeout", "5"]).expect_err("no v0 End of Data");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("End of Data"), "{err}");
}

/// An ASPA from `rpkirtr_svr` (`addASPA`) has an earlier draft's layout (Flags, zero and
/// a Provider AS Count after the header), which the current draft-ietf-sidrops-8210bis
/// layout reads as a withdrawal (Flags in the header's Session field, 0): hopsig refuses
/// it as a withdrawal in answer to a Reset Query with Withdrawal of Unknown Record (RFC
/// 8210 §12, code 6) rather than take a wrong customer ASN.
#[test]
fn hopsig_refuses_rpkirtr_svr_old_aspa_layout() {
    let Some(prefix) = bgpsrx::find() else { return };
    let dir = tempfile::tempdir().unwrap();
    let svr = RpkirtrSvr::start(
        &prefix,
        &dir.path().join("svr"),
        "add 10.5.0.0/20 24 65005\naddASPA 65001 65002 65003\n",
    )
    .unwrap();
    let (code, err) = dump(svr.addr, Some(2)).expect_err("an old-layout ASPA PDU");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("ASPA") && err.contains("Withdrawal of Unknown Record"),
        "{err}"
    );
}

/// `hopsig rtr serve`, killed by PID when dropped.
struct Serve {
    child: KillOnDrop,
    addr: SocketAddr,
}

impl Serve {
    /// Starts `hopsig rtr serve --source SOURCE --listen 127.0.0.1:PORT` and waits (at
    /// most 10 s) until it accepts connections.
    fn start(source: &std::path::Path) -> Serve {
        let port = free_port();
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let child = Command::new(env!("CARGO_BIN_EXE_hopsig"))
            .args(["rtr", "serve", "--source"])
            .arg(source)
            .args(["--listen", &addr.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut serve = Serve {
            child: KillOnDrop(child),
            addr,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(addr).is_err() {
            if let Some(status) = serve.child.try_wait().unwrap() {
                panic!("hopsig rtr serve exited: {status}");
            }
            assert!(
                Instant::now() < deadline,
                "hopsig rtr serve not listening in 10 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        serve
    }
}

/// (b) `srx_server` as a client of `hopsig rtr serve` (rpki-client JSON with `roas`,
/// `bgpsec_keys` and `aspas`): its log shows every VRP hopsig served, announced once,
/// every router key stored in its crypto API under the right ASN, then End of Data, and
/// no error. (srx_server logs no SKI; the key count per ASN and the crypto API's
/// acceptance of each SubjectPublicKeyInfo are what it shows.) At version 1 the source
/// holds an ASPA, which hopsig must not send (ASPA PDUs are version 2,
/// draft-ietf-sidrops-8210bis §5.12); at version 2 it holds none, because srx_server
/// 6.3.3 reads ASPA PDUs in an earlier draft's layout and crashes (SIGSEGV) on the
/// current one.
#[test]
fn srx_server_reads_hopsig_rtr_serve() {
    let Some(prefix) = bgpsrx::find() else { return };
    let dir = tempfile::tempdir().unwrap();
    let keys = [Key::new(65005), Key::new(65005), Key::new(4_200_000_000)];
    let roas: Vec<_> = VRPS
        .iter()
        .map(|(p, m, a)| serde_json::json!({"prefix": p, "maxLength": m, "asn": a, "ta": "test"}))
        .collect();
    let bgpsec_keys: Vec<_> = keys
        .iter()
        .map(|k| {
            serde_json::json!({
                "asn": k.asn,
                "ski": k.ski.to_ascii_uppercase(),
                "pubkey": openssl::base64::encode_block(&k.spki),
                "ta": "test",
            })
        })
        .collect();
    let mut want_key_asns: Vec<u32> = keys.iter().map(|k| k.asn).collect();
    want_key_asns.sort_unstable();
    for (version, aspas) in [
        (
            1u8,
            serde_json::json!([{"customer_asid": 65001, "providers": [65002, 65003]}]),
        ),
        (2, serde_json::json!([])),
    ] {
        let source = dir.path().join(format!("rpki-v{version}.json"));
        let json = serde_json::json!({
            "metadata": {"buildtime": "2026-11-26T00:00:00Z"},
            "roas": roas,
            "bgpsec_keys": bgpsec_keys,
            "aspas": aspas,
        });
        std::fs::write(&source, json.to_string()).unwrap();
        let serve = Serve::start(&source);
        let mut srx = SrxServer::start(
            &prefix,
            &dir.path().join(format!("srx-v{version}")),
            serve.addr,
            version,
        )
        .unwrap();
        let got = srx
            .wait_end_of_data(1, Duration::from_secs(20))
            .unwrap_or_else(|e| panic!("v{version}: {e}"));
        let vrps: BTreeSet<Vrp> = got.vrps.iter().cloned().collect();
        assert_eq!(
            vrps.len(),
            got.vrps.len(),
            "v{version}: a VRP announced twice"
        );
        assert_eq!(vrps, want_vrps(), "v{version}: {}", srx.log());
        let mut key_asns = got.key_asns.clone();
        key_asns.sort_unstable();
        assert_eq!(key_asns, want_key_asns, "v{version}: {}", srx.log());
        assert!(got.aspa_customers.is_empty(), "v{version}: {}", srx.log());
        assert!(got.errors.is_empty(), "v{version}: {:?}", got.errors);
    }
}
