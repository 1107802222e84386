//! The one dispatch path. Every transport hands each JSON-RPC message to [`Server::dispatch`]
//! (or, after its own framing checks, to `Server::request`), with an [`Env`] saying where the
//! message came from. Era selection and `_meta` validation (by the rule in `era.rs`), routing,
//! MRTR, result shaping and error mapping all happen here, once. The methods that run user
//! handlers live in `calls.rs`, `subscriptions/listen` in `listen.rs`, and the legacy-only
//! methods in `legacy.rs`, the list methods in `lists.rs`.

use super::env::{Env, Transport};
use super::era::{client_caps, era_of, modern_meta};
use super::registry::RenderedKind as Rk;
use super::{Registry, Server};
use crate::context::{Context, ContextInner, InputState, LogFilter};
use crate::error::McpError;
use crate::jsonrpc::{self, Message, Params, ParamsIn};
use crate::protocol::*;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio_util::sync::CancellationToken;

#[derive(Clone)]
/// What the dispatcher knows about one request once its era is decided: id, method, protocol
/// version, the client's capabilities and info, `_meta`, and how its logs are filtered. Its
/// handlers see it through the `Context`.
pub(crate) struct RequestInfo {
    pub(crate) id: Value,
    /// Parsed when the message was read; the handler's `Context` shares it.
    pub(crate) method: Method,
    pub(crate) era: Era,
    pub(crate) version: Cow<'static, str>,
    /// The client's capabilities and info when they are not in `meta` (a legacy request's, from
    /// its session); `None` for a modern request, whose `_meta` carries them: read from there
    /// ([`Self::caps`], [`Self::client_info`]), not copied per request.
    pub(crate) caps: Option<Value>,
    pub(crate) client_info: Option<Value>,
    /// Shared with the handler's `Context`, not copied for it.
    pub(crate) meta: Arc<RequestMeta>,
    pub(crate) log: LogFilter,
}

impl RequestInfo {
    /// The client's capabilities: the session's, or a modern request's `_meta` (checked to be
    /// an object by `modern_meta`).
    pub(crate) fn caps(&self) -> &Value {
        client_caps(self.caps.as_ref(), self.era, &self.meta)
    }
}

/// How a request ends.
pub(crate) enum Outcome {
    Result(Value),
    /// A tool's answer, written straight from its `ToolResult` ([`super::answer`]).
    Tool(Box<super::answer::ToolAnswer>),
    /// A result serialised before (a list or `server/discover` of this registry version:
    /// [`super::registry::Rendered`]).
    Rendered(Arc<RawValue>),
    /// A `resources/read` result, written straight from the handler's contents
    /// ([`super::answer::ContentsAnswer`]).
    Contents(Box<super::answer::ContentsAnswer>),
    Error(McpError),
    /// Nothing is sent (cancelled request).
    Nothing,
}

/// A result serialised before, as a value again (for those who look inside).
pub(crate) trait RenderedValue {
    fn value(&self) -> Value;
}

impl RenderedValue for RawValue {
    fn value(&self) -> Value {
        serde_json::from_str(self.get()).unwrap_or(Value::Null)
    }
}

pub(crate) use super::answer::Reply;

impl From<McpError> for Outcome {
    fn from(e: McpError) -> Self {
        Outcome::Error(e)
    }
}

/// A string member taken out of the params (no copy of it), with `str_param`'s error.
pub(super) fn take_str_param(p: &mut Params, k: &str) -> Result<String, McpError> {
    match p.remove(k) {
        Some(Value::String(s)) => Ok(s),
        _ => Err(McpError::invalid_params(format!(
            "Missing or invalid '{k}'"
        ))),
    }
}

pub(crate) fn str_param<'a>(p: &'a Params, k: &str) -> Result<&'a str, McpError> {
    p.get(k)
        .and_then(Value::as_str)
        .ok_or_else(|| McpError::invalid_params(format!("Missing or invalid '{k}'")))
}

fn encode_cursor(offset: usize) -> String {
    B64.encode(format!("o{offset}"))
}

fn decode_cursor(c: &str) -> Option<usize> {
    let raw = B64.decode(c).ok()?;
    std::str::from_utf8(&raw)
        .ok()?
        .strip_prefix('o')?
        .parse()
        .ok()
}

impl Server {
    /// Dispatch one parsed JSON-RPC message. Returns the response to send, if any.
    pub async fn dispatch(&self, msg: Value, env: &Env) -> Option<Value> {
        match jsonrpc::classify(msg) {
            Err((id, e)) => Some(jsonrpc::error(id, &e)),
            Ok(Message::Response(v)) => {
                if let Err(e) = self.client_response(&v, env.session_id(), None).await {
                    tracing::warn!(error = %e, "a client response could not be forwarded");
                }
                None
            }
            Ok(Message::Notification { method, params }) => {
                if let Err(e) = self
                    .notification(method.as_str(), params.as_ref(), env)
                    .await
                {
                    tracing::warn!(error = %e, method = %method, "a client notification was not handled");
                }
                None
            }
            Ok(Message::Request(rq)) => self.request(rq, env).await,
        }
    }

    /// A JSON-RPC batch — one rule for every transport: only in a 2025-03-26 connection, never
    /// empty, never holding `initialize` (it must be answered before anything else is sent).
    /// Messages run in order, each with an `Env` from `env`. `Err`: the whole batch is refused
    /// (one error response with a null id). `Ok`: the replies, possibly none.
    pub async fn dispatch_batch(
        &self,
        batch: Vec<Value>,
        env: impl Fn() -> Env,
    ) -> Result<Vec<Value>, McpError> {
        let allowed = env().legacy_version().is_some_and(|v| allows_batches(&v));
        if !allowed || batch.is_empty() {
            return Err(McpError::invalid_request(
                "JSON-RPC batches are not supported in this protocol version",
            ));
        }
        // A batch is that many requests at once: capped.
        let max = self.inner.options.max_batch_len;
        if batch.len() > max {
            return Err(McpError::invalid_request(format!(
                "Batch too long: {} messages (the limit is {max})",
                batch.len()
            )));
        }
        let mut out = Vec::new();
        for msg in batch {
            // Before the message is classified: its method compared as text.
            if msg.get("method").and_then(Value::as_str) == Some(Method::Initialize.name()) {
                out.push(jsonrpc::error(
                    msg.get("id").cloned().unwrap_or(Value::Null),
                    &McpError::invalid_request("initialize must not be part of a batch"),
                ));
                continue;
            }
            if let Some(r) = self.dispatch(msg, &env()).await {
                out.push(r);
            }
        }
        Ok(out)
    }

    /// A client notification. `Err`: a legacy session's shared store could not be reached, so
    /// a cancellation may not have reached the replica running the request (HTTP answers 503).
    pub(crate) async fn notification(
        &self,
        method: &str,
        params: Option<&Value>,
        env: &Env,
    ) -> Result<(), McpError> {
        match method {
            "notifications/cancelled" => {
                let id = params.and_then(|p| p.get("requestId"));
                if let (Some(t), Some(id)) = (env.cancel_table(), id) {
                    t.cancel(id);
                    // The request may run on another replica, or reach one later: the cancel
                    // goes into the stored session and to every replica that has it.
                    if let Some(sid) = env.session_id() {
                        if self.inner.sessions.store.is_shared() {
                            let change =
                                crate::session::store::SessionChange::Cancelled(id.to_string());
                            self.inner.sessions.update(sid, change).await?;
                        }
                    }
                }
            }
            other => match &env.session {
                // Legacy: the host's session listener hears of it (initiated.rs).
                Some(s) => self.session_notification(s, other, params),
                None => tracing::debug!(method = other, "ignored notification"),
            },
        }
        Ok(())
    }

    /// Serve one request; `None` when nothing must be sent (it was cancelled).
    pub(crate) async fn request(&self, rq: jsonrpc::Request, env: &Env) -> Option<Value> {
        self.request_with_status(rq, env)
            .await
            .map(|(r, _)| r.into_value())
    }

    /// As [`Server::request`], plus the HTTP status the response travels with.
    ///
    /// An `async` block rather than an `async fn`, and what comes before the routing in a plain
    /// fn of its own ([`Self::begin`]): an `async fn` keeps its arguments twice, and the request's
    /// parts and their conversions would stay in this future (boxed per request by the HTTP
    /// layer) beside the routing they move into.
    #[allow(clippy::manual_async_fn)] // on purpose: see above
    pub(crate) fn request_with_status<'a>(
        &'a self,
        rq: jsonrpc::Request,
        env: &'a Env,
    ) -> impl std::future::Future<Output = Option<(Reply, u16)>> + Send + 'a {
        async move {
            let (info, params) = match self.begin(rq, env) {
                Ok(b) => b,
                Err(r) => return Some(r),
            };
            let tracked = env.cancel_table().map(|t| t.track(&info.id, &env.cancel));
            // Read the clock only for the debug record that reports the duration.
            let started = tracing::enabled!(tracing::Level::DEBUG).then(Instant::now);
            let span = super::trace::request_span(&info, &params, env);
            let outcome = {
                // Boxed on its own: inline, the request's future (boxed by the HTTP layer) was
                // 1,776 bytes, over glibc's per-thread cache limit (1,032); split, both fit.
                let mut call = Box::pin(tracing::Instrument::instrument(
                    self.intercepted(&info, params, env),
                    span,
                ));
                let outcome = call.as_mut().await;
                super::trace::finish(call.span(), &outcome);
                outcome
            };
            self.count_request(&info, &outcome);
            if let Some(started) = started {
                let outcome_s = match &outcome {
                    Outcome::Result(_)
                    | Outcome::Tool(_)
                    | Outcome::Rendered(_)
                    | Outcome::Contents(_) => "ok".to_string(),
                    Outcome::Error(e) => e.code.0.to_string(),
                    Outcome::Nothing => "cancelled".to_string(),
                };
                tracing::debug!(method = %info.method, era = ?info.era, duration_us = started.elapsed().as_micros() as u64, outcome = %outcome_s, "request");
            }
            if tracked.is_some_and(|t| t.cancelled_by_client()) {
                // The spec: no response to a cancelled request.
                return None;
            }
            let RequestInfo { id, era, .. } = info;
            match outcome {
                Outcome::Result(result) => Some((Reply::Ok { id, result }, 200)),
                Outcome::Tool(answer) => Some((Reply::Tool { id, answer }, 200)),
                Outcome::Contents(answer) => Some((Reply::Contents { id, answer }, 200)),
                Outcome::Rendered(result) => Some((Reply::Rendered { id, result }, 200)),
                Outcome::Error(e) => {
                    let status = e.http_status(era);
                    Some((Reply::Value(jsonrpc::error(id, &e)), status))
                }
                Outcome::Nothing => None,
            }
        }
    }

    /// A request's era decided and its `_meta` checked: what the dispatcher and its handlers
    /// know of it, and its params as an object. `Err`: the answer (params that are not an
    /// object, an invalid modern `_meta`).
    fn begin(
        &self,
        rq: jsonrpc::Request,
        env: &Env,
    ) -> Result<(RequestInfo, Params), (Reply, u16)> {
        let jsonrpc::Request {
            id,
            method,
            params,
            meta,
        } = rq;
        let mut params = match params {
            None | Some(ParamsIn::Other(Value::Null)) => Params::default(),
            Some(ParamsIn::Object(p)) => p,
            Some(ParamsIn::Other(_)) => {
                let e = McpError::invalid_params("params must be an object");
                return Err((Reply::Value(jsonrpc::error(id, &e)), 400));
            }
        };
        if era_of(&method, meta.as_deref(), env) == Era::Legacy {
            if let Some(e) = self.session_required(&method, env) {
                return Err((Reply::Value(jsonrpc::error(id, &e)), 400));
            }
            // A legacy request's params keep their `_meta`, as the client sent them. Built through
            // `whole`, so the handler's `Context::meta()` reuses it rather than building it again.
            if let Some(m) = &meta {
                params.insert("_meta".into(), Value::Object(m.whole().clone()));
            }
            return Ok((self.legacy_rq(id, method, meta, env), params));
        }
        let checked = if self.inner.options.modern {
            modern_meta(meta.as_deref())
        } else {
            Err(super::era::modern_not_served(meta.as_deref()))
        };
        match checked {
            Ok((version, level)) => Ok((
                RequestInfo {
                    id,
                    method,
                    era: Era::Modern,
                    version,
                    caps: None,
                    client_info: None,
                    meta: meta.unwrap_or_default(),
                    log: LogFilter::Request(level),
                },
                params,
            )),
            Err(e) => {
                let status = e.http_status(Era::Modern);
                Err((Reply::Value(jsonrpc::error(id, &e)), status))
            }
        }
    }

    pub(super) fn legacy_rq(
        &self,
        id: Value,
        method: Method,
        meta: Option<Arc<RequestMeta>>,
        env: &Env,
    ) -> RequestInfo {
        let meta = meta.unwrap_or_default();
        match &env.session {
            Some(s) => RequestInfo {
                id,
                method,
                era: Era::Legacy,
                version: version_cow(&s.version),
                caps: Some(s.client_capabilities.clone()),
                client_info: s.client_info.clone(),
                meta,
                log: LogFilter::Session(s.log_level.clone()),
            },
            None => RequestInfo {
                id,
                method,
                era: Era::Legacy,
                version: env
                    .legacy_version()
                    .map_or(Cow::Borrowed(LEGACY_VERSIONS[0]), |v| version_cow(&v)),
                caps: Some(json!({})),
                client_info: None,
                meta,
                log: LogFilter::Session(Arc::new(Mutex::new(None))),
            },
        }
    }

    /// `digest`: of the arguments the client sent (a middleware may have changed `params`),
    /// which an MRTR state is bound to at every step.
    ///
    /// An `async` block rather than an `async fn`: an `async fn` copies its arguments into its
    /// body, and would keep `params` and `digest` twice in a future boxed per request.
    #[allow(clippy::manual_async_fn)] // on purpose: see above
    pub(super) fn route<'a>(
        &'a self,
        rq: &'a RequestInfo,
        params: Params,
        env: &'a Env,
        digest: super::mrtr::ArgsDigest,
    ) -> impl std::future::Future<Output = Outcome> + Send + 'a {
        async move {
            let reg = self.snapshot();
            // Cheap checks on the hot path; the capabilities object is built only where it is sent.
            let has = |k: &str| self.has_capability(&reg, k);
            let modern = rq.era == Era::Modern;
            // Methods other than the calls are awaited boxed, so this future stays the size of a
            // call's (see `HttpHandler::handle_full`).
            match &rq.method {
                Method::Initialize if !modern => {
                    Box::pin(self.initialize(&params, env, &self.capabilities(&reg, false))).await
                }
                Method::Ping if !modern => Outcome::Result(json!({})),
                Method::LoggingSetLevel if !modern && has("logging") => {
                    Box::pin(self.set_level(&params, env)).await
                }
                Method::ResourcesSubscribe | Method::ResourcesUnsubscribe
                    if !modern && has("resources") =>
                {
                    Box::pin(self.subscribe(rq, &params, env)).await
                }
                Method::ServerDiscover if modern => {
                    self.rendered(rq, &params, env, &reg, Rk::Discover, || {
                        Outcome::Result(self.finish(
                            rq,
                            self.discover(&self.capabilities(&reg, true)),
                            true,
                        ))
                    })
                }
                Method::SubscriptionsListen if modern => {
                    Box::pin(self.listen(rq, &params, env, &self.capabilities(&reg, true))).await
                }
                Method::ToolsList if has("tools") => self.tools_list(rq, &params, env, &reg),
                Method::ToolsCall if has("tools") => {
                    match self.search_call(rq, params, env, &reg) {
                        Ok(params) => self.call(rq, params, env, &digest).await,
                        Err(answer) => answer,
                    }
                }
                Method::ToolsSearch if self.inner.options.tool_search_method && has("tools") => {
                    self.search_method(rq, &params, env, &reg)
                }
                Method::ResourcesList if has("resources") => {
                    self.resources_list(rq, &params, env, &reg)
                }
                Method::ResourcesTemplatesList if has("resources") => {
                    self.templates_list(rq, &params, env, &reg)
                }
                Method::ResourcesRead if has("resources") => {
                    self.call(rq, params, env, &digest).await
                }
                Method::PromptsList if has("prompts") => self.prompts_list(rq, &params, env, &reg),
                Method::PromptsGet if has("prompts") => self.call(rq, params, env, &digest).await,
                Method::CompletionComplete if has("completions") => {
                    self.call(rq, params, env, &digest).await
                }
                Method::SkillsList if has("skills") => self.skills_list(rq, &params, env, &reg),
                Method::SkillsGet if has("skills") => self.skills_get(rq, &params, env, &reg),
                Method::ResourcesDirectoryRead if has("skills") => {
                    self.directory_read(rq, &params, env, &reg)
                }
                Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => {
                    Box::pin(self.audited_task_method(rq, &params, env)).await
                }
                Method::Other(_) => Box::pin(self.custom_method(rq, params, env, digest)).await,
                m => McpError::method_not_found(m.as_str()).into(),
            }
        }
    }

    /// `make`'s answer, serialised once per registry version when every caller gets the same
    /// one: no caller (an allow-list filters per caller) and no cursor (the first page). Errors
    /// are never kept. HTTP only: the stdio writer takes values (it would parse the bytes again).
    pub(super) fn rendered(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
        reg: &Registry,
        kind: Rk,
        make: impl FnOnce() -> Outcome,
    ) -> Outcome {
        if env.transport != Transport::Http
            || env.caller.is_some()
            || params.get("cursor").is_some_and(|c| !c.is_null())
        {
            return make();
        }
        let mut other = None;
        let kept =
            reg.rendered.get_or(
                kind,
                rq.era == Era::Modern,
                self.private_cache(),
                || match make() {
                    Outcome::Result(v) => serde_json::value::to_raw_value(&v).ok().map(Arc::from),
                    o => {
                        other = Some(o);
                        None
                    }
                },
            );
        match (kept, other) {
            (Some(r), _) => Outcome::Rendered(r),
            (None, Some(o)) => o,
            (None, None) => McpError::internal("the answer could not be serialised").into(),
        }
    }

    /// Cache hints say `private` (auth is on, or the options force it).
    fn private_cache(&self) -> bool {
        self.inner.options.force_private_cache || self.inner.auth_on.load(Ordering::Relaxed)
    }

    /// Shape a complete result for the request's era: `resultType`, cache hints and serverInfo
    /// for modern requests; the legacy schema untouched.
    pub(super) fn finish(
        &self,
        rq: &RequestInfo,
        mut result: Map<String, Value>,
        cacheable: bool,
    ) -> Value {
        if rq.era == Era::Modern {
            if cacheable {
                let mut hint = self.inner.options.cache_for(rq.method.as_str());
                if self.private_cache() {
                    hint.scope = super::options::CacheScope::Private;
                }
                result.insert("ttlMs".into(), Value::from(hint.ttl_ms));
                result.insert(
                    "cacheScope".into(),
                    Value::String(hint.scope.as_str().into()),
                );
            }
            super::answer::shape_modern(&mut result, self.server_info().map(|i| &i.value));
        }
        Value::Object(result)
    }

    /// The serverInfo modern results carry in `_meta`, unless the options leave it out.
    pub(super) fn server_info(&self) -> Option<&Arc<super::answer::ServerInfo>> {
        self.inner
            .options
            .include_server_info
            .then_some(&self.inner.info)
    }

    pub(crate) fn add_server_info(&self, result: &mut Map<String, Value>) {
        if let Some(info) = self.server_info() {
            super::answer::insert_server_info(result, &info.value);
        }
    }

    pub(super) fn discover(&self, caps: &Value) -> Map<String, Value> {
        let mut r = Map::new();
        r.insert("supportedVersions".into(), json!(SUPPORTED_VERSIONS));
        r.insert("capabilities".into(), caps.clone());
        if let Some(i) = &self.inner.instructions {
            r.insert("instructions".into(), Value::String(i.clone()));
        }
        r
    }

    /// One page of `items`. Only the page is rendered (a tool's descriptor is put together
    /// here, the other kinds are copied) and the items after it are not walked, so the first
    /// page costs the same with 10 or 10,000 entries; a later page walks the ones before it.
    pub(super) fn list<T>(
        &self,
        rq: &RequestInfo,
        params: &Params,
        items: impl Iterator<Item = T>,
        render: impl Fn(T) -> Value,
        key: &str,
        meta: Map<String, Value>,
    ) -> Outcome {
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => match decode_cursor(c) {
                Some(o) => o,
                None => return McpError::invalid_params("Invalid cursor").into(),
            },
            Some(_) => return McpError::invalid_params("Invalid cursor").into(),
        };
        let mut items = items.peekable();
        // A cursor past the end is invalid; one exactly at the end is an empty last page.
        for _ in 0..start {
            if items.next().is_none() {
                return McpError::invalid_params("Invalid cursor").into();
            }
        }
        let size = self.inner.options.page_size.max(1);
        let page: Vec<Value> = items.by_ref().take(size).map(render).collect();
        let mut r = Map::new();
        r.insert(key.into(), Value::Array(page));
        if !meta.is_empty() {
            r.insert("_meta".into(), Value::Object(meta));
        }
        if items.peek().is_some() {
            r.insert(
                "nextCursor".into(),
                Value::String(encode_cursor(start + size)),
            );
        }
        Outcome::Result(self.finish(rq, r, true))
    }

    pub(crate) fn context(
        &self,
        rq: &RequestInfo,
        env: &Env,
        input: InputState,
        cancel: CancellationToken,
    ) -> Context {
        let progress_token = rq
            .meta
            .get("progressToken")
            .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
            .cloned();
        Context {
            inner: Arc::new(ContextInner {
                request_id: rq.id.clone(),
                // Every link and the handler of one request build their context from the same
                // `RequestInfo`, which lives (pinned) until the request is answered.
                request_key: std::ptr::from_ref(rq) as usize,
                transport: env.transport,
                session_id: env.session.as_ref().and_then(|s| s.id.clone()),
                method: rq.method.clone(),
                era: rq.era,
                protocol_version: rq.version.clone(),
                client_info: rq.client_info.clone(),
                client_capabilities: rq.caps.clone(),
                caller: env.caller.clone(),
                http: env.http.clone(),
                meta: Arc::clone(&rq.meta),
                cancel,
                progress_token,
                log: rq.log.clone(),
                sink: env.sink.clone(),
                requests: (rq.era == Era::Legacy).then(|| self.inner.client_requests.clone()),
                input: Mutex::new(input),
                last_progress: Mutex::new(None),
                task: None,
                session: env
                    .session
                    .as_ref()
                    .filter(|_| rq.era == Era::Legacy)
                    .map(|s| {
                        let handle = super::SessionHandle::new(self.clone(), Arc::clone(s));
                        Arc::new(handle) as Arc<dyn std::any::Any + Send + Sync>
                    }),
            }),
        }
    }

    /// Answers and handler state carried by a modern retry (`inputResponses`, `requestState`).
    pub(super) fn mrtr_input(
        &self,
        rq: &RequestInfo,
        name: &str,
        params: &Params,
        env: &Env,
        args_digest: super::mrtr::ArgsDigest,
    ) -> Result<InputState, McpError> {
        let mut st = InputState {
            args_digest,
            ..InputState::default()
        };
        if rq.era != Era::Modern {
            return Ok(st);
        }
        // The keys the sealing round asked for; `None` without a state (a first round).
        let mut asked: Option<Vec<String>> = None;
        match params.get("requestState") {
            None | Some(Value::Null) => {}
            Some(Value::String(tok)) => {
                let caller = env.caller.as_ref().map(|c| c.key());
                let digest = st.args_digest.get()?;
                let binding = super::mrtr::Binding {
                    method: rq.method.as_str(),
                    name,
                    caller: caller.as_deref(),
                    args: &digest,
                };
                let (p, keys) = self.inner.sealer.open(tok, &binding)?;
                if let Some(Value::Object(a)) = p.get("a") {
                    st.answers = a.clone();
                }
                st.user_state = p.get("u").filter(|u| !u.is_null()).cloned();
                asked = Some(keys);
            }
            Some(_) => return Err(McpError::invalid_params("requestState must be a string")),
        }
        match params.get("inputResponses") {
            None => {}
            Some(Value::Object(m)) => {
                for (k, v) in m {
                    // Answers to requests the sealing round did not make are ignored (the spec:
                    // SHOULD ignore unknown keys): they may not overwrite a sealed answer.
                    if asked.as_ref().is_none_or(|a| a.contains(k)) {
                        st.answers.insert(k.clone(), v.clone());
                    }
                }
            }
            Some(_) => return Err(McpError::invalid_params("inputResponses must be an object")),
        }
        Ok(st)
    }

    /// The `input_required` result for a handler that asked for input it does not have yet.
    pub(super) fn input_required(
        &self,
        rq: &RequestInfo,
        name: &str,
        ctx: &Context,
        env: &Env,
    ) -> Outcome {
        let (pending, answers, user_state) = ctx.take_pending();
        if rq.era != Era::Modern || pending.is_empty() {
            return McpError::internal("handler asked for input outside an input request").into();
        }
        let digest = match ctx.args_digest().get() {
            Ok(d) => d,
            Err(e) => return e.into(),
        };
        let caller = env.caller.as_ref().map(|c| c.key());
        let asked: Vec<&str> = pending.iter().map(|(k, _)| k.as_str()).collect();
        let state = self.inner.sealer.seal(
            &super::mrtr::Binding {
                method: rq.method.as_str(),
                name,
                caller: caller.as_deref(),
                args: &digest,
            },
            &asked,
            json!({"a": answers, "u": user_state}),
        );
        let mut r = Map::new();
        r.insert("resultType".into(), Value::String("input_required".into()));
        r.insert(
            "inputRequests".into(),
            Value::Object(pending.into_iter().collect()),
        );
        r.insert("requestState".into(), Value::String(state));
        self.add_server_info(&mut r);
        Outcome::Result(Value::Object(r))
    }
}
