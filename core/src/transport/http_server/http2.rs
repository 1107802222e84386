//! HTTP/2 on the server's port: a plain-text connection is told apart by the preface it opens
//! with (read without consuming it), and each HTTP/2 connection is served by hyper's HTTP/2
//! server under the same admission, handler, body caps and header-read deadline as HTTP/1.1.
//!
//! An HTTP/1.1 request asking `Upgrade: h2c` is answered in HTTP/1.1, its `Upgrade` ignored (RFC
//! 9110 §7.8 lets a server do so). Switching would mean answering that request as HTTP/2 stream 1
//! on the upgraded connection, and hyper's HTTP/2 server only serves streams a client opens after
//! its preface: it cannot adopt a request read over HTTP/1.1. RFC 9113 §3.1 deprecates the
//! upgrade, and the clients that speak h2c (proxies, curl's `--http2-prior-knowledge`, gRPC) use
//! prior knowledge, which is served.

use super::{serve_one, BoxError, ConnClock, ConnLimits, ConnTask, Served};
use crate::transport::http::HttpHandler;
use hyper::body::Incoming;
use hyper::service::service_fn;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::Instant;

/// The HTTP/2 connection preface (RFC 9113 §3.4): a client with prior knowledge opens with it.
pub(super) const H2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// Whether the connection opens with the HTTP/2 preface, read without consuming it (`peek`), so
/// that an HTTP/1.1 connection is handed to hyper untouched and its requests cost nothing more.
/// `None`: closed, or nothing decisive within `timeout` (the header-read deadline).
pub(super) async fn sniff_h2(stream: &tokio::net::TcpStream, timeout: Duration) -> Option<bool> {
    let deadline = Instant::now() + timeout;
    let mut buf = [0u8; H2_PREFACE.len()];
    loop {
        let n = tokio::time::timeout_at(deadline, stream.peek(&mut buf))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            return None;
        }
        if buf[..n] != H2_PREFACE[..n] {
            return Some(false);
        }
        if n == H2_PREFACE.len() {
            return Some(true);
        }
        // A prefix of the preface (both it and `POST` begin with `P`): the rest is on its way.
        // `peek` would answer at once again, so wait a little, bounded by the deadline.
        tokio::time::timeout_at(deadline, tokio::time::sleep(Duration::from_millis(2)))
            .await
            .ok()?;
    }
}

/// One HTTP/2 connection: its streams are served concurrently, each as an HTTP/1.1 request is
/// (the same admission, handler and body caps), within the per-connection stream limits.
pub(super) async fn serve_h2<I>(
    io: I,
    handler: Arc<HttpHandler>,
    peer: SocketAddr,
    stop: tokio_util::sync::CancellationToken,
    limits: ConnLimits,
    cred: Option<crate::request::PeerCred>,
) where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let c = handler.config();
    let mut b = hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new());
    b.max_concurrent_streams(c.http2_max_concurrent_streams)
        // Pseudo-headers and all: the HTTP/1.1 head's bytes, with the same room.
        .max_header_list_size(u32::try_from(limits.max_header_bytes + 4096).unwrap_or(u32::MAX))
        .max_pending_accept_reset_streams(c.http2_max_pending_accept_reset_streams)
        .max_local_error_reset_streams(c.http2_max_local_error_reset_streams);
    let clock = Arc::new(ConnClock::new(true));
    let svc = {
        let clock = clock.clone();
        service_fn(move |req| serve_one(handler.clone(), req, peer, clock.clone(), cred))
    };
    let conn = Box::pin(b.serve_connection(io, svc));
    ConnTask::new(conn, stop, clock, limits.header_timeout, peer).await;
}

impl<I, S, B, E> Served for Pin<Box<hyper::server::conn::http2::Connection<I, S, E>>>
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin,
    S: hyper::service::HttpService<Incoming, ResBody = B>,
    S::Error: Into<BoxError>,
    B: hyper::body::Body + 'static,
    B::Error: Into<BoxError>,
    E: hyper::rt::bounds::Http2ServerConnExec<S::Future, B>,
{
    fn poll_served(&mut self, cx: &mut Context<'_>) -> Poll<hyper::Result<()>> {
        self.as_mut().poll(cx)
    }
    fn shutdown(&mut self) {
        self.as_mut().graceful_shutdown();
    }
}
