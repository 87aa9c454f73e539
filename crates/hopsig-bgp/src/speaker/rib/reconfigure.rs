//! A configuration reload as the RIB applies it (issue 26 §4, docs/spec/speaker.md
//! "Reload"; the plan is [`crate::speaker::reload`]'s):
//!
//! * a neighbour added gets the next session number; one removed keeps its number
//!   as a tombstone ([`Rib::removed`]), so that no other session's number
//!   (by which every table and job names it) shifts;
//! * a session about to be ended by the speaker (removed, or reset) is not a
//!   graceful restart (RFC 4724 §4.2 keeps routes only when the session ends
//!   without a NOTIFICATION): its stale routes go now, the rest when it is down;
//! * a policy change is applied to the routes held, with no reset: the import
//!   filter, LOCAL_PREF, the role and the reject flags to every route of the session
//!   (ROV and ASPA verdicts again for a new role), then the decision for every
//!   prefix — what the export filter now denies is withdrawn, what it permits
//!   announced; a new MED is announced again with every route sent; a new prefix
//!   limit is checked at once (RFC 4486). Communities added on import are part of
//!   the stored attributes, so a change of them asks the neighbour for its routes
//!   again (ROUTE-REFRESH, RFC 2918) — or, without Route Refresh, resets the
//!   session.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::adj_in::origin_and_path;
use super::{Policy, Rib, Rules, Session};
use crate::packet::route_refresh::{RouteRefresh, Subtype};
use crate::packet::{Afi, Prefix};
use crate::Signer;

/// What a policy change needs beyond the RIB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyApplied {
    /// Done in the RIB.
    Done,
    /// Done, and the neighbour was asked for its routes again (RFC 2918) so that
    /// they get the new communities.
    Refreshed,
    /// The session must be reset: the new communities cannot be applied otherwise
    /// (the neighbour did not announce Route Refresh).
    NeedsReset,
}

impl Rib {
    /// Adds a session with `policy` and `rules`; its number.
    pub fn add_session(&mut self, session: Session, policy: Policy, rules: Rules) -> usize {
        let id = self.sessions.len();
        self.sessions.push(session);
        self.policies.resize(id, Policy::default());
        self.policies.push(policy);
        self.rules.resize(id, Rules::DEFAULT);
        self.rules.push(rules);
        id
    }

    /// Session `id` is being ended by the speaker (removed, or reset): not a
    /// graceful restart, its stale routes deleted now.
    pub fn ending(&mut self, id: usize) {
        if let Some(up) = self.sessions.get_mut(id).and_then(|s| s.up.as_mut()) {
            up.features.graceful_restart = None;
        }
        if id < self.stale.len() {
            let stale = self.stale_mut(id);
            stale.restarting = false;
            stale.until = None;
            self.purge_stale(id, None);
        }
    }

    /// Session `id`'s neighbour was removed: a tombstone from now on; its routes go
    /// when the session reports it is down.
    pub fn remove_session(&mut self, id: usize) {
        self.ending(id);
        self.removed.insert(id);
    }

    /// Session `id` is reset with a new remote AS and signer (its new neighbour
    /// configuration).
    pub fn reset_session(&mut self, id: usize, remote_as: u32, signer: Arc<Signer<'static>>) {
        self.ending(id);
        if let Some(s) = self.sessions.get_mut(id) {
            s.remote_as = remote_as;
            s.signer = signer;
        }
    }

    /// Applies session `id`'s new `policy` and `rules` to the routes held (see the
    /// module's text).
    pub fn set_policy(&mut self, id: usize, policy: Policy, rules: Rules) -> PolicyApplied {
        if id >= self.sessions.len() {
            return PolicyApplied::Done;
        }
        if self.policies.len() <= id {
            self.policies.resize(id + 1, Policy::default());
        }
        if self.rules.len() <= id {
            self.rules.resize(id + 1, Rules::DEFAULT);
        }
        let old_policy = std::mem::replace(&mut self.policies[id], policy);
        let old = std::mem::replace(&mut self.rules[id], rules.clone());
        let view = Arc::clone(&self.view);
        let session = &mut self.sessions[id];
        for (p, r) in &mut session.adj_in {
            r.filtered = !rules.import.permits(p);
            r.local_pref = rules.local_pref;
            if old_policy.role != policy.role {
                (r.rov, r.aspa) = origin_and_path(&view, p, &r.as_path, policy.role);
            }
        }
        let accepted = session.adj_in.values().filter(|r| !r.filtered).count();
        self.count_mut(id).accepted = accepted;
        let all: BTreeSet<Prefix> = self.known_prefixes();
        for p in all {
            self.decide(p);
        }
        if old.med != rules.med {
            self.announce_again(id, None);
        }
        // The NOTIFICATION names a family: that of a route held, IPv4 if none.
        let afi = self.sessions[id]
            .adj_in
            .keys()
            .next()
            .map_or(Afi::Ipv4, Prefix::afi);
        self.check_limit(id, afi);
        if old.add_communities == rules.add_communities {
            return PolicyApplied::Done;
        }
        match self.sessions[id].up.as_mut() {
            None => PolicyApplied::Done,
            Some(up) if up.features.route_refresh => {
                for (afi, code) in [(Afi::Ipv4, 1), (Afi::Ipv6, 2)] {
                    if up.afis.carries(afi) {
                        up.tx
                            .after(RouteRefresh::new(code, 1, Subtype::Request).encoding());
                    }
                }
                PolicyApplied::Refreshed
            }
            Some(_) => PolicyApplied::NeedsReset,
        }
    }

    /// The prefixes this router originates are now `local`: those gone and those
    /// new decided again.
    pub fn set_local(&mut self, local: BTreeSet<Prefix>) {
        let old = std::mem::replace(&mut self.local, local);
        let changed: Vec<Prefix> = old.symmetric_difference(&self.local).copied().collect();
        for p in changed {
            self.decide(p);
        }
    }
}
