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
                "roas entry {}: maxLength {}: {e}",
                r.prefix,
                r.max_length.unwrap_or_default()
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
