//! The Host/Origin parser behind the DNS-rebinding guard.
#![no_main]

#[path = "../common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| common::authority_input(data));
