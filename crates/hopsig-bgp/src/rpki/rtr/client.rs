//! The tokio shell of the RTR client: [`spawn_caches`] runs one task per cache (each
//! a [`Machine`] driving sessions) and publishes the [`CacheView`] of the preferred
//! caches; [`dump`] fetches one cache's data once.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rpki::rtr::{State, Timing};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::{sleep_until, timeout, Instant};

use super::error::RtrError;
use super::machine::{Action, Event, Machine, Overrides, Phase};
use super::session::{Reply, Session};
use super::{prefer, CacheConfig, CacheStatus, CacheView, MAX_VERSION};
use crate::rpki::payload::{Limits, PayloadSet};

/// How long a cache may stay silent inside a query (between two PDUs), and how long a
/// TCP connect may take.
pub const IO_TIMEOUT: Duration = Duration::from_secs(30);

/// One cache's data as fetched by [`dump`].
#[derive(Debug, Clone)]
pub struct Dump {
    /// The version the session ran at (after any downgrade).
    pub version: u8,
    /// The cache's Session ID.
    pub session_id: u16,
    /// The serial of End of Data.
    pub serial: u32,
    /// End of Data's timers (none at version 0).
    pub timing: Option<Timing>,
    /// What the cache served.
    pub payload: PayloadSet,
    /// From the connection to End of Data.
    pub elapsed: Duration,
}

/// Connects to `address`:`port`, sends one Reset Query and reads to End of Data
/// (RFC 8210 §8.1). Without `version`, starts at 2 and downgrades as the cache asks
/// (RFC 8210 §7); with one, that version only.
///
/// # Errors
/// [`RtrError`]: the connection, a timeout (`timeout` for the whole exchange), the
/// cache's Error Report, or what hopsig refused (with the Error Report it sent).
pub async fn dump(
    address: &str,
    port: u16,
    version: Option<u8>,
    limits: Limits,
    timeout_after: Duration,
) -> Result<Dump, RtrError> {
    let start = Instant::now();
    let work = async {
        let mut asked = version.unwrap_or(MAX_VERSION);
        if asked > MAX_VERSION {
            return Err(RtrError::Version {
                cache: MAX_VERSION,
                ours: asked,
            });
        }
        loop {
            let sock = connect(address, port).await?;
            let mut session = Session::new(sock, asked, limits, timeout_after);
            match session.reset_query().await {
                Ok(synced) => {
                    return Ok(Dump {
                        version: session.version(),
                        session_id: synced.state.session(),
                        serial: synced.state.serial().into(),
                        timing: synced.timing,
                        payload: synced.payload,
                        elapsed: start.elapsed(),
                    })
                }
                Err(e) => match (version, e.downgrade_to(asked)) {
                    (None, Some(lower)) => asked = lower,
                    _ => return Err(e),
                },
            }
        }
    };
    match timeout(timeout_after, work).await {
        Ok(r) => r,
        Err(_) => Err(RtrError::Timeout {
            after: timeout_after,
            waiting_for: "End of Data",
        }),
    }
}

/// A TCP connection to the cache, within [`IO_TIMEOUT`].
async fn connect(address: &str, port: u16) -> Result<TcpStream, RtrError> {
    let name = format!("{address}:{port}");
    let error = |source| RtrError::Connect {
        address: name.clone(),
        source,
    };
    match timeout(IO_TIMEOUT, TcpStream::connect((address, port))).await {
        Ok(Ok(s)) => {
            let _ = s.set_nodelay(true);
            Ok(s)
        }
        Ok(Err(e)) => Err(error(e)),
        Err(_) => Err(error(std::io::ErrorKind::TimedOut.into())),
    }
}

/// One cache's slot in the shared view.
struct Slot {
    status: CacheStatus,
    data: Arc<PayloadSet>,
}

/// The slots and what was last published from them.
struct Published {
    slots: Vec<Slot>,
    generation: u64,
    payload_generation: u64,
    /// The data of the caches whose union is the published payload: while the same
    /// caches hold the same data (the same `Arc`s), the payload has not changed.
    sources: Vec<Arc<PayloadSet>>,
}

/// What the cache tasks share.
struct Shared {
    tx: watch::Sender<Arc<CacheView>>,
    slots: Mutex<Published>,
    limits: Limits,
}

impl Shared {
    /// Sets slot `i` and publishes the view: the union of the most preferred group
    /// holding data (RFC 8210 §10).
    fn publish(&self, i: usize, status: CacheStatus, data: Arc<PayloadSet>) {
        let Ok(mut guard) = self.slots.lock() else {
            return;
        };
        let Published {
            slots,
            generation,
            payload_generation,
            sources,
        } = &mut *guard;
        if let Some(slot) = slots.get_mut(i) {
            slot.status = status;
            slot.data = data;
        }
        let holds: Vec<(u8, bool)> = slots
            .iter()
            .map(|s| (s.status.preference, s.status.in_use))
            .collect();
        let chosen = prefer::chosen(&holds);
        // The group's union may hold as many items as its caches together.
        let n = chosen.len().max(1);
        let union_limits = Limits {
            vrps: self.limits.vrps.saturating_mul(n),
            router_keys: self.limits.router_keys.saturating_mul(n),
            aspas: self.limits.aspas.saturating_mul(n),
            providers_per_aspa: self.limits.providers_per_aspa,
        };
        let mut payload = match chosen.first() {
            Some(&first) => slots[first].data.as_ref().clone(),
            None => PayloadSet::new(),
        };
        for &j in chosen.iter().skip(1) {
            if let Err(e) = payload.extend_from(&slots[j].data, &union_limits) {
                tracing::warn!("RTR: the union of the preferred caches: {e}");
            }
        }
        let caches = slots
            .iter()
            .enumerate()
            .map(|(j, s)| CacheStatus {
                in_use: chosen.contains(&j),
                ..s.status.clone()
            })
            .collect();
        let now: Vec<Arc<PayloadSet>> = chosen.iter().map(|&j| slots[j].data.clone()).collect();
        if now.len() != sources.len()
            || now
                .iter()
                .zip(sources.iter())
                .any(|(a, b)| !Arc::ptr_eq(a, b))
        {
            *payload_generation += 1;
            *sources = now;
        }
        *generation += 1;
        let view = CacheView {
            payload,
            caches,
            generation: *generation,
            payload_generation: *payload_generation,
        };
        self.tx.send_replace(Arc::new(view));
    }
}

/// Starts one task per cache (inside a tokio runtime) and returns the view of their
/// data: the union of the most preferred group of caches that hold data (RFC 8210
/// §10). Each task reconnects with backoff, follows Serial Notify and the Refresh
/// Interval, and drops its data when Expire passes without a successful update. The
/// tasks end when every receiver is dropped.
pub fn spawn_caches(configs: Vec<CacheConfig>, limits: Limits) -> watch::Receiver<Arc<CacheView>> {
    let statuses: Vec<CacheStatus> = configs.iter().map(initial_status).collect();
    let (tx, rx) = watch::channel(Arc::new(CacheView {
        payload: PayloadSet::new(),
        caches: statuses.clone(),
        generation: 0,
        payload_generation: 0,
    }));
    let shared = Arc::new(Shared {
        tx,
        slots: Mutex::new(Published {
            slots: statuses
                .into_iter()
                .map(|status| Slot {
                    status,
                    data: Arc::new(PayloadSet::new()),
                })
                .collect(),
            generation: 0,
            payload_generation: 0,
            sources: Vec::new(),
        }),
        limits,
    });
    for (i, config) in configs.into_iter().enumerate() {
        tokio::spawn(run_cache(shared.clone(), i, config, limits));
    }
    rx
}

fn initial_status(c: &CacheConfig) -> CacheStatus {
    CacheStatus {
        address: c.address.clone(),
        port: c.port,
        preference: c.preference,
        state: Phase::Connecting.name().into(),
        version: None,
        session_id: None,
        serial: None,
        counts: (0, 0, 0),
        last_error: None,
        in_use: false,
        updated_at: None,
    }
}

/// One cache's task: what it holds besides the machine.
struct Cache {
    shared: Arc<Shared>,
    index: usize,
    config: CacheConfig,
    machine: Machine,
    version: u8,
    negotiated: Option<u8>,
    state: Option<State>,
    data: Arc<PayloadSet>,
}

impl Cache {
    /// Carries out the machine's actions.
    fn act(&mut self, actions: Vec<Action>) {
        for a in actions {
            match a {
                Action::DropData => {
                    self.data = Arc::new(PayloadSet::new());
                    self.state = None;
                }
                Action::Publish => self.publish(),
            }
        }
    }

    fn on(&mut self, event: Event) {
        let actions = self.machine.on(event);
        self.act(actions);
    }

    fn publish(&self) {
        let status = CacheStatus {
            state: self.machine.phase().name().into(),
            version: self.negotiated,
            session_id: self.state.map(|s| s.session()),
            serial: self.state.map(|s| s.serial().into()),
            counts: self.data.counts(),
            last_error: self.machine.last_error().map(str::to_string),
            in_use: self.machine.has_data(),
            updated_at: self.machine.updated_at(),
            ..initial_status(&self.config)
        };
        let data = if self.machine.has_data() {
            self.data.clone()
        } else {
            Arc::new(PayloadSet::new())
        };
        self.shared.publish(self.index, status, data);
    }

    /// Sleeps until `until`, dropping the data if it expires meanwhile.
    async fn sleep_until(&mut self, until: Instant) {
        loop {
            let expiry = self.machine.expires_at();
            match expiry {
                Some(e) if e < until => {
                    sleep_until(e).await;
                    self.on(Event::Tick { at: Instant::now() });
                }
                _ => {
                    sleep_until(until).await;
                    self.on(Event::Tick { at: Instant::now() });
                    return;
                }
            }
        }
    }

    /// Runs sessions over `sock` until one fails.
    async fn session<S: AsyncRead + AsyncWrite + Unpin>(
        &mut self,
        sock: S,
        limits: Limits,
    ) -> RtrError {
        let mut session = Session::new(sock, self.version, limits, IO_TIMEOUT);
        loop {
            let reply = match self.state {
                Some(state) => session.serial_query(state, &self.data).await,
                None => session.reset_query().await.map(Reply::Synced),
            };
            let synced = match reply {
                Ok(Reply::Synced(s)) => s,
                // RFC 8210 §8.3: a Reset Query next (more preferred caches run
                // their own tasks).
                Ok(Reply::CacheReset) => {
                    tracing::info!(
                        event = "rtr_cache_reset",
                        cache = %format_args!("{}:{}", self.config.address, self.config.port),
                        "RTR {}:{}: Cache Reset; sending a Reset Query",
                        self.config.address,
                        self.config.port
                    );
                    self.state = None;
                    continue;
                }
                Err(e) => return e,
            };
            self.negotiated = Some(session.version());
            self.version = session.version();
            self.state = Some(synced.state);
            if synced.changed {
                // Unchanged data keeps its Arc, so the published payload keeps its
                // generation and watchers do not rebuild from it.
                self.data = Arc::new(synced.payload);
            }
            let (v, k, a) = self.data.counts();
            let kind = if synced.reset { "full" } else { "incremental" };
            tracing::info!(
                event = "rtr_sync",
                cache = %format_args!("{}:{}", self.config.address, self.config.port),
                version = self.version,
                session_id = synced.state.session(),
                serial = u32::from(synced.state.serial()),
                kind,
                changed = synced.changed,
                vrps = v,
                router_keys = k,
                aspas = a,
                "RTR {}:{}: serial {} ({kind}): {v} VRPs, {k} router keys, {a} ASPAs",
                self.config.address,
                self.config.port,
                synced.state.serial(),
            );
            self.on(Event::Synced {
                timing: synced.timing,
                at: Instant::now(),
            });
            // Wait for a Serial Notify or the Refresh Interval (RFC 8210 §6).
            let refresh_at = Instant::now() + self.machine.refresh();
            loop {
                let until = match self.machine.expires_at() {
                    Some(e) if e < refresh_at => e,
                    _ => refresh_at,
                };
                // Cancel-safe: the wait ends when the last receiver of the view goes.
                let waited = tokio::select! {
                    r = session.wait_notify(until) => r,
                    () = self.shared.tx.closed() => return RtrError::Closed {
                        waiting_for: "a Serial Notify (the view has no receiver left)",
                    },
                };
                match waited {
                    Ok(true) => break,
                    Ok(false) => {
                        self.on(Event::Tick { at: Instant::now() });
                        if Instant::now() >= refresh_at {
                            break;
                        }
                    }
                    Err(e) => return e,
                }
            }
        }
    }
}

/// One cache's task.
async fn run_cache(shared: Arc<Shared>, index: usize, config: CacheConfig, limits: Limits) {
    let overrides = Overrides {
        refresh: config.refresh,
        retry: config.retry,
        expire: config.expire,
    };
    let mut cache = Cache {
        shared,
        index,
        version: config.version.unwrap_or(MAX_VERSION).min(MAX_VERSION),
        config,
        machine: Machine::new(overrides),
        negotiated: None,
        state: None,
        data: Arc::new(PayloadSet::new()),
    };
    let name = format!("{}:{}", cache.config.address, cache.config.port);
    loop {
        if cache.shared.tx.is_closed() {
            return;
        }
        let delay = cache.machine.reconnect_delay();
        cache.sleep_until(Instant::now() + delay).await;
        let sock = match connect(&cache.config.address, cache.config.port).await {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!("RTR {name}: {e}");
                cache.on(Event::Failed {
                    error: e.to_string(),
                });
                continue;
            }
        };
        cache.on(Event::Connected);
        let error = cache.session(sock, limits).await;
        if cache.shared.tx.is_closed() {
            return;
        }
        tracing::warn!("RTR {name}: {error}");
        if let Some(lower) = error.downgrade_to(cache.version) {
            if cache.negotiated.is_none() {
                // RFC 8210 §7: the cache speaks an older version; reconnect with it
                // at once.
                cache.version = lower;
                continue;
            }
        }
        match &error {
            RtrError::SessionChanged { .. } | RtrError::TooMuch(_) => cache.on(Event::Flush),
            // After a refused PDU the serial is not trusted: a Reset Query next; the
            // data is kept until it expires or the reset replaces it.
            RtrError::Protocol { .. } | RtrError::Report { .. } => cache.state = None,
            _ => {}
        }
        cache.on(Event::Failed {
            error: error.to_string(),
        });
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::rpki::payload::testing::{origin, set};

    /// The speaker rebuilds its view when `payload_generation` moves: a state change
    /// with the same data (a reconnect, an error, a Serial Query answered with no
    /// change) must not move it; new data must.
    #[test]
    fn the_payload_generation_moves_with_the_data_not_with_a_state() {
        let status = initial_status(&CacheConfig::new("127.0.0.1", 3323));
        let (tx, rx) = watch::channel(Arc::new(CacheView::default()));
        let shared = Shared {
            tx,
            slots: Mutex::new(Published {
                slots: vec![Slot {
                    status: status.clone(),
                    data: Arc::new(PayloadSet::new()),
                }],
                generation: 0,
                payload_generation: 0,
                sources: Vec::new(),
            }),
            limits: Limits::default(),
        };
        let current = CacheStatus {
            state: "current".into(),
            in_use: true,
            ..status
        };
        let data = Arc::new(set(&[origin(1)]));
        shared.publish(0, current.clone(), data.clone());
        let first = rx.borrow().clone();
        assert_eq!(first.payload_generation, 1);
        assert_eq!(first.payload, set(&[origin(1)]));

        let reconnecting = CacheStatus {
            state: "connecting".into(),
            ..current.clone()
        };
        shared.publish(0, reconnecting, data);
        let second = rx.borrow().clone();
        assert!(second.generation > first.generation);
        assert_eq!(second.payload_generation, 1);
        assert_eq!(second.payload, first.payload);

        shared.publish(0, current, Arc::new(set(&[origin(2)])));
        let third = rx.borrow().clone();
        assert_eq!(third.payload_generation, 2);
        assert_eq!(third.payload, set(&[origin(2)]));
    }
}
