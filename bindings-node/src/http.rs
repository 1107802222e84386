//! Framework mounts (`server.fetch`, the Node `http`/Express adapter) over the core's
//! transport-neutral `HttpHandler`. One exchange = one request: `response()` awaits the head,
//! `next()` pulls SSE chunks, `cancel()` (the client went away) drops the request in the core,
//! which the core treats as cancellation.

use crate::errors::{self, coded, Code, Result};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use oxmcp::transport::http::{HttpHandler, HttpRequest, HttpResponse, ResponseBody};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// A request as the JS mounts hand it over.
#[napi(object)]
pub struct NativeHttpRequest {
    pub method: String,
    pub path: String,
    /// `[name, value]` pairs (repeated names allowed).
    pub headers: Vec<Vec<String>>,
    pub body: Buffer,
    /// The client's address as the host's socket gives it (`req.socket.remoteAddress`), for the
    /// failed-authentication limit and trusted proxies; absent when the host does not know it.
    pub peer: Option<String>,
    /// The caller the host app authenticated (`{name, scopes, claims}`: the TS SDK's
    /// `requireBearerAuth` answered by the core), which the core takes when it has no auth of
    /// its own.
    pub host: Option<serde_json::Value>,
}

/// The host's caller of `req` (see [`NativeHttpRequest::host`]).
pub(crate) fn host_caller(req: &NativeHttpRequest) -> Option<oxmcp::Caller> {
    let h = req.host.as_ref()?;
    let mut c = oxmcp::Caller::new(h.get("name")?.as_str()?);
    c.scopes = h
        .get("scopes")
        .and_then(|s| s.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    c.claims = h.get("claims").filter(|v| v.is_object()).cloned();
    Some(c)
}

/// The request, and its client's address (an unparsable one is unknown).
pub(crate) fn to_core(
    req: NativeHttpRequest,
) -> Result<(HttpRequest, Option<std::net::SocketAddr>)> {
    let peer = req
        .peer
        .as_deref()
        .and_then(|p| p.trim_start_matches('[').trim_end_matches(']').parse().ok())
        .map(|ip| std::net::SocketAddr::new(ip, 0));
    let method = http::Method::from_bytes(req.method.as_bytes()).map_err(|_| {
        coded(
            Code::Napi(Status::InvalidArg),
            format!("bad HTTP method {:?}", req.method),
        )
    })?;
    let mut headers = http::HeaderMap::new();
    for pair in req.headers {
        if let [name, value] = pair.as_slice() {
            if let (Ok(n), Ok(v)) = (
                http::HeaderName::from_bytes(name.as_bytes()),
                http::HeaderValue::from_str(value),
            ) {
                headers.append(n, v);
            }
        }
    }
    let req = HttpRequest {
        method,
        path: req.path,
        headers,
        body: bytes::Bytes::copy_from_slice(&req.body),
    };
    Ok((req, peer))
}

/// One in-flight request through `handle`.
#[napi]
pub struct NativeHttpExchange {
    head: Mutex<Option<oneshot::Receiver<HttpResponse>>>,
    cancel: CancellationToken,
    /// Started from the head alone ([`Self::start_head`]): whether the core admitted the
    /// request (then it waits for the body), and where the body goes.
    admitted: Mutex<Option<oneshot::Receiver<bool>>>,
    body: Mutex<Option<oneshot::Sender<bytes::Bytes>>>,
    /// The core's body cap for this endpoint (`max_body_bytes`): the host reads at most one byte
    /// more before it hands the body over, and the core answers its 413.
    max_body: usize,
}

impl NativeHttpExchange {
    /// Start `req` on the runtime; it runs until it answers or `cancel()` drops it.
    pub(crate) fn start(
        handler: HttpHandler,
        req: HttpRequest,
        peer: Option<std::net::SocketAddr>,
        host: Option<oxmcp::Caller>,
    ) -> Self {
        let (tx, rx) = oneshot::channel();
        let cancel = CancellationToken::new();
        let c = cancel.clone();
        let max_body = handler.config().max_body;
        napi::bindgen_prelude::spawn(async move {
            tokio::select! {
                r = async {
                    match handler.admit_as(&req.method, &req.path, &req.headers, peer, host).await {
                        Ok(caller) => handler.serve(req, caller, peer, "").await,
                        Err(refused) => refused,
                    }
                } => { let _ = tx.send(r); }
                _ = c.cancelled() => {}
            }
        });
        Self {
            head: Mutex::new(Some(rx)),
            cancel,
            admitted: Mutex::new(None),
            body: Mutex::new(None),
            max_body,
        }
    }

    /// Start a response the core makes by other means than [`HttpHandler::handle_full`] (the
    /// HTTP+SSE transport's stream and messages).
    pub(crate) fn from_future(
        handler: &HttpHandler,
        work: impl std::future::Future<Output = HttpResponse> + Send + 'static,
    ) -> Self {
        let (tx, rx) = oneshot::channel();
        let cancel = CancellationToken::new();
        let c = cancel.clone();
        napi::bindgen_prelude::spawn(async move {
            tokio::select! {
                r = work => { let _ = tx.send(r); }
                _ = c.cancelled() => {}
            }
        });
        Self {
            head: Mutex::new(Some(rx)),
            cancel,
            admitted: Mutex::new(None),
            body: Mutex::new(None),
            max_body: handler.config().max_body,
        }
    }

    /// Start `req` (its body not read yet) from its head: the core admits it first
    /// (authentication, limits); only an admitted request waits for its body (`body()`), so
    /// the host reads no body the core would refuse.
    pub(crate) fn start_head(
        handler: HttpHandler,
        mut req: HttpRequest,
        peer: Option<std::net::SocketAddr>,
        host: Option<oxmcp::Caller>,
    ) -> Self {
        let (tx, rx) = oneshot::channel();
        let (admitted_tx, admitted) = oneshot::channel();
        let (body, body_rx) = oneshot::channel::<bytes::Bytes>();
        let cancel = CancellationToken::new();
        let c = cancel.clone();
        let max_body = handler.config().max_body;
        napi::bindgen_prelude::spawn(async move {
            let work = async {
                match handler
                    .admit_as(&req.method, &req.path, &req.headers, peer, host)
                    .await
                {
                    Err(refused) => {
                        let _ = admitted_tx.send(false);
                        Some(refused)
                    }
                    Ok(caller) => {
                        let _ = admitted_tx.send(true);
                        req.body = body_rx.await.ok()?;
                        Some(handler.serve(req, caller, peer, "").await)
                    }
                }
            };
            tokio::select! {
                r = work => if let Some(r) = r { let _ = tx.send(r); },
                _ = c.cancelled() => {}
            }
        });
        Self {
            head: Mutex::new(Some(rx)),
            cancel,
            admitted: Mutex::new(Some(admitted)),
            body: Mutex::new(Some(body)),
            max_body,
        }
    }
}

#[napi]
impl NativeHttpExchange {
    /// The response head, and its body (complete, or a stream to pull with `next()`).
    #[napi(ts_return_type = "Promise<NativeHttpResponse>")]
    pub fn response<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, NativeHttpResponse>> {
        let rx = self
            .head
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .ok_or_else(|| {
                coded(
                    Code::Napi(Status::GenericFailure),
                    "response() was already called",
                )
            })?;
        let cancel = self.cancel.clone();
        errors::spawn(env, async move { head(rx, cancel).await })
    }

    /// The client went away: drop the request (and its stream) in the core.
    #[napi]
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// Started from the head (`handleHttpHead`): `true` once the core admitted the request,
    /// which then waits for `body()`; `false` when it refused it (`response()` is the refusal,
    /// and the body need not be read).
    #[napi(ts_return_type = "Promise<boolean>")]
    pub fn admitted<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, bool>> {
        let rx = self
            .admitted
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .ok_or_else(|| {
                coded(
                    Code::Napi(Status::GenericFailure),
                    "admitted() is for an exchange from handleHttpHead, once",
                )
            })?;
        errors::spawn(env, async move {
            rx.await
                .map_err(|_| coded(Code::Cancelled, "the request was cancelled"))
        })
    }

    /// The core's body cap for this request's endpoint, in bytes.
    #[napi(getter)]
    pub fn max_body_bytes(&self) -> f64 {
        self.max_body as f64
    }

    /// The body of an admitted request.
    #[napi]
    pub fn body(&self, body: Buffer) {
        if let Some(tx) = self.body.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = tx.send(bytes::Bytes::copy_from_slice(&body));
        }
    }
}

async fn head(
    rx: oneshot::Receiver<HttpResponse>,
    cancel: CancellationToken,
) -> Result<NativeHttpResponse> {
    let r = rx
        .await
        .map_err(|_| coded(Code::Cancelled, "the request was cancelled"))?;
    let headers = r
        .headers
        .iter()
        .filter_map(|(k, v)| {
            v.to_str()
                .ok()
                .map(|v| vec![k.as_str().to_string(), v.to_string()])
        })
        .collect();
    let (body, stream) = match r.body {
        ResponseBody::Empty => (None, None),
        ResponseBody::Full(b) => (Some(b.to_vec()), None),
        ResponseBody::Sse(rx) => (None, Some(rx)),
    };
    Ok(NativeHttpResponse {
        status: r.status.as_u16() as u32,
        headers,
        streaming: stream.is_some(),
        body,
        stream: Arc::new(tokio::sync::Mutex::new(stream)),
        cancel,
    })
}

#[napi]
pub struct NativeHttpResponse {
    #[napi(readonly)]
    pub status: u32,
    #[napi(readonly)]
    pub headers: Vec<Vec<String>>,
    /// Whether the body is a stream (`next()`), not `body`.
    #[napi(readonly)]
    pub streaming: bool,
    body: Option<Vec<u8>>,
    stream: Arc<tokio::sync::Mutex<Option<mpsc::Receiver<bytes::Bytes>>>>,
    cancel: CancellationToken,
}

#[napi]
impl NativeHttpResponse {
    /// The complete body (null when streaming or empty).
    #[napi(getter)]
    pub fn body(&self) -> Option<Buffer> {
        self.body.as_ref().map(|b| Buffer::from(b.clone()))
    }

    /// The next SSE chunk, or null at the end of the stream (or after `cancel()`).
    #[napi(ts_return_type = "Promise<Buffer | null>")]
    pub fn next<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, Option<Buffer>>> {
        let stream = self.stream.clone();
        let cancel = self.cancel.clone();
        errors::spawn(env, async move {
            let mut guard = stream.lock().await;
            let Some(rx) = guard.as_mut() else {
                return Ok(None);
            };
            let chunk = tokio::select! {
                c = rx.recv() => c,
                _ = cancel.cancelled() => None,
            };
            Ok(match chunk {
                Some(c) => Some(Buffer::from(c.to_vec())),
                None => {
                    *guard = None;
                    None
                }
            })
        })
    }
}
