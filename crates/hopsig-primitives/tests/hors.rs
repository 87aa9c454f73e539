//! HORS verification checks, each isolated by a signature that only that check rejects
//! (docs/spec/kcx.md "HORS over a Merkle tree": a repeated index must give equal
//! leaves; the signature must have exactly the length its indices imply), and the
//! count of SHA-256 compressions verification reports.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hopsig_primitives::hors::{compressions, indices, verify, HorsParams, Tree};

const SETS: [HorsParams; 2] = [HorsParams::PAPER, HorsParams::MODERN];

/// A message of `len` bytes whose m indices under `tree` repeat one, with the positions
/// (k1 < k2) of the repeat.
fn message_with_repeated_index(tree: &Tree, len: usize) -> (Vec<u8>, usize, usize) {
    for t in 0u32.. {
        let mut msg = t.to_be_bytes().to_vec();
        msg.resize(len, b'.');
        let idx = indices(tree.params(), tree.root(), &msg);
        for k2 in 1..idx.len() {
            if let Some(k1) = idx[..k2].iter().position(|&j| j == idx[k2]) {
                return (msg, k1, k2);
            }
        }
    }
    unreachable!()
}

#[test]
fn extra_trailing_path_nodes_are_rejected() {
    for p in SETS {
        let tree = Tree::build(p, &[3; 32]);
        for k in 0..10u8 {
            let msg = [k; 78];
            let sig = tree.sign(&msg);
            assert!(verify(&p, tree.root(), &msg, &sig).is_some());
            // One more whole authentication node (a copy of the last one) ...
            let node = sig[sig.len() - p.node_bytes..].to_vec();
            let extra = [sig.as_slice(), &node].concat();
            assert!(verify(&p, tree.root(), &msg, &extra).is_none(), "node");
            // ... or a part of one.
            let partial = [sig.as_slice(), &node[..1]].concat();
            assert!(verify(&p, tree.root(), &msg, &partial).is_none(), "byte");
        }
    }
}

#[test]
fn a_repeated_index_must_reveal_the_same_secret() {
    for p in SETS {
        let tree = Tree::build(p, &[4; 32]);
        let (msg, k1, k2) = message_with_repeated_index(&tree, 78);
        let sig = tree.sign(&msg);
        assert!(verify(&p, tree.root(), &msg, &sig).is_some());
        let nb = p.node_bytes;
        assert_eq!(sig[k1 * nb..(k1 + 1) * nb], sig[k2 * nb..(k2 + 1) * nb]);
        // The root is computed from the first copy alone, so a wrong second copy can
        // only be caught by comparing the two.
        let mut wrong = sig.clone();
        wrong[k2 * nb] ^= 1;
        assert!(verify(&p, tree.root(), &msg, &wrong).is_none());
    }
}

/// Compressions of one verification, counted from the definitions: the index hash
/// `SHA-256(0x03 ‖ root ‖ msg)`, m leaf hashes `H(0x01 ‖ s)`, and one node hash
/// `H(0x02 ‖ left ‖ right)` per distinct node on the revealed leaves' paths above them.
fn expected_compressions(p: &HorsParams, root: &[u8], msg: &[u8]) -> usize {
    let mut level = indices(p, root, msg);
    level.sort_unstable();
    level.dedup();
    let mut nodes = 0;
    for _ in 0..p.height {
        level = level.iter().map(|i| i >> 1).collect();
        level.dedup();
        nodes += level.len();
    }
    compressions(1 + root.len() + msg.len())
        + usize::from(p.m) * compressions(1 + p.node_bytes)
        + nodes * compressions(1 + 2 * p.node_bytes)
}

#[test]
fn verification_counts_each_compression_once() {
    // A 95-byte index hash input (0x03, a 16-byte root, a 78-byte RA) fills two blocks.
    assert_eq!(compressions(1 + 16 + 78), 2);
    assert_eq!((compressions(55), compressions(56)), (1, 2));
    for p in SETS {
        let tree = Tree::build(p, &[5; 32]);
        for len in [0, 38, 39, 78, 110, 200] {
            let msg = vec![0x4b; len];
            let sig = tree.sign(&msg);
            let work = verify(&p, tree.root(), &msg, &sig).unwrap();
            assert_eq!(
                work,
                expected_compressions(&p, tree.root(), &msg),
                "{p:?}, {len}-byte message"
            );
        }
    }
}
