//! `hopsig bgpsec …`: BGPsec (RFC 8205) on the command line, one module per
//! subcommand. What the MRT ones share: the algorithm suite named on the command line,
//! the thread count, opening an MRT file, and progress lines on standard error.

pub mod feed;
pub mod inspect;
pub mod keygen;
pub mod keys;
pub mod sign_mrt;
pub mod validate_mrt;

use std::num::NonZeroUsize;
use std::path::Path;

use hopsig_bgp::suite::{self, AlgorithmSuite};

use crate::io::Failure;

/// BGPsec: router keys, signed MRT files, validation, inspection.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    Keygen(keygen::Args),
    Keys(keys::Args),
    SignMrt(sign_mrt::Args),
    ValidateMrt(validate_mrt::Args),
    Inspect(inspect::Args),
    Feed(Box<feed::Args>),
}

impl Args {
    /// Whether the subcommand runs until stopped (`feed`).
    pub fn long_running(&self) -> bool {
        matches!(self.command, Command::Feed(_))
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> crate::io::Outcome {
    match args.command {
        Command::Keygen(a) => keygen::run(a),
        Command::Keys(a) => keys::run(a),
        Command::SignMrt(a) => sign_mrt::run(a),
        Command::ValidateMrt(a) => validate_mrt::run(a),
        Command::Inspect(a) => inspect::run(a),
        Command::Feed(a) => feed::run(*a),
    }
}

/// The suite `--suite` names: its name or its number (decimal or `0x…`).
pub(crate) fn suite_named(id: &str) -> Result<&'static dyn AlgorithmSuite, Failure> {
    suite::named(id).map_err(|e| Failure::Input(e.to_string()))
}

/// `--threads`, or every core.
pub(crate) fn threads(asked: Option<NonZeroUsize>) -> usize {
    asked.map_or_else(hopsig_schemes::primitives::par::cores, NonZeroUsize::get)
}

pub(crate) use hopsig_schemes::primitives::progress::{rate, Counted, Progress};

/// Opens the MRT file `path` ([`hopsig_bgp::mrt::open`]); the error names the file and
/// says what it looks like otherwise.
pub(crate) fn open_mrt(path: &Path) -> Result<hopsig_bgp::mrt::MrtFile, Failure> {
    hopsig_bgp::mrt::open(path).map_err(|e| Failure::Input(e.to_string()))
}

/// Opens `path`, a regular file (`what` names it in errors), to be read counted
/// ([`hopsig_schemes::primitives::progress::open_counted`]).
pub(crate) fn open_counted(
    path: &Path,
    what: &str,
) -> Result<
    (
        Counted<std::fs::File>,
        u64,
        std::sync::Arc<std::sync::atomic::AtomicU64>,
    ),
    Failure,
> {
    hopsig_schemes::primitives::progress::open_counted(path, what)
        .map_err(|e| Failure::Input(e.to_string()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::sync::atomic::Ordering;

    /// Progress counts the bytes read from the file, compressed: a bzip2 file read
    /// to the end has been read to its size, though it holds six times as much.
    #[test]
    fn progress_counts_the_compressed_bytes() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../hopsig-bgp/tests/data/routeviews/route-views.jinx.updates.20150401.0000.bz2");
        let mut input = open_mrt(&path).unwrap();
        let mut all = Vec::new();
        input.reader.read_to_end(&mut all).unwrap();
        assert_eq!(input.read.load(Ordering::Relaxed), input.size);
        assert_eq!(input.size, std::fs::metadata(&path).unwrap().len());
        assert!(all.len() as u64 > 5 * input.size);
    }
}
