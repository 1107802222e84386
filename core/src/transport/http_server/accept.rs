//! Accepting: the listener (TCP, or a Unix domain socket), and each connection served in the
//! protocol it speaks (TLS as ALPN chose; plain text HTTP/2 if it opens with the preface).

use super::http2::{serve_h2, sniff_h2};
use super::{serve_h1, ConnLimits, Tls};
use crate::transport::http::HttpHandler;
use hyper_util::rt::TokioIo;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;

/// A listener: TCP, or a Unix domain socket with the file it made.
pub(super) enum Listener {
    Tcp(TcpListener),
    #[cfg(unix)]
    Unix(tokio::net::UnixListener, super::unix::SocketFile),
}

/// An accepted connection.
pub(super) enum Stream {
    Tcp(tokio::net::TcpStream),
    #[cfg(unix)]
    Unix(tokio::net::UnixStream),
}

/// The client address of a Unix socket connection: it is local, so loopback (one address for
/// all of them: the per-client caps and the failed-authentication limit count them together, as
/// they count every 127.0.0.1 client together).
#[cfg(unix)]
pub(super) const UDS_PEER: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 0);

impl Listener {
    pub(super) async fn accept(&self) -> std::io::Result<(Stream, SocketAddr)> {
        match self {
            Self::Tcp(l) => {
                let (s, peer) = l.accept().await?;
                let _ = s.set_nodelay(true);
                Ok((Stream::Tcp(s), peer))
            }
            #[cfg(unix)]
            Self::Unix(l, _) => Ok((Stream::Unix(l.accept().await?.0), UDS_PEER)),
        }
    }
}

/// One accepted connection, in the protocol it speaks: under TLS as ALPN chose (`h2` or
/// HTTP/1.1), in plain text HTTP/2 if it opens with the preface, HTTP/1.1 otherwise.
pub(super) async fn serve_connection(
    stream: Stream,
    handler: Arc<HttpHandler>,
    peer: SocketAddr,
    stop: tokio_util::sync::CancellationToken,
    limits: ConnLimits,
    tls: Option<Tls>,
) {
    if let Some(acceptor) = tls {
        match stream {
            Stream::Tcp(s) => serve_tls(s, acceptor, handler, peer, stop, limits, None).await,
            #[cfg(unix)]
            Stream::Unix(s) => {
                let cred = peer_cred(&s);
                serve_tls(s, acceptor, handler, peer, stop, limits, cred).await
            }
        }
        return;
    }
    let stream = match stream {
        Stream::Tcp(s) => s,
        #[cfg(unix)]
        Stream::Unix(s) => return serve_unix(s, handler, peer, stop, limits).await,
    };
    // A shutdown before the first bytes closes the connection: it has nothing in hand.
    let h2 = handler.config().http2
        && tokio::select! {
            s = sniff_h2(&stream, limits.header_timeout) => matches!(s, Some(true)),
            () = stop.cancelled() => return,
        };
    let io = TokioIo::new(stream);
    if h2 {
        serve_h2(io, handler, peer, stop, limits, None).await;
    } else {
        serve_h1(io, handler, peer, stop, limits, None).await;
    }
}

/// Who is at the other end of a Unix socket connection, for the audit record. `None` if the
/// system will not say (the connection is served all the same: its file's mode admitted it).
#[cfg(unix)]
fn peer_cred(s: &tokio::net::UnixStream) -> Option<crate::request::PeerCred> {
    let c = s.peer_cred().ok()?;
    Some(crate::request::PeerCred {
        uid: c.uid(),
        gid: c.gid(),
        pid: c.pid(),
    })
}

/// A plain-text connection on the Unix socket: as on TCP, HTTP/2 if it opens with the preface.
#[cfg(unix)]
async fn serve_unix(
    stream: tokio::net::UnixStream,
    handler: Arc<HttpHandler>,
    peer: SocketAddr,
    stop: tokio_util::sync::CancellationToken,
    limits: ConnLimits,
) {
    let cred = peer_cred(&stream);
    if !handler.config().http2 {
        return serve_h1(TokioIo::new(stream), handler, peer, stop, limits, cred).await;
    }
    let sniffed = tokio::select! {
        s = super::unix::sniff_h2(stream, limits.header_timeout) => s,
        () = stop.cancelled() => return,
    };
    match sniffed {
        Some((true, s)) => serve_h2(TokioIo::new(s), handler, peer, stop, limits, cred).await,
        Some((false, s)) => serve_h1(TokioIo::new(s), handler, peer, stop, limits, cred).await,
        None => {}
    }
}

/// A TLS connection: the handshake, then the protocol ALPN chose.
async fn serve_tls<S>(
    stream: S,
    acceptor: Tls,
    handler: Arc<HttpHandler>,
    peer: SocketAddr,
    stop: tokio_util::sync::CancellationToken,
    limits: ConnLimits,
    cred: Option<crate::request::PeerCred>,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    #[cfg(feature = "tls")]
    {
        // The handshake within the header-read deadline, as a request head would be; a
        // shutdown meanwhile closes it (nothing is in hand yet).
        let accepted = tokio::select! {
            a = tokio::time::timeout(limits.header_timeout, acceptor.accept(stream)) => a,
            () = stop.cancelled() => return,
        };
        let s = match accepted {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => {
                tracing::debug!(peer = %peer, error = %e, "TLS handshake failed");
                return;
            }
            Err(_) => return,
        };
        let h2 = s.get_ref().1.alpn_protocol() == Some(b"h2".as_slice());
        let io = TokioIo::new(s);
        if h2 {
            serve_h2(io, handler, peer, stop, limits, cred).await;
        } else {
            serve_h1(io, handler, peer, stop, limits, cred).await;
        }
    }
    #[cfg(not(feature = "tls"))]
    {
        let _ = (stream, handler, peer, stop, limits, cred);
        match acceptor {}
    }
}
