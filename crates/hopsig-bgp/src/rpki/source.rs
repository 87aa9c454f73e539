//! RPKI payload from files (docs/spec/rpki.md, "Sources"): rpki-client JSON
//! (`roas`, `bgpsec_keys`, `aspas`, or 8.x's `provider_authorizations`), Routinator
//! `json`/`jsonext` (`roas` and `routerKeys` with "AS123" strings, `aspas`), hopsig's
//! key folders, and SLURM (RFC 8416) files, each recognised by what it holds.
//!
//! JSON is read with typed serde structures, each entry checked as it is read, so that
//! an error names the file, the line and the column (serde_json's position), and a
//! table of 800 k VRPs is read without a DOM. Router key entries get the checks of
//! [`crate::router_key::rpki_json::checked_entry`], the one function every JSON list
//! of router keys goes through.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use rpki::resources::addr::{MaxLenPrefix, Prefix};
use rpki::resources::Asn;
use rpki::rtr::pdu::{ProviderAsns, RouterKeyInfo};
use rpki::slurm::{Base64KeyInfo, SlurmFile};
use serde::de::{self, Deserializer, IgnoredAny, Visitor};
use serde::Deserialize;

use super::payload::{Aspa, Limits, Payload, PayloadSet, RouteOrigin, RouterKey, TooMuch};
use super::view::{rtr_router_key, Merge};
use crate::router_key::folder::FolderError;
use crate::router_key::rpki_json::{checked_entry, EntryFault, KeyMember};

/// Largest source file read: 1 GiB (rpki-client's JSON of today's whole RPKI is about
/// 100 MB; [`Limits`] allow ten times today's payload).
pub const MAX_FILE_LEN: u64 = 1 << 30;

/// What [`load_all`] read: the payload of the JSON files and key folders, the SLURM
/// files (applied later, by [`super::view::View::build`]), and one report line per
/// source.
#[derive(Debug, Clone, Default)]
pub struct FileSources {
    /// The union of the JSON files' and key folders' payload.
    pub payload: PayloadSet,
    /// The SLURM files, in the order given.
    pub slurm: Vec<SlurmFile>,
    /// One line per source: its format, what it gave and what was left out.
    pub report: Vec<String>,
}

/// Why a source was refused; every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The file cannot be read, is not a regular file, or is larger than
    /// [`MAX_FILE_LEN`].
    #[error(transparent)]
    Read(#[from] hopsig_primitives::input::ReadError),
    /// A key folder with a file that cannot be used.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// The JSON does not parse, or an entry is wrong (serde_json's position).
    #[error("{}:{line}:{column}: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A JSON file that is none of the formats, or a SLURM entry that is wrong.
    #[error("{}: {problem}", path.display())]
    Content {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// The file, or the union of the sources up to it, goes over the limits.
    #[error("{}: {source}", path.display())]
    TooMuch {
        /// The file.
        path: PathBuf,
        /// Which limit.
        source: TooMuch,
    },
}

/// Reads every path, each recognised by what it holds: a folder is a hopsig key folder
/// ([`crate::router_key::from_dir`]); a file is JSON — SLURM if it has `slurmVersion`,
/// else rpki-client's or Routinator's output. Entries whose `expires` (Unix seconds) is
/// before `unix` are left out and counted in the report; certificates of a key folder
/// not valid at `unix` likewise.
///
/// # Errors
/// [`SourceError`] naming the first file that cannot be used.
pub fn load_all(paths: &[PathBuf], unix: i64, limits: &Limits) -> Result<FileSources, SourceError> {
    let mut all = FileSources::default();
    let mut merge = Merge::new(limits);
    for path in paths {
        let too_much = |source| SourceError::TooMuch {
            path: path.clone(),
            source,
        };
        let (set, slurm, line) = load(path, unix, limits)?;
        for item in set.iter() {
            merge.add(item).map_err(too_much)?;
        }
        all.slurm.extend(slurm);
        all.report.push(line);
    }
    all.payload = merge.finish().map_err(|source| SourceError::TooMuch {
        path: paths.last().cloned().unwrap_or_default(),
        source,
    })?;
    Ok(all)
}

/// One source: its payload (or SLURM file) and its report line.
fn load(
    path: &Path,
    unix: i64,
    limits: &Limits,
) -> Result<(PayloadSet, Option<SlurmFile>, String), SourceError> {
    let too_much = |source| SourceError::TooMuch {
        path: path.to_path_buf(),
        source,
    };
    if path.is_dir() {
        let report = crate::router_key::from_dir(path, unix)?;
        let mut set = PayloadSet::new();
        for k in report.keys.iter() {
            let Some(k) = rtr_router_key(k) else {
                return Err(SourceError::Content {
                    path: path.to_path_buf(),
                    problem: format!(
                        "the key of AS{} is longer than an RTR Router Key PDU carries",
                        k.asn()
                    ),
                });
            };
            set.insert(Payload::RouterKey(k), limits)
                .map_err(too_much)?;
        }
        return Ok((set, None, report.summary(path)));
    }
    let text = hopsig_primitives::input::read_limited(path, MAX_FILE_LEN, "RPKI source file")?;
    let json = |e: serde_json::Error| json_error(path, &e);
    let doc: Document = serde_json::from_slice(&text).map_err(json)?;
    if doc.slurm_version.is_some() {
        let slurm: SlurmFile = serde_json::from_slice(&text).map_err(json)?;
        check_slurm(&slurm).map_err(|problem| SourceError::Content {
            path: path.to_path_buf(),
            problem,
        })?;
        let line = slurm_summary(path, &slurm);
        return Ok((PayloadSet::new(), Some(slurm), line));
    }
    if !doc.any() {
        return Err(SourceError::Content {
            path: path.to_path_buf(),
            problem: "not an RPKI source: a JSON document with none of \"roas\", \
                      \"bgpsec_keys\", \"routerKeys\", \"aspas\", \"provider_authorizations\" \
                      or \"slurmVersion\""
                .into(),
        });
    }
    let format = if doc.router_keys.is_some() || doc.named_asns() {
        "Routinator JSON"
    } else {
        "rpki-client JSON"
    };
    let mut merge = Merge::new(limits);
    let mut expired = [0usize; 3];
    let mut keep = |item: Payload, expires: Option<i64>, kind: usize| -> Result<(), TooMuch> {
        if expires.is_some_and(|t| t < unix) {
            expired[kind] += 1;
            Ok(())
        } else {
            merge.add(item)
        }
    };
    for r in doc.roas.into_iter().flatten() {
        keep(Payload::Origin(r.origin), r.expires, 0).map_err(too_much)?;
    }
    let keys = doc.bgpsec_keys.into_iter().flatten();
    for k in keys.chain(doc.router_keys.into_iter().flatten()) {
        keep(Payload::RouterKey(k.key), k.expires, 1).map_err(too_much)?;
    }
    let pa = doc.provider_authorizations.unwrap_or_default();
    let aspas = doc.aspas.into_iter().flatten();
    for a in aspas.chain(
        pa.ipv4
            .into_iter()
            .flatten()
            .chain(pa.ipv6.into_iter().flatten()),
    ) {
        keep(Payload::Aspa(a.aspa), a.expires, 2).map_err(too_much)?;
    }
    let set = merge.finish().map_err(too_much)?;
    let (vrps, keys, aspas) = set.counts();
    let line = format!(
        "rpki: {}: {format}: {vrps} VRPs, {keys} router keys, {aspas} ASPAs; left out as \
         expired: {} VRPs, {} router keys, {} ASPAs",
        path.display(),
        expired[0],
        expired[1],
        expired[2]
    );
    Ok((set, None, line))
}

/// serde_json's error as a [`SourceError::Json`]: the message without serde_json's
/// " at line L column C", which the error gives as fields.
fn json_error(path: &Path, e: &serde_json::Error) -> SourceError {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    SourceError::Json {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: text.strip_suffix(&suffix).unwrap_or(&text).to_string(),
    }
}

/// The checks the `rpki` crate's SLURM parser leaves out: a BGPsec assertion's SKI must
/// be the SKI of its key (RFC 8209 §3.1.1), as for every other router key hopsig reads.
fn check_slurm(slurm: &SlurmFile) -> Result<(), String> {
    for (i, a) in slurm.assertions.bgpsec.iter().enumerate() {
        let ski = hex::encode(a.ski.as_slice());
        checked_entry(&ski, Some(&a.router_public_key), "routerPublicKey").map_err(|f| {
            let member = match f.member {
                KeyMember::Ski => "SKI",
                KeyMember::Key => "routerPublicKey",
            };
            format!(
                "locallyAddedAssertions.bgpsecAssertions[{i}].{member}: {} (RFC 8416 §3.4.2)",
                f.problem
            )
        })?;
    }
    Ok(())
}

fn slurm_summary(path: &Path, s: &SlurmFile) -> String {
    let (f, a) = (&s.filters, &s.assertions);
    format!(
        "slurm: {}: filters: {} prefix, {} BGPsec, {} ASPA; assertions: {} prefix, {} BGPsec, \
         {} ASPA (RFC 8416)",
        path.display(),
        f.prefix.len(),
        f.bgpsec.len(),
        f.aspa.as_ref().map_or(0, Vec::len),
        a.prefix.len(),
        a.bgpsec.len(),
        a.aspa.as_ref().map_or(0, Vec::len),
    )
}

/// A JSON source as read: the members hopsig knows, others ignored (`metadata`, and
/// the SLURM members, which [`SlurmFile`] reads when `slurmVersion` is there).
#[derive(Deserialize)]
struct Document {
    #[serde(rename = "slurmVersion")]
    slurm_version: Option<IgnoredAny>,
    roas: Option<Vec<Roa>>,
    bgpsec_keys: Option<Vec<ClientKey>>,
    #[serde(rename = "routerKeys")]
    router_keys: Option<Vec<ClientKey>>,
    aspas: Option<Vec<AspaEntry>>,
    provider_authorizations: Option<ProviderAuthorizations>,
}

impl Document {
    fn any(&self) -> bool {
        self.roas.is_some()
            || self.bgpsec_keys.is_some()
            || self.router_keys.is_some()
            || self.aspas.is_some()
            || self.provider_authorizations.is_some()
    }

    /// Whether the ASNs are "AS123" strings, as Routinator writes them.
    fn named_asns(&self) -> bool {
        self.roas.iter().flatten().any(|r| r.named) || self.aspas.iter().flatten().any(|a| a.named)
    }
}

/// rpki-client 8.x's ASPAs, one list per address family (united per customer: the
/// U-SPAS covers both families, draft-ietf-sidrops-aspa-verification-28 §7.1).
#[derive(Deserialize, Default)]
struct ProviderAuthorizations {
    ipv4: Option<Vec<AspaEntry>>,
    ipv6: Option<Vec<AspaEntry>>,
}

/// An AS number as rpki-client writes it (a number) or Routinator (`"AS123"`).
#[derive(Clone, Copy)]
struct JsonAsn {
    asn: u32,
    named: bool,
}

impl<'de> Deserialize<'de> for JsonAsn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<JsonAsn, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = JsonAsn;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an AS number from 0 to 4294967295, or \"AS\" and one")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<JsonAsn, E> {
                let asn =
                    u32::try_from(v).map_err(|_| E::custom(format!("AS{v} above 4294967295")))?;
                Ok(JsonAsn { asn, named: false })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<JsonAsn, E> {
                Err(E::custom(format!("negative AS number {v}")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<JsonAsn, E> {
                let digits = v.strip_prefix("AS").unwrap_or(v);
                let asn = digits
                    .parse::<u32>()
                    .ok()
                    .filter(|_| !digits.starts_with('+'))
                    .ok_or_else(|| E::custom(format!("{v:?} is not an AS number (\"AS123\")")))?;
                Ok(JsonAsn { asn, named: true })
            }
        }
        d.deserialize_any(V)
    }
}

/// A `roas` entry: `asn`, `prefix` (no host bits), `maxLength` (the prefix length if
/// absent), `expires`.
#[derive(Deserialize)]
#[serde(try_from = "RawRoa")]
struct Roa {
    origin: RouteOrigin,
    expires: Option<i64>,
    named: bool,
}

#[derive(Deserialize)]
struct RawRoa {
    asn: JsonAsn,
    prefix: String,
    #[serde(rename = "maxLength")]
    max_length: Option<u8>,
    expires: Option<i64>,
}

impl TryFrom<RawRoa> for Roa {
    type Error = String;

    fn try_from(r: RawRoa) -> Result<Roa, String> {
        let prefix = Prefix::from_str(&r.prefix)
            .map_err(|e| format!("roas entry: prefix {:?}: {e}", r.prefix))?;
        let prefix = MaxLenPrefix::new(prefix, r.max_length).map_err(|e| {
            format!(
                "roas entry: maxLength {} of {}: {e}",
                r.max_length.unwrap_or_default(),
                r.prefix
            )
        })?;
        Ok(Roa {
            origin: RouteOrigin::new(prefix, Asn::from_u32(r.asn.asn)),
            expires: r.expires,
            named: r.asn.named,
        })
    }
}

/// A router key entry: rpki-client's `bgpsec_keys` (`asn`, `ski` in hex, `pubkey` in
/// base64, `expires`) or Routinator's `routerKeys` (`asn` as "AS123", `SKI` in hex,
/// `routerPublicKey` in unpadded URL-safe base64, RFC 8416 §3.4.2's encoding).
#[derive(Deserialize)]
#[serde(try_from = "RawKey")]
struct ClientKey {
    key: RouterKey,
    expires: Option<i64>,
}

#[derive(Deserialize)]
struct RawKey {
    asn: JsonAsn,
    #[serde(alias = "SKI")]
    ski: String,
    pubkey: Option<String>,
    #[serde(rename = "routerPublicKey")]
    router_public_key: Option<String>,
    expires: Option<i64>,
}

impl TryFrom<RawKey> for ClientKey {
    type Error = String;

    fn try_from(k: RawKey) -> Result<ClientKey, String> {
        let (name, spki) = match (&k.pubkey, &k.router_public_key) {
            (Some(b64), None) => ("pubkey", openssl::base64::decode_block(b64).ok()),
            (None, Some(b64)) => (
                "routerPublicKey",
                Base64KeyInfo::from_str(b64).ok().map(|k| k.to_vec()),
            ),
            _ => {
                return Err(
                    "router key entry: needs one of \"pubkey\" (rpki-client) and \
                            \"routerPublicKey\" (Routinator)"
                        .into(),
                )
            }
        };
        let ski = checked_entry(&k.ski, spki.as_deref(), name).map_err(
            |EntryFault { member, problem }| {
                let member = match (member, name) {
                    (KeyMember::Key, _) => name,
                    (KeyMember::Ski, "pubkey") => "ski",
                    (KeyMember::Ski, _) => "SKI",
                };
                format!("router key entry of AS{}: {member}: {problem}", k.asn.asn)
            },
        )?;
        let info = RouterKeyInfo::try_from(spki.unwrap_or_default()).map_err(|_| {
            format!(
                "router key entry of AS{}: {name}: longer than an RTR Router Key PDU carries",
                k.asn.asn
            )
        })?;
        Ok(ClientKey {
            key: RouterKey::new(ski.into(), Asn::from_u32(k.asn.asn), info),
            expires: k.expires,
        })
    }
}

/// An ASPA entry: rpki-client's (`customer_asid`, `providers` as numbers, `expires`) or
/// Routinator's (`customer`, `providers` as "AS123" strings).
#[derive(Deserialize)]
#[serde(try_from = "RawAspa")]
struct AspaEntry {
    aspa: Aspa,
    expires: Option<i64>,
    named: bool,
}

#[derive(Deserialize)]
struct RawAspa {
    #[serde(alias = "customer_asid")]
    customer: JsonAsn,
    providers: Vec<JsonAsn>,
    expires: Option<i64>,
}

impl TryFrom<RawAspa> for AspaEntry {
    type Error = String;

    fn try_from(a: RawAspa) -> Result<AspaEntry, String> {
        let customer = a.customer.asn;
        if a.providers.is_empty() {
            return Err(format!(
                "ASPA entry of AS{customer}: no provider (an ASPA names at least one, \
                 draft-ietf-sidrops-aspa-profile §3)"
            ));
        }
        let providers = ProviderAsns::try_from_iter(
            a.providers.iter().map(|p| Asn::from_u32(p.asn)),
        )
        .map_err(|_| {
            format!(
                "ASPA entry of AS{customer}: more than {} providers (RTR's limit)",
                ProviderAsns::MAX_COUNT
            )
        })?;
        Ok(AspaEntry {
            aspa: Aspa::new(Asn::from_u32(customer), providers),
            expires: a.expires,
            named: a.customer.named,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// A real router key of AS 15562 from rpki-client's json(5) example (as in
    /// `router_key::rpki_json`'s tests).
    const SKI: &str = "5D4250E2D81D4448D8A29EFCE91D29FF075EC9E2";
    const PUBKEY: &str = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEgFcjQ/g//LAQerAH2Mpp+GucoDAGBbhIqD33wNPsXxnAGb+mtZ7XQrVO9DQ6UlAShtig5+QfEKpTtFgiqfiAFQ==";

    /// The key in SLURM's (and Routinator's) base64: URL-safe, unpadded.
    fn url_safe(b64: &str) -> String {
        b64.replace('+', "-").replace('/', "_").replace('=', "")
    }

    fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn load_one(text: &str) -> Result<FileSources, SourceError> {
        let dir = tempfile::tempdir().unwrap();
        let path = write(&dir, "src.json", text);
        load_all(&[path], 1_000, &Limits::default())
    }

    /// The error's text with the temporary path replaced by "FILE".
    fn error(text: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = write(&dir, "src.json", text);
        let e = load_all(std::slice::from_ref(&path), 1_000, &Limits::default()).unwrap_err();
        e.to_string().replace(&path.display().to_string(), "FILE")
    }

    #[test]
    fn rpki_client_json_with_roas_keys_and_aspas() {
        let text = format!(
            r#"{{
  "metadata": {{ "buildtime": "2026-11-26T00:00:00Z" }},
  "roas": [
    {{ "asn": 13335, "prefix": "1.0.0.0/24", "maxLength": 24, "ta": "apnic", "expires": 2000 }},
    {{ "asn": 13335, "prefix": "2606:4700::/32", "maxLength": 48, "ta": "arin", "expires": 2000 }},
    {{ "asn": 64496, "prefix": "192.0.2.0/24", "maxLength": 24, "ta": "ripe", "expires": 999 }}
  ],
  "bgpsec_keys": [
    {{ "asn": 15562, "ski": "{SKI}", "pubkey": "{PUBKEY}", "ta": "ripe", "expires": 1000 }}
  ],
  "aspas": [
    {{ "customer_asid": 15562, "expires": 2000, "providers": [ 2914, 8283 ] }},
    {{ "customer_asid": 64496, "expires": 1, "providers": [ 1 ] }}
  ]
}}"#
        );
        let got = load_one(&text).unwrap();
        assert_eq!(got.payload.counts(), (2, 1, 1));
        assert!(got.slurm.is_empty());
        assert_eq!(got.report.len(), 1);
        assert!(
            got.report[0].ends_with(
                "rpki-client JSON: 2 VRPs, 1 router keys, 1 ASPAs; left out as expired: 1 VRPs, \
                 0 router keys, 1 ASPAs"
            ),
            "{}",
            got.report[0]
        );
        let aspa = got.payload.aspas().next().unwrap();
        assert_eq!(aspa.customer.into_u32(), 15_562);
        let providers: Vec<u32> = aspa.providers.iter().map(Asn::into_u32).collect();
        assert_eq!(providers, [2914, 8283]);
        let key = got.payload.router_keys().next().unwrap();
        assert_eq!(key.asn.into_u32(), 15_562);
        assert_eq!(hex::encode_upper(key.key_identifier.as_slice()), SKI);
    }

    #[test]
    fn rpki_client_8_provider_authorizations_unite_both_families() {
        let text = r#"{ "roas": [],
          "provider_authorizations": {
            "ipv4": [ { "customer_asid": 1, "providers": [2, 3], "expires": 5000 } ],
            "ipv6": [ { "customer_asid": 1, "providers": [4], "expires": 5000 } ] } }"#;
        let got = load_one(text).unwrap();
        let aspa = got.payload.aspas().next().unwrap();
        let providers: Vec<u32> = aspa.providers.iter().map(Asn::into_u32).collect();
        assert_eq!(providers, [2, 3, 4]);
    }

    #[test]
    fn routinator_jsonext_with_router_keys() {
        let text = format!(
            r#"{{
  "metadata": {{ "generated": 1700000000, "generatedTime": "2023-11-14T22:13:20Z" }},
  "roas": [
    {{ "asn": "AS196615", "prefix": "93.175.147.0/24", "maxLength": 24, "source": [
      {{ "type": "roa", "uri": "rsync://x/a.roa", "tal": "ripe", "validity": {{ "notBefore": "2023-01-01T00:00:00Z", "notAfter": "2024-01-01T00:00:00Z" }} }} ] }}
  ],
  "routerKeys": [
    {{ "asn": "AS15562", "SKI": "{}", "routerPublicKey": "{}", "source": [] }}
  ],
  "aspas": [
    {{ "customer": "AS64496", "providers": ["AS64497", "AS64498"], "source": [] }}
  ]
}}"#,
            SKI.to_ascii_lowercase(),
            url_safe(PUBKEY)
        );
        let got = load_one(&text).unwrap();
        assert_eq!(got.payload.counts(), (1, 1, 1));
        assert!(got.report[0].contains(": Routinator JSON: 1 VRPs, 1 router keys, 1 ASPAs"));
        let key = got.payload.router_keys().next().unwrap();
        assert_eq!(
            key.key_info.as_slice(),
            openssl::base64::decode_block(PUBKEY).unwrap()
        );
    }

    #[test]
    fn slurm_files_are_kept_for_the_view_and_their_keys_checked() {
        let slurm = format!(
            r#"{{
  "slurmVersion": 1,
  "validationOutputFilters": {{
    "prefixFilters": [ {{ "prefix": "192.0.2.0/24", "comment": "all VRPs in 192.0.2.0/24" }} ],
    "bgpsecFilters": [ {{ "asn": 64496 }} ]
  }},
  "locallyAddedAssertions": {{
    "prefixAssertions": [ {{ "asn": 64496, "prefix": "198.51.100.0/24", "maxPrefixLength": 24 }} ],
    "bgpsecAssertions": [ {{ "asn": 15562, "SKI": "{}", "routerPublicKey": "{}" }} ]
  }}
}}"#,
            url_safe(&openssl::base64::encode_block(&hex::decode(SKI).unwrap())),
            url_safe(PUBKEY)
        );
        let got = load_one(&slurm).unwrap();
        assert!(got.payload.is_empty());
        assert_eq!(got.slurm.len(), 1);
        assert!(got.report[0].ends_with(
            "filters: 1 prefix, 1 BGPsec, 0 ASPA; assertions: 1 prefix, 1 BGPsec, 0 ASPA (RFC 8416)"
        ));
        let wrong = slurm.replace(
            &url_safe(&openssl::base64::encode_block(&hex::decode(SKI).unwrap())),
            &url_safe(&openssl::base64::encode_block(&[0u8; 20])),
        );
        assert_eq!(
            error(&wrong),
            "FILE: locallyAddedAssertions.bgpsecAssertions[0].SKI: is not the SKI of \
             routerPublicKey (RFC 8209 §3.1.1) (RFC 8416 §3.4.2)"
        );
        // The rpki crate's own checks, with serde_json's position.
        let unknown = slurm.replace("\"prefixFilters\"", "\"prefixFilter\"");
        assert!(
            error(&unknown).starts_with("FILE:4:18: unknown field `prefixFilter`"),
            "{}",
            error(&unknown)
        );
    }

    #[test]
    fn a_key_folder_is_read_with_router_key_from_dir() {
        let dir = tempfile::tempdir().unwrap();
        let pem = format!("-----BEGIN PUBLIC KEY-----\n{PUBKEY}\n-----END PUBLIC KEY-----\n");
        write(&dir, "AS15562.pem", &pem);
        let got = load_all(&[dir.path().to_path_buf()], 0, &Limits::default()).unwrap();
        assert_eq!(got.payload.counts(), (0, 1, 0));
        assert!(
            got.report[0].contains("1 (AS, SKI, key) triples"),
            "{}",
            got.report[0]
        );
    }

    #[test]
    fn errors_name_the_file_line_and_column() {
        let cases = [
            ("{ \"roas\": [ }", "FILE:1:13: expected value"),
            ("", "FILE:1:0: EOF while parsing a value"),
            (
                "{ \"metadata\": {} }",
                "FILE: not an RPKI source: a JSON document with none of \"roas\", \"bgpsec_keys\", \
                 \"routerKeys\", \"aspas\", \"provider_authorizations\" or \"slurmVersion\"",
            ),
            (
                "{ \"roas\": [\n { \"asn\": 1, \"prefix\": \"10.0.0.1/8\", \"maxLength\": 8 } ] }",
                "FILE:2:55: roas entry: prefix \"10.0.0.1/8\": non-zero host portion",
            ),
            (
                "{ \"roas\": [\n { \"asn\": 1, \"prefix\": \"10.0.0.0/16\", \"maxLength\": 8 } ] }",
                "FILE:2:56: roas entry: maxLength 8 of 10.0.0.0/16: max-length smaller than prefix length",
            ),
            (
                "{ \"roas\": [ { \"asn\": \"ASx\", \"prefix\": \"10.0.0.0/8\" } ] }",
                "FILE:1:26: \"ASx\" is not an AS number (\"AS123\")",
            ),
            (
                "{ \"roas\": [ { \"asn\": 4294967296, \"prefix\": \"10.0.0.0/8\" } ] }",
                "FILE:1:31: AS4294967296 above 4294967295",
            ),
            (
                "{ \"aspas\": [ { \"customer_asid\": 1, \"providers\": [] } ] }",
                "FILE:1:54: ASPA entry of AS1: no provider (an ASPA names at least one, \
                 draft-ietf-sidrops-aspa-profile §3)",
            ),
            (
                "{ \"bgpsec_keys\": [ { \"asn\": 1, \"ski\": \"AB\", \"pubkey\": \"AAAA\" } ] }",
                "FILE:1:64: router key entry of AS1: ski: not 40 hexadecimal digits",
            ),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter(|(text, want)| error(text) != *want)
            .map(|(text, want)| format!("{text}\n  got  {}\n  want {want}", error(text)))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        let other_ski = format!(
            "{{ \"bgpsec_keys\": [ {{ \"asn\": 1, \"ski\": \"{}\", \"pubkey\": \"{PUBKEY}\" }} ] }}",
            "00".repeat(20)
        );
        assert!(error(&other_ski)
            .ends_with("router key entry of AS1: ski: is not the SKI of pubkey (RFC 8209 §3.1.1)"));
        let missing = load_all(
            &[PathBuf::from("/nonexistent/rpki.json")],
            0,
            &Limits::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(missing.starts_with("/nonexistent/rpki.json: "), "{missing}");
    }

    #[test]
    fn a_source_over_the_limits_is_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = write(
            &dir,
            "a.json",
            r#"{ "roas": [ { "asn": 1, "prefix": "10.0.0.0/8", "maxLength": 8 } ] }"#,
        );
        let b = write(
            &dir,
            "b.json",
            r#"{ "roas": [ { "asn": 2, "prefix": "10.0.0.0/8", "maxLength": 8 } ] }"#,
        );
        let limits = Limits {
            vrps: 1,
            ..Limits::default()
        };
        assert_eq!(
            load_all(std::slice::from_ref(&a), 0, &limits)
                .unwrap()
                .payload
                .counts(),
            (1, 0, 0)
        );
        let e = load_all(&[a, b.clone()], 0, &limits).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}: more than 1 VRPs (limit; see docs/spec/rpki.md, \"Limits\")",
                b.display()
            )
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]
        /// Untrusted input never panics: a valid document with bytes overwritten, cut
        /// short, or random bytes, is read or refused with an error naming the file.
        #[test]
        fn damaged_sources_are_refused_without_panic(
            edits in proptest::collection::vec((0usize..400, proptest::prelude::any::<u8>()), 0..6),
            cut in 0usize..400,
            random in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
        ) {
            let doc = format!(
                r#"{{ "roas": [ {{ "asn": 1, "prefix": "10.0.0.0/8", "maxLength": 24, "expires": 5 }} ],
                  "bgpsec_keys": [ {{ "asn": 15562, "ski": "{SKI}", "pubkey": "{PUBKEY}" }} ],
                  "aspas": [ {{ "customer_asid": 1, "providers": [2, 3] }} ],
                  "routerKeys": [], "slurmVersion": 1 }}"#
            );
            let mut bytes = doc.into_bytes();
            for (at, b) in edits {
                let n = bytes.len();
                bytes[at % n] = b;
            }
            bytes.truncate(cut.max(1).min(bytes.len()));
            let dir = tempfile::tempdir().unwrap();
            for text in [&bytes, &random] {
                let path = dir.path().join("x.json");
                std::fs::write(&path, text).unwrap();
                if let Err(e) = load_all(std::slice::from_ref(&path), 0, &Limits::default()) {
                    proptest::prop_assert!(e.to_string().starts_with(&path.display().to_string()));
                }
            }
        }
    }
}
