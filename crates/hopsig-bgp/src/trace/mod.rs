//! BGPsec over real routing traces: announcements read from MRT files (RFC 6396) as
//! RIPE RIS and RouteViews publish them, signed hop by hop as their AS paths would be,
//! written back as MRT, validated, and shown as bgpkit-parser shows routes.
//!
//! | what | RFC | file |
//! |---|---|---|
//! | MRT common header, BGP4MP message records | 6396 §2, §3, §4.4 | `bgp4mp.rs` |
//! | announcements (bgpkit-parser), the route an AS path signs, why one is skipped | 8205 §4.1, §4.2 | `announcement.rs` |
//! | one key per AS, rpki-client JSON, secret key files | 8209, 8608 §3 | `keyring.rs` |
//! | a keys folder on disk, loaded and grown by several writers | — | `keys_folder.rs` |
//! | `sign-mrt`: signed UPDATEs as `BGP4MP_MESSAGE_AS4` | 8205 §4, 6396 §4.4.3 | `sign.rs` |
//! | `validate-mrt`: every UPDATE, several threads | 8205 §5.2 | `validate.rs` |
//! | the `--json` summaries of `sign-mrt` and `validate-mrt` | — | `summary.rs` |
//! | `inspect`: bgpkit's pipe format, Secure_Path, signatures | — | `view.rs` |
//!
//! docs/spec/bgpsec-mrt.md states the formats and the choices (what is skipped and
//! why, which AS each signature targets, the keys folder).

pub mod announcement;
pub mod keyring;
pub mod keys_folder;
pub mod sign;
pub mod summary;
pub mod validate;
pub mod view;

pub use crate::mrt::bgp4mp::{Bgp4mpMessage, MrtRecord, Records};
pub use announcement::{Announcement, Entries, Entry, PathHop, Route, Skip};
pub use keyring::{Keyring, KEYS_JSON};
pub use keys_folder::{KeysFolder, KeysFolderError};
pub use sign::{
    bgpsec_update, plain_update_message, route_ases, sign_mrt, signed_path, update_message,
    SignOptions, SignReport,
};
pub use summary::{SignRun, ValidateRun};
pub use validate::{validate_mrt, validate_mrt_cached, EachRecord, ValidateReport};
#[cfg(feature = "rpki")]
pub use validate::{validate_mrt_rpki, validate_mrt_rpki_cached};
