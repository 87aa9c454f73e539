//! What a file holds, for every file hopsig writes or reads (`hopsig inspect`): key
//! files of every scheme (IBAS PKG, parameters and user keys, the `icnr-*` files of the
//! implicit certificates included), aggregates of every scheme, IBAS journals, HORS
//! counter files, plain PKCS #8 / SubjectPublicKeyInfo keys, and bare signatures of
//! the concatenation schemes.
//!
//! A file is recognised by how it starts, then read with the reader of its format, so a
//! description is given only for a file that reader accepts: `describe` fails exactly
//! where signing or verifying with the file would fail on its bytes.

use hopsig_primitives::armor::{ArmorError, KeyFile, KeyKind, PlainKey};
use hopsig_primitives::codec::to_hex;
use hopsig_primitives::hors::Counter;

use crate::ibas::{self, journal, IbasAggregate, Pkg, PublicParams, UserKey};
use crate::pla::files as icnr_files;
use crate::registry::{self, Kind, ALL_SCHEMES};
use crate::wire::{Header, SchemeCode, MAGIC};
use crate::{Aggregate, Error};

/// One value of a [`Description`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// Text (may hold anything a file holds: escape it before printing to a terminal).
    Text(String),
    /// A count or size.
    Number(u64),
    /// A yes / no.
    Flag(bool),
    /// A list of names.
    List(Vec<String>),
}

/// What a file holds: named values, `file` (what kind of file) first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description {
    /// The values, in the order they are best read.
    pub fields: Vec<(&'static str, Value)>,
}

impl Description {
    fn new(file: &str) -> Self {
        Description {
            fields: vec![("file", Value::Text(file.into()))],
        }
    }

    fn text(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.fields.push((name, Value::Text(value.into())));
        self
    }

    fn number(mut self, name: &'static str, value: usize) -> Self {
        self.fields.push((name, Value::Number(value as u64)));
        self
    }

    fn flag(mut self, name: &'static str, value: bool) -> Self {
        self.fields.push((name, Value::Flag(value)));
        self
    }

    fn list<'a>(mut self, name: &'static str, items: impl IntoIterator<Item = &'a str>) -> Self {
        self.fields.push((
            name,
            Value::List(items.into_iter().map(str::to_string).collect()),
        ));
        self
    }

    /// The value named `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.fields.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }
}

/// Says what `bytes` hold; see the [module docs](self).
///
/// # Errors
/// The error of the reader of the format the bytes start like: a malformed key file, an
/// unknown scheme, a key or aggregate that does not decode, a malformed journal or
/// counter line; [`Error::UnknownFile`] for bytes that start like no format.
pub fn describe(bytes: &[u8]) -> Result<Description, Error> {
    if KeyFile::sniff(bytes) {
        return key_file(&KeyFile::parse(bytes)?, bytes);
    }
    if journal::sniff(bytes) {
        let s = journal::summary(bytes)?;
        let key = s.key.map_or_else(
            || "not recorded yet (the header is incomplete: its creation was cut short)".into(),
            |k| to_hex(&k),
        );
        return Ok(Description::new("IBAS journal")
            .text("key", key)
            .number("states", s.states)
            .number("unknown_messages", s.unknown_messages)
            .flag("incomplete_last_line", s.incomplete_tail));
    }
    if Counter::sniff(bytes) {
        return Ok(Description::new("HORS counter").number(
            "signatures",
            usize::try_from(Counter::recorded(bytes)?).unwrap_or(usize::MAX),
        ));
    }
    match Header::peek(bytes) {
        Ok(header) => return aggregate(bytes, header),
        Err(e) if bytes.starts_with(&MAGIC) => return Err(e.into()),
        Err(_) => {}
    }
    match PlainKey::parse(bytes) {
        Ok(plain) => plain_key(&plain, bytes),
        Err(ArmorError::NotAKey) => bare_signature(bytes),
        Err(e) => Err(e.into()),
    }
}

/// A bare signature (no hopsig header), with the schemes that read it as an aggregate
/// of one signer (the concatenation schemes, `docs/spec/aggregate.md`).
fn bare_signature(bytes: &[u8]) -> Result<Description, Error> {
    let schemes: Vec<String> = registry::schemes()
        .iter()
        .filter(|s| s.inspect(bytes).is_ok())
        .map(|s| s.id().to_string())
        .collect();
    if schemes.is_empty() {
        return Err(Error::UnknownFile);
    }
    Ok(Description::new("bare signature")
        .number("bytes", bytes.len())
        .list("schemes", schemes.iter().map(String::as_str)))
}

fn labels(file: &KeyFile) -> impl Iterator<Item = &str> {
    file.blocks.iter().map(|b| b.label.as_str())
}

fn key_file(file: &KeyFile, bytes: &[u8]) -> Result<Description, Error> {
    if file.scheme == ibas::ID {
        return ibas_key(file);
    }
    if file.scheme.starts_with("icnr-") {
        let info = icnr_files::describe(file)?;
        let d = Description::new("key")
            .text("scheme", &file.scheme)
            .text("kind", file.kind.as_str())
            .text("role", info.role)
            .text("curve", info.curve.name());
        let d = match &info.identity {
            Some(id) => d.text("identity", identity(id)),
            None => d,
        };
        return Ok(d.list("blocks", labels(file)));
    }
    let scheme = registry::lookup(&file.scheme)?;
    match file.kind {
        KeyKind::Secret => scheme.signing_key_from_file(bytes).map(drop),
        KeyKind::Public => scheme.verifying_key_from_file(bytes).map(drop),
    }?;
    Ok(Description::new("key")
        .text("scheme", scheme.id())
        .text("kind", file.kind.as_str())
        .list("blocks", labels(file))
        .number("bytes", bytes.len()))
}

/// An identity as text: its UTF-8, or its bytes in hex if it is not UTF-8.
fn identity(id: &[u8]) -> String {
    std::str::from_utf8(id).map_or_else(|_| format!("0x{}", to_hex(id)), str::to_string)
}

fn ibas_key(file: &KeyFile) -> Result<Description, Error> {
    let has = |label: &str| labels(file).any(|l| l == label);
    let d = Description::new("key")
        .text("scheme", ibas::ID)
        .text("kind", file.kind.as_str());
    let d = if has("HOPSIG IBAS MASTER SECRET") {
        let pkg = Pkg::from_key_file(file)?;
        d.text("role", "pkg")
            .text("detail", to_hex(&pkg.params().fingerprint()))
    } else if has("HOPSIG IBAS USER KEY") {
        let key = UserKey::from_key_file(file)?;
        let fingerprint = to_hex(&key.params().fingerprint());
        d.text("role", "user key")
            .text(
                "detail",
                format!("{:?} under {fingerprint}", key.identity()),
            )
            .text("identity", key.identity())
            .text("journal", journal::file_name(&key))
    } else {
        let params = PublicParams::from_key_file(file)?;
        d.text("role", "parameters")
            .text("detail", to_hex(&params.fingerprint()))
    };
    Ok(d.list("blocks", labels(file)))
}

fn aggregate(bytes: &[u8], header: Header) -> Result<Description, Error> {
    let d = Description::new("aggregate");
    if header.code == SchemeCode::IbasBls12381 {
        let agg = IbasAggregate::from_bytes(bytes)?;
        return Ok(d
            .text("scheme", ibas::ID)
            .number("signers", agg.signers())
            .number("encoded_bytes", bytes.len())
            .number("signature_bits", agg.signature_bits() as usize)
            .text("w", to_hex(agg.w())));
    }
    let scheme = registry::for_aggregate(bytes)?;
    let info = scheme.inspect(bytes)?;
    Ok(d.text("scheme", info.scheme)
        .number("signers", info.signers)
        .number("encoded_bytes", info.encoded_bytes)
        .number("signature_bits", info.signature_bits as usize))
}

/// A plain key, with the schemes it is a key of (each scheme's own reader decides).
fn plain_key(plain: &PlainKey, bytes: &[u8]) -> Result<Description, Error> {
    let mut usable = Vec::new();
    for entry in &ALL_SCHEMES {
        let Kind::Sequential(_) = entry.kind else {
            continue;
        };
        if !entry.plain_keys.accepts(plain.kind) {
            continue;
        }
        let scheme = registry::lookup(entry.id)?;
        let read = match plain.kind {
            KeyKind::Secret => scheme.signing_key_from_file(bytes).map(drop),
            KeyKind::Public => scheme.verifying_key_from_file(bytes).map(drop),
        };
        if read.is_ok() {
            usable.push(entry.id);
        }
    }
    if usable.is_empty() {
        return Err(Error::Key(format!(
            "a plain {} key of none of the schemes whose keys are standard (RSA-2048, ECDSA P-256, K-163, K-233, K-283; RSA BGR public keys)",
            plain.kind.as_str()
        )));
    }
    Ok(Description::new("plain key")
        .text(
            "format",
            if bytes.starts_with(b"-----") {
                "PEM"
            } else {
                "DER"
            },
        )
        .text("kind", plain.kind.as_str())
        .list("schemes", usable))
}
