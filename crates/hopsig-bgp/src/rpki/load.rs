//! The RPKI view of one run over a file (`validate-mrt --rpki/--rtr`, `replay --rtr`,
//! Python's `hopsig.engine`): source files read as of one time, one RTR dump of each
//! cache, merged as docs/spec/rpki.md, "Merge rules", says. What each source gave is
//! reported as `tracing` events, one line each.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::payload::{Limits, PayloadSet, TooMuch};
use super::rtr::RtrError;
use super::source::{self, SourceError};
use super::view::View;

/// Longest wait for one cache's whole data.
pub const RTR_TIMEOUT: Duration = Duration::from_secs(120);

/// Why the view could not be made.
#[derive(Debug, thiserror::Error)]
pub enum LoadViewError {
    /// A source file cannot be used (the error names it).
    #[error(transparent)]
    Files(#[from] SourceError),
    /// The runtime of the RTR client could not start.
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
    /// A cache's address is not HOST:PORT or \[IPv6\]:PORT.
    #[error("{0}: expected HOST:PORT or [IPv6]:PORT")]
    Address(String),
    /// A cache's dump failed.
    #[error("{cache}: {source}")]
    Rtr {
        /// The cache, as given.
        cache: String,
        /// What failed.
        #[source]
        source: RtrError,
    },
    /// The caches together hold more than the limits allow.
    #[error("{0}")]
    Caches(TooMuch),
    /// The merged view would exceed the limits.
    #[error("RPKI data: {0}")]
    View(TooMuch),
}

/// HOST:PORT or \[IPv6\]:PORT, split.
///
/// # Errors
/// [`LoadViewError::Address`] for anything else.
pub fn host_port(s: &str) -> Result<(String, u16), LoadViewError> {
    let bad = || LoadViewError::Address(s.to_string());
    let (host, port) = s.rsplit_once(':').ok_or_else(bad)?;
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    if host.is_empty() {
        return Err(bad());
    }
    Ok((host.to_string(), port.parse().map_err(|_| bad())?))
}

/// The view of `keys` and `rpki` files (read as of `at`, Unix seconds, default now)
/// and one RTR dump of each `rtr` cache (HOST:PORT, each within [`RTR_TIMEOUT`]),
/// merged.
///
/// # Errors
/// [`LoadViewError`]: the first source that cannot be used.
pub fn load_view(
    keys: Option<&Path>,
    rpki: &[PathBuf],
    rtr: &[String],
    at: Option<i64>,
) -> Result<View, LoadViewError> {
    let limits = Limits::default();
    let unix = at.unwrap_or_else(crate::router_key::unix_now);
    let paths: Vec<PathBuf> = keys
        .map(PathBuf::from)
        .into_iter()
        .chain(rpki.iter().cloned())
        .collect();
    let files = source::load_all(&paths, unix, &limits)?;
    for line in &files.report {
        tracing::info!("{line}");
    }
    let caches = dump_caches(rtr, RTR_TIMEOUT)?;
    let view =
        View::build(&files.payload, &caches, &files.slurm, &limits).map_err(LoadViewError::View)?;
    let (vrps, keys, aspas) = view.payload().counts();
    tracing::info!("rpki: {vrps} VRPs, {keys} router keys, {aspas} ASPAs after merging");
    Ok(view)
}

/// One RTR dump of each cache of `rtr` (HOST:PORT, each within `timeout`), merged
/// (docs/spec/rpki.md, "Merge rules"); what each gave is reported as a `tracing` event.
///
/// # Errors
/// [`LoadViewError`]: a bad address, a cache that fails, or more than the limits.
pub fn dump_caches(rtr: &[String], timeout: Duration) -> Result<PayloadSet, LoadViewError> {
    let limits = Limits::default();
    let mut caches = PayloadSet::new();
    if rtr.is_empty() {
        return Ok(caches);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(LoadViewError::Runtime)?;
    for cache in rtr {
        let (host, port) = host_port(cache)?;
        let dump = runtime
            .block_on(super::rtr::dump(&host, port, None, limits, timeout))
            .map_err(|source| LoadViewError::Rtr {
                cache: cache.clone(),
                source,
            })?;
        let (vrps, keys, aspas) = dump.payload.counts();
        tracing::info!(
            "rtr: {cache}: version {}, session {}, serial {}: {vrps} VRPs, {keys} router keys, {aspas} ASPAs",
            dump.version, dump.session_id, dump.serial
        );
        caches
            .extend_from(&dump.payload, &limits)
            .map_err(LoadViewError::Caches)?;
    }
    Ok(caches)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn cache_addresses() {
        assert_eq!(
            host_port("127.0.0.1:323").unwrap(),
            ("127.0.0.1".into(), 323)
        );
        assert_eq!(host_port("[::1]:8282").unwrap(), ("::1".into(), 8282));
        for bad in ["localhost", ":323", "[]:1", "h:port", "h:70000"] {
            let e = host_port(bad).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("{bad}: expected HOST:PORT or [IPv6]:PORT")
            );
        }
    }
}
