//! `hopsig bench SUITE`: one benchmark suite of [`hopsig_bench::SUITES`], measured by
//! hopsig-bench, printed, and written as JSON when asked.

use std::path::PathBuf;

use hopsig_bench::{Options, DEFAULT_DATA, SUITES};

use crate::io::{note, outputs, print_text, Outcome, Secrecy};

/// Run a benchmark suite (its name, from the list below).
#[derive(clap::Args)]
#[command(about = about(), after_help = suite_list())]
pub struct Args {
    /// Suite name (listed below).
    #[arg(help = suite_help())]
    suite: String,
    /// Fewer n values and shorter measurements.
    #[arg(long)]
    quick: bool,
    /// Write the rows as JSON to FILE (checked before the run).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Overwrite an existing JSON file.
    #[arg(long)]
    force: bool,
    /// The data folder (RIPE RIS MRT files under mrt/), for table3 and bgpsec.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_DATA)]
    data: PathBuf,
}

/// The suites' names, comma-separated.
fn names() -> String {
    SUITES.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}

/// The argument's help: the names, the last after "or".
fn suite_help() -> String {
    let names: Vec<&str> = SUITES.iter().map(|s| s.name).collect();
    match names.split_last() {
        Some((last, [])) => format!("Suite name: {last}"),
        Some((last, rest)) => format!("Suite name: {} or {last}", rest.join(", ")),
        None => "Suite name".into(),
    }
}

/// The command's one-line help.
fn about() -> String {
    format!("Run a benchmark suite ({})", names())
}

/// One line per suite, for `--help`.
fn suite_list() -> String {
    let width = SUITES.iter().map(|s| s.name.len()).max().unwrap_or(0);
    let lines: Vec<String> = SUITES
        .iter()
        .map(|s| format!("  {:<width$}  {}", s.name, s.help))
        .collect();
    format!("Suites:\n{}", lines.join("\n"))
}

/// Measures and prints the suite. The JSON file is checked (not in the way, its folder
/// writable) before anything is measured.
pub fn run(args: Args) -> Outcome {
    let mut files = outputs(args.force, []);
    if let Some(path) = &args.json {
        files.check(path)?;
    }
    let suite = hopsig_bench::suites::find(&args.suite)?;
    let options = Options {
        quick: args.quick,
        data: args.data,
    };
    let measured = (suite.run)(&options)?;
    print_text(&measured.text)?;
    if let Some(path) = &args.json {
        files.add(path, &measured.json, Secrecy::Public)?;
        files.commit()?;
        note(format_args!("wrote {}", path.display()));
    }
    Ok(())
}
