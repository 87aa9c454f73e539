//! The JSON outputs of docs/spec/json.md (issue 26 §5): every JSON document printed
//! carries the `metadata` block (hopsig version, generation time in Unix seconds and
//! RFC 3339 UTC, command), and the list-like outputs (`bgpsec inspect --json`,
//! `bgpsec validate-mrt --json-lines`) are JSON lines ending with a trailer line that
//! holds the metadata and the counts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{stdout, Scratch};
use serde_json::Value;

/// Checks `v`'s metadata block: this build's version, `command`, a generation time
/// given both ways and agreeing.
fn check_metadata(v: &Value, command: &str) {
    let m = &v["metadata"];
    assert_eq!(m["hopsig"], env!("CARGO_PKG_VERSION"), "{v}");
    assert_eq!(m["command"], command, "{v}");
    let unix = m["generated"].as_i64().unwrap_or_else(|| panic!("{v}"));
    let text = m["generatedTime"].as_str().unwrap_or_else(|| panic!("{v}"));
    // RFC 3339 in UTC, whole seconds: 2026-11-27T02:30:29Z.
    assert_eq!(text.len(), 20, "{text}");
    assert!(text.ends_with('Z') && text.as_bytes()[10] == b'T', "{text}");
    assert_eq!(civil(unix), text, "generated and generatedTime disagree");
}

/// Unix seconds as RFC 3339 UTC (Howard Hinnant's days-to-civil), to check the
/// binary's `time`-crate formatting against an independent computation.
fn civil(unix: i64) -> String {
    let (days, secs) = (unix.div_euclid(86_400), unix.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

#[test]
fn civil_time_matches_known_dates() {
    assert_eq!(civil(0), "1970-01-01T00:00:00Z");
    assert_eq!(civil(951_782_400), "2000-02-29T00:00:00Z");
    assert_eq!(civil(1_798_761_599), "2026-12-31T23:59:59Z");
}

/// Every JSON line of `out`, parsed.
fn lines(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A JSON document printed by a command carries the block, naming the command by its
/// subcommand names only (not its arguments, which may be file names).
#[test]
fn json_documents_carry_the_metadata_block() {
    let s = Scratch::new();
    let o = s.ok(&["kcx", "path", "--variant", "mt", "--hops", "2", "--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    check_metadata(&v, "hopsig kcx path");
    assert_eq!(v["verified"], true, "the document's own fields stay");

    let key = s.keygen("ecdsa-k163", "k");
    let o = s.ok(&["inspect", "--json", &key]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    check_metadata(&v, "hopsig inspect");
    assert_eq!(v["file"], "key");
    assert!(!v["metadata"]["command"].as_str().unwrap().contains(&key));
}

/// `bgpsec inspect --json` on a RIS file: one line per UPDATE, in record order, then
/// the trailer with the metadata and counts that add up to the lines before it.
#[test]
fn bgpsec_inspect_streams_json_lines_with_a_trailer() {
    let s = Scratch::new();
    let mrt = common::mrt("ris-updates.20100722.2015.gz");
    let o = s.ok(&["bgpsec", "inspect", &mrt, "--json"]);
    let all = lines(&stdout(&o));
    let (trailer, records) = all.split_last().unwrap();
    check_metadata(trailer, "hopsig bgpsec inspect");
    assert!(records.iter().all(|r| r.get("metadata").is_none()));
    assert_eq!(trailer["summary"]["updates"], records.len() as u64);
    assert_eq!(trailer["summary"]["malformed_records"], 0);
    assert!(records.len() > 100, "{} UPDATEs", records.len());
    let order: Vec<u64> = records
        .iter()
        .map(|r| r["record"].as_u64().unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "record order");
    // The text form shows the same UPDATEs: its prefix lines are the JSON's elems.
    let text = stdout(&s.ok(&["bgpsec", "inspect", &mrt]));
    let elems: usize = records
        .iter()
        .map(|r| r["elems"].as_array().unwrap().len())
        .sum();
    assert_eq!(text.lines().filter(|l| l.contains('|')).count(), elems);
}

/// A record that does not decode is a JSON line of its own (`record`, `error`) and is
/// counted in the trailer, and the exit status is still 2.
#[test]
fn bgpsec_inspect_reports_bad_records_as_json_lines() {
    let s = Scratch::new();
    // One BGP4MP_MESSAGE_AS4 record (type 16, subtype 4) whose BGP message is cut
    // short: a marker and nothing more.
    let mut body = Vec::new();
    body.extend_from_slice(&65001u32.to_be_bytes());
    body.extend_from_slice(&65002u32.to_be_bytes());
    body.extend_from_slice(&0u16.to_be_bytes()); // interface
    body.extend_from_slice(&1u16.to_be_bytes()); // AFI IPv4
    body.extend_from_slice(&[192, 0, 2, 1, 192, 0, 2, 2]);
    body.extend_from_slice(&[0xff; 16]);
    let mut record = Vec::new();
    record.extend_from_slice(&1_600_000_000u32.to_be_bytes());
    record.extend_from_slice(&16u16.to_be_bytes());
    record.extend_from_slice(&4u16.to_be_bytes());
    record.extend_from_slice(&(body.len() as u32).to_be_bytes());
    record.extend_from_slice(&body);
    let bad = s.write("bad.mrt", &record);
    let o = s.run(&["bgpsec", "inspect", &bad, "--json"]);
    assert_eq!(common::code(&o), 2, "{}", common::text(&o));
    let all = lines(&stdout(&o));
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(all[0]["record"], 0);
    assert!(all[0]["error"].as_str().is_some_and(|e| !e.is_empty()));
    check_metadata(&all[1], "hopsig bgpsec inspect");
    assert_eq!(all[1]["summary"]["malformed_records"], 1);
    assert_eq!(all[1]["summary"]["updates"], 0);
}

/// `validate-mrt --json-lines`: one line per UPDATE validated, in record order, then
/// the trailer whose summary is the `--json` report's; with a signature broken, the
/// line of that UPDATE says why, and the exit status is 1 as without the flag.
#[test]
fn validate_mrt_json_lines_give_every_update_and_the_summary() {
    let s = Scratch::new();
    let (input, out, keys) = (
        common::mrt("ris-updates.20100722.2015.gz"),
        s.p("signed.mrt"),
        s.p("keys"),
    );
    s.ok(&[
        "bgpsec", "sign-mrt", &input, &out, "--suite", "1", "--keys", &keys, "--limit", "40",
    ]);
    let json = format!("{keys}/bgpsec_keys.json");
    let report = s.p("report.json");
    let o = s.ok(&[
        "bgpsec",
        "validate-mrt",
        &out,
        "--keys",
        &json,
        "--threads",
        "2",
        "--json-lines",
        "--json",
        &report,
    ]);
    let all = lines(&stdout(&o));
    let (trailer, updates) = all.split_last().unwrap();
    check_metadata(trailer, "hopsig bgpsec validate-mrt");
    let summary = &trailer["summary"];
    assert_eq!(summary["updates"], updates.len() as u64);
    assert_eq!(summary["valid"], updates.len() as u64);
    assert!(updates.iter().all(|u| u["bgpsec"] == "valid"));
    let signatures: u64 = updates
        .iter()
        .map(|u| u["signatures"].as_u64().unwrap())
        .sum();
    assert_eq!(summary["signatures"], signatures);
    let order: Vec<u64> = updates
        .iter()
        .map(|u| u["record"].as_u64().unwrap())
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "record order");
    // The report file carries the metadata block too, and the same counts.
    let file: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    check_metadata(&file, "hopsig bgpsec validate-mrt");
    assert_eq!(file["updates"], summary["updates"]);

    // The last byte of the file belongs to the last record's UPDATE: that UPDATE is
    // Not Valid (a signature or the message broken), the others stay valid.
    let mut bytes = std::fs::read(&out).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    let broken = s.write("broken.mrt", &bytes);
    let o = s.run(&[
        "bgpsec",
        "validate-mrt",
        &broken,
        "--keys",
        &json,
        "--json-lines",
    ]);
    assert_eq!(common::code(&o), 1, "{}", common::text(&o));
    let all = lines(&stdout(&o));
    let (trailer, updates) = all.split_last().unwrap();
    let bad: Vec<&Value> = updates.iter().filter(|u| u["bgpsec"] != "valid").collect();
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(bad[0]["bgpsec"], "not-valid");
    assert!(bad[0]["reason"].as_str().is_some_and(|r| !r.is_empty()));
    assert!(bad[0]["detail"].as_str().is_some_and(|d| !d.is_empty()));
    assert_eq!(bad[0]["record"], *order.last().unwrap());
    assert_eq!(trailer["summary"]["not_valid"], 1);
    assert!(
        common::stderr(&o).contains("invalid: "),
        "{}",
        common::text(&o)
    );
}
