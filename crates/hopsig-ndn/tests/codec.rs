//! The NDN packet codec against the spec's rules: round trips of generated packets,
//! byte-exact re-encoding of every accepted input, no panic on arbitrary octets, URI
//! forms, the evolvability rule, and the parameters digest.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hopsig_ndn::data::content_type;
use hopsig_ndn::signature::signature_type;
use hopsig_ndn::tlv::Element;
use hopsig_ndn::{Component, Data, Interest, KeyLocator, MetaInfo, Name, SignatureInfo, TlvError};
use proptest::prelude::*;

fn name(uri: &str) -> Name {
    uri.parse().unwrap()
}

#[test]
fn a_name_encodes_as_the_spec_shows() {
    // NDN-packet-spec / NDNts: Name "/A" is 07 03 08 01 41.
    assert_eq!(name("/A").encoding(), [0x07, 0x03, 0x08, 0x01, 0x41]);
    assert_eq!(
        Name::decode(&[0x07, 0x03, 0x08, 0x01, 0x41]).unwrap(),
        name("/A")
    );
    assert_eq!(name("/").encoding(), [0x07, 0x00]);
}

#[test]
fn uri_forms_both_ways() {
    for (uri, canonical) in [
        ("/hello/world", "/hello/world"),
        ("ndn:/a/b", "/a/b"),
        ("ndn://authority/a", "/a"),
        ("/Hello%20world/~x_y-z.", "/Hello%20world/~x_y-z."),
        ("/8=generic", "/generic"),
        ("/42=Hello%20world", "/42=Hello%20world"),
        ("/.../....", "/.../...."),
        ("/a%2Fb", "/a%2Fb"),
        ("/seg=3/v=1700000000000", "/seg=3/v=1700000000000"),
        (
            "/params-sha256=893259d98aca58c451453f29ec7dc38688e690dd0b59ef4f3b9d33738bff0b8d",
            "/params-sha256=893259d98aca58c451453f29ec7dc38688e690dd0b59ef4f3b9d33738bff0b8d",
        ),
        (
            "/sha256digest=893259D98ACA58C451453F29EC7DC38688E690DD0B59EF4F3B9D33738BFF0B8D",
            "/sha256digest=893259d98aca58c451453f29ec7dc38688e690dd0b59ef4f3b9d33738bff0b8d",
        ),
    ] {
        let n = name(uri);
        assert_eq!(n.to_string(), canonical, "{uri}");
        assert_eq!(name(canonical), n);
    }
    assert_eq!(name("/...").components()[0].value(), b"");
    assert_eq!(name("/seg=3").components()[0].typ(), 50);
    for bad in [
        "a/b",
        "/a?x",
        "/.",
        "/..",
        "/0=x",
        "/65536=x",
        "/07=x",
        "/sha256digest=00",
        "/x=1",
        "/%4",
        "/%zz",
    ] {
        assert!(bad.parse::<Name>().is_err(), "{bad}");
    }
}

#[test]
fn components_sort_canonically() {
    let mut v = [
        name("/b").0[0].clone(),
        name("/aa").0[0].clone(),
        name("/a").0[0].clone(),
        name("/3=x").0[0].clone(),
    ];
    v.sort();
    let text: Vec<String> = v.iter().map(ToString::to_string).collect();
    assert_eq!(text, ["3=x", "a", "b", "aa"]);
}

fn data() -> Data {
    let mut d = Data::new(
        name("/moderators/Government/safetyConfirmation/wonderland/Alice"),
        b"I am safe".to_vec(),
        SignatureInfo::new(signature_type::SHA256_WITH_ECDSA).with_key_name(name("/Alice/KEY/1")),
    );
    d.meta_info = Some(MetaInfo {
        content_type: Some(content_type::BLOB),
        freshness_period: Some(4000),
        final_block_id: Some(Component::typed(50, vec![9]).unwrap()),
        extras: vec![],
    });
    d.signature_value = vec![0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01];
    d
}

#[test]
fn data_round_trip_and_signed_portion() {
    let d = data();
    let wire = d.encode();
    assert_eq!(wire[0], 6);
    let back = Data::decode(&wire).unwrap();
    assert_eq!(back, d);
    // The signed portion is the Data's value up to SignatureValue.
    let portion = d.signed_portion();
    let value_start = wire.len() - (wire.len() - 2);
    assert!(wire[value_start..].starts_with(&portion));
    assert_eq!(&wire[value_start + portion.len()..][..2], [23, 8]);
}

#[test]
fn unknown_non_critical_elements_are_kept_and_critical_ones_refused() {
    let mut d = data();
    d.extras = vec![
        (
            Some(0),
            Element {
                typ: 250,
                value: vec![1, 2],
            },
        ),
        (
            Some(4),
            Element {
                typ: 300,
                value: vec![],
            },
        ),
    ];
    let wire = d.encode();
    assert_eq!(Data::decode(&wire).unwrap(), d);
    assert_eq!(Data::decode(&wire).unwrap().encode(), wire);
    d.extras = vec![(
        Some(0),
        Element {
            typ: 251,
            value: vec![],
        },
    )];
    assert!(matches!(
        Data::decode(&d.encode()),
        Err(TlvError::Critical { typ: 251, .. })
    ));
    // Nothing may come before Name.
    d.extras = vec![(
        None,
        Element {
            typ: 250,
            value: vec![],
        },
    )];
    assert!(Data::decode(&d.encode()).is_err());
}

#[test]
fn a_data_without_signature_is_refused() {
    let mut v = vec![];
    name("/a").encode(&mut v);
    let mut wire = vec![6, v.len() as u8];
    wire.extend(v);
    assert!(matches!(
        Data::decode(&wire),
        Err(TlvError::Missing {
            missing: "SignatureInfo",
            ..
        })
    ));
}

#[test]
fn interest_parameters_digest_is_set_and_checked() {
    let mut i = Interest::new(name("/localhost/nfd/rib/register"));
    i.nonce = Some([1, 2, 3, 4]);
    i.lifetime = Some(1000);
    i.parameters = Some(b"params".to_vec());
    let wire = i.encode();
    let back = Interest::decode(&wire).unwrap();
    assert_eq!(back.name, i.wire_name());
    assert_eq!(back.name.len(), 5);
    assert!(back.name.components()[4].is_params_digest());
    assert_eq!(back.encode(), wire);
    // Change one octet of the parameters: the digest no longer matches.
    let mut bad = wire.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    assert!(Interest::decode(&bad)
        .unwrap_err()
        .to_string()
        .contains("does not match"));
    // A signed Interest: the signed portion leaves out the digest component.
    let mut s = i.clone();
    s.signature = Some((
        SignatureInfo::new(signature_type::DIGEST_SHA256),
        vec![0; 32],
    ));
    let portion = s.signed_portion();
    let wire = s.encode();
    let back = Interest::decode(&wire).unwrap();
    assert_eq!(back.signed_portion(), portion);
    assert!(portion.starts_with(&name("/localhost/nfd/rib/register").encoding()[2..]));
}

#[test]
fn interest_field_rules() {
    let mut i = Interest::new(name("/a"));
    i.can_be_prefix = true;
    i.must_be_fresh = true;
    i.hop_limit = Some(7);
    i.forwarding_hint = vec![name("/isp")];
    let wire = i.encode();
    assert_eq!(Interest::decode(&wire).unwrap(), i);
    // An empty name, a 3-octet nonce, CanBePrefix with a value.
    assert!(Interest::decode(&[5, 2, 7, 0]).is_err());
    assert!(Interest::decode(&[5, 10, 7, 3, 8, 1, b'a', 10, 3, 1, 2, 3]).is_err());
    assert!(Interest::decode(&[5, 8, 7, 3, 8, 1, b'a', 33, 1, 0]).is_err());
    // Out of order: MustBeFresh (18, critical) after Nonce.
    assert!(Interest::decode(&[5, 13, 7, 3, 8, 1, b'a', 10, 4, 1, 2, 3, 4, 18, 0]).is_err());
}

fn component() -> impl Strategy<Value = Component> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..12).prop_map(Component::generic),
        (3u16..=0xffff, proptest::collection::vec(any::<u8>(), 0..6))
            .prop_filter_map("typed", |(t, v)| Component::typed(t, v).ok()),
        any::<[u8; 32]>().prop_map(|d| Component::typed(1, d.to_vec()).unwrap()),
    ]
}

fn a_name(min: usize) -> impl Strategy<Value = Name> {
    proptest::collection::vec(component(), min..5).prop_map(Name)
}

fn extras(max_after: usize) -> impl Strategy<Value = Vec<(Option<usize>, Element)>> {
    proptest::collection::vec(
        (
            0..=max_after,
            (500u32..2000).prop_map(|t| t * 2),
            proptest::collection::vec(any::<u8>(), 0..4),
        ),
        0..3,
    )
    .prop_map(|v| {
        let mut v: Vec<(Option<usize>, Element)> = v
            .into_iter()
            .map(|(a, typ, value)| (Some(a), Element { typ, value }))
            .collect();
        v.sort_by_key(|(a, _)| *a);
        v
    })
}

fn signature_info() -> impl Strategy<Value = SignatureInfo> {
    (
        any::<u64>(),
        proptest::option::of(prop_oneof![
            a_name(0).prop_map(KeyLocator::Name),
            proptest::collection::vec(any::<u8>(), 0..8).prop_map(KeyLocator::KeyDigest)
        ]),
        proptest::option::of(proptest::collection::vec(any::<u8>(), 1..8)),
        proptest::option::of(any::<u64>()),
        proptest::option::of(any::<u64>()),
        extras(5),
    )
        .prop_map(|(t, k, nonce, time, seq, extras)| SignatureInfo {
            signature_type: t,
            key_locator: k,
            validity_period: None,
            nonce,
            time,
            seq_num: seq,
            extras,
        })
}

prop_compose! {
    fn arb_data()(
        name in a_name(0),
        meta in proptest::option::of((proptest::option::of(any::<u64>()), proptest::option::of(any::<u64>()), proptest::option::of(component()), extras(2))),
        content in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..40)),
        info in signature_info(),
        value in proptest::collection::vec(any::<u8>(), 0..80),
        extras in extras(4),
    ) -> Data {
        Data {
            name,
            meta_info: meta.map(|(content_type, freshness_period, final_block_id, extras)| MetaInfo { content_type, freshness_period, final_block_id, extras }),
            content,
            signature_info: info,
            signature_value: value,
            extras,
        }
    }
}

prop_compose! {
    fn arb_interest()(
        name in a_name(1),
        flags in any::<(bool, bool)>(),
        hint in proptest::collection::vec(a_name(1), 0..2),
        nonce in proptest::option::of(any::<[u8; 4]>()),
        lifetime in proptest::option::of(any::<u64>()),
        hop_limit in proptest::option::of(any::<u8>()),
        parameters in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..30)),
        signature in proptest::option::of((signature_info(), proptest::collection::vec(any::<u8>(), 0..40))),
        extras in extras(9),
    ) -> Interest {
        let name = Name(name.0.into_iter().filter(|c| !c.is_params_digest()).collect());
        let name = if name.is_empty() { Name(vec![Component::generic(b"x".to_vec())]) } else { name };
        let extras = extras.into_iter().filter(|(a, _)| parameters.is_some() || a.is_none_or(|a| a < 7)).collect();
        Interest {
            name,
            can_be_prefix: flags.0,
            must_be_fresh: flags.1,
            forwarding_hint: hint,
            nonce,
            lifetime,
            hop_limit,
            signature: if parameters.is_some() { signature } else { None },
            parameters,
            extras,
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Decoding gives back every field, and the same octets when encoded again (an
    /// extra element's recorded position may differ where the field it was placed
    /// after is absent: the octets cannot tell).
    #[test]
    fn data_decode_inverts_encode(d in arb_data()) {
        let wire = d.encode();
        let back = Data::decode(&wire).unwrap();
        prop_assert_eq!(back.encode(), wire);
        let plain = |d: &Data| {
            let mut d = d.clone();
            d.extras.clear();
            d.signature_info.extras.clear();
            if let Some(m) = d.meta_info.as_mut() { m.extras.clear(); }
            d
        };
        prop_assert_eq!(plain(&back), plain(&d));
        let elements = |d: &Data| d.extras.iter().map(|(_, e)| e.clone()).collect::<Vec<_>>();
        prop_assert_eq!(elements(&back), elements(&d));
    }

    #[test]
    fn interest_decode_inverts_encode(i in arb_interest()) {
        let wire = i.encode();
        let back = Interest::decode(&wire).unwrap();
        prop_assert_eq!(&back.name, &i.wire_name());
        prop_assert_eq!(back.encode(), wire);
    }

    #[test]
    fn names_print_and_parse_back(n in a_name(0)) {
        prop_assert_eq!(n.to_string().parse::<Name>().unwrap(), n);
    }

    /// Any octets: an error or a packet that re-encodes to exactly those octets.
    #[test]
    fn arbitrary_octets_never_panic_and_accepted_ones_re_encode(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        if let Ok(d) = Data::decode(&bytes) { prop_assert_eq!(d.encode(), bytes.clone()); }
        if let Ok(i) = Interest::decode(&bytes) { prop_assert_eq!(i.encode(), bytes.clone()); }
        if let Ok(n) = Name::decode(&bytes) { prop_assert_eq!(n.encoding(), bytes.clone()); }
    }

    /// Valid packets with one octet changed, cut or grown: never a panic, and what is
    /// accepted re-encodes byte for byte.
    #[test]
    fn damaged_packets_never_panic(d in arb_data(), i in arb_interest(), at in any::<prop::sample::Index>(), b in any::<u8>(), cut in any::<bool>()) {
        for wire in [d.encode(), i.encode()] {
            let mut w = wire.clone();
            let k = at.index(w.len());
            if cut { w.truncate(k); } else { w[k] = b; }
            if let Ok(x) = Data::decode(&w) { prop_assert_eq!(x.encode(), w.clone()); }
            if let Ok(x) = Interest::decode(&w) { prop_assert_eq!(x.encode(), w.clone()); }
        }
    }
}
