//! A connection whose messages the host frames itself: the `mcp` SDK's `Server.run(read, write)`
//! over memory streams (an SSE transport, injected stdio streams, tests). Each message in is one
//! JSON-RPC text; the core serves the connection as it serves stdio (`serve_io`: the same
//! session, limits, cancellation and server-to-client requests), over an in-memory pipe.

use crate::awaitable::{self, Convert};
use crate::engine::runtime;
use crate::NativeServer;
use oxmcp::transport::stdio;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::io::{Read, Write};
use std::sync::{mpsc as std_mpsc, Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// The core's input side: lines pushed by `send`, EOF once `close` dropped the sender.
struct LinesIn {
    rx: std_mpsc::Receiver<Vec<u8>>,
    buf: Vec<u8>,
    pos: usize,
}

impl Read for LinesIn {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.buf.len() {
            match self.rx.recv() {
                Ok(line) => {
                    self.buf = line;
                    self.pos = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// The core's output side: each complete line becomes one message for `recv`.
struct LinesOut {
    tx: mpsc::UnboundedSender<Vec<u8>>,
    buf: Vec<u8>,
}

impl Write for LinesOut {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        while let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
            let rest = self.buf.split_off(i + 1);
            let mut line = std::mem::replace(&mut self.buf, rest);
            line.pop();
            if self.tx.send(line).is_err() {
                return Err(std::io::ErrorKind::BrokenPipe.into());
            }
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One connection: `send(message)` in, `await recv()` out (bytes, or None once the core ended the
/// connection), `close()` for the end of the input (the core then cancels what is in flight).
#[pyclass(module = "oxmcp._oxmcp", name = "MessageConnection", frozen)]
pub(crate) struct MessageConnection {
    input: Mutex<Option<std_mpsc::Sender<Vec<u8>>>>,
    output: Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<Vec<u8>>>>,
}

#[pymethods]
impl MessageConnection {
    /// One JSON-RPC message (a JSON text without a newline) for the core.
    fn send(&self, message: &[u8]) -> PyResult<()> {
        if message.contains(&b'\n') {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "a message is one JSON text without a raw newline",
            ));
        }
        let mut line = Vec::with_capacity(message.len() + 1);
        line.extend_from_slice(message);
        line.push(b'\n');
        let sender = self.input.lock().unwrap_or_else(|e| e.into_inner());
        match sender.as_ref() {
            Some(tx) if tx.send(line).is_ok() => Ok(()),
            _ => Err(pyo3::exceptions::PyRuntimeError::new_err(
                "the connection is closed",
            )),
        }
    }

    /// The end of the input, as EOF on stdin.
    fn close(&self) {
        self.input.lock().unwrap_or_else(|e| e.into_inner()).take();
    }

    /// The next message from the core, or None once the connection ended.
    fn recv<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rx = self.output.clone();
        awaitable::spawn(py, async move {
            let line = rx.lock().await.recv().await;
            let c: Convert = Box::new(move |py| {
                Ok(match line {
                    Some(l) => PyBytes::new(py, &l).unbind().into_any(),
                    None => py.None(),
                })
            });
            Ok(c)
        })
    }
}

/// Serve a new message connection on `ns`'s core, with the core's rules for one
/// (`ListenOptions::message_streams_config`: stdio's, no drain at the end of the input, as the
/// SDK cancels in-flight handlers when the read stream closes). The server itself keeps
/// running: other connections may follow.
pub(crate) fn open(ns: &NativeServer) -> PyResult<(MessageConnection, crate::serve::ServeHandle)> {
    let server = ns.server.clone();
    let cfg = ns
        .config
        .listen
        .message_streams_config()
        .map_err(crate::options::error)?;
    let (in_tx, in_rx) = std_mpsc::channel::<Vec<u8>>();
    let (out_tx, out_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let input = LinesIn {
        rx: in_rx,
        buf: Vec::new(),
        pos: 0,
    };
    let output = LinesOut {
        tx: out_tx,
        buf: Vec::new(),
    };
    let _guard = runtime().enter();
    let handle = crate::serve::spawn(None, Duration::ZERO, move |stop| async move {
        stdio::serve_io(
            server,
            input,
            output,
            cfg,
            async move { stop.cancelled().await },
        )
        .await
        .map_err(|e| e.to_string())
    });
    Ok((
        MessageConnection {
            input: Mutex::new(Some(in_tx)),
            output: Arc::new(tokio::sync::Mutex::new(out_rx)),
        },
        handle,
    ))
}
