//! `sign-mrt`: every announcement of an MRT file as the BGPsec UPDATE its AS path
//! would carry, written as MRT `BGP4MP_MESSAGE_AS4` records (RFC 6396 §4.4.3).
//!
//! For each announcement that is a [`Route`] (otherwise counted under its [`Skip`]):
//! the origin signs the prefix toward the next AS, each AS after it adds its
//! Secure_Path Segment and signature toward the next ([`Chain`], RFC 8205 §4.2), the
//! newest toward the collector's AS. The UPDATE carries ORIGIN, MP_REACH_NLRI (the
//! route's next hop and its one prefix) and BGPsec_PATH, in ascending type code; the
//! record names the newest AS as the peer and the collector as the local side, so a
//! validator reading it knows both ASes of §5.2 checks 2 and 8.
//!
//! The work goes in batches: one thread parses the input (bgpkit-parser) while the
//! others generate the keys of ASes met for the first time, then sign the batch's
//! routes; records are written in input order.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::sync::mpsc;

use hopsig_primitives::codec::Writer;
use hopsig_primitives::par::Ordered;

use super::announcement::{unspecified_like, Announcement, Entries, Entry, ReadError, Route, Skip};
use super::keyring::Keyring;
use crate::mrt::bgp4mp::Bgp4mpMessage;
use crate::packet::{
    AsPath, AsPathSegment, AsPathSegmentType, AsWidth, AttributeValue, BgpsecPath, EncodeError,
    Header, MessageType, MpReachNlri, PathAttribute, Update, HEADER_LEN, MAX_MESSAGE_LEN,
};
use crate::sign::{Chain, Hop, SignError};
use crate::suite::KeyError;

/// Announcements per batch.
const BATCH: usize = 1024;
/// Keys generated between two progress reports.
const KEYS_PER_STEP: usize = 256;

/// How to sign.
#[derive(Debug, Clone, Copy)]
pub struct SignOptions {
    /// The AS the newest signature targets when a record does not name the
    /// collector's (RIB dumps): RIPE RIS's 12654, say.
    pub default_target_as: u32,
    /// Stop after this many announcements.
    pub limit: Option<u64>,
    /// Threads that generate keys and sign (the parser has its own).
    pub threads: usize,
}

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignReport {
    /// MRT records read.
    pub records: u64,
    /// Records bgpkit-parser could not decode (framed correctly), skipped.
    pub unreadable_records: u64,
    /// Announcements read (one prefix each).
    pub announcements: u64,
    /// Withdrawals read, not signed.
    pub withdrawals: u64,
    /// BGPsec UPDATEs written.
    pub updates: u64,
    /// Of which IPv4.
    pub ipv4: u64,
    /// Of which IPv6.
    pub ipv6: u64,
    /// Of which with a pCount over 1 (prepending).
    pub prepended: u64,
    /// Signatures made.
    pub signatures: u64,
    /// Announcements not signed, by reason.
    pub skipped: BTreeMap<Skip, u64>,
    /// Keys generated.
    pub keys_generated: u64,
}

impl SignReport {
    /// Announcements skipped, all reasons.
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }
}

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum SignMrtError {
    /// The input could not be read on.
    #[error("{0}")]
    Read(#[from] ReadError),
    /// The output could not be written.
    #[error("cannot write: {0}")]
    Write(std::io::Error),
    /// A key could not be generated.
    #[error("key generation: {0}")]
    Key(#[from] KeyError),
    /// Signing failed.
    #[error("signing: {0}")]
    Sign(#[from] SignError),
    /// A route goes through an AS without a key, and the keyring is
    /// [`Keyring::fixed`].
    #[error("no router key for AS{asn}, and keys are not generated")]
    NoKey {
        /// The first such AS (ascending, of the batch that met it).
        asn: u32,
    },
}

/// Why one route was not written.
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    /// It is no BGPsec UPDATE after all (too large).
    #[error("{}", .0.why())]
    Skip(Skip),
    /// Signing or encoding failed.
    #[error("{0}")]
    Sign(#[from] SignError),
}

impl From<EncodeError> for RouteError {
    fn from(e: EncodeError) -> Self {
        RouteError::Sign(SignError::Encode(e))
    }
}

/// The BGPsec UPDATE of `route`, signed by each AS of its path with its key in
/// `keyring` (RFC 8205 §4.2), as a whole BGP message.
///
/// # Errors
/// As [`signed_path`] and [`update_message`].
pub fn bgpsec_update(route: &Route, keyring: &Keyring) -> Result<Vec<u8>, RouteError> {
    update_message(route, signed_path(route, keyring)?)
}

/// The BGPsec_PATH of `route`: each AS of its path signs in turn with its key in
/// `keyring`, the origin first, toward the next AS; the newest toward
/// `route.target_as` (RFC 8205 §4.2).
///
/// # Errors
/// [`SignError::NoKey`] for an AS without a key, a failing suite.
pub fn signed_path(route: &Route, keyring: &Keyring) -> Result<BgpsecPath<'static>, SignError> {
    let mut chain: Option<Chain> = None;
    for (i, h) in route.hops.iter().enumerate() {
        let signer = keyring.signer(h.asn).ok_or(SignError::NoKey)?;
        let target_as = route.hops.get(i + 1).map_or(route.target_as, |n| n.asn);
        let hop = Hop {
            pcount: h.pcount,
            ..Hop::to(target_as)
        };
        match chain.as_mut() {
            None => chain = Some(Chain::originate(signer, route.nlri, &hop)?),
            Some(c) => c.forward(signer, &hop)?,
        }
    }
    chain.ok_or(SignError::NoKey)?.path()
}

/// The UPDATE message announcing `route` with the BGPsec_PATH `path`: ORIGIN,
/// MP_REACH_NLRI (the route's next hop and prefix) and BGPsec_PATH, in ascending type
/// code.
///
/// # Errors
/// [`RouteError::Skip`] with [`Skip::TooLarge`] for a message over 4096 octets (RFC
/// 8205 §4.1); [`RouteError::Sign`] for a next hop of another family than the prefix.
pub fn update_message(route: &Route, path: BgpsecPath<'static>) -> Result<Vec<u8>, RouteError> {
    let reach = MpReachNlri::new(route.nlri.safi, route.next_hop, vec![route.nlri.prefix])
        .map_err(EncodeError::from)?;
    encode_update([
        AttributeValue::Origin(route.origin),
        AttributeValue::MpReachNlri(reach),
        AttributeValue::BgpsecPath(path),
    ])
}

/// The UPDATE message announcing `route` without BGPsec, as a router that does not
/// sign would send it: ORIGIN, AS_PATH (one AS_SEQUENCE of `asns`, newest first, RFC
/// 4271 §5.1.2) and MP_REACH_NLRI (the route's next hop and prefix), in ascending type
/// code. The unsigned baseline of a replay (`hopsig replay --schemes none`).
///
/// # Errors
/// As [`update_message`].
pub fn plain_update_message(route: &Route, asns: Vec<u32>) -> Result<Vec<u8>, RouteError> {
    let reach = MpReachNlri::new(route.nlri.safi, route.next_hop, vec![route.nlri.prefix])
        .map_err(EncodeError::from)?;
    let path = AsPath {
        segments: vec![AsPathSegment {
            kind: AsPathSegmentType::AsSequence,
            asns,
        }],
    };
    encode_update([
        AttributeValue::Origin(route.origin),
        AttributeValue::AsPath(path),
        AttributeValue::MpReachNlri(reach),
    ])
}

/// An UPDATE of these path attributes (4-octet ASes) with its message header.
fn encode_update(attributes: [AttributeValue<'static>; 3]) -> Result<Vec<u8>, RouteError> {
    let update = Update {
        attributes: attributes
            .into_iter()
            .map(|v| PathAttribute::new(v, AsWidth::Four))
            .collect::<Result<_, _>>()?,
        ..Update::default()
    };
    let mut body = Writer::new();
    update.encode(&mut body, AsWidth::Four)?;
    let length = HEADER_LEN + body.len();
    if length > MAX_MESSAGE_LEN {
        return Err(RouteError::Skip(Skip::TooLarge));
    }
    let mut message = Writer::with_capacity(length);
    Header::new(length, MessageType::Update)
        .map_err(|_| RouteError::Skip(Skip::TooLarge))?
        .encode(&mut message);
    message.bytes(&body.into_bytes());
    Ok(message.into_bytes())
}

/// The MRT record of `route`'s BGPsec UPDATE, as the collector of `a` would have
/// received it from the newest AS on the path.
///
/// # Errors
/// As [`bgpsec_update`].
pub fn signed_record(
    a: &Announcement,
    route: &Route,
    keyring: &Keyring,
) -> Result<Vec<u8>, RouteError> {
    let message = bgpsec_update(route, keyring)?;
    let local_ip = a
        .collector
        .map_or_else(|| unspecified_like(a.peer_ip), |(_, ip)| ip);
    let mut w = Writer::with_capacity(message.len() + 48);
    Bgp4mpMessage {
        timestamp: a.timestamp,
        microseconds: a.microseconds,
        width: AsWidth::Four,
        local: false,
        peer_as: route.newest_as(),
        local_as: route.target_as,
        interface_index: 0,
        peer_ip: a.peer_ip,
        local_ip,
        message: &message,
    }
    .encode(&mut w)
    .map_err(EncodeError::from)?;
    Ok(w.into_bytes())
}

/// A batch of entries from the parser thread.
#[derive(Default)]
struct Batch {
    announcements: Vec<Announcement>,
    withdrawals: u64,
    unreadable: u64,
    /// Records read so far.
    records: u64,
}

/// Signs every announcement of the MRT stream `input` (uncompressed: see
/// [`crate::mrt::decompressed`]) and writes the records to `out`; keys are taken from
/// `keyring` and generated there for ASes it lacks. `progress` is called after each
/// batch, and while keys are generated.
///
/// # Errors
/// [`SignMrtError`]; what was written before it is incomplete.
pub fn sign_mrt(
    input: impl Read + Send,
    out: &mut dyn Write,
    keyring: &mut Keyring,
    options: &SignOptions,
    progress: &mut dyn FnMut(&SignReport),
) -> Result<SignReport, SignMrtError> {
    let mut report = SignReport::default();
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::sync_channel::<Result<Batch, ReadError>>(2);
        let limit = options.limit;
        s.spawn(move || parse(input, limit, &tx));
        for batch in rx {
            sign_batch(batch?, out, keyring, options, &mut report, progress)?;
        }
        Ok::<(), SignMrtError>(())
    })?;
    Ok(report)
}

/// The parser thread: batches of entries until the end, the limit, an error, or the
/// receiver hanging up.
fn parse(input: impl Read, limit: Option<u64>, tx: &mpsc::SyncSender<Result<Batch, ReadError>>) {
    let mut entries = Entries::new(input);
    let mut batch = Batch::default();
    let mut announced = 0u64;
    while limit.is_none_or(|l| announced < l) {
        match entries.next() {
            None => break,
            Some(Err(e)) => {
                let _ = tx.send(Err(e));
                return;
            }
            Some(Ok(Entry::Announcement(a))) => {
                announced += 1;
                batch.announcements.push(a);
            }
            Some(Ok(Entry::Withdrawal)) => batch.withdrawals += 1,
            Some(Ok(Entry::Unreadable)) => batch.unreadable += 1,
        }
        if batch.announcements.len() == BATCH {
            batch.records = entries.records();
            if tx.send(Ok(std::mem::take(&mut batch))).is_err() {
                return;
            }
        }
    }
    batch.records = entries.records();
    let _ = tx.send(Ok(batch));
}

/// The ASes signing every announcement of the MRT stream `input` (uncompressed)
/// needs keys for: those on the AS paths of its [`Route`]s (announcements skipped
/// for a [`Skip`] need none), ascending, each once. `default_target_as` as
/// [`SignOptions::default_target_as`] (it does not sign). What
/// [`Keyring::generate`] would be asked for before signing a whole archive with
/// one keys folder.
///
/// # Errors
/// [`ReadError`] if the stream cannot be read on.
pub fn route_ases(
    input: impl Read,
    default_target_as: u32,
) -> Result<std::collections::BTreeSet<u32>, ReadError> {
    let mut ases = std::collections::BTreeSet::new();
    for entry in Entries::new(input) {
        if let Entry::Announcement(a) = entry? {
            if let Ok(route) = Route::of(&a, default_target_as) {
                ases.extend(route.hops.iter().map(|h| h.asn));
            }
        }
    }
    Ok(ases)
}

fn sign_batch(
    batch: Batch,
    out: &mut dyn Write,
    keyring: &mut Keyring,
    options: &SignOptions,
    report: &mut SignReport,
    progress: &mut dyn FnMut(&SignReport),
) -> Result<(), SignMrtError> {
    report.records = batch.records;
    report.withdrawals += batch.withdrawals;
    report.unreadable_records += batch.unreadable;
    report.announcements += batch.announcements.len() as u64;
    let routes: Vec<Result<Route, Skip>> = batch
        .announcements
        .iter()
        .map(|a| Route::of(a, options.default_target_as))
        .collect();
    let new = keyring.missing(
        routes
            .iter()
            .flatten()
            .flat_map(|r| r.hops.iter().map(|h| h.asn)),
    );
    if let (false, Some(&asn)) = (keyring.generates(), new.first()) {
        return Err(SignMrtError::NoKey { asn });
    }
    for step in new.chunks(KEYS_PER_STEP.max(options.threads)) {
        report.keys_generated += keyring.generate(step, options.threads)? as u64;
        if new.len() > KEYS_PER_STEP {
            progress(report);
        }
    }
    let pairs: Vec<_> = batch.announcements.iter().zip(&routes).collect();
    let keyring = &*keyring;
    let records = Ordered::new(options.threads).map(&pairs, |(a, route)| match route {
        Ok(r) => signed_record(a, r, keyring).map(|bytes| (bytes, r)),
        Err(skip) => Err(RouteError::Skip(*skip)),
    });
    for record in records {
        match record {
            Ok((bytes, route)) => {
                out.write_all(&bytes).map_err(SignMrtError::Write)?;
                report.updates += 1;
                report.signatures += route.hops.len() as u64;
                match route.nlri.afi() {
                    crate::packet::Afi::Ipv4 => report.ipv4 += 1,
                    crate::packet::Afi::Ipv6 => report.ipv6 += 1,
                }
                if route.hops.iter().any(|h| h.pcount > 1) {
                    report.prepended += 1;
                }
            }
            Err(RouteError::Skip(skip)) => *report.skipped.entry(skip).or_default() += 1,
            Err(RouteError::Sign(e)) => return Err(e.into()),
        }
    }
    progress(report);
    Ok(())
}
