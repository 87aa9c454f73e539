//! `hopsig bench rpki`: route origin validation (RFC 6811 §2) and ASPA path
//! verification (draft-ietf-sidrops-aspa-verification-28 §5) per route on a view the
//! size of today's global RPKI (issue 24 §5: "ROV + ASPA per route ≤ 2 µs"), beside
//! their floor, one hash-map probe per route.
//!
//! The view holds 800 k random VRPs (85 % IPv4 of lengths 8–24, 15 % IPv6 of lengths
//! 19–48, maxLength up to 8 longer) and 10 k random ASPAs of 1–4 providers; `--quick`
//! a tenth of each. The routes are 100 k: half the prefix of a VRP or a more specific
//! of it (with its origin or another), half random; AS paths of 2–7 ASes drawn mostly
//! from the ASPAs' customers and providers, with prepends, so that the hop checks find
//! attestations. Each operation runs over the routes in turn (no route twice in a
//! row); the figures are medians of samples taken alternately
//! ([`crate::timer::alternating`]).

use std::collections::HashMap;
use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Instant;

use serde::Serialize;

use ::rpki::resources::addr::MaxLenPrefix;
use ::rpki::resources::Asn;
use ::rpki::rtr::pdu::ProviderAsns;
use hopsig_bgp::packet::{AsPath, Prefix};
use hopsig_bgp::rpki::aspa::Relation;
use hopsig_bgp::rpki::payload::{Aspa, Payload, RouteOrigin};
use hopsig_bgp::rpki::rov::route_origin;
use hopsig_bgp::rpki::view::View;
use hopsig_bgp::rpki::{Limits, PayloadSet};
use hopsig_testkit::rng::SplitMix64;

use super::Machine;
use crate::table::{Column, Table};
use crate::timer::{alternating, Budget};
use crate::Error;

/// The figures on one VRP mix.
#[derive(Debug, Serialize)]
pub struct Row {
    /// How the VRP lengths were drawn.
    pub mix: Mix,
    /// `View::build` of the view, ms.
    pub build_ms: f64,
    /// ROV + ASPA verdicts (with their reasons) per route, ns.
    pub rov_aspa_ns: f64,
    /// ROV + ASPA states alone (no reason strings), ns.
    pub states_ns: f64,
    /// ROV verdict alone, ns.
    pub rov_ns: f64,
    /// ASPA verdict alone, ns.
    pub aspa_ns: f64,
    /// One `HashMap` probe per route (the route's prefix in a map of the VRPs'), ns.
    pub floor_ns: f64,
    /// rov_aspa / floor.
    pub ratio: f64,
    /// Of the routes: (Valid, Invalid, NotFound) ROV verdicts.
    pub rov_states: (usize, usize, usize),
    /// Of the routes: (Valid, Invalid, Unknown) ASPA verdicts.
    pub aspa_states: (usize, usize, usize),
}

/// The suite's figures.
#[derive(Debug, Serialize)]
pub struct RpkiBench {
    /// "rpki".
    pub suite: String,
    /// Where it ran.
    pub machine: Machine,
    /// Whether `--quick` was used.
    pub quick: bool,
    /// VRPs in each view.
    pub vrps: usize,
    /// ASPAs (customer ASes) in each view.
    pub aspas: usize,
    /// Routes cycled through.
    pub routes: usize,
    /// The target per route, ns.
    pub target_ns: f64,
    /// Per VRP mix.
    pub rows: Vec<Row>,
}

fn fail(e: impl std::fmt::Display) -> Error {
    Error::failed("bench rpki", e)
}

/// How VRP prefix lengths are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mix {
    /// Like today's RPKI: IPv4 /24 71.5 %, /22–23 14 %, /20–21 7 %, /16–19 7 %, /8–15
    /// 0.5 %; IPv6 /48 65 %, /33–47 14 %, /32 12 %, /29 6 %, /19–28 3 %; maxLength the
    /// prefix length for 80 % (RFC 9319), up to 8 longer for the rest.
    Realistic,
    /// Every length equally likely (IPv4 8–24, IPv6 19–48), maxLength up to 8 longer:
    /// the short lengths saturate (a /8 holds some 150 VRPs), so a route is covered by
    /// dozens — a worst case for the index.
    Uniform,
}

/// Draws from `(weight in 1/1000, lowest length, highest length)` rows.
fn weighted(rng: &mut SplitMix64, rows: &[(u64, u8, u8)]) -> u8 {
    let mut pick = rng.below(1000);
    for &(w, lo, hi) in rows {
        if pick < w {
            return lo + rng.below(u64::from(hi - lo) + 1) as u8;
        }
        pick -= w;
    }
    rows.last().map_or(24, |r| r.2)
}

/// A random VRP prefix: (address, length, maxLength).
fn vrp_prefix(rng: &mut SplitMix64, mix: Mix) -> (IpAddr, u8, u8) {
    let v4 = rng.below(100) < 85;
    let len = match (mix, v4) {
        (Mix::Uniform, true) => 8 + rng.below(17) as u8,
        (Mix::Uniform, false) => 19 + rng.below(30) as u8,
        (Mix::Realistic, true) => weighted(
            rng,
            &[
                (715, 24, 24),
                (140, 22, 23),
                (70, 20, 21),
                (70, 16, 19),
                (5, 8, 15),
            ],
        ),
        (Mix::Realistic, false) => weighted(
            rng,
            &[
                (650, 48, 48),
                (140, 33, 47),
                (120, 32, 32),
                (60, 29, 29),
                (30, 19, 28),
            ],
        ),
    };
    let extra = if mix == Mix::Realistic && rng.below(100) < 80 {
        0
    } else {
        rng.below(9) as u8
    };
    if v4 {
        let a = (rng.next_u64() as u32) & (u32::MAX << (32 - u32::from(len)));
        (IpAddr::V4(Ipv4Addr::from(a)), len, (len + extra).min(32))
    } else {
        let a = ((0x2000u128 | u128::from(rng.next_u64() as u16 & 0x1fff)) << 112)
            | (u128::from(rng.next_u64()) << 48);
        let a = a & (u128::MAX << (128 - u32::from(len)));
        (IpAddr::V6(Ipv6Addr::from(a)), len, (len + extra).min(128))
    }
}

/// The key a one-probe index of the VRPs would look a route up by.
fn key(addr: IpAddr, len: u8) -> (u8, u128) {
    match addr {
        IpAddr::V4(a) => (len, u128::from(u32::from(a))),
        IpAddr::V6(a) => (len, u128::from(a)),
    }
}

/// The view, the routes and the floor's map.
struct Setup {
    view: View,
    build_ms: f64,
    routes: Vec<(Prefix, AsPath, Relation)>,
    floor: HashMap<(u8, u128), u32>,
}

fn setup(mix: Mix, vrps: usize, aspas: usize, routes: usize) -> Result<Setup, Error> {
    let mut rng = SplitMix64::new(0x0006_8110_0028);
    let limits = Limits::default();
    let mut set = PayloadSet::new();
    let mut prefixes = Vec::with_capacity(vrps);
    let mut floor = HashMap::with_capacity(vrps);
    while set.counts().0 < vrps {
        let (addr, len, max) = vrp_prefix(&mut rng, mix);
        let asn = 1 + rng.below(400_000) as u32;
        let p = ::rpki::resources::addr::Prefix::new(addr, len).map_err(fail)?;
        let m = MaxLenPrefix::new(p, Some(max)).map_err(fail)?;
        set.insert(
            Payload::Origin(RouteOrigin::new(m, Asn::from_u32(asn))),
            &limits,
        )
        .map_err(fail)?;
        prefixes.push((addr, len, max, asn));
        floor.insert(key(addr, len), asn);
    }
    // ASPAs over 100 k customers; paths draw from the customers and their providers.
    let mut ases = Vec::new();
    while set.counts().2 < aspas {
        let customer = 1 + rng.below(100_000) as u32;
        let providers: Vec<u32> = (0..1 + rng.below(4))
            .map(|_| 1 + rng.below(100_000) as u32)
            .collect();
        ases.push(customer);
        ases.extend(&providers);
        let providers =
            ProviderAsns::try_from_iter(providers.into_iter().map(Asn::from_u32)).map_err(fail)?;
        set.insert(
            Payload::Aspa(Aspa::new(Asn::from_u32(customer), providers)),
            &limits,
        )
        .map_err(fail)?;
    }
    let t = Instant::now();
    let view = View::build(&set, &PayloadSet::new(), &[], &limits).map_err(fail)?;
    let build_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut list = Vec::with_capacity(routes);
    for i in 0..routes {
        let (addr, len, origin) = if i % 2 == 0 {
            let (addr, len, max, asn) = prefixes[rng.below(prefixes.len() as u64) as usize];
            let more = rng.below(u64::from(max - len) + 2) as u8;
            let len = (len + more).min(if addr.is_ipv4() { 32 } else { 128 });
            let asn = if rng.below(2) == 0 {
                asn
            } else {
                1 + rng.below(400_000) as u32
            };
            (addr, len, asn)
        } else {
            let (addr, len, _) = vrp_prefix(&mut rng, mix);
            (addr, len, 1 + rng.below(400_000) as u32)
        };
        let mut asns = Vec::new();
        for _ in 0..1 + rng.below(6) {
            let a = ases[rng.below(ases.len() as u64) as usize];
            asns.push(a);
            if rng.below(10) == 0 {
                asns.push(a);
            }
        }
        asns.push(origin);
        let prefix = Prefix::new(addr, len).map_err(fail)?;
        let relation = Relation::ALL[i % Relation::ALL.len()];
        list.push((prefix, AsPath::sequence(asns), relation));
    }
    Ok(Setup {
        view,
        build_ms,
        routes: list,
        floor,
    })
}

/// Measures one mix.
fn measure_mix(mix: Mix, quick: bool) -> Result<(Row, usize, usize, usize), Error> {
    let (vrps, aspas, routes) = if quick {
        (80_000, 1_000, 20_000)
    } else {
        (800_000, 10_000, 100_000)
    };
    tracing::info!("bench rpki: {mix:?}: {vrps} VRPs, {aspas} ASPAs, {routes} routes");
    let s = setup(mix, vrps, aspas, routes)?;
    let budget = if quick { Budget::QUICK } else { Budget::FULL };
    let mut next = 0usize;
    let n = s.routes.len();
    let [both, states, rov, aspa, floor] = alternating::<5>(budget, &mut |k| {
        next = (next + 1) % n;
        let (prefix, path, relation) = &s.routes[next];
        match k {
            0 => {
                black_box(s.view.rov(prefix, path));
                black_box(s.view.aspa(path, *relation));
            }
            1 => {
                let origin = route_origin(path, None);
                black_box(s.view.vrps().state(prefix, origin));
                black_box(s.view.aspas().state(path, *relation, None));
            }
            2 => {
                black_box(s.view.rov(prefix, path));
            }
            3 => {
                black_box(s.view.aspa(path, *relation));
            }
            _ => {
                black_box(s.floor.get(&key(prefix.addr(), prefix.length())));
            }
        }
        Ok(())
    })?;
    let mut rov_states = (0, 0, 0);
    let mut aspa_states = (0, 0, 0);
    for (prefix, path, relation) in &s.routes {
        use hopsig_bgp::rpki::aspa::AspaState;
        use hopsig_bgp::rpki::rov::RovState;
        match s.view.rov(prefix, path).state {
            RovState::Valid => rov_states.0 += 1,
            RovState::Invalid => rov_states.1 += 1,
            RovState::NotFound => rov_states.2 += 1,
        }
        match s.view.aspa(path, *relation).state {
            AspaState::Valid => aspa_states.0 += 1,
            AspaState::Invalid => aspa_states.1 += 1,
            AspaState::Unknown => aspa_states.2 += 1,
        }
    }
    let (v, _, a) = s.view.counts();
    let row = Row {
        mix,
        build_ms: s.build_ms,
        rov_aspa_ns: both * 1e3,
        states_ns: states * 1e3,
        rov_ns: rov * 1e3,
        aspa_ns: aspa * 1e3,
        floor_ns: floor * 1e3,
        ratio: both / floor,
        rov_states,
        aspa_states,
    };
    Ok((row, v, a, n))
}

impl RpkiBench {
    /// Builds the views and measures (a tenth of the data with `quick`).
    ///
    /// # Errors
    /// A setup step failing (none does on valid random data).
    pub fn measure(quick: bool) -> Result<RpkiBench, Error> {
        let mut rows = Vec::new();
        let (mut vrps, mut aspas, mut routes) = (0, 0, 0);
        for mix in [Mix::Realistic, Mix::Uniform] {
            let (row, v, a, n) = measure_mix(mix, quick)?;
            (vrps, aspas, routes) = (v, a, n);
            rows.push(row);
        }
        Ok(RpkiBench {
            suite: "rpki".into(),
            machine: Machine::detect(),
            quick,
            vrps,
            aspas,
            routes,
            target_ns: 2_000.0,
            rows,
        })
    }

    /// The text table.
    pub fn render(&self) -> String {
        let mut s = format!(
            "ROV (RFC 6811) and ASPA (draft-ietf-sidrops-aspa-verification-28) per route: \
             {} VRPs, {} ASPAs, {} routes, ns per route\n\n",
            self.vrps, self.aspas, self.routes
        );
        let mut t = Table::new(
            &[
                Column::left("VRP mix", 10),
                Column::right("build ms", 9),
                Column::right("ROV+ASPA", 9),
                Column::right("states", 7),
                Column::right("ROV", 7),
                Column::right("ASPA", 7),
                Column::right("floor", 6),
                Column::right("× floor", 8),
            ],
            "",
        );
        for r in &self.rows {
            t.row([
                format!("{:?}", r.mix).to_lowercase(),
                format!("{:.0}", r.build_ms),
                format!("{:.0}", r.rov_aspa_ns),
                format!("{:.0}", r.states_ns),
                format!("{:.0}", r.rov_ns),
                format!("{:.0}", r.aspa_ns),
                format!("{:.0}", r.floor_ns),
                format!("{:.1}", r.ratio),
            ]);
        }
        s += &t.render();
        s += "\nROV+ASPA: View::rov + View::aspa, verdicts with reasons; states: the two states \
              without reasons; ROV, ASPA: each verdict alone; floor: one HashMap probe\n";
        for r in &self.rows {
            s += &format!(
                "{:?}: target (issue 24 §5) ROV + ASPA ≤ {:.0} ns: {}; ROV (valid, invalid, \
                 not-found) {:?}, ASPA (valid, invalid, unknown) {:?}\n",
                r.mix,
                self.target_ns,
                if r.rov_aspa_ns <= self.target_ns {
                    "met"
                } else {
                    "NOT met"
                },
                r.rov_states,
                r.aspa_states
            );
        }
        s
    }
}
