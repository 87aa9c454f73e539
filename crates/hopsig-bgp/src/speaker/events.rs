//! The messages between the speaker's tasks: each session task sends [`Event`]s to the
//! RIB task, which owns every route and sends encoded BGP messages back to the
//! sessions (the holo-bgp layout: one task per session, the RIB owned by one task).

use std::sync::Arc;
use std::time::Instant;

use crate::packet::{AsWidth, EncodeError, NextHop, Prefix, Update};
use crate::rpki::rtr::CacheStatus;
use crate::rpki::view::View;
use crate::{SignError, Validation};

use super::family::Afis;
use super::outbox::Outbox;

pub use super::fsm::State;

/// What a session negotiated when it reached Established.
#[derive(Debug)]
pub struct Up {
    /// The AS in the neighbour's OPEN.
    pub remote_as: u32,
    /// AS numbers on the wire: four octets when both sides announced RFC 6793.
    pub width: AsWidth,
    /// This speaker may send BGPsec UPDATEs (it announced Send, the neighbour Receive,
    /// for IPv4, RFC 8205 §2.2).
    pub bgpsec_send: bool,
    /// The neighbour may send BGPsec UPDATEs (it announced Send, this speaker
    /// Receive, for IPv4, both the 4-octet AS capability; RFC 8205 §2.2).
    pub bgpsec_receive: bool,
    /// Where the RIB task sends the session's outgoing UPDATEs, encoded.
    pub tx: Outbox,
    /// The families exchanged and BGPsec for IPv6 (RFC 4760 §8, RFC 8205 §2.2).
    pub afis: Afis,
    /// The next hop of IPv6 routes sent (RFC 2545 §3): configured, or the session's
    /// local IPv6 address; `None`: IPv6 routes cannot be sent.
    pub next_hop6: Option<NextHop>,
    /// What else the session negotiated (RFC 8654, RFC 2918, RFC 7313, RFC 4724).
    pub features: Features,
}

/// What a session negotiated beyond RFC 4271 and BGPsec, as the RIB uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Features {
    /// The longest message to send: 4096, or 65,535 when both sides announced the
    /// Extended Message capability (RFC 8654 §4). Signed UPDATEs longer than this
    /// are not sent (RFC 8205 §4.1, RFC 4271 §9.2).
    pub max_message_len: usize,
    /// Both sides announced Route Refresh (RFC 2918).
    pub route_refresh: bool,
    /// Both sides announced Enhanced Route Refresh (RFC 7313).
    pub enhanced_route_refresh: bool,
    /// The neighbour's Restart Time when it announced Graceful Restart for IPv4
    /// unicast and this speaker helps (RFC 4724 §4.2).
    pub graceful_restart: Option<std::time::Duration>,
    /// Both sides announced Graceful Restart: End-of-RIB after the initial table
    /// (RFC 4724 §2).
    pub end_of_rib: bool,
}

impl Default for Features {
    /// A bare RFC 4271 session: 4096 octets, no refresh, no graceful restart.
    fn default() -> Features {
        Features {
            max_message_len: crate::packet::MAX_MESSAGE_LEN,
            route_refresh: false,
            enhanced_route_refresh: false,
            graceful_restart: None,
            end_of_rib: false,
        }
    }
}

impl From<&super::fsm::Negotiated> for Features {
    fn from(n: &super::fsm::Negotiated) -> Features {
        Features {
            max_message_len: n.max_message_len(),
            route_refresh: n.route_refresh,
            enhanced_route_refresh: n.enhanced_route_refresh,
            graceful_restart: n.graceful_restart,
            end_of_rib: n.end_of_rib,
        }
    }
}

/// A session task's news for the RIB task.
#[derive(Debug)]
pub enum Event {
    /// The session changed state (for the status file).
    State(usize, State),
    /// The session reached Established.
    Up(usize, Up),
    /// The session left Established: its routes are withdrawn (RFC 4271 §8.2.2).
    Down(usize, String),
    /// An UPDATE arrived.
    Update(usize, Box<Update<'static>>, Instant),
    /// A malformed UPDATE to treat as a withdraw of these prefixes (RFC 7606 §2).
    TreatAsWithdraw(usize, Vec<Prefix>),
    /// The session's output queue has room for the UPDATEs its [`Outbox`] held back.
    Room(usize),
    /// A validation job finished.
    Validated(Validated),
    /// A sign job finished.
    Signed(Signed),
    /// The RPKI view changed (a cache's data, its state), or a cache's state did.
    Rpki(Box<RpkiNews>),
    /// A ROUTE-REFRESH from the neighbour (RFC 2918 §4, RFC 7313 §4).
    RouteRefresh(usize, crate::packet::route_refresh::RouteRefresh),
    /// A question of the HTTP API, answered at once by the RIB task
    /// ([`super::rib::query`]).
    Query(super::rib::query::Query),
}

/// What the RPKI task tells the RIB: a new view (if the payload changed) and the
/// state of each cache, for the status file.
pub struct RpkiNews {
    /// The new view, `None` if only the caches' states changed.
    pub view: Option<Arc<View>>,
    /// Each configured cache.
    pub caches: Vec<CacheStatus>,
}

impl std::fmt::Debug for RpkiNews {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RpkiNews")
            .field("view", &self.view.is_some())
            .field("caches", &self.caches.len())
            .finish()
    }
}

/// A validation worker's answer.
#[derive(Debug)]
pub struct Validated {
    /// The session the route came from.
    pub neighbor: usize,
    /// The route's prefix.
    pub prefix: Prefix,
    /// The route's sequence number: an answer for a route since replaced is dropped.
    pub seq: u64,
    /// The job's number: an answer of a job since superseded (a revalidation queued
    /// after a change of the view) is dropped.
    pub job: u64,
    /// The generation of the view the job used ([`super::pool::SharedView`]).
    pub generation: u64,
    /// The verdict (RFC 8205 §5.1), or why there is none: the job failed (it
    /// panicked, a bug in hopsig; the route is treated as 'Not Valid').
    pub result: Result<Validation, String>,
}

/// A worker's signed (or downgraded) announcement.
#[derive(Debug)]
pub struct Signed {
    /// The session it goes to.
    pub session: usize,
    /// Its prefix.
    pub prefix: Prefix,
    /// The sign job's number: an answer for an advert since replaced is dropped.
    pub number: u64,
    /// The announcement, or why it could not be built.
    pub result: Built,
}

/// A built announcement to one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Announcement {
    /// The encoded UPDATE.
    pub bytes: Vec<u8>,
    /// Whether it carries BGPsec_PATH (signed), or AS_PATH (RFC 8205 §4.4).
    pub bgpsec: bool,
}

/// Why an announcement could not be built; the route is then taken back from the
/// session.
#[derive(Debug, thiserror::Error)]
pub enum AnnounceError {
    /// The session is no longer Established.
    #[error("session down")]
    SessionDown,
    /// The sign job failed (it panicked: a bug in hopsig).
    #[error("internal error: {0}")]
    Internal(String),
    /// The route left Adj-RIB-In meanwhile.
    #[error("route gone")]
    RouteGone,
    /// An IPv6 route toward a session with no IPv6 next hop (none configured, and
    /// its transport is not IPv6; RFC 2545 §3).
    #[error("no IPv6 next hop for this session (configure next_hop6, RFC 2545 §3)")]
    NoIpv6NextHop,
    /// A path attribute does not encode.
    #[error("{0}")]
    Attribute(EncodeError),
    /// The UPDATE does not encode.
    #[error("encode: {0}")]
    Encode(EncodeError),
    /// Signing failed (other than for want of a key: that sends the route unsigned).
    #[error(transparent)]
    Sign(SignError),
}

/// A built announcement, or why there is none.
pub type Built = Result<Announcement, AnnounceError>;
