//! The dispatcher's side of the Tasks extension: deciding whether a `tools/call` becomes a
//! task, running its handler past the request, and `tasks/get|update|cancel`. The task state
//! machine and store are in the rest of `crate::tasks`.

use crate::context::Context;
use crate::error::{ErrorCode, HandlerError, McpError};
use crate::handler::BoxFuture;
use crate::jsonrpc::Params;
use crate::protocol::*;
use crate::server::dispatch::*;
use crate::server::pipeline::{Done, Guard, Kind, Prepared, RunError};
use crate::server::{access, trace, Env, Server};
use crate::tasks::{self, TaskLink, TaskSlot, TaskStatus, TaskSupport};
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Duration;

impl Server {
    /// `Some(budget)`: run this call as a task (after `budget` of plain running). `None`: a
    /// plain call. A `required` tool and a client without the extension: -32021.
    pub(crate) fn task_plan(
        &self,
        rq: &RequestInfo,
        p: &Prepared,
    ) -> Result<Option<Duration>, McpError> {
        let Kind::Tool(tool) = &p.kind else {
            return Ok(None);
        };
        if tool.task == TaskSupport::Forbidden {
            return Ok(None);
        }
        if !tasks::declared_in(rq.caps()) {
            return match tool.task {
                TaskSupport::Required => Err(McpError::missing_capability(tasks::required_json())),
                _ => Ok(None),
            };
        }
        Ok(Some(tool.task_after.unwrap_or(Duration::ZERO)))
    }

    /// Stages 2–4 of the pipeline for a task: answer `CreateTaskResult` once the task is
    /// stored, and let the handler run on; its end settles the task. With a budget the call
    /// first runs as a plain request, and an answer (or an MRTR round) within it is returned
    /// as usual.
    pub(crate) async fn execute_as_task(
        &self,
        rq: &RequestInfo,
        env: &Env,
        p: Prepared,
        budget: Duration,
    ) -> Outcome {
        let guard = match self.guard(rq, env, &p) {
            Ok(g) => g,
            Err(o) => return o,
        };
        let call = TaskCall {
            engine: self.inner.tasks.clone(),
            owner: access::owner_key(env),
            who: access::budget_key(env),
            max_tasks: self.inner.options.max_tasks_per_caller,
            // Not a child of the request's token: the task outlives the request. Server abort
            // still reaches it.
            cancel: self.inner.abort.child_token(),
            slot: Arc::new(TaskSlot::default()),
        };
        let Prepared {
            kind,
            name,
            input,
            timeout,
            invoke,
            ..
        } = p;
        let mut ctx = self.context(rq, env, input.unwrap_or_default(), call.cancel.clone());
        if let Some(inner) = Arc::get_mut(&mut ctx.inner) {
            inner.task = Some(call.slot.clone());
        }
        let mut opened = None;
        if budget.is_zero() {
            match self.open_task(&call).await {
                Ok(o) => opened = Some(o),
                Err(e) => return e.into(),
            }
        }
        let run_span = trace::task_span(&name);
        let mut rx = Self::spawn_run(invoke.start(ctx.clone()), timeout, &call.cancel, &run_span);
        let (running, rec) = match opened {
            Some(o) => o,
            None => match self
                .escalate(rq, env, (&kind, &name), &ctx, &call, &mut rx, budget)
                .await
            {
                Ok(o) => o,
                Err(answer) => return answer,
            },
        };
        trace::task_created(&run_span, &rec.id);
        self.answer_as_task(rq, env, (kind, name), ctx, rec, (guard, running), rx)
    }

    /// Takes the caller's running place and stores the task record, with the call's slot
    /// escalated to it.
    async fn open_task(
        &self,
        call: &TaskCall,
    ) -> Result<(Option<RunningTask>, tasks::TaskRecord), McpError> {
        let running = RunningTask::take(self, &call.who)?;
        let rec = call.create().await.inspect_err(|e| {
            if e.http_status == Some(429) {
                self.count_rejection(429, "max_tasks_per_caller");
            }
        })?;
        call.slot.escalate(TaskLink {
            engine: call.engine.clone(),
            id: rec.id.clone(),
        });
        Ok((running, rec))
    }

    /// The handler on a tokio task of its own, so that it runs on past the request.
    fn spawn_run(
        fut: BoxFuture<Result<Done, HandlerError>>,
        timeout: Option<Duration>,
        cancel: &tokio_util::sync::CancellationToken,
        span: &tracing::Span,
    ) -> tokio::sync::oneshot::Receiver<Result<Done, RunError>> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let cancel = cancel.clone();
        let run = tracing::Instrument::instrument(
            async move { Self::run(fut, &cancel, timeout).await },
            span.clone(),
        );
        tokio::spawn(async move {
            let _ = tx.send(run.await);
        });
        rx
    }

    /// A call with a budget: its answer within the budget is the request's answer
    /// (`Err(answer)`). Past it, the call becomes a task (`Ok`) only if the caller may run and
    /// hold one more; otherwise it goes on as the plain request it is (holding its request's
    /// place), which the client is waiting on anyway.
    #[allow(clippy::too_many_arguments)] // the call and where it came from, each read once
    async fn escalate(
        &self,
        rq: &RequestInfo,
        env: &Env,
        (kind, name): (&Kind, &str),
        ctx: &Context,
        call: &TaskCall,
        rx: &mut tokio::sync::oneshot::Receiver<Result<Done, RunError>>,
        budget: Duration,
    ) -> Result<(Option<RunningTask>, tasks::TaskRecord), Outcome> {
        let lost = || Err(RunError::Handler(HandlerError::Cancelled));
        let answer = |r| self.map(rq, env, kind, name, ctx, r);
        tokio::select! {
            r = &mut *rx => return Err(answer(r.unwrap_or_else(|_| lost()))),
            _ = tokio::time::sleep(budget) => {}
            _ = env.cancel.cancelled() => {
                call.cancel.cancel();
                return Err(Outcome::Nothing);
            }
        }
        let opened = match RunningTask::take(self, &call.who) {
            Ok(running) => call.create().await.ok().map(|rec| (running, rec)),
            Err(_) => None,
        };
        let Some((running, rec)) = opened else {
            let r = tokio::select! {
                r = &mut *rx => r.unwrap_or_else(|_| lost()),
                _ = env.cancel.cancelled() => {
                    call.cancel.cancel();
                    return Err(Outcome::Nothing);
                }
            };
            return Err(answer(r));
        };
        let link = TaskLink {
            engine: call.engine.clone(),
            id: rec.id.clone(),
        };
        if !call.slot.escalate(link) {
            // The handler answered with an MRTR round just now: that is the answer.
            call.engine.discard(&rec.id, call.who.as_deref()).await;
            return Err(answer((&mut *rx).await.unwrap_or_else(|_| lost())));
        }
        Ok((running, rec))
    }

    /// The request is answered now: the task holds its caller's running place, and the
    /// primitive's slot, until the handler ends, settled on a tokio task of its own.
    #[allow(clippy::too_many_arguments)] // the call and what it holds, each moved once
    fn answer_as_task(
        &self,
        rq: &RequestInfo,
        env: &Env,
        (kind, name): (Kind, String),
        ctx: Context,
        rec: tasks::TaskRecord,
        held: (Guard, Option<RunningTask>),
        rx: tokio::sync::oneshot::Receiver<Result<Done, RunError>>,
    ) -> Outcome {
        let (mut guard, running) = held;
        guard.answered();
        let server = self.clone();
        let rq = rq.clone();
        let env2 = Env::new(env.transport).caller(env.caller.clone());
        let id = rec.id.clone();
        tokio::spawn(async move {
            let _held = (guard, running);
            let r = rx
                .await
                .unwrap_or(Err(RunError::Handler(HandlerError::Cancelled)));
            server
                .settle_task(&rq, &env2, &kind, &name, &ctx, &id, r)
                .await;
        });
        let mut m = rec.task_json();
        m.insert("resultType".into(), Value::String("task".into()));
        self.add_server_info(&mut m);
        Outcome::Result(Value::Object(m))
    }

    #[allow(clippy::too_many_arguments)] // the finished call and where it came from, each read once
    async fn settle_task(
        &self,
        rq: &RequestInfo,
        env: &Env,
        kind: &Kind,
        name: &str,
        ctx: &Context,
        id: &str,
        r: Result<Done, RunError>,
    ) {
        let engine = &self.inner.tasks;
        let (status, result, error, message) = match r {
            Err(RunError::Handler(HandlerError::Cancelled)) => (
                TaskStatus::Cancelled,
                None,
                None,
                Some("Cancelled".to_string()),
            ),
            // A panic is a protocol-level fault of the task, not a tool result (spec: failed
            // is for JSON-RPC errors); the server itself carries on.
            Err(RunError::Panic(msg)) => {
                tracing::error!(tool = %name, panic = %msg, task = %id, "tool handler panicked in a task");
                // The same text as outside a task (calls.rs `internal_error`).
                let text = if self.inner.options.expose_internal_errors {
                    format!("Error executing tool {name}: {msg}")
                } else {
                    format!("Error executing tool {name}")
                };
                let e = McpError::internal(text.clone());
                (TaskStatus::Failed, None, Some(e.to_json()), Some(text))
            }
            r => match self.map(rq, env, kind, name, ctx, r) {
                Outcome::Result(v)
                    if v.get("resultType").and_then(Value::as_str) == Some("input_required") =>
                {
                    let e = McpError::internal("the handler asked for input outside the task");
                    (TaskStatus::Failed, None, Some(e.to_json()), Some(e.message))
                }
                Outcome::Result(v) => self.kept_result(name, id, v),
                Outcome::Tool(a) => self.kept_result(name, id, a.into_value()),
                Outcome::Contents(a) => self.kept_result(name, id, a.into_value()),
                Outcome::Rendered(r) => self.kept_result(name, id, r.value()),
                Outcome::Error(e) => {
                    let m = e.message.clone();
                    (TaskStatus::Failed, None, Some(e.to_json()), Some(m))
                }
                Outcome::Nothing => (TaskStatus::Cancelled, None, None, None),
            },
        };
        if tracing::enabled!(target: "oxmcp::audit", tracing::Level::INFO) {
            // The call that made the task was recorded when it was answered ("task"); this is its
            // outcome, under the same caller.
            tracing::info!(
                target: "oxmcp::audit",
                caller = env.caller.as_ref().map(|c| c.name.as_str()).unwrap_or("-"),
                transport = ?env.transport,
                method = %rq.method,
                name = %name,
                task = %id,
                outcome = if result.as_ref().and_then(|r| r.get("isError")).and_then(serde_json::Value::as_bool) == Some(true) {
                    "is_error"
                } else {
                    status.as_str()
                },
                error_class = message.as_deref().unwrap_or(""),
                "task"
            );
        }
        engine.finish(id, status, result, error, message).await;
    }

    /// A task's result as it is settled: kept when it is at most `max_task_result_bytes` as
    /// JSON; a larger one is not stored (it would be held for the task's TTL) and the task
    /// fails with an error that says so.
    fn kept_result(&self, name: &str, id: &str, v: Value) -> Settled {
        let max = self.inner.options.max_task_result_bytes;
        let size = serde_json::to_vec(&v).map_or(usize::MAX, |b| b.len());
        if size <= max {
            return (TaskStatus::Completed, Some(v), None, None);
        }
        tracing::warn!(tool = %name, task = %id, size, max, "task result too large to keep");
        let e = McpError::internal(format!(
            "Task result too large: {size} bytes, more than the {max} bytes a task may keep"
        ));
        let m = e.message.clone();
        (TaskStatus::Failed, None, Some(e.to_json()), Some(m))
    }

    /// [`Self::task_method`] under one audit record: who read, answered or cancelled which task,
    /// and who was refused (another caller's task is answered as an unknown one, and recorded so).
    pub(crate) async fn audited_task_method(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
    ) -> Outcome {
        let started = std::time::Instant::now();
        let out = self.task_method(rq, params, env).await;
        let id = params
            .get("taskId")
            .and_then(Value::as_str)
            .unwrap_or_default();
        self.audit(rq, env, id, Some(started), &out);
        out
    }

    /// `tasks/get`, `tasks/update`, `tasks/cancel`: only for a client that declares the
    /// extension on this request (else -32021).
    pub(crate) async fn task_method(
        &self,
        rq: &RequestInfo,
        params: &Params,
        env: &Env,
    ) -> Outcome {
        if !tasks::declared_in(rq.caps()) {
            return McpError::missing_capability(tasks::required_json()).into();
        }
        let id = match str_param(params, "taskId") {
            Ok(i) => i,
            Err(e) => return e.into(),
        };
        let owner = access::owner_key(env);
        let engine = &self.inner.tasks;
        let mut out = match &rq.method {
            Method::TasksGet => match engine.get(id, &owner).await {
                Ok(rec) => rec.detailed_json(),
                Err(e) => return e.into(),
            },
            Method::TasksUpdate => {
                let responses = match params.get("inputResponses") {
                    Some(Value::Object(m)) => m.clone(),
                    None => Map::new(),
                    Some(_) => {
                        return McpError::invalid_params("inputResponses must be an object").into()
                    }
                };
                if let Err(e) = engine.update(id, &owner, &responses).await {
                    return e.into();
                }
                Map::new()
            }
            Method::TasksCancel => {
                if let Err(e) = engine.cancel(id, &owner).await {
                    return e.into();
                }
                Map::new()
            }
            m => return McpError::method_not_found(m.as_str()).into(),
        };
        out.insert("resultType".into(), Value::String("complete".into()));
        if rq.era == Era::Modern {
            self.add_server_info(&mut out);
        }
        Outcome::Result(Value::Object(out))
    }
}

/// How a task ends: its status, result, error and status message.
type Settled = (TaskStatus, Option<Value>, Option<Value>, Option<String>);

/// What a call that becomes a task is held to, read once: its engine, its owner and budget
/// keys, the caller's task bound, and the token and slot the handler shares with the task.
struct TaskCall {
    engine: Arc<tasks::engine::TaskEngine>,
    owner: String,
    who: Option<String>,
    max_tasks: usize,
    cancel: tokio_util::sync::CancellationToken,
    slot: Arc<TaskSlot>,
}

impl TaskCall {
    /// The task's record, stored under the caller's bound (`max_tasks_per_caller`).
    async fn create(&self) -> Result<tasks::TaskRecord, McpError> {
        self.engine
            .create(
                &self.owner,
                self.who.as_deref(),
                self.max_tasks,
                self.cancel.clone(),
            )
            .await
    }
}

/// A task running in this process, counted against its caller's
/// `ServerOptions::max_running_tasks_per_caller` until dropped (when its handler ends).
struct RunningTask(Server, String);

impl RunningTask {
    /// A place for one more running task of `who` (`access::budget_key`), or the refusal:
    /// 429, as the caller alone is over its share (others are served). `None`: there is no
    /// budget to count against (see `budget_key`).
    fn take(server: &Server, who: &Option<String>) -> Result<Option<Self>, McpError> {
        let Some(who) = who else { return Ok(None) };
        let max = server.inner.options.max_running_tasks_per_caller;
        let mut m = server
            .inner
            .running_tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let n = m.entry(who.to_string()).or_insert(0);
        if *n >= max {
            if *n == 0 {
                m.remove(who);
            }
            server.count_rejection(429, "max_running_tasks_per_caller");
            return Err(McpError::new(
                ErrorCode::RATE_LIMITED,
                format!(
                    "Too many running tasks: a caller may run {max} at once; retry when one ends"
                ),
            )
            .with_status(429));
        }
        *n += 1;
        Ok(Some(Self(server.clone(), who.to_string())))
    }
}

impl Drop for RunningTask {
    fn drop(&mut self) {
        let mut m = self
            .0
            .inner
            .running_tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(n) = m.get_mut(&self.1) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.1);
            }
        }
    }
}
