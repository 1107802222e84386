//! The example server with auth from the environment (`OXMCP_TOKENS`, `OXMCP_RESOURCE`,
//! `OXMCP_LOG_FORMAT=json`): challenges, per-caller lists, and the caller in the JSON audit line.

use crate::harness::*;
use serde_json::{json, Value};
use std::time::Duration;

async fn as_caller(
    s: &HttpServer,
    token: Option<&str>,
    id: u64,
    method: &str,
    mut params: Value,
) -> Resp {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}});
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_string);
    let body = json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string();
    let bearer = token.map(|t| format!("Bearer {t}"));
    let mut h: Vec<(&str, &str)> = vec![("MCP-Protocol-Version", MODERN), ("Mcp-Method", method)];
    if let Some(n) = name.as_deref() {
        h.push(("Mcp-Name", n));
    }
    if let Some(b) = bearer.as_deref() {
        h.push(("authorization", b));
    }
    s.post(&h, &body).await
}

#[tokio::test]
async fn tokens_from_the_environment() {
    let tokens = json!({"alice": {"tokens": ["alice-1", "alice-2"], "tools": ["test_simple_text"]}, "ops": "ops-1"}).to_string();
    let mut s = HttpServer::start_with(
        "everything",
        &[
            ("OXMCP_TOKENS", &tokens),
            ("OXMCP_RESOURCE", "https://mcp.example.com/mcp"),
            ("OXMCP_AUTH_SERVERS", "https://auth.example.com"),
            ("OXMCP_SCOPES", "mcp"),
            ("OXMCP_LOG_FORMAT", "json"),
            ("OXMCP_LOG", "warn,oxmcp::audit=info"),
        ],
    )
    .await;
    let r = as_caller(&s, None, 1, "tools/list", json!({})).await;
    assert_eq!(r.status, 401);
    assert_eq!(
        r.headers.get("www-authenticate").unwrap(),
        r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp""#
    );
    let doc = request(
        &s.addr,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        &[],
        vec![],
    )
    .await
    .json();
    assert_eq!(
        doc["authorization_servers"],
        json!(["https://auth.example.com"])
    );

    let r = as_caller(&s, Some("alice-2"), 2, "tools/list", json!({})).await;
    let listed = r.result();
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["test_simple_text"]);
    let ops = as_caller(&s, Some("ops-1"), 3, "tools/list", json!({}))
        .await
        .result();
    assert!(ops["tools"].as_array().unwrap().len() > 5);

    let r = as_caller(
        &s,
        Some("alice-1"),
        777,
        "tools/call",
        json!({"name":"test_simple_text","arguments":{}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let line = s
        .stderr_line("\"request_id\":\"777\"", Duration::from_secs(5))
        .await
        .expect("a JSON audit line");
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["target"], "oxmcp::audit");
    assert_eq!(v["fields"]["caller"], "alice");
    assert_eq!(v["fields"]["name"], "test_simple_text");
    assert_eq!(v["fields"]["outcome"], "ok");
}
