//! Adj-RIB-Out (RFC 4271 §3.2) per session: what was sent, so a change sends exactly
//! one UPDATE. Toward a session that negotiated BGPsec, a BGPsec route is signed
//! onward ([`crate::Signer::forward`], RFC 8205 §4.2) and an own prefix is signed as
//! origin; every other case sends AS_PATH: the §4.4 equivalent of a Secure_Path, or
//! the received AS_PATH, with the local AS prepended (AS_TRANS and AS4_PATH toward an
//! OLD neighbour, RFC 6793 §4.2.2). A route that arrived without BGPsec_PATH is never
//! signed later (§4.1). Received attributes go on as RFC 4271 §5 says. Signing runs
//! on the RIB task while it keeps up, in the worker pool ([`SignJob`]) while events
//! wait for it ([`Rib::backlog`]).

use std::net::Ipv4Addr;
use std::sync::Arc;

use super::adj_in::Source;
use super::Rib;
use crate::as4::{self, Aggregator};
use crate::packet::{
    Afi, AsPath, AsPathSegmentType, AsWidth, AttrFlags, AttrType, AttributeValue, Message,
    MpReachNlri, MpUnreachNlri, NextHop, Origin, PathAttribute, Prefix, Safi, Update,
};
use crate::speaker::events::{AnnounceError, Announcement, Built, Signed};
use crate::{Hop, SignError, SignedNlri, Signer};

/// What was sent, or is being signed to be sent, to a session for a prefix.
#[derive(Debug, Clone)]
pub struct Advert {
    /// The route it came from.
    pub source: Source,
    /// The AS path sent (equivalent for a BGPsec UPDATE).
    pub as_path: AsPath,
    /// Whether it carries BGPsec_PATH.
    pub bgpsec: bool,
    /// The number of the sign job in the pool that will produce it, while it runs;
    /// an answer with another number is for an advert since replaced.
    pub signing: Option<u64>,
    /// Whether the neighbour holds, or is owed (queued or held back, see
    /// [`super::outbox`]), an announcement of the prefix from this session: this
    /// advert's, or while it is being signed, the one it replaces — so whether
    /// taking the advert back needs a withdrawal.
    pub on_wire: bool,
}

/// Everything one announcement to one session needs, so that it can be built on the
/// RIB task or on a worker.
pub struct Announce {
    signer: Arc<Signer<'static>>,
    remote_as: u32,
    width: AsWidth,
    /// Sign it (the session negotiated BGPsec and the route can be signed).
    pub(super) sign: bool,
    pub(crate) prefix: Prefix,
    /// The received BGPsec UPDATE to sign onward; `None` for an own prefix.
    received: Option<Arc<Update<'static>>>,
    /// The AS path with the local AS prepended.
    pub(super) out_path: AsPath,
    origin: Origin,
    aggregator: Option<Aggregator>,
    /// The received attributes passed on in an unsigned UPDATE.
    attributes: Arc<[PathAttribute<'static>]>,
    next_hop: Ipv4Addr,
    /// The session's IPv6 next hop (RFC 2545 §3), for an IPv6 prefix.
    next_hop6: Option<NextHop>,
    /// The longest message the session takes: 4096, or 65,535 with extended
    /// messages (RFC 8654 §4). A longer signed UPDATE is not sent (RFC 8205 §4.1,
    /// RFC 4271 §9.2).
    max_len: usize,
    /// MULTI_EXIT_DISC set toward this neighbour (its `med`), in signed UPDATEs too:
    /// RFC 8205 §4.2's signature covers the BGPsec_PATH and NLRI, no other attribute.
    med: Option<u32>,
    /// COMMUNITIES with what the import added (its route's), to replace the received
    /// one in a BGPsec UPDATE signed onward; `None`: as received.
    communities: Option<PathAttribute<'static>>,
}

impl Announce {
    /// Signs (RFC 8205 §4.2, or as origin for an own prefix) or downgrades, and
    /// encodes. With no key of a suite the path has, the route goes unsigned.
    pub(super) fn build(&self) -> Built {
        let next_hop = self.next_hop_of_family()?;
        let hop = Hop::to(self.remote_as);
        let encode = |m: Message<'_>| {
            m.encoding_max(self.width, self.max_len)
                .map_err(AnnounceError::Encode)
        };
        let signed = match (self.sign, &self.received) {
            (false, _) => None,
            (true, None) => {
                let origin_attr =
                    PathAttribute::new(AttributeValue::Origin(Origin::Igp), AsWidth::Four)
                        .map_err(AnnounceError::Attribute)?;
                let mut attrs = vec![origin_attr];
                attrs.extend(self.med_attribute());
                Some(
                    self.signer
                        .originate_max(
                            SignedNlri::unicast(self.prefix),
                            next_hop,
                            attrs,
                            &hop,
                            self.max_len,
                        )
                        .and_then(|u| {
                            Ok(Message::Update(u).encoding_max(AsWidth::Four, self.max_len)?)
                        }),
                )
            }
            (true, Some(u)) if self.med.is_some() || self.communities.is_some() => {
                Some(self.forward_with_policy(u, next_hop, &hop))
            }
            // Encoded once as it is signed (the time-to-forward path of lazy mode).
            (true, Some(u)) => {
                Some(
                    self.signer
                        .forward_message_max(u, Some(next_hop), &hop, self.max_len),
                )
            }
        };
        let bytes = match signed {
            Some(Ok(bytes)) => {
                return Ok(Announcement {
                    bytes,
                    bgpsec: true,
                })
            }
            // No key of a suite the path has: send it unsigned (§4.2).
            Some(Err(SignError::NoKey | SignError::NoCommonSuite(_))) | None => {
                encode(Message::Update(plain(self)?))?
            }
            Some(Err(e)) => return Err(AnnounceError::Sign(e)),
        };
        Ok(Announcement {
            bytes,
            bgpsec: false,
        })
    }
}

impl Announce {
    /// The MULTI_EXIT_DISC attribute configured toward the neighbour, if any.
    fn med_attribute(&self) -> Option<PathAttribute<'static>> {
        let value = AttributeValue::Other {
            type_code: u8::from(AttrType::MultiExitDisc),
            value: self.med?.to_be_bytes().to_vec().into(),
        };
        PathAttribute::with_flags(AttrFlags(AttrFlags::OPTIONAL), value).ok()
    }

    /// The received BGPsec UPDATE `u` signed onward ([`Signer::forward`]), with the
    /// configured MULTI_EXIT_DISC added and COMMUNITIES as the import left it: the
    /// signatures cover neither (RFC 8205 §4.2), so they are set after signing.
    fn forward_with_policy(
        &self,
        u: &Update<'static>,
        next_hop: NextHop,
        hop: &Hop,
    ) -> Result<Vec<u8>, SignError> {
        let mut update = self
            .signer
            .forward_max(u, Some(next_hop), hop, self.max_len)?;
        if let Some(c) = &self.communities {
            update.attributes.retain(|a| a.type_code() != c.type_code());
            update.attributes.push(c.clone());
        }
        update.attributes.extend(self.med_attribute());
        update.attributes.sort_by_key(PathAttribute::type_code);
        let bytes = Message::Update(update).encoding_max(AsWidth::Four, self.max_len)?;
        if bytes.len() > self.max_len {
            return Err(SignError::TooLarge(bytes.len()));
        }
        Ok(bytes)
    }
}

/// One sign job: an announcement and where its answer goes, built on a worker
/// ([`super::super::pool::Pool::sign`]).
pub struct SignJob {
    /// The session it goes to.
    pub(crate) session: usize,
    /// The job's number ([`Advert::signing`]).
    pub(crate) number: u64,
    pub(crate) announce: Announce,
}

impl SignJob {
    /// Builds the announcement.
    pub(crate) fn run(&self) -> Signed {
        Signed {
            session: self.session,
            prefix: self.announce.prefix,
            number: self.number,
            result: self.announce.build(),
        }
    }
}

/// The AS_PATH with `asn` prepended (RFC 4271 §5.1.2) into the first AS_SEQUENCE when
/// it has room, else in a new one.
pub fn prepend(path: &AsPath, asn: u32) -> AsPath {
    let mut p = path.clone();
    match p.segments.first_mut() {
        Some(s) if s.kind == AsPathSegmentType::AsSequence && s.asns.len() < 255 => {
            s.asns.insert(0, asn)
        }
        _ => p
            .segments
            .insert(0, AsPath::sequence(vec![asn]).segments.remove(0)),
    }
    p
}

impl Rib {
    /// A sign job's answer: sent if its advert still stands, else dropped.
    pub(super) fn signed(&mut self, s: Signed) {
        self.signing = self.signing.saturating_sub(1);
        let Some(advert) = self
            .sessions
            .get(s.session)
            .and_then(|session| session.adj_out.get(&s.prefix))
            .filter(|a| a.signing == Some(s.number))
        else {
            return;
        };
        let (source, as_path) = (advert.source, advert.as_path.clone());
        self.deliver(s.session, s.prefix, source, as_path, s.result);
    }

    /// Withdraws `p` from session `m`, or announces it (`announce`: whether an
    /// announcement of `p` went out before, see [`super::outbox::Outbox::announce`]);
    /// never waits (see [`super::outbox`]).
    pub(super) fn send(&mut self, m: usize, p: Prefix, bytes: Vec<u8>, announce: Option<bool>) {
        let session = &mut self.sessions[m];
        if let Some(up) = session.up.as_mut() {
            match announce {
                Some(sent) => up.tx.announce(p, bytes, sent),
                None => up.tx.withdraw(p, bytes),
            }
            session.updates_out += 1;
        }
    }

    /// Removes `p` from session `m`'s Adj-RIB-Out, withdrawing it if the neighbour
    /// holds (or is owed) an announcement of it.
    pub(super) fn take_back(&mut self, m: usize, p: Prefix) {
        if self.sessions[m]
            .adj_out
            .remove(&p)
            .is_some_and(|a| a.on_wire)
        {
            let width = self.sessions[m]
                .up
                .as_ref()
                .map_or(AsWidth::Four, |u| u.width);
            match Message::Update(withdrawal(p)).encoding(width) {
                Ok(bytes) => self.send(m, p, bytes, None),
                Err(e) => tracing::info!("hopsig speaker: {p}: encode: {e}"),
            }
        }
    }

    /// Sends a built announcement of `p` from `src` to session `m` and records it in
    /// Adj-RIB-Out; a failure is logged and takes back what the session had.
    pub(super) fn deliver(
        &mut self,
        m: usize,
        p: Prefix,
        src: Source,
        as_path: AsPath,
        built: Built,
    ) {
        let Announcement { bytes, bgpsec } = match built {
            Ok(b) => b,
            Err(why) => {
                tracing::info!(
                    "hopsig speaker: {p} not sent to {}: {why}",
                    self.sessions[m].address
                );
                return self.take_back(m, p);
            }
        };
        let advert = Advert {
            source: src,
            as_path,
            bgpsec,
            signing: None,
            on_wire: true,
        };
        let sent = self.sessions[m]
            .adj_out
            .insert(p, advert)
            .is_some_and(|a| a.on_wire);
        self.send(m, p, bytes, Some(sent));
        if let Source::Neighbor(i, seq) = src {
            if let Some(r) = self.sessions[i].adj_in.get_mut(&p).filter(|r| r.seq == seq) {
                if !r.forwarded {
                    r.forwarded = true;
                    self.time_to_forward.record(r.received.elapsed());
                }
            }
        }
    }

    /// What announcing `p` from `src` to session `m` needs.
    pub(super) fn announcement(
        &self,
        m: usize,
        p: Prefix,
        src: Source,
    ) -> Result<Announce, AnnounceError> {
        let session = &self.sessions[m];
        let up = session.up.as_ref().ok_or(AnnounceError::SessionDown)?;
        let mut communities = None;
        let (received, as_path, origin, aggregator, attributes) = match src {
            Source::Local => (None, AsPath::default(), Origin::Igp, None, Arc::from([])),
            Source::Neighbor(i, _) => {
                let r = self.sessions[i]
                    .adj_in
                    .get(&p)
                    .ok_or(AnnounceError::RouteGone)?;
                if r.bgpsec.is_some() && !self.rules(i).add_communities.is_empty() {
                    let code = u8::from(AttrType::Communities);
                    communities = r.attributes.iter().find(|a| a.type_code() == code).cloned();
                }
                (
                    r.bgpsec.clone(),
                    r.as_path.clone(),
                    r.origin,
                    r.aggregator,
                    Arc::clone(&r.attributes),
                )
            }
        };
        Ok(Announce {
            signer: Arc::clone(&session.signer),
            remote_as: up.remote_as,
            width: up.width,
            // RFC 8205 §4.1: a route received without BGPsec_PATH is never signed;
            // §2.2: BGPsec per AFI.
            sign: up.bgpsec_send_for(p.afi()) && (src == Source::Local || received.is_some()),
            prefix: p,
            received,
            out_path: prepend(&as_path, self.local_as),
            origin,
            aggregator,
            attributes,
            next_hop: self.next_hop,
            next_hop6: up.next_hop6,
            max_len: up.features.max_message_len,
            med: self.rules(m).med,
            communities,
        })
    }
}

/// An unsigned UPDATE: ORIGIN, AS_PATH (with AS4_PATH toward an OLD neighbour),
/// AGGREGATOR (AS4_AGGREGATOR) and the attributes passed on, in ascending type code
/// (RFC 4271 §5); an IPv4 prefix with NEXT_HOP in the NLRI field, an IPv6 one in
/// MP_REACH_NLRI with the session's IPv6 next hop (RFC 4760 §3, RFC 2545 §3) — the
/// AS_PATH downgrade of RFC 8205 §4.4 for plain IPv6 neighbours.
fn plain(a: &Announce) -> Result<Update<'static>, AnnounceError> {
    let ipv4 = a.prefix.afi() == Afi::Ipv4;
    let reach = match a.next_hop_of_family()? {
        NextHop::V4(nh) => AttributeValue::NextHop(nh),
        nh => AttributeValue::MpReachNlri(
            MpReachNlri::new(Safi::Unicast, nh, vec![a.prefix])
                .map_err(|e| AnnounceError::Attribute(e.into()))?,
        ),
    };
    let mut attributes = vec![];
    for v in [AttributeValue::Origin(a.origin), reach] {
        attributes.push(PathAttribute::new(v, a.width).map_err(AnnounceError::Attribute)?);
    }
    attributes.extend(
        as4::path_attributes(&a.out_path, a.aggregator, a.width)
            .map_err(AnnounceError::Attribute)?,
    );
    attributes.extend(a.attributes.iter().cloned());
    attributes.extend(a.med_attribute());
    attributes.sort_by_key(PathAttribute::type_code);
    Ok(Update {
        attributes,
        nlri: if ipv4 { vec![a.prefix] } else { vec![] },
        ..Update::default()
    })
}

impl Announce {
    /// The next hop for the prefix's family: NEXT_HOP's IPv4 address, or the
    /// session's IPv6 next hop (RFC 2545 §3).
    fn next_hop_of_family(&self) -> Result<NextHop, AnnounceError> {
        match self.prefix.afi() {
            Afi::Ipv4 => Ok(NextHop::V4(self.next_hop)),
            Afi::Ipv6 => self.next_hop6.ok_or(AnnounceError::NoIpv6NextHop),
        }
    }
}

/// The UPDATE withdrawing `p`: Withdrawn Routes for IPv4, MP_UNREACH_NLRI for IPv6.
pub(super) fn withdrawal(p: Prefix) -> Update<'static> {
    if p.afi() == Afi::Ipv4 {
        return Update {
            withdrawn: vec![p],
            ..Update::default()
        };
    }
    let attributes = MpUnreachNlri::new(Afi::Ipv6, Safi::Unicast, vec![p])
        .ok()
        .and_then(|m| PathAttribute::new(AttributeValue::MpUnreachNlri(m), AsWidth::Four).ok())
        .into_iter()
        .collect();
    Update {
        attributes,
        ..Update::default()
    }
}
