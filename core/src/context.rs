//! The per-request context every handler receives. It is the one place where handlers touch the
//! protocol: progress, logging and input requests go through it, so the same handler code serves
//! modern (MRTR) and legacy (server→client request) clients.

pub(crate) use crate::client_requests::{ClientRequests, Sink};
use crate::error::{HandlerError, InputRequired, McpError};
pub use crate::identity::Caller;
pub use crate::protocol::InputRequest;
use crate::protocol::{ClientCapability, Era, LogLevel};
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// How log notifications are filtered for this request.
#[derive(Clone)]
pub(crate) enum LogFilter {
    /// Modern: the request's own `logLevel`, or no logs at all.
    Request(Option<LogLevel>),
    /// Legacy: the session's level as set by `logging/setLevel` (None = everything).
    Session(Arc<Mutex<Option<LogLevel>>>),
}

/// What [`Context::take_pending`] hands over when a call stops for input: the [`InputState`]'s
/// `pending` requests (taken), its `answers` and its `user_state`.
pub(crate) type PendingInput = (Vec<(String, Value)>, Map<String, Value>, Option<Value>);

/// Input-request bookkeeping for one call (MRTR on modern requests).
#[derive(Default)]
pub(crate) struct InputState {
    /// Every answer known so far: from the sealed state and from this request's `inputResponses`.
    pub(crate) answers: Map<String, Value>,
    /// Requests the handler asked for that have no answer yet.
    pub(crate) pending: Vec<(String, Value)>,
    /// The handler's own state (`set_request_state`).
    pub(crate) user_state: Option<Value>,
    /// The digest of the call's arguments a sealed state is bound to.
    pub(crate) args_digest: crate::request::ArgsDigest,
    /// A legacy client's answers as it wrote them, by key (see [`Context::answer_text`]).
    pub(crate) texts: Vec<(String, Box<str>)>,
}

pub(crate) struct ContextInner {
    pub(crate) request_id: Value,
    /// See [`Context::request_key`]: the address of the request being served.
    pub(crate) request_key: usize,
    /// The transport the request arrived on.
    pub(crate) transport: crate::request::Transport,
    /// The legacy session's id (`Mcp-Session-Id`); None on stdio, modern requests and stateless HTTP.
    pub(crate) session_id: Option<String>,
    pub(crate) method: crate::protocol::Method,
    pub(crate) era: Era,
    pub(crate) protocol_version: std::borrow::Cow<'static, str>,
    /// A legacy request's (its session's); `None` for a modern one, read from `meta`.
    pub(crate) client_info: Option<Value>,
    /// A legacy request's (its session's); `None` for a modern one, read from `meta`.
    pub(crate) client_capabilities: Option<Value>,
    pub(crate) caller: Option<Caller>,
    pub(crate) http: Option<Arc<crate::request::HttpRequestInfo>>,
    pub(crate) meta: Arc<crate::protocol::RequestMeta>,
    pub(crate) cancel: CancellationToken,
    pub(crate) progress_token: Option<Value>,
    pub(crate) log: LogFilter,
    pub(crate) sink: Option<Sink>,
    pub(crate) requests: Option<Arc<ClientRequests>>,
    pub(crate) input: Mutex<InputState>,
    pub(crate) last_progress: Mutex<Option<f64>>,
    /// Set when this call may become (or has become) a task: then input requests and progress
    /// go to the task instead of the request (see `crate::tasks`).
    pub(crate) task: Option<Arc<crate::tasks::TaskSlot>>,
    /// A legacy request's session (stdio's, or a stateful HTTP server's `Mcp-Session-Id`): the
    /// server layer's `SessionHandle`, held opaque because the context sits below the server;
    /// `SessionHandle::of` gives it back.
    pub(crate) session: Option<Arc<dyn std::any::Any + Send + Sync>>,
}

/// What a handler knows about its request, and how it talks back. Cheap to clone.
#[derive(Clone)]
pub struct Context {
    pub(crate) inner: Arc<ContextInner>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("request_id", &self.inner.request_id)
            .field("method", &self.inner.method)
            .field("era", &self.inner.era)
            .finish()
    }
}

fn num(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        json!(x as i64)
    } else {
        json!(x)
    }
}

impl Context {
    pub fn request_id(&self) -> &Value {
        &self.inner.request_id
    }
    /// A key of the request this context serves, the same in every middleware link and the
    /// handler of it, and unique among the requests being served (a host pairs what its
    /// middleware and its handler see of one request by it; it may be reused once the request
    /// has been answered).
    pub fn request_key(&self) -> usize {
        self.inner.request_key
    }
    /// The JSON-RPC method being served (`tools/call`, `prompts/get`, `resources/read`, ...).
    pub fn method(&self) -> &str {
        self.inner.method.as_str()
    }
    pub fn era(&self) -> Era {
        self.inner.era
    }
    /// The transport the request arrived on (compat layers report it, e.g. FastMCP's `ctx.transport`).
    pub fn transport(&self) -> crate::request::Transport {
        self.inner.transport
    }
    /// The legacy HTTP session's id; None on stdio (one implicit session), modern and stateless requests.
    pub fn session_id(&self) -> Option<&str> {
        self.inner.session_id.as_deref()
    }
    pub fn protocol_version(&self) -> &str {
        &self.inner.protocol_version
    }
    /// Self-reported by the client: never base security decisions on it.
    pub fn client_info(&self) -> Option<&Value> {
        let i = &self.inner;
        crate::request::client_info(i.client_info.as_ref(), i.era, &i.meta)
    }
    pub fn client_capabilities(&self) -> &Value {
        let i = &self.inner;
        crate::request::client_caps(i.client_capabilities.as_ref(), i.era, &i.meta)
    }
    pub fn supports(&self, cap: ClientCapability) -> bool {
        cap.declared_in(self.client_capabilities())
    }
    pub fn caller(&self) -> Option<&Caller> {
        self.inner.caller.as_ref()
    }
    /// The HTTP request that carried this message (method, path, query, headers, peer); `None`
    /// on stdio and in-process. What FastMCP's `get_http_request()` reads.
    pub fn http_request(&self) -> Option<&crate::request::HttpRequestInfo> {
        self.inner.http.as_deref()
    }
    /// The request's `_meta` object.
    pub fn meta(&self) -> &Map<String, Value> {
        self.inner.meta.whole()
    }
    pub fn traceparent(&self) -> Option<&str> {
        self.inner.meta.get("traceparent").and_then(Value::as_str)
    }
    pub fn progress_token(&self) -> Option<&Value> {
        self.inner.progress_token.as_ref()
    }
    /// Fires when the client cancels or disconnects (modern HTTP), or the server shuts down.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.inner.cancel
    }
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.is_cancelled()
    }

    fn send(&self, msg: Value) -> bool {
        if self.inner.cancel.is_cancelled() {
            return false;
        }
        match &self.inner.sink {
            Some(s) => s.send(msg).is_ok(),
            None => false,
        }
    }

    /// Send `notifications/progress` when the request carried a `progressToken`. Values that do
    /// not increase are dropped (the spec requires increasing progress).
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        if let Some(task) = self.inner.task.as_ref().and_then(|t| t.link()) {
            let text = match (message, total) {
                (Some(m), _) => m,
                (None, Some(t)) => format!("{}/{}", num(progress), num(t)),
                (None, None) => num(progress).to_string(),
            };
            task.set_message(text);
            return;
        }
        let Some(token) = &self.inner.progress_token else {
            return;
        };
        {
            let mut last = self
                .inner
                .last_progress
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if last.is_some_and(|l| progress <= l) {
                return;
            }
            *last = Some(progress);
        }
        let mut params = Map::new();
        params.insert("progressToken".into(), token.clone());
        params.insert("progress".into(), num(progress));
        if let Some(t) = total {
            params.insert("total".into(), num(t));
        }
        if let Some(m) = message {
            params.insert("message".into(), Value::String(m));
        }
        self.send(json!({"jsonrpc":"2.0","method":"notifications/progress","params":params}));
    }

    /// Whether a message at `level` would be sent for this request.
    pub fn log_enabled(&self, level: LogLevel) -> bool {
        match &self.inner.log {
            LogFilter::Request(min) => min.is_some_and(|m| level >= m),
            LogFilter::Session(min) => {
                let min = *min.lock().unwrap_or_else(|e| e.into_inner());
                min.is_none_or(|m| level >= m)
            }
        }
    }

    /// Send `notifications/message` if the request (modern `_meta` logLevel) or the session
    /// (legacy `logging/setLevel`) asked for this level.
    pub async fn log(&self, level: LogLevel, data: Value, logger: Option<String>) {
        if !self.log_enabled(level) {
            return;
        }
        let mut params = Map::new();
        params.insert("level".into(), json!(level.as_str()));
        if let Some(l) = logger {
            params.insert("logger".into(), Value::String(l));
        }
        params.insert("data".into(), data);
        self.send(json!({"jsonrpc":"2.0","method":"notifications/message","params":params}));
    }

    /// The handler's state from the previous MRTR round (modern), if any.
    pub fn request_state(&self) -> Option<Value> {
        self.inner
            .input
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .user_state
            .clone()
    }
    /// State to carry into the next MRTR round; the core seals it (integrity-protected, expiring).
    pub fn set_request_state(&self, state: Value) {
        self.inner
            .input
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .user_state = Some(state);
    }

    /// Ask the user (form or URL elicitation). Returns the `ElicitResult` (`{action, content?}`).
    pub async fn elicit(&self, key: &str, params: Value) -> Result<Value, HandlerError> {
        self.input(key, InputRequest::Elicit(params)).await
    }
    /// Ask the client's model (`sampling/createMessage`). Returns the `CreateMessageResult`.
    pub async fn sample(&self, key: &str, params: Value) -> Result<Value, HandlerError> {
        self.input(key, InputRequest::Sample(params)).await
    }
    /// Ask for the client's roots. Returns the `ListRootsResult` (`{roots}`).
    pub async fn list_roots(&self, key: &str) -> Result<Value, HandlerError> {
        self.input(key, InputRequest::ListRoots).await
    }
    pub async fn input(&self, key: &str, req: InputRequest) -> Result<Value, HandlerError> {
        let mut v = self.inputs(vec![(key.to_string(), req)]).await?;
        Ok(v.pop().unwrap_or(Value::Null))
    }

    /// Ask for several inputs in one round. Modern: answered keys return at once; otherwise the
    /// call fails with `HandlerError::InputRequired` (propagate it with `?`) and the core answers
    /// `input_required` listing every outstanding request. Legacy: each becomes a real
    /// server→client request, awaited in turn.
    pub async fn inputs(
        &self,
        reqs: Vec<(String, InputRequest)>,
    ) -> Result<Vec<Value>, HandlerError> {
        for (_, r) in &reqs {
            let cap = r.capability();
            if !self.supports(cap) {
                return Err(McpError::missing_capability(cap.required_json()).into());
            }
        }
        let mut reqs = reqs;
        if let Some(slot) = &self.inner.task {
            // Once the call is a task, inputs wait for `tasks/update`; before that they are
            // ordinary MRTR rounds (decided under the slot's lock, so a call never does both).
            let routed = {
                let mut st = slot.lock();
                match st.link.clone() {
                    Some(task) => Err((task, std::mem::take(&mut reqs))),
                    None if self.inner.era == Era::Modern => {
                        let r = self.inputs_modern(std::mem::take(&mut reqs));
                        if matches!(r, Err(HandlerError::InputRequired(_))) {
                            st.mrtr_asked = true;
                        }
                        Ok(Some(r))
                    }
                    None => Ok(None),
                }
            };
            match routed {
                Err((task, reqs)) => return task.ask(reqs, &self.inner.cancel).await,
                Ok(Some(r)) => return r,
                Ok(None) => {}
            }
        }
        match self.inner.era {
            Era::Modern => self.inputs_modern(reqs),
            Era::Legacy => self.inputs_legacy(reqs).await,
        }
    }

    fn inputs_modern(&self, reqs: Vec<(String, InputRequest)>) -> Result<Vec<Value>, HandlerError> {
        let mut st = self.inner.input.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = Vec::with_capacity(reqs.len());
        let mut missing = false;
        for (key, req) in reqs {
            match st.answers.get(&key) {
                Some(a) if req.accepts(a) => out.push(a.clone()),
                Some(_) => {
                    return Err(McpError::invalid_params(format!(
                        "Invalid input response for '{key}'"
                    ))
                    .into());
                }
                None => {
                    missing = true;
                    if !st.pending.iter().any(|(k, _)| *k == key) {
                        st.pending.push((key, req.to_json()));
                    }
                }
            }
        }
        if missing {
            Err(HandlerError::InputRequired(InputRequired(())))
        } else {
            Ok(out)
        }
    }

    async fn inputs_legacy(
        &self,
        reqs: Vec<(String, InputRequest)>,
    ) -> Result<Vec<Value>, HandlerError> {
        let (Some(requests), Some(sink)) = (&self.inner.requests, &self.inner.sink) else {
            return Err(McpError::internal(
                "this request has no stream to send client requests on",
            )
            .into());
        };
        let mut out = Vec::with_capacity(reqs.len());
        for (key, req) in reqs {
            let (answer, text) = requests
                .request_answer(
                    sink,
                    self.inner.session_id.clone(),
                    req.method(),
                    req.params(),
                    &self.inner.cancel,
                )
                .await?;
            if let Some(text) = text {
                let mut st = self.inner.input.lock().unwrap_or_else(|e| e.into_inner());
                st.texts.retain(|(k, _)| *k != key);
                st.texts.push((key, text));
            }
            out.push(answer);
        }
        Ok(out)
    }

    /// The JSON text of the client's answer to input `key`, as the client wrote it, when a
    /// legacy transport kept it: the answer's parsed objects have their keys sorted, so a host
    /// that shows the client's order (a JS object's, a Python dict's) parses this instead.
    pub fn answer_text(&self, key: &str) -> Option<String> {
        let st = self.inner.input.lock().unwrap_or_else(|e| e.into_inner());
        st.texts
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, t)| t.to_string())
    }

    /// Take the outstanding input requests (for the dispatcher's `input_required` result).
    /// The digest of this call's arguments (what its MRTR state is bound to).
    pub(crate) fn args_digest(&self) -> crate::request::ArgsDigest {
        self.inner
            .input
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .args_digest
            .clone()
    }

    pub(crate) fn take_pending(&self) -> PendingInput {
        let mut st = self.inner.input.lock().unwrap_or_else(|e| e.into_inner());
        (
            std::mem::take(&mut st.pending),
            st.answers.clone(),
            st.user_state.clone(),
        )
    }
}
