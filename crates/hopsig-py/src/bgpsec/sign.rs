//! Signing (RFC 8205 §4): `Signer`, a BGPsec router (its AS and one key per suite),
//! originates a route or forwards a received BGPsec UPDATE with its signature added,
//! through `hopsig_bgp::Signer`; `sign` signs a whole path, each AS in turn.

use std::net::IpAddr;

use hopsig_bgp::packet::{self as wire, AttributeValue, NextHop, Origin, PathAttribute};
use pyo3::prelude::*;

use super::keys::SigningKey;
use super::update::{parse_prefix, Update};
use crate::errors;

/// A BGPsec router: its AS number and one signing key per algorithm suite (at most
/// two: a BGPsec_PATH has one or two Signature_Blocks, RFC 8205 §3).
#[pyclass(module = "hopsig.bgpsec", frozen)]
pub struct Signer {
    inner: hopsig_bgp::Signer<'static>,
}

#[pymethods]
impl Signer {
    /// The router of AS `asn` signing with `key` (a `SigningKey`, or a list of them,
    /// one per suite).
    #[new]
    #[pyo3(signature = (asn, key))]
    fn new(asn: u32, key: &Bound<'_, PyAny>) -> PyResult<Signer> {
        let keys: Vec<PyRef<'_, SigningKey>> = match key.extract::<PyRef<'_, SigningKey>>() {
            Ok(one) => vec![one],
            Err(_) => key.extract()?,
        };
        let mut inner = hopsig_bgp::Signer::new(asn);
        for k in keys {
            let (suite, key) = k.duplicate()?;
            inner = inner
                .with_key(suite, key)
                .map_err(|e| errors::input("bad-argument", format!("AS{asn}: {e}")))?;
        }
        Ok(Signer { inner })
    }

    /// The router's AS number.
    #[getter]
    fn asn(&self) -> u32 {
        self.inner.asn()
    }

    /// The BGPsec UPDATE announcing `prefix` from this router, the origin, to
    /// `target_as` (RFC 8205 §4.1, §4.2): ORIGIN IGP, MP_REACH_NLRI with `next_hop`
    /// (default: 192.0.2.1 or 2001:db8::1, documentation addresses) and BGPsec_PATH.
    #[pyo3(signature = (prefix, *, target_as, next_hop = None, pcount = 1))]
    fn originate(
        &self,
        py: Python<'_>,
        prefix: &str,
        target_as: u32,
        next_hop: Option<&str>,
        pcount: u8,
    ) -> PyResult<Update> {
        let prefix = parse_prefix(prefix)?;
        let next_hop = next_hop_of(next_hop, &prefix)?;
        let hop = hop(target_as, pcount);
        py.detach(|| originate(&self.inner, prefix, next_hop, &hop))
    }

    /// The UPDATE this router sends to `target_as` for the received BGPsec UPDATE
    /// `update` (RFC 8205 §4.2): its Secure_Path Segment and signature added, the
    /// next hop replaced when `next_hop` is given, attributes passed as to an
    /// external peer (RFC 4271 §5).
    #[pyo3(signature = (update, *, target_as, next_hop = None, pcount = 1))]
    fn forward(
        &self,
        py: Python<'_>,
        update: PyRef<'_, Update>,
        target_as: u32,
        next_hop: Option<&str>,
        pcount: u8,
    ) -> PyResult<Update> {
        let next_hop = next_hop.map(parse_next_hop).transpose()?;
        let hop = hop(target_as, pcount);
        let received = &update.inner;
        py.detach(|| forward(&self.inner, received, next_hop, &hop))
    }

    fn __repr__(&self) -> String {
        format!("Signer(asn={})", self.inner.asn())
    }
}

/// A hop toward `target_as` with `pcount`, no Confed_Segment flag.
fn hop(target_as: u32, pcount: u8) -> hopsig_bgp::Hop {
    hopsig_bgp::Hop {
        pcount,
        ..hopsig_bgp::Hop::to(target_as)
    }
}

/// `text` as a next hop.
fn parse_next_hop(text: &str) -> PyResult<NextHop> {
    match text.parse::<IpAddr>() {
        Ok(IpAddr::V4(a)) => Ok(NextHop::V4(a)),
        Ok(IpAddr::V6(a)) => Ok(NextHop::V6(a)),
        Err(e) => Err(errors::input(
            "bad-argument",
            format!("next hop {text:?}: {e}"),
        )),
    }
}

/// The next hop given, or a documentation address of the prefix's family.
fn next_hop_of(text: Option<&str>, prefix: &wire::Prefix) -> PyResult<NextHop> {
    match (text, prefix.addr()) {
        (Some(t), _) => parse_next_hop(t),
        (None, IpAddr::V4(_)) => Ok(NextHop::V4(std::net::Ipv4Addr::new(192, 0, 2, 1))),
        (None, IpAddr::V6(_)) => Ok(NextHop::V6(std::net::Ipv6Addr::new(
            0x2001, 0xdb8, 0, 0, 0, 0, 0, 1,
        ))),
    }
}

/// A signing failure as an `InputError` (reason `sign`).
fn sign_error(asn: u32, e: hopsig_bgp::SignError) -> PyErr {
    errors::input("sign", format!("AS{asn}: {e}"))
}

/// [`hopsig_bgp::Signer::originate`] of `prefix` with ORIGIN IGP.
fn originate(
    signer: &hopsig_bgp::Signer<'_>,
    prefix: wire::Prefix,
    next_hop: NextHop,
    hop: &hopsig_bgp::Hop,
) -> PyResult<Update> {
    let origin = PathAttribute::new(AttributeValue::Origin(Origin::Igp), wire::AsWidth::Four)
        .map_err(|e| errors::input("sign", e))?;
    let nlri = hopsig_bgp::SignedNlri::unicast(prefix);
    let update = signer
        .originate(nlri, next_hop, vec![origin], hop)
        .map_err(|e| sign_error(signer.asn(), e))?;
    Ok(Update {
        inner: update.into_owned(),
        width: wire::AsWidth::Four,
    })
}

/// [`hopsig_bgp::Signer::forward`].
fn forward(
    signer: &hopsig_bgp::Signer<'_>,
    received: &wire::Update<'_>,
    next_hop: Option<NextHop>,
    hop: &hopsig_bgp::Hop,
) -> PyResult<Update> {
    let update = signer
        .forward(received, next_hop, hop)
        .map_err(|e| sign_error(signer.asn(), e))?;
    Ok(Update {
        inner: update.into_owned(),
        width: wire::AsWidth::Four,
    })
}

/// The BGPsec UPDATE of `prefix` signed along `path` (Signers, origin first): the
/// origin originates it toward the next AS, each AS forwards it toward the next, the
/// last toward `target_as` (RFC 8205 §4.2) — what each router on the path would send.
/// The GIL is released while it signs.
#[pyfunction]
#[pyo3(signature = (prefix, path, *, target_as, next_hop = None))]
pub fn sign(
    py: Python<'_>,
    prefix: &str,
    path: Vec<PyRef<'_, Signer>>,
    target_as: u32,
    next_hop: Option<&str>,
) -> PyResult<Update> {
    let prefix = parse_prefix(prefix)?;
    let next_hop = next_hop_of(next_hop, &prefix)?;
    let signers: Vec<&hopsig_bgp::Signer<'static>> = path.iter().map(|s| &s.inner).collect();
    let Some((origin, rest)) = signers.split_first() else {
        return Err(errors::input("bad-argument", "sign: the path has no AS"));
    };
    let targets: Vec<u32> = rest.iter().map(|s| s.asn()).chain([target_as]).collect();
    py.detach(|| {
        let mut update = originate(origin, prefix, next_hop, &hop(targets[0], 1))?;
        for (signer, &target) in rest.iter().zip(&targets[1..]) {
            update = forward(signer, &update.inner, None, &hop(target, 1))?;
        }
        Ok(update)
    })
}
