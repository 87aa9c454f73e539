//! `hopsig bench bgpsec`, issue 28: suite-1 signatures verified per second per core by
//! the batch backend BGPsec validation uses (`avx512ifma` where the processor has AVX-512
//! IFMA, else `cpu`), at batches of 8, 64 and 256, beside OpenSSL's single verification
//! sampled alternately in the same run, with cycles per verification from the CPU's
//! nominal clock and the floor implied by the kernel's count of 52-bit multiplies.
//!
//! Each batch costs what validation pays: every message hashed (SHA-256), every DER
//! signature parsed, every key already parsed (`EcdsaP256::public_from_der`, as the
//! validator's key table holds them). The keys repeat — 16 keys sign a batch of 256, as
//! a few thousand ASes sign a whole table — so a key's table of multiples, built on its
//! first vector use and kept, is measured warm.
//!
//! Two floors, both OpenSSL, both sampled in turn with the backend:
//! * `EcdsaP256Verifications` over the same items: SHA-256 + DER + `ECDSA_do_verify`,
//!   one item at a time — exactly the `cpu` backend's work;
//! * `RawEcdsaP256::verify`: one verification of a ready digest and signature, the
//!   primitive alone (issue 28's "~42 µs").
//!
//! Beside them, `hopsig_p256` called directly on ready digests and (r, s) — the vector
//! backend without hashing and parsing — with the backend it selects and with the
//! portable code, so the rows say where the time goes.

use hopsig_primitives::hash::sha256;
use hopsig_schemes::batch::{self, BatchVerify, Signatures, Signed};
use hopsig_schemes::concat::{BaseSignature, EcdsaP256};
use hopsig_schemes::floors::{EcdsaP256Verifications, RawEcdsaP256};
use hopsig_schemes::Error as SchemeError;
use openssl::ec::{EcGroup, EcKey};
use openssl::ecdsa::EcdsaSig;
use openssl::nid::Nid;
use openssl::pkey::PKey;
use serde::Serialize;

use crate::timer::{alternating, Budget};
use crate::Error;

/// The batch sizes measured.
pub const BATCHES: [usize; 3] = [8, 64, 256];
/// Distinct keys signing the items (router keys repeat across UPDATEs).
const KEYS: usize = 16;
/// Octets of each signed message: about a 3-hop suite-1 signature input (RFC 8205
/// §4.2: Target AS, the segments and signatures of the path so far, the NLRI).
const MESSAGE_LEN: usize = 150;
/// Issue 28's target: the batch backend over the OpenSSL floor, per signature, at least.
pub const TARGET_SPEEDUP: f64 = 2.0;
/// Issue 28's aim.
pub const AIM_SPEEDUP: f64 = 3.0;

/// Zen 4 (this machine kind) issues one 512-bit `vpmadd52luq` / `vpmadd52huq` per core
/// clock cycle: the two 256-bit halves of a zmm operation go down the two FP multiply
/// pipes together (AMD, "Software Optimization Guide for the AMD Zen4
/// Microarchitecture", pub. 57647, §2.11; uops.info, VPMADD52LUQ (ZMM, ZMM, ZMM), Zen
/// 4: reciprocal throughput 1). `tools/ifma-throughput.c` measures it on the machine
/// (docs/BENCHMARKS.md, issue 28).
pub const IFMA_PER_CYCLE: f64 = 1.0;

/// 52-bit multiply instructions (`vpmadd52luq` + `vpmadd52huq`, each eight lanes) in one
/// eight-lane call of the kernel, counted in docs/design/p256-ifma.md ("IFMA count per
/// verification"): 252 doublings × 480 + 80 mixed additions × 710 (a multiplication 70,
/// a squaring 50).
pub const IFMA_PER_KERNEL_CALL: Option<f64> = Some(177_760.0);

/// The processor's nominal clock and where it was read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NominalClock {
    /// MHz.
    pub mhz: f64,
    /// `/sys/devices/system/cpu/cpu0/cpufreq/base_frequency` (the nominal, or base,
    /// frequency) or `/proc/cpuinfo cpu MHz` (the first CPU's current frequency as the
    /// kernel last read it; on a virtual machine without cpufreq, the TSC frequency,
    /// which is the nominal one).
    pub source: String,
}

impl NominalClock {
    /// The clock of this machine, if either file says it.
    pub fn detect() -> Option<NominalClock> {
        let base = "/sys/devices/system/cpu/cpu0/cpufreq/base_frequency";
        if let Some(mhz) = std::fs::read_to_string(base)
            .ok()
            .and_then(|s| base_frequency_mhz(&s))
        {
            return Some(NominalClock {
                mhz,
                source: base.into(),
            });
        }
        let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
        Some(NominalClock {
            mhz: cpuinfo_mhz(&info)?,
            source: "/proc/cpuinfo cpu MHz".into(),
        })
    }

    /// Cycles in `us` microseconds at this clock.
    pub fn cycles(&self, us: f64) -> f64 {
        us * self.mhz
    }
}

/// `base_frequency` holds kHz.
fn base_frequency_mhz(text: &str) -> Option<f64> {
    let khz: f64 = text.trim().parse().ok()?;
    (khz > 0.0).then_some(khz / 1000.0)
}

/// The first `cpu MHz` line of /proc/cpuinfo.
fn cpuinfo_mhz(info: &str) -> Option<f64> {
    let line = info.lines().find(|l| l.starts_with("cpu MHz"))?;
    let mhz: f64 = line.split_once(':')?.1.trim().parse().ok()?;
    (mhz > 0.0).then_some(mhz)
}

/// One batch size: microseconds per signature of each operation, medians of samples
/// taken in turn.
#[derive(Debug, Clone, Serialize)]
pub struct BatchRow {
    /// Signatures per call.
    pub batch: usize,
    /// The seam's default backend: `verify_batch` of the items (hash, DER, verify).
    pub backend_us: f64,
    /// OpenSSL on the same items, one at a time (hash, DER, verify).
    pub openssl_us: f64,
    /// `openssl_us / backend_us`.
    pub speedup: f64,
    /// Signatures per second on one core by the backend.
    pub backend_per_s: f64,
    /// Signatures per second on one core by OpenSSL.
    pub openssl_per_s: f64,
    /// `hopsig_p256::verify_batch_vartime` on ready digests and (r, s).
    pub p256_us: f64,
    /// The same with the portable code (`Backend::Portable`).
    pub portable_us: f64,
    /// One OpenSSL verification of a ready digest and signature (`RawEcdsaP256`).
    pub raw_openssl_us: f64,
    /// `raw_openssl_us / p256_us`.
    pub raw_speedup: f64,
    /// Cycles per signature of the backend at the nominal clock.
    pub backend_cycles: Option<f64>,
    /// Cycles per signature of `hopsig_p256` alone.
    pub p256_cycles: Option<f64>,
    /// Cycles of one raw OpenSSL verification.
    pub raw_openssl_cycles: Option<f64>,
}

/// What the 52-bit multiplies of the kernel allow at the machine's IFMA throughput.
#[derive(Debug, Clone, Serialize)]
pub struct IfmaFloor {
    /// `vpmadd52luq` + `vpmadd52huq` per eight-lane kernel call.
    pub per_call: f64,
    /// Per verification (a call verifies eight).
    pub per_verification: f64,
    /// Instructions per core cycle ([`IFMA_PER_CYCLE`]).
    pub per_cycle: f64,
    /// The floor, core cycles per verification: the kernel cannot go below it.
    pub cycles: f64,
}

/// The whole measurement.
#[derive(Debug, Clone, Serialize)]
pub struct BatchVerification {
    /// The backend measured: the seam's default for suite 1 (`avx512ifma`, `cpu`).
    pub backend: String,
    /// What `hopsig_p256` selects (`avx512ifma`, `portable`).
    pub p256_backend: String,
    /// Whether the processor has AVX-512 IFMA (whatever `HOPSIG_CPU_DISABLE` says).
    pub ifma_detected: bool,
    /// The clock cycles are counted at.
    pub clock: Option<NominalClock>,
    /// Per batch size.
    pub rows: Vec<BatchRow>,
    /// The kernel's multiply-bound floor, once its count is known.
    pub ifma_floor: Option<IfmaFloor>,
    /// [`TARGET_SPEEDUP`].
    pub target_speedup: f64,
    /// [`AIM_SPEEDUP`].
    pub aim_speedup: f64,
}

/// Signed items as the seam and `hopsig_p256` take them.
pub struct Inputs {
    /// Per item: SPKI, message, DER signature.
    items: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
    /// The keys as the seam holds them, one per SPKI of `items` (by `key_of`).
    keys: Vec<<EcdsaP256 as BaseSignature>::PublicKey>,
    /// The same keys for `hopsig_p256`.
    p256_keys: Vec<hopsig_p256::PublicKey>,
    /// Item i's key index.
    key_of: Vec<usize>,
    /// Item i's digest, r, s.
    raw: Vec<([u8; 32], [u8; 32], [u8; 32])>,
}

/// r or s of a signature, 32 octets big-endian.
fn scalar(b: &openssl::bn::BigNumRef) -> Result<[u8; 32], Error> {
    let v = b.to_vec_padded(32).map_err(Error::setup)?;
    <[u8; 32]>::try_from(v.as_slice()).map_err(Error::setup)
}

impl Inputs {
    /// `n` signatures by [`KEYS`] keys, each on its own [`MESSAGE_LEN`]-octet message.
    ///
    /// # Errors
    /// Backend failures.
    pub fn new(n: usize) -> Result<Inputs, Error> {
        let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).map_err(Error::setup)?;
        let (mut spkis, mut secrets, mut keys, mut p256_keys) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..KEYS.min(n.max(1)) {
            let sk = EcKey::generate(&group).map_err(Error::setup)?;
            let public = EcKey::from_public_key(&group, sk.public_key()).map_err(Error::setup)?;
            let spki = PKey::from_ec_key(public)
                .and_then(|k| k.public_key_to_der())
                .map_err(Error::setup)?;
            keys.push(EcdsaP256::public_from_der(&spki).map_err(Error::setup)?);
            // A P-256 SubjectPublicKeyInfo ends with the 65-octet uncompressed point.
            let point = spki
                .get(spki.len().saturating_sub(65)..)
                .ok_or_else(|| Error::setup("short SPKI"))?;
            p256_keys.push(hopsig_p256::PublicKey::from_sec1(point).map_err(Error::setup)?);
            spkis.push(spki);
            secrets.push(sk);
        }
        let (mut items, mut key_of, mut raw) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..n {
            let k = i % secrets.len();
            let message: Vec<u8> = (0..MESSAGE_LEN)
                .map(|j| (i.wrapping_mul(131) + j * 7) as u8)
                .collect();
            let digest = sha256(&[&message]);
            let sig = EcdsaSig::sign(&digest, &secrets[k]).map_err(Error::setup)?;
            raw.push((digest, scalar(sig.r())?, scalar(sig.s())?));
            items.push((
                spkis[k].clone(),
                message,
                sig.to_der().map_err(Error::setup)?,
            ));
            key_of.push(k);
        }
        Ok(Inputs {
            items,
            keys,
            p256_keys,
            key_of,
            raw,
        })
    }

    /// The first `n` items for the seam.
    fn signed(&self, n: usize) -> Vec<Signed<'_, EcdsaP256>> {
        self.items
            .iter()
            .zip(&self.key_of)
            .take(n)
            .map(|((_, message, signature), &k)| Signed {
                key: &self.keys[k],
                message,
                signature,
            })
            .collect()
    }

    /// The first `n` items for `hopsig_p256`.
    fn p256_items(&self, n: usize) -> Vec<hopsig_p256::Item<'_>> {
        self.raw
            .iter()
            .zip(&self.key_of)
            .take(n)
            .map(|(&(digest, r, s), &k)| hopsig_p256::Item {
                key: &self.p256_keys[k],
                digest,
                r,
                s,
            })
            .collect()
    }

    /// The first `n` items for the OpenSSL floor.
    fn floor(&self, n: usize) -> Result<EcdsaP256Verifications, Error> {
        let items: Vec<(&[u8], &[u8], &[u8])> = self
            .items
            .iter()
            .take(n)
            .map(|(k, m, s)| (k.as_slice(), m.as_slice(), s.as_slice()))
            .collect();
        EcdsaP256Verifications::new(&items).map_err(Error::setup)
    }
}

/// Ok if every verdict is true (the items are all valid: a false one is a bug).
fn all_valid(verdicts: &[bool], n: usize) -> Result<(), SchemeError> {
    if verdicts.len() == n && verdicts.iter().all(|v| *v) {
        Ok(())
    } else {
        Err(SchemeError::InvalidSignature)
    }
}

/// The operations of one row, in the order [`alternating`] samples them.
const OPS: usize = 5;

impl BatchVerification {
    /// Measures every batch size of [`BATCHES`] with `budget`.
    ///
    /// # Errors
    /// Backend failures; a valid item that does not verify.
    pub fn measure(budget: Budget) -> Result<BatchVerification, Error> {
        let backend: &dyn BatchVerify<Signatures<EcdsaP256>> =
            batch::default_backend::<Signatures<EcdsaP256>>();
        let p256_backend = hopsig_p256::active_backend();
        let clock = NominalClock::detect();
        let max = BATCHES.iter().copied().max().unwrap_or(0);
        tracing::info!(
            "batch verification: {max} suite-1 signatures by {KEYS} keys, backend {} (hopsig_p256: {}) ...",
            backend.name(),
            p256_backend.name()
        );
        let inputs = Inputs::new(max)?;
        let raw = RawEcdsaP256::new().map_err(Error::setup)?;
        let mut rows = Vec::with_capacity(BATCHES.len());
        for n in BATCHES {
            tracing::info!("batch verification: {n} signatures per call");
            let signed = inputs.signed(n);
            let p256 = inputs.p256_items(n);
            let floor = inputs.floor(n)?;
            let us: [f64; OPS] = alternating(budget, &mut |k| match k {
                0 => all_valid(&backend.verify_batch(&signed), n),
                1 => floor.verify_all(),
                2 => all_valid(&hopsig_p256::verify_batch_vartime(&p256), n),
                3 => all_valid(
                    &hopsig_p256::verify_batch_with_vartime(hopsig_p256::Backend::Portable, &p256),
                    n,
                ),
                _ => raw.verify(),
            })?;
            let per = |k: usize| us[k] / n as f64;
            let (backend_us, openssl_us, p256_us, portable_us) = (per(0), per(1), per(2), per(3));
            let raw_openssl_us = us[4];
            let cycles = |us: f64| clock.as_ref().map(|c| c.cycles(us));
            rows.push(BatchRow {
                batch: n,
                backend_us,
                openssl_us,
                speedup: openssl_us / backend_us,
                backend_per_s: 1e6 / backend_us,
                openssl_per_s: 1e6 / openssl_us,
                p256_us,
                portable_us,
                raw_openssl_us,
                raw_speedup: raw_openssl_us / p256_us,
                backend_cycles: cycles(backend_us),
                p256_cycles: cycles(p256_us),
                raw_openssl_cycles: cycles(raw_openssl_us),
            });
        }
        Ok(BatchVerification {
            backend: backend.name().to_string(),
            p256_backend: p256_backend.name().to_string(),
            ifma_detected: hopsig_cpu::detected(hopsig_cpu::Feature::Avx512Ifma),
            clock,
            rows,
            ifma_floor: IFMA_PER_KERNEL_CALL.map(ifma_floor),
            target_speedup: TARGET_SPEEDUP,
            aim_speedup: AIM_SPEEDUP,
        })
    }

    /// The section of the plain-text report.
    pub fn render(&self) -> String {
        let mut out = format!(
            "\nSuite-1 batch verification (issue 28): backend {} (hopsig_p256: {}; AVX-512 IFMA {}), one core, µs per signature, sampled alternately\n",
            self.backend,
            self.p256_backend,
            if self.ifma_detected {
                "present"
            } else {
                "absent"
            }
        );
        let mut t = crate::table::Table::new(
            &[
                crate::table::Column::right("batch", 6),
                crate::table::Column::right("backend", 9),
                crate::table::Column::right("OpenSSL", 9),
                crate::table::Column::right("speed-up", 9),
                crate::table::Column::right("sig/s", 9),
                crate::table::Column::right("p256", 8),
                crate::table::Column::right("portable", 9),
                crate::table::Column::right("raw OpenSSL", 12),
                crate::table::Column::right("raw ×", 7),
                crate::table::Column::right("cycles", 9),
                crate::table::Column::right("p256 cycles", 12),
                crate::table::Column::right("OpenSSL cycles", 15),
            ],
            "",
        );
        let cycles = |c: Option<f64>| c.map_or_else(|| "—".to_string(), |c| format!("{c:.0}"));
        for r in &self.rows {
            t.row([
                r.batch.to_string(),
                format!("{:.2}", r.backend_us),
                format!("{:.2}", r.openssl_us),
                format!("{:.2}", r.speedup),
                format!("{:.0}", r.backend_per_s),
                format!("{:.2}", r.p256_us),
                format!("{:.2}", r.portable_us),
                format!("{:.2}", r.raw_openssl_us),
                format!("{:.2}", r.raw_speedup),
                cycles(r.backend_cycles),
                cycles(r.p256_cycles),
                cycles(r.raw_openssl_cycles),
            ]);
        }
        out += &t.render();
        out.push_str(&format!(
            "backend, OpenSSL: SHA-256 + DER + verify; p256, portable, raw OpenSSL: digest and (r, s) ready. Target: speed-up ≥ {:.0} at batches ≥ 64 (aim {:.0}).\n",
            self.target_speedup, self.aim_speedup
        ));
        match &self.clock {
            Some(c) => out.push_str(&format!("cycles at {:.0} MHz ({})\n", c.mhz, c.source)),
            None => out.push_str("cycles: no clock found\n"),
        }
        if let Some(f) = &self.ifma_floor {
            out.push_str(&format!(
                "IFMA floor: {:.0} multiplies per 8-lane call, {:.0} per verification, at {:.1} per cycle: {:.0} cycles per verification\n",
                f.per_call, f.per_verification, f.per_cycle, f.cycles
            ));
        }
        out
    }
}

/// The floor of `per_call` multiply instructions per eight-lane call.
fn ifma_floor(per_call: f64) -> IfmaFloor {
    let per_verification = per_call / 8.0;
    IfmaFloor {
        per_call,
        per_verification,
        per_cycle: IFMA_PER_CYCLE,
        cycles: per_verification / IFMA_PER_CYCLE,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_is_read_from_either_file() {
        assert_eq!(base_frequency_mhz("2600000\n"), Some(2600.0));
        assert_eq!(base_frequency_mhz("0\n"), None);
        assert_eq!(base_frequency_mhz("fast"), None);
        let info = "processor\t: 0\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2596.138\n\nprocessor\t: 1\ncpu MHz\t\t: 3000.0\n";
        assert_eq!(cpuinfo_mhz(info), Some(2596.138));
        assert_eq!(cpuinfo_mhz("model name\t: x\n"), None);
        let c = NominalClock {
            mhz: 2500.0,
            source: String::new(),
        };
        assert!((c.cycles(42.0) - 105_000.0).abs() < 1e-6);
    }

    #[test]
    fn the_ifma_floor_divides_a_call_among_its_lanes() {
        let f = ifma_floor(80_000.0);
        assert_eq!(f.per_verification, 10_000.0);
        assert_eq!(f.cycles, 10_000.0 / IFMA_PER_CYCLE);
    }

    /// The items measured are valid under every path the rows time, and the check
    /// each timed call makes fails when one verdict is false (a broken backend cannot
    /// be timed as a fast one).
    #[test]
    fn every_timed_path_verifies_the_items() {
        let n = 20;
        let inputs = Inputs::new(n).unwrap();
        let backend = batch::default_backend::<Signatures<EcdsaP256>>();
        let signed = inputs.signed(n);
        all_valid(&backend.verify_batch(&signed), n).unwrap();
        inputs.floor(n).unwrap().verify_all().unwrap();
        let p256 = inputs.p256_items(n);
        all_valid(&hopsig_p256::verify_batch_vartime(&p256), n).unwrap();
        all_valid(
            &hopsig_p256::verify_batch_with_vartime(hopsig_p256::Backend::Portable, &p256),
            n,
        )
        .unwrap();
        // Item 3's signature on item 4's message: both paths say no.
        let mut bad = signed.clone();
        bad[3].message = signed[4].message;
        assert!(all_valid(&backend.verify_batch(&bad), n).is_err());
        let mut bad = p256.clone();
        bad[3].digest = p256[4].digest;
        assert!(all_valid(&hopsig_p256::verify_batch_vartime(&bad), n).is_err());
        assert!(all_valid(&[true; 3], 4).is_err());
    }
}
