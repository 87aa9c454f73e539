//! hopsig-p256 against OpenSSL, the reference verifier: keys generated and messages
//! signed by OpenSSL, every item's verdict from hopsig (both backends) equal to
//! OpenSSL's `ECDSA_do_verify`, on random items of each perturbation, on constructed
//! edge cases (R = O, x(R) ≥ n, the kernel's exceptional additions), on batches of every
//! length that fills lanes partly, and on public-key encodings.
//!
//! Random items come from a seeded generator (splitmix64), so a failure repeats;
//! `HOPSIG_P256_SEED` picks another seed and `HOPSIG_P256_ITEMS` the number of items per
//! perturbation (default 20,000).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hopsig_p256::{verify_batch_with_vartime, verify_vartime, Backend, Item, KeyError, PublicKey};
use num_bigint::BigUint;
use openssl::bn::{BigNum, BigNumContext};
use openssl::ec::{EcGroup, EcKey, EcPoint, PointConversionForm};
use openssl::ecdsa::EcdsaSig;
use openssl::nid::Nid;
use openssl::pkey::{Private, Public};

fn n() -> BigUint {
    BigUint::parse_bytes(
        b"ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
        16,
    )
    .unwrap()
}

fn p() -> BigUint {
    BigUint::parse_bytes(
        b"ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
        16,
    )
    .unwrap()
}

fn b32(v: &BigUint) -> [u8; 32] {
    let b = v.to_bytes_be();
    assert!(b.len() <= 32);
    let mut out = [0u8; 32];
    out[32 - b.len()..].copy_from_slice(&b);
    out
}

fn big(b: &[u8]) -> BigUint {
    BigUint::from_bytes_be(b)
}

fn bn(v: &BigUint) -> BigNum {
    BigNum::from_slice(&v.to_bytes_be()).unwrap()
}

/// splitmix64: a small seeded generator, so failures repeat.
struct Rng(u64);

impl Rng {
    fn new(salt: u64) -> Rng {
        let seed = std::env::var("HOPSIG_P256_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0x2800_5eed_u64);
        Rng(seed ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn bytes32(&mut self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for c in out.chunks_mut(8) {
            c.copy_from_slice(&self.next().to_le_bytes());
        }
        out
    }

    /// A scalar in [1, n − 1].
    fn scalar(&mut self) -> BigUint {
        big(&self.bytes32()) % (n() - 1u8) + 1u8
    }

    fn below(&mut self, k: usize) -> usize {
        (self.next() % k as u64) as usize
    }
}

fn items_per_kind() -> usize {
    std::env::var("HOPSIG_P256_ITEMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000)
}

fn group() -> EcGroup {
    EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap()
}

/// A key as both libraries hold it; the private half where it is known.
struct Key {
    d: Option<BigUint>,
    ossl: Option<EcKey<Private>>,
    public: EcKey<Public>,
    ours: PublicKey,
}

fn sec1(point: &openssl::ec::EcPointRef) -> Vec<u8> {
    let mut ctx = BigNumContext::new().unwrap();
    point
        .to_bytes(&group(), PointConversionForm::UNCOMPRESSED, &mut ctx)
        .unwrap()
}

fn key_from_private(d: &BigUint) -> Key {
    let g = group();
    let mut ctx = BigNumContext::new().unwrap();
    let mut q = EcPoint::new(&g).unwrap();
    q.mul_generator2(&g, &bn(d), &mut ctx).unwrap();
    let ossl = EcKey::from_private_components(&g, &bn(d), &q).unwrap();
    Key {
        d: Some(d.clone()),
        ossl: Some(ossl),
        ..key_from_point(&q)
    }
}

fn key_from_point(q: &openssl::ec::EcPointRef) -> Key {
    let g = group();
    let public = EcKey::from_public_key(&g, q).unwrap();
    let ours = PublicKey::from_sec1(&sec1(q)).unwrap();
    assert_eq!(ours.to_sec1().as_slice(), sec1(q).as_slice());
    Key {
        d: None,
        ossl: None,
        public,
        ours,
    }
}

/// A signature to check: OpenSSL's verdict is computed from the same bytes.
#[derive(Clone, Copy)]
struct Case<'k> {
    key: &'k Key,
    digest: [u8; 32],
    r: [u8; 32],
    s: [u8; 32],
}

impl Case<'_> {
    fn item(&self) -> Item<'_> {
        Item {
            key: &self.key.ours,
            digest: self.digest,
            r: self.r,
            s: self.s,
        }
    }

    /// OpenSSL's `ECDSA_do_verify`; an error (r or s out of range) is "invalid".
    fn openssl(&self) -> bool {
        let sig = EcdsaSig::from_private_components(bn(&big(&self.r)), bn(&big(&self.s))).unwrap();
        sig.verify(&self.digest, &self.key.public).unwrap_or(false)
    }
}

fn sign<'k>(key: &'k Key, digest: [u8; 32]) -> Case<'k> {
    let sig = EcdsaSig::sign(&digest, key.ossl.as_ref().unwrap()).unwrap();
    Case {
        key,
        digest,
        r: sig.r().to_vec_padded(32).unwrap().try_into().unwrap(),
        s: sig.s().to_vec_padded(32).unwrap().try_into().unwrap(),
    }
}

/// Every case through both backends in batches, a sample one at a time, against
/// OpenSSL; returns OpenSSL's verdicts. Large sets are split over the machine's cores
/// in chunks of 2,048 (each one batch call), and the portable backend, ten times
/// slower than IFMA, sees every fourth item of them (all items of small sets; on a
/// machine without IFMA both calls run the portable code).
fn check_all(what: &str, cases: &[Case<'_>]) -> Vec<bool> {
    let stride = if cases.len() > 4096 { 4 } else { 1 };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunks: Vec<&[Case<'_>]> = cases.chunks(2048).collect();
    let mut expected = Vec::with_capacity(cases.len());
    for wave in chunks.chunks(threads) {
        let results: Vec<Vec<bool>> = std::thread::scope(|scope| {
            let handles: Vec<_> = wave
                .iter()
                .enumerate()
                .map(|(c, chunk)| scope.spawn(move || check_chunk(what, chunk, stride, c)))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        expected.extend(results.into_iter().flatten());
    }
    expected
}

fn check_chunk(what: &str, cases: &[Case<'_>], stride: usize, chunk: usize) -> Vec<bool> {
    let expected: Vec<bool> = cases.iter().map(Case::openssl).collect();
    let items: Vec<Item<'_>> = cases.iter().map(Case::item).collect();
    let sample: Vec<usize> = (0..items.len()).step_by(stride).collect();
    let sampled: Vec<Item<'_>> = sample.iter().map(|&i| items[i]).collect();
    for (backend, indices, batch) in [
        (
            Backend::Avx512Ifma,
            (0..items.len()).collect::<Vec<_>>(),
            &items,
        ),
        (Backend::Portable, sample.clone(), &sampled),
    ] {
        let got = verify_batch_with_vartime(backend, batch);
        assert_eq!(got.len(), batch.len());
        for (g, &i) in got.iter().zip(&indices) {
            assert_eq!(
                *g,
                expected[i],
                "{what}: item {i} of chunk {chunk} with {backend:?}: r={} s={} e={} key={:?}",
                hex::encode(cases[i].r),
                hex::encode(cases[i].s),
                hex::encode(cases[i].digest),
                cases[i].key.ours
            );
        }
    }
    for (i, item) in items.iter().enumerate().step_by(97) {
        assert_eq!(verify_vartime(item), expected[i], "{what}: item {i} alone");
    }
    expected
}

fn keys(rng: &mut Rng, count: usize) -> Vec<Key> {
    (0..count)
        .map(|_| key_from_private(&rng.scalar()))
        .collect()
}

fn add(v: &[u8; 32], k: &BigUint) -> Option<[u8; 32]> {
    let s = big(v) + k;
    (s.bits() <= 256).then(|| b32(&s))
}

fn sub(v: &[u8; 32], k: u8) -> [u8; 32] {
    b32(&((big(v) + n() - k) % n()))
}

/// One perturbation of a valid signature.
type Perturb = for<'k> fn(&mut Rng, Case<'k>, &'k Key) -> Case<'k>;

#[test]
fn random_items_of_each_perturbation_agree_with_openssl() {
    let mut rng = Rng::new(1);
    // Few keys signing many times, as router keys do.
    let ks = keys(&mut rng, 12);
    let count = items_per_kind();
    let valid: Vec<Case<'_>> = (0..count)
        .map(|i| sign(&ks[i % ks.len()], rng.bytes32()))
        .collect();
    let kinds: Vec<(&str, Perturb)> = vec![
        ("valid", |_, c, _| c),
        ("s = n − s (the other valid s)", |_, c, _| Case {
            s: b32(&(n() - big(&c.s))),
            ..c
        }),
        ("r + 1", |_, c, _| Case {
            r: b32(&((big(&c.r) + 1u8) % n())),
            ..c
        }),
        ("r − 1", |_, c, _| Case {
            r: sub(&c.r, 1),
            ..c
        }),
        ("s + 1", |_, c, _| Case {
            s: b32(&((big(&c.s) + 1u8) % n())),
            ..c
        }),
        ("s − 1", |_, c, _| Case {
            s: sub(&c.s, 1),
            ..c
        }),
        ("digest bit flipped", |rng, mut c, _| {
            let bit = rng.below(256);
            c.digest[bit / 8] ^= 1 << (bit % 8);
            c
        }),
        ("r bit flipped", |rng, mut c, _| {
            let bit = rng.below(256);
            c.r[bit / 8] ^= 1 << (bit % 8);
            c
        }),
        ("s bit flipped", |rng, mut c, _| {
            let bit = rng.below(256);
            c.s[bit / 8] ^= 1 << (bit % 8);
            c
        }),
        ("another key", |_, c, other| Case { key: other, ..c }),
        ("r = 0", |_, c, _| Case { r: [0; 32], ..c }),
        ("s = 0", |_, c, _| Case { s: [0; 32], ..c }),
        ("r = n", |_, c, _| Case { r: b32(&n()), ..c }),
        ("s = n", |_, c, _| Case { s: b32(&n()), ..c }),
        ("r = r + n", |_, c, _| Case {
            r: add(&c.r, &n()).unwrap_or([0xff; 32]),
            ..c
        }),
        ("s = s + n", |_, c, _| Case {
            s: add(&c.s, &n()).unwrap_or([0xff; 32]),
            ..c
        }),
        ("r = p − 1", |_, c, _| Case {
            r: b32(&(p() - 1u8)),
            ..c
        }),
        ("r = 2^256 − 1", |_, c, _| Case { r: [0xff; 32], ..c }),
        ("random r, s", |rng, c, _| Case {
            r: rng.bytes32(),
            s: rng.bytes32(),
            ..c
        }),
        ("digest = 0", |_, c, _| Case {
            digest: [0; 32],
            ..c
        }),
        ("digest = n (≡ 0)", |_, c, _| Case {
            digest: b32(&n()),
            ..c
        }),
    ];
    for (what, f) in kinds {
        let cases: Vec<Case<'_>> = valid
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let other = &ks[(i + 1 + rng.below(ks.len() - 1)) % ks.len()];
                f(&mut rng, *c, other)
            })
            .collect();
        let verdicts = check_all(what, &cases);
        let ok = verdicts.iter().filter(|v| **v).count();
        // The perturbations must do what they say, or the test shows nothing.
        match what {
            "valid" | "s = n − s (the other valid s)" => assert_eq!(ok, count, "{what}"),
            "random r, s" | "digest = 0" | "digest = n (≡ 0)" => {}
            _ => assert_eq!(ok, 0, "{what}"),
        }
    }
}

/// u1·G + u2·Q by OpenSSL; `None` for O.
fn openssl_r(key: &Key, u1: &BigUint, u2: &BigUint) -> Option<BigUint> {
    let g = group();
    let mut ctx = BigNumContext::new().unwrap();
    let mut r = EcPoint::new(&g).unwrap();
    r.mul_full(&g, &bn(u1), key.public.public_key(), &bn(u2), &mut ctx)
        .unwrap();
    if r.is_infinity(&g) {
        return None;
    }
    let (mut x, mut y) = (BigNum::new().unwrap(), BigNum::new().unwrap());
    r.affine_coordinates(&g, &mut x, &mut y, &mut ctx).unwrap();
    Some(big(&x.to_vec()))
}

fn inv_n(a: &BigUint) -> BigUint {
    a.modpow(&(n() - 2u8), &n())
}

/// The signature whose verification computes R = u1·G + u2·Q (u2 ≠ 0): with R ≠ O,
/// r = x(R) mod n, s = r/u2, e = u1·s is valid (e/s = u1, r/s = u2); with R = O a
/// random s, r = u2·s, e = u1·s, which no verifier may accept.
fn crafted<'k>(rng: &mut Rng, key: &'k Key, u1: &BigUint, u2: &BigUint) -> Case<'k> {
    let (r, s) = match openssl_r(key, u1, u2) {
        Some(x) => {
            let r = x % n();
            let s = &r * inv_n(u2) % n();
            (r, s)
        }
        None => {
            let s = rng.scalar();
            (u2 * &s % n(), s)
        }
    };
    Case {
        key,
        digest: b32(&(u1 * &s % n())),
        r: b32(&r),
        s: b32(&s),
    }
}

/// The lowest signed digit of u in windows of w bits, as the kernel's recoding makes it
/// (crate::scalar::booth_digits): the low w bits read as a two's-complement number.
fn digit0(u: &BigUint, w: u32) -> i64 {
    let low = (u % (BigUint::from(1u8) << w))
        .iter_u64_digits()
        .next()
        .unwrap_or(0) as i64;
    if low >= 1 << (w - 1) {
        low - (1 << w)
    } else {
        low
    }
}

/// k mod n for a signed k.
fn modn(k: i64) -> BigUint {
    if k >= 0 {
        BigUint::from(k as u64) % n()
    } else {
        n() - BigUint::from(k.unsigned_abs()) % n()
    }
}

const W_G: u32 = 7;
const W_Q: u32 = 6;

/// Searches u2 and a guessed last G digit δ until u1 = target(u2, δ) has δ as its
/// lowest digit (about one try in 128).
fn solve(rng: &mut Rng, target: impl Fn(&BigUint, i64) -> Option<BigUint>) -> (BigUint, BigUint) {
    for _ in 0..100_000 {
        let u2 = rng.scalar();
        let delta = rng.below(128) as i64 - 64;
        if delta == 0 {
            continue;
        }
        let Some(u1) = target(&u2, delta) else {
            continue;
        };
        if digit0(&u1, W_G) == delta {
            return (u1, u2);
        }
    }
    panic!("no solution found");
}

#[test]
fn point_at_infinity_and_exceptional_additions() {
    let mut rng = Rng::new(2);
    let ks = keys(&mut rng, 4);
    let mut cases = Vec::new();
    let mut expected_valid = Vec::new();
    for key in &ks {
        let d = key.d.clone().unwrap();
        for _ in 0..8 {
            // u1·G = −u2·Q: R = O (SEC 1 §4.1.4 step 5 "if R = O, reject").
            let u2 = rng.scalar();
            let u1 = (n() - &u2 * &d % n()) % n();
            cases.push(crafted(&mut rng, key, &u1, &u2));
            expected_valid.push(false);

            // The kernel's last addition (+d1_0·G) doubles: the accumulator is d1_0·G
            // before it, so R = 2·d1_0·G, i.e. u1 + u2·d = 2δ.
            let (u1, u2) = solve(&mut rng, |u2, delta| {
                Some((modn(2 * delta) + n() - u2 * &d % n()) % n())
            });
            cases.push(crafted(&mut rng, key, &u1, &u2));
            expected_valid.push(true);

            // The last Q addition (+d2_0·Q) doubles: R = 2·d2_0·Q + d1_0·G.
            let (u1, u2) = solve(&mut rng, |u2, delta| {
                let d2 = digit0(u2, W_Q);
                (d2 != 0).then(|| (modn(2 * d2) * &d + modn(delta) + n() - u2 * &d % n()) % n())
            });
            cases.push(crafted(&mut rng, key, &u1, &u2));
            expected_valid.push(true);

            // The last Q addition meets its negative (the sum is O), then +d1_0·G:
            // R = d1_0·G.
            let (u1, u2) = solve(&mut rng, |u2, delta| {
                (digit0(u2, W_Q) != 0).then(|| (modn(delta) + n() - u2 * &d % n()) % n())
            });
            cases.push(crafted(&mut rng, key, &u1, &u2));
            expected_valid.push(true);
        }
    }
    // Q = G and Q = −G: the first additions (top digits, equal when u1 and u2 share
    // bits 250..255) double or cancel; u1 = u2 with Q = −G gives R = O.
    let one = BigUint::from(1u8);
    let plus_minus_g = [key_from_private(&one), key_from_private(&(n() - 1u8))];
    for key in &plus_minus_g {
        let d = key.d.clone().unwrap();
        for _ in 0..16 {
            let u2 = rng.scalar();
            let u1 = &u2 ^ (big(&rng.bytes32()) >> 6u32);
            if u1 == BigUint::from(0u8) || u1 >= n() {
                continue;
            }
            let sum = (&u1 + &u2 * &d) % n();
            cases.push(crafted(&mut rng, key, &u1, &u2));
            expected_valid.push(sum != BigUint::from(0u8));
        }
        let u = rng.scalar();
        cases.push(crafted(&mut rng, key, &u, &u));
        expected_valid.push(d == one);
    }
    // Lane isolation: the exceptional items in one batch with ordinary ones.
    let mut mixed = Vec::new();
    let mut mixed_expected = Vec::new();
    for (c, v) in cases.iter().zip(&expected_valid) {
        mixed.push(*c);
        mixed_expected.push(*v);
        let other = &ks[rng.below(ks.len())];
        mixed.push(sign(other, rng.bytes32()));
        mixed_expected.push(true);
    }
    assert_eq!(check_all("exceptional", &cases), expected_valid);
    assert_eq!(check_all("exceptional, mixed", &mixed), mixed_expected);
    for (i, c) in cases.iter().enumerate() {
        assert_eq!(
            verify_vartime(&c.item()),
            expected_valid[i],
            "exceptional item {i} alone"
        );
    }
}

/// A point with x(R) ∈ [n, p): x = n + t for the first t that is an x-coordinate.
fn point_with_large_x() -> EcPoint {
    let g = group();
    let mut ctx = BigNumContext::new().unwrap();
    for t in 0u32..1000 {
        let mut enc = vec![0x02];
        enc.extend_from_slice(&b32(&(n() + t)));
        if let Ok(p) = EcPoint::from_bytes(&g, &enc, &mut ctx) {
            return p;
        }
    }
    panic!("no x in [n, n + 1000) on the curve");
}

#[test]
fn x_of_r_at_least_n_is_reduced_mod_n() {
    // SEC 1 §4.1.4 step 6–7: x(R) mod n = r with x(R) ≥ n, the branch X = (r + n)·Z².
    let mut rng = Rng::new(3);
    let g = group();
    let mut ctx = BigNumContext::new().unwrap();
    let big_r = point_with_large_x();
    let (mut xr, mut yr) = (BigNum::new().unwrap(), BigNum::new().unwrap());
    big_r
        .affine_coordinates(&g, &mut xr, &mut yr, &mut ctx)
        .unwrap();
    let x = big(&xr.to_vec());
    assert!(x >= n() && x < p());
    let r = &x - n();
    let mut cases = Vec::new();
    let mut expected = Vec::new();
    let mut keys_q = Vec::new();
    for _ in 0..9 {
        // Q = R − t·G, u1 = t, u2 = 1: R = t·G + Q; s = r, e = t·r.
        let t = rng.scalar();
        let mut tg = EcPoint::new(&g).unwrap();
        tg.mul_generator2(&g, &bn(&t), &mut ctx).unwrap();
        tg.invert2(&g, &mut ctx).unwrap();
        let mut q = EcPoint::new(&g).unwrap();
        q.add(&g, &big_r, &tg, &mut ctx).unwrap();
        keys_q.push((key_from_point(&q), t));
    }
    // u1 = 0: Q = R itself, digest 0.
    keys_q.push((key_from_point(&big_r), BigUint::from(0u8)));
    for (key, t) in &keys_q {
        let good = Case {
            key,
            digest: b32(&(t * &r % n())),
            r: b32(&r),
            s: b32(&r),
        };
        cases.push(good);
        expected.push(true);
        // x(R) itself is ≥ n: out of range.
        cases.push(Case { r: b32(&x), ..good });
        expected.push(false);
        cases.push(Case {
            r: b32(&(&r + 1u8)),
            ..good
        });
        expected.push(false);
    }
    assert_eq!(check_all("x(R) ≥ n", &cases), expected);
}

#[test]
fn batches_of_every_length_match_each_item_alone() {
    let mut rng = Rng::new(4);
    let ks = keys(&mut rng, 5);
    let mut lengths: Vec<usize> = (0..=17).collect();
    lengths.extend([64, 65]);
    for len in lengths {
        let cases: Vec<Case<'_>> = (0..len)
            .map(|_| {
                let k = rng.below(ks.len());
                let mut c = sign(&ks[k], rng.bytes32());
                match rng.below(6) {
                    0 => c.digest[rng.below(32)] ^= 1,
                    1 => c.key = &ks[(k + 1) % ks.len()],
                    2 => c.s = [0; 32],
                    3 => c.r = b32(&n()),
                    _ => {}
                }
                c
            })
            .collect();
        let expected = check_all(&format!("batch of {len}"), &cases);
        for (i, c) in cases.iter().enumerate() {
            assert_eq!(
                verify_vartime(&c.item()),
                expected[i],
                "batch of {len}, item {i} alone"
            );
        }
        if len >= 8 {
            assert!(
                expected.iter().any(|v| *v) && expected.iter().any(|v| !*v),
                "a mix"
            );
        }
    }
}

#[test]
fn public_keys_rejected_as_openssl_rejects_them() {
    let g = group();
    let mut ctx = BigNumContext::new().unwrap();
    let openssl_accepts = |bytes: &[u8]| {
        EcPoint::from_bytes(&group(), bytes, &mut BigNumContext::new().unwrap()).is_ok()
    };
    let mut rng = Rng::new(5);
    let key = key_from_private(&rng.scalar());
    let good = key.ours.to_sec1();
    assert!(openssl_accepts(&good));
    assert_eq!(PublicKey::from_sec1(&good).unwrap(), key.ours);

    // Not on the curve.
    let mut off = good;
    off[64] ^= 1;
    assert_eq!(PublicKey::from_sec1(&off), Err(KeyError::NotOnCurve));
    assert!(!openssl_accepts(&off));
    let mut zero = [0u8; 65];
    zero[0] = 4;
    assert_eq!(PublicKey::from_sec1(&zero), Err(KeyError::NotOnCurve));
    assert!(!openssl_accepts(&zero));

    // A coordinate ≥ p: x + p names the same x mod p, but the encoding is not canonical.
    let mut small_x = None;
    for t in 0u32..1000 {
        let mut enc = vec![0x02];
        enc.extend_from_slice(&b32(&BigUint::from(t)));
        if let Ok(pt) = EcPoint::from_bytes(&g, &enc, &mut ctx) {
            small_x = Some(pt);
            break;
        }
    }
    let pt = small_x.unwrap();
    let canonical = sec1(&pt);
    assert!(PublicKey::from_sec1(&canonical).is_ok());
    let mut shifted = canonical.clone();
    shifted[1..33].copy_from_slice(&b32(&(big(&canonical[1..33]) + p())));
    assert_eq!(
        PublicKey::from_sec1(&shifted),
        Err(KeyError::CoordinateRange)
    );
    assert!(!openssl_accepts(&shifted));
    for coord in [1..33, 33..65] {
        for v in [p(), p() + 1u8, (BigUint::from(1u8) << 256u32) - 1u8] {
            let mut bad = good;
            bad[coord.clone()].copy_from_slice(&b32(&v));
            assert_eq!(PublicKey::from_sec1(&bad), Err(KeyError::CoordinateRange));
            assert!(!openssl_accepts(&bad));
        }
    }

    // Forms and lengths: only the uncompressed 65-octet form (RFC 8208 §3.3 router keys
    // are uncompressed). OpenSSL also decodes the compressed and hybrid forms, which
    // hopsig-p256 leaves to its callers.
    let compressed = key
        .public
        .public_key()
        .to_bytes(&g, PointConversionForm::COMPRESSED, &mut ctx)
        .unwrap();
    assert_eq!(
        PublicKey::from_sec1(&compressed),
        Err(KeyError::Form(compressed[0]))
    );
    let mut hybrid = good;
    hybrid[0] = 0x06 | (good[64] & 1);
    assert_eq!(
        PublicKey::from_sec1(&hybrid),
        Err(KeyError::Form(hybrid[0]))
    );
    assert_eq!(PublicKey::from_sec1(&[0x00]), Err(KeyError::Form(0)));
    assert!(
        openssl_accepts(&[0x00]),
        "OpenSSL reads the point at infinity"
    );
    assert_eq!(PublicKey::from_sec1(&[]), Err(KeyError::Length(0)));
    assert_eq!(PublicKey::from_sec1(&good[..64]), Err(KeyError::Length(64)));
    let mut long = good.to_vec();
    long.push(0);
    assert_eq!(PublicKey::from_sec1(&long), Err(KeyError::Length(66)));
    assert!(!openssl_accepts(&long));
}
