//! `hopsig inspect`: what a file holds, as `hopsig_schemes::inspect` reads it.

use std::path::PathBuf;

use hopsig_schemes::inspect::{self, Value};
use hopsig_schemes::Error;

use crate::io::{at, read_secret, say, say_json, Outcome, MAX_INSPECTED};

/// Say what a file holds: a key file of any scheme (PKG, parameters and user keys of
/// ibas-bls12381, the files of `hopsig ic`), an aggregate of any scheme, an IBAS
/// journal, a HORS counter file, benchmark results (`bench --json`, the JSON files of
/// `reproduce`), replay results (`replay --json`, `reproduce`'s replay.json), a plain
/// PEM / DER key or a bare signature. The report.md and SVG plots
/// of `reproduce` are for people, not hopsig formats: they are reported as unknown.
#[derive(clap::Args)]
pub struct Args {
    /// The file.
    file: PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

fn json(value: &Value) -> serde_json::Value {
    match value {
        Value::Text(s) => s.as_str().into(),
        Value::Number(n) => (*n).into(),
        Value::Flag(b) => (*b).into(),
        Value::List(items) => items.as_slice().into(),
    }
}

/// The results `hopsig bench --json` and `hopsig reproduce` write (the binary's own
/// format, `bench::Machine` and the suites' fields): what was measured, where, when.
fn benchmark(bytes: &[u8]) -> Option<Vec<(String, serde_json::Value)>> {
    let v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let (suite, machine) = (v.get("suite")?.as_str()?, v.get("machine")?);
    Some(vec![
        ("file".into(), "benchmark results".into()),
        ("suite".into(), suite.into()),
        ("quick".into(), v.get("quick")?.clone()),
        ("cpu".into(), machine.get("cpu")?.clone()),
        ("unix_time".into(), machine.get("unix_time")?.clone()),
    ])
}

/// The results of `hopsig replay --json` (`{"replay": …, "memory": …}`) and
/// `hopsig reproduce`'s replay.json (`{"replays": […], "memory": …}`;
/// docs/spec/replay.md): which workloads, peers and schemes.
fn replay(bytes: &[u8]) -> Option<Vec<(String, serde_json::Value)>> {
    let v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let all: Vec<&serde_json::Value> = match (v.get("replay"), v.get("replays")) {
        (Some(one), None) => vec![one],
        (None, Some(serde_json::Value::Array(many))) if !many.is_empty() => many.iter().collect(),
        _ => return None,
    };
    let mut workloads = Vec::new();
    let mut peers = Vec::new();
    for r in &all {
        workloads.push(r.get("workload")?.as_str()?.to_string());
        peers.push(r.get("peer")?.get("asn")?.as_u64()?);
    }
    let schemes: Vec<serde_json::Value> = all[0]
        .get("schemes")?
        .as_array()?
        .iter()
        .filter_map(|r| r.get("scheme").cloned())
        .collect();
    Some(vec![
        ("file".into(), "replay results".into()),
        ("workloads".into(), workloads.into()),
        ("peer_as".into(), peers.into()),
        ("schemes".into(), schemes.into()),
        ("table_vi".into(), (!v.get("memory")?.is_null()).into()),
    ])
}

/// Prints the description, one `name: value` line each (values escaped), or JSON.
pub fn run(args: Args) -> Outcome {
    // The file may be a secret key.
    let bytes = read_secret(&args.file, MAX_INSPECTED, "file")?;
    let fields = match inspect::describe(&bytes) {
        Ok(d) => d
            .fields
            .iter()
            .map(|(name, value)| ((*name).to_string(), json(value)))
            .collect(),
        Err(Error::UnknownFile) => benchmark(&bytes)
            .or_else(|| replay(&bytes))
            .ok_or_else(|| at(&args.file, Error::UnknownFile))?,
        Err(e) => return Err(at(&args.file, e)),
    };
    if args.json {
        return say_json(&serde_json::Value::Object(fields.into_iter().collect()));
    }
    let width = fields.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    for (name, value) in &fields {
        let shown = match value {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Bool(b) => if *b { "yes" } else { "no" }.into(),
            serde_json::Value::Array(items) => items
                .iter()
                .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                .collect::<Vec<_>>()
                .join(", "),
            other => other.to_string(),
        };
        say(format_args!("{name:>width$}: {shown}"))?;
    }
    Ok(())
}
