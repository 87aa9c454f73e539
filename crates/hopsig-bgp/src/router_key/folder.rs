//! Router keys from a folder of PEM and DER files (docs/spec/bgpsec.md, "Router keys"):
//! RFC 8209 router certificates as an RPKI repository publishes them (`.cer`, DER, RFC
//! 8209 §3.4) or as PEM (`.pem`, `.crt`; one or more `CERTIFICATE` blocks), and bare
//! public keys (`AS<asn>.pem` holding one `PUBLIC KEY` block: the triple (asn, SHA-1
//! of the key, key)). Files of other names are not read; a `PRIVATE KEY` block is
//! refused, so a secret never sits where public keys are published.

use std::path::{Path, PathBuf};

use x509_parser::pem::Pem;

use super::certificate::{CertificateError, RouterCertificate};
use super::{RouterKey, RouterKeys};

/// The most octets hopsig reads of one file of a keys folder.
pub const MAX_FILE_LEN: u64 = 1 << 20;

/// What a folder or an rpki-client JSON document gave: the router keys valid at the
/// time asked, and how many certificates (JSON entries) were set aside because they are
/// not valid then.
#[derive(Debug, Clone, Default)]
pub struct LoadReport {
    /// The triples.
    pub keys: RouterKeys,
    /// Files read.
    pub files: usize,
    /// Certificates (JSON entries) read, in all.
    pub certificates: usize,
    /// Bare public keys read (`AS<asn>.pem`).
    pub public_keys: usize,
    /// Certificates whose notAfter is before the time asked.
    pub expired: usize,
    /// Certificates whose notBefore is after the time asked.
    pub not_yet_valid: usize,
}

/// Why a keys folder was refused: the file and what is wrong with it.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    /// The folder or a file cannot be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A file is not what its name says.
    #[error("{}: {problem}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// A certificate breaks the router certificate profile.
    #[error("{}: {source}", path.display())]
    Certificate {
        /// The file.
        path: PathBuf,
        /// Why.
        source: CertificateError,
    },
}

/// What a file of a keys folder is, by its name.
enum Kind {
    /// `AS<asn>.pem` — a public key of AS `asn`, or router certificates.
    AsPem(u32),
    /// `*.pem`, `*.crt` — router certificates in PEM.
    Pem,
    /// `*.cer` — one DER router certificate.
    Cer,
}

fn kind(name: &str) -> Option<Kind> {
    if let Some(stem) = name.strip_suffix(".pem") {
        let asn = stem
            .strip_prefix("AS")
            .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|d| d.parse::<u32>().ok());
        return Some(asn.map_or(Kind::Pem, Kind::AsPem));
    }
    if name.ends_with(".crt") {
        return Some(Kind::Pem);
    }
    name.ends_with(".cer").then_some(Kind::Cer)
}

/// Reads the keys folder `dir` (not its subfolders), files in name order, keeping the
/// certificates valid at `unix` seconds; a bare public key has no validity and is
/// always kept.
///
/// # Errors
/// [`FolderError`] naming the first file that cannot be read, is larger than
/// [`MAX_FILE_LEN`], or does not hold what its name says.
pub fn from_dir(dir: &Path, unix: i64) -> Result<LoadReport, FolderError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FolderError::Io { path, source }
    };
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let name = entry.file_name();
        if let Some(k) = name.to_str().and_then(kind) {
            if entry.file_type().map_err(io(&entry.path()))?.is_file() {
                names.push((name, k));
            }
        }
    }
    names.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut report = LoadReport::default();
    for (name, k) in names {
        let path = dir.join(name);
        let bytes = read_bounded(&path).map_err(io(&path))?;
        report.files += 1;
        let file = |problem: String| FolderError::File {
            path: path.clone(),
            problem,
        };
        let certificate = |der: &[u8]| {
            RouterCertificate::from_der(der).map_err(|source| FolderError::Certificate {
                path: path.clone(),
                source,
            })
        };
        let mut certs = Vec::new();
        match k {
            Kind::Cer => certs.push(certificate(&bytes)?),
            Kind::Pem | Kind::AsPem(_) => {
                let blocks = pem_blocks(&bytes).map_err(file)?;
                for block in &blocks {
                    match (block.label.as_str(), &k) {
                        ("CERTIFICATE", _) => certs.push(certificate(&block.contents)?),
                        ("PUBLIC KEY", Kind::AsPem(asn)) if blocks.len() == 1 => {
                            let key = RouterKey::from_spki(*asn, &block.contents)
                                .map_err(|e| file(format!("PUBLIC KEY: {e}")))?;
                            report.keys.insert(key);
                            report.public_keys += 1;
                        }
                        ("PUBLIC KEY", _) => {
                            return Err(file(
                                "a PUBLIC KEY block must be alone in a file named AS<asn>.pem"
                                    .into(),
                            ))
                        }
                        (label, _) if label.contains("PRIVATE KEY") => {
                            return Err(file(format!(
                                "holds a {label} block: secret keys do not belong in a \
                                 folder of public router keys"
                            )))
                        }
                        (label, _) => {
                            return Err(file(format!(
                                "a {label:?} PEM block is neither CERTIFICATE nor PUBLIC KEY"
                            )))
                        }
                    }
                }
            }
        }
        for cert in certs {
            report.certificates += 1;
            let (not_before, not_after) = cert.validity();
            if unix > not_after {
                report.expired += 1;
            } else if unix < not_before {
                report.not_yet_valid += 1;
            } else {
                cert.router_keys().for_each(|k| report.keys.insert(k));
            }
        }
    }
    Ok(report)
}

/// A regular file read up to [`MAX_FILE_LEN`] octets.
fn read_bounded(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_LEN + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_LEN {
        return Err(std::io::Error::other(format!(
            "larger than {MAX_FILE_LEN} bytes"
        )));
    }
    Ok(bytes)
}

/// Every PEM block of `bytes` (RFC 7468), at least one; text before a block is skipped
/// (RFC 7468 §5.2 allows explanatory text there).
fn pem_blocks(bytes: &[u8]) -> Result<Vec<Pem>, String> {
    let mut blocks = Vec::new();
    let mut rest = bytes;
    while !rest.iter().all(u8::is_ascii_whitespace) {
        let (after, pem) = x509_parser::pem::parse_x509_pem(rest)
            .map_err(|e| format!("PEM block {}: {e}", blocks.len() + 1))?;
        blocks.push(pem);
        rest = after;
    }
    if blocks.is_empty() {
        return Err("no PEM block".into());
    }
    Ok(blocks)
}
