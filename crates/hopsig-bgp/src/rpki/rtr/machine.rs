//! The state of one cache, as a pure state machine (ARCHITECTURE.md: long-running
//! protocol roles are state machines plus a tokio shell): [`Event`]s in, [`Action`]s
//! out, time passed in as an [`Instant`], no I/O. The shell ([`super::client`]) runs
//! the session and sleeps as [`Machine::reconnect_delay`], [`Machine::refresh`] and
//! [`Machine::expires_at`] say.
//!
//! Phases: `connecting` (no session yet), `syncing` (connected, querying), `current`
//! (data from a completed query), `stale` (session lost, data kept until Expire,
//! RFC 8210 §6), `expired` (Expire passed without a successful update: data dropped),
//! `error` (session lost, no data).

use std::time::Duration;

use rpki::rtr::Timing;
use tokio::time::Instant;

/// RFC 8210 §6 defaults for a cache that sends no timers (version 0).
pub const DEFAULT_REFRESH: Duration = Duration::from_secs(3600);
/// See [`DEFAULT_REFRESH`].
pub const DEFAULT_RETRY: Duration = Duration::from_secs(600);
/// See [`DEFAULT_REFRESH`].
pub const DEFAULT_EXPIRE: Duration = Duration::from_secs(7200);

/// The first reconnect delay after a failure; it doubles per failure up to Retry.
pub const FIRST_BACKOFF: Duration = Duration::from_secs(1);

/// Where a cache stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// No session yet.
    Connecting,
    /// Connected, a query under way.
    Syncing,
    /// Data from a completed query.
    Current,
    /// The session was lost; the data is kept until Expire.
    Stale,
    /// Expire passed without a successful update; the data was dropped.
    Expired,
    /// The session was lost and no data is held.
    Error,
}

impl Phase {
    /// Its name in [`super::CacheStatus::state`].
    pub fn name(self) -> &'static str {
        match self {
            Phase::Connecting => "connecting",
            Phase::Syncing => "syncing",
            Phase::Current => "current",
            Phase::Stale => "stale",
            Phase::Expired => "expired",
            Phase::Error => "error",
        }
    }
}

/// What happens to a cache.
#[derive(Debug, Clone)]
pub enum Event {
    /// A connection was made.
    Connected,
    /// A query completed (End of Data) with these timers (v1+).
    Synced {
        /// End of Data's timers.
        timing: Option<Timing>,
        /// When.
        at: Instant,
    },
    /// The connection failed or the session ended.
    Failed {
        /// Why, for [`super::CacheStatus::last_error`].
        error: String,
    },
    /// The data must go now (a Session ID change, a refused data set).
    Flush,
    /// Time passed (the shell's sleeps end here).
    Tick {
        /// Now.
        at: Instant,
    },
}

/// What the shell must do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Drop this cache's data (and forget its serial: a Reset Query next).
    DropData,
    /// The cache's status or data changed: publish a new view.
    Publish,
}

/// Overrides from [`super::CacheConfig`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Overrides {
    /// Refresh Interval.
    pub refresh: Option<Duration>,
    /// Retry Interval.
    pub retry: Option<Duration>,
    /// Expire Interval.
    pub expire: Option<Duration>,
}

/// One cache's state machine.
#[derive(Debug, Clone)]
pub struct Machine {
    phase: Phase,
    overrides: Overrides,
    refresh: Duration,
    retry: Duration,
    expire: Duration,
    has_data: bool,
    expires_at: Option<Instant>,
    failures: u32,
    last_error: Option<String>,
}

impl Machine {
    /// A cache not yet connected.
    pub fn new(overrides: Overrides) -> Machine {
        Machine {
            phase: Phase::Connecting,
            overrides,
            refresh: overrides.refresh.unwrap_or(DEFAULT_REFRESH),
            retry: overrides.retry.unwrap_or(DEFAULT_RETRY),
            expire: overrides.expire.unwrap_or(DEFAULT_EXPIRE),
            has_data: false,
            expires_at: None,
            failures: 0,
            last_error: None,
        }
    }

    /// Feeds one event; what the shell must do.
    pub fn on(&mut self, event: Event) -> Vec<Action> {
        match event {
            Event::Connected => {
                self.phase = Phase::Syncing;
                vec![Action::Publish]
            }
            Event::Synced { timing, at } => {
                // RFC 8210 §6: the cache's timers, unless the operator overrides them.
                let secs = |s: u32| Duration::from_secs(u64::from(s));
                self.refresh = self
                    .overrides
                    .refresh
                    .or(timing.map(|t| secs(t.refresh)))
                    .unwrap_or(DEFAULT_REFRESH);
                self.retry = self
                    .overrides
                    .retry
                    .or(timing.map(|t| secs(t.retry)))
                    .unwrap_or(DEFAULT_RETRY);
                self.expire = self
                    .overrides
                    .expire
                    .or(timing.map(|t| secs(t.expire)))
                    .unwrap_or(DEFAULT_EXPIRE);
                self.phase = Phase::Current;
                self.has_data = true;
                self.expires_at = Some(at + self.expire);
                self.failures = 0;
                self.last_error = None;
                vec![Action::Publish]
            }
            Event::Failed { error } => {
                self.failures = self.failures.saturating_add(1);
                self.last_error = Some(error);
                self.phase = if self.has_data {
                    Phase::Stale
                } else if self.phase == Phase::Expired {
                    Phase::Expired
                } else {
                    Phase::Error
                };
                vec![Action::Publish]
            }
            Event::Flush => {
                let had = self.has_data;
                self.has_data = false;
                self.expires_at = None;
                if had {
                    vec![Action::DropData, Action::Publish]
                } else {
                    vec![Action::DropData]
                }
            }
            Event::Tick { at } => match self.expires_at {
                Some(t) if self.has_data && at >= t => {
                    self.has_data = false;
                    self.expires_at = None;
                    self.phase = Phase::Expired;
                    vec![Action::DropData, Action::Publish]
                }
                _ => Vec::new(),
            },
        }
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Whether the cache's data is held (not expired, not flushed).
    pub fn has_data(&self) -> bool {
        self.has_data
    }

    /// How long to wait before connecting: nothing at first, then 1 s doubling per
    /// failure, up to the Retry Interval (RFC 8210 §6).
    pub fn reconnect_delay(&self) -> Duration {
        if self.failures == 0 {
            return Duration::ZERO;
        }
        let exp = FIRST_BACKOFF.saturating_mul(1 << (self.failures - 1).min(20));
        exp.min(self.retry.max(FIRST_BACKOFF))
    }

    /// The Refresh Interval in force: the next Serial Query is due this long after
    /// the last one, unless a Serial Notify comes first.
    pub fn refresh(&self) -> Duration {
        self.refresh
    }

    /// When the data held expires, if any is held.
    pub fn expires_at(&self) -> Option<Instant> {
        self.expires_at.filter(|_| self.has_data)
    }

    /// When the data held was last updated (the End of Data of the last successful
    /// sync, RFC 8210 §5.8), if any is held: its Expire Interval before it expires.
    pub fn updated_at(&self) -> Option<Instant> {
        self.expires_at().and_then(|t| t.checked_sub(self.expire))
    }

    /// The last failure's description, cleared by a successful update.
    pub fn last_error(&self) -> Option<&str> {
        self.last_error.as_deref()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn timing(refresh: u32, retry: u32, expire: u32) -> Option<Timing> {
        Some(Timing {
            refresh,
            retry,
            expire,
        })
    }

    #[test]
    fn synced_data_is_current_then_stale_then_expired_and_dropped() {
        let t0 = Instant::now();
        let mut m = Machine::new(Overrides::default());
        assert_eq!(m.phase(), Phase::Connecting);
        assert_eq!(m.reconnect_delay(), Duration::ZERO);
        m.on(Event::Connected);
        assert_eq!(m.phase(), Phase::Syncing);
        let a = m.on(Event::Synced {
            timing: timing(10, 5, 100),
            at: t0,
        });
        assert_eq!(a, vec![Action::Publish]);
        assert_eq!(m.phase(), Phase::Current);
        assert_eq!(m.refresh(), Duration::from_secs(10));
        assert_eq!(m.expires_at(), Some(t0 + Duration::from_secs(100)));
        m.on(Event::Failed {
            error: "closed".into(),
        });
        assert_eq!(m.phase(), Phase::Stale);
        assert!(m.has_data());
        assert!(m
            .on(Event::Tick {
                at: t0 + Duration::from_secs(99)
            })
            .is_empty());
        let a = m.on(Event::Tick {
            at: t0 + Duration::from_secs(100),
        });
        assert_eq!(a, vec![Action::DropData, Action::Publish]);
        assert_eq!(m.phase(), Phase::Expired);
        assert!(!m.has_data());
        assert_eq!(m.expires_at(), None);
        m.on(Event::Failed {
            error: "refused".into(),
        });
        assert_eq!(m.phase(), Phase::Expired);
        assert_eq!(m.last_error(), Some("refused"));
    }

    #[test]
    fn overrides_win_over_end_of_data_and_v0_gets_the_defaults() {
        let t0 = Instant::now();
        let mut m = Machine::new(Overrides {
            refresh: Some(Duration::from_secs(2)),
            retry: None,
            expire: None,
        });
        m.on(Event::Synced {
            timing: timing(10, 5, 100),
            at: t0,
        });
        assert_eq!(m.refresh(), Duration::from_secs(2));
        assert_eq!(m.expires_at(), Some(t0 + Duration::from_secs(100)));
        let mut v0 = Machine::new(Overrides::default());
        v0.on(Event::Synced {
            timing: None,
            at: t0,
        });
        assert_eq!(v0.refresh(), DEFAULT_REFRESH);
        assert_eq!(v0.expires_at(), Some(t0 + DEFAULT_EXPIRE));
    }

    #[test]
    fn backoff_doubles_up_to_retry_and_resets_on_success() {
        let mut m = Machine::new(Overrides {
            retry: Some(Duration::from_secs(5)),
            ..Overrides::default()
        });
        let mut delays = Vec::new();
        for _ in 0..6 {
            m.on(Event::Failed {
                error: "refused".into(),
            });
            delays.push(m.reconnect_delay().as_secs());
        }
        assert_eq!(delays, vec![1, 2, 4, 5, 5, 5]);
        assert_eq!(m.phase(), Phase::Error);
        m.on(Event::Synced {
            timing: None,
            at: Instant::now(),
        });
        assert_eq!(m.reconnect_delay(), Duration::ZERO);
        for _ in 0..100 {
            m.on(Event::Failed { error: "x".into() });
        }
        assert_eq!(m.reconnect_delay(), Duration::from_secs(5));
    }

    #[test]
    fn a_flush_drops_the_data_at_once() {
        let mut m = Machine::new(Overrides::default());
        m.on(Event::Synced {
            timing: None,
            at: Instant::now(),
        });
        assert_eq!(m.on(Event::Flush), vec![Action::DropData, Action::Publish]);
        assert!(!m.has_data());
        m.on(Event::Failed {
            error: "session changed".into(),
        });
        assert_eq!(m.phase(), Phase::Error);
    }
}
