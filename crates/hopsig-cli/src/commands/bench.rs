//! `hopsig bench SUITE`: one benchmark suite, measured by [`crate::bench`].

use std::path::PathBuf;

use crate::io::Outcome;

/// Run a benchmark suite (table1, table2, table3, table5, fig4, bgpsec, speaker, ndn, pla).
#[derive(clap::Args)]
pub struct Args {
    /// Suite name: table1, table2, table3, table5, fig4, bgpsec, speaker, ndn or pla.
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
}

/// Measures and prints the suite.
pub fn run(args: Args) -> Outcome {
    crate::bench::run_suite(&args.suite, args.quick, args.json.as_deref(), args.force)
}
