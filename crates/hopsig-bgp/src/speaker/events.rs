//! The messages between the speaker's tasks: each session task sends [`Event`]s to the
//! RIB task, which owns every route and sends encoded BGP messages back to the
//! sessions (the holo-bgp layout: one task per session, the RIB owned by one task).

use std::time::Instant;

use crate::packet::{AsWidth, Prefix, Update};

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
    /// `Ok(suite)` for 'Valid', `Err(why)` for 'Not Valid'.
    pub result: Result<u8, String>,
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

/// A built announcement: the encoded UPDATE and whether it carries BGPsec_PATH.
pub type Built = Result<(Vec<u8>, bool), String>;
