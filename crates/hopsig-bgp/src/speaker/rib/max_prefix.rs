//! Each neighbour's accepted prefixes and its prefix limit (RFC 4486;
//! docs/spec/speaker.md, "Policy"). The RIB counts the routes of each Adj-RIB-In
//! that passed the import filter, whatever their validation state, as the UPDATEs
//! that change them come: each UPDATE's prefixes are counted before and after it.
//! When the count exceeds the neighbour's `max_prefixes`, the RIB asks the session to
//! end through its output queue ([`super::super::outbox::Outbox::cease`]): a
//! NOTIFICATION Cease, Maximum Number of Prefixes Reached, with the AFI, SAFI and
//! upper bound as data (RFC 4486 §4), then the connection closes and the session
//! stays down for `max_prefixes_restart` seconds, or until the speaker restarts.
//! UPDATEs that the session read before it closed are dropped.

use std::collections::BTreeSet;
use std::time::Instant;

use super::Rib;
use crate::packet::iana::CeaseSubcode;
use crate::packet::{Afi, ErrorCode, Message, Notification, Prefix, Safi, Update};

/// A session's accepted prefixes and where it stands toward its limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PrefixCount {
    /// Routes in the session's Adj-RIB-In that passed the import filter.
    pub accepted: usize,
    /// The warning threshold was logged (logged again only after the count fell
    /// below it).
    pub warned: bool,
    /// The session was asked to end for its limit; its UPDATEs are dropped until
    /// it is down.
    pub ceased: bool,
}

/// The data of a Maximum Number of Prefixes Reached NOTIFICATION (RFC 4486 §4):
/// AFI (2 octets), SAFI (1 octet, unicast), the upper bound (4 octets).
pub fn cease_data(afi: Afi, limit: u32) -> Vec<u8> {
    let mut data = u16::from(afi).to_be_bytes().to_vec();
    data.push(u8::from(Safi::Unicast));
    data.extend_from_slice(&limit.to_be_bytes());
    data
}

impl Rib {
    /// Session `id`'s accepted prefixes.
    pub fn accepted(&self, id: usize) -> usize {
        self.prefix_counts.get(id).map_or(0, |c| c.accepted)
    }

    /// How many of `prefixes` (distinct) have a route in session `id`'s Adj-RIB-In
    /// that passed the import filter.
    pub(super) fn accepted_among<'a>(
        &self,
        id: usize,
        prefixes: impl Iterator<Item = &'a Prefix>,
    ) -> usize {
        let Some(s) = self.sessions.get(id) else {
            return 0;
        };
        prefixes
            .filter(|p| s.adj_in.get(p).is_some_and(|r| !r.filtered))
            .count()
    }

    pub(super) fn count_mut(&mut self, id: usize) -> &mut PrefixCount {
        if self.prefix_counts.len() <= id {
            self.prefix_counts.resize(id + 1, PrefixCount::default());
        }
        &mut self.prefix_counts[id]
    }

    /// `gone` accepted prefixes of session `id` are being withdrawn.
    pub(super) fn uncount(&mut self, id: usize, gone: usize) {
        let c = self.count_mut(id);
        c.accepted = c.accepted.saturating_sub(gone);
    }

    /// Session `id` went down: nothing accepted, no limit reached.
    pub(super) fn reset_count(&mut self, id: usize) {
        *self.count_mut(id) = PrefixCount::default();
    }

    /// An UPDATE of session `id` ([`Rib::update`]), its prefixes counted before and
    /// after, then the limit checked. Dropped if the session was asked to end.
    pub(super) fn update_counted(&mut self, id: usize, update: Update<'static>, at: Instant) {
        if self.prefix_counts.get(id).is_some_and(|c| c.ceased) {
            return;
        }
        let announced: BTreeSet<Prefix> = update.announced().collect();
        let afi = announced.first().map_or(Afi::Ipv4, Prefix::afi);
        let mut prefixes = announced;
        prefixes.extend(update.withdrawn_all());
        let before = self.accepted_among(id, prefixes.iter());
        self.update(id, update, at);
        let after = self.accepted_among(id, prefixes.iter());
        let c = self.count_mut(id);
        c.accepted = (c.accepted + after).saturating_sub(before);
        self.check_limit(id, afi);
    }

    /// Logs the warning threshold when crossed, and ends the session (RFC 4486 §4)
    /// when its accepted prefixes exceed its limit; `afi`: the family of the UPDATE
    /// that crossed it, named in the NOTIFICATION.
    pub(super) fn check_limit(&mut self, id: usize, afi: Afi) {
        let Some(max) = self.rules(id).max_prefixes else {
            return;
        };
        let address = |rib: &Rib| {
            rib.sessions
                .get(id)
                .map_or("", |s| s.address.as_str())
                .to_string()
        };
        let c = *self.count_mut(id);
        if let Some(pct) = max.warning {
            let threshold = (u64::from(max.limit) * u64::from(pct)).div_ceil(100);
            let over = c.accepted as u64 >= threshold;
            if over && !c.warned {
                tracing::warn!(
                    "hopsig speaker: neighbor {}: {} prefixes accepted, {pct}% of max_prefixes {}",
                    address(self),
                    c.accepted,
                    max.limit
                );
            }
            self.count_mut(id).warned = over;
        }
        if c.ceased || c.accepted <= max.limit as usize {
            return;
        }
        let after = match max.restart {
            Some(d) => format!("restarting in {} s", d.as_secs()),
            None => "not restarting before the speaker does".into(),
        };
        let reason = format!(
            "Maximum Number of Prefixes Reached (RFC 4486): {} accepted, max_prefixes {}; {after}",
            c.accepted, max.limit
        );
        let address = address(self);
        let note = Notification::new(
            ErrorCode::Cease,
            u8::from(CeaseSubcode::MaximumPrefixes),
            cease_data(afi, max.limit),
        );
        let Some(up) = self.sessions.get_mut(id).and_then(|s| s.up.as_mut()) else {
            return;
        };
        match Message::Notification(note.clone()).encoding(up.width) {
            Ok(bytes) => {
                tracing::warn!("hopsig speaker: neighbor {address}: {reason}");
                crate::speaker::logs::notification_sent(&address, &note, &reason);
                up.tx.cease(bytes, reason, max.restart);
                self.count_mut(id).ceased = true;
            }
            Err(e) => tracing::warn!("hopsig speaker: neighbor {address}: NOTIFICATION: {e}"),
        }
    }
}
