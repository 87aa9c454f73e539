//! Hashing: SHA-256 over several parts, MGF1-SHA-256, HMAC-SHA-256.
//!
//! Schemes build their domain-separated hash inputs as lists of byte slices; these
//! helpers feed the slices to the hash in order without copying them together.
//! SHA-256 comes from the `sha2` crate, which uses the SHA extensions (SHA-NI) when the
//! processor has them.

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// Output length of SHA-256 in bytes.
pub const SHA256_LEN: usize = 32;

/// SHA-256 of the concatenation of `parts`.
pub fn sha256(parts: &[&[u8]]) -> [u8; SHA256_LEN] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// MGF1 with SHA-256 (PKCS #1 v2.2, RFC 8017 §B.2.1): fills `out` with
/// `SHA-256(seed || C(0)) || SHA-256(seed || C(1)) || ...`, where `seed` is the
/// concatenation of `seed_parts` and `C(i)` is the 4-byte big-endian counter.
///
/// `out` may be at most `2^32` hash blocks long (RFC 8017's limit); hopsig's outputs are
/// a few hundred bytes.
pub fn mgf1_sha256(seed_parts: &[&[u8]], out: &mut [u8]) {
    let mut prefix = Sha256::new();
    for p in seed_parts {
        prefix.update(p);
    }
    for (counter, chunk) in (0u32..).zip(out.chunks_mut(SHA256_LEN)) {
        let mut h = prefix.clone();
        h.update(counter.to_be_bytes());
        let block: [u8; SHA256_LEN] = h.finalize().into();
        chunk.copy_from_slice(&block[..chunk.len()]);
    }
}

/// HMAC-SHA-256 (RFC 2104) keyed with `key`, over the concatenation of `parts`.
pub fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> [u8; SHA256_LEN] {
    // HMAC accepts keys of any length, so construction cannot fail; the fallback keeps
    // this function total without a panic path.
    let Ok(mut mac) = <Hmac<Sha256> as Mac>::new_from_slice(key) else {
        return [0u8; SHA256_LEN];
    };
    for p in parts {
        mac.update(p);
    }
    mac.finalize().into_bytes().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or(0))
            .collect()
    }

    #[test]
    fn hmac_matches_rfc4231_case_1() {
        let mac = hmac_sha256(&[0x0b; 20], &[b"Hi ", b"There"]);
        assert_eq!(
            mac.to_vec(),
            unhex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        );
    }

    #[test]
    fn mgf1_matches_an_independent_implementation() {
        // Expected bytes from Python's hashlib, written straight from RFC 8017 §B.2.1:
        // mgf1(b"hopsig mgf1 test", 80).
        let mut out = [0u8; 80];
        mgf1_sha256(&[b"hopsig ", b"mgf1 test"], &mut out);
        assert_eq!(
            out.to_vec(),
            unhex(
                "fa0705add5b8c8dfa8b4ebc24ef72df4867f957fc0e30776537db34eb28a8cb4\
                 8c6f54698d2a0209339636deeb7ee69ac49c03aa72e8b12d74788bb6afd95ba6\
                 5f5161779cef349b1520570143bf8a99"
            )
        );
    }

    #[test]
    fn sha256_of_parts_equals_sha256_of_concatenation() {
        assert_eq!(sha256(&[b"ab", b"", b"c"]), sha256(&[b"abc"]));
        assert_eq!(
            sha256(&[b"abc"]).to_vec(),
            unhex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
    }
}
