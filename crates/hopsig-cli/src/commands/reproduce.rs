//! `hopsig reproduce`: the papers' tables beside this machine's, measured by
//! hopsig-bench ([`hopsig_bench::reproduce`]); this command prints them and writes the
//! report.

use std::path::PathBuf;

use hopsig_bench::reproduce::{file_names, Reproduction};
use hopsig_bench::{Options, DEFAULT_DATA};

use crate::io::{outputs, print_text, say, Outcome, Secrecy};

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
    /// The data folder: the RIPE RIS update file and RIB dump under mrt/ (KC-x Tables
    /// III–VI, Fig. 5).
    #[arg(long, value_name = "DIR", default_value = DEFAULT_DATA)]
    data: PathBuf,
}

/// Measures, prints and writes the report. The report files are checked (none in the
/// way without `--force`, the folder writable) before anything is measured, and
/// written together.
pub fn run(args: Args) -> Outcome {
    let mut files = outputs(args.force, []);
    files.folder(&args.out)?;
    for name in file_names() {
        files.check(&args.out.join(name))?;
    }
    let report = Reproduction::measure(&Options {
        quick: args.quick,
        data: args.data,
    })?;
    print_text(&report.text())?;
    for (name, bytes) in report.files()? {
        files.add(&args.out.join(name), &bytes, Secrecy::Public)?;
    }
    files.commit()?;
    say(format_args!(
        "wrote {}/report.md, table1.json, table2.json, table3.json, table5.json, ndn.json, pla.json, replay.json, size.svg, verify.svg, fig5-*.svg",
        args.out.display()
    ))
}
