//! The per-hop check on IPv6 packets (docs/spec/pla.md, "PLA in IPv6 packets"): a
//! signed packet is accepted on every curve and layout, and each failure of issue
//! #15 §3 is rejected with its reason.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::Ipv6Addr;

use etherparse::PacketBuilder;
use hopsig_koblitz::curve::{Curve, K163, K233, K283};
use hopsig_pla::option::{Ipv6Packet, Malformed, Unsignable, OPTION_TYPE};
use hopsig_pla::{NotSigned, Router, RouterConfig, Sender, TtpDirectory, Verdict};
use hopsig_schemes::pla::icnr::Ttp;

const NOW: u32 = 1_700_000_000;
const TTP_ID: u16 = 7;

fn addr(s: &str) -> [u8; 16] {
    s.parse::<Ipv6Addr>().unwrap().octets()
}

/// A UDP packet from `src` with `payload`.
fn udp(src: &str, payload: &[u8]) -> Vec<u8> {
    let b = PacketBuilder::ipv6(addr(src), addr("2001:db8::99"), 64).udp(4000, 53);
    let mut out = Vec::with_capacity(b.size(payload.len()));
    b.write(&mut out, payload).unwrap();
    out
}

/// A TCP packet from `src`.
fn tcp(src: &str, payload: &[u8]) -> Vec<u8> {
    let b = PacketBuilder::ipv6(addr(src), addr("2001:db8::99"), 64).tcp(40000, 80, 1, 1024);
    let mut out = Vec::with_capacity(b.size(payload.len()));
    b.write(&mut out, payload).unwrap();
    out
}

fn implicit_host<C: Curve>(ttp: &Ttp<C>, src: &str) -> Sender<C> {
    Sender::enroll_implicit(ttp, src.parse().unwrap(), TTP_ID).unwrap()
}

fn certified_host<C: Curve>(ttp: &Ttp<C>) -> Sender<C> {
    Sender::enroll_certified(ttp, TTP_ID).unwrap()
}

fn router<C: Curve>(ttp: &Ttp<C>) -> Router<C> {
    let mut ttps = TtpDirectory::default();
    ttps.insert(TTP_ID, *ttp.public());
    Router::new(ttps, RouterConfig::default())
}

fn sign<C: Curve>(host: &mut Sender<C>, packet: &[u8], at: u32) -> Vec<u8> {
    host.sign(&Ipv6Packet::parse(packet).unwrap(), at).unwrap()
}

fn accepts_both_layouts<C: Curve>() {
    let ttp = Ttp::<C>::setup().unwrap();
    let r = router(&ttp);
    // Two hosts: sequence numbers are per (TTP, source address).
    let mut hosts = [
        (implicit_host(&ttp, "2001:db8::1"), "2001:db8::1"),
        (certified_host(&ttp), "2001:db8::2"),
    ];
    for (host, src) in &mut hosts {
        for packet in [udp(src, b"hello"), tcp(src, &[7; 1200])] {
            let signed = sign(host, &packet, NOW);
            assert_eq!(r.check(&signed, NOW), Verdict::Accepted, "{}", C::NAME);
        }
    }
}

#[test]
fn every_curve_and_layout_is_accepted() {
    accepts_both_layouts::<K163>();
    accepts_both_layouts::<K233>();
    accepts_both_layouts::<K283>();
}

/// A K-163 TTP, a router, an implicit host at 2001:db8::1 and one signed UDP packet.
struct Setup {
    ttp: Ttp<K163>,
    router: Router<K163>,
    host: Sender<K163>,
    signed: Vec<u8>,
}

fn setup() -> Setup {
    let ttp = Ttp::<K163>::setup().unwrap();
    let router = router(&ttp);
    let mut host = implicit_host(&ttp, "2001:db8::1");
    let signed = sign(&mut host, &udp("2001:db8::1", b"payload"), NOW);
    Setup {
        ttp,
        router,
        host,
        signed,
    }
}

/// Where the PLA header sits in a packet this crate signed (a new Hop-by-Hop header:
/// the option at offset 2, its data at 4).
const PLA: usize = 40 + 4;

#[test]
fn the_option_is_the_first_of_a_new_hop_by_hop_header() {
    let s = setup();
    assert_eq!(s.signed[6], 0, "IPv6 Next Header is Hop-by-Hop");
    assert_eq!(
        s.signed[40], 17,
        "the Hop-by-Hop header's Next Header is UDP"
    );
    assert_eq!(s.signed[42], OPTION_TYPE);
    assert_eq!(usize::from(s.signed[43]), 77, "K-163 implicit header");
    let hbh = 8 * (usize::from(s.signed[41]) + 1);
    assert_eq!(hbh % 8, 0);
    let plen = usize::from(u16::from_be_bytes([s.signed[4], s.signed[5]]));
    assert_eq!(plen, s.signed.len() - 40);
    // The upper layer is unchanged, checksum included.
    let original = udp("2001:db8::1", b"payload");
    assert_eq!(&s.signed[40 + hbh..], &original[40..]);
}

#[test]
fn tampering_with_the_payload_source_or_a_header_field_fails_the_signature() {
    let s = setup();
    let last = s.signed.len() - 1;
    let mut payload = s.signed.clone();
    payload[last] ^= 1;
    let mut source = s.signed.clone();
    source[23] ^= 1;
    let mut destination = s.signed.clone();
    destination[39] ^= 1;
    let mut sequence = s.signed.clone();
    sequence[PLA + 8] ^= 1;
    let mut next_header = s.signed.clone();
    next_header[40] = 6;
    for (what, p) in [
        ("payload", payload),
        ("source", source),
        ("destination", destination),
        ("sequence number", sequence),
        ("next header", next_header),
    ] {
        let r = router(&s.ttp);
        assert_eq!(r.check(&p, NOW), Verdict::BadSignature, "{what}");
    }
    // Hop Limit, Traffic Class and Flow Label are not covered: routers change them.
    let mut hop_limit = s.signed.clone();
    hop_limit[7] -= 1;
    hop_limit[1] |= 0x0f;
    assert_eq!(s.router.check(&hop_limit, NOW), Verdict::Accepted);
}

#[test]
fn a_header_moved_to_another_packet_fails() {
    let mut s = setup();
    let other = sign(&mut s.host, &udp("2001:db8::1", b"another"), NOW);
    // The first packet's PLA header on the second packet (same layout, same length).
    let mut moved = other.clone();
    moved[PLA..PLA + 77].copy_from_slice(&s.signed[PLA..PLA + 77]);
    assert_eq!(s.router.check(&moved, NOW), Verdict::BadSignature);
    assert_eq!(s.router.check(&other, NOW), Verdict::Accepted);
}

#[test]
fn a_replayed_sequence_number_is_rejected() {
    let mut s = setup();
    assert_eq!(s.router.check(&s.signed, NOW), Verdict::Accepted);
    assert_eq!(s.router.check(&s.signed, NOW), Verdict::Replay);
    // Later packets still pass, and an older one in the window that was not seen too.
    let p2 = sign(&mut s.host, &udp("2001:db8::1", b"2"), NOW);
    let p3 = sign(&mut s.host, &udp("2001:db8::1", b"3"), NOW);
    assert_eq!(s.router.check(&p3, NOW), Verdict::Accepted);
    assert_eq!(s.router.check(&p2, NOW), Verdict::Accepted);
    assert_eq!(s.router.check(&p2, NOW), Verdict::Replay);
}

#[test]
fn stale_and_future_timestamps_are_rejected() {
    let mut s = setup();
    let max_age = RouterConfig::default().max_age;
    let skew = RouterConfig::default().skew;
    let old = sign(&mut s.host, &udp("2001:db8::1", b"old"), NOW - max_age - 1);
    let edge = sign(&mut s.host, &udp("2001:db8::1", b"edge"), NOW - max_age);
    let future = sign(&mut s.host, &udp("2001:db8::1", b"f"), NOW + skew + 1);
    let ahead = sign(&mut s.host, &udp("2001:db8::1", b"a"), NOW + skew);
    assert_eq!(s.router.check(&old, NOW), Verdict::Stale);
    assert_eq!(s.router.check(&edge, NOW), Verdict::Accepted);
    assert_eq!(s.router.check(&future, NOW), Verdict::Future);
    assert_eq!(s.router.check(&ahead, NOW), Verdict::Accepted);
    // The clock never goes back: a packet fresh at an earlier time is stale now.
    let r = router(&s.ttp);
    r.advance(NOW + 1000);
    assert_eq!(r.check(&s.signed, NOW), Verdict::Stale);
}

#[test]
fn an_unknown_ttp_is_rejected() {
    let s = setup();
    let other = Ttp::<K163>::setup().unwrap();
    let mut ttps = TtpDirectory::default();
    ttps.insert(TTP_ID + 1, *other.public());
    let r = Router::new(ttps, RouterConfig::default());
    assert_eq!(r.check(&s.signed, NOW), Verdict::UnknownTtp);
    // The right id with another TTP's key: the certificate does not extract.
    let r = router(&other);
    assert_eq!(r.check(&s.signed, NOW), Verdict::BadSignature);
    // A router for another curve.
    let r = router(&Ttp::<K233>::setup().unwrap());
    assert_eq!(r.check(&s.signed, NOW), Verdict::OtherCurve);
}

fn malformed(r: &Router<K163>, p: &[u8], what: &str) {
    let v = r.check(p, NOW);
    assert!(
        matches!(v, Verdict::Malformed(_) | Verdict::MalformedHeader(_)),
        "{what}: {v:?}"
    );
}

#[test]
fn truncated_headers_and_lying_length_fields_are_malformed() {
    let s = setup();
    let r = &s.router;
    // The packet cut anywhere: Payload Length then runs past the end.
    for cut in [1, 20, 39, 41, 50, PLA + 40, s.signed.len() - 1] {
        malformed(r, &s.signed[..cut], &format!("cut at {cut}"));
    }
    // Payload Length larger than the packet.
    let mut plen = s.signed.clone();
    plen[5] = plen[5].wrapping_add(8);
    malformed(r, &plen, "Payload Length");
    // Hdr Ext Len past the packet.
    let mut ext = s.signed.clone();
    ext[41] = 200;
    malformed(r, &ext, "Hdr Ext Len");
    // The option's length shorter than the header (the rest read as padding would not
    // parse) and longer than the Hop-by-Hop header.
    let mut short = s.signed.clone();
    short[43] = 60;
    malformed(r, &short, "Opt Data Len short");
    let mut long = s.signed.clone();
    long[43] = 250;
    malformed(r, &long, "Opt Data Len long");
    // A PLA header field out of range: version, curve, layout, b_A.
    for (at, value) in [(PLA, 9u8), (PLA + 1, 9), (PLA + 2, 9), (PLA + 13 + 21, 2)] {
        let mut p = s.signed.clone();
        p[at] = value;
        malformed(r, &p, &format!("header octet {at}"));
    }
    // Nothing was accepted, so nothing entered the replay table.
    assert_eq!(r.replay_entries(), 0);
}

#[test]
fn a_second_pla_option_is_malformed() {
    let s = setup();
    // Rewrite the trailing PadN of the Hop-by-Hop header as a second, empty PLA option.
    let hbh_end = 40 + 8 * (usize::from(s.signed[41]) + 1);
    let pad_at = PLA + 77;
    assert!(hbh_end - pad_at >= 2, "room for a PadN");
    let mut p = s.signed.clone();
    p[pad_at] = OPTION_TYPE;
    p[pad_at + 1] = (hbh_end - pad_at - 2) as u8;
    malformed(&s.router, &p, "two PLA options");
}

#[test]
fn an_existing_hop_by_hop_header_keeps_its_options() {
    let s = setup();
    let mut host = implicit_host(&s.ttp, "2001:db8::1");
    // An MLD-like packet: Hop-by-Hop with Router Alert (type 5, value 0) and PadN.
    let inner = udp("2001:db8::1", b"mld");
    let mut p = inner[..40].to_vec();
    p[6] = 0;
    p.extend_from_slice(&[17, 0, 5, 2, 0, 0, 1, 0]);
    p.extend_from_slice(&inner[40..]);
    let plen = (p.len() - 40) as u16;
    p[4..6].copy_from_slice(&plen.to_be_bytes());
    let signed = sign(&mut host, &p, NOW);
    // Router Alert kept; its trailing PadN dropped; the PLA option right after it
    // (offset 6 ≡ 2 mod 4), then fresh padding.
    assert_eq!(
        &signed[40..48],
        &[17, signed[41], 5, 2, 0, 0, OPTION_TYPE, 77][..]
    );
    let parsed = Ipv6Packet::parse(&signed).unwrap();
    let header = parsed.pla_header().unwrap();
    let offset = header.as_ptr() as usize - signed.as_ptr() as usize - 40;
    assert_eq!((offset - 2) % 4, 2, "option at 4n+2");
    // No run of padding longer than 7 octets (RFC 4942 §2.1.9.5).
    let hbh_end = 40 + 8 * (usize::from(signed[41]) + 1);
    assert!(hbh_end - (40 + offset + 77) <= 7);
    assert_eq!(s.router.check(&signed, NOW), Verdict::Accepted);
}

#[test]
fn packets_a_sender_must_not_sign_are_refused() {
    let mut s = setup();
    // Already signed.
    assert!(s
        .host
        .sign(&Ipv6Packet::parse(&s.signed).unwrap(), NOW)
        .is_err());
    // From another source than the certificate's.
    let p = udp("2001:db8::2", b"x");
    assert!(s.host.sign(&Ipv6Packet::parse(&p).unwrap(), NOW).is_err());
    // A Routing header (type 43, Segments Left 1).
    let inner = udp("2001:db8::1", b"r");
    let mut p = inner[..40].to_vec();
    p[6] = 43;
    p.extend_from_slice(&[17, 2, 0, 1, 0, 0, 0, 0]);
    p.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5]);
    p.extend_from_slice(&inner[40..]);
    let plen = (p.len() - 40) as u16;
    p[4..6].copy_from_slice(&plen.to_be_bytes());
    assert!(s.host.sign(&Ipv6Packet::parse(&p).unwrap(), NOW).is_err());
}

#[test]
fn a_flood_of_random_headers_is_rejected_without_state() {
    let s = setup();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for i in 0..20_000u32 {
        let mut p = s.signed.clone();
        // Random PLA header contents, keeping version, curve and layout half the time
        // so that most reach the later checks; the TTP id kept a quarter of the time.
        let start = if i % 2 == 0 { PLA + 3 } else { PLA };
        for b in &mut p[start..PLA + 77] {
            *b = next() as u8;
        }
        if i % 4 == 0 {
            p[PLA + 3..PLA + 5].copy_from_slice(&TTP_ID.to_be_bytes());
            p[PLA + 9..PLA + 13].copy_from_slice(&NOW.to_be_bytes());
        }
        let v = s.router.check(&p, NOW);
        assert!(v.is_rejected(), "{v:?}");
    }
    assert_eq!(
        s.router.replay_entries(),
        0,
        "a forgery created replay state"
    );
}

#[test]
fn the_replay_table_stays_bounded_under_many_sources() {
    let ttp = Ttp::<K163>::setup().unwrap();
    let mut ttps = TtpDirectory::default();
    ttps.insert(TTP_ID, *ttp.public());
    let config = RouterConfig {
        max_sources: 8,
        ..RouterConfig::default()
    };
    let r = Router::new(ttps, config);
    let mut first = None;
    for i in 0..40u32 {
        let mut host = certified_host(&ttp);
        let src = format!("2001:db8::{:x}", i + 1);
        let p = sign(&mut host, &udp(&src, b"x"), NOW + i);
        assert_eq!(r.check(&p, NOW + i), Verdict::Accepted, "{src}");
        assert!(r.replay_entries() <= 8);
        first.get_or_insert(p);
    }
    // The first source's entry was dropped long ago; its packet replayed is still
    // refused (its timestamp is below the floor).
    let first = first.unwrap();
    assert_eq!(r.check(&first, NOW + 40), Verdict::Replay);
}

proptest::proptest! {
    /// Arbitrary octets, and a signed packet with arbitrary octets written over it, never
    /// panic the parser or the router, and are never accepted.
    #[test]
    fn arbitrary_input_never_panics(
        bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
        at in 0usize..200,
    ) {
        let s = setup();
        let _ = Ipv6Packet::parse(&bytes);
        proptest::prop_assert!(s.router.check(&bytes, NOW) != Verdict::Accepted);
        // Overwritten in place (octets appended after Payload Length are link-layer
        // padding, not part of the packet).
        let mut spliced = s.signed.clone();
        for (b, new) in spliced.iter_mut().skip(at).zip(&bytes) {
            *b = *new;
        }
        // Octets the signature does not cover: Version / Traffic Class / Flow Label,
        // Hop Limit, and the Hop-by-Hop header's padding after the PLA option (any
        // well-formed rewrite of them is still accepted, as routers may change them).
        let pad = PLA + 77..40 + 8 * (usize::from(s.signed[41]) + 1);
        let uncovered = |i: usize| i < 4 || i == 7 || pad.contains(&i);
        let covered_change = (0..spliced.len()).any(|i| spliced[i] != s.signed[i] && !uncovered(i));
        if covered_change {
            let v = s.router.check(&spliced, NOW);
            proptest::prop_assert!(v != Verdict::Accepted, "{:?}", v);
        }
    }
}

#[test]
fn a_certified_host_cannot_move_another_hosts_window() {
    let ttp = Ttp::<K163>::setup().unwrap();
    let r = router(&ttp);
    let mut victim = certified_host(&ttp);
    let mut attacker = certified_host(&ttp).with_first_sequence(u32::MAX - 1);
    // The attacker signs, with its own certified key, a packet from the victim's
    // address with a huge sequence number: accepted (a certificate is not bound to an
    // address), but in a window of the attacker's key.
    let forged = sign(&mut attacker, &udp("2001:db8::7", b"x"), NOW);
    assert_eq!(r.check(&forged, NOW), Verdict::Accepted);
    let genuine = sign(&mut victim, &udp("2001:db8::7", b"y"), NOW);
    assert_eq!(r.check(&genuine, NOW), Verdict::Accepted);
}

#[test]
fn a_later_fragment_is_not_read_as_headers() {
    // A non-first fragment whose Fragment header names AH (51): its data is the middle
    // of the payload, not an Authentication header.
    let s = setup();
    let mut host = implicit_host(&s.ttp, "2001:db8::1");
    let mut p = udp("2001:db8::1", b"")[..40].to_vec();
    p[6] = 44;
    p.extend_from_slice(&[51, 0, 0x02, 0x58, 0, 0, 0, 9]);
    p.extend_from_slice(&[0u8; 64]);
    let plen = (p.len() - 40) as u16;
    p[4..6].copy_from_slice(&plen.to_be_bytes());
    let signed = sign(&mut host, &p, NOW);
    assert_eq!(s.router.check(&signed, NOW), Verdict::Accepted);
}

/// `hbh_options` (Pad1 / PadN included, to fill 6 + 8k octets) in a Hop-by-Hop header
/// after a UDP packet's fixed header, Payload Length `plen`, the UDP header and data
/// making `total` octets after the fixed header.
fn with_hop_by_hop(plen: u16, hbh_options: &[u8], total: usize) -> Vec<u8> {
    let udp = udp("2001:db8::1", b"jumbo");
    assert_eq!((2 + hbh_options.len()) % 8, 0);
    let mut p = udp[..40].to_vec();
    p[4..6].copy_from_slice(&plen.to_be_bytes());
    p[6] = 0;
    p.extend_from_slice(&[17, ((2 + hbh_options.len()) / 8 - 1) as u8]);
    p.extend_from_slice(hbh_options);
    p.extend_from_slice(&udp[40..]);
    p.resize(40 + total, 0);
    p
}

/// A Jumbo Payload option (RFC 2675 §2) of `length`: 6 octets, at offset 2 (4n + 2)
/// the whole of an 8-octet Hop-by-Hop header.
fn jumbo_option(length: u32) -> Vec<u8> {
    let mut o = vec![0xc2, 4];
    o.extend_from_slice(&length.to_be_bytes());
    o
}

#[test]
fn a_jumbogram_is_not_checked_and_not_signed_rather_than_malformed() {
    let mut s = setup();
    // RFC 2675 §3: Payload Length 0, the Jumbo Payload option giving 70,000 octets.
    let jumbo = with_hop_by_hop(0, &jumbo_option(70_000), 70_000);
    let parsed = Ipv6Packet::parse(&jumbo).unwrap();
    assert!(parsed.is_jumbogram());
    assert_eq!(parsed.bytes().len(), 40 + 70_000);
    assert_eq!(s.router.check(&jumbo, NOW), Verdict::Jumbogram);
    assert!(!Verdict::Jumbogram.is_rejected());
    assert_eq!(Verdict::Jumbogram.to_string(), "jumbogram");
    // A sender leaves it as it is, saying why.
    assert!(matches!(
        s.host.sign(&parsed, NOW),
        Err(NotSigned::Unsignable(Unsignable::Jumbogram))
    ));
    // A jumbogram that carries a PLA option is not checked either: the signature is
    // defined over Payload Length, which a jumbogram does not use.
    let hbh_end = 40 + 8 * (usize::from(s.signed[41]) + 1);
    let pad = PLA + 77;
    assert_eq!(
        hbh_end - pad,
        7,
        "K-163's option leaves 7 octets of padding"
    );
    let mut signed_jumbo = s.signed.clone();
    signed_jumbo[4..6].copy_from_slice(&[0, 0]);
    signed_jumbo[pad..hbh_end].copy_from_slice(&[&jumbo_option(70_000)[..], &[0]].concat());
    signed_jumbo.resize(40 + 70_000, 0);
    assert_eq!(s.router.check(&signed_jumbo, NOW), Verdict::Jumbogram);

    // What RFC 2675 §3 makes an error is malformed.
    let pad6 = [1, 4, 0, 0, 0, 0];
    for (what, p) in [
        (
            "a Jumbo Payload Length of 65,535",
            with_hop_by_hop(0, &jumbo_option(65_535), 65_535),
        ),
        (
            "a Jumbo Payload Length beyond the captured octets",
            with_hop_by_hop(0, &jumbo_option(70_000), 69_999),
        ),
        (
            "a Jumbo Payload option with Payload Length not 0",
            with_hop_by_hop(100, &jumbo_option(70_000), 100),
        ),
        (
            "Payload Length 0 without a Jumbo Payload option",
            with_hop_by_hop(0, &pad6, 70_000),
        ),
    ] {
        let v = s.router.check(&p, NOW);
        assert!(matches!(v, Verdict::Malformed(_)), "{what}: {v:?}");
    }
    // A Fragment header in a jumbogram.
    let mut fragment = with_hop_by_hop(0, &jumbo_option(70_000), 70_000);
    fragment[40] = 44;
    fragment[48..56].copy_from_slice(&[17, 0, 0, 0, 0, 0, 0, 1]);
    let v = s.router.check(&fragment, NOW);
    assert_eq!(
        v,
        Verdict::Malformed(Malformed("Fragment header: in a jumbogram"))
    );
}

#[test]
fn b_a_other_than_0_or_1_is_a_malformed_header_naming_b_a() {
    let s = setup();
    for b in [2u8, 0x80, 0xff] {
        let mut p = s.signed.clone();
        p[PLA + 13 + 21] = b;
        let v = s.router.check(&p, NOW);
        assert_eq!(v, Verdict::MalformedHeader("b_A"), "b_A = {b}");
        assert_eq!(v.to_string(), "malformed: PLA header field b_A");
    }
}

/// n − d for the big-endian scalar `d` of `n`'s width.
fn negate(n: &[u8], d: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; d.len()];
    let mut borrow = 0i16;
    for i in (0..d.len()).rev() {
        let mut v = i16::from(n[i]) - i16::from(d[i]) - borrow;
        borrow = i16::from(v < 0);
        if v < 0 {
            v += 256;
        }
        out[i] = v as u8;
    }
    out
}

#[test]
fn in_layout_1_the_packet_signature_covers_the_ttp_signature() {
    let ttp = Ttp::<K163>::setup().unwrap();
    let r = router(&ttp);
    let mut host = certified_host(&ttp);
    let signed = sign(&mut host, &udp("2001:db8::1", b"x"), NOW);
    // The TTP's signature (c, d) on the key, after the 13 fixed octets and the 22-octet
    // key, made (c, n − d): another valid ECDSA signature on the same key (ECDSA is
    // malleable), so only the packet signature over it can tell.
    let n: Vec<u8> = (0..K163::ORDER.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&K163::ORDER[i..i + 2], 16).unwrap())
        .collect();
    assert_eq!(n.len(), 21, "L = 21 octets on K-163");
    let d = PLA + 13 + 22 + 21..PLA + 13 + 22 + 42;
    let mut malleated = signed.clone();
    malleated[d.clone()].copy_from_slice(&negate(&n, &signed[d]));
    assert_eq!(r.check(&malleated, NOW), Verdict::BadSignature);
    assert_eq!(r.check(&signed, NOW), Verdict::Accepted);
}

/// Frames of LINKTYPE_IPV6 (each frame is the IPv6 packet) captured at `NOW`.
fn frames(packets: &[Vec<u8>]) -> Vec<hopsig_pla::capture::Frame> {
    let raw_ipv6 = std::sync::Arc::new(hopsig_pla::capture::Interface::new(0, 229));
    packets
        .iter()
        .map(|p| hopsig_pla::capture::Frame {
            time: std::time::Duration::from_secs(u64::from(NOW)),
            orig_len: p.len() as u32,
            data: p.clone(),
            interface: raw_ipv6.clone(),
        })
        .collect()
}

#[test]
fn the_ordered_pipeline_gives_the_verdicts_of_checking_one_by_one() {
    use hopsig_pla::pipeline::{check_ordered, Clock};
    let ttp = Ttp::<K163>::setup().unwrap();
    let mut a = implicit_host(&ttp, "2001:db8::1");
    let mut b = certified_host(&ttp);
    // Accepted, replayed, tampered, stale, unsigned and malformed packets, interleaved
    // across batches: the signatures of a batch are verified together, the replay
    // windows settled in order.
    let mut packets = Vec::new();
    for i in 0..150u32 {
        let p = sign(&mut a, &udp("2001:db8::1", &i.to_be_bytes()), NOW);
        let q = sign(&mut b, &tcp("2001:db8::2", &i.to_be_bytes()), NOW);
        packets.push(p.clone());
        match i % 5 {
            0 => packets.push(p.clone()),
            1 => {
                let mut t = q.clone();
                *t.last_mut().unwrap() ^= 1;
                packets.push(t);
            }
            2 => packets.push(sign(&mut a, &udp("2001:db8::1", b"old"), NOW - 3600)),
            3 => packets.push(udp("2001:db8::3", b"unsigned")),
            _ => packets.push(p[..30].to_vec()),
        }
        packets.push(q);
    }
    let one_by_one: Vec<Verdict> = {
        let r = router(&ttp);
        packets.iter().map(|p| r.check(p, NOW)).collect()
    };
    assert!(one_by_one.contains(&Verdict::Accepted) && one_by_one.contains(&Verdict::Replay));
    assert!(one_by_one.contains(&Verdict::BadSignature) && one_by_one.contains(&Verdict::Stale));
    for threads in [1, 3] {
        let r = router(&ttp);
        let mut got = Vec::new();
        let input = frames(&packets).into_iter().map(Ok::<_, String>);
        check_ordered(&r, Clock::Fixed(NOW), input, threads, |_, v| {
            got.push(v);
            Ok(())
        })
        .unwrap();
        assert_eq!(got, one_by_one, "{threads} threads");
    }
    // An input error: the frames before it are checked and handed over, then it is
    // returned; a sink error stops at its frame.
    let r = router(&ttp);
    let mut got = Vec::new();
    let input = frames(&packets).into_iter().enumerate().map(|(i, f)| {
        if i == 100 {
            Err(format!("frame {i}"))
        } else {
            Ok(f)
        }
    });
    let e = check_ordered(&r, Clock::Fixed(NOW), input, 2, |_, v| {
        got.push(v);
        Ok(())
    });
    assert_eq!(e, Err("frame 100".to_string()));
    assert_eq!(got, one_by_one[..100]);
    let r = router(&ttp);
    let mut n = 0;
    let input = frames(&packets).into_iter().map(Ok::<_, String>);
    let e = check_ordered(&r, Clock::Fixed(NOW), input, 2, |_, _| {
        n += 1;
        if n == 70 {
            Err("sink".to_string())
        } else {
            Ok(())
        }
    });
    assert_eq!(e, Err("sink".to_string()));
    assert_eq!(n, 70);
}
