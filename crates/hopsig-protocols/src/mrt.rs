//! AS-path statistics of the announcements in an MRT update file, the "today's mean
//! AS-path length" the KC-x per-UPDATE cost (KC-x paper eq. 1 and 5) is evaluated at.

use std::path::{Path, PathBuf};

use bgpkit_parser::models::ElemType;
use bgpkit_parser::BgpkitParser;

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct MrtError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong.
    pub reason: String,
}

/// AS-path lengths over the announcements of one file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathStats {
    /// Announcements with an AS path.
    pub announcements: u64,
    /// Mean number of distinct ASes on the path (prepending removed): the number of
    /// signatures a path authenticator holds.
    pub mean_unique: f64,
    /// Mean path length with prepends.
    pub mean_with_prepends: f64,
    /// Longest path (distinct ASes).
    pub max_unique: usize,
    /// Longest path with prepends.
    pub max_with_prepends: usize,
}

/// Reads a gzip-compressed (or plain) MRT file and measures its AS paths.
///
/// # Errors
/// [`MrtError`] naming the file if it cannot be opened or holds no announcement.
pub fn path_stats(path: &Path) -> Result<PathStats, MrtError> {
    let err = |reason: String| MrtError {
        path: path.to_path_buf(),
        reason,
    };
    let file = std::fs::File::open(path).map_err(|e| err(e.to_string()))?;
    let reader: Box<dyn std::io::Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::MultiGzDecoder::new(std::io::BufReader::new(
            file,
        )))
    } else {
        Box::new(std::io::BufReader::new(file))
    };
    let (mut n, mut unique, mut full, mut max, mut max_all) = (0u64, 0u64, 0u64, 0usize, 0usize);
    for elem in BgpkitParser::from_reader(reader).into_elem_iter() {
        if elem.elem_type != ElemType::ANNOUNCE {
            continue;
        }
        let Some(as_path) = elem.as_path else {
            continue;
        };
        let (Some(dedup), Some(all)) =
            (as_path.to_u32_vec_opt(true), as_path.to_u32_vec_opt(false))
        else {
            continue;
        };
        n += 1;
        unique += dedup.len() as u64;
        full += all.len() as u64;
        max = max.max(dedup.len());
        max_all = max_all.max(all.len());
    }
    if n == 0 {
        return Err(err("no announcements with an AS path".into()));
    }
    Ok(PathStats {
        announcements: n,
        mean_unique: unique as f64 / n as f64,
        mean_with_prepends: full as f64 / n as f64,
        max_unique: max,
        max_with_prepends: max_all,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn data(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data/mrt")
            .join(name)
    }

    #[test]
    fn ris_2016_updates_match_the_data_readme() {
        // ../shared/data/README.md: 39,256 announcements, mean path 5.4 ASNs with
        // prepends (4.8 unique), maximum 20.
        let s = path_stats(&data("ris-updates.20160811.1600.gz")).unwrap();
        assert!((39_000..=39_500).contains(&s.announcements), "{s:?}");
        assert!((s.mean_unique - 4.8).abs() < 0.06, "{s:?}");
        assert!((s.mean_with_prepends - 5.4).abs() < 0.06, "{s:?}");
        assert_eq!(s.max_with_prepends, 20);
        assert!(s.max_unique <= 20 && s.max_unique as f64 > s.mean_unique);
    }

    #[test]
    fn missing_and_garbage_files_are_errors() {
        assert!(path_stats(Path::new("/nonexistent.gz")).is_err());
        let dir = std::env::temp_dir().join(format!("hopsig-mrt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("junk.mrt");
        std::fs::write(&f, b"not an MRT file at all").unwrap();
        assert!(path_stats(&f).is_err());
        let _ = std::fs::remove_dir_all(dir);
    }
}
