//! hopsig's face against a real forwarder, ndnd v1.5.3 (tools/ndnd, built by
//! .ci/run): a producer registers a prefix over the Unix socket, a consumer on the
//! TCP face fetches a signed Data through the forwarder and verifies it, and a
//! second Interest for a name nobody serves gets a Nack or times out; and 004's
//! packet relay model, Bob → Government → Alice and back, for IBAS, RSA-2048 and
//! ECDSA P-256.
//!
//! ndnd is `$HOPSIG_NDND`, else `target/ndnd/ndnd`, else `ndnd` on PATH; without it
//! the test says it skips, and fails under CI=true.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::root;
use hopsig_ndn::{Data, Face, FaceError, Interest, Name, Packet, SignatureInfo, SigningKey};
use hopsig_testkit::ndnd::Ndnd;
use openssl::ec::{EcGroup, EcKey};
use openssl::nid::Nid;
use openssl::pkey::PKey;

fn ndnd() -> Option<PathBuf> {
    let found = Ndnd::find(&root());
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs ndnd (.ci/run builds it into target/ndnd)"
        );
        eprintln!("skipped: no ndnd (CI builds it)");
    }
    found
}

/// Starts ndnd with its files in a fresh folder named after `tag`.
fn start(bin: &Path, tag: &str) -> Ndnd {
    let dir = std::env::temp_dir().join(format!("hopsig-ndnd-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    Ndnd::start(bin, &dir).unwrap()
}

#[test]
fn data_travels_through_ndnd_from_a_registered_producer() {
    let Some(bin) = ndnd() else { return };
    let fw = start(&bin, "fetch");
    let key = PKey::from_ec_key(
        EcKey::generate(&EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap()).unwrap(),
    )
    .unwrap();
    let key = SigningKey::new(key).unwrap();
    let verifier = key.verifying_key().unwrap();
    let prefix: Name = "/hopsig/test".parse().unwrap();

    let mut producer = Face::unix(&fw.socket).unwrap();
    producer.register(&prefix).unwrap();
    let served = std::thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match producer.recv(Some(deadline)).unwrap() {
                Packet::Interest(i, token) if prefix.is_prefix_of(&i.name) => {
                    let mut d = Data::new(
                        i.name.clone(),
                        b"hello through ndnd".to_vec(),
                        SignatureInfo::new(0).with_key_name("/hopsig/KEY/1".parse().unwrap()),
                    );
                    key.sign_data(&mut d).unwrap();
                    producer.put(&d, token.as_deref()).unwrap();
                    // The face stays open until the consumer has its Data: ndnd drops
                    // a Data whose face closed before it was forwarded.
                    return (i.name, producer);
                }
                _ => {}
            }
        }
    });

    let mut consumer = Face::tcp(fw.tcp).unwrap();
    let mut interest = Interest::new("/hopsig/test/hello".parse().unwrap());
    interest.lifetime = Some(4000);
    interest.must_be_fresh = true;
    let data = consumer.express(interest).unwrap();
    assert_eq!(data.name.to_string(), "/hopsig/test/hello");
    assert_eq!(data.content.as_deref(), Some(&b"hello through ndnd"[..]));
    verifier.verify_data(&data).unwrap();
    let (name, _producer) = served.join().unwrap();
    assert_eq!(name.to_string(), "/hopsig/test/hello");

    // Nobody serves /nobody: a Nack (no route) or a timeout, never Data.
    let mut lost = Interest::new("/nobody/here".parse().unwrap());
    lost.lifetime = Some(300);
    match consumer.express(lost) {
        Err(FaceError::Nack { .. } | FaceError::Timeout(..)) => {}
        other => panic!("{other:?}"),
    }
}

/// One Interest on `face` under `prefix`, within 20 s.
fn next_interest(face: &mut Face, prefix: &Name) -> (Interest, Option<Vec<u8>>) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Packet::Interest(i, token) = face.recv(Some(deadline)).unwrap() {
            if prefix.is_prefix_of(&i.name) {
                return (i, token);
            }
        }
    }
}

/// 004's packet relay model (§5, Fig. 3) through ndnd for `scheme`: Bob's Interest
/// (1) reaches the moderator, whose Interest (2) reaches Alice; her Data (3) goes back
/// to the moderator, which verifies it and answers (4); Bob verifies (4).
fn relay(fw: &Ndnd, scheme: &str) {
    use hopsig_ndn::moderation::{self, SeenW, Signer, Verifier};
    use hopsig_schemes::ibas::{Journal, Pkg};
    use std::collections::HashMap;

    let (gov, alice) = (
        "/moderators/Government".parse::<Name>().unwrap(),
        "/wonderland/Alice".parse::<Name>().unwrap(),
    );
    let pkg = Pkg::setup().unwrap();
    let ec = || {
        SigningKey::new(
            PKey::from_ec_key(
                EcKey::generate(&EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap()).unwrap(),
            )
            .unwrap(),
        )
        .unwrap()
    };
    let rsa = || {
        SigningKey::new(PKey::from_rsa(openssl::rsa::Rsa::generate(2048).unwrap()).unwrap())
            .unwrap()
    };
    let (alice_key, gov_key) = match scheme {
        "rsa-2048" => (rsa(), rsa()),
        _ => (ec(), ec()),
    };
    let mut keys = HashMap::new();
    keys.insert(alice.clone(), alice_key.verifying_key().unwrap());
    keys.insert(gov.clone(), gov_key.verifying_key().unwrap());
    let ibas = scheme == "ibas";
    let (alice_ibas, gov_ibas) = (
        pkg.extract(&alice.to_string()).unwrap(),
        pkg.extract(&gov.to_string()).unwrap(),
    );

    let mut alice_face = Face::unix(&fw.socket).unwrap();
    alice_face.register(&alice).unwrap();
    let mut gov_face = Face::unix(&fw.socket).unwrap();
    gov_face.register(&gov).unwrap();

    std::thread::scope(|s| {
        s.spawn(|| {
            let (i, token) = next_interest(&mut alice_face, &alice);
            assert_eq!(i.name, moderation::moderator_interest(&alice));
            let mut journal = Journal::memory();
            let signer = if ibas {
                Signer::Ibas(&alice_ibas, &mut journal)
            } else {
                Signer::Classic(&alice_key)
            };
            let three =
                moderation::publish(&alice, 2, "2026-11-23T19:00:00Z", b"I am safe.", signer)
                    .unwrap();
            alice_face.put(&three, token.as_deref()).unwrap();
        });
        s.spawn(|| {
            let (i, token) = next_interest(&mut gov_face, &gov);
            assert_eq!(i.name, moderation::subscriber_interest(&gov, &alice));
            let mut two = Interest::new(moderation::moderator_interest(&alice));
            two.can_be_prefix = true;
            two.must_be_fresh = true;
            let three = gov_face.express(two).unwrap();
            let mut journal = Journal::memory();
            let (verifier, signer) = if ibas {
                (
                    Verifier::Ibas(pkg.params()),
                    Signer::Ibas(&gov_ibas, &mut journal),
                )
            } else {
                (Verifier::Classic(&keys), Signer::Classic(&gov_key))
            };
            let four =
                moderation::moderate(&three, &gov, 9, "2026-11-23T19:00:01Z", &verifier, signer)
                    .unwrap();
            gov_face.put(&four, token.as_deref()).unwrap();
        });
        let mut bob = Face::tcp(fw.tcp).unwrap();
        let mut one = Interest::new(moderation::subscriber_interest(&gov, &alice));
        one.can_be_prefix = true;
        one.must_be_fresh = true;
        let four = bob.express(one).unwrap();
        assert_eq!(
            four.name.to_string(),
            "/moderators/Government/safetyConfirmation/wonderland/Alice/2/9"
        );
        let verifier = if ibas {
            Verifier::Ibas(pkg.params())
        } else {
            Verifier::Classic(&keys)
        };
        let got = moderation::receive(&four, &verifier, &mut SeenW::default())
            .unwrap_or_else(|e| panic!("{scheme}: {e}"));
        assert_eq!(got.published.message, b"I am safe.");
        eprintln!(
            "{scheme}: Bob got {:?} from {} via {}",
            String::from_utf8_lossy(&got.published.message),
            got.names.publisher,
            got.names.moderator
        );
    });
}

#[test]
fn bob_gets_alices_message_via_the_moderator_through_ndnd() {
    let Some(bin) = ndnd() else { return };
    for scheme in ["ibas", "rsa-2048", "ecdsa-p256"] {
        let fw = start(&bin, scheme);
        relay(&fw, scheme);
    }
}

/// python-ndn's NDNApp fetches hopsig's IBAS packet (4) through ndnd from a hopsig
/// producer and parses every field; hopsig checks them against what it sent.
#[test]
fn python_ndn_fetches_an_ibas_packet_through_ndnd() {
    use hopsig_ndn::moderation::{self, Signer};
    use hopsig_schemes::ibas::{Journal, Pkg};

    let Some(bin) = ndnd() else { return };
    let Some(py) = common::python("ndn.appv2") else {
        return;
    };
    let fw = start(&bin, "python");
    let pkg = Pkg::setup().unwrap();
    let (gov, alice) = (
        "/moderators/Government".parse::<Name>().unwrap(),
        "/wonderland/Alice".parse::<Name>().unwrap(),
    );
    let three = moderation::publish(
        &alice,
        2,
        "2026-11-23T19:00:00Z",
        b"I am safe.",
        Signer::Ibas(
            &pkg.extract("/wonderland/Alice").unwrap(),
            &mut Journal::memory(),
        ),
    )
    .unwrap();
    let four = moderation::moderate(
        &three,
        &gov,
        9,
        "2026-11-23T19:00:01Z",
        &moderation::Verifier::Ibas(pkg.params()),
        Signer::Ibas(
            &pkg.extract("/moderators/Government").unwrap(),
            &mut Journal::memory(),
        ),
    )
    .unwrap();
    let mut producer = Face::unix(&fw.socket).unwrap();
    producer.register(&gov).unwrap();
    let sent = four.clone();
    let server = std::thread::spawn(move || {
        let (_, token) = next_interest(&mut producer, &gov);
        producer.put(&sent, token.as_deref()).unwrap();
        producer
    });
    let out = Command::new(&py)
        .arg(root().join("interop/python/ndn_reference.py"))
        .args([
            "fetch",
            &moderation::subscriber_interest(&"/moderators/Government".parse().unwrap(), &alice)
                .to_string(),
        ])
        .env(
            "NDN_CLIENT_TRANSPORT",
            format!("unix://{}", fw.socket.display()),
        )
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    server.join().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        hex::decode(v["wire_hex"].as_str().unwrap()).unwrap(),
        four.encode()
    );
    let f = &v["fields"];
    assert_eq!(
        f["name"],
        "/moderators/Government/safetyConfirmation/wonderland/Alice/2/9"
    );
    assert_eq!(f["signature_type"], 201);
    assert_eq!(f["signature_value_hex"].as_str().unwrap().len(), 2 * 160);
    assert_eq!(
        hex::decode(f["signed_portion_hex"].as_str().unwrap()).unwrap(),
        four.signed_portion()
    );
    assert_eq!(
        hex::decode(f["content_hex"].as_str().unwrap()).unwrap(),
        four.content.clone().unwrap()
    );
    assert_eq!(f["freshness_ms"], 10_000);
}
