//! 004's moderator-controlled sharing end to end in memory (the forwarder path is in
//! the CLI tests): Alice publishes, Government moderates, Bob verifies, with IBAS,
//! RSA-2048 and ECDSA P-256; and every failure case of issue 14 §2 is refused with
//! its reason.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;

use hopsig_ndn::mis::{self, MisError, SeenW, Signer, Verifier};
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
        mis::subscriber_interest(&gov, &alice).to_string(),
        "/moderators/Government/safetyConfirmation/wonderland/Alice"
    );
    assert_eq!(
        mis::moderator_interest(&alice).to_string(),
        "/wonderland/Alice/safetyConfirmation"
    );
    assert_eq!(
        mis::publisher_name(&alice, 2).to_string(),
        "/wonderland/Alice/safetyConfirmation/2"
    );
    let four = mis::moderator_name(&gov, &alice, 2, 9);
    assert_eq!(
        four.to_string(),
        "/moderators/Government/safetyConfirmation/wonderland/Alice/2/9"
    );
    let m = mis::Moderated::parse(&four).unwrap();
    assert_eq!(
        (m.moderator, m.publisher, m.seq, m.mseq),
        (gov, alice, 2, 9)
    );
    for bad in [
        "/moderators/Government/other/wonderland/Alice/2/9",
        "/a/b/safetyConfirmation/c/d/02/9",
        "/a/b/safetyConfirmation/c/d/2",
    ] {
        assert!(mis::Moderated::parse(&n(bad)).is_err(), "{bad}");
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
    let three = mis::publish(&alice, 2, T1, message, Signer::Ibas(&k.alice, &mut aj)).unwrap();
    let mut gj = Journal::memory();
    let v = Verifier::Ibas(k.pkg.params());
    let four = mis::moderate(&three, &gov, 9, T2, &v, Signer::Ibas(&k.gov, &mut gj)).unwrap();
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
    let got = mis::receive(
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
        mis::publisher_view(&four).unwrap().signed_portion(),
        three.signed_portion()
    );
}

#[test]
fn ibas_failures_are_refused_with_their_reason() {
    let k = ibas_keys();
    let (three, four) = ibas_flow(&k, b"I am safe.");
    let params = Verifier::Ibas(k.pkg.params());
    let bob = |d: &Data| mis::receive(d, &params, &mut SeenW::default());

    // Tampered content.
    let mut t = four.clone();
    let c = t.content.as_mut().unwrap();
    let at = c.len() / 2;
    c[at] ^= 1;
    assert!(
        matches!(
            bob(&t),
            Err(MisError::BadSignature(_) | MisError::Content(_))
        ),
        "{:?}",
        bob(&t)
    );
    let mut t = four.clone();
    t.content.as_mut().unwrap()[40] ^= 1;
    assert!(
        matches!(bob(&t), Err(MisError::BadSignature(_))),
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
        matches!(bob(&t), Err(MisError::Mismatch(_))),
        "{:?}",
        bob(&t)
    );
    t.name = mis::moderator_name(&n("/moderators/Other"), &n("/wonderland/Alice"), 2, 9);
    assert!(
        matches!(bob(&t), Err(MisError::BadSignature(_))),
        "{:?}",
        bob(&t)
    );
    // Someone else's key in Alice's name (IBAS has no unknown identity: a key of
    // another identity is a signature that does not verify).
    let mallory = k.pkg.extract("/wonderland/Mallory").unwrap();
    let forged = mis::publish(
        &n("/wonderland/Alice"),
        3,
        T1,
        b"help",
        Signer::Ibas(&mallory, &mut Journal::memory()),
    )
    .unwrap();
    let mut gj = Journal::memory();
    assert!(matches!(
        mis::moderate(
            &forged,
            &n("/moderators/Government"),
            10,
            T2,
            &params,
            Signer::Ibas(&k.gov, &mut gj)
        ),
        Err(MisError::BadSignature(_))
    ));
    // The moderator never relays what it could not verify: tampered (3).
    let mut t = three.clone();
    t.content.as_mut().unwrap()[30] ^= 1;
    assert!(mis::moderate(
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
    let first = mis::moderate(
        &three,
        &n("/moderators/Government"),
        9,
        T2,
        &params,
        Signer::Ibas(&k.gov, &mut gj),
    )
    .unwrap();
    let mut second = Data::new(
        mis::publisher_name(&alice, 3),
        mis::publisher_content(&alice, T1, b"other"),
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
        mis::moderate(
            &second,
            &n("/moderators/Government"),
            10,
            T2,
            &params,
            Signer::Ibas(&k.gov, &mut gj)
        ),
        Err(MisError::ReplayedW(..))
    ));
    // ...and a subscriber that sees both (from two moderators' journals) refuses the second.
    let other = mis::moderate(
        &second,
        &n("/moderators/Government"),
        10,
        T2,
        &params,
        Signer::Ibas(&k.gov, &mut Journal::memory()),
    )
    .unwrap();
    let mut seen = SeenW::default();
    mis::receive(&first, &params, &mut seen).unwrap();
    assert!(matches!(
        mis::receive(&other, &params, &mut seen),
        Err(MisError::ReplayedW(..))
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
        let three = mis::publish(&alice, 2, T1, b"I am safe.", Signer::Classic(&a)).unwrap();
        let four = mis::moderate(&three, &gov, 9, T2, &v, Signer::Classic(&g)).unwrap();
        assert!(four.content.as_ref().unwrap().starts_with(&three.encode()));
        let four = Data::decode(&four.encode()).unwrap();
        let got = mis::receive(&four, &v, &mut SeenW::default()).unwrap();
        assert_eq!(got.published.message, b"I am safe.", "{kind}");
        // Tampered inner message: Alice's signature fails.
        let mut t = four.clone();
        let at = three.encode().len() - 80;
        t.content.as_mut().unwrap()[at] ^= 1;
        assert!(
            mis::receive(&t, &v, &mut SeenW::default()).is_err(),
            "{kind}"
        );
        // Unknown identity: Bob has no key for the publisher.
        let only_gov = keys
            .iter()
            .filter(|(k, _)| **k == gov)
            .map(|(k, _)| (k.clone(), g.verifying_key().unwrap()))
            .collect::<HashMap<_, _>>();
        assert!(
            matches!(mis::receive(&four, &Verifier::Classic(&only_gov), &mut SeenW::default()), Err(MisError::UnknownIdentity(id)) if id == "/wonderland/Alice")
        );
    }
}

#[test]
fn the_pkg_parameters_travel_as_a_data_packet() {
    let k = ibas_keys();
    let d = mis::params_data(&n("/moderators/PKG"), k.pkg.params()).unwrap();
    let d = Data::decode(&d.encode()).unwrap();
    assert_eq!(d.name.to_string(), "/moderators/PKG/params");
    let params = mis::params_from_data(&d).unwrap();
    assert_eq!(params.to_bytes(), k.pkg.params().to_bytes());
    let mut bad = d.clone();
    bad.content.as_mut().unwrap()[5] ^= 1;
    assert!(mis::params_from_data(&bad).is_err());
}
