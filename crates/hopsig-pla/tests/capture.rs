//! Capture files: a frame the snapshot length cut short is read (not refused with the
//! whole file) and is `malformed` for a router; written frames read back unchanged.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use hopsig_koblitz::curve::K163;
use hopsig_pla::capture::{CaptureReader, CaptureWriter, Frame};
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
    assert_eq!(reader.link(), LinkType::Ipv6);
    let frame = reader.next_frame().unwrap().unwrap();
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
    let frames = [
        Frame {
            time: Duration::new(1_700_000_000, 123_000),
            orig_len: 96,
            data: cut_packet(),
        },
        Frame {
            time: Duration::new(1_700_000_001, 0),
            orig_len: 1500,
            data: cut_packet(),
        },
    ];
    let mut w = CaptureWriter::new(Vec::new(), reader.pcap_header()).unwrap();
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
