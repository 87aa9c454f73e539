//! The read-only HTTP/JSON API (issue 26 §2; docs/spec/speaker.md, "HTTP API"):
//! `GET /neighbors`, `/neighbors/{addr}`, `/rib/in`, `/rib/out/{addr}`, `/not-valid`,
//! `/rpki`. Each handler checks its parameters, sends the question to the RIB task
//! ([`Event::Query`]) and waits for the answer ([`super::rib::query`]), which is
//! bounded by the page size; errors are JSON `{"error": "…"}` with a status code:
//! 400 a bad parameter, 404 an unknown neighbour or path, 405 a method other than
//! GET, 503 the RIB task gone or not answering.

use std::net::IpAddr;
use std::time::Duration;

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, MethodRouter};
use axum::{Json, Router};
use hopsig_primitives::codec::Reader;
use serde_json::json;
use tokio::sync::oneshot;

use crate::packet::{Afi, Prefix};

use super::config;
use super::events::Event;
use super::http::HttpState;
use super::rib::query::{self, Ask, Page, QueryError, RibIn, StateFilter};

/// Longest wait for the RIB task's answer: it answers between two events, so only
/// a RIB task that is stuck takes this long (503).
pub const ANSWER_WITHIN: Duration = Duration::from_secs(10);

/// The API's routes, for [`super::http::router`]; unknown paths get a JSON 404.
pub fn routes() -> Router<HttpState> {
    Router::new()
        .route("/neighbors", only_get(get(neighbors)))
        .route("/neighbors/{addr}", only_get(get(neighbor)))
        .route("/rib/in", only_get(get(rib_in)))
        .route("/rib/out/{addr}", only_get(get(rib_out)))
        .route("/not-valid", only_get(get(not_valid)))
        .route("/rpki", only_get(get(rpki)))
        .fallback(not_found)
}

/// `route` answering 405 with a JSON body to any method but GET (and HEAD).
fn only_get(route: MethodRouter<HttpState>) -> MethodRouter<HttpState> {
    route.fallback(method_not_allowed)
}

/// An error answer: `{"error": message}` with `status`.
fn error(status: StatusCode, message: impl std::fmt::Display) -> Response {
    (status, Json(json!({ "error": message.to_string() }))).into_response()
}

async fn not_found() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "no such path (docs/spec/speaker.md, HTTP API)",
    )
}

async fn method_not_allowed() -> Response {
    let mut r = error(
        StatusCode::METHOD_NOT_ALLOWED,
        "the API is read-only: GET only",
    );
    r.headers_mut()
        .insert(header::ALLOW, header::HeaderValue::from_static("GET, HEAD"));
    r
}

/// A bad request: its answer is a 400 with this reason.
struct Bad(String);

impl IntoResponse for Bad {
    fn into_response(self) -> Response {
        error(StatusCode::BAD_REQUEST, self.0)
    }
}

/// A 400 answer.
fn bad(message: impl std::fmt::Display) -> Bad {
    Bad(message.to_string())
}

/// Sends `ask` to the RIB task and turns its answer into a response.
async fn ask(state: &HttpState, ask: Ask) -> Response {
    let (reply, answer) = oneshot::channel();
    let gone = || error(StatusCode::SERVICE_UNAVAILABLE, "the RIB task is gone");
    if state
        .rib
        .send(Event::Query(query::Query { ask, reply }))
        .is_err()
    {
        return gone();
    }
    match tokio::time::timeout(ANSWER_WITHIN, answer).await {
        Ok(Ok(Ok(v))) => Json(v).into_response(),
        Ok(Ok(Err(e @ QueryError::UnknownNeighbor(_)))) => error(StatusCode::NOT_FOUND, e),
        Ok(Err(_)) => gone(),
        Err(_) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the RIB task did not answer within {} s",
                ANSWER_WITHIN.as_secs()
            ),
        ),
    }
}

/// The query parameters, each at most once and each among `known`.
fn params(
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
    known: &[&str],
) -> Result<Vec<(String, String)>, Bad> {
    let Query(pairs) = query.map_err(|e| bad(format!("query string: {e}")))?;
    for (i, (k, _)) in pairs.iter().enumerate() {
        if !known.contains(&k.as_str()) {
            return Err(bad(format!(
                "unknown parameter {k:?} (this path takes: {})",
                known.join(", ")
            )));
        }
        if pairs[..i].iter().any(|(other, _)| other == k) {
            return Err(bad(format!("parameter {k:?} given twice")));
        }
    }
    Ok(pairs)
}

/// The value of parameter `name`, if given.
fn value<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// `limit`: 1 to [`query::MAX_LIMIT`] [default: [`query::DEFAULT_LIMIT`]].
fn limit(pairs: &[(String, String)]) -> Result<usize, Bad> {
    let Some(text) = value(pairs, "limit") else {
        return Ok(query::DEFAULT_LIMIT);
    };
    match text.parse::<usize>() {
        Ok(n) if (1..=query::MAX_LIMIT).contains(&n) => Ok(n),
        _ => Err(bad(format!(
            "limit {text:?}: a number from 1 to {}",
            query::MAX_LIMIT
        ))),
    }
}

/// The `prefix` parameter, if given: `address/length` with no bit set past the
/// length.
fn prefix(pairs: &[(String, String)]) -> Result<Option<Prefix>, Bad> {
    value(pairs, "prefix")
        .map(|t| config::prefix(t).map_err(|e| bad(format!("prefix {t:?}: {e}"))))
        .transpose()
}

/// A prefix cursor (`after`), if given: `address/length` as a page's `next` wrote
/// it, trailing bits kept (a route's prefix keeps the bits of its last octet as
/// received, RFC 4271 §4.3, and is its table's key as such).
fn cursor(pairs: &[(String, String)]) -> Result<Option<Prefix>, Bad> {
    let Some(text) = value(pairs, "after") else {
        return Ok(None);
    };
    let wrong = || {
        bad(format!(
            "after {text:?}: not address/length (a page's next)"
        ))
    };
    let (addr, len) = text.split_once('/').ok_or_else(wrong)?;
    let addr: IpAddr = addr.parse().map_err(|_| wrong())?;
    let length: u8 = len.parse().map_err(|_| wrong())?;
    let (afi, octets) = match addr {
        IpAddr::V4(a) => (Afi::Ipv4, a.octets().to_vec()),
        IpAddr::V6(a) => (Afi::Ipv6, a.octets().to_vec()),
    };
    // The prefix field as on the wire: the length, then ceil(length / 8) octets.
    let mut field = vec![length];
    field.extend(octets.iter().take(usize::from(length).div_ceil(8)));
    Prefix::read(&mut Reader::new(&field), afi)
        .map(Some)
        .map_err(|_| wrong())
}

/// A neighbour's address.
fn address(text: &str) -> Result<IpAddr, Bad> {
    text.parse()
        .map_err(|_| bad(format!("{text:?} is not an IP address")))
}

/// The `{addr}` of the path.
fn path_address(path: Result<Path<String>, PathRejection>) -> Result<IpAddr, Bad> {
    let Path(text) = path.map_err(|e| bad(e.body_text()))?;
    address(&text)
}

async fn neighbors(
    State(state): State<HttpState>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    if let Err(e) = params(q, &[]) {
        return e.into_response();
    }
    ask(&state, Ask::Neighbors).await
}

async fn neighbor(
    State(state): State<HttpState>,
    path: Result<Path<String>, PathRejection>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    let asked = params(q, &[]).and_then(|_| path_address(path));
    match asked {
        Ok(a) => ask(&state, Ask::Neighbor(a)).await,
        Err(e) => e.into_response(),
    }
}

/// `/rib/in`'s parameters.
fn rib_in_query(pairs: &[(String, String)]) -> Result<RibIn, Bad> {
    let state = value(pairs, "state")
        .map(|t| {
            StateFilter::named(t)
                .ok_or_else(|| bad(format!("state {t:?}: one of {}", StateFilter::NAMES)))
        })
        .transpose()?;
    let prefix_given = prefix(pairs)?;
    let after = cursor(pairs)?;
    if prefix_given.is_some() && after.is_some() {
        return Err(bad(
            "prefix and after together: one prefix's routes are one page",
        ));
    }
    Ok(RibIn {
        prefix: prefix_given,
        state,
        neighbor: value(pairs, "neighbor").map(address).transpose()?,
        page: Page {
            after,
            limit: limit(pairs)?,
        },
    })
}

async fn rib_in(
    State(state): State<HttpState>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    let asked = params(q, &["prefix", "state", "neighbor", "limit", "after"])
        .and_then(|pairs| rib_in_query(&pairs));
    match asked {
        Ok(r) => ask(&state, Ask::RibIn(r)).await,
        Err(e) => e.into_response(),
    }
}

async fn rib_out(
    State(state): State<HttpState>,
    path: Result<Path<String>, PathRejection>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    let asked = (|| {
        let pairs = params(q, &["limit", "after"])?;
        let page = Page {
            after: cursor(&pairs)?,
            limit: limit(&pairs)?,
        };
        Ok::<_, Bad>(Ask::RibOut(path_address(path)?, page))
    })();
    match asked {
        Ok(a) => ask(&state, a).await,
        Err(e) => e.into_response(),
    }
}

async fn not_valid(
    State(state): State<HttpState>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    let asked = (|| {
        let pairs = params(q, &["limit", "after"])?;
        let after = value(&pairs, "after")
            .map(|t| {
                t.parse::<usize>()
                    .map_err(|_| bad(format!("after {t:?}: the index of an entry")))
            })
            .transpose()?;
        Ok::<_, Bad>(Ask::NotValid(Page {
            after,
            limit: limit(&pairs)?,
        }))
    })();
    match asked {
        Ok(a) => ask(&state, a).await,
        Err(e) => e.into_response(),
    }
}

async fn rpki(
    State(state): State<HttpState>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    if let Err(e) = params(q, &[]) {
        return e.into_response();
    }
    ask(&state, Ask::Rpki).await
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::sync::mpsc;

    use super::*;

    /// The server of `state` on a free loopback port, and a plain HTTP/1.1 GET (or
    /// `method`) of `path`: the status line and the body.
    async fn call(state: HttpState, method: &str, path: &str) -> (String, serde_json::Value) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(super::super::http::serve(listener, state));
        let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
        c.write_all(
            format!("{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .await
        .unwrap();
        let mut text = String::new();
        c.read_to_string(&mut text).await.unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let status = head.lines().next().unwrap().to_owned();
        (
            status,
            serde_json::from_str(body).unwrap_or(serde_json::Value::Null),
        )
    }

    fn state() -> (HttpState, mpsc::UnboundedReceiver<Event>) {
        let prometheus = metrics_exporter_prometheus::PrometheusBuilder::new()
            .build_recorder()
            .handle();
        let (rib, events) = mpsc::unbounded_channel();
        (HttpState { prometheus, rib }, events)
    }

    /// The RIB task gone (its queue closed), or dropping the question: 503 with a
    /// JSON error, not a hang or a panic.
    #[tokio::test]
    async fn the_rib_gone_is_503() {
        let (s, events) = state();
        drop(events);
        let (status, body) = call(s, "GET", "/neighbors").await;
        assert!(status.contains(" 503 "), "{status}");
        assert_eq!(body["error"], "the RIB task is gone");
        let (s, mut events) = state();
        tokio::spawn(async move {
            // Takes the question and drops it unanswered.
            while let Some(e) = events.recv().await {
                drop(e);
            }
        });
        let (status, body) = call(s.clone(), "GET", "/rpki").await;
        assert!(status.contains(" 503 "), "{status}");
        assert_eq!(body["error"], "the RIB task is gone");
        // A cursor keeps the trailing bits a received prefix may have (it reached
        // the RIB: 503, not 400).
        let (status, body) = call(s, "GET", "/rib/in?after=10.0.1.5/24&limit=3").await;
        assert!(status.contains(" 503 "), "{status} {body}");
    }

    /// Bad parameters are 400 before the RIB is asked; other methods 405; unknown
    /// paths 404; all with a JSON error.
    #[tokio::test]
    async fn bad_requests_never_reach_the_rib() {
        for (method, path, code) in [
            ("GET", "/rib/in?limit=0", 400),
            ("GET", "/rib/in?limit=1001", 400),
            ("GET", "/rib/in?limit=x", 400),
            ("GET", "/rib/in?state=bogus", 400),
            ("GET", "/rib/in?prefix=10.0.0.0", 400),
            ("GET", "/rib/in?prefix=10.0.0.0/33", 400),
            ("GET", "/rib/in?neighbor=nobody", 400),
            ("GET", "/rib/in?after=10.0.0.0/8&prefix=10.0.0.0/8", 400),
            ("GET", "/rib/in?limit=5&limit=6", 400),
            ("GET", "/rib/in?colour=red", 400),
            ("GET", "/rib/out/not-an-address", 400),
            ("GET", "/neighbors?x=1", 400),
            ("GET", "/neighbors/300.1.1.1", 400),
            ("GET", "/not-valid?after=-1", 400),
            ("POST", "/neighbors", 405),
            ("DELETE", "/rib/in", 405),
            ("PUT", "/rpki", 405),
            ("GET", "/nowhere", 404),
        ] {
            let (s, mut events) = state();
            let (status, body) = call(s, method, path).await;
            assert!(
                status.contains(&format!(" {code} ")),
                "{method} {path}: {status}"
            );
            assert!(body["error"].is_string(), "{method} {path}: {body}");
            assert!(
                events.try_recv().is_err(),
                "{method} {path} reached the RIB"
            );
        }
    }
}
