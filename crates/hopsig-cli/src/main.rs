//! `hopsig`: keys, one-hop signing, verification, inspection, benchmarks and the
//! reproduction of the papers' tables.
//!
//! Exit codes: 0 success / valid signature, 1 invalid signature, 2 bad usage or
//! unreadable / malformed input.

mod bench;
mod commands;
mod io;
mod reproduce;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit status and one-line message of a failed command.
#[derive(Debug)]
pub enum Failure {
    /// The signature does not verify (exit 1).
    Invalid(String),
    /// Bad usage, unreadable or malformed input, or an internal failure (exit 2).
    Input(String),
}

impl Failure {
    fn exit(&self) -> ExitCode {
        match self {
            Failure::Invalid(msg) => {
                println!("invalid: {msg}");
                ExitCode::from(1)
            }
            Failure::Input(msg) => {
                eprintln!("hopsig: error: {msg}");
                ExitCode::from(2)
            }
        }
    }
}

/// Result of a command.
pub type Outcome = Result<(), Failure>;

#[derive(Parser)]
#[command(name = "hopsig", version, about = "Signatures that travel across network hops", long_about = None)]
#[command(after_help = "Exit codes: 0 valid / success, 1 invalid signature, 2 bad usage or input.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List scheme ids with a one-line description.
    Schemes {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Generate a key pair: secret key to FILE, public key to FILE.pub.
    Keygen {
        /// Scheme id (see `hopsig schemes`).
        #[arg(long)]
        scheme: String,
        /// Secret key file to write; the public key goes to FILE.pub.
        #[arg(long)]
        out: PathBuf,
        /// Overwrite existing files.
        #[arg(long)]
        force: bool,
    },
    /// One hop: add this signer's signature on its message to the aggregate so far.
    Sign {
        /// Secret key file.
        #[arg(long)]
        key: PathBuf,
        /// Message file.
        #[arg(long)]
        msg: PathBuf,
        /// Aggregate so far (omit for the first signer). It is not verified.
        #[arg(long)]
        agg: Option<PathBuf>,
        /// Where to write the new aggregate.
        #[arg(long)]
        out: PathBuf,
    },
    /// Verify an aggregate against ordered (public key, message) pairs, first signer first.
    Verify {
        /// Scheme id.
        #[arg(long)]
        scheme: String,
        /// Public key file of signer i (repeat, in signing order).
        #[arg(long = "pub", required = true)]
        pubs: Vec<PathBuf>,
        /// Message file of signer i (repeat, in signing order).
        #[arg(long = "msg", required = true)]
        msgs: Vec<PathBuf>,
        /// Aggregate file.
        #[arg(long)]
        agg: PathBuf,
    },
    /// Say what a key or aggregate file holds.
    Inspect {
        /// Key or aggregate file.
        file: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run a benchmark suite (table1).
    Bench {
        /// Suite name: table1.
        suite: String,
        /// Fewer n values and shorter measurements.
        #[arg(long)]
        quick: bool,
        /// Write the rows as JSON to FILE.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Measure and print each paper table beside the paper's; write a report with plots.
    Reproduce {
        /// Fewer n values and shorter measurements.
        #[arg(long)]
        quick: bool,
        /// Output folder for report.md, table1.json and SVG plots.
        #[arg(long, default_value = "hopsig-report")]
        out: PathBuf,
    },
}

fn run(cli: Cli) -> Outcome {
    match cli.command {
        Command::Schemes { json } => commands::schemes(json),
        Command::Keygen { scheme, out, force } => commands::keygen(&scheme, &out, force),
        Command::Sign { key, msg, agg, out } => commands::sign(&key, &msg, agg.as_deref(), &out),
        Command::Verify {
            scheme,
            pubs,
            msgs,
            agg,
        } => commands::verify(&scheme, &pubs, &msgs, &agg),
        Command::Inspect { file, json } => commands::inspect(&file, json),
        Command::Bench { suite, quick, json } => bench::run_suite(&suite, quick, json.as_deref()),
        Command::Reproduce { quick, out } => reproduce::run(quick, &out),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Last line of defence: no panic trace reaches the user. Decoders return errors, so
    // reaching this hook is a bug in hopsig, reported in one line with exit code 2.
    std::panic::set_hook(Box::new(|info| {
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("hopsig: internal error{place} (please report this bug)");
    }));
    match std::panic::catch_unwind(|| run(cli)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(f)) => f.exit(),
        Err(_) => ExitCode::from(2),
    }
}
