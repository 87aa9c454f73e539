//! Router keys loaded once per process and reused while their files are unchanged.
//!
//! A distributed run (`hopsig.distributed`) is one task per MRT file, every task
//! with the same keys file, and a worker process runs many tasks. Loading a full
//! table's keys is not free — about 13,000 keys at ~75 µs each (every public key is
//! decoded and its point checked, RFC 8208 §3.2) is a second per task, as much as
//! validating a small file — so the last set loaded is kept and handed out again
//! when the same file (or folder) is asked for with the same `at` and nothing in it
//! changed: same length and modification time of the file, or of every entry of the
//! folder.
//!
//! Without `at`, keys are judged valid at load time ("now"); such a set is reused
//! for at most [`NOW_REUSE`], so a key that expires is dropped at most that late —
//! the same staleness a relying party's cache refresh has. With `at`, validity does
//! not move and the set is reused while the files are unchanged.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use hopsig_bgp::router_key::{self, LoadError};
use hopsig_bgp::RouterKeys;

/// How long a set loaded without `at` is reused.
pub const NOW_REUSE: Duration = Duration::from_secs(60);

/// What identifies a loaded set: the path, `at`, and the length and modification
/// time of the file or of each entry of the folder.
#[derive(PartialEq, Eq)]
struct Stamp {
    path: PathBuf,
    at: Option<i64>,
    files: Vec<(PathBuf, u64, Option<SystemTime>)>,
}

impl Stamp {
    /// The stamp of `path` now, or `None` when it cannot be read (the load then
    /// reports why).
    fn of(path: &Path, at: Option<i64>) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        let mut files = vec![(PathBuf::new(), meta.len(), meta.modified().ok())];
        if meta.is_dir() {
            for entry in std::fs::read_dir(path).ok()? {
                let entry = entry.ok()?;
                let meta = entry.metadata().ok()?;
                files.push((entry.path(), meta.len(), meta.modified().ok()));
            }
            files.sort();
        }
        Some(Stamp {
            path: path.to_path_buf(),
            at,
            files,
        })
    }
}

/// The last set loaded, with its stamp and when it was loaded.
static LAST: Mutex<Option<(Stamp, Instant, Arc<RouterKeys>)>> = Mutex::new(None);

/// The router keys of `path` valid at `at` (default now), as
/// [`router_key::load`] gives them, from this process's last load when nothing
/// changed since.
///
/// # Errors
/// [`router_key::load`]'s.
pub fn load(path: &Path, at: Option<i64>) -> Result<Arc<RouterKeys>, LoadError> {
    let stamp = Stamp::of(path, at);
    if let Some(stamp) = &stamp {
        let last = LAST.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((s, loaded, keys)) = last.as_ref() {
            if s == stamp && (at.is_some() || loaded.elapsed() < NOW_REUSE) {
                return Ok(Arc::clone(keys));
            }
        }
    }
    let keys = Arc::new(router_key::load(path, at)?.keys);
    if let Some(stamp) = stamp {
        *LAST.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((stamp, Instant::now(), Arc::clone(&keys)));
    }
    Ok(keys)
}
