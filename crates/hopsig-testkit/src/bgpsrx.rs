//! NIST BGP-SRx 6.3.3 as an RPKI-to-Router peer: its scriptable test cache
//! `rpkirtr_svr` and the RTR client inside its validation server `srx_server`. Both are
//! built once by `tools/bgp-srx.sh` into a folder outside the checkout (`.ci/run` calls
//! it); `$HOPSIG_BGPSRX` names that folder, by default `~/.cache/hopsig/bgp-srx-6.3.3`.
//!
//! Both programs bind their listening ports on every address (BGP-SRx has no bind
//! option); the launchers give them free ports and everything connects over loopback.
//! Each is killed by PID when its handle is dropped, and its folder removed.
//!
//! BGP-SRx as a BGPsec peer (crates/hopsig-cli/tests/bgp_srx_bgpsec.rs): [`bgpsecio`]
//! (its traffic generator and binary UPDATE files), [`bgpd`] (quagga-srx), [`vault`]
//! (its demo key vault) and [`SrxServer::start_validating`] (srx_server validating
//! BGPsec for bgpd with the router keys of its RTR cache only).

pub mod bgpd;
pub mod bgpsecio;
pub mod vault;

use std::net::{SocketAddr, TcpStream};

use crate::stayrtr::free_port;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// The folder `tools/bgp-srx.sh` builds into when `$HOPSIG_BGPSRX` is not set.
fn default_prefix() -> Option<PathBuf> {
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/hopsig/bgp-srx-6.3.3"))
}

/// The BGP-SRx install prefix (`$HOPSIG_BGPSRX`, else the default cache folder) if it
/// holds `bin/rpkirtr_svr` and `bin/srx_server`. Otherwise the test says it skips and
/// gets `None`, except under `CI`, where a missing build fails the test.
///
/// # Panics
/// Under `CI` when the binaries are missing.
pub fn find() -> Option<PathBuf> {
    let prefix = std::env::var_os("HOPSIG_BGPSRX")
        .map(PathBuf::from)
        .or_else(default_prefix);
    let ok = |p: &Path| {
        ["bin/rpkirtr_svr", "bin/srx_server"]
            .iter()
            .all(|b| p.join(b).is_file())
    };
    match prefix {
        Some(p) if ok(&p) => Some(p),
        other => {
            let shown = other.map_or("(no HOME)".into(), |p| p.display().to_string());
            crate::missing(&format!(
                "NIST BGP-SRx in {shown} (bin/rpkirtr_svr, bin/srx_server; tools/bgp-srx.sh \
                 builds it, .ci/run runs that)"
            ));
            None
        }
    }
}

/// The install prefix as [`find`] gives it, if it also holds what the BGPsec tests run:
/// `bin/bgpsecio`, `sbin/bgpd` and the demo key vault (`tools/bgp-srx.sh` installs it
/// into `opt/bgp-srx-examples/bgpsec-keys`). Otherwise the test says it skips and gets
/// `None`, except under `CI`, where it fails.
///
/// # Panics
/// Under `CI` when a binary or the vault is missing.
pub fn find_bgpsec() -> Option<PathBuf> {
    let prefix = find()?;
    let want = [
        prefix.join("bin/bgpsecio"),
        prefix.join("sbin/bgpd"),
        vault::dir(&prefix).join("ski-list.txt"),
    ];
    match want.iter().find(|p| !p.is_file()) {
        None => Some(prefix),
        Some(gone) => {
            crate::missing(&format!(
                "{} (tools/bgp-srx.sh builds BGP-SRx and installs its demo key vault; .ci/run runs it)",
                gone.display()
            ));
            None
        }
    }
}

/// Waits (at most `limit`) until `ready` holds, re-reading `log` each time; the error
/// quotes the log.
fn wait_log(
    child: &mut Child,
    log: &Path,
    what: &str,
    limit: Duration,
    ready: impl Fn(&str) -> bool,
) -> std::io::Result<()> {
    let deadline = Instant::now() + limit;
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if ready(&text) {
            return Ok(());
        }
        if let Some(status) = child.try_wait()? {
            return Err(std::io::Error::other(format!(
                "{what} exited ({status}): {text}"
            )));
        }
        if Instant::now() > deadline {
            return Err(std::io::Error::other(format!(
                "{what} not ready after {limit:?}: {text}"
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The line `rpkirtr_svr` echoes once it has run its whole start script.
const LOADED: &str = "hopsig: script loaded";

/// A running `rpkirtr_svr`, the BGP-SRx RTR test cache (srx-server/src/tools/rpkirtr_svr.c).
///
/// Its start script holds one command per line: `add PREFIX/LEN MAXLEN ASN` (a VRP),
/// `keyLoc FOLDER` then `addKey ASN FILE` (a router key, read from a DER router
/// certificate at fixed offsets: the subject CN, the SKI in upper-case hex, at octet
/// 130 and the 91-octet P-256 SubjectPublicKeyInfo at octet 170 — what `openssl req
/// -x509 -subj /CN=SKI -set_serial 20140220001` makes, see [`router_cert`]),
/// `addASPA CUSTOMER PROVIDER…`, `sessionID N`.
pub struct RpkirtrSvr {
    child: Child,
    /// Kept open: the program reads commands from stdin after its script and exits at
    /// end of input.
    _stdin: Option<ChildStdin>,
    dir: PathBuf,
    /// Where it listens (every address; connect here).
    pub addr: SocketAddr,
}

impl Drop for RpkirtrSvr {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl RpkirtrSvr {
    /// Starts `PREFIX/bin/rpkirtr_svr` on a free port in the new folder `dir`, running
    /// `script` (its commands, see the type), and waits (at most 10 s) until it has
    /// loaded the script and accepts connections.
    ///
    /// # Errors
    /// The folder exists or cannot be made, the program does not start or stops, or it
    /// is not ready in time (the error quotes its output, `rpkirtr_svr.log`).
    pub fn start(prefix: &Path, dir: &Path, script: &str) -> std::io::Result<RpkirtrSvr> {
        std::fs::create_dir(dir)?;
        let file = dir.join("cache.script");
        std::fs::write(&file, format!("{script}\necho {LOADED}\n"))?;
        let port = free_port()?;
        let log_path = dir.join("rpkirtr_svr.log");
        let log = std::fs::File::create(&log_path)?;
        let mut child = Command::new(prefix.join("bin/rpkirtr_svr"))
            .arg("-f")
            .arg(&file)
            .arg(port.to_string())
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()?;
        let stdin = child.stdin.take();
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let mut svr = RpkirtrSvr {
            child,
            _stdin: stdin,
            dir: dir.to_path_buf(),
            addr,
        };
        wait_log(
            &mut svr.child,
            &log_path,
            "rpkirtr_svr",
            Duration::from_secs(10),
            |t| t.contains(LOADED),
        )?;
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(addr).is_err() {
            if Instant::now() > deadline {
                return Err(std::io::Error::other(
                    "rpkirtr_svr does not accept connections",
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(svr)
    }

    /// Its output so far (the script's echo, its cache listing, errors).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("rpkirtr_svr.log")).unwrap_or_default()
    }
}

/// A router key for `rpkirtr_svr`'s `addKey`: a new P-256 key and a self-signed DER
/// certificate `ASN.cert` in `dir`, made with the `openssl` command line as BGP-SRx's
/// `qsrx-make-cert` does (that script fails with OpenSSL 3). Returns the SKI (upper-case
/// hex, RFC 8209 §3.1.1: SHA-1 of the subjectPublicKey bits) and the
/// SubjectPublicKeyInfo (DER).
///
/// # Errors
/// `openssl` fails, or the certificate's layout is not the one `rpkirtr_svr` reads.
pub fn router_cert(dir: &Path, asn: u32) -> std::io::Result<(String, Vec<u8>)> {
    let key = dir.join(format!("{asn}.pem"));
    let cert = dir.join(format!("{asn}.cert"));
    let openssl = |args: &[&std::ffi::OsStr]| -> std::io::Result<Vec<u8>> {
        let o = Command::new("openssl").args(args).output()?;
        if !o.status.success() {
            return Err(std::io::Error::other(format!(
                "openssl {args:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            )));
        }
        Ok(o.stdout)
    };
    openssl(&[
        "ecparam".as_ref(),
        "-genkey".as_ref(),
        "-name".as_ref(),
        "prime256v1".as_ref(),
        "-noout".as_ref(),
        "-out".as_ref(),
        key.as_os_str(),
    ])?;
    let spki = openssl(&[
        "pkey".as_ref(),
        "-in".as_ref(),
        key.as_os_str(),
        "-pubout".as_ref(),
        "-outform".as_ref(),
        "DER".as_ref(),
    ])?;
    // The SKI from a first certificate's subjectKeyIdentifier extension (OpenSSL's
    // "hash" method is RFC 5280 §4.2.1.2 (1), which RFC 8209 §3.1.1 requires), then the
    // real one with it as the subject CN, where rpkirtr_svr reads it.
    let probe = dir.join(format!("{asn}.probe.pem"));
    // A self-signed certificate of `key` for subject `subj`; `rest` says where to.
    let self_signed = |subj: &str, rest: &[&std::ffi::OsStr]| {
        let head: [&std::ffi::OsStr; 7] = [
            "req".as_ref(),
            "-new".as_ref(),
            "-x509".as_ref(),
            "-key".as_ref(),
            key.as_os_str(),
            "-subj".as_ref(),
            subj.as_ref(),
        ];
        openssl(&[&head[..], rest].concat())
    };
    self_signed("/CN=probe", &["-out".as_ref(), probe.as_os_str()])?;
    let ext = openssl(&[
        "x509".as_ref(),
        "-in".as_ref(),
        probe.as_os_str(),
        "-noout".as_ref(),
        "-ext".as_ref(),
        "subjectKeyIdentifier".as_ref(),
    ])?;
    let ski: String = String::from_utf8_lossy(&ext)
        .lines()
        .nth(1)
        .unwrap_or_default()
        .chars()
        .filter(char::is_ascii_hexdigit)
        .collect::<String>()
        .to_ascii_uppercase();
    let subj = format!("/CN={ski}");
    self_signed(
        &subj,
        &[
            "-set_serial".as_ref(),
            "20140220001".as_ref(),
            "-days".as_ref(),
            "3650".as_ref(),
            "-outform".as_ref(),
            "DER".as_ref(),
            "-out".as_ref(),
            cert.as_os_str(),
        ],
    )?;
    let der = std::fs::read(&cert)?;
    if ski.len() != 40
        || der.get(130..170) != Some(ski.as_bytes())
        || der.get(170..170 + spki.len()) != Some(&spki[..])
        || spki.len() != 91
    {
        return Err(std::io::Error::other(format!(
            "{}: not the layout rpkirtr_svr reads (SKI hex at 130, SPKI at 170)",
            cert.display()
        )));
    }
    Ok((ski, spki))
}

/// A running `srx_server` whose RTR client connects to one cache.
pub struct SrxServer {
    child: Child,
    dir: PathBuf,
    log: PathBuf,
    /// The port of its proxy interface, where routers (quagga-srx's bgpd) connect.
    pub port: u16,
}

impl Drop for SrxServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What `srx_server` logged that it received from its cache (its log at level 7,
/// DEBUG): one entry per VRP and router key announced, in order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SrxReceived {
    /// `(prefix/len, max length, origin ASN)` from `ROA-wl: Ann [...]`
    /// (srx-server/src/server/rpki_handler.c `handlePrefix`).
    pub vrps: Vec<(String, u8, u32)>,
    /// The ASN of each router key srxcryptoapi accepted (`RPKI/Router Key Stored in
    /// srxcryptoapi` followed by `ski_registerKey asn=N`, rpki_handler.c
    /// `handleRouterKey`; srx_server logs no SKI).
    pub key_asns: Vec<u32>,
    /// The customer ASN of each ASPA announced (`[ASPA] Ann (...): cs=N, pct=M`,
    /// rpki_router_client.c).
    pub aspa_customers: Vec<u32>,
    /// The number of End of Data PDUs it processed (`Received an end of data`).
    pub end_of_data: usize,
    /// Lines at ERROR level and RTR Error Reports it logged.
    pub errors: Vec<String>,
}

impl SrxServer {
    /// Starts `PREFIX/bin/srx_server` in the new folder `dir` with its RTR client
    /// pointed at `cache` (RTR version `version`, which it may downgrade), its proxy,
    /// console and gRPC ports free, logging at DEBUG to `dir/srx_server.log`; waits (at
    /// most 10 s) until its main thread runs (it connects to the cache then).
    ///
    /// # Errors
    /// The folder exists or cannot be made, or the server does not start or stops.
    pub fn start(
        prefix: &Path,
        dir: &Path,
        cache: SocketAddr,
        version: u8,
    ) -> std::io::Result<SrxServer> {
        // The crypto API configuration is the installed one (the bgpsec_openssl module;
        // its demo key vault is not needed to register public keys from the cache).
        Self::launch(prefix, dir, cache, version, None)
    }

    /// Starts `srx_server` as [`SrxServer::start`] does, to validate BGPsec for
    /// routers with the router keys its cache sends and no other: its crypto API
    /// configuration (`dir/srxcryptoapi.conf`) loads no public key of the demo vault
    /// (the installed one preloads all of them, which would hide a key withheld from
    /// the cache).
    ///
    /// # Errors
    /// As [`SrxServer::start`].
    pub fn start_validating(
        prefix: &Path,
        dir: &Path,
        cache: SocketAddr,
        version: u8,
    ) -> std::io::Result<SrxServer> {
        // srx-crypto-api/srxcryptoapi.conf's format: the module, the vault of secret
        // keys (srx_server signs nothing) and no `PUB:` list in its init value.
        let sca = format!(
            "library_conf = \"bgpsec_openssl\";\nkey_vault = \"{}/\";\n\
             key_ext_private = \"der\";\nkey_ext_public = \"cert\";\n\
             bgpsec_openssl: {{\n  library_name = \"libSRxBGPSecOpenSSL.so\";\n  init_value = \"\";\n}};\n",
            vault::dir(prefix).display()
        );
        Self::launch(prefix, dir, cache, version, Some(sca))
    }

    /// The launcher of both: `sca`, when given, is the crypto API configuration to
    /// write and use instead of the installed one.
    fn launch(
        prefix: &Path,
        dir: &Path,
        cache: SocketAddr,
        version: u8,
        sca: Option<String>,
    ) -> std::io::Result<SrxServer> {
        std::fs::create_dir(dir)?;
        let sca_path = match sca {
            Some(text) => {
                let path = dir.join("srxcryptoapi.conf");
                std::fs::write(&path, text)?;
                path
            }
            None => prefix.join("etc/srxcryptoapi.conf"),
        };
        let port = free_port()?;
        // The format of srx-server/src/server/srx_server.conf (libconfig).
        let conf = format!(
            "verbose = true;\nloglevel = 7;\nsync = true;\nport = {};\n\
             console: {{ port = {}; password = \"x\"; }};\n\
             rpki: {{ host = \"{}\"; port = {}; router_protocol = {version}; }};\n\
             bgpsec: {{ srxcryptoapi_cfg = \"{}\"; sync_logging = true; }};\n\
             mode: {{ no-sendqueue = true; no-receivequeue = false; }};\n\
             grpc: {{ port = {}; }};\n",
            port,
            free_port()?,
            cache.ip(),
            cache.port(),
            sca_path.display(),
            free_port()?,
        );
        let conf_path = dir.join("srx_server.conf");
        std::fs::write(&conf_path, conf)?;
        let log = dir.join("srx_server.log");
        let out = std::fs::File::create(dir.join("srx_server.out"))?;
        let mut child = Command::new(prefix.join("bin/srx_server"))
            .arg("-f")
            .arg(&conf_path)
            .arg("-l")
            .arg(&log)
            .current_dir(dir)
            // srxcryptoapi dlopen()s its module by file name from here.
            .env("LD_LIBRARY_PATH", prefix.join("lib64/srx"))
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            .spawn()?;
        wait_log(
            &mut child,
            &log,
            "srx_server",
            Duration::from_secs(10),
            |t| t.contains("Start Main SRx server thread"),
        )?;
        Ok(SrxServer {
            child,
            dir: dir.to_path_buf(),
            log,
            port,
        })
    }

    /// Its log and console output so far.
    pub fn log(&self) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let out = std::fs::read_to_string(self.dir.join("srx_server.out")).unwrap_or_default();
        log + &out
    }

    /// What it logged that it received (see [`SrxReceived`]).
    pub fn received(&self) -> SrxReceived {
        parse_log(&self.log())
    }

    /// Waits (at most `limit`) until it has processed `n` End of Data PDUs; returns what
    /// it received by then.
    ///
    /// # Errors
    /// It stops, or the End of Data does not come in time (the error quotes the log).
    pub fn wait_end_of_data(&mut self, n: usize, limit: Duration) -> std::io::Result<SrxReceived> {
        let log = self.log.clone();
        wait_log(&mut self.child, &log, "srx_server", limit, |t| {
            parse_log(t).end_of_data >= n
        })?;
        Ok(self.received())
    }
}

/// The parser behind [`SrxServer::received`].
fn parse_log(text: &str) -> SrxReceived {
    let mut r = SrxReceived::default();
    let mut key_stored = false;
    for line in text.lines() {
        if let Some(rest) = line.split("ROA-wl: Ann [").nth(1) {
            // "originAS: 65005, prefix: 10.5.0.0/20, max-len: 24, valCacheID: ..."
            let field = |name: &str| {
                rest.split(name)
                    .nth(1)
                    .and_then(|v| v.split(',').next())
                    .map(str::trim)
            };
            if let (Some(asn), Some(prefix), Some(max)) =
                (field("originAS:"), field("prefix:"), field("max-len:"))
            {
                if let (Ok(asn), Ok(max)) = (asn.parse(), max.parse()) {
                    r.vrps.push((prefix.to_string(), max, asn));
                }
            }
        } else if let Some(rest) = line.split("[ASPA] Ann (").nth(1) {
            let cs = rest.split("cs=").nth(1).and_then(|v| v.split(',').next());
            if let Some(Ok(cs)) = cs.map(str::parse) {
                r.aspa_customers.push(cs);
            }
        } else if line.contains("RPKI/Router Key Stored in srxcryptoapi") {
            key_stored = true;
        } else if let Some(asn) = line.split("ski_registerKey asn=").nth(1) {
            if key_stored {
                if let Ok(asn) = asn.trim().parse::<i64>() {
                    // srx_server prints the ASN with %i.
                    r.key_asns.push(asn as u32);
                }
            }
            key_stored = false;
        } else if line.contains("Received an end of data") {
            r.end_of_data += 1;
        } else if line.trim_start().starts_with("ERROR") || line.contains("RPKI/Router error") {
            r.errors.push(line.trim().to_string());
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_srx_server_log() {
        let log = "  DEBUG [11/26/26 08:37.57] ([0x955FF6C0] RPKI Handler): ROA-wl: Ann [originAS: 65005, prefix: 10.5.0.0/20, max-len: 24, valCacheID: 0x00000001, session_id: 0x0000)\n\
                   DEBUG [x] ROA-wl: Ann [originAS: 4200000000, prefix: 2001:db8::/32, max-len: 48, valCacheID: 0x1, session_id: 0x0)\n\
                   INFO [x] RPKI/Router Key Stored in srxcryptoapi \n\
                   DEBUG [x] ski_registerKey asn=65000\n\
                   DEBUG [x] ski_registerKey asn=65001\n\
                   DEBUG [x] [ASPA] Ann (valCacheID=0x00000001 sessionID=0x0000): cs=65001, pct=2\n\
                   INFO [x] Received an end of data, process RPKI Queue:\n\
                   ERROR [x] boom\n";
        let r = parse_log(log);
        assert_eq!(
            r.vrps,
            vec![
                ("10.5.0.0/20".into(), 24, 65005),
                ("2001:db8::/32".into(), 48, 4_200_000_000)
            ]
        );
        // The second ski_registerKey has no "Stored" line before it: not accepted.
        assert_eq!(r.key_asns, vec![65000]);
        assert_eq!(r.aspa_customers, vec![65001]);
        assert_eq!(r.end_of_data, 1);
        assert_eq!(r.errors, vec!["ERROR [x] boom".to_string()]);
    }
}
