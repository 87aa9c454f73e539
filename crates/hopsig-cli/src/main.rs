//! `hopsig`: keys, one-hop signing, verification, inspection, benchmarks and the
//! reproduction of the papers' tables.
//!
//! Exit codes: 0 success / valid signature, 1 invalid signature, 2 bad usage or
//! unreadable / malformed input.

mod bench;
mod commands;
mod ibas;
mod ic;
mod io;
mod kcx;
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
        /// Overwrite an existing --out (never one of this command's inputs).
        #[arg(long)]
        force: bool,
        /// IBAS only: the journal of state strings w this key has signed under
        /// (default: the key's own journal in the state folder, see --state-dir).
        /// Signing another message under a recorded w is refused: it would allow
        /// forgeries.
        #[arg(long)]
        journal: Option<PathBuf>,
        /// IBAS only: folder of per-key journals (default $HOPSIG_STATE_DIR, else
        /// $XDG_STATE_HOME/hopsig, else ~/.local/state/hopsig).
        #[arg(long)]
        state_dir: Option<PathBuf>,
    },
    /// Verify an aggregate against ordered (public key, message) pairs, first signer
    /// first; for ibas-bls12381, (identity, message) pairs in any order under a PKG's
    /// parameters. Exit 0 valid, 1 invalid (it decodes but fails verification), 2 input
    /// that does not decode or bad usage.
    Verify {
        /// Scheme id.
        #[arg(long)]
        scheme: String,
        /// Public key file of signer i (repeat, in signing order).
        #[arg(long = "pub")]
        pubs: Vec<PathBuf>,
        /// IBAS: identity of a signer (repeat, in any order: the aggregate is a sum;
        /// each --id goes with the --msg at the same position).
        #[arg(long = "id")]
        ids: Vec<String>,
        /// IBAS: PKG folder whose params.pub holds the public parameters.
        #[arg(long)]
        pkg: Option<PathBuf>,
        /// IBAS: the public parameters file itself (instead of --pkg).
        #[arg(long)]
        params: Option<PathBuf>,
        /// Message file of signer i (repeat, in the order of --pub, or of --id for IBAS).
        #[arg(long = "msg", required = true)]
        msgs: Vec<PathBuf>,
        /// Aggregate file.
        #[arg(long)]
        agg: PathBuf,
    },
    /// Private Key Generator for identity-based aggregates (ibas-bls12381).
    Pkg {
        #[command(subcommand)]
        action: PkgAction,
    },
    /// Implicit certificates for PLA (003 §II-C): TTP, request, issue, finalize, verify.
    Ic {
        /// k163, k233 or k283.
        #[arg(long, default_value = "k163", global = true)]
        curve: String,
        #[command(subcommand)]
        action: IcAction,
    },
    /// Keychain signatures for BGP (KC-RSA, KC-MT, hybrid).
    Kcx {
        #[command(subcommand)]
        action: KcxAction,
    },
    /// Say what a key or aggregate file holds.
    Inspect {
        /// Key or aggregate file.
        file: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run a benchmark suite (table1, table2, table3, table5, fig4).
    Bench {
        /// Suite name: table1, table2, table3, table5 or fig4.
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
    },
    /// Measure and print each paper table beside the paper's; write a report with plots.
    Reproduce {
        /// Fewer n values and shorter measurements.
        #[arg(long)]
        quick: bool,
        /// Output folder for report.md, table1.json and SVG plots.
        #[arg(long, default_value = "hopsig-report")]
        out: PathBuf,
        /// Overwrite an earlier report in that folder.
        #[arg(long)]
        force: bool,
    },
}

#[derive(Subcommand)]
enum IcAction {
    /// Create a TTP: DIR/ttp.key (0600) and DIR/ttp.pub.
    Ttp {
        /// Folder.
        #[arg(long)]
        out: PathBuf,
        /// Overwrite.
        #[arg(long)]
        force: bool,
    },
    /// Alice's blinded request: FILE (secret, 0600) and FILE.req for the TTP.
    Request {
        /// Blind file to write.
        #[arg(long)]
        out: PathBuf,
        /// Overwrite.
        #[arg(long)]
        force: bool,
    },
    /// The TTP certifies an identity for a request.
    Issue {
        /// TTP folder.
        #[arg(long)]
        ttp: PathBuf,
        /// Identity (e.g. the IPv6 source address).
        #[arg(long)]
        id: String,
        /// Request file (FILE.req).
        #[arg(long)]
        request: PathBuf,
        /// Answer file to write (secret, 0600).
        #[arg(long)]
        out: PathBuf,
        /// Overwrite.
        #[arg(long)]
        force: bool,
    },
    /// Alice's final key (an ecdsa-k* key file) and public certificate FILE.cert.
    Finalize {
        /// Blind file.
        #[arg(long)]
        blind: PathBuf,
        /// The TTP's answer.
        #[arg(long)]
        issued: PathBuf,
        /// TTP public key (DIR/ttp.pub).
        #[arg(long)]
        ttp_pub: PathBuf,
        /// Key file to write.
        #[arg(long)]
        out: PathBuf,
        /// Overwrite.
        #[arg(long)]
        force: bool,
    },
    /// Verify a `hopsig sign` signature, extracting the key from the certificate in
    /// the same multi-scalar multiplication (exit 0 valid, 1 invalid).
    Verify {
        /// TTP public key.
        #[arg(long)]
        ttp_pub: PathBuf,
        /// Certificate (FILE.cert).
        #[arg(long)]
        cert: PathBuf,
        /// Message file.
        #[arg(long)]
        msg: PathBuf,
        /// Signature file from `hopsig sign`.
        #[arg(long)]
        agg: PathBuf,
    },
}

#[derive(Subcommand)]
enum KcxAction {
    /// Sign a route hop by hop along a simulated AS path, verify it, report sizes.
    Path {
        /// rsa, mt or hybrid.
        #[arg(long)]
        variant: String,
        /// Number of speakers on the path, origin included (1..=64).
        #[arg(long)]
        hops: usize,
        /// modern (RSA-2048, HORS 4096/16: forgery bound 2^-64) or paper (RSA-1024,
        /// HORS 512/3: bound 2^-11, to reproduce the paper only; warns on stderr).
        #[arg(long, default_value = "modern")]
        suite: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum PkgAction {
    /// Create a PKG: master secret to DIR/pkg.key (mode 0600), public parameters to
    /// DIR/params.pub.
    Setup {
        /// Folder to create or use.
        #[arg(long)]
        out: PathBuf,
        /// Overwrite an existing PKG there.
        #[arg(long)]
        force: bool,
    },
    /// Extract the private key of an identity (e.g. an NDN name) into FILE.
    Extract {
        /// PKG folder (reads DIR/pkg.key).
        #[arg(long)]
        pkg: PathBuf,
        /// The identity.
        #[arg(long)]
        id: String,
        /// Key file to write (mode 0600).
        #[arg(long)]
        out: PathBuf,
        /// Overwrite an existing file.
        #[arg(long)]
        force: bool,
    },
}

fn run(cli: Cli) -> Outcome {
    match cli.command {
        Command::Schemes { json } => commands::schemes(json),
        Command::Keygen { scheme, out, force } => commands::keygen(&scheme, &out, force),
        Command::Sign {
            key,
            msg,
            agg,
            out,
            force,
            journal,
            state_dir,
        } => commands::sign(
            &key,
            &msg,
            agg.as_deref(),
            &commands::SignOutput {
                out: &out,
                force,
                journal: journal.as_deref(),
                state_dir: state_dir.as_deref(),
            },
        ),
        Command::Verify {
            scheme,
            pubs,
            ids,
            pkg,
            params,
            msgs,
            agg,
        } if scheme == hopsig_schemes::ibas::ID => {
            if !pubs.is_empty() {
                return Err(Failure::Input(
                    "ibas-bls12381 names signers with --id, not --pub".into(),
                ));
            }
            let params = ibas::params_path(pkg.as_deref(), params.as_deref())?;
            ibas::verify(&params, &ids, &msgs, &agg)
        }
        Command::Verify {
            scheme,
            pubs,
            ids,
            pkg,
            params,
            msgs,
            agg,
        } => {
            if !ids.is_empty() || pkg.is_some() || params.is_some() {
                return Err(Failure::Input(format!(
                    "--id, --pkg and --params are for ibas-bls12381; {scheme} takes --pub"
                )));
            }
            commands::verify(&scheme, &pubs, &msgs, &agg)
        }
        Command::Kcx {
            action:
                KcxAction::Path {
                    variant,
                    hops,
                    suite,
                    json,
                },
        } => kcx::path(&variant, hops, &suite, json),
        Command::Ic { curve, action } => ic::run(
            &curve,
            match &action {
                IcAction::Ttp { out, force } => ic::Step::Ttp { out, force: *force },
                IcAction::Request { out, force } => ic::Step::Request { out, force: *force },
                IcAction::Issue {
                    ttp,
                    id,
                    request,
                    out,
                    force,
                } => ic::Step::Issue {
                    ttp,
                    id,
                    request,
                    out,
                    force: *force,
                },
                IcAction::Finalize {
                    blind,
                    issued,
                    ttp_pub,
                    out,
                    force,
                } => ic::Step::Finalize {
                    blind,
                    issued,
                    ttp_pub,
                    out,
                    force: *force,
                },
                IcAction::Verify {
                    ttp_pub,
                    cert,
                    msg,
                    agg,
                } => ic::Step::Verify {
                    ttp_pub,
                    cert,
                    msg,
                    agg,
                },
            },
        ),
        Command::Pkg { action } => match action {
            PkgAction::Setup { out, force } => ibas::setup(&out, force),
            PkgAction::Extract {
                pkg,
                id,
                out,
                force,
            } => ibas::extract(&pkg, &id, &out, force),
        },
        Command::Inspect { file, json } => commands::inspect(&file, json),
        Command::Bench {
            suite,
            quick,
            json,
            force,
        } => bench::run_suite(&suite, quick, json.as_deref(), force),
        Command::Reproduce { quick, out, force } => reproduce::run(quick, &out, force),
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
