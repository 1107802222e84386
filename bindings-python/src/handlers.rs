//! Python entries as core handlers: each holds the entry object (`oxmcp._handlers.*Entry`) and
//! implements the core trait by running it on the engine and awaiting its outcome.

use crate::context::{NativeContext, Slot};
use crate::convert::{outcome, py_failure, to_py, Outcome};
use crate::engine::Engine;
use oxmcp::{
    BoxFuture, Completion, CompletionHandler, Context, HandlerError, McpError, PromptHandler,
    PromptResult, RefusalWording, ResourceContents, ResourceHandler, ToolHandler, ToolResult,
};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyCFunction;
use serde_json::{Map, Value};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

pub(crate) struct PyHandler {
    pub(crate) entry: Arc<Py<PyAny>>,
    pub(crate) is_async: bool,
    pub(crate) engine: Arc<Engine>,
    /// `oxmcp._runtime.submit`
    pub(crate) submit: Arc<Py<PyAny>>,
}

/// What a handler answered: JSON, or a tool's result already read into the core's type.
enum Reply {
    Value(Value),
    Tool(ToolResult),
}

impl Reply {
    fn into_value(self) -> Result<Value, HandlerError> {
        match self {
            Reply::Value(v) => Ok(v),
            Reply::Tool(t) => {
                serde_json::to_value(t).map_err(|e| McpError::internal(e.to_string()).into())
            }
        }
    }
}

impl PyHandler {
    fn invoke(&self, payload: Value, ctx: Context) -> BoxFuture<Result<Value, HandlerError>> {
        let fut = self.invoke_with(payload, ctx, None, false);
        Box::pin(async move { fut.await?.into_value() })
    }

    fn invoke_with(
        &self,
        payload: Value,
        ctx: Context,
        next: Option<oxmcp::Next>,
        tool: bool,
    ) -> BoxFuture<Result<Reply, HandlerError>> {
        let (tx, rx) = oneshot::channel::<Outcome>();
        let slot: Slot = Arc::new(Mutex::new(None));
        // The asyncio task of an async handler, cancelled with the request (none for a sync one).
        let job: Option<Arc<Mutex<Option<Py<PyAny>>>>> = self.is_async.then(Default::default);
        let engine = self.engine.clone();
        let (entry, submit) = (self.entry.clone(), self.submit.clone());
        let nctx = NativeContext {
            ctx: ctx.clone(),
            slot: slot.clone(),
            engine: engine.clone(),
            next,
        };
        // The request may be cancelled before the worker or the dispatcher gets to it (both wait
        // for the GIL): nobody awaits the answer then, so the handler must not start at all.
        let token = ctx.cancellation().clone();
        let sent = if let Some(job) = job.clone() {
            engine.dispatch(Box::new(move |py| {
                if !token.is_cancelled() {
                    let call = AsyncCall {
                        entry,
                        submit,
                        payload,
                        nctx,
                        tx,
                        tool,
                    };
                    call.start(py, &job, &token);
                }
            }))
        } else {
            engine.run_sync(Box::new(move |py| {
                if token.is_cancelled() {
                    return;
                }
                let o = (|| -> PyResult<Outcome> {
                    let payload = to_py(py, &payload)?;
                    let nctx = Bound::new(py, nctx)?;
                    Ok(outcome(
                        &entry
                            .bind(py)
                            .call_method1(intern!(py, "call_sync"), (payload, nctx))?,
                        tool,
                    ))
                })()
                .unwrap_or_else(|e| py_failure(py, e));
                let _ = tx.send(o);
            }))
        };
        Box::pin(async move {
            if !sent {
                return Err(McpError::internal("the Python worker pool is stopped").into());
            }
            let cancel = ctx.cancellation().clone();
            let o = tokio::select! {
                o = rx => o.unwrap_or_else(|_| Outcome::Err(if cancel.is_cancelled() {
                    HandlerError::Cancelled // not started: the request was cancelled first
                } else {
                    McpError::internal("the handler was dropped").into()
                })),
                () = cancel.cancelled() => {
                    let handle = job.and_then(|j| j.lock().unwrap_or_else(|e| e.into_inner()).take());
                    if let Some(handle) = handle {
                        engine.dispatch(Box::new(move |py| {
                            if let Err(e) = handle.call_method0(py, "cancel") { e.print(py); }
                        }));
                    }
                    return Err(HandlerError::Cancelled);
                }
            };
            reply(o, &slot)
        })
    }
}

/// The handler's outcome as the core's reply; `InputRequired` takes the input request the
/// `Context` left in `slot`, and a middleware passing on its chain's error (same code, message
/// and data) gives that error as the chain gave it, with its HTTP status.
fn reply(o: Outcome, slot: &Slot) -> Result<Reply, HandlerError> {
    match o {
        Outcome::Ok(v) => Ok(Reply::Value(v)),
        Outcome::Tool(t) => Ok(Reply::Tool(t)),
        Outcome::Err(HandlerError::Mcp(e)) => {
            let kept = slot.lock().unwrap_or_else(|p| p.into_inner()).take();
            Err(match kept {
                Some(HandlerError::Mcp(k))
                    if k.code == e.code && k.message == e.message && k.data == e.data =>
                {
                    k.into()
                }
                _ => e.into(),
            })
        }
        Outcome::Err(e) => Err(e),
        Outcome::InputRequired => Err(slot
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .unwrap_or_else(|| {
                McpError::internal("InputRequired raised outside a Context input call").into()
            })),
    }
}

/// An async handler's call, submitted to the engine's asyncio loop as a task whose done
/// callback sends the outcome.
struct AsyncCall {
    entry: Arc<Py<PyAny>>,
    submit: Arc<Py<PyAny>>,
    payload: Value,
    nctx: NativeContext,
    tx: oneshot::Sender<Outcome>,
    tool: bool,
}

impl AsyncCall {
    /// Submit the call (on the thread that holds the GIL), keeping its task's handle in `job`
    /// so that a cancellation can cancel it.
    fn start(self, py: Python<'_>, job: &Mutex<Option<Py<PyAny>>>, token: &CancellationToken) {
        let Some(lp) = engine_loop(&self.nctx.engine, py) else {
            let _ = self.tx.send(Outcome::Err(
                McpError::internal("no asyncio loop is serving this server").into(),
            ));
            return;
        };
        let (tool, tx) = (self.tool, Mutex::new(Some(self.tx)));
        let done = PyCFunction::new_closure(
            py,
            None,
            None,
            move |args: &Bound<'_, pyo3::types::PyTuple>, _kw| -> PyResult<()> {
                let o = outcome(&args.get_item(0)?, tool);
                if let Some(tx) = tx.lock().unwrap_or_else(|e| e.into_inner()).take() {
                    let _ = tx.send(o);
                }
                Ok(())
            },
        );
        let (entry, submit, payload, nctx) = (self.entry, self.submit, self.payload, self.nctx);
        let r = (|| -> PyResult<Py<PyAny>> {
            let done = done?;
            let fn_ = entry.bind(py).getattr(intern!(py, "call_async"))?;
            let payload = to_py(py, &payload)?;
            let nctx = Bound::new(py, nctx)?;
            Ok(submit
                .bind(py)
                .call1((lp, fn_, payload, nctx, done))?
                .unbind())
        })();
        match r {
            Ok(handle) => {
                // A cancellation that came while `submit` ran found no handle to cancel, and the
                // task may have started already: cancel it here. (The token is set before the
                // awaiting side takes the lock to look for the handle.)
                let mut slot = job.lock().unwrap_or_else(|e| e.into_inner());
                if token.is_cancelled() {
                    drop(slot);
                    if let Err(e) = handle.call_method0(py, "cancel") {
                        e.print(py);
                    }
                } else {
                    *slot = Some(handle);
                }
            }
            Err(e) => e.print(py),
        }
    }
}

fn engine_loop(engine: &Engine, py: Python<'_>) -> Option<Py<PyAny>> {
    engine.event_loop(py)
}

fn parse<T: serde::de::DeserializeOwned>(v: Value, what: &str) -> Result<T, HandlerError> {
    serde_json::from_value(v).map_err(|e| {
        McpError::internal(format!("the handler returned an invalid {what}: {e}")).into()
    })
}

pub(crate) struct PyTool(pub(crate) PyHandler);
pub(crate) struct PyResource(pub(crate) PyHandler);
pub(crate) struct PyPrompt(pub(crate) PyHandler);
pub(crate) struct PyCompletion(pub(crate) PyHandler);
pub(crate) struct PyMethod(pub(crate) PyHandler);

impl ToolHandler for PyTool {
    fn call(
        &self,
        args: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<ToolResult, HandlerError>> {
        let fut = self.0.invoke_with(Value::Object(args), ctx, None, true);
        Box::pin(async move {
            match fut.await? {
                Reply::Tool(t) => Ok(t),
                Reply::Value(v) => parse(v, "tool result"),
            }
        })
    }
}

impl ResourceHandler for PyResource {
    fn read(
        &self,
        uri: String,
        vars: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<Vec<ResourceContents>, HandlerError>> {
        let fut = self
            .0
            .invoke(serde_json::json!({"uri": uri, "vars": vars}), ctx);
        Box::pin(async move { parse(fut.await?, "resource contents list") })
    }
}

impl PromptHandler for PyPrompt {
    fn get(
        &self,
        args: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<PromptResult, HandlerError>> {
        let fut = self.0.invoke(Value::Object(args), ctx);
        Box::pin(async move { parse(fut.await?, "prompt result") })
    }
}

impl CompletionHandler for PyCompletion {
    fn complete(
        &self,
        argument: String,
        value: String,
        context_args: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<Completion, HandlerError>> {
        let fut = self.0.invoke(
            serde_json::json!({"argument": argument, "value": value, "context": context_args}),
            ctx,
        );
        Box::pin(async move { parse(fut.await?, "completion") })
    }
}

impl oxmcp::MethodHandler for PyMethod {
    fn call(
        &self,
        params: Map<String, Value>,
        ctx: Context,
    ) -> BoxFuture<Result<Value, HandlerError>> {
        self.0.invoke(Value::Object(params), ctx)
    }
}

/// `get_tool_input_schema(name)` of mcp 2.x's low-level `Server` (wrapped by the Python layer,
/// which answers None when it raises), run on the worker pool: the runtime never waits for the GIL.
pub(crate) struct PyLookup {
    pub(crate) func: Arc<Py<PyAny>>,
    pub(crate) engine: Arc<Engine>,
}

impl oxmcp::ToolSchemaLookup for PyLookup {
    fn input_schema(&self, name: &str) -> BoxFuture<Option<Value>> {
        let (tx, rx) = oneshot::channel::<Option<Value>>();
        let (func, name) = (self.func.clone(), name.to_string());
        let sent = self.engine.run_sync(Box::new(move |py| {
            let found = func
                .bind(py)
                .call1((name,))
                .and_then(|v| crate::convert::from_py(&v));
            let _ = tx.send(match found {
                Ok(Value::Object(m)) => Some(Value::Object(m)),
                Ok(_) => None,
                Err(e) => {
                    e.print(py);
                    None
                }
            });
        }));
        Box::pin(async move {
            if !sent {
                return None;
            }
            rx.await.ok().flatten()
        })
    }
}

/// A compatibility layer's wording of a tool's refused arguments: its entry gets
/// `{"arguments", "violations": [{"pointer", "message"}]}` and answers the text, or None to keep
/// the core's.
pub(crate) struct PyWording(pub(crate) PyHandler);

impl RefusalWording for PyWording {
    fn word(
        &self,
        arguments: Map<String, Value>,
        violations: Vec<oxmcp::schema::Violation>,
        ctx: Context,
    ) -> BoxFuture<Result<Option<String>, HandlerError>> {
        let violations: Vec<Value> = violations
            .into_iter()
            .map(|v| serde_json::json!({"pointer": v.pointer, "message": v.message}))
            .collect();
        let payload = serde_json::json!({"arguments": arguments, "violations": violations});
        let fut = self.0.invoke(payload, ctx);
        Box::pin(async move { parse(fut.await?, "refusal text") })
    }
}

/// A Python middleware (`oxmcp.server.middleware`'s chain entry): hooks `methods` (all when None).
pub(crate) struct PyMiddleware {
    pub(crate) handler: PyHandler,
    pub(crate) methods: Option<std::collections::HashSet<String>>,
}

impl oxmcp::Middleware for PyMiddleware {
    fn hooks(&self, method: &str) -> bool {
        self.methods.as_ref().is_none_or(|m| m.contains(method))
    }
    fn handle(
        &self,
        req: oxmcp::MiddlewareRequest,
        next: oxmcp::Next,
    ) -> BoxFuture<oxmcp::MiddlewareResult> {
        let payload = serde_json::json!({"method": req.method, "params": req.params});
        let fut = self
            .handler
            .invoke_with(payload, req.ctx, Some(next), false);
        Box::pin(async move { fut.await?.into_value() })
    }
}
