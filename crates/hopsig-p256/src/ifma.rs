//! Eight P-256 lanes with AVX-512 IFMA (engineer 1 of issue 28 writes this module).
#![allow(unsafe_code)]
