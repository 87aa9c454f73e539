//! The per-hop check of 003 §I on IPv6 packets: what every router on the path does
//! before forwarding a packet, the cheap checks first (`docs/spec/pla.md`, "What a
//! router checks, in order").
//!
//! The check is split in two so that the expensive part runs on every core while the
//! replay state is changed in packet order: [`Router::inspect`] (parse, curve, TTP,
//! timestamp, a look at the replay window, the fused verification) takes `&self` and
//! runs in parallel; [`Router::settle`] (the replay window, in packet order) takes the
//! table. [`Router::check`] does both for one packet. The inspection is itself in two
//! parts, so that the signatures of many packets go to the batch verifier together
//! (`hopsig_schemes::batch`): [`Router::prepare`] makes every check but the signature,
//! [`Router::verified`] verifies a batch of prepared packets' signatures in one call.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{PoisonError, RwLock};

use hopsig_koblitz::curve::Curve;
use hopsig_primitives::codec::{Codec, DecodeError};
use hopsig_schemes::batch::{self, PlaPacket, PlaPackets};
use hopsig_schemes::pla::header::{KeyMaterial, PlaCurve, PlaHeader, TtpDirectory};

use crate::link::{locate, LinkType, Located};
use crate::option::{Ipv6Packet, Malformed};
use crate::sender::identity;
use crate::window::{key_id, ReplayTable, Source};

/// A router's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouterConfig {
    /// A timestamp older than the clock by more than this many seconds is stale.
    pub max_age: u32,
    /// A timestamp ahead of the clock by more than this many seconds is in the future.
    pub skew: u32,
    /// Most (TTP, source) entries in the replay table.
    pub max_sources: usize,
}

impl Default for RouterConfig {
    fn default() -> Self {
        RouterConfig {
            max_age: 60,
            skew: 2,
            max_sources: 1 << 16,
        }
    }
}

/// What a router decides for a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Not an IPv6 packet: not checked.
    NotIpv6,
    /// IPv6 without a PLA option: not checked.
    Unsigned,
    /// A jumbogram (RFC 2675), which PLA does not sign: not checked.
    Jumbogram,
    /// The packet, its extension headers or its Hop-by-Hop options do not parse.
    Malformed(Malformed),
    /// The PLA header does not decode: the field.
    MalformedHeader(&'static str),
    /// A PLA header for a curve this router does not check.
    OtherCurve,
    /// The TTP id is not trusted.
    UnknownTtp,
    /// The timestamp is older than the window.
    Stale,
    /// The timestamp is ahead of the router's clock by more than the skew.
    Future,
    /// The sequence number was accepted before, or is below the window.
    Replay,
    /// The signature (or the TTP's signature on the key) does not verify.
    BadSignature,
    /// Every check passed.
    Accepted,
}

impl Verdict {
    /// Every reason name, in the order of the checks (`docs/spec/pla.md`).
    pub const NAMES: [&'static str; 11] = [
        "not_ipv6",
        "unsigned",
        "jumbogram",
        "malformed",
        "other_curve",
        "unknown_ttp",
        "stale",
        "future",
        "replay",
        "bad_signature",
        "accepted",
    ];

    /// The reason's name in `verify-pcap`'s summary.
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::NotIpv6 => "not_ipv6",
            Verdict::Unsigned => "unsigned",
            Verdict::Jumbogram => "jumbogram",
            Verdict::Malformed(_) | Verdict::MalformedHeader(_) => "malformed",
            Verdict::OtherCurve => "other_curve",
            Verdict::UnknownTtp => "unknown_ttp",
            Verdict::Stale => "stale",
            Verdict::Future => "future",
            Verdict::Replay => "replay",
            Verdict::BadSignature => "bad_signature",
            Verdict::Accepted => "accepted",
        }
    }

    /// Whether the packet was not checked: not IPv6, unsigned, or a jumbogram.
    pub fn is_not_checked(&self) -> bool {
        matches!(
            self,
            Verdict::NotIpv6 | Verdict::Unsigned | Verdict::Jumbogram
        )
    }

    /// Whether the packet was signed and rejected.
    pub fn is_rejected(&self) -> bool {
        !self.is_not_checked() && *self != Verdict::Accepted
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Malformed(m) => write!(f, "malformed: {m}"),
            Verdict::MalformedHeader(field) => write!(f, "malformed: PLA header field {field}"),
            other => f.write_str(other.name()),
        }
    }
}

/// The stateless part of the check: a verdict, or a signed packet whose replay
/// window decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inspected {
    /// Decided without the replay window.
    Done(Verdict),
    /// Passed every stateless check but the signature's outcome is known only with
    /// it: `signature` is whether it verified, or `None` if it was not verified
    /// because the window already had the number.
    Signed {
        /// TTP id, Source Address, key id.
        source: Source,
        /// Sequence number.
        sequence: u32,
        /// Timestamp.
        timestamp: u32,
        /// The signature's outcome, if it was verified.
        signature: Option<bool>,
    },
}

/// A packet after the stateless checks but the signature ([`Router::prepare`]).
pub enum Prepared<'a, C: Curve> {
    /// Decided without verifying a signature.
    Done(Inspected),
    /// Passed every stateless check; its signature is to be verified.
    Verify {
        /// TTP id, Source Address, key id.
        source: Source,
        /// Sequence number.
        sequence: u32,
        /// Timestamp.
        timestamp: u32,
        /// The signature check, for [`Router::verified`].
        packet: PlaPacket<'a, C>,
    },
}

/// The inspection of a packet whose signature was verified: `valid` or not.
fn signed(source: Source, sequence: u32, timestamp: u32, valid: bool) -> Inspected {
    Inspected::Signed {
        source,
        sequence,
        timestamp,
        signature: Some(valid),
    }
}

/// A router that checks PLA packets on curve `C`.
pub struct Router<C: Curve> {
    ttps: TtpDirectory<C>,
    config: RouterConfig,
    replay: RwLock<ReplayTable>,
    clock: AtomicU32,
}

impl<C: Curve> std::fmt::Debug for Router<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Router({}, {:?}, {:?})", C::NAME, self.ttps, self.config)
    }
}

/// The field a PLA header decode error names.
fn field(e: &DecodeError) -> &'static str {
    match e {
        DecodeError::ShortInput { field, .. }
        | DecodeError::UnknownCode { field, .. }
        | DecodeError::Invalid { field, .. }
        | DecodeError::OutOfRange { field, .. } => field,
        DecodeError::TrailingBytes { .. } => "length (octets after the signature)",
    }
}

impl<C: Curve> Router<C> {
    /// A router trusting `ttps`.
    pub fn new(ttps: TtpDirectory<C>, config: RouterConfig) -> Self {
        Router {
            ttps,
            replay: RwLock::new(ReplayTable::new(config.max_sources, config.max_age)),
            config,
            clock: AtomicU32::new(0),
        }
    }

    /// The TTPs it trusts.
    pub fn ttps(&self) -> &TtpDirectory<C> {
        &self.ttps
    }

    /// Its limits.
    pub fn config(&self) -> RouterConfig {
        self.config
    }

    /// Moves the clock to `now` unless it is already later (it never goes back) and
    /// returns it.
    pub fn advance(&self, now: u32) -> u32 {
        // Most packets arrive within the current second: a load, not a read-modify-write.
        let clock = self.clock.load(Ordering::Relaxed);
        if now <= clock {
            return clock;
        }
        self.clock.fetch_max(now, Ordering::Relaxed).max(now)
    }

    /// Entries in the replay table.
    pub fn replay_entries(&self) -> usize {
        self.replay
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// The stateless checks on a captured frame of link type `link` at router time
    /// `clock` (from [`Router::advance`]).
    pub fn inspect_frame(&self, link: LinkType, frame: &[u8], clock: u32) -> Inspected {
        self.verified_one(self.prepare_frame(link, frame, clock))
    }

    /// The stateless checks on the IPv6 packet at the start of `packet`, in the
    /// order of `docs/spec/pla.md`: parse, curve, TTP, timestamp, a look at the replay
    /// window (a number it already holds is not verified), then the signature.
    pub fn inspect(&self, packet: &[u8], clock: u32) -> Inspected {
        self.verified_one(self.prepare(packet, clock))
    }

    /// [`Router::prepare`] of the IPv6 packet inside a captured frame of link type
    /// `link`.
    pub fn prepare_frame<'a>(
        &'a self,
        link: LinkType,
        frame: &'a [u8],
        clock: u32,
    ) -> Prepared<'a, C> {
        match locate(link, frame) {
            Located::Ipv6(at) => self.prepare(&frame[at..], clock),
            Located::NotIpv6 => Prepared::Done(Inspected::Done(Verdict::NotIpv6)),
            Located::Truncated => Prepared::Done(Inspected::Done(Verdict::Malformed(Malformed(
                "link-layer header: truncated",
            )))),
        }
    }

    /// [`Router::inspect`] up to the signature: the verdict, or the packet's signature
    /// check to hand to a batch verifier ([`Router::verified`]).
    pub fn prepare<'a>(&'a self, packet: &'a [u8], clock: u32) -> Prepared<'a, C> {
        let done = |v| Prepared::Done(Inspected::Done(v));
        let packet = match Ipv6Packet::parse(packet) {
            Ok(p) => p,
            Err(m) => return done(Verdict::Malformed(m)),
        };
        // A jumbogram is a legal packet that PLA does not sign (docs/spec/pla.md, "Not
        // signed"), whatever options it carries.
        if packet.is_jumbogram() {
            return done(Verdict::Jumbogram);
        }
        let Some(encoded) = packet.pla_header() else {
            return done(Verdict::Unsigned);
        };
        let header = match PlaHeader::decode(encoded) {
            Ok(h) => h,
            Err(e) => return done(Verdict::MalformedHeader(field(&e))),
        };
        if PlaCurve::of::<C>() != Ok(header.curve) {
            return done(Verdict::OtherCurve);
        }
        let Some((ttp_key, ttp_table)) = self.ttps.get(header.ttp_id) else {
            return done(Verdict::UnknownTtp);
        };
        if u64::from(header.timestamp) + u64::from(self.config.max_age) < u64::from(clock) {
            return done(Verdict::Stale);
        }
        if u64::from(header.timestamp) > u64::from(clock) + u64::from(self.config.skew) {
            return done(Verdict::Future);
        }
        let src = packet.source();
        let key = match &header.key {
            KeyMaterial::Implicit(_) => [0; 16],
            KeyMaterial::Certificate { key, .. } => key_id(key),
        };
        let source = (header.ttp_id, src, key);
        let (sequence, timestamp) = (header.sequence, header.timestamp);
        let fresh = self
            .replay
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_fresh(&source, sequence, timestamp);
        if !fresh {
            return Prepared::Done(Inspected::Signed {
                source,
                sequence,
                timestamp,
                signature: None,
            });
        }
        // The identity an implicit certificate is bound to; a certificate binds none.
        let identity = match header.key {
            KeyMaterial::Implicit(_) => identity(&src).into_bytes(),
            KeyMaterial::Certificate { .. } => Vec::new(),
        };
        Prepared::Verify {
            source,
            sequence,
            timestamp,
            packet: PlaPacket {
                header,
                encoded,
                payload: packet.signed_payload().to_vec(),
                identity,
                ttp_key,
                ttp_table,
            },
        }
    }

    /// The inspection of each prepared packet, in order, the signatures verified
    /// together as one batch of the default backend (`hopsig_schemes::batch`).
    pub fn verified(&self, prepared: Vec<Prepared<'_, C>>) -> Vec<Inspected> {
        let mut packets = Vec::new();
        let pending: Vec<Result<Inspected, (Source, u32, u32)>> = prepared
            .into_iter()
            .map(|p| match p {
                Prepared::Done(i) => Ok(i),
                Prepared::Verify {
                    source,
                    sequence,
                    timestamp,
                    packet,
                } => {
                    packets.push(packet);
                    Err((source, sequence, timestamp))
                }
            })
            .collect();
        let mut verdicts = batch::default_backend::<PlaPackets<C>>()
            .verify_batch(&packets)
            .into_iter();
        pending
            .into_iter()
            .map(|p| {
                p.unwrap_or_else(|(source, sequence, timestamp)| {
                    signed(source, sequence, timestamp, verdicts.next() == Some(true))
                })
            })
            .collect()
    }

    /// [`Router::verified`] of one packet.
    fn verified_one(&self, prepared: Prepared<'_, C>) -> Inspected {
        match prepared {
            Prepared::Done(i) => i,
            Prepared::Verify {
                source,
                sequence,
                timestamp,
                packet,
            } => {
                let verdict = batch::default_backend::<PlaPackets<C>>()
                    .verify_batch(std::slice::from_ref(&packet));
                signed(source, sequence, timestamp, verdict.first() == Some(&true))
            }
        }
    }

    /// The verdict of an inspected packet, with the replay window (which an accepted
    /// packet moves). Call it in packet order, with the clock the packet was inspected
    /// at.
    pub fn settle(&self, table: &mut ReplayTable, inspected: Inspected, clock: u32) -> Verdict {
        match inspected {
            Inspected::Done(v) => v,
            Inspected::Signed {
                source,
                sequence,
                timestamp,
                signature,
            } => {
                if !table.is_fresh(&source, sequence, timestamp) {
                    return Verdict::Replay;
                }
                match signature {
                    Some(true) => {
                        table.accept(source, sequence, timestamp, clock);
                        Verdict::Accepted
                    }
                    Some(false) => Verdict::BadSignature,
                    // Not verified: the window held the number when the packet was
                    // inspected. It lets go of a number only when it drops the
                    // source's entry under memory pressure (docs/spec/pla.md, "Bounded
                    // memory"); the packet was a replay then and stays one.
                    None => Verdict::Replay,
                }
            }
        }
    }

    /// Empties the replay table (a benchmark re-checks the same packets; a router that
    /// forgets can be replayed to).
    pub fn forget_replay_state(&self) {
        self.with_table(|t| *t = ReplayTable::new(self.config.max_sources, self.config.max_age));
    }

    /// Runs `f` with the replay table locked for writing (for [`Router::settle`]).
    pub fn with_table<T>(&self, f: impl FnOnce(&mut ReplayTable) -> T) -> T {
        f(&mut self.replay.write().unwrap_or_else(PoisonError::into_inner))
    }

    /// The whole check of one IPv6 packet received at time `now`.
    pub fn check(&self, packet: &[u8], now: u32) -> Verdict {
        let clock = self.advance(now);
        self.settle_one(self.inspect(packet, clock), clock)
    }

    /// [`Router::settle`] for one packet, locking the table only for a signed one.
    fn settle_one(&self, inspected: Inspected, clock: u32) -> Verdict {
        match inspected {
            Inspected::Done(v) => v,
            signed => self.with_table(|t| self.settle(t, signed, clock)),
        }
    }

    /// The whole check of one captured frame of link type `link` received at `now`.
    pub fn check_frame(&self, link: LinkType, frame: &[u8], now: u32) -> Verdict {
        let clock = self.advance(now);
        self.settle_one(self.inspect_frame(link, frame, clock), clock)
    }
}
