//! hopsig key files: header lines, then standard PEM blocks.
//!
//! ```text
//! hopsig-key: 1
//! scheme: bgr-rsa2048
//! kind: secret
//! -----BEGIN PRIVATE KEY-----
//! MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC...
//! -----END PRIVATE KEY-----
//! ```
//!
//! RFC 7468 §5.2 lets parsers skip explanatory text before a PEM block, and OpenSSL
//! does, so `openssl pkey -in FILE` reads the first block of a hopsig key file. The
//! header says which scheme the key belongs to, so `hopsig sign` needs no `--scheme`.
//! The format is specified in `docs/spec/keys.md`.

use zeroize::Zeroizing;

/// The key-file format version this code writes and reads.
pub const KEY_FILE_VERSION: &str = "1";

/// Largest key file hopsig reads, in bytes.
pub const MAX_KEY_FILE_LEN: usize = 64 * 1024;

/// Whether a key file holds a secret (signing) or public (verifying) key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// A signing key; the file must be kept private.
    Secret,
    /// A verifying key.
    Public,
}

impl KeyKind {
    /// The header value: `secret` or `public`.
    pub fn as_str(self) -> &'static str {
        match self {
            KeyKind::Secret => "secret",
            KeyKind::Public => "public",
        }
    }
}

/// Why a key file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArmorError {
    /// The file is larger than [`MAX_KEY_FILE_LEN`].
    #[error("key file is {0} bytes, more than the {MAX_KEY_FILE_LEN} allowed")]
    TooLarge(usize),
    /// A line is malformed.
    #[error("line {line}: {reason}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A required header is absent.
    #[error("missing header '{0}'")]
    MissingHeader(&'static str),
    /// The version header names a version this code does not read.
    #[error("unsupported key file version '{0}' (this hopsig reads version {KEY_FILE_VERSION})")]
    Version(String),
    /// A required PEM block is absent.
    #[error("missing '{0}' block")]
    MissingBlock(String),
    /// The file is not a hopsig key file at all.
    #[error("not a hopsig key file (it should start with 'hopsig-key: {KEY_FILE_VERSION}')")]
    NotAKeyFile,
}

/// One PEM block: its label and decoded contents.
pub struct PemBlock {
    /// The label, e.g. `PRIVATE KEY`.
    pub label: String,
    /// The decoded bytes (zeroized on drop: blocks may hold secrets).
    pub der: Zeroizing<Vec<u8>>,
}

impl PemBlock {
    /// The block re-encoded as PEM text, for OpenSSL's PEM readers.
    pub fn to_pem(&self) -> Zeroizing<String> {
        Zeroizing::new(crate::rsa::pem_block(&self.label, &self.der))
    }
}

/// A parsed key file.
pub struct KeyFile {
    /// The scheme id from the `scheme` header.
    pub scheme: String,
    /// Secret or public.
    pub kind: KeyKind,
    /// The PEM blocks, in file order.
    pub blocks: Vec<PemBlock>,
}

impl KeyFile {
    /// True if `bytes` starts like a hopsig key file.
    pub fn sniff(bytes: &[u8]) -> bool {
        bytes.starts_with(b"hopsig-key:")
    }

    /// Renders a key file from its header values and already PEM-encoded blocks.
    pub fn render(scheme: &str, kind: KeyKind, pem_blocks: &[&str]) -> Zeroizing<String> {
        let mut out = Zeroizing::new(format!(
            "hopsig-key: {KEY_FILE_VERSION}\nscheme: {scheme}\nkind: {}\n",
            kind.as_str()
        ));
        for b in pem_blocks {
            out.push_str(b);
        }
        out
    }

    /// Parses a key file.
    ///
    /// # Errors
    /// [`ArmorError`] naming the line or element at fault: unknown or repeated headers,
    /// an unsupported version, unterminated blocks, bad base64, text between blocks.
    pub fn parse(text: &[u8]) -> Result<Self, ArmorError> {
        if text.len() > MAX_KEY_FILE_LEN {
            return Err(ArmorError::TooLarge(text.len()));
        }
        if !Self::sniff(text) {
            return Err(ArmorError::NotAKeyFile);
        }
        let text = std::str::from_utf8(text).map_err(|e| ArmorError::Line {
            line: 1 + text[..e.valid_up_to()]
                .iter()
                .filter(|&&c| c == b'\n')
                .count(),
            reason: "not UTF-8 text".into(),
        })?;
        let mut version = None;
        let mut scheme = None;
        let mut kind = None;
        let mut blocks = Vec::new();
        let mut open: Option<(String, String, usize)> = None;
        for (idx, raw) in text.lines().enumerate() {
            let line_no = idx + 1;
            let line = raw.trim_end_matches('\r');
            let err = |reason: String| ArmorError::Line {
                line: line_no,
                reason,
            };
            if let Some((label, body, start)) = open.as_mut() {
                if let Some(end) = line
                    .strip_prefix("-----END ")
                    .and_then(|l| l.strip_suffix("-----"))
                {
                    if end != label {
                        return Err(err(format!(
                            "END {end} closes BEGIN {label} of line {start}"
                        )));
                    }
                    let der = openssl::base64::decode_block(body)
                        .map_err(|_| err(format!("block {label}: invalid base64")))?;
                    blocks.push(PemBlock {
                        label: std::mem::take(label),
                        der: Zeroizing::new(der),
                    });
                    open = None;
                } else if line.starts_with("-----") {
                    return Err(err(format!("unexpected boundary inside block {label}")));
                } else {
                    body.push_str(line.trim());
                }
                continue;
            }
            if let Some(label) = line
                .strip_prefix("-----BEGIN ")
                .and_then(|l| l.strip_suffix("-----"))
            {
                open = Some((label.to_string(), String::new(), line_no));
                continue;
            }
            if line.trim().is_empty() {
                continue;
            }
            if !blocks.is_empty() {
                return Err(err("text after a PEM block".into()));
            }
            let (name, value) = line
                .split_once(':')
                .ok_or_else(|| err("expected a 'name: value' header".into()))?;
            let value = value.trim().to_string();
            let slot = match name.trim() {
                "hopsig-key" => &mut version,
                "scheme" => &mut scheme,
                "kind" => &mut kind,
                other => return Err(err(format!("unknown header '{other}'"))),
            };
            if slot.replace(value).is_some() {
                return Err(err(format!("repeated header '{}'", name.trim())));
            }
        }
        if let Some((label, _, start)) = open {
            return Err(ArmorError::Line {
                line: start,
                reason: format!("block {label} is never closed"),
            });
        }
        let version = version.ok_or(ArmorError::MissingHeader("hopsig-key"))?;
        if version != KEY_FILE_VERSION {
            return Err(ArmorError::Version(version));
        }
        let scheme = scheme.ok_or(ArmorError::MissingHeader("scheme"))?;
        let kind = match kind.ok_or(ArmorError::MissingHeader("kind"))?.as_str() {
            "secret" => KeyKind::Secret,
            "public" => KeyKind::Public,
            other => {
                return Err(ArmorError::Line {
                    line: 3,
                    reason: format!("kind must be 'secret' or 'public', not '{other}'"),
                })
            }
        };
        Ok(KeyFile {
            scheme,
            kind,
            blocks,
        })
    }

    /// The block with `label`.
    ///
    /// # Errors
    /// [`ArmorError::MissingBlock`] if there is none.
    pub fn block(&self, label: &str) -> Result<&PemBlock, ArmorError> {
        self.blocks
            .iter()
            .find(|b| b.label == label)
            .ok_or_else(|| ArmorError::MissingBlock(label.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> String {
        let blocks = [
            crate::rsa::pem_block("PUBLIC KEY", b"abc"),
            crate::rsa::pem_block("X", &[1; 70]),
        ];
        KeyFile::render("demo", KeyKind::Public, &[&blocks[0], &blocks[1]]).to_string()
    }

    #[test]
    fn round_trips() -> Result<(), ArmorError> {
        let f = KeyFile::parse(sample().as_bytes())?;
        assert_eq!(f.scheme, "demo");
        assert_eq!(f.kind, KeyKind::Public);
        assert_eq!(f.block("PUBLIC KEY")?.der.as_slice(), b"abc");
        assert_eq!(f.block("X")?.der.len(), 70);
        assert!(matches!(f.block("Y"), Err(ArmorError::MissingBlock(_))));
        Ok(())
    }

    #[test]
    fn precise_errors() {
        let s = sample();
        let cases: Vec<(String, &str)> = vec![
            (
                s.replacen("hopsig-key: 1", "hopsig-key: 2", 1),
                "unsupported key file version",
            ),
            (
                s.replacen("scheme: demo\n", "", 1),
                "missing header 'scheme'",
            ),
            (s.replacen("kind: public", "kind: both", 1), "kind must be"),
            (s.replacen("-----END X-----\n", "", 1), "never closed"),
            (
                s.replacen("-----END X-----", "-----END Y-----", 1),
                "closes BEGIN X",
            ),
            (
                s.replacen("scheme: demo", "scheme: demo\ncolour: red", 1),
                "unknown header",
            ),
            (
                s.replacen("scheme: demo", "scheme: demo\nscheme: x", 1),
                "repeated header",
            ),
            (format!("{s}trailing\n"), "text after a PEM block"),
            ("BEGIN".to_string(), "not a hopsig key file"),
        ];
        for (text, want) in cases {
            let got = KeyFile::parse(text.as_bytes())
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(got.contains(want), "{want:?} not in {got:?}");
        }
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let mut input = b"hopsig-key: 1\n".to_vec();
            input.extend_from_slice(&bytes);
            let _ = KeyFile::parse(&input);
            let _ = KeyFile::parse(&bytes);
        }
    }
}
