//! Tests of the eight-lane kernel against field52 and a slow affine reference. They need
//! AVX-512 IFMA: without it they print "skipped: no avx512ifma" and pass, except under
//! CI=true on a processor that has the instructions (then the kernel must run).

use super::*;
use crate::field52::{limbs_from_bytes, limbs_to_bytes, mont_mul_limbs, Fe, Modulus, LIMB_MASK, P};
use crate::kernel::{AffineM52, QTable, D_G, D_Q, TOP, W_G, W_Q};
use num_bigint::BigUint;
use proptest::prelude::*;

/// Whether the kernel runs here; panics under CI=true when the processor has IFMA but
/// the kernel is not used (a detection or override bug would otherwise pass silently).
fn kernel_or_skip() -> bool {
    if available() {
        return true;
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(
        !(ci && hopsig_cpu::detected(hopsig_cpu::Feature::Avx512Ifma)),
        "CI=true on a processor with avx512ifma, but the IFMA kernel is not available"
    );
    eprintln!("skipped: no avx512ifma");
    false
}

// ---------------------------------------------------------------------------------
// Field arithmetic against num-bigint.

fn p_big() -> BigUint {
    BigUint::from_bytes_be(&limbs_to_bytes(&P::M))
}

fn value(limbs: &[u64; 5]) -> BigUint {
    limbs
        .iter()
        .rev()
        .fold(BigUint::from(0u8), |acc, &l| (acc << 52u32) + l)
}

/// Normalized limbs of v < 2^260.
fn limbs(v: &BigUint) -> [u64; 5] {
    std::array::from_fn(|i| {
        let limb: BigUint = (v >> (52 * i)) & BigUint::from(LIMB_MASK);
        limb.to_u64_digits().first().copied().unwrap_or(0)
    })
}

/// The lazy domain's edge values: 0, 1, 2, p − 2, p − 1, p, p + 1, 2p − 1, 2p, 2^256 ± 1,
/// 2^257 − 1 (the largest value the vector code accepts), limb boundaries, 2^k mod p,
/// R mod p, and values whose limbs are all ones.
fn edges() -> Vec<BigUint> {
    let p = p_big();
    let one = BigUint::from(1u8);
    let two257 = &one << 257u32;
    let mut v = vec![
        BigUint::from(0u8),
        one.clone(),
        BigUint::from(2u8),
        &p - 2u8,
        &p - 1u8,
        p.clone(),
        &p + 1u8,
        &p * 2u8 - 1u8,
        &p * 2u8,
        (&one << 256u32) - 1u8,
        &one << 256u32,
        (&one << 256u32) + 1u8,
        &two257 - 1u8,
        &two257 - &p,
        value(&P::R1),
    ];
    for k in [51u32, 52, 53, 103, 104, 155, 156, 207, 208, 224, 255] {
        v.push(&one << k);
        v.push((&one << k) - 1u8);
    }
    for k in [257u32, 260, 300, 511] {
        v.push((&one << k) % &p);
    }
    v.retain(|x| x < &two257);
    v
}

/// What the vector code must compute for `op`, mod p.
fn expected(op: FieldOp, a: &BigUint, b: &BigUint) -> BigUint {
    let p = p_big();
    match op {
        FieldOp::Mul | FieldOp::Sqr => {
            let b = if op == FieldOp::Sqr { a } else { b };
            // a·b·R⁻¹ mod p through field52 on the canonical representatives.
            let (ca, cb) = (limbs(&(a % &p)), limbs(&(b % &p)));
            value(&mont_mul_limbs::<P>(&ca, &cb))
        }
        FieldOp::Add => (a + b) % &p,
        FieldOp::Sub => (a + &p * 4u8 - b) % &p,
        FieldOp::Neg => (&p * 4u8 - a) % &p,
        FieldOp::Reduce => a % &p,
    }
}

const OPS: [FieldOp; 6] = [
    FieldOp::Mul,
    FieldOp::Sqr,
    FieldOp::Add,
    FieldOp::Sub,
    FieldOp::Neg,
    FieldOp::Reduce,
];

/// Runs `op` on eight pairs and checks every lane: limbs < 2^52, value < 2^257
/// (canonical for Reduce), congruent to the expected value.
fn check_lanes(op: FieldOp, pairs: &[(BigUint, BigUint); 8]) {
    let mut a = [[0u64; 5]; 8];
    let mut b = [[0u64; 5]; 8];
    for (l, (x, y)) in pairs.iter().enumerate() {
        a[l] = limbs(x);
        b[l] = limbs(y);
    }
    let out = field_op_8(op, &a, &b).unwrap();
    let p = p_big();
    let bound = if op == FieldOp::Reduce {
        p.clone()
    } else {
        BigUint::from(1u8) << 257u32
    };
    for (l, (x, y)) in pairs.iter().enumerate() {
        assert!(
            out[l].iter().all(|&limb| limb <= LIMB_MASK),
            "{op:?} lane {l}: limbs {:x?} not normalized ({x:x}, {y:x})",
            out[l]
        );
        let got = value(&out[l]);
        assert!(
            got < bound,
            "{op:?} lane {l}: {got:x} out of range ({x:x}, {y:x})"
        );
        assert_eq!(
            &got % &p,
            expected(op, x, y),
            "{op:?} lane {l} of ({x:x}, {y:x})"
        );
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn four_p_constant_is_four_p() {
    use super::vector::FOUR_P;
    assert_eq!(value(&FOUR_P), p_big() * 4u8);
    assert!(FOUR_P[..4].iter().all(|&l| l >= LIMB_MASK));
    assert!(FOUR_P[4] >= 1 << 49);
}

/// Every pair of edge values, at every lane position, for every operation.
#[test]
fn field_ops_on_every_pair_of_edges_in_every_lane() {
    if !kernel_or_skip() {
        return;
    }
    let e = edges();
    let pairs: Vec<(BigUint, BigUint)> = e
        .iter()
        .flat_map(|a| e.iter().map(move |b| (a.clone(), b.clone())))
        .collect();
    for op in OPS {
        for rotation in 0..8 {
            for chunk in (0..pairs.len()).step_by(8) {
                let lanes: [(BigUint, BigUint); 8] = std::array::from_fn(|l| {
                    pairs[(chunk + (l + rotation) % 8) % pairs.len()].clone()
                });
                check_lanes(op, &lanes);
            }
        }
    }
}

/// Chains of operations stay inside the lazy domain: repeated squaring, and sums of
/// products, from the largest inputs (2^257 − 1) compared with field52.
#[test]
fn chained_operations_keep_the_bounds() {
    if !kernel_or_skip() {
        return;
    }
    let p = p_big();
    let start = (BigUint::from(1u8) << 257u32) - 1u8;
    let mut a = [limbs(&start); 8];
    let mut reference = [Fe::<P>::from_montgomery_limbs(limbs(&(&start % &p))).unwrap(); 8];
    for l in 0..8 {
        // Different lanes, different starting values.
        let v: BigUint = &start - BigUint::from(l as u32) * 977u32;
        a[l] = limbs(&v);
        reference[l] = Fe::from_montgomery_limbs(limbs(&(&v % &p))).unwrap();
    }
    for round in 0..200 {
        let s = field_op_8(FieldOp::Sqr, &a, &a).unwrap();
        let t = field_op_8(FieldOp::Sub, &s, &a).unwrap();
        a = field_op_8(FieldOp::Add, &t, &s).unwrap();
        for l in 0..8 {
            let r = reference[l];
            let sq = r.square();
            reference[l] = sq.sub(&r).add(&sq);
            assert_eq!(
                value(&a[l]) % &p,
                value(&reference[l].montgomery_limbs()),
                "round {round} lane {l}"
            );
        }
    }
    let canonical = field_op_8(FieldOp::Reduce, &a, &a).unwrap();
    for l in 0..8 {
        assert_eq!(canonical[l], reference[l].montgomery_limbs());
    }
    let m = field_mul_8(&a, &canonical).unwrap();
    for l in 0..8 {
        assert_eq!(m[l], reference[l].square().montgomery_limbs());
    }
}

fn lazy_value() -> impl Strategy<Value = BigUint> {
    prop_oneof![
        any::<[u8; 32]>().prop_map(|b| BigUint::from_bytes_be(&b)),
        (any::<[u8; 32]>(), any::<bool>()).prop_map(|(b, top)| {
            let v = BigUint::from_bytes_be(&b);
            if top {
                v + (BigUint::from(1u8) << 256u32)
            } else {
                v
            }
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn field_ops_random(values in prop::collection::vec((lazy_value(), lazy_value()), 8)) {
        if kernel_or_skip() {
            let lanes: [(BigUint, BigUint); 8] = std::array::from_fn(|l| values[l].clone());
            for op in OPS {
                check_lanes(op, &lanes);
            }
        }
    }
}

// ---------------------------------------------------------------------------------
// A slow affine reference of the curve and of the kernel's schedule.

type Affine = Option<(Fe<P>, Fe<P>)>;

fn fe(hex: &str) -> Fe<P> {
    let mut b = [0u8; 32];
    hex::decode_to_slice(hex, &mut b).unwrap();
    Fe::from_bytes(&b).unwrap()
}

fn generator() -> (Fe<P>, Fe<P>) {
    (
        fe("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"),
        fe("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"),
    )
}

fn small(k: u64) -> Fe<P> {
    let mut b = [0u8; 32];
    b[24..].copy_from_slice(&k.to_be_bytes());
    Fe::from_bytes(&b).unwrap()
}

/// Complete affine addition (y² = x³ − 3x + b).
fn aff_add(a: Affine, b: Affine) -> Affine {
    let (Some((x1, y1)), Some((x2, y2))) = (a, b) else {
        return a.or(b);
    };
    let lambda = if x1 == x2 {
        if y1 != y2 || y1.is_zero() {
            return None;
        }
        // (3x² − 3) / 2y
        x1.square()
            .mul(&small(3))
            .sub(&small(3))
            .mul(&y1.add(&y1).invert_vartime().unwrap())
    } else {
        y2.sub(&y1).mul(&x2.sub(&x1).invert_vartime().unwrap())
    };
    let x3 = lambda.square().sub(&x1).sub(&x2);
    let y3 = lambda.mul(&x1.sub(&x3)).sub(&y1);
    Some((x3, y3))
}

fn aff_neg(a: Affine) -> Affine {
    a.map(|(x, y)| (x, y.neg()))
}

fn aff_mul(k: u64, a: Affine) -> Affine {
    let mut acc = None;
    for bit in (0..64).rev() {
        acc = aff_add(acc, acc);
        if k >> bit & 1 == 1 {
            acc = aff_add(acc, a);
        }
    }
    acc
}

fn to_m52(a: Affine) -> AffineM52 {
    let (x, y) = a.unwrap();
    AffineM52 {
        x: x.montgomery_limbs(),
        y: y.montgomery_limbs(),
    }
}

fn from_m52(a: &AffineM52) -> Affine {
    Some((
        Fe::from_montgomery_limbs(a.x).unwrap(),
        Fe::from_montgomery_limbs(a.y).unwrap(),
    ))
}

fn q_table(q: Affine) -> QTable {
    let mut acc = q;
    QTable {
        points: std::array::from_fn(|_| {
            let e = to_m52(acc);
            acc = aff_add(acc, q);
            e
        }),
    }
}

fn g_table() -> GTable {
    let g = Some(generator());
    let mut acc = g;
    GTable {
        points: std::array::from_fn(|_| {
            let e = to_m52(acc);
            acc = aff_add(acc, g);
            e
        }),
    }
}

/// The kernel's expected output for one lane.
#[derive(Debug, PartialEq)]
enum Expect {
    /// A finite point, no exception on the way.
    Point(Fe<P>, Fe<P>),
    /// Z = 0: the point at infinity (no non-zero digit) or an exceptional addition.
    ZeroZ,
}

fn table_point(points: &[AffineM52], d: i8) -> Affine {
    let p = from_m52(&points[usize::from(d.unsigned_abs()) - 1]);
    if d < 0 {
        aff_neg(p)
    } else {
        p
    }
}

/// The Horner schedule of `crate::kernel`, affine, noting exceptional additions.
fn reference(g: &GTable, lane: &Lane<'_>) -> Expect {
    let mut acc: Affine = None;
    let mut exceptional = false;
    for i in (0..=TOP).rev() {
        if i < TOP {
            acc = aff_add(acc, acc);
        }
        let steps: [(usize, i8, &[AffineM52]); 2] = [
            (
                W_Q,
                if i % W_Q == 0 { lane.u2[i / W_Q] } else { 0 },
                &lane.q.points,
            ),
            (
                W_G,
                if i % W_G == 0 { lane.u1[i / W_G] } else { 0 },
                &g.points,
            ),
        ];
        for (_, d, points) in steps {
            if d != 0 {
                let t = table_point(points, d);
                if let (Some((xa, _)), Some((xt, _))) = (acc, t) {
                    exceptional |= xa == xt;
                }
                acc = aff_add(acc, t);
            }
        }
    }
    match acc {
        Some((x, y)) if !exceptional => Expect::Point(x, y),
        _ => Expect::ZeroZ,
    }
}

/// The kernel's output for one lane, in the reference's terms.
fn observed(j: &JacobianM52) -> Expect {
    let z = Fe::<P>::from_montgomery_limbs(j.z).expect("Z fully reduced");
    if z.is_zero() {
        return Expect::ZeroZ;
    }
    let x = Fe::<P>::from_montgomery_limbs(j.x).expect("X fully reduced");
    let y = Fe::<P>::from_montgomery_limbs(j.y).expect("Y fully reduced");
    let zi = z.invert_vartime().unwrap();
    let zi2 = zi.square();
    Expect::Point(x.mul(&zi2), y.mul(&zi2.mul(&zi)))
}

/// splitmix64: deterministic test randomness.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn digit(&mut self, w: usize) -> i8 {
        let half = 1i64 << (w - 1);
        let d = (self.next() % (2 * half as u64 + 1)) as i64 - half;
        d as i8
    }
}

struct Fixture {
    g: GTable,
    tables: Vec<QTable>,
}

fn fixture() -> &'static Fixture {
    static F: std::sync::OnceLock<Fixture> = std::sync::OnceLock::new();
    F.get_or_init(|| {
        let g = Some(generator());
        // Keys: G itself, 3G (for constructed exceptions), and keys k·G for large k.
        let keys = [
            g,
            aff_mul(3, g),
            aff_mul(0x1234_5678_9abc_def1, g),
            aff_mul(0xfedc_ba98_7654_3211, aff_mul(0x0bad_cafe_dead_beef, g)),
            aff_mul(u64::MAX, aff_mul(u64::MAX - 6, g)),
        ];
        Fixture {
            g: g_table(),
            tables: keys.into_iter().map(q_table).collect(),
        }
    })
}

fn random_lane<'a>(rng: &mut Rng, q: &'a QTable) -> Lane<'a> {
    Lane {
        q,
        u1: std::array::from_fn(|_| rng.digit(W_G)),
        u2: std::array::from_fn(|_| rng.digit(W_Q)),
    }
}

fn zero_lane(q: &QTable) -> Lane<'_> {
    Lane {
        q,
        u1: [0; D_G],
        u2: [0; D_Q],
    }
}

fn run(lanes: &[Lane<'_>; 8]) -> [JacobianM52; 8] {
    double_scalar_mul(&fixture().g, lanes).unwrap()
}

fn check_against_reference(lanes: &[Lane<'_>; 8]) -> usize {
    let out = run(lanes);
    let mut zero = 0;
    for (l, (lane, j)) in lanes.iter().zip(&out).enumerate() {
        let want = reference(&fixture().g, lane);
        zero += usize::from(want == Expect::ZeroZ);
        assert_eq!(
            observed(j),
            want,
            "lane {l}: u1 {:?} u2 {:?}",
            lane.u1,
            lane.u2
        );
    }
    zero
}

#[test]
fn kernel_matches_the_affine_reference_on_random_digits() {
    if !kernel_or_skip() {
        return;
    }
    let f = fixture();
    let mut rng = Rng(1);
    for round in 0..12 {
        let lanes: [Lane<'_>; 8] = std::array::from_fn(|l| {
            let mut lane = random_lane(&mut rng, &f.tables[2 + (l + round) % 3]);
            match (l + round) % 8 {
                // The top digits zero (the chain starts lower).
                1 => {
                    lane.u1[D_G - 1] = 0;
                    lane.u2[D_Q - 1] = 0;
                }
                // Extreme digits: all at ±2^(W−1).
                2 => {
                    for (k, d) in lane.u1.iter_mut().enumerate() {
                        *d = if k % 2 == 0 { 64 } else { -64 };
                    }
                    for (k, d) in lane.u2.iter_mut().enumerate() {
                        *d = if k % 3 == 0 { -32 } else { 32 };
                    }
                }
                // Only u1 (u2 = 0), or only u2.
                3 => lane.u2 = [0; D_Q],
                4 => lane.u1 = [0; D_G],
                // Sparse digits: mostly zero, so additions are skipped lane by lane.
                5 => {
                    for d in lane.u1.iter_mut().chain(lane.u2.iter_mut()) {
                        if !rng.next().is_multiple_of(4) {
                            *d = 0;
                        }
                    }
                }
                // All digits zero: the point at infinity, Z = 0.
                6 => lane = zero_lane(lane.q),
                _ => {}
            }
            lane
        });
        check_against_reference(&lanes);
    }
}

/// One digit at the top: 2^252·T[d] after 252 doublings; two digits: one addition.
#[test]
fn kernel_single_and_double_digits() {
    if !kernel_or_skip() {
        return;
    }
    let f = fixture();
    let lanes: [Lane<'_>; 8] = std::array::from_fn(|l| {
        let mut lane = zero_lane(&f.tables[2]);
        match l {
            0 => lane.u2[D_Q - 1] = 1,
            1 => lane.u1[D_G - 1] = -64,
            2 => lane.u2[0] = -32,
            3 => lane.u1[0] = 1,
            4 => {
                lane.u2[0] = 5;
                lane.u1[0] = 7;
            }
            5 => {
                lane.u2[D_Q - 1] = -1;
                lane.u1[D_G - 1] = 1;
            }
            6 => {
                lane.u2[1] = 3;
                lane.u1[0] = -2;
            }
            _ => lane.u1[5] = 17,
        }
        lane
    });
    assert_eq!(check_against_reference(&lanes), 0);
}

/// u1·G = ±u2·Q and sums hitting O or a doubling mid-chain: those lanes end with Z = 0,
/// every other lane keeps its exact result.
#[test]
fn kernel_marks_exceptional_lanes_with_zero_z() {
    if !kernel_or_skip() {
        return;
    }
    let f = fixture();
    let (key_g, key_3g) = (&f.tables[0], &f.tables[1]);
    let mut lanes: [Lane<'_>; 8] = std::array::from_fn(|_| zero_lane(key_g));
    // Q = G: 1·Q − 1·G = O at the last step.
    lanes[0].u2[0] = 1;
    lanes[0].u1[0] = -1;
    // Q = G: 1·Q + 1·G, a doubling in disguise.
    lanes[1].u2[0] = 1;
    lanes[1].u1[0] = 1;
    // Q = 3G: u1·G = −u2·Q with u1 = −3, u2 = 1.
    lanes[2] = zero_lane(key_3g);
    lanes[2].u2[0] = 1;
    lanes[2].u1[0] = -3;
    // Q = G: G loaded at position 12, 32G at position 7, minus 32G there: O mid-chain,
    // then more doublings and additions must keep Z = 0.
    lanes[3].u2[2] = 1;
    lanes[3].u1[1] = -32;
    lanes[3].u2[0] = 5;
    lanes[3].u1[0] = 3;
    // Q = G: 64·G (from Q at position 6) + 64·G at position 0: a doubling.
    lanes[4].u2[1] = 1;
    lanes[4].u1[0] = 64;
    // Neighbours that are not exceptional.
    lanes[5].u2[0] = 2;
    lanes[5].u1[0] = 1;
    lanes[6] = random_lane(&mut Rng(7), &f.tables[3]);
    lanes[7].u2[1] = 1;
    lanes[7].u1[0] = -63;
    assert_eq!(check_against_reference(&lanes), 5);
    let out = run(&lanes);
    for j in &out[..5] {
        assert_eq!(j.z, [0; 5]);
    }
}

/// Small digits with Q = G or 3G collide often: every lane still matches the reference
/// (which decides which lanes are exceptional).
#[test]
fn kernel_with_colliding_small_multiples() {
    if !kernel_or_skip() {
        return;
    }
    let f = fixture();
    let mut rng = Rng(99);
    let mut exceptional = 0;
    for _ in 0..40 {
        let lanes: [Lane<'_>; 8] = std::array::from_fn(|l| {
            let mut lane = zero_lane(&f.tables[l % 2]);
            // Two or three digits in the lowest positions.
            lane.u2[0] = rng.digit(3);
            lane.u1[0] = rng.digit(4);
            if rng.next().is_multiple_of(2) {
                lane.u2[1] = rng.digit(2);
            }
            lane
        });
        exceptional += check_against_reference(&lanes);
    }
    assert!(exceptional > 0, "no exceptional lane was exercised");
}

/// Lane isolation: eight different lanes (valid, zero, exceptional, different keys)
/// give, lane by lane, exactly what each gives when run alone in all eight lanes.
#[test]
fn lanes_do_not_contaminate_each_other() {
    if !kernel_or_skip() {
        return;
    }
    let f = fixture();
    let mut rng = Rng(5);
    for round in 0..3 {
        let mut lanes: [Lane<'_>; 8] =
            std::array::from_fn(|l| random_lane(&mut rng, &f.tables[2 + l % 3]));
        lanes[round] = zero_lane(&f.tables[0]);
        lanes[round + 3].q = &f.tables[0];
        lanes[round + 3].u2 = [0; D_Q];
        lanes[round + 3].u2[0] = 1;
        lanes[round + 3].u1 = [0; D_G];
        lanes[round + 3].u1[0] = -1;
        let together = run(&lanes);
        for l in 0..8 {
            let alone = run(&[lanes[l]; 8]);
            for (k, j) in alone.iter().enumerate() {
                assert_eq!(j, &together[l], "lane {l} alone (copy {k}) vs together");
            }
        }
        check_against_reference(&lanes);
    }
}

#[test]
fn unavailable_means_none() {
    let f = fixture();
    let lanes: [Lane<'_>; 8] = std::array::from_fn(|_| zero_lane(&f.tables[0]));
    assert_eq!(double_scalar_mul(&f.g, &lanes).is_some(), available());
    assert_eq!(
        available(),
        hopsig_cpu::has(hopsig_cpu::Feature::Avx512Ifma)
    );
}

/// The least wall time (ns) per call of `f` over `reps` runs of `calls` calls: short
/// runs, most of which nothing else interrupts on a shared machine, and their minimum.
fn min_ns_per_call(reps: usize, calls: usize, mut f: impl FnMut() -> u64) -> (f64, u64) {
    let mut sink = 0;
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let start = std::time::Instant::now();
        for _ in 0..calls {
            sink ^= f();
        }
        best = best.min(start.elapsed().as_nanos() as f64 / calls as f64);
    }
    (best, sink)
}

/// Throughput of the kernel alone (run with `--ignored --nocapture`; it asserts nothing
/// about time). Prints the least time per 8-lane call over 300 runs of 10 calls, for
/// random digits and for a lane with one digit (252 doublings, 1 addition).
#[test]
#[ignore]
fn kernel_timing() {
    if !kernel_or_skip() {
        return;
    }
    let f = fixture();
    let mut rng = Rng(3);
    let random: [Lane<'_>; 8] =
        std::array::from_fn(|l| random_lane(&mut rng, &f.tables[2 + l % 3]));
    let mut doublings = random;
    for lane in doublings.iter_mut() {
        *lane = zero_lane(lane.q);
        lane.u2[D_Q - 1] = 3;
    }
    let (per_call, s1) = min_ns_per_call(300, 10, || run(std::hint::black_box(&random))[0].x[0]);
    let (per_dbl_call, s2) =
        min_ns_per_call(300, 10, || run(std::hint::black_box(&doublings))[0].x[0]);
    println!(
        "kernel: {per_call:.0} ns per 8-lane call ({:.0} ns per lane); doublings only: \
         {per_dbl_call:.0} ns per call [{:x}]",
        per_call / 8.0,
        s1 ^ s2
    );
}

#[test]
fn limbs_helpers_round_trip() {
    let v = BigUint::from_bytes_be(&[0xa5; 32]);
    assert_eq!(value(&limbs(&v)), v);
    assert_eq!(limbs(&v), limbs_from_bytes(&[0xa5; 32]));
}
