//! `hopsig sign`: one hop. The key file (or `--scheme`, for a plain PKCS #8 key) names
//! the scheme; sequential schemes sign through the registry, `ibas-bls12381` claims its
//! state string w in the key's journal first.

use std::path::{Path, PathBuf};

use hopsig_schemes::ibas::{self, journal, IbasAggregate, Journal, UserKey, MAX_JOURNAL_BYTES};
use hopsig_schemes::primitives::armor::{KeyInput, KeyKind};
use hopsig_schemes::primitives::persist::{create_private_folder, NewLog, PersistError};
use hopsig_schemes::registry::{self, ALL_SCHEMES};
use hopsig_schemes::{Aggregate, Error, StateError};

use crate::io::{
    at, note, outputs, parse_key_file, read, read_secret, say, with_suffix, Failure, Outcome,
    Outputs, Secrecy, MAX_AGGREGATE, MAX_KEY, MAX_MESSAGE,
};

/// One hop: add this signer's signature on its message to the aggregate so far.
#[derive(clap::Args)]
#[command(after_help = crate::io::LIMITS)]
pub struct Args {
    /// Secret key file: a hopsig key file, or a plain PKCS #8 private key (PEM or DER)
    /// of a scheme whose keys are standard (with --scheme).
    #[arg(long)]
    key: PathBuf,
    /// The key's scheme: needed for a plain PKCS #8 key (rsa2048-concat,
    /// ecdsa-p256-concat, ecdsa-k163, ecdsa-k233, ecdsa-k283); a hopsig key file must
    /// be of this scheme.
    #[arg(long)]
    scheme: Option<String>,
    /// Message file.
    #[arg(long)]
    msg: PathBuf,
    /// Aggregate so far (omit for the first signer). It is not verified. For the
    /// concatenation schemes a bare signature counts as one signer.
    #[arg(long)]
    agg: Option<PathBuf>,
    /// Where to write the new aggregate.
    #[arg(long)]
    out: PathBuf,
    /// Overwrite an existing --out (never one of this command's inputs).
    #[arg(long)]
    force: bool,
    /// IBAS only: the journal of state strings w this key has signed under
    /// (default: the key's own journal in the state folder, see --state-dir). It
    /// must exist, unless --new-journal is given. Signing another message under a
    /// recorded w is refused: it would allow forgeries.
    #[arg(long, conflicts_with = "state_dir")]
    journal: Option<PathBuf>,
    /// IBAS only: folder of per-key journals (default $HOPSIG_STATE_DIR, else
    /// $XDG_STATE_HOME/hopsig, else ~/.local/state/hopsig). The key's journal in it
    /// must exist, unless --new-journal is given.
    #[arg(long)]
    state_dir: Option<PathBuf>,
    /// IBAS only: start a new journal at --journal FILE or in --state-dir DIR if there
    /// is none. A new journal knows none of the w this key signed under elsewhere:
    /// only for a key that has never signed, or whose journal moves there for good.
    /// (In the default state folder a key's journal is started without it.)
    #[arg(long)]
    new_journal: bool,
}

/// Reads the key, then signs with its scheme.
pub fn run(args: Args) -> Outcome {
    let text = read_secret(&args.key, MAX_KEY, "key file")?;
    let id = scheme_of_key(&args, &text)?;
    if id == ibas::ID {
        return sign_ibas(&args, &text);
    }
    let journal_options = if args.journal.is_some() || args.state_dir.is_some() {
        Some("--journal and --state-dir are")
    } else {
        args.new_journal.then_some("--new-journal is")
    };
    if let Some(options) = journal_options {
        return Err(at(
            &args.key,
            format!("{options} for ibas-bls12381 keys; this is a {id} key"),
        ));
    }
    sign_sequential(&args, &id, &text)
}

/// `--scheme`, else the key file's `scheme` header. The key file is parsed first, so a
/// malformed one is reported as such whatever other options say.
fn scheme_of_key(args: &Args, text: &[u8]) -> Result<String, Failure> {
    match KeyInput::parse(text).map_err(|e| at(&args.key, Error::from(e)))? {
        KeyInput::File(file) => Ok(args.scheme.clone().unwrap_or(file.scheme)),
        KeyInput::Plain(_) => args.scheme.clone().ok_or_else(|| {
            let standard: Vec<&str> = ALL_SCHEMES
                .iter()
                .filter(|e| e.plain_keys.accepts(KeyKind::Secret))
                .map(|e| e.id)
                .collect();
            at(
                &args.key,
                format!(
                    "{}: give --scheme ({})",
                    Error::PlainKeyNamesNoScheme,
                    standard.join(", ")
                ),
            )
        }),
    }
}

/// The aggregate so far is full.
fn full(agg: Option<&Path>, max: usize) -> Failure {
    let what = format!("already holds {max} signers, the most an aggregate may hold");
    match agg {
        Some(path) => at(path, what),
        None => Failure::Input(what),
    }
}

/// The output file, checked before any work (and before an IBAS w is claimed).
fn output(args: &Args, inputs: &[&Path]) -> Result<Outputs, Failure> {
    let files = outputs(
        args.force,
        inputs.iter().copied().chain(args.agg.as_deref()),
    );
    files.check(&args.out)?;
    Ok(files)
}

fn sign_sequential(args: &Args, id: &str, text: &[u8]) -> Outcome {
    // Named by the key file unless --scheme is given: then the file is at fault.
    let s = registry::lookup(id).map_err(|e| match args.scheme {
        Some(_) => Failure::Input(super::no_scheme(id, e)),
        None => at(&args.key, super::no_scheme(id, e)),
    })?;
    let mut files = output(args, &[&args.key, &args.msg])?;
    let key = s
        .signing_key_from_file(text)
        .map_err(|e| at(&args.key, e))?;
    let msg = read(&args.msg, MAX_MESSAGE, "message")?;
    let so_far = args
        .agg
        .as_deref()
        .map(|p| read(p, MAX_AGGREGATE, "aggregate"))
        .transpose()?;
    let (agg, info) = s
        .sign_with_info(key.as_ref(), &msg, so_far.as_deref())
        .map_err(|e| match (args.agg.as_deref(), e) {
            (agg, Error::TooManySigners { max }) => full(agg, max),
            (Some(p), e @ (Error::Decode(_) | Error::AggregateForOtherScheme { .. })) => at(p, e),
            (_, e) => Failure::Input(format!("signing failed: {e}")),
        })?;
    files.add(&args.out, &agg, Secrecy::Public)?;
    files.commit()?;
    say(format_args!(
        "{}: {} aggregate, {} signers, {} bytes",
        args.out.display(),
        info.scheme,
        info.signers,
        info.encoded_bytes
    ))
}

/// The folder IBAS journals live in, and whether it was named on the command line:
/// `--state-dir` (named), else the default: `$HOPSIG_STATE_DIR`, else
/// `$XDG_STATE_HOME/hopsig`, else `$HOME/.local/state/hopsig` (XDG Base Directory
/// specification: state that should persist between runs but is not worth a backup
/// of its own). `hopsig ndn subscriber` keeps its replay memory there too.
pub(crate) fn state_folder(flag: Option<&Path>) -> Result<(PathBuf, bool), Failure> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = flag {
        return Ok((dir.to_path_buf(), true));
    }
    if let Some(dir) = var("HOPSIG_STATE_DIR") {
        return Ok((dir, false));
    }
    // The XDG specification ignores a relative XDG_STATE_HOME.
    if let Some(xdg) = var("XDG_STATE_HOME").filter(|p| p.is_absolute()) {
        return Ok((xdg.join("hopsig"), false));
    }
    var("HOME")
        .map(|home| (home.join(".local/state/hopsig"), false))
        .ok_or_else(|| {
            Failure::Input(
                "no state folder (IBAS journals, NDN replay memory): set HOPSIG_STATE_DIR or HOME, or pass --state-dir (or, to sign, --journal)"
                    .into(),
            )
        })
}

/// The IBAS signer. The journal is `--journal FILE`, or the key's own file in the state
/// folder ([`state_folder`], named by `journal::file_name`), so that every copy of a
/// key shares it. Only the default state folder's journal is started unasked: a
/// journal named on the command line must exist unless `--new-journal` is given, since
/// a fresh journal would let the key sign again under every w it already used. A new
/// journal is announced on standard error. A version-1 journal `KEY.wlog` beside the
/// key is imported into it.
fn sign_ibas(args: &Args, text: &[u8]) -> Outcome {
    let key_path = args.key.as_path();
    let key = parse_key_file(key_path, text, UserKey::from_key_file)?;
    let msg = read(&args.msg, MAX_MESSAGE, "message")?;
    let agg_path = args.agg.as_deref();
    let so_far = agg_path
        .map(|p| {
            let bytes = read(p, MAX_AGGREGATE, "aggregate")?;
            IbasAggregate::from_bytes(&bytes).map_err(|e| at(p, e))
        })
        .transpose()?;
    let (journal_path, named) = match &args.journal {
        Some(file) => (file.clone(), true),
        None => {
            let (dir, named) = state_folder(args.state_dir.as_deref())?;
            (dir.join(journal::file_name(&key)), named)
        }
    };
    let new = if named && !args.new_journal {
        NewLog::Refused
    } else {
        NewLog::Allowed
    };
    let legacy = with_suffix(key_path, ".wlog");
    // Before w is claimed: a refusal to write must not cost anything.
    let mut files = output(args, &[key_path, &args.msg, &journal_path, &legacy])?;
    if args.journal.is_none() && new == NewLog::Allowed {
        if let Some(dir) = journal_path.parent() {
            create_private_folder(dir)?;
        }
    }
    let refused = |e: Error| {
        match e {
        Error::State(StateError::ReusedW { .. }) => {
            at(&journal_path, format!("refusing to sign: {e}"))
        }
        Error::State(StateError::Journal(e @ PersistError::NoLog { .. })) => Failure::Input(format!(
            "{e} for {:?}: give the journal this key signs with, or --new-journal to start one (a new journal does not know the w this key signed under before)",
            key.identity()
        )),
        Error::State(state) => Failure::Input(state.to_string()),
        Error::TooManySigners { max } => full(agg_path, max),
        other => Failure::Input(format!("signing failed: {other}")),
    }
    };
    let mut journal = Journal::open(&journal_path, &key, new).map_err(refused)?;
    if journal.started() {
        note(format_args!(
            "hopsig: note: started the IBAS journal {} for {:?}; keep it (and back it up) with the key",
            journal_path.display(),
            key.identity()
        ));
    }
    files.input(&journal_path);
    if args.journal.is_none() && legacy.exists() {
        let text = read(&legacy, MAX_JOURNAL_BYTES, "version-1 IBAS journal")?;
        let added = journal.import_v1(&legacy, &text).map_err(refused)?;
        if added > 0 {
            note(format_args!(
                "hopsig: imported {added} state strings from {} into {}",
                legacy.display(),
                journal_path.display()
            ));
        }
    }
    let agg = ibas::sign(&key, &msg, so_far.as_ref(), &mut journal).map_err(refused)?;
    let bytes = agg.to_bytes();
    files.add(&args.out, &bytes, Secrecy::Public)?;
    files.commit()?;
    say(format_args!(
        "{}: {} aggregate, {} signers, {} bytes (w recorded in {})",
        args.out.display(),
        ibas::ID,
        agg.signers(),
        bytes.len(),
        journal_path.display()
    ))
}
