//! The example BGPsec UPDATEs of RFC 8608 Appendix A.3 (IPv4) and A.4 (IPv6),
//! decoded to exactly the fields of the RFC's printout and re-encoded byte for byte.
//!
//! The RFC prints the BGPsec_PATH attribute with type code 30 ("Type Code: BGPSEC Path
//! Attribute (30)", octets `90 1E`), a value IANA deprecated (RFC 8093), not the 33 it
//! assigned to BGPsec_PATH (docs/spec/bgpsec.md, C1). The tests use the bytes as
//! printed with **that one octet changed from 0x1E to 0x21**; the bytes as printed are
//! checked too: type 30 is then an unknown optional attribute, and the UPDATE lacks
//! both AS_PATH and BGPsec_PATH.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::Path;

use common::{hex, with_type_33, A3, A4};
use hopsig_bgp::packet::{
    Action, AsWidth, AttrFlags, AttrType, AttributeValue, Message, NextHop, Origin, Safi,
    SecurePathFlags, SecurePathSegment, Update, UpdateErrorKind,
};

// The printout's fields (A.3 "Signature Segment" lines; the same keys sign in A.4).
const SKI_65536: &str = "47F23BF1AB2F8A9D26864EBBD8DF2711C74406EC";
const SKI_64496: &str = "AB4D910F55CAE71A215EF3CAFE3ACC45B5EEC154";
const A3_SIG_65536: &str = "3046022100EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF371602210090F2C129ABB2F39B6A07963BD555A87AB2B7333B7B91F1668FD8618C83FAC3F1";
const A3_SIG_64496: &str = "3046022100EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF37160221008E21F60E44C6066C8B8A95A3C09D3AD4379585A2D728EEAD07A17ED7AA055ECA";
const A4_SIG_65536: &str = "3046022100EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716022100D1B94F6251046D2136A105B0F4727CC5BCD674D97D28E61B8F43BDDE91C30626";
const A4_SIG_64496: &str = "3046022100EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716022100E2A02C68FE53CB96934C781F5A14A2971979200C9156EDF855058E8053F4ACD3";

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
