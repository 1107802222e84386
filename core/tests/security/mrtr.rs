//! MRTR state bound to the call's arguments, with the arguments' digest read from the request's
//! body when a state is sealed or opened: a `requestState` opens for the same arguments whatever their
//! key order or spacing, and for no others; a middleware that changes the arguments on their
//! way keeps its rounds working.

use crate::common::*;
use oxmcp::{HandlerError, Middleware, MiddlewareRequest, MiddlewareResult, Next};

/// `ask(a, b)`: asks for `k`, then answers "a b action".
fn ask_server() -> Server {
    let ask = Tool::new(
        "ask",
        json!({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}),
    )
    .handler(|args: Map<String, Value>, ctx: Context| async move {
        let answer = ctx
            .elicit(
                "k",
                json!({"message": "ok?", "requestedSchema": {"type": "object", "properties": {}}}),
            )
            .await?;
        Ok::<_, HandlerError>(ToolResult::text(format!(
            "{} {} {}",
            args["a"], args["b"], answer["action"]
        )))
    });
    Server::builder("mrtr", "1.0.0").tool(ask).build().unwrap()
}

/// Doubles `a` on its way to the tool.
struct Double;

impl Middleware for Double {
    fn hooks(&self, method: &str) -> bool {
        method == "tools/call"
    }
    fn handle(
        &self,
        req: MiddlewareRequest,
        next: Next,
    ) -> futures::future::BoxFuture<'static, MiddlewareResult> {
        Box::pin(async move {
            let mut p = req.params;
            if let Some(a) = p.get_mut("arguments").and_then(|v| v.get_mut("a")) {
                *a = json!(a.as_i64().unwrap_or(0) * 2);
            }
            next.run(p).await
        })
    }
}

/// A `tools/call ask` with `arguments` as raw JSON text (key order and spacing as given) and
/// `extra` members after them.
async fn ask(addr: SocketAddr, id: u32, args: &str, extra: &str) -> Value {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"ask","arguments":{args}{extra},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{MODERN}","io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{}}}}}}}}}}"#
    );
    let h = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "tools/call"),
        ("mcp-name", "ask"),
    ];
    let r = request(addr, "POST", "/mcp", &h, body.into_bytes()).await;
    r.json()
}

fn state_of(r: &Value) -> String {
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    r["result"]["requestState"].as_str().unwrap().to_string()
}

fn retry(state: &str) -> String {
    format!(
        r#","inputResponses":{{"k":{{"action":"accept","content":{{}}}}}},"requestState":"{state}""#
    )
}

#[tokio::test]
async fn a_state_opens_for_the_same_arguments_in_any_order_and_for_no_others() {
    let _g = serial().await;
    let s = serve(ask_server(), HttpConfig::new(loopback())).await;
    let state = state_of(&ask(s.addr, 1, r#"{"a":1,"b":2}"#, "").await);
    for (i, same) in [
        r#"{"a":1,"b":2}"#,
        r#"{"b":2,"a":1}"#,
        r#"{ "b" : 2 , "a" : 1 }"#,
    ]
    .into_iter()
    .enumerate()
    {
        let r = ask(s.addr, 2 + i as u32, same, &retry(&state)).await;
        assert_eq!(r["result"]["resultType"], "complete", "{same}: {r}");
        assert_eq!(r["result"]["content"][0]["text"], "1 2 \"accept\"", "{r}");
    }
    for other in [r#"{"a":1,"b":3}"#, r#"{"a":1}"#, r#"{"a":1,"b":2,"c":0}"#] {
        let r = ask(s.addr, 9, other, &retry(&state)).await;
        assert_eq!(r["error"]["code"], -32602, "{other}: {r}");
        assert_eq!(r["error"]["message"], "Invalid or expired requestState");
    }
}

#[tokio::test]
async fn a_middleware_that_changes_the_arguments_keeps_its_rounds_working() {
    let _g = serial().await;
    let server = ask_server();
    server.add_middleware(Arc::new(Double));
    let s = serve(server, HttpConfig::new(loopback())).await;
    let state = state_of(&ask(s.addr, 1, r#"{"a":1,"b":2}"#, "").await);
    let r = ask(s.addr, 2, r#"{"b":2,"a":1}"#, &retry(&state)).await;
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(r["result"]["content"][0]["text"], "2 2 \"accept\"", "{r}");
    let r = ask(s.addr, 3, r#"{"a":2,"b":2}"#, &retry(&state)).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
}
