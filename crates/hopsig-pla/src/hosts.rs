//! The sending hosts of a capture (003 §I, §II-C): every IPv6 packet of a capture is
//! signed by the host of its source address — one host whose key and certificate are
//! given, or every source enrolled with a TTP on the fly — and what signing each frame
//! did is counted (`hopsig pla sign-pcap`, docs/spec/pla.md "PLA in IPv6 packets").

use std::collections::{BTreeMap, HashMap};
use std::net::Ipv6Addr;

use hopsig_schemes::concat::koblitz::KoblitzSecret;
use hopsig_schemes::pla::files;
use hopsig_schemes::pla::icnr::Ttp;
use hopsig_schemes::pla::koblitz::Curve;
use hopsig_schemes::primitives::armor::KeyFile;
use hopsig_schemes::Error;

use crate::capture::Frame;
use crate::link::{locate, replace, Located};
use crate::option::{Ipv6Packet, Unsignable};
use crate::sender::identity;
use crate::{NotSigned, Sender};

/// How an enrolled host's key travels in its packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// An implicit certificate on the source address (003 §II-C; 77 octets on K-163).
    Implicit,
    /// The public key with the TTP's signature on it (119 octets on K-163).
    Certificate,
}

/// The signing hosts: one key, or every source enrolled with a TTP.
pub enum Hosts<C: Curve> {
    /// One host: it signs the packets of its own address only.
    One(Sender<C>),
    /// Every source address gets a host, enrolled when its first packet comes.
    Enrolled {
        /// The TTP that enrols them.
        ttp: Ttp<C>,
        /// How their keys travel.
        layout: Layout,
        /// The TTP's identifier in the PLA header.
        ttp_id: u16,
        /// The hosts so far, by source address.
        hosts: HashMap<[u8; 16], Sender<C>>,
    },
}

impl<C: Curve> Hosts<C> {
    /// Every source enrolled with `ttp` when it first sends.
    pub fn enrolled(ttp: Ttp<C>, layout: Layout, ttp_id: u16) -> Hosts<C> {
        Hosts::Enrolled {
            ttp,
            layout,
            ttp_id,
            hosts: HashMap::new(),
        }
    }

    /// How many hosts sign.
    pub fn len(&self) -> usize {
        match self {
            Hosts::One(_) => 1,
            Hosts::Enrolled { hosts, .. } => hosts.len(),
        }
    }

    /// Whether no host signs yet (an enrolment that has seen no packet).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The host that signs packets from `source`.
    ///
    /// # Errors
    /// The enrolment of a new host failed.
    fn sender(&mut self, source: [u8; 16]) -> Result<&mut Sender<C>, Error> {
        match self {
            Hosts::One(s) => Ok(s),
            Hosts::Enrolled {
                ttp,
                layout,
                ttp_id,
                hosts,
            } => match hosts.entry(source) {
                std::collections::hash_map::Entry::Occupied(e) => Ok(e.into_mut()),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let host = match layout {
                        Layout::Implicit => {
                            Sender::enroll_implicit(ttp, Ipv6Addr::from(source), *ttp_id)?
                        }
                        Layout::Certificate => Sender::enroll_certified(ttp, *ttp_id)?,
                    };
                    Ok(e.insert(host))
                }
            },
        }
    }

    /// Signs `frame` as its source's host: the signed frame, or `None` to copy it
    /// unchanged (counted in `counts` by reason).
    ///
    /// # Errors
    /// Signing or enrolling failed (not a property of the packet).
    pub fn sign_frame(
        &mut self,
        frame: &Frame,
        counts: &mut SignCounts,
    ) -> Result<Option<Frame>, Error> {
        counts.frames += 1;
        let mut skip = |why: &'static str| {
            *counts.skipped.entry(why).or_default() += 1;
            Ok(None)
        };
        let at = match locate(frame.interface.link_type(), &frame.data) {
            Located::Ipv6(at) => at,
            Located::NotIpv6 => {
                counts.not_ipv6 += 1;
                return Ok(None);
            }
            Located::Truncated => return skip("truncated"),
        };
        if !frame.is_complete() {
            return skip("truncated");
        }
        let packet = match Ipv6Packet::parse(&frame.data[at..]) {
            Ok(p) => p,
            Err(_) => return skip("malformed"),
        };
        let len = packet.bytes().len();
        let sender = self.sender(packet.source())?;
        match sender.sign(&packet, frame.unix_seconds()) {
            Ok(signed) => {
                counts.signed += 1;
                counts.bytes_added += (signed.len() - len) as u64;
                // Octets after the IPv6 packet (Ethernet padding of a short frame) are
                // dropped: the signed frame is long enough without them.
                let data = replace(&frame.data, at..frame.data.len(), &signed);
                Ok(Some(Frame {
                    time: frame.time,
                    // The frame is complete (checked above): its length is its data's.
                    orig_len: data.len() as u32,
                    data,
                    interface: frame.interface.clone(),
                }))
            }
            Err(NotSigned::Unsignable(u)) => skip(match u {
                Unsignable::Malformed(_) => "malformed",
                Unsignable::Jumbogram => "jumbogram",
                Unsignable::AlreadySigned => "already_signed",
                Unsignable::RoutingHeader => "routing_header",
                Unsignable::TooLarge => "too_large",
            }),
            Err(NotSigned::OtherSource) => skip("other_source"),
            Err(NotSigned::SequenceExhausted) => skip("sequence_exhausted"),
            Err(NotSigned::Signing(e)) => Err(e),
        }
    }
}

/// What signing a capture did with each frame.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SignCounts {
    /// Frames read.
    pub frames: u64,
    /// IPv6 packets signed.
    pub signed: u64,
    /// Frames that are not IPv6 (copied).
    pub not_ipv6: u64,
    /// IPv6 packets not signed (copied), by reason: truncated, malformed, jumbogram,
    /// already_signed, routing_header, too_large, other_source, sequence_exhausted.
    pub skipped: BTreeMap<&'static str, u64>,
    /// Octets the PLA options added.
    pub bytes_added: u64,
}

/// Why a key and its certificate file do not make a host.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// A key certificate for another key.
    #[error("the key certificate is for another key than --key")]
    OtherKey,
    /// An implicit certificate whose identity is not an IPv6 address.
    #[error("the certificate's identity {0:?} is not an IPv6 address")]
    NotAnAddress(String),
    /// An implicit certificate whose identity is not in RFC 5952 form.
    #[error("the certificate's identity {0:?} is not in RFC 5952 form ({1})")]
    NotRfc5952(String, Ipv6Addr),
    /// Neither kind of certificate.
    #[error("{0}")]
    File(Error),
}

/// The host of `key` and its certificate file: an implicit certificate (`hopsig ic
/// finalize`) signs the packets of the address it was issued on, which must be written
/// in RFC 5952 form; a key certificate (`hopsig ic certify-key`) must be for this key.
///
/// # Errors
/// [`HostError`].
pub fn host_of<C: Curve>(
    key: KoblitzSecret<C>,
    cert_file: &KeyFile,
    ttp_id: u16,
) -> Result<Sender<C>, HostError> {
    if let Ok((q, sig)) = files::key_cert_from_file::<C>(cert_file) {
        if q != *key.public_point() {
            return Err(HostError::OtherKey);
        }
        return Ok(Sender::certified(key, sig, ttp_id));
    }
    let (id, cert) = files::cert_from_file::<C>(cert_file).map_err(HostError::File)?;
    let text = String::from_utf8_lossy(&id).into_owned();
    let addr: Ipv6Addr = text
        .parse()
        .map_err(|_| HostError::NotAnAddress(text.clone()))?;
    if identity(&addr.octets()).as_bytes() != id.as_slice() {
        return Err(HostError::NotRfc5952(text, addr));
    }
    Ok(Sender::implicit(key, cert, addr, ttp_id))
}
