//! Opening an MRT stream as the collectors publish it (docs/spec/bgpsec-mrt.md,
//! "Input"): plain MRT (RFC 6396), or compressed with gzip (RIPE RIS), bzip2
//! (RouteViews), xz or zstd, each recognised by its magic bytes and decompressed while
//! it is read. What comes out must begin with an MRT common header that could start a
//! real file; anything else is refused with what it looks like, rather than with a
//! record-length error from deep inside the parser.
//!
//! Every MRT input of hopsig goes through [`decompressed`] ([`open`] for a file): `sign-mrt`,
//! `validate-mrt`, `inspect`, `replay`, the speaker's `[originate_mrt]`, the benches.

use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Chain, Cursor, ErrorKind, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use hopsig_primitives::input::ReadError;
use hopsig_primitives::progress::{open_counted, Counted, Progress};

use bgpkit_parser::models::EntryType;

use super::bgp4mp::{HEADER_LEN, MAX_RECORD_LEN};

/// Bytes looked at to tell what a stream is: every magic number below, and a first
/// line of text long enough to quote.
const HEAD: usize = 512;

/// A compression format recognised by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// gzip (RFC 1952), as RIPE RIS publishes; concatenated members are one stream.
    Gzip,
    /// bzip2, as RouteViews publishes; concatenated streams (pbzip2) are one stream.
    Bzip2,
    /// xz (the .xz file format, version 1.2.1); concatenated streams are one stream.
    Xz,
    /// Zstandard (RFC 8878); concatenated frames are one stream.
    Zstd,
}

impl Compression {
    /// Every format read.
    pub const ALL: [Compression; 4] = [
        Compression::Gzip,
        Compression::Bzip2,
        Compression::Xz,
        Compression::Zstd,
    ];

    /// The format whose magic bytes `head` starts with: gzip's ID1 ID2 (RFC 1952
    /// §2.3.1), bzip2's "BZh" and block-size digit, xz's six-byte Header Magic Bytes
    /// (.xz format §2.1.1.1), Zstandard's Magic_Number 0xFD2FB528 little-endian (RFC
    /// 8878 §3.1.1).
    pub fn of(head: &[u8]) -> Option<Compression> {
        match head {
            [0x1f, 0x8b, ..] => Some(Compression::Gzip),
            [b'B', b'Z', b'h', b'1'..=b'9', ..] => Some(Compression::Bzip2),
            [0xfd, b'7', b'z', b'X', b'Z', 0x00, ..] => Some(Compression::Xz),
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Some(Compression::Zstd),
            _ => None,
        }
    }

    /// Its usual name.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
        }
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a stream is not read as MRT. The caller opened it, so no message names a
/// file: name it where you report them.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The first bytes could not be read or decompressed.
    #[error("cannot read: {0}")]
    Read(#[from] io::Error),
    /// Nothing in it (or nothing inside its compression).
    #[error("{}", match .0 {
        None => "empty file: no MRT record".to_owned(),
        Some(c) => format!("{c}-compressed, but empty inside: no MRT record"),
    })]
    Empty(Option<Compression>),
    /// Not MRT: `looks_like` says what it seems to be instead.
    #[error("{}: {looks_like}", match .compression {
        None => "not an MRT file".to_owned(),
        Some(c) => format!("{c}-compressed, but not MRT inside"),
    })]
    NotMrt {
        /// The compression it was read through.
        compression: Option<Compression>,
        /// What the (decompressed) bytes look like.
        looks_like: String,
    },
}

/// An MRT stream, decompressed as it is read. Errors of the decompressor say which
/// format and whether the stream is cut short or corrupt, and are never
/// [`ErrorKind::UnexpectedEof`]: a parser must not take a truncated file for one that
/// ends between two records.
pub struct Decompressed<R: Read> {
    compression: Option<Compression>,
    reader: Replayed<Codec<Replayed<R>>>,
}

impl<R: Read> Decompressed<R> {
    /// The compression it is read through, if any.
    pub fn compression(&self) -> Option<Compression> {
        self.compression
    }
}

impl<R: Read> Read for Decompressed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reader.read(buf)
    }
}

/// An MRT file opened for streaming (plain or compressed: [`decompressed`]), its size,
/// and a counter of the bytes read from the file (compressed bytes, so that progress
/// reaches the file's size).
pub struct MrtFile {
    /// The records' bytes, decompressed.
    pub reader: Decompressed<Counted<File>>,
    /// The file's size in bytes.
    pub size: u64,
    /// Bytes read from the file so far.
    pub read: Arc<AtomicU64>,
}

impl MrtFile {
    /// Progress lines of reading this file ([`Progress`]), headed `command`.
    pub fn progress(&self, command: &'static str) -> Progress {
        Progress::sized(command, self.size, Arc::clone(&self.read))
    }
}

/// Why an MRT file cannot be opened; both messages name the file.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// It cannot be opened, or is not a regular file.
    #[error(transparent)]
    File(#[from] ReadError),
    /// It is not MRT, plain or compressed.
    #[error("{}: {source}", path.display())]
    Input {
        /// The file.
        path: PathBuf,
        /// What it is instead.
        source: InputError,
    },
}

/// Opens the MRT file `path`: a regular file, plain or compressed (gzip, bzip2, xz,
/// zstd), whose first bytes are MRT.
///
/// # Errors
/// [`OpenError::File`] if it cannot be opened or is not a regular file,
/// [`OpenError::Input`] (what it looks like) if it does not hold MRT.
pub fn open(path: &Path) -> Result<MrtFile, OpenError> {
    let (counted, size, read) = open_counted(path, "MRT file")?;
    Ok(MrtFile {
        reader: decompressed(counted).map_err(|source| OpenError::Input {
            path: path.to_path_buf(),
            source,
        })?,
        size,
        read,
    })
}

/// `input` decompressed according to its magic bytes ([`Compression::of`]), if it
/// holds MRT: the first 12 decompressed bytes must be an MRT common header (RFC 6396
/// §2) with a Type bgpkit-parser knows (RFC 6396 §4, the deprecated types 0–10
/// included), a Length of at most [`MAX_RECORD_LEN`], and room for the microseconds
/// in an `_ET` record (§3).
///
/// # Errors
/// [`InputError::Read`] if the first bytes cannot be read or decompressed (a stream
/// cut short or corrupt says so), [`InputError::Empty`] for no bytes,
/// [`InputError::NotMrt`] for anything else, with what it looks like.
pub fn decompressed<R: Read>(input: R) -> Result<Decompressed<R>, InputError> {
    let (raw_head, raw) = peek(input)?;
    if raw_head.is_empty() {
        return Err(InputError::Empty(None));
    }
    let compression = Compression::of(&raw_head);
    let (head, reader) = peek(Codec::new(compression, raw)?)?;
    if head.is_empty() {
        return Err(InputError::Empty(compression));
    }
    if let Err(looks_like) = mrt_start(&head) {
        return Err(InputError::NotMrt {
            compression,
            looks_like,
        });
    }
    Ok(Decompressed {
        compression,
        reader,
    })
}

/// A stream whose first bytes were read ahead, given again before the rest.
type Replayed<R> = Chain<Cursor<Vec<u8>>, R>;

/// Up to [`HEAD`] first bytes of `input`, and `input` as if none had been read.
fn peek<R: Read>(mut input: R) -> io::Result<(Vec<u8>, Replayed<R>)> {
    let mut head = Vec::with_capacity(HEAD);
    input.by_ref().take(HEAD as u64).read_to_end(&mut head)?;
    Ok((head.clone(), Cursor::new(head).chain(input)))
}

/// A stream as it is, or decompressed.
enum Codec<R: Read> {
    Plain(BufReader<R>),
    Gzip(flate2::read::MultiGzDecoder<R>),
    Bzip2(bzip2::read::MultiBzDecoder<R>),
    Xz(liblzma::read::XzDecoder<R>),
    Zstd(zstd::stream::read::Decoder<'static, BufReader<R>>),
}

impl<R: Read> Codec<R> {
    fn new(compression: Option<Compression>, input: R) -> io::Result<Codec<R>> {
        Ok(match compression {
            None => Codec::Plain(BufReader::new(input)),
            Some(Compression::Gzip) => Codec::Gzip(flate2::read::MultiGzDecoder::new(input)),
            Some(Compression::Bzip2) => Codec::Bzip2(bzip2::read::MultiBzDecoder::new(input)),
            Some(Compression::Xz) => Codec::Xz(liblzma::read::XzDecoder::new_multi_decoder(input)),
            Some(Compression::Zstd) => Codec::Zstd(
                zstd::stream::read::Decoder::new(input)
                    .map_err(|e| decoder_error(Compression::Zstd, e))?,
            ),
        })
    }
}

impl<R: Read> Read for Codec<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let (compression, read) = match self {
            Codec::Plain(r) => return r.read(buf),
            Codec::Gzip(r) => (Compression::Gzip, r.read(buf)),
            Codec::Bzip2(r) => (Compression::Bzip2, r.read(buf)),
            Codec::Xz(r) => (Compression::Xz, r.read(buf)),
            Codec::Zstd(r) => (Compression::Zstd, r.read(buf)),
        };
        read.map_err(|e| decoder_error(compression, e))
    }
}

/// A decompressor's error, saying which format and what went wrong. A stream cut
/// short becomes [`ErrorKind::InvalidData`]: bgpkit-parser takes an
/// `UnexpectedEof` before a record's first byte for the clean end of the file, which
/// would quietly drop the rest of a truncated one.
fn decoder_error(compression: Compression, e: io::Error) -> io::Error {
    let said = match e.kind() {
        ErrorKind::Interrupted | ErrorKind::WouldBlock => return e,
        // The file's own read failed (a disk error): not the format's fault.
        _ if e.raw_os_error().is_some() => {
            return io::Error::new(e.kind(), format!("reading the {compression} stream: {e}"))
        }
        ErrorKind::UnexpectedEof => {
            format!("the {compression} stream is cut short (truncated file?): {e}")
        }
        _ => format!("the {compression} stream is corrupt: {e}"),
    };
    io::Error::new(ErrorKind::InvalidData, said)
}

/// Whether `head` can begin an MRT file (see [`decompressed`]); if not, what it looks
/// like.
fn mrt_start(head: &[u8]) -> Result<(), String> {
    let Some(h) = head.get(..HEADER_LEN) else {
        return Err(looks_like(head, None));
    };
    let mrt_type = u16::from_be_bytes([h[4], h[5]]);
    let subtype = u16::from_be_bytes([h[6], h[7]]);
    let length = u32::from_be_bytes([h[8], h[9], h[10], h[11]]);
    let wrong = match EntryType::try_from(mrt_type) {
        Err(_) => format!("Type {mrt_type}, which is no MRT type"),
        Ok(_) if length > MAX_RECORD_LEN => {
            format!("Length {length}, over the {MAX_RECORD_LEN} bytes of any real record")
        }
        Ok(t @ (EntryType::BGP4MP_ET | EntryType::ISIS_ET | EntryType::OSPFv3_ET))
            if length < 4 =>
        {
            format!("a {t:?} record (subtype {subtype}) of Length {length}, too short for its microseconds")
        }
        Ok(_) => return Ok(()),
    };
    Err(looks_like(head, Some(&wrong)))
}

/// Files people mistake for MRT, by their first bytes.
const KNOWN: &[(&[u8], &str)] = &[
    (b"PK\x03\x04", "a zip archive"),
    (b"PK\x05\x06", "an empty zip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (
        b"\x04\x22\x4d\x18",
        "an LZ4 stream, a compression hopsig does not read (it reads gzip, bzip2, xz and zstd)",
    ),
    (b"\xd4\xc3\xb2\xa1", "a pcap capture"),
    (b"\xa1\xb2\xc3\xd4", "a pcap capture"),
    (b"\x4d\x3c\xb2\xa1", "a pcap capture"),
    (b"\xa1\xb2\x3c\x4d", "a pcap capture"),
    (b"\x0a\x0d\x0d\x0a", "a pcapng capture"),
    (b"%PDF-", "a PDF document"),
    (b"\x7fELF", "an ELF executable"),
];

/// What `head`, which is not MRT, looks like; `header` says what is wrong with it read
/// as an MRT common header, when it is long enough for one.
fn looks_like(head: &[u8], header: Option<&str>) -> String {
    if let Some((_, what)) = KNOWN.iter().find(|(magic, _)| head.starts_with(magic)) {
        return format!("it looks like {what}");
    }
    if head.get(257..262) == Some(b"ustar") {
        return "it looks like a tar archive".to_owned();
    }
    if let Some(text) = text(head) {
        let start = text.trim_start().to_ascii_lowercase();
        let what = if start.starts_with("<!doctype html") || start.starts_with("<html") {
            "an HTML page"
        } else if start.starts_with("<?xml") {
            "an XML document"
        } else {
            "a text file"
        };
        let first = text.trim_start().lines().next().unwrap_or("");
        let shown: String = first.chars().take(60).collect();
        let more = if shown.len() < first.len() { "…" } else { "" };
        return format!("it looks like {what} (it begins \"{shown}{more}\")");
    }
    match header {
        Some(wrong) => format!(
            "its first {HEADER_LEN} bytes, read as an MRT common header (RFC 6396 §2), give {wrong}"
        ),
        None => format!(
            "it holds only {} bytes, fewer than one MRT common header ({HEADER_LEN})",
            head.len()
        ),
    }
}

/// `head` as text, if it is UTF-8 (a character cut at the end allowed) with no control
/// character but tab, line feed, form feed and carriage return. MRT never is: its Type
/// field's first byte is 0.
fn text(head: &[u8]) -> Option<&str> {
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
        Err(_) => return None,
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let printable = |c: char| !c.is_control() || matches!(c, '\t' | '\n' | '\x0c' | '\r');
    (!text.is_empty() && text.chars().all(printable)).then_some(text)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// A BGP4MP_ET header with a 4-byte body, as RIS records start.
    const ET: [u8; 16] = [
        0x57, 0xac, 0x9f, 0x40, 0x00, 0x11, 0x00, 0x04, 0x00, 0x00, 0x00, 0x04, 0, 0, 0, 1,
    ];

    fn refused(bytes: &[u8]) -> String {
        match decompressed(bytes) {
            Ok(_) => panic!("{bytes:?} was taken for MRT"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn magic_bytes_name_the_format() {
        assert_eq!(Compression::of(&[0x1f, 0x8b, 8]), Some(Compression::Gzip));
        assert_eq!(Compression::of(b"BZh91AY&SY"), Some(Compression::Bzip2));
        assert_eq!(Compression::of(b"BZh0"), None, "block size 0 is no bzip2");
        assert_eq!(Compression::of(b"\xfd7zXZ\x00\x00"), Some(Compression::Xz));
        assert_eq!(
            Compression::of(&[0x28, 0xb5, 0x2f, 0xfd]),
            Some(Compression::Zstd)
        );
        assert_eq!(Compression::of(&ET), None);
        assert_eq!(Compression::of(&[0x1f]), None);
    }

    #[test]
    fn an_mrt_header_is_read_as_it_is() {
        let mut r = decompressed(&ET[..]).unwrap();
        assert_eq!(r.compression(), None);
        let mut back = Vec::new();
        r.read_to_end(&mut back).unwrap();
        assert_eq!(back, ET);
    }

    #[test]
    fn what_is_not_mrt_is_named() {
        assert_eq!(refused(b""), "empty file: no MRT record");
        let text = refused(b"prefix,origin\n192.0.2.0/24,64500\n");
        assert!(
            text.contains(
                "not an MRT file: it looks like a text file (it begins \"prefix,origin\")"
            ),
            "{text}"
        );
        let html = refused(b"\n  <!DOCTYPE html><html><title>404 Not Found</title>");
        assert!(html.contains("an HTML page"), "{html}");
        assert!(refused(b"PK\x03\x04\x14\0\0\0").contains("a zip archive"));
        assert!(refused(&[0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0]).contains("a pcap capture"));
        assert!(refused(&[0x0a, 0x0d, 0x0d, 0x0a, 0, 0, 0, 0x1c]).contains("pcapng"));
        assert!(refused(&[0x04, 0x22, 0x4d, 0x18, 0x64]).contains("LZ4"));
        let short = refused(&[0, 0, 0, 1, 0]);
        assert!(short.contains("only 5 bytes"), "{short}");
        // The bytes of a bzip2 file taken for MRT: the "MRT message too large" of
        // issue 22, now a header that names what is wrong.
        let mut type_wrong = ET;
        type_wrong[4..6].copy_from_slice(&[0x31, 0x41]);
        let said = refused(&type_wrong);
        assert!(
            said.contains("give Type 12609, which is no MRT type"),
            "{said}"
        );
        let mut long = ET;
        long[8..12].copy_from_slice(&(MAX_RECORD_LEN + 1).to_be_bytes());
        assert!(refused(&long).contains("Length 16777217, over"));
        let mut et_short = ET;
        et_short[8..12].copy_from_slice(&3u32.to_be_bytes());
        assert!(refused(&et_short).contains("too short for its microseconds"));
    }

    #[test]
    fn text_needs_no_control_characters() {
        assert_eq!(text(b"a\tb\r\n"), Some("a\tb\r\n"));
        assert_eq!(text("é".as_bytes()), Some("é"));
        assert_eq!(
            text(&"é".as_bytes()[..1]),
            None,
            "nothing but a cut character"
        );
        assert_eq!(text(&"aé".as_bytes()[..2]), Some("a"));
        assert_eq!(text(b"a\0b"), None);
        assert_eq!(text(&[0xff, b'a']), None);
    }
}
