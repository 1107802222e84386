//! Streamable HTTP, transport-neutral: an [`HttpRequest`] (method, path, headers, body bytes) in,
//! an [`HttpResponse`] (status, headers, a full body or an SSE stream) out. The hyper server,
//! the Python ASGI mount and the Node fetch/Express mounts all call [`HttpHandler::handle`].
//!
//! Order of checks (the 2026-07-28 spec, `transports/streamable-http`, server validation): path, Origin/Host (403), method (405), body size (413),
//! content type (415), Accept (406), JSON parse (-32700), JSON-RPC shape (-32600), era, then the
//! modern header checks (-32020 / -32022 / -32602) before dispatch.

use super::headers;
use super::http_checks::unsupported;
use crate::client_requests::{LazySink, Sink};
use crate::error::{ErrorCode, McpError};
use crate::identity::Caller;
use crate::jsonrpc::{self, Incoming, Message, ParseError};
use crate::protocol::{is_legacy_version, Era};
use crate::server::dispatch::Reply;
use crate::server::era::era_of;
use crate::server::gate::{Gate, GateConfig};
use crate::server::{Env, Server, Transport};
use crate::session::LegacySession;
use bytes::Bytes;
use http::{header, HeaderMap, Method, StatusCode};
use serde_json::{json, Value};
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use tokio::sync::mpsc;

/// Whether a `Content-Type` value names a JSON body: the media type `application/json`, in any
/// case, with or without parameters (`; charset=utf-8`).
pub fn is_json_content_type(value: &str) -> bool {
    value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .eq_ignore_ascii_case("application/json")
}
use tokio_util::sync::CancellationToken;

pub use super::http_config::{HttpConfig, SseConfig, TlsFiles, UdsConfig, DEFAULT_UDS_MODE};
pub(crate) use super::http_message::refused;
pub(super) use super::http_message::{sse_event, sse_response, unavailable};
pub use super::http_message::{HttpRequest, HttpResponse, ResponseBody};
pub use crate::auth::{AuthRejection, AuthRequest, Authenticator};
pub use crate::request::HttpRequestInfo;
pub use crate::server::gate::{Refusal, TrustedProxies};

/// What a request's work ends with: its reply (and status), the legacy session it created, and
/// the HTTP request it came in (see [`HttpHandler::run`]), the `ETag` of a list answer.
type WorkDone = (
    Option<(Reply, u16)>,
    Option<Arc<LegacySession>>,
    Option<Arc<HttpRequestInfo>>,
    Option<Arc<str>>,
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
///
/// It frames: it reads the head and the body, and writes JSON or SSE. What a request must pass
/// before dispatch (authentication, limits, the client address, the legacy session it names) is
/// decided by its [`Gate`].
#[derive(Clone)]
pub struct HttpHandler {
    pub(super) server: Server,
    pub(super) config: Arc<HttpConfig>,
    pub(super) gate: Arc<Gate>,
    /// The open HTTP+SSE streams ([`HttpConfig::sse`]).
    pub(super) sse_streams: Arc<super::sse::Streams>,
}

impl HttpHandler {
    pub fn new(server: Server, config: HttpConfig) -> Self {
        let gate = Gate::new(
            server.clone(),
            GateConfig {
                auth: config.auth.clone(),
                rate_limit: config.rate_limit.clone(),
                auth_failure_limit: config.auth_failure_limit,
                trusted_proxies: config.trusted_proxies.clone(),
                max_connections: config.max_connections,
                max_connections_per_client: config.max_connections_per_client,
            },
        );
        Self {
            server,
            config: Arc::new(config),
            gate: Arc::new(gate),
            sse_streams: Arc::default(),
        }
    }
    pub fn server(&self) -> &Server {
        &self.server
    }
    pub fn config(&self) -> &HttpConfig {
        &self.config
    }
    /// The admission decisions this endpoint's requests pass.
    pub fn gate(&self) -> &Gate {
        &self.gate
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
        match self
            .admit(&req.method, &req.path, &req.headers, peer_addr)
            .await
        {
            Ok(caller) => self.serve(req, caller, peer_addr, query).await,
            Err(r) => r,
        }
    }

    /// Everything a request's head decides, before its body is read: header caps, the probes
    /// and the metadata document (answered here), the path, the Host/Origin guard, then the
    /// [`Gate`] (failed-authentication limit, authentication, rate limit). `Ok(caller)` when the
    /// request goes on to [`Self::serve`]; `Err` is the answer.
    ///
    /// The built-in server calls it before it reads the body, so an unauthenticated client
    /// cannot make it hold one.
    pub async fn admit(
        &self,
        method: &Method,
        path: &str,
        headers: &HeaderMap,
        peer_addr: Option<SocketAddr>,
    ) -> Result<Option<Caller>, HttpResponse> {
        // One pass: the headers' size, the two the guard reads and the declared body length (no
        // lookup per name).
        let (mut size, mut host, mut origin, mut length) = (0, None, None, None);
        for (k, v) in headers {
            size += k.as_str().len() + v.len();
            if k == header::HOST {
                host.get_or_insert(v);
            } else if k == header::ORIGIN {
                origin.get_or_insert(v);
            } else if k == header::CONTENT_LENGTH {
                length.get_or_insert(v);
            }
        }
        if headers.len() > self.config.max_headers || size > self.config.max_header_bytes {
            return Err(HttpResponse::error(
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                Value::Null,
                McpError::invalid_request("Request headers too large"),
            ));
        }
        if path != self.config.path && !self.is_sse_path(path) {
            // The paths a `tools/call` does not take are awaited boxed: an `async fn`'s future
            // is as large as its largest `.await`, and this one is moved whole on every request.
            return Err(Box::pin(self.off_endpoint(method, path, headers)).await);
        }
        self.guard(host, origin)?;
        let client = self.gate.client_addr(peer_addr.map(|a| a.ip()), headers);
        let req = crate::auth::AuthRequest::new(method, path, headers, &self.config.path);
        let caller = self.gate.admit(req, client).await.map_err(refused)?;
        // A body declared over the cap is refused before it is read, by a host's mount as by
        // the built-in server (which reads the length from hyper).
        let declared = length
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if path == self.config.path && declared.is_some_and(|n| n > self.config.max_body as u64) {
            return Err(HttpResponse::error(
                StatusCode::PAYLOAD_TOO_LARGE,
                Value::Null,
                McpError::invalid_request("Request body too large"),
            ));
        }
        Ok(caller)
    }

    /// [`Self::admit`] for a host framework that authenticates requests itself (an ASGI app's
    /// authentication middleware): `host` is the caller it authenticated, taken when this
    /// endpoint has no authenticator of its own. With one, its caller stands and `host` is not
    /// looked at: a host cannot give a request another identity than the core's auth gave it.
    /// The caller then owns the sessions it opens, as one the core authenticated does.
    pub async fn admit_as(
        &self,
        method: &Method,
        path: &str,
        headers: &HeaderMap,
        peer_addr: Option<SocketAddr>,
        host: Option<Caller>,
    ) -> Result<Option<Caller>, HttpResponse> {
        let caller = self.admit(method, path, headers, peer_addr).await?;
        Ok(caller.or(host))
    }

    /// A request for another path than the endpoint's: the metrics, the probes, RFC 9728
    /// metadata, or 404.
    async fn off_endpoint(&self, method: &Method, path: &str, headers: &HeaderMap) -> HttpResponse {
        if let Some(r) = self.scrape(method, path, headers, None).await {
            return r;
        }
        match path {
            "/healthz" => HttpResponse::json(StatusCode::OK, &json!({"status":"ok"})),
            "/readyz" => {
                let (status, body) = self.gate.readiness().await;
                HttpResponse::json(status, &body)
            }
            p if p.starts_with("/.well-known/oauth-protected-resource") => {
                self.resource_metadata(method, p)
            }
            _ => HttpResponse::new(StatusCode::NOT_FOUND),
        }
    }

    /// An admitted request (see [`Self::admit`]), by method.
    pub async fn serve(
        &self,
        req: HttpRequest,
        caller: Option<Caller>,
        peer_addr: Option<SocketAddr>,
        query: &str,
    ) -> HttpResponse {
        if self.config.sse.is_some() && req.path != self.config.path {
            return Box::pin(self.sse(req, caller, peer_addr, query)).await;
        }
        match req.method {
            Method::POST => self.post(req, caller, peer_addr, query).await,
            Method::GET => Box::pin(self.get(&req.headers, caller.as_ref())).await,
            Method::DELETE => Box::pin(self.delete(&req.headers, caller.as_ref())).await,
            _ => HttpResponse::new(StatusCode::METHOD_NOT_ALLOWED)
                .header(header::ALLOW, "GET, POST, DELETE"),
        }
    }

    /// Take `n` rate-limit tokens for `caller` ([`Gate::charge`]), or the 429 to answer.
    pub(super) async fn charge(&self, caller: Option<&Caller>, n: u32) -> Result<(), HttpResponse> {
        self.gate.charge(caller, n).await.map_err(refused)
    }

    /// RFC 9728: the protected-resource document, public and readable cross-origin.
    fn resource_metadata(&self, method: &Method, path: &str) -> HttpResponse {
        let Some(doc) = self
            .gate
            .auth()
            .and_then(|a| a.protected_resource_metadata(path))
        else {
            return HttpResponse::new(StatusCode::NOT_FOUND);
        };
        let cors = |r: HttpResponse| {
            r.header(header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")
                .header(header::ACCESS_CONTROL_ALLOW_METHODS, "GET, OPTIONS")
        };
        match *method {
            Method::GET | Method::HEAD => cors(HttpResponse::json(StatusCode::OK, &doc))
                .header(header::CACHE_CONTROL, "max-age=3600"),
            Method::OPTIONS => cors(HttpResponse::new(StatusCode::NO_CONTENT)),
            _ => HttpResponse::new(StatusCode::METHOD_NOT_ALLOWED)
                .header(header::ALLOW, "GET, OPTIONS"),
        }
    }

    /// Headers that go with an error status: the step-up challenge (and its RFC 6750 body) on
    /// 403, in the scheme the request used (`dpop`), `Retry-After` on 503.
    fn error_headers(&self, mut resp: HttpResponse, v: &Value, dpop: bool) -> HttpResponse {
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
            let challenge = match self.gate.auth() {
                Some(a) if dpop => a.insufficient_scope_dpop(&scopes),
                Some(a) => a.insufficient_scope(&scopes),
                None => crate::auth::BearerChallenge::insufficient_scope(scopes).to_string(),
            };
            resp = resp.header(header::WWW_AUTHENTICATE, &challenge);
            // The body a step-up client reads is RFC 6750's, as the TS SDK sends it; the
            // JSON-RPC error (code -31403) is what a transport without HTTP gets.
            resp.body = ResponseBody::Full(Bytes::from(
                serde_json::to_vec(&crate::auth::insufficient_scope_body()).unwrap_or_default(),
            ));
        }
        if resp.status == StatusCode::SERVICE_UNAVAILABLE {
            resp = resp.header(header::RETRY_AFTER, "1");
        }
        resp
    }

    /// A POST: its own headers, the body parsed, the legacy session it names, then the message.
    pub(super) async fn post(
        &self,
        req: HttpRequest,
        caller: Option<Caller>,
        peer: Option<SocketAddr>,
        query: &str,
    ) -> HttpResponse {
        let info = request_info(req, peer, query);
        let seen = headers::PostHeaders::of(&info.headers);
        if let Err(r) = self.check_post(&seen, info.body.len()) {
            return r;
        }
        // Parsed here, not in an async helper: a helper's future would carry the large
        // `Result<_, HttpResponse>` through every `tools/call` (measured: +1 % instructions).
        let incoming = match jsonrpc::parse_incoming(&info.body, self.config.max_string) {
            Ok(m) => m,
            Err(e) => return Box::pin(self.refuse_body(e, &info, caller.as_ref())).await,
        };
        // A 2026-07-28 request stands alone (a session header means nothing to it), and never
        // touches the session store: with Redis down, modern traffic is served as usual.
        let session = if matches!(&incoming, Incoming::One(e) if e.is_modern()) {
            None
        } else {
            let id = headers::get(&info.headers, headers::MCP_SESSION_ID);
            match Box::pin(self.gate.session(id, caller.as_ref())).await {
                Ok(s) => s,
                Err(r) => return refused(r),
            }
        };
        let conn = match Connection::of(session, &seen, caller) {
            Ok(c) => c,
            Err(r) => return r,
        };
        let envelope = match incoming {
            Incoming::Batch(batch) => {
                return Box::pin(self.batch(batch, || conn.env(self.config.sessionless, &info)))
                    .await
            }
            Incoming::One(e) => e,
        };
        match envelope.classify() {
            Ok(Message::Request(rq)) => match self.request_env(&rq, conn, &seen, &info.headers) {
                Ok(mut env) => {
                    // A modern `tools/call` to a server with a host's lookup only: the others
                    // never ask it, and the cheap flag comes before the era is worked out.
                    let modern = self.server.has_tool_schema_lookup()
                        && rq.method == crate::protocol::Method::ToolsCall
                        && env.session.is_none()
                        && era_of(&rq.method, rq.meta.as_deref(), &env) == Era::Modern;
                    let lookup = modern
                        .then(|| {
                            self.looked_up_param_check(&rq, &info.headers, env.caller.as_ref())
                        })
                        .flatten();
                    if let Some(check) = lookup {
                        if let Err((status, e)) = check.await {
                            return HttpResponse::error(status, rq.id, e);
                        }
                    }
                    // Moved, not cloned: the request's answer can then take the request's
                    // header map back when the work is done with it (`respond`).
                    env.http = Some(info);
                    self.run(rq, env).await
                }
                Err((status, e)) => HttpResponse::error(status, rq.id, e),
            },
            Ok(m) => Box::pin(self.client_message(m, conn, &info)).await,
            Err((id, e)) => HttpResponse::error(StatusCode::BAD_REQUEST, id, e),
        }
    }

    /// The refusal of a body that is not JSON-RPC.
    async fn refuse_body(
        &self,
        e: ParseError,
        info: &HttpRequestInfo,
        caller: Option<&Caller>,
    ) -> HttpResponse {
        // A session this caller cannot use (ended, unknown, another caller's) is "not found"
        // whatever the body says: the 404 tells the client to start over, which a 400 for its
        // body would hide.
        let id = headers::get(&info.headers, headers::MCP_SESSION_ID);
        if id.is_some() {
            if let Err(r) = Box::pin(self.gate.session(id, caller)).await {
                return refused(r);
            }
        }
        let status = match e {
            ParseError::StringTooLong { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            _ => StatusCode::BAD_REQUEST,
        };
        HttpResponse::error(status, Value::Null, e.to_mcp())
    }

    /// A POST's own rules: body size (413), JSON content type (415), Accept (406).
    // The refusal is the response itself, built once per refused request.
    #[allow(clippy::result_large_err)]
    pub(super) fn check_post(
        &self,
        seen: &headers::PostHeaders<'_>,
        len: usize,
    ) -> Result<(), HttpResponse> {
        let json_body = seen.content_type.first().is_some_and(|v| {
            // The usual value needs no parsing; parameters (`; charset=utf-8`) and case do.
            v.as_bytes() == b"application/json" || v.to_str().is_ok_and(is_json_content_type)
        });
        let refuse = |status, m: &str| {
            Err(HttpResponse::error(
                status,
                Value::Null,
                McpError::invalid_request(m.to_string()),
            ))
        };
        // The size first: a body over the cap is refused whatever its headers say, as the SDKs'
        // body-limit middleware does before their transport looks at the request.
        if len > self.config.max_body {
            return refuse(StatusCode::PAYLOAD_TOO_LARGE, "Request body too large");
        }
        if !json_body {
            return refuse(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Content-Type must be application/json",
            );
        }
        if !headers::accepts_value(seen.accept.first(), "application/json") {
            return refuse(
                StatusCode::NOT_ACCEPTABLE,
                "Accept must include application/json and text/event-stream",
            );
        }
        Ok(())
    }

    /// A client's response or notification (202, or 503 with the session store unreachable).
    async fn client_message(
        &self,
        message: Message,
        conn: Connection,
        info: &Arc<HttpRequestInfo>,
    ) -> HttpResponse {
        let env = conn.env(self.config.sessionless, info);
        let done = match message {
            Message::Response(v) => {
                // In the 2026-07-28 era a client never answers the server (MRTR replaced
                // server-to-client requests): a response there is a malformed message. Only a
                // legacy client (a session, a legacy or no version header) may POST one.
                if env.legacy_version().is_none() {
                    return HttpResponse::error(
                        StatusCode::BAD_REQUEST,
                        Value::Null,
                        McpError::invalid_request(
                            "A JSON-RPC response is not accepted in the 2026-07-28 era",
                        ),
                    );
                }
                let sid = env.session.as_ref().and_then(|s| s.id.as_deref());
                self.server
                    .client_response(&v, sid, Some(&info.body))
                    .await
                    .map(|_| ())
            }
            Message::Notification { method, params } => {
                // A notification is of the handshake era as a request is: unless its `_meta`
                // names a revision (`era_of`), over a connection that speaks a legacy one.
                let modern = params
                    .as_ref()
                    .and_then(|p| p.get("_meta"))
                    .and_then(|m| m.get(crate::protocol::META_PROTOCOL_VERSION))
                    .is_some();
                if !modern && env.legacy_version().is_some() {
                    if let Some(e) = self.server.missing_session(&env) {
                        return HttpResponse::error(StatusCode::BAD_REQUEST, Value::Null, e);
                    }
                }
                self.server
                    .notification(method.as_str(), params.as_ref(), &env)
                    .await
            }
            Message::Request(_) => unreachable!("requests go to HttpHandler::request_env"),
        };
        match done {
            Ok(()) => HttpResponse::new(StatusCode::ACCEPTED),
            Err(e) => unavailable(e),
        }
    }

    /// A request's `Env`: its era decided, and a modern one's header rules checked (the
    /// refusal's status and error otherwise, answered with the request's id).
    fn request_env(
        &self,
        rq: &jsonrpc::Request,
        conn: Connection,
        seen: &headers::PostHeaders<'_>,
        h: &HeaderMap,
    ) -> Result<Env, (StatusCode, McpError)> {
        // The connection's session and version header move into the request's Env.
        // Set field by field: each builder step would copy the whole `Env`.
        let mut env = Env::with_cancel(Transport::Http, self.server.request_token());
        env.session = conn.session;
        env.protocol_header = conn.header_version;
        env.caller = conn.caller;
        env.body_is_message = true;
        env.sessionless = self.config.sessionless;
        match era_of(&rq.method, rq.meta.as_deref(), &env) {
            Era::Legacy => {
                // A legacy request on a connection whose header names a modern revision.
                if let Some(v) = env.protocol_header.as_deref() {
                    if rq.method != crate::protocol::Method::Initialize && !is_legacy_version(v) {
                        return Err((StatusCode::BAD_REQUEST, unsupported(v)));
                    }
                }
            }
            Era::Modern => {
                // Modern requests stand alone: a session header means nothing to them.
                env.session = None;
                let header = env.protocol_header.as_deref();
                self.check_modern_headers(h, seen, header, rq, env.caller.as_ref())?;
            }
        }
        Ok(env)
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
            (r, created, env.http.take(), env.etag.take())
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
            Err(done) => {
                drop(inflight.work.take());
                self.answer(done, &sink)
            }
            Ok(rx) => self.stream(inflight, rx),
        }
    }

    /// The work's result: JSON, or an SSE body when it sent messages meanwhile (they go
    /// first); the session it created named in `Mcp-Session-Id`.
    fn answer(&self, (r, created, request, etag): WorkDone, sink: &LazySink) -> HttpResponse {
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
                let dpop = status >= StatusCode::BAD_REQUEST
                    && request
                        .as_ref()
                        .is_some_and(|r| crate::auth::sent_dpop(&r.headers));
                // The request's header map, if the request is no longer held (a handler may
                // keep its `Context`, and with it the request, past its answer).
                let resp = match request.and_then(Arc::into_inner) {
                    Some(request) => HttpResponse::json_bytes_in(status, body, request.headers),
                    None => HttpResponse::json_bytes(status, body),
                };
                match reply.as_value() {
                    Some(v) => self.error_headers(resp, v, dpop),
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
        if let Some(tag) = etag {
            resp = resp.header(hyper::header::ETAG, &format!("\"{tag}\""));
        }
        resp
    }

    /// Switch to SSE: the rest of the request is driven by a task feeding the body. Dropping
    /// the body (client gone) ends that task, which cancels the request.
    fn stream(
        &self,
        mut inflight: InFlight,
        mut rx: mpsc::UnboundedReceiver<Value>,
    ) -> HttpResponse {
        let (btx, brx) = mpsc::channel::<Bytes>(64);
        let keep_alive = self.config.keep_alive;
        tokio::spawn(async move {
            // The message that opened the channel is waiting in it: the loop's first (biased)
            // branch sends it before anything else.
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
                    (r, _, _, _) = work => {
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

/// What handlers may see of the request; the headers and body move into it (no copy).
fn request_info(req: HttpRequest, peer: Option<SocketAddr>, query: &str) -> Arc<HttpRequestInfo> {
    let HttpRequest {
        method,
        path,
        headers,
        body,
    } = req;
    Arc::new(HttpRequestInfo {
        method,
        path,
        query: query.to_string(),
        headers,
        peer,
        peer_cred: crate::request::PEER_CRED.try_with(|c| *c).ok(),
        body,
    })
}

/// The session, version header and caller a POST came with, which its message's `Env` takes.
pub(super) struct Connection {
    session: Option<Arc<LegacySession>>,
    header_version: Option<std::borrow::Cow<'static, str>>,
    caller: Option<Caller>,
}

impl Connection {
    /// The connection of a POST with this session and headers, or the 400 for a malformed
    /// version header.
    #[allow(clippy::result_large_err)] // the refusal is the response itself
    fn of(
        session: Option<Arc<LegacySession>>,
        seen: &headers::PostHeaders<'_>,
        caller: Option<Caller>,
    ) -> Result<Self, HttpResponse> {
        Ok(Connection {
            session,
            header_version: header_version(seen)?,
            caller,
        })
    }

    /// What this connection is, for the server's era rule (`server::era::era_of`); cloned, for
    /// a batch's several messages.
    fn env(&self, sessionless: bool, info: &Arc<HttpRequestInfo>) -> Env {
        let mut env = Env::new(Transport::Http)
            .session(self.session.clone())
            .protocol_header(self.header_version.clone())
            .http(info.clone())
            .caller(self.caller.clone());
        env.sessionless = sessionless;
        env
    }
}

/// The `MCP-Protocol-Version` header's revision, or the 400 for a malformed one.
#[allow(clippy::result_large_err)] // the refusal is the response itself
fn header_version(
    seen: &headers::PostHeaders<'_>,
) -> Result<Option<std::borrow::Cow<'static, str>>, HttpResponse> {
    match seen.protocol_version.value() {
        None => Ok(None),
        Some(Ok(v)) => Ok(Some(crate::protocol::version_cow(v))),
        Some(Err(())) => Err(HttpResponse::error(
            StatusCode::BAD_REQUEST,
            Value::Null,
            McpError::new(
                ErrorCode::HEADER_MISMATCH,
                "Invalid MCP-Protocol-Version header",
            ),
        )),
    }
}

/// HTTP status for a dispatch error in the given era (exposed for the bindings' mounts).
pub fn error_status(e: &McpError, era: Era) -> u16 {
    e.http_status(era)
}

/// [`HttpConfig::check_metrics_path`] with the server's metrics options.
pub(super) fn check_paths(server: &Server, config: &HttpConfig) -> Result<(), String> {
    config.check_metrics_path(server.metrics_options())
}
