//! HORS few-time signatures over a Merkle tree, as KC-MT uses them (KC-x paper,
//! ../shared/papers/001, §IV-B and Fig. 2).
//!
//! A key is a 32-byte secret seed `t⁻`. It derives n = 2^h secret values
//! `s_j = H(0x00 ‖ seed ‖ I2OSP(j, 4))`; leaf j of the tree is `L_j = H(0x01 ‖ s_j)`,
//! an inner node is `H(0x02 ‖ left ‖ right)`, and the root is the public key `t⁺`. H is
//! SHA-256 truncated to the parameter set's node size. To sign, the message is hashed to
//! m indices of h bits each (`SHA-256(0x03 ‖ root ‖ msg)`, most significant bits first);
//! the signature reveals `s_j` for each index and the authentication-path nodes the
//! verifier cannot compute itself, each sent once, in canonical order (level from the
//! leaves up, then index). The verifier recomputes the root.
//!
//! Each signature reveals up to m of the n secrets, so a key may sign at most Σ
//! messages: after Σ signatures at most Σ·m secrets are known and one forgery attempt
//! succeeds with probability at most `(Σ·m/n)^m` (all m indices of a new message must
//! hit revealed leaves). [`Counter`] enforces Σ before a signature is released.

use std::path::Path;

use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use crate::persist::{read_log, Header, LineError, Log, NewLog, Owner, PersistError, Record};

/// Secret seed length.
pub const SEED_LEN: usize = 32;

/// Domain-separation bytes of the four hashes.
const TAG_SECRET: u8 = 0x00;
const TAG_LEAF: u8 = 0x01;
const TAG_NODE: u8 = 0x02;
const TAG_INDEX: u8 = 0x03;

/// A HORS / Merkle parameter set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HorsParams {
    /// Tree height h: n = 2^h leaves.
    pub height: u8,
    /// Secrets revealed per signature.
    pub m: u8,
    /// Bytes per hash value (node).
    pub node_bytes: usize,
    /// Most signatures one key may make.
    pub sigma: u32,
}

impl HorsParams {
    /// The paper's choice (§V-A.1): n = 512, m = 3, 128-bit nodes (AES-sized, as the
    /// paper's AES-based hash), Σ = 13: `(13·3/512)^3 ≈ 2^-11.1`, the forgery
    /// probability SPV and the paper target.
    pub const PAPER: HorsParams = HorsParams {
        height: 9,
        m: 3,
        node_bytes: 16,
        sigma: 13,
    };
    /// hopsig's modern set: n = 4096, m = 16, 256-bit nodes, Σ = 16:
    /// `(16·16/4096)^16 = 2^-64`.
    pub const MODERN: HorsParams = HorsParams {
        height: 12,
        m: 16,
        node_bytes: 32,
        sigma: 16,
    };

    /// n = 2^h.
    pub fn leaves(&self) -> usize {
        1 << self.height
    }

    /// log2 of the forgery probability bound `(Σ·m/n)^m` after Σ signatures.
    pub fn forgery_log2(&self) -> f64 {
        let ratio = f64::from(self.sigma) * f64::from(self.m) / self.leaves() as f64;
        f64::from(self.m) * ratio.log2()
    }

    /// Checks the set is usable: 1 ≤ h ≤ 20, 1 ≤ m, m·h ≤ 256, node 16..=32 bytes.
    pub fn is_valid(&self) -> bool {
        (1..=20).contains(&self.height)
            && self.m >= 1
            && usize::from(self.m) * usize::from(self.height) <= 256
            && (16..=32).contains(&self.node_bytes)
            && self.sigma >= 1
    }
}

/// Counts SHA-256 compression-function calls, for the verification-cost benchmark.
pub fn compressions(input_len: usize) -> usize {
    // SHA-256 pads with 0x80 and an 8-byte length: ceil((len + 9) / 64) blocks.
    (input_len + 9).div_ceil(64)
}

fn hash(p: &HorsParams, parts: &[&[u8]], out: &mut [u8]) {
    let mut h = Sha256::new();
    for x in parts {
        h.update(x);
    }
    let d = h.finalize();
    out.copy_from_slice(&d[..p.node_bytes]);
}

fn secret(p: &HorsParams, seed: &[u8; SEED_LEN], j: usize, out: &mut [u8]) {
    hash(p, &[&[TAG_SECRET], seed, &(j as u32).to_be_bytes()], out);
}

fn leaf(p: &HorsParams, s: &[u8], out: &mut [u8]) {
    hash(p, &[&[TAG_LEAF], s], out);
}

fn node(p: &HorsParams, left: &[u8], right: &[u8], out: &mut [u8]) {
    hash(p, &[&[TAG_NODE], left, right], out);
}

/// The m leaf indices a message maps to under the key with root `root`.
pub fn indices(p: &HorsParams, root: &[u8], msg: &[u8]) -> Vec<usize> {
    let d: [u8; 32] = Sha256::new()
        .chain_update([TAG_INDEX])
        .chain_update(root)
        .chain_update(msg)
        .finalize()
        .into();
    let h = usize::from(p.height);
    (0..usize::from(p.m))
        .map(|i| {
            (0..h).fold(0usize, |acc, b| {
                let bit = i * h + b;
                acc << 1 | usize::from(d[bit / 8] >> (7 - bit % 8) & 1)
            })
        })
        .collect()
}

/// The authentication nodes a signature on leaves `idx` carries: (level, index) of
/// every sibling of a node on a revealed leaf's path that is not itself on such a
/// path, level 0 (leaves) first, then index ascending.
fn auth_nodes(p: &HorsParams, idx: &[usize]) -> Vec<(usize, usize)> {
    let mut on_path: Vec<usize> = idx.to_vec();
    on_path.sort_unstable();
    on_path.dedup();
    let mut out = Vec::new();
    for level in 0..usize::from(p.height) {
        for &i in &on_path {
            let sib = i ^ 1;
            if on_path.binary_search(&sib).is_err() {
                out.push((level, sib));
            }
        }
        on_path = on_path.iter().map(|i| i >> 1).collect();
        on_path.dedup();
    }
    out
}

/// Signature size in bytes for a message whose indices are `idx`.
pub fn signature_len(p: &HorsParams, idx: &[usize]) -> usize {
    (idx.len() + auth_nodes(p, idx).len()) * p.node_bytes
}

/// A whole tree, kept by a signer after its first signature (the "cached inner nodes"
/// of §IV-B) so that later signatures only copy values.
pub struct Tree {
    params: HorsParams,
    seed: Zeroizing<[u8; SEED_LEN]>,
    /// `levels[0]` are the leaves, the last level is the root; each level is flat.
    levels: Vec<Vec<u8>>,
}

impl std::fmt::Debug for Tree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Tree(n = {}, root = {})",
            self.params.leaves(),
            crate::codec::to_hex(self.root())
        )
    }
}

impl Tree {
    /// Builds the tree of `seed`: n secrets, n leaves, n − 1 inner nodes.
    pub fn build(params: HorsParams, seed: &[u8; SEED_LEN]) -> Self {
        let nb = params.node_bytes;
        let n = params.leaves();
        let mut leaves = vec![0u8; n * nb];
        let mut s = Zeroizing::new(vec![0u8; nb]);
        for j in 0..n {
            secret(&params, seed, j, &mut s);
            leaf(&params, &s, &mut leaves[j * nb..(j + 1) * nb]);
        }
        let mut levels = vec![leaves];
        while levels.last().map_or(0, Vec::len) > nb {
            let below = levels.last().map_or(&[][..], Vec::as_slice);
            let mut up = vec![0u8; below.len() / 2];
            for (k, out) in up.chunks_mut(nb).enumerate() {
                let l = &below[2 * k * nb..(2 * k + 1) * nb];
                let r = &below[(2 * k + 1) * nb..(2 * k + 2) * nb];
                node(&params, l, r, out);
            }
            levels.push(up);
        }
        Tree {
            params,
            seed: Zeroizing::new(*seed),
            levels,
        }
    }

    /// The root: the public key `t⁺`.
    pub fn root(&self) -> &[u8] {
        self.levels.last().map_or(&[][..], Vec::as_slice)
    }

    /// The parameter set.
    pub fn params(&self) -> &HorsParams {
        &self.params
    }

    /// The HORS signature on `msg` (no counting: callers go through [`Counter`]).
    pub fn sign(&self, msg: &[u8]) -> Vec<u8> {
        let p = &self.params;
        let nb = p.node_bytes;
        let idx = indices(p, self.root(), msg);
        let mut out = Vec::with_capacity(signature_len(p, &idx));
        let mut s = Zeroizing::new(vec![0u8; nb]);
        for &j in &idx {
            secret(p, &self.seed, j, &mut s);
            out.extend_from_slice(&s);
        }
        for (level, i) in auth_nodes(p, &idx) {
            out.extend_from_slice(&self.levels[level][i * nb..(i + 1) * nb]);
        }
        out
    }
}

/// Verifies a HORS signature on `msg` against `root`, recomputing the root from the
/// revealed secrets and the authentication nodes. Returns the number of SHA-256
/// compressions performed, or `None` if the signature is malformed or wrong.
///
/// Works level by level on the (index, value) pairs of the nodes on the revealed
/// leaves' paths, kept sorted by index; a node whose sibling is not among them takes the
/// next supplied authentication node, which is exactly the order the signer wrote them.
pub fn verify(p: &HorsParams, root: &[u8], msg: &[u8], sig: &[u8]) -> Option<usize> {
    const MAX_NODE: usize = 32;
    let nb = p.node_bytes;
    let m = usize::from(p.m);
    if root.len() != nb || nb > MAX_NODE || sig.len() < m * nb {
        return None;
    }
    let idx = indices(p, root, msg);
    // The index hash SHA-256(0x03 ‖ root ‖ msg).
    let mut work = compressions(1 + root.len() + msg.len());
    let mut cur: Vec<(usize, [u8; MAX_NODE])> = Vec::with_capacity(m);
    for (k, &j) in idx.iter().enumerate() {
        let mut l = [0u8; MAX_NODE];
        leaf(p, &sig[k * nb..(k + 1) * nb], &mut l[..nb]);
        work += compressions(1 + nb);
        match cur.binary_search_by_key(&j, |(i, _)| *i) {
            // A repeated index must reveal the same secret.
            Ok(at) if cur[at].1 != l => return None,
            Ok(_) => {}
            Err(at) => cur.insert(at, (j, l)),
        }
    }
    let mut supplied = sig[m * nb..].chunks_exact(nb);
    let mut next: Vec<(usize, [u8; MAX_NODE])> = Vec::with_capacity(m);
    for _ in 0..p.height {
        next.clear();
        let mut j = 0;
        while j < cur.len() {
            let (i, v) = cur[j];
            let mut up = [0u8; MAX_NODE];
            if i & 1 == 0 && cur.get(j + 1).is_some_and(|(s, _)| *s == i + 1) {
                node(p, &v[..nb], &cur[j + 1].1[..nb], &mut up[..nb]);
                j += 2;
            } else {
                let sibling = supplied.next()?;
                if i & 1 == 0 {
                    node(p, &v[..nb], sibling, &mut up[..nb]);
                } else {
                    node(p, sibling, &v[..nb], &mut up[..nb]);
                }
                j += 1;
            }
            work += compressions(1 + 2 * nb);
            next.push((i >> 1, up));
        }
        std::mem::swap(&mut cur, &mut next);
    }
    let all_used = supplied.next().is_none() && supplied.remainder().is_empty();
    match cur.as_slice() {
        [(0, r)] if all_used && &r[..nb] == root => Some(work),
        _ => None,
    }
}

/// Why the signer refused.
#[derive(Debug, thiserror::Error)]
pub enum CounterError {
    /// The key has made Σ signatures.
    #[error("attestation key exhausted: {0} of {0} signatures made (rekey)")]
    Exhausted(u32),
    /// The state file could not be read or written, or is malformed (the error names
    /// it).
    #[error(transparent)]
    State(#[from] PersistError),
}

/// First line of a counter file (it belongs to no one in particular: the key is
/// whatever the caller keeps beside it).
const COUNTER_HEADER: Header<'static> = Header {
    what: "a HORS counter file",
    kind: "hopsig-hors-counter: 1",
    owner: Owner::Is(""),
};

/// The number of signatures a counter log records: its entries are `1`, `2`, … in
/// order, each the count after one more signature.
#[derive(Debug, Default)]
struct Count(u32);

impl Record for Count {
    fn apply(&mut self, entry: &str) -> Result<(), String> {
        let next = self.0.checked_add(1).ok_or("too many signatures")?;
        if entry != next.to_string() {
            return Err(format!("expected signature number {next}"));
        }
        self.0 = next;
        Ok(())
    }
}

/// Counts a key's signatures and refuses the (Σ+1)-th. A persistent counter is a
/// [`Log`] file: `hopsig-hors-counter: 1`, then one line per signature holding the count
/// after it (`1`, `2`, …). [`Counter::reserve`] appends the next line under the file's
/// lock and fsyncs it *before* the signature is released, so a crash can waste a
/// signature but never lets the key sign past Σ, and two processes sharing the file
/// never both take the last signature.
#[derive(Debug)]
pub struct Counter {
    sigma: u32,
    log: Log<Count>,
}

impl Counter {
    /// An in-memory counter.
    pub fn memory(sigma: u32) -> Self {
        Counter {
            sigma,
            log: Log::memory(Count::default()),
        }
    }

    /// A counter persisted at `path` (created if absent; its folder must exist). The
    /// file may hold at most Σ entries.
    ///
    /// # Errors
    /// [`CounterError::State`] if the file is unreadable, malformed, too large, or not
    /// a regular file.
    pub fn persistent(path: &Path, sigma: u32) -> Result<Self, CounterError> {
        // The header and Σ entries of at most 10 digits and a newline each.
        let max = COUNTER_HEADER.kind.len() as u64 + 1 + 11 * u64::from(sigma);
        Ok(Counter {
            sigma,
            log: Log::open(path, COUNTER_HEADER, max, Count::default(), NewLog::Allowed)?,
        })
    }

    /// Whether `bytes` start like a counter file (its header's first word).
    pub fn sniff(bytes: &[u8]) -> bool {
        let kind = COUNTER_HEADER.kind;
        let name = kind.split(' ').next().unwrap_or(kind);
        bytes.starts_with(name.as_bytes())
    }

    /// The number of signatures a counter file's bytes record (`docs/spec/kcx.md`),
    /// read without opening or locking anything (`hopsig inspect`), by the reader
    /// [`Counter::persistent`] opens it with.
    ///
    /// # Errors
    /// [`LineError`] for a first line other than the counter header or a line that is
    /// not the next count.
    pub fn recorded(bytes: &[u8]) -> Result<u32, LineError> {
        Ok(read_log(bytes, COUNTER_HEADER, Count::default())?.record.0)
    }

    /// Signatures made so far (as of the last [`Counter::reserve`], or opening).
    pub fn used(&self) -> u32 {
        self.log.record().0
    }

    /// Reserves one signature: fails once Σ are used; persists the new count first.
    ///
    /// # Errors
    /// [`CounterError::Exhausted`], or [`CounterError::State`] if the count cannot be
    /// written (then nothing may be signed).
    pub fn reserve(&mut self) -> Result<(), CounterError> {
        let sigma = self.sigma;
        self.log.append(|count| {
            if count.0 >= sigma {
                Err(CounterError::Exhausted(sigma))
            } else {
                Ok(Some((count.0 + 1).to_string()))
            }
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn tree(p: HorsParams, b: u8) -> Tree {
        Tree::build(p, &[b; SEED_LEN])
    }

    #[test]
    fn parameter_sets_meet_their_forgery_bounds() {
        assert!(HorsParams::PAPER.is_valid() && HorsParams::MODERN.is_valid());
        assert!(HorsParams::PAPER.forgery_log2() <= -11.0);
        assert!(HorsParams::PAPER.forgery_log2() > -12.0);
        assert!(HorsParams::MODERN.forgery_log2() <= -64.0);
    }

    #[test]
    fn sign_verify_and_rejections() {
        for p in [HorsParams::PAPER, HorsParams::MODERN] {
            let t = tree(p, 1);
            for k in 0..20u8 {
                let msg = [k; 40];
                let sig = t.sign(&msg);
                assert!(verify(&p, t.root(), &msg, &sig).is_some());
                assert!(verify(&p, t.root(), b"other", &sig).is_none());
                assert!(verify(&p, tree(p, 2).root(), &msg, &sig).is_none());
                // Every byte matters: secrets and path nodes.
                for at in [0, p.node_bytes, sig.len() - 1] {
                    let mut bad = sig.clone();
                    bad[at] ^= 1;
                    assert!(verify(&p, t.root(), &msg, &bad).is_none(), "byte {at}");
                }
                assert!(verify(&p, t.root(), &msg, &sig[..sig.len() - 1]).is_none());
            }
        }
    }

    #[test]
    fn shared_path_nodes_are_sent_once() {
        let p = HorsParams::PAPER;
        // Leaves 0 and 1 share every ancestor: one secret each and h − 1 path nodes.
        assert_eq!(auth_nodes(&p, &[0, 1]).len(), 8);
        assert_eq!(auth_nodes(&p, &[0]).len(), 9);
        assert_eq!(auth_nodes(&p, &[0, 511]).len(), 16);
        assert_eq!(auth_nodes(&p, &[5, 5]).len(), 9);
    }

    #[test]
    fn counter_stops_at_sigma_and_survives_restart() {
        let mut c = Counter::memory(2);
        c.reserve().unwrap();
        c.reserve().unwrap();
        assert!(matches!(c.reserve(), Err(CounterError::Exhausted(2))));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key.count");
        let mut c = Counter::persistent(&path, 3).unwrap();
        c.reserve().unwrap();
        c.reserve().unwrap();
        drop(c);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "hopsig-hors-counter: 1\n1\n2\n"
        );
        assert_eq!(Counter::recorded(&std::fs::read(&path).unwrap()), Ok(2));
        assert_eq!(
            Counter::recorded(b"hopsig-hors-counter: 1\n1\n3\n").map_err(|e| e.to_string()),
            Err("line 3: expected signature number 2".into())
        );
        assert!(Counter::recorded(b"hopsig-ibas-wlog: 1\n").is_err());
        let mut c = Counter::persistent(&path, 3).unwrap();
        assert_eq!(c.used(), 2);
        c.reserve().unwrap();
        assert!(matches!(c.reserve(), Err(CounterError::Exhausted(3))));
        std::fs::write(&path, "garbage").unwrap();
        assert!(Counter::persistent(&path, 3).is_err());
        std::fs::write(&path, "hopsig-hors-counter: 1\n1\n3\n").unwrap();
        let e = Counter::persistent(&path, 3).unwrap_err().to_string();
        assert!(e.contains("line 3") && e.contains("number 2"), "{e}");
    }

    #[test]
    fn handles_on_one_counter_file_share_sigma() {
        // Several processes (here: threads, each with its own open file) signing with
        // one key: the lock makes each see the others' reservations, so together they
        // stop at Σ.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key.count");
        let made: u32 = std::thread::scope(|s| {
            let workers: Vec<_> = (0..4)
                .map(|_| {
                    let mut c = Counter::persistent(&path, 16).unwrap();
                    s.spawn(move || {
                        let mut made = 0;
                        while c.reserve().is_ok() {
                            made += 1;
                        }
                        made
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).sum()
        });
        assert_eq!(made, 16);
        assert_eq!(Counter::persistent(&path, 16).unwrap().used(), 16);
    }
}
