//! Issue 24 §5, speaker side: revalidation after a change of the RPKI view with a full
//! table installed — the routes of the busiest peer of the 2002 RIS RIB dump (113 k
//! routes), each signed for real along its AS path (suite 1), installed in the RIB of
//! a lazy speaker with a downstream BGPsec session; no TCP.
//!
//! ```text
//! cargo run --release -p hopsig-bench --example revalidate -- RIB.gz [LIMIT] [THREADS]
//! ```
//!
//! Three view changes, each timed until every route's three verdicts are those of the
//! new view and the validation queue has drained (the RIB task handling answers and
//! walking its revalidation a chunk at a time, as in the speaker's run loop):
//!
//! 1. the caches' data expires: no key, VRP or ASPA — every route revalidated (Not
//!    Valid, withdrawn downstream), ROV and ASPA recomputed;
//! 2. a Cache Reset brings it all back — every route revalidated (Valid,
//!    re-announced, signed by the pool);
//! 3. a Cache Reset with the same data — nothing to do.
//!
//! Also: ROV + ASPA per route (the verdicts alone, over the table), and the longest
//! time the RIB task spent in one revalidation chunk (what a session's UPDATEs could
//! wait behind; keepalives are the session tasks' own). Nothing is asserted.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeSet, HashMap};
use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hopsig_bench::suites::speaker::established;
use hopsig_bgp::packet::{AsWidth, Message, Update};
use hopsig_bgp::rpki::aspa::Relation;
use hopsig_bgp::rpki::view::View;
use hopsig_bgp::rpki::{Limits, PayloadSet};
use hopsig_bgp::speaker::config::Mode;
use hopsig_bgp::speaker::events::Event;
use hopsig_bgp::speaker::pool::{Pool, SharedView};
use hopsig_bgp::speaker::rib::adj_in::origin_and_path;
use hopsig_bgp::speaker::rib::revalidate::CHUNK;
use hopsig_bgp::speaker::rib::{Policy, Rib, RouteState};
use hopsig_bgp::suite::{AlgorithmSuite, ECDSA_P256_SHA256};
use hopsig_bgp::trace::{signed_path, update_message, Entries, Entry, Keyring, Route};
use hopsig_bgp::Signer;

const LOCAL_AS: u32 = 64_999;
const DOWN_AS: u32 = 64_998;

fn main() {
    let mut args = std::env::args().skip(1);
    let file = PathBuf::from(args.next().expect("RIB dump"));
    let limit: usize = args.next().map_or(usize::MAX, |a| a.parse().unwrap());
    let threads: usize = args.next().map_or(2, |a| a.parse().unwrap());

    // The busiest peer's routes.
    let t = Instant::now();
    let mut per_peer: HashMap<IpAddr, usize> = HashMap::new();
    for e in Entries::new(hopsig_bgp::mrt::open(&file).unwrap().reader) {
        if let Ok(Entry::Announcement(a)) = e {
            *per_peer.entry(a.peer_ip).or_default() += 1;
        }
    }
    let (&peer, _) = per_peer.iter().max_by_key(|(_, n)| **n).unwrap();
    let mut routes: Vec<Route> = vec![];
    let mut seen = BTreeSet::new();
    for e in Entries::new(hopsig_bgp::mrt::open(&file).unwrap().reader) {
        let Ok(Entry::Announcement(a)) = e else {
            continue;
        };
        if a.peer_ip != peer || !a.prefix.addr().is_ipv4() || !seen.insert(a.prefix) {
            continue;
        }
        if let Ok(r) = Route::of(&a, LOCAL_AS) {
            routes.push(r);
        }
        if routes.len() >= limit {
            break;
        }
    }
    // One peer AS: the session's neighbour (RFC 8205 §5.2 check 2).
    let peer_as = {
        let mut n: HashMap<u32, usize> = HashMap::new();
        for r in &routes {
            *n.entry(r.newest_as()).or_default() += 1;
        }
        *n.iter().max_by_key(|(_, c)| **c).unwrap().0
    };
    routes.retain(|r| r.newest_as() == peer_as);
    eprintln!(
        "revalidate: {} routes of peer {peer} (AS{peer_as}) read in {:.1} s",
        routes.len(),
        t.elapsed().as_secs_f64()
    );

    // Keys for every AS, and every route signed along its path.
    let t = Instant::now();
    let mut ring = Keyring::new(&ECDSA_P256_SHA256);
    let mut asns: Vec<u32> = routes
        .iter()
        .flat_map(|r| r.hops.iter().map(|h| h.asn))
        .collect();
    asns.push(LOCAL_AS);
    asns.sort_unstable();
    asns.dedup();
    ring.generate(&asns, threads).unwrap();
    let updates: Vec<Update<'static>> = routes
        .iter()
        .map(|r| {
            let bytes = update_message(r, signed_path(r, &ring).unwrap()).unwrap();
            match Message::decode(&bytes, AsWidth::Four).unwrap() {
                Message::Update(u) => u.into_owned(),
                _ => panic!("not an UPDATE"),
            }
        })
        .collect();
    eprintln!(
        "revalidate: {} keys, {} routes signed in {:.1} s",
        asns.len(),
        updates.len(),
        t.elapsed().as_secs_f64()
    );

    // The full view: every key, a VRP for each route's origin, and ASPAs of every
    // origin AS naming the next AS (so that ASPA has work on every path).
    // VRPs and ASPAs through an rpki-client JSON file, as a cache's source would.
    let limits = Limits::default();
    let mut roas = vec![];
    let mut aspa_of: HashMap<u32, BTreeSet<u32>> = HashMap::new();
    for r in &routes {
        let p = r.nlri.prefix;
        roas.push(serde_json::json!({
            "prefix": p.to_string(), "maxLength": p.length(), "asn": r.hops[0].asn, "ta": "bench"
        }));
        if let Some(next) = r.hops.get(1) {
            aspa_of.entry(r.hops[0].asn).or_default().insert(next.asn);
        }
    }
    let aspas: Vec<_> = aspa_of
        .iter()
        .map(|(c, p)| serde_json::json!({"customer_asid": c, "expires": 4_000_000_000u64, "providers": p}))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("rpki.json");
    std::fs::write(
        &json,
        serde_json::json!({"roas": roas, "aspas": aspas}).to_string(),
    )
    .unwrap();
    let t = Instant::now();
    let mut full = hopsig_bgp::rpki::source::load_all(&[json], 0, &limits)
        .unwrap()
        .payload;
    eprintln!(
        "revalidate: rpki-client JSON of the VRPs and ASPAs read in {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    full.extend_from(
        View::from_router_keys(ring.router_keys()).payload(),
        &limits,
    )
    .unwrap();
    let (vrps, keys, aspas) = full.counts();
    let build = |set: &PayloadSet| {
        let t = Instant::now();
        let v = View::build(set, &PayloadSet::new(), &[], &limits).unwrap();
        (Arc::new(v), t.elapsed())
    };
    let (full_view, full_build) = build(&full);
    eprintln!(
        "revalidate: view of {vrps} VRPs, {keys} keys, {aspas} ASPAs built in {:.1} ms",
        full_build.as_secs_f64() * 1e3
    );

    // ROV + ASPA per route, the verdicts alone.
    let paths: Vec<_> = updates
        .iter()
        .map(|u| hopsig_bgp::as_path_equivalent::as_path(u.bgpsec_path().unwrap().secure_path()))
        .collect();
    let t = Instant::now();
    let mut invalid = 0usize;
    for (r, path) in routes.iter().zip(&paths) {
        let (rov, aspa) =
            origin_and_path(&full_view, &r.nlri.prefix, path, Some(Relation::Customer));
        invalid += usize::from(rov.state != hopsig_bgp::rpki::rov::RovState::Valid)
            + usize::from(aspa.state == hopsig_bgp::rpki::aspa::AspaState::Invalid);
    }
    let per_route = t.elapsed().as_secs_f64() / routes.len() as f64;
    eprintln!(
        "revalidate: ROV + ASPA: {:.2} µs per route ({} not ROV-valid or ASPA-invalid)",
        per_route * 1e6,
        invalid
    );

    // The RIB: the peer (session 0, role customer) and a downstream BGPsec session.
    let (events_tx, mut events) = tokio::sync::mpsc::unbounded_channel();
    let pool = Pool::new(threads, SharedView::new(Arc::clone(&full_view)), events_tx);
    let signer = {
        let files = ring.secret_key_files().unwrap();
        let (_, text) = files.iter().find(|(a, _)| *a == LOCAL_AS).unwrap();
        let key = ECDSA_P256_SHA256
            .signing_key_from_file(text.as_bytes())
            .unwrap();
        Arc::new(
            Signer::new(LOCAL_AS)
                .with_key(&ECDSA_P256_SHA256, key)
                .unwrap(),
        )
    };
    // Unbounded, never read: what was sent stays (the benchmark measures the RIB).
    let mut links = vec![];
    let sessions = [peer_as, DOWN_AS]
        .into_iter()
        .map(|asn| {
            let (session, link) = established(asn, true, Arc::clone(&signer));
            links.push(link);
            session
        })
        .collect();
    let mut rib = Rib::new(
        LOCAL_AS,
        Ipv4Addr::new(192, 0, 2, 99),
        Mode::Lazy,
        BTreeSet::new(),
        sessions,
        pool,
    );
    rib.policies = vec![Policy {
        role: Some(Relation::Customer),
        ..Policy::default()
    }];

    // Runs the RIB as its task does until every job and walk is done: answers as they
    // come, a revalidation chunk between them; the longest chunk.
    let mut settle = |rib: &mut Rib| -> (Duration, Duration, usize) {
        let start = Instant::now();
        let (mut longest, mut chunks) = (Duration::ZERO, 0);
        while rib.busy() {
            while let Ok(e) = events.try_recv() {
                rib.backlog = !events.is_empty() || rib.revalidating();
                rib.handle(e);
            }
            if rib.revalidating() {
                rib.backlog = true;
                let t = Instant::now();
                rib.revalidate_some(CHUNK);
                longest = longest.max(t.elapsed());
                chunks += 1;
            } else if rib.busy() {
                if let Some(e) = events.blocking_recv() {
                    rib.backlog = !events.is_empty();
                    rib.handle(e);
                }
            }
        }
        (start.elapsed(), longest, chunks)
    };
    let count = |rib: &Rib| {
        let adj = &rib.sessions[0].adj_in;
        let valid = adj
            .values()
            .filter(|r| matches!(r.state, RouteState::Valid(_)))
            .count();
        (adj.len(), valid, rib.sessions[1].adj_out.len())
    };

    let t = Instant::now();
    for (i, u) in updates.iter().enumerate() {
        rib.backlog = i + 1 < updates.len();
        rib.handle(Event::Update(0, Box::new(u.clone()), t));
    }
    let (took, _, _) = settle(&mut rib);
    let (n, valid, out) = count(&rib);
    eprintln!(
        "revalidate: table installed: {n} routes, {valid} valid, {out} sent downstream, in {:.1} s",
        (t.elapsed().max(took)).as_secs_f64()
    );

    let (empty, _) = build(&PayloadSet::new());
    for (name, view) in [
        ("expiry: every key, VRP and ASPA gone", empty),
        (
            "cache reset bringing everything back",
            Arc::clone(&full_view),
        ),
        ("cache reset with the same data", build(&full).0),
    ] {
        let t = Instant::now();
        rib.set_view(view);
        let (took, longest, chunks) = settle(&mut rib);
        // No walk when the view changed nothing.
        let d = rib
            .last_walk
            .filter(|d| d.generation == rib.generation)
            .unwrap_or_default();
        let (n, valid, out) = count(&rib);
        println!(
            "{name}: all {n} routes current after {:.2} s (walk {:.0} ms in {chunks} chunks, longest chunk {:.1} ms; {} BGPsec revalidations, {} ROV/ASPA changes); now {valid} valid, {out} sent downstream; {threads} threads",
            t.elapsed().max(took).as_secs_f64(),
            d.took.as_secs_f64() * 1e3,
            longest.as_secs_f64() * 1e3,
            d.bgpsec_jobs,
            d.verdicts_changed,
        );
    }
    println!(
        "ROV + ASPA per route: {:.2} µs ({} routes, {vrps} VRPs, {aspas} ASPAs); view build {:.0} ms",
        per_route * 1e6,
        routes.len(),
        full_build.as_secs_f64() * 1e3
    );
}
