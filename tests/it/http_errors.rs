//! Every header, version, `_meta` and framing error of Streamable HTTP, with its exact status
//! and JSON-RPC code (the 2026-07-28 spec: `basic/index` error codes; `transports/streamable-http` headers, validation order and Origin checks).

use crate::harness::*;
use serde_json::{json, Value};

const V: &str = MODERN;

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {}})
}

fn req(id: i64, method: &str, mut params: Value) -> String {
    if params.get("_meta").is_none() {
        params["_meta"] = meta();
    }
    json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}).to_string()
}

/// Assert a JSON-RPC error answer: status, code, and (when given) the echoed id.
fn assert_err(r: &Resp, status: u16, code: i64, id: Option<Value>) -> Value {
    assert_eq!(r.status, status, "status for {}", r.body);
    assert!(
        r.content_type().starts_with("application/json"),
        "error bodies are JSON: {:?}",
        r.headers
    );
    let v = r.json();
    assert_eq!(v["jsonrpc"], "2.0");
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{v}"
    );
    match id {
        Some(id) => assert_eq!(v["id"], id, "{v}"),
        None => assert!(
            v.get("id").is_none(),
            "no id when it could not be read: {v}"
        ),
    }
    v
}

#[tokio::test]
async fn protocol_version_header_rules() {
    let s = HttpServer::start("everything").await;
    let body = req(1, "tools/list", json!({}));
    // Missing MCP-Protocol-Version on a modern request.
    let r = s.post(&[("Mcp-Method", "tools/list")], &body).await;
    let v = assert_err(&r, 400, -32020, Some(json!(1)));
    assert_eq!(
        v["error"]["message"],
        "Header mismatch: missing MCP-Protocol-Version header"
    );
    // Header differs from _meta (a legacy value, and an unknown one): -32020 before version support.
    for hv in ["2025-11-25", "1999-01-01"] {
        let r = s
            .post(
                &[("MCP-Protocol-Version", hv), ("Mcp-Method", "tools/list")],
                &body,
            )
            .await;
        let v = assert_err(&r, 400, -32020, Some(json!(1)));
        assert!(v["error"]["message"].as_str().unwrap().contains(hv), "{v}");
    }
    let unknown_meta = req(
        2,
        "tools/list",
        json!({"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{}}}),
    );
    let r = s
        .post(
            &[("MCP-Protocol-Version", V), ("Mcp-Method", "tools/list")],
            &unknown_meta,
        )
        .await;
    assert_err(&r, 400, -32020, Some(json!(2)));
}

#[tokio::test]
async fn unsupported_version_names_supported_and_requested() {
    let s = HttpServer::start("everything").await;
    for bad in ["1999-01-01", "2025-11-25"] {
        let body = req(
            3,
            "server/discover",
            json!({"_meta":{"io.modelcontextprotocol/protocolVersion":bad,"io.modelcontextprotocol/clientCapabilities":{}}}),
        );
        let r = s
            .post(
                &[
                    ("MCP-Protocol-Version", bad),
                    ("Mcp-Method", "server/discover"),
                ],
                &body,
            )
            .await;
        let v = assert_err(&r, 400, -32022, Some(json!(3)));
        assert_eq!(
            v["error"]["data"],
            json!({"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":bad})
        );
    }
}

#[tokio::test]
async fn missing_meta_keys_are_400_invalid_params() {
    let s = HttpServer::start("everything").await;
    let h = [("MCP-Protocol-Version", V), ("Mcp-Method", "tools/list")];
    // No _meta at all, no params at all, _meta without protocolVersion, without clientCapabilities.
    let bodies = [
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}),
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}),
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":V}}}),
        json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":V,"io.modelcontextprotocol/clientCapabilities":"all"}}}),
    ];
    let expected = [
        "Missing _meta io.modelcontextprotocol/protocolVersion",
        "Missing _meta io.modelcontextprotocol/protocolVersion",
        "Missing _meta io.modelcontextprotocol/protocolVersion",
        "Missing _meta io.modelcontextprotocol/clientCapabilities",
        "Missing _meta io.modelcontextprotocol/clientCapabilities",
    ];
    for (b, msg) in bodies.iter().zip(expected) {
        let r = s.post(&h, &b.to_string()).await;
        let v = assert_err(&r, 400, -32602, Some(json!(1)));
        assert_eq!(v["error"]["message"], msg, "for {b}");
    }
    // An invalid logLevel is -32602 too.
    let body = req(
        2,
        "tools/list",
        json!({"_meta":{"io.modelcontextprotocol/protocolVersion":V,"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"verbose"}}),
    );
    let r = s.post(&h, &body).await;
    assert_err(&r, 400, -32602, Some(json!(2)));
}

#[tokio::test]
async fn mcp_method_header_missing_mismatched_or_wrong_case() {
    let s = HttpServer::start("everything").await;
    let body = req(1, "tools/list", json!({}));
    for m in [
        None,
        Some("tools/call"),
        Some("Tools/List"),
        Some("TOOLS/LIST"),
    ] {
        let mut h = vec![("MCP-Protocol-Version", V)];
        if let Some(m) = m {
            h.push(("Mcp-Method", m));
        }
        let r = s.post(&h, &body).await;
        let v = assert_err(&r, 400, -32020, Some(json!(1)));
        if let Some(m) = m {
            assert_eq!(
                v["error"]["message"],
                format!("Header mismatch: Mcp-Method header value '{m}' does not match body value 'tools/list'")
            );
        }
    }
}

#[tokio::test]
async fn mcp_name_header_plain_base64_missing_and_mismatched() {
    let s = HttpServer::start("everything").await;
    let body = req(
        1,
        "tools/call",
        json!({"name":"test_simple_text","arguments":{}}),
    );
    let base = [("MCP-Protocol-Version", V), ("Mcp-Method", "tools/call")];
    let with = |n: &'static str| {
        let mut h = base.to_vec();
        h.push(("Mcp-Name", n));
        h
    };
    // Plain and Base64-sentinel forms are both accepted.
    for n in ["test_simple_text", "=?base64?dGVzdF9zaW1wbGVfdGV4dA==?="] {
        let r = s.post(&with(n), &body).await;
        assert_eq!(r.status, 200, "{n}: {}", r.body);
        assert_eq!(
            r.result()["content"][0]["text"],
            "This is a simple text response for testing."
        );
    }
    // Missing, different, different after decoding, invalid Base64.
    let r = s.post(&base, &body).await;
    assert_err(&r, 400, -32020, Some(json!(1)));
    let r = s.post(&with("test_error_handling"), &body).await;
    let v = assert_err(&r, 400, -32020, Some(json!(1)));
    assert_eq!(v["error"]["message"], "Header mismatch: Mcp-Name header value 'test_error_handling' does not match body value 'test_simple_text'");
    let r = s
        .post(&with("=?base64?dGVzdF9lcnJvcl9oYW5kbGluZw==?="), &body)
        .await;
    assert_err(&r, 400, -32020, Some(json!(1)));
    let r = s.post(&with("=?base64?!!!?="), &body).await;
    assert_err(&r, 400, -32020, Some(json!(1)));
    // resources/read mirrors the URI; prompts/get the name.
    let body = req(2, "resources/read", json!({"uri":"test://static-text"}));
    let mut h = vec![
        ("MCP-Protocol-Version", V),
        ("Mcp-Method", "resources/read"),
    ];
    let r = s.post(&h, &body).await;
    assert_err(&r, 400, -32020, Some(json!(2)));
    h.push(("Mcp-Name", "test://static-text"));
    assert_eq!(s.post(&h, &body).await.status, 200);
    let body = req(3, "prompts/get", json!({"name":"test_simple_prompt"}));
    let r = s
        .post(
            &[
                ("MCP-Protocol-Version", V),
                ("Mcp-Method", "prompts/get"),
                ("Mcp-Name", "test_prompt_with_image"),
            ],
            &body,
        )
        .await;
    assert_err(&r, 400, -32020, Some(json!(3)));
}

#[tokio::test]
async fn header_names_are_case_insensitive_and_values_trimmed() {
    let s = HttpServer::start("everything").await;
    let body = req(1, "tools/call", json!({"name":"test_simple_text"}));
    let h = [
        ("mcp-protocol-version", " 2026-07-28 "),
        ("MCP-METHOD", "tools/call "),
        ("mCp-NaMe", "\ttest_simple_text"),
    ];
    let r = s.post(&h, &body).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.result()["content"][0]["text"],
        "This is a simple text response for testing."
    );
}

#[tokio::test]
async fn removed_and_unknown_methods_are_404_method_not_found() {
    let s = HttpServer::start("everything").await;
    for m in [
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "initialize",
        "tasks/list",
        "no/such/method",
    ] {
        let params = match m {
            "logging/setLevel" => json!({"level":"info"}),
            "resources/subscribe" | "resources/unsubscribe" => {
                json!({"uri":"test://watched-resource"})
            }
            "initialize" => {
                json!({"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}})
            }
            _ => json!({}),
        };
        let r = s.modern(json!(7), m, params).await;
        let v = assert_err(&r, 404, -32601, Some(json!(7)));
        assert_eq!(v["error"]["message"], "Method not found", "{v}");
        assert_eq!(v["error"]["data"], m, "{v}");
    }
}

#[tokio::test]
async fn http_methods_other_than_post() {
    let s = HttpServer::start("everything").await;
    let r = s.send("GET", &[("Accept", "text/event-stream")], "").await;
    assert_eq!(r.status, 405);
    assert_eq!(r.headers.get("allow").unwrap(), "POST");
    let r = s.send("DELETE", &[], "").await;
    assert_eq!(r.status, 405);
    assert_eq!(r.headers.get("allow").unwrap(), "POST");
    for m in ["PUT", "PATCH"] {
        let r = s.send(m, &[], &req(1, "tools/list", json!({}))).await;
        assert_eq!(r.status, 405, "{m}");
        assert_eq!(r.headers.get("allow").unwrap(), "GET, POST, DELETE");
    }
    // Other paths are not the endpoint.
    let r = request(
        &s.addr,
        "POST",
        "/other",
        &[],
        req(1, "tools/list", json!({})).into_bytes(),
    )
    .await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn notifications_are_accepted_with_202_and_no_body() {
    let s = HttpServer::start("everything").await;
    let n = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99,"_meta":meta()}}).to_string();
    for h in [
        vec![
            ("MCP-Protocol-Version", V),
            ("Mcp-Method", "notifications/cancelled"),
        ],
        vec![],
    ] {
        let r = s.post(&h, &n).await;
        assert_eq!(r.status, 202);
        assert!(r.body.is_empty(), "{}", r.body);
    }
    // Of the handshake era (no `_meta` revision, no header) on a stateful server: it belongs to
    // a session, and names none.
    let r = s
        .post(
            &[],
            &json!({"jsonrpc":"2.0","method":"notifications/whatever"}).to_string(),
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(
        r.body.contains("Mcp-Session-Id header is required"),
        "{}",
        r.body
    );
}

#[tokio::test]
async fn content_type_and_accept_are_enforced() {
    let s = HttpServer::start("everything").await;
    let body = req(1, "tools/list", json!({}));
    let ok = [("MCP-Protocol-Version", V), ("Mcp-Method", "tools/list")];
    for ct in ["text/plain", "application/x-www-form-urlencoded", OMIT] {
        let mut h = ok.to_vec();
        h.push(("Content-Type", ct));
        let r = s.post(&h, &body).await;
        let v = assert_err(&r, 415, -32600, None);
        assert_eq!(
            v["error"]["message"],
            "Content-Type must be application/json"
        );
    }
    let mut h = ok.to_vec();
    h.push(("Content-Type", "application/json; charset=utf-8"));
    assert_eq!(s.post(&h, &body).await.status, 200);
    for accept in ["text/html", "text/event-stream", OMIT] {
        let mut h = ok.to_vec();
        h.push(("Accept", accept));
        let r = s.post(&h, &body).await;
        assert_err(&r, 406, -32600, None);
    }
}

#[tokio::test]
async fn malformed_json_rpc() {
    let s = HttpServer::start("everything").await;
    let h = [("MCP-Protocol-Version", V), ("Mcp-Method", "tools/list")];
    for bad in ["{", "", "not json", "{\"jsonrpc\":\"2.0\",\"id\":1,"] {
        let r = s.post(&h, bad).await;
        let v = assert_err(&r, 400, -32700, None);
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("Parse error"),
            "{v}"
        );
    }
    let cases = [
        (
            json!({"jsonrpc":"2.0","id":null,"method":"tools/list","params":{"_meta":meta()}}),
            None,
        ),
        (
            json!({"jsonrpc":"2.0","id":1.5,"method":"tools/list","params":{"_meta":meta()}}),
            None,
        ),
        (
            json!({"jsonrpc":"2.0","id":true,"method":"tools/list","params":{"_meta":meta()}}),
            None,
        ),
        (
            json!({"id":4,"method":"tools/list","params":{"_meta":meta()}}),
            Some(json!(4)),
        ),
        (
            json!({"jsonrpc":"1.0","id":5,"method":"tools/list","params":{"_meta":meta()}}),
            Some(json!(5)),
        ),
        (json!({"jsonrpc":"2.0","id":6,"method":7}), Some(json!(6))),
        (json!({"jsonrpc":"2.0","id":8}), Some(json!(8))),
        (json!("tools/list"), None),
    ];
    for (b, id) in cases {
        let r = s.post(&h, &b.to_string()).await;
        assert_err(&r, 400, -32600, id);
    }
    // params that is not an object.
    let r = s
        .post(
            &h,
            &json!({"jsonrpc":"2.0","id":9,"method":"tools/list","params":[1]}).to_string(),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.json()["id"], 9);
}

#[tokio::test]
async fn batches_are_refused_in_the_modern_era() {
    let s = HttpServer::start("everything").await;
    let batch = json!([serde_json::from_str::<Value>(&req(1, "tools/list", json!({}))).unwrap()])
        .to_string();
    let r = s
        .post(
            &[("MCP-Protocol-Version", V), ("Mcp-Method", "tools/list")],
            &batch,
        )
        .await;
    let v = assert_err(&r, 400, -32600, None);
    assert_eq!(
        v["error"]["message"],
        "JSON-RPC batches are not supported in this protocol version"
    );
    let r = s.post(&[], "[]").await;
    assert_err(&r, 400, -32600, None);
}

#[tokio::test]
async fn origin_and_host_are_checked_against_dns_rebinding() {
    let s = HttpServer::start("everything").await;
    let body = req(1, "tools/list", json!({}));
    let ok = [("MCP-Protocol-Version", V), ("Mcp-Method", "tools/list")];
    let port = s.addr.rsplit(':').next().unwrap().to_string();
    for origin in [
        "http://evil.example",
        "https://localhost.evil.example",
        "null",
    ] {
        let mut h = ok.to_vec();
        h.push(("Origin", origin));
        let r = s.post(&h, &body).await;
        let v = assert_err(&r, 403, -32600, None);
        assert_eq!(
            v["error"]["message"], "Forbidden: Origin not allowed",
            "{origin}"
        );
    }
    for host in ["evil.example", "evil.example:80", "192.168.1.10"] {
        let mut h = ok.to_vec();
        h.push(("Host", host));
        let r = s.post(&h, &body).await;
        let v = assert_err(&r, 403, -32600, None);
        assert_eq!(
            v["error"]["message"], "Forbidden: Host not allowed",
            "{host}"
        );
    }
    // The server's own loopback names are fine, with or without a matching Origin.
    let own = format!("http://localhost:{port}");
    let own_host = format!("localhost:{port}");
    for (k, v) in [
        ("Origin", own.as_str()),
        ("Origin", "http://127.0.0.1"),
        ("Host", own_host.as_str()),
    ] {
        let mut h = ok.to_vec();
        h.push((k, v));
        let r = s.post(&h, &body).await;
        assert_eq!(r.status, 200, "{k}: {v}: {}", r.body);
    }
}

#[tokio::test]
async fn body_over_four_mebibytes_is_413() {
    let s = HttpServer::start("everything").await;
    let ok = [
        ("MCP-Protocol-Version", V),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "echo"),
    ];
    // Exactly the cap is served; one byte over is refused. The padding is whitespace between
    // JSON tokens, so no single string comes near the (separate, 1 MiB) string cap.
    let frame = |n: usize| {
        let head = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","_meta":{},"arguments":{{"text":"padded"}}}}}}"#,
            meta()
        );
        format!("{head}{}", " ".repeat(n - head.len()))
    };
    let cap = 4 * 1024 * 1024;
    let body = frame(cap);
    assert_eq!(body.len(), cap);
    let r = s.post(&ok, &body).await;
    assert_eq!(r.status, 200, "{}", &r.body[..r.body.len().min(200)]);
    assert_eq!(r.result()["content"][0]["text"], "padded");
    let (status, answer) = raw_post(&s.addr, &ok, frame(cap + 1).into_bytes()).await;
    assert_eq!(status, 413, "{answer}");
    let v: Value = serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{e}: {answer}"));
    assert_eq!(
        v,
        json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"Request body too large"}})
    );
    // The server is still serving.
    assert_eq!(
        s.modern(json!(2), "tools/list", json!({})).await.status,
        200
    );
}

#[tokio::test]
async fn missing_client_capability_is_400_with_required_capabilities() {
    let s = HttpServer::start("everything").await;
    let r = s
        .modern(
            json!(1),
            "tools/call",
            json!({"name":"test_missing_capability","arguments":{}}),
        )
        .await;
    let v = assert_err(&r, 400, -32021, Some(json!(1)));
    assert_eq!(
        v["error"]["data"],
        json!({"requiredCapabilities":{"sampling":{}}})
    );
}
