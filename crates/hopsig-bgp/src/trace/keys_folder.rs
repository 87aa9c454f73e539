//! A keys folder on disk (docs/spec/bgpsec-mrt.md, "Keys folder"): the secret key
//! file `AS<asn>.key` of each AS (mode 0600) and the public keys of them all in
//! [`KEYS_JSON`], as `sign-mrt` writes them and `validate-mrt --keys` reads them.
//!
//! Two ways to write one:
//!
//! * [`stage`] — every key of a [`Keyring`] staged in the caller's [`Outputs`], placed
//!   with its other outputs all together or not at all (`hopsig bgpsec sign-mrt`,
//!   which refuses existing files without `--force`).
//! * [`KeysFolder`] — a folder that grows: the keys already there are loaded and used,
//!   new ones are added ([`KeysFolder::save`]) by one process or by several at once
//!   (Python's `hopsig.engine`, the workers of a cluster sharing one folder).
//!
//! **Several writers.** [`KeysFolder::save`] holds an exclusive lock (`flock(2)`, on
//! [`LOCK_FILE`] in the folder) while it adds key files and rewrites [`KEYS_JSON`].
//! Each key file is written to a temporary file, fsynced and hard-linked into place,
//! never replacing a file ([`Outputs`] with [`Replace::Never`]); [`KEYS_JSON`] is
//! replaced by a rename. So a reader sees either the old or the new JSON, never part
//! of one, and every AS listed there has its complete key file. When two processes
//! generated a key for the same AS, the first to save wins: the other finds the file
//! under the lock, takes that key into its keyring (the folder's key replaces its own)
//! and reports the AS in [`Saved::replaced`], so that what it signed with its own key
//! can be signed again.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use hopsig_primitives::par::Ordered;
use hopsig_primitives::persist::{Outputs, PersistError, Replace, Secrecy};

use super::keyring::{secret_key_name, Keyring, KEYS_JSON};
use crate::suite::{AlgorithmSuite, KeyError, SigningKey};

/// The lock file of a keys folder (empty; its `flock` orders the writers).
pub const LOCK_FILE: &str = ".bgpsec_keys.lock";

/// Why a keys folder cannot be read or written; every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum KeysFolderError {
    /// A file or the folder cannot be read, listed or locked.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A secret key file is not a key of the keyring's suite.
    #[error("{}: {source}", path.display())]
    Key {
        /// The file.
        path: PathBuf,
        /// What the suite says.
        #[source]
        source: KeyError,
    },
    /// A file cannot be written or placed.
    #[error(transparent)]
    Persist(#[from] PersistError),
}

/// The AS number a file name `AS<asn>.key` names, if it is one.
fn asn_of(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("AS")?.strip_suffix(".key")?;
    // `AS<asn>.key` exactly as [`secret_key_name`] writes it: no sign, no leading zero.
    let asn: u32 = digits.parse().ok()?;
    (secret_key_name(asn) == name).then_some(asn)
}

/// The ASes with a secret key file in `dir`, ascending; none if `dir` does not exist.
///
/// # Errors
/// [`KeysFolderError::Io`] if `dir` exists but cannot be listed.
pub fn key_files(dir: &Path) -> Result<BTreeSet<u32>, KeysFolderError> {
    let io = |source| KeysFolderError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeSet::new()),
        Err(e) => return Err(io(e)),
    };
    let mut ases = BTreeSet::new();
    for entry in entries {
        if let Some(asn) = entry.map_err(io)?.file_name().to_str().and_then(asn_of) {
            ases.insert(asn);
        }
    }
    Ok(ases)
}

/// AS `asn`'s key of `suite`, read from its secret key file in `dir`.
///
/// # Errors
/// [`KeysFolderError::Io`] if the file cannot be read, [`KeysFolderError::Key`] if it
/// is not a secret key file of `suite`.
pub fn read_key(
    dir: &Path,
    asn: u32,
    suite: &'static dyn AlgorithmSuite,
) -> Result<SigningKey, KeysFolderError> {
    let path = dir.join(secret_key_name(asn));
    let text =
        zeroize::Zeroizing::new(std::fs::read(&path).map_err(|source| KeysFolderError::Io {
            path: path.clone(),
            source,
        })?);
    suite
        .signing_key_from_file(&text)
        .map_err(|source| KeysFolderError::Key { path, source })
}

/// Reads the secret key files of `asns` in `dir` into `keyring` on `threads` threads
/// (a key file of another suite is an error); replaces the keys the keyring had for
/// them.
fn load(
    dir: &Path,
    asns: &[u32],
    keyring: &mut Keyring,
    threads: usize,
) -> Result<(), KeysFolderError> {
    let suite = keyring.suite();
    let keys = Ordered::new(threads).map(asns, |&asn| read_key(dir, asn, suite));
    for (&asn, key) in asns.iter().zip(keys) {
        keyring
            .insert(asn, key?)
            .map_err(|source| KeysFolderError::Key {
                path: dir.join(secret_key_name(asn)),
                source,
            })?;
    }
    Ok(())
}

/// Stages the keys of `keyring` as the keys folder `dir` in `outputs`: [`KEYS_JSON`]
/// (public) and every AS's secret key file (mode 0600), placed when `outputs` is
/// committed.
///
/// # Errors
/// [`KeysFolderError::Key`] if a secret key file cannot be made,
/// [`KeysFolderError::Persist`] if a file cannot be staged.
pub fn stage(outputs: &mut Outputs, dir: &Path, keyring: &Keyring) -> Result<(), KeysFolderError> {
    outputs.add(
        &dir.join(KEYS_JSON),
        keyring.rpki_json().as_bytes(),
        Secrecy::Public,
    )?;
    let secrets = keyring
        .secret_key_files()
        .map_err(|source| KeysFolderError::Key {
            path: dir.to_path_buf(),
            source,
        })?;
    for (asn, pem) in &secrets {
        outputs.add(
            &dir.join(secret_key_name(*asn)),
            pem.as_bytes(),
            Secrecy::Secret,
        )?;
    }
    Ok(())
}

/// What [`KeysFolder::save`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Saved {
    /// Secret key files written (the keyring's keys the folder lacked).
    pub written: usize,
    /// ASes whose key in the keyring was replaced by the folder's: another writer
    /// saved a key for them first. What was signed with the replaced key does not
    /// verify with the folder's.
    pub replaced: Vec<u32>,
    /// Keys the folder had that the keyring did not (saved by others meanwhile),
    /// now loaded.
    pub loaded: usize,
}

/// A keys folder that grows: [`KeysFolder::open`] loads the keys in it, the keyring
/// generates more, [`KeysFolder::save`] adds them (the module documentation says how
/// several writers share one folder).
#[derive(Debug)]
pub struct KeysFolder {
    dir: PathBuf,
    /// The ASes whose key files the keyring holds as they are on disk.
    on_disk: BTreeSet<u32>,
    threads: usize,
}

impl KeysFolder {
    /// The folder `dir` (it need not exist yet: [`KeysFolder::save`] creates it), its
    /// secret key files loaded into `keyring` on `threads` threads.
    ///
    /// # Errors
    /// [`KeysFolderError`] naming the first file that cannot be read, or that holds
    /// no key of the keyring's suite.
    pub fn open(
        dir: &Path,
        keyring: &mut Keyring,
        threads: usize,
    ) -> Result<KeysFolder, KeysFolderError> {
        let on_disk = key_files(dir)?;
        let asns: Vec<u32> = on_disk.iter().copied().collect();
        load(dir, &asns, keyring, threads)?;
        Ok(KeysFolder {
            dir: dir.to_path_buf(),
            on_disk,
            threads,
        })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Adds the keys of `keyring` the folder lacks (each secret key file created,
    /// never replaced) and rewrites [`KEYS_JSON`] with every key of the folder, under
    /// the folder's lock; key files others saved meanwhile are loaded into `keyring`
    /// first, replacing its own key for the same AS ([`Saved::replaced`]). Creates
    /// the folder if missing.
    ///
    /// # Errors
    /// [`KeysFolderError`]: the folder or lock cannot be made, a file cannot be read
    /// or written. Key files placed before the error stay (each is complete).
    pub fn save(&mut self, keyring: &mut Keyring) -> Result<Saved, KeysFolderError> {
        let mut folder = Outputs::new(Replace::Never);
        folder.folder(&self.dir)?;
        let _lock = self.lock()?;
        let now = key_files(&self.dir)?;
        let others: Vec<u32> = now.difference(&self.on_disk).copied().collect();
        let mine: BTreeSet<u32> = keyring.ases().into_iter().collect();
        let replaced: Vec<u32> = others
            .iter()
            .copied()
            .filter(|a| mine.contains(a))
            .collect();
        load(&self.dir, &others, keyring, self.threads)?;
        let new: Vec<u32> = mine.difference(&now).copied().collect();
        let mut files = Outputs::new(Replace::Never);
        let secrets = keyring
            .secret_key_files()
            .map_err(|source| KeysFolderError::Key {
                path: self.dir.clone(),
                source,
            })?;
        for (asn, pem) in secrets.iter().filter(|(a, _)| new.binary_search(a).is_ok()) {
            files.add(
                &self.dir.join(secret_key_name(*asn)),
                pem.as_bytes(),
                Secrecy::Secret,
            )?;
        }
        files.commit()?;
        let mut json = Outputs::new(Replace::Force);
        json.add(
            &self.dir.join(KEYS_JSON),
            keyring.rpki_json().as_bytes(),
            Secrecy::Public,
        )?;
        json.commit()?;
        folder.commit()?;
        self.on_disk = now;
        self.on_disk.extend(&new);
        Ok(Saved {
            written: new.len(),
            loaded: others.len() - replaced.len(),
            replaced,
        })
    }

    /// The folder's lock, held until the file is dropped (closed).
    fn lock(&self) -> Result<File, KeysFolderError> {
        let path = self.dir.join(LOCK_FILE);
        let io = |source| KeysFolderError::Io {
            path: path.clone(),
            source,
        };
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io)?;
        file.lock().map_err(io)?;
        Ok(file)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::router_key::KeyLookup;
    use crate::suite::ECDSA_P256_SHA256;

    #[test]
    fn only_names_sign_mrt_writes_are_key_files() {
        assert_eq!(asn_of("AS64496.key"), Some(64_496));
        assert_eq!(asn_of("AS0.key"), Some(0));
        for other in [
            "AS064496.key",
            "AS+1.key",
            "as1.key",
            "AS1.pem",
            "AS.key",
            "AS99999999999.key",
        ] {
            assert_eq!(asn_of(other), None, "{other}");
        }
    }

    /// Two keyrings generate keys for overlapping ASes and save to one folder: the
    /// first saver's keys win, the second takes them, and the JSON lists every AS
    /// once with the key of its file.
    #[test]
    fn the_first_saver_wins_and_the_json_lists_every_file() {
        let dir = tempfile::tempdir().unwrap();
        let keys = dir.path().join("keys");
        let mut a = Keyring::new(&ECDSA_P256_SHA256);
        let mut b = Keyring::new(&ECDSA_P256_SHA256);
        let mut fa = KeysFolder::open(&keys, &mut a, 2).unwrap();
        let mut fb = KeysFolder::open(&keys, &mut b, 2).unwrap();
        a.generate(&[1, 2, 3], 2).unwrap();
        b.generate(&[3, 4], 2).unwrap();
        let theirs = *b.signer(3).unwrap().key(1).unwrap().1.ski();
        assert_eq!(
            fa.save(&mut a).unwrap(),
            Saved {
                written: 3,
                replaced: vec![],
                loaded: 0
            }
        );
        assert_eq!(
            fb.save(&mut b).unwrap(),
            Saved {
                written: 1,
                replaced: vec![3],
                loaded: 2
            }
        );
        let ours = *a.signer(3).unwrap().key(1).unwrap().1.ski();
        assert_eq!(b.signer(3).unwrap().key(1).unwrap().1.ski(), &ours);
        assert_ne!(theirs, ours);
        assert_eq!(key_files(&keys).unwrap().len(), 4);
        let json = std::fs::read(keys.join(KEYS_JSON)).unwrap();
        let lookup = crate::router_key::from_rpki_json(&json, 0).unwrap().keys;
        assert_eq!(lookup.len(), 4);
        assert_eq!(lookup.router_keys(3, &ours).len(), 1);
        assert!(lookup.router_keys(3, &theirs).is_empty());
        // Secret files are the owner's only.
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(keys.join("AS4.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        // Reopened, the folder gives the same keys.
        let mut c = Keyring::new(&ECDSA_P256_SHA256);
        KeysFolder::open(&keys, &mut c, 1).unwrap();
        assert_eq!(c.ases(), [1, 2, 3, 4]);
        assert_eq!(c.rpki_json(), String::from_utf8(json).unwrap());
    }

    #[test]
    fn a_key_file_of_another_suite_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("AS7.key"), b"not a key").unwrap();
        let mut ring = Keyring::new(&ECDSA_P256_SHA256);
        let e = KeysFolder::open(dir.path(), &mut ring, 1).unwrap_err();
        assert!(e.to_string().contains("AS7.key"), "{e}");
    }
}
