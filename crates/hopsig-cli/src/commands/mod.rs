//! The commands, one module per command family (cargo's `commands/` layout): each
//! exports its clap `Args` (with the command's help text) and `run(args)`, parses
//! nothing else and calls the library for everything that knows a byte format.

pub mod bench;
pub mod ic;
pub mod inspect;
pub mod kcx;
pub mod keygen;
pub mod pkg;
pub mod reproduce;
pub mod schemes;
pub mod sign;
pub mod verify;

use hopsig_schemes::pla::files::curve_of_id;
use hopsig_schemes::{registry, Error};

use crate::io::Failure;

/// The sequential scheme with this id (`--scheme`).
fn scheme(id: &str) -> Result<Box<dyn registry::Scheme>, Failure> {
    registry::lookup(id).map_err(|e| Failure::Input(no_scheme(id, e)))
}

/// Why `id` names no sequential scheme: [`registry::lookup`]'s error `e`, or, for the
/// scheme id of the `hopsig ic` files, what those files are.
fn no_scheme(id: &str, e: Error) -> String {
    match curve_of_id(id) {
        Some(_) => format!(
            "{id} is the scheme id of the implicit-certificate files of `hopsig ic`, not a signature scheme: `hopsig ic` makes and verifies them, and one signs with the key `hopsig ic finalize` writes"
        ),
        None => e.to_string(),
    }
}
