//! What the server knows about a request besides its message, shared by the transport that
//! builds the request's `Env`, the dispatcher and the handler's `Context`: the transport it
//! arrived on and the HTTP request that carried it. It imports nothing of the server or the
//! transports, so the `Context` below them can hold it.

use bytes::Bytes;
use http::{HeaderMap, Method};
use std::net::SocketAddr;

/// Which transport a message arrived on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Transport {
    Http,
    Stdio,
}

/// The HTTP request that carried a message, as its handler may see it
/// ([`crate::Context::http_request`]): what FastMCP's `get_http_request()` gives Python code.
/// The headers are all of them, `Authorization` included: they are the server's own request.
#[derive(Debug)]
pub struct HttpRequestInfo {
    pub method: Method,
    pub path: String,
    /// The query string, without the `?` (empty when there is none).
    pub query: String,
    pub headers: HeaderMap,
    /// The client's address, when the host knows it.
    pub peer: Option<SocketAddr>,
    /// The body as it came: a first round's MRTR digest is read from it if its handler asks for
    /// input (`server::mrtr::ArgsDigest`).
    pub(crate) body: Bytes,
}
