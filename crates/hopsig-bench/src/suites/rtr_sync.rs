//! RTR initial sync (issue 24 §5): a realistic table — 500 k VRPs (400 k IPv4, 100 k
//! IPv6), 1 k router keys, 10 k ASPAs, generated as rpki-client JSON — served by StayRTR
//! v0.6.0 (version 1: no ASPA) and by `hopsig rtr serve` (version 2, with the ASPAs);
//! the time from starting the client to End of Data and its peak resident memory
//! (VmHWM, polled from /proc) for `hopsig rtr dump --summary` and for RTRlib's
//! `rtrclient`, in the same run. hopsig is the `hopsig` binary running this suite
//! (or `$HOPSIG_BIN`); StayRTR and rtrclient as the tests find them.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use hopsig_testkit::rtrclient::RtrClient;
use hopsig_testkit::stayrtr::{free_port, StayRtr};

use super::Machine;
use crate::table::{Column, Table};
use crate::Error;

/// `n` P-256 router keys: (SKI as 40 hex digits, SubjectPublicKeyInfo in base64). The
/// SKI is the SHA-1 of the public key's bits (RFC 8209 §3.1.1), which the sources check.
fn router_keys(n: usize) -> Result<Vec<(String, String)>, Error> {
    use openssl::ec::{EcGroup, EcKey};
    use openssl::nid::Nid;
    let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).map_err(Error::setup)?;
    (0..n)
        .map(|_| {
            let key = EcKey::generate(&group).map_err(Error::setup)?;
            let der = key.public_key_to_der().map_err(Error::setup)?;
            // The uncompressed point is the DER's last 65 octets.
            let point = &der[der.len().saturating_sub(65)..];
            let ski = openssl::sha::sha1(point);
            let hex: String = ski.iter().map(|b| format!("{b:02X}")).collect();
            Ok((hex, openssl::base64::encode_block(&der)))
        })
        .collect()
}

/// A P-256 SubjectPublicKeyInfo's length in DER.
const SPKI_LEN: usize = 91;

/// One client's sync from one cache.
#[derive(Debug, Clone, Serialize)]
pub struct SyncRow {
    /// The cache and the version spoken.
    pub cache: String,
    /// "hopsig" or "rtrclient".
    pub client: String,
    /// (VRPs, router keys, ASPAs) received.
    pub received: (usize, usize, usize),
    /// From starting the client process to End of Data, best of the runs.
    pub seconds: f64,
    /// Peak resident memory of the client process (VmHWM), MiB, largest of the runs.
    pub peak_rss_mib: f64,
}

/// The measurement.
#[derive(Debug, Clone, Serialize)]
pub struct RtrSyncBench {
    /// "rtr-sync".
    pub suite: String,
    /// Whether `--quick` was given (a tenth of the table, one run).
    pub quick: bool,
    /// Where it ran.
    pub machine: Machine,
    /// The table: (VRPs, router keys, ASPAs).
    pub table: (usize, usize, usize),
    /// The payload PDUs of the table on the wire at version 2, MiB (the data).
    pub wire_mib: f64,
    /// Every client and cache.
    pub rows: Vec<SyncRow>,
}

/// One client run: seconds, peak RSS (kB), (VRPs, router keys, ASPAs) received.
type Run = (f64, u64, (usize, usize, usize));

/// A child process killed when dropped.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// VmHWM of process `pid`, kB, if it is still there.
fn vm_hwm(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The table as rpki-client JSON, and its size on the wire at version 2.
fn table(vrps: usize, keys: &[(String, String)], aspas: usize, with_aspas: bool) -> (String, u64) {
    let mut out = String::with_capacity(vrps * 80 + keys.len() * 200 + aspas * 80);
    out.push_str("{\"metadata\":{\"buildtime\":\"2026-01-01T00:00:00Z\"},\"roas\":[");
    let mut wire = 0u64;
    let v6 = vrps / 5;
    for i in 0..vrps {
        if i > 0 {
            out.push(',');
        }
        let asn = 64_512 + (i as u32 % 60_000);
        if i < vrps - v6 {
            // Distinct /24s from 11.0.0.0.
            let a = (11u32 << 24) + ((i as u32) << 8);
            let ip = std::net::Ipv4Addr::from(a);
            let _ = write!(
                out,
                "{{\"asn\":{asn},\"prefix\":\"{ip}/24\",\"maxLength\":24,\"ta\":\"bench\"}}"
            );
            wire += 20;
        } else {
            let j = (i - (vrps - v6)) as u32;
            let _ = write!(
                out,
                "{{\"asn\":{asn},\"prefix\":\"2001:{:x}:{:x}::/48\",\"maxLength\":48,\"ta\":\"bench\"}}",
                0x1000 + (j >> 16),
                j & 0xffff
            );
            wire += 32;
        }
    }
    out.push_str("],\"bgpsec_keys\":[");
    for (i, (ski, spki)) in keys.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "{{\"asn\":{},\"ski\":\"{ski}\",\"pubkey\":\"{spki}\",\"ta\":\"bench\"}}",
            65_000 + i
        );
        wire += (32 + SPKI_LEN) as u64;
    }
    out.push(']');
    if with_aspas {
        out.push_str(",\"aspas\":[");
        for i in 0..aspas {
            if i > 0 {
                out.push(',');
            }
            let customer = 100_000 + i;
            let n = 1 + i % 4;
            let providers: Vec<String> =
                (0..n).map(|p| (200_000 + i * 4 + p).to_string()).collect();
            let _ = write!(
                out,
                "{{\"customer_asid\":{customer},\"expires\":1900000000,\"providers\":[{}]}}",
                providers.join(",")
            );
            wire += 12 + 4 * n as u64;
        }
        out.push(']');
    }
    out.push('}');
    (out, wire)
}

/// The hopsig binary.
fn hopsig() -> Result<PathBuf, Error> {
    match std::env::var_os("HOPSIG_BIN") {
        Some(p) => Ok(p.into()),
        None => std::env::current_exe().map_err(Error::setup),
    }
}

/// `hopsig rtr dump --summary` against `port`: seconds to exit, peak RSS kB, counts.
fn run_hopsig(bin: &Path, port: u16, version: u8) -> Result<Run, Error> {
    let start = Instant::now();
    let mut child = Command::new(bin)
        .args(["rtr", "dump", &format!("127.0.0.1:{port}"), "--summary"])
        .args(["--version", &version.to_string(), "--timeout", "600"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(Error::setup)?;
    let pid = child.id();
    let mut peak = 0;
    let status = loop {
        if let Some(kb) = vm_hwm(pid) {
            peak = peak.max(kb);
        }
        if let Some(status) = child.try_wait().map_err(Error::setup)? {
            break status;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let seconds = start.elapsed().as_secs_f64();
    let out = child.wait_with_output().map_err(Error::setup)?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    if !status.success() {
        return Err(Error::failed(
            "bench rtr-sync: hopsig rtr dump",
            String::from_utf8_lossy(&out.stderr),
        ));
    }
    let counts = text
        .lines()
        .nth(1)
        .and_then(|l| {
            let n: Vec<usize> = l
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|t| t.parse().ok())
                .collect();
            (n.len() == 3).then(|| (n[0], n[1], n[2]))
        })
        .ok_or_else(|| Error::failed("bench rtr-sync: hopsig rtr dump", &text))?;
    Ok((seconds, peak, counts))
}

/// rtrclient against `port` until it logs a successful sync: seconds, peak RSS kB,
/// (prefix PDUs, router key PDUs) it counted.
fn run_rtrclient(bin: &Path, port: u16) -> Result<Run, Error> {
    let start = Instant::now();
    let mut child = Command::new(bin)
        .args(["tcp", "127.0.0.1", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(Error::setup)?;
    let pid = child.id();
    let stderr = child.stderr.take();
    let _guard = Guard(child);
    let (tx, rx) = std::sync::mpsc::channel();
    if let Some(stderr) = stderr {
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.contains("Sync successful") {
                    let _ = tx.send((Instant::now(), line));
                    return;
                }
            }
        });
    }
    let mut peak = 0;
    let deadline = start + Duration::from_secs(600);
    loop {
        if let Some(kb) = vm_hwm(pid) {
            peak = peak.max(kb);
        }
        if let Ok((at, line)) = rx.try_recv() {
            // "… received N Prefix PDUs, K Router Key PDUs, …"
            let n: Vec<usize> = line
                .split("received")
                .nth(1)
                .unwrap_or_default()
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|t| t.parse().ok())
                .collect();
            let counts = (
                n.first().copied().unwrap_or(0),
                n.get(1).copied().unwrap_or(0),
                0,
            );
            return Ok(((at - start).as_secs_f64(), peak, counts));
        }
        if Instant::now() > deadline {
            return Err(Error::failed(
                "bench rtr-sync",
                "rtrclient did not sync in 600 s",
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Waits (at most 120 s) until the cache at `port` answers with data (StayRTR loads
/// its file after it listens).
fn wait_ready(bin: &Path, port: u16, version: u8) -> Result<(), Error> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        match run_hopsig(bin, port, version) {
            Ok(_) => return Ok(()),
            Err(e) if Instant::now() > deadline => return Err(e),
            Err(_) => std::thread::sleep(Duration::from_millis(500)),
        }
    }
}

/// Best time, largest peak over `runs` runs.
fn best(
    runs: usize,
    cache: &str,
    client: &str,
    mut f: impl FnMut() -> Result<Run, Error>,
) -> Result<SyncRow, Error> {
    let mut row = SyncRow {
        cache: cache.into(),
        client: client.into(),
        received: (0, 0, 0),
        seconds: f64::INFINITY,
        peak_rss_mib: 0.0,
    };
    for _ in 0..runs {
        let (s, kb, counts) = f()?;
        row.seconds = row.seconds.min(s);
        row.peak_rss_mib = row.peak_rss_mib.max(kb as f64 / 1024.0);
        row.received = counts;
    }
    Ok(row)
}

impl RtrSyncBench {
    /// Runs it (`quick`: 50 k VRPs, 100 keys, 1 k ASPAs, one run).
    ///
    /// # Errors
    /// StayRTR or rtrclient missing, a process failing.
    pub fn measure(quick: bool) -> Result<RtrSyncBench, Error> {
        let (vrps, keys, aspas) = if quick {
            (50_000, 100, 1_000)
        } else {
            (500_000, 1_000, 10_000)
        };
        let runs = if quick { 1 } else { 3 };
        let stay = StayRtr::find(&hopsig_testkit::root()).ok_or_else(|| {
            Error::setup(
                "StayRTR not found (HOPSIG_STAYRTR or target/stayrtr/stayrtr; .ci/run builds it)",
            )
        })?;
        let rtrclient = RtrClient::find()
            .ok_or_else(|| Error::setup("rtrclient not found (Debian rtr-tools)"))?;
        let bin = hopsig()?;
        let dir = std::env::temp_dir().join(format!("hopsig-rtr-sync-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(Error::setup)?;
        let mut rows = Vec::new();
        tracing::info!("bench rtr-sync: generating {vrps} VRPs, {keys} router keys, {aspas} ASPAs");
        let key_list = router_keys(keys)?;
        let (v1_json, _) = table(vrps, &key_list, aspas, false);
        let v1_path = dir.join("v1.json");
        std::fs::write(&v1_path, v1_json).map_err(Error::setup)?;
        let (v2_json, wire) = table(vrps, &key_list, aspas, true);
        let v2_path = dir.join("v2.json");
        std::fs::write(&v2_path, v2_json).map_err(Error::setup)?;
        {
            tracing::info!("bench rtr-sync: StayRTR loading the table");
            let cache = StayRtr::start(&stay, &v1_path, 3600, &dir.join("stayrtr.log"))
                .map_err(Error::setup)?;
            wait_ready(&bin, cache.port, 1)?;
            let name = "StayRTR 0.6.0, v1";
            rows.push(best(runs, name, "hopsig", || {
                run_hopsig(&bin, cache.port, 1)
            })?);
            rows.push(best(runs, name, "rtrclient", || {
                run_rtrclient(&rtrclient, cache.port)
            })?);
        }
        {
            tracing::info!("bench rtr-sync: hopsig rtr serve loading the table");
            let port = free_port().map_err(Error::setup)?;
            let _serve = Guard(
                Command::new(&bin)
                    .args(["rtr", "serve", "--source"])
                    .arg(&v2_path)
                    .args(["--listen", &format!("127.0.0.1:{port}")])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .map_err(Error::setup)?,
            );
            wait_ready(&bin, port, 2)?;
            let name = "hopsig rtr serve, v2 (rtrclient: v1)";
            rows.push(best(runs, name, "hopsig", || run_hopsig(&bin, port, 2))?);
            rows.push(best(runs, name, "rtrclient", || {
                run_rtrclient(&rtrclient, port)
            })?);
        }
        let _ = std::fs::remove_dir_all(&dir);
        Ok(RtrSyncBench {
            suite: "rtr-sync".into(),
            quick,
            machine: Machine::detect(),
            table: (vrps, keys, aspas),
            wire_mib: wire as f64 / (1024.0 * 1024.0),
            rows,
        })
    }

    /// The table, as text.
    pub fn render(&self) -> String {
        let (v, k, a) = self.table;
        let mut t = Table::new(
            &[
                Column::left("cache", 38),
                Column::left("client", 10),
                Column::right("VRPs", 8),
                Column::right("keys", 6),
                Column::right("ASPAs", 6),
                Column::right("seconds", 8),
                Column::right("peak RSS MiB", 12),
            ],
            "  ",
        );
        for r in &self.rows {
            t.row([
                r.cache.clone(),
                r.client.clone(),
                r.received.0.to_string(),
                r.received.1.to_string(),
                r.received.2.to_string(),
                format!("{:.3}", r.seconds),
                format!("{:.1}", r.peak_rss_mib),
            ]);
        }
        format!(
            "RTR initial sync: {v} VRPs, {k} router keys, {a} ASPAs ({:.1} MiB of payload PDUs at v2)\n{}",
            self.wire_mib,
            t.render()
        )
    }
}
