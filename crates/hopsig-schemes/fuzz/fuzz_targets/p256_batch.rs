//! Fuzz target: `p256_batch` — arbitrary octets decoded into a batch of P-256 items
//! (fixed keys, messages, signatures given or made valid and then masked); every batch
//! backend's verdict equals OpenSSL's single verification, and nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code, clippy::unwrap_used)]
#[path = "../../tests/p256_common/mod.rs"]
mod p256_common;

fuzz_target!(|data: &[u8]| {
    p256_common::fuzz_check(data);
});
