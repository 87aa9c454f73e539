//! `hopsig bgpsec …`: BGPsec (RFC 8205) on the command line, one module per
//! subcommand. What the MRT ones share: the algorithm suite named on the command line,
//! the thread count, opening an MRT file, and progress lines on standard error.

pub mod inspect;
pub mod keygen;
pub mod keys;
pub mod sign_mrt;
pub mod validate_mrt;

use std::fs::File;
use std::io::Read;
use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hopsig_bgp::suite::{self, AlgorithmSuite, SUITES};

use crate::io::{at, note, Failure};

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
}

/// Runs the subcommand.
pub fn run(args: Args) -> crate::io::Outcome {
    match args.command {
        Command::Keygen(a) => keygen::run(a),
        Command::Keys(a) => keys::run(a),
        Command::SignMrt(a) => sign_mrt::run(a),
        Command::ValidateMrt(a) => validate_mrt::run(a),
        Command::Inspect(a) => inspect::run(a),
    }
}

/// The suite `--suite` names: its name or its number (decimal or `0x…`).
pub(crate) fn suite_named(id: &str) -> Result<&'static dyn AlgorithmSuite, Failure> {
    let number = match id.strip_prefix("0x") {
        Some(hex) => u8::from_str_radix(hex, 16).ok(),
        None => id.parse::<u8>().ok(),
    };
    number
        .and_then(suite::by_id)
        .or_else(|| suite::by_name(id))
        .ok_or_else(|| {
            let known: Vec<String> = SUITES
                .iter()
                .map(|s| format!("{} ({})", s.id(), s.name()))
                .collect();
            Failure::Input(format!(
                "unknown algorithm suite '{id}' (available: {})",
                known.join(", ")
            ))
        })
}

/// `--threads`, or every core.
pub(crate) fn threads(asked: Option<NonZeroUsize>) -> usize {
    asked
        .or_else(|| std::thread::available_parallelism().ok())
        .map_or(1, NonZeroUsize::get)
}

/// An MRT file opened for streaming (plain or compressed: `hopsig_bgp::mrt::decompressed`),
/// its size, and a counter of the bytes read from the file (compressed bytes, so that
/// progress reaches the file's size), for progress.
pub(crate) struct MrtInput {
    pub reader: hopsig_bgp::mrt::Decompressed<Counted<File>>,
    pub size: u64,
    pub read: Arc<AtomicU64>,
}

/// Opens the MRT file `path`: a regular file, plain or compressed (gzip, bzip2, xz,
/// zstd), whose first bytes are MRT; the error names the file and says what it looks
/// like otherwise.
pub(crate) fn open_mrt(path: &Path) -> Result<MrtInput, Failure> {
    let (counted, size, read) = open_counted(path, "MRT file")?;
    Ok(MrtInput {
        reader: hopsig_bgp::mrt::decompressed(counted).map_err(|e| at(path, e))?,
        size,
        read,
    })
}

/// Opens `path`, which must be a regular file (`what` names it in errors), to be read
/// counted: the reader, the file's size and the counter of bytes read, for a progress
/// bar.
pub(crate) fn open_counted(
    path: &Path,
    what: &str,
) -> Result<(Counted<File>, u64, Arc<AtomicU64>), Failure> {
    let cannot = |e: std::io::Error| at(path, format!("cannot read {what}: {e}"));
    let file = File::open(path).map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if !meta.is_file() {
        return Err(at(path, format!("{what} is not a regular file")));
    }
    let (counted, read) = Counted::new(file);
    Ok((counted, meta.len(), read))
}

/// A reader that counts what it reads.
pub(crate) struct Counted<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R> Counted<R> {
    /// `inner`, counted, and the counter.
    pub(crate) fn new(inner: R) -> (Self, Arc<AtomicU64>) {
        let read = Arc::new(AtomicU64::new(0));
        (
            Counted {
                inner,
                read: Arc::clone(&read),
            },
            read,
        )
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Progress lines on standard error: a bar of the input read, and what the command
/// says, at most one line every two seconds (the house style of `hopsig bench`: one
/// line per step through `io::note`, so logs stay readable).
pub(crate) struct Progress {
    command: &'static str,
    size: u64,
    read: Arc<AtomicU64>,
    started: Instant,
    last: Option<Instant>,
}

impl Progress {
    pub(crate) fn new(command: &'static str, input: &MrtInput) -> Progress {
        Progress::sized(command, input.size, Arc::clone(&input.read))
    }

    /// Progress of reading a file of `size` bytes, `read` of them read so far.
    pub(crate) fn sized(command: &'static str, size: u64, read: Arc<AtomicU64>) -> Progress {
        Progress {
            command,
            size,
            read,
            started: Instant::now(),
            last: None,
        }
    }

    /// Progress of work that reads no file (`hopsig replay` after reading): no bar.
    pub(crate) fn steps(command: &'static str) -> Progress {
        Progress {
            command,
            size: 0,
            read: Arc::new(AtomicU64::new(0)),
            started: Instant::now(),
            last: None,
        }
    }

    /// Prints `what` after the bar, unless a line was printed less than two seconds
    /// ago.
    pub(crate) fn tick(&mut self, what: impl FnOnce() -> String) {
        if self
            .last
            .is_some_and(|t| t.elapsed() < Duration::from_secs(2))
        {
            return;
        }
        self.last = Some(Instant::now());
        if self.size == 0 {
            note(format_args!(
                "{} {:6.1} s  {}",
                self.command,
                self.started.elapsed().as_secs_f64(),
                what()
            ));
            return;
        }
        let done = self.read.load(Ordering::Relaxed) as f64 / self.size.max(1) as f64;
        let filled = (done.clamp(0.0, 1.0) * 20.0).round() as usize;
        note(format_args!(
            "{} [{}{}] {:3.0}% {:6.1} s  {}",
            self.command,
            "#".repeat(filled),
            "-".repeat(20 - filled),
            done.clamp(0.0, 1.0) * 100.0,
            self.started.elapsed().as_secs_f64(),
            what()
        ));
    }

    /// Seconds since the start.
    pub(crate) fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }
}

/// Per second, or 0 for no time.
pub(crate) fn rate(count: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        count as f64 / seconds
    } else {
        0.0
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

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
