//! What goes wrong on an RTR session, precise enough for an operator: which PDU, which
//! error code by its RFC 8210 §12 name (and draft-ietf-sidrops-8210bis §13 for codes 9
//! to 11), what the cache said.

use std::io;
use std::time::Duration;

use crate::rpki::payload::TooMuch;

/// The name of an Error Report code (RFC 8210 §12; 9–11: draft-ietf-sidrops-8210bis
/// §13).
pub fn error_code_name(code: u16) -> &'static str {
    match code {
        0 => "Corrupt Data",
        1 => "Internal Error",
        2 => "No Data Available",
        3 => "Invalid Request",
        4 => "Unsupported Protocol Version",
        5 => "Unsupported PDU Type",
        6 => "Withdrawal of Unknown Record",
        7 => "Duplicate Announcement Received",
        8 => "Unexpected Protocol Version",
        9 => "ASPA Provider List Error",
        10 => "Transport Error",
        11 => "Ordering Error",
        _ => "unassigned error code",
    }
}

/// The name of a PDU type (RFC 8210 §5, draft-ietf-sidrops-8210bis §5.12).
pub fn pdu_name(pdu: u8) -> &'static str {
    match pdu {
        0 => "Serial Notify",
        1 => "Serial Query",
        2 => "Reset Query",
        3 => "Cache Response",
        4 => "IPv4 Prefix",
        6 => "IPv6 Prefix",
        7 => "End of Data",
        8 => "Cache Reset",
        9 => "Router Key",
        10 => "Error Report",
        11 => "ASPA",
        _ => "unknown PDU type",
    }
}

/// An RTR session failed.
#[derive(Debug, thiserror::Error)]
pub enum RtrError {
    /// The TCP connection could not be made.
    #[error("cannot connect to {address}: {source}")]
    Connect {
        /// HOST:PORT.
        address: String,
        /// Why.
        source: io::Error,
    },
    /// Reading or writing failed.
    #[error("transport: {0}")]
    Io(#[from] io::Error),
    /// The cache said nothing for too long.
    #[error("no answer within {after:?} while waiting for {waiting_for}")]
    Timeout {
        /// The limit.
        after: Duration,
        /// What was expected.
        waiting_for: &'static str,
    },
    /// The cache closed the connection.
    #[error("the cache closed the connection while hopsig waited for {waiting_for}")]
    Closed {
        /// What was expected.
        waiting_for: &'static str,
    },
    /// The cache sent an Error Report (RFC 8210 §5.11).
    #[error(
        "the cache sent Error Report {code} ({name}){about}{text}",
        name = error_code_name(*code),
        about = match erroneous_pdu {
            Some(t) => format!(" about our {} PDU", pdu_name(*t)),
            None => String::new(),
        },
        text = if text.is_empty() { String::new() } else { format!(": {text:?}") }
    )]
    Report {
        /// The error code.
        code: u16,
        /// The version of the Error Report (for code 4: the version the cache speaks).
        version: u8,
        /// The type of the PDU the report quotes, if it quotes one.
        erroneous_pdu: Option<u8>,
        /// The cache's diagnostic text.
        text: String,
    },
    /// The cache sent something wrong; hopsig answered with an Error Report (RFC 8210
    /// §12) and closed the session.
    #[error(
        "{pdu_label} PDU (type {pdu}, version {version}): {detail}; answered Error Report {code} ({name})",
        pdu_label = pdu_name(*pdu),
        name = error_code_name(*code)
    )]
    Protocol {
        /// The PDU type received.
        pdu: u8,
        /// Its version field.
        version: u8,
        /// What is wrong with it.
        detail: String,
        /// The error code hopsig sent.
        code: u16,
    },
    /// The cache's data went over this client's limits; answered with Error Report 1
    /// (Internal Error: "ran out of memory", RFC 8210 §12) and the data dropped.
    #[error("{0}; answered Error Report 1 (Internal Error)")]
    TooMuch(TooMuch),
    /// The cache answered a Serial Query with another Session ID (RFC 8210 §5.5): its
    /// serials are not commensurate with ours; answered Corrupt Data, the data
    /// flushed, a Reset Query next.
    #[error("the cache changed its Session ID from {old} to {new}; answered Error Report 0 (Corrupt Data)")]
    SessionChanged {
        /// The session hopsig held.
        old: u16,
        /// The cache's new one.
        new: u16,
    },
    /// The cache and hopsig found no common protocol version.
    #[error("no common protocol version: the cache speaks {cache}, hopsig asked {ours}")]
    Version {
        /// The cache's version.
        cache: u8,
        /// What hopsig asked.
        ours: u8,
    },
}

impl RtrError {
    /// Whether the cache asked for an older version (Error Report 4, RFC 8210 §7) that
    /// hopsig speaks: then the version to reconnect with.
    pub fn downgrade_to(&self, asked: u8) -> Option<u8> {
        match self {
            RtrError::Report {
                code: 4, version, ..
            } if *version < asked => Some(*version),
            _ => None,
        }
    }
}
