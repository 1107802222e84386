//! The process's stdin and stdout as the stdio threads read and write them.
//!
//! The descriptors are shared with the host: Node's `process.stdin` / `process.stdout` (created by
//! the first code that touches them, an ESM `import process from "node:process"` included) and
//! Python's asyncio pipes put a pipe or socket on fd 0 or 1 in non-blocking mode, and the flag
//! belongs to the open file, so this process's reads and writes see it too. A plain blocking read
//! then fails with `EAGAIN` as soon as the client is slower than the server, and the stdio loop
//! took that for the end of its input. Here a read or write that finds the descriptor
//! non-blocking waits until it is ready (the runtime's reactor, `AsyncFd`) and tries again, so the
//! stdio threads behave the same whichever mode the descriptor is in. A descriptor that stays
//! blocking never touches the reactor.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;
use tokio::runtime::Handle;

/// A pipe, socket, terminal or file read or written by a stdio thread, in either blocking mode.
pub struct StdioFd {
    file: File,
    interest: Interest,
    /// The runtime whose reactor tells when the descriptor is ready (the one serving stdio).
    runtime: Option<Handle>,
    /// Registered with the reactor the first time the descriptor is found non-blocking.
    ready: Option<AsyncFd<OwnedFd>>,
}

/// This process's stdin (a duplicate of fd 0), for [`super::stdio::serve_io`]. Call it inside the
/// runtime that serves stdio.
pub fn stdin() -> io::Result<StdioFd> {
    StdioFd::new(io::stdin().as_fd(), Interest::READABLE)
}

/// This process's stdout (a duplicate of fd 1), for [`super::stdio::serve_io`]. Writes are not
/// buffered here; the writer thread buffers and flushes per batch of messages.
pub fn stdout() -> io::Result<StdioFd> {
    StdioFd::new(io::stdout().as_fd(), Interest::WRITABLE)
}

impl StdioFd {
    /// Read (`Interest::READABLE`) or write (`Interest::WRITABLE`) a duplicate of `fd`.
    pub fn new(fd: BorrowedFd<'_>, interest: Interest) -> io::Result<Self> {
        Ok(Self::from_owned(fd.try_clone_to_owned()?, interest))
    }

    /// Read or write `fd` itself.
    pub fn from_owned(fd: OwnedFd, interest: Interest) -> Self {
        Self {
            file: File::from(fd),
            interest,
            runtime: Handle::try_current().ok(),
            ready: None,
        }
    }

    fn retry<T>(&mut self, mut op: impl FnMut(&mut File) -> io::Result<T>) -> io::Result<T> {
        loop {
            match op(&mut self.file) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.wait()?,
                r => return r,
            }
        }
    }

    /// Block this thread until the reactor reports the descriptor ready. The readiness is cleared
    /// before the caller tries again, so an edge that comes after the failed attempt is not lost.
    fn wait(&mut self) -> io::Result<()> {
        let Some(rt) = &self.runtime else {
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                "the descriptor is non-blocking and there is no runtime to wait on",
            ));
        };
        if self.ready.is_none() {
            let _enter = rt.enter();
            let fd = self.file.as_fd().try_clone_to_owned()?;
            // tokio deprecates its safe constructors for types whose `as_raw_fd` could change or
            // close under the registration; an `OwnedFd` the `AsyncFd` owns cannot, and the
            // unsafe replacement is not allowed here (`unsafe_code = "forbid"`).
            #[allow(deprecated)]
            let ready = AsyncFd::with_interest(fd, self.interest)?;
            self.ready = Some(ready);
        }
        let (ready, interest) = (
            self.ready.as_ref().expect("registered above"),
            self.interest,
        );
        rt.block_on(async move {
            ready
                .ready(interest)
                .await
                .map(|mut guard| guard.clear_ready())
        })
    }
}

impl Read for StdioFd {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.retry(|f| f.read(buf))
    }
}

impl Write for StdioFd {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.retry(|f| f.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A non-blocking pipe read before anything was written: the read waits, as on a blocking one.
    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn a_read_of_a_non_blocking_pipe_waits_for_data() {
        let (tx, rx) = tokio::net::unix::pipe::pipe().unwrap();
        let mut r = StdioFd::from_owned(rx.into_nonblocking_fd().unwrap(), Interest::READABLE);
        let reader = std::thread::spawn(move || {
            let mut got = Vec::new();
            r.read_to_end(&mut got).map(|_| got)
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        tx.writable().await.unwrap();
        tx.try_write(b"one\n").unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        tx.try_write(b"two\n").unwrap();
        drop(tx);
        let got = tokio::task::spawn_blocking(move || reader.join().unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(got, b"one\ntwo\n");
    }

    /// A write larger than the pipe holds, to a non-blocking pipe: written whole as the reader drains it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn a_write_to_a_full_non_blocking_pipe_waits_for_room() {
        let (tx, rx) = tokio::net::unix::pipe::pipe().unwrap();
        let mut w = StdioFd::from_owned(tx.into_nonblocking_fd().unwrap(), Interest::WRITABLE);
        let data = vec![b'x'; 1 << 20];
        let expected = data.len();
        let writer = std::thread::spawn(move || w.write_all(&data));
        let mut rx = File::from(rx.into_blocking_fd().unwrap());
        let got = tokio::task::spawn_blocking(move || {
            std::thread::sleep(Duration::from_millis(50));
            let mut got = Vec::new();
            rx.read_to_end(&mut got).map(|_| got.len())
        });
        tokio::task::spawn_blocking(move || writer.join().unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(got.await.unwrap().unwrap(), expected);
    }
}
