//! `hopsig replay`: KC-x Tables IV–VI and Fig. 5 from the RIS files of ../shared/data/mrt,
//! its accounting, lazy against strict, and its errors.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;

use common::{stdout, Scratch};

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/mrt")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn json(path: &str) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

const SCHEMES: [&str; 6] = ["none", "bgpsec-ecdsa", "bgr", "kc-rsa", "kc-mt", "hybrid"];

#[test]
fn a_normal_workload_accounts_for_every_announcement_under_every_scheme() {
    let s = Scratch::new();
    let (out, fig) = (s.p("r.json"), s.p("fig5"));
    let said = stdout(&s.ok(&[
        "replay",
        &data("ris-updates.20100722.2015.gz"),
        "--json",
        &out,
        "--out",
        &fig,
    ]));
    assert!(
        said.contains("Table IV") && said.contains("Table V"),
        "{said}"
    );
    assert!(said.contains("paper normal: AS3277") && said.contains("S-BGP (DSA): 0.600 / 3.201"));
    let r = json(&out);
    assert_eq!(r["workload"], "normal");
    assert_eq!(r["mode"], "strict");
    let n = r["table4"]["announcements"].as_u64().unwrap();
    assert!(n >= 10, "the median-rate peer sent {n}");
    let runs = r["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 6);
    for (run, name) in runs.iter().zip(SCHEMES) {
        assert_eq!(run["scheme"], name);
        let out: u64 = run["outgoing_per_second"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(out, n, "{name}: every announcement leaves once");
        let fd = run["forward_delay"]["max_s"].as_f64().unwrap();
        assert!(fd >= 0.0 && run["forward_delay"]["mean_s"].as_f64().unwrap() >= 0.0);
        if name != "none" {
            assert!(run["validate_us"].as_f64().unwrap() > 0.0, "{name}");
            assert!(run["sign_us"].as_f64().unwrap() > 0.0, "{name}");
        }
        let svg = std::fs::read_to_string(format!("{fig}/fig5-normal-{name}.svg")).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.contains("UPDATEs per second"),
            "{name}"
        );
    }
    assert!(
        r["table6"].is_null(),
        "Table VI comes with a RIB dump's reset"
    );
}

#[test]
fn lazy_forwards_sooner_than_strict_under_load() {
    let s = Scratch::new();
    let mut mean = Vec::new();
    for mode in ["strict", "lazy"] {
        let out = s.p(&format!("{mode}.json"));
        s.ok(&[
            "replay",
            &data("ris-updates.20100722.2015.gz"),
            "--workload",
            "busiest",
            "--speedup",
            "200",
            "--schemes",
            "bgpsec-ecdsa",
            "--mode",
            mode,
            "--json",
            &out,
        ]);
        let r = json(&out);
        assert_eq!(r["mode"], mode);
        let run = &r["runs"][0];
        mean.push(run["forward_delay"]["mean_s"].as_f64().unwrap());
        // Lazy validates everything too, after forwarding.
        let validated = run["validate_delay"]["mean_s"].as_f64().unwrap();
        assert!(validated > 0.0);
    }
    // Signing one ECDSA hop costs a tenth of verifying ~4 of them.
    assert!(
        mean[1] < mean[0] / 2.0,
        "lazy {} vs strict {}",
        mean[1],
        mean[0]
    );
}

#[test]
fn a_session_reset_of_a_rib_dump_gives_table_vi() {
    let s = Scratch::new();
    let out = s.p("reset.json");
    let said = stdout(&s.ok(&[
        "replay",
        &data("ris-bview.20020722.2337.gz"),
        "--workload",
        "reset",
        "--limit",
        "3000",
        "--schemes",
        "none,bgr,kc-mt",
        "--kc",
        "paper",
        "--json",
        &out,
    ]));
    assert!(
        said.contains("Table VI") && said.contains("paper AS1221"),
        "{said}"
    );
    let r = json(&out);
    assert_eq!(
        r["table4"]["duration_s"].as_f64().unwrap(),
        0.0,
        "all at once"
    );
    let t6 = &r["table6"];
    let rows = t6["rows"].as_array().unwrap();
    assert!(!rows.is_empty() && rows.len() <= 3);
    assert_eq!(t6["projected"]["rib_entries"], 1_040_000);
    // Two schemes priced (none carries nothing): BGR and KC-MT, more octets for more routes.
    let mb = |row: &serde_json::Value, i: usize| row["mb"][i][1].as_f64().unwrap();
    assert_eq!(rows[0]["mb"].as_array().unwrap().len(), 2);
    assert!(mb(&t6["projected"], 0) > mb(&rows[0], 0));
}

#[test]
fn bad_arguments_and_files_exit_2_naming_the_problem() {
    let s = Scratch::new();
    let f = data("ris-updates.20100722.2015.gz");
    for (args, needle) in [
        (
            vec!["replay", &f, "--schemes", "s-bgp"],
            "unknown scheme 's-bgp'",
        ),
        (
            vec!["replay", &f, "--workload", "slammer"],
            "unknown workload",
        ),
        (vec!["replay", &f, "--mode", "eager"], "unknown mode"),
        (
            vec!["replay", &f, "--kc", "legacy"],
            "unknown KC-x parameter set",
        ),
        (vec!["replay", &f, "--threads", "0"], "--threads 0"),
        (
            vec!["replay", &f, "--workload", "busiest", "--speedup", "0.5"],
            "--speedup",
        ),
        (vec!["replay", &f, "--peer", "64511"], "no peer AS64511"),
        (vec!["replay", "/nonexistent.mrt"], "/nonexistent.mrt"),
    ] {
        s.exits(2, &args, needle);
    }
    let junk = s.write("junk.mrt", b"not an MRT file");
    s.exits(2, &["replay", &junk], "junk.mrt");
}
