//! Legacy sessions as Python sees them outside any request (the core's `SessionHandle`):
//! `NativeServer.on_session(callback)` hears each client notification of a legacy session
//! (`notifications/initialized`, `notifications/roots/list_changed`, `resources/subscribe`, ...)
//! as `callback(session, method, params)` on the dispatcher thread; the `NativeSession` sends
//! requests (`roots/list`, sampling, elicitation) and notifications to that client.

use crate::convert::{from_py, to_py};
use crate::engine::{runtime, Engine};
use oxmcp::{LogLevel, SessionHandle, SessionListener};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::{json, Value};
use std::sync::Arc;

pub(crate) struct PySessionListener {
    pub(crate) callback: Arc<Py<PyAny>>,
    pub(crate) engine: Arc<Engine>,
}

impl SessionListener for PySessionListener {
    fn on_notification(&self, session: SessionHandle, method: &str, params: Option<&Value>) {
        let (cb, engine) = (self.callback.clone(), self.engine.clone());
        let (method, params) = (method.to_string(), params.cloned().unwrap_or(Value::Null));
        let s = NativeSession::new(session, engine.clone());
        engine.dispatch(Box::new(move |py| {
            let p = match to_py(py, &params) {
                Ok(p) => p,
                Err(e) => return e.print(py),
            };
            if let Err(e) = cb.call1(py, (s, method, p)) {
                e.print(py);
            }
        }));
    }
}

/// One legacy session (stdio: the process; HTTP: one `Mcp-Session-Id`).
#[pyclass(module = "oxmcp._oxmcp", name = "NativeSession", frozen)]
pub(crate) struct NativeSession {
    handle: SessionHandle,
    engine: Arc<Engine>,
}

#[pymethods]
impl NativeSession {
    /// The `Mcp-Session-Id`, or None on stdio.
    #[getter]
    fn id(&self) -> Option<String> {
        self.handle.id().map(str::to_string)
    }
    #[getter]
    fn protocol_version(&self) -> String {
        self.handle.protocol_version().to_string()
    }
    #[getter]
    fn client_info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.handle.client_info().unwrap_or(&Value::Null))
    }
    #[getter]
    fn client_capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.handle.client_capabilities())
    }
    fn is_open(&self) -> bool {
        self.handle.is_open()
    }
    /// Send a notification; False when no stream to the client is open.
    #[pyo3(signature = (method, params=None))]
    fn notify(&self, method: &str, params: Option<&Bound<'_, PyAny>>) -> PyResult<bool> {
        let p = params.map(from_py).transpose()?;
        Ok(self.handle.notify(method, p))
    }
    /// `notifications/message` through the session's log level.
    #[pyo3(signature = (level, data, logger=None))]
    fn log(&self, level: &str, data: &Bound<'_, PyAny>, logger: Option<String>) -> PyResult<bool> {
        let level = LogLevel::parse(level)
            .ok_or_else(|| PyValueError::new_err(format!("unknown log level {level:?}")))?;
        Ok(self.handle.log(level, from_py(data)?, logger))
    }
    /// Send a request; `callback("ok", result)` or `callback("error", {code, message, data})`
    /// runs later on the dispatcher thread.
    #[pyo3(signature = (method, params, callback))]
    fn request(
        &self,
        method: String,
        params: Option<&Bound<'_, PyAny>>,
        callback: Py<PyAny>,
    ) -> PyResult<()> {
        let p = params.map(from_py).transpose()?;
        let h = self.handle.clone();
        self.answer(callback, async move { h.request(&method, p).await });
        Ok(())
    }
    /// Send `ping`; `callback("ok", {})` or `callback("error", {...})` as `request`.
    fn ping(&self, callback: Py<PyAny>) {
        let h = self.handle.clone();
        self.answer(callback, async move { h.ping().await.map(|()| json!({})) });
    }
    /// The same number for every `NativeSession` of one session while it lives.
    #[getter]
    fn key(&self) -> usize {
        self.handle.key()
    }
    /// `callback()` runs on the dispatcher thread once the session ends (or the server stops).
    fn on_closed(&self, callback: Py<PyAny>) {
        let (h, engine) = (self.handle.clone(), self.engine.clone());
        runtime().spawn(async move {
            h.closed().await;
            engine.dispatch(Box::new(move |py| {
                if let Err(e) = callback.call0(py) {
                    e.print(py);
                }
            }));
        });
    }
}

impl NativeSession {
    pub(crate) fn new(handle: SessionHandle, engine: Arc<Engine>) -> Self {
        Self { handle, engine }
    }

    /// Run `fut` on the runtime and hand its outcome to `callback(kind, value)` on the dispatcher.
    fn answer(
        &self,
        callback: Py<PyAny>,
        fut: impl std::future::Future<Output = Result<Value, oxmcp::McpError>> + Send + 'static,
    ) {
        let engine = self.engine.clone();
        runtime().spawn(async move {
            let (kind, value) = match fut.await {
                Ok(v) => ("ok", v),
                Err(e) => (
                    "error",
                    json!({"code": e.code.0, "message": e.message, "data": e.data}),
                ),
            };
            engine.dispatch(Box::new(move |py| {
                let arg = match to_py(py, &value) {
                    Ok(a) => a,
                    Err(e) => return e.print(py),
                };
                if let Err(e) = callback.call1(py, (kind, arg)) {
                    e.print(py);
                }
            }));
        });
    }
}
