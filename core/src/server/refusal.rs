//! A refusal of a tool's arguments worded by the tool's [`RefusalWording`]: the core decides
//! that the call is refused (stage 1, `calls.rs`), and a compatibility layer supplies the words
//! its framework says them in. The answer's kind (an `isError` result or -32602, as
//! `ServerOptions::validation` says) and its `data.violations` stay the core's.

use super::dispatch::Outcome;
use super::env::Env;
use super::Server;
use crate::error::HandlerError;
use crate::handler::RefusalWording;
use crate::server::dispatch::RequestInfo;
use serde_json::{Map, Value};

/// Why stage 1 answers without running anything.
pub(crate) enum Refused {
    /// The answer, ready.
    Now(Outcome),
    /// A tool's arguments the core refused, whose text its wording gives (boxed: rare).
    Worded(Box<WordedRefusal>),
}

impl From<Outcome> for Refused {
    fn from(o: Outcome) -> Self {
        Self::Now(o)
    }
}

/// A refusal of a tool's arguments, to be worded by the tool's [`RefusalWording`].
pub(crate) struct WordedRefusal {
    pub(super) name: String,
    /// As the client sent them.
    pub(super) arguments: Map<String, Value>,
    pub(super) violations: Vec<crate::schema::Violation>,
    pub(super) wording: std::sync::Arc<dyn RefusalWording>,
}

impl Server {
    /// A refusal of a tool's arguments worded by its [`RefusalWording`]: the same answer as
    /// [`Self::invalid_arguments`] (the core decided it, and its kind and `data` stay), with the
    /// wording's text when it gives one. The wording runs with the request's context (cancelled
    /// with it); its failure keeps the core's text.
    pub(super) async fn worded_refusal(
        &self,
        rq: &RequestInfo,
        env: &Env,
        r: WordedRefusal,
    ) -> Outcome {
        let WordedRefusal {
            name,
            arguments,
            violations,
            wording,
        } = r;
        let ctx = self.context(rq, env, Default::default(), env.cancel.clone());
        let text = match wording.word(arguments, violations.clone(), ctx).await {
            Ok(text) => text,
            Err(HandlerError::Cancelled) => return Outcome::Nothing,
            Err(e) => {
                tracing::warn!(tool = %name, error = %e, "a refusal's wording failed; the core's text is sent");
                None
            }
        };
        self.invalid_arguments_of(rq, "tool", &name, &violations, text)
    }
}

#[cfg(test)]
mod tests {
    use crate::server::options::ValidationMode;
    use crate::server::{Env, Server, ServerOptions, Transport};
    use crate::{BoxFuture, Context, HandlerError, RefusalWording, Tool, ToolResult};
    use serde_json::{json, Map, Value};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// Words a refusal with the arguments as sent and the core's pointers; none for `{"n": 0}`.
    struct Words;

    impl RefusalWording for Words {
        fn word(
            &self,
            arguments: Map<String, Value>,
            violations: Vec<crate::schema::Violation>,
            _ctx: Context,
        ) -> BoxFuture<Result<Option<String>, HandlerError>> {
            let at: Vec<String> = violations.into_iter().map(|v| v.pointer).collect();
            let text = (arguments.get("n") != Some(&json!(0)))
                .then(|| format!("refused {} at {}", Value::Object(arguments), at.join(",")));
            Box::pin(async move { Ok(text) })
        }
    }

    fn server(validation: ValidationMode, ran: Arc<AtomicUsize>) -> Server {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}},
                            "required": ["n"]});
        let tool = Tool::new("t", schema).refusal_wording(Words).handler(
            move |_a: Map<String, Value>, _c: Context| {
                ran.fetch_add(1, Ordering::SeqCst);
                async { Ok::<_, crate::ToolError>(ToolResult::text("ran")) }
            },
        );
        let o = ServerOptions {
            validation,
            lenient_coercion: true,
            ..ServerOptions::default()
        };
        Server::builder("s", "1")
            .options(o)
            .tool(tool)
            .build()
            .unwrap()
    }

    async fn call(s: &Server, args: Value) -> Value {
        let rq = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "t", "arguments": args,
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}});
        s.dispatch(rq, &Env::new(Transport::Stdio)).await.unwrap()
    }

    /// The core refuses; the wording gives the text (of the arguments as sent, before lenient
    /// coercion), or keeps the core's when it has none; the handler never runs either way.
    #[tokio::test]
    async fn a_refusal_is_worded_by_the_tools_wording_and_decided_by_the_core() {
        let ran = Arc::new(AtomicUsize::new(0));
        let s = server(ValidationMode::ToolError, ran.clone());
        let r = call(&s, json!({"n": "-3"})).await["result"].clone();
        assert_eq!(r["isError"], true, "{r}");
        assert_eq!(r["content"][0]["text"], r#"refused {"n":"-3"} at /n"#);
        let r = call(&s, json!({"n": 0})).await["result"].clone();
        assert_eq!(r["isError"], true, "{r}");
        assert_eq!(
            r["content"][0]["text"],
            "Invalid arguments for tool t:\n/n: 0 is less than the minimum of 1"
        );
        assert_eq!(ran.load(Ordering::SeqCst), 0, "a refused call never runs");
        let r = call(&s, json!({"n": "2"})).await["result"].clone();
        assert_eq!(
            r["content"][0]["text"], "ran",
            "accepted arguments are not worded"
        );
    }

    /// As a JSON-RPC error, the wording gives the message; the code and `data` stay the core's.
    #[tokio::test]
    async fn a_worded_json_rpc_refusal_keeps_the_cores_code_and_data() {
        let s = server(ValidationMode::JsonRpcError, Arc::default());
        let e = call(&s, json!({})).await["error"].clone();
        assert_eq!(e["code"], -32602, "{e}");
        assert_eq!(e["message"], "refused {} at ");
        assert_eq!(e["data"]["violations"][0]["pointer"], "");
    }
}
