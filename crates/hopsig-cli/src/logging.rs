//! Where the libraries' `tracing` events go: the global options `--log-format` and
//! `--log-level` (docs/spec/speaker.md "Logs", docs/guide/logging.md).
//!
//! **One-shot commands** (`sign`, `verify`, `bgpsec validate-mrt`, …) print each event
//! as today: its message alone, one escaped line on standard error
//! ([`crate::io::NoteLayer`]), every level, unless `--log-level` narrows them.
//!
//! **Long-running commands** (`speaker run`, `ndn publisher|moderator`, `rtr serve`,
//! `bgpsec feed`), and any command given `--log-format`, log through
//! `tracing-subscriber`'s formatter: `text` (its human format: time, level, target,
//! message, fields) or `json` (one JSON object a line: `timestamp`, `level`, `fields`,
//! `target`). The filter is `--log-level`, else `RUST_LOG`, else `info`, in
//! `EnvFilter`'s syntax (`warn,hopsig_bgp::speaker::session=debug`). The commands' own
//! lines ([`crate::io::note`]) become events of target `hopsig` there, so that a JSON
//! log holds nothing but JSON lines.
//!
//! Either way a line stays one line: control characters in a message are escaped as
//! [`crate::io::escape`] does (text), or written as JSON escapes (json).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::EnvFilter;

use crate::io::{escape, escape_json, Failure, NoteLayer};

/// The format of a structured log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// tracing-subscriber's human format: `TIME LEVEL TARGET: MESSAGE field=value …`.
    Text,
    /// One JSON object a line: `timestamp`, `level`, `fields` (`message`, `event`, …),
    /// `target`.
    Json,
}

/// The global logging options.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LogArgs {
    /// Log format of the long-running commands (speaker run, ndn publisher|moderator,
    /// rtr serve, bgpsec feed; default text); given, any command logs so.
    #[arg(long, global = true, value_enum, value_name = "FORMAT")]
    pub log_format: Option<LogFormat>,
    /// Which events to log, in RUST_LOG's syntax: a level (error, warn, info, debug,
    /// trace) and per-module levels, e.g. "info,hopsig_bgp::speaker::session=debug".
    /// Default: RUST_LOG for the long-running commands, else info.
    #[arg(long, global = true, value_name = "FILTER")]
    pub log_level: Option<String>,
}

/// Set once a structured log is installed: [`crate::io::note`] then logs its lines.
static STRUCTURED: AtomicBool = AtomicBool::new(false);

/// Whether the log is structured (text or JSON from tracing-subscriber).
pub fn structured() -> bool {
    STRUCTURED.load(Ordering::Relaxed)
}

/// The filter of `directives` (EnvFilter syntax); `what` names where they came from.
fn filter(directives: &str, what: &str) -> Result<EnvFilter, Failure> {
    EnvFilter::builder()
        .parse(directives)
        .map_err(|e| Failure::Input(format!("{what} {directives:?}: {e}")))
}

/// The filter of a structured log: `--log-level`, else `RUST_LOG`, else `info`.
fn structured_filter(args: &LogArgs) -> Result<EnvFilter, Failure> {
    match (&args.log_level, std::env::var("RUST_LOG")) {
        (Some(d), _) => filter(d, "--log-level"),
        (None, Ok(d)) if !d.trim().is_empty() => filter(&d, "RUST_LOG"),
        _ => filter("info", "the default filter"),
    }
}

/// Installs the log of a command: structured when `long_running` or `--log-format`
/// was given, else the one-shot commands' lines.
///
/// # Errors
/// A filter that does not parse (exit status 2, the message names it).
pub fn install(args: &LogArgs, long_running: bool) -> Result<(), Failure> {
    let format = match (args.log_format, long_running) {
        (Some(f), _) => f,
        (None, true) => LogFormat::Text,
        (None, false) => {
            // As before: every event, unless --log-level narrows them. RUST_LOG is
            // for the daemons; a script's output does not change with it.
            let filter = args
                .log_level
                .as_deref()
                .map(|d| filter(d, "--log-level"))
                .transpose()?;
            let subscriber = tracing_subscriber::registry().with(filter).with(NoteLayer);
            // A second install (none happens) would keep the first: nothing to report.
            let _ = tracing::subscriber::set_global_default(subscriber);
            return Ok(());
        }
    };
    let filter = structured_filter(args)?;
    let layer = tracing_subscriber::fmt::layer().with_writer(Stderr {
        json: format == LogFormat::Json,
    });
    let installed = match format {
        LogFormat::Text => tracing::subscriber::set_global_default(
            tracing_subscriber::registry().with(filter).with(layer),
        ),
        LogFormat::Json => tracing::subscriber::set_global_default(
            tracing_subscriber::registry()
                .with(filter)
                .with(layer.json().with_current_span(false).with_span_list(false)),
        ),
    };
    if installed.is_ok() {
        STRUCTURED.store(true, Ordering::Relaxed);
    }
    Ok(())
}

/// Standard error for the formatter, one event at a time ([`Line`]).
struct Stderr {
    json: bool,
}

impl<'a> MakeWriter<'a> for Stderr {
    type Writer = Line;
    fn make_writer(&'a self) -> Line {
        Line {
            json: self.json,
            text: Vec::new(),
        }
    }
}

/// One formatted event (the formatter writes each whole, then drops the writer):
/// written on drop as one line, escaped ([`one_line`]).
struct Line {
    json: bool,
    text: Vec<u8>,
}

impl Write for Line {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.text.extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        if self.text.is_empty() {
            return;
        }
        let line = one_line(&String::from_utf8_lossy(&self.text), self.json);
        // Nothing more can be done if standard error cannot be written.
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
}

/// `formatted` (an event as the formatter wrote it, ending in a line feed) as one
/// line: line feeds and other control characters inside escaped.
fn one_line(formatted: &str, json: bool) -> String {
    let body = formatted.strip_suffix('\n').unwrap_or(formatted);
    let mut line = if json {
        escape_json(body)
    } else {
        escape(body).into_owned()
    };
    line.push('\n');
    line
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn an_event_stays_one_line() {
        assert_eq!(one_line("a\nvalid: 3\n", false), "a\\nvalid: 3\n");
        assert_eq!(one_line("x \u{1b}[31m\n", false), "x \\u{1b}[31m\n");
        // serde_json escapes C0 controls itself; the others become JSON escapes.
        let json = one_line("{\"m\":\"a\u{2028}b\u{85}\"}\n", true);
        assert_eq!(json, "{\"m\":\"a\\u2028b\\u0085\"}\n");
        let v: serde_json::Value = serde_json::from_str(json.trim_end()).unwrap();
        assert_eq!(v["m"], "a\u{2028}b\u{85}");
    }

    #[test]
    fn filters_parse_or_name_their_source() {
        assert!(filter("warn,hopsig_bgp::speaker::session=debug", "--log-level").is_ok());
        let Err(Failure::Input(m)) = filter("hopsig_bgp=loud", "--log-level") else {
            panic!("a bad level parsed");
        };
        assert!(m.starts_with("--log-level \"hopsig_bgp=loud\""), "{m}");
    }
}
