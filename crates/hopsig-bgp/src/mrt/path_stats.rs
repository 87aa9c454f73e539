//! AS-path statistics of the announcements in an update file: the "today's mean
//! AS-path length" the KC-x per-UPDATE cost (KC-x paper eq. 1 and 5) is evaluated at.

use std::io::Read;

use bgpkit_parser::models::ElemType;
use bgpkit_parser::BgpkitParser;

use super::{decompressed, InputError};

/// Why an MRT stream could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum MrtError {
    /// The stream could not be read.
    #[error("cannot read: {0}")]
    Read(#[from] std::io::Error),
    /// It is not MRT, plain or compressed ([`decompressed`]).
    #[error("{0}")]
    Input(#[from] InputError),
    /// It holds no announcement with an AS path.
    #[error("no announcements with an AS path")]
    NoAnnouncements,
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

/// Measures the AS paths of an MRT update stream, plain or compressed as
/// [`decompressed`] reads it. The caller opens the file, so errors
/// carry no path: name it where you report them.
///
/// # Errors
/// [`MrtError::Read`] if the stream cannot be read, [`MrtError::Input`] if it is not
/// MRT, [`MrtError::NoAnnouncements`] if it holds no announcement with an AS path.
pub fn path_stats(input: impl Read) -> Result<PathStats, MrtError> {
    let reader = decompressed(input)?;
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
        return Err(MrtError::NoAnnouncements);
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
    use std::path::{Path, PathBuf};

    fn data(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data/mrt")
            .join(name)
    }

    #[test]
    fn ris_2016_updates_match_the_data_readme() {
        // ../shared/data/README.md: 39,256 announcements, mean path 5.4 ASNs with
        // prepends (4.8 unique), maximum 20.
        let file = std::fs::File::open(data("ris-updates.20160811.1600.gz")).unwrap();
        let s = path_stats(file).unwrap();
        assert!((39_000..=39_500).contains(&s.announcements), "{s:?}");
        assert!((s.mean_unique - 4.8).abs() < 0.06, "{s:?}");
        assert!((s.mean_with_prepends - 5.4).abs() < 0.06, "{s:?}");
        assert_eq!(s.max_with_prepends, 20);
        assert!(s.max_unique <= 20 && s.max_unique as f64 > s.mean_unique);
        // The same bytes decompressed, from memory: the same figures.
        let mut plain = Vec::new();
        flate2::read::MultiGzDecoder::new(
            std::fs::File::open(data("ris-updates.20160811.1600.gz")).unwrap(),
        )
        .read_to_end(&mut plain)
        .unwrap();
        assert_eq!(path_stats(plain.as_slice()).unwrap(), s);
    }

    #[test]
    fn empty_and_garbage_streams_are_errors() {
        assert!(matches!(
            path_stats(&b""[..]),
            Err(MrtError::Input(InputError::Empty(None)))
        ));
        assert!(matches!(
            path_stats(&b"not an MRT file at all"[..]),
            Err(MrtError::Input(InputError::NotMrt { .. }))
        ));
        // Truncated gzip: no announcement decodes from it.
        assert!(path_stats(&[0x1f, 0x8b, 0x08, 0x00][..]).is_err());
    }
}
