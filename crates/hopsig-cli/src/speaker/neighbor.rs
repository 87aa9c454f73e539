//! One BGP session: the RFC 4271 §8 finite state machine over a tokio TCP stream.
//!
//! Idle → Connect (active) or Active (passive) → OpenSent → OpenConfirm →
//! Established; any error sends the NOTIFICATION RFC 4271 §6 names, closes the
//! connection and goes back to Idle, and the ConnectRetry timer starts the next try.
//! The Hold Timer starts at 4 minutes in OpenSent (§8.2.2, "a large value"), then
//! runs at the negotiated Hold Time (the smaller of both OPENs'); KEEPALIVEs go out
//! every third of it (§4.4). Malformed UPDATEs are handled as RFC 7606 says: treat as
//! withdraw and attribute discard keep the session.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use hopsig_bgp::packet::{
    Action, AsWidth, BgpsecCapability, Capability, Direction, ErrorCode, Header, Message,
    MultiprotocolCapability, Notification, Open, HEADER_LEN,
};
use hopsig_primitives::codec::Reader;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::mpsc::{self, Receiver, UnboundedSender};
use tokio::time::{sleep, sleep_until, timeout};

use super::config::Neighbor;
use super::events::{Event, State, Up};

/// Hold Timer in OpenSent (RFC 4271 §8.2.2: "suggested value … is 4 minutes").
const OPEN_HOLD: Duration = Duration::from_secs(240);
/// IPv4 (RFC 4760 AFI 1).
const AFI_IPV4: u16 = 1;

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
}

/// Why a session ended, as logged and shown in the status file.
type Ended = String;

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
    loop {
        let stream = if n.passive {
            let _ = rib.send(Event::State(id, State::Active));
            match incoming.recv().await {
                Some(s) => s,
                None => return,
            }
        } else {
            let _ = rib.send(Event::State(id, State::Connect));
            match timeout(local.connect_retry, connect(&n)).await {
                Ok(Ok(s)) => s,
                Ok(Err(e)) => {
                    let _ = rib.send(Event::State(id, State::Idle));
                    log(&n, format_args!("connect: {e}"));
                    sleep(local.connect_retry).await;
                    continue;
                }
                Err(_) => continue,
            }
        };
        let why = session(id, &n, &local, stream, &rib).await;
        log(&n, format_args!("session closed: {why}"));
        let _ = rib.send(Event::Down(id, why));
        let _ = rib.send(Event::State(id, State::Idle));
        // Connections that arrived meanwhile are stale.
        while incoming.try_recv().is_ok() {}
        sleep(local.connect_retry).await;
    }
}

async fn connect(n: &Neighbor) -> std::io::Result<TcpStream> {
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
    crate::io::note(format_args!(
        "hopsig speaker: neighbor {} AS{}: {what}",
        n.address, n.remote_as
    ));
}

/// The capabilities this speaker announces to `n`: 4-octet AS (in [`Open::new`]),
/// IPv4 unicast, and for a BGPsec neighbour BGPsec send and receive for IPv4.
fn capabilities(n: &Neighbor) -> Vec<Capability<'static>> {
    let mut caps = vec![Capability::Multiprotocol(MultiprotocolCapability {
        afi: AFI_IPV4,
        reserved: 0,
        safi: 1,
    })];
    if n.bgpsec {
        for d in [Direction::Send, Direction::Receive] {
            caps.push(Capability::Bgpsec(BgpsecCapability::new(
                d,
                hopsig_bgp::packet::Afi::Ipv4,
            )));
        }
    }
    caps
}

/// Whether `open` announces the BGPsec capability `direction` for IPv4, version 0.
fn announces(open: &Open<'_>, direction: Direction) -> bool {
    open.capabilities().any(|c| {
        matches!(c, Capability::Bgpsec(b)
            if b.version == 0 && b.direction == direction && b.afi == AFI_IPV4)
    })
}

/// A message from the reader task: the whole message, or why framing failed.
type Frame = Result<Vec<u8>, (Option<Notification<'static>>, String)>;

/// Reads whole messages (header, then Length − 19 octets) and passes them on; a
/// separate task so that the FSM's select loop never cancels a read half-way.
async fn reader(mut rd: tokio::net::tcp::OwnedReadHalf, tx: mpsc::Sender<Frame>) {
    loop {
        let mut header = [0u8; HEADER_LEN];
        if let Err(e) = rd.read_exact(&mut header).await {
            let _ = tx.send(Err((None, format!("read: {e}")))).await;
            return;
        }
        let h = match Header::read(&mut Reader::new(&header)) {
            Ok(h) => h,
            Err(e) => {
                let _ = tx.send(Err((e.notification(), e.to_string()))).await;
                return;
            }
        };
        let mut message = vec![0u8; h.length()];
        message[..HEADER_LEN].copy_from_slice(&header);
        if let Err(e) = rd.read_exact(&mut message[HEADER_LEN..]).await {
            let _ = tx.send(Err((None, format!("read: {e}")))).await;
            return;
        }
        if tx.send(Ok(message)).await.is_err() {
            return;
        }
    }
}

async fn send(
    wr: &mut tokio::net::tcp::OwnedWriteHalf,
    m: &Message<'_>,
    width: AsWidth,
) -> Result<(), Ended> {
    let bytes = m.encoding(width).map_err(|e| format!("encode: {e}"))?;
    wr.write_all(&bytes)
        .await
        .map_err(|e| format!("write: {e}"))
}

/// Sends `n` (if any) and gives the reason the session ends.
async fn fail(
    wr: &mut tokio::net::tcp::OwnedWriteHalf,
    n: Option<Notification<'static>>,
    why: String,
) -> Ended {
    if let Some(n) = n {
        let _ = send(wr, &Message::Notification(n), AsWidth::Four).await;
    }
    let _ = wr.shutdown().await;
    why
}

/// One connection from OpenSent to its end.
async fn session(
    id: usize,
    n: &Neighbor,
    local: &Local,
    stream: TcpStream,
    rib: &UnboundedSender<Event>,
) -> Ended {
    let _ = stream.set_nodelay(true);
    let (rd, mut wr) = stream.into_split();
    let (frames_tx, mut frames) = mpsc::channel(64);
    let reader = tokio::spawn(reader(rd, frames_tx));
    let why = fsm(id, n, local, &mut wr, &mut frames, rib).await;
    reader.abort();
    why
}

async fn fsm(
    id: usize,
    n: &Neighbor,
    local: &Local,
    wr: &mut tokio::net::tcp::OwnedWriteHalf,
    frames: &mut Receiver<Frame>,
    rib: &UnboundedSender<Event>,
) -> Ended {
    let open = Open::new(local.asn, local.hold_time, local.router_id, capabilities(n));
    if let Err(e) = send(wr, &Message::Open(open), AsWidth::Four).await {
        return e;
    }
    let _ = rib.send(Event::State(id, State::OpenSent));
    let mut state = State::OpenSent;
    let mut hold = OPEN_HOLD;
    let mut hold_deadline = tokio::time::Instant::now() + hold;
    let mut keepalive_every = Duration::from_secs(u64::from(local.hold_time / 3).max(1));
    let mut next_keepalive = tokio::time::Instant::now() + keepalive_every;
    let mut width = AsWidth::Four;
    let (out_tx, mut out) = mpsc::unbounded_channel::<Vec<u8>>();
    let mut out_tx = Some(out_tx);
    let mut up: Option<Up> = None;
    loop {
        tokio::select! {
            frame = frames.recv() => {
                let bytes = match frame {
                    Some(Ok(b)) => b,
                    Some(Err((notification, why))) => return fail(wr, notification, why).await,
                    None => return fail(wr, None, "connection closed".into()).await,
                };
                if !hold.is_zero() {
                    hold_deadline = tokio::time::Instant::now() + hold;
                }
                let at = Instant::now();
                let message = match Message::decode(&bytes, width) {
                    Ok(m) => m,
                    Err(e) => match (e.action(), &e) {
                        _ if state != State::Established => {
                            return fail(wr, e.notification(), format!("received: {e}")).await
                        }
                        (Action::TreatAsWithdraw, hopsig_bgp::packet::MessageError::Update(u)) => {
                            let prefixes = u.salvage().map(|s| s.announced().chain(s.withdrawn_all()).collect()).unwrap_or_default();
                            log(n, format_args!("treat-as-withdraw (RFC 7606): {e}"));
                            let _ = rib.send(Event::TreatAsWithdraw(id, prefixes));
                            continue;
                        }
                        (Action::AttributeDiscard, hopsig_bgp::packet::MessageError::Update(u)) => {
                            log(n, format_args!("attribute discard (RFC 7606): {e}"));
                            match u.salvage() {
                                Some(s) => Message::Update(s.clone()),
                                None => continue,
                            }
                        }
                        _ => return fail(wr, e.notification(), format!("received: {e}")).await,
                    },
                };
                match (state, message) {
                    (_, Message::Notification(note)) => {
                        return fail(wr, None, format!("NOTIFICATION received: code {} subcode {}", note.code, note.subcode)).await;
                    }
                    (State::OpenSent, Message::Open(o)) => {
                        if o.asn() != n.remote_as {
                            let note = Notification::new(ErrorCode::Open, 2, o.my_as.to_be_bytes().to_vec());
                            return fail(wr, Some(note), format!("OPEN from AS{}, expected AS{}", o.asn(), n.remote_as)).await;
                        }
                        let negotiated = o.hold_time.min(local.hold_time);
                        hold = Duration::from_secs(u64::from(negotiated));
                        keepalive_every = Duration::from_secs(u64::from(negotiated / 3).max(1));
                        let four = o.capabilities().any(|c| matches!(c, Capability::FourOctetAs(_)));
                        width = if four { AsWidth::Four } else { AsWidth::Two };
                        // RFC 8205 §2.2: BGPsec needs 4-octet AS numbers on both sides.
                        let bgpsec_send = n.bgpsec && four && announces(&o, Direction::Receive);
                        let bgpsec_receive = n.bgpsec && four && announces(&o, Direction::Send);
                        if let Err(e) = send(wr, &Message::Keepalive, width).await {
                            return e;
                        }
                        next_keepalive = tokio::time::Instant::now() + keepalive_every;
                        hold_deadline = tokio::time::Instant::now() + if hold.is_zero() { OPEN_HOLD } else { hold };
                        state = State::OpenConfirm;
                        let _ = rib.send(Event::State(id, state));
                        if let Some(tx) = out_tx.take() {
                            up = Some(Up { remote_as: o.asn(), width, bgpsec_send, bgpsec_receive, tx });
                        }
                    }
                    (State::OpenConfirm, Message::Keepalive) => {
                        state = State::Established;
                        let _ = rib.send(Event::State(id, state));
                        log(n, format_args!("Established"));
                        if let Some(u) = up.take() {
                            let _ = rib.send(Event::Up(id, u));
                        }
                    }
                    (State::Established, Message::Keepalive) => {}
                    (State::Established, Message::Update(u)) => {
                        let _ = rib.send(Event::Update(id, Box::new(u.into_owned()), at));
                    }
                    (s, m) => {
                        let note = Notification::new(ErrorCode::FiniteStateMachine, 0, vec![]);
                        return fail(wr, Some(note), format!("{:?} in {}", m.message_type(), s.name())).await;
                    }
                }
            }
            Some(bytes) = out.recv() => {
                if let Err(e) = wr.write_all(&bytes).await {
                    return format!("write: {e}");
                }
                if !keepalive_every.is_zero() {
                    next_keepalive = tokio::time::Instant::now() + keepalive_every;
                }
            }
            _ = sleep_until(hold_deadline), if !(hold.is_zero() && state == State::Established) => {
                let note = Notification::new(ErrorCode::HoldTimerExpired, 0, vec![]);
                return fail(wr, Some(note), "Hold Timer expired".into()).await;
            }
            _ = sleep_until(next_keepalive), if state != State::OpenSent && !hold.is_zero() => {
                if let Err(e) = send(wr, &Message::Keepalive, width).await {
                    return e;
                }
                next_keepalive = tokio::time::Instant::now() + keepalive_every;
            }
        }
    }
}
