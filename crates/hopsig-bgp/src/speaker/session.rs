//! One BGP session's I/O shell: the tokio TCP connection, the timers and the
//! output queue around the pure RFC 4271 §8 state machine ([`super::fsm`]), which
//! decides every transition. The shell turns what happens — a connection made or
//! accepted, a message read, a timer expired, the writer ended — into an
//! [`fsm::Event`], steps the FSM, and performs the [`fsm::Action`]s.
//!
//! A connection the neighbour opens while the session has one under way (Connect,
//! OpenSent, OpenConfirm) runs beside it through its own FSM ([`Leg`]) until
//! [`collision::resolve`] closes one of the two (RFC 4271 §6.8); one arriving in
//! Established, or while there are two, is refused with Cease / Connection Collision
//! Resolution at once.
//!
//! A reader task reads whole messages, so the select loop never cancels a read
//! half-way; writes go through a writer task ([`super::outbox`]): the FSM never waits
//! for the neighbour to read, and a blocked socket never blocks a timer.

use std::collections::VecDeque;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::packet::route_refresh::ROUTE_REFRESH_TYPE;
use crate::packet::{
    AsWidth, Header, HeaderError, Message, NextHop, Notification, HEADER_LEN, MAX_MESSAGE_LEN,
};
use hopsig_primitives::codec::Reader;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::mpsc::{self, Receiver, UnboundedSender};
use tokio::task::JoinHandle;
use tokio::time::{sleep_until, timeout};

use super::collision::{self, Initiated, Loser};
use super::config::Neighbor;
use super::events::{Event, Features, Up};
use super::family;
use super::fsm::{self, Action, Fsm, State, Timer};
use super::logs;
use super::metrics::{Messages, SessionMessages};
use super::outbox::{self, Link, Outbox, QUEUE_BYTES};

/// Longest wait, once the session ends, for the NOTIFICATION to be written.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// What a session knows of its own side.
#[derive(Debug, Clone)]
pub struct Local {
    /// The local AS.
    pub asn: u32,
    /// The BGP Identifier.
    pub router_id: Ipv4Addr,
    /// Hold Time offered.
    pub hold_time: u16,
    /// ConnectRetry timer.
    pub connect_retry: Duration,
    /// Send Hold Time configured, seconds, 0 for none [default: twice the negotiated
    /// Hold Time].
    pub send_hold_time: Option<u32>,
    /// The next hop of IPv6 routes configured for this neighbour (RFC 2545 §3);
    /// `None`: the connection's local address if it is IPv6.
    pub next_hop6: Option<NextHop>,
}

/// Why the speaker ends a session for good (a reload, docs/spec/speaker.md
/// "Reload"): the NOTIFICATION to send (Cease, RFC 4486 §4) and the reason logged
/// and shown.
#[derive(Debug, Clone)]
pub struct Stop {
    /// The NOTIFICATION sent on each open connection.
    pub notification: Notification<'static>,
    /// Why, for the log and the status file.
    pub reason: String,
}

/// Runs the session with neighbour number `id` until `stop` says so (for ever if
/// its sender is dropped): connects (or takes the connections the listener hands
/// over on `incoming`), runs the FSM, and after a failure waits ConnectRetry and
/// starts again.
pub async fn run(
    id: usize,
    n: Neighbor,
    local: Local,
    mut incoming: Receiver<TcpStream>,
    rib: UnboundedSender<Event>,
    mut stop: Receiver<Stop>,
) {
    let config = fsm::Config {
        local_as: local.asn,
        router_id: local.router_id,
        hold_time: local.hold_time,
        connect_retry: local.connect_retry,
        send_hold_time: local.send_hold_time,
        remote_as: n.remote_as,
        passive: n.passive,
        bgpsec: n.bgpsec,
        families: n.families(),
        options: fsm::Options {
            extended_messages: n.extended_messages,
            route_refresh: n.route_refresh,
            enhanced_route_refresh: n.enhanced_route_refresh,
            graceful_restart: n.graceful_restart,
        },
    };
    let mut shell = Shell {
        id,
        n: &n,
        rib: &rib,
        fsm: Fsm::default(),
        timers: [None; Timer::ALL.len()],
        connecting: None,
        accepting: false,
        conn: None,
        next_hop6: local.next_hop6,
        hold_down: None,
        outgoing: false,
        remote_id: None,
        second: None,
        messages: SessionMessages::new(&n.address.to_string()),
    };
    let mut pending = VecDeque::from([(To::Session, fsm::Event::ManualStart)]);
    loop {
        while let Some((to, event)) = pending.pop_front() {
            // §6.8 on the receipt of an OPEN, before it is answered with a KEEPALIVE:
            // the loser closes now (this connection in OpenSent, Event 23).
            let (to, event) = match shell.open_collision(&config, to, &event) {
                Some(loser) if loser != to => {
                    pending.push_front((to, event));
                    (loser, fsm::Event::OpenCollisionDump)
                }
                Some(_) => (to, fsm::Event::OpenCollisionDump),
                None => (to, event),
            };
            if let fsm::Event::NotifMsg(note) = &event {
                logs::notification_received(&n.address, note);
            }
            if to == To::Second {
                shell.step_second(&config, event).await;
                pending.extend(shell.collision(&config));
                continue;
            }
            if let fsm::Event::BgpOpen(o) = &event {
                shell.remote_id = Some(o.bgp_identifier);
            }
            let (next, actions) = fsm::step(&config, shell.fsm, event);
            if next.state != shell.fsm.state {
                let reason = actions.iter().find_map(|a| match a {
                    Action::Close { reason, .. } => Some(reason.as_str()),
                    _ => None,
                });
                logs::session_state(&n.address, n.remote_as, shell.fsm.state, next.state, reason);
            }
            if next.state != shell.fsm.state || next.state == State::Connect {
                let _ = rib.send(Event::State(id, next.state));
            }
            // Before the KEEPALIVE that lets the neighbour send UPDATEs goes out, the
            // reader takes what was negotiated (RFC 8654 §4, RFC 2918 §4).
            if let (Some(n), Some(conn)) = (next.negotiated, shell.conn.as_ref()) {
                conn.limits.set(&n);
            }
            shell.fsm = next;
            for action in actions {
                if let Some(e) = shell.perform(action, &mut incoming).await {
                    pending.push_back((To::Session, e));
                }
            }
            // The session's connection is gone: the second one, if any, carries on.
            if shell.fsm.state == State::Idle && shell.promote(&mut incoming).await {
                for (to, _) in pending.iter_mut() {
                    *to = To::Session;
                }
            }
            pending.extend(shell.collision(&config));
        }
        // Between events only: a stop never cuts the FSM's actions short.
        let stopped = tokio::select! {
            e = shell.next_event(&mut incoming) => {
                pending.push_back(e);
                None
            }
            Some(s) = stop.recv() => Some(s),
        };
        if let Some(s) = stopped {
            shell.stop(s).await;
            return;
        }
    }
}

/// A connection from OpenSent on: its reader and writer tasks and output queue.
struct Conn {
    link: Link,
    /// What the reader accepts, as negotiated.
    limits: Arc<Limits>,
    /// The RIB's end of the output queue, until Established hands it over.
    outbox: Option<Outbox>,
    writer: JoinHandle<Result<(), String>>,
    reader: JoinHandle<()>,
    frames: Receiver<Frame>,
    /// The connection's local address (the default IPv6 next hop, RFC 2545 §3).
    local: Option<SocketAddr>,
}

/// The shell's state around the FSM.
struct Shell<'a> {
    id: usize,
    n: &'a Neighbor,
    rib: &'a UnboundedSender<Event>,
    fsm: Fsm,
    /// Each running timer's deadline, by [`Timer::ALL`] index.
    timers: [Option<tokio::time::Instant>; Timer::ALL.len()],
    /// The connection attempt under way (Connect).
    connecting: Option<JoinHandle<std::io::Result<TcpStream>>>,
    /// Waiting for the listener's next connection (Active).
    accepting: bool,
    conn: Option<Conn>,
    /// The IPv6 next hop configured ([`Local::next_hop6`]).
    next_hop6: Option<NextHop>,
    /// The RIB ended the session for its prefix limit ([`Outbox::cease`]): the
    /// IdleHoldTimer that follows runs this long, or never (`Some(None)`: the session
    /// stays in Idle until the speaker restarts, RFC 4486).
    hold_down: Option<Option<Duration>>,
    /// The session's connection is the one this speaker opened (RFC 4271 §6.8).
    outgoing: bool,
    /// The BGP Identifier of the last OPEN received on the session's connection.
    remote_id: Option<Ipv4Addr>,
    /// A second connection the neighbour opened, until the collision is resolved.
    second: Option<Leg>,
    /// The neighbour's message counters (`/metrics`).
    messages: SessionMessages,
}

/// Which connection an FSM event is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum To {
    /// The session's connection (the one the RIB knows).
    Session,
    /// The second connection ([`Shell::second`]).
    Second,
}

/// A second connection of the session (RFC 4271 §6.8: "each connection … has its
/// own state machine"), opened by the neighbour: its FSM runs OPEN and KEEPALIVE only
/// — the RIB hears of it if it replaces the session's.
struct Leg {
    fsm: Fsm,
    conn: Conn,
    timers: [Option<tokio::time::Instant>; Timer::ALL.len()],
    remote_id: Option<Ipv4Addr>,
    /// Established on this connection: handed to the RIB once it is the session's.
    up: Option<fsm::Negotiated>,
}

impl Shell<'_> {
    /// The reader and writer tasks of a new connection `stream` of this session.
    fn open(&self, stream: TcpStream) -> Conn {
        Conn::open(
            stream,
            self.id,
            self.rib,
            &self.messages.sent,
            self.n.remote_as,
        )
    }

    /// Performs `action`; an event when performing it failed.
    async fn perform(
        &mut self,
        action: Action,
        incoming: &mut Receiver<TcpStream>,
    ) -> Option<fsm::Event> {
        match action {
            Action::Connect => {
                if let Some(old) = self.connecting.take() {
                    old.abort();
                }
                self.connecting = Some(tokio::spawn(connect(self.n.clone())));
            }
            Action::Accept => self.accepting = true,
            Action::Send(m) => {
                let conn = self.conn.as_ref()?;
                match m.encoding(self.fsm.width()) {
                    Ok(bytes) => conn.link.control(bytes),
                    Err(e) => return Some(fsm::Event::TcpConnectionFails(format!("encode: {e}"))),
                }
            }
            Action::StartTimer(t, d) => {
                self.timers[t as usize] = Some(tokio::time::Instant::now() + d);
                if t == Timer::IdleHold {
                    if let Some(hold) = self.hold_down.take() {
                        self.timers[t as usize] =
                            hold.map(|h| tokio::time::Instant::now() + h.max(d));
                    }
                }
            }
            Action::StopTimer(t) => {
                self.timers[t as usize] = None;
                if t == Timer::ConnectRetry {
                    if let Some(c) = self.connecting.take() {
                        c.abort();
                    }
                }
            }
            Action::Log(line) => log(self.n, format_args!("{line}")),
            Action::SendHold(d) => {
                if let Some(conn) = &self.conn {
                    conn.link.set_send_hold(d);
                }
            }
            Action::Established(negotiated) => {
                let conn = self.conn.as_mut()?;
                let tx = conn.outbox.take()?;
                let next_hop6 = self
                    .next_hop6
                    .or_else(|| family::transport_next_hop(conn.local));
                let up = Up {
                    remote_as: negotiated.remote_as,
                    width: negotiated.width,
                    bgpsec_send: negotiated.bgpsec_send,
                    bgpsec_receive: negotiated.bgpsec_receive,
                    tx,
                    afis: negotiated.afis,
                    next_hop6,
                    features: Features::from(&negotiated),
                };
                let _ = self.rib.send(Event::Up(self.id, up));
            }
            Action::Update(u) => {
                let _ = self.rib.send(Event::Update(self.id, u, Instant::now()));
            }
            Action::TreatAsWithdraw(prefixes) => {
                let _ = self.rib.send(Event::TreatAsWithdraw(self.id, prefixes));
            }
            Action::RouteRefresh(rr) => {
                let _ = self.rib.send(Event::RouteRefresh(self.id, rr));
            }
            Action::Close {
                notification,
                mut reason,
            } => {
                // The RIB ended it (a prefix limit): its NOTIFICATION went out, and
                // its reason is the session's, however the connection ended.
                if let Some((why, hold)) = self.conn.as_ref().and_then(|c| c.link.ceased()) {
                    (reason, self.hold_down) = (why, Some(hold));
                }
                if let Some(conn) = self.conn.take() {
                    if let Some(note) = &notification {
                        logs::notification_sent(&self.n.address, note, &reason);
                    }
                    conn.close(notification).await;
                }
                log(self.n, format_args!("session closed: {reason}"));
                let _ = self.rib.send(Event::Down(self.id, reason));
                // Connections that arrived meanwhile are stale.
                while incoming.try_recv().is_ok() {}
            }
        }
        None
    }

    /// Ends the session for good: each connection gets `stop`'s NOTIFICATION (as
    /// RFC 4271 §8.2.2's ManualStop sends Cease), the RIB hears Idle and the
    /// session's end (its routes are withdrawn).
    async fn stop(&mut self, stop: Stop) {
        if let Some(c) = self.connecting.take() {
            c.abort();
        }
        if let Some(leg) = self.second.take() {
            leg.conn.close(Some(stop.notification.clone())).await;
        }
        if let Some(conn) = self.conn.take() {
            conn.close(Some(stop.notification)).await;
        }
        log(self.n, format_args!("session closed: {}", stop.reason));
        let _ = self.rib.send(Event::State(self.id, State::Idle));
        let _ = self.rib.send(Event::Down(self.id, stop.reason));
    }

    /// Waits for the next thing that happens, as an FSM event for one of the
    /// connections.
    async fn next_event(&mut self, incoming: &mut Receiver<TcpStream>) -> (To, fsm::Event) {
        loop {
            let event = match self.next(incoming).await {
                Happened::Timer(To::Session, t) => {
                    self.timers[t as usize] = None;
                    t.expired()
                }
                Happened::Timer(To::Second, t) => {
                    if let Some(leg) = self.second.as_mut() {
                        leg.timers[t as usize] = None;
                    }
                    return (To::Second, t.expired());
                }
                Happened::Connected(done) => {
                    self.connecting = None;
                    match done {
                        Ok(Ok(stream)) => {
                            self.conn = Some(self.open(stream));
                            self.outgoing = true;
                            fsm::Event::TcpCrAcked
                        }
                        Ok(Err(e)) => fsm::Event::TcpConnectionFails(e.to_string()),
                        Err(e) => fsm::Event::TcpConnectionFails(e.to_string()),
                    }
                }
                Happened::Accepted(stream) if self.accepting => {
                    self.accepting = false;
                    self.conn = Some(self.open(stream));
                    self.outgoing = false;
                    fsm::Event::TcpConnectionConfirmed
                }
                Happened::Accepted(stream) => {
                    if self.second.is_none()
                        && matches!(
                            self.fsm.state,
                            State::Connect | State::OpenSent | State::OpenConfirm
                        )
                    {
                        self.second = Some(Leg {
                            fsm: Fsm {
                                state: State::Active,
                                negotiated: None,
                            },
                            conn: self.open(stream),
                            timers: [None; Timer::ALL.len()],
                            remote_id: None,
                            up: None,
                        });
                        return (To::Second, fsm::Event::TcpConnectionConfirmed);
                    }
                    refuse(self.n, stream, self.fsm.state);
                    continue;
                }
                Happened::Frame(to, frame) => {
                    let fsm = match (to, self.second.as_ref()) {
                        (To::Second, Some(leg)) => &leg.fsm,
                        _ => &self.fsm,
                    };
                    let event = match frame {
                        Some(Ok(bytes)) => {
                            self.messages.received.count(&bytes);
                            fsm::received_on(&bytes, fsm)
                        }
                        Some(Err(event)) => event,
                        None => fsm::Event::TcpConnectionFails("connection closed".into()),
                    };
                    return (to, event);
                }
                Happened::WriterEnded(to, ended) => {
                    return (
                        to,
                        fsm::Event::TcpConnectionFails(match ended {
                            Ok(Ok(())) => "writer ended".into(),
                            Ok(Err(why)) => why,
                            Err(e) => format!("writer: {e}"),
                        }),
                    )
                }
            };
            return (To::Session, event);
        }
    }

    /// Steps the second connection's FSM with `event` and performs its actions:
    /// messages and timers on that connection; its Established held back
    /// ([`Leg::up`]); its end closes it, with no word to the RIB.
    async fn step_second(&mut self, config: &fsm::Config, event: fsm::Event) {
        let Some(leg) = self.second.as_mut() else {
            return;
        };
        if let fsm::Event::BgpOpen(o) = &event {
            leg.remote_id = Some(o.bgp_identifier);
        }
        let (next, actions) = fsm::step(config, leg.fsm, event);
        if let Some(n) = next.negotiated {
            leg.conn.limits.set(&n);
        }
        leg.fsm = next;
        let mut closed = None;
        for action in actions {
            match action {
                Action::Send(m) => match m.encoding(leg.fsm.width()) {
                    Ok(bytes) => leg.conn.link.control(bytes),
                    Err(e) => closed = Some((None, format!("encode: {e}"))),
                },
                Action::StartTimer(t, d) => {
                    leg.timers[t as usize] = Some(tokio::time::Instant::now() + d);
                }
                Action::StopTimer(t) => leg.timers[t as usize] = None,
                Action::Log(line) => log(self.n, format_args!("second connection: {line}")),
                Action::SendHold(d) => leg.conn.link.set_send_hold(d),
                Action::Established(n) => leg.up = Some(n),
                Action::Close {
                    notification,
                    reason,
                } => closed = Some((notification, reason)),
                // Connect and Accept are the session's; UPDATEs and ROUTE-REFRESH
                // come in Established only, which the collision check ends at once.
                Action::Connect
                | Action::Accept
                | Action::Update(_)
                | Action::TreatAsWithdraw(_)
                | Action::RouteRefresh(_) => {}
            }
        }
        if let Some((notification, reason)) = closed {
            if let Some(leg) = self.second.take() {
                if let Some(note) = &notification {
                    logs::notification_sent(&self.n.address, note, &reason);
                }
                leg.conn.close(notification).await;
            }
            log(self.n, format_args!("second connection closed: {reason}"));
        }
    }

    /// The two connections as [`collision::resolve`] sees them: the session's and
    /// the second one.
    fn connections(&self, leg: &Leg) -> (collision::Connection, collision::Connection) {
        let older = collision::Connection {
            state: self.fsm.state,
            initiated: if self.outgoing {
                Initiated::Local
            } else {
                Initiated::Remote
            },
            remote_id: self.remote_id,
        };
        let newer = collision::Connection {
            state: leg.fsm.state,
            initiated: Initiated::Remote,
            remote_id: leg.remote_id,
        };
        (older, newer)
    }

    /// [`collision::resolve`] of `older` and `newer`, as the connection to close;
    /// logs a decision by the BGP Identifiers.
    fn decide(
        &self,
        config: &fsm::Config,
        older: collision::Connection,
        newer: collision::Connection,
    ) -> Option<To> {
        let speakers = collision::Speakers {
            local_id: config.router_id,
            local_as: config.local_as,
            remote_as: config.remote_as,
        };
        let loser = collision::resolve(speakers, older, newer)?;
        let lost = match loser {
            Loser::Older => older,
            Loser::Newer => newer,
        };
        if (older.state, newer.state) == (State::OpenConfirm, State::OpenConfirm) {
            log(
                self.n,
                format_args!(
                    "connection collision (RFC 4271 §6.8): BGP Identifiers {} (local) and {}: closing the {} connection {}",
                    config.router_id,
                    newer.remote_id.or(older.remote_id).map_or("?".into(), |i| i.to_string()),
                    if loser == Loser::Older { "older" } else { "newer" },
                    match lost.initiated {
                        Initiated::Local => "this speaker opened",
                        Initiated::Remote => "the neighbour opened",
                    }
                ),
            );
        }
        Some(match loser {
            Loser::Older => To::Session,
            Loser::Newer => To::Second,
        })
    }

    /// The connection to close now by RFC 4271 §6.8, after an event (a connection
    /// Established wins), as Event 23 for it.
    fn collision(&self, config: &fsm::Config) -> Option<(To, fsm::Event)> {
        let leg = self.second.as_ref()?;
        if self.fsm.state == State::Idle {
            return None;
        }
        let (older, newer) = self.connections(leg);
        let to = self.decide(config, older, newer)?;
        Some((to, fsm::Event::OpenCollisionDump))
    }

    /// The connection to close on the receipt of `event`, an OPEN on connection
    /// `to` in OpenSent, while the other one is in OpenConfirm or Established
    /// (§6.8: "upon receipt of an OPEN message, the local system MUST examine all of
    /// its connections that are in the OpenConfirm state"); decided before the OPEN
    /// is answered, so that the losing connection never gets a KEEPALIVE.
    fn open_collision(&self, config: &fsm::Config, to: To, event: &fsm::Event) -> Option<To> {
        let fsm::Event::BgpOpen(o) = event else {
            return None;
        };
        let leg = self.second.as_ref()?;
        if self.fsm.state == State::Idle {
            return None;
        }
        let (mut older, mut newer) = self.connections(leg);
        let this = match to {
            To::Session => &mut older,
            To::Second => &mut newer,
        };
        if this.state != State::OpenSent {
            return None;
        }
        this.state = State::OpenConfirm;
        this.remote_id = Some(o.bgp_identifier);
        self.decide(config, older, newer)
    }

    /// The session's connection ended (Idle): the second connection, if any,
    /// becomes the session's, in the state it reached; Established is handed to the
    /// RIB now. Whether there was one.
    async fn promote(&mut self, incoming: &mut Receiver<TcpStream>) -> bool {
        let Some(leg) = self.second.take() else {
            return false;
        };
        if let Some(c) = self.connecting.take() {
            c.abort();
        }
        self.accepting = false;
        logs::session_state(
            &self.n.address,
            self.n.remote_as,
            self.fsm.state,
            leg.fsm.state,
            None,
        );
        self.fsm = leg.fsm;
        self.conn = Some(leg.conn);
        self.timers = leg.timers;
        self.remote_id = leg.remote_id;
        self.outgoing = false;
        let _ = self.rib.send(Event::State(self.id, self.fsm.state));
        log(
            self.n,
            format_args!(
                "the second connection carries on in {} (RFC 4271 §6.8)",
                self.fsm.state.name()
            ),
        );
        if let Some(n) = leg.up {
            self.perform(Action::Established(n), incoming).await;
        }
        true
    }

    /// Waits for the first of: a timer, the connection attempt, the listener's
    /// connection (Active), a message or the reader's end, the writer's end.
    async fn next(&mut self, incoming: &mut Receiver<TcpStream>) -> Happened {
        let second_timers = self.second.as_ref().map(|l| l.timers).unwrap_or_default();
        let deadline = [(To::Session, self.timers), (To::Second, second_timers)]
            .into_iter()
            .flat_map(|(to, timers)| {
                timers
                    .into_iter()
                    .zip(Timer::ALL)
                    .filter_map(move |(d, t)| d.map(|d| (d, t, to)))
            })
            .min_by_key(|&(d, t, _)| (d, t));
        let timer = async {
            match deadline {
                Some((d, t, to)) => {
                    sleep_until(d).await;
                    (to, t)
                }
                None => std::future::pending().await,
            }
        };
        let connecting = self.connecting.as_mut();
        let connecting = async {
            match connecting {
                Some(c) => c.await,
                None => std::future::pending().await,
            }
        };
        let (frames, writer) = match self.conn.as_mut() {
            Some(c) => (Some(&mut c.frames), Some(&mut c.writer)),
            None => (None, None),
        };
        let frame = async {
            match frames {
                Some(f) => f.recv().await,
                None => std::future::pending().await,
            }
        };
        let writer_ended = async {
            match writer {
                Some(w) => w.await,
                None => std::future::pending().await,
            }
        };
        let (second_frames, second_writer) = match self.second.as_mut() {
            Some(l) => (Some(&mut l.conn.frames), Some(&mut l.conn.writer)),
            None => (None, None),
        };
        let second_frame = async {
            match second_frames {
                Some(f) => f.recv().await,
                None => std::future::pending().await,
            }
        };
        let second_writer_ended = async {
            match second_writer {
                Some(w) => w.await,
                None => std::future::pending().await,
            }
        };
        // Active takes the session's connection; Connect and later take a second
        // one (or refuse it); Idle leaves connections queued for the next start.
        let accepting = self.accepting || !matches!(self.fsm.state, State::Idle | State::Active);
        let accept = async {
            match (accepting, incoming.recv().await) {
                (true, Some(s)) => s,
                // The listener is gone: nothing will ever connect.
                _ => std::future::pending().await,
            }
        };
        tokio::select! {
            (to, t) = timer => Happened::Timer(to, t),
            done = connecting => Happened::Connected(done),
            s = accept, if accepting => Happened::Accepted(s),
            f = frame => Happened::Frame(To::Session, f),
            w = writer_ended => Happened::WriterEnded(To::Session, w),
            f = second_frame => Happened::Frame(To::Second, f),
            w = second_writer_ended => Happened::WriterEnded(To::Second, w),
        }
    }
}

/// What the shell waited for.
enum Happened {
    Timer(To, Timer),
    Connected(Result<std::io::Result<TcpStream>, tokio::task::JoinError>),
    Accepted(TcpStream),
    Frame(To, Option<Frame>),
    WriterEnded(To, Result<Result<(), String>, tokio::task::JoinError>),
}

impl Conn {
    /// Starts the reader and writer tasks of `stream`, a connection with a
    /// neighbour of AS `remote_as`.
    fn open(
        stream: TcpStream,
        id: usize,
        rib: &UnboundedSender<Event>,
        sent: &Arc<Messages>,
        remote_as: u32,
    ) -> Conn {
        let _ = stream.set_nodelay(true);
        let local = stream.local_addr().ok();
        let tap = super::mrt_dump::tap(remote_as, &stream);
        let (rd, wr) = stream.into_split();
        let (frames_tx, frames) = mpsc::channel(64);
        let limits = Arc::new(Limits::default());
        let reader = tokio::spawn(reader(rd, frames_tx, Arc::clone(&limits), tap));
        let (outbox, link) = outbox::channel(QUEUE_BYTES);
        let writer = tokio::spawn(link.clone().writer(wr, id, rib.clone(), Arc::clone(sent)));
        Conn {
            link,
            limits,
            outbox: Some(outbox),
            writer,
            reader,
            frames,
            local,
        }
    }

    /// Sends `last` after what is queued and closes: a neighbour that takes nothing
    /// does not hold the session up longer than [`CLOSE_WAIT`].
    async fn close(mut self, last: Option<Notification<'static>>) {
        if !self.writer.is_finished() {
            let last = last.and_then(|m| Message::Notification(m).encoding(AsWidth::Four).ok());
            self.link.close(last);
            if timeout(CLOSE_WAIT, &mut self.writer).await.is_err() {
                self.writer.abort();
            }
        }
        self.reader.abort();
    }
}

/// Closes a connection the neighbour opened while the session is Established, or
/// while it already has two: NOTIFICATION Cease / Connection Collision Resolution
/// (RFC 4271 §6.8, RFC 4486 §4), written within [`CLOSE_WAIT`], then closed.
fn refuse(n: &Neighbor, mut stream: TcpStream, state: State) {
    log(
        n,
        format_args!(
            "connection refused in {}: Cease / Connection Collision Resolution (RFC 4271 §6.8)",
            state.name()
        ),
    );
    let note = collision::notification();
    let Ok(bytes) = Message::Notification(note.clone()).encoding(AsWidth::Four) else {
        return;
    };
    logs::notification_sent(
        &n.address,
        &note,
        &format!("connection refused in {}", state.name()),
    );
    tokio::spawn(async move {
        let _ = timeout(CLOSE_WAIT, async {
            let _ = stream.write_all(&bytes).await;
            let _ = stream.shutdown().await;
        })
        .await;
    });
}

async fn connect(n: Neighbor) -> std::io::Result<TcpStream> {
    let to = SocketAddr::new(n.address, n.port);
    let socket = if to.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    if let Some(a) = n.local_address {
        socket.bind(SocketAddr::new(a, 0))?;
    }
    socket.connect(to).await
}

fn log(n: &Neighbor, what: std::fmt::Arguments<'_>) {
    tracing::info!(
        "hopsig speaker: neighbor {} AS{}: {what}",
        n.address,
        n.remote_as
    );
}

/// A message from the reader task: the whole message, or the event that ended
/// reading (a framing error, Event 21; a read failure, Event 18).
type Frame = Result<Vec<u8>, fsm::Event>;

/// Reads whole messages (header, then Length − 19 octets) and passes them on; a
/// separate task so that the FSM's select loop never cancels a read half-way. The
/// MRT dumps' `tap`, if any, sees each message as read.
async fn reader(
    mut rd: tokio::net::tcp::OwnedReadHalf,
    tx: mpsc::Sender<Frame>,
    limits: Arc<Limits>,
    tap: Option<super::mrt_dump::Tap>,
) {
    let failed = |e: std::io::Error| Err(fsm::Event::TcpConnectionFails(format!("read: {e}")));
    loop {
        let mut header = [0u8; HEADER_LEN];
        if let Err(e) = rd.read_exact(&mut header).await {
            let _ = tx.send(failed(e)).await;
            return;
        }
        let length = match Header::read_max(&mut Reader::new(&header), limits.max()) {
            Ok(h) => h.length(),
            // A ROUTE-REFRESH where Route Refresh was negotiated: framed here,
            // checked by [`fsm::received_on`].
            Err(HeaderError::BadType(ROUTE_REFRESH_TYPE)) if limits.route_refresh() => {
                usize::from(u16::from_be_bytes([header[16], header[17]])).max(HEADER_LEN)
            }
            Err(e) => {
                let event = fsm::Event::BgpHeaderErr(e.notification(), e.to_string());
                let _ = tx.send(Err(event)).await;
                return;
            }
        };
        let mut message = vec![0u8; length];
        message[..HEADER_LEN].copy_from_slice(&header);
        if let Err(e) = rd.read_exact(&mut message[HEADER_LEN..]).await {
            let _ = tx.send(failed(e)).await;
            return;
        }
        if let Some(t) = &tap {
            t.received(&message, limits.width());
        }
        if tx.send(Ok(message)).await.is_err() {
            return;
        }
    }
}

/// What the reader task accepts: the longest message and whether ROUTE-REFRESH is
/// a message type; set by the session when the neighbour's OPEN is taken, before
/// the KEEPALIVE after which the neighbour may send either (RFC 8654 §4, RFC 2918
/// §4). Before, RFC 4271's 4096 octets and four message types.
#[derive(Debug)]
struct Limits {
    max: AtomicUsize,
    route_refresh: AtomicBool,
    /// 2-octet AS numbers were negotiated (RFC 6793): for the MRT dumps.
    two_octet: AtomicBool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max: AtomicUsize::new(MAX_MESSAGE_LEN),
            route_refresh: AtomicBool::new(false),
            two_octet: AtomicBool::new(false),
        }
    }
}

impl Limits {
    fn set(&self, n: &fsm::Negotiated) {
        self.max.store(n.max_message_len(), Ordering::Release);
        self.route_refresh.store(n.route_refresh, Ordering::Release);
        self.two_octet
            .store(n.width == AsWidth::Two, Ordering::Release);
    }

    fn width(&self) -> AsWidth {
        if self.two_octet.load(Ordering::Acquire) {
            AsWidth::Two
        } else {
            AsWidth::Four
        }
    }

    fn max(&self) -> usize {
        self.max.load(Ordering::Acquire)
    }

    fn route_refresh(&self) -> bool {
        self.route_refresh.load(Ordering::Acquire)
    }
}
