//! `NativeContext`: the core `Context` as the JS layer's `ctx` sees it, plus the per-call state
//! that lets a JS handler's outcome be combined with what happened inside the core (an input
//! request left unanswered, the call finishing or being dropped by a timeout).

use crate::calls::Calls;
use crate::errors;
use napi::bindgen_prelude::*;
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
    /// Fired when the call ends, however it ends (so JS-side waiters settle and nothing keeps
    /// Node's event loop alive after a call).
    done: CancellationToken,
    outcome: AtomicU8,
    /// An `InputRequired` raised inside `ctx.elicit()` & co: the call's answer is
    /// `input_required` whatever the JS handler did with the rejection.
    input_required: Mutex<Option<HandlerError>>,
    /// The last protocol error a `ctx` call raised (e.g. -32021): when the JS handler lets it
    /// propagate, the core answers with this original (it carries the HTTP status rule).
    mcp_error: Mutex<Option<McpError>>,
    /// The core context, released when the call ends: a JS `ctx` object lives until GC, and
    /// must not keep the request's notification sink (and so the transport) alive.
    ctx: Mutex<Option<Context>>,
    cancel: CancellationToken,
}

impl CallState {
    pub(crate) fn new(ctx: Context) -> Arc<Self> {
        Arc::new(Self {
            done: CancellationToken::new(),
            outcome: AtomicU8::new(RUNNING),
            input_required: Mutex::new(None),
            mcp_error: Mutex::new(None),
            cancel: ctx.cancellation().clone(),
            ctx: Mutex::new(Some(ctx)),
        })
    }
    /// The state of a call whose entry is gone: it ended (finished, as far as JS can know).
    pub(crate) fn ended() -> Arc<Self> {
        let done = CancellationToken::new();
        done.cancel();
        Arc::new(Self {
            done,
            outcome: AtomicU8::new(FINISHED),
            input_required: Mutex::new(None),
            mcp_error: Mutex::new(None),
            ctx: Mutex::new(None),
            cancel: CancellationToken::new(),
        })
    }
    /// Whether the call ended normally.
    pub(crate) fn finished(&self) -> bool {
        self.outcome.load(Ordering::SeqCst) == FINISHED
    }
    fn ctx(&self) -> Result<Context> {
        self.ctx
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| {
                Error::new(
                    Status::GenericFailure,
                    "CALL_ENDED: this ctx belongs to a call that has ended",
                )
            })
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

/// Marks the call finished when the handler future completes, or dropped (the core's timeout,
/// or the connection going away) when it is dropped first; then ends its entry in the table of
/// calls.
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
        // Drop runs next and fires `done`.
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
        self.call.done.cancel();
        self.calls
            .end(self.id, self.answered.load(Ordering::Relaxed));
    }
}

/// The per-request context of a JS handler that reads its `ctx` (wrapped by `lib/context.cjs`;
/// `NativeServer.callContext`).
#[napi]
pub struct NativeContext {
    pub(crate) call: Arc<CallState>,
}

fn capability(name: &str) -> Result<ClientCapability> {
    Ok(match name {
        "elicitation" | "elicitation.form" => ClientCapability::Elicitation,
        "elicitation.url" => ClientCapability::ElicitationUrl,
        "sampling" => ClientCapability::Sampling,
        "sampling.tools" => ClientCapability::SamplingTools,
        "roots" => ClientCapability::Roots,
        other => {
            return Err(Error::new(
                Status::InvalidArg,
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
            return Err(Error::new(
                Status::InvalidArg,
                format!("unknown input method {other:?}; expected elicitation/create, sampling/createMessage or roots/list"),
            ))
        }
    })
}

/// One entry of `ctx.inputs([...])`.
#[napi(object)]
pub struct NativeInputRequest {
    pub key: String,
    pub method: String,
    pub params: Option<Value>,
}

#[napi]
impl NativeContext {
    #[napi]
    pub fn request_id(&self) -> Result<Value> {
        Ok(self.call.ctx()?.request_id().clone())
    }
    #[napi]
    pub fn protocol_version(&self) -> Result<String> {
        Ok(self.call.ctx()?.protocol_version().to_string())
    }
    #[napi]
    pub fn era(&self) -> Result<&'static str> {
        Ok(match self.call.ctx()?.era() {
            oxmcp::Era::Modern => "modern",
            oxmcp::Era::Legacy => "legacy",
        })
    }
    #[napi]
    pub fn client_info(&self) -> Result<Option<Value>> {
        Ok(self.call.ctx()?.client_info().cloned())
    }
    #[napi]
    pub fn client_capabilities(&self) -> Result<Value> {
        Ok(self.call.ctx()?.client_capabilities().clone())
    }
    #[napi]
    pub fn caller(&self) -> Result<Option<Value>> {
        Ok(self.call.ctx()?.caller().map(|c| {
            let mut m = Map::new();
            m.insert("name".into(), Value::String(c.name.clone()));
            m.insert("scopes".into(), json!(c.scopes));
            if let Some(claims) = &c.claims {
                m.insert("claims".into(), claims.clone());
            }
            Value::Object(m)
        }))
    }
    #[napi]
    pub fn meta(&self) -> Result<Value> {
        Ok(Value::Object(self.call.ctx()?.meta().clone()))
    }
    #[napi]
    pub fn traceparent(&self) -> Result<Option<String>> {
        Ok(self.call.ctx()?.traceparent().map(str::to_string))
    }
    #[napi]
    pub fn supports(&self, capability_name: String) -> Result<bool> {
        Ok(self.call.ctx()?.supports(capability(&capability_name)?))
    }

    // Async methods take no lasting borrow of `self` (napi tracks borrows of native objects and
    // a pending `async fn(&self)` would lock the ctx for the whole await): they clone what
    // they need and hand a future to the runtime.

    #[napi(ts_return_type = "Promise<void>")]
    pub fn progress<'env>(
        &self,
        env: &'env Env,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> Result<PromiseRaw<'env, ()>> {
        let ctx = self.call.ctx()?;
        env.spawn_future(async move {
            ctx.progress(progress, total, message).await;
            Ok(())
        })
    }

    #[napi(ts_return_type = "Promise<void>")]
    pub fn log<'env>(
        &self,
        env: &'env Env,
        level: String,
        data: Value,
        logger: Option<String>,
    ) -> Result<PromiseRaw<'env, ()>> {
        let level = LogLevel::parse(&level).ok_or_else(|| {
            Error::new(Status::InvalidArg, format!("unknown log level {level:?}"))
        })?;
        let ctx = self.call.ctx()?;
        env.spawn_future(async move {
            ctx.log(level, data, logger).await;
            Ok(())
        })
    }

    #[napi(ts_return_type = "Promise<any>")]
    pub fn elicit<'env>(
        &self,
        env: &'env Env,
        key: String,
        params: Value,
    ) -> Result<PromiseRaw<'env, Value>> {
        let (ctx, call) = (self.call.ctx()?, self.call.clone());
        env.spawn_future(async move { settle(&call, ctx.elicit(&key, params).await) })
    }

    #[napi(ts_return_type = "Promise<any>")]
    pub fn sample<'env>(
        &self,
        env: &'env Env,
        key: String,
        params: Value,
    ) -> Result<PromiseRaw<'env, Value>> {
        let (ctx, call) = (self.call.ctx()?, self.call.clone());
        env.spawn_future(async move { settle(&call, ctx.sample(&key, params).await) })
    }

    #[napi(ts_return_type = "Promise<any>")]
    pub fn list_roots<'env>(&self, env: &'env Env, key: String) -> Result<PromiseRaw<'env, Value>> {
        let (ctx, call) = (self.call.ctx()?, self.call.clone());
        env.spawn_future(async move { settle(&call, ctx.list_roots(&key).await) })
    }

    #[napi(ts_return_type = "Promise<any[]>")]
    pub fn inputs<'env>(
        &self,
        env: &'env Env,
        requests: Vec<NativeInputRequest>,
    ) -> Result<PromiseRaw<'env, Vec<Value>>> {
        let mut reqs = Vec::with_capacity(requests.len());
        for r in requests {
            reqs.push((r.key, input_request(&r.method, r.params)?));
        }
        let (ctx, call) = (self.call.ctx()?, self.call.clone());
        env.spawn_future(async move { settle(&call, ctx.inputs(reqs).await) })
    }

    #[napi]
    pub fn request_state(&self) -> Result<Option<Value>> {
        Ok(self.call.ctx()?.request_state())
    }
    #[napi]
    pub fn set_request_state(&self, state: Value) -> Result<()> {
        self.call.ctx()?.set_request_state(state);
        Ok(())
    }

    /// Resolves with "cancelled" (client cancel/disconnect or server shutdown), "timed out"
    /// (the call was dropped before it finished), or null once the call finished normally.
    #[napi(ts_return_type = "Promise<string | null>")]
    pub fn cancelled<'env>(&self, env: &'env Env) -> Result<PromiseRaw<'env, Option<String>>> {
        let cancel = self.call.cancel.clone();
        let call = self.call.clone();
        env.spawn_future(async move {
            tokio::select! {
                _ = cancel.cancelled() => {}
                _ = call.done.cancelled() => {}
            }
            Ok(match call.outcome.load(Ordering::SeqCst) {
                DROPPED => Some("timed out".to_string()),
                FINISHED => None,
                _ => Some("cancelled".to_string()),
            })
        })
    }
}

fn settle<T>(call: &CallState, r: std::result::Result<T, HandlerError>) -> Result<T> {
    r.map_err(|e| {
        let js = errors::handler(&e);
        call.record(e);
        js
    })
}
