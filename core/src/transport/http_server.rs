//! The hyper 1 server for Streamable HTTP: accept loop, `TCP_NODELAY`, header-read timeout,
//! body cap while reading, and graceful shutdown driven by a future (no signal handlers here:
//! the embedding program owns signals).

use super::http::{HttpConfig, HttpHandler, HttpRequest, HttpResponse, ResponseBody};
use crate::error::McpError;
use crate::jsonrpc;
use crate::server::Server;
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::{Frame, Incoming};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::time::Instant;

/// Whether a connection waits for a request's head, and since when: the header-read (and idle)
/// deadline, `HttpConfig::header_timeout`.
///
/// Why not hyper's own `header_read_timeout`: it boxes a timer, enters it in tokio's timer wheel
/// and takes it out again on every request, about 1 µs a call on the bare hyper server (8 % of
/// its CPU per `tools/call`). Here a request costs two stores and one clock read, and
/// one timer per connection ([`watch`]) wakes at most once per `header_timeout` to check.
struct ConnClock {
    born: Instant,
    /// Nanoseconds after `born`, plus one, since the connection waits for a head; 0 while a
    /// request is served (its head is in, and its response not yet handed to hyper whole).
    waiting: AtomicU64,
}

impl ConnClock {
    fn new() -> Self {
        Self {
            born: Instant::now(),
            waiting: AtomicU64::new(1),
        }
    }
    /// A head is in: no deadline while the request is served (the body has its own).
    fn busy(&self) {
        self.waiting.store(0, Ordering::Relaxed);
    }
    /// The response is written (its body handed to hyper whole): the next head is awaited.
    fn idle(&self) {
        let n = u64::try_from(self.born.elapsed().as_nanos()).unwrap_or(u64::MAX - 1);
        self.waiting.store(n + 1, Ordering::Relaxed);
    }
    fn waiting_since(&self) -> Option<Instant> {
        match self.waiting.load(Ordering::Relaxed) {
            0 => None,
            n => Some(self.born + Duration::from_nanos(n - 1)),
        }
    }
}

/// Resolves once the connection has waited `timeout` for a request's head (a slowloris head, or
/// an idle keep-alive connection); the connection is then closed, as hyper closes it.
async fn watch(clock: Arc<ConnClock>, timeout: Duration) {
    let sleep = tokio::time::sleep_until(clock.born + timeout);
    tokio::pin!(sleep);
    loop {
        sleep.as_mut().await;
        let now = Instant::now();
        let next = match clock.waiting_since() {
            Some(since) if now >= since + timeout => return,
            Some(since) => since + timeout,
            None => now + timeout,
        };
        sleep.as_mut().reset(next);
    }
}

/// One connection's task: hyper's connection, ended early by the server's shutdown (gracefully:
/// the request in hand is answered, then the connection closes) or by the header-read deadline
/// (closed at once, as hyper closes it).
///
/// Why not `tokio::select!` over the connection and the two watchers, with hyper-util's
/// `GracefulShutdown::watch` around the connection: both poll every watcher whenever the task
/// wakes, and it wakes at least twice per request (the head readable, the answer written). Those
/// polls (a timer's, a `Notified`'s, select's own) were 877 of a `tools/call`'s 35,300
/// instructions. Here the watchers have a waker of their own and are polled only
/// after it fired; the connection is polled as before.
struct ConnTask<C> {
    conn: C,
    /// The server's shutdown, until it came.
    shutdown: Option<Pin<Box<tokio_util::sync::WaitForCancellationFutureOwned>>>,
    /// The header-read deadline ([`watch`]).
    head: Pin<Box<dyn Future<Output = ()> + Send>>,
    /// Set by the watchers' waker; wakes the task.
    woke: Arc<Woke>,
    /// The waker the watchers are polled with (made once: an `Arc` of `woke`).
    watchers_waker: std::task::Waker,
    /// The task's waker as last given to `woke`: replaced only when a poll brings one that
    /// would wake another task (a task keeps its waker).
    registered: Option<std::task::Waker>,
    peer: SocketAddr,
}

/// The watchers' waker: marks that one of them has something to say, then wakes the task.
///
/// The task's waker is kept (woken by reference, not taken as `AtomicWaker::wake` takes it), so
/// the task registers it once rather than on every poll: registering cost two atomic
/// read-modify-writes a poll, and a request is about two polls, while the watchers fire about
/// once per `header_timeout`.
struct Woke {
    fired: std::sync::atomic::AtomicBool,
    task: std::sync::Mutex<Option<std::task::Waker>>,
}

impl std::task::Wake for Woke {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.fired.store(true, Ordering::Release);
        let task = self.task.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(w) = task.as_ref() {
            w.wake_by_ref();
        }
    }
}

impl<C> ConnTask<C> {
    fn new(
        conn: C,
        shutdown: tokio_util::sync::CancellationToken,
        clock: Arc<ConnClock>,
        header_timeout: Duration,
        peer: SocketAddr,
    ) -> Self {
        // Fired at first, so the first poll registers the watchers.
        let woke = Arc::new(Woke {
            fired: std::sync::atomic::AtomicBool::new(true),
            task: std::sync::Mutex::new(None),
        });
        Self {
            conn,
            shutdown: Some(Box::pin(shutdown.cancelled_owned())),
            head: Box::pin(watch(clock, header_timeout)),
            watchers_waker: std::task::Waker::from(woke.clone()),
            woke,
            registered: None,
            peer,
        }
    }
}

type Http1Conn<S> = hyper::server::conn::http1::Connection<TokioIo<tokio::net::TcpStream>, S>;

impl<S, B> Future for ConnTask<Http1Conn<S>>
where
    S: hyper::service::HttpService<Incoming, ResBody = B>,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    B: hyper::body::Body + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        if !this
            .registered
            .as_ref()
            .is_some_and(|w| w.will_wake(cx.waker()))
        {
            let w = cx.waker().clone();
            *this.woke.task.lock().unwrap_or_else(|e| e.into_inner()) = Some(w.clone());
            this.registered = Some(w);
        }
        // After the registration, so a watcher that fired before it is seen here. A load first:
        // the swap (a read-modify-write) only when one did fire.
        if this.woke.fired.load(Ordering::Acquire) && this.woke.fired.swap(false, Ordering::AcqRel)
        {
            let mut wcx = Context::from_waker(&this.watchers_waker);
            if let Some(s) = &mut this.shutdown {
                if s.as_mut().poll(&mut wcx).is_ready() {
                    this.shutdown = None;
                    Pin::new(&mut this.conn).graceful_shutdown();
                }
            }
            if this.head.as_mut().poll(&mut wcx).is_ready() {
                tracing::debug!(peer = %this.peer, "no request head within header_timeout: connection closed");
                return Poll::Ready(());
            }
        }
        match Pin::new(&mut this.conn).poll(cx) {
            Poll::Ready(Err(e)) => {
                tracing::debug!(error = %e, "connection ended with an error");
                Poll::Ready(())
            }
            Poll::Ready(Ok(())) => Poll::Ready(()),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// A response body that marks its connection idle when hyper is done with it (written whole,
/// or dropped with the connection).
struct Tracked {
    /// Written as hyper asks: whole, or the SSE stream its channel feeds (no boxed body, so no
    /// allocation and no dynamic call per response).
    body: ResponseBody,
    clock: Arc<ConnClock>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.clock.idle();
    }
}

impl hyper::body::Body for Tracked {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let body = &mut self.get_mut().body;
        match body {
            ResponseBody::Sse(rx) => rx.poll_recv(cx).map(|m| m.map(|b| Ok(Frame::data(b)))),
            _ => match std::mem::replace(body, ResponseBody::Empty) {
                ResponseBody::Full(b) if !b.is_empty() => Poll::Ready(Some(Ok(Frame::data(b)))),
                _ => Poll::Ready(None),
            },
        }
    }
    fn is_end_stream(&self) -> bool {
        match &self.body {
            ResponseBody::Empty => true,
            ResponseBody::Full(b) => b.is_empty(),
            ResponseBody::Sse(_) => false,
        }
    }
    fn size_hint(&self) -> hyper::body::SizeHint {
        match &self.body {
            ResponseBody::Empty => hyper::body::SizeHint::with_exact(0),
            ResponseBody::Full(b) => hyper::body::SizeHint::with_exact(b.len() as u64),
            ResponseBody::Sse(_) => hyper::body::SizeHint::default(),
        }
    }
}

fn to_hyper(r: HttpResponse) -> hyper::Response<ResponseBody> {
    let mut resp = hyper::Response::new(r.body);
    *resp.status_mut() = r.status;
    *resp.headers_mut() = r.headers;
    resp
}

async fn serve_one(
    handler: Arc<HttpHandler>,
    req: hyper::Request<Incoming>,
    peer: std::net::SocketAddr,
    clock: Arc<ConnClock>,
) -> Result<hyper::Response<Tracked>, Infallible> {
    clock.busy();
    // Admitted from its head first: a request that is refused (no or a wrong token, a client
    // past its failed-authentication limit) is answered before a byte of its body is read,
    // and its connection closed rather than drained.
    let (parts, body) = req.into_parts();
    let admitted = handler
        .admit(&parts.method, parts.uri.path(), &parts.headers, Some(peer))
        .await;
    // Two steps, so that nothing of the reading step (the hyper request's parts, the body
    // collector) is kept beside the handler's future while it runs: hyper moves this future
    // into place on every request, and a smaller one is copied faster.
    let resp = match admitted {
        Ok(caller) => match read_request(handler.config(), parts, body).await {
            Ok((req, query)) => to_hyper(handler.serve(req, caller, Some(peer), &query).await),
            Err(refused) => refused,
        },
        Err(r) => {
            let unread = !hyper::body::Body::is_end_stream(&body);
            let mut r = to_hyper(r);
            if unread {
                r.headers_mut().insert(
                    http::header::CONNECTION,
                    http::HeaderValue::from_static("close"),
                );
            }
            r
        }
    };
    Ok(resp.map(|body| Tracked { body, clock }))
}

/// The request with its whole body (capped, and within `body_timeout`), and its query string;
/// or the answer that refuses it.
async fn read_request(
    config: &HttpConfig,
    parts: http::request::Parts,
    body: Incoming,
) -> Result<(HttpRequest, String), hyper::Response<ResponseBody>> {
    let max = config.max_body;
    let too_large = || {
        let e = McpError::invalid_request("Request body too large");
        to_hyper(HttpResponse::json(
            http::StatusCode::PAYLOAD_TOO_LARGE,
            &jsonrpc::error(serde_json::Value::Null, &e),
        ))
    };
    // The declared `Content-Length`, as hyper read it (no header lookup).
    let declared = hyper::body::Body::size_hint(&body).exact();
    if declared.is_some_and(|n| n > max as u64) {
        return Err(too_large());
    }
    // Slow-body (slowloris) protection: the whole body within `body_timeout`.
    // A body that came in with its head (a JSON-RPC message usually does) is taken at once,
    // without arming the body timer; one still arriving gets `body_timeout` to finish.
    let mut collect = std::pin::pin!(Limited::new(body, max).collect());
    let collected = match futures::poll!(collect.as_mut()) {
        std::task::Poll::Ready(r) => Ok(r),
        std::task::Poll::Pending => tokio::time::timeout(config.body_timeout, collect).await,
    };
    let body = match collected {
        Ok(Ok(b)) => b.to_bytes(),
        Ok(Err(_)) => return Err(too_large()),
        Err(_) => {
            let e = McpError::invalid_request("Request body not received in time");
            let mut r = to_hyper(HttpResponse::json(
                http::StatusCode::REQUEST_TIMEOUT,
                &jsonrpc::error(serde_json::Value::Null, &e),
            ));
            r.headers_mut().insert(
                http::header::CONNECTION,
                http::HeaderValue::from_static("close"),
            );
            return Err(r);
        }
    };
    let query = parts.uri.query().unwrap_or("").to_string();
    let req = HttpRequest {
        method: parts.method,
        path: parts.uri.path().to_string(),
        headers: parts.headers,
        body,
    };
    Ok((req, query))
}

/// A connection past a cap ([`crate::server::gate::Gate::connect`]): its first request is
/// answered with the refusal (503 or 429, a JSON-RPC error body, `Retry-After`) and the
/// connection closed, its body unread. A client that sends no head within `header_timeout` is
/// closed without an answer.
async fn refuse_connection(
    stream: tokio::net::TcpStream,
    refusal: crate::server::gate::Refusal,
    header_timeout: Duration,
) {
    let answer = std::sync::Mutex::new(Some(refusal));
    let svc = service_fn(move |_req: hyper::Request<Incoming>| {
        let r = answer.lock().unwrap_or_else(|e| e.into_inner()).take();
        let r = match r {
            Some(r) => super::http::refused(r),
            None => HttpResponse::new(http::StatusCode::SERVICE_UNAVAILABLE),
        };
        let body = match r.body {
            ResponseBody::Full(b) => b,
            _ => Bytes::new(),
        };
        let mut resp = hyper::Response::new(http_body_util::Full::new(body));
        *resp.status_mut() = r.status;
        *resp.headers_mut() = r.headers;
        resp.headers_mut().insert(
            http::header::CONNECTION,
            http::HeaderValue::from_static("close"),
        );
        async move { Ok::<_, Infallible>(resp) }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .keep_alive(false)
        .serve_connection(TokioIo::new(stream), svc);
    let _ = tokio::time::timeout(header_timeout, conn).await;
}

/// The metrics' own listener: one scrape per connection, nothing else, until `stop`.
async fn serve_metrics(
    listener: TcpListener,
    handler: HttpHandler,
    stop: tokio_util::sync::CancellationToken,
) {
    let own = listener.local_addr().ok();
    let header_timeout = handler.config().header_timeout;
    let handler = Arc::new(handler);
    loop {
        let stream = tokio::select! {
            r = listener.accept() => match r {
                Ok((s, _)) => s,
                Err(_) => {
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    continue;
                }
            },
            () = stop.cancelled() => return,
        };
        let handler = handler.clone();
        let svc = service_fn(move |req: hyper::Request<Incoming>| {
            let handler = handler.clone();
            async move {
                let r = handler
                    .scrape(req.method(), req.uri().path(), req.headers(), own)
                    .await
                    .unwrap_or_else(|| HttpResponse::new(http::StatusCode::NOT_FOUND));
                let body = match r.body {
                    ResponseBody::Full(b) => b,
                    _ => Bytes::new(),
                };
                let mut resp = hyper::Response::new(http_body_util::Full::new(body));
                *resp.status_mut() = r.status;
                *resp.headers_mut() = r.headers;
                Ok::<_, Infallible>(resp)
            }
        });
        tokio::spawn(async move {
            let conn = hyper::server::conn::http1::Builder::new()
                .keep_alive(false)
                .serve_connection(TokioIo::new(stream), svc);
            let _ = tokio::time::timeout(header_timeout.max(Duration::from_secs(10)), conn).await;
        });
    }
}

/// The start-up rule for a server reachable from other machines.
pub(crate) fn check_exposure(config: &HttpConfig) -> std::io::Result<()> {
    if config.addr.ip().to_canonical().is_loopback() {
        return Ok(());
    }
    if config.allowed_hosts.is_empty() && !config.allow_any_host {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "refusing to serve on the non-loopback address {} without allowed_hosts: set \
                 allowed_hosts to the Host names clients use (e.g. [\"mcp.example.com\"]), or \
                 set allow_any_host to opt out of the DNS-rebinding check",
                config.addr
            ),
        ));
    }
    if config.auth.is_none() {
        tracing::warn!(addr = %config.addr, "serving on a non-loopback address with no authentication: anyone who can reach it can call every tool");
    }
    Ok(())
}

/// A bound Streamable HTTP server (bind first to learn the port, then serve).
pub struct HttpServer {
    listener: TcpListener,
    handler: HttpHandler,
    /// The metrics' own listener (`MetricsOptions::address`), bound by the server's first
    /// HTTP listener.
    metrics: Option<TcpListener>,
}

impl HttpServer {
    /// Bind `config.addr`. A non-loopback address with no `allowed_hosts` is refused (any web
    /// page could otherwise reach the server by DNS rebinding) unless `allow_any_host` opts out;
    /// a non-loopback address without auth is served with a warning.
    pub async fn bind(server: Server, mut config: HttpConfig) -> std::io::Result<Self> {
        check_exposure(&config)?;
        let listener = TcpListener::bind(config.addr).await?;
        config.addr = listener.local_addr()?;
        let metrics = match server.metrics_options().and_then(|o| o.address) {
            Some(addr) if server.take_metrics_listener() => Some(TcpListener::bind(addr).await?),
            _ => None,
        };
        Ok(Self {
            listener,
            handler: HttpHandler::new(server, config),
            metrics,
        })
    }

    /// Where the metrics' own listener is bound, if this server bound it.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics.as_ref().and_then(|l| l.local_addr().ok())
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.handler.config().addr
    }

    /// Serve until `shutdown` resolves; then stop accepting, end listen streams and sessions,
    /// and let in-flight requests finish within the drain deadline.
    pub async fn serve(self, shutdown: impl Future<Output = ()>) -> std::io::Result<()> {
        // The connections' shutdown signal, and the tracker that waits for them to end.
        let stop = tokio_util::sync::CancellationToken::new();
        let connections = tokio_util::task::TaskTracker::new();
        let header_timeout = self.handler.config().header_timeout;
        let (max_headers, max_header_bytes) = (
            self.handler.config().max_headers,
            self.handler.config().max_header_bytes,
        );
        let drain = self.handler.config().drain_timeout;
        tokio::pin!(shutdown);
        tracing::info!(addr = %self.local_addr(), path = %self.handler.config().path, "serving Streamable HTTP");
        if let Some(l) = self.metrics {
            tracing::info!(addr = ?l.local_addr().ok(), "serving metrics");
            tokio::spawn(serve_metrics(l, self.handler.clone(), stop.clone()));
        }
        loop {
            let (stream, peer) = tokio::select! {
                r = self.listener.accept() => match r {
                    Ok(x) => x,
                    Err(e) => {
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                        continue;
                    }
                },
                _ = &mut shutdown => break,
            };
            let _ = stream.set_nodelay(true);
            let permit = match self.handler.gate().connect(peer.ip()) {
                Ok(p) => p,
                Err(refusal) => {
                    connections.spawn(refuse_connection(stream, refusal, header_timeout));
                    continue;
                }
            };
            // One `Arc` per connection: a request clones it (one count) rather than the handler
            // (a count for each of its parts).
            let handler = Arc::new(self.handler.clone());
            let clock = Arc::new(ConnClock::new());
            let svc = {
                let clock = clock.clone();
                service_fn(move |req| serve_one(handler.clone(), req, peer, clock.clone()))
            };
            // No hyper timer: the header-read deadline is the connection's clock (see ConnClock).
            let conn = hyper::server::conn::http1::Builder::new()
                // Header caps (431): count, and bytes with room for the request line.
                .max_headers(max_headers)
                .max_header_size(max_header_bytes + 4096)
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), svc);
            let task = ConnTask::new(conn, stop.clone(), clock, header_timeout, peer);
            connections.spawn(async move {
                task.await;
                drop(permit);
            });
        }
        self.handler.server().shutdown();
        stop.cancel();
        connections.close();
        tokio::select! {
            () = connections.wait() => {}
            _ = tokio::time::sleep(drain) => {
                tracing::warn!("drain deadline reached; cancelling the requests still running");
                self.handler.server().abort_in_flight();
            }
        }
        Ok(())
    }
}

/// Bind and serve in one call.
pub async fn serve(
    server: Server,
    config: HttpConfig,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    HttpServer::bind(server, config)
        .await?
        .serve(shutdown)
        .await
}
