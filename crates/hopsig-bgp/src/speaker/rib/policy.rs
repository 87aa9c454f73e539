//! Each neighbour's import policy on the three verdicts of a route (issue 24 §3):
//! BGPsec (RFC 8205 §5.1), route origin validation (RFC 6811 §2) and ASPA
//! verification (draft-ietf-sidrops-aspa-verification §6). Permissive by default:
//! only a BGPsec 'Not Valid' route is not used, as before; the flags make Invalid
//! ROV or ASPA verdicts, or anything but BGPsec 'Valid', ineligible too.

use super::adj_in::{Route, RouteState};
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
