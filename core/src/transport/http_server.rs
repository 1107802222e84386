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

mod accept;
mod http2;
mod refuse;
#[cfg(unix)]
mod unix;
#[cfg(unix)]
use accept::UDS_PEER;
use accept::{serve_connection, Listener};

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
    /// HTTP/2 only: the streams being served. The connection waits for a head only when none
    /// is; a lock (not two atomics) so that a stream ending and one starting cannot interleave
    /// into "waiting" while one is served. HTTP/1.1 serves one request at a time and needs none.
    streams: Option<std::sync::Mutex<usize>>,
}

impl ConnClock {
    fn new(multiplexed: bool) -> Self {
        Self {
            born: Instant::now(),
            waiting: AtomicU64::new(1),
            streams: multiplexed.then(|| std::sync::Mutex::new(0)),
        }
    }
    /// A head is in: no deadline while the request is served (the body has its own).
    fn busy(&self) {
        if let Some(m) = &self.streams {
            let mut n = m.lock().unwrap_or_else(|e| e.into_inner());
            *n += 1;
            self.waiting.store(0, Ordering::Relaxed);
            return;
        }
        self.waiting.store(0, Ordering::Relaxed);
    }
    /// The response is written (its body handed to hyper whole): the next head is awaited.
    fn idle(&self) {
        if let Some(m) = &self.streams {
            let mut n = m.lock().unwrap_or_else(|e| e.into_inner());
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.mark_waiting();
            }
            return;
        }
        self.mark_waiting();
    }
    fn mark_waiting(&self) {
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

/// A hyper connection as [`ConnTask`] drives it: HTTP/1.1 (polled in place) or HTTP/2 (boxed:
/// it is not `Unpin`, and is not the hot path).
trait Served: Unpin {
    fn poll_served(&mut self, cx: &mut Context<'_>) -> Poll<hyper::Result<()>>;
    fn shutdown(&mut self);
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl<I, S, B> Served for hyper::server::conn::http1::Connection<I, S>
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + 'static,
    S: hyper::service::HttpService<Incoming, ResBody = B>,
    S::Error: Into<BoxError>,
    B: hyper::body::Body + 'static,
    B::Error: Into<BoxError>,
    Self: Unpin,
{
    fn poll_served(&mut self, cx: &mut Context<'_>) -> Poll<hyper::Result<()>> {
        Pin::new(self).poll(cx)
    }
    fn shutdown(&mut self) {
        Pin::new(self).graceful_shutdown();
    }
}

impl<C: Served> Future for ConnTask<C> {
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
                    this.conn.shutdown();
                }
            }
            if this.head.as_mut().poll(&mut wcx).is_ready() {
                tracing::debug!(peer = %this.peer, "no request head within header_timeout: connection closed");
                return Poll::Ready(());
            }
        }
        match this.conn.poll_served(cx) {
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
    _busy: Busy,
}

/// A request being served: marks its connection idle when dropped, whether with its response
/// body ([`Tracked`]) or before one (an HTTP/2 stream the client reset mid-call).
struct Busy(Arc<ConnClock>);

impl Busy {
    fn start(clock: Arc<ConnClock>) -> Self {
        clock.busy();
        Self(clock)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.idle();
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
    cred: Option<crate::request::PeerCred>,
) -> Result<hyper::Response<Tracked>, Infallible> {
    let busy = Busy::start(clock);
    // Admitted from its head first: a request that is refused (no or a wrong token, a client
    // past its failed-authentication limit) is answered before a byte of its body is read,
    // and its connection closed rather than drained.
    let (mut parts, body) = req.into_parts();
    if parts.version == http::Version::HTTP_2 {
        authority_as_host(&mut parts);
    }
    let admitted = handler
        .admit(&parts.method, parts.uri.path(), &parts.headers, Some(peer))
        .await;
    // Two steps, so that nothing of the reading step (the hyper request's parts, the body
    // collector) is kept beside the handler's future while it runs: hyper moves this future
    // into place on every request, and a smaller one is copied faster.
    let resp = match admitted {
        Ok(caller) => match read_request(handler.config(), parts, body).await {
            Ok((req, query)) => {
                let served = handler.serve(req, caller, Some(peer), &query);
                to_hyper(match cred {
                    Some(c) => crate::request::PEER_CRED.scope(c, served).await,
                    None => served.await,
                })
            }
            Err(refused) => refused,
        },
        Err(r) => {
            let unread = !hyper::body::Body::is_end_stream(&body);
            if parts.version == http::Version::HTTP_2 {
                // HTTP/2 has no `Connection` header: a stream answered before its body is in is
                // reset by hyper (RFC 9113 §8.1), and a client still sending may take the reset
                // for a failure and never show the answer (curl 7.88 reports a framing error).
                // So a small body is read first (within bounds: a refused client does not get
                // to make the server read much); past them, it is answered and reset.
                if unread {
                    drain_refused(body).await;
                }
                return Ok(to_hyper(r).map(|body| Tracked { body, _busy: busy }));
            }
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
    Ok(resp.map(|body| Tracked { body, _busy: busy }))
}

/// How much of a refused HTTP/2 stream's body is read before its answer, and for how long.
const REFUSED_BODY_READ: usize = 256 * 1024;
const REFUSED_BODY_WAIT: Duration = Duration::from_secs(1);

/// Read and drop a refused stream's body until it ends, passes [`REFUSED_BODY_READ`] bytes or
/// [`REFUSED_BODY_WAIT`], or fails.
async fn drain_refused(mut body: Incoming) {
    let _ = tokio::time::timeout(REFUSED_BODY_WAIT, async {
        let mut read = 0usize;
        while let Some(Ok(frame)) = body.frame().await {
            if let Some(d) = frame.data_ref() {
                read += d.len();
                if read > REFUSED_BODY_READ {
                    return;
                }
            }
        }
    })
    .await;
}

/// An HTTP/2 request names its host in `:authority` (hyper puts it in the URI) and usually sends
/// no `Host`. RFC 9113 §8.3.1 makes `:authority` the one to believe, so it becomes `Host` here
/// and the DNS-rebinding guard checks it as it checks an HTTP/1.1 `Host`.
fn authority_as_host(parts: &mut http::request::Parts) {
    if let Some(v) = parts
        .uri
        .authority()
        .and_then(|a| http::HeaderValue::from_str(a.as_str()).ok())
    {
        parts.headers.insert(http::header::HOST, v);
    }
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
    // A Unix socket is reached from this machine only, through its file's permissions.
    if config.uds.is_some() || config.addr.ip().to_canonical().is_loopback() {
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

/// [`HttpHandler::check_paths`] before binding, as an I/O error of the start.
fn check_metrics_path(server: &Server, config: &HttpConfig) -> std::io::Result<()> {
    super::http::check_paths(server, config)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
}

/// What every connection is held to, whatever its protocol.
#[derive(Clone, Copy)]
struct ConnLimits {
    header_timeout: Duration,
    max_headers: usize,
    max_header_bytes: usize,
}

/// One HTTP/1.1 connection, until it ends, the header-read deadline passes, or `stop`.
async fn serve_h1<I>(
    io: I,
    handler: Arc<HttpHandler>,
    peer: SocketAddr,
    stop: tokio_util::sync::CancellationToken,
    limits: ConnLimits,
    cred: Option<crate::request::PeerCred>,
) where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let clock = Arc::new(ConnClock::new(false));
    let svc = {
        let clock = clock.clone();
        service_fn(move |req| serve_one(handler.clone(), req, peer, clock.clone(), cred))
    };
    // No hyper timer: the header-read deadline is the connection's clock (see ConnClock).
    let conn = hyper::server::conn::http1::Builder::new()
        // Header caps (431): count, and bytes with room for the request line.
        .max_headers(limits.max_headers)
        .max_header_size(limits.max_header_bytes + 4096)
        .keep_alive(true)
        .serve_connection(io, svc);
    ConnTask::new(conn, stop, clock, limits.header_timeout, peer).await;
}

/// A bound Streamable HTTP server (bind first to learn the port, then serve).
pub struct HttpServer {
    listener: Listener,
    handler: HttpHandler,
    /// The metrics' own listener (`MetricsOptions::address`), bound by the server's first
    /// HTTP listener.
    metrics: Option<TcpListener>,
    tls: Option<Tls>,
}

#[cfg(feature = "tls")]
type Tls = tokio_rustls::TlsAcceptor;
/// Without the `tls` feature no acceptor can exist (the option is refused at start); an empty
/// enum rather than `Infallible`, which is `Copy` and would make the per-connection clone a lint.
#[cfg(not(feature = "tls"))]
#[derive(Clone)]
enum Tls {}

/// The TLS acceptor for `config.tls`, or why the server cannot start.
fn tls_acceptor(config: &HttpConfig) -> std::io::Result<Option<Tls>> {
    let Some(files) = &config.tls else {
        return Ok(None);
    };
    #[cfg(feature = "tls")]
    {
        super::tls::acceptor(&files.cert, &files.key, config.http2).map(Some)
    }
    #[cfg(not(feature = "tls"))]
    {
        let _ = files;
        Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "tls_cert/tls_key: this build of oxmcp has no TLS (the `tls` feature)",
        ))
    }
}

impl HttpServer {
    /// Bind `config.addr`, or the Unix socket `config.uds`. A non-loopback address with no
    /// `allowed_hosts` is refused (any web page could otherwise reach the server by DNS
    /// rebinding) unless `allow_any_host` opts out; a non-loopback address without auth is
    /// served with a warning.
    pub async fn bind(server: Server, mut config: HttpConfig) -> std::io::Result<Self> {
        check_exposure(&config)?;
        check_metrics_path(&server, &config)?;
        // Before binding: a wrong certificate or key stops the start, with the file named.
        let tls = tls_acceptor(&config)?;
        let listener = match &config.uds {
            None => {
                let l = TcpListener::bind(config.addr).await?;
                config.addr = l.local_addr()?;
                Listener::Tcp(l)
            }
            #[cfg(unix)]
            Some(uds) => {
                let (l, file) = unix::bind(uds).await?;
                config.addr = UDS_PEER;
                Listener::Unix(l, file)
            }
            #[cfg(not(unix))]
            Some(_) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::Unsupported,
                    "uds: Unix domain sockets are not available on this platform",
                ))
            }
        };
        let metrics = match server.metrics_options().and_then(|o| o.address) {
            Some(addr) if server.take_metrics_listener() => Some(TcpListener::bind(addr).await?),
            _ => None,
        };
        Ok(Self {
            listener,
            handler: HttpHandler::new(server, config),
            metrics,
            tls,
        })
    }

    /// Where the metrics' own listener is bound, if this server bound it.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics.as_ref().and_then(|l| l.local_addr().ok())
    }

    /// The bound TCP address (127.0.0.1:0 on a Unix socket: see [`Self::uds_path`]).
    pub fn local_addr(&self) -> SocketAddr {
        self.handler.config().addr
    }

    /// The Unix socket's path, when the server listens on one.
    pub fn uds_path(&self) -> Option<&std::path::Path> {
        match &self.listener {
            Listener::Tcp(_) => None,
            #[cfg(unix)]
            Listener::Unix(_, f) => Some(f.path()),
        }
    }

    /// Where the server listens, for a log line or a host's `address`: `127.0.0.1:8000`, or
    /// `unix:/run/mcp.sock`.
    pub fn address(&self) -> String {
        match self.uds_path() {
            Some(p) => format!("unix:{}", p.display()),
            None => self.local_addr().to_string(),
        }
    }

    /// Serve until `shutdown` resolves; then stop accepting, end listen streams and sessions,
    /// and let in-flight requests finish within the drain deadline.
    pub async fn serve(self, shutdown: impl Future<Output = ()>) -> std::io::Result<()> {
        // The connections' shutdown signal, and the tracker that waits for them to end.
        let stop = tokio_util::sync::CancellationToken::new();
        let connections = tokio_util::task::TaskTracker::new();
        let config = self.handler.config();
        let limits = ConnLimits {
            header_timeout: config.header_timeout,
            max_headers: config.max_headers,
            max_header_bytes: config.max_header_bytes,
        };
        let drain = config.drain_timeout;
        let refusals = refuse::Refusals::new(config.header_timeout, config.http2, self.tls.clone());
        tokio::pin!(shutdown);
        if self.handler.config().sse.is_some() {
            // HTTP+SSE streams hear other replicas' POSTs as session signals: listen from the
            // start, so that the first stream's first answer is not sent before this replica
            // is subscribed.
            self.handler.server().start_session_signals();
        }
        tracing::info!(addr = %self.address(), path = %self.handler.config().path, tls = self.tls.is_some(), "serving Streamable HTTP");
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
            let permit = match self.handler.gate().connect(peer.ip()) {
                Ok(p) => p,
                Err(refusal) => {
                    refusals.spawn(&connections, stream, refusal);
                    continue;
                }
            };
            // One `Arc` per connection: a request clones it (one count) rather than the handler
            // (a count for each of its parts).
            let handler = Arc::new(self.handler.clone());
            let stop = stop.clone();
            let tls = self.tls.clone();
            connections.spawn(async move {
                serve_connection(stream, handler, peer, stop, limits, tls).await;
                drop(permit);
            });
        }
        // Accepting ends here: the listener goes, and with it the socket file (so a new server
        // may take the path while this one drains).
        drop(self.listener);
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
