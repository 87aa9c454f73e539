//! Valgrind memcheck client requests for the constant-time test (`crates/hopsig-ctime`),
//! after libsecp256k1's `ctime_tests`: the test marks every secret input *undefined*
//! ([`classify`]), so that memcheck reports any conditional jump or memory address that
//! depends on it; library code marks what becomes public (a signature, a public key,
//! the verdict "this key file holds a valid scalar") *defined* again ([`declassify`])
//! before it branches on it or encodes it.
//!
//! Without the cargo feature `valgrind` both functions do nothing. With it they issue
//! valgrind's client request, which is a no-op sequence of instructions when the program
//! does not run under valgrind, so enabling the feature never changes behaviour.
//!
//! This module alone (besides the FFI of `pairing` and the PCLMULQDQ intrinsics of
//! `hopsig-koblitz`) uses `unsafe`: for the inline assembly of the request.

#![allow(unsafe_code)]

use subtle::Choice;

/// Memcheck's request codes: `VG_USERREQ_TOOL_BASE('M','C')` and the two that follow
/// it (`valgrind/memcheck.h`, enum `Vg_MemCheckClientRequest`).
#[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
mod code {
    const MEMCHECK_BASE: u64 = ((b'M' as u64) << 24) | ((b'C' as u64) << 16);
    /// `VG_USERREQ__MAKE_MEM_UNDEFINED`.
    pub(super) const MAKE_MEM_UNDEFINED: u64 = MEMCHECK_BASE + 1;
    /// `VG_USERREQ__MAKE_MEM_DEFINED`.
    pub(super) const MAKE_MEM_DEFINED: u64 = MEMCHECK_BASE + 2;
    /// `VG_USERREQ__RUNNING_ON_VALGRIND` (`valgrind/valgrind.h`).
    pub(super) const RUNNING_ON_VALGRIND: u64 = 0x1001;
}

/// `VALGRIND_DO_CLIENT_REQUEST_EXPR(default, request, a1, a2, 0, 0, 0)` for amd64, as
/// `valgrind/valgrind.h` (3.19, `PLAT_amd64_linux`) writes it: the argument block's
/// address in RAX, the default result in RDX, the "special instruction preamble" (four
/// rotations of RDI by 3, 13, 61 and 51 bits, 128 in all, which leave RDI unchanged)
/// and `xchg rbx, rbx`. Natively the sequence changes nothing but the flags and RDX
/// keeps the default; under valgrind RDX receives the request's result.
#[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
fn client_request(default: u64, request: u64, arg1: u64, arg2: u64) -> u64 {
    let args: [u64; 6] = [request, arg1, arg2, 0, 0, 0];
    let result: u64;
    // SAFETY: the instructions only rotate RDI back to its own value, exchange RBX with
    // itself and leave RDX = `default` (natively); valgrind reads the six words at RAX,
    // which point to `args`, live for the whole block. Memory is not declared untouched
    // (no `nomem`/`readonly`), like the "memory" clobber of valgrind.h, so the compiler
    // reloads values after the request instead of keeping copies in registers.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") default => result,
            options(nostack),
        );
    }
    result
}

#[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
fn mark<T: ?Sized>(value: &mut T, request: u64) {
    let len = core::mem::size_of_val(value) as u64;
    let addr = (value as *mut T).cast::<u8>() as u64;
    client_request(0, request, addr, len);
}

/// Marks the bytes of `value` undefined for memcheck: from here on, a branch or an
/// address that depends on them is reported. `&mut` so that the compiler cannot reuse
/// a copy it loaded before the request.
pub fn classify<T: ?Sized>(value: &mut T) {
    #[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
    mark(value, code::MAKE_MEM_UNDEFINED);
    #[cfg(not(all(feature = "valgrind", target_arch = "x86_64")))]
    let _ = value;
}

/// Marks the bytes of `value` defined again: they are public from here on (a signature
/// about to be encoded, a public key, a verdict the caller branches on).
pub fn declassify<T: ?Sized>(value: &mut T) {
    #[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
    mark(value, code::MAKE_MEM_DEFINED);
    #[cfg(not(all(feature = "valgrind", target_arch = "x86_64")))]
    let _ = value;
}

/// A secret-derived [`Choice`] that is public by the protocol (e.g. "the drawn nonce was
/// in range", "this file's scalar is valid"), as a `bool` to branch on.
pub fn public_bool(choice: Choice) -> bool {
    let mut byte = choice.unwrap_u8();
    declassify(&mut byte);
    byte == 1
}

/// Whether the program runs under valgrind (always false without the feature).
pub fn running_on_valgrind() -> bool {
    #[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
    return client_request(0, code::RUNNING_ON_VALGRIND, 0, 0) != 0;
    #[cfg(not(all(feature = "valgrind", target_arch = "x86_64")))]
    false
}
