//! hopsig key files: three header lines, then standard PEM blocks; and plain standard
//! keys (PKCS #8, SubjectPublicKeyInfo) as OpenSSL writes them.
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
//! The grammar, which [`KeyFile::parse`] enforces rule by rule, is in
//! `docs/spec/keys.md`; [`PlainKey`] reads a key without the header (for the schemes
//! whose keys are standard) and [`KeyInput`] tells the two apart.

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
    /// A line breaks the grammar of `docs/spec/keys.md`.
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
    /// The file is neither a hopsig key file nor a plain standard key.
    #[error(
        "neither a hopsig key file (first line 'hopsig-key: {KEY_FILE_VERSION}') nor a plain PEM or DER key (PKCS #8 private key or SubjectPublicKeyInfo public key)"
    )]
    NotAKey,
    /// A plain PEM file holds other blocks than one `PRIVATE KEY` or `PUBLIC KEY`.
    #[error(
        "PEM block(s) {0}: hopsig reads one PRIVATE KEY (PKCS #8) or PUBLIC KEY (SubjectPublicKeyInfo) block; `openssl pkey -in FILE -out NEW` converts a private key (add -pubout for its public key)"
    )]
    NotPlainKey(String),
    /// A DER private key in an older format than PKCS #8.
    #[error(
        "a DER {0}: hopsig reads PKCS #8 private keys; `openssl pkcs8 -topk8 -nocrypt -inform DER -in FILE -outform DER -out NEW` converts it"
    )]
    NotPkcs8(&'static str),
}

/// One PEM block: its label and decoded contents.
pub struct PemBlock {
    /// The label, e.g. `PRIVATE KEY`.
    pub label: String,
    /// The decoded bytes (zeroized on drop: blocks may hold secrets).
    pub der: Zeroizing<Vec<u8>>,
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

/// The three headers, in the order a key file holds them.
const HEADERS: [&str; 3] = ["hopsig-key", "scheme", "kind"];

/// Longest scheme id and PEM label.
const MAX_NAME: usize = 64;

/// Base64 characters per line of a PEM block (RFC 7468 §3, `strictbase64text`).
pub(crate) const PEM_COLUMNS: usize = 64;

/// At most 40 characters of `text`, for an error message.
fn excerpt(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

fn line_error(line: usize, reason: impl Into<String>) -> ArmorError {
    ArmorError::Line {
        line,
        reason: reason.into(),
    }
}

/// The lines of `text`, numbered from 1: each must end in LF (a CR before it is
/// dropped) and hold printable ASCII only.
fn lines(text: &[u8]) -> Result<Vec<(usize, &str)>, ArmorError> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let number = out.len() + 1;
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or_else(|| line_error(number, "the last line does not end in a line feed"))?;
        let line = &rest[..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Some(&b) = line.iter().find(|&&b| !(0x20..0x7f).contains(&b)) {
            return Err(line_error(
                number,
                format!("byte 0x{b:02x} is not printable ASCII (key files are ASCII text)"),
            ));
        }
        // Printable ASCII is UTF-8.
        let line = std::str::from_utf8(line).map_err(|_| line_error(number, "not ASCII"))?;
        out.push((number, line));
        rest = &rest[end + 1..];
    }
    Ok(out)
}

/// `name: value` with a name of lowercase letters and hyphens.
fn header(line: &str) -> Option<(&str, &str)> {
    let (name, value) = line.split_once(": ")?;
    (!name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'))
        .then_some((name, value))
}

/// A scheme id: 1 to 64 lowercase letters, digits and hyphens.
fn is_scheme_id(s: &str) -> bool {
    (1..=MAX_NAME).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// A PEM label: 1 to 64 characters from A–Z, 0–9 and single spaces, no space at
/// either end.
fn is_label(s: &str) -> bool {
    (1..=MAX_NAME).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b' ')
        && !s.starts_with(' ')
        && !s.ends_with(' ')
        && !s.contains("  ")
}

/// The label of a `-----BEGIN LABEL-----` or `-----END LABEL-----` line.
fn boundary<'a>(line: &'a str, which: &str) -> Option<&'a str> {
    line.strip_prefix("-----")?
        .strip_prefix(which)?
        .strip_prefix(' ')?
        .strip_suffix("-----")
}

/// Why a line that should start a block does not.
fn not_a_block(line: usize, text: &str, after_block: bool) -> ArmorError {
    if text.is_empty() {
        return line_error(line, "blank line (a key file has none)");
    }
    match header(text) {
        Some((name, _)) if HEADERS.contains(&name) => {
            line_error(line, format!("repeated header '{name}'"))
        }
        Some((name, _)) => line_error(line, format!("unknown header '{}'", excerpt(name))),
        None if after_block => line_error(line, "text after a PEM block"),
        None => line_error(line, "expected a PEM block (-----BEGIN LABEL-----)"),
    }
}

/// PEM blocks in the strict form of `docs/spec/keys.md` (RFC 7468 §3
/// `stricttextualmsg`): `-----BEGIN L-----`, base64 lines of 64 characters (the last
/// 1 to 64), `-----END L-----`, canonical base64; at least one block and nothing else.
fn blocks(lines: &[(usize, &str)]) -> Result<Vec<PemBlock>, ArmorError> {
    let mut out: Vec<PemBlock> = Vec::new();
    let mut rest = lines;
    while let Some((&(start, text), after)) = rest.split_first() {
        let label =
            boundary(text, "BEGIN").ok_or_else(|| not_a_block(start, text, !out.is_empty()))?;
        if !is_label(label) {
            return Err(line_error(
                start,
                format!(
                    "PEM label '{}' is not 1 to {MAX_NAME} characters of A-Z, 0-9 and single spaces",
                    excerpt(label)
                ),
            ));
        }
        let mut body = Zeroizing::new(String::new());
        let mut short_line = None;
        rest = after;
        loop {
            let Some((&(number, text), after)) = rest.split_first() else {
                return Err(line_error(start, format!("block {label} is never closed")));
            };
            rest = after;
            if let Some(end) = boundary(text, "END") {
                if end != label {
                    return Err(line_error(
                        number,
                        format!("END {} closes BEGIN {label} of line {start}", excerpt(end)),
                    ));
                }
                break;
            }
            if text.starts_with("-----") {
                return Err(line_error(
                    number,
                    format!("unexpected boundary inside block {label}"),
                ));
            }
            if let Some(short) = short_line {
                return Err(line_error(
                    short,
                    format!("block {label}: only the last base64 line may be shorter than {PEM_COLUMNS} characters"),
                ));
            }
            if text.is_empty()
                || text.len() > PEM_COLUMNS
                || !text
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=')
            {
                return Err(line_error(
                    number,
                    format!("block {label}: invalid base64 (a line of 1 to {PEM_COLUMNS} characters of A-Z, a-z, 0-9, +, / and = padding)"),
                ));
            }
            if text.len() < PEM_COLUMNS {
                short_line = Some(number);
            }
            body.push_str(text);
        }
        // Both the decoded bytes and the re-encoding compared with the block may be a
        // secret key: they live in zeroizing buffers too.
        let der = openssl::base64::decode_block(&body)
            .ok()
            .map(Zeroizing::new)
            .filter(|der| {
                !der.is_empty() && *Zeroizing::new(openssl::base64::encode_block(der)) == *body
            })
            .ok_or_else(|| {
                line_error(
                    start,
                    format!(
                        "block {label}: invalid base64 (not the canonical encoding of any bytes)"
                    ),
                )
            })?;
        out.push(PemBlock {
            label: label.to_string(),
            der,
        });
    }
    Ok(out)
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

    /// Parses a key file in the one grammar of `docs/spec/keys.md`: printable ASCII
    /// lines, each ending in LF (or CR LF); the headers `hopsig-key: 1`, `scheme: ID`
    /// and `kind: secret|public` in that order on lines 1 to 3; then one or more strict
    /// PEM blocks and nothing else (no blank line, no text between or after blocks).
    ///
    /// # Errors
    /// [`ArmorError`] naming the line or element at fault: a header missing, repeated,
    /// unknown or out of order; an unsupported version; a scheme id or kind outside its
    /// grammar; a blank line, control character or missing final line feed; an
    /// unterminated block, mismatched labels, bad base64, text between or after blocks.
    pub fn parse(text: &[u8]) -> Result<Self, ArmorError> {
        if text.len() > MAX_KEY_FILE_LEN {
            return Err(ArmorError::TooLarge(text.len()));
        }
        if !Self::sniff(text) {
            return Err(ArmorError::NotAKeyFile);
        }
        let lines = lines(text)?;
        let mut values = [""; 3];
        for (i, expected) in HEADERS.iter().enumerate() {
            let Some(&(number, text)) = lines.get(i) else {
                return Err(ArmorError::MissingHeader(expected));
            };
            values[i] = match header(text) {
                Some((name, value)) if name == *expected => value,
                Some((name, _)) if HEADERS[..i].contains(&name) => {
                    return Err(line_error(number, format!("repeated header '{name}'")))
                }
                Some((name, _)) if HEADERS.contains(&name) => {
                    return Err(line_error(
                        number,
                        format!("missing header '{expected}' before '{name}' (the headers come in the order hopsig-key, scheme, kind)"),
                    ))
                }
                Some((name, _)) => {
                    return Err(line_error(
                        number,
                        format!("unknown header '{}'", excerpt(name)),
                    ))
                }
                None if text.is_empty() => {
                    return Err(line_error(number, "blank line (a key file has none)"))
                }
                None if text.split_once(':').is_some_and(|(name, _)| name == *expected) => {
                    return Err(line_error(
                        number,
                        format!("write the header as '{expected}: VALUE' (one space after the colon)"),
                    ))
                }
                None => return Err(line_error(number, format!("missing header '{expected}'"))),
            };
        }
        let [version, scheme, kind] = values;
        if version != KEY_FILE_VERSION {
            return Err(ArmorError::Version(excerpt(version)));
        }
        if !is_scheme_id(scheme) {
            return Err(line_error(
                2,
                format!(
                    "scheme id '{}' is not 1 to {MAX_NAME} lowercase letters, digits and hyphens",
                    excerpt(scheme)
                ),
            ));
        }
        let kind = match kind {
            "secret" => KeyKind::Secret,
            "public" => KeyKind::Public,
            other => {
                return Err(line_error(
                    3,
                    format!(
                        "kind must be 'secret' or 'public', not '{}'",
                        excerpt(other)
                    ),
                ))
            }
        };
        let blocks = blocks(&lines[HEADERS.len()..])?;
        if blocks.is_empty() {
            return Err(line_error(
                HEADERS.len(),
                "no PEM block follows the headers",
            ));
        }
        Ok(KeyFile {
            scheme: scheme.to_string(),
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

/// A standard key as OpenSSL and most tools write it, without hopsig's header
/// (`docs/spec/keys.md`, "Plain keys"): one PEM block `PRIVATE KEY` (PKCS #8
/// `PrivateKeyInfo`) or `PUBLIC KEY` (`SubjectPublicKeyInfo`) in the block grammar of
/// key files, or the same structure as DER.
pub struct PlainKey {
    /// Secret for PKCS #8, public for SubjectPublicKeyInfo.
    pub kind: KeyKind,
    /// The DER structure (zeroized on drop).
    pub der: Zeroizing<Vec<u8>>,
}

/// The PEM label of a plain key of `kind`.
fn plain_label(kind: KeyKind) -> &'static str {
    match kind {
        KeyKind::Secret => "PRIVATE KEY",
        KeyKind::Public => "PUBLIC KEY",
    }
}

/// The length of a DER element and what follows its length octets (definite form,
/// at most 4 length octets).
fn der_length(bytes: &[u8]) -> Option<(usize, &[u8])> {
    let (&first, rest) = bytes.split_first()?;
    if first < 0x80 {
        return Some((usize::from(first), rest));
    }
    let count = usize::from(first & 0x7f);
    if !(1..=4).contains(&count) {
        return None;
    }
    let (octets, rest) = (rest.get(..count)?, rest.get(count..)?);
    Some((
        octets.iter().fold(0usize, |v, &b| v << 8 | usize::from(b)),
        rest,
    ))
}

/// The tags of the elements of a DER SEQUENCE that spans all of `der` (`None` if it is
/// not one).
fn sequence_tags(der: &[u8]) -> Option<Vec<u8>> {
    let (&tag, rest) = der.split_first()?;
    let (len, mut body) = der_length(rest)?;
    if tag != 0x30 || body.len() != len {
        return None;
    }
    let mut tags = Vec::new();
    while let Some((&tag, rest)) = body.split_first() {
        let (len, rest) = der_length(rest)?;
        body = rest.get(len..)?;
        tags.push(tag);
    }
    Some(tags)
}

/// What a DER structure is shaped like, from the tags of its top-level SEQUENCE:
/// `PrivateKeyInfo` (RFC 5208: INTEGER, SEQUENCE, OCTET STRING, …), or
/// `SubjectPublicKeyInfo` (RFC 5280: SEQUENCE, BIT STRING). The scheme's reader checks
/// the rest. The older private key formats OpenSSL writes as DER (`openssl pkey
/// -outform DER`) are told apart to say how to convert them.
fn der_kind(der: &[u8]) -> Result<KeyKind, ArmorError> {
    match sequence_tags(der).as_deref() {
        Some([0x02, 0x30, 0x04, ..]) => Ok(KeyKind::Secret),
        Some([0x30, 0x03]) => Ok(KeyKind::Public),
        Some([0x02, 0x04, ..]) => Err(ArmorError::NotPkcs8("SEC 1 ECPrivateKey")),
        Some(tags) if tags.len() >= 9 && tags.iter().all(|&t| t == 0x02) => {
            Err(ArmorError::NotPkcs8("PKCS #1 RSAPrivateKey"))
        }
        _ => Err(ArmorError::NotAKey),
    }
}

impl PlainKey {
    /// Reads a plain key: PEM if `bytes` starts with `-----BEGIN `, else DER.
    ///
    /// # Errors
    /// [`ArmorError::TooLarge`]; [`ArmorError::NotPlainKey`] for a PEM file that is not
    /// one `PRIVATE KEY` or `PUBLIC KEY` block; [`ArmorError::Line`] for a block that
    /// breaks the grammar or does not hold the structure its label names;
    /// [`ArmorError::NotPkcs8`] for a DER SEC 1 or PKCS #1 private key;
    /// [`ArmorError::NotAKey`] for anything else.
    pub fn parse(bytes: &[u8]) -> Result<Self, ArmorError> {
        if bytes.len() > MAX_KEY_FILE_LEN {
            return Err(ArmorError::TooLarge(bytes.len()));
        }
        if !bytes.starts_with(b"-----BEGIN ") {
            let kind = der_kind(bytes)?;
            return Ok(PlainKey {
                kind,
                der: Zeroizing::new(bytes.to_vec()),
            });
        }
        let mut found = blocks(&lines(bytes)?)?;
        let kind = match found.as_slice() {
            [only] if only.label == plain_label(KeyKind::Secret) => KeyKind::Secret,
            [only] if only.label == plain_label(KeyKind::Public) => KeyKind::Public,
            all => {
                let labels: Vec<&str> = all.iter().map(|b| b.label.as_str()).collect();
                return Err(ArmorError::NotPlainKey(labels.join(", ")));
            }
        };
        let block = found.remove(0);
        if der_kind(&block.der).ok() != Some(kind) {
            return Err(line_error(
                1,
                format!(
                    "block {}: not a DER {}",
                    block.label,
                    match kind {
                        KeyKind::Secret => "PKCS #8 PrivateKeyInfo",
                        KeyKind::Public => "SubjectPublicKeyInfo",
                    }
                ),
            ));
        }
        Ok(PlainKey {
            kind,
            der: block.der,
        })
    }

    /// The key file a hopsig key file of `scheme` with this one block would be.
    pub fn into_key_file(self, scheme: &str) -> KeyFile {
        KeyFile {
            scheme: scheme.to_string(),
            kind: self.kind,
            blocks: vec![PemBlock {
                label: plain_label(self.kind).to_string(),
                der: self.der,
            }],
        }
    }
}

/// A key as a user may hold it: a hopsig key file, or a plain standard key.
pub enum KeyInput {
    /// A hopsig key file (it names its scheme).
    File(KeyFile),
    /// A plain PKCS #8 or SubjectPublicKeyInfo key (the caller says the scheme).
    Plain(PlainKey),
}

impl KeyInput {
    /// A hopsig key file if `bytes` starts like one ([`KeyFile::sniff`]), else a plain
    /// key.
    ///
    /// # Errors
    /// As [`KeyFile::parse`] or [`PlainKey::parse`].
    pub fn parse(bytes: &[u8]) -> Result<Self, ArmorError> {
        if KeyFile::sniff(bytes) {
            KeyFile::parse(bytes).map(KeyInput::File)
        } else {
            PlainKey::parse(bytes).map(KeyInput::Plain)
        }
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

    fn error(text: &str) -> String {
        KeyFile::parse(text.as_bytes())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
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
            let got = error(&text);
            assert!(got.contains(want), "{want:?} not in {got:?}");
        }
    }

    /// Each rule of the grammar in docs/spec/keys.md, broken once, with the line and
    /// the reason the parser gives.
    #[test]
    fn every_grammar_rule_is_enforced() {
        let s = sample();
        let x_line = s
            .lines()
            .position(|l| l == "-----BEGIN X-----")
            .unwrap_or(0)
            + 1;
        let blank_before_x = format!("line {x_line}: blank line");
        let cases: Vec<(String, &str)> = vec![
            // Header order: hopsig-key, scheme, kind.
            (
                s.replacen(
                    "scheme: demo\nkind: public",
                    "kind: public\nscheme: demo",
                    1,
                ),
                "line 2: missing header 'scheme' before 'kind'",
            ),
            (
                s.replacen(
                    "hopsig-key: 1\nscheme: demo",
                    "hopsig-key: 1\nhopsig-key: 1",
                    1,
                ),
                "line 2: repeated header 'hopsig-key'",
            ),
            (
                s.replacen("kind: public\n", "", 1),
                "line 3: missing header 'kind'",
            ),
            (
                s.replacen("kind: public\n", "kind: public\nkind: public\n", 1),
                "line 4: repeated header 'kind'",
            ),
            // Exactly one space after the colon; values in their grammar.
            (
                s.replacen("scheme: demo", "scheme:demo", 1),
                "line 2: write the header as 'scheme: VALUE'",
            ),
            (
                s.replacen("scheme: demo", "scheme:  demo", 1),
                "line 2: scheme id ' demo' is not",
            ),
            (
                s.replacen("scheme: demo", "scheme: Demo", 1),
                "line 2: scheme id 'Demo' is not",
            ),
            (
                s.replacen("kind: public", "kind: public ", 1),
                "line 3: kind must be 'secret' or 'public', not 'public '",
            ),
            // No blank lines: in the headers, before, inside, between and after blocks.
            (
                s.replacen("scheme: demo\n", "scheme: demo\n\n", 1),
                "line 3: blank line",
            ),
            (
                s.replacen("kind: public\n", "kind: public\n\n", 1),
                "line 4: blank line",
            ),
            (
                s.replacen("-----BEGIN X-----\n", "\n-----BEGIN X-----\n", 1),
                &blank_before_x,
            ),
            (
                s.replacen("-----BEGIN X-----\n", "-----BEGIN X-----\n\n", 1),
                "invalid base64",
            ),
            (format!("{s}\n"), "blank line"),
            // Printable ASCII lines, each ending in LF.
            (
                s.replacen("scheme: demo", "scheme: de\u{1b}mo", 1),
                "line 2: byte 0x1b is not printable ASCII",
            ),
            (
                s.replacen("scheme: demo", "scheme: démo", 1),
                "line 2: byte 0xc3 is not printable ASCII",
            ),
            (
                s.replacen("scheme: demo", "scheme: de\rmo", 1),
                "line 2: byte 0x0d",
            ),
            (
                s.trim_end_matches('\n').to_string(),
                "does not end in a line feed",
            ),
            // Blocks: at least one, labels, base64 lines of 64 (the last 1..=64),
            // canonical base64, nothing between or after.
            (
                s[..s.find("-----BEGIN").unwrap_or(0)].to_string(),
                "no PEM block follows the headers",
            ),
            (
                s.replacen("BEGIN X-----", "BEGIN x-----", 1),
                "PEM label 'x' is not",
            ),
            (
                s.replacen(
                    "-----END PUBLIC KEY-----\n",
                    "-----END PUBLIC KEY-----\nnote\n",
                    1,
                ),
                "text after a PEM block",
            ),
            (
                s.replacen("-----END X-----\n", "-----END X-----\n-----END X-----\n", 1),
                "text after a PEM block",
            ),
            (
                KeyFile::render(
                    "demo",
                    KeyKind::Public,
                    &["-----BEGIN X-----\n-----END X-----\n"],
                )
                .to_string(),
                "invalid base64",
            ),
            (
                KeyFile::render(
                    "demo",
                    KeyKind::Public,
                    &["-----BEGIN X-----\nQR==\n-----END X-----\n"],
                )
                .to_string(),
                "not the canonical encoding",
            ),
            (
                KeyFile::render(
                    "demo",
                    KeyKind::Public,
                    &["-----BEGIN X-----\nQQ=A\n-----END X-----\n"],
                )
                .to_string(),
                "not the canonical encoding",
            ),
            (
                KeyFile::render(
                    "demo",
                    KeyKind::Public,
                    &[&format!(
                        "-----BEGIN X-----\n{}\n-----END X-----\n",
                        "A".repeat(68)
                    )],
                )
                .to_string(),
                "line 5: block X: invalid base64",
            ),
            (
                KeyFile::render(
                    "demo",
                    KeyKind::Public,
                    &[&format!(
                        "-----BEGIN X-----\nAAAA\n{}\n-----END X-----\n",
                        "A".repeat(64)
                    )],
                )
                .to_string(),
                "line 5: block X: only the last base64 line may be shorter",
            ),
            (
                s.replacen(
                    "-----BEGIN X-----\n",
                    "-----BEGIN X-----\n-----BEGIN Y-----\n",
                    1,
                ),
                "unexpected boundary inside block X",
            ),
        ];
        for (text, want) in cases {
            let got = error(&text);
            assert!(got.contains(want), "{want:?} not in {got:?}\n{text}");
        }
        // CR LF line ends are read like LF.
        let crlf = KeyFile::parse(s.replace('\n', "\r\n").as_bytes()).map(|f| f.blocks.len());
        assert_eq!(crlf, Ok(2));
    }

    #[test]
    fn plain_keys_in_pem_and_der() {
        // PrivateKeyInfo { INTEGER 0, SEQUENCE {}, OCTET STRING {} } and
        // SubjectPublicKeyInfo { SEQUENCE {}, BIT STRING {} }: the shapes, not keys.
        let der = [0x30, 0x07, 0x02, 0x01, 0x00, 0x30, 0x00, 0x04, 0x00];
        let spki = [0x30, 0x04, 0x30, 0x00, 0x03, 0x00];
        for (bytes, kind) in [
            (
                crate::rsa::pem_block("PRIVATE KEY", &der)
                    .as_bytes()
                    .to_vec(),
                KeyKind::Secret,
            ),
            (der.to_vec(), KeyKind::Secret),
            (
                crate::rsa::pem_block("PUBLIC KEY", &spki)
                    .as_bytes()
                    .to_vec(),
                KeyKind::Public,
            ),
            (spki.to_vec(), KeyKind::Public),
        ] {
            let key = PlainKey::parse(&bytes).map(|k| (k.kind, k.der.to_vec()));
            assert_eq!(key.as_ref().map(|k| k.0), Ok(kind));
            let file = match KeyInput::parse(&bytes) {
                Ok(KeyInput::Plain(p)) => Some(p.into_key_file("ecdsa-k163")),
                _ => None,
            };
            assert_eq!(
                file.as_ref()
                    .map(|f| (f.scheme.as_str(), f.kind, f.blocks.len())),
                Some(("ecdsa-k163", kind, 1))
            );
        }
        let err = |bytes: &[u8]| {
            PlainKey::parse(bytes)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(
            err(&[0x30, 0x07, 0x02, 0x01, 0x00, 0x30, 0x00, 0x04, 0x00, 0x00]).contains("neither")
        );
        // SEC 1 { INTEGER 1, OCTET STRING }, PKCS #1 (nine INTEGERs), an ECDSA signature.
        assert!(err(&[0x30, 0x05, 0x02, 0x01, 0x01, 0x04, 0x00]).contains("DER SEC 1 ECPrivateKey"));
        let mut pkcs1 = vec![0x30, 27];
        pkcs1.extend([0x02, 0x01, 0x00].repeat(9));
        assert!(err(&pkcs1).contains("DER PKCS #1 RSAPrivateKey: hopsig reads PKCS #8"));
        assert!(err(&[0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01]).contains("neither"));
        assert!(err(&[0x30, 0x81]).contains("neither"));
        assert!(err(b"text").contains("neither"));
        assert!(
            err(crate::rsa::pem_block("EC PRIVATE KEY", &der).as_bytes())
                .contains("EC PRIVATE KEY: hopsig reads")
        );
        let two = crate::rsa::pem_block("PRIVATE KEY", &der).repeat(2);
        assert!(err(two.as_bytes()).contains("PRIVATE KEY, PRIVATE KEY"));
        assert!(err(crate::rsa::pem_block("PRIVATE KEY", &spki).as_bytes())
            .contains("not a DER PKCS #8"));
        // The block grammar of key files applies.
        let padded = crate::rsa::pem_block("PUBLIC KEY", &spki).replace("-----\n", "-----\n\n");
        assert!(
            err(padded.as_bytes()).contains("invalid base64"),
            "{}",
            err(padded.as_bytes())
        );
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let mut input = b"hopsig-key: 1\n".to_vec();
            input.extend_from_slice(&bytes);
            let _ = KeyFile::parse(&input);
            let _ = KeyFile::parse(&bytes);
            let _ = KeyInput::parse(&bytes);
            let mut pem = b"-----BEGIN PUBLIC KEY-----\n".to_vec();
            pem.extend_from_slice(&bytes);
            let _ = KeyInput::parse(&pem);
        }
    }
}
