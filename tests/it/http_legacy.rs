//! The legacy era over Streamable HTTP: `initialize` for 2024-11-05, 2025-03-26 (with batches),
//! 2025-06-18 and 2025-11-25; sessions (id, DELETE, expiry, cap); stateless legacy clients.

use crate::harness::*;
use serde_json::{json, Value};
use std::time::Duration;

const LEGACY: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// Legacy results follow the legacy schema: no `resultType`, no cache hints, and no result
/// `_meta` but the catalog's (`io.oxmcp/…`, on lists).
fn assert_legacy_shape(res: &Value) {
    for k in ["resultType", "ttlMs", "cacheScope"] {
        assert!(res.get(k).is_none(), "legacy result carries {k}: {res}");
    }
    if let Some(meta) = res.get("_meta").and_then(Value::as_object) {
        assert!(
            meta.keys().all(|k| k.starts_with("io.oxmcp/")),
            "legacy result carries _meta: {res}"
        );
    }
}

#[tokio::test]
async fn every_legacy_revision_serves_every_method() {
    let s = HttpServer::start("everything").await;
    for version in LEGACY {
        let l = s.initialize(version, json!({})).await;
        let sid = l.session.clone().expect("a session id on initialize");
        assert!(
            sid.len() >= 32 && sid.bytes().all(|b| (0x21..=0x7e).contains(&b)),
            "visible ASCII, unguessable: {sid}"
        );

        let ping = l.call(json!(1), "ping", json!({})).await;
        assert_eq!(ping.status, 200);
        assert_eq!(
            ping.json(),
            json!({"jsonrpc":"2.0","id":1,"result":{}}),
            "{version}"
        );

        let tools = l.call(json!(2), "tools/list", json!({})).await.result();
        assert_legacy_shape(&tools);
        let names: Vec<&str> = tools["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names[0], "test_simple_text");

        let res = l
            .call(
                json!(3),
                "tools/call",
                json!({"name":"test_simple_text","arguments":{}}),
            )
            .await
            .result();
        assert_legacy_shape(&res);
        assert_eq!(
            res["content"],
            json!([{"type":"text","text":"This is a simple text response for testing."}]),
            "{version}"
        );

        let res = l
            .call(
                json!(4),
                "tools/call",
                json!({"name":"add","arguments":{"a":1,"b":2}}),
            )
            .await
            .result();
        assert_eq!(res["content"][0]["text"], "3");

        let res = l.call(json!(5), "resources/list", json!({})).await.result();
        assert_legacy_shape(&res);
        // Four fixtures, then the skills' files (tests/it/skills.rs).
        let fixtures = res["resources"].as_array().unwrap().iter();
        let fixtures = fixtures.filter(|r| !r["uri"].as_str().unwrap().starts_with("skill://"));
        assert_eq!(fixtures.count(), 4);
        let res = l
            .call(json!(6), "resources/templates/list", json!({}))
            .await
            .result();
        assert_eq!(
            res["resourceTemplates"][0]["uriTemplate"],
            "test://template/{id}/data"
        );
        let res = l
            .call(
                json!(7),
                "resources/read",
                json!({"uri":"test://static-text"}),
            )
            .await
            .result();
        assert_legacy_shape(&res);
        assert_eq!(
            res["contents"][0]["text"],
            "This is the content of the static text resource."
        );
        // Legacy resource-not-found is -32002.
        let r = l
            .call(json!(8), "resources/read", json!({"uri":"test://nope"}))
            .await;
        assert_eq!(r.status, 200);
        assert_eq!(
            r.json()["error"],
            json!({"code":-32002,"message":"Resource not found","data":{"uri":"test://nope"}})
        );

        let res = l.call(json!(9), "prompts/list", json!({})).await.result();
        assert_legacy_shape(&res);
        let res = l
            .call(
                json!(10),
                "prompts/get",
                json!({"name":"test_prompt_with_arguments","arguments":{"arg1":"a","arg2":"b"}}),
            )
            .await
            .result();
        assert_eq!(
            res["messages"][0]["content"]["text"],
            "Prompt with arguments: arg1='a', arg2='b'"
        );
        let res = l
            .call(json!(11), "completion/complete", json!({"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"te"}}))
            .await
            .result();
        assert_eq!(res["completion"]["values"], json!(["test", "testing"]));
        assert_eq!(
            l.call(json!(12), "logging/setLevel", json!({"level":"warning"}))
                .await
                .result(),
            json!({})
        );
        assert_eq!(
            l.call(
                json!(13),
                "resources/subscribe",
                json!({"uri":"test://watched-resource"})
            )
            .await
            .result(),
            json!({})
        );
        assert_eq!(
            l.call(
                json!(14),
                "resources/unsubscribe",
                json!({"uri":"test://watched-resource"})
            )
            .await
            .result(),
            json!({})
        );
        // Legacy: an unknown method is -32601 with HTTP 200 (only the modern era maps it to 404).
        let r = l.call(json!(15), "server/discover", json!({})).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.error_code(), -32601);
        let r = l
            .call(json!(16), "logging/setLevel", json!({"level":"loud"}))
            .await;
        assert_eq!(r.error_code(), -32602);
    }
}

#[tokio::test]
async fn initialize_negotiates_the_version() {
    let s = HttpServer::start("everything").await;
    // A supported version is echoed (checked by the harness); others get the newest legacy one.
    for asked in ["2026-07-28", "1999-01-01", "2030-01-01"] {
        let body = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":asked,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}});
        let r = s.post(&[], &body.to_string()).await;
        assert_eq!(r.status, 200);
        let res = r.result();
        assert_eq!(res["protocolVersion"], "2025-11-25", "asked {asked}");
        assert_eq!(res["serverInfo"]["name"], "oxmcp-everything");
        assert_eq!(
            res["instructions"],
            "Conformance fixtures for every MCP feature oxmcp serves."
        );
        assert_eq!(res["capabilities"]["tools"], json!({"listChanged":true}));
        assert_eq!(
            res["capabilities"]["resources"],
            json!({"subscribe":true,"listChanged":true})
        );
        assert_legacy_shape(&res);
        assert!(r.headers.get("mcp-session-id").is_some());
    }
    let r = s
        .post(
            &[],
            &json!({"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}).to_string(),
        )
        .await;
    assert_eq!(r.error_code(), -32602);
}

#[tokio::test]
async fn batches_in_2025_03_26() {
    let s = HttpServer::start("everything").await;
    let l = s.initialize("2025-03-26", json!({})).await;
    let batch = json!([
        {"jsonrpc":"2.0","id":"a","method":"ping"},
        {"jsonrpc":"2.0","method":"notifications/initialized"},
        {"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"add","arguments":{"a":20,"b":22}}},
        {"jsonrpc":"2.0","id":"c","method":"nope"},
        {"jsonrpc":"2.0","id":"d","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
    ]);
    let r = l.post(&batch).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let out: Value = serde_json::from_str(&r.body).unwrap();
    let out = out.as_array().expect("a batch answer is an array");
    assert_eq!(
        out.len(),
        4,
        "one response per request, none for the notification: {out:?}"
    );
    assert_eq!(out[0], json!({"jsonrpc":"2.0","id":"a","result":{}}));
    assert_eq!(out[1]["id"], "b");
    assert_eq!(out[1]["result"]["content"][0]["text"], "42");
    assert_eq!(out[2]["id"], "c");
    assert_eq!(out[2]["error"]["code"], -32601);
    assert_eq!(out[3]["id"], "d");
    assert_eq!(
        out[3]["error"]["code"], -32600,
        "initialize must not be batched"
    );
    // Only notifications: 202, no body.
    let r = l
        .post(&json!([{"jsonrpc":"2.0","method":"notifications/initialized"}]))
        .await;
    assert_eq!(r.status, 202);
    assert!(r.body.is_empty());
    // A 2025-03-26 client (no version header) of a server without sessions may batch too.
    let stateless =
        HttpServer::start_with("everything", &[("OXMCP_LEGACY_STATELESS", "true")]).await;
    let r = stateless
        .post(
            &[],
            &json!([{"jsonrpc":"2.0","id":1,"method":"ping"}]).to_string(),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        serde_json::from_str::<Value>(&r.body).unwrap(),
        json!([{"jsonrpc":"2.0","id":1,"result":{}}])
    );
}

#[tokio::test]
async fn batches_are_refused_after_2025_03_26() {
    let s = HttpServer::start("everything").await;
    for v in ["2025-06-18", "2025-11-25", "2024-11-05"] {
        let l = s.initialize(v, json!({})).await;
        let r = l
            .post(&json!([{"jsonrpc":"2.0","id":1,"method":"ping"}]))
            .await;
        assert_eq!(r.status, 400, "{v}: {}", r.body);
        assert_eq!(r.error_code(), -32600, "{v}");
    }
}

/// On a server that keeps sessions, a legacy request belongs to one: without `Mcp-Session-Id`
/// (and not `initialize`) it is refused with 400, with or without a version header, alone or
/// in a batch.
#[tokio::test]
async fn legacy_requests_without_a_session_are_refused() {
    let s = HttpServer::start("everything").await;
    let ping = json!({"jsonrpc":"2.0","id":2,"method":"ping"}).to_string();
    for headers in [vec![], vec![("MCP-Protocol-Version", "2025-11-25")]] {
        let r = s.post(&headers, &ping).await;
        assert_eq!(r.status, 400, "{headers:?}: {}", r.body);
        assert_eq!(r.error_code(), -32600);
        assert!(
            r.body.contains("Mcp-Session-Id header is required"),
            "{}",
            r.body
        );
    }
    let r = s
        .post(
            &[],
            &json!([{"jsonrpc":"2.0","id":1,"method":"ping"}]).to_string(),
        )
        .await;
    assert!(
        r.body.contains("Mcp-Session-Id header is required"),
        "{}",
        r.body
    );
    // The server keeps serving: a client that initializes is served as before.
    let l = s.initialize("2025-11-25", json!({})).await;
    let r = l
        .post(&json!({"jsonrpc":"2.0","id":3,"method":"ping"}))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
}

#[tokio::test]
async fn stateless_legacy_clients() {
    let s = HttpServer::start_with("everything", &[("OXMCP_LEGACY_STATELESS", "true")]).await;
    // No header at all: served as 2025-03-26.
    let r = s.post(&[], &json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text"}}).to_string()).await;
    assert_eq!(r.status, 200);
    let res = r.result();
    assert_legacy_shape(&res);
    assert_eq!(
        res["content"][0]["text"],
        "This is a simple text response for testing."
    );
    // A legacy version header without a session.
    for v in ["2025-06-18", "2025-11-25"] {
        let r = s
            .post(
                &[("MCP-Protocol-Version", v)],
                &json!({"jsonrpc":"2.0","id":2,"method":"ping"}).to_string(),
            )
            .await;
        assert_eq!(r.json(), json!({"jsonrpc":"2.0","id":2,"result":{}}));
    }
}

#[tokio::test]
async fn session_headers_unknown_sessions_and_delete() {
    let s = HttpServer::start("everything").await;
    let l = s.initialize("2025-11-25", json!({})).await;
    // An unsupported MCP-Protocol-Version within a session.
    let r = s
        .post(
            &[
                ("Mcp-Session-Id", l.session.as_deref().unwrap()),
                ("MCP-Protocol-Version", "1999-01-01"),
            ],
            &json!({"jsonrpc":"2.0","id":1,"method":"ping"}).to_string(),
        )
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.error_code(), -32022);
    assert_eq!(r.json()["error"]["data"]["requested"], "1999-01-01");
    // An unknown session id.
    let r = s
        .post(
            &[("Mcp-Session-Id", "0123456789abcdef0123456789abcdef")],
            &json!({"jsonrpc":"2.0","id":1,"method":"ping"}).to_string(),
        )
        .await;
    assert_eq!(r.status, 404);
    assert_eq!(r.error_code(), -32600);
    // DELETE ends the session: then 404 for POST and GET; a second DELETE (a proxy's retry)
    // succeeds as the first did.
    let d = l.send("DELETE").await;
    assert_eq!(d.status, 200);
    let r = l.call(json!(2), "ping", json!({})).await;
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["error"]["message"], "Session not found");
    assert_eq!(l.send("GET").await.status, 404);
    assert_eq!(l.send("DELETE").await.status, 200);
    // Another session is unaffected.
    let other = s.initialize("2025-06-18", json!({})).await;
    assert_eq!(other.call(json!(3), "ping", json!({})).await.status, 200);
}

#[tokio::test]
async fn idle_sessions_expire() {
    // Generous against a loaded machine: a stall between two pings must stay under the limit.
    let s = HttpServer::start_with("everything", &[("OXMCP_SESSION_IDLE_MS", "2000")]).await;
    let l = s.initialize("2025-11-25", json!({})).await;
    // Activity keeps it alive past the idle limit...
    for i in 0..8 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            l.call(json!(i), "ping", json!({})).await.status,
            200,
            "ping {i}"
        );
    }
    // ...idleness ends it.
    tokio::time::sleep(Duration::from_millis(2600)).await;
    let r = l.call(json!(9), "ping", json!({})).await;
    assert_eq!(r.status, 404, "{}", r.body);
}

#[tokio::test]
async fn the_session_table_is_capped() {
    let s = HttpServer::start_with("everything", &[("OXMCP_MAX_SESSIONS", "2")]).await;
    let a = s.initialize("2025-11-25", json!({})).await;
    let _b = s.initialize("2025-11-25", json!({})).await;
    let body = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}});
    let r = s.post(&[], &body.to_string()).await;
    assert_eq!(r.status, 503, "{}", r.body);
    assert_eq!(r.error_code(), -32603);
    assert!(r.headers.get("mcp-session-id").is_none());
    // Ending one frees a slot.
    assert_eq!(a.send("DELETE").await.status, 200);
    let r = s.post(&[], &body.to_string()).await;
    assert_eq!(r.status, 200);
    assert!(r.headers.get("mcp-session-id").is_some());
}

/// What a legacy session subscribes to is bounded: `max_subscriptions` resources, each URI at
/// most `max_uri_len`; beyond either, -32602 and nothing stored, and the session keeps working.
#[tokio::test]
async fn subscriptions_are_bounded_per_session() {
    let s = HttpServer::start_with("everything", &[("OXMCP_MAX_SUBSCRIPTIONS", "3")]).await;
    let l = s.initialize("2025-11-25", json!({})).await;
    let sub = |method: &str, uri: &str| json!({"jsonrpc":"2.0","id":1,"method":method,"params":{"uri":uri}});
    for i in 0..3 {
        let r = l
            .post(&sub("resources/subscribe", &format!("test://r/{i}")))
            .await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert!(r.json().get("result").is_some(), "{}", r.body);
    }
    let r = l.post(&sub("resources/subscribe", "test://r/3")).await;
    assert_eq!(r.error_code(), -32602, "{}", r.body);
    assert!(r.body.contains("Too many subscriptions"), "{}", r.body);
    // Subscribing again to one it holds is no new subscription; freeing one makes room.
    let r = l.post(&sub("resources/subscribe", "test://r/0")).await;
    assert!(r.json().get("result").is_some(), "{}", r.body);
    let r = l.post(&sub("resources/unsubscribe", "test://r/0")).await;
    assert!(r.json().get("result").is_some(), "{}", r.body);
    let r = l.post(&sub("resources/subscribe", "test://r/3")).await;
    assert!(r.json().get("result").is_some(), "{}", r.body);
    // A URI over max_uri_len (8 KiB) is refused before it is stored.
    let long = format!("test://{}", "x".repeat(9 * 1024));
    let r = l.post(&sub("resources/subscribe", &long)).await;
    assert_eq!(
        r.error_code(),
        -32602,
        "{}",
        &r.body[..200.min(r.body.len())]
    );
    assert!(r.body.contains("URI too long"));
    let r = l
        .post(&json!({"jsonrpc":"2.0","id":2,"method":"ping"}))
        .await;
    assert_eq!(r.status, 200);
}

/// `initialize`'s `clientInfo` and `capabilities`, kept for the session's life, are bounded
/// together by `max_client_info_bytes` (64 KiB): beyond it -32602 and no session is made.
#[tokio::test]
async fn client_info_is_bounded() {
    let s = HttpServer::start("everything").await;
    let init = |caps: Value| {
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
            "protocolVersion":"2025-11-25","capabilities":caps,
            "clientInfo":{"name":"t","version":"0"}}})
        .to_string()
    };
    let big = json!({"experimental": {"pad": "x".repeat(65 * 1024)}});
    let r = s.post(&[], &init(big)).await;
    assert_eq!(
        r.error_code(),
        -32602,
        "{}",
        &r.body[..r.body.len().min(300)]
    );
    assert!(r.body.contains("too large"), "{}", r.body);
    assert!(r.headers.get("mcp-session-id").is_none());
    let fits = json!({"experimental": {"pad": "x".repeat(60 * 1024)}});
    let r = s.post(&[], &init(fits)).await;
    assert_eq!(r.status, 200, "{}", &r.body[..r.body.len().min(300)]);
    assert!(r.headers.get("mcp-session-id").is_some());
}
