//! Properties of the whole codec, over generated messages and arbitrary bytes:
//!
//! - `decode(encode(v)) == v` for every generated valid message (OPEN, UPDATE of every
//!   shape — IPv4, multiprotocol, BGPsec, withdrawals — NOTIFICATION, KEEPALIVE), with
//!   both AS widths, random attribute order and random ignorable flag bits;
//! - `encode(decode(x)) == x` for every accepted input, including inputs made by
//!   corrupting valid encodings;
//! - no decoder panics on any input, and every UPDATE error carries a salvage exactly
//!   when it is not a session reset.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::borrow::Cow;
use std::net::Ipv4Addr;

use hopsig_bgp::packet::{
    read_prefixes, Afi, AsPath, AsPathSegment, AsPathSegmentType, AsWidth, AttrFlags,
    AttributeValue, BgpsecCapability, BgpsecPath, Capability, Direction, Header, Message,
    MpReachNlri, MpUnreachNlri, MultiprotocolCapability, NextHop, Notification, Open, Origin,
    PathAttribute, Prefix, Safi, SecurePathFlags, SecurePathSegment, SignatureBlock,
    SignatureSegment, Update,
};
use hopsig_primitives::codec::Reader;
use proptest::prelude::*;

fn width() -> impl Strategy<Value = AsWidth> {
    prop_oneof![Just(AsWidth::Two), Just(AsWidth::Four)]
}

/// A prefix of family `afi` as a receiver may see it: any length, trailing bits random.
fn prefix(afi: Afi) -> impl Strategy<Value = Prefix> {
    (0..=afi.address_bits(), any::<[u8; 16]>()).prop_map(move |(len, octets)| {
        let mut bytes = vec![len];
        bytes.extend_from_slice(&octets[..usize::from(len).div_ceil(8)]);
        Prefix::read(&mut Reader::new(&bytes), afi).unwrap()
    })
}

fn prefixes(afi: Afi, n: std::ops::Range<usize>) -> impl Strategy<Value = Vec<Prefix>> {
    prop::collection::vec(prefix(afi), n)
}

fn as_path(width: AsWidth) -> impl Strategy<Value = AsPath> {
    let max = match width {
        AsWidth::Two => u32::from(u16::MAX),
        AsWidth::Four => u32::MAX,
    };
    let kind = prop::sample::select(AsPathSegmentType::ALL.to_vec());
    prop::collection::vec(
        (kind, prop::collection::vec(0..=max, 1..8))
            .prop_map(|(kind, asns)| AsPathSegment { kind, asns }),
        0..4,
    )
    .prop_map(|segments| AsPath { segments })
}

fn bgpsec_path() -> impl Strategy<Value = BgpsecPath<'static>> {
    let suites = prop_oneof![
        (1u8..=0xfe).prop_map(|a| vec![a]),
        (1u8..=0xfe, 1u8..=0xfe)
            .prop_filter_map("distinct suites", |(a, b)| (a != b).then(|| vec![a, b])),
    ];
    (1usize..6, suites, any::<u64>()).prop_flat_map(|(n, suites, _)| {
        let segments = prop::collection::vec(
            (any::<u8>(), any::<u8>(), any::<u32>()).prop_map(|(pcount, flags, asn)| {
                SecurePathSegment {
                    pcount,
                    flags: SecurePathFlags(flags),
                    asn,
                }
            }),
            n,
        );
        let blocks = suites
            .into_iter()
            .map(|suite| {
                prop::collection::vec(
                    (any::<[u8; 20]>(), prop::collection::vec(any::<u8>(), 0..80)).prop_map(
                        |(ski, sig)| SignatureSegment {
                            ski,
                            signature: Cow::Owned(sig),
                        },
                    ),
                    n,
                )
                .prop_map(move |segments| SignatureBlock { suite, segments })
            })
            .collect::<Vec<_>>();
        (segments, blocks).prop_map(|(s, b)| BgpsecPath::new(s, b).unwrap())
    })
}

fn next_hop(afi: Afi) -> BoxedStrategy<NextHop> {
    match afi {
        Afi::Ipv4 => any::<[u8; 4]>().prop_map(|a| NextHop::V4(a.into())).boxed(),
        Afi::Ipv6 => prop_oneof![
            any::<[u8; 16]>().prop_map(|a| NextHop::V6(a.into())),
            (any::<[u8; 16]>(), any::<[u8; 16]>())
                .prop_map(|(a, b)| NextHop::V6LinkLocal(a.into(), b.into())),
        ]
        .boxed(),
    }
}

fn afi() -> impl Strategy<Value = Afi> {
    prop::sample::select(Afi::ALL.to_vec())
}

fn safi() -> impl Strategy<Value = Safi> {
    prop::sample::select(Safi::ALL.to_vec())
}

fn mp_reach(n: std::ops::Range<usize>) -> impl Strategy<Value = MpReachNlri> {
    (afi(), safi()).prop_flat_map(move |(afi, safi)| {
        (next_hop(afi), prefixes(afi, n.clone()))
            .prop_map(move |(nh, nlri)| MpReachNlri::new(safi, nh, nlri).unwrap())
    })
}

fn mp_unreach() -> impl Strategy<Value = MpUnreachNlri> {
    (afi(), safi()).prop_flat_map(|(afi, safi)| {
        prefixes(afi, 0..4).prop_map(move |w| MpUnreachNlri::new(afi, safi, w).unwrap())
    })
}

/// Attributes kept as received, each with a value its type allows.
fn extras() -> impl Strategy<Value = Vec<(u8, u8, Vec<u8>)>> {
    let one = prop_oneof![
        Just((0x80u8, 4u8, vec![0, 0, 0, 7])), // MULTI_EXIT_DISC
        Just((0x40, 5, vec![0, 0, 0, 100])),   // LOCAL_PREF
        Just((0x40, 6, vec![])),               // ATOMIC_AGGREGATE
        prop::collection::vec(any::<u8>(), 1..4).prop_map(|c| (0xc0, 8, c.repeat(4))), // COMMUNITIES
        prop::collection::vec(any::<u8>(), 8).prop_map(|c| (0xc0, 16, c)), // EXTENDED COMMUNITIES
        (200u8..=254, prop::collection::vec(any::<u8>(), 0..300)).prop_map(|(t, v)| (0xc0, t, v)), // unknown
    ];
    prop::collection::vec(one, 0..3).prop_map(|mut v| {
        v.sort_by_key(|e| e.1);
        v.dedup_by_key(|e| e.1);
        v
    })
}

/// `value` with its standard flags plus random ignorable bits (Partial, the unused low
/// nibble, Extended Length on a short value).
fn attr(value: AttributeValue<'static>, width: AsWidth, extra: u8) -> PathAttribute<'static> {
    let base = PathAttribute::new(value.clone(), width).unwrap().flags().0;
    PathAttribute::with_flags(AttrFlags(base | (extra & 0x3f)), value).unwrap()
}

fn update() -> impl Strategy<Value = (AsWidth, Update<'static>)> {
    (width(), 0..4u8).prop_flat_map(|(width, shape)| {
        (
            Just(width),
            Just(shape),
            as_path(width),
            prefixes(Afi::Ipv4, 0..4),
            prefixes(Afi::Ipv4, 1..5),
            mp_reach(1..4),
            mp_reach(1..2),
            mp_unreach(),
            bgpsec_path(),
            extras(),
            (
                prop::collection::vec(any::<u8>(), 8),
                any::<[u8; 4]>(),
                any::<u64>(),
            ),
        )
            .prop_map(
                |(
                    width,
                    shape,
                    path,
                    withdrawn,
                    nlri,
                    reach,
                    one_prefix,
                    unreach,
                    bgpsec,
                    extras,
                    (bits, nh, seed),
                )| {
                    let origin = AttributeValue::Origin(Origin::ALL[(seed % 3) as usize]);
                    let mut attrs = vec![];
                    let mut u = Update::default();
                    match shape {
                        // IPv4 in the NLRI field.
                        0 => {
                            attrs.push(origin);
                            attrs.push(AttributeValue::AsPath(path));
                            attrs.push(AttributeValue::NextHop(Ipv4Addr::from(nh)));
                            u.withdrawn = withdrawn;
                            u.nlri = nlri;
                        }
                        // Multiprotocol.
                        1 => {
                            attrs.push(origin);
                            attrs.push(AttributeValue::AsPath(path));
                            attrs.push(AttributeValue::MpReachNlri(reach));
                            if seed & 8 != 0 {
                                attrs.push(AttributeValue::MpUnreachNlri(unreach));
                            }
                        }
                        // BGPsec: one prefix in MP_REACH_NLRI, no AS_PATH.
                        2 => {
                            attrs.push(origin);
                            attrs.push(AttributeValue::MpReachNlri(one_prefix));
                            attrs.push(AttributeValue::BgpsecPath(bgpsec));
                        }
                        // Withdrawals only (or End-of-RIB).
                        _ => {
                            u.withdrawn = withdrawn;
                            if seed & 8 != 0 {
                                attrs.push(AttributeValue::MpUnreachNlri(unreach));
                            }
                        }
                    }
                    if width == AsWidth::Two && shape < 2 && seed & 16 != 0 {
                        attrs.push(AttributeValue::As4Path(AsPath::sequence(vec![
                            seed as u32 | 1 << 20,
                        ])));
                    }
                    let mut list: Vec<_> = attrs
                        .into_iter()
                        .zip(bits.iter().cycle())
                        .map(|(v, &b)| attr(v, width, b))
                        .collect();
                    if shape < 3 {
                        for (flags, t, value) in extras {
                            let value_len = value.len();
                            let v = AttributeValue::Other {
                                type_code: t,
                                value: Cow::Owned(value),
                            };
                            let ext = if value_len > 255 {
                                0x10
                            } else {
                                bits[0] & 0x10
                            };
                            list.push(
                                PathAttribute::with_flags(AttrFlags(flags | ext), v).unwrap(),
                            );
                        }
                    }
                    // A random order (RFC 7606 §5.1: receivers accept any).
                    let n = list.len();
                    for i in (1..n).rev() {
                        list.swap(i, (seed >> 32) as usize % (i + 1));
                    }
                    u.attributes = list;
                    (width, u)
                },
            )
    })
}

fn capability() -> impl Strategy<Value = Capability<'static>> {
    prop_oneof![
        (any::<u16>(), any::<u8>(), any::<u8>()).prop_map(|(afi, reserved, safi)| {
            Capability::Multiprotocol(MultiprotocolCapability {
                afi,
                reserved,
                safi,
            })
        }),
        any::<u32>().prop_map(Capability::FourOctetAs),
        (0u8..16, any::<bool>(), 0u8..8, any::<u16>()).prop_map(
            |(version, send, unassigned, afi)| {
                Capability::Bgpsec(BgpsecCapability {
                    version,
                    direction: if send {
                        Direction::Send
                    } else {
                        Direction::Receive
                    },
                    unassigned,
                    afi,
                })
            }
        ),
        (any::<u8>(), prop::collection::vec(any::<u8>(), 0..12))
            .prop_filter("not a decoded code", |(c, _)| ![1, 7, 65].contains(c))
            .prop_map(|(code, v)| Capability::Other {
                code,
                value: Cow::Owned(v)
            }),
    ]
}

fn message() -> impl Strategy<Value = (AsWidth, Message<'static>)> {
    prop_oneof![
        4 => update().prop_map(|(w, u)| (w, Message::Update(u))),
        1 => (
            any::<u16>(),
            prop_oneof![Just(0u16), 3u16..],
            1u32..,
            prop::collection::vec(prop::collection::vec(capability(), 0..4), 0..3)
        )
            .prop_map(|(my_as, hold_time, id, parameters)| {
                (AsWidth::Four, Message::Open(Open { my_as, hold_time, bgp_identifier: id.into(), parameters }))
            }),
        1 => (any::<u8>(), any::<u8>(), prop::collection::vec(any::<u8>(), 0..40)).prop_map(|(code, subcode, d)| {
            (AsWidth::Two, Message::Notification(Notification { code, subcode, data: Cow::Owned(d) }))
        }),
        1 => Just((AsWidth::Four, Message::Keepalive)),
    ]
}

use common::checks::message as decode_exactly;

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn every_generated_message_round_trips((width, m) in message()) {
        let bytes = m.encoding(width).unwrap();
        let back = decode_exactly(&bytes, width).unwrap();
        prop_assert_eq!(back, m);
    }

    #[test]
    fn corrupted_messages_never_panic_and_accepted_ones_re_encode_exactly(
        (width, m) in message(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut bytes = m.encoding(width).unwrap();
        for (at, b) in edits {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len() + 1));
            if bytes.len() >= 18 {
                // Keep the Length field consistent so the body decoders are reached.
                let len = bytes.len() as u16;
                bytes[16..18].copy_from_slice(&len.to_be_bytes());
            }
        }
        let _ = decode_exactly(&bytes, width);
    }

    #[test]
    fn arbitrary_bytes_never_panic_any_decoder(bytes in prop::collection::vec(any::<u8>(), 0..600), width in width()) {
        let _ = decode_exactly(&bytes, width);
        let mut framed = vec![0xff; 16];
        framed.extend_from_slice(&((bytes.len() + 19) as u16).to_be_bytes());
        framed.push(2);
        framed.extend_from_slice(&bytes);
        let _ = decode_exactly(&framed, width);
        framed[18] = 1;
        let _ = decode_exactly(&framed, width);
        let _ = Update::decode(&bytes, width);
        let _ = Open::decode(&bytes);
        let _ = Notification::decode(&bytes);
        let _ = Header::read(&mut Reader::new(&bytes));
        let _ = BgpsecPath::decode(&bytes);
        let _ = AsPath::decode(&bytes, width);
        let _ = AsPath::decode_as4(&bytes);
        let _ = MpReachNlri::decode(&bytes);
        let _ = MpUnreachNlri::decode(&bytes);
        let _ = Capability::read(&mut Reader::new(&bytes));
        let _ = read_prefixes(&bytes, Afi::Ipv4);
        let _ = read_prefixes(&bytes, Afi::Ipv6);
    }

    #[test]
    fn bgpsec_paths_round_trip_alone(p in bgpsec_path()) {
        let mut w = hopsig_primitives::codec::Writer::new();
        p.encode(&mut w).unwrap();
        let bytes = w.into_bytes();
        prop_assert_eq!(BgpsecPath::decode(&bytes).unwrap(), p);
    }
}
