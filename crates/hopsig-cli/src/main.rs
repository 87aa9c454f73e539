//! `hopsig`: keys, one-hop signing, verification, inspection, benchmarks and the
//! reproduction of the papers' tables.
//!
//! Each command family is a module of [`commands`] that owns its arguments (a clap
//! `Args`) and its `run`; this file only lists them and dispatches. What the commands
//! share (failures and exit codes, reading and writing files, printing) is in [`io`];
//! the measurements behind `bench`, `replay` and `reproduce` are in the hopsig-bench
//! crate ([`bench`] adds the speaker's suite, for now).
//!
//! Exit codes: 0 success / valid signature, 1 invalid signature, 2 bad usage or
//! unreadable / malformed input.

mod commands;
mod io;
mod logging;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use commands::{
    batch, bench as bench_cmd, ic, inspect, kcx, keygen, pkg, reproduce as reproduce_cmd,
};
use commands::{
    bgpsec, ndn, pla, replay as replay_cmd, rtr, schemes, shell, sign, speaker as speaker_cmd,
    verify,
};

#[derive(Parser)]
#[command(name = "hopsig", version, about = "Signatures that travel across network hops", long_about = None)]
#[command(after_help = format!("{}\n{}", io::EXIT_CODES, io::LIMITS))]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    log: logging::LogArgs,
}

#[derive(Subcommand)]
enum Command {
    Schemes(schemes::Args),
    Keygen(keygen::Args),
    Sign(sign::Args),
    Verify(verify::Args),
    Pkg(pkg::Args),
    Ic(ic::Args),
    Kcx(kcx::Args),
    Inspect(inspect::Args),
    Bench(bench_cmd::Args),
    Bgpsec(bgpsec::Args),
    Replay(replay_cmd::Args),
    Reproduce(reproduce_cmd::Args),
    Speaker(speaker_cmd::Args),
    Ndn(ndn::Args),
    Pla(pla::Args),
    Rtr(rtr::Args),
    Batch(batch::Args),
    Completions(shell::CompletionsArgs),
    Man(shell::ManArgs),
}

impl Command {
    /// Whether the command runs until stopped: it logs through [`logging`]'s
    /// structured formats by default.
    fn long_running(&self) -> bool {
        match self {
            Command::Speaker(a) => a.long_running(),
            Command::Ndn(a) => a.long_running(),
            Command::Rtr(a) => a.long_running(),
            Command::Bgpsec(a) => a.long_running(),
            _ => false,
        }
    }
}

fn run(command: Command) -> io::Outcome {
    match command {
        Command::Schemes(args) => schemes::run(args),
        Command::Keygen(args) => keygen::run(args),
        Command::Sign(args) => sign::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Pkg(args) => pkg::run(args),
        Command::Ic(args) => ic::run(args),
        Command::Kcx(args) => kcx::run(args),
        Command::Inspect(args) => inspect::run(args),
        Command::Bench(args) => bench_cmd::run(args),
        Command::Bgpsec(args) => bgpsec::run(args),
        Command::Replay(args) => replay_cmd::run(args),
        Command::Reproduce(args) => reproduce_cmd::run(args),
        Command::Speaker(args) => speaker_cmd::run(args),
        Command::Ndn(args) => ndn::run(args),
        Command::Pla(args) => pla::run(args),
        Command::Rtr(args) => rtr::run(args),
        Command::Batch(args) => batch::run(args),
        Command::Completions(args) => shell::run_completions(args),
        Command::Man(args) => shell::run_man(args),
    }
}

fn main() -> ExitCode {
    let cli = match io::arguments::<Cli>() {
        Ok(cli) => cli,
        Err(status) => return status,
    };
    if let Err(f) = logging::install(&cli.log, cli.command.long_running()) {
        return f.exit();
    }
    // Last line of defence: no panic trace reaches the user. Decoders return errors, so
    // reaching this hook is a bug in hopsig, reported in one line with exit code 2.
    std::panic::set_hook(Box::new(|info| {
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        io::note(format_args!(
            "hopsig: internal error{place} (please report this bug)"
        ));
    }));
    match std::panic::catch_unwind(|| run(cli.command)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(f)) => f.exit(),
        Err(_) => ExitCode::from(2),
    }
}
