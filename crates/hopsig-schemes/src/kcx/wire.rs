//! The KC-x path authenticator's bytes (docs/spec/kcx.md).

use hopsig_primitives::codec::{DecodeError, Reader};
use hopsig_primitives::rsa::RsaPublicKey;

use super::{AttestationPublic, Hop, HopSig, KcParams, SignedRoute, TAG_RA};
use crate::Error;

/// Most hops (RAs) one path may carry.
pub const MAX_HOPS: usize = 64;
const MAGIC: &[u8; 2] = b"KC";
const VERSION: u8 = 1;
const MAX_PREFIX: usize = 64;
const MAX_V: usize = 255;

const KIND_ORIGIN: u8 = 0;
const KIND_RSA: u8 = 1;
const KIND_MT: u8 = 2;

/// Parameter-set byte.
fn suite(p: &KcParams) -> u8 {
    if *p == KcParams::PAPER {
        1
    } else if *p == KcParams::MODERN {
        2
    } else {
        0
    }
}

fn kind(sig: &HopSig) -> u8 {
    match sig {
        HopSig::Origin => KIND_ORIGIN,
        HopSig::Rsa => KIND_RSA,
        HopSig::Mt(_) => KIND_MT,
    }
}

fn put_key(out: &mut Vec<u8>, key: &AttestationPublic) {
    out.push(u8::from(key.rsa.is_some()) | u8::from(key.mt.is_some()) << 1);
    if let Some(k) = &key.rsa {
        let der = k.spki_der();
        out.extend_from_slice(&(der.len() as u16).to_be_bytes());
        out.extend_from_slice(der);
    }
    if let Some(root) = &key.mt {
        out.extend_from_slice(root);
    }
}

/// The bytes RA_i signs (see the spec's "Signed content").
pub(super) fn attestation_bytes(route: &SignedRoute, i: usize) -> Vec<u8> {
    let mut out = TAG_RA.to_vec();
    out.push(suite(&route.params));
    out.push(route.prefix.len() as u8);
    out.extend_from_slice(&route.prefix);
    out.push((i + 1) as u8);
    for h in &route.hops[..=i] {
        out.extend_from_slice(&h.asn.to_be_bytes());
    }
    let hop = &route.hops[i];
    out.push(kind(&hop.sig));
    out.extend_from_slice(&hop.expires.to_be_bytes());
    out.push(hop.v.len() as u8);
    out.extend_from_slice(&hop.v);
    put_key(&mut out, &hop.key);
    out
}

/// Encodes a signed route.
///
/// # Errors
/// [`Error::Limit`] for parameters without a suite byte or fields over the format's
/// limits (which [`super::originate`] and [`super::forward`] never produce).
pub fn encode(route: &SignedRoute) -> Result<Vec<u8>, Error> {
    let s = suite(&route.params);
    if s == 0 {
        return Err(Error::Limit(
            "only the paper and modern KC-x suites have a wire form".into(),
        ));
    }
    if route.prefix.len() > MAX_PREFIX || route.hops.is_empty() || route.hops.len() > MAX_HOPS {
        return Err(Error::Limit(
            "prefix or hop count outside the format's limits".into(),
        ));
    }
    let mut out = MAGIC.to_vec();
    out.push(VERSION);
    out.push(s);
    out.push(route.prefix.len() as u8);
    out.extend_from_slice(&route.prefix);
    out.push(route.hops.len() as u8);
    for h in &route.hops {
        if h.v.len() > MAX_V {
            return Err(Error::Limit("bit vector longer than 255 bytes".into()));
        }
        out.extend_from_slice(&h.asn.to_be_bytes());
        out.push(kind(&h.sig));
        out.extend_from_slice(&h.expires.to_be_bytes());
        out.push(h.v.len() as u8);
        out.extend_from_slice(&h.v);
        put_key(&mut out, &h.key);
        if let HopSig::Mt(sig) = &h.sig {
            out.extend_from_slice(&(sig.len() as u16).to_be_bytes());
            out.extend_from_slice(sig);
        }
    }
    out.extend_from_slice(&route.x);
    let mut bits = vec![0u8; route.b.len().div_ceil(8)];
    for (j, b) in route.b.iter().enumerate() {
        if *b {
            bits[j / 8] |= 0x80 >> (j % 8);
        }
    }
    out.extend_from_slice(&bits);
    Ok(out)
}

fn invalid(field: &'static str, reason: &'static str) -> Error {
    DecodeError::Invalid { field, reason }.into()
}

/// Decodes a signed route, rejecting anything malformed (the signatures are checked by
/// [`super::verify`]).
///
/// # Errors
/// [`Error::Decode`] naming the field.
pub fn decode(bytes: &[u8]) -> Result<SignedRoute, Error> {
    let mut r = Reader::new(bytes);
    if r.take(2, "magic")? != MAGIC {
        return Err(invalid("magic", "not a KC-x path authenticator"));
    }
    if r.u8("version")? != VERSION {
        return Err(invalid("version", "unsupported version"));
    }
    let params = match r.u8("suite")? {
        1 => KcParams::PAPER,
        2 => KcParams::MODERN,
        _ => return Err(invalid("suite", "unknown parameter suite")),
    };
    let plen = usize::from(r.u8("prefix length")?);
    if plen > MAX_PREFIX {
        return Err(invalid("prefix length", "longer than 64 bytes"));
    }
    let prefix = r.take(plen, "prefix")?.to_vec();
    let count = usize::from(r.u8("hop count")?);
    if count == 0 || count > MAX_HOPS {
        return Err(invalid("hop count", "must be 1..=64"));
    }
    let mut hops = Vec::with_capacity(count);
    for _ in 0..count {
        let asn = u32::from_be_bytes(r.array("AS number")?);
        let k = r.u8("hop kind")?;
        let expires = u64::from_be_bytes(r.array("expiry")?);
        let vlen = usize::from(r.u8("bit vector length")?);
        let v = r.take(vlen, "bit vector")?.to_vec();
        let flags = r.u8("key flags")?;
        if flags & !3 != 0 {
            return Err(invalid("key flags", "unknown bits set"));
        }
        let rsa = if flags & 1 != 0 {
            let len = usize::from(r.u16_be("RSA key length")?);
            let der = r.take(len, "RSA attestation key")?;
            let key = RsaPublicKey::from_spki_der(der).map_err(|_| {
                invalid(
                    "RSA attestation key",
                    "not an acceptable RSA SubjectPublicKeyInfo",
                )
            })?;
            if key.modulus_bits() != params.rsa_bits {
                return Err(invalid(
                    "RSA attestation key",
                    "modulus size differs from the suite's",
                ));
            }
            Some(key)
        } else {
            None
        };
        let mt = if flags & 2 != 0 {
            Some(r.take(params.hors.node_bytes, "Merkle root")?.to_vec())
        } else {
            None
        };
        let sig = match k {
            KIND_ORIGIN => HopSig::Origin,
            KIND_RSA => HopSig::Rsa,
            KIND_MT => {
                let len = usize::from(r.u16_be("HORS signature length")?);
                HopSig::Mt(r.take(len, "HORS signature")?.to_vec())
            }
            _ => return Err(invalid("hop kind", "unknown")),
        };
        hops.push(Hop {
            asn,
            v,
            expires,
            key: AttestationPublic { rsa, mt },
            sig,
        });
    }
    let x = r.take(params.k(), "aggregate x")?.to_vec();
    let rsa_hops = hops
        .iter()
        .filter(|h| !matches!(h.sig, HopSig::Mt(_)))
        .count();
    let bits = r.take(rsa_hops.div_ceil(8), "SPLIT bits")?;
    let b: Vec<bool> = (0..rsa_hops)
        .map(|j| bits[j / 8] & (0x80 >> (j % 8)) != 0)
        .collect();
    if rsa_hops % 8 != 0
        && bits
            .last()
            .is_some_and(|l| l & (0xff >> (rsa_hops % 8)) != 0)
    {
        return Err(invalid("SPLIT bits", "padding bits must be zero"));
    }
    r.finish("path authenticator")?;
    Ok(SignedRoute {
        params,
        prefix,
        hops,
        x,
        b,
    })
}
