//! The status file (docs/spec/speaker.md, "Status file"): whenever something
//! changed, at most twice a second, the RIB task takes a snapshot ([`to_json`], its
//! route lists cut at `status_routes`) and hands it to the writer thread
//! ([`Writer`]), which serialises it, cuts the route lists further to fit
//! `status_max_bytes`, and writes it (to a temporary file, then renamed), so that
//! serialising and disk I/O never hold up routing. A snapshot is taken only while
//! the writer is idle, and after one that cost T (snapshot and write) not again
//! before 20·T, so that the status file never takes more than a twentieth of the
//! time; `hopsig speaker status` reads it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hopsig_primitives::persist::with_suffix;

use crate::packet::{AsPath, AsPathSegmentType};
use serde_json::{json, Value};

use crate::packet::Prefix;

use super::rib::{Advert, NotValidEntry, Rib, Route, Session, Source};

/// Format version of the status file (3: ROV, ASPA and the RPKI view added; 4: the
/// address families, prefix limits, LOCAL_PREF, MED, filtering and the signature
/// cache added; 5: `status_write` and `status_truncated` added).
pub const VERSION: u32 = 5;

/// Default `status_max_bytes`: 64 MiB, well above what the default `status_routes`
/// (10,000 per list) makes.
pub const DEFAULT_MAX_BYTES: usize = 64 << 20;

/// How often the status file is rewritten, at most.
pub const EVERY: Duration = Duration::from_millis(500);

/// The lists cut to fit `status_max_bytes`.
const LISTS: [&str; 4] = ["adj_rib_in", "adj_rib_out", "originated", "not_valid"];

/// `65002 65001 {65003,65004}`: sequences as numbers, sets in braces.
pub fn as_path_text(p: &AsPath) -> String {
    p.segments
        .iter()
        .map(|s| {
            let asns: Vec<String> = s.asns.iter().map(u32::to_string).collect();
            match s.kind {
                AsPathSegmentType::AsSequence => asns.join(" "),
                AsPathSegmentType::AsSet => format!("{{{}}}", asns.join(",")),
                AsPathSegmentType::AsConfedSequence => format!("({})", asns.join(" ")),
                AsPathSegmentType::AsConfedSet => format!("[{}]", asns.join(",")),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// How many of `prefixes` are IPv6 ones.
fn ipv6_count<'a>(prefixes: impl Iterator<Item = &'a crate::packet::Prefix>) -> usize {
    prefixes
        .filter(|p| p.afi() == crate::packet::Afi::Ipv6)
        .count()
}

/// The status of `rib` as JSON, each route list cut at `max_routes` entries (the
/// counts beside them are whole).
pub fn to_json(rib: &Rib, router_id: &str, max_routes: usize) -> Value {
    let sessions: Vec<Value> = (0..rib.sessions.len())
        // Neighbours removed by a reload are tombstones, shown nowhere.
        .filter(|i| !rib.removed.contains(i))
        .map(|i| session_json(rib, i))
        .collect();
    let adj_in: Vec<Value> = rib
        .sessions
        .iter()
        .enumerate()
        .flat_map(|(i, s)| s.adj_in.iter().map(move |(p, r)| (i, p, r)))
        .take(max_routes)
        .map(|(i, p, r)| adj_in_json(rib, i, p, r))
        .collect();
    let adj_out: Vec<Value> = rib
        .sessions
        .iter()
        .flat_map(|s| s.adj_out.iter().map(move |(p, a)| (s, p, a)))
        .take(max_routes)
        .map(|(s, p, a)| adj_out_json(s, p, a))
        .collect();
    let not_valid: Vec<Value> = rib.not_valid.iter().map(not_valid_json).collect();
    let rpki = rpki_json(rib);
    json!({
        "version": VERSION,
        "local_as": rib.local_as,
        "router_id": router_id,
        "mode": rib.mode.name(),
        "originated": rib.local.iter().take(max_routes).map(ToString::to_string).collect::<Vec<_>>(),
        "originated_count": rib.local.len(),
        "sessions": sessions,
        "adj_rib_in": adj_in,
        "adj_rib_in_count": rib.sessions.iter().map(|s| s.adj_in.len()).sum::<usize>(),
        "adj_rib_out": adj_out,
        "adj_rib_out_count": rib.sessions.iter().map(|s| s.adj_out.len()).sum::<usize>(),
        "adj_rib_in_ipv6_count": ipv6_count(rib.sessions.iter().flat_map(|s| s.adj_in.keys())),
        "adj_rib_out_ipv6_count": ipv6_count(rib.sessions.iter().flat_map(|s| s.adj_out.keys())),
        "validation_queue": rib.queue,
        "signing_queue": rib.signing,
        "not_valid_total": rib.not_valid_total,
        "not_valid": not_valid,
        "rpki": rpki,
        "metrics": {
            "time_to_forward": rib.time_to_forward.to_json(),
            "time_to_validate": rib.time_to_validate.to_json(),
        },
        "signature_cache": rib.signature_cache().to_json(),
    })
}

/// Session `i` of `rib`: an entry of the status file's `sessions` (and of the HTTP
/// API's `/neighbors`).
pub fn session_json(rib: &Rib, i: usize) -> Value {
    let Some(s) = rib.sessions.get(i) else {
        return Value::Null;
    };
    json!({
        "address": s.address,
        "remote_as": s.remote_as,
        "state": s.state.name(),
        "bgpsec": s.up.as_ref().map(|u| u.bgpsec_send),
        "updates_in": s.updates_in,
        "updates_out": s.updates_out,
        "last_error": s.last_error,
        "out_queue_bytes": s.up.as_ref().map(|u| u.tx.queued_bytes()),
        "out_held_back": s.up.as_ref().map(|u| u.tx.held_back()),
        "families": s.up.as_ref().map(|u| u.afis.names()),
        "bgpsec_ipv6": s.up.as_ref().map(|u| u.afis.bgpsec_send6),
        "accepted_prefixes": rib.accepted(i),
        "max_prefixes": rib.rules(i).max_prefixes.map(|m| m.limit),
    })
}

/// The route `r` of `p` in session `i`'s Adj-RIB-In: an entry of `adj_rib_in`.
pub fn adj_in_json(rib: &Rib, i: usize, p: &Prefix, r: &Route) -> Value {
    json!({
        "neighbor": rib.sessions.get(i).map(|s| s.address.as_str()),
        "prefix": p.to_string(),
        "as_path": as_path_text(&r.as_path),
        "bgpsec": r.bgpsec.is_some(),
        "validation": r.state.name(),
        "revalidating": r.revalidating,
        "rov": r.rov.state.name(),
        "rov_reason": r.rov.reason,
        "aspa": r.aspa.state.name(),
        "aspa_reason": r.aspa.reason,
        "installed": rib.best(p) == Some(Source::Neighbor(i, r.seq)),
        "local_pref": r.local_pref,
        "med": r.med,
        "filtered": r.filtered,
    })
}

/// The advert `a` of `p` to session `s`: an entry of `adj_rib_out`.
pub fn adj_out_json(s: &Session, p: &Prefix, a: &Advert) -> Value {
    json!({
        "neighbor": s.address,
        "prefix": p.to_string(),
        "as_path": as_path_text(&a.as_path),
        "bgpsec": a.bgpsec,
    })
}

/// A route withdrawn for Not Valid: an entry of `not_valid`.
pub fn not_valid_json(e: &NotValidEntry) -> Value {
    json!({
        "neighbor": e.neighbor,
        "prefix": e.prefix.to_string(),
        "reason": e.reason,
        "withdrawn_from": e.withdrawn_from,
    })
}

/// The RPKI view in force and the caches: the status file's `rpki`.
pub fn rpki_json(rib: &Rib) -> Value {
    let (vrps, router_keys, aspas) = rib.view.payload().counts();
    json!({
        "generation": rib.generation,
        "vrps": vrps,
        "router_keys": router_keys,
        "aspas": aspas,
        "caches": rib.caches,
        "revalidations_pending": rib.walks.len(),
        "last_revalidation": rib.last_walk.map(|d| json!({
            "generation": d.generation,
            "routes": d.routes,
            "bgpsec_jobs": d.bgpsec_jobs,
            "verdicts_changed": d.verdicts_changed,
            "ms": d.took.as_secs_f64() * 1e3,
        })),
    })
}

/// `value` as the status file's text, its route lists ([`LISTS`]) cut until it is
/// at most `max` bytes (or they are empty); `status_truncated` says how far: `null`,
/// or the byte cap and how many entries each list kept. Whether it was cut.
pub fn render(mut value: Value, max: usize) -> (String, bool) {
    value["status_truncated"] = Value::Null;
    let mut text = format!("{value:#}\n");
    if text.len() <= max {
        return (text, false);
    }
    // First cut in proportion to the excess (less a tenth for the rest of the
    // file), then halve until it fits: a few serialisations at most.
    let mut scale = max as f64 / text.len() as f64 * 0.9;
    loop {
        let mut listed = serde_json::Map::new();
        for list in LISTS {
            if let Some(a) = value.get_mut(list).and_then(Value::as_array_mut) {
                let keep = (a.len() as f64 * scale) as usize;
                a.truncate(keep);
                listed.insert(list.into(), json!(a.len()));
            }
        }
        let empty = listed.values().all(|n| n == 0);
        value["status_truncated"] = json!({ "max_bytes": max, "listed": listed });
        text = format!("{value:#}\n");
        if text.len() <= max || empty {
            return (text, true);
        }
        scale = 0.5;
    }
}

/// What the writer thread and the RIB task share.
#[derive(Debug, Default)]
struct Shared {
    /// A snapshot is being written: the RIB takes no new one.
    busy: AtomicBool,
    /// The last write failed: the RIB takes a new snapshot at the next tick.
    failed: AtomicBool,
    /// Nanoseconds the last write took (serialising and writing).
    write_ns: AtomicU64,
}

/// A snapshot for the writer thread.
struct Snapshot {
    value: Value,
    took: Duration,
}

/// The status file's writer: a thread that serialises and writes the RIB task's
/// snapshots, one at a time.
pub struct Writer {
    tx: std::sync::mpsc::SyncSender<Snapshot>,
    shared: Arc<Shared>,
    next: Instant,
}

impl Writer {
    /// Starts the thread that writes `path`, at most `max_bytes` long.
    ///
    /// # Errors
    /// The thread cannot be started.
    pub fn spawn(path: PathBuf, max_bytes: usize) -> std::io::Result<Writer> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Snapshot>(1);
        let shared = Arc::new(Shared::default());
        let theirs = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("hopsig-status".into())
            .spawn(move || {
                let mut writes = Writes::default();
                // Ends when the RIB task's end is dropped.
                while let Ok(s) = rx.recv() {
                    let ok = writes.write_snapshot(&path, s, max_bytes);
                    theirs.failed.store(!ok, Ordering::Relaxed);
                    theirs.write_ns.store(writes.last_ns, Ordering::Relaxed);
                    theirs.busy.store(false, Ordering::Release);
                }
            })?;
        Ok(Writer {
            tx,
            shared,
            next: Instant::now(),
        })
    }

    /// At a status tick, on the RIB task: hands the writer a snapshot of `rib`
    /// when something changed (`dirty`), the writer is idle and the pacing allows;
    /// whether something is still to write.
    pub fn tick(&mut self, dirty: bool, rib: &Rib, router_id: &str, max_routes: usize) -> bool {
        let dirty = dirty || self.shared.failed.swap(false, Ordering::Relaxed);
        let started = Instant::now();
        if !dirty || started < self.next || self.shared.busy.load(Ordering::Acquire) {
            return dirty;
        }
        let value = to_json(rib, router_id, max_routes);
        let took = started.elapsed();
        metrics::histogram!(super::metrics::names::STATUS_SNAPSHOT).record(took.as_secs_f64());
        self.shared.busy.store(true, Ordering::Release);
        if self.tx.try_send(Snapshot { value, took }).is_err() {
            // The thread is gone (it panicked): nothing more is written.
            self.shared.busy.store(false, Ordering::Release);
            return true;
        }
        let wrote = Duration::from_nanos(self.shared.write_ns.load(Ordering::Relaxed));
        self.next = started + ((took + wrote) * 20).max(EVERY);
        false
    }
}

/// The status file's writes: those that failed counted, logged when a run of
/// failures starts and ends (not at each try); the last one's cost.
#[derive(Debug, Default)]
pub struct Writes {
    /// Failed writes since the speaker started (`status_write_failures`).
    pub failed: u64,
    /// Failed writes since the last good one.
    run: u64,
    /// Nanoseconds the last write took, serialising included.
    pub last_ns: u64,
    /// Bytes of the last file written.
    pub last_bytes: u64,
}

impl Writes {
    /// Writes snapshot `s` to `path`, at most `max_bytes` long, with its cost and
    /// the last write's added; whether it was written.
    fn write_snapshot(&mut self, path: &Path, s: Snapshot, max_bytes: usize) -> bool {
        let started = Instant::now();
        let mut value = s.value;
        value["status_write"] = json!({
            "snapshot_ms": s.took.as_secs_f64() * 1e3,
            "last_write_ms": self.last_ns as f64 / 1e6,
            "last_bytes": self.last_bytes,
            "max_bytes": max_bytes,
        });
        value["status_write_failures"] = json!(self.failed);
        let (text, truncated) = render(value, max_bytes);
        if truncated {
            metrics::counter!(super::metrics::names::STATUS_TRUNCATED).increment(1);
        }
        let ok = self.write_text(path, &text);
        let took = started.elapsed();
        self.last_ns = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        metrics::histogram!(super::metrics::names::STATUS_WRITE).record(took.as_secs_f64());
        if ok {
            self.last_bytes = text.len() as u64;
            metrics::gauge!(super::metrics::names::STATUS_BYTES).set(text.len() as f64);
        }
        ok
    }

    /// Writes `value`, with `status_write_failures` added, to `path`; whether it
    /// was written.
    pub fn write(&mut self, path: &Path, mut value: Value) -> bool {
        value["status_write_failures"] = json!(self.failed);
        self.write_text(path, &format!("{value:#}\n"))
    }

    /// Writes `text` to `path`; whether it was written.
    fn write_text(&mut self, path: &Path, text: &str) -> bool {
        match write_text(path, text) {
            Ok(()) => {
                if self.run > 0 {
                    tracing::info!(
                        "hopsig speaker: status file {} written again after {} failed tries",
                        path.display(),
                        self.run
                    );
                    self.run = 0;
                }
                true
            }
            Err(e) => {
                if self.run == 0 {
                    tracing::info!(
                        "hopsig speaker: status file {}: {e}; the speaker carries on and tries again",
                        path.display()
                    );
                }
                self.run += 1;
                self.failed += 1;
                metrics::counter!(super::metrics::names::STATUS_WRITE_FAILURES).increment(1);
                false
            }
        }
    }
}

/// Writes `value` to `path` through a temporary file and a rename, so a reader
/// never sees half a file; a failed write leaves no temporary file behind.
pub fn write(path: &Path, value: &Value) -> std::io::Result<()> {
    write_text(path, &format!("{value:#}\n"))
}

/// Writes `text` to `path` as [`write`] does.
fn write_text(path: &Path, text: &str) -> std::io::Result<()> {
    let tmp = with_suffix(path, ".tmp");
    let written = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        // Half written (a full disk) or not renamed: of no use, and it would
        // hold the disk space until the next write succeeds.
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// Review of issue 22 §2: the temporary file of a write that fails — the disk
    /// full (a temporary file that leads to /dev/full), or the rename refused (a
    /// folder where the status file goes) — is removed.
    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let full = dir.path().join("full.json");
        let tmp = with_suffix(&full, ".tmp");
        std::os::unix::fs::symlink("/dev/full", &tmp).unwrap();
        assert!(write(&full, &json!({"a": 1})).is_err());
        assert!(tmp.symlink_metadata().is_err(), "{} kept", tmp.display());
        let folder = dir.path().join("folder.json");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("x"), "x").unwrap();
        assert!(write(&folder, &json!({"a": 1})).is_err());
        let tmp = with_suffix(&folder, ".tmp");
        assert!(tmp.symlink_metadata().is_err(), "{} kept", tmp.display());
        // And a write that works leaves the file only.
        let good = dir.path().join("good.json");
        write(&good, &json!({"a": 1})).unwrap();
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["folder.json", "good.json"]);
    }

    /// Issue 26 §1: a status file over `status_max_bytes` has its route lists cut
    /// until it fits, and says so; one under it is whole, `status_truncated` null.
    #[test]
    fn render_cuts_route_lists_to_the_byte_cap() {
        let routes: Vec<Value> = (0..1000)
            .map(|i| json!({"neighbor": "192.0.2.1", "prefix": format!("10.0.{}.0/24", i % 256)}))
            .collect();
        let value = json!({
            "version": VERSION,
            "adj_rib_in": routes,
            "adj_rib_in_count": 1000,
            "adj_rib_out": routes,
            "originated": ["10.0.0.0/8"],
            "not_valid": [],
        });
        let (whole, cut) = render(value.clone(), usize::MAX);
        assert!(!cut);
        let v: Value = serde_json::from_str(&whole).unwrap();
        assert!(v["status_truncated"].is_null());
        assert_eq!(v["adj_rib_in"].as_array().unwrap().len(), 1000);
        let max = whole.len() / 5;
        let (text, cut) = render(value.clone(), max);
        assert!(cut);
        assert!(text.len() <= max, "{} > {max}", text.len());
        let v: Value = serde_json::from_str(&text).unwrap();
        let kept = v["adj_rib_in"].as_array().unwrap().len();
        assert!(kept > 0 && kept < 1000, "{kept}");
        assert_eq!(v["status_truncated"]["max_bytes"], max);
        assert_eq!(v["status_truncated"]["listed"]["adj_rib_in"], kept);
        assert_eq!(v["adj_rib_in_count"], 1000, "the counts stay whole");
        // A cap nothing fits under: every list emptied, the rest written.
        let (text, cut) = render(value, 10);
        assert!(cut);
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["adj_rib_in"], json!([]));
        assert_eq!(v["version"], VERSION);
    }

    /// The writer thread writes a snapshot with its cost; the RIB side is told
    /// when a write failed, so that it takes a new snapshot.
    #[test]
    fn writer_writes_off_thread_and_reports_failures() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("status.json");
        let w = Writer::spawn(path.clone(), DEFAULT_MAX_BYTES).unwrap();
        let send = |value: Value| {
            while w.shared.busy.load(Ordering::Acquire) {
                std::thread::sleep(Duration::from_millis(5));
            }
            w.shared.busy.store(true, Ordering::Release);
            w.tx.send(Snapshot {
                value,
                took: Duration::from_micros(7),
            })
            .unwrap();
            while w.shared.busy.load(Ordering::Acquire) {
                std::thread::sleep(Duration::from_millis(5));
            }
        };
        send(json!({"version": VERSION}));
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["status_write"]["snapshot_ms"], 0.007);
        assert_eq!(v["status_write"]["last_bytes"], 0);
        assert_eq!(v["status_write_failures"], 0);
        assert!(!w.shared.failed.load(Ordering::Relaxed));
        send(json!({"version": VERSION}));
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert!(v["status_write"]["last_bytes"].as_u64().unwrap() > 0);
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("x"), "x").unwrap();
        send(json!({"version": VERSION}));
        assert!(w.shared.failed.load(Ordering::Relaxed));
    }
}
