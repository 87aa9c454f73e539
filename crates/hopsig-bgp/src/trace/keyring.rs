//! The router keys of a signed trace: one key per AS on its paths, generated when the
//! AS is first met, and written out as a relying party would publish the public ones
//! (rpki-client's JSON, `bgpsec_keys`) beside each AS's secret key file.
//!
//! **A keys folder** (docs/spec/bgpsec-mrt.md, "Keys folder"):
//!
//! * [`KEYS_JSON`] — `{"bgpsec_keys":[{"asn":N,"ski":"40 HEX","pubkey":"BASE64"},…]}`,
//!   one entry per AS in ascending AS order: the SKI in upper-case hex as rpki-client
//!   prints it, the DER SubjectPublicKeyInfo in base64 (RFC 4648 §4, padded, one
//!   line).
//! * [`secret_key_name`] — `AS<asn>.key` per AS: the suite's secret key file
//!   ([`AlgorithmSuite::secret_key_file`]; for suite 1 an unencrypted PKCS #8 P-256
//!   key in PEM), written with mode 0600.
//!
//! [`router_keys_from_rpki_json`] reads the `bgpsec_keys` back into a
//! [`RouterKeys`] lookup for validation.

use std::collections::HashMap;

use zeroize::Zeroizing;

use crate::router_key::{ski_of_spki, RouterKey, RouterKeys, Ski};
use crate::sign::Signer;
use crate::suite::{AlgorithmSuite, KeyError};

/// The name of the public keys' JSON file in a keys folder.
pub const KEYS_JSON: &str = "bgpsec_keys.json";

/// The name of AS `asn`'s secret key file in a keys folder.
pub fn secret_key_name(asn: u32) -> String {
    format!("AS{asn}.key")
}

/// One router per AS, each with a key of one suite.
pub struct Keyring {
    suite: &'static dyn AlgorithmSuite,
    signers: HashMap<u32, Signer<'static>>,
}

impl std::fmt::Debug for Keyring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keyring")
            .field("suite", &self.suite.name())
            .field("ases", &self.signers.len())
            .finish_non_exhaustive()
    }
}

impl Keyring {
    /// An empty keyring of `suite`.
    pub fn new(suite: &'static dyn AlgorithmSuite) -> Keyring {
        Keyring {
            suite,
            signers: HashMap::new(),
        }
    }

    /// The suite.
    pub fn suite(&self) -> &'static dyn AlgorithmSuite {
        self.suite
    }

    /// The number of ASes with a key.
    pub fn len(&self) -> usize {
        self.signers.len()
    }

    /// Whether no AS has a key yet.
    pub fn is_empty(&self) -> bool {
        self.signers.is_empty()
    }

    /// AS `asn`'s router, if it has a key.
    pub fn signer(&self, asn: u32) -> Option<&Signer<'static>> {
        self.signers.get(&asn)
    }

    /// The ASes of `asns` without a key yet, each once, ascending.
    pub fn missing(&self, asns: impl IntoIterator<Item = u32>) -> Vec<u32> {
        let mut missing: Vec<u32> = asns
            .into_iter()
            .filter(|a| !self.signers.contains_key(a))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        missing
    }

    /// Generates a key for each AS of `asns` that has none, on `threads` threads
    /// (RSA key generation takes a tenth of a second or more); returns how many.
    ///
    /// # Errors
    /// The suite's key generation failing.
    pub fn generate(&mut self, asns: &[u32], threads: usize) -> Result<usize, KeyError> {
        let missing = self.missing(asns.iter().copied());
        let suite = self.suite;
        let made = super::parallel_map(&missing, threads, |&asn| {
            let key = suite.generate()?;
            Signer::new(asn)
                .with_key(suite, key)
                .map_err(|e| KeyError::Scheme(hopsig_schemes::Error::Key(e.to_string())))
        });
        for (asn, signer) in missing.iter().zip(made) {
            self.signers.insert(*asn, signer?);
        }
        Ok(missing.len())
    }

    /// Every AS's (AS, SKI, public key) triple, ascending by AS.
    pub fn public_keys(&self) -> Vec<RouterKey> {
        let mut ases: Vec<_> = self.signers.iter().collect();
        ases.sort_unstable_by_key(|(asn, _)| **asn);
        ases.into_iter()
            .filter_map(|(asn, s)| {
                let (_, key) = s.key(self.suite.id())?;
                Some(RouterKey::new(*asn, *key.ski(), key.spki()))
            })
            .collect()
    }

    /// The public keys as a validator's lookup.
    pub fn router_keys(&self) -> RouterKeys {
        self.public_keys().into_iter().collect()
    }

    /// The public keys as rpki-client's JSON ([`KEYS_JSON`]).
    pub fn rpki_json(&self) -> String {
        to_rpki_json(&self.public_keys())
    }

    /// Every AS's secret key file, ascending by AS.
    ///
    /// # Errors
    /// As [`AlgorithmSuite::secret_key_file`].
    pub fn secret_key_files(&self) -> Result<Vec<(u32, Zeroizing<String>)>, KeyError> {
        let mut ases: Vec<_> = self.signers.iter().collect();
        ases.sort_unstable_by_key(|(asn, _)| **asn);
        ases.into_iter()
            .filter_map(|(asn, s)| s.key(self.suite.id()).map(|(_, k)| (*asn, k)))
            .map(|(asn, key)| Ok((asn, self.suite.secret_key_file(key)?)))
            .collect()
    }
}

/// `keys` as rpki-client's JSON: an object whose `bgpsec_keys` lists them in order.
pub fn to_rpki_json(keys: &[RouterKey]) -> String {
    let entries: Vec<String> = keys
        .iter()
        .map(|k| {
            format!(
                "    {{ \"asn\": {}, \"ski\": \"{}\", \"pubkey\": \"{}\" }}",
                k.asn(),
                hex_upper(k.ski()),
                openssl::base64::encode_block(k.spki())
            )
        })
        .collect();
    format!(
        "{{\n  \"bgpsec_keys\": [\n{}\n  ]\n}}\n",
        entries.join(",\n")
    )
}

fn hex_upper(bytes: &[u8]) -> String {
    hopsig_primitives::codec::to_hex(bytes).to_ascii_uppercase()
}

/// Why a `bgpsec_keys` JSON document was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeysJsonError {
    /// Not a JSON object with a `bgpsec_keys` array (serde_json's message).
    #[error("not an rpki-client JSON document with a \"bgpsec_keys\" array: {0}")]
    Document(String),
    /// Entry `index` of `bgpsec_keys`: `field` is wrong.
    #[error("bgpsec_keys[{index}].{field}: {problem}")]
    Entry {
        /// Index in the array, from 0.
        index: usize,
        /// The member at fault.
        field: &'static str,
        /// What is wrong.
        problem: String,
    },
}

/// The `bgpsec_keys` of an rpki-client JSON document as a validator's lookup: each
/// entry's `asn` (0 to 2³²−1), `ski` (40 hex digits, either case) and `pubkey` (base64
/// DER SubjectPublicKeyInfo, whose SKI must be `ski`); other members are ignored.
///
/// # Errors
/// [`KeysJsonError`] naming the first bad entry and member.
pub fn router_keys_from_rpki_json(text: &[u8]) -> Result<RouterKeys, KeysJsonError> {
    let doc: serde_json::Value =
        serde_json::from_slice(text).map_err(|e| KeysJsonError::Document(e.to_string()))?;
    let entries = doc
        .get("bgpsec_keys")
        .and_then(serde_json::Value::as_array)
        .ok_or_else(|| KeysJsonError::Document("no \"bgpsec_keys\" array".into()))?;
    let mut keys = RouterKeys::new();
    for (index, e) in entries.iter().enumerate() {
        let bad = |field, problem: &str| KeysJsonError::Entry {
            index,
            field,
            problem: problem.to_string(),
        };
        let asn = e
            .get("asn")
            .and_then(serde_json::Value::as_u64)
            .and_then(|a| u32::try_from(a).ok())
            .ok_or_else(|| bad("asn", "not an AS number from 0 to 4294967295"))?;
        let ski: Ski = e
            .get("ski")
            .and_then(serde_json::Value::as_str)
            .and_then(|s| hex::decode(s).ok())
            .and_then(|v| v.try_into().ok())
            .ok_or_else(|| bad("ski", "not 40 hexadecimal digits"))?;
        let spki = e
            .get("pubkey")
            .and_then(serde_json::Value::as_str)
            .and_then(|s| openssl::base64::decode_block(s).ok())
            .ok_or_else(|| bad("pubkey", "not base64"))?;
        let computed = ski_of_spki(&spki).map_err(|e| bad("pubkey", &e.to_string()))?;
        if computed != ski {
            return Err(bad("ski", "is not the SKI of pubkey (RFC 8209 §3.1.1)"));
        }
        keys.insert(RouterKey::new(asn, ski, &spki));
    }
    Ok(keys)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::router_key::KeyLookup;
    use crate::suite::ECDSA_P256_SHA256;

    #[test]
    fn keys_are_made_once_per_as_and_read_back_from_json() {
        let mut ring = Keyring::new(&ECDSA_P256_SHA256);
        assert_eq!(ring.generate(&[64_497, 64_496, 64_497], 2).unwrap(), 2);
        assert_eq!(ring.generate(&[64_496, 64_498], 1).unwrap(), 1);
        assert_eq!(ring.len(), 3);
        assert_eq!(ring.missing([64_496, 64_499, 64_499]), [64_499]);
        let json = ring.rpki_json();
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        let asns: Vec<u64> = doc["bgpsec_keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["asn"].as_u64().unwrap())
            .collect();
        assert_eq!(asns, [64_496, 64_497, 64_498]);
        let keys = router_keys_from_rpki_json(json.as_bytes()).unwrap();
        assert_eq!(keys.len(), 3);
        for k in ring.public_keys() {
            let (_, signing) = ring.signer(k.asn()).unwrap().key(1).unwrap();
            assert_eq!(k.ski(), signing.ski());
            assert_eq!(keys.router_keys(k.asn(), k.ski()).len(), 1);
            assert!(keys.router_keys(k.asn() + 10, k.ski()).is_empty());
        }
        // The secret files read back as the same keys.
        for (asn, pem) in ring.secret_key_files().unwrap() {
            let der = openssl::pkey::PKey::private_key_from_pem(pem.as_bytes())
                .unwrap()
                .private_key_to_pkcs8()
                .unwrap();
            let key = ECDSA_P256_SHA256.signing_key_from_pkcs8(&der).unwrap();
            let (_, mine) = ring.signer(asn).unwrap().key(1).unwrap();
            assert_eq!(key.ski(), mine.ski());
            assert_eq!(secret_key_name(asn), format!("AS{asn}.key"));
        }
    }

    #[test]
    fn bad_json_names_the_entry_and_member() {
        let mut ring = Keyring::new(&ECDSA_P256_SHA256);
        ring.generate(&[64_496], 1).unwrap();
        let good = ring.rpki_json();
        let doc: serde_json::Value = serde_json::from_str(&good).unwrap();
        let entry = doc["bgpsec_keys"][0].clone();
        let with = |field: &str, value: serde_json::Value| {
            let mut e = entry.clone();
            e[field] = value;
            serde_json::json!({ "bgpsec_keys": [entry.clone(), e] }).to_string()
        };
        let other_ski = "00".repeat(20);
        for (field, value, named) in [
            ("asn", serde_json::json!(-1), "bgpsec_keys[1].asn"),
            (
                "asn",
                serde_json::json!(4_294_967_296u64),
                "bgpsec_keys[1].asn",
            ),
            ("ski", serde_json::json!("AB"), "bgpsec_keys[1].ski"),
            ("ski", serde_json::json!(other_ski), "bgpsec_keys[1].ski"),
            ("pubkey", serde_json::json!("!!"), "bgpsec_keys[1].pubkey"),
            ("pubkey", serde_json::json!("AAAA"), "bgpsec_keys[1].pubkey"),
        ] {
            let e = router_keys_from_rpki_json(with(field, value).as_bytes()).unwrap_err();
            assert!(e.to_string().starts_with(named), "{e}");
        }
        for doc in ["", "[]", "{}", "{\"bgpsec_keys\": 3}"] {
            assert!(matches!(
                router_keys_from_rpki_json(doc.as_bytes()),
                Err(KeysJsonError::Document(_))
            ));
        }
        // Upper or lower case SKI; members rpki-client adds are ignored.
        let lower = good.to_ascii_lowercase();
        assert!(
            router_keys_from_rpki_json(lower.as_bytes()).is_err(),
            "base64 is case-sensitive"
        );
        let mut e = entry.clone();
        e["ski"] = serde_json::json!(e["ski"].as_str().unwrap().to_ascii_lowercase());
        e["ta"] = serde_json::json!("ripe");
        let doc = serde_json::json!({ "metadata": {}, "bgpsec_keys": [e] }).to_string();
        assert_eq!(router_keys_from_rpki_json(doc.as_bytes()).unwrap().len(), 1);
    }
}
