//! quagga-srx's `bgpd`: a Quagga 0.99 BGP daemon that signs BGPsec UPDATEs through
//! srx-crypto-api (its secret key from the installed vault, [`super::vault`]) and has
//! `srx_server` validate what it receives (`srx evaluation bgpsec distributed`).
//!
//! It runs without zebra (`-n`), its BGP listener on one loopback address (`-l`), its
//! vty on 127.0.0.1; [`Bgpd::vty`] logs in (the configuration's `password`) and runs
//! commands such as `show ip bgp`.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::stayrtr::free_port;

/// A running bgpd, killed by PID when dropped.
pub struct Bgpd {
    child: Child,
    log: PathBuf,
    /// Its BGP port (on the listen address given to [`Bgpd::start`]).
    pub bgp_port: u16,
    /// Its vty port on 127.0.0.1.
    pub vty_port: u16,
    password: String,
}

impl Drop for Bgpd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The user and group of this process (bgpd drops privileges to its `-u`/`-g`, by
/// default `quagga`, which may not exist).
fn id(flag: &str) -> std::io::Result<String> {
    let o = Command::new("id").arg(flag).output()?;
    Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
}

impl Bgpd {
    /// Writes `config` (Quagga configuration text; `password` its vty password) to
    /// `dir/bgpd.conf` and starts `PREFIX/sbin/bgpd` on free BGP and vty ports, its BGP
    /// listener on `listen`; waits (at most 10 s) until its vty accepts connections.
    ///
    /// # Errors
    /// The configuration cannot be written, bgpd does not start or stops, or its vty
    /// is not up in time (the error quotes its output).
    pub fn start(
        prefix: &Path,
        dir: &Path,
        config: &str,
        password: &str,
        listen: IpAddr,
    ) -> std::io::Result<Bgpd> {
        let conf = dir.join("bgpd.conf");
        std::fs::write(&conf, config)?;
        let (bgp_port, vty_port) = (free_port()?, free_port()?);
        let log = dir.join("bgpd.log");
        let out = std::fs::File::create(&log)?;
        let child = Command::new(prefix.join("sbin/bgpd"))
            .arg("-f")
            .arg(&conf)
            .arg("-i")
            .arg(dir.join("bgpd.pid"))
            .arg("-z")
            .arg(dir.join("zebra.sock"))
            .args(["-n", "-p", &bgp_port.to_string(), "-l", &listen.to_string()])
            .args(["-A", "127.0.0.1", "-P", &vty_port.to_string()])
            .args(["-u", &id("-un")?, "-g", &id("-gn")?])
            .current_dir(dir)
            // srx-crypto-api dlopen()s its module by file name.
            .env("LD_LIBRARY_PATH", prefix.join("lib64/srx"))
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            .spawn()?;
        let mut bgpd = Bgpd {
            child,
            log,
            bgp_port,
            vty_port,
            password: password.to_string(),
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        let vty = SocketAddr::from(([127, 0, 0, 1], vty_port));
        while TcpStream::connect(vty).is_err() {
            if let Some(status) = bgpd.child.try_wait()? {
                return Err(std::io::Error::other(format!(
                    "bgpd exited ({status}): {}",
                    bgpd.log()
                )));
            }
            if Instant::now() > deadline {
                return Err(std::io::Error::other(format!(
                    "bgpd's vty not up in 10 s: {}",
                    bgpd.log()
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(bgpd)
    }

    /// Its output so far (`log stdout` in its configuration sends its log there).
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Logs in to its vty, runs `terminal length 0` and `command`, and returns what
    /// `command` printed (up to the next prompt, at most 5 s).
    ///
    /// # Errors
    /// The vty cannot be reached, or the prompt does not come in time.
    pub fn vty(&self, command: &str) -> std::io::Result<String> {
        let mut s = TcpStream::connect(SocketAddr::from(([127, 0, 0, 1], self.vty_port)))?;
        s.set_read_timeout(Some(Duration::from_millis(200)))?;
        read_until(&mut s, |t| t.contains("Password:"))?;
        s.write_all(format!("{}\r\n", self.password).as_bytes())?;
        read_until(&mut s, |t| t.trim_end().ends_with('>'))?;
        s.write_all(b"terminal length 0\r\n")?;
        read_until(&mut s, |t| t.trim_end().ends_with('>'))?;
        s.write_all(format!("{command}\r\n").as_bytes())?;
        let out = read_until(&mut s, |t| t.trim_end().ends_with('>'))?;
        let _ = s.write_all(b"quit\r\n");
        Ok(out)
    }
}

/// Reads from the vty (telnet options stripped) until `done` holds for the text, at
/// most 5 s.
fn read_until(s: &mut TcpStream, done: impl Fn(&str) -> bool) -> std::io::Result<String> {
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut bytes = vec![];
    let mut buf = [0u8; 65536];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&buf[..n]),
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(e) => return Err(e),
        }
        let text = strip_telnet(&bytes);
        if done(&text) {
            return Ok(text);
        }
        if Instant::now() > deadline {
            return Err(std::io::Error::other(format!(
                "bgpd vty: no prompt in 5 s: {text}"
            )));
        }
    }
    Ok(strip_telnet(&bytes))
}

/// The text of vty output without telnet commands (IAC, RFC 854: `IAC cmd opt`, and
/// sub-negotiations up to `IAC SE`).
fn strip_telnet(bytes: &[u8]) -> String {
    let mut out = vec![];
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 255 {
            match bytes.get(i + 1) {
                Some(250) => {
                    i += 2;
                    while i + 1 < bytes.len() && !(bytes[i] == 255 && bytes[i + 1] == 240) {
                        i += 1;
                    }
                    i += 2;
                }
                Some(251..=254) => i += 3,
                _ => i += 2,
            }
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The routes of a `show ip bgp` listing of bgpd with `srx display`: for each line
/// with a network, `(network, path validation)`, where the validation is the second
/// letter of the SRxVal column `(origin,path,aspa)`: `v` valid, `i` invalid, `n`
/// not found, `u` unknown, `f` unverifiable, `?` undefined, `-` not evaluated.
pub fn srx_routes(show: &str) -> Vec<(String, char)> {
    show.lines()
        .filter_map(|l| {
            let open = l.find('(')?;
            let close = open + l[open..].find(')')?;
            let val: Vec<&str> = l[open + 1..close].split(',').collect();
            let path = val.get(1)?.trim().chars().next()?;
            let network = l[close + 1..]
                .split_whitespace()
                .find(|w| w.contains('/'))?;
            Some((network.to_string(), path))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_show_ip_bgp_and_strips_telnet() {
        let show = "   Ident    SRxVal   SRxLP Status Network          Next Hop            Metric  LocPrf Weight Path\n\
                    *> -------- (-,v,-)              10.10.0.0/16     0.0.0.0                  0           32768 i\n\
                    *> 89D2BFE4 (-,i,-)              10.100.0.0/16    192.0.2.100                              0 65100 i\n";
        assert_eq!(
            srx_routes(show),
            vec![("10.10.0.0/16".into(), 'v'), ("10.100.0.0/16".into(), 'i')]
        );
        assert_eq!(
            strip_telnet(&[255, 251, 1, b'P', 255, 250, 31, 0, 80, 255, 240, b'w']),
            "Pw"
        );
    }
}
