//! `oxmcp._oxmcp`: the private native layer under the `oxmcp` Python package.
//!
//! Thin wrappers only: convert, call the core, convert back. Policy (decorators, schemas,
//! result normalisation, user-facing errors) lives in the Python layer.

mod awaitable;
mod cli;
mod context;
mod convert;
mod engine;
mod handlers;
mod limits;
mod messages;
mod options;
mod registration;
mod rules;
mod serve;
mod sessions;
mod skills;
mod telemetry;
mod verifier;

use convert::from_py;
use engine::Engine;
use handlers::{PyCompletion, PyPrompt, PyResource};
use oxmcp::{CompletionHandler, Resource, ResourceHandler, Server};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use registration::{PromptReg, TemplateReg};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The allocator for this extension module's Rust side: every request allocates some fifty
/// small blocks, which mimalloc serves in far fewer instructions than the system allocator
/// (bench/RESULTS.md). Host objects stay with the host's own allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn build_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Whether a host may serve `method` itself (`oxmcp::server::check_method_name`): ValueError
/// with the core's text when not.
#[pyfunction]
fn check_method_name(method: &str) -> PyResult<()> {
    oxmcp::server::check_method_name(method).map_err(build_err)
}

fn as_object(v: Value, what: &str) -> PyResult<Map<String, Value>> {
    match v {
        Value::Object(m) => Ok(m),
        _ => Err(PyValueError::new_err(format!("{what} must be a dict"))),
    }
}

/// The core server plus the Python engine that runs its handlers.
#[pyclass(module = "oxmcp._oxmcp", name = "NativeServer", frozen)]
pub(crate) struct NativeServer {
    pub(crate) server: Server,
    pub(crate) engine: Arc<Engine>,
    submit: Arc<Py<PyAny>>,
    /// The validated options: the server's, and the defaults of every listener.
    pub(crate) config: oxmcp::config::Config,
    prompts: Mutex<HashMap<String, PromptReg>>,
    templates: Mutex<HashMap<String, TemplateReg>>,
    completions: Mutex<HashMap<(String, String), Arc<dyn CompletionHandler>>>,
    /// The transport-neutral HTTP handler behind `handle_http` (ASGI mount, in-memory client).
    /// Its DNS-rebinding guard treats the endpoint as loopback unless `allowed_hosts` is given.
    http_handler: std::sync::OnceLock<oxmcp::transport::http::HttpHandler>,
    /// The HTTP+SSE transport routed by the host (the `mcp` SDK's `SseServerTransport`): the
    /// mount's handler with `sse` on.
    sse_handler: std::sync::OnceLock<oxmcp::transport::http::HttpHandler>,
    /// The in-process client's handler (`Client(server)`): the mount's without HTTP auth. Its
    /// caller is the server's own code, as a stdio server's is the process that spawned it;
    /// it carries no token (the `mcp` SDK's in-memory client never authenticates either).
    inproc_handler: std::sync::OnceLock<oxmcp::transport::http::HttpHandler>,
}

impl NativeServer {
    fn http_handler(&self) -> PyResult<oxmcp::transport::http::HttpHandler> {
        if let Some(h) = self.http_handler.get() {
            return Ok(h.clone());
        }
        let cfg = self
            .config
            .listen
            .apply(oxmcp::transport::http::HttpConfig::mount())
            .map_err(options::error)?;
        Ok(self
            .http_handler
            .get_or_init(|| oxmcp::transport::http::HttpHandler::new(self.server.clone(), cfg))
            .clone())
    }

    fn inproc_handler(&self) -> PyResult<oxmcp::transport::http::HttpHandler> {
        if let Some(h) = self.inproc_handler.get() {
            return Ok(h.clone());
        }
        let mut cfg = self.http_handler()?.config().clone();
        cfg.auth = None;
        Ok(self
            .inproc_handler
            .get_or_init(|| oxmcp::transport::http::HttpHandler::new(self.server.clone(), cfg))
            .clone())
    }

    fn sse_handler(&self) -> PyResult<oxmcp::transport::http::HttpHandler> {
        if let Some(h) = self.sse_handler.get() {
            return Ok(h.clone());
        }
        let mut cfg = self.http_handler()?.config().clone();
        cfg.sse = Some(cfg.sse.clone().unwrap_or_default());
        Ok(self
            .sse_handler
            .get_or_init(|| oxmcp::transport::http::HttpHandler::new(self.server.clone(), cfg))
            .clone())
    }
}

#[pymethods]
impl NativeServer {
    /// `info`: `{name, version, title?, instructions?, websiteUrl?, description?, icons?}`;
    /// `options`: the core's server options plus the HTTP transport's; `max_workers`: sync pool size;
    /// `declare`: capabilities to declare with nothing registered yet ("resources", "prompts"): a
    /// low-level server answers those methods from Python, and the core routes what it keeps
    /// (`resources/subscribe`) only for a declared capability.
    #[new]
    /// `token_verifier`: `async (token, None) -> ("ok", grant | None)`, the host's verifier the
    /// core asks when `oauth.verifier` is on (a grant is `{client_id, scopes, expires_at,
    /// resource, subject, claims}`).
    #[pyo3(signature = (info, options, max_workers=8, declare=None, token_verifier=None))]
    fn new(
        py: Python<'_>,
        info: &Bound<'_, PyAny>,
        options: &Bound<'_, PyDict>,
        max_workers: usize,
        declare: Option<Vec<String>>,
        token_verifier: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        // The identity and the options are one object in the core's schema.
        let mut all = options::to_json(Some(options))?;
        all.extend(as_object(from_py(info)?, "info")?);
        let mut config = options::config(all)?;
        let engine = Engine::new(max_workers);
        let submit = py.import("oxmcp._runtime")?.getattr("submit")?.unbind();
        let submit = Arc::new(submit);
        if let Some(entry) = token_verifier {
            let v = verifier::PyVerifier {
                entry: Arc::new(entry),
                engine: engine.clone(),
                submit: submit.clone(),
            };
            config.listen.token_verifier = Some(oxmcp::config::VerifierHook(Arc::new(v)));
        }
        let builder = config
            .server
            .host_builder(&declare.unwrap_or_default())
            .map_err(options::error)?;
        let server = builder.build().map_err(build_err)?;
        Ok(Self {
            server,
            engine,
            submit,
            config,
            prompts: Mutex::new(HashMap::new()),
            templates: Mutex::new(HashMap::new()),
            completions: Mutex::new(HashMap::new()),
            http_handler: std::sync::OnceLock::new(),
            sse_handler: std::sync::OnceLock::new(),
            inproc_handler: std::sync::OnceLock::new(),
        })
    }

    /// Register (or, while serving, add) a tool: `spec` is the spec-shaped `Tool` dict;
    /// `timeout_ms`, `required_scopes`, `max_concurrency`: the core's per-tool limits;
    /// `task_after_ms`: the Tasks extension's time budget (`execution.taskSupport` is in `spec`).
    #[pyo3(signature = (spec, entry, is_async, timeout_ms=None, required_scopes=None, max_concurrency=None, task_after_ms=None))]
    #[allow(clippy::too_many_arguments)] // the Python signature above: keyword arguments
    fn add_tool(
        &self,
        spec: &Bound<'_, PyAny>,
        entry: Py<PyAny>,
        is_async: bool,
        timeout_ms: Option<f64>,
        required_scopes: Option<Vec<String>>,
        max_concurrency: Option<f64>,
        task_after_ms: Option<f64>,
    ) -> PyResult<()> {
        let tool = self.tool(
            spec,
            entry,
            is_async,
            timeout_ms,
            required_scopes,
            max_concurrency,
            task_after_ms,
        )?;
        self.server.add_tool(tool).map_err(build_err)
    }

    /// Add many tools as one change: each item is the argument tuple of `add_tool`
    /// `(spec, entry, is_async, timeout_ms, required_scopes, max_concurrency, task_after_ms)`.
    /// All or none: a bad or duplicate one is an error naming it and nothing is added; one
    /// registry version and at most one `notifications/tools/list_changed` for the batch.
    #[allow(clippy::type_complexity)] // add_tool's arguments as the tuple Python passes
    fn add_tools(
        &self,
        items: Vec<(
            Bound<'_, PyAny>,
            Py<PyAny>,
            bool,
            Option<f64>,
            Option<Vec<String>>,
            Option<f64>,
            Option<f64>,
        )>,
    ) -> PyResult<()> {
        // Each tool compiled as it is converted: its schema JSON is freed before the next one's.
        let mut batch = self.server.tool_batch();
        for (spec, entry, is_async, t, s, n, ms) in items {
            let tool = self.tool(&spec, entry, is_async, t, s, n, ms)?;
            batch.push(tool).map_err(build_err)?;
        }
        batch.commit().map_err(build_err)
    }

    /// Add a middleware at the end of the core's chain: `entry.call_async/call_sync(payload, ctx)`
    /// gets `{"method", "params"}` and may call `ctx.call_next(params, callback)`. `methods`: the
    /// methods it hooks (None: every method); a request it does not hook never calls into Python.
    #[pyo3(signature = (entry, is_async, methods=None))]
    fn add_middleware(&self, entry: Py<PyAny>, is_async: bool, methods: Option<Vec<String>>) {
        self.server
            .add_middleware(std::sync::Arc::new(handlers::PyMiddleware {
                handler: self.handler(entry, is_async),
                methods: methods.map(|m| m.into_iter().collect()),
            }));
    }

    /// Serve `method`, outside the spec, with `entry.call_async/call_sync(params, ctx)`; the core
    /// refuses a name it keeps (ValueError, its text).
    fn add_method(&self, method: &str, entry: Py<PyAny>, is_async: bool) -> PyResult<()> {
        let handler = Arc::new(handlers::PyMethod(self.handler(entry, is_async)));
        self.server.add_method(method, handler).map_err(build_err)
    }

    /// Look the input schemas of the tools the core does not hold up with `func(name)` (a dict or
    /// None), for the `Mcp-Param-*` check, instead of the last `tools/list` answer.
    fn set_tool_schema_lookup(&self, func: Py<PyAny>) {
        self.server
            .set_tool_schema_lookup(Arc::new(handlers::PyLookup {
                func: Arc::new(func),
                engine: self.engine.clone(),
            }));
    }

    fn remove_method(&self, method: &str) -> bool {
        self.server.remove_method(method)
    }

    fn remove_tool(&self, name: &str) -> bool {
        self.server.remove_tool(name)
    }

    /// `required_scopes`: OAuth scopes a caller must hold to read it (403 step-up otherwise);
    /// `screen`: a template's value policy `(traversal, absolute, null_bytes, exempt)`, which
    /// replaces the matcher's own refusals (`ResourceTemplate::screen`); `list_variables`: a
    /// template's non-exploded query variables read as lists (`ResourceTemplate::list_variables`).
    #[pyo3(signature = (spec, entry, is_async, is_template, required_scopes=None, screen=None, list_variables=None))]
    #[allow(clippy::too_many_arguments)] // a registration's parts, as Python gives them
    fn add_resource(
        &self,
        spec: &Bound<'_, PyAny>,
        entry: Py<PyAny>,
        is_async: bool,
        is_template: bool,
        required_scopes: Option<Vec<String>>,
        screen: Option<(bool, bool, bool, Vec<String>)>,
        list_variables: Option<Vec<String>>,
    ) -> PyResult<()> {
        let required_scopes = required_scopes.unwrap_or_default();
        let def = as_object(from_py(spec)?, "resource spec")?;
        let handler: Arc<dyn ResourceHandler> = Arc::new(PyResource(self.handler(entry, is_async)));
        if is_template {
            let uri = def
                .get("uriTemplate")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let reg = TemplateReg {
                def,
                handler,
                required_scopes,
                screen: screen.map(|(traversal, absolute, null_bytes, exempt)| {
                    oxmcp::uri_template::ValueScreen {
                        traversal,
                        absolute,
                        null_bytes,
                        exempt,
                    }
                }),
                lists: list_variables.unwrap_or_default(),
            };
            self.register_template(&uri, &reg)?;
            self.templates
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(uri, reg);
            Ok(())
        } else {
            let r = Resource::from_definition(def)
                .map_err(build_err)?
                .required_scopes(required_scopes)
                .handler_arc(handler);
            self.server.add_resource(r).map_err(build_err)
        }
    }

    /// Serve skills, each `(path, [(file, bytes)], listed)`: all or none.
    fn add_skills(&self, skills: Vec<(String, skills::Files, bool)>) -> PyResult<()> {
        self.add_skills_native(skills)
    }

    /// Serve a skill whose files `entry` generates per read (its template variable is `file`).
    fn add_dynamic_skill(
        &self,
        path: String,
        frontmatter: &Bound<'_, PyAny>,
        entry: Py<PyAny>,
        is_async: bool,
        listed: bool,
    ) -> PyResult<()> {
        let fm = as_object(from_py(frontmatter)?, "frontmatter")?;
        let handler: Arc<dyn ResourceHandler> = Arc::new(PyResource(self.handler(entry, is_async)));
        let d = oxmcp::DynamicSkill::new(path, fm, handler).map_err(build_err)?;
        let d = if listed { d } else { d.unlisted() };
        self.server.add_dynamic_skill(d).map_err(build_err)
    }

    fn remove_resource(&self, uri: &str, is_template: bool) -> bool {
        if is_template {
            self.templates
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(uri);
            self.server.remove_resource_template(uri)
        } else {
            self.server.remove_resource(uri)
        }
    }

    /// `required_scopes`: OAuth scopes a caller must hold to get it (403 step-up otherwise).
    #[pyo3(signature = (spec, entry, is_async, required_scopes=None))]
    fn add_prompt(
        &self,
        spec: &Bound<'_, PyAny>,
        entry: Py<PyAny>,
        is_async: bool,
        required_scopes: Option<Vec<String>>,
    ) -> PyResult<()> {
        let def = as_object(from_py(spec)?, "prompt spec")?;
        let name = def
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let reg = PromptReg {
            def,
            handler: Arc::new(PyPrompt(self.handler(entry, is_async))),
            required_scopes: required_scopes.unwrap_or_default(),
        };
        self.register_prompt(&name, &reg)?;
        self.prompts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name, reg);
        Ok(())
    }

    fn remove_prompt(&self, name: &str) -> bool {
        self.prompts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(name);
        self.server.remove_prompt(name)
    }

    /// Completions for a prompt (`ref_type="ref/prompt"`) or a template (`"ref/resource"`):
    /// `values`, the arguments completed from a fixed list (matched by the core), and `entry`,
    /// the Python router for the others.
    #[pyo3(signature = (ref_type, reference, entry, is_async, values=None))]
    fn set_completion(
        &self,
        ref_type: &str,
        reference: &str,
        entry: Py<PyAny>,
        is_async: bool,
        values: Option<HashMap<String, Vec<String>>>,
    ) -> PyResult<()> {
        let mut c = oxmcp::Completer::new()
            .otherwise(Arc::new(PyCompletion(self.handler(entry, is_async))));
        for (argument, list) in values.unwrap_or_default() {
            c = c.values(argument, list);
        }
        let h: Arc<dyn CompletionHandler> = Arc::new(c);
        self.completions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert((ref_type.into(), reference.into()), h);
        match ref_type {
            "ref/prompt" => {
                let reg = self
                    .prompts
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(reference)
                    .cloned();
                if let Some(reg) = reg {
                    self.register_prompt(reference, &reg)?;
                }
            }
            "ref/resource" => {
                let reg = self
                    .templates
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(reference)
                    .cloned();
                if let Some(reg) = reg {
                    self.register_template(reference, &reg)?;
                }
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown completion ref type '{other}'"
                )))
            }
        }
        Ok(())
    }

    /// Tell subscribers that a resource changed (`notifications/resources/updated`).
    fn notify_resource_updated(&self, uri: String) {
        self.server.notify_resource_updated(uri);
    }

    /// Hear every client notification of a legacy session (`notifications/initialized`,
    /// `notifications/roots/list_changed`, `resources/subscribe`, ...): `callback(session,
    /// method, params)` on the dispatcher thread, `session` a `NativeSession`.
    fn on_session(&self, callback: Py<PyAny>) {
        let l = sessions::PySessionListener {
            callback: Arc::new(callback),
            engine: self.engine.clone(),
        };
        self.server.set_session_listener(Some(Arc::new(l)));
    }

    /// Publish `notifications/{tools,prompts,resources}/list_changed` (`kind`: "tools",
    /// "prompts" or "resources"), as a registry change does.
    fn notify_list_changed(&self, kind: &str) -> PyResult<()> {
        self.server
            .notify_list_changed(kind)
            .map_err(pyo3::exceptions::PyValueError::new_err)
    }

    /// Declare exactly `capabilities` (a `ServerCapabilities` dict), or None to compute them from
    /// what is registered again: the SDK shapes declare what their framework would.
    #[pyo3(signature = (capabilities=None))]
    fn declare_exactly(&self, capabilities: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let caps = capabilities.map(from_py).transpose()?;
        self.server.declare_exactly(caps);
        Ok(())
    }

    fn tool_names(&self) -> Vec<String> {
        self.server.tool_names()
    }

    /// The asyncio loop async handlers are scheduled on.
    fn set_loop(&self, event_loop: Option<Py<PyAny>>) {
        self.engine.set_event_loop(event_loop);
    }

    fn serve_stdio(&self, event_loop: Py<PyAny>) -> PyResult<serve::ServeHandle> {
        self.engine.set_event_loop(Some(event_loop));
        serve::stdio(self)
    }

    /// Serve one connection whose messages the caller frames (`Server.run` over message
    /// streams): `(connection, handle)`, served by the core as stdio is.
    fn open_messages(
        &self,
        event_loop: Py<PyAny>,
    ) -> PyResult<(messages::MessageConnection, serve::ServeHandle)> {
        self.engine.set_event_loop(Some(event_loop));
        messages::open(self)
    }

    /// `options`: HTTP options for this listener, over the server's (`tokens`, `rate_limit`,
    /// `uds`, ...). `host`/`port`: `None` leaves them to the options (the core's default
    /// 127.0.0.1:8000, or the `uds` that replaces them).
    #[pyo3(signature = (event_loop, host, port, path, options=None))]
    fn serve_http(
        &self,
        py: Python<'_>,
        event_loop: Py<PyAny>,
        host: Option<String>,
        port: Option<u16>,
        path: String,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<serve::ServeHandle> {
        self.engine.set_event_loop(Some(event_loop));
        serve::http(py, self, host, port, path, options)
    }

    /// One HTTP exchange through the core's transport-neutral handler (ASGI mount, in-memory client).
    /// Returns an awaitable of `(status, headers, body: bytes | None, stream | None)`.
    /// `query` (without `?`) and `client` (`(host, port)`, as ASGI's scope has them) are what
    /// handlers see of the request (`ctx.get_http_request()`).
    /// `in_process`: the in-process client's exchange, served without HTTP auth.
    #[pyo3(signature = (method, path, headers, body, query=None, client=None, in_process=false))]
    #[allow(clippy::too_many_arguments)] // the Python signature above: the ASGI request's parts
    fn handle_http<'py>(
        &self,
        py: Python<'py>,
        method: String,
        path: String,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        query: Option<String>,
        client: Option<(String, u16)>,
        in_process: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let handler = if in_process {
            self.inproc_handler()?
        } else {
            self.http_handler()?
        };
        let query = query.unwrap_or_default();
        let client = peer(client);
        serve::handle(py, handler, method, path, headers, body, query, client)
    }

    /// Admit a request from its head, before its body is read (the ASGI mount): an awaitable of
    /// an `HttpAdmission` for `handle_admitted`, or of the refusal as `handle_http` answers.
    /// `path`: the request's path under the mount, for a mount that routes by it (the HTTP+SSE
    /// app); by default the endpoint's own. `host`: the caller the host app authenticated
    /// (`(name, scopes, claims)`), which the core takes when it has no auth of its own.
    #[pyo3(signature = (method, headers, client=None, path=None, host=None))]
    fn admit_http<'py>(
        &self,
        py: Python<'py>,
        method: String,
        headers: Vec<(String, String)>,
        client: Option<(String, u16)>,
        path: Option<String>,
        host: Option<HostCaller<'py>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let handler = self.http_handler()?;
        let client = peer(client);
        serve::admit(
            py,
            handler,
            method,
            headers,
            client,
            path,
            host_caller(host)?,
        )
    }

    /// A new HTTP+SSE stream id (128 random bits), which `sse_open` takes: the SDK's
    /// `SseServerTransport` names the stream in its endpoint event before the stream opens.
    #[staticmethod]
    fn sse_session_id() -> String {
        oxmcp::transport::http::HttpHandler::new_sse_session_id()
    }

    /// Open HTTP+SSE stream `id` for the `GET` whose head is `headers` (the SDK's
    /// `connect_sse`), its endpoint event saying `endpoint`: an awaitable of
    /// `(status, headers, body, stream)`, as `handle_http` answers.
    #[pyo3(signature = (headers, id, endpoint, client=None, host=None))]
    fn sse_open<'py>(
        &self,
        py: Python<'py>,
        headers: Vec<(String, String)>,
        id: String,
        endpoint: String,
        client: Option<(String, u16)>,
        host: Option<HostCaller<'py>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let handler = self.sse_handler()?;
        serve::sse_open(
            py,
            handler,
            headers,
            id,
            endpoint,
            peer(client),
            host_caller(host)?,
        )
    }

    /// A message POSTed to the HTTP+SSE messages path (the SDK's `handle_post_message`), for the
    /// stream its `query` names: 202, or its refusal, as `handle_http` answers.
    #[pyo3(signature = (headers, body, query, client=None, host=None))]
    fn sse_post<'py>(
        &self,
        py: Python<'py>,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        query: String,
        client: Option<(String, u16)>,
        host: Option<HostCaller<'py>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let handler = self.sse_handler()?;
        serve::sse_post(
            py,
            handler,
            headers,
            body,
            query,
            peer(client),
            host_caller(host)?,
        )
    }

    /// The HTTP+SSE handler's body cap (`max_body_bytes`): the transport reads one byte more at
    /// most, and the core answers its 413.
    fn sse_max_body_bytes(&self) -> PyResult<usize> {
        Ok(self.sse_handler()?.config().max_body)
    }

    /// `handle_http` for a request `admit_http` admitted, now with its body.
    #[pyo3(signature = (admission, method, headers, body, query=None, client=None))]
    #[allow(clippy::too_many_arguments)] // the Python signature above: the ASGI request's parts
    fn handle_admitted<'py>(
        &self,
        py: Python<'py>,
        admission: &Bound<'py, serve::HttpAdmission>,
        method: String,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        query: Option<String>,
        client: Option<(String, u16)>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let handler = self.http_handler()?;
        let query = query.unwrap_or_default();
        let client = peer(client);
        let admission = admission.get();
        serve::handle_admitted(py, handler, admission, method, headers, body, query, client)
    }
}

/// Where a registration comes from, as the Python layer hands it: `None` (by hand) or
/// `(module, file, line)` (discovered).
type PyOrigin = Option<(String, String, u32)>;

fn origin(o: PyOrigin) -> oxmcp::discovery::Origin {
    match o {
        None => oxmcp::discovery::Origin::Manual,
        Some((module, file, line)) => {
            oxmcp::discovery::Origin::Discovered(oxmcp::discovery::Place::new(module, file, line))
        }
    }
}

#[pymodule(gil_used = false)]
fn _oxmcp(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeServer>()?;
    m.add_class::<context::NativeContext>()?;
    m.add_class::<sessions::NativeSession>()?;
    m.add_class::<serve::ServeHandle>()?;
    m.add_class::<serve::BodyStream>()?;
    m.add_class::<messages::MessageConnection>()?;
    m.add_class::<serve::HttpAdmission>()?;
    m.add_class::<limits::NativeTokenBucket>()?;
    m.add_class::<limits::NativeSlidingWindow>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(options::check_options, m)?)?;
    m.add_function(wrap_pyfunction!(cli::cli_main, m)?)?;
    m.add_function(wrap_pyfunction!(options::effective_options, m)?)?;
    m.add_function(wrap_pyfunction!(options::check_listen_options, m)?)?;
    m.add_function(wrap_pyfunction!(check_method_name, m)?)?;
    m.add_function(wrap_pyfunction!(rules::check_tool_limits, m)?)?;
    m.add_function(wrap_pyfunction!(rules::check_completion_names, m)?)?;
    m.add_function(wrap_pyfunction!(rules::check_element, m)?)?;
    m.add_function(wrap_pyfunction!(skills::skill_entry, m)?)?;
    m.add_function(wrap_pyfunction!(skills::skills_load_dir, m)?)?;
    m.add_function(wrap_pyfunction!(skills::skills_load_one, m)?)?;
    m.add_function(wrap_pyfunction!(options::option_names, m)?)?;
    m.add_function(wrap_pyfunction!(rules::admit_registration, m)?)?;
    m.add_function(wrap_pyfunction!(rules::match_uri_template, m)?)?;
    m.add_function(wrap_pyfunction!(rules::match_uri_template_screened, m)?)?;
    m.add_function(wrap_pyfunction!(rules::uri_template_ambiguity, m)?)?;
    m.add_function(wrap_pyfunction!(rules::tool_header_violation, m)?)?;
    m.add_function(wrap_pyfunction!(rules::expand_uri_template, m)?)?;
    m.add_function(wrap_pyfunction!(rules::screen_path_value, m)?)?;
    m.add_function(wrap_pyfunction!(rules::schema_violation, m)?)?;
    m.add_function(wrap_pyfunction!(rules::schema_failures, m)?)?;
    m.add_function(wrap_pyfunction!(rules::check_host_origin, m)?)?;
    m.add_function(wrap_pyfunction!(rules::json_content_type, m)?)?;
    m.add_function(wrap_pyfunction!(rules::tool_use_results_problem, m)?)?;
    m.add_function(wrap_pyfunction!(rules::wants_sampling_tools, m)?)?;
    m.add_function(wrap_pyfunction!(engine::quiesce, m)?)?;
    m.add_function(wrap_pyfunction!(engine::after_fork, m)?)?;
    m.add_function(wrap_pyfunction!(telemetry::flush_telemetry, m)?)?;
    telemetry::init();
    // Installs the atexit hook (quiesce) and the fork hook (after_fork).
    m.py()
        .import("oxmcp._runtime")?
        .call_method0("install_process_hooks")?;
    Ok(())
}

/// ASGI's `(host, port)` client as a socket address; an unparsable host is no address.
fn peer(client: Option<(String, u16)>) -> Option<std::net::SocketAddr> {
    client.and_then(|(h, p)| Some(std::net::SocketAddr::new(h.parse().ok()?, p)))
}

/// A caller a host app authenticated: `(name, scopes, claims)`, claims a dict or None.
type HostCaller<'py> = (String, Vec<String>, Option<Bound<'py, PyAny>>);

fn host_caller(host: Option<HostCaller<'_>>) -> PyResult<Option<oxmcp::Caller>> {
    let Some((name, scopes, claims)) = host else {
        return Ok(None);
    };
    let mut caller = oxmcp::Caller::new(name);
    caller.scopes = scopes;
    if let Some(c) = claims.filter(|c| !c.is_none()) {
        caller.claims = Some(from_py(&c)?);
    }
    Ok(Some(caller))
}
