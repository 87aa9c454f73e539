//! The sending host of 003 §I: it signs every IPv6 packet it sends, numbering them,
//! with its key and the key material a router needs (an implicit certificate on its
//! source address, or its public key with the TTP's signature on it).

use std::net::Ipv6Addr;

use hopsig_koblitz::curve::Curve;
use hopsig_primitives::codec::Codec;
use hopsig_schemes::concat::koblitz::KoblitzSecret;
use hopsig_schemes::pla::header::{certify, KeyMaterial, PlaCurve, PlaHeader};
use hopsig_schemes::pla::icnr::{self, ImplicitCert, Ttp};

use crate::option::{add_option, Ipv6Packet, Unsignable};

/// Why a packet was left unsigned.
#[derive(Debug, thiserror::Error)]
pub enum NotSigned {
    /// The packet cannot carry the option (`docs/spec/pla.md`, "Not signed").
    #[error(transparent)]
    Unsignable(#[from] Unsignable),
    /// An implicit certificate binds the key to another source address.
    #[error("the source address is not the certificate's identity")]
    OtherSource,
    /// Every sequence number has been used: the host needs a new key.
    #[error("sequence numbers exhausted")]
    SequenceExhausted,
    /// Signing failed in the backend.
    #[error("signing failed: {0}")]
    Signing(#[from] hopsig_schemes::Error),
}

/// The identity an implicit certificate is issued on for a source address: its
/// RFC 5952 text form in ASCII (`docs/spec/pla.md`, "Source identity"). Rust's
/// `Ipv6Addr` display is that form, IPv4-mapped addresses in dotted form included.
pub fn identity(source: &[u8; 16]) -> String {
    Ipv6Addr::from(*source).to_string()
}

/// A host that signs its packets.
pub struct Sender<C: Curve> {
    key: KoblitzSecret<C>,
    material: KeyMaterial,
    /// The source address an implicit certificate is bound to.
    source: Option<[u8; 16]>,
    ttp_id: u16,
    next_sequence: Option<u32>,
}

impl<C: Curve> std::fmt::Debug for Sender<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Sender({}, {:?}, TTP {}, next sequence {:?})",
            C::NAME,
            self.material.layout(),
            self.ttp_id,
            self.next_sequence
        )
    }
}

impl<C: Curve> Sender<C> {
    /// A host with an implicit certificate issued on `source`'s identity by TTP
    /// `ttp_id`; it signs only packets from `source`.
    pub fn implicit(
        key: KoblitzSecret<C>,
        cert: ImplicitCert,
        source: Ipv6Addr,
        ttp_id: u16,
    ) -> Self {
        Sender {
            key,
            material: KeyMaterial::Implicit(cert),
            source: Some(source.octets()),
            ttp_id,
            next_sequence: Some(1),
        }
    }

    /// A host whose public key TTP `ttp_id` signed (`ttp_sig`, raw c ‖ d, from
    /// `hopsig_schemes::pla::header::certify`); it signs packets from any source.
    pub fn certified(key: KoblitzSecret<C>, ttp_sig: Vec<u8>, ttp_id: u16) -> Self {
        let public = key.public_point().to_sec1(true);
        Sender {
            key,
            material: KeyMaterial::Certificate {
                key: public,
                ttp_sig,
            },
            source: None,
            ttp_id,
            next_sequence: Some(1),
        }
    }

    /// A host at `source` enrolled with `ttp` in one process, as it and the TTP would
    /// do over their channel (003 §II-C: ICNR_blind, ICNR_ttp on the address's
    /// [`identity`], ICNR_finalkey): its key and implicit certificate.
    ///
    /// # Errors
    /// Backend failures.
    pub fn enroll_implicit(
        ttp: &Ttp<C>,
        source: Ipv6Addr,
        ttp_id: u16,
    ) -> Result<Self, hopsig_schemes::Error> {
        let id = identity(&source.octets());
        let blind = icnr::blind::<C>()?;
        let issued = ttp.issue(id.as_bytes(), blind.request())?;
        let key = icnr::finalkey(&blind, &issued, id.as_bytes(), ttp.public())?;
        Ok(Self::implicit(key, issued.cert.clone(), source, ttp_id))
    }

    /// A host with a fresh key that `ttp` signs (the certificate-based layout,
    /// `header::certify`).
    ///
    /// # Errors
    /// Backend failures.
    pub fn enroll_certified(ttp: &Ttp<C>, ttp_id: u16) -> Result<Self, hopsig_schemes::Error> {
        let key = KoblitzSecret::<C>::generate()?;
        let sig = certify(&ttp.signing_key()?, key.public_point())?;
        Ok(Self::certified(key, sig, ttp_id))
    }

    /// Starts numbering at `first` (a host that restarts within a router's timestamp
    /// window continues above its last number).
    pub fn with_first_sequence(mut self, first: u32) -> Self {
        self.next_sequence = Some(first);
        self
    }

    /// The IPv6 packet `packet` (a fixed header and exactly Payload Length octets, as
    /// [`Ipv6Packet::parse`] reads them) with a PLA option signed at `timestamp` (Unix
    /// seconds) and the next sequence number.
    ///
    /// # Errors
    /// [`NotSigned`] says why the packet is left as it is.
    pub fn sign(&mut self, packet: &Ipv6Packet<'_>, timestamp: u32) -> Result<Vec<u8>, NotSigned> {
        if self.source.is_some_and(|s| s != packet.source()) {
            return Err(NotSigned::OtherSource);
        }
        let sequence = self.next_sequence.ok_or(NotSigned::SequenceExhausted)?;
        let mut header = PlaHeader {
            curve: PlaCurve::of::<C>().map_err(hopsig_schemes::Error::from)?,
            ttp_id: self.ttp_id,
            sequence,
            timestamp,
            key: self.material.clone(),
            signature: Vec::new(),
        };
        // 77 to 194 octets: always fits the option's one-octet length.
        let len = u8::try_from(header.encoded_len()).map_err(|_| Unsignable::TooLarge)?;
        let (mut out, data) = add_option(packet, len)?;
        // The covered octets are the same before and after the option is added.
        header.sign_parts(&self.key, &packet.signed_payload())?;
        let encoded = header.encoding().map_err(hopsig_schemes::Error::from)?;
        out[data].copy_from_slice(&encoded);
        self.next_sequence = sequence.checked_add(1);
        Ok(out)
    }
}
