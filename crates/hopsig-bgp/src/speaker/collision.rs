//! Connection collision detection (RFC 4271 §6.8): when a neighbour and this speaker
//! connect to each other at the same time there are two connections of one session,
//! each with its own [`Fsm`](super::fsm::Fsm); [`resolve`] says which one to close
//! (Event 23, OpenCollisionDump), as a pure function of the two connections' states,
//! who initiated each and the BGP Identifiers. The shell (`session`) asks after each
//! event while it holds two connections.
//!
//! The rule, in order:
//! 1. A connection in Established wins (§6.8, last paragraph: "unless … configured to
//!    do otherwise", and hopsig is not — CollisionDetectEstablishedState, §8.1.1, is
//!    off). The shell refuses a connection arriving while the session is Established
//!    at once, with the same NOTIFICATION.
//! 2. Otherwise nothing is decided until both connections have the neighbour's OPEN
//!    (OpenConfirm): §6.8 examines connections in OpenConfirm on the receipt of an
//!    OPEN; OpenSent ones only where the BGP Identifier is known by other means, which
//!    hopsig does not have.
//! 3. Both in OpenConfirm, one initiated by each side: the local BGP Identifier lower
//!    than the neighbour's (as unsigned 32-bit integers) closes the connection this
//!    speaker initiated, else the neighbour's. Equal identifiers (possible between
//!    ASes, RFC 6286 §2.3): the connection initiated by the speaker with the larger AS
//!    number is kept.
//! 4. Both initiated by the neighbour (a passive neighbour connecting twice, or an
//!    active neighbour's second incoming connection): the newer one is closed.
//!
//! The closed connection gets NOTIFICATION Cease, subcode 7 "Connection Collision
//! Resolution" (RFC 4486 §4).

use std::net::Ipv4Addr;

use super::fsm::State;
use crate::packet::iana::CeaseSubcode;
use crate::packet::{ErrorCode, Notification};

/// The NOTIFICATION of a connection closed by collision resolution: Cease /
/// Connection Collision Resolution (RFC 4486 §4, subcode 7).
pub fn notification() -> Notification<'static> {
    Notification::new(
        ErrorCode::Cease,
        u8::from(CeaseSubcode::ConnectionCollisionResolution),
        vec![],
    )
}

/// Which side opened a TCP connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Initiated {
    /// This speaker connected (Connect, Event 16).
    Local,
    /// The neighbour connected (the listener's connection, Event 17).
    Remote,
}

/// One connection of a neighbour as the rule sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Connection {
    /// Its FSM state.
    pub state: State,
    /// Who opened it.
    pub initiated: Initiated,
    /// The BGP Identifier of the OPEN received on it, once received.
    pub remote_id: Option<Ipv4Addr>,
}

/// Which connection to close.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loser {
    /// The connection that came first (the session's).
    Older,
    /// The one that came second.
    Newer,
}

/// The local side of the comparison: this speaker's BGP Identifier and AS, and the
/// neighbour's AS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Speakers {
    /// The local BGP Identifier.
    pub local_id: Ipv4Addr,
    /// The local AS.
    pub local_as: u32,
    /// The neighbour's AS.
    pub remote_as: u32,
}

/// The connection of `older` and `newer` to close now (RFC 4271 §6.8, the rule of the
/// module documentation), or `None` while no decision is due.
pub fn resolve(speakers: Speakers, older: Connection, newer: Connection) -> Option<Loser> {
    match (older.state, newer.state) {
        (State::Established, _) => return Some(Loser::Newer),
        (_, State::Established) => return Some(Loser::Older),
        (State::OpenConfirm, State::OpenConfirm) => {}
        _ => return None,
    }
    if older.initiated == newer.initiated {
        return Some(Loser::Newer);
    }
    // The OPEN that triggers the comparison is the newer one's; both are the same
    // neighbour's.
    let remote_id = newer.remote_id.or(older.remote_id)?;
    let (local, remote) = (u32::from(speakers.local_id), u32::from(remote_id));
    let close_local = local < remote || (local == remote && speakers.local_as < speakers.remote_as);
    let lost = if close_local {
        Initiated::Local
    } else {
        Initiated::Remote
    };
    Some(if older.initiated == lost {
        Loser::Older
    } else {
        Loser::Newer
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn speakers(local_id: [u8; 4]) -> Speakers {
        Speakers {
            local_id: Ipv4Addr::from(local_id),
            local_as: 65001,
            remote_as: 65002,
        }
    }

    fn conn(state: State, initiated: Initiated, remote_id: [u8; 4]) -> Connection {
        Connection {
            state,
            initiated,
            remote_id: Some(Ipv4Addr::from(remote_id)),
        }
    }

    /// RFC 4271 §6.8 steps 2–3: local Identifier lower → the connection this speaker
    /// initiated closes; higher → the neighbour's. Compared as unsigned 32-bit
    /// integers (10.0.0.2 < 192.0.2.1, 128.0.0.1 > 127.255.255.255), whichever
    /// connection came first.
    #[test]
    fn rfc_4271_6_8_the_lower_identifier_closes_its_own_connection() {
        use Initiated::{Local, Remote};
        use State::OpenConfirm as OC;
        let remote = [192, 0, 2, 1];
        let low = speakers([10, 0, 0, 2]);
        let high = speakers([192, 0, 2, 200]);
        // Our outgoing came first, the neighbour's second.
        let (ours, theirs) = (conn(OC, Local, remote), conn(OC, Remote, remote));
        assert_eq!(resolve(low, ours, theirs), Some(Loser::Older));
        assert_eq!(resolve(high, ours, theirs), Some(Loser::Newer));
        // The neighbour's came first.
        assert_eq!(resolve(low, theirs, ours), Some(Loser::Newer));
        assert_eq!(resolve(high, theirs, ours), Some(Loser::Older));
        // Unsigned: 128.0.0.1 is above 127.255.255.255 (a signed compare would
        // put it below).
        let unsigned = speakers([128, 0, 0, 1]);
        let r = [127, 255, 255, 255];
        assert_eq!(
            resolve(unsigned, conn(OC, Local, r), conn(OC, Remote, r)),
            Some(Loser::Newer)
        );
        // Both speakers apply the rule and close the same TCP connection: the one the
        // higher Identifier initiated survives. A (10.0.0.2) → B (192.0.2.1): A's
        // outgoing is B's incoming.
        let a = resolve(low, ours, theirs);
        let b = resolve(
            Speakers {
                local_id: Ipv4Addr::from(remote),
                local_as: 65002,
                remote_as: 65001,
            },
            conn(OC, Remote, [10, 0, 0, 2]),
            conn(OC, Local, [10, 0, 0, 2]),
        );
        // A closes its outgoing (older); B closes its incoming (older), the same one.
        assert_eq!((a, b), (Some(Loser::Older), Some(Loser::Older)));
    }

    /// RFC 6286 §2.3: equal Identifiers — the connection initiated by the speaker
    /// with the larger AS number is kept.
    #[test]
    fn rfc_6286_2_3_equal_identifiers_keep_the_larger_as_connection() {
        use Initiated::{Local, Remote};
        let id = [192, 0, 2, 1];
        let smaller_as = speakers(id); // 65001 < 65002
        let ours = conn(State::OpenConfirm, Local, id);
        let theirs = conn(State::OpenConfirm, Remote, id);
        assert_eq!(resolve(smaller_as, ours, theirs), Some(Loser::Older));
        let larger_as = Speakers {
            remote_as: 64999,
            ..smaller_as
        };
        assert_eq!(resolve(larger_as, ours, theirs), Some(Loser::Newer));
    }

    /// §6.8 last paragraph: a connection in Established wins, whatever the
    /// Identifiers; the other one closes.
    #[test]
    fn rfc_4271_6_8_established_wins() {
        use Initiated::{Local, Remote};
        let r = [192, 0, 2, 1];
        for local_id in [[10, 0, 0, 1], [200, 0, 0, 1]] {
            let s = speakers(local_id);
            for (a, b) in [(Local, Remote), (Remote, Local), (Remote, Remote)] {
                for other in [State::OpenSent, State::OpenConfirm] {
                    let est = conn(State::Established, a, r);
                    let o = conn(other, b, r);
                    assert_eq!(resolve(s, est, o), Some(Loser::Newer));
                    assert_eq!(resolve(s, o, est), Some(Loser::Older));
                }
            }
        }
    }

    /// §6.8: only connections in OpenConfirm are examined — nothing is decided while
    /// either has not received the OPEN (Connect, OpenSent).
    #[test]
    fn rfc_4271_6_8_nothing_decided_before_both_opens() {
        use Initiated::{Local, Remote};
        let s = speakers([10, 0, 0, 1]);
        let r = [192, 0, 2, 1];
        for (a, b) in [
            (State::Connect, State::OpenConfirm),
            (State::OpenSent, State::OpenConfirm),
            (State::OpenConfirm, State::OpenSent),
            (State::OpenSent, State::OpenSent),
        ] {
            let older = Connection {
                remote_id: None,
                ..conn(a, Local, r)
            };
            assert_eq!(resolve(s, older, conn(b, Remote, r)), None, "{a:?} {b:?}");
        }
    }

    /// Both connections initiated by the neighbour (a passive neighbour connecting
    /// twice): the newer one closes once both are in OpenConfirm, whatever the
    /// Identifiers.
    #[test]
    fn two_incoming_connections_the_newer_closes() {
        use Initiated::Remote;
        let r = [192, 0, 2, 1];
        for local_id in [[10, 0, 0, 1], [200, 0, 0, 1]] {
            let c = conn(State::OpenConfirm, Remote, r);
            assert_eq!(resolve(speakers(local_id), c, c), Some(Loser::Newer));
        }
    }
}
