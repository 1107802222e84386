//! Methods outside the spec that the host serves: the SDKs' low-level servers let a server answer
//! a method of its own (mcp 2.x's `Server.add_request_handler("bookshop/reindex", ...)`, the TS
//! SDK's `setRequestHandler` for a schema with its own method literal).
//!
//! Such a method is registered here ([`Server::add_method`]) and reached through the one dispatch
//! path: by then the transport's admission (authentication, rate limits), the era and `_meta`
//! checks and the legacy session rules have run as for every request; `route` sends it to
//! [`Server::custom_method`], which holds a `max_in_flight` permit and the server's timeout
//! around the handler, with a `Context` as any handler's (progress, logs, MRTR input). A method
//! no one registered stays -32601.
//!
//! Which names a host may take is decided here ([`check_method_name`]): never a method the core
//! serves (the spec's, the extensions' and oxmcp's own), never the Tasks extension's namespace
//! (the core keeps the tasks, their owners and their states: a host's `tasks/result` would
//! answer for them past those checks), never a notification, and never JSON-RPC's reserved
//! `rpc.` names.

use super::dispatch::{Outcome, RequestInfo};
use super::env::Env;
use super::mrtr::ArgsDigest;
use super::pipeline::RunError;
use super::Server;
use crate::error::{BuildError, HandlerError, McpError};
use crate::handler::MethodHandler;
use crate::jsonrpc::Params;
use crate::protocol::{Era, Method};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// The host's methods by name, copy-on-write: a request takes one `Arc` clone.
#[derive(Default)]
pub(crate) struct Methods(RwLock<Arc<HashMap<String, Arc<dyn MethodHandler>>>>);

impl Methods {
    fn get(&self, name: &str) -> Option<Arc<dyn MethodHandler>> {
        let map = self.0.read().unwrap_or_else(|e| e.into_inner());
        map.get(name).cloned()
    }

    fn change(&self, f: impl FnOnce(&mut HashMap<String, Arc<dyn MethodHandler>>) -> bool) -> bool {
        let mut map = self.0.write().unwrap_or_else(|e| e.into_inner());
        let mut next = map.as_ref().clone();
        let changed = f(&mut next);
        *map = Arc::new(next);
        changed
    }
}

/// Whether a host may serve `name` itself: `Err` says why not (see the module's doc).
pub fn check_method_name(name: &str) -> Result<(), BuildError> {
    let refuse = |message: &str| {
        Err(BuildError::InvalidName {
            kind: "method",
            name: name.to_string(),
            message: message.to_string(),
        })
    };
    if name.is_empty() {
        return refuse("a method name is not empty");
    }
    if name == "initialize" {
        return refuse("the handshake is the core's (observe it with a middleware)");
    }
    if !matches!(Method::parse(name.into()), Method::Other(_)) {
        return refuse(
            "it is a method the core serves itself; a host serves methods outside the spec only",
        );
    }
    if name.starts_with("tasks/") {
        return refuse("the tasks/ methods are the Tasks extension's, which the core serves (its tasks, their owners and states)");
    }
    if name.starts_with("notifications/") {
        return refuse("a notification is not a request");
    }
    if name.starts_with("rpc.") {
        return refuse("JSON-RPC reserves the rpc. names");
    }
    Ok(())
}

impl Server {
    /// Serve the method `name`, outside the spec, with the host's `handler` (in place of one
    /// given before). Refused for a name the core keeps ([`check_method_name`]).
    pub fn add_method(
        &self,
        name: impl Into<String>,
        handler: Arc<dyn MethodHandler>,
    ) -> Result<(), BuildError> {
        let name = name.into();
        check_method_name(&name)?;
        self.inner.methods.change(|m| {
            m.insert(name, handler);
            true
        });
        Ok(())
    }

    /// Stop serving the host's method `name`; whether it was served.
    pub fn remove_method(&self, name: &str) -> bool {
        self.inner.methods.change(|m| m.remove(name).is_some())
    }

    /// A method the core does not serve: the host's handler for it, or -32601.
    pub(super) async fn custom_method(
        &self,
        rq: &RequestInfo,
        params: Params,
        env: &Env,
        digest: ArgsDigest,
    ) -> Outcome {
        let name = rq.method.as_str();
        let Some(handler) = self.inner.methods.get(name) else {
            return McpError::method_not_found(name).into();
        };
        let _permit = match self.in_flight_permit(env) {
            Ok(p) => p,
            Err(o) => return o,
        };
        let input = match self.mrtr_input(rq, name, &params, env, digest) {
            Ok(i) => i,
            Err(e) => return e.into(),
        };
        let timeout = self.inner.options.tool_timeout;
        let cancel = if timeout.is_some() {
            env.cancel.child_token()
        } else {
            env.cancel.clone()
        };
        let ctx = self.context(rq, env, input, cancel);
        let fut = handler.call(params.into_map(), ctx.clone());
        match Self::run(fut, &ctx.inner.cancel, timeout).await {
            Ok(Value::Object(m)) => {
                // The era's shaping, as the core's own answers get (no cache hints: the core
                // cannot know whether a host's method may be cached).
                if rq.era == Era::Modern && !m.contains_key("resultType") {
                    Outcome::Result(self.finish(rq, m, false))
                } else {
                    Outcome::Result(Value::Object(m))
                }
            }
            Ok(_) => McpError::internal(format!(
                "the handler of {name} returned a result that is not an object"
            ))
            .into(),
            Err(RunError::Handler(HandlerError::InputRequired(_))) => {
                self.input_required(rq, name, &ctx, env)
            }
            Err(RunError::Handler(HandlerError::Cancelled)) => Outcome::Nothing,
            Err(e) => self.method_failure(name, e, env),
        }
    }

    /// A host method's handler that failed, timed out or panicked, as a JSON-RPC error.
    fn method_failure(&self, name: &str, e: RunError, env: &Env) -> Outcome {
        // As the core's own handlers' failures: the detail the binding gave, a panic's only
        // with `expose_internal_errors`.
        let internal = |detail: Option<String>| {
            let text = match detail {
                Some(d) if !d.is_empty() => format!("Error handling {name}: {d}"),
                _ => format!("Error handling {name}"),
            };
            Outcome::from(McpError::internal(text))
        };
        match e {
            RunError::Handler(HandlerError::Mcp(e)) => e.into(),
            RunError::Handler(HandlerError::Tool(e)) => McpError::internal(e.message).into(),
            RunError::Handler(HandlerError::Internal(detail)) => internal(detail),
            RunError::Handler(HandlerError::InvalidArguments(v)) => {
                McpError::invalid_params("Invalid params")
                    .with_data(json!({"violations": crate::schema::violations_json(&v)}))
                    .into()
            }
            RunError::Panic(msg) => {
                env.note("panic");
                tracing::error!(method = %name, panic = %msg, "handler panicked");
                internal(self.inner.options.expose_internal_errors.then_some(msg))
            }
            RunError::Timeout => {
                env.note("timeout");
                McpError::internal("Timed out").into()
            }
            // Answered by the caller before this is reached.
            RunError::Handler(HandlerError::InputRequired(_) | HandlerError::Cancelled) => {
                Outcome::Nothing
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::Context;
    use crate::server::{Env, Transport};
    use serde_json::Map;

    fn modern(method: &str, params: Value) -> Value {
        let mut p = params;
        p["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                            "io.modelcontextprotocol/clientCapabilities": {}});
        json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": p})
    }

    #[test]
    fn the_names_the_core_keeps_are_refused() {
        for name in [
            "",
            "initialize",
            "tools/call",
            "subscriptions/listen",
            "tasks/get",
            "tasks/result",
            "notifications/x",
            "rpc.x",
        ] {
            assert!(check_method_name(name).is_err(), "{name}");
        }
        let e = check_method_name("tools/list").unwrap_err().to_string();
        assert!(e.contains("the core serves itself"), "{e}");
        assert!(check_method_name("bookshop/reindex").is_ok());
    }

    #[tokio::test]
    async fn a_host_method_is_dispatched_and_an_unknown_one_is_not_found() {
        let s = Server::builder("m", "1").build().unwrap();
        let reindex = |p: Map<String, Value>, _ctx: Context| async move {
            if p.get("fail").is_some() {
                return Err(McpError::invalid_params("no such shelf"));
            }
            Ok(json!({"indexed": 3}))
        };
        s.add_method("bookshop/reindex", Arc::new(reindex)).unwrap();
        let env = Env::new(Transport::Stdio);
        let r = s
            .dispatch(modern("bookshop/reindex", json!({})), &env)
            .await;
        let r = r.unwrap();
        assert_eq!(r["result"]["indexed"], 3, "{r}");
        assert_eq!(r["result"]["resultType"], "complete");
        let failed = s
            .dispatch(modern("bookshop/reindex", json!({"fail": 1})), &env)
            .await
            .unwrap();
        assert_eq!(failed["error"]["code"], -32602, "{failed}");
        let unknown = s
            .dispatch(modern("bookshop/burn", json!({})), &env)
            .await
            .unwrap();
        assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
        assert!(s.remove_method("bookshop/reindex"));
        let gone = s
            .dispatch(modern("bookshop/reindex", json!({})), &env)
            .await
            .unwrap();
        assert_eq!(gone["error"]["code"], -32601, "{gone}");
    }
}
