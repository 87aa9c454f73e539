//! BGPsec over real routing traces: announcements read from MRT files (RFC 6396) as
//! RIPE RIS and RouteViews publish them, signed hop by hop as their AS paths would be,
//! written back as MRT, validated, and shown as bgpkit-parser shows routes.
//!
//! | what | RFC | file |
//! |---|---|---|
//! | MRT common header, BGP4MP message records | 6396 §2, §3, §4.4 | `bgp4mp.rs` |
//! | announcements (bgpkit-parser), the route an AS path signs, why one is skipped | 8205 §4.1, §4.2 | `announcement.rs` |
//! | one key per AS, rpki-client JSON, secret key files | 8209, 8608 §3 | `keyring.rs` |
//! | `sign-mrt`: signed UPDATEs as `BGP4MP_MESSAGE_AS4` | 8205 §4, 6396 §4.4.3 | `sign.rs` |
//! | `validate-mrt`: every UPDATE, several threads | 8205 §5.2 | `validate.rs` |
//! | `inspect`: bgpkit's pipe format, Secure_Path, signatures | — | `view.rs` |
//!
//! docs/spec/bgpsec-mrt.md states the formats and the choices (what is skipped and
//! why, which AS each signature targets, the keys folder).

pub mod announcement;
pub mod bgp4mp;
pub mod keyring;
pub mod sign;
pub mod validate;
pub mod view;

pub use announcement::{Announcement, Entries, Entry, PathHop, Route, Skip};
pub use bgp4mp::{Bgp4mpMessage, MrtRecord, Records};
pub use keyring::{Keyring, KEYS_JSON};
pub use sign::{
    bgpsec_update, plain_update_message, sign_mrt, signed_path, update_message, SignOptions,
    SignReport,
};
pub use validate::{validate_mrt, ValidateReport};

/// `f` of each item, in order, computed on up to `threads` threads (scoped, each
/// taking one contiguous share).
pub(crate) fn parallel_map<T: Sync, U: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> U + Sync,
) -> Vec<U> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let share = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = items
            .chunks(share)
            .map(|c| s.spawn(move || c.iter().map(f).collect::<Vec<U>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn parallel_map_keeps_the_order() {
        let items: Vec<u32> = (0..1000).collect();
        for threads in [0, 1, 2, 3, 7, 2000] {
            let out = super::parallel_map(&items, threads, |x| x * 2);
            assert_eq!(out, items.iter().map(|x| x * 2).collect::<Vec<_>>());
        }
        assert!(super::parallel_map(&[] as &[u32], 4, |x| *x).is_empty());
    }
}
