//! RFC 4271 §8 / RFC 7606 conformance of the speaker's state machine, with no socket
//! (holo-bgp's `tests/conformance`): every folder of `tests/conformance/` holds
//! `events.jsonl`, the inputs of one session — FSM events, timer expiries, messages
//! received — and `expected.jsonl`, for each input the state after it, the actions
//! [`fsm::step`] returned (messages sent, timers, NOTIFICATIONs, what goes to the RIB)
//! and the neighbour's Adj-RIB-In once the RIB handled them. A message is given as
//! the fields of a valid one or as its octets (`hex`), and goes through
//! [`fsm::received`] as the shell's reader hands it over.
//!
//! `HOPSIG_BLESS=1` rewrites the expected files from what the code does (then read the
//! diff: the files are the specification).
//!
//! Input lines (`note` is a comment):
//! * `{"event": NAME}` — an event without data (`ManualStart`, `TcpCrAcked`,
//!   `TcpConnectionConfirmed`, `OpenCollisionDump`); `{"event": "TcpConnectionFails",
//!   "reason": …}`;
//! * `{"timer": NAME}` — a timer expired (`ConnectRetry`, `Hold`, `Keepalive`,
//!   `IdleHold`);
//! * `{"open": {"as", "hold", "four_octet", "bgpsec", "families"}}` (`families`:
//!   `["ipv4", "ipv6"]`, the Multiprotocol and BGPsec capabilities per family), `{"keepalive": {}}`,
//!   `{"notification": [code, subcode]}`, `{"update": {"announce", "withdraw",
//!   "as_path"}}` (IPv6 prefixes in MP_REACH_NLRI / MP_UNREACH_NLRI), `{"hex": …}` —
//!   a message received.
//!
//! A case folder may hold `config.json` with fields of [`fsm::Config`] that differ
//! from the default (`remote_as`, `hold_time`, `passive`, `bgpsec`, `send_hold_time`,
//! `families`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hopsig_bgp::packet::{
    Afi, AsPath, AsWidth, AttributeValue, Capability, ErrorCode, Message, MpReachNlri,
    MpUnreachNlri, MultiprotocolCapability, NextHop, Notification, Open, Origin, PathAttribute,
    Prefix, Safi, Update,
};
use hopsig_bgp::speaker::config::Mode;
use hopsig_bgp::speaker::events::{Event as RibEvent, Up};
use hopsig_bgp::speaker::family::{self, Afis, Families};
use hopsig_bgp::speaker::fsm::{self, Action, Event, Fsm, Timer};
use hopsig_bgp::speaker::outbox::{self, Link};
use hopsig_bgp::speaker::pool::Pool;
use hopsig_bgp::speaker::rib::{Rib, Session};
use hopsig_bgp::{RouterKeys, Signer};
use serde_json::{json, Value};

const LOCAL_AS: u32 = 65_000;

fn cases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance")
}

fn config(dir: &Path) -> fsm::Config {
    let mut c = fsm::Config {
        local_as: LOCAL_AS,
        router_id: Ipv4Addr::new(192, 0, 2, 1),
        hold_time: 90,
        connect_retry: Duration::from_secs(5),
        send_hold_time: None,
        remote_as: 65_001,
        passive: false,
        bgpsec: false,
        families: Default::default(),
        options: Default::default(),
    };
    let Ok(text) = std::fs::read_to_string(dir.join("config.json")) else {
        return c;
    };
    let v: Value = serde_json::from_str(&text).unwrap();
    for (k, v) in v.as_object().unwrap() {
        match k.as_str() {
            "remote_as" => c.remote_as = v.as_u64().unwrap() as u32,
            "hold_time" => c.hold_time = v.as_u64().unwrap() as u16,
            "passive" => c.passive = v.as_bool().unwrap(),
            "bgpsec" => c.bgpsec = v.as_bool().unwrap(),
            "send_hold_time" => c.send_hold_time = v.as_u64().map(|s| s as u32),
            "families" => c.families = families(v.as_array().unwrap()),
            other => panic!("{}: unknown config field {other}", dir.display()),
        }
    }
    c
}

/// `["ipv4", "ipv6"]` as [`Families`].
fn families(names: &[Value]) -> Families {
    let names: Vec<String> = names
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    Families::from_names(&names).unwrap()
}

fn prefix(s: &str) -> Prefix {
    let (a, l) = s.split_once('/').unwrap();
    Prefix::new(a.parse::<IpAddr>().unwrap(), l.parse().unwrap()).unwrap()
}

/// The octets of the message an input line describes, encoded with `width`.
fn message(line: &Value, width: AsWidth) -> Option<Vec<u8>> {
    if let Some(hex) = line.get("hex") {
        return Some(hex::decode(hex.as_str().unwrap()).unwrap());
    }
    let m = if let Some(o) = line.get("open") {
        let asn = o["as"].as_u64().unwrap() as u32;
        let hold = o["hold"].as_u64().unwrap() as u16;
        let id = Ipv4Addr::new(192, 0, 2, 2);
        let bgpsec = o.get("bgpsec").and_then(Value::as_bool).unwrap_or(false);
        let caps = match o.get("families").and_then(Value::as_array) {
            // Multiprotocol and BGPsec capabilities for these families (RFC 4760 §8,
            // RFC 8205 §2.1).
            Some(names) => family::capabilities(families(names), bgpsec),
            None => fsm::capabilities(bgpsec),
        };
        let mut open = Open::new(asn, hold, id, caps);
        if o.get("four_octet").and_then(Value::as_bool) == Some(false) {
            // An OLD speaker: no 4-octet AS capability (RFC 6793).
            open.parameters = vec![vec![Capability::Multiprotocol(MultiprotocolCapability {
                afi: 1,
                reserved: 0,
                safi: 1,
            })]];
        }
        Message::Open(open)
    } else if line.get("keepalive").is_some() {
        Message::Keepalive
    } else if let Some(n) = line.get("notification") {
        let code = ErrorCode::try_from(n[0].as_u64().unwrap() as u8).unwrap();
        Message::Notification(Notification::new(
            code,
            n[1].as_u64().unwrap() as u8,
            vec![],
        ))
    } else if let Some(u) = line.get("update") {
        let list = |k: &str| -> Vec<Prefix> {
            u.get(k)
                .and_then(Value::as_array)
                .map(|a| a.iter().map(|p| prefix(p.as_str().unwrap())).collect())
                .unwrap_or_default()
        };
        // IPv6 prefixes go in MP_REACH_NLRI / MP_UNREACH_NLRI (RFC 4760 §3–§4).
        let v4 = |p: &Prefix| p.afi() == Afi::Ipv4;
        let (nlri, nlri6): (Vec<Prefix>, Vec<Prefix>) = list("announce").into_iter().partition(v4);
        let (withdrawn, withdrawn6): (Vec<Prefix>, Vec<Prefix>) =
            list("withdraw").into_iter().partition(v4);
        let mut attributes = vec![];
        if !nlri.is_empty() || !nlri6.is_empty() {
            let path: Vec<u32> = u["as_path"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_u64().unwrap() as u32)
                .collect();
            for a in [
                AttributeValue::Origin(Origin::Igp),
                AttributeValue::AsPath(AsPath::sequence(path)),
                AttributeValue::NextHop(Ipv4Addr::new(192, 0, 2, 9)),
            ] {
                if nlri.is_empty() && matches!(a, AttributeValue::NextHop(_)) {
                    continue;
                }
                attributes.push(PathAttribute::new(a, width).unwrap());
            }
        }
        if !nlri6.is_empty() {
            let next_hop = NextHop::V6("2001:db8::9".parse().unwrap());
            let mp = MpReachNlri::new(Safi::Unicast, next_hop, nlri6).unwrap();
            attributes.push(PathAttribute::new(AttributeValue::MpReachNlri(mp), width).unwrap());
        }
        if !withdrawn6.is_empty() {
            let mp = MpUnreachNlri::new(Afi::Ipv6, Safi::Unicast, withdrawn6).unwrap();
            attributes.push(PathAttribute::new(AttributeValue::MpUnreachNlri(mp), width).unwrap());
        }
        Message::Update(Update {
            withdrawn,
            attributes,
            nlri,
        })
    } else {
        return None;
    };
    Some(m.encoding(width).unwrap())
}

/// The FSM event of an input line.
fn event(line: &Value, fsm: &Fsm) -> Event {
    if let Some(bytes) = message(line, fsm.width()) {
        return fsm::received(&bytes, fsm.width());
    }
    if let Some(t) = line.get("timer") {
        let t = match t.as_str().unwrap() {
            "ConnectRetry" => Timer::ConnectRetry,
            "Hold" => Timer::Hold,
            "Keepalive" => Timer::Keepalive,
            "IdleHold" => Timer::IdleHold,
            other => panic!("unknown timer {other}"),
        };
        return t.expired();
    }
    match line["event"].as_str().unwrap() {
        "ManualStart" => Event::ManualStart,
        "TcpCrAcked" => Event::TcpCrAcked,
        "TcpConnectionConfirmed" => Event::TcpConnectionConfirmed,
        "OpenCollisionDump" => Event::OpenCollisionDump,
        "TcpConnectionFails" => {
            Event::TcpConnectionFails(line["reason"].as_str().unwrap().to_string())
        }
        other => panic!("unknown event {other}"),
    }
}

fn prefixes(ps: impl IntoIterator<Item = Prefix>) -> Value {
    json!(ps.into_iter().map(|p| p.to_string()).collect::<Vec<_>>())
}

/// An action as the expected files write it.
fn action(a: &Action) -> Value {
    match a {
        Action::Connect => json!("connect"),
        Action::Accept => json!("accept"),
        Action::Send(Message::Open(o)) => json!({"send": "OPEN", "as": o.asn(),
            "hold": o.hold_time, "capabilities": o.capabilities().count()}),
        Action::Send(m) => json!({"send": format!("{:?}", m.message_type()).to_uppercase()}),
        Action::StartTimer(t, d) => json!({"start": format!("{t:?}"), "secs": d.as_secs()}),
        Action::StopTimer(t) => json!({"stop": format!("{t:?}")}),
        Action::Log(l) => json!({"log": l}),
        Action::SendHold(d) => json!({"send_hold": d.map(|d| d.as_secs())}),
        Action::Established(n) => json!({"established": {
            "remote_as": n.remote_as,
            "four_octet": n.width == AsWidth::Four,
            "hold": n.hold.as_secs(),
            "keepalive": n.keepalive.as_secs(),
            "bgpsec_send": n.bgpsec_send,
            "bgpsec_receive": n.bgpsec_receive,
        }})
        .as_object()
        .cloned()
        .map(|mut o| {
            // What was negotiated per family, where it is not IPv4 alone (RFC 4760 §8).
            if n.afis != Afis::default() {
                o["established"]["afis"] = json!({
                    "ipv4": n.afis.ipv4,
                    "ipv6": n.afis.ipv6,
                    "bgpsec_send6": n.afis.bgpsec_send6,
                    "bgpsec_receive6": n.afis.bgpsec_receive6,
                });
            }
            Value::Object(o)
        })
        .unwrap(),
        Action::Update(u) => json!({"update": {
            "announced": prefixes(u.announced()),
            "withdrawn": prefixes(u.withdrawn_all()),
            "attributes": u.attributes.iter().map(|a| a.value().type_code()).collect::<Vec<_>>(),
        }}),
        Action::TreatAsWithdraw(ps) => json!({"treat_as_withdraw": prefixes(ps.iter().copied())}),
        Action::RouteRefresh(rr) => json!({"route_refresh": format!("{:?}", rr.subtype)}),
        Action::Close {
            notification,
            reason,
        } => json!({"close": {
            "notification": notification.as_ref().map(|n| json!([n.code, n.subcode, hex::encode(&n.data)])),
            "reason": reason,
        }}),
    }
}

/// The RIB with the neighbour as session 0, as the speaker's RIB task sees it.
struct RibSide {
    rib: Rib,
    _links: Vec<Link>,
}

impl RibSide {
    fn new() -> RibSide {
        let (events_tx, _events) = tokio::sync::mpsc::unbounded_channel();
        let pool = Pool::new(1, Arc::new(RouterKeys::new()), events_tx);
        let session = Session::new("192.0.2.2", 65_001, Arc::new(Signer::new(LOCAL_AS)));
        let rib = Rib::new(
            LOCAL_AS,
            Ipv4Addr::new(192, 0, 2, 1),
            Mode::Strict,
            BTreeSet::new(),
            vec![session],
            pool,
        );
        RibSide {
            rib,
            _links: vec![],
        }
    }

    /// Hands the RIB what the shell would for `a`.
    fn apply(&mut self, a: &Action) {
        let event = match a {
            Action::Established(n) => {
                let (tx, link) = outbox::channel(usize::MAX);
                self._links.push(link);
                RibEvent::Up(
                    0,
                    Up {
                        remote_as: n.remote_as,
                        width: n.width,
                        bgpsec_send: n.bgpsec_send,
                        bgpsec_receive: n.bgpsec_receive,
                        tx,
                        afis: n.afis,
                        next_hop6: None,
                        features: Default::default(),
                    },
                )
            }
            Action::Update(u) => RibEvent::Update(0, u.clone(), Instant::now()),
            Action::TreatAsWithdraw(ps) => RibEvent::TreatAsWithdraw(0, ps.clone()),
            Action::Close { reason, .. } => RibEvent::Down(0, reason.clone()),
            _ => return,
        };
        self.rib.handle(event);
    }

    /// The neighbour's Adj-RIB-In: `prefix: AS path`.
    fn adj_in(&self) -> Value {
        json!(self.rib.sessions[0]
            .adj_in
            .iter()
            .map(|(p, r)| format!(
                "{p}: {}",
                hopsig_bgp::speaker::status::as_path_text(&r.as_path)
            ))
            .collect::<Vec<_>>())
    }
}

/// Replays the case in `dir`; the output lines.
fn replay(dir: &Path) -> Vec<String> {
    let config = config(dir);
    let text = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    let mut fsm = Fsm::default();
    let mut rib = RibSide::new();
    let mut out = vec![];
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let line: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{}:{}: {e}", dir.display(), i + 1));
        let (next, actions) = fsm::step(&config, fsm, event(&line, &fsm));
        fsm = next;
        for a in &actions {
            rib.apply(a);
        }
        out.push(
            json!({
                "state": fsm.state.name(),
                "actions": actions.iter().map(action).collect::<Vec<_>>(),
                "adj_rib_in": rib.adj_in(),
            })
            .to_string(),
        );
    }
    out
}

#[test]
fn every_case_replays_to_its_expected_output() {
    let bless = std::env::var_os("HOPSIG_BLESS").is_some();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(cases())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 5, "cases missing: {dirs:?}");
    let mut failed = vec![];
    for dir in &dirs {
        let got = replay(dir);
        let path = dir.join("expected.jsonl");
        if bless {
            std::fs::write(&path, got.join("\n") + "\n").unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap();
        let want: Vec<&str> = want.lines().collect();
        assert_eq!(
            want.len(),
            got.len(),
            "{}: {} expected lines, {} events",
            dir.display(),
            want.len(),
            got.len()
        );
        for (n, (w, g)) in want.iter().zip(&got).enumerate() {
            let (w, g): (Value, Value) = (
                serde_json::from_str(w).unwrap(),
                serde_json::from_str(g).unwrap(),
            );
            if w != g {
                failed.push(format!(
                    "{} event {}:\n  expected {w}\n  got      {g}",
                    dir.display(),
                    n + 1
                ));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
