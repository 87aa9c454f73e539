//! NDN Names (NDN-packet-spec "Name"): components of any type in [1, 65535], the
//! 32-octet digest components, the NDN URI scheme both ways, and the canonical order.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use crate::tlv::{put_tlv, Reader, TlvError};
use crate::types;

/// One name component: a TLV-TYPE in [1, 65535] and any octets.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Component {
    typ: u16,
    value: Vec<u8>,
}

impl Component {
    /// A GenericNameComponent (type 8).
    pub fn generic(value: impl Into<Vec<u8>>) -> Component {
        Component {
            typ: types::GENERIC_COMPONENT as u16,
            value: value.into(),
        }
    }

    /// A component of type `typ`.
    ///
    /// # Errors
    /// Type 0, or a digest component (types 1, 2) whose value is not 32 octets.
    pub fn typed(typ: u16, value: impl Into<Vec<u8>>) -> Result<Component, TlvError> {
        let value = value.into();
        check(u32::from(typ), &value)?;
        Ok(Component { typ, value })
    }

    /// A ParametersSha256DigestComponent.
    pub fn params_digest(digest: [u8; 32]) -> Component {
        Component {
            typ: types::PARAMETERS_SHA256_DIGEST_COMPONENT as u16,
            value: digest.to_vec(),
        }
    }

    /// TLV-TYPE.
    pub fn typ(&self) -> u16 {
        self.typ
    }

    /// TLV-VALUE.
    pub fn value(&self) -> &[u8] {
        &self.value
    }

    /// Whether it is a ParametersSha256DigestComponent.
    pub fn is_params_digest(&self) -> bool {
        u32::from(self.typ) == types::PARAMETERS_SHA256_DIGEST_COMPONENT
    }

    /// Appends its TLV.
    pub fn encode(&self, out: &mut Vec<u8>) {
        put_tlv(out, u32::from(self.typ), &self.value);
    }

    /// Decodes one component TLV.
    ///
    /// # Errors
    /// A type outside [1, 65535] ("overrides the TLV evolvability guidelines"), or a
    /// digest component of another length than 32.
    pub fn decode(r: &mut Reader<'_>) -> Result<Component, TlvError> {
        let t = r.tlv("NameComponent")?;
        check(t.typ, t.value)?;
        Ok(Component {
            typ: t.typ as u16,
            value: t.value.to_vec(),
        })
    }
}

fn check(typ: u32, value: &[u8]) -> Result<(), TlvError> {
    if typ == 0 || typ > 0xffff {
        return Err(TlvError::BadType {
            what: "NameComponent",
            typ: u64::from(typ),
        });
    }
    let digest = typ == types::IMPLICIT_SHA256_DIGEST_COMPONENT
        || typ == types::PARAMETERS_SHA256_DIGEST_COMPONENT;
    if digest && value.len() != 32 {
        return Err(TlvError::Invalid {
            what: "NameComponent",
            reason: format!(
                "digest component (type {typ}) of {} octets, not 32",
                value.len()
            ),
        });
    }
    Ok(())
}

/// The canonical order of components: by type, then shorter first, then octets.
impl Ord for Component {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.typ, self.value.len(), &self.value).cmp(&(other.typ, other.value.len(), &other.value))
    }
}

impl PartialOrd for Component {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The alternate URI prefixes of the naming conventions' typed components (NDN Name
/// Component Assignment policy; ndn-cxx and python-ndn print them), whose values are
/// NonNegativeIntegers.
const CONVENTIONS: [(&str, u32); 5] = [
    ("seg", types::SEGMENT_COMPONENT),
    ("off", types::BYTE_OFFSET_COMPONENT),
    ("v", types::VERSION_COMPONENT),
    ("t", types::TIMESTAMP_COMPONENT),
    ("seq", types::SEQUENCE_NUM_COMPONENT),
];

fn convention(typ: u32) -> Option<&'static str> {
    CONVENTIONS.iter().find(|(_, t)| *t == typ).map(|(p, _)| *p)
}

/// `value` as a NonNegativeInteger in its shortest form.
fn nni(value: &[u8]) -> Option<u64> {
    crate::tlv::read_non_negative(value, "NameComponent").ok()
}

/// A URI-unreserved octet (RFC 3986 §2.3), left unescaped.
fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

impl fmt::Display for Component {
    /// The NDN URI form: `sha256digest=HEX`, `params-sha256=HEX`, the escaped value
    /// for a generic component, `TYPE=value` for others; a value of only periods
    /// gets three more.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match u32::from(self.typ) {
            types::IMPLICIT_SHA256_DIGEST_COMPONENT => {
                return write!(f, "sha256digest={}", hex::encode(&self.value))
            }
            types::PARAMETERS_SHA256_DIGEST_COMPONENT => {
                return write!(f, "params-sha256={}", hex::encode(&self.value))
            }
            types::GENERIC_COMPONENT => {}
            t => {
                if let Some((prefix, n)) = convention(t).zip(nni(&self.value)) {
                    return write!(f, "{prefix}={n}");
                }
                write!(f, "{t}=")?
            }
        }
        if self.value.iter().all(|&b| b == b'.') {
            f.write_str("...")?;
        }
        for &b in &self.value {
            if unreserved(b) {
                write!(f, "{}", b as char)?;
            } else {
                write!(f, "%{b:02X}")?;
            }
        }
        Ok(())
    }
}

/// Why a URI is not an NDN name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("NDN URI '{uri}': {reason}")]
pub struct UriError {
    uri: String,
    reason: String,
}

fn unescape(s: &str) -> Result<Vec<u8>, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b.get(i + 1..i + 3).ok_or("'%' without two hex digits")?;
            let text = std::str::from_utf8(hex).map_err(|_| "bad percent-escape")?;
            out.push(
                u8::from_str_radix(text, 16)
                    .map_err(|_| format!("bad percent-escape '%{text}'"))?,
            );
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

impl FromStr for Component {
    type Err = String;

    /// One component in URI form (without slashes).
    fn from_str(s: &str) -> Result<Component, String> {
        let digest = |prefix: &str, typ: u32| -> Option<Result<Component, String>> {
            let hex = s.strip_prefix(prefix)?;
            Some(
                hex::decode(hex)
                    .ok()
                    .filter(|v| v.len() == 32)
                    .map(|v| Component {
                        typ: typ as u16,
                        value: v,
                    })
                    .ok_or_else(|| format!("'{s}': {prefix} needs 64 hex digits")),
            )
        };
        if let Some(c) = digest("sha256digest=", types::IMPLICIT_SHA256_DIGEST_COMPONENT) {
            return c;
        }
        if let Some(c) = digest("params-sha256=", types::PARAMETERS_SHA256_DIGEST_COMPONENT) {
            return c;
        }
        let (typ, text) = match s.split_once('=') {
            Some((t, v)) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => {
                let typ: u16 = t
                    .parse()
                    .ok()
                    .filter(|&n| n != 0 && !t.starts_with('0'))
                    .ok_or_else(|| {
                        format!("'{s}': type '{t}' not in [1, 65535] without leading zeros")
                    })?;
                (typ, v)
            }
            Some((t, v)) if t.bytes().next().is_some_and(|b| b.is_ascii_alphabetic()) => {
                let (_, typ) = CONVENTIONS
                    .iter()
                    .find(|(p, _)| *p == t)
                    .ok_or_else(|| format!("'{s}': unknown alternate form '{t}='"))?;
                let n: u64 = v
                    .parse()
                    .ok()
                    .filter(|_| !v.starts_with('+'))
                    .ok_or_else(|| format!("'{s}': '{t}=' needs a decimal number"))?;
                return Ok(Component {
                    typ: *typ as u16,
                    value: crate::tlv::non_negative(n),
                });
            }
            _ => (types::GENERIC_COMPONENT as u16, s),
        };
        let mut value = unescape(text)?;
        if value.iter().all(|&b| b == b'.') {
            if value.len() < 3 {
                return Err(format!("'{s}': '.' and '..' are not components"));
            }
            value.truncate(value.len() - 3);
        }
        check(u32::from(typ), &value).map_err(|e| e.to_string())?;
        Ok(Component { typ, value })
    }
}

/// A Name: a sequence of components.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(pub Vec<Component>);

impl Name {
    /// The empty name `/`.
    pub fn root() -> Name {
        Name(vec![])
    }

    /// Its components.
    pub fn components(&self) -> &[Component] {
        &self.0
    }

    /// Number of components.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it has no component.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// This name with `c` appended.
    pub fn child(mut self, c: Component) -> Name {
        self.0.push(c);
        self
    }

    /// Whether `self` is a prefix of `other`.
    pub fn is_prefix_of(&self, other: &Name) -> bool {
        other.0.starts_with(&self.0)
    }

    /// The concatenated component TLVs (the Name's TLV-VALUE).
    pub fn value(&self) -> Vec<u8> {
        let mut out = vec![];
        for c in &self.0 {
            c.encode(&mut out);
        }
        out
    }

    /// Appends the Name TLV.
    pub fn encode(&self, out: &mut Vec<u8>) {
        put_tlv(out, types::NAME, &self.value());
    }

    /// The Name TLV.
    pub fn encoding(&self) -> Vec<u8> {
        let mut out = vec![];
        self.encode(&mut out);
        out
    }

    /// Decodes a Name's TLV-VALUE.
    ///
    /// # Errors
    /// As [`Component::decode`].
    pub fn decode_value(value: &[u8]) -> Result<Name, TlvError> {
        let mut r = Reader::new(value);
        let mut components = vec![];
        while !r.is_empty() {
            components.push(Component::decode(&mut r)?);
        }
        Ok(Name(components))
    }

    /// Decodes a whole Name TLV.
    ///
    /// # Errors
    /// Not a Name, trailing octets, or as [`Name::decode_value`].
    pub fn decode(input: &[u8]) -> Result<Name, TlvError> {
        Name::decode_value(crate::tlv::single(input, types::NAME, "Name")?.value)
    }
}

impl fmt::Display for Name {
    /// `/` and the components separated by `/` (no `ndn:` scheme).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("/");
        }
        for c in &self.0 {
            write!(f, "/{c}")?;
        }
        Ok(())
    }
}

impl FromStr for Name {
    type Err = UriError;

    /// `/a/b`, `ndn:/a/b`, `ndn://authority/a/b` (authority ignored); empty path
    /// segments (`//`) are skipped as ndn-cxx does; a query or fragment is refused.
    fn from_str(uri: &str) -> Result<Name, UriError> {
        let err = |reason: String| UriError {
            uri: uri.into(),
            reason,
        };
        let mut path = uri.strip_prefix("ndn:").unwrap_or(uri);
        if let Some(rest) = path.strip_prefix("//") {
            path = rest.find('/').map_or("", |i| &rest[i..]);
        }
        if path.contains(['?', '#']) {
            return Err(err("query and fragment are not part of an NDN name".into()));
        }
        if !path.is_empty() && !path.starts_with('/') {
            return Err(err("an NDN name starts with '/'".into()));
        }
        let components = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(Component::from_str)
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        Ok(Name(components))
    }
}
