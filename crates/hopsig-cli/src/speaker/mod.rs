//! `hopsig speaker`: a BGP-4 speaker with BGPsec that signs at once and validates
//! lazily (issue 13 §1–§2), laid out like holo-bgp:
//!
//! * [`config`] — the TOML configuration; [`originate`] — the prefixes it
//!   originates, listed or from an MRT file;
//! * [`neighbor`] — one task per session: the RFC 4271 §8 FSM over tokio TCP;
//! * [`rib`] — the one task that owns every route: Adj-RIB-In with validation
//!   state, the decision, Adj-RIB-Out, signing (RFC 8205 §4) or the AS_PATH
//!   downgrade (§4.4), and the validation worker pool;
//! * [`outbox`] — each session's output queue, bounded, and its writer task;
//! * [`events`] — the messages between them; [`metrics`], [`status`] — the
//!   status file.
//!
//! The wire codec, signing and validation are hopsig-bgp's.

pub mod config;
pub mod events;
pub mod metrics;
pub mod neighbor;
pub mod originate;
pub mod outbox;
pub mod rib;
pub mod status;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use hopsig_bgp::{RouterKeys, Signer};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use crate::commands::bgpsec::{keys, suite_named};
use crate::io::{self, Failure};
use config::Config;
use events::State;
use rib::{Pool, Rib, Session};

/// How often the status file is rewritten, at most.
const STATUS_EVERY: Duration = Duration::from_millis(500);

/// Longest pause between failed accepts.
const ACCEPT_BACKOFF: Duration = Duration::from_secs(1);

/// Largest secret key file read.
const MAX_KEY_FILE: u64 = 64 * 1024;

/// The signer for neighbour `n`: the router's keys of the suites configured for it.
fn signer_for(config: &Config, n: &config::Neighbor) -> Result<Signer<'static>, Failure> {
    let mut signer = Signer::new(config.local_as);
    for k in &config.router_keys {
        let suite = suite_named(&k.suite)?;
        if let Some(wanted) = &n.suites {
            let mut ids = vec![];
            for w in wanted {
                ids.push(suite_named(w)?.id());
            }
            if !ids.contains(&suite.id()) {
                continue;
            }
        }
        let text = io::read_secret(&k.file, MAX_KEY_FILE, "router secret key")?;
        let key = suite
            .signing_key_from_file(&text)
            .map_err(|e| io::at(&k.file, e))?;
        signer = signer
            .with_key(suite, key)
            .map_err(|e| io::at(&k.file, e))?;
    }
    Ok(signer)
}

/// Accepts connections on `listener` (at `addr`) and hands each to its passive
/// neighbour's task.
///
/// A failed accept (out of file descriptors: the connection stays in the backlog,
/// so the next accept fails at once) pauses the loop, 10 ms doubling up to
/// [`ACCEPT_BACKOFF`], so that it does not spin; the first failure of a run is
/// logged, and the count when accepting works again.
async fn accept(
    listener: TcpListener,
    addr: std::net::SocketAddr,
    passive: HashMap<IpAddr, mpsc::Sender<tokio::net::TcpStream>>,
) {
    let first_pause = Duration::from_millis(10);
    let mut pause = first_pause;
    let mut failed: u64 = 0;
    // Anyone can connect: one line per 10 s for refused connections, with the count.
    let mut refused = io::RateLimit::new(Duration::from_secs(10));
    loop {
        let (stream, from) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                if failed == 0 {
                    io::note(format_args!(
                        "hopsig speaker: accept on {addr}: {e}; retrying, at most every {} s",
                        ACCEPT_BACKOFF.as_secs()
                    ));
                }
                failed += 1;
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(ACCEPT_BACKOFF);
                continue;
            }
        };
        if failed > 0 {
            io::note(format_args!(
                "hopsig speaker: accept on {addr} works again after {failed} failures"
            ));
            (failed, pause) = (0, first_pause);
        }
        match passive.get(&from.ip()) {
            // A neighbour with a session under way gets no second one.
            Some(tx) => {
                let _ = tx.try_send(stream);
            }
            None => {
                if let Some(held) = refused.allow(std::time::Instant::now()) {
                    io::note(format_args!(
                        "hopsig speaker: connection from {from} refused: not a passive neighbour{}",
                        match held {
                            0 => String::new(),
                            n => format!(" ({n} more refused since the last line)"),
                        }
                    ))
                }
            }
        }
    }
}

/// Runs the speaker of `config` until the process is stopped.
///
/// # Errors
/// A configuration that cannot be used: keys that do not load, a listen address
/// that cannot be bound.
pub fn run(config: Config) -> Result<(), Failure> {
    let keys = match &config.rpki_keys {
        Some(path) => {
            let loaded = keys::load(path, None)?;
            io::note(keys::summary(path, &loaded));
            loaded.keys
        }
        None => RouterKeys::new(),
    };
    let mut sessions = vec![];
    for n in &config.neighbors {
        sessions.push(Session {
            address: n.address.to_string(),
            remote_as: n.remote_as,
            state: State::Idle,
            up: None,
            signer: Arc::new(signer_for(&config, n)?),
            adj_in: Default::default(),
            adj_out: Default::default(),
            updates_in: 0,
            updates_out: 0,
            last_error: None,
        });
    }
    let local = originate::prefixes(&config)?;
    let threads = config
        .validation_threads
        .unwrap_or_else(|| crate::commands::bgpsec::threads(None));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure::Input(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(async move {
        let (events_tx, mut events) = mpsc::unbounded_channel();
        let pool = Pool::new(threads, Arc::new(keys), events_tx.clone());
        let mut rib = Rib::new(
            config.local_as,
            config.next_hop(),
            config.mode,
            local,
            sessions,
            pool,
        );
        let local = neighbor::Local {
            asn: config.local_as,
            router_id: config.router_id,
            hold_time: config.hold_time,
            connect_retry: Duration::from_secs(config.connect_retry.max(1)),
            send_hold_time: config.send_hold_time,
        };
        let mut passive: HashMap<IpAddr, mpsc::Sender<tokio::net::TcpStream>> = HashMap::new();
        for (id, n) in config.neighbors.iter().enumerate() {
            let (tx, rx) = mpsc::channel(4);
            if n.passive {
                passive.insert(n.address, tx);
            }
            tokio::spawn(neighbor::run(
                id,
                n.clone(),
                local.clone(),
                rx,
                events_tx.clone(),
            ));
        }
        if let Some(addr) = config.listen {
            let listener = TcpListener::bind(addr)
                .await
                .map_err(|e| Failure::Input(format!("listen {addr}: {e}")))?;
            io::note(format_args!(
                "hopsig speaker: AS{} listening on {addr}",
                config.local_as
            ));
            tokio::spawn(accept(listener, addr, passive));
        }
        let router_id = config.router_id.to_string();
        let mut tick = tokio::time::interval(STATUS_EVERY);
        let mut dirty = true;
        let mut status_file = status::Writes::default();
        let mut next_write = tokio::time::Instant::now();
        loop {
            tokio::select! {
                Some(event) = events.recv() => {
                    rib.backlog = !events.is_empty();
                    rib.handle(event);
                    dirty = true;
                }
                _ = tick.tick() => {
                    if dirty && tokio::time::Instant::now() >= next_write {
                        let started = tokio::time::Instant::now();
                        let value = status::to_json(&rib, &router_id, config.status_routes);
                        // A failed write is logged, counted and tried again: the
                        // status file never takes routing down.
                        dirty = !status_file.write(&config.state_file, value);
                        // At most a twentieth of the RIB task's time.
                        next_write = started + (started.elapsed() * 20).max(STATUS_EVERY);
                    }
                }
            }
        }
    })
}
