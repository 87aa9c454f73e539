//! What several test files share: the RFC 8608 Appendix A examples, the BGP messages
//! of the RIS MRT files, and the decoder checks.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod checks;

use std::io::Read;
use std::path::{Path, PathBuf};

use hopsig_bgp::packet::AsWidth;

/// RFC 8608 Appendix A.3, "Binary Form of BGPsec UPDATE (TCP-DUMP)", as printed.
pub const A3: &str = "
   FF FF FF FF FF FF FF FF  FF FF FF FF FF FF FF FF
   01 03 02 00 00 00 EC 40  01 01 02 80 04 04 00 00
   00 00 80 0E 0D 00 01 01  04 C6 33 64 64 00 18 C0
   00 02 90 1E 00 CD 00 0E  01 00 00 01 00 00 01 00
   00 00 FB F0 00 BF 01 47  F2 3B F1 AB 2F 8A 9D 26
   86 4E BB D8 DF 27 11 C7  44 06 EC 00 48 30 46 02
   21 00 EF D4 8B 2A AC B6  A8 FD 11 40 DD 9C D4 5E
   81 D6 9D 2C 87 7B 56 AA  F9 91 C3 4D 0E A8 4E AF
   37 16 02 21 00 90 F2 C1  29 AB B2 F3 9B 6A 07 96
   3B D5 55 A8 7A B2 B7 33  3B 7B 91 F1 66 8F D8 61
   8C 83 FA C3 F1 AB 4D 91  0F 55 CA E7 1A 21 5E F3
   CA FE 3A CC 45 B5 EE C1  54 00 48 30 46 02 21 00
   EF D4 8B 2A AC B6 A8 FD  11 40 DD 9C D4 5E 81 D6
   9D 2C 87 7B 56 AA F9 91  C3 4D 0E A8 4E AF 37 16
   02 21 00 8E 21 F6 0E 44  C6 06 6C 8B 8A 95 A3 C0
   9D 3A D4 37 95 85 A2 D7  28 EE AD 07 A1 7E D7 AA
   05 5E CA";

/// RFC 8608 Appendix A.4, "Binary Form of BGP/BGPsec UPDATE (TCP-DUMP)", as printed.
pub const A4: &str = "
   FF FF FF FF FF FF FF FF  FF FF FF FF FF FF FF FF
   01 10 02 00 00 00 F9 40  01 01 02 80 04 04 00 00
   00 00 80 0E 1A 00 02 01  10 FD 00 00 00 00 00 00
   00 00 00 00 00 C6 33 64  64 00 20 20 01 0D B8 90
   1E 00 CD 00 0E 01 00 00  01 00 00 01 00 00 00 FB
   F0 00 BF 01 47 F2 3B F1  AB 2F 8A 9D 26 86 4E BB
   D8 DF 27 11 C7 44 06 EC  00 48 30 46 02 21 00 EF
   D4 8B 2A AC B6 A8 FD 11  40 DD 9C D4 5E 81 D6 9D
   2C 87 7B 56 AA F9 91 C3  4D 0E A8 4E AF 37 16 02
   21 00 D1 B9 4F 62 51 04  6D 21 36 A1 05 B0 F4 72
   7C C5 BC D6 74 D9 7D 28  E6 1B 8F 43 BD DE 91 C3
   06 26 AB 4D 91 0F 55 CA  E7 1A 21 5E F3 CA FE 3A
   CC 45 B5 EE C1 54 00 48  30 46 02 21 00 EF D4 8B
   2A AC B6 A8 FD 11 40 DD  9C D4 5E 81 D6 9D 2C 87
   7B 56 AA F9 91 C3 4D 0E  A8 4E AF 37 16 02 21 00
   E2 A0 2C 68 FE 53 CB 96  93 4C 78 1F 5A 14 A2 97
   19 79 20 0C 91 56 ED F8  55 05 8E 80 53 F4 AC D3";

/// Octets from hex digits, ignoring everything else.
pub fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(u8::is_ascii_hexdigit).collect();
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

/// The printed bytes with the BGPsec_PATH type code 30 (`90 1E`) changed to 33.
pub fn with_type_33(printed: &[u8]) -> Vec<u8> {
    assert_eq!(printed.windows(2).filter(|w| *w == [0x90, 0x1e]).count(), 1);
    let at = printed.windows(2).position(|w| w == [0x90, 0x1e]).unwrap();
    let mut v = printed.to_vec();
    v[at + 1] = 33;
    v
}

/// A file of ../shared/data/mrt.
pub fn mrt_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/mrt")
        .join(name)
}

/// The RIS update files.
pub const RIS_UPDATES: [&str; 3] = [
    "ris-updates.20160811.1600.gz",
    "ris-updates.20100722.2015.gz",
    "ris-updates.20070211.0141.gz",
];

/// The BGP messages of an MRT file with the AS width of their record, read directly
/// (RFC 6396 §2 common header, §4.4 BGP4MP): `BGP4MP_MESSAGE` and
/// `BGP4MP_MESSAGE_LOCAL` carry 2-octet AS numbers, `BGP4MP_MESSAGE_AS4` and
/// `BGP4MP_MESSAGE_AS4_LOCAL` 4-octet ones; `BGP4MP_ET` records have a microsecond
/// field first (§3).
pub fn bgp4mp_messages(name: &str) -> Vec<(AsWidth, Vec<u8>)> {
    let mut raw = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(mrt_file(name)).unwrap())
        .read_to_end(&mut raw)
        .unwrap();
    let mut out = Vec::new();
    let mut rest = &raw[..];
    while rest.len() >= 12 {
        let mrt_type = u16::from_be_bytes([rest[4], rest[5]]);
        let subtype = u16::from_be_bytes([rest[6], rest[7]]);
        let len = u32::from_be_bytes([rest[8], rest[9], rest[10], rest[11]]) as usize;
        let mut body = &rest[12..12 + len];
        rest = &rest[12 + len..];
        match mrt_type {
            16 => {}
            17 => body = &body[4..],
            _ => continue,
        }
        let width = match subtype {
            1 | 6 => AsWidth::Two,
            4 | 7 => AsWidth::Four,
            _ => continue, // state changes
        };
        let as_len = width.octets();
        let afi = u16::from_be_bytes([body[2 * as_len + 2], body[2 * as_len + 3]]);
        let ip_len = if afi == 1 { 4 } else { 16 };
        out.push((width, body[2 * as_len + 4 + 2 * ip_len..].to_vec()));
    }
    assert!(
        rest.is_empty(),
        "{name}: {} octets after the last record",
        rest.len()
    );
    out
}
