//! RPKI-to-Router (RFC 6810 v0, RFC 8210 v1, draft-ietf-sidrops-8210bis v2) on the
//! `rpki` crate's PDU codec: a client of several caches with preference, and a cache.
//!
//! * [`error`] — what goes wrong on a session, with the RFC 8210 §12 error code names.
//! * `session` — one RTR session over any byte stream: queries, the Cache Response to
//!   End of Data, Serial Notify, Error Reports sent and received, version negotiation
//!   (RFC 8210 §7), limits. It reads and writes PDUs with the `rpki` crate's
//!   [`rpki::rtr::pdu`] types; the protocol steps are hopsig's (docs/spec/rpki.md, "RTR
//!   client", says why the crate's `Client` is not used as is).
//! * [`machine`] — the per-cache state machine (connecting, syncing, current, stale,
//!   expired, error; backoff and the Refresh/Retry/Expire timers), pure: events in,
//!   actions out.
//! * [`prefer`] — which caches' data is used: the most preferred group that holds
//!   data, their union (RFC 8210 §10).
//! * [`client`] — the tokio shell: [`spawn_caches`] (one task per cache) and [`dump`].
//! * [`server`] — a cache: [`serve`] a changing [`PayloadSet`] with incremental serials.

pub mod client;
pub mod error;
pub mod machine;
pub mod prefer;
pub mod server;
mod session;

use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use client::{dump, spawn_caches, Dump};
pub use error::{error_code_name, RtrError};
pub use rpki::rtr::Timing;
pub use server::{serve, ServeConfig};

use super::payload::PayloadSet;

/// The most recent protocol version hopsig speaks (draft-ietf-sidrops-8210bis: ASPA).
pub const MAX_VERSION: u8 = 2;

/// One RTR cache as the speaker's `[[rpki.cache]]` TOML entry names it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CacheConfig {
    /// Host name or address.
    pub address: String,
    /// TCP port (RFC 8210 §9: 323 by default for plain TCP).
    pub port: u16,
    /// Lower = more preferred (RFC 8210 §10); caches of the same preference form a
    /// group whose data is united.
    #[serde(default)]
    pub preference: u8,
    /// Refresh Interval override (seconds in TOML); else the cache's End of Data
    /// (v1+), else 3600 s (RFC 8210 §6).
    #[serde(default, with = "opt_secs")]
    pub refresh: Option<Duration>,
    /// Retry Interval override; else End of Data, else 600 s. The reconnect backoff
    /// grows from 1 s up to it.
    #[serde(default, with = "opt_secs")]
    pub retry: Option<Duration>,
    /// Expire Interval override; else End of Data, else 7200 s. Data not refreshed
    /// within it is dropped.
    #[serde(default, with = "opt_secs")]
    pub expire: Option<Duration>,
    /// The version to start with (0, 1 or 2; default 2, downgraded as the cache asks,
    /// RFC 8210 §7).
    #[serde(default)]
    pub version: Option<u8>,
}

impl CacheConfig {
    /// A cache at `address`:`port` with preference 0 and no overrides.
    pub fn new(address: impl Into<String>, port: u16) -> CacheConfig {
        CacheConfig {
            address: address.into(),
            port,
            preference: 0,
            refresh: None,
            retry: None,
            expire: None,
            version: None,
        }
    }
}

/// Seconds in TOML/JSON for an optional [`Duration`].
mod opt_secs {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match d {
            Some(d) => s.serialize_some(&d.as_secs_f64()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        let secs = Option::<f64>::deserialize(d)?;
        match secs {
            None => Ok(None),
            Some(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(Some(Duration::from_secs_f64(s))),
            Some(s) => Err(serde::de::Error::custom(format!(
                "{s}: seconds must be positive and finite"
            ))),
        }
    }
}

/// What the caches give the router: the union of the most preferred group of caches
/// that hold data (RFC 8210 §10), and how each cache stands.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CacheView {
    /// The payload in use.
    #[serde(skip)]
    pub payload: PayloadSet,
    /// Every configured cache, in configuration order.
    pub caches: Vec<CacheStatus>,
    /// Increments with every published view (a watcher can tell two apart).
    pub generation: u64,
    /// Increments when `payload` changes, not when only a cache's state does (a
    /// reconnect, an error, a Serial Query answered with no change): what a watcher
    /// that rebuilds from the payload compares.
    pub payload_generation: u64,
}

/// How one cache stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CacheStatus {
    /// Its address.
    pub address: String,
    /// Its port.
    pub port: u16,
    /// Its preference.
    pub preference: u8,
    /// "connecting", "syncing", "current", "stale", "expired" or "error"
    /// ([`machine::Phase`]).
    pub state: String,
    /// The negotiated protocol version.
    pub version: Option<u8>,
    /// The cache's Session ID.
    pub session_id: Option<u16>,
    /// The serial of the data held.
    pub serial: Option<u32>,
    /// (VRPs, router keys, ASPAs) held from this cache.
    pub counts: (usize, usize, usize),
    /// What went wrong last, if anything.
    pub last_error: Option<String>,
    /// Whether this cache's data is in [`CacheView::payload`].
    pub in_use: bool,
    /// When its data was last updated ([`machine::Machine::updated_at`]), for the
    /// speaker's `hopsig_speaker_rtr_data_age_seconds`.
    #[serde(skip)]
    pub updated_at: Option<tokio::time::Instant>,
}

#[cfg(test)]
mod tests;
