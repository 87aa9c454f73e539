//! `hopsig keygen`: a key pair of a sequential scheme.

use std::path::PathBuf;

use crate::io::{outputs, say, with_suffix, Failure, Outcome, Secrecy};

/// Generate a key pair: secret key to FILE, public key to FILE.pub.
#[derive(clap::Args)]
pub struct Args {
    /// Scheme id (see `hopsig schemes`).
    #[arg(long)]
    scheme: String,
    /// Secret key file to write (mode 0600); the public key goes to FILE.pub.
    #[arg(long)]
    out: PathBuf,
    /// Overwrite existing files.
    #[arg(long)]
    force: bool,
}

/// Writes both files together or neither.
pub fn run(args: Args) -> Outcome {
    let s = super::scheme(&args.scheme)?;
    let (out, pub_out) = (&args.out, with_suffix(&args.out, ".pub"));
    let mut files = outputs(args.force, []);
    files.check(out)?;
    files.check(&pub_out)?;
    let key = s
        .generate()
        .map_err(|e| Failure::Input(format!("key generation failed: {e}")))?;
    let secret = key
        .to_key_file()
        .map_err(|e| Failure::Input(e.to_string()))?;
    let public = key.verifying_key().to_key_file();
    files.add(out, secret.as_bytes(), Secrecy::Secret)?;
    files.add(&pub_out, public.as_bytes(), Secrecy::Public)?;
    files.commit()?;
    say(format_args!("{}: secret key ({})", out.display(), s.id()))?;
    say(format_args!("{}: public key", pub_out.display()))
}
