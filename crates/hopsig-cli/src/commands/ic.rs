//! `hopsig ic`: the implicit-certificate steps of 003 §II-C (TTP setup, blinded
//! request, TTP issuing, final key, fused extraction + verification) as files. The
//! final key is an ordinary `ecdsa-k*` key file, so `hopsig sign` signs with it. The
//! steps that read files take the curve from them (their scheme id `icnr-k163` …).

use std::path::{Path, PathBuf};

use hopsig_schemes::concat::koblitz::{KoblitzPublic, KoblitzSecret};
use hopsig_schemes::concat::{BaseSignature, Concat};
use hopsig_schemes::pla::files;
use hopsig_schemes::pla::header::{certify, PlaCurve};
use hopsig_schemes::pla::icnr::{self, Ttp};
use hopsig_schemes::pla::koblitz::{Curve, TauTable, POINT_WIDTH};
use hopsig_schemes::primitives::armor::{KeyFile, KeyKind};
use hopsig_schemes::{Aggregate, Error, SequentialAggregate};

use crate::io::{
    at, key_file, outputs, read, read_key_file, say, with_suffix, Failure, Outcome, Secrecy,
    MAX_AGGREGATE, MAX_MESSAGE,
};

/// The TTP's secret inside a TTP folder.
const TTP_SECRET: &str = "ttp.key";
/// The TTP's public key inside a TTP folder.
const TTP_PUBLIC: &str = "ttp.pub";

/// A curve as `--curve` names it.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum CurveName {
    K163,
    K233,
    K283,
}

impl From<CurveName> for PlaCurve {
    fn from(c: CurveName) -> Self {
        match c {
            CurveName::K163 => PlaCurve::K163,
            CurveName::K233 => PlaCurve::K233,
            CurveName::K283 => PlaCurve::K283,
        }
    }
}

/// Implicit certificates for PLA (003 §II-C): TTP, request, issue, finalize, verify.
#[derive(clap::Args)]
pub struct Args {
    /// Curve of the files `ttp` and `request` create (default k163). The other steps
    /// read the curve from their input files; given to them, it must match.
    #[arg(long, global = true, value_enum)]
    curve: Option<CurveName>,
    #[command(subcommand)]
    step: Step,
}

#[derive(clap::Subcommand)]
enum Step {
    /// Create a TTP: DIR/ttp.key (0600) and DIR/ttp.pub.
    Ttp {
        /// Folder.
        #[arg(long)]
        out: PathBuf,
        /// Overwrite.
        #[arg(long)]
        force: bool,
    },
    /// Alice's blinded request: FILE (secret, 0600) and FILE.req for the TTP.
    Request {
        /// Blind file to write.
        #[arg(long)]
        out: PathBuf,
        /// Overwrite.
        #[arg(long)]
        force: bool,
    },
    /// The TTP certifies an identity for a request.
    Issue {
        /// TTP folder.
        #[arg(long)]
        ttp: PathBuf,
        /// Identity (e.g. the IPv6 source address): 1 to 1024 bytes of UTF-8.
        #[arg(long)]
        id: String,
        /// Request file (FILE.req).
        #[arg(long)]
        request: PathBuf,
        /// Answer file to write (secret, 0600).
        #[arg(long)]
        out: PathBuf,
        /// Overwrite.
        #[arg(long)]
        force: bool,
    },
    /// Alice's final key (an ecdsa-k* key file) and public certificate FILE.cert.
    Finalize {
        /// Blind file.
        #[arg(long)]
        blind: PathBuf,
        /// The TTP's answer.
        #[arg(long)]
        issued: PathBuf,
        /// TTP public key (DIR/ttp.pub).
        #[arg(long)]
        ttp_pub: PathBuf,
        /// Key file to write.
        #[arg(long)]
        out: PathBuf,
        /// Overwrite.
        #[arg(long)]
        force: bool,
    },
    /// The TTP signs a host's public key (PLA's certificate-based layout): a key
    /// certificate FILE for `hopsig pla sign-pcap --cert`.
    CertifyKey {
        /// TTP folder.
        #[arg(long)]
        ttp: PathBuf,
        /// The host's public key (an ecdsa-k* .pub file from `hopsig keygen`).
        #[arg(long)]
        public: PathBuf,
        /// Key certificate to write.
        #[arg(long)]
        out: PathBuf,
        /// Overwrite.
        #[arg(long)]
        force: bool,
    },
    /// Verify a `hopsig sign` signature, extracting the key from the certificate in
    /// the same multi-scalar multiplication (exit 0 valid, 1 invalid, 2 input that
    /// does not decode).
    Verify {
        /// TTP public key.
        #[arg(long)]
        ttp_pub: PathBuf,
        /// Certificate (FILE.cert).
        #[arg(long)]
        cert: PathBuf,
        /// Message file.
        #[arg(long)]
        msg: PathBuf,
        /// Signature file from `hopsig sign` (an aggregate of one signer), or a bare
        /// DER ECDSA signature.
        #[arg(long)]
        agg: PathBuf,
    },
}

/// The key file a step reads first, read and parsed once: it names the curve the step
/// runs on, and the step reads its key from it.
struct Input {
    path: PathBuf,
    file: KeyFile,
}

impl Input {
    /// Reads and parses the key file at `path` (`what` names it in errors).
    fn read(path: PathBuf, what: &str) -> Result<Self, Failure> {
        let file = key_file(&path, what)?;
        Ok(Input { path, file })
    }

    /// Its curve, which must be `given` if that is set.
    fn curve(&self, given: Option<CurveName>) -> Result<PlaCurve, Failure> {
        let curve = files::curve_of(&self.file).map_err(|e| at(&self.path, e))?;
        match given.map(PlaCurve::from) {
            Some(wanted) if wanted != curve => Err(at(
                &self.path,
                format!(
                    "an icnr file on {} rather than {} as --curve says",
                    curve.name(),
                    wanted.name()
                ),
            )),
            _ => Ok(curve),
        }
    }

    /// Its contents, as `reader` reads them.
    fn key<T>(&self, reader: impl FnOnce(&KeyFile) -> Result<T, Error>) -> Result<T, Failure> {
        reader(&self.file).map_err(|e| at(&self.path, e))
    }
}

/// Runs the step on its curve: `--curve` for the steps that create files, the curve of
/// the first file read for the others.
pub fn run(args: Args) -> Outcome {
    let given = args.curve;
    let new = || given.map_or(PlaCurve::K163, Into::into);
    match args.step {
        Step::Ttp { out, force } => on_curve!(new(), ttp::<C>(&out, force)),
        Step::Request { out, force } => on_curve!(new(), request::<C>(&out, force)),
        Step::Issue {
            ttp,
            id,
            request,
            out,
            force,
        } => {
            let key = Input::read(ttp.join(TTP_SECRET), "TTP key")?;
            on_curve!(
                key.curve(given)?,
                issue::<C>(&key, &id, &request, &out, force)
            )
        }
        Step::Finalize {
            blind,
            issued,
            ttp_pub,
            out,
            force,
        } => {
            let blind = Input::read(blind, "blind")?;
            on_curve!(
                blind.curve(given)?,
                finalize::<C, B>(&blind, &issued, &ttp_pub, &out, force)
            )
        }
        Step::CertifyKey {
            ttp,
            public,
            out,
            force,
        } => {
            let key = Input::read(ttp.join(TTP_SECRET), "TTP key")?;
            on_curve!(
                key.curve(given)?,
                certify_key::<C, B>(&key, &public, &out, force)
            )
        }
        Step::Verify {
            ttp_pub,
            cert,
            msg,
            agg,
        } => {
            let ttp_pub = Input::read(ttp_pub, "TTP public key")?;
            on_curve!(
                ttp_pub.curve(given)?,
                verify::<C, B>(&ttp_pub, &cert, &msg, &agg)
            )
        }
    }
}

fn fail(e: Error) -> Failure {
    Failure::Input(e.to_string())
}

/// `ic ttp`: the TTP's secret and public key, together or neither.
fn ttp<C: Curve>(out: &Path, force: bool) -> Outcome {
    let (secret_path, public_path) = (out.join(TTP_SECRET), out.join(TTP_PUBLIC));
    let mut written = outputs(force, []);
    written.folder(out)?;
    written.check(&secret_path)?;
    written.check(&public_path)?;
    let (secret, public) = files::ttp_files(&Ttp::<C>::setup().map_err(fail)?).map_err(fail)?;
    written.add(&secret_path, secret.as_bytes(), Secrecy::Secret)?;
    written.add(&public_path, public.as_bytes(), Secrecy::Public)?;
    written.commit()?;
    say(format_args!(
        "{}: TTP secret; {}: TTP public key",
        secret_path.display(),
        public_path.display()
    ))
}

/// `ic request`: Alice's blinding secret and her request, together or neither.
fn request<C: Curve>(out: &Path, force: bool) -> Outcome {
    let (secret, request) = files::blind_files(&icnr::blind::<C>().map_err(fail)?).map_err(fail)?;
    let req = with_suffix(out, ".req");
    let mut written = outputs(force, []);
    written.add(out, secret.as_bytes(), Secrecy::Secret)?;
    written.add(&req, request.as_bytes(), Secrecy::Public)?;
    written.commit()?;
    say(format_args!(
        "{}: blinding secret (keep); {}: request for the TTP",
        out.display(),
        req.display()
    ))
}

/// `ic issue`: the TTP certifies `id`. The identity rule is the library's
/// (`Ttp::issue`, the rule `pkg extract` applies), its error blamed on `--id`.
fn issue<C: Curve>(ttp: &Input, id: &str, request: &Path, out: &Path, force: bool) -> Outcome {
    let t = ttp.key(files::ttp_from_file::<C>)?;
    let r = read_key_file(request, "request", files::request_from_file::<C>)?;
    let issued = t.issue(id.as_bytes(), &r).map_err(|e| match e {
        e @ Error::IdentityLength { .. } => Failure::Input(format!("--id: {e}")),
        e => at(request, e),
    })?;
    let mut written = outputs(force, [ttp.path.as_path(), request]);
    written.add(
        out,
        files::issued_file::<C>(id.as_bytes(), &issued)
            .map_err(fail)?
            .as_bytes(),
        Secrecy::Secret,
    )?;
    written.commit()?;
    say(format_args!(
        "{}: certificate and private share for {id:?}",
        out.display()
    ))
}

/// `ic finalize`: Alice's final key (an ecdsa-k* key file) and her certificate.
fn finalize<C: Curve, B: BaseSignature<SecretKey = KoblitzSecret<C>>>(
    blind: &Input,
    issued: &Path,
    ttp_pub: &Path,
    out: &Path,
    force: bool,
) -> Outcome {
    let b = blind.key(files::blind_from_file::<C>)?;
    let (id, iss) = read_key_file(issued, "TTP answer", files::issued_from_file::<C>)?;
    let w_t = read_key_file(ttp_pub, "TTP public key", files::ttp_public_from_file::<C>)?;
    let key = icnr::finalkey(&b, &iss, &id, &w_t).map_err(|e| at(issued, e))?;
    let pem = B::secret_to_pem(&key).map_err(fail)?;
    let text = KeyFile::render(B::ID, KeyKind::Secret, &[pem.as_str()]);
    let cert = with_suffix(out, ".cert");
    let mut written = outputs(force, [blind.path.as_path(), issued, ttp_pub]);
    written.add(out, text.as_bytes(), Secrecy::Secret)?;
    written.add(
        &cert,
        files::cert_file::<C>(&id, &iss.cert).as_bytes(),
        Secrecy::Public,
    )?;
    written.commit()?;
    say(format_args!(
        "{}: {} key (use with hopsig sign); {}: implicit certificate",
        out.display(),
        B::ID,
        cert.display()
    ))
}

/// `ic certify-key`: the TTP's signature on a host's public key.
fn certify_key<
    C: Curve,
    B: BaseSignature<SecretKey = KoblitzSecret<C>, PublicKey = KoblitzPublic<C>>,
>(
    ttp: &Input,
    public: &Path,
    out: &Path,
    force: bool,
) -> Outcome {
    let t = ttp.key(files::ttp_from_file::<C>)?;
    let q = read_key_file(public, "public key", |f| {
        if f.scheme != B::ID {
            return Err(Error::Mismatch(format!(
                "expected an {} public key, found {}",
                B::ID,
                f.scheme
            )));
        }
        B::public_from_der(&f.block("PUBLIC KEY")?.der)
    })?;
    let q = *q.point();
    let sig = certify(&t.signing_key().map_err(fail)?, &q).map_err(fail)?;
    let mut written = outputs(force, [ttp.path.as_path(), public]);
    written.add(
        out,
        files::key_cert_file::<C>(&q, &sig).as_bytes(),
        Secrecy::Public,
    )?;
    written.commit()?;
    say(format_args!(
        "{}: key certificate for {} (hopsig pla sign-pcap --cert)",
        out.display(),
        public.display()
    ))
}

/// `ic verify`: fused key extraction and verification.
fn verify<C: Curve, B: BaseSignature<SecretKey = KoblitzSecret<C>>>(
    ttp_pub: &Input,
    cert: &Path,
    msg: &Path,
    agg: &Path,
) -> Outcome {
    let w_t = ttp_pub.key(files::ttp_public_from_file::<C>)?;
    let (id, c) = read_key_file(cert, "certificate", files::cert_from_file::<C>)?;
    let m = read(msg, MAX_MESSAGE, "message")?;
    // The decoder `hopsig verify` uses: malformed is exit 2, not "invalid".
    let bytes = read(agg, MAX_AGGREGATE, "signature")?;
    let sig = Concat::<B>::new()
        .aggregate_from_bytes(&bytes)
        .map_err(|e| at(agg, e))?;
    let signer = String::from_utf8_lossy(&id);
    if sig.signers() != 1 {
        return Err(Failure::Invalid(format!(
            "{} holds {} signatures but one (certificate, message) pair was given",
            agg.display(),
            sig.signers()
        )));
    }
    let table = TauTable::new_vartime(&w_t, POINT_WIDTH);
    let der = sig.signature(1).unwrap_or_default();
    if !icnr::verify_fused(&id, &c, &table, &m, der) {
        return Err(Failure::Invalid(format!(
            "{} does not verify for {signer:?} under {}",
            agg.display(),
            cert.display()
        )));
    }
    say(format_args!(
        "valid: signed by {signer:?} (key extracted from {})",
        cert.display()
    ))
}
