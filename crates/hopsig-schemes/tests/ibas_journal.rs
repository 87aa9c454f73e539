//! The IBAS state-string journal and the derived signer's r (docs/spec/ibas.md,
//! "Signing" and "The w journal"): the same message under the same w is the same
//! signature and may be repeated, another message is refused; journals are bound to
//! the key, locked, capped and refuse special files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::OnceLock;

use hopsig_schemes::ibas::{
    self, journal, IbasAggregate, Journal, Pkg, UserKey, MAX_JOURNAL_BYTES,
};
use hopsig_schemes::primitives::armor::KeyFile;
use hopsig_schemes::primitives::codec::to_hex;
use hopsig_schemes::primitives::hash::sha256;
use hopsig_schemes::primitives::pairing::{Scalar, G2};
use hopsig_schemes::primitives::persist::{NewLog, PersistError};
use hopsig_schemes::{Aggregate, Error, StateError};

struct Keys {
    pkg: Pkg,
    alice: UserKey,
    gov: UserKey,
}

fn keys() -> &'static Keys {
    static K: OnceLock<Keys> = OnceLock::new();
    K.get_or_init(|| {
        let pkg = Pkg::setup().unwrap();
        Keys {
            alice: pkg.extract("/friends/Alice").unwrap(),
            gov: pkg.extract("/moderators/Government").unwrap(),
            pkg,
        }
    })
}

/// A copy of `key` read back from its key file, as a copied file gives it.
fn copy(key: &UserKey) -> UserKey {
    UserKey::from_key_file(&KeyFile::parse(key.to_key_file().as_bytes()).unwrap()).unwrap()
}

fn reused(r: Result<IbasAggregate, Error>, state: &[u8; ibas::W_LEN]) {
    match r {
        Err(Error::State(StateError::ReusedW { w })) => assert_eq!(&w, state),
        other => panic!("expected a reused-w refusal, got {other:?}"),
    }
}

#[test]
fn the_same_message_under_the_same_w_is_the_same_signature_and_may_be_repeated() {
    let k = keys();
    let state = [0x11u8; ibas::W_LEN];
    let mut j = Journal::memory();
    let first = ibas::sign_with_w(&k.gov, b"accepted", &state, &mut j).unwrap();
    let again = ibas::sign_with_w(&k.gov, b"accepted", &state, &mut j).unwrap();
    assert_eq!(first.to_bytes(), again.to_bytes());
    // A fresh journal (another process) derives the same r: identical bytes again.
    let elsewhere = ibas::sign_with_w(&k.gov, b"accepted", &state, &mut Journal::memory()).unwrap();
    assert_eq!(first.to_bytes(), elsewhere.to_bytes());
    // Another message under that w is refused, and the refusal carries w.
    reused(
        ibas::sign_with_w(&k.gov, b"rejected", &state, &mut j),
        &state,
    );
    // The same holds for a countersignature through `sign`.
    let a = ibas::sign(&k.alice, b"m1", None, &mut Journal::memory()).unwrap();
    let mut gj = Journal::memory();
    let c1 = ibas::sign(&k.gov, b"m2", Some(&a), &mut gj).unwrap();
    let c2 = ibas::sign(&k.gov, b"m2", Some(&a), &mut gj).unwrap();
    assert_eq!(c1.to_bytes(), c2.to_bytes());
    reused(ibas::sign(&k.gov, b"m3", Some(&a), &mut gj), a.w());
}

#[test]
fn signer_r_is_the_keyed_hash_the_spec_defines() {
    // docs/spec/ibas.md: r = hash_to_field(d0 ‖ d1 ‖ w ‖ m) under the R DST; T' = rP.
    let k = keys();
    let file = KeyFile::parse(k.alice.to_key_file().as_bytes()).unwrap();
    let d0d1 = &file.block("HOPSIG IBAS USER KEY").unwrap().der;
    assert_eq!(d0d1.len(), 96);
    let state = [0x5au8; ibas::W_LEN];
    let msg = b"I am safe at the shelter";
    let mut input = d0d1.to_vec();
    input.extend_from_slice(&state);
    input.extend_from_slice(msg);
    let r = Scalar::hash(
        &input,
        b"HOPSIG-IBAS-V01-CS01-with-BLS12381-Fr_XMD:SHA-256_R_",
    );
    let sig = ibas::sign_with_w(&k.alice, msg, &state, &mut Journal::memory()).unwrap();
    assert_eq!(
        sig.to_bytes()[71..167],
        G2::generator().mul(&r).to_compressed()
    );
    // And the full signature verifies.
    let id = ibas::Identity::new("/friends/Alice").unwrap();
    ibas::verify(k.pkg.params(), &[(&id, msg)], &sig).unwrap();
}

#[test]
fn the_key_binding_and_the_journal_file_are_as_specified() {
    let k = keys();
    let id = b"/friends/Alice";
    let len = [0u8, 14]; // I2OSP(len(ID), 2)
    assert_eq!(id.len(), 14);
    let binding = sha256(&[
        b"HOPSIG-IBAS-V01-JOURNAL-KEY",
        &k.pkg.params().to_bytes(),
        &len,
        id,
    ]);
    assert_eq!(journal::key_binding(&k.alice), binding);
    assert_eq!(
        journal::file_name(&k.alice),
        format!("ibas-{}.wlog", to_hex(&binding))
    );
    // Copies and re-extractions name the same key; another identity does not.
    assert_eq!(journal::key_binding(&copy(&k.alice)), binding);
    let again = k.pkg.extract("/friends/Alice").unwrap();
    assert_eq!(journal::file_name(&again), journal::file_name(&k.alice));
    assert_ne!(journal::key_binding(&k.gov), binding);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j");
    let mut j = Journal::open(&path, &k.alice, NewLog::Allowed).unwrap();
    let state = [0xabu8; ibas::W_LEN];
    j.claim(&k.alice, &state, b"m").unwrap();
    j.claim(&k.alice, &state, b"m").unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        format!(
            "hopsig-ibas-wlog: 1 key {}\n{} {}\n",
            to_hex(&binding),
            to_hex(&state),
            to_hex(&sha256(&[b"m"]))
        )
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn a_copied_key_finds_the_same_journal_and_is_refused() {
    // The attack: the moderator's key copied to another file signs a second message
    // under the same incoming w. With journals named by the key, the copy shares the
    // original's journal.
    let k = keys();
    let dir = tempfile::tempdir().unwrap();
    let a = ibas::sign(&k.alice, b"m1", None, &mut Journal::memory()).unwrap();
    let original = &k.gov;
    let copied = copy(&k.gov);
    let mut j1 = Journal::open(
        &dir.path().join(journal::file_name(original)),
        original,
        NewLog::Allowed,
    )
    .unwrap();
    ibas::sign(original, b"m2", Some(&a), &mut j1).unwrap();
    let mut j2 = Journal::open(
        &dir.path().join(journal::file_name(&copied)),
        &copied,
        NewLog::Allowed,
    )
    .unwrap();
    reused(ibas::sign(&copied, b"m3", Some(&a), &mut j2), a.w());
}

#[test]
fn a_journal_serves_one_key_only() {
    let k = keys();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.wlog");
    drop(Journal::open(&path, &k.alice, NewLog::Allowed).unwrap());
    match Journal::open(&path, &k.gov, NewLog::Allowed) {
        Err(Error::State(StateError::OtherKey { path: p, found, .. })) => {
            assert_eq!(p, path);
            assert_eq!(found, to_hex(&journal::key_binding(&k.alice)));
        }
        other => panic!("{other:?}"),
    }
    let mut j = Journal::open(&path, &k.alice, NewLog::Allowed).unwrap();
    assert!(matches!(
        ibas::sign(&k.gov, b"m", None, &mut j),
        Err(Error::State(StateError::OtherKey { .. }))
    ));
    let mut m = Journal::memory();
    ibas::sign(&k.alice, b"m", None, &mut m).unwrap();
    assert!(matches!(
        ibas::sign(&k.gov, b"m", None, &mut m),
        Err(Error::State(StateError::OtherKey { .. }))
    ));
    // A file that is not a journal at all is named as such and left alone.
    let other = dir.path().join("notes.txt");
    std::fs::write(&other, "my notes\n").unwrap();
    assert!(matches!(
        Journal::open(&other, &k.alice, NewLog::Allowed),
        Err(Error::State(StateError::Journal(
            PersistError::Header { .. }
        )))
    ));
    assert_eq!(std::fs::read(&other).unwrap(), b"my notes\n");
}

#[test]
fn concurrent_signers_sharing_a_journal_admit_one_message_per_w() {
    // Eight processes (threads with their own open file) race, round after round, to
    // countersign eight different messages under one w: the lock held across read,
    // check and append lets exactly one through per w. (Without the lock some round
    // lets several through.)
    const ROUNDS: u8 = 25;
    let k = keys();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gov.wlog");
    let barrier = std::sync::Barrier::new(8);
    // Per signer and round: Ok(true) signed, Ok(false) refused, Err(other error). No
    // panic inside a thread, which would leave the others waiting at the barrier.
    let wins: Vec<Vec<Result<bool, String>>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..8u8)
            .map(|i| {
                let mut j = Journal::open(&path, &k.gov, NewLog::Allowed).unwrap();
                let barrier = &barrier;
                s.spawn(move || {
                    (0..ROUNDS)
                        .map(|round| {
                            barrier.wait();
                            match j.claim(&k.gov, &[round; ibas::W_LEN], &[i]) {
                                Ok(()) => Ok(true),
                                Err(Error::State(StateError::ReusedW { .. })) => Ok(false),
                                Err(e) => Err(e.to_string()),
                            }
                        })
                        .collect()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    for round in 0..usize::from(ROUNDS) {
        for w in &wins {
            assert!(w[round].is_ok(), "round {round}: {:?}", w[round]);
        }
        let winners = wins.iter().filter(|w| w[round] == Ok(true)).count();
        assert_eq!(winners, 1, "round {round}: {winners} signers passed");
    }
    assert_eq!(
        Journal::open(&path, &k.gov, NewLog::Allowed).unwrap().len(),
        usize::from(ROUNDS)
    );
}

#[test]
fn journals_refuse_special_files_and_stop_at_their_size_limit() {
    let k = keys();
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.wlog");
    drop(Journal::open(&real, &k.alice, NewLog::Allowed).unwrap());
    let link = dir.path().join("link.wlog");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    for p in [
        link.as_path(),
        dir.path(),
        std::path::Path::new("/dev/null"),
    ] {
        assert!(
            matches!(
                Journal::open(p, &k.alice, NewLog::Allowed),
                Err(Error::State(StateError::Journal(
                    PersistError::NotRegular { .. }
                )))
            ),
            "{}",
            p.display()
        );
    }
    // A journal past its size limit is refused with the sizes, not read.
    let big = dir.path().join("big.wlog");
    drop(Journal::open(&big, &k.alice, NewLog::Allowed).unwrap());
    std::fs::OpenOptions::new()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(MAX_JOURNAL_BYTES + 1)
        .unwrap();
    match Journal::open(&big, &k.alice, NewLog::Allowed) {
        Err(e @ Error::State(StateError::Journal(PersistError::TooLarge { .. }))) => {
            assert!(e.to_string().contains("big.wlog"), "{e}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_entry_cut_short_by_a_crash_is_dropped_before_the_next_one() {
    let k = keys();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j");
    let mut j = Journal::open(&path, &k.alice, NewLog::Allowed).unwrap();
    j.claim(&k.alice, &[1u8; ibas::W_LEN], b"a").unwrap();
    let complete = std::fs::read_to_string(&path).unwrap();
    // A crash in the middle of the next entry's write.
    std::fs::write(&path, format!("{complete}020202")).unwrap();
    let mut j = Journal::open(&path, &k.alice, NewLog::Allowed).unwrap();
    assert_eq!(j.len(), 1);
    j.claim(&k.alice, &[3u8; ibas::W_LEN], b"c").unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with(&complete));
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(!text.contains("020202\n") && !text.contains("0202020303"));
}

#[test]
fn version_1_journals_are_imported_as_used_for_any_message() {
    let k = keys();
    let dir = tempfile::tempdir().unwrap();
    let mut j = Journal::open(&dir.path().join("j"), &k.gov, NewLog::Allowed).unwrap();
    let old = [0x42u8; ibas::W_LEN];
    let v1 = format!("{}\n{}\n", to_hex(&old), "AB".repeat(ibas::W_LEN));
    let source = std::path::Path::new("gov.key.wlog");
    assert_eq!(j.import_v1(source, v1.as_bytes()).unwrap(), 2);
    assert_eq!(j.import_v1(source, v1.as_bytes()).unwrap(), 0);
    // The message once signed under `old` is unknown: nothing may be signed under it.
    reused(ibas::sign_with_w(&k.gov, b"anything", &old, &mut j), &old);
    let e = j
        .import_v1(source, format!("{}\nnot hex\n", to_hex(&old)).as_bytes())
        .unwrap_err()
        .to_string();
    assert!(e.contains("gov.key.wlog") && e.contains("line 2"), "{e}");
}

/// A journal is started (created, its key recorded) only where the caller allows it,
/// and says so; without leave, a missing or empty file is an error naming it and
/// nothing is written.
#[test]
fn a_journal_is_started_only_when_allowed() {
    let k = keys();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.wlog");
    let refused = Journal::open(&path, &k.alice, NewLog::Refused).unwrap_err();
    assert!(
        matches!(
            &refused,
            Error::State(StateError::Journal(PersistError::NoLog { path: p, .. })) if *p == path
        ),
        "{refused:?}"
    );
    assert!(
        refused.to_string().contains("no IBAS journal here yet"),
        "{refused}"
    );
    assert!(!path.exists());
    std::fs::write(&path, "").unwrap();
    assert!(Journal::open(&path, &k.alice, NewLog::Refused).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), b"");
    let started = Journal::open(&path, &k.alice, NewLog::Allowed).unwrap();
    assert!(started.started());
    assert_eq!(started.path(), Some(path.as_path()));
    let existing = Journal::open(&path, &k.alice, NewLog::Refused).unwrap();
    assert!(!existing.started());
    assert!(Journal::memory().path().is_none());
}

/// A file that is not a journal is named, never quoted: it may be a secret (a token,
/// a raw key with no newline). Only a journal of another key is quoted (its binding is
/// public).
#[test]
fn a_file_that_is_not_a_journal_is_not_quoted() {
    let k = keys();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("secret.txt");
    for secret in [
        &b"API_TOKEN=hunter2-s3cr3t\n"[..],
        b"API_TOKEN=hunter2-s3cr3t",
        b"hopsig-ibas-wlog: 2 hunter2-s3cr3t\n",
    ] {
        std::fs::write(&path, secret).unwrap();
        let e = Journal::open(&path, &k.alice, NewLog::Allowed).unwrap_err();
        let text = e.to_string();
        assert!(!text.contains("hunter2"), "{text}");
        assert!(text.ends_with("secret.txt: not an IBAS journal"), "{text}");
        assert_eq!(std::fs::read(&path).unwrap(), secret);
    }
    // Another key's journal, or the beginning of its header: named as that key's.
    let gov = to_hex(&journal::key_binding(&k.gov));
    for other in [
        format!("hopsig-ibas-wlog: 1 key {gov}\n"),
        format!("hopsig-ibas-wlog: 1 key {}", &gov[..10]),
    ] {
        std::fs::write(&path, &other).unwrap();
        match Journal::open(&path, &k.alice, NewLog::Allowed) {
            Err(Error::State(StateError::OtherKey { found, .. })) => {
                assert!(gov.starts_with(&found), "{found}");
            }
            other => panic!("{other:?}"),
        }
    }
}

/// `journal::summary` (hopsig inspect) reads a journal with the reader `Journal::open`
/// uses: the beginning of a header is an empty journal whose key is not known yet, not
/// an error.
#[test]
fn the_summary_reads_a_journal_as_open_does() {
    let k = keys();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("j");
    let binding = to_hex(&journal::key_binding(&k.alice));
    let partial = format!("hopsig-ibas-wlog: 1 key {}", &binding[..20]);
    std::fs::write(&path, &partial).unwrap();
    let s = journal::summary(partial.as_bytes()).unwrap();
    assert_eq!((s.key, s.states, s.incomplete_tail), (None, 0, true));
    let mut j = Journal::open(&path, &k.alice, NewLog::Allowed).unwrap();
    assert!(j.is_empty());
    j.claim(&k.alice, &[7u8; ibas::W_LEN], b"m").unwrap();
    let s = journal::summary(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(
        (s.key, s.states, s.incomplete_tail),
        (Some(journal::key_binding(&k.alice)), 1, false)
    );
    // What open refuses, the summary refuses.
    for bad in ["hopsig-ibas-wlog: 1 key XY", "hopsig-ibas-wlog: 1 key 00\n"] {
        std::fs::write(&path, bad).unwrap();
        assert!(
            Journal::open(&path, &k.alice, NewLog::Allowed).is_err(),
            "{bad}"
        );
        assert!(journal::summary(bad.as_bytes()).is_err(), "{bad}");
    }
}
