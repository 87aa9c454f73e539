//! One hop of the replay's simulated BGP router (KC-x paper §V-A-3) on one
//! announcement, per scheme, executed for real with hopsig's code: validate the L
//! upstream signatures of the path it received, then sign its own hop (eq. 1). The upstream signatures are made once per path
//! length L = 1..=[`MAX_HOPS`] before the replay and are not timed.
//!
//! | scheme | validate | sign |
//! |---|---|---|
//! | `none` | decode the UPDATE (AS_PATH of L ASes) | encode the UPDATE with its own AS prepended |
//! | `bgpsec-ecdsa`, `bgr` | `Validator::message`: decode + RFC 8205 §5.2 | RFC 8205 §4.2: `Chain::received` + `forward`, encode the UPDATE |
//! | `kc-rsa`, `kc-mt`, `hybrid` | `kcx::verify` of the L-hop route | `kcx::forward` (KC-MT: tree rebuilt every Σ signatures) |

use std::net::Ipv4Addr;
use std::time::Instant;

use hopsig_bgp::packet::BgpsecPath;
use hopsig_bgp::packet::{AsWidth, Message, Prefix};
use hopsig_bgp::suite::by_name;
use hopsig_bgp::trace::{plain_update_message, signed_path, update_message, Keyring, Route};
use hopsig_bgp::{AlgorithmSuite, Chain, Hop, Peer, RouterKeys, Validation, Validator, SUITES};
use hopsig_schemes::floors::{RawEcdsaP256, RawRsa};
use hopsig_schemes::kcx::sim::{Ladder, Variant};
use hopsig_schemes::kcx::{self, KcParams, SignedRoute};

use crate::Error;

/// Longest path replayed: longer ones (after removing prepends) are replayed as this
/// many hops and counted.
pub const MAX_HOPS: usize = 15;
/// The replaying router's AS (the paths' target).
const LOCAL_AS: u32 = 64_999;
/// The AS it forwards to.
const NEXT_AS: u32 = 64_998;
/// KC-x parameters: the paper's (RSA-1024, HORS (512, 3), Σ = 13), as in its Table V.
pub const KCX_PARAMS: KcParams = KcParams::PAPER;

/// How a scheme's router validates and signs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// No cryptography: decode the UPDATE, encode it with its own AS prepended.
    Plain,
    /// BGPsec (RFC 8205) with the algorithm suite of this name
    /// ([`hopsig_bgp::suite::by_name`]).
    Bgpsec(&'static str),
    /// KC-x (../shared/papers/001 §IV) in this variant, with [`KCX_PARAMS`].
    Kcx(Variant),
}

/// The primitive a scheme's router work rests on, sampled between its announcements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloorKind {
    /// OpenSSL ECDSA P-256 verify / sign.
    EcdsaP256,
    /// OpenSSL raw RSA of this many bits: public / private operation.
    Rsa(u32),
}

/// One scheme of the replay: a table entry.
#[derive(Debug)]
pub struct ReplayScheme {
    /// As `--schemes` names it.
    pub name: &'static str,
    /// What its router does.
    pub kind: Kind,
    /// Its floor, if it rests on one primitive. `none` has no cryptography; KC-MT and
    /// the hybrid mix HORS with RSA (their floors are in `hopsig bench table3`).
    pub floor: Option<FloorKind>,
}

/// The schemes, in the order `--schemes` lists them by default.
pub static SCHEMES: [ReplayScheme; 6] = [
    ReplayScheme {
        name: "none",
        kind: Kind::Plain,
        floor: None,
    },
    ReplayScheme {
        name: "bgpsec-ecdsa",
        kind: Kind::Bgpsec("ecdsa-p256-sha256"),
        floor: Some(FloorKind::EcdsaP256),
    },
    ReplayScheme {
        name: "bgr",
        kind: Kind::Bgpsec("bgr-rsa2048"),
        floor: Some(FloorKind::Rsa(2048)),
    },
    ReplayScheme {
        name: "kc-rsa",
        kind: Kind::Kcx(Variant::Rsa),
        floor: Some(FloorKind::Rsa(KCX_PARAMS.rsa_bits)),
    },
    ReplayScheme {
        name: "kc-mt",
        kind: Kind::Kcx(Variant::Mt),
        floor: None,
    },
    ReplayScheme {
        name: "hybrid",
        kind: Kind::Kcx(Variant::Hybrid),
        floor: None,
    },
];

fn setup(e: impl std::fmt::Display) -> Error {
    Error::failed("replay setup failed", e)
}

/// The scheme `name`, or the error listing the known ones.
///
/// # Errors
/// [`Error::Unknown`] for a name not in [`SCHEMES`].
pub fn check_scheme(name: &str) -> Result<&'static ReplayScheme, Error> {
    SCHEMES
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| Error::Unknown {
            what: "scheme",
            name: name.to_string(),
            place: " for --schemes",
            available: SCHEMES
                .iter()
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// An L-hop route, ASes 65001.. from the origin, toward [`LOCAL_AS`].
fn route(hops: usize) -> Result<Route, Error> {
    let prefix = Prefix::new(Ipv4Addr::new(198, 51, 100, 0).into(), 24).map_err(setup)?;
    Ok(Route::synthetic(hops, prefix, LOCAL_AS))
}

/// What one scheme's router holds for every path length.
enum Prepared {
    None {
        /// Per L: the received UPDATE and the route.
        received: Vec<(Vec<u8>, Route)>,
    },
    Bgpsec {
        suite: &'static dyn AlgorithmSuite,
        ring: Keyring,
        keys: RouterKeys,
        /// Per L: the received UPDATE, its BGPsec_PATH, the route.
        received: Vec<(Vec<u8>, BgpsecPath<'static>, Route)>,
        /// Per L: more UPDATEs of L hops, each for its own prefix, so that the
        /// announcements of a cross-UPDATE batch carry distinct signatures as real
        /// ones do (the batch verifies a repeated check once; [`Scheme::batched`]).
        copies: Vec<Vec<Vec<u8>>>,
    },
    Kcx(Ladder),
}

/// One scheme, ready to replay.
pub struct Scheme {
    /// Its name.
    pub name: &'static str,
    /// Its entry of [`SCHEMES`].
    pub entry: &'static ReplayScheme,
    prepared: Prepared,
    /// Announcements a BGPsec router validates in one batch ([`Scheme::run`]).
    batch: usize,
}

/// The measured service times of one announcement, seconds.
#[derive(Debug, Clone, Copy)]
pub struct Service {
    /// Validating.
    pub validate: f64,
    /// Signing and encoding.
    pub sign: f64,
}

impl Scheme {
    /// Prepares `name` (from [`SCHEMES`]): keys and upstream signatures for L =
    /// 1..=[`MAX_HOPS`].
    ///
    /// # Errors
    /// An unknown name; backend failures.
    pub fn prepare(name: &str) -> Result<Scheme, Error> {
        Scheme::prepare_with(name, None)
    }

    /// [`Scheme::prepare`], the validating router's key table of a BGPsec scheme
    /// also holding `more` (the router keys of an RPKI cache, `hopsig replay --rtr`):
    /// the generated keys sign the replayed paths, and lookups run in a table of the
    /// size a deployed router holds.
    ///
    /// # Errors
    /// As [`Scheme::prepare`].
    pub fn prepare_with(name: &str, more: Option<&RouterKeys>) -> Result<Scheme, Error> {
        let entry = check_scheme(name)?;
        let prepared = match entry.kind {
            Kind::Plain => Prepared::None {
                received: (1..=MAX_HOPS)
                    .map(|l| {
                        let r = route(l)?;
                        let asns = r.hops.iter().rev().map(|h| h.asn).collect();
                        Ok((plain_update_message(&r, asns).map_err(setup)?, r))
                    })
                    .collect::<Result<_, Error>>()?,
            },
            Kind::Bgpsec(suite_name) => {
                let suite =
                    by_name(suite_name).ok_or_else(|| setup(format!("no suite {suite_name}")))?;
                let mut ring = Keyring::new(suite);
                let mut ases: Vec<u32> = route(MAX_HOPS)?.hops.iter().map(|h| h.asn).collect();
                ases.push(LOCAL_AS);
                ring.generate(&ases, 1).map_err(setup)?;
                let mut keys = ring.router_keys();
                for k in more.iter().flat_map(|m| m.iter()) {
                    keys.insert(k.clone());
                }
                let received = (1..=MAX_HOPS)
                    .map(|l| {
                        let r = route(l)?;
                        let path = signed_path(&r, &ring).map_err(setup)?;
                        let msg = update_message(&r, path.clone()).map_err(setup)?;
                        Ok((msg, path, r))
                    })
                    .collect::<Result<_, Error>>()?;
                Prepared::Bgpsec {
                    suite,
                    ring,
                    keys,
                    received,
                    copies: vec![Vec::new(); MAX_HOPS],
                }
            }
            Kind::Kcx(variant) => {
                Prepared::Kcx(Ladder::new(KCX_PARAMS, variant, MAX_HOPS, u64::MAX).map_err(setup)?)
            }
        };
        Ok(Scheme {
            name: entry.name,
            entry,
            prepared,
            batch: 1,
        })
    }

    /// The scheme, its BGPsec router validating `n` (at least 1) consecutive
    /// announcements in one cross-UPDATE batch ([`Scheme::run`]). A BGPsec scheme
    /// signs n − 1 more UPDATEs per path length L, each for its own prefix (untimed):
    /// the announcements of one batch then never share a signature, as distinct
    /// routes do not, and the batch cannot verify a repeated check once for all.
    ///
    /// # Errors
    /// Signing failures.
    pub fn batched(mut self, n: usize) -> Result<Scheme, Error> {
        self.batch = n.max(1);
        if let Prepared::Bgpsec { ring, copies, .. } = &mut self.prepared {
            for (l, copies) in (1..=MAX_HOPS).zip(copies.iter_mut()) {
                while copies.len() + 1 < self.batch {
                    // 10.a.b.0/24, a distinct prefix per copy (up to 65,536).
                    let c = copies.len() + 1;
                    let prefix =
                        Prefix::new(Ipv4Addr::new(10, (c >> 8) as u8, c as u8, 0).into(), 24)
                            .map_err(setup)?;
                    let r = Route::synthetic(l, prefix, LOCAL_AS);
                    let path = signed_path(&r, ring).map_err(setup)?;
                    copies.push(update_message(&r, path).map_err(setup)?);
                }
            }
        }
        Ok(self)
    }

    /// Announcements validated per batch: 1 unless [`Scheme::batched`] said more; 1
    /// for a scheme that is not BGPsec (it has no cross-UPDATE batch).
    pub fn batch(&self) -> usize {
        match self.prepared {
            Prepared::Bgpsec { .. } => self.batch,
            _ => 1,
        }
    }

    /// Replays `hops` (each clamped to 1..=[`MAX_HOPS`]) in order, timing each
    /// announcement's validation and signing; `after(i, service)` is called after each,
    /// outside the timed code (the replay samples its floor there).
    ///
    /// A BGPsec router validates [`Scheme::batch`] consecutive announcements together
    /// ([`Scheme::batched`]): their UPDATEs in one cross-UPDATE batch of the validator
    /// (every signature of the window in one call of the batch verifier, issue 28),
    /// each announcement charged the window's validation time in proportion to its
    /// signatures — what validation costs when the router's queue holds that many
    /// UPDATEs (a session reset, a burst). With 1 (the default) each UPDATE is
    /// validated alone, as on arrival. A window's announcements are signed, and
    /// `after` called for them, once the window is validated.
    ///
    /// # Errors
    /// A validation that fails or a signing error (a bug); an error of `after`.
    pub fn run(
        &self,
        hops: &[usize],
        mut after: impl FnMut(usize, Service) -> Result<(), Error>,
    ) -> Result<Vec<Service>, Error> {
        let batch = self.batch;
        let bad = |what: &str| Error::Input(format!("replay: {} {what} (a bug)", self.name));
        let plain = |r: &Route, asns| plain_update_message(r, asns).map_err(setup);
        let mut out = Vec::with_capacity(hops.len());
        match &self.prepared {
            Prepared::None { received } => {
                for (i, &l) in hops.iter().enumerate() {
                    let (msg, r) = &received[l.clamp(1, MAX_HOPS) - 1];
                    let t0 = Instant::now();
                    let asns = match Message::decode(msg, AsWidth::Four) {
                        Ok(Message::Update(u)) => u.as_path().map(|p| p.segments[0].asns.clone()),
                        _ => None,
                    }
                    .ok_or_else(|| bad("UPDATE did not decode"))?;
                    let t1 = Instant::now();
                    let mut path = vec![LOCAL_AS];
                    path.extend(asns);
                    std::hint::black_box(plain(r, path)?);
                    let s = Service {
                        validate: (t1 - t0).as_secs_f64(),
                        sign: t1.elapsed().as_secs_f64(),
                    };
                    out.push(s);
                    after(i, s)?;
                }
            }
            Prepared::Bgpsec {
                ring,
                keys,
                received,
                copies,
                ..
            } => {
                let validator = Validator::with_suites(SUITES, keys);
                let me = ring.signer(LOCAL_AS).ok_or_else(|| bad("has no key"))?;
                let peer_of = |l: usize| Peer::external(LOCAL_AS, 65_000 + l as u32);
                for (w, window) in hops.chunks(batch).enumerate() {
                    let first = w * batch;
                    let ls: Vec<usize> = window.iter().map(|&l| l.clamp(1, MAX_HOPS)).collect();
                    let t0 = Instant::now();
                    let valid = if let [l] = ls[..] {
                        validator
                            .message(&received[l - 1].0, &peer_of(l))
                            .is_valid()
                    } else {
                        let peers: Vec<Peer> = ls.iter().map(|&l| peer_of(l)).collect();
                        let messages: Vec<(&[u8], &Peer)> = ls
                            .iter()
                            .zip(&peers)
                            .enumerate()
                            // The j-th of the window: the (j − 1)-th copy of its L.
                            .map(|(j, (&l, p))| {
                                let msg = j
                                    .checked_sub(1)
                                    .and_then(|c| copies[l - 1].get(c))
                                    .unwrap_or(&received[l - 1].0);
                                (msg.as_slice(), p)
                            })
                            .collect();
                        // One cross-UPDATE batch: every signature check of the
                        // window in one call of the batch verifier.
                        validator
                            .messages(&messages)
                            .iter()
                            .all(Validation::is_valid)
                    };
                    let validated = t0.elapsed().as_secs_f64();
                    if !valid {
                        return Err(bad("path did not validate"));
                    }
                    let signatures: usize = ls.iter().sum();
                    for (j, &l) in ls.iter().enumerate() {
                        let (_, path, r) = &received[l - 1];
                        let t1 = Instant::now();
                        let mut chain =
                            Chain::received(path, r.nlri, me).map_err(|e| bad(&e.to_string()))?;
                        chain
                            .forward(me, &Hop::to(NEXT_AS))
                            .map_err(|e| bad(&e.to_string()))?;
                        let sent = chain.path().map_err(|e| bad(&e.to_string()))?;
                        std::hint::black_box(
                            update_message(r, sent).map_err(|e| bad(&e.to_string()))?,
                        );
                        let s = Service {
                            validate: validated * l as f64 / signatures as f64,
                            sign: t1.elapsed().as_secs_f64(),
                        };
                        out.push(s);
                        after(first + j, s)?;
                    }
                }
            }
            Prepared::Kcx(ladder) => {
                let mut routers = (1..=MAX_HOPS)
                    .map(|l| ladder.router(l))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(setup)?;
                for (i, &l) in hops.iter().enumerate() {
                    let router = &mut routers[l.clamp(1, MAX_HOPS) - 1];
                    let t0 = Instant::now();
                    router.verify().map_err(|e| bad(&e.to_string()))?;
                    let t1 = Instant::now();
                    let sent = router.sign().map_err(|e| bad(&e.to_string()))?;
                    std::hint::black_box(kcx::encode(&sent).map_err(|e| bad(&e.to_string()))?);
                    let s = Service {
                        validate: (t1 - t0).as_secs_f64(),
                        sign: t1.elapsed().as_secs_f64(),
                    };
                    out.push(s);
                    after(i, s)?;
                }
            }
        }
        Ok(out)
    }

    /// Signature octets a route of `hops` hops holds in a RIB under this scheme, from
    /// the real encodings prepared (Table VI): `none` 0; BGPsec the Signature fields of
    /// the Signature_Block; KC-x the aggregate x, its SPLIT bits and every KC-MT hop's
    /// HORS signature (`docs/spec/kcx.md`).
    pub fn signature_bytes(&self, hops: usize) -> usize {
        let l = hops.clamp(1, MAX_HOPS);
        match &self.prepared {
            Prepared::None { .. } => 0,
            Prepared::Bgpsec {
                received, suite, ..
            } => received[l - 1]
                .1
                .signature_blocks()
                .iter()
                .filter(|b| b.suite == suite.id())
                .flat_map(|b| b.segments.iter())
                .map(|s| s.signature.len())
                .sum(),
            Prepared::Kcx(ladder) => kcx_signature_bytes(ladder.route(l)),
        }
    }
}

/// The primitives under a scheme's router work, measured in the same run: one
/// verification per upstream signature and one signature (KC-x eq. 1 with L hops).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Floor {
    /// What was timed.
    pub primitive: &'static str,
    /// One verification, µs (median of the samples taken between the announcements).
    pub verify_us: f64,
    /// One signature, µs (median of the same samples).
    pub sign_us: f64,
}

/// The primitive under a scheme's router work, ready to be sampled between its
/// announcements (`crate::bench::timer::Interleaved`).
pub enum FloorOps {
    /// OpenSSL ECDSA P-256.
    Ecdsa(RawEcdsaP256),
    /// OpenSSL raw RSA of this many bits.
    Rsa(RawRsa, u32),
}

impl FloorOps {
    /// Operation [`FloorOps::VERIFY`]: one verification.
    pub const VERIFY: usize = 0;
    /// Operation [`FloorOps::SIGN`]: one signature.
    pub const SIGN: usize = 1;
    /// Number of operations.
    pub const COUNT: usize = 2;

    /// The floor of `scheme` ([`ReplayScheme::floor`]), ready to run.
    ///
    /// # Errors
    /// Backend failures.
    pub fn of(scheme: &ReplayScheme) -> Result<Option<FloorOps>, Error> {
        Ok(match scheme.floor {
            None => None,
            Some(FloorKind::EcdsaP256) => {
                Some(FloorOps::Ecdsa(RawEcdsaP256::new().map_err(setup)?))
            }
            Some(FloorKind::Rsa(bits)) => {
                Some(FloorOps::Rsa(RawRsa::new(bits).map_err(setup)?, bits))
            }
        })
    }

    /// What is timed.
    pub fn primitive(&self) -> &'static str {
        match self {
            FloorOps::Ecdsa(_) => "OpenSSL ECDSA P-256 verify / sign",
            FloorOps::Rsa(_, 2048) => "OpenSSL raw RSA-2048 public / private",
            FloorOps::Rsa(..) => "OpenSSL raw RSA-1024 public / private",
        }
    }

    /// Runs operation `k` ([`FloorOps::VERIFY`] or [`FloorOps::SIGN`]) once.
    ///
    /// # Errors
    /// Backend failures.
    pub fn run(&mut self, k: usize) -> Result<(), hopsig_schemes::Error> {
        match (self, k) {
            (FloorOps::Ecdsa(e), FloorOps::VERIFY) => e.verify(),
            (FloorOps::Ecdsa(e), _) => e.sign(),
            (FloorOps::Rsa(r, _), FloorOps::VERIFY) => r.public_op(),
            (FloorOps::Rsa(r, _), _) => r.private_op(),
        }
    }
}

/// x, the SPLIT bits (one per RSA-signed hop, whole bytes) and the HORS signatures.
pub fn kcx_signature_bytes(route: &SignedRoute) -> usize {
    let hors: usize = route
        .hops
        .iter()
        .map(|h| match &h.sig {
            kcx::HopSig::Mt(s) => s.len(),
            _ => 0,
        })
        .sum();
    route.x.len() + route.b.len().div_ceil(8) + hors
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use hopsig_schemes::primitives::hors;

    /// Table VI's sizes against the formulas of docs/spec: `bgpsec-bgr.md` (305 octets
    /// for the newest segment, 17 for each earlier one), RFC 8208 (DER ECDSA P-256
    /// signatures of at most 72 octets), `kcx.md` (x of k octets, one SPLIT bit per
    /// RSA-signed hop in whole octets, each KC-MT hop's HORS signature of ℓ·(m + auth
    /// nodes) octets).
    #[test]
    fn signature_sizes_follow_the_specs() {
        let none = Scheme::prepare("none").unwrap();
        let ecdsa = Scheme::prepare("bgpsec-ecdsa").unwrap();
        let bgr = Scheme::prepare("bgr").unwrap();
        let rsa = Scheme::prepare("kc-rsa").unwrap();
        let mt = Scheme::prepare("kc-mt").unwrap();
        let hybrid = Scheme::prepare("hybrid").unwrap();
        let k = KCX_PARAMS.k();
        for l in 1..=MAX_HOPS {
            assert_eq!(none.signature_bytes(l), 0);
            assert_eq!(bgr.signature_bytes(l), 305 + 17 * (l - 1), "bgr L={l}");
            let e = ecdsa.signature_bytes(l);
            assert!((68 * l..=72 * l).contains(&e), "ecdsa L={l}: {e}");
            assert_eq!(rsa.signature_bytes(l), k + l.div_ceil(8), "kc-rsa L={l}");
            for (scheme, variant) in [(&mt, Variant::Mt), (&hybrid, Variant::Hybrid)] {
                let Prepared::Kcx(ladder) = &scheme.prepared else {
                    panic!()
                };
                let route = ladder.route(l);
                let p = KCX_PARAMS.hors;
                let mut hors_bytes = 0;
                let mut rsa_hops = 1;
                for i in 1..l {
                    match &route.hops[i].sig {
                        kcx::HopSig::Mt(sig) => {
                            let root = route.hops[i - 1].key.mt.as_ref().unwrap();
                            let idx = hors::indices(&p, root, &route.attestation_bytes(i).unwrap());
                            assert_eq!(sig.len(), hors::signature_len(&p, &idx));
                            assert_eq!(sig.len() % p.node_bytes, 0);
                            hors_bytes += sig.len();
                        }
                        _ => rsa_hops += 1,
                    }
                }
                if variant == Variant::Mt {
                    assert_eq!(rsa_hops, 1);
                } else {
                    // Odd hops RSA, even hops KC-MT (§IV-C, kcx::sim).
                    assert_eq!(rsa_hops, 1 + l / 2, "hybrid L={l}");
                }
                assert_eq!(
                    scheme.signature_bytes(l),
                    k + rsa_hops.div_ceil(8) + hors_bytes
                );
            }
        }
        // Paths past the longest replayed are counted at the longest.
        assert_eq!(rsa.signature_bytes(40), rsa.signature_bytes(MAX_HOPS));
    }

    /// The `none` router receives, and sends, hopsig_bgp's plain UPDATE: ORIGIN, an
    /// AS_PATH of the route's ASes newest first, MP_REACH_NLRI of its prefix; no
    /// BGPsec_PATH. Its sending prepends [`LOCAL_AS`].
    #[test]
    fn the_unsigned_router_gets_and_sends_plain_updates() {
        let s = Scheme::prepare("none").unwrap();
        let Prepared::None { received } = &s.prepared else {
            panic!()
        };
        for (l, (msg, r)) in received.iter().enumerate() {
            let Message::Update(u) = Message::decode(msg, AsWidth::Four).unwrap() else {
                panic!("not an UPDATE")
            };
            let path: Vec<u32> = u.as_path().unwrap().segments[0].asns.clone();
            assert_eq!(path.len(), l + 1);
            assert_eq!(path, r.hops.iter().rev().map(|h| h.asn).collect::<Vec<_>>());
            assert_eq!(u.mp_reach().unwrap().nlri(), [r.nlri.prefix]);
            assert!(u.bgpsec_path().is_none());
            let mut sent = vec![LOCAL_AS];
            sent.extend(&path);
            let out = plain_update_message(r, sent.clone()).unwrap();
            let Message::Update(o) = Message::decode(&out, AsWidth::Four).unwrap() else {
                panic!("not an UPDATE")
            };
            assert_eq!(o.as_path().unwrap().segments[0].asns, sent);
        }
    }

    #[test]
    fn unknown_schemes_are_named() {
        let e = check_scheme("s-bgp").unwrap_err().to_string();
        assert!(e.contains("'s-bgp'") && e.contains("kc-mt"), "{e}");
        assert!(Scheme::prepare("nope").is_err());
    }

    /// A BGPsec router validating in cross-UPDATE batches: every announcement served
    /// once, in order (`after` sees 0, 1, 2, …), each charged its window's time in
    /// proportion to its L (so within a window validate / L is one number), windows cut
    /// every `batch` announcements; schemes without the batch report 1.
    #[test]
    fn batched_validation_charges_each_announcement_its_share() {
        let hops = [1, 3, 2, 5, 4, 15, 40];
        let s = Scheme::prepare("bgpsec-ecdsa").unwrap().batched(3).unwrap();
        assert_eq!(s.batch(), 3);
        let mut seen = Vec::new();
        let t = s
            .run(&hops, |i, _| {
                seen.push(i);
                Ok(())
            })
            .unwrap();
        assert_eq!(seen, (0..hops.len()).collect::<Vec<_>>());
        assert_eq!(t.len(), hops.len());
        let per_sig: Vec<f64> = t
            .iter()
            .zip(hops)
            .map(|(s, l)| s.validate / l.clamp(1, MAX_HOPS) as f64)
            .collect();
        for window in [0..3, 3..6] {
            let w = &per_sig[window];
            assert!(w.iter().all(|x| (x / w[0] - 1.0).abs() < 1e-9), "{w:?}");
        }
        assert!(t.iter().all(|s| s.validate > 0.0 && s.sign > 0.0));
        assert_eq!(Scheme::prepare("bgpsec-ecdsa").unwrap().batch(), 1);
        assert_eq!(
            Scheme::prepare("kc-mt")
                .unwrap()
                .batched(8)
                .unwrap()
                .batch(),
            1
        );
        assert_eq!(
            Scheme::prepare("bgr").unwrap().batched(0).unwrap().batch(),
            1
        );
        // The batch's UPDATEs are distinct routes: L hops each, all valid, no two
        // alike (a repeated signature would be verified once for all).
        let Prepared::Bgpsec {
            received,
            copies,
            keys,
            ..
        } = &s.prepared
        else {
            panic!()
        };
        for (l, copies) in copies.iter().enumerate() {
            assert_eq!(copies.len(), 2);
            let mut all: Vec<&Vec<u8>> = copies.iter().collect();
            all.push(&received[l].0);
            all.sort();
            all.dedup();
            assert_eq!(all.len(), 3, "L = {}", l + 1);
            let v = Validator::with_suites(SUITES, keys);
            let peer = Peer::external(LOCAL_AS, 65_000 + l as u32 + 1);
            for m in copies {
                assert!(v.message(m, &peer).is_valid(), "L = {}", l + 1);
            }
        }
    }

    #[test]
    fn kc_mt_routers_renew_their_key_after_sigma_signatures() {
        let s = Scheme::prepare("kc-mt").unwrap();
        let sigma = KCX_PARAMS.hors.sigma as usize;
        // 3 × Σ announcements at one position: the key is renewed twice, no error.
        let t = s.run(&vec![3; 3 * sigma], |_, _| Ok(())).unwrap();
        assert_eq!(t.len(), 3 * sigma);
    }
}
