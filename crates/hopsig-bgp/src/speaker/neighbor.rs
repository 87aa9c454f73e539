//! One BGP session: the RFC 4271 §8 finite state machine over a tokio TCP stream.
//!
//! Idle → Connect (active) or Active (passive) → OpenSent → OpenConfirm →
//! Established; any error sends the NOTIFICATION RFC 4271 §6 names, closes the
//! connection and goes back to Idle, and the ConnectRetry timer starts the next try.
//! The Hold Timer starts at 4 minutes in OpenSent (§8.2.2, "a large value"), then
//! runs at the negotiated Hold Time (the smaller of both OPENs'); KEEPALIVEs go out
//! every third of it (§4.4). Malformed UPDATEs are handled as RFC 7606 says: treat as
//! withdraw and attribute discard keep the session. Writes go through a writer
//! task ([`super::outbox`]): the FSM never waits for the neighbour to read.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use crate::packet::{
    Action, AsWidth, BgpsecCapability, Capability, Direction, ErrorCode, Header, Message,
    MultiprotocolCapability, Notification, Open, HEADER_LEN,
};
use hopsig_primitives::codec::Reader;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::mpsc::{self, Receiver, UnboundedSender};
use tokio::task::JoinHandle;
use tokio::time::{sleep, sleep_until, timeout};

use super::config::Neighbor;
use super::events::{Event, State, Up};
use super::outbox::{self, Link, Outbox, QUEUE_BYTES};

/// Hold Timer in OpenSent (RFC 4271 §8.2.2: "suggested value … is 4 minutes").
const OPEN_HOLD: Duration = Duration::from_secs(240);
/// Longest wait, once the session ends, for the NOTIFICATION to be written.
const CLOSE_WAIT: Duration = Duration::from_secs(2);
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
    /// Send Hold Time configured, seconds, 0 for none [default: twice the negotiated
    /// Hold Time].
    pub send_hold_time: Option<u32>,
}

/// The Send Hold Time of a session whose negotiated Hold Time is `hold`, with
/// `configured` (seconds) if set: RFC 9687 §3.3 stops the SendHoldTimer when the
/// SendHoldTime or the negotiated Hold Time is 0. The default is twice the negotiated
/// Hold Time: §3.4 wants more than the Hold Time, and issue 22 wants a neighbour that
/// takes nothing reset on the Hold Time's scale, not after §5's suggested 8-minute
/// floor (an operator who wants that floor configures 480).
fn send_hold_time(configured: Option<u32>, hold: Duration) -> Option<Duration> {
    let d = match configured {
        Some(s) => Duration::from_secs(u64::from(s)),
        None => 2 * hold,
    };
    (!d.is_zero() && !hold.is_zero()).then_some(d)
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
    tracing::info!(
        "hopsig speaker: neighbor {} AS{}: {what}",
        n.address,
        n.remote_as
    );
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
                crate::packet::Afi::Ipv4,
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

/// Queues the FSM's own message `m` (OPEN, KEEPALIVE) for the writer.
fn queue(link: &Link, m: &Message<'_>, width: AsWidth) -> Result<(), Ending> {
    let bytes = m
        .encoding(width)
        .map_err(|e| (None, format!("encode: {e}")))?;
    link.control(bytes);
    Ok(())
}

/// How a session ends: the NOTIFICATION to send, if any, and why.
type Ending = (Option<Notification<'static>>, Ended);

/// One connection from OpenSent to its end: a reader task, a writer task
/// ([`outbox::Link::writer`]), and the FSM between them, which waits for neither.
async fn session(
    id: usize,
    n: &Neighbor,
    local: &Local,
    stream: TcpStream,
    rib: &UnboundedSender<Event>,
) -> Ended {
    let _ = stream.set_nodelay(true);
    let (rd, wr) = stream.into_split();
    let (frames_tx, mut frames) = mpsc::channel(64);
    let reader = tokio::spawn(reader(rd, frames_tx));
    let (outbox, link) = outbox::channel(QUEUE_BYTES);
    let mut writer = tokio::spawn(link.clone().writer(wr, id, rib.clone()));
    let (note, why) = fsm(id, n, local, &link, outbox, &mut writer, &mut frames, rib).await;
    if !writer.is_finished() {
        let last = note.and_then(|m| Message::Notification(m).encoding(AsWidth::Four).ok());
        link.close(last);
        // The NOTIFICATION goes after what is being written; a neighbour that takes
        // nothing does not hold the session up longer than CLOSE_WAIT.
        if timeout(CLOSE_WAIT, &mut writer).await.is_err() {
            writer.abort();
        }
    }
    reader.abort();
    why
}

#[allow(clippy::too_many_arguments)]
async fn fsm(
    id: usize,
    n: &Neighbor,
    local: &Local,
    link: &Link,
    outbox: Outbox,
    writer: &mut JoinHandle<Result<(), String>>,
    frames: &mut Receiver<Frame>,
    rib: &UnboundedSender<Event>,
) -> Ending {
    let open = Open::new(local.asn, local.hold_time, local.router_id, capabilities(n));
    if let Err(e) = queue(link, &Message::Open(open), AsWidth::Four) {
        return e;
    }
    let _ = rib.send(Event::State(id, State::OpenSent));
    let mut state = State::OpenSent;
    let mut hold = OPEN_HOLD;
    let mut hold_deadline = tokio::time::Instant::now() + hold;
    let mut keepalive_every = Duration::from_secs(u64::from(local.hold_time / 3).max(1));
    let mut next_keepalive = tokio::time::Instant::now() + keepalive_every;
    let mut width = AsWidth::Four;
    let mut out_tx = Some(outbox);
    let mut up: Option<Up> = None;
    loop {
        tokio::select! {
            frame = frames.recv() => {
                let bytes = match frame {
                    Some(Ok(b)) => b,
                    Some(Err((notification, why))) => return (notification, why),
                    None => return (None, "connection closed".into()),
                };
                if !hold.is_zero() {
                    hold_deadline = tokio::time::Instant::now() + hold;
                }
                let at = Instant::now();
                let message = match Message::decode(&bytes, width) {
                    Ok(m) => m,
                    Err(e) => match (e.action(), &e) {
                        _ if state != State::Established => {
                            return (e.notification(), format!("received: {e}"))
                        }
                        (Action::TreatAsWithdraw, crate::packet::MessageError::Update(u)) => {
                            let prefixes = u.salvage().map(|s| s.announced().chain(s.withdrawn_all()).collect()).unwrap_or_default();
                            log(n, format_args!("treat-as-withdraw (RFC 7606): {e}"));
                            let _ = rib.send(Event::TreatAsWithdraw(id, prefixes));
                            continue;
                        }
                        (Action::AttributeDiscard, crate::packet::MessageError::Update(u)) => {
                            log(n, format_args!("attribute discard (RFC 7606): {e}"));
                            match u.salvage() {
                                Some(s) => Message::Update(s.clone()),
                                None => continue,
                            }
                        }
                        _ => return (e.notification(), format!("received: {e}")),
                    },
                };
                match (state, message) {
                    (_, Message::Notification(note)) => {
                        return (None, format!("NOTIFICATION received: code {} subcode {}", note.code, note.subcode));
                    }
                    (State::OpenSent, Message::Open(o)) => {
                        if o.asn() != n.remote_as {
                            let note = Notification::new(ErrorCode::Open, 2, o.my_as.to_be_bytes().to_vec());
                            return (Some(note), format!("OPEN from AS{}, expected AS{}", o.asn(), n.remote_as));
                        }
                        let negotiated = o.hold_time.min(local.hold_time);
                        hold = Duration::from_secs(u64::from(negotiated));
                        keepalive_every = Duration::from_secs(u64::from(negotiated / 3).max(1));
                        let four = o.capabilities().any(|c| matches!(c, Capability::FourOctetAs(_)));
                        width = if four { AsWidth::Four } else { AsWidth::Two };
                        // RFC 8205 §2.2: BGPsec needs 4-octet AS numbers on both sides.
                        let bgpsec_send = n.bgpsec && four && announces(&o, Direction::Receive);
                        let bgpsec_receive = n.bgpsec && four && announces(&o, Direction::Send);
                        if let Err(e) = queue(link, &Message::Keepalive, width) {
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
                        // RFC 9687 §3.3: the SendHoldTimer starts with Established
                        // (before, the Hold Timer bounds each state).
                        link.set_send_hold(send_hold_time(local.send_hold_time, hold));
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
                        return (Some(note), format!("{:?} in {}", m.message_type(), s.name()));
                    }
                }
            }
            ended = &mut *writer => {
                let why = match ended {
                    Ok(Ok(())) => "writer ended".into(),
                    Ok(Err(why)) => why,
                    Err(e) => format!("writer: {e}"),
                };
                return (None, why);
            }
            _ = sleep_until(hold_deadline), if !(hold.is_zero() && state == State::Established) => {
                let note = Notification::new(ErrorCode::HoldTimerExpired, 0, vec![]);
                return (Some(note), "Hold Timer expired".into());
            }
            _ = sleep_until(next_keepalive), if state != State::OpenSent && !hold.is_zero() => {
                if let Err(e) = queue(link, &Message::Keepalive, width) {
                    return e;
                }
                next_keepalive = tokio::time::Instant::now() + keepalive_every;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
