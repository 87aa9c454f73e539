//! The random oracles H and G, the PRF, and SPLIT, exactly as `docs/spec/bgr.md` §4
//! writes them byte by byte.
//!
//! Every hash is bound to its parameter set: its domain tag is an ASCII label followed
//! by `P = code ‖ param`, the two header bytes that name the parameter set
//! (`docs/spec/aggregate.md`), so that an aggregate of one parameter set is no
//! signature of another (a `bgr-rsa2048` aggregate relabelled `bgr-rand-rsa2048-r128`,
//! whose r has the same length, must not verify). KC-x and the App. A demonstrations
//! reuse G with an empty `P`.

use hopsig_primitives::hash::{hmac_sha256, mgf1_sha256, sha256};

use super::H_LEN;

/// Label of H's domain tag (`TAG_H = LABEL_H ‖ P`).
pub const LABEL_H: &[u8] = b"HOPSIG-BGR-V1-H";
/// Label of G's domain tag (`TAG_G = LABEL_G ‖ P`).
pub const LABEL_G: &[u8] = b"HOPSIG-BGR-V1-G";
/// Label of the PRF's domain tag (`TAG_PRF = LABEL_PRF ‖ P`).
pub const LABEL_PRF: &[u8] = b"HOPSIG-BGR-V1-PRF";

fn k_bytes(k: usize) -> [u8; 2] {
    u16::try_from(k).unwrap_or(u16::MAX).to_be_bytes()
}

/// `η = H(π, m, r, x)` (Sign line 2, Ver line 5 and 7). `π` enters as the SHA-256
/// fingerprint of the public key (BGR §6); `x = None` is ε (the first signer); `p` is
/// the parameter set's `code ‖ param` ([`super::BgrParams::hash_domain`]).
///
/// `SHA-256(LABEL_H ‖ p ‖ fp ‖ len(r) ‖ r ‖ k ‖ present(x) ‖ x ‖ m)`: every field
/// before `m` has a length fixed by the parameters or stated in the input, so the
/// encoding is unambiguous.
pub fn h(
    p: &[u8],
    fingerprint: &[u8; 32],
    k: usize,
    msg: &[u8],
    r: &[u8],
    x_prev: Option<&[u8]>,
) -> [u8; H_LEN] {
    let r_len = [u8::try_from(r.len()).unwrap_or(u8::MAX)];
    let k = k_bytes(k);
    let (present, x): (&[u8], &[u8]) = match x_prev {
        Some(x) => (&[1], x),
        None => (&[0], &[]),
    };
    sha256(&[LABEL_H, p, fingerprint, &r_len, r, &k, present, x, msg])
}

/// `g = G(h) ∈ D` (Sign line 4, Ver line 3): MGF1-SHA-256 of `LABEL_G ‖ p ‖ k ‖ h` to
/// `k` bytes, top bit cleared, so that `g < 2^(ℓ_π − 1)` (App. F: G outputs elements
/// of D). `p` is the parameter set's `code ‖ param`, empty for KC-x (`docs/spec/kcx.md`)
/// and the App. A demonstrations.
pub fn g(p: &[u8], h: &[u8; H_LEN], out: &mut [u8]) {
    mgf1_sha256(&[LABEL_G, p, &k_bytes(out.len()), h], out);
    if let Some(first) = out.first_mut() {
        *first &= 0x7f;
    }
}

/// `r = PRF_seed(m, h, x)` (§5.1): HMAC-SHA-256 keyed with the 32-byte seed over
/// `LABEL_PRF ‖ p ‖ k ‖ present ‖ h_{i-1} ‖ x_{i-1} ‖ m`, truncated to `out.len()` bytes.
pub fn prf(
    p: &[u8],
    seed: &[u8],
    k: usize,
    msg: &[u8],
    prev: Option<(&[u8; H_LEN], &[u8])>,
    out: &mut [u8],
) {
    let k = k_bytes(k);
    let mac = match prev {
        Some((h, x)) => hmac_sha256(seed, &[LABEL_PRF, p, &k, &[1], h, x, msg]),
        None => hmac_sha256(seed, &[LABEL_PRF, p, &k, &[0], msg]),
    };
    let n = out.len().min(mac.len());
    out[..n].copy_from_slice(&mac[..n]);
}

/// SPLIT (App. F) in place: `X ∈ [0, 2^ℓ_π)` becomes `x ∈ D = [0, 2^(ℓ_π − 1))` and the
/// returned bit `b` (`b = 1, x = X − 2^(ℓ_π−1)` if `X ≥ 2^(ℓ_π−1)`).
pub fn split(big_x: &mut [u8]) -> bool {
    match big_x.first_mut() {
        Some(first) => {
            let b = *first & 0x80 != 0;
            *first &= 0x7f;
            b
        }
        None => false,
    }
}

/// SPLIT⁻¹ (App. F): `X = x + b·2^(ℓ_π − 1)`, written to `out`.
pub fn unsplit(b: bool, x: &[u8], out: &mut [u8]) {
    out.copy_from_slice(x);
    if let (true, Some(first)) = (b, out.first_mut()) {
        *first |= 0x80;
    }
}

/// True if the `k`-byte `x` lies in `D`, i.e. its top bit is clear.
pub fn in_d(x: &[u8]) -> bool {
    x.first().is_some_and(|b| b & 0x80 == 0)
}

/// `a ← a ⊕ b`.
pub fn xor_into(a: &mut [u8], b: &[u8]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x ^= y;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_is_a_bijection_onto_bit_times_d() {
        for top in [0x00u8, 0x7f, 0x80, 0xff] {
            let big = [top, 1, 2];
            let mut x = big;
            let b = split(&mut x);
            assert!(in_d(&x));
            assert_eq!(b, top >= 0x80);
            let mut back = [0u8; 3];
            unsplit(b, &x, &mut back);
            assert_eq!(back, big);
        }
    }

    #[test]
    fn g_lands_in_d_and_depends_on_every_input() {
        let mut a = [0u8; 256];
        let mut b = [0u8; 256];
        g(&[0x10, 0], &[1; 32], &mut a);
        g(&[0x10, 0], &[2; 32], &mut b);
        assert!(in_d(&a) && in_d(&b));
        assert_ne!(a, b);
    }

    #[test]
    fn h_separates_first_signer_from_empty_x() {
        let fp = [7u8; 32];
        let p = [0x10, 0];
        assert_ne!(
            h(&p, &fp, 256, b"m", b"r", None),
            h(&p, &fp, 256, b"m", b"r", Some(&[]))
        );
        assert_ne!(
            h(&p, &fp, 256, b"m", b"r", None),
            h(&p, &fp, 256, b"rm", b"", None)
        );
    }

    #[test]
    fn every_oracle_depends_on_the_parameter_set() {
        let (fp, prf_rsa2048, rand_r128) = ([7u8; 32], [0x10, 0], [0x12, 16]);
        assert_ne!(
            h(&prf_rsa2048, &fp, 256, b"m", &[1; 16], None),
            h(&rand_r128, &fp, 256, b"m", &[1; 16], None)
        );
        let (mut a, mut b) = ([0u8; 256], [0u8; 256]);
        g(&prf_rsa2048, &[1; 32], &mut a);
        g(&rand_r128, &[1; 32], &mut b);
        assert_ne!(a, b);
        let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
        prf(&prf_rsa2048, &[9; 32], 256, b"m", None, &mut a);
        prf(&rand_r128, &[9; 32], 256, b"m", None, &mut b);
        assert_ne!(a, b);
    }
}
