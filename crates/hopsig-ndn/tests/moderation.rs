//! 004's moderator-controlled sharing end to end in memory (the forwarder path is in
//! the CLI tests): Alice publishes, Government moderates, Bob verifies, with IBAS,
//! RSA-2048 and ECDSA P-256; and every failure case of issue 14 §2 is refused with
//! its reason.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;

use hopsig_ndn::moderation::{self, ModerationError, SeenW, Signer, Verifier};
use hopsig_ndn::{Data, Name, SigningKey, VerifyingKey};
use hopsig_schemes::ibas::{self, Journal, Pkg};
use openssl::ec::{EcGroup, EcKey};
use openssl::nid::Nid;
use openssl::pkey::PKey;
use openssl::rsa::Rsa;

fn n(uri: &str) -> Name {
    uri.parse().unwrap()
}

const T1: &str = "2026-11-23T19:00:00Z";
const T2: &str = "2026-11-23T19:00:01Z";

#[test]
fn names_are_snippet_1s() {
    let (gov, alice) = (n("/moderators/Government"), n("/wonderland/Alice"));
    assert_eq!(
        moderation::subscriber_interest(&gov, &alice).to_string(),
        "/moderators/Government/safetyConfirmation/wonderland/Alice"
    );
    assert_eq!(
        moderation::moderator_interest(&alice).to_string(),
        "/wonderland/Alice/safetyConfirmation"
    );
    assert_eq!(
        moderation::publisher_name(&alice, 2).to_string(),
        "/wonderland/Alice/safetyConfirmation/2"
    );
    let four = moderation::moderator_name(&gov, &alice, 2, 9);
    assert_eq!(
        four.to_string(),
        "/moderators/Government/safetyConfirmation/wonderland/Alice/2/9"
    );
    let m = moderation::Moderated::parse(&four).unwrap();
    assert_eq!(
        (m.moderator, m.publisher, m.seq, m.mseq),
        (gov, alice, 2, 9)
    );
    for bad in [
        "/moderators/Government/other/wonderland/Alice/2/9",
        "/a/b/safetyConfirmation/c/d/02/9",
        "/a/b/safetyConfirmation/c/d/2",
    ] {
        assert!(moderation::Moderated::parse(&n(bad)).is_err(), "{bad}");
    }
}

struct Ibas {
    pkg: Pkg,
    alice: ibas::UserKey,
    gov: ibas::UserKey,
}

fn ibas_keys() -> Ibas {
    let pkg = Pkg::setup().unwrap();
    let alice = pkg.extract("/wonderland/Alice").unwrap();
    let gov = pkg.extract("/moderators/Government").unwrap();
    Ibas { pkg, alice, gov }
}

fn ibas_flow(k: &Ibas, message: &[u8]) -> (Data, Data) {
    let (gov, alice) = (n("/moderators/Government"), n("/wonderland/Alice"));
    let mut aj = Journal::memory();
    let three =
        moderation::publish(&alice, 2, T1, message, Signer::Ibas(&k.alice, &mut aj)).unwrap();
    let mut gj = Journal::memory();
    let v = Verifier::Ibas(k.pkg.params());
    let four =
        moderation::moderate(&three, &gov, 9, T2, &v, Signer::Ibas(&k.gov, &mut gj)).unwrap();
    (three, four)
}

#[test]
fn ibas_alice_to_bob_through_the_moderator() {
    let k = ibas_keys();
    let (three, four) = ibas_flow(&k, b"I am safe.");
    // 004 §5.3: SignatureInfo of 5 octets; one 160-octet aggregate however many signers.
    let mut info = vec![];
    four.signature_info.encode(22, &mut info);
    assert_eq!(info.len(), 5);
    assert_eq!(three.signature_value.len(), 160);
    assert_eq!(four.signature_value.len(), 160);
    // Decoded from the wire as a subscriber would.
    let four = Data::decode(&four.encode()).unwrap();
    let got = moderation::receive(
        &four,
        &Verifier::Ibas(k.pkg.params()),
        &mut SeenW::default(),
    )
    .unwrap();
    assert_eq!(got.published.message, b"I am safe.");
    assert_eq!(got.published.from, "/wonderland/Alice");
    assert_eq!(got.published.published, T1);
    assert_eq!(got.accepted, T2);
    // m_1 rebuilt from m_2 is exactly what Alice signed.
    assert_eq!(
        moderation::publisher_view(&four).unwrap().signed_portion(),
        three.signed_portion()
    );
}

#[test]
fn ibas_failures_are_refused_with_their_reason() {
    let k = ibas_keys();
    let (three, four) = ibas_flow(&k, b"I am safe.");
    let params = Verifier::Ibas(k.pkg.params());
    let bob = |d: &Data| moderation::receive(d, &params, &mut SeenW::default());

    // Tampered content.
    let mut t = four.clone();
    let c = t.content.as_mut().unwrap();
    let at = c.len() / 2;
    c[at] ^= 1;
    assert!(
        matches!(
            bob(&t),
            Err(ModerationError::BadSignature(_) | ModerationError::Content(_))
        ),
        "{:?}",
        bob(&t)
    );
    let mut t = four.clone();
    t.content.as_mut().unwrap()[40] ^= 1;
    assert!(
        matches!(bob(&t), Err(ModerationError::BadSignature(_))),
        "{:?}",
        bob(&t)
    );

    // The moderator named in the content is not the one in the name; then the name
    // changed to match the content: the aggregate fails.
    let content = String::from_utf8(four.content.clone().unwrap()).unwrap();
    let mut t = four.clone();
    t.content = Some(
        content
            .replace(
                "Moderator: /moderators/Government",
                "Moderator: /moderators/Other",
            )
            .into_bytes(),
    );
    assert!(
        matches!(bob(&t), Err(ModerationError::Mismatch(_))),
        "{:?}",
        bob(&t)
    );
    t.name = moderation::moderator_name(&n("/moderators/Other"), &n("/wonderland/Alice"), 2, 9);
    assert!(
        matches!(bob(&t), Err(ModerationError::BadSignature(_))),
        "{:?}",
        bob(&t)
    );
    // Someone else's key in Alice's name (IBAS has no unknown identity: a key of
    // another identity is a signature that does not verify).
    let mallory = k.pkg.extract("/wonderland/Mallory").unwrap();
    let forged = moderation::publish(
        &n("/wonderland/Alice"),
        3,
        T1,
        b"help",
        Signer::Ibas(&mallory, &mut Journal::memory()),
    )
    .unwrap();
    let mut gj = Journal::memory();
    assert!(matches!(
        moderation::moderate(
            &forged,
            &n("/moderators/Government"),
            10,
            T2,
            &params,
            Signer::Ibas(&k.gov, &mut gj)
        ),
        Err(ModerationError::BadSignature(_))
    ));
    // The moderator never relays what it could not verify: tampered (3).
    let mut t = three.clone();
    t.content.as_mut().unwrap()[30] ^= 1;
    assert!(moderation::moderate(
        &t,
        &n("/moderators/Government"),
        10,
        T2,
        &params,
        Signer::Ibas(&k.gov, &mut gj)
    )
    .is_err());

    // A replayed w: Alice signs a second message under the w of her first.
    let alice = n("/wonderland/Alice");
    let mut gj = Journal::memory();
    let first = moderation::moderate(
        &three,
        &n("/moderators/Government"),
        9,
        T2,
        &params,
        Signer::Ibas(&k.gov, &mut gj),
    )
    .unwrap();
    let mut second = Data::new(
        moderation::publisher_name(&alice, 3),
        moderation::publisher_content(&alice, T1, b"other"),
        hopsig_ndn::ibas::signature_info(),
    );
    second.meta_info = three.meta_info.clone();
    let w = *hopsig_ndn::ibas::aggregate(&three.signature_value, 1)
        .unwrap()
        .w();
    let agg = ibas::sign_with_w(
        &k.alice,
        &second.signed_portion(),
        &w,
        &mut Journal::memory(),
    )
    .unwrap();
    second.signature_value = hopsig_ndn::ibas::value(&agg);
    // The moderator's journal refuses to countersign under that w again...
    assert!(matches!(
        moderation::moderate(
            &second,
            &n("/moderators/Government"),
            10,
            T2,
            &params,
            Signer::Ibas(&k.gov, &mut gj)
        ),
        Err(ModerationError::ReplayedW(..))
    ));
    // ...and a subscriber that sees both (from two moderators' journals) refuses the second.
    let other = moderation::moderate(
        &second,
        &n("/moderators/Government"),
        10,
        T2,
        &params,
        Signer::Ibas(&k.gov, &mut Journal::memory()),
    )
    .unwrap();
    let mut seen = SeenW::default();
    moderation::receive(&first, &params, &mut seen).unwrap();
    assert!(matches!(
        moderation::receive(&other, &params, &mut seen),
        Err(ModerationError::ReplayedW(..))
    ));
}

fn classic(kind: &str) -> (SigningKey, SigningKey, HashMap<Name, VerifyingKey>) {
    let make = || match kind {
        "rsa" => SigningKey::new(PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap()).unwrap(),
        _ => SigningKey::new(
            PKey::from_ec_key(
                EcKey::generate(&EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap()).unwrap(),
            )
            .unwrap(),
        )
        .unwrap(),
    };
    let (a, g) = (make(), make());
    let mut keys = HashMap::new();
    keys.insert(n("/wonderland/Alice"), a.verifying_key().unwrap());
    keys.insert(n("/moderators/Government"), g.verifying_key().unwrap());
    (a, g, keys)
}

#[test]
fn rsa_and_ecdsa_carry_the_publishers_data_inside() {
    for kind in ["rsa", "ecdsa"] {
        let (a, g, keys) = classic(kind);
        let (gov, alice) = (n("/moderators/Government"), n("/wonderland/Alice"));
        let v = Verifier::Classic(&keys);
        let three = moderation::publish(&alice, 2, T1, b"I am safe.", Signer::Classic(&a)).unwrap();
        let four = moderation::moderate(&three, &gov, 9, T2, &v, Signer::Classic(&g)).unwrap();
        assert!(four.content.as_ref().unwrap().starts_with(&three.encode()));
        let four = Data::decode(&four.encode()).unwrap();
        let got = moderation::receive(&four, &v, &mut SeenW::default()).unwrap();
        assert_eq!(got.published.message, b"I am safe.", "{kind}");
        // Tampered inner message: Alice's signature fails.
        let mut t = four.clone();
        let at = three.encode().len() - 80;
        t.content.as_mut().unwrap()[at] ^= 1;
        assert!(
            moderation::receive(&t, &v, &mut SeenW::default()).is_err(),
            "{kind}"
        );
        // Unknown identity: Bob has no key for the publisher.
        let only_gov = keys
            .iter()
            .filter(|(k, _)| **k == gov)
            .map(|(k, _)| (k.clone(), g.verifying_key().unwrap()))
            .collect::<HashMap<_, _>>();
        assert!(
            matches!(moderation::receive(&four, &Verifier::Classic(&only_gov), &mut SeenW::default()), Err(ModerationError::UnknownIdentity(id)) if id == "/wonderland/Alice")
        );
    }
}

#[test]
fn the_pkg_parameters_travel_as_a_data_packet() {
    let k = ibas_keys();
    let d = moderation::params_data(&n("/moderators/PKG"), k.pkg.params()).unwrap();
    let d = Data::decode(&d.encode()).unwrap();
    assert_eq!(d.name.to_string(), "/moderators/PKG/params");
    let params = moderation::params_from_data(&d).unwrap();
    assert_eq!(params.to_bytes(), k.pkg.params().to_bytes());
    let mut bad = d.clone();
    bad.content.as_mut().unwrap()[5] ^= 1;
    assert!(moderation::params_from_data(&bad).is_err());
}

/// Alice's Data (3) for `message`, built by hand (so that a test can change what the
/// library would not write) and signed by `key` as first signer over its signed
/// portion as it stands.
fn signed_three(key: &ibas::UserKey, mut three: Data) -> Data {
    let agg = ibas::sign(key, &three.signed_portion(), None, &mut Journal::memory()).unwrap();
    three.signature_value = hopsig_ndn::ibas::value(&agg);
    three
}

fn alices_three(message: &[u8]) -> Data {
    let alice = n("/wonderland/Alice");
    let mut three = Data::new(
        moderation::publisher_name(&alice, 2),
        moderation::publisher_content(&alice, T1, message),
        hopsig_ndn::ibas::signature_info(),
    );
    three.meta_info = Some(hopsig_ndn::MetaInfo {
        freshness_period: Some(10_000),
        ..Default::default()
    });
    three
}

/// Government signs m_2 of `four` under the w of `three`, as a moderator would, with
/// none of its checks.
fn gov_countersigns(k: &Ibas, three: &Data, four: &mut Data) {
    let first = hopsig_ndn::ibas::aggregate(&three.signature_value, 1).unwrap();
    let agg = ibas::sign(
        &k.gov,
        &four.signed_portion(),
        Some(&first),
        &mut Journal::memory(),
    )
    .unwrap();
    four.signature_value = hopsig_ndn::ibas::value(&agg);
}

/// Government's (4) of `three` built by hand: `edit` changes it before Government
/// signs m_2 under the w of (3).
fn countersigned(k: &Ibas, three: &Data, edit: impl FnOnce(&mut Data)) -> Data {
    let gov = n("/moderators/Government");
    let mut content = three.content.clone().unwrap();
    content.extend_from_slice(&moderation::moderator_suffix(&gov, T2));
    let mut four = Data::new(
        moderation::moderator_name(&gov, &n("/wonderland/Alice"), 2, 9),
        content,
        hopsig_ndn::ibas::signature_info(),
    );
    four.meta_info = three.meta_info.clone();
    edit(&mut four);
    gov_countersigns(k, three, &mut four);
    four
}

fn moderate(k: &Ibas, three: &Data) -> Result<Data, ModerationError> {
    moderation::moderate(
        three,
        &n("/moderators/Government"),
        9,
        T2,
        &Verifier::Ibas(k.pkg.params()),
        Signer::Ibas(&k.gov, &mut Journal::memory()),
    )
}

/// Issue 22 §1 (a): a (3) whose SignatureInfo is type 201 plus a KeyLocator verifies
/// on its own, but (4) carries the 5-octet SignatureInfo, so m_1 would no longer be
/// what Alice signed. The moderator refuses it, and so does a subscriber in a (4).
#[test]
fn a_signature_info_with_more_than_the_type_is_refused() {
    let k = ibas_keys();
    let mut with_locator = alices_three(b"I am safe.");
    with_locator.signature_info =
        hopsig_ndn::ibas::signature_info().with_key_name(n("/wonderland/Alice/KEY"));
    let three = signed_three(&k.alice, with_locator);
    let params = Verifier::Ibas(k.pkg.params());
    moderation::verify_publisher(&Data::decode(&three.encode()).unwrap(), &params)
        .expect_err("a KeyLocator in an IBAS SignatureInfo");
    let refused = moderate(&k, &three);
    assert!(
        matches!(refused, Err(ModerationError::SignatureInfo(_))),
        "{refused:?}"
    );
    // An unknown non-critical element in the SignatureInfo: the same.
    let mut extra = alices_three(b"I am safe.");
    extra.signature_info.extras = vec![(
        Some(0),
        hopsig_ndn::tlv::Element {
            typ: 252,
            value: b"x".to_vec(),
        },
    )];
    let refused = moderate(&k, &signed_three(&k.alice, extra));
    assert!(
        matches!(refused, Err(ModerationError::SignatureInfo(_))),
        "{refused:?}"
    );
    // A (4) whose two signers both signed a SignatureInfo with a KeyLocator.
    let with_locator = |d: &mut Data| {
        d.signature_info =
            hopsig_ndn::ibas::signature_info().with_key_name(n("/moderators/Government/KEY"));
    };
    let mut three = alices_three(b"I am safe.");
    with_locator(&mut three);
    let three = signed_three(&k.alice, three);
    let four = countersigned(&k, &three, with_locator);
    let got = moderation::receive(&four, &params, &mut SeenW::default());
    assert!(
        matches!(got, Err(ModerationError::SignatureInfo(_))),
        "{got:?}"
    );
}

/// NDN's NonNegativeInteger in its shortest form only: SignatureType 201 in two
/// octets makes the Data malformed (docs/spec/ndn-ibas.md §1).
#[test]
fn a_two_octet_signature_type_is_malformed() {
    let k = ibas_keys();
    let (_, four) = ibas_flow(&k, b"I am safe.");
    let wire = four.encode();
    let at = wire
        .windows(5)
        .position(|w| w == [0x16, 0x03, 0x1B, 0x01, 0xC9])
        .unwrap();
    let mut long = wire[..at].to_vec();
    long.extend_from_slice(&[0x16, 0x04, 0x1B, 0x02, 0x00, 0xC9]);
    long.extend_from_slice(&wire[at + 5..]);
    // The outer TLV-LENGTH grows by one (one or three octets after the type).
    match long[1] {
        0xFD => {
            let len = u16::from_be_bytes([long[2], long[3]]) + 1;
            long[2..4].copy_from_slice(&len.to_be_bytes());
        }
        l => long[1] = l + 1,
    }
    let e = Data::decode(&long).unwrap_err();
    assert!(e.to_string().contains("shortest"), "{e}");
}

/// Issue 22 §1 (b): an Interest (1) naming the moderator as publisher would have it
/// countersign a (3) of its own identity — one identity twice in the aggregate, and
/// its key signing two messages under one w. Refused by the moderator, and a (4)
/// naming one identity twice by the subscriber, as a malformed name.
#[test]
fn a_moderator_does_not_moderate_itself() {
    let k = ibas_keys();
    let gov = n("/moderators/Government");
    let three = moderation::publish(
        &gov,
        2,
        T1,
        b"I moderate myself.",
        Signer::Ibas(&k.gov, &mut Journal::memory()),
    )
    .unwrap();
    let params = Verifier::Ibas(k.pkg.params());
    moderation::verify_publisher(&three, &params).unwrap();
    let refused = moderate(&k, &three);
    assert!(
        matches!(refused, Err(ModerationError::Mismatch(_))),
        "{refused:?}"
    );
    // The (4) a moderator without that check would have made.
    let mut four = Data::new(
        moderation::moderator_name(&gov, &gov, 2, 9),
        [
            three.content.clone().unwrap(),
            moderation::moderator_suffix(&gov, T2),
        ]
        .concat(),
        hopsig_ndn::ibas::signature_info(),
    );
    four.meta_info = three.meta_info.clone();
    gov_countersigns(&k, &three, &mut four);
    let got = moderation::receive(&four, &params, &mut SeenW::default());
    assert!(matches!(got, Err(ModerationError::Name(..))), "{got:?}");
}

/// The moderator checks the (4) it built before sending it: led to build one that
/// does not verify (here its key comes from another PKG than the parameters it
/// verifies with, which no check of (3) can see), it refuses rather than sends.
#[test]
fn the_moderator_refuses_a_data_it_built_that_does_not_verify() {
    let k = ibas_keys();
    let other_pkg = Pkg::setup().unwrap();
    let wrong = other_pkg.extract("/moderators/Government").unwrap();
    let three = moderation::publish(
        &n("/wonderland/Alice"),
        2,
        T1,
        b"I am safe.",
        Signer::Ibas(&k.alice, &mut Journal::memory()),
    )
    .unwrap();
    let refused = moderation::moderate(
        &three,
        &n("/moderators/Government"),
        9,
        T2,
        &Verifier::Ibas(k.pkg.params()),
        Signer::Ibas(&wrong, &mut Journal::memory()),
    );
    assert!(
        matches!(refused, Err(ModerationError::Unverifiable(_))),
        "{refused:?}"
    );
    // A (3) with an unknown element in its signed portion, which (4) cannot carry
    // into m_1: refused before signing.
    let mut extra = alices_three(b"I am safe.");
    extra.extras = vec![(
        Some(2),
        hopsig_ndn::tlv::Element {
            typ: 252,
            value: b"x".to_vec(),
        },
    )];
    let three = signed_three(&k.alice, extra);
    moderation::verify_publisher(&three, &Verifier::Ibas(k.pkg.params())).unwrap_err();
    let refused = moderate(&k, &three);
    assert!(
        matches!(refused, Err(ModerationError::Element(_))),
        "{refused:?}"
    );
}

/// S or T not a valid point: malformed input, not a signature that fails.
#[test]
fn a_signature_value_with_a_bad_point_is_malformed() {
    let k = ibas_keys();
    let (_, four) = ibas_flow(&k, b"I am safe.");
    let params = Verifier::Ibas(k.pkg.params());
    for range in [16..64, 64..160] {
        let mut bad = four.clone();
        bad.signature_value[range.clone()].fill(0xff);
        let got = moderation::receive(&bad, &params, &mut SeenW::default());
        assert!(
            matches!(got, Err(ModerationError::SignatureValue(_))),
            "{range:?}: {got:?}"
        );
    }
}

/// Unknown non-critical elements of a (4) (docs/spec/ndn-ibas.md §4): before
/// SignatureValue they are in m_2 (added by the moderator when it signs, they verify;
/// added later, they break it) and not in m_1; after SignatureValue they are in
/// neither.
#[test]
fn unknown_elements_of_a_moderators_data_are_in_m2_only() {
    let k = ibas_keys();
    let params = Verifier::Ibas(k.pkg.params());
    let three = signed_three(&k.alice, alices_three(b"I am safe."));
    let element = |after| {
        (
            Some(after),
            hopsig_ndn::tlv::Element {
                typ: 252,
                value: b"extension".to_vec(),
            },
        )
    };
    let four = countersigned(&k, &three, |d| d.extras = vec![element(2)]);
    let four = Data::decode(&four.encode()).unwrap();
    assert_eq!(four.extras.len(), 1);
    moderation::receive(&four, &params, &mut SeenW::default()).unwrap();
    assert_eq!(
        moderation::publisher_view(&four).unwrap().signed_portion(),
        three.signed_portion()
    );
    let mut added = countersigned(&k, &three, |_| {});
    added.extras = vec![element(2)];
    let got = moderation::receive(&added, &params, &mut SeenW::default());
    assert!(
        matches!(got, Err(ModerationError::BadSignature(_))),
        "{got:?}"
    );
    added.extras = vec![element(4)];
    moderation::receive(&added, &params, &mut SeenW::default()).unwrap();
}

/// MetaInfo is optional and carried as it is; a TIME must be RFC 3339; s and t range
/// over 0..=2^64-1; identities follow the NDN URI period rule (§2–4).
#[test]
fn content_lines_metainfo_sequence_numbers_and_periods() {
    let k = ibas_keys();
    let params = Verifier::Ibas(k.pkg.params());
    let mut bare = alices_three(b"no MetaInfo");
    bare.meta_info = None;
    let four = moderate(&k, &signed_three(&k.alice, bare)).unwrap();
    assert_eq!(four.meta_info, None);
    moderation::receive(&four, &params, &mut SeenW::default()).unwrap();

    for bad in ["yesterday", "2026-11-23 19:00:00", "2026-13-23T19:00:00Z"] {
        let three = moderation::publish(
            &n("/wonderland/Alice"),
            2,
            bad,
            b"x",
            Signer::Ibas(&k.alice, &mut Journal::memory()),
        )
        .unwrap();
        let refused = moderate(&k, &three);
        assert!(
            matches!(&refused, Err(ModerationError::Content(c)) if c.contains("RFC 3339")),
            "{bad}: {refused:?}"
        );
    }
    let three = moderation::publish(
        &n("/wonderland/Alice"),
        2,
        "2026-11-23T20:00:00.5+01:00",
        b"x",
        Signer::Ibas(&k.alice, &mut Journal::memory()),
    )
    .unwrap();
    moderate(&k, &three).unwrap();
    let four = countersigned(&k, &signed_three(&k.alice, alices_three(b"x")), |d| {
        let c = d.content.as_mut().unwrap();
        c.truncate(c.len() - T2.len());
        c.extend_from_slice(b"soon");
    });
    let got = moderation::receive(&four, &params, &mut SeenW::default());
    assert!(
        matches!(&got, Err(ModerationError::Content(c)) if c.contains("Accepted")),
        "{got:?}"
    );

    let max = u64::MAX;
    let m =
        moderation::Moderated::parse(&n(&format!("/m/G/safetyConfirmation/w/A/0/{max}"))).unwrap();
    assert_eq!((m.seq, m.mseq), (0, max));
    assert!(
        moderation::Moderated::parse(&n("/m/G/safetyConfirmation/w/A/0/18446744073709551616"))
            .is_err()
    );

    let dots = n("/wonderland/...");
    assert_eq!(dots.components()[1].value(), b"");
    let key = k.pkg.extract("/wonderland/...").unwrap();
    let three = moderation::publish(
        &dots,
        1,
        T1,
        b"x",
        Signer::Ibas(&key, &mut Journal::memory()),
    )
    .unwrap();
    let four = moderate(&k, &three).unwrap();
    assert_eq!(
        four.name.to_string(),
        "/moderators/Government/safetyConfirmation/wonderland/.../1/9"
    );
    let got = moderation::receive(&four, &params, &mut SeenW::default()).unwrap();
    assert_eq!(got.published.from, "/wonderland/...");
}

/// A (3) that comes again gets the (4) made of it, not a new one under another t
/// (which the journal would refuse as another message under the same w).
#[test]
fn the_moderator_serves_again_what_it_made_of_a_data() {
    let k = ibas_keys();
    let three = moderation::publish(
        &n("/wonderland/Alice"),
        2,
        T1,
        b"I am safe.",
        Signer::Ibas(&k.alice, &mut Journal::memory()),
    )
    .unwrap();
    let params = Verifier::Ibas(k.pkg.params());
    let mut journal = Journal::memory();
    let (mut made, mut mseq) = (moderation::Made::default(), 0);
    let mut answer = |three: &Data| {
        made.get_or_make(three, |three| {
            mseq += 1;
            moderation::moderate(
                three,
                &n("/moderators/Government"),
                mseq,
                T2,
                &params,
                Signer::Ibas(&k.gov, &mut journal),
            )
        })
    };
    let first = answer(&three).unwrap();
    assert_eq!(answer(&three).unwrap(), first);
    assert!(first.name.to_string().ends_with("/2/1"));
}

/// The replay memory in a file outlives the process that wrote it.
#[test]
fn the_replay_memory_is_kept_in_a_file() {
    let k = ibas_keys();
    let dir = std::env::temp_dir().join(format!("hopsig-seen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(hopsig_ndn::seen::FILE_NAME);
    let params = Verifier::Ibas(k.pkg.params());
    let three = signed_three(&k.alice, alices_three(b"first"));
    let four = countersigned(&k, &three, |_| {});
    moderation::receive(&four, &params, &mut SeenW::open(&path).unwrap()).unwrap();
    // The same (4) again, in another run: accepted.
    moderation::receive(&four, &params, &mut SeenW::open(&path).unwrap()).unwrap();
    // Another m_1 under the same w, in another run: refused.
    let w = *hopsig_ndn::ibas::aggregate(&three.signature_value, 1)
        .unwrap()
        .w();
    let mut other = alices_three(b"second");
    let agg = ibas::sign_with_w(
        &k.alice,
        &other.signed_portion(),
        &w,
        &mut Journal::memory(),
    )
    .unwrap();
    other.signature_value = hopsig_ndn::ibas::value(&agg);
    let four = countersigned(&k, &other, |_| {});
    let got = moderation::receive(&four, &params, &mut SeenW::open(&path).unwrap());
    assert!(
        matches!(got, Err(ModerationError::ReplayedW(..))),
        "{got:?}"
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("hopsig-ndn-seen-w: 1\n"), "{text}");
    assert_eq!(text.lines().count(), 2, "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}
