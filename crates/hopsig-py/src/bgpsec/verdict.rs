//! Validation (RFC 8205 §5.2): `validate` of one UPDATE and `validate_many` of a
//! batch on every core with the GIL released, both giving `Verdict`s whose `reason`
//! is the short name `hopsig bgpsec validate-mrt` counts
//! (`hopsig_bgp::trace::validate::reason`); `backend`, the verifier that checks their
//! signatures.
//!
//! `validate_many` hands each thread chunks of UPDATEs and validates a chunk with one
//! cross-UPDATE batch (every signature check of its UPDATEs in one call of the batch
//! verifier, issue 28), so a multi-buffer backend fills its lanes; verdicts are those
//! of `validate`, UPDATE by UPDATE.

use hopsig_bgp::packet::{AsWidth, Message, Update as WireUpdate};
use hopsig_bgp::trace::validate::reason;
use hopsig_bgp::{KeyLookup, Peer, Validation, Validator, SUITES};
use hopsig_primitives::par;
use hopsig_schemes::batch::{default_backend, Signatures};
use hopsig_schemes::concat::EcdsaP256;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::keys::RouterKeys;
use super::update::Update;
use super::Reduced;
use crate::errors;

/// The verdict on one UPDATE (RFC 8205 §5.1): `state` is `"valid"` or `"not-valid"`;
/// `reason` the short name of why not (`None` when valid: `malformed`, `peer_as`,
/// `confed_segment`, `pcount_zero`, `as_loop`, `unsigned`, `no_supported_suite`,
/// `no_key`, `bad_signature`, `bad_aggregate`, `two_octet_as`), as
/// `hopsig bgpsec validate-mrt` counts them; `detail` the validator's words, with the
/// RFC section where one applies; `suite` the suite of the block found 'Valid';
/// `signatures` the signatures verified (the path's length when valid). A `Verdict`
/// is true exactly when valid.
#[pyclass(module = "hopsig.bgpsec", frozen, eq)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// `"valid"` or `"not-valid"`.
    #[pyo3(get)]
    state: &'static str,
    /// Why not valid; `None` when valid.
    #[pyo3(get)]
    reason: Option<String>,
    /// The validator's words.
    #[pyo3(get)]
    detail: String,
    /// The suite of the Signature_Block found 'Valid'.
    #[pyo3(get)]
    suite: Option<u8>,
    /// Signatures verified: the Secure_Path's length when valid, else 0.
    #[pyo3(get)]
    signatures: usize,
}

#[pymethods]
impl Verdict {
    /// A verdict, as `__reduce__` rebuilds one.
    #[new]
    #[pyo3(
        signature = (state, reason = None, detail = String::new(), suite = None, signatures = 0),
        text_signature = "(state, reason=None, detail='', suite=None, signatures=0)"
    )]
    fn new(
        state: &str,
        reason: Option<String>,
        detail: String,
        suite: Option<u8>,
        signatures: usize,
    ) -> PyResult<Verdict> {
        let state = match state {
            "valid" => "valid",
            "not-valid" => "not-valid",
            other => {
                return Err(errors::input(
                    "bad-argument",
                    format!("a verdict's state is \"valid\" or \"not-valid\", not {other:?}"),
                ))
            }
        };
        Ok(Verdict {
            state,
            reason,
            detail,
            suite,
            signatures,
        })
    }

    /// Whether the UPDATE is 'Valid'.
    #[getter]
    fn valid(&self) -> bool {
        self.state == "valid"
    }

    fn __bool__(&self) -> bool {
        self.valid()
    }

    /// The verdict itself when valid; otherwise raises `InvalidError` (the CLI's exit
    /// status 1) with this `reason` and the `detail` as its message, for code that
    /// treats a path that does not verify as an error.
    fn check(slf: PyRef<'_, Self>) -> PyResult<PyRef<'_, Self>> {
        match &slf.reason {
            None => Ok(slf),
            Some(reason) => Err(errors::invalid(reason, &slf.detail)),
        }
    }

    /// The verdict as a dict (`state`, `reason`, `detail`, `suite`, `signatures`).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let d = pyo3::types::PyDict::new(py);
        d.set_item("state", self.state)?;
        d.set_item("reason", &self.reason)?;
        d.set_item("detail", &self.detail)?;
        d.set_item("suite", self.suite)?;
        d.set_item("signatures", self.signatures)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        match &self.reason {
            None => format!(
                "Verdict(state='valid', suite={}, signatures={})",
                self.suite.map_or("None".into(), |s| s.to_string()),
                self.signatures
            ),
            Some(r) => format!(
                "Verdict(state='not-valid', reason={r:?}, detail={:?})",
                self.detail
            ),
        }
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> Reduced<'py, Fields> {
        let v = slf.get();
        (
            slf.get_type().into_any(),
            (
                v.state,
                v.reason.clone(),
                v.detail.clone(),
                v.suite,
                v.signatures,
            ),
        )
    }
}

impl Verdict {
    /// The verdict of `validation` on a path of `hops` segments.
    fn of(validation: Validation, hops: usize) -> Verdict {
        match validation {
            Validation::Valid { suite, .. } => Verdict {
                state: "valid",
                reason: None,
                detail: String::new(),
                suite: Some(suite),
                signatures: hops,
            },
            Validation::NotValid(v) => Verdict::not_valid(reason(&v), &v),
        }
    }

    /// A 'Not Valid' verdict.
    fn not_valid(reason: &str, detail: &dyn std::fmt::Display) -> Verdict {
        Verdict {
            state: "not-valid",
            reason: Some(reason.to_string()),
            detail: detail.to_string(),
            suite: None,
            signatures: 0,
        }
    }
}

/// A verdict's fields in the constructor's order: state, reason, detail, suite,
/// signatures.
type Fields = (&'static str, Option<String>, String, Option<u8>, usize);

/// What is validated: a whole message's octets, or a decoded UPDATE.
enum Item {
    Message(Vec<u8>),
    Update(hopsig_bgp::packet::Update<'static>, AsWidth),
}

impl Item {
    /// `obj` (bytes or an `Update`) as an item.
    fn of(obj: &Bound<'_, PyAny>) -> PyResult<Item> {
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(Item::Message(b.as_bytes().to_vec()));
        }
        let u: PyRef<'_, Update> = obj.extract()?;
        Ok(Item::Update(u.inner.clone(), u.width))
    }

    /// RFC 8205 §5.2 on the item, as `validate-mrt` validates a record's message: an
    /// UPDATE of a 2-octet AS session is `two_octet_as` (BGPsec needs 4-octet AS
    /// numbers, §2.2); a message that does not decode is judged with what RFC 7606
    /// salvages of it.
    fn verdict(&self, validator: &Validator<'_>, peer: &Peer) -> Verdict {
        let (update, width) = match self {
            Item::Update(u, w) => (u, *w),
            Item::Message(bytes) => match Message::decode(bytes, AsWidth::Four) {
                Ok(Message::Update(u)) => return Item::judge(&u, AsWidth::Four, validator, peer),
                _ => return Verdict::of(validator.message(bytes, peer), 0),
            },
        };
        Item::judge(update, width, validator, peer)
    }

    fn judge(
        update: &WireUpdate<'_>,
        width: AsWidth,
        validator: &Validator<'_>,
        peer: &Peer,
    ) -> Verdict {
        if width == AsWidth::Two {
            return Verdict::two_octet_as();
        }
        Verdict::of(validator.update(update, peer), hops(update))
    }
}

impl Verdict {
    /// An UPDATE of a 2-octet AS session.
    fn two_octet_as() -> Verdict {
        Verdict::not_valid(
            "two_octet_as",
            &"an UPDATE of a 2-octet AS session: BGPsec needs 4-octet AS numbers (RFC 8205 §2.2)",
        )
    }
}

/// Secure_Path segments of `update` (0 without BGPsec_PATH).
fn hops(update: &WireUpdate<'_>) -> usize {
    update.bgpsec_path().map_or(0, |p| p.secure_path().len())
}

/// UPDATEs per cross-UPDATE batch, at most: about 1,000 signatures (4–5 per path), many
/// times the eight lanes of the vector verifier, while a call still leaves work for
/// every thread.
const CHUNK: usize = 256;

/// [`Item::verdict`] of each of `items`, in order, the UPDATEs judged by RFC 8205 §5.2
/// validated together: one `Validator::updates` call (the cross-UPDATE batch, whose
/// verdicts and cache behaviour are `Validator::update`'s one by one) for all of them.
fn verdicts(items: &[Item], validator: &Validator<'_>, peer: &Peer) -> Vec<Verdict> {
    // Messages decoded once, kept while the batch borrows them.
    let decoded: Vec<Option<WireUpdate<'_>>> = items
        .iter()
        .map(|item| match item {
            Item::Message(bytes) => match Message::decode(bytes, AsWidth::Four) {
                Ok(Message::Update(u)) => Some(u),
                _ => None,
            },
            Item::Update(..) => None,
        })
        .collect();
    let mut out: Vec<Option<Verdict>> = vec![None; items.len()];
    let mut batch: Vec<(usize, &WireUpdate<'_>)> = Vec::new();
    for (i, (item, decoded)) in items.iter().zip(&decoded).enumerate() {
        match (item, decoded) {
            (Item::Update(_, AsWidth::Two), _) => out[i] = Some(Verdict::two_octet_as()),
            (Item::Update(u, _), _) => batch.push((i, u)),
            (Item::Message(_), Some(u)) => batch.push((i, u)),
            // What RFC 7606 salvages of a message that does not decode.
            (Item::Message(bytes), None) => {
                out[i] = Some(Verdict::of(validator.message(bytes, peer), 0));
            }
        }
    }
    let updates: Vec<(&WireUpdate<'_>, &Peer)> = batch.iter().map(|(_, u)| (*u, peer)).collect();
    for ((i, u), validation) in batch.iter().zip(validator.updates(&updates)) {
        out[*i] = Some(Verdict::of(validation, hops(u)));
    }
    out.into_iter()
        .map(|v| v.unwrap_or_else(|| Verdict::not_valid("malformed", &"not validated")))
        .collect()
}

/// The verifier that checks suite-1 (ECDSA P-256) signatures in this process:
/// `avx512ifma` (eight signatures per pass of AVX-512 IFMA, chosen when the processor
/// has it and `HOPSIG_CPU_DISABLE` does not name it) or `cpu` (OpenSSL, one at a time),
/// as `hopsig bgpsec validate-mrt` reports it. Verdicts are the same with either.
#[pyfunction]
pub fn backend() -> &'static str {
    default_backend::<Signatures<EcdsaP256>>().name()
}

/// The session of the validating router: `local_as` (its AS, the Target AS of the
/// newest signature and the AS of the loop check), `peer_as` (check 2; `None`
/// skips it), a confederation member (checks 5, 6), a route server peer (check 7).
fn peer(local_as: u32, peer_as: Option<u32>, in_confederation: bool, pcount_zero: bool) -> Peer {
    Peer {
        local_as,
        peer_as,
        in_confederation,
        may_send_pcount_zero: pcount_zero,
    }
}

/// A validator of the default suites (suite 1), or of every suite of hopsig's table
/// (the experimental ones too) with `experimental`.
fn validator(keys: &dyn KeyLookup, experimental: bool) -> Validator<'_> {
    if experimental {
        Validator::with_suites(SUITES, keys)
    } else {
        Validator::new(keys)
    }
}

/// Validates one UPDATE (RFC 8205 §5.2) — the whole message's bytes (header
/// included, 4-octet AS numbers) or an `Update` — as the router of `local_as`
/// receiving it from `peer_as` (None: check 2 skipped, as for an MRT record), with
/// the router keys `keys`. `in_confederation` and `pcount_zero` describe the peer
/// (checks 5–7); `experimental` validates the experimental suites too. The GIL is
/// released while it verifies. Never raises for a bad UPDATE: the verdict says why.
#[pyfunction]
#[pyo3(signature = (update, keys, *, local_as, peer_as = None, in_confederation = false, pcount_zero = false, experimental = false))]
#[allow(clippy::too_many_arguments)]
pub fn validate(
    py: Python<'_>,
    update: &Bound<'_, PyAny>,
    keys: PyRef<'_, RouterKeys>,
    local_as: u32,
    peer_as: Option<u32>,
    in_confederation: bool,
    pcount_zero: bool,
    experimental: bool,
) -> PyResult<Verdict> {
    let item = Item::of(update)?;
    let keys = keys.snapshot();
    let peer = peer(local_as, peer_as, in_confederation, pcount_zero);
    Ok(py.detach(|| item.verdict(&validator(&*keys, experimental), &peer)))
}

/// [`validate`] of each of `updates` (bytes or `Update`s, any iterable), in order,
/// on `threads` threads (`None`: every core), with the GIL released: other Python
/// threads run meanwhile. Each thread validates chunks of up to [`CHUNK`] UPDATEs,
/// each chunk's signatures verified in one batch ([`verdicts`]).
#[pyfunction]
#[pyo3(signature = (updates, keys, *, local_as, peer_as = None, in_confederation = false, pcount_zero = false, experimental = false, threads = None))]
#[allow(clippy::too_many_arguments)]
pub fn validate_many(
    py: Python<'_>,
    updates: &Bound<'_, PyAny>,
    keys: PyRef<'_, RouterKeys>,
    local_as: u32,
    peer_as: Option<u32>,
    in_confederation: bool,
    pcount_zero: bool,
    experimental: bool,
    threads: Option<usize>,
) -> PyResult<Vec<Verdict>> {
    let items = updates
        .try_iter()?
        .map(|o| Item::of(&o?))
        .collect::<PyResult<Vec<Item>>>()?;
    let keys = keys.snapshot();
    let peer = peer(local_as, peer_as, in_confederation, pcount_zero);
    let threads = threads.unwrap_or_else(par::cores).max(1);
    // Every thread gets a chunk, none longer than CHUNK.
    let chunk = items.len().div_ceil(threads).clamp(1, CHUNK);
    let chunks: Vec<&[Item]> = items.chunks(chunk).collect();
    Ok(py.detach(|| {
        let validator = validator(&*keys, experimental);
        par::Ordered::new(threads)
            .map(&chunks, |chunk| verdicts(chunk, &validator, &peer))
            .into_iter()
            .flatten()
            .collect()
    }))
}
