//! A face drops what it cannot decode and reads on (docs/spec/ndn-ibas.md §5.1):
//! a peer on the face's stream (standing in for the forwarder) sends each hostile
//! packet of issue 22 — bare and, as ndnd delivers packets, inside an LpPacket —
//! each followed by a valid Interest, which the face must still hand over; the drops
//! are counted by reason and reported to the hook; the peer closing the stream is
//! [`FaceError::Closed`].

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Write;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::hostile::{self, Hostile};
use hopsig_ndn::{DropReason, Face, FaceError, Interest, Name, Packet};
use proptest::prelude::*;

/// A face connected to a peer that plays the forwarder, in a fresh folder.
struct Link {
    face: Face,
    peer: UnixStream,
    dir: PathBuf,
}

impl Drop for Link {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn link(tag: &str) -> Link {
    let dir = std::env::temp_dir().join(format!("hopsig-face-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir(&dir).unwrap();
    let path = dir.join("fw.sock");
    let listener = UnixListener::bind(&path).unwrap();
    let face = Face::unix(&path).unwrap();
    let (peer, _) = listener.accept().unwrap();
    Link { face, peer, dir }
}

/// A valid Interest (1) with Nonce `k`.
fn valid(k: u8) -> Vec<u8> {
    let mut i = Interest::new(
        "/moderators/Government/safetyConfirmation/wonderland/Alice"
            .parse()
            .unwrap(),
    );
    i.nonce = Some([k; 4]);
    i.encode()
}

/// Sends `wire` then a valid Interest; the face must hand over that Interest.
fn survives(link: &mut Link, what: &str, wire: &[u8], k: u8) {
    link.peer.write_all(wire).unwrap();
    link.peer.write_all(&valid(k)).unwrap();
    match link
        .face
        .recv(Some(Instant::now() + Duration::from_secs(5)))
    {
        Ok(Packet::Interest(i, None)) => assert_eq!(i.nonce, Some([k; 4]), "{what}"),
        other => panic!("{what}: {other:?}"),
    }
}

#[test]
fn a_face_drops_each_hostile_packet_counts_it_and_reads_on() {
    let data: Name = "/wonderland/Carol/safetyConfirmation/2".parse().unwrap();
    let interest: Name = "/moderators/Government/safetyConfirmation/wonderland/Carol"
        .parse()
        .unwrap();
    let mut all: Vec<Hostile> = hostile::through_ndnd(&data);
    all.extend(hostile::on_the_face(&data, &interest));
    all.extend(hostile::oversize(&data, &interest));
    assert_eq!(all.len(), 18);

    let mut link = link("hostile");
    let heard = Arc::new(Mutex::new(vec![]));
    let hook = Arc::clone(&heard);
    link.face.on_drop(move |reason, detail, drops| {
        assert!(!detail.is_empty());
        hook.lock().unwrap().push((reason, drops.total()));
    });
    let mut want: Vec<&str> = vec![];
    for (k, h) in all.iter().enumerate() {
        survives(&mut link, h.what, &h.wire, k as u8);
        // As ndnd hands packets to an application: in an LpPacket with a PitToken.
        let lp = hostile::with_pit_token(&h.wire, &[7; 8]);
        survives(&mut link, h.what, &lp, 100 + k as u8);
        want.extend([h.reason, h.reason]);
    }
    // Framing lost: the face reads on from the next packet.
    let u = hostile::unframable();
    survives(&mut link, u.what, &u.wire, 200);
    want.push(u.reason);

    let heard = heard.lock().unwrap().clone();
    let reasons: Vec<&str> = heard.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(reasons, want);
    // The hook sees the running total.
    assert!(heard
        .iter()
        .enumerate()
        .all(|(n, (_, t))| *t == n as u64 + 1));
    let drops = link.face.drops();
    assert_eq!(drops.total(), want.len() as u64);
    for r in [
        DropReason::NonCanonical,
        DropReason::Truncated,
        DropReason::Unframable,
        DropReason::Oversize,
    ] {
        let n = want.iter().filter(|w| **w == r.as_str()).count() as u64;
        assert!(n > 0);
        assert_eq!(drops.count(r), n, "{r}");
    }
    assert!(drops.to_string().starts_with(&format!("{} (", want.len())));

    // Only the stream closing ends a receive.
    link.peer.shutdown(std::net::Shutdown::Both).unwrap();
    assert!(matches!(link.face.recv(None), Err(FaceError::Closed)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any octets framed as one Data or Interest TLV, valid or not, cost at most that
    /// frame: the valid Interest after it still arrives.
    #[test]
    fn a_whole_frame_of_garbage_costs_only_itself(
        typ in prop_oneof![Just(5u32), Just(6u32)],
        body in proptest::collection::vec(any::<u8>(), 0..600),
    ) {
        let mut frame = vec![];
        hopsig_ndn::tlv::put_tlv(&mut frame, typ, &body);
        let mut link = link("prop");
        link.peer.write_all(&frame).unwrap();
        link.peer.write_all(&valid(42)).unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        // The garbage may happen to decode: then it comes first.
        let mut got = link.face.recv(Some(deadline)).unwrap();
        if !matches!(&got, Packet::Interest(i, None) if i.nonce == Some([42; 4])) {
            got = link.face.recv(Some(deadline)).unwrap();
        }
        prop_assert!(matches!(&got, Packet::Interest(i, None) if i.nonce == Some([42; 4])));
    }
}
