//! `hopsig batch validate-mrt FILES… --scheduler ADDR|local`: many MRT files on a
//! Dask cluster for users who do not write Python. The work is the Python package's
//! (`hopsig.distributed`, docs/design/distributed.md): this command checks its
//! arguments, runs `PYTHON -m hopsig.batch` with them and passes its exit status
//! through, so the two fronts cannot drift apart.

use std::ffi::OsString;
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::process::Command as Process;

use hopsig_bgp::cache::parse_size;

use crate::io::{Failure, Outcome};

/// The Python interpreter run when neither `--python` nor this variable names one.
const DEFAULT_PYTHON: &str = "python3";
/// The variable naming the Python interpreter (a virtual environment's `bin/python`).
const PYTHON_VARIABLE: &str = "HOPSIG_BATCH_PYTHON";
/// How to get the package, for the message when the interpreter lacks it.
const INSTALL: &str = "pip install 'crates/hopsig-py[distributed]' (from a clone of hopsig)";

/// What the interpreter runs: `python -m hopsig.batch`, except that an interpreter
/// without the package exits 2 with the install command instead of Python's own
/// "No module named" and exit status 1 (which would read as "not valid").
const BOOTSTRAP: &str = "import sys
try:
    from hopsig.batch import main
except ImportError as e:
    sys.stderr.write('hopsig: error: %s cannot import hopsig.batch (%s): install it: %s, or name a Python that has it with --python or HOPSIG_BATCH_PYTHON\\n' % (sys.executable, e, sys.argv[1]))
    sys.exit(2)
sys.exit(main(sys.argv[2:], prog='hopsig batch'))
";

/// Many MRT files on a Dask cluster, one task per file (through the Python package).
///
/// Runs `PYTHON -m hopsig.batch`: PYTHON is --python, else $HOPSIG_BATCH_PYTHON,
/// else python3; it needs the hopsig package with Dask (pip install
/// 'crates/hopsig-py[distributed]'). Files, keys and outputs must be on paths every
/// worker sees. docs/design/distributed.md.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    ValidateMrt(ValidateArgs),
}

/// Validate every BGPsec UPDATE of many MRT files, one Dask task per file.
///
/// Each file is validated as `hopsig bgpsec validate-mrt` validates it (RFC 8205
/// §5.2); the summaries are summed and printed in its words, the per-UPDATE verdicts
/// gathered in one table (--out, Parquet). Exit status: 0 if every UPDATE is valid,
/// 1 if any is not, 2 for bad usage or input (a file that cannot be read after
/// --retries, a scheduler that cannot be reached, Python or the package missing).
#[derive(clap::Args)]
struct ValidateArgs {
    /// The MRT files (plain, gzip, bzip2, xz, zstd).
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// The router keys: rpki-client's JSON, or a folder (as `hopsig bgpsec keys`).
    #[arg(long, value_name = "JSON|DIR")]
    keys: PathBuf,
    /// A Dask scheduler's address (tcp://HOST:8786), `local` (a cluster of --workers
    /// processes on this machine) or `sequential` (no Dask: the files in order).
    #[arg(long, value_name = "ADDR|local")]
    scheduler: String,
    /// Worker processes of a local cluster.
    #[arg(long, value_name = "N", default_value = "2")]
    workers: NonZeroUsize,
    /// Threads of each worker of a local cluster.
    #[arg(long, value_name = "N", default_value = "1")]
    threads_per_worker: NonZeroUsize,
    /// Validating threads per task [default: --threads-per-worker].
    #[arg(long, value_name = "N")]
    threads: Option<NonZeroUsize>,
    /// Runs again of a task that failed.
    #[arg(long, value_name = "N", default_value_t = 2)]
    retries: u32,
    /// Use the keys valid at this time, in Unix seconds [default: now].
    #[arg(long, value_name = "UNIX")]
    at: Option<i64>,
    /// Bytes of each task's signature cache (as validate-mrt's; 0 turns it off).
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = cache_size)]
    signature_cache: String,
    /// Write the verdicts (file, record, bgpsec, reason, signatures, detail) as Parquet.
    #[arg(long, value_name = "T.parquet")]
    out: Option<PathBuf>,
    /// Write the summary as JSON.
    #[arg(long, value_name = "S.json")]
    json: Option<PathBuf>,
    /// Replace --out and --json if they exist.
    #[arg(long)]
    force: bool,
    /// No progress bar or dashboard address on standard error.
    #[arg(long)]
    no_progress: bool,
    /// The Python interpreter with the hopsig package [default: $HOPSIG_BATCH_PYTHON,
    /// else python3].
    #[arg(long, value_name = "PYTHON")]
    python: Option<PathBuf>,
}

/// `--signature-cache`: checked here (a size such as `64MiB`, or 0), passed on as
/// written.
fn cache_size(text: &str) -> Result<String, String> {
    parse_size(text).map(|_| text.to_string())
}

/// Runs the subcommand in Python.
pub fn run(args: Args) -> Outcome {
    match args.command {
        Command::ValidateMrt(a) => {
            let python = a
                .python
                .clone()
                .map(OsString::from)
                .or_else(|| std::env::var_os(PYTHON_VARIABLE).filter(|p| !p.is_empty()))
                .unwrap_or_else(|| OsString::from(DEFAULT_PYTHON));
            python_batch(&python, validate_arguments(a))
        }
    }
}

/// The arguments of `python -m hopsig.batch validate-mrt`.
fn validate_arguments(a: ValidateArgs) -> Vec<OsString> {
    let mut v: Vec<OsString> = vec!["validate-mrt".into()];
    let mut option = |name: &str, value: OsString| {
        v.push(format!("--{name}").into());
        v.push(value);
    };
    option("keys", a.keys.into());
    option("scheduler", a.scheduler.into());
    option("workers", a.workers.to_string().into());
    option(
        "threads-per-worker",
        a.threads_per_worker.to_string().into(),
    );
    if let Some(t) = a.threads {
        option("threads", t.to_string().into());
    }
    option("retries", a.retries.to_string().into());
    if let Some(at) = a.at {
        option("at", at.to_string().into());
    }
    option("signature-cache", a.signature_cache.into());
    if let Some(out) = a.out {
        option("out", out.into());
    }
    if let Some(json) = a.json {
        option("json", json.into());
    }
    if a.force {
        v.push("--force".into());
    }
    if a.no_progress {
        v.push("--no-progress".into());
    }
    // `--` before the files: a file named like an option stays a file.
    v.push("--".into());
    v.extend(a.files.into_iter().map(OsString::from));
    v
}

/// Runs `python` on [`BOOTSTRAP`] with `arguments` (standard input, output and error
/// are this process's) and exits with its status: the Python side has printed the
/// summary, `invalid: …` or `hopsig: error: …` already.
fn python_batch(python: &OsString, arguments: Vec<OsString>) -> Outcome {
    let status = Process::new(python)
        .arg("-c")
        .arg(BOOTSTRAP)
        .arg(INSTALL)
        .args(arguments)
        .status()
        .map_err(|e| {
            Failure::Input(format!(
                "cannot run {}: {e}: `hopsig batch` needs Python 3.9 or later with the hopsig package: {INSTALL}; name the interpreter with --python or {PYTHON_VARIABLE}",
                python.to_string_lossy()
            ))
        })?;
    match status.code() {
        Some(0) => Ok(()),
        // The child's exit status as it is (1 not valid, 2 bad input), its messages
        // printed already: nothing is left to print or to drop here.
        Some(code) => std::process::exit(code),
        None => Err(Failure::Input(format!(
            "{} stopped by a signal ({status})",
            python.to_string_lossy()
        ))),
    }
}
