//! What the `hopsig speaker` end-to-end tests share: starting speakers and BIRD, reading
//! their status, raw BGP clients that speak to a speaker by hand.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::Scratch;
use serde_json::Value;

/// Longest wait for a session or a route.
pub const WAIT: Duration = Duration::from_secs(30);

/// A process killed when the test ends, however it ends.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A TCP port free on loopback now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Router keys for `asns` of `suite` in `s`, and rpki.json with the public keys of
/// those in `published`.
pub fn keys(s: &Scratch, suite: &str, asns: &[u32], published: &[u32]) {
    let mut all = vec![];
    for asn in asns {
        let name = format!("as{asn}-{suite}.key");
        s.ok(&[
            "bgpsec",
            "keygen",
            "--asn",
            &asn.to_string(),
            "--suite",
            suite,
            "--out",
            &s.p(&name),
        ]);
        if published.contains(asn) {
            let json: Value =
                serde_json::from_slice(&std::fs::read(s.path(&format!("{name}.json"))).unwrap())
                    .unwrap();
            all.extend(json["bgpsec_keys"].as_array().unwrap().iter().cloned());
        }
    }
    let rpki = serde_json::json!({ "bgpsec_keys": all });
    s.write("rpki.json", rpki.to_string());
}

/// A neighbour entry of a speaker configuration.
pub struct Nb<'a> {
    pub address: &'a str,
    pub port: u16,
    pub remote_as: u32,
    pub passive: bool,
    pub bgpsec: bool,
}

/// A speaker configuration: AS `asn` at `address`, named NAME (its status file
/// NAME.json), signing with `suite`, originating `originate`.
#[allow(clippy::too_many_arguments)]
pub fn config(
    name: &str,
    asn: u32,
    address: &str,
    listen: Option<u16>,
    mode: &str,
    suite: &str,
    originate: &str,
    neighbors: &[Nb<'_>],
) -> String {
    let mut t = format!(
        "local_as = {asn}\nrouter_id = \"192.0.2.{last}\"\nmode = \"{mode}\"\nstate_file = \"{name}.json\"\n\
         rpki_keys = \"rpki.json\"\nconnect_retry = 1\nhold_time = 9\noriginate = [\"{originate}\"]\n\
         router_keys = [{{ suite = \"{suite}\", file = \"as{asn}-{suite}.key\" }}]\n",
        last = asn % 100
    );
    if let Some(port) = listen {
        t += &format!("listen = \"{address}:{port}\"\n");
    }
    for n in neighbors {
        t += &format!(
            "[[neighbors]]\naddress = \"{}\"\nport = {}\nlocal_address = \"{address}\"\nremote_as = {}\npassive = {}\nbgpsec = {}\n",
            n.address, n.port, n.remote_as, n.passive, n.bgpsec
        );
    }
    t
}

/// Writes NAME.toml with `text` and starts `hopsig speaker run` on it, its standard
/// error in NAME.log.
pub fn start(s: &Scratch, name: &str, text: String) -> Running {
    let config = s.write(&format!("{name}.toml"), text);
    let log = std::fs::File::create(s.path(&format!("{name}.log"))).unwrap();
    let child = s
        .cmd(&["speaker", "run", &config])
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    Running(child)
}

/// The speaker's status, through `hopsig speaker status --json` (`None` before its
/// first state file).
pub fn status(s: &Scratch, name: &str) -> Option<Value> {
    let o = s.run(&["speaker", "status", &s.p(&format!("{name}.toml")), "--json"]);
    o.status
        .success()
        .then(|| serde_json::from_slice(&o.stdout).unwrap())
}

/// Waits until `f` holds, at most [`WAIT`]; on timeout fails with `what` and the
/// speakers' logs.
pub fn wait_for(s: &Scratch, what: &str, mut f: impl FnMut() -> bool) {
    let start = Instant::now();
    while start.elapsed() < WAIT {
        if f() {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let logs: Vec<String> = std::fs::read_dir(s.path("."))
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            let is_log = p.extension()? == "log" || p.extension()? == "json";
            is_log.then(|| {
                format!(
                    "{}:\n{}",
                    p.display(),
                    std::fs::read_to_string(&p).unwrap_or_default()
                )
            })
        })
        .collect();
    panic!("timed out waiting for {what}\n{}", logs.join("\n"));
}

/// The Adj-RIB-In entry of `prefix` in `status`.
pub fn route<'a>(status: &'a Value, prefix: &str) -> Option<&'a Value> {
    status["adj_rib_in"]
        .as_array()?
        .iter()
        .find(|r| r["prefix"] == prefix)
}

pub fn route_is(s: &Scratch, name: &str, prefix: &str, check: impl Fn(&Value) -> bool) -> bool {
    status(s, name).is_some_and(|v| route(&v, prefix).is_some_and(&check))
}

/// BIRD 2 in the foreground with `template` filled in (its log and control socket in
/// `s`): the running daemon and the control socket's path, for `birdc -s`.
pub fn start_bird(
    s: &Scratch,
    template: &str,
    port: u16,
    hopsig_address: &str,
    hopsig_as: u32,
) -> (Running, String) {
    let conf = template
        .replace("LOG_PATH", &s.p("bird.log"))
        .replace("PORT", &port.to_string())
        .replace("HOPSIG_ADDRESS", hopsig_address)
        .replace("HOPSIG_AS", &hopsig_as.to_string());
    let conf = s.write("bird.conf", conf);
    let ctl = s.p("bird.ctl");
    let bird = Running(
        Command::new("bird")
            .args(["-f", "-c", &conf, "-s", &ctl, "-P", &s.p("bird.pid")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    (bird, ctl)
}

/// Reads one BGP message (header and body) from `s`.
pub fn read_message(s: &mut std::net::TcpStream) -> Vec<u8> {
    use std::io::Read;
    let mut header = [0u8; 19];
    s.read_exact(&mut header).unwrap();
    let len = usize::from(u16::from_be_bytes([header[16], header[17]]));
    let mut m = header.to_vec();
    m.resize(len, 0);
    s.read_exact(&mut m[19..]).unwrap();
    m
}

/// A raw TCP client bound to `from` and connected to `to` (the speaker accepts only
/// its neighbour's address; the standard library cannot bind before connecting, so
/// tokio's socket does it), with a 20 s read timeout.
pub fn raw_client(from: &str, to: &str) -> std::net::TcpStream {
    raw_client_with(from, to, None)
}

pub fn open_message(asn: u32, hold: u16) -> Vec<u8> {
    use hopsig_bgp::packet::{AsWidth, Message, Open};
    let open = Open::new(asn, hold, std::net::Ipv4Addr::new(192, 0, 2, 42), vec![]);
    Message::Open(open).encoding(AsWidth::Four).unwrap()
}

/// (code, subcode) of a NOTIFICATION, or panics.
pub fn notification(m: &[u8]) -> (u8, u8) {
    assert_eq!(m[18], 3, "expected a NOTIFICATION, got type {}", m[18]);
    (m[19], m[20])
}

/// A plain speaker configuration: AS `asn` listening on `address:port`, hold time 9,
/// originating `originate`, with passive plain neighbours at `neighbors` (address,
/// AS), its status file `state_file`.
pub fn plain_config(
    asn: u32,
    address: &str,
    port: u16,
    state_file: &str,
    originate: &[String],
    neighbors: &[(&str, u32)],
) -> String {
    let list: Vec<String> = originate.iter().map(|p| format!("\"{p}\"")).collect();
    let mut t = format!(
        "local_as = {asn}\nrouter_id = \"192.0.2.{last}\"\nmode = \"lazy\"\nstate_file = \"{state_file}\"\n\
         connect_retry = 1\nhold_time = 9\nstatus_routes = 10\nlisten = \"{address}:{port}\"\noriginate = [{}]\n",
        list.join(", "),
        last = asn % 100
    );
    for (a, remote_as) in neighbors {
        t +=
            &format!("[[neighbors]]\naddress = \"{a}\"\nremote_as = {remote_as}\npassive = true\n");
    }
    t
}

/// A raw client as [`raw_client`], with a receive buffer of `rcvbuf` octets (set
/// before connecting, so that the window stays small).
pub fn raw_client_small(from: &str, to: &str, rcvbuf: u32) -> std::net::TcpStream {
    raw_client_with(from, to, Some(rcvbuf))
}

pub fn raw_client_with(from: &str, to: &str, rcvbuf: Option<u32>) -> std::net::TcpStream {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let from: std::net::SocketAddr = format!("{from}:0").parse().unwrap();
    let to: std::net::SocketAddr = to.parse().unwrap();
    let stream = rt
        .block_on(async {
            let s = tokio::net::TcpSocket::new_v4()?;
            if let Some(size) = rcvbuf {
                s.set_recv_buffer_size(size)?;
            }
            s.bind(from)?;
            s.connect(to).await
        })
        .unwrap();
    let std = stream.into_std().unwrap();
    std.set_nonblocking(false).unwrap();
    std.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    std
}

pub const KEEPALIVE: [u8; 19] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0, 19, 4,
];

/// OPEN and KEEPALIVE by hand: the session with the speaker is Established.
pub fn establish(c: &mut std::net::TcpStream, asn: u32, hold: u16) {
    use std::io::Write;
    assert_eq!(read_message(c)[18], 1, "the speaker's OPEN");
    c.write_all(&open_message(asn, hold)).unwrap();
    assert_eq!(read_message(c)[18], 4, "KEEPALIVE after a good OPEN");
    c.write_all(&KEEPALIVE).unwrap();
}

/// The (local port, remote port) of every IPv4 TCP socket of the machine
/// (/proc/net/tcp), listeners and TIME_WAIT included.
pub fn tcp_sockets() -> Vec<(u16, u16)> {
    let text = std::fs::read_to_string("/proc/net/tcp").unwrap();
    let port = |field: &str| u16::from_str_radix(field.rsplit(':').next().unwrap(), 16).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (port(f[1]), port(f[2]))
        })
        .collect()
}

/// `key` (in kB) of /proc/PID/status.
pub fn proc_status_kb(pid: u32, key: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = text.lines().find(|l| l.starts_with(key)).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// The session of `address` in a status.
pub fn session_of<'a>(v: &'a Value, address: &str) -> &'a Value {
    v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["address"] == address)
        .unwrap()
}

/// A TCP port free on the IPv6 loopback (::1) now.
pub fn free_port6() -> u16 {
    TcpListener::bind("[::1]:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// gobgpd listening on `address:port` as AS `asn`, its API on 127.0.0.1:`api`, with
/// passive neighbours `neighbors` (hopsig's address, AS); its log in gobgpd-ADDRESS.log.
/// Returns the daemon once its API answers.
pub fn start_gobgpd(
    s: &Scratch,
    address: &str,
    asn: u32,
    port: u16,
    api: u16,
    neighbors: &[(&str, u32)],
) -> Running {
    let mut conf = format!(
        "[global.config]\n  as = {asn}\n  router-id = \"192.0.2.{}\"\n  port = {port}\n  local-address-list = [\"{address}\"]\n",
        asn % 100
    );
    for (n, remote_as) in neighbors {
        conf += &format!(
            "[[neighbors]]\n  [neighbors.config]\n    neighbor-address = \"{n}\"\n    peer-as = {remote_as}\n  \
             [neighbors.transport.config]\n    passive-mode = true\n    local-address = \"{address}\"\n"
        );
    }
    gobgpd_from(s, address, conf, api)
}

/// gobgpd's Adj-RIB-In from hopsig at `address`, by prefix (`Null` while it has
/// none or cannot say).
pub fn gobgpd_adj_in(api: u16, address: &str) -> Value {
    let o = gobgp(api, &["-j", "neighbor", address, "adj-in"]);
    serde_json::from_slice(&o.stdout).unwrap_or(Value::Null)
}

/// `gobgp ARGS` against the gobgpd whose API is on 127.0.0.1:`api`.
pub fn gobgp(api: u16, args: &[&str]) -> std::process::Output {
    Command::new("gobgp")
        .args(["-u", "127.0.0.1", "-p", &api.to_string()])
        .args(args)
        .output()
        .unwrap()
}

/// The lines of `birdc show route all` output `out` about `prefix` (its first line
/// and the indented ones after it), if listed.
pub fn bird_route(out: &str, prefix: &str) -> Option<String> {
    let mut lines = out
        .lines()
        .skip_while(|l| !l.starts_with(&format!("{prefix} ")));
    let first = lines.next()?;
    let rest: Vec<&str> = lines
        .take_while(|l| l.starts_with(char::is_whitespace))
        .collect();
    Some(format!("{first}\n{}", rest.join("\n")))
}

/// `birdc -s CTL show route all`.
pub fn bird_routes(ctl: &str) -> String {
    let o = Command::new("birdc")
        .args(["-s", ctl, "show", "route", "all"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// gobgpd on the configuration `conf` (written to gobgpd-NAME.toml, its log
/// gobgpd-NAME.log) with its API on 127.0.0.1:`api`, once the API answers.
pub fn gobgpd_from(s: &Scratch, name: &str, conf: String, api: u16) -> Running {
    let conf = s.write(&format!("gobgpd-{name}.toml"), conf);
    let log = std::fs::File::create(s.path(&format!("gobgpd-{name}.log"))).unwrap();
    let api_host = format!("127.0.0.1:{api}");
    let daemon = Running(
        Command::new("gobgpd")
            .args([
                "-f",
                &conf,
                "-p",
                "--api-hosts",
                &api_host,
                "--pprof-disable",
            ])
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    wait_for(s, "gobgpd's API", || {
        gobgp(api, &["global"]).status.success()
    });
    daemon
}

/// A BGPsec UPDATE announcing `prefix` (IPv4 unicast, so in MP_REACH_NLRI with
/// `next_hop`, RFC 8205 §3) along the signed `path`: ORIGIN, MP_REACH_NLRI,
/// BGPsec_PATH.
pub fn bgpsec_update(
    path: hopsig_bgp::packet::BgpsecPath<'static>,
    prefix: hopsig_bgp::packet::Prefix,
    next_hop: hopsig_bgp::packet::NextHop,
) -> hopsig_bgp::packet::Update<'static> {
    use hopsig_bgp::packet::{AsWidth, AttributeValue, MpReachNlri, Origin, PathAttribute, Safi};
    let mp = MpReachNlri::new(Safi::Unicast, next_hop, vec![prefix]).unwrap();
    let attributes = [
        AttributeValue::Origin(Origin::Igp),
        AttributeValue::MpReachNlri(mp),
        AttributeValue::BgpsecPath(path),
    ]
    .into_iter()
    .map(|v| PathAttribute::new(v, AsWidth::Four).unwrap())
    .collect();
    hopsig_bgp::packet::Update {
        attributes,
        ..Default::default()
    }
}
