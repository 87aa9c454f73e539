//! The RIB task's answers to the read-only HTTP API (issue 26 §2; docs/spec/speaker.md,
//! "HTTP API"): the HTTP handlers ([`super::super::api`]) send a [`Query`] as an
//! [`Event`](super::super::events::Event) and wait for its answer, so that the RIB
//! stays owned by one task. Every answer is bounded: a page holds at most
//! [`MAX_LIMIT`] routes and a query looks at most at [`SCAN`] routes, so that a query
//! never holds the RIB task (and the sessions it serves) longer than a status-file
//! write of [`SCAN`] routes would.
//!
//! Paging is by cursor: a page of a route table ends with `next`, the last prefix it
//! covered, and the following page is asked for with `after` = that prefix. The
//! tables are `BTreeMap`s keyed by prefix, so a page is a range lookup, O(log n +
//! page); and unlike a page number, a cursor stays right while routes come and go
//! between two requests: every route present during the whole walk is returned
//! exactly once, in prefix order.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::ops::Bound;

use serde_json::{json, Value};
use tokio::sync::oneshot;

use crate::packet::Prefix;

use super::super::status;
use super::{Rib, RouteState};

/// Routes in a page when the request names no `limit`.
pub const DEFAULT_LIMIT: usize = 100;

/// Most routes in a page (`limit`).
pub const MAX_LIMIT: usize = 1000;

/// Most routes one query looks at: a filter that few routes pass (`state`) ends its
/// page early, with `next` set, rather than walking the whole table at once.
pub const SCAN: usize = 10_000;

/// A route's BGPsec validation state, as `/rib/in?state=` names it (RFC 8205 §5.1,
/// and "pending" for lazy mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateFilter {
    /// Waiting for validation.
    Pending,
    /// 'Valid'.
    Valid,
    /// 'Not Valid' (a failed validation included: it is treated as Not Valid).
    NotValid,
    /// No BGPsec_PATH.
    Unsigned,
}

impl StateFilter {
    /// The names `state=` takes.
    pub const NAMES: &'static str = "pending, valid, not-valid, unsigned";

    /// The filter named `name`, if one is.
    pub fn named(name: &str) -> Option<StateFilter> {
        Some(match name {
            "pending" => StateFilter::Pending,
            "valid" => StateFilter::Valid,
            "not-valid" => StateFilter::NotValid,
            "unsigned" => StateFilter::Unsigned,
            _ => return None,
        })
    }

    /// Whether a route in `state` passes.
    pub fn matches(self, state: &RouteState) -> bool {
        match state {
            RouteState::Pending => self == StateFilter::Pending,
            RouteState::Valid(_) => self == StateFilter::Valid,
            RouteState::NotValid(_) | RouteState::Failed(_) => self == StateFilter::NotValid,
            RouteState::Unsigned => self == StateFilter::Unsigned,
        }
    }
}

/// Where a page starts and how long it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page<K> {
    /// The page starts after this key (`after`); `None`: at the start.
    pub after: Option<K>,
    /// Most entries in it (`limit`), 1 to [`MAX_LIMIT`].
    pub limit: usize,
}

impl<K> Default for Page<K> {
    fn default() -> Page<K> {
        Page {
            after: None,
            limit: DEFAULT_LIMIT,
        }
    }
}

/// `/rib/in`'s question.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RibIn {
    /// Only the routes of this prefix (`prefix`): one page holds them all.
    pub prefix: Option<Prefix>,
    /// Only the routes in this state (`state`).
    pub state: Option<StateFilter>,
    /// Only the routes of this neighbour (`neighbor`).
    pub neighbor: Option<IpAddr>,
    /// The page.
    pub page: Page<Prefix>,
}

/// What the HTTP API asks the RIB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    /// `GET /neighbors`: every session.
    Neighbors,
    /// `GET /neighbors/{addr}`: one session, with its table sizes.
    Neighbor(IpAddr),
    /// `GET /rib/in`: Adj-RIB-In routes.
    RibIn(RibIn),
    /// `GET /rib/out/{addr}`: one session's Adj-RIB-Out.
    RibOut(IpAddr, Page<Prefix>),
    /// `GET /not-valid`: the routes withdrawn for Not Valid, by their number in the
    /// log.
    NotValid(Page<usize>),
    /// `GET /rpki`: the RPKI view in force and the caches.
    Rpki,
}

/// Why a query has no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// No configured neighbour has this address (HTTP 404).
    #[error("no neighbour {0} in the configuration")]
    UnknownNeighbor(IpAddr),
}

/// A query's answer: the JSON document, or why there is none.
pub type Answer = Result<Value, QueryError>;

/// A question and where its answer goes.
pub struct Query {
    /// The question.
    pub ask: Ask,
    /// Where the answer goes (the HTTP handler waits on the other end; if it gave up,
    /// the answer is dropped).
    pub reply: oneshot::Sender<Answer>,
}

impl std::fmt::Debug for Query {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Query").field("ask", &self.ask).finish()
    }
}

/// The first `limit` entries of `map` after `after`, and the cursor of the next
/// page: the last key returned, or `None` when no entry follows it.
pub fn page<'a, K: Ord + Copy, V>(
    map: &'a BTreeMap<K, V>,
    page: &Page<K>,
) -> (Vec<(&'a K, &'a V)>, Option<K>) {
    let start = page
        .after
        .as_ref()
        .map_or(Bound::Unbounded, Bound::Excluded);
    let mut range = map.range((start, Bound::Unbounded));
    let entries: Vec<(&K, &V)> = range.by_ref().take(page.limit).collect();
    let next = match (entries.last(), range.next()) {
        (Some((k, _)), Some(_)) => Some(**k),
        _ => None,
    };
    (entries, next)
}

/// The next page's cursor as JSON: the prefix, or `null` at the end.
fn cursor(next: Option<Prefix>) -> Value {
    next.map_or(Value::Null, |p| json!(p.to_string()))
}

impl Rib {
    /// Answers `query` (the HTTP handler may have given up: the answer is then
    /// dropped).
    pub fn answer(&self, query: Query) {
        let _ = query.reply.send(self.query(&query.ask));
    }

    /// The answer to `ask` (docs/spec/speaker.md, "HTTP API", gives each shape).
    ///
    /// # Errors
    /// [`QueryError::UnknownNeighbor`]: the question names a neighbour that is not
    /// configured.
    pub fn query(&self, ask: &Ask) -> Answer {
        match ask {
            Ask::Neighbors => Ok(json!({
                "local_as": self.local_as,
                "mode": self.mode.name(),
                "sessions": (0..self.sessions.len())
                    // Neighbours removed by a reload are tombstones, shown nowhere.
                    .filter(|i| !self.removed.contains(i))
                    .map(|i| status::session_json(self, i))
                    .collect::<Vec<_>>(),
            })),
            Ask::Neighbor(addr) => {
                let i = self.session_of(*addr)?;
                let mut v = status::session_json(self, i);
                v["adj_rib_in_count"] = json!(self.sessions[i].adj_in.len());
                v["adj_rib_out_count"] = json!(self.sessions[i].adj_out.len());
                Ok(v)
            }
            Ask::RibIn(q) => self.rib_in(q),
            Ask::RibOut(addr, p) => {
                let i = self.session_of(*addr)?;
                let s = &self.sessions[i];
                let (entries, next) = page(&s.adj_out, p);
                Ok(json!({
                    "neighbor": s.address,
                    "adj_rib_out": entries
                        .into_iter()
                        .map(|(p, a)| status::adj_out_json(s, p, a))
                        .collect::<Vec<_>>(),
                    "adj_rib_out_count": s.adj_out.len(),
                    "next": cursor(next),
                }))
            }
            Ask::NotValid(p) => {
                let start = p.after.map_or(0, |a| a.saturating_add(1));
                let entries: Vec<Value> = self
                    .not_valid
                    .iter()
                    .enumerate()
                    .skip(start)
                    .take(p.limit)
                    .map(|(i, e)| {
                        let mut v = status::not_valid_json(e);
                        v["index"] = json!(i);
                        v
                    })
                    .collect();
                let end = start.saturating_add(entries.len());
                let next = (!entries.is_empty() && end < self.not_valid.len()).then(|| end - 1);
                Ok(json!({
                    "not_valid": entries,
                    "not_valid_kept": self.not_valid.len(),
                    "not_valid_total": self.not_valid_total,
                    "next": next,
                }))
            }
            Ask::Rpki => Ok(status::rpki_json(self)),
        }
    }

    /// The number of the session with neighbour `addr` (the first, if several share
    /// it), not counting neighbours a reload removed.
    fn session_of(&self, addr: IpAddr) -> Result<usize, QueryError> {
        let text = addr.to_canonical().to_string();
        self.sessions
            .iter()
            .enumerate()
            .position(|(i, s)| s.address == text && !self.removed.contains(&i))
            .ok_or(QueryError::UnknownNeighbor(addr))
    }

    /// `/rib/in`: the routes of the sessions asked for, in prefix order and, for one
    /// prefix, in session order; a page holds whole prefixes (so that the cursor is a
    /// prefix): at most `limit` routes, or one prefix's routes if they are more.
    fn rib_in(&self, q: &RibIn) -> Answer {
        let sessions: Vec<usize> = match q.neighbor {
            Some(a) => vec![self.session_of(a)?],
            None => (0..self.sessions.len()).collect(),
        };
        let total: usize = sessions
            .iter()
            .map(|&i| self.sessions[i].adj_in.len())
            .sum();
        // The routes of `p` that pass the state filter, and how many were looked at.
        let routes_of = |p: &Prefix| {
            let mut looked = 0;
            let mut out = vec![];
            for &i in &sessions {
                if let Some(r) = self.sessions[i].adj_in.get(p) {
                    looked += 1;
                    if q.state.is_none_or(|s| s.matches(&r.state)) {
                        out.push(status::adj_in_json(self, i, p, r));
                    }
                }
            }
            (out, looked)
        };
        // The first prefix after `after` in any of the sessions' tables.
        let first_after = |after: Option<Prefix>| {
            let start = after.map_or(Bound::Unbounded, Bound::Excluded);
            sessions
                .iter()
                .filter_map(|&i| {
                    self.sessions[i]
                        .adj_in
                        .range((start, Bound::Unbounded))
                        .next()
                        .map(|(p, _)| *p)
                })
                .min()
        };
        let mut routes = vec![];
        let mut next = None;
        if let Some(p) = q.prefix {
            routes = routes_of(&p).0;
        } else {
            let mut at = q.page.after;
            let mut looked = 0;
            while let Some(p) = first_after(at) {
                let (mut these, n) = routes_of(&p);
                if !routes.is_empty() && routes.len() + these.len() > q.page.limit {
                    // This prefix starts the next page.
                    next = at;
                    break;
                }
                routes.append(&mut these);
                looked += n;
                at = Some(p);
                if routes.len() >= q.page.limit || looked >= SCAN {
                    next = first_after(at).and(at);
                    break;
                }
            }
        }
        Ok(json!({
            "adj_rib_in": routes,
            "adj_rib_in_count": total,
            "next": cursor(next),
        }))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::collections::BTreeSet;
    use std::net::Ipv4Addr;
    use std::sync::Arc;
    use std::time::Instant;

    use proptest::prelude::*;
    use tokio::sync::mpsc::unbounded_channel;

    use super::super::super::config::Mode;
    use super::super::super::events::Event;
    use super::super::super::pool::{Pool, SharedView};
    use super::super::Session;
    use super::*;
    use crate::packet::{AsPath, AsWidth, AttributeValue, Origin, PathAttribute, Update};
    use crate::rpki::view::View;
    use crate::Signer;

    const LOCAL: u32 = 65_100;

    fn prefix(i: u16) -> Prefix {
        let [a, b] = i.to_be_bytes();
        Prefix::new(IpAddr::V4(Ipv4Addr::new(10, a, b, 0)), 24).unwrap()
    }

    /// An unsigned UPDATE from AS `asn` announcing `prefixes`.
    fn announce(asn: u32, prefixes: Vec<Prefix>) -> Update<'static> {
        let attributes = [
            AttributeValue::Origin(Origin::Igp),
            AttributeValue::AsPath(AsPath::sequence(vec![asn])),
            AttributeValue::NextHop(Ipv4Addr::new(192, 0, 2, 9)),
        ]
        .into_iter()
        .map(|a| PathAttribute::new(a, AsWidth::Four).unwrap())
        .collect();
        Update {
            attributes,
            nlri: prefixes,
            ..Update::default()
        }
    }

    /// A RIB with sessions 192.0.2.1, .2, .3 (AS 65001…), session k holding the
    /// prefixes of `tables[k]`, all unsigned.
    fn rib(tables: &[BTreeSet<u16>]) -> Rib {
        let (events_tx, _events) = unbounded_channel();
        let view = View::build(
            &crate::rpki::PayloadSet::new(),
            &crate::rpki::PayloadSet::new(),
            &[],
            &crate::rpki::Limits::default(),
        )
        .unwrap();
        let pool = Pool::new(1, SharedView::new(Arc::new(view)), events_tx);
        let sessions = (0..3u8)
            .map(|k| {
                Session::new(
                    format!("192.0.2.{}", k + 1),
                    65_001 + u32::from(k),
                    Arc::new(Signer::new(LOCAL)),
                )
            })
            .collect();
        let mut rib = Rib::new(
            LOCAL,
            Ipv4Addr::new(192, 0, 2, 100),
            Mode::Lazy,
            BTreeSet::new(),
            sessions,
            pool,
        );
        for (k, t) in tables.iter().enumerate() {
            let u = announce(65_001 + k as u32, t.iter().map(|&i| prefix(i)).collect());
            rib.handle(Event::Update(k, Box::new(u), Instant::now()));
        }
        rib
    }

    fn addr(k: u8) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(192, 0, 2, k))
    }

    /// Walks `/rib/in` page by page: every (neighbour, prefix) returned, in order.
    fn walk(rib: &Rib, mut q: RibIn) -> Vec<(String, String)> {
        let mut all = vec![];
        for _ in 0..10_000 {
            let v = rib.query(&Ask::RibIn(q.clone())).unwrap();
            let routes = v["adj_rib_in"].as_array().unwrap();
            assert!(
                routes.len() <= q.page.limit.max(3),
                "a page of {} routes, limit {}",
                routes.len(),
                q.page.limit
            );
            all.extend(routes.iter().map(|r| {
                (
                    r["neighbor"].as_str().unwrap().to_owned(),
                    r["prefix"].as_str().unwrap().to_owned(),
                )
            }));
            match v["next"].as_str() {
                None => return all,
                Some(n) => {
                    let p = super::super::super::config::prefix(n).unwrap();
                    assert!(q.page.after < Some(p), "the cursor moves on");
                    q.page.after = Some(p);
                }
            }
        }
        panic!("paging did not end");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Paging through `/rib/in`, whatever the page size and neighbour filter,
        /// returns every route exactly once, in prefix order and, for one prefix, in
        /// session order, and each page holds at most `limit` routes unless one
        /// prefix's routes are more.
        #[test]
        fn paging_returns_every_route_exactly_once(
            tables in proptest::collection::vec(
                proptest::collection::btree_set(0u16..300, 0..60), 3),
            limit in 1usize..20,
            neighbor in proptest::option::of(1u8..4),
        ) {
            let rib = rib(&tables);
            let q = RibIn {
                neighbor: neighbor.map(addr),
                page: Page { after: None, limit },
                ..RibIn::default()
            };
            let got = walk(&rib, q);
            let mut expected = vec![];
            let all: BTreeSet<u16> = tables.iter().flatten().copied().collect();
            for p in all {
                for (k, t) in tables.iter().enumerate() {
                    if t.contains(&p) && neighbor.is_none_or(|n| usize::from(n) == k + 1) {
                        expected.push((format!("192.0.2.{}", k + 1), prefix(p).to_string()));
                    }
                }
            }
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn a_page_ends_before_a_prefix_that_would_overflow_it() {
        // Prefix 1 in all three tables, prefix 2 in one: with limit 2 the first page
        // holds prefix 0 alone (1 route), since prefix 1's 3 routes do not fit.
        let t = |s: &[u16]| s.iter().copied().collect::<BTreeSet<u16>>();
        let rib = rib(&[t(&[0, 1]), t(&[1, 2]), t(&[1])]);
        let q = RibIn {
            page: Page {
                after: None,
                limit: 2,
            },
            ..RibIn::default()
        };
        let v = rib.query(&Ask::RibIn(q.clone())).unwrap();
        assert_eq!(v["adj_rib_in"].as_array().unwrap().len(), 1);
        assert_eq!(v["next"], prefix(0).to_string());
        assert_eq!(v["adj_rib_in_count"], 5);
        // The next page: prefix 1's three routes, more than the limit but whole.
        let q2 = RibIn {
            page: Page {
                after: Some(prefix(0)),
                limit: 2,
            },
            ..q
        };
        let v = rib.query(&Ask::RibIn(q2)).unwrap();
        let routes = v["adj_rib_in"].as_array().unwrap();
        assert_eq!(routes.len(), 3);
        assert!(routes.iter().all(|r| r["prefix"] == prefix(1).to_string()));
        assert_eq!(v["next"], prefix(1).to_string());
    }

    #[test]
    fn filters_by_prefix_state_and_neighbour() {
        let t = |s: &[u16]| s.iter().copied().collect::<BTreeSet<u16>>();
        let rib = rib(&[t(&[0, 1]), t(&[1, 2]), t(&[])]);
        let one = RibIn {
            prefix: Some(prefix(1)),
            ..RibIn::default()
        };
        let v = rib.query(&Ask::RibIn(one.clone())).unwrap();
        assert_eq!(v["adj_rib_in"].as_array().unwrap().len(), 2);
        assert_eq!(v["next"], Value::Null);
        let unsigned = RibIn {
            state: Some(StateFilter::Unsigned),
            ..RibIn::default()
        };
        let v = rib.query(&Ask::RibIn(unsigned)).unwrap();
        assert_eq!(v["adj_rib_in"].as_array().unwrap().len(), 4);
        assert!(v["adj_rib_in"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["validation"] == "unsigned" && r["bgpsec"] == false));
        for state in [
            StateFilter::Valid,
            StateFilter::NotValid,
            StateFilter::Pending,
        ] {
            let q = RibIn {
                state: Some(state),
                ..RibIn::default()
            };
            let v = rib.query(&Ask::RibIn(q)).unwrap();
            assert_eq!(v["adj_rib_in"], json!([]), "{state:?}");
            assert_eq!(v["next"], Value::Null);
        }
        let of_2 = RibIn {
            neighbor: Some(addr(2)),
            ..RibIn::default()
        };
        let v = rib.query(&Ask::RibIn(of_2)).unwrap();
        let got: Vec<&str> = v["adj_rib_in"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["prefix"].as_str().unwrap())
            .collect();
        assert_eq!(got, [prefix(1).to_string(), prefix(2).to_string()]);
        assert_eq!(v["adj_rib_in_count"], 2);
        let nobody = RibIn {
            neighbor: Some(addr(9)),
            ..RibIn::default()
        };
        assert_eq!(
            rib.query(&Ask::RibIn(nobody)),
            Err(QueryError::UnknownNeighbor(addr(9)))
        );
    }

    #[test]
    fn a_filter_few_routes_pass_ends_pages_after_scan_routes() {
        // 3 × 4000 routes, none pending: the walk looks at SCAN routes a page at most,
        // so it takes several empty pages, each with a cursor, then ends.
        let all: BTreeSet<u16> = (0..4000).collect();
        let rib = rib(&[all.clone(), all.clone(), all]);
        let mut q = RibIn {
            state: Some(StateFilter::Pending),
            page: Page {
                after: None,
                limit: MAX_LIMIT,
            },
            ..RibIn::default()
        };
        let mut pages = 0;
        loop {
            pages += 1;
            let v = rib.query(&Ask::RibIn(q.clone())).unwrap();
            assert_eq!(v["adj_rib_in"], json!([]));
            match v["next"].as_str() {
                Some(n) => q.page.after = Some(super::super::super::config::prefix(n).unwrap()),
                None => break,
            }
        }
        assert_eq!(pages, 12_000usize.div_ceil(SCAN));
    }

    #[test]
    fn neighbours_and_unknown_ones() {
        let t = |s: &[u16]| s.iter().copied().collect::<BTreeSet<u16>>();
        let rib = rib(&[t(&[0, 1]), t(&[]), t(&[])]);
        let v = rib.query(&Ask::Neighbors).unwrap();
        assert_eq!(v["local_as"], LOCAL);
        let sessions = v["sessions"].as_array().unwrap();
        assert_eq!(sessions.len(), 3);
        assert_eq!(sessions[1]["address"], "192.0.2.2");
        assert_eq!(sessions[1]["remote_as"], 65_002);
        let one = rib.query(&Ask::Neighbor(addr(1))).unwrap();
        assert_eq!(one["address"], "192.0.2.1");
        assert_eq!(one["adj_rib_in_count"], 2);
        assert_eq!(one["adj_rib_out_count"], 0);
        assert_eq!(
            rib.query(&Ask::Neighbor(addr(7))),
            Err(QueryError::UnknownNeighbor(addr(7)))
        );
        assert_eq!(
            rib.query(&Ask::RibOut(addr(7), Page::default())),
            Err(QueryError::UnknownNeighbor(addr(7)))
        );
        let out = rib.query(&Ask::RibOut(addr(2), Page::default())).unwrap();
        assert_eq!(out["adj_rib_out"], json!([]));
        assert_eq!(out["next"], Value::Null);
        assert!(rib.query(&Ask::Rpki).unwrap()["vrps"].is_number());
    }

    #[test]
    fn generic_page_cursor() {
        let map: BTreeMap<u32, ()> = (0..10).map(|i| (i, ())).collect();
        let keys = |p: Page<u32>| {
            let (e, next) = page(&map, &p);
            (e.into_iter().map(|(k, _)| *k).collect::<Vec<_>>(), next)
        };
        assert_eq!(
            keys(Page {
                after: None,
                limit: 4
            }),
            (vec![0, 1, 2, 3], Some(3))
        );
        assert_eq!(
            keys(Page {
                after: Some(3),
                limit: 4
            }),
            (vec![4, 5, 6, 7], Some(7))
        );
        // The last page: exactly the rest, no cursor.
        assert_eq!(
            keys(Page {
                after: Some(7),
                limit: 2
            }),
            (vec![8, 9], None)
        );
        assert_eq!(
            keys(Page {
                after: Some(9),
                limit: 2
            }),
            (vec![], None)
        );
    }

    #[test]
    fn not_valid_pages_by_index() {
        let mut rib = rib(&[]);
        for i in 0..5u16 {
            rib.not_valid.push(super::super::NotValidEntry {
                neighbor: "192.0.2.1".into(),
                prefix: prefix(i),
                reason: "test".into(),
                withdrawn_from: vec![],
            });
        }
        rib.not_valid_total = 7;
        let mut after = None;
        let mut seen = vec![];
        loop {
            let v = rib.query(&Ask::NotValid(Page { after, limit: 2 })).unwrap();
            assert_eq!(v["not_valid_total"], 7);
            assert_eq!(v["not_valid_kept"], 5);
            for e in v["not_valid"].as_array().unwrap() {
                seen.push(e["index"].as_u64().unwrap());
            }
            match v["next"].as_u64() {
                Some(n) => after = Some(usize::try_from(n).unwrap()),
                None => break,
            }
        }
        assert_eq!(seen, [0, 1, 2, 3, 4]);
    }
}
