//! MRT input as the collectors publish it (issue 22 §3, docs/spec/bgpsec-mrt.md
//! "Input"): a real RouteViews update file as RouteViews compresses it (bzip2), and a
//! real RIS file recompressed here with every format hopsig reads, read record for
//! record; streams cut short or corrupt, and files that are not MRT, refused with a
//! precise error, never taken for a shorter file or a record-length error.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{Read, Write};
use std::path::PathBuf;

use hopsig_bgp::mrt::{decompressed, Compression, InputError};
use hopsig_bgp::trace::{Entries, Entry, Records};

/// tests/data/routeviews/README.md: route-views.jinx, 2015-04-01 00:00, 1,756 records.
const ROUTEVIEWS: &str = "route-views.jinx.updates.20150401.0000.bz2";

fn routeviews() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/routeviews")
        .join(ROUTEVIEWS)
}

/// The RIS file `name` of ../shared/data/mrt, decompressed by flate2 directly.
fn ris_plain(name: &str) -> Vec<u8> {
    let mut raw = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(common::mrt_file(name)).unwrap())
        .read_to_end(&mut raw)
        .unwrap();
    raw
}

/// `raw` compressed as `c`, by that format's crate.
fn compress(c: Compression, raw: &[u8]) -> Vec<u8> {
    match c {
        Compression::Gzip => {
            let mut w = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            w.write_all(raw).unwrap();
            w.finish().unwrap()
        }
        Compression::Bzip2 => {
            let mut w = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            w.write_all(raw).unwrap();
            w.finish().unwrap()
        }
        Compression::Xz => {
            let mut w = liblzma::write::XzEncoder::new(Vec::new(), 1);
            w.write_all(raw).unwrap();
            w.finish().unwrap()
        }
        Compression::Zstd => zstd::encode_all(raw, 1).unwrap(),
    }
}

/// What `decompressed` gives for `bytes`, read to the end, or its error's words.
fn read_all(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let mut r = decompressed(bytes).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    r.read_to_end(&mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// The entries of `bytes` until the first error, and that error's words.
fn entries_until_error(bytes: &[u8]) -> (u64, Option<String>) {
    let input = match decompressed(bytes) {
        Ok(r) => r,
        Err(e) => return (0, Some(e.to_string())),
    };
    let mut n = 0;
    for e in Entries::new(input) {
        match e {
            Ok(_) => n += 1,
            Err(e) => return (n, Some(e.to_string())),
        }
    }
    (n, None)
}

#[test]
fn the_routeviews_bzip2_update_file_is_read_whole() {
    let input = decompressed(std::fs::File::open(routeviews()).unwrap()).unwrap();
    assert_eq!(input.compression(), Some(Compression::Bzip2));
    let records: Vec<Vec<u8>> = Records::new(input).map(Result::unwrap).collect();
    // Independently: the bzip2 crate alone, and the record lengths walked by hand.
    let mut raw = Vec::new();
    bzip2::read::MultiBzDecoder::new(std::fs::File::open(routeviews()).unwrap())
        .read_to_end(&mut raw)
        .unwrap();
    assert_eq!(records.concat(), raw);
    assert_eq!(records.len(), 1_756, "the README's count");
    for r in &records {
        // BGP4MP (16) / BGP4MP_MESSAGE_AS4 (4), Local AS 6447: RouteViews'.
        assert_eq!(&r[4..8], &[0, 16, 0, 4]);
        assert_eq!(u32::from_be_bytes([r[16], r[17], r[18], r[19]]), 6447);
    }
    let input = decompressed(std::fs::File::open(routeviews()).unwrap()).unwrap();
    let mut announcements = 0;
    for e in Entries::new(input) {
        if let Entry::Announcement(a) = e.unwrap() {
            assert_eq!(a.collector.map(|c| c.0), Some(6447));
            announcements += 1;
        }
    }
    assert!(announcements > 1_000, "{announcements}");
}

#[test]
fn every_format_reads_a_real_ris_file_byte_for_byte() {
    let raw = ris_plain("ris-updates.20100722.2015.gz");
    let half = raw.len() / 2;
    for c in Compression::ALL {
        let one = compress(c, &raw);
        assert_eq!(Compression::of(&one), Some(c));
        assert_eq!(decompressed(one.as_slice()).unwrap().compression(), Some(c));
        assert_eq!(read_all(&one).unwrap(), raw, "{c}");
        // Two members / streams / frames one after the other (pbzip2, RIS's gzip
        // appends) read as one stream, split anywhere.
        let two = [compress(c, &raw[..half]), compress(c, &raw[half..])].concat();
        assert_eq!(read_all(&two).unwrap(), raw, "{c}, two streams");
    }
    // Plain MRT is read as it is.
    assert_eq!(read_all(&raw).unwrap(), raw);
}

/// A stream cut anywhere is an error that names the format and says it is cut short,
/// and the parser above ends on that error: never the records before the cut taken
/// for the whole file.
#[test]
fn streams_cut_short_are_errors_naming_the_format() {
    let raw = ris_plain("ris-updates.20100722.2015.gz");
    let mut cases: Vec<(Compression, Vec<u8>)> = Compression::ALL
        .iter()
        .map(|&c| (c, compress(c, &raw)))
        .collect();
    cases.push((Compression::Bzip2, std::fs::read(routeviews()).unwrap()));
    for (c, bytes) in cases {
        let n = bytes.len();
        for cut in [20, n / 3, n / 2, n - 9, n - 1] {
            let said = read_all(&bytes[..cut]).unwrap_err();
            assert!(
                said.contains(&format!("the {c} stream is cut short")),
                "{c} cut at {cut} of {n}: {said}"
            );
            let (_, error) = entries_until_error(&bytes[..cut]);
            let error = error.unwrap_or_else(|| panic!("{c} cut at {cut}: no error"));
            assert!(
                error.contains(&format!("{c} stream is cut short")),
                "{error}"
            );
        }
    }
}

#[test]
fn what_is_inside_a_compression_must_be_mrt_too() {
    let text = b"This is not MRT.\nIt is a note.\n";
    for c in Compression::ALL {
        let said = read_all(&compress(c, text)).unwrap_err();
        assert_eq!(
            said,
            format!(
                "{c}-compressed, but not MRT inside: it looks like a text file (it begins \"This is not MRT.\")"
            )
        );
        let said = read_all(&compress(c, b"")).unwrap_err();
        assert_eq!(
            said,
            format!("{c}-compressed, but empty inside: no MRT record")
        );
    }
    let html = compress(
        Compression::Bzip2,
        b"<!DOCTYPE html>\n<title>Index of /bgpdata</title>",
    );
    assert!(read_all(&html).unwrap_err().contains("an HTML page"));
    // A file that is neither: the bytes of issue 22's bzip2 file as plain MRT would
    // have been "MRT message too large: 1398378944 bytes"; a compressed file inside a
    // compressed file is named as what it is.
    let twice = compress(Compression::Gzip, &std::fs::read(routeviews()).unwrap());
    let said = read_all(&twice).unwrap_err();
    assert!(
        said.starts_with("gzip-compressed, but not MRT inside: its first 12 bytes"),
        "{said}"
    );
    assert!(matches!(
        decompressed(&twice[..]),
        Err(InputError::NotMrt {
            compression: Some(Compression::Gzip),
            ..
        })
    ));
}

mod damaged {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// A compressed real file with bytes overwritten anywhere, or any bytes after
        /// any magic number, is read or refused, never a panic.
        #[test]
        fn damaged_streams_never_panic(
            format in 0usize..5,
            flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6),
            tail in proptest::collection::vec(any::<u8>(), 0..300),
        ) {
            let raw = ris_plain("ris-updates.20100722.2015.gz");
            let mut bytes = match Compression::ALL.get(format) {
                Some(&c) => compress(c, &raw[..raw.len().min(20_000)]),
                None => raw,
            };
            let n = bytes.len();
            for (at, b) in flips {
                bytes[at % n] = b;
            }
            let _ = entries_until_error(&bytes);
            let magic = bytes[..6].to_vec();
            let _ = read_all(&[&magic[..], &tail[..]].concat());
        }
    }
}
