//! `hopsig bgpsec inspect FILE|HEX`: BGP UPDATEs as bgpkit-parser prints routes, with
//! their Secure_Path and signatures (`hopsig_bgp::trace::view`).

use std::path::{Path, PathBuf};

use hopsig_bgp::mrt::bgp4mp::{Bgp4mpMessage, MrtRecord, Records};
use hopsig_bgp::mrt::table_dump_v2::{update_of, PeerIndexTable, RibRecord};
use hopsig_bgp::packet::{AsWidth, BgpsecPath, Message};
use hopsig_bgp::trace::view::{elems, secure_path_text, signatures, Elem, PathText, Session};
use hopsig_schemes::primitives::codec::Reader;

use super::open_mrt;
use crate::io::{at, metadata, note, say, say_json_line, Failure, Outcome};

/// Print UPDATEs as bgpkit-parser does, with their Secure_Path and signatures.
///
/// INPUT is an MRT file (its BGP4MP records, and the routes of TABLE_DUMP_V2 RIB dumps,
/// each shown as the UPDATE that brought it), or one BGP message given in hex (header
/// included; spaces allowed). One line per prefix in bgpkit-parser's pipe
/// format (A|timestamp|peer_ip|peer_asn|prefix|as_path|origin|next_hop|local_pref|
/// med|communities|atomic|aggr_asn|aggr_ip), where a BGPsec UPDATE's as_path is its
/// Secure_Path as AS_PATH (RFC 8205 §4.4); then its Secure_Path (newest first,
/// AS(pCount), C for Confed_Segment) and each signature: suite, AS, SKI, signature.
/// Messages that do not decode are reported and make the exit status 2.
///
/// With --json the output is JSON lines (docs/spec/json.md): one object per UPDATE,
/// `{"record": N, "error": …}` for a record that does not decode, and last a trailer
/// with the `metadata` block and the counts (a stream without it was cut short).
#[derive(clap::Args)]
pub struct Args {
    /// An MRT file (plain or gzip / bzip2 / xz / zstd), or a BGP message in hex.
    input: String,
    /// One JSON object per UPDATE, one per line, then a trailer line with the
    /// metadata and counts (JSON lines).
    #[arg(long)]
    json: bool,
}

/// Prints every UPDATE.
pub fn run(args: Args) -> Outcome {
    let path = PathBuf::from(&args.input);
    if path.exists() {
        return file(&path, args.json);
    }
    let digits: String = args.input.split_whitespace().collect();
    let bytes = hex::decode(&digits).map_err(|_| {
        Failure::Input(format!(
            "'{}' is neither a file nor a BGP message in hex",
            args.input
        ))
    })?;
    let message = Message::decode(&bytes, AsWidth::Four)
        .map_err(|e| Failure::Input(format!("the BGP message does not decode: {e}")))?;
    let updates = show(&message, None, true, None, args.json)?;
    if args.json {
        trailer(updates, 0, 0)?;
    }
    Ok(())
}

/// The last line of `--json`'s stream: the metadata block and what was shown.
fn trailer(updates: u64, other: u64, malformed: u64) -> Outcome {
    say_json_line(&serde_json::json!({
        "metadata": metadata(),
        "summary": {
            "updates": updates,
            "other_records": other,
            "malformed_records": malformed,
        },
    }))
}

/// A record that does not decode: `! record N: why`, or its JSON line.
fn malformed_record(index: u64, e: impl std::fmt::Display, json: bool) -> Outcome {
    if json {
        return say_json_line(&serde_json::json!({"record": index, "error": e.to_string()}));
    }
    say(format_args!("! record {index}: {e}"))
}

/// Every BGP4MP message of the MRT file at `path`, and every route of its RIB
/// records.
fn file(path: &Path, json: bool) -> Outcome {
    let input = open_mrt(path)?;
    let (mut other, mut malformed, mut updates) = (0u64, 0u64, 0u64);
    let mut peers: Option<PeerIndexTable> = None;
    for (index, record) in Records::new(input.reader).enumerate() {
        let record = record.map_err(|e| at(path, e))?;
        let index = index as u64;
        let m = MrtRecord::read(&mut Reader::new(&record)).and_then(|r| Bgp4mpMessage::decode(&r));
        let m = match m {
            Ok(Some(m)) => m,
            Ok(None) => {
                match rib(&record, &mut peers, index, json)? {
                    Ok(Some(shown)) => updates += shown,
                    Ok(None) => other += 1,
                    Err(e) => {
                        malformed += 1;
                        malformed_record(index, e, json)?;
                    }
                }
                continue;
            }
            Err(e) => {
                malformed += 1;
                malformed_record(index, e, json)?;
                continue;
            }
        };
        let session = Session::from(&m);
        match Message::decode(m.message, m.width) {
            Ok(message) => {
                updates += show(
                    &message,
                    Some(session),
                    m.width == AsWidth::Four,
                    Some(index),
                    json,
                )?
            }
            Err(e) => {
                malformed += 1;
                malformed_record(index, e, json)?;
            }
        }
    }
    if json {
        trailer(updates, other, malformed)?;
    }
    if other > 0 {
        note(format_args!(
            "{}: {other} records that are neither BGP4MP messages nor RIB routes (state changes, peer tables) not shown",
            path.display()
        ));
    }
    if malformed > 0 {
        return Err(at(path, format!("{malformed} records do not decode")));
    }
    Ok(())
}

/// A TABLE_DUMP_V2 record (RFC 6396 §4.3): a PEER_INDEX_TABLE is kept in `peers`
/// for the RIB records after it, each of whose routes is shown as the UPDATE that
/// brought it ([`update_of`]), stamped with its Originated Time: how many UPDATEs
/// were shown, `Ok(None)` for any other record, an error for one that does not
/// decode; the outer error is the output's.
fn rib(
    record: &[u8],
    peers: &mut Option<PeerIndexTable>,
    index: u64,
    json: bool,
) -> Result<Result<Option<u64>, String>, Failure> {
    let mut shown = vec![];
    let routes = rib_messages(record, peers, &mut shown);
    let mut updates = 0;
    for (message, session) in &shown {
        updates += show(message, Some(*session), true, Some(index), json)?;
    }
    Ok(routes.map(|rib| rib.then_some(updates)))
}

/// The routes of a RIB record into `shown`, as [`rib`] says.
fn rib_messages(
    record: &[u8],
    peers: &mut Option<PeerIndexTable>,
    shown: &mut Vec<(Message<'static>, Session)>,
) -> Result<bool, String> {
    let mrt = MrtRecord::read(&mut Reader::new(record)).map_err(|e| e.to_string())?;
    if let Some(table) = PeerIndexTable::decode(&mrt).map_err(|e| e.to_string())? {
        *peers = Some(table);
        return Ok(false);
    }
    let Some(rib) = RibRecord::decode(&mrt).map_err(|e| e.to_string())? else {
        return Ok(false);
    };
    let table = peers
        .as_ref()
        .ok_or("a RIB record before any PEER_INDEX_TABLE (RFC 6396 §4.3.1)")?;
    for e in &rib.entries {
        let peer = table
            .peers
            .get(usize::from(e.peer_index))
            .ok_or_else(|| format!("Peer Index {} not in the PEER_INDEX_TABLE", e.peer_index))?;
        let bytes = update_of(&rib.prefix, e.attributes).map_err(|e| e.to_string())?;
        let message = Message::decode(&bytes, AsWidth::Four).map_err(|e| e.to_string())?;
        let session = Session {
            timestamp: e.originated,
            microseconds: None,
            peer_ip: peer.ip,
            peer_as: peer.asn,
        };
        shown.push((message.into_owned(), session));
    }
    Ok(true)
}

/// Prints one message's UPDATE (other messages print nothing); how many UPDATEs it
/// printed (0 or 1).
fn show(
    message: &Message<'_>,
    session: Option<Session>,
    four_octet: bool,
    record: Option<u64>,
    json: bool,
) -> Result<u64, Failure> {
    let Message::Update(update) = message else {
        return Ok(0);
    };
    let lines = elems(update, session, four_octet);
    let path = update.bgpsec_path();
    if json {
        let mut v = serde_json::json!({
            "elems": lines.iter().map(elem_json).collect::<Vec<_>>(),
        });
        if let Some(r) = record {
            v["record"] = r.into();
        }
        if let Some(p) = path {
            v["bgpsec_path"] = bgpsec_json(p);
        }
        return say_json_line(&v).map(|()| 1);
    }
    for e in &lines {
        say(e)?;
    }
    if let Some(p) = path {
        say(format_args!("  secure_path: {}", secure_path_text(p)))?;
        for s in signatures(p) {
            say(format_args!(
                "  signature: suite {} ({}) AS {} SKI {} {}",
                s.suite,
                s.suite_name.unwrap_or("unknown"),
                s.asn,
                s.ski,
                s.signature
            ))?;
        }
    }
    Ok(1)
}

fn elem_json(e: &Elem) -> serde_json::Value {
    serde_json::json!({
        "type": if e.announce { "A" } else { "W" },
        "timestamp": e.timestamp(),
        "peer_ip": e.session.map(|s| s.peer_ip.to_string()),
        "peer_asn": e.session.map(|s| s.peer_as),
        "prefix": format!("{}/{}", e.prefix.addr(), e.prefix.length()),
        "as_path": e.as_path.as_ref().map(|p| PathText(p).to_string()),
        "origin": e.origin,
        "next_hop": e.next_hop.map(|a| a.to_string()),
        "local_pref": e.local_pref,
        "med": e.med,
        "communities": e.communities,
        "atomic": e.atomic,
        "aggr_asn": e.aggregator.map(|(asn, _)| asn),
        "aggr_ip": e.aggregator.map(|(_, ip)| ip.to_string()),
    })
}

fn bgpsec_json(p: &BgpsecPath<'_>) -> serde_json::Value {
    serde_json::json!({
        "secure_path": p.secure_path().iter().map(|s| serde_json::json!({
            "asn": s.asn, "pcount": s.pcount, "confed_segment": s.flags.confed_segment(),
            "flags": s.flags.0,
        })).collect::<Vec<_>>(),
        "signatures": signatures(p).iter().map(|s| serde_json::json!({
            "suite": s.suite, "suite_name": s.suite_name, "asn": s.asn,
            "ski": s.ski, "signature": s.signature,
        })).collect::<Vec<_>>(),
    })
}
