//! `NativeServer`: one `oxmcp::Server` plus the transports it runs. Methods are thin: convert,
//! call the core, map the error.

use crate::batch::{BatchFn, Batcher};
use crate::calls::Calls;
use crate::context::{EndFn, NativeCalls};
use crate::defs::{NativePromptDef, NativeResourceDef, NativeResourceTemplateDef, NativeToolDef};
use crate::errors::{self, coded, Code, Result};
use crate::http::{host_caller, to_core, NativeHttpExchange, NativeHttpRequest};
use crate::js_handler::{
    self, CompleteFn, JsCallee, JsCompletion, JsPrompt, JsResource, JsTool, ReadFn, ToolCall,
    ToolCallArgs, ToolDispatchFn, ToolFn, ToolHop,
};
use crate::options;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use oxmcp::config::Config;
use oxmcp::discovery::{Admit, Origin, Place};
use oxmcp::transport::http::{HttpConfig, HttpHandler};
use oxmcp::transport::http_server::HttpServer;
use oxmcp::transport::stdio;
use oxmcp::{CompletionHandler, Prompt, Resource, ResourceTemplate, Server, Tool};
use serde_json::Value;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

#[napi]
pub struct NativeServer {
    pub(crate) server: Server,
    /// The validated options: the server's, and the defaults of every listener and mount.
    config: Config,
    /// Fired by `close()`: the shutdown future of every transport started from here.
    pub(crate) shutdown: CancellationToken,
    pub(crate) tasks: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    /// The handler behind `server.fetch` / the Node `http` adapter (`configureMount`).
    pub(crate) mount: Mutex<HttpHandler>,
    /// The HTTP+SSE transport's handler (`SSEServerTransport`): the mount's settings with `sse`
    /// on, made at its first stream and kept, since it holds the open streams.
    sse_mount: Mutex<Option<HttpHandler>>,
    /// The JS handler calls in flight (`calls()`).
    pub(crate) calls: Arc<Calls>,
    /// The one threadsafe function behind every tool added without a handler of its own
    /// (`setToolDispatcher`). A threadsafe function is a few KB of native state plus an async
    /// resource on the JS heap: one per tool was most of what a registered tool cost in Node.
    pub(crate) tool_dispatch: Mutex<Option<Arc<Batcher>>>,
}

/// A running Streamable HTTP listener.
#[napi]
pub struct NativeListener {
    #[napi(readonly)]
    pub host: String,
    #[napi(readonly)]
    pub port: u32,
    /// The MCP endpoint path.
    #[napi(readonly)]
    pub path: String,
    /// The Unix socket's path, when listening on one (`uds`).
    #[napi(readonly)]
    pub uds: Option<String>,
    done: watch::Receiver<Option<std::result::Result<(), String>>>,
}

#[napi]
impl NativeListener {
    /// Resolves when the listener has stopped (after `close()`), rejects if serving failed.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn wait<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, ()>> {
        let mut rx = self.done.clone();
        errors::spawn(env, async move {
            let r = rx
                .wait_for(Option::is_some)
                .await
                .map_err(|_| coded(Code::TransportError, "listener task vanished"))?;
            match r.as_ref() {
                Some(Err(e)) => Err(coded(Code::TransportError, e)),
                _ => Ok(()),
            }
        })
    }
}

#[napi]
impl NativeServer {
    /// `options`: `{ name, version, title?, instructions?, ... }`: the server's options and the
    /// defaults of every listener and mount, in the core's schema (`oxmcp::config`).
    // The options' type is the hand-written one of index.d.ts (the core's schema, in camelCase).
    /// `declare`: capabilities to declare before anything of that kind is registered
    /// (`"resources"`, `"prompts"`; tools are always declared), as a server whose lists come
    /// from handlers must.
    #[napi(
        constructor,
        ts_args_type = "options: import('./index').ServerOptions, declare?: Array<'tools' | 'resources' | 'prompts'>"
    )]
    pub fn new(options: Value, declare: Option<Vec<String>>) -> Result<Self> {
        let config = Config::from_json(options).map_err(options::error)?;
        let builder = config
            .server
            .host_builder(&declare.unwrap_or_default())
            .map_err(options::error)?;
        let server = builder.build().map_err(errors::build)?;
        let mount = config
            .listen
            .apply(HttpConfig::mount())
            .map_err(options::error)?;
        let mount = Mutex::new(HttpHandler::new(server.clone(), mount));
        Ok(Self {
            server,
            config,
            shutdown: CancellationToken::new(),
            tasks: Arc::new(Mutex::new(Vec::new())),
            mount,
            sse_mount: Mutex::new(None),
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

    /// Hear every client notification of a legacy session (`notifications/initialized`,
    /// `notifications/roots/list_changed`, `resources/subscribe`, ...) with a `NativeSession` to
    /// answer through (core: server/initiated.rs).
    #[napi(
        ts_args_type = "onSession: (session: NativeSession, method: string, params: any) => void"
    )]
    pub fn on_session(&self, on_session: crate::sessions::SessionFn<'_>) -> Result<()> {
        let l = crate::sessions::listener(&on_session)?;
        self.server
            .set_session_listener(Some(std::sync::Arc::new(l)));
        Ok(())
    }

    /// Publish `notifications/{tools,prompts,resources}/list_changed` (`kind`: "tools",
    /// "prompts" or "resources") to every listener, as a registry change does.
    #[napi]
    pub fn notify_list_changed(&self, kind: String) -> Result<()> {
        self.server
            .notify_list_changed(&kind)
            .map_err(|e| coded(Code::Napi(napi::Status::InvalidArg), e))
    }

    /// Declare exactly `capabilities` (a `ServerCapabilities` object), or `null` to compute them
    /// from what is registered again: the TypeScript-SDK shapes declare what the SDK would.
    #[napi(ts_args_type = "capabilities: Record<string, unknown> | null")]
    pub fn declare_exactly(&self, capabilities: Option<Value>) {
        self.server.declare_exactly(capabilities);
    }

    /// The server's `Implementation` object.
    #[napi(ts_return_type = "{ name: string; version: string; [key: string]: unknown }")]
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

    /// The handler of every tool added with `addTool(def, null, ..)`, called with the calls
    /// waiting (`batch.rs`): `(argsJsons, callIds, toolNames) => answers`, one answer per call in
    /// order: the result's JSON text, an envelope, or undefined (it will `settle`).
    #[napi(
        ts_args_type = "dispatcher: (argsJsons: string[], callIds: number[], toolNames: string[]) => Array<string | NativeEnvelope | undefined>"
    )]
    pub fn set_tool_dispatcher(&self, dispatcher: BatchFn<'_>) -> Result<()> {
        let batcher = Batcher::new(&dispatcher, self.calls.clone())?;
        *self.tool_dispatch.lock().unwrap_or_else(|e| e.into_inner()) = Some(batcher);
        Ok(())
    }

    /// Register (or, at runtime, add) a tool. `handler`: `(argsJson, callId, toolName) => ..` for
    /// this tool alone, or null for the dispatcher. `origin`: where discovery found it (none: by
    /// hand). `refusal`: `(payload, callId) => ..`, the words of a refusal of the tool's arguments
    /// (`JsWording`). Returns the core's decision (`oxmcp::discovery::admit`): `"add"`, `"replace"` (a
    /// discovered one of that name was replaced) or `"skip"` (one by hand is kept).
    #[napi(ts_return_type = "'add' | 'replace' | 'skip'")]
    #[allow(clippy::too_many_arguments)] // the JS call's positional arguments, one by one
    pub fn add_tool(
        &self,
        def: NativeToolDef,
        handler: Option<ToolDispatchFn<'_>>,
        timeout_ms: Option<f64>,
        required_scopes: Option<Vec<String>>,
        max_concurrency: Option<f64>,
        task_after_ms: Option<f64>,
        origin: Option<NativeOrigin>,
        refusal: Option<ToolFn<'_>>,
    ) -> Result<&'static str> {
        let callee = match handler {
            Some(h) => Some(self.callee(js_handler::tool_tsfn(&h)?)),
            None => None,
        };
        let mut tool = self.tool(
            def,
            callee,
            timeout_ms,
            required_scopes,
            max_concurrency,
            task_after_ms,
        )?;
        if let Some(f) = refusal {
            // A compatibility layer's words for a refusal of the arguments (the core decides it).
            let what = format!("refusal wording of tool {:?}", tool.name());
            let callee = self.callee(js_handler::prompt_tsfn(&f)?);
            tool = tool.refusal_wording(js_handler::JsWording { what, callee });
        }
        self.server
            .register_tool(tool, NativeOrigin::core(origin))
            .map(Admit::as_str)
            .map_err(errors::build)
    }

    /// What was registered from discovery (`Server::discovered`), in registration order.
    #[napi]
    pub fn discovered(&self) -> Vec<NativeDiscovered> {
        self.server
            .discovered()
            .into_iter()
            .map(|d| NativeDiscovered {
                kind: d.kind.to_string(),
                name: d.name,
                module: d.place.module,
                file: d.place.file,
                line: d.place.line,
            })
            .collect()
    }

    /// Add many tools as one change, all handled by the dispatcher
    /// (`setToolDispatcher`): each item is `{ def, timeoutMs?, requiredScopes?,
    /// maxConcurrency?, taskAfterMs? }` as for `addTool(def, null, ..)`. All or none: a bad or
    /// duplicate one is an error naming it and nothing is added; one registry version and at
    /// most one `notifications/tools/list_changed` for the batch.
    #[napi]
    pub fn add_tools(&self, items: Vec<ToolBatchItem>) -> Result<()> {
        // Each tool compiled as it is converted: its schema JSON is freed before the next one's.
        let mut batch = self.server.tool_batch();
        for it in items {
            let tool = self.tool(
                it.def,
                None,
                it.timeout_ms,
                it.required_scopes,
                it.max_concurrency,
                it.task_after_ms,
            )?;
            batch.push(tool).map_err(errors::build)?;
        }
        batch.commit().map_err(errors::build)
    }

    #[napi]
    pub fn remove_tool(&self, name: String) -> bool {
        self.server.remove_tool(&name)
    }

    #[napi]
    pub fn tool_names(&self) -> Vec<String> {
        self.server.tool_names()
    }

    #[napi(ts_return_type = "'add' | 'replace' | 'skip'")]
    pub fn add_resource(
        &self,
        def: NativeResourceDef,
        handler: ReadFn<'_>,
        timeout_ms: Option<f64>,
        required_scopes: Option<Vec<String>>,
        origin: Option<NativeOrigin>,
    ) -> Result<&'static str> {
        let def = def.into_map()?;
        let what = format!(
            "resource {:?}",
            def.get("uri").and_then(Value::as_str).unwrap_or_default()
        );
        let callee = self.callee(js_handler::read_tsfn(&handler)?);
        // The timeout's rule (its check, and the server's tool_timeout when unset) is the core's.
        let r = Resource::from_definition(def)
            .and_then(|r| r.timeout_ms(timeout_ms))
            .map_err(errors::build)?
            .required_scopes(required_scopes.unwrap_or_default())
            .handler_arc(Arc::new(JsResource { what, callee }));
        self.server
            .register_resource(r, NativeOrigin::core(origin))
            .map(Admit::as_str)
            .map_err(errors::build)
    }

    #[napi]
    pub fn remove_resource(&self, uri: String) -> bool {
        self.server.remove_resource(&uri)
    }

    #[napi(ts_return_type = "'add' | 'replace' | 'skip'")]
    #[allow(clippy::too_many_arguments)] // the JS call's positional arguments, one by one
    pub fn add_resource_template(
        &self,
        def: NativeResourceTemplateDef,
        handler: ReadFn<'_>,
        complete: Option<CompleteFn<'_>>,
        timeout_ms: Option<f64>,
        required_scopes: Option<Vec<String>>,
        origin: Option<NativeOrigin>,
        values: Option<HashMap<String, Vec<String>>>,
        list_variables: Option<Vec<String>>,
    ) -> Result<&'static str> {
        let def = def.into_map()?;
        let label = def
            .get("uriTemplate")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let callee = self.callee(js_handler::read_tsfn(&handler)?);
        let mut t = ResourceTemplate::from_definition(def)
            .and_then(|t| t.timeout_ms(timeout_ms))
            .map_err(errors::build)?
            .required_scopes(required_scopes.unwrap_or_default())
            .list_variables(list_variables.unwrap_or_default())
            .handler_arc(Arc::new(JsResource {
                what: format!("resource template {label:?}"),
                callee,
            }));
        // The arguments completed from a list are matched by the core; the JS completer answers
        // the others.
        let mut completer = oxmcp::Completer::new();
        for (argument, list) in values.unwrap_or_default() {
            completer = completer.values(argument, list);
        }
        if let Some(c) = complete {
            completer =
                completer.otherwise(self.completion(&c, format!("completion for {label:?}"))?);
        }
        t = t.complete(completer);
        self.server
            .register_resource_template(t, NativeOrigin::core(origin))
            .map(Admit::as_str)
            .map_err(errors::build)
    }

    #[napi]
    pub fn remove_resource_template(&self, uri_template: String) -> bool {
        self.server.remove_resource_template(&uri_template)
    }

    /// Serve `method`, outside the spec, with `handler(params, id)` (a prompt's shape); the core
    /// refuses a name it keeps (its text).
    #[napi]
    pub fn add_method(&self, method: String, handler: ToolFn<'_>) -> Result<()> {
        let callee = self.callee(js_handler::prompt_tsfn(&handler)?);
        let handler = Arc::new(js_handler::JsMethod {
            what: format!("method {method:?}"),
            callee,
        });
        self.server
            .add_method(method, handler)
            .map_err(errors::build)
    }

    #[napi]
    pub fn remove_method(&self, method: String) -> bool {
        self.server.remove_method(&method)
    }

    #[napi(ts_return_type = "'add' | 'replace' | 'skip'")]
    #[allow(clippy::too_many_arguments)] // the JS call's positional arguments, one by one
    pub fn add_prompt(
        &self,
        def: NativePromptDef,
        handler: ToolFn<'_>,
        complete: Option<CompleteFn<'_>>,
        timeout_ms: Option<f64>,
        required_scopes: Option<Vec<String>>,
        origin: Option<NativeOrigin>,
        values: Option<HashMap<String, Vec<String>>>,
    ) -> Result<&'static str> {
        let def = def.into_map()?;
        let name = def
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let callee = self.callee(js_handler::prompt_tsfn(&handler)?);
        let mut p = Prompt::from_definition(def)
            .and_then(|p| p.timeout_ms(timeout_ms))
            .map_err(errors::build)?
            .required_scopes(required_scopes.unwrap_or_default())
            .handler_arc(Arc::new(JsPrompt {
                what: format!("prompt {name:?}"),
                callee,
            }));
        // The arguments completed from a list are matched by the core; the JS completer answers
        // the others.
        let mut completer = oxmcp::Completer::new();
        for (argument, list) in values.unwrap_or_default() {
            completer = completer.values(argument, list);
        }
        if let Some(c) = complete {
            completer = completer
                .otherwise(self.completion(&c, format!("completion for prompt {name:?}"))?);
        }
        p = p.complete(completer);
        self.server
            .register_prompt(p, NativeOrigin::core(origin))
            .map(Admit::as_str)
            .map_err(errors::build)
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
    #[napi(
        ts_args_type = "options: import('./index').ListenOptions",
        ts_return_type = "Promise<NativeListener>"
    )]
    pub fn listen_http<'env>(
        &self,
        env: &'env Env,
        options: Value,
    ) -> Result<PromiseRaw<'env, NativeListener>> {
        let config = self
            .config
            .listen_with(options)
            .and_then(|l| l.http_config(SocketAddr::from(([127, 0, 0, 1], 8000))))
            .map_err(options::error)?;
        if self.shutdown.is_cancelled() || self.server.is_shut_down() {
            return Err(coded(
                Code::Closed,
                "this server was closed; create a new one",
            ));
        }
        let bound_path = config.path.clone();
        let (server, shutdown, tasks) = (
            self.server.clone(),
            self.shutdown.clone(),
            self.tasks.clone(),
        );
        errors::spawn(env, async move {
            let bound = HttpServer::bind(server, config)
                .await
                .map_err(|e| coded(Code::ListenFailed, e))?;
            let addr = bound.local_addr();
            let uds = bound.uds_path().map(|p| p.display().to_string());
            let path = bound_path;
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
                path,
                uds,
                done: rx,
            })
        })
    }

    /// Serve newline-delimited JSON-RPC on this process's stdin/stdout until stdin ends or `close()`.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn serve_stdio<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, ()>> {
        if self.shutdown.is_cancelled() || self.server.is_shut_down() {
            return Err(coded(
                Code::Closed,
                "this server was closed; create a new one",
            ));
        }
        let server = self.server.clone();
        let shutdown = self.shutdown.clone();
        let config = self.config.listen.stdio_config();
        let (tx, rx) = tokio::sync::oneshot::channel();
        let task = napi::bindgen_prelude::spawn(async move {
            // The core's stdin/stdout readers, not std's: Node puts fd 0 and 1 in non-blocking
            // mode once anything touches `process.stdin` / `process.stdout`.
            let r = match (stdio::stdin(), stdio::stdout()) {
                (Ok(input), Ok(output)) => {
                    stdio::serve_io(server, input, output, config, shutdown.cancelled_owned()).await
                }
                (Err(e), _) | (_, Err(e)) => Err(e),
            };
            let _ = tx.send(r);
        });
        self.tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(task);
        errors::spawn(env, async move {
            match rx.await {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(coded(Code::TransportError, e)),
                Err(_) => Err(coded(
                    Code::TransportError,
                    "the stdio task ended unexpectedly",
                )),
            }
        })
    }

    /// Configure the handler behind `fetch` and the Node `http` adapter (`allowedHosts`,
    /// `allowedOrigins`, `maxBodyBytes`, `path`, ...). Mounts default to loopback-only Host checks.
    #[napi(ts_args_type = "options: import('./index').HttpOptions")]
    pub fn configure_mount(&self, options: Value) -> Result<()> {
        let config = self
            .config
            .listen_with(options)
            .and_then(|l| l.apply(HttpConfig::mount()))
            .map_err(options::error)?;
        *self.mount.lock().unwrap_or_else(|e| e.into_inner()) =
            HttpHandler::new(self.server.clone(), config);
        Ok(())
    }

    /// The HTTP+SSE handler ([`Self::sse_mount`]).
    fn sse_handler(&self) -> HttpHandler {
        let mut slot = self.sse_mount.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert_with(|| {
            let mount = self.mount.lock().unwrap_or_else(|e| e.into_inner());
            let mut config = mount.config().clone();
            config.sse = Some(config.sse.clone().unwrap_or_default());
            HttpHandler::new(self.server.clone(), config)
        })
        .clone()
    }

    /// The HTTP+SSE transport, routed by the host (the TS SDK v1 `SSEServerTransport`): open
    /// stream `id` (from `sseSessionId()`) for the `GET` whose head is `request`, its endpoint
    /// event saying `endpoint`.
    #[napi]
    pub fn sse_open(
        &self,
        request: NativeHttpRequest,
        id: String,
        endpoint: String,
    ) -> Result<NativeHttpExchange> {
        let handler = self.sse_handler();
        let (req, peer) = to_core(request)?;
        let h = handler.clone();
        Ok(NativeHttpExchange::from_future(&handler, async move {
            h.open_sse(&req.headers, peer, id, &endpoint, None).await
        }))
    }

    /// A new stream id (128 random bits), which `sseOpen` takes: the transport has it from its
    /// constructor on, before the stream opens.
    #[napi]
    pub fn sse_session_id() -> String {
        HttpHandler::new_sse_session_id()
    }

    /// A message POSTed for stream `id` (`handlePostMessage`): 202, or its refusal.
    #[napi]
    pub fn sse_post(&self, request: NativeHttpRequest, id: String) -> Result<NativeHttpExchange> {
        let handler = self.sse_handler();
        let (req, peer) = to_core(request)?;
        let h = handler.clone();
        Ok(NativeHttpExchange::from_future(&handler, async move {
            h.post_sse(req, peer, Some(&id), "", None).await
        }))
    }

    /// Start one HTTP exchange through the core's transport-neutral handler. The mount is
    /// routed by its host framework, so the request is served at the configured MCP path.
    #[napi]
    pub fn handle_http(&self, request: NativeHttpRequest) -> Result<NativeHttpExchange> {
        let handler = self.mount.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let host = host_caller(&request);
        let (mut req, peer) = to_core(request)?;
        if req.path != "/healthz" {
            req.path = handler.config().path.clone();
        }
        Ok(NativeHttpExchange::start(handler, req, peer, host))
    }

    /// [`Self::handle_http`] from the request's head (its `body` ignored): the core admits it
    /// before the host reads the body (`exchange.admitted()`, then `exchange.body(...)`).
    #[napi]
    pub fn handle_http_head(&self, request: NativeHttpRequest) -> Result<NativeHttpExchange> {
        let handler = self.mount.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let host = host_caller(&request);
        let (mut req, peer) = to_core(request)?;
        if req.path != "/healthz" {
            req.path = handler.config().path.clone();
        }
        Ok(NativeHttpExchange::start_head(handler, req, peer, host))
    }

    /// Stop every transport started from this object and wait for them to finish.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, ()>> {
        self.shutdown.cancel();
        let tasks: Vec<_> =
            std::mem::take(&mut *self.tasks.lock().unwrap_or_else(|e| e.into_inner()));
        errors::spawn(env, async move {
            for t in tasks {
                let _ = t.await;
            }
            Ok(())
        })
    }
}

impl NativeServer {
    pub(crate) fn callee<T: 'static, A: napi::bindgen_prelude::JsValuesTupleIntoVec + 'static>(
        &self,
        tsfn: js_handler::Tsfn<T, A>,
    ) -> Arc<JsCallee<T, A>> {
        Arc::new(JsCallee {
            tsfn,
            calls: self.calls.clone(),
        })
    }

    fn completion(&self, f: &CompleteFn<'_>, what: String) -> Result<Arc<dyn CompletionHandler>> {
        let callee = self.callee(js_handler::complete_tsfn(f)?);
        Ok(Arc::new(JsCompletion { what, callee }))
    }
}

impl NativeServer {
    /// One core `Tool` from `addTool`'s arguments (`callee` None: the dispatcher).
    #[allow(clippy::too_many_arguments)] // addTool's options, one by one as JS passes them
    fn tool(
        &self,
        def: NativeToolDef,
        callee: Option<Arc<JsCallee<ToolCall, ToolCallArgs>>>,
        timeout_ms: Option<f64>,
        required_scopes: Option<Vec<String>>,
        max_concurrency: Option<f64>,
        task_after_ms: Option<f64>,
    ) -> Result<Tool> {
        let name: Arc<str> = def.name.as_str().into();
        let def = def.into_map()?;
        let hop = match callee {
            Some(c) => ToolHop::Own(c),
            None => ToolHop::Dispatcher {
                batcher: self
                    .tool_dispatch
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .clone()
                    .ok_or_else(|| {
                        coded(
                            Code::Napi(Status::InvalidArg),
                            "addTool without a handler needs setToolDispatcher first",
                        )
                    })?,
                calls: self.calls.clone(),
            },
        };
        // The limits' rule is the core's (`Tool::limits`): the same values refused as in Python.
        let mut tool = Tool::from_definition(def)
            .map_err(errors::build)?
            .handler_arc(Arc::new(JsTool::new(name, hop)))
            .limits(timeout_ms, max_concurrency, task_after_ms)
            .map_err(errors::build)?;
        if let Some(s) = required_scopes.filter(|s| !s.is_empty()) {
            tool = tool.required_scopes(s);
        }
        Ok(tool)
    }
}

/// Where discovery found a definition (`lib/discovery.cjs`): the file's path below the directory
/// discovered, the file, and the line of its `define*` call (0: unknown).
#[napi(object)]
pub struct NativeOrigin {
    pub module: String,
    pub file: String,
    pub line: Option<u32>,
}

impl NativeOrigin {
    fn core(o: Option<Self>) -> Origin {
        match o {
            None => Origin::Manual,
            Some(o) => Origin::Discovered(Place::new(o.module, o.file, o.line.unwrap_or(0))),
        }
    }
}

/// One entry of `NativeServer.discovered()`.
#[napi(object)]
pub struct NativeDiscovered {
    pub kind: String,
    pub name: String,
    pub module: String,
    pub file: String,
    pub line: u32,
}

/// One item of `NativeServer.addTools`.
#[napi(object)]
pub struct ToolBatchItem {
    pub def: NativeToolDef,
    pub timeout_ms: Option<f64>,
    pub required_scopes: Option<Vec<String>>,
    pub max_concurrency: Option<f64>,
    pub task_after_ms: Option<f64>,
}
