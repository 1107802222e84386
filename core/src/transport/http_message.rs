//! What goes in and out of [`HttpHandler`](super::http::HttpHandler): the request as any HTTP
//! framework hands it over, the response (a full body or an SSE stream) and the ways one is
//! made (JSON, an SSE event or stream, a gate's refusal).

use crate::error::McpError;
use crate::jsonrpc;
use crate::server::gate::Refusal;
use bytes::Bytes;
use http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use serde_json::Value;
use tokio::sync::mpsc;

/// A request as any HTTP framework hands it over.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    pub method: Method,
    pub path: String,
    pub headers: HeaderMap,
    pub body: Bytes,
}

/// A response body: complete, or a stream of SSE chunks (dropping the receiver cancels the
/// request, as a client disconnect does).
pub enum ResponseBody {
    Empty,
    Full(Bytes),
    Sse(mpsc::Receiver<Bytes>),
}

impl std::fmt::Debug for ResponseBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Empty => f.write_str("Empty"),
            Self::Full(b) => write!(f, "Full({} bytes)", b.len()),
            Self::Sse(_) => f.write_str("Sse"),
        }
    }
}

#[derive(Debug)]
pub struct HttpResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: ResponseBody,
}

impl HttpResponse {
    pub fn new(status: StatusCode) -> Self {
        Self {
            status,
            headers: HeaderMap::new(),
            body: ResponseBody::Empty,
        }
    }
    pub fn json(status: StatusCode, v: &Value) -> Self {
        Self::json_bytes(status, serde_json::to_vec(v).unwrap_or_default())
    }
    /// A JSON body serialised already.
    ///
    /// Its new header map is sized for a request's headers: hyper parses the connection's next
    /// request into the map of the response it wrote, and a map built for one header grew on
    /// every request. A request's own answer reuses the request's map instead
    /// ([`Self::json_bytes_in`]).
    pub(crate) fn json_bytes(status: StatusCode, body: Vec<u8>) -> Self {
        Self::json_with(status, body, HeaderMap::with_capacity(12))
    }
    /// [`Self::json_bytes`] with the header map to fill, emptied first: the request's own map,
    /// when nothing else holds the request any more. Its entries (1,248 bytes for twelve, over
    /// glibc's per-thread cache limit, so each such block takes malloc's slower path) then serve
    /// the response, and hyper parses the connection's next request into them: no map is made
    /// and none freed per request.
    pub(crate) fn json_bytes_in(status: StatusCode, body: Vec<u8>, mut headers: HeaderMap) -> Self {
        headers.clear();
        Self::json_with(status, body, headers)
    }
    /// A JSON response whose (empty) header map is `headers`.
    fn json_with(status: StatusCode, body: Vec<u8>, mut headers: HeaderMap) -> Self {
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        Self {
            status,
            headers,
            body: ResponseBody::Full(Bytes::from(body)),
        }
    }
    pub(super) fn error(status: StatusCode, id: Value, e: McpError) -> Self {
        Self::json(status, &jsonrpc::error(id, &e))
    }
    pub fn header(mut self, k: header::HeaderName, v: &str) -> Self {
        if let Ok(v) = HeaderValue::from_str(v) {
            self.headers.insert(k, v);
        }
        self
    }
    /// Collect a full body (tests, simple hosts). SSE bodies are read to their end.
    pub async fn into_bytes(self) -> Bytes {
        match self.body {
            ResponseBody::Empty => Bytes::new(),
            ResponseBody::Full(b) => b,
            ResponseBody::Sse(mut rx) => {
                let mut out = Vec::new();
                while let Some(c) = rx.recv().await {
                    out.extend_from_slice(&c);
                }
                Bytes::from(out)
            }
        }
    }
}

pub(super) fn sse_event(v: &Value) -> Bytes {
    let mut b = Vec::with_capacity(128);
    b.extend_from_slice(b"event: message\ndata: ");
    serde_json::to_writer(&mut b, v).unwrap_or_default();
    b.extend_from_slice(b"\n\n");
    Bytes::from(b)
}

pub(super) fn sse_response(rx: mpsc::Receiver<Bytes>) -> HttpResponse {
    let mut r = HttpResponse::new(StatusCode::OK);
    r.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    r.headers
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r.headers.insert(
        http::HeaderName::from_static("x-accel-buffering"),
        HeaderValue::from_static("no"),
    );
    r.body = ResponseBody::Sse(rx);
    r
}

/// 503 with the JSON-RPC error (the session store cannot be reached): retry shortly.
pub(super) fn unavailable(e: McpError) -> HttpResponse {
    refused(Refusal::unavailable(e))
}

/// A [`Gate`]'s refusal, as it is.
pub(crate) fn refused(r: Refusal) -> HttpResponse {
    let mut resp = HttpResponse::json(r.status, &r.body);
    // Appended: a refusal may carry two challenges (`Bearer` and `DPoP`), each its own header.
    for (k, v) in r.headers {
        if let Ok(v) = HeaderValue::from_str(&v) {
            resp.headers.append(k, v);
        }
    }
    resp
}
