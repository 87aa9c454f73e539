//! The JSON summaries of `sign-mrt` and `validate-mrt` (docs/spec/json.md,
//! "validate-mrt" and "sign-mrt"), built here so that the `hopsig` CLI's `--json`
//! files and `--json-lines` trailers and Python's `hopsig.engine` return the same
//! documents. The CLI adds its `metadata` block; times and rates are the only
//! fields that differ between two runs over the same input.

use std::path::Path;

use hopsig_primitives::progress::rate;
use serde_json::{json, Value};

use super::sign::SignReport;
use super::validate::{Outcome, ValidateReport};
use super::Skip;
use crate::cache::CacheStats;
#[cfg(feature = "rpki")]
use crate::rpki::{aspa::Relation, view::View};

/// What a validation summary says besides its [`ValidateReport`].
#[derive(Debug, Clone, Copy)]
pub struct ValidateRun<'a> {
    /// The MRT file validated.
    pub file: &'a Path,
    /// The `--keys` file or folder, if one was named.
    pub keys: Option<&'a Path>,
    /// Router keys the validator had.
    pub router_keys: usize,
    /// Validating threads.
    pub threads: usize,
    /// Seconds the run took.
    pub seconds: f64,
    /// The signature cache's counters after the run.
    pub cache: &'a CacheStats,
}

impl ValidateReport {
    /// The summary of `validate-mrt --json`, without the `metadata` block: the
    /// counts, the first failures and the signature cache's counters (add
    /// [`ValidateReport::add_rpki_json`] for a run with an RPKI view).
    pub fn to_json(&self, run: &ValidateRun<'_>) -> Value {
        json!({
            "file": run.file.display().to_string(),
            "keys": run.keys.map(|k| k.display().to_string()),
            "router_keys": run.router_keys,
            "threads": run.threads,
            "seconds": run.seconds,
            "records": self.records,
            "updates": self.updates,
            "valid": self.valid,
            "not_valid": self.not_valid_total(),
            "not_valid_by_reason": self.not_valid,
            "skipped": self.skipped,
            "signatures": self.signatures,
            "updates_per_second": rate(self.updates, run.seconds),
            "signatures_per_second": rate(self.signatures, run.seconds),
            "first_failures": self.first_failures.iter().map(|f| json!({
                "record": f.record, "reason": f.reason, "detail": f.detail,
            })).collect::<Vec<_>>(),
            "signature_cache": run.cache.to_json(),
            "backend": self.backend,
        })
    }

    /// Adds to `json` (a [`ValidateReport::to_json`] object) what a run with the
    /// RPKI view `view` and the peers' role `role` found: the announcements' route
    /// origin validation and ASPA verdict counts, the BGPsec × ROV × ASPA cross table
    /// and the view's counts.
    #[cfg(feature = "rpki")]
    pub fn add_rpki_json(&self, json: &mut Value, view: &View, role: Relation) {
        let mut rov = serde_json::Map::new();
        let mut aspa = serde_json::Map::new();
        for ((_, o, a), n) in &self.cross {
            let add = |m: &mut serde_json::Map<String, Value>, k: &str| {
                let v = m.get(k).and_then(Value::as_u64).unwrap_or(0) + n;
                m.insert(k.to_string(), v.into());
            };
            add(&mut rov, o);
            add(&mut aspa, a);
        }
        let (vrps, keys, aspas) = view.payload().counts();
        json["announcements"] = self.cross.values().sum::<u64>().into();
        json["rov"] = rov.into();
        json["aspa"] = aspa.into();
        json["aspa_role"] = role.to_string().into();
        json["cross"] = self
            .cross
            .iter()
            .map(|((b, o, a), n)| json!({"bgpsec": b, "rov": o, "aspa": a, "count": n}))
            .collect::<Vec<_>>()
            .into();
        json["rpki"] = json!({"vrps": vrps, "router_keys": keys, "aspas": aspas});
    }
}

impl Outcome {
    /// The JSON line of record `record` for `validate-mrt --json-lines`: an UPDATE
    /// validated, with its verdict (`valid` with the signatures verified, or
    /// `not-valid` with the reason and the validator's words); `None` for a record
    /// not validated.
    pub fn to_json(&self, record: u64) -> Option<Value> {
        match self {
            Outcome::Skipped(_) => None,
            Outcome::Valid(signatures) => Some(json!({
                "record": record, "bgpsec": "valid", "signatures": signatures,
            })),
            Outcome::NotValid(reason, detail) => Some(json!({
                "record": record, "bgpsec": "not-valid", "reason": reason, "detail": detail,
            })),
        }
    }
}

/// What a signing summary says besides its [`SignReport`].
#[derive(Debug, Clone, Copy)]
pub struct SignRun<'a> {
    /// The MRT file read.
    pub input: &'a Path,
    /// The MRT file written.
    pub output: &'a Path,
    /// The keys folder.
    pub keys: &'a Path,
    /// The algorithm suite's number (RFC 8608 §2).
    pub suite: u8,
    /// Its name.
    pub suite_name: &'a str,
    /// ASes with a key after the run.
    pub router_keys: usize,
    /// Signing threads.
    pub threads: usize,
    /// Seconds signing took (reading, generating keys, signing, writing the
    /// records; not placing the files).
    pub seconds: f64,
}

impl SignReport {
    /// The summary of `sign-mrt --json`, without the `metadata` block.
    pub fn to_json(&self, run: &SignRun<'_>) -> Value {
        let skipped: serde_json::Map<String, Value> = Skip::ALL
            .iter()
            .filter_map(|s| Some((s.name().to_string(), (*self.skipped.get(s)?).into())))
            .collect();
        json!({
            "file": run.input.display().to_string(),
            "output": run.output.display().to_string(),
            "keys": run.keys.display().to_string(),
            "suite": run.suite,
            "suite_name": run.suite_name,
            "router_keys": run.router_keys,
            "keys_generated": self.keys_generated,
            "threads": run.threads,
            "seconds": run.seconds,
            "records": self.records,
            "unreadable_records": self.unreadable_records,
            "announcements": self.announcements,
            "withdrawals": self.withdrawals,
            "updates": self.updates,
            "ipv4": self.ipv4,
            "ipv6": self.ipv6,
            "prepended": self.prepended,
            "signatures": self.signatures,
            "skipped": self.skipped_total(),
            "skipped_by_reason": skipped,
            "updates_per_second": rate(self.updates, run.seconds),
        })
    }
}
