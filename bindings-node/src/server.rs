//! `NativeServer`: one `oxmcp::Server` plus the transports it runs. Methods are thin: convert,
//! call the core, map the error.

use crate::calls::Calls;
use crate::context::{EndFn, NativeCalls};
use crate::errors::coded;
use crate::http::{to_core, NativeHttpExchange, NativeHttpRequest};
use crate::js_handler::{
    self, CompleteFn, JsCallee, JsCompletion, JsPrompt, JsResource, JsTool, ReadFn, ToolCall,
    ToolCallArgs, ToolDispatchFn, ToolFn,
};
use crate::options;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use oxmcp::transport::http::{HttpConfig, HttpHandler};
use oxmcp::transport::http_server::HttpServer;
use oxmcp::{BuildError, CompletionHandler, Prompt, Resource, ResourceTemplate, Server, Tool};
use serde_json::{Map, Value};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub(crate) fn build_error(e: BuildError) -> Error {
    let code = match &e {
        BuildError::InvalidSchema { .. } => "INVALID_SCHEMA",
        BuildError::DuplicateName { .. } => "DUPLICATE_NAME",
        BuildError::BadUriTemplate { .. } => "BAD_URI_TEMPLATE",
        _ => "INVALID_DEFINITION",
    };
    coded(code, e)
}

fn object(v: Value, what: &str) -> Result<Map<String, Value>> {
    match v {
        Value::Object(m) => Ok(m),
        _ => Err(coded(
            "INVALID_DEFINITION",
            format!("{what} definition must be an object"),
        )),
    }
}

fn timeout(ms: Option<f64>) -> Option<Duration> {
    ms.filter(|m| m.is_finite() && *m > 0.0)
        .map(|m| Duration::from_millis(m as u64))
}

#[napi]
pub struct NativeServer {
    pub(crate) server: Server,
    /// Fired by `close()`: the shutdown future of every transport started from here.
    pub(crate) shutdown: CancellationToken,
    pub(crate) tasks: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    /// The handler behind `server.fetch` / the Node `http` adapter (`configureMount`).
    pub(crate) mount: Mutex<HttpHandler>,
    /// The JS handler calls in flight (`calls()`).
    pub(crate) calls: Arc<Calls>,
    /// The one threadsafe function behind every tool added without a handler of its own
    /// (`setToolDispatcher`). A threadsafe function is a few KB of native state plus an async
    /// resource on the JS heap: one per tool was most of what a registered tool cost in Node.
    pub(crate) tool_dispatch: Mutex<Option<Arc<JsCallee<ToolCall, ToolCallArgs>>>>,
}

/// A running Streamable HTTP listener.
#[napi]
pub struct NativeListener {
    #[napi(readonly)]
    pub host: String,
    #[napi(readonly)]
    pub port: u32,
    done: watch::Receiver<Option<std::result::Result<(), String>>>,
}

#[napi]
impl NativeListener {
    /// Resolves when the listener has stopped (after `close()`), rejects if serving failed.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn wait<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, ()>> {
        let mut rx = self.done.clone();
        env.spawn_future(async move {
            let r = rx
                .wait_for(Option::is_some)
                .await
                .map_err(|_| coded("TRANSPORT_ERROR", "listener task vanished"))?;
            match r.as_ref() {
                Some(Err(e)) => Err(coded("TRANSPORT_ERROR", e)),
                _ => Ok(()),
            }
        })
    }
}

/// JS HTTP options → `HttpConfig` (for `listen()` and for mounts).
fn http_config(v: Value, default_addr: SocketAddr) -> Result<HttpConfig> {
    let Value::Object(m) = v else {
        return Err(coded("INVALID_OPTION", "HTTP options must be an object"));
    };
    let host = m.get("host").and_then(Value::as_str).unwrap_or("127.0.0.1");
    let ip: IpAddr = match host {
        "localhost" => IpAddr::from([127, 0, 0, 1]),
        h => h
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .map_err(|_| {
                coded(
                    "INVALID_OPTION",
                    format!("host must be an IP address or localhost, got {h:?}"),
                )
            })?,
    };
    let port = match m.get("port") {
        None | Some(Value::Null) => default_addr.port(),
        Some(p) => {
            p.as_u64()
                .filter(|p| *p <= 65535)
                .ok_or_else(|| coded("INVALID_OPTION", "port must be 0..65535"))? as u16
        }
    };
    let addr = if m.contains_key("host") || m.contains_key("port") {
        SocketAddr::new(ip, port)
    } else {
        default_addr
    };
    let mut c = HttpConfig::new(addr);
    let strings = |k: &str| -> Result<Option<Vec<String>>> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| x.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .map(Some)
                .ok_or_else(|| coded("INVALID_OPTION", format!("{k} must be an array of strings"))),
            Some(_) => Err(coded(
                "INVALID_OPTION",
                format!("{k} must be an array of strings"),
            )),
        }
    };
    let ms = |k: &str| -> Result<Option<Duration>> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .map(|n| Some(Duration::from_millis(n)))
                .ok_or_else(|| coded("INVALID_OPTION", format!("{k} must be milliseconds"))),
        }
    };
    for k in m.keys() {
        if !matches!(
            k.as_str(),
            "host"
                | "port"
                | "path"
                | "allowedOrigins"
                | "allowedHosts"
                | "maxBodyBytes"
                | "maxStringBytes"
                | "keepAliveMs"
                | "headerTimeoutMs"
                | "drainTimeoutMs"
                | "bodyTimeoutMs"
                | "maxHeaders"
                | "maxHeaderBytes"
                | "tokens"
                | "oauth"
                | "rateLimit"
        ) {
            return Err(coded(
                "INVALID_OPTION",
                format!("unknown HTTP option {k:?}"),
            ));
        }
    }
    if let Some(p) = m.get("path").and_then(Value::as_str) {
        if !p.starts_with('/') {
            return Err(coded("INVALID_OPTION", "path must start with /"));
        }
        c.path = p.to_string();
    }
    if let Some(o) = strings("allowedOrigins")? {
        c.allowed_origins = o;
    }
    if let Some(h) = strings("allowedHosts")? {
        c.allowed_hosts = h;
    }
    if let Some(n) = m.get("maxBodyBytes").and_then(Value::as_u64) {
        c.max_body = n as usize;
    }
    if let Some(n) = m.get("maxStringBytes").and_then(Value::as_u64) {
        c.max_string = n as usize;
    }
    if let Some(d) = ms("keepAliveMs")? {
        c.keep_alive = d;
    }
    if let Some(d) = ms("headerTimeoutMs")? {
        c.header_timeout = d;
    }
    if let Some(d) = ms("drainTimeoutMs")? {
        c.drain_timeout = d;
    }
    if let Some(d) = ms("bodyTimeoutMs")? {
        c.body_timeout = d;
    }
    if let Some(n) = m.get("maxHeaders").and_then(Value::as_u64) {
        c.max_headers = n as usize;
    }
    if let Some(n) = m.get("maxHeaderBytes").and_then(Value::as_u64) {
        c.max_header_bytes = n as usize;
    }
    if let Some(auth) = crate::auth::build(m.get("tokens"), m.get("oauth"))? {
        c = c.auth(Arc::new(auth));
    }
    if let Some(r) = m.get("rateLimit").filter(|v| !v.is_null()) {
        c = c.rate_limiter(crate::auth::rate_limiter(r)?);
    }
    Ok(c)
}

fn loopback() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

#[napi]
impl NativeServer {
    /// `options`: `{ name, version, title?, instructions?, ...ServerOptions }` (see `options.rs`).
    #[napi(constructor)]
    pub fn new(options: Value) -> Result<Self> {
        let (id, opts) = options::parse(options)?;
        let mut b = Server::builder(id.name, id.version)
            .options(opts)
            .declare_tools();
        if let Some(t) = id.title {
            b = b.title(t);
        }
        if let Some(d) = id.description {
            b = b.description(d);
        }
        if let Some(u) = id.website_url {
            b = b.website_url(u);
        }
        if let Some(i) = id.icons {
            b = b.icons(i);
        }
        if let Some(i) = id.instructions {
            b = b.instructions(i);
        }
        let server = b.build().map_err(build_error)?;
        let mount = Mutex::new(HttpHandler::new(
            server.clone(),
            HttpConfig::new(loopback()),
        ));
        Ok(Self {
            server,
            shutdown: CancellationToken::new(),
            tasks: Arc::new(Mutex::new(Vec::new())),
            mount,
            calls: Arc::default(),
            tool_dispatch: Mutex::new(None),
        })
    }

    /// The calls of this server as the JS `ctx` objects see them. `onEnd(id, reason)` hears when
    /// a call whose `ctx.signal` exists ends (`reason`: null when it finished, else "cancelled"
    /// or "timed out").
    #[napi(ts_args_type = "onEnd: (id: number, reason: string | null) => void")]
    pub fn calls(&self, on_end: EndFn<'_>) -> Result<NativeCalls> {
        let tsfn = on_end
            .build_threadsafe_function::<(i64, Option<&'static str>)>()
            .weak::<true>()
            .callee_handled::<false>()
            .build_callback(|c| Ok(FnArgs::from(c.value)))?;
        self.calls.set_listener(tsfn);
        Ok(NativeCalls {
            calls: self.calls.clone(),
        })
    }

    /// The server's `Implementation` object.
    #[napi]
    pub fn info(&self) -> Value {
        self.server.info().clone()
    }

    /// Add a middleware at the end of the core's chain: `handler(method, params, callId)` answers
    /// with an envelope (or `undefined`, then `settle`) and may `callNext(callId, params)` first.
    /// `methods`: the methods it hooks (all when absent); others never call into JS.
    #[napi]
    pub fn add_middleware(
        &self,
        handler: js_handler::MiddlewareFn<'_>,
        methods: Option<Vec<String>>,
    ) -> Result<()> {
        let callee = self.callee(js_handler::middleware_tsfn(&handler)?);
        self.server
            .add_middleware(Arc::new(js_handler::JsMiddleware {
                callee,
                methods: methods.map(|m| m.into_iter().collect()),
            }));
        Ok(())
    }

    /// The handler of every tool added with `addTool(def, null, ..)`:
    /// `(args, callId, toolName) => envelope | undefined`.
    #[napi]
    pub fn set_tool_dispatcher(&self, dispatcher: ToolDispatchFn<'_>) -> Result<()> {
        let callee = self.callee(js_handler::tool_tsfn(&dispatcher)?);
        *self.tool_dispatch.lock().unwrap_or_else(|e| e.into_inner()) = Some(callee);
        Ok(())
    }

    /// Register (or, at runtime, add) a tool; `def` is a spec-shaped `Tool` object. `handler`:
    /// `(args, callId, toolName) => ..` for this tool alone, or null for the dispatcher.
    #[napi]
    pub fn add_tool(
        &self,
        def: Value,
        handler: Option<ToolDispatchFn<'_>>,
        timeout_ms: Option<f64>,
        required_scopes: Option<Vec<String>>,
        max_concurrency: Option<u32>,
        task_after_ms: Option<f64>,
    ) -> Result<()> {
        let def = object(def, "tool")?;
        let name: Arc<str> = def
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .into();
        let callee = match handler {
            Some(h) => self.callee(js_handler::tool_tsfn(&h)?),
            None => self
                .tool_dispatch
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
                .ok_or_else(|| {
                    Error::new(
                        Status::InvalidArg,
                        "addTool without a handler needs setToolDispatcher first",
                    )
                })?,
        };
        let mut tool = Tool::from_definition(def)
            .map_err(build_error)?
            .handler_arc(Arc::new(JsTool { name, callee }));
        if let Some(t) = timeout(timeout_ms) {
            tool = tool.timeout(t);
        }
        if let Some(s) = required_scopes.filter(|s| !s.is_empty()) {
            tool = tool.required_scopes(s);
        }
        if let Some(n) = max_concurrency.filter(|n| *n > 0) {
            tool = tool.max_concurrency(n as usize);
        }
        if let Some(ms) = task_after_ms.filter(|ms| ms.is_finite() && *ms >= 0.0) {
            tool = tool.task_after(std::time::Duration::from_secs_f64(ms / 1000.0));
        }
        self.server.add_tool(tool).map_err(build_error)
    }

    #[napi]
    pub fn remove_tool(&self, name: String) -> bool {
        self.server.remove_tool(&name)
    }

    #[napi]
    pub fn tool_names(&self) -> Vec<String> {
        self.server.tool_names()
    }

    #[napi]
    pub fn add_resource(
        &self,
        def: Value,
        handler: ReadFn<'_>,
        timeout_ms: Option<f64>,
    ) -> Result<()> {
        let def = object(def, "resource")?;
        let what = format!(
            "resource {:?}",
            def.get("uri").and_then(Value::as_str).unwrap_or_default()
        );
        let callee = self.callee(js_handler::read_tsfn(&handler)?);
        let r = Resource::from_definition(def)
            .map_err(build_error)?
            .handler_arc(Arc::new(JsResource {
                what,
                callee,
                timeout: timeout(timeout_ms),
            }));
        self.server.add_resource(r).map_err(build_error)
    }

    #[napi]
    pub fn remove_resource(&self, uri: String) -> bool {
        self.server.remove_resource(&uri)
    }

    #[napi]
    pub fn add_resource_template(
        &self,
        def: Value,
        handler: ReadFn<'_>,
        complete: Option<CompleteFn<'_>>,
        timeout_ms: Option<f64>,
    ) -> Result<()> {
        let def = object(def, "resource template")?;
        let label = def
            .get("uriTemplate")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let callee = self.callee(js_handler::read_tsfn(&handler)?);
        let mut t = ResourceTemplate::from_definition(def)
            .map_err(build_error)?
            .handler_arc(Arc::new(JsResource {
                what: format!("resource template {label:?}"),
                callee,
                timeout: timeout(timeout_ms),
            }));
        if let Some(c) = complete {
            t = t.complete_arc(self.completion(
                &c,
                format!("completion for {label:?}"),
                timeout(timeout_ms),
            )?);
        }
        self.server.add_resource_template(t).map_err(build_error)
    }

    #[napi]
    pub fn remove_resource_template(&self, uri_template: String) -> bool {
        self.server.remove_resource_template(&uri_template)
    }

    #[napi]
    pub fn add_prompt(
        &self,
        def: Value,
        handler: ToolFn<'_>,
        complete: Option<CompleteFn<'_>>,
        timeout_ms: Option<f64>,
    ) -> Result<()> {
        let def = object(def, "prompt")?;
        let name = def
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let callee = self.callee(js_handler::prompt_tsfn(&handler)?);
        let mut p = Prompt::from_definition(def)
            .map_err(build_error)?
            .handler_arc(Arc::new(JsPrompt {
                what: format!("prompt {name:?}"),
                callee,
                timeout: timeout(timeout_ms),
            }));
        if let Some(c) = complete {
            p = p.complete_arc(self.completion(
                &c,
                format!("completion for prompt {name:?}"),
                timeout(timeout_ms),
            )?);
        }
        self.server.add_prompt(p).map_err(build_error)
    }

    #[napi]
    pub fn remove_prompt(&self, name: String) -> bool {
        self.server.remove_prompt(&name)
    }

    #[napi]
    pub fn notify_resource_updated(&self, uri: String) {
        self.server.notify_resource_updated(uri);
    }

    /// Bind a Streamable HTTP listener (port 0 picks a free port) and serve it until `close()`.
    #[napi(ts_return_type = "Promise<NativeListener>")]
    pub fn listen_http<'env>(
        &self,
        env: &'env Env,
        options: Value,
    ) -> Result<PromiseRaw<'env, NativeListener>> {
        let config = http_config(options, SocketAddr::from(([127, 0, 0, 1], 8000)))?;
        if self.shutdown.is_cancelled() || self.server.is_shut_down() {
            return Err(coded("CLOSED", "this server was closed; create a new one"));
        }
        let (server, shutdown, tasks) = (
            self.server.clone(),
            self.shutdown.clone(),
            self.tasks.clone(),
        );
        env.spawn_future(async move {
            let bound = HttpServer::bind(server, config)
                .await
                .map_err(|e| coded("LISTEN_FAILED", e))?;
            let addr = bound.local_addr();
            let (tx, rx) = watch::channel(None);
            let task = napi::bindgen_prelude::spawn(async move {
                let r = bound
                    .serve(shutdown.cancelled_owned())
                    .await
                    .map_err(|e| e.to_string());
                let _ = tx.send(Some(r));
            });
            tasks.lock().unwrap_or_else(|e| e.into_inner()).push(task);
            Ok(NativeListener {
                host: addr.ip().to_string(),
                port: addr.port() as u32,
                done: rx,
            })
        })
    }

    /// Serve newline-delimited JSON-RPC on this process's stdin/stdout until stdin ends or `close()`.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn serve_stdio<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, ()>> {
        if self.shutdown.is_cancelled() || self.server.is_shut_down() {
            return Err(coded("CLOSED", "this server was closed; create a new one"));
        }
        let server = self.server.clone();
        let shutdown = self.shutdown.clone();
        let (tx, rx) = tokio::sync::oneshot::channel();
        let task = napi::bindgen_prelude::spawn(async move {
            let r = oxmcp::transport::stdio::serve(server, shutdown.cancelled_owned()).await;
            let _ = tx.send(r);
        });
        self.tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(task);
        env.spawn_future(async move {
            match rx.await {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(coded("TRANSPORT_ERROR", e)),
                Err(_) => Err(coded(
                    "TRANSPORT_ERROR",
                    "the stdio task ended unexpectedly",
                )),
            }
        })
    }

    /// Configure the handler behind `fetch` and the Node `http` adapter (`allowedHosts`,
    /// `allowedOrigins`, `maxBodyBytes`, `path`, ...). Mounts default to loopback-only Host checks.
    #[napi]
    pub fn configure_mount(&self, options: Value) -> Result<()> {
        let config = http_config(options, loopback())?;
        *self.mount.lock().unwrap_or_else(|e| e.into_inner()) =
            HttpHandler::new(self.server.clone(), config);
        Ok(())
    }

    /// Start one HTTP exchange through the core's transport-neutral handler. The mount is
    /// routed by its host framework, so the request is served at the configured MCP path.
    #[napi]
    pub fn handle_http(&self, request: NativeHttpRequest) -> Result<NativeHttpExchange> {
        let handler = self.mount.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let mut req = to_core(request)?;
        if req.path != "/healthz" {
            req.path = handler.config().path.clone();
        }
        Ok(NativeHttpExchange::start(handler, req))
    }

    /// Stop every transport started from this object and wait for them to finish.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, ()>> {
        self.shutdown.cancel();
        let tasks: Vec<_> =
            std::mem::take(&mut *self.tasks.lock().unwrap_or_else(|e| e.into_inner()));
        env.spawn_future(async move {
            for t in tasks {
                let _ = t.await;
            }
            Ok(())
        })
    }
}

impl NativeServer {
    fn callee<T: 'static, A: napi::bindgen_prelude::JsValuesTupleIntoVec + 'static>(
        &self,
        tsfn: js_handler::Tsfn<T, A>,
    ) -> Arc<JsCallee<T, A>> {
        Arc::new(JsCallee {
            tsfn,
            calls: self.calls.clone(),
        })
    }

    fn completion(
        &self,
        f: &CompleteFn<'_>,
        what: String,
        timeout: Option<Duration>,
    ) -> Result<Arc<dyn CompletionHandler>> {
        let callee = self.callee(js_handler::complete_tsfn(f)?);
        Ok(Arc::new(JsCompletion {
            what,
            callee,
            timeout,
        }))
    }
}
