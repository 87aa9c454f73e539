//! The client against hopsig's own cache, against scripted caches that misbehave in one
//! way each, and against random and mutated byte streams (no sockets needed for the
//! last: an in-memory duplex). Real caches and clients (StayRTR, rtrclient) are in
//! crates/hopsig-cli/tests/rtr.rs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

use hopsig_testkit::watch::until;
use proptest::prelude::*;
use rpki::resources::addr::{MaxLenPrefix, Prefix};
use rpki::resources::Asn;
use rpki::rtr::payload::{Payload, RouteOrigin, RouterKey};
use rpki::rtr::pdu::{self, RouterKeyInfo};
use rpki::rtr::{State, Timing};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use super::session::Session;
use super::*;
use crate::rpki::payload::testing::{aspa, set};
use crate::rpki::payload::{Limits, PayloadSet};

/// A P-256 SubjectPublicKeyInfo (any valid one: the RTR layer does not verify keys).
const SPKI: &str = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEjPfbrQ3ZwksT4MsqLuboCHjP6P/PnHsbazrrehYu/fvpsBANk+RXORIbivYrc8FbFoaazg0DSaaTWmOtutmu/Q==";

fn origin(i: u32) -> Payload {
    let prefix = Prefix::new(std::net::Ipv4Addr::from((10 << 24) | (i << 8)).into(), 24).unwrap();
    Payload::Origin(RouteOrigin::new(
        MaxLenPrefix::new(prefix, Some(24)).unwrap(),
        Asn::from_u32(64_500 + i),
    ))
}

fn origin6(i: u32) -> Payload {
    let addr = std::net::Ipv6Addr::new(0x2001, 0xdb8, i as u16, 0, 0, 0, 0, 0);
    let prefix = Prefix::new(addr.into(), 48).unwrap();
    Payload::Origin(RouteOrigin::new(
        MaxLenPrefix::new(prefix, Some(64)).unwrap(),
        Asn::from_u32(64_600 + i),
    ))
}

fn key(asn: u32, ski: u8) -> Payload {
    let spki = rpki::util::base64::Serde.decode(SPKI).unwrap();
    Payload::RouterKey(RouterKey::new(
        [ski; 20].into(),
        Asn::from_u32(asn),
        RouterKeyInfo::try_from(spki).unwrap(),
    ))
}

/// Only the items a router sees at `version` (RFC 8210 §5.10: keys from 1;
/// draft-ietf-sidrops-8210bis §5.12: ASPAs from 2).
fn at_version(s: &PayloadSet, version: u8) -> PayloadSet {
    let mut out = PayloadSet::new();
    for item in s.iter() {
        let min = match item {
            Payload::Origin(_) => 0,
            Payload::RouterKey(_) => 1,
            Payload::Aspa(_) => 2,
        };
        if version >= min {
            out.insert(item, &Limits::default()).unwrap();
        }
    }
    out
}

fn sample() -> PayloadSet {
    set(&[
        origin(1),
        origin(2),
        origin6(1),
        key(65_001, 1),
        key(65_002, 2),
        aspa(65_001, &[65_002, 65_003]),
    ])
}

/// `hopsig rtr serve`'s server on a free port, fed by the returned sender.
async fn cache(first: PayloadSet, history: usize) -> (u16, watch::Sender<Arc<PayloadSet>>) {
    cache_upto(first, history, MAX_VERSION).await
}

/// As [`cache`], serving versions up to `max_version`.
async fn cache_upto(
    first: PayloadSet,
    history: usize,
    max_version: u8,
) -> (u16, watch::Sender<Arc<PayloadSet>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = watch::channel(Arc::new(first));
    let config = ServeConfig {
        timing: Timing {
            refresh: 3600,
            retry: 1,
            expire: 7200,
        },
        history,
        max_version,
    };
    tokio::spawn(serve(listener, rx, config));
    (port, tx)
}

/// A dump from the cache on `port` of this host, default limits, 10 s at most.
async fn local_dump(port: u16, version: Option<u8>) -> Result<Dump, RtrError> {
    dump(
        "127.0.0.1",
        port,
        version,
        Limits::default(),
        Duration::from_secs(10),
    )
    .await
}

/// How long a test waits for the view it expects.
const WAIT: Duration = Duration::from_secs(20);

#[tokio::test]
async fn dump_gets_what_serve_serves_at_each_version() {
    let (port, _tx) = cache(sample(), 8).await;
    for version in [Some(0), Some(1), Some(2), None] {
        let d = local_dump(port, version).await.unwrap();
        let v = version.unwrap_or(2);
        assert_eq!(d.version, v);
        assert_eq!(d.payload, at_version(&sample(), v), "version {v}");
        assert_eq!(d.timing.is_some(), v >= 1);
    }
}

#[tokio::test]
async fn the_view_follows_serial_notify_keys_withdrawn_and_back() {
    let (port, tx) = cache(sample(), 8).await;
    let mut rx = spawn_caches(vec![CacheConfig::new("127.0.0.1", port)], Limits::default());
    let v = until(&mut rx, WAIT, "all data", |v| v.payload == sample()).await;
    let serial = v.caches[0].serial.unwrap();
    assert_eq!(v.caches[0].state, "current");
    assert_eq!(v.caches[0].version, Some(2));
    // Withdraw a key and an ASPA, change nothing else: the cache notifies, the
    // client's Serial Query gets the difference.
    let mut less = sample();
    less.remove(&key(65_002, 2));
    less.remove(&aspa(65_001, &[]));
    tx.send_replace(Arc::new(less.clone()));
    let v = until(&mut rx, WAIT, "key withdrawn", |v| v.payload == less).await;
    assert_eq!(v.caches[0].serial, Some(serial.wrapping_add(1)));
    tx.send_replace(Arc::new(sample()));
    let v = until(&mut rx, WAIT, "key back", |v| v.payload == sample()).await;
    assert_eq!(v.caches[0].serial, Some(serial.wrapping_add(2)));
}

/// A scripted cache: for each connection, `answer` gets the query (PDU type, version)
/// and the connection's number, and says what to send back; `None` closes.
async fn scripted(
    answer: impl Fn(usize, u8, u8) -> Option<Vec<u8>> + Send + Sync + 'static,
) -> (u16, tokio::sync::mpsc::UnboundedReceiver<Vec<u8>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (seen_tx, seen) = tokio::sync::mpsc::unbounded_channel();
    let answer = Arc::new(answer);
    tokio::spawn(async move {
        let mut n = 0;
        while let Ok((mut sock, _)) = listener.accept().await {
            let (answer, seen_tx) = (answer.clone(), seen_tx.clone());
            n += 1;
            let conn = n;
            tokio::spawn(async move {
                loop {
                    let mut header = [0u8; 8];
                    if sock.read_exact(&mut header).await.is_err() {
                        return;
                    }
                    let len = u32::from_be_bytes(header[4..8].try_into().unwrap()) as usize;
                    let mut rest = vec![0u8; len.saturating_sub(8).min(65_536)];
                    if sock.read_exact(&mut rest).await.is_err() {
                        return;
                    }
                    let mut pdu = header.to_vec();
                    pdu.extend(rest);
                    let _ = seen_tx.send(pdu);
                    match answer(conn, header[1], header[0]) {
                        Some(bytes) => {
                            if sock.write_all(&bytes).await.is_err() {
                                return;
                            }
                        }
                        None => return,
                    }
                }
            });
        }
    });
    (port, seen)
}

/// The PDUs of a full answer: Cache Response, the items, End of Data.
fn answer(
    version: u8,
    session: u16,
    serial: u32,
    items: &[(Payload, u8)],
    timing: Timing,
) -> Vec<u8> {
    let state = State::from_parts(session, serial.into());
    let mut out = pdu::CacheResponse::new(version, state).as_ref().to_vec();
    for (item, flags) in items {
        let p = pdu::Payload::new(version, *flags, item.as_ref());
        futures_util::FutureExt::now_or_never(p.write(&mut out))
            .unwrap()
            .unwrap();
    }
    out.extend_from_slice(pdu::EndOfData::new(version, state, timing).as_ref());
    out
}

fn fast() -> Timing {
    Timing {
        refresh: 1,
        retry: 1,
        expire: 600,
    }
}

#[tokio::test]
async fn a_cache_reset_is_followed_by_a_reset_query_on_the_same_connection() {
    let (port, mut seen) = scripted(|_, pdu_type, _| match pdu_type {
        // Reset Query: the data; the first one A, later ones B (by the serial).
        2 => Some(answer(1, 7, 5, &[(origin(1), 1), (origin(2), 1)], fast())),
        // Serial Query: Cache Reset.
        1 => Some(pdu::CacheReset::new(1).as_ref().to_vec()),
        _ => None,
    })
    .await;
    let mut config = CacheConfig::new("127.0.0.1", port);
    config.version = Some(1);
    let mut rx = spawn_caches(vec![config], Limits::default());
    until(&mut rx, WAIT, "data", |v| {
        v.payload == set(&[origin(1), origin(2)])
    })
    .await;
    // Reset, Serial (answered Cache Reset), Reset again, on one connection.
    let mut kinds = Vec::new();
    while kinds.len() < 3 {
        let pdu = tokio::time::timeout(Duration::from_secs(10), seen.recv())
            .await
            .unwrap()
            .unwrap();
        kinds.push(pdu[1]);
    }
    assert_eq!(kinds, vec![2, 1, 2]);
}

#[tokio::test]
async fn expire_drops_the_data_of_a_cache_gone_and_the_next_group_takes_over() {
    // The preferred cache answers once and then never again.
    let (gone, _) = scripted(|conn, pdu_type, _| match (conn, pdu_type) {
        (1, 2) => Some(answer(1, 3, 1, &[(origin(1), 1)], fast())),
        _ => None,
    })
    .await;
    let (backup, _tx) = cache(set(&[origin(9)]), 8).await;
    let mut first = CacheConfig::new("127.0.0.1", gone);
    first.preference = 1;
    first.expire = Some(Duration::from_secs(2));
    first.retry = Some(Duration::from_secs(1));
    let mut second = CacheConfig::new("127.0.0.1", backup);
    second.preference = 2;
    let mut rx = spawn_caches(vec![first, second], Limits::default());
    let v = until(&mut rx, WAIT, "the preferred cache in use", |v| {
        v.payload == set(&[origin(1)]) && v.caches[1].state == "current"
    })
    .await;
    assert!(v.caches[0].in_use && !v.caches[1].in_use);
    let v = until(&mut rx, WAIT, "the backup in use", |v| {
        v.payload == set(&[origin(9)])
    })
    .await;
    assert_eq!(v.caches[0].state, "expired");
    assert_eq!(v.caches[0].counts, (0, 0, 0));
    assert!(!v.caches[0].in_use && v.caches[1].in_use);
}

#[tokio::test]
async fn unsupported_protocol_version_downgrades_unless_the_version_is_fixed() {
    // A version-1 cache (RFC 8210 §7): Error Report 4 at version 1 and close.
    let (port, _) = scripted(|_, pdu_type, version| match (pdu_type, version) {
        (2, 2) => Some(pdu::Error::new(1, 4, [], "only 0 and 1").as_ref().to_vec()),
        (2, v) => Some(answer(
            v,
            1,
            1,
            &[(origin(1), 1), (key(65_001, 1), 1)],
            fast(),
        )),
        _ => None,
    })
    .await;
    let d = local_dump(port, None).await.unwrap();
    assert_eq!(d.version, 1);
    assert_eq!(d.payload, set(&[origin(1), key(65_001, 1)]));
    let e = local_dump(port, Some(2)).await.unwrap_err();
    assert!(
        matches!(
            e,
            RtrError::Report {
                code: 4,
                version: 1,
                ..
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string().contains("Unsupported Protocol Version"),
        "{e}"
    );
    assert!(e.to_string().contains("only 0 and 1"), "{e}");
}

/// What a client answers a cache that sends `bad` after a Cache Response: the error
/// and the Error Report code it sent.
async fn refused(version: u8, bad: Vec<u8>, limits: Limits) -> (RtrError, Option<u16>) {
    let (port, mut seen) = scripted(move |_, pdu_type, _| match pdu_type {
        2 => {
            let state = State::from_parts(1, 1.into());
            let mut out = pdu::CacheResponse::new(version, state).as_ref().to_vec();
            out.extend_from_slice(&bad);
            Some(out)
        }
        _ => None,
    })
    .await;
    let e = dump(
        "127.0.0.1",
        port,
        Some(version),
        limits,
        Duration::from_secs(10),
    )
    .await
    .unwrap_err();
    let mut code = None;
    while let Ok(Some(pdu)) = tokio::time::timeout(Duration::from_millis(500), seen.recv()).await {
        if pdu[1] == 10 {
            code = Some(u16::from_be_bytes([pdu[2], pdu[3]]));
        }
    }
    (e, code)
}

fn pdu_bytes(version: u8, flags: u8, item: &Payload) -> Vec<u8> {
    let mut out = Vec::new();
    let p = pdu::Payload::new(version, flags, item.as_ref());
    futures_util::FutureExt::now_or_never(p.write(&mut out))
        .unwrap()
        .unwrap();
    out
}

#[tokio::test]
async fn each_bad_pdu_is_answered_with_its_error_report() {
    // A Router Key PDU at version 0: Unsupported PDU Type (RFC 8210 §12 code 5).
    let mut bad = pdu_bytes(1, 1, &key(65_001, 1));
    bad[0] = 0;
    let (e, code) = refused(0, bad, Limits::default()).await;
    assert_eq!(code, Some(5), "{e}");
    assert!(e.to_string().contains("Router Key PDU"), "{e}");
    assert!(e.to_string().contains("Unsupported PDU Type"), "{e}");
    // An announcement twice: Duplicate Announcement Received (7).
    let mut twice = pdu_bytes(1, 1, &origin(1));
    twice.extend(pdu_bytes(1, 1, &origin(1)));
    let (e, code) = refused(1, twice, Limits::default()).await;
    assert_eq!(code, Some(7), "{e}");
    // A withdrawal in a full answer: Withdrawal of Unknown Record (6).
    let (e, code) = refused(1, pdu_bytes(1, 0, &origin(1)), Limits::default()).await;
    assert_eq!(code, Some(6), "{e}");
    // A PDU of another version mid-session: Unexpected Protocol Version (8).
    let (e, code) = refused(1, pdu_bytes(0, 1, &origin(1)), Limits::default()).await;
    assert_eq!(code, Some(8), "{e}");
    // An unknown PDU type: Unsupported PDU Type (5).
    let (e, code) = refused(1, vec![1, 99, 0, 0, 0, 0, 0, 8], Limits::default()).await;
    assert_eq!(code, Some(5), "{e}");
    // A length the type cannot have: Corrupt Data (0).
    let (e, code) = refused(1, vec![1, 4, 0, 0, 0, 0, 0, 12], Limits::default()).await;
    assert_eq!(code, Some(0), "{e}");
    // An ASPA whose providers are out of order: ASPA Provider List Error (9).
    let (e, code) = refused(
        2,
        pdu_bytes(2, 1, &aspa(65_001, &[65_003, 65_002])),
        Limits::default(),
    )
    .await;
    assert_eq!(code, Some(9), "{e}");
    assert!(e.to_string().contains("ASPA Provider List Error"), "{e}");
    // Over the limits: Internal Error (1), the data refused.
    let limits = Limits {
        vrps: 1,
        ..Limits::default()
    };
    let mut two = pdu_bytes(1, 1, &origin(1));
    two.extend(pdu_bytes(1, 1, &origin(2)));
    let (e, code) = refused(1, two, limits).await;
    assert_eq!(code, Some(1), "{e}");
    assert!(matches!(e, RtrError::TooMuch(_)), "{e}");
}

/// A valid full answer at version 2, as bytes, to mutate.
fn valid_stream() -> Vec<u8> {
    let items: Vec<(Payload, u8)> = sample().iter().map(|p| (p, 1)).collect();
    answer(2, 9, 4, &items, fast())
}

/// Runs a session against `stream` (whatever the "cache" sends) over an in-memory
/// duplex: returns the outcome and what the client wrote back.
fn against(stream: Vec<u8>, limits: Limits) -> (Result<PayloadSet, RtrError>, Vec<u8>) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let (client, mut cache) = tokio::io::duplex(1 << 20);
        let mut session = Session::new(client, 2, limits, Duration::from_millis(200));
        let feeder = tokio::spawn(async move {
            let _ = cache.write_all(&stream).await;
            // Keep the cache's end open briefly, then read what the client sent.
            let mut back = Vec::new();
            let _ = tokio::time::timeout(Duration::from_millis(300), cache.read_to_end(&mut back))
                .await;
            back
        });
        let r = session.reset_query().await.map(|s| s.payload);
        drop(session);
        (r, feeder.await.unwrap())
    })
}

/// The PDUs hopsig wrote: (type, error code if an Error Report).
fn written(bytes: &[u8]) -> Vec<(u8, u16)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        out.push((
            bytes[at + 1],
            u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]),
        ));
        at += len.max(8);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Random bytes: never a panic; a data set only within the limits; a refused
    /// PDU always answered with an Error Report.
    #[test]
    fn random_streams_never_panic(stream in proptest::collection::vec(any::<u8>(), 0..600)) {
        let limits = Limits { vrps: 4, router_keys: 2, aspas: 2, providers_per_aspa: 8 };
        let (r, back) = against(stream, limits);
        let w = written(&back);
        prop_assert_eq!(w.first().map(|p| p.0), Some(2), "a Reset Query first");
        match r {
            Ok(p) => {
                let (v, k, a) = p.counts();
                prop_assert!(v <= 4 && k <= 2 && a <= 2);
            }
            Err(RtrError::Protocol { code, .. }) => {
                prop_assert!(w.contains(&(10, code)), "Error Report {} sent: {:?}", code, w);
            }
            Err(_) => {}
        }
    }

    /// A valid answer with bytes flipped, cut or inserted: the same.
    #[test]
    fn mutated_streams_never_panic(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        cut in any::<prop::sample::Index>(),
        insert in proptest::collection::vec(any::<u8>(), 0..12),
    ) {
        let mut stream = valid_stream();
        for (at, b) in flips {
            let i = at.index(stream.len());
            stream[i] = b;
        }
        let at = cut.index(stream.len() + 1);
        let tail = stream.split_off(at);
        stream.extend(insert);
        stream.extend(tail);
        let limits = Limits::default();
        let (r, back) = against(stream, limits);
        let w = written(&back);
        if let Err(RtrError::Protocol { code, .. }) = r {
            prop_assert!(w.contains(&(10, code)), "Error Report {} sent: {:?}", code, w);
        }
    }
}

#[test]
fn the_valid_stream_itself_syncs() {
    let (r, back) = against(valid_stream(), Limits::default());
    assert_eq!(r.unwrap(), sample());
    assert_eq!(written(&back), vec![(2, 0)]);
}

/// A client's Serial Query for a serial older than the kept history gets a Cache
/// Reset, then its Reset Query the whole set (RFC 8210 §8.3).
#[tokio::test]
async fn a_serial_older_than_the_history_gets_a_cache_reset() {
    let (port, tx) = cache(set(&[origin(1)]), 1).await;
    let sock = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let mut s = Session::new(sock, 1, Limits::default(), Duration::from_secs(5));
    let first = s.reset_query().await.unwrap();
    for i in 2..5 {
        tx.send_replace(Arc::new(set(&[origin(1), origin(i)])));
        // The cache notifies each change; wait for it so none is skipped.
        assert!(s
            .wait_notify(tokio::time::Instant::now() + Duration::from_secs(5))
            .await
            .unwrap());
    }
    let reply = s.serial_query(first.state, &first.payload).await.unwrap();
    assert!(
        matches!(reply, super::session::Reply::CacheReset),
        "{reply:?}"
    );
    let again = s.reset_query().await.unwrap();
    assert_eq!(again.payload, set(&[origin(1), origin(4)]));
    assert_eq!(
        u32::from(again.state.serial()),
        u32::from(first.state.serial()) + 3
    );
}

#[tokio::test]
async fn a_cache_capped_at_a_version_makes_the_client_downgrade() {
    for max in [0, 1] {
        let (port, _tx) = cache_upto(sample(), 8, max).await;
        let d = local_dump(port, None).await.unwrap();
        assert_eq!(d.version, max);
        assert_eq!(d.payload, at_version(&sample(), max));
        let e = local_dump(port, Some(2)).await.unwrap_err();
        assert!(
            matches!(e, RtrError::Report { code: 4, version, .. } if version == max),
            "{e}"
        );
    }
}

#[test]
fn a_cache_entry_reads_seconds_and_refuses_unknown_fields() {
    let c: CacheConfig = serde_json::from_str(
        r#"{"address": "192.0.2.1", "port": 3323, "preference": 2, "refresh": 30, "expire": 600.5}"#,
    )
    .unwrap();
    assert_eq!(c.preference, 2);
    assert_eq!(c.refresh, Some(Duration::from_secs(30)));
    assert_eq!(c.expire, Some(Duration::from_secs_f64(600.5)));
    assert_eq!((c.retry, c.version), (None, None));
    assert!(
        serde_json::from_str::<CacheConfig>(r#"{"address": "a", "port": 1, "refrsh": 3}"#).is_err()
    );
    assert!(
        serde_json::from_str::<CacheConfig>(r#"{"address": "a", "port": 1, "retry": -1}"#).is_err()
    );
}

#[tokio::test]
async fn the_cache_sends_providers_in_increasing_order_whatever_the_set_holds() {
    let (port, _tx) = cache(set(&[aspa(65_001, &[65_003, 65_002, 65_003])]), 8).await;
    let d = local_dump(port, Some(2)).await.unwrap();
    assert_eq!(d.payload, set(&[aspa(65_001, &[65_002, 65_003])]));
}
