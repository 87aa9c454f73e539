//! `hopsig schemes`: the scheme table.

use hopsig_schemes::registry::{self, Param};

use crate::io::{say, say_json, Outcome};

/// List scheme ids with a one-line description.
#[derive(clap::Args)]
pub struct Args {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Prints [`registry::ALL_SCHEMES`].
pub fn run(args: Args) -> Outcome {
    let list = &registry::ALL_SCHEMES;
    if args.json {
        let rows: Vec<_> = list
            .iter()
            .map(|e| serde_json::json!({ "id": e.id, "description": e.description }))
            .collect();
        return say_json(&serde_json::Value::Array(rows));
    }
    let width = list.iter().map(|e| e.id.len()).max().unwrap_or(0);
    for e in list {
        say(format_args!("{:width$}  {}", e.id, e.description))?;
    }
    let mut aliases = Vec::new();
    let mut range = None;
    for e in list {
        if let Param::RandomR { bits, .. } = &e.param {
            aliases.push(format!("{}-rBITS", e.id));
            range = Some(bits);
        }
    }
    if let Some(bits) = range {
        say("")?;
        say(format_args!(
            "{} select the basic scheme with ℓ_r = BITS ({}..={}, multiple of 8).",
            aliases.join(" / "),
            bits.start(),
            bits.end()
        ))?;
    }
    Ok(())
}
