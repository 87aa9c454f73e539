//! The public API: checked public keys (SEC 1 v2 §2.3.4, §3.2.2.1), items, and ECDSA
//! verification (SEC 1 v2 §4.1.4, FIPS 186-5 §6.4.2) of a whole batch — eight lanes per
//! IFMA kernel call where the processor has it, the portable complete code elsewhere
//! and for the lanes the kernel leaves exceptional, with the same verdicts either way.

use std::fmt;
use std::sync::OnceLock;

use crate::curve::{double_scalar_mul_jacobian_1, Affine, Jacobian};
use crate::field52::{Fe, Modulus, N, P};
use crate::ifma;
use crate::kernel::{GTable, JacobianM52, Lane, QTable};
use crate::scalar::prepare_vartime;
use crate::table::{g_table, q_table};

/// A P-256 public key Q, checked (SEC 1 v2 §3.2.2.1: coordinates in [0, p − 1], on the
/// curve, not the point at infinity; the group has prime order, so Q is in it), with
/// its table of multiples built on first use and kept (router keys repeat: a key's table
/// is built once however many signatures it verifies).
#[derive(Clone)]
pub struct PublicKey {
    point: Affine,
    table: OnceLock<Box<QTable>>,
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sec1 = self.to_sec1();
        write!(f, "PublicKey(")?;
        for b in sec1 {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

impl PartialEq for PublicKey {
    fn eq(&self, other: &PublicKey) -> bool {
        self.point == other.point
    }
}

impl Eq for PublicKey {}

/// Why bytes are not a P-256 public key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyError {
    /// Not 65 octets.
    Length(usize),
    /// The first octet is not 0x04 (uncompressed, SEC 1 §2.3.3).
    Form(u8),
    /// A coordinate is ≥ p.
    CoordinateRange,
    /// (x, y) does not satisfy y² = x³ − 3x + b.
    NotOnCurve,
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::Length(n) => write!(f, "a P-256 point is 65 octets, not {n}"),
            KeyError::Form(b) => write!(f, "point form 0x{b:02x} is not uncompressed (0x04)"),
            KeyError::CoordinateRange => f.write_str("a coordinate is not below p"),
            KeyError::NotOnCurve => f.write_str("the point is not on P-256"),
        }
    }
}

impl std::error::Error for KeyError {}

impl PublicKey {
    /// The uncompressed SEC 1 encoding 0x04 ‖ x ‖ y (65 octets), checked.
    ///
    /// # Errors
    /// Why it is not a P-256 public key.
    /// SEC 1 v2 §2.3.4 (octet string to point, uncompressed form only) with the public
    /// key validation of §3.2.2.1: x, y < p (step 2), y² = x³ − 3x + b (step 3); O has
    /// no 65-octet encoding, and n·Q = O holds for every point of a prime-order curve.
    ///
    /// # Errors
    /// Why it is not a P-256 public key: [`KeyError::Form`] for a first octet other
    /// than 0x04 (compressed 0x02/0x03, hybrid 0x06/0x07, infinity 0x00),
    /// [`KeyError::Length`] for anything but 65 octets, [`KeyError::CoordinateRange`],
    /// [`KeyError::NotOnCurve`].
    pub fn from_sec1(bytes: &[u8]) -> Result<PublicKey, KeyError> {
        let Some(&form) = bytes.first() else {
            return Err(KeyError::Length(0));
        };
        if form != 0x04 {
            return Err(KeyError::Form(form));
        }
        let Ok(body) = <&[u8; 65]>::try_from(bytes) else {
            return Err(KeyError::Length(bytes.len()));
        };
        let (x, y) = coordinates(body);
        let point = Affine {
            x: Fe::from_bytes(&x).ok_or(KeyError::CoordinateRange)?,
            y: Fe::from_bytes(&y).ok_or(KeyError::CoordinateRange)?,
        };
        if !point.is_on_curve() {
            return Err(KeyError::NotOnCurve);
        }
        Ok(PublicKey {
            point,
            table: OnceLock::new(),
        })
    }

    /// 0x04 ‖ x ‖ y.
    pub fn to_sec1(&self) -> [u8; 65] {
        let mut out = [0u8; 65];
        out[0] = 0x04;
        out[1..33].copy_from_slice(&self.point.x.to_bytes());
        out[33..].copy_from_slice(&self.point.y.to_bytes());
        out
    }

    /// The key's table k·Q, k = 1..=2^(W_Q−1), built on the first call and kept. `None`
    /// never happens for a checked key (Q has order n, so no multiple is O).
    pub(crate) fn table(&self) -> Option<&QTable> {
        if let Some(t) = self.table.get() {
            return Some(t);
        }
        let built = q_table(&self.point)?;
        // Two threads may both build it; the first stored one is kept.
        Some(self.table.get_or_init(|| built))
    }
}

/// One signature to verify: (r, s) on the SHA-256 `digest` under `key`. r and s are
/// big-endian integers as decoded from the signature; values outside [1, n − 1] simply
/// do not verify (SEC 1 §4.1.4 step 1).
#[derive(Debug, Clone, Copy)]
pub struct Item<'a> {
    /// The public key.
    pub key: &'a PublicKey,
    /// The message digest e (SHA-256: all 256 bits are used, FIPS 186-5 §6.4.2).
    pub digest: [u8; 32],
    /// r.
    pub r: [u8; 32],
    /// s.
    pub s: [u8; 32],
}

/// Which code verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Eight lanes of AVX-512 IFMA.
    Avx512Ifma,
    /// The portable one-lane code.
    Portable,
}

impl Backend {
    /// A stable name (`avx512ifma`, `portable`).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Avx512Ifma => "avx512ifma",
            Backend::Portable => "portable",
        }
    }
}

/// The backend [`verify_batch_vartime`] uses on this machine: IFMA when
/// [`hopsig_cpu::has`] says so.
pub fn active_backend() -> Backend {
    if ifma::available() {
        Backend::Avx512Ifma
    } else {
        Backend::Portable
    }
}

/// Whether one item verifies (portable code): SEC 1 v2 §4.1.4 / FIPS 186-5 §6.4.2.
pub fn verify_vartime(item: &Item<'_>) -> bool {
    verify_batch_with_vartime(Backend::Portable, std::slice::from_ref(item))
        .first()
        .copied()
        .unwrap_or(false)
}

/// One verdict per item, in order, with [`active_backend`].
///
/// ```
/// use hopsig_p256::{verify_batch_vartime, Item, PublicKey};
/// # fn h(s: &str) -> [u8; 32] { hex::decode(s).unwrap().try_into().unwrap() }
/// // RFC 6979 §A.2.5: P-256, SHA-256, message "sample".
/// let mut sec1 = vec![0x04];
/// sec1.extend(h("60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"));
/// sec1.extend(h("7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299"));
/// let key = PublicKey::from_sec1(&sec1)?;
/// let good = Item {
///     key: &key,
///     digest: openssl::sha::sha256(b"sample"),
///     r: h("efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716"),
///     s: h("f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8"),
/// };
/// let other = Item { digest: openssl::sha::sha256(b"test"), ..good };
/// assert_eq!(verify_batch_vartime(&[good, other]), [true, false]);
/// # Ok::<(), hopsig_p256::KeyError>(())
/// ```
pub fn verify_batch_vartime(items: &[Item<'_>]) -> Vec<bool> {
    verify_batch_with_vartime(active_backend(), items)
}

/// One verdict per item with `backend` (IFMA falls back to portable code where the
/// processor lacks it); the verdicts do not depend on the backend.
///
/// SEC 1 v2 §4.1.4 (FIPS 186-5 §6.4.2): step 1, the range of r and s, and steps 4–5,
/// the scalars, for the whole batch at once (module `scalar`); step 5,
/// R = u1·G + u2·Q, eight items per kernel call with IFMA (a short last group is padded
/// with copies of one of its lanes, whose extra verdicts are dropped) or one at a time
/// portably; lanes the kernel marks exceptional (Z = 0) are recomputed by the complete
/// portable code; steps 6–7, R ≠ O and x(R) mod n = r, without an inversion
/// (`x_is_r`).
pub fn verify_batch_with_vartime(backend: Backend, items: &[Item<'_>]) -> Vec<bool> {
    let scalars = prepare_vartime(
        &items
            .iter()
            .map(|i| (i.digest, i.r, i.s))
            .collect::<Vec<_>>(),
    );
    let g = g_table();
    // (item index, lane) for every item past step 1.
    let lanes: Vec<(usize, Lane<'_>)> = items
        .iter()
        .zip(scalars)
        .enumerate()
        .filter_map(|(i, (item, sc))| {
            let sc = sc?;
            Some((
                i,
                Lane {
                    q: item.key.table()?,
                    u1: sc.u1,
                    u2: sc.u2,
                },
            ))
        })
        .collect();
    let mut verdicts = vec![false; items.len()];
    let vector = backend == Backend::Avx512Ifma && ifma::available();
    if vector {
        for group in lanes.chunks(8) {
            let Some(first) = group.first() else { continue };
            let batch: [Lane<'_>; 8] = std::array::from_fn(|k| group.get(k).unwrap_or(first).1);
            let out = ifma::double_scalar_mul(g, &batch);
            group_verdicts(g, group, out.as_ref(), items, &mut verdicts);
        }
    } else {
        for (i, lane) in &lanes {
            verdicts[*i] = verify_lane_portable(g, lane, &items[*i].r);
        }
    }
    verdicts
}

/// The verdicts of one group of up to eight lanes from the kernel's output `out` (`None`
/// when the kernel did not run): a lane with a finite, well-formed result gets steps
/// 6–7; one with Z = 0 (O or an exceptional addition), limbs out of range, or no kernel
/// output is recomputed by the complete portable code. Padding lanes have no entry in
/// `group`, so their results are never read.
fn group_verdicts(
    g: &GTable,
    group: &[(usize, Lane<'_>)],
    out: Option<&[JacobianM52; 8]>,
    items: &[Item<'_>],
    verdicts: &mut [bool],
) {
    for (k, (i, lane)) in group.iter().enumerate() {
        let r = &items[*i].r;
        let from_kernel = out
            .and_then(|o| o.get(k))
            .and_then(Jacobian::from_m52)
            .filter(|p| !p.is_infinity());
        verdicts[*i] = match from_kernel {
            Some(p) => x_is_r(&p, r),
            None => verify_lane_portable(g, lane, r),
        };
    }
}

/// Steps 5–7 for one lane with the complete portable code.
fn verify_lane_portable(g: &GTable, lane: &Lane<'_>, r: &[u8; 32]) -> bool {
    let p = double_scalar_mul_jacobian_1(g, lane);
    !p.is_infinity() && x_is_r(&p, r)
}

/// SEC 1 v2 §4.1.4 steps 6–7 for R = (X : Y : Z), Z ≠ 0, and r ∈ [1, n − 1]: x(R) =
/// X/Z² is in [0, p − 1] and p < 2n, so x(R) mod n = r iff x(R) = r or x(R) = r + n
/// (possible only when r + n < p); that is X = r·Z² or X = (r + n)·Z² (mod p), no
/// inversion needed.
fn x_is_r(p: &Jacobian, r: &[u8; 32]) -> bool {
    // r < n < p, so it is a field element as it stands.
    let Some(r_p) = Fe::<P>::from_bytes(r) else {
        return false;
    };
    let z2 = p.z.square();
    if p.x == r_p.mul(&z2) {
        return true;
    }
    let n_p = Fe::<P>::from_canonical_limbs(&N::M);
    // p − n as a big-endian integer; big-endian arrays compare as the integers do.
    let p_minus_n = n_p.neg().to_bytes();
    *r < p_minus_n && p.x == r_p.add(&n_p).mul(&z2)
}

/// x and y of an uncompressed encoding 0x04 ‖ x ‖ y.
fn coordinates(body: &[u8; 65]) -> ([u8; 32], [u8; 32]) {
    let mut x = [0u8; 32];
    let mut y = [0u8; 32];
    x.copy_from_slice(&body[1..33]);
    y.copy_from_slice(&body[33..]);
    (x, y)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use openssl::bn::BigNumContext;
    use openssl::ec::{EcGroup, EcKey, PointConversionForm};
    use openssl::ecdsa::EcdsaSig;
    use openssl::nid::Nid;

    /// A key with (digest, r, s).
    type Signed = (PublicKey, [u8; 32], [u8; 32], [u8; 32]);

    fn signed(count: usize) -> Vec<Signed> {
        let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap();
        let mut ctx = BigNumContext::new().unwrap();
        (0..count)
            .map(|i| {
                let key = EcKey::generate(&group).unwrap();
                let sec1 = key
                    .public_key()
                    .to_bytes(&group, PointConversionForm::UNCOMPRESSED, &mut ctx)
                    .unwrap();
                let digest = [i as u8 ^ 0x5a; 32];
                let sig = EcdsaSig::sign(&digest, &key).unwrap();
                let r: [u8; 32] = sig.r().to_vec_padded(32).unwrap().try_into().unwrap();
                let mut s: [u8; 32] = sig.s().to_vec_padded(32).unwrap().try_into().unwrap();
                // Every third item is invalid.
                if i % 3 == 2 {
                    s[31] ^= 1;
                }
                (PublicKey::from_sec1(&sec1).unwrap(), digest, r, s)
            })
            .collect()
    }

    fn items(v: &[Signed]) -> Vec<Item<'_>> {
        v.iter()
            .map(|(key, digest, r, s)| Item {
                key,
                digest: *digest,
                r: *r,
                s: *s,
            })
            .collect()
    }

    fn lanes<'a>(items: &[Item<'a>]) -> Vec<(usize, Lane<'a>)> {
        let sc = prepare_vartime(
            &items
                .iter()
                .map(|i| (i.digest, i.r, i.s))
                .collect::<Vec<_>>(),
        );
        items
            .iter()
            .zip(sc)
            .enumerate()
            .map(|(i, (item, sc))| {
                let sc = sc.unwrap();
                (
                    i,
                    Lane {
                        q: item.key.table().unwrap(),
                        u1: sc.u1,
                        u2: sc.u2,
                    },
                )
            })
            .collect()
    }

    fn m52(p: &Jacobian) -> JacobianM52 {
        JacobianM52 {
            x: p.x.montgomery_limbs(),
            y: p.y.montgomery_limbs(),
            z: p.z.montgomery_limbs(),
        }
    }

    /// The driver's handling of kernel output, whatever the kernel: exact results are
    /// used, Z = 0 / malformed / missing output is recomputed, a wrong finite result is
    /// believed (so the output really is what decides), a projective rescaling changes
    /// nothing.
    #[test]
    fn group_verdicts_use_kernel_output_and_recompute_exceptions() {
        let keys = signed(7);
        let items = items(&keys);
        let expected: Vec<bool> = (0..7).map(|i| i % 3 != 2).collect();
        assert_eq!(
            verify_batch_with_vartime(Backend::Portable, &items),
            expected
        );
        let group = lanes(&items);
        let g = g_table();
        let exact: Vec<Jacobian> = group
            .iter()
            .map(|(_, l)| double_scalar_mul_jacobian_1(g, l))
            .collect();
        let run = |out: Option<&[JacobianM52; 8]>| {
            let mut v = vec![false; items.len()];
            group_verdicts(g, &group, out, &items, &mut v);
            v
        };
        let mut out = [JacobianM52::default(); 8];
        for (o, p) in out.iter_mut().zip(&exact) {
            *o = m52(p);
        }
        assert_eq!(run(Some(&out)), expected);
        assert_eq!(run(None), expected);
        assert_eq!(run(Some(&[JacobianM52::default(); 8])), expected);
        let malformed = JacobianM52 {
            x: [u64::MAX; 5],
            y: [u64::MAX; 5],
            z: [u64::MAX; 5],
        };
        assert_eq!(run(Some(&[malformed; 8])), expected);
        // (λ²X : λ³Y : λZ) is the same point.
        let lambda = Fe::<P>::from_bytes_reduced(&[7; 32]);
        let mut scaled = out;
        for (o, p) in scaled.iter_mut().zip(&exact) {
            let l2 = lambda.square();
            *o = m52(&Jacobian {
                x: p.x.mul(&l2),
                y: p.y.mul(&l2).mul(&lambda),
                z: p.z.mul(&lambda),
            });
        }
        assert_eq!(run(Some(&scaled)), expected);
        // A wrong finite result for lane 0 (valid) makes it fail, and only it.
        let mut wrong = out;
        wrong[0] = m52(&exact[0].double());
        let mut want = expected.clone();
        want[0] = false;
        assert_eq!(run(Some(&wrong)), want);
    }

    #[test]
    fn both_backends_agree_on_every_short_batch() {
        let keys = signed(19);
        let items = items(&keys);
        for len in 0..=items.len() {
            let want: Vec<bool> = (0..len).map(|i| i % 3 != 2).collect();
            for backend in [Backend::Portable, Backend::Avx512Ifma] {
                assert_eq!(verify_batch_with_vartime(backend, &items[..len]), want);
            }
        }
    }

    /// Where the processor has IFMA, the kernel answers and its results decide the
    /// ordinary lanes (none of them needs the portable recomputation). Under CI=true a
    /// machine that has the instructions must run the kernel.
    #[test]
    fn kernel_decides_ordinary_lanes_where_available() {
        if !ifma::available() {
            assert!(
                !hopsig_cpu::ci_expects(hopsig_cpu::Feature::Avx512Ifma),
                "avx512ifma detected but the kernel is not available"
            );
            println!("skipped: no avx512ifma");
            return;
        }
        let keys = signed(8);
        let items = items(&keys);
        let group = lanes(&items);
        let g = g_table();
        let batch: [Lane<'_>; 8] = std::array::from_fn(|k| group[k].1);
        let out = ifma::double_scalar_mul(g, &batch).expect("the kernel runs here");
        for (k, (i, lane)) in group.iter().enumerate() {
            let p = Jacobian::from_m52(&out[k]).expect("reduced limbs");
            assert!(!p.is_infinity(), "lane {k} is not exceptional");
            assert_eq!(p.to_affine(), crate::curve::double_scalar_mul_1(g, lane));
            assert_eq!(x_is_r(&p, &items[*i].r), i % 3 != 2);
        }
    }

    /// k mod n for a small signed k.
    fn small(k: i64) -> Fe<N> {
        let mut b = [0u8; 32];
        b[24..].copy_from_slice(&k.unsigned_abs().to_be_bytes());
        let f = Fe::<N>::from_bytes_reduced(&b);
        if k < 0 {
            f.neg()
        } else {
            f
        }
    }

    fn digits<'a>(u1: &Fe<N>, u2: &Fe<N>, q: &'a QTable) -> Lane<'a> {
        use crate::kernel::{W_G, W_Q};
        use crate::scalar::booth_digits;
        Lane {
            q,
            u1: booth_digits(&u1.canonical_limbs(), W_G),
            u2: booth_digits(&u2.canonical_limbs(), W_Q),
        }
    }

    /// (digest, r, s) whose verification computes R = u1·G + u2·Q: r = x(R) mod n,
    /// s = r/u2, e = u1·s when R ≠ O (valid); r = u2·s, e = u1·s for a fixed s when
    /// R = O (invalid).
    fn crafted(key: &PublicKey, u1: &Fe<N>, u2: &Fe<N>) -> ([u8; 32], [u8; 32], [u8; 32]) {
        let lane = digits(u1, u2, key.table().unwrap());
        let (r, s) = match crate::curve::double_scalar_mul_1(g_table(), &lane) {
            Some(p) => {
                let r = Fe::<N>::from_bytes_reduced(&p.x.to_bytes());
                (r, r.mul(&u2.invert_vartime().unwrap()))
            }
            None => {
                let s = small(12345);
                (u2.mul(&s), s)
            }
        };
        (u1.mul(&s).to_bytes(), r.to_bytes(), s.to_bytes())
    }

    /// The contract between the driver and the kernel on exceptional lanes: R = O and
    /// a last addition that doubles come back with Z = 0 from the kernel (where it
    /// runs), beside ordinary lanes that do not, and get the right verdicts.
    #[test]
    fn exceptional_lanes_come_back_with_z_zero_and_are_recomputed() {
        let d = small(0x0123_4567_89ab_cdef).mul(&small(0x7654_3210_fedc_ba98));
        let g_only = crate::table::q_table(&Affine::generator()).unwrap();
        let q =
            crate::curve::double_scalar_mul_1(g_table(), &digits(&d, &Fe::ZERO, &g_only)).unwrap();
        let mut sec1 = [4u8; 65];
        sec1[1..33].copy_from_slice(&q.x.to_bytes());
        sec1[33..].copy_from_slice(&q.y.to_bytes());
        let key = PublicKey::from_sec1(&sec1).unwrap();
        let mut cases = Vec::new();
        // u1 = −u2·d: R = O.
        for k in 1..4 {
            let u2 = small(0x1_0000_0001 * k).mul(&d);
            cases.push((crafted(&key, &u2.mul(&d).neg(), &u2), false, true));
        }
        // The last addition doubles: R = 2·d1_0·G, u1 = 2δ − u2·d with d1_0 = δ.
        let mut found = 0;
        for t in 1..20_000i64 {
            let u2 = small(t).mul(&small(0x5151_5151));
            let delta = t % 129 - 64;
            if delta == 0 {
                continue;
            }
            let u1 = small(2 * delta).sub(&u2.mul(&d));
            if digits(&u1, &u2, &g_only).u1[0] == delta as i8 {
                cases.push((crafted(&key, &u1, &u2), true, true));
                found += 1;
                if found == 3 {
                    break;
                }
            }
        }
        assert_eq!(found, 3);
        // Ordinary lanes.
        for k in 1..3 {
            let (u1, u2) = (small(977 * k), small(1009 * k));
            cases.push((crafted(&key, &u1, &u2), true, false));
        }
        let items: Vec<Item<'_>> = cases
            .iter()
            .map(|((digest, r, s), _, _)| Item {
                key: &key,
                digest: *digest,
                r: *r,
                s: *s,
            })
            .collect();
        let want: Vec<bool> = cases.iter().map(|c| c.1).collect();
        for backend in [Backend::Portable, Backend::Avx512Ifma] {
            assert_eq!(verify_batch_with_vartime(backend, &items), want);
        }
        if !ifma::available() {
            println!("skipped (the Z = 0 part): no avx512ifma");
            return;
        }
        let group = lanes(&items);
        let batch: [Lane<'_>; 8] = std::array::from_fn(|k| group[k].1);
        let out = ifma::double_scalar_mul(g_table(), &batch).unwrap();
        for (k, c) in cases.iter().enumerate() {
            assert_eq!(out[k].z == [0; 5], c.2, "lane {k}");
        }
    }

    #[test]
    fn active_backend_follows_the_cpu() {
        let want = if hopsig_cpu::has(hopsig_cpu::Feature::Avx512Ifma) {
            Backend::Avx512Ifma
        } else {
            Backend::Portable
        };
        assert_eq!(active_backend(), want);
        assert_eq!(Backend::Avx512Ifma.name(), "avx512ifma");
    }

    #[test]
    fn keys_and_items_cross_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<PublicKey>();
        send_sync::<Item<'static>>();
        // Fresh keys (no table yet) verified from four threads at once: each key's
        // table is built by whichever thread comes first, and every thread gets the
        // same verdicts.
        let keys = signed(12);
        let items = items(&keys);
        let want: Vec<bool> = (0..12).map(|i| i % 3 != 2).collect();
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4)
                .map(|_| scope.spawn(|| verify_batch_vartime(&items)))
                .collect();
            for h in handles {
                assert_eq!(h.join().unwrap(), want);
            }
        });
    }

    #[test]
    fn key_round_trip_and_debug() {
        let keys = signed(1);
        let key = &keys[0].0;
        let again = PublicKey::from_sec1(&key.to_sec1()).unwrap();
        assert_eq!(&again, key);
        assert_eq!(
            format!("{again:?}"),
            format!("PublicKey({})", hex::encode(key.to_sec1()))
        );
        // The table is built once and kept.
        let t1: *const QTable = key.table().unwrap();
        let t2: *const QTable = key.table().unwrap();
        assert_eq!(t1, t2);
    }
}
