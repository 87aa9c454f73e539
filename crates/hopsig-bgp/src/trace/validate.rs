//! `validate-mrt`: every UPDATE of an MRT file validated as the collector would
//! (RFC 8205 §5.2), on several threads.
//!
//! Each BGP4MP message record is one UPDATE received by the record's local AS from
//! its peer AS ([`Peer::external`]: check 2 compares the newest Secure_Path Segment
//! with the record's peer AS, check 8 looks for the local AS on the path). Every
//! UPDATE that announces a route counts: 'Valid', or 'Not Valid' with the reason —
//! an announcing UPDATE without BGPsec_PATH is *unsigned*, which is not 'Valid'.
//! UPDATEs that only withdraw, other BGP messages and other MRT records are counted
//! as skipped.
//!
//! A RIB dump (TABLE_DUMP_V2, RFC 6396 §4.3, as the speaker's `[[mrt_dump]]` writes)
//! is validated route by route: each RIB entry is the UPDATE that brought it
//! ([`update_of`]), from the peer its Peer Index names in the last PEER_INDEX_TABLE,
//! received by the AS the View Name names (`AS<n>`, as hopsig writes it: the target
//! of the newest signature, RFC 8205 §4.2).
//!
//! Every suite of [`SUITES`] is supported, the experimental ones (RFC 8608 §2.1's
//! range) too: `sign-mrt` may have signed with any of them.
//!
//! One thread frames the records ([`Records`]) into batches, the workers of
//! [`Ordered`] validate them, and each batch's counts are added up in record order.
//! The `_cached` forms share a [`SignatureCache`] among the workers: a signature
//! seen before (an upstream segment shared by many paths, a route announced again)
//! is verified once, and the cache's counters say how many were checked and how many
//! verified.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::io::Read;
use std::sync::{Arc, Mutex, PoisonError};

use hopsig_primitives::codec::Reader;
use hopsig_primitives::par::Ordered;

use crate::cache::SignatureCache;
use crate::mrt::bgp4mp::{Bgp4mpMessage, MrtRecord, RecordError, Records};
use crate::mrt::table_dump_v2::{update_of, PeerEntry, PeerIndexTable, RibRecord};
use crate::packet::{AsWidth, Message, MessageError, Update};
use crate::router_key::KeyLookup;
#[cfg(feature = "rpki")]
use crate::rpki::{aspa::Relation, view::View};
use crate::suite::{AlgorithmSuite, BlockFault, ECDSA_P256_SHA256, SUITES};
use crate::validate::{update_in, Malformed, NotValid, Peer, Unsigned, Validation, Validator};

/// Records per batch: small enough that the last batches of a stream keep every
/// thread busy (a batch of suite 1 UPDATEs is about 20 ms of work), large enough
/// that the channel costs nothing beside it.
const BATCH: usize = 64;
/// Failures kept with their details.
pub const FIRST_FAILURES: usize = 10;

/// What a run found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValidateReport {
    /// MRT records read.
    pub records: u64,
    /// UPDATEs that announce a route (and routes of RIB dumps), validated.
    pub updates: u64,
    /// Of which 'Valid'.
    pub valid: u64,
    /// Of which 'Not Valid', by reason ([`reason`]).
    pub not_valid: BTreeMap<&'static str, u64>,
    /// Signatures verified: the Secure_Path Segments of the 'Valid' UPDATEs.
    pub signatures: u64,
    /// Records and messages not validated, by kind: `other_record` (not a BGP4MP
    /// message), `not_update` (OPEN, KEEPALIVE, NOTIFICATION), `withdrawal` (an
    /// UPDATE announcing nothing).
    pub skipped: BTreeMap<&'static str, u64>,
    /// The first [`FIRST_FAILURES`] 'Not Valid' UPDATEs, in record order.
    pub first_failures: Vec<Failure>,
    /// The batch backend that verified suite 1's signatures
    /// ([`crate::AlgorithmSuite::verifier`]): `avx512ifma` (the multi-buffer P-256
    /// verifier, on a CPU with AVX-512 IFMA) or `cpu` (OpenSSL, one at a time);
    /// docs/spec/bgpsec.md, "Many UPDATEs at once, and which verifier
    /// validated".
    pub backend: &'static str,
    /// With an RPKI view ([`validate_mrt_rpki`]): each announced prefix counted by
    /// its three verdicts — BGPsec (`valid`, `not-valid`), route origin validation
    /// (RFC 6811 §2: `valid`, `invalid`, `not-found`) and ASPA verification
    /// (`valid`, `invalid`, `unknown`); empty without one.
    #[cfg(feature = "rpki")]
    pub cross: BTreeMap<(&'static str, &'static str, &'static str), u64>,
}

impl ValidateReport {
    /// UPDATEs not 'Valid'.
    pub fn not_valid_total(&self) -> u64 {
        self.not_valid.values().sum()
    }

    /// Adds the counts of `other` but its records (counted by the caller).
    fn add(&mut self, other: ValidateReport) {
        self.updates += other.updates;
        self.valid += other.valid;
        self.signatures += other.signatures;
        for (k, v) in other.not_valid {
            *self.not_valid.entry(k).or_default() += v;
        }
        for (k, v) in other.skipped {
            *self.skipped.entry(k).or_default() += v;
        }
        #[cfg(feature = "rpki")]
        for (k, v) in other.cross {
            *self.cross.entry(k).or_default() += v;
        }
        self.first_failures.extend(other.first_failures);
        self.first_failures.sort_by_key(|f| f.record);
        self.first_failures.truncate(FIRST_FAILURES);
    }
}

/// One UPDATE found 'Not Valid'.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Its record's index, from 0.
    pub record: u64,
    /// [`reason`].
    pub reason: &'static str,
    /// The validator's words.
    pub detail: String,
}

/// The short name of why an UPDATE is 'Not Valid', for counts:
///
/// | name | what |
/// |---|---|
/// | `malformed` | the codec's RFC 4271 / RFC 7606 / RFC 8205 §5.2 checks 1, 3, 4 verdict |
/// | `malformed_record` | a BGP4MP record whose fields do not decode |
/// | `two_octet_as` | an UPDATE of a 2-octet AS session: no BGPsec (RFC 8205 §2.2) |
/// | `peer_as` | check 2: the newest segment is not the peer's AS |
/// | `confed_segment` | checks 5, 6 |
/// | `pcount_zero` | check 7 |
/// | `as_loop` | check 8 |
/// | `unsigned` | no BGPsec_PATH |
/// | `no_supported_suite` | only blocks of suites the validator lacks |
/// | `no_key` | step 2: no router key for an (AS, SKI) |
/// | `bad_signature` | step 4: a signature does not verify |
/// | `bad_aggregate` | an aggregate suite's block does not verify |
/// | `no_local_as` | a RIB dump's BGPsec route, the dump not naming the AS that received it |
pub fn reason(v: &NotValid) -> &'static str {
    match v {
        NotValid::Malformed(m) => match m {
            Malformed::Message(_) | Malformed::AsPathWithBgpsecPath | Malformed::Nlri(_) => {
                "malformed"
            }
            Malformed::PeerAs { .. } => "peer_as",
            Malformed::ConfedSegmentFromOutside { .. } | Malformed::NoConfedSegmentFromMember => {
                "confed_segment"
            }
            Malformed::PcountZero => "pcount_zero",
            Malformed::AsLoop { .. } => "as_loop",
        },
        NotValid::Unsigned(Unsigned::NoSupportedSuite(_)) => "no_supported_suite",
        NotValid::Unsigned(_) => "unsigned",
        NotValid::Signatures(failures) => match failures.first().map(|f| &f.fault) {
            Some(BlockFault::NoKey { .. }) => "no_key",
            Some(BlockFault::BadSignature { .. }) => "bad_signature",
            Some(BlockFault::BadAggregate) | None => "bad_aggregate",
        },
    }
}

/// What one record is to the validator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Not validated: the [`ValidateReport::skipped`] kind.
    Skipped(&'static str),
    /// 'Valid', with this many signatures verified.
    Valid(usize),
    /// 'Not Valid': the [`reason`] and the validator's words.
    NotValid(&'static str, String),
}

/// Validates the one MRT record `record` (its whole octets) with `validator`.
pub fn validate_record(record: &[u8], validator: &Validator<'_>) -> Outcome {
    validate_routes(&[bgp4mp_route(record)], validator)
        .pop()
        .unwrap_or(Outcome::Skipped("other_record"))
}

/// A BGP message to validate, as a record or a RIB entry gives it.
struct ToValidate<'r> {
    /// The message, header included: the record's, or made from a RIB entry.
    message: Cow<'r, [u8]>,
    /// How wide the session's AS numbers are.
    width: AsWidth,
    /// The peer it came from, and the AS that received it.
    peer: Peer,
    /// Whether the AS that received it is known: a RIB dump names it in its View
    /// Name, or does not ([`RibContext::local_as`]).
    known_local: bool,
}

/// A route of a batch: the message to validate, or the outcome that stands for it.
type Route<'r> = Result<ToValidate<'r>, Outcome>;

/// The BGP4MP message record `record` as a [`Route`]: the UPDATE received by the
/// record's local AS from its peer AS ([`Peer::external`]).
fn bgp4mp_route(record: &[u8]) -> Route<'_> {
    let Ok(mrt) = MrtRecord::read(&mut Reader::new(record)) else {
        return Err(Outcome::NotValid(
            "malformed_record",
            "the MRT record does not decode".into(),
        ));
    };
    match Bgp4mpMessage::decode(&mrt) {
        Ok(Some(m)) => Ok(ToValidate {
            message: Cow::Borrowed(m.message),
            width: m.width,
            peer: Peer::external(m.local_as, m.peer_as),
            known_local: true,
        }),
        Ok(None) => Err(Outcome::Skipped("other_record")),
        Err(e) => Err(Outcome::NotValid("malformed_record", e.to_string())),
    }
}

/// Each route's outcome, in order, the UPDATEs among them validated together
/// ([`Validator::updates`]: their signature checks in one batch); each outcome is the
/// one the route has validated alone.
fn validate_routes(routes: &[Route<'_>], validator: &Validator<'_>) -> Vec<Outcome> {
    let decoded: Vec<_> = routes
        .iter()
        .map(|r| {
            r.as_ref()
                .ok()
                .map(|t| Message::decode(&t.message, t.width))
        })
        .collect();
    let mut updates = Vec::new();
    // The segments of each UPDATE to validate, or the route's outcome.
    let mut slots: Vec<Result<usize, Outcome>> = Vec::with_capacity(routes.len());
    for (route, decoded) in routes.iter().zip(&decoded) {
        let slot = match (route, decoded) {
            (Ok(t), Some(d)) => classify(d, t, validator).map(|(u, hops)| {
                updates.push((u, &t.peer));
                hops
            }),
            (Err(o), _) => Err(o.clone()),
            (Ok(_), None) => Err(Outcome::Skipped("other_record")),
        };
        slots.push(slot);
    }
    // One verdict per UPDATE handed over, so `next` never runs out.
    let mut validated = validator.updates(&updates).into_iter();
    slots
        .into_iter()
        .map(|slot| match (slot, &mut validated) {
            (Err(o), _) => o,
            (Ok(hops), v) => outcome(
                v.next()
                    .unwrap_or(Validation::NotValid(NotValid::Signatures(Vec::new()))),
                hops,
            ),
        })
        .collect()
}

/// What the decoded message `decoded` of `route` is to the validator: an UPDATE to
/// validate, with the number of its Secure_Path Segments, or its outcome — skipped
/// (a withdrawal, not an UPDATE), 'Not Valid' without signatures (a 2-octet AS
/// session, a RIB dump's BGPsec route whose receiving AS is unknown), or the
/// validator's verdict on a malformed message (as salvaged by RFC 7606, with no
/// segments counted).
fn classify<'m>(
    decoded: &'m Result<Message<'_>, MessageError>,
    route: &ToValidate<'_>,
    validator: &Validator<'_>,
) -> Result<(&'m Update<'m>, usize), Outcome> {
    match decoded {
        Ok(Message::Update(u)) if !route.known_local && u.bgpsec_path().is_some() => {
            Err(Outcome::NotValid(
                "no_local_as",
                "the RIB dump does not name the AS that received its routes (a View Name AS<n>, RFC 8205 §4.2 target AS)".into(),
            ))
        }
        Ok(Message::Update(u)) if u.announced().next().is_none() && u.bgpsec_path().is_none() => {
            Err(Outcome::Skipped("withdrawal"))
        }
        Ok(Message::Update(_)) if route.width == AsWidth::Two => Err(Outcome::NotValid(
            "two_octet_as",
            "an UPDATE of a 2-octet AS session (BGP4MP_MESSAGE): BGPsec needs 4-octet AS numbers (RFC 8205 §2.2)".into(),
        )),
        Ok(Message::Update(u)) => Ok((u, u.bgpsec_path().map_or(0, |p| p.secure_path().len()))),
        Ok(_) => Err(Outcome::Skipped("not_update")),
        // Malformed: the validator's verdict, with what RFC 7606 salvages, the message
        // read as BGPsec speakers send it (4-octet AS numbers, RFC 8205 §2.2).
        Err(_) if route.width == AsWidth::Four => match update_in(decoded) {
            Ok(u) => Ok((u, 0)),
            Err(v) => Err(outcome(v, 0)),
        },
        Err(_) => Err(outcome(validator.message(&route.message, &route.peer), 0)),
    }
}

/// The outcome of a validation of an UPDATE of `hops` Secure_Path Segments.
fn outcome(validation: Validation, hops: usize) -> Outcome {
    match validation {
        Validation::Valid { .. } => Outcome::Valid(hops),
        Validation::NotValid(v) => Outcome::NotValid(reason(&v), v.to_string()),
    }
}

/// What a RIB dump's RIB records need from its PEER_INDEX_TABLE: the peers, and the
/// AS that received the routes (a View Name `AS<n>`, as the speaker writes it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RibContext {
    /// The peers, by Peer Index.
    pub peers: Vec<PeerEntry>,
    /// The collector's AS, if the View Name gives it.
    pub local_as: Option<u32>,
}

impl RibContext {
    /// The context a PEER_INDEX_TABLE gives the RIB records after it.
    pub fn of(table: &PeerIndexTable) -> RibContext {
        RibContext {
            peers: table.peers.clone(),
            local_as: table
                .view_name
                .strip_prefix("AS")
                .and_then(|n| n.parse().ok()),
        }
    }
}

/// One route of a RIB dump: the UPDATE that brought it and the peer it came from, or
/// the outcome that stands for it.
pub type RibRoute = Result<(Vec<u8>, Peer), Outcome>;

/// A record with the PEER_INDEX_TABLE before it ([`RibContext`]), as the workers get
/// it.
type InContext = (Vec<u8>, Option<Arc<RibContext>>);

/// The routes of the TABLE_DUMP_V2 RIB record `record`, each as the UPDATE that
/// brought it and the peer it came from, or the outcome that stands for it (a Peer
/// Index not in the table, an entry that does not make an UPDATE); `None` for a
/// record that is no RIB record.
pub fn rib_routes(record: &[u8], context: Option<&RibContext>) -> Option<Vec<RibRoute>> {
    let mrt = MrtRecord::read(&mut Reader::new(record)).ok()?;
    let rib = match RibRecord::decode(&mrt) {
        Ok(Some(rib)) => rib,
        Ok(None) => return None,
        Err(e) => {
            return Some(vec![Err(Outcome::NotValid(
                "malformed_record",
                e.to_string(),
            ))])
        }
    };
    let Some(context) = context else {
        return Some(vec![Err(Outcome::NotValid(
            "malformed_record",
            "a RIB record before any PEER_INDEX_TABLE (RFC 6396 §4.3.1)".into(),
        ))]);
    };
    let routes = rib
        .entries
        .iter()
        .map(|e| {
            let peer = context
                .peers
                .get(usize::from(e.peer_index))
                .ok_or_else(|| {
                    Outcome::NotValid(
                        "malformed_record",
                        format!("Peer Index {} not in the PEER_INDEX_TABLE", e.peer_index),
                    )
                })?;
            let message = update_of(&rib.prefix, e.attributes)
                .map_err(|e| Outcome::NotValid("malformed_record", e.to_string()))?;
            Ok((
                message,
                Peer::external(context.local_as.unwrap_or(0), peer.asn),
            ))
        })
        .collect();
    Some(routes)
}

/// Why a run stopped.
pub type ValidateMrtError = RecordError;

/// The (ROV, ASPA) verdict names of each prefix a BGP4MP record's UPDATE announces,
/// with the AS path it carries (AS_PATH merged with AS4_PATH, RFC 6793 §4.2.3, or the
/// BGPsec_PATH's §4.4 equivalent); none for anything else.
#[cfg(feature = "rpki")]
fn rpki_verdicts(
    record: &[u8],
    view: &View,
    relation: Relation,
) -> Vec<(&'static str, &'static str)> {
    let Ok(mrt) = MrtRecord::read(&mut Reader::new(record)) else {
        return vec![];
    };
    let Ok(Some(m)) = Bgp4mpMessage::decode(&mrt) else {
        return vec![];
    };
    rpki_message_verdicts(m.message, m.width, view, relation)
}

/// [`rpki_verdicts`] of one BGP message of a session of AS numbers `width` wide.
#[cfg(feature = "rpki")]
fn rpki_message_verdicts(
    message: &[u8],
    width: AsWidth,
    view: &View,
    relation: Relation,
) -> Vec<(&'static str, &'static str)> {
    let Ok(Message::Update(u)) = Message::decode(message, width) else {
        return vec![];
    };
    let path = match u.bgpsec_path() {
        Some(b) => crate::as_path_equivalent::as_path(b.secure_path()),
        None => crate::as4::received(&u, width).as_path,
    };
    let aspa = view.aspa(&path, relation).state.name();
    u.announced()
        .map(|p| (view.rov(&p, &path).state.name(), aspa))
        .collect()
}

/// Validates every record of the MRT stream `input` (uncompressed: see
/// [`crate::mrt::decompressed`]) on `threads` threads with the keys of `keys`.
/// `progress` is called with the number of records validated so far, once per batch.
///
/// # Errors
/// [`RecordError`] if the stream cannot be read or framed; nothing is validated after
/// it.
pub fn validate_mrt(
    input: impl Read + Send,
    keys: &dyn KeyLookup,
    threads: usize,
    progress: &mut dyn FnMut(u64),
) -> Result<ValidateReport, ValidateMrtError> {
    validate(input, keys, None, None, threads, progress, None)
}

/// Each record's [`Outcome`] with its index, in record order: what a per-UPDATE
/// output prints (`hopsig bgpsec validate-mrt --json-lines`). A TABLE_DUMP_V2 RIB
/// record gives one outcome per route, each with the record's index.
pub type EachRecord<'a> = &'a mut dyn FnMut(u64, &Outcome);

/// [`validate_mrt`] with the signature cache `cache` shared by the threads; with
/// `each`, every record's [`Outcome`] is also handed to it, in record order, as the
/// batches come back from the threads (outcomes are kept only then).
///
/// # Errors
/// As [`validate_mrt`].
pub fn validate_mrt_cached(
    input: impl Read + Send,
    keys: &dyn KeyLookup,
    cache: &SignatureCache,
    threads: usize,
    progress: &mut dyn FnMut(u64),
    each: Option<EachRecord<'_>>,
) -> Result<ValidateReport, ValidateMrtError> {
    validate(input, keys, None, Some(cache), threads, progress, each)
}

/// [`validate_mrt`] with the router keys of an RPKI `view`, and each announced
/// prefix's route origin validation (RFC 6811) and ASPA verification verdicts
/// counted with its BGPsec verdict in [`ValidateReport::cross`]. `relation` is the
/// role taken for the collector's peer (ASPA needs one; a collector is a lateral
/// peer of its peers).
///
/// # Errors
/// As [`validate_mrt`].
#[cfg(feature = "rpki")]
pub fn validate_mrt_rpki(
    input: impl Read + Send,
    view: &View,
    relation: Relation,
    threads: usize,
    progress: &mut dyn FnMut(u64),
) -> Result<ValidateReport, ValidateMrtError> {
    validate(
        input,
        view.router_keys(),
        Some((view, relation)),
        None,
        threads,
        progress,
        None,
    )
}

/// [`validate_mrt_rpki`] with the signature cache `cache` shared by the threads, and
/// `each` as [`validate_mrt_cached`]'s.
///
/// # Errors
/// As [`validate_mrt`].
#[cfg(feature = "rpki")]
pub fn validate_mrt_rpki_cached(
    input: impl Read + Send,
    view: &View,
    relation: Relation,
    cache: &SignatureCache,
    threads: usize,
    progress: &mut dyn FnMut(u64),
    each: Option<EachRecord<'_>>,
) -> Result<ValidateReport, ValidateMrtError> {
    validate(
        input,
        view.router_keys(),
        Some((view, relation)),
        Some(cache),
        threads,
        progress,
        each,
    )
}

/// The view and relation of [`validate_mrt_rpki`], or nothing.
#[cfg(feature = "rpki")]
type Rpki<'a> = (&'a View, Relation);
#[cfg(not(feature = "rpki"))]
type Rpki<'a> = ();

fn validate(
    input: impl Read + Send,
    keys: &dyn KeyLookup,
    rpki: Option<Rpki<'_>>,
    cache: Option<&SignatureCache>,
    threads: usize,
    progress: &mut dyn FnMut(u64),
    mut each: Option<EachRecord<'_>>,
) -> Result<ValidateReport, ValidateMrtError> {
    let failed = Mutex::new(None);
    // Framed on the executor's reader thread, up to the first error; each record
    // with the PEER_INDEX_TABLE before it, for a RIB dump's records.
    let mut context: Option<Arc<RibContext>> = None;
    let records = Records::new(input)
        .map_while(|r| {
            r.map_err(|e| *failed.lock().unwrap_or_else(PoisonError::into_inner) = Some(e))
                .ok()
        })
        .map(move |record| {
            if let Ok(Some(table)) = MrtRecord::read(&mut Reader::new(&record))
                .and_then(|mrt| PeerIndexTable::decode(&mrt))
            {
                context = Some(Arc::new(RibContext::of(&table)));
            }
            (record, context.clone())
        });
    let mut report = ValidateReport {
        backend: ECDSA_P256_SHA256.verifier(),
        ..ValidateReport::default()
    };
    let keep = each.is_some();
    let run: Result<(), Infallible> = Ordered::new(threads).batch(BATCH).run(
        (0u64..).zip(records),
        |batch: Vec<(u64, InContext)>| validate_batch(&batch, keys, rpki, cache, keep),
        |(done, outcomes)| {
            if let Some(each) = each.as_mut() {
                for (index, outcome) in &outcomes {
                    each(*index, outcome);
                }
            }
            report.records += done.records;
            report.add(done);
            progress(report.records);
            Ok(())
        },
    );
    if let Err(never) = run {
        match never {}
    }
    match failed.into_inner().unwrap_or_else(PoisonError::into_inner) {
        Some(e) => Err(e),
        None => Ok(report),
    }
}

/// The report of one batch of records, each with its index, and each record's
/// outcome if `keep`.
fn validate_batch(
    batch: &[(u64, InContext)],
    keys: &dyn KeyLookup,
    rpki: Option<Rpki<'_>>,
    cache: Option<&SignatureCache>,
    keep: bool,
) -> (ValidateReport, Vec<(u64, Outcome)>) {
    // Every suite hopsig implements, the experimental ones too: sign-mrt signs with
    // any of them (docs/spec/bgpsec-mrt.md).
    let validator = Validator::with_suites(SUITES, keys);
    let validator = match cache {
        Some(cache) => validator.with_cache(cache),
        None => validator,
    };
    let mut report = ValidateReport {
        records: batch.len() as u64,
        ..ValidateReport::default()
    };
    let mut outcomes = Vec::with_capacity(if keep { batch.len() } else { 0 });
    // Every route of the batch (a RIB dump's routes, or a record's one UPDATE), with
    // its record's index and its (ROV, ASPA) verdicts, then all of them validated
    // together: their signatures in one batch.
    let mut routes: Vec<Route<'_>> = Vec::with_capacity(batch.len());
    let mut about: Vec<(u64, Vec<(&'static str, &'static str)>)> = Vec::with_capacity(batch.len());
    for (index, (record, context)) in batch {
        match rib_routes(record, context.as_deref()) {
            Some(rib) => {
                let known_local = context.as_ref().is_some_and(|c| c.local_as.is_some());
                for route in rib {
                    let (message, peer) = match route {
                        Ok(route) => route,
                        Err(o) => {
                            routes.push(Err(o));
                            about.push((*index, vec![]));
                            continue;
                        }
                    };
                    #[cfg(feature = "rpki")]
                    let cross = rpki.map_or(vec![], |(view, relation)| {
                        rpki_message_verdicts(&message, AsWidth::Four, view, relation)
                    });
                    #[cfg(not(feature = "rpki"))]
                    let cross = vec![];
                    routes.push(Ok(ToValidate {
                        message: Cow::Owned(message),
                        width: AsWidth::Four,
                        peer,
                        known_local,
                    }));
                    about.push((*index, cross));
                }
            }
            None => {
                #[cfg(feature = "rpki")]
                let cross = rpki.map_or(vec![], |(view, relation)| {
                    rpki_verdicts(record, view, relation)
                });
                #[cfg(not(feature = "rpki"))]
                let cross = vec![];
                routes.push(bgp4mp_route(record));
                about.push((*index, cross));
            }
        }
    }
    #[cfg(not(feature = "rpki"))]
    let _ = rpki;
    let validated = validate_routes(&routes, &validator);
    for (outcome, (index, _cross)) in validated.into_iter().zip(about) {
        if keep {
            outcomes.push((index, outcome.clone()));
        }
        #[cfg(feature = "rpki")]
        {
            let bgpsec = match outcome {
                Outcome::Skipped(_) => None,
                Outcome::Valid(_) => Some("valid"),
                Outcome::NotValid(..) => Some("not-valid"),
            };
            if let Some(bgpsec) = bgpsec {
                for (rov, aspa) in _cross {
                    *report.cross.entry((bgpsec, rov, aspa)).or_default() += 1;
                }
            }
        }
        match outcome {
            Outcome::Skipped(kind) => *report.skipped.entry(kind).or_default() += 1,
            Outcome::Valid(hops) => {
                report.updates += 1;
                report.valid += 1;
                report.signatures += hops as u64;
            }
            Outcome::NotValid(reason, detail) => {
                report.updates += 1;
                *report.not_valid.entry(reason).or_default() += 1;
                if report.first_failures.len() < FIRST_FAILURES {
                    report.first_failures.push(Failure {
                        record: index,
                        reason,
                        detail,
                    });
                }
            }
        }
    }
    (report, outcomes)
}
