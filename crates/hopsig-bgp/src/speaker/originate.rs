//! The prefixes this router originates: the configuration's `originate` list and the
//! prefixes of an MRT file (`[originate_mrt]`, issue 13 §1: "prefixes to originate, or
//! an MRT file to originate from").
//!
//! An MRT file's prefixes are originated as this router's own — AS path the local AS,
//! signed as origin toward BGPsec neighbours — not with the paths the file recorded:
//! the speaker holds only its own key and RFC 8205 §4.1 forbids signing a path that
//! arrived unsigned. What this gives is a real table's prefixes in a real table's
//! number, so a downstream router can be loaded with a session reset of that size
//! (its validation cost is then that of one-hop paths; `hopsig replay` is where
//! multi-hop real paths are measured).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::config::{Config, OriginateMrt};
use crate::mrt::OpenError;
use crate::packet::{Afi, Prefix};
use crate::trace::{Entries, Entry};

/// Why the prefixes to originate could not be had.
#[derive(Debug, thiserror::Error)]
pub enum OriginateError {
    /// An `originate` entry that is not `address/length`.
    #[error("{0}")]
    Prefix(String),
    /// The MRT file cannot be opened as MRT (the message names it).
    #[error(transparent)]
    Open(#[from] OpenError),
    /// The MRT file is broken, or gave no prefix.
    #[error("{}: {problem}", path.display())]
    File {
        /// The MRT file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
}

/// What was taken from an MRT file.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct MrtOrigins {
    /// Distinct IPv4 prefixes, in the order first announced.
    pub prefixes: Vec<Prefix>,
    /// Announcements read (of the chosen peer).
    pub announcements: u64,
    /// Distinct IPv6 prefixes, in the order first announced (sent to the sessions
    /// that negotiated IPv6 unicast).
    pub prefixes6: Vec<Prefix>,
    /// Records bgpkit-parser could not decode, skipped.
    pub unreadable: u64,
}

/// The distinct IPv4 and IPv6 prefixes announced in `m.file` (by `m.peer_as` only, if
/// set), at most `m.limit` of each family: the file is read until both have as many
/// or it ends.
///
/// # Errors
/// The file unreadable or its framing broken, or no prefix taken; each names the file.
pub fn from_mrt(m: &OriginateMrt) -> Result<MrtOrigins, OriginateError> {
    let path: &Path = &m.file;
    let at = |problem: String| OriginateError::File {
        path: path.to_path_buf(),
        problem,
    };
    let input = crate::mrt::open(path)?;
    let mut progress = input.progress("speaker: originate_mrt");
    let mut entries = Entries::new(input.reader);
    let mut out = MrtOrigins::default();
    let (mut seen, mut seen6) = (BTreeSet::new(), BTreeSet::new());
    let limit = m.limit.unwrap_or(usize::MAX);
    while out.prefixes.len() < limit || out.prefixes6.len() < limit {
        let Some(entry) = entries.next() else { break };
        match entry.map_err(|e| at(e.to_string()))? {
            Entry::Announcement(a) if m.peer_as.is_none_or(|asn| asn == a.peer_as) => {
                out.announcements += 1;
                let (set, taken) = match a.prefix.afi() {
                    Afi::Ipv4 => (&mut seen, &mut out.prefixes),
                    Afi::Ipv6 => (&mut seen6, &mut out.prefixes6),
                };
                if taken.len() < limit && set.insert(a.prefix) {
                    taken.push(a.prefix);
                }
            }
            Entry::Unreadable => out.unreadable += 1,
            _ => {}
        }
        progress.tick(|| format!("{} prefixes", out.prefixes.len() + out.prefixes6.len()));
    }
    if out.prefixes.is_empty() && out.prefixes6.is_empty() {
        let whose = m
            .peer_as
            .map_or(String::new(), |asn| format!(" by peer AS{asn}"));
        return Err(at(format!(
            "originate_mrt: no IPv4 prefix announced{whose} in this file, nor an IPv6 one"
        )));
    }
    Ok(out)
}

/// Every prefix `config` originates: its `originate` list, then an MRT file's, with a
/// line on standard error saying what the file gave.
///
/// # Errors
/// A bad `originate` entry, or an MRT file that cannot be used.
pub fn prefixes(config: &Config) -> Result<BTreeSet<Prefix>, OriginateError> {
    let mut all: BTreeSet<Prefix> = config
        .originated()
        .map_err(OriginateError::Prefix)?
        .into_iter()
        .collect();
    if let Some(m) = &config.originate_mrt {
        let got = from_mrt(m)?;
        tracing::info!(
            "hopsig speaker: originating {} IPv4 prefixes of {} and {} IPv6 prefixes ({} announcements read; {} unreadable records left out)",
            got.prefixes.len(),
            m.file.display(),
            got.prefixes6.len(),
            got.announcements,
            got.unreadable
        );
        all.extend(got.prefixes);
        all.extend(got.prefixes6);
    }
    Ok(all)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn message(e: OriginateError) -> String {
        e.to_string()
    }

    fn rib_dump() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data/mrt/ris-bview.20020722.2337.gz")
    }

    #[test]
    fn a_real_rib_dump_gives_distinct_ipv4_prefixes_up_to_the_limit() {
        let m = OriginateMrt {
            file: rib_dump(),
            peer_as: None,
            limit: Some(5_000),
        };
        let got = from_mrt(&m).unwrap();
        assert_eq!(got.prefixes.len(), 5_000);
        let distinct: BTreeSet<_> = got.prefixes.iter().collect();
        assert_eq!(distinct.len(), 5_000);
        assert!(got.prefixes.iter().all(|p| p.afi() == Afi::Ipv4));
        // A RIB dump lists each prefix once per peer: more announcements than prefixes.
        assert!(got.announcements > 5_000);
        let one_peer = from_mrt(&OriginateMrt {
            peer_as: Some(u32::MAX),
            ..m
        });
        assert!(message(one_peer.unwrap_err())
            .contains("no IPv4 prefix announced by peer AS4294967295"));
    }

    /// An update file with both families: at most `limit` distinct prefixes of each,
    /// each list of its own family.
    #[test]
    fn ipv6_prefixes_are_taken_too_up_to_the_limit_of_each_family() {
        let got = from_mrt(&OriginateMrt {
            file: rib_dump().with_file_name("ris-updates.20100722.2015.gz"),
            peer_as: None,
            limit: Some(5),
        })
        .unwrap();
        assert_eq!((got.prefixes.len(), got.prefixes6.len()), (5, 5));
        assert!(got.prefixes.iter().all(|p| p.afi() == Afi::Ipv4));
        assert!(got.prefixes6.iter().all(|p| p.afi() == Afi::Ipv6));
        // Without a limit, every distinct one of the file (it has a few IPv6 ones).
        let all = from_mrt(&OriginateMrt {
            file: rib_dump().with_file_name("ris-updates.20100722.2015.gz"),
            peer_as: None,
            limit: None,
        })
        .unwrap();
        let distinct: BTreeSet<_> = all.prefixes6.iter().collect();
        assert!(distinct.len() > 5 && distinct.len() == all.prefixes6.len());
        assert_eq!(all.prefixes6[..5], got.prefixes6[..]);
    }

    #[test]
    fn a_file_that_is_not_mrt_is_refused_naming_it() {
        let dir = std::env::temp_dir().join(format!("hopsig-originate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("not.mrt");
        std::fs::write(&file, b"this is not an MRT file at all").unwrap();
        let e = message(
            from_mrt(&OriginateMrt {
                file: file.clone(),
                peer_as: None,
                limit: None,
            })
            .unwrap_err(),
        );
        assert!(e.contains(&file.display().to_string()), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
