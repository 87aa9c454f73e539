//! `hopsig pkg`: the Private Key Generator of the identity-based aggregate
//! (`ibas-bls12381`): setup and key extraction.

use std::path::{Path, PathBuf};

use hopsig_schemes::ibas::Pkg;

use crate::io::{outputs, read_key_file, say, Failure, Outcome, Secrecy};

/// The master secret inside a PKG folder.
pub const PKG_SECRET: &str = "pkg.key";
/// The public parameters inside a PKG folder.
pub const PKG_PARAMS: &str = "params.pub";

/// Private Key Generator for identity-based aggregates (ibas-bls12381).
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Create a PKG: master secret to DIR/pkg.key (mode 0600), public parameters to
    /// DIR/params.pub.
    Setup {
        /// Folder to create or use.
        #[arg(long)]
        out: PathBuf,
        /// Overwrite an existing PKG there.
        #[arg(long)]
        force: bool,
    },
    /// Extract the private key of an identity (e.g. an NDN name) into FILE.
    Extract {
        /// PKG folder (reads DIR/pkg.key).
        #[arg(long)]
        pkg: PathBuf,
        /// The identity: 1 to 1024 bytes of UTF-8.
        #[arg(long)]
        id: String,
        /// Key file to write (mode 0600).
        #[arg(long)]
        out: PathBuf,
        /// Overwrite an existing file.
        #[arg(long)]
        force: bool,
    },
}

/// Runs the action.
pub fn run(args: Args) -> Outcome {
    match args.action {
        Action::Setup { out, force } => setup(&out, force),
        Action::Extract {
            pkg,
            id,
            out,
            force,
        } => extract(&pkg, &id, &out, force),
    }
}

/// `hopsig pkg setup --out DIR`: both files together or neither.
fn setup(dir: &Path, force: bool) -> Outcome {
    let secret = dir.join(PKG_SECRET);
    let params = dir.join(PKG_PARAMS);
    let mut files = outputs(force, []);
    files.folder(dir)?;
    files.check(&secret)?;
    files.check(&params)?;
    let pkg = Pkg::setup().map_err(|e| Failure::Input(format!("PKG setup failed: {e}")))?;
    files.add(&secret, pkg.to_key_file().as_bytes(), Secrecy::Secret)?;
    files.add(
        &params,
        pkg.params().to_key_file().as_bytes(),
        Secrecy::Public,
    )?;
    files.commit()?;
    say(format_args!(
        "{}: PKG master secret (keep it offline)",
        secret.display()
    ))?;
    say(format_args!(
        "{}: public parameters, fingerprint {}",
        params.display(),
        hex::encode(pkg.params().fingerprint())
    ))
}

/// `hopsig pkg extract --pkg DIR --id ID --out FILE`.
fn extract(dir: &Path, identity: &str, out: &Path, force: bool) -> Outcome {
    let path = dir.join(PKG_SECRET);
    let pkg = read_key_file(&path, "PKG secret file", Pkg::from_key_file)?;
    let key = pkg
        .extract(identity)
        .map_err(|e| Failure::Input(format!("--id: {e}")))?;
    let mut files = outputs(force, [path.as_path()]);
    files.add(out, key.to_key_file().as_bytes(), Secrecy::Secret)?;
    files.commit()?;
    say(format_args!(
        "{}: IBAS key for identity {identity:?}",
        out.display()
    ))
}
