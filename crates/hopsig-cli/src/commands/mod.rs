//! The commands, one module per command family (cargo's `commands/` layout): each
//! exports its clap `Args` (with the command's help text) and `run(args)`, parses
//! nothing else and calls the library for everything that knows a byte format.

/// Calls the function `f` on the types of `curve` (a `PlaCurve`): the Koblitz curve C
/// and, where `f` takes it, its ECDSA scheme B (`hopsig ic`, `hopsig pla`); the
/// library's [`hopsig_schemes::on_pla_curve`], defined before the modules that use it.
macro_rules! on_curve {
    ($($t:tt)*) => { hopsig_schemes::on_pla_curve!($($t)*) };
}

pub mod batch;
pub mod bench;
pub mod bgpsec;
pub mod ic;
pub mod inspect;
pub mod kcx;
pub mod keygen;
pub mod ndn;
pub mod pkg;
pub mod pla;
pub mod replay;
pub mod reproduce;
pub mod rtr;
pub mod schemes;
pub mod shell;
pub mod sign;
pub mod speaker;
pub mod verify;

use hopsig_schemes::pla::files::curve_of_id;
use hopsig_schemes::registry::{self, Param};
use hopsig_schemes::Error;

use crate::io::Failure;

/// The sequential scheme with this id (`--scheme`).
fn scheme(id: &str) -> Result<Box<dyn registry::Scheme>, Failure> {
    registry::lookup(id).map_err(|e| Failure::Input(no_scheme(id, e)))
}

/// Why `id` names no sequential scheme: [`registry::lookup`]'s error `e`; for the
/// scheme id of the `hopsig ic` files, what those files are; for an `-rBITS` alias
/// out of range, which BITS there are.
fn no_scheme(id: &str, e: Error) -> String {
    if curve_of_id(id).is_some() {
        return format!(
            "{id} is the scheme id of the implicit-certificate files of `hopsig ic`, not a signature scheme: `hopsig ic` makes and verifies them, and one signs with the key `hopsig ic finalize` writes"
        );
    }
    let alias = registry::ALL_SCHEMES.iter().find_map(|s| match &s.param {
        Param::RandomR { bits, .. } if id.strip_prefix(s.id)?.starts_with("-r") => {
            Some((s.id, bits))
        }
        _ => None,
    });
    match alias {
        Some((base, bits)) => format!(
            "unknown scheme '{id}': the -rBITS aliases of {base} take BITS = {}..={}, a multiple of 8 written without leading zeros (docs/spec/bgr.md)",
            bits.start(),
            bits.end()
        ),
        None => e.to_string(),
    }
}
