//! stdio: newline-delimited JSON-RPC. A dedicated thread reads stdin (a long-lived blocking read
//! does not belong on the async runtime), one thread writes stdout, requests run concurrently.
//! Nothing but MCP messages is ever written to stdout; logs go to stderr.

use crate::error::McpError;
use crate::jsonrpc;
use crate::protocol::Method;
use crate::server::{Env, Server, Transport};
use crate::session::{Cancellable, LegacySession};
use futures::StreamExt;
use serde_json::Value;
use std::future::Future;
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

#[cfg(unix)]
pub use super::stdio_fd::{stdin, stdout, StdioFd};

/// This process's stdin, for [`serve_io`].
#[cfg(not(unix))]
pub fn stdin() -> std::io::Result<std::io::Stdin> {
    Ok(std::io::stdin())
}

/// This process's stdout, for [`serve_io`].
#[cfg(not(unix))]
pub fn stdout() -> std::io::Result<std::io::Stdout> {
    Ok(std::io::stdout())
}

#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct StdioConfig {
    /// Longest accepted line; longer ones are answered with -32600 and skipped.
    pub max_line: usize,
    /// Longest JSON string (key or value) in a message, in bytes (-32600 above it).
    pub max_string: usize,
    /// How long in-flight requests may take to finish at EOF or shutdown.
    pub drain_timeout: Duration,
    /// Whether the end of this connection is the end of the server (a process's stdio). When
    /// it is one connection among others (a host's message streams), its end cancels its own
    /// requests and ends its own session only.
    pub owns_server: bool,
}

impl Default for StdioConfig {
    fn default() -> Self {
        Self {
            max_line: 4 * 1024 * 1024,
            max_string: crate::limits::DEFAULT_MAX_STRING,
            drain_timeout: Duration::from_secs(5),
            owns_server: true,
        }
    }
}

/// How long cancelled requests have to end (their handlers told) before they are aborted.
const CANCEL_GRACE: Duration = Duration::from_secs(1);

enum Line {
    Data(Vec<u8>),
    TooLong,
}

/// Read lines of at most `max` bytes; a longer line is skipped up to its newline.
fn read_lines(input: impl Read, max: usize, tx: mpsc::Sender<Line>) {
    let mut r = BufReader::with_capacity(64 * 1024, input);
    let mut buf = Vec::new();
    let mut skipping = false;
    loop {
        let (done, used) = match r.fill_buf() {
            Ok([]) => return,
            Ok(chunk) => match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    if !skipping {
                        buf.extend_from_slice(&chunk[..i]);
                    }
                    (true, i + 1)
                }
                None => {
                    if !skipping {
                        buf.extend_from_slice(chunk);
                    }
                    (false, chunk.len())
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        r.consume(used);
        if !skipping && buf.len() > max {
            skipping = true;
            buf = Vec::new();
        }
        if done {
            let line = if skipping {
                Line::TooLong
            } else {
                Line::Data(std::mem::take(&mut buf))
            };
            skipping = false;
            let empty = matches!(&line, Line::Data(d) if d.iter().all(u8::is_ascii_whitespace));
            if !empty && tx.blocking_send(line).is_err() {
                return;
            }
        }
    }
}

/// Write each message as one line until the channel closes or carries `null` (the connection's
/// end: a message is an object or an array, never `null`), which a sender still held elsewhere
/// (a handler that outlived the connection) cannot delay.
fn write_lines(output: impl Write, mut rx: mpsc::UnboundedReceiver<Value>) {
    let mut w = std::io::BufWriter::new(output);
    while let Some(v) = rx.blocking_recv() {
        if v.is_null() {
            let _ = w.flush();
            return;
        }
        if serde_json::to_writer(&mut w, &v).is_err() || w.write_all(b"\n").is_err() {
            return;
        }
        // Batch whatever is already queued, then flush once.
        while let Ok(v) = rx.try_recv() {
            if v.is_null() {
                let _ = w.flush();
                return;
            }
            if serde_json::to_writer(&mut w, &v).is_err() || w.write_all(b"\n").is_err() {
                return;
            }
        }
        if w.flush().is_err() {
            return;
        }
    }
}

/// Serve on this process's stdin/stdout until EOF or `shutdown`.
pub async fn serve(server: Server, shutdown: impl Future<Output = ()>) -> std::io::Result<()> {
    serve_io(
        server,
        stdin()?,
        stdout()?,
        StdioConfig::default(),
        shutdown,
    )
    .await
}

/// Serve newline-delimited JSON-RPC on any byte streams (pipes, sockets, tests). For this
/// process's own, pass [`stdin()`] and [`stdout()`] (not `std::io::stdin()`): they keep working
/// when the host puts fd 0 or 1 in non-blocking mode.
pub async fn serve_io<R, W>(
    server: Server,
    input: R,
    output: W,
    config: StdioConfig,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    let (line_tx, mut lines) = mpsc::channel::<Line>(64);
    let max = config.max_line;
    std::thread::Builder::new()
        .name("oxmcp-stdin".into())
        .spawn(move || read_lines(input, max, line_tx))?;
    let (out, out_rx) = mpsc::unbounded_channel::<Value>();
    let writer = std::thread::Builder::new()
        .name("oxmcp-stdout".into())
        .spawn(move || write_lines(output, out_rx))?;
    let mut conn = Connection {
        stop: server.request_token(),
        server,
        out,
        cancellable: Arc::default(),
        session: Arc::default(),
        tasks: tokio::task::JoinSet::new(),
        config,
    };
    tokio::pin!(shutdown);
    loop {
        let line = tokio::select! {
            l = lines.recv() => match l { Some(l) => l, None => break },
            _ = &mut shutdown => break,
        };
        while conn.tasks.try_join_next().is_some() {}
        if let Some((msg, bytes)) = conn.parse(line) {
            conn.serve(msg, &bytes).await;
        }
    }
    let end = conn.out.clone();
    conn.finish().await;
    let _ = end.send(Value::Null);
    drop(end);
    let _ = tokio::task::spawn_blocking(move || writer.join()).await;
    Ok(())
}

/// A well-formed JSON-RPC result (`jsonrpc` "2.0", a string id, `result`, no `error`): what the
/// server's dispatch would hand to [`Server::client_response`] as it is.
fn is_answer(msg: &Value) -> bool {
    msg.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        && msg.get("id").is_some_and(Value::is_string)
        && msg.get("result").is_some()
        && msg.get("error").is_none()
}

/// One stdio connection: its requests (for `notifications/cancelled`) and, after `initialize`,
/// its legacy session. The server decides what both mean.
struct Connection {
    server: Server,
    out: mpsc::UnboundedSender<Value>,
    cancellable: Arc<Cancellable>,
    session: Arc<Mutex<Option<Arc<LegacySession>>>>,
    tasks: tokio::task::JoinSet<()>,
    /// The parent of every request's cancellation token (cancelled past the drain deadline).
    stop: CancellationToken,
    config: StdioConfig,
}

impl Connection {
    /// A line's message, or `None` once a line that is none was answered.
    fn parse(&self, line: Line) -> Option<(Value, Vec<u8>)> {
        let bytes = match line {
            Line::TooLong => {
                let max = self.config.max_line;
                let e =
                    McpError::invalid_request(format!("Message exceeds the {max}-byte line limit"));
                let _ = self.out.send(jsonrpc::error(Value::Null, &e));
                return None;
            }
            Line::Data(b) => b,
        };
        match jsonrpc::parse(&bytes, self.config.max_string) {
            Ok(v) => Some((v, bytes)),
            Err(e) => {
                let _ = self.out.send(jsonrpc::error(Value::Null, &e.to_mcp()));
                None
            }
        }
    }

    /// A message's `Env`, with the cancellation token it is given: a request's own from the
    /// start (`Env::with_cancel`); the rest a fresh one.
    fn env_with(&self) -> impl Fn(CancellationToken) -> Env + Clone + Send + 'static {
        let current = self
            .session
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let (cancellable, out) = (self.cancellable.clone(), self.out.clone());
        move |cancel| {
            Env::with_cancel(Transport::Stdio, cancel)
                .session(current.clone())
                .cancellable(cancellable.clone())
                .notifications(out.clone())
        }
    }

    /// One message: a batch and a request run on their own task; a notification or a response
    /// is quick, and served in order (a cancellation must not be overtaken by anything after
    /// it); `initialize` is served before the next line is read: it decides the era of every
    /// message after it, so nothing may overtake it.
    async fn serve(&mut self, msg: Value, bytes: &[u8]) {
        let env_with = self.env_with();
        if let Value::Array(batch) = msg {
            let (server, out) = (self.server.clone(), self.out.clone());
            let env = move || env_with(CancellationToken::new());
            self.tasks.spawn(async move {
                let reply = match server.dispatch_batch(batch, env).await {
                    Err(e) => jsonrpc::error(Value::Null, &e),
                    Ok(r) if r.is_empty() => return,
                    Ok(r) => Value::Array(r),
                };
                let _ = out.send(reply);
            });
            return;
        }
        let method = msg.get("method").and_then(Value::as_str);
        if method.is_none() && is_answer(&msg) {
            // A result for a server request: its handler gets the line's text too.
            let env = env_with(CancellationToken::new());
            if let Err(e) = self
                .server
                .client_response(&msg, env.session_id(), Some(bytes))
                .await
            {
                tracing::warn!(error = %e, "a client response could not be forwarded");
            }
            return;
        }
        if msg.get("id").is_none() || method.is_none() {
            if let Some(r) = self
                .server
                .dispatch(msg, &env_with(CancellationToken::new()))
                .await
            {
                let _ = self.out.send(r);
            }
            return;
        }
        // The message is not classified yet (the server does that): its method is compared as text.
        let is_initialize = method == Some(Method::Initialize.name());
        let handle = self.spawn_request(msg, env_with);
        if is_initialize {
            while !handle.is_finished() {
                if self.tasks.join_next().await.is_none() {
                    break;
                }
            }
        }
    }

    /// Run a request on its own task; the answer goes to stdout when it is ready.
    fn spawn_request(
        &mut self,
        msg: Value,
        env_with: impl Fn(CancellationToken) -> Env + Send + 'static,
    ) -> tokio::task::AbortHandle {
        let (server, out, session) = (self.server.clone(), self.out.clone(), self.session.clone());
        let token = self.stop.child_token();
        self.tasks.spawn(async move {
            let env = env_with(token);
            let resp = server.dispatch(msg, &env).await;
            if let Some(s) = env.take_created_session() {
                // `initialize` selects legacy semantics for the rest of the process.
                *session.lock().unwrap_or_else(|e| e.into_inner()) = Some(s.clone());
                // Server-initiated messages outside a request go to stdout too.
                s.set_outbound(Some(out.clone().into()));
                tokio::spawn(forward_legacy_events(server.clone(), s, out.clone()));
            }
            if let Some(r) = resp {
                let _ = out.send(r);
            }
        })
    }

    /// EOF or shutdown: end listen streams, let in-flight requests finish within the drain
    /// deadline (then cancel them), and let go of every sender of stdout's channel, so that the
    /// writer thread sees it close.
    async fn finish(mut self) {
        let owns = self.config.owns_server;
        if owns {
            self.server.shutdown();
        }
        let tasks = &mut self.tasks;
        let drained = tokio::time::timeout(self.config.drain_timeout, async {
            while tasks.join_next().await.is_some() {}
        })
        .await;
        if drained.is_err() {
            if owns {
                self.server.abort_in_flight();
            }
            self.stop.cancel();
            // A cancelled request ends as soon as its handler is told: wait for that briefly,
            // then abort whatever ignores it.
            let tasks = &mut self.tasks;
            let _ = tokio::time::timeout(CANCEL_GRACE, async {
                while tasks.join_next().await.is_some() {}
            })
            .await;
            self.tasks.shutdown().await;
        }
        // The session's handle for server-initiated messages holds a sender too.
        if let Some(s) = self
            .session
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            s.set_outbound(None);
            if !owns {
                s.closed.cancel();
            }
        }
    }
}

/// Legacy stdio: list changes and subscribed resource updates go to stdout.
async fn forward_legacy_events(
    server: Server,
    session: Arc<LegacySession>,
    out: mpsc::UnboundedSender<Value>,
) {
    let mut events = server.legacy_events(session);
    while let Some(msg) = events.next().await {
        if out.send(msg).is_err() {
            return;
        }
    }
}
