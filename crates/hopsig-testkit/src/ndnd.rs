//! A private ndnd forwarder (named-data/ndnd, pinned in tools/ndnd) for tests and
//! benchmarks: started on a Unix socket and a free loopback TCP port with the
//! configuration of `tools/ndnd/fw.yml.template`, stopped (and its folder removed)
//! when dropped. ndnd binds its TCP and UDP port on every address; connect only over
//! loopback.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// The forwarder configuration (`tools/ndnd/fw.yml.template`, read from the checkout:
/// this crate is test support, never shipped): SOCKET_PATH and the port 6363 are
/// replaced.
const TEMPLATE: &str = include_str!("../../../tools/ndnd/fw.yml.template");

/// A running ndnd.
pub struct Ndnd {
    child: Child,
    dir: PathBuf,
    /// Its Unix socket.
    pub socket: PathBuf,
    /// Its TCP face, on loopback.
    pub tcp: SocketAddr,
}

impl Drop for Ndnd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Ndnd {
    /// The ndnd binary: `$HOPSIG_NDND`, else `target/ndnd/ndnd` under `repo` (where
    /// .ci/run builds it), else `ndnd` on PATH; `None` if none runs.
    pub fn find(repo: &Path) -> Option<PathBuf> {
        crate::find_binary(
            "HOPSIG_NDND",
            repo.join("target/ndnd/ndnd"),
            "ndnd",
            "--help",
        )
    }

    /// Starts `bin` with its socket, configuration and log (`ndnd.log`) in the new
    /// folder `dir`, and waits (at most 10 s) until both faces accept connections.
    ///
    /// # Errors
    /// The folder exists or cannot be made, ndnd does not start, or does not listen
    /// in time (the error quotes its log).
    pub fn start(bin: &Path, dir: &Path) -> std::io::Result<Ndnd> {
        Ndnd::start_with(bin, dir, true)
    }

    /// As [`Ndnd::start`], with the content store answering Interests or not (a
    /// benchmark that repeats one Interest must reach the producer every time).
    ///
    /// # Errors
    /// As [`Ndnd::start`].
    pub fn start_with(bin: &Path, dir: &Path, serve_from_cache: bool) -> std::io::Result<Ndnd> {
        std::fs::create_dir(dir)?;
        let socket = dir.join("nfd.sock");
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let config = TEMPLATE
            .replace("SOCKET_PATH", &socket.display().to_string())
            .replace("port_unicast: 6363", &format!("port_unicast: {port}"))
            .replace(
                "serve: true",
                if serve_from_cache {
                    "serve: true"
                } else {
                    "serve: false"
                },
            );
        let conf = dir.join("fw.yml");
        std::fs::write(&conf, config)?;
        let log = std::fs::File::create(dir.join("ndnd.log"))?;
        let child = Command::new(bin)
            .args(["fw", "run"])
            .arg(&conf)
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()?;
        let n = Ndnd {
            child,
            dir: dir.to_path_buf(),
            socket,
            tcp: SocketAddr::from(([127, 0, 0, 1], port)),
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::os::unix::net::UnixStream::connect(&n.socket).is_err()
            || TcpStream::connect(n.tcp).is_err()
        {
            if Instant::now() > deadline {
                let log = std::fs::read_to_string(dir.join("ndnd.log")).unwrap_or_default();
                return Err(std::io::Error::other(format!("ndnd did not start: {log}")));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(n)
    }
}
