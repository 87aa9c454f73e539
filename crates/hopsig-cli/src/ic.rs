//! `hopsig ic`: the implicit-certificate steps of 003 §II-C (TTP setup, blinded
//! request, TTP issuing, final key, fused extraction + verification) as files. The
//! final key is an ordinary `ecdsa-k*` key file, so `hopsig sign` signs with it.

use std::path::Path;

use hopsig_schemes::concat::{BaseSignature, EcdsaK163, EcdsaK233, EcdsaK283};
use hopsig_schemes::pla::files;
use hopsig_schemes::pla::icnr::{self, Ttp};
use hopsig_schemes::pla::koblitz::{Curve, TauTable, K163, K233, K283, POINT_WIDTH};
use hopsig_schemes::primitives::armor::{KeyFile, KeyKind};
use hopsig_schemes::wire::Header;

use crate::io::{outputs, read, with_suffix, Secrecy, MAX_AGGREGATE, MAX_KEY, MAX_MESSAGE};
use crate::{Failure, Outcome};

/// One `hopsig ic` step.
pub enum Step<'a> {
    /// TTP setup into a folder.
    Ttp { out: &'a Path, force: bool },
    /// Alice's blinded request.
    Request { out: &'a Path, force: bool },
    /// The TTP issues a certificate.
    Issue {
        ttp: &'a Path,
        id: &'a str,
        request: &'a Path,
        out: &'a Path,
        force: bool,
    },
    /// Alice computes her key and public certificate.
    Finalize {
        blind: &'a Path,
        issued: &'a Path,
        ttp_pub: &'a Path,
        out: &'a Path,
        force: bool,
    },
    /// Fused extraction + verification of a `hopsig sign` output.
    Verify {
        ttp_pub: &'a Path,
        cert: &'a Path,
        msg: &'a Path,
        agg: &'a Path,
    },
}

fn key_file(path: &Path, what: &str) -> Result<KeyFile, Failure> {
    let text = read(path, MAX_KEY, what)?;
    KeyFile::parse(&text).map_err(|e| input(path, e))
}

fn input(path: &Path, e: impl std::fmt::Display) -> Failure {
    Failure::Input(format!("{}: {e}", path.display()))
}

/// Runs a step on the curve named `curve` (k163, k233, k283).
pub fn run(curve: &str, step: Step<'_>) -> Outcome {
    match curve {
        "k163" => run_on::<K163, EcdsaK163>(step),
        "k233" => run_on::<K233, EcdsaK233>(step),
        "k283" => run_on::<K283, EcdsaK283>(step),
        other => Err(Failure::Input(format!(
            "--curve must be k163, k233 or k283, not {other:?}"
        ))),
    }
}

fn run_on<
    C: Curve,
    B: BaseSignature<SecretKey = hopsig_schemes::concat::koblitz::KoblitzSecret<C>>,
>(
    step: Step<'_>,
) -> Outcome {
    let fail = |e: hopsig_schemes::Error| Failure::Input(e.to_string());
    match step {
        Step::Ttp { out, force } => {
            let mut written = outputs(force, []);
            written.folder(out)?;
            written.check(&out.join("ttp.key"))?;
            written.check(&out.join("ttp.pub"))?;
            let (secret, public) =
                files::ttp_files(&Ttp::<C>::setup().map_err(fail)?).map_err(fail)?;
            written.add(&out.join("ttp.key"), secret.as_bytes(), Secrecy::Secret)?;
            written.add(&out.join("ttp.pub"), public.as_bytes(), Secrecy::Public)?;
            written.commit()?;
            println!(
                "{}: TTP secret; {}: TTP public key",
                out.join("ttp.key").display(),
                out.join("ttp.pub").display()
            );
        }
        Step::Request { out, force } => {
            let (secret, request) =
                files::blind_files(&icnr::blind::<C>().map_err(fail)?).map_err(fail)?;
            let req = with_suffix(out, ".req");
            let mut written = outputs(force, []);
            written.add(out, secret.as_bytes(), Secrecy::Secret)?;
            written.add(&req, request.as_bytes(), Secrecy::Public)?;
            written.commit()?;
            println!(
                "{}: blinding secret (keep); {}: request for the TTP",
                out.display(),
                req.display()
            );
        }
        Step::Issue {
            ttp,
            id,
            request,
            out,
            force,
        } => {
            let path = ttp.join("ttp.key");
            let t = files::ttp_from_file::<C>(&key_file(&path, "TTP key")?)
                .map_err(|e| input(&path, e))?;
            let r = files::request_from_file::<C>(&key_file(request, "request")?)
                .map_err(|e| input(request, e))?;
            let issued = t.issue(id.as_bytes(), &r).map_err(|e| input(request, e))?;
            let mut written = outputs(force, [path.as_path(), request]);
            written.add(
                out,
                files::issued_file::<C>(id.as_bytes(), &issued)
                    .map_err(fail)?
                    .as_bytes(),
                Secrecy::Secret,
            )?;
            written.commit()?;
            println!(
                "{}: certificate and private share for {id:?}",
                out.display()
            );
        }
        Step::Finalize {
            blind,
            issued,
            ttp_pub,
            out,
            force,
        } => {
            let b = files::blind_from_file::<C>(&key_file(blind, "blind")?)
                .map_err(|e| input(blind, e))?;
            let (id, iss) = files::issued_from_file::<C>(&key_file(issued, "issued certificate")?)
                .map_err(|e| input(issued, e))?;
            let w_t = files::ttp_public_from_file::<C>(&key_file(ttp_pub, "TTP public key")?)
                .map_err(|e| input(ttp_pub, e))?;
            let key = icnr::finalkey(&b, &iss, &id, &w_t).map_err(|e| input(issued, e))?;
            let pem = B::secret_to_pem(&key).map_err(fail)?;
            let text = KeyFile::render(B::ID, KeyKind::Secret, &[pem.as_str()]);
            let cert = with_suffix(out, ".cert");
            let mut written = outputs(force, [blind, issued, ttp_pub]);
            written.add(out, text.as_bytes(), Secrecy::Secret)?;
            written.add(
                &cert,
                files::cert_file::<C>(&id, &iss.cert).as_bytes(),
                Secrecy::Public,
            )?;
            written.commit()?;
            println!(
                "{}: {} key (use with hopsig sign); {}: implicit certificate",
                out.display(),
                B::ID,
                cert.display()
            );
        }
        Step::Verify {
            ttp_pub,
            cert,
            msg,
            agg,
        } => {
            let w_t = files::ttp_public_from_file::<C>(&key_file(ttp_pub, "TTP public key")?)
                .map_err(|e| input(ttp_pub, e))?;
            let (id, c) = files::cert_from_file::<C>(&key_file(cert, "certificate")?)
                .map_err(|e| input(cert, e))?;
            let m = read(msg, MAX_MESSAGE, "message")?;
            let bytes = read(agg, MAX_AGGREGATE, "signature")?;
            let header = Header::peek(&bytes).map_err(|e| input(agg, e))?;
            if header.code != B::CODE || header.signers.get() != 1 {
                return Err(input(agg, format!("not a single {} signature", B::ID)));
            }
            let sig = &bytes[hopsig_schemes::wire::HEADER_LEN..];
            let ok = icnr::verify_fused(&id, &c, &TauTable::new(&w_t, POINT_WIDTH), &m, sig);
            if !ok {
                return Err(Failure::Invalid(format!(
                    "{} does not verify for {:?} under {}",
                    agg.display(),
                    String::from_utf8_lossy(&id),
                    cert.display()
                )));
            }
            println!(
                "valid: signed by {:?} (key extracted from {})",
                String::from_utf8_lossy(&id),
                cert.display()
            );
        }
    }
    Ok(())
}
