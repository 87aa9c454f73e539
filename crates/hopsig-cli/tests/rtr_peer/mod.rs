//! What the tests against independent RTR caches and clients (BGP-SRx, FORT) share:
//! P-256 router keys, `hopsig rtr dump --json` read into sets, a free loopback port.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::process::Command;

use openssl::bn::BigNumContext;
use openssl::ec::{EcGroup, EcKey, PointConversionForm};
use openssl::nid::Nid;
use openssl::pkey::PKey;

/// A BGPsec router key: its ASN, SKI (RFC 8209 §3.1.1: SHA-1 of the subjectPublicKey
/// bits, lower-case hex) and SubjectPublicKeyInfo (DER).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub asn: u32,
    pub ski: String,
    pub spki: Vec<u8>,
}

impl Key {
    /// A new P-256 key for `asn`.
    pub fn new(asn: u32) -> Key {
        let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap();
        let ec = EcKey::generate(&group).unwrap();
        let mut ctx = BigNumContext::new().unwrap();
        let point = ec
            .public_key()
            .to_bytes(&group, PointConversionForm::UNCOMPRESSED, &mut ctx)
            .unwrap();
        let spki = PKey::from_ec_key(ec).unwrap().public_key_to_der().unwrap();
        let ski = hex::encode(openssl::sha::sha1(&point));
        Key { asn, ski, spki }
    }

    /// A key whose SPKI is `spki` (its SKI computed from it).
    pub fn from_spki(asn: u32, spki: Vec<u8>) -> Key {
        let pkey = PKey::public_key_from_der(&spki).unwrap();
        let ec = pkey.ec_key().unwrap();
        let mut ctx = BigNumContext::new().unwrap();
        let point = ec
            .public_key()
            .to_bytes(ec.group(), PointConversionForm::UNCOMPRESSED, &mut ctx)
            .unwrap();
        let ski = hex::encode(openssl::sha::sha1(&point));
        Key { asn, ski, spki }
    }

    /// base64url without padding (RFC 8416 §3.3.2 and §3.4.2 for SKI and routerPublicKey).
    pub fn b64url(bytes: &[u8]) -> String {
        openssl::base64::encode_block(bytes)
            .trim_end_matches('=')
            .replace('+', "-")
            .replace('/', "_")
    }
}

/// A VRP as `(prefix/len, max length, ASN)`, the prefix as Rust's `IpAddr` prints it.
pub type Vrp = (String, u8, u32);

/// What `hopsig rtr dump --json` printed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Dumped {
    pub version: u8,
    pub vrps: BTreeSet<Vrp>,
    pub keys: BTreeSet<Key>,
    /// `(customer, providers)`.
    pub aspas: BTreeSet<(u32, Vec<u32>)>,
}

/// A free TCP port on loopback (bound, then released for the peer).
pub fn free_port() -> u16 {
    hopsig_testkit::stayrtr::free_port().unwrap()
}

/// Runs `hopsig rtr dump ADDR [--version N] --json`; its JSON, or the exit code and
/// stderr when it fails.
pub fn dump(addr: SocketAddr, version: Option<u8>) -> Result<Dumped, (i32, String)> {
    dump_with(addr, version, &[])
}

/// [`dump`] with more arguments (e.g. `--timeout S`).
pub fn dump_with(
    addr: SocketAddr,
    version: Option<u8>,
    more: &[&str],
) -> Result<Dumped, (i32, String)> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hopsig"));
    cmd.args(["rtr", "dump", &addr.to_string(), "--json"])
        .args(more);
    if let Some(v) = version {
        cmd.args(["--version", &v.to_string()]);
    }
    let o = cmd.output().unwrap();
    if !o.status.success() {
        return Err((
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        ));
    }
    let v: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)));
    Ok(parse_dump(&v))
}

/// A VRP from the dump's `prefix/len-maxlen` (the `rpki` crate's `MaxLenPrefix`; no
/// `-maxlen` when it equals the length).
fn vrp(text: &str, asn: u32) -> Vrp {
    let (prefix, max) = match text.split_once('-') {
        Some((p, m)) => (p, m.parse().unwrap()),
        None => (text, text.rsplit('/').next().unwrap().parse().unwrap()),
    };
    (prefix.to_string(), max, asn)
}

/// The fields of `hopsig rtr dump --json` this test reads.
pub fn parse_dump(v: &serde_json::Value) -> Dumped {
    let u = |v: &serde_json::Value, k: &str| -> u64 {
        v[k].as_u64()
            .unwrap_or_else(|| panic!("no number {k:?} in {v}"))
    };
    let s = |v: &serde_json::Value, k: &str| -> String {
        v[k].as_str()
            .unwrap_or_else(|| panic!("no string {k:?} in {v}"))
            .to_string()
    };
    let list = |k: &str| -> Vec<serde_json::Value> {
        v[k].as_array()
            .unwrap_or_else(|| panic!("no list {k:?} in {v}"))
            .clone()
    };
    Dumped {
        version: u(v, "version") as u8,
        vrps: list("vrps")
            .iter()
            .map(|r| vrp(&s(r, "prefix"), u(r, "asn") as u32))
            .collect(),
        keys: list("router_keys")
            .iter()
            .map(|k| Key {
                asn: u(k, "asn") as u32,
                ski: s(k, "ski").to_ascii_lowercase(),
                spki: hex::decode(s(k, "spki")).unwrap(),
            })
            .collect(),
        aspas: list("aspas")
            .iter()
            .map(|a| {
                (
                    u(a, "customer") as u32,
                    a["providers"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|p| p.as_u64().unwrap() as u32)
                        .collect(),
                )
            })
            .collect(),
    }
}
