//! `hopsig ndn publisher | moderator | subscriber` through a private ndnd (tools/ndnd,
//! built by .ci/run), for IBAS, RSA-2048 and ECDSA P-256: Bob gets Alice's message via
//! Government and the subscriber exits 0; with a wrong trusted key it exits 1; bad
//! usage exits 2. Without ndnd the test says it skips, and fails under CI=true.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;
use std::process::{Child, Stdio};

use common::Scratch;
use hopsig_testkit::ndnd::Ndnd;

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn ndnd() -> Option<PathBuf> {
    let found = Ndnd::find(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."));
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs ndnd (.ci/run builds it)"
        );
        eprintln!("skipped: no ndnd (CI builds it)");
    }
    found
}

/// Key options of each role for `scheme`, after making the keys in `s`.
fn keys(s: &Scratch, scheme: &str) -> (Vec<String>, Vec<String>, Vec<String>) {
    let (alice, gov) = ("/wonderland/Alice", "/moderators/Government");
    if scheme == "ibas" {
        s.ok(&["pkg", "setup", "--out", &s.p("pkg")]);
        for (id, file) in [(alice, "alice.key"), (gov, "gov.key")] {
            s.ok(&[
                "pkg",
                "extract",
                "--pkg",
                &s.p("pkg"),
                "--id",
                id,
                "--out",
                &s.p(file),
            ]);
        }
        let params = vec!["--params".into(), s.p("pkg/params.pub")];
        let signer = |k: &str, j: &str| {
            vec![
                "--key".into(),
                s.p(k),
                "--journal".into(),
                s.p(j),
                "--new-journal".into(),
            ]
        };
        let mut m = signer("gov.key", "gov.journal");
        m.extend(params.clone());
        return (signer("alice.key", "alice.journal"), m, params);
    }
    let id = if scheme == "rsa" {
        "rsa2048-concat"
    } else {
        "ecdsa-p256-concat"
    };
    for f in ["alice.key", "gov.key"] {
        s.ok(&["keygen", "--scheme", id, "--out", &s.p(f)]);
    }
    let trust = vec![
        "--trust".into(),
        format!("{alice}={}", s.p("alice.key.pub")),
        "--trust".into(),
        format!("{gov}={}", s.p("gov.key.pub")),
    ];
    let mut m = vec!["--key".into(), s.p("gov.key")];
    m.extend(trust.clone());
    (vec!["--key".into(), s.p("alice.key")], m, trust)
}

/// Runs the subscriber `args`; it must exit 0 with Alice's message (else the roles'
/// logs are shown, `what` naming the case). Its JSON.
fn bob_is_safe(s: &Scratch, args: &[String], what: &str) -> serde_json::Value {
    let o = s.run(args);
    assert_eq!(
        common::code(&o),
        0,
        "{what}: {}\n{}\n{}",
        common::text(&o),
        std::fs::read_to_string(s.path("publisher.log")).unwrap_or_default(),
        std::fs::read_to_string(s.path("moderator.log")).unwrap_or_default()
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["message"], "I am safe.", "{what}");
    v
}

#[test]
fn bob_gets_alices_message_via_government_with_each_scheme() {
    let Some(bin) = ndnd() else { return };
    for scheme in ["ibas", "rsa", "ecdsa"] {
        let s = Scratch::new();
        let fw = Ndnd::start(&bin, &s.path("ndnd")).unwrap();
        let unix = format!("unix://{}", fw.socket.display());
        let tcp = format!("tcp://{}", fw.tcp);
        let (alice, gov, bob) = keys(&s, scheme);
        s.write("message.txt", "I am safe.");
        let role = |name: &str, mut args: Vec<String>, extra: &[&str]| {
            let mut all: Vec<String> = vec![
                "ndn".into(),
                name.into(),
                "--scheme".into(),
                scheme.into(),
                "--forwarder".into(),
                unix.clone(),
            ];
            all.append(&mut args);
            all.extend(extra.iter().map(|x| x.to_string()));
            let log = std::fs::File::create(s.path(&format!("{name}.log"))).unwrap();
            Running(
                s.cmd(&all)
                    .stdout(Stdio::null())
                    .stderr(log)
                    .spawn()
                    .unwrap(),
            )
        };
        let _p = role(
            "publisher",
            alice,
            &[
                "--id",
                "/wonderland/Alice",
                "--message",
                &s.p("message.txt"),
                "--seq",
                "2",
                "--count",
                "2",
            ],
        );
        let _m = role(
            "moderator",
            gov,
            &["--id", "/moderators/Government", "--count", "2"],
        );
        // Wait until both registered (their logs say so).
        let start = std::time::Instant::now();
        while ["publisher", "moderator"].iter().any(|r| {
            !std::fs::read_to_string(s.path(&format!("{r}.log")))
                .unwrap_or_default()
                .contains("registered")
        }) {
            assert!(start.elapsed().as_secs() < 20, "roles did not register");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let mut args: Vec<String> = vec![
            "ndn".into(),
            "subscriber".into(),
            "--scheme".into(),
            scheme.into(),
            "--forwarder".into(),
            tcp.clone(),
            "--moderator".into(),
            "/moderators/Government".into(),
            "--publisher".into(),
            "/wonderland/Alice".into(),
            "--json".into(),
        ];
        args.extend(bob.clone());
        let v = bob_is_safe(&s, &args, scheme);
        assert_eq!(
            v["name"],
            "/moderators/Government/safetyConfirmation/wonderland/Alice/2/1"
        );
        // The wrong verification key: another PKG's parameters, or Government's key
        // trusted as Alice's. The signature does not verify: exit 1.
        let wrong: Vec<String> = if scheme == "ibas" {
            s.ok(&["pkg", "setup", "--out", &s.p("pkg2")]);
            vec!["--params".into(), s.p("pkg2/params.pub")]
        } else {
            vec![
                "--trust".into(),
                format!("/wonderland/Alice={}", s.p("gov.key.pub")),
                "--trust".into(),
                format!("/moderators/Government={}", s.p("gov.key.pub")),
            ]
        };
        args.truncate(args.len() - bob.len());
        args.extend(wrong);
        let o = s.run(&args);
        assert_eq!(common::code(&o), 1, "{scheme}: {}", common::text(&o));
        drop(fw);
    }
}

#[path = "../../hopsig-ndn/tests/common/hostile.rs"]
mod hostile;

/// A Unix socket between a role and ndnd, standing in for the forwarder's: it relays
/// both ways, slips what is sent to `inject` into the stream toward the role between
/// two whole frames, and closes the role's connection when `closed` is set (the
/// forwarder going away).
struct Proxy {
    socket: PathBuf,
    inject: std::sync::mpsc::Sender<Vec<u8>>,
    closed: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Proxy {
    fn start(socket: PathBuf, ndnd: PathBuf) -> Proxy {
        use std::io::{Read, Write};
        use std::os::unix::net::{UnixListener, UnixStream};
        use std::sync::atomic::Ordering;

        let listener = UnixListener::bind(&socket).unwrap();
        let (inject, injected) = std::sync::mpsc::channel::<Vec<u8>>();
        let closed: std::sync::Arc<std::sync::atomic::AtomicBool> = std::sync::Arc::default();
        let stop = std::sync::Arc::clone(&closed);
        std::thread::spawn(move || {
            let Ok((mut role, _)) = listener.accept() else {
                return;
            };
            let mut up = UnixStream::connect(&ndnd).unwrap();
            let (mut from_role, mut to_up) = (role.try_clone().unwrap(), up.try_clone().unwrap());
            std::thread::spawn(move || std::io::copy(&mut from_role, &mut to_up));
            up.set_read_timeout(Some(std::time::Duration::from_millis(20)))
                .unwrap();
            let (mut buf, mut chunk) = (vec![], [0u8; 16 * 1024]);
            // A role that ended (as one did on a malformed packet) ends the relay.
            'relay: while !stop.load(Ordering::SeqCst) {
                for p in injected.try_iter() {
                    if role.write_all(&p).is_err() {
                        break 'relay;
                    }
                }
                match up.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                    Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                    Err(_) => break,
                }
                while let Ok(t) = hopsig_ndn::tlv::Reader::new(&buf).tlv("frame") {
                    let n = t.whole.len();
                    if role.write_all(&buf[..n]).is_err() {
                        break 'relay;
                    }
                    buf.drain(..n);
                }
            }
            let _ = role.shutdown(std::net::Shutdown::Both);
            let _ = up.shutdown(std::net::Shutdown::Both);
        });
        Proxy {
            socket,
            inject,
            closed,
        }
    }

    fn forwarder(&self) -> String {
        format!("unix://{}", self.socket.display())
    }

    fn send(&self, packets: &[hostile::Hostile]) {
        for h in packets {
            self.inject.send(h.wire.clone()).unwrap();
        }
    }

    fn close(&self) {
        self.closed.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Waits (at most 20 s) until the log of `role` in `s` says `needle`.
fn wait_log(s: &Scratch, role: &str, needle: &str) -> String {
    let start = std::time::Instant::now();
    loop {
        let log = std::fs::read_to_string(s.path(&format!("{role}.log"))).unwrap_or_default();
        if log.contains(needle) {
            return log;
        }
        assert!(
            start.elapsed().as_secs() < 20,
            "{role} never said {needle:?}:\n{log}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Waits (at most 20 s) for `role` to end; its exit code.
fn wait_exit(s: &Scratch, name: &str, role: &mut Running) -> i32 {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = role.0.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        assert!(
            start.elapsed().as_secs() < 20,
            "{name} did not end when its face closed:\n{}",
            std::fs::read_to_string(s.path(&format!("{name}.log"))).unwrap_or_default()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Issue 22 §1: the moderator and the publisher, each behind a stand-in for its face
/// to ndnd, get every hostile packet — the two malformed Data (3) that ndnd forwards
/// (through ndnd, answering the moderator's Interests (2)), and on the face itself the
/// other malformed Interests and Data, packets over 8800 octets and a frame of
/// TLV-LENGTH 2^63 — and an Interest (1) whose publisher is not of generic
/// components; a publisher's Data (3) that verifies but whose (4) would exceed 8800
/// octets is refused. Then Bob still gets Alice's message; both roles count each
/// drop by reason, log them rate-limited, and end when their face closes, with the
/// counts.
#[test]
fn the_roles_drop_hostile_packets_and_serve_on() {
    use hopsig_ndn::moderation::{self, Signer};
    use hopsig_ndn::{Component, Face, Interest, Name, Packet};
    use hopsig_schemes::ibas::{Journal, UserKey};

    let Some(bin) = ndnd() else { return };
    let s = Scratch::new();
    let fw = Ndnd::start(&bin, &s.path("ndnd")).unwrap();
    let (alice, gov, bob) = keys(&s, "ibas");
    s.ok(&[
        "pkg",
        "extract",
        "--pkg",
        &s.p("pkg"),
        "--id",
        "/wonderland/Erin",
        "--out",
        &s.p("erin.key"),
    ]);
    s.write("message.txt", "I am safe.");
    let role = |name: &str, proxy: &Proxy, mut args: Vec<String>, extra: &[&str]| {
        let mut all: Vec<String> = ["ndn", name, "--scheme", "ibas", "--forwarder"]
            .map(String::from)
            .into();
        all.push(proxy.forwarder());
        all.append(&mut args);
        all.extend(extra.iter().map(|x| x.to_string()));
        let log = std::fs::File::create(s.path(&format!("{name}.log"))).unwrap();
        Running(
            s.cmd(&all)
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .unwrap(),
        )
    };
    let (gov_id, alice_id): (Name, Name) = (
        "/moderators/Government".parse().unwrap(),
        "/wonderland/Alice".parse().unwrap(),
    );
    let alice_data = moderation::publisher_name(&alice_id, 2);
    let alice_interest = moderation::subscriber_interest(&gov_id, &alice_id);
    // What each role is sent, from ndnd or on its face.
    let mut hostile = hostile::through_ndnd(&alice_data);
    hostile.extend(hostile::on_the_face(&alice_data, &alice_interest));
    hostile.extend(hostile::oversize(&alice_data, &alice_interest));
    hostile.push(hostile::unframable());

    let to_gov = Proxy::start(s.path("gov.sock"), fw.socket.clone());
    let mut moderator = role(
        "moderator",
        &to_gov,
        gov,
        &["--id", "/moderators/Government"],
    );
    wait_log(&s, "moderator", "registered");

    // Through ndnd: Mallory, a producer of /wonderland, answers the moderator's
    // Interests (2) for Carol and Dave with the two malformed Data ndnd forwards, and
    // Erin's with a Data (3) of 8790 octets that Erin signed.
    let erin: Name = "/wonderland/Erin".parse().unwrap();
    let erin_key = UserKey::from_key_file(
        &hopsig_primitives::armor::KeyFile::parse(&std::fs::read(s.path("erin.key")).unwrap())
            .unwrap(),
    )
    .unwrap();
    let sized = |len: usize| {
        let signer = Signer::Ibas(&erin_key, &mut Journal::memory());
        moderation::publish(&erin, 2, "2026-11-26T15:00:00Z", &vec![b'x'; len], signer).unwrap()
    };
    let big = sized(8790 + 8000 - sized(8000).encode().len());
    assert_eq!(big.encode().len(), 8790);
    let mut mallory = Face::unix(&fw.socket).unwrap();
    mallory.register(&"/wonderland".parse().unwrap()).unwrap();
    let mut bob_face = Face::tcp(fw.tcp).unwrap();
    let answers = [
        (
            "/wonderland/Carol",
            hostile::through_ndnd(&"/wonderland/Carol/safetyConfirmation/2".parse().unwrap())[0]
                .wire
                .clone(),
        ),
        (
            "/wonderland/Dave",
            hostile::through_ndnd(&"/wonderland/Dave/safetyConfirmation/2".parse().unwrap())[1]
                .wire
                .clone(),
        ),
        ("/wonderland/Erin", big.encode()),
    ];
    for (k, (publisher, answer)) in answers.iter().enumerate() {
        let publisher: Name = publisher.parse().unwrap();
        let mut one = Interest::new(moderation::subscriber_interest(&gov_id, &publisher));
        one.can_be_prefix = true;
        one.must_be_fresh = true;
        one.nonce = Some([k as u8 + 1; 4]);
        bob_face.send(&one.encode()).unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let token = loop {
            match mallory.recv(Some(deadline)) {
                Ok(Packet::Interest(i, token))
                    if i.name == moderation::moderator_interest(&publisher) =>
                {
                    break token
                }
                Ok(_) => {}
                Err(e) => panic!(
                    "no Interest (2) for {publisher}: {e}\n{}",
                    std::fs::read_to_string(s.path("moderator.log")).unwrap_or_default()
                ),
            }
        };
        match token {
            Some(t) => mallory.send(&hostile::with_pit_token(answer, &t)).unwrap(),
            None => mallory.send(answer).unwrap(),
        }
    }
    wait_log(&s, "moderator", "over NDN's 8800");
    // An Interest (1) whose publisher's first component is a KeywordNameComponent.
    let mut typed = moderation::subscriber_interest(&gov_id, &Name(vec![]));
    typed
        .0
        .push(Component::typed(32, b"wonderland".to_vec()).unwrap());
    typed.0.push(Component::generic(b"Alice".to_vec()));
    let mut one = Interest::new(typed);
    one.nonce = Some([9; 4]);
    bob_face.send(&one.encode()).unwrap();
    wait_log(&s, "moderator", "identity components must be generic");
    // On the moderator's face itself.
    to_gov.send(&hostile[2..]);

    let to_alice = Proxy::start(s.path("alice.sock"), fw.socket.clone());
    let mut publisher = role(
        "publisher",
        &to_alice,
        alice,
        &[
            "--id",
            "/wonderland/Alice",
            "--message",
            &s.p("message.txt"),
            "--seq",
            "2",
        ],
    );
    wait_log(&s, "publisher", "registered");
    to_alice.send(&hostile);
    // After them on the same face, an Interest (2): the publisher answers it.
    let mut two = Interest::new(moderation::moderator_interest(&alice_id));
    two.can_be_prefix = true; // as the moderator sends it: name (3) is longer
    two.nonce = Some([7; 4]);
    to_alice.inject.send(two.encode()).unwrap();
    wait_log(&s, "publisher", "asked; answering");

    // Bob gets Alice's message all the same.
    let mut args: Vec<String> = [
        "ndn",
        "subscriber",
        "--scheme",
        "ibas",
        "--moderator",
        "/moderators/Government",
        "--publisher",
        "/wonderland/Alice",
        "--json",
        "--forwarder",
    ]
    .map(String::from)
    .into();
    args.push(format!("tcp://{}", fw.tcp));
    args.extend(bob);
    bob_is_safe(&s, &args, "after the hostile packets");

    // The forwarder goes away: each role ends, says so, and gives its counts.
    for (name, proxy, running) in [
        ("moderator", &to_gov, &mut moderator),
        ("publisher", &to_alice, &mut publisher),
    ] {
        proxy.close();
        assert_eq!(wait_exit(&s, name, running), 2, "{name}");
        let log = std::fs::read_to_string(s.path(&format!("{name}.log"))).unwrap();
        assert!(log.contains("the forwarder closed the connection"), "{log}");
        let summary = log
            .lines()
            .find(|l| l.contains("packets dropped from the forwarder: "))
            .unwrap_or_else(|| panic!("{name}: no counts:\n{log}"));
        assert!(
            summary.contains(&format!(": {} (", hostile.len())),
            "{name}: {summary}"
        );
        for h in &hostile {
            let n = hostile.iter().filter(|x| x.reason == h.reason).count();
            assert!(summary.contains(&format!("{} {n}", h.reason)), "{summary}");
        }
        // One line per drop at most, and rate-limited: fewer lines than drops.
        let lines = log.matches("dropped a packet from the forwarder").count();
        assert!(
            lines >= 1 && lines < hostile.len(),
            "{name}: {lines} lines\n{log}"
        );
    }
    drop(fw);
}

#[test]
fn bad_usage_exits_2() {
    let s = Scratch::new();
    // An unreachable forwarder, a one-component identity, an unknown transport.
    for (moderator, forwarder) in [
        ("/m/G", "unix:///nonexistent/sock"),
        ("/m", "unix:///nonexistent/sock"),
        ("/m/G", "carrier-pigeon://x"),
    ] {
        let args = [
            "ndn",
            "subscriber",
            "--scheme",
            "ibas",
            "--params",
            "x",
            "--moderator",
            moderator,
            "--publisher",
            "/w/A",
            "--forwarder",
            forwarder,
        ];
        let o = s.run(&args);
        assert_eq!(common::code(&o), 2, "{args:?}: {}", common::text(&o));
    }
    // A moderator never moderates itself: refused before anything is read or sent.
    let o = s.run(&[
        "ndn",
        "subscriber",
        "--scheme",
        "ibas",
        "--params",
        "x",
        "--moderator",
        "/m/G",
        "--publisher",
        "/m/G",
        "--forwarder",
        "unix:///nonexistent/sock",
    ]);
    assert_eq!(common::code(&o), 2, "{}", common::text(&o));
    assert!(
        common::text(&o).contains("does not moderate itself"),
        "{}",
        common::text(&o)
    );
}

#[test]
fn bench_ndn_counts_table_3_from_real_packets() {
    let s = Scratch::new();
    let json = s.p("ndn.json");
    let o = s.ok(&["bench", "ndn", "--quick", "--json", &json]);
    assert!(
        common::stdout(&o).contains("004 Table 3"),
        "{}",
        common::text(&o)
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 5 * 3 * 2);
    for r in rows {
        let parts = [
            "tlv",
            "name",
            "meta_info",
            "content",
            "signature_info",
            "signature_value",
        ];
        let sum: u64 = parts.iter().map(|k| r[k].as_u64().unwrap()).sum();
        assert_eq!(sum, r["total"].as_u64().unwrap(), "{r}");
        if r["scheme"] == "IBAS" {
            // 004 §5.3: a 5-octet SignatureInfo; the 160-octet value in its TLV.
            assert_eq!(
                (r["signature_info"].as_u64(), r["signature_value"].as_u64()),
                (Some(5), Some(162)),
                "{r}"
            );
        }
    }
    // The content grows with x by exactly x.
    let content = |scheme: &str, x: u64| {
        rows.iter()
            .find(|r| {
                r["scheme"] == scheme
                    && r["x"] == x
                    && r["packet"].as_str().unwrap().starts_with("(4)")
            })
            .unwrap()["content"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(content("IBAS", 100) - content("IBAS", 0), 100);
    let o = s.ok(&["inspect", "--json", &json]);
    let inspected: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(inspected["suite"], "ndn");
    let reduction = v["reduction_vs_rsa2048_percent"].as_f64().unwrap();
    assert!(reduction > 0.0 && reduction < 100.0);
    // The relay model's RTT through ndnd, when there is one (CI builds it).
    if ndnd().is_some() {
        let rtt = v["rtt"].as_array().unwrap();
        assert_eq!(rtt.len(), 3, "{v}");
        for r in rtt {
            assert_eq!(r["runs"], 5);
            let (total, crypto) = (
                r["rtt_mean_ms"].as_f64().unwrap(),
                r["crypto_mean_ms"].as_f64().unwrap(),
            );
            assert!(total > 0.0 && crypto > 0.0 && crypto < total, "{r}");
        }
        let throughput = v["throughput"].as_array().unwrap();
        assert_eq!(throughput.len(), 3, "{v}");
        for t in throughput {
            assert_eq!(t["requests"], 10);
            assert!(
                t["per_second"].as_f64().unwrap() > 0.0
                    && t["processing_us"].as_f64().unwrap() > 0.0,
                "{t}"
            );
        }
    }
}

/// Issue 22 §1: what a subscriber, a moderator and a publisher made by the test
/// itself (through the library, to send what hopsig's own roles would not) do to
/// `hopsig ndn` roles through ndnd. IBAS keys of one PKG, its parameters in
/// `params.pub`.
mod scenario {
    use super::*;
    use hopsig_ndn::moderation::{self, Signer, Verifier};
    use hopsig_ndn::{Data, Face, Name, Packet};
    use hopsig_schemes::ibas::{self, Journal, Pkg, UserKey};
    use std::time::{Duration, Instant};

    pub const ALICE: &str = "/wonderland/Alice";
    pub const GOV: &str = "/moderators/Government";
    const T1: &str = "2026-11-23T19:00:00Z";
    const T2: &str = "2026-11-23T19:00:01Z";

    pub fn n(uri: &str) -> Name {
        uri.parse().unwrap()
    }

    pub struct World {
        pub s: Scratch,
        pub fw: Ndnd,
        pub pkg: Pkg,
        pub alice: UserKey,
        pub gov: UserKey,
    }

    pub fn world(bin: &Path) -> World {
        let s = Scratch::new();
        let fw = Ndnd::start(bin, &s.path("ndnd")).unwrap();
        let pkg = Pkg::setup().unwrap();
        s.write("params.pub", pkg.params().to_key_file());
        let (alice, gov) = (pkg.extract(ALICE).unwrap(), pkg.extract(GOV).unwrap());
        s.write("gov.key", gov.to_key_file().as_bytes());
        World {
            s,
            fw,
            pkg,
            alice,
            gov,
        }
    }

    /// Alice's Data (3) with sequence number `seq`, no MetaInfo (so that ndnd's cache
    /// never answers a MustBeFresh Interest with it, nor with the (4) made of it), as
    /// `edit` leaves it, signed by Alice as first signer under `w` (a fresh one if
    /// `None`).
    pub fn three(
        w: &World,
        seq: u64,
        message: &[u8],
        state: Option<&[u8; 16]>,
        edit: impl FnOnce(&mut Data),
    ) -> Data {
        let alice = n(ALICE);
        let mut d = Data::new(
            moderation::publisher_name(&alice, seq),
            moderation::publisher_content(&alice, T1, message),
            hopsig_ndn::ibas::signature_info(),
        );
        edit(&mut d);
        let mut journal = Journal::memory();
        let agg = match state {
            None => ibas::sign(&w.alice, &d.signed_portion(), None, &mut journal),
            Some(state) => ibas::sign_with_w(&w.alice, &d.signed_portion(), state, &mut journal),
        }
        .unwrap();
        d.signature_value = hopsig_ndn::ibas::value(&agg);
        d
    }

    /// Government's Data (4) of `three`.
    pub fn four(w: &World, three: &Data, mseq: u64) -> Data {
        moderation::moderate(
            three,
            &n(GOV),
            mseq,
            T2,
            &Verifier::Ibas(w.pkg.params()),
            Signer::Ibas(&w.gov, &mut Journal::memory()),
        )
        .unwrap()
    }

    /// Registers `prefix` and answers the Interests under it with `answers` in turn,
    /// until all are sent (at most 60 s).
    pub fn serve(w: &World, prefix: &str, answers: Vec<Data>) -> std::thread::JoinHandle<Face> {
        let prefix = n(prefix);
        let mut face = Face::unix(&w.fw.socket).unwrap();
        face.register(&prefix).unwrap();
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            for d in answers {
                loop {
                    match face.recv(Some(deadline)) {
                        Ok(Packet::Interest(i, token)) if prefix.is_prefix_of(&i.name) => {
                            face.put(&d, token.as_deref()).unwrap();
                            break;
                        }
                        Ok(_) => {}
                        Err(_) => return face,
                    }
                }
            }
            face
        })
    }

    /// `hopsig ndn subscriber` for Alice via Government, with the replay memory in the
    /// folder `state`, or in the default state folder (the scratch's `state`).
    pub fn subscriber(w: &World, state: Option<&str>) -> std::process::Output {
        let mut args = vec![
            "ndn".to_string(),
            "subscriber".into(),
            "--scheme".into(),
            "ibas".into(),
            "--forwarder".into(),
            format!("tcp://{}", w.fw.tcp),
            "--moderator".into(),
            GOV.into(),
            "--publisher".into(),
            ALICE.into(),
            "--params".into(),
            w.s.p("params.pub"),
        ];
        if let Some(dir) = state {
            args.extend(["--state-dir".into(), w.s.p(dir)]);
        }
        w.s.run(&args)
    }

    /// `hopsig ndn moderator` as Government, answering `count` Interests, once it
    /// has registered its prefix.
    pub fn moderator(w: &World, count: &str) -> Running {
        ibas_role(
            w,
            "moderator",
            GOV,
            "gov",
            &["--params", &w.s.p("params.pub"), "--count", count],
        )
    }

    /// `hopsig ndn ROLE --scheme ibas` as `id` with the key `KEY.key` and a new
    /// journal, standard error in `ROLE.log`, once it has registered its prefix.
    pub fn ibas_role(w: &World, role: &str, id: &str, key: &str, extra: &[&str]) -> Running {
        let log = std::fs::File::create(w.s.path(&format!("{role}.log"))).unwrap();
        let mut args = vec![
            "ndn".to_string(),
            role.into(),
            "--scheme".into(),
            "ibas".into(),
            "--forwarder".into(),
            format!("unix://{}", w.fw.socket.display()),
            "--id".into(),
            id.into(),
            "--key".into(),
            w.s.p(&format!("{key}.key")),
            "--journal".into(),
            w.s.p(&format!("{key}.journal")),
            "--new-journal".into(),
        ];
        args.extend(extra.iter().map(|a| a.to_string()));
        let child =
            w.s.cmd(&args)
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .unwrap();
        let running = Running(child);
        wait_log(&w.s, role, "registered");
        running
    }

    pub fn log(w: &World) -> String {
        std::fs::read_to_string(w.s.path("moderator.log")).unwrap_or_default()
    }
}

use std::path::Path;

/// The subscriber's replay memory outlives it: two (4)s under one w with different
/// m_1, fetched by two runs sharing a state folder, and the second is refused (exit
/// 1); the first fetched again passes. A SignatureValue whose S is not a point is
/// malformed input (exit 2), not a signature that fails (exit 1).
#[test]
fn the_subscriber_remembers_w_across_runs() {
    use scenario::*;
    let Some(bin) = ndnd() else { return };
    let w = world(&bin);
    let first = three(&w, 2, b"I am safe.", None, |_| {});
    let state = *hopsig_ndn::ibas::aggregate(&first.signature_value, 1)
        .unwrap()
        .w();
    let second = three(&w, 3, b"Send help.", Some(&state), |_| {});
    let (a, b) = (four(&w, &first, 9), four(&w, &second, 10));
    let mut bad = a.clone();
    bad.signature_value[16..64].fill(0xff);
    let server = serve(&w, GOV, vec![a.clone(), b, a, bad]);
    let o = subscriber(&w, None);
    assert_eq!(common::code(&o), 0, "{}", common::text(&o));
    let o = subscriber(&w, None);
    assert_eq!(common::code(&o), 1, "{}", common::text(&o));
    assert!(
        common::text(&o).contains("already signed another message"),
        "{}",
        common::text(&o)
    );
    let o = subscriber(&w, None);
    assert_eq!(common::code(&o), 0, "{}", common::text(&o));
    let o = subscriber(&w, Some("elsewhere"));
    assert_eq!(common::code(&o), 2, "{}", common::text(&o));
    assert!(
        common::text(&o).contains("IBAS SignatureValue"),
        "{}",
        common::text(&o)
    );
    server.join().unwrap();
    let memory = std::fs::read_to_string(w.s.path("state/ndn-seen-w.log")).unwrap();
    assert_eq!(memory.lines().count(), 2, "{memory}");
}

/// A Data (3) that the publisher sends again (here to every Interest (2); without a
/// FreshnessPeriod no cache answers for it) gets the (4) made of it the first time,
/// not a refusal for a reused w.
#[test]
fn the_moderator_serves_again_the_data_it_made_of_a_data() {
    use scenario::*;
    let Some(bin) = ndnd() else { return };
    let w = world(&bin);
    let same = three(&w, 2, b"I am safe.", None, |_| {});
    let _moderator = moderator(&w, "2");
    let publisher = serve(&w, ALICE, vec![same.clone(), same]);
    let mut names = vec![];
    for _ in 0..2 {
        let o = subscriber(&w, None);
        assert_eq!(
            common::code(&o),
            0,
            "{}\nmoderator: {}",
            common::text(&o),
            log(&w)
        );
        names.push(
            common::stdout(&o)
                .lines()
                .next()
                .unwrap_or_default()
                .to_string(),
        );
    }
    assert!(
        names[0].starts_with(&format!("{GOV}/safetyConfirmation{ALICE}/2/1: valid")),
        "{names:?}"
    );
    assert_eq!(names[0].split(' ').next(), names[1].split(' ').next());
    publisher.join().unwrap();
}

/// Issue 22 §1 (a) through ndnd: Alice's (3) carries a KeyLocator beside SignatureType
/// 201. It verifies alone, but the (4) the moderator would build could not; the
/// moderator refuses it and sends nothing, so the subscriber gets no Data (exit 2),
/// never a (4) that fails (exit 1).
#[test]
fn the_moderator_refuses_a_publishers_data_with_a_key_locator() {
    use scenario::*;
    let Some(bin) = ndnd() else { return };
    let w = world(&bin);
    let located = three(&w, 2, b"I am safe.", None, |d| {
        d.signature_info =
            hopsig_ndn::ibas::signature_info().with_key_name(n("/wonderland/Alice/KEY"));
    });
    let _moderator = moderator(&w, "1");
    let publisher = serve(&w, ALICE, vec![located]);
    let o = subscriber(&w, None);
    assert_eq!(
        common::code(&o),
        2,
        "{}\nmoderator: {}",
        common::text(&o),
        log(&w)
    );
    assert!(
        log(&w).contains("refused") && log(&w).contains("SignatureInfo"),
        "{}",
        log(&w)
    );
    publisher.join().unwrap();
}

/// Sends Interest `name` (CanBePrefix as given) on a face of its own through ndnd,
/// and waits (at most 20 s) until `role`'s log holds `needle`: what it holds then.
fn ask_and_wait(
    w: &scenario::World,
    name: &str,
    can_be_prefix: bool,
    role: &str,
    needle: &str,
) -> String {
    let mut face = hopsig_ndn::Face::unix(&w.fw.socket).unwrap();
    let mut i = hopsig_ndn::Interest::new(scenario::n(name));
    i.can_be_prefix = can_be_prefix;
    i.nonce = Some([7, 7, 7, 7]);
    i.lifetime = Some(1000);
    face.send(&i.encode()).unwrap();
    wait_log(&w.s, role, needle)
}

/// An Interest (1) naming the moderator itself as publisher is ignored with its
/// reason, and no Interest (2) goes out (docs/spec/ndn-ibas.md §5.1 "Names"): the
/// moderator would otherwise ask its own prefix and countersign its own identity.
#[test]
fn the_moderator_ignores_an_interest_naming_itself_as_publisher() {
    use scenario::*;
    let Some(bin) = ndnd() else { return };
    let w = world(&bin);
    let _moderator = moderator(&w, "1");
    let text = ask_and_wait(
        &w,
        &format!("{GOV}/safetyConfirmation{GOV}"),
        true,
        "moderator",
        "ignored an Interest",
    );
    assert!(text.contains("the moderator itself"), "{text}");
    assert!(!text.contains("no Data within"), "{text}");
}

/// The publisher answers only an Interest its Data (3) satisfies by name (§5.1 "What
/// a producer answers"): another sequence number, or name (3)'s prefix without
/// CanBePrefix, is ignored; the moderator's Interest (2) is still answered.
#[test]
fn the_publisher_answers_only_interests_its_data_satisfies() {
    use scenario::*;
    let Some(bin) = ndnd() else { return };
    let w = world(&bin);
    w.s.write("alice.key", w.alice.to_key_file().as_bytes());
    w.s.write("message.txt", "I am safe.");
    let _publisher = ibas_role(
        &w,
        "publisher",
        ALICE,
        "alice",
        &["--message", &w.s.p("message.txt"), "--seq", "2"],
    );
    let text = ask_and_wait(
        &w,
        &format!("{ALICE}/safetyConfirmation/3"),
        false,
        "publisher",
        "ignored an Interest",
    );
    assert!(!text.contains("answering"), "{text}");
    let _moderator = moderator(&w, "1");
    let o = subscriber(&w, None);
    assert_eq!(common::code(&o), 0, "{}\n{}", common::text(&o), log(&w));
}
