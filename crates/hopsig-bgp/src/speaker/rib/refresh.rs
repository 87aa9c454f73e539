//! Route refresh (RFC 2918) and enhanced route refresh (RFC 7313), both ways, and the
//! stale routes they (and graceful restart, RFC 4724) keep per session.
//!
//! * A ROUTE-REFRESH request (subtype 0) for IPv4 or IPv6 unicast re-advertises the
//!   session's whole Adj-RIB-Out of that family (RFC 2918 §4), each UPDATE built
//!   again — signed again toward a BGPsec neighbour, on the RIB task so that it goes
//!   out before the EoRR — between a BoRR and an EoRR when Enhanced Route Refresh was
//!   negotiated (RFC 7313 §4.1). A request for another family is ignored (RFC 2918
//!   §4: one "that the speaker didn't advertise").
//! * The neighbour's BoRR marks its routes of that family stale; every UPDATE of a
//!   prefix takes it off the list; its EoRR deletes the routes still stale (RFC 7313
//!   §4.2).
//! * This speaker asks a neighbour for its routes with [`Rib::request_refresh`]
//!   (`hopsig speaker refresh`, docs/spec/speaker.md "Route refresh").

use std::collections::BTreeSet;
use std::time::Instant;

use super::Rib;
use crate::packet::route_refresh::{RouteRefresh, Subtype};
use crate::packet::{Afi, Prefix, Update};

/// A neighbour's routes kept while they are being refreshed or while the neighbour
/// restarts: each goes when an UPDATE of its prefix comes, the rest at the end
/// (EoRR, End-of-RIB, or `until`).
#[derive(Debug, Default, Clone)]
pub struct Stale {
    /// The stale prefixes of the session's Adj-RIB-In.
    pub prefixes: BTreeSet<Prefix>,
    /// When the rest are deleted whatever comes (the Restart Time of graceful
    /// restart, RFC 4724 §4.2); `None`: at the end marker only.
    pub until: Option<Instant>,
    /// The neighbour is restarting (graceful restart): its End-of-RIB ends the wait.
    pub restarting: bool,
    /// An End-of-RIB is owed to the neighbour once its initial table is out.
    pub end_of_rib_owed: bool,
}

/// IPv4 or IPv6 unicast, the families the speaker carries, as (AFI, SAFI 1).
fn family(rr: &RouteRefresh) -> Option<Afi> {
    match (rr.afi, rr.safi) {
        (1, 1) => Some(Afi::Ipv4),
        (2, 1) => Some(Afi::Ipv6),
        _ => None,
    }
}

impl Rib {
    /// Session `id`'s stale routes, the list made if need be.
    pub fn stale_mut(&mut self, id: usize) -> &mut Stale {
        if self.stale.len() <= id {
            self.stale.resize_with(id + 1, Stale::default);
        }
        &mut self.stale[id]
    }

    /// A ROUTE-REFRESH from session `id` (RFC 2918 §4, RFC 7313 §4).
    pub(super) fn route_refresh(&mut self, id: usize, rr: RouteRefresh) {
        let Some(up) = self.sessions.get(id).and_then(|s| s.up.as_ref()) else {
            return;
        };
        let enhanced = up.features.enhanced_route_refresh;
        let address = self.sessions[id].address.clone();
        let Some(afi) = family(&rr) else {
            tracing::info!(
                "hopsig speaker: ROUTE-REFRESH from {address} for AFI {} SAFI {} ignored: not a family of this session (RFC 2918 §4)",
                rr.afi,
                rr.safi
            );
            return;
        };
        match rr.subtype {
            Subtype::Request => self.readvertise(id, rr, afi, enhanced),
            // RFC 7313 §4.2: only where it was negotiated.
            Subtype::Begin if enhanced => {
                let prefixes = self.sessions[id]
                    .adj_in
                    .keys()
                    .filter(|p| p.afi() == afi)
                    .copied()
                    .collect();
                self.stale_mut(id).prefixes = prefixes;
            }
            Subtype::End if enhanced => {
                let purged = self.purge_stale(id, Some(afi));
                tracing::info!(
                    "hopsig speaker: enhanced route refresh from {address} done: {purged} stale routes deleted (RFC 7313 §4.2)"
                );
            }
            _ => {}
        }
    }

    /// Re-advertises session `id`'s Adj-RIB-Out of `afi` (RFC 2918 §4), between BoRR
    /// and EoRR with `enhanced` (RFC 7313 §4.1). Each UPDATE is built again from the
    /// route it advertises, where the decision would send it; an answer of a sign job
    /// still out for a prefix is dropped (the advert it was for is replaced).
    fn readvertise(&mut self, id: usize, rr: RouteRefresh, afi: Afi, enhanced: bool) {
        if enhanced {
            if let Some(up) = self.sessions[id].up.as_mut() {
                up.tx
                    .now(RouteRefresh::new(rr.afi, rr.safi, Subtype::Begin).encoding());
            }
        }
        let count = self.announce_again(id, Some(afi));
        if let Some(up) = self.sessions[id].up.as_mut() {
            if enhanced {
                up.tx
                    .after(RouteRefresh::new(rr.afi, rr.safi, Subtype::End).encoding());
            }
        }
        tracing::info!(
            "hopsig speaker: ROUTE-REFRESH from {}: {count} routes advertised again{}",
            self.sessions[id].address,
            if enhanced {
                " between BoRR and EoRR (RFC 7313)"
            } else {
                " (RFC 2918)"
            }
        );
    }

    /// Builds again each UPDATE of session `id`'s Adj-RIB-Out (of `afi` only, if
    /// given) from the route it advertises and queues it; how many.
    pub fn announce_again(&mut self, id: usize, afi: Option<Afi>) -> usize {
        let adverts: Vec<_> = self.sessions[id]
            .adj_out
            .iter()
            .filter(|(p, _)| afi.is_none_or(|a| p.afi() == a))
            .map(|(p, a)| (*p, a.source))
            .collect();
        let count = adverts.len();
        for (p, src) in adverts {
            match self.announcement(id, p, src) {
                Ok(a) => {
                    let as_path = a.out_path.clone();
                    self.deliver(id, p, src, as_path, a.build());
                }
                Err(why) => self.deliver(id, p, src, Default::default(), Err(why)),
            }
        }
        count
    }

    /// Deletes session `id`'s routes still stale (of `afi` only, if given) and runs
    /// the decision for each; how many.
    pub fn purge_stale(&mut self, id: usize, afi: Option<Afi>) -> usize {
        let stale = self.stale_mut(id);
        let gone: Vec<Prefix> = stale
            .prefixes
            .iter()
            .filter(|p| afi.is_none_or(|a| p.afi() == a))
            .copied()
            .collect();
        for p in &gone {
            stale.prefixes.remove(p);
        }
        if stale.prefixes.is_empty() {
            stale.until = None;
        }
        for p in &gone {
            self.sessions[id].adj_in.remove(p);
            self.decide(*p);
        }
        gone.len()
    }

    /// An UPDATE from session `id` refreshes the prefixes it names: they are no longer
    /// stale (RFC 7313 §4.2, RFC 4724 §4.2: "replace the stale routes").
    pub(super) fn refreshed(&mut self, id: usize, update: &Update<'_>) {
        self.end_of_rib_received(id, update);
        if let Some(stale) = self.stale.get_mut(id) {
            if !stale.prefixes.is_empty() {
                for p in update.announced().chain(update.withdrawn_all()) {
                    stale.prefixes.remove(&p);
                }
            }
        }
    }

    /// Asks the neighbour at `address` to send its IPv4 unicast routes again (RFC 2918
    /// §3, subtype 0); false if it is not Established or did not announce Route
    /// Refresh (§4: "MUST NOT send" it then).
    pub fn request_refresh(&mut self, address: &str) -> bool {
        let Some(up) = self
            .sessions
            .iter_mut()
            .filter(|s| s.address == address)
            .find_map(|s| s.up.as_mut())
            .filter(|up| up.features.route_refresh)
        else {
            return false;
        };
        up.tx
            .after(RouteRefresh::new(1, 1, Subtype::Request).encoding());
        true
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr};
    use std::sync::Arc;
    use std::time::Duration;

    use tokio::sync::mpsc::unbounded_channel;

    use super::*;
    use crate::packet::{
        AsPath, AsWidth, AttributeValue, Message, Origin, PathAttribute, HEADER_LEN,
    };
    use crate::speaker::config::Mode;
    use crate::speaker::events::{Event, Features, Up};
    use crate::speaker::outbox::{self, Link};
    use crate::speaker::pool::Pool;
    use crate::speaker::rib::Session;
    use crate::{RouterKeys, Signer};

    const LOCAL: u32 = 65_100;

    fn prefix(a: u8, b: u8) -> Prefix {
        Prefix::new(IpAddr::V4(Ipv4Addr::new(10, a, b, 0)), 24).unwrap()
    }

    fn announce(asn: u32, ps: &[Prefix]) -> Update<'static> {
        let attributes = [
            AttributeValue::Origin(Origin::Igp),
            AttributeValue::AsPath(AsPath::sequence(vec![asn])),
            AttributeValue::NextHop(Ipv4Addr::new(192, 0, 2, 9)),
        ]
        .into_iter()
        .map(|v| PathAttribute::new(v, AsWidth::Four).unwrap())
        .collect();
        Update {
            attributes,
            nlri: ps.to_vec(),
            ..Update::default()
        }
    }

    /// Two originated prefixes, sessions "a" (enhanced route refresh) and "b"
    /// (route refresh only), both Established; their links, emptied of the table.
    fn rib() -> (Rib, Vec<Link>) {
        let (events_tx, _events) = unbounded_channel();
        let pool = Pool::new(1, Arc::new(RouterKeys::new()), events_tx);
        let sessions = ["a", "b"]
            .iter()
            .map(|a| Session::new(*a, 65_001, Arc::new(Signer::new(LOCAL))))
            .collect();
        let local = [prefix(0, 0), prefix(0, 1)].into_iter().collect();
        let mut rib = Rib::new(
            LOCAL,
            Ipv4Addr::new(192, 0, 2, 100),
            Mode::Strict,
            local,
            sessions,
            pool,
        );
        let mut links = vec![];
        for (id, enhanced) in [(0, true), (1, false)] {
            let features = Features {
                route_refresh: true,
                enhanced_route_refresh: enhanced,
                ..Features::default()
            };
            let link = up(&mut rib, id, features);
            assert_eq!(link.take_all().len(), 2, "the table");
            links.push(link);
        }
        (rib, links)
    }

    /// Session `id` Established with `features`; its link.
    fn up(rib: &mut Rib, id: usize, features: Features) -> Link {
        let (tx, link) = outbox::channel(usize::MAX);
        let up = Up {
            remote_as: 65_001 + id as u32,
            width: AsWidth::Four,
            bgpsec_send: false,
            bgpsec_receive: false,
            tx,
            afis: Default::default(),
            next_hop6: None,
            features,
        };
        rib.handle(Event::Up(id, up));
        link
    }

    const RESTARTS: Features = Features {
        max_message_len: 4096,
        route_refresh: true,
        enhanced_route_refresh: true,
        graceful_restart: Some(Duration::from_secs(30)),
        end_of_rib: true,
    };

    /// Session a (restarting gracefully, RESTARTS) announced p1 and p2, forwarded to
    /// b; then a's session ended.
    fn restarting(rib: &mut Rib, links: &[Link], p1: Prefix, p2: Prefix) {
        rib.sessions[0].up.as_mut().unwrap().features = RESTARTS;
        let now = Instant::now();
        rib.handle(Event::Update(0, Box::new(announce(65_001, &[p1, p2])), now));
        assert_eq!(read(&links[1]).len(), 2);
        rib.handle(Event::Down(0, "read: connection reset".into()));
    }

    /// Each message: "BoRR", "EoRR", "REQUEST" or the prefixes an UPDATE announces.
    fn read(link: &Link) -> Vec<String> {
        link.take_all()
            .iter()
            .map(|m| {
                if m[18] == 5 {
                    return match RouteRefresh::decode(m).unwrap().subtype {
                        Subtype::Begin => "BoRR".into(),
                        Subtype::End => "EoRR".into(),
                        Subtype::Request => "REQUEST".into(),
                        Subtype::Other(v) => format!("subtype {v}"),
                    };
                }
                let Message::Update(u) = Message::decode(m, AsWidth::Four).unwrap() else {
                    panic!("not an UPDATE")
                };
                let ann: Vec<String> = u.announced().map(|p| p.to_string()).collect();
                let wd: Vec<String> = u.withdrawn_all().map(|p| format!("-{p}")).collect();
                [ann, wd].concat().join(" ")
            })
            .collect()
    }

    #[test]
    fn a_request_readvertises_the_adj_rib_out_between_borr_and_eorr() {
        let (mut rib, links) = rib();
        let request = RouteRefresh::new(1, 1, Subtype::Request);
        // RFC 7313 §4.1: BoRR, the whole Adj-RIB-Out, EoRR.
        rib.handle(Event::RouteRefresh(0, request));
        assert_eq!(
            read(&links[0]),
            ["BoRR", "10.0.0.0/24", "10.0.1.0/24", "EoRR"]
        );
        assert!(read(&links[1]).is_empty());
        // RFC 2918 §4: without enhanced route refresh, the routes alone.
        rib.handle(Event::RouteRefresh(1, request));
        assert_eq!(read(&links[1]), ["10.0.0.0/24", "10.0.1.0/24"]);
        // A family the session does not carry is ignored (RFC 2918 §4).
        rib.handle(Event::RouteRefresh(
            0,
            RouteRefresh::new(25, 65, Subtype::Request),
        ));
        assert!(read(&links[0]).is_empty());
        // IPv6: no IPv6 route in the Adj-RIB-Out, so BoRR and EoRR only.
        rib.handle(Event::RouteRefresh(
            0,
            RouteRefresh::new(2, 1, Subtype::Request),
        ));
        assert_eq!(read(&links[0]), ["BoRR", "EoRR"]);
    }

    #[test]
    fn the_neighbours_eorr_deletes_the_routes_it_did_not_send_again() {
        let (mut rib, links) = rib();
        let (p1, p2, p3) = (prefix(9, 1), prefix(9, 2), prefix(9, 3));
        let now = Instant::now();
        rib.handle(Event::Update(
            0,
            Box::new(announce(65_001, &[p1, p2, p3])),
            now,
        ));
        assert_eq!(rib.sessions[0].adj_in.len(), 3);
        assert_eq!(read(&links[1]).len(), 3, "forwarded to b");
        // RFC 7313 §4.2: BoRR marks every route stale, an UPDATE refreshes p1, a
        // withdrawal removes p3; EoRR deletes p2, which was not sent again.
        rib.handle(Event::RouteRefresh(
            0,
            RouteRefresh::new(1, 1, Subtype::Begin),
        ));
        assert_eq!(rib.stale[0].prefixes.len(), 3);
        rib.handle(Event::Update(0, Box::new(announce(65_001, &[p1])), now));
        let withdraw = Update {
            withdrawn: vec![p3],
            ..Update::default()
        };
        rib.handle(Event::Update(0, Box::new(withdraw), now));
        assert_eq!(rib.stale[0].prefixes, [p2].into_iter().collect());
        assert_eq!(rib.sessions[0].adj_in.len(), 2, "p2 is kept until EoRR");
        rib.handle(Event::RouteRefresh(
            0,
            RouteRefresh::new(1, 1, Subtype::End),
        ));
        assert_eq!(
            rib.sessions[0].adj_in.keys().copied().collect::<Vec<_>>(),
            [p1]
        );
        // b: p1 again (a new route), p3 withdrawn, then p2 at EoRR.
        assert_eq!(
            read(&links[1]),
            ["10.9.1.0/24", "-10.9.3.0/24", "-10.9.2.0/24"]
        );
        // Session b did not negotiate enhanced route refresh: its BoRR does nothing.
        rib.handle(Event::Update(1, Box::new(announce(65_002, &[p2])), now));
        rib.handle(Event::RouteRefresh(
            1,
            RouteRefresh::new(1, 1, Subtype::Begin),
        ));
        rib.handle(Event::RouteRefresh(
            1,
            RouteRefresh::new(1, 1, Subtype::End),
        ));
        assert!(rib.sessions[1].adj_in.contains_key(&p2));
    }

    #[test]
    fn rfc_4724_a_restarting_neighbours_routes_stay_until_its_end_of_rib() {
        let (mut rib, links) = rib();
        let (p1, p2) = (prefix(9, 1), prefix(9, 2));
        restarting(&mut rib, &links, p1, p2);
        // §4.2: kept, stale, still installed and still advertised to b.
        assert_eq!(rib.sessions[0].adj_in.len(), 2);
        assert!(rib.stale[0].restarting);
        assert_eq!(rib.stale[0].prefixes.len(), 2);
        assert!(rib.best(&p1).is_some());
        assert!(read(&links[1]).is_empty());
        // Back with the capability: the table, then End-of-RIB (§2) to a.
        let a = up(&mut rib, 0, RESTARTS);
        assert_eq!(read(&a), ["10.0.0.0/24", "10.0.1.0/24", ""]);
        assert!(rib.stale[0].restarting, "waits for a's End-of-RIB");
        // a sends p1 again, then its End-of-RIB: p2 goes (§4.2).
        let now = Instant::now();
        rib.handle(Event::Update(0, Box::new(announce(65_001, &[p1])), now));
        rib.handle(Event::Update(0, Box::new(Update::default()), now));
        assert!(!rib.stale[0].restarting);
        assert_eq!(
            rib.sessions[0].adj_in.keys().copied().collect::<Vec<_>>(),
            [p1]
        );
        assert_eq!(read(&links[1]), ["10.9.1.0/24", "-10.9.2.0/24"]);
        // No End-of-RIB to a session that did not negotiate graceful restart.
        let b = up(&mut rib, 1, Features::default());
        assert_eq!(read(&b).len(), 3, "two own prefixes and a's p1, no marker");
    }

    #[test]
    fn rfc_4724_stale_routes_go_when_the_restart_time_is_up_or_the_capability_is_gone() {
        let (mut rib, links) = rib();
        let (p1, p2) = (prefix(9, 1), prefix(9, 2));
        restarting(&mut rib, &links, p1, p2);
        // A connection attempt failing before Established leaves them.
        rib.handle(Event::Down(0, "read: connection reset".into()));
        assert_eq!(rib.sessions[0].adj_in.len(), 2);
        rib.expire_stale(Instant::now() + Duration::from_secs(29));
        assert_eq!(rib.sessions[0].adj_in.len(), 2, "within the Restart Time");
        rib.expire_stale(Instant::now() + Duration::from_secs(31));
        assert!(rib.sessions[0].adj_in.is_empty());
        assert_eq!(read(&links[1]).len(), 2, "both withdrawn from b");
        // Back without the capability: at once (§4.2).
        let _a = up(&mut rib, 0, RESTARTS);
        restarting(&mut rib, &links, p1, p2);
        assert_eq!(rib.sessions[0].adj_in.len(), 2);
        let _a = up(&mut rib, 0, Features::default());
        assert!(rib.sessions[0].adj_in.is_empty());
        assert!(!rib.stale[0].restarting);
        // A neighbour without graceful restart: its routes go with the session.
        rib.sessions[0].up.as_mut().unwrap().features = Features::default();
        rib.handle(Event::Update(
            0,
            Box::new(announce(65_001, &[p1])),
            Instant::now(),
        ));
        rib.handle(Event::Down(0, "read: connection reset".into()));
        assert!(rib.sessions[0].adj_in.is_empty());
    }

    #[test]
    fn this_speaker_asks_only_a_neighbour_that_announced_route_refresh() {
        let (mut rib, links) = rib();
        assert!(rib.request_refresh("b"));
        let sent = links[1].take_all();
        assert_eq!(sent, [RouteRefresh::new(1, 1, Subtype::Request).encoding()]);
        assert_eq!(sent[0].len(), HEADER_LEN + 4);
        assert!(!rib.request_refresh("nobody"));
        rib.sessions[0].up.as_mut().unwrap().features.route_refresh = false;
        assert!(!rib.request_refresh("a"));
        assert!(links[0].take_all().is_empty());
    }
}
