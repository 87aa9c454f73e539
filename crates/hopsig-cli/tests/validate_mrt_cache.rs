//! `hopsig bgpsec validate-mrt --signature-cache` (issue 25 §3): the same verdicts with
//! the cache on (the default), tiny (evicting all the time) and off, on a signed file
//! whose UPDATEs come again, then once more with their newest signature tampered;
//! the summary and the JSON count the signatures checked and verified.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{stdout, Scratch};
use serde_json::Value;

/// (offset, length) of each MRT record (12-octet header, length at octets 8–11).
fn records(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let len = u32::from_be_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        out.push((at, 12 + len));
        at += 12 + len;
    }
    out
}

#[test]
fn verdicts_are_the_same_with_and_without_the_cache() {
    let s = Scratch::new();
    let (out, keys) = (s.p("signed.mrt"), s.p("keys"));
    s.ok(&[
        "bgpsec",
        "sign-mrt",
        &common::mrt("ris-updates.20100722.2015.gz"),
        &out,
        "--suite",
        "1",
        "--keys",
        &keys,
        "--limit",
        "700",
    ]);
    let json = format!("{keys}/bgpsec_keys.json");
    let signed = std::fs::read(&out).unwrap();
    // The file, the file again (every signature seen before), the file with every
    // 5th UPDATE's last octet (in its newest signature) flipped.
    let mut tampered = signed.clone();
    let mut flipped = 0u64;
    for (at, len) in records(&signed).iter().step_by(5) {
        tampered[at + len - 1] ^= 0x01;
        flipped += 1;
    }
    let file = s.write("three.mrt", [&signed[..], &signed, &tampered].concat());

    let run = |name: &str, cache: Option<&str>| -> (String, Value) {
        let report = s.p(name);
        let mut args = vec![
            "bgpsec",
            "validate-mrt",
            &file,
            "--keys",
            &json,
            // One thread: every check of a copy comes after the same check of the
            // copy before, so the hits are exact.
            "--threads",
            "1",
            "--json",
            &report,
        ];
        if let Some(size) = cache {
            args.extend(["--signature-cache", size]);
        }
        let o = s.exits(1, &args, "invalid: ");
        let r = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        (stdout(&o), r)
    };
    let (said_on, on) = run("on.json", None);
    let (said_off, off) = run("off.json", Some("0"));
    let (_, tiny) = run("tiny.json", Some("1KiB"));

    for r in [&off, &tiny] {
        for field in [
            "records",
            "updates",
            "valid",
            "not_valid",
            "not_valid_by_reason",
            "skipped",
            "signatures",
            "first_failures",
        ] {
            assert_eq!(r[field], on[field], "{field}");
        }
    }
    assert_eq!(on["not_valid_by_reason"]["bad_signature"], flipped);

    let (c_on, c_off, c_tiny) = (
        &on["signature_cache"],
        &off["signature_cache"],
        &tiny["signature_cache"],
    );
    // Every run checks the same signatures; the cache changes how many are verified.
    let checked = c_off["lookups"].as_u64().unwrap();
    assert_eq!(checked % 3, 0);
    assert_eq!(c_on["lookups"], checked);
    assert_eq!(c_tiny["lookups"], checked);
    assert_eq!(
        (&c_off["hits"], &c_off["verified"]),
        (&0.into(), &checked.into())
    );
    // The second copy hits every check. The third misses every check of a flipped
    // UPDATE: the last octet is in the origin's signature (the block lists the newest
    // first), which every later hop signed (RFC 8205 §4.2, Figure 8), so each hop's
    // octets changed. `signatures` counts the segments of the valid UPDATEs: 3 × once
    // less those of the flipped ones.
    let once = checked / 3;
    let missed = 3 * once - on["signatures"].as_u64().unwrap();
    assert!(missed >= flipped);
    assert_eq!(c_on["hits"], 2 * once - missed, "{c_on}");
    assert_eq!(c_on["verified"], once + missed, "{c_on}");
    assert_eq!(c_on["entries"], once, "only verified checks are kept");
    assert_eq!(c_on["evictions"], 0);
    assert_eq!(c_on["budget_bytes"], 64 << 20);
    // 1 KiB holds four checks: evicting, fewer hits, same verdicts.
    assert!(c_tiny["evictions"].as_u64().unwrap() > 0, "{c_tiny}");
    assert!(c_tiny["bytes"].as_u64().unwrap() <= 1024, "{c_tiny}");
    assert!(c_tiny["hits"].as_u64().unwrap() < 2 * once - missed);

    assert!(
        said_on.contains(&format!(
            "signature cache: 64 MiB: {checked} signatures checked, {} verified, {} hits",
            once + missed,
            2 * once - missed
        )),
        "{said_on}"
    );
    assert!(
        said_off.contains(&format!(
            "signature cache: off: {checked} signatures checked, {checked} verified"
        )),
        "{said_off}"
    );
    // A size that is not one is bad usage.
    s.exits(
        2,
        &[
            "bgpsec",
            "validate-mrt",
            &file,
            "--keys",
            &json,
            "--signature-cache",
            "lots",
        ],
        "--signature-cache",
    );
}
