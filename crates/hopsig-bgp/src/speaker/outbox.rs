//! A session's output (docs/spec/speaker.md, "Slow neighbours"): a byte-bounded
//! queue between the RIB task and the session's writer task, so that neither the
//! RIB nor the session's FSM ever waits for the neighbour's TCP window.
//!
//! * The RIB's end, [`Outbox`], never blocks. While the queue holds
//!   [`QUEUE_BYTES`] or more, an UPDATE is kept aside per prefix instead
//!   ("owed"): a later UPDATE of the same prefix replaces it, so what waits for a
//!   slow neighbour is bounded by the table size, not by how often routes change.
//!   When the writer has emptied the queue to half, it asks the RIB (an
//!   [`Event::Room`]) to move owed UPDATEs in.
//! * The session's end, [`Link`], runs the writer ([`Link::writer`]) and queues the
//!   FSM's own messages (OPEN, KEEPALIVE, NOTIFICATION), which are small and few and
//!   go in whatever the queue holds.
//! * The writer applies RFC 9687's SendHoldTimer: when the socket takes no byte for
//!   the Send Hold Time while data waits, it ends the session and resets the
//!   connection ([`expire`]); the queue and owed UPDATEs are then dropped.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::packet::{AsWidth, Message, Notification, Prefix};
use tokio::io::AsyncWriteExt;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::Notify;
use tokio::time::timeout;

use super::events::Event;
use super::metrics::Messages;

/// Bytes queued to one session beyond which UPDATEs are held per prefix.
pub const QUEUE_BYTES: usize = 1 << 20;

/// Most bytes handed to one `write` call.
const BATCH_BYTES: usize = 256 * 1024;

/// RFC 9687's error code "Send Hold Timer Expired" (not in RFC 4271's list,
/// hence not an [`crate::packet::ErrorCode`]).
pub const SEND_HOLD_TIMER_EXPIRED: u8 = 8;

/// What the RIB and the session share.
#[derive(Debug)]
struct Shared {
    queue: Mutex<Queue>,
    /// Wakes the writer when something is queued or the session closes.
    wake: Notify,
    limit: usize,
}

#[derive(Debug)]
struct Queue {
    messages: VecDeque<Vec<u8>>,
    /// Bytes of `messages` and of the batch being written.
    bytes: usize,
    /// An UPDATE was held back: send [`Event::Room`] when the queue is half empty.
    wants_room: bool,
    /// No more messages: the writer ends once the queue is written.
    closed: bool,
    /// How long the socket may take no byte while data waits (RFC 9687's
    /// SendHoldTime); `None`: no limit (before Established, or turned off).
    send_hold: Option<Duration>,
    /// The RIB ended the session ([`Outbox::cease`]): why, and how long the
    /// session stays down (`None`: until the speaker restarts).
    ceased: Option<(String, Option<Duration>)>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        // A panic elsewhere cannot leave the queue inconsistent: every update of it
        // is a few field assignments.
        self.queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Queues `bytes`; with `bounded`, gives them back when the queue is full (a
    /// message always goes into an empty queue, however long).
    fn push(&self, bytes: Vec<u8>, bounded: bool) -> Result<(), Vec<u8>> {
        let mut q = self.lock();
        if q.closed {
            return Ok(());
        }
        if bounded && q.bytes > 0 && q.bytes + bytes.len() > self.limit {
            q.wants_room = true;
            return Err(bytes);
        }
        q.bytes += bytes.len();
        q.messages.push_back(bytes);
        drop(q);
        self.wake.notify_one();
        Ok(())
    }
}

/// The RIB task's end of a session's output.
#[derive(Debug)]
pub struct Outbox {
    shared: Arc<Shared>,
    /// UPDATEs held back while the queue was full, the latest per prefix.
    owed: BTreeMap<Prefix, Owed>,
    /// Markers that must follow every UPDATE held back now ([`Outbox::after`]):
    /// queued once `owed` is empty.
    after_owed: Vec<Vec<u8>>,
}

/// A held-back UPDATE.
#[derive(Debug)]
struct Owed {
    bytes: Vec<u8>,
    /// Whether the last UPDATE of the prefix that went into the queue (before this
    /// one was held back) announced it: whether the neighbour holds, or will once
    /// the queue is written, a route for it. Without, a withdrawal of the prefix
    /// cancels the held-back UPDATE instead of replacing it, so that what is held
    /// back stays bounded by the table size whatever the churn.
    sent: bool,
}

impl Outbox {
    /// Queues the announcement `bytes` of `prefix`, or holds it back (replacing any
    /// UPDATE of `prefix` held back before) while the queue is full or UPDATEs are
    /// held back already, which keeps each prefix's UPDATEs in order. `sent`: the
    /// neighbour was sent an announcement of `prefix` that no withdrawal followed
    /// (the RIB's Adj-RIB-Out knows).
    pub fn announce(&mut self, prefix: Prefix, bytes: Vec<u8>, sent: bool) {
        self.hold_or_push(prefix, bytes, sent);
    }

    /// Queues (or holds back) the withdrawal `bytes` of `prefix`, which the
    /// neighbour was sent, or is owed, an announcement of. An owed announcement
    /// of a prefix the neighbour never got is cancelled instead: there is nothing
    /// to withdraw.
    pub fn withdraw(&mut self, prefix: Prefix, bytes: Vec<u8>) {
        if self.owed.get(&prefix).is_some_and(|o| !o.sent) {
            self.owed.remove(&prefix);
            return;
        }
        self.hold_or_push(prefix, bytes, true);
    }

    fn hold_or_push(&mut self, prefix: Prefix, bytes: Vec<u8>, sent: bool) {
        if let Some(o) = self.owed.get_mut(&prefix) {
            o.bytes = bytes;
            return;
        }
        if !self.owed.is_empty() {
            self.owed.insert(prefix, Owed { bytes, sent });
            return;
        }
        if let Err(bytes) = self.shared.push(bytes, true) {
            self.owed.insert(prefix, Owed { bytes, sent });
        }
    }

    /// Moves held-back UPDATEs into the queue until it is full again
    /// ([`Event::Room`]).
    pub fn refill(&mut self) {
        while let Some((prefix, owed)) = self.owed.pop_first() {
            if let Err(bytes) = self.shared.push(owed.bytes, true) {
                let sent = owed.sent;
                self.owed.insert(prefix, Owed { bytes, sent });
                return;
            }
        }
        for m in std::mem::take(&mut self.after_owed) {
            let _ = self.shared.push(m, false);
        }
    }

    /// Queues the message `bytes` — a marker such as an End-of-RIB (RFC 4724 §2) or
    /// EoRR (RFC 7313 §4) — after every UPDATE queued or held back so far: at once
    /// if none is held back, else once they all went into the queue. The neighbour
    /// reads it after what it closes.
    pub fn after(&mut self, bytes: Vec<u8>) {
        if self.owed.is_empty() {
            let _ = self.shared.push(bytes, false);
        } else {
            self.after_owed.push(bytes);
        }
    }

    /// Queues the message `bytes` at once, ahead of the UPDATEs held back: a BoRR
    /// (RFC 7313 §4), which must precede every UPDATE of the re-advertisement, or a
    /// ROUTE-REFRESH request (RFC 2918 §3).
    pub fn now(&mut self, bytes: Vec<u8>) {
        let _ = self.shared.push(bytes, false);
    }

    /// Bytes queued (and being written).
    pub fn queued_bytes(&self) -> usize {
        self.shared.lock().bytes
    }

    /// Prefixes whose UPDATE is held back.
    pub fn held_back(&self) -> usize {
        self.owed.len()
    }

    /// The RIB ends the session (a prefix limit, RFC 4486): the UPDATEs queued and
    /// held back are dropped, `notification` is written last, and then the writer
    /// ends with `reason`, which the session takes as the connection's end (RFC 4271
    /// Event 18, so no second NOTIFICATION); it then stays down for `hold_down`, or
    /// until the speaker restarts (`None`), before it starts again
    /// ([`Link::ceased`]).
    pub fn cease(&mut self, notification: Vec<u8>, reason: String, hold_down: Option<Duration>) {
        self.owed.clear();
        let mut q = self.shared.lock();
        if q.closed {
            return;
        }
        q.ceased = Some((reason, hold_down));
        drop(q);
        Link {
            shared: Arc::clone(&self.shared),
        }
        .close(Some(notification));
    }
}

/// The session task's end of its output.
#[derive(Debug, Clone)]
pub struct Link {
    shared: Arc<Shared>,
}

/// A session's output queue holding up to `limit` bytes of UPDATEs: the RIB's end
/// and the session's; no Send Hold Time until [`Link::set_send_hold`].
pub fn channel(limit: usize) -> (Outbox, Link) {
    let shared = Arc::new(Shared {
        queue: Mutex::new(Queue {
            messages: VecDeque::new(),
            bytes: 0,
            wants_room: false,
            closed: false,
            send_hold: None,
            ceased: None,
        }),
        wake: Notify::new(),
        limit,
    });
    let outbox = Outbox {
        shared: Arc::clone(&shared),
        owed: BTreeMap::new(),
        after_owed: vec![],
    };
    (outbox, Link { shared })
}

impl Link {
    /// Queues one of the FSM's own messages, whatever the queue holds.
    pub fn control(&self, bytes: Vec<u8>) {
        let _ = self.shared.push(bytes, false);
    }

    /// Sets the Send Hold Time (once Established; `None`: none).
    pub fn set_send_hold(&self, d: Option<Duration>) {
        self.shared.lock().send_hold = d;
    }

    /// Drops the messages not yet being written, queues `last` (a NOTIFICATION) if
    /// any, and lets the writer end once that is written.
    pub fn close(&self, last: Option<Vec<u8>>) {
        let mut q = self.shared.lock();
        let dropped: usize = q.messages.drain(..).map(|m| m.len()).sum();
        q.bytes -= dropped;
        if let Some(last) = last {
            q.bytes += last.len();
            q.messages.push_back(last);
        }
        q.closed = true;
        drop(q);
        self.shared.wake.notify_one();
    }

    /// Whether the RIB ended the session ([`Outbox::cease`]): why, and how long it
    /// stays down (`None`: until the speaker restarts).
    pub fn ceased(&self) -> Option<(String, Option<Duration>)> {
        self.shared.lock().ceased.clone()
    }

    /// Every message queued, taken out (tests: no writer).
    #[cfg(test)]
    pub fn take_all(&self) -> Vec<Vec<u8>> {
        let mut q = self.shared.lock();
        q.bytes = 0;
        q.messages.drain(..).collect()
    }

    /// Writes the queue to `wr` until the session closes it; tells the RIB (`rib`,
    /// as session `id`) when held-back UPDATEs fit again; counts each message
    /// written in `sent`.
    ///
    /// # Errors
    /// Why the session must end: a write failed, or the Send Hold Timer expired
    /// (RFC 9687 §4), in which case the connection was reset ([`expire`]).
    pub async fn writer(
        self,
        mut wr: OwnedWriteHalf,
        id: usize,
        rib: UnboundedSender<Event>,
        sent: Arc<Messages>,
    ) -> Result<(), String> {
        loop {
            let Some((batch, ends, send_hold)) = self.next_batch().await else {
                let _ = wr.shutdown().await;
                return match self.shared.lock().ceased.as_ref() {
                    Some((reason, _)) => Err(reason.clone()),
                    None => Ok(()),
                };
            };
            let mut at = 0;
            while at < batch.len() {
                let wrote = match send_hold {
                    Some(d) => match timeout(d, wr.write(&batch[at..])).await {
                        Ok(wrote) => wrote,
                        Err(_) => {
                            let waiting = self.shared.lock().bytes - at;
                            expire(wr, at == 0 || ends.binary_search(&at).is_ok());
                            return Err(format!(
                                "Send Hold Timer expired (RFC 9687): the neighbour took nothing for {} s with {waiting} bytes waiting",
                                d.as_secs(),
                            ));
                        }
                    },
                    None => wr.write(&batch[at..]).await,
                };
                match wrote {
                    Ok(0) => return Err("write: connection closed".into()),
                    Ok(n) => at += n,
                    Err(e) => return Err(format!("write: {e}")),
                }
            }
            for start in std::iter::once(0).chain(ends.iter().copied()) {
                if let Some(message) = batch.get(start..).filter(|m| !m.is_empty()) {
                    sent.count(message);
                }
            }
            let mut q = self.shared.lock();
            q.bytes -= batch.len();
            if q.wants_room && q.bytes <= self.shared.limit / 2 {
                q.wants_room = false;
                let _ = rib.send(Event::Room(id));
            }
        }
    }

    /// The next messages to write, joined (up to [`BATCH_BYTES`] or one message),
    /// where each ends in the batch, and the Send Hold Time; `None` once the
    /// session closed the queue and it is written.
    async fn next_batch(&self) -> Option<(Vec<u8>, Vec<usize>, Option<Duration>)> {
        loop {
            {
                let mut q = self.shared.lock();
                if !q.messages.is_empty() {
                    let (mut batch, mut ends) = (vec![], vec![]);
                    while let Some(m) = q.messages.pop_front() {
                        batch.extend_from_slice(&m);
                        ends.push(batch.len());
                        if batch.len() >= BATCH_BYTES {
                            break;
                        }
                    }
                    return Some((batch, ends, q.send_hold));
                }
                if q.closed {
                    return None;
                }
            }
            self.shared.wake.notified().await;
        }
    }
}

/// The end of a session whose Send Hold Timer expired (RFC 9687 §3.3): the
/// NOTIFICATION Send Hold Timer Expired is sent only where that cannot delay
/// dropping the connection — one `try_write` — and only `at_boundary` (between
/// two messages: written inside a partly written UPDATE it would corrupt both);
/// then the connection is dropped with an RST (SO_LINGER 0, no FIN), so that the
/// kernel frees the socket and the send buffer the neighbour never took at once,
/// instead of keeping an orphan in FIN_WAIT1 retrying into a zero window. The RST
/// goes when the read half, the socket's last owner, is dropped.
fn expire(wr: OwnedWriteHalf, at_boundary: bool) {
    if at_boundary {
        let note = Notification {
            code: SEND_HOLD_TIMER_EXPIRED,
            subcode: 0,
            data: Default::default(),
        };
        // A part of it only (the socket had room for less) is harmless: the RST
        // follows right after, so the neighbour cannot read on past it.
        if let Ok(bytes) = Message::Notification(note).encoding(AsWidth::Four) {
            let _ = wr.try_write(&bytes);
        }
    }
    let _ = socket2::SockRef::from(wr.as_ref()).set_linger(Some(Duration::ZERO));
    wr.forget();
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn prefix(i: u16) -> Prefix {
        let [a, b] = i.to_be_bytes();
        Prefix::new(std::net::Ipv4Addr::new(10, a, b, 0).into(), 24).unwrap()
    }

    /// Whatever the RIB sends, the queue holds at most its bound plus one message,
    /// and what is held back is one UPDATE per prefix, the latest.
    #[test]
    fn a_full_queue_holds_back_the_latest_update_per_prefix() {
        let (mut outbox, link) = channel(1000);
        for round in 0..50u8 {
            for i in 0..100 {
                outbox.announce(prefix(i), vec![round; 30], false);
            }
        }
        assert!(outbox.queued_bytes() <= 1000);
        assert_eq!(outbox.held_back(), 100);
        // The writer has written everything: the RIB refills.
        let first = link.take_all();
        assert_eq!(first.len(), 33);
        assert!(first.iter().all(|m| m[0] == 0));
        let mut seen = vec![];
        while outbox.held_back() > 0 {
            outbox.refill();
            seen.extend(link.take_all());
        }
        assert_eq!(seen.len(), 100);
        assert!(seen.iter().all(|m| m[0] == 49), "the latest of each prefix");
    }

    /// RFC 9687 §3.3 and review: a neighbour that takes nothing for the Send Hold
    /// Time ends the writer, and the connection is reset — no FIN queued behind
    /// the data the neighbour never took, which would keep the socket and its
    /// send buffer in FIN_WAIT1 — and what the neighbour read is whole messages,
    /// nothing spliced into one.
    #[tokio::test]
    async fn a_neighbour_that_takes_nothing_is_reset() {
        use std::io::Read;
        const LEN: usize = 999;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = tokio::net::TcpSocket::new_v4().unwrap();
        client.set_recv_buffer_size(4096).unwrap();
        let client = client
            .connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        socket2::SockRef::from(&server)
            .set_send_buffer_size(16 * 1024)
            .unwrap();
        let (rd, wr) = server.into_split();
        let (_outbox, link) = channel(usize::MAX);
        link.set_send_hold(Some(Duration::from_millis(500)));
        let mut stream = vec![];
        for i in 0..1000 {
            let m: Vec<u8> = (0..LEN).map(|j| (i * 7 + j) as u8).collect();
            stream.extend_from_slice(&m);
            link.control(m);
        }
        let (rib, _events) = tokio::sync::mpsc::unbounded_channel();
        let why = link
            .writer(
                wr,
                0,
                rib,
                Arc::new(Messages::new(
                    crate::speaker::metrics::names::MESSAGES_SENT,
                    "test",
                )),
            )
            .await
            .unwrap_err();
        assert!(why.contains("Send Hold Timer expired"), "{why}");
        drop(rd);
        let mut client = client.into_std().unwrap();
        client.set_nonblocking(false).unwrap();
        client
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let (mut got, mut buf) = (vec![], vec![0u8; 1 << 16]);
        let end = loop {
            match client.read(&mut buf) {
                Ok(0) => break None,
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) => break Some(e.kind()),
            }
        };
        assert_eq!(
            end,
            Some(std::io::ErrorKind::ConnectionReset),
            "{} bytes read, then {end:?}",
            got.len()
        );
        let same = got.iter().zip(&stream).take_while(|(a, b)| a == b).count();
        if same < got.len() {
            // Anything but the stream: the NOTIFICATION, after a whole message.
            assert_eq!(same % LEN, 0, "spliced into a message at {same}");
            assert!(
                got[same..].iter().take(16).all(|&b| b == 0xff),
                "a message, whole, at {same}"
            );
        }
    }
}
