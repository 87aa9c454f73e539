//! The PLA per-packet authentication header (003 §I and Table I): signature, the
//! signer's key material (a compressed public key with a TTP signature on it, or an
//! implicit certificate), TTP id, sequence number and timestamp, and the per-hop check
//! that verifies a packet in one operation (for implicit certificates, the fused
//! extraction + verification of eq. 9). `docs/spec/pla.md` gives the layout.

use std::collections::HashMap;

use hopsig_koblitz::curve::{Affine, Curve};
use hopsig_koblitz::tau::{TauTable, FIXED_WIDTH};
use hopsig_koblitz::Fe;
use hopsig_primitives::codec::{DecodeError, Reader};
use openssl::bn::BigNum;
use openssl::ecdsa::EcdsaSig;

use super::icnr::{self, ImplicitCert};
use crate::concat::koblitz::{order_bytes, verify_der, KoblitzSecret};
use crate::Error;

/// Header format version.
pub const VERSION: u8 = 1;
/// Tag of the packet signature's input.
pub const TAG_PACKET: &[u8] = b"HOPSIG-PLA-V1-PACKET";
/// Tag of the TTP's signature on a public key (certificate-based layout).
pub const TAG_CERT: &[u8] = b"HOPSIG-PLA-V1-CERT";

/// The curve byte of the header.
pub fn curve_id<C: Curve>() -> u8 {
    match C::NAME {
        "K163" => 1,
        "K233" => 2,
        "K283" => 3,
        _ => 0,
    }
}

/// How the signer's key travels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyMaterial {
    /// Certificate-based: SEC 1 compressed public key and the TTP's raw signature
    /// (c ‖ d) on `TAG_CERT ‖ key`.
    Certificate {
        /// Compressed public key, 1 + ceil(m/8) bytes.
        key: Vec<u8>,
        /// TTP signature, 2·bytes(n).
        ttp_sig: Vec<u8>,
    },
    /// Implicit certificate (r_A, b_A).
    Implicit(ImplicitCert),
}

/// A decoded PLA header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaHeader {
    /// The TTP that certified the signer.
    pub ttp_id: u16,
    /// Sequence number.
    pub sequence: u32,
    /// Unix time of signing, seconds.
    pub timestamp: u32,
    /// Key material.
    pub key: KeyMaterial,
    /// Raw packet signature c ‖ d, 2·bytes(n).
    pub signature: Vec<u8>,
}

/// Raw c ‖ d from DER.
fn raw<C: Curve>(der: &[u8]) -> Result<Vec<u8>, Error> {
    let sig = EcdsaSig::from_der(der)?;
    let l = order_bytes::<C>() as i32;
    let mut out = sig.r().to_vec_padded(l)?;
    out.extend_from_slice(&sig.s().to_vec_padded(l)?);
    Ok(out)
}

/// DER from raw c ‖ d.
fn der<C: Curve>(raw: &[u8]) -> Option<Vec<u8>> {
    let l = order_bytes::<C>();
    if raw.len() != 2 * l {
        return None;
    }
    let (c, d) = (
        BigNum::from_slice(&raw[..l]).ok()?,
        BigNum::from_slice(&raw[l..]).ok()?,
    );
    EcdsaSig::from_private_components(c, d).ok()?.to_der().ok()
}

impl PlaHeader {
    /// The header bytes covered by the packet signature (everything but the signature).
    fn signed_fields<C: Curve>(&self) -> Vec<u8> {
        let mut out = vec![VERSION, curve_id::<C>()];
        match &self.key {
            KeyMaterial::Certificate { key, ttp_sig } => {
                out.push(1);
                out.extend_from_slice(&self.ttp_id.to_be_bytes());
                out.extend_from_slice(&self.sequence.to_be_bytes());
                out.extend_from_slice(&self.timestamp.to_be_bytes());
                out.extend_from_slice(key);
                out.extend_from_slice(ttp_sig);
            }
            KeyMaterial::Implicit(cert) => {
                out.push(2);
                out.extend_from_slice(&self.ttp_id.to_be_bytes());
                out.extend_from_slice(&self.sequence.to_be_bytes());
                out.extend_from_slice(&self.timestamp.to_be_bytes());
                out.extend_from_slice(&cert.r);
                out.push(u8::from(cert.b));
            }
        }
        out
    }

    fn message<C: Curve>(&self, payload: &[u8]) -> Vec<u8> {
        [TAG_PACKET, &self.signed_fields::<C>(), payload].concat()
    }

    /// Signs `payload` and fills in the signature.
    ///
    /// # Errors
    /// Backend failures.
    pub fn sign<C: Curve>(&mut self, key: &KoblitzSecret<C>, payload: &[u8]) -> Result<(), Error> {
        self.signature = raw::<C>(&key.sign(&self.message::<C>(payload))?)?;
        Ok(())
    }

    /// The header bytes.
    pub fn encode<C: Curve>(&self) -> Vec<u8> {
        let mut out = self.signed_fields::<C>();
        out.extend_from_slice(&self.signature);
        out
    }

    /// Decodes a header for curve `C`.
    ///
    /// # Errors
    /// [`Error::Decode`] naming the field.
    pub fn decode<C: Curve>(bytes: &[u8]) -> Result<Self, Error> {
        let invalid = |field, reason| Error::from(DecodeError::Invalid { field, reason });
        let mut r = Reader::new(bytes);
        if r.u8("version")? != VERSION {
            return Err(invalid("version", "unsupported PLA header version"));
        }
        if r.u8("curve")? != curve_id::<C>() {
            return Err(invalid("curve", "header is for another curve"));
        }
        let layout = r.u8("layout")?;
        let ttp_id = r.u16_be("TTP id")?;
        let sequence = u32::from_be_bytes(r.array("sequence number")?);
        let timestamp = u32::from_be_bytes(r.array("timestamp")?);
        let f = Fe::<C::F>::BYTES;
        let l = order_bytes::<C>();
        let key = match layout {
            1 => KeyMaterial::Certificate {
                key: r.take(1 + f, "public key")?.to_vec(),
                ttp_sig: r.take(2 * l, "TTP signature")?.to_vec(),
            },
            2 => {
                let rr = r.take(f, "r_A")?.to_vec();
                let b = match r.u8("b_A")? {
                    0 => false,
                    1 => true,
                    _ => return Err(invalid("b_A", "must be 0 or 1")),
                };
                KeyMaterial::Implicit(ImplicitCert { r: rr, b })
            }
            _ => return Err(invalid("layout", "must be 1 (certificate) or 2 (implicit)")),
        };
        let signature = r.take(2 * l, "signature")?.to_vec();
        r.finish("PLA header")?;
        Ok(PlaHeader {
            ttp_id,
            sequence,
            timestamp,
            key,
            signature,
        })
    }

    /// Cryptographic bits per packet as 003 Table I counts them: signature 2·bits(n),
    /// key m + 1, TTP signature 2·bits(n) (certificate-based only).
    pub fn table1_bits<C: Curve>(implicit: bool) -> usize {
        let n_bits = BigNum::from_hex_str(C::ORDER).map_or(0, |n| n.num_bits() as usize);
        let m = <C::F as hopsig_koblitz::Field>::M;
        2 * n_bits + (m + 1) + if implicit { 0 } else { 2 * n_bits }
    }
}

/// The TTPs a router trusts, by id, with their keys' tables kept.
pub struct TtpDirectory<C: Curve> {
    keys: HashMap<u16, (Affine<C>, TauTable<C>)>,
}

impl<C: Curve> std::fmt::Debug for TtpDirectory<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TtpDirectory({} TTPs)", self.keys.len())
    }
}

impl<C: Curve> Default for TtpDirectory<C> {
    fn default() -> Self {
        TtpDirectory {
            keys: HashMap::new(),
        }
    }
}

impl<C: Curve> TtpDirectory<C> {
    /// Trusts `key` as TTP `id`.
    pub fn insert(&mut self, id: u16, key: Affine<C>) {
        self.keys
            .insert(id, (key, TauTable::new(&key, FIXED_WIDTH)));
    }
}

/// The TTP's certificate signature on a public key (certificate-based layout).
///
/// # Errors
/// Backend failures.
pub fn certify<C: Curve>(ttp: &KoblitzSecret<C>, key: &Affine<C>) -> Result<Vec<u8>, Error> {
    raw::<C>(&ttp.sign(&[TAG_CERT, &key.to_sec1(true)].concat())?)
}

/// The per-hop check: decodes the header, requires a known TTP and a timestamp no
/// older than `max_age` seconds (and not in the future) at `now`, then verifies: for an
/// implicit certificate on the source identity `src`, one fused extraction +
/// verification; for a certificate, the TTP signature on the key and the packet
/// signature.
///
/// # Errors
/// [`Error::Decode`] for a malformed header; [`Error::InvalidSignature`] for anything
/// that does not verify (unknown TTP, stale, bad key, bad signature).
pub fn check_packet<C: Curve>(
    header: &[u8],
    payload: &[u8],
    src: &[u8],
    ttps: &TtpDirectory<C>,
    now: u32,
    max_age: u32,
) -> Result<PlaHeader, Error> {
    let h = PlaHeader::decode::<C>(header)?;
    let bad = || Error::InvalidSignature;
    let (ttp_key, ttp_table) = ttps.keys.get(&h.ttp_id).ok_or_else(bad)?;
    if h.timestamp > now || now - h.timestamp > max_age {
        return Err(bad());
    }
    let sig = der::<C>(&h.signature).ok_or_else(bad)?;
    let msg = h.message::<C>(payload);
    let ok = match &h.key {
        KeyMaterial::Implicit(cert) => icnr::verify_fused(src, cert, ttp_table, &msg, &sig),
        KeyMaterial::Certificate { key, ttp_sig } => {
            let q = Affine::<C>::from_sec1(key).map_err(|_| bad())?;
            if q.is_infinity() || !q.in_subgroup_fast() {
                return Err(bad());
            }
            let cert_sig = der::<C>(ttp_sig).ok_or_else(bad)?;
            verify_der(ttp_key, &[TAG_CERT, key.as_slice()].concat(), &cert_sig)
                && verify_der(&q, &msg, &sig)
        }
    };
    if ok {
        Ok(h)
    } else {
        Err(bad())
    }
}
