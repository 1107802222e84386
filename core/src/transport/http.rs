//! Streamable HTTP, transport-neutral: an [`HttpRequest`] (method, path, headers, body bytes) in,
//! an [`HttpResponse`] (status, headers, a full body or an SSE stream) out. The hyper server,
//! the Python ASGI mount and the Node fetch/Express mounts all call [`HttpHandler::handle`].
//!
//! Order of checks (the 2026-07-28 spec, `transports/streamable-http`, server validation): path, Origin/Host (403), method (405), content type (415),
//! Accept (406), body size (413), JSON parse (-32700), JSON-RPC shape (-32600), era, then the
//! modern header checks (-32020 / -32022 / -32602) before dispatch.

use super::headers;
use crate::client_requests::{LazySink, Sink};
use crate::error::{ErrorCode, McpError};
use crate::identity::Caller;
use crate::jsonrpc::{self, Incoming, Message, ParseError};
use crate::protocol::{is_legacy_version, Era};
use crate::server::dispatch::Reply;
use crate::server::era::era_of;
use crate::server::session::LegacySession;
use crate::server::{Env, Server, Transport};
use bytes::Bytes;
use http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use serde_json::{json, Value};
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub use super::http_config::HttpConfig;
pub use crate::auth::{AuthRejection, Authenticator};
pub use crate::request::HttpRequestInfo;

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

/// What a request's work ends with: its reply (and status), the legacy session it created, and
/// the HTTP request it came in (see [`HttpHandler::run`]).
type WorkDone = (
    Option<(Reply, u16)>,
    Option<Arc<LegacySession>>,
    Option<Arc<HttpRequestInfo>>,
);

type Work = Pin<Box<dyn Future<Output = WorkDone> + Send>>;

/// Owns an in-flight request. Dropped before the request finished (the client went away, or
/// the host dropped the response): the request is cancelled and the rest of it runs on its own
/// task, so the handler observes the cancellation and cleans up instead of vanishing mid-await.
struct InFlight {
    work: Option<Work>,
    cancel: CancellationToken,
    /// The request's notifications: closed with it, so a message sent after the answer (from a
    /// task the handler left behind) fails as it would on a dropped channel.
    sink: Arc<LazySink>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.sink.close();
        if let Some(work) = self.work.take() {
            self.cancel.cancel();
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                rt.spawn(async move {
                    let _ = work.await;
                });
            }
        }
    }
}

/// The transport-neutral Streamable HTTP handler. Cheap to clone.
#[derive(Clone)]
pub struct HttpHandler {
    pub(super) server: Server,
    pub(super) config: Arc<HttpConfig>,
    auth_failures: Option<Arc<crate::limits::AuthFailureLimiter>>,
    /// `rate_limit` counted in Redis (`rate_limit_store = "redis"`).
    #[cfg(feature = "redis")]
    shared_rate: Option<Arc<crate::redis::SharedRateLimit>>,
}

impl HttpHandler {
    pub fn new(server: Server, config: HttpConfig) -> Self {
        if config.auth.is_some() {
            // Lists and results may differ per caller: never let a shared cache keep them.
            server.mark_authenticated();
        }
        let auth_failures = config
            .auth_failure_limit
            .filter(|_| config.auth.is_some())
            .map(|l| Arc::new(crate::limits::AuthFailureLimiter::new(l)));
        #[cfg(feature = "redis")]
        let shared_rate = match (&server.inner.redis, &config.rate_limit) {
            (Some(r), Some(l)) if server.inner.shared_rate_limits => Some(Arc::new(
                crate::redis::SharedRateLimit::new(r.clone(), l.clone()),
            )),
            _ => None,
        };
        Self {
            server,
            config: Arc::new(config),
            auth_failures,
            #[cfg(feature = "redis")]
            shared_rate,
        }
    }
    pub fn server(&self) -> &Server {
        &self.server
    }
    pub fn config(&self) -> &HttpConfig {
        &self.config
    }

    /// Serve one HTTP request (client address unknown: no failed-authentication limit).
    pub async fn handle(&self, req: HttpRequest) -> HttpResponse {
        self.handle_from(req, None).await
    }

    /// Serve one HTTP request from the client address `peer`, which keys the
    /// failed-authentication limit ([`HttpConfig::auth_failure_limit`]).
    pub async fn handle_from(
        &self,
        req: HttpRequest,
        peer: Option<std::net::IpAddr>,
    ) -> HttpResponse {
        self.handle_full(req, peer.map(|ip| SocketAddr::new(ip, 0)), "")
            .await
    }

    /// [`Self::handle_from`] with the client's socket address and the URL's query string, which
    /// handlers see through [`crate::Context::http_request`].
    pub async fn handle_full(
        &self,
        req: HttpRequest,
        peer_addr: Option<SocketAddr>,
        query: &str,
    ) -> HttpResponse {
        let peer = peer_addr.map(|a| a.ip());
        // One pass: the headers' size, and the two the guard reads (no lookup per name).
        let (mut size, mut host, mut origin) = (0, None, None);
        for (k, v) in &req.headers {
            size += k.as_str().len() + v.len();
            if k == header::HOST {
                host.get_or_insert(v);
            } else if k == header::ORIGIN {
                origin.get_or_insert(v);
            }
        }
        if req.headers.len() > self.config.max_headers || size > self.config.max_header_bytes {
            return HttpResponse::error(
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                Value::Null,
                McpError::invalid_request("Request headers too large"),
            );
        }
        if req.path == "/healthz" {
            return HttpResponse::json(StatusCode::OK, &json!({"status":"ok"}));
        }
        // The paths a `tools/call` does not take are awaited boxed: an `async fn`'s future is as
        // large as its largest `.await`, and this one is moved whole on every request (hyper
        // places it per request), so the rare branches stay out of it.
        if req.path == "/readyz" {
            return Box::pin(self.readiness()).await;
        }
        if req
            .path
            .starts_with("/.well-known/oauth-protected-resource")
        {
            return self.resource_metadata(&req);
        }
        if req.path != self.config.path {
            return HttpResponse::new(StatusCode::NOT_FOUND);
        }
        if let Err(r) = self.guard(host, origin) {
            return r;
        }
        let failures = self.auth_failures.as_deref().zip(peer);
        if let Some((limiter, ip)) = failures {
            if let Err(wait) = limiter.check(ip) {
                tracing::info!(target: "oxmcp::audit", peer = %ip, outcome = "auth_rate_limited", "auth");
                let e = McpError::new(
                    ErrorCode::RATE_LIMITED,
                    "Too many failed authentications; retry later",
                );
                return HttpResponse::error(StatusCode::TOO_MANY_REQUESTS, Value::Null, e)
                    .header(header::RETRY_AFTER, &retry_secs(wait).to_string());
            }
        }
        let caller = match &self.config.auth {
            Some(a) => match Box::pin(a.authenticate(&req.headers)).await {
                Ok(c) => c,
                Err(r) => {
                    // A presented token that was refused spends one failure; a request without
                    // one (a client discovering that auth is needed) does not.
                    if let Some((limiter, ip)) = failures {
                        if r.status == 401 && req.headers.contains_key(header::AUTHORIZATION) {
                            limiter.failed(ip);
                        }
                    }
                    return rejected(r);
                }
            },
            None => None,
        };
        if let Err(r) = self.charge(caller.as_ref(), 1).await {
            return r;
        }
        match req.method {
            Method::POST => self.post(req, caller, peer_addr, query).await,
            Method::GET => Box::pin(self.get(&req.headers, caller.as_ref())).await,
            Method::DELETE => Box::pin(self.delete(&req.headers, caller.as_ref())).await,
            _ => HttpResponse::new(StatusCode::METHOD_NOT_ALLOWED)
                .header(header::ALLOW, "GET, POST, DELETE"),
        }
    }

    /// `GET /readyz`, the readiness probe (`GET /healthz` is liveness). 200 while the server
    /// takes requests, 503 once it is shutting down (so a load balancer stops sending it new
    /// ones); the body says whether the deployment's Redis answers a PING (`"up"`, `"down"`, or
    /// `"off"` without one).
    ///
    /// Why Redis down is still 200: every replica shares that Redis, so a readiness that
    /// followed it would take every replica out of the Service at once, while 2026-07-28
    /// stateless calls (which never touch Redis) could still be served. Alerting on Redis is
    /// the body's (or Redis' own) job, not the load balancer's.
    ///
    /// Like `/healthz`, it answers before the Host/Origin check and before auth: a kubelet
    /// probes with the pod's IP as `Host` and no credentials. It reveals nothing a caller could
    /// use (no URL, no names, no counts).
    async fn readiness(&self) -> HttpResponse {
        if self.server.is_shut_down() {
            return HttpResponse::json(
                StatusCode::SERVICE_UNAVAILABLE,
                &json!({"status": "shutting_down"}),
            );
        }
        #[cfg(feature = "redis")]
        let redis = match &self.server.inner.redis {
            Some(r) if r.ping().await => "up",
            Some(_) => "down",
            None => "off",
        };
        #[cfg(not(feature = "redis"))]
        let redis = "off";
        HttpResponse::json(StatusCode::OK, &json!({"status": "ok", "redis": redis}))
    }

    /// Take `n` rate-limit tokens for `caller` (each request costs one; a batch one per
    /// element), or the 429 to answer. Buckets are keyed by the caller's
    /// identity key (issuer + subject for JWTs), per-caller limits by name.
    pub(super) async fn charge(&self, caller: Option<&Caller>, n: u32) -> Result<(), HttpResponse> {
        let Some(limiter) = self.config.rate_limit.as_ref().filter(|_| n > 0) else {
            return Ok(());
        };
        let (key, name) = match caller {
            Some(c) => (c.key(), c.name.as_str()),
            None => (std::borrow::Cow::Borrowed(""), ""),
        };
        #[cfg(feature = "redis")]
        let checked = match &self.shared_rate {
            // Boxed: the Redis round trip's future would otherwise size every request's.
            Some(shared) => Box::pin(shared.check_keyed(&key, name, n)).await,
            None => limiter.check_keyed(&key, name, n),
        };
        #[cfg(not(feature = "redis"))]
        let checked = limiter.check_keyed(&key, name, n);
        checked.map_err(|wait| {
            tracing::info!(target: "oxmcp::audit", caller = caller.map_or("-", |c| c.name.as_str()), outcome = "rate_limited", cost = n, "request");
            let e = McpError::new(ErrorCode::RATE_LIMITED, "Too many requests; retry later");
            HttpResponse::error(StatusCode::TOO_MANY_REQUESTS, Value::Null, e)
                .header(header::RETRY_AFTER, &retry_secs(wait).to_string())
        })
    }

    /// RFC 9728: the protected-resource document, public and readable cross-origin.
    fn resource_metadata(&self, req: &HttpRequest) -> HttpResponse {
        let Some(doc) = self
            .config
            .auth
            .as_ref()
            .and_then(|a| a.protected_resource_metadata(&req.path))
        else {
            return HttpResponse::new(StatusCode::NOT_FOUND);
        };
        let cors = |r: HttpResponse| {
            r.header(header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")
                .header(header::ACCESS_CONTROL_ALLOW_METHODS, "GET, OPTIONS")
        };
        match req.method {
            Method::GET | Method::HEAD => cors(HttpResponse::json(StatusCode::OK, &doc))
                .header(header::CACHE_CONTROL, "max-age=3600"),
            Method::OPTIONS => cors(HttpResponse::new(StatusCode::NO_CONTENT)),
            _ => HttpResponse::new(StatusCode::METHOD_NOT_ALLOWED)
                .header(header::ALLOW, "GET, OPTIONS"),
        }
    }

    /// Headers that go with an error status: the step-up challenge on 403, `Retry-After` on 503.
    fn error_headers(&self, mut resp: HttpResponse, v: &Value) -> HttpResponse {
        // `get` chains, not `Value::pointer`: a pointer allocates per token, on every answer.
        let error = v.get("error");
        let code = || error.and_then(|e| e.get("code")).and_then(Value::as_i64);
        if resp.status == StatusCode::FORBIDDEN
            && code() == Some(i64::from(ErrorCode::INSUFFICIENT_SCOPE.0))
        {
            let scopes: Vec<String> = error
                .and_then(|e| e.get("data"))
                .and_then(|d| d.get("requiredScopes"))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            let challenge = match &self.config.auth {
                Some(a) => a.insufficient_scope(&scopes),
                None => crate::auth::BearerChallenge::insufficient_scope(scopes).to_string(),
            };
            resp = resp.header(header::WWW_AUTHENTICATE, &challenge);
        }
        if resp.status == StatusCode::SERVICE_UNAVAILABLE {
            resp = resp.header(header::RETRY_AFTER, "1");
        }
        resp
    }

    async fn post(
        &self,
        req: HttpRequest,
        caller: Option<Caller>,
        peer: Option<SocketAddr>,
        query: &str,
    ) -> HttpResponse {
        // The headers move into what handlers may see of the request (no copy).
        let HttpRequest {
            method,
            path,
            headers,
            body,
        } = req;
        let info = Arc::new(HttpRequestInfo {
            method,
            path,
            query: query.to_string(),
            headers,
            peer,
            body,
        });
        let (h, body) = (&info.headers, &info.body);
        let seen = headers::PostHeaders::of(h);
        let json_body = seen.content_type.first().is_some_and(|v| {
            // The usual value needs no parsing; parameters (`; charset=utf-8`) and case do.
            v.as_bytes() == b"application/json"
                || v.to_str().is_ok_and(|ct| {
                    ct.split(';')
                        .next()
                        .unwrap_or("")
                        .trim()
                        .eq_ignore_ascii_case("application/json")
                })
        });
        if !json_body {
            return HttpResponse::error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                Value::Null,
                McpError::invalid_request("Content-Type must be application/json"),
            );
        }
        if !headers::accepts_value(seen.accept.first(), "application/json") {
            return HttpResponse::error(
                StatusCode::NOT_ACCEPTABLE,
                Value::Null,
                McpError::invalid_request(
                    "Accept must include application/json and text/event-stream",
                ),
            );
        }
        if body.len() > self.config.max_body {
            return HttpResponse::error(
                StatusCode::PAYLOAD_TOO_LARGE,
                Value::Null,
                McpError::invalid_request("Request body too large"),
            );
        }
        let incoming = match jsonrpc::parse_incoming(body, self.config.max_string) {
            Ok(m) => m,
            Err(e) => {
                let status = match e {
                    ParseError::StringTooLong { .. } => StatusCode::PAYLOAD_TOO_LARGE,
                    _ => StatusCode::BAD_REQUEST,
                };
                return HttpResponse::error(status, Value::Null, e.to_mcp());
            }
        };
        // A 2026-07-28 request stands alone (a session header means nothing to it), and never
        // touches the session store: with Redis down, modern traffic is served as usual.
        let modern = matches!(&incoming, Incoming::One(e) if e.is_modern());
        let session = if modern {
            None
        } else {
            match Box::pin(self.session_of(h, caller.as_ref())).await {
                Ok(s) => s,
                Err(r) => return r,
            }
        };
        let header_version = match seen.protocol_version.value() {
            None => None,
            Some(Ok(v)) => Some(crate::protocol::version_cow(v)),
            Some(Err(())) => {
                return HttpResponse::error(
                    StatusCode::BAD_REQUEST,
                    Value::Null,
                    McpError::new(
                        ErrorCode::HEADER_MISMATCH,
                        "Invalid MCP-Protocol-Version header",
                    ),
                )
            }
        };
        // What this connection is, for the server's era rule (`server::era::era_of`).
        let conn = || {
            let mut env = Env::new(Transport::Http)
                .session(session.clone())
                .protocol_header(header_version.clone())
                .http(info.clone());
            env.sessionless = self.config.sessionless;
            env
        };
        let envelope = match incoming {
            Incoming::Batch(batch) => {
                return Box::pin(self.batch(batch, || conn().caller(caller.clone()))).await
            }
            Incoming::One(e) => e,
        };
        let message = match envelope.classify() {
            Ok(m) => m,
            Err((id, e)) => return HttpResponse::error(StatusCode::BAD_REQUEST, id, e),
        };
        match message {
            Message::Response(v) => {
                // In the 2026-07-28 era a client never answers the server (MRTR replaced
                // server-to-client requests): a response there is a malformed message. Only a
                // legacy client (a session, a legacy or no version header) may POST one.
                if conn().legacy_version().is_none() {
                    return HttpResponse::error(
                        StatusCode::BAD_REQUEST,
                        Value::Null,
                        McpError::invalid_request(
                            "A JSON-RPC response is not accepted in the 2026-07-28 era",
                        ),
                    );
                }
                let sid = session.as_ref().and_then(|s| s.id.as_deref());
                match Box::pin(self.server.client_response(&v, sid)).await {
                    Ok(_) => HttpResponse::new(StatusCode::ACCEPTED),
                    Err(e) => unavailable(e),
                }
            }
            Message::Notification { method, params } => {
                match Box::pin(self.server.notification(&method, params.as_ref(), &conn())).await {
                    Ok(()) => HttpResponse::new(StatusCode::ACCEPTED),
                    Err(e) => unavailable(e),
                }
            }
            Message::Request(rq) => {
                // The connection's session and version header move into the request's Env
                // (`conn` clones them, for a batch's several).
                // Set field by field: each builder step would copy the whole `Env`.
                let mut env = Env::with_cancel(Transport::Http, self.server.request_token());
                env.session = session;
                env.protocol_header = header_version;
                env.caller = caller;
                env.body_is_message = true;
                env.sessionless = self.config.sessionless;
                match era_of(&rq.method, rq.meta.as_deref(), &env) {
                    Era::Legacy => {
                        // A legacy request on a connection whose header names a modern revision.
                        if let Some(v) = env.protocol_header.as_deref() {
                            if rq.method != "initialize" && !is_legacy_version(v) {
                                return self.unsupported(rq.id, v);
                            }
                        }
                    }
                    Era::Modern => {
                        // Modern requests stand alone: a session header means nothing to them.
                        env.session = None;
                        if let Err((status, e)) = self.check_modern_headers(
                            h,
                            &seen,
                            env.protocol_header.as_deref(),
                            &rq,
                            env.caller.as_ref(),
                        ) {
                            return HttpResponse::error(status, rq.id, e);
                        }
                    }
                }
                // Moved, not cloned: the request's answer can then take the request's header map
                // back when the work is done with it (`respond`).
                env.http = Some(info);
                self.run(rq, env).await
            }
        }
    }

    /// Run one request: a plain JSON response unless the handler emits a message before its
    /// result, in which case the response becomes an SSE stream from that message on.
    ///
    /// Not an `async fn`: one would keep the request and its `Env` (416 bytes) in its future
    /// beside the work they move into, and that future is copied into the caller's.
    fn run(
        &self,
        rq: jsonrpc::Request,
        mut env: Env,
    ) -> impl Future<Output = HttpResponse> + Send + '_ {
        let sink = Arc::new(LazySink::default());
        let cancel = env.cancel.clone();
        env.sink = Some(Sink::Lazy(sink.clone()));
        let server = self.server.clone();
        let work: Work = Box::pin(async move {
            let r = server.request_with_status(rq, &env).await;
            let created = env.take_created_session();
            (r, created, env.http.take())
        });
        let inflight = InFlight {
            work: Some(work),
            cancel,
            sink,
        };
        self.respond(inflight)
    }

    /// [`Self::run`]'s answer: the work's result as JSON, or the SSE stream it opened.
    async fn respond(&self, mut inflight: InFlight) -> HttpResponse {
        let sink = inflight.sink.clone();
        let first = {
            let work = inflight
                .work
                .as_mut()
                .expect("work is present until it completes");
            tokio::select! {
                biased;
                done = work => Err(done),
                Some(rx) = sink.opened() => Ok(rx),
            }
        };
        match first {
            Err((r, created, request)) => {
                drop(inflight.work.take());
                let mut pending = Vec::new();
                if let Some(Some(mut rx)) = sink.take() {
                    while let Ok(m) = rx.try_recv() {
                        pending.push(m);
                    }
                }
                let mut resp = match (r, pending.is_empty()) {
                    (None, _) => HttpResponse::new(StatusCode::ACCEPTED),
                    (Some((reply, status)), true) => {
                        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
                        let mut body = Vec::with_capacity(reply.size_hint());
                        reply.write_to(&mut body);
                        // The request's header map, if the request is no longer held (a handler
                        // may keep its `Context`, and with it the request, past its answer).
                        let resp = match request.and_then(Arc::into_inner) {
                            Some(request) => {
                                HttpResponse::json_bytes_in(status, body, request.headers)
                            }
                            None => HttpResponse::json_bytes(status, body),
                        };
                        match reply.as_value() {
                            Some(v) => self.error_headers(resp, v),
                            None => resp,
                        }
                    }
                    (Some((reply, _)), false) => {
                        let (btx, brx) = mpsc::channel::<Bytes>(pending.len() + 1);
                        for m in &pending {
                            let _ = btx.try_send(sse_event(m));
                        }
                        let _ = btx.try_send(sse_event(&reply.into_value()));
                        sse_response(brx)
                    }
                };
                if let Some(id) = created.and_then(|s| s.id.clone()) {
                    resp = resp.header(headers::MCP_SESSION_ID, &id);
                }
                resp
            }
            Ok(mut rx) => {
                // Switch to SSE: the rest of the request is driven by a task feeding the body.
                // Dropping the body (client gone) ends that task, which cancels the request.
                let (btx, brx) = mpsc::channel::<Bytes>(64);
                let keep_alive = self.config.keep_alive;
                tokio::spawn(async move {
                    // The message that opened the channel is waiting in it: the loop's first
                    // (biased) branch sends it before anything else.
                    let mut tick = tokio::time::interval(keep_alive);
                    tick.tick().await;
                    loop {
                        let Some(work) = inflight.work.as_mut() else {
                            return;
                        };
                        tokio::select! {
                            biased;
                            Some(m) = rx.recv() => {
                                if btx.send(sse_event(&m)).await.is_err() { return; }
                            }
                            (r, _, _) = work => {
                                drop(inflight.work.take());
                                while let Ok(m) = rx.try_recv() {
                                    if btx.send(sse_event(&m)).await.is_err() { return; }
                                }
                                if let Some((reply, _)) = r {
                                    let _ = btx.send(sse_event(&reply.into_value())).await;
                                }
                                return;
                            }
                            _ = tick.tick() => {
                                if btx.send(Bytes::from_static(b": keep-alive\n\n")).await.is_err() { return; }
                            }
                            _ = btx.closed() => return,
                        }
                    }
                });
                sse_response(brx)
            }
        }
    }
}

/// 503 with the JSON-RPC error (the session store cannot be reached): retry shortly.
pub(super) fn unavailable(e: McpError) -> HttpResponse {
    HttpResponse::error(StatusCode::SERVICE_UNAVAILABLE, Value::Null, e)
        .header(header::RETRY_AFTER, "1")
}

/// Whole seconds for `Retry-After`, rounded up, at least 1.
fn retry_secs(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
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

/// HTTP status for a dispatch error in the given era (exposed for the bindings' mounts).
pub fn error_status(e: &McpError, era: Era) -> u16 {
    e.http_status(era)
}

/// The response for a request the [`Authenticator`] refused.
fn rejected(r: AuthRejection) -> HttpResponse {
    let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::UNAUTHORIZED);
    let resp = HttpResponse::json(status, &r.body());
    match &r.challenge {
        Some(c) => resp.header(header::WWW_AUTHENTICATE, c),
        None => resp,
    }
}
