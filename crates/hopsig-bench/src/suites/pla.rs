//! `hopsig bench pla`: the PLA router's per-packet check on real-sized IPv6 packets
//! (003 §I: "signatures must be able to be quickly verified to increase throughput").
//!
//! For each curve and layout, on 1500-octet IPv6/UDP packets signed by `hopsig-pla`'s
//! sender: the router's whole check (`Router::check`: parse, Hop-by-Hop option, header
//! decode, TTP, timestamp, replay window, verification) against its floor, the same
//! run's verification alone on the same packet (`verify_signature`: the fused
//! extraction + verification of eq. 9, or for certificates the TTP's and the packet's
//! signature), and plain ECDSA verification with the key known. Then the ordered
//! pipeline on 1 and 2 threads (2-core scaling, against 1 Gb/s of 1500-octet packets),
//! and a flood of random PLA headers against parsing alone.

use std::net::Ipv6Addr;
use std::time::{Duration, Instant};

use serde::Serialize;

use hopsig_koblitz::curve::{Curve, K163, K233, K283};
use hopsig_pla::capture::{Frame, Interface};
use hopsig_pla::option::Ipv6Packet;
use hopsig_pla::pipeline::{check_ordered, Clock};
use hopsig_pla::{PlaHeader, Router, RouterConfig, Sender, TtpDirectory, Verdict};
use hopsig_primitives::codec::Codec;
use hopsig_schemes::concat::koblitz::verify_der;
use hopsig_schemes::pla::header::verify_signature;
use hopsig_schemes::pla::icnr::{self, Ttp};
use hopsig_schemes::Error as SchemeError;

use super::Machine;
use crate::table::{Column, Table};
use crate::timer::{paired, rounds, single, Budget};
use crate::Error;

/// Unix time the packets are signed and checked at.
const NOW: u32 = 1_700_000_000;
/// Packets per measured set (distinct sequence numbers).
const PACKETS: usize = 256;
/// IPv6 packet size before the option: 40 + 8 (UDP) + 1452.
const PAYLOAD: usize = 1452;
/// 1 Gb/s of 1500-octet packets (on the wire, without preamble and gaps).
const LINE_RATE: f64 = 1e9 / (1500.0 * 8.0);
/// 003 Table II, K-163 ICNR_do_verify on a 1 GHz Athlon: 5.966 ms.
const PAPER_VERIFY_MS: f64 = 5.966;

/// One curve and layout.
#[derive(Debug, Serialize)]
pub struct Row {
    /// Curve.
    pub curve: &'static str,
    /// "implicit" or "certificate".
    pub layout: &'static str,
    /// PLA header octets.
    pub header_octets: usize,
    /// Signed IPv6 packet octets.
    pub packet_octets: usize,
    /// Router check, µs per packet.
    pub router_us: f64,
    /// Verification alone on the same packet (the floor), µs.
    pub verify_us: f64,
    /// router / verify.
    pub overhead: f64,
    /// Plain ECDSA verification with the key known, µs.
    pub plain_ecdsa_us: f64,
    /// Packets checked per second on one core (1 / router).
    pub packets_per_second: f64,
}

/// The ordered pipeline on 1 and 2 threads, K-163 implicit.
#[derive(Debug, Serialize)]
pub struct Scaling {
    /// Packets per run.
    pub packets: usize,
    /// Packets/s, `check_ordered` with 1 worker thread.
    pub one_thread: f64,
    /// Packets/s with 2 worker threads.
    pub two_threads: f64,
    /// two / one.
    pub scaling: f64,
    /// Packets/s of `Router::check` on one thread over the same packets, timed in turn
    /// with the pipeline runs (the best run).
    pub one_core_check: f64,
    /// two threads / `one_core_check`.
    pub scaling_vs_one_core: f64,
    /// 1 Gb/s of 1500-octet packets.
    pub line_rate: f64,
}

/// Random PLA headers against parsing.
#[derive(Debug, Serialize)]
pub struct Flood {
    /// Router check of a packet with a random PLA header, µs.
    pub router_us: f64,
    /// Parsing alone (IPv6 packet and PLA header), µs.
    pub parse_us: f64,
    /// router / parse.
    pub ratio: f64,
    /// Verdicts: none accepted.
    pub accepted: u64,
}

/// The suite.
#[derive(Debug, Serialize)]
pub struct PlaBench {
    /// "pla".
    pub suite: String,
    /// Where it ran.
    pub machine: Machine,
    /// Whether `--quick` was used.
    pub quick: bool,
    /// Per curve and layout.
    pub rows: Vec<Row>,
    /// Pipeline scaling.
    pub scaling: Scaling,
    /// Random headers.
    pub flood: Flood,
    /// The paper's packets/s implied by Table II (1 / 5.966 ms).
    pub paper_packets_per_second: f64,
}

fn fail(e: impl std::fmt::Display) -> Error {
    Error::failed("bench pla", e)
}

/// A 1500-octet IPv6/UDP packet from `src`, its payload marked with `i`.
fn packet(src: [u8; 16], i: usize) -> Vec<u8> {
    let dst = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0x99).octets();
    let b = etherparse::PacketBuilder::ipv6(src, dst, 64).udp(4000, 4001);
    let mut payload = vec![0u8; PAYLOAD];
    payload[..8].copy_from_slice(&(i as u64).to_be_bytes());
    let mut out = Vec::with_capacity(1500);
    // The builder only fails on an I/O error of a Vec.
    let _ = b.write(&mut out, &payload);
    out
}

/// A host at `src` of `ttp` with the given layout.
fn host<C: Curve>(ttp: &Ttp<C>, implicit: bool, src: [u8; 16]) -> Result<Sender<C>, SchemeError> {
    if implicit {
        Sender::enroll_implicit(ttp, Ipv6Addr::from(src), 1)
    } else {
        Sender::enroll_certified(ttp, 1)
    }
}

fn router<C: Curve>(ttp: &Ttp<C>) -> Router<C> {
    let mut ttps = TtpDirectory::default();
    ttps.insert(1, *ttp.public());
    Router::new(ttps, RouterConfig::default())
}

/// `PACKETS` signed packets of one host.
fn signed<C: Curve>(ttp: &Ttp<C>, implicit: bool) -> Result<Vec<Vec<u8>>, Error> {
    let src = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1).octets();
    let mut h = host(ttp, implicit, src).map_err(fail)?;
    (0..PACKETS)
        .map(|i| {
            let p = packet(src, i);
            let parsed = Ipv6Packet::parse(&p).map_err(fail)?;
            h.sign(&parsed, NOW).map_err(fail)
        })
        .collect()
}

/// A signed packet taken apart once, for the floors.
struct Parsed<C: Curve> {
    header: PlaHeader,
    encoded: Vec<u8>,
    payload: Vec<Vec<u8>>,
    id: String,
    der: Vec<u8>,
    message: Vec<u8>,
    key: hopsig_koblitz::curve::Affine<C>,
}

fn row<C: Curve>(budget: Budget, implicit: bool) -> Result<Row, Error> {
    let layout = if implicit { "implicit" } else { "certificate" };
    tracing::info!("bench pla: {} {layout}", C::NAME);
    let ttp = Ttp::<C>::setup().map_err(fail)?;
    let packets = signed(&ttp, implicit)?;
    let r = router(&ttp);
    // The router's own TTP table: both sides of the ratio read the same memory.
    let (ttp_key, ttp_table) = r.ttps().get(1).ok_or_else(|| fail("TTP"))?;
    let ttp_key = *ttp_key;
    // The parts verify_signature needs, computed once (the floor is verification only).
    let parsed: Vec<Parsed<C>> = packets
        .iter()
        .map(|p| {
            let view = Ipv6Packet::parse(p).map_err(fail)?;
            let encoded = view.pla_header().ok_or_else(|| fail("no header"))?.to_vec();
            let header = PlaHeader::decode(&encoded).map_err(fail)?;
            let id = Ipv6Addr::from(view.source()).to_string();
            let payload: Vec<Vec<u8>> = view.signed_payload().iter().map(|s| s.to_vec()).collect();
            let l = header.signature.len() / 2;
            let der = openssl::ecdsa::EcdsaSig::from_private_components(
                openssl::bn::BigNum::from_slice(&header.signature[..l]).map_err(fail)?,
                openssl::bn::BigNum::from_slice(&header.signature[l..]).map_err(fail)?,
            )
            .and_then(|s| s.to_der())
            .map_err(fail)?;
            let mut message = hopsig_schemes::pla::header::TAG_PACKET.to_vec();
            message.extend_from_slice(&encoded[..encoded.len() - 2 * l]);
            for part in &payload {
                message.extend_from_slice(part);
            }
            let key = match &header.key {
                hopsig_pla::KeyMaterial::Implicit(cert) => {
                    icnr::extract(id.as_bytes(), cert, &ttp_key).map_err(fail)?
                }
                hopsig_pla::KeyMaterial::Certificate { key, .. } => {
                    hopsig_koblitz::curve::Affine::<C>::from_sec1_vartime(key).map_err(fail)?
                }
            };
            Ok(Parsed {
                header,
                encoded,
                payload,
                id,
                der,
                message,
                key,
            })
        })
        .collect::<Result<_, Error>>()?;
    let (mut i, mut j, mut k) = (0usize, 0usize, 0usize);
    let mut failed = false;
    let (router_us, verify_us) = paired(
        budget,
        &mut || {
            if r.check(&packets[i], NOW) != Verdict::Accepted {
                return Err(SchemeError::InvalidSignature);
            }
            i += 1;
            if i == PACKETS {
                r.forget_replay_state();
                i = 0;
            }
            Ok(())
        },
        &mut || {
            let p = &parsed[j];
            j = (j + 1) % PACKETS;
            let parts: Vec<&[u8]> = p.payload.iter().map(Vec::as_slice).collect();
            failed |= !verify_signature(
                &p.header,
                &p.encoded,
                &parts,
                p.id.as_bytes(),
                &ttp_key,
                ttp_table,
            );
            Ok(())
        },
    )?;
    let plain_ecdsa_us = single(budget, &mut || {
        let p = &parsed[k];
        k = (k + 1) % PACKETS;
        failed |= !verify_der(&p.key, &p.message, &p.der);
        Ok(())
    })?;
    if failed {
        return Err(fail("a signed packet did not verify"));
    }
    Ok(Row {
        curve: C::NAME,
        layout,
        header_octets: parsed[0].encoded.len(),
        packet_octets: packets[0].len(),
        router_us,
        verify_us,
        overhead: router_us / verify_us,
        plain_ecdsa_us,
        packets_per_second: 1e6 / router_us,
    })
}

/// Packets/s of the ordered pipeline on `threads` threads over `frames`.
fn pipeline_rate(ttp: &Ttp<K163>, frames: &[Frame], threads: usize) -> Result<f64, Error> {
    let r = router(ttp);
    let input: Vec<Result<Frame, Error>> = frames.iter().cloned().map(Ok).collect();
    let mut accepted = 0usize;
    let t = Instant::now();
    check_ordered(&r, Clock::Fixed(NOW), input.into_iter(), threads, |_, v| {
        accepted += usize::from(v == Verdict::Accepted);
        Ok(())
    })?;
    let seconds = t.elapsed().as_secs_f64();
    if accepted != frames.len() {
        return Err(fail(format!("{accepted} of {} accepted", frames.len())));
    }
    Ok(frames.len() as f64 / seconds)
}

/// Packets/s of `Router::check` on this thread alone over `frames`.
fn check_rate(ttp: &Ttp<K163>, frames: &[Frame]) -> Result<f64, Error> {
    let r = router(ttp);
    let t = Instant::now();
    for f in frames {
        if r.check(&f.data, NOW) != Verdict::Accepted {
            return Err(fail("a signed packet was not accepted"));
        }
    }
    Ok(frames.len() as f64 / t.elapsed().as_secs_f64())
}

fn scaling(quick: bool) -> Result<Scaling, Error> {
    tracing::info!("bench pla: ordered pipeline on 1 and 2 threads (K-163 implicit)");
    let ttp = Ttp::<K163>::setup().map_err(fail)?;
    let n = if quick { 2_000 } else { 16_000 };
    // Many hosts, as a router sees: 64 sources, packets interleaved.
    let mut hosts = (0..64u16)
        .map(|h| {
            let src = Ipv6Addr::new(0x2001, 0xdb8, h, 0, 0, 0, 0, 1).octets();
            host(&ttp, true, src).map(|s| (s, src)).map_err(fail)
        })
        .collect::<Result<Vec<_>, _>>()?;
    // LINKTYPE_IPV6: each frame is the IPv6 packet.
    let raw_ipv6 = std::sync::Arc::new(Interface::new(0, 229));
    let frames = (0..n)
        .map(|i| {
            let (h, src) = &mut hosts[i % 64];
            let p = packet(*src, i);
            let signed = h
                .sign(&Ipv6Packet::parse(&p).map_err(fail)?, NOW)
                .map_err(fail)?;
            Ok(Frame {
                time: Duration::from_secs(u64::from(NOW)),
                orig_len: signed.len() as u32,
                data: signed,
                interface: raw_ipv6.clone(),
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    // Alternating runs; the best of each is the one least disturbed by the machine.
    // One core's router check is timed in the same rounds over the same packets, not
    // taken from the rows measured earlier (issue 22 §4).
    let runs = if quick { 1 } else { 5 };
    let [one_core, one, two] = rounds(
        runs,
        [
            &mut || check_rate(&ttp, &frames),
            &mut || pipeline_rate(&ttp, &frames, 1),
            &mut || pipeline_rate(&ttp, &frames, 2),
        ],
    )?;
    let best = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    let (one_core, one, two) = (best(&one_core), best(&one), best(&two));
    Ok(Scaling {
        packets: n,
        one_thread: one,
        two_threads: two,
        scaling: two / one,
        one_core_check: one_core,
        scaling_vs_one_core: two / one_core,
        line_rate: LINE_RATE,
    })
}

fn flood(budget: Budget) -> Result<Flood, Error> {
    tracing::info!("bench pla: random PLA headers");
    let ttp = Ttp::<K163>::setup().map_err(fail)?;
    let good = signed(&ttp, true)?;
    let r = router(&ttp);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let floods: Vec<Vec<u8>> = (0..PACKETS)
        .map(|i| {
            let mut p = good[i].clone();
            // The 77 octets of the header (option data at 44) replaced by random ones.
            for b in &mut p[44..44 + 77] {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                *b = seed as u8;
            }
            p
        })
        .collect();
    let (mut i, mut j, mut accepted) = (0usize, 0usize, 0u64);
    let (router_us, parse_us) = paired(
        budget,
        &mut || {
            accepted += u64::from(r.check(&floods[i], NOW) == Verdict::Accepted);
            i = (i + 1) % PACKETS;
            Ok(())
        },
        &mut || {
            let p =
                Ipv6Packet::parse(&floods[j]).map_err(|e| SchemeError::Mismatch(e.to_string()))?;
            // Kept (black_box) so the compiler cannot drop the decode.
            std::hint::black_box(p.pla_header().map(PlaHeader::decode));
            j = (j + 1) % PACKETS;
            Ok(())
        },
    )?;
    Ok(Flood {
        router_us,
        parse_us,
        ratio: router_us / parse_us,
        accepted,
    })
}

impl PlaBench {
    /// Runs the suite.
    ///
    /// # Errors
    /// A packet that does not verify, or a backend failure.
    pub fn measure(quick: bool) -> Result<PlaBench, Error> {
        let budget = if quick { Budget::QUICK } else { Budget::FULL };
        let rows = vec![
            row::<K163>(budget, true)?,
            row::<K163>(budget, false)?,
            row::<K233>(budget, true)?,
            row::<K233>(budget, false)?,
            row::<K283>(budget, true)?,
            row::<K283>(budget, false)?,
        ];
        let scaling = scaling(quick)?;
        Ok(PlaBench {
            suite: "pla".into(),
            machine: Machine::detect(),
            quick,
            rows,
            scaling,
            flood: flood(budget)?,
            paper_packets_per_second: 1e3 / PAPER_VERIFY_MS,
        })
    }

    /// The text report.
    pub fn render(&self) -> String {
        let mut s = String::from(
            "PLA router on 1500-octet IPv6 packets (003 §I-II): per-packet check vs verification alone\n\n",
        );
        let mut t = Table::new(
            &[
                Column::left("curve", 6),
                Column::left("layout", 12),
                Column::right("header", 6),
                Column::right("packet", 7),
                Column::right("router µs", 10),
                Column::right("verify µs", 10),
                Column::right("router/v", 9),
                Column::right("plain µs", 10),
                Column::right("packets/s/core", 12),
            ],
            "",
        );
        for r in &self.rows {
            t.row([
                r.curve.to_string(),
                r.layout.to_string(),
                r.header_octets.to_string(),
                r.packet_octets.to_string(),
                format!("{:.1}", r.router_us),
                format!("{:.1}", r.verify_us),
                format!("{:.3}", r.overhead),
                format!("{:.1}", r.plain_ecdsa_us),
                format!("{:.0}", r.packets_per_second),
            ]);
        }
        s += &t.render();
        let sc = &self.scaling;
        s += &format!(
            "\nordered pipeline, K-163 implicit, {} packets from 64 hosts: 1 thread {:.0}/s, 2 threads {:.0}/s: {:.2}x ({:.2}x one core's router check); 1 Gb/s of 1500-octet packets = {:.0}/s: {}\n",
            sc.packets,
            sc.one_thread,
            sc.two_threads,
            sc.scaling,
            sc.scaling_vs_one_core,
            sc.line_rate,
            if sc.two_threads >= sc.line_rate { "kept up" } else { "not kept up" }
        );
        let f = &self.flood;
        s += &format!(
            "random PLA headers: {:.2} µs each vs parsing {:.2} µs ({:.2}x), {} accepted\n",
            f.router_us, f.parse_us, f.ratio, f.accepted
        );
        s += &format!(
            "003 Table II: ICNR_do_verify 5.966 ms on a 1 GHz Athlon = {:.0} packets/s; here K-163 implicit {:.0} packets/s per core ({:.0}x)\n",
            self.paper_packets_per_second,
            self.rows[0].packets_per_second,
            self.rows[0].packets_per_second / self.paper_packets_per_second
        );
        s
    }
}
