//! The stdio transport: newline framing, line cap, JSON-RPC classification and dispatch.
#![no_main]

#[path = "../common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| common::stdio_input(data));
