//! Adj-RIB-In (RFC 4271 §3.2): each session's routes with their validation state
//! (RFC 8205 §5.1). A BGPsec UPDATE is screened first, on the RIB task
//! ([`Validator::screen`], §5.2 without the signatures): an error is
//! treat-as-withdraw, only unsupported suites make it unsigned. The AS path from an
//! OLD (2-octet) neighbour is AS_PATH merged with AS4_PATH (RFC 6793 §4.2.3). BGPsec
//! routes are validated in the worker pool ([`ValidateJob`]). Route origin
//! validation (RFC 6811) and ASPA verification (draft-ietf-sidrops-aspa-verification)
//! are cheap and run on the RIB task, with the current RPKI view.

use std::sync::Arc;
use std::time::Instant;

use super::decision::contains;
use super::{NotValidEntry, Rib, NOT_VALID_LOG};
use crate::as4::{self, Aggregator};
use crate::as_path_equivalent;
use crate::packet::Afi;
use crate::packet::{
    AsPath, AsWidth, AttrFlags, AttrType, AttributeValue, Origin, PathAttribute, Prefix, Update,
};
use crate::rpki::aspa::{AspaState, AspaVerdict, Relation};
use crate::rpki::rov::RovVerdict;
use crate::rpki::view::View;
use crate::speaker::events::Validated;
use crate::speaker::logs;
use crate::{NotValid, Peer, RouterKeys, Validation, Validator};

/// A route's validation state (RFC 8205 §5.1, plus "pending" for lazy mode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RouteState {
    /// Waiting in the validation queue.
    Pending,
    /// 'Valid' by a block of this suite.
    Valid(u8),
    /// 'Not Valid', and why.
    NotValid(NotValid),
    /// Not validated: the validation job failed (a bug in hopsig, the message says
    /// what); treated as 'Not Valid'.
    Failed(String),
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
            RouteState::Failed(failure) => format!("not valid: validation failed: {failure}"),
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
    /// BGPsec validation state.
    pub state: RouteState,
    /// Route origin validation (RFC 6811) with the current view.
    pub rov: RovVerdict,
    /// ASPA verification with the current view and the neighbour's role.
    pub aspa: AspaVerdict,
    /// The number of the route's latest validation job (0: none queued); answers of
    /// other jobs are dropped.
    pub job: u64,
    /// The view generation of the latest job's queueing: an answer computed with an
    /// older view is redone.
    pub queued_generation: u64,
    /// The view generation that gave `state` (0 for none: pending or unsigned).
    pub validated_generation: u64,
    /// A revalidation is out: `state` is that of an older view until it answers.
    pub revalidating: bool,
    /// Whether time-to-forward was recorded.
    pub forwarded: bool,
    /// The degree of preference (RFC 4271 §9.1.1): the neighbour's `local_pref`.
    pub local_pref: u32,
    /// The received MULTI_EXIT_DISC (RFC 4271 §5.1.4), compared among routes from
    /// the same neighbouring AS (§9.1.2.2 c); not passed on.
    pub med: Option<u32>,
    /// The neighbour's import filter denied the prefix: kept to be shown, not used.
    pub filtered: bool,
}

impl Route {
    /// Whether a change of the router keys for (AS, SKI) pairs that `affected` says
    /// yes to may change this route's BGPsec verdict: a pair of its Secure_Path and
    /// Signature_Blocks (RFC 8205 §3), or any pair when the blocks do not line up with
    /// the Secure_Path.
    pub fn uses_key(&self, affected: &dyn Fn(u32, &crate::Ski) -> bool) -> bool {
        let Some(path) = self.bgpsec.as_ref().and_then(|u| u.bgpsec_path()) else {
            return false;
        };
        let hops = path.secure_path();
        path.signature_blocks().iter().any(|b| {
            b.segments.len() != hops.len()
                || b.segments
                    .iter()
                    .zip(hops)
                    .any(|(seg, hop)| affected(hop.asn, &seg.ski))
        })
    }
}

/// The ROV and ASPA verdicts of a route with AS path `as_path` for `p`, from a
/// neighbour of role `role`, under `view`. Without a role ASPA cannot tell upstream
/// from downstream (draft-ietf-sidrops-aspa-verification §6): the verdict is Unknown.
pub fn origin_and_path(
    view: &View,
    p: &Prefix,
    as_path: &AsPath,
    role: Option<Relation>,
) -> (RovVerdict, AspaVerdict) {
    let aspa = match role {
        Some(r) => view.aspa(as_path, r),
        None => AspaVerdict {
            state: AspaState::Unknown,
            reason: "no role configured for the neighbour, so no ASPA verification (draft-ietf-sidrops-aspa-verification §6 needs it)".into(),
        },
    };
    (view.rov(p, as_path), aspa)
}

/// Where the installed route of a prefix comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    /// This router originates it.
    Local,
    /// A route from this session (and its sequence number).
    Neighbor(usize, u64),
}

/// One validation job: a route of a received BGPsec UPDATE, validated on a worker
/// ([`super::super::pool::Pool::validate`]).
pub struct ValidateJob {
    /// The session the route came from.
    pub(crate) neighbor: usize,
    /// The route's prefix.
    pub(crate) prefix: Prefix,
    /// The route's sequence number.
    pub(crate) seq: u64,
    /// The job's number ([`Route::job`]).
    pub(crate) job: u64,
    update: Arc<Update<'static>>,
    peer: Peer,
}

impl ValidateJob {
    /// Validates the UPDATE of each of `jobs` (RFC 8205 §5.2) with `validator`, which
    /// holds the keys of view `generation`: one answer per job, in order, their
    /// UPDATEs validated together ([`Validator::updates`]: the signature checks of
    /// all of them in one batch), each answer the one its job gets alone.
    pub(crate) fn run_all(
        jobs: &[&ValidateJob],
        validator: &Validator<'_>,
        generation: u64,
    ) -> Vec<Validated> {
        let updates: Vec<(&Update<'_>, &Peer)> =
            jobs.iter().map(|j| (&*j.update, &j.peer)).collect();
        jobs.iter()
            .zip(validator.updates(&updates))
            .map(|(j, v)| Validated {
                neighbor: j.neighbor,
                prefix: j.prefix,
                seq: j.seq,
                job: j.job,
                generation,
                result: Ok(v),
            })
            .collect()
    }
}

impl Rib {
    /// An UPDATE from session `id`, received at `at`: withdrawals, then its routes
    /// into Adj-RIB-In (screened, RFC 7606 / RFC 8205 §5.2), the decision for each
    /// prefix touched, and the validation jobs.
    pub(super) fn update(&mut self, id: usize, update: Update<'static>, at: Instant) {
        let Some(session) = self.sessions.get_mut(id) else {
            return;
        };
        session.updates_in += 1;
        let role = self.policies.get(id).and_then(|p| p.role);
        let (peer_as, width, bgpsec_receive) =
            session
                .up
                .as_ref()
                .map_or((session.remote_as, AsWidth::Four, false), |u| {
                    // RFC 8205 §2.2: per AFI, that of the BGPsec UPDATE's MP_REACH_NLRI.
                    let afi = update.mp_reach().map_or(Afi::Ipv4, |m| m.afi());
                    (u.remote_as, u.width, u.bgpsec_receive_for(afi))
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
        let rules = super::policy::rules_of(&self.rules, id);
        let attributes = with_communities(passed_on(&update), &rules.add_communities);
        let no_export = no_export(&update)
            || rules
                .add_communities
                .iter()
                .any(|c| NO_EXPORT_COMMUNITIES.contains(c));
        let med = med(&update);
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
            let (rov, aspa) = origin_and_path(&self.view, &p, &as_path, role);
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
                rov,
                aspa,
                job: if bgpsec { self.seq } else { 0 },
                queued_generation: self.generation,
                validated_generation: 0,
                revalidating: false,
                forwarded: false,
                local_pref: rules.local_pref,
                med,
                filtered: !rules.import.permits(&p),
            };
            if bgpsec {
                jobs.push(ValidateJob {
                    neighbor: id,
                    prefix: p,
                    seq: self.seq,
                    job: self.seq,
                    update: Arc::clone(&update),
                    peer,
                });
            } else {
                crate::speaker::metrics::verdict(&route.state);
            }
            session.adj_in.insert(p, route);
        }
        // Forward first (lazy mode), then queue the validations.
        for p in touched {
            self.decide(p);
        }
        self.queue += jobs.len() as u64;
        self.pool.validate(jobs);
    }

    /// A validation job's answer: the route's state, and the decision again. An
    /// answer of a superseded job is dropped; one computed with a view older than the
    /// job's is redone.
    pub(super) fn validated(&mut self, v: Validated) {
        self.queue = self.queue.saturating_sub(1);
        let generation = self.generation;
        let Some(session) = self.sessions.get_mut(v.neighbor) else {
            return;
        };
        // Before `route` borrows the session.
        let peer = session.peer(self.local_as);
        let Some(route) = session
            .adj_in
            .get_mut(&v.prefix)
            .filter(|r| r.seq == v.seq && r.job == v.job)
        else {
            return;
        };
        if v.result.is_ok() && v.generation < route.queued_generation {
            if let Some(job) =
                revalidation(v.neighbor, v.prefix, route, peer, &mut self.seq, generation)
            {
                self.queue += 1;
                self.pool.validate(vec![job]);
            }
            return;
        }
        let was = route.state.clone();
        let revalidated = std::mem::replace(&mut route.revalidating, false);
        route.validated_generation = v.generation;
        if !revalidated {
            self.time_to_validate.record(route.received.elapsed());
        }
        route.state = match v.result {
            Ok(Validation::Valid { suite, .. }) => RouteState::Valid(suite),
            Ok(Validation::NotValid(why)) => RouteState::NotValid(why),
            Err(failure) => RouteState::Failed(failure),
        };
        crate::speaker::metrics::verdict(&route.state);
        let why = match &route.state {
            RouteState::NotValid(why) => Some(why.to_string()),
            RouteState::Failed(failure) => Some(format!("validation failed: {failure}")),
            RouteState::Pending | RouteState::Valid(_) | RouteState::Unsigned => None,
        };
        // A revalidation that finds what the route was: nothing to log or decide.
        if revalidated && was == route.state {
            return;
        }
        if was != route.state {
            let reason = match &route.state {
                RouteState::Valid(suite) => format!("suite {suite}"),
                _ => why.clone().unwrap_or_default(),
            };
            logs::validation_state(
                &v.prefix,
                &session.address,
                "bgpsec",
                logs::route_state_kind(&was),
                logs::route_state_kind(&route.state),
                &reason,
            );
        }
        if revalidated {
            tracing::info!(
                "hopsig speaker: {} from {} revalidated after an RPKI change: {} (was {}); ROV {}, ASPA {}",
                v.prefix,
                session.address,
                route.state.name(),
                was.name(),
                route.rov.state,
                route.aspa.state
            );
        }
        if let Some(why) = why {
            let (rov, aspa) = (route.rov.state, route.aspa.state);
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
                event = "withdrawn_not_valid",
                prefix = %v.prefix,
                neighbor = %from,
                reason = %why,
                withdrawn_from = %withdrawn_from.join(","),
                rov = %rov,
                aspa = %aspa,
                mode = self.mode.name(),
                "hopsig speaker: {} from {from} is Not Valid ({why}); withdrawn from [{}]; ROV {}, ASPA {}",
                v.prefix,
                withdrawn_from.join(", "),
                rov,
                aspa
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
}

/// A new validation job for `route` (a BGPsec route of session `neighbor`), which
/// supersedes any job out for it: numbered from `numbers`, queued at view
/// `generation`. `None` for an unsigned route.
pub(super) fn revalidation(
    neighbor: usize,
    prefix: Prefix,
    route: &mut Route,
    peer: Peer,
    numbers: &mut u64,
    generation: u64,
) -> Option<ValidateJob> {
    let update = Arc::clone(route.bgpsec.as_ref()?);
    *numbers += 1;
    route.job = *numbers;
    route.queued_generation = generation;
    route.revalidating = route.state != RouteState::Pending;
    Some(ValidateJob {
        neighbor,
        prefix,
        seq: route.seq,
        job: route.job,
        update,
        peer,
    })
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
    const KEPT_IN: [u32; 3] = NO_EXPORT_COMMUNITIES;
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

/// NO_EXPORT, NO_ADVERTISE, NO_EXPORT_SUBCONFED (RFC 1997): a route with any of
/// them goes to no neighbour of this speaker, all external.
const NO_EXPORT_COMMUNITIES: [u32; 3] = [0xFFFF_FF01, 0xFFFF_FF02, 0xFFFF_FF03];

/// The UPDATE's MULTI_EXIT_DISC (RFC 4271 §4.3: four octets), if any.
fn med(update: &Update<'_>) -> Option<u32> {
    update.attributes.iter().find_map(|a| match a.value() {
        AttributeValue::Other { type_code, value }
            if *type_code == u8::from(AttrType::MultiExitDisc) =>
        {
            Some(u32::from_be_bytes(value.as_ref().try_into().ok()?))
        }
        _ => None,
    })
}

/// `attributes` with `add` joined to COMMUNITIES (RFC 1997; created if missing,
/// optional transitive), each community once, those received first; `attributes`
/// itself when `add` is empty.
pub(super) fn with_communities(
    attributes: Arc<[PathAttribute<'static>]>,
    add: &[u32],
) -> Arc<[PathAttribute<'static>]> {
    if add.is_empty() {
        return attributes;
    }
    let code = u8::from(AttrType::Communities);
    let old = attributes.iter().find(|a| a.type_code() == code);
    let mut values: Vec<u32> = match old.map(PathAttribute::value) {
        Some(AttributeValue::Other { value, .. }) => value
            .chunks_exact(4)
            .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        _ => vec![],
    };
    for c in add {
        if !values.contains(c) {
            values.push(*c);
        }
    }
    let value: Vec<u8> = values.iter().flat_map(|c| c.to_be_bytes()).collect();
    let mut flags = old.map_or(AttrFlags::OPTIONAL | AttrFlags::TRANSITIVE, |a| {
        a.flags().0 & !AttrFlags::EXTENDED_LENGTH
    });
    if value.len() > 255 {
        flags |= AttrFlags::EXTENDED_LENGTH;
    }
    let value = AttributeValue::Other {
        type_code: code,
        value: value.into(),
    };
    let Ok(communities) = PathAttribute::with_flags(AttrFlags(flags), value) else {
        return attributes;
    };
    let mut all: Vec<PathAttribute<'static>> = attributes
        .iter()
        .filter(|a| a.type_code() != code)
        .cloned()
        .collect();
    all.push(communities);
    all.sort_by_key(PathAttribute::type_code);
    all.into()
}
