//! Transports. `http` is transport-neutral (bytes + headers in, status + body out) so the hyper
//! server, the bindings' ASGI/fetch/Express mounts and tests all share it; `http_server` is the
//! hyper adapter; `stdio` frames newline-delimited JSON-RPC on stdin/stdout.

pub mod headers;
pub mod http;
pub mod http_server;
pub mod stdio;
