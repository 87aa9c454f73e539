//! The RIB task: every route the speaker knows, owned by one task (holo-bgp's layout).
//!
//! * Adj-RIB-In per session, each route with its validation state (RFC 8205 §5.1):
//!   pending, valid, not valid (and why), or unsigned. A BGPsec UPDATE is screened
//!   first, on this task ([`Validator::screen`], §5.2 without the signatures): an error
//!   is treat-as-withdraw, only unsupported suites make it unsigned. The AS path from
//!   an OLD (2-octet) neighbour is AS_PATH merged with AS4_PATH (RFC 6793 §4.2.3).
//! * The decision (RFC 4271 §9.1, reduced): a prefix this router originates wins;
//!   otherwise the eligible route with the shortest AS path, the lower session
//!   number on a tie. Eligible: valid or unsigned, and in lazy mode also pending —
//!   never not valid (the route is kept in Adj-RIB-In to be shown, not used).
//! * Adj-RIB-Out per session: what was sent, so a change sends exactly one UPDATE.
//!   Toward a session that negotiated BGPsec, a BGPsec route is signed onward
//!   ([`Signer::forward`], RFC 8205 §4.2) and an own prefix is signed as origin; every
//!   other case sends AS_PATH: the §4.4 equivalent of a Secure_Path, or the received
//!   AS_PATH, with the local AS prepended (AS_TRANS and AS4_PATH toward an OLD
//!   neighbour, RFC 6793 §4.2.2). A route that arrived without BGPsec_PATH is never
//!   signed later (§4.1). Received attributes go on as RFC 4271 §5 says.
//! * Validation runs in a pool of worker threads ([`Pool`]); in lazy mode the
//!   route is forwarded before, and a Not Valid answer withdraws it from every
//!   session it went to and logs why (issue 13 §2, BGR §1).
//! * Signing runs on the RIB task while it keeps up, and in the same pool, ahead of
//!   every validation, while events wait for it ([`Rib::backlog`]): a lone UPDATE is
//!   forwarded without a hand-over between threads, and a burst (a session reset) is
//!   signed on every core.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::net::Ipv4Addr;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

use crate::as4::{self, Aggregator};
use crate::as_path_equivalent;
use crate::packet::{
    Afi, AsPath, AsPathSegmentType, AsWidth, AttrType, AttributeValue, Message, MpUnreachNlri,
    NextHop, Origin, PathAttribute, Prefix, Safi, Update,
};
use crate::{
    Hop, NotValid, Peer, RouterKeys, SignError, SignedNlri, Signer, Validation, Validator,
};
use tokio::sync::mpsc::UnboundedSender;

use super::config::Mode;
use super::events::{Built, Event, Signed, State, Up, Validated};
use super::metrics::Histogram;

/// A route's validation state (RFC 8205 §5.1, plus "pending" for lazy mode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RouteState {
    /// Waiting in the validation queue.
    Pending,
    /// 'Valid' by a block of this suite.
    Valid(u8),
    /// 'Not Valid', and why.
    NotValid(String),
    /// No BGPsec_PATH.
    Unsigned,
}

impl RouteState {
    /// The name in the status file.
    pub fn name(&self) -> String {
        match self {
            RouteState::Pending => "pending".into(),
            RouteState::Valid(s) => format!("valid (suite {s})"),
            RouteState::NotValid(why) => format!("not valid: {why}"),
            RouteState::Unsigned => "unsigned".into(),
        }
    }
}

/// A route in an Adj-RIB-In.
#[derive(Debug, Clone)]
pub struct Route {
    /// Distinguishes a route from the one it replaced.
    pub seq: u64,
    /// When its UPDATE arrived.
    pub received: Instant,
    /// The received BGPsec UPDATE, kept to sign onward; `None` for an unsigned route.
    pub bgpsec: Option<Arc<Update<'static>>>,
    /// The AS path: the received AS_PATH or the Secure_Path's equivalent (§4.4).
    pub as_path: AsPath,
    /// ORIGIN.
    pub origin: Origin,
    /// The aggregating node (AGGREGATOR, or AS4_AGGREGATOR from an OLD neighbour).
    pub aggregator: Option<Aggregator>,
    /// The other attributes passed on with the route ([`passed_on`]).
    pub attributes: Arc<[PathAttribute<'static>]>,
    /// COMMUNITIES holds NO_EXPORT, NO_ADVERTISE or NO_EXPORT_SUBCONFED: the route is
    /// used but sent to no neighbour, every one being external ([`no_export`]).
    pub no_export: bool,
    /// Validation state.
    pub state: RouteState,
    /// Whether time-to-forward was recorded.
    pub forwarded: bool,
}

/// Where the installed route of a prefix comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    /// This router originates it.
    Local,
    /// A route from this session (and its sequence number).
    Neighbor(usize, u64),
}

/// What was sent, or is being signed to be sent, to a session for a prefix.
#[derive(Debug, Clone)]
pub struct Advert {
    /// The route it came from.
    pub source: Source,
    /// The AS path sent (equivalent for a BGPsec UPDATE).
    pub as_path: AsPath,
    /// Whether it carries BGPsec_PATH.
    pub bgpsec: bool,
    /// The number of the sign job in the pool that will produce it, while it runs;
    /// an answer with another number is for an advert since replaced.
    pub signing: Option<u64>,
    /// Whether the neighbour holds, or is owed (queued or held back, see
    /// [`super::outbox`]), an announcement of the prefix from this session: this
    /// advert's, or while it is being signed, the one it replaces — so whether
    /// taking the advert back needs a withdrawal.
    pub on_wire: bool,
}

/// One validation job.
struct Job {
    validated: Validated,
    update: Arc<Update<'static>>,
    peer: Peer,
}

/// Everything one announcement to one session needs, so that it can be built on the
/// RIB task or on a worker.
pub struct Announce {
    signer: Arc<Signer<'static>>,
    remote_as: u32,
    width: AsWidth,
    /// Sign it (the session negotiated BGPsec and the route can be signed).
    sign: bool,
    prefix: Prefix,
    /// The received BGPsec UPDATE to sign onward; `None` for an own prefix.
    received: Option<Arc<Update<'static>>>,
    /// The AS path with the local AS prepended.
    out_path: AsPath,
    origin: Origin,
    aggregator: Option<Aggregator>,
    /// The received attributes passed on in an unsigned UPDATE.
    attributes: Arc<[PathAttribute<'static>]>,
    next_hop: Ipv4Addr,
}

impl Announce {
    /// Signs (RFC 8205 §4.2, or as origin for an own prefix) or downgrades, and
    /// encodes. With no key of a suite the path has, the route goes unsigned.
    fn build(&self) -> Built {
        let next_hop = NextHop::V4(self.next_hop);
        let hop = Hop::to(self.remote_as);
        let encode = |m: Message<'_>| m.encoding(self.width).map_err(|e| format!("encode: {e}"));
        let signed = match (self.sign, &self.received) {
            (false, _) => None,
            (true, None) => {
                let origin_attr =
                    PathAttribute::new(AttributeValue::Origin(Origin::Igp), AsWidth::Four)
                        .map_err(|e| e.to_string())?;
                Some(
                    self.signer
                        .originate(
                            SignedNlri::unicast(self.prefix),
                            next_hop,
                            vec![origin_attr],
                            &hop,
                        )
                        .and_then(|u| Ok(Message::Update(u).encoding(AsWidth::Four)?)),
                )
            }
            // Encoded once as it is signed (the time-to-forward path of lazy mode).
            (true, Some(u)) => Some(self.signer.forward_message(u, Some(next_hop), &hop)),
        };
        let bytes = match signed {
            Some(Ok(bytes)) => return Ok((bytes, true)),
            // No key of a suite the path has: send it unsigned (§4.2).
            Some(Err(SignError::NoKey | SignError::NoCommonSuite(_))) | None => {
                encode(Message::Update(plain(self)?))?
            }
            Some(Err(e)) => return Err(e.to_string()),
        };
        Ok((bytes, false))
    }
}

/// One sign job: an announcement and where its answer goes.
struct SignJob {
    session: usize,
    number: u64,
    announce: Announce,
}

/// The jobs waiting for a worker.
#[derive(Default)]
struct Queues {
    sign: VecDeque<SignJob>,
    validate: VecDeque<Job>,
    closed: bool,
}

type Shared = Arc<(Mutex<Queues>, Condvar)>;

fn lock(shared: &Shared) -> MutexGuard<'_, Queues> {
    // A worker that panicked leaves the queues consistent (it holds no lock while
    // working), so a poisoned lock is still usable.
    shared
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Most jobs a worker takes at once.
const MAX_BATCH: usize = 16;

/// The worker threads: each takes the next sign jobs, or if there are none the next
/// validation jobs — validated with every suite hopsig has ([`crate::SUITES`])
/// and the RPKI keys — and reports back. Signing goes first because a forwarded
/// route is what lazy mode is for; a validation waits at most for the sign jobs
/// queued before it is taken up.
///
/// A worker takes its share of the queue (split among the workers), at most
/// [`MAX_BATCH`] jobs, and sends their answers together: the RIB task, woken by the
/// first, finds the others waiting instead of sleeping and being woken for each —
/// under a burst that wake-up cost as much as a signature. A lone job is taken
/// alone, so it waits for no other.
pub struct Pool {
    shared: Shared,
}

impl Pool {
    /// Starts `threads` workers answering on `answers`.
    pub fn new(threads: usize, keys: Arc<RouterKeys>, answers: UnboundedSender<Event>) -> Pool {
        let shared: Shared = Arc::default();
        let threads = threads.max(1);
        for _ in 0..threads {
            let shared = Arc::clone(&shared);
            let keys = Arc::clone(&keys);
            let answers = answers.clone();
            std::thread::spawn(move || loop {
                let mut q = lock(&shared);
                while q.sign.is_empty() && q.validate.is_empty() && !q.closed {
                    q = shared
                        .1
                        .wait(q)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
                if q.closed {
                    return;
                }
                let take = |n: usize| n.div_ceil(threads).min(MAX_BATCH);
                let answers_of: Vec<Event> = if !q.sign.is_empty() {
                    let n = take(q.sign.len());
                    let jobs: Vec<SignJob> = q.sign.drain(..n).collect();
                    drop(q);
                    jobs.into_iter()
                        .map(|job| {
                            Event::Signed(Signed {
                                session: job.session,
                                prefix: job.announce.prefix,
                                number: job.number,
                                result: job.announce.build(),
                            })
                        })
                        .collect()
                } else {
                    let n = take(q.validate.len());
                    let jobs: Vec<Job> = q.validate.drain(..n).collect();
                    drop(q);
                    let v = Validator::with_suites(crate::SUITES, &*keys);
                    jobs.into_iter()
                        .map(|mut job| {
                            job.validated.result = match v.update(&job.update, &job.peer) {
                                Validation::Valid { suite, .. } => Ok(suite),
                                Validation::NotValid(why) => Err(why.to_string()),
                            };
                            Event::Validated(job.validated)
                        })
                        .collect()
                };
                for event in answers_of {
                    if answers.send(event).is_err() {
                        return;
                    }
                }
            });
        }
        Pool { shared }
    }

    fn push(&self, add: impl FnOnce(&mut Queues)) {
        add(&mut lock(&self.shared));
        self.shared.1.notify_one();
    }
}

impl Drop for Pool {
    /// Stops the workers once each finishes its job in hand.
    fn drop(&mut self) {
        lock(&self.shared).closed = true;
        self.shared.1.notify_all();
    }
}

/// A session as the RIB sees it.
pub struct Session {
    /// The neighbour's address, for the status file and logs.
    pub address: String,
    /// The configured remote AS.
    pub remote_as: u32,
    /// The FSM state.
    pub state: State,
    /// Set while Established.
    pub up: Option<Up>,
    /// Signs toward this neighbour: the router's keys of the neighbour's suites.
    pub signer: Arc<Signer<'static>>,
    /// Adj-RIB-In.
    pub adj_in: BTreeMap<Prefix, Route>,
    /// Adj-RIB-Out.
    pub adj_out: BTreeMap<Prefix, Advert>,
    /// UPDATEs received and sent.
    pub updates_in: u64,
    /// UPDATEs sent.
    pub updates_out: u64,
    /// Why the session last closed.
    pub last_error: Option<String>,
}

/// A route withdrawn because it was found Not Valid (lazy mode), for the status file.
#[derive(Debug, Clone)]
pub struct NotValidEntry {
    /// The session it came from.
    pub neighbor: String,
    /// Its prefix.
    pub prefix: Prefix,
    /// Why.
    pub reason: String,
    /// Sessions it had been forwarded to and is now withdrawn from.
    pub withdrawn_from: Vec<String>,
}

/// Most Not Valid entries kept for the status file.
const NOT_VALID_LOG: usize = 1000;

/// The RIB.
pub struct Rib {
    /// Local AS.
    pub local_as: u32,
    /// Next hop of announced routes.
    pub next_hop: Ipv4Addr,
    /// Strict or lazy.
    pub mode: Mode,
    /// Prefixes originated.
    pub local: BTreeSet<Prefix>,
    /// The sessions, by number.
    pub sessions: Vec<Session>,
    /// Validation jobs not yet answered.
    pub queue: u64,
    /// Sign jobs not yet answered.
    pub signing: u64,
    /// Set by whoever feeds the RIB when more events wait for it: announcements
    /// that need a signature are then signed by the pool, in parallel, instead of
    /// on the RIB task.
    pub backlog: bool,
    /// From an UPDATE's arrival to its route's first UPDATE queued to a session.
    pub time_to_forward: Histogram,
    /// From an UPDATE's arrival to its validation result.
    pub time_to_validate: Histogram,
    /// Routes found Not Valid.
    pub not_valid: Vec<NotValidEntry>,
    /// Counts every route ever found Not Valid.
    pub not_valid_total: u64,
    pool: Pool,
    seq: u64,
    sign_jobs: u64,
}

/// The AS_PATH with `asn` prepended (RFC 4271 §5.1.2) into the first AS_SEQUENCE when
/// it has room, else in a new one.
pub fn prepend(path: &AsPath, asn: u32) -> AsPath {
    let mut p = path.clone();
    match p.segments.first_mut() {
        Some(s) if s.kind == AsPathSegmentType::AsSequence && s.asns.len() < 255 => {
            s.asns.insert(0, asn)
        }
        _ => p
            .segments
            .insert(0, AsPath::sequence(vec![asn]).segments.remove(0)),
    }
    p
}

/// Path length for the decision: an AS_SET counts 1 (RFC 4271 §9.1.2.2 a).
fn path_length(path: &AsPath) -> usize {
    path.segments
        .iter()
        .map(|s| match s.kind {
            AsPathSegmentType::AsSequence => s.asns.len(),
            AsPathSegmentType::AsSet => 1,
            _ => 0,
        })
        .sum()
}

fn contains(path: &AsPath, asn: u32) -> bool {
    path.segments.iter().any(|s| s.asns.contains(&asn))
}

impl Rib {
    /// An empty RIB.
    pub fn new(
        local_as: u32,
        next_hop: Ipv4Addr,
        mode: Mode,
        local: BTreeSet<Prefix>,
        sessions: Vec<Session>,
        pool: Pool,
    ) -> Rib {
        Rib {
            local_as,
            next_hop,
            mode,
            local,
            sessions,
            queue: 0,
            signing: 0,
            backlog: false,
            time_to_forward: Histogram::default(),
            time_to_validate: Histogram::default(),
            not_valid: vec![],
            not_valid_total: 0,
            pool,
            seq: 0,
            sign_jobs: 0,
        }
    }

    /// Handles one event.
    pub fn handle(&mut self, event: Event) {
        match event {
            Event::State(id, s) => {
                if let Some(session) = self.sessions.get_mut(id) {
                    session.state = s;
                }
            }
            Event::Up(id, up) => {
                let Some(session) = self.sessions.get_mut(id) else {
                    return;
                };
                session.up = Some(up);
                session.adj_out.clear();
                let all: BTreeSet<Prefix> = self.known_prefixes();
                for p in all {
                    self.decide(p);
                }
            }
            Event::Down(id, why) => {
                let Some(session) = self.sessions.get_mut(id) else {
                    return;
                };
                session.up = None;
                session.adj_out.clear();
                session.last_error = Some(why);
                let gone: Vec<Prefix> = std::mem::take(&mut session.adj_in).into_keys().collect();
                for p in gone {
                    self.decide(p);
                }
            }
            Event::Update(id, update, at) => self.update(id, *update, at),
            Event::TreatAsWithdraw(id, prefixes) => {
                for p in prefixes {
                    if let Some(s) = self.sessions.get_mut(id) {
                        s.adj_in.remove(&p);
                    }
                    self.decide(p);
                }
            }
            Event::Room(id) => {
                if let Some(up) = self.sessions.get_mut(id).and_then(|s| s.up.as_mut()) {
                    up.tx.refill();
                }
            }
            Event::Validated(v) => self.validated(v),
            Event::Signed(s) => self.signed(s),
        }
    }

    /// Whether jobs are still out with the pool.
    pub fn busy(&self) -> bool {
        self.queue > 0 || self.signing > 0
    }

    fn known_prefixes(&self) -> BTreeSet<Prefix> {
        let mut all = self.local.clone();
        for s in &self.sessions {
            all.extend(s.adj_in.keys().copied());
        }
        all
    }

    fn update(&mut self, id: usize, update: Update<'static>, at: Instant) {
        let Some(session) = self.sessions.get_mut(id) else {
            return;
        };
        session.updates_in += 1;
        let (peer_as, width, bgpsec_receive) = session
            .up
            .as_ref()
            .map_or((session.remote_as, AsWidth::Four, false), |u| {
                (u.remote_as, u.width, u.bgpsec_receive)
            });
        let mut touched: Vec<Prefix> = update.withdrawn_all().collect();
        for p in &touched {
            session.adj_in.remove(p);
        }
        let peer = Peer::external(self.local_as, peer_as);
        let bgpsec = match screen(&update, &peer, bgpsec_receive) {
            Ok(signed) => signed,
            Err(why) => {
                // Treat-as-withdraw (RFC 7606 §2, RFC 8205 §5.2), before the route is
                // used or forwarded, in both modes.
                let announced: Vec<Prefix> = update.announced().collect();
                tracing::info!(
                    "hopsig speaker: treat-as-withdraw of {} from {}: {why}",
                    announced
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                    session.address
                );
                for p in announced {
                    session.adj_in.remove(&p);
                    touched.push(p);
                }
                for p in touched {
                    self.decide(p);
                }
                return;
            }
        };
        let origin = update.origin().unwrap_or(Origin::Incomplete);
        let received = as4::received(&update, width);
        // A BGPsec_PATH stands for AS_PATH (§5), also when its blocks are all of
        // unsupported suites and the route is treated as unsigned (§5.2).
        let as_path = match update.bgpsec_path() {
            Some(b) => as_path_equivalent::as_path(b.secure_path()),
            None => received.as_path,
        };
        let attributes = passed_on(&update);
        let no_export = no_export(&update);
        let update = Arc::new(update);
        let mut jobs = vec![];
        for p in update.announced() {
            touched.push(p);
            if contains(&as_path, self.local_as) {
                // RFC 4271 §9.1.2: a route with the local AS in its path is not used.
                session.adj_in.remove(&p);
                continue;
            }
            self.seq += 1;
            let route = Route {
                seq: self.seq,
                received: at,
                bgpsec: bgpsec.then(|| Arc::clone(&update)),
                as_path: as_path.clone(),
                origin,
                aggregator: received.aggregator,
                attributes: Arc::clone(&attributes),
                no_export,
                state: if bgpsec {
                    RouteState::Pending
                } else {
                    RouteState::Unsigned
                },
                forwarded: false,
            };
            if bgpsec {
                jobs.push(Job {
                    validated: Validated {
                        neighbor: id,
                        prefix: p,
                        seq: self.seq,
                        result: Ok(0),
                    },
                    update: Arc::clone(&update),
                    peer,
                });
            }
            session.adj_in.insert(p, route);
        }
        // Forward first (lazy mode), then queue the validations.
        for p in touched {
            self.decide(p);
        }
        self.queue += jobs.len() as u64;
        self.pool.push(|q| q.validate.extend(jobs));
    }

    /// A sign job's answer: sent if its advert still stands, else dropped.
    fn signed(&mut self, s: Signed) {
        self.signing = self.signing.saturating_sub(1);
        let Some(advert) = self
            .sessions
            .get(s.session)
            .and_then(|session| session.adj_out.get(&s.prefix))
            .filter(|a| a.signing == Some(s.number))
        else {
            return;
        };
        let (source, as_path) = (advert.source, advert.as_path.clone());
        self.deliver(s.session, s.prefix, source, as_path, s.result);
    }

    fn validated(&mut self, v: Validated) {
        self.queue = self.queue.saturating_sub(1);
        let Some(session) = self.sessions.get_mut(v.neighbor) else {
            return;
        };
        let Some(route) = session.adj_in.get_mut(&v.prefix).filter(|r| r.seq == v.seq) else {
            return;
        };
        self.time_to_validate.record(route.received.elapsed());
        route.state = match v.result {
            Ok(suite) => RouteState::Valid(suite),
            Err(why) => RouteState::NotValid(why),
        };
        if let RouteState::NotValid(why) = route.state.clone() {
            let from = session.address.clone();
            let withdrawn_from: Vec<String> = self
                .sessions
                .iter()
                .filter(|s| {
                    s.adj_out
                        .get(&v.prefix)
                        .is_some_and(|a| a.source == Source::Neighbor(v.neighbor, v.seq))
                })
                .map(|s| s.address.clone())
                .collect();
            tracing::info!(
                "hopsig speaker: {} from {from} is Not Valid ({why}); withdrawn from [{}]",
                v.prefix,
                withdrawn_from.join(", ")
            );
            self.not_valid_total += 1;
            if self.not_valid.len() < NOT_VALID_LOG {
                self.not_valid.push(NotValidEntry {
                    neighbor: from,
                    prefix: v.prefix,
                    reason: why,
                    withdrawn_from,
                });
            }
        }
        self.decide(v.prefix);
    }

    fn eligible(&self, r: &Route) -> bool {
        match r.state {
            RouteState::Valid(_) | RouteState::Unsigned => true,
            RouteState::Pending => self.mode == Mode::Lazy,
            RouteState::NotValid(_) => false,
        }
    }

    /// The installed route of `p` (Loc-RIB).
    pub fn best(&self, p: &Prefix) -> Option<Source> {
        if self.local.contains(p) {
            return Some(Source::Local);
        }
        self.sessions
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                let r = s.adj_in.get(p).filter(|r| self.eligible(r))?;
                Some((path_length(&r.as_path), i, r.seq))
            })
            .min()
            .map(|(_, i, seq)| Source::Neighbor(i, seq))
    }

    /// Runs the decision for `p` and sends what changed to each Established session.
    fn decide(&mut self, p: Prefix) {
        let best = self.best(&p);
        for m in 0..self.sessions.len() {
            let Some(up) = self.sessions[m].up.as_ref() else {
                continue;
            };
            let remote_as = up.remote_as;
            let desired = best.filter(|src| match *src {
                Source::Local => true,
                Source::Neighbor(i, _) => {
                    i != m
                        && self.sessions[i]
                            .adj_in
                            .get(&p)
                            .is_some_and(|r| !contains(&r.as_path, remote_as) && !r.no_export)
                }
            });
            let current = self.sessions[m].adj_out.get(&p).map(|a| a.source);
            if desired == current {
                continue;
            }
            let Some(src) = desired else {
                self.take_back(m, p);
                continue;
            };
            let announce = match self.announcement(m, p, src) {
                Ok(a) => a,
                Err(why) => {
                    self.deliver(m, p, src, AsPath::default(), Err(why));
                    continue;
                }
            };
            if announce.sign && self.backlog {
                self.sign_jobs += 1;
                let number = self.sign_jobs;
                let on_wire = self.sessions[m].adj_out.get(&p).is_some_and(|a| a.on_wire);
                let advert = Advert {
                    source: src,
                    as_path: announce.out_path.clone(),
                    bgpsec: true,
                    signing: Some(number),
                    on_wire,
                };
                self.sessions[m].adj_out.insert(p, advert);
                self.signing += 1;
                self.pool.push(|q| {
                    q.sign.push_back(SignJob {
                        session: m,
                        number,
                        announce,
                    })
                });
            } else {
                let as_path = announce.out_path.clone();
                self.deliver(m, p, src, as_path, announce.build());
            }
        }
    }

    /// Withdraws `p` from session `m`, or announces it (`announce`: whether an
    /// announcement of `p` went out before, see [`super::outbox::Outbox::announce`]);
    /// never waits (see [`super::outbox`]).
    fn send(&mut self, m: usize, p: Prefix, bytes: Vec<u8>, announce: Option<bool>) {
        let session = &mut self.sessions[m];
        if let Some(up) = session.up.as_mut() {
            match announce {
                Some(sent) => up.tx.announce(p, bytes, sent),
                None => up.tx.withdraw(p, bytes),
            }
            session.updates_out += 1;
        }
    }

    /// Removes `p` from session `m`'s Adj-RIB-Out, withdrawing it if the neighbour
    /// holds (or is owed) an announcement of it.
    fn take_back(&mut self, m: usize, p: Prefix) {
        if self.sessions[m]
            .adj_out
            .remove(&p)
            .is_some_and(|a| a.on_wire)
        {
            let width = self.sessions[m]
                .up
                .as_ref()
                .map_or(AsWidth::Four, |u| u.width);
            match Message::Update(withdrawal(p)).encoding(width) {
                Ok(bytes) => self.send(m, p, bytes, None),
                Err(e) => tracing::info!("hopsig speaker: {p}: encode: {e}"),
            }
        }
    }

    /// Sends a built announcement of `p` from `src` to session `m` and records it in
    /// Adj-RIB-Out; a failure is logged and takes back what the session had.
    fn deliver(&mut self, m: usize, p: Prefix, src: Source, as_path: AsPath, built: Built) {
        let (bytes, bgpsec) = match built {
            Ok(b) => b,
            Err(why) => {
                tracing::info!(
                    "hopsig speaker: {p} not sent to {}: {why}",
                    self.sessions[m].address
                );
                return self.take_back(m, p);
            }
        };
        let advert = Advert {
            source: src,
            as_path,
            bgpsec,
            signing: None,
            on_wire: true,
        };
        let sent = self.sessions[m]
            .adj_out
            .insert(p, advert)
            .is_some_and(|a| a.on_wire);
        self.send(m, p, bytes, Some(sent));
        if let Source::Neighbor(i, seq) = src {
            if let Some(r) = self.sessions[i].adj_in.get_mut(&p).filter(|r| r.seq == seq) {
                if !r.forwarded {
                    r.forwarded = true;
                    self.time_to_forward.record(r.received.elapsed());
                }
            }
        }
    }

    /// What announcing `p` from `src` to session `m` needs.
    fn announcement(&self, m: usize, p: Prefix, src: Source) -> Result<Announce, String> {
        let session = &self.sessions[m];
        let up = session.up.as_ref().ok_or("session down")?;
        let (received, as_path, origin, aggregator, attributes) = match src {
            Source::Local => (None, AsPath::default(), Origin::Igp, None, Arc::from([])),
            Source::Neighbor(i, _) => {
                let r = self.sessions[i].adj_in.get(&p).ok_or("route gone")?;
                (
                    r.bgpsec.clone(),
                    r.as_path.clone(),
                    r.origin,
                    r.aggregator,
                    Arc::clone(&r.attributes),
                )
            }
        };
        Ok(Announce {
            signer: Arc::clone(&session.signer),
            remote_as: up.remote_as,
            width: up.width,
            // RFC 8205 §4.1: a route received without BGPsec_PATH is never signed.
            sign: up.bgpsec_send && (src == Source::Local || received.is_some()),
            prefix: p,
            received,
            out_path: prepend(&as_path, self.local_as),
            origin,
            aggregator,
            attributes,
            next_hop: self.next_hop,
        })
    }
}

/// Whether a received UPDATE's routes are BGPsec routes (`Ok(true)`), unsigned ones
/// (`Ok(false)`), or to treat as withdrawn (`Err(why)`), before anything uses them.
///
/// * A BGPsec_PATH from a neighbour that may not send one (RFC 8205 §2.2: it did not
///   announce Send, or this speaker Receive, or either side the 4-octet AS
///   capability) is a protocol error in that attribute: treat-as-withdraw (§5.2).
/// * The checks of §5.2 that need no cryptography ([`Validator::screen`]): a
///   failure is treat-as-withdraw; Signature_Blocks of unsupported suites only make
///   the routes unsigned ("strip the Signature_Block(s), reconstruct the AS_PATH …
///   and treat the UPDATE message as if it were received as an unsigned BGP UPDATE").
fn screen(update: &Update<'_>, peer: &Peer, bgpsec_receive: bool) -> Result<bool, String> {
    if update.bgpsec_path().is_none() {
        return Ok(false);
    }
    if !bgpsec_receive {
        return Err(
            "BGPsec_PATH from a neighbour that may not send it (BGPsec not negotiated, RFC 8205 §2.2)"
                .into(),
        );
    }
    let no_keys = RouterKeys::new();
    match Validator::with_suites(crate::SUITES, &no_keys).screen(update, peer) {
        Ok(()) => Ok(true),
        Err(NotValid::Unsigned(_)) => Ok(false),
        Err(why) => Err(why.to_string()),
    }
}

/// The received attributes an UPDATE of the route carries on: every attribute but
/// those the speaker builds itself (ORIGIN, AS_PATH, NEXT_HOP, MP_REACH_NLRI,
/// MP_UNREACH_NLRI, BGPsec_PATH, and AS4_PATH, AGGREGATOR, AS4_AGGREGATOR, rebuilt
/// for each neighbour's AS width, RFC 6793 §4.2), as RFC 4271 §5 passes them to an
/// external peer ([`PathAttribute::to_external_peer`]: unrecognized optional
/// transitive ones with the Partial bit set, optional non-transitive ones and
/// LOCAL_PREF not at all).
fn passed_on(update: &Update<'_>) -> Arc<[PathAttribute<'static>]> {
    const BUILT: [AttrType; 9] = [
        AttrType::Origin,
        AttrType::AsPath,
        AttrType::NextHop,
        AttrType::MpReachNlri,
        AttrType::MpUnreachNlri,
        AttrType::BgpsecPath,
        AttrType::As4Path,
        AttrType::Aggregator,
        AttrType::As4Aggregator,
    ];
    update
        .attributes
        .iter()
        .filter(|a| !BUILT.iter().any(|&t| u8::from(t) == a.type_code()))
        .filter_map(PathAttribute::to_external_peer)
        .map(PathAttribute::into_owned)
        .collect()
}

/// Whether COMMUNITIES holds a well-known community that keeps the route from every
/// neighbour of this speaker, all external (RFC 1997): NO_EXPORT ("MUST NOT be
/// advertised outside a BGP confederation boundary"), NO_ADVERTISE, NO_EXPORT_SUBCONFED
/// ("MUST NOT be advertised to external BGP peers"). Passing COMMUNITIES on makes
/// this speaker one that recognises them.
fn no_export(update: &Update<'_>) -> bool {
    const KEPT_IN: [u32; 3] = [0xFFFF_FF01, 0xFFFF_FF02, 0xFFFF_FF03];
    update.attributes.iter().any(|a| match a.value() {
        AttributeValue::Other { type_code, value }
            if *type_code == u8::from(AttrType::Communities) =>
        {
            value
                .chunks_exact(4)
                .any(|c| KEPT_IN.contains(&u32::from_be_bytes([c[0], c[1], c[2], c[3]])))
        }
        _ => false,
    })
}

/// An unsigned IPv4 UPDATE: ORIGIN, AS_PATH (with AS4_PATH toward an OLD neighbour),
/// NEXT_HOP, AGGREGATOR (AS4_AGGREGATOR) and the attributes passed on, in ascending
/// type code (RFC 4271 §5), the prefix in NLRI.
fn plain(a: &Announce) -> Result<Update<'static>, String> {
    if a.prefix.afi() != Afi::Ipv4 {
        return Err("IPv6 is sent to BGPsec neighbours only".into());
    }
    let mut attributes = vec![];
    for v in [
        AttributeValue::Origin(a.origin),
        AttributeValue::NextHop(a.next_hop),
    ] {
        attributes.push(PathAttribute::new(v, a.width).map_err(|e| e.to_string())?);
    }
    attributes.extend(
        as4::path_attributes(&a.out_path, a.aggregator, a.width).map_err(|e| e.to_string())?,
    );
    attributes.extend(a.attributes.iter().cloned());
    attributes.sort_by_key(PathAttribute::type_code);
    Ok(Update {
        attributes,
        nlri: vec![a.prefix],
        ..Update::default()
    })
}

/// The UPDATE withdrawing `p`: Withdrawn Routes for IPv4, MP_UNREACH_NLRI for IPv6.
fn withdrawal(p: Prefix) -> Update<'static> {
    if p.afi() == Afi::Ipv4 {
        return Update {
            withdrawn: vec![p],
            ..Update::default()
        };
    }
    let attributes = MpUnreachNlri::new(Afi::Ipv6, Safi::Unicast, vec![p])
        .ok()
        .and_then(|m| PathAttribute::new(AttributeValue::MpUnreachNlri(m), AsWidth::Four).ok())
        .into_iter()
        .collect();
    Update {
        attributes,
        ..Update::default()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    //! Issue 13 §2's property: after the validation queue drains, no Not Valid route
    //! remains installed or advertised — bad signatures, unknown SKIs, truncated
    //! paths — in lazy mode (where each was forwarded first) and in strict mode
    //! (where none was ever forwarded).

    use std::borrow::Cow;
    use std::collections::BTreeMap;
    use std::time::Duration;

    use crate::packet::BgpsecPath;
    use crate::suite::ECDSA_P256_SHA256;
    use crate::{AlgorithmSuite, RouterKey, SigningKey};
    use proptest::prelude::*;
    use tokio::sync::mpsc::unbounded_channel;

    use super::super::outbox::{self, Link};
    use super::*;

    const LOCAL: u32 = 65_100;
    const ORIGIN_AS: u32 = 65_000;
    const PEER_AS: u32 = 65_001;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Kind {
        Valid,
        BadSignature,
        UnknownSki,
        Truncated,
    }

    fn kind() -> impl Strategy<Value = Kind> {
        prop_oneof![
            Just(Kind::Valid),
            Just(Kind::BadSignature),
            Just(Kind::UnknownSki),
            Just(Kind::Truncated)
        ]
    }

    struct Keys {
        origin: SigningKey,
        rogue: SigningKey,
        peer: SigningKey,
        local: SigningKey,
        rpki: RouterKeys,
    }

    fn gen() -> SigningKey {
        ECDSA_P256_SHA256.generate().unwrap()
    }

    fn signer(asn: u32, key: &SigningKey) -> Signer<'static> {
        let text = ECDSA_P256_SHA256.secret_key_file(key).unwrap();
        let key = ECDSA_P256_SHA256
            .signing_key_from_file(text.as_bytes())
            .unwrap();
        Signer::new(asn).with_key(&ECDSA_P256_SHA256, key).unwrap()
    }

    fn keys() -> Keys {
        let (origin, rogue, peer, local) = (gen(), gen(), gen(), gen());
        let mut rpki = RouterKeys::new();
        for (asn, k) in [(ORIGIN_AS, &origin), (PEER_AS, &peer), (LOCAL, &local)] {
            rpki.insert(RouterKey::new(asn, *k.ski(), k.spki()));
        }
        Keys {
            origin,
            rogue,
            peer,
            local,
            rpki,
        }
    }

    fn prefix(i: u8) -> Prefix {
        Prefix::new(std::net::IpAddr::V4(Ipv4Addr::new(10, 0, i, 0)), 24).unwrap()
    }

    /// The UPDATE AS65001 sends to the local AS for a route AS65000 originated.
    fn update(keys: &Keys, p: Prefix, kind: Kind) -> Update<'static> {
        let origin_key = if kind == Kind::UnknownSki {
            &keys.rogue
        } else {
            &keys.origin
        };
        let nh = NextHop::V4(Ipv4Addr::new(192, 0, 2, 9));
        let attrs =
            vec![PathAttribute::new(AttributeValue::Origin(Origin::Igp), AsWidth::Four).unwrap()];
        let o = signer(ORIGIN_AS, origin_key)
            .originate(SignedNlri::unicast(p), nh, attrs, &Hop::to(PEER_AS))
            .unwrap();
        let mut u = signer(PEER_AS, &keys.peer)
            .forward(&o, None, &Hop::to(LOCAL))
            .unwrap()
            .into_owned();
        let (mut segments, mut blocks) = u.bgpsec_path().unwrap().clone().into_parts();
        match kind {
            Kind::Valid | Kind::UnknownSki => return u,
            Kind::BadSignature => {
                let mut sig = blocks[0].segments[0].signature.to_vec();
                let last = sig.len() - 1;
                sig[last] ^= 1;
                blocks[0].segments[0].signature = Cow::Owned(sig);
            }
            Kind::Truncated => {
                segments.pop();
                blocks[0].segments.pop();
            }
        }
        let path = BgpsecPath::new(segments, blocks).unwrap().into_owned();
        for a in &mut u.attributes {
            if matches!(a.value(), AttributeValue::BgpsecPath(_)) {
                *a = PathAttribute::new(AttributeValue::BgpsecPath(path.clone()), AsWidth::Four)
                    .unwrap();
            }
        }
        u
    }

    fn session(address: &str, remote_as: u32, bgpsec: bool, keys: &Keys) -> (Session, Link) {
        let (tx, rx) = outbox::channel(usize::MAX);
        let s = Session {
            address: address.into(),
            remote_as,
            state: State::Established,
            up: Some(Up {
                remote_as,
                width: AsWidth::Four,
                bgpsec_send: bgpsec,
                bgpsec_receive: bgpsec,
                tx,
            }),
            signer: Arc::new(signer(LOCAL, &keys.local)),
            adj_in: BTreeMap::new(),
            adj_out: BTreeMap::new(),
            updates_in: 0,
            updates_out: 0,
            last_error: None,
        };
        (s, rx)
    }

    /// What a session's messages leave announced, and every prefix ever announced.
    fn on_the_wire(rx: &mut Link) -> (BTreeSet<Prefix>, BTreeSet<Prefix>) {
        let (mut now, mut ever) = (BTreeSet::new(), BTreeSet::new());
        for bytes in rx.take_all() {
            let Message::Update(u) = Message::decode(&bytes, AsWidth::Four).unwrap() else {
                panic!("not an UPDATE")
            };
            for p in u.withdrawn_all() {
                now.remove(&p);
            }
            for p in u.announced() {
                now.insert(p);
                ever.insert(p);
            }
        }
        (now, ever)
    }

    /// With `backlog`, the RIB is told more events wait, so it has the pool sign.
    fn run(routes: &[(u8, Kind)], mode: Mode, threads: usize, backlog: bool) {
        let keys = keys();
        let (events_tx, mut events) = unbounded_channel();
        let pool = Pool::new(threads, Arc::new(keys.rpki.clone()), events_tx);
        let (s0, _rx0) = session("source", PEER_AS, true, &keys);
        let (s1, mut rx1) = session("bgpsec", 65_010, true, &keys);
        let (s2, mut rx2) = session("plain", 65_020, false, &keys);
        let mut rib = Rib::new(
            LOCAL,
            Ipv4Addr::new(192, 0, 2, 100),
            mode,
            BTreeSet::new(),
            vec![s0, s1, s2],
            pool,
        );
        rib.backlog = backlog;
        let mut last = BTreeMap::new();
        for &(i, kind) in routes {
            last.insert(prefix(i), kind);
            let u = update(&keys, prefix(i), kind);
            rib.handle(Event::Update(0, Box::new(u), Instant::now()));
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        while rib.busy() {
            assert!(Instant::now() < deadline, "validation queue did not drain");
            match events.try_recv() {
                Ok(e) => rib.handle(e),
                Err(_) => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        let valid: BTreeSet<Prefix> = last
            .iter()
            .filter(|(_, k)| **k == Kind::Valid)
            .map(|(p, _)| *p)
            .collect();
        for (p, kind) in &last {
            let state = &rib.sessions[0].adj_in[p].state;
            assert!(rib
                .sessions
                .iter()
                .all(|s| s.adj_out.values().all(|a| a.signing.is_none() && a.on_wire)));
            assert_eq!(
                matches!(state, RouteState::Valid(1)),
                *kind == Kind::Valid,
                "{p} {kind:?}: {state:?}"
            );
            assert_eq!(
                rib.best(p).is_some(),
                *kind == Kind::Valid,
                "{p} {kind:?} installed"
            );
        }
        for (name, rx, bgpsec) in [("bgpsec", &mut rx1, true), ("plain", &mut rx2, false)] {
            let (now, ever) = on_the_wire(rx);
            assert_eq!(now, valid, "advertised to {name}");
            let out: BTreeSet<Prefix> = rib
                .sessions
                .iter()
                .find(|s| s.address == name)
                .unwrap()
                .adj_out
                .keys()
                .copied()
                .collect();
            assert_eq!(out, valid, "Adj-RIB-Out of {name}");
            assert!(rib
                .sessions
                .iter()
                .find(|s| s.address == name)
                .unwrap()
                .adj_out
                .values()
                .all(|a| a.bgpsec == bgpsec));
            let all: BTreeSet<Prefix> = last.keys().copied().collect();
            match mode {
                // Lazy, signed on the RIB task: every route went out before its
                // validation. (Signed by the pool, a route whose validation
                // answer comes back before its signature is not sent if Not Valid.)
                Mode::Lazy if !backlog => assert_eq!(ever, all, "forwarded at once to {name}"),
                Mode::Lazy => {}
                // Strict: only routes once valid ever went out.
                Mode::Strict => {
                    let once_valid: BTreeSet<Prefix> = routes
                        .iter()
                        .filter(|(_, k)| *k == Kind::Valid)
                        .map(|(i, _)| prefix(*i))
                        .collect();
                    assert!(
                        ever.is_subset(&once_valid),
                        "strict sent a route before validating it"
                    );
                }
            }
        }
    }

    /// Review of issue 22 §2: toward a neighbour whose queue is stuck, routes that
    /// another neighbour announces and withdraws (each prefix once) leave nothing
    /// held back — what waits stays bounded by the table, not the churn — and
    /// once the queue moves, the neighbour ends up with exactly the Adj-RIB-Out,
    /// a prefix it was sent and that was withdrawn, re-announced and withdrawn
    /// while held back included.
    #[test]
    fn churn_toward_a_stuck_neighbour_holds_back_no_more_than_the_table() {
        let keys = keys();
        let (events_tx, _events) = unbounded_channel();
        let pool = Pool::new(1, Arc::new(keys.rpki.clone()), events_tx);
        let (s0, _rx0) = session("source", PEER_AS, false, &keys);
        let (mut s1, _) = session("stuck", 65_010, false, &keys);
        let (tx, rx) = outbox::channel(2_000);
        if let Some(up) = s1.up.as_mut() {
            up.tx = tx;
        }
        let mut rib = Rib::new(
            LOCAL,
            Ipv4Addr::new(192, 0, 2, 100),
            Mode::Lazy,
            BTreeSet::new(),
            vec![s0, s1],
            pool,
        );
        let path = AsPath::sequence(vec![PEER_AS]);
        let nh = Ipv4Addr::new(192, 0, 2, 9);
        fn source(rib: &mut Rib, u: Update<'static>) {
            rib.handle(Event::Update(0, Box::new(u), Instant::now()));
        }
        // An unsigned UPDATE of neighbour 0 announcing `p`.
        let plain = |p: Prefix, path: &AsPath, origin: Origin, nh: Ipv4Addr| {
            let attributes = [
                AttributeValue::Origin(origin),
                AttributeValue::AsPath(path.clone()),
                AttributeValue::NextHop(nh),
            ]
            .into_iter()
            .map(|a| PathAttribute::new(a, AsWidth::Four))
            .collect::<Result<Vec<_>, _>>();
            attributes.map(|attributes| Update {
                attributes,
                nlri: vec![p],
                ..Update::default()
            })
        };
        let p = |i: u16| {
            let [a, b] = i.to_be_bytes();
            Prefix::new(std::net::IpAddr::V4(Ipv4Addr::new(11, a, b, 0)), 24).unwrap()
        };
        let table = 20;
        for i in 0..table {
            source(&mut rib, plain(p(i), &path, Origin::Igp, nh).unwrap());
        }
        for i in table..4_000 {
            source(&mut rib, plain(p(i), &path, Origin::Igp, nh).unwrap());
            source(&mut rib, withdrawal(p(i)));
        }
        let held = |rib: &Rib| rib.sessions[1].up.as_ref().unwrap().tx.held_back();
        assert!(held(&rib) <= usize::from(table), "{} held back", held(&rib));
        // Prefix 0 went into the queue; 1 to 19 were held back.
        for i in 0..table {
            source(&mut rib, withdrawal(p(i)));
        }
        for i in 0..10 {
            source(&mut rib, plain(p(i), &path, Origin::Igp, nh).unwrap());
        }
        for i in 0..5 {
            source(&mut rib, withdrawal(p(i)));
        }
        // The neighbour reads: the writer empties the queue, the RIB refills it.
        let mut messages = vec![];
        loop {
            let taken = rx.take_all();
            if taken.is_empty() && held(&rib) == 0 {
                break;
            }
            messages.extend(taken);
            rib.handle(Event::Room(1));
        }
        let mut now = BTreeSet::new();
        for bytes in &messages {
            let Message::Update(u) = Message::decode(bytes, AsWidth::Four).unwrap() else {
                panic!("not an UPDATE")
            };
            for q in u.withdrawn_all() {
                now.remove(&q);
            }
            now.extend(u.announced());
        }
        let out: BTreeSet<Prefix> = rib.sessions[1].adj_out.keys().copied().collect();
        assert_eq!(out, (5..10).map(p).collect::<BTreeSet<_>>());
        assert_eq!(now, out, "what the neighbour ends up with");
        assert!(
            messages.len() < 200,
            "{} UPDATEs for 5 routes",
            messages.len()
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn no_not_valid_route_survives_the_queue(
            routes in proptest::collection::vec((0u8..6, kind()), 1..16),
            lazy in any::<bool>(),
            threads in 1usize..4,
            backlog in any::<bool>(),
        ) {
            run(&routes, if lazy { Mode::Lazy } else { Mode::Strict }, threads, backlog);
        }
    }

    #[test]
    fn each_kind_alone_in_both_modes() {
        for (mode, backlog) in [
            (Mode::Lazy, false),
            (Mode::Lazy, true),
            (Mode::Strict, false),
            (Mode::Strict, true),
        ] {
            run(
                &[
                    (0, Kind::Valid),
                    (1, Kind::BadSignature),
                    (2, Kind::UnknownSki),
                    (3, Kind::Truncated),
                ],
                mode,
                2,
                backlog,
            );
        }
    }
}
