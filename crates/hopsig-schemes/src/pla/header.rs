//! The PLA per-packet authentication header (003 §I and Table I): signature, the
//! signer's key material (a compressed public key with a TTP signature on it, or an
//! implicit certificate), TTP id, sequence number and timestamp, and the per-hop check
//! that verifies a packet in one operation (for implicit certificates, the fused
//! extraction + verification of eq. 9). `docs/spec/pla.md` gives the layout.

use std::collections::HashMap;

use hopsig_koblitz::curve::{Affine, Curve, K163, K233, K283};
use hopsig_koblitz::tau::{TauTable, FIXED_WIDTH};
use hopsig_koblitz::Fe;
use hopsig_primitives::codec::{Codec, DecodeError, EncodeError, Reader, Writer};
use openssl::bn::BigNum;

use super::icnr::{self, ImplicitCert};
use crate::concat::koblitz::{
    digest_parts, order_bytes, raw_signature_scalars, verify_scalars, KoblitzSecret,
};
use crate::Error;

/// Header format version.
pub const VERSION: u8 = 1;
/// Tag of the packet signature's input.
pub const TAG_PACKET: &[u8] = b"HOPSIG-PLA-V1-PACKET";
/// Tag of the TTP's signature on a public key (certificate-based layout).
pub const TAG_CERT: &[u8] = b"HOPSIG-PLA-V1-CERT";

hopsig_primitives::code_points! {
    /// The curve byte of the header.
    pub enum PlaCurve: "curve" {
        /// K-163 (sect163k1).
        K163 = 1,
        /// K-233 (sect233k1).
        K233 = 2,
        /// K-283 (sect283k1).
        K283 = 3,
    }
}

impl PlaCurve {
    /// The code of curve `C`.
    ///
    /// # Errors
    /// [`EncodeError::Unrepresentable`] for a curve the header has no code for.
    pub fn of<C: Curve>() -> Result<Self, EncodeError> {
        PlaCurve::ALL
            .iter()
            .copied()
            .find(|c| c.name() == C::NAME)
            .ok_or(EncodeError::Unrepresentable {
                field: "curve",
                reason: "the PLA header has codes for K-163, K-233 and K-283 only",
            })
    }

    /// The curve's name (`Curve::NAME`).
    pub fn name(self) -> &'static str {
        match self {
            PlaCurve::K163 => K163::NAME,
            PlaCurve::K233 => K233::NAME,
            PlaCurve::K283 => K283::NAME,
        }
    }

    /// F = ceil(m / 8), the bytes of a field element, and L = bytes(n), of a scalar.
    pub fn sizes(self) -> (usize, usize) {
        fn of<C: Curve>() -> (usize, usize) {
            (Fe::<C::F>::BYTES, order_bytes::<C>())
        }
        match self {
            PlaCurve::K163 => of::<K163>(),
            PlaCurve::K233 => of::<K233>(),
            PlaCurve::K283 => of::<K283>(),
        }
    }
}

hopsig_primitives::code_points! {
    /// How the signer's key travels: the layout byte.
    pub enum Layout: "layout" {
        /// Certificate-based: compressed public key and the TTP's signature on it.
        Certificate = 1,
        /// Implicit certificate (r_A, b_A).
        Implicit = 2,
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

impl KeyMaterial {
    /// The layout byte.
    pub fn layout(&self) -> Layout {
        match self {
            KeyMaterial::Certificate { .. } => Layout::Certificate,
            KeyMaterial::Implicit(_) => Layout::Implicit,
        }
    }
}

/// A decoded PLA header (`docs/spec/pla.md`, "PLA header"). F = ceil(m/8), L = bytes(n).
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  version (1)  |     curve     |    layout     |   TTP id ...  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ... TTP id   |              sequence number ...              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |  ... seq no.  |              timestamp (Unix s) ...           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// | ... timestamp | layout 1: public key (1 + F) ‖ TTP signature  |
/// +-+-+-+-+-+-+-+-+           (2L: c ‖ d)                         |
/// |               | layout 2: r_A (F) ‖ b_A (1, 0 or 1)           |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                 packet signature (2L: c ‖ d)                  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaHeader {
    /// The curve of every key and signature in it.
    pub curve: PlaCurve,
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

impl PlaHeader {
    /// The header bytes covered by the packet signature (everything but the signature).
    fn encode_signed_fields(&self, w: &mut Writer) -> Result<(), EncodeError> {
        let (f, l) = self.curve.sizes();
        w.u8(VERSION);
        w.u8(self.curve.into());
        w.u8(self.key.layout().into());
        w.u16_be(self.ttp_id);
        w.u32_be(self.sequence);
        w.u32_be(self.timestamp);
        match &self.key {
            KeyMaterial::Certificate { key, ttp_sig } => {
                w.exact("public key", key, 1 + f)?;
                w.exact("TTP signature", ttp_sig, 2 * l)?;
            }
            KeyMaterial::Implicit(cert) => {
                w.exact("r_A", &cert.r, f)?;
                w.u8(u8::from(cert.b));
            }
        }
        Ok(())
    }

    fn signed_fields(&self) -> Result<Vec<u8>, EncodeError> {
        let mut w = Writer::new();
        self.encode_signed_fields(&mut w)?;
        Ok(w.into_bytes())
    }

    /// Octets of the encoded header: 13 fixed, the key material, the signature.
    pub fn encoded_len(&self) -> usize {
        let (f, l) = self.curve.sizes();
        13 + match self.key {
            KeyMaterial::Certificate { .. } => 1 + f + 2 * l,
            KeyMaterial::Implicit(_) => f + 1,
        } + 2 * l
    }

    /// Signs `payload` and fills in the signature.
    ///
    /// # Errors
    /// [`Error::Mismatch`] if the header is for another curve than `key`;
    /// [`Error::Encode`] for key material of the wrong size; backend failures.
    pub fn sign<C: Curve>(&mut self, key: &KoblitzSecret<C>, payload: &[u8]) -> Result<(), Error> {
        self.sign_parts(key, &[payload])
    }

    /// Signs the payload given as the concatenation of `payload` (for IPv6: the
    /// addresses, the next header and the rest of the packet, without copying them
    /// together) and fills in the signature.
    ///
    /// # Errors
    /// As [`PlaHeader::sign`].
    pub fn sign_parts<C: Curve>(
        &mut self,
        key: &KoblitzSecret<C>,
        payload: &[&[u8]],
    ) -> Result<(), Error> {
        if PlaCurve::of::<C>()? != self.curve {
            return Err(Error::Mismatch(format!(
                "the header is for {}, the key for {}",
                self.curve.name(),
                C::NAME
            )));
        }
        let fields = self.signed_fields()?;
        let mut parts = vec![TAG_PACKET, fields.as_slice()];
        parts.extend_from_slice(payload);
        self.signature = key.sign_raw(&parts)?;
        Ok(())
    }

    /// Decodes a header that must be for curve `C`.
    ///
    /// # Errors
    /// [`Error::Decode`] naming the field.
    pub fn decode_for<C: Curve>(bytes: &[u8]) -> Result<Self, Error> {
        let h = Self::decode(bytes)?;
        if PlaCurve::of::<C>() != Ok(h.curve) {
            return Err(DecodeError::Invalid {
                field: "curve",
                reason: "header is for another curve",
            }
            .into());
        }
        Ok(h)
    }

    /// Cryptographic bits per packet as 003 Table I counts them: signature 2·bits(n),
    /// key m + 1, TTP signature 2·bits(n) (certificate-based only).
    pub fn table1_bits<C: Curve>(implicit: bool) -> usize {
        let n_bits = BigNum::from_hex_str(C::ORDER).map_or(0, |n| n.num_bits() as usize);
        let m = <C::F as hopsig_koblitz::Field>::M;
        2 * n_bits + (m + 1) + if implicit { 0 } else { 2 * n_bits }
    }
}

impl Codec for PlaHeader {
    const NAME: &'static str = "PLA header";
    type EncodeError = EncodeError;

    fn encode(&self, w: &mut Writer) -> Result<(), EncodeError> {
        self.encode_signed_fields(w)?;
        let (_, l) = self.curve.sizes();
        w.exact("signature", &self.signature, 2 * l)
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        if r.u8("version")? != VERSION {
            return Err(DecodeError::Invalid {
                field: "version",
                reason: "unsupported PLA header version",
            });
        }
        let curve = PlaCurve::read(r)?;
        let layout = Layout::read(r)?;
        let ttp_id = r.u16_be("TTP id")?;
        let sequence = r.u32_be("sequence number")?;
        let timestamp = r.u32_be("timestamp")?;
        let (f, l) = curve.sizes();
        let key = match layout {
            Layout::Certificate => KeyMaterial::Certificate {
                key: r.take(1 + f, "public key")?.to_vec(),
                ttp_sig: r.take(2 * l, "TTP signature")?.to_vec(),
            },
            Layout::Implicit => {
                let rr = r.take(f, "r_A")?.to_vec();
                let b = match r.u8("b_A")? {
                    0 => false,
                    1 => true,
                    _ => {
                        return Err(DecodeError::Invalid {
                            field: "b_A",
                            reason: "must be 0 or 1",
                        })
                    }
                };
                KeyMaterial::Implicit(ImplicitCert { r: rr, b })
            }
        };
        let signature = r.take(2 * l, "signature")?.to_vec();
        Ok(PlaHeader {
            curve,
            ttp_id,
            sequence,
            timestamp,
            key,
            signature,
        })
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
            .insert(id, (key, TauTable::new_vartime(&key, FIXED_WIDTH)));
    }

    /// TTP `id`'s key and its table, if it is trusted.
    pub fn get(&self, id: u16) -> Option<(&Affine<C>, &TauTable<C>)> {
        self.keys.get(&id).map(|(k, t)| (k, t))
    }
}

/// The TTP's certificate signature on a public key (certificate-based layout).
///
/// # Errors
/// Backend failures.
pub fn certify<C: Curve>(ttp: &KoblitzSecret<C>, key: &Affine<C>) -> Result<Vec<u8>, Error> {
    ttp.sign_raw(&[TAG_CERT, &key.to_sec1(true)])
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
    let h = PlaHeader::decode_for::<C>(header)?;
    let bad = || Error::InvalidSignature;
    let (ttp_key, ttp_table) = ttps.get(h.ttp_id).ok_or_else(bad)?;
    if h.timestamp > now || now - h.timestamp > max_age {
        return Err(bad());
    }
    if verify_signature(&h, header, &[payload], src, ttp_key, ttp_table) {
        Ok(h)
    } else {
        Err(bad())
    }
}

/// The cryptographic part of the per-hop check, on a header `h` decoded from
/// `encoded` (whose first `encoded.len() − 2L` octets are the signed fields, as the
/// decoder is canonical) and the payload given in parts: for an implicit certificate
/// on the source identity `src`, one fused extraction + verification (003 eq. 9,
/// `icnr::verify_fused_scalars`); for a certificate, the TTP's signature on the key and
/// the packet signature by the key, which must be a subgroup point other than ∞.
/// False for anything that does not verify, a signature scalar outside [1, n − 1]
/// included.
#[must_use]
pub fn verify_signature<C: Curve>(
    h: &PlaHeader,
    encoded: &[u8],
    payload: &[&[u8]],
    src: &[u8],
    ttp_key: &Affine<C>,
    ttp_table: &TauTable<C>,
) -> bool {
    let (_, l) = h.curve.sizes();
    let Some(fields) = encoded.len().checked_sub(2 * l).map(|n| &encoded[..n]) else {
        return false;
    };
    let Some((c, d)) = raw_signature_scalars::<C>(&h.signature) else {
        return false;
    };
    let mut parts = Vec::with_capacity(2 + payload.len());
    parts.extend_from_slice(&[TAG_PACKET, fields]);
    parts.extend_from_slice(payload);
    let e = digest_parts::<C>(&parts);
    match &h.key {
        KeyMaterial::Implicit(cert) => icnr::verify_fused_scalars(src, cert, ttp_table, &e, &c, &d),
        KeyMaterial::Certificate { key, ttp_sig } => {
            let Ok(q) = Affine::<C>::from_sec1_vartime(key) else {
                return false;
            };
            if q.is_infinity() || !q.in_subgroup_fast_vartime() {
                return false;
            }
            let Some((tc, td)) = raw_signature_scalars::<C>(ttp_sig) else {
                return false;
            };
            verify_scalars(ttp_key, &digest_parts::<C>(&[TAG_CERT, key]), &tc, &td)
                && verify_scalars(&q, &e, &c, &d)
        }
    }
}
