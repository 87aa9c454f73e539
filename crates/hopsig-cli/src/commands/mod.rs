//! The commands, one module per command family (cargo's `commands/` layout): each
//! exports its clap `Args` (with the command's help text) and `run(args)`, parses
//! nothing else and calls the library for everything that knows a byte format.

pub mod bench;
pub mod bgpsec;
pub mod ic;
pub mod inspect;
pub mod kcx;
pub mod keygen;
pub mod pkg;
pub mod reproduce;
pub mod schemes;
pub mod sign;
pub mod verify;

use hopsig_schemes::registry;

use crate::io::Failure;

/// The sequential scheme with this id (`--scheme`).
fn scheme(id: &str) -> Result<Box<dyn registry::Scheme>, Failure> {
    registry::lookup(id).map_err(|e| Failure::Input(e.to_string()))
}
