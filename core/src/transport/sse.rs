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
//! With a shared session store (Redis) the stream is recorded there (its owner, the replica
//! holding it, its session), so a POST may land on any replica: it is served there with the
//! same checks, and what it answers reaches the holder as a [`SessionSignal::StreamEvent`]
//! (the session's other messages take the existing `SessionSignal::Outbound` path to the
//! session bound to the stream). The record lives on a lease its holder renews every
//! `keep_alive`: a replica that dies takes its streams, and with them their sessions, along.
//!
//! Admission (Host/Origin, authentication, rate limit) happens before any of this, in
//! [`HttpHandler::admit`]. A stream holds a listener slot (`max_listeners`, per caller) and at
//! most [`SseConfig::max_queued_bytes`] unread bytes.

use super::headers;
use super::http::*;
use crate::client_requests::random_token;
use crate::error::McpError;
use crate::identity::Caller;
use crate::session::store::SessionSignal;
use crate::session::StreamNews;
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
    id: String,
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

/// Where a POST's answer goes: a stream this process holds, or (a shared session store) one
/// another replica holds, with the session bound to it when the POST arrived.
enum Dest {
    Here(Arc<Stream>),
    There { id: String, session: Option<String> },
}

impl Dest {
    fn session(&self) -> Option<String> {
        match self {
            Self::Here(s) => s.session(),
            Self::There { session, .. } => session.clone(),
        }
    }
}

/// How many `keep_alive` periods a stream's record outlives its holder's last renewal.
const LEASE_PERIODS: u32 = 3;

/// Whether `id` can be a stream's (32 hex digits): any other value never becomes a store key.
fn is_stream_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())
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
            (true, &Method::GET) => self.sse_open(caller, None, random_token(16)).await,
            (false, &Method::POST) => self.sse_post(req, caller, peer, query).await,
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
    /// `host`: the caller the host authenticated ([`Self::admit_as`]).
    pub async fn open_sse(
        &self,
        headers: &http::HeaderMap,
        peer: Option<SocketAddr>,
        id: String,
        endpoint: &str,
        host: Option<Caller>,
    ) -> HttpResponse {
        let Some(path) = self.config.sse.as_ref().map(|c| c.sse_path.clone()) else {
            return HttpResponse::new(StatusCode::NOT_FOUND);
        };
        if !is_stream_id(&id) {
            return refuse(
                StatusCode::BAD_REQUEST,
                McpError::invalid_request("a stream id is 32 hex digits (new_sse_session_id)"),
            );
        }
        match self
            .admit_as(&Method::GET, &path, headers, peer, host)
            .await
        {
            Ok(caller) => self.sse_open(caller, Some(endpoint), id).await,
            Err(r) => r,
        }
    }

    /// For the same host: a message POSTed for stream `id` (or, with `None`, the one `query`
    /// names, as at `messages_path`), admitted as [`Self::admit`] does for `messages_path`, then
    /// answered as a POST there (202, or its refusal). `host` as for [`Self::open_sse`].
    pub async fn post_sse(
        &self,
        req: HttpRequest,
        peer: Option<SocketAddr>,
        id: Option<&str>,
        query: &str,
        host: Option<Caller>,
    ) -> HttpResponse {
        let Some(path) = self.config.sse.as_ref().map(|c| c.messages_path.clone()) else {
            return HttpResponse::new(StatusCode::NOT_FOUND);
        };
        match self
            .admit_as(&Method::POST, &path, &req.headers, peer, host)
            .await
        {
            Ok(caller) => self.sse_post_to(req, caller, peer, query, id).await,
            Err(r) => r,
        }
    }

    /// Open a stream: its endpoint event first, then what its POSTs and its session send.
    /// `endpoint` replaces the event's text (a host framework that routes the messages itself);
    /// by default it is the configured `messages_path` naming the stream.
    async fn sse_open(
        &self,
        caller: Option<Caller>,
        endpoint: Option<&str>,
        id: String,
    ) -> HttpResponse {
        let Some(config) = self.config.sse.as_ref() else {
            return HttpResponse::new(StatusCode::NOT_FOUND);
        };
        let Some(slot) = self.server.listener_slot(caller.as_ref()) else {
            return refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                McpError::internal("Too many open streams"),
            );
        };
        let owner = caller.as_ref().map(|c| c.key().into_owned());
        let shared = self.server.inner.sessions.store.is_shared();
        if shared {
            if let Err(r) = self.sse_record(&id, owner.as_deref()).await {
                return r;
            }
        }
        let (tx, rx) = mpsc::unbounded_channel::<Bytes>();
        let stream = Arc::new(Stream {
            id: id.clone(),
            owner,
            out: Arc::new(Out {
                tx,
                queued: AtomicUsize::new(0),
                cap: config.max_queued_bytes,
                closed: CancellationToken::new(),
            }),
            session: Mutex::new(None),
        });
        self.sse_streams.lock().insert(id.clone(), stream.clone());
        if shared {
            self.sse_hold(stream.clone(), caller.clone());
        }
        let data = match endpoint {
            Some(e) => e.replace(['\r', '\n'], ""),
            None => format!("{}?session_id={id}", config.messages_path),
        };
        stream
            .out
            .push(Bytes::from(format!("event: endpoint\ndata: {data}\n\n")));
        // One chunk in flight to the body: what the client has not read stays counted in `out`.
        let (btx, brx) = mpsc::channel::<Bytes>(1);
        self.sse_pump(slot, rx, btx, stream, caller);
        let mut resp = sse_response(brx);
        resp.headers
            .insert(header::CONNECTION, HeaderValue::from_static("keep-alive"));
        resp
    }

    /// With a shared session store: the stream recorded before the endpoint event goes out,
    /// since the client's first POST may land on another replica at once.
    async fn sse_record(&self, id: &str, owner: Option<&str>) -> Result<(), HttpResponse> {
        self.server.start_session_signals();
        self.server
            .inner
            .sessions
            .store
            .open_stream(id, owner, self.stream_lease())
            .await
            .map_err(|e| refuse(StatusCode::SERVICE_UNAVAILABLE, e.into()))
    }

    /// Move what is queued for `stream` into its response body, with a keep-alive comment every
    /// `keep_alive`, until the stream closes, the client goes or the server shuts down; then
    /// end the stream. The listener slot is held as long.
    fn sse_pump(
        &self,
        slot: crate::server::ListenerSlot,
        mut rx: mpsc::UnboundedReceiver<Bytes>,
        btx: mpsc::Sender<Bytes>,
        stream: Arc<Stream>,
        caller: Option<Caller>,
    ) {
        let keep_alive = self.config.keep_alive;
        let shutdown = self.server.inner.shutdown.clone();
        let handler = self.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let out = &stream.out;
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
            handler.sse_end(&stream.id, &stream, caller.as_ref()).await;
        });
    }

    /// A stream's record in a shared store outlives a silent holder by this much.
    fn stream_lease(&self) -> std::time::Duration {
        (self.config.keep_alive * LEASE_PERIODS).max(std::time::Duration::from_secs(1))
    }

    /// With a shared session store: hear what other replicas send to `stream` (the events of
    /// POSTs they serve, the session their `initialize` bound), and renew its lease, until it
    /// closes.
    fn sse_hold(&self, stream: Arc<Stream>, caller: Option<Caller>) {
        let (ntx, mut nrx) = mpsc::unbounded_channel();
        self.server.inner.held_streams.hold(&stream.id, ntx);
        let handler = self.clone();
        let lease = self.stream_lease();
        let every = self.config.keep_alive;
        tokio::spawn(async move {
            let store = handler.server.inner.sessions.store.clone();
            let mut renew = tokio::time::interval(every);
            renew.tick().await;
            loop {
                tokio::select! {
                    _ = stream.out.closed.cancelled() => break,
                    n = nrx.recv() => match n {
                        Some(StreamNews::Event(e)) => {
                            if !stream.out.push(Bytes::from(e)) {
                                break;
                            }
                        }
                        Some(StreamNews::Bound(sid)) => {
                            handler.sse_bind(&stream, &sid, caller.as_ref(), false).await
                        }
                        None => break,
                    },
                    // Gone from the store (its lease ran out while Redis was away, or Redis
                    // came back empty): no other replica can reach it any more, so it ends. A
                    // failed renewal (Redis out of reach for a moment) is covered by the lease.
                    _ = renew.tick() => if let Ok(false) = store.renew_stream(&stream.id, lease).await {
                        stream.out.closed.cancel();
                        break;
                    },
                }
            }
        });
    }

    /// The stream is gone (client away, too far behind, shutdown): forget it, stop what still
    /// feeds it, and end its session on every replica.
    async fn sse_end(&self, id: &str, stream: &Stream, caller: Option<&Caller>) {
        self.sse_streams.lock().remove(id);
        stream.out.closed.cancel();
        let store = &self.server.inner.sessions.store;
        if store.is_shared() {
            self.server.inner.held_streams.release(id);
            let _ = store.close_stream(id).await;
        }
        if let Some(sid) = stream.session() {
            let _ = self.gate.end(Ok(&sid), caller).await;
        }
    }

    /// A POST to the messages path: refused here for what its head and body show (400 no or
    /// bad session id, 404 unknown session, 415/406/413, 400 unparseable), else 202 and served
    /// on its own task, its answer going down the stream.
    async fn sse_post(
        &self,
        req: HttpRequest,
        caller: Option<Caller>,
        peer: Option<SocketAddr>,
        query: &str,
    ) -> HttpResponse {
        self.sse_post_to(req, caller, peer, query, None).await
    }

    /// Stream `id` held by another replica (a shared session store), if `owner` opened it.
    /// `Err`: the store is out of reach (503).
    async fn remote_stream(
        &self,
        id: &str,
        owner: &Option<String>,
    ) -> Result<Option<Dest>, HttpResponse> {
        let store = &self.server.inner.sessions.store;
        if !store.is_shared() || !is_stream_id(id) {
            return Ok(None);
        }
        match store.stream(id).await {
            Ok(Some(rec)) if rec.owner == *owner => Ok(Some(Dest::There {
                id: id.to_string(),
                session: rec.session,
            })),
            Ok(_) => Ok(None),
            Err(e) => Err(refuse(StatusCode::SERVICE_UNAVAILABLE, e.into())),
        }
    }

    /// [`Self::sse_post`] for stream `id`, or the one its query names.
    async fn sse_post_to(
        &self,
        req: HttpRequest,
        caller: Option<Caller>,
        peer: Option<SocketAddr>,
        query: &str,
        id: Option<&str>,
    ) -> HttpResponse {
        // The size first, as for every POST (`check_post`): a body over the cap is refused before
        // the stream it names is looked up, as the SDKs' body-limit middleware does.
        if req.body.len() > self.config.max_body {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                McpError::invalid_request("Request body too large"),
            );
        }
        let Some(id) = id.or_else(|| session_param(query)) else {
            return refuse(
                StatusCode::BAD_REQUEST,
                McpError::invalid_request("session_id is required"),
            );
        };
        let dest = match self.sse_dest(id, caller.as_ref()).await {
            Ok(Some(d)) => d,
            Ok(None) => {
                return refuse(
                    StatusCode::NOT_FOUND,
                    McpError::invalid_request("Session not found"),
                )
            }
            Err(r) => return r,
        };
        let inner = match self.sse_inner_post(req, &dest) {
            Ok(r) => r,
            Err(r) => return r,
        };
        let handler = self.clone();
        let query = query.to_string();
        tokio::spawn(async move {
            let closed = match &dest {
                Dest::Here(s) => s.out.closed.clone(),
                // The holder's end of the stream ends the session, which cancels its requests.
                Dest::There { .. } => CancellationToken::new(),
            };
            tokio::select! {
                _ = handler.sse_relay(inner, caller, peer, &query, &dest) => {}
                // Dropping the relay drops the inner answer, which cancels its request.
                _ = closed.cancelled() => {}
            }
        });
        HttpResponse::new(StatusCode::ACCEPTED)
    }

    /// The stream `id` names, here or (a shared store) on another replica; `None` when there
    /// is none for this caller: another caller's stream is answered as an unknown one.
    async fn sse_dest(
        &self,
        id: &str,
        caller: Option<&Caller>,
    ) -> Result<Option<Dest>, HttpResponse> {
        let here = self.sse_streams.lock().get(id).cloned();
        let key = caller.map(|c| c.key().into_owned());
        match here {
            Some(s) if s.owner == key => Ok(Some(Dest::Here(s))),
            Some(_) => Ok(None),
            None => self.remote_stream(id, &key).await,
        }
    }

    /// The POST as the legacy Streamable HTTP POST of `dest`'s session, or its refusal for what
    /// its head and body show (415/406/413, 400 unparseable).
    // The refusal is the response itself, built once per refused request.
    #[allow(clippy::result_large_err)]
    fn sse_inner_post(&self, req: HttpRequest, dest: &Dest) -> Result<HttpRequest, HttpResponse> {
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
        self.check_post(&headers::PostHeaders::of(&headers), body.len())?;
        if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(&body) {
            return Err(refuse(
                StatusCode::BAD_REQUEST,
                McpError::new(
                    crate::error::ErrorCode::PARSE_ERROR,
                    format!("Parse error: {e}"),
                ),
            ));
        }
        headers.remove(headers::MCP_SESSION_ID);
        if let Some(sid) = dest.session() {
            if let Ok(v) = HeaderValue::from_str(&sid) {
                headers.insert(headers::MCP_SESSION_ID, v);
            }
        }
        Ok(HttpRequest {
            method,
            path,
            headers,
            body,
        })
    }

    /// Serve one POSTed message and send its answer down the stream.
    async fn sse_relay(
        &self,
        inner: HttpRequest,
        caller: Option<Caller>,
        peer: Option<SocketAddr>,
        query: &str,
        dest: &Dest,
    ) {
        let resp = self.post(inner, caller.clone(), peer, query).await;
        if dest.session().is_none() {
            let created = resp
                .headers
                .get(headers::MCP_SESSION_ID)
                .and_then(|v| v.to_str().ok());
            // Bound before the answer goes out: the client's next message names it.
            match (created, dest) {
                (Some(sid), Dest::Here(stream)) => {
                    self.sse_bind(stream, sid, caller.as_ref(), true).await
                }
                (Some(sid), Dest::There { id, .. }) => self.sse_bind_there(id, sid).await,
                (None, _) => {}
            }
        }
        match resp.body {
            ResponseBody::Empty => {}
            ResponseBody::Full(b) => {
                self.sse_send(dest, message_event(&b)).await;
            }
            ResponseBody::Sse(mut rx) => {
                while let Some(c) = rx.recv().await {
                    if c.starts_with(b":") {
                        continue; // the stream has its own keep-alive
                    }
                    if !self.sse_send(dest, c).await {
                        return;
                    }
                }
            }
        }
    }

    /// One event down `dest`; `false` once it cannot go (the stream closed, or the other
    /// replicas are out of reach).
    async fn sse_send(&self, dest: &Dest, event: Bytes) -> bool {
        match dest {
            Dest::Here(stream) => stream.out.push(event),
            Dest::There { id, .. } => {
                let sig = SessionSignal::StreamEvent {
                    stream: id.clone(),
                    event: String::from_utf8_lossy(&event).into_owned(),
                };
                match self.server.inner.sessions.store.signal(sig).await {
                    Ok(()) => true,
                    Err(e) => {
                        tracing::warn!(error = %e, "an HTTP+SSE answer did not reach the replica holding its stream");
                        false
                    }
                }
            }
        }
    }

    /// `initialize`, served here for stream `id` another replica holds, made session `sid`:
    /// recorded for the POSTs that follow (wherever they land), and told to the holder.
    async fn sse_bind_there(&self, id: &str, sid: &str) {
        let store = &self.server.inner.sessions.store;
        let bound = match store.bind_stream(id, sid).await {
            Ok(true) => {
                store
                    .signal(SessionSignal::StreamBound {
                        stream: id.to_string(),
                        session: sid.to_string(),
                    })
                    .await
            }
            Ok(false) => return, // the stream is gone
            Err(e) => Err(e),
        };
        if let Err(e) = bound {
            tracing::warn!(error = %e, "an HTTP+SSE stream's session was not bound");
        }
    }

    /// `initialize` made legacy session `sid` for this stream: the session's server-initiated
    /// messages and change events go down the stream from now on, and its end closes it.
    /// `record`: the binding is this process's to record in a shared store (it served the
    /// `initialize`).
    async fn sse_bind(&self, stream: &Stream, sid: &str, caller: Option<&Caller>, record: bool) {
        *stream.session.lock().unwrap_or_else(|e| e.into_inner()) = Some(sid.to_string());
        let store = &self.server.inner.sessions.store;
        if record && store.is_shared() {
            if let Err(e) = store.bind_stream(&stream.id, sid).await {
                tracing::warn!(error = %e, "an HTTP+SSE stream's session was not recorded");
            }
        }
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
