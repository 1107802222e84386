//! Security over real HTTP on 127.0.0.1: named tokens, allow-lists, OAuth (RFC 9728, JWT
//! against a JWKS the test serves itself on loopback), challenges, limits, audit, tracing.
//!
//! One test binary, split by subject.

mod catalog;
mod common;
mod dpop;
mod host_caller;
#[cfg(feature = "tls")]
mod jwks_https;
mod limits;
mod mrtr;
mod oauth;
mod request_table;
mod scopes;
mod sse;
mod telemetry;
#[cfg(feature = "tls")]
mod tls_cap;
mod tokens;
mod tool_search;
