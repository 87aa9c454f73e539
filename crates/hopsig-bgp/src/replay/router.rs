//! A router's work for one announcement under each scheme of 001 §V-A-3 (with BGPsec
//! in place of S-BGP and BGR beside it): validate the L signatures of the received
//! path, then sign the router's own hop. Everything is hopsig's real code; only the
//! upstream signatures are made beforehand, once per path length.

use hopsig_schemes::kcx::sim::{self, Variant};
use hopsig_schemes::kcx::KcParams;

use crate::packet::{AsWidth, AttributeValue, Message, PathAttribute};
use crate::router_key::RouterKeys;
use crate::sign::{Hop, Signer};
use crate::suite::{AlgorithmSuite, BGR_RSA2048, ECDSA_P256_SHA256, SUITES};
use crate::trace::announcement::{PathHop, Route};
use crate::trace::sign::{signed_path, update_message};
use crate::trace::Keyring;
use crate::validate::{Peer, Validator};
use crate::SignedNlri;

/// The schemes a replay compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    /// No security: the trace as it is (001 Fig. 5 (a), (b)).
    None,
    /// BGPsec, RFC 8608 suite 1 (ECDSA P-256): what S-BGP became.
    BgpsecEcdsa,
    /// BGPsec with the BGR suite 0xF7 (docs/spec/bgpsec-bgr.md).
    Bgr,
    /// KC-RSA (001 §IV-A), with the parameters given to [`Work::new`].
    KcRsa,
    /// KC-MT (001 §IV-B), likewise.
    KcMt,
    /// The hybrid (001 §IV-C): odd hops KC-RSA, even hops KC-MT.
    Hybrid,
}

impl Scheme {
    /// Every scheme, in the order of the tables.
    pub const ALL: [Scheme; 6] = [
        Scheme::None,
        Scheme::BgpsecEcdsa,
        Scheme::Bgr,
        Scheme::KcRsa,
        Scheme::KcMt,
        Scheme::Hybrid,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::None => "none",
            Scheme::BgpsecEcdsa => "bgpsec-ecdsa",
            Scheme::Bgr => "bgr",
            Scheme::KcRsa => "kc-rsa",
            Scheme::KcMt => "kc-mt",
            Scheme::Hybrid => "hybrid",
        }
    }

    /// The scheme named `name`.
    pub fn by_name(name: &str) -> Option<Scheme> {
        Scheme::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// The AS the replaying router is in.
const ROUTER_AS: u32 = 64_999;
/// The AS it forwards to.
const NEXT_AS: u32 = 64_998;
/// The first upstream AS (the origin of every prepared path).
const FIRST_AS: u32 = 65_001;

/// Why the work could not be prepared or done.
#[derive(Debug, thiserror::Error)]
#[error("{scheme}: {message}")]
pub struct WorkError {
    /// The scheme.
    pub scheme: &'static str,
    /// What failed.
    pub message: String,
}

/// One scheme's prepared paths and the router's keys.
pub struct Work {
    scheme: Scheme,
    max_hops: usize,
    inner: Inner,
}

enum Inner {
    None,
    Bgpsec(Box<Bgpsec>),
    Kc(sim::Router),
}

struct Bgpsec {
    keys: RouterKeys,
    /// Per length L (index L − 1): the UPDATE the router receives, and its BGPsec_PATH
    /// attribute's size.
    received: Vec<(Vec<u8>, usize)>,
    router: Signer<'static>,
}

impl std::fmt::Debug for Work {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Work({}, up to {} hops)",
            self.scheme.name(),
            self.max_hops
        )
    }
}

impl Work {
    /// Prepares paths of 1 ..= `max_hops` signatures for `scheme` (key generation and
    /// the upstream signing happen here); KC-x schemes use `kc`
    /// ([`KcParams::MODERN`]: RSA-2048, HORS (4096, 16); [`KcParams::PAPER`]: RSA-1024,
    /// HORS (512, 3), as 001 measured).
    ///
    /// # Errors
    /// [`WorkError`] on backend failures.
    pub fn new(scheme: Scheme, max_hops: usize, kc: KcParams) -> Result<Work, WorkError> {
        let max_hops = max_hops.clamp(1, 62);
        let fail = |e: &dyn std::fmt::Display| WorkError {
            scheme: scheme.name(),
            message: e.to_string(),
        };
        let now = 1_700_000_000;
        let inner = match scheme {
            Scheme::None => Inner::None,
            Scheme::BgpsecEcdsa => Inner::Bgpsec(Box::new(
                bgpsec(&ECDSA_P256_SHA256, max_hops).map_err(|e| fail(&e))?,
            )),
            Scheme::Bgr => Inner::Bgpsec(Box::new(
                bgpsec(&BGR_RSA2048, max_hops).map_err(|e| fail(&e))?,
            )),
            Scheme::KcRsa | Scheme::KcMt | Scheme::Hybrid => {
                let variant = match scheme {
                    Scheme::KcRsa => Variant::Rsa,
                    Scheme::KcMt => Variant::Mt,
                    _ => Variant::Hybrid,
                };
                Inner::Kc(sim::Router::new(kc, variant, max_hops, now).map_err(|e| fail(&e))?)
            }
        };
        Ok(Work {
            scheme,
            max_hops,
            inner,
        })
    }

    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// Validates the received path of `hops` signatures (clamped to the longest
    /// prepared).
    ///
    /// # Errors
    /// [`WorkError`] if it is not valid (a bug: the paths are signed correctly).
    pub fn validate(&self, hops: usize) -> Result<(), WorkError> {
        let l = hops.clamp(1, self.max_hops);
        let fail = |m: String| WorkError {
            scheme: self.scheme.name(),
            message: m,
        };
        match &self.inner {
            Inner::None => Ok(()),
            Inner::Bgpsec(b) => {
                let (message, _) = &b.received[l - 1];
                let peer = Peer::external(ROUTER_AS, FIRST_AS + l as u32 - 1);
                let v = Validator::with_suites(SUITES, &b.keys).message(message, &peer);
                if v.is_valid() {
                    Ok(())
                } else {
                    Err(fail(format!(
                        "a prepared {l}-hop UPDATE is not valid: {v:?}"
                    )))
                }
            }
            Inner::Kc(r) => r.verify(l).map_err(|e| fail(e.to_string())),
        }
    }

    /// Signs the router's hop onto the path of `hops` signatures and builds what it
    /// sends; returns its size in octets (0 for no scheme).
    ///
    /// # Errors
    /// [`WorkError`] on backend failures.
    pub fn sign(&mut self, hops: usize) -> Result<usize, WorkError> {
        let l = hops.clamp(1, self.max_hops);
        let name = self.scheme.name();
        let fail = |m: String| WorkError {
            scheme: name,
            message: m,
        };
        match &mut self.inner {
            Inner::None => Ok(0),
            Inner::Bgpsec(b) => {
                let (message, _) = &b.received[l - 1];
                let Ok(Message::Update(update)) = Message::decode(message, AsWidth::Four) else {
                    return Err(fail("a prepared UPDATE does not decode".into()));
                };
                let out = b
                    .router
                    .forward(&update, None, &Hop::to(NEXT_AS))
                    .map_err(|e| fail(e.to_string()))?;
                Message::Update(out)
                    .encoding(AsWidth::Four)
                    .map(|m| m.len())
                    .map_err(|e| fail(e.to_string()))
            }
            Inner::Kc(r) => r.sign(l).map_err(|e| fail(e.to_string())),
        }
    }

    /// What a router does between UPDATEs and a replay does not time: taking in the
    /// KC-x hand-overs that replace spent KC-MT keys ([`sim::Router::receive_handovers`]).
    ///
    /// # Errors
    /// [`WorkError`] (a bug).
    pub fn untimed_upkeep(&mut self) -> Result<(), WorkError> {
        match &mut self.inner {
            Inner::Kc(r) => r.receive_handovers().map_err(|e| WorkError {
                scheme: self.scheme.name(),
                message: e.to_string(),
            }),
            _ => Ok(()),
        }
    }

    /// The octets a RIB keeps for a route of `hops` signatures under this scheme: the
    /// BGPsec_PATH attribute (Secure_Path and Signature_Block), or KC-x's encoded path
    /// authenticator (docs/spec/kcx.md); 0 for no scheme. Lengths past the longest
    /// prepared path grow by the last hop's increment.
    ///
    /// # Errors
    /// [`WorkError`] on encoding failures (a bug).
    pub fn route_bytes(&self, hops: usize) -> Result<usize, WorkError> {
        let size = |l: usize| -> Result<usize, WorkError> {
            match &self.inner {
                Inner::None => Ok(0),
                Inner::Bgpsec(b) => Ok(b.received[l - 1].1),
                Inner::Kc(r) => r.route_bytes(l).map_err(|e| WorkError {
                    scheme: self.scheme.name(),
                    message: e.to_string(),
                }),
            }
        };
        let l = hops.max(1);
        if l <= self.max_hops {
            return size(l);
        }
        let last = size(self.max_hops)?;
        let step = if self.max_hops > 1 {
            last.saturating_sub(size(self.max_hops - 1)?)
        } else {
            last
        };
        Ok(last + (l - self.max_hops) * step)
    }
}

/// The router's keys and the received UPDATEs of 1 ..= `max` hops for `suite`.
fn bgpsec(suite: &'static dyn AlgorithmSuite, max: usize) -> Result<Bgpsec, String> {
    let mut ring = Keyring::new(suite);
    let ases: Vec<u32> = (0..max as u32).map(|i| FIRST_AS + i).collect();
    ring.generate(&ases, 1).map_err(|e| e.to_string())?;
    let prefix = crate::packet::Prefix::new(std::net::Ipv4Addr::new(198, 51, 100, 0).into(), 24)
        .map_err(|e| e.to_string())?;
    let mut received = Vec::with_capacity(max);
    for l in 1..=max {
        let route = Route {
            hops: ases[..l]
                .iter()
                .map(|&asn| PathHop { asn, pcount: 1 })
                .collect(),
            target_as: ROUTER_AS,
            nlri: SignedNlri::unicast(prefix),
            next_hop: crate::packet::NextHop::V4(std::net::Ipv4Addr::new(192, 0, 2, 1)),
            origin: crate::packet::Origin::Igp,
        };
        let path = signed_path(&route, &ring).map_err(|e| e.to_string())?;
        let mut attr = hopsig_primitives::codec::Writer::new();
        PathAttribute::new(AttributeValue::BgpsecPath(path.clone()), AsWidth::Four)
            .and_then(|a| Ok(a.encode(&mut attr, AsWidth::Four)?))
            .map_err(|e| e.to_string())?;
        let message = update_message(&route, path).map_err(|e| e.to_string())?;
        received.push((message, attr.len()));
    }
    let router = Signer::new(ROUTER_AS)
        .with_key(suite, suite.generate().map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    Ok(Bgpsec {
        keys: ring.router_keys(),
        received,
        router,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn every_scheme_validates_and_signs_every_prepared_length() {
        for scheme in Scheme::ALL {
            assert_eq!(Scheme::by_name(scheme.name()), Some(scheme));
            let mut w = Work::new(scheme, 5, KcParams::MODERN).unwrap();
            let mut last = 0;
            for l in 1..=5 {
                w.validate(l).unwrap();
                let out = w.sign(l).unwrap();
                let kept = w.route_bytes(l).unwrap();
                if scheme == Scheme::None {
                    assert_eq!((out, kept), (0, 0));
                } else {
                    assert!(
                        out > kept && kept > last,
                        "{scheme:?} {l}: {out} {kept} {last}"
                    );
                }
                last = kept;
            }
            // Longer paths than prepared: validated as the longest, sized by extrapolation.
            w.validate(9).unwrap();
            let step = w.route_bytes(5).unwrap() - w.route_bytes(4).unwrap();
            assert_eq!(
                w.route_bytes(7).unwrap(),
                w.route_bytes(5).unwrap() + 2 * step
            );
        }
        assert_eq!(Scheme::by_name("s-bgp"), None);
    }
}
