//! Issue 25 §4's policy in the RIB, no sockets: three sessions, 0 and 1 sending
//! unsigned routes (or, for MED on BGPsec, 0 a signed one), 2 receiving.

use super::super::decision::{preferred, Candidate};
use super::super::filter::PrefixList;
use super::super::max_prefix::cease_data;
use super::*;
use crate::packet::Afi;
use crate::speaker::config::community;

/// An unsigned UPDATE for `p` with AS path `path`, MULTI_EXIT_DISC `med` and
/// COMMUNITIES `communities` (none if empty).
fn plain(p: Prefix, path: &[u32], med: Option<u32>, communities: &[u32]) -> Update<'static> {
    let mut attributes: Vec<PathAttribute<'static>> = [
        AttributeValue::Origin(Origin::Igp),
        AttributeValue::AsPath(AsPath::sequence(path.to_vec())),
        AttributeValue::NextHop(Ipv4Addr::new(192, 0, 2, 9)),
    ]
    .into_iter()
    .map(|a| PathAttribute::new(a, AsWidth::Four).unwrap())
    .collect();
    let other = |flags: u8, type_code: u8, value: Vec<u8>| {
        PathAttribute::with_flags(
            crate::packet::AttrFlags(flags),
            AttributeValue::Other {
                type_code,
                value: value.into(),
            },
        )
        .unwrap()
    };
    if let Some(m) = med {
        attributes.push(other(0x80, 4, m.to_be_bytes().to_vec()));
    }
    if !communities.is_empty() {
        let value = communities.iter().flat_map(|c| c.to_be_bytes()).collect();
        attributes.push(other(0xC0, 8, value));
    }
    attributes.sort_by_key(PathAttribute::type_code);
    Update {
        attributes,
        nlri: vec![p],
        ..Update::default()
    }
}

fn pfx(s: &str) -> Prefix {
    crate::speaker::config::parse_prefix(s).unwrap()
}

fn rules(toml: &str) -> Rules {
    let text = format!(
        "local_as = 1\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nstate_file = \"s\"\n\
         [[neighbors]]\naddress = \"192.0.2.2\"\nremote_as = 2\n{toml}"
    );
    let c =
        crate::speaker::config::Config::from_toml_str(&text, std::path::Path::new("/")).unwrap();
    Rules::of(&c.neighbors[0])
}

/// A lazy RIB with sessions 0 (AS65001), 1 (AS65002) and 2 (AS65010, BGPsec),
/// the rules given, originating `local`; the links of the three sessions.
fn rib(r: [Rules; 3], local: &[&str]) -> (Rib, [Link; 3], Keys) {
    let keys = keys();
    let (events_tx, _events) = unbounded_channel();
    let pool = Pool::new(1, Arc::new(keys.rpki.clone()), events_tx);
    let (s0, rx0) = session("zero", PEER_AS, true, &keys);
    let (s1, rx1) = session("one", 65_002, false, &keys);
    let (s2, rx2) = session("two", 65_010, true, &keys);
    let mut rib = Rib::new(
        LOCAL,
        Ipv4Addr::new(192, 0, 2, 100),
        Mode::Lazy,
        local.iter().map(|p| pfx(p)).collect(),
        vec![s0, s1, s2],
        pool,
    );
    rib.rules = r.to_vec();
    // As the sessions' Up would.
    for p in local {
        rib.decide(pfx(p));
    }
    (rib, [rx0, rx1, rx2], keys)
}

fn send(rib: &mut Rib, from: usize, u: Update<'static>) {
    rib.handle(Event::Update(from, Box::new(u), Instant::now()));
}

/// Every UPDATE on a link, decoded.
fn updates(rx: &Link) -> Vec<Update<'static>> {
    rx.take_all()
        .iter()
        .filter_map(|b| match Message::decode(b, AsWidth::Four).unwrap() {
            Message::Update(u) => Some(u.into_owned()),
            _ => None,
        })
        .collect()
}

/// The value of attribute `t` of `u`, kept as received.
fn kept(u: &Update<'_>, t: u8) -> Option<Vec<u8>> {
    u.attributes.iter().find_map(|a| match a.value() {
        AttributeValue::Other { type_code, value } if *type_code == t => Some(value.to_vec()),
        _ => None,
    })
}

fn installed_from(rib: &Rib, p: &str) -> Option<usize> {
    match rib.best(&pfx(p))? {
        Source::Neighbor(i, _) => Some(i),
        Source::Local => None,
    }
}

fn cand(session: usize, local_pref: u32, len: usize, asn: u32, med: Option<u32>) -> Candidate {
    Candidate {
        session,
        local_pref,
        path_length: len,
        neighbor_as: Some(asn),
        med,
    }
}

/// RFC 4271 §9.1.1, §9.1.2.2: LOCAL_PREF first, then AS path length, then MED among
/// routes of the same neighbouring AS (missing = lowest), then the session number.
#[test]
fn decision_order_local_pref_path_length_med_session() {
    // The higher LOCAL_PREF wins over a shorter path.
    let c = [cand(0, 100, 1, 1, None), cand(1, 200, 5, 2, None)];
    assert_eq!(preferred(&c), Some(1));
    // Same LOCAL_PREF: the shorter path, whatever the MED.
    let c = [cand(0, 100, 3, 1, Some(0)), cand(1, 100, 2, 1, Some(900))];
    assert_eq!(preferred(&c), Some(1));
    // Same neighbouring AS: the lower MED beats the lower session number.
    let c = [cand(0, 100, 2, 1, Some(50)), cand(1, 100, 2, 1, Some(10))];
    assert_eq!(preferred(&c), Some(1));
    // A missing MED is the lowest possible.
    let c = [cand(0, 100, 2, 1, Some(1)), cand(1, 100, 2, 1, None)];
    assert_eq!(preferred(&c), Some(1));
    // Different neighbouring ASes: MED is not compared.
    let c = [cand(0, 100, 2, 1, Some(50)), cand(1, 100, 2, 2, Some(10))];
    assert_eq!(preferred(&c), Some(0));
    // Elimination, not a total order: session 2 (AS1, MED 10) removes session 0
    // (AS1, MED 20); session 1 (AS2) stays; the lower session number of 1 and 2.
    let c = [
        cand(0, 100, 2, 1, Some(20)),
        cand(1, 100, 2, 2, Some(30)),
        cand(2, 100, 2, 1, Some(10)),
    ];
    assert_eq!(preferred(&c), Some(1));
    assert_eq!(preferred(&[]), None);
}

/// The same order in the RIB, from the configuration's `local_pref` and the received
/// MULTI_EXIT_DISC; what neighbour 2 is sent follows.
#[test]
fn local_pref_and_med_choose_between_two_neighbours() {
    let (mut r, rx, _k) = rib(
        [rules(""), rules("local_pref = 200"), Rules::default()],
        &[],
    );
    // Neighbour 1's longer path wins on its LOCAL_PREF.
    send(&mut r, 0, plain(pfx("10.1.0.0/16"), &[PEER_AS], None, &[]));
    send(
        &mut r,
        1,
        plain(pfx("10.1.0.0/16"), &[65_002, 65_009, 65_008], None, &[]),
    );
    assert_eq!(installed_from(&r, "10.1.0.0/16"), Some(1));
    let last = updates(&rx[2]).pop().unwrap();
    assert_eq!(
        last.as_path().unwrap(),
        &AsPath::sequence(vec![LOCAL, 65_002, 65_009, 65_008])
    );
    // Equal LOCAL_PREF, the same neighbouring AS (two links to AS65001): MED.
    let (mut r, _rx, _k) = rib([Rules::default(), Rules::default(), Rules::default()], &[]);
    send(
        &mut r,
        0,
        plain(pfx("10.2.0.0/16"), &[PEER_AS, 7], Some(50), &[]),
    );
    send(
        &mut r,
        1,
        plain(pfx("10.2.0.0/16"), &[PEER_AS, 8], Some(10), &[]),
    );
    assert_eq!(installed_from(&r, "10.2.0.0/16"), Some(1));
    // Neighbour 1's route replaced by one without MED: still preferred (lowest).
    send(
        &mut r,
        1,
        plain(pfx("10.2.0.0/16"), &[PEER_AS, 8], None, &[]),
    );
    assert_eq!(installed_from(&r, "10.2.0.0/16"), Some(1));
    // A worse MED: neighbour 0 again.
    send(
        &mut r,
        1,
        plain(pfx("10.2.0.0/16"), &[PEER_AS, 8], Some(51), &[]),
    );
    assert_eq!(installed_from(&r, "10.2.0.0/16"), Some(0));
    // Different neighbouring ASes: MED not compared, the lower session number.
    send(
        &mut r,
        1,
        plain(pfx("10.2.0.0/16"), &[65_002, 8], Some(0), &[]),
    );
    assert_eq!(installed_from(&r, "10.2.0.0/16"), Some(0));
    let route = &r.sessions[0].adj_in[&pfx("10.2.0.0/16")];
    assert_eq!((route.local_pref, route.med), (100, Some(50)));
}

/// A route the import filter denies stays in Adj-RIB-In, filtered, not used, not
/// counted; the export filter keeps routes (own prefixes too) from one neighbour.
#[test]
fn import_and_export_filters() {
    let (mut r, rx, _k) = rib(
        [
            rules("import = [\"deny 10.1.5.0/24\", \"permit 10.0.0.0/8 le 24\"]"),
            Rules::default(),
            rules(
                "export = [\"deny 10.1.0.0/16\", \"deny 10.9.0.0/16\", \"permit 0.0.0.0/0 le 32\"]",
            ),
        ],
        &["10.9.0.0/16", "10.8.0.0/16"],
    );
    for p in [
        "10.1.0.0/16",
        "10.2.0.0/16",
        "10.1.5.0/24",
        "10.1.6.0/25",
        "192.0.2.0/24",
    ] {
        send(&mut r, 0, plain(pfx(p), &[PEER_AS], None, &[]));
    }
    let filtered: Vec<(String, bool)> = r.sessions[0]
        .adj_in
        .iter()
        .map(|(p, route)| (p.to_string(), route.filtered))
        .collect();
    assert_eq!(
        filtered,
        [
            ("10.1.0.0/16".to_string(), false),
            ("10.1.5.0/24".to_string(), true),
            ("10.1.6.0/25".to_string(), true),
            ("10.2.0.0/16".to_string(), false),
            ("192.0.2.0/24".to_string(), true),
        ]
    );
    assert_eq!(r.accepted(0), 2);
    assert_eq!(r.best(&pfx("192.0.2.0/24")), None);
    // Neighbour 1 has no export filter: the accepted routes and the own prefixes.
    let to = |i: usize| -> BTreeSet<String> {
        r.sessions[i]
            .adj_out
            .keys()
            .map(ToString::to_string)
            .collect()
    };
    let sent_to_one = to(1);
    assert_eq!(
        sent_to_one,
        ["10.1.0.0/16", "10.2.0.0/16", "10.8.0.0/16", "10.9.0.0/16"]
            .map(String::from)
            .into()
    );
    // Neighbour 2's export filter leaves out 10.1.0.0/16 and the own 10.9.0.0/16.
    assert_eq!(
        to(2),
        ["10.2.0.0/16", "10.8.0.0/16"].map(String::from).into()
    );
    let wire: BTreeSet<Prefix> = updates(&rx[2])
        .iter()
        .flat_map(|u| u.announced().collect::<Vec<_>>())
        .collect();
    assert_eq!(wire, [pfx("10.2.0.0/16"), pfx("10.8.0.0/16")].into());
    // An accepted route replaced by one the filter denies is no longer used: and a
    // withdrawal of a filtered route changes no count.
    send(&mut r, 0, withdrawal(pfx("192.0.2.0/24")));
    assert_eq!(r.accepted(0), 2);
}

/// RFC 4486: accepted prefixes counted through announcements, replacements,
/// withdrawals and filtered routes; one more than the limit ends the session with a
/// NOTIFICATION Cease / Maximum Number of Prefixes Reached, AFI 1, SAFI 1, the limit.
#[test]
fn max_prefixes_counts_and_ceases() {
    let (mut r, rx, _k) = rib(
        [
            rules("import = [\"permit 10.0.0.0/8 le 24\"]\nmax_prefixes = 3\nmax_prefixes_warning = 50"),
            Rules::default(),
            Rules::default(),
        ],
        &[],
    );
    let p = |i: u8| Prefix::new(std::net::IpAddr::V4(Ipv4Addr::new(10, i, 0, 0)), 16).unwrap();
    let announce = |r: &mut Rib, i: u8| send(r, 0, plain(p(i), &[PEER_AS], None, &[]));
    announce(&mut r, 0);
    announce(&mut r, 1);
    assert_eq!(r.accepted(0), 2);
    // A replacement is no new prefix.
    announce(&mut r, 0);
    send(&mut r, 0, plain(p(0), &[PEER_AS, 9], Some(3), &[]));
    assert_eq!(r.accepted(0), 2);
    // Withdrawals, one of a prefix never announced.
    send(&mut r, 0, withdrawal(p(1)));
    send(&mut r, 0, withdrawal(p(7)));
    assert_eq!(r.accepted(0), 1);
    // Filtered routes are not counted.
    send(&mut r, 0, plain(pfx("192.0.2.0/24"), &[PEER_AS], None, &[]));
    assert_eq!(r.accepted(0), 1);
    // An UPDATE withdrawing one prefix and announcing two.
    let mut u = plain(p(2), &[PEER_AS], None, &[]);
    u.nlri.push(p(3));
    u.withdrawn.push(p(0));
    send(&mut r, 0, u);
    assert_eq!(r.accepted(0), 2);
    // Treat-as-withdraw (RFC 7606).
    r.handle(Event::TreatAsWithdraw(0, vec![p(2), p(9)]));
    assert_eq!(r.accepted(0), 1);
    announce(&mut r, 4);
    announce(&mut r, 5);
    assert_eq!(r.accepted(0), 3);
    assert!(
        rx[0].take_all().is_empty() && rx[0].ceased().is_none(),
        "at the limit"
    );
    assert!(r.prefix_counts[0].warned);
    // One more.
    announce(&mut r, 6);
    assert_eq!(r.accepted(0), 4);
    let sent = rx[0].take_all();
    assert_eq!(sent.len(), 1, "the NOTIFICATION alone");
    let m = &sent[0];
    assert_eq!(
        (m[18], m[19], m[20]),
        (3, 6, 1),
        "Cease, Maximum Number of Prefixes Reached"
    );
    assert_eq!(&m[21..], [0, 1, 1, 0, 0, 0, 3], "AFI 1, SAFI 1, limit 3");
    assert_eq!(cease_data(Afi::Ipv6, 70_000), [0, 2, 1, 0, 1, 0x11, 0x70]);
    let (why, restart) = rx[0].ceased().unwrap();
    assert!(
        why.contains("Maximum Number of Prefixes Reached") && why.contains("4 accepted"),
        "{why}"
    );
    assert_eq!(
        restart, None,
        "no max_prefixes_restart: until the speaker restarts"
    );
    // What the session reads after is dropped; going down resets the count.
    announce(&mut r, 7);
    assert!(!r.sessions[0].adj_in.contains_key(&p(7)));
    r.handle(Event::Down(0, why));
    assert_eq!(r.prefix_counts[0], Default::default());
    let restart = rules("max_prefixes = 1\nmax_prefixes_restart = 30")
        .max_prefixes
        .unwrap();
    assert_eq!(restart.restart, Some(std::time::Duration::from_secs(30)));
}

/// MED set toward a neighbour (the received one never passed on, RFC 4271 §5.1.4),
/// communities added on import and passed on; `no-export` added keeps the routes in.
#[test]
fn med_and_communities_on_export() {
    let c = |s: &str| community(s).unwrap();
    let (mut r, rx, _k) = rib(
        [
            rules("add_communities = [\"65000:7\", \"65001:1\"]"),
            rules("add_communities = [\"no-export\"]"),
            Rules::default(),
        ],
        &[],
    );
    r.rules[1].med = Some(33);
    send(
        &mut r,
        0,
        plain(pfx("10.1.0.0/16"), &[PEER_AS], Some(99), &[c("65001:1")]),
    );
    let u = updates(&rx[1]).pop().unwrap();
    assert_eq!(
        kept(&u, 4),
        Some(33u32.to_be_bytes().to_vec()),
        "own MED, not 99"
    );
    let communities: Vec<u8> = [c("65001:1"), c("65000:7")]
        .iter()
        .flat_map(|c| c.to_be_bytes())
        .collect();
    assert_eq!(
        kept(&u, 8),
        Some(communities.clone()),
        "each community once"
    );
    let u = updates(&rx[2]).pop().unwrap();
    assert_eq!(kept(&u, 4), None, "no MED configured: none sent");
    assert_eq!(kept(&u, 8), Some(communities));
    // no-export added by neighbour 1's import: used, sent nowhere.
    send(&mut r, 1, plain(pfx("10.3.0.0/16"), &[65_002], None, &[]));
    assert_eq!(installed_from(&r, "10.3.0.0/16"), Some(1));
    assert!(r
        .sessions
        .iter()
        .all(|s| !s.adj_out.contains_key(&pfx("10.3.0.0/16"))));
    assert_eq!(c("no-advertise"), 0xFFFF_FF02);
    assert!(community("65536:1").is_err() && community("1").is_err());
}

/// A BGPsec route signed onward with a MED and added communities set after signing:
/// it still validates at the next AS (RFC 8205 §4.2: neither is signed).
#[test]
fn med_and_communities_in_signed_updates_keep_them_valid() {
    let (mut r, rx, keys) = rib(
        [
            rules("add_communities = [\"65000:7\"]"),
            Rules::default(),
            rules("med = 44"),
        ],
        &["10.77.0.0/16"],
    );
    let _ = rx[2].take_all();
    send(&mut r, 0, update(&keys, prefix(3), Kind::Valid));
    let signed = updates(&rx[2]);
    let u = signed.last().unwrap();
    assert!(u.bgpsec_path().is_some());
    assert_eq!(kept(u, 4), Some(44u32.to_be_bytes().to_vec()));
    assert_eq!(
        kept(u, 8),
        Some(community("65000:7").unwrap().to_be_bytes().to_vec())
    );
    let validator = Validator::with_suites(crate::SUITES, &keys.rpki);
    let peer = crate::Peer::external(65_010, LOCAL);
    assert!(
        matches!(validator.update(u, &peer), Validation::Valid { .. }),
        "{:?}",
        validator.update(u, &peer)
    );
    // The own prefix, signed as origin, with the MED too (on the Up, re-sent here).
    r.handle(Event::Down(2, "test".into()));
    let (s2, rx2) = session("two", 65_010, true, &keys);
    r.handle(Event::Up(2, s2.up.unwrap()));
    let all = updates(&rx2);
    let own = all
        .iter()
        .find(|u| u.announced().any(|p| p == pfx("10.77.0.0/16")))
        .unwrap();
    assert!(own.bgpsec_path().is_some());
    assert_eq!(kept(own, 4), Some(44u32.to_be_bytes().to_vec()));
    assert!(matches!(
        validator.update(own, &peer),
        Validation::Valid { .. }
    ));
    let _ = PrefixList::EMPTY;
}
