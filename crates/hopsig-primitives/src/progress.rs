//! Progress of long-running work (signing or validating an MRT file, replaying a trace,
//! checking a capture): a reader that counts the bytes it reads, and progress lines
//! emitted as `tracing` events at most one every two seconds.
//!
//! Libraries report through `tracing` (target `hopsig::progress`) and print nothing; the
//! `hopsig` binary turns the events into lines on standard error, a Python binding or a
//! daemon into whatever it uses.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::input::{open_regular, ReadError};

/// Opens `path`, which must be a regular file (`what` names it in errors, e.g. "MRT
/// file"), to be read counted: the reader, the file's size and the counter of bytes
/// read, for a progress bar. A FIFO is refused without waiting on it
/// ([`crate::input::open_regular`]).
///
/// # Errors
/// [`ReadError`]: the file cannot be opened or its metadata read, or it is not a
/// regular file.
pub fn open_counted(
    path: &Path,
    what: &str,
) -> Result<(Counted<File>, u64, Arc<AtomicU64>), ReadError> {
    let (file, meta) = open_regular(path, what)?;
    let (counted, read) = Counted::new(file);
    Ok((counted, meta.len(), read))
}

/// A reader that counts what it reads.
pub struct Counted<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R> Counted<R> {
    /// `inner`, counted, and the counter.
    pub fn new(inner: R) -> (Self, Arc<AtomicU64>) {
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

/// Progress lines: a bar of the input read, and what the work says, at most one line
/// every two seconds, as `tracing::info!` events of target `hopsig::progress` (one line
/// per step, so logs stay readable).
pub struct Progress {
    command: &'static str,
    size: u64,
    read: Arc<AtomicU64>,
    started: Instant,
    last: Option<Instant>,
}

impl Progress {
    /// Progress of reading a file of `size` bytes, `read` of them read so far.
    pub fn sized(command: &'static str, size: u64, read: Arc<AtomicU64>) -> Progress {
        Progress {
            command,
            size,
            read,
            started: Instant::now(),
            last: None,
        }
    }

    /// Progress of work that reads no file (`hopsig replay` after reading): no bar.
    pub fn steps(command: &'static str) -> Progress {
        Progress::sized(command, 0, Arc::new(AtomicU64::new(0)))
    }

    /// Reports `what` after the bar, unless a line was reported less than two seconds
    /// ago.
    pub fn tick(&mut self, what: impl FnOnce() -> String) {
        if self
            .last
            .is_some_and(|t| t.elapsed() < Duration::from_secs(2))
        {
            return;
        }
        self.last = Some(Instant::now());
        let seconds = self.started.elapsed().as_secs_f64();
        if self.size == 0 {
            tracing::info!(target: "hopsig::progress", "{} {seconds:6.1} s  {}", self.command, what());
            return;
        }
        let done =
            (self.read.load(Ordering::Relaxed) as f64 / self.size.max(1) as f64).clamp(0.0, 1.0);
        let filled = (done * 20.0).round() as usize;
        tracing::info!(
            target: "hopsig::progress",
            "{} [{}{}] {:3.0}% {seconds:6.1} s  {}",
            self.command,
            "#".repeat(filled),
            "-".repeat(20 - filled),
            done * 100.0,
            what()
        );
    }

    /// Seconds since the start.
    pub fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }
}

/// Per second, or 0 for no time.
pub fn rate(count: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        count as f64 / seconds
    } else {
        0.0
    }
}

/// Lets through one log line per `every`, counting the ones held back: a
/// long-running role logs what others can provoke (dropped packets, refused
/// connections) without letting them flood its log.
pub struct RateLimit {
    every: Duration,
    last: Option<Instant>,
    held: u64,
}

impl RateLimit {
    /// At most one line per `every`.
    pub fn new(every: Duration) -> RateLimit {
        RateLimit {
            every,
            last: None,
            held: 0,
        }
    }

    /// `Some(lines held back since the last one)` if a line may be written at `now`.
    pub fn allow(&mut self, now: Instant) -> Option<u64> {
        match self.last {
            Some(t) if now.saturating_duration_since(t) < self.every => {
                self.held += 1;
                None
            }
            _ => {
                self.last = Some(now);
                Some(std::mem::take(&mut self.held))
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn drop_lines_are_let_through_once_per_interval_with_the_count_held_back() {
        let t0 = Instant::now();
        let mut limit = RateLimit::new(Duration::from_secs(10));
        assert_eq!(limit.allow(t0), Some(0));
        for s in 1..10 {
            assert_eq!(limit.allow(t0 + Duration::from_secs(s)), None);
        }
        assert_eq!(limit.allow(t0 + Duration::from_secs(10)), Some(9));
        assert_eq!(limit.allow(t0 + Duration::from_secs(11)), None);
        assert_eq!(limit.allow(t0 + Duration::from_secs(25)), Some(1));
    }

    #[test]
    fn counted_reads_count_and_non_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, [1u8; 1000]).unwrap();
        let (mut r, size, read) = open_counted(&path, "capture").unwrap();
        let mut all = Vec::new();
        r.read_to_end(&mut all).unwrap();
        assert_eq!((size, read.load(Ordering::Relaxed)), (1000, 1000));
        let e = open_counted(dir.path(), "capture").err().unwrap();
        assert!(
            e.to_string().ends_with(": capture is not a regular file"),
            "{e}"
        );
        // A FIFO is refused on its handle, without waiting for a writer (the open
        // would block for ever otherwise).
        let fifo = dir.path().join("fifo");
        if std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success())
        {
            let e = open_counted(&fifo, "capture").err().unwrap();
            assert!(
                e.to_string().ends_with(": capture is not a regular file"),
                "{e}"
            );
        }
        let e = open_counted(&dir.path().join("none"), "MRT file")
            .err()
            .unwrap();
        assert!(e.to_string().contains(": cannot read MRT file: "), "{e}");
    }
}
