//! Capture files: a frame the snapshot length cut short is read (not refused with the
//! whole file) and is `malformed` for a router; a file cut short inside a record gives
//! its complete frames, then the record's offset; a pcapng's interfaces keep their own
//! link types; written frames read back unchanged.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

use hopsig_koblitz::curve::K163;
use hopsig_pla::capture::{
    CaptureError, CaptureReader, CaptureWriter, Frame, Interface, OutputFormat,
};
use hopsig_pla::link::LinkType;
use hopsig_pla::{Router, RouterConfig, TtpDirectory, Verdict};
use hopsig_schemes::pla::icnr::Ttp;

/// A little-endian microsecond pcap header with snapshot length `snaplen`, link type
/// raw IPv6 (229).
fn pcap_header(snaplen: u32) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    h.extend_from_slice(&2u16.to_le_bytes());
    h.extend_from_slice(&4u16.to_le_bytes());
    h.extend_from_slice(&[0; 8]);
    h.extend_from_slice(&snaplen.to_le_bytes());
    h.extend_from_slice(&229u32.to_le_bytes());
    h
}

fn record(sec: u32, data: &[u8], orig_len: u32) -> Vec<u8> {
    let mut r = Vec::new();
    r.extend_from_slice(&sec.to_le_bytes());
    r.extend_from_slice(&0u32.to_le_bytes());
    r.extend_from_slice(&(data.len() as u32).to_le_bytes());
    r.extend_from_slice(&orig_len.to_le_bytes());
    r.extend_from_slice(data);
    r
}

/// An IPv6 packet header announcing 1460 octets of UDP payload, cut to 96 octets.
fn cut_packet() -> Vec<u8> {
    let mut p = vec![0u8; 96];
    p[0] = 0x60;
    p[4..6].copy_from_slice(&1460u16.to_be_bytes());
    p[6] = 17;
    p[7] = 64;
    p
}

#[test]
fn a_frame_cut_by_the_snapshot_length_is_read_and_malformed() {
    let mut file = pcap_header(96);
    file.extend(record(1_700_000_000, &cut_packet(), 1500));
    let mut reader = CaptureReader::detect(file.as_slice()).unwrap();
    let frame = reader.next_frame().unwrap().unwrap();
    assert_eq!(frame.interface.link_type(), LinkType::Ipv6);
    assert!(!frame.is_complete());
    assert_eq!(frame.orig_len, 1500);
    assert!(reader.next_frame().is_none());
    let ttp = Ttp::<K163>::setup().unwrap();
    let mut ttps = TtpDirectory::default();
    ttps.insert(1, *ttp.public());
    let r = Router::new(ttps, RouterConfig::default());
    let v = r.check_frame(LinkType::Ipv6, &frame.data, frame.unix_seconds());
    assert!(matches!(v, Verdict::Malformed(_)), "{v:?}");
}

#[test]
fn frames_written_read_back_unchanged() {
    let header = pcap_header(65535);
    let reader = CaptureReader::detect(header.as_slice()).unwrap();
    let interface = Arc::new(Interface::new(0, 229));
    let frames = [
        Frame {
            time: Duration::new(1_700_000_000, 123_000),
            orig_len: 96,
            data: cut_packet(),
            interface: interface.clone(),
        },
        Frame {
            time: Duration::new(1_700_000_001, 0),
            orig_len: 1500,
            data: cut_packet(),
            interface,
        },
    ];
    let format = reader.output_format();
    assert!(matches!(format, OutputFormat::Pcap(_)));
    let mut w = CaptureWriter::new(Vec::new(), format).unwrap();
    for f in &frames {
        w.write(f).unwrap();
    }
    let bytes = w.into_inner();
    let back: Vec<Frame> = CaptureReader::detect(bytes.as_slice())
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(back, frames);
}

/// A little-endian pcapng block: type, total length, body padded to 4 octets, length.
fn ng_block(kind: u32, body: &[u8]) -> Vec<u8> {
    let padded = body.len().div_ceil(4) * 4;
    let total = (12 + padded) as u32;
    let mut b = kind.to_le_bytes().to_vec();
    b.extend_from_slice(&total.to_le_bytes());
    b.extend_from_slice(body);
    b.resize(8 + padded, 0);
    b.extend_from_slice(&total.to_le_bytes());
    b
}

/// A pcapng file (written here from the pcapng draft, not by `pcap-file`): one
/// interface per link type of `links` (microsecond timestamps), then `frames`
/// (interface, seconds, data) as Enhanced Packet Blocks; the file and each packet
/// block's offset.
fn pcapng(links: &[u16], frames: &[(u32, u32, &[u8])]) -> (Vec<u8>, Vec<usize>) {
    let mut shb = vec![0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0];
    shb.extend_from_slice(&(-1i64).to_le_bytes());
    let mut f = ng_block(0x0a0d_0d0a, &shb);
    for link in links {
        let mut idb = link.to_le_bytes().to_vec();
        idb.extend_from_slice(&[0; 6]);
        f.extend(ng_block(1, &idb));
    }
    let mut offsets = Vec::new();
    for (interface, sec, data) in frames {
        let micros = u64::from(*sec) * 1_000_000;
        let mut epb = interface.to_le_bytes().to_vec();
        for v in [
            (micros >> 32) as u32,
            micros as u32,
            data.len() as u32,
            data.len() as u32,
        ] {
            epb.extend_from_slice(&v.to_le_bytes());
        }
        epb.extend_from_slice(data);
        offsets.push(f.len());
        f.extend(ng_block(6, &epb));
    }
    (f, offsets)
}

/// The frames of `file` up to the first error, and that error.
fn read_all(file: &[u8]) -> (Vec<Frame>, Option<CaptureError>) {
    let mut frames = Vec::new();
    for f in CaptureReader::detect(file).unwrap() {
        match f {
            Ok(f) => frames.push(f),
            Err(e) => return (frames, Some(e)),
        }
    }
    (frames, None)
}

#[test]
fn a_file_cut_inside_a_record_gives_the_complete_frames_then_its_offset() {
    let packet = cut_packet();
    // pcap: three records of 16 + 96 octets after the 24-octet file header.
    let mut pcap = pcap_header(65535);
    for sec in 0..3 {
        pcap.extend(record(1_700_000_000 + sec, &packet, 96));
    }
    let last = 24 + 2 * (16 + 96);
    let (ng, offsets) = pcapng(&[229], &[(0, 1, &packet), (0, 2, &packet), (0, 3, &packet)]);
    let ng_last = offsets[2];
    for (what, file, offset) in [
        ("pcap, in a record header", &pcap[..last + 10], last),
        ("pcap, in record data", &pcap[..pcap.len() - 1], last),
        ("pcapng, in a block header", &ng[..ng_last + 7], ng_last),
        ("pcapng, in block data", &ng[..ng.len() - 9], ng_last),
    ] {
        let (frames, error) = read_all(file);
        assert_eq!(frames.len(), 2, "{what}");
        assert!(frames.iter().all(|f| f.data == packet), "{what}");
        match error {
            Some(CaptureError::Truncated { offset: o }) => assert_eq!(o, offset as u64, "{what}"),
            other => panic!("{what}: {other:?}"),
        }
    }
    // Cut at a record boundary: a whole file of two frames.
    let (frames, error) = read_all(&pcap[..last]);
    assert_eq!((frames.len(), error.is_none()), (2, true));
    // Cut inside the file header: not a capture.
    assert!(matches!(
        CaptureReader::detect(&pcap[..20]),
        Err(CaptureError::HeaderCut)
    ));
}

#[test]
fn a_pcapng_of_several_link_types_is_read_and_written_per_interface() {
    let ip = cut_packet();
    let ether = [&[2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x86, 0xdd][..], &ip].concat();
    // Interface 0 Ethernet, 1 raw IP, 2 Ethernet without frames.
    let (file, _) = pcapng(&[1, 101, 1], &[(1, 1, &ip), (0, 2, &ether), (1, 3, &ip)]);
    let reader = CaptureReader::detect(file.as_slice()).unwrap();
    let format = reader.output_format();
    assert!(matches!(format, OutputFormat::PcapNg(_)));
    let frames: Vec<Frame> = reader.map(Result::unwrap).collect();
    let links: Vec<(u32, LinkType)> = frames
        .iter()
        .map(|f| (f.interface.id, f.interface.link_type()))
        .collect();
    assert_eq!(
        links,
        [
            (1, LinkType::Raw),
            (0, LinkType::Ethernet),
            (1, LinkType::Raw)
        ]
    );
    // Each frame is read with its own interface's link type.
    let ttp = Ttp::<K163>::setup().unwrap();
    let mut ttps = TtpDirectory::default();
    ttps.insert(1, *ttp.public());
    let r = Router::new(ttps, RouterConfig::default());
    for f in &frames {
        let v = r.check_frame(f.interface.link_type(), &f.data, f.unix_seconds());
        assert!(
            matches!(v, Verdict::Malformed(_)),
            "{v:?}: IPv6 found and read"
        );
    }
    // Written as pcapng, an interface per input interface in the order of their first
    // frames, read back with the same link types, times and octets.
    let mut w = CaptureWriter::new(Vec::new(), format).unwrap();
    for f in &frames {
        w.write(f).unwrap();
    }
    let bytes = w.into_inner();
    assert_eq!(bytes[..4], [0x0a, 0x0d, 0x0d, 0x0a]);
    let back: Vec<Frame> = CaptureReader::detect(bytes.as_slice())
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let summary = |fs: &[Frame]| -> Vec<(Duration, u32, Vec<u8>, u32)> {
        fs.iter()
            .map(|f| (f.time, f.orig_len, f.data.clone(), f.interface.link))
            .collect()
    };
    assert_eq!(summary(&back), summary(&frames));
    let ids: Vec<u32> = back.iter().map(|f| f.interface.id).collect();
    assert_eq!(ids, [0, 1, 0]);
}
