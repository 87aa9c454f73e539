//! Keychain-based signatures for BGP, KC-x (Yin, Sheng, Wang, Pan;
//! ../shared/papers/001): KC-RSA with the XOR-ed aggregate (§IV-A, eq. 2–3), KC-MT with
//! HORS over Merkle trees (§IV-B), and the hybrid of both (§IV-C). `docs/spec/kcx.md`
//! gives the byte formats and the trust model.
//!
//! **Chain of authorization (§III-A).** The origin speaker R_0 signs its route
//! attestation RA_0 = {prefix; N_0; V_0; expiry; t_0⁺} with its long-term RSA key K_0
//! (the PKI key, eq. 2). Every later speaker R_i appends RA_i = {prefix; N_0..N_i; V_i;
//! expiry; t_i⁺} signed with the attestation secret t_{i−1}⁻ that R_{i−1} handed it on
//! their link ([`Handover`]), and hands its own t_i⁻ to the next hop, never to
//! verifiers. A verifier needs only K_0⁺ and the speakers' neighbour lists
//! ([`Directory`]).
//!
//! **One aggregate for every RSA-signed hop.** hopsig carries a single value x, with
//! one SPLIT bit per RSA signature (BGR App. F, because each modulus N has its own
//! domain): `x_0 = SPLIT(K_0⁻(G(RA_0)))` and, for a KC-RSA hop,
//! `x_i = SPLIT(t_{i−1}⁻(x_{prev} ⊕ G(RA_i)))` (eq. 3). A KC-MT hop leaves x alone and
//! carries its own HORS signature under the tree root t_{i−1}⁺. Pure KC-RSA, pure KC-MT
//! and the hybrid are the same format; each hop says which key it used.
//!
//! **Bit vector and neighbour lists (§III-C).** Each speaker has an ordered neighbour
//! list (in the paper, in its X.509 certificate); V_i marks which of them may receive the
//! route. Verification requires N_{i+1} to be marked in V_i, and the verifier itself in
//! the last V when it says who it is.

pub mod sim;
mod wire;

use std::collections::HashMap;

use hopsig_primitives::hash::sha256;
use hopsig_primitives::hors::{self, Counter, HorsParams, Tree, SEED_LEN};
use hopsig_primitives::rsa::{RsaPublicKey, RsaSecretKey};
use zeroize::Zeroizing;

use crate::bgr::oracles::{g, in_d, split, unsplit, xor_into};
use crate::error::OpensslResult;
use crate::Error;

pub use wire::{HopKind, Suite, MAX_HOPS, MAX_PREFIX};

/// An AS number.
pub type Asn = u32;

/// Domain-separation tag of the RA encoding hashed by G and signed by HORS.
pub const TAG_RA: &[u8] = b"HOPSIG-KCX-V1-RA";

/// Parameters shared by every speaker of a deployment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KcParams {
    /// RSA modulus bits of K_0 and of every KC-RSA attestation key (1024 as in the
    /// paper, or 2048).
    pub rsa_bits: u32,
    /// HORS parameters of KC-MT attestation keys.
    pub hors: HorsParams,
}

impl KcParams {
    /// The paper's: RSA-1024 and HORS (512, 3), Σ = 13.
    pub const PAPER: KcParams = KcParams {
        rsa_bits: 1024,
        hors: HorsParams::PAPER,
    };
    /// hopsig's modern set: RSA-2048 and HORS (4096, 16), Σ = 16.
    pub const MODERN: KcParams = KcParams {
        rsa_bits: 2048,
        hors: HorsParams::MODERN,
    };

    /// RSA modulus length in bytes (k).
    pub fn k(&self) -> usize {
        self.rsa_bits as usize / 8
    }
}

/// What a verifier trusts: the origin's PKI key and every speaker's neighbour list.
pub trait Directory {
    /// K⁺ of the speaker of `asn`, if it has one in the PKI.
    fn origin_key(&self, asn: Asn) -> Option<&RsaPublicKey>;
    /// The ordered neighbour list of `asn` (bit j of a V names neighbour j).
    fn neighbours(&self, asn: Asn) -> Option<&[Asn]>;
}

/// A [`Directory`] held in memory.
#[derive(Debug, Default)]
pub struct StaticDirectory {
    keys: HashMap<Asn, RsaPublicKey>,
    neighbours: HashMap<Asn, Vec<Asn>>,
}

impl StaticDirectory {
    /// Records `asn`'s PKI key.
    pub fn set_key(&mut self, asn: Asn, key: RsaPublicKey) {
        self.keys.insert(asn, key);
    }
    /// Records `asn`'s ordered neighbour list.
    pub fn set_neighbours(&mut self, asn: Asn, list: Vec<Asn>) {
        self.neighbours.insert(asn, list);
    }
}

impl Directory for StaticDirectory {
    fn origin_key(&self, asn: Asn) -> Option<&RsaPublicKey> {
        self.keys.get(&asn)
    }
    fn neighbours(&self, asn: Asn) -> Option<&[Asn]> {
        self.neighbours.get(&asn).map(Vec::as_slice)
    }
}

/// The bit vector V over `neighbours` with the bits of `next_hops` set.
///
/// # Errors
/// [`Error::Key`] if a next hop is not in the list.
pub fn bit_vector(neighbours: &[Asn], next_hops: &[Asn]) -> Result<Vec<u8>, Error> {
    let mut v = vec![0u8; neighbours.len().div_ceil(8)];
    for hop in next_hops {
        let j = neighbours
            .iter()
            .position(|n| n == hop)
            .ok_or_else(|| Error::Key(format!("AS{hop} is not in the neighbour list")))?;
        v[j / 8] |= 0x80 >> (j % 8);
    }
    Ok(v)
}

fn marked(neighbours: &[Asn], v: &[u8], asn: Asn) -> bool {
    neighbours
        .iter()
        .position(|n| *n == asn)
        .is_some_and(|j| v.get(j / 8).is_some_and(|b| b & (0x80 >> (j % 8)) != 0))
}

/// The attestation public key(s) t_i⁺ a speaker issues to its next hops: an RSA key,
/// a Merkle root, or both (the hybrid lets the receiver choose, §IV-C).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttestationPublic {
    /// KC-RSA attestation key.
    pub rsa: Option<RsaPublicKey>,
    /// KC-MT tree root.
    pub mt: Option<Vec<u8>>,
}

/// The secret half t_i⁻, which travels only on the authenticated link to the next
/// hop. It never appears in a [`SignedRoute`], and verifiers never see it.
pub struct Handover {
    rsa: Option<RsaSecretKey>,
    mt: Option<Zeroizing<[u8; SEED_LEN]>>,
}

impl std::fmt::Debug for Handover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Handover(rsa: {}, mt: {})",
            self.rsa.is_some(),
            self.mt.is_some()
        )
    }
}

impl Handover {
    /// The bytes sent on the authenticated link to the next hop (or kept by a router
    /// that must survive a restart): `flags(1)` (bit 0 RSA, bit 1 KC-MT), then the RSA
    /// key as `len(2) ‖ PKCS #8 PEM`, then the 32-byte KC-MT seed.
    ///
    /// # Errors
    /// Backend failures; [`Error::Encode`] for a PEM longer than the two-byte length allows.
    pub fn to_bytes(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        let pem = self
            .rsa
            .as_ref()
            .map(RsaSecretKey::to_pkcs8_pem)
            .transpose()?;
        // Sized exactly, so the secret is never left behind in a reallocated buffer.
        let len =
            1 + pem.as_ref().map_or(0, |p| 2 + p.len()) + self.mt.as_ref().map_or(0, |_| SEED_LEN);
        let mut w = hopsig_primitives::codec::Writer::with_capacity(len);
        w.u8(u8::from(self.rsa.is_some()) | u8::from(self.mt.is_some()) << 1);
        if let Some(pem) = &pem {
            w.u16_prefixed("hand-over RSA key", pem.as_bytes())?;
        }
        if let Some(seed) = &self.mt {
            w.bytes(seed.as_ref());
        }
        Ok(Zeroizing::new(w.into_bytes()))
    }

    /// Reads [`Handover::to_bytes`].
    ///
    /// # Errors
    /// [`Error::Decode`] / [`Error::Key`] for malformed bytes or an unacceptable key.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let mut r = hopsig_primitives::codec::Reader::new(bytes);
        let flags = r.u8("hand-over flags")?;
        if flags == 0 || flags & !3 != 0 {
            return Err(hopsig_primitives::codec::DecodeError::Invalid {
                field: "hand-over flags",
                reason: "must name one or both key kinds",
            }
            .into());
        }
        let rsa = if flags & 1 != 0 {
            Some(RsaSecretKey::from_pkcs8_pem(
                r.u16_prefixed("hand-over RSA key")?,
            )?)
        } else {
            None
        };
        let mt = if flags & 2 != 0 {
            Some(Zeroizing::new(r.array::<SEED_LEN>("hand-over KC-MT seed")?))
        } else {
            None
        };
        r.finish("hand-over")?;
        Ok(Handover { rsa, mt })
    }
}

/// Which kinds of attestation key to issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Issue {
    /// KC-RSA only.
    Rsa,
    /// KC-MT only.
    Mt,
    /// Both (hybrid): the next hop picks.
    Both,
}

/// Generates a fresh attestation key pair (done ahead of time and reused for many
/// UPDATEs, §III-A). For KC-MT this builds the tree once to learn its root.
///
/// # Errors
/// Backend failures.
pub fn issue(params: &KcParams, kinds: Issue) -> Result<(AttestationPublic, Handover), Error> {
    let rsa = match kinds {
        Issue::Rsa | Issue::Both => Some(RsaSecretKey::generate(params.rsa_bits)?),
        Issue::Mt => None,
    };
    let mt = match kinds {
        Issue::Mt | Issue::Both => {
            let mut seed = Zeroizing::new([0u8; SEED_LEN]);
            openssl::rand::rand_priv_bytes(seed.as_mut()).backend()?;
            Some(seed)
        }
        Issue::Rsa => None,
    };
    let public = AttestationPublic {
        rsa: rsa.as_ref().map(|k| k.public().clone()),
        mt: mt
            .as_ref()
            .map(|s| Tree::build(params.hors, s).root().to_vec()),
    };
    Ok((public, Handover { rsa, mt }))
}

/// What a speaker holds after receiving a [`Handover`] from its predecessor: the
/// KC-RSA key and/or the KC-MT tree (built at the first signature, then cached, §IV-B)
/// with its signature counter (at most Σ signatures).
pub struct ReceivedKey {
    params: KcParams,
    rsa: Option<RsaSecretKey>,
    mt_seed: Option<Zeroizing<[u8; SEED_LEN]>>,
    tree: Option<Tree>,
    counter: Counter,
}

impl std::fmt::Debug for ReceivedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ReceivedKey({} KC-MT signatures used)",
            self.counter.used()
        )
    }
}

impl ReceivedKey {
    /// Takes over a hand-over with an in-memory signature counter.
    pub fn new(params: KcParams, h: Handover) -> Self {
        Self::with_counter(params, h, Counter::memory(params.hors.sigma))
    }

    /// Takes over a hand-over with the given counter (use
    /// [`Counter::persistent`] so that Σ survives a restart).
    pub fn with_counter(params: KcParams, h: Handover, counter: Counter) -> Self {
        ReceivedKey {
            params,
            rsa: h.rsa,
            mt_seed: h.mt,
            tree: None,
            counter,
        }
    }

    /// KC-MT signatures made with this key.
    pub fn mt_used(&self) -> u32 {
        self.counter.used()
    }

    /// Whether the KC-MT tree is built (after the first KC-MT signature).
    pub fn tree_cached(&self) -> bool {
        self.tree.is_some()
    }

    fn mt_sign(&mut self, msg: &[u8]) -> Result<Vec<u8>, Error> {
        let seed = self
            .mt_seed
            .as_ref()
            .ok_or_else(|| Error::Key("the predecessor issued no KC-MT attestation key".into()))?;
        self.counter.reserve().map_err(Error::from)?;
        let params = self.params.hors;
        let tree = self.tree.get_or_insert_with(|| Tree::build(params, seed));
        Ok(tree.sign(msg))
    }
}

/// How hop i is signed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HopSig {
    /// RA_0, signed with K_0 into the aggregate.
    Origin,
    /// KC-RSA: with t_{i−1}⁻ into the aggregate.
    Rsa,
    /// KC-MT: HORS signature under the root t_{i−1}⁺.
    Mt(Vec<u8>),
}

/// One route attestation RA_i and its signature kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop {
    /// N_i.
    pub asn: Asn,
    /// V_i over N_i's neighbour list.
    pub v: Vec<u8>,
    /// Expiration time, Unix seconds (§III-B, against replay).
    pub expires: u64,
    /// t_i⁺ issued to the next hops.
    pub key: AttestationPublic,
    /// How this RA is signed.
    pub sig: HopSig,
}

/// A route with its KC-x path authenticator, as it travels in an UPDATE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedRoute {
    /// Parameters all hops use.
    pub params: KcParams,
    /// The NLRI (prefix) the route is for, as bytes (e.g. `198.51.100.0/24`).
    pub prefix: Vec<u8>,
    /// RA_0 .. RA_n.
    pub hops: Vec<Hop>,
    /// The aggregate x over the RSA-signed hops.
    pub x: Vec<u8>,
    /// SPLIT bits, one per RSA-signed hop (origin first).
    pub b: Vec<bool>,
}

impl SignedRoute {
    /// The AS path N_0 .. N_n.
    pub fn path(&self) -> Vec<Asn> {
        self.hops.iter().map(|h| h.asn).collect()
    }

    /// The bytes RA_i signs: `TAG_RA ‖ k ‖ prefix ‖ N_0..N_i ‖ kind ‖ expiry ‖ V_i ‖ t_i⁺`
    /// (docs/spec/kcx.md gives the field encodings).
    ///
    /// # Errors
    /// [`Error::Encode`] for parameters without a suite byte, a prefix, bit vector or
    /// hop count over the format's limits, or `i` past the last hop.
    pub fn attestation_bytes(&self, i: usize) -> Result<Vec<u8>, Error> {
        Ok(wire::attestation_bytes(self, i)?)
    }
}

fn full_domain(params: &KcParams, msg: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; params.k()];
    // BGR's G without a parameter set (docs/spec/kcx.md keeps these bytes).
    g(&[], &sha256(&[TAG_RA, msg]), &mut out);
    out
}

/// `(x, b) = SPLIT(key⁻(y))`.
fn rsa_step(key: &RsaSecretKey, y: &[u8]) -> Result<(Vec<u8>, bool), Error> {
    let mut big = vec![0u8; y.len()];
    key.invert(y, &mut big)?;
    let b = split(&mut big);
    Ok((big, b))
}

fn check_rsa_size(params: &KcParams, key: &RsaPublicKey) -> Result<(), Error> {
    if key.modulus_bits() != params.rsa_bits {
        return Err(Error::Mismatch(format!(
            "RSA key of {} bits in a KC-RSA chain of {}-bit keys",
            key.modulus_bits(),
            params.rsa_bits
        )));
    }
    Ok(())
}

/// R_0 originates `prefix` (eq. 2): RA_0 signed with its PKI key, attestation key(s)
/// `issued` (from [`issue`]) offered to `next_hops`.
///
/// # Errors
/// [`Error::Key`] for a next hop outside `neighbours`; [`Error::Mismatch`] for a key
/// size other than the parameters'; [`Error::Encode`] for parameters without a suite
/// or a prefix or bit vector over the format's limits; backend failures.
#[allow(clippy::too_many_arguments)]
pub fn originate(
    params: KcParams,
    origin_key: &RsaSecretKey,
    origin: Asn,
    neighbours: &[Asn],
    next_hops: &[Asn],
    prefix: &[u8],
    expires: u64,
    issued: &AttestationPublic,
) -> Result<SignedRoute, Error> {
    check_rsa_size(&params, origin_key.public())?;
    let mut route = SignedRoute {
        params,
        prefix: prefix.to_vec(),
        hops: vec![Hop {
            asn: origin,
            v: bit_vector(neighbours, next_hops)?,
            expires,
            key: issued.clone(),
            sig: HopSig::Origin,
        }],
        x: Vec::new(),
        b: Vec::new(),
    };
    let (x, b) = rsa_step(
        origin_key,
        &full_domain(&params, &route.attestation_bytes(0)?),
    )?;
    route.x = x;
    route.b.push(b);
    Ok(route)
}

/// Which received key a speaker signs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primary {
    /// KC-RSA (small aggregate).
    Rsa,
    /// KC-MT (fast).
    Mt,
}

/// R_i forwards `route` (eq. 3 for KC-RSA, HORS for KC-MT): appends RA_i signed with
/// the key `received` from R_{i−1}, offering `issued` to its own next hops. The route
/// is not verified here (the caller verifies on receipt, §III-A).
///
/// # Errors
/// [`Error::Key`] if the predecessor issued no key of the `primary` kind or a next hop
/// is not a neighbour; [`Error::State`] ([`crate::StateError::Exhausted`]) once the
/// KC-MT key has made Σ signatures, or if its counter file fails;
/// [`Error::TooManySigners`] past [`MAX_HOPS`]; [`Error::Encode`] as for [`originate`];
/// backend failures.
#[allow(clippy::too_many_arguments)]
pub fn forward(
    route: &SignedRoute,
    received: &mut ReceivedKey,
    primary: Primary,
    me: Asn,
    neighbours: &[Asn],
    next_hops: &[Asn],
    expires: u64,
    issued: &AttestationPublic,
) -> Result<SignedRoute, Error> {
    if route.hops.len() >= MAX_HOPS {
        return Err(Error::TooManySigners { max: MAX_HOPS });
    }
    let params = route.params;
    let mut next = route.clone();
    next.hops.push(Hop {
        asn: me,
        v: bit_vector(neighbours, next_hops)?,
        expires,
        key: issued.clone(),
        sig: match primary {
            Primary::Rsa => HopSig::Rsa,
            Primary::Mt => HopSig::Mt(Vec::new()),
        },
    });
    let i = next.hops.len() - 1;
    let msg = next.attestation_bytes(i)?;
    match primary {
        Primary::Rsa => {
            let key = received.rsa.as_ref().ok_or_else(|| {
                Error::Key("the predecessor issued no KC-RSA attestation key".into())
            })?;
            check_rsa_size(&params, key.public())?;
            let mut y = full_domain(&params, &msg);
            if next.x.len() != y.len() {
                return Err(Error::Mismatch("aggregate length differs from k".into()));
            }
            xor_into(&mut y, &next.x);
            let (x, b) = rsa_step(key, &y)?;
            next.x = x;
            next.b.push(b);
        }
        Primary::Mt => {
            let sig = received.mt_sign(&msg)?;
            next.hops[i].sig = HopSig::Mt(sig);
        }
    }
    Ok(next)
}

/// Verifies `route` at time `now` (Unix seconds): every RA unexpired; each N_{i+1}
/// marked in V_i over N_i's neighbour list, and `receiver` (if given) in the last V;
/// every KC-MT hop's HORS signature under the previous RA's root; the RSA aggregate
/// unwound hop by hop back to RA_0 and checked with the origin's PKI key (§IV-A's five
/// steps). The path must hold at least the origin.
///
/// # Errors
/// [`Error::InvalidSignature`] for any failure (which one is not said).
pub fn verify(
    route: &SignedRoute,
    dir: &dyn Directory,
    receiver: Option<Asn>,
    now: u64,
) -> Result<(), Error> {
    verify_counting(route, dir, receiver, now).map(|_| ())
}

/// [`verify`], also returning the SHA-256 compressions its KC-MT hops performed (for
/// the benchmark that compares KC-MT verification with that many compressions).
///
/// # Errors
/// As [`verify`].
pub fn verify_counting(
    route: &SignedRoute,
    dir: &dyn Directory,
    receiver: Option<Asn>,
    now: u64,
) -> Result<usize, Error> {
    let bad = || Error::InvalidSignature;
    let params = &route.params;
    let hops = &route.hops;
    let (first, rest) = hops.split_first().ok_or_else(bad)?;
    if first.sig != HopSig::Origin || rest.iter().any(|h| h.sig == HopSig::Origin) {
        return Err(bad());
    }
    let rsa_hops = hops
        .iter()
        .filter(|h| !matches!(h.sig, HopSig::Mt(_)))
        .count();
    if route.b.len() != rsa_hops || route.x.len() != params.k() || !in_d(&route.x) {
        return Err(bad());
    }
    for (i, hop) in hops.iter().enumerate() {
        if hop.expires < now {
            return Err(bad());
        }
        let list = dir.neighbours(hop.asn).ok_or_else(bad)?;
        let next = hops.get(i + 1).map(|h| h.asn).or(receiver);
        if let Some(n) = next {
            if !marked(list, &hop.v, n) {
                return Err(bad());
            }
        }
    }
    let mut work = 0;
    // KC-MT hops: independent HORS signatures.
    for i in 1..hops.len() {
        if let HopSig::Mt(sig) = &hops[i].sig {
            let root = hops[i - 1].key.mt.as_ref().ok_or_else(bad)?;
            let ra = route.attestation_bytes(i).map_err(|_| bad())?;
            work += hors::verify(&params.hors, root, &ra, sig).ok_or_else(bad)?;
        }
    }
    // The RSA aggregate, last RSA hop first.
    let mut x = route.x.clone();
    let mut bits = route.b.iter().rev();
    for i in (0..hops.len()).rev() {
        let key = match &hops[i].sig {
            HopSig::Mt(_) => continue,
            HopSig::Origin => dir.origin_key(hops[0].asn).ok_or_else(bad)?,
            HopSig::Rsa => hops[i - 1].key.rsa.as_ref().ok_or_else(bad)?,
        };
        let mut y = rsa_unwind(params, key, &x, *bits.next().ok_or_else(bad)?)?;
        let h = full_domain(params, &route.attestation_bytes(i).map_err(|_| bad())?);
        if hops[i].sig == HopSig::Origin {
            return if y == h { Ok(work) } else { Err(bad()) };
        }
        xor_into(&mut y, &h);
        x = y;
    }
    Err(bad())
}

/// One step back through an RSA-signed hop: `y = key⁺(x + b·2^(8k−1))`, which must lie
/// in D, with the key of the suite's modulus size.
fn rsa_unwind(params: &KcParams, key: &RsaPublicKey, x: &[u8], b: bool) -> Result<Vec<u8>, Error> {
    let bad = || Error::InvalidSignature;
    if key.modulus_bits() != params.rsa_bits {
        return Err(bad());
    }
    let mut big = vec![0u8; params.k()];
    unsplit(b, x, &mut big);
    let mut y = vec![0u8; params.k()];
    key.apply(&big, &mut y).map_err(|_| bad())?;
    if !in_d(&y) {
        return Err(bad());
    }
    Ok(y)
}

/// Unwinds and checks only the last KC-RSA hop of `route`: `y = t⁺(X)` in D, then
/// `x_prev = y ⊕ G(RA_n)` must equal the aggregate the previous hop would carry; used
/// by the benchmark to time one KC-RSA verification step (the full check is
/// [`verify`]).
pub(crate) fn verify_last_rsa_hop(route: &SignedRoute) -> Result<(), Error> {
    let bad = || Error::InvalidSignature;
    let i = route.hops.len() - 1;
    let key = route
        .hops
        .get(i.wrapping_sub(1))
        .and_then(|h| h.key.rsa.as_ref())
        .ok_or_else(bad)?;
    let mut y = rsa_unwind(
        &route.params,
        key,
        &route.x,
        *route.b.last().ok_or_else(bad)?,
    )?;
    let ra = route.attestation_bytes(i).map_err(|_| bad())?;
    xor_into(&mut y, &full_domain(&route.params, &ra));
    std::hint::black_box(y);
    Ok(())
}

pub use wire::{decode, encode};
