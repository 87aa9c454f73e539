//! `hopsig reproduce`: the papers' tables beside this machine's, by [`crate::reproduce`].

use std::path::PathBuf;

use crate::io::Outcome;

/// Measure and print each paper table beside the paper's; write a report with plots.
#[derive(clap::Args)]
pub struct Args {
    /// Fewer n values and shorter measurements.
    #[arg(long)]
    quick: bool,
    /// Output folder for report.md, table1.json and SVG plots.
    #[arg(long, default_value = "hopsig-report")]
    out: PathBuf,
    /// Overwrite an earlier report in that folder.
    #[arg(long)]
    force: bool,
}

/// Measures, prints and writes the report.
pub fn run(args: Args) -> Outcome {
    crate::reproduce::run(args.quick, &args.out, args.force)
}
