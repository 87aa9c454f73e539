//! Graceful restart, helper side (RFC 4724 §4.2), and End-of-RIB (§2).
//!
//! * When a session ends whose neighbour announced Graceful Restart with IPv4 unicast
//!   (and this speaker announced it, `graceful_restart` configured), its IPv4 routes
//!   stay in Adj-RIB-In, installed and advertised, marked stale, for its Restart
//!   Time; other families' routes go at once.
//! * Connection attempts that fail meanwhile (before Established) leave them.
//! * When the session is Established again without the capability, the stale routes
//!   go at once (§4.2); with it, each UPDATE of a stale prefix replaces (or
//!   withdraws) it and the neighbour's IPv4 End-of-RIB — an UPDATE with no withdrawn
//!   route, no attribute and no NLRI (§2) — deletes the rest. If the End-of-RIB does
//!   not come, they go [`STALE_PATH_TIME`] after the session came back (§4.2: "MAY
//!   … a (configurable) timer"). If the session is not back within the Restart Time,
//!   they go then.
//! * To a neighbour with which both sides announced the capability this speaker sends
//!   the IPv4 End-of-RIB once its initial table is out: every UPDATE of the table
//!   built (signed, when the pool signs) and queued (§2, §4.1).

use std::time::{Duration, Instant};

use super::Rib;
use crate::packet::{Afi, Message, Prefix, Update};

/// How long a re-established neighbour's stale routes wait for its End-of-RIB (FRR's
/// default stale-path time).
pub const STALE_PATH_TIME: Duration = Duration::from_secs(360);

/// Whether `u` is the IPv4 unicast End-of-RIB marker (RFC 4724 §2).
pub fn is_end_of_rib(u: &Update<'_>) -> bool {
    u.withdrawn.is_empty() && u.attributes.is_empty() && u.nlri.is_empty()
}

impl Rib {
    /// Session `id` left Established (`why`): if its neighbour is restarting
    /// gracefully, its IPv4 routes stay, stale, for its Restart Time, and true;
    /// else false (the routes go as for any session end).
    pub(super) fn graceful_down(&mut self, id: usize, why: &str) -> bool {
        let restarting = self.stale.get(id).is_some_and(|s| s.restarting);
        let Some(session) = self.sessions.get_mut(id) else {
            return false;
        };
        // A connection attempt that failed before Established while the neighbour
        // restarts: its stale routes wait on (the Restart Time bounds them).
        if restarting && session.up.is_none() {
            session.last_error = Some(why.to_string());
            return true;
        }
        let Some(restart) = session
            .up
            .as_ref()
            .and_then(|u| u.features.graceful_restart)
        else {
            return false;
        };
        session.up = None;
        session.adj_out.clear();
        session.last_error = Some(why.to_string());
        let gone: Vec<Prefix> = session
            .adj_in
            .keys()
            .filter(|p| p.afi() != Afi::Ipv4)
            .copied()
            .collect();
        for p in &gone {
            session.adj_in.remove(p);
        }
        let kept: Vec<Prefix> = session.adj_in.keys().copied().collect();
        let address = session.address.clone();
        let stale = self.stale_mut(id);
        stale.prefixes.extend(kept.iter().copied());
        stale.until = Some(Instant::now() + restart);
        stale.restarting = true;
        stale.end_of_rib_owed = false;
        tracing::info!(
            "hopsig speaker: {address} restarting (RFC 4724): {} routes kept as stale for {} s",
            kept.len(),
            restart.as_secs()
        );
        for p in gone {
            self.decide(p);
        }
        true
    }

    /// Session `id` reached Established and was sent its table: its stale routes of
    /// a restart wait for its End-of-RIB (or go, without the capability now, §4.2),
    /// and an End-of-RIB is owed to it if both announced the capability.
    pub(super) fn restarted(&mut self, id: usize) {
        let Some(features) = self
            .sessions
            .get(id)
            .and_then(|s| s.up.as_ref())
            .map(|u| u.features)
        else {
            return;
        };
        let address = self.sessions[id].address.clone();
        let stale = self.stale_mut(id);
        stale.end_of_rib_owed = features.end_of_rib;
        if stale.restarting {
            if features.graceful_restart.is_some() {
                stale.until = Some(Instant::now() + STALE_PATH_TIME);
            } else {
                stale.restarting = false;
                let purged = self.purge_stale(id, None);
                tracing::info!(
                    "hopsig speaker: {address} came back without graceful restart: {purged} stale routes deleted (RFC 4724 §4.2)"
                );
            }
        }
        self.end_of_rib_if_sent(id);
    }

    /// Sends session `id` the End-of-RIB it is owed once no UPDATE of its table is
    /// still being signed.
    pub(super) fn end_of_rib_if_sent(&mut self, id: usize) {
        let owed = self.stale.get(id).is_some_and(|s| s.end_of_rib_owed);
        let Some(session) = self.sessions.get_mut(id) else {
            return;
        };
        if !owed || session.adj_out.values().any(|a| a.signing.is_some()) {
            return;
        }
        let Some(up) = session.up.as_mut() else {
            return;
        };
        if let Ok(bytes) = Message::Update(Update::default()).encoding(up.width) {
            up.tx.after(bytes);
        }
        self.stale[id].end_of_rib_owed = false;
    }

    /// `update` from session `id`: if it is the IPv4 End-of-RIB of a restarted
    /// neighbour, its routes still stale go (RFC 4724 §4.2).
    pub(super) fn end_of_rib_received(&mut self, id: usize, update: &Update<'_>) {
        if !is_end_of_rib(update) || !self.stale.get(id).is_some_and(|s| s.restarting) {
            return;
        }
        self.stale[id].restarting = false;
        let purged = self.purge_stale(id, Some(Afi::Ipv4));
        tracing::info!(
            "hopsig speaker: End-of-RIB from {}: {purged} stale routes deleted (RFC 4724 §4.2)",
            self.sessions[id].address
        );
    }

    /// Deletes the stale routes whose time is up at `now`: a neighbour not back within
    /// its Restart Time, or back without an End-of-RIB within [`STALE_PATH_TIME`].
    pub fn expire_stale(&mut self, now: Instant) {
        let due: Vec<usize> = (0..self.stale.len())
            .filter(|&id| self.stale[id].until.is_some_and(|t| t <= now))
            .collect();
        for id in due {
            self.stale[id].restarting = false;
            let purged = self.purge_stale(id, None);
            tracing::info!(
                "hopsig speaker: {}: restart timer expired, {purged} stale routes deleted (RFC 4724 §4.2)",
                self.sessions[id].address
            );
        }
    }
}
