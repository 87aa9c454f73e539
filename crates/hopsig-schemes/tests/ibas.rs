//! Gentry–Ramzan IBAS (004 §2.3) on BLS12-381: round trips, the moderator flow,
//! rejections, the state-string rule and its reason, key files and journals.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::OnceLock;

use hopsig_schemes::ibas::{self, IbasAggregate, Identity, Journal, Pkg, UserKey};
use hopsig_schemes::primitives::armor::KeyFile;
use hopsig_schemes::primitives::pairing::{Scalar, G1, G2};
use hopsig_schemes::primitives::persist::NewLog;
use hopsig_schemes::{Aggregate, Error, StateError};

const ALICE: &str = "/friends/Alice";
const GOV: &str = "/moderators/Government";
const EVE: &str = "/friends/Eve";

struct World {
    pkg: Pkg,
    alice: UserKey,
    gov: UserKey,
    eve: UserKey,
}

fn world() -> &'static World {
    static W: OnceLock<World> = OnceLock::new();
    W.get_or_init(|| {
        let pkg = Pkg::setup().unwrap();
        World {
            alice: pkg.extract(ALICE).unwrap(),
            gov: pkg.extract(GOV).unwrap(),
            eve: pkg.extract(EVE).unwrap(),
            pkg,
        }
    })
}

fn m1() -> Vec<u8> {
    b"/friends/Alice/safetyConfirmation/2: I am safe at the shelter".to_vec()
}
fn m2() -> Vec<u8> {
    let mut m = m1();
    m.extend_from_slice(b" | accepted 2026-11-22T10:00Z by Government, rating 5");
    m
}

/// Alice publishes, the Government moderates: the paper's two-signer flow.
fn publish_and_moderate() -> IbasAggregate {
    let w = world();
    let a = ibas::sign(&w.alice, &m1(), None, &mut Journal::memory()).unwrap();
    ibas::sign(&w.gov, &m2(), Some(&a), &mut Journal::memory()).unwrap()
}

fn check(pairs: &[(&str, &[u8])], agg: &IbasAggregate) -> Result<(), Error> {
    let ids: Vec<Identity> = pairs
        .iter()
        .map(|(n, _)| Identity::new(n).unwrap())
        .collect();
    let list: Vec<(&Identity, &[u8])> = ids.iter().zip(pairs).map(|(i, (_, m))| (i, *m)).collect();
    ibas::verify(world().pkg.params(), &list, agg)
}

#[test]
fn publisher_and_moderator_round_trip_in_160_bytes() {
    let agg = publish_and_moderate();
    assert_eq!(agg.signers(), 2);
    assert_eq!(agg.signature_bits(), 8 * (16 + 144));
    let bytes = agg.to_bytes();
    assert_eq!(bytes.len(), 7 + 16 + 48 + 96);
    let back = IbasAggregate::from_bytes(&bytes).unwrap();
    check(&[(ALICE, &m1()), (GOV, &m2())], &back).unwrap();
    // Prepared identities (fixed-base tables) verify the same.
    let ids = [
        Identity::prepared(ALICE).unwrap(),
        Identity::prepared(GOV).unwrap(),
    ];
    let (a, b) = (m1(), m2());
    ibas::verify(world().pkg.params(), &[(&ids[0], &a), (&ids[1], &b)], &back).unwrap();
}

#[test]
fn size_is_constant_for_n_1_to_8() {
    let pkg = &world().pkg;
    let keys: Vec<UserKey> = (0..8)
        .map(|i| pkg.extract(&format!("/u/{i}")).unwrap())
        .collect();
    let msgs: Vec<Vec<u8>> = (0..8)
        .map(|i| format!("message {i}").into_bytes())
        .collect();
    let mut agg: Option<IbasAggregate> = None;
    for (n, (k, m)) in keys.iter().zip(&msgs).enumerate() {
        agg = Some(ibas::sign(k, m, agg.as_ref(), &mut Journal::memory()).unwrap());
        let a = agg.as_ref().unwrap();
        assert_eq!(a.to_bytes().len(), 7 + 160);
        let names: Vec<String> = (0..=n).map(|i| format!("/u/{i}")).collect();
        let pairs: Vec<(&str, &[u8])> = names
            .iter()
            .zip(&msgs)
            .map(|(s, m)| (s.as_str(), m.as_slice()))
            .collect();
        check(&pairs, a).unwrap();
    }
}

#[test]
fn rejects_wrong_identity_message_and_pairing() {
    let agg = publish_and_moderate();
    let (a, b) = (m1(), m2());
    let invalid = |r: Result<(), Error>| assert!(matches!(r, Err(Error::InvalidSignature)));
    invalid(check(&[(EVE, &a), (GOV, &b)], &agg));
    invalid(check(&[(ALICE, &a), (EVE, &b)], &agg));
    invalid(check(&[(ALICE, b"I am not safe"), (GOV, &b)], &agg));
    invalid(check(&[(ALICE, &a), (GOV, &a)], &agg));
    // Messages swapped between the two signers.
    invalid(check(&[(ALICE, &b), (GOV, &a)], &agg));
    // Wrong count, and one identity twice.
    invalid(check(&[(ALICE, &a)], &agg));
    invalid(check(&[(ALICE, &a), (ALICE, &a)], &agg));
    // The same identities under another PKG.
    let other = Pkg::setup().unwrap();
    let ids = [Identity::new(ALICE).unwrap(), Identity::new(GOV).unwrap()];
    invalid(ibas::verify(
        other.params(),
        &[(&ids[0], &a), (&ids[1], &b)],
        &agg,
    ));
    // The aggregate is a sum, so listing the (identity, message) pairs in the other
    // order verifies: IBAS authenticates who signed what, not the order.
    check(&[(GOV, &b), (ALICE, &a)], &agg).unwrap();
}

#[test]
fn reused_w_with_a_different_first_signer_does_not_pass_as_the_original() {
    let w = world();
    let real = publish_and_moderate();
    // Eve signs her own message under Alice's w and the moderator countersigns.
    let eve = ibas::sign_with_w(&w.eve, &m1(), real.w(), &mut Journal::memory()).unwrap();
    let forged = ibas::sign(&w.gov, &m2(), Some(&eve), &mut Journal::memory()).unwrap();
    assert_eq!(forged.w(), real.w());
    // It verifies as Eve's (she did sign), never as Alice's.
    check(&[(EVE, &m1()), (GOV, &m2())], &forged).unwrap();
    assert!(check(&[(ALICE, &m1()), (GOV, &m2())], &forged).is_err());
    // And Alice's real aggregate does not verify with Eve as first signer.
    assert!(check(&[(EVE, &m1()), (GOV, &m2())], &real).is_err());
}

#[test]
fn signing_twice_under_one_w_would_allow_forgery_so_the_journal_refuses() {
    let w = world();
    let state = [7u8; ibas::W_LEN];
    let msgs: [&[u8]; 3] = [b"message one", b"message two", b"never signed"];
    // Bypassing the rule (a fresh journal per call) yields two signatures under one w.
    let s1 = ibas::sign_with_w(&w.alice, msgs[0], &state, &mut Journal::memory()).unwrap();
    let s2 = ibas::sign_with_w(&w.alice, msgs[1], &state, &mut Journal::memory()).unwrap();
    // λ = (c* − c2)/(c1 − c2); S* = λS1 + (1−λ)S2 and T* likewise sign msgs[2].
    let c: Vec<Scalar> = msgs.iter().map(|m| ibas::h3(m, ALICE, &state)).collect();
    let lambda = c[2].sub(&c[1]).mul(&c[0].sub(&c[1]).invert());
    let mut one = [0u8; 32];
    one[31] = 1;
    let mu = Scalar::from_be_bytes(&one).unwrap().sub(&lambda);
    let b1 = s1.to_bytes();
    let b2 = s2.to_bytes();
    let s = |b: &[u8]| G1::from_compressed(&b[23..71].try_into().unwrap()).unwrap();
    let t = |b: &[u8]| G2::from_compressed(&b[71..167].try_into().unwrap()).unwrap();
    let s_star = s(&b1).mul(&lambda).add(&s(&b2).mul(&mu));
    let t_star = t(&b1).mul(&lambda).add(&t(&b2).mul(&mu));
    let mut forged = b1.clone();
    forged[23..71].copy_from_slice(&s_star.to_compressed());
    forged[71..167].copy_from_slice(&t_star.to_compressed());
    let forged = IbasAggregate::from_bytes(&forged).unwrap();
    check(&[(ALICE, msgs[2])], &forged).unwrap();
    // With one journal, the second signature under that w is refused.
    let mut journal = Journal::memory();
    ibas::sign_with_w(&w.alice, msgs[0], &state, &mut journal).unwrap();
    let e = ibas::sign_with_w(&w.alice, msgs[1], &state, &mut journal).unwrap_err();
    assert!(
        matches!(e, Error::State(StateError::ReusedW { w }) if w == state),
        "{e}"
    );
    // A moderator that keeps its journal refuses to countersign two messages under
    // the same incoming w.
    let a = ibas::sign(&w.alice, msgs[0], None, &mut Journal::memory()).unwrap();
    let mut gov_journal = Journal::memory();
    ibas::sign(&w.gov, b"first", Some(&a), &mut gov_journal).unwrap();
    assert!(ibas::sign(&w.gov, b"second", Some(&a), &mut gov_journal).is_err());
}

#[test]
fn first_signers_draw_fresh_w() {
    let w = world();
    let mut journal = Journal::memory();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..50 {
        let a = ibas::sign(&w.alice, b"m", None, &mut journal).unwrap();
        assert!(seen.insert(*a.w()));
    }
}

#[test]
fn aggregation_of_individual_signatures() {
    let w = world();
    let state = [9u8; ibas::W_LEN];
    let a = ibas::sign_with_w(&w.alice, &m1(), &state, &mut Journal::memory()).unwrap();
    let g = ibas::sign_with_w(&w.gov, &m2(), &state, &mut Journal::memory()).unwrap();
    let agg = ibas::aggregate(&[&a, &g]).unwrap();
    check(&[(ALICE, &m1()), (GOV, &m2())], &agg).unwrap();
    let other = ibas::sign(&w.eve, b"x", None, &mut Journal::memory()).unwrap();
    assert!(matches!(
        ibas::aggregate(&[&a, &other]),
        Err(Error::Mismatch(_))
    ));
    assert!(ibas::aggregate(&[]).is_err());
}

#[test]
fn decoder_rejects_tampered_and_invalid_points() {
    let agg = publish_and_moderate();
    let good = agg.to_bytes();
    let pairs: [(&str, &[u8]); 2] = [(ALICE, &m1()), (GOV, &m2())];
    // Tampered S (bytes 23..71) or T (71..167) or w (7..23).
    for at in [10, 30, 60, 80, 150] {
        let mut t = good.clone();
        t[at] ^= 0x04;
        match IbasAggregate::from_bytes(&t) {
            Err(Error::Decode(_)) => {}
            Ok(a) => assert!(matches!(check(&pairs, &a), Err(Error::InvalidSignature))),
            Err(e) => panic!("{e}"),
        }
    }
    // Identity S, identity T.
    let mut inf = good.clone();
    inf[23..71].fill(0);
    inf[23] = 0xc0;
    let e = IbasAggregate::from_bytes(&inf).unwrap_err().to_string();
    assert!(e.contains("S") && e.contains("infinity"), "{e}");
    let mut inf = good.clone();
    inf[71..167].fill(0);
    inf[71] = 0xc0;
    let e = IbasAggregate::from_bytes(&inf).unwrap_err().to_string();
    assert!(e.contains("T") && e.contains("infinity"), "{e}");
    // Off the curve or outside the subgroup: small x values give both kinds.
    let (mut off, mut outside) = (0, 0);
    for x in 1u8..30 {
        for (start, len) in [(23usize, 48usize), (71, 96)] {
            let mut p = good.clone();
            p[start..start + len].fill(0);
            p[start] = 0x80;
            p[start + len - 1] = x;
            let e = IbasAggregate::from_bytes(&p).unwrap_err().to_string();
            if e.contains("subgroup") {
                outside += 1;
            } else {
                assert!(e.contains("on the curve"), "{e}");
                off += 1;
            }
        }
    }
    assert!(off > 0 && outside > 0);
    // Framing.
    assert!(matches!(
        IbasAggregate::from_bytes(&good[..166]),
        Err(Error::Decode(_))
    ));
    let mut long = good.clone();
    long.push(0);
    assert!(matches!(
        IbasAggregate::from_bytes(&long),
        Err(Error::Decode(_))
    ));
    let mut param = good.clone();
    param[4] = 20;
    assert!(matches!(
        IbasAggregate::from_bytes(&param),
        Err(Error::Decode(_))
    ));
    let mut other = good;
    other[3] = 0x20;
    assert!(matches!(
        IbasAggregate::from_bytes(&other),
        Err(Error::AggregateForOtherScheme { expected, found })
            if expected == "ibas-bls12381" && found == "scheme code 0x20 with parameter 16"
    ));
}

#[test]
fn key_files_round_trip_and_are_checked() {
    let w = world();
    let pkg_file = w.pkg.to_key_file();
    let pkg = Pkg::from_key_file(&KeyFile::parse(pkg_file.as_bytes()).unwrap()).unwrap();
    assert_eq!(pkg.params(), w.pkg.params());
    let params_file = w.pkg.params().to_key_file();
    let params = hopsig_schemes::ibas::PublicParams::from_key_file(
        &KeyFile::parse(params_file.as_bytes()).unwrap(),
    )
    .unwrap();
    assert_eq!(&params, w.pkg.params());
    let user_file = w.alice.to_key_file();
    let alice = UserKey::from_key_file(&KeyFile::parse(user_file.as_bytes()).unwrap()).unwrap();
    assert_eq!(alice.identity(), ALICE);
    // A key whose identity was edited fails the pairing check.
    let edited = user_file.replace(
        hopsig_schemes::primitives::rsa::pem_block("HOPSIG IBAS IDENTITY", ALICE.as_bytes())
            .as_str(),
        &hopsig_schemes::primitives::rsa::pem_block("HOPSIG IBAS IDENTITY", EVE.as_bytes()),
    );
    assert_ne!(edited, *user_file);
    let e = UserKey::from_key_file(&KeyFile::parse(edited.as_bytes()).unwrap()).unwrap_err();
    assert!(e.to_string().contains("does not belong"), "{e}");
    // A PKG file whose Q belongs to another master secret.
    let other = Pkg::setup().unwrap();
    let mixed = pkg_file.replace(
        hopsig_schemes::primitives::rsa::pem_block(
            "HOPSIG IBAS PARAMS",
            &w.pkg.params().to_bytes(),
        )
        .as_str(),
        &hopsig_schemes::primitives::rsa::pem_block(
            "HOPSIG IBAS PARAMS",
            &other.params().to_bytes(),
        ),
    );
    assert!(Pkg::from_key_file(&KeyFile::parse(mixed.as_bytes()).unwrap()).is_err());
    // Wrong kinds: parameters are not a user key, a user key is not a PKG.
    assert!(UserKey::from_key_file(&KeyFile::parse(params_file.as_bytes()).unwrap()).is_err());
    assert!(Pkg::from_key_file(&KeyFile::parse(user_file.as_bytes()).unwrap()).is_err());
    // Identities: empty and oversized ones are refused.
    assert!(w.pkg.extract("").is_err());
    assert!(Identity::new(&"x".repeat(1025)).is_err());
}

#[test]
fn file_journal_persists_and_rejects_garbage() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("alice.wlog");
    let alice = &world().alice;
    let state = [3u8; ibas::W_LEN];
    {
        let mut j = Journal::open(&path, alice, NewLog::Allowed).unwrap();
        assert!(j.is_empty());
        j.claim(alice, &state, b"one").unwrap();
    }
    let mut j = Journal::open(&path, alice, NewLog::Allowed).unwrap();
    assert_eq!(j.len(), 1);
    assert!(matches!(
        j.claim(alice, &state, b"two"),
        Err(Error::State(StateError::ReusedW { w })) if w == state
    ));
    j.claim(alice, &[4u8; ibas::W_LEN], b"two").unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{text}not hex\n")).unwrap();
    let e = Journal::open(&path, alice, NewLog::Allowed)
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 4"), "{e}");
}

/// Whoever saw Alice's aggregate and the moderator's countersignature of m2 under its w
/// knows the moderator's share (their difference). An incoming aggregate carrying its
/// negation decodes, and the moderator, asked to countersign m2 under that w again (the
/// journal allows a repeat of the same message), would output S = T = ∞, which no
/// aggregate may hold: it refuses instead of writing bytes that do not decode.
#[test]
fn an_incoming_aggregate_that_cancels_the_share_is_refused() {
    let w = world();
    let mut gov_journal = Journal::memory();
    let a = ibas::sign(&w.alice, &m1(), None, &mut Journal::memory()).unwrap();
    let b = ibas::sign(&w.gov, &m2(), Some(&a), &mut gov_journal).unwrap();
    let (a_bytes, b_bytes) = (a.to_bytes(), b.to_bytes());
    let g1 = |v: &[u8]| G1::from_compressed(v[23..71].try_into().unwrap()).unwrap();
    let g2 = |v: &[u8]| G2::from_compressed(v[71..167].try_into().unwrap()).unwrap();
    // −share = a − b.
    let mut hostile = a_bytes.clone();
    hostile[23..71].copy_from_slice(&g1(&a_bytes).add(&g1(&b_bytes).neg()).to_compressed());
    hostile[71..167].copy_from_slice(&g2(&a_bytes).add(&g2(&b_bytes).neg()).to_compressed());
    let hostile = IbasAggregate::from_bytes(&hostile).unwrap();
    let err = ibas::sign(&w.gov, &m2(), Some(&hostile), &mut gov_journal).unwrap_err();
    assert!(
        matches!(&err, Error::Mismatch(m) if m.contains("point at infinity")),
        "{err}"
    );
    // The same repeat on the honest aggregate still gives the same bytes.
    let again = ibas::sign(&w.gov, &m2(), Some(&a), &mut gov_journal).unwrap();
    assert_eq!(again.to_bytes(), b_bytes);
}
