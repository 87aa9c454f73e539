//! Files for the implicit-certificate steps (`hopsig ic`), as hopsig key files
//! (`docs/spec/keys.md`) with scheme id `icnr-k163` / `icnr-k233` / `icnr-k283` and the
//! blocks listed in `docs/spec/pla.md`.

use hopsig_koblitz::curve::{Affine, Curve, K163, K233, K283};
use hopsig_koblitz::scalar::SecretScalar;
use hopsig_koblitz::Fe;
use hopsig_primitives::armor::{KeyFile, KeyKind};
use hopsig_primitives::rsa::pem_block;
use zeroize::Zeroizing;

use super::header::PlaCurve;
use super::icnr::{decompress_d, Blind, ImplicitCert, Issued, Ttp};
use crate::concat::koblitz::secret_scalar;
use crate::keyblock::expect_blocks;
use crate::Error;

const TTP_SECRET: &str = "HOPSIG ICNR TTP SECRET";
const TTP_PUBLIC: &str = "HOPSIG ICNR TTP PUBLIC";
const BLIND: &str = "HOPSIG ICNR BLIND";
const REQUEST: &str = "HOPSIG ICNR REQUEST";
const SHARE: &str = "HOPSIG ICNR SHARE";
const IDENTITY: &str = "HOPSIG ICNR IDENTITY";
const CERT: &str = "HOPSIG ICNR CERT";
const KEY: &str = "HOPSIG PLA KEY";
const TTP_SIGNATURE: &str = "HOPSIG PLA TTP SIGNATURE";

/// The scheme id of implicit-certificate files on curve `C`.
pub fn scheme_id<C: Curve>() -> String {
    format!("icnr-{}", C::NAME.to_lowercase())
}

fn check<C: Curve>(file: &KeyFile, kind: KeyKind, blocks: &[&str]) -> Result<(), Error> {
    if file.scheme != scheme_id::<C>() || file.kind != kind {
        return Err(Error::Mismatch(format!(
            "expected a {} {} file, found {} {}",
            scheme_id::<C>(),
            kind.as_str(),
            file.scheme,
            file.kind.as_str()
        )));
    }
    expect_blocks(file, blocks)
}

/// A secret scalar block: L = bytes(n) big-endian bytes in [1, n − 1] (in [0, n − 1]
/// for the share s̄_A), read in constant time.
fn scalar<C: Curve>(
    file: &KeyFile,
    label: &str,
    allow_zero: bool,
) -> Result<SecretScalar<C>, Error> {
    secret_scalar::<C>(&file.block(label)?.der, allow_zero).ok_or_else(|| {
        let range = if allow_zero {
            "[0, n − 1]"
        } else {
            "[1, n − 1]"
        };
        Error::Key(format!("{label}: not a scalar in {range}"))
    })
}

/// A point block: SEC 1 compressed (`02`/`03` ‖ x, docs/spec/pla.md), in the subgroup,
/// not ∞.
fn point<C: Curve>(file: &KeyFile, label: &str) -> Result<Affine<C>, Error> {
    let bytes = &file.block(label)?.der;
    if !matches!(bytes.first(), Some(0x02 | 0x03)) {
        return Err(Error::Key(format!(
            "{label}: not a SEC 1 compressed point (02 or 03 ‖ x)"
        )));
    }
    let p =
        Affine::<C>::from_sec1_vartime(bytes).map_err(|e| Error::Key(format!("{label}: {e}")))?;
    if p.is_infinity() || !p.in_subgroup_fast_vartime() {
        return Err(Error::Key(format!("{label}: not a point of the subgroup")));
    }
    Ok(p)
}

fn secret_block<C: Curve>(label: &str, k: &SecretScalar<C>) -> Zeroizing<String> {
    pem_block(label, &k.to_be_bytes())
}

/// A secret file (the scalar, then the point) and the public file (the point alone).
fn key_pair_files<C: Curve>(
    secret_label: &str,
    k: &SecretScalar<C>,
    public_label: &str,
    point: &Affine<C>,
) -> Result<(Zeroizing<String>, String), Error> {
    let public = pem_block(public_label, &point.to_sec1(true));
    let secret = secret_block::<C>(secret_label, k);
    Ok((
        KeyFile::render(
            &scheme_id::<C>(),
            KeyKind::Secret,
            &[secret.as_str(), &public],
        ),
        KeyFile::render(&scheme_id::<C>(), KeyKind::Public, &[&public]).to_string(),
    ))
}

/// The TTP's secret and public files.
///
/// # Errors
/// Backend failures.
pub fn ttp_files<C: Curve>(ttp: &Ttp<C>) -> Result<(Zeroizing<String>, String), Error> {
    key_pair_files::<C>(TTP_SECRET, ttp.secret(), TTP_PUBLIC, ttp.public())
}

/// Reads a TTP secret file (checks W_T = s_T·G).
///
/// # Errors
/// Malformed files or a mismatched key.
pub fn ttp_from_file<C: Curve>(file: &KeyFile) -> Result<Ttp<C>, Error> {
    check::<C>(file, KeyKind::Secret, &[TTP_SECRET, TTP_PUBLIC])?;
    Ttp::from_parts(
        scalar::<C>(file, TTP_SECRET, false)?,
        &point::<C>(file, TTP_PUBLIC)?,
    )
}

/// Reads a TTP public file: W_T.
///
/// # Errors
/// Malformed files.
pub fn ttp_public_from_file<C: Curve>(file: &KeyFile) -> Result<Affine<C>, Error> {
    check::<C>(file, KeyKind::Public, &[TTP_PUBLIC])?;
    point::<C>(file, TTP_PUBLIC)
}

/// Alice's blind (secret k_A) and request (public k_A·G) files.
///
/// # Errors
/// Backend failures.
pub fn blind_files<C: Curve>(b: &Blind<C>) -> Result<(Zeroizing<String>, String), Error> {
    key_pair_files::<C>(BLIND, b.secret(), REQUEST, b.request())
}

/// Reads a blind file.
///
/// # Errors
/// Malformed files or k_A·G ≠ request.
pub fn blind_from_file<C: Curve>(file: &KeyFile) -> Result<Blind<C>, Error> {
    check::<C>(file, KeyKind::Secret, &[BLIND, REQUEST])?;
    Blind::from_parts(
        scalar::<C>(file, BLIND, false)?,
        &point::<C>(file, REQUEST)?,
    )
}

/// Reads a request file: k_A·G.
///
/// # Errors
/// Malformed files.
pub fn request_from_file<C: Curve>(file: &KeyFile) -> Result<Affine<C>, Error> {
    check::<C>(file, KeyKind::Public, &[REQUEST])?;
    point::<C>(file, REQUEST)
}

fn cert_block(cert: &ImplicitCert) -> Zeroizing<String> {
    let mut bytes = cert.r.clone();
    bytes.push(u8::from(cert.b));
    pem_block(CERT, &bytes)
}

/// The identity block: 1 to 1,024 bytes, as every identity.
fn identity(file: &KeyFile) -> Result<Vec<u8>, Error> {
    let id = file.block(IDENTITY)?.der.to_vec();
    crate::ibas::check_identity(&id).map_err(|e| Error::Key(format!("{IDENTITY}: {e}")))?;
    Ok(id)
}

/// The certificate block for `id`: r_A (F bytes, below 2^m) and b_A (0 or 1), which must
/// decode to D = DECOMPRESS(r_A − H(ID), b_A), a point of the subgroup
/// (docs/spec/pla.md, ICNR_extract). A certificate that does not is malformed, decided
/// from the file alone.
fn cert_from<C: Curve>(file: &KeyFile, id: &[u8]) -> Result<ImplicitCert, Error> {
    let bytes = &file.block(CERT)?.der;
    let f = Fe::<C::F>::BYTES;
    let cert = match bytes.get(f) {
        Some(&b) if bytes.len() == f + 1 && b <= 1 => ImplicitCert {
            r: bytes[..f].to_vec(),
            b: b == 1,
        },
        _ => {
            return Err(Error::Key(format!(
                "{CERT}: expected r_A ({f} bytes) and b_A (0 or 1)"
            )))
        }
    };
    if decompress_d::<C>(id, &cert).is_none() {
        return Err(Error::Key(format!(
            "{CERT}: (r_A, b_A) does not decode to a point of the subgroup for this identity"
        )));
    }
    Ok(cert)
}

/// The TTP's answer to Alice (secret: her share s̄_A and the certificate).
///
/// # Errors
/// Backend failures.
pub fn issued_file<C: Curve>(id: &[u8], issued: &Issued<C>) -> Result<Zeroizing<String>, Error> {
    let share = secret_block::<C>(SHARE, issued.share());
    Ok(KeyFile::render(
        &scheme_id::<C>(),
        KeyKind::Secret,
        &[
            &pem_block(IDENTITY, id),
            &cert_block(&issued.cert),
            share.as_str(),
        ],
    ))
}

/// Reads the TTP's answer: (identity, issued).
///
/// # Errors
/// Malformed files.
pub fn issued_from_file<C: Curve>(file: &KeyFile) -> Result<(Vec<u8>, Issued<C>), Error> {
    check::<C>(file, KeyKind::Secret, &[IDENTITY, CERT, SHARE])?;
    let id = identity(file)?;
    let share = scalar::<C>(file, SHARE, true)?;
    let cert = cert_from::<C>(file, &id)?;
    Ok((id, Issued::from_parts(cert, share)))
}

/// The public certificate file: identity and (r_A, b_A).
pub fn cert_file<C: Curve>(id: &[u8], cert: &ImplicitCert) -> String {
    KeyFile::render(
        &scheme_id::<C>(),
        KeyKind::Public,
        &[&pem_block(IDENTITY, id), &cert_block(cert)],
    )
    .to_string()
}

/// Reads a public certificate file: (identity, certificate).
///
/// # Errors
/// Malformed files.
pub fn cert_from_file<C: Curve>(file: &KeyFile) -> Result<(Vec<u8>, ImplicitCert), Error> {
    check::<C>(file, KeyKind::Public, &[IDENTITY, CERT])?;
    let id = identity(file)?;
    let cert = cert_from::<C>(file, &id)?;
    Ok((id, cert))
}

/// The public key certificate of PLA's certificate-based layout (docs/spec/pla.md,
/// "PLA header", layout 1): the host's key Q (SEC 1 compressed) and the TTP's raw
/// signature c ‖ d on `TAG_CERT ‖ Q` (`header::certify`).
pub fn key_cert_file<C: Curve>(key: &Affine<C>, ttp_sig: &[u8]) -> String {
    KeyFile::render(
        &scheme_id::<C>(),
        KeyKind::Public,
        &[
            &pem_block(KEY, &key.to_sec1(true)),
            &pem_block(TTP_SIGNATURE, ttp_sig),
        ],
    )
    .to_string()
}

/// Reads a key certificate: Q (a point of the subgroup, not ∞) and the TTP's signature
/// (2·bytes(n) octets, c and d each in [1, n − 1]). Whether the signature verifies is
/// the verifier's business (`header::verify_signature`).
///
/// # Errors
/// Malformed files.
pub fn key_cert_from_file<C: Curve>(file: &KeyFile) -> Result<(Affine<C>, Vec<u8>), Error> {
    check::<C>(file, KeyKind::Public, &[KEY, TTP_SIGNATURE])?;
    let key = point::<C>(file, KEY)?;
    let sig = file.block(TTP_SIGNATURE)?.der.to_vec();
    if crate::concat::koblitz::raw_signature_scalars::<C>(&sig).is_none() {
        return Err(Error::Key(format!(
            "{TTP_SIGNATURE}: not c ‖ d, each bytes(n) octets in [1, n − 1]"
        )));
    }
    Ok((key, sig))
}

/// The curve whose implicit-certificate files carry the scheme id `id` (`icnr-k163`,
/// `icnr-k233`, `icnr-k283`), or `None` for any other id.
pub fn curve_of_id(id: &str) -> Option<PlaCurve> {
    PlaCurve::ALL
        .iter()
        .copied()
        .find(|c| id == format!("icnr-{}", c.name().to_lowercase()))
}

/// The curve of an implicit-certificate file, named by its scheme id (`icnr-k163`,
/// `icnr-k233`, `icnr-k283`), so that the `hopsig ic` steps that read files take the
/// curve from them.
///
/// # Errors
/// [`Error::KeyForOtherScheme`] for any other scheme id.
pub fn curve_of(file: &KeyFile) -> Result<PlaCurve, Error> {
    curve_of_id(&file.scheme).ok_or_else(|| Error::KeyForOtherScheme {
        expected: "icnr-k163, icnr-k233 or icnr-k283".into(),
        found: file.scheme.clone(),
    })
}

/// The curve of a signing host's key file: an `ecdsa-k163/k233/k283` key, or an
/// implicit-certificate file ([`curve_of`], e.g. a TTP's key).
///
/// # Errors
/// [`Error::KeyForOtherScheme`] for a file of any other scheme.
pub fn curve_of_signer(file: &KeyFile) -> Result<PlaCurve, Error> {
    use crate::concat::{BaseSignature, EcdsaK163, EcdsaK233, EcdsaK283};
    let ecdsa = [
        (EcdsaK163::ID, PlaCurve::K163),
        (EcdsaK233::ID, PlaCurve::K233),
        (EcdsaK283::ID, PlaCurve::K283),
    ];
    if let Some((_, c)) = ecdsa.iter().find(|(id, _)| *id == file.scheme) {
        return Ok(*c);
    }
    curve_of(file).map_err(|_| Error::KeyForOtherScheme {
        expected: "an ecdsa-k163/k233/k283 key or a TTP key".into(),
        found: file.scheme.clone(),
    })
}

/// What an implicit-certificate file is (`hopsig inspect`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo {
    /// Its curve.
    pub curve: PlaCurve,
    /// Which of the files of docs/spec/pla.md it is: `TTP secret key`, `TTP public
    /// key`, `blind`, `request`, `TTP answer`, `certificate` or `key certificate`.
    pub role: &'static str,
    /// The certified identity (TTP answer and certificate).
    pub identity: Option<Vec<u8>>,
}

/// Says which implicit-certificate file `file` is, after reading it with the reader of
/// that file (every check of docs/spec/pla.md).
///
/// # Errors
/// As [`curve_of`]; the reader's error; [`Error::Key`] for blocks that make none of the
/// files.
pub fn describe(file: &KeyFile) -> Result<FileInfo, Error> {
    let curve = curve_of(file)?;
    let (role, identity) = match curve {
        PlaCurve::K163 => role::<K163>(file),
        PlaCurve::K233 => role::<K233>(file),
        PlaCurve::K283 => role::<K283>(file),
    }?;
    Ok(FileInfo {
        curve,
        role,
        identity,
    })
}

fn role<C: Curve>(file: &KeyFile) -> Result<(&'static str, Option<Vec<u8>>), Error> {
    let first = file.blocks.first().map(|b| b.label.as_str());
    Ok(match (file.kind, first) {
        (KeyKind::Secret, Some(TTP_SECRET)) => {
            ttp_from_file::<C>(file).map(|_| ("TTP secret key", None))?
        }
        (KeyKind::Public, Some(TTP_PUBLIC)) => {
            ttp_public_from_file::<C>(file).map(|_| ("TTP public key", None))?
        }
        (KeyKind::Secret, Some(BLIND)) => blind_from_file::<C>(file).map(|_| ("blind", None))?,
        (KeyKind::Public, Some(REQUEST)) => {
            request_from_file::<C>(file).map(|_| ("request", None))?
        }
        (KeyKind::Secret, Some(IDENTITY)) => {
            issued_from_file::<C>(file).map(|(id, _)| ("TTP answer", Some(id)))?
        }
        (KeyKind::Public, Some(IDENTITY)) => {
            cert_from_file::<C>(file).map(|(id, _)| ("certificate", Some(id)))?
        }
        (KeyKind::Public, Some(KEY)) => {
            key_cert_from_file::<C>(file).map(|_| ("key certificate", None))?
        }
        _ => {
            let labels: Vec<&str> = file.blocks.iter().map(|b| b.label.as_str()).collect();
            return Err(Error::Key(format!(
                "{} {} file with the blocks [{}] is none of the implicit-certificate files (docs/spec/pla.md)",
                file.scheme,
                file.kind.as_str(),
                labels.join(", ")
            )));
        }
    })
}
