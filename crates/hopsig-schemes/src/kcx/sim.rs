//! A simulated AS path for the CLI (`hopsig kcx path`) and the benchmarks: speakers
//! AS64500, AS64501, … in a line, each with an ordered neighbour list (predecessor,
//! one bystander, successor), the origin's PKI key in a [`StaticDirectory`], and every
//! hand-over passed on the simulated link.

use hopsig_primitives::rsa::RsaSecretKey;

use super::{
    forward, issue, originate, verify, Asn, Handover, Issue, KcParams, Primary, ReceivedKey,
    SignedRoute, StaticDirectory,
};
use crate::Error;

/// Which realization the speakers use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Every hop KC-RSA.
    Rsa,
    /// Every hop KC-MT.
    Mt,
    /// Predecessors issue both kinds; odd hops pick KC-RSA, even hops KC-MT (§IV-C).
    Hybrid,
}

impl Variant {
    fn issue(self) -> Issue {
        match self {
            Variant::Rsa => Issue::Rsa,
            Variant::Mt => Issue::Mt,
            Variant::Hybrid => Issue::Both,
        }
    }

    fn primary(self, hop: usize) -> Primary {
        match self {
            Variant::Rsa => Primary::Rsa,
            Variant::Hybrid if hop % 2 == 1 => Primary::Rsa,
            Variant::Mt | Variant::Hybrid => Primary::Mt,
        }
    }
}

/// The AS the route is finally delivered to.
pub const RECEIVER: Asn = 65_000;

/// AS number of speaker i.
pub fn asn(i: usize) -> Asn {
    64_500 + i as Asn
}

fn neighbours(i: usize, hops: usize) -> Vec<Asn> {
    let next = if i + 1 == hops { RECEIVER } else { asn(i + 1) };
    let mut list = vec![64_000 + i as Asn, next];
    if i > 0 {
        list.insert(0, asn(i - 1));
    }
    list
}

/// The start of a line of `speakers` speakers (at least 1): the directory (the
/// origin's PKI key, every speaker's neighbour list), the origin's route toward speaker
/// 1 (or [`RECEIVER`] when it is alone) and the hand-over it gives that next hop.
fn origin(
    params: KcParams,
    v: Variant,
    speakers: usize,
    expires: u64,
) -> Result<(StaticDirectory, SignedRoute, Handover), Error> {
    let origin_key = RsaSecretKey::generate(params.rsa_bits)?;
    let mut dir = StaticDirectory::default();
    dir.set_key(asn(0), origin_key.public().clone());
    for i in 0..speakers {
        dir.set_neighbours(asn(i), neighbours(i, speakers));
    }
    let next = if speakers > 1 { asn(1) } else { RECEIVER };
    let (public, handover) = issue(&params, v.issue())?;
    let route = originate(
        params,
        &origin_key,
        asn(0),
        &neighbours(0, speakers),
        &[next],
        b"198.51.100.0/24",
        expires,
        &public,
    )?;
    Ok((dir, route, handover))
}

/// A simulated path after signing.
#[derive(Debug)]
pub struct Path {
    /// The route as RECEIVER gets it.
    pub route: SignedRoute,
    /// What verifiers trust.
    pub dir: StaticDirectory,
    /// Encoded size after each hop (index 0: after the origin).
    pub sizes: Vec<usize>,
    /// The last speaker's hand-over to RECEIVER.
    pub last: Handover,
}

/// Signs a route hop by hop over `hops` speakers (each verifying what it received
/// first, as §III-A says), with fresh attestation keys, expiring at `expires`.
///
/// # Errors
/// Backend failures, or a verification failure (a bug).
pub fn path(
    params: KcParams,
    v: Variant,
    hops: usize,
    now: u64,
    expires: u64,
) -> Result<Path, Error> {
    let hops = hops.max(1);
    let (mut dir, mut route, mut handover) = origin(params, v, hops, expires)?;
    dir.set_neighbours(RECEIVER, vec![asn(hops - 1)]);
    let next = |i: usize| if i + 1 == hops { RECEIVER } else { asn(i + 1) };
    let mut sizes = vec![super::encode(&route)?.len()];
    for i in 1..hops {
        verify(&route, &dir, Some(asn(i)), now)?;
        let mut received = ReceivedKey::new(params, handover);
        let (public, h) = issue(&params, v.issue())?;
        route = forward(
            &route,
            &mut received,
            v.primary(i),
            asn(i),
            &neighbours(i, hops),
            &[next(i)],
            expires,
            &public,
        )?;
        sizes.push(super::encode(&route)?.len());
        handover = h;
    }
    verify(&route, &dir, Some(RECEIVER), now)?;
    Ok(Path {
        route,
        dir,
        sizes,
        last: handover,
    })
}

/// Routes of every length 1..=`max` along one simulated line of speakers, each with
/// the hand-over its last speaker gave the next one, for `hopsig replay` (KC-x paper
/// §V-A-3): the router at position L verifies the L-hop route it received and signs
/// its own hop. The upstream signatures are made here, once, so the replay times only
/// the router's own work.
pub struct Ladder {
    params: KcParams,
    variant: Variant,
    /// `routes[l - 1]`: the route of speakers 0..l, sent to speaker l.
    routes: Vec<SignedRoute>,
    /// `handovers[l - 1]`: speaker l − 1's hand-over to speaker l.
    handovers: Vec<zeroize::Zeroizing<Vec<u8>>>,
    /// Its KC-MT seed, if any, for renewing a spent key without decoding the rest.
    seeds: Vec<Option<zeroize::Zeroizing<[u8; hopsig_primitives::hors::SEED_LEN]>>>,
    dir: StaticDirectory,
    /// The attestation key(s) every replayed router offers its own next hop.
    issued: super::AttestationPublic,
    max: usize,
}

impl std::fmt::Debug for Ladder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Ladder({:?}, {} hops)", self.variant, self.max)
    }
}

impl Ladder {
    /// Signs one line of `max` speakers (at least 1), keeping every intermediate route;
    /// each speaker verifies what it received first, as [`path`] does.
    ///
    /// # Errors
    /// Backend failures, or a verification failure (a bug).
    pub fn new(params: KcParams, v: Variant, max: usize, expires: u64) -> Result<Self, Error> {
        let max = max.max(1);
        // Speakers 0..=max: the last one is a replayed router's position at L = max.
        let speakers = max + 1;
        let (dir, mut route, mut handover) = origin(params, v, speakers, expires)?;
        let (mut routes, mut handovers) = (Vec::with_capacity(max), Vec::with_capacity(max));
        let mut seeds = Vec::with_capacity(max);
        for i in 1..max {
            routes.push(route.clone());
            handovers.push(handover.to_bytes()?);
            seeds.push(handover.mt.clone());
            verify(&route, &dir, Some(asn(i)), 0)?;
            let mut received = ReceivedKey::new(params, handover);
            let (public, h) = issue(&params, v.issue())?;
            route = forward(
                &route,
                &mut received,
                v.primary(i),
                asn(i),
                &neighbours(i, speakers),
                &[asn(i + 1)],
                expires,
                &public,
            )?;
            handover = h;
        }
        routes.push(route);
        handovers.push(handover.to_bytes()?);
        seeds.push(handover.mt.clone());
        let (issued, _) = issue(&params, v.issue())?;
        Ok(Ladder {
            params,
            variant: v,
            routes,
            handovers,
            seeds,
            dir,
            issued,
            max,
        })
    }

    /// The longest route held.
    pub fn max(&self) -> usize {
        self.max
    }

    /// The route of `hops` speakers (1..=max, clamped), as the next one receives it.
    pub fn route(&self, hops: usize) -> &SignedRoute {
        &self.routes[hops.clamp(1, self.max) - 1]
    }

    /// The router at position `hops` (1..=max, clamped), holding the key its
    /// predecessor handed it (KC-MT: tree not built yet) with the real Σ.
    ///
    /// # Errors
    /// A hand-over that does not decode (a bug).
    pub fn router(&self, hops: usize) -> Result<Router<'_>, Error> {
        let hops = hops.clamp(1, self.max);
        Ok(Router {
            ladder: self,
            hops,
            key: self.received(hops)?,
        })
    }

    fn received(&self, hops: usize) -> Result<ReceivedKey, Error> {
        Ok(ReceivedKey::new(
            self.params,
            Handover::from_bytes(&self.handovers[hops - 1])?,
        ))
    }
}

/// One replayed router of a [`Ladder`]: verifies the route it received, then signs its
/// own hop toward its successor on the line (speaker L + 1, or [`RECEIVER`] at L = max).
pub struct Router<'l> {
    ladder: &'l Ladder,
    hops: usize,
    key: ReceivedKey,
}

impl std::fmt::Debug for Router<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Router({:?}, at {})", self.ladder.variant, self.hops)
    }
}

impl Router<'_> {
    /// Verifies the received route in full (§IV-A's five steps, every KC-MT hop).
    ///
    /// # Errors
    /// [`Error::InvalidSignature`] (a bug).
    pub fn verify(&self) -> Result<(), Error> {
        verify(
            self.ladder.route(self.hops),
            &self.ladder.dir,
            Some(asn(self.hops)),
            0,
        )
    }

    /// Signs this router's hop and returns the route it forwards. A KC-MT key is good
    /// for Σ signatures (§IV-B); once spent, the router takes a fresh KC-MT seed (here,
    /// the same one again; a hybrid router keeps its KC-RSA key) and builds its tree
    /// anew inside this call, so the tree building is paid once every Σ signatures, as
    /// in the paper's amortized cost (eq. 4).
    ///
    /// # Errors
    /// Backend failures.
    pub fn sign(&mut self) -> Result<SignedRoute, Error> {
        let l = self.ladder;
        let me = self.hops;
        // Its list in the directory; the last entry is its successor on the line.
        let list = neighbours(me, l.max + 1);
        let next = list[list.len() - 1];
        let attempt = |key: &mut ReceivedKey| {
            forward(
                l.route(me),
                key,
                l.variant.primary(me),
                asn(me),
                &list,
                &[next],
                l.route(me).hops[0].expires,
                &l.issued,
            )
        };
        match attempt(&mut self.key) {
            Err(Error::State(crate::StateError::Exhausted { .. })) => {
                let rsa = self.key.rsa.take();
                self.key = ReceivedKey::new(
                    l.params,
                    Handover {
                        rsa,
                        mt: l.seeds[me - 1].clone(),
                    },
                );
                attempt(&mut self.key)
            }
            r => r,
        }
    }
}

/// One-hop operations of a realization, set up once, for the Table III benchmark:
/// signing with a freshly received key (KC-MT: the tree is built, S1), signing again
/// with the same key (tree cached, S2), verifying one hop, and issuing a key.
pub struct Ops {
    params: KcParams,
    variant: Variant,
    path: Path,
    kept: zeroize::Zeroizing<Vec<u8>>,
    cached: ReceivedKey,
    issued: super::AttestationPublic,
}

impl std::fmt::Debug for Ops {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Ops({:?})", self.variant)
    }
}

impl Ops {
    /// A 4-speaker path of `variant` (pure KC-RSA or KC-MT) whose last hand-over the
    /// benchmark signs with. The cached key's counter is lifted to `u32::MAX` so that
    /// repeated timing runs can sign past Σ: only the benchmark does this.
    ///
    /// # Errors
    /// Backend failures.
    pub fn new(params: KcParams, variant: Variant, now: u64) -> Result<Self, Error> {
        let path = self::path(params, variant, 4, now, now + 86_400)?;
        let kept = path.last.to_bytes()?;
        let cached = ReceivedKey::with_counter(
            params,
            Handover::from_bytes(&kept)?,
            hopsig_primitives::hors::Counter::memory(u32::MAX),
        );
        let (issued, _) = issue(&params, variant.issue())?;
        Ok(Ops {
            params,
            variant,
            path,
            kept,
            cached,
            issued,
        })
    }

    fn sign_with(&self, key: &mut ReceivedKey) -> Result<SignedRoute, Error> {
        forward(
            &self.path.route,
            key,
            self.variant.primary(1),
            RECEIVER,
            &[asn(3), 64_999],
            &[64_999],
            self.path.route.hops[0].expires,
            &self.issued,
        )
    }

    /// Signing with a key just received (KC-MT: builds the tree first; S1).
    ///
    /// # Errors
    /// Backend failures.
    pub fn sign_first(&self) -> Result<(), Error> {
        let mut key = ReceivedKey::new(self.params, Handover::from_bytes(&self.kept)?);
        self.sign_with(&mut key).map(drop)
    }

    /// Signing again with the same key (KC-MT: tree cached; S2).
    ///
    /// # Errors
    /// Backend failures.
    pub fn sign_cached(&mut self) -> Result<(), Error> {
        let mut key = std::mem::replace(
            &mut self.cached,
            ReceivedKey::new(
                self.params,
                Handover {
                    rsa: None,
                    mt: None,
                },
            ),
        );
        let r = self.sign_with(&mut key).map(drop);
        self.cached = key;
        r
    }

    /// Verifies the last hop of the 4-hop path alone: KC-MT one HORS signature; KC-RSA
    /// one RSA public operation and G. Returns the SHA-256 compressions a KC-MT hop
    /// took (0 for KC-RSA).
    ///
    /// # Errors
    /// [`Error::InvalidSignature`] (a bug).
    pub fn verify_hop(&self) -> Result<usize, Error> {
        let route = &self.path.route;
        let i = route.hops.len() - 1;
        match &route.hops[i].sig {
            super::HopSig::Mt(sig) => {
                let root = route.hops[i - 1].key.mt.as_deref().unwrap_or_default();
                hopsig_primitives::hors::verify(
                    &self.params.hors,
                    root,
                    &route.attestation_bytes(i)?,
                    sig,
                )
                .ok_or(Error::InvalidSignature)
            }
            _ => super::verify_last_rsa_hop(route).map(|()| 0),
        }
    }

    /// Verifies the whole 4-hop path (origin included).
    ///
    /// # Errors
    /// [`Error::InvalidSignature`] (a bug).
    pub fn verify_path(&self) -> Result<(), Error> {
        verify(&self.path.route, &self.path.dir, Some(RECEIVER), 0)
    }

    /// Issues one attestation key of this realization (amortized over Σ for KC-MT).
    ///
    /// # Errors
    /// Backend failures.
    pub fn keygen(&self) -> Result<(), Error> {
        issue(&self.params, self.variant.issue()).map(drop)
    }

    /// The signed route's encoded size after 4 hops.
    pub fn encoded_bytes(&self) -> usize {
        self.path.sizes.last().copied().unwrap_or(0)
    }
}

/// HORS operations for one (n, m) point of Fig. 4's sweep, on RA-sized messages.
#[derive(Debug)]
pub struct HorsOps {
    params: hopsig_primitives::hors::HorsParams,
    seed: [u8; 32],
    tree: hopsig_primitives::hors::Tree,
    msg: Vec<u8>,
    sig: Vec<u8>,
}

impl HorsOps {
    /// A key of `params` and one 110-byte message signed with it.
    pub fn new(params: hopsig_primitives::hors::HorsParams) -> Self {
        let seed = [7u8; 32];
        let tree = hopsig_primitives::hors::Tree::build(params, &seed);
        let msg = vec![0x4bu8; 110];
        let sig = tree.sign(&msg);
        HorsOps {
            params,
            seed,
            tree,
            msg,
            sig,
        }
    }

    /// S1: build the tree from the seed, then sign.
    ///
    /// # Errors
    /// Never.
    pub fn sign_initial(&self) -> Result<(), Error> {
        let t = hopsig_primitives::hors::Tree::build(self.params, &self.seed);
        std::hint::black_box(t.sign(&self.msg));
        Ok(())
    }

    /// S2: sign with the cached tree.
    ///
    /// # Errors
    /// Never.
    pub fn sign_subsequent(&self) -> Result<(), Error> {
        std::hint::black_box(self.tree.sign(&self.msg));
        Ok(())
    }

    /// V: verify the signature.
    ///
    /// # Errors
    /// [`Error::InvalidSignature`] (a bug).
    pub fn verify(&self) -> Result<(), Error> {
        hopsig_primitives::hors::verify(&self.params, self.tree.root(), &self.msg, &self.sig)
            .map(drop)
            .ok_or(Error::InvalidSignature)
    }

    /// Mean signature size in bytes over `samples` different messages.
    pub fn mean_signature_bytes(&self, samples: u32) -> f64 {
        let total: usize = (0..samples)
            .map(|i| {
                let msg = [self.msg.as_slice(), &i.to_be_bytes()].concat();
                let idx = hopsig_primitives::hors::indices(&self.params, self.tree.root(), &msg);
                hopsig_primitives::hors::signature_len(&self.params, &idx)
            })
            .sum();
        total as f64 / f64::from(samples.max(1))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// Every rung verifies; what each router forwards verifies at [`RECEIVER`], also
    /// past Σ KC-MT signatures (the key renewed from its seed).
    #[test]
    fn ladder_routers_verify_and_forward_valid_routes() {
        for v in [Variant::Rsa, Variant::Mt, Variant::Hybrid] {
            let ladder = Ladder::new(KcParams::PAPER, v, 4, u64::MAX).unwrap();
            assert_eq!(ladder.max(), 4);
            for l in 1..=4 {
                let next = if l == 4 { RECEIVER } else { asn(l + 1) };
                assert_eq!(ladder.route(l).hops.len(), l);
                let mut router = ladder.router(l).unwrap();
                router.verify().unwrap();
                let rounds = if v == Variant::Rsa {
                    1
                } else {
                    KcParams::PAPER.hors.sigma as usize + 2
                };
                for _ in 0..rounds {
                    let sent = router.sign().unwrap();
                    assert_eq!(sent.hops.len(), l + 1);
                    verify(&sent, &ladder.dir, Some(next), 0).unwrap();
                }
            }
            // A route altered on the way does not verify.
            let mut bad = ladder.route(3).clone();
            bad.hops[1].asn += 1;
            assert!(verify(&bad, &ladder.dir, Some(asn(3)), 0).is_err());
        }
    }
}
