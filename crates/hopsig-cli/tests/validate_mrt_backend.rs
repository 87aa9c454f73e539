//! Which verifier validated (issue 28; docs/spec/bgpsec.md, "Many UPDATEs at once,
//! and which verifier validated"): `validate-mrt` names the batch backend that
//! verified suite 1's signatures in its `--json` report (`backend`) and its summary
//! line — the one the library picks in this environment (`avx512ifma` where the CPU
//! has AVX-512 IFMA and the backend is built, `cpu` otherwise) —,
//! `HOPSIG_CPU_DISABLE=avx512ifma` makes it `cpu`, and the verdicts are the same
//! with either.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{stdout, Scratch};
use hopsig_schemes::batch::{default_backend, Signatures};
use hopsig_schemes::concat::EcdsaP256;
use serde_json::Value;

/// `validate-mrt FILE --keys KEYS --json REPORT` with `disable` as
/// `HOPSIG_CPU_DISABLE` (or the environment's): its exit status, report and stdout.
fn validate(
    s: &Scratch,
    file: &str,
    keys: &str,
    disable: Option<&str>,
    name: &str,
) -> (i32, Value, String) {
    let report = s.p(name);
    let mut c = s.cmd(&[
        "bgpsec",
        "validate-mrt",
        file,
        "--keys",
        keys,
        "--threads",
        "2",
        "--json",
        &report,
    ]);
    if let Some(d) = disable {
        c.env("HOPSIG_CPU_DISABLE", d);
    }
    let o = c.output().unwrap();
    let json: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    (common::code(&o), json, stdout(&o))
}

/// The counts two runs must agree on.
fn verdicts(v: &Value) -> Value {
    serde_json::json!([
        v["updates"],
        v["valid"],
        v["not_valid_by_reason"],
        v["signatures"],
        v["first_failures"]
    ])
}

#[test]
fn validate_mrt_names_the_backend_and_verdicts_do_not_depend_on_it() {
    let s = Scratch::new();
    let (input, out, keys) = (
        common::mrt("ris-updates.20100722.2015.gz"),
        s.p("signed.mrt"),
        s.p("keys"),
    );
    s.ok(&[
        "bgpsec", "sign-mrt", &input, &out, "--suite", "1", "--keys", &keys, "--limit", "300",
    ]);
    let json = format!("{keys}/bgpsec_keys.json");
    // The library's choice here, as the binary makes it in the same environment.
    let chosen = default_backend::<Signatures<EcdsaP256>>().name();
    let (code, fast, said) = validate(&s, &out, &json, None, "default.json");
    assert_eq!(code, 0, "{said}");
    assert_eq!(fast["backend"], chosen, "{fast}");
    let line = said.lines().find(|l| l.starts_with("validated: ")).unwrap();
    assert!(line.ends_with(&format!(", backend {chosen}")), "{line}");
    let (code, cpu, said) = validate(&s, &out, &json, Some("avx512ifma"), "cpu.json");
    assert_eq!(code, 0, "{said}");
    assert_eq!(cpu["backend"], "cpu", "{cpu}");
    assert_eq!(verdicts(&cpu), verdicts(&fast));
    assert_eq!(fast["valid"], fast["updates"]);

    // The last octet of every seventh record broken (its UPDATE's last octet, in
    // the origin's signature): the same UPDATEs fail the same way with either
    // backend.
    let mut bytes = std::fs::read(&out).unwrap();
    let (mut at, mut n) = (0, 0);
    while at + 12 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
        let end = at + 12 + len;
        if n % 7 == 3 {
            bytes[end - 1] ^= 0x21;
        }
        (at, n) = (end, n + 1);
    }
    let broken = s.write("broken.mrt", &bytes);
    let (code, fast, said) = validate(&s, &broken, &json, None, "broken-default.json");
    assert_eq!(code, 1, "{said}");
    let (_, cpu, _) = validate(&s, &broken, &json, Some("all"), "broken-cpu.json");
    assert_eq!(cpu["backend"], "cpu");
    assert_eq!(verdicts(&cpu), verdicts(&fast));
    assert!(fast["not_valid"].as_u64().unwrap() > 0, "{fast}");
}
