//! Asking a running speaker to act: `hopsig speaker refresh CONFIG NEIGHBOR` appends
//! the neighbour's address, one a line, to the request file beside the status file
//! (`STATE_FILE.refresh`); the speaker takes the file (renames it, reads it, removes
//! it) at its next status tick, every 0.5 s, and sends each Established neighbour
//! named there that announced Route Refresh a ROUTE-REFRESH request for IPv4 unicast
//! (RFC 2918 §3). A file, as the status file is: whoever may run the speaker's
//! command on its configuration may ask, and nobody else, with no socket to guard.
//!
//! `hopsig speaker reload CONFIG` asks the same way for a configuration reload
//! (docs/spec/speaker.md "Reload"): a line `TOKEN PATH` in `STATE_FILE.reload`; the
//! speaker answers in `STATE_FILE.reload-result`, a JSON array of its last
//! [`RESULTS_KEPT`] reload outcomes (SIGHUP's too), each with the token it answers.

use std::io::Write;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use hopsig_primitives::persist::with_suffix;

/// The request file of the speaker whose status file is `state_file`.
pub fn request_file(state_file: &Path) -> PathBuf {
    with_suffix(state_file, ".refresh")
}

/// Asks the speaker whose status file is `state_file` to request a route refresh
/// from `neighbor`.
///
/// # Errors
/// The request file cannot be written.
pub fn request_refresh(state_file: &Path, neighbor: IpAddr) -> std::io::Result<()> {
    append_line(&request_file(state_file), &neighbor.to_string())
}

/// The addresses asked for since the last call, the request file taken away; none
/// if there is no file (or it cannot be read: logged).
pub fn take_requests(state_file: &Path) -> Vec<String> {
    take_lines(request_file(state_file))
}

/// Reload outcomes kept in the result file.
pub const RESULTS_KEPT: usize = 16;

/// The reload request file of the speaker whose status file is `state_file`.
pub fn reload_file(state_file: &Path) -> PathBuf {
    with_suffix(state_file, ".reload")
}

/// The reload result file of the speaker whose status file is `state_file`.
pub fn reload_result_file(state_file: &Path) -> PathBuf {
    with_suffix(state_file, ".reload-result")
}

/// Asks the speaker whose status file is `state_file` to reload its configuration
/// from `config` (an absolute path); `token` (no white space) marks its answer.
///
/// # Errors
/// The request file cannot be written.
pub fn request_reload(state_file: &Path, token: &str, config: &Path) -> std::io::Result<()> {
    append_line(
        &reload_file(state_file),
        &format!("{token} {}", config.display()),
    )
}

/// Appends `line` to the request file `file` (created if missing): requests from
/// several commands at once each add their own line.
fn append_line(file: &Path, line: &str) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)?;
    writeln!(f, "{line}")
}

/// The reloads asked for since the last call, (token, configuration file), the
/// request file taken away.
pub fn take_reloads(state_file: &Path) -> Vec<(String, PathBuf)> {
    take_lines(reload_file(state_file))
        .into_iter()
        .filter_map(|l| {
            let (token, path) = l.split_once(' ')?;
            Some((token.to_string(), PathBuf::from(path.trim())))
        })
        .collect()
}

/// The lines of `file` written since the last call, the file taken away; none if
/// there is no file (or it cannot be read: logged).
fn take_lines(file: PathBuf) -> Vec<String> {
    if !file.exists() {
        return vec![];
    }
    // Renamed first, so that a request appended meanwhile goes to a new file.
    let taken = with_suffix(&file, ".taken");
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

    #[test]
    fn reload_requests_are_taken_once_with_their_token() {
        let dir = std::env::temp_dir().join(format!("hopsig-reload-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let state = dir.join("state.json");
        assert!(take_reloads(&state).is_empty());
        request_reload(&state, "t1", Path::new("/etc/hopsig/my speaker.toml")).unwrap();
        request_reload(&state, "t2", Path::new("/b.toml")).unwrap();
        assert_eq!(reload_file(&state), dir.join("state.json.reload"));
        assert_eq!(
            take_reloads(&state),
            [
                (
                    "t1".to_string(),
                    PathBuf::from("/etc/hopsig/my speaker.toml")
                ),
                ("t2".to_string(), PathBuf::from("/b.toml"))
            ]
        );
        assert!(take_reloads(&state).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
