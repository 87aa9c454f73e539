//! KC-x (KC-RSA, KC-MT, hybrid): chains of 1..20 hops, rejections, the Σ limit across a
//! restart, and the wire format.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hopsig_schemes::kcx::{
    self, forward, issue, verify, Handover, HopSig, Issue, KcParams, Primary, ReceivedKey,
    SignedRoute, StaticDirectory,
};
use hopsig_schemes::primitives::hors::Counter;
use hopsig_schemes::{Error, StateError};
use proptest::prelude::*;

const NOW: u64 = 1_800_000_000;
const EXPIRES: u64 = NOW + 86_400;

use hopsig_schemes::kcx::sim::{self, asn, Variant, RECEIVER};

struct Chain {
    route: SignedRoute,
    dir: StaticDirectory,
    last: Handover,
}

/// A path of `hops` speakers, origin first, each verifying and forwarding to the next.
fn chain(params: KcParams, v: Variant, hops: usize) -> Chain {
    let p = sim::path(params, v, hops, NOW, EXPIRES).unwrap();
    Chain {
        route: p.route,
        dir: p.dir,
        last: p.last,
    }
}

fn invalid(route: &SignedRoute, dir: &StaticDirectory) -> bool {
    matches!(
        verify(route, dir, Some(RECEIVER), NOW),
        Err(Error::InvalidSignature)
    )
}

#[test]
fn chains_of_1_to_20_hops_verify_for_every_variant() {
    for v in [Variant::Rsa, Variant::Mt, Variant::Hybrid] {
        for hops in 1..=20 {
            let c = chain(KcParams::PAPER, v, hops);
            assert_eq!(c.route.hops.len(), hops);
            verify(&c.route, &c.dir, Some(RECEIVER), NOW).unwrap();
            let bytes = kcx::encode(&c.route).unwrap();
            let back = kcx::decode(&bytes).unwrap();
            assert_eq!(back, c.route);
            verify(&back, &c.dir, Some(RECEIVER), NOW).unwrap();
            // KC-RSA's aggregate does not grow: x is k bytes plus one bit per hop.
            if v == Variant::Rsa {
                assert_eq!(c.route.x.len(), 128);
                assert_eq!(c.route.b.len(), hops);
            }
        }
    }
}

#[test]
fn modern_parameters_work_too() {
    for v in [Variant::Rsa, Variant::Mt, Variant::Hybrid] {
        let c = chain(KcParams::MODERN, v, 4);
        verify(&c.route, &c.dir, Some(RECEIVER), NOW).unwrap();
        assert_eq!(
            kcx::decode(&kcx::encode(&c.route).unwrap()).unwrap(),
            c.route
        );
    }
}

#[test]
fn rejects_changed_removed_inserted_and_truncated_hops() {
    for v in [Variant::Rsa, Variant::Mt, Variant::Hybrid] {
        let c = chain(KcParams::PAPER, v, 6);
        // These changes are caught by the neighbour-list and V checks already;
        // `signatures_alone_reject_structurally_sound_changes` makes the same changes
        // consistently, so that only the signatures can catch them.
        let mut changed = c.route.clone();
        changed.hops[3].asn = 64_666;
        let mut dir = c_dir(&c);
        dir.set_neighbours(64_666, vec![asn(2), asn(4)]);
        dir.set_neighbours(asn(2), vec![asn(1), 64_666, asn(3)]);
        assert!(invalid(&changed, &dir), "{v:?} changed AS");

        let mut removed = c.route.clone();
        removed.hops.remove(3);
        assert!(invalid(&removed, &c.dir), "{v:?} removed hop");

        let mut inserted = c.route.clone();
        let copy = inserted.hops[2].clone();
        inserted.hops.insert(3, copy);
        assert!(invalid(&inserted, &c.dir), "{v:?} inserted hop");

        let mut truncated = c.route.clone();
        truncated.hops.pop();
        assert!(invalid(&truncated, &c.dir), "{v:?} truncated");

        let mut origin_swapped = c.route.clone();
        origin_swapped.prefix = b"203.0.113.0/24".to_vec();
        assert!(invalid(&origin_swapped, &c.dir), "{v:?} other prefix");
    }
}

/// The neighbour list of speaker `i` of `ases` (origin first), as `sim` lays them out:
/// predecessor, one bystander, successor (`receiver` after the last speaker).
fn neighbours_of(ases: &[u32], i: usize, receiver: u32) -> Vec<u32> {
    let next = ases.get(i + 1).copied().unwrap_or(receiver);
    let mut list = vec![64_000 + i as u32, next];
    if i > 0 {
        list.insert(0, ases[i - 1]);
    }
    list
}

/// What a verifier trusts for a path over `ases`: the origin's key and every list.
fn directory_of(
    origin: &hopsig_schemes::primitives::rsa::RsaPublicKey,
    ases: &[u32],
    receiver: u32,
) -> StaticDirectory {
    let mut d = StaticDirectory::default();
    d.set_key(ases[0], origin.clone());
    for i in 0..ases.len() {
        d.set_neighbours(ases[i], neighbours_of(ases, i, receiver));
    }
    d.set_neighbours(receiver, vec![*ases.last().unwrap()]);
    d
}

/// The route over `ases` signed honestly hop by hop, hop i ≥ 1 with `kinds[i − 1]` and
/// the key its predecessor issued (`issued` kinds, fresh at every hop).
fn honest_route(
    params: KcParams,
    issued: Issue,
    kinds: &[Primary],
    origin: &hopsig_schemes::primitives::rsa::RsaSecretKey,
    ases: &[u32],
    receiver: u32,
) -> SignedRoute {
    let next = |i: usize| ases.get(i + 1).copied().unwrap_or(receiver);
    let (public, mut handover) = issue(&params, issued).unwrap();
    let mut route = kcx::originate(
        params,
        origin,
        ases[0],
        &neighbours_of(ases, 0, receiver),
        &[next(0)],
        b"198.51.100.0/24",
        EXPIRES,
        &public,
    )
    .unwrap();
    for i in 1..ases.len() {
        let mut received = ReceivedKey::new(params, handover);
        let (public, h) = issue(&params, issued).unwrap();
        route = forward(
            &route,
            &mut received,
            kinds[i - 1],
            ases[i],
            &neighbours_of(ases, i, receiver),
            &[next(i)],
            EXPIRES,
            &public,
        )
        .unwrap();
        handover = h;
    }
    route
}

/// Everything the structural checks of verification (kcx.md "Verification" steps 1
/// and 2) and the key-size check read: the prefix; each hop's AS, V, expiry, kind and
/// which attestation keys of which size it offers; x's length and top bit; the number of
/// SPLIT bits. No signature, aggregate or key value.
#[allow(clippy::type_complexity)]
fn structure(
    r: &SignedRoute,
) -> (
    Vec<u8>,
    Vec<(u32, Vec<u8>, u64, u8, Option<u32>, bool)>,
    usize,
    bool,
    usize,
) {
    let hops = r
        .hops
        .iter()
        .map(|h| {
            let kind = match h.sig {
                HopSig::Origin => 0,
                HopSig::Rsa => 1,
                HopSig::Mt(_) => 2,
            };
            let rsa_bits = h.key.rsa.as_ref().map(|k| k.modulus_bits());
            (
                h.asn,
                h.v.clone(),
                h.expires,
                kind,
                rsa_bits,
                h.key.mt.is_some(),
            )
        })
        .collect();
    (
        r.prefix.clone(),
        hops,
        r.x.len(),
        r.x[0] & 0x80 == 0,
        r.b.len(),
    )
}

/// Index into `b` of hop `i`'s SPLIT bit (hops of kind 0 and 1 carry one, in order).
fn bit_index(r: &SignedRoute, i: usize) -> usize {
    r.hops[..i]
        .iter()
        .filter(|h| !matches!(h.sig, HopSig::Mt(_)))
        .count()
}

/// The KC-x test's promise: a changed, removed, inserted or truncated hop, or a hop
/// signed with a key its predecessor did not issue, each made *consistently* — every
/// neighbour list and V agrees with the path — is caught by the signatures alone. Each
/// tampered route is checked to have the same structure as an honest route over the
/// same path (which verifies under the same directory), so only a signature or the
/// aggregate can reject it.
#[test]
fn signatures_alone_reject_structurally_sound_changes() {
    let params = KcParams::PAPER;
    let origin = hopsig_schemes::primitives::rsa::RsaSecretKey::generate(params.rsa_bits).unwrap();
    let ases: Vec<u32> = (0..6).map(asn).collect();
    for v in [Variant::Rsa, Variant::Mt, Variant::Hybrid] {
        let (issued, kind): (Issue, fn(usize) -> Primary) = match v {
            Variant::Rsa => (Issue::Rsa, |_: usize| Primary::Rsa),
            Variant::Mt => (Issue::Mt, |_: usize| Primary::Mt),
            Variant::Hybrid => (Issue::Both, |i: usize| {
                if i % 2 == 1 {
                    Primary::Rsa
                } else {
                    Primary::Mt
                }
            }),
        };
        let kinds: Vec<Primary> = (1..8).map(kind).collect();
        let route = honest_route(params, issued, &kinds, &origin, &ases, RECEIVER);
        let only_signatures_fail = |what: &str,
                                    tampered: &SignedRoute,
                                    path: &[u32],
                                    path_kinds: &[Primary],
                                    receiver: u32| {
            let control = honest_route(params, issued, path_kinds, &origin, path, receiver);
            let dir = directory_of(origin.public(), path, receiver);
            verify(&control, &dir, Some(receiver), NOW).unwrap();
            assert_eq!(structure(tampered), structure(&control), "{v:?} {what}");
            assert!(
                matches!(
                    verify(tampered, &dir, Some(receiver), NOW),
                    Err(Error::InvalidSignature)
                ),
                "{v:?} {what}"
            );
        };

        // AS3 replaced by AS64666, which the PKI lists as AS2's successor.
        let mut path = ases.clone();
        path[3] = 64_666;
        let mut changed = route.clone();
        changed.hops[3].asn = 64_666;
        only_signatures_fail("changed AS", &changed, &path, &kinds, RECEIVER);

        // AS3 removed; the PKI lists AS4 as AS2's successor.
        let path = [&ases[..3], &ases[4..]].concat();
        let mut removed = route.clone();
        if !matches!(removed.hops[3].sig, HopSig::Mt(_)) {
            removed.b.remove(bit_index(&route, 3));
        }
        removed.hops.remove(3);
        let removed_kinds = [&kinds[..2], &kinds[3..]].concat();
        only_signatures_fail("removed hop", &removed, &path, &removed_kinds, RECEIVER);

        // AS64777 inserted after AS2 with an RA it signed itself, not with AS2's key.
        let path = [&ases[..3], &[64_777], &ases[3..]].concat();
        let inserted_kinds = [&kinds[..2], &[kinds[2]], &kinds[2..]].concat();
        let stranger = honest_route(params, issued, &inserted_kinds, &origin, &path, RECEIVER);
        let mut inserted = route.clone();
        if !matches!(stranger.hops[3].sig, HopSig::Mt(_)) {
            inserted.b.insert(bit_index(&route, 3), false);
        }
        inserted.hops.insert(3, stranger.hops[3].clone());
        only_signatures_fail("inserted hop", &inserted, &path, &inserted_kinds, RECEIVER);

        // The last hop (AS5) signed with a key AS4 never issued.
        let prefix = honest_route(params, issued, &kinds, &origin, &ases[..5], ases[5]);
        let (public, _) = issue(&params, issued).unwrap();
        let (_, foreign) = issue(&params, issued).unwrap();
        let wrong_key = forward(
            &prefix,
            &mut ReceivedKey::new(params, foreign),
            kinds[4],
            ases[5],
            &neighbours_of(&ases, 5, RECEIVER),
            &[RECEIVER],
            EXPIRES,
            &public,
        )
        .unwrap();
        only_signatures_fail("wrong attestation key", &wrong_key, &ases, &kinds, RECEIVER);

        // Truncated for AS5's successor by dropping the last RSA hop without unwinding
        // x. (Dropping a last KC-MT hop leaves exactly the route AS4 sent AS5, which is
        // valid for AS5: only the receiver check stops it, as tested above.)
        if !matches!(route.hops[5].sig, HopSig::Mt(_)) {
            let mut truncated = route.clone();
            truncated.hops.pop();
            truncated.b.pop();
            only_signatures_fail("truncated", &truncated, &ases[..5], &kinds, ases[5]);
        }
    }
}

/// A copy of the chain's directory, to be changed by a test.
fn c_dir(c: &Chain) -> StaticDirectory {
    use hopsig_schemes::kcx::Directory;
    let mut d = StaticDirectory::default();
    for h in &c.route.hops {
        if let Some(l) = c.dir.neighbours(h.asn) {
            d.set_neighbours(h.asn, l.to_vec());
        }
    }
    d.set_key(asn(0), c.dir.origin_key(asn(0)).unwrap().clone());
    d
}

#[test]
fn rejects_expiry_and_neighbour_violations() {
    let c = chain(KcParams::PAPER, Variant::Hybrid, 5);
    // Expired: the verifier's clock is past the expiry.
    assert!(matches!(
        verify(&c.route, &c.dir, Some(RECEIVER), EXPIRES + 1),
        Err(Error::InvalidSignature)
    ));
    // A receiver that the last speaker did not mark in V.
    assert!(matches!(
        verify(&c.route, &c.dir, Some(64_999), NOW),
        Err(Error::InvalidSignature)
    ));
    // A neighbour list (from the PKI) in which AS2's successor is not authorized.
    let mut dir = c_dir(&c);
    dir.set_neighbours(asn(2), vec![asn(1), 64_002, 64_777]);
    assert!(matches!(
        verify(&c.route, &dir, Some(RECEIVER), NOW),
        Err(Error::InvalidSignature)
    ));
    // A next hop that is not a neighbour cannot even be signed for.
    let (public, _) = issue(&KcParams::PAPER, Issue::Rsa).unwrap();
    let mut key = ReceivedKey::new(KcParams::PAPER, c.last);
    let e = forward(
        &c.route,
        &mut key,
        Primary::Rsa,
        RECEIVER,
        &[asn(4)],
        &[1],
        EXPIRES,
        &public,
    );
    assert!(e.is_err());
}

#[test]
fn tampered_hors_leaf_or_path_node_is_rejected() {
    let c = chain(KcParams::PAPER, Variant::Mt, 4);
    let HopSig::Mt(sig) = &c.route.hops[2].sig else {
        panic!("hop 2 is KC-MT");
    };
    for at in [0, 20, sig.len() - 1] {
        let mut t = c.route.clone();
        if let HopSig::Mt(s) = &mut t.hops[2].sig {
            s[at] ^= 0x01;
        }
        assert!(invalid(&t, &c.dir), "byte {at}");
    }
    // An RSA aggregate bit or byte flipped.
    let r = chain(KcParams::PAPER, Variant::Rsa, 4);
    let mut t = r.route.clone();
    t.x[100] ^= 1;
    assert!(invalid(&t, &r.dir));
    let mut t = r.route.clone();
    t.b[1] = !t.b[1];
    assert!(invalid(&t, &r.dir));
}

#[test]
fn hors_key_stops_at_sigma_even_across_a_restart() {
    let params = KcParams::PAPER;
    let c = chain(params, Variant::Mt, 2);
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("t1.count");
    let (public, _) = issue(&params, Issue::Mt).unwrap();
    // The router keeps the received hand-over and the key's counter on disk.
    let kept = c.last.to_bytes().unwrap();
    let mut key = ReceivedKey::with_counter(
        params,
        Handover::from_bytes(&kept).unwrap(),
        Counter::persistent(&state, params.hors.sigma).unwrap(),
    );
    let sign = |key: &mut ReceivedKey| {
        forward(
            &c.route,
            key,
            Primary::Mt,
            RECEIVER,
            &[asn(1), 1],
            &[1],
            EXPIRES,
            &public,
        )
    };
    for _ in 0..10 {
        sign(&mut key).unwrap();
    }
    assert!(key.tree_cached());
    drop(key);
    let mut dir2 = c_dir(&c);
    dir2.set_neighbours(RECEIVER, vec![asn(1), 1]);
    // The restarted signer (same key, same state file) has 3 signatures left, not 13.
    let mut key = ReceivedKey::with_counter(
        params,
        Handover::from_bytes(&kept).unwrap(),
        Counter::persistent(&state, params.hors.sigma).unwrap(),
    );
    assert_eq!(key.mt_used(), 10);
    for _ in 0..3 {
        let r = sign(&mut key).unwrap();
        verify(&r, &dir2, Some(1), NOW).unwrap();
    }
    let e = sign(&mut key).unwrap_err();
    assert!(
        matches!(e, Error::State(StateError::Exhausted { sigma }) if sigma == params.hors.sigma),
        "{e}"
    );
    assert!(e.to_string().contains("exhausted"));
}

#[test]
fn a_speaker_may_use_only_the_kind_it_was_issued() {
    let c = chain(KcParams::PAPER, Variant::Rsa, 2);
    let (public, _) = issue(&KcParams::PAPER, Issue::Rsa).unwrap();
    let mut key = ReceivedKey::new(KcParams::PAPER, c.last);
    let e = forward(
        &c.route,
        &mut key,
        Primary::Mt,
        RECEIVER,
        &[asn(1), 1],
        &[1],
        EXPIRES,
        &public,
    );
    assert!(matches!(e, Err(Error::Key(_))));
    // Switching an RSA hop's declared kind to KC-MT breaks it.
    let mut t = c.route.clone();
    t.hops[1].sig = HopSig::Mt(vec![0; 16]);
    assert!(invalid(&t, &c.dir));
}

/// RA_i's signed content carries one-byte lengths. A prefix or bit vector longer than
/// 255 bytes used to be cast to `u8` and signed with the wrong length (ambiguous bytes);
/// now nothing over the format's limits is signed at all.
#[test]
fn fields_over_the_format_limits_are_refused_before_signing() {
    let params = KcParams::PAPER;
    let key = hopsig_schemes::primitives::rsa::RsaSecretKey::generate(params.rsa_bits).unwrap();
    let (public, _) = issue(&params, Issue::Rsa).unwrap();
    let origin = |neighbours: &[u32], prefix: &[u8]| {
        kcx::originate(params, &key, 1, neighbours, &[2], prefix, EXPIRES, &public)
    };
    assert!(origin(&[2], b"198.51.100.0/24").is_ok());
    assert!(origin(&[2], &[b'p'; 64]).is_ok());
    assert!(origin(&[2], &[b'p'; 65]).is_err());
    assert!(origin(&[2], &[b'p'; 256]).is_err());
    // A neighbour list of 2048 ASes needs a 256-byte V.
    let many: Vec<u32> = (2..2050).collect();
    assert!(origin(&many[..2040], b"p").is_ok());
    assert!(origin(&many, b"p").is_err());
    assert!(matches!(
        origin(&many, b"p"),
        Err(Error::Encode(e)) if e.to_string().contains("bit vector")
    ));
}

#[test]
fn decoder_names_the_field() {
    let c = chain(KcParams::PAPER, Variant::Hybrid, 3);
    let bytes = kcx::encode(&c.route).unwrap();
    let err = |b: &[u8]| kcx::decode(b).unwrap_err().to_string();
    assert!(err(&bytes[..1]).contains("magic"));
    assert!(
        err(&bytes[..bytes.len() - 2]).contains("aggregate x")
            || err(&bytes[..bytes.len() - 2]).contains("SPLIT")
    );
    let mut long = bytes.clone();
    long.push(0);
    assert!(err(&long).contains("trailing") || err(&long).contains("path authenticator"));
    let mut suite = bytes.clone();
    suite[3] = 9;
    assert!(err(&suite).contains("suite"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_and_mutated_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600), pos in 0usize..2000, val in any::<u8>()) {
        let _ = kcx::decode(&bytes);
        static GOOD: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        let good = GOOD.get_or_init(|| kcx::encode(&chain(KcParams::PAPER, Variant::Hybrid, 3).route).unwrap());
        let mut m = good.clone();
        let p = pos % m.len();
        m[p] = val;
        match kcx::decode(&m) {
            Ok(r) => prop_assert_eq!(kcx::encode(&r).unwrap(), m),
            Err(Error::Decode(_)) => {}
            Err(e) => prop_assert!(false, "unexpected {e}"),
        }
    }
}

/// BGR App. A's attack needs a victim who signs, under a key the adversary does not
/// hold, an aggregate the adversary chose. In KC-RSA the only party that hands R_i
/// aggregates to sign with t_{i−1}⁻ is R_{i−1}, which generated t_{i−1}⁻ itself: lazy
/// signing gives it nothing it does not already have. What it shows instead is the
/// trust KC-x places in key holders: (1) a speaker that signs without verifying passes
/// a broken chain on, and only verification downstream catches it; (2) every holder of
/// t_{i−1}⁻ — the predecessor, and each neighbour it marked in V and handed the same
/// key — can sign RA_i in the name of any other marked neighbour.
#[test]
fn lazy_signing_and_shared_attestation_keys() {
    let params = KcParams::PAPER;
    let c = chain(params, Variant::Rsa, 3);
    let kept = c.last.to_bytes().unwrap();
    // The last speaker (AS2) marked only RECEIVER; say it had marked RECEIVER and a
    // second neighbour 64_002 (its bystander), handing both the same t_2⁻.
    let (public, _) = issue(&params, Issue::Rsa).unwrap();
    let mut dir = c_dir(&c);
    dir.set_neighbours(RECEIVER, vec![asn(2), 7]);
    dir.set_neighbours(64_002, vec![asn(2), 8]);

    // (1) Lazy signing over a corrupted aggregate: the output does not verify.
    let mut corrupted = c.route.clone();
    corrupted.x[5] ^= 0x40;
    let mut honest = ReceivedKey::new(params, Handover::from_bytes(&kept).unwrap());
    let out = forward(
        &corrupted,
        &mut honest,
        Primary::Rsa,
        RECEIVER,
        &[asn(2), 7],
        &[7],
        EXPIRES,
        &public,
    )
    .unwrap();
    assert!(matches!(
        verify(&out, &dir, Some(7), NOW),
        Err(Error::InvalidSignature)
    ));

    // (2) The co-recipient 64_002 holds the same t_2⁻ and signs an RA in RECEIVER's
    // name, with a bit vector and attestation key of its own choosing: it verifies.
    let mut co_recipient = ReceivedKey::new(params, Handover::from_bytes(&kept).unwrap());
    let forged = forward(
        &c.route,
        &mut co_recipient,
        Primary::Rsa,
        RECEIVER,
        &[asn(2), 7],
        &[7],
        EXPIRES,
        &public,
    )
    .unwrap();
    verify(&forged, &dir, Some(7), NOW).unwrap();
}
