//! Revalidation when the RPKI view changes (issue 24 §2; docs/spec/rpki.md,
//! "Speaker"): a key, VRP or ASPA added or withdrawn, a cache reset, data expired.
//!
//! [`Rib::set_view`] puts the new view in force at once — for the ROV and ASPA
//! verdicts of routes that arrive from now on, and for every validation job a worker
//! starts from now on — and queues a [`Walk`] over every Adj-RIB-In with what changed
//! ([`crate::rpki::view::View::changes`]). The RIB task walks it a chunk at a time
//! between its events ([`Rib::revalidate_some`]), so that a full table never holds up
//! the sessions' UPDATEs (keepalives are the session tasks' own). For each route:
//!
//! * a router key of its BGPsec path changed: a new validation job, which supersedes
//!   any out for the route; the route keeps its verdict until the answer (so a key
//!   added elsewhere in a path makes no withdraw-and-announce), in both modes;
//! * its ROV or ASPA verdict may have changed: both are recomputed on the spot (cheap);
//! * its eligibility changed: the decision runs for its prefix, which re-advertises
//!   or withdraws it.
//!
//! Several changes in a row queue several walks, walked in order: a route affected by
//! an older change and visited after a newer one is judged with the newest view, and
//! one affected only by the newer change is visited by the newer walk; a validation
//! answer computed before a walk superseded its job is dropped. So once the walks are
//! done and the validation queue has drained, every route's three verdicts are those
//! of the view in force (the property test below checks it).

use std::collections::Bound;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::adj_in::{origin_and_path, revalidation};
use super::Rib;
use crate::packet::Prefix;
use crate::rpki::view::{Changes, View};
use crate::speaker::logs;

/// Routes one call of [`Rib::revalidate_some`] looks at, at most. A route takes well
/// under a microsecond to look at and its ROV and ASPA verdicts about a microsecond,
/// so a chunk keeps the RIB task from its events for a few milliseconds.
pub const CHUNK: usize = 2048;

/// One view change being applied to the routes.
pub struct Walk {
    changes: Changes,
    /// The generation of the view that brought it.
    pub generation: u64,
    /// The next route: session number, and the last prefix looked at in it.
    cursor: (usize, Option<Prefix>),
    /// When the view came.
    pub started: Instant,
    /// Counts so far.
    pub done: Done,
}

/// What a walk did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Done {
    /// The generation of the view.
    pub generation: u64,
    /// Routes looked at.
    pub routes: u64,
    /// Validation jobs queued (a router key of the route changed).
    pub bgpsec_jobs: u64,
    /// Routes whose ROV or ASPA verdict changed.
    pub verdicts_changed: u64,
    /// From the view's arrival to the walk's end (the validation jobs it queued may
    /// still be out).
    pub took: Duration,
}

impl Rib {
    /// Puts `view` in force and queues the walk over the routes it may affect.
    pub fn set_view(&mut self, view: Arc<View>) {
        let changes = self.view.changes(&view);
        self.generation = self.pool.view().replace(Arc::clone(&view));
        self.view = view;
        let (vrps, keys, aspas) = self.view.payload().counts();
        tracing::info!(
            "hopsig speaker: RPKI view {}: {vrps} VRPs, {keys} router keys, {aspas} ASPAs{}",
            self.generation,
            if changes.is_empty() {
                "; no route affected"
            } else {
                "; revalidating the routes it affects"
            }
        );
        if !changes.is_empty() {
            self.walks.push_back(Walk {
                changes,
                generation: self.generation,
                cursor: (0, None),
                started: Instant::now(),
                done: Done {
                    generation: self.generation,
                    ..Done::default()
                },
            });
        }
    }

    /// Whether a revalidation walk is under way.
    pub fn revalidating(&self) -> bool {
        !self.walks.is_empty()
    }

    /// Walks at most `budget` routes of the oldest walk: new verdicts, validation
    /// jobs, and the decision for each prefix whose route's verdicts changed.
    pub fn revalidate_some(&mut self, budget: usize) {
        let Some(walk) = self.walks.front_mut() else {
            return;
        };
        let (mut jobs, mut decide) = (vec![], vec![]);
        let mut left = budget.max(1);
        while left > 0 {
            let (i, after) = walk.cursor;
            let Some(session) = self.sessions.get_mut(i) else {
                break;
            };
            let policy = self.policies.get(i).copied().unwrap_or_default();
            let peer = session.peer(self.local_as);
            let range = match after {
                None => session.adj_in.range_mut(..),
                Some(p) => session
                    .adj_in
                    .range_mut((Bound::Excluded(p), Bound::Unbounded)),
            };
            let mut last = None;
            for (p, route) in range.take(left) {
                last = Some(*p);
                left -= 1;
                walk.done.routes += 1;
                if route.uses_key(&|asn, ski| walk.changes.affects_key(asn, ski)) {
                    if let Some(job) =
                        revalidation(i, *p, route, peer, &mut self.seq, self.generation)
                    {
                        walk.done.bgpsec_jobs += 1;
                        jobs.push(job);
                    }
                }
                if walk.changes.affects_route(p, &route.as_path) {
                    let (rov, aspa) = origin_and_path(&self.view, p, &route.as_path, policy.role);
                    if rov.state != route.rov.state || aspa.state != route.aspa.state {
                        walk.done.verdicts_changed += 1;
                        let before = policy.eligible(self.mode, route);
                        tracing::debug!(
                            "hopsig speaker: {p} from {}: ROV {} ({}), ASPA {} ({})",
                            session.address,
                            rov.state,
                            rov.reason,
                            aspa.state,
                            aspa.reason
                        );
                        if rov.state != route.rov.state {
                            logs::validation_state(
                                p,
                                &session.address,
                                "rov",
                                route.rov.state.name(),
                                rov.state.name(),
                                &rov.reason,
                            );
                        }
                        if aspa.state != route.aspa.state {
                            logs::validation_state(
                                p,
                                &session.address,
                                "aspa",
                                route.aspa.state.name(),
                                aspa.state.name(),
                                &aspa.reason,
                            );
                        }
                        route.rov = rov;
                        route.aspa = aspa;
                        if before != policy.eligible(self.mode, route) {
                            tracing::info!(
                                "hopsig speaker: {p} from {} is {} after an RPKI change: ROV {}, ASPA {}",
                                session.address,
                                if before { "no longer eligible" } else { "eligible again" },
                                route.rov.state,
                                route.aspa.state
                            );
                            decide.push(*p);
                        }
                    } else {
                        // Same state, perhaps a new reason (another VRP covers it).
                        route.rov = rov;
                        route.aspa = aspa;
                    }
                }
            }
            walk.cursor = match last {
                Some(p) if left == 0 => (i, Some(p)),
                _ => (i + 1, None),
            };
        }
        let finished = walk.cursor.0 >= self.sessions.len();
        if finished {
            walk.done.took = walk.started.elapsed();
            let d = walk.done;
            tracing::info!(
                "hopsig speaker: RPKI view {}: {} routes looked at, {} revalidated (BGPsec), {} with new ROV/ASPA verdicts, in {:.1} ms",
                d.generation,
                d.routes,
                d.bgpsec_jobs,
                d.verdicts_changed,
                d.took.as_secs_f64() * 1e3
            );
            self.last_walk = Some(d);
            self.walks.pop_front();
        }
        self.queue += jobs.len() as u64;
        self.pool.validate(jobs);
        for p in decide {
            self.decide(p);
        }
    }
}
