//! An RTR cache (`hopsig rtr serve`): the `rpki` crate's [`rpki::rtr::Server`] over a
//! changing [`PayloadSet`]. Each new set (a [`watch`] value) becomes the next serial
//! (RFC 8210 §5.1), its difference from the previous one is kept for Serial Queries
//! (a bounded history; a serial older than it gets a Cache Reset, §8.3), and every
//! connected router gets a Serial Notify (§5.2). The crate negotiates versions 0–2 and
//! sends router keys only at version 1 and later, ASPAs only at 2 (RFC 8210 §5.10,
//! draft-ietf-sidrops-8210bis §5.12).

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::task::{Context, Poll};

use futures_util::stream::Stream;
use rpki::rtr::payload::{Aspa, Payload, PayloadRef, RouteOrigin, RouterKey};
use rpki::rtr::pdu::ProviderAsns;
use rpki::rtr::server::{NotifySender, PayloadDiff, PayloadSet as ServerSet, PayloadSource};
use rpki::rtr::{Action, Serial, Server, State, Timing};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};

use crate::rpki::payload::PayloadSet;

/// How the cache runs.
#[derive(Debug, Clone, Copy)]
pub struct ServeConfig {
    /// The timers sent in End of Data (v1+; RFC 8210 §6).
    pub timing: Timing,
    /// How many past serials a Serial Query may name before it gets a Cache Reset.
    pub history: usize,
    /// The highest version served (0–2): a query of a higher version gets Error
    /// Report 4 (Unsupported Protocol Version) at this version and the connection is
    /// closed (RFC 8210 §7), so that a router downgrades.
    pub max_version: u8,
}

impl Default for ServeConfig {
    fn default() -> ServeConfig {
        ServeConfig {
            timing: Timing::default(),
            history: 64,
            max_version: super::MAX_VERSION,
        }
    }
}

/// One item's change between two serials: what it was and what it became (`None`:
/// absent). Origins and router keys change between absent and present; an ASPA, keyed
/// by its customer AS, may also change providers.
#[derive(Debug, Clone)]
struct Change {
    old: Option<Payload>,
    new: Option<Payload>,
}

/// The key under which changes to one item are squashed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Origin(RouteOrigin),
    RouterKey(RouterKey),
    Aspa(u32),
}

fn key(p: &Payload) -> Key {
    match p {
        Payload::Origin(o) => Key::Origin(*o),
        Payload::RouterKey(k) => Key::RouterKey(k.clone()),
        Payload::Aspa(a) => Key::Aspa(a.customer.into_u32()),
    }
}

/// `p` as sent: an ASPA's providers in increasing order, each once
/// (draft-ietf-sidrops-8210bis §5.12), whatever order the set holds them in.
fn normalized(p: Payload) -> Payload {
    match p {
        Payload::Aspa(a) => {
            let mut asns: Vec<_> = a.providers.iter().collect();
            asns.sort_unstable();
            asns.dedup();
            match ProviderAsns::try_from_iter(asns) {
                Ok(providers) => Payload::Aspa(Aspa::new(a.customer, providers)),
                Err(_) => Payload::Aspa(a),
            }
        }
        other => other,
    }
}

/// The changes from `old` to `new`.
fn changes(old: &PayloadSet, new: &PayloadSet) -> Vec<Change> {
    let mut out = Vec::new();
    for o in new
        .origins()
        .filter(|o| !old.contains(&Payload::Origin(*o)))
    {
        out.push(Change {
            old: None,
            new: Some(Payload::Origin(o)),
        });
    }
    for o in old
        .origins()
        .filter(|o| !new.contains(&Payload::Origin(*o)))
    {
        out.push(Change {
            old: Some(Payload::Origin(o)),
            new: None,
        });
    }
    for k in new.router_keys() {
        let p = Payload::RouterKey(k.clone());
        if !old.contains(&p) {
            out.push(Change {
                old: None,
                new: Some(p),
            });
        }
    }
    for k in old.router_keys() {
        let p = Payload::RouterKey(k.clone());
        if !new.contains(&p) {
            out.push(Change {
                old: Some(p),
                new: None,
            });
        }
    }
    let by_customer = |s: &PayloadSet| -> HashMap<u32, Aspa> {
        s.aspas()
            .map(|a| (a.customer.into_u32(), a.clone()))
            .collect()
    };
    let (was, now) = (by_customer(old), by_customer(new));
    for (c, a) in &now {
        if was.get(c) != Some(a) {
            out.push(Change {
                old: was.get(c).cloned().map(Payload::Aspa),
                new: Some(Payload::Aspa(a.clone())),
            });
        }
    }
    for (c, a) in &was {
        if !now.contains_key(c) {
            out.push(Change {
                old: Some(Payload::Aspa(a.clone())),
                new: None,
            });
        }
    }
    out
}

/// The payload PDUs that take a router from one serial to a later one, given the
/// changes of each serial in between, oldest first: per item, its first `old` and its
/// last `new`; an item back where it started is not sent. Withdrawals first, so that
/// nothing is announced twice.
fn squash<'a>(steps: impl Iterator<Item = &'a [Change]>) -> Vec<(Payload, Action)> {
    let mut net: HashMap<Key, Change> = HashMap::new();
    for step in steps {
        for c in step {
            let Some(k) = c.new.as_ref().or(c.old.as_ref()).map(key) else {
                continue;
            };
            net.entry(k)
                .and_modify(|e| e.new = c.new.clone())
                .or_insert_with(|| c.clone());
        }
    }
    let mut withdraw = Vec::new();
    let mut announce = Vec::new();
    for c in net.into_values() {
        match (c.old, c.new) {
            (a, b) if a == b => {}
            (_, Some(new)) => announce.push((normalized(new), Action::Announce)),
            (Some(old), None) => withdraw.push((old, Action::Withdraw)),
            (None, None) => {}
        }
    }
    withdraw.extend(announce);
    withdraw
}

/// The cache's state: the current set and the changes of recent serials.
struct History {
    state: State,
    current: Arc<PayloadSet>,
    /// (the serial a step leads to, its changes), oldest first.
    steps: VecDeque<(Serial, Arc<[Change]>)>,
    limit: usize,
}

/// The crate's view of the cache (cheap to clone: one shared history).
#[derive(Clone)]
struct Source {
    history: Arc<RwLock<History>>,
    timing: Timing,
}

/// The full set, in order (origins, router keys, ASPAs).
struct Full {
    items: Vec<Payload>,
    at: usize,
}

impl ServerSet for Full {
    fn next(&mut self) -> Option<PayloadRef<'_>> {
        let item = self.items.get(self.at)?;
        self.at += 1;
        Some(item.as_ref())
    }
}

/// A difference, withdrawals first.
struct Diff {
    items: Vec<(Payload, Action)>,
    at: usize,
}

impl PayloadDiff for Diff {
    fn next(&mut self) -> Option<(PayloadRef<'_>, Action)> {
        let (item, action) = self.items.get(self.at)?;
        self.at += 1;
        Some((item.as_ref(), *action))
    }
}

impl Source {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, History> {
        // A poisoned lock means a panic while holding it: the data is still whole
        // (every writer replaces fields whole).
        self.history.read().unwrap_or_else(|e| e.into_inner())
    }
}

impl PayloadSource for Source {
    type Set = Full;
    type Diff = Diff;

    fn ready(&self) -> bool {
        true
    }

    fn notify(&self) -> State {
        self.read().state
    }

    fn full(&self) -> (State, Full) {
        let h = self.read();
        (
            h.state,
            Full {
                items: h.current.iter().map(normalized).collect(),
                at: 0,
            },
        )
    }

    fn diff(&self, state: State) -> Option<(State, Diff)> {
        let h = self.read();
        if state.session() != h.state.session() {
            return None;
        }
        if state.serial() == h.state.serial() {
            return Some((
                h.state,
                Diff {
                    items: Vec::new(),
                    at: 0,
                },
            ));
        }
        // The steps after `state`'s serial: it must be the serial just before one of
        // the kept steps.
        let from = h
            .steps
            .iter()
            .position(|(to, _)| to.0 == state.serial().0.wrapping_add(1))?;
        let items = squash(h.steps.iter().skip(from).map(|(_, c)| &c[..]));
        Some((h.state, Diff { items, at: 0 }))
    }

    fn timing(&self) -> Timing {
        self.timing
    }
}

/// Accepted TCP connections, as the stream the crate's server takes, of routers that
/// query at a version up to `max_version`.
struct Incoming(mpsc::UnboundedReceiver<TcpStream>);

impl Stream for Incoming {
    type Item = io::Result<TcpStream>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_recv(cx).map(|s| s.map(Ok))
    }
}

/// Accepts routers; those whose first PDU has a version above `max` get Error Report
/// 4 at `max` and are closed (RFC 8210 §7), the others go to the server.
async fn accept(listener: TcpListener, max: u8, to: mpsc::UnboundedSender<TcpStream>) {
    loop {
        let (mut sock, peer) = match listener.accept().await {
            Ok(x) => x,
            // A failed accept (e.g. out of file descriptors) does not end the cache.
            Err(e) => {
                tracing::warn!("RTR cache: accept: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                continue;
            }
        };
        tracing::info!(event = "rtr_router_connected", router = %peer, "RTR cache: router {peer} connected");
        if max >= super::MAX_VERSION {
            if to.send(sock).is_err() {
                return;
            }
            continue;
        }
        let to = to.clone();
        tokio::spawn(async move {
            let mut header = [0u8; 8];
            let peeked = tokio::time::timeout(std::time::Duration::from_secs(30), async {
                // Peek until the whole header is there, so that the server reads it.
                loop {
                    match sock.peek(&mut header).await {
                        Ok(8) => return true,
                        Ok(0) | Err(_) => return false,
                        Ok(_) => tokio::time::sleep(std::time::Duration::from_millis(5)).await,
                    }
                }
            })
            .await;
            if peeked != Ok(true) {
                return;
            }
            if header[0] > max {
                let text = format!("this cache serves versions 0 to {max}");
                let report = rpki::rtr::pdu::Error::new(max, 4, header, text);
                let _ = report.write(&mut sock).await;
                let _ = sock.flush().await;
                tracing::info!(
                    "RTR cache: router {peer} asked version {}: Unsupported Protocol Version",
                    header[0]
                );
                return;
            }
            let _ = to.send(sock);
        });
    }
}

/// Serves `sets` as an RTR cache on `listener`; runs until the runtime ends (when the
/// sender of `sets` is dropped, the routers keep being served the last set). Each new set
/// gets the next serial and a Serial Notify to every router.
///
/// # Errors
/// None in practice (the crate's server loop ends only with its listener stream).
pub async fn serve(
    listener: TcpListener,
    mut sets: watch::Receiver<Arc<PayloadSet>>,
    config: ServeConfig,
) -> io::Result<()> {
    let first = sets.borrow_and_update().clone();
    let history = Arc::new(RwLock::new(History {
        state: State::new(),
        current: first,
        steps: VecDeque::new(),
        limit: config.history.max(1),
    }));
    let source = Source {
        history: history.clone(),
        timing: config.timing,
    };
    let notify = NotifySender::new();
    let mut sender = notify.clone();
    tokio::spawn(async move {
        while sets.changed().await.is_ok() {
            let new = sets.borrow_and_update().clone();
            let (serial, counts) = {
                let mut h = history.write().unwrap_or_else(|e| e.into_inner());
                let step: Arc<[Change]> = changes(&h.current, &new).into();
                if step.is_empty() {
                    continue;
                }
                h.state.inc();
                let to = h.state.serial();
                h.steps.push_back((to, step));
                while h.steps.len() > h.limit {
                    h.steps.pop_front();
                }
                h.current = new;
                (to, h.current.counts())
            };
            tracing::info!(
                event = "rtr_serial",
                serial = u32::from(serial),
                vrps = counts.0,
                router_keys = counts.1,
                aspas = counts.2,
                "RTR cache: serial {serial}: {} VRPs, {} router keys, {} ASPAs",
                counts.0,
                counts.1,
                counts.2
            );
            sender.notify();
        }
    });
    let (to, from) = mpsc::unbounded_channel();
    tokio::spawn(accept(
        listener,
        config.max_version.min(super::MAX_VERSION),
        to,
    ));
    Server::new(Incoming(from), notify, source).run().await
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::rpki::payload::testing::{aspa, origin, set};
    use crate::rpki::payload::Limits;

    /// Applies a diff as a router would, refusing what RFC 8210 §12 refuses.
    fn apply(base: &PayloadSet, diff: &[(Payload, Action)]) -> PayloadSet {
        let mut s = base.clone();
        for (p, a) in diff {
            match a {
                Action::Announce => {
                    assert!(!s.contains(p), "announced twice: {p:?}");
                    s.insert(p.clone(), &Limits::default()).unwrap();
                }
                Action::Withdraw => assert!(s.remove(p), "withdrawn unknown: {p:?}"),
            }
        }
        s
    }

    #[test]
    fn squashed_steps_take_any_past_serial_to_the_current_set() {
        let sets = [
            set(&[origin(1), origin(2), aspa(10, &[20])]),
            set(&[origin(2), origin(3), aspa(10, &[21])]),
            set(&[origin(1), origin(3), aspa(11, &[20])]),
            set(&[origin(1), origin(3), aspa(10, &[20]), aspa(11, &[20])]),
        ];
        let steps: Vec<Vec<Change>> = sets.windows(2).map(|w| changes(&w[0], &w[1])).collect();
        for from in 0..sets.len() {
            let diff = squash(steps[from..].iter().map(|s| &s[..]));
            assert_eq!(
                apply(&sets[from], &diff),
                sets[sets.len() - 1],
                "from {from}"
            );
        }
        // Back where it started: nothing to send.
        let there_and_back = [changes(&sets[0], &sets[1]), changes(&sets[1], &sets[0])];
        assert!(squash(there_and_back.iter().map(|s| &s[..])).is_empty());
    }
}
