//! Live RPKI data beside BGPsec (issue 24, docs/spec/rpki.md): what a router learns
//! from RPKI caches and local files, merged into one [`view::View`], and the route
//! origin and ASPA verdicts computed from it.
//!
//! * [`payload`] — the validated RPKI payload (VRPs, router keys, ASPAs) as one set
//!   with per-source limits; the currency between sources, caches and the view. Items
//!   are the `rpki` crate's [`rpki::rtr::Payload`], so that what the RTR codec decodes
//!   is stored as is.
//! * [`source`] — files: rpki-client JSON (`roas`, `bgpsec_keys`, `aspas`), Routinator
//!   `jsonext` (`routerKeys`), hopsig's key folders, SLURM (RFC 8416).
//! * [`rtr`] — RPKI-to-Router: a client of several caches with preference (RFC 8210
//!   §10), and a cache server (`hopsig rtr serve`).
//! * [`load`] — the view of one run: files and one dump of each cache, merged.
//! * [`view`] — the merged view (files, caches, SLURM) a validator consults, and what
//!   changed between two views.
//! * [`rov`] — route origin validation (RFC 6811).
//! * [`aspa`] — AS path verification with ASPAs (draft-ietf-sidrops-aspa-verification).

pub mod aspa;
pub mod load;
pub mod payload;
pub mod rov;
pub mod rtr;
pub mod source;
pub mod view;

pub use payload::{Limits, PayloadSet, TooMuch};
