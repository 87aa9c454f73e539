//! The status file (docs/spec/speaker.md, "Status file"): the RIB task rewrites it
//! (to a temporary file, then renamed) whenever something changed, at most twice a
//! second and less often when writing it takes long (a full table), so that it
//! never takes more than a twentieth of the RIB task's time; `hopsig speaker status`
//! reads it.

use std::path::Path;

use hopsig_primitives::persist::with_suffix;

use crate::packet::{AsPath, AsPathSegmentType};
use serde_json::{json, Value};

use super::rib::{Rib, Source};

/// Format version of the status file (3: ROV, ASPA and the RPKI view added; 4: the
/// address families, prefix limits, LOCAL_PREF, MED, filtering and the signature
/// cache added).
pub const VERSION: u32 = 4;

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
    let sessions: Vec<Value> = rib
        .sessions
        .iter()
        .enumerate()
        // Neighbours removed by a reload are tombstones, shown nowhere.
        .filter(|(i, _)| !rib.removed.contains(i))
        .map(|(i, s)| {
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
        })
        .collect();
    let adj_in: Vec<Value> = rib
        .sessions
        .iter()
        .enumerate()
        .flat_map(|(i, s)| s.adj_in.iter().map(move |(p, r)| (i, s, p, r)))
        .take(max_routes)
        .map(|(i, s, p, r)| {
            json!({
                "neighbor": s.address,
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
        })
        .collect();
    let adj_out: Vec<Value> = rib
        .sessions
        .iter()
        .flat_map(|s| s.adj_out.iter().map(move |(p, a)| (s, p, a)))
        .take(max_routes)
        .map(|(s, p, a)| {
            json!({
                "neighbor": s.address,
                "prefix": p.to_string(),
                "as_path": as_path_text(&a.as_path),
                "bgpsec": a.bgpsec,
            })
        })
        .collect();
    let not_valid: Vec<Value> = rib
        .not_valid
        .iter()
        .map(|e| {
            json!({
                "neighbor": e.neighbor,
                "prefix": e.prefix.to_string(),
                "reason": e.reason,
                "withdrawn_from": e.withdrawn_from,
            })
        })
        .collect();
    let (vrps, router_keys, aspas) = rib.view.payload().counts();
    let rpki = json!({
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
    });
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

/// The status file's writes that failed: counted, logged when a run of failures
/// starts and ends (not at each try).
#[derive(Debug, Default)]
pub struct Writes {
    /// Failed writes since the speaker started (`status_write_failures`).
    pub failed: u64,
    /// Failed writes since the last good one.
    run: u64,
}

impl Writes {
    /// Writes `value`, with `status_write_failures` added, to `path`; whether it
    /// was written.
    pub fn write(&mut self, path: &Path, mut value: Value) -> bool {
        value["status_write_failures"] = json!(self.failed);
        match write(path, &value) {
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
                false
            }
        }
    }
}

/// Writes `value` to `path` through a temporary file and a rename, so a reader
/// never sees half a file; a failed write leaves no temporary file behind.
pub fn write(path: &Path, value: &Value) -> std::io::Result<()> {
    let tmp = with_suffix(path, ".tmp");
    let written =
        std::fs::write(&tmp, format!("{value:#}\n")).and_then(|()| std::fs::rename(&tmp, path));
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
}
