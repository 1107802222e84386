//! `NativeContext`: the core `Context` as the Python `Context` wrapper sees it.

use crate::convert::{error_tuple, from_py, to_py};
use crate::engine::{runtime, Engine};
use oxmcp::{ClientCapability, Context, HandlerError, InputRequest, LogLevel};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// Per call: the core's error behind a Python `InputRequired`, returned once the handler ends.
pub(crate) type Slot = Arc<Mutex<Option<HandlerError>>>;

#[pyclass(module = "oxmcp._oxmcp", name = "NativeContext", frozen)]
pub(crate) struct NativeContext {
    pub(crate) ctx: Context,
    pub(crate) slot: Slot,
    pub(crate) engine: Arc<Engine>,
    /// Set for a middleware call: the rest of the chain (`call_next`).
    pub(crate) next: Option<oxmcp::Next>,
}

fn opt_to_py<'py>(py: Python<'py>, v: Option<&Value>) -> PyResult<Bound<'py, PyAny>> {
    match v {
        Some(v) => to_py(py, v),
        None => Ok(py.None().into_bound(py)),
    }
}

#[pymethods]
impl NativeContext {
    #[getter]
    fn request_id<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.ctx.request_id())
    }
    /// The core's key of the request (`Context::request_key`): the same for its middleware and
    /// its handler.
    #[getter]
    fn request_key(&self) -> usize {
        self.ctx.request_key()
    }
    /// `"http"`, `"stdio"` or `"memory"`.
    #[getter]
    fn transport(&self) -> &'static str {
        match self.ctx.transport() {
            oxmcp::Transport::Http => "http",
            oxmcp::Transport::Stdio => "stdio",
            _ => "memory",
        }
    }
    /// The legacy session the request belongs to (`SessionHandle::of`), or None (modern, stateless).
    #[getter]
    fn session(&self) -> Option<crate::sessions::NativeSession> {
        let h = oxmcp::SessionHandle::of(&self.ctx)?;
        Some(crate::sessions::NativeSession::new(h, self.engine.clone()))
    }
    #[getter]
    fn session_id(&self) -> Option<String> {
        self.ctx.session_id().map(str::to_string)
    }
    #[getter]
    fn method(&self) -> String {
        self.ctx.method().to_string()
    }
    #[getter]
    fn protocol_version(&self) -> String {
        self.ctx.protocol_version().to_string()
    }
    #[getter]
    fn era(&self) -> &'static str {
        match self.ctx.era() {
            oxmcp::Era::Modern => "modern",
            _ => "legacy",
        }
    }
    #[getter]
    fn client_info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        opt_to_py(py, self.ctx.client_info())
    }
    #[getter]
    fn client_capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.ctx.client_capabilities())
    }
    #[getter]
    fn caller<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = self
            .ctx
            .caller()
            .map(|c| serde_json::json!({"name": c.name, "key": c.key(), "scopes": c.scopes, "claims": c.claims}));
        opt_to_py(py, v.as_ref())
    }
    /// The HTTP request that carried the message: `{method, path, query, headers: [[name, value]],
    /// client: [host, port] | None}`, or None (stdio, in-process).
    #[getter]
    fn http_request<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = self.ctx.http_request().map(|r| {
            let headers: Vec<(&str, String)> = r
                .headers
                .iter()
                .map(|(k, v)| {
                    (
                        k.as_str(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect();
            serde_json::json!({
                "method": r.method.as_str(),
                "path": r.path,
                "query": r.query,
                "headers": headers,
                "client": r.peer.map(|a| (a.ip().to_string(), a.port())),
            })
        });
        opt_to_py(py, v.as_ref())
    }
    #[getter]
    fn meta<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &Value::Object(self.ctx.meta().clone()))
    }
    #[getter]
    fn traceparent(&self) -> Option<String> {
        self.ctx.traceparent().map(str::to_string)
    }
    #[getter]
    fn cancelled(&self) -> bool {
        self.ctx.is_cancelled()
    }
    #[getter]
    fn get_request_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        opt_to_py(py, self.ctx.request_state().as_ref())
    }
    #[setter]
    fn set_request_state(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.ctx.set_request_state(from_py(value)?);
        Ok(())
    }

    fn supports(&self, capability: &str) -> PyResult<bool> {
        let cap = match capability {
            "elicitation" => ClientCapability::Elicitation,
            "elicitation.url" | "elicitation_url" => ClientCapability::ElicitationUrl,
            "sampling" => ClientCapability::Sampling,
            "sampling.tools" | "sampling_tools" => ClientCapability::SamplingTools,
            "roots" => ClientCapability::Roots,
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown client capability '{other}'"
                )))
            }
        };
        Ok(self.ctx.supports(cap))
    }

    /// Queue `notifications/progress` (the core's send never waits, so order is kept).
    #[pyo3(signature = (progress, total=None, message=None))]
    fn progress(&self, py: Python<'_>, progress: f64, total: Option<f64>, message: Option<String>) {
        let ctx = self.ctx.clone();
        py.detach(|| futures::executor::block_on(ctx.progress(progress, total, message)));
    }

    #[pyo3(signature = (level, data, logger=None))]
    fn log(
        &self,
        py: Python<'_>,
        level: &str,
        data: &Bound<'_, PyAny>,
        logger: Option<String>,
    ) -> PyResult<()> {
        let level = LogLevel::parse(level)
            .ok_or_else(|| PyValueError::new_err(format!("unknown log level '{level}'")))?;
        let data = from_py(data)?;
        let ctx = self.ctx.clone();
        py.detach(|| futures::executor::block_on(ctx.log(level, data, logger)));
        Ok(())
    }

    /// Middleware only: run the rest of the chain with `params`; `callback(kind, value)` runs later
    /// on the dispatcher thread with ("ok", result) or ("error", (code, message, data)) /
    /// ("input_required" | "cancelled", None).
    fn call_next(&self, params: &Bound<'_, PyAny>, callback: Py<PyAny>) -> PyResult<()> {
        let Some(next) = self.next.clone() else {
            return Err(PyValueError::new_err("call_next outside a middleware call"));
        };
        let params = match from_py(params)? {
            Value::Object(m) => m,
            Value::Null => serde_json::Map::new(),
            _ => return Err(PyValueError::new_err("call_next params must be a dict")),
        };
        let (slot, engine) = (self.slot.clone(), self.engine.clone());
        runtime().spawn(async move {
            let (kind, value) = match next.run(params).await {
                Ok(v) => ("ok", v),
                Err(e) => {
                    let t = error_tuple(&e);
                    // Kept for the middleware's reply: the input request, or the chain's error
                    // with what Python does not see (the HTTP status its rule demands), used
                    // when the middleware passes that same error on.
                    if matches!(e, HandlerError::InputRequired(_) | HandlerError::Mcp(_)) {
                        *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                    }
                    t
                }
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
        Ok(())
    }

    /// The JSON text of the client's answer to input `key`, as it wrote it (`Context::answer_text`).
    fn answer_text(&self, key: &str) -> Option<String> {
        self.ctx.answer_text(key)
    }

    /// Ask the client for input; `callback(kind, value)` runs later on the dispatcher thread.
    /// `kind` is "elicit", "sample", "roots" or "many" (params = [[key, kind, params], ...]).
    fn ask(
        &self,
        kind: &str,
        key: String,
        params: &Bound<'_, PyAny>,
        callback: Py<PyAny>,
    ) -> PyResult<()> {
        let params = from_py(params)?;
        let reqs: Vec<(String, InputRequest)> = if kind == "many" {
            let mut out = Vec::new();
            for item in params.as_array().cloned().unwrap_or_default() {
                let k = item
                    .get(0)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                let kd = item
                    .get(1)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                out.push((
                    k,
                    request(&kd, item.get(2).cloned().unwrap_or(Value::Null))?,
                ));
            }
            out
        } else {
            vec![(key, request(kind, params)?)]
        };
        let many = kind == "many";
        let (ctx, slot, engine) = (self.ctx.clone(), self.slot.clone(), self.engine.clone());
        runtime().spawn(async move {
            let result = ctx.inputs(reqs).await;
            let (kind, value) = match result {
                Ok(mut v) => (
                    "ok",
                    if many {
                        Value::Array(v)
                    } else {
                        v.pop().unwrap_or(Value::Null)
                    },
                ),
                Err(e) => {
                    let t = error_tuple(&e);
                    // Kept for the middleware's reply: the input request, or the chain's error
                    // with what Python does not see (the HTTP status its rule demands), used
                    // when the middleware passes that same error on.
                    if matches!(e, HandlerError::InputRequired(_) | HandlerError::Mcp(_)) {
                        *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                    }
                    t
                }
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
        Ok(())
    }
}

fn request(kind: &str, params: Value) -> PyResult<InputRequest> {
    Ok(match kind {
        "elicit" => InputRequest::Elicit(params),
        "sample" => InputRequest::Sample(params),
        "roots" => InputRequest::ListRoots,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown input kind '{other}'"
            )))
        }
    })
}
