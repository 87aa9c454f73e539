//! Fuzz target: `message` — never panics; accepted inputs re-encode to themselves.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code, clippy::unwrap_used)]
#[path = "../../tests/common/checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| {
    for width in checks::WIDTHS {
        let _ = checks::message(data, width);
    }
});
