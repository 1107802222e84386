//! A connection past a cap ([`crate::server::gate::Gate::connect`]): its first request is
//! answered with the refusal (503 or 429, a JSON-RPC error body, `Retry-After`) and the
//! connection closed, its body unread. A client that sends no head within `header_timeout` is
//! closed without an answer.
//!
//! The refusal is spoken in the protocol the client opened with: a client with HTTP/2 prior
//! knowledge cannot read an HTTP/1.1 answer (curl reports a framing error). Its first stream gets
//! the same status, body and `Retry-After` over HTTP/2, and a graceful GOAWAY at once so that it
//! opens no more streams. Not a bare GOAWAY or `REFUSED_STREAM`: hyper's server sends neither on
//! request, and neither says which cap was hit or when to come back.
//!
//! Under TLS the handshake is completed first, so that a client reads the refusal at all (plain
//! text on a TLS port is a handshake failure to it), and the answer is in the protocol ALPN chose.
//! A handshake costs the server CPU that a flood past the cap must not be able to multiply: at
//! most [`TLS_REFUSALS`] run at once (the others are closed unanswered), each within
//! `header_timeout`.

use super::accept::Stream;
use super::http2::sniff_h2;
use super::Tls;
use crate::transport::http::{HttpResponse, ResponseBody};
use bytes::Bytes;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How many refusals under TLS may be in their handshake or answer at once.
pub(super) const TLS_REFUSALS: usize = 32;

/// What refusing a connection needs, for the accept loop's every refusal.
pub(super) struct Refusals {
    /// Handshakes under way for refusals (at most [`TLS_REFUSALS`]).
    tls_slots: Arc<tokio::sync::Semaphore>,
    header_timeout: Duration,
    http2: bool,
    tls: Option<Tls>,
}

impl Refusals {
    pub(super) fn new(header_timeout: Duration, http2: bool, tls: Option<Tls>) -> Self {
        Self {
            tls_slots: Arc::new(tokio::sync::Semaphore::new(TLS_REFUSALS)),
            header_timeout,
            http2,
            tls,
        }
    }

    /// Refuse `stream` on a task `connections` waits for at shutdown; under TLS only while a
    /// handshake slot is free (else it is closed unanswered).
    pub(super) fn spawn(
        &self,
        connections: &tokio_util::task::TaskTracker,
        stream: Stream,
        refusal: crate::server::gate::Refusal,
    ) {
        let (header_timeout, http2) = (self.header_timeout, self.http2);
        let Some(tls) = self.tls.clone() else {
            connections.spawn(refuse(stream, refusal, header_timeout, http2, None));
            return;
        };
        if let Ok(slot) = self.tls_slots.clone().try_acquire_owned() {
            connections.spawn(async move {
                refuse(stream, refusal, header_timeout, http2, Some(tls)).await;
                drop(slot);
            });
        }
    }
}

/// Refuse `stream`: under TLS after the handshake, in the protocol ALPN chose; in plain text in
/// HTTP/2 if it opens with the preface (and `http2` is on), else HTTP/1.1. The whole exchange
/// within `header_timeout`.
pub(super) async fn refuse(
    stream: Stream,
    refusal: crate::server::gate::Refusal,
    header_timeout: Duration,
    http2: bool,
    tls: Option<Tls>,
) {
    let _ = tokio::time::timeout(header_timeout, async move {
        if let Some(acceptor) = tls {
            return match stream {
                Stream::Tcp(s) => refuse_tls(s, acceptor, refusal).await,
                #[cfg(unix)]
                Stream::Unix(s) => refuse_tls(s, acceptor, refusal).await,
            };
        }
        match stream {
            Stream::Tcp(s) => {
                let h2 = http2 && sniff_h2(&s, header_timeout).await == Some(true);
                answer(s, refusal, h2).await
            }
            #[cfg(unix)]
            Stream::Unix(s) if http2 => {
                if let Some((h2, s)) = super::unix::sniff_h2(s, header_timeout).await {
                    answer(s, refusal, h2).await
                }
            }
            #[cfg(unix)]
            Stream::Unix(s) => answer(s, refusal, false).await,
        }
    })
    .await;
}

/// The handshake, then the refusal in HTTP/2 if ALPN chose `h2` (offered only when `http2` is
/// on), else HTTP/1.1. A failed handshake is closed: there is no one to tell.
async fn refuse_tls<S>(stream: S, acceptor: Tls, refusal: crate::server::gate::Refusal)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    #[cfg(feature = "tls")]
    {
        let Ok(s) = acceptor.accept(stream).await else {
            return;
        };
        let h2 = s.get_ref().1.alpn_protocol() == Some(b"h2".as_slice());
        answer(s, refusal, h2).await
    }
    #[cfg(not(feature = "tls"))]
    {
        let _ = (stream, refusal);
        match acceptor {}
    }
}

/// Serve the refusal on one connection: the first request gets it, any other a bare 503.
async fn answer<S>(stream: S, refusal: crate::server::gate::Refusal, h2: bool)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let answer = Mutex::new(Some(refusal));
    let answered = Arc::new(tokio::sync::Notify::new());
    let told = answered.clone();
    let svc = service_fn(move |req: hyper::Request<Incoming>| {
        let r = answer.lock().unwrap_or_else(|e| e.into_inner()).take();
        let r = match r {
            Some(r) => crate::transport::http::refused(r),
            None => HttpResponse::new(http::StatusCode::SERVICE_UNAVAILABLE),
        };
        let body = match r.body {
            ResponseBody::Full(b) => b,
            _ => Bytes::new(),
        };
        let mut resp = hyper::Response::new(http_body_util::Full::new(body));
        *resp.status_mut() = r.status;
        *resp.headers_mut() = r.headers;
        // HTTP/2 has no `Connection` header (RFC 9113 §8.2.2): the GOAWAY says it instead.
        if !h2 {
            resp.headers_mut().insert(
                http::header::CONNECTION,
                http::HeaderValue::from_static("close"),
            );
        }
        let told = told.clone();
        async move {
            // As for a stream refused from its head (`drain_refused`): a small body is read
            // first, so that the answer is not lost to the stream's reset.
            if h2 && !hyper::body::Body::is_end_stream(req.body()) {
                super::drain_refused(req.into_body()).await;
            }
            told.notify_one();
            Ok::<_, Infallible>(resp)
        }
    });
    let io = TokioIo::new(stream);
    if !h2 {
        let conn = hyper::server::conn::http1::Builder::new()
            .keep_alive(false)
            .serve_connection(io, svc);
        let _ = conn.await;
        return;
    }
    let mut b = hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new());
    b.max_concurrent_streams(1);
    let conn = b.serve_connection(io, svc);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        () = answered.notified() => conn.as_mut().graceful_shutdown(),
    }
    let _ = conn.await;
}
