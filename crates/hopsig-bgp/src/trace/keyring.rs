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
//! [`crate::router_key::from_rpki_json`] reads the `bgpsec_keys` back into a
//! [`RouterKeys`] lookup for validation.

use std::collections::HashMap;

use hopsig_primitives::par::Ordered;
use zeroize::Zeroizing;

use crate::router_key::{to_rpki_json, RouterKey, RouterKeys};
use crate::sign::Signer;
use crate::suite::{AlgorithmSuite, KeyError, SigningKey};

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
    /// Whether [`crate::trace::sign_mrt`] may generate keys for ASes it meets
    /// without one ([`Keyring::fixed`]).
    generates: bool,
}

impl std::fmt::Debug for Keyring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keyring")
            .field("suite", &self.suite.name())
            .field("ases", &self.signers.len())
            .field("generates", &self.generates)
            .finish_non_exhaustive()
    }
}

impl Keyring {
    /// An empty keyring of `suite`.
    pub fn new(suite: &'static dyn AlgorithmSuite) -> Keyring {
        Keyring {
            suite,
            signers: HashMap::new(),
            generates: true,
        }
    }

    /// This keyring, with its keys only: signing a route through an AS without a key
    /// fails ([`crate::trace::sign::SignMrtError::NoKey`]) instead of generating one.
    /// Workers that sign shards of one archive with the keys of one folder use it, so
    /// that no worker signs with a key the folder does not hold.
    pub fn fixed(mut self) -> Keyring {
        self.generates = false;
        self
    }

    /// Whether signing generates keys for ASes without one (not after
    /// [`Keyring::fixed`]).
    pub fn generates(&self) -> bool {
        self.generates
    }

    /// Gives AS `asn` the key `key` (of this keyring's suite), replacing any it had.
    ///
    /// # Errors
    /// [`KeyError::Scheme`] if `key` is of another suite.
    pub fn insert(&mut self, asn: u32, key: SigningKey) -> Result<(), KeyError> {
        let signer = Signer::new(asn)
            .with_key(self.suite, key)
            .map_err(|e| KeyError::Scheme(hopsig_schemes::Error::Key(e.to_string())))?;
        self.signers.insert(asn, signer);
        Ok(())
    }

    /// The ASes with a key, ascending.
    pub fn ases(&self) -> Vec<u32> {
        let mut ases: Vec<u32> = self.signers.keys().copied().collect();
        ases.sort_unstable();
        ases
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
        let made = Ordered::new(threads).map(&missing, |&asn| {
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
        let keys = crate::router_key::from_rpki_json(json.as_bytes(), 0)
            .unwrap()
            .keys;
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
}
