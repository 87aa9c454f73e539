//! The KC-x path authenticator's bytes (`docs/spec/kcx.md`, "Signed content of RA_i"
//! and "Wire format").

use hopsig_primitives::codec::{Codec, DecodeError, EncodeError, Reader, Writer};
use hopsig_primitives::rsa::RsaPublicKey;

use super::{AttestationPublic, Hop, HopSig, KcParams, SignedRoute, TAG_RA};

/// Most hops (RAs) one path may carry.
pub const MAX_HOPS: usize = 64;
/// Longest prefix (NLRI) in bytes.
pub const MAX_PREFIX: usize = 64;
const MAGIC: &[u8; 2] = b"KC";
const VERSION: u8 = 1;

/// Key flags: bit 0, an RSA attestation key follows; bit 1, a Merkle root follows.
const KEY_RSA: u8 = 0x01;
const KEY_MT: u8 = 0x02;

hopsig_primitives::code_points! {
    /// The parameter-suite byte (`docs/spec/kcx.md`, "Parameter suites").
    pub enum Suite: "suite" {
        /// [`KcParams::PAPER`]: RSA-1024, HORS (512, 3).
        Paper = 1,
        /// [`KcParams::MODERN`]: RSA-2048, HORS (4096, 16).
        Modern = 2,
    }
}

impl Suite {
    /// The parameters the suite names.
    pub fn params(self) -> KcParams {
        match self {
            Suite::Paper => KcParams::PAPER,
            Suite::Modern => KcParams::MODERN,
        }
    }

    /// The suite of `params`, if they are one of the suites.
    ///
    /// # Errors
    /// [`EncodeError::Unrepresentable`] for other parameters, which have no wire form.
    pub fn of(params: &KcParams) -> Result<Suite, EncodeError> {
        Suite::ALL
            .iter()
            .copied()
            .find(|s| s.params() == *params)
            .ok_or(EncodeError::Unrepresentable {
                field: "suite",
                reason: "only the paper and modern KC-x suites have a wire form",
            })
    }
}

hopsig_primitives::code_points! {
    /// How an RA is signed: the `kind` byte.
    pub enum HopKind: "hop kind" {
        /// RA_0, with the origin's PKI key K_0 into the aggregate.
        Origin = 0,
        /// KC-RSA, with t_{i−1}⁻ into the aggregate.
        Rsa = 1,
        /// KC-MT, a HORS signature under t_{i−1}⁺.
        Mt = 2,
    }
}

impl HopSig {
    /// The kind byte of this signature.
    pub fn kind(&self) -> HopKind {
        match self {
            HopSig::Origin => HopKind::Origin,
            HopSig::Rsa => HopKind::Rsa,
            HopSig::Mt(_) => HopKind::Mt,
        }
    }
}

/// `key_i = flags(1) ‖ [len(2) ‖ RSA SubjectPublicKeyInfo DER] ‖ [root(ℓ)]`.
fn put_key(w: &mut Writer, params: &KcParams, key: &AttestationPublic) -> Result<(), EncodeError> {
    w.u8(if key.rsa.is_some() { KEY_RSA } else { 0 } | if key.mt.is_some() { KEY_MT } else { 0 });
    if let Some(k) = &key.rsa {
        if k.modulus_bits() != params.rsa_bits {
            return Err(EncodeError::Unrepresentable {
                field: "RSA attestation key",
                reason: "modulus size differs from the suite's",
            });
        }
        w.u16_prefixed("RSA attestation key", k.spki_der())?;
    }
    if let Some(root) = &key.mt {
        w.exact("Merkle root", root, params.hors.node_bytes)?;
    }
    Ok(())
}

fn get_key(r: &mut Reader<'_>, params: &KcParams) -> Result<AttestationPublic, DecodeError> {
    let flags = r.u8("key flags")?;
    if flags & !(KEY_RSA | KEY_MT) != 0 {
        return Err(invalid("key flags", "unknown bits set"));
    }
    let rsa = if flags & KEY_RSA != 0 {
        let der = r.u16_prefixed("RSA attestation key")?;
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
    let mt = if flags & KEY_MT != 0 {
        Some(r.take(params.hors.node_bytes, "Merkle root")?.to_vec())
    } else {
        None
    };
    Ok(AttestationPublic { rsa, mt })
}

/// The bytes RA_i signs (`docs/spec/kcx.md`, "Signed content of RA_i"):
///
/// ```text
/// "HOPSIG-KCX-V1-RA" ‖ suite(1) ‖ len(prefix)(1) ‖ prefix ‖ (i+1)(1) ‖ N_0(4) ‖ … ‖ N_i(4)
///   ‖ kind_i(1) ‖ expires_i(8) ‖ len(V_i)(1) ‖ V_i ‖ key_i
/// ```
///
/// # Errors
/// A suite, prefix, hop count, bit vector or key the format cannot carry: a signature
/// over truncated lengths would cover ambiguous bytes, so none is made.
pub(super) fn attestation_bytes(route: &SignedRoute, i: usize) -> Result<Vec<u8>, EncodeError> {
    let mut w = Writer::new();
    w.bytes(TAG_RA);
    w.u8(Suite::of(&route.params)?.into());
    w.u8_count("prefix length", route.prefix.len(), 0..=MAX_PREFIX)?;
    w.bytes(&route.prefix);
    w.u8_count("hop count", i + 1, 1..=MAX_HOPS)?;
    for h in route.hops.iter().take(i + 1) {
        w.u32_be(h.asn);
    }
    let hop = route.hops.get(i).ok_or(EncodeError::OutOfRange {
        field: "hop index",
        actual: i as u64,
        min: 0,
        max: route.hops.len().saturating_sub(1) as u64,
    })?;
    w.u8(hop.sig.kind().into());
    w.u64_be(hop.expires);
    w.u8_prefixed("bit vector", &hop.v)?;
    put_key(&mut w, &route.params, &hop.key)?;
    Ok(w.into_bytes())
}

fn invalid(field: &'static str, reason: &'static str) -> DecodeError {
    DecodeError::Invalid { field, reason }
}

/// Number of hops signed into the aggregate x (kinds 0 and 1), one SPLIT bit each.
fn rsa_hops(hops: &[Hop]) -> usize {
    hops.iter()
        .filter(|h| !matches!(h.sig, HopSig::Mt(_)))
        .count()
}

/// The path authenticator on the wire (`docs/spec/kcx.md`, "Wire format"):
///
/// ```text
/// "KC" ‖ 0x01 ‖ suite(1) ‖ len(prefix)(1, ≤ 64) ‖ prefix ‖ count(1, 1..=64)
/// for each hop: N(4) ‖ kind(1) ‖ expires(8) ‖ len(V)(1) ‖ V ‖ key
///               ‖ [if kind = 2: len(2) ‖ HORS signature]
/// x (k bytes) ‖ SPLIT bits: one per hop of kind 0 or 1, in hop order, MSB first,
///               padding bits zero
/// ```
impl Codec for SignedRoute {
    const NAME: &'static str = "path authenticator";
    type EncodeError = EncodeError;

    fn encode(&self, w: &mut Writer) -> Result<(), EncodeError> {
        w.bytes(MAGIC);
        w.u8(VERSION);
        w.u8(Suite::of(&self.params)?.into());
        w.u8_count("prefix length", self.prefix.len(), 0..=MAX_PREFIX)?;
        w.bytes(&self.prefix);
        w.u8_count("hop count", self.hops.len(), 1..=MAX_HOPS)?;
        for h in &self.hops {
            w.u32_be(h.asn);
            w.u8(h.sig.kind().into());
            w.u64_be(h.expires);
            w.u8_prefixed("bit vector", &h.v)?;
            put_key(w, &self.params, &h.key)?;
            if let HopSig::Mt(sig) = &h.sig {
                w.u16_prefixed("HORS signature", sig)?;
            }
        }
        w.exact("aggregate x", &self.x, self.params.k())?;
        let bits = rsa_hops(&self.hops);
        if self.b.len() != bits {
            return Err(EncodeError::OutOfRange {
                field: "SPLIT bit count",
                actual: self.b.len() as u64,
                min: bits as u64,
                max: bits as u64,
            });
        }
        w.bits(&self.b);
        Ok(())
    }

    /// Reads a signed route, rejecting anything malformed (the signatures are checked
    /// by [`super::verify`]).
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        if r.take(2, "magic")? != MAGIC {
            return Err(invalid("magic", "not a KC-x path authenticator"));
        }
        if r.u8("version")? != VERSION {
            return Err(invalid("version", "unsupported version"));
        }
        let params = Suite::read(r)?.params();
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
            let asn = r.u32_be("AS number")?;
            let kind = HopKind::read(r)?;
            let expires = r.u64_be("expiry")?;
            let v = r.u8_prefixed("bit vector")?.to_vec();
            let key = get_key(r, &params)?;
            let sig = match kind {
                HopKind::Origin => HopSig::Origin,
                HopKind::Rsa => HopSig::Rsa,
                HopKind::Mt => HopSig::Mt(r.u16_prefixed("HORS signature")?.to_vec()),
            };
            hops.push(Hop {
                asn,
                v,
                expires,
                key,
                sig,
            });
        }
        let x = r.take(params.k(), "aggregate x")?.to_vec();
        let b = r.bits(rsa_hops(&hops), "SPLIT bits")?;
        Ok(SignedRoute {
            params,
            prefix,
            hops,
            x,
            b,
        })
    }
}

/// Encodes a signed route.
///
/// # Errors
/// [`crate::Error::Encode`] for parameters without a suite byte or fields over the
/// format's limits (which [`super::originate`] and [`super::forward`] never produce).
pub fn encode(route: &SignedRoute) -> Result<Vec<u8>, crate::Error> {
    Ok(route.encoding()?)
}

/// Decodes a signed route, rejecting anything malformed (the signatures are checked by
/// [`super::verify`]).
///
/// # Errors
/// [`crate::Error::Decode`] naming the field.
pub fn decode(bytes: &[u8]) -> Result<SignedRoute, crate::Error> {
    Ok(SignedRoute::decode(bytes)?)
}
