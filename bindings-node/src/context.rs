//! `NativeContext`: the core `Context` as the JS layer's `ctx` sees it, plus the per-call state
//! that lets a JS handler's outcome be combined with what happened inside the core (an input
//! request left unanswered, the call finishing or being dropped by a timeout).

use crate::errors;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use oxmcp::{ClientCapability, Context, HandlerError, InputRequest, LogLevel};
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

const RUNNING: u8 = 0;
const FINISHED: u8 = 1;
const DROPPED: u8 = 2;

/// What happened to one handler call, shared by the Rust future and the JS `ctx`.
pub(crate) struct CallState {
    /// Fired when the call ends, however it ends (so JS-side waiters settle and nothing keeps
    /// Node's event loop alive after a call).
    done: CancellationToken,
    outcome: AtomicU8,
    /// An `InputRequired` raised inside `ctx.elicit()` & co: the call's answer is
    /// `input_required` whatever the JS handler did with the rejection.
    input_required: Mutex<Option<HandlerError>>,
}

impl CallState {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self { done: CancellationToken::new(), outcome: AtomicU8::new(RUNNING), input_required: Mutex::new(None) })
    }
    /// The `InputRequired` a `ctx` input call raised, if any (taken once).
    pub(crate) fn take_input_required(&self) -> Option<HandlerError> {
        self.input_required.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
    fn record(&self, e: HandlerError) {
        if matches!(e, HandlerError::InputRequired(_)) {
            *self.input_required.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
        }
    }
}

/// Marks the call finished when the handler future completes, or dropped (the core's timeout,
/// or the connection going away) when it is dropped first.
pub(crate) struct CallGuard(pub(crate) Arc<CallState>);

impl CallGuard {
    pub(crate) fn finish(self) {
        self.0.outcome.store(FINISHED, Ordering::SeqCst);
        // Drop runs next and fires `done`.
    }
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        let _ = self.0.outcome.compare_exchange(RUNNING, DROPPED, Ordering::SeqCst, Ordering::SeqCst);
        self.0.done.cancel();
    }
}

/// The per-request context handed to JS handlers (wrapped by `lib/context.cjs`).
#[napi]
pub struct NativeContext {
    pub(crate) ctx: Context,
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
    pub fn request_id(&self) -> Value {
        self.ctx.request_id().clone()
    }
    #[napi]
    pub fn protocol_version(&self) -> String {
        self.ctx.protocol_version().to_string()
    }
    #[napi]
    pub fn era(&self) -> &'static str {
        match self.ctx.era() {
            oxmcp::Era::Modern => "modern",
            oxmcp::Era::Legacy => "legacy",
        }
    }
    #[napi]
    pub fn client_info(&self) -> Option<Value> {
        self.ctx.client_info().cloned()
    }
    #[napi]
    pub fn client_capabilities(&self) -> Value {
        self.ctx.client_capabilities().clone()
    }
    #[napi]
    pub fn caller(&self) -> Option<Value> {
        self.ctx.caller().map(|c| {
            let mut m = Map::new();
            m.insert("name".into(), Value::String(c.name.clone()));
            m.insert("scopes".into(), json!(c.scopes));
            if let Some(claims) = &c.claims {
                m.insert("claims".into(), claims.clone());
            }
            Value::Object(m)
        })
    }
    #[napi]
    pub fn meta(&self) -> Value {
        Value::Object(self.ctx.meta().clone())
    }
    #[napi]
    pub fn traceparent(&self) -> Option<String> {
        self.ctx.traceparent().map(str::to_string)
    }
    #[napi]
    pub fn supports(&self, capability_name: String) -> Result<bool> {
        Ok(self.ctx.supports(capability(&capability_name)?))
    }

    #[napi]
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        self.ctx.progress(progress, total, message).await;
    }

    #[napi]
    pub async fn log(&self, level: String, data: Value, logger: Option<String>) -> Result<()> {
        let level = LogLevel::parse(&level).ok_or_else(|| Error::new(Status::InvalidArg, format!("unknown log level {level:?}")))?;
        self.ctx.log(level, data, logger).await;
        Ok(())
    }

    #[napi]
    pub async fn elicit(&self, key: String, params: Value) -> Result<Value> {
        let r = self.ctx.elicit(&key, params).await;
        self.settle(r)
    }

    #[napi]
    pub async fn sample(&self, key: String, params: Value) -> Result<Value> {
        let r = self.ctx.sample(&key, params).await;
        self.settle(r)
    }

    #[napi]
    pub async fn list_roots(&self, key: String) -> Result<Value> {
        let r = self.ctx.list_roots(&key).await;
        self.settle(r)
    }

    #[napi]
    pub async fn inputs(&self, requests: Vec<NativeInputRequest>) -> Result<Vec<Value>> {
        let mut reqs = Vec::with_capacity(requests.len());
        for r in requests {
            reqs.push((r.key, input_request(&r.method, r.params)?));
        }
        let r = self.ctx.inputs(reqs).await;
        self.settle(r)
    }

    #[napi]
    pub fn request_state(&self) -> Option<Value> {
        self.ctx.request_state()
    }
    #[napi]
    pub fn set_request_state(&self, state: Value) {
        self.ctx.set_request_state(state);
    }

    /// Resolves with "cancelled" (client cancel/disconnect or server shutdown), "timed out"
    /// (the call was dropped before it finished), or null once the call finished normally.
    #[napi]
    pub async fn cancelled(&self) -> Option<String> {
        let cancel = self.ctx.cancellation().clone();
        let call = self.call.clone();
        tokio::select! {
            _ = cancel.cancelled() => Some("cancelled".to_string()),
            _ = call.done.cancelled() => {
                if cancel.is_cancelled() {
                    Some("cancelled".to_string())
                } else if call.outcome.load(Ordering::SeqCst) == DROPPED {
                    Some("timed out".to_string())
                } else {
                    None
                }
            }
        }
    }
}

impl NativeContext {
    fn settle<T>(&self, r: std::result::Result<T, HandlerError>) -> Result<T> {
        r.map_err(|e| {
            let js = errors::handler(&e);
            self.call.record(e);
            js
        })
    }
}
