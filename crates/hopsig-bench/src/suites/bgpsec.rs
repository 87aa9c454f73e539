//! `hopsig bench bgpsec`: BGPsec validation (RFC 8205 §5.2) of an n-hop path for each
//! algorithm suite, against its floor sampled alternately in the same run — for suite
//! 1, n OpenSSL P-256 verifications and the SHA-256 of the n signed inputs; for an
//! RSA suite, n raw RSA-2048 public operations —, `validate-mrt` on one thread and on
//! two over real signed UPDATEs, a projection for a full table, the BGPsec_PATH size
//! per n beside BGR Table 1's signature lengths, and suite 1's batch verification
//! beside OpenSSL (issue 28, [`super::bgpsec_batch`]).
//!
//! Targets (issue 12 §6) are printed beside the measured ratios, never asserted.

use serde::Serialize;

use hopsig_bgp::packet::{AsWidth, AttributeValue, PathAttribute, Prefix};
use hopsig_bgp::suite::AlgorithmSuite;
use hopsig_bgp::trace::sign::RouteError;
use hopsig_bgp::trace::{
    sign_mrt, signed_path, update_message, validate_mrt, Keyring, Route, SignOptions, Skip,
};
use hopsig_bgp::{Peer, SignatureInput, Validator, SUITES};
use hopsig_schemes::floors::{EcdsaP256Verifications, RawRsa};
use hopsig_schemes::Error as SchemeError;

use super::bgpsec_batch::BatchVerification;
use super::{Machine, Options};
use crate::table::{Column, Table};
use crate::timer::{paired, Budget};
use crate::Error;

fn fail(e: impl std::fmt::Display) -> Error {
    Error::setup(e)
}

/// A full IPv4 table: routes, and their mean number of distinct ASes (issue 12 §6).
pub const FULL_TABLE_ROUTES: f64 = 1_040_000.0;
/// Mean path length of a full table, in hops.
pub const FULL_TABLE_HOPS: f64 = 4.8;
/// Longest path measured.
const MAX_N: usize = 15;
/// The AS the paths are sent to (the validator's).
const LOCAL_AS: u32 = 64_999;

/// The targets of issue 12 §6, shown beside the measurements.
#[derive(Debug, Clone, Serialize)]
pub struct Targets {
    /// Suite 1 validation over its floor, at most.
    pub ecdsa_over_floor: f64,
    /// The BGR suite's validation over n raw public operations, at most (the n × RSA
    /// suite is measured against the same floor, for comparison, with no target).
    pub bgr_over_floor: f64,
    /// validate-mrt on 2 threads over 1 thread, at least.
    pub two_thread_speedup: f64,
}

/// One suite's validation of an n-hop path.
#[derive(Debug, Clone, Serialize)]
pub struct PathRow {
    /// Suite name.
    pub suite: String,
    /// Hops, n.
    pub n: usize,
    /// The floor: `openssl-ecdsa-p256-verify+sha256` or `openssl-raw-rsa2048-public`.
    pub floor: String,
    /// Decoding and validating the whole UPDATE (`Validator::message`), µs.
    pub validate_us: f64,
    /// The floor for n hops, sampled alternately with `validate_us`, µs.
    pub floor_us: f64,
    /// `validate_us / floor_us`.
    pub over_floor: f64,
}

/// BGPsec_PATH sizes of one suite for one n, and BGR Table 1's signature length for
/// the scheme the suite uses.
#[derive(Debug, Clone, Serialize)]
pub struct SizeRow {
    /// Suite name.
    pub suite: String,
    /// Hops, n.
    pub n: usize,
    /// The whole BGPsec_PATH attribute (header, Secure_Path, Signature_Block), octets,
    /// as signed in this run (DER ECDSA signatures vary by one or two octets).
    pub attribute_bytes: usize,
    /// Of which signature octets (the Signature fields).
    pub signature_bytes: usize,
    /// The whole UPDATE message, octets; `None` over BGP's 4096 (RFC 8205 §4.1: such a
    /// path cannot be sent without RFC 8654's extended messages, and is not validated).
    pub message_bytes: Option<usize>,
    /// BGR Table 1's column for the scheme, if it has one.
    pub paper_scheme: Option<String>,
    /// Its signature length for n, in octets (bits / 8).
    pub paper_signature_bytes: Option<f64>,
}

/// validate-mrt over real signed UPDATEs on one thread and on two.
#[derive(Debug, Clone, Serialize)]
pub struct Scaling {
    /// The RIS file the UPDATEs were signed from.
    pub file: String,
    /// UPDATEs validated per run.
    pub updates: u64,
    /// Signatures verified per run.
    pub signatures: u64,
    /// One thread, median seconds per run.
    pub one_thread_s: f64,
    /// Two threads, median seconds per run (sampled alternately with one).
    pub two_threads_s: f64,
    /// `one_thread_s / two_threads_s`.
    pub speedup: f64,
    /// UPDATEs per second on one thread.
    pub one_thread_updates_per_s: f64,
    /// UPDATEs per second on two threads.
    pub two_threads_updates_per_s: f64,
    /// Signatures per second on two threads.
    pub two_threads_signatures_per_s: f64,
}

/// What validating a full table costs with one suite.
#[derive(Debug, Clone, Serialize)]
pub struct Projection {
    /// Suite name.
    pub suite: String,
    /// Validation of one UPDATE of 4.8 hops (between the n = 4 and n = 5 rows), µs.
    pub update_us: f64,
    /// 1.04 M UPDATEs on one core, seconds.
    pub one_core_s: f64,
    /// Logical CPUs of this machine.
    pub cores: usize,
    /// The same on every core, at the parallel efficiency measured from one to two
    /// threads (capped at 1), seconds.
    pub all_cores_s: f64,
}

/// The whole measurement.
#[derive(Debug, Clone, Serialize)]
pub struct Bgpsec {
    /// "bgpsec".
    pub suite: String,
    /// Where it ran.
    pub machine: Machine,
    /// Whether `--quick` was used.
    pub quick: bool,
    /// The targets.
    pub targets: Targets,
    /// Validation against the floor, suite by suite, n ascending (the `rows` of
    /// ARCHITECTURE.md's JSON shape).
    pub rows: Vec<PathRow>,
    /// Suites of the table this benchmark has no floor for (not measured).
    pub no_floor: Vec<String>,
    /// validate-mrt's scaling.
    pub scaling: Option<Scaling>,
    /// Full-table projections, per suite.
    pub projections: Vec<Projection>,
    /// Sizes, per suite and n = 1..15.
    pub sizes: Vec<SizeRow>,
    /// Suite-1 signatures per second per core by the batch backend at batches of 8,
    /// 64 and 256, beside OpenSSL (issue 28).
    pub batch: BatchVerification,
}

/// What a suite's validation is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Floor {
    /// n × (SHA-256 of the hop's input + OpenSSL ECDSA P-256 verification).
    EcdsaP256,
    /// n × OpenSSL raw RSA-2048 public operation.
    RsaPublic,
}

/// How one suite is measured: its floor, and its column of BGR Table 1 (the
/// signature length in bits for n signers).
#[derive(Clone, Copy)]
struct Measured {
    floor: Floor,
    paper: &'static str,
    paper_bits: fn(f64) -> f64,
}

/// How a suite is measured, by the scheme it signs with.
fn floor_of(suite: &dyn AlgorithmSuite) -> Option<Measured> {
    let (floor, paper, paper_bits): (Floor, &'static str, fn(f64) -> f64) = match suite.name() {
        "ecdsa-p256-sha256" => (Floor::EcdsaP256, "256-bit ECDSA: 512n", |n| 512.0 * n),
        "bgr-rsa2048" => (Floor::RsaPublic, "BGR: 2304 + 129n", |n| 2304.0 + 129.0 * n),
        "rsa2048-pkcs1-sha256" => (Floor::RsaPublic, "2048-bit RSA: 2048n", |n| 2048.0 * n),
        _ => return None,
    };
    Some(Measured {
        floor,
        paper,
        paper_bits,
    })
}

/// An n-hop route: ASes 65001.. from the origin, to [`LOCAL_AS`].
fn route(n: usize) -> Result<Route, Error> {
    let prefix = Prefix::new(std::net::Ipv4Addr::new(198, 51, 100, 0).into(), 24)
        .map_err(|e| Error::Input(e.to_string()))?;
    Ok(Route::synthetic(n, prefix, LOCAL_AS))
}

/// The n-hop UPDATE of a suite, signed, and what the floor needs of it.
struct Signed {
    /// The UPDATE; `None` if it exceeds BGP's 4096 octets (RFC 8205 §4.1).
    message: Option<Vec<u8>>,
    attribute_bytes: usize,
    signature_bytes: usize,
    /// Per hop, origin first: (SPKI, signed octets, signature).
    hops: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
}

fn signed(suite: &dyn AlgorithmSuite, ring: &Keyring, n: usize) -> Result<Signed, Error> {
    let setup = |e: &dyn std::fmt::Display| Error::setup(e);
    let r = route(n)?;
    let path = signed_path(&r, ring).map_err(|e| setup(&e))?;
    let input = SignatureInput::of_path(&path, suite.id(), &r.nlri, suite.coverage(), LOCAL_AS)
        .ok_or_else(|| setup(&"no block of the suite"))?;
    let block = &path.signature_blocks()[0];
    let mut hops = Vec::with_capacity(n);
    for (i, h) in r.hops.iter().enumerate() {
        let (_, key) = ring
            .signer(h.asn)
            .and_then(|s| s.key(suite.id()))
            .ok_or_else(|| setup(&"a key is missing"))?;
        let octets = input.hop(i + 1).unwrap_or_default().to_vec();
        let sig = block.segments[n - 1 - i].signature.to_vec();
        hops.push((key.spki().to_vec(), octets, sig));
    }
    let signature_bytes = block.segments.iter().map(|s| s.signature.len()).sum();
    let mut attr = hopsig_schemes::primitives::codec::Writer::new();
    PathAttribute::new(AttributeValue::BgpsecPath(path.clone()), AsWidth::Four)
        .and_then(|a| Ok(a.encode(&mut attr, AsWidth::Four)?))
        .map_err(|e| setup(&e))?;
    let message = match update_message(&r, path) {
        Ok(m) => Some(m),
        Err(RouteError::Skip(Skip::TooLarge)) => None,
        Err(e) => return Err(setup(&e)),
    };
    Ok(Signed {
        attribute_bytes: attr.len(),
        signature_bytes,
        message,
        hops,
    })
}

impl Bgpsec {
    /// Runs the measurement, with progress on stderr.
    ///
    /// # Errors
    /// Backend failures; the RIS file missing.
    pub fn measure(o: &Options) -> Result<Bgpsec, Error> {
        let quick = o.quick;
        // Checked first: a missing file fails before anything is measured.
        o.data_file(crate::UPDATES_FILE)?;
        let budget = if quick { Budget::QUICK } else { Budget::FULL };
        let ns: Vec<usize> = if quick {
            vec![1, 4, 5, 7, 15]
        } else {
            (1..=MAX_N).collect()
        };
        let (mut paths, mut sizes, mut no_floor) = (Vec::new(), Vec::new(), Vec::new());
        let rsa_suites = SUITES
            .iter()
            .any(|s| floor_of(*s).is_some_and(|m| m.floor == Floor::RsaPublic));
        let mut raw_rsa = if rsa_suites {
            Some(RawRsa::new(2048).map_err(fail)?)
        } else {
            None
        };
        for &suite in SUITES {
            let Some(Measured {
                floor,
                paper,
                paper_bits,
            }) = floor_of(suite)
            else {
                tracing::info!("{}: no floor in this benchmark, not measured", suite.name());
                no_floor.push(suite.name().to_string());
                continue;
            };
            tracing::info!("{}: generating {MAX_N} router keys ...", suite.name());
            let mut ring = Keyring::new(suite);
            let ases: Vec<u32> = route(MAX_N)?.hops.iter().map(|h| h.asn).collect();
            ring.generate(&ases, 1).map_err(Error::setup)?;
            let keys = ring.router_keys();
            let validator = Validator::with_suites(SUITES, &keys);
            for n in 1..=MAX_N {
                let s = signed(suite, &ring, n)?;
                sizes.push(SizeRow {
                    suite: suite.name().to_string(),
                    n,
                    attribute_bytes: s.attribute_bytes,
                    signature_bytes: s.signature_bytes,
                    message_bytes: s.message.as_ref().map(Vec::len),
                    paper_scheme: Some(paper.to_string()),
                    paper_signature_bytes: Some(paper_bits(n as f64) / 8.0),
                });
                let Some(message) = s.message.as_deref().filter(|_| ns.contains(&n)) else {
                    continue;
                };
                tracing::info!("[{}/{}] {} n={n}", paths.len() + 1, ns.len(), suite.name());
                let peer = Peer::external(LOCAL_AS, 65_000 + n as u32);
                let mut validate = || {
                    if validator.message(message, &peer).is_valid() {
                        Ok(())
                    } else {
                        Err(SchemeError::InvalidSignature)
                    }
                };
                let (validate_us, floor_us) = match floor {
                    Floor::EcdsaP256 => {
                        let items: Vec<(&[u8], &[u8], &[u8])> = s
                            .hops
                            .iter()
                            .map(|(k, m, sig)| (k.as_slice(), m.as_slice(), sig.as_slice()))
                            .collect();
                        let f = EcdsaP256Verifications::new(&items).map_err(fail)?;
                        paired(budget, &mut validate, &mut || f.verify_all())?
                    }
                    Floor::RsaPublic => {
                        let raw = raw_rsa
                            .as_mut()
                            .ok_or_else(|| Error::setup("no RSA floor"))?;
                        paired(budget, &mut validate, &mut || {
                            (0..n).try_for_each(|_| raw.public_op())
                        })?
                    }
                };
                paths.push(PathRow {
                    suite: suite.name().to_string(),
                    n,
                    floor: match floor {
                        Floor::EcdsaP256 => "openssl-ecdsa-p256-verify+sha256",
                        Floor::RsaPublic => "openssl-raw-rsa2048-public",
                    }
                    .to_string(),
                    validate_us,
                    floor_us,
                    over_floor: validate_us / floor_us,
                });
            }
        }
        let batch = BatchVerification::measure(budget)?;
        let scaling = scaling(budget, o)?;
        let machine = Machine::detect();
        let efficiency = scaling.as_ref().map_or(1.0, |s| (s.speedup / 2.0).min(1.0));
        let projections = projections(&paths, machine.logical_cpus, efficiency);
        Ok(Bgpsec {
            suite: "bgpsec".into(),
            machine,
            quick,
            targets: Targets {
                ecdsa_over_floor: 1.10,
                bgr_over_floor: 1.15,
                two_thread_speedup: 1.8,
            },
            rows: paths,
            no_floor,
            scaling,
            projections,
            sizes,
            batch,
        })
    }

    /// A plain-text report.
    pub fn render(&self) -> String {
        let mut out = format!(
            "BGPsec (issue 12 §6), measured on {} ({} logical CPUs), {}\n\n",
            self.machine.cpu, self.machine.logical_cpus, self.machine.openssl
        );
        out.push_str("Validation of an n-hop UPDATE (decode + RFC 8205 §5.2) vs its floor, sampled alternately\n");
        let mut t = Table::new(
            &[
                Column::left("suite", 20),
                Column::right("n", 3),
                Column::right("validate µs", 12),
                Column::right("floor µs", 12),
                Column::right("ratio", 8),
                Column::right("target", 7),
                Column::left("floor", 0).after(2),
            ],
            "",
        );
        for r in &self.rows {
            let target = if r.suite.starts_with("bgr") {
                Some(self.targets.bgr_over_floor)
            } else if r.suite.starts_with("ecdsa") {
                Some(self.targets.ecdsa_over_floor)
            } else {
                None
            };
            t.row([
                r.suite.clone(),
                r.n.to_string(),
                format!("{:.1}", r.validate_us),
                format!("{:.1}", r.floor_us),
                format!("{:.3}", r.over_floor),
                target.map_or_else(|| "—".to_string(), |t| format!("≤ {t:.2}")),
                r.floor.to_string(),
            ]);
        }
        out += &t.render();
        out += &self.batch.render();
        for s in &self.no_floor {
            out.push_str(&format!("{s}: no floor in this benchmark, not measured\n"));
        }
        if let Some(s) = &self.scaling {
            out.push_str(&format!(
                "\nvalidate-mrt over {} UPDATEs ({} signatures) signed from {}:\n  1 thread {:.3} s ({:.0} UPDATEs/s), 2 threads {:.3} s ({:.0} UPDATEs/s, {:.0} signatures/s): speedup {:.2} (target ≥ {:.1})\n",
                s.updates,
                s.signatures,
                s.file,
                s.one_thread_s,
                s.one_thread_updates_per_s,
                s.two_threads_s,
                s.two_threads_updates_per_s,
                s.two_threads_signatures_per_s,
                s.speedup,
                self.targets.two_thread_speedup
            ));
        }
        for p in &self.projections {
            out.push_str(&format!(
                "\nfull table ({:.2} M routes, {:.1} hops mean), {}: {:.1} µs per UPDATE; {:.0} s on one core; {:.0} s on all {} cores (at the measured 2-thread efficiency)",
                FULL_TABLE_ROUTES / 1e6,
                FULL_TABLE_HOPS,
                p.suite,
                p.update_us,
                p.one_core_s,
                p.all_cores_s,
                p.cores
            ));
        }
        out.push_str("\n\nBGPsec_PATH size per n (octets, as signed in this run) beside BGR Table 1's signature length\n");
        let mut t = Table::new(
            &[
                Column::left("suite", 20),
                Column::right("n", 3),
                Column::right("attribute", 10),
                Column::right("signatures", 11),
                Column::right("UPDATE", 9),
                Column::left("BGR Table 1 signature octets", 0).after(2),
            ],
            "",
        );
        for s in &self.sizes {
            t.row([
                s.suite.clone(),
                s.n.to_string(),
                s.attribute_bytes.to_string(),
                s.signature_bytes.to_string(),
                s.message_bytes
                    .map_or_else(|| "> 4096".to_string(), |b| b.to_string()),
                match (&s.paper_scheme, s.paper_signature_bytes) {
                    (Some(name), Some(b)) => format!("{b:.1} ({name} bits)"),
                    _ => String::new(),
                },
            ]);
        }
        out += &t.render();
        out
    }
}

/// validate-mrt on one thread and on two over the first announcements of the RIS 2016
/// file, signed with suite 1.
fn scaling(budget: Budget, o: &Options) -> Result<Option<Scaling>, Error> {
    let quick = o.quick;
    let path = o.data_file(crate::UPDATES_FILE)?;
    let Some(suite) = SUITES.first().copied() else {
        return Ok(None);
    };
    let limit = if quick { 600 } else { 3_000 };
    tracing::info!(
        "validate-mrt: signing the first {limit} announcements of {} ...",
        path.display()
    );
    let mut signed = Vec::new();
    let mut ring = Keyring::new(suite);
    let options = SignOptions {
        default_target_as: 12_654,
        limit: Some(limit),
        threads: 2,
    };
    let input = hopsig_bgp::mrt::open(&path).map_err(|e| Error::Input(e.to_string()))?;
    sign_mrt(input.reader, &mut signed, &mut ring, &options, &mut |_| {})
        .map_err(|e| Error::setup(format_args!("{}: {e}", path.display())))?;
    let keys = ring.router_keys();
    let run = |threads| {
        validate_mrt(signed.as_slice(), &keys, threads, &mut |_| {})
            .map_err(|e| SchemeError::Key(e.to_string()))
    };
    let report = run(1).map_err(fail)?;
    if report.valid != report.updates {
        return Err(Error::setup("a signed UPDATE is not valid"));
    }
    tracing::info!("validate-mrt: 1 thread vs 2 threads ...");
    let samples = Budget {
        samples: budget.samples.min(9),
        ..budget
    };
    let (one, two) = paired(samples, &mut || run(1).map(drop), &mut || run(2).map(drop))?;
    let (one, two) = (one / 1e6, two / 1e6);
    Ok(Some(Scaling {
        file: path.display().to_string(),
        updates: report.updates,
        signatures: report.signatures,
        one_thread_s: one,
        two_threads_s: two,
        speedup: one / two,
        one_thread_updates_per_s: report.updates as f64 / one,
        two_threads_updates_per_s: report.updates as f64 / two,
        two_threads_signatures_per_s: report.signatures as f64 / two,
    }))
}

/// Per suite, from its n = 4 and n = 5 rows.
fn projections(paths: &[PathRow], cores: usize, efficiency: f64) -> Vec<Projection> {
    let mut out = Vec::new();
    let mut suites: Vec<&str> = paths.iter().map(|r| r.suite.as_str()).collect();
    suites.dedup();
    for suite in suites {
        let at = |n| {
            paths
                .iter()
                .find(|r| r.suite == suite && r.n == n)
                .map(|r| r.validate_us)
        };
        let (Some(four), Some(five)) = (at(4), at(5)) else {
            continue;
        };
        let update_us = four + (FULL_TABLE_HOPS - 4.0) * (five - four);
        let one_core_s = FULL_TABLE_ROUTES * update_us / 1e6;
        out.push(Projection {
            suite: suite.to_string(),
            update_us,
            one_core_s,
            cores,
            all_cores_s: one_core_s / (cores as f64 * efficiency).max(1.0),
        });
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// The floor verifies exactly the octets the validator checks, and the sizes
    /// reported are the attribute's: header, Secure_Path (2 + 6n), one block (2 + 1 +
    /// n × (SKI 20 + length 2) + the signatures).
    #[test]
    fn floor_inputs_and_sizes_are_the_paths() {
        let suite = SUITES[0];
        let mut ring = Keyring::new(suite);
        ring.generate(
            &route(MAX_N)
                .unwrap()
                .hops
                .iter()
                .map(|h| h.asn)
                .collect::<Vec<_>>(),
            2,
        )
        .unwrap();
        for n in [1, 2, 7, 15] {
            let s = signed(suite, &ring, n).unwrap();
            let items: Vec<(&[u8], &[u8], &[u8])> = s
                .hops
                .iter()
                .map(|(k, m, sig)| (k.as_slice(), m.as_slice(), sig.as_slice()))
                .collect();
            EcdsaP256Verifications::new(&items)
                .unwrap()
                .verify_all()
                .unwrap();
            // Another hop's octets do not verify: the floor checks what it is given.
            if n > 1 {
                let mut swapped = items.clone();
                swapped[0].1 = items[1].1;
                assert!(EcdsaP256Verifications::new(&swapped)
                    .unwrap()
                    .verify_all()
                    .is_err());
            }
            let value = 2 + 6 * n + 3 + 22 * n + s.signature_bytes;
            let header = if value > 255 { 4 } else { 3 };
            assert_eq!(s.attribute_bytes, header + value, "n = {n}");
            assert!(s.message.unwrap().len() > s.attribute_bytes);
        }
    }

    #[test]
    fn projection_interpolates_at_4_8_hops() {
        let row = |n, us| PathRow {
            suite: "s".into(),
            n,
            floor: String::new(),
            validate_us: us,
            floor_us: us,
            over_floor: 1.0,
        };
        let p = projections(&[row(4, 100.0), row(5, 200.0), row(7, 1.0)], 4, 0.9);
        assert_eq!(p.len(), 1);
        assert!((p[0].update_us - 180.0).abs() < 1e-9);
        assert!((p[0].one_core_s - 1_040_000.0 * 180e-6).abs() < 1e-6);
        assert!((p[0].all_cores_s - p[0].one_core_s / 3.6).abs() < 1e-6);
        assert!(projections(&[row(4, 1.0)], 2, 1.0).is_empty());
    }
}
