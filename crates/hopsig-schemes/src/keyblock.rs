//! Key-file checks shared by the schemes: the `scheme` and `kind` headers, and the
//! fixed-size binary blocks of the pairing-based schemes, whose keys are raw group
//! elements and scalars rather than DER structures.

use hopsig_primitives::armor::{KeyFile, KeyKind};
use zeroize::Zeroizing;

use crate::Error;

/// Checks that `file` holds exactly the blocks `labels`, in that order.
pub(crate) fn expect_blocks(file: &KeyFile, labels: &[&str]) -> Result<(), Error> {
    let found: Vec<&str> = file.blocks.iter().map(|b| b.label.as_str()).collect();
    if found != labels {
        return Err(Error::Key(format!(
            "{} {} key files hold the PEM blocks [{}], this one [{}]",
            file.scheme,
            file.kind.as_str(),
            labels.join(", "),
            found.join(", ")
        )));
    }
    Ok(())
}

/// The contents of block `label`, which must be exactly `N` bytes.
pub(crate) fn fixed<const N: usize>(
    file: &KeyFile,
    label: &str,
) -> Result<Zeroizing<[u8; N]>, Error> {
    let block = file.block(label)?;
    let mut out = Zeroizing::new([0u8; N]);
    if block.der.len() != N {
        return Err(Error::Key(format!(
            "{label} block holds {} bytes, expected {N}",
            block.der.len()
        )));
    }
    out.copy_from_slice(&block.der);
    Ok(out)
}

/// Checks a key file's `scheme` and `kind` headers.
///
/// # Errors
/// [`Error::KeyForOtherScheme`]; [`Error::WrongKeyKind`].
pub(crate) fn expect_header(file: &KeyFile, scheme: &str, kind: KeyKind) -> Result<(), Error> {
    if file.scheme != scheme {
        return Err(Error::KeyForOtherScheme {
            expected: scheme.to_string(),
            found: file.scheme.clone(),
        });
    }
    if file.kind != kind {
        return Err(Error::WrongKeyKind {
            expected: kind,
            found: file.kind,
        });
    }
    Ok(())
}
