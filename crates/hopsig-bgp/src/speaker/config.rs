//! The speaker's TOML configuration (docs/spec/speaker.md, "Configuration").

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::packet::Prefix;
use crate::rpki::aspa::Relation;
use crate::rpki::rtr::CacheConfig;
use crate::rpki::Limits;
use crate::speaker::rib::filter::PrefixList;

/// Largest configuration file a caller should read (1 MiB).
pub const MAX_CONFIG_LEN: u64 = 1 << 20;

/// Why a configuration was refused. The caller adds the file's name.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Not TOML, an unknown field, a field missing or of the wrong type.
    #[error(transparent)]
    Toml(#[from] toml::de::Error),
    /// A value out of its range, or a bad prefix.
    #[error("{0}")]
    Invalid(String),
}

/// When validation happens (issue 13 §2; RFC 8205 §5 lets it happen later).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Validate, then install, sign and forward.
    Strict,
    /// Install, sign and forward at once; validate in the worker pool and withdraw
    /// what turns out Not Valid (BGR §1).
    Lazy,
}

impl Mode {
    /// The name used in the configuration and the status file.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Strict => "strict",
            Mode::Lazy => "lazy",
        }
    }
}

/// One of the router's secret keys.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouterKeyFile {
    /// Algorithm suite: name or number, as `hopsig bgpsec keygen --suite`.
    pub suite: String,
    /// The secret key file `hopsig bgpsec keygen` wrote.
    pub file: PathBuf,
}

/// An MRT file whose prefixes this router originates (see [`super::originate`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OriginateMrt {
    /// RIS / RouteViews update file or RIB dump, plain or gzip / bzip2 / xz / zstd.
    pub file: PathBuf,
    /// Only the routes the collector learnt from this peer AS.
    pub peer_as: Option<u32>,
    /// At most this many prefixes, the first in the file.
    pub limit: Option<usize>,
}

/// A BGP neighbour.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Neighbor {
    /// The neighbour's address: where an active session connects, and the source
    /// address a passive session accepts.
    pub address: IpAddr,
    /// The neighbour's TCP port (active sessions).
    #[serde(default = "bgp_port")]
    pub port: u16,
    /// The local address an active session binds to.
    pub local_address: Option<IpAddr>,
    /// The AS the neighbour must announce in its OPEN.
    pub remote_as: u32,
    /// Wait for the neighbour to connect instead of connecting.
    #[serde(default)]
    pub passive: bool,
    /// Announce the BGPsec capability (send and receive, IPv4; RFC 8205 §2).
    #[serde(default)]
    pub bgpsec: bool,
    /// Suites to sign with toward this neighbour [default: every router key].
    pub suites: Option<Vec<String>>,
    /// The neighbour's role toward this router, for ASPA verification
    /// (draft-ietf-sidrops-aspa-verification §6): `customer`, `peer`, `provider`,
    /// `rs` or `rs-client` [default: none, so every route's ASPA verdict is
    /// Unknown].
    #[serde(default, deserialize_with = "relation")]
    pub role: Option<Relation>,
    /// Routes whose route origin validation is Invalid (RFC 6811 §2) are not used.
    #[serde(default)]
    pub reject_rov_invalid: bool,
    /// Routes whose ASPA verification is Invalid are not used.
    #[serde(default)]
    pub reject_aspa_invalid: bool,
    /// Only BGPsec 'Valid' routes are used: unsigned ones never, pending ones (lazy
    /// mode) not before their answer.
    #[serde(default)]
    pub require_bgpsec_valid: bool,
    /// Unicast families exchanged, `["ipv4", "ipv6"]` (RFC 4760) [default: the
    /// family of `address`; see [`super::family`]].
    #[serde(default, deserialize_with = "super::family::deserialize_families")]
    pub families: Option<super::family::Families>,
    /// The IPv6 next hop of routes sent to this neighbour (RFC 2545 §3) [default:
    /// the configuration's `next_hop6`, else the session's local IPv6 address].
    pub next_hop6: Option<super::family::NextHop6>,
    /// Announce the Extended Message capability (RFC 8654): messages up to 65,535
    /// octets with a neighbour that announces it too [default true].
    #[serde(default = "yes")]
    pub extended_messages: bool,
    /// Announce Route Refresh (RFC 2918) [default true].
    #[serde(default = "yes")]
    pub route_refresh: bool,
    /// Announce Enhanced Route Refresh (RFC 7313) [default true; only with
    /// `route_refresh`].
    #[serde(default = "yes")]
    pub enhanced_route_refresh: bool,
    /// Graceful Restart helper (RFC 4724): announce the capability with this Restart
    /// Time, seconds (at most 4095), and keep a restarting neighbour's routes
    /// [default: not announced].
    pub graceful_restart: Option<u16>,
    /// Import filter: an ordered prefix list, `["permit 10.0.0.0/8 le 24", …]`
    /// ([`PrefixList`]); a route it denies is kept in Adj-RIB-In, marked filtered,
    /// and not used [default: everything passes].
    #[serde(default)]
    pub import: PrefixList,
    /// Export filter: a route it denies is never sent to the neighbour [default:
    /// everything passes].
    #[serde(default)]
    pub export: PrefixList,
    /// Most prefixes accepted from the neighbour (past the import filter); one more
    /// ends the session with a NOTIFICATION Cease, Maximum Number of Prefixes Reached
    /// (RFC 4486 §4) [default: no limit].
    pub max_prefixes: Option<u32>,
    /// Percentage of `max_prefixes` at which a warning is logged [default: none].
    pub max_prefixes_warning: Option<u8>,
    /// Seconds after a max-prefix Cease before the session starts again [default:
    /// not before the speaker restarts].
    pub max_prefixes_restart: Option<u64>,
    /// LOCAL_PREF given to the neighbour's routes on import: the degree of
    /// preference of RFC 4271 §9.1.1, higher preferred [default 100].
    #[serde(default = "local_pref")]
    pub local_pref: u32,
    /// MULTI_EXIT_DISC sent with every route to this neighbour (RFC 4271 §5.1.4)
    /// [default: none sent].
    pub med: Option<u32>,
    /// Communities (RFC 1997) added to the neighbour's routes on import: `"AS:VALUE"`
    /// or `no-export`, `no-advertise`, `no-export-subconfed` [default: none].
    #[serde(default, deserialize_with = "communities")]
    pub add_communities: Vec<u32>,
}

/// `true`, for serde defaults.
fn yes() -> bool {
    true
}

/// The default LOCAL_PREF (as gobgpd, BIRD and most routers have it).
fn local_pref() -> u32 {
    100
}

/// Community names, each by [`community`], so that a bad one is a TOML error with
/// its line.
fn communities<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u32>, D::Error> {
    let names = Vec::<String>::deserialize(d)?;
    names
        .iter()
        .map(|n| community(n))
        .collect::<Result<_, _>>()
        .map_err(serde::de::Error::custom)
}

/// A community (RFC 1997 §"COMMUNITIES attribute"): `AS:VALUE`, two 16-bit numbers,
/// or a well-known one by name: `no-export` (0xFFFFFF01), `no-advertise`
/// (0xFFFFFF02), `no-export-subconfed` (0xFFFFFF03).
///
/// # Errors
/// Why `s` is none of these.
pub fn community(s: &str) -> Result<u32, String> {
    match s {
        "no-export" => return Ok(0xFFFF_FF01),
        "no-advertise" => return Ok(0xFFFF_FF02),
        "no-export-subconfed" => return Ok(0xFFFF_FF03),
        _ => {}
    }
    let bad = || {
        format!("community '{s}': not AS:VALUE (two numbers 0 to 65535) nor no-export, no-advertise, no-export-subconfed")
    };
    let (asn, value) = s.split_once(':').ok_or_else(bad)?;
    let asn: u16 = asn.parse().map_err(|_| bad())?;
    let value: u16 = value.parse().map_err(|_| bad())?;
    Ok(u32::from(asn) << 16 | u32::from(value))
}

impl Neighbor {
    /// The max-prefix settings make sense: a limit of at least 1, a warning
    /// percentage of 1 to 100, a restart of at least 1 s, the last two only with a
    /// limit.
    fn check_max_prefixes(&self) -> Result<(), String> {
        let at = |why: &str| Err(format!("neighbor {}: {why}", self.address));
        if self.max_prefixes == Some(0) {
            return at("max_prefixes must be at least 1");
        }
        if self.max_prefixes.is_none()
            && (self.max_prefixes_warning.is_some() || self.max_prefixes_restart.is_some())
        {
            return at("max_prefixes_warning and max_prefixes_restart need max_prefixes");
        }
        if self
            .max_prefixes_warning
            .is_some_and(|w| !(1..=100).contains(&w))
        {
            return at("max_prefixes_warning must be a percentage, 1 to 100");
        }
        if self.max_prefixes_restart == Some(0) {
            return at("max_prefixes_restart must be at least 1 (seconds)");
        }
        Ok(())
    }
}

/// A role name, by [`Relation`]'s `FromStr`, so that a bad one is a TOML error with
/// its line.
fn relation<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Relation>, D::Error> {
    let name = String::deserialize(d)?;
    name.parse::<Relation>().map(Some).map_err(|_| {
        serde::de::Error::custom(format!(
            "role '{name}': not one of customer, peer, provider, rs, rs-client"
        ))
    })
}

/// The `[rpki]` table: where validated RPKI payload comes from (docs/spec/rpki.md,
/// "Speaker").
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rpki {
    /// Files: rpki-client JSON, Routinator `jsonext`, SLURM, hopsig key folders
    /// (`rpki::source::load_all` tells them apart).
    #[serde(default)]
    pub files: Vec<PathBuf>,
    /// RPKI caches spoken to over RTR (`[[rpki.cache]]`).
    #[serde(default)]
    pub cache: Vec<CacheConfig>,
    /// Caps per source [default: [`Limits::default`]].
    #[serde(default)]
    pub limits: RpkiLimits,
}

/// `[rpki.limits]`: each cap left out keeps its [`Limits::default`].
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RpkiLimits {
    /// Route origins per source.
    pub vrps: Option<usize>,
    /// Router keys per source.
    pub router_keys: Option<usize>,
    /// ASPAs per source.
    pub aspas: Option<usize>,
    /// Providers in one ASPA.
    pub providers_per_aspa: Option<usize>,
}

impl RpkiLimits {
    /// The limits, defaults filled in.
    pub fn limits(&self) -> Limits {
        let d = Limits::default();
        Limits {
            vrps: self.vrps.unwrap_or(d.vrps),
            router_keys: self.router_keys.unwrap_or(d.router_keys),
            aspas: self.aspas.unwrap_or(d.aspas),
            providers_per_aspa: self.providers_per_aspa.unwrap_or(d.providers_per_aspa),
        }
    }
}

fn bgp_port() -> u16 {
    179
}

fn hold_time() -> u16 {
    90
}

fn connect_retry() -> u64 {
    5
}

fn status_routes() -> usize {
    10_000
}

/// The whole configuration file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The local AS.
    pub local_as: u32,
    /// The BGP Identifier.
    pub router_id: Ipv4Addr,
    /// The next hop of announced routes [default: router_id].
    pub next_hop: Option<Ipv4Addr>,
    /// Where passive neighbours connect.
    pub listen: Option<SocketAddr>,
    /// `strict` or `lazy`.
    pub mode: Mode,
    /// Hold Time offered in OPEN, seconds (0 or ≥ 3, RFC 4271 §4.2).
    #[serde(default = "hold_time")]
    pub hold_time: u16,
    /// Send Hold Time, seconds: 0 for none, else more than `hold_time` (RFC 9687
    /// §3.4) [default: twice the negotiated Hold Time; docs/spec/speaker.md says why
    /// not RFC 9687 §5's 8-minute floor].
    pub send_hold_time: Option<u32>,
    /// ConnectRetry timer, seconds (RFC 4271 §10 suggests 120; short for tests).
    #[serde(default = "connect_retry")]
    pub connect_retry: u64,
    /// Validation worker threads [default: every core].
    pub validation_threads: Option<usize>,
    /// The status file the speaker rewrites while it runs.
    pub state_file: PathBuf,
    /// Most routes the status file lists per table (counts are always whole).
    #[serde(default = "status_routes")]
    pub status_routes: usize,
    /// The RPKI router keys: rpki-client JSON or a folder, as `hopsig bgpsec keys`;
    /// one more file source beside `[rpki] files`.
    pub rpki_keys: Option<PathBuf>,
    /// RPKI sources: files and caches.
    #[serde(default)]
    pub rpki: Rpki,
    /// The router's secret keys, one per suite.
    #[serde(default)]
    pub router_keys: Vec<RouterKeyFile>,
    /// Prefixes this router originates.
    #[serde(default)]
    pub originate: Vec<String>,
    /// An MRT file whose prefixes this router originates too.
    pub originate_mrt: Option<OriginateMrt>,
    /// The neighbours.
    #[serde(default)]
    pub neighbors: Vec<Neighbor>,
    /// The IPv6 next hop of routes sent (RFC 2545 §3: global, or `[global,
    /// link-local]`) [default: each session's local IPv6 address].
    pub next_hop6: Option<super::family::NextHop6>,
    /// Bytes of the signature cache the validation workers share
    /// ([`crate::cache`]): a size such as `"64MiB"` or a number of bytes; 0 turns it
    /// off [default: 64 MiB].
    #[serde(default = "signature_cache", deserialize_with = "size")]
    pub signature_cache: usize,
    /// The HTTP server: Prometheus `/metrics` and the read-only API (`[http]`).
    #[serde(default)]
    pub http: Http,
    /// Most bytes of the status file: its route lists are cut further to fit
    /// ([`super::status::render`]) [default: 64 MiB].
    #[serde(default = "status_max_bytes")]
    pub status_max_bytes: usize,
    /// MRT dumps of the UPDATEs received and of Adj-RIB-In (`[[mrt_dump]]`,
    /// [`super::mrt_dump`]).
    #[serde(default)]
    pub mrt_dump: Vec<MrtDump>,
}

fn status_max_bytes() -> usize {
    super::status::DEFAULT_MAX_BYTES
}

/// What an `[[mrt_dump]]` writes (GoBGP's `dump-type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DumpType {
    /// Every UPDATE received, as BGP4MP_ET BGP4MP_MESSAGE_AS4 records (RFC 6396 §4.4).
    Updates,
    /// Adj-RIB-In every `dump_interval`, as TABLE_DUMP_V2 (RFC 6396 §4.3).
    Table,
}

/// `[[mrt_dump]]`: one MRT dump (docs/spec/speaker.md, "MRT dumps"), modelled on
/// GoBGP's `[[mrt-dump]]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MrtDump {
    /// `updates` or `table`.
    pub dump_type: DumpType,
    /// The file name: a strftime pattern (`%Y%m%d.%H%M`, …) expanded, in UTC, with the
    /// start of the file's period; relative to the configuration's folder.
    pub file_name: PathBuf,
    /// `updates`: seconds each file covers before the next one starts, aligned on
    /// multiples of it since 1970 [default: 0, one file for ever].
    #[serde(default)]
    pub rotation_interval: u64,
    /// `table`: seconds between snapshots, aligned likewise (required).
    #[serde(default)]
    pub dump_interval: u64,
}

impl MrtDump {
    /// Checks the table and makes `file_name` absolute from `base`.
    fn check(&mut self, index: usize, base: &Path) -> Result<(), String> {
        if self.file_name.as_os_str().is_empty() {
            return Err(format!("mrt_dump[{index}]: file_name is empty"));
        }
        if self.file_name.is_relative() {
            self.file_name = base.join(&self.file_name);
        }
        let at = |why: String| format!("mrt_dump[{index}] ({}): {why}", self.file_name.display());
        let pattern = self.file_name.to_string_lossy();
        let timed = super::mrt_dump::check_pattern(&pattern).map_err(at)?;
        match self.dump_type {
            DumpType::Updates if self.dump_interval != 0 => Err(at(
                "dump_interval is for dump_type = \"table\"; updates files rotate with rotation_interval".into(),
            )),
            DumpType::Updates if self.rotation_interval != 0 && !timed => Err(at(
                "rotation_interval needs a time field in file_name (such as %Y%m%d.%H%M), or each file would overwrite the last".into(),
            )),
            DumpType::Table if self.dump_interval == 0 => Err(at(
                "dump_type = \"table\" needs dump_interval, the seconds between snapshots".into(),
            )),
            DumpType::Table if self.rotation_interval != 0 => Err(at(
                "rotation_interval is for dump_type = \"updates\"; each table snapshot is a file of its own".into(),
            )),
            _ => Ok(()),
        }
    }
}

/// `[http]`: where the speaker serves `/metrics` and its read-only API
/// ([`super::http`]).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Http {
    /// The address to listen on [default: no HTTP server]; a loopback address
    /// unless `allow_remote` is set.
    pub listen: Option<SocketAddr>,
    /// Allow a `listen` address that is not a loopback one: the server has no TLS
    /// and no authentication, so put a reverse proxy that has both (or an SSH
    /// tunnel) in front (docs/spec/speaker.md, "HTTP API") [default: false].
    #[serde(default)]
    pub allow_remote: bool,
}

impl Http {
    /// Refuses a `listen` address other than a loopback one unless `allow_remote`
    /// says so: the API and `/metrics` answer anyone who can connect.
    ///
    /// # Errors
    /// The reason, one line.
    pub fn check(&self) -> Result<(), String> {
        match self.listen {
            Some(a) if !a.ip().to_canonical().is_loopback() && !self.allow_remote => Err(format!(
                "http.listen {a} is not a loopback address: the HTTP server has no TLS and no \
                 authentication; listen on 127.0.0.1 or ::1 and put a reverse proxy with TLS and \
                 authentication (or an SSH tunnel) in front, or set [http] allow_remote = true \
                 (docs/spec/speaker.md, HTTP API)"
            )),
            _ => Ok(()),
        }
    }
}

fn signature_cache() -> usize {
    crate::cache::DEFAULT_BUDGET
}

/// A size in bytes: a number, or a string of [`crate::cache::parse_size`].
fn size<'de, D: serde::Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Size {
        Bytes(u64),
        Text(String),
    }
    match Size::deserialize(d)? {
        Size::Bytes(n) => usize::try_from(n).map_err(serde::de::Error::custom),
        Size::Text(t) => crate::cache::parse_size(&t)
            .map_err(|e| serde::de::Error::custom(format!("signature_cache: {e}"))),
    }
}

impl Config {
    /// The configuration in the TOML `text`; relative file names in it are taken
    /// from the folder `base` (that of the configuration file).
    ///
    /// # Errors
    /// [`ConfigError`]: not TOML, a field missing or of the wrong type, a bad value.
    pub fn from_toml_str(text: &str, base: &Path) -> Result<Config, ConfigError> {
        let invalid = |why: &str| Err(ConfigError::Invalid(why.into()));
        let mut config: Config = toml::from_str(text)?;
        let rel = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        rel(&mut config.state_file);
        if let Some(k) = config.rpki_keys.as_mut() {
            rel(k);
        }
        for k in &mut config.router_keys {
            rel(&mut k.file);
        }
        for f in &mut config.rpki.files {
            rel(f);
        }
        for c in &config.rpki.cache {
            if c.address.is_empty() || c.port == 0 {
                return invalid("rpki.cache: an address and a port other than 0 are needed");
            }
        }
        if let Some(m) = config.originate_mrt.as_mut() {
            rel(&mut m.file);
            if m.limit == Some(0) {
                return invalid("originate_mrt: limit must be at least 1");
            }
        }
        if config.hold_time != 0 && config.hold_time < 3 {
            return invalid("hold_time must be 0 or at least 3 (RFC 4271 §4.2)");
        }
        if let Some(s) = config.send_hold_time {
            if s != 0 && s <= u32::from(config.hold_time) {
                return invalid(
                    "send_hold_time must be 0 (none) or more than hold_time (RFC 9687 §3.4)",
                );
            }
        }
        if config.local_as == 0 {
            return invalid("local_as 0 is reserved (RFC 7607)");
        }
        if config
            .neighbors
            .iter()
            .any(|n| n.graceful_restart.is_some_and(|t| t > 0x0fff))
        {
            return invalid(
                "graceful_restart: the Restart Time has 12 bits, at most 4095 (RFC 4724 §3)",
            );
        }
        for n in &config.neighbors {
            n.check_max_prefixes().map_err(ConfigError::Invalid)?;
        }
        config.originated().map_err(ConfigError::Invalid)?;
        config.check_families().map_err(ConfigError::Invalid)?;
        config.http.check().map_err(ConfigError::Invalid)?;
        for (i, d) in config.mrt_dump.iter_mut().enumerate() {
            d.check(i, base).map_err(ConfigError::Invalid)?;
        }
        Ok(config)
    }

    /// The originated prefixes, parsed.
    ///
    /// # Errors
    /// The first entry that is not `address/length`.
    pub fn originated(&self) -> Result<Vec<Prefix>, String> {
        self.originate.iter().map(|s| parse_prefix(s)).collect()
    }

    /// Every RPKI file source: `rpki_keys` first, then `[rpki] files`.
    pub fn rpki_files(&self) -> Vec<PathBuf> {
        self.rpki_keys
            .iter()
            .chain(&self.rpki.files)
            .cloned()
            .collect()
    }

    /// The next hop of announced routes.
    pub fn next_hop(&self) -> Ipv4Addr {
        self.next_hop.unwrap_or(self.router_id)
    }
}

/// `address/length`, e.g. `10.2.0.0/16`, in `originate`.
pub fn parse_prefix(s: &str) -> Result<Prefix, String> {
    prefix(s).map_err(|why| format!("originate: '{s}': {why}"))
}

/// `address/length`, e.g. `10.2.0.0/16`; the error says what is wrong.
pub fn prefix(s: &str) -> Result<Prefix, String> {
    let (addr, len) = s.split_once('/').ok_or("not address/length")?;
    let addr: IpAddr = addr.parse().map_err(|_| "bad address")?;
    let len: u8 = len.parse().map_err(|_| "bad length")?;
    let p = Prefix::new(addr, len).map_err(|e| e.to_string())?;
    if p.addr() != addr {
        return Err("address has bits set past the length".into());
    }
    Ok(p)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    const BASE: &str =
        "local_as = 65001\nrouter_id = \"192.0.2.1\"\nmode = \"lazy\"\nstate_file = \"s.json\"\n";

    fn parse(extra: &str) -> Result<Config, ConfigError> {
        Config::from_toml_str(&format!("{BASE}{extra}"), Path::new("/etc/hopsig"))
    }

    /// Issue 24 §2: `[rpki]` files (relative to the configuration's folder, after
    /// `rpki_keys`), caches, limits, and a neighbour's role and policy flags.
    #[test]
    fn rpki_sources_caches_limits_roles_and_policy() {
        let c = parse(
            "rpki_keys = \"keys.json\"\n\
             [rpki]\nfiles = [\"roas.json\", \"/abs/slurm.json\"]\n\
             [[rpki.cache]]\naddress = \"127.0.0.1\"\nport = 3323\npreference = 2\nrefresh = 30\n\
             [rpki.limits]\nvrps = 10\n\
             [[neighbors]]\naddress = \"192.0.2.2\"\nremote_as = 65002\nrole = \"rs-client\"\n\
             reject_rov_invalid = true\nrequire_bgpsec_valid = true\n\
             [[neighbors]]\naddress = \"192.0.2.3\"\nremote_as = 65003\n",
        )
        .unwrap();
        assert_eq!(
            c.rpki_files(),
            [
                PathBuf::from("/etc/hopsig/keys.json"),
                PathBuf::from("/etc/hopsig/roas.json"),
                PathBuf::from("/abs/slurm.json")
            ]
        );
        assert_eq!(c.rpki.cache[0].port, 3323);
        assert_eq!(c.rpki.cache[0].preference, 2);
        assert_eq!(
            c.rpki.cache[0].refresh,
            Some(std::time::Duration::from_secs(30))
        );
        let limits = c.rpki.limits.limits();
        assert_eq!(limits.vrps, 10);
        assert_eq!(limits.router_keys, Limits::default().router_keys);
        let (n, m) = (&c.neighbors[0], &c.neighbors[1]);
        assert_eq!(n.role, Some(Relation::RsClient));
        assert!(n.reject_rov_invalid && n.require_bgpsec_valid && !n.reject_aspa_invalid);
        // Permissive, no role, by default.
        assert_eq!(m.role, None);
        assert!(!m.reject_rov_invalid && !m.reject_aspa_invalid && !m.require_bgpsec_valid);
    }

    /// A bad role, an unknown key in `[rpki]` or a cache entry, a cache without a
    /// port: refused, the TOML errors with their line.
    #[test]
    fn bad_rpki_entries_are_refused_with_their_line() {
        let e = parse(
            "[[neighbors]]\naddress = \"192.0.2.2\"\nremote_as = 65002\nrole = \"sibling\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("role 'sibling'") && e.contains("line 8"), "{e}");
        let e = parse("[rpki]\nfile = [\"x\"]\n").unwrap_err().to_string();
        assert!(e.contains("unknown field") && e.contains("line 6"), "{e}");
        let e = parse("[[rpki.cache]]\naddress = \"127.0.0.1\"\nport = 1\nprefer = 1\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field") && e.contains("line 8"), "{e}");
        let e = parse("[[rpki.cache]]\naddress = \"127.0.0.1\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("port"), "{e}");
        let e = parse("[[rpki.cache]]\naddress = \"127.0.0.1\"\nport = 0\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("rpki.cache"), "{e}");
    }

    /// Issue 25 §4: the policy fields, their defaults, and bad values refused with
    /// what is wrong (the TOML ones with their line).
    #[test]
    fn policy_fields_defaults_and_bad_values() {
        let n = "[[neighbors]]\naddress = \"192.0.2.2\"\nremote_as = 65002\n";
        let c = parse(&format!(
            "{n}import = [\"permit 10.0.0.0/8 le 24\", \"deny 2001:db8::/32 ge 48\"]\n\
             export = [\"deny 0.0.0.0/0\"]\nmax_prefixes = 10\nmax_prefixes_warning = 80\n\
             max_prefixes_restart = 60\nlocal_pref = 200\nmed = 5\n\
             add_communities = [\"65000:1\", \"no-export\"]\n{n}"
        ))
        .unwrap();
        let (a, b) = (&c.neighbors[0], &c.neighbors[1]);
        assert_eq!(a.import.0.len(), 2);
        assert_eq!(a.import.0[1].to_string(), "deny 2001:db8::/32 ge 48 le 128");
        assert_eq!(a.export.0.len(), 1);
        assert_eq!(
            (
                a.max_prefixes,
                a.max_prefixes_warning,
                a.max_prefixes_restart
            ),
            (Some(10), Some(80), Some(60))
        );
        assert_eq!((a.local_pref, a.med), (200, Some(5)));
        assert_eq!(a.add_communities, [65000 << 16 | 1, 0xFFFF_FF01]);
        assert!(b.import.is_empty() && b.export.is_empty());
        assert_eq!((b.max_prefixes, b.local_pref, b.med), (None, 100, None));
        assert!(b.add_communities.is_empty());
        for (extra, why) in [
            ("import = [\"permit 10.0.0.0/8 le 33\"]", "line 8"),
            ("export = [\"accept 10.0.0.0/8\"]", "permit or deny"),
            ("add_communities = [\"65000\"]", "community '65000'"),
            ("add_communities = [\"70000:1\"]", "line 8"),
            ("max_prefixes = 0", "max_prefixes must be at least 1"),
            ("max_prefixes_warning = 50", "need max_prefixes"),
            ("max_prefixes = 5\nmax_prefixes_warning = 101", "1 to 100"),
            ("max_prefixes = 5\nmax_prefixes_restart = 0", "at least 1"),
            ("local_pref = -1", "local_pref"),
        ] {
            let e = parse(&format!("{n}{extra}\n")).unwrap_err().to_string();
            assert!(e.contains(why), "{extra}: {e}");
        }
    }

    /// `signature_cache`: 64 MiB unless set; a size or a number of bytes; 0 is off;
    /// anything else refused with its line.
    #[test]
    fn signature_cache_sizes() {
        assert_eq!(parse("").unwrap().signature_cache, 64 << 20);
        let size = |v: &str| parse(&format!("signature_cache = {v}\n")).map(|c| c.signature_cache);
        assert_eq!(size("\"16MiB\"").unwrap(), 16 << 20);
        assert_eq!(size("4096").unwrap(), 4096);
        assert_eq!(size("0").unwrap(), 0);
        let e = size("\"lots\"").unwrap_err().to_string();
        assert!(e.contains("signature_cache") && e.contains("line 5"), "{e}");
        assert!(size("-1").is_err());
    }

    /// Issue 26 §2: `[http] listen` on a loopback address only, unless
    /// `allow_remote` says so.
    #[test]
    fn http_listen_is_loopback_unless_allowed() {
        for ok in [
            "[http]\nlisten = \"127.0.0.1:8080\"\n",
            "[http]\nlisten = \"127.0.0.9:8080\"\n",
            "[http]\nlisten = \"[::1]:8080\"\n",
            "[http]\nlisten = \"[::ffff:127.0.0.1]:8080\"\n",
            "[http]\nlisten = \"0.0.0.0:8080\"\nallow_remote = true\n",
            "[http]\nlisten = \"192.0.2.1:8080\"\nallow_remote = true\n",
            "[http]\n",
            "",
        ] {
            parse(ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
        for refused in [
            "[http]\nlisten = \"0.0.0.0:8080\"\n",
            "[http]\nlisten = \"192.0.2.1:8080\"\n",
            "[http]\nlisten = \"[::]:8080\"\nallow_remote = false\n",
        ] {
            let e = parse(refused).unwrap_err().to_string();
            assert!(
                e.contains("not a loopback address") && e.contains("allow_remote = true"),
                "{refused}: {e}"
            );
        }
    }

    /// `[[mrt_dump]]` tables: read, made absolute, and each bad combination refused
    /// with what is wrong and which table.
    #[test]
    fn mrt_dump_tables_and_bad_ones() {
        let c = parse(
            "[[mrt_dump]]\ndump_type = \"updates\"\nfile_name = \"u/%Y%m%d.%H%M.mrt\"\n\
             rotation_interval = 300\n\
             [[mrt_dump]]\ndump_type = \"table\"\nfile_name = \"/var/rib.mrt\"\ndump_interval = 60\n",
        )
        .unwrap();
        assert_eq!(c.mrt_dump.len(), 2);
        assert_eq!(c.mrt_dump[0].dump_type, DumpType::Updates);
        assert_eq!(
            c.mrt_dump[0].file_name,
            PathBuf::from("/etc/hopsig/u/%Y%m%d.%H%M.mrt")
        );
        assert_eq!(c.mrt_dump[0].rotation_interval, 300);
        assert_eq!(
            (c.mrt_dump[1].dump_type, c.mrt_dump[1].dump_interval),
            (DumpType::Table, 60)
        );
        assert!(parse("").unwrap().mrt_dump.is_empty());
        let d = |t: &str, rest: &str| {
            parse(&format!("[[mrt_dump]]\ndump_type = \"{t}\"\n{rest}"))
                .unwrap_err()
                .to_string()
        };
        for (t, rest, why) in [
            (
                "updates",
                "file_name = \"a.mrt\"\nrotation_interval = 60\n",
                "needs a time field",
            ),
            (
                "updates",
                "file_name = \"a%Y.mrt\"\ndump_interval = 60\n",
                "dump_interval is for",
            ),
            ("table", "file_name = \"a.mrt\"\n", "needs dump_interval"),
            (
                "table",
                "file_name = \"a%H.mrt\"\ndump_interval = 5\nrotation_interval = 5\n",
                "rotation_interval is for",
            ),
            ("updates", "file_name = \"a%Q.mrt\"\n", "%Q"),
            ("updates", "file_name = \"\"\n", "empty"),
            (
                "updates",
                "file_name = \"a.mrt\"\nrotate = 5\n",
                "unknown field",
            ),
            ("both", "file_name = \"a.mrt\"\n", "unknown variant"),
        ] {
            let e = d(t, rest);
            assert!(e.contains(why), "{rest}: {e}");
        }
        assert!(
            d("table", "file_name = \"a.mrt\"\n").starts_with("mrt_dump[0] (/etc/hopsig/a.mrt)")
        );
    }
}
