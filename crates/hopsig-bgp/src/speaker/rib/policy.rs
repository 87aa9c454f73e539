//! Each neighbour's import policy on the three verdicts of a route (issue 24 §3):
//! BGPsec (RFC 8205 §5.1), route origin validation (RFC 6811 §2) and ASPA
//! verification (draft-ietf-sidrops-aspa-verification §6). Permissive by default:
//! only a BGPsec 'Not Valid' route is not used, as before; the flags make Invalid
//! ROV or ASPA verdicts, or anything but BGPsec 'Valid', ineligible too.
//! [`Rules`] is the rest of a neighbour's policy (issue 25 §4): prefix filters,
//! LOCAL_PREF, MED, communities, the prefix limit.

use std::time::Duration;

use super::adj_in::{Route, RouteState};
use super::filter::PrefixList;
use crate::rpki::aspa::{AspaState, Relation};
use crate::rpki::rov::RovState;
use crate::speaker::config::{Mode, Neighbor};

/// A neighbour's role and import policy ([`Neighbor`]'s fields of the same names).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Policy {
    /// The neighbour's role, for ASPA verification; `None`: ASPA says Unknown.
    pub role: Option<Relation>,
    /// ROV Invalid routes are not used.
    pub reject_rov_invalid: bool,
    /// ASPA Invalid routes are not used.
    pub reject_aspa_invalid: bool,
    /// Only BGPsec 'Valid' routes are used.
    pub require_bgpsec_valid: bool,
}

impl Policy {
    /// The policy configured for `n`.
    pub fn of(n: &Neighbor) -> Policy {
        Policy {
            role: n.role,
            reject_rov_invalid: n.reject_rov_invalid,
            reject_aspa_invalid: n.reject_aspa_invalid,
            require_bgpsec_valid: n.require_bgpsec_valid,
        }
    }

    /// Whether `r`, received under this policy, may be installed in `mode`: BGPsec
    /// 'Valid' or unsigned, and in lazy mode also pending (never 'Not Valid');
    /// `require_bgpsec_valid` takes 'Valid' only; the reject flags leave out the
    /// Invalid verdicts they name. A route being revalidated counts with its last
    /// verdict until the answer.
    pub fn eligible(&self, mode: Mode, r: &Route) -> bool {
        let bgpsec = match r.state {
            RouteState::Valid(_) => true,
            RouteState::Unsigned => !self.require_bgpsec_valid,
            RouteState::Pending => mode == Mode::Lazy && !self.require_bgpsec_valid,
            RouteState::NotValid(_) | RouteState::Failed(_) => false,
        };
        bgpsec
            && !(self.reject_rov_invalid && r.rov.state == RovState::Invalid)
            && !(self.reject_aspa_invalid && r.aspa.state == AspaState::Invalid)
    }
}

/// A neighbour's route policy beyond the verdicts (issue 25 §4, docs/spec/speaker.md,
/// "Policy"): its prefix filters, the LOCAL_PREF its routes get, the MED sent to it,
/// the communities its routes get, and its prefix limit ([`Neighbor`]'s fields of the
/// same names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    /// Routes of prefixes it denies are kept in Adj-RIB-In, filtered, not used.
    pub import: PrefixList,
    /// Routes of prefixes it denies are not sent to the neighbour.
    pub export: PrefixList,
    /// The degree of preference of the neighbour's routes (RFC 4271 §9.1.1).
    pub local_pref: u32,
    /// MULTI_EXIT_DISC sent to the neighbour.
    pub med: Option<u32>,
    /// Communities added to the neighbour's routes on import (RFC 1997).
    pub add_communities: Vec<u32>,
    /// The prefix limit (RFC 4486).
    pub max_prefixes: Option<MaxPrefixes>,
}

/// A prefix limit: more than `limit` accepted prefixes end the session with a
/// NOTIFICATION Cease, Maximum Number of Prefixes Reached (RFC 4486 §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaxPrefixes {
    /// The upper bound.
    pub limit: u32,
    /// Percentage of `limit` at which a warning is logged.
    pub warning: Option<u8>,
    /// How long after the Cease the session waits before it starts again; `None`:
    /// until the speaker restarts.
    pub restart: Option<Duration>,
}

impl Rules {
    /// No filter, LOCAL_PREF 100, no MED, no community, no limit.
    pub const DEFAULT: Rules = Rules {
        import: PrefixList::EMPTY,
        export: PrefixList::EMPTY,
        local_pref: 100,
        med: None,
        add_communities: Vec::new(),
        max_prefixes: None,
    };

    /// The rules configured for `n`.
    pub fn of(n: &Neighbor) -> Rules {
        Rules {
            import: n.import.clone(),
            export: n.export.clone(),
            local_pref: n.local_pref,
            med: n.med,
            add_communities: n.add_communities.clone(),
            max_prefixes: n.max_prefixes.map(|limit| MaxPrefixes {
                limit,
                warning: n.max_prefixes_warning,
                restart: n.max_prefixes_restart.map(Duration::from_secs),
            }),
        }
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::DEFAULT
    }
}

/// Session `i`'s rules in `rules` (by session number), [`Rules::DEFAULT`] if it has
/// none.
pub fn rules_of(rules: &[Rules], i: usize) -> &Rules {
    static DEFAULT: Rules = Rules::DEFAULT;
    rules.get(i).unwrap_or(&DEFAULT)
}
