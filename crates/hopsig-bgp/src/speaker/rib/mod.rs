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
//!   (issue 13 §2, BGR §1).

pub mod adj_in;
pub mod adj_out;
pub mod decision;

use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;
use std::sync::Arc;

use super::config::Mode;
use super::events::{Event, State, Up};
use super::metrics::Histogram;
use super::pool::Pool;
use crate::packet::Prefix;
use crate::Signer;

pub use adj_in::{Route, RouteState, Source, ValidateJob};
pub use adj_out::{prepend, Advert, Announce, SignJob};

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
