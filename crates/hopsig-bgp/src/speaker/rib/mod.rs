//! The RIB task: every route the speaker knows, owned by one task (holo-bgp's
//! layout), in one file per part:
//!
//! * [`adj_in`] — Adj-RIB-In per session, each route with its validation state;
//! * [`decision`] — the decision process (RFC 4271 §9.1, reduced);
//! * [`adj_out`] — Adj-RIB-Out per session, signing (RFC 8205 §4) or the AS_PATH
//!   downgrade (§4.4);
//! * validation and, under a backlog, signing run in the worker pool
//!   ([`super::pool`]); in lazy mode a route is forwarded before it is validated,
//!   and a Not Valid answer withdraws it from every session it went to and logs why
//!   (issue 13 §2, BGR §1);
//! * [`policy`] — each neighbour's role and policy on the BGPsec, ROV and ASPA
//!   verdicts;
//! * [`revalidate`] — a new RPKI view: the routes it affects get new verdicts, in
//!   chunks so that sessions are never stalled (issue 24 §2).
//! * [`filter`] — prefix lists, each neighbour's import and export filters, and
//!   [`policy::Rules`], the rest of its route policy (issue 25 §4);
//!   [`max_prefix`] — each neighbour's accepted prefixes and limit (RFC 4486);
//! * [`query`] — the answers to the read-only HTTP API, a bounded page each;
//! * [`reconfigure`] — a configuration reload: sessions added and removed, policy
//!   applied to the routes held (issue 26 §4).

pub mod adj_in;
pub mod adj_out;
pub mod decision;
pub mod filter;
pub mod max_prefix;
pub mod policy;
pub mod query;
pub mod reconfigure;
pub mod refresh;
pub mod restart;
pub mod revalidate;

#[cfg(test)]
mod family_tests;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::net::Ipv4Addr;
use std::sync::Arc;

use super::config::Mode;
use super::events::{Event, State, Up};
use super::metrics::{names, Latency};
use super::pool::Pool;
use crate::packet::Prefix;
use crate::rpki::rtr::CacheStatus;
use crate::rpki::view::View;
use crate::Signer;

pub use adj_in::{Route, RouteState, Source, ValidateJob};
pub use adj_out::{prepend, Advert, Announce, SignJob};
pub use policy::Policy;
pub use policy::{MaxPrefixes, Rules};
pub use revalidate::Walk;

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

impl Session {
    /// A session with neighbour `address` of AS `remote_as`, in Idle with empty
    /// tables, signing with `signer`; `up` is set when it reaches Established
    /// ([`Event::Up`]).
    pub fn new(
        address: impl Into<String>,
        remote_as: u32,
        signer: Arc<Signer<'static>>,
    ) -> Session {
        Session {
            address: address.into(),
            remote_as,
            state: State::Idle,
            up: None,
            signer,
            adj_in: BTreeMap::new(),
            adj_out: BTreeMap::new(),
            updates_in: 0,
            updates_out: 0,
            last_error: None,
        }
    }

    /// The neighbour as a BGPsec path verifier sees it from AS `local_as` (RFC 8205
    /// §5.2): an external peer of the AS it opened with while Established, else of
    /// the configured one.
    pub fn peer(&self, local_as: u32) -> crate::Peer {
        let remote_as = self.up.as_ref().map_or(self.remote_as, |u| u.remote_as);
        crate::Peer::external(local_as, remote_as)
    }
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
    pub time_to_forward: Latency,
    /// From an UPDATE's arrival to its validation result.
    pub time_to_validate: Latency,
    /// Routes found Not Valid.
    pub not_valid: Vec<NotValidEntry>,
    /// Counts every route ever found Not Valid.
    pub not_valid_total: u64,
    /// Each session's role and policy, by session number (a session without one
    /// has [`Policy::default`]: no role, permissive).
    pub policies: Vec<Policy>,
    /// The RPKI view in force: ROV and ASPA verdicts come from it, validation jobs
    /// queued from now on use it (or a newer one).
    pub view: Arc<View>,
    /// Its generation ([`super::pool::SharedView`]).
    pub generation: u64,
    /// The RPKI caches' states, as the RPKI task last reported them.
    pub caches: Vec<CacheStatus>,
    /// Revalidations under way, oldest first: one per view change.
    pub walks: VecDeque<Walk>,
    /// What the last finished revalidation did, for the status file.
    pub last_walk: Option<revalidate::Done>,
    pool: Pool,
    seq: u64,
    sign_jobs: u64,
    /// Each session's stale routes (route refresh, graceful restart), by session
    /// number ([`refresh::Stale`]).
    pub stale: Vec<refresh::Stale>,
    /// Each session's route policy beyond the verdicts, by session number (a
    /// session without one has [`Rules::DEFAULT`]: no filter, LOCAL_PREF 100).
    pub rules: Vec<Rules>,
    /// Each session's accepted prefixes and prefix-limit state ([`max_prefix`]).
    pub prefix_counts: Vec<max_prefix::PrefixCount>,
    /// Sessions whose neighbour a reload removed: tombstones, their numbers kept so
    /// that no other session's changes, shown nowhere ([`reconfigure`]).
    pub removed: BTreeSet<usize>,
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
        let (generation, view) = pool.view().current();
        Rib {
            local_as,
            next_hop,
            mode,
            local,
            sessions,
            queue: 0,
            signing: 0,
            backlog: false,
            time_to_forward: Latency::new(names::TIME_TO_FORWARD),
            time_to_validate: Latency::new(names::TIME_TO_VALIDATE),
            not_valid: vec![],
            not_valid_total: 0,
            policies: vec![],
            view,
            generation,
            caches: vec![],
            walks: VecDeque::new(),
            last_walk: None,
            pool,
            seq: 0,
            sign_jobs: 0,
            stale: vec![],
            rules: vec![],
            prefix_counts: vec![],
            removed: BTreeSet::new(),
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
                self.restarted(id);
            }
            Event::Down(id, why) => {
                if self.graceful_down(id, &why) {
                    return;
                }
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
                self.reset_count(id);
            }
            Event::Update(id, update, at) => {
                self.refreshed(id, &update);
                self.update_counted(id, *update, at)
            }
            Event::RouteRefresh(id, rr) => self.route_refresh(id, rr),
            Event::TreatAsWithdraw(id, prefixes) => {
                let gone = self.accepted_among(id, prefixes.iter());
                self.uncount(id, gone);
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
            Event::Signed(s) => {
                let id = s.session;
                self.signed(s);
                self.end_of_rib_if_sent(id);
            }
            Event::Rpki(news) => {
                self.caches = news.caches;
                if let Some(view) = news.view {
                    self.set_view(view);
                }
            }
            Event::Query(q) => self.answer(q),
        }
    }

    /// Session `i`'s policy.
    pub fn policy(&self, i: usize) -> Policy {
        self.policies.get(i).copied().unwrap_or_default()
    }

    /// Session `i`'s route policy beyond the verdicts.
    pub fn rules(&self, i: usize) -> &Rules {
        policy::rules_of(&self.rules, i)
    }

    /// Whether jobs are still out with the pool, or a revalidation is under way.
    pub fn busy(&self) -> bool {
        self.queue > 0 || self.signing > 0 || !self.walks.is_empty()
    }

    /// The counters of the signature cache the pool's workers share (the status
    /// file's `signature_cache`).
    pub fn signature_cache(&self) -> crate::cache::CacheStats {
        self.pool.signature_cache().stats()
    }

    fn known_prefixes(&self) -> BTreeSet<Prefix> {
        let mut all = self.local.clone();
        for s in &self.sessions {
            all.extend(s.adj_in.keys().copied());
        }
        all
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

    use std::time::Instant;

    use super::super::outbox::{self, Link};
    use super::adj_out::withdrawal;
    use super::*;
    use crate::packet::{
        AsPath, AsWidth, AttributeValue, Message, NextHop, Origin, PathAttribute, Update,
    };
    use crate::{Hop, RouterKeys, SignedNlri};

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
                afis: Default::default(),
                next_hop6: None,
                features: Default::default(),
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

    // ---- Issue 24 §2–§3: RPKI view changes, ROV, ASPA and policy ----

    use crate::rpki::aspa::Relation;
    use crate::rpki::payload::{Aspa as PayloadAspa, Payload, RouteOrigin};
    use crate::rpki::view::View;
    use crate::rpki::{Limits, PayloadSet};
    use crate::{Validation, Validator};

    /// An AS that holds nothing: a VRP or provider of it makes ROV or ASPA Invalid.
    const OTHER_AS: u32 = 64_999;

    /// What a test view publishes.
    #[derive(Debug, Clone)]
    struct ViewSpec {
        /// Router keys published: the origin's, the rogue's (as the origin's AS), the
        /// peer's.
        origin_key: bool,
        rogue_key: bool,
        peer_key: bool,
        /// Per prefix 0..6: no VRP, a VRP of the origin AS, a VRP of another AS.
        vrps: Vec<Option<bool>>,
        /// An ASPA of the origin AS: the peer as provider, or another AS.
        aspa: Option<bool>,
    }

    fn view_spec() -> impl Strategy<Value = ViewSpec> {
        (
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            proptest::collection::vec(proptest::option::of(any::<bool>()), 6),
            proptest::option::of(any::<bool>()),
        )
            .prop_map(|(origin_key, rogue_key, peer_key, vrps, aspa)| ViewSpec {
                origin_key,
                rogue_key,
                peer_key,
                vrps,
                aspa,
            })
    }

    fn router_key(asn: u32, k: &SigningKey) -> Payload {
        Payload::RouterKey(crate::rpki::payload::RouterKey::new(
            (*k.ski()).into(),
            ::rpki::resources::Asn::from_u32(asn),
            k.spki().to_vec().try_into().unwrap(),
        ))
    }

    fn vrp(i: u8, asn: u32) -> Payload {
        let prefix = ::rpki::resources::addr::Prefix::new(
            std::net::IpAddr::V4(Ipv4Addr::new(10, 0, i, 0)),
            24,
        )
        .unwrap();
        Payload::Origin(RouteOrigin::new(
            ::rpki::resources::addr::MaxLenPrefix::new(prefix, Some(24)).unwrap(),
            ::rpki::resources::Asn::from_u32(asn),
        ))
    }

    fn aspa(customer: u32, provider: u32) -> Payload {
        let providers =
            ::rpki::rtr::pdu::ProviderAsns::try_from_iter([::rpki::resources::Asn::from_u32(
                provider,
            )])
            .unwrap();
        Payload::Aspa(PayloadAspa::new(
            ::rpki::resources::Asn::from_u32(customer),
            providers,
        ))
    }

    /// The view `spec` describes; the local AS's key is always published.
    fn view(keys: &Keys, spec: &ViewSpec) -> Arc<View> {
        let limits = Limits::default();
        let mut set = PayloadSet::new();
        let mut add = |item| set.insert(item, &limits).unwrap();
        add(router_key(LOCAL, &keys.local));
        if spec.origin_key {
            add(router_key(ORIGIN_AS, &keys.origin));
        }
        if spec.rogue_key {
            add(router_key(ORIGIN_AS, &keys.rogue));
        }
        if spec.peer_key {
            add(router_key(PEER_AS, &keys.peer));
        }
        for (i, v) in spec.vrps.iter().enumerate() {
            if let Some(own) = v {
                add(vrp(i as u8, if *own { ORIGIN_AS } else { OTHER_AS }));
            }
        }
        if let Some(own) = spec.aspa {
            add(aspa(ORIGIN_AS, if own { PEER_AS } else { OTHER_AS }));
        }
        Arc::new(View::build(&set, &PayloadSet::new(), &[], &limits).unwrap())
    }

    /// One step of the property test.
    #[derive(Debug, Clone)]
    enum Op {
        /// Neighbour 0 announces prefix i (BGPsec of this kind, or unsigned).
        Announce(u8, Option<Kind>),
        /// Neighbour 0 withdraws prefix i.
        Withdraw(u8),
        /// A new RPKI view.
        View(ViewSpec),
        /// The RIB handles up to n waiting events (answers), no more.
        Events(usize),
        /// The RIB walks up to n routes of its revalidations.
        Walk(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (0u8..6, proptest::option::of(kind())).prop_map(|(i, k)| Op::Announce(i, k)),
            1 => (0u8..6).prop_map(Op::Withdraw),
            3 => view_spec().prop_map(Op::View),
            2 => (0usize..8).prop_map(Op::Events),
            2 => (1usize..4).prop_map(Op::Walk),
        ]
    }

    /// An unsigned UPDATE of neighbour 0 (AS65001) for `p`, originated by AS65000.
    fn unsigned(p: Prefix) -> Update<'static> {
        let attributes = [
            AttributeValue::Origin(Origin::Igp),
            AttributeValue::AsPath(AsPath::sequence(vec![PEER_AS, ORIGIN_AS])),
            AttributeValue::NextHop(Ipv4Addr::new(192, 0, 2, 9)),
        ]
        .into_iter()
        .map(|a| PathAttribute::new(a, AsWidth::Four).unwrap())
        .collect();
        Update {
            attributes,
            nlri: vec![p],
            ..Update::default()
        }
    }

    /// Handles every event until no job is out and no walk is left.
    fn drain(rib: &mut Rib, events: &mut tokio::sync::mpsc::UnboundedReceiver<Event>) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while rib.busy() {
            assert!(Instant::now() < deadline, "queues did not drain");
            if rib.revalidating() {
                rib.revalidate_some(3);
            }
            match events.try_recv() {
                Ok(e) => rib.handle(e),
                Err(_) if rib.revalidating() => {}
                Err(_) => std::thread::sleep(Duration::from_millis(1)),
            }
        }
    }

    /// Issue 24 §2's property: with updates, RPKI view changes, validation answers
    /// and revalidation walks interleaved at random, once the queues drain no route's
    /// BGPsec, ROV or ASPA verdict differs from one computed afresh with the view in
    /// force, and each neighbour's Adj-RIB-Out — and what its wire carries — is
    /// exactly the routes its policy lets through.
    fn run_views(ops: &[Op], mode: Mode, threads: usize, policy: Policy, first: &ViewSpec) {
        let keys = keys();
        let (events_tx, mut events) = unbounded_channel();
        let pool = Pool::new(
            threads,
            super::super::pool::SharedView::new(view(&keys, first)),
            events_tx,
        );
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
        rib.policies = vec![policy, Policy::default(), Policy::default()];
        let mut current = first.clone();
        for op in ops {
            match op {
                Op::Announce(i, k) => {
                    let u = match k {
                        Some(k) => update(&keys, prefix(*i), *k),
                        None => unsigned(prefix(*i)),
                    };
                    rib.handle(Event::Update(0, Box::new(u), Instant::now()));
                }
                Op::Withdraw(i) => rib.handle(Event::Update(
                    0,
                    Box::new(withdrawal(prefix(*i))),
                    Instant::now(),
                )),
                Op::View(spec) => {
                    current = spec.clone();
                    rib.set_view(view(&keys, spec));
                }
                Op::Events(n) => {
                    for _ in 0..*n {
                        match events.try_recv() {
                            Ok(e) => rib.handle(e),
                            Err(_) => break,
                        }
                    }
                }
                Op::Walk(n) => rib.revalidate_some(*n),
            }
        }
        drain(&mut rib, &mut events);
        let now = view(&keys, &current);
        let validator = Validator::with_suites(crate::SUITES, now.router_keys());
        let peer = crate::Peer::external(LOCAL, PEER_AS);
        let mut eligible = BTreeSet::new();
        for (p, r) in &rib.sessions[0].adj_in {
            let expected = match &r.bgpsec {
                None => RouteState::Unsigned,
                Some(u) => match validator.update(u, &peer) {
                    Validation::Valid { suite, .. } => RouteState::Valid(suite),
                    Validation::NotValid(why) => RouteState::NotValid(why),
                },
            };
            assert_eq!(r.state, expected, "{p}: BGPsec");
            assert!(!r.revalidating, "{p} still revalidating");
            assert_eq!(r.rov.state, now.rov(p, &r.as_path).state, "{p}: ROV");
            let role = policy.role.unwrap_or(Relation::Customer);
            if policy.role.is_some() {
                assert_eq!(r.aspa.state, now.aspa(&r.as_path, role).state, "{p}: ASPA");
            }
            if policy.eligible(mode, r) {
                eligible.insert(*p);
            }
        }
        for (name, m, rx) in [("bgpsec", 1, &mut rx1), ("plain", 2, &mut rx2)] {
            let out: BTreeSet<Prefix> = rib.sessions[m].adj_out.keys().copied().collect();
            assert_eq!(out, eligible, "Adj-RIB-Out of {name}");
            let (wire, _) = on_the_wire(rx);
            assert_eq!(wire, eligible, "on the wire to {name}");
        }
    }

    fn policy() -> impl Strategy<Value = Policy> {
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
            |(role, rov, aspa, bgpsec)| Policy {
                role: role.then_some(Relation::Customer),
                reject_rov_invalid: rov,
                reject_aspa_invalid: aspa,
                require_bgpsec_valid: bgpsec,
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn no_route_disagrees_with_the_view_after_the_queues_drain(
            ops in proptest::collection::vec(op(), 1..40),
            first in view_spec(),
            lazy in any::<bool>(),
            threads in 1usize..4,
            policy in policy(),
        ) {
            let mode = if lazy { Mode::Lazy } else { Mode::Strict };
            run_views(&ops, mode, threads, policy, &first);
        }
    }

    /// A view spec publishing every key and no VRP or ASPA.
    fn all_keys() -> ViewSpec {
        ViewSpec {
            origin_key: true,
            rogue_key: false,
            peer_key: true,
            vrps: vec![None; 6],
            aspa: None,
        }
    }

    /// Each view change alone, in both modes: a key withdrawn withdraws the route from
    /// both neighbours, put back re-announces it; VRPs and ASPAs under the reject flags
    /// likewise (the checks are `run_views`').
    #[test]
    fn each_view_change_alone_in_both_modes() {
        let strict = Policy {
            role: Some(Relation::Customer),
            reject_rov_invalid: true,
            reject_aspa_invalid: true,
            require_bgpsec_valid: false,
        };
        let no_origin_key = ViewSpec {
            origin_key: false,
            ..all_keys()
        };
        let rov_invalid = ViewSpec {
            vrps: vec![Some(false); 6],
            ..all_keys()
        };
        let aspa_invalid = ViewSpec {
            aspa: Some(false),
            ..all_keys()
        };
        for mode in [Mode::Lazy, Mode::Strict] {
            for change in [&no_origin_key, &rov_invalid, &aspa_invalid] {
                let ops = [
                    Op::Announce(0, Some(Kind::Valid)),
                    Op::Announce(1, None),
                    Op::Events(100),
                    Op::View(change.clone()),
                    Op::Walk(100),
                ];
                run_views(&ops, mode, 2, strict, &all_keys());
                let back = [
                    Op::Announce(0, Some(Kind::Valid)),
                    Op::Announce(1, None),
                    Op::View(all_keys()),
                ];
                run_views(&back, mode, 2, strict, change);
            }
        }
    }

    /// The RIB of `policy` toward neighbour 0, with `spec`'s view, after neighbour 0
    /// announced prefix 0 BGPsec-signed and prefix 1 unsigned and the queues drained:
    /// the prefixes in the Adj-RIB-Out of neighbour 1.
    fn installed(mode: Mode, policy: Policy, spec: &ViewSpec) -> BTreeSet<u8> {
        let keys = keys();
        let (events_tx, mut events) = unbounded_channel();
        let pool = Pool::new(
            1,
            super::super::pool::SharedView::new(view(&keys, spec)),
            events_tx,
        );
        let (s0, _rx0) = session("source", PEER_AS, true, &keys);
        let (s1, _rx1) = session("bgpsec", 65_010, true, &keys);
        let mut rib = Rib::new(
            LOCAL,
            Ipv4Addr::new(192, 0, 2, 100),
            mode,
            BTreeSet::new(),
            vec![s0, s1],
            pool,
        );
        rib.policies = vec![policy];
        let signed = update(&keys, prefix(0), Kind::Valid);
        rib.handle(Event::Update(0, Box::new(signed), Instant::now()));
        rib.handle(Event::Update(
            0,
            Box::new(unsigned(prefix(1))),
            Instant::now(),
        ));
        drain(&mut rib, &mut events);
        (0..2)
            .filter(|i| rib.sessions[1].adj_out.contains_key(&prefix(*i)))
            .collect()
    }

    #[test]
    fn permissive_by_default() {
        let every_verdict_bad = ViewSpec {
            vrps: vec![Some(false); 6],
            aspa: Some(false),
            ..all_keys()
        };
        let default = Policy {
            role: Some(Relation::Customer),
            ..Policy::default()
        };
        for mode in [Mode::Lazy, Mode::Strict] {
            assert_eq!(installed(mode, default, &every_verdict_bad), [0, 1].into());
        }
    }

    #[test]
    fn reject_rov_invalid_leaves_out_rov_invalid_routes_only() {
        let policy = Policy {
            reject_rov_invalid: true,
            ..Policy::default()
        };
        let mut spec = all_keys();
        spec.vrps[0] = Some(false);
        spec.vrps[1] = Some(true);
        assert_eq!(installed(Mode::Lazy, policy, &spec), [1].into());
        spec.vrps[0] = Some(true);
        spec.vrps[1] = Some(false);
        assert_eq!(installed(Mode::Strict, policy, &spec), [0].into());
        // NotFound is not Invalid.
        spec.vrps = vec![None; 6];
        assert_eq!(installed(Mode::Lazy, policy, &spec), [0, 1].into());
    }

    #[test]
    fn reject_aspa_invalid_leaves_out_aspa_invalid_routes_only() {
        let policy = Policy {
            role: Some(Relation::Customer),
            reject_aspa_invalid: true,
            ..Policy::default()
        };
        let spec = ViewSpec {
            aspa: Some(false),
            ..all_keys()
        };
        assert_eq!(installed(Mode::Lazy, policy, &spec), BTreeSet::new());
        let spec = ViewSpec {
            aspa: Some(true),
            ..all_keys()
        };
        assert_eq!(installed(Mode::Strict, policy, &spec), [0, 1].into());
        // Without a role the verdict is Unknown: nothing is rejected.
        let no_role = Policy {
            role: None,
            ..policy
        };
        let spec = ViewSpec {
            aspa: Some(false),
            ..all_keys()
        };
        assert_eq!(installed(Mode::Lazy, no_role, &spec), [0, 1].into());
    }

    #[test]
    fn require_bgpsec_valid_takes_valid_routes_only() {
        let policy = Policy {
            require_bgpsec_valid: true,
            ..Policy::default()
        };
        for mode in [Mode::Lazy, Mode::Strict] {
            assert_eq!(installed(mode, policy, &all_keys()), [0].into());
            let no_keys = ViewSpec {
                origin_key: false,
                ..all_keys()
            };
            assert_eq!(installed(mode, policy, &no_keys), BTreeSet::new());
        }
    }

    /// Issue 25 §4: prefix filters, LOCAL_PREF and MED in the decision, MED and
    /// communities on export, the prefix limit.
    mod policy;
}
