//! Serving on a Unix domain socket: the socket file made with its mode, a stale file replaced,
//! a live or foreign one refused, and the file removed when the server stops.
//!
//! The mode is set on the socket before it is bound: Linux makes the file with the socket's
//! mode under the umask, so it never exists wider than asked (narrower only, when the umask
//! takes bits away; they are then added back by path). Where the socket's mode cannot be set
//! (macOS, the BSDs), the file is made under the umask and set to the mode before `listen`:
//! until then nobody can connect, but the file itself is briefly as wide as the umask allows.

use crate::transport::http::UdsConfig;
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};
use tokio::net::{UnixListener, UnixStream};

/// Backlog of the socket, as tokio's `TcpListener::bind` uses.
const BACKLOG: i32 = 1024;

/// The socket file this server made: removed when dropped, if it is still the same file (a
/// server started meanwhile that replaced it keeps its own).
pub(super) struct SocketFile {
    path: PathBuf,
    id: (u64, u64),
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        let same = std::fs::symlink_metadata(&self.path)
            .is_ok_and(|m| m.file_type().is_socket() && (m.dev(), m.ino()) == self.id);
        if same {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

impl SocketFile {
    pub(super) fn path(&self) -> &Path {
        &self.path
    }
}

fn refused(path: &Path, why: impl std::fmt::Display) -> io::Error {
    io::Error::new(
        io::ErrorKind::AddrInUse,
        format!("uds {}: {why}", path.display()),
    )
}

/// Clear the way for a new socket at `path`: nothing there, or a stale socket (nobody accepts
/// on it: a server that ended without removing it), which is removed. A socket a server
/// answers on, or a file that is not a socket, is refused and left alone.
async fn clear_stale(path: &Path) -> io::Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(refused(path, e)),
    };
    if !meta.file_type().is_socket() {
        return Err(refused(
            path,
            "the path exists and is not a socket; not replacing it (remove it, or choose another path)",
        ));
    }
    match UnixStream::connect(path).await {
        Ok(_) => Err(refused(
            path,
            "another server is listening on this socket (stop it, or choose another path)",
        )),
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
            tracing::info!(path = %path.display(), "removing a stale socket file");
            match std::fs::remove_file(path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(refused(path, e)),
                _ => Ok(()),
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(refused(
            path,
            format!("cannot tell whether it is in use: {e}"),
        )),
    }
}

/// Bind `uds.path` with `uds.mode` (see the module's doc), after [`clear_stale`].
pub(super) async fn bind(uds: &UdsConfig) -> io::Result<(UnixListener, SocketFile)> {
    let path = &uds.path;
    if uds.mode > 0o777 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "uds_mode {:#o} has bits beyond the permission bits (at most 0o777)",
                uds.mode
            ),
        ));
    }
    clear_stale(path).await?;
    let addr = socket2::SockAddr::unix(path).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("uds {}: {e}", path.display()),
        )
    })?;
    let socket = socket2::Socket::new(socket2::Domain::UNIX, socket2::Type::STREAM, None)?;
    // fchmod on the socket (through `File`, which is the safe way to call it on a descriptor):
    // Linux makes the file with this mode under the umask. An error (not Linux) leaves the
    // chmod by path below to do it.
    let fd = std::os::fd::OwnedFd::from(socket);
    let file = std::fs::File::from(fd);
    let early = file
        .set_permissions(std::fs::Permissions::from_mode(uds.mode))
        .is_ok();
    let socket = socket2::Socket::from(std::os::fd::OwnedFd::from(file));
    socket.bind(&addr).map_err(|e| {
        if e.kind() == io::ErrorKind::AddrInUse {
            refused(path, "another server took this path meanwhile")
        } else {
            refused(path, e)
        }
    })?;
    let meta = std::fs::symlink_metadata(path)?;
    let file = SocketFile {
        path: path.clone(),
        id: (meta.dev(), meta.ino()),
    };
    if meta.mode() & 0o777 != uds.mode {
        if !early {
            tracing::debug!(path = %path.display(), "the socket's mode is set after bind on this platform");
        }
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(uds.mode))?;
    }
    socket.listen(BACKLOG)?;
    socket.set_nonblocking(true)?;
    let std_listener = std::os::unix::net::UnixListener::from(std::os::fd::OwnedFd::from(socket));
    Ok((UnixListener::from_std(std_listener)?, file))
}

/// The connection's first bytes, read (a Unix stream cannot be peeked through tokio) until they
/// tell the HTTP/2 preface from anything else: whether it is HTTP/2, and the stream with those
/// bytes put back in front. `None`: closed, or nothing decisive within `timeout`.
pub(super) async fn sniff_h2(
    mut stream: UnixStream,
    timeout: Duration,
) -> Option<(bool, Prefixed<UnixStream>)> {
    let preface = super::http2::H2_PREFACE;
    let mut buf = Vec::with_capacity(preface.len());
    let deadline = tokio::time::Instant::now() + timeout;
    let h2 = loop {
        let mut chunk = [0u8; 24];
        let want = preface.len() - buf.len();
        let n = tokio::time::timeout_at(deadline, stream.read(&mut chunk[..want]))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if buf[..] != preface[..buf.len()] {
            break false;
        }
        if buf.len() == preface.len() {
            break true;
        }
    };
    Some((
        h2,
        Prefixed {
            head: buf,
            at: 0,
            inner: stream,
        },
    ))
}

/// A stream whose first bytes were read already: they are read again first.
pub(super) struct Prefixed<S> {
    head: Vec<u8>,
    at: usize,
    inner: S,
}

impl<S: AsyncRead + Unpin> AsyncRead for Prefixed<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.at < this.head.len() {
            let n = (this.head.len() - this.at).min(buf.remaining());
            buf.put_slice(&this.head[this.at..this.at + n]);
            this.at += n;
            if this.at == this.head.len() {
                this.head = Vec::new();
                this.at = 0;
            }
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Prefixed<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn prefixed_reads_its_head_then_the_stream() {
        let (a, mut b) = UnixStream::pair().unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut b, b"PRI * rest")
            .await
            .unwrap();
        drop(b);
        let (h2, mut s) = sniff_h2(a, Duration::from_secs(5)).await.unwrap();
        assert!(!h2);
        let mut all = Vec::new();
        s.read_to_end(&mut all).await.unwrap();
        assert_eq!(all, b"PRI * rest");
    }
}
