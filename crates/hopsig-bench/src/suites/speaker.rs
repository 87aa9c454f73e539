//! `hopsig bench speaker`: the speaker's RIB task and validation pool (issue 13 §5,
//! speaker side), per suite, on signed 5-hop UPDATEs (a full table's mean path is 4.8
//! hops, issue 12 §6) handed to the RIB as its session tasks hand them — no TCP:
//!
//! * validation throughput, UPDATEs/s, with 1 and 2 worker threads, beside the floor
//!   measured in the same run: the same UPDATEs validated one after another by
//!   `hopsig_bgp::Validator` on one thread;
//! * lazy time-to-forward of single UPDATEs (arrival → signed UPDATE queued to the
//!   downstream session) beside one signing operation (`Signer::forward` of the same
//!   UPDATE), interleaved;
//! * a session reset: every route arriving at once, lazy and strict: time until every
//!   route is forwarded and until every route is validated.
//!
//! Every suite hopsig has: 1 (ECDSA P-256), 0xF7 (BGR) and 0xF8 (n × RSA-2048).
//! Targets (issue 13 §5) are printed beside the measured ratios, never asserted.

use std::collections::BTreeSet;
use std::net::Ipv4Addr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use hopsig_bgp::packet::{AsWidth, Message, NextHop, Prefix, Update};
use hopsig_bgp::suite::{AlgorithmSuite, BGR_RSA2048, ECDSA_P256_SHA256, RSA2048_PKCS1_SHA256};
use hopsig_bgp::trace::{signed_path, update_message, Keyring, Route};
use hopsig_bgp::{Hop, Peer, Signer, Validator, SUITES};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

use crate::table::{Column, Table};
use crate::timer::{median, rounds};
use crate::{Error, Machine};
use hopsig_bgp::speaker::config::Mode;
use hopsig_bgp::speaker::events::{Event, State, Up};
use hopsig_bgp::speaker::outbox::{self, Link};
use hopsig_bgp::speaker::pool::Pool;
use hopsig_bgp::speaker::rib::{Rib, Session};

/// An Established session with `asn` (4-octet AS numbers, BGPsec both ways when
/// `bgpsec`), as the RIB gets it from a session task, and the receiving end of its
/// unbounded outbox: nothing reads it, so what the RIB sends stays and the benchmarks
/// measure the RIB alone.
pub fn established(asn: u32, bgpsec: bool, signer: Arc<Signer<'static>>) -> (Session, Link) {
    let (tx, link) = outbox::channel(usize::MAX);
    let session = Session {
        address: format!("AS{asn}"),
        remote_as: asn,
        state: State::Established,
        up: Some(Up {
            remote_as: asn,
            width: AsWidth::Four,
            bgpsec_send: bgpsec,
            bgpsec_receive: bgpsec,
            tx,
            afis: Default::default(),
            next_hop6: None,
            features: Default::default(),
        }),
        signer,
        adj_in: Default::default(),
        adj_out: Default::default(),
        updates_in: 0,
        updates_out: 0,
        last_error: None,
    };
    (session, link)
}

/// Hops per path.
const HOPS: usize = 5;
/// The speaker's AS; the paths' ASes are 65001.. from the origin.
const LOCAL_AS: u32 = 64_999;
/// The downstream BGPsec neighbour.
const DOWN_AS: u32 = 64_998;
/// Routes the throughput measurement validates, at least (repeating a short suite).
const THROUGHPUT_ROUTES: usize = 10_000;

/// One suite's numbers.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteRow {
    /// Suite name.
    pub suite: String,
    /// Routes (distinct /24s) in the run.
    pub routes: usize,
    /// Runs of the throughput measurement (each figure is their median).
    pub throughput_runs: usize,
    /// The floor: `Validator` alone on one thread, UPDATEs/s.
    pub floor_updates_per_s: f64,
    /// The speaker, 1 validation thread, UPDATEs/s.
    pub pool1_updates_per_s: f64,
    /// The speaker, 2 validation threads, UPDATEs/s.
    pub pool2_updates_per_s: f64,
    /// pool1 / floor.
    pub pool1_vs_floor: f64,
    /// pool2 / pool1 (target ≥ 1.8).
    pub scaling_2: f64,
    /// Median of one signing operation (`Signer::forward`), µs.
    pub sign_median_us: f64,
    /// Median lazy time-to-forward of single UPDATEs, µs.
    pub lazy_forward_median_us: f64,
    /// lazy_forward_median / sign_median (target ≤ 1.1).
    pub forward_vs_sign: f64,
    /// Session reset, lazy then strict.
    pub reset: Vec<ResetRow>,
    /// strict time to forward everything / lazy's (target ≥ 10 for suite 1).
    pub reset_forward_speedup: f64,
}

/// A session reset in one mode.
#[derive(Debug, Clone, Serialize)]
pub struct ResetRow {
    /// `lazy` or `strict`.
    pub mode: String,
    /// Until the last route was forwarded, ms.
    pub all_forwarded_ms: f64,
    /// Until the last route was validated, ms.
    pub all_validated_ms: f64,
}

/// The whole benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct SpeakerBench {
    /// "speaker" (what `hopsig inspect` reports).
    pub suite: String,
    /// Whether `--quick` was given.
    pub quick: bool,
    /// Where it ran.
    pub machine: Machine,
    /// Hops per path.
    pub hops: usize,
    /// Per suite (the `rows` of ARCHITECTURE.md's JSON shape).
    pub rows: Vec<SuiteRow>,
}

fn setup(e: impl std::fmt::Display) -> Error {
    Error::setup(e)
}

/// The routes of one suite: `n` 5-hop UPDATEs toward [`LOCAL_AS`], decoded.
fn routes(ring: &Keyring, n: usize) -> Result<Vec<Update<'static>>, Error> {
    let mut out = Vec::with_capacity(n);
    let mut last = Instant::now();
    for i in 0..n {
        let prefix =
            Prefix::new(Ipv4Addr::new(10, (i >> 8) as u8, i as u8, 0).into(), 24).map_err(setup)?;
        let r = Route::synthetic(HOPS, prefix, LOCAL_AS);
        let bytes = update_message(&r, signed_path(&r, ring).map_err(setup)?).map_err(setup)?;
        match Message::decode(&bytes, AsWidth::Four).map_err(setup)? {
            Message::Update(u) => out.push(u.into_owned()),
            _ => return Err(setup("not an UPDATE")),
        }
        if last.elapsed() > Duration::from_secs(2) {
            tracing::info!(
                "bench speaker: {}: signed {}/{n} routes",
                ring.suite().name(),
                i + 1
            );
            last = Instant::now();
        }
    }
    Ok(out)
}

/// The speaker's own signer, from the keyring's secret key file for [`LOCAL_AS`].
fn local_signer(ring: &Keyring) -> Result<Signer<'static>, Error> {
    let suite = ring.suite();
    let files = ring.secret_key_files().map_err(setup)?;
    let (_, text) = files
        .iter()
        .find(|(a, _)| *a == LOCAL_AS)
        .ok_or_else(|| setup("no local key"))?;
    let key = suite
        .signing_key_from_file(text.as_bytes())
        .map_err(setup)?;
    Signer::new(LOCAL_AS).with_key(suite, key).map_err(setup)
}

struct Harness {
    rib: Rib,
    events: UnboundedReceiver<Event>,
    _down: Vec<Link>,
}

/// A RIB with the source session 0 (the last AS of the paths) and, with `down`, a
/// downstream BGPsec session 1.
fn harness(ring: &Keyring, mode: Mode, threads: usize, down: bool) -> Result<Harness, Error> {
    let (events_tx, events) = unbounded_channel();
    let pool = Pool::new(threads, Arc::new(ring.router_keys()), events_tx);
    let mut sessions = vec![];
    let mut links = vec![];
    let peers: &[(u32, bool)] = if down {
        &[(65_000 + HOPS as u32, true), (DOWN_AS, true)]
    } else {
        &[(65_000 + HOPS as u32, true)]
    };
    for &(asn, bgpsec) in peers {
        // Unbounded, never written: what was sent stays, as the benchmark measures
        // the RIB alone.
        let (session, link) = established(asn, bgpsec, Arc::new(local_signer(ring)?));
        links.push(link);
        sessions.push(session);
    }
    let rib = Rib::new(
        LOCAL_AS,
        Ipv4Addr::new(192, 0, 2, 99),
        mode,
        BTreeSet::new(),
        sessions,
        pool,
    );
    Ok(Harness {
        rib,
        events,
        _down: links,
    })
}

impl Harness {
    /// Handles the pool's answers until no job is out, blocked while waiting (as
    /// the RIB task awaits its channel) so that it leaves the cores to the workers;
    /// like the speaker's run loop, it tells the RIB whether more events wait.
    fn drain(&mut self) -> Result<(), Error> {
        while self.rib.busy() {
            match self.events.blocking_recv() {
                Some(e) => {
                    self.rib.backlog = !self.events.is_empty();
                    self.rib.handle(e);
                }
                None => return Err(setup("the pool's workers stopped")),
            }
        }
        Ok(())
    }

    /// Every update arriving at once, all stamped with the same arrival time (a
    /// session reset delivers a table faster than it is processed), so that more
    /// events wait for the RIB until the last; seconds until no job was out.
    fn burst(&mut self, updates: &[Update<'static>]) -> Result<f64, Error> {
        let start = Instant::now();
        for (i, u) in updates.iter().enumerate() {
            self.rib.backlog = i + 1 < updates.len();
            self.rib
                .handle(Event::Update(0, Box::new(u.clone()), start));
        }
        self.drain()?;
        Ok(start.elapsed().as_secs_f64())
    }
}

fn measure_suite(
    suite: &'static dyn AlgorithmSuite,
    n: usize,
    quick: bool,
) -> Result<SuiteRow, Error> {
    let name = suite.name();
    let mut ring = Keyring::new(suite);
    let asns: Vec<u32> = (0..HOPS as u32)
        .map(|h| 65_001 + h)
        .chain([LOCAL_AS, DOWN_AS])
        .collect();
    ring.generate(&asns, 2).map_err(setup)?;
    tracing::info!("bench speaker: {name}: signing {n} {HOPS}-hop routes");
    let updates = routes(&ring, n)?;

    tracing::info!("bench speaker: {name}: validation floor and pool throughput");
    let keys = ring.router_keys();
    let validator = Validator::with_suites(SUITES, &keys);
    let peer = Peer::external(LOCAL_AS, 65_000 + HOPS as u32);
    // A run under a second is at the mercy of the scheduler: short suites repeat
    // the three measurements, interleaved, and keep each one's median.
    let reps = if quick {
        1
    } else {
        (THROUGHPUT_ROUTES / n).clamp(1, 5)
    };
    let [floors, pools1, pools2] = rounds(
        reps,
        [
            &mut || {
                let start = Instant::now();
                for u in &updates {
                    if !validator.update(u, &peer).is_valid() {
                        return Err(setup("a benchmark route is not valid"));
                    }
                }
                Ok(n as f64 / start.elapsed().as_secs_f64())
            },
            &mut || Ok(n as f64 / harness(&ring, Mode::Strict, 1, false)?.burst(&updates)?),
            &mut || Ok(n as f64 / harness(&ring, Mode::Strict, 2, false)?.burst(&updates)?),
        ],
    )?;
    let (floor, pool1, pool2) = (median(floors), median(pools1), median(pools2));

    tracing::info!("bench speaker: {name}: lazy time-to-forward vs one signing operation");
    let signer = local_signer(&ring)?;
    let mut h = harness(&ring, Mode::Lazy, 1, true)?;
    let k = n.min(1000);
    let mut signs = Vec::with_capacity(k);
    let sign = |u: &Update<'static>| -> Result<f64, Error> {
        let t = Instant::now();
        signer
            .forward(
                u,
                Some(NextHop::V4(Ipv4Addr::new(192, 0, 2, 99))),
                &Hop::to(DOWN_AS),
            )
            .map_err(setup)?;
        Ok(t.elapsed().as_secs_f64() * 1e6)
    };
    for (i, u) in updates[..k].iter().enumerate() {
        // Whichever runs second finds the UPDATE and the key in cache: the order
        // alternates so that each is measured half the time each way.
        if i % 2 == 0 {
            signs.push(sign(u)?);
        }
        h.rib
            .handle(Event::Update(0, Box::new(u.clone()), Instant::now()));
        if i % 2 == 1 {
            signs.push(sign(u)?);
        }
        // The validation of this UPDATE finishes before the next arrives, so that it
        // does not share the core with the next forward.
        h.drain()?;
    }
    let sign_median = median(signs);
    let lazy_forward = h.rib.time_to_forward.quantile_us(0.5).unwrap_or(f64::NAN);

    let mut reset = vec![];
    for mode in [Mode::Lazy, Mode::Strict] {
        tracing::info!(
            "bench speaker: {name}: session reset, {} routes, {}",
            n,
            mode.name()
        );
        let mut h = harness(&ring, mode, 2, true)?;
        h.burst(&updates)?;
        let ms = |v: Option<f64>| v.map_or(f64::NAN, |us| us / 1e3);
        reset.push(ResetRow {
            mode: mode.name().into(),
            all_forwarded_ms: ms(h.rib.time_to_forward.quantile_us(1.0)),
            all_validated_ms: ms(h.rib.time_to_validate.quantile_us(1.0)),
        });
    }
    let speedup = reset[1].all_forwarded_ms / reset[0].all_forwarded_ms;
    Ok(SuiteRow {
        suite: name.into(),
        routes: n,
        throughput_runs: reps,
        floor_updates_per_s: floor,
        pool1_updates_per_s: pool1,
        pool2_updates_per_s: pool2,
        pool1_vs_floor: pool1 / floor,
        scaling_2: pool2 / pool1,
        sign_median_us: sign_median,
        lazy_forward_median_us: lazy_forward,
        forward_vs_sign: lazy_forward / sign_median,
        reset,
        reset_forward_speedup: speedup,
    })
}

impl SpeakerBench {
    /// Runs the measurement, with progress on stderr.
    ///
    /// # Errors
    /// Key generation or signing failing.
    pub fn measure(quick: bool) -> Result<SpeakerBench, Error> {
        let mut suites = vec![];
        for (suite, full, small) in [
            (
                &ECDSA_P256_SHA256 as &'static dyn AlgorithmSuite,
                20_000,
                2_000,
            ),
            (&BGR_RSA2048 as &'static dyn AlgorithmSuite, 2_000, 300),
            (
                &RSA2048_PKCS1_SHA256 as &'static dyn AlgorithmSuite,
                2_000,
                300,
            ),
        ] {
            suites.push(measure_suite(
                suite,
                if quick { small } else { full },
                quick,
            )?);
        }
        Ok(SpeakerBench {
            suite: "speaker".into(),
            quick,
            machine: Machine::detect(),
            hops: HOPS,
            rows: suites,
        })
    }

    /// The report.
    pub fn render(&self) -> String {
        let m = &self.machine;
        let mut s = format!(
            "hopsig speaker: RIB task + validation pool, {}-hop BGPsec UPDATEs (no TCP)\nmachine: {} ({} logical CPUs), {}\n\n",
            self.hops, m.cpu, m.logical_cpus, m.openssl
        );
        s += "validation throughput, UPDATEs/s (floor: Validator alone, 1 thread; median of the runs)\n";
        let mut t = Table::new(
            &[
                Column::left("suite", 22),
                Column::right("routes", 7),
                Column::right("runs", 5),
                Column::right("floor", 10),
                Column::right("1 thread", 10),
                Column::right("2 threads", 10),
                Column::right("1t/floor", 9),
                Column::right("2t/1t ≥1.8", 12),
            ],
            "",
        );
        for r in &self.rows {
            t.row([
                r.suite.clone(),
                r.routes.to_string(),
                r.throughput_runs.to_string(),
                format!("{:.0}", r.floor_updates_per_s),
                format!("{:.0}", r.pool1_updates_per_s),
                format!("{:.0}", r.pool2_updates_per_s),
                format!("{:.2}", r.pool1_vs_floor),
                format!("{:.2}", r.scaling_2),
            ]);
        }
        s += &t.render();
        s += "\nlazy time-to-forward of single UPDATEs vs one signing operation (medians, µs)\n";
        let mut t = Table::new(
            &[
                Column::left("suite", 22),
                Column::right("sign", 10),
                Column::right("forward", 12),
                Column::right("ratio ≤1.1", 14),
            ],
            "",
        );
        for r in &self.rows {
            t.row([
                r.suite.clone(),
                format!("{:.1}", r.sign_median_us),
                format!("{:.1}", r.lazy_forward_median_us),
                format!("{:.2}", r.forward_vs_sign),
            ]);
        }
        s += &t.render();
        s += "\nsession reset: every route at once, 2 validation threads (ms)\n";
        let mut t = Table::new(
            &[
                Column::left("suite", 22),
                Column::right("routes", 7),
                Column::right("lazy forwarded", 16),
                Column::right("lazy validated", 16),
                Column::right("strict forwarded", 16),
                Column::right("strict validated", 16),
                Column::right("strict/lazy fwd", 18),
            ],
            "",
        );
        for r in &self.rows {
            let (l, st) = (&r.reset[0], &r.reset[1]);
            t.row([
                r.suite.clone(),
                r.routes.to_string(),
                format!("{:.1}", l.all_forwarded_ms),
                format!("{:.1}", l.all_validated_ms),
                format!("{:.1}", st.all_forwarded_ms),
                format!("{:.1}", st.all_validated_ms),
                format!("{:.1}", r.reset_forward_speedup),
            ]);
        }
        s += &t.render();
        s += "targets (issue 13 §5): 2 threads ≥ 1.8× one; lazy forward ≤ 1.1× one signing operation; suite-1 lazy forwards a reset ≥ 10× sooner than strict.\n";
        s
    }
}
