//! `hopsig speaker show CONFIG …`: asks the running speaker of CONFIG through its
//! read-only HTTP API (`[http] listen`; docs/spec/speaker.md, "HTTP API"), as `gobgp`
//! asks gobgpd and `birdc` BIRD: human tables by default, `--json` for the API's JSON
//! (the list commands print one route per line, JSON lines, walking every page).

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use hopsig_bgp::speaker::config::Config;
use serde_json::Value;

use crate::io::{say, say_json, say_json_line, Failure, Outcome};

/// Longest wait for one answer of the speaker.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Routes asked for per page: the API's most.
const PAGE: &str = "1000";

/// Largest answer read (a page of 1000 routes is a few hundred KiB).
const MAX_ANSWER: u64 = 64 << 20;

/// What to show.
#[derive(clap::Subcommand)]
pub enum Show {
    /// Every neighbour: address, AS, session state, UPDATEs in and out, prefixes
    /// accepted.
    Neighbors,
    /// One neighbour, with the sizes of its Adj-RIB-In and Adj-RIB-Out.
    Neighbor {
        /// The neighbour's address, as configured.
        address: IpAddr,
    },
    /// The routes received (Adj-RIB-In) with their BGPsec, ROV and ASPA verdicts.
    RibIn {
        /// Only the routes of this prefix (address/length).
        #[arg(long)]
        prefix: Option<String>,
        /// Only the routes in this BGPsec state: pending, valid, not-valid, unsigned.
        #[arg(long)]
        state: Option<String>,
        /// Only the routes from this neighbour.
        #[arg(long)]
        neighbor: Option<IpAddr>,
    },
    /// The routes sent to a neighbour (its Adj-RIB-Out).
    RibOut {
        /// The neighbour's address, as configured.
        address: IpAddr,
    },
    /// The routes found Not Valid and withdrawn (lazy mode), with why.
    NotValid,
    /// The RPKI view in force and the state of each RTR cache.
    Rpki,
}

/// Where the API of `config`'s speaker answers: its `[http] listen` address, a
/// wildcard one asked on loopback.
fn base_url(config: &Config, path: &std::path::Path) -> Result<String, Failure> {
    let Some(mut addr) = config.http.listen else {
        return Err(Failure::Input(format!(
            "{}: no [http] listen: the speaker serves no API (add [http] listen = \"127.0.0.1:PORT\"; docs/guide/api.md)",
            path.display()
        )));
    };
    if addr.ip().is_unspecified() {
        let ip = match addr {
            SocketAddr::V4(_) => IpAddr::from([127, 0, 0, 1]),
            SocketAddr::V6(_) => IpAddr::from(std::net::Ipv6Addr::LOCALHOST),
        };
        addr.set_ip(ip);
    }
    Ok(format!("http://{addr}"))
}

/// One question to the API.
struct Api {
    agent: ureq::Agent,
    base: String,
}

impl Api {
    /// GET `path` with `query`: the answer's JSON, or a failure that says why (the
    /// speaker not running, the API's `error`).
    fn get(&self, path: &str, query: &[(&str, &str)]) -> Result<Value, Failure> {
        let url = format!("{}{path}", self.base);
        let mut r = self
            .agent
            .get(&url)
            .query_pairs(query.iter().copied())
            .call()
            .map_err(|e| match e {
                ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
                    Failure::Input(format!(
                        "no speaker API at {} (connection refused): is `hopsig speaker run` running with this configuration?",
                        self.base
                    ))
                }
                e => Failure::Input(format!("{url}: {e}")),
            })?;
        let status = r.status();
        let body: Value = r
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER)
            .read_json()
            .map_err(|e| Failure::Input(format!("{url}: HTTP {status}: {e}")))?;
        if !status.is_success() {
            return Err(Failure::Input(format!(
                "{url}: HTTP {}: {}",
                status.as_u16(),
                body["error"].as_str().unwrap_or("no reason given")
            )));
        }
        Ok(body)
    }

    /// Every page of `path` (the list under `key`), each entry handed to `each`.
    fn walk(
        &self,
        path: &str,
        query: &[(&str, &str)],
        key: &str,
        mut each: impl FnMut(&Value) -> Outcome,
    ) -> Result<u64, Failure> {
        let mut after: Option<String> = None;
        let mut count = 0;
        loop {
            let mut q: Vec<(&str, &str)> = query.to_vec();
            q.push(("limit", PAGE));
            if let Some(a) = &after {
                q.push(("after", a));
            }
            let page = self.get(path, &q)?;
            for entry in page[key].as_array().into_iter().flatten() {
                each(entry)?;
                count += 1;
            }
            let next = match &page["next"] {
                Value::Null => return Ok(count),
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if after.as_deref() == Some(next.as_str()) {
                return Err(Failure::Input(format!(
                    "{path}: the cursor did not move past {next}"
                )));
            }
            after = Some(next);
        }
    }
}

/// Runs `hopsig speaker show` against the speaker of `config` (read from `path`).
pub fn run(config: &Config, path: &std::path::Path, what: Show, json: bool) -> Outcome {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(TIMEOUT))
        .http_status_as_error(false)
        // The API is on loopback (or behind the operator's own proxy): an
        // HTTP_PROXY of the environment must not catch it.
        .proxy(None)
        .build()
        .into();
    let api = Api {
        agent,
        base: base_url(config, path)?,
    };
    let text = |v: &Value, k: &str| match &v[k] {
        Value::Null => "-".to_owned(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match what {
        Show::Neighbors => {
            let v = api.get("/neighbors", &[])?;
            if json {
                return say_json(&v);
            }
            say(format_args!(
                "{:<39} {:>10} {:<12} {:>6} {:>10} {:>10} {:>10}",
                "NEIGHBOR", "AS", "STATE", "BGPSEC", "UPDATES-IN", "UPDATES-OUT", "ACCEPTED"
            ))?;
            for s in v["sessions"].as_array().into_iter().flatten() {
                say(format_args!(
                    "{:<39} {:>10} {:<12} {:>6} {:>10} {:>10} {:>10}",
                    text(s, "address"),
                    text(s, "remote_as"),
                    text(s, "state"),
                    text(s, "bgpsec"),
                    text(s, "updates_in"),
                    text(s, "updates_out"),
                    text(s, "accepted_prefixes"),
                ))?;
            }
            Ok(())
        }
        Show::Neighbor { address } => {
            let v = api.get(&format!("/neighbors/{address}"), &[])?;
            if json {
                return say_json(&v);
            }
            for k in [
                "address",
                "remote_as",
                "state",
                "bgpsec",
                "bgpsec_ipv6",
                "families",
                "updates_in",
                "updates_out",
                "accepted_prefixes",
                "max_prefixes",
                "adj_rib_in_count",
                "adj_rib_out_count",
                "out_queue_bytes",
                "out_held_back",
                "last_error",
            ] {
                say(format_args!("{k:<18} {}", text(&v, k)))?;
            }
            Ok(())
        }
        Show::RibIn {
            prefix,
            state,
            neighbor,
        } => {
            let neighbor = neighbor.map(|n| n.to_string());
            let mut q = vec![];
            for (k, v) in [
                ("prefix", &prefix),
                ("state", &state),
                ("neighbor", &neighbor),
            ] {
                if let Some(v) = v {
                    q.push((k, v.as_str()));
                }
            }
            if !json {
                say(format_args!(
                    "  {:<43} {:<39} {:<20} {:<10} {:<9} {:<9} AS PATH",
                    "PREFIX", "NEIGHBOR", "BGPSEC", "ROV", "ASPA", "LOCPREF"
                ))?;
            }
            let entries = api.walk("/rib/in", &q, "adj_rib_in", |r| {
                if json {
                    return say_json_line(r);
                }
                say(format_args!(
                    "{} {:<43} {:<39} {:<20} {:<10} {:<9} {:<9} {}",
                    if r["installed"] == true { '*' } else { ' ' },
                    text(r, "prefix"),
                    text(r, "neighbor"),
                    text(r, "validation"),
                    text(r, "rov"),
                    text(r, "aspa"),
                    text(r, "local_pref"),
                    text(r, "as_path"),
                ))
            })?;
            trailer(json, entries)
        }
        Show::RibOut { address } => {
            if !json {
                say(format_args!("{:<43} {:<7} AS PATH", "PREFIX", "BGPSEC"))?;
            }
            let entries = api.walk(&format!("/rib/out/{address}"), &[], "adj_rib_out", |r| {
                if json {
                    return say_json_line(r);
                }
                say(format_args!(
                    "{:<43} {:<7} {}",
                    text(r, "prefix"),
                    text(r, "bgpsec"),
                    text(r, "as_path")
                ))
            })?;
            trailer(json, entries)
        }
        Show::NotValid => {
            if !json {
                say(format_args!(
                    "{:<43} {:<39} {:<30} WITHDRAWN FROM",
                    "PREFIX", "NEIGHBOR", "REASON"
                ))?;
            }
            let entries = api.walk("/not-valid", &[], "not_valid", |e| {
                if json {
                    return say_json_line(e);
                }
                let from: Vec<String> = e["withdrawn_from"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|a| a.as_str().map(str::to_owned))
                    .collect();
                say(format_args!(
                    "{:<43} {:<39} {:<30} {}",
                    text(e, "prefix"),
                    text(e, "neighbor"),
                    text(e, "reason"),
                    from.join(", ")
                ))
            })?;
            trailer(json, entries)
        }
        Show::Rpki => {
            let v = api.get("/rpki", &[])?;
            if json {
                return say_json(&v);
            }
            say(format_args!(
                "RPKI view {}: {} VRPs, {} router keys, {} ASPAs, revalidations pending {}",
                text(&v, "generation"),
                text(&v, "vrps"),
                text(&v, "router_keys"),
                text(&v, "aspas"),
                text(&v, "revalidations_pending")
            ))?;
            for c in v["caches"].as_array().into_iter().flatten() {
                say(format_args!(
                    "cache {}:{} preference {} {}{}",
                    text(c, "address"),
                    text(c, "port"),
                    text(c, "preference"),
                    text(c, "state"),
                    c["last_error"]
                        .as_str()
                        .map(|e| format!(" ({e})"))
                        .unwrap_or_default()
                ))?;
            }
            Ok(())
        }
    }
}

/// The last line of a `--json` list (docs/spec/json.md, "JSON lines"): the metadata
/// block and the number of entries printed.
fn trailer(json: bool, entries: u64) -> Outcome {
    if json {
        return say_json(&serde_json::json!({ "summary": { "entries": entries } }));
    }
    Ok(())
}
