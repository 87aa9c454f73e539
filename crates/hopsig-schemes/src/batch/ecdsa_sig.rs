//! A DER `ECDSA-Sig-Value` (RFC 3279 §2.2.3: `SEQUENCE { r INTEGER, s INTEGER }`, the
//! signature encoding of BGPsec suite 1, RFC 8608 §4) read into r and s as 32 big-endian
//! octets each, for the batch verifier, with exactly the reference's semantics.
//!
//! The reference ([`EcdsaP256::verify`](crate::concat::EcdsaP256)) reads a signature
//! with OpenSSL's `d2i_ECDSA_SIG`, which accepts more than canonical DER (trailing
//! octets, long-form lengths) and then refuses r or s outside [1, n − 1] when it
//! verifies. Here a strict reader takes the common case — canonical DER, what every
//! signer emits — without a call into OpenSSL; anything it does not take is handed to
//! OpenSSL's reader, so whatever OpenSSL accepts is read the same way and whatever it
//! refuses is refused. The strict reader accepts only encodings whose meaning no DER
//! or BER reader can dispute, so the two agree wherever both answer (tested against
//! OpenSSL on random and mutated encodings).

use openssl::bn::BigNumRef;
use openssl::ecdsa::EcdsaSig;

/// r and s, 32 big-endian octets each.
pub(crate) type Scalars = ([u8; 32], [u8; 32]);

/// The (r, s) the reference would verify `der` with, or `None` where the reference
/// answers "invalid" without verifying: OpenSSL does not read `der`, or r or s is
/// negative or ≥ 2^256 (so not in [1, n − 1], SEC 1 v2 §4.1.4 step 1).
pub(crate) fn read_vartime(der: &[u8]) -> Option<Scalars> {
    match canonical(der) {
        Some(scalars) => Some(scalars),
        None => through_openssl(der),
    }
}

/// `der` if it is exactly one canonical DER `ECDSA-Sig-Value` (X.690 §10: short-form
/// lengths, minimal non-negative INTEGERs, nothing after it) whose r and s are below
/// 2^256; `None` for anything else, which may still be a signature OpenSSL reads.
pub(crate) fn canonical(der: &[u8]) -> Option<Scalars> {
    let [0x30, len, body @ ..] = der else {
        return None;
    };
    if *len >= 0x80 || usize::from(*len) != body.len() {
        return None;
    }
    let (r, rest) = integer(body)?;
    let (s, rest) = integer(rest)?;
    rest.is_empty().then_some((r, s))
}

/// A minimal non-negative DER INTEGER below 2^256 at the start of `der`, and what
/// follows it.
fn integer(der: &[u8]) -> Option<([u8; 32], &[u8])> {
    let [0x02, len, rest @ ..] = der else {
        return None;
    };
    let len = usize::from(*len);
    // 33 content octets: a 0x00 sign octet before 32 (short form: len < 0x80).
    if len == 0 || len > 33 || rest.len() < len {
        return None;
    }
    let (content, rest) = rest.split_at(len);
    let magnitude = match content {
        // Negative (two's complement): never a signature value; OpenSSL decides.
        [first, ..] if first & 0x80 != 0 => return None,
        // A 0x00 octet is minimal only before an octet with its top bit set.
        [0, next, ..] if next & 0x80 == 0 => return None,
        [0, tail @ ..] if !tail.is_empty() => tail,
        _ => content,
    };
    if magnitude.len() > 32 {
        return None;
    }
    let mut out = [0; 32];
    out[32 - magnitude.len()..].copy_from_slice(magnitude);
    Some((out, rest))
}

/// OpenSSL's reading of `der`, as the reference makes it.
fn through_openssl(der: &[u8]) -> Option<Scalars> {
    let sig = EcdsaSig::from_der(der).ok()?;
    Some((octets(sig.r())?, octets(sig.s())?))
}

/// A non-negative `v` below 2^256 as 32 big-endian octets.
fn octets(v: &BigNumRef) -> Option<[u8; 32]> {
    if v.is_negative() {
        return None;
    }
    v.to_vec_padded(32).ok()?.try_into().ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use openssl::bn::BigNum;
    use proptest::prelude::*;

    use super::*;

    /// OpenSSL's reading of `der`: `None` if it refuses it, else r and s as signed
    /// big-endian magnitudes.
    fn openssl_reads(der: &[u8]) -> Option<((bool, Vec<u8>), (bool, Vec<u8>))> {
        let sig = EcdsaSig::from_der(der).ok()?;
        let part = |v: &BigNumRef| (v.is_negative(), v.to_vec());
        Some((part(sig.r()), part(sig.s())))
    }

    /// Whether the strict reader and OpenSSL agree on `der`: where the strict reader
    /// answers, OpenSSL reads the same non-negative r and s and OpenSSL's canonical
    /// re-encoding is `der`; and the full reader answers exactly when OpenSSL reads a
    /// pair of values below 2^256.
    fn agree(der: &[u8]) -> Result<(), TestCaseError> {
        let theirs = openssl_reads(der);
        if let Some((r, s)) = canonical(der) {
            let strip = |v: &[u8]| v.iter().skip_while(|&&b| b == 0).copied().collect();
            prop_assert_eq!(
                theirs.clone(),
                Some(((false, strip(&r)), (false, strip(&s)))),
                "strict reader differs on {}",
                hex::encode(der)
            );
            let reencoded = EcdsaSig::from_der(der).unwrap().to_der().unwrap();
            prop_assert_eq!(reencoded, der.to_vec(), "not canonical: {}", hex::encode(der));
        }
        let readable = theirs.is_some_and(|((rn, r), (sn, s))| {
            !rn && !sn && r.len() <= 32 && s.len() <= 32
        });
        prop_assert_eq!(read_vartime(der).is_some(), readable, "{}", hex::encode(der));
        if let (Some((r, s)), Ok(sig)) = (read_vartime(der), EcdsaSig::from_der(der)) {
            prop_assert_eq!(BigNum::from_slice(&r).unwrap(), sig.r().to_owned().unwrap());
            prop_assert_eq!(BigNum::from_slice(&s).unwrap(), sig.s().to_owned().unwrap());
        }
        Ok(())
    }

    /// OpenSSL's DER of (r, s) from big-endian magnitudes.
    fn der_of(r: &[u8], s: &[u8]) -> Vec<u8> {
        EcdsaSig::from_private_components(
            BigNum::from_slice(r).unwrap(),
            BigNum::from_slice(s).unwrap(),
        )
        .unwrap()
        .to_der()
        .unwrap()
    }

    #[test]
    fn reads_what_openssl_writes() {
        let n = hex::decode("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
            .unwrap();
        let all_ones = [0xff; 32];
        let cases: [(&[u8], &[u8]); 7] = [
            (&[1], &[1]),
            (&[0x7f], &[0x80]),
            (&n, &n),
            (&all_ones, &[0x01, 0x00]),
            (&[0x00, 0x00, 0x12], &[0x80, 0, 0, 0]),
            (&[], &[5]),
            (&[0x40; 32], &[0x3f; 31]),
        ];
        for (r, s) in cases {
            let der = der_of(r, s);
            assert!(canonical(&der).is_some(), "{}", hex::encode(&der));
            agree(&der).unwrap();
        }
    }

    #[test]
    fn hands_everything_else_to_openssl() {
        let valid = der_of(&[0x80; 32], &[0x11; 32]);
        // Each is refused by the strict reader; OpenSSL decides.
        let mut trailing = valid.clone();
        trailing.push(0);
        let mut long_form = vec![0x30, 0x81, valid[1]];
        long_form.extend_from_slice(&valid[2..]);
        let padded_r = [0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x01];
        let negative_r = [0x30, 0x06, 0x02, 0x01, 0xff, 0x02, 0x01, 0x01];
        let empty_r = [0x30, 0x05, 0x02, 0x00, 0x02, 0x01, 0x01];
        let mut huge_r = vec![0x30, 0x26, 0x02, 0x21, 0x01];
        huge_r.extend_from_slice(&[0; 32]);
        huge_r.extend_from_slice(&[0x02, 0x01, 0x01]);
        let wrong_tag = [0x31, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01];
        let short_body = [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01];
        for der in [
            &trailing[..],
            &long_form,
            &padded_r,
            &negative_r,
            &empty_r,
            &huge_r,
            &wrong_tag,
            &short_body,
            &[],
            &[0x30],
            &[0x30, 0x00],
        ] {
            assert!(canonical(der).is_none(), "{}", hex::encode(der));
            agree(der).unwrap();
        }
        // A 33-octet r (≥ 2^256) is read by OpenSSL and cannot verify.
        assert!(read_vartime(&huge_r).is_none());
        // A negative r is read by OpenSSL and cannot verify.
        assert!(read_vartime(&negative_r).is_none());
    }

    /// A DER-like encoding: canonical from random values, then mutated.
    fn mutated() -> impl Strategy<Value = Vec<u8>> {
        (
            proptest::collection::vec(any::<u8>(), 0..34),
            proptest::collection::vec(any::<u8>(), 0..34),
            proptest::collection::vec((any::<usize>(), any::<u8>(), 0..4u8), 0..4),
        )
            .prop_map(|(r, s, edits)| {
                let mut der = der_of(&r, &s);
                for (at, byte, how) in edits {
                    let at = at % (der.len() + 1);
                    match how {
                        0 if at < der.len() => der[at] = byte,
                        1 => der.insert(at, byte),
                        2 if at < der.len() => {
                            der.remove(at);
                        }
                        _ => der.truncate(at),
                    }
                }
                der
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn agrees_with_openssl_on_mutated_der(der in mutated()) {
            agree(&der)?;
        }

        #[test]
        fn agrees_with_openssl_on_random_octets(der in proptest::collection::vec(any::<u8>(), 0..80)) {
            agree(&der)?;
        }

        #[test]
        fn agrees_with_openssl_on_random_sequences(
            body in proptest::collection::vec(any::<u8>(), 0..76),
        ) {
            // Random bodies under a correct SEQUENCE header reach the INTEGER readers.
            let mut der = vec![0x30, body.len() as u8];
            der.extend_from_slice(&body);
            agree(&der)?;
        }
    }
}
