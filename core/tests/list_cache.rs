//! Lists and `server/discover` over HTTP are serialised once per registry version:
//! the kept answer must be the one the core renders afresh (stdio does not keep answers), carry
//! each request's own id, and change with the registry.

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method};
use oxmcp::transport::http::{HttpConfig, HttpHandler, HttpRequest, ResponseBody};
use oxmcp::{Env, HandlerError, Prompt, PromptResult, Server, Tool, ToolResult, Transport};
use serde_json::{json, Map, Value};

const MODERN: &str = "2026-07-28";

fn tool(name: &str) -> Tool {
    Tool::new(
        name,
        json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}),
    )
    .description(format!("the tool {name}"))
    .handler(|_args: Map<String, Value>, _ctx| async move {
        Ok::<_, HandlerError>(ToolResult::text("ok"))
    })
}

fn body(id: Value, method: &str, params: Value) -> Value {
    let mut p = params.as_object().cloned().unwrap_or_default();
    p.insert(
        "_meta".into(),
        json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {}
        }),
    );
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": p})
}

/// POST one modern request; the body's bytes.
async fn post(h: &HttpHandler, msg: &Value) -> String {
    let mut headers = HeaderMap::new();
    headers.insert("host", HeaderValue::from_static("127.0.0.1"));
    headers.insert("content-type", HeaderValue::from_static("application/json"));
    headers.insert(
        "accept",
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    headers.insert("mcp-protocol-version", HeaderValue::from_static(MODERN));
    let method = msg["method"].as_str().unwrap().to_string();
    headers.insert("mcp-method", HeaderValue::from_str(&method).unwrap());
    let resp = h
        .handle(HttpRequest {
            method: Method::POST,
            path: "/mcp".into(),
            headers,
            body: Bytes::from(serde_json::to_vec(msg).unwrap()),
        })
        .await;
    assert_eq!(resp.status.as_u16(), 200, "{method}");
    match resp.body {
        ResponseBody::Full(b) => String::from_utf8(b.to_vec()).unwrap(),
        other => panic!("{method}: not a JSON body: {other:?}"),
    }
}

/// The same request over stdio's path, which renders every answer afresh.
async fn fresh(s: &Server, msg: &Value) -> Value {
    s.dispatch(msg.clone(), &Env::new(Transport::Stdio))
        .await
        .unwrap()
}

#[tokio::test]
async fn kept_answers_match_fresh_ones_and_follow_the_registry() {
    let s = Server::builder("cache", "1.0.0")
        .instructions("hello")
        .tool(tool("a"))
        .build()
        .unwrap();
    let h = HttpHandler::new(s.clone(), HttpConfig::mount());

    for method in ["tools/list", "server/discover"] {
        for id in [json!(1), json!("two"), json!(3)] {
            let msg = body(id.clone(), method, json!({}));
            let got: Value = serde_json::from_str(&post(&h, &msg).await).unwrap();
            assert_eq!(got, fresh(&s, &msg).await, "{method} id {id}");
            assert_eq!(got["id"], id);
        }
    }
    let names = |v: &Value| -> Vec<String> {
        v["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let list = body(json!(9), "tools/list", json!({}));

    // A new version: the next answer shows it.
    s.add_tool(tool("b")).unwrap();
    let got: Value = serde_json::from_str(&post(&h, &list).await).unwrap();
    assert_eq!(names(&got), ["a", "b"]);
    assert_eq!(got, fresh(&s, &list).await);
    assert!(s.remove_tool("a"));
    let got: Value = serde_json::from_str(&post(&h, &list).await).unwrap();
    assert_eq!(names(&got), ["b"]);

    // server/discover follows the capabilities: a first prompt adds `prompts`.
    let discover = body(json!(10), "server/discover", json!({}));
    let before: Value = serde_json::from_str(&post(&h, &discover).await).unwrap();
    assert!(before["result"]["capabilities"].get("prompts").is_none());
    s.add_prompt(
        Prompt::new("p").handler(|_args: Map<String, Value>, _ctx| async move {
            Ok::<_, HandlerError>(PromptResult::from_value(json!({"messages": []})).unwrap())
        }),
    )
    .unwrap();
    let after: Value = serde_json::from_str(&post(&h, &discover).await).unwrap();
    assert!(after["result"]["capabilities"].get("prompts").is_some());
    assert_eq!(after, fresh(&s, &discover).await);
    let prompts = body(json!(11), "prompts/list", json!({}));
    let got: Value = serde_json::from_str(&post(&h, &prompts).await).unwrap();
    assert_eq!(got, fresh(&s, &prompts).await);
}

#[tokio::test]
async fn later_pages_and_bad_cursors_are_not_kept() {
    let mut b = Server::builder("cache", "1.0.0");
    b.options_mut().page_size = 2;
    for i in 0..5 {
        b = b.tool(tool(&format!("t{i}")));
    }
    let s = b.build().unwrap();
    let h = HttpHandler::new(s.clone(), HttpConfig::mount());
    let first: Value =
        serde_json::from_str(&post(&h, &body(json!(1), "tools/list", json!({}))).await).unwrap();
    let cursor = first["result"]["nextCursor"].as_str().unwrap().to_string();
    let second_msg = body(json!(2), "tools/list", json!({"cursor": cursor}));
    let second: Value = serde_json::from_str(&post(&h, &second_msg).await).unwrap();
    assert_eq!(second, fresh(&s, &second_msg).await);
    assert_ne!(second["result"]["tools"], first["result"]["tools"]);
    let bad = body(json!(3), "tools/list", json!({"cursor": "nope"}));
    let got: Value = serde_json::from_str(&post(&h, &bad).await).unwrap();
    assert_eq!(got["error"]["code"], -32602);
    // and the first page is still the first page
    let again: Value =
        serde_json::from_str(&post(&h, &body(json!(1), "tools/list", json!({}))).await).unwrap();
    assert_eq!(again, first);
}
