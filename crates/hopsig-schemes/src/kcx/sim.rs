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
    /// Parses `rsa`, `mt` or `hybrid`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "rsa" => Some(Variant::Rsa),
            "mt" => Some(Variant::Mt),
            "hybrid" => Some(Variant::Hybrid),
            _ => None,
        }
    }

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
    let origin_key = RsaSecretKey::generate(params.rsa_bits)?;
    let mut dir = StaticDirectory::default();
    dir.set_key(asn(0), origin_key.public().clone());
    for i in 0..hops {
        dir.set_neighbours(asn(i), neighbours(i, hops));
    }
    dir.set_neighbours(RECEIVER, vec![asn(hops - 1)]);
    let next = |i: usize| if i + 1 == hops { RECEIVER } else { asn(i + 1) };
    let (public, mut handover) = issue(&params, v.issue())?;
    let mut route = originate(
        params,
        &origin_key,
        asn(0),
        &neighbours(0, hops),
        &[next(0)],
        b"198.51.100.0/24",
        expires,
        &public,
    )?;
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
