//! One BGP session's I/O shell: the tokio TCP connection, the timers and the
//! output queue around the pure RFC 4271 §8 state machine ([`super::fsm`]), which
//! decides every transition. The shell turns what happens — a connection made or
//! accepted, a message read, a timer expired, the writer ended — into an
//! [`fsm::Event`], steps the FSM, and performs the [`fsm::Action`]s.
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
use tokio::io::AsyncReadExt;
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::mpsc::{self, Receiver, UnboundedSender};
use tokio::task::JoinHandle;
use tokio::time::{sleep_until, timeout};

use super::config::Neighbor;
use super::events::{Event, Features, Up};
use super::family;
use super::fsm::{self, Action, Fsm, State, Timer};
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

/// Runs the session with neighbour number `id` for ever: connects (or takes the
/// connections the listener hands over on `incoming`), runs the FSM, and after a
/// failure waits ConnectRetry and starts again.
pub async fn run(
    id: usize,
    n: Neighbor,
    local: Local,
    mut incoming: Receiver<TcpStream>,
    rib: UnboundedSender<Event>,
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
    };
    let mut pending = VecDeque::from([fsm::Event::ManualStart]);
    loop {
        while let Some(event) = pending.pop_front() {
            let (next, actions) = fsm::step(&config, shell.fsm, event);
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
                    pending.push_back(e);
                }
            }
        }
        pending.push_back(shell.next_event(&mut incoming).await);
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
}

impl Shell<'_> {
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

    /// Waits for the next thing that happens, as an FSM event.
    async fn next_event(&mut self, incoming: &mut Receiver<TcpStream>) -> fsm::Event {
        match self.next(incoming).await {
            Happened::Timer(t) => {
                self.timers[t as usize] = None;
                t.expired()
            }
            Happened::Connected(done) => {
                self.connecting = None;
                match done {
                    Ok(Ok(stream)) => {
                        self.conn = Some(Conn::open(stream, self.id, self.rib));
                        fsm::Event::TcpCrAcked
                    }
                    Ok(Err(e)) => fsm::Event::TcpConnectionFails(e.to_string()),
                    Err(e) => fsm::Event::TcpConnectionFails(e.to_string()),
                }
            }
            Happened::Accepted(stream) => {
                self.accepting = false;
                self.conn = Some(Conn::open(stream, self.id, self.rib));
                fsm::Event::TcpConnectionConfirmed
            }
            Happened::Frame(Some(Ok(bytes))) => fsm::received_on(&bytes, &self.fsm),
            Happened::Frame(Some(Err(event))) => event,
            Happened::Frame(None) => fsm::Event::TcpConnectionFails("connection closed".into()),
            Happened::WriterEnded(ended) => fsm::Event::TcpConnectionFails(match ended {
                Ok(Ok(())) => "writer ended".into(),
                Ok(Err(why)) => why,
                Err(e) => format!("writer: {e}"),
            }),
        }
    }

    /// Waits for the first of: a timer, the connection attempt, the listener's
    /// connection (Active), a message or the reader's end, the writer's end.
    async fn next(&mut self, incoming: &mut Receiver<TcpStream>) -> Happened {
        let deadline = self
            .timers
            .iter()
            .zip(Timer::ALL)
            .filter_map(|(d, t)| d.map(|d| (d, t)))
            .min();
        let timer = async {
            match deadline {
                Some((d, t)) => {
                    sleep_until(d).await;
                    t
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
        let accepting = self.accepting;
        let accept = async {
            match (accepting, incoming.recv().await) {
                (true, Some(s)) => s,
                // The listener is gone: nothing will ever connect.
                _ => std::future::pending().await,
            }
        };
        tokio::select! {
            t = timer => Happened::Timer(t),
            done = connecting => Happened::Connected(done),
            s = accept, if accepting => Happened::Accepted(s),
            f = frame => Happened::Frame(f),
            w = writer_ended => Happened::WriterEnded(w),
        }
    }
}

/// What the shell waited for.
enum Happened {
    Timer(Timer),
    Connected(Result<std::io::Result<TcpStream>, tokio::task::JoinError>),
    Accepted(TcpStream),
    Frame(Option<Frame>),
    WriterEnded(Result<Result<(), String>, tokio::task::JoinError>),
}

impl Conn {
    /// Starts the reader and writer tasks of `stream`.
    fn open(stream: TcpStream, id: usize, rib: &UnboundedSender<Event>) -> Conn {
        let _ = stream.set_nodelay(true);
        let local = stream.local_addr().ok();
        let (rd, wr) = stream.into_split();
        let (frames_tx, frames) = mpsc::channel(64);
        let limits = Arc::new(Limits::default());
        let reader = tokio::spawn(reader(rd, frames_tx, Arc::clone(&limits)));
        let (outbox, link) = outbox::channel(QUEUE_BYTES);
        let writer = tokio::spawn(link.clone().writer(wr, id, rib.clone()));
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
/// separate task so that the FSM's select loop never cancels a read half-way.
async fn reader(
    mut rd: tokio::net::tcp::OwnedReadHalf,
    tx: mpsc::Sender<Frame>,
    limits: Arc<Limits>,
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
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max: AtomicUsize::new(MAX_MESSAGE_LEN),
            route_refresh: AtomicBool::new(false),
        }
    }
}

impl Limits {
    fn set(&self, n: &fsm::Negotiated) {
        self.max.store(n.max_message_len(), Ordering::Release);
        self.route_refresh.store(n.route_refresh, Ordering::Release);
    }

    fn max(&self) -> usize {
        self.max.load(Ordering::Acquire)
    }

    fn route_refresh(&self) -> bool {
        self.route_refresh.load(Ordering::Acquire)
    }
}
