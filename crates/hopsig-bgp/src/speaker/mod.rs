//! A BGP-4 speaker with BGPsec that signs at once and validates lazily (issue 13
//! §1–§2; `hopsig speaker`, docs/spec/speaker.md), laid out like holo-bgp. Behind the
//! cargo feature `speaker`, so that users of the codec do not build tokio.
//!
//! * [`config`] — the TOML configuration; [`originate`] — the prefixes it
//!   originates, listed or from an MRT file;
//! * [`family`] — the address families of each session (IPv4 and IPv6 unicast,
//!   RFC 4760), BGPsec per AFI (RFC 8205 §2), the IPv6 next hop (RFC 2545 §3);
//! * [`fsm`] — the RFC 4271 §8 state machine, a pure function (events in, actions
//!   out); `session` — one task per session: the I/O shell that drives it over tokio
//!   TCP; [`collision`] — which of two connections of a session to close (RFC 4271
//!   §6.8);
//! * [`rib`] — the one task that owns every route: Adj-RIB-In with validation
//!   state, the decision, Adj-RIB-Out, signing (RFC 8205 §4) or the AS_PATH
//!   downgrade (§4.4), and the validation worker pool;
//! * [`pool`] — the worker threads that validate and sign for the RIB, with the
//!   RPKI view in force;
//! * the RPKI task — file sources and RTR caches merged into a new
//!   [`crate::rpki::view::View`] whenever a cache's data changes, sent to the RIB,
//!   which revalidates what it affects ([`rib::revalidate`]);
//! * [`outbox`] — each session's output queue, bounded, and its writer task;
//! * [`events`] — the messages between them; [`metrics`] — the Prometheus
//!   metrics; [`status`] — the status file, written off the RIB task; [`http`],
//!   [`api`] — `/metrics` and the read-only JSON API; [`mrt_dump`] — MRT dumps of
//!   the UPDATEs received and of Adj-RIB-In, written on a thread of their own.
//! * [`reload`] — a configuration reload (SIGHUP, `hopsig speaker reload`) as a
//!   plan, applied by `running`, which owns the session tasks.
//!
//! The wire codec, signing and validation are the rest of this crate's. The speaker
//! prints nothing: it logs through `tracing` events (one line of text each) and
//! returns a typed [`Error`].

pub mod api;
pub mod collision;
pub mod config;
pub mod control;
pub mod events;
pub mod family;
pub mod fsm;
pub mod http;
pub mod logs;
pub mod metrics;
pub mod mrt_dump;
pub mod originate;
pub mod outbox;
pub mod pool;
pub mod reload;
pub mod rib;
mod running;
mod session;
pub mod status;

use std::sync::Arc;
use std::time::Duration;

use std::path::PathBuf;

use hopsig_primitives::input::{read_limited, ReadError};
use hopsig_primitives::progress::RateLimit;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

use crate::router_key::LoadError;
use crate::rpki::rtr::CacheView;
use crate::rpki::source::{self, FileSources, SourceError};
use crate::rpki::view::View;
use crate::rpki::{Limits, TooMuch};
use crate::suite::{self, UnknownSuite};
use crate::Signer;
use config::Config;
use events::{Event, RpkiNews};
use pool::{Pool, SharedView};
use rib::{Policy, Rib, Session};

/// How often the status file is rewritten, at most.
const STATUS_EVERY: Duration = status::EVERY;

/// Longest pause between failed accepts.
const ACCEPT_BACKOFF: Duration = Duration::from_secs(1);

/// Largest secret key file read.
const MAX_KEY_FILE: u64 = 64 * 1024;

/// Why the speaker could not start: a configuration that cannot be used. Each message
/// is one line naming the file or address at fault.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A suite name in `router_keys` or a neighbour's `suites` that hopsig lacks.
    #[error(transparent)]
    Suite(#[from] UnknownSuite),
    /// A router secret key file that cannot be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A router secret key file that is not a key of its suite.
    #[error("{}: {problem}", path.display())]
    Key {
        /// The key file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// The RPKI router keys (`rpki_keys`) cannot be loaded.
    #[error(transparent)]
    RouterKeys(#[from] LoadError),
    /// An RPKI file source (`rpki_keys`, `[rpki] files`) cannot be loaded.
    #[error(transparent)]
    RpkiSource(#[from] SourceError),
    /// The RPKI file sources hold more than `[rpki.limits]` allows.
    #[error("RPKI files: {0}")]
    RpkiLimits(#[from] TooMuch),
    /// The prefixes to originate: a bad entry, an MRT file that cannot be used.
    #[error(transparent)]
    Originate(#[from] originate::OriginateError),
    /// The tokio runtime did not start.
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
    /// The metrics recorder cannot be installed (one is installed already).
    #[error("cannot install the metrics recorder: {0}")]
    Metrics(String),
    /// The listen address cannot be bound.
    #[error("listen {addr}: {source}")]
    Listen {
        /// The address.
        addr: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// An MRT dump cannot start (`[[mrt_dump]]`).
    #[error(transparent)]
    MrtDump(#[from] mrt_dump::DumpError),
}

/// The signer for neighbour `n`: the router's keys of the suites configured for it.
fn signer_for(config: &Config, n: &config::Neighbor) -> Result<Signer<'static>, Error> {
    let mut signer = Signer::new(config.local_as);
    for k in &config.router_keys {
        let suite = suite::named(&k.suite)?;
        if let Some(wanted) = &n.suites {
            let mut ids = vec![];
            for w in wanted {
                ids.push(suite::named(w)?.id());
            }
            if !ids.contains(&suite.id()) {
                continue;
            }
        }
        let bad_key = |e: &dyn std::fmt::Display| Error::Key {
            path: k.file.clone(),
            problem: e.to_string(),
        };
        let text = read_limited(&k.file, MAX_KEY_FILE, "router secret key")?;
        let key = suite
            .signing_key_from_file(&text)
            .map_err(|e| bad_key(&e))?;
        signer = signer.with_key(suite, key).map_err(|e| bad_key(&e))?;
    }
    Ok(signer)
}

/// Accepts connections on `listener` (at `addr`) and hands each to its neighbour's
/// task, passive or active (an active one resolves the collision with its own
/// connection, RFC 4271 §6.8).
///
/// A failed accept (out of file descriptors: the connection stays in the backlog,
/// so the next accept fails at once) pauses the loop, 10 ms doubling up to
/// [`ACCEPT_BACKOFF`], so that it does not spin; the first failure of a run is
/// logged, and the count when accepting works again.
async fn accept(
    listener: TcpListener,
    addr: std::net::SocketAddr,
    passive: watch::Receiver<Arc<running::Incoming>>,
) {
    let first_pause = Duration::from_millis(10);
    let mut pause = first_pause;
    let mut failed: u64 = 0;
    // Anyone can connect: one line per 10 s for refused connections, with the count.
    let mut refused = RateLimit::new(Duration::from_secs(10));
    loop {
        let (stream, from) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                if failed == 0 {
                    tracing::warn!(
                        "hopsig speaker: accept on {addr}: {e}; retrying, at most every {} s",
                        ACCEPT_BACKOFF.as_secs()
                    );
                }
                failed += 1;
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(ACCEPT_BACKOFF);
                continue;
            }
        };
        if failed > 0 {
            tracing::info!("hopsig speaker: accept on {addr} works again after {failed} failures");
            (failed, pause) = (0, first_pause);
        }
        // A dual-stack listener ([::]) sees IPv4 neighbours as IPv4-mapped addresses.
        // The neighbours in force: a reload changes them.
        let to = passive.borrow().get(&from.ip().to_canonical()).cloned();
        match to {
            // Up to four wait while the session is Idle; the task takes each
            // at its next start, or beside its own connection (RFC 4271 §6.8).
            Some(tx) => {
                let _ = tx.try_send(stream);
            }
            None => {
                if let Some(held) = refused.allow(std::time::Instant::now()) {
                    tracing::warn!(
                        "hopsig speaker: connection from {from} refused: not a passive neighbour nor an active one{}",
                        match held {
                            0 => String::new(),
                            n => format!(" ({n} more refused since the last line)"),
                        }
                    )
                }
            }
        }
    }
}

/// Runs the speaker of `config` until the process is stopped; it cannot reload
/// (SIGHUP is refused: no file to read), see [`run_file`].
///
/// # Errors
/// [`Error`]: a configuration that cannot be used — keys that do not load, an MRT
/// file to originate from that cannot be read, a listen address that cannot be bound.
pub fn run(config: Config) -> Result<(), Error> {
    serve(config, None)
}

/// Runs the speaker of `config`, read from the file `path`, until the process is
/// stopped; SIGHUP and `hopsig speaker reload` read the file again and apply it
/// (docs/spec/speaker.md "Reload").
///
/// # Errors
/// As [`run`].
pub fn run_file(config: Config, path: PathBuf) -> Result<(), Error> {
    serve(config, Some(path))
}

/// [`run`] with the configuration file, if any.
fn serve(config: Config, path: Option<PathBuf>) -> Result<(), Error> {
    let limits = config.rpki.limits.limits();
    let files = source::load_all(&config.rpki_files(), crate::router_key::unix_now(), &limits)?;
    for line in &files.report {
        tracing::info!("{line}");
    }
    let view = View::build(
        &files.payload,
        &crate::rpki::PayloadSet::new(),
        &files.slurm,
        &limits,
    )?;
    let mut sessions = vec![];
    for n in &config.neighbors {
        sessions.push(Session::new(
            n.address.to_string(),
            n.remote_as,
            Arc::new(signer_for(&config, n)?),
        ));
    }
    let local = originate::prefixes(&config)?;
    let threads = config
        .validation_threads
        .unwrap_or_else(hopsig_primitives::par::cores);
    let prometheus = metrics::install().map_err(|e| Error::Metrics(e.to_string()))?;
    mrt_dump::spawn(&config)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    runtime.block_on(async move {
        let (events_tx, mut events) = mpsc::unbounded_channel();
        let pool = Pool::with_signature_cache(
            threads,
            SharedView::new(Arc::new(view)),
            Arc::new(crate::cache::SignatureCache::new(config.signature_cache)),
            events_tx.clone(),
        );
        let mut rib = Rib::new(
            config.local_as,
            config.next_hop(),
            config.mode,
            local,
            sessions,
            pool,
        );
        rib.policies = config.neighbors.iter().map(Policy::of).collect();
        rib.rules = config.neighbors.iter().map(rib::Rules::of).collect();
        let local = session::Local {
            asn: config.local_as,
            router_id: config.router_id,
            hold_time: config.hold_time,
            connect_retry: Duration::from_secs(config.connect_retry.max(1)),
            send_hold_time: config.send_hold_time,
            next_hop6: None,
        };
        let mut running = running::Running::start(config, path, local, events_tx.clone(), files);
        let config = running.config.clone();
        if let Some(addr) = config.http.listen {
            let listener = TcpListener::bind(addr)
                .await
                .map_err(|source| Error::Listen { addr, source })?;
            let state = http::HttpState {
                prometheus,
                rib: events_tx.clone(),
            };
            tracing::info!("hopsig speaker: HTTP on {addr}");
            tokio::spawn(async move {
                if let Err(e) = http::serve(listener, state).await {
                    tracing::warn!("hopsig speaker: HTTP on {addr}: {e}");
                }
            });
        }
        if let Some(addr) = config.listen {
            let listener = TcpListener::bind(addr)
                .await
                .map_err(|source| Error::Listen { addr, source })?;
            tracing::info!("hopsig speaker: AS{} listening on {addr}", config.local_as);
            tokio::spawn(accept(listener, addr, running.incoming()));
        }
        let mut hangup = hangup();
        let router_id = config.router_id.to_string();
        let mut tick = tokio::time::interval(STATUS_EVERY);
        let mut dirty = true;
        let mut status_file = status::Writer::spawn(config.state_file.clone(), config.status_max_bytes)
            .map_err(Error::Runtime)?;
        loop {
            tokio::select! {
                Some(event) = events.recv() => {
                    rib.backlog = !events.is_empty();
                    rib.handle(event);
                    dirty = true;
                }
                // A revalidation walk, a chunk at a time between events (the select
                // picks among ready branches at random, so events are not starved).
                () = std::future::ready(()), if rib.revalidating() => {
                    rib.backlog = !events.is_empty();
                    rib.revalidate_some(rib::revalidate::CHUNK);
                    dirty = true;
                    tokio::task::yield_now().await;
                }
                Some(()) = async { hangup.as_mut()?.recv().await } => {
                    running.hangup(&mut rib);
                    dirty = true;
                }
                _ = tick.tick() => {
                    rib.expire_stale(std::time::Instant::now());
                    let config = &running.config;
                    for address in control::take_requests(&config.state_file) {
                        if rib.request_refresh(&address) {
                            tracing::info!("hopsig speaker: ROUTE-REFRESH sent to {address} (RFC 2918)");
                        } else {
                            tracing::warn!("hopsig speaker: no ROUTE-REFRESH to {address}: not an Established neighbour that announced Route Refresh (RFC 2918 §4)");
                        }
                    }
                    running.take_requests(&mut rib);
                    metrics::observe(&rib);
                    // Written off this task; a failed write is logged, counted and
                    // tried again: the status file never takes routing down.
                    let routes = running.config.status_routes;
                    dirty = status_file.tick(dirty, &rib, &router_id, routes);
                }
            }
        }
    })
}

/// SIGHUP, where it can be caught (logged if not: reloads then come from
/// `hopsig speaker reload` only).
fn hangup() -> Option<tokio::signal::unix::Signal> {
    match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()) {
        Ok(s) => Some(s),
        Err(e) => {
            tracing::warn!(
                "hopsig speaker: SIGHUP cannot be caught ({e}): reload with hopsig speaker reload"
            );
            None
        }
    }
}

/// The RPKI task: each time the caches report (`caches`), a new view of the file
/// sources `files` and the caches' payload (docs/spec/rpki.md, "Merge rules") when
/// the payload changed, and the caches' states, to the RIB task. Building the view
/// (half a million VRPs) runs on a blocking thread, not on the runtime's workers.
async fn rpki(
    files: FileSources,
    mut caches: watch::Receiver<Arc<CacheView>>,
    limits: Limits,
    rib: mpsc::UnboundedSender<Event>,
) {
    let files = Arc::new(files);
    // The view built at start holds no cache data: the caches' first state, if it
    // holds none either, needs no new one.
    let mut built = {
        let first = caches.borrow();
        first.payload.is_empty().then_some(first.payload_generation)
    };
    loop {
        let now = Arc::clone(&caches.borrow_and_update());
        let mut view = None;
        if built != Some(now.payload_generation) {
            let (files, data) = (Arc::clone(&files), Arc::clone(&now));
            let made = tokio::task::spawn_blocking(move || {
                View::build(&files.payload, &data.payload, &files.slurm, &limits)
            })
            .await;
            match made {
                Ok(Ok(v)) => {
                    built = Some(now.payload_generation);
                    view = Some(Arc::new(v));
                }
                Ok(Err(e)) => tracing::warn!(
                    "hopsig speaker: RPKI view not changed: files and caches together hold {e}"
                ),
                Err(e) => tracing::warn!("hopsig speaker: RPKI view not changed: {e}"),
            }
        }
        let news = RpkiNews {
            view,
            caches: now.caches.clone(),
        };
        if rib.send(Event::Rpki(Box::new(news))).is_err() || caches.changed().await.is_err() {
            return;
        }
    }
}
