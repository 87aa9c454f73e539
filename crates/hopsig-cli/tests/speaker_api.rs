//! The speaker's read-only HTTP/JSON API and `hopsig speaker show` (issue 26 §2;
//! docs/spec/speaker.md, "HTTP API") against real sessions on loopback: three hopsig
//! speakers, A and C sending BGPsec routes to B (A's key in the RPKI, C's not), B
//! serving the API. Every endpoint is asked and its answer checked against what A, B
//! and C sent: counts, prefixes, verdicts, paging that returns every route exactly
//! once; then the errors and the command's tables and JSON lines. Only hopsig runs:
//! nothing to skip.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeSet;

use common::speaker::*;
use common::Scratch;
use serde_json::Value;

const SUITE: &str = "ecdsa-p256-sha256";
const A: &str = "127.0.3.1";
const B: &str = "127.0.3.2";
const C: &str = "127.0.3.3";
/// Routes A originates: more than one page at the page sizes below.
const A_ROUTES: u16 = 150;

fn a_prefix(i: u16) -> String {
    format!("10.{}.{}.0/24", 40 + i / 256, i % 256)
}

fn c_prefix(i: u16) -> String {
    format!("10.203.{i}.0/24")
}

/// An HTTP client that returns 4xx/5xx answers instead of failing on them.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(std::time::Duration::from_secs(20)))
        .proxy(None)
        .build()
        .into()
}

/// `method path` on the API at `base`: the status code and the JSON body (`null` if
/// none).
fn call(base: &str, method: &str, path: &str) -> (u16, Value) {
    let url = format!("{base}{path}");
    let a = agent();
    let mut r = match method {
        "GET" => a.get(&url).call(),
        "POST" => a.post(&url).send_empty(),
        "DELETE" => a.delete(&url).call(),
        _ => unreachable!(),
    }
    .unwrap();
    let status = r.status().as_u16();
    let body = r.body_mut().read_json().unwrap_or(Value::Null);
    (status, body)
}

/// GET `path`, which must answer 200.
fn get(base: &str, path: &str) -> Value {
    let (status, body) = call(base, "GET", path);
    assert_eq!(status, 200, "{path}: {body}");
    body
}

/// Walks the pages of `path` (`?` or `&` already in it) with `limit`, the list under
/// `key`: every entry, in order; checks that each page holds at most `limit` entries
/// (one prefix per neighbour: each page of B's is whole prefixes).
fn walk(base: &str, path: &str, key: &str, limit: usize) -> Vec<Value> {
    let sep = if path.contains('?') { '&' } else { '?' };
    let mut all = vec![];
    let mut after: Option<String> = None;
    for _ in 0..1000 {
        let url = match &after {
            None => format!("{path}{sep}limit={limit}"),
            Some(a) => format!("{path}{sep}limit={limit}&after={a}"),
        };
        let page = get(base, &url);
        let entries = page[key].as_array().unwrap();
        assert!(entries.len() <= limit.max(2), "{url}: {page}");
        all.extend(entries.iter().cloned());
        match &page["next"] {
            Value::Null => return all,
            Value::String(s) => after = Some(s.clone()),
            n => after = Some(n.to_string()),
        }
    }
    panic!("{path}: paging did not end");
}

/// (neighbor, prefix) of each route.
fn keys_of(routes: &[Value]) -> Vec<(String, String)> {
    routes
        .iter()
        .map(|r| {
            (
                r["neighbor"].as_str().unwrap().to_owned(),
                r["prefix"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn prefixes_of(routes: &[Value]) -> BTreeSet<String> {
    routes
        .iter()
        .map(|r| r["prefix"].as_str().unwrap().to_owned())
        .collect()
}

/// A, B and C running, B's API at the returned base URL, once B holds A's routes
/// valid, C's found Not Valid and withdrawn, and its queues are empty.
fn three_speakers(s: &Scratch) -> (Vec<Running>, String) {
    keys(s, SUITE, &[65301, 65302, 65303], &[65301, 65302]);
    let (pb, http) = (free_port(), free_port());
    let to_b = [Nb {
        address: B,
        port: pb,
        remote_as: 65302,
        passive: false,
        bgpsec: true,
    }];
    let many = |first: &str, list: Vec<String>| {
        let quoted: Vec<String> = list.iter().map(|p| format!("\"{p}\"")).collect();
        (
            format!("originate = [\"{first}\"]"),
            format!("originate = [{}]", quoted.join(", ")),
        )
    };
    let b_conf = config(
        "b",
        65302,
        B,
        Some(pb),
        "lazy",
        SUITE,
        "10.202.0.0/16",
        &[
            Nb {
                address: A,
                port: 179,
                remote_as: 65301,
                passive: true,
                bgpsec: true,
            },
            Nb {
                address: C,
                port: 179,
                remote_as: 65303,
                passive: true,
                bgpsec: true,
            },
        ],
    ) + &format!("[http]\nlisten = \"127.0.0.1:{http}\"\n");
    let b = start(s, "b", b_conf);
    let (from, to) = many(&a_prefix(0), (0..A_ROUTES).map(a_prefix).collect());
    let a_conf =
        config("a", 65301, A, None, "strict", SUITE, &a_prefix(0), &to_b).replace(&from, &to);
    let a = start(s, "a", a_conf);
    let (from, to) = many(&c_prefix(0), (0..3).map(c_prefix).collect());
    let c_conf =
        config("c", 65303, C, None, "strict", SUITE, &c_prefix(0), &to_b).replace(&from, &to);
    let c = start(s, "c", c_conf);
    let base = format!("http://127.0.0.1:{http}");
    wait_for(
        s,
        "B's API to answer with A's routes valid and C's withdrawn",
        || {
            let Ok(mut r) = agent()
                .get(format!("{base}/rib/in?state=valid&limit=1000"))
                .call()
            else {
                return false;
            };
            let Ok(v) = r.body_mut().read_json::<Value>() else {
                return false;
            };
            let done = v["adj_rib_in"]
                .as_array()
                .is_some_and(|r| r.len() == usize::from(A_ROUTES));
            done && status(s, "b").is_some_and(|st| {
                st["validation_queue"] == 0
                    && st["not_valid_total"] == 3
                    && st["adj_rib_out"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|r| !r["prefix"].as_str().unwrap().starts_with("10.203."))
            })
        },
    );
    (vec![a, b, c], base)
}

#[test]
fn every_endpoint_answers_what_the_sessions_sent() {
    let s = Scratch::new();
    let (_speakers, base) = three_speakers(&s);

    // /neighbors: both sessions, Established, with what each sent.
    let v = get(&base, "/neighbors");
    assert_eq!(v["local_as"], 65302);
    let sessions = v["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 2, "{v}");
    assert_eq!(session_of(&v, A)["state"], "Established");
    assert_eq!(session_of(&v, A)["remote_as"], 65301);
    assert_eq!(session_of(&v, C)["state"], "Established");
    // The same shape as the status file's sessions.
    let st = status(&s, "b").unwrap();
    for (api, file) in sessions.iter().zip(st["sessions"].as_array().unwrap()) {
        let keys = |o: &Value| o.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(api), keys(file));
    }

    // /neighbors/{addr}: the table sizes.
    let a = get(&base, &format!("/neighbors/{A}"));
    assert_eq!(a["address"], A);
    assert_eq!(a["adj_rib_in_count"], A_ROUTES);
    assert_eq!(a["accepted_prefixes"], A_ROUTES);
    let c = get(&base, &format!("/neighbors/{C}"));
    assert_eq!(c["adj_rib_in_count"], 3);
    // To C: A's routes and B's own; to A: B's own only (C's were withdrawn).
    assert_eq!(c["adj_rib_out_count"], A_ROUTES + 1);
    assert_eq!(a["adj_rib_out_count"], 1);

    // /rib/in, paged by 7 and by 1000: every route once, in prefix order.
    let sent: BTreeSet<(String, String)> = (0..A_ROUTES)
        .map(|i| (A.to_owned(), a_prefix(i)))
        .chain((0..3).map(|i| (C.to_owned(), c_prefix(i))))
        .collect();
    for limit in [7, 1000] {
        let routes = walk(&base, "/rib/in", "adj_rib_in", limit);
        let got = keys_of(&routes);
        let unique: BTreeSet<_> = got.iter().cloned().collect();
        assert_eq!(unique.len(), got.len(), "a route twice at limit {limit}");
        assert_eq!(unique, sent, "limit {limit}");
    }
    assert_eq!(
        get(&base, "/rib/in?limit=1")["adj_rib_in_count"],
        A_ROUTES + 3
    );

    // Verdicts: A's routes valid and installed, C's Not Valid and not installed.
    let valid = walk(&base, "/rib/in?state=valid", "adj_rib_in", 50);
    assert_eq!(valid.len(), usize::from(A_ROUTES));
    for r in &valid {
        assert_eq!(r["neighbor"], A);
        assert_eq!(r["validation"], "valid (suite 1)");
        assert_eq!(r["bgpsec"], true);
        assert_eq!(r["installed"], true);
        assert_eq!(r["as_path"], "65301");
    }
    let bad = walk(&base, "/rib/in?state=not-valid", "adj_rib_in", 50);
    assert_eq!(
        prefixes_of(&bad),
        (0..3).map(c_prefix).collect::<BTreeSet<_>>()
    );
    for r in &bad {
        assert_eq!(r["neighbor"], C);
        assert!(
            r["validation"].as_str().unwrap().starts_with("not valid"),
            "{r}"
        );
        assert_eq!(r["installed"], false);
    }
    assert_eq!(
        get(&base, "/rib/in?state=pending")["adj_rib_in"],
        Value::Array(vec![])
    );
    assert_eq!(
        get(&base, "/rib/in?state=unsigned")["adj_rib_in"],
        Value::Array(vec![])
    );

    // One prefix, one neighbour.
    let one = get(&base, &format!("/rib/in?prefix={}", a_prefix(5)));
    assert_eq!(
        keys_of(one["adj_rib_in"].as_array().unwrap()),
        [(A.to_owned(), a_prefix(5))]
    );
    assert_eq!(one["next"], Value::Null);
    let none = get(&base, "/rib/in?prefix=192.0.2.0/24");
    assert_eq!(none["adj_rib_in"], Value::Array(vec![]));
    let of_c = walk(&base, &format!("/rib/in?neighbor={C}"), "adj_rib_in", 2);
    assert_eq!(
        keys_of(&of_c),
        (0..3)
            .map(|i| (C.to_owned(), c_prefix(i)))
            .collect::<Vec<_>>()
    );
    let of_a = get(&base, &format!("/rib/in?neighbor={A}&state=not-valid"));
    assert_eq!(of_a["adj_rib_in"], Value::Array(vec![]));
    assert_eq!(of_a["adj_rib_in_count"], A_ROUTES);

    // /rib/out/{addr}: what B sent each, paged.
    let to_c = walk(&base, &format!("/rib/out/{C}"), "adj_rib_out", 11);
    let expected: BTreeSet<String> = (0..A_ROUTES)
        .map(a_prefix)
        .chain(["10.202.0.0/16".to_owned()])
        .collect();
    assert_eq!(to_c.len(), expected.len(), "a route twice");
    assert_eq!(prefixes_of(&to_c), expected);
    for r in &to_c {
        assert_eq!(r["neighbor"], C);
        assert_eq!(r["bgpsec"], true);
        let path = r["as_path"].as_str().unwrap();
        assert!(path == "65302 65301" || path == "65302", "{r}");
    }
    let to_a = walk(&base, &format!("/rib/out/{A}"), "adj_rib_out", 11);
    assert_eq!(prefixes_of(&to_a), ["10.202.0.0/16".to_owned()].into());

    // /not-valid: C's three routes, with why and where they had gone.
    let nv = walk(&base, "/not-valid", "not_valid", 2);
    assert_eq!(
        prefixes_of(&nv),
        (0..3).map(c_prefix).collect::<BTreeSet<_>>()
    );
    assert_eq!(nv.len(), 3);
    for (i, e) in nv.iter().enumerate() {
        assert_eq!(e["index"], i);
        assert_eq!(e["neighbor"], C);
        assert!(!e["reason"].as_str().unwrap().is_empty());
    }
    assert_eq!(get(&base, "/not-valid")["not_valid_total"], 3);

    // /rpki: the two published router keys, no caches.
    let rpki = get(&base, "/rpki");
    assert_eq!(rpki["router_keys"], 2);
    assert_eq!(rpki["vrps"], 0);
    assert_eq!(rpki["caches"], Value::Array(vec![]));
    assert_eq!(rpki["revalidations_pending"], 0);

    // Errors: JSON, with the right status codes.
    for (method, path, code, says) in [
        (
            "GET",
            "/neighbors/127.0.3.9".to_owned(),
            404,
            "no neighbour 127.0.3.9",
        ),
        ("GET", "/rib/out/127.0.3.9".to_owned(), 404, "no neighbour"),
        (
            "GET",
            "/rib/in?neighbor=127.0.3.9".to_owned(),
            404,
            "no neighbour",
        ),
        (
            "GET",
            "/neighbors/nobody".to_owned(),
            400,
            "not an IP address",
        ),
        ("GET", "/rib/in?limit=0".to_owned(), 400, "limit"),
        ("GET", "/rib/in?limit=1001".to_owned(), 400, "limit"),
        ("GET", "/rib/in?state=maybe".to_owned(), 400, "not-valid"),
        (
            "GET",
            "/rib/in?prefix=10.0.0.1/8".to_owned(),
            400,
            "bits set",
        ),
        ("GET", "/rib/in?after=nonsense".to_owned(), 400, "after"),
        (
            "GET",
            "/rib/in?sort=prefix".to_owned(),
            400,
            "unknown parameter",
        ),
        ("GET", "/not-valid?after=x".to_owned(), 400, "after"),
        ("POST", "/neighbors".to_owned(), 405, "read-only"),
        ("DELETE", format!("/neighbors/{A}"), 405, "read-only"),
        ("GET", "/routes".to_owned(), 404, "no such path"),
    ] {
        let (status, body) = call(&base, method, &path);
        assert_eq!(status, code, "{method} {path}: {body}");
        assert!(
            body["error"].as_str().is_some_and(|e| e.contains(says)),
            "{method} {path}: {body}"
        );
    }
    // /metrics is still there beside the API.
    let metrics = agent()
        .get(format!("{base}/metrics"))
        .call()
        .unwrap()
        .status();
    assert_eq!(metrics.as_u16(), 200);

    // `hopsig speaker show`: tables by default, JSON with --json.
    let conf = s.p("b.toml");
    let out = common::stdout(&s.ok(&["speaker", "show", &conf, "neighbors"]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("NEIGHBOR"), "{out}");
    for (line, (addr, asn, accepted)) in lines[1..]
        .iter()
        .zip([(A, "65301", "150"), (C, "65303", "0")])
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f[0], addr, "{out}");
        assert_eq!(f[1], asn, "{out}");
        assert_eq!(f[2], "Established", "{out}");
        if addr == A {
            assert_eq!(f[6], accepted, "{out}");
        }
    }
    let json: Value = serde_json::from_slice(
        &s.ok(&["speaker", "show", &conf, "neighbors", "--json"])
            .stdout,
    )
    .unwrap();
    let addresses = |v: &Value| {
        v["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["address"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(addresses(&json), [A, C]);
    let out = common::stdout(&s.ok(&["speaker", "show", &conf, "neighbor", C]));
    assert!(out.contains("adj_rib_in_count   3"), "{out}");
    assert!(
        out.contains(&format!("adj_rib_out_count  {}", A_ROUTES + 1)),
        "{out}"
    );
    // rib-in walks every page: one line per route after the header.
    let out = common::stdout(&s.ok(&["speaker", "show", &conf, "rib-in"]));
    assert_eq!(out.lines().count(), 1 + usize::from(A_ROUTES) + 3, "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with(&format!("* {}", a_prefix(7))) && l.contains("valid (suite 1)")),
        "{out}"
    );
    let out = common::stdout(&s.ok(&[
        "speaker",
        "show",
        &conf,
        "rib-in",
        "--state",
        "not-valid",
        "--json",
    ]));
    let mut lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // JSON lines end with the trailer: the metadata block and the count
    // (docs/spec/json.md).
    let trailer = lines.pop().unwrap();
    assert!(trailer["metadata"]["hopsig"].is_string(), "{out}");
    assert_eq!(trailer["summary"]["entries"], 3, "{out}");
    assert!(lines.iter().all(|l| l.get("metadata").is_none()), "{out}");
    assert_eq!(
        prefixes_of(&lines),
        (0..3).map(c_prefix).collect::<BTreeSet<_>>()
    );
    let out = common::stdout(&s.ok(&[
        "speaker",
        "show",
        &conf,
        "rib-in",
        "--prefix",
        &a_prefix(3),
        "--neighbor",
        A,
    ]));
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(out.contains(&a_prefix(3)), "{out}");
    let out = common::stdout(&s.ok(&["speaker", "show", &conf, "rib-out", C, "--json"]));
    // A's routes, B's own, and the trailer.
    assert_eq!(out.lines().count(), usize::from(A_ROUTES) + 2, "{out}");
    let trailer: Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(
        trailer["summary"]["entries"],
        u64::from(A_ROUTES) + 1,
        "{out}"
    );
    let out = common::stdout(&s.ok(&["speaker", "show", &conf, "not-valid"]));
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(out.contains(&c_prefix(2)), "{out}");
    let out = common::stdout(&s.ok(&["speaker", "show", &conf, "rpki"]));
    assert!(out.contains("0 VRPs, 2 router keys"), "{out}");
    // An unknown neighbour: exit 2 with the API's reason.
    s.exits(
        2,
        &["speaker", "show", &conf, "neighbor", "127.0.3.9"],
        "HTTP 404: no neighbour 127.0.3.9",
    );
    s.exits(
        2,
        &["speaker", "show", &conf, "rib-in", "--state", "maybe"],
        "HTTP 400: state \"maybe\"",
    );
}

/// `hopsig speaker show` without a speaker to ask: no `[http]` in the configuration,
/// or nothing listening there; each an exit 2 that says why.
#[test]
fn show_says_why_it_cannot_ask() {
    let s = Scratch::new();
    let base =
        "local_as = 65001\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nstate_file = \"s.json\"\n";
    let no_http = s.write("no-http.toml", base);
    s.exits(
        2,
        &["speaker", "show", &no_http, "neighbors"],
        "no [http] listen",
    );
    let port = free_port();
    let not_running = s.write(
        "not-running.toml",
        format!("{base}[http]\nlisten = \"127.0.0.1:{port}\"\n"),
    );
    let o = s.exits(
        2,
        &["speaker", "show", &not_running, "rib-in"],
        "connection refused",
    );
    assert!(common::stderr(&o).contains(&format!("127.0.0.1:{port}")));
}

/// A non-loopback `[http] listen` is refused when the configuration is loaded,
/// unless `allow_remote` says so.
#[test]
fn a_remote_http_listen_needs_allow_remote() {
    let s = Scratch::new();
    let base =
        "local_as = 65001\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nstate_file = \"s.json\"\n";
    let remote = s.write(
        "remote.toml",
        format!("{base}[http]\nlisten = \"0.0.0.0:{}\"\n", free_port()),
    );
    let o = s.exits(2, &["speaker", "run", &remote], "not a loopback address");
    assert!(common::stderr(&o).contains("allow_remote = true"));
    s.exits(
        2,
        &["speaker", "show", &remote, "neighbors"],
        "not a loopback address",
    );
}
