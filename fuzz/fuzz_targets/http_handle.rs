//! The transport-neutral Streamable HTTP handler: method, path, headers and body bytes in.
#![no_main]

#[path = "../common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| common::http_input(data));
