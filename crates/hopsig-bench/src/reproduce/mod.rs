//! `hopsig reproduce`: each paper table beside the one measured here, a markdown report
//! and SVG plots.

pub mod svg;

use std::fmt::Write as _;

use crate::replay::Reproduction as Replays;
use crate::suites::ndn::NdnBench;
use crate::suites::pla::PlaBench;
use crate::suites::{to_json, Options, Table1, Table2, Table3, Table5};
use crate::Error;
use svg::{line_chart, Series};

/// Source of the quoted figures.
const SOURCE: &str = "Brogle, Goldberg, Reyzin, full version (2014), Table 1 \
(../shared/papers/002_fe9b172b3cf64b03.txt; Core i3 2.4 GHz laptop, OpenSSL, SHA-256, e = 65537; BGLS with MIRACL on BN-128)";

/// One column of the paper's Table 1.
struct PaperColumn {
    name: &'static str,
    scheme: Option<&'static str>,
    size_formula: &'static str,
    bits: [f64; 2],
    sign_ms: f64,
    verify_ms: [f64; 2],
    security: &'static str,
}

/// The paper's Table 1, quoted: n = 4.5 and n = 7.
const PAPER: [PaperColumn; 4] = [
    PaperColumn {
        name: "2048-bit RSA",
        scheme: Some("rsa2048-concat"),
        size_formula: "2048n",
        bits: [9216.0, 14336.0],
        sign_ms: 11.8,
        verify_ms: [1.3, 2.1],
        security: "112-bit",
    },
    PaperColumn {
        name: "Our scheme (BGR)",
        scheme: Some("bgr-rsa2048"),
        size_formula: "2304 + 129n",
        bits: [2885.0, 3207.0],
        sign_ms: 11.9,
        verify_ms: [1.3, 2.1],
        security: "112-bit",
    },
    PaperColumn {
        name: "256-bit ECDSA",
        scheme: Some("ecdsa-p256-concat"),
        size_formula: "512n",
        bits: [2304.0, 3584.0],
        sign_ms: 2.3,
        verify_ms: [12.5, 19.4],
        security: "128-bit",
    },
    PaperColumn {
        name: "256-bit BGLS",
        scheme: Some("bls12381-bgls"),
        size_formula: "257",
        bits: [257.0, 257.0],
        sign_ms: 1.9,
        verify_ms: [47.6, 64.8],
        security:
            "paper BN-256: ~100-bit today; measured BLS12-381 (768-bit G2 signature): ~120-bit",
    },
];

/// Source of the quoted Table 5.
const SOURCE5: &str = "Asami et al., ICN'15, Table 5 (../shared/papers/004_39137e5ded6fa75a.txt; \
Core i7-3520M 2.9 GHz, ndn-cxx, PBC library for IBAS)";

/// One row of 004 Table 5, quoted (ms), with the measured row it compares with.
struct PaperRow5 {
    name: &'static str,
    security: &'static str,
    measured: &'static str,
    ms: [f64; 3],
}

const PAPER5: [PaperRow5; 7] = [
    PaperRow5 {
        name: "IBAS(512,160)",
        security: "~80-bit (PBC type A, 160-bit r, 1024-bit GT)",
        measured: "IBAS BLS12-381",
        ms: [7.53, 21.5, 21.5],
    },
    PaperRow5 {
        name: "IBAS(224,112)",
        security: "paper: like RSA-2048; its 448-bit GT makes it far weaker",
        measured: "IBAS BLS12-381",
        ms: [2.46, 4.95, 4.10],
    },
    PaperRow5 {
        name: "ECDSA-384",
        security: "192-bit",
        measured: "ECDSA P-384",
        ms: [2.15, 7.04, 5.38],
    },
    PaperRow5 {
        name: "ECDSA-256",
        security: "128-bit",
        measured: "ECDSA P-256",
        ms: [1.05, 4.33, 2.55],
    },
    PaperRow5 {
        name: "RSA-4096",
        security: "128-bit (SP 800-57: ≥ 128, < 192)",
        measured: "RSA-4096",
        ms: [10.2, 10.4, 0.446],
    },
    PaperRow5 {
        name: "RSA-2048",
        security: "112-bit",
        measured: "RSA-2048",
        ms: [2.08, 2.04, 0.307],
    },
    PaperRow5 {
        name: "RSA-1024",
        security: "80-bit",
        measured: "RSA-1024",
        ms: [0.738, 0.841, 0.246],
    },
];

/// Source of the quoted PLA tables.
const SOURCE2: &str = "Brumley, Implementing Cryptography for Packet Level Authentication, Tables I and II \
(../shared/papers/003_799469426264b76e.txt; Athlon 1.0 GHz, OpenSSL 0.9.8g modified with LD coordinates and τNAF, K-163)";

fn side_by_side2(t: &Table2) -> String {
    let mut s = String::new();
    let Some(k) = t.rows.first() else {
        return s;
    };
    let _ = writeln!(s, "| K-163 operation | paper, unmodified OpenSSL ms | paper, modified OpenSSL ms | measured: OpenSSL 3 ms | measured: hopsig ms |");
    let _ = writeln!(s, "|---|---|---|---|---|");
    let rows = [
        (
            "Sign",
            4.104,
            2.374,
            format!("{:.3}", k.openssl_sign_us / 1e3),
            k.sign_us,
        ),
        (
            "Extract",
            4.214,
            2.472,
            "not available".to_string(),
            k.extract_us,
        ),
        (
            "Verify",
            8.289,
            4.376,
            format!("{:.3}", k.openssl_verify_us / 1e3),
            k.verify_us,
        ),
        (
            "Extract+Verify",
            25.461,
            5.966,
            "not available".to_string(),
            k.fused_us,
        ),
    ];
    for (name, un, modi, ossl, ours) in rows {
        let _ = writeln!(s, "| {name} | {un} | {modi} | {ossl} | {:.3} |", ours / 1e3);
    }
    let _ = writeln!(
        s,
        "\nTable I (per-packet cryptographic bits, K-163): certificate-based PKI 816, implicit certificates 490. \
         hopsig's PLA header carries the same fields (`PlaHeader::table1_bits` gives 816 / 490; byte-aligned on the wire, 119 / 77 bytes). \
         Security (constants, not measured): K-163 ≈ 80-bit (as the paper), K-233 ≈ 112-bit, K-283 ≈ 128-bit."
    );
    s
}

/// Source of the quoted KC-x tables.
const SOURCE3: &str = "Yin, Sheng, Wang, Pan, Securing BGP through Keychain-based Signatures, Tables I and III \
(../shared/papers/001_6c82275833a4b9d2.txt; Pentium 4 1.8 GHz, DSA-1024 with precomputation for S-BGP, RSA-1024, AES-based HORS)";

/// One row of KC-x Table III (µs) with its Table I claims and the measured row.
struct PaperRow3 {
    name: &'static str,
    sign_us: f64,
    verify_us: f64,
    table1: &'static str,
    measured: Option<&'static str>,
}

const PAPER3: [PaperRow3; 4] = [
    PaperRow3 {
        name: "S-BGP (DSA; measured: ECDSA P-256)",
        sign_us: 30.0,
        verify_us: 4607.0,
        table1: "speed lowest; memory > SAS-V; weak incremental benefit",
        measured: Some("S-BGP"),
    },
    PaperRow3 {
        name: "SPV",
        sign_us: 703.0,
        verify_us: 191.0,
        table1: "13×; memory largest; strong",
        measured: None,
    },
    PaperRow3 {
        name: "SAS-V / KC-RSA (RSA-1024)",
        sign_us: 6800.0,
        verify_us: 350.0,
        table1: "2×; memory smallest; strong (KC-RSA)",
        measured: Some("KC-RSA (RSA-1024)"),
    },
    PaperRow3 {
        name: "KC-MT",
        sign_us: 90.0,
        verify_us: 111.0,
        table1: "34×; memory < SPV; strong",
        measured: Some("KC-MT (512"),
    },
];

fn side_by_side3(t: &Table3) -> String {
    let mut s = String::new();
    let paper_sbgp = 3.7 * PAPER3[0].verify_us + PAPER3[0].sign_us;
    let measured_sbgp = t.row("S-BGP").map_or(f64::NAN, |r| r.cost_paper_l_us);
    let _ = writeln!(s, "| scheme | Table I (paper) | sign µs: paper | measured | verify µs: paper | measured | C(3.7) µs: paper | measured | speed-up over S-BGP: paper | measured | C(today's L = {}) µs measured |", t.today_l.map_or("n/a".into(), |l| format!("{l:.2}")));
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|");
    for p in &PAPER3 {
        let c = 3.7 * p.verify_us + p.sign_us;
        let row = p.measured.and_then(|m| t.row(m));
        let (ms, mv, mc, mx, mt) = row.map_or_else(
            || {
                (
                    "not measured".to_string(),
                    "not measured".to_string(),
                    "not measured".to_string(),
                    "not measured".to_string(),
                    "not measured".to_string(),
                )
            },
            |r| {
                (
                    format!("{:.1}", r.sign_us),
                    format!("{:.1}", r.verify_us),
                    format!("{:.1}", r.cost_paper_l_us),
                    format!("{:.1}×", measured_sbgp / r.cost_paper_l_us),
                    r.cost_today_l_us
                        .map_or("n/a".into(), |c| format!("{c:.1}")),
                )
            },
        );
        let _ = writeln!(
            s,
            "| {} | {} | {} | {ms} | {} | {mv} | {:.0} | {mc} | {:.1}× | {mx} | {mt} |",
            p.name,
            p.table1,
            p.sign_us,
            p.verify_us,
            c,
            paper_sbgp / c
        );
    }
    s
}

fn side_by_side5(t: &Table5) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "| paper row | paper security (constant) | publisher ms: paper | measured | moderator ms: paper | measured | subscriber ms: paper | measured | measured as (security, constant) |");
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
    for p in &PAPER5 {
        let Some(r) = t.rows.iter().find(|r| r.scheme == p.measured) else {
            continue;
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.3} | {} | {:.3} | {} | {:.3} | {} ({}-bit, constant) |",
            p.name,
            p.security,
            p.ms[0],
            r.publisher_us / 1e3,
            p.ms[1],
            r.moderator_us / 1e3,
            p.ms[2],
            r.subscriber_us / 1e3,
            r.scheme,
            r.security_bits
        );
    }
    s
}

fn side_by_side(t: &Table1) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "| scheme | security (constant) | n | size bits: paper | measured | sign ms: paper | measured | verify ms: paper | measured |");
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
    for col in &PAPER {
        for (i, n) in [4.5, 7.0].into_iter().enumerate() {
            let row = col.scheme.and_then(|id| t.row(id, n));
            let (bits, sign, verify) = match row {
                Some(r) => (
                    format!("{:.0}", r.sig_bits),
                    format!("{:.3}", r.sign_us / 1e3),
                    format!("{:.3}", r.verify_us / 1e3),
                ),
                None => {
                    let why = "not measured".to_string();
                    (why.clone(), why.clone(), why)
                }
            };
            let _ = writeln!(
                s,
                "| {} ({}) | {} | {n} | {:.0} | {bits} | {} | {sign} | {} | {verify} |",
                col.name,
                col.size_formula,
                col.security,
                col.bits[i],
                col.sign_ms,
                col.verify_ms[i]
            );
        }
    }
    s
}

fn series(t: &Table1, value: fn(&crate::suites::Row) -> f64) -> Vec<Series> {
    crate::suites::SCHEMES_FOR_PLOTS
        .iter()
        .map(|id| Series {
            name: (*id).to_string(),
            points: t
                .rows
                .iter()
                .filter(|r| r.scheme == *id && r.n.fract() == 0.0)
                .map(|r| (r.n, value(r)))
                .collect(),
        })
        .collect()
}

/// KC-x Tables IV–VI as JSON, in the report folder.
const REPLAY_JSON: &str = "replay.json";

// One argument per measured table, each rendered into its own section.
#[allow(clippy::too_many_arguments)]
fn report(
    t: &Table1,
    t2: &Table2,
    t3: &Table3,
    t5: &Table5,
    ndn: &NdnBench,
    pla: &PlaBench,
    kcx: &Replays,
    quick: bool,
) -> String {
    let cmd = if quick {
        "hopsig reproduce --quick"
    } else {
        "hopsig reproduce"
    };
    let mut s = format!(
        "# hopsig reproduction report\n\nCommand: `{cmd}`  \nMachine: {} ({} logical CPUs, {}), {}\n\n\
         ## BGR Table 1: paper beside measured\n\nPaper figures quoted from {SOURCE}.\n\
         {} BGR's SPLIT bits count padded to a whole byte; \
         ECDSA signatures are DER as RFC 8208 requires (the paper counted raw 512-bit r‖s).\n\n",
        t.machine.cpu, t.machine.logical_cpus, t.machine.os, t.machine.openssl,
        crate::suites::table1_notes()
    );
    s += &side_by_side(t);
    let _ = write!(
        s,
        "\n## Floors measured in the same run\n\n| primitive | µs |\n|---|---|\n\
         | OpenSSL raw RSA-2048 private (CRT, blinding) | {:.1} |\n| OpenSSL raw RSA-2048 public (e = 65537) | {:.2} |\n\
         | OpenSSL ECDSA P-256 sign | {:.1} |\n| OpenSSL ECDSA P-256 verify | {:.1} |\n\n\
         ## All measured rows\n\n```text\n{}```\n\n![size](size.svg)\n\n![verify](verify.svg)\n",
        t.floors.rsa2048_private_us, t.floors.rsa2048_public_us, t.floors.ecdsa_p256_sign_us, t.floors.ecdsa_p256_verify_us,
        t.render()
    );
    let _ = write!(
        s,
        "\n## 004 Table 5: paper beside measured\n\nPaper figures quoted from {SOURCE5}. \
         Measured with a {}-byte message; the moderator signs the message plus 32 bytes. \
         Publisher = sign; moderator = decode and verify the publisher's signature, sign, \
         aggregate (IBAS) or concatenate; subscriber = decode and verify both (IBAS: identities \
         known to the subscriber, their hashes and fixed-base tables kept).\n\n{}\n\
         IBAS against its floor, in the same run: verification of the 2-signer aggregate \
         {:.1} µs, blst's 3-pair pairing product {:.1} µs, ratio {:.3}. Decoding the \
         aggregate (subgroup checks on S and T) {:.1} µs; a subscriber meeting both \
         identities for the first time {:.1} µs. Aggregate size {} bytes (|w| = 16, + 144) \
         plus hopsig's 7-byte header, for any number of signers.\n\n```text\n{}```\n",
        t5.message_bytes,
        side_by_side5(t5),
        t5.ibas.verify_us,
        t5.ibas.floor_pairing3_us,
        t5.ibas.verify_over_floor,
        t5.ibas.decode_us,
        t5.ibas.subscriber_first_contact_us,
        t5.ibas.aggregate_bytes,
        t5.render()
    );
    let _ = write!(
        s,
        "\n## 004 Table 3: packet sizes\n\nCounted from the packets hopsig's sharing builds \
         (docs/spec/ndn-ibas.md), beside the paper's totals.\n\n```text\n{}```\n",
        ndn.render()
    );
    let _ = write!(
        s,
        "\n## KC-x Tables I and III: paper beside measured\n\nPaper figures quoted from {SOURCE3}. \
         Sign and verify are one hop; KC-MT's sign is eq. 4's S1/Σ + (1 − 1/Σ)·S2. C = L·verify + sign \
         (eq. 1, eq. 5), L = 3.7 being the paper's constant. SPV is not implemented: its row is \
         the paper's only. Today's L is the mean number of distinct ASes per announced path in a \
         RIPE RIS update file. Floors in the same run: SHA-256 compression {:.3} µs (alone); {}.\n\n{}\n```text\n{}```\n",
        t3.sha256_compression_us,
        t3.kcmt_equation(),
        side_by_side3(t3),
        t3.render()
    );
    let _ = write!(
        s,
        "\n## PLA Tables I and II: paper beside measured\n\nPaper figures quoted from {SOURCE2}.\n\n{}\n```text\n{}```\n",
        side_by_side2(t2),
        t2.render()
    );
    let _ = write!(
        s,
        "\n## PLA on IPv6 packets: the throughput Table II implies beside measured\n\n\
         003 Table II's ICNR_do_verify (5.966 ms, 1 GHz Athlon) allows {:.0} packets/s; \
         hopsig's router checks {:.0} K-163 packets/s per core, each a 1500-octet IPv6 packet \
         with its PLA Hop-by-Hop option (docs/spec/pla.md), parse and replay window included.\n\n```text\n{}```\n",
        pla.paper_packets_per_second,
        pla.rows.first().map_or(0.0, |r| r.packets_per_second),
        pla.render()
    );
    let _ = write!(
        s,
        "\n## KC-x Tables IV–VI and Fig. 5: replayed traces\n\n\
         Each announcement of one peer is validated and signed for real (upstream signatures \
         prepared beforehand, not timed); the measured times are queued at the trace's arrival \
         times on one server (`hopsig replay`, docs/spec/replay.md). Fig. 5 shows lazy mode.{}\n\n```text\n{}```\n",
        if quick {
            format!(" `--quick`: the first {} announcements of each workload.", crate::replay::QUICK_LIMIT)
        } else {
            String::new()
        },
        kcx.render()
    );
    for r in &kcx.replays {
        for (name, _) in r.figures() {
            let _ = writeln!(s, "![{name}]({name})");
        }
    }
    s
}

/// The files `hopsig reproduce` writes into its folder, besides the Fig. 5 panels.
const REPORT_FILES: [&str; 10] = [
    "table1.json",
    "table5.json",
    "ndn.json",
    "table3.json",
    "table2.json",
    "pla.json",
    "size.svg",
    "verify.svg",
    "report.md",
    REPLAY_JSON,
];

/// Every file name the report may hold, for the application to check before anything
/// is measured (none in the way, the folder writable).
pub fn file_names() -> Vec<String> {
    REPORT_FILES
        .iter()
        .map(|n| (*n).to_string())
        .chain(crate::replay::figure_names())
        .collect()
}

/// Every table measured, ready to be printed and written.
#[derive(Debug)]
pub struct Reproduction {
    quick: bool,
    t1: Table1,
    t2: Table2,
    t3: Table3,
    t5: Table5,
    ndn: NdnBench,
    pla: PlaBench,
    kcx: Replays,
}

impl Reproduction {
    /// Measures every table (progress as `tracing` events). The data files are checked
    /// first.
    ///
    /// # Errors
    /// [`Error::MissingData`] before anything is measured; any suite's or the replay's.
    pub fn measure(o: &Options) -> Result<Reproduction, Error> {
        crate::replay::data_files(o)?;
        let quick = o.quick;
        let t1 = Table1::measure(quick)?;
        let t5 = Table5::measure(quick)?;
        let ndn = NdnBench::measure(quick)?;
        let t3 = Table3::measure(o)?;
        let t2 = Table2::measure(quick)?;
        let pla = PlaBench::measure(quick)?;
        let kcx = crate::replay::reproduce(o)?;
        Ok(Reproduction {
            quick,
            t1,
            t2,
            t3,
            t5,
            ndn,
            pla,
            kcx,
        })
    }

    /// Each paper table beside the measured one, as printed.
    pub fn text(&self) -> String {
        let Reproduction {
            t1: t,
            t2,
            t3,
            t5,
            ndn,
            pla,
            kcx,
            ..
        } = self;
        format!(
            "BGR Table 1 — paper ({SOURCE}) beside measured:\n\n{}\n{}\n\
             004 Table 5 — paper ({SOURCE5}) beside measured:\n\n{}\n{}\n\
             {}\n\
             KC-x Tables I and III — paper ({SOURCE3}) beside measured:\n\n{}\n{}\n\
             PLA Tables I and II — paper ({SOURCE2}) beside measured:\n\n{}\n{}\n\
             {}\n\
             KC-x Tables IV–VI and Fig. 5 — replayed traces:\n\n{}\n",
            side_by_side(t),
            t.render(),
            side_by_side5(t5),
            t5.render(),
            ndn.render(),
            side_by_side3(t3),
            t3.render(),
            side_by_side2(t2),
            t2.render(),
            pla.render(),
            kcx.render()
        )
    }

    /// The report's files, (name, contents), to be written into one folder: the
    /// suites' JSON, the plots, report.md, the replay's JSON and Fig. 5 panels.
    ///
    /// # Errors
    /// A value serde cannot write (none is).
    pub fn files(&self) -> Result<Vec<(String, Vec<u8>)>, Error> {
        let t = &self.t1;
        let size = line_chart(
            "Aggregate signature size",
            "signers n",
            "bits",
            &series(t, |r| r.sig_bits),
        );
        let verify = line_chart(
            "Verification time",
            "signers n",
            "µs",
            &series(t, |r| r.verify_us),
        );
        let contents = [
            to_json(t)?,
            to_json(&self.t5)?,
            to_json(&self.ndn)?,
            to_json(&self.t3)?,
            to_json(&self.t2)?,
            to_json(&self.pla)?,
            size.into_bytes(),
            verify.into_bytes(),
            report(
                t, &self.t2, &self.t3, &self.t5, &self.ndn, &self.pla, &self.kcx, self.quick,
            )
            .into_bytes(),
            to_json(&self.kcx)?,
        ];
        let mut files: Vec<(String, Vec<u8>)> = REPORT_FILES
            .iter()
            .map(|n| (*n).to_string())
            .zip(contents)
            .collect();
        for replay in &self.kcx.replays {
            for (name, svg) in replay.figures() {
                files.push((name, svg.into_bytes()));
            }
        }
        Ok(files)
    }
}
