//! The one call pipeline. Every method that runs a user handler (`tools/call`,
//! `resources/read`, `prompts/get`, `completion/complete`) goes through the same stages, in
//! the same order:
//!
//! 1. **prepare** (`calls.rs`, per method): parse the params, find the primitive, apply the
//!    caller's allow-list and scopes, validate the arguments, open the MRTR state. The result is
//!    a [`Prepared`] call — or an [`Outcome`] that answers the request without running anything.
//! 2. **guard** ([`Server::guard`]): the `max_in_flight` permit (503 when full), then the
//!    primitive's own concurrency slot.
//! 3. **run** ([`Server::run`]): the handler future with its [`Context`], bounded by the
//!    timeout, stopped by cancellation (the request is tracked for `notifications/cancelled`
//!    by the dispatcher), panics caught.
//! 4. **map** (`calls.rs`, [`Server::map`]): the value or the failure to its wire result.
//!
//! [`Server::execute`] is stages 2–4 for a prepared call, so an extension can prepare a call,
//! then decide to execute it later or elsewhere (e.g. as a background task); [`Server::call`]
//! is all four stages under one audit record.

use super::dispatch::*;
use super::env::Env;
use super::mrtr::ArgsDigest;
use super::refusal::Refused;
use super::Server;
use crate::context::{Context, InputState};
use crate::error::{ErrorCode, HandlerError, McpError};
use crate::handler::{BoxFuture, ToolHandler};
use crate::jsonrpc::Params;
use crate::protocol::{Completion, Method, PromptResult, ResourceContents, ToolResult};
use crate::tool::ToolEntry;
use futures::future::{ready, Either, Ready};
use futures::FutureExt;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

/// What kind of primitive a call runs; the map stage shapes its result by it.
pub(crate) enum Kind {
    Tool(Arc<ToolEntry>),
    Resource,
    Prompt,
    Completion,
}

/// What a handler produced.
pub(crate) enum Done {
    Tool(ToolResult),
    Contents(Vec<ResourceContents>),
    /// A resource's fixed contents (no handler ran).
    Fixed(Arc<crate::resource::FixedContents>),
    Prompt(PromptResult),
    Completion(Completion),
}

/// How the handler is started, given its context.
pub(crate) enum Invoke {
    /// A tool's handler with its validated arguments, called in place: no closure box, and no
    /// second box to map its result (every `tools/call`).
    Tool(Arc<dyn ToolHandler>, Map<String, Value>),
    Other(Box<dyn FnOnce(Context) -> BoxFuture<Result<Done, HandlerError>> + Send>),
}

impl Invoke {
    /// The handler future as one boxed future (a task runs it on a task of its own).
    pub(crate) fn start(self, ctx: Context) -> BoxFuture<Result<Done, HandlerError>> {
        match self {
            Self::Tool(handler, args) => handler.call(args, ctx).map(|r| r.map(Done::Tool)).boxed(),
            Self::Other(f) => f(ctx),
        }
    }
}

/// A call that passed `prepare`: everything the guard, run and map stages need.
pub(crate) struct Prepared {
    pub(crate) kind: Kind,
    /// The tool or prompt name, the resource URI, the completed argument: MRTR state is bound
    /// to it, logs name it.
    pub(crate) name: String,
    /// MRTR answers and handler state carried by a modern retry; `None` until stage 1 binds
    /// them to the primitive (so no empty state is built only to be written over), and for a
    /// completion, which has none.
    pub(crate) input: Option<InputState>,
    /// The primitive's own concurrency cap (`Tool::max_concurrency`).
    pub(crate) slots: Option<Arc<Semaphore>>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) invoke: Invoke,
}

/// The places a running call holds; released when it ends.
pub(crate) struct Guard {
    _permit: Option<OwnedSemaphorePermit>,
    _slot: Option<OwnedSemaphorePermit>,
}

impl Guard {
    /// The call's request is answered and its handler runs on as a task: its place among
    /// `max_in_flight` (which bounds requests being answered) is given back, and the task
    /// counts against its caller's `max_running_tasks_per_caller` instead. The primitive's own
    /// slot stays until the handler ends: it bounds how many runs of that handler there are.
    pub(crate) fn answered(&mut self) {
        self._permit = None;
    }
}

/// Why a handler run ended without a value.
pub(crate) enum RunError {
    Handler(HandlerError),
    Panic(String),
    Timeout,
}

/// What [`Server::stages`] gives when a call does not run inline: it runs as a task, or its
/// refusal is worded (boxed: rare), or stage 1 refused it (the answer, ready).
type Other<'a> = Either<
    std::pin::Pin<Box<dyn std::future::Future<Output = Outcome> + Send + 'a>>,
    Ready<Outcome>,
>;

impl Server {
    /// All four stages under one audit record (refusals included).
    ///
    /// Not an `async fn`: stage 1 (`prepare`) needs no await, and an `async fn` would keep
    /// `params` in its future twice (as its argument and as its body's copy) beside the stages'
    /// future it moves into; this future is moved, whole, into the request's box on every call.
    pub(super) fn call<'a>(
        &'a self,
        rq: &'a RequestInfo,
        params: Params,
        env: &'a Env,
        digest: &ArgsDigest,
    ) -> impl std::future::Future<Output = Outcome> + Send + 'a {
        // The name is read only for the audit record: no copy of it when no one records.
        let name = if audit_enabled() {
            audit_name(&rq.method, &params)
        } else {
            String::new()
        };
        // The audit record's clock and record around the stages, as a `map` of the stages' future
        // rather than an `async` block awaiting it: such a block stores that future twice (once
        // captured, once while awaiting it).
        let started = audit_enabled().then(Instant::now);
        let metered = self.metered(&rq.method, &params);
        self.stages(rq, params, env, digest).map(move |outcome| {
            self.audit(rq, env, &name, started, &outcome);
            if let Some(m) = metered {
                m.done(&outcome, env);
            }
            outcome
        })
    }

    /// Stage 1 now, and the future of the rest. Not an `async fn`: one would keep stage 1's
    /// result (the `Prepared`, or the refusal) beside the execution's future while it runs.
    fn stages<'a>(
        &'a self,
        rq: &'a RequestInfo,
        params: Params,
        env: &'a Env,
        digest: &ArgsDigest,
    ) -> Either<impl std::future::Future<Output = Outcome> + Send + 'a, Other<'a>> {
        let p = match self.prepare(rq, params, env, digest) {
            Ok(p) => p,
            Err(Refused::Now(o)) => return Either::Right(Either::Right(ready(o))),
            Err(Refused::Worded(r)) => {
                return Either::Right(Either::Left(Box::pin(self.worded_refusal(rq, env, *r))))
            }
        };
        // The Tasks extension (tasks/server.rs) decides here whether the call runs as a task.
        match self.task_plan(rq, &p) {
            Ok(None) => Either::Left(self.execute(rq, env, p)),
            Ok(Some(budget)) => Either::Right(Either::Left(Box::pin(
                self.execute_as_task(rq, env, p, budget),
            ))),
            Err(e) => Either::Right(Either::Right(ready(e.into()))),
        }
    }

    /// Stages 2–4: guard, run, map.
    ///
    /// An `async` block rather than an `async fn`: an `async fn` copies its arguments into its
    /// body, and would keep `p` twice.
    #[allow(clippy::manual_async_fn)] // on purpose: see above
    pub(crate) fn execute<'a>(
        &'a self,
        rq: &'a RequestInfo,
        env: &'a Env,
        p: Prepared,
    ) -> impl std::future::Future<Output = Outcome> + Send + 'a {
        async move {
            let _guard = match self.guard(rq, env, &p) {
                Ok(g) => g,
                Err(o) => return o,
            };
            // A timeout cancels the handler's token and not the request's (middleware watching
            // the request's token must see a timeout, not a cancellation), so it needs a token
            // of its own; without one, nothing but the request cancels the handler: the
            // request's token is the handler's, and no child is built and unlinked per call.
            let cancel = if p.timeout.is_some() {
                env.cancel.child_token()
            } else {
                env.cancel.clone()
            };
            let ctx = self.context(rq, env, p.input.unwrap_or_default(), cancel);
            let r = match p.invoke {
                Invoke::Tool(handler, args) => {
                    let fut = handler.call(args, ctx.clone());
                    Self::run(fut, &ctx.inner.cancel, p.timeout)
                        .await
                        .map(Done::Tool)
                }
                other => Self::run(other.start(ctx.clone()), &ctx.inner.cancel, p.timeout).await,
            };
            self.map(rq, env, &p.kind, &p.name, &ctx, r)
        }
    }

    /// The `max_in_flight` permit, then the primitive's own slot.
    pub(crate) fn guard(
        &self,
        rq: &RequestInfo,
        env: &Env,
        p: &Prepared,
    ) -> Result<Guard, Outcome> {
        let permit = self.in_flight_permit(env)?;
        let slot = match &p.slots {
            None => None,
            Some(s) => Some(s.clone().try_acquire_owned().map_err(|_| {
                env.note("busy");
                // A tool answers it as an `isError` result (200), the other kinds with a 503.
                let status = if matches!(p.kind, Kind::Tool(_)) {
                    200
                } else {
                    503
                };
                self.count_rejection(status, "max_concurrency");
                self.busy(rq, &p.kind, &p.name)
            })?),
        };
        Ok(Guard {
            _permit: permit,
            _slot: slot,
        })
    }

    /// A place among `max_in_flight` (none when unbounded); a 503 answer when it is full.
    pub(crate) fn in_flight_permit(
        &self,
        env: &Env,
    ) -> Result<Option<OwnedSemaphorePermit>, Outcome> {
        let Some(s) = &self.inner.in_flight else {
            return Ok(None);
        };
        s.clone().try_acquire_owned().map(Some).map_err(|_| {
            env.note("busy");
            self.count_rejection(503, "max_in_flight");
            Outcome::from(
                McpError::new(
                    ErrorCode::SERVER_BUSY,
                    "Server busy: too many requests in flight; retry shortly",
                )
                .with_status(503),
            )
        })
    }

    /// Run a handler future: panics caught, bounded by `timeout`, stopped by cancellation.
    pub(crate) async fn run<T>(
        fut: BoxFuture<Result<T, HandlerError>>,
        ctx_cancel: &CancellationToken,
        timeout: Option<Duration>,
    ) -> Result<T, RunError> {
        let guarded = std::panic::AssertUnwindSafe(fut).catch_unwind();
        let raced = async {
            tokio::select! {
                // The handler first: once cancelled, it gets one poll to see its token and
                // clean up (or finish) before it is dropped.
                biased;
                r = guarded => match r {
                    Ok(Ok(v)) => Ok(v),
                    Ok(Err(e)) => Err(RunError::Handler(e)),
                    Err(p) => Err(RunError::Panic(
                        p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default(),
                    )),
                },
                _ = ctx_cancel.cancelled() => Err(RunError::Handler(HandlerError::Cancelled)),
            }
        };
        match timeout {
            Some(t) => match tokio::time::timeout(t, raced).await {
                Ok(r) => r,
                Err(_) => {
                    ctx_cancel.cancel();
                    Err(RunError::Timeout)
                }
            },
            None => raced.await,
        }
    }

    pub(crate) fn audit(
        &self,
        rq: &RequestInfo,
        env: &Env,
        name: &str,
        started: Option<Instant>,
        outcome: &Outcome,
    ) {
        if !audit_enabled() {
            return;
        }
        let note = *env.audit_note.lock().unwrap_or_else(|e| e.into_inner());
        // outcome: ok | is_error | input_required | task | error | timeout | cancelled
        // error_class: why, when not ok (a JSON-RPC code's name, or what the note says).
        let (outcome, class, code, size) = match outcome {
            Outcome::Result(v) => {
                let size = serde_json::to_vec(v).map(|b| b.len()).unwrap_or(0);
                let is_error = v.get("isError").and_then(Value::as_bool) == Some(true);
                match (v.get("resultType").and_then(Value::as_str), note) {
                    (_, Some("timeout")) => ("timeout", "timeout", None, size),
                    (_, Some(n)) => ("is_error", n, None, size),
                    (Some("input_required"), _) => ("input_required", "", None, size),
                    // Made a task: its outcome gets a record of its own when it ends.
                    (Some("task"), _) => ("task", "", None, size),
                    _ if is_error => ("is_error", "tool_error", None, size),
                    _ => ("ok", "", None, size),
                }
            }
            Outcome::Tool(a) => {
                let size = serde_json::to_vec(&a.result).map(|b| b.len()).unwrap_or(0);
                match note {
                    Some("timeout") => ("timeout", "timeout", None, size),
                    Some(n) => ("is_error", n, None, size),
                    None if a.result.is_error => ("is_error", "tool_error", None, size),
                    None => ("ok", "", None, size),
                }
            }
            Outcome::Error(e) => {
                let class = note.unwrap_or(e.code.class());
                let outcome = if note == Some("timeout") {
                    "timeout"
                } else {
                    "error"
                };
                (outcome, class, Some(e.code.0), 0)
            }
            Outcome::Nothing => ("cancelled", "cancelled", None, 0),
            Outcome::Rendered(r) => ("ok", "", None, r.get().len()),
            Outcome::Contents(a) => {
                let mut out = Vec::with_capacity(a.size_hint());
                a.write_to(&mut out);
                match note {
                    Some("timeout") => ("timeout", "timeout", None, out.len()),
                    Some(n) => ("is_error", n, None, out.len()),
                    None => ("ok", "", None, out.len()),
                }
            }
        };
        // Over a Unix socket: the client process, as the kernel tells it.
        let cred = env.http.as_ref().and_then(|h| h.peer_cred);
        tracing::info!(
            target: "oxmcp::audit",
            caller = env.caller.as_ref().map(|c| c.name.as_str()).unwrap_or("-"),
            transport = ?env.transport,
            peer_uid = cred.map(|c| c.uid),
            peer_gid = cred.map(|c| c.gid),
            peer_pid = cred.and_then(|c| c.pid),
            method = %rq.method,
            name = %name,
            request_id = %rq.id,
            duration_us = started.map_or(0, |t| t.elapsed().as_micros() as u64),
            result_bytes = size,
            outcome = outcome,
            error_code = code,
            error_class = class,
            "call"
        );
    }
}

/// Whether an `oxmcp::audit` record would be kept by the installed subscriber.
fn audit_enabled() -> bool {
    tracing::enabled!(target: "oxmcp::audit", tracing::Level::INFO)
}

/// The primitive's name (or URI) for the audit record, even when the request is malformed.
fn audit_name(method: &Method, params: &Params) -> String {
    let s = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
    match method {
        Method::ResourcesRead => s(params.get("uri")),
        Method::CompletionComplete => {
            let r = params.get("ref");
            s(r.and_then(|r| r.get("name").or_else(|| r.get("uri"))))
        }
        _ => s(params.get("name")),
    }
}
