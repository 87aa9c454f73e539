//! Router keys as a BGPsec validator needs them: the valid (AS Number, Public Key,
//! Subject Key Identifier) triples of the RPKI's router certificates (RFC 8205 §5.1,
//! RFC 8209), and the lookup of §5.2 step 2.
//!
//! A [`RouterKey`] is parsed once, when it is loaded, by every algorithm suite that can
//! use it ([`crate::suite::AlgorithmSuite::verifying_key_from_spki`]), so validation
//! never parses a key. Loaders (rpki-client JSON, PEM directories) build
//! [`RouterKey`]s and put them in a [`RouterKeys`], or implement [`KeyLookup`] over
//! their own store.

pub mod certificate;
mod der;
pub mod folder;
pub mod rpki_json;

use std::collections::HashMap;

use hopsig_primitives::codec::{DecodeError, Reader};

use crate::packet::SKI_LEN;
use crate::suite::{AlgorithmSuite, KeyError, VerifyingKey, SUITES};
use der::der;

pub use certificate::{CertificateError, RouterCertificate};
pub use folder::{from_dir, FolderError, LoadReport};
pub use rpki_json::{from_rpki_json, to_rpki_json, KeysJsonError};

/// Now, in Unix seconds: the time router certificates and RPKI entries are checked
/// against (their validity, `expires`) when the caller gives none.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// Largest rpki-client JSON file read: 256 MiB (its whole output is under 100).
pub const MAX_KEYS_JSON: u64 = 256 << 20;

/// Why router keys were not loaded from a file or folder; every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A keys folder with a file that cannot be used.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// The rpki-client JSON file cannot be read.
    #[error(transparent)]
    Read(#[from] hopsig_primitives::input::ReadError),
    /// The rpki-client JSON file is not what rpki-client writes.
    #[error("{}: {source}", path.display())]
    Json {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        source: KeysJsonError,
    },
}

/// The router keys of `path` valid at `unix` seconds (default now): rpki-client's
/// JSON ([`from_rpki_json`], at most [`MAX_KEYS_JSON`] bytes) if it is a file, a keys
/// folder ([`from_dir`]) if it is a folder.
///
/// # Errors
/// [`LoadError`] naming the file.
pub fn load(path: &std::path::Path, unix: Option<i64>) -> Result<LoadReport, LoadError> {
    let unix = unix.unwrap_or_else(unix_now);
    if path.is_dir() {
        return Ok(from_dir(path, unix)?);
    }
    let text =
        hopsig_primitives::input::read_limited(path, MAX_KEYS_JSON, "router keys JSON file")?;
    from_rpki_json(&text, unix).map_err(|source| LoadError::Json {
        path: path.to_path_buf(),
        source,
    })
}

impl LoadReport {
    /// One line on what `path` gave: the triples, the files, and what was left out.
    pub fn summary(&self, path: &std::path::Path) -> String {
        format!(
            "keys: {}: {} (AS, SKI, key) triples from {} files ({} certificates or JSON entries, \
             {} public keys); left out: {} expired, {} not yet valid",
            path.display(),
            self.keys.len(),
            self.files,
            self.certificates,
            self.public_keys,
            self.expired,
            self.not_yet_valid
        )
    }
}

/// A Subject Key Identifier (RFC 8205 §3.2: 20 octets).
pub type Ski = [u8; SKI_LEN];

/// The SKI of a public key: the SHA-1 of the value of the subjectPublicKey BIT STRING
/// of its DER SubjectPublicKeyInfo, tag, length and unused-bits octet excluded (RFC 8209
/// §3.1.1 profiles RFC 6487 §4.8.2, which takes RFC 5280 §4.2.1.2 method 1).
///
/// # Errors
/// [`KeyError::Spki`] unless `spki` is a DER SEQUENCE of an AlgorithmIdentifier
/// SEQUENCE and a BIT STRING with no unused bits, and nothing after it.
pub fn ski_of_spki(spki: &[u8]) -> Result<Ski, KeyError> {
    let mut outer = Reader::new(spki);
    let mut info = Reader::new(der(&mut outer, 0x30, "SubjectPublicKeyInfo")?);
    outer.finish("SubjectPublicKeyInfo")?;
    der(&mut info, 0x30, "AlgorithmIdentifier")?;
    let mut bits = Reader::new(der(&mut info, 0x03, "subjectPublicKey")?);
    info.finish("SubjectPublicKeyInfo")?;
    if bits.u8("unused bits")? != 0 {
        return Err(KeyError::Spki(DecodeError::Invalid {
            field: "subjectPublicKey",
            reason: "has unused bits",
        }));
    }
    Ok(openssl::sha::sha1(
        bits.take(bits.remaining(), "subjectPublicKey")?,
    ))
}

/// One valid (AS Number, Public Key, SKI) triple (RFC 8205 §5.1), the key parsed by
/// each suite that accepts it.
#[derive(Clone)]
pub struct RouterKey {
    asn: u32,
    ski: Ski,
    spki: Vec<u8>,
    /// SHA-256 of `spki`, once: the key's part of each signature cache entry
    /// ([`crate::cache::CheckKey::with_key`]).
    spki_sha256: [u8; 32],
    parsed: Vec<VerifyingKey>,
}

impl std::fmt::Debug for RouterKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RouterKey")
            .field("asn", &self.asn)
            .field("ski", &hopsig_primitives::codec::to_hex(&self.ski))
            .field(
                "suites",
                &self
                    .parsed
                    .iter()
                    .map(VerifyingKey::suite)
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl RouterKey {
    /// The triple `(asn, ski, spki)` as the RPKI gives it (the SKI of the router
    /// certificate, not recomputed), parsed by every suite of [`SUITES`] that accepts
    /// the key. A key no suite accepts (another curve, say) is still a triple: §5.2
    /// step 2 finds it, and no signature verifies with it.
    pub fn new(asn: u32, ski: Ski, spki: &[u8]) -> RouterKey {
        RouterKey::for_suites(asn, ski, spki, SUITES)
    }

    /// As [`RouterKey::new`], with the SKI computed from the key ([`ski_of_spki`]).
    ///
    /// # Errors
    /// As [`ski_of_spki`].
    pub fn from_spki(asn: u32, spki: &[u8]) -> Result<RouterKey, KeyError> {
        Ok(RouterKey::new(asn, ski_of_spki(spki)?, spki))
    }

    /// As [`RouterKey::new`], parsed by the suites given.
    pub fn for_suites(
        asn: u32,
        ski: Ski,
        spki: &[u8],
        suites: &[&dyn AlgorithmSuite],
    ) -> RouterKey {
        let parsed = suites
            .iter()
            .filter_map(|s| s.verifying_key_from_spki(spki).ok())
            .collect();
        RouterKey {
            asn,
            ski,
            spki: spki.to_vec(),
            spki_sha256: openssl::sha::sha256(spki),
            parsed,
        }
    }

    /// The AS number.
    pub fn asn(&self) -> u32 {
        self.asn
    }

    /// The Subject Key Identifier.
    pub fn ski(&self) -> &Ski {
        &self.ski
    }

    /// The DER SubjectPublicKeyInfo.
    pub fn spki(&self) -> &[u8] {
        &self.spki
    }

    /// SHA-256 of the DER SubjectPublicKeyInfo, computed once.
    pub fn spki_sha256(&self) -> &[u8; 32] {
        &self.spki_sha256
    }

    /// The key as suite `suite` parsed it, if it accepted it.
    pub fn for_suite(&self, suite: u8) -> Option<&VerifyingKey> {
        self.parsed.iter().find(|k| k.suite() == suite)
    }

    /// The suites that accepted the key.
    pub fn suites(&self) -> impl Iterator<Item = u8> + '_ {
        self.parsed.iter().map(VerifyingKey::suite)
    }
}

/// The valid router keys a validator consults (RFC 8205 §5.2 step 2).
pub trait KeyLookup: Sync {
    /// Every valid triple whose AS is `asn` and whose SKI is `ski`. Several keys may
    /// share one (AS, SKI) — an SKI collision, or a rollover (RFC 8209 §6) — and the
    /// validator tries each.
    fn router_keys(&self, asn: u32, ski: &Ski) -> &[RouterKey];
}

/// Router keys held in memory, indexed by (AS, SKI).
#[derive(Debug, Clone, Default)]
pub struct RouterKeys {
    by_as_ski: HashMap<(u32, Ski), Vec<RouterKey>>,
    len: usize,
}

impl RouterKeys {
    /// An empty store.
    pub fn new() -> RouterKeys {
        RouterKeys::default()
    }

    /// Adds a triple; one already present with the same (AS, SKI, key) is not added
    /// twice.
    pub fn insert(&mut self, key: RouterKey) {
        let same = self.by_as_ski.entry((key.asn, key.ski)).or_default();
        if !same.iter().any(|k| k.spki == key.spki) {
            same.push(key);
            self.len += 1;
        }
    }

    /// The number of triples.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the store holds no triple.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every triple, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &RouterKey> {
        self.by_as_ski.values().flatten()
    }
}

impl FromIterator<RouterKey> for RouterKeys {
    fn from_iter<I: IntoIterator<Item = RouterKey>>(iter: I) -> Self {
        let mut keys = RouterKeys::new();
        for k in iter {
            keys.insert(k);
        }
        keys
    }
}

impl KeyLookup for RouterKeys {
    fn router_keys(&self, asn: u32, ski: &Ski) -> &[RouterKey] {
        self.by_as_ski.get(&(asn, *ski)).map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// RFC 8608 A.2, the key of AS 64496 as its certificate prints it.
    #[rustfmt::skip]
    const SPKI_64496: [u8; 91] = [
        0x30, 0x59,                                     // SEQUENCE, 89 octets
        0x30, 0x13,                                     //   AlgorithmIdentifier
        0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, // id-ecPublicKey
        0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, // secp256r1
        0x03, 0x42, 0x00,                               //   BIT STRING, 66 octets, 0 unused
        0x04,                                           //     uncompressed point
        0x73, 0x91, 0xba, 0xbb, 0x92, 0xa0, 0xcb, 0x3b, 0xe1, 0x0e, 0x59, 0xb1, 0x9e, 0xbf, 0xfb, 0x21,
        0x4e, 0x04, 0xa9, 0x1e, 0x0c, 0xba, 0x1b, 0x13, 0x9a, 0x7d, 0x38, 0xd9, 0x0f, 0x77, 0xe5, 0x5a,
        0xa0, 0x5b, 0x8e, 0x69, 0x56, 0x78, 0xe0, 0xfa, 0x16, 0x90, 0x4b, 0x55, 0xd9, 0xd4, 0xf5, 0xc0,
        0xdf, 0xc5, 0x88, 0x95, 0xee, 0x50, 0xbc, 0x4f, 0x75, 0xd2, 0x05, 0xa2, 0x5b, 0xd3, 0x6f, 0xf5,
    ];
    /// Its SKI, "ski: AB4D910F55CAE71A215EF3CAFE3ACC45B5EEC154".
    const SKI_64496: [u8; 20] = [
        0xab, 0x4d, 0x91, 0x0f, 0x55, 0xca, 0xe7, 0x1a, 0x21, 0x5e, 0xf3, 0xca, 0xfe, 0x3a, 0xcc,
        0x45, 0xb5, 0xee, 0xc1, 0x54,
    ];

    #[test]
    fn ski_is_sha1_of_the_bit_string_as_rfc_8608_prints_it() {
        assert_eq!(ski_of_spki(&SPKI_64496).unwrap(), SKI_64496);
        let key = RouterKey::from_spki(64_496, &SPKI_64496).unwrap();
        assert_eq!(key.ski(), &SKI_64496);
        assert_eq!(key.suites().collect::<Vec<_>>(), [1]);
    }

    #[test]
    fn spki_that_is_not_der_is_rejected() {
        let mut unused = SPKI_64496;
        unused[25] = 1;
        let mut tag = SPKI_64496;
        tag[23] = 0x04;
        let mut long = SPKI_64496.to_vec();
        long.push(0);
        for bad in [
            &unused[..],
            &tag,
            &long,
            &SPKI_64496[..90],
            &[],
            &[0x30, 0x80],
        ] {
            assert!(ski_of_spki(bad).is_err(), "{bad:02x?}");
        }
        // A long-form length that fits the short form is not DER.
        let mut non_minimal = vec![0x30, 0x81, 0x59];
        non_minimal.extend_from_slice(&SPKI_64496[2..]);
        assert!(ski_of_spki(&non_minimal).is_err());
    }

    #[test]
    fn lookup_finds_every_key_of_an_as_and_ski() {
        let a = RouterKey::new(64_496, SKI_64496, &SPKI_64496);
        let odd = RouterKey::new(64_496, SKI_64496, b"not a key");
        assert_eq!(
            odd.suites().count(),
            0,
            "kept as a triple, usable by no suite"
        );
        let keys: RouterKeys = [a.clone(), odd, a.clone()].into_iter().collect();
        assert_eq!(keys.len(), 2);
        assert_eq!(keys.router_keys(64_496, &SKI_64496).len(), 2);
        assert!(keys.router_keys(64_497, &SKI_64496).is_empty());
        assert!(keys.router_keys(64_496, &[0; 20]).is_empty());
        assert!(keys.router_keys(64_496, &SKI_64496)[0]
            .for_suite(1)
            .is_some());
        assert!(keys.router_keys(64_496, &SKI_64496)[0]
            .for_suite(2)
            .is_none());
    }
}
