//! The interceptor chain: middleware that sees every request before and after the core routes
//! it — its method, params, caller and era (through the request's [`Context`]) — and may answer
//! it itself (short-circuit), change the params it passes on, or change the result.
//!
//! The chain wraps `Server::route`, so it sees every method (`initialize`, lists, calls,
//! `server/discover`, ...), for every transport, once. A middleware says which methods it hooks
//! ([`Middleware::hooks`]); a request that no middleware hooks goes straight to `route`, so a
//! host-language middleware (Python, Node) costs no host call on requests it does not hook.
//!
//! **`next` without borrowing.** A host middleware lives on another thread (the asyncio loop, the
//! V8 event loop) and calls `next` whenever it likes, so [`Next`] must be `'static` while `route`
//! borrows the request. `Next` is therefore a channel back to the request's own task: the task
//! polls the middleware's future and, when `next` is called, runs the rest of the chain itself and
//! sends the answer back. Nothing borrowed ever leaves the task.

use super::dispatch::{Outcome, RenderedValue, RequestInfo};
use super::env::Env;
use super::Server;
use crate::context::{Context, InputState};
use crate::error::{HandlerError, McpError};
use crate::handler::BoxFuture;
use crate::jsonrpc::Params;
use crate::protocol::{Era, Method};
use futures::future::Either;
use serde_json::{json, Map, Value};
use std::future::Future;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// What a middleware returns: the result object, or the failure.
pub type MiddlewareResult = Result<Value, HandlerError>;

/// One request as a middleware sees it. `ctx` carries the era, caller, client info, request id
/// and `_meta`, and can send progress and log notifications or ask the client for input.
#[non_exhaustive]
pub struct MiddlewareRequest {
    pub method: String,
    pub params: Map<String, Value>,
    pub ctx: Context,
}

type Call = (Map<String, Value>, oneshot::Sender<MiddlewareResult>);

/// The rest of the chain (the next middleware, then the core's routing). Cheap to clone; may be
/// called more than once (a retry middleware), or never (a short-circuit).
#[derive(Clone)]
pub struct Next {
    tx: mpsc::Sender<Call>,
}

impl Next {
    /// Run the rest of the chain with `params` (the request's own, or changed ones).
    pub async fn run(&self, params: Map<String, Value>) -> MiddlewareResult {
        let (reply, rx) = oneshot::channel();
        if self.tx.send((params, reply)).await.is_err() {
            return Err(HandlerError::Cancelled);
        }
        rx.await.unwrap_or(Err(HandlerError::Cancelled))
    }
}

/// An interceptor. Implemented by Rust code directly and by the bindings for host functions.
pub trait Middleware: Send + Sync + 'static {
    /// Whether this middleware wants to see `method`. Asked once per request, so keep it cheap.
    fn hooks(&self, method: &str) -> bool;
    /// Handle one request: call `next.run(params)` to go on, or answer without it.
    fn handle(&self, request: MiddlewareRequest, next: Next) -> BoxFuture<MiddlewareResult>;
}

/// A `tools/call`'s params as the core's own calls require them, whoever answers the call: a
/// string `name`, and `arguments`, when sent, an object (-32602 otherwise).
fn call_shape(params: &Params) -> Result<(), McpError> {
    if !params.get("name").is_some_and(Value::is_string) {
        return Err(McpError::invalid_params("Missing or invalid tool name"));
    }
    match params.get("arguments") {
        None | Some(Value::Null | Value::Object(_)) => Ok(()),
        Some(_) => Err(McpError::invalid_params("arguments must be an object")),
    }
}

/// The name that binds MRTR state to one primitive (as the call pipeline does).
fn primitive_name(params: &Params) -> String {
    params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

impl Server {
    /// Add a middleware at the end of the chain (the first added sees requests first).
    pub fn add_middleware(&self, m: Arc<dyn Middleware>) {
        let mut chain = self
            .inner
            .middleware
            .write()
            .unwrap_or_else(|e| e.into_inner());
        let mut next: Vec<Arc<dyn Middleware>> = chain.as_ref().clone();
        next.push(m);
        *chain = Arc::new(next);
    }

    /// [`Server::route`] through the middleware that hook this method. Not an `async fn`: what
    /// it decides needs no await, and the future it returns (boxed per request, and glibc's
    /// per-thread cache takes blocks up to 1,032 bytes only) is then the route's alone.
    pub(super) fn intercepted<'a>(
        &'a self,
        rq: &'a RequestInfo,
        params: Params,
        env: &'a Env,
    ) -> Either<impl Future<Output = Outcome> + Send + 'a, BoxFutureRef<'a, Outcome>> {
        let chain = self
            .inner
            .middleware
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        // The client's arguments, before any middleware changes them: an MRTR state is bound
        // to those wherever it is sealed or opened (by a middleware's context or the handler's).
        let body = env.message_body();
        let digest = super::mrtr::ArgsDigest::of(rq.era, &params, body);
        if chain.is_empty() {
            return Either::Left(self.route(rq, params, env, digest));
        }
        let hooked: Vec<Arc<dyn Middleware>> = chain
            .iter()
            .filter(|m| m.hooks(rq.method.as_str()))
            .cloned()
            .collect();
        if hooked.is_empty() {
            return Either::Left(self.route(rq, params, env, digest));
        }
        // A middleware may answer without the registry: the caller's allow-list is applied
        // around it (access.rs), to what the request names and to the list it gets back.
        Either::Right(Box::pin(async move {
            if rq.method == Method::ToolsCall {
                if let Err(e) = call_shape(&params) {
                    return e.into();
                }
            }
            if let Err(refused) = self.admit(rq, &params, env) {
                return refused;
            }
            let outcome = self.drive(&hooked, rq, params, env, &digest).await;
            if let (Method::ToolsList, Outcome::Result(v)) = (&rq.method, &outcome) {
                // A list a middleware answered may name tools the registry does not hold: their
                // `Mcp-Param-*` rules are checked as the registry's are (`listed_tools.rs`).
                self.inner.listed_tools.record(v, &self.snapshot());
            }
            self.only_visible(rq, outcome, env)
        }))
    }

    fn drive<'a>(
        &'a self,
        chain: &'a [Arc<dyn Middleware>],
        rq: &'a RequestInfo,
        params: Params,
        env: &'a Env,
        digest: &'a super::mrtr::ArgsDigest,
    ) -> BoxFutureRef<'a, Outcome> {
        Box::pin(async move {
            let Some((first, rest)) = chain.split_first() else {
                return self.route(rq, params, env, digest.clone()).await;
            };
            let name = primitive_name(&params);
            let input: InputState = match self.mrtr_input(rq, &name, &params, env, digest.clone()) {
                Ok(i) => i,
                Err(e) => return Outcome::Error(e),
            };
            let ctx = self.context(rq, env, input, env.cancel.child_token());
            let (tx, mut rx) = mpsc::channel::<Call>(1);
            let request = MiddlewareRequest {
                method: rq.method.as_str().to_string(),
                params: params.into_map(),
                ctx: ctx.clone(),
            };
            let mut fut = first.handle(request, Next { tx });
            let result = loop {
                tokio::select! {
                    // The middleware first: once cancelled, it gets one poll to see its token
                    // (and tell its handler) before it is dropped.
                    biased;
                    r = &mut fut => break r,
                    Some((p, reply)) = rx.recv() => {
                        let out = self.drive(rest, rq, Params::from_map(p), env, digest).await;
                        let _ = reply.send(as_middleware_result(out));
                    }
                    () = env.cancel.cancelled() => return Outcome::Nothing,
                }
            };
            self.middleware_answer(rq, result, &name, &ctx, env)
        })
    }

    /// What the chain's first middleware answered, as the request's outcome: a tool's error is
    /// a tool result with `isError` (as the core's own calls answer it), and an object gets the
    /// era's shaping as the core's own answer would.
    fn middleware_answer(
        &self,
        rq: &RequestInfo,
        result: MiddlewareResult,
        name: &str,
        ctx: &Context,
        env: &Env,
    ) -> Outcome {
        let result = match result {
            Err(HandlerError::Tool(e)) if rq.method == Method::ToolsCall => Ok(json!({
                "content": [{"type": "text", "text": e.to_string()}],
                "isError": true,
            })),
            other => other,
        };
        match result {
            Ok(Value::Object(m)) => {
                // A short-circuit answer is complete unless it says otherwise, and gets the
                // era's shaping as the core's own answer would (cache hints on cacheable
                // methods: the lists, server/discover, resources/read).
                if rq.era == Era::Modern && !m.contains_key("resultType") {
                    let cacheable = rq.method.is_list()
                        || matches!(rq.method, Method::ServerDiscover | Method::ResourcesRead);
                    Outcome::Result(self.finish(rq, m, cacheable))
                } else {
                    Outcome::Result(Value::Object(m))
                }
            }
            Ok(_) => {
                McpError::internal("a middleware returned a result that is not an object").into()
            }
            Err(HandlerError::Mcp(e)) => Outcome::Error(e),
            Err(HandlerError::Tool(e)) => McpError::internal(e.to_string()).into(),
            Err(HandlerError::InputRequired(_)) => self.input_required(rq, name, ctx, env),
            Err(HandlerError::Cancelled) => Outcome::Nothing,
            Err(HandlerError::Internal(d)) => {
                let detail = d.map(|d| format!(": {d}")).unwrap_or_default();
                McpError::internal(format!("Internal error in middleware{detail}")).into()
            }
            Err(HandlerError::InvalidArguments(v)) => McpError::invalid_params("Invalid arguments")
                .with_data(json!({"violations": crate::schema::violations_json(&v)}))
                .into(),
        }
    }
}

/// The rest of the chain's outcome as `next` gives it to a middleware.
fn as_middleware_result(out: Outcome) -> MiddlewareResult {
    match out {
        Outcome::Result(v) => Ok(v),
        Outcome::Tool(a) => Ok(a.into_value()),
        Outcome::Contents(a) => Ok(a.into_value()),
        Outcome::Rendered(r) => Ok(r.value()),
        Outcome::Error(e) => Err(HandlerError::Mcp(e)),
        Outcome::Nothing => Err(HandlerError::Cancelled),
    }
}

type BoxFutureRef<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::{Env, Transport};
    use crate::Tool;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Counts what it sees; doubles `a` on the way in, tags the result on the way out, and
    /// answers `tools/list` itself when `short` is set.
    struct Probe {
        seen: AtomicUsize,
        short: bool,
    }

    impl Middleware for Probe {
        fn hooks(&self, method: &str) -> bool {
            method.starts_with("tools/")
        }
        fn handle(&self, req: MiddlewareRequest, next: Next) -> BoxFuture<MiddlewareResult> {
            self.seen.fetch_add(1, Ordering::SeqCst);
            let short = self.short;
            Box::pin(async move {
                if short && req.method == "tools/list" {
                    return Ok(json!({"tools": []}));
                }
                let mut p = req.params;
                if let Some(a) = p.get_mut("arguments").and_then(|v| v.get_mut("a")) {
                    *a = json!(a.as_i64().unwrap_or(0) * 2);
                }
                let mut out = next.run(p).await?;
                out["_meta"] = json!({"tagged": req.ctx.era() == Era::Modern});
                Ok(out)
            })
        }
    }

    fn server() -> Server {
        let echo = Tool::new(
            "echo",
            json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
        )
        .handler(|args: Map<String, Value>, _ctx: Context| async move {
            Ok::<_, HandlerError>(args["a"].as_i64().unwrap_or(0))
        });
        Server::builder("mw", "1").tool(echo).build().unwrap()
    }

    fn modern(method: &str, params: Value) -> Value {
        let mut p = params;
        p["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                            "io.modelcontextprotocol/clientCapabilities": {}});
        json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": p})
    }

    #[tokio::test]
    async fn changes_params_and_results_and_skips_unhooked_methods() {
        let s = server();
        let probe = Arc::new(Probe {
            seen: AtomicUsize::new(0),
            short: false,
        });
        s.add_middleware(probe.clone());
        let env = Env::new(Transport::Stdio);
        let r = s
            .dispatch(
                modern("tools/call", json!({"name": "echo", "arguments": {"a": 4}})),
                &env,
            )
            .await
            .unwrap();
        assert_eq!(r["result"]["content"][0]["text"], "8", "{r}");
        assert_eq!(r["result"]["_meta"]["tagged"], true);
        s.dispatch(modern("server/discover", json!({})), &env)
            .await
            .unwrap();
        assert_eq!(
            probe.seen.load(Ordering::SeqCst),
            1,
            "server/discover is not hooked"
        );
    }

    #[tokio::test]
    async fn short_circuits_and_gets_result_type() {
        let s = server();
        s.add_middleware(Arc::new(Probe {
            seen: AtomicUsize::new(0),
            short: true,
        }));
        let env = Env::new(Transport::Stdio);
        let r = s
            .dispatch(modern("tools/list", json!({})), &env)
            .await
            .unwrap();
        assert_eq!(r["result"]["tools"], json!([]));
        assert_eq!(r["result"]["resultType"], "complete");
    }

    struct Deny;
    impl Middleware for Deny {
        fn hooks(&self, method: &str) -> bool {
            method == "tools/call"
        }
        fn handle(&self, _req: MiddlewareRequest, _next: Next) -> BoxFuture<MiddlewareResult> {
            Box::pin(async { Err(HandlerError::Mcp(McpError::invalid_params("denied"))) })
        }
    }

    #[tokio::test]
    async fn an_error_ends_the_request_and_order_is_registration_order() {
        let s = server();
        let probe = Arc::new(Probe {
            seen: AtomicUsize::new(0),
            short: false,
        });
        s.add_middleware(probe.clone());
        s.add_middleware(Arc::new(Deny));
        let env = Env::new(Transport::Stdio);
        let r = s
            .dispatch(
                modern("tools/call", json!({"name": "echo", "arguments": {"a": 1}})),
                &env,
            )
            .await
            .unwrap();
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert_eq!(
            probe.seen.load(Ordering::SeqCst),
            1,
            "the first middleware ran first"
        );
    }

    /// A middleware that does what a row of `tests/config/middleware.json` says.
    struct Misbehaves(Value);
    impl Middleware for Misbehaves {
        fn hooks(&self, method: &str) -> bool {
            method == "tools/list"
        }
        fn handle(&self, _req: MiddlewareRequest, _next: Next) -> BoxFuture<MiddlewareResult> {
            let row = self.0.clone();
            Box::pin(async move {
                match row["does"].as_str() {
                    Some("answers") => Ok(row["value"].clone()),
                    _ => Err(HandlerError::Internal(
                        (row["shown"] == true).then(|| "boom".to_string()),
                    )),
                }
            })
        }
    }

    /// The shared table of misbehaving middleware: the texts every language answers.
    #[tokio::test]
    async fn a_misbehaving_middleware_gets_the_shared_texts() {
        let table: Value =
            serde_json::from_str(include_str!("../../../tests/config/middleware.json")).unwrap();
        let env = Env::new(Transport::Stdio);
        for row in table["cases"].as_array().unwrap() {
            let s = server();
            s.add_middleware(Arc::new(Misbehaves(row.clone())));
            let r = s
                .dispatch(modern("tools/list", json!({})), &env)
                .await
                .unwrap();
            assert_eq!(r["error"]["code"], row["expect"]["code"], "{}", row["name"]);
            assert_eq!(
                r["error"]["message"], row["expect"]["message"],
                "{}",
                row["name"]
            );
        }
    }
}
