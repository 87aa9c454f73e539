//! The watcher: a second session to the router under test that only receives, and
//! counts the prefixes the router announces and withdraws on it — its Adj-RIB-Out
//! toward this neighbour (RFC 4271 §3.2) — so that a feed knows when the router has
//! forwarded every route it was sent.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::session::{Session, SessionConfig, SessionError};
use crate::packet::Prefix;

/// What a watcher has seen.
#[derive(Debug, Default)]
pub struct Seen {
    /// Prefixes announced now (the router's Adj-RIB-Out toward the watcher).
    pub current: HashSet<Prefix>,
    /// Every prefix ever announced.
    pub ever: HashSet<Prefix>,
    /// UPDATEs received.
    pub updates: u64,
    /// Prefixes announced, counting repeats.
    pub announced: u64,
    /// Prefixes withdrawn, counting repeats.
    pub withdrawn: u64,
    /// Whether an UPDATE announced BGPsec_PATH.
    pub bgpsec_updates: u64,
    /// The prefixes the feed expects forwarded, not yet seen.
    pending: HashSet<Prefix>,
    /// When the last of them was first seen.
    pub all_at: Option<Instant>,
    /// When the last UPDATE arrived.
    pub last_at: Option<Instant>,
}

impl Seen {
    /// Expected prefixes not seen yet.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }
}

/// A receiving session and what it saw.
pub struct Watch {
    /// The session.
    pub session: Session,
    /// What it saw, updated as UPDATEs arrive.
    pub seen: Arc<Mutex<Seen>>,
}

impl Watch {
    /// Opens the session and starts counting.
    ///
    /// # Errors
    /// As [`Session::open`].
    pub async fn open(config: SessionConfig) -> Result<Watch, SessionError> {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let session = Session::open(config, tx).await?;
        let seen = Arc::new(Mutex::new(Seen::default()));
        let s = Arc::clone(&seen);
        tokio::spawn(async move {
            while let Some((at, u)) = rx.recv().await {
                let Ok(mut s) = s.lock() else { return };
                s.updates += 1;
                s.last_at = Some(at);
                s.bgpsec_updates += u64::from(u.bgpsec_path().is_some());
                for p in u.withdrawn_all() {
                    s.withdrawn += 1;
                    s.current.remove(&p);
                }
                for p in u.announced() {
                    s.announced += 1;
                    s.current.insert(p);
                    s.ever.insert(p);
                    if s.pending.remove(&p) && s.pending.is_empty() {
                        s.all_at = Some(at);
                    }
                }
            }
        });
        Ok(Watch { session, seen })
    }

    /// Sets the prefixes expected forwarded (those seen already count).
    pub fn expect(&self, prefixes: &HashSet<Prefix>, now: Instant) {
        if let Ok(mut s) = self.seen.lock() {
            s.pending = prefixes.difference(&s.ever).copied().collect();
            s.all_at = s.pending.is_empty().then_some(now);
        }
    }
}
