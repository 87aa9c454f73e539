//! 003 Table II: ECDSA with SHA-256 on K-163, K-233 and K-283 with hopsig's Koblitz
//! arithmetic (sign, verify, implicit-certificate extract, and extract + verify fused),
//! beside OpenSSL's own ECDSA on the same curves and on P-256, sampled alternately in
//! the same run.

use serde::Serialize;

use hopsig_schemes::concat::koblitz::verify_der;
use hopsig_schemes::concat::{BaseSignature, EcdsaK163, EcdsaK233, EcdsaK283};
use hopsig_schemes::floors::{EcCurve, OpensslSignature};
use hopsig_schemes::pla::icnr;
use hopsig_schemes::pla::koblitz as hopsig_koblitz_curve;

use super::Machine;
use crate::table::{Column, Table};
use crate::timer::{paired, single, Budget};
use crate::Error;

fn fail(e: impl std::fmt::Display) -> Error {
    Error::setup(e)
}

/// One curve.
#[derive(Debug, Clone, Serialize)]
pub struct Row2 {
    /// Curve.
    pub curve: String,
    /// hopsig sign, µs.
    pub sign_us: f64,
    /// OpenSSL sign on the same curve, µs.
    pub openssl_sign_us: f64,
    /// hopsig verify, µs.
    pub verify_us: f64,
    /// OpenSSL verify on the same curve, µs.
    pub openssl_verify_us: f64,
    /// `openssl_sign_us / sign_us`.
    pub sign_speedup: f64,
    /// `openssl_verify_us / verify_us`.
    pub verify_speedup: f64,
    /// Implicit-certificate key extraction (eq. 7), µs.
    pub extract_us: f64,
    /// ECDSA verification with a known key, sampled alternately with `fused_us`, µs.
    pub plain_verify_us: f64,
    /// Fused extraction + verification (eq. 9), µs.
    pub fused_us: f64,
    /// `fused_us / plain_verify_us` (target ≤ 1.3; the paper: 1.36).
    pub fused_over_verify: f64,
    /// u1·G + u2·Q by the binary method of 003 Fig. 2 (interleaved width-5 NAF with
    /// doublings; Q's table built each time, G's cached), µs.
    pub msm2_binary_us: f64,
    /// The same sum by interleaved τNAF (Q's width-4 table built each time), µs.
    pub msm2_tau_us: f64,
    /// u·G + v·D + w·W_T (extraction + verification) by the binary method, D's table
    /// built each time, G's and W_T's cached, µs.
    pub msm3_binary_us: f64,
    /// The same three-term sum by interleaved τNAF, µs.
    pub msm3_tau_us: f64,
}

/// The multi-scalar multiplications at the core of verification, binary (Fig. 2) and
/// τ-adic, on the same public scalars and points: (2-term binary, 2-term τ, 3-term
/// binary, 3-term τ) in µs.
fn msm<C: hopsig_koblitz::curve::Curve>(budget: Budget) -> Result<[f64; 4], Error> {
    use hopsig_koblitz::curve::{mul, multi_mul_tables_vartime, order_bytes, Affine, OddTable};
    use hopsig_koblitz::tau::{multi_mul_tau_vartime, TauTable, FIXED_WIDTH, POINT_WIDTH};
    let g = Affine::<C>::generator();
    let n = order_bytes::<C>();
    let scalar = |seed: u8| -> Vec<u8> {
        let len = n.len();
        // Below n: the order's top byte halved, then pseudo-random bytes.
        let top = n[0] >> 1;
        (0..len)
            .map(|i| {
                if i == 0 {
                    top
                } else {
                    (i as u8).wrapping_mul(151) ^ seed
                }
            })
            .collect()
    };
    let (u1, u2, u3) = (scalar(0x3c), scalar(0xa5), scalar(0x5f));
    let q = mul(&g, &scalar(0x11)).to_affine();
    let d = mul(&g, &scalar(0x22)).to_affine();
    let wt = mul(&g, &scalar(0x33)).to_affine();
    let (wt_binary, wt_tau) = (
        OddTable::new_vartime(&wt),
        TauTable::new_vartime(&wt, FIXED_WIDTH),
    );
    let (gb, gt) = (C::generator_table(), C::generator_tau_table());
    let (b2, t2) = paired(
        budget,
        &mut || {
            let x = multi_mul_tables_vartime(&[(&u1, gb), (&u2, &OddTable::new_vartime(&q))]);
            std::hint::black_box(x);
            Ok(())
        },
        &mut || {
            let x =
                multi_mul_tau_vartime(&[(&u1, gt), (&u2, &TauTable::new_vartime(&q, POINT_WIDTH))]);
            std::hint::black_box(x);
            Ok(())
        },
    )?;
    let (b3, t3) = paired(
        budget,
        &mut || {
            let x = multi_mul_tables_vartime(&[
                (&u1, gb),
                (&u2, &OddTable::new_vartime(&d)),
                (&u3, &wt_binary),
            ]);
            std::hint::black_box(x);
            Ok(())
        },
        &mut || {
            let x = multi_mul_tau_vartime(&[
                (&u1, gt),
                (&u2, &TauTable::new_vartime(&d, POINT_WIDTH)),
                (&u3, &wt_tau),
            ]);
            std::hint::black_box(x);
            Ok(())
        },
    )?;
    Ok([b2, t2, b3, t3])
}

/// The measurement.
#[derive(Debug, Clone, Serialize)]
pub struct Table2 {
    /// "table2".
    pub suite: String,
    /// Where it ran.
    pub machine: Machine,
    /// Whether `--quick` was used.
    pub quick: bool,
    /// OpenSSL ECDSA P-256 sign, µs.
    pub p256_sign_us: f64,
    /// OpenSSL ECDSA P-256 verify, µs.
    pub p256_verify_us: f64,
    /// Rows K-163, K-233, K-283.
    pub rows: Vec<Row2>,
}

/// Signed messages per verification measurement: each timed call verifies the next
/// one, so that the figures average over scalars instead of depending on the digits
/// of one signature (the fused/plain ratio moved by ±0.02 from one key to another).
const MESSAGES: usize = 32;

/// A DER signature or the reason there is none.
type Signed = Result<Vec<u8>, hopsig_schemes::Error>;

/// `MESSAGES` distinct 100-byte messages.
fn messages() -> Vec<Vec<u8>> {
    (0..MESSAGES).map(|i| vec![i as u8; 100]).collect()
}

/// A closure that verifies signature i mod `MESSAGES` on call i.
fn cycle<'a>(
    msgs: &'a [Vec<u8>],
    sigs: &'a [Vec<u8>],
    verify: impl Fn(&[u8], &[u8]) -> bool + 'a,
) -> impl FnMut() -> Result<(), hopsig_schemes::Error> + 'a {
    let mut i = 0;
    move || {
        i = (i + 1) % msgs.len();
        if verify(&msgs[i], &sigs[i]) {
            Ok(())
        } else {
            Err(hopsig_schemes::Error::InvalidSignature)
        }
    }
}

fn row<B: BaseSignature, C: hopsig_koblitz_curve::Curve>(
    budget: Budget,
    name: &str,
    curve: EcCurve,
) -> Result<Row2, Error> {
    let msgs = messages();
    let sk = B::generate().map_err(fail)?;
    let pk = B::public(&sk).map_err(fail)?;
    let theirs = OpensslSignature::ec_sha256(curve, "openssl").map_err(fail)?;
    let sign_all = |sign: &dyn Fn(&[u8]) -> Signed| {
        msgs.iter().map(|m| sign(m)).collect::<Result<Vec<_>, _>>()
    };
    let sigs = sign_all(&|m| B::sign(&sk, m)).map_err(fail)?;
    let their_sigs = sign_all(&|m| theirs.sign(m)).map_err(fail)?;
    let (s, os) = paired(
        budget,
        &mut || B::sign(&sk, &msgs[0]).map(drop),
        &mut || theirs.sign(&msgs[0]).map(drop),
    )?;
    let (v, ov) = paired(
        budget,
        &mut cycle(&msgs, &sigs, |m, sig| B::verify(&pk, m, sig)),
        &mut cycle(&msgs, &their_sigs, |m, sig| theirs.verify(m, sig).is_ok()),
    )?;
    // Implicit certificates: one TTP, one user, signed packets.
    let ttp = icnr::Ttp::<C>::setup().map_err(fail)?;
    let ttp_table = hopsig_koblitz_curve::TauTable::new_vartime(
        ttp.public(),
        hopsig_koblitz_curve::FIXED_WIDTH,
    );
    let blind = icnr::blind::<C>().map_err(fail)?;
    let issued = ttp.issue(b"alice", blind.request()).map_err(fail)?;
    let key = icnr::finalkey(&blind, &issued, b"alice", ttp.public()).map_err(fail)?;
    let ic_sigs = sign_all(&|m| key.sign(m)).map_err(fail)?;
    let cert = issued.cert.clone();
    let w = *key.public_point();
    let extract_us = single(budget, &mut || {
        icnr::extract(b"alice", &cert, ttp.public()).map(drop)
    })?;
    let (fused_us, plain_verify_us) = paired(
        budget,
        &mut cycle(&msgs, &ic_sigs, |m, sig| {
            icnr::verify_fused(b"alice", &cert, &ttp_table, m, sig)
        }),
        &mut cycle(&msgs, &ic_sigs, |m, sig| verify_der(&w, m, sig)),
    )?;
    let [msm2_binary_us, msm2_tau_us, msm3_binary_us, msm3_tau_us] = msm::<C>(budget)?;
    Ok(Row2 {
        msm2_binary_us,
        msm2_tau_us,
        msm3_binary_us,
        msm3_tau_us,
        extract_us,
        plain_verify_us,
        fused_us,
        fused_over_verify: fused_us / plain_verify_us,
        curve: name.to_string(),
        sign_us: s,
        openssl_sign_us: os,
        verify_us: v,
        openssl_verify_us: ov,
        sign_speedup: os / s,
        verify_speedup: ov / v,
    })
}

impl Table2 {
    /// Runs the measurement, with progress on stderr.
    ///
    /// # Errors
    /// Backend failures.
    pub fn measure(quick: bool) -> Result<Table2, Error> {
        let budget = if quick { Budget::QUICK } else { Budget::FULL };
        tracing::info!("[1/4] OpenSSL P-256");
        let p256 = OpensslSignature::p256().map_err(fail)?;
        let msg = vec![0x50u8; 100];
        let p256_sig = p256.sign(&msg).map_err(fail)?;
        let p256_sign_us = single(budget, &mut || p256.sign(&msg).map(drop))?;
        let p256_verify_us = single(budget, &mut || p256.verify(&msg, &p256_sig))?;
        tracing::info!("[2/4] K-163");
        let k163 = row::<EcdsaK163, hopsig_koblitz_curve::K163>(budget, "K-163", EcCurve::K163)?;
        tracing::info!("[3/4] K-233");
        let k233 = row::<EcdsaK233, hopsig_koblitz_curve::K233>(budget, "K-233", EcCurve::K233)?;
        tracing::info!("[4/4] K-283");
        let k283 = row::<EcdsaK283, hopsig_koblitz_curve::K283>(budget, "K-283", EcCurve::K283)?;
        Ok(Table2 {
            suite: "table2".into(),
            machine: Machine::detect(),
            quick,
            p256_sign_us,
            p256_verify_us,
            rows: vec![k163, k233, k283],
        })
    }

    /// A plain-text table.
    pub fn render(&self) -> String {
        let mut out = format!(
            "Table II (003), measured on {}: ECDSA SHA-256, 100-byte message\n\
             OpenSSL P-256 in the same run: sign {:.1} µs, verify {:.1} µs\n\n",
            self.machine.cpu, self.p256_sign_us, self.p256_verify_us,
        );
        let mut t = Table::new(
            &[
                Column::left("curve", 6),
                Column::right("sign µs", 9),
                Column::right("OpenSSL sign", 13),
                Column::right("speedup", 8),
                Column::right("verify µs", 10),
                Column::right("OpenSSL verify", 15),
                Column::right("speedup", 9),
                Column::right("extract µs", 11),
                Column::right("fused µs", 10),
                Column::right("fused/verify", 12),
            ],
            "",
        );
        for r in &self.rows {
            t.row([
                r.curve.to_string(),
                format!("{:.1}", r.sign_us),
                format!("{:.1}", r.openssl_sign_us),
                format!("{:.1}×", r.sign_speedup),
                format!("{:.1}", r.verify_us),
                format!("{:.1}", r.openssl_verify_us),
                format!("{:.1}×", r.verify_speedup),
                format!("{:.1}", r.extract_us),
                format!("{:.1}", r.fused_us),
                format!("{:.3}", r.fused_over_verify),
            ]);
        }
        out += &t.render();
        out.push_str(
            "\nMulti-scalar multiplication at the core of verification, µs (same scalars and points):\n",
        );
        let mut t = Table::new(
            &[
                Column::left("curve", 6),
                Column::right("2-term binary", 17),
                Column::right("2-term τ", 11),
                Column::right("gain", 8),
                Column::right("3-term binary", 17),
                Column::right("3-term τ", 11),
                Column::right("gain", 8),
            ],
            "",
        );
        for r in &self.rows {
            t.row([
                r.curve.to_string(),
                format!("{:.1}", r.msm2_binary_us),
                format!("{:.1}", r.msm2_tau_us),
                format!("{:.2}×", r.msm2_binary_us / r.msm2_tau_us),
                format!("{:.1}", r.msm3_binary_us),
                format!("{:.1}", r.msm3_tau_us),
                format!("{:.2}×", r.msm3_binary_us / r.msm3_tau_us),
            ]);
        }
        out += &t.render();
        out
    }
}
