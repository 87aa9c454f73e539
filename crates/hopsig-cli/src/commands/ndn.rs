//! `hopsig ndn publisher | moderator | subscriber`: 004's moderator-controlled
//! sharing over a real NDN forwarder (docs/spec/ndn-ibas.md): the publisher answers
//! Interest (2) with Data (3), the moderator answers Interest (1) by fetching (3),
//! verifying it and returning (4), the subscriber fetches (4) and verifies it. Each
//! role connects to the forwarder named by `--forwarder` (`unix:///PATH` or
//! `tcp://HOST:PORT`; default `$NDN_CLIENT_TRANSPORT`, else `unix:///run/nfd/nfd.sock`)
//! and registers its prefix there.
//!
//! The publisher and the moderator serve until `--count` or until the forwarder
//! closes their face: a packet they cannot decode is dropped and counted by reason,
//! logged one line at a time at most every [`DROP_LOG_EVERY`], and the counts are
//! printed when the role ends (docs/spec/ndn-ibas.md §5.1).

use std::collections::HashMap;
use std::net::ToSocketAddrs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use hopsig_ndn::face::ServeError;
use hopsig_ndn::moderation::{self, ModerationError, SeenW, Signer, Verifier};
use hopsig_ndn::{Face, FaceError, Interest, Name, SigningKey, VerifyingKey};
use hopsig_schemes::ibas::{Journal, PublicParams, UserKey};
use hopsig_schemes::primitives::persist::{create_private_folder, NewLog};

use crate::io::{self, at, note, read, read_key_file, read_secret, say, Failure, Outcome};

/// Largest message published.
const MAX_MESSAGE: u64 = 4096;

/// 004's publisher, moderator and subscriber over an NDN forwarder.
#[derive(clap::Args)]
#[command(
    after_help = "Exit codes: 0 success (subscriber: verified; publisher, moderator: --count answered), 1 the moderator's Data does not verify or repeats a state string w with another message (subscriber), 2 bad usage or input (a malformed packet included), forwarder unreachable, no answer, the forwarder closed the face.\n\nThe publisher and the moderator drop a packet they cannot decode (or over NDN's 8800 octets), count it by reason, log it (one line at most every 10 s) and serve on; they print the counts when they end."
)]
pub struct Args {
    #[command(subcommand)]
    role: Role,
}

#[derive(clap::Subcommand)]
enum Role {
    /// Publish a message: answer the moderator's Interests (2) with Data (3).
    Publisher(Publisher),
    /// Moderate: answer Interests (1) with Data (4) built from the publisher's (3).
    Moderator(Moderator),
    /// Fetch and verify the moderator's Data (4); print the message.
    Subscriber(Subscriber),
}

/// Signature scheme.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Scheme {
    /// Gentry–Ramzan IBAS on BLS12-381 (keys from `hopsig pkg`).
    Ibas,
    /// SignatureSha256WithRsa (keys from `hopsig keygen --scheme rsa2048-concat`, or PEM).
    Rsa,
    /// SignatureSha256WithEcdsa (keys from `hopsig keygen --scheme ecdsa-p256-concat`, or PEM).
    Ecdsa,
}

#[derive(clap::Args)]
struct Common {
    /// The forwarder: unix:///PATH or tcp://HOST:PORT [default: $NDN_CLIENT_TRANSPORT,
    /// else unix:///run/nfd/nfd.sock].
    #[arg(long)]
    forwarder: Option<String>,
    /// Signature scheme.
    #[arg(long, value_enum)]
    scheme: Scheme,
}

#[derive(clap::Args)]
struct SignerArgs {
    /// Secret key: an IBAS user key file (`hopsig pkg extract`), or an RSA / ECDSA
    /// private key (hopsig key file or PEM).
    #[arg(long)]
    key: PathBuf,
    /// IBAS: the journal of state strings w this key signed under (a reused w is
    /// refused). It must exist unless --new-journal is given.
    #[arg(long)]
    journal: Option<PathBuf>,
    /// IBAS: start the journal if there is none (only for a key that never signed
    /// elsewhere).
    #[arg(long)]
    new_journal: bool,
}

#[derive(clap::Args)]
struct VerifierArgs {
    /// IBAS: the PKG's public parameters (`params.pub` of `hopsig pkg setup`).
    #[arg(long)]
    params: Option<PathBuf>,
    /// RSA / ECDSA: the public key of an identity, ID=FILE (repeatable).
    #[arg(long = "trust", value_name = "ID=FILE")]
    trust: Vec<String>,
}

#[derive(clap::Args)]
struct Publisher {
    #[command(flatten)]
    common: Common,
    #[command(flatten)]
    signer: SignerArgs,
    /// The publisher's identity, a two-component name (e.g. /wonderland/Alice).
    #[arg(long)]
    id: String,
    /// The message file.
    #[arg(long)]
    message: PathBuf,
    /// The message's sequence number.
    #[arg(long, default_value_t = 1)]
    seq: u64,
    /// Stop after answering this many Interests [default: run until stopped].
    #[arg(long)]
    count: Option<u64>,
}

#[derive(clap::Args)]
struct Moderator {
    #[command(flatten)]
    common: Common,
    #[command(flatten)]
    signer: SignerArgs,
    #[command(flatten)]
    verifier: VerifierArgs,
    /// The moderator's identity, a two-component name (e.g. /moderators/Government).
    #[arg(long)]
    id: String,
    /// Stop after answering this many Interests [default: run until stopped].
    #[arg(long)]
    count: Option<u64>,
}

#[derive(clap::Args)]
struct Subscriber {
    #[command(flatten)]
    common: Common,
    #[command(flatten)]
    verifier: VerifierArgs,
    /// The moderator to ask.
    #[arg(long)]
    moderator: String,
    /// The publisher whose message to get.
    #[arg(long)]
    publisher: String,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
    /// IBAS: folder of the replay memory, the state strings w accepted so far with
    /// their messages (file ndn-seen-w.log; default $HOPSIG_STATE_DIR, else
    /// $XDG_STATE_HOME/hopsig, else ~/.local/state/hopsig). A second message under a
    /// w accepted before, in this run or an earlier one, is refused.
    #[arg(long)]
    state_dir: Option<PathBuf>,
}

impl Args {
    /// Whether the role runs until stopped (publisher, moderator).
    pub fn long_running(&self) -> bool {
        matches!(self.role, Role::Publisher(_) | Role::Moderator(_))
    }
}

/// Runs the role.
pub fn run(args: Args) -> Outcome {
    match args.role {
        Role::Publisher(p) => publisher(p),
        Role::Moderator(m) => moderator(m),
        Role::Subscriber(s) => subscriber(s),
    }
}

fn identity(text: &str, what: &str) -> Result<Name, Failure> {
    let name: Name = text
        .parse()
        .map_err(|e| Failure::Input(format!("{what}: {e}")))?;
    if name.len() != 2 {
        return Err(Failure::Input(format!(
            "{what} '{text}': an identity is a two-component name such as /wonderland/Alice (004 §5.1)"
        )));
    }
    Ok(name)
}

fn connect(common: &Common) -> Result<Face, Failure> {
    let addr = common
        .forwarder
        .clone()
        .or_else(|| std::env::var("NDN_CLIENT_TRANSPORT").ok())
        .unwrap_or_else(|| "unix:///run/nfd/nfd.sock".into());
    let fail = |e: &dyn std::fmt::Display| Failure::Input(format!("forwarder {addr}: {e}"));
    if let Some(path) = addr.strip_prefix("unix://") {
        return Face::unix(Path::new(path)).map_err(|e| fail(&e));
    }
    if let Some(host) = addr
        .strip_prefix("tcp://")
        .or_else(|| addr.strip_prefix("tcp4://"))
    {
        let sock = host
            .to_socket_addrs()
            .map_err(|e| fail(&e))?
            .next()
            .ok_or_else(|| fail(&"no address"))?;
        return Face::tcp(sock).map_err(|e| fail(&e));
    }
    Err(fail(&"not unix:///PATH or tcp://HOST:PORT"))
}

/// The signing key of `args` for `scheme`, and for IBAS its journal.
enum Key {
    Ibas(Box<(UserKey, Journal)>),
    Classic(SigningKey),
}

impl Key {
    fn load(scheme: Scheme, args: &SignerArgs, id: &Name) -> Result<Key, Failure> {
        let path = args.key.as_path();
        if scheme != Scheme::Ibas {
            if args.journal.is_some() || args.new_journal {
                return Err(Failure::Input(
                    "--journal and --new-journal are for --scheme ibas".into(),
                ));
            }
            let text = read_secret(path, 64 * 1024, "private key")?;
            let key = SigningKey::from_pem(&text).map_err(|e| at(path, e))?;
            let want = if scheme == Scheme::Rsa {
                hopsig_ndn::signature::signature_type::SHA256_WITH_RSA
            } else {
                hopsig_ndn::signature::signature_type::SHA256_WITH_ECDSA
            };
            if key.signature_type() != want {
                return Err(at(path, "the key does not match --scheme"));
            }
            return Ok(Key::Classic(key));
        }
        let key = read_key_file(path, "IBAS user key", UserKey::from_key_file)?;
        if key.identity() != id.to_string() {
            return Err(at(
                path,
                format!("the key is {:?}'s, not {id}'s", key.identity()),
            ));
        }
        let journal_path = args.journal.as_deref().ok_or_else(|| {
            Failure::Input(
                "--scheme ibas needs --journal FILE (with --new-journal the first time)".into(),
            )
        })?;
        let new = if args.new_journal {
            NewLog::Allowed
        } else {
            NewLog::Refused
        };
        let journal = Journal::open(journal_path, &key, new).map_err(|e| at(journal_path, e))?;
        Ok(Key::Ibas(Box::new((key, journal))))
    }

    fn signer(&mut self) -> Signer<'_> {
        match self {
            Key::Ibas(b) => {
                let (k, j) = &mut **b;
                Signer::Ibas(k, j)
            }
            Key::Classic(k) => Signer::Classic(k),
        }
    }
}

/// What verifies for `scheme`.
enum Trust {
    Ibas(Box<PublicParams>),
    Classic(HashMap<Name, VerifyingKey>),
}

impl Trust {
    fn load(scheme: Scheme, args: &VerifierArgs) -> Result<Trust, Failure> {
        if scheme == Scheme::Ibas {
            let path = args
                .params
                .as_deref()
                .ok_or_else(|| Failure::Input("--scheme ibas needs --params FILE".into()))?;
            return Ok(Trust::Ibas(Box::new(read_key_file(
                path,
                "IBAS parameters",
                PublicParams::from_key_file,
            )?)));
        }
        if args.trust.is_empty() {
            return Err(Failure::Input(
                "--scheme rsa / ecdsa needs --trust ID=FILE for each identity to verify".into(),
            ));
        }
        let mut keys = HashMap::new();
        for t in &args.trust {
            let (id, file) = t
                .split_once('=')
                .ok_or_else(|| Failure::Input(format!("--trust '{t}': not ID=FILE")))?;
            let path = Path::new(file);
            let text = read(path, 64 * 1024, "public key")?;
            let key = VerifyingKey::from_pem(&text).map_err(|e| at(path, e))?;
            keys.insert(identity(id, "--trust")?, key);
        }
        Ok(Trust::Classic(keys))
    }

    fn verifier(&self) -> Verifier<'_> {
        match self {
            Trust::Ibas(p) => Verifier::Ibas(p),
            Trust::Classic(k) => Verifier::Classic(k),
        }
    }
}

fn face_err(e: impl std::fmt::Display) -> Failure {
    Failure::Input(format!("forwarder: {e}"))
}

/// The end of a serving role: the drop counts, then `ended` as the outcome (the
/// forwarder closing the face is said in so many words).
fn finish(face: &Face, ended: Result<(), FaceError>) -> Outcome {
    note(format_args!(
        "hopsig ndn: packets dropped from the forwarder: {}",
        face.drops()
    ));
    ended.map_err(face_err)
}

/// Serves Interests under `prefix` until `count` were answered, each by `answer`
/// ([`Face::serve`]).
fn serve(
    face: &mut Face,
    prefix: &Name,
    count: Option<u64>,
    answer: impl FnMut(&Interest) -> Result<Option<hopsig_ndn::Data>, Failure>,
) -> Outcome {
    match face.serve(prefix, count, answer) {
        Ok(()) => finish(face, Ok(())),
        Err(ServeError::Face(e)) => finish(face, Err(e)),
        Err(ServeError::Answer(f)) => Err(f),
    }
}

fn publisher(p: Publisher) -> Outcome {
    let id = identity(&p.id, "--id")?;
    let message = read(&p.message, MAX_MESSAGE, "message")?;
    let mut key = Key::load(p.common.scheme, &p.signer, &id)?;
    let published = moderation::now();
    let data = moderation::publish(&id, p.seq, &published, &message, key.signer())
        .map_err(|e| Failure::Input(e.to_string()))?;
    let mut face = connect(&p.common)?;
    let name = moderation::moderator_interest(&id);
    serve(&mut face, &name, p.count, |i| {
        if !data.satisfies(i) {
            note(format_args!(
                "hopsig ndn: ignored an Interest: {} does not name {} (docs/spec/ndn-ibas.md §5.1)",
                i.name, data.name
            ));
            return Ok(None);
        }
        note(format_args!(
            "hopsig ndn: {} asked; answering {}",
            i.name, data.name
        ));
        Ok(Some(data.clone()))
    })
}

fn moderator(m: Moderator) -> Outcome {
    let id = identity(&m.id, "--id")?;
    let mut key = Key::load(m.common.scheme, &m.signer, &id)?;
    let trust = Trust::load(m.common.scheme, &m.verifier)?;
    let mut face = connect(&m.common)?;
    let app = id
        .clone()
        .child(hopsig_ndn::Component::generic(moderation::APP));
    face.produce(&app).map_err(face_err)?;
    let mut mseq = 0u64;
    let verifier = trust.verifier();
    // A Data (3) that comes again gets the Data (4) made of it before.
    let mut made = moderation::Made::default();
    // Several requests in flight; the moderator never relays what it could not verify.
    let served = moderation::serve_moderator(
        &mut face,
        &id,
        m.count,
        |three| {
            made.get_or_make(three, |three| {
                mseq += 1;
                moderation::moderate(
                    three,
                    &id,
                    mseq,
                    &moderation::now(),
                    &verifier,
                    key.signer(),
                )
            })
        },
        // A long-running role logs structured (crate::logging): the same messages,
        // with the event's kind and fields (docs/spec/speaker.md "Logs").
        |e| match e {
            moderation::ModeratorEvent::Answered(name, n) => tracing::info!(
                target: "hopsig",
                event = "ndn_answered",
                name = %name,
                waiting = n,
                "hopsig ndn: verified; answering {name} ({n} waiting)"
            ),
            moderation::ModeratorEvent::Refused(name, why) => tracing::info!(
                target: "hopsig",
                event = "ndn_refused",
                name = %name,
                reason = %why,
                "hopsig ndn: refused {name}: {why}"
            ),
            moderation::ModeratorEvent::NoAnswer(publisher, why) => tracing::info!(
                target: "hopsig",
                event = "ndn_no_answer",
                publisher = %publisher,
                reason = %why,
                "hopsig ndn: {publisher}: {why}"
            ),
            moderation::ModeratorEvent::Ignored(_, why) => tracing::info!(
                target: "hopsig",
                event = "ndn_ignored",
                reason = %why,
                "hopsig ndn: ignored an Interest: {why}"
            ),
        },
    );
    if served.is_ok() {
        face.linger();
    }
    finish(&face, served.map(drop))
}

/// The subscriber's replay memory: `ndn-seen-w.log` in the state folder (`--state-dir`,
/// else the default one of `hopsig sign`), created with the folder if need be
/// (docs/spec/ndn-ibas.md §5). RSA / ECDSA have no w: a memory in this process only.
fn seen_w(scheme: Scheme, dir: Option<&Path>) -> Result<SeenW, Failure> {
    if scheme != Scheme::Ibas {
        if dir.is_some() {
            return Err(Failure::Input("--state-dir is for --scheme ibas".into()));
        }
        return Ok(SeenW::memory());
    }
    let (dir, _) = super::sign::state_folder(dir)?;
    create_private_folder(&dir).map_err(|e| Failure::Input(e.to_string()))?;
    let path = dir.join(hopsig_ndn::seen::FILE_NAME);
    SeenW::open(&path).map_err(|e| Failure::Input(e.to_string()))
}

fn subscriber(s: Subscriber) -> Outcome {
    let (moderator, publisher) = (
        identity(&s.moderator, "--moderator")?,
        identity(&s.publisher, "--publisher")?,
    );
    if moderator == publisher {
        // A moderator never countersigns itself (docs/spec/ndn-ibas.md §1).
        return Err(Failure::Input(format!(
            "--publisher and --moderator are both {publisher}: a moderator does not moderate itself"
        )));
    }
    let trust = Trust::load(s.common.scheme, &s.verifier)?;
    let mut seen = seen_w(s.common.scheme, s.state_dir.as_deref())?;
    let mut face = connect(&s.common)?;
    let mut one = Interest::new(moderation::subscriber_interest(&moderator, &publisher));
    one.can_be_prefix = true;
    one.must_be_fresh = true;
    let started = Instant::now();
    let four = face.express(one).map_err(|e| match face.drops().total() {
        0 => face_err(e),
        _ => face_err(format!("{e}; packets dropped: {}", face.drops())),
    })?;
    let rtt = started.elapsed();
    let got = match moderation::receive(&four, &trust.verifier(), &mut seen) {
        Ok(g) => g,
        Err(e @ (ModerationError::BadSignature(_) | ModerationError::ReplayedW(..))) => {
            return Err(Failure::Invalid(format!("{}: {e}", four.name)))
        }
        Err(e) => return Err(Failure::Input(format!("{}: {e}", four.name))),
    };
    if s.json {
        return io::say_json(&serde_json::json!({
            "name": four.name.to_string(),
            "publisher": got.names.publisher.to_string(),
            "moderator": got.names.moderator.to_string(),
            "published": got.published.published,
            "accepted": got.accepted,
            "message": String::from_utf8_lossy(&got.published.message),
            "rtt_ms": rtt.as_secs_f64() * 1e3,
            "valid": true,
        }));
    }
    say(format_args!(
        "{}: valid ({} via {}, published {}, accepted {}, RTT {:.1} ms)",
        four.name,
        got.names.publisher,
        got.names.moderator,
        got.published.published,
        got.accepted,
        rtt.as_secs_f64() * 1e3
    ))?;
    // The message is the publisher's: control characters are escaped.
    say(format_args!(
        "message: {}",
        io::escape(&String::from_utf8_lossy(&got.published.message))
    ))
}
