//! Serving: stdio and Streamable HTTP on the binding's tokio runtime, and one-shot HTTP exchanges
//! for the ASGI mount and the in-memory client. The core never installs signal handlers; Python
//! owns them and calls `ServeHandle.shutdown()`.

use crate::awaitable::{self, Convert};
use crate::engine::runtime;
use crate::NativeServer;
use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Method};
use oxmcp::transport::http::{HttpHandler, HttpRequest, ResponseBody};
use oxmcp::transport::http_server::HttpServer;
use oxmcp::transport::stdio;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

type Done = watch::Receiver<Option<Result<(), String>>>;

/// A running transport: `await handle.wait()` until it ends, `handle.shutdown()` to end it.
#[pyclass(module = "oxmcp._oxmcp", name = "ServeHandle", frozen)]
pub(crate) struct ServeHandle {
    stop: CancellationToken,
    done: Done,
    #[pyo3(get)]
    address: Option<String>,
    /// Seconds the transport may take to drain at shutdown (its `drain_timeout_ms`).
    #[pyo3(get)]
    drain_timeout: f64,
}

#[pymethods]
impl ServeHandle {
    /// Graceful shutdown: stop accepting, end streams, finish in-flight requests.
    fn shutdown(&self) {
        self.stop.cancel();
    }

    fn wait<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut done = self.done.clone();
        awaitable::spawn(py, async move {
            let r = loop {
                if let Some(r) = done.borrow().clone() {
                    break r;
                }
                if done.changed().await.is_err() {
                    break Ok(());
                }
            };
            r.map(|()| awaitable::none()).map_err(PyOSError::new_err)
        })
    }

    #[getter]
    fn running(&self) -> bool {
        self.done.borrow().is_none()
    }
}

pub(crate) fn spawn<F>(
    address: Option<String>,
    drain: Duration,
    f: impl FnOnce(CancellationToken) -> F,
) -> ServeHandle
where
    F: std::future::Future<Output = Result<(), String>> + Send + 'static,
{
    let stop = CancellationToken::new();
    let (tx, rx) = watch::channel(None);
    let fut = f(stop.clone());
    runtime().spawn(async move {
        let r = fut.await;
        // The spans of the last requests, before anyone waiting on the transport moves on.
        tokio::task::spawn_blocking(crate::telemetry::flush)
            .await
            .ok();
        let _ = tx.send(Some(r));
    });
    ServeHandle {
        stop,
        done: rx,
        address,
        drain_timeout: drain.as_secs_f64(),
    }
}

pub(crate) fn stdio(ns: &NativeServer) -> PyResult<ServeHandle> {
    let server = ns.server.clone();
    let cfg = ns.config.listen.stdio_config();
    let drain = cfg.drain_timeout;
    let _guard = runtime().enter();
    Ok(spawn(None, drain, move |stop| async move {
        let shutdown = async move { stop.cancelled().await };
        // The core's stdin/stdout readers, not std's: asyncio's pipes put fd 0 and 1 in
        // non-blocking mode.
        let r = match (stdio::stdin(), stdio::stdout()) {
            (Ok(input), Ok(output)) => {
                stdio::serve_io(server.clone(), input, output, cfg, shutdown).await
            }
            (Err(e), _) | (_, Err(e)) => Err(e),
        };
        server.shutdown();
        r.map_err(|e| e.to_string())
    }))
}

/// `options`: this listener's options over the server's; `host`, `port` (when given) and `path`
/// are among them (the core checks them all).
pub(crate) fn http(
    py: Python<'_>,
    ns: &NativeServer,
    host: Option<String>,
    port: Option<u16>,
    path: String,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<ServeHandle> {
    let mut over = crate::options::to_json(options)?;
    if let Some(h) = host {
        over.insert("host".into(), h.into());
    }
    if let Some(p) = port {
        over.insert("port".into(), p.into());
    }
    over.insert("path".into(), path.into());
    let listen = ns
        .config
        .listen_with(serde_json::Value::Object(over))
        .map_err(crate::options::error)?;
    let cfg = listen
        .http_config(SocketAddr::from(([127, 0, 0, 1], 8000)))
        .map_err(crate::options::error)?;
    let addr = match &cfg.uds {
        Some(u) => format!("unix:{}", u.path.display()),
        None => cfg.addr.to_string(),
    };
    let drain = cfg.drain_timeout;
    let server = ns.server.clone();
    // Bind now so that errors (port in use, a live socket) surface here and the real port is known.
    let bound = py
        .detach(|| runtime().block_on(HttpServer::bind(server, cfg)))
        .map_err(|e| PyOSError::new_err(format!("cannot listen on {addr}: {e}")))?;
    Ok(spawn(
        Some(bound.address()),
        drain,
        move |stop| async move {
            bound
                .serve(async move { stop.cancelled().await })
                .await
                .map_err(|e| e.to_string())
        },
    ))
}

/// The body of an SSE response, read chunk by chunk: `await stream.next()` → bytes, or None at the end.
#[pyclass(module = "oxmcp._oxmcp", name = "BodyStream", frozen)]
pub(crate) struct BodyStream {
    rx: Arc<tokio::sync::Mutex<Option<mpsc::Receiver<Bytes>>>>,
}

#[pymethods]
impl BodyStream {
    fn next<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rx = self.rx.clone();
        awaitable::spawn(py, async move {
            let chunk = match rx.lock().await.as_mut() {
                Some(r) => r.recv().await,
                None => None,
            };
            let c: Convert = Box::new(move |py| {
                Ok(match chunk {
                    Some(c) => PyBytes::new(py, &c).unbind().into_any(),
                    None => py.None(),
                })
            });
            Ok(c)
        })
    }

    /// Drop the stream: the core sees the client go away and cancels the request.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rx = self.rx.clone();
        awaitable::spawn(py, async move {
            rx.lock().await.take();
            Ok(awaitable::none())
        })
    }
}

/// The ASGI request's headers as a map (names or values that are not valid HTTP are left out).
fn header_map(headers: Vec<(String, String)>) -> HeaderMap {
    let mut map = HeaderMap::with_capacity(headers.len());
    for (k, v) in headers {
        let (Ok(k), Ok(v)) = (
            HeaderName::from_bytes(k.as_bytes()),
            HeaderValue::from_str(&v),
        ) else {
            continue;
        };
        map.append(k, v);
    }
    map
}

/// A request the core admitted from its head ([`admit`]): its caller, until
/// [`handle_admitted`] serves it.
#[pyclass(module = "oxmcp._oxmcp", name = "HttpAdmission", frozen)]
pub(crate) struct HttpAdmission {
    caller: std::sync::Mutex<Option<Option<oxmcp::Caller>>>,
    /// The path it was admitted for.
    path: String,
    /// The core's body cap for this endpoint (`max_body_bytes`): the mount reads at most one
    /// byte more before it hands the body over, and the core answers its 413.
    #[pyo3(get)]
    max_body_bytes: usize,
}

/// Admit a request from its head (before the ASGI mount reads its body): an awaitable of an
/// [`HttpAdmission`], or of the refusal as `(status, headers, body, None)`.
pub(crate) fn admit<'py>(
    py: Python<'py>,
    handler: HttpHandler,
    method: String,
    headers: Vec<(String, String)>,
    client: Option<std::net::SocketAddr>,
    path: Option<String>,
    host: Option<oxmcp::Caller>,
) -> PyResult<Bound<'py, PyAny>> {
    let method =
        Method::from_bytes(method.as_bytes()).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let map = header_map(headers);
    let max_body_bytes = handler.config().max_body;
    awaitable::spawn(py, async move {
        let path = path.unwrap_or_else(|| handler.config().path.clone());
        match handler.admit_as(&method, &path, &map, client, host).await {
            Ok(caller) => {
                let c: Convert = Box::new(move |py| {
                    let a = HttpAdmission {
                        caller: std::sync::Mutex::new(Some(caller)),
                        path,
                        max_body_bytes,
                    };
                    Ok(Py::new(py, a)?.into_any())
                });
                Ok(c)
            }
            Err(resp) => Ok(response(resp)),
        }
    })
}

/// Serve a request [`admit`] admitted, now with its body.
#[allow(clippy::too_many_arguments)] // the ASGI request's parts, as Python passes them
pub(crate) fn handle_admitted<'py>(
    py: Python<'py>,
    handler: HttpHandler,
    admission: &HttpAdmission,
    method: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    query: String,
    client: Option<std::net::SocketAddr>,
) -> PyResult<Bound<'py, PyAny>> {
    let caller = admission
        .caller
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .ok_or_else(|| PyValueError::new_err("this admission was served already"))?;
    let method =
        Method::from_bytes(method.as_bytes()).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let map = header_map(headers);
    let path = admission.path.clone();
    awaitable::spawn(py, async move {
        let req = HttpRequest {
            method,
            path,
            headers: map,
            body: Bytes::from(body),
        };
        Ok(response(handler.serve(req, caller, client, &query).await))
    })
}

#[allow(clippy::too_many_arguments)] // the ASGI request's parts, as Python passes them
pub(crate) fn handle<'py>(
    py: Python<'py>,
    handler: HttpHandler,
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    query: String,
    client: Option<std::net::SocketAddr>,
) -> PyResult<Bound<'py, PyAny>> {
    let method =
        Method::from_bytes(method.as_bytes()).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let map = header_map(headers);
    // Cancelling the awaitable (client gone) aborts the Rust task, which drops the core's
    // request future: the core's in-flight guard then cancels the handler.
    awaitable::spawn(py, async move {
        let req = HttpRequest {
            method,
            path,
            headers: map,
            body: Bytes::from(body),
        };
        Ok(response(handler.handle_full(req, client, &query).await))
    })
}

/// [`HttpHandler::open_sse`]: stream `id`, for the `GET` whose head is `headers`.
pub(crate) fn sse_open<'py>(
    py: Python<'py>,
    handler: HttpHandler,
    headers: Vec<(String, String)>,
    id: String,
    endpoint: String,
    client: Option<SocketAddr>,
    host: Option<oxmcp::Caller>,
) -> PyResult<Bound<'py, PyAny>> {
    let map = header_map(headers);
    awaitable::spawn(py, async move {
        Ok(response(
            handler.open_sse(&map, client, id, &endpoint, host).await,
        ))
    })
}

/// [`HttpHandler::post_sse`]: a message for the stream `query` names.
pub(crate) fn sse_post<'py>(
    py: Python<'py>,
    handler: HttpHandler,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    query: String,
    client: Option<SocketAddr>,
    host: Option<oxmcp::Caller>,
) -> PyResult<Bound<'py, PyAny>> {
    let map = header_map(headers);
    awaitable::spawn(py, async move {
        let path = handler
            .config()
            .sse
            .as_ref()
            .map(|c| c.messages_path.clone())
            .unwrap_or_default();
        let req = HttpRequest {
            method: Method::POST,
            path,
            headers: map,
            body: Bytes::from(body),
        };
        Ok(response(
            handler.post_sse(req, client, None, &query, host).await,
        ))
    })
}

/// A core response as Python gets it: `(status, headers, body, stream)`.
fn response(resp: oxmcp::transport::http::HttpResponse) -> Convert {
    let status = resp.status.as_u16();
    let headers: Vec<(String, String)> = resp
        .headers
        .iter()
        .filter_map(|(k, v)| {
            v.to_str()
                .ok()
                .map(|v| (k.as_str().to_string(), v.to_string()))
        })
        .collect();
    let c: Convert = Box::new(move |py| {
        let (body, stream): (Option<Py<PyAny>>, Option<Py<PyAny>>) = match resp.body {
            ResponseBody::Empty => (Some(PyBytes::new(py, b"").unbind().into_any()), None),
            ResponseBody::Full(b) => (Some(PyBytes::new(py, &b).unbind().into_any()), None),
            ResponseBody::Sse(rx) => (
                None,
                Some(
                    Py::new(
                        py,
                        BodyStream {
                            rx: Arc::new(tokio::sync::Mutex::new(Some(rx))),
                        },
                    )?
                    .into_any(),
                ),
            ),
        };
        Ok((status, headers, body, stream)
            .into_pyobject(py)?
            .into_any()
            .unbind())
    });
    c
}
