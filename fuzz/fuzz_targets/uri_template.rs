//! The URI-template matcher: linear steps, no dot-dot segment in a match.
#![no_main]

#[path = "../common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| common::uri_template_input(data));
