//! `hopsig bgpsec feed`: a BGPsec traffic generator and router tester
//! (docs/spec/feed.md). It replays the UPDATEs of an MRT file ([`source`]) over one BGP
//! session to a router under test ([`session`]), as fast as the router takes them, at a
//! rate, or with the trace's own timing; injects faults at a chosen fraction
//! ([`faults`]), each with the verdict RFC 8205 / RFC 7606 expect; and watches the
//! router's Adj-RIB-Out on further sessions ([`watch`]) to time when everything was
//! forwarded and to observe what became of each fault ([`report`]).

pub mod faults;
pub mod report;
pub mod session;
pub mod source;
pub mod watch;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::packet::Prefix;
use faults::{Context, FaultKind, Plan, Verdict};
use report::{Injected, Report};
use session::{Session, SessionConfig, SessionError};
use source::Source;
use watch::Watch;

/// Octets of UPDATEs written to the socket at once.
const BATCH_BYTES: usize = 64 * 1024;
/// How often the status file and the watchers are looked at while waiting.
const POLL: Duration = Duration::from_millis(50);

/// How UPDATEs are paced.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pacing {
    /// As fast as the router takes them (TCP back-pressure).
    Fast,
    /// This many UPDATEs a second.
    Rate(f64),
    /// The trace's own timing, sped up by this factor.
    Trace(f64),
}

impl Pacing {
    /// How the report names it.
    pub fn name(self) -> String {
        match self {
            Pacing::Fast => "fast".into(),
            Pacing::Rate(r) => format!("rate {r}"),
            Pacing::Trace(x) => format!("trace x{x}"),
        }
    }
}

/// A feed run.
#[derive(Debug, Clone)]
pub struct Options {
    /// The session that sends.
    pub feed: SessionConfig,
    /// Receiving sessions.
    pub watchers: Vec<SessionConfig>,
    /// Pacing.
    pub pacing: Pacing,
    /// Faults.
    pub plan: Plan,
    /// The router's status file (a hopsig speaker's `state_file`).
    pub status: Option<PathBuf>,
    /// The router's process, for its peak memory.
    pub router_pid: Option<u32>,
    /// Longest wait for forwarding / validation after the last UPDATE.
    pub wait: Duration,
    /// Wait after everything was forwarded before faults are observed (lazy routers
    /// withdraw Not Valid routes after validating them).
    pub settle: Duration,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum FeedError {
    /// A session.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// BGPsec was asked for and the router did not negotiate it.
    #[error("the router at {0} did not negotiate BGPsec (RFC 8205 §2.2: its OPEN lacks the BGPsec Receive capability for IPv4, or 4-octet AS)")]
    NoBgpsec(String),
}

/// Progress of a run, for a progress line.
#[derive(Debug, Clone, Copy, Default)]
pub struct Progress {
    /// UPDATEs queued.
    pub sent: u64,
    /// Of how many.
    pub total: u64,
    /// Expected prefixes the first watcher has not seen yet.
    pub pending: Option<usize>,
}

/// One prepared message.
struct Prepared {
    bytes: Vec<u8>,
    time: f64,
    announced: usize,
    withdrawn: usize,
    signed: bool,
}

/// Runs the feed: opens the watchers, then the feed session; sends `source`'s UPDATEs
/// with faults from `opts.plan` (built with `ctx`); waits for the watchers (and the
/// status file); observes the faults; closes every session.
///
/// # Errors
/// [`FeedError`] when a session cannot be set up; a session going down later is in
/// the report.
pub async fn run(
    opts: &Options,
    source: &Source,
    ctx: &Context<'_>,
    progress: &mut (dyn FnMut(&Progress) + Send),
) -> Result<Report, FeedError> {
    let mut report = Report {
        version: report::VERSION,
        ..Report::default()
    };
    report.mrt.records = source.records;
    report.mrt.updates = source.items.len() as u64;
    report.mrt.skipped = source
        .skipped
        .iter()
        .map(|(k, v)| ((*k).to_string(), *v))
        .collect();
    let mut watchers = Vec::new();
    for w in &opts.watchers {
        watchers.push(Watch::open(w.clone()).await?);
    }
    let (tx, mut from_router) = mpsc::unbounded_channel();
    let feed = Session::open(opts.feed.clone(), tx).await?;
    // What the router sends the feed is read (the FSM needs it) and dropped.
    tokio::spawn(async move { while from_router.recv().await.is_some() {} });
    report.session = report::SessionInfo {
        peer: opts.feed.peer.to_string(),
        local_as: opts.feed.local_as,
        remote_as: opts.feed.remote_as,
        bgpsec: opts.feed.bgpsec,
        bgpsec_negotiated: feed.negotiated.bgpsec_send,
        pacing: opts.pacing.name(),
    };
    if opts.feed.bgpsec && !feed.negotiated.bgpsec_send {
        feed.close();
        return Err(FeedError::NoBgpsec(opts.feed.peer.to_string()));
    }

    // Every message built before the clock starts.
    let (messages, mut injected, reset, expected) = prepare(source, opts, ctx);
    report.faults = report::Faults {
        rate: opts.plan.rate,
        seed: opts.plan.seed,
        kinds: opts.plan.kinds.clone(),
        by_kind: BTreeMap::new(),
        injected: vec![],
    };
    report.sent.expected_forwarded = expected.len() as u64;
    let memory = |pid: u32| proc_kb(pid, "VmHWM");
    let mut mem = opts.router_pid.map(|pid| report::Memory {
        pid,
        before_kb: memory(pid),
        ..report::Memory::default()
    });

    let start = Instant::now();
    for w in &watchers {
        w.expect(&expected, start);
    }
    let total = messages.len() as u64;
    let mut batch = Vec::with_capacity(BATCH_BYTES + 4096);
    let mut last_progress = start;
    let mut sent_ok = true;
    for (i, m) in messages.iter().enumerate() {
        let due = match opts.pacing {
            Pacing::Fast => None,
            Pacing::Rate(r) => Some(start + Duration::from_secs_f64(i as f64 / r)),
            Pacing::Trace(x) => Some(start + Duration::from_secs_f64(m.time / x)),
        };
        if let Some(due) = due.filter(|d| *d > Instant::now()) {
            if !batch.is_empty() && feed.send(std::mem::take(&mut batch)).await.is_err() {
                sent_ok = false;
                break;
            }
            tokio::time::sleep_until(due).await;
        }
        batch.extend_from_slice(&m.bytes);
        report.sent.messages += 1;
        report.sent.bytes += m.bytes.len() as u64;
        report.sent.announcements += m.announced as u64;
        report.sent.withdrawals += m.withdrawn as u64;
        report.sent.signed += u64::from(m.signed);
        if batch.len() >= BATCH_BYTES {
            if feed.send(std::mem::take(&mut batch)).await.is_err() {
                sent_ok = false;
                break;
            }
            if last_progress.elapsed() >= Duration::from_millis(500) {
                last_progress = Instant::now();
                progress(&Progress {
                    sent: i as u64 + 1,
                    total,
                    pending: pending(&watchers),
                });
            }
        }
    }
    if sent_ok && !batch.is_empty() {
        sent_ok = feed.send(batch).await.is_ok();
    }
    if sent_ok {
        sent_ok = feed.flush().await.is_ok();
    }
    let sent_at = Instant::now();
    report.sent.seconds = (sent_at - start).as_secs_f64();
    report.sent.messages_per_second = report.sent.messages as f64 / report.sent.seconds.max(1e-9);
    progress(&Progress {
        sent: report.sent.messages,
        total,
        pending: pending(&watchers),
    });

    // Forwarded and validated, polled until both or the wait is over.
    let deadline = sent_at + opts.wait;
    let mut status = opts.status.as_ref().map(|p| report::Status {
        path: p.display().to_string(),
        ..report::Status::default()
    });
    let want_in = expected.len() as u64;
    loop {
        let forwarded = watchers
            .iter()
            .all(|w| w.seen.lock().is_ok_and(|s| s.all_at.is_some()));
        if let Some(s) = status.as_mut().filter(|s| s.all_validated_s.is_none()) {
            if let Some(v) = read_status(opts.status.as_deref()) {
                let n = |k: &str| v[k].as_u64();
                if n("adj_rib_in_count").is_some_and(|c| c >= want_in)
                    && n("validation_queue") == Some(0)
                {
                    s.all_validated_s = Some(start.elapsed().as_secs_f64());
                }
            }
        }
        let validated = status.as_ref().is_none_or(|s| s.all_validated_s.is_some());
        if forwarded {
            if let Some(m) = mem.as_mut().filter(|m| m.forwarded_kb.is_none()) {
                m.forwarded_kb = memory(m.pid);
            }
        }
        if (forwarded && validated) || Instant::now() >= deadline {
            break;
        }
        if last_progress.elapsed() >= Duration::from_millis(500) {
            last_progress = Instant::now();
            progress(&Progress {
                sent: report.sent.messages,
                total,
                pending: pending(&watchers),
            });
        }
        tokio::time::sleep(POLL).await;
    }
    if let Some(m) = mem.as_mut().filter(|m| m.forwarded_kb.is_none()) {
        m.forwarded_kb = memory(m.pid);
    }
    tokio::time::sleep(opts.settle).await;

    // What became of each fault, seen by the first watcher.
    let first = watchers.first().and_then(|w| w.seen.lock().ok());
    for inj in injected.iter_mut().filter(|i| i.observed.is_none()) {
        inj.observed = first.as_ref().map(|s| match inj.announced {
            Some(p) if s.current.contains(&p) => "forwarded",
            Some(p) if s.ever.contains(&p) => "withdrawn",
            _ => "not_forwarded",
        });
        inj.mismatch = matches!(
            (inj.observed, inj.expect_forwarded),
            (Some("forwarded"), Some(false)) | (Some("withdrawn" | "not_forwarded"), Some(true))
        );
    }
    drop(first);
    for inj in &injected {
        *report
            .faults
            .by_kind
            .entry(inj.kind.name().to_string())
            .or_default() += 1;
    }
    report.mismatches = injected.iter().filter(|i| i.mismatch).count() as u64;
    report.faults.injected = injected;

    let mut all = Some(0f64);
    for (w, config) in watchers.iter().zip(&opts.watchers) {
        let Ok(s) = w.seen.lock() else { continue };
        let at = s
            .all_at
            .map(|t| t.saturating_duration_since(start).as_secs_f64());
        all = match (all, at) {
            (Some(a), Some(b)) => Some(a.max(b)),
            _ => None,
        };
        report.watchers.push(report::Watcher {
            peer: config.peer.to_string(),
            local_as: config.local_as,
            bgpsec_negotiated: w.session.negotiated.bgpsec_receive,
            all_forwarded_s: at,
            missing: s.pending() as u64,
            updates: s.updates,
            bgpsec_updates: s.bgpsec_updates,
            announced: s.announced,
            withdrawn: s.withdrawn,
            holds: s.current.len() as u64,
        });
    }
    report.all_forwarded_s = all.filter(|_| !watchers.is_empty());
    report.mismatches += report.watchers.iter().filter(|w| w.missing > 0).count() as u64;
    // The session reset fault, last of all, once the rest has been observed.
    if let Some((mut inj, bytes)) = reset {
        if sent_ok && feed.send(bytes).await.is_ok() {
            let mut feed_watch = feed;
            let ended = feed_watch.wait_ended(Duration::from_secs(5)).await;
            inj.observed = Some(if ended.is_some() {
                "session_reset"
            } else {
                "session_kept"
            });
            report.session_ended = feed_watch.ended();
            feed_watch.close();
            inj.mismatch = inj.observed != Some("session_reset");
            report.mismatches += u64::from(inj.mismatch);
            *report
                .faults
                .by_kind
                .entry(inj.kind.name().to_string())
                .or_default() += 1;
            report.faults.injected.push(inj);
        } else {
            inj.observed = Some("not_sent");
            report.session_ended = feed.ended();
            feed.close();
            inj.mismatch = true;
            report.mismatches += 1;
            *report
                .faults
                .by_kind
                .entry(inj.kind.name().to_string())
                .or_default() += 1;
            report.faults.injected.push(inj);
        }
    } else {
        report.session_ended = feed.ended();
        feed.close();
    }

    for w in &watchers {
        w.session.close();
    }
    if let Some(s) = status.as_mut() {
        if let Some(v) = read_status(opts.status.as_deref()) {
            s.adj_rib_in = v["adj_rib_in_count"].as_u64();
            s.not_valid_total = v["not_valid_total"].as_u64();
        }
    }
    report.status = status;
    if let Some(m) = mem.as_mut() {
        m.end_kb = memory(m.pid);
    }
    report.router_memory = mem;
    Ok(report)
}

/// The first watcher's pending count.
fn pending(watchers: &[Watch]) -> Option<usize> {
    watchers
        .first()
        .and_then(|w| w.seen.lock().ok().map(|s| s.pending()))
}

/// The messages to send (faults injected), the faults, the session-reset fault kept
/// for last (only the first: the session ends with it), and the prefixes the router
/// should forward in the end.
#[allow(clippy::type_complexity)]
fn prepare(
    source: &Source,
    opts: &Options,
    ctx: &Context<'_>,
) -> (
    Vec<Prepared>,
    Vec<Injected>,
    Option<(Injected, Vec<u8>)>,
    HashSet<Prefix>,
) {
    let mut out = Vec::with_capacity(source.items.len());
    let mut injected: Vec<Injected> = Vec::new();
    let mut reset = None;
    let mut expected = HashSet::new();
    // The fault last made of each prefix, until a later UPDATE touches the prefix.
    let mut faulted: HashMap<Prefix, usize> = HashMap::new();
    for (i, item) in source.items.iter().enumerate() {
        for p in item.announced.iter().chain(&item.withdrawn) {
            if let Some(f) = faulted.remove(p) {
                injected[f].observed = Some("superseded");
            }
        }
        let announces = !item.announced.is_empty();
        let kind = if announces {
            opts.plan.pick(i as u64, |k| {
                ctx.can(k, item.signed)
                    && (k.expected().0 != Verdict::SessionReset || reset.is_none())
            })
        } else {
            None
        };
        let faulty = kind.and_then(|k| {
            faults::inject(k, &item.message, ctx)
                .map_err(|e| match e {
                    // A kind this UPDATE cannot carry: no fault here.
                    faults::FaultError::NotApplicable(_) => {}
                    e => tracing::warn!("feed: record {}: {e}", item.record),
                })
                .ok()
                .map(|b| (k, b))
        });
        for p in &item.withdrawn {
            expected.remove(p);
        }
        let Some((kind, bytes)) = faulty else {
            expected.extend(item.announced.iter().copied());
            out.push(Prepared {
                bytes: item.message.clone(),
                time: item.time,
                announced: item.announced.len(),
                withdrawn: item.withdrawn.len(),
                signed: item.signed,
            });
            continue;
        };
        let (verdict, rule) = kind.expected();
        for p in &item.announced {
            if verdict.forwarded() == Some(true) {
                expected.insert(*p);
            } else {
                expected.remove(p);
            }
        }
        let inj = Injected {
            index: out.len() as u64,
            record: item.record,
            kind,
            prefix: item
                .announced
                .first()
                .map(ToString::to_string)
                .unwrap_or_default(),
            announced: item.announced.first().copied(),
            expected: verdict,
            rule,
            expect_forwarded: verdict.forwarded(),
            observed: None,
            mismatch: false,
        };
        if verdict == Verdict::SessionReset {
            reset = Some((inj, bytes));
            continue;
        }
        if let Some(p) = inj.announced {
            faulted.insert(p, injected.len());
        }
        injected.push(inj);
        out.push(Prepared {
            bytes,
            time: item.time,
            announced: item.announced.len(),
            withdrawn: item.withdrawn.len(),
            signed: item.signed,
        });
    }
    if let Some((inj, _)) = reset.as_mut() {
        inj.index = out.len() as u64;
    }
    (out, injected, reset, expected)
}

/// The status file as JSON, if it reads.
fn read_status(path: Option<&std::path::Path>) -> Option<serde_json::Value> {
    serde_json::from_slice(&std::fs::read(path?).ok()?).ok()
}

/// `key` (kB) of /proc/PID/status.
fn proc_kb(pid: u32, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A fault plan that injects nothing.
pub fn no_faults() -> Plan {
    Plan {
        kinds: vec![],
        rate: 0.0,
        seed: 0,
    }
}

/// The kinds of `plan` none of which `ctx` can make: to warn about.
pub fn impossible(plan: &Plan, ctx: &Context<'_>) -> Vec<FaultKind> {
    plan.kinds
        .iter()
        .copied()
        .filter(|k| !ctx.can(*k, true))
        .collect()
}
