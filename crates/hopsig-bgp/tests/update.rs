//! UPDATE messages on commented bytes, and the RFC 7606 verdict of each malformation:
//! the action, the NOTIFICATION of a session reset, the salvage of the others.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hopsig_bgp::packet::{
    Action, AsPath, AsWidth, AttrType, AttributeFault, AttributeValue, BgpsecNlriFault,
    BgpsecPathError, EncodeError, Update, UpdateError, UpdateErrorKind,
};

/// An IPv4 UPDATE as RIS records them (2-octet AS session).
#[rustfmt::skip]
const IPV4: &[u8] = &[
    0x00, 0x04,                   // Withdrawn Routes Length 4
    0x18, 0xc6, 0x33, 0x64,       //   198.51.100.0/24
    0x00, 0x1b,                   // Total Path Attribute Length 27
    0x40, 0x01, 0x01, 0x00,       //   ORIGIN IGP
    0x40, 0x02, 0x06,             //   AS_PATH, 6 octets
    0x02, 0x02, 0x0d, 0x1c, 0xfd, 0xe9, //   AS_SEQUENCE 3356 65001
    0x40, 0x03, 0x04, 0xc0, 0x00, 0x02, 0x01, // NEXT_HOP 192.0.2.1
    0xc0, 0x08, 0x04, 0x0d, 0x1c, 0x00, 0x64, // COMMUNITIES 3356:100 (kept)
    0x10, 0xcb, 0x00,             // NLRI 203.0.0.0/16
    0x08, 0x0a,                   //      10.0.0.0/8
];

fn decode(body: &[u8]) -> Result<Update<'_>, UpdateError> {
    Update::decode(body, AsWidth::Two)
}

fn encode(u: &Update<'_>, width: AsWidth) -> Result<Vec<u8>, EncodeError> {
    let mut w = hopsig_primitives::codec::Writer::new();
    u.encode(&mut w, width)?;
    Ok(w.into_bytes())
}

#[test]
fn ipv4_update_on_commented_bytes() {
    let u = decode(IPV4).unwrap();
    assert_eq!(
        u.withdrawn
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["198.51.100.0/24"]
    );
    assert_eq!(
        u.nlri.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["203.0.0.0/16", "10.0.0.0/8"]
    );
    assert_eq!(u.as_path(), Some(&AsPath::sequence(vec![3356, 65_001])));
    assert_eq!(u.attributes.len(), 4);
    assert!(matches!(
        u.attributes[3].value(),
        AttributeValue::Other { type_code: 8, .. }
    ));
    assert_eq!(u.announced().count(), 2);
    assert_eq!(u.withdrawn_all().count(), 1);
    assert_eq!(encode(&u, AsWidth::Two).unwrap(), IPV4);
    // The same value on a 4-octet session has a different encoding.
    let four = encode(&u, AsWidth::Four).unwrap();
    assert_eq!(four.len(), IPV4.len() + 4);
    assert_eq!(Update::decode(&four, AsWidth::Four).unwrap(), u);
}

/// `IPV4` with `patch` applied at `at` (octets replaced), then `insert` inserted.
fn patched(at: usize, patch: &[u8]) -> Vec<u8> {
    let mut v = IPV4.to_vec();
    v[at..at + patch.len()].copy_from_slice(patch);
    v
}

/// `IPV4` with the attribute octets `attr` added at the end of the attribute list.
fn with_attribute(attr: &[u8]) -> Vec<u8> {
    let mut v = IPV4[..8 + 27].to_vec();
    v.extend_from_slice(attr);
    v.extend_from_slice(&IPV4[8 + 27..]);
    let total = (27 + attr.len()) as u16;
    v[6..8].copy_from_slice(&total.to_be_bytes());
    v
}

fn error(body: &[u8]) -> UpdateError {
    decode(body).unwrap_err()
}

#[test]
fn rfc_7606_verdicts() {
    // §3 b: Total Path Attribute Length runs past the message.
    let e = error(&patched(6, &[0x00, 0x30]));
    assert_eq!(e.action(), Action::SessionReset);
    assert!(matches!(e.kind(), UpdateErrorKind::FieldLengths(_)));
    let n = e.notification().unwrap();
    assert_eq!((n.code, n.subcode), (3, 1)); // UPDATE Message Error, Malformed Attribute List

    // §5.3: an NLRI prefix of 33 bits.
    let mut v = IPV4.to_vec();
    v.extend_from_slice(&[33, 1, 2, 3, 4, 5]);
    let e = error(&v);
    assert_eq!(e.action(), Action::SessionReset);
    assert!(matches!(e.kind(), UpdateErrorKind::Nlri(_)));
    assert_eq!(e.notification().unwrap().subcode, 10); // Invalid Network Field
    assert!(e.salvage().is_none());

    // §3 i: Withdrawn Routes checked like NLRI.
    let e = error(&patched(2, &[0x21]));
    assert!(matches!(e.kind(), UpdateErrorKind::WithdrawnRoutes(_)));

    // §7.1: ORIGIN 3 → treat-as-withdraw; no NOTIFICATION, the routes to withdraw.
    let e = error(&patched(11, &[0x03]));
    assert_eq!(e.action(), Action::TreatAsWithdraw);
    assert!(e.notification().is_none());
    let UpdateErrorKind::Attribute(a) = e.kind() else {
        panic!("{e}")
    };
    assert_eq!(a.type_code, AttrType::Origin);
    let salvage = e.salvage().unwrap();
    assert_eq!(salvage.announced().count(), 2);
    assert!(
        salvage.origin().is_none(),
        "the malformed ORIGIN is not in the salvage"
    );

    // §7.2: an AS_PATH segment of length zero.
    let e = error(&patched(16, &[0x00]));
    assert_eq!(e.action(), Action::TreatAsWithdraw);
    assert!(matches!(e.kind(), UpdateErrorKind::Attribute(a) if a.type_code == AttrType::AsPath));

    // §3 c: NEXT_HOP marked optional.
    let e = error(&patched(21, &[0xc0]));
    assert!(
        matches!(e.kind(), UpdateErrorKind::Attribute(a) if a.fault == AttributeFault::Flags(0xc0))
    );
    assert_eq!(e.action(), Action::TreatAsWithdraw);

    // §4: the last attribute's length runs past Total Path Attribute Length.
    let e = error(&patched(30, &[0x05]));
    assert!(matches!(e.kind(), UpdateErrorKind::AttributeList(_)));
    assert_eq!(e.action(), Action::TreatAsWithdraw);

    // §3 g: a second COMMUNITIES is discarded; a second MP_UNREACH_NLRI resets.
    let e = error(&with_attribute(&[0xc0, 0x08, 0x04, 0, 0, 0, 1]));
    assert_eq!(e.action(), Action::AttributeDiscard);
    assert_eq!(e.kind(), &UpdateErrorKind::DuplicateAttribute(8));
    assert_eq!(e.salvage().unwrap(), &decode(IPV4).unwrap().into_owned());
    let unreach = [0x80, 0x0f, 0x03, 0x00, 0x01, 0x01];
    let mut twice = unreach.to_vec();
    twice.extend_from_slice(&unreach);
    let e = error(&with_attribute(&twice));
    assert_eq!(e.action(), Action::SessionReset);
    assert_eq!(e.kind(), &UpdateErrorKind::DuplicateMpAttribute(15));

    // RFC 4271 §6.3: a well-known flag on an unknown type, with the attribute as Data.
    let e = error(&with_attribute(&[0x40, 0x63, 0x01, 0xaa]));
    assert_eq!(e.action(), Action::SessionReset);
    let n = e.notification().unwrap();
    assert_eq!((n.subcode, &n.data[..]), (2, &[0x40, 0x63, 0x01, 0xaa][..]));

    // §3 d: NEXT_HOP missing from an UPDATE that uses the NLRI field.
    let mut v = IPV4[..21].to_vec();
    v.extend_from_slice(&IPV4[28..]);
    v[7] = 27 - 7;
    let e = error(&v);
    assert_eq!(e.kind(), &UpdateErrorKind::Missing(AttrType::NextHop));
    assert_eq!(e.action(), Action::TreatAsWithdraw);

    // §3 h: the strongest action wins (a discard and a session reset → reset).
    let mut v = with_attribute(&[0xc0, 0x08, 0x04, 0, 0, 0, 1]);
    v.extend_from_slice(&[33, 1, 2, 3, 4, 5]);
    assert_eq!(error(&v).action(), Action::SessionReset);

    // RFC 6793 §6: a malformed AS4_PATH is discarded; AS4_PATH between 4-octet
    // speakers too.
    let e = error(&with_attribute(&[0xc0, 0x11, 0x00]));
    assert_eq!(e.action(), Action::AttributeDiscard);
    let four = encode(&decode(IPV4).unwrap(), AsWidth::Four).unwrap();
    let mut v = four[..8 + 31].to_vec();
    v.extend_from_slice(&[0xc0, 0x11, 0x06, 0x02, 0x01, 0, 0, 0, 1]);
    v.extend_from_slice(&four[8 + 31..]);
    v[7] = 31 + 9;
    let e = Update::decode(&v, AsWidth::Four).unwrap_err();
    assert_eq!(
        e.kind(),
        &UpdateErrorKind::As4AttributeBetweenNewSpeakers(AttrType::As4Path)
    );
    assert_eq!(e.action(), Action::AttributeDiscard);
    assert!(e.salvage().unwrap().attribute(AttrType::As4Path).is_none());
    assert_eq!(encode(e.salvage().unwrap(), AsWidth::Four).unwrap(), four);
}

#[test]
fn a_recognized_attribute_with_conflicting_flags_gets_its_own_action() {
    // RFC 7606 §3 c: an Optional or Transitive bit in conflict with the type makes the
    // attribute malformed, handled by the type's rule. "Unrecognized Well-known
    // Attribute" (RFC 4271 §6.3, session reset) is only for types the receiver does
    // not recognise, so a recognized optional attribute sent with the Optional bit
    // clear is a flag error, not that.
    let cases: [(&[u8], AttrType, Action); 6] = [
        // MULTI_EXIT_DISC marked well-known (§7.4).
        (
            &[0x00, 0x04, 0x04, 0, 0, 0, 0],
            AttrType::MultiExitDisc,
            Action::TreatAsWithdraw,
        ),
        // EXTENDED COMMUNITIES marked well-known, LARGE_COMMUNITY non-transitive
        // (both optional transitive, RFC 4360 §2, RFC 8092 §3).
        (
            &[0x40, 0x10, 0x08, 0, 2, 0, 1, 0, 0, 0, 1],
            AttrType::ExtendedCommunities,
            Action::TreatAsWithdraw,
        ),
        (
            &[0x80, 0x20, 0x0c, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3],
            AttrType::LargeCommunity,
            Action::TreatAsWithdraw,
        ),
        // AS4_PATH marked well-known (RFC 6793 §6: attribute discard).
        (
            &[0x40, 0x11, 0x06, 0x02, 0x01, 0, 0, 0, 1],
            AttrType::As4Path,
            Action::AttributeDiscard,
        ),
        // AGGREGATOR marked well-known (§7.7: attribute discard).
        (
            &[0x40, 0x07, 0x06, 0x0d, 0x1c, 10, 0, 0, 1],
            AttrType::Aggregator,
            Action::AttributeDiscard,
        ),
        // MP_UNREACH_NLRI marked well-known (§5.3, §3 j: session reset).
        (
            &[0x00, 0x0f, 0x03, 0x00, 0x01, 0x01],
            AttrType::MpUnreachNlri,
            Action::SessionReset,
        ),
    ];
    for (attr, t, action) in cases {
        let e = error(&with_attribute(attr));
        assert_eq!(e.action(), action, "{attr:02x?}: {e}");
        let UpdateErrorKind::Attribute(a) = e.kind() else {
            panic!("{attr:02x?}: {e}")
        };
        assert_eq!(
            (a.type_code, &a.fault),
            (t, &AttributeFault::Flags(attr[0]))
        );
        if action == Action::SessionReset {
            let n = e.notification().unwrap();
            assert_eq!((n.subcode, &n.data[..]), (4, attr)); // Attribute Flags Error
        }
    }
    // BGPsec_PATH marked well-known: an error in the BGPsec_PATH attribute
    // (RFC 8205 §5.2: treat-as-withdraw), the route to withdraw kept.
    let mut v = bgpsec_update(&[]);
    v[4 + 20] = 0x50;
    let e = Update::decode(&v, AsWidth::Four).unwrap_err();
    assert!(
        matches!(e.kind(), UpdateErrorKind::Attribute(a) if a.type_code == AttrType::BgpsecPath && a.fault == AttributeFault::Flags(0x50)),
        "{e}"
    );
    assert_eq!(e.action(), Action::TreatAsWithdraw);
    assert_eq!(e.salvage().unwrap().announced().count(), 1);
    // LOCAL_PREF's rules depend on whether the peer is internal (RFC 7606 §7.5: from
    // an external peer it is discarded whatever it holds), so it is kept as received,
    // flags included, for the speaker to judge.
    let v = with_attribute(&[0xc0, 0x05, 0x04, 0, 0, 0, 100]);
    let u = decode(&v).unwrap();
    assert_eq!(u.attribute(AttrType::LocalPref).unwrap().flags().0, 0xc0);
    assert_eq!(encode(&u, AsWidth::Two).unwrap(), v);
}

#[test]
fn a_withdraw_only_update_with_a_bad_attribute_resets_the_session() {
    // RFC 7606 §5.2: no reachable NLRI, attributes other than MP_UNREACH_NLRI, and an
    // error other than attribute discard.
    #[rustfmt::skip]
    let body = [
        0x00, 0x02, 0x08, 0x0a,       // Withdrawn: 10.0.0.0/8
        0x00, 0x04,                   // Total Path Attribute Length 4
        0x40, 0x01, 0x01, 0x05,       //   ORIGIN 5: undefined
    ];
    let e = decode(&body).unwrap_err();
    assert!(matches!(e.kind(), UpdateErrorKind::Attribute(a) if a.type_code == AttrType::Origin));
    assert_eq!(e.action(), Action::SessionReset);
    assert_eq!(e.notification().unwrap().subcode, 6); // Invalid ORIGIN Attribute

    // A length the type does not allow is an Attribute Length Error (RFC 4271 §6.3),
    // with the attribute as Data: ORIGIN of two octets, NEXT_HOP of three.
    for attr in [
        &[0x40, 0x01, 0x02, 0x00, 0x00][..],
        &[0x40, 0x03, 0x03, 0x0a, 0x00, 0x00][..],
    ] {
        let mut body = vec![0x00, 0x02, 0x08, 0x0a, 0x00, attr.len() as u8];
        body.extend_from_slice(attr);
        let e = decode(&body).unwrap_err();
        assert!(
            matches!(e.kind(), UpdateErrorKind::Attribute(a) if a.fault == AttributeFault::Length(attr.len() - 3)),
            "{e}"
        );
        let n = e.notification().unwrap();
        assert_eq!((n.subcode, &n.data[..]), (5, attr));
    }
}

/// A BGPsec UPDATE (RFC 8608 A.3's attributes with type 33, one signature shortened).
#[rustfmt::skip]
fn bgpsec_update(extra: &[u8]) -> Vec<u8> {
    let mut attrs = vec![
        0x40, 0x01, 0x01, 0x02,                               // ORIGIN INCOMPLETE
        0x80, 0x0e, 0x0d, 0x00, 0x01, 0x01, 0x04, 0xc6, 0x33, // MP_REACH_NLRI IPv4 unicast,
        0x64, 0x64, 0x00, 0x18, 0xc0, 0x00, 0x02,             //   198.51.100.100, 192.0.2.0/24
        0x90, 0x21, 0x00, 0x23,                               // BGPsec_PATH, length 35
        0x00, 0x08, 0x01, 0x00, 0x00, 0x00, 0xfb, 0xf0,       //   Secure_Path: AS 64496
        0x00, 0x1b, 0x01,                                     //   block of 27, suite 1
        0xab, 0x4d, 0x91, 0x0f, 0x55, 0xca, 0xe7, 0x1a, 0x21, 0x5e,
        0xf3, 0xca, 0xfe, 0x3a, 0xcc, 0x45, 0xb5, 0xee, 0xc1, 0x54, // SKI
        0x00, 0x02, 0x30, 0x00,                               //   signature (2 octets)
    ];
    attrs.extend_from_slice(extra);
    let mut body = vec![0x00, 0x00];
    body.extend_from_slice(&(attrs.len() as u16).to_be_bytes());
    body.extend_from_slice(&attrs);
    body
}

#[test]
fn bgpsec_update_rules() {
    let body = bgpsec_update(&[]);
    let u = Update::decode(&body, AsWidth::Four).unwrap();
    assert_eq!(u.bgpsec_path().unwrap().secure_path()[0].asn, 64_496);
    assert_eq!(encode(&u, AsWidth::Four).unwrap(), body);

    // RFC 8205 §5.2 check 4: AS_PATH as well, even empty.
    let e = Update::decode(&bgpsec_update(&[0x40, 0x02, 0x00]), AsWidth::Four).unwrap_err();
    assert_eq!(e.kind(), &UpdateErrorKind::AsPathWithBgpsecPath);
    assert_eq!(e.action(), Action::TreatAsWithdraw);
    assert_eq!(e.salvage().unwrap().announced().count(), 1);

    // RFC 8205 §4.1: a prefix in the NLRI field too.
    let mut v = bgpsec_update(&[0x40, 0x03, 0x04, 1, 2, 3, 4]);
    v.extend_from_slice(&[0x08, 0x0a]);
    let e = Update::decode(&v, AsWidth::Four).unwrap_err();
    assert_eq!(
        e.kind(),
        &UpdateErrorKind::BgpsecNlri(BgpsecNlriFault::NlriField)
    );

    // A malformed BGPsec_PATH (block with a reserved suite) is treat-as-withdraw.
    let mut v = bgpsec_update(&[]);
    let suite_at = 4 + 20 + 4 + 8 + 2;
    v[suite_at] = 0xff;
    let e = Update::decode(&v, AsWidth::Four).unwrap_err();
    let UpdateErrorKind::Attribute(a) = e.kind() else {
        panic!("{e}")
    };
    assert_eq!(
        a.fault,
        AttributeFault::BgpsecPath(BgpsecPathError::ReservedSuite(0xff))
    );
    assert_eq!(e.action(), Action::TreatAsWithdraw);

    // BGPsec_PATH marked transitive (RFC 7606 §3 c).
    let mut v = bgpsec_update(&[]);
    v[4 + 20] = 0xd0;
    let e = Update::decode(&v, AsWidth::Four).unwrap_err();
    assert!(
        matches!(e.kind(), UpdateErrorKind::Attribute(a) if a.fault == AttributeFault::Flags(0xd0))
    );
}

#[test]
fn encoding_refuses_updates_the_decoder_would_refuse() {
    let u = decode(IPV4).unwrap();
    let mut dup = u.clone();
    dup.attributes.push(u.attributes[0].clone());
    assert_eq!(
        encode(&dup, AsWidth::Two),
        Err(EncodeError::Update(Box::new(
            UpdateErrorKind::DuplicateAttribute(1)
        )))
    );
    let mut missing = u.clone();
    missing.attributes.remove(0);
    assert_eq!(
        encode(&missing, AsWidth::Two),
        Err(EncodeError::Update(Box::new(UpdateErrorKind::Missing(
            AttrType::Origin
        ))))
    );
    let mut v6 = u.clone();
    v6.nlri.push(
        "2001:db8::"
            .parse::<std::net::IpAddr>()
            .map(|a| hopsig_bgp::packet::Prefix::new(a, 32).unwrap())
            .unwrap(),
    );
    assert!(matches!(
        encode(&v6, AsWidth::Two),
        Err(EncodeError::Field(_))
    ));
    // A kept attribute with a length its type forbids (MULTI_EXIT_DISC of 3 octets).
    let mut med = u;
    med.attributes.push(
        hopsig_bgp::packet::PathAttribute::with_flags(
            hopsig_bgp::packet::AttrFlags(0x80),
            AttributeValue::Other {
                type_code: 4,
                value: vec![0, 0, 1].into(),
            },
        )
        .unwrap(),
    );
    assert!(matches!(
        encode(&med, AsWidth::Two),
        Err(EncodeError::Update(k)) if matches!(*k, UpdateErrorKind::Attribute(ref a) if a.fault == AttributeFault::Length(3))
    ));
}
