//! What every command shares: the failure type and its exit status, the command line's
//! usage errors, reading input files within their limits, the one writer of outputs,
//! and printing.
//!
//! **Messages are one line each.** Everything printed goes through [`say`],
//! [`print_text`] or [`Failure::exit`], which escape control characters (and the
//! Unicode line separators and direction overrides) wherever they come from: a file
//! name, a key file's header, an identity, a scheme id, a clap error quoting an
//! argument. So no input can start a line of its own, for instance forge a `valid:`
//! line on standard output.
//!
//! **Standard output.** A reader that closed the pipe (`hopsig schemes | head -1`)
//! ends the output quietly: nothing more is printed and the exit status is the
//! command's own. Any other write error (a full disk, `> /dev/full`) fails the command
//! with one line and exit status 2.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{ErrorKind, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use hopsig_schemes::primitives::armor::KeyFile;
pub use hopsig_schemes::primitives::persist::{Outputs, Secrecy};
use hopsig_schemes::primitives::persist::{PersistError, Replace};
use hopsig_schemes::Error;
use zeroize::Zeroizing;

/// Largest message file read: 16 MiB.
pub const MAX_MESSAGE: u64 = 16 << 20;
/// Largest aggregate or signature file read: 4 MiB (an aggregate holds at most
/// `hopsig_schemes::wire::MAX_SIGNERS` = 4096 signers).
pub const MAX_AGGREGATE: u64 = 4 << 20;
/// Largest key file read: 64 KiB (`hopsig_schemes::primitives::armor::MAX_KEY_FILE_LEN`).
pub const MAX_KEY: u64 = hopsig_schemes::primitives::armor::MAX_KEY_FILE_LEN as u64;
/// Largest file `hopsig inspect` reads: an IBAS journal's 16 MiB.
pub const MAX_INSPECTED: u64 = hopsig_schemes::ibas::MAX_JOURNAL_BYTES;

/// The exit codes, for `--help`.
pub const EXIT_CODES: &str =
    "Exit codes: 0 valid / success, 1 invalid signature, 2 bad usage or input.";
/// The limits above, for `--help`.
pub const LIMITS: &str = "Limits: message files 16 MiB, aggregate and signature files 4 MiB, \
key files 64 KiB; an aggregate holds at most 4096 signers.";

/// Exit status and one-line message of a failed command.
#[derive(Debug)]
pub enum Failure {
    /// The signature does not verify (exit 1).
    Invalid(String),
    /// Bad usage, unreadable or malformed input, or an internal failure (exit 2).
    Input(String),
}

/// Result of a command.
pub type Outcome = Result<(), Failure>;

impl Failure {
    /// Prints the message (`invalid: …` on standard output, or on standard error when
    /// standard output is JSON lines; `hopsig: error: …` on standard error) and gives
    /// the exit status.
    pub fn exit(&self) -> ExitCode {
        match self {
            Failure::Invalid(msg) if JSON_STDOUT.load(Ordering::Relaxed) => {
                let _ = writeln!(std::io::stderr(), "invalid: {}", escape(msg));
                ExitCode::from(1)
            }
            Failure::Invalid(msg) => match say(format_args!("invalid: {msg}")) {
                Ok(()) => ExitCode::from(1),
                Err(f) => f.exit(),
            },
            Failure::Input(msg) => {
                // Nothing more can be done if standard error cannot be written.
                let _ = writeln!(std::io::stderr(), "hopsig: error: {}", escape(msg));
                ExitCode::from(2)
            }
        }
    }
}

/// `path: message`, exit status 2.
pub fn at(path: &Path, e: impl std::fmt::Display) -> Failure {
    Failure::Input(format!("{}: {e}", path.display()))
}

/// Whether `c` must not reach a terminal as it is: control characters, and the
/// characters that end a line or reorder text (U+2028, U+2029, bidirectional marks,
/// embeddings, overrides and isolates).
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with the characters of [`unsafe_char`] escaped, except `keep`.
fn escape_unless(text: &str, keep: Option<char>) -> Cow<'_, str> {
    if !text.chars().any(|c| Some(c) != keep && unsafe_char(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            c if Some(c) == keep => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if unsafe_char(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `text` with every control character written as an escape (`\n`, `\t`, `\u{1b}`),
/// so that it stays on one line.
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_unless(text, None)
}

/// Set by [`stdout_is_json_lines`].
static JSON_STDOUT: AtomicBool = AtomicBool::new(false);

/// Standard output carries JSON lines only (docs/spec/json.md): the `invalid: …` line of
/// [`Failure::Invalid`] goes to standard error instead, the exit status staying 1.
pub fn stdout_is_json_lines() {
    JSON_STDOUT.store(true, Ordering::Relaxed);
}

/// Set once a reader closed standard output.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

fn write_stdout(text: &str) -> Outcome {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => Err(Failure::Input(format!(
            "cannot write to standard output: {e}"
        ))),
    }
}

/// Prints one line on standard output, control characters escaped.
pub fn say(line: impl std::fmt::Display) -> Outcome {
    write_stdout(&format!("{}\n", escape(&line.to_string())))
}

/// Prints `value` as one line of JSON on standard output, as it is: one record of a
/// JSON lines stream (docs/spec/json.md). Every character [`say`]
/// would escape can only stand inside a JSON string here (serde_json escapes the C0
/// controls itself), and is written as the JSON escape `\uXXXX`, so the line stays one
/// line of valid JSON, with no raw DEL, C1 control, line separator or direction mark.
pub fn say_json_line(value: &serde_json::Value) -> Outcome {
    let mut out = escape_json(&value.to_string());
    out.push('\n');
    write_stdout(&out)
}

/// `text`, a JSON text, with every character [`unsafe_char`] names written as the
/// JSON escape `\uXXXX` (valid where such a character can stand: inside a string).
pub fn escape_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 1);
    for c in text.chars() {
        if unsafe_char(c) {
            // JSON escapes UTF-16 units (RFC 8259 §7); these are all one unit.
            for unit in c.encode_utf16(&mut [0; 2]) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The command line's command, as its subcommand names (`bgpsec inspect`), set once by
/// [`arguments`] for the [`metadata`] block.
static COMMAND: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// The `metadata` block of hopsig's JSON outputs (docs/spec/json.md), after
/// Routinator's (`generated`, `generatedTime`) and rpki-client's: the hopsig version,
/// when the output was generated (Unix seconds, and RFC 3339 in UTC) and the command
/// (`hopsig bgpsec inspect`: its names only, not its arguments, which may be paths).
pub fn metadata() -> serde_json::Value {
    let now = time::OffsetDateTime::now_utc();
    let now = now.replace_nanosecond(0).unwrap_or(now);
    let rfc3339 = now
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    let command = match COMMAND.get() {
        Some(c) if !c.is_empty() => format!("hopsig {c}"),
        _ => "hopsig".to_string(),
    };
    serde_json::json!({
        "hopsig": env!("CARGO_PKG_VERSION"),
        "generated": now.unix_timestamp(),
        "generatedTime": rfc3339,
        "command": command,
    })
}

/// `value` with the [`metadata`] block added, when it is an object (a JSON document of
/// its own; a bare list is left as it is).
pub fn with_metadata(mut value: serde_json::Value) -> serde_json::Value {
    if let serde_json::Value::Object(fields) = &mut value {
        fields.insert("metadata".into(), metadata());
    }
    value
}

/// Prints the JSON document `value` as one line on standard output, with the
/// [`metadata`] block added when it is an object ([`say_json_line`] otherwise).
pub fn say_json(value: &serde_json::Value) -> Outcome {
    say_json_line(&with_metadata(value.clone()))
}

/// Prints the generated text (a completion script, a manual page) as it is: it comes
/// from hopsig's own command definitions, not from any input, and its tabs and
/// escapes are the shell's or roff's.
pub fn print_generated(bytes: &[u8]) -> Outcome {
    write_stdout(&String::from_utf8_lossy(bytes))
}

/// Prints lines (a table, a report) on standard output; control characters other than
/// the line feeds are escaped.
pub fn print_text(text: &str) -> Outcome {
    write_stdout(&escape_unless(text, Some('\n')))
}

/// One line on standard error (`hopsig: warning: …`, progress); a failure to write it
/// is ignored, as there is nowhere left to say so.
///
/// Under a structured log ([`crate::logging`]) it is an event of target `hopsig`.
pub fn note(line: impl std::fmt::Display) {
    if crate::logging::structured() {
        tracing::info!(target: "hopsig", "{line}");
        return;
    }
    let _ = writeln!(std::io::stderr(), "{}", escape(&line.to_string()));
}

/// The command line as `T` parses it, or the exit status after `--help`, `--version`
/// (printed, 0) or a usage error: one line `hopsig: error: …` (with clap's tip or list
/// of values, if any) and 2.
pub fn arguments<T: clap::Parser>() -> Result<T, ExitCode> {
    use clap::error::{ContextValue, ErrorKind};
    // As `T::try_parse`, with the matched subcommand names kept for [`metadata`].
    let parsed = T::command().try_get_matches().and_then(|matches| {
        let mut names = Vec::new();
        let mut at = &matches;
        while let Some((name, sub)) = at.subcommand() {
            names.push(name.to_string());
            at = sub;
        }
        let _ = COMMAND.set(names.join(" "));
        T::from_arg_matches(&matches).map_err(|e| e.format(&mut T::command()))
    });
    let mut e = match parsed {
        Ok(args) => return Ok(args),
        Err(e) => e,
    };
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        return Err(match print_text(&e.render().to_string()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(f) => f.exit(),
        });
    }
    // The arguments clap quotes are the user's: escaped before clap lays out its text.
    let quoted: Vec<_> = e
        .context()
        .filter_map(|(kind, value)| match value {
            ContextValue::String(s) => Some((kind, ContextValue::String(escape(s).into()))),
            ContextValue::Strings(v) => Some((
                kind,
                ContextValue::Strings(v.iter().map(|s| escape(s).into_owned()).collect()),
            )),
            _ => None,
        })
        .collect();
    for (kind, value) in quoted {
        e.insert(kind, value);
    }
    let rendered = e.render().to_string();
    let message = if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        // clap shows the whole help here: its usage line names the command, its
        // "Commands:" section what may follow.
        let command: Vec<&str> = rendered
            .lines()
            .find_map(|l| l.strip_prefix("Usage: "))
            .unwrap_or("hopsig")
            .split(' ')
            .take_while(|w| !w.starts_with(['[', '<', '-']))
            .collect();
        let command = command.join(" ");
        let choices: Vec<&str> = rendered
            .lines()
            .skip_while(|l| *l != "Commands:")
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            .filter_map(|l| l.split_whitespace().next())
            .filter(|name| *name != "help")
            .collect();
        format!(
            "'{command}' needs a command: {} (see '{command} --help')",
            choices.join(", ")
        )
    } else {
        // "error: WHAT", then tips and lists of values, then the usage.
        let mut lines = rendered
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"));
        let first = lines.next().unwrap_or("invalid command line");
        let mut message = first.strip_prefix("error: ").unwrap_or(first).to_string();
        for more in lines {
            let more = more
                .strip_prefix('[')
                .and_then(|m| m.strip_suffix(']'))
                .unwrap_or(more);
            let _ = write!(message, " ({more})");
        }
        message
    };
    Err(Failure::Input(message).exit())
}

pub use hopsig_schemes::primitives::persist::with_suffix;

/// Reads `path`, refusing anything but a regular file of at most `limit` bytes; `what`
/// names the file in errors.
pub fn read(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, Failure> {
    Ok(std::mem::take(&mut *read_secret(path, limit, what)?))
}

/// [`read`] into a buffer that is zeroized when dropped, for files that may hold a
/// secret key ([`hopsig_schemes::primitives::input::read_limited`]: one open, checked
/// with `fstat`, never read past the limit).
pub fn read_secret(path: &Path, limit: u64, what: &str) -> Result<Zeroizing<Vec<u8>>, Failure> {
    hopsig_schemes::primitives::input::read_limited(path, limit, what)
        .map_err(|e| Failure::Input(e.to_string()))
}

/// Reads the key file `text` (from `path`) with `reader`, one of the library's readers
/// of a kind of hopsig key file; errors name the file.
pub fn parse_key_file<T>(
    path: &Path,
    text: &[u8],
    reader: impl FnOnce(&KeyFile) -> Result<T, Error>,
) -> Result<T, Failure> {
    KeyFile::parse(text)
        .map_err(Error::from)
        .and_then(|file| reader(&file))
        .map_err(|e| at(path, e))
}

/// Reads and parses the key file at `path` (at most [`MAX_KEY`] bytes, read as a
/// secret), for a command that looks at it before choosing its reader (its scheme
/// names the curve); `what` names it in errors.
pub fn key_file(path: &Path, what: &str) -> Result<KeyFile, Failure> {
    let text = read_secret(path, MAX_KEY, what)?;
    KeyFile::parse(&text).map_err(|e| at(path, Error::from(e)))
}

/// Reads the key file at `path` ([`read`], at most [`MAX_KEY`] bytes) with `reader`.
pub fn read_key_file<T>(
    path: &Path,
    what: &str,
    reader: impl FnOnce(&KeyFile) -> Result<T, Error>,
) -> Result<T, Failure> {
    parse_key_file(path, &read_secret(path, MAX_KEY, what)?, reader)
}

impl From<hopsig_bench::Error> for Failure {
    fn from(e: hopsig_bench::Error) -> Self {
        Failure::Input(e.to_string())
    }
}

impl From<PersistError> for Failure {
    fn from(e: PersistError) -> Self {
        match e {
            PersistError::Exists { .. } => {
                Failure::Input(format!("{e} (use --force to overwrite)"))
            }
            other => Failure::Input(other.to_string()),
        }
    }
}

/// The output files of one command that reads `inputs`. Every file hopsig writes goes
/// through it (`hopsig_primitives::persist::Outputs`): written to a temporary file
/// beside it (mode 0600 for secrets), fsynced, placed together with the command's
/// other outputs or not at all; never over an existing file without `--force`, never
/// over one of `inputs` (same device and inode) even with it.
pub fn outputs<'a>(force: bool, inputs: impl IntoIterator<Item = &'a Path>) -> Outputs {
    let mut out = Outputs::new(Replace::from_force(force));
    for input in inputs {
        out.input(input);
    }
    out
}

/// Prints the libraries' `tracing` events (progress, what a long-running role logs)
/// as [`note`] lines on standard error: the message alone, escaped, as the commands
/// print theirs. The one-shot commands' log ([`crate::logging::install`]).
pub struct NoteLayer;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for NoteLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Message(String);
        impl tracing::field::Visit for Message {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                use std::fmt::Write as _;
                if field.name() == "message" {
                    let _ = write!(self.0, "{value:?}");
                } else {
                    let _ = write!(self.0, " {}={value:?}", field.name());
                }
            }
            fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                if field.name() == "message" {
                    self.0.push_str(value);
                } else {
                    self.record_debug(field, &value);
                }
            }
        }
        let mut message = Message(String::new());
        event.record(&mut message);
        note(message.0);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The limit holds whatever size the file reports: a procfs file says 0 bytes but
    /// holds more; a regular file of `limit` bytes is read, one byte more is refused.
    #[test]
    fn reads_never_go_past_the_limit() {
        let status = Path::new("/proc/self/status");
        if status.exists() {
            assert_eq!(std::fs::metadata(status).unwrap().len(), 0);
            let e = read(status, 100, "message").unwrap_err();
            assert!(
                matches!(&e, Failure::Input(m) if m.contains("more than the 100 bytes allowed")),
                "{e:?}"
            );
            // Within the limit it is read whole, however long fstat said it was.
            let whole = read(status, 1 << 20, "message").unwrap();
            assert!(whole.starts_with(b"Name:") && whole.ends_with(b"\n"));
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m");
        std::fs::write(&path, [7u8; 100]).unwrap();
        assert_eq!(read_secret(&path, 100, "key").unwrap().len(), 100);
        assert!(read(&path, 99, "key").is_err());
        let e = read(dir.path(), 100, "key").unwrap_err();
        assert!(
            matches!(&e, Failure::Input(m) if m.contains("not a regular file")),
            "{e:?}"
        );
    }

    #[test]
    fn escapes_what_could_break_or_reorder_a_line() {
        assert_eq!(escape("a/b c.key"), "a/b c.key");
        assert_eq!(escape("x\nvalid: 3"), "x\\nvalid: 3");
        assert_eq!(
            escape("\r\t\u{1b}[31m\u{7f}\u{85}"),
            "\\r\\t\\u{1b}[31m\\u{7f}\\u{85}"
        );
        assert_eq!(escape("a\u{2028}b\u{202e}c"), "a\\u{2028}b\\u{202e}c");
        assert_eq!(escape("é ü ∞"), "é ü ∞");
        assert_eq!(escape("\u{0}"), "\\u{0}");
        assert_eq!(escape_unless("a\nb\u{1b}\n", Some('\n')), "a\nb\\u{1b}\n");
    }
}
