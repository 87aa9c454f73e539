//! Capture files in and out, through `pcap-file`: classic pcap (either byte order,
//! microsecond or nanosecond timestamps) and pcapng (Enhanced and Simple Packet
//! Blocks; every interface of one link type; timestamps in each interface's units) are
//! read; classic pcap is written, with
//! the input's link type, byte order and timestamp resolution.

use std::borrow::Cow;
use std::io::{BufRead, Read, Write};
use std::time::Duration;

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapReader, PcapWriter};
use pcap_file::pcapng::{Block, PcapNgReader};
use pcap_file::{DataLink, TsResolution};

use crate::link::LinkType;

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

/// A capture file that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// An I/O error.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// Not a pcap or pcapng file, or a damaged one.
    #[error("not a valid pcap or pcapng file: {0}")]
    Format(#[from] pcap_file::PcapError),
    /// A pcapng whose interfaces differ in link type.
    #[error("pcapng interfaces of different link types ({0} and {1}) are not supported")]
    MixedLinkTypes(u32, u32),
    /// Writing the capture failed.
    #[error("cannot write the capture: {0}")]
    Write(pcap_file::PcapError),
    /// A record that does not make sense.
    #[error("damaged record: {0}")]
    Record(&'static str),
    /// A packet of an interface that was never described.
    #[error("packet of undescribed pcapng interface {0}")]
    UnknownInterface(u32),
}

enum Format<R: Read> {
    Pcap(PcapReader<R>),
    PcapNg(PcapNgReader<R>),
}

/// Frames read from a capture file.
pub struct CaptureReader<R: Read> {
    format: Format<R>,
    link: Option<u32>,
    header: PcapHeader,
    /// pcapng: each interface's timestamp clock, by interface id.
    clocks: Vec<TsClock>,
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
    /// [`CaptureError::Format`] if the file header does not parse.
    pub fn new(reader: R, pcapng: bool) -> Result<Self, CaptureError> {
        if pcapng {
            let mut ng = PcapNgReader::new(reader)?;
            let endianness = ng.section().endianness;
            // The link type is in the first Interface Description Block, which comes
            // before any packet: read up to it.
            let mut link = None;
            let mut clocks = Vec::new();
            while link.is_none() {
                match ng.next_block() {
                    None => break,
                    Some(Err(e)) => return Err(e.into()),
                    Some(Ok(Block::InterfaceDescription(idb))) => {
                        link = Some(u32::from(idb.linktype));
                        clocks.push(TsClock::of(&idb));
                    }
                    Some(Ok(Block::EnhancedPacket(epb))) => {
                        return Err(CaptureError::UnknownInterface(epb.interface_id))
                    }
                    Some(Ok(Block::SimplePacket(_))) => {
                        return Err(CaptureError::UnknownInterface(0))
                    }
                    Some(Ok(_)) => {}
                }
            }
            Ok(CaptureReader {
                format: Format::PcapNg(ng),
                link,
                clocks,
                header: PcapHeader {
                    endianness,
                    ts_resolution: TsResolution::NanoSecond,
                    snaplen: 0,
                    ..PcapHeader::default()
                },
            })
        } else {
            let pcap = PcapReader::new(reader)?;
            let header = pcap.header();
            Ok(CaptureReader {
                link: Some(u32::from(header.datalink)),
                format: Format::Pcap(pcap),
                header,
                clocks: Vec::new(),
            })
        }
    }

    /// The link type of the frames (Ethernet for a pcapng without interfaces).
    pub fn link(&self) -> LinkType {
        LinkType::from_code(self.link.unwrap_or(1))
    }

    /// The header for a pcap file of these frames: the input's byte order, timestamp
    /// resolution and link type, and a snapshot length of at least 262,144 (frames
    /// grow when signed).
    pub fn pcap_header(&self) -> PcapHeader {
        PcapHeader {
            datalink: DataLink::from(self.link.unwrap_or(1)),
            snaplen: self.header.snaplen.max(262_144),
            endianness: self.header.endianness,
            ts_resolution: self.header.ts_resolution,
            ..PcapHeader::default()
        }
    }

    /// The next frame, `None` at the end.
    ///
    /// # Errors
    /// [`CaptureError`] for a damaged file.
    pub fn next_frame(&mut self) -> Option<Result<Frame, CaptureError>> {
        match &mut self.format {
            // Raw records: pcap-file's checked reader refuses a whole capture made with
            // a small snapshot length (orig_len > snaplen), whose cut frames are
            // exactly what the caller must see (and count as truncated).
            Format::Pcap(r) => {
                let raw = match r.next_raw_packet()? {
                    Ok(raw) => raw,
                    Err(e) => return Some(Err(e.into())),
                };
                let frac = match self.header.ts_resolution {
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
                }))
            }
            Format::PcapNg(r) => loop {
                let block = match r.next_block()? {
                    Ok(b) => b,
                    Err(e) => return Some(Err(e.into())),
                };
                match block {
                    // A new section numbers its interfaces from 0 again.
                    Block::SectionHeader(_) => self.clocks.clear(),
                    Block::InterfaceDescription(idb) => {
                        let code = u32::from(idb.linktype);
                        match self.link {
                            Some(l) if l != code => {
                                return Some(Err(CaptureError::MixedLinkTypes(l, code)))
                            }
                            _ => self.link = Some(code),
                        }
                        self.clocks.push(TsClock::of(&idb));
                    }
                    Block::EnhancedPacket(epb) => {
                        let Some(clock) = usize::try_from(epb.interface_id)
                            .ok()
                            .and_then(|i| self.clocks.get(i))
                        else {
                            return Some(Err(CaptureError::UnknownInterface(epb.interface_id)));
                        };
                        let data = epb.data.into_owned();
                        return Some(Ok(Frame {
                            time: clock.time(epb.timestamp),
                            orig_len: epb.original_len.max(data.len() as u32),
                            data,
                        }));
                    }
                    Block::SimplePacket(spb) => {
                        if self.link.is_none() {
                            return Some(Err(CaptureError::UnknownInterface(0)));
                        }
                        let data = spb.data.into_owned();
                        return Some(Ok(Frame {
                            time: Duration::ZERO,
                            orig_len: spb.original_len.max(data.len() as u32),
                            data,
                        }));
                    }
                    _ => {}
                }
            },
        }
    }
}

impl<R: Read> Iterator for CaptureReader<R> {
    type Item = Result<Frame, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_frame()
    }
}

/// Frames written as a classic pcap file.
pub struct CaptureWriter<W: Write> {
    writer: PcapWriter<W>,
}

impl<W: Write> CaptureWriter<W> {
    /// Writes `header` (from [`CaptureReader::pcap_header`]) to `writer`.
    ///
    /// # Errors
    /// [`CaptureError::Write`] for a write error.
    pub fn new(writer: W, header: PcapHeader) -> Result<Self, CaptureError> {
        Ok(CaptureWriter {
            writer: PcapWriter::with_header(writer, header).map_err(CaptureError::Write)?,
        })
    }

    /// Writes `frame`.
    ///
    /// # Errors
    /// [`CaptureError::Write`] for a write error.
    pub fn write(&mut self, frame: &Frame) -> Result<(), CaptureError> {
        self.writer
            .write_packet(&PcapPacket {
                timestamp: frame.time,
                orig_len: frame.orig_len,
                data: Cow::Borrowed(&frame.data),
            })
            .map_err(CaptureError::Write)?;
        Ok(())
    }

    /// The writer, after the last frame.
    pub fn into_inner(self) -> W {
        self.writer.into_writer()
    }
}
