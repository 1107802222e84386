//! Integration tests: the real example binaries over real HTTP on 127.0.0.1 and real stdio pipes.
//! Run with `cargo test -p oxmcp-examples --test it`.

#![allow(unreachable_pub)] // helpers shared by the test modules
mod admission;
mod apps;
mod auth_env;
mod bounds;
mod catalog;
mod hardening;
mod hardening_calls;
mod harness;
mod hostile;
mod http_errors;
mod http_legacy;
mod http_modern;
mod interactive;
mod isolation;
mod listen;
mod mrtr;
mod redis;
mod redis_sessions;
mod skills;
mod sqlite;
mod stdio;
mod tasks;
mod transcripts;
mod validation;
