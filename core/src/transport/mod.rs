//! Transports. `http` is transport-neutral (bytes + headers in, status + body out) so the hyper
//! server, the bindings' ASGI/fetch/Express mounts and tests all share it; `http_server` is the
//! hyper adapter; `http_message` holds the request and response types it takes and gives; `stdio` frames newline-delimited JSON-RPC on stdin/stdout. `http_checks` holds
//! the Host/Origin guard and the 2026-07-28 header rules, `http_legacy` the legacy session plumbing
//! of the HTTP handler, `sse` the 2024-11-05 HTTP+SSE framing beside it, and `http_metrics` the
//! Prometheus scrape.

#[cfg(test)]
mod future_sizes;
pub mod headers;
pub mod http;
mod http_checks;
mod http_config;
mod http_legacy;
mod http_message;
mod http_metrics;
pub mod http_server;
mod sse;
pub mod stdio;
#[cfg(unix)]
pub(crate) mod stdio_fd;
#[cfg(feature = "tls")]
mod tls;
