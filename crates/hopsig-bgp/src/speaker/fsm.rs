//! The RFC 4271 §8 finite state machine of one BGP session, as a pure function:
//! [`step`] takes the session's [`Fsm`] and one [`Event`] and returns the next
//! [`Fsm`] and the [`Action`]s to perform, with no I/O (holo-bgp's `neighbor.rs`).
//! The shell (`speaker::neighbor`) owns the sockets, the timers and the output
//! queue: it turns what happens into [`Event`]s (a received message through
//! [`received`]) and performs the [`Action`]s. `tests/conformance/` replays event
//! files through [`step`] and compares every action.
//!
//! The session follows RFC 4271 §8.2.2 with the mandatory session attributes only
//! (§8.1.1) and a hold time of 4 minutes in OpenSent ([`OPEN_HOLD`], §8.2.2 "a large
//! value"). The negotiated Hold Time is the smaller of both OPENs' (§4.2); KEEPALIVEs
//! go out every third of it (§4.4, at least every second); a Hold Time of 0 turns
//! both timers off in Established. RFC 7606 decides what a malformed UPDATE does in
//! Established (Event 28, [`Event::UpdateMsgErr`]): treat-as-withdraw and attribute
//! discard keep the session, a session reset closes it with the codec's
//! NOTIFICATION.
//!
//! Beyond RFC 4271 the OPEN carries the session capabilities of [`Options`] (RFC
//! 8654 extended messages, RFC 2918 / 7313 route refresh, RFC 4724 graceful restart
//! as a helper); what both sides announced is in [`Negotiated`]. The shell decodes
//! with the negotiated limits ([`received_on`]); a ROUTE-REFRESH in Established
//! restarts the Hold Timer and goes to the RIB ([`Action::RouteRefresh`]).
//!
//! What hopsig deliberately does not implement, and does instead:
//!
//! * **Optional session attributes** (§8.1.1: AllowAutomaticStart/Stop,
//!   DampPeerOscillations, IdleHoldTime, AcceptConnectionsUnconfiguredPeers,
//!   PassiveTcpEstablishment, TrackTcpState, DelayOpen, SendNOTIFICATIONwithoutOPEN,
//!   CollisionDetectEstablishedState). So Events 2–8 (automatic start/stop, passive
//!   and damped starts), 12 (DelayOpenTimer_Expires), 14–15 (TcpConnection_Valid /
//!   Tcp_CR_Invalid) and 20 (BGPOpen with DelayOpenTimer running) never occur. The one exception, below, is an IdleHoldTimer.
//! * **Restart after a failure.** Where §8.2.2 goes from Connect, Active or OpenSent to
//!   Active on a TCP failure (Event 18, "continues to listen for a connection"), and
//!   from any state to Idle with no automatic restart, hopsig goes to Idle and starts
//!   [`Timer::IdleHold`] for ConnectRetryTime; its expiry (Event 13,
//!   IdleHoldTimer_Expires) is an automatic start (Event 3): the §8.1.1
//!   DampPeerOscillations behaviour with a constant IdleHoldTime. Any event in Idle
//!   other than a start is ignored, as §8.2.2 says for Idle.
//! * **Passive neighbours** (a configured `passive`: RFC 4271 §8.1.1
//!   PassiveTcpEstablishment, started with Event 5 semantics) wait in Active for the
//!   neighbour's connection and never connect: the ConnectRetryTimer does not run in
//!   Active, so §8.2.2's Active/Event 9 row ("initiates a TCP connection … changes its
//!   state to Connect") does not apply. A connection an active neighbour opens while
//!   its session is in Connect runs through a second FSM (collisions, below), so the
//!   session's Connect/Event 17 does not occur; the FSM treats it as Event 16.
//! * **Connection collision detection** (§6.8): each connection has its own [`Fsm`]
//!   (the shell runs a second, incoming one beside the session's) and [`super::collision`]
//!   decides which one to close; the loser gets Event 23
//!   ([`Event::OpenCollisionDump`]): Cease / Connection Collision Resolution (RFC 4486
//!   §4), Idle. An OPEN in OpenConfirm or Established on the same connection is still
//!   an FSM error.
//! * **FSM error subcodes** (RFC 6608): the Finite State Machine Error NOTIFICATION
//!   carries subcode 0 ([`FsmSubcode::Unspecified`]), as RFC 4271 has it.
//! * **Disabling an AFI/SAFI** instead of a session reset (RFC 7606 §5.3 / RFC 4760
//!   §7): not done; the session is reset.
//! * **The SendHoldTimer** (RFC 9687, Event 29 SendHoldTimer_Expires): it runs in the
//!   writer task, which sends its NOTIFICATION and resets the connection; the FSM
//!   sees the writer end as Event 18 ([`Event::TcpConnectionFails`]) and sets its
//!   duration when Established begins ([`Action::SendHold`], §3.3).

use std::net::Ipv4Addr;
use std::time::Duration;

use super::family::{Afis, Families};
use crate::packet::route_refresh::{
    announced, empty_capability, GracefulRestart, RouteRefresh, Subtype,
    ENHANCED_ROUTE_REFRESH_CAPABILITY, EXTENDED_MESSAGE_CAPABILITY, GRACEFUL_RESTART_CAPABILITY,
    ROUTE_REFRESH_CAPABILITY, ROUTE_REFRESH_TYPE,
};
use crate::packet::Action as Rfc7606;
use crate::packet::{
    AsWidth, Capability, Direction, ErrorCode, FsmSubcode, Message, MessageError, MessageType,
    Notification, Open, OpenSubcode, Prefix, Update, UpdateError,
};
use crate::packet::{HEADER_LEN, MAX_EXTENDED_MESSAGE_LEN, MAX_MESSAGE_LEN};

/// Hold Timer in OpenSent (RFC 4271 §8.2.2: "suggested value … is 4 minutes").
pub const OPEN_HOLD: Duration = Duration::from_secs(240);

/// IPv4 (RFC 4760 AFI 1).
const AFI_IPV4: u16 = 1;

/// The RFC 4271 §8.2.2 session states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum State {
    /// Idle.
    #[default]
    Idle,
    /// Connect: an active session's TCP connection under way.
    Connect,
    /// Active: waiting for the neighbour to connect.
    Active,
    /// OpenSent.
    OpenSent,
    /// OpenConfirm.
    OpenConfirm,
    /// Established.
    Established,
}

impl State {
    /// The RFC's name.
    pub fn name(self) -> &'static str {
        match self {
            State::Idle => "Idle",
            State::Connect => "Connect",
            State::Active => "Active",
            State::OpenSent => "OpenSent",
            State::OpenConfirm => "OpenConfirm",
            State::Established => "Established",
        }
    }
}

/// The session's timers (RFC 4271 §8.1.3 and §8.1.1's IdleHoldTimer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Timer {
    /// ConnectRetryTimer: how long a TCP connection attempt may take (Connect).
    ConnectRetry,
    /// HoldTimer: how long the neighbour may send nothing.
    Hold,
    /// KeepaliveTimer: when this speaker next sends a KEEPALIVE.
    Keepalive,
    /// IdleHoldTimer (§8.1.1, DampPeerOscillations): how long the session stays in
    /// Idle before it starts again.
    IdleHold,
}

impl Timer {
    /// Every timer, for a shell that keeps one deadline per timer.
    pub const ALL: [Timer; 4] = [
        Timer::ConnectRetry,
        Timer::Hold,
        Timer::Keepalive,
        Timer::IdleHold,
    ];

    /// The event of its expiry.
    pub fn expired(self) -> Event {
        match self {
            Timer::ConnectRetry => Event::ConnectRetryTimerExpires,
            Timer::Hold => Event::HoldTimerExpires,
            Timer::Keepalive => Event::KeepaliveTimerExpires,
            Timer::IdleHold => Event::IdleHoldTimerExpires,
        }
    }
}

/// What the session is configured with: the local side and the neighbour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The local AS.
    pub local_as: u32,
    /// The BGP Identifier.
    pub router_id: Ipv4Addr,
    /// Hold Time offered.
    pub hold_time: u16,
    /// ConnectRetryTime (and the IdleHoldTime).
    pub connect_retry: Duration,
    /// Send Hold Time configured, seconds, 0 for none [default: twice the negotiated
    /// Hold Time].
    pub send_hold_time: Option<u32>,
    /// The AS the neighbour must announce in its OPEN.
    pub remote_as: u32,
    /// Wait for the neighbour to connect instead of connecting.
    pub passive: bool,
    /// Announce the BGPsec capability (send and receive, IPv4; RFC 8205 §2).
    pub bgpsec: bool,
    /// The unicast families announced (RFC 4760 §8), BGPsec for each with `bgpsec`
    /// (RFC 8205 §2.1).
    pub families: Families,
    /// The session capabilities beyond RFC 4271 to announce.
    pub options: Options,
}

/// The session capabilities this speaker announces beyond RFC 4271, 4-octet AS,
/// multiprotocol and BGPsec: none by default (the bare RFC 4271 session the
/// conformance cases replay); the speaker's configuration turns them on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Options {
    /// Extended Message (RFC 8654 §3, code 6): messages up to 65,535 octets once
    /// the neighbour announces it too.
    pub extended_messages: bool,
    /// Route Refresh (RFC 2918 §2, code 2).
    pub route_refresh: bool,
    /// Enhanced Route Refresh (RFC 7313 §3.1, code 70): BoRR and EoRR around a
    /// re-advertisement.
    pub enhanced_route_refresh: bool,
    /// Graceful Restart (RFC 4724 §3, code 64) as a helper: the Restart Time to
    /// announce, seconds; `None`: not announced.
    pub graceful_restart: Option<u16>,
}

/// What the session negotiated: set by the neighbour's OPEN (OpenConfirm and
/// Established).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Negotiated {
    /// The AS in the neighbour's OPEN.
    pub remote_as: u32,
    /// AS numbers on the wire: four octets when both sides announced RFC 6793.
    pub width: AsWidth,
    /// The Hold Time: the smaller of both OPENs' (0: no Hold Timer in Established).
    pub hold: Duration,
    /// The KEEPALIVE interval: a third of the Hold Time, at least a second.
    pub keepalive: Duration,
    /// This speaker may send BGPsec UPDATEs (it announced Send, the neighbour Receive,
    /// for IPv4, RFC 8205 §2.2).
    pub bgpsec_send: bool,
    /// The neighbour may send BGPsec UPDATEs (it announced Send, this speaker
    /// Receive, for IPv4, both the 4-octet AS capability; RFC 8205 §2.2).
    pub bgpsec_receive: bool,
    /// The families exchanged and BGPsec for IPv6 ([`Afis::negotiate`]).
    pub afis: Afis,
    /// Both sides announced the Extended Message capability: messages (but OPEN and
    /// KEEPALIVE) up to 65,535 octets both ways (RFC 8654 §4).
    pub extended_messages: bool,
    /// Both sides announced Route Refresh (RFC 2918 §4: a ROUTE-REFRESH may be sent
    /// only to a neighbour that announced it).
    pub route_refresh: bool,
    /// Both sides announced Enhanced Route Refresh (RFC 7313 §4: BoRR and EoRR
    /// around each re-advertisement).
    pub enhanced_route_refresh: bool,
    /// The neighbour's Restart Time, when it announced Graceful Restart with IPv4
    /// unicast among the families whose routes a helper keeps (RFC 4724 §4.2) and
    /// this speaker announced the capability (it is a helper only then).
    pub graceful_restart: Option<Duration>,
    /// Both sides announced Graceful Restart: End-of-RIB markers are sent after the
    /// initial table (RFC 4724 §2, §4.1).
    pub end_of_rib: bool,
}

impl Negotiated {
    /// The longest message either side may send (RFC 8654 §4).
    pub fn max_message_len(&self) -> usize {
        if self.extended_messages {
            MAX_EXTENDED_MESSAGE_LEN
        } else {
            MAX_MESSAGE_LEN
        }
    }
}

/// A session's state: the RFC state and what was negotiated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fsm {
    /// The RFC 4271 state.
    pub state: State,
    /// Set from the neighbour's OPEN until the session goes back to Idle.
    pub negotiated: Option<Negotiated>,
}

impl Fsm {
    /// How AS numbers are read and written now: as negotiated, four octets before.
    pub fn width(&self) -> AsWidth {
        self.negotiated.map_or(AsWidth::Four, |n| n.width)
    }
}

/// The RFC 4271 §8.1 events hopsig's shell produces (each named with its number).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Event 1: ManualStart — the speaker starts the session (an active neighbour
    /// connects, a passive one waits; a passive start is Event 5's behaviour, which
    /// the configuration, not the event, selects).
    ManualStart,
    /// Event 9: ConnectRetryTimer_Expires.
    ConnectRetryTimerExpires,
    /// Event 10: HoldTimer_Expires.
    HoldTimerExpires,
    /// Event 11: KeepaliveTimer_Expires.
    KeepaliveTimerExpires,
    /// Event 13: IdleHoldTimer_Expires — the wait in Idle after a failure is over;
    /// handled as Event 3, AutomaticStart.
    IdleHoldTimerExpires,
    /// Event 16: Tcp_CR_Acked — this speaker's connection attempt succeeded.
    TcpCrAcked,
    /// Event 17: TcpConnectionConfirmed — the neighbour connected to this speaker.
    TcpConnectionConfirmed,
    /// Event 18: TcpConnectionFails — the connection could not be made, was closed or
    /// failed (reading, writing, the SendHoldTimer), and why.
    TcpConnectionFails(String),
    /// Event 19: BGPOpen — a valid OPEN.
    BgpOpen(Box<Open<'static>>),
    /// Event 21: BGPHeaderErr — the NOTIFICATION to send, if any, and why.
    BgpHeaderErr(Option<Notification<'static>>, String),
    /// Event 22: BGPOpenMsgErr — the NOTIFICATION to send and why.
    BgpOpenMsgErr(Notification<'static>, String),
    /// Event 23: OpenCollisionDump — this connection lost a collision (RFC 4271 §6.8,
    /// decided by [`super::collision::resolve`]).
    OpenCollisionDump,
    /// Event 25: NotifMsg — a NOTIFICATION received.
    NotifMsg(Notification<'static>),
    /// Event 25: NotifMsg of a NOTIFICATION too short to decode, and why (RFC 4271
    /// §6.4: none is sent in reply).
    BadNotifMsg(String),
    /// Event 26: KeepAliveMsg.
    KeepAliveMsg,
    /// Event 27: UpdateMsg — a valid UPDATE.
    UpdateMsg(Box<Update<'static>>),
    /// Event 28: UpdateMsgErr — a malformed UPDATE with RFC 7606's verdict.
    UpdateMsgErr(Box<UpdateError>),
    /// A ROUTE-REFRESH message (RFC 2918 §3, RFC 7313 §3.2) on a session that
    /// negotiated Route Refresh (RFC 4271 numbers no event for it).
    RouteRefreshMsg(RouteRefresh),
}

/// What the shell does for the FSM, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Start a TCP connection to the neighbour, dropping any attempt under way.
    Connect,
    /// Take the next connection the listener hands over for this neighbour.
    Accept,
    /// Queue this message (OPEN, KEEPALIVE) ahead of UPDATEs, encoded with
    /// [`Fsm::width`].
    Send(Message<'static>),
    /// Start (or restart) a timer.
    StartTimer(Timer, Duration),
    /// Stop a timer.
    StopTimer(Timer),
    /// Log a line about the session.
    Log(String),
    /// Set the writer's SendHoldTimer (RFC 9687; `None`: none).
    SendHold(Option<Duration>),
    /// The session is up: hand it to the RIB with what was negotiated.
    Established(Negotiated),
    /// Hand an UPDATE to the RIB.
    Update(Box<Update<'static>>),
    /// Withdraw these routes of the neighbour (RFC 7606 §2 treat-as-withdraw).
    TreatAsWithdraw(Vec<Prefix>),
    /// Send the NOTIFICATION, if any, after what is queued, close the connection and
    /// tell the RIB the session went down, and why (RFC 4271 §8.2.2 "drops the TCP
    /// connection", "releases all BGP resources").
    Close {
        /// The NOTIFICATION to send last.
        notification: Option<Notification<'static>>,
        /// Why, as logged and shown in the status file.
        reason: String,
    },
    /// Hand a ROUTE-REFRESH to the RIB: a request to re-advertise the Adj-RIB-Out,
    /// or the neighbour's BoRR / EoRR around its own (RFC 2918 §4, RFC 7313 §4).
    RouteRefresh(RouteRefresh),
}

/// The Send Hold Time of a session whose negotiated Hold Time is `hold`, with
/// `configured` (seconds) if set: RFC 9687 §3.3 stops the SendHoldTimer when the
/// SendHoldTime or the negotiated Hold Time is 0. The default is twice the negotiated
/// Hold Time: §3.4 wants more than the Hold Time, and issue 22 wants a neighbour that
/// takes nothing reset on the Hold Time's scale, not after §5's suggested 8-minute
/// floor (an operator who wants that floor configures 480).
pub fn send_hold_time(configured: Option<u32>, hold: Duration) -> Option<Duration> {
    let d = match configured {
        Some(s) => Duration::from_secs(u64::from(s)),
        None => 2 * hold,
    };
    (!d.is_zero() && !hold.is_zero()).then_some(d)
}

/// The capabilities this speaker announces to an IPv4-only neighbour: 4-octet AS
/// (in [`Open::new`]), IPv4 unicast, and for a BGPsec neighbour BGPsec send and
/// receive for IPv4 ([`super::family::capabilities`] for other families).
pub fn capabilities(bgpsec: bool) -> Vec<Capability<'static>> {
    super::family::capabilities(Families::IPV4, bgpsec)
}

/// The capabilities of `families` ([`super::family::capabilities`]) and those of `options` (RFC 8654 §3, RFC 2918 §2, RFC 7313 §3.1,
/// RFC 4724 §3: a helper announces its Restart Time, Restart State 0 and no address
/// family, as a speaker that preserves no forwarding state does).
pub fn capabilities_with(
    families: Families,
    bgpsec: bool,
    options: &Options,
) -> Vec<Capability<'static>> {
    let mut caps = super::family::capabilities(families, bgpsec);
    for (on, code) in [
        (options.route_refresh, ROUTE_REFRESH_CAPABILITY),
        (
            options.enhanced_route_refresh,
            ENHANCED_ROUTE_REFRESH_CAPABILITY,
        ),
        (options.extended_messages, EXTENDED_MESSAGE_CAPABILITY),
    ] {
        if on {
            caps.push(empty_capability(code));
        }
    }
    if let Some(restart_time) = options.graceful_restart {
        caps.push(
            GracefulRestart {
                restart_state: false,
                restart_time,
                families: vec![],
            }
            .capability(),
        );
    }
    caps
}

/// The event of a whole received message `bytes` on a session in state `fsm`: as
/// [`received`], with the longest message and the message types what was
/// negotiated allows (RFC 8654 §4; ROUTE-REFRESH only where Route Refresh was
/// negotiated, RFC 2918 §4 — elsewhere type 5 is a Bad Message Type, RFC 4271
/// §6.1).
pub fn received_on(bytes: &[u8], fsm: &Fsm) -> Event {
    let Some(n) = fsm.negotiated else {
        return received(bytes, fsm.width());
    };
    if n.route_refresh && bytes.get(18) == Some(&ROUTE_REFRESH_TYPE) {
        let framed = bytes.len() >= HEADER_LEN && bytes[..16].iter().all(|&b| b == 0xff);
        return match (framed, RouteRefresh::decode(bytes)) {
            (true, Ok(rr)) => Event::RouteRefreshMsg(rr),
            (true, Err(note)) => Event::BgpHeaderErr(
                Some(note),
                "received: ROUTE-REFRESH of a length other than 23 (RFC 7313 §5)".into(),
            ),
            (false, _) => received(bytes, n.width),
        };
    }
    received_max(bytes, n.width, n.max_message_len())
}

/// Whether `open` announces the BGPsec capability `direction` for IPv4, version 0.
fn announces(open: &Open<'_>, direction: Direction) -> bool {
    open.capabilities().any(|c| {
        matches!(c, Capability::Bgpsec(b)
            if b.version == 0 && b.direction == direction && b.afi == AFI_IPV4)
    })
}

/// The event of a whole received message `bytes` (header included), decoded with
/// `width` ([`Fsm::width`]): the shell's half of "the FSM never parses bytes".
pub fn received(bytes: &[u8], width: AsWidth) -> Event {
    received_max(bytes, width, MAX_MESSAGE_LEN)
}

/// [`received`] with messages up to `max` octets.
fn received_max(bytes: &[u8], width: AsWidth, max: usize) -> Event {
    match Message::decode_max(bytes, width, max) {
        Ok(Message::Open(o)) => Event::BgpOpen(Box::new(o.into_owned())),
        Ok(Message::Update(u)) => Event::UpdateMsg(Box::new(u.into_owned())),
        Ok(Message::Notification(n)) => Event::NotifMsg(n.into_owned()),
        Ok(Message::Keepalive) => Event::KeepAliveMsg,
        Err(e) => {
            let reason = format!("received: {e}");
            match e {
                MessageError::Header(h) => Event::BgpHeaderErr(h.notification(), reason),
                MessageError::Open(o) => Event::BgpOpenMsgErr(o.notification(), reason),
                MessageError::Update(u) => Event::UpdateMsgErr(Box::new(u)),
                MessageError::Notification(_) => Event::BadNotifMsg(reason),
            }
        }
    }
}

/// The message type an event received, for "… in OpenSent" FSM errors.
fn message_type(event: &Event) -> Option<MessageType> {
    match event {
        Event::BgpOpen(_) | Event::BgpOpenMsgErr(..) => Some(MessageType::Open),
        Event::UpdateMsg(_) | Event::UpdateMsgErr(_) => Some(MessageType::Update),
        Event::KeepAliveMsg => Some(MessageType::Keepalive),
        Event::NotifMsg(_) | Event::BadNotifMsg(_) => Some(MessageType::Notification),
        _ => None,
    }
}

/// Ends the session: timers stopped, the NOTIFICATION sent and the connection closed,
/// then Idle until the IdleHoldTimer restarts it.
fn close(
    config: &Config,
    notification: Option<Notification<'static>>,
    reason: String,
) -> (Fsm, Vec<Action>) {
    (
        Fsm::default(),
        vec![
            Action::StopTimer(Timer::Hold),
            Action::StopTimer(Timer::Keepalive),
            Action::Close {
                notification,
                reason,
            },
            Action::StartTimer(Timer::IdleHold, config.connect_retry),
        ],
    )
}

/// The session's start (Events 1 and 13 in Idle): a passive neighbour waits in
/// Active, an active one connects in Connect.
fn start(config: &Config) -> (Fsm, Vec<Action>) {
    if config.passive {
        (
            Fsm {
                state: State::Active,
                negotiated: None,
            },
            vec![Action::Accept],
        )
    } else {
        (
            Fsm {
                state: State::Connect,
                negotiated: None,
            },
            vec![
                Action::Connect,
                Action::StartTimer(Timer::ConnectRetry, config.connect_retry),
            ],
        )
    }
}

/// The TCP connection is up (Events 16, 17 in Connect or Active): OPEN sent, the
/// Hold Timer at [`OPEN_HOLD`], OpenSent.
fn connected(config: &Config) -> (Fsm, Vec<Action>) {
    let open = Open::new(
        config.local_as,
        config.hold_time,
        config.router_id,
        capabilities_with(config.families, config.bgpsec, &config.options),
    );
    (
        Fsm {
            state: State::OpenSent,
            negotiated: None,
        },
        vec![
            Action::StopTimer(Timer::ConnectRetry),
            Action::Send(Message::Open(open)),
            Action::StartTimer(Timer::Hold, OPEN_HOLD),
        ],
    )
}

/// The neighbour's OPEN in OpenSent (Event 19): checked against the configured AS,
/// the parameters negotiated, KEEPALIVE sent, OpenConfirm.
fn open_received(config: &Config, o: &Open<'_>) -> (Fsm, Vec<Action>) {
    if o.asn() != config.remote_as {
        let note = Notification::new(
            ErrorCode::Open,
            u8::from(OpenSubcode::BadPeerAs),
            o.my_as.to_be_bytes().to_vec(),
        );
        return close(
            config,
            Some(note),
            format!("OPEN from AS{}, expected AS{}", o.asn(), config.remote_as),
        );
    }
    let hold = o.hold_time.min(config.hold_time);
    let four = o
        .capabilities()
        .any(|c| matches!(c, Capability::FourOctetAs(_)));
    let afis = Afis::negotiate(config.families, config.bgpsec, four, o);
    // RFC 8205 §2.2: BGPsec needs 4-octet AS numbers on both sides.
    let negotiated = Negotiated {
        remote_as: o.asn(),
        width: if four { AsWidth::Four } else { AsWidth::Two },
        hold: Duration::from_secs(u64::from(hold)),
        keepalive: Duration::from_secs(u64::from(hold / 3).max(1)),
        bgpsec_send: config.bgpsec && four && afis.ipv4 && announces(o, Direction::Receive),
        bgpsec_receive: config.bgpsec && four && afis.ipv4 && announces(o, Direction::Send),
        afis,
        extended_messages: config.options.extended_messages
            && announced(o.capabilities(), EXTENDED_MESSAGE_CAPABILITY),
        route_refresh: config.options.route_refresh
            && announced(o.capabilities(), ROUTE_REFRESH_CAPABILITY),
        enhanced_route_refresh: config.options.route_refresh
            && config.options.enhanced_route_refresh
            && announced(o.capabilities(), ROUTE_REFRESH_CAPABILITY)
            && announced(o.capabilities(), ENHANCED_ROUTE_REFRESH_CAPABILITY),
        graceful_restart: config
            .options
            .graceful_restart
            .and(GracefulRestart::find(o.capabilities()))
            .filter(|gr| {
                gr.families
                    .iter()
                    .any(|&(afi, safi, _)| (afi, safi) == (AFI_IPV4, 1))
            })
            .map(|gr| Duration::from_secs(u64::from(gr.restart_time))),
        end_of_rib: config.options.graceful_restart.is_some()
            && announced(o.capabilities(), GRACEFUL_RESTART_CAPABILITY),
    };
    let mut actions = vec![Action::Send(Message::Keepalive)];
    if !negotiated.hold.is_zero() {
        actions.push(Action::StartTimer(Timer::Keepalive, negotiated.keepalive));
    }
    // A Hold Time of 0 keeps the large OpenSent value until Established.
    let until_keepalive = if negotiated.hold.is_zero() {
        OPEN_HOLD
    } else {
        negotiated.hold
    };
    actions.push(Action::StartTimer(Timer::Hold, until_keepalive));
    (
        Fsm {
            state: State::OpenConfirm,
            negotiated: Some(negotiated),
        },
        actions,
    )
}

/// The Hold Timer restarted on a message received (RFC 4271 §8.2.2, OpenConfirm and
/// Established: "restarts its HoldTimer, if the negotiated HoldTime value is
/// non-zero").
fn restart_hold(n: &Negotiated) -> Option<Action> {
    (!n.hold.is_zero()).then_some(Action::StartTimer(Timer::Hold, n.hold))
}

/// One RFC 4271 §8.2.2 transition: the session `fsm` of `config` after `event`, and
/// what the shell is to do, in order. Pure: no I/O, no clock.
pub fn step(config: &Config, fsm: Fsm, event: Event) -> (Fsm, Vec<Action>) {
    use Event as E;
    let stay = |actions: Vec<Action>| (fsm, actions);
    match (fsm.state, fsm.negotiated, event) {
        // Idle: a start; "any other events … does not cause change in the state".
        (State::Idle, _, E::ManualStart | E::IdleHoldTimerExpires) => start(config),
        (State::Idle, _, _) => stay(vec![]),

        // Connect and Active: waiting for the TCP connection.
        (State::Connect | State::Active, _, E::ManualStart) => stay(vec![]),
        (State::Connect | State::Active, _, E::TcpCrAcked | E::TcpConnectionConfirmed) => {
            connected(config)
        }
        (State::Connect, _, E::ConnectRetryTimerExpires) => stay(vec![
            Action::Connect,
            Action::StartTimer(Timer::ConnectRetry, config.connect_retry),
        ]),
        (State::Active, _, E::ConnectRetryTimerExpires) => stay(vec![]),
        (State::Connect | State::Active, _, E::TcpConnectionFails(why)) => (
            Fsm::default(),
            vec![
                Action::StopTimer(Timer::ConnectRetry),
                Action::Log(format!("connect: {why}")),
                Action::StartTimer(Timer::IdleHold, config.connect_retry),
            ],
        ),
        // "In response to any other event …, the local system … changes its state to
        // Idle" (no connection to drop).
        (State::Connect | State::Active, _, _) => (
            Fsm::default(),
            vec![
                Action::StopTimer(Timer::ConnectRetry),
                Action::StartTimer(Timer::IdleHold, config.connect_retry),
            ],
        ),

        // Events of every state with a connection.
        (_, _, E::ManualStart) => stay(vec![]),
        (_, _, E::HoldTimerExpires) => close(
            config,
            Some(Notification::new(ErrorCode::HoldTimerExpired, 0, vec![])),
            "Hold Timer expired".into(),
        ),
        (_, _, E::TcpConnectionFails(why)) => close(config, None, why),
        (_, _, E::BgpHeaderErr(note, why)) => close(config, note, why),
        (_, _, E::BgpOpenMsgErr(note, why)) => close(config, Some(note), why),
        (_, _, E::NotifMsg(note)) => close(
            config,
            None,
            format!(
                "NOTIFICATION received: code {} subcode {}",
                note.code, note.subcode
            ),
        ),
        (_, _, E::BadNotifMsg(why)) => close(config, None, why),
        // §8.2.2 OpenSent, OpenConfirm (and Established with
        // CollisionDetectEstablishedState): Cease, Idle.
        (_, _, E::OpenCollisionDump) => close(
            config,
            Some(super::collision::notification()),
            "connection collision resolution (RFC 4271 §6.8)".into(),
        ),

        // OpenSent: the neighbour's OPEN.
        (State::OpenSent, _, E::BgpOpen(o)) => open_received(config, &o),

        // OpenConfirm and Established: KEEPALIVEs both ways.
        (State::OpenConfirm | State::Established, Some(n), E::KeepaliveTimerExpires) => stay(vec![
            Action::Send(Message::Keepalive),
            Action::StartTimer(Timer::Keepalive, n.keepalive),
        ]),
        (State::OpenConfirm, Some(n), E::KeepAliveMsg) => {
            let mut actions: Vec<Action> = vec![];
            actions.extend(restart_hold(&n));
            if n.hold.is_zero() {
                actions.push(Action::StopTimer(Timer::Hold));
            }
            // RFC 9687 §3.3: the SendHoldTimer starts with Established (before, the
            // Hold Timer bounds each state).
            actions.push(Action::SendHold(send_hold_time(
                config.send_hold_time,
                n.hold,
            )));
            actions.push(Action::Log("Established".into()));
            actions.push(Action::Established(n));
            (
                Fsm {
                    state: State::Established,
                    negotiated: Some(n),
                },
                actions,
            )
        }
        (State::Established, Some(n), E::KeepAliveMsg) => {
            stay(restart_hold(&n).into_iter().collect())
        }
        (State::Established, Some(n), E::UpdateMsg(u)) => {
            let mut actions: Vec<Action> = restart_hold(&n).into_iter().collect();
            actions.push(Action::Update(u));
            stay(actions)
        }
        // RFC 2918 §4 / RFC 7313 §4: for the RIB (a request, or the neighbour's
        // BoRR / EoRR); an unknown subtype is ignored (RFC 7313 §5).
        (State::Established, Some(n), E::RouteRefreshMsg(rr)) if n.route_refresh => {
            let mut actions: Vec<Action> = restart_hold(&n).into_iter().collect();
            if let Subtype::Other(v) = rr.subtype {
                actions.push(Action::Log(format!(
                    "ROUTE-REFRESH of unknown subtype {v} ignored (RFC 7313 §5)"
                )));
            } else {
                actions.push(Action::RouteRefresh(rr));
            }
            stay(actions)
        }
        // RFC 7606 in Established: the codec's verdict.
        (State::Established, Some(n), E::UpdateMsgErr(e)) => {
            let text = MessageError::Update((*e).clone()).to_string();
            let mut actions: Vec<Action> = restart_hold(&n).into_iter().collect();
            match (e.action(), e.salvage()) {
                (Rfc7606::TreatAsWithdraw, salvage) => {
                    let prefixes = salvage
                        .map(|s| s.announced().chain(s.withdrawn_all()).collect())
                        .unwrap_or_default();
                    actions.push(Action::Log(format!("treat-as-withdraw (RFC 7606): {text}")));
                    actions.push(Action::TreatAsWithdraw(prefixes));
                }
                (Rfc7606::AttributeDiscard, salvage) => {
                    actions.push(Action::Log(format!("attribute discard (RFC 7606): {text}")));
                    actions.extend(salvage.map(|s| Action::Update(Box::new(s.clone()))));
                }
                (Rfc7606::SessionReset, _) => {
                    return close(config, e.notification(), format!("received: {text}"))
                }
            }
            stay(actions)
        }
        // Before Established every malformed UPDATE ends the session, with the
        // NOTIFICATION of a session reset (none for the others, RFC 7606 §3 a).
        (_, _, E::UpdateMsgErr(e)) => {
            let text = MessageError::Update((*e).clone()).to_string();
            close(config, e.notification(), format!("received: {text}"))
        }

        // Anything else is a Finite State Machine Error (RFC 4271 §6.6): a message
        // in the wrong state, or a timer that does not run in it.
        (state, _, event) => {
            let what = match message_type(&event) {
                Some(t) => format!("{t:?}"),
                None => format!("{event:?}"),
            };
            close(
                config,
                Some(Notification::new(
                    ErrorCode::FiniteStateMachine,
                    u8::from(FsmSubcode::Unspecified),
                    vec![],
                )),
                format!("{what} in {}", state.name()),
            )
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn config(options: Options) -> Config {
        Config {
            local_as: 65_000,
            router_id: Ipv4Addr::new(192, 0, 2, 1),
            hold_time: 90,
            connect_retry: Duration::from_secs(5),
            send_hold_time: None,
            remote_as: 65_001,
            passive: false,
            bgpsec: false,
            families: Default::default(),
            options,
        }
    }

    const ALL: Options = Options {
        extended_messages: true,
        route_refresh: true,
        enhanced_route_refresh: true,
        graceful_restart: Some(120),
    };

    /// The session of `config` taken to Established with a neighbour whose OPEN
    /// carries `caps`; the OPEN this speaker sent.
    fn established(config: &Config, caps: Vec<Capability<'static>>) -> (Fsm, Open<'static>) {
        let (fsm, _) = step(config, Fsm::default(), Event::ManualStart);
        let (fsm, actions) = step(config, fsm, Event::TcpCrAcked);
        let sent = actions
            .iter()
            .find_map(|a| match a {
                Action::Send(Message::Open(o)) => Some(o.clone()),
                _ => None,
            })
            .unwrap();
        let theirs = Open::new(65_001, 90, Ipv4Addr::new(192, 0, 2, 2), caps);
        let (fsm, _) = step(config, fsm, Event::BgpOpen(Box::new(theirs)));
        let (fsm, _) = step(config, fsm, Event::KeepAliveMsg);
        assert_eq!(fsm.state, State::Established);
        (fsm, sent)
    }

    fn framed(t: u8, body: &[u8]) -> Vec<u8> {
        let mut v = vec![0xff; 16];
        v.extend_from_slice(&((body.len() + HEADER_LEN) as u16).to_be_bytes());
        v.push(t);
        v.extend_from_slice(body);
        v
    }

    /// An UPDATE of `len` octets: one unknown optional transitive attribute.
    fn long_update(len: usize) -> Vec<u8> {
        let value = len - HEADER_LEN - 2 - 2 - 4;
        let mut body = vec![0, 0];
        body.extend_from_slice(&((value + 4) as u16).to_be_bytes());
        body.extend_from_slice(&[0xd0, 99]);
        body.extend_from_slice(&(value as u16).to_be_bytes());
        body.extend(std::iter::repeat_n(0u8, value));
        let m = framed(2, &body);
        assert_eq!(m.len(), len);
        m
    }

    #[test]
    fn rfc_8654_extended_messages_both_ways_only_when_both_announce() {
        let ext = || vec![empty_capability(EXTENDED_MESSAGE_CAPABILITY)];
        let (fsm, sent) = established(&config(ALL), ext());
        // §3: capability code 6, length 0, in the OPEN.
        assert!(announced(sent.capabilities(), EXTENDED_MESSAGE_CAPABILITY));
        let n = fsm.negotiated.unwrap();
        assert!(n.extended_messages);
        assert_eq!(n.max_message_len(), 65_535);
        // §4: an UPDATE over 4096 is taken on such a session …
        let big = long_update(10_000);
        assert!(matches!(received_on(&big, &fsm), Event::UpdateMsg(_)));
        assert!(matches!(
            received_on(&long_update(65_535), &fsm),
            Event::UpdateMsg(_)
        ));
        // … and is Bad Message Length where the neighbour did not announce it …
        let (plain, _) = established(&config(ALL), vec![]);
        assert!(!plain.negotiated.unwrap().extended_messages);
        assert_eq!(plain.negotiated.unwrap().max_message_len(), 4096);
        let Event::BgpHeaderErr(Some(note), _) = received_on(&big, &plain) else {
            panic!("not a header error")
        };
        assert_eq!(
            (note.code, note.subcode, &note.data[..]),
            (1, 2, &[0x27, 0x10][..])
        );
        // … or where this speaker did not (the bare RFC 4271 session).
        let (bare, sent) = established(&config(Options::default()), ext());
        assert!(!announced(sent.capabilities(), EXTENDED_MESSAGE_CAPABILITY));
        assert!(!bare.negotiated.unwrap().extended_messages);
        assert!(matches!(received_on(&big, &bare), Event::BgpHeaderErr(..)));
        assert!(matches!(
            received_on(&long_update(4096), &bare),
            Event::UpdateMsg(_)
        ));
    }

    #[test]
    fn rfc_2918_and_7313_route_refresh_reaches_the_rib() {
        let caps = || {
            vec![
                empty_capability(ROUTE_REFRESH_CAPABILITY),
                empty_capability(ENHANCED_ROUTE_REFRESH_CAPABILITY),
            ]
        };
        let c = config(ALL);
        let (fsm, sent) = established(&c, caps());
        for code in [ROUTE_REFRESH_CAPABILITY, ENHANCED_ROUTE_REFRESH_CAPABILITY] {
            assert!(announced(sent.capabilities(), code), "{code}");
        }
        let n = fsm.negotiated.unwrap();
        assert!(n.route_refresh && n.enhanced_route_refresh);
        // RFC 2918 §3: AFI 1, Reserved 0, SAFI 1.
        let request = framed(5, &[0, 1, 0, 1]);
        let event = received_on(&request, &fsm);
        let rr = RouteRefresh::new(1, 1, Subtype::Request);
        assert_eq!(event, Event::RouteRefreshMsg(rr));
        let (after, actions) = step(&c, fsm, event);
        assert_eq!(after, fsm);
        assert_eq!(
            actions,
            vec![
                Action::StartTimer(Timer::Hold, Duration::from_secs(90)),
                Action::RouteRefresh(rr)
            ]
        );
        // RFC 7313 §5: an unknown subtype is ignored; a length other than 23 is
        // ROUTE-REFRESH Message Error / Invalid Message Length.
        let (_, actions) = step(&c, fsm, received_on(&framed(5, &[0, 1, 9, 1]), &fsm));
        assert!(!actions.iter().any(|a| matches!(a, Action::RouteRefresh(_))));
        assert!(actions
            .iter()
            .any(|a| matches!(a, Action::Log(l) if l.contains("subtype 9"))));
        let (idle, actions) = step(&c, fsm, received_on(&framed(5, &[0, 1, 1, 1, 0]), &fsm));
        assert_eq!(idle.state, State::Idle);
        assert!(actions.iter().any(|a| matches!(a,
            Action::Close { notification: Some(n), .. } if (n.code, n.subcode) == (7, 1))));
        // Route Refresh only (no enhanced): negotiated without BoRR/EoRR.
        let (rr_only, _) = established(&c, vec![empty_capability(ROUTE_REFRESH_CAPABILITY)]);
        let n = rr_only.negotiated.unwrap();
        assert!(n.route_refresh && !n.enhanced_route_refresh);
        // Not negotiated: type 5 is an unknown message type (RFC 4271 §6.1, Bad
        // Message Type, the type as data).
        let (none, _) = established(&c, vec![]);
        let Event::BgpHeaderErr(Some(note), _) = received_on(&request, &none) else {
            panic!("not a header error")
        };
        assert_eq!((note.code, note.subcode, &note.data[..]), (1, 3, &[5][..]));
        // And never before Established: an FSM error.
        let (open_sent, _) = step(&c, Fsm::default(), Event::ManualStart);
        let (open_sent, _) = step(&c, open_sent, Event::TcpCrAcked);
        let (idle, _) = step(&c, open_sent, Event::RouteRefreshMsg(rr));
        assert_eq!(idle.state, State::Idle);
    }

    #[test]
    fn rfc_4724_helper_capability_and_the_neighbours_restart_time() {
        let c = config(ALL);
        let theirs = GracefulRestart {
            restart_state: false,
            restart_time: 30,
            families: vec![(1, 1, true)],
        };
        let (fsm, sent) = established(&c, vec![theirs.capability()]);
        // §3: a helper announces Restart State 0, its Restart Time and no family.
        assert_eq!(
            GracefulRestart::find(sent.capabilities()),
            Some(GracefulRestart {
                restart_state: false,
                restart_time: 120,
                families: vec![]
            })
        );
        assert_eq!(
            fsm.negotiated.unwrap().graceful_restart,
            Some(Duration::from_secs(30))
        );
        assert!(fsm.negotiated.unwrap().end_of_rib);
        // Without IPv4 unicast among the neighbour's families nothing is kept
        // (§4.2), nor when this speaker does not announce the capability.
        let v6 = GracefulRestart {
            families: vec![(2, 1, true)],
            ..theirs.clone()
        };
        let (fsm, _) = established(&c, vec![v6.capability()]);
        assert_eq!(fsm.negotiated.unwrap().graceful_restart, None);
        assert!(
            fsm.negotiated.unwrap().end_of_rib,
            "§4.1: End-of-RIB all the same"
        );
        let (fsm, sent) = established(&config(Options::default()), vec![theirs.capability()]);
        assert_eq!(fsm.negotiated.unwrap().graceful_restart, None);
        assert!(!fsm.negotiated.unwrap().end_of_rib);
        assert!(!announced(sent.capabilities(), GRACEFUL_RESTART_CAPABILITY));
    }

    #[test]
    fn send_hold_time_follows_rfc_9687() {
        let secs = Duration::from_secs;
        // Twice the negotiated Hold Time (more than it, §3.4), without §5's
        // suggested 8-minute floor.
        assert_eq!(send_hold_time(None, secs(9)), Some(secs(18)));
        assert_eq!(send_hold_time(None, secs(90)), Some(secs(180)));
        assert_eq!(send_hold_time(None, secs(300)), Some(secs(600)));
        // §3.3: none with a negotiated Hold Time of 0, or a SendHoldTime of 0.
        assert_eq!(send_hold_time(None, secs(0)), None);
        assert_eq!(send_hold_time(Some(0), secs(90)), None);
        assert_eq!(send_hold_time(Some(10), secs(0)), None);
        assert_eq!(send_hold_time(Some(10), secs(9)), Some(secs(10)));
    }

    /// RFC 4271 §8.2.2, Event 23 (OpenCollisionDump) in OpenSent and OpenConfirm:
    /// NOTIFICATION Cease / Connection Collision Resolution (RFC 4486 §4, subcode 7),
    /// the connection dropped, Idle; in Connect (no connection yet) straight to Idle.
    #[test]
    fn rfc_4271_8_2_2_open_collision_dump_sends_cease_7_and_goes_idle() {
        let c = config(Options::default());
        let (connect, _) = step(&c, Fsm::default(), Event::ManualStart);
        let (open_sent, _) = step(&c, connect, Event::TcpCrAcked);
        let theirs = Open::new(65_001, 90, Ipv4Addr::new(192, 0, 2, 2), vec![]);
        let (open_confirm, _) = step(&c, open_sent, Event::BgpOpen(Box::new(theirs)));
        assert_eq!(open_confirm.state, State::OpenConfirm);
        for fsm in [open_sent, open_confirm] {
            let (next, actions) = step(&c, fsm, Event::OpenCollisionDump);
            assert_eq!(next, Fsm::default(), "{:?}", fsm.state);
            let note = actions
                .iter()
                .find_map(|a| match a {
                    Action::Close { notification, .. } => notification.clone(),
                    _ => None,
                })
                .unwrap();
            assert_eq!((note.code, note.subcode), (6, 7), "{:?}", fsm.state);
            assert!(actions.contains(&Action::StopTimer(Timer::Hold)));
        }
        let (next, actions) = step(&c, connect, Event::OpenCollisionDump);
        assert_eq!(next.state, State::Idle);
        assert!(actions.contains(&Action::StopTimer(Timer::ConnectRetry)));
        assert!(!actions.iter().any(|a| matches!(a, Action::Close { .. })));
    }
}
