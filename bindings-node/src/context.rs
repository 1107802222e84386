//! The per-call state shared by a JS handler call's Rust future and its JS `ctx`, and
//! `NativeCalls`: the core `Context` of each call as the JS layer's `ctx` sees it, addressed by the
//! call's id (no native object per call: see `calls.rs`).

use crate::calls::Calls;
use crate::errors::{self, coded, Code, Coded, Result};
use crate::js_handler::NativeEnvelope;
use futures::FutureExt;
use napi::bindgen_prelude::*;
use napi::threadsafe_function::UnknownReturnValue;
use napi_derive::napi;
use oxmcp::{ClientCapability, Context, HandlerError, InputRequest, LogLevel, McpError};
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

const RUNNING: u8 = 0;
const FINISHED: u8 = 1;
const DROPPED: u8 = 2;
const CANCELLED: u8 = 3;

/// What happened to one handler call, shared by the Rust future and the JS `ctx`.
pub(crate) struct CallState {
    outcome: AtomicU8,
    /// The JS `ctx.signal` of this call exists: tell JS how the call ended.
    pub(crate) watched: AtomicBool,
    /// An `InputRequired` raised inside `ctx.elicit()` & co: the call's answer is
    /// `input_required` whatever the JS handler did with the rejection.
    input_required: Mutex<Option<HandlerError>>,
    /// The last protocol error a `ctx` call raised (e.g. -32021): when the JS handler lets it
    /// propagate, the core answers with this original (it carries the HTTP status rule).
    mcp_error: Mutex<Option<McpError>>,
    /// The core context, released when the call ends: a JS handler may keep its `ctx`, which
    /// must not keep the request's notification sink (and so the transport) alive.
    ctx: Mutex<Option<Context>>,
    cancel: CancellationToken,
    /// A middleware call's rest of the chain (`NativeCalls.callNext`).
    pub(crate) next: Mutex<Option<oxmcp::Next>>,
}

impl CallState {
    pub(crate) fn new(ctx: Context) -> Arc<Self> {
        Arc::new(Self {
            outcome: AtomicU8::new(RUNNING),
            watched: AtomicBool::new(false),
            input_required: Mutex::new(None),
            mcp_error: Mutex::new(None),
            cancel: ctx.cancellation().clone(),
            ctx: Mutex::new(Some(ctx)),
            next: Mutex::new(None),
        })
    }
    /// How the call ended, as `ctx.signal` reports it: `None` while it runs, else "finished",
    /// "cancelled" (client cancel/disconnect or server shutdown) or "timed out" (the call was
    /// dropped before it finished).
    pub(crate) fn ending(&self) -> Option<&'static str> {
        match self.outcome.load(Ordering::SeqCst) {
            RUNNING => None,
            FINISHED => Some(FINISHED_REASON),
            DROPPED => Some("timed out"),
            _ => Some("cancelled"),
        }
    }
    /// The call ended, or is ending, before its handler finished: cancelled, or dropped.
    pub(crate) fn abandoned(&self) -> bool {
        self.cancel.is_cancelled() || self.ending().is_some_and(|r| r != FINISHED_REASON)
    }
    fn ctx(&self) -> Result<Context> {
        self.ctx
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(call_ended)
    }
    /// The `InputRequired` a `ctx` input call raised, if any (taken once).
    pub(crate) fn take_input_required(&self) -> Option<HandlerError> {
        self.input_required
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }
    /// The `McpError` a `ctx` call raised with this code, if any.
    pub(crate) fn take_mcp_error(&self, code: i32) -> Option<McpError> {
        let mut slot = self.mcp_error.lock().unwrap_or_else(|e| e.into_inner());
        if slot.as_ref().is_some_and(|e| e.code.0 == code) {
            slot.take()
        } else {
            None
        }
    }
    fn record(&self, e: HandlerError) {
        match e {
            HandlerError::InputRequired(_) => {
                *self
                    .input_required
                    .lock()
                    .unwrap_or_else(|e| e.into_inner()) = Some(e)
            }
            HandlerError::Mcp(m) => {
                *self.mcp_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(m)
            }
            _ => {}
        }
    }
}

/// `CallState::ending` of a call that ended normally.
pub(crate) const FINISHED_REASON: &str = "finished";

fn call_ended() -> Coded {
    coded(Code::CallEnded, "this ctx belongs to a call that has ended")
}

/// Marks the call finished when the handler future completes, or dropped (the core's timeout,
/// or the connection going away) when it is dropped first; then ends its entry in the table of
/// calls (which tells a JS `ctx.signal` how the call ended).
pub(crate) struct CallGuard {
    call: Arc<CallState>,
    calls: Arc<Calls>,
    id: u64,
    answered: AtomicBool,
}

impl CallGuard {
    pub(crate) fn new(call: Arc<CallState>, calls: Arc<Calls>, id: u64) -> Self {
        Self {
            call,
            calls,
            id,
            answered: AtomicBool::new(false),
        }
    }
    /// The JS handler answered synchronously (it will not `settle`).
    pub(crate) fn answered(&self) {
        self.answered.store(true, Ordering::Relaxed);
    }
    pub(crate) fn finish(self) {
        self.call.outcome.store(FINISHED, Ordering::SeqCst);
        // Drop runs next and ends the entry.
    }
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        // Dropped while running: by a timeout (the core cancels the token only after dropping
        // the future) or after a cancellation (the token fired first).
        let dropped = if self.call.cancel.is_cancelled() {
            CANCELLED
        } else {
            DROPPED
        };
        let _ = self.call.outcome.compare_exchange(
            RUNNING,
            dropped,
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
        self.call
            .ctx
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        self.calls
            .end(self.id, self.answered.load(Ordering::Relaxed));
    }
}

/// `(id, reason)`: call `id`, whose `ctx.signal` exists, ended; `reason` is null when it finished,
/// else "cancelled" or "timed out".
pub(crate) type EndFn<'a> = Function<'a, FnArgs<(i64, Option<&'static str>)>, UnknownReturnValue>;

/// The calls of one `NativeServer` as the JS `ctx` objects see them: every method takes the call's
/// id (the number a JS handler is called with). A call that has ended answers `CALL_ENDED`.
#[napi]
pub struct NativeCalls {
    pub(crate) calls: Arc<Calls>,
}

fn capability(name: &str) -> Result<ClientCapability> {
    Ok(match name {
        "elicitation" | "elicitation.form" => ClientCapability::Elicitation,
        "elicitation.url" => ClientCapability::ElicitationUrl,
        "sampling" => ClientCapability::Sampling,
        "sampling.tools" => ClientCapability::SamplingTools,
        "roots" => ClientCapability::Roots,
        other => {
            return Err(coded(Code::Napi(Status::InvalidArg),
                format!("unknown capability {other:?}; expected elicitation, elicitation.url, sampling, sampling.tools or roots"),
            ))
        }
    })
}

fn input_request(method: &str, params: Option<Value>) -> Result<InputRequest> {
    Ok(match method {
        "elicitation/create" => InputRequest::Elicit(params.unwrap_or_else(|| json!({}))),
        "sampling/createMessage" => InputRequest::Sample(params.unwrap_or_else(|| json!({}))),
        "roots/list" => InputRequest::ListRoots,
        other => {
            return Err(coded(Code::Napi(Status::InvalidArg),
                format!("unknown input method {other:?}; expected elicitation/create, sampling/createMessage or roots/list"),
            ))
        }
    })
}

/// What a settled JS handler answered (anything but an answer is reported as its failure).
fn answer(envelope: Either3<String, NativeEnvelope, Unknown<'_>>) -> crate::calls::Answer {
    match envelope {
        Either3::A(json) => Ok(Either::A(json)),
        Either3::B(env) => Ok(Either::B(env)),
        // Not for JS: the core reports it as the handler's failure.
        Either3::C(_) => Err(Error::new(
            Status::InvalidArg,
            "the JS layer settled with something that is not an envelope",
        )),
    }
}

/// One entry of `ctx.inputs([...])`.
#[napi(object)]
pub struct NativeInputRequest {
    pub key: String,
    pub method: String,
    pub params: Option<Value>,
}

#[napi]
impl NativeCalls {
    fn state(&self, id: i64) -> Result<Arc<CallState>> {
        u64::try_from(id)
            .ok()
            .and_then(|id| self.calls.state(id))
            .ok_or_else(call_ended)
    }
    fn ctx(&self, id: i64) -> Result<Context> {
        self.state(id)?.ctx()
    }

    /// The answer of call `id` whose handler returned a Promise: the result's JSON text or the
    /// envelope it settled with (anything else is reported as the handler's failure).
    #[napi]
    pub fn settle(&self, id: i64, envelope: Either3<String, NativeEnvelope, Unknown<'_>>) {
        if let Ok(id) = u64::try_from(id) {
            self.calls.settle(id, answer(envelope));
        }
    }

    /// `settle` for the calls whose Promises settled in one JS turn, `ids[i]` with `envelopes[i]`.
    #[napi]
    pub fn settle_many(
        &self,
        ids: Vec<i64>,
        envelopes: Vec<Either3<String, NativeEnvelope, Unknown<'_>>>,
    ) {
        self.calls.settle_many(
            ids.into_iter()
                .zip(envelopes)
                .filter_map(|(id, e)| Some((u64::try_from(id).ok()?, answer(e)))),
        );
    }

    /// Watch how call `id` ends, for its `ctx.signal`: null while it runs (the server's end
    /// listener hears of it), else how it ended ("finished", "cancelled", "timed out").
    #[napi]
    pub fn watch(&self, id: i64) -> Option<&'static str> {
        match u64::try_from(id) {
            Ok(id) => self.calls.watch(id),
            Err(_) => Some(FINISHED_REASON),
        }
    }

    /// Whether the handler of call `id` may run: false when the call ended while it waited for
    /// the JS thread (its client cancelled or went away, or it timed out). Then the handler must
    /// not start; nothing waits for its answer.
    #[napi]
    pub fn claim(&self, id: i64) -> bool {
        u64::try_from(id).is_ok_and(|id| self.calls.claim(id))
    }

    #[napi]
    pub fn request_id(&self, id: i64) -> Result<Value> {
        Ok(self.ctx(id)?.request_id().clone())
    }
    #[napi]
    pub fn protocol_version(&self, id: i64) -> Result<String> {
        Ok(self.ctx(id)?.protocol_version().to_string())
    }
    #[napi]
    pub fn era(&self, id: i64) -> Result<&'static str> {
        Ok(match self.ctx(id)?.era() {
            oxmcp::Era::Modern => "modern",
            oxmcp::Era::Legacy => "legacy",
        })
    }
    /// The legacy session the request belongs to (`SessionHandle::of`); null on modern and
    /// stateless requests.
    #[napi]
    pub fn session(&self, id: i64) -> Result<Option<crate::sessions::NativeSession>> {
        let ctx = self.ctx(id)?;
        Ok(oxmcp::SessionHandle::of(&ctx).map(crate::sessions::NativeSession::new))
    }
    /// The legacy HTTP session's id (`Mcp-Session-Id`); null on stdio and modern requests.
    #[napi]
    pub fn session_id(&self, id: i64) -> Result<Option<String>> {
        Ok(self.ctx(id)?.session_id().map(str::to_string))
    }
    #[napi]
    pub fn client_info(&self, id: i64) -> Result<Option<Value>> {
        Ok(self.ctx(id)?.client_info().cloned())
    }
    #[napi]
    pub fn client_capabilities(&self, id: i64) -> Result<Value> {
        Ok(self.ctx(id)?.client_capabilities().clone())
    }
    #[napi]
    pub fn caller(&self, id: i64) -> Result<Option<Value>> {
        Ok(self.ctx(id)?.caller().map(|c| {
            let mut m = Map::new();
            m.insert("name".into(), Value::String(c.name.clone()));
            m.insert("key".into(), Value::String(c.key().into_owned()));
            m.insert("scopes".into(), json!(c.scopes));
            if let Some(claims) = &c.claims {
                m.insert("claims".into(), claims.clone());
            }
            Value::Object(m)
        }))
    }
    #[napi]
    pub fn meta(&self, id: i64) -> Result<Value> {
        Ok(Value::Object(self.ctx(id)?.meta().clone()))
    }
    #[napi]
    pub fn traceparent(&self, id: i64) -> Result<Option<String>> {
        Ok(self.ctx(id)?.traceparent().map(str::to_string))
    }
    #[napi]
    pub fn supports(&self, id: i64, capability_name: String) -> Result<bool> {
        Ok(self.ctx(id)?.supports(capability(&capability_name)?))
    }

    // `progress` and `log` queue a notification and are done: they return null, or a Promise if
    // the core ever has to wait (a Promise per call costs a threadsafe function in napi).

    #[napi(ts_return_type = "Promise<void> | null")]
    pub fn progress<'env>(
        &self,
        env: &'env Env,
        id: i64,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> Result<Option<PromiseRaw<'env, ()>>> {
        let ctx = self.ctx(id)?;
        let fut = async move {
            ctx.progress(progress, total, message).await;
            Ok(())
        }
        .boxed();
        now_or_later(env, fut)
    }

    #[napi(ts_return_type = "Promise<void> | null")]
    pub fn log<'env>(
        &self,
        env: &'env Env,
        id: i64,
        level: String,
        data: Value,
        logger: Option<String>,
    ) -> Result<Option<PromiseRaw<'env, ()>>> {
        let level = LogLevel::parse(&level).ok_or_else(|| {
            coded(
                Code::Napi(Status::InvalidArg),
                format!("unknown log level {level:?}"),
            )
        })?;
        let ctx = self.ctx(id)?;
        let fut = async move {
            ctx.log(level, data, logger).await;
            Ok(())
        }
        .boxed();
        now_or_later(env, fut)
    }

    /// The JSON text of the client's answer to input `key` of call `id`, as the client wrote it
    /// (`Context::answer_text`); null when the transport kept none.
    #[napi]
    pub fn answer_text(&self, id: i64, key: String) -> Result<Option<String>> {
        Ok(self.ctx(id)?.answer_text(&key))
    }

    // Async methods take no lasting borrow of `self` (napi tracks borrows of native objects and
    // a pending `async fn(&self)` would lock the object for the whole await): they clone what
    // they need and hand a future to the runtime.

    #[napi(ts_return_type = "Promise<any>")]
    pub fn elicit<'env>(
        &self,
        env: &'env Env,
        id: i64,
        key: String,
        params: Value,
    ) -> Result<PromiseRaw<'env, Value>> {
        let call = self.state(id)?;
        let ctx = call.ctx()?;
        errors::spawn(
            env,
            async move { settle(&call, ctx.elicit(&key, params).await) },
        )
    }

    #[napi(ts_return_type = "Promise<any>")]
    pub fn sample<'env>(
        &self,
        env: &'env Env,
        id: i64,
        key: String,
        params: Value,
    ) -> Result<PromiseRaw<'env, Value>> {
        let call = self.state(id)?;
        let ctx = call.ctx()?;
        errors::spawn(
            env,
            async move { settle(&call, ctx.sample(&key, params).await) },
        )
    }

    #[napi(ts_return_type = "Promise<any>")]
    pub fn list_roots<'env>(
        &self,
        env: &'env Env,
        id: i64,
        key: String,
    ) -> Result<PromiseRaw<'env, Value>> {
        let call = self.state(id)?;
        let ctx = call.ctx()?;
        errors::spawn(
            env,
            async move { settle(&call, ctx.list_roots(&key).await) },
        )
    }

    #[napi(ts_return_type = "Promise<any[]>")]
    pub fn inputs<'env>(
        &self,
        env: &'env Env,
        id: i64,
        requests: Vec<NativeInputRequest>,
    ) -> Result<PromiseRaw<'env, Vec<Value>>> {
        let mut reqs = Vec::with_capacity(requests.len());
        for r in requests {
            reqs.push((r.key, input_request(&r.method, r.params)?));
        }
        let call = self.state(id)?;
        let ctx = call.ctx()?;
        errors::spawn(env, async move { settle(&call, ctx.inputs(reqs).await) })
    }

    /// Middleware call `id`: run the rest of the chain (then the core) with `params`; resolves
    /// to the result object, rejects with the error (as `ctx.elicit` & co do).
    #[napi(ts_return_type = "Promise<any>")]
    pub fn call_next<'env>(
        &self,
        env: &'env Env,
        id: i64,
        params: Value,
    ) -> Result<PromiseRaw<'env, Value>> {
        let call = self.state(id)?;
        let next = call
            .next
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| {
                coded(
                    Code::Napi(Status::InvalidArg),
                    "callNext outside a middleware call",
                )
            })?;
        let params = match params {
            Value::Object(m) => m,
            Value::Null => serde_json::Map::new(),
            _ => {
                return Err(coded(
                    Code::Napi(Status::InvalidArg),
                    "callNext params must be an object",
                ))
            }
        };
        errors::spawn(env, async move { settle(&call, next.run(params).await) })
    }

    #[napi]
    pub fn request_state(&self, id: i64) -> Result<Option<Value>> {
        Ok(self.ctx(id)?.request_state())
    }
    #[napi]
    pub fn set_request_state(&self, id: i64, state: Value) -> Result<()> {
        self.ctx(id)?.set_request_state(state);
        Ok(())
    }
}

/// Run an (almost always) immediately ready future here; hand it to the runtime otherwise.
fn now_or_later<'env>(
    env: &'env Env,
    mut fut: futures::future::BoxFuture<'static, Result<()>>,
) -> Result<Option<PromiseRaw<'env, ()>>> {
    match (&mut fut).now_or_never() {
        Some(r) => r.map(|()| None),
        None => errors::spawn(env, fut).map(Some),
    }
}

fn settle<T>(call: &CallState, r: std::result::Result<T, HandlerError>) -> Result<T> {
    r.map_err(|e| {
        let js = errors::handler(&e);
        call.record(e);
        js
    })
}
