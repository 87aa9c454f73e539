//! The example BGPsec UPDATEs of RFC 8608 Appendix A.3 (IPv4) and A.4 (IPv6),
//! decoded to exactly the fields of the RFC's printout and re-encoded byte for byte.
//!
//! The RFC prints the BGPsec_PATH attribute with type code 30 ("Type Code: BGPSEC Path
//! Attribute (30)", octets `90 1E`), the value its authors' implementation used before
//! IANA assigned 33 (/work/notes/bgpsec-ref-README.md, C1). The tests use the bytes as
//! printed with **that one octet changed from 0x1E to 0x21**; the bytes as printed are
//! checked too: type 30 is then an unknown optional attribute, and the UPDATE lacks
//! both AS_PATH and BGPsec_PATH.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::Path;

use hopsig_bgp::packet::{
    Action, AsWidth, AttrFlags, AttrType, AttributeValue, Message, NextHop, Origin, Safi,
    SecurePathFlags, SecurePathSegment, Update, UpdateErrorKind,
};

/// RFC 8608 Appendix A.3, "Binary Form of BGPsec UPDATE (TCP-DUMP)", as printed.
const A3: &str = "
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
const A4: &str = "
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

// The printout's fields (A.3 "Signature Segment" lines; the same keys sign in A.4).
const SKI_65536: &str = "47F23BF1AB2F8A9D26864EBBD8DF2711C74406EC";
const SKI_64496: &str = "AB4D910F55CAE71A215EF3CAFE3ACC45B5EEC154";
const A3_SIG_65536: &str = "3046022100EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF371602210090F2C129ABB2F39B6A07963BD555A87AB2B7333B7B91F1668FD8618C83FAC3F1";
const A3_SIG_64496: &str = "3046022100EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF37160221008E21F60E44C6066C8B8A95A3C09D3AD4379585A2D728EEAD07A17ED7AA055ECA";
const A4_SIG_65536: &str = "3046022100EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716022100D1B94F6251046D2136A105B0F4727CC5BCD674D97D28E61B8F43BDDE91C30626";
const A4_SIG_64496: &str = "3046022100EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716022100E2A02C68FE53CB96934C781F5A14A2971979200C9156EDF855058E8053F4ACD3";

fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(u8::is_ascii_hexdigit).collect();
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

/// The printed bytes with the BGPsec_PATH type code 30 (`90 1E`) changed to 33.
fn with_type_33(printed: &[u8]) -> Vec<u8> {
    let at = printed.windows(2).position(|w| w == [0x90, 0x1e]).unwrap();
    let mut v = printed.to_vec();
    v[at + 1] = 33;
    assert_eq!(printed.windows(2).filter(|w| *w == [0x90, 0x1e]).count(), 1);
    v
}

fn update(bytes: &[u8]) -> Update<'_> {
    match Message::decode(bytes, AsWidth::Four).unwrap() {
        Message::Update(u) => u,
        other => panic!("not an UPDATE: {other:?}"),
    }
}

/// The fields both examples share: ORIGIN, MED, and the BGPsec_PATH printout.
fn check_common(u: &Update<'_>, sig_65536: &str, sig_64496: &str) {
    assert!(u.withdrawn.is_empty() && u.nlri.is_empty());
    let a = &u.attributes;
    assert_eq!(a.len(), 4);
    // +--ORIGIN: INCOMPLETE, Flags: 0x40 (Well-Known, Transitive, Complete)
    assert_eq!(a[0].flags(), AttrFlags(0x40));
    assert_eq!(u.origin(), Some(Origin::Incomplete));
    // +--MULTI_EXIT_DISC, Flags: 0x80, Length: 4 bytes, data: 00 00 00 00
    assert_eq!(a[1].flags(), AttrFlags(0x80));
    assert!(
        matches!(a[1].value(), AttributeValue::Other { type_code: 4, value } if value[..] == [0, 0, 0, 0])
    );
    // +--MP_REACH_NLRI, Flags: 0x80 (Optional, Non-transitive, Complete)
    assert_eq!(a[2].flags(), AttrFlags(0x80));
    // +--Subnetwork points of attachment: 0 (RFC 4760's Reserved octet)
    assert_eq!(u.mp_reach().unwrap().reserved(), 0);
    assert_eq!(u.mp_reach().unwrap().safi(), Safi::Unicast);
    // +--BGPSEC Path Attribute, Flags: 0x90 (Optional, Complete, Extended Length),
    //    Type Code 30 in the RFC, 33 here; Length: 205 bytes
    assert_eq!(a[3].flags(), AttrFlags(0x90));
    assert_eq!(a[3].type_code(), u8::from(AttrType::BgpsecPath));
    assert!(u.as_path().is_none());
    let p = u.bgpsec_path().unwrap();
    // +--Secure Path (14 bytes): (pCount 1, Flags 0, AS 65536), (pCount 1, Flags 0, AS 64496)
    assert_eq!(
        p.secure_path(),
        [
            SecurePathSegment {
                pcount: 1,
                flags: SecurePathFlags(0),
                asn: 65_536
            },
            SecurePathSegment {
                pcount: 1,
                flags: SecurePathFlags(0),
                asn: 64_496
            },
        ]
    );
    // +--Signature Block (191 bytes), Algo ID: 1, two Signature Segments of 94 bytes
    let blocks = p.signature_blocks();
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].suite, 1);
    let segs = &blocks[0].segments;
    assert_eq!(segs.len(), 2);
    assert_eq!(segs[0].ski.to_vec(), hex(SKI_65536));
    assert_eq!(segs[0].signature.len(), 72);
    assert_eq!(segs[0].signature.to_vec(), hex(sig_65536));
    assert_eq!(segs[1].ski.to_vec(), hex(SKI_64496));
    assert_eq!(segs[1].signature.to_vec(), hex(sig_64496));
    assert!(segs.iter().all(|s| s.encoded_len() == 94));
}

#[test]
fn a3_ipv4_update_decodes_to_the_printed_fields() {
    let printed = hex(A3);
    // +--length: 259
    assert_eq!(printed.len(), 259);
    let bytes = with_type_33(&printed);
    let u = update(&bytes);
    check_common(&u, A3_SIG_65536, A3_SIG_64496);
    // +--total_path_attr_length: 236 (the message minus header, two length fields)
    assert_eq!(bytes.len() - 19 - 4, 236);
    let m = u.mp_reach().unwrap();
    // Address family: IPv4 (1); Next hop: 198.51.100.100; NLRI 192.0.2.0/24
    assert_eq!(m.next_hop(), NextHop::V4(Ipv4Addr::new(198, 51, 100, 100)));
    assert_eq!(
        m.nlri().iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["192.0.2.0/24"]
    );
    assert_eq!(u.announced().count(), 1);
    assert_eq!(Message::Update(u).encoding(AsWidth::Four).unwrap(), bytes);
}

#[test]
fn a4_ipv6_update_decodes_to_the_printed_fields() {
    let printed = hex(A4);
    // +--length: 272
    assert_eq!(printed.len(), 272);
    let bytes = with_type_33(&printed);
    let u = update(&bytes);
    check_common(&u, A4_SIG_65536, A4_SIG_64496);
    assert_eq!(bytes.len() - 19 - 4, 249);
    let m = u.mp_reach().unwrap();
    // Address family: IPv6 (2); Next hop: fd00:0000:...:c633:6464; NLRI 2001:db8::/32
    let nh: Ipv6Addr = "fd00::c633:6464".parse().unwrap();
    assert_eq!(m.next_hop(), NextHop::V6(nh));
    assert_eq!(m.next_hop().addr(), IpAddr::V6(nh));
    assert_eq!(
        m.nlri().iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["2001:db8::/32"]
    );
    assert_eq!(Message::Update(u).encoding(AsWidth::Four).unwrap(), bytes);
}

#[test]
fn the_examples_as_printed_carry_no_path_hopsig_recognises() {
    // docs/spec/bgpsec.md, C1: with code 30, the attribute is an unknown optional
    // non-transitive one, kept as received; the UPDATE announces a route without
    // AS_PATH or BGPsec_PATH, so it is treat-as-withdraw (RFC 7606 §3 d).
    for printed in [hex(A3), hex(A4)] {
        let Err(e) = Message::decode(&printed, AsWidth::Four) else {
            panic!("decoded");
        };
        assert_eq!(e.action(), Action::TreatAsWithdraw);
        assert!(e.notification().is_none());
        let hopsig_bgp::packet::MessageError::Update(e) = e else {
            panic!("{e}")
        };
        assert_eq!(e.kind(), &UpdateErrorKind::Missing(AttrType::AsPath));
        let salvage = e.salvage().unwrap();
        assert!(matches!(
            salvage.attributes[3].value(),
            AttributeValue::Other { type_code: 30, .. }
        ));
        assert_eq!(salvage.announced().count(), 1, "the route to withdraw");
    }
}

#[test]
fn the_embedded_bytes_are_those_of_the_rfc_text() {
    // Cross-check against ../shared/rfc/rfc8608.txt where it is present (it is in the
    // workspace's shared folder, not in the repository).
    let rfc = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/rfc/rfc8608.txt");
    let Ok(text) = std::fs::read_to_string(&rfc) else {
        eprintln!("skipped: {} not found", rfc.display());
        return;
    };
    for (section, embedded) in [("A.3.  BGPsec IPv4", A3), ("A.4.  BGPsec IPv6", A4)] {
        let start = text.find(&format!("\n{section}")).unwrap();
        let dump: String = text[start..]
            .lines()
            .skip_while(|l| !l.contains("Binary Form"))
            .skip(1)
            .skip_while(|l| l.trim().is_empty())
            .take_while(|l| !l.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(hex(&dump), hex(embedded), "{section}");
    }
}
