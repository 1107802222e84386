//! The `metrics` option over real HTTP: a scripted workload, then a scrape that shows its exact
//! counts; names the registry does not know add no series; who may scrape.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use oxmcp::config::Config;
use oxmcp::transport::http::HttpConfig;
use oxmcp::transport::http_server::HttpServer;
use oxmcp::{
    Prompt, PromptResult, Resource, ResourceContents, ResourceTemplate, Server, Tool, ToolError,
    ToolResult,
};
use serde_json::{json, Map, Value};
use std::net::SocketAddr;

const MODERN: &str = "2026-07-28";

async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: String,
) -> (u16, String) {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut tx, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .unwrap();
    tokio::spawn(conn);
    let mut b = hyper::Request::builder().method(method).uri(path);
    if !headers.iter().any(|(k, _)| *k == "host") {
        b = b.header("host", addr.to_string());
    }
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let resp = tx
        .send_request(b.body(Full::new(Bytes::from(body))).unwrap())
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// One modern request; the JSON-RPC response.
async fn call(addr: SocketAddr, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let name = params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    let mut h = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", MODERN),
        ("mcp-method", method),
    ];
    if let Some(n) = &name {
        h.push(("mcp-name", n.as_str()));
    }
    let (_, text) = send(addr, "POST", "/mcp", &h, body).await;
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

async fn read(
    uri: String,
    _v: Map<String, Value>,
    _c: oxmcp::Context,
) -> Result<Vec<ResourceContents>, ToolError> {
    Ok(vec![ResourceContents::text(uri, "text/plain", "x")])
}

fn server(metrics: Value) -> Server {
    let config =
        Config::from_json(json!({"name": "m", "version": "1", "metrics": metrics})).unwrap();
    let num =
        json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]});
    config
        .server
        .builder()
        .unwrap()
        .tool(
            Tool::new("add", num.clone()).handler(|_a: Map<String, Value>, _c| async move {
                Ok::<_, ToolError>(ToolResult::text("2"))
            }),
        )
        .tool(
            Tool::new("fail", num).handler(|_a: Map<String, Value>, _c| async move {
                Err::<ToolResult, _>(ToolError::new("no"))
            }),
        )
        .resource(Resource::new("mem://a", "a").handler(read))
        .resource_template(ResourceTemplate::new("file:///{name}", "files").handler(read))
        .prompt(
            Prompt::new("greet").handler(|_a: Map<String, Value>, _c| async move {
                PromptResult::from_value(json!({"messages": []}))
                    .map_err(|e| ToolError::new(e.to_string()))
            }),
        )
        .build()
        .unwrap()
}

async fn start(
    s: Server,
) -> (
    SocketAddr,
    Option<SocketAddr>,
    tokio_util::sync::CancellationToken,
) {
    let http = HttpServer::bind(s, HttpConfig::new("127.0.0.1:0".parse().unwrap()))
        .await
        .unwrap();
    let (addr, maddr) = (http.local_addr(), http.metrics_addr());
    let stop = tokio_util::sync::CancellationToken::new();
    let s2 = stop.clone();
    tokio::spawn(async move { http.serve(s2.cancelled_owned()).await });
    (addr, maddr, stop)
}

/// The sample lines of a scrape (no comments), for exact comparison.
fn samples(text: &str) -> Vec<&str> {
    text.lines().filter(|l| !l.starts_with('#')).collect()
}

#[tokio::test]
async fn a_scrape_counts_the_workload_exactly() {
    let (addr, _, stop) = start(server(json!({"token": "s3cret"}))).await;
    for _ in 0..2 {
        call(
            addr,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1}}),
        )
        .await;
    }
    let r = call(
        addr,
        "tools/call",
        json!({"name": "fail", "arguments": {"a": 1}}),
    )
    .await;
    assert_eq!(r["result"]["isError"], true);
    // Two names no one registered: one series, "unknown".
    for n in ["nope", "other-nope"] {
        let r = call(addr, "tools/call", json!({"name": n, "arguments": {}})).await;
        assert_eq!(r["error"]["code"], -32602);
    }
    call(addr, "resources/read", json!({"uri": "mem://a"})).await;
    call(addr, "resources/read", json!({"uri": "file:///x"})).await;
    call(addr, "resources/read", json!({"uri": "file:///y"})).await;
    call(addr, "prompts/get", json!({"name": "greet"})).await;
    call(addr, "tools/list", json!({})).await;

    // Without the token, or from a rebound Host: refused.
    assert_eq!(
        send(addr, "GET", "/metrics", &[], String::new()).await.0,
        401
    );
    let auth = ("authorization", "Bearer s3cret");
    assert_eq!(
        send(
            addr,
            "GET",
            "/metrics",
            &[auth, ("host", "evil.example")],
            String::new()
        )
        .await
        .0,
        403
    );
    let (status, text) = send(addr, "GET", "/metrics", &[auth], String::new()).await;
    assert_eq!(status, 200);
    let s = samples(&text);
    for want in [
        r#"oxmcp_requests_total{method="tools/call",era="modern",outcome="ok"} 3"#,
        r#"oxmcp_requests_total{method="tools/call",era="modern",outcome="invalid_params"} 2"#,
        r#"oxmcp_requests_total{method="resources/read",era="modern",outcome="ok"} 3"#,
        r#"oxmcp_requests_total{method="prompts/get",era="modern",outcome="ok"} 1"#,
        r#"oxmcp_requests_total{method="tools/list",era="modern",outcome="ok"} 1"#,
        r#"oxmcp_calls_total{kind="tool",name="add",outcome="ok"} 2"#,
        r#"oxmcp_calls_total{kind="tool",name="fail",outcome="is_error"} 1"#,
        r#"oxmcp_calls_total{kind="tool",name="unknown",outcome="error"} 2"#,
        r#"oxmcp_calls_total{kind="resource",name="a",outcome="ok"} 1"#,
        r#"oxmcp_calls_total{kind="resource",name="file:///{name}",outcome="ok"} 2"#,
        r#"oxmcp_calls_total{kind="prompt",name="greet",outcome="ok"} 1"#,
        r#"oxmcp_call_duration_seconds_count{kind="tool",name="add"} 2"#,
        "oxmcp_calls_in_flight 0",
        "oxmcp_auth_failures_total 1",
        "oxmcp_legacy_sessions 0",
        "oxmcp_listen_streams 0",
    ] {
        assert!(s.contains(&want), "missing {want:?} in:\n{text}");
    }
    // The names the registry does not know, and the URIs read, are no labels.
    for absent in ["nope", "file:///x", "file:///y", "mem://a", "oxmcp_redis_"] {
        assert!(!text.contains(absent), "{absent:?} in:\n{text}");
    }
    let calls = s
        .iter()
        .filter(|l| l.starts_with("oxmcp_calls_total{"))
        .count();
    assert_eq!(calls, 6, "{text}");
    stop.cancel();
}

#[tokio::test]
async fn metrics_on_their_own_listener_and_off() {
    let (addr, maddr, stop) = start(server(json!({"address": "127.0.0.1:0", "path": "/m"}))).await;
    let maddr = maddr.expect("the metrics' own listener");
    call(
        addr,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1}}),
    )
    .await;
    // Not on the MCP listener; on its own, through the loopback Host rule.
    assert_eq!(send(addr, "GET", "/m", &[], String::new()).await.0, 404);
    assert_eq!(
        send(
            maddr,
            "GET",
            "/m",
            &[("host", "evil.example")],
            String::new()
        )
        .await
        .0,
        403
    );
    let (status, text) = send(maddr, "GET", "/m", &[], String::new()).await;
    assert_eq!(status, 200);
    assert!(
        text.contains("oxmcp_calls_total{kind=\"tool\",name=\"add\",outcome=\"ok\"} 1\n"),
        "{text}"
    );
    stop.cancel();

    // Off (the default): no endpoint.
    let (addr, maddr, stop) = start(server(Value::Null)).await;
    assert!(maddr.is_none());
    assert_eq!(
        send(addr, "GET", "/metrics", &[], String::new()).await.0,
        404
    );
    stop.cancel();
}

#[test]
fn an_address_off_loopback_needs_a_token() {
    let e = Config::from_json(json!({"metrics": {"address": "0.0.0.0:9464"}})).unwrap_err();
    assert!(
        e.message
            .contains("metrics.address off loopback needs metrics.token"),
        "{}",
        e.message
    );
    let e = Config::from_json(json!({"metrics": {"bogus": 1}})).unwrap_err();
    assert_eq!(e.message, "unknown option `metrics.bogus`");
    let e = Config::from_json(json!({"metrics": "yes"})).unwrap_err();
    assert!(
        e.message.starts_with("metrics must be a boolean"),
        "{}",
        e.message
    );
}

/// Metrics on the MCP endpoint's own path would never be reached: the server refuses to start.
#[tokio::test]
async fn metrics_on_the_endpoint_path_stop_the_start() {
    let local: SocketAddr = "127.0.0.1:0".parse().unwrap();
    // The configuration refuses the endpoint's own path at once...
    let e = Config::from_json(json!({"name": "m", "version": "1", "metrics": {"path": "/mcp"}}))
        .expect_err("refused");
    assert!(
        e.message.starts_with("metrics.path \"/mcp\" is a path"),
        "{e}"
    );
    // ...and the built-in server again at bind, for an HttpConfig made by hand.
    let mut endpoint = HttpConfig::new(local);
    endpoint.path = "/x".into();
    let e = HttpServer::bind(server(json!({"path": "/x"})), endpoint)
        .await
        .err()
        .expect("refused");
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    assert!(e.to_string().contains("metrics.path \"/x\""), "{e}");
    // On a listener of their own, the path is theirs.
    let own = server(json!({"path": "/mcp", "address": "127.0.0.1:0"}));
    assert!(HttpServer::bind(own, HttpConfig::new(local)).await.is_ok());
}

/// A refusal is counted under the limit that made it: the session cap is `max_sessions`; only a
/// session store out of reach is `session_store`.
#[tokio::test]
async fn a_session_cap_refusal_is_labelled_by_its_limit() {
    let config =
        Config::from_json(json!({"name": "m", "version": "1", "metrics": {}, "max_sessions": 1}))
            .unwrap();
    let s = config.server.builder().unwrap().build().unwrap();
    let (addr, _, stop) = start(s).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}}})
    .to_string();
    let h = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
    ];
    assert_eq!(send(addr, "POST", "/mcp", &h, init.clone()).await.0, 200);
    let (status, body) = send(addr, "POST", "/mcp", &h, init).await;
    assert_eq!(status, 503, "{body}");
    let (_, text) = send(addr, "GET", "/metrics", &[], String::new()).await;
    let s = samples(&text);
    let want = r#"oxmcp_rejections_total{status="503",reason="max_sessions"} 1"#;
    assert!(s.contains(&want), "missing {want:?} in:\n{text}");
    assert!(!text.contains("session_store"), "{text}");
    stop.cancel();
}
