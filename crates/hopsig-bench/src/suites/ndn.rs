//! 004 Table 3: the size of each part (TLV, Name, MetaInfo, Content, Signature) of the
//! real encoded Data packets of the sharing (docs/spec/ndn-ibas.md), publisher →
//! moderator (3) and moderator → subscriber (4), for RSA-1024, RSA-2048, ECDSA P-256,
//! ECDSA P-384 and IBAS, for messages of x octets; and the reduction IBAS brings
//! beside the paper's 45 % (RSA-1024) and 60 % (RSA-2048). Sizes are counted from the
//! packets hopsig builds, nothing is estimated. (ECDSA signatures are DER, whose length
//! varies by an octet or two between runs.)

use std::collections::HashMap;

use serde::Serialize;

use hopsig_ndn::moderation::{self, Signer, Verifier};
use hopsig_ndn::{Data, Name, Parts, SigningKey};
use hopsig_schemes::ibas::{Journal, Pkg};

use super::Machine;
use crate::table::{Column, Table};
use crate::Error;

/// Message sizes x measured.
pub const XS: [usize; 3] = [0, 6, 100];

/// The paper's Table 3 totals, `base + x`: (scheme, (3), (4)).
pub const PAPER: [(&str, usize, usize); 4] = [
    ("RSA-2048", 450, 882),
    ("RSA-1024", 322, 626),
    ("ECDSA-521", 314, 614),
    ("IBAS", 265, 350),
];

/// One packet's parts (serialized flat: scheme, x, packet, then each part).
#[derive(Debug, Clone)]
pub struct SizeRow {
    /// Scheme.
    pub scheme: String,
    /// Message size x.
    pub x: usize,
    /// "(3) publisher → moderator" or "(4) moderator → subscriber".
    pub packet: String,
    /// The octets of each part.
    pub parts: Parts,
}

impl Serialize for SizeRow {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let p = &self.parts;
        let mut m = s.serialize_struct("SizeRow", 10)?;
        m.serialize_field("scheme", &self.scheme)?;
        m.serialize_field("x", &self.x)?;
        m.serialize_field("packet", &self.packet)?;
        for (name, octets) in [
            ("tlv", p.tlv),
            ("name", p.name),
            ("meta_info", p.meta_info),
            ("content", p.content),
            ("signature_info", p.signature_info),
            ("signature_value", p.signature_value),
            ("total", p.total),
        ] {
            m.serialize_field(name, &octets)?;
        }
        m.end()
    }
}

/// The measurement.
#[derive(Debug, Clone, Serialize)]
pub struct NdnBench {
    /// "ndn" (what `hopsig inspect` reports).
    pub suite: String,
    /// Whether `--quick` was given (fewer RTT runs).
    pub quick: bool,
    /// Where it ran.
    pub machine: Machine,
    /// Every packet.
    pub rows: Vec<SizeRow>,
    /// IBAS packet (4) smaller than RSA-1024's / RSA-2048's at x = 6, percent.
    pub reduction_vs_rsa1024_percent: f64,
    /// The same against RSA-2048.
    pub reduction_vs_rsa2048_percent: f64,
    /// The relay model's RTT through ndnd, per scheme (empty if ndnd was not found).
    pub rtt: Vec<RttRow>,
    /// Why the RTT was not measured, if it was not.
    pub rtt_missing: Option<String>,
    /// The moderator's throughput through ndnd, per scheme (empty without ndnd).
    pub throughput: Vec<ThroughputRow>,
}

fn fail(e: impl std::fmt::Display) -> Error {
    Error::setup(e)
}

fn row(scheme: &str, x: usize, packet: &str, d: &Data) -> SizeRow {
    SizeRow {
        scheme: scheme.into(),
        x,
        packet: packet.into(),
        parts: d.parts(),
    }
}

fn classic(
    pem_of: impl Fn() -> Result<SigningKey, Error>,
) -> Result<(SigningKey, SigningKey), Error> {
    Ok((pem_of()?, pem_of()?))
}

impl NdnBench {
    /// Builds every packet (keys generated on the spot).
    ///
    /// # Errors
    /// Key generation or signing failing.
    pub fn measure(quick: bool) -> Result<NdnBench, Error> {
        let (alice, gov) = (
            "/wonderland/Alice".parse::<Name>().map_err(fail)?,
            "/moderators/Government".parse::<Name>().map_err(fail)?,
        );
        tracing::info!("bench ndn: building the packets of 004 Table 3");
        let pkg = Pkg::setup().map_err(fail)?;
        let (ka, kg) = (
            pkg.extract(&alice.to_string()).map_err(fail)?,
            pkg.extract(&gov.to_string()).map_err(fail)?,
        );
        let rsa = |bits| move || SigningKey::generate_rsa(bits).map_err(fail);
        let ec = |curve| move || SigningKey::generate_ec(curve).map_err(fail);
        let schemes: Vec<(&str, Option<(SigningKey, SigningKey)>)> = vec![
            ("RSA-1024", Some(classic(rsa(1024))?)),
            ("RSA-2048", Some(classic(rsa(2048))?)),
            ("ECDSA P-256", Some(classic(ec(256))?)),
            ("ECDSA P-384", Some(classic(ec(384))?)),
            ("IBAS", None),
        ];
        let mut rows = vec![];
        for (scheme, keys) in &schemes {
            for x in XS {
                let message = vec![b'm'; x];
                let (three, four) = match keys {
                    Some((a, g)) => {
                        let mut trust = HashMap::new();
                        trust.insert(alice.clone(), a.verifying_key().map_err(fail)?);
                        let three = moderation::publish(
                            &alice,
                            2,
                            "2015-09-30T12:00:00Z",
                            &message,
                            Signer::Classic(a),
                        )
                        .map_err(fail)?;
                        let four = moderation::moderate(
                            &three,
                            &gov,
                            9,
                            "2015-09-30T12:00:01Z",
                            &Verifier::Classic(&trust),
                            Signer::Classic(g),
                        )
                        .map_err(fail)?;
                        (three, four)
                    }
                    None => {
                        let three = moderation::publish(
                            &alice,
                            2,
                            "2015-09-30T12:00:00Z",
                            &message,
                            Signer::Ibas(&ka, &mut Journal::memory()),
                        )
                        .map_err(fail)?;
                        let four = moderation::moderate(
                            &three,
                            &gov,
                            9,
                            "2015-09-30T12:00:01Z",
                            &Verifier::Ibas(pkg.params()),
                            Signer::Ibas(&kg, &mut Journal::memory()),
                        )
                        .map_err(fail)?;
                        (three, four)
                    }
                };
                rows.push(row(scheme, x, "(3) publisher → moderator", &three));
                rows.push(row(scheme, x, "(4) moderator → subscriber", &four));
            }
        }
        let total = |scheme: &str| {
            rows.iter()
                .find(|r| r.scheme == scheme && r.x == 6 && r.packet.starts_with("(4)"))
                .map_or(f64::NAN, |r| r.parts.total as f64)
        };
        let ibas = total("IBAS");
        // The repository this binary was built in (target/release/hopsig), where
        // .ci/run builds ndnd, else the current folder.
        let repo = std::env::current_exe()
            .ok()
            .and_then(|e| Some(e.parent()?.parent()?.parent()?.to_path_buf()))
            .unwrap_or_else(|| ".".into());
        let found = hopsig_testkit::ndnd::Ndnd::find(&repo)
            .or_else(|| hopsig_testkit::ndnd::Ndnd::find(std::path::Path::new(".")));
        let (rtt, throughput, rtt_missing) = match found {
            Some(bin) => (
                self::rtt(&bin, if quick { 5 } else { 20 })?,
                self::throughput(&bin, if quick { 10 } else { 40 })?,
                None,
            ),
            None => (
                vec![],
                vec![],
                Some("no ndnd (set HOPSIG_NDND, or build tools/ndnd into target/ndnd/ndnd as .ci/run does)".into()),
            ),
        };
        Ok(NdnBench {
            suite: "ndn".into(),
            quick,
            rtt,
            throughput,
            rtt_missing,
            machine: Machine::detect(),
            reduction_vs_rsa1024_percent: 100.0 * (1.0 - ibas / total("RSA-1024")),
            reduction_vs_rsa2048_percent: 100.0 * (1.0 - ibas / total("RSA-2048")),
            rows,
        })
    }

    /// The report.
    pub fn render(&self) -> String {
        let mut s = String::from(
            "004 Table 3: Data packet parts, octets (Sig. = SignatureInfo + SignatureValue)\n\n",
        );
        let mut t = Table::new(
            &[
                Column::left("scheme", 12),
                Column::right("x", 4),
                Column::left("packet", 27).after(2),
                Column::right("TLV", 4),
                Column::right("N.", 5),
                Column::right("M.I.", 5),
                Column::right("Con.", 6),
                Column::right("Sig.", 10),
                Column::right("total", 6),
            ],
            "",
        );
        for r in &self.rows {
            t.row([
                r.scheme.to_string(),
                r.x.to_string(),
                r.packet.to_string(),
                r.parts.tlv.to_string(),
                r.parts.name.to_string(),
                r.parts.meta_info.to_string(),
                r.parts.content.to_string(),
                format!("{}+{}", r.parts.signature_info, r.parts.signature_value),
                r.parts.total.to_string(),
            ]);
        }
        s += &t.render();
        s += "\npaper (004 Table 3, totals base + x): ";
        s += &PAPER
            .iter()
            .map(|(n, a, b)| format!("{n} (3) {a}+x, (4) {b}+x"))
            .collect::<Vec<_>>()
            .join("; ");
        s += &format!(
            "\nIBAS packet (4) at x = 6 is {:.1} % smaller than RSA-1024's and {:.1} % smaller than RSA-2048's (paper: 45 % and 60 %).\n",
            self.reduction_vs_rsa1024_percent, self.reduction_vs_rsa2048_percent
        );
        s += "\n004 §6.2 packet relay model through ndnd (loopback; content store off so every run reaches Alice), 100-byte messages, ms\n";
        match &self.rtt_missing {
            Some(why) => s += &format!("not measured: {why}\n"),
            None => {
                let mut t = Table::new(
                    &[
                        Column::left("scheme", 12),
                        Column::right("runs", 5),
                        Column::right("RTT mean", 9),
                        Column::right("sd", 7),
                        Column::right("crypto in it", 12),
                        Column::right("rest (≤ 2)", 13),
                        Column::right("Bob verify", 12),
                        Column::right("end to end", 12),
                    ],
                    "",
                );
                for r in &self.rtt {
                    t.row([
                        r.scheme.to_string(),
                        r.runs.to_string(),
                        format!("{:.2}", r.rtt_mean_ms),
                        format!("{:.2}", r.rtt_sd_ms),
                        format!("{:.2}", r.crypto_mean_ms),
                        format!("{:.2}", r.rest_mean_ms),
                        format!("{:.2}", r.subscriber_verify_mean_ms),
                        format!("{:.2}", r.end_to_end_mean_ms),
                    ]);
                }
                s += &t.render();
                s += "\nmoderator throughput: every publisher's Interest (1) at once, publishers answering with Data signed beforehand\n";
                let mut table = Table::new(
                    &[
                        Column::left("scheme", 12),
                        Column::right("requests", 9),
                        Column::right("requests/s", 12),
                        Column::right("processing µs", 16),
                        Column::right("ratio (≥ 0.8)", 14),
                    ],
                    "",
                );
                for t in &self.throughput {
                    table.row([
                        t.scheme.to_string(),
                        t.requests.to_string(),
                        format!("{:.0}", t.per_second),
                        format!("{:.1}", t.processing_us),
                        format!("{:.2}", t.ratio),
                    ]);
                }
                s += &table.render();
                s += &format!(
                    "paper (5 runs, 2012 laptop): {}\n",
                    PAPER_RTT
                        .iter()
                        .map(|(n, m, sd)| format!("{n} {m} ms (sd {sd})"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
        s += "\nDifferences from the paper's packets: hopsig's KeyLocator is ID/KEY (SignatureInfo 33 / 38 octets; the paper's 82 / 87 held a longer key name), and its IBAS value is 160 octets on BLS12-381 (about 128-bit security; the paper's 150 on an 80-bit curve), so RSA packets are smaller here and IBAS ones a little larger.\n";
        s
    }
}

/// The packet relay model's RTT (004 §6.2) for one scheme.
#[derive(Debug, Clone, Serialize)]
pub struct RttRow {
    /// Scheme.
    pub scheme: String,
    /// Runs.
    pub runs: usize,
    /// Bob's RTT: Interest (1) sent → Data (4) received, ms (mean, standard deviation).
    pub rtt_mean_ms: f64,
    /// Standard deviation, ms.
    pub rtt_sd_ms: f64,
    /// Of which cryptography, ms (mean): Alice signing (3), the moderator verifying
    /// (3) and signing (4) — each timed where it ran.
    pub crypto_mean_ms: f64,
    /// Bob's RTT minus that cryptography: the forwarder and the faces, ms (mean;
    /// target ≤ 2).
    pub rest_mean_ms: f64,
    /// Bob verifying (4) after it arrived, ms (mean).
    pub subscriber_verify_mean_ms: f64,
    /// RTT plus Bob's verification, ms (mean).
    pub end_to_end_mean_ms: f64,
}

/// The paper's RTT (004 §6.2, 100-byte messages, 5 runs): IBAS(224,112) 37.6 ms (sd
/// 2.8), RSA-2048 22.7 ms (sd 1.6).
pub const PAPER_RTT: [(&str, f64, f64); 2] = [("IBAS", 37.6, 2.8), ("RSA-2048", 22.7, 1.6)];

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len().max(1) as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, var.sqrt())
}

/// RTT of `runs` relays through a private ndnd whose content store answers nothing
/// (every run reaches Alice), for IBAS, RSA-2048 and ECDSA P-256, 100-byte messages,
/// after one relay not counted (the first sets up the forwarder's tables and faces).
///
/// # Errors
/// ndnd failing to start or a relay failing.
pub fn rtt(ndnd: &std::path::Path, runs: usize) -> Result<Vec<RttRow>, Error> {
    use hopsig_ndn::{Face, Interest, Packet};
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

    let (alice, gov) = (
        "/wonderland/Alice".parse::<Name>().map_err(fail)?,
        "/moderators/Government".parse::<Name>().map_err(fail)?,
    );
    let pkg = Pkg::setup().map_err(fail)?;
    let (ka, kg) = (
        pkg.extract(&alice.to_string()).map_err(fail)?,
        pkg.extract(&gov.to_string()).map_err(fail)?,
    );
    let message = vec![b'm'; 100];
    let mut out = vec![];
    let measured = runs;
    let runs = runs + 1;
    for scheme in ["IBAS", "RSA-2048", "ECDSA P-256"] {
        tracing::info!("bench ndn: RTT through ndnd, {scheme}, {runs} runs");
        let keys = match scheme {
            "RSA-2048" => Some(classic(|| SigningKey::generate_rsa(2048).map_err(fail))?),
            "ECDSA P-256" => Some(classic(|| SigningKey::generate_ec(256).map_err(fail))?),
            _ => None,
        };
        let mut trust = HashMap::new();
        if let Some((a, g)) = &keys {
            trust.insert(alice.clone(), a.verifying_key().map_err(fail)?);
            trust.insert(gov.clone(), g.verifying_key().map_err(fail)?);
        }
        let dir = std::env::temp_dir().join(format!(
            "hopsig-bench-ndnd-{}-{}",
            std::process::id(),
            out.len()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let fw = hopsig_testkit::ndnd::Ndnd::start_with(ndnd, &dir, false).map_err(fail)?;
        let mut alice_face = Face::unix(&fw.socket).map_err(fail)?;
        alice_face
            .register(&moderation::moderator_interest(&alice))
            .map_err(fail)?;
        let mut gov_face = Face::unix(&fw.socket).map_err(fail)?;
        gov_face.register(&gov).map_err(fail)?;
        let crypto = Mutex::new(vec![0.0f64; runs]);
        let add = |run: usize, t: Duration| {
            if let Ok(mut c) = crypto.lock() {
                c[run] += t.as_secs_f64() * 1e3;
            }
        };
        let mut bob_verify = vec![];
        let verifier = match &keys {
            Some(_) => Verifier::Classic(&trust),
            None => Verifier::Ibas(pkg.params()),
        };
        let deadline = || Some(Instant::now() + Duration::from_secs(10));
        let mut rtts = vec![];
        std::thread::scope(|s| -> Result<(), Error> {
            let alice_role = s.spawn(|| -> Result<(), Error> {
                let mut journal = Journal::memory();
                for run in 0..runs {
                    let Packet::Interest(_, token) = alice_face.recv(deadline()).map_err(fail)?
                    else {
                        continue;
                    };
                    let t = Instant::now();
                    let signer = match &keys {
                        Some((a, _)) => Signer::Classic(a),
                        None => Signer::Ibas(&ka, &mut journal),
                    };
                    let three = moderation::publish(
                        &alice,
                        run as u64 + 1,
                        "2015-09-30T12:00:00Z",
                        &message,
                        signer,
                    )
                    .map_err(fail)?;
                    add(run, t.elapsed());
                    alice_face.put(&three, token.as_deref()).map_err(fail)?;
                }
                Ok(())
            });
            let gov_role = s.spawn(|| -> Result<(), Error> {
                let mut journal = Journal::memory();
                for run in 0..runs {
                    let Packet::Interest(_, token) = gov_face.recv(deadline()).map_err(fail)?
                    else {
                        continue;
                    };
                    let mut two = Interest::new(moderation::moderator_interest(&alice));
                    two.can_be_prefix = true;
                    two.must_be_fresh = true;
                    let three = gov_face.express(two).map_err(fail)?;
                    let t = Instant::now();
                    let signer = match &keys {
                        Some((_, g)) => Signer::Classic(g),
                        None => Signer::Ibas(&kg, &mut journal),
                    };
                    let four = moderation::moderate(
                        &three,
                        &gov,
                        run as u64 + 1,
                        "2015-09-30T12:00:01Z",
                        &verifier,
                        signer,
                    )
                    .map_err(fail)?;
                    add(run, t.elapsed());
                    gov_face.put(&four, token.as_deref()).map_err(fail)?;
                }
                Ok(())
            });
            let mut bob = Face::tcp(fw.tcp).map_err(fail)?;
            for _ in 0..runs {
                let mut one = Interest::new(moderation::subscriber_interest(&gov, &alice));
                one.can_be_prefix = true;
                one.must_be_fresh = true;
                let start = Instant::now();
                let four = bob.express(one).map_err(fail)?;
                let rtt = start.elapsed();
                let t = Instant::now();
                moderation::receive(&four, &verifier, &mut moderation::SeenW::default())
                    .map_err(fail)?;
                bob_verify.push(t.elapsed().as_secs_f64() * 1e3);
                rtts.push(rtt.as_secs_f64() * 1e3);
            }
            alice_role
                .join()
                .map_err(|_| fail("Alice's thread panicked"))??;
            gov_role
                .join()
                .map_err(|_| fail("the moderator's thread panicked"))??;
            Ok(())
        })?;
        // The cryptography inside Bob's RTT is Alice's and the moderator's; Bob
        // verifies after it, reported apart and in the end-to-end time.
        let crypto = crypto.into_inner().map_err(|_| fail("lock"))?;
        let (rtt_mean, rtt_sd) = mean_sd(&rtts[1..]);
        let (crypto_mean, _) = mean_sd(&crypto[1..]);
        let (bob_mean, _) = mean_sd(&bob_verify[1..]);
        out.push(RttRow {
            scheme: scheme.into(),
            runs: measured,
            rtt_mean_ms: rtt_mean,
            rtt_sd_ms: rtt_sd,
            crypto_mean_ms: crypto_mean,
            rest_mean_ms: rtt_mean - crypto_mean,
            subscriber_verify_mean_ms: bob_mean,
            end_to_end_mean_ms: rtt_mean + bob_mean,
        });
    }
    Ok(out)
}

/// The moderator's throughput through ndnd for one scheme (issue 14 §4).
#[derive(Debug, Clone, Serialize)]
pub struct ThroughputRow {
    /// Scheme.
    pub scheme: String,
    /// Requests: one per publisher (Snippet 1 gives one Interest name per publisher).
    pub requests: usize,
    /// Requests answered per second: all Interests (1) sent at once, until the last
    /// Data (4) arrived.
    pub per_second: f64,
    /// The moderator's processing per request (verify (3), build and sign (4)), mean µs.
    pub processing_us: f64,
    /// `per_second × processing` (target ≥ 0.8: the forwarder path hides behind the
    /// moderator's work).
    pub ratio: f64,
}

/// Every publisher's Interest (1) at once toward the pipelined moderator
/// ([`moderation::serve_moderator`]) through a private ndnd; the publishers answer with Data
/// signed beforehand, so the moderator's work is what is measured.
///
/// # Errors
/// ndnd failing to start, a relay failing or timing out.
pub fn throughput(ndnd: &std::path::Path, k: usize) -> Result<Vec<ThroughputRow>, Error> {
    use hopsig_ndn::{Face, Interest, Packet};
    use std::time::{Duration, Instant};

    let gov = "/moderators/Government".parse::<Name>().map_err(fail)?;
    let publishers: Vec<Name> = (0..k)
        .map(|i| {
            format!("/wonderland/Alice{i}")
                .parse::<Name>()
                .map_err(fail)
        })
        .collect::<Result<_, _>>()?;
    let pkg = Pkg::setup().map_err(fail)?;
    let kg = pkg.extract(&gov.to_string()).map_err(fail)?;
    let message = vec![b'm'; 100];
    let mut out = vec![];
    for scheme in ["IBAS", "RSA-2048", "ECDSA P-256"] {
        tracing::info!("bench ndn: moderator throughput through ndnd, {scheme}, {k} publishers");
        let gen = || match scheme {
            "RSA-2048" => SigningKey::generate_rsa(2048).map_err(fail).map(Some),
            "ECDSA P-256" => SigningKey::generate_ec(256).map_err(fail).map(Some),
            _ => Ok(None),
        };
        let gov_key = gen()?;
        let mut trust = HashMap::new();
        if let Some(g) = &gov_key {
            trust.insert(gov.clone(), g.verifying_key().map_err(fail)?);
        }
        let mut threes = HashMap::new();
        for p in &publishers {
            let three = match gen()? {
                Some(key) => {
                    trust.insert(p.clone(), key.verifying_key().map_err(fail)?);
                    moderation::publish(
                        p,
                        1,
                        "2015-09-30T12:00:00Z",
                        &message,
                        Signer::Classic(&key),
                    )
                }
                None => {
                    let key = pkg.extract(&p.to_string()).map_err(fail)?;
                    moderation::publish(
                        p,
                        1,
                        "2015-09-30T12:00:00Z",
                        &message,
                        Signer::Ibas(&key, &mut Journal::memory()),
                    )
                }
            }
            .map_err(fail)?;
            threes.insert(p.clone(), three);
        }
        let dir = std::env::temp_dir().join(format!(
            "hopsig-bench-ndnd-tp-{}-{}",
            std::process::id(),
            out.len()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let fw = hopsig_testkit::ndnd::Ndnd::start_with(ndnd, &dir, false).map_err(fail)?;
        let mut alice_face = Face::unix(&fw.socket).map_err(fail)?;
        for p in &publishers {
            alice_face
                .register(&moderation::moderator_interest(p))
                .map_err(fail)?;
        }
        let mut gov_face = Face::unix(&fw.socket).map_err(fail)?;
        gov_face
            .register(
                &gov.clone()
                    .child(hopsig_ndn::Component::generic(moderation::APP)),
            )
            .map_err(fail)?;
        let verifier = match &gov_key {
            Some(_) => Verifier::Classic(&trust),
            None => Verifier::Ibas(pkg.params()),
        };
        let mut processing = vec![];
        let mut elapsed = Duration::ZERO;
        std::thread::scope(|s| -> Result<(), Error> {
            let alice = s.spawn(|| -> Result<Face, Error> {
                let deadline = Instant::now() + Duration::from_secs(30);
                let mut answered = 0;
                while answered < k {
                    let Packet::Interest(i, token) =
                        alice_face.recv(Some(deadline)).map_err(fail)?
                    else {
                        continue;
                    };
                    let Some(three) = i
                        .name
                        .components()
                        .get(0..2)
                        .and_then(|c| threes.get(&Name(c.to_vec())))
                    else {
                        continue;
                    };
                    alice_face.put(three, token.as_deref()).map_err(fail)?;
                    answered += 1;
                }
                Ok(alice_face)
            });
            let moderator = s.spawn(|| -> Result<(Face, Vec<f64>), Error> {
                let mut journal = Journal::memory();
                let mut times = vec![];
                let mut mseq = 0;
                moderation::serve_moderator(
                    &mut gov_face,
                    &gov,
                    Some(k as u64),
                    |three| {
                        let t = Instant::now();
                        mseq += 1;
                        let signer = match &gov_key {
                            Some(g) => Signer::Classic(g),
                            None => Signer::Ibas(&kg, &mut journal),
                        };
                        let four = moderation::moderate(
                            three,
                            &gov,
                            mseq,
                            "2015-09-30T12:00:01Z",
                            &verifier,
                            signer,
                        );
                        times.push(t.elapsed().as_secs_f64() * 1e6);
                        four
                    },
                    |_| {},
                )
                .map_err(fail)?;
                Ok((gov_face, times))
            });
            let mut bob = Face::tcp(fw.tcp).map_err(fail)?;
            let start = Instant::now();
            for (n, p) in publishers.iter().enumerate() {
                let mut one = Interest::new(moderation::subscriber_interest(&gov, p));
                one.can_be_prefix = true;
                one.must_be_fresh = true;
                // Names differ, so one nonce each is enough against loops.
                one.nonce = Some((n as u32).to_be_bytes());
                bob.send(&one.encode()).map_err(fail)?;
            }
            let deadline = Instant::now() + Duration::from_secs(30);
            let mut got = vec![];
            while got.len() < k {
                if let Packet::Data(d) = bob.recv(Some(deadline)).map_err(fail)? {
                    got.push(d);
                }
            }
            elapsed = start.elapsed();
            for d in &got {
                moderation::receive(d, &verifier, &mut moderation::SeenW::default())
                    .map_err(fail)?;
            }
            let _alice_face = alice
                .join()
                .map_err(|_| fail("publishers' thread panicked"))??;
            let (_gov_face, times) = moderator
                .join()
                .map_err(|_| fail("moderator's thread panicked"))??;
            processing = times;
            Ok(())
        })?;
        let per_second = k as f64 / elapsed.as_secs_f64();
        let processing_us = processing.iter().sum::<f64>() / processing.len().max(1) as f64;
        out.push(ThroughputRow {
            scheme: scheme.into(),
            requests: k,
            per_second,
            processing_us,
            ratio: per_second * processing_us / 1e6,
        });
    }
    Ok(out)
}
