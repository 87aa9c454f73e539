//! One element or one record as plain Rust values, made with the GIL released and turned
//! into a Python dict after: the fields and formatting of pybgpkit-parser's `Elem`
//! (`Elem.to_dict()`), plus the decoded BGPsec_PATH, and the raw records.

use std::net::IpAddr;

use hopsig_bgp::as_path_equivalent;
use hopsig_bgp::mrt::elems::{bgpsec_path_value, BgpElem, ElemType};
use hopsig_bgp::packet::{AsWidth, BgpsecPath};
use hopsig_bgp::trace::view::PathText;
use hopsig_bgp::trace::{Bgp4mpMessage, MrtRecord};
use hopsig_primitives::codec::Reader;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

/// A Signature Segment (RFC 8205 §3.2): the SKI and the signature.
pub type SignatureSegment = ([u8; 20], Vec<u8>);

/// A decoded BGPsec_PATH (RFC 8205 §3), in wire order (the newest segment first).
#[derive(Debug, Clone)]
pub struct SecurePath {
    /// Secure_Path Segments: pCount, Flags, AS number (§3.1).
    pub segments: Vec<(u8, u8, u32)>,
    /// Signature_Blocks: the Algorithm Suite Identifier, then (SKI, signature) per
    /// Signature Segment (§3.2).
    pub blocks: Vec<(u8, Vec<SignatureSegment>)>,
}

/// One element: pybgpkit-parser's `Elem` fields, as strings and numbers already.
#[derive(Debug, Clone)]
pub struct ElemRow {
    /// The MRT record it came from (index from 0).
    pub record: u64,
    /// Seconds, the microseconds as a fraction (bgpkit's `f64`).
    pub timestamp: f64,
    /// An announcement (`A`) or a withdrawal (`W`).
    pub announce: bool,
    /// The collector's peer.
    pub peer_ip: String,
    /// The peer's AS.
    pub peer_asn: u32,
    /// The peer's BGP Identifier (TABLE_DUMP_V2's peer index table).
    pub peer_bgp_id: Option<String>,
    /// The prefix, `192.0.2.0/24`.
    pub prefix: String,
    /// NEXT_HOP or MP_REACH_NLRI's next hop.
    pub next_hop: Option<String>,
    /// The AS path as bgpkit-parser writes it (sets in braces).
    pub as_path: Option<String>,
    /// The origin AS (the members of a final AS_SET).
    pub origin_asns: Option<Vec<u32>>,
    /// ORIGIN: `IGP`, `EGP`, `INCOMPLETE`.
    pub origin: Option<String>,
    /// LOCAL_PREF.
    pub local_pref: Option<u32>,
    /// MULTI_EXIT_DISC.
    pub med: Option<u32>,
    /// Standard, extended and large communities, as bgpkit-parser writes them.
    pub communities: Option<Vec<String>>,
    /// ATOMIC_AGGREGATE present: pybgpkit-parser writes `"AG"` / `"NAG"`.
    pub atomic: bool,
    /// AGGREGATOR's AS.
    pub aggr_asn: Option<u32>,
    /// AGGREGATOR's address.
    pub aggr_ip: Option<String>,
    /// ONLY_TO_CUSTOMER (RFC 9234 §5).
    pub only_to_customer: Option<u32>,
    /// The raw BGPsec_PATH value, if the route carries one.
    pub bgpsec_raw: Option<Vec<u8>>,
    /// It decoded, or why not.
    pub bgpsec: Option<Result<SecurePath, String>>,
}

impl ElemRow {
    /// The row of `elem`, from record `record`. A BGPsec route, whose AS_PATH
    /// bgpkit-parser leaves empty (it keeps BGPsec_PATH raw), gets the AS_PATH its
    /// Secure_Path stands for (RFC 8205 §4.4) and that path's origin.
    pub fn of(record: u64, elem: BgpElem) -> ElemRow {
        let bgpsec_raw = bgpsec_path_value(&elem).map(<[u8]>::to_vec);
        let decoded = bgpsec_raw.as_deref().map(BgpsecPath::decode);
        let mut as_path = elem.as_path.as_ref().map(ToString::to_string);
        let mut origin_asns = elem
            .origin_asns
            .map(|v| v.into_iter().map(|a| a.to_u32()).collect::<Vec<_>>());
        if let (None, Some(Ok(path))) = (&as_path, &decoded) {
            as_path = Some(PathText(&as_path_equivalent::as_path(path.secure_path())).to_string());
            origin_asns = path.secure_path().last().map(|s| vec![s.asn]);
        }
        let bgpsec = decoded.map(|d| {
            d.map(|path| SecurePath {
                segments: path
                    .secure_path()
                    .iter()
                    .map(|s| (s.pcount, s.flags.0, s.asn))
                    .collect(),
                blocks: path
                    .signature_blocks()
                    .iter()
                    .map(|b| {
                        let sigs = b.segments.iter();
                        (
                            b.suite,
                            sigs.map(|s| (s.ski, s.signature.to_vec())).collect(),
                        )
                    })
                    .collect(),
            })
            .map_err(|e| e.to_string())
        });
        ElemRow {
            record,
            timestamp: elem.timestamp,
            announce: elem.elem_type == ElemType::ANNOUNCE,
            peer_ip: elem.peer_ip.to_string(),
            peer_asn: elem.peer_asn.to_u32(),
            peer_bgp_id: elem.peer_bgp_id.map(|v| v.to_string()),
            prefix: elem.prefix.to_string(),
            next_hop: elem.next_hop.map(|v| v.to_string()),
            as_path,
            origin_asns,
            origin: elem.origin.map(|v| v.to_string()),
            local_pref: elem.local_pref,
            med: elem.med,
            communities: elem
                .communities
                .map(|v| v.iter().map(ToString::to_string).collect()),
            atomic: elem.atomic,
            aggr_asn: elem.aggr_asn.map(|v| v.to_u32()),
            aggr_ip: elem.aggr_ip.map(|v| v.to_string()),
            only_to_customer: elem.only_to_customer.map(|v| v.to_u32()),
            bgpsec_raw,
            bgpsec,
        }
    }

    /// `elem_type` as pybgpkit-parser writes it.
    pub fn elem_type(&self) -> &'static str {
        if self.announce {
            "A"
        } else {
            "W"
        }
    }

    /// `atomic` as pybgpkit-parser writes it.
    pub fn atomic_text(&self) -> &'static str {
        if self.atomic {
            "AG"
        } else {
            "NAG"
        }
    }

    /// The dict: pybgpkit-parser's `Elem.to_dict()` keys, then `bgpsec_path` and
    /// `record`.
    pub fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item(intern!(py, "timestamp"), self.timestamp)?;
        d.set_item(intern!(py, "elem_type"), self.elem_type())?;
        d.set_item(intern!(py, "peer_ip"), &self.peer_ip)?;
        d.set_item(intern!(py, "peer_asn"), self.peer_asn)?;
        d.set_item(intern!(py, "peer_bgp_id"), &self.peer_bgp_id)?;
        d.set_item(intern!(py, "prefix"), &self.prefix)?;
        d.set_item(intern!(py, "next_hop"), &self.next_hop)?;
        d.set_item(intern!(py, "as_path"), &self.as_path)?;
        d.set_item(intern!(py, "origin_asns"), &self.origin_asns)?;
        d.set_item(intern!(py, "origin"), &self.origin)?;
        d.set_item(intern!(py, "local_pref"), self.local_pref)?;
        d.set_item(intern!(py, "med"), self.med)?;
        d.set_item(intern!(py, "communities"), &self.communities)?;
        d.set_item(intern!(py, "atomic"), self.atomic_text())?;
        d.set_item(intern!(py, "aggr_asn"), self.aggr_asn)?;
        d.set_item(intern!(py, "aggr_ip"), &self.aggr_ip)?;
        d.set_item(intern!(py, "only_to_customer"), self.only_to_customer)?;
        let bgpsec = match &self.bgpsec {
            None => None,
            Some(b) => Some(bgpsec_dict(py, b)?),
        };
        d.set_item(intern!(py, "bgpsec_path"), bgpsec)?;
        d.set_item(intern!(py, "record"), self.record)?;
        Ok(d)
    }
}

/// `{"secure_path": [...], "signature_blocks": [...], "error": None}`, or both lists
/// `None` and the decoder's `error` for a BGPsec_PATH that does not decode.
fn bgpsec_dict<'py>(
    py: Python<'py>,
    path: &Result<SecurePath, String>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    match path {
        Err(e) => {
            d.set_item("secure_path", py.None())?;
            d.set_item("signature_blocks", py.None())?;
            d.set_item("error", e)?;
        }
        Ok(p) => {
            let segments = PyList::empty(py);
            for &(pcount, flags, asn) in &p.segments {
                let s = PyDict::new(py);
                s.set_item("pcount", pcount)?;
                s.set_item("flags", flags)?;
                s.set_item("asn", asn)?;
                segments.append(s)?;
            }
            let blocks = PyList::empty(py);
            for (suite, sigs) in &p.blocks {
                let b = PyDict::new(py);
                b.set_item("suite", suite)?;
                let list = PyList::empty(py);
                for (ski, signature) in sigs {
                    let s = PyDict::new(py);
                    s.set_item("ski", PyBytes::new(py, ski))?;
                    s.set_item("signature", PyBytes::new(py, signature))?;
                    list.append(s)?;
                }
                b.set_item("segments", list)?;
                blocks.append(b)?;
            }
            d.set_item("secure_path", segments)?;
            d.set_item("signature_blocks", blocks)?;
            d.set_item("error", py.None())?;
        }
    }
    Ok(d)
}

/// The session fields of a BGP4MP message record (RFC 6396 §4.4.2, §4.4.3).
#[derive(Debug, Clone)]
pub struct Session {
    /// The peer's AS.
    pub peer_asn: u32,
    /// The collector's AS.
    pub local_asn: u32,
    /// The peer's address.
    pub peer_ip: IpAddr,
    /// The collector's address.
    pub local_ip: IpAddr,
    /// The Interface Index.
    pub interface_index: u16,
    /// 2 or 4: the octets of the AS numbers of the record and of the message's AS_PATH.
    pub as_width: u8,
    /// One of the `_LOCAL` subtypes: the collector sent the message.
    pub local: bool,
    /// Where the BGP message starts in the record body.
    pub message_at: usize,
}

/// One MRT record, raw.
#[derive(Debug, Clone)]
pub struct RecordRow {
    /// The record's index, from 0.
    pub record: u64,
    /// Seconds since 1970-01-01 UTC.
    pub timestamp: u32,
    /// The Microsecond Timestamp of a BGP4MP_ET record.
    pub microseconds: Option<u32>,
    /// The common header's Type.
    pub mrt_type: u16,
    /// The common header's Subtype.
    pub subtype: u16,
    /// The body after the common header (and the microseconds of `_ET`).
    pub body: Vec<u8>,
    /// The session, for a BGP4MP message record.
    pub session: Option<Session>,
    /// Why a BGP4MP message record's body does not decode.
    pub error: Option<String>,
}

impl RecordRow {
    /// The row of `bytes`, record `record` whole (header included, as
    /// `hopsig_bgp::trace::Records` gives it).
    ///
    /// # Errors
    /// The common header's error, for a record framed by its Length but too short for
    /// its microseconds.
    pub fn of(record: u64, bytes: &[u8]) -> Result<RecordRow, String> {
        let r = MrtRecord::read(&mut Reader::new(bytes)).map_err(|e| e.to_string())?;
        let (session, error) = match Bgp4mpMessage::decode(&r) {
            Ok(None) => (None, None),
            Err(e) => (None, Some(e.to_string())),
            Ok(Some(m)) => (
                Some(Session {
                    peer_asn: m.peer_as,
                    local_asn: m.local_as,
                    peer_ip: m.peer_ip,
                    local_ip: m.local_ip,
                    interface_index: m.interface_index,
                    as_width: match m.width {
                        AsWidth::Two => 2,
                        AsWidth::Four => 4,
                    },
                    local: m.local,
                    message_at: r.body.len() - m.message.len(),
                }),
                None,
            ),
        };
        Ok(RecordRow {
            record,
            timestamp: r.timestamp,
            microseconds: r.microseconds,
            mrt_type: r.mrt_type,
            subtype: r.subtype,
            body: r.body.to_vec(),
            session,
            error,
        })
    }

    /// The dict of the record (docs/guide/python.md, "MRT").
    pub fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item(intern!(py, "record"), self.record)?;
        d.set_item(intern!(py, "timestamp"), self.timestamp)?;
        d.set_item(intern!(py, "microseconds"), self.microseconds)?;
        d.set_item(intern!(py, "type"), self.mrt_type)?;
        d.set_item(intern!(py, "subtype"), self.subtype)?;
        let s = self.session.as_ref();
        d.set_item(intern!(py, "peer_asn"), s.map(|s| s.peer_asn))?;
        d.set_item(intern!(py, "local_asn"), s.map(|s| s.local_asn))?;
        d.set_item(intern!(py, "peer_ip"), s.map(|s| s.peer_ip.to_string()))?;
        d.set_item(intern!(py, "local_ip"), s.map(|s| s.local_ip.to_string()))?;
        d.set_item(intern!(py, "interface_index"), s.map(|s| s.interface_index))?;
        d.set_item(intern!(py, "as_width"), s.map(|s| s.as_width))?;
        d.set_item(intern!(py, "local"), s.map(|s| s.local))?;
        let message = s.and_then(|s| self.body.get(s.message_at..));
        d.set_item(intern!(py, "message"), message.map(|m| PyBytes::new(py, m)))?;
        d.set_item(intern!(py, "body"), PyBytes::new(py, &self.body))?;
        d.set_item(intern!(py, "error"), &self.error)?;
        Ok(d)
    }
}
