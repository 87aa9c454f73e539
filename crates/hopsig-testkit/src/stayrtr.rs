//! A private StayRTR cache (bgp/stayrtr v0.6.0, pinned in tools/stayrtr, built by
//! .ci/run into target/stayrtr) serving an rpki-client JSON file over RTR v0/v1 on a
//! free loopback port; killed when dropped. StayRTR re-reads the file every
//! `refresh` seconds and sends a Serial Notify when it changed.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::KillOnDrop;
use std::time::{Duration, Instant};

/// A running StayRTR.
pub struct StayRtr {
    /// Held only to kill the process when this is dropped.
    _child: KillOnDrop,
    log: PathBuf,
    /// Its RTR port on 127.0.0.1.
    pub port: u16,
}

/// A free loopback port (bound and released; the peer binds it next).
pub fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl StayRtr {
    /// The binary: `$HOPSIG_STAYRTR`, else `target/stayrtr/stayrtr` under `repo`
    /// (where .ci/run builds it), else `stayrtr` on PATH; `None` if none runs.
    pub fn find(repo: &Path) -> Option<PathBuf> {
        crate::find_binary(
            "HOPSIG_STAYRTR",
            repo.join("target/stayrtr/stayrtr"),
            "stayrtr",
            "-version",
        )
    }

    /// Starts `bin` serving `json` (re-read every `refresh` seconds), its log in
    /// `log`, and waits (at most 10 s) until it accepts connections.
    ///
    /// # Errors
    /// It does not start or does not listen in time (the error quotes its log).
    pub fn start(bin: &Path, json: &Path, refresh: u32, log: &Path) -> std::io::Result<StayRtr> {
        let port = free_port()?;
        let metrics = free_port()?;
        let out = std::fs::File::create(log)?;
        let child = Command::new(bin)
            .arg("-cache")
            .arg(json)
            .args(["-bind", &format!("127.0.0.1:{port}")])
            .args(["-metrics.addr", &format!("127.0.0.1:{metrics}")])
            .args(["-checktime=false", "-refresh", &refresh.to_string()])
            .stdout(out.try_clone()?)
            .stderr(out)
            .spawn()?;
        let s = StayRtr {
            _child: KillOnDrop(child),
            log: log.to_path_buf(),
            port,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return Err(std::io::Error::other(format!(
                    "stayrtr did not start: {}",
                    s.log()
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(s)
    }

    /// Its log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}
