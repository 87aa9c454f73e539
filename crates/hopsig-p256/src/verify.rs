//! The public API: keys, items, batch verification (engineer 2 of issue 28 fills this
//! in; the signatures below are the interface the rest of hopsig codes against).

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
#[derive(Clone, Copy)]
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
pub fn verify_batch_vartime(items: &[Item<'_>]) -> Vec<bool> {
    verify_batch_with_vartime(active_backend(), items)
}

/// One verdict per item with `backend` (IFMA falls back to portable code where the
/// processor lacks it); the verdicts do not depend on the backend.
///
/// SEC 1 v2 §4.1.4 (FIPS 186-5 §6.4.2): step 1, the range of r and s, and steps 4–5,
/// the scalars, for the whole batch at once ([`crate::scalar`]); step 5,
/// R = u1·G + u2·Q, eight items per kernel call with IFMA (a short last group is padded
/// with copies of one of its lanes, whose extra verdicts are dropped) or one at a time
/// portably; lanes the kernel marks exceptional (Z = 0) are recomputed by the complete
/// portable code; steps 6–7, R ≠ O and x(R) mod n = r, without an inversion
/// ([`x_is_r`]).
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
