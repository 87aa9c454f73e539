//! MRT dumps (docs/spec/speaker.md, "MRT dumps"; GoBGP's `[[mrt-dump]]`): every
//! UPDATE received, on every session, as the octets received, in BGP4MP_ET
//! BGP4MP_MESSAGE_AS4 records with microseconds (RFC 6396 §3, §4.4.3), and
//! snapshots of Adj-RIB-In as TABLE_DUMP_V2 (RFC 6396 §4.3), in files named by
//! strftime patterns and rotated by time.
//!
//! Each connection's reader task holds a [`Tap`]: it copies each UPDATE (and notes the
//! peer's BGP Identifier from its OPEN) into a bounded channel, never waiting — when
//! the channel is full the message is dropped and counted
//! (`hopsig_speaker_mrt_dump_dropped_total`, and a log line). One thread, off the
//! RIB task and the runtime, drains it ([`Dumper`]): it appends the records and keeps
//! its own Adj-RIB-In (RFC 4271 §3.2: the routes received and not withdrawn, as
//! received, per connection, emptied when the connection ends), from which it writes
//! the snapshots. So neither the RIB task nor a session ever waits for a disk.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::format::{Item, StrftimeItems};
use hopsig_primitives::codec::{Reader, Writer};

use super::config::{Config, DumpType, MrtDump};
use crate::as4;
use crate::mrt::bgp4mp::Bgp4mpMessage;
use crate::mrt::table_dump_v2::{
    attribute, rib_attributes, PeerEntry, PeerIndexTable, RibEntry, RibRecord,
};
use crate::packet::{Action, AsWidth, AttrType, Prefix, Update, AS_TRANS};

/// Messages the channel holds: 65,536 UPDATEs (a few MiB of typical UPDATEs, at most
/// 4 GiB of 65,535-octet ones), seconds of a full-table burst.
pub const QUEUE: usize = 1 << 16;

/// Longest the dump thread sleeps between looks at the clock (rotation, the drop
/// count's log line).
const TICK: Duration = Duration::from_secs(1);

/// Octets of a BGP message header (RFC 4271 §4.1).
const BGP_HEADER: usize = 19;

/// Why the dumps cannot start.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    /// A dump file (or its folder) cannot be created.
    #[error("mrt_dump {}: {source}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The dump thread did not start.
    #[error("mrt_dump: cannot start the dump thread: {0}")]
    Thread(std::io::Error),
}

/// Whether `pattern` is a file name pattern hopsig can expand (chrono's strftime
/// specifiers: `%Y %m %d %H %M %S %s %j %%` …), and if so whether it holds a time
/// field (so that files of different periods get different names).
///
/// # Errors
/// The first specifier chrono does not know.
pub fn check_pattern(pattern: &str) -> Result<bool, String> {
    let mut timed = false;
    for item in StrftimeItems::new(pattern) {
        match item {
            Item::Error => {
                return Err(format!(
                "file_name '{pattern}' has a % specifier that is not strftime's (write %% for %)"
            ))
            }
            Item::Numeric(..) | Item::Fixed(..) => timed = true,
            _ => {}
        }
    }
    Ok(timed)
}

/// `pattern` expanded with the time `secs` (UTC); a pattern that does not expand is
/// taken as it is ([`check_pattern`] refuses those at load).
pub fn file_name(pattern: &Path, secs: u64) -> PathBuf {
    use std::fmt::Write as _;
    let text = pattern.to_string_lossy();
    let Some(at) = i64::try_from(secs)
        .ok()
        .and_then(|s| chrono::DateTime::<chrono::Utc>::from_timestamp(s, 0))
    else {
        return pattern.to_path_buf();
    };
    let mut out = String::new();
    match write!(out, "{}", at.format(&text)) {
        Ok(()) => PathBuf::from(out),
        Err(_) => pattern.to_path_buf(),
    }
}

/// One connection as the dumps see it: the session's two ends and ASes, the peer's
/// BGP Identifier once its OPEN came, and whether the connection has ended.
#[derive(Debug)]
pub struct Peer {
    /// Tells connections apart, in the order they opened.
    pub id: u64,
    /// The neighbour's address.
    pub peer_ip: IpAddr,
    /// This speaker's address on the connection (same family).
    pub local_ip: IpAddr,
    /// The neighbour's AS (configured).
    pub peer_as: u32,
    /// The local AS.
    pub local_as: u32,
    /// The BGP Identifier of the neighbour's OPEN, 0 until it came.
    bgp_id: AtomicU32,
    /// The connection ended: its routes are no longer in Adj-RIB-In.
    closed: AtomicBool,
}

impl Peer {
    /// A connection between `peer_ip` (AS `peer_as`) and `local_ip` (AS `local_as`);
    /// IPv4-mapped IPv6 addresses (a dual-stack listener's) are taken as IPv4 when both
    /// ends are.
    pub fn new(id: u64, peer_ip: IpAddr, local_ip: IpAddr, peer_as: u32, local_as: u32) -> Peer {
        let (p, l) = (peer_ip.to_canonical(), local_ip.to_canonical());
        let (peer_ip, local_ip) = if p.is_ipv4() == l.is_ipv4() {
            (p, l)
        } else {
            (peer_ip, local_ip)
        };
        Peer {
            id,
            peer_ip,
            local_ip,
            peer_as,
            local_as,
            bgp_id: AtomicU32::new(0),
            closed: AtomicBool::new(false),
        }
    }

    /// The BGP Identifier of the neighbour's OPEN (0.0.0.0 before it).
    pub fn bgp_id(&self) -> Ipv4Addr {
        Ipv4Addr::from(self.bgp_id.load(Ordering::Relaxed))
    }

    /// Marks the connection ended.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Relaxed);
    }

    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }
}

/// What the taps send the dump thread.
#[derive(Debug)]
pub enum Tapped {
    /// An UPDATE received on `peer` at `at`, its AS numbers `width` wide: the whole
    /// message, header included.
    Update {
        /// The connection.
        peer: Arc<Peer>,
        /// When it was read.
        at: SystemTime,
        /// The session's AS number width (RFC 6793).
        width: AsWidth,
        /// The message.
        message: Vec<u8>,
    },
    /// The neighbour's OPEN came on `peer`: it joins the PEER_INDEX_TABLE.
    Open(Arc<Peer>),
}

/// The speaker's end of the dumps: the channel, the local AS, connection numbers.
struct Sink {
    tx: SyncSender<Tapped>,
    local_as: u32,
    next_id: AtomicU64,
    dropped: Arc<AtomicU64>,
}

/// The dumps of this process, once [`spawn`] started them.
static SINK: OnceLock<Sink> = OnceLock::new();

/// Starts the dump thread of `config`'s `[[mrt_dump]]` tables (nothing without any),
/// after creating the first updates files, so that a file that cannot be written is
/// an error at start.
///
/// # Errors
/// [`DumpError`]: a file or folder that cannot be created, the thread not started.
pub fn spawn(config: &Config) -> Result<(), DumpError> {
    if config.mrt_dump.is_empty() || SINK.get().is_some() {
        return Ok(());
    }
    let (tx, rx) = mpsc::sync_channel(QUEUE);
    let dropped = Arc::new(AtomicU64::new(0));
    let mut dumper = Dumper::new(
        &config.mrt_dump,
        config.router_id,
        config.local_as,
        SystemTime::now(),
    )?;
    let seen = Arc::clone(&dropped);
    std::thread::Builder::new()
        .name("hopsig-mrt-dump".into())
        .spawn(move || dumper.run(&rx, &seen))
        .map_err(DumpError::Thread)?;
    let _ = SINK.set(Sink {
        tx,
        local_as: config.local_as,
        next_id: AtomicU64::new(1),
        dropped,
    });
    Ok(())
}

/// A connection's tap: what its reader task reads goes through [`Tap::received`].
/// Dropped with the reader task, it marks the connection ended.
#[derive(Debug)]
pub struct Tap {
    peer: Arc<Peer>,
    tx: SyncSender<Tapped>,
    dropped: Arc<AtomicU64>,
}

/// The tap of the connection `stream` with a neighbour of AS `remote_as`; `None`
/// when no dump runs.
pub fn tap(remote_as: u32, stream: &tokio::net::TcpStream) -> Option<Tap> {
    let sink = SINK.get()?;
    let (peer, local) = (stream.peer_addr().ok()?, stream.local_addr().ok()?);
    let id = sink.next_id.fetch_add(1, Ordering::Relaxed);
    Some(Tap {
        peer: Arc::new(Peer::new(
            id,
            peer.ip(),
            local.ip(),
            remote_as,
            sink.local_as,
        )),
        tx: sink.tx.clone(),
        dropped: Arc::clone(&sink.dropped),
    })
}

impl Tap {
    /// A whole message read from the neighbour, its AS numbers `width` wide: an
    /// UPDATE is queued for the dumps, an OPEN gives the neighbour's BGP Identifier;
    /// nothing waits.
    pub fn received(&self, message: &[u8], width: AsWidth) {
        let send = match message.get(BGP_HEADER - 1) {
            Some(1) => {
                // OPEN: Version (1), My AS (2), Hold Time (2), BGP Identifier (4).
                if let Some(id) = message.get(BGP_HEADER + 5..BGP_HEADER + 9) {
                    let id = u32::from_be_bytes([id[0], id[1], id[2], id[3]]);
                    self.peer.bgp_id.store(id, Ordering::Relaxed);
                }
                Tapped::Open(Arc::clone(&self.peer))
            }
            Some(2) => Tapped::Update {
                peer: Arc::clone(&self.peer),
                at: SystemTime::now(),
                width,
                message: message.to_vec(),
            },
            _ => return,
        };
        if let Err(TrySendError::Full(_)) = self.tx.try_send(send) {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            metrics::counter!("hopsig_speaker_mrt_dump_dropped_total").increment(1);
        }
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        self.peer.close();
    }
}

/// Seconds and microseconds since 1970 of `t` (0 before it).
fn since_epoch(t: SystemTime) -> (u64, u32) {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    (d.as_secs(), d.subsec_micros())
}

/// The MRT timestamp of `secs`: 32 bits, as RFC 6396 §2 has it (until 2106).
fn stamp(secs: u64) -> u32 {
    u32::try_from(secs).unwrap_or(u32::MAX)
}

/// The start of the period of length `every` seconds that holds `secs`.
fn period_start(secs: u64, every: u64) -> u64 {
    secs - secs % every.max(1)
}

/// An updates dump's open file.
struct Open {
    path: PathBuf,
    out: BufWriter<File>,
}

/// One `[[mrt_dump]]` and where it stands.
struct Dump {
    config: MrtDump,
    /// `updates`: the file being written and the end of its period (`None`: no
    /// rotation).
    file: Option<Open>,
    until: Option<u64>,
    /// `table`: when the next snapshot is due.
    next_table: u64,
}

/// A route of the dumps' Adj-RIB-In: when it came, and its RIB entry attributes.
#[derive(Debug, Clone)]
struct Held {
    originated: u32,
    attributes: Arc<[u8]>,
}

/// The dump thread's state: the dumps and its Adj-RIB-In. Its methods take the time,
/// so that tests drive it without a clock.
pub struct Dumper {
    dumps: Vec<Dump>,
    collector_id: Ipv4Addr,
    /// The local AS, named in the PEER_INDEX_TABLE's View Name (`AS<n>`).
    local_as: u32,
    /// Adj-RIB-In by connection, in the order they opened (kept only for table
    /// dumps).
    rib: BTreeMap<u64, (Arc<Peer>, HashMap<Prefix, Held>)>,
    tables: bool,
    /// Drops already logged.
    logged_drops: u64,
}

impl Dumper {
    /// The dumps of `configs` for a collector of BGP Identifier `collector_id` in AS
    /// `local_as`, starting at `now`: each updates dump's first file is created.
    ///
    /// # Errors
    /// [`DumpError::File`] for a file that cannot be created.
    pub fn new(
        configs: &[MrtDump],
        collector_id: Ipv4Addr,
        local_as: u32,
        now: SystemTime,
    ) -> Result<Dumper, DumpError> {
        let (secs, _) = since_epoch(now);
        let mut dumps = vec![];
        for c in configs {
            let mut d = Dump {
                config: c.clone(),
                file: None,
                until: None,
                next_table: period_start(secs, c.dump_interval) + c.dump_interval,
            };
            if c.dump_type == DumpType::Updates {
                d.open_period(secs)?;
            } else if let Some(dir) = file_name(&c.file_name, secs).parent() {
                std::fs::create_dir_all(dir).map_err(|source| DumpError::File {
                    path: dir.to_path_buf(),
                    source,
                })?;
            }
            dumps.push(d);
        }
        Ok(Dumper {
            tables: dumps.iter().any(|d| d.config.dump_type == DumpType::Table),
            dumps,
            collector_id,
            local_as,
            rib: BTreeMap::new(),
            logged_drops: 0,
        })
    }

    /// Drains `rx` until every sender is gone; `dropped` is the taps' drop count.
    fn run(&mut self, rx: &Receiver<Tapped>, dropped: &AtomicU64) {
        loop {
            match rx.recv_timeout(TICK) {
                Ok(m) => {
                    self.take(m);
                    // Whatever else waits, then one flush for the lot.
                    while let Ok(m) = rx.try_recv() {
                        self.take(m);
                    }
                    self.flush();
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
            self.tick(SystemTime::now());
            let drops = dropped.load(Ordering::Relaxed);
            if drops > self.logged_drops {
                tracing::warn!(
                    event = "mrt_dump_dropped",
                    dropped = drops - self.logged_drops,
                    total = drops,
                    "hopsig speaker: MRT dump queue full: {} UPDATEs not dumped ({drops} in all)",
                    drops - self.logged_drops
                );
                self.logged_drops = drops;
            }
        }
    }

    /// One message from a tap.
    pub fn take(&mut self, m: Tapped) {
        match m {
            Tapped::Open(peer) => {
                if self.tables {
                    self.rib
                        .entry(peer.id)
                        .or_insert_with(|| (peer, HashMap::new()));
                }
            }
            Tapped::Update {
                peer,
                at,
                width,
                message,
            } => self.update(&peer, at, width, &message),
        }
    }

    /// An UPDATE received on `peer` at `at`: rotates what is due, appends its record
    /// to every updates dump, and applies it to the Adj-RIB-In.
    pub fn update(&mut self, peer: &Arc<Peer>, at: SystemTime, width: AsWidth, message: &[u8]) {
        let (secs, micros) = since_epoch(at);
        self.rotate(secs);
        let wide = |asn: u32| match width {
            AsWidth::Four => asn,
            AsWidth::Two => u32::from(u16::try_from(asn).unwrap_or(AS_TRANS)),
        };
        let record = Bgp4mpMessage {
            timestamp: stamp(secs),
            microseconds: Some(micros),
            width,
            local: false,
            peer_as: wide(peer.peer_as),
            local_as: wide(peer.local_as),
            interface_index: 0,
            peer_ip: peer.peer_ip,
            local_ip: peer.local_ip,
            message,
        };
        let mut w = Writer::with_capacity(message.len() + 64);
        match record.encode(&mut w) {
            Ok(()) => {
                let bytes = w.into_bytes();
                for d in &mut self.dumps {
                    if let Some(f) = d.file.as_mut() {
                        if let Err(e) = f.out.write_all(&bytes) {
                            failed(&f.path, &e);
                        } else {
                            metrics::counter!("hopsig_speaker_mrt_dump_records_total", "type" => "bgp4mp_et").increment(1);
                        }
                    }
                }
            }
            Err(e) => tracing::warn!(
                "hopsig speaker: MRT dump: an UPDATE from {} not dumped: {e}",
                peer.peer_ip
            ),
        }
        if self.tables {
            self.apply(peer, stamp(secs), width, message);
        }
    }

    /// Applies an UPDATE to the Adj-RIB-In: its withdrawals, then its routes, each
    /// with the RIB entry attributes ([`rib_attributes`]). A malformed one is what RFC
    /// 7606 makes of it: treat-as-withdraw withdraws its routes, attribute discard keeps
    /// them (as received), a session reset changes nothing (the session ends).
    fn apply(&mut self, peer: &Arc<Peer>, originated: u32, width: AsWidth, message: &[u8]) {
        let Some(body) = message.get(BGP_HEADER..) else {
            return;
        };
        let (update, withdraw_only) = match Update::decode(body, width) {
            Ok(u) => (u, false),
            Err(e) => match (e.action(), e.salvage()) {
                (Action::SessionReset, _) | (_, None) => return,
                (Action::TreatAsWithdraw, Some(u)) => (u.clone(), true),
                (Action::AttributeDiscard, Some(u)) => (u.clone(), false),
            },
        };
        let routes = &mut self
            .rib
            .entry(peer.id)
            .or_insert_with(|| (Arc::clone(peer), HashMap::new()))
            .1;
        for p in update.withdrawn_all() {
            routes.remove(&p);
        }
        if withdraw_only {
            for p in update.announced() {
                routes.remove(&p);
            }
            return;
        }
        if update.announced().next().is_none() {
            return;
        }
        let Some(attributes) = path_attributes(body)
            .and_then(|raw| rib_attributes(raw, &|t| four_octet(&update, width, t)).ok())
        else {
            return;
        };
        let held = Held {
            originated,
            attributes: attributes.into(),
        };
        for p in update.announced() {
            routes.insert(p, held.clone());
        }
    }

    /// Closes the updates files whose period ended by `secs` and opens the next.
    fn rotate(&mut self, secs: u64) {
        for d in &mut self.dumps {
            if d.until.is_some_and(|end| secs >= end) {
                let old = d.file.take();
                if let Some(mut f) = old {
                    if let Err(e) = f.out.flush() {
                        failed(&f.path, &e);
                    }
                }
                match d.open_period(secs) {
                    Ok(()) => {
                        if let Some(f) = &d.file {
                            tracing::info!(
                                event = "mrt_dump_rotated",
                                dump_type = "updates",
                                file = %f.path.display(),
                                "hopsig speaker: MRT updates dump now in {}",
                                f.path.display()
                            );
                        }
                    }
                    Err(e) => {
                        metrics::counter!("hopsig_speaker_mrt_dump_errors_total").increment(1);
                        tracing::warn!("hopsig speaker: {e}");
                    }
                }
            }
        }
    }

    /// What is due at `now`: rotations and table snapshots.
    pub fn tick(&mut self, now: SystemTime) {
        let (secs, _) = since_epoch(now);
        self.rotate(secs);
        if !self.tables
            || !self
                .dumps
                .iter()
                .any(|d| d.is_table() && secs >= d.next_table)
        {
            return;
        }
        self.rib.retain(|_, (peer, _)| !peer.is_closed());
        for i in 0..self.dumps.len() {
            let d = &self.dumps[i];
            if !d.is_table() || secs < d.next_table {
                continue;
            }
            let due = period_start(secs, d.config.dump_interval);
            let path = file_name(&d.config.file_name, due);
            match self.write_table(&path, stamp(secs)) {
                Ok(records) => {
                    metrics::counter!("hopsig_speaker_mrt_dump_records_total", "type" => "table_dump_v2").increment(records);
                    tracing::info!(
                        event = "mrt_dump_rotated",
                        dump_type = "table",
                        file = %path.display(),
                        records,
                        "hopsig speaker: MRT table dump {} written ({records} records)",
                        path.display()
                    );
                }
                Err(e) => failed(&path, &e),
            }
            self.dumps[i].next_table = due + self.dumps[i].config.dump_interval;
        }
    }

    /// Writes the Adj-RIB-In to `path` as TABLE_DUMP_V2, every record stamped
    /// `timestamp`: a PEER_INDEX_TABLE of the connections whose OPEN came (View Name
    /// `AS<local AS>`), then one
    /// RIB record per prefix (IPv4 first, each family in prefix order), its entries
    /// in peer order. Written to `path.tmp` and renamed, so that no reader sees half a
    /// snapshot. Returns the records written.
    fn write_table(&self, path: &Path, timestamp: u32) -> std::io::Result<u64> {
        let invalid = |e: hopsig_primitives::codec::EncodeError| {
            std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string())
        };
        let peers: Vec<&(Arc<Peer>, HashMap<Prefix, Held>)> = self
            .rib
            .values()
            .filter(|(p, _)| !p.is_closed())
            .take(usize::from(u16::MAX))
            .collect();
        let table = PeerIndexTable {
            collector_id: self.collector_id,
            // The AS that received the routes: the target of their newest signature
            // (RFC 8205 §4.2), which `validate-mrt` needs and TABLE_DUMP_V2 has no
            // field for.
            view_name: format!("AS{}", self.local_as),
            peers: peers
                .iter()
                .map(|(p, _)| PeerEntry {
                    bgp_id: p.bgp_id(),
                    ip: p.peer_ip,
                    asn: p.peer_as,
                })
                .collect(),
        };
        let mut by_prefix: BTreeMap<(bool, Prefix), Vec<(u16, &Held)>> = BTreeMap::new();
        for (index, (_, routes)) in peers.iter().enumerate() {
            for (p, held) in routes {
                by_prefix
                    .entry((p.afi() != crate::packet::Afi::Ipv4, *p))
                    .or_default()
                    .push((index as u16, held));
            }
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let mut out = BufWriter::new(File::create(&tmp)?);
        let mut w = Writer::new();
        table.encode(timestamp, &mut w).map_err(invalid)?;
        out.write_all(&w.into_bytes())?;
        let mut records = 1u64;
        for (sequence, ((_, prefix), entries)) in by_prefix.into_iter().enumerate() {
            let rib = RibRecord {
                sequence: sequence as u32,
                prefix,
                entries: entries
                    .iter()
                    .map(|(peer_index, h)| RibEntry {
                        peer_index: *peer_index,
                        originated: h.originated,
                        attributes: &h.attributes,
                    })
                    .collect(),
            };
            let mut w = Writer::new();
            rib.encode(timestamp, &mut w).map_err(invalid)?;
            out.write_all(&w.into_bytes())?;
            records += 1;
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)?;
        metrics::counter!("hopsig_speaker_mrt_dump_files_total", "dump_type" => "table")
            .increment(1);
        Ok(records)
    }

    /// Flushes every open updates file.
    pub fn flush(&mut self) {
        for d in &mut self.dumps {
            if let Some(f) = d.file.as_mut() {
                if let Err(e) = f.out.flush() {
                    failed(&f.path, &e);
                }
            }
        }
    }
}

impl Dump {
    fn is_table(&self) -> bool {
        self.config.dump_type == DumpType::Table
    }

    /// Opens the updates file of the period holding `secs` (appending, so that a
    /// restart within a period keeps what was written).
    fn open_period(&mut self, secs: u64) -> Result<(), DumpError> {
        let every = self.config.rotation_interval;
        let start = if every == 0 {
            secs
        } else {
            period_start(secs, every)
        };
        let path = file_name(&self.config.file_name, start);
        let err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| DumpError::File { path, source }
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(err(dir))?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(err(&path))?;
        metrics::counter!("hopsig_speaker_mrt_dump_files_total", "dump_type" => "updates")
            .increment(1);
        self.file = Some(Open {
            path,
            out: BufWriter::new(file),
        });
        self.until = (every != 0).then_some(start + every);
        Ok(())
    }
}

/// A write that failed: logged and counted; the dump goes on.
fn failed(path: &Path, e: &std::io::Error) {
    metrics::counter!("hopsig_speaker_mrt_dump_errors_total").increment(1);
    tracing::warn!("hopsig speaker: MRT dump {}: {e}", path.display());
}

/// The Path Attributes field of an UPDATE body.
fn path_attributes(body: &[u8]) -> Option<&[u8]> {
    let mut r = Reader::new(body);
    r.u16_prefixed("Withdrawn Routes").ok()?;
    r.u16_prefixed("Path Attributes").ok()
}

/// For a 2-octet session, the attributes RFC 6396 §4.3.4 wants with 4-octet AS
/// numbers: AS_PATH (merged with AS4_PATH, RFC 6793 §4.2.3) and AGGREGATOR rewritten,
/// AS4_PATH and AS4_AGGREGATOR left out. Nothing changes on a 4-octet session.
fn four_octet(update: &Update<'_>, width: AsWidth, type_code: u8) -> Option<Option<Vec<u8>>> {
    if width == AsWidth::Four {
        return None;
    }
    let t = AttrType::try_from(type_code).ok()?;
    let received = as4::received(update, width);
    match t {
        AttrType::AsPath => {
            let mut w = Writer::new();
            Some(
                received
                    .as_path
                    .encode(&mut w, AsWidth::Four)
                    .ok()
                    .map(|()| attribute(0x40, type_code, &w.into_bytes())),
            )
        }
        AttrType::Aggregator => Some(received.aggregator.map(|a| {
            let mut v = a.asn.to_be_bytes().to_vec();
            v.extend(a.address.octets());
            attribute(0xc0, type_code, &v)
        })),
        AttrType::As4Path | AttrType::As4Aggregator => Some(None),
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
