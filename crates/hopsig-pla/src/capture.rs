//! Capture files in and out, through `pcap-file` (`docs/spec/pla.md`, "Capture
//! files"). Read: classic pcap (either byte order, microsecond or nanosecond
//! timestamps) and pcapng (Enhanced and Simple Packet Blocks; any number of sections
//! and interfaces, each interface with its own link type and timestamp units).
//! Written: the input's format, classic pcap with the input's link type, byte order
//! and timestamp resolution, or pcapng with one interface per input interface that has
//! frames. A file cut short inside a record gives its complete frames, then
//! [`CaptureError::Truncated`] with the byte offset of the incomplete record.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{BufRead, Chain, Cursor, ErrorKind, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use byteorder::{BigEndian, LittleEndian};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapReader, PcapWriter};
use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::blocks::section_header::SectionHeaderBlock;
use pcap_file::pcapng::{Block, PcapNgReader, PcapNgWriter, RawBlock};
use pcap_file::{DataLink, Endianness, PcapError, TsResolution};

use crate::link::LinkType;

/// The interface a frame was captured on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    /// Its number in the input file, from 0, counted on across pcapng sections (a
    /// classic pcap file has one, 0).
    pub id: u32,
    /// Its link type, a LINKTYPE_ value.
    pub link: u32,
    /// pcapng: its Interface Description Block as read, whose name and other options
    /// a pcapng output keeps.
    description: Option<InterfaceDescriptionBlock<'static>>,
}

impl Interface {
    /// Interface `id` of link type `link` (a LINKTYPE_ value), described by nothing
    /// else.
    pub fn new(id: u32, link: u32) -> Self {
        Interface {
            id,
            link,
            description: None,
        }
    }

    /// Its link type, as [`crate::link::locate`] reads it.
    pub fn link_type(&self) -> LinkType {
        LinkType::from_code(self.link)
    }

    /// The Interface Description Block a pcapng output gives it: the input's, with
    /// timestamps in nanoseconds (what `pcap-file` writes) and no limit below the
    /// input's snapshot length or 262,144 octets (signed frames grow).
    fn output_description(&self) -> InterfaceDescriptionBlock<'static> {
        let mut idb = self
            .description
            .clone()
            .unwrap_or_else(|| InterfaceDescriptionBlock {
                linktype: DataLink::from(self.link),
                snaplen: 0,
                options: Vec::new(),
            });
        if idb.snaplen != 0 {
            idb.snaplen = idb.snaplen.max(MIN_SNAPLEN);
        }
        idb.options.retain(|o| {
            !matches!(
                o,
                InterfaceDescriptionOption::IfTsResol(_)
                    | InterfaceDescriptionOption::IfTsOffset(_)
            )
        });
        idb.options.push(InterfaceDescriptionOption::IfTsResol(9));
        idb
    }
}

/// The smallest snapshot length written (frames grow when signed).
const MIN_SNAPLEN: u32 = 262_144;

/// A captured frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Capture time since the Unix epoch.
    pub time: Duration,
    /// Length on the wire (more than `data.len()` if the capture cut it; never less:
    /// a record that says less is read as a whole frame).
    pub orig_len: u32,
    /// The captured octets, link-layer header first.
    pub data: Vec<u8>,
    /// The interface it was captured on (shared by its frames).
    pub interface: Arc<Interface>,
}

impl Frame {
    /// Whether the capture holds the whole frame.
    pub fn is_complete(&self) -> bool {
        self.data.len() as u64 >= u64::from(self.orig_len)
    }

    /// The capture time in whole Unix seconds (the router's clock for this frame),
    /// saturating at the 32-bit timestamp's end.
    pub fn unix_seconds(&self) -> u32 {
        u32::try_from(self.time.as_secs()).unwrap_or(u32::MAX)
    }
}

/// Where a capture cut short in the middle of a record ends: its complete frames are
/// processed and written as a whole capture's would be, then the command fails naming
/// the incomplete record's byte offset (docs/spec/pla.md, "Capture files").
#[derive(Debug, Default)]
pub struct CutShort(Option<CaptureError>);

impl CutShort {
    /// `Ok` for the end of a capture cut short ([`CaptureError::Truncated`],
    /// remembered), else the error.
    ///
    /// # Errors
    /// Any other [`CaptureError`], handed back.
    pub fn take(&mut self, e: CaptureError) -> Result<(), CaptureError> {
        match e {
            CaptureError::Truncated { .. } => {
                self.0 = Some(e);
                Ok(())
            }
            e => Err(e),
        }
    }

    /// Where the capture was cut short, if it was.
    pub fn error(&self) -> Option<&CaptureError> {
        self.0.as_ref()
    }
}

/// A capture file that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// An I/O error.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// Not a pcap or pcapng file, or a damaged file header.
    #[error("not a valid pcap or pcapng file: {0}")]
    Format(#[from] PcapError),
    /// The file ends inside its file header (pcap) or first Section Header Block.
    #[error("not a valid pcap or pcapng file: cut short inside its file header")]
    HeaderCut,
    /// The file ends inside a record (pcap) or block (pcapng) that starts at `offset`:
    /// the frames before it are complete. tshark says "cut short in the middle of a
    /// packet" for it.
    #[error(
        "cut short in the middle of a packet: the record at byte offset {offset} is incomplete"
    )]
    Truncated {
        /// Byte offset of the incomplete record in the file.
        offset: u64,
    },
    /// A record that does not parse, at `offset`.
    #[error("damaged record at byte offset {offset}: {source}")]
    Damaged {
        /// Byte offset of the record in the file.
        offset: u64,
        /// What `pcap-file` found wrong.
        source: PcapError,
    },
    /// A record longer than `pcap-file` reads (its buffer is 8,000,000 octets), at
    /// `offset`, in a file that goes on after it.
    #[error("the record at byte offset {offset} is longer than 8,000,000 octets")]
    Oversized {
        /// Byte offset of the record in the file.
        offset: u64,
    },
    /// Writing the capture failed.
    #[error("cannot write the capture: {0}")]
    Write(PcapError),
    /// A record that does not make sense.
    #[error("damaged record: {0}")]
    Record(&'static str),
    /// A packet of an interface that was never described.
    #[error("packet of undescribed pcapng interface {0}")]
    UnknownInterface(u32),
}

/// The octets `pcap-file` reads: the file's first octets, read ahead to learn the
/// length of a pcapng's first block, then the rest. It notes when the file ends, so
/// that a record `pcap-file` cannot complete is told apart: cut short if the file
/// ended inside it, else longer than `pcap-file`'s buffer.
struct Source<R> {
    inner: Chain<Cursor<Vec<u8>>, R>,
    ended: Arc<AtomicBool>,
}

impl<R: Read> Read for Source<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            self.ended.store(true, Ordering::Relaxed);
        }
        Ok(n)
    }
}

enum Format<R: Read> {
    Pcap {
        reader: PcapReader<Source<R>>,
        header: PcapHeader,
        interface: Arc<Interface>,
    },
    PcapNg {
        reader: PcapNgReader<Source<R>>,
        /// The first section's byte order (a pcapng output's).
        first: Endianness,
        /// The current section's.
        endianness: Endianness,
        /// The current section's interfaces, by interface id, with their clocks.
        interfaces: Vec<(Arc<Interface>, TsClock)>,
        /// The number the next interface gets.
        next_id: u32,
    },
}

/// Frames read from a capture file.
pub struct CaptureReader<R: Read> {
    format: Format<R>,
    /// Byte offset in the file of the next record (pcap) or block (pcapng).
    offset: u64,
    /// Whether the file has ended.
    ended: Arc<AtomicBool>,
}

/// A pcapng interface's timestamp units and offset (`if_tsresol`, `if_tsoffset`,
/// RFC-draft pcapng §4.2). `pcap-file` hands an Enhanced Packet Block's raw 64-bit
/// timestamp over as nanoseconds whatever the units; this reads it as the interface
/// says (microseconds by default).
#[derive(Debug, Clone, Copy)]
struct TsClock {
    /// `if_tsresol`: bit 7 clear, units of 10^-v s; set, units of 2^-(v & 0x7f) s.
    resolution: u8,
    /// `if_tsoffset`, seconds added to every timestamp.
    offset: u64,
}

impl TsClock {
    fn of(
        idb: &pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionBlock<'_>,
    ) -> Self {
        use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption as O;
        let mut clock = TsClock {
            resolution: 6,
            offset: 0,
        };
        for o in &idb.options {
            match o {
                O::IfTsResol(r) => clock.resolution = *r,
                O::IfTsOffset(s) => clock.offset = *s,
                _ => {}
            }
        }
        clock
    }

    /// The time of a raw timestamp (`pcap-file`'s "nanoseconds").
    fn time(self, raw: Duration) -> Duration {
        let raw = raw.as_nanos();
        let v = u32::from(self.resolution & 0x7f);
        let nanos = if self.resolution & 0x80 == 0 {
            match v {
                0..=9 => raw.saturating_mul(10u128.pow(9 - v)),
                _ => raw / 10u128.saturating_pow(v - 9),
            }
        } else {
            raw.saturating_mul(1_000_000_000) >> v.min(127)
        };
        let nanos = u64::try_from(nanos).unwrap_or(u64::MAX);
        Duration::from_nanos(nanos).saturating_add(Duration::from_secs(self.offset))
    }
}

/// pcapng's Section Header Block magic, the file's first four octets.
const PCAPNG_MAGIC: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];
/// A classic pcap file header's octets.
const PCAP_HEADER: u64 = 24;
/// A pcap record header's octets.
const PCAP_RECORD_HEADER: u64 = 16;

impl<R: BufRead> CaptureReader<R> {
    /// Reads a capture from `reader`, pcapng if it starts with a Section Header Block
    /// (looked at in the buffer, not consumed), else classic pcap.
    ///
    /// # Errors
    /// [`CaptureError`] if it cannot be read or is neither pcap nor pcapng.
    pub fn detect(mut reader: R) -> Result<Self, CaptureError> {
        let pcapng = reader.fill_buf()?.starts_with(&PCAPNG_MAGIC);
        Self::new(reader, pcapng)
    }
}

impl<R: Read> CaptureReader<R> {
    /// Reads a capture from `reader`, pcapng if `pcapng`.
    ///
    /// # Errors
    /// [`CaptureError::Format`] if the file header does not parse,
    /// [`CaptureError::HeaderCut`] if the file ends inside it.
    pub fn new(mut reader: R, pcapng: bool) -> Result<Self, CaptureError> {
        // A pcapng's first block: type, length, byte-order magic.
        let mut head = Vec::with_capacity(12);
        (&mut reader).take(12).read_to_end(&mut head)?;
        let first_block = first_block_len(&head);
        let ended = Arc::new(AtomicBool::new(false));
        let source = Source {
            inner: Cursor::new(head).chain(reader),
            ended: Arc::clone(&ended),
        };
        let header_error = |e: PcapError| match e {
            PcapError::IoError(io) if io.kind() == ErrorKind::UnexpectedEof => {
                CaptureError::HeaderCut
            }
            PcapError::IoError(io) => CaptureError::Io(io),
            e => CaptureError::Format(e),
        };
        if pcapng {
            let reader = PcapNgReader::new(source).map_err(header_error)?;
            let endianness = reader.section().endianness;
            Ok(CaptureReader {
                format: Format::PcapNg {
                    reader,
                    first: endianness,
                    endianness,
                    interfaces: Vec::new(),
                    next_id: 0,
                },
                offset: first_block.unwrap_or(0),
                ended,
            })
        } else {
            let reader = PcapReader::new(source).map_err(header_error)?;
            let header = reader.header();
            Ok(CaptureReader {
                format: Format::Pcap {
                    reader,
                    header,
                    interface: Arc::new(Interface::new(0, u32::from(header.datalink))),
                },
                offset: PCAP_HEADER,
                ended,
            })
        }
    }

    /// The format of a capture of these frames: the input's. For pcap, the input's
    /// byte order, timestamp resolution and link type, and a snapshot length of at
    /// least 262,144 (frames grow when signed); for pcapng, the first section's byte
    /// order.
    pub fn output_format(&self) -> OutputFormat {
        match &self.format {
            Format::Pcap { header, .. } => OutputFormat::Pcap(PcapHeader {
                snaplen: header.snaplen.max(MIN_SNAPLEN),
                ..*header
            }),
            Format::PcapNg { first, .. } => OutputFormat::PcapNg(*first),
        }
    }

    /// The next frame, `None` at the end.
    ///
    /// # Errors
    /// [`CaptureError`] for a damaged file; [`CaptureError::Truncated`] if it ends
    /// inside a record.
    pub fn next_frame(&mut self) -> Option<Result<Frame, CaptureError>> {
        let ended = &self.ended;
        let error = |e: PcapError, offset: u64| match e {
            PcapError::IoError(io) if io.kind() == ErrorKind::UnexpectedEof => {
                if ended.load(Ordering::Relaxed) {
                    CaptureError::Truncated { offset }
                } else {
                    CaptureError::Oversized { offset }
                }
            }
            PcapError::IoError(io) => CaptureError::Io(io),
            source => CaptureError::Damaged { offset, source },
        };
        match &mut self.format {
            // Raw records: pcap-file's checked reader refuses a whole capture made with
            // a small snapshot length (orig_len > snaplen), whose cut frames are
            // exactly what the caller must see (and count as truncated).
            Format::Pcap {
                reader,
                header,
                interface,
            } => {
                let at = self.offset;
                let raw = match reader.next_raw_packet()? {
                    Ok(raw) => raw,
                    Err(e) => return Some(Err(error(e, at))),
                };
                self.offset += PCAP_RECORD_HEADER + u64::from(raw.incl_len);
                let frac = match header.ts_resolution {
                    TsResolution::MicroSecond => u64::from(raw.ts_frac) * 1000,
                    TsResolution::NanoSecond => u64::from(raw.ts_frac),
                };
                if frac >= 1_000_000_000 {
                    return Some(Err(CaptureError::Record(
                        "timestamp fraction of a second out of range",
                    )));
                }
                let data = raw.data.into_owned();
                Some(Ok(Frame {
                    time: Duration::new(u64::from(raw.ts_sec), frac as u32),
                    // A record longer than the frame it says it captured is read as a
                    // whole frame.
                    orig_len: raw.orig_len.max(data.len() as u32),
                    data,
                    interface: Arc::clone(interface),
                }))
            }
            Format::PcapNg {
                reader,
                endianness,
                interfaces,
                next_id,
                ..
            } => loop {
                // Raw blocks, for their lengths: the offset of each.
                let at = self.offset;
                let raw = match reader.next_raw_block()? {
                    Ok(b) => b,
                    Err(e) => return Some(Err(error(e, at))),
                };
                self.offset += u64::from(raw.initial_len);
                let block = match parse_block(raw, *endianness) {
                    Ok(b) => b,
                    Err(e) => return Some(Err(error(e, at))),
                };
                match block {
                    // A new section numbers its interfaces from 0 again.
                    Block::SectionHeader(shb) => {
                        *endianness = shb.endianness;
                        interfaces.clear();
                    }
                    Block::InterfaceDescription(idb) => {
                        let clock = TsClock::of(&idb);
                        let interface = Interface {
                            id: *next_id,
                            link: u32::from(idb.linktype),
                            description: Some(idb.into_owned()),
                        };
                        *next_id = next_id.saturating_add(1);
                        interfaces.push((Arc::new(interface), clock));
                    }
                    Block::EnhancedPacket(epb) => {
                        let Some((interface, clock)) = usize::try_from(epb.interface_id)
                            .ok()
                            .and_then(|i| interfaces.get(i))
                        else {
                            return Some(Err(CaptureError::UnknownInterface(epb.interface_id)));
                        };
                        let data = epb.data.into_owned();
                        return Some(Ok(Frame {
                            time: clock.time(epb.timestamp),
                            orig_len: epb.original_len.max(data.len() as u32),
                            data,
                            interface: Arc::clone(interface),
                        }));
                    }
                    // A Simple Packet Block belongs to interface 0 and has no time.
                    Block::SimplePacket(spb) => {
                        let Some((interface, _)) = interfaces.first() else {
                            return Some(Err(CaptureError::UnknownInterface(0)));
                        };
                        let data = spb.data.into_owned();
                        return Some(Ok(Frame {
                            time: Duration::ZERO,
                            orig_len: spb.original_len.max(data.len() as u32),
                            data,
                            interface: Arc::clone(interface),
                        }));
                    }
                    _ => {}
                }
            },
        }
    }
}

/// The length of a pcapng file's first block from its first 12 octets (type, length,
/// byte-order magic), if they are there.
fn first_block_len(head: &[u8]) -> Option<u64> {
    let len: [u8; 4] = head.get(4..8)?.try_into().ok()?;
    match head.get(8..12)? {
        [0x1a, 0x2b, 0x3c, 0x4d] => Some(u64::from(u32::from_be_bytes(len))),
        [0x4d, 0x3c, 0x2b, 0x1a] => Some(u64::from(u32::from_le_bytes(len))),
        _ => None,
    }
}

/// A raw pcapng block parsed in its section's byte order (a Section Header Block
/// finds its own).
fn parse_block(raw: RawBlock<'_>, endianness: Endianness) -> Result<Block<'_>, PcapError> {
    match endianness {
        Endianness::Big => raw.try_into_block::<BigEndian>(),
        Endianness::Little => raw.try_into_block::<LittleEndian>(),
    }
}

impl<R: Read> Iterator for CaptureReader<R> {
    type Item = Result<Frame, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_frame()
    }
}

/// The format of a capture to write ([`CaptureReader::output_format`]: the input's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// Classic pcap with this file header.
    Pcap(PcapHeader),
    /// pcapng, one section in this byte order.
    PcapNg(Endianness),
}

enum Writer<W: Write> {
    Pcap(PcapWriter<W>),
    PcapNg {
        writer: PcapNgWriter<W>,
        /// Output interface id by input interface id.
        ids: HashMap<u32, u32>,
    },
}

/// Frames written as a capture file.
pub struct CaptureWriter<W: Write> {
    writer: Writer<W>,
}

impl<W: Write> CaptureWriter<W> {
    /// Writes the file header of `format` to `writer`.
    ///
    /// # Errors
    /// [`CaptureError::Write`] for a write error.
    pub fn new(writer: W, format: OutputFormat) -> Result<Self, CaptureError> {
        let writer = match format {
            OutputFormat::Pcap(header) => {
                Writer::Pcap(PcapWriter::with_header(writer, header).map_err(CaptureError::Write)?)
            }
            OutputFormat::PcapNg(endianness) => Writer::PcapNg {
                writer: PcapNgWriter::with_section_header(
                    writer,
                    SectionHeaderBlock {
                        endianness,
                        ..SectionHeaderBlock::default()
                    },
                )
                .map_err(CaptureError::Write)?,
                ids: HashMap::new(),
            },
        };
        Ok(CaptureWriter { writer })
    }

    /// Writes `frame`. pcapng: an interface's description is written before its first
    /// frame, and interfaces are numbered in the order of their first frames.
    ///
    /// # Errors
    /// [`CaptureError::Write`] for a write error.
    pub fn write(&mut self, frame: &Frame) -> Result<(), CaptureError> {
        match &mut self.writer {
            Writer::Pcap(w) => w
                .write_packet(&PcapPacket {
                    timestamp: frame.time,
                    orig_len: frame.orig_len,
                    data: Cow::Borrowed(&frame.data),
                })
                .map_err(CaptureError::Write)?,
            Writer::PcapNg { writer, ids } => {
                let id = match ids.get(&frame.interface.id) {
                    Some(id) => *id,
                    None => {
                        let id = u32::try_from(ids.len()).map_err(|_| {
                            CaptureError::Write(PcapError::InvalidField("too many interfaces"))
                        })?;
                        writer
                            .write_pcapng_block(frame.interface.output_description())
                            .map_err(CaptureError::Write)?;
                        ids.insert(frame.interface.id, id);
                        id
                    }
                };
                writer
                    .write_pcapng_block(EnhancedPacketBlock {
                        interface_id: id,
                        timestamp: frame.time,
                        original_len: frame.orig_len,
                        data: Cow::Borrowed(&frame.data),
                        options: Vec::new(),
                    })
                    .map_err(CaptureError::Write)?
            }
        };
        Ok(())
    }

    /// The writer, after the last frame.
    pub fn into_inner(self) -> W {
        match self.writer {
            Writer::Pcap(w) => w.into_writer(),
            Writer::PcapNg { writer, .. } => writer.into_inner(),
        }
    }
}
