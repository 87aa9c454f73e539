//! IPv6 in the RIB: each family goes only to the sessions that negotiated it (RFC 4760
//! §8), in MP_REACH_NLRI with the session's RFC 2545 §3 next hop, withdrawn with
//! MP_UNREACH_NLRI (RFC 4760 §4); BGPsec per AFI (RFC 8205 §2.2), the AS_PATH
//! downgrade toward plain IPv6 neighbours (§4.4).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc::unbounded_channel;

use super::super::config::Mode;
use super::super::events::{Event, State, Up};
use super::super::family::Afis;
use super::super::outbox::{self, Link};
use super::super::pool::Pool;
use super::{Rib, Session};
use crate::packet::{
    Afi, AsPath, AsWidth, AttributeValue, Message, MpReachNlri, MpUnreachNlri, NextHop, Origin,
    PathAttribute, Prefix, Safi, Update,
};
use crate::suite::ECDSA_P256_SHA256;
use crate::{AlgorithmSuite, Hop, RouterKey, RouterKeys, SignedNlri, Signer, SigningKey};

const LOCAL: u32 = 65_100;
const PEER: u32 = 65_001;
const NEXT_HOP4: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 100);

fn v6(s: &str) -> Ipv6Addr {
    s.parse().unwrap()
}

fn prefix(s: &str) -> Prefix {
    let (a, l) = s.split_once('/').unwrap();
    Prefix::new(a.parse::<IpAddr>().unwrap(), l.parse().unwrap()).unwrap()
}

fn signer(asn: u32, key: &SigningKey) -> Signer<'static> {
    let text = ECDSA_P256_SHA256.secret_key_file(key).unwrap();
    let key = ECDSA_P256_SHA256
        .signing_key_from_file(text.as_bytes())
        .unwrap();
    Signer::new(asn).with_key(&ECDSA_P256_SHA256, key).unwrap()
}

/// An Established session of AS `asn` that negotiated `afis` (IPv4 BGPsec both ways
/// with `bgpsec4`), its IPv6 next hop `next_hop6`.
fn session(
    asn: u32,
    bgpsec4: bool,
    afis: Afis,
    next_hop6: Option<NextHop>,
    local: &Arc<Signer<'static>>,
) -> (Session, Link) {
    let (tx, link) = outbox::channel(usize::MAX);
    let mut s = Session::new(format!("AS{asn}"), asn, Arc::clone(local));
    s.state = State::Established;
    s.up = Some(Up {
        remote_as: asn,
        width: AsWidth::Four,
        bgpsec_send: bgpsec4,
        bgpsec_receive: bgpsec4,
        tx,
        features: Default::default(),
        afis,
        next_hop6,
    });
    (s, link)
}

fn afis(ipv4: bool, ipv6: bool, bgpsec6: bool) -> Afis {
    Afis {
        ipv4,
        ipv6,
        bgpsec_send6: bgpsec6,
        bgpsec_receive6: bgpsec6,
    }
}

/// The RIB with `sessions`, originating `local`, lazy; every session brought up
/// again (Event::Up) so that it is sent the table.
fn rib(local: &[&str], sessions: Vec<(Session, Link)>, keys: RouterKeys) -> (Rib, Vec<Link>) {
    let (events_tx, _events) = unbounded_channel();
    let pool = Pool::new(1, Arc::new(keys), events_tx);
    let (mut sessions, links): (Vec<Session>, Vec<Link>) = sessions.into_iter().unzip();
    let ups: Vec<Up> = sessions.iter_mut().map(|s| s.up.take().unwrap()).collect();
    let mut rib = Rib::new(
        LOCAL,
        NEXT_HOP4,
        Mode::Lazy,
        local.iter().map(|p| prefix(p)).collect(),
        sessions,
        pool,
    );
    for (i, up) in ups.into_iter().enumerate() {
        rib.handle(Event::Up(i, up));
    }
    (rib, links)
}

/// The UPDATEs a session was sent, decoded, with their octets.
fn sent(link: &Link) -> Vec<(Update<'static>, Vec<u8>)> {
    link.take_all()
        .into_iter()
        .map(|b| match Message::decode(&b, AsWidth::Four).unwrap() {
            Message::Update(u) => (u.into_owned(), b),
            m => panic!("{m:?}"),
        })
        .collect()
}

/// The announcement of `p` among `updates`.
fn of<'a>(updates: &'a [(Update<'static>, Vec<u8>)], p: &str) -> &'a (Update<'static>, Vec<u8>) {
    let p = prefix(p);
    updates
        .iter()
        .find(|(u, _)| u.announced().any(|q| q == p))
        .unwrap_or_else(|| panic!("{p} not announced: {updates:?}"))
}

/// Whether the octets hold MP_REACH_NLRI's AFI 2, SAFI 1, next-hop length `len` and
/// then `global` (RFC 4760 §3, RFC 2545 §3).
fn next_hop_octets(bytes: &[u8], len: u8, global: Ipv6Addr) -> bool {
    let mut head = vec![0, 2, 1, len];
    head.extend(global.octets());
    bytes.windows(head.len()).any(|w| w == head.as_slice())
}

/// RFC 4760 §8: an IPv4-only session gets the IPv4 prefix alone (NEXT_HOP, NLRI
/// field); an IPv6-only one the IPv6 prefix alone, in MP_REACH_NLRI with its 16-octet
/// global next hop and AS_PATH (no NEXT_HOP, no NLRI field; RFC 2545 §3); a session
/// of both with global and link-local next hops gets both, the IPv6 one with the
/// 32-octet next hop.
#[test]
fn each_family_goes_to_the_sessions_that_negotiated_it_with_an_rfc_2545_next_hop() {
    let local = Arc::new(Signer::new(LOCAL));
    let (g, l) = (v6("2001:db8::100"), v6("fe80::100"));
    let (rib_, links) = rib(
        &["10.9.0.0/16", "2001:db8:9::/48"],
        vec![
            session(65_004, false, afis(true, false, false), None, &local),
            session(
                65_006,
                false,
                afis(false, true, false),
                Some(NextHop::V6(g)),
                &local,
            ),
            session(
                65_046,
                false,
                afis(true, true, false),
                Some(NextHop::V6LinkLocal(g, l)),
                &local,
            ),
        ],
        RouterKeys::new(),
    );
    let (four, six, both) = (sent(&links[0]), sent(&links[1]), sent(&links[2]));
    assert_eq!(four.len(), 1, "{four:?}");
    let (u, _) = of(&four, "10.9.0.0/16");
    assert_eq!(u.nlri, [prefix("10.9.0.0/16")]);
    assert!(u.mp_reach().is_none());
    assert!(u
        .attributes
        .iter()
        .any(|a| matches!(a.value(), AttributeValue::NextHop(n) if *n == NEXT_HOP4)));

    assert_eq!(six.len(), 1, "{six:?}");
    let (u, bytes) = of(&six, "2001:db8:9::/48");
    assert!(u.nlri.is_empty(), "IPv6 never in the NLRI field");
    let mp = u.mp_reach().unwrap();
    assert_eq!((mp.afi(), mp.safi()), (Afi::Ipv6, Safi::Unicast));
    assert_eq!(mp.next_hop(), NextHop::V6(g));
    assert!(next_hop_octets(bytes, 16, g));
    assert!(!u
        .attributes
        .iter()
        .any(|a| matches!(a.value(), AttributeValue::NextHop(_))));
    assert_eq!(u.as_path(), Some(&AsPath::sequence(vec![LOCAL])));
    assert_eq!(u.origin(), Some(Origin::Igp));
    assert!(u.bgpsec_path().is_none());

    assert_eq!(both.len(), 2, "{both:?}");
    let (u, bytes) = of(&both, "2001:db8:9::/48");
    assert_eq!(u.mp_reach().unwrap().next_hop(), NextHop::V6LinkLocal(g, l));
    assert!(next_hop_octets(bytes, 32, g));
    of(&both, "10.9.0.0/16");
    assert_eq!(rib_.sessions[1].adj_out.len(), 1);
}

/// An IPv6 session with no next hop (none configured, an IPv4 transport) is sent no
/// IPv6 route: the announcement cannot be built (RFC 2545 §3 needs an IPv6 address).
#[test]
fn no_ipv6_next_hop_no_ipv6_route() {
    let local = Arc::new(Signer::new(LOCAL));
    let (rib_, links) = rib(
        &["10.9.0.0/16", "2001:db8:9::/48"],
        vec![session(
            65_046,
            false,
            afis(true, true, false),
            None,
            &local,
        )],
        RouterKeys::new(),
    );
    let got = sent(&links[0]);
    assert_eq!(got.len(), 1, "{got:?}");
    of(&got, "10.9.0.0/16");
    assert!(!rib_.sessions[0]
        .adj_out
        .contains_key(&prefix("2001:db8:9::/48")));
}

/// A plain IPv6 route in MP_REACH_NLRI from one session goes on to another IPv6
/// session with the local next hop and AS prepended; its MP_UNREACH_NLRI withdrawal
/// goes on as MP_UNREACH_NLRI (RFC 4760 §4), never as Withdrawn Routes; the
/// IPv4-only session hears of neither.
#[test]
fn an_ipv6_withdrawal_goes_on_in_mp_unreach_nlri() {
    let local = Arc::new(Signer::new(LOCAL));
    let g = v6("2001:db8::100");
    let (mut rib, links) = rib(
        &[],
        vec![
            session(
                PEER,
                false,
                afis(false, true, false),
                Some(NextHop::V6(g)),
                &local,
            ),
            session(
                65_006,
                false,
                afis(true, true, false),
                Some(NextHop::V6(g)),
                &local,
            ),
            session(65_004, false, afis(true, false, false), None, &local),
        ],
        RouterKeys::new(),
    );
    let p = prefix("2001:db8:1::/48");
    let attr = |v| PathAttribute::new(v, AsWidth::Four).unwrap();
    let mp = MpReachNlri::new(Safi::Unicast, NextHop::V6(v6("2001:db8::1")), vec![p]).unwrap();
    let announce = Update {
        attributes: vec![
            attr(AttributeValue::Origin(Origin::Igp)),
            attr(AttributeValue::AsPath(AsPath::sequence(vec![PEER]))),
            attr(AttributeValue::MpReachNlri(mp)),
        ],
        ..Update::default()
    };
    rib.handle(Event::Update(0, Box::new(announce), Instant::now()));
    let got = sent(&links[1]);
    let (u, _) = of(&got, "2001:db8:1::/48");
    assert_eq!(u.mp_reach().unwrap().next_hop(), NextHop::V6(g));
    assert_eq!(u.as_path(), Some(&AsPath::sequence(vec![LOCAL, PEER])));
    let unreach = MpUnreachNlri::new(Afi::Ipv6, Safi::Unicast, vec![p]).unwrap();
    let withdraw = Update {
        attributes: vec![attr(AttributeValue::MpUnreachNlri(unreach))],
        ..Update::default()
    };
    rib.handle(Event::Update(0, Box::new(withdraw), Instant::now()));
    let got = sent(&links[1]);
    assert_eq!(got.len(), 1, "{got:?}");
    let u = &got[0].0;
    assert!(u.withdrawn.is_empty() && u.nlri.is_empty());
    let m = u.mp_unreach().unwrap();
    assert_eq!((m.afi(), m.withdrawn()), (Afi::Ipv6, &[p][..]));
    assert!(sent(&links[2]).is_empty(), "the IPv4-only session");
    assert!(rib.sessions[0].adj_in.is_empty());
}

/// RFC 8205 §2.2 per AFI: a BGPsec IPv6 UPDATE from a session that negotiated
/// BGPsec Receive for AFI 2 is a BGPsec route, signed on to a session that
/// negotiated Send for AFI 2 (MP_REACH_NLRI with the session's IPv6 next hop, §4.2)
/// and downgraded to AS_PATH toward a plain IPv6 session (§4.4); the same UPDATE
/// from a session with BGPsec for IPv4 only is treat-as-withdraw (§5.2).
#[test]
fn bgpsec_for_ipv6_is_negotiated_per_afi_and_downgraded_for_plain_neighbours() {
    let (peer_key, local_key) = (
        ECDSA_P256_SHA256.generate().unwrap(),
        ECDSA_P256_SHA256.generate().unwrap(),
    );
    let mut keys = RouterKeys::new();
    for (asn, k) in [(PEER, &peer_key), (LOCAL, &local_key)] {
        keys.insert(RouterKey::new(asn, *k.ski(), k.spki()));
    }
    let local = Arc::new(signer(LOCAL, &local_key));
    let g = v6("2001:db8::100");
    let nh = Some(NextHop::V6(g));
    let (mut rib, links) = rib(
        &[],
        vec![
            session(PEER, true, afis(true, true, true), nh, &local),
            session(65_007, true, afis(true, true, true), nh, &local),
            session(65_006, false, afis(false, true, false), nh, &local),
            // BGPsec for IPv4 only, IPv6 plain.
            session(65_008, true, afis(true, true, false), nh, &local),
        ],
        keys,
    );
    let p = prefix("2001:db8:1::/48");
    let origin =
        vec![PathAttribute::new(AttributeValue::Origin(Origin::Igp), AsWidth::Four).unwrap()];
    let signed = signer(PEER, &peer_key)
        .originate(
            SignedNlri::unicast(p),
            NextHop::V6(v6("2001:db8::1")),
            origin,
            &Hop::to(LOCAL),
        )
        .unwrap()
        .into_owned();
    rib.handle(Event::Update(0, Box::new(signed.clone()), Instant::now()));
    assert!(rib.sessions[0].adj_in[&p].bgpsec.is_some());
    // Signed on, next hop the session's.
    let got = sent(&links[1]);
    let (u, _) = of(&got, "2001:db8:1::/48");
    let path = u
        .bgpsec_path()
        .expect("signed toward a BGPsec IPv6 session");
    assert_eq!(path.secure_path().len(), 2);
    assert_eq!(u.mp_reach().unwrap().next_hop(), NextHop::V6(g));
    assert!(u.as_path().is_none());
    // Downgraded (§4.4) toward the plain IPv6 session and the IPv4-only BGPsec one.
    for link in [&links[2], &links[3]] {
        let got = sent(link);
        let (u, _) = of(&got, "2001:db8:1::/48");
        assert!(u.bgpsec_path().is_none());
        assert_eq!(u.as_path(), Some(&AsPath::sequence(vec![LOCAL, PEER])));
        assert_eq!(u.mp_reach().unwrap().next_hop(), NextHop::V6(g));
    }
    // From the session without BGPsec for IPv6: treat-as-withdraw, not a route.
    let q = prefix("2001:db8:2::/48");
    let other = signer(65_008, &peer_key)
        .originate(
            SignedNlri::unicast(q),
            NextHop::V6(v6("2001:db8::8")),
            vec![PathAttribute::new(AttributeValue::Origin(Origin::Igp), AsWidth::Four).unwrap()],
            &Hop::to(LOCAL),
        )
        .unwrap()
        .into_owned();
    rib.handle(Event::Update(3, Box::new(other), Instant::now()));
    assert!(!rib.sessions[3].adj_in.contains_key(&q));
}
