//! `hopsig speaker run CONFIG`, `status`, `refresh` and `reload`: a BGP speaker with
//! BGPsec (`hopsig_bgp::speaker`; docs/spec/speaker.md). This command reads the
//! configuration file and the status file; the speaker is the library's.
//! `hopsig speaker show CONFIG …` asks it through its HTTP API ([`show`]).

mod show;

use std::path::{Path, PathBuf};

use hopsig_bgp::speaker::config::{Config, MAX_CONFIG_LEN};

use crate::io::{self, say, say_json, Failure, Outcome};

/// Largest status file read.
const MAX_STATUS_LEN: u64 = 256 << 20;

/// A BGP-4 speaker with BGPsec: strict or lazy validation.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Run the speaker of CONFIG (TOML; docs/spec/speaker.md) until stopped.
    Run {
        /// The configuration file.
        config: PathBuf,
    },
    /// Show the sessions and routes of the speaker of CONFIG, from its state file.
    Status {
        /// The configuration file.
        config: PathBuf,
        /// Print the whole status file (JSON) instead of a summary.
        #[arg(long)]
        json: bool,
    },
    /// Ask the running speaker of CONFIG to request a route refresh (RFC 2918) from
    /// NEIGHBOR: it sends a ROUTE-REFRESH within half a second.
    Refresh {
        /// The configuration file.
        config: PathBuf,
        /// The neighbour's address, as configured.
        neighbor: std::net::IpAddr,
    },
    /// Ask the running speaker of CONFIG through its read-only HTTP API ([http]
    /// listen): neighbours, routes received and sent, Not Valid routes, the RPKI view.
    Show {
        /// The configuration file.
        config: PathBuf,
        /// Print the API's JSON (one line per route for the route lists) instead of
        /// a table.
        #[arg(long, global = true)]
        json: bool,
        /// What to show.
        #[command(subcommand)]
        what: show::Show,
    },
    /// Ask the running speaker of CONFIG to read CONFIG again and apply it without
    /// a restart (as SIGHUP does; docs/guide/reload.md): waits for its answer and
    /// prints what changed; exit 2 if the new configuration is refused (the running
    /// one stays) or the speaker does not answer.
    Reload {
        /// The configuration file: the speaker's own, or one to replace it.
        config: PathBuf,
        /// Seconds to wait for the speaker's answer.
        #[arg(long, default_value_t = 10)]
        wait: u64,
    },
}

impl Args {
    /// Whether the subcommand runs until stopped (`run`).
    pub fn long_running(&self) -> bool {
        matches!(self.command, Command::Run { .. })
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> Outcome {
    match args.command {
        Command::Run { config } => hopsig_bgp::speaker::run_file(load(&config)?, config)
            .map_err(|e| Failure::Input(e.to_string())),
        Command::Reload { config, wait } => reload(&config, wait),
        Command::Status { config, json } => {
            let config = load(&config)?;
            let path = &config.state_file;
            let text = io::read(path, MAX_STATUS_LEN, "speaker state file")?;
            let value: serde_json::Value =
                serde_json::from_slice(&text).map_err(|e| io::at(path, e))?;
            if json {
                return say_json(&value);
            }
            summary(&value).ok_or_else(|| io::at(path, "not a speaker state file"))?
        }
        Command::Refresh { config, neighbor } => {
            let config = load(&config)?;
            if !config.neighbors.iter().any(|n| n.address == neighbor) {
                return Err(Failure::Input(format!(
                    "{neighbor} is not a neighbour in the configuration"
                )));
            }
            hopsig_bgp::speaker::control::request_refresh(&config.state_file, neighbor)
                .map_err(|e| io::at(&config.state_file, e))?;
            say(format!("route refresh of {neighbor} requested"))
        }
        Command::Show { config, json, what } => show::run(&load(&config)?, &config, what, json),
    }
}

/// `hopsig speaker reload`: the request written beside the status file, the answer
/// awaited in the result file (docs/spec/speaker.md "Reload").
fn reload(path: &Path, wait: u64) -> Outcome {
    use hopsig_bgp::speaker::control;
    let config = load(path).map_err(|f| match f {
        Failure::Input(why) => Failure::Input(format!("reload refused: {why}")),
        other => other,
    })?;
    let state = &config.state_file;
    if !state.exists() {
        return Err(Failure::Input(format!(
            "the speaker of {} is not running: no status file {}",
            path.display(),
            state.display()
        )));
    }
    let absolute = std::path::absolute(path).map_err(|e| io::at(path, e))?;
    let token = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    );
    control::request_reload(state, &token, &absolute).map_err(|e| io::at(state, e))?;
    let results = control::reload_result_file(state);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(wait);
    loop {
        if let Some(answer) = answer(&results, &token) {
            return match answer["result"].as_str() {
                Some("applied") => say(format!(
                    "reload {} applied: {}",
                    answer["generation"],
                    changes(&answer)
                )),
                _ => Err(Failure::Input(format!(
                    "reload {} refused: {}; the running configuration stays",
                    answer["generation"],
                    answer["reason"].as_str().unwrap_or("no reason given")
                ))),
            };
        }
        if std::time::Instant::now() >= until {
            return Err(Failure::Input(format!(
                "no answer from the speaker of {} within {wait} s: is it running?",
                path.display()
            )));
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The outcome answering `token` in the result file `path`, if there is one yet.
fn answer(path: &Path, token: &str) -> Option<serde_json::Value> {
    let text = std::fs::read(path).ok()?;
    let all: serde_json::Value = serde_json::from_slice(&text).ok()?;
    all.as_array()?
        .iter()
        .find(|o| o["token"].as_str() == Some(token))
        .cloned()
}

/// `1 added (127.0.0.3), 0 removed, …` of an outcome.
fn changes(o: &serde_json::Value) -> String {
    let list = |key: &str| -> Vec<String> {
        o[key]
            .as_array()
            .map(|v| {
                v.iter()
                    .filter_map(|a| a.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut parts: Vec<String> = [
        ("added", "added"),
        ("removed", "removed"),
        ("changed", "changed"),
        ("reset", "sessions reset"),
    ]
    .iter()
    .map(|(key, what)| match list(key) {
        v if v.is_empty() => format!("0 {what}"),
        v => format!("{} {what} ({})", v.len(), v.join(", ")),
    })
    .collect();
    if o["rpki"] == true {
        parts.push("RPKI sources reloaded".into());
    }
    if o["originate"] == true {
        parts.push("prefixes originated changed".into());
    }
    parts.join(", ")
}

/// The configuration file `path`; relative file names in it are taken from its folder.
fn load(path: &Path) -> Result<Config, Failure> {
    let text = io::read(path, MAX_CONFIG_LEN, "speaker configuration")?;
    let text = std::str::from_utf8(&text).map_err(|e| io::at(path, e))?;
    Config::from_toml_str(text, path.parent().unwrap_or(Path::new(".")))
        .map_err(|e| io::at(path, e))
}

/// One line per session, then the route counts.
fn summary(v: &serde_json::Value) -> Option<Outcome> {
    let mut lines = vec![format!(
        "AS{} router id {} mode {}",
        v["local_as"].as_u64()?,
        v["router_id"].as_str()?,
        v["mode"].as_str()?
    )];
    for s in v["sessions"].as_array()? {
        lines.push(format!(
            "  {} AS{} {} bgpsec {} in {} out {}",
            s["address"].as_str()?,
            s["remote_as"].as_u64()?,
            s["state"].as_str()?,
            s["bgpsec"],
            s["updates_in"].as_u64()?,
            s["updates_out"].as_u64()?
        ));
    }
    lines.push(format!(
        "  Adj-RIB-In {} routes, Adj-RIB-Out {} routes, validation queue {}, not valid {}",
        v["adj_rib_in_count"].as_u64()?,
        v["adj_rib_out_count"].as_u64()?,
        v["validation_queue"].as_u64()?,
        v["not_valid_total"].as_u64()?
    ));
    // Status version 5 (issue 26 §1): route lists cut to fit status_max_bytes.
    if let Some(t) = v.get("status_truncated").filter(|t| !t.is_null()) {
        let l = &t["listed"];
        lines.push(format!(
            "  status file cut to status_max_bytes {}: lists {} of {} originated, {} of {} Adj-RIB-In, {} of {} Adj-RIB-Out routes",
            t["max_bytes"].as_u64()?,
            l["originated"].as_u64()?,
            v["originated_count"].as_u64()?,
            l["adj_rib_in"].as_u64()?,
            v["adj_rib_in_count"].as_u64()?,
            l["adj_rib_out"].as_u64()?,
            v["adj_rib_out_count"].as_u64()?
        ));
    }
    // IPv6 unicast (issue 25 §4): status files before it have no such counts.
    if let (Some(i), Some(o)) = (
        v["adj_rib_in_ipv6_count"].as_u64(),
        v["adj_rib_out_ipv6_count"].as_u64(),
    ) {
        lines.push(format!(
            "  of which IPv6: Adj-RIB-In {i} routes, Adj-RIB-Out {o} routes"
        ));
    }
    // Status files before version 3 have no RPKI view.
    if let Some(r) = v.get("rpki") {
        lines.push(format!(
            "  RPKI view {}: {} VRPs, {} router keys, {} ASPAs, revalidations pending {}",
            r["generation"].as_u64()?,
            r["vrps"].as_u64()?,
            r["router_keys"].as_u64()?,
            r["aspas"].as_u64()?,
            r["revalidations_pending"].as_u64()?
        ));
        for c in r["caches"].as_array()? {
            lines.push(format!(
                "  cache {}:{} preference {} {}{}",
                c["address"].as_str()?,
                c["port"].as_u64()?,
                c["preference"].as_u64()?,
                c["state"].as_str()?,
                c["last_error"]
                    .as_str()
                    .map(|e| format!(" ({e})"))
                    .unwrap_or_default()
            ));
        }
    }
    Some(lines.iter().try_for_each(say))
}
