//! hopsig's route origin validation (RFC 6811 §2) and ASPA path verification
//! (draft-ietf-sidrops-aspa-verification-28 §5) against an independent implementation.
//!
//! `interop/python/rpki_reference.py` was written from the RFC and the draft alone
//! (stdlib Python, by another engineer, without reading hopsig's code). Random cases —
//! VRPs and ASPAs over a small address and AS space, so that covering, maxLength
//! boundaries, AS 0, several ASPAs of one customer (the U-SPAS), AS0 ASPAs, prepends,
//! AS_SETs, empty paths and every neighbour relation all occur — go to it in the
//! exchange format of docs/spec/rpki.md; its verdicts must equal hopsig's on every one.
//! Without Python or the script the test says it skips; under `CI` it fails.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::process::Command;

use hopsig_bgp::packet::iana::AsPathSegmentType;
use hopsig_bgp::packet::{AsPath, AsPathSegment, Prefix};
use hopsig_bgp::rpki::aspa::Relation;
use hopsig_bgp::rpki::payload::{Aspa, Payload, RouteOrigin};
use hopsig_bgp::rpki::view::View;
use hopsig_bgp::rpki::{Limits, PayloadSet};
use hopsig_testkit::rng::SplitMix64;
use hopsig_testkit::{python, root};
use rpki::resources::addr::MaxLenPrefix;
use rpki::resources::Asn;
use rpki::rtr::pdu::ProviderAsns;
use serde_json::{json, Value};

/// A prefix in 10.0.0.0/14 or 2001:db8::/38 and around, so that VRPs cover routes often.
fn prefix(rng: &mut SplitMix64) -> (IpAddr, u8) {
    if rng.chance(70) {
        let len = 6 + rng.below(27) as u8;
        let a = 0x0a00_0000u32 | (rng.next_u64() as u32 & 0x0003_ff00);
        let a = a & (u32::MAX << (32 - u32::from(len)));
        (IpAddr::V4(Ipv4Addr::from(a)), len)
    } else {
        let len = 24 + rng.below(41) as u8;
        let a = (0x2001_0db8u128 << 96) | (u128::from(rng.next_u64() as u32 & 0x3ff) << 70);
        let a = a & (u128::MAX << (128 - u32::from(len)));
        (IpAddr::V6(Ipv6Addr::from(a)), len)
    }
}

fn asn(rng: &mut SplitMix64) -> u32 {
    // AS 0 now and then (an AS 0 VRP; AS 0 as a provider is an AS0 ASPA), a 4-octet AS.
    match rng.below(20) {
        0 => 0,
        1 => 4_200_000_000,
        n => n as u32,
    }
}

/// One batch: the JSON for the reference and hopsig's view of the same data.
struct Batch {
    doc: Value,
    view: View,
    routes: Vec<(Prefix, AsPath, Relation)>,
}

fn batch(rng: &mut SplitMix64, routes: usize) -> Batch {
    let limits = Limits::default();
    let mut vrps_json = Vec::new();
    let mut files = PayloadSet::new();
    for _ in 0..(20 + rng.below(200)) {
        let (addr, len) = prefix(rng);
        let width = if addr.is_ipv4() { 32 } else { 128 };
        let max = if rng.chance(15) {
            None
        } else {
            Some((len + rng.below(9) as u8).min(width))
        };
        let a = asn(rng);
        let p = rpki::resources::addr::Prefix::new(addr, len).unwrap();
        let origin = RouteOrigin::new(
            MaxLenPrefix::new(p, Some(max.unwrap_or(len))).unwrap(),
            Asn::from_u32(a),
        );
        files.insert(Payload::Origin(origin), &limits).unwrap();
        let mut v = json!({ "prefix": format!("{addr}/{len}"), "asn": a });
        if let Some(max) = max {
            v["maxLength"] = json!(max);
        }
        vrps_json.push(v);
    }
    // ASPAs: a customer's second ASPA goes to the "cache" set, so that the view unites
    // them (U-SPAS) as the reference does from its list.
    let mut aspas_json = Vec::new();
    let mut rtr = PayloadSet::new();
    for _ in 0..rng.below(25) {
        let customer = 1 + rng.below(19) as u32;
        let providers: Vec<u32> = if rng.chance(10) {
            vec![0]
        } else {
            (0..1 + rng.below(3)).map(|_| asn(rng)).collect()
        };
        let item = Payload::Aspa(Aspa::new(
            Asn::from_u32(customer),
            ProviderAsns::try_from_iter(providers.iter().map(|p| Asn::from_u32(*p))).unwrap(),
        ));
        let seen = files.aspas().any(|a| a.customer.into_u32() == customer);
        let into = if seen { &mut rtr } else { &mut files };
        if into.aspas().any(|a| a.customer.into_u32() == customer) {
            continue; // at most two ASPAs per customer
        }
        into.insert(item, &limits).unwrap();
        aspas_json.push(json!({ "customer": customer, "providers": providers }));
    }
    let view = View::build(&files, &rtr, &[], &limits).unwrap();
    let mut list = Vec::new();
    let mut routes_json = Vec::new();
    for i in 0..routes {
        let (addr, len) = prefix(rng);
        let mut asns: Vec<u32> = Vec::new();
        for _ in 0..rng.below(7) {
            let a = asn(rng);
            asns.push(a);
            while rng.chance(15) {
                asns.push(a); // prepending
            }
        }
        let mut segments = Vec::new();
        if !asns.is_empty() {
            segments.push(AsPathSegment {
                kind: AsPathSegmentType::AsSequence,
                asns,
            });
        }
        if rng.chance(7) {
            let set: Vec<u32> = (0..1 + rng.below(3)).map(|_| asn(rng)).collect();
            segments.push(AsPathSegment {
                kind: AsPathSegmentType::AsSet,
                asns: set,
            });
            if rng.chance(40) {
                // An AS_SET that is not the final segment.
                segments.push(AsPathSegment {
                    kind: AsPathSegmentType::AsSequence,
                    asns: vec![asn(rng)],
                });
            }
        }
        let relation = Relation::ALL[i % Relation::ALL.len()];
        let path = AsPath { segments };
        let as_path: Vec<Value> = path
            .segments
            .iter()
            .map(|s| {
                let kind = if s.kind == AsPathSegmentType::AsSet {
                    "set"
                } else {
                    "sequence"
                };
                json!({ "type": kind, "asns": s.asns })
            })
            .collect();
        routes_json.push(json!({
            "prefix": format!("{addr}/{len}"),
            "as_path": as_path,
            "relation": relation.name(),
        }));
        list.push((Prefix::new(addr, len).unwrap(), path, relation));
    }
    Batch {
        doc: json!({ "vrps": vrps_json, "aspas": aspas_json, "routes": routes_json }),
        view,
        routes: list,
    }
}

#[test]
fn rov_and_aspa_verdicts_equal_the_python_reference() {
    let script = root().join("interop/python/rpki_reference.py");
    if !script.is_file() {
        if std::env::var_os("CI").is_some() {
            panic!(
                "CI requires {} (engineer refimpl's reference)",
                script.display()
            );
        }
        eprintln!("skipped: {} is missing", script.display());
        return;
    }
    let Some(py) = python("json, ipaddress") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SplitMix64::new(0x6811_0028);
    let (mut cases, mut mismatches) = (0usize, Vec::new());
    let mut seen = std::collections::HashSet::new();
    for b in 0..6 {
        let batch = batch(&mut rng, 400);
        let file = dir.path().join(format!("cases-{b}.json"));
        std::fs::write(&file, serde_json::to_vec(&batch.doc).unwrap()).unwrap();
        let out = Command::new(&py).arg(&script).arg(&file).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let reply: Value = serde_json::from_slice(&out.stdout).unwrap();
        let verdicts = reply["verdicts"].as_array().unwrap();
        assert_eq!(verdicts.len(), batch.routes.len());
        for (i, ((prefix, path, relation), want)) in batch.routes.iter().zip(verdicts).enumerate() {
            let rov = batch.view.rov(prefix, path);
            let aspa = batch.view.aspa(path, *relation);
            seen.insert((rov.state, aspa.state, *relation));
            cases += 1;
            if want["rov"] != rov.state.name() || want["aspa"] != aspa.state.name() {
                mismatches.push(format!(
                    "batch {b} route {i}: {}\n  reference {want}\n  hopsig rov {} ({})\n  hopsig aspa {} ({})",
                    batch.doc["routes"][i], rov.state, rov.reason, aspa.state, aspa.reason
                ));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {cases} cases differ:\n{}",
        mismatches.len(),
        mismatches
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(cases >= 2000, "{cases}");
    // The cases reach every verdict of both kinds under every relation.
    use hopsig_bgp::rpki::aspa::AspaState;
    use hopsig_bgp::rpki::rov::RovState;
    for r in Relation::ALL {
        for s in [RovState::Valid, RovState::Invalid, RovState::NotFound] {
            assert!(
                seen.iter().any(|(rov, _, rel)| *rov == s && *rel == r),
                "{s} {r}"
            );
        }
        for s in [AspaState::Valid, AspaState::Invalid, AspaState::Unknown] {
            assert!(
                seen.iter().any(|(_, a, rel)| *a == s && *rel == r),
                "{s} {r}"
            );
        }
    }
}
