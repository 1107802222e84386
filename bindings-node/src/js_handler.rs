//! JS callables as the core's handler traits. Each call goes through a *weak* threadsafe function
//! (it never keeps Node alive; callee-handled = false) with the call's arguments and its id in
//! the server's table of calls (`calls.rs`). What comes back is the JS layer's answer: a result as
//! JSON text (a string: `JSON.stringify` of `{result}`'s result, one string across napi and one
//! parse here, instead of an object read property by property) or an envelope
//! `{result}` | `{error: {code, message, data}}` | `{control}`, returned directly by a handler
//! that answered synchronously, or `undefined` and later `NativeServer.settle(id, answer)` for
//! one that returned a Promise. (Not napi's `Promise<T>` adapter: it wraps two callbacks per call,
//! and wrapped objects outlive V8's scavenges; see `calls.rs`.)

use crate::batch::Batcher;
use crate::calls::{Answer, Calls};
use crate::context::{CallGuard, CallState};
use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeCallContext, ThreadsafeFunction};
use napi_derive::napi;
use oxmcp::{
    BoxFuture, Completion, CompletionHandler, Context, ErrorCode, HandlerError, McpError,
    PromptHandler, PromptResult, RefusalWording, ResourceContents, ResourceHandler, ToolHandler,
    ToolResult,
};
use serde_json::{Map, Value};
use std::future::Future;
use std::sync::Arc;

/// The JS layer's answer for one call: exactly one of `result`, `error`, `control`.
#[napi(object)]
pub struct NativeEnvelope {
    /// The spec-shaped result (`CallToolResult`, `GetPromptResult`, contents array, completion).
    pub result: Option<Value>,
    /// A JSON-RPC error to answer with.
    pub error: Option<NativeRpcError>,
    /// `"CANCELLED"` or `"INPUT_REQUIRED"`: the handler stopped because of its `ctx`;
    /// `"INTERNAL"`: it threw; `"INVALID_ARGUMENTS"`: zod refused the arguments (`error.data`);
    /// `"LIST"`: a tool returned a list with no outputSchema (`result`, for the core's rule).
    pub control: Option<String>,
}

#[napi(object)]
pub struct NativeRpcError {
    pub code: i32,
    pub message: String,
    pub data: Option<Value>,
}

/// A JS handler's answer: its result as JSON text, or an envelope.
pub(crate) type JsAnswer = Either<String, NativeEnvelope>;

/// What every JS handler returns: its answer, or nothing when it will `settle` later.
pub(crate) type JsReturn = Option<JsAnswer>;

pub(crate) type Tsfn<T, A> = ThreadsafeFunction<T, JsReturn, A, Status, false, true>;

/// A call's id as JS sees it (a number; ids stay below 2^53).
type CallId = i64;

pub(crate) struct ToolCall {
    /// The arguments as JSON text: one string across napi and one `JSON.parse` in JS, instead
    /// of an object built property by property with napi calls.
    args: String,
    id: CallId,
    name: Arc<str>,
}
pub(crate) struct ReadCall {
    uri: String,
    vars: Value,
    id: CallId,
}
pub(crate) struct PromptCall {
    args: Value,
    id: CallId,
}
pub(crate) struct CompleteCall {
    argument: String,
    value: String,
    context_args: Value,
    id: CallId,
}

pub(crate) struct MiddlewareCall {
    method: String,
    params: Value,
    id: CallId,
}

pub(crate) type ToolArgs = FnArgs<(Value, CallId)>;
/// A middleware call: `(method, params, callId)`; `NativeServer.callNext(callId, params)` goes on.
pub(crate) type MiddlewareArgs = FnArgs<(String, Value, CallId)>;
/// `(method, params, callId) => envelope | undefined`
pub(crate) type MiddlewareFn<'a> = Function<'a, MiddlewareArgs, JsReturn>;
/// A tool call: `(argsJson, callId, toolName)`; the name lets one dispatcher serve every tool.
pub(crate) type ToolCallArgs = FnArgs<(String, CallId, String)>;
pub(crate) type ReadArgs = FnArgs<(String, Value, CallId)>;
pub(crate) type CompleteArgs = FnArgs<(String, String, Value, CallId)>;

/// `(args, callId) => envelope | undefined` (prompts)
pub(crate) type ToolFn<'a> = Function<'a, ToolArgs, JsReturn>;
/// `(argsJson, callId, toolName) => answer | undefined`
pub(crate) type ToolDispatchFn<'a> = Function<'a, ToolCallArgs, JsReturn>;
/// `(uri, vars, callId) => envelope | undefined`
pub(crate) type ReadFn<'a> = Function<'a, ReadArgs, JsReturn>;
/// `(argument, value, contextArgs, callId) => envelope | undefined`
pub(crate) type CompleteFn<'a> = Function<'a, CompleteArgs, JsReturn>;

pub(crate) fn tool_tsfn(f: &ToolDispatchFn<'_>) -> Result<Tsfn<ToolCall, ToolCallArgs>> {
    f.build_threadsafe_function::<ToolCall>()
        .weak::<true>()
        .callee_handled::<false>()
        .build_callback(|c: ThreadsafeCallContext<ToolCall>| {
            Ok(FnArgs::from((
                c.value.args,
                c.value.id,
                c.value.name.to_string(),
            )))
        })
}
pub(crate) fn middleware_tsfn(
    f: &MiddlewareFn<'_>,
) -> Result<Tsfn<MiddlewareCall, MiddlewareArgs>> {
    f.build_threadsafe_function::<MiddlewareCall>()
        .weak::<true>()
        .callee_handled::<false>()
        .build_callback(|c: ThreadsafeCallContext<MiddlewareCall>| {
            Ok(FnArgs::from((c.value.method, c.value.params, c.value.id)))
        })
}
pub(crate) fn prompt_tsfn(f: &ToolFn<'_>) -> Result<Tsfn<PromptCall, ToolArgs>> {
    f.build_threadsafe_function::<PromptCall>()
        .weak::<true>()
        .callee_handled::<false>()
        .build_callback(|c: ThreadsafeCallContext<PromptCall>| {
            Ok(FnArgs::from((c.value.args, c.value.id)))
        })
}
pub(crate) fn read_tsfn(f: &ReadFn<'_>) -> Result<Tsfn<ReadCall, ReadArgs>> {
    f.build_threadsafe_function::<ReadCall>()
        .weak::<true>()
        .callee_handled::<false>()
        .build_callback(|c: ThreadsafeCallContext<ReadCall>| {
            Ok(FnArgs::from((c.value.uri, c.value.vars, c.value.id)))
        })
}
pub(crate) fn complete_tsfn(f: &CompleteFn<'_>) -> Result<Tsfn<CompleteCall, CompleteArgs>> {
    f.build_threadsafe_function::<CompleteCall>()
        .weak::<true>()
        .callee_handled::<false>()
        .build_callback(|c: ThreadsafeCallContext<CompleteCall>| {
            Ok(FnArgs::from((
                c.value.argument,
                c.value.value,
                c.value.context_args,
                c.value.id,
            )))
        })
}

fn internal(what: &str, detail: impl std::fmt::Display) -> HandlerError {
    HandlerError::Mcp(McpError::internal(format!("{what}: {detail}")))
}

/// What a handler call produced: a JSON value, or a result as the JSON text the JS layer made.
pub(crate) enum Output {
    Value(Value),
    Json(String),
}

impl Output {
    /// The spec-shaped result, parsed straight from the text when there is one (no `Value` in
    /// between). A text that does not fit is parsed again as a value, so that the error says what
    /// it says for an object (serde's position in a text nobody sees is no help).
    fn decode<T: serde::de::DeserializeOwned>(
        self,
        what: &str,
    ) -> std::result::Result<T, HandlerError> {
        let v = match self {
            Output::Value(v) => v,
            Output::Json(s) => match serde_json::from_str(&s) {
                Ok(t) => return Ok(t),
                Err(_) => serde_json::from_str::<Value>(&s).map_err(|e| {
                    internal(what, format!("the handler's result is not JSON: {e}"))
                })?,
            },
        };
        serde_json::from_value(v).map_err(|e| bad_result(what, e))
    }
}

/// The JS side of one call (`hop`: the handler's return value): its answer, returned directly or
/// settled later.
async fn call_js(
    hop: impl Future<Output = napi::Result<JsReturn>>,
    later: tokio::sync::oneshot::Receiver<Answer>,
    guard: &CallGuard,
    what: &str,
) -> std::result::Result<JsAnswer, HandlerError> {
    let ret = hop.await.map_err(|e| {
        if e.status == Status::InvalidArg
            || e.status == Status::ObjectExpected
            || e.status == Status::GenericFailure && e.reason.contains("Either")
        {
            internal(
                what,
                "the JS handler returned neither a value nor a Promise",
            )
        } else {
            internal(
                what,
                format!("calling the JS handler failed ({})", e.status),
            )
        }
    })?;
    match ret {
        Some(env) => {
            guard.answered();
            Ok(env)
        }
        None => match later.await {
            Ok(Ok(env)) => Ok(env),
            Ok(Err(e)) => Err(internal(
                what,
                format!("the JS handler's Promise failed ({})", e.status),
            )),
            Err(_) => Err(internal(what, "the JS handler's answer was lost")),
        },
    }
}

/// Where a call's JS side lives: the threadsafe function and the server's table of calls.
pub(crate) struct JsCallee<T: 'static, A: JsValuesTupleIntoVec + 'static> {
    pub(crate) tsfn: Tsfn<T, A>,
    pub(crate) calls: Arc<Calls>,
}

/// Run one handler call: registered in the table of calls (`make` builds the JS arguments from
/// its id), cut short by cancellation, and combined with what `ctx` recorded (an unanswered
/// input request wins). The core bounds every call (the registration's timeout or the server's
/// `tool_timeout`); dropping this future marks the call timed out.
async fn run_call<T: 'static, A: JsValuesTupleIntoVec + 'static>(
    callee: &JsCallee<T, A>,
    ctx: Context,
    what: &str,
    make: impl FnOnce(CallId) -> T,
) -> std::result::Result<Output, HandlerError> {
    let hop = |v| callee.tsfn.call_async_catch(v);
    run_call_next(&callee.calls, hop, ctx, what, None, make).await
}

/// [`run_call`] through any hop (`hop` hands the call's value to JS), with a middleware's `next`
/// (what `NativeServer.callNext` runs).
async fn run_call_next<T, F: Future<Output = napi::Result<JsReturn>>>(
    calls: &Arc<Calls>,
    hop: impl FnOnce(T) -> F,
    ctx: Context,
    what: &str,
    next: Option<oxmcp::Next>,
    make: impl FnOnce(CallId) -> T,
) -> std::result::Result<Output, HandlerError> {
    let cancel = ctx.cancellation().clone();
    let call = CallState::new(ctx);
    *call.next.lock().unwrap_or_else(|e| e.into_inner()) = next;
    let (id, later) = calls.start(call.clone());
    let guard = CallGuard::new(call.clone(), calls.clone(), id);
    let fut = call_js(hop(make(id as CallId)), later, &guard, what);
    let r = tokio::select! {
        r = fut => r,
        _ = cancel.cancelled() => Err(HandlerError::Cancelled),
    };
    let out = match call.take_input_required() {
        Some(e) if !matches!(r, Err(HandlerError::Cancelled)) => Err(e),
        _ => match r.and_then(|env| open_envelope(env, what)) {
            Err(HandlerError::Mcp(e)) => Err(HandlerError::Mcp(
                call.take_mcp_error(e.code.0).unwrap_or(e),
            )),
            other => other,
        },
    };
    if !cancel.is_cancelled() {
        guard.finish();
    } // else the guard's drop records a cancellation, and the JS signal aborts
    out
}

/// JSON text or `{result}` → Ok; `{error}` → JSON-RPC error; `{control}` → cancellation / misuse.
fn open_envelope(answer: JsAnswer, what: &str) -> std::result::Result<Output, HandlerError> {
    let env = match answer {
        Either::A(json) => return Ok(Output::Json(json)),
        Either::B(env) => env,
    };
    if env.control.as_deref() == Some("INTERNAL") {
        // An unexpected throw: the core's internal-error text, with the detail the JS layer
        // chose to show (`exposeErrors`) in `error.message`.
        return Err(HandlerError::Internal(env.error.map(|e| e.message)));
    }
    if env.control.as_deref() == Some("INVALID_ARGUMENTS") {
        // zod refused the arguments: `error.data` lists `{path, message}`; the core renders it.
        let v = env
            .error
            .and_then(|e| e.data)
            .and_then(|d| match d {
                Value::Array(a) => Some(
                    a.iter()
                        .filter_map(oxmcp::schema::Violation::from_host)
                        .collect(),
                ),
                _ => None,
            })
            .unwrap_or_default();
        return Err(HandlerError::InvalidArguments(v));
    }
    if env.control.as_deref() == Some("LIST") {
        // A tool's list with no outputSchema: the core's rule makes it content.
        let items = match env.result {
            Some(Value::Array(a)) => a,
            Some(other) => vec![other],
            None => Vec::new(),
        };
        return serde_json::to_value(oxmcp::ToolResult::from_list(items))
            .map(Output::Value)
            .map_err(|e| internal(what, e.to_string()));
    }
    if let Some(r) = env.result {
        return Ok(Output::Value(r));
    }
    if let Some(e) = env.error {
        let mut err = McpError::new(ErrorCode(e.code), e.message);
        if let Some(d) = e.data.filter(|d| !d.is_null()) {
            err = err.with_data(d);
        }
        return Err(HandlerError::Mcp(err));
    }
    match env.control.as_deref() {
        Some("CANCELLED") => Err(HandlerError::Cancelled),
        Some("INPUT_REQUIRED") => Err(internal(
            what,
            "an input-required error was raised outside this call's ctx",
        )),
        _ => Err(internal(what, "the JS layer returned an empty envelope")),
    }
}

fn bad_result(what: &str, e: serde_json::Error) -> HandlerError {
    internal(
        what,
        format!("the handler's result is not spec-shaped: {e}"),
    )
}

/// How a tool's calls reach JS: its own threadsafe function, or the server's dispatcher, which
/// takes them in batches (`batch.rs`).
pub(crate) enum ToolHop {
    Own(Arc<JsCallee<ToolCall, ToolCallArgs>>),
    Dispatcher {
        batcher: Arc<Batcher>,
        calls: Arc<Calls>,
    },
}

pub(crate) struct JsTool {
    name: Arc<str>,
    /// `tool "name"`, for errors (made once, not per call).
    what: Arc<str>,
    hop: ToolHop,
}

impl JsTool {
    pub(crate) fn new(name: Arc<str>, hop: ToolHop) -> Self {
        Self {
            what: format!("tool {name:?}").into(),
            name,
            hop,
        }
    }
}

impl ToolHandler for JsTool {
    fn call(
        &self,
        args: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<std::result::Result<ToolResult, HandlerError>> {
        let name = self.name.clone();
        let what = self.what.clone();
        // The core bounds tool calls (`Tool::timeout`); dropping this future marks the call timed out.
        let args = Value::Object(args).to_string();
        match &self.hop {
            ToolHop::Own(callee) => {
                let callee = callee.clone();
                Box::pin(async move {
                    run_call(&callee, ctx, &what, |id| ToolCall { args, id, name })
                        .await?
                        .decode(&what)
                })
            }
            ToolHop::Dispatcher { batcher, calls } => {
                let (batcher, calls) = (batcher.clone(), calls.clone());
                Box::pin(async move {
                    let hop = |(args, id, name)| batcher.call(args, id, name);
                    run_call_next(&calls, hop, ctx, &what, None, |id| (args, id, name))
                        .await?
                        .decode(&what)
                })
            }
        }
    }
}

pub(crate) struct JsResource {
    pub(crate) what: String,
    pub(crate) callee: Arc<JsCallee<ReadCall, ReadArgs>>,
}

impl ResourceHandler for JsResource {
    fn read(
        &self,
        uri: String,
        vars: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<std::result::Result<Vec<ResourceContents>, HandlerError>> {
        let callee = self.callee.clone();
        let what = self.what.clone();
        Box::pin(async move {
            let vars = Value::Object(vars);
            run_call(&callee, ctx, &what, |id| ReadCall { uri, vars, id })
                .await?
                .decode(&what)
        })
    }
}

pub(crate) struct JsPrompt {
    pub(crate) what: String,
    pub(crate) callee: Arc<JsCallee<PromptCall, ToolArgs>>,
}

impl PromptHandler for JsPrompt {
    fn get(
        &self,
        args: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<std::result::Result<PromptResult, HandlerError>> {
        let callee = self.callee.clone();
        let what = self.what.clone();
        Box::pin(async move {
            let args = Value::Object(args);
            run_call(&callee, ctx, &what, |id| PromptCall { args, id })
                .await?
                .decode(&what)
        })
    }
}

/// A method outside the spec (`Server::add_method`): `(params, id)`, as a prompt's handler.
pub(crate) struct JsMethod {
    pub(crate) what: String,
    pub(crate) callee: Arc<JsCallee<PromptCall, ToolArgs>>,
}

impl oxmcp::MethodHandler for JsMethod {
    fn call(
        &self,
        params: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<std::result::Result<Value, HandlerError>> {
        let callee = self.callee.clone();
        let what = self.what.clone();
        Box::pin(async move {
            let args = Value::Object(params);
            run_call(&callee, ctx, &what, |id| PromptCall { args, id })
                .await?
                .decode(&what)
        })
    }
}

/// A tool's wording of a refusal of its arguments (`registerTool`'s `refusalText`): the JS side
/// gets `{arguments, violations: [{pointer, message}]}` and answers the text, or null to keep the
/// core's.
pub(crate) struct JsWording {
    pub(crate) what: String,
    pub(crate) callee: Arc<JsCallee<PromptCall, ToolArgs>>,
}

impl RefusalWording for JsWording {
    fn word(
        &self,
        arguments: Map<String, Value>,
        violations: Vec<oxmcp::schema::Violation>,
        ctx: Context,
    ) -> BoxFuture<std::result::Result<Option<String>, HandlerError>> {
        let callee = self.callee.clone();
        let what = self.what.clone();
        let violations: Vec<Value> = violations
            .into_iter()
            .map(|v| serde_json::json!({"pointer": v.pointer, "message": v.message}))
            .collect();
        let args = serde_json::json!({"arguments": arguments, "violations": violations});
        Box::pin(async move {
            run_call(&callee, ctx, &what, |id| PromptCall { args, id })
                .await?
                .decode(&what)
        })
    }
}

pub(crate) struct JsCompletion {
    pub(crate) what: String,
    pub(crate) callee: Arc<JsCallee<CompleteCall, CompleteArgs>>,
}

impl CompletionHandler for JsCompletion {
    fn complete(
        &self,
        argument: String,
        value: String,
        context_args: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<std::result::Result<Completion, HandlerError>> {
        let callee = self.callee.clone();
        let what = self.what.clone();
        Box::pin(async move {
            let context_args = Value::Object(context_args);
            run_call(&callee, ctx, &what, |id| CompleteCall {
                argument,
                value,
                context_args,
                id,
            })
            .await?
            .decode(&what)
        })
    }
}

/// A JS middleware on the core's chain (`NativeServer.addMiddleware`): hooks `methods` (all when
/// None), so a request it does not hook never reaches JS.
pub(crate) struct JsMiddleware {
    pub(crate) callee: Arc<JsCallee<MiddlewareCall, MiddlewareArgs>>,
    pub(crate) methods: Option<std::collections::HashSet<String>>,
}

impl oxmcp::Middleware for JsMiddleware {
    fn hooks(&self, method: &str) -> bool {
        self.methods.as_ref().is_none_or(|m| m.contains(method))
    }
    fn handle(
        &self,
        req: oxmcp::MiddlewareRequest,
        next: oxmcp::Next,
    ) -> BoxFuture<oxmcp::MiddlewareResult> {
        let callee = self.callee.clone();
        let what = format!("middleware for {}", req.method);
        let method = req.method;
        let params = Value::Object(req.params);
        Box::pin(async move {
            let hop = |v| callee.tsfn.call_async_catch(v);
            run_call_next(&callee.calls, hop, req.ctx, &what, Some(next), |id| {
                MiddlewareCall { method, params, id }
            })
            .await?
            .decode(&what)
        })
    }
}
