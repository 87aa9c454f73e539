//! A minimal BGP session for `feed`: the RFC 4271 §8 state machine of the speaker
//! ([`crate::speaker::fsm::step`], the same pure function, OPEN with the 4-octet AS
//! capability, IPv4 unicast and — on a BGPsec session — the RFC 8205 §2 capability),
//! driven by a small shell of its own: it connects once (retrying until a deadline
//! while the router under test starts), keeps the session up (KEEPALIVEs, Hold Timer),
//! and hands what the peer sends to the caller; UPDATEs to send go through
//! [`Session::send`], as fast as TCP takes them.
//!
//! Unlike the speaker's shell there is no reconnection: a session that goes down
//! stays down and says why ([`Session::ended`]), since a feed run measures one
//! session.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use hopsig_primitives::codec::Reader;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::{sleep_until, Instant};

use crate::packet::{AsWidth, ErrorCode, Header, Message, Notification, Update, HEADER_LEN};
use crate::speaker::fsm::{self, Action, Fsm, Negotiated, Timer};

/// Batches of UPDATEs queued for the writer before [`Session::send`] waits: the
/// back-pressure that makes "as fast as the peer takes them".
const QUEUED_BATCHES: usize = 8;

/// Cease, Administrative Shutdown (RFC 4486 §4, subcode 2): how a feed ends.
const ADMINISTRATIVE_SHUTDOWN: u8 = 2;

/// One end of a session to a router under test.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// The router's address and port.
    pub peer: SocketAddr,
    /// The local address to bind (the router tells neighbours apart by address).
    pub local: Option<IpAddr>,
    /// This side's AS.
    pub local_as: u32,
    /// The router's AS, checked against its OPEN.
    pub remote_as: u32,
    /// The BGP Identifier.
    pub router_id: Ipv4Addr,
    /// Hold Time offered (seconds).
    pub hold_time: u16,
    /// Announce the BGPsec capability (send and receive, IPv4).
    pub bgpsec: bool,
    /// How long to keep trying to connect and to reach Established.
    pub connect_timeout: Duration,
}

/// Why a session could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// No TCP connection before the deadline.
    #[error("cannot connect to {peer}: {why}")]
    Connect {
        /// The router.
        peer: SocketAddr,
        /// The last error.
        why: String,
    },
    /// The session closed before Established.
    #[error("session with {peer} did not come up: {why}")]
    NotEstablished {
        /// The router.
        peer: SocketAddr,
        /// What the FSM said.
        why: String,
    },
    /// The session went down while UPDATEs were being sent.
    #[error("session with {peer} went down: {why}")]
    Down {
        /// The router.
        peer: SocketAddr,
        /// Why.
        why: String,
    },
}

/// What the writer task is handed.
enum Out {
    /// Whole messages, one after another.
    Bytes(Vec<u8>),
    /// Answered once everything queued before it is written.
    Flush(oneshot::Sender<()>),
    /// Write this (a NOTIFICATION), then shut the connection down.
    Close(Option<Vec<u8>>),
}

/// A session in Established.
pub struct Session {
    /// What the OPENs negotiated.
    pub negotiated: Negotiated,
    peer: SocketAddr,
    data: mpsc::Sender<Out>,
    control: mpsc::UnboundedSender<Out>,
    ended: watch::Receiver<Option<String>>,
}

impl Session {
    /// Connects to `config.peer` and runs the FSM to Established; UPDATEs the peer
    /// sends later go to `updates` (with their arrival time).
    ///
    /// # Errors
    /// [`SessionError::Connect`], [`SessionError::NotEstablished`].
    pub async fn open(
        config: SessionConfig,
        updates: mpsc::UnboundedSender<(Instant, Update<'static>)>,
    ) -> Result<Session, SessionError> {
        let peer = config.peer;
        let stream = connect(&config).await?;
        stream.set_nodelay(true).ok();
        let (read, write) = stream.into_split();
        let (data_tx, data_rx) = mpsc::channel(QUEUED_BATCHES);
        let (control_tx, control_rx) = mpsc::unbounded_channel();
        let (frames_tx, frames_rx) = mpsc::channel(64);
        let (ended_tx, ended_rx) = watch::channel(None);
        let (up_tx, up_rx) = oneshot::channel();
        let writer = tokio::spawn(write_loop(write, control_rx, data_rx));
        tokio::spawn(read_frames(read, frames_tx));
        let fsm_config = fsm::Config {
            local_as: config.local_as,
            router_id: config.router_id,
            hold_time: config.hold_time,
            connect_retry: config.connect_timeout,
            send_hold_time: Some(0),
            remote_as: config.remote_as,
            passive: false,
            bgpsec: config.bgpsec,
            // IPv4 unicast, and none of the optional session capabilities: the feed
            // replays, it neither refreshes nor restarts.
            families: Default::default(),
            options: Default::default(),
        };
        let shell = Shell {
            config: fsm_config,
            fsm: Fsm::default(),
            timers: [None; Timer::ALL.len()],
            control: control_tx.clone(),
            updates,
            up: Some(up_tx),
            ended: ended_tx,
        };
        tokio::spawn(shell.run(frames_rx, writer));
        let deadline = tokio::time::timeout(config.connect_timeout, up_rx).await;
        match deadline {
            Ok(Ok(Ok(negotiated))) => Ok(Session {
                negotiated,
                peer,
                data: data_tx,
                control: control_tx,
                ended: ended_rx,
            }),
            Ok(Ok(Err(why))) => Err(SessionError::NotEstablished { peer, why }),
            Ok(Err(_)) => Err(SessionError::NotEstablished {
                peer,
                why: "session task ended".into(),
            }),
            Err(_) => Err(SessionError::NotEstablished {
                peer,
                why: format!("no Established within {:?}", config.connect_timeout),
            }),
        }
    }

    /// Queues `bytes` (whole messages) to be written; waits while
    /// [`QUEUED_BATCHES`] batches are queued.
    ///
    /// # Errors
    /// [`SessionError::Down`] once the session has ended.
    pub async fn send(&self, bytes: Vec<u8>) -> Result<(), SessionError> {
        if let Some(why) = self.ended() {
            return Err(self.down(why));
        }
        self.data
            .send(Out::Bytes(bytes))
            .await
            .map_err(|_| self.down(self.ended().unwrap_or_else(|| "writer ended".into())))
    }

    /// Waits until everything queued is written to the socket.
    ///
    /// # Errors
    /// [`SessionError::Down`] if the session ended first.
    pub async fn flush(&self) -> Result<(), SessionError> {
        let (tx, rx) = oneshot::channel();
        let gone = || self.down(self.ended().unwrap_or_else(|| "writer ended".into()));
        self.data.send(Out::Flush(tx)).await.map_err(|_| gone())?;
        rx.await.map_err(|_| gone())
    }

    /// Why the session ended, once it has.
    pub fn ended(&self) -> Option<String> {
        self.ended.borrow().clone()
    }

    /// Waits at most `wait` for the session to end; why it ended, if it did.
    pub async fn wait_ended(&mut self, wait: Duration) -> Option<String> {
        let ended = &mut self.ended;
        let _ = tokio::time::timeout(wait, ended.wait_for(Option::is_some)).await;
        self.ended()
    }

    /// Ends the session with a Cease NOTIFICATION (Administrative Shutdown).
    pub fn close(&self) {
        let n = Notification::new(ErrorCode::Cease, ADMINISTRATIVE_SHUTDOWN, vec![]);
        let bytes = Message::Notification(n).encoding(AsWidth::Four).ok();
        let _ = self.control.send(Out::Close(bytes));
    }

    fn down(&self, why: String) -> SessionError {
        SessionError::Down {
            peer: self.peer,
            why,
        }
    }
}

/// A TCP connection to the router, retried every 200 ms until the deadline (a
/// router under test may still be starting).
async fn connect(config: &SessionConfig) -> Result<TcpStream, SessionError> {
    let deadline = Instant::now() + config.connect_timeout;
    loop {
        let attempt = async {
            let socket = if config.peer.is_ipv4() {
                TcpSocket::new_v4()?
            } else {
                TcpSocket::new_v6()?
            };
            if let Some(ip) = config.local {
                socket.bind(SocketAddr::new(ip, 0))?;
            }
            socket.connect(config.peer).await
        };
        match attempt.await {
            Ok(s) => return Ok(s),
            Err(e) if Instant::now() >= deadline => {
                return Err(SessionError::Connect {
                    peer: config.peer,
                    why: e.to_string(),
                })
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// Writes control messages ahead of queued UPDATE batches.
async fn write_loop(
    mut w: OwnedWriteHalf,
    mut control: mpsc::UnboundedReceiver<Out>,
    mut data: mpsc::Receiver<Out>,
) -> std::io::Result<()> {
    loop {
        let out = tokio::select! {
            biased;
            c = control.recv() => c,
            d = data.recv() => d,
        };
        match out {
            Some(Out::Bytes(b)) => w.write_all(&b).await?,
            Some(Out::Flush(done)) => {
                w.flush().await?;
                let _ = done.send(());
            }
            Some(Out::Close(last)) => {
                if let Some(b) = last {
                    let _ = w.write_all(&b).await;
                }
                let _ = w.shutdown().await;
                return Ok(());
            }
            None => return Ok(()),
        }
    }
}

/// Reads whole messages (RFC 4271 §4.1 framing: the header's Length); a header that
/// does not decode is handed on alone, for the FSM's Event 21.
async fn read_frames(mut r: OwnedReadHalf, tx: mpsc::Sender<Result<Vec<u8>, String>>) {
    loop {
        let mut m = vec![0u8; HEADER_LEN];
        if let Err(e) = r.read_exact(&mut m).await {
            let _ = tx.send(Err(e.to_string())).await;
            return;
        }
        let length = match Header::read(&mut Reader::new(&m)) {
            Ok(h) => h.length(),
            Err(_) => {
                let _ = tx.send(Ok(m)).await;
                return;
            }
        };
        m.resize(length, 0);
        if let Err(e) = r.read_exact(&mut m[HEADER_LEN..]).await {
            let _ = tx.send(Err(e.to_string())).await;
            return;
        }
        if tx.send(Ok(m)).await.is_err() {
            return;
        }
    }
}

/// The FSM and its timers.
struct Shell {
    config: fsm::Config,
    fsm: Fsm,
    timers: [Option<Instant>; Timer::ALL.len()],
    control: mpsc::UnboundedSender<Out>,
    updates: mpsc::UnboundedSender<(Instant, Update<'static>)>,
    up: Option<oneshot::Sender<Result<Negotiated, String>>>,
    ended: watch::Sender<Option<String>>,
}

impl Shell {
    /// Runs the FSM from its start (the connection is already made: Event 16
    /// follows Event 1) until it closes the session.
    async fn run(
        mut self,
        mut frames: mpsc::Receiver<Result<Vec<u8>, String>>,
        mut writer: tokio::task::JoinHandle<std::io::Result<()>>,
    ) {
        let mut pending = vec![fsm::Event::ManualStart, fsm::Event::TcpCrAcked];
        pending.reverse();
        loop {
            while let Some(event) = pending.pop() {
                let (next, actions) = fsm::step(&self.config, self.fsm, event);
                self.fsm = next;
                for a in actions {
                    if let Some(why) = self.perform(a) {
                        self.finish(why);
                        return;
                    }
                }
            }
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
            let event = tokio::select! {
                t = timer => {
                    self.timers[t as usize] = None;
                    t.expired()
                }
                f = frames.recv() => match f {
                    Some(Ok(bytes)) => fsm::received(&bytes, self.fsm.width()),
                    Some(Err(e)) => fsm::Event::TcpConnectionFails(e),
                    None => fsm::Event::TcpConnectionFails("connection closed".into()),
                },
                w = &mut writer => fsm::Event::TcpConnectionFails(match w {
                    Ok(Ok(())) => "closed".into(),
                    Ok(Err(e)) => format!("write: {e}"),
                    Err(e) => format!("writer: {e}"),
                }),
            };
            pending.push(event);
        }
    }

    /// Performs `action`; why the session ended if it did.
    fn perform(&mut self, action: Action) -> Option<String> {
        match action {
            // The connection exists before the FSM starts.
            // Route Refresh is not announced, so no request can arrive.
            Action::Connect | Action::Accept | Action::SendHold(_) | Action::RouteRefresh(_) => {}
            Action::Send(m) => match m.encoding(self.fsm.width()) {
                Ok(b) => {
                    let _ = self.control.send(Out::Bytes(b));
                }
                Err(e) => return Some(format!("encode: {e}")),
            },
            Action::StartTimer(t, d) => self.timers[t as usize] = Some(Instant::now() + d),
            Action::StopTimer(t) => self.timers[t as usize] = None,
            Action::Log(line) => tracing::info!("feed: session: {line}"),
            Action::Established(n) => {
                if let Some(up) = self.up.take() {
                    let _ = up.send(Ok(n));
                }
            }
            Action::Update(u) => {
                let _ = self.updates.send((Instant::now(), *u));
            }
            Action::TreatAsWithdraw(prefixes) => {
                tracing::warn!(
                    "feed: the router sent a malformed UPDATE: {} routes treated as withdrawn",
                    prefixes.len()
                );
            }
            Action::Close {
                notification,
                reason,
            } => {
                let bytes = notification
                    .and_then(|n| Message::Notification(n).encoding(self.fsm.width()).ok());
                let _ = self.control.send(Out::Close(bytes));
                return Some(reason);
            }
        }
        None
    }

    fn finish(mut self, why: String) {
        if let Some(up) = self.up.take() {
            let _ = up.send(Err(why.clone()));
        }
        let _ = self.ended.send(Some(why));
    }
}
