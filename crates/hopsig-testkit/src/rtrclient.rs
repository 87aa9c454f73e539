//! RTRlib's `rtrclient` (Debian rtr-tools 0.8) as an independent RTR client: run
//! against a cache on loopback, its printed prefixes and router keys parsed; killed
//! when dropped.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::KillOnDrop;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running rtrclient.
pub struct RtrClient {
    /// Held only to kill the process when this is dropped.
    _child: KillOnDrop,
    out: Arc<Mutex<String>>,
}

/// What rtrclient printed, as sets: VRPs `(prefix, length, max length, AS)` and
/// router keys `(AS, SKI as 40 lowercase hex digits)`. An announcement adds, a
/// withdrawal (`-`) removes.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Seen {
    /// The VRPs.
    pub vrps: BTreeSet<(String, u8, u8, u32)>,
    /// The router keys.
    pub keys: BTreeSet<(u32, String)>,
}

impl RtrClient {
    /// `rtrclient` on PATH (or `$HOPSIG_RTRCLIENT`), if it runs.
    pub fn find() -> Option<PathBuf> {
        let bin = std::env::var_os("HOPSIG_RTRCLIENT")
            .map(PathBuf::from)
            .unwrap_or_else(|| "rtrclient".into());
        let runs = Command::new(&bin)
            .arg("-h")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok();
        runs.then_some(bin)
    }

    /// Starts `bin tcp -k -p 127.0.0.1 PORT` (line-buffered through `stdbuf`, or it
    /// prints nothing until it exits).
    ///
    /// # Errors
    /// It does not start.
    pub fn start(bin: &std::path::Path, port: u16) -> std::io::Result<RtrClient> {
        let mut child = Command::new("stdbuf")
            .arg("-oL")
            .arg(bin)
            .args(["tcp", "-k", "-p", "127.0.0.1", &port.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let out = Arc::new(Mutex::new(String::new()));
        if let Some(mut stdout) = child.stdout.take() {
            let out = out.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                while let Ok(n) = stdout.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    if let Ok(mut o) = out.lock() {
                        o.push_str(&String::from_utf8_lossy(&buf[..n]));
                    }
                }
            });
        }
        Ok(RtrClient {
            _child: KillOnDrop(child),
            out,
        })
    }

    /// What it printed so far, parsed.
    pub fn seen(&self) -> Seen {
        let text = self.out.lock().map(|o| o.clone()).unwrap_or_default();
        parse(&text)
    }

    /// Waits (at most `limit`) until what it printed satisfies `ok`; the last
    /// [`Seen`] either way.
    pub fn wait_for(&self, limit: Duration, ok: impl Fn(&Seen) -> bool) -> Seen {
        let deadline = Instant::now() + limit;
        loop {
            let seen = self.seen();
            if ok(&seen) || Instant::now() > deadline {
                return seen;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Parses rtrclient's `-p` lines (`+ 10.0.0.0   8 -  24   65001`) and `-k` blocks
/// (`+ HOST: …` / `ASN:  65001` / `SKI:  01:02:…`).
pub fn parse(text: &str) -> Seen {
    let mut seen = Seen::default();
    let mut key_sign: Option<bool> = None;
    let mut key_asn: Option<u32> = None;
    for line in text.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        match t.as_slice() {
            [sign @ ("+" | "-"), "HOST:", ..] => {
                key_sign = Some(*sign == "+");
                key_asn = None;
            }
            ["ASN:", asn] => key_asn = asn.parse().ok(),
            ["SKI:", ski] => {
                if let (Some(add), Some(asn)) = (key_sign, key_asn) {
                    let item = (asn, ski.replace(':', "").to_lowercase());
                    if add {
                        seen.keys.insert(item);
                    } else {
                        seen.keys.remove(&item);
                    }
                }
                key_sign = None;
            }
            [sign @ ("+" | "-"), prefix, len, "-", max, asn] => {
                if let (Ok(len), Ok(max), Ok(asn)) = (len.parse(), max.parse(), asn.parse()) {
                    let item = (prefix.to_string(), len, max, asn);
                    if *sign == "+" {
                        seen.vrps.insert(item);
                    } else {
                        seen.vrps.remove(&item);
                    }
                }
            }
            _ => {}
        }
    }
    seen
}
