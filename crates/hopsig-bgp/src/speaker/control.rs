//! Asking a running speaker to act: `hopsig speaker refresh CONFIG NEIGHBOR` appends
//! the neighbour's address, one a line, to the request file beside the status file
//! (`STATE_FILE.refresh`); the speaker takes the file (renames it, reads it, removes
//! it) at its next status tick, every 0.5 s, and sends each Established neighbour
//! named there that announced Route Refresh a ROUTE-REFRESH request for IPv4 unicast
//! (RFC 2918 §3). A file, as the status file is: whoever may run the speaker's
//! command on its configuration may ask, and nobody else, with no socket to guard.

use std::io::Write;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

/// The request file of the speaker whose status file is `state_file`.
pub fn request_file(state_file: &Path) -> PathBuf {
    let mut name = state_file.as_os_str().to_os_string();
    name.push(".refresh");
    PathBuf::from(name)
}

/// Asks the speaker whose status file is `state_file` to request a route refresh
/// from `neighbor`.
///
/// # Errors
/// The request file cannot be written.
pub fn request_refresh(state_file: &Path, neighbor: IpAddr) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(request_file(state_file))?;
    writeln!(f, "{neighbor}")
}

/// The addresses asked for since the last call, the request file taken away; none
/// if there is no file (or it cannot be read: logged).
pub fn take_requests(state_file: &Path) -> Vec<String> {
    let file = request_file(state_file);
    if !file.exists() {
        return vec![];
    }
    // Renamed first, so that a request appended meanwhile goes to a new file.
    let mut taken = file.clone().into_os_string();
    taken.push(".taken");
    let taken = PathBuf::from(taken);
    let text = std::fs::rename(&file, &taken).and_then(|()| {
        let text = std::fs::read_to_string(&taken);
        let _ = std::fs::remove_file(&taken);
        text
    });
    match text {
        Ok(text) => text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect(),
        Err(e) => {
            tracing::warn!("hopsig speaker: {}: {e}", file.display());
            vec![]
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_taken_once() {
        let dir = std::env::temp_dir().join(format!("hopsig-control-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let state = dir.join("state.json");
        assert!(take_requests(&state).is_empty());
        request_refresh(&state, "127.0.0.2".parse().unwrap()).unwrap();
        request_refresh(&state, "::1".parse().unwrap()).unwrap();
        assert_eq!(request_file(&state), dir.join("state.json.refresh"));
        assert_eq!(take_requests(&state), ["127.0.0.2", "::1"]);
        assert!(take_requests(&state).is_empty());
        assert!(!request_file(&state).exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
