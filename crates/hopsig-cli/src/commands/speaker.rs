//! `hopsig speaker run CONFIG` and `hopsig speaker status CONFIG`: a BGP speaker with
//! BGPsec (crate::speaker; docs/spec/speaker.md).

use std::path::PathBuf;

use crate::io::{self, say, say_json, Outcome};
use crate::speaker::config::Config;

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
}

/// Runs the subcommand.
pub fn run(args: Args) -> Outcome {
    match args.command {
        Command::Run { config } => crate::speaker::run(Config::load(&config)?),
        Command::Status { config, json } => {
            let config = Config::load(&config)?;
            let path = &config.state_file;
            let text = io::read(path, MAX_STATUS_LEN, "speaker state file")?;
            let value: serde_json::Value =
                serde_json::from_slice(&text).map_err(|e| io::at(path, e))?;
            if json {
                return say_json(&value);
            }
            summary(&value).ok_or_else(|| io::at(path, "not a speaker state file"))?
        }
    }
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
    Some(lines.iter().try_for_each(say))
}
