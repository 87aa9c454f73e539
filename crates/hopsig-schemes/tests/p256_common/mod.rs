//! Shared by the P-256 batch verification tests (issue 28) and the `p256_batch` fuzz
//! target (`../../fuzz`, which includes this file by path): P-256 arithmetic through
//! OpenSSL's big numbers and points, keys from chosen scalars, signatures with chosen
//! nonces, and the check every test ends with — each backend's verdicts against the
//! reference's (OpenSSL's single verification).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::OnceLock;

use hopsig_schemes::batch::{self, BatchVerify, Kind, MultiBuffer, Signatures, Signed};
use hopsig_schemes::concat::{BaseSignature, EcdsaP256, P256PublicKey};
use hopsig_schemes::primitives::hash::sha256;
use openssl::bn::{BigNum, BigNumContext, BigNumRef};
use openssl::ec::{EcGroup, EcKey, EcPoint, EcPointRef, PointConversionForm};
use openssl::nid::Nid;
use openssl::pkey::{PKey, Private};

/// The curve.
pub fn group() -> &'static EcGroup {
    static GROUP: OnceLock<EcGroup> = OnceLock::new();
    GROUP.get_or_init(|| EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap())
}

/// A big number from hex.
pub fn bn(hex: &str) -> BigNum {
    BigNum::from_hex_str(hex).unwrap()
}

/// n, the group order.
pub fn n() -> BigNum {
    bn("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
}

/// p, the field prime.
pub fn p() -> BigNum {
    bn("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
}

/// `v` mod n, non-negative.
pub fn mod_n(v: &BigNumRef) -> BigNum {
    let mut out = BigNum::new().unwrap();
    out.nnmod(v, &n(), &mut BigNumContext::new().unwrap())
        .unwrap();
    out
}

/// a·b mod n.
pub fn mul_n(a: &BigNumRef, b: &BigNumRef) -> BigNum {
    let mut out = BigNum::new().unwrap();
    out.mod_mul(a, b, &n(), &mut BigNumContext::new().unwrap())
        .unwrap();
    out
}

/// a⁻¹ mod n.
pub fn inv_n(a: &BigNumRef) -> BigNum {
    let mut out = BigNum::new().unwrap();
    out.mod_inverse(a, &n(), &mut BigNumContext::new().unwrap())
        .unwrap();
    out
}

/// −a mod n.
pub fn neg_n(a: &BigNumRef) -> BigNum {
    mod_n(&(&n() - a))
}

/// e, the SHA-256 digest of `message` as an integer (all 256 bits: FIPS 186-5 §6.4.2).
pub fn digest_int(message: &[u8]) -> BigNum {
    BigNum::from_slice(&sha256(&[message])).unwrap()
}

/// k·G.
pub fn mul_g(k: &BigNumRef) -> EcPoint {
    let mut point = EcPoint::new(group()).unwrap();
    point
        .mul_generator2(group(), k, &mut BigNumContext::new().unwrap())
        .unwrap();
    point
}

/// k·P.
pub fn mul(point: &EcPointRef, k: &BigNumRef) -> EcPoint {
    let mut out = EcPoint::new(group()).unwrap();
    out.mul2(group(), point, k, &mut BigNumContext::new().unwrap())
        .unwrap();
    out
}

/// P + Q.
pub fn add(a: &EcPointRef, b: &EcPointRef) -> EcPoint {
    let mut out = EcPoint::new(group()).unwrap();
    out.add(group(), a, b, &mut BigNumContext::new().unwrap())
        .unwrap();
    out
}

/// The affine x of a point other than O.
pub fn x_of(point: &EcPointRef) -> BigNum {
    let (mut x, mut y) = (BigNum::new().unwrap(), BigNum::new().unwrap());
    point
        .affine_coordinates(group(), &mut x, &mut y, &mut BigNumContext::new().unwrap())
        .unwrap();
    x
}

/// The uncompressed SEC 1 octets of a point other than O.
pub fn sec1(point: &EcPointRef) -> Vec<u8> {
    point
        .to_bytes(
            group(),
            PointConversionForm::UNCOMPRESSED,
            &mut BigNumContext::new().unwrap(),
        )
        .unwrap()
}

/// The SubjectPublicKeyInfo DER of an EC point (RFC 5480 §2), as OpenSSL writes it.
pub fn spki(point: &EcPointRef) -> Vec<u8> {
    PKey::from_ec_key(EcKey::from_public_key(group(), point).unwrap())
        .unwrap()
        .public_key_to_der()
        .unwrap()
}

/// The public key of a point other than O, through the scheme's SPKI reader (the way
/// keys enter hopsig).
pub fn public_key(point: &EcPointRef) -> P256PublicKey {
    EcdsaP256::public_from_der(&spki(point)).unwrap()
}

/// The key pair with secret scalar d ∈ [1, n − 1].
pub fn key_pair(d: &BigNumRef) -> (EcKey<Private>, P256PublicKey) {
    let q = mul_g(d);
    let secret = EcKey::from_private_components(group(), d, &q).unwrap();
    (secret, public_key(&q))
}

/// DER of (r, s) (any integers, negative ones and zero included: X.690 §8.3,
/// minimal two's complement), written here so out-of-range values can be encoded.
pub fn der(r: &BigNumRef, s: &BigNumRef) -> Vec<u8> {
    let mut body = der_integer(r);
    body.extend_from_slice(&der_integer(s));
    let mut out = vec![0x30];
    der_length(body.len(), &mut out);
    out.extend_from_slice(&body);
    out
}

/// A DER INTEGER of `v`.
pub fn der_integer(v: &BigNumRef) -> Vec<u8> {
    let magnitude = v.to_vec();
    let content = if !v.is_negative() {
        // Zero is one 0x00 octet; a set top bit needs a 0x00 sign octet.
        match magnitude.first() {
            None => vec![0],
            Some(b) if b & 0x80 != 0 => [&[0][..], &magnitude].concat(),
            Some(_) => magnitude,
        }
    } else {
        // 2^(8L) − m in L octets, L the fewest whose top bit then reads negative.
        let mut len = magnitude.len();
        loop {
            let mut modulus = BigNum::new().unwrap();
            modulus.set_bit((8 * len) as i32).unwrap();
            let mut m = v.to_owned().unwrap();
            m.set_negative(false);
            let t = &modulus - &m;
            let octets = t.to_vec_padded(len as i32).unwrap();
            let minimal = octets[0] & 0x80 != 0
                && !(octets.len() > 1 && octets[0] == 0xff && octets[1] & 0x80 != 0);
            if minimal {
                break octets;
            }
            len += 1;
        }
    };
    let mut out = vec![0x02];
    der_length(content.len(), &mut out);
    out.extend_from_slice(&content);
    out
}

/// A DER length (short form below 128, else long form).
fn der_length(len: usize, out: &mut Vec<u8>) {
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let octets: Vec<u8> = len
            .to_be_bytes()
            .into_iter()
            .skip_while(|&b| b == 0)
            .collect();
        out.push(0x80 | octets.len() as u8);
        out.extend_from_slice(&octets);
    }
}

/// The ECDSA signature (r, s) with nonce k of the integer digest e under secret d
/// (SEC 1 v2 §4.1.3 steps 1, 5–6), or `None` where r or s is 0.
pub fn sign_with_nonce(d: &BigNumRef, e: &BigNumRef, k: &BigNumRef) -> Option<(BigNum, BigNum)> {
    let r = mod_n(&x_of(&mul_g(k)));
    let s = mul_n(&inv_n(k), &mod_n(&(&mod_n(e) + &mul_n(&r, d))));
    (r.num_bits() > 0 && s.num_bits() > 0).then_some((r, s))
}

/// A deterministic nonce for tests and the fuzz target (not RFC 6979: nothing secret
/// is signed here).
pub fn test_nonce(d: &BigNumRef, e: &BigNumRef) -> BigNum {
    let k = BigNum::from_slice(&sha256(&[b"nonce", &d.to_vec(), &e.to_vec()])).unwrap();
    let k = mod_n(&k);
    if k.num_bits() == 0 {
        BigNum::from_u32(1).unwrap()
    } else {
        k
    }
}

/// The reference's verdict (`EcdsaP256::verify`: OpenSSL's `ECDSA_verify` rule, canonical
/// DER read and re-encoded by OpenSSL, then its verification of the message's SHA-256).
pub fn reference(item: &Signed<'_, EcdsaP256>) -> bool {
    <Signatures<EcdsaP256> as Kind>::verify_one(item)
}

/// The backends the tests hold to the reference: every listed one, and the
/// multi-buffer verifier with and without its OpenSSL cut-off, on the IFMA code (the
/// portable code where the processor lacks it) and on the portable code.
pub fn backends() -> Vec<(
    &'static str,
    &'static dyn BatchVerify<Signatures<EcdsaP256>>,
)> {
    static UNCUT_IFMA: MultiBuffer = MultiBuffer::AVX512IFMA.with_min_batch(0);
    static UNCUT_PORTABLE: MultiBuffer = MultiBuffer::PORTABLE.with_min_batch(0);
    let mut all: Vec<(
        &'static str,
        &'static dyn BatchVerify<Signatures<EcdsaP256>>,
    )> = Signatures::<EcdsaP256>::backends()
        .iter()
        .map(|b| (b.name(), *b))
        .collect();
    all.push(("avx512ifma, no cut-off", &UNCUT_IFMA));
    all.push(("portable, no cut-off", &UNCUT_PORTABLE));
    all
}

/// Each backend's verdicts on `items` are the reference's; returns those.
pub fn check_all(items: &[Signed<'_, EcdsaP256>]) -> Vec<bool> {
    let expected: Vec<bool> = items.iter().map(reference).collect();
    for (name, backend) in backends() {
        let verdicts = backend.verify_batch(items);
        assert_eq!(verdicts.len(), items.len(), "{name}: verdict count");
        for (i, (v, e)) in verdicts.iter().zip(&expected).enumerate() {
            assert_eq!(
                v,
                e,
                "{name}: item {i} of {} is {v}, OpenSSL says {e}: key {:?}, message {}, signature {}",
                items.len(),
                items[i].key,
                hex_of(items[i].message),
                hex_of(items[i].signature)
            );
        }
    }
    expected
}

/// Lower-case hex.
pub fn hex_of(octets: &[u8]) -> String {
    octets.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether this run must use the IFMA code: CI on a processor that has it, not
/// disabled by `HOPSIG_CPU_DISABLE`. Checked by the tests that say which code they ran.
pub fn ifma_required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
        && hopsig_cpu::detected(hopsig_cpu::Feature::Avx512Ifma)
        && std::env::var("HOPSIG_CPU_DISABLE").map_or(true, |v| v.trim().is_empty())
}

/// The default backend's name, checked against [`ifma_required`].
pub fn default_backend_checked() -> &'static str {
    let name = batch::default_backend::<Signatures<EcdsaP256>>().name();
    if ifma_required() {
        assert_eq!(
            name, "avx512ifma",
            "CI on a processor with AVX-512 IFMA must verify with it"
        );
    }
    name
}

/// Four fixed keys: secrets 1 (Q = G), 2, n − 1 (Q = −G) and a large one.
pub fn fixed_keys() -> &'static [(EcKey<Private>, P256PublicKey, BigNum); 4] {
    static KEYS: OnceLock<[(EcKey<Private>, P256PublicKey, BigNum); 4]> = OnceLock::new();
    KEYS.get_or_init(|| {
        let make = |d: BigNum| {
            let (sk, pk) = key_pair(&d);
            (sk, pk, d)
        };
        [
            make(BigNum::from_u32(1).unwrap()),
            make(BigNum::from_u32(2).unwrap()),
            make(&n() - &BigNum::from_u32(1).unwrap()),
            make(bn(
                "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721",
            )),
        ]
    })
}

/// The first `n` octets of `rest` (fewer at its end), taken off it.
fn take(n: usize, rest: &mut &[u8]) -> Vec<u8> {
    let n = n.min(rest.len());
    let (head, tail) = rest.split_at(n);
    *rest = tail;
    head.to_vec()
}

/// The `p256_batch` fuzz target's input decoding and check (also run on random input
/// by the stable proptest in `tests/p256_batch.rs`): `data` is read as records
///
/// ```text
/// key (1) | message length (1, mod 48) | message | mode (1) | rest of the record
/// ```
///
/// mode bit 0 clear: the signature is a length (1) and that many octets, as given;
/// mode bit 0 set: the fixed key's signature of the message with the test nonce, DER,
/// then XORed with a mask (length (1, mod 8), position (1), mask octets) — a valid
/// signature when the mask is empty, mutated otherwise. Every item of the batch is
/// checked against the reference by every backend. Never panics on any input.
pub fn fuzz_check(data: &[u8]) {
    let keys = fixed_keys();
    let mut owned: Vec<(usize, Vec<u8>, Vec<u8>)> = Vec::new();
    let mut rest = data;
    while !rest.is_empty() && owned.len() < 64 {
        let head = take(2, &mut rest);
        let key = usize::from(head[0]) % keys.len();
        let len = usize::from(head.get(1).copied().unwrap_or(0)) % 48;
        let message = take(len, &mut rest);
        let mode = take(1, &mut rest).first().copied().unwrap_or(0);
        let signature = if mode & 1 == 0 {
            let len = take(1, &mut rest).first().copied().unwrap_or(0);
            take(usize::from(len), &mut rest)
        } else {
            let (_, _, d) = &keys[key];
            let e = digest_int(&message);
            let mut sig = match sign_with_nonce(d, &e, &test_nonce(d, &e)) {
                Some((r, s)) => der(&r, &s),
                None => Vec::new(),
            };
            let spec = take(2, &mut rest);
            let mask_len = usize::from(spec.first().copied().unwrap_or(0)) % 8;
            let at = usize::from(spec.get(1).copied().unwrap_or(0));
            let mask = take(mask_len, &mut rest);
            let len = sig.len().max(1);
            for (i, m) in mask.iter().enumerate() {
                if let Some(b) = sig.get_mut((at + i) % len) {
                    *b ^= m;
                }
            }
            sig
        };
        owned.push((key, message, signature));
    }
    let items: Vec<Signed<'_, EcdsaP256>> = owned
        .iter()
        .map(|(k, m, s)| Signed {
            key: &keys[*k].1,
            message: m,
            signature: s,
        })
        .collect();
    check_all(&items);
}
