//! The 2024-11-05 HTTP+SSE transport, framed over the Streamable HTTP handler.
//!
//! `GET sse_path` opens a stream whose first event names where to POST
//! (`event: endpoint`, `data: <messages_path>?session_id=<id>`). Each POST there is answered
//! 202 at once and then served exactly as a legacy Streamable HTTP POST of the stream's session
//! ([`HttpHandler::post`]: the same era rules, session store, dispatch and audit); whatever that
//! answers goes down the stream as `event: message`. The legacy session `initialize` creates is
//! bound to the stream, so its server-initiated messages and change events go there too, and
//! the stream's end ends the session.
//!
//! Admission (Host/Origin, authentication, rate limit) happens before any of this, in
//! [`HttpHandler::admit`]. A stream holds a listener slot (`max_listeners`, per caller) and at
//! most [`SseConfig::max_queued_bytes`] unread bytes.

use super::headers;
use super::http::*;
use crate::client_requests::random_token;
use crate::error::McpError;
use crate::identity::Caller;
use bytes::Bytes;
use futures::StreamExt;
use http::{header, HeaderValue, Method, StatusCode};
use serde_json::Value;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// This process's open streams, by the id their endpoint event gave out.
#[derive(Default)]
pub(super) struct Streams {
    map: Mutex<HashMap<String, Arc<Stream>>>,
}

impl Streams {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Stream>>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One open stream.
struct Stream {
    /// `Caller::key()` of who opened it: only the same caller may POST to it.
    owner: Option<String>,
    out: Arc<Out>,
    /// The legacy session `initialize` created, once it has.
    session: Mutex<Option<String>>,
}

impl Stream {
    fn session(&self) -> Option<String> {
        self.session
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// What goes down one stream: a queue whose unread bytes are capped. Past the cap the stream
/// is closed: the client is not reading, and the server does not hold more for it.
struct Out {
    tx: mpsc::UnboundedSender<Bytes>,
    queued: AtomicUsize,
    cap: usize,
    closed: CancellationToken,
}

impl Out {
    /// Queue `b`; `false` once the stream is closed (or closes now, over the cap).
    fn push(&self, b: Bytes) -> bool {
        if self.closed.is_cancelled() {
            return false;
        }
        let n = self.queued.fetch_add(b.len(), Ordering::SeqCst) + b.len();
        if n > self.cap {
            self.closed.cancel();
            return false;
        }
        self.tx.send(b).is_ok()
    }
}

/// The `session_id` (or, as the TypeScript SDK spells it, `sessionId`) of a query string.
fn session_param(query: &str) -> Option<&str> {
    query.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (k == "session_id" || k == "sessionId").then_some(v)
    })
}

/// An `event: message` carrying a JSON text (one line: serialised compactly).
fn message_event(json: &[u8]) -> Bytes {
    let mut b = Vec::with_capacity(json.len() + 24);
    b.extend_from_slice(b"event: message\ndata: ");
    b.extend_from_slice(json);
    b.extend_from_slice(b"\n\n");
    Bytes::from(b)
}

fn refuse(status: StatusCode, e: McpError) -> HttpResponse {
    HttpResponse::json(status, &crate::jsonrpc::error(Value::Null, &e))
}

impl HttpHandler {
    /// Whether `path` is one of the HTTP+SSE transport's (never when it is off).
    pub(super) fn is_sse_path(&self, path: &str) -> bool {
        self.config
            .sse
            .as_ref()
            .is_some_and(|s| path == s.sse_path || path == s.messages_path)
    }

    /// An admitted request to one of the HTTP+SSE paths ([`Self::is_sse_path`]).
    pub(super) async fn sse(
        &self,
        req: HttpRequest,
        caller: Option<Caller>,
        peer: Option<SocketAddr>,
        query: &str,
    ) -> HttpResponse {
        let Some(config) = self.config.sse.as_ref() else {
            return HttpResponse::new(StatusCode::NOT_FOUND);
        };
        let stream_path = req.path == config.sse_path;
        match (stream_path, &req.method) {
            (true, &Method::GET) => self.sse_open(caller, None, random_token(16)),
            (false, &Method::POST) => self.sse_post(req, caller, peer, query),
            (true, _) => {
                HttpResponse::new(StatusCode::METHOD_NOT_ALLOWED).header(header::ALLOW, "GET")
            }
            (false, _) => {
                HttpResponse::new(StatusCode::METHOD_NOT_ALLOWED).header(header::ALLOW, "POST")
            }
        }
    }

    /// A stream's id, for a host that names the stream before it opens it ([`Self::open_sse`]):
    /// 128 random bits, as the ids of streams this handler opens itself.
    pub fn new_sse_session_id() -> String {
        random_token(16)
    }

    /// For a host framework that routes the HTTP+SSE transport itself (the TypeScript SDK's
    /// `SSEServerTransport` shape): admit a `GET` from its `headers` as [`Self::admit`] does for
    /// `sse_path`, then open stream `id` ([`Self::new_sse_session_id`]) whose endpoint event is
    /// `endpoint` as given (the host's messages URL, naming `id`). 404 when `sse` is off.
    pub async fn open_sse(
        &self,
        headers: &http::HeaderMap,
        peer: Option<SocketAddr>,
        id: String,
        endpoint: &str,
    ) -> HttpResponse {
        let Some(path) = self.config.sse.as_ref().map(|c| c.sse_path.clone()) else {
            return HttpResponse::new(StatusCode::NOT_FOUND);
        };
        if !(id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())) {
            return refuse(
                StatusCode::BAD_REQUEST,
                McpError::invalid_request("a stream id is 32 hex digits (new_sse_session_id)"),
            );
        }
        match self.admit(&Method::GET, &path, headers, peer).await {
            Ok(caller) => self.sse_open(caller, Some(endpoint), id),
            Err(r) => r,
        }
    }

    /// For the same host: a message POSTed for stream `id`, admitted as [`Self::admit`] does for
    /// `messages_path`, then answered as a POST there (202, or its refusal).
    pub async fn post_sse(
        &self,
        req: HttpRequest,
        peer: Option<SocketAddr>,
        id: &str,
    ) -> HttpResponse {
        let Some(path) = self.config.sse.as_ref().map(|c| c.messages_path.clone()) else {
            return HttpResponse::new(StatusCode::NOT_FOUND);
        };
        match self.admit(&Method::POST, &path, &req.headers, peer).await {
            Ok(caller) => self.sse_post_to(req, caller, peer, "", Some(id)),
            Err(r) => r,
        }
    }

    /// Open a stream: its endpoint event first, then what its POSTs and its session send.
    /// `endpoint` replaces the event's text (a host framework that routes the messages itself);
    /// by default it is the configured `messages_path` naming the stream.
    fn sse_open(&self, caller: Option<Caller>, endpoint: Option<&str>, id: String) -> HttpResponse {
        let Some(config) = self.config.sse.as_ref() else {
            return HttpResponse::new(StatusCode::NOT_FOUND);
        };
        let Some(slot) = self.server.listener_slot(caller.as_ref()) else {
            return refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                McpError::internal("Too many open streams"),
            );
        };
        let (tx, mut rx) = mpsc::unbounded_channel::<Bytes>();
        let out = Arc::new(Out {
            tx,
            queued: AtomicUsize::new(0),
            cap: config.max_queued_bytes,
            closed: CancellationToken::new(),
        });
        let stream = Arc::new(Stream {
            owner: caller.as_ref().map(|c| c.key().into_owned()),
            out: out.clone(),
            session: Mutex::new(None),
        });
        self.sse_streams.lock().insert(id.clone(), stream.clone());
        let data = match endpoint {
            Some(e) => e.replace(['\r', '\n'], ""),
            None => format!("{}?session_id={id}", config.messages_path),
        };
        out.push(Bytes::from(format!("event: endpoint\ndata: {data}\n\n")));
        // One chunk in flight to the body: what the client has not read stays counted in `out`.
        let (btx, brx) = mpsc::channel::<Bytes>(1);
        let keep_alive = self.config.keep_alive;
        let shutdown = self.server.inner.shutdown.clone();
        let handler = self.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let mut tick = tokio::time::interval(keep_alive);
            tick.tick().await;
            loop {
                let chunk = tokio::select! {
                    biased;
                    _ = out.closed.cancelled() => break,
                    _ = shutdown.cancelled() => break,
                    m = rx.recv() => match m {
                        Some(b) => {
                            out.queued.fetch_sub(b.len(), Ordering::SeqCst);
                            b
                        }
                        None => break,
                    },
                    _ = tick.tick() => Bytes::from_static(b": keep-alive\n\n"),
                    _ = btx.closed() => break,
                };
                tokio::select! {
                    r = btx.send(chunk) => if r.is_err() { break },
                    _ = out.closed.cancelled() => break,
                }
            }
            handler.sse_end(&id, &stream, caller.as_ref()).await;
        });
        let mut resp = sse_response(brx);
        resp.headers
            .insert(header::CONNECTION, HeaderValue::from_static("keep-alive"));
        resp
    }

    /// The stream is gone (client away, too far behind, shutdown): forget it, stop what still
    /// feeds it, and end its session on every replica.
    async fn sse_end(&self, id: &str, stream: &Stream, caller: Option<&Caller>) {
        self.sse_streams.lock().remove(id);
        stream.out.closed.cancel();
        if let Some(sid) = stream.session() {
            let _ = self.gate.end(Ok(&sid), caller).await;
        }
    }

    /// A POST to the messages path: refused here for what its head and body show (400 no or
    /// bad session id, 404 unknown session, 415/406/413, 400 unparseable), else 202 and served
    /// on its own task, its answer going down the stream.
    fn sse_post(
        &self,
        req: HttpRequest,
        caller: Option<Caller>,
        peer: Option<SocketAddr>,
        query: &str,
    ) -> HttpResponse {
        self.sse_post_to(req, caller, peer, query, None)
    }

    /// [`Self::sse_post`] for stream `id`, or the one its query names.
    fn sse_post_to(
        &self,
        req: HttpRequest,
        caller: Option<Caller>,
        peer: Option<SocketAddr>,
        query: &str,
        id: Option<&str>,
    ) -> HttpResponse {
        let Some(id) = id.or_else(|| session_param(query)) else {
            return refuse(
                StatusCode::BAD_REQUEST,
                McpError::invalid_request("session_id is required"),
            );
        };
        let stream = self.sse_streams.lock().get(id).cloned();
        let key = caller.as_ref().map(|c| c.key().into_owned());
        // Another caller's stream is answered as an unknown one.
        let Some(stream) = stream.filter(|s| s.owner == key) else {
            return refuse(
                StatusCode::NOT_FOUND,
                McpError::invalid_request("Session not found"),
            );
        };
        let HttpRequest {
            method,
            path,
            mut headers,
            body,
        } = req;
        // The answer goes down the stream, never in this POST's body: the inner POST may
        // answer as JSON or SSE, both are relayed.
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        if let Err(r) = self.check_post(&headers::PostHeaders::of(&headers), body.len()) {
            return r;
        }
        if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(&body) {
            return refuse(
                StatusCode::BAD_REQUEST,
                McpError::new(
                    crate::error::ErrorCode::PARSE_ERROR,
                    format!("Parse error: {e}"),
                ),
            );
        }
        headers.remove(headers::MCP_SESSION_ID);
        if let Some(sid) = stream.session() {
            if let Ok(v) = HeaderValue::from_str(&sid) {
                headers.insert(headers::MCP_SESSION_ID, v);
            }
        }
        let inner = HttpRequest {
            method,
            path,
            headers,
            body,
        };
        let handler = self.clone();
        let query = query.to_string();
        tokio::spawn(async move {
            let closed = stream.out.closed.clone();
            tokio::select! {
                _ = handler.sse_relay(inner, caller, peer, &query, &stream) => {}
                // Dropping the relay drops the inner answer, which cancels its request.
                _ = closed.cancelled() => {}
            }
        });
        HttpResponse::new(StatusCode::ACCEPTED)
    }

    /// Serve one POSTed message and send its answer down the stream.
    async fn sse_relay(
        &self,
        inner: HttpRequest,
        caller: Option<Caller>,
        peer: Option<SocketAddr>,
        query: &str,
        stream: &Stream,
    ) {
        let resp = self.post(inner, caller.clone(), peer, query).await;
        if stream.session().is_none() {
            let created = resp
                .headers
                .get(headers::MCP_SESSION_ID)
                .and_then(|v| v.to_str().ok());
            if let Some(sid) = created {
                // Bound before the answer goes out: the client's next message names it.
                self.sse_bind(stream, sid, caller.as_ref()).await;
            }
        }
        match resp.body {
            ResponseBody::Empty => {}
            ResponseBody::Full(b) => {
                stream.out.push(message_event(&b));
            }
            ResponseBody::Sse(mut rx) => {
                while let Some(c) = rx.recv().await {
                    if c.starts_with(b":") {
                        continue; // the stream has its own keep-alive
                    }
                    if !stream.out.push(c) {
                        return;
                    }
                }
            }
        }
    }

    /// `initialize` made legacy session `sid` for this stream: the session's server-initiated
    /// messages and change events go down the stream from now on, and its end closes it.
    async fn sse_bind(&self, stream: &Stream, sid: &str, caller: Option<&Caller>) {
        *stream.session.lock().unwrap_or_else(|e| e.into_inner()) = Some(sid.to_string());
        let Ok(Some(session)) = self.gate.session(Some(Ok(sid)), caller).await else {
            return;
        };
        let (otx, mut orx) = mpsc::unbounded_channel::<Value>();
        session.set_outbound(Some(otx.into()));
        let mut events = self.server.legacy_events(session);
        let out = stream.out.clone();
        tokio::spawn(async move {
            loop {
                let msg = tokio::select! {
                    _ = out.closed.cancelled() => return,
                    m = events.next() => match m { Some(m) => m, None => break },
                    Some(m) = orx.recv() => m,
                };
                if !out.push(sse_event(&msg)) {
                    return;
                }
            }
            // The session ended (expired, or shutdown): so does its stream.
            out.closed.cancel();
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_param_reads_both_spellings() {
        assert_eq!(session_param("session_id=ab12"), Some("ab12"));
        assert_eq!(session_param("x=1&sessionId=cd"), Some("cd"));
        assert_eq!(session_param("x=1"), None);
        assert_eq!(session_param(""), None);
    }

    #[test]
    fn a_reader_past_the_cap_loses_its_stream() {
        let (tx, _rx) = mpsc::unbounded_channel();
        let out = Out {
            tx,
            queued: AtomicUsize::new(0),
            cap: 10,
            closed: CancellationToken::new(),
        };
        assert!(out.push(Bytes::from_static(b"12345")));
        assert!(!out.push(Bytes::from_static(b"123456")));
        assert!(out.closed.is_cancelled());
        assert!(!out.push(Bytes::from_static(b"1")));
    }
}
